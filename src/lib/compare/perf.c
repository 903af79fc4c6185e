/* SPDX-License-Identifier: MIT */
/*
 * perf.c - the critical path, module and roofline sections of two analyze
 * reports (issue 23; docs/report-schema.md), compared per rank pair.
 *
 * Three objects of a report group, each only where both ranks have the
 * section (a warning "section_missing" where one side alone has it):
 *   critical_path  each side's path over its steps (total.path_ns, the mean
 *                  per step, bound_by_pct and the bound with the largest
 *                  share) and, per category, the share on each side and its
 *                  change in percentage points; the steps as samples (as
 *                  report.c takes the step times): the median per step of
 *                  the path and of each share, and the Mann-Whitney p of the
 *                  two sides' steps (reported, never a verdict);
 *   modules        per module class (matched by name): instances, GPU time,
 *                  its mean per instance and the status of the mean ("added",
 *                  "removed", "slower" or "faster" past the "modules"
 *                  threshold, else "same");
 *   roofline       per op, matched by name and input_dims (rows of one key
 *                  summed, as a side's dtypes may split it): calls, GPU time,
 *                  achieved TFLOP/s, roofline percent and the status of the
 *                  GPU time per call past the "ops" threshold.
 * Rows are sorted by |delta GPU time| then name, as table.c's diffs. None of
 * this makes a verdict or a regression: each is one value a side, and the
 * step time (report.c) already tests the steps these times are part of.
 * Explanations: critical_path_bound (the path's bound moved by
 * GP__CMP_IDLE_POINTS points or its largest share changed category),
 * module_time (the class whose GPU time moved most past the threshold) and
 * op_time (the op whose GPU time moved most past the threshold, with its
 * TFLOP/s). Reads only the JSON; format-perf.c prints it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-int.h"
#include "text/text.h"
#include "util/buf.h"

static const char *const cats[] = { "cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
	                            "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead" };
#define NCATS GP_ARRAY_SIZE(cats)

/* @p d as an integer where it is one (times, counts), NaN as null */
static int put(struct gp_value *o, const char *key, double d)
{
	if (!isfinite(d))
		return gp_obj_set_null(o, key);
	if (d == floor(d) && fabs(d) < 9e15)
		return gp_obj_set_int(o, key, (int64_t)d);
	return gp_obj_set_double(o, key, d);
}

static int put_str(struct gp_value *o, const char *key, const char *s)
{
	return s ? gp_obj_set_str(o, key, s) : gp_obj_set_null(o, key);
}

/* the section @p key of both ranks, or why not: 1 both, 0 neither (or a warning given) */
static int both(struct gp__cmp *c, const char *group, const struct gp_value *br,
                const struct gp_value *nr, const char *key, const struct gp_value **b,
                const struct gp_value **n)
{
	*b = gp_obj_get(br, key);
	*n = gp_obj_get(nr, key);
	if (gp_value_type(*b) == GP_VALUE_OBJECT && gp_value_type(*n) == GP_VALUE_OBJECT)
		return 1;
	if (gp_value_type(*b) == GP_VALUE_OBJECT || gp_value_type(*n) == GP_VALUE_OBJECT) {
		int rc = gp__cmp_warn(c, "section_missing", "%s: only the %s report has %s", group,
		                      gp_value_type(*b) == GP_VALUE_OBJECT ? "base" : "new", key);

		return rc ? rc : 0;
	}
	return 0;
}

