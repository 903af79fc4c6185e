/* SPDX-License-Identifier: MIT */
/*
 * explain.c - why something got faster or slower, said only where the
 * numbers support it; each explanation is {id, text, evidence}: the text a
 * sentence for people that says the numbers it rests on (from and to, by how
 * much, in words: "kernel time rose by 42.00 ms"), the evidence the same
 * numbers for programs. The rules (docs/cli/gpuprof-compare.md):
 *
 *   gpu_side / host_side  the mean step time moved by at least the step_time
 *                         threshold; the GPU busy time per step
 *                         (steps[].gpu_busy_ns) moved the same way by at least
 *                         half as much (GPU side) or not (host side: CPU work,
 *                         data loading, launches). Bench: time against gpu_ns.
 *   step_breakdown        the step breakdown components (kernel, memcpy, ...,
 *                         cpu_exec) whose mean per step moved the most.
 *   gpu_time_by_type      GPU time (kernels, copies, memsets; gpu.classification)
 *                         moved by at least the kernel_time threshold: its
 *                         change per type (COMPUTATION, COMMUNICATION, MEMORY).
 *   top_kernels           kernel time moved by at least the kernels threshold:
 *                         the (up to 3) kernels with the largest change that way.
 *   gpu_idle              GPU idle moved by GP__CMP_IDLE_POINTS points or more.
 *   reduced_precision     a speedup past the threshold but under 1.5x while
 *                         tensor-core kernels appear or grow (reports), or a tag
 *                         turns to fp16/bf16/half/amp (bench): the seeds' rule,
 *                         a host-bound or memory-bound model.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "compare-int.h"
#include "util/buf.h"
#include "text/text.h"

#define TOP_KERNELS    3
#define NAME_MAX_SHOWN 60

/* appends {id, text, evidence}; takes @p evidence */
static int add(struct gp_value *arr, const char *id, struct gp_value *evidence, const char *fmt,
               ...) GP_PRINTF(4, 5);
