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

/* one op call that launched GPU work */
struct call {
	uint32_t op;
	uint32_t name, dims, types, conc;
	int64_t gpu_ns;
	bool tc;   /* a kernel's name suggests Tensor Cores */
	bool host; /* a copy from or to the host: bound by the link, not by the GPU's memory */
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
 * holds the launching call on its thread. PENDING: find it by time instead
 * (no External id, or one that names no such op: traces of 2021-22 gave the
 * runtime calls their correlation id as External id). NONE: the call ran
 * directly under a user annotation, or nothing launched the event.
 */
static uint32_t op_by_ext(const struct gp__actx *c, uint32_t g)
{
	const struct gp_trace *t = c->t;
	int64_t l = gp__launcher(c, g), ext = l >= 0 ? t->ev.ext[l] : -1;
	uint32_t v;

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

/*
 * For the launching calls @p ln[0..n) (sorted by time), the innermost cpu_op
 * containing each on its thread, into @p op: one sweep over the cpu_ops and
 * the calls merged in time order, each thread's open ops a stack linked
 * through @p par (no sort, no per-thread list).
 */
static int innermost_ops(const struct gp__actx *c, const uint32_t *ln, size_t n, uint32_t *op)
{
	const struct gp_trace *t = c->t;
	const struct gp__idx *ops = &c->by_kind[GP_K_CPU_OP];
	uint32_t *top = gp__malloc((t->ntracks ? t->ntracks : 1) * sizeof(*top));
	uint32_t *par = gp__malloc((ops->n ? ops->n : 1) * sizeof(*par));
	size_t i = 0, j = 0;
	int rc = 0;

	if (!top || !par)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	memset(top, 0xff, (t->ntracks ? t->ntracks : 1) * sizeof(*top));
	while (j < n) {
		/* at equal start an op comes first, so it holds a call it starts with */
		bool is_op = i < ops->n && c->ts[ops->v[i]] <= c->ts[ln[j]];
		uint32_t e = is_op ? ops->v[i] : ln[j], tr = t->ev.track[e], p;
		int64_t ts = c->ts[e], end = gp__end(c, e);

		if (tr >= t->ntracks) {
			if (!is_op)
				op[j] = NONE;
			is_op ? i++ : j++;
			continue;
		}
		/* close the ops of this thread that do not hold e */
		for (p = top[tr]; p != NONE; p = par[p]) {
			uint32_t o = ops->v[p];

			if (c->ts[o] <= ts && end <= gp__end(c, o))
				break;
		}
		top[tr] = p;
		if (is_op) {
			par[i] = p;
			top[tr] = (uint32_t)i++;
		} else {
			op[j++] = p == NONE ? NONE : ops->v[p];
		}
	}
out:
	gp__free(top);
	gp__free(par);
	return rc;
}

/*
 * The (op, GPU event) pairs, sorted by op with each op's events in time
 * order; events of no op are summed into *@p lone_ns.
 */
static int attribute(const struct gp__actx *c, struct gp_kv **out, size_t *nout, int64_t *lone_ns)
{
	const struct gp_trace *t = c->t;
	struct gp_kv *kv = gp__reallocarray(NULL, c->gpu.n ? c->gpu.n : 1, sizeof(*kv));
	struct gp_kv *pend = NULL;
	uint32_t *ln = NULL, *lop = NULL;
	size_t n = 0, np = 0, k;
	int rc = 0;

	*lone_ns = 0;
	if (!kv)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t g = c->gpu.v[k];

		if (!gpu_work(t, g))
			continue;
		kv[n].key = op_by_ext(c, g);
		kv[n].val = g;
		np += kv[n].key == PENDING;
		n++;
	}
	if (np) {
		size_t j = 0;

		pend = gp__reallocarray(NULL, np, sizeof(*pend));
		ln = gp__reallocarray(NULL, np, sizeof(*ln));
		lop = gp__reallocarray(NULL, np, sizeof(*lop));
		if (!pend || !ln || !lop)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory attributing kernels to ops"));
		for (k = 0; k < n; k++)
			if (kv[k].key == PENDING) {
				pend[j].key = c->ts[gp__launcher(c, (size_t)kv[k].val)];
				pend[j++].val = k;
			}
		GP_TRY(gp__sort_kv(pend, np));
		for (j = 0; j < np; j++)
			ln[j] = (uint32_t)gp__launcher(c, (size_t)kv[pend[j].val].val);
		GP_TRY(innermost_ops(c, ln, np, lop));
		for (j = 0; j < np; j++)
			kv[pend[j].val].key = lop[j];
	}
	for (k = 0; k < n; k++)
		if (kv[k].key == NONE)
			*lone_ns += c->dur[kv[k].val];
	GP_TRY(gp__sort_kv(kv, n));
	while (n && kv[n - 1].key == NONE)
		n--;
	*out = kv;
	*nout = n;
	kv = NULL;
out:
	gp__free(kv);
	gp__free(pend);
	gp__free(ln);
	gp__free(lop);
	return rc;
}

/* ---- the device ---- */

/* the device of the most GPU time; -1 none */
static int64_t main_device(const struct gp__actx *c)
{
	struct {
		int64_t dev, ns;
	} d[16];
	size_t nd = 0, k, j, best = 0;

	for (k = 0; k < c->gpu.n; k++) {
		uint32_t g = c->gpu.v[k];
		int64_t dev = gp__ev_device(c->t, g);

		for (j = 0; j < nd && d[j].dev != dev; j++)
			;
		if (j == nd) {
			if (nd == GP_ARRAY_SIZE(d))
				continue;
			d[nd].dev = dev;
			d[nd++].ns = 0;
		}
		d[j].ns += c->dur[g];
	}
	for (k = 1; k < nd; k++)
		if (d[k].ns > d[best].ns)
			best = k;
	return nd ? d[best].dev : -1;
}

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

static int cmp_call(const void *pa, const void *pb)
{
	const struct call *a = pa, *b = pb;

	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->dims != b->dims)
		return a->dims < b->dims ? -1 : 1;
	if (a->types != b->types)
		return a->types < b->types ? -1 : 1;
	if (a->conc != b->conc)
		return a->conc < b->conc ? -1 : 1;
	return (int)a->host - (int)b->host;
}