/* {id, text, evidence} appended to the group's explanations; takes @p ev */
static int explain(struct gp_value *group, const char *id, struct gp_value *ev,
                   const struct gp_buf *text)
{
	struct gp_value *arr = (struct gp_value *)gp_obj_get(group, "explanations");
	struct gp_value *o;

	if (!ev || !(o = gp__cmp_push_obj(arr)) || gp_obj_set_str(o, "id", id) ||
	    gp_obj_set_str(o, "text", text->buf)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return gp_obj_set(o, "evidence", ev) ? gp__error(GP_ENOMEM, "out of memory") : 0;
}

/* ---- critical path ---- */

/* the words of a category ("gpu_compute_bound": "GPU compute") */
static const char *cat_words(size_t k)
{
	static const char *const w[] = { "the CPU", "GPU compute", "GPU communication",
		                         "kernel-to-kernel gaps", "kernel launches" };

	return k < NCATS ? w[k] : "?";
}

/* a side of the critical path: its path, steps, mean per step, shares and bound */
static int cp_side(const struct gp_value *s, struct gp_value *out, double *pct, size_t *bound)
{
	const struct gp_value *tot = gp_obj_get(s, "total"), *steps = gp_obj_get(s, "steps");
	const struct gp_value *bp = gp_obj_get(tot, "bound_by_pct");
	double path = gp__cmp_num(tot, "path_ns"), best = -1;
	size_t k, n = gp_value_len(steps);
	struct gp_value *o;

	*bound = NCATS;
	for (k = 0; k < NCATS; k++) {
		pct[k] = gp__cmp_num(bp, cats[k]);
		if (isfinite(pct[k]) && pct[k] > best) {
			best = pct[k];
			*bound = k;
		}
	}
	if (put(out, "path_ns", path) || gp_obj_set_int(out, "steps", (int64_t)n) ||
	    put(out, "mean_path_ns", n ? path / (double)n : NAN) ||
	    gp_obj_set_bool(out, "whole_trace",
	                    gp_value_get_bool(gp_obj_get(s, "whole_trace"), false)) ||
	    put_str(out, "bound", *bound < NCATS ? cats[*bound] : NULL) ||
	    !(o = gp_value_object()) || gp_obj_set(out, "bound_by_pct", o))
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < NCATS; k++)
		if (put(o, cats[k], pct[k]))
			return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

/*
 * The steps of two paths as samples, as report.c tests the step times: the
 * median of member @p key (of "bound_by_pct" when @p cat) over each side's
 * steps and the Mann-Whitney p of the two (null under 2 steps a side or for a
 * whole trace's pseudo-step) into @p o as base_/new_step_median_@p out, @p p.
 */
static int step_stat(const struct gp_value *b, const struct gp_value *n, const char *key, bool cat,
                     struct gp_value *o, const char *med_b, const char *med_n, const char *pkey)
{
	const struct gp_value *sides[2] = { gp_obj_get(b, "steps"), gp_obj_get(n, "steps") };
	size_t len[2] = { gp_value_len(sides[0]), gp_value_len(sides[1]) }, k, i, m[2] = { 0, 0 };
	double *x[2] = { NULL, NULL }, p = NAN;
	struct gp_mwu u;
	int rc = 0;

	for (k = 0; k < 2; k++) {
		if (!(x[k] = gp__calloc(len[k] ? len[k] : 1, sizeof(double))))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		for (i = 0; i < len[k]; i++) {
			const struct gp_value *st = gp_arr_get(sides[k], i);
			double v = gp__cmp_num(cat ? gp_obj_get(st, "bound_by_pct") : st, key);

			if (isfinite(v))
				x[k][m[k]++] = v;
		}
	}
	if (m[0] >= 2 && m[1] >= 2 && !gp_value_get_bool(gp_obj_get(b, "whole_trace"), false) &&
	    !gp_value_get_bool(gp_obj_get(n, "whole_trace"), false) &&
	    gp_mann_whitney(x[0], m[0], x[1], m[1], &u) == 0)
		p = u.p;
	if (put(o, med_b, gp__cmp_median(x[0], m[0])) ||
	    put(o, med_n, gp__cmp_median(x[1], m[1])) || put(o, pkey, p))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
out:
	gp__free(x[0]);
	gp__free(x[1]);
	return rc;
}

static int critical_path(struct gp__cmp *c, const char *group, const struct gp_value *br,
                         const struct gp_value *nr, struct gp_value *g)
{
	const struct gp_value *b, *n;
	struct gp_value *o, *sb, *sn, *rows, *row, *ev;
	double pb[NCATS], pn[NCATS], mb, mn, dmax = 0;
	size_t kb, kn, k, kmax = NCATS;
	struct gp_buf t = GP_BUF_INIT;
	char x[32], y[32], z[32], w[32];
	int rc;

	if ((rc = both(c, group, br, nr, "critical_path", &b, &n)) <= 0)
		return rc;
	if (!gp_value_get_bool(gp_obj_get(b, "available"), false) ||
	    !gp_value_get_bool(gp_obj_get(n, "available"), false))
		return 0;
	if (!(o = gp_value_object()) || gp_obj_set(g, "critical_path", o) ||
	    !(sb = gp_value_object()) || gp_obj_set(o, "base", sb) || !(sn = gp_value_object()) ||
	    gp_obj_set(o, "new", sn) || !(rows = gp_value_array()) || gp_obj_set(o, "bounds", rows))
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = cp_side(b, sb, pb, &kb)) || (rc = cp_side(n, sn, pn, &kn)))
		return rc;
	mb = gp__cmp_num(sb, "mean_path_ns");
	mn = gp__cmp_num(sn, "mean_path_ns");
	if ((rc = step_stat(b, n, "path_ns", false, o, "base_step_median_path_ns",
	                    "new_step_median_path_ns", "path_p")))
		return rc;
	if (put(o, "delta_mean_path_pct", gp__cmp_pct(mb, mn)) ||
	    gp_obj_set_bool(o, "bound_changed", kb < NCATS && kn < NCATS && kb != kn))
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < NCATS; k++) {
		if (!(row = gp__cmp_push_obj(rows)) || gp_obj_set_str(row, "category", cats[k]) ||
		    put(row, "base_pct", pb[k]) || put(row, "new_pct", pn[k]) ||
		    put(row, "delta_pp", pn[k] - pb[k]))
			return gp__error(GP_ENOMEM, "out of memory");
		if ((rc = step_stat(b, n, cats[k], true, row, "base_step_median_pct",
		                    "new_step_median_pct", "p")))
			return rc;
		if (isfinite(pn[k] - pb[k]) && fabs(pn[k] - pb[k]) > dmax) {
			dmax = fabs(pn[k] - pb[k]);
			kmax = k;
		}
	}
	if (!(kb < NCATS && kn < NCATS && (kb != kn || dmax >= GP__CMP_IDLE_POINTS)))
		return 0;
	/* the category that moved most, and the bound on each side */
	if (kb != kn)
		rc = gp__buf_addf(&t,
		                  "The critical path is now bound by %s (%s of the path, was %s) "
		                  "rather than %s (%s, was %s)",
		                  cat_words(kn), gp__fmt_pct(x, sizeof(x), pn[kn], 0),
		                  gp__fmt_pct(y, sizeof(y), pb[kn], 0), cat_words(kb),
		                  gp__fmt_pct(z, sizeof(z), pn[kb], 0),
		                  gp__fmt_pct(w, sizeof(w), pb[kb], 0));
	else
		rc = gp__buf_addf(&t,
		                  "The critical path is still bound by %s, but %s moved from %s "
		                  "to %s of it (%+.1f pp)",
		                  cat_words(kb), cat_words(kmax),
		                  gp__fmt_pct(x, sizeof(x), pb[kmax], 0),
		                  gp__fmt_pct(y, sizeof(y), pn[kmax], 0), pn[kmax] - pb[kmax]);
	if (!rc && isfinite(mb) && isfinite(mn))
		rc = gp__buf_addf(&t, "; the mean path per step is %s (was %s)",
		                  gp__fmt_dur_like(y, sizeof(y), mn, mb, 0),
		                  gp__fmt_dur(x, sizeof(x), mb, 0));
	if (!rc && kn == 0)
		rc = gp__buf_addstr(&t, ": faster kernels no longer shorten the step, less CPU "
		                        "work per step does");
	else if (!rc && kb == 0 && kn != 0)
		rc = gp__buf_addstr(&t, ": the GPU's work now sets the step's length");
	if (!rc)
		rc = gp__buf_addch(&t, '.');
	if (rc || !(ev = gp_value_object()) || put_str(ev, "base_bound", cats[kb]) ||
	    put_str(ev, "new_bound", cats[kn]) || put_str(ev, "moved", cats[kmax]) ||
	    put(ev, "base_pct", pb[kmax]) || put(ev, "new_pct", pn[kmax]) ||
	    put(ev, "base_mean_path_ns", mb) || put(ev, "new_mean_path_ns", mn)) {
		gp__buf_release(&t);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	rc = explain(g, "critical_path_bound", ev, &t);
	gp__buf_release(&t);
	return rc;
}

