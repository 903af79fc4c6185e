/* SPDX-License-Identifier: MIT */
/*
 * roofline-calls.c - the op calls of the roofline section: each kernel,
 * memcpy and memset to the op that launched it, each call's GPU time, and
 * the calls grouped by their recorded inputs.
 *
 * The op of a GPU event is the cpu_op whose External id its launching
 * runtime/driver call carries (ctx.h ext_op; Kineto gives a call the id of
 * the innermost op around it), or, in traces without External ids, the
 * innermost cpu_op whose time contains the launching call on the same
 * thread: found by looking back from each call over the ops that started
 * before it, with a sweep over all the ops where that look-back could
 * differ from it. An op call's GPU time is the union of its events'
 * intervals. The calls are grouped by (name, Input Dims, Input type,
 * Concrete Inputs) in a hash table over the interned texts' ids. One walk
 * over the GPU events, one over the cpu_ops where ops are found by time,
 * one over the (op, event) pairs; a sort of the pairs only where they are
 * not in op order already. Definitions: docs/analyses/roofline.md.
 */
#include <stdlib.h>
#include <string.h>

#include "opmodel.h"
#include "roofline-int.h"
#include "util/error.h"
#include "util/sort.h"

#define NONE    UINT32_MAX
#define PENDING (UINT32_MAX - 1)

/* the groups, found by their four string ids in an open-addressing table */
struct groups {
	struct gp__roof_grp *g;
	size_t n, cap;
	uint32_t *slot; /* group index + 1; 0: empty */
	size_t mask;
	struct gp_u64map names; /* name id -> gp__opm_find() + 1 */
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
 * calls of a thread do not nest. The latest end of each thread's ops so far
 * says at once when no op holds a call. *@p done false where a call outlasts
 * a later one, or the look back passes SCAN_MAX ops (an op that holds the
 * call started long before): then the sweep must do it.
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
 * The (op, GPU event) pairs in the time order of the events (*@p in_order:
 * in op order too); events of no op are summed into *@p lone_ns. The same
 * walk over the GPU events finds the window of GPU work [*@p win_s,
 * *@p win_e) and the devices' GPU time.
 */
static int attribute(const struct gp__actx *c, struct gp_kv **out, size_t *nout, bool *in_order,
                     int64_t *lone_ns, int64_t *win_s, int64_t *win_e, struct devs *dv)
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
	/* ops launch in order: often every op's GPU work is in op order already */
	for (k = 1; k < n && kv[k - 1].key <= kv[k].key; k++)
		;
	*in_order = k >= n;
	*out = kv;
	*nout = n;
	kv = NULL;
out:
	gp__free(kv);
	return rc;
}

/* ---- groups ---- */

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
		const struct gp__roof_grp *g = &gs->g[k];
		size_t h = group_hash(g->name, g->dims, g->types, g->conc) & gs->mask;

		while (sl[h])
			h = (h + 1) & gs->mask;
		sl[h] = (uint32_t)(k + 1);
	}
	return 0;
}

/*
 * Empty groups for the calls of @p npairs (op, event) pairs, sized to grow
 * seldom. Out of line: it runs once, and inlined it costs the walks of
 * gp__roof_calls() registers (callgrind: 25k instructions more).
 */
static __attribute__((noinline)) int groups_init(struct groups *gs, size_t npairs)
{
	size_t nslot = 64;
	int r;

	while (nslot < 1024 && nslot < npairs / 4)
		nslot *= 2;
	gs->cap = nslot;
	gs->g = gp__reallocarray(NULL, gs->cap, sizeof(*gs->g));
	if (!gs->g)
		return gp__error(GP_ENOMEM, "out of memory grouping op calls");
	if ((r = gp__u64map_init(&gs->names, nslot / 16)))
		return r;
	return groups_rehash(gs, nslot);
}

/*
 * Adds an op call of name @p name and inputs @p oa (with "Input Dims") to its
 * group, made on its first call with the name's model looked up once a name.
 */