/*
 * Sorts the calls by (name, dims, types, concrete, host): a radix sort on (dims, name), then
 * a comparison sort of the runs of one (dims, name) that are not in order already (the calls
 * of one shape nearly always carry the same types and concrete inputs).
 */
static int sort_calls(struct call **pcalls, size_t n)
{
	struct call *calls = *pcalls, *out = NULL;
	struct gp_kv *kv = gp__reallocarray(NULL, n ? n : 1, sizeof(*kv));
	size_t k, j;
	int rc = 0;

	out = gp__reallocarray(NULL, n ? n : 1, sizeof(*out));
	if (!kv || !out)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < n; k++) {
		kv[k].key = (int64_t)((uint64_t)calls[k].dims << 32 | calls[k].name);
		kv[k].val = k;
	}
	GP_TRY(gp__sort_kv(kv, n));
	for (k = 0; k < n; k++)
		out[k] = calls[kv[k].val];
	for (k = 0; k < n; k = j) {
		bool sorted = true;

		for (j = k + 1; j < n && out[j].dims == out[k].dims && out[j].name == out[k].name;
		     j++)
			if (cmp_call(&out[j - 1], &out[j]) > 0)
				sorted = false;
		if (!sorted)
			qsort(out + k, j - k, sizeof(*out), cmp_call);
	}
	gp__free(calls);
	*pcalls = out;
	out = NULL;
out:
	gp__free(kv);
	gp__free(out);
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