/* ---- modules and ops: rows matched by a key ---- */

struct prow {
	char *key;         /* the match key (owned): the name, or name "\n" input_dims */
	const char *name;  /* borrowed from the report */
	const char *dims;  /* ops */
	const char *dtype; /* ops: NULL when the rows of a key differ */
	double count, gpu, host, flops;
	double tflops, roof; /* ops: of the one row, NaN for a sum */
	size_t rows;
};

struct prow_pair {
	const struct prow *b, *n;
	double dgpu;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct prow *)a)->key, ((const struct prow *)b)->key);
}

static int by_dgpu(const void *a, const void *b)
{
	const struct prow_pair *x = a, *y = b;
	double dx = fabs(x->dgpu), dy = fabs(y->dgpu);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->b ? x->b->key : x->n->key, y->b ? y->b->key : y->n->key);
}

static void prows_free(struct prow *r, size_t n)
{
	size_t i;

	for (i = 0; r && i < n; i++)
		gp__free(r[i].key);
	gp__free(r);
}

/* the rows of array @p t (classes, or ops with @p ops), sorted by key, a key's rows summed */
static int prows_of(const struct gp_value *t, bool ops, struct prow **out, size_t *n)
{
	size_t i, len = gp_value_len(t), k = 0;
	struct prow *r = gp__calloc(len ? len : 1, sizeof(*r));
	struct gp_buf b = GP_BUF_INIT;

	*out = r;
	*n = 0;
	if (!r)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < len; i++) {
		const struct gp_value *row = gp_arr_get(t, i);
		const char *name = gp_value_get_str(gp_obj_get(row, "name"));
		const char *dims = ops ? gp_value_get_str(gp_obj_get(row, "input_dims")) : NULL;

		if (!name)
			continue;
		gp__buf_reset(&b);
		if (gp__buf_addf(&b, "%s%s%s", name, ops ? "\n" : "", dims ? dims : "") ||
		    !(r[k].key = gp__strdup(b.buf))) {
			gp__buf_release(&b);
			*n = k;
			return gp__error(GP_ENOMEM, "out of memory");
		}
		r[k].name = name;
		r[k].dims = dims;
		r[k].dtype = ops ? gp_value_get_str(gp_obj_get(row, "dtype")) : NULL;
		r[k].count = gp__cmp_num(row, "count");
		r[k].gpu = gp__cmp_num(row, "gpu_time_ns");
		r[k].host = gp__cmp_num(row, "host_time_ns");
		r[k].flops = gp__cmp_num(row, "flops");
		r[k].tflops = gp__cmp_num(row, "achieved_tflops");
		r[k].roof = gp__cmp_num(row, "roofline_pct");
		r[k].rows = 1;
		k++;
	}
	gp__buf_release(&b);
	qsort(r, k, sizeof(*r), by_key);
	for (i = 0, len = k, k = 0; i < len; i++) {
		struct prow *p = k ? &r[k - 1] : NULL;

		if (p && strcmp(p->key, r[i].key) == 0) {
			p->count += r[i].count;
			p->gpu += r[i].gpu;
			p->host += r[i].host;
			p->flops += r[i].flops;
			if (p->dtype && (!r[i].dtype || strcmp(p->dtype, r[i].dtype) != 0))
				p->dtype = NULL;
			/* a sum's TFLOP/s from its sums; its roofline percent is not known */
			p->tflops = p->gpu > 0 ? p->flops / p->gpu / 1e3 : NAN;
			p->roof = NAN;
			p->rows++;
			gp__free(r[i].key);
			continue;
		}
		r[k++] = r[i];
	}
	*n = k;
	return 0;
}

