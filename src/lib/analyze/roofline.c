/* SPDX-License-Identifier: MIT */
/*
 * roofline.c - the "roofline" section of a rank: how far each op is from
 * what the GPU can do.
 *
 * Each kernel, memcpy and memset belongs to the op that launched it: the
 * cpu_op whose External id its launching runtime/driver call carries
 * (ctx.h ext_op; Kineto gives a call the id of the innermost op around
 * it), or, in traces without External ids (captures), the innermost cpu_op
 * whose time contains the launching call on the same thread. An op call's
 * GPU time is the union of its kernels' intervals, so its FLOPs are
 * counted once, at the op that launched the kernels and never at its
 * parents. Op calls are grouped by (name, Input Dims, Input type); the
 * texts are interned, so the model (opmodel.c) runs once per distinct
 * (name, dims, types, Concrete Inputs) after one sort of the calls. Peaks
 * come from peaks.c or --peak-tflops/--peak-tbps. O(n) over the GPU events
 * plus O(m log m) over the op calls that launched any. Definitions:
 * docs/analyses/roofline.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "opmodel.h"
#include "peaks.h"
#include "util/error.h"
#include "util/sort.h"

#define NONE    UINT32_MAX
#define PENDING (UINT32_MAX - 1)

/* MFU is reported only when the models cover at least this share of the GPU time */
#define MFU_MIN_COVERAGE_PCT 50.0

/*
 * The calls of one (name, dims, types, concrete) whose name has a model: the
 * model runs once per group, a row sums the groups of one (name, dims, types).
 */
struct grp {
	uint32_t name, dims, types, conc;
	int op; /* gp__opm_find() of the name; -1: no model */
	int64_t n, gpu_ns;
	bool tc; /* a kernel's name suggests Tensor Cores */
};

/* the groups, found by their four string ids in an open-addressing table */
struct groups {
	struct grp *g;
	size_t n, cap;
	uint32_t *slot; /* group index + 1; 0: empty */
	size_t mask;
	struct gp_u64map names; /* name id -> gp__opm_find() + 1 */
};

/* one row: calls of one (name, dims, types) */
struct row {
	uint32_t name, dims, types;
	struct gp__opm_result m; /* kind and dtype; flops/bytes summed over the calls */
	int64_t count, gpu_ns;
	bool tc;
	double peak, roof_ns, headroom;
};

/* the peaks in use: the table's row and the options */
struct roof {
	struct gp__peaks p;
	bool compute, bw; /* peaks known */
	const char *source;
};

static bool gpu_work(const struct gp_trace *t, uint32_t g)
{
	uint8_t k = t->ev.kind[g];

	return k == GP_K_KERNEL || k == GP_K_MEMCPY || k == GP_K_MEMSET;
}

/* a memcpy between host and device ("Memcpy HtoD (Pageable -> Device)", ROCm "CopyHostToDevice") */
static bool host_copy(const char *n)
{
	return strstr(n, "HtoD") || strstr(n, "DtoH") || strstr(n, "HtoH") || strstr(n, "Host");
}

/* ---- kernels -> ops ---- */

/*
 * The op of GPU event @p g by External id: the cpu_op the id names, when it
 * holds the launching call on its thread (*@p launcher: that call, -1
 * none). PENDING: find it by time instead
 * (no External id, or one that names no such op: traces of 2021-22 gave the
 * runtime calls their correlation id as External id). NONE: the call ran
 * directly under a user annotation, or nothing launched the event.
 */
static uint32_t op_by_ext(const struct gp__actx *c, uint32_t g, int64_t *launcher)
{
	const struct gp_trace *t = c->t;
	int64_t l = gp__launcher(c, g), ext = l >= 0 ? t->ev.ext[l] : -1;
	uint32_t v;

	*launcher = l;
	if (ext < 0)
		ext = t->ev.ext[g];
	if (ext >= 0 && gp__idmap_get(&c->ext_op, ext, &v) && v < t->ev.n) {
		if (l < 0)
			return t->ev.kind[v] == GP_K_CPU_OP ? v : NONE;
		if (t->ev.track[v] == t->ev.track[l] && c->ts[v] <= c->ts[l] &&
		    gp__end(c, l) <= gp__end(c, v))
			return t->ev.kind[v] == GP_K_CPU_OP ? v : NONE;
	}
	return l >= 0 ? PENDING : NONE;
}

/* an open cpu_op: its end */
struct frame {
	int64_t end;
	uint32_t op;
};

/* the open cpu_ops of a thread, innermost last */
struct stack {
	struct frame *v;
	uint32_t n, cap;
};

/* the most cpu_ops innermost_scan() looks at for one call before it gives up */
#define SCAN_MAX 256

