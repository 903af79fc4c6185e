/* SPDX-License-Identifier: MIT */
/*
 * findings.c - aggregate's findings, in analyze's shape and ranking
 * (analyze/findings.h: gp__fnd_add(), gp__fnd_list_take()): the straggler
 * with its impact on the job's step time, the desynchronisation, the hosts'
 * clock skew and the ranks that stand out (docs/aggregate-schema.md,
 * "Findings").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate-int.h"
#include "analyze/findings.h"
#include "gpuprof/stats.h"
#include "text/text.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/sort.h"

#define CLOCK_INFO_NS 100000 /* offsets from this (100 µs) are worth a clock-skew note */

/*
 * The job's profiled time: the median over ranks of their profiled steps'
 * total (steps × mean step); else the aligned span of the collectives. A
 * straggler's impact is the others' wait it caused over this time × ranks.
 */
static double job_time(const struct gp__agg *a, int64_t span)
{
	double *v = gp__calloc(a->n ? a->n : 1, sizeof(*v)), t = NAN;
	size_t i, n = 0;

	if (!v)
		return NAN;
	for (i = 0; i < a->n; i++) {
		double x = a->r[i].m[GP_AGG_STEPS] * a->r[i].m[GP_AGG_STEP_MEAN];

		if (isfinite(x) && x > 0)
			v[n++] = x;
	}
	if (n) {
		qsort(v, n, sizeof(*v), gp__cmp_double);
		t = gp_quantile_sorted(v, n, 0.5);
	} else if (span > 0) {
		t = (double)span;
	}
	gp__free(v);
	return t;
}

static const char *suggest(const char *cause)
{
	if (!cause)
		return "look at this rank's own report (gpuprof analyze) for what it does longer "
		       "than "
		       "the others before the collectives where it arrives last";
	if (!strcmp(cause, "compute"))
		return "balance the work: this rank computes longer per step (uneven shards, "
		       "sequence lengths or pipeline stages)";
	if (!strcmp(cause, "data_loading"))
		return "give this rank's data loading more workers (DataLoader num_workers, "
		       "pin_memory, prefetch_factor) or check its storage";
	if (!strcmp(cause, "host_launch"))
		return "the host cannot launch fast enough on this rank: check CPU affinity and "
		       "contention, or capture the step in CUDA graphs";
	if (!strcmp(cause, "slow_gpu"))
		return "this rank's GPU is slower (another model, or throttled clocks): check "
		       "nvidia-smi -q -d PERFORMANCE and the cooling, or move the rank";
	return "the clocks of the hosts are not known well enough here: more matched "
	       "collectives narrow the bounds";
}

/* the finding's reason, a clause after the title's ": " ("it computes 5.040 ms longer ...") */
static void cause_clause(char *buf, size_t n, const char *cause, double excess)
{
	char t[32];

	gp__fmt_dur(t, sizeof(t), excess, 0);
	if (!cause)
		snprintf(buf, n, "its own report does not say why");
	else if (!strcmp(cause, "compute"))
		snprintf(buf, n, "it computes %s longer per step than the median rank", t);
	else if (!strcmp(cause, "slow_gpu"))
		snprintf(buf, n,
		         "its slower GPU computes %s longer per step than the median rank's", t);
	else if (!strcmp(cause, "data_loading"))
		snprintf(buf, n, "it loads data %s longer per step than the median rank", t);
	else if (!strcmp(cause, "host_launch"))
		snprintf(buf, n,
		         "its GPU waits %s longer per step for the host's launches than the median "
		         "rank's",
		         t);
	else if (!strcmp(cause, "clock"))
		snprintf(
		    buf, n,
		    "but its clock offset is less certain than its lateness at each collective, "
		    "so the lateness may be the clocks'");
	else
		snprintf(buf, n, "cause: %s", cause);
}

static int f_straggler(const struct gp__agg *a, const struct gp_value *strag, double T,
                       struct gp__fnd_list *fl)
{
	static const char *const keep_keys[] = { "rank",        "last_count",
		                                 "collectives", "last_arrival_pct",
		                                 "p_value",     "p_value_log10",
		                                 "blame_ns",    "caused_wait_ns",
		                                 "cause",       "cause_excess_ns" };
	const struct gp_value *s = gp_arr_get(strag, 0);
	int64_t rank = 0, caused = 0, last = 0, n = 0;
	double pct = NAN, impact, excess = NAN;
	const char *cause = gp_value_get_str(gp_obj_get(s, "cause"));
	struct gp_value *ev;
	char title[384], t1[32], why[200];
	size_t i;