static bool model(const struct gp_trace *t, const struct call *cl, struct gp__opm_result *m)
{
	struct gp__opm_args a;

	if (!gp__opm_parse(gp__strtab_get(&t->strs, cl->dims),
	                   gp__strtab_strlen(&t->strs, cl->dims),
	                   cl->types ? gp__strtab_get(&t->strs, cl->types) : NULL,
	                   gp__strtab_strlen(&t->strs, cl->types),
	                   cl->conc ? gp__strtab_get(&t->strs, cl->conc) : NULL,
	                   gp__strtab_strlen(&t->strs, cl->conc), &a))
		return false;
	return gp__opm_eval(gp__strtab_get(&t->strs, cl->name), &a, m);
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
	struct gp_kv *kv = NULL;
	struct call *calls = NULL;
	struct row *rows = NULL;
	struct gp_device_props dp;
	struct roof rf;
	size_t nkv = 0, ncalls = 0, nrows = 0, k, j, oi;
	int64_t lone_ns = 0, gpu_ns = 0, modeled_ns = 0, win_s = INT64_MAX, win_e = INT64_MIN;
	bool have_dp, by_id, any_dims = false, mfu_ok = true;
	double flops = 0, ideal_ns = 0;
	int rc = 0;

	for (k = 0; k < c->gpu.n; k++) {
		uint32_t g = c->gpu.v[k];

		if (!gpu_work(t, g))
			continue;
		win_s = c->ts[g] < win_s ? c->ts[g] : win_s;
		win_e = gp__end(c, g) > win_e ? gp__end(c, g) : win_e;
	}
	if (win_s > win_e)
		return gp_obj_set_null(r, "roofline");

	have_dp = gp__trace_device_model(t, main_device(c), &dp, &by_id);
	roof_init(c, &dp, have_dp, &rf);
	GP_TRY(attribute(c, &kv, &nkv, &lone_ns));

	/* the op calls: the union of each one's kernels */
	calls = gp__reallocarray(NULL, nkv ? nkv : 1, sizeof(*calls));
	if (!calls)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0, oi = 0; k < nkv;) {
		uint32_t op = (uint32_t)kv[k].key;
		const struct gp_op_args *oa;
		struct call *cl = &calls[ncalls++];

		/* kv is in op order, as t->opargs: one walk instead of a search per call */
		while (oi < t->nopargs && t->opargs[oi].ev < op)
			oi++;
		oa = oi < t->nopargs && t->opargs[oi].ev == op ? &t->opargs[oi] : NULL;
		int64_t cs = INT64_MIN, ce = INT64_MIN;

		memset(cl, 0, sizeof(*cl));
		cl->op = op;
		cl->name = t->ev.name[op];
		if (oa && oa->dims) {
			cl->dims = oa->dims;
			cl->types = oa->types;
			cl->conc = oa->concrete;
			any_dims = true;
		}
		for (; k < nkv && kv[k].key == op; k++) {
			uint32_t g = (uint32_t)kv[k].val;
			int64_t s = c->ts[g], e = gp__end(c, g);

			if (s > ce) {
				if (ce > cs)
					cl->gpu_ns += ce - cs;
				cs = s;
				ce = e;
			} else if (e > ce) {
				ce = e;
			}
			if (t->ev.kind[g] == GP_K_KERNEL && gp__name_tensor_core(c, t->ev.name[g]))
				cl->tc = true;
			if (t->ev.kind[g] == GP_K_MEMCPY && host_copy(gp__ev_name(t, g)))
				cl->host = true;
		}
		if (ce > cs)
			cl->gpu_ns += ce - cs;
		gpu_ns = gp__add_sat(gpu_ns, cl->gpu_ns);
	}
	gpu_ns = gp__add_sat(gpu_ns, lone_ns);
	gp__free(kv);
	kv = NULL;

	/* one model per distinct (name, dims, types, concrete), one row per (name, dims, types) */
	GP_TRY(sort_calls(&calls, ncalls));
	rows = gp__reallocarray(NULL, ncalls ? ncalls : 1, sizeof(*rows));
	if (!rows)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < ncalls;) {
		struct gp__opm_result m;
		bool ok = calls[k].dims && !calls[k].host && model(t, &calls[k], &m);
		struct row *w = nrows ? &rows[nrows - 1] : NULL;
		int64_t n = 0, ns = 0;
		bool tc = false;

		for (j = k; j < ncalls && cmp_call(&calls[j], &calls[k]) == 0; j++) {
			n++;
			ns += calls[j].gpu_ns;
			tc |= calls[j].tc;
		}
		if (ok) {
			if (!w || w->name != calls[k].name || w->dims != calls[k].dims ||
			    w->types != calls[k].types) {
				w = &rows[nrows++];
				memset(w, 0, sizeof(*w));
				w->name = calls[k].name;
				w->dims = calls[k].dims;
				w->types = calls[k].types;
				w->m.kind = m.kind;
				w->m.dtype = m.dtype;
			}
			w->m.flops += m.flops * (double)n;
			w->m.bytes += m.bytes * (double)n;
			w->count += n;
			w->gpu_ns += ns;
			w->tc |= tc;
			modeled_ns += ns;
		}
		k = j;
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
	gp__free(calls);
	gp__free(rows);
	return rc;
}