/*
 * innermost_ops() by a look back from each call over the cpu_ops that
 * started before it, for the latest one on its thread that ends no earlier:
 * the op on top of the sweep's stack unless a call before it on its thread
 * outlasted it (and closed ops that hold it), which never happens where the
 * calls of a thread do not nest. *@p done false where that happens, or the
 * look back is long (a call under no op): then the sweep must do it.
 */
static int innermost_scan(const struct gp__actx *c, const uint32_t *ln, size_t n, uint32_t *op,
                          bool *done)
{
	const int64_t *ts = c->ts, *dur = c->dur;
	const uint32_t *track = c->t->ev.track, *ov = c->by_kind[GP_K_CPU_OP].v;
	size_t nops = c->by_kind[GP_K_CPU_OP].n, ntr = c->t->ntracks, i = 0, j, k;
	/*
	 * per thread (and one for ops of none), of the events so far: the end of
	 * its latest call, the latest end of its ops, 1 + the place of its latest op
	 */
	struct thr {
		int64_t lend, oend;
		size_t last;
	} *th = gp__reallocarray(NULL, ntr + 1, sizeof(*th));
	int rc = 0;

	*done = false;
	if (!th)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (k = 0; k <= ntr; k++) {
		th[k].lend = th[k].oend = INT64_MIN;
		th[k].last = 0;
	}
	for (j = 0; j < n; j++) {
		uint32_t l = ln[j], tr = track[l], r = NONE;
		int64_t lts = ts[l], end = lts + dur[l];

		for (; i < nops && ts[ov[i]] <= lts; i++) {
			uint32_t o = ov[i], otr = track[o];
			struct thr *h = &th[otr < ntr ? otr : ntr];
			int64_t oend = ts[o] + dur[o];

			h->last = i + 1;
			h->oend = oend > h->oend ? oend : h->oend;
		}
		if (tr >= ntr) {
			op[j] = NONE;
			continue;
		}
		/* an earlier call of this thread that outlasts this one */
		if (th[tr].lend > end)
			goto out;
		th[tr].lend = end;
		/* an op that started before holds the call when it ends no earlier */
		for (k = th[tr].oend >= end ? th[tr].last : 0; k > 0; k--) {
			uint32_t o = ov[k - 1];

			if (track[o] == tr && ts[o] + dur[o] >= end) {
				r = o;
				break;
			}
			if (th[tr].last - k >= SCAN_MAX)
				goto out;
		}
		op[j] = r;
	}
	*done = true;
out:
	gp__free(th);
	return rc;
}

/*
 * For the launching calls @p ln[0..n) (sorted by time), the innermost cpu_op
 * containing each on its thread, into @p op (NONE: none): one sweep over the
 * cpu_ops and the calls merged in time order, each thread's open ops a stack
 * (no sort, no per-thread list). Every op on a stack started at or before the
 * event at hand, so an op holds the event when it ends no earlier; at equal
 * start an op comes first, so it holds a call it starts with.
 */
static int innermost_sweep(const struct gp__actx *c, const uint32_t *ln, size_t n, uint32_t *op)
{
	const int64_t *ts = c->ts, *dur = c->dur;
	const uint32_t *track = c->t->ev.track, *ov = c->by_kind[GP_K_CPU_OP].v;
	size_t nops = c->by_kind[GP_K_CPU_OP].n, ntr = c->t->ntracks, i = 0, j;
	struct stack *st = gp__calloc(ntr ? ntr : 1, sizeof(*st));
	int rc = 0;

	if (!st)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (j = 0; j < n; j++) {
		uint32_t l = ln[j], tr = track[l], m;
		int64_t lts = ts[l], end;
		struct frame *v;

		for (; i < nops; i++) {
			uint32_t o = ov[i], otr;
			int64_t ots = ts[o];

			if (ots > lts)
				break;
			otr = track[o];
			if (otr >= ntr)
				continue;
			end = ots + dur[o];
			v = st[otr].v;
			/* close the ops of this thread that do not hold o */
			for (m = st[otr].n; m && v[m - 1].end < end; m--)
				;
			if (m == st[otr].cap) {
				uint32_t cap = m ? 2 * m : 16;

				if (!(v = gp__reallocarray(v, cap, sizeof(*v))))
					GP_TRY(gp__error(
					    GP_ENOMEM, "out of memory attributing kernels to ops"));
				st[otr].v = v;
				st[otr].cap = cap;
			}
			v[m].end = end;
			v[m].op = o;
			st[otr].n = m + 1;
		}
		if (tr >= ntr) {
			op[j] = NONE;
			continue;
		}
		end = lts + dur[l];
		v = st[tr].v;
		for (m = st[tr].n; m && v[m - 1].end < end; m--)
			;
		st[tr].n = m;
		op[j] = m ? v[m - 1].op : NONE;
	}
out:
	for (j = 0; st && j < ntr; j++)
		gp__free(st[j].v);
	gp__free(st);
	return rc;
}