	if (!s || !gp_value_get_bool(gp_obj_get(s, "significant"), false))
		return 0;
	gp_value_get_int(gp_obj_get(s, "rank"), &rank);
	gp_value_get_int(gp_obj_get(s, "caused_wait_ns"), &caused);
	gp_value_get_int(gp_obj_get(s, "last_count"), &last);
	gp_value_get_int(gp_obj_get(s, "collectives"), &n);
	gp_value_get_double(gp_obj_get(s, "last_arrival_pct"), &pct);
	gp_value_get_double(gp_obj_get(s, "cause_excess_ns"), &excess);
	impact = isfinite(T) && T > 0 ? 100.0 * (double)caused / (T * (double)a->n) : NAN;
	/* scalars only (the long cause_detail stays in "stragglers"): the printer cuts nothing */
	if (!(ev = gp_value_object()))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < GP_ARRAY_SIZE(keep_keys); i++) {
		const struct gp_value *v = gp_obj_get(s, keep_keys[i]);

		if (v && gp_obj_set(ev, keep_keys[i], gp_value_clone(v))) {
			gp_value_free(ev);
			return gp__error(GP_ENOMEM, "out of memory");
		}
	}
	if (gp__agg_set_num(ev, "profiled_time_ns", T) ||
	    gp_obj_set_int(ev, "ranks", (int64_t)a->n)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	cause_clause(why, sizeof(why), cause, excess);
	snprintf(title, sizeof(title),
	         "Rank %lld arrives last at %lld of %lld collectives (%.1f%%) and keeps the "
	         "others waiting %s in all: %s",
	         (long long)rank, (long long)last, (long long)n, pct,
	         gp__fmt_dur(t1, sizeof(t1), (double)caused, 0), why);
	return gp__fnd_add(fl, "straggler",
	                   impact >= 10  ? GP_FND_HIGH
	                   : impact >= 3 ? GP_FND_MEDIUM
	                                 : GP_FND_LOW,
	                   impact, title, ev, suggest(cause));
}

static int f_desync(const struct gp__agg *a, struct gp__fnd_list *fl)
{
	struct gp_value *ev;

	if (!a->desync)
		return 0;
	if (!(ev = gp_value_clone(a->desync)))
		return gp__error(GP_ENOMEM, "out of memory");
	return gp__fnd_add(fl, "collective-desync", GP_FND_HIGH, NAN,
	                   gp_value_get_str(gp_obj_get(a->desync, "detail")), ev,
	                   "find why this rank took another path (a data-dependent branch, an "
	                   "uneven last batch); TORCH_DISTRIBUTED_DEBUG=DETAIL and "
	                   "TORCH_NCCL_DESYNC_DEBUG=1 name the call");
}

static int f_clock(const struct gp__agg *a, struct gp__fnd_list *fl)
{
	int64_t lo = 0, hi = 0;
	struct gp_value *ev;
	char title[160], t1[32], t2[32];
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (a->r[i].offset_ns < lo)
			lo = a->r[i].offset_ns;
		if (a->r[i].offset_ns > hi)
			hi = a->r[i].offset_ns;
	}
	if (hi - lo < CLOCK_INFO_NS)
		return 0;
	if (!(ev = gp_value_object()) || gp_obj_set_int(ev, "max_offset_diff_ns", hi - lo) ||
	    gp__agg_set_num(ev, "max_uncertainty_ns", round(a->max_unc_ns)) ||
	    gp_obj_set_int(ev, "collectives_used", a->clock_used)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	snprintf(title, sizeof(title),
	         "The hosts' clocks differ by up to %s (aligned here to ±%s from the collectives)",
	         gp__fmt_dur(t1, sizeof(t1), (double)(hi - lo), 0),
	         gp__fmt_dur(t2, sizeof(t2), a->max_unc_ns, 0));
	return gp__fnd_add(fl, "clock-skew", GP_FND_INFO, NAN, title, ev,
	                   "compare raw timestamps across hosts only after this alignment; "
	                   "chrony or PTP keeps the hosts closer");
}

#define OUTLIER_RANKS_SHOWN 4 /* ranks the title and the evidence name; the rest counted */