/* "added", "removed", or the change of @p per (per instance or call) past @p thr */
static const char *pstatus(const struct prow_pair *m, double thr, double *dpct)
{
	double ab, an;

	*dpct = NAN;
	if (!m->b || !(m->b->count > 0))
		return "added";
	if (!m->n || !(m->n->count > 0))
		return "removed";
	ab = m->b->gpu / m->b->count;
	an = m->n->gpu / m->n->count;
	*dpct = gp__cmp_pct(ab, an);
	if (!isfinite(*dpct))
		return ab == an ? "same" : "slower";
	return *dpct >= 100 * thr ? "slower" : *dpct <= -100 * thr ? "faster" : "same";
}

struct pdiff {
	size_t nb, nn, n_added, n_removed, n_slower, n_faster, n_same;
	double added_ns, removed_ns;
};

static int prow_obj(struct gp_value *rows, const struct prow_pair *m, const char *st, double dpct,
                    bool ops)
{
	struct gp_value *o = gp__cmp_push_obj(rows);
	const struct prow *x = m->b ? m->b : m->n;
	double bc = m->b ? m->b->count : 0, nc = m->n ? m->n->count : 0;
	double bg = m->b ? m->b->gpu : 0, ng = m->n ? m->n->gpu : 0;
	const char *per = ops ? "avg_ns" : "mean_gpu_ns";
	char kb[24], kn[24];

	snprintf(kb, sizeof(kb), "base_%s", per);
	snprintf(kn, sizeof(kn), "new_%s", per);
	if (!o || gp_obj_set_str(o, "name", x->name) || gp_obj_set_str(o, "status", st) ||
	    put(o, "base_count", bc) || put(o, "new_count", nc) || put(o, "base_gpu_time_ns", bg) ||
	    put(o, "new_gpu_time_ns", ng) || put(o, "delta_gpu_time_ns", ng - bg) ||
	    put(o, kb, bc > 0 ? bg / bc : NAN) || put(o, kn, nc > 0 ? ng / nc : NAN) ||
	    put(o, ops ? "delta_avg_pct" : "delta_mean_pct", dpct))
		return gp__error(GP_ENOMEM, "out of memory");
	if (!ops)
		return put(o, "base_host_time_ns", m->b ? m->b->host : NAN) ||
		               put(o, "new_host_time_ns", m->n ? m->n->host : NAN)
		           ? gp__error(GP_ENOMEM, "out of memory")
		           : 0;
	if (put_str(o, "input_dims", x->dims) ||
	    put_str(o, "base_dtype", m->b ? m->b->dtype : NULL) ||
	    put_str(o, "new_dtype", m->n ? m->n->dtype : NULL) ||
	    put(o, "base_achieved_tflops", m->b ? m->b->tflops : NAN) ||
	    put(o, "new_achieved_tflops", m->n ? m->n->tflops : NAN) ||
	    put(o, "delta_tflops_pct",
	        m->b && m->n ? gp__cmp_pct(m->b->tflops, m->n->tflops) : NAN) ||
	    put(o, "base_roofline_pct", m->b ? m->b->roof : NAN) ||
	    put(o, "new_roofline_pct", m->n ? m->n->roof : NAN))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

/*
 * The explanation of pair @p m, the one past the threshold with the largest
 * |delta GPU time|: module_time ("Block's GPU time per instance rose from
 * 1.500 ms to 1.950 ms (+30.0%, 4 and 4 instances)") or op_time (with the
 * op's shape and TFLOP/s on each side).
 */
static int explain_row(struct gp_value *g, const struct prow_pair *m, double dpct, bool ops)
{
	const struct prow *b = m->b, *n = m->n;
	double pb = b->gpu / b->count, pn = n->gpu / n->count;
	struct gp_buf t = GP_BUF_INIT;
	struct gp_value *ev = NULL;
	char x[32], y[32], z[32], w[32];
	int rc;

	rc = gp__buf_addf(
	    &t, "%s %s%s%s: the GPU time per %s %s from %s to %s (%s; %.0f and %.0f %s)",
	    ops ? "Op" : "Module class", b->name, b->dims ? " " : "", b->dims ? b->dims : "",
	    ops ? "call" : "instance", pn > pb ? "rose" : "fell", gp__fmt_dur(x, sizeof(x), pb, 0),
	    gp__fmt_dur_like(y, sizeof(y), pn, pb, 0),
	    gp__fmt_pct(z, sizeof(z), dpct, GP__FMT_SIGN), b->count, n->count,
	    ops ? "calls" : "instances");
	/* an op without FLOPs (copy_, fill_: data movement) achieves no TFLOP/s to speak of */
	if (!rc && ops && isfinite(b->tflops) && isfinite(n->tflops) &&
	    (b->flops > 0 || n->flops > 0))
		rc = gp__buf_addf(&t, ": %s TFLOP/s achieved, was %s",
		                  gp__fmt_rate(w, sizeof(w), n->tflops),
		                  gp__fmt_rate(x, sizeof(x), b->tflops));
	if (!rc && ops && isfinite(n->roof))
		rc =
		    gp__buf_addf(&t, ", %s of its roofline", gp__fmt_pct(y, sizeof(y), n->roof, 0));
	if (!rc)
		rc = gp__buf_addch(&t, '.');
	if (rc || !(ev = gp_value_object()) || gp_obj_set_str(ev, "name", b->name) ||
	    (ops && put_str(ev, "input_dims", b->dims)) || put(ev, "base_count", b->count) ||
	    put(ev, "new_count", n->count) || put(ev, "base_per_ns", pb) ||
	    put(ev, "new_per_ns", pn) || put(ev, "delta_pct", dpct) ||
	    (ops && (put(ev, "base_achieved_tflops", b->tflops) ||
	             put(ev, "new_achieved_tflops", n->tflops)))) {
		gp_value_free(ev);
		gp__buf_release(&t);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	rc = explain(g, ops ? "op_time" : "module_time", ev, &t);
	gp__buf_release(&t);
	return rc;
}

/* the diff of rows @p tb and @p tn into object @p o (its counts and "rows") and its explanation */
static int pdiff(struct gp__cmp *c, const struct gp_value *tb, const struct gp_value *tn, bool ops,
                 struct gp_value *o, struct gp_value *g)
{
	double thr = gp__cmp_threshold(c, ops ? "ops" : "modules"), top_pct = NAN;
	struct prow *rb = NULL, *rn = NULL;
	struct prow_pair *m = NULL;
	const struct prow_pair *top = NULL;
	struct pdiff d = { 0 };
	struct gp_value *rows, *x;
	size_t i = 0, j = 0, nm = 0;
	int rc = 0;

	GP_TRY(prows_of(tb, ops, &rb, &d.nb));
	GP_TRY(prows_of(tn, ops, &rn, &d.nn));
	if (!(m = gp__calloc(d.nb + d.nn + 1, sizeof(*m))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	while (i < d.nb || j < d.nn) {
		int k = i == d.nb ? 1 : j == d.nn ? -1 : strcmp(rb[i].key, rn[j].key);

		m[nm].b = k <= 0 ? &rb[i++] : NULL;
		m[nm].n = k >= 0 ? &rn[j++] : NULL;
		m[nm].dgpu = (m[nm].n && isfinite(m[nm].n->gpu) ? m[nm].n->gpu : 0) -
		             (m[nm].b && isfinite(m[nm].b->gpu) ? m[nm].b->gpu : 0);
		nm++;
	}
	qsort(m, nm, sizeof(*m), by_dgpu);
	if (!(rows = gp_value_array()) || gp_obj_set(o, "rows", rows))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < nm; i++) {
		double dpct;
		const char *st = pstatus(&m[i], thr, &dpct);

		GP_TRY(prow_obj(rows, &m[i], st, dpct, ops));
		if (strcmp(st, "added") == 0) {
			d.n_added++;
			d.added_ns += m[i].n && isfinite(m[i].n->gpu) ? m[i].n->gpu : 0;
		} else if (strcmp(st, "removed") == 0) {
			d.n_removed++;
			d.removed_ns += m[i].b && isfinite(m[i].b->gpu) ? m[i].b->gpu : 0;
		} else if (strcmp(st, "same") == 0) {
			d.n_same++;
		} else {
			*(strcmp(st, "slower") == 0 ? &d.n_slower : &d.n_faster) += 1;
			if (!top && isfinite(dpct)) {
				top = &m[i];
				top_pct = dpct;
			}
		}
	}
	if (gp_obj_set_double(o, "threshold_pct", 100 * thr) ||
	    put(o, ops ? "base_ops" : "base_classes", (double)d.nb) ||
	    put(o, ops ? "new_ops" : "new_classes", (double)d.nn) ||
	    put(o, "slower", (double)d.n_slower) || put(o, "faster", (double)d.n_faster) ||
	    put(o, "same", (double)d.n_same) || !(x = gp_value_object()) ||
	    gp_obj_set(o, "added", x) || put(x, ops ? "ops" : "classes", (double)d.n_added) ||
	    put(x, "gpu_time_ns", d.added_ns) || !(x = gp_value_object()) ||
	    gp_obj_set(o, "removed", x) || put(x, ops ? "ops" : "classes", (double)d.n_removed) ||
	    put(x, "gpu_time_ns", d.removed_ns))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (top)
		GP_TRY(explain_row(g, top, top_pct, ops));
out:
	gp__free(m);
	prows_free(rb, d.nb);
	prows_free(rn, d.nn);
	return rc;
}

static int modules(struct gp__cmp *c, const char *group, const struct gp_value *br,
                   const struct gp_value *nr, struct gp_value *g)
{
	const struct gp_value *b, *n;
	struct gp_value *o;
	int rc;

	if ((rc = both(c, group, br, nr, "modules", &b, &n)) <= 0)
		return rc;
	if (!(o = gp_value_object()) || gp_obj_set(g, "modules", o) ||
	    put_str(o, "base_source", gp_value_get_str(gp_obj_get(b, "source"))) ||
	    put_str(o, "new_source", gp_value_get_str(gp_obj_get(n, "source"))) ||
	    put(o, "base_steps", gp__cmp_num(b, "steps")) ||
	    put(o, "new_steps", gp__cmp_num(n, "steps")))
		return gp__error(GP_ENOMEM, "out of memory");
	return pdiff(c, gp_obj_get(b, "classes"), gp_obj_get(n, "classes"), false, o, g);
}

/* the device a roofline was measured against: the table's name, else the trace's, else null */
static const char *device_of(const struct gp_value *s)
{
	const struct gp_value *d = gp_obj_get(s, "device");
	const char *m = gp_value_get_str(gp_obj_get(d, "matched"));

	return m ? m : gp_value_get_str(gp_obj_get(d, "name"));
}

static int roofline(struct gp__cmp *c, const char *group, const struct gp_value *br,
                    const struct gp_value *nr, struct gp_value *g)
{
	const struct gp_value *b, *n;
	struct gp_value *o;
	int rc;

	if ((rc = both(c, group, br, nr, "roofline", &b, &n)) <= 0)
		return rc;
	if (!(o = gp_value_object()) || gp_obj_set(g, "roofline", o) ||
	    put_str(o, "base_device", device_of(b)) || put_str(o, "new_device", device_of(n)) ||
	    put(o, "base_coverage_pct", gp__cmp_num(b, "coverage_pct")) ||
	    put(o, "new_coverage_pct", gp__cmp_num(n, "coverage_pct")) ||
	    put(o, "base_mfu_pct", gp__cmp_num(b, "mfu_pct")) ||
	    put(o, "new_mfu_pct", gp__cmp_num(n, "mfu_pct")))
		return gp__error(GP_ENOMEM, "out of memory");
	return pdiff(c, gp_obj_get(b, "ops"), gp_obj_get(n, "ops"), true, o, g);
}

int gp__cmp_perf(struct gp__cmp *c, const char *group, const struct gp_value *br,
                 const struct gp_value *nr, struct gp_value *g)
{
	int rc;

	if ((rc = critical_path(c, group, br, nr, g)) || (rc = modules(c, group, br, nr, g)))
		return rc;
	return roofline(c, group, br, nr, g);
}