/* innermost_sweep(), by innermost_scan() where that can */
static int innermost_ops(const struct gp__actx *c, const uint32_t *ln, size_t n, uint32_t *op)
{
	bool done;
	int rc = innermost_scan(c, ln, n, op, &done);

	return rc || done ? rc : innermost_sweep(c, ln, n, op);
}

/*
 * innermost_ops() for the (op, event) pairs @p kv[0..n) whose op is PENDING
 * (the launching call in the high half of val), the calls taken in the order
 * of their start and, at equal start, of the pairs; their key set to the op.
 */
static int innermost_sorted(const struct gp__actx *c, struct gp_kv *kv, size_t n, size_t np)
{
	struct gp_kv *pend = gp__reallocarray(NULL, np, sizeof(*pend));
	uint32_t *ln = gp__reallocarray(NULL, np, sizeof(*ln));
	uint32_t *lop = gp__reallocarray(NULL, np, sizeof(*lop));
	size_t k, j;
	int rc = 0;

	if (!pend || !ln || !lop)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (k = 0, j = 0; k < n; k++)
		if (kv[k].key == PENDING) {
			pend[j].key = c->ts[kv[k].val >> 32];
			pend[j++].val = k;
		}
	GP_TRY(gp__sort_kv(pend, np));
	for (j = 0; j < np; j++)
		ln[j] = (uint32_t)(kv[pend[j].val].val >> 32);
	GP_TRY(innermost_ops(c, ln, np, lop));
	for (j = 0; j < np; j++)
		kv[pend[j].val].key = lop[j];
out:
	gp__free(pend);
	gp__free(ln);
	gp__free(lop);
	return rc;
}

/*
 * innermost_sorted() without the sort where the launching calls are runtime
 * calls no two of which start at one time: they are then in the sorted list
 * of runtime calls in that order, marked in an array over it. *@p done
 * false: it cannot (innermost_sorted() must), kv unchanged.
 */
static int innermost_listed(const struct gp__actx *c, struct gp_kv *kv, size_t n, bool *done)
{
	const struct gp__idx *rt = &c->by_kind[GP_K_RUNTIME];
	const uint8_t *kind = c->t->ev.kind;
	size_t nw = (rt->n + 63) / 64, k, w;
	uint64_t *bit = gp__calloc(nw ? nw : 1, sizeof(*bit)); /* the runtime calls that launched */
	uint32_t *at = gp__malloc((rt->n ? rt->n : 1) * sizeof(*at)); /* where set: place in ln */
	uint32_t *ln = NULL, *lop = NULL, nl = 0;
	int64_t prev = INT64_MIN;
	int rc = 0;

	*done = false;
	if (!bit || !at)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (k = 0; k < n; k++)
		if (kv[k].key == PENDING) {
			uint32_t l = (uint32_t)(kv[k].val >> 32), r = c->kpos[l];

			if (kind[l] != GP_K_RUNTIME)
				goto out;
			nl += !(bit[r / 64] >> (r % 64) & 1);
			bit[r / 64] |= UINT64_C(1) << (r % 64);
		}
	ln = gp__reallocarray(NULL, nl ? nl : 1, sizeof(*ln));
	lop = gp__reallocarray(NULL, nl ? nl : 1, sizeof(*lop));
	if (!ln || !lop)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (w = 0, nl = 0; w < nw; w++)
		for (uint64_t b = bit[w]; b; b &= b - 1) {
			size_t r = w * 64 + (size_t)__builtin_ctzll(b);
			int64_t ts = c->ts[rt->v[r]];

			if (ts == prev)
				goto out;
			prev = ts;
			ln[nl] = rt->v[r];
			at[r] = nl++;
		}
	GP_TRY(innermost_ops(c, ln, nl, lop));
	for (k = 0; k < n; k++)
		if (kv[k].key == PENDING)
			kv[k].key = lop[at[c->kpos[kv[k].val >> 32]]];
	*done = true;
out:
	gp__free(bit);
	gp__free(at);
	gp__free(ln);
	gp__free(lop);
	return rc;
}

/* the device of the most GPU time, among the first 16 seen */
struct devs {
	struct {
		int64_t dev, ns;
	} d[16];
	size_t n, last;
};

static void devs_add(struct devs *d, int64_t dev, int64_t ns)
{
	size_t j = d->last;

	if (j >= d->n || d->d[j].dev != dev) {
		for (j = 0; j < d->n && d->d[j].dev != dev; j++)
			;
		if (j == d->n) {
			if (d->n == GP_ARRAY_SIZE(d->d))
				return;
			d->d[j].dev = dev;
			d->d[d->n++].ns = 0;
		}
		d->last = j;
	}
	d->d[j].ns += ns;
}

/* -1: no GPU event */
static int64_t devs_main(const struct devs *d)
{
	size_t k, best = 0;

	for (k = 1; k < d->n; k++)
		if (d->d[k].ns > d->d[best].ns)
			best = k;
	return d->n ? d->d[best].dev : -1;
}