static int group_add(struct groups *gs, const struct gp_trace *t, uint32_t name,
                     const struct gp_op_args *oa, int64_t ns, bool tc)
{
	size_t h = group_hash(name, oa->dims, oa->types, oa->concrete) & gs->mask;
	struct gp__roof_grp *g;
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
		size_t cap = gs->cap ? 2 * gs->cap : 64;
		struct gp__roof_grp *ng = gp__reallocarray(gs->g, cap, sizeof(*ng));

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

/* groups of one (dims, name) by (types, concrete), which tell them apart */
static int cmp_tc(const void *x, const void *y)
{
	const struct gp__roof_grp *a = x, *b = y;

	if (a->types != b->types)
		return a->types < b->types ? -1 : 1;
	return a->conc < b->conc ? -1 : a->conc > b->conc;
}

/*
 * The groups of a model, into @p rc in the order of (dims, name) and then
 * (types, concrete): the order the rows were summed in before the groups
 * were hashed, so that every sum adds in the same order.
 */
static int sort_groups(const struct groups *gs, struct gp__roof_calls *rc)
{
	struct gp_kv *kv = gp__reallocarray(NULL, gs->n ? gs->n : 1, sizeof(*kv));
	size_t n = 0, k, j;
	uint32_t names = 0, nb = 0;
	int r = 0;

	rc->g = gp__reallocarray(NULL, gs->n ? gs->n : 1, sizeof(*rc->g));
	if (!kv || !rc->g) {
		r = gp__error(GP_ENOMEM, "out of memory grouping op calls");
		goto out;
	}
	/* (dims, name) in as few bits as the names take: fewer digits for the radix sort */
	for (k = 0; k < gs->n; k++)
		names |= gs->g[k].name;
	while (nb < 32 && names >> nb)
		nb++;
	for (k = 0; k < gs->n; k++)
		if (gs->g[k].op >= 0) {
			kv[n].key = (int64_t)((uint64_t)gs->g[k].dims << nb | gs->g[k].name);
			kv[n++].val = k;
		}
	if ((r = gp__sort_kv(kv, n)))
		goto out;
	for (k = 0; k < n; k++)
		rc->g[k] = gs->g[kv[k].val];
	/* a (dims, name) of several groups: by (types, concrete), a sort where not in order
	 * (an insertion sort of a run was quadratic in its groups) */
	for (k = 0; k < n; k = j) {
		bool sorted = true;

		for (j = k + 1; j < n && kv[j].key == kv[k].key; j++)
			if (cmp_tc(&rc->g[j - 1], &rc->g[j]) > 0)
				sorted = false;
		if (!sorted)
			qsort(rc->g + k, j - k, sizeof(*rc->g), cmp_tc);
	}
	rc->ng = n;
out:
	gp__free(kv);
	return r;
}

/* ---- calls ---- */

/*
 * The op calls of the pairs @p kv[0..n) in op order, each op's in time
 * order: each call's GPU time (the union of its events' intervals) into
 * @p rc, and the call into its group.
 */
static int calls_walk(const struct gp__actx *c, const struct gp_kv *kv, size_t n, struct groups *gs,
                      struct gp__roof_calls *rc)
{
	const struct gp_trace *t = c->t;
	int64_t gpu_ns = 0;
	size_t k = 0, oi = 0, ncalls = 0;
	bool any_dims = false;
	int r = 0;

	while (k < n) {
		uint32_t op = (uint32_t)kv[k].key;
		/* kv is in op order, as t->opargs: one walk instead of a search per call */
		const struct gp_op_args *oa = args_from(t, op, &oi);
		int64_t cs = INT64_MIN, ce = INT64_MIN, ns = 0;
		bool tc = false, host = false;

		for (; k < n && kv[k].key == op; k++) {
			uint32_t g = (uint32_t)kv[k].val;
			int64_t s = c->ts[g], e = s + c->dur[g];

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
		ncalls++;
		gpu_ns = gp__add_sat(gpu_ns, ns);
		if (!oa || !oa->dims)
			continue;
		any_dims = true;
		/* a copy to or from the host has no model */
		if (!host && (r = group_add(gs, t, t->ev.name[op], oa, ns, tc)))
			break;
	}
	rc->ncalls = ncalls;
	rc->gpu_ns = gpu_ns;
	rc->any_dims = any_dims;
	return r;
}

int gp__roof_calls(const struct gp__actx *c, struct gp__roof_calls *rc)
{
	struct gp_kv *kv = NULL;
	struct groups gs;
	struct devs dv;
	size_t nkv = 0;
	int64_t lone_ns = 0;
	bool in_order;
	int r;

	memset(rc, 0, sizeof(*rc));
	memset(&gs, 0, sizeof(gs));
	memset(&dv, 0, sizeof(dv));
	rc->win_s = INT64_MAX;
	rc->win_e = INT64_MIN;
	rc->device = -1;
	if (!c->gpu.n)
		return 0;
	if ((r = attribute(c, &kv, &nkv, &in_order, &lone_ns, &rc->win_s, &rc->win_e, &dv)) ||
	    rc->win_s > rc->win_e)
		goto out;
	/* tables for the groups a trace of this size has, so that they seldom grow */
	if ((r = groups_init(&gs, nkv)))
		goto out;
	rc->device = devs_main(&dv);
	rc->npairs = nkv;
	if ((!in_order && (r = gp__sort_kv(kv, nkv))) || (r = calls_walk(c, kv, nkv, &gs, rc)))
		goto out;
	rc->gpu_ns = gp__add_sat(rc->gpu_ns, lone_ns);
	r = sort_groups(&gs, rc);
out:
	gp__free(kv);
	groups_release(&gs);
	return r;
}

void gp__roof_calls_release(struct gp__roof_calls *rc)
{
	gp__free(rc->g);
	rc->g = NULL;
	rc->ng = 0;
}
