/* SPDX-License-Identifier: MIT */
/*
 * roofline.c - the "roofline" section of a rank: how far each op is from
 * what the GPU can do.
 *
 * roofline-calls.c gives each kernel, memcpy and memset to the op call that
 * launched it (an op call's GPU time is the union of its work, so its FLOPs
 * are counted once, at the op that launched the kernels and never at its
 * parents) and groups the calls by (name, Input Dims, Input type, Concrete
 * Inputs). Here the model (opmodel.c) runs once per group (the texts are
 * interned: groups of one shape parse it once), the groups of one (name,
 * dims, types) make a row, and the rows are set against the peaks of
 * peaks.c or --peak-tflops/--peak-tbps. O(n) over the GPU events plus
 * O(m log m) over the groups. Definitions: docs/analyses/roofline.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "opmodel.h"
#include "peaks.h"
#include "roofline-int.h"
#include "util/error.h"
#include "util/value-int.h"

/* MFU is reported only when the models cover at least this share of the GPU time */
#define MFU_MIN_COVERAGE_PCT 50.0

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
static bool model(const struct gp_trace *t, const struct gp__roof_grp *g, struct parsed *ps,
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

/* integers stay exact in the JSON where they fit */
static bool exact_int(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0;
}

static int set_num(struct gp_value *o, const char *k, double v)
{
	if (exact_int(v))
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
	/* gp_obj_set() takes its value even when it fails: free only those not handed over */
	if ((rc = gp_obj_set(sec, "device", d))) {
		gp_value_free(pk);
		gp_value_free(ridge);
		return rc;
	}
	if ((rc = gp_obj_set(d, "peak_tflops", pk))) {
		gp_value_free(ridge);
		return rc;
	}
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

/* a row's members, in the order of row_keys */
enum {
	R_NAME,
	R_DIMS,
	R_DTYPE,
	R_MODEL,
	R_COUNT,
	R_FLOPS,
	R_BYTES,
	R_GPU_NS,
	R_TFLOPS,
	R_TBPS,
	R_AI,
	R_PEAK,
	R_BOUND,
	R_PCT,
	R_HEADROOM,
	R__N
};

static const char *const row_keys[R__N] = {
	[R_NAME] = "name",
	[R_DIMS] = "input_dims",
	[R_DTYPE] = "dtype",
	[R_MODEL] = "model",
	[R_COUNT] = "count",
	[R_FLOPS] = "flops",
	[R_BYTES] = "bytes",
	[R_GPU_NS] = "gpu_time_ns",
	[R_TFLOPS] = "achieved_tflops",
	[R_TBPS] = "achieved_tbps",
	[R_AI] = "arithmetic_intensity",
	[R_PEAK] = "peak_tflops",
	[R_BOUND] = "bound",
	[R_PCT] = "roofline_pct",
	[R_HEADROOM] = "headroom_ns",
};

/* set_num's number as member @p i of row @p o */
static void put_num(struct gp_value *o, size_t i, double v)
{
	if (exact_int(v))
		gp__obj_put_int(o, i, (int64_t)v);
	else
		gp__obj_put_double(o, i, v);
}

/* row @p w as an object of shape @p sh (row_keys), pushed on @p arr */
static int emit_row(const struct gp_trace *t, const struct roof *rf, const struct row *w,
                    const struct gp__shape *sh, struct gp_value *arr)
{
	struct gp_value *o = gp__obj_shaped(sh);
	double tns = (double)w->gpu_ns;
	int rc = 0;

	if (!o)
		return GP_ENOMEM;
	GP_TRY(gp_arr_push(arr, o));
	GP_TRY(gp__obj_put_str(o, R_NAME, gp__strtab_get(&t->strs, w->name)));
	GP_TRY(gp__obj_put_str(o, R_DIMS, gp__strtab_get(&t->strs, w->dims)));
	GP_TRY(gp__obj_put_str(o, R_DTYPE, gp__dtype_name(w->m.dtype)));
	GP_TRY(gp__obj_put_str(o, R_MODEL, gp__opm_kind_name(w->m.kind)));
	gp__obj_put_int(o, R_COUNT, w->count);
	put_num(o, R_FLOPS, w->m.flops);
	put_num(o, R_BYTES, w->m.bytes);
	gp__obj_put_int(o, R_GPU_NS, w->gpu_ns);
	/* FLOP/ns = GFLOP/s; / 1000: TFLOP/s */
	gp__obj_put_double(o, R_TFLOPS, tns > 0 ? w->m.flops / tns / 1e3 : NAN);
	gp__obj_put_double(o, R_TBPS, tns > 0 ? w->m.bytes / tns / 1e3 : NAN);
	gp__obj_put_double(o, R_AI, w->m.bytes > 0 ? w->m.flops / w->m.bytes : NAN);
	gp__obj_put_double(o, R_PEAK, w->peak);
	/* bound, roofline_pct and headroom_ns stay null without a roofline */
	if (!isnan(w->roof_ns)) {
		double tc = w->m.flops / (w->peak * 1e3), tm = w->m.bytes / (rf->p.tbps * 1e3);

		/* an op of no work (a GEMM of empty matrices) is bound by neither roof */
		if (w->roof_ns > 0)
			GP_TRY(gp__obj_put_str(o, R_BOUND, tc >= tm ? "compute" : "memory"));
		gp__obj_put_double(o, R_PCT,
		                   w->roof_ns > 0 && tns > 0
		                       ? fmax(1e-6, fmin(100.0, 100.0 * w->roof_ns / tns))
		                       : NAN);
		gp__obj_put_int(o, R_HEADROOM, (int64_t)llround(w->headroom));
	}
out:
	return rc;
}

/* ---- the section ---- */

int gp__an_roofline(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct gp_value *sec = NULL, *miss = NULL, *arr = NULL;
	struct gp__roof_calls cs;
	struct parsed *ps = NULL;
	struct row *rows = NULL;
	struct gp_device_props dp;
	struct gp__shape sh;
	struct roof rf;
	size_t nrows = 0, k;
	int64_t modeled_ns = 0, win_s, win_e;
	bool have_dp, by_id, mfu_ok = true;
	double flops = 0, ideal_ns = 0;
	int rc = 0;

	GP_TRY(gp__roof_calls(c, &cs));
	win_s = cs.win_s;
	win_e = cs.win_e;
	if (win_s > win_e) {
		gp__roof_calls_release(&cs);
		return gp_obj_set_null(r, "roofline");
	}
	have_dp = gp__trace_device_model(t, cs.device, &dp, &by_id);
	roof_init(c, &dp, have_dp, &rf);

	/* one model per group, one row per (name, dims, types) */
	rows = gp__reallocarray(NULL, cs.ng ? cs.ng : 1, sizeof(*rows));
	ps = gp__malloc(sizeof(*ps));
	if (!rows || !ps)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	memset(ps, 0, sizeof(*ps)); /* dims 0: no group's */
	for (k = 0; k < cs.ng; k++) {
		const struct gp__roof_grp *g = &cs.g[k];
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
	if (!t->nopargs || (cs.ncalls && !cs.any_dims))
		GP_TRY(gp_arr_push(miss, gp_value_str("shapes")));
	for (k = 0; k < nrows && rows[k].m.dtype != GP_DT_NONE; k++)
		;
	if (k < nrows) /* captures: sizes without "Input type" */
		GP_TRY(gp_arr_push(miss, gp_value_str("dtypes")));
	if (!rf.compute || !rf.bw)
		GP_TRY(gp_arr_push(
		    miss, gp_value_str(have_dp ? "gpu not in table" : "deviceProperties")));
	if (cs.npairs == 0 && cs.ncalls == 0)
		GP_TRY(gp_arr_push(miss, gp_value_str("ops that launched the kernels")));
	GP_TRY(emit_device(&rf, &dp, have_dp, sec));
	GP_TRY(gp_obj_set_int(sec, "gpu_time_ns", cs.gpu_ns));
	GP_TRY(gp_obj_set_int(sec, "modeled_gpu_time_ns", modeled_ns));
	GP_TRY(gp_obj_set_double(sec, "coverage_pct", gp__pct(modeled_ns, cs.gpu_ns)));
	GP_TRY(set_num(sec, "model_flops", flops));
	GP_TRY(gp_obj_set_int(sec, "mfu_window_ns", win_e - win_s));
	{
		double cov = gp__pct(modeled_ns, cs.gpu_ns);

		GP_TRY(gp_obj_set_double(
		    sec, "mfu_pct",
		    mfu_ok && rf.compute && cov >= MFU_MIN_COVERAGE_PCT && win_e > win_s
		        ? fmin(100.0, 100.0 * ideal_ns / (double)(win_e - win_s))
		        : NAN));
	}
	GP_TRY(gp__shape_init(&sh, row_keys, R__N));
	for (k = 0; k < nrows; k++)
		GP_TRY(emit_row(t, &rf, &rows[k], &sh, arr));
	rc = gp_obj_set(r, "roofline", sec);
	sec = NULL;
out:
	gp_value_free(sec);
	gp__roof_calls_release(&cs);
	gp__free(ps);
	gp__free(rows);
	return rc;
}