/*
 * The (op, GPU event) pairs, sorted by op with each op's events in time
 * order; events of no op are summed into *@p lone_ns. The same walk over the
 * GPU events finds the window of GPU work [*@p win_s, *@p win_e) and the
 * devices' GPU time.
 */
static int attribute(const struct gp__actx *c, struct gp_kv **out, size_t *nout, int64_t *lone_ns,
                     int64_t *win_s, int64_t *win_e, struct devs *dv)
{
	const struct gp_trace *t = c->t;
	struct gp_kv *kv = gp__reallocarray(NULL, c->gpu.n ? c->gpu.n : 1, sizeof(*kv));
	size_t n = 0, np = 0, k, j;
	int rc = 0;

	*lone_ns = 0;
	if (!kv)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t g = c->gpu.v[k], op;
		int64_t l, s = c->ts[g], e = s + c->dur[g];

		devs_add(dv, gp__ev_device(t, g), c->dur[g]);
		if (!gpu_work(t, g))
			continue;
		*win_s = s < *win_s ? s : *win_s;
		*win_e = e > *win_e ? e : *win_e;
		op = op_by_ext(c, g, &l);
		if (op == NONE) {
			*lone_ns += c->dur[g];
			continue;
		}
		kv[n].key = op;
		/* the launching call beside the event, for those to find by time */
		kv[n].val = (uint64_t)(uint32_t)l << 32 | g;
		np += op == PENDING;
		n++;
	}
	if (np) {
		bool done;

		GP_TRY(innermost_listed(c, kv, n, &done));
		if (!done)
			GP_TRY(innermost_sorted(c, kv, n, np));
		for (k = 0, j = 0; k < n; k++) {
			if (kv[k].key == NONE)
				*lone_ns += c->dur[(uint32_t)kv[k].val];
			else
				kv[j++] = kv[k];
		}
		n = j;
	}
	GP_TRY(gp__sort_kv(kv, n));
	*out = kv;
	*nout = n;
	kv = NULL;
out:
	gp__free(kv);
	return rc;
}

/* ---- the device ---- */

static void set_all(struct gp__peaks *p, double x)
{
	p->fp64 = p->fp64_mx = p->fp32 = p->fp32_mx = x;
	p->tf32 = p->fp16 = p->bf16 = p->fp8 = p->int8 = x;
}

/* the peaks: the table's row for the device, then the options over it */
static void roof_init(const struct gp__actx *c, const struct gp_device_props *dp, bool have_dp,
                      struct roof *rf)
{
	const struct gp__peaks *tp = have_dp ? gp__peaks_match(dp) : NULL;

	memset(rf, 0, sizeof(*rf));
	set_all(&rf->p, NAN);
	rf->p.tbps = NAN;
	if (tp) {
		rf->p = *tp;
		rf->compute = rf->bw = true;
		rf->source = "table";
	}
	/* gp__actx_init copied the options by their size: older callers' read as 0 */
	if (c->opts.peak_tflops > 0 && isfinite(c->opts.peak_tflops)) {
		set_all(&rf->p, c->opts.peak_tflops);
		rf->compute = true;
		rf->source = "option";
	}
	if (c->opts.peak_tbps > 0 && isfinite(c->opts.peak_tbps)) {
		rf->p.tbps = c->opts.peak_tbps;
		rf->bw = true;
		rf->source = "option";
	}
}

/* the peak TFLOP/s an op of @p kind on @p dtype can reach; NaN unknown */
static double op_peak(const struct roof *rf, enum gp__opm_kind kind, enum gp__dtype dt, bool tc)
{
	const struct gp__peaks *p = &rf->p;

	if (!rf->compute)
		return NAN;
	if (!gp__opm_matrix(kind))
		/* PyTorch computes elementwise ops of reduced precision in float (opmath) */
		return dt == GP_DT_F64 || dt == GP_DT_C128 ? p->fp64 : p->fp32;
	switch (dt) {
	case GP_DT_F16:
		return p->fp16;
	case GP_DT_BF16:
		return p->bf16;
	case GP_DT_F8:
		return p->fp8;
	case GP_DT_I8:
	case GP_DT_U8:
		return p->int8;
	case GP_DT_F32:
	case GP_DT_C64:
		if (tc && !isnan(p->tf32))
			return p->tf32;
		return !isnan(p->fp32_mx) ? p->fp32_mx : p->fp32;
	case GP_DT_F64:
	case GP_DT_C128:
		return !isnan(p->fp64_mx) ? p->fp64_mx : p->fp64;
	default:
		return NAN;
	}
}

/* ---- rows ---- */

static void groups_release(struct groups *gs)
{
	gp__free(gs->g);
	gp__free(gs->slot);
	gp__u64map_release(&gs->names);
}

