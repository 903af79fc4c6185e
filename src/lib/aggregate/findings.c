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

/* the job's step time: the median over ranks of their steps' total; else the aligned span */
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

static int f_straggler(const struct gp__agg *a, const struct gp_value *strag, double T,
                       struct gp__fnd_list *fl)
{
	const struct gp_value *s = gp_arr_get(strag, 0);
	int64_t rank = 0, caused = 0, blame = 0, last = 0, n = 0;
	double pct = NAN, p = NAN, impact;
	const char *cause = gp_value_get_str(gp_obj_get(s, "cause"));
	struct gp_value *ev;
	char title[256], t1[32];

	if (!s || !gp_value_get_bool(gp_obj_get(s, "significant"), false))
		return 0;
	gp_value_get_int(gp_obj_get(s, "rank"), &rank);
	gp_value_get_int(gp_obj_get(s, "caused_wait_ns"), &caused);
	gp_value_get_int(gp_obj_get(s, "blame_ns"), &blame);
	gp_value_get_int(gp_obj_get(s, "last_count"), &last);
	gp_value_get_int(gp_obj_get(s, "collectives"), &n);
	gp_value_get_double(gp_obj_get(s, "last_arrival_pct"), &pct);
	gp_value_get_double(gp_obj_get(s, "p_value"), &p);
	impact = isfinite(T) && T > 0 ? 100.0 * (double)caused / (T * (double)a->n) : NAN;
	if (!(ev = gp_value_clone(s)))
		return gp__error(GP_ENOMEM, "out of memory");
	if (gp__agg_set_num(ev, "job_step_time_ns", T) ||
	    gp_obj_set_int(ev, "ranks", (int64_t)a->n)) {
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	snprintf(title, sizeof(title),
	         "Rank %lld arrives last at %lld of %lld collectives (%.1f%%), keeping the others "
	         "waiting %s%s%s",
	         (long long)rank, (long long)last, (long long)n, pct,
	         gp__fmt_dur(t1, sizeof(t1), (double)caused, 0), cause ? ": " : "",
	         cause ? cause : "");
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
	    gp_obj_set_double(ev, "max_uncertainty_ns", a->max_unc_ns) ||
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

static int f_outliers(const struct gp_value *ranks, struct gp__fnd_list *fl)
{
	struct gp_value *ev = gp_value_object(), *list = NULL;
	struct gp_buf b;
	size_t i, n = 0;
	int rc = 0;

	gp__buf_init(&b, 0);
	GP_TRY(GP__AGG_NEW(ev));
	GP_TRY(GP__AGG_NEW(list = gp_value_array()));
	GP_TRY(gp_obj_set(ev, "ranks", list));
	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *r = gp_arr_get(ranks, i), *o = gp_obj_get(r, "outliers");
		struct gp_value *x;

		if (!gp_value_len(o))
			continue;
		GP_TRY(GP__AGG_NEW(x = gp_value_object()));
		GP_TRY(gp_arr_push(list, x));
		GP_TRY(gp_obj_set(x, "rank", gp_value_clone(gp_obj_get(r, "rank"))));
		GP_TRY(gp_obj_set(x, "outliers", gp_value_clone(o)));
		n++;
	}
	if (!n) {
		gp_value_free(ev);
		ev = NULL;
		goto out;
	}
	GP_TRY(gp__buf_addf(&b,
	                    "%zu rank%s stand%s out from the others (robust outliers of the "
	                    "per-rank table)",
	                    n, n == 1 ? "" : "s", n == 1 ? "s" : ""));
	rc =
	    gp__fnd_add(fl, "rank-outlier", GP_FND_MEDIUM, NAN, b.buf, ev,
	                "compare these ranks' own reports with a typical rank's (gpuprof compare)");
	ev = NULL;
out:
	gp_value_free(ev);
	gp__buf_release(&b);
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
	GP_TRY(f_outliers(gp_obj_get(doc, "ranks"), &fl));
	GP_TRY(gp__fnd_list_take(&fl, &list));
	rc = gp_obj_set(doc, "findings", list);
	list = NULL;
out:
	gp_value_free(list);
	if (fl.n)
		(void)gp__fnd_list_take(&fl, &list), gp_value_free(list);
	return rc;
}