static int add(struct gp_value *arr, const char *id, struct gp_value *evidence, const char *fmt,
               ...)
{
	struct gp_buf b = GP_BUF_INIT;
	struct gp_value *o;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = gp__buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (rc || !evidence || !(o = gp__cmp_push_obj(arr)) || gp_obj_set_str(o, "id", id) ||
	    gp_obj_set_str(o, "text", b.buf)) {
		gp_value_free(evidence);
		gp__buf_release(&b);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	gp__buf_release(&b);
	if (gp_obj_set(o, "evidence", evidence))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

static const struct gp_value *metric_named(const struct gp_value *group, const char *name)
{
	const struct gp_value *ms = gp_obj_get(group, "metrics");
	size_t i;

	for (i = 0; i < gp_value_len(ms); i++) {
		const char *m = gp_value_get_str(gp_obj_get(gp_arr_get(ms, i), "metric"));

		if (m && strcmp(m, name) == 0)
			return gp_arr_get(ms, i);
	}
	return NULL;
}

static double dget(const struct gp_value *v, const char *path)
{
	double d;

	return gp_value_get_double(gp_value_path(v, path), &d) ? d : NAN;
}

static const char *const components[] = { "kernel",  "memcpy",     "memset",   "communication",
	                                  "runtime", "dataloader", "cpu_exec", "other" };
/* the components in words */
static const char *const component_words[] = {
	"kernel time",  "copy time (memcpy)", "memset time",        "communication time",
	"runtime time", "data loading time",  "CPU execution time", "other time",
};
#define NCOMP (sizeof(components) / sizeof(components[0]))

/* per-step means over the complete steps: [0] dur, [1] gpu busy, [2..] the breakdown */
struct step_means {
	size_t n;
	double v[2 + NCOMP];
	bool has_busy, has_breakdown;
};

static void step_means(const struct gp_value *r, struct step_means *s)
{
	const struct gp_value *steps = gp_obj_get(r, "steps");
	size_t i, k, nbusy = 0, nbd = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < gp_value_len(steps); i++) {
		const struct gp_value *x = gp_arr_get(steps, i);
		const struct gp_value *bd = gp_obj_get(x, "breakdown");
		double d;

		if (gp_value_get_bool(gp_obj_get(x, "incomplete"), false) ||
		    !gp_value_get_double(gp_obj_get(x, "dur_ns"), &d))
			continue;
		s->n++;
		s->v[0] += d;
		if (gp_value_get_double(gp_obj_get(x, "gpu_busy_ns"), &d)) {
			s->v[1] += d;
			nbusy++;
		}
		if (gp_value_type(bd) == GP_VALUE_OBJECT) {
			nbd++;
			for (k = 0; k < NCOMP; k++) {
				char key[32];

				snprintf(key, sizeof(key), "%s_ns", components[k]);
				if (gp_value_get_double(gp_obj_get(bd, key), &d))
					s->v[2 + k] += d;
			}
		}
	}
	if (!s->n)
		return;
	s->has_busy = nbusy == s->n;
	s->has_breakdown = nbd == s->n;
	for (k = 0; k < 2 + NCOMP; k++)
		s->v[k] /= (double)s->n;
}

/* "rose from 76.76 ms to 123.3 ms (+46.58 ms)", "fell ...", "stayed at 1.000 ms" */
static const char *moved(char *buf, size_t n, double from, double to)
{
	char a[32], b[32], d[32];

	gp__fmt_dur(a, sizeof(a), from, 0);
	gp__fmt_dur(b, sizeof(b), to, 0);
	if (to == from)
		snprintf(buf, n, "stayed at %s", a);
	else
		snprintf(buf, n, "%s from %s to %s (%s)", to > from ? "rose" : "fell", a, b,
		         gp__fmt_dur(d, sizeof(d), to - from, GP__FMT_SIGN));
	return buf;
}

/* the separator before item @p i of @p n in a sentence: "", ", ", " and " */
static const char *sep(size_t i, size_t n)
{
	return i == 0 ? "" : i + 1 == n ? " and " : ", ";
}

static int side_rule(struct gp_value *arr, double d_step, double d_busy, double base_step,
                     double base_busy, double new_step, double new_busy, const char *what_step,
                     const char *what_busy)
{
	struct gp_value *ev = gp_value_object();
	char a[96], b[96];
	bool gpu = d_busy * d_step > 0 && fabs(d_busy) >= 0.5 * fabs(d_step);

	if (!ev || gp_obj_set_double(ev, "base_step_ns", base_step) ||
	    gp_obj_set_double(ev, "new_step_ns", new_step) ||
	    gp_obj_set_double(ev, "base_gpu_ns", base_busy) ||
	    gp_obj_set_double(ev, "new_gpu_ns", new_busy) ||
	    gp_obj_set_double(ev, "delta_step_ns", d_step) ||
	    gp_obj_set_double(ev, "delta_gpu_ns", d_busy)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	moved(a, sizeof(a), base_step, new_step);
	moved(b, sizeof(b), base_busy, new_busy);
	if (gpu)
		return add(arr, "gpu_side", ev,
		           "The %s %s, and the %s %s: the change is in the GPU work itself (see "
		           "the kernels).",
		           what_step, a, what_busy, b);
	return add(arr, "host_side", ev,
	           "The %s %s, but the %s only %s: the change is on the host side (CPU work, "
	           "data loading, kernel launches), not in the GPU work.",
	           what_step, a, what_busy, b);
}

static int step_rules(struct gp__cmp *c, const struct gp_value *br, const struct gp_value *nr,
                      struct gp_value *arr)
{
	struct step_means sb, sn;
	double d, thr = gp__cmp_threshold(c, "step_time");
	struct gp_buf t = GP_BUF_INIT;
	struct gp_value *ev = NULL, *list = NULL;
	bool used[NCOMP] = { false };
	size_t k, shown = 0, order[3];
	int rc = 0;

	step_means(br, &sb);
	step_means(nr, &sn);
	if (!sb.n || !sn.n || sb.v[0] <= 0)
		return 0;
	d = sn.v[0] - sb.v[0];
	if (fabs(d) < thr * sb.v[0])
		return 0;
	if (sb.has_busy && sn.has_busy)
		GP_TRY(side_rule(arr, d, sn.v[1] - sb.v[1], sb.v[0], sb.v[1], sn.v[0], sn.v[1],
		                 "mean step time", "GPU busy time per step"));
	if (!sb.has_breakdown || !sn.has_breakdown)
		return 0;
	/* the components that moved most, each at least 5 % of the step change */
	if (!(ev = gp_value_object()) || !(list = gp_value_array()) ||
	    gp_obj_set(ev, "components", list) || gp_obj_set_double(ev, "delta_step_ns", d))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (;;) {
		size_t best = NCOMP;
		double bd = 0;
		struct gp_value *o;

		for (k = 0; k < NCOMP; k++) {
			double x = fabs(sn.v[2 + k] - sb.v[2 + k]);

			if (!used[k] && x >= 0.05 * fabs(d) && x > bd) {
				bd = x;
				best = k;
			}
		}
		if (best == NCOMP || shown == 3)
			break;
		used[best] = true;
		order[shown++] = best;
		if (!(o = gp__cmp_push_obj(list)) ||
		    gp_obj_set_str(o, "component", components[best]) ||
		    gp_obj_set_double(o, "base_ns", sb.v[2 + best]) ||
		    gp_obj_set_double(o, "new_ns", sn.v[2 + best]))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	/* "kernel time rose by 42.00 ms, copy time (memcpy) by 12.78 ms and ... fell by ..." */
	for (k = 0; k < shown; k++) {
		double x = sn.v[2 + order[k]] - sb.v[2 + order[k]];
		bool same_way =
		    k > 0 && (x > 0) == (sn.v[2 + order[k - 1]] > sb.v[2 + order[k - 1]]);
		char a[32];

		GP_TRY(gp__buf_addf(&t, "%s%s %s%s", sep(k, shown), component_words[order[k]],
		                    same_way ? ""
		                    : x > 0  ? "rose "
		                             : "fell ",
		                    "by "));
		GP_TRY(gp__buf_addstr(&t, gp__fmt_dur(a, sizeof(a), fabs(x), 0)));
	}
	if (shown) {
		char a[32];

		rc =
		    add(arr, "step_breakdown", ev, "Per step, %s, of a %s change of the mean step.",
		        t.buf, gp__fmt_dur(a, sizeof(a), d, GP__FMT_SIGN));
		ev = NULL;
	}
out:
	if (rc == GP_ENOMEM)
		gp__error(GP_ENOMEM, "out of memory");
	gp_value_free(ev);
	gp__buf_release(&t);
	return rc;
}

static const char *const types[] = { "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" };
static const char *const type_words[] = { "computation", "communication", "memory operations",
	                                  "other work" };
#define NTYPES (sizeof(types) / sizeof(types[0]))

/* GPU time per type (gpu.classification summed by type); false without it */
static bool type_times(const struct gp_value *r, double *t)
{
	const struct gp_value *cl = gp_value_path(r, "gpu/classification");
	size_t i, k;

	memset(t, 0, NTYPES * sizeof(*t));
	if (gp_value_type(cl) != GP_VALUE_ARRAY)
		return false;
	for (i = 0; i < gp_value_len(cl); i++) {
		const struct gp_value *x = gp_arr_get(cl, i);
		const char *type = gp_value_get_str(gp_obj_get(x, "type"));
		double ns;

		if (!type || !gp_value_get_double(gp_obj_get(x, "ns"), &ns))
			continue;
		for (k = 0; k < NTYPES - 1 && strcmp(types[k], type) != 0; k++)
			;
		t[k] += ns;
	}
	return true;
}

static int type_rule(struct gp__cmp *c, const struct gp_value *br, const struct gp_value *nr,
                     struct gp_value *arr)
{
	double tb[NTYPES], tn[NTYPES], sb = 0, sn = 0, d;
	double thr = gp__cmp_threshold(c, "kernel_time");
	struct gp_buf t = GP_BUF_INIT;
	struct gp_value *ev = NULL, *list = NULL;
	bool used[NTYPES] = { false };
	size_t k, shown = 0, order[NTYPES];
	char a[32], pc[16];
	int rc = 0;

	if (!type_times(br, tb) || !type_times(nr, tn))
		return 0;
	for (k = 0; k < NTYPES; k++) {
		sb += tb[k];
		sn += tn[k];
	}
	d = sn - sb;
	if (sb <= 0 || fabs(d) < thr * sb)
		return 0;
	if (!(ev = gp_value_object()) || !(list = gp_value_array()) ||
	    gp_obj_set(ev, "types", list) || gp_obj_set_double(ev, "base_ns", sb) ||
	    gp_obj_set_double(ev, "new_ns", sn))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (;;) {
		size_t best = NTYPES;
		double bd = 0;
		struct gp_value *o;

		for (k = 0; k < NTYPES; k++)
			if (!used[k] && fabs(tn[k] - tb[k]) > bd) {
				bd = fabs(tn[k] - tb[k]);
				best = k;
			}
		if (best == NTYPES)
			break;
		used[best] = true;
		if (!(o = gp__cmp_push_obj(list)) || gp_obj_set_str(o, "type", types[best]) ||
		    gp_obj_set_double(o, "base_ns", tb[best]) ||
		    gp_obj_set_double(o, "new_ns", tn[best]) ||
		    gp_obj_set_double(o, "share_pct", 100 * (tn[best] - tb[best]) / d))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		order[shown++] = best;
	}
	for (k = 0; k < shown; k++) {
		size_t x = order[k];

		GP_TRY(gp__buf_addf(
		    &t, "%s%s%s %s (%s)", sep(k, shown), type_words[x], k ? "" : " accounts for",
		    gp__fmt_dur(a, sizeof(a), tn[x] - tb[x], GP__FMT_SIGN),
		    gp__fmt_pct(pc, sizeof(pc), 100 * (tn[x] - tb[x]) / d, GP__FMT_WHOLE)));
	}
	rc = add(arr, "gpu_time_by_type", ev,
	         "GPU time (kernels, copies and memsets, summed) %s by %s (%s): %s.",
	         d > 0 ? "rose" : "fell", gp__fmt_dur(a, sizeof(a), fabs(d), 0),
	         gp__fmt_pct(pc, sizeof(pc), 100 * d / sb, GP__FMT_SIGN), t.buf);
	ev = NULL;
out:
	if (rc == GP_ENOMEM)
		gp__error(GP_ENOMEM, "out of memory");
	gp_value_free(ev);
	gp__buf_release(&t);
	return rc;
}

static int kernel_rule(struct gp__cmp *c, const struct gp_value *group, struct gp_value *arr)
{
	const struct gp_value *k = gp_obj_get(group, "kernels");
	const struct gp_value *rows = gp_obj_get(k, "rows");
	double thr = gp__cmp_threshold(c, "kernels");
	double base = dget(k, "base_total_ns"), d = dget(k, "delta_total_ns"), sum = 0;
	struct gp_buf t = GP_BUF_INIT;
	struct gp_value *ev = NULL, *list = NULL;
	size_t i, shown = 0, nrows = gp_value_len(rows);
	char a[32], pc[16], **names = NULL;
	int rc = 0;

	if (!isfinite(base) || !isfinite(d) || base <= 0 || fabs(d) < thr * base)
		return 0;
	/* fitted over all rows, as a table's (names.c): two alike stay apart */
	if (nrows && (!(names = gp__calloc(nrows, sizeof(*names))) ||
	              gp__names_fit_rows(names, rows, nrows, "name", NAME_MAX_SHOWN, 0)))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (!(ev = gp_value_object()) || !(list = gp_value_array()) ||
	    gp_obj_set(ev, "kernels", list) || gp_obj_set_double(ev, "delta_total_ns", d))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < gp_value_len(rows) && shown < TOP_KERNELS; i++) {
		const struct gp_value *r = gp_arr_get(rows, i);
		const char *name = gp_value_get_str(gp_obj_get(r, "name"));
		const char *st = gp_value_get_str(gp_obj_get(r, "status"));
		double dt = dget(r, "delta_total_ns"), dp = dget(r, "delta_avg_pct");
		struct gp_value *o;

		if (!(dt * d > 0))
			continue;
		sum += dt;
		if (!(o = gp__cmp_push_obj(list)) || gp_obj_set_str(o, "name", name) ||
		    gp_obj_set_str(o, "status", st) || gp_obj_set_double(o, "delta_total_ns", dt) ||
		    gp_obj_set_double(o, "delta_avg_pct", dp) ||
		    gp_obj_set_double(o, "p", dget(r, "p")))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp__buf_addf(&t, "%s%s", shown++ ? "; " : "", names[i]));
		gp__fmt_dur(a, sizeof(a), fabs(dt), 0);
		if (strcmp(st, "added") == 0)
			GP_TRY(gp__buf_addf(&t, " is new and takes %s", a));
		else if (strcmp(st, "removed") == 0)
			GP_TRY(gp__buf_addf(&t, " is gone, which saves %s", a));
		else {
			double p = dget(r, "p");
			char pb[48] = "";

			if (isfinite(p) && p < 0.0001)
				snprintf(pb, sizeof(pb), ", p < 0.0001 over the calls");
			else if (isfinite(p))
				snprintf(pb, sizeof(pb), ", p = %.4f over the calls", p);
			GP_TRY(gp__buf_addf(&t, " %s %s (%.0f calls against %.0f, each %s %s%s)",
			                    dt > 0 ? "adds" : "saves", a, dget(r, "new_count"),
			                    dget(r, "base_count"),
			                    gp__fmt_pct(pc, sizeof(pc), fabs(dp), 0),
			                    dp >= 0 ? "longer" : "shorter", pb));
		}
	}
	if (!shown)
		goto out;
	if (gp_obj_set_double(ev, "share_pct", 100 * sum / d))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (sum / d <= 1)
		rc = add(arr, "top_kernels", ev,
		         "%zu kernel%s account%s for %s of the %s %s of kernel time: %s.", shown,
		         shown == 1 ? "" : "s", shown == 1 ? "s" : "",
		         gp__fmt_pct(pc, sizeof(pc), 100 * sum / d, GP__FMT_WHOLE),
		         gp__fmt_dur(a, sizeof(a), fabs(d), 0), d > 0 ? "rise" : "fall", t.buf);
	else /* other kernels moved the other way: a share over 100 % reads wrong */
		rc = add(arr, "top_kernels", ev,
		         "Kernel time %s by %s in all; the largest changes that way: %s.",
		         d > 0 ? "rose" : "fell", gp__fmt_dur(a, sizeof(a), fabs(d), 0), t.buf);
	ev = NULL;
out:
	if (rc == GP_ENOMEM)
		gp__error(GP_ENOMEM, "out of memory");
	gp_value_free(ev);
	gp__buf_release(&t);
	if (names)
		gp__names_free(names, nrows);
	gp__free(names);
	return rc;
}

/* the host-wait share of the idle time (gpu.idle_breakdown_total), NaN without it */
static double host_wait_share(const struct gp_value *r)
{
	double h = dget(r, "gpu/idle_breakdown_total/host_wait_ns");
	double k = dget(r, "gpu/idle_breakdown_total/kernel_wait_ns");
	double o = dget(r, "gpu/idle_breakdown_total/other_ns");

	if (!isfinite(h) || !isfinite(k) || !isfinite(o) || h + k + o <= 0)
		return NAN;
	return 100 * h / (h + k + o);
}

static int idle_rule(const struct gp_value *br, const struct gp_value *nr, struct gp_value *arr)
{
	double ib = dget(br, "gpu/idle_pct"), in = dget(nr, "gpu/idle_pct");
	double hw = host_wait_share(in > ib ? nr : br);
	struct gp_value *ev;
	char pn[16], pb[16], ph[16];

	if (!isfinite(ib) || !isfinite(in) || fabs(in - ib) < GP__CMP_IDLE_POINTS)
		return 0;
	if (!(ev = gp_value_object()) || gp_obj_set_double(ev, "base_idle_pct", ib) ||
	    gp_obj_set_double(ev, "new_idle_pct", in) ||
	    gp_obj_set_double(ev, "host_wait_pct", hw)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if (in > ib)
		return add(arr, "gpu_idle", ev,
		           "The GPU is idle %s of its window in new against %s in base%s%s%s: "
		           "it waits more for the host (host-bound).",
		           gp__fmt_pct(pn, sizeof(pn), in, 0), gp__fmt_pct(pb, sizeof(pb), ib, 0),
		           isfinite(hw) ? "; the stream gaps are host waits for " : "",
		           isfinite(hw) ? gp__fmt_pct(ph, sizeof(ph), hw, GP__FMT_WHOLE) : "",
		           isfinite(hw) ? " of their time" : "");
	return add(arr, "gpu_idle", ev,
	           "The GPU is idle %s of its window in new against %s in base: it "
	           "waits less for the host (better fed).",
	           gp__fmt_pct(pn, sizeof(pn), in, 0), gp__fmt_pct(pb, sizeof(pb), ib, 0));
}

/* a speedup past the threshold and under 1.5x, with reduced precision in evidence */
static int precision_rule(struct gp__cmp *c, const struct gp_value *step, const char *evidence,
                          struct gp_value *ev, double idle_new, struct gp_value *arr)
{
	double b = dget(step, "base"), n = dget(step, "new");
	double thr = gp__cmp_threshold(c, gp_value_get_str(gp_obj_get(step, "metric")));
	double s;

	if (!(b > 0 && n > 0) || (b - n) < thr * b || (s = b / n) >= GP__CMP_FP16_SPEEDUP) {
		gp_value_free(ev);
		return 0;
	}
	if (gp_obj_set_double(ev, "speedup", s) ||
	    gp_obj_set_double(ev, "new_idle_pct", idle_new)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return add(arr, "reduced_precision", ev,
	           "A %.2fx speedup with %s: reduced precision gives 1.5x or more on a "
	           "compute-bound model, so under 1.5x points to a host-bound or memory-bound "
	           "model%s.",
	           s, evidence,
	           isfinite(idle_new) && idle_new >= 10 ? " (the GPU is idle often: host-bound is "
	                                                  "likely)"
	                                                : "");
}

int gp__cmp_explain_rank(struct gp__cmp *c, const struct gp_value *br, const struct gp_value *nr,
                         struct gp_value *group)
{
	struct gp_value *arr = (struct gp_value *)gp_obj_get(group, "explanations");
	const struct gp_value *step = metric_named(group, "step_time");
	double tb = dget(br, "kernels_tensor_core_pct"), tn = dget(nr, "kernels_tensor_core_pct");
	int rc;

	if ((rc = step_rules(c, br, nr, arr)) || (rc = type_rule(c, br, nr, arr)) ||
	    (rc = kernel_rule(c, group, arr)) || (rc = idle_rule(br, nr, arr)))
		return rc;
	if (step && isfinite(tb) && isfinite(tn) && tn >= tb + 1) {
		struct gp_value *ev = gp_value_object();
		char what[96], pn[16], pb[16];

		if (!ev || gp_obj_set_double(ev, "base_tensor_core_pct", tb) ||
		    gp_obj_set_double(ev, "new_tensor_core_pct", tn)) {
			gp_value_free(ev);
			return gp__error(GP_ENOMEM, "out of memory");
		}
		snprintf(what, sizeof(what), "tensor-core kernels at %s of kernel time against %s",
		         gp__fmt_pct(pn, sizeof(pn), tn, 0), gp__fmt_pct(pb, sizeof(pb), tb, 0));
		return precision_rule(c, step, what, ev, dget(nr, "gpu/idle_pct"), arr);
	}
	return 0;
}

/* a tag value naming reduced precision */
static bool reduced(const char *v)
{
	static const char *const words[] = { "fp16",     "bf16", "half", "float16",
		                             "bfloat16", "amp",  "mixed" };
	size_t i;

	for (i = 0; v && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasestr(v, words[i]))
			return true;
	return false;
}

int gp__cmp_explain_bench(struct gp__cmp *c, const struct gp_value *base_doc,
                          const struct gp_value *new_doc, struct gp_value *group)
{
	struct gp_value *arr = (struct gp_value *)gp_obj_get(group, "explanations");
	const struct gp_value *time = metric_named(group, "time");
	const struct gp_value *gpu = metric_named(group, "gpu_time");
	const struct gp_value *bt = gp_obj_get(base_doc, "tags"), *nt = gp_obj_get(new_doc, "tags");
	double thr = gp__cmp_threshold(c, "time");
	size_t i;
	int rc;

	if (time && gpu) {
		double b = dget(time, "base"), n = dget(time, "new");
		double gb = dget(gpu, "base"), gn = dget(gpu, "new");

		if (b > 0 && isfinite(n) && isfinite(gb) && isfinite(gn) &&
		    fabs(n - b) >= thr * b &&
		    (rc = side_rule(arr, n - b, gn - gb, b, gb, n, gn, "median time",
		                    "median GPU time")))
			return rc;
	}
	for (i = 0; time && i < gp_value_len(nt) && gp_value_type(nt) == GP_VALUE_OBJECT; i++) {
		const char *key = gp_obj_key_at(nt, i);
		const char *nv = gp_value_get_str(gp_obj_value_at(nt, i));
		const char *bv = gp_value_get_str(gp_obj_get(bt, key));
		struct gp_value *ev;
		char what[160];

		if (!reduced(nv) || reduced(bv))
			continue;
		if (!(ev = gp_value_object()) || gp_obj_set_str(ev, "tag", key) ||
		    gp_obj_set_str(ev, "base", bv) || gp_obj_set_str(ev, "new", nv)) {
			gp_value_free(ev);
			return gp__error(GP_ENOMEM, "out of memory");
		}
		snprintf(what, sizeof(what), "tag '%s' %s -> %s", key, bv ? bv : "(none)", nv);
		return precision_rule(c, time, what, ev, NAN, arr);
	}
	return 0;
}