static size_t group_hash(uint32_t name, uint32_t dims, uint32_t types, uint32_t conc)
{
	return (size_t)(gp_hash_u64((uint64_t)dims << 32 | name) +
	                types * UINT64_C(0x9e3779b97f4a7c15) + conc * UINT64_C(0xc2b2ae3d27d4eb4f));
}

/* a table of 2^k slots for the groups there are, half full at most */
static int groups_rehash(struct groups *gs, size_t nslot)
{
	uint32_t *sl = gp__calloc(nslot, sizeof(*sl));
	size_t k;

	if (!sl)
		return gp__error(GP_ENOMEM, "out of memory grouping op calls");
	gp__free(gs->slot);
	gs->slot = sl;
	gs->mask = nslot - 1;
	for (k = 0; k < gs->n; k++) {
		const struct grp *g = &gs->g[k];
		size_t h = group_hash(g->name, g->dims, g->types, g->conc) & gs->mask;

		while (sl[h])
			h = (h + 1) & gs->mask;
		sl[h] = (uint32_t)(k + 1);
	}
	return 0;
}

/*
 * Adds an op call of name @p name and inputs @p oa (with "Input Dims") to its
 * group, made on its first call with the name's model looked up once a name.
 */
static int group_add(struct groups *gs, const struct gp_trace *t, uint32_t name,
                     const struct gp_op_args *oa, int64_t ns, bool tc)
{
	size_t h = group_hash(name, oa->dims, oa->types, oa->concrete) & gs->mask;
	struct grp *g;
	uint64_t op;
	uint32_t m;
	int rc;

	for (; (m = gs->slot[h]) != 0; h = (h + 1) & gs->mask) {
		g = &gs->g[m - 1];
		if (g->name == name && g->dims == oa->dims && g->types == oa->types &&
		    g->conc == oa->concrete) {
			g->n++;
			g->gpu_ns += ns;
			g->tc |= tc;
			return 0;
		}
	}
	if (!gp__u64map_get(&gs->names, name, &op)) {
		op = (uint64_t)(gp__opm_find(gp__strtab_get(&t->strs, name)) + 1);
		if ((rc = gp__u64map_put(&gs->names, name, op)))
			return rc;
	}
	if (gs->n == gs->cap) {
		size_t cap = gs->cap ? 2 * gs->cap : 256;
		struct grp *ng = gp__reallocarray(gs->g, cap, sizeof(*ng));

		if (!ng)
			return gp__error(GP_ENOMEM, "out of memory grouping op calls");
		gs->g = ng;
		gs->cap = cap;
	}
	g = &gs->g[gs->n++];
	g->name = name;
	g->dims = oa->dims;
	g->types = oa->types;
	g->conc = oa->concrete;
	g->op = (int)op - 1;
	g->n = 1;
	g->gpu_ns = ns;
	g->tc = tc;
	gs->slot[h] = (uint32_t)gs->n;
	if (2 * gs->n > gs->mask)
		return groups_rehash(gs, 2 * (gs->mask + 1));
	return 0;
}

/*
 * The record_shapes inputs of op @p op, NULL none; the ops asked for in
 * increasing order, *@p oi moving on: a few steps, then a gallop.
 */
static const struct gp_op_args *args_from(const struct gp_trace *t, uint32_t op, size_t *oi)
{
	const struct gp_op_args *v = t->opargs;
	size_t lo = *oi, hi, b = 8, n = t->nopargs, stop = lo + 8 < n ? lo + 8 : n;

	while (lo < stop && v[lo].ev < op)
		lo++;
	if (lo == stop && lo < n && v[lo].ev < op) {
		/* gallop: v[lo].ev < op <= v[hi].ev (or hi = n) */
		while (lo + b < n && v[lo + b].ev < op) {
			lo += b;
			b *= 2;
		}
		hi = lo + b < n ? lo + b : n;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid].ev < op)
				lo = mid;
			else
				hi = mid;
		}
		lo = hi;
	}
	*oi = lo;
	return lo < n && v[lo].ev == op ? &v[lo] : NULL;
}

/*
 * The groups of a model, in the order of (dims, name) then (types,
 * concrete): the rows' order while they are summed.
 */