/* "rank_5.compute_ns" = its value, "median.compute_ns" = the ranks' median (once per metric) */
static int outlier_evidence(struct gp_value *ev, const struct gp_value *r,
                            const struct gp_value *table, const struct gp_value *o)
{
	int64_t rank = 0;
	char key[96];
	size_t k;
	int rc = 0;

	gp_value_get_int(gp_obj_get(r, "rank"), &rank);
	for (k = 0; k < gp_value_len(o); k++) {
		const char *m = gp_value_get_str(gp_arr_get(o, k));
		const struct gp_value *v = gp_obj_get(r, m ? m : "");
		const struct gp_value *med = gp_obj_get(gp_obj_get(table, m ? m : ""), "median");

		if (!m || !v || !med)
			continue;
		snprintf(key, sizeof(key), "rank_%lld.%s", (long long)rank, m);
		GP_TRY(gp_obj_set(ev, key, gp_value_clone(v)));
		snprintf(key, sizeof(key), "median.%s", m);
		if (!gp_obj_get(ev, key))
			GP_TRY(gp_obj_set(ev, key, gp_value_clone(med)));
	}
out:
	return rc;
}

static int f_outliers(const struct gp_value *ranks, const struct gp_value *table,
                      struct gp__fnd_list *fl)
{
	struct gp_value *ev = gp_value_object();
	struct gp_buf b, names;
	size_t i, n = 0;
	int rc = 0;

	gp__buf_init(&b, 0);
	gp__buf_init(&names, 0);
	GP_TRY(GP__AGG_NEW(ev));
	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *r = gp_arr_get(ranks, i), *o = gp_obj_get(r, "outliers");
		int64_t rank = 0;
		size_t k;

		if (!gp_value_len(o))
			continue;
		if (n++ >= OUTLIER_RANKS_SHOWN)
			continue;
		gp_value_get_int(gp_obj_get(r, "rank"), &rank);
		GP_TRY(gp__buf_addf(&names, "%srank %lld (", n > 1 ? "; " : "", (long long)rank));
		for (k = 0; k < gp_value_len(o); k++)
			GP_TRY(gp__buf_addf(&names, "%s%s", k ? ", " : "",
			                    gp_value_get_str(gp_arr_get(o, k))
			                        ? gp_value_get_str(gp_arr_get(o, k))
			                        : "?"));
		GP_TRY(gp__buf_addch(&names, ')'));
		GP_TRY(outlier_evidence(ev, r, table, o));
	}
	if (!n) {
		gp_value_free(ev);
		ev = NULL;
		goto out;
	}
	GP_TRY(gp_obj_set_int(ev, "outlier_ranks", (int64_t)n));
	GP_TRY(gp__buf_addf(&b, "%zu rank%s stand%s out from the others: %s", n, n == 1 ? "" : "s",
	                    n == 1 ? "s" : "", names.buf));
	if (n > OUTLIER_RANKS_SHOWN)
		GP_TRY(gp__buf_addf(&b, " and %zu more", n - OUTLIER_RANKS_SHOWN));
	GP_TRY(gp__buf_addstr(&b, " (robust outliers of the per-rank table)"));
	rc =
	    gp__fnd_add(fl, "rank-outlier", GP_FND_MEDIUM, NAN, b.buf, ev,
	                "compare these ranks' own reports with a typical rank's (gpuprof compare)");
	ev = NULL;
out:
	gp_value_free(ev);
	gp__buf_release(&b);
	gp__buf_release(&names);
	return rc;
}

int gp__agg_findings(const struct gp__agg *a, struct gp_value *doc, const struct gp_value *strag,
                     int64_t span)
{
	struct gp__fnd_list fl = { NULL, 0, 0 };
	struct gp_value *list = NULL;
	int rc = 0;

	GP_TRY(f_straggler(a, strag, job_time(a, span), &fl));
	GP_TRY(f_desync(a, &fl));
	GP_TRY(f_clock(a, &fl));
	GP_TRY(f_outliers(gp_obj_get(doc, "ranks"), gp_obj_get(doc, "table"), &fl));
	GP_TRY(gp__fnd_list_take(&fl, &list));
	rc = gp_obj_set(doc, "findings", list);
	list = NULL;
out:
	gp_value_free(list);
	if (fl.n)
		(void)gp__fnd_list_take(&fl, &list), gp_value_free(list);
	return rc;
}