static int sort_groups(const struct groups *gs, struct gp_kv **out, size_t *nout)
{
	struct gp_kv *kv = gp__reallocarray(NULL, gs->n ? gs->n : 1, sizeof(*kv));
	size_t n = 0, k, j;
	int rc = 0;

	if (!kv)
		return gp__error(GP_ENOMEM, "out of memory grouping op calls");
	for (k = 0; k < gs->n; k++)
		if (gs->g[k].op >= 0) {
			kv[n].key = (int64_t)((uint64_t)gs->g[k].dims << 32 | gs->g[k].name);
			kv[n++].val = k;
		}
	GP_TRY(gp__sort_kv(kv, n));
	/* a (dims, name) of several groups: by (types, concrete), an insertion sort */
	for (k = 1; k < n; k++) {
		struct gp_kv x = kv[k];
		const struct grp *gx = &gs->g[x.val];

		for (j = k; j > 0 && kv[j - 1].key == x.key; j--) {
			const struct grp *gy = &gs->g[kv[j - 1].val];

			if (gy->types < gx->types ||
			    (gy->types == gx->types && gy->conc < gx->conc))
				break;
			kv[j] = kv[j - 1];
		}
		kv[j] = x;
	}
	*out = kv;
	*nout = n;
	kv = NULL;
out:
	gp__free(kv);
	return rc;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	double ha = isnan(a->headroom) ? -1 : a->headroom,
	       hb = isnan(b->headroom) ? -1 : b->headroom;
	int r;

	if (ha != hb)
		return ha > hb ? -1 : 1;
	if (a->gpu_ns != b->gpu_ns)
		return a->gpu_ns > b->gpu_ns ? -1 : 1;
	/* string ids: first use in the file, the same for every read of it */
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->dims != b->dims)
		return a->dims < b->dims ? -1 : 1;
	r = a->types < b->types ? -1 : a->types > b->types;
	return r;
}

/* the texts parsed last into the args; a parse's result */
struct parsed {
	uint32_t dims, types, conc;
	bool ok;
	struct gp__opm_args a;
};

/*
 * The model of group @p g. The groups come in (dims, name) order, so the
 * groups of one shape that differ by name only follow each other: their
 * texts are parsed once.
 */
static bool model(const struct gp_trace *t, const struct grp *g, struct parsed *ps,
                  struct gp__opm_result *m)
{
	if (ps->dims != g->dims || ps->types != g->types || ps->conc != g->conc) {
		ps->dims = g->dims;
		ps->types = g->types;
		ps->conc = g->conc;
		ps->ok = gp__opm_reparse(gp__strtab_get(&t->strs, g->dims),
		                         gp__strtab_strlen(&t->strs, g->dims),
		                         g->types ? gp__strtab_get(&t->strs, g->types) : NULL,
		                         gp__strtab_strlen(&t->strs, g->types),
		                         g->conc ? gp__strtab_get(&t->strs, g->conc) : NULL,
		                         gp__strtab_strlen(&t->strs, g->conc), &ps->a);
	}
	if (!ps->ok) {
		memset(m, 0, sizeof(*m));
		return false;
	}
	return gp__opm_eval_op(g->op, &ps->a, m);
}

/* ---- JSON ---- */

static int set_num(struct gp_value *o, const char *k, double v)
{
	/* integers stay exact in the JSON where they fit */
	if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
		return gp_obj_set_int(o, k, (int64_t)v);
	return gp_obj_set_double(o, k, v);
}

static const char *const dt_keys[] = { "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8" };

static double peak_of(const struct gp__peaks *p, size_t k)
{
	const double v[] = { p->fp64, p->fp32, p->tf32, p->fp16, p->bf16, p->fp8, p->int8 };

	return v[k];
}

static int emit_device(const struct roof *rf, const struct gp_device_props *dp, bool have_dp,
                       struct gp_value *sec)
{
	struct gp_value *d = gp_value_object(), *pk = gp_value_object(), *ridge = gp_value_object();
	size_t k;
	int rc = 0;

	if (!d || !pk || !ridge) {
		gp_value_free(pk);
		gp_value_free(ridge);
		gp_value_free(d);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	GP_TRY(gp_obj_set(sec, "device", d));
	GP_TRY(gp_obj_set(d, "peak_tflops", pk));
	GP_TRY(gp_obj_set(d, "ridge_flops_per_byte", ridge));
	GP_TRY(gp_obj_set_str(d, "name", have_dp ? dp->name : NULL));
	GP_TRY(gp_obj_set_str(d, "matched", rf->p.matched));
	GP_TRY(gp_obj_set_str(d, "source", rf->source));
	GP_TRY(gp_obj_set_double(d, "peak_tbps", rf->bw ? rf->p.tbps : NAN));
	for (k = 0; k < GP_ARRAY_SIZE(dt_keys); k++) {
		double v = rf->compute ? peak_of(&rf->p, k) : NAN;

		GP_TRY(gp_obj_set_double(pk, dt_keys[k], v));
		GP_TRY(gp_obj_set_double(ridge, dt_keys[k], rf->bw ? v / rf->p.tbps : NAN));
	}
	return 0;
out:
	return rc;
}

static int emit_row(const struct gp_trace *t, const struct roof *rf, const struct row *w,
                    struct gp_value *arr)
{
	struct gp_value *o = gp_value_object();
	double tns = (double)w->gpu_ns;
	int rc = 0;

	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_arr_push(arr, o));
	GP_TRY(gp_obj_set_str(o, "name", gp__strtab_get(&t->strs, w->name)));
	GP_TRY(gp_obj_set_str(o, "input_dims", gp__strtab_get(&t->strs, w->dims)));
	GP_TRY(gp_obj_set_str(o, "dtype", gp__dtype_name(w->m.dtype)));
	GP_TRY(gp_obj_set_str(o, "model", gp__opm_kind_name(w->m.kind)));
	GP_TRY(gp_obj_set_int(o, "count", w->count));
	GP_TRY(set_num(o, "flops", w->m.flops));
	GP_TRY(set_num(o, "bytes", w->m.bytes));
	GP_TRY(gp_obj_set_int(o, "gpu_time_ns", w->gpu_ns));
	/* FLOP/ns = GFLOP/s; / 1000: TFLOP/s */
	GP_TRY(gp_obj_set_double(o, "achieved_tflops", tns > 0 ? w->m.flops / tns / 1e3 : NAN));
	GP_TRY(gp_obj_set_double(o, "achieved_tbps", tns > 0 ? w->m.bytes / tns / 1e3 : NAN));
	GP_TRY(gp_obj_set_double(o, "arithmetic_intensity",
	                         w->m.bytes > 0 ? w->m.flops / w->m.bytes : NAN));
	GP_TRY(gp_obj_set_double(o, "peak_tflops", w->peak));
	if (isnan(w->roof_ns)) {
		GP_TRY(gp_obj_set_null(o, "bound"));
		GP_TRY(gp_obj_set_null(o, "roofline_pct"));
		GP_TRY(gp_obj_set_null(o, "headroom_ns"));
	} else {
		double tc = w->m.flops / (w->peak * 1e3), tm = w->m.bytes / (rf->p.tbps * 1e3);

		/* an op of no work (a GEMM of empty matrices) is bound by neither roof */
		if (w->roof_ns > 0)
			GP_TRY(gp_obj_set_str(o, "bound", tc >= tm ? "compute" : "memory"));
		else
			GP_TRY(gp_obj_set_null(o, "bound"));
		GP_TRY(gp_obj_set_double(o, "roofline_pct",
		                         w->roof_ns > 0 && tns > 0
		                             ? fmax(1e-6, fmin(100.0, 100.0 * w->roof_ns / tns))
		                             : NAN));
		GP_TRY(gp_obj_set_int(o, "headroom_ns", (int64_t)llround(w->headroom)));
	}
out:
	return rc;
}

/* ---- the section ---- */

int gp__an_roofline(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct gp_value *sec = NULL, *miss = NULL, *arr = NULL;
	struct gp_kv *kv = NULL, *order = NULL;
	struct groups gs = { 0 };
	struct parsed *ps = NULL;
	struct devs dv = { 0 };
	struct row *rows = NULL;
	struct gp_device_props dp;
	struct roof rf;
	size_t nkv = 0, ncalls = 0, nrows = 0, nord = 0, k, oi;
	int64_t lone_ns = 0, gpu_ns = 0, modeled_ns = 0, win_s = INT64_MAX, win_e = INT64_MIN;
	bool have_dp, by_id, any_dims = false, mfu_ok = true;
	double flops = 0, ideal_ns = 0;
	int rc = 0;

	GP_TRY(attribute(c, &kv, &nkv, &lone_ns, &win_s, &win_e, &dv));
	if (win_s > win_e) {
		gp__free(kv);
		return gp_obj_set_null(r, "roofline");
	}
	have_dp = gp__trace_device_model(t, devs_main(&dv), &dp, &by_id);
	roof_init(c, &dp, have_dp, &rf);

	/* the op calls: the union of each one's kernels, into the groups of a model */
	GP_TRY(gp__u64map_init(&gs.names, 64));
	GP_TRY(groups_rehash(&gs, 1024));
	for (k = 0, oi = 0; k < nkv; ncalls++) {
		uint32_t op = (uint32_t)kv[k].key;
		/* kv is in op order, as t->opargs: one walk instead of a search per call */
		const struct gp_op_args *oa = args_from(t, op, &oi);
		int64_t cs = INT64_MIN, ce = INT64_MIN, ns = 0;
		bool tc = false, host = false;

		for (; k < nkv && kv[k].key == op; k++) {
			uint32_t g = (uint32_t)kv[k].val;
			int64_t s = c->ts[g], e = gp__end(c, g);

			if (s > ce) {
				if (ce > cs)
					ns += ce - cs;
				cs = s;
				ce = e;
			} else if (e > ce) {
				ce = e;
			}
			if (t->ev.kind[g] == GP_K_KERNEL && gp__name_tensor_core(c, t->ev.name[g]))
				tc = true;
			if (t->ev.kind[g] == GP_K_MEMCPY && host_copy(gp__ev_name(t, g)))
				host = true;
		}
		if (ce > cs)
			ns += ce - cs;
		gpu_ns = gp__add_sat(gpu_ns, ns);
		if (!oa || !oa->dims)
			continue;
		any_dims = true;
		/* a copy to or from the host has no model */
		if (!host)
			GP_TRY(group_add(&gs, t, t->ev.name[op], oa, ns, tc));
	}
	gpu_ns = gp__add_sat(gpu_ns, lone_ns);
	gp__free(kv);
	kv = NULL;

	/* one model per group, one row per (name, dims, types) */
	GP_TRY(sort_groups(&gs, &order, &nord));
	rows = gp__reallocarray(NULL, nord ? nord : 1, sizeof(*rows));
	ps = gp__malloc(sizeof(*ps));
	if (!rows || !ps)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	memset(ps, 0, sizeof(*ps)); /* dims 0: no group's */
	for (k = 0; k < nord; k++) {
		const struct grp *g = &gs.g[order[k].val];
		struct gp__opm_result m;
		struct row *w = nrows ? &rows[nrows - 1] : NULL;

		if (!model(t, g, ps, &m))
			continue;
		if (!w || w->name != g->name || w->dims != g->dims || w->types != g->types) {
			w = &rows[nrows++];
			memset(w, 0, sizeof(*w));
			w->name = g->name;
			w->dims = g->dims;
			w->types = g->types;
			w->m.kind = m.kind;
			w->m.dtype = m.dtype;
		}
		w->m.flops += m.flops * (double)g->n;
		w->m.bytes += m.bytes * (double)g->n;
		w->count += g->n;
		w->gpu_ns += g->gpu_ns;
		w->tc |= g->tc;
		modeled_ns += g->gpu_ns;
	}
	for (k = 0; k < nrows; k++) {
		struct row *w = &rows[k];

		w->peak = op_peak(&rf, w->m.kind, w->m.dtype, w->tc);
		w->roof_ns = w->headroom = NAN;
		if (rf.bw && !isnan(w->peak)) {
			w->roof_ns =
			    fmax(w->m.flops / (w->peak * 1e3), w->m.bytes / (rf.p.tbps * 1e3));
			w->headroom = fmax(0.0, (double)w->gpu_ns - w->roof_ns);
		}
		flops += w->m.flops;
		if (w->m.flops > 0 && isnan(w->peak))
			mfu_ok = false;
		else if (w->m.flops > 0)
			ideal_ns += w->m.flops / (w->peak * 1e3);
	}
	qsort(rows, nrows, sizeof(*rows), cmp_row);

	sec = gp_value_object();
	miss = gp_value_array();
	arr = gp_value_array();
	if (!sec || !miss || !arr) {
		gp_value_free(miss);
		gp_value_free(arr);
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	rc = gp_obj_set(sec, "missing", miss);
	if (rc) {
		gp_value_free(arr);
		goto out;
	}
	GP_TRY(gp_obj_set(sec, "ops", arr));
	if (!t->nopargs || (ncalls && !any_dims))
		GP_TRY(gp_arr_push(miss, gp_value_str("shapes")));
	for (k = 0; k < nrows && rows[k].m.dtype != GP_DT_NONE; k++)
		;
	if (k < nrows) /* captures: sizes without "Input type" */
		GP_TRY(gp_arr_push(miss, gp_value_str("dtypes")));
	if (!rf.compute || !rf.bw)
		GP_TRY(gp_arr_push(
		    miss, gp_value_str(have_dp ? "gpu not in table" : "deviceProperties")));
	if (nkv == 0 && ncalls == 0)
		GP_TRY(gp_arr_push(miss, gp_value_str("ops that launched the kernels")));
	GP_TRY(emit_device(&rf, &dp, have_dp, sec));
	GP_TRY(gp_obj_set_int(sec, "gpu_time_ns", gpu_ns));
	GP_TRY(gp_obj_set_int(sec, "modeled_gpu_time_ns", modeled_ns));
	GP_TRY(gp_obj_set_double(sec, "coverage_pct", gp__pct(modeled_ns, gpu_ns)));
	GP_TRY(set_num(sec, "model_flops", flops));
	GP_TRY(gp_obj_set_int(sec, "mfu_window_ns", win_e - win_s));
	{
		double cov = gp__pct(modeled_ns, gpu_ns);

		GP_TRY(gp_obj_set_double(
		    sec, "mfu_pct",
		    mfu_ok && rf.compute && cov >= MFU_MIN_COVERAGE_PCT && win_e > win_s
		        ? fmin(100.0, 100.0 * ideal_ns / (double)(win_e - win_s))
		        : NAN));
	}
	for (k = 0; k < nrows; k++)
		GP_TRY(emit_row(t, &rf, &rows[k], arr));
	rc = gp_obj_set(r, "roofline", sec);
	sec = NULL;
out:
	gp_value_free(sec);
	gp__free(kv);
	gp__free(order);
	gp__free(ps);
	groups_release(&gs);
	gp__free(rows);
	return rc;
}
