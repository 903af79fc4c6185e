/* SPDX-License-Identifier: MIT */
/*
 * metric.c - one metric of a comparison as a JSON object.
 *
 * With samples on both sides, gp_stats_compare() gives the medians, the
 * ratio with its bootstrap interval, the Mann-Whitney U p-value and the
 * verdict, which this file words by the metric's kind (faster/slower for
 * times and rates, better/worse otherwise) and counts for the overall
 * verdict. Where the samples are too few for the rank test to reach alpha
 * with one value out of order (the 3-5 steps of a profiled run), Welch's t
 * on the log values (stats/welch.h) gives p, the interval and the verdict
 * instead ("test": "welch_t_log"; docs/analyses/statistics.md). A base
 * median of 0 has no ratio: the verdict is then "same" when the new median
 * is 0 too, else "inconclusive", with no test.
 *
 * With one value per side (a trace's totals) there is no test, so no
 * regression: "same" when |delta| is under the threshold, else
 * "inconclusive"; "direction" still says which way it moved. A metric that
 * no test decided ("test": null: too few samples, or a base median of 0) has
 * no p and no interval ("p", "ratio_lo", "ratio_hi" null), whatever its
 * sample sizes: a number no test gave would read as evidence.
 *
 * Memory that is the same in every iteration on each side (a training
 * step's peak, to the byte) has no noise for a test to weigh: it is
 * compared exactly ("test": "exact"), worse or better when it moved past
 * GP__CMP_MEM_EXACT of the base (--threshold-for METRIC=PCT sets it) and
 * GP__CMP_MEM_FLOOR bytes, else the same; a regression as any other.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-int.h"
#include "stats/welch.h"
#include "text/text.h"
#include "util/sort.h"

double gp__cmp_median(const double *x, size_t n)
{
	double *s, m;

	if (n == 0)
		return NAN;
	if (!(s = gp__calloc(n, sizeof(*s))))
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), gp__cmp_double);
	m = gp_quantile_sorted(s, n, 0.5); /* R-7, as the statistics (no overflow near DBL_MAX) */
	gp__free(s);
	return m;
}

double gp__cmp_mean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double gp__cmp_pct(double b, double n)
{
	if (!isfinite(b) || !isfinite(n) || b == 0)
		return NAN;
	/* n / b first: n - b can overflow to infinity with values near DBL_MAX */
	return 100 * (b > 0 ? n / b - 1 : (n - b) / fabs(b));
}

const char *gp__cmp_verdict_word(enum gp_verdict v, enum gp__mkind k)
{
	bool timed = k == GP__MK_TIME || k == GP__MK_RATE;

	switch (v) {
	case GP_VERDICT_BETTER:
		return timed ? "faster" : "better";
	case GP_VERDICT_WORSE:
		return timed ? "slower" : "worse";
	case GP_VERDICT_INCONCLUSIVE:
		return "inconclusive";
	case GP_VERDICT_SAME:
	default:
		return "same";
	}
}

static const char *direction(const struct gp__metric *m, double b, double n)
{
	if (!isfinite(b) || !isfinite(n) || b == n)
		return NULL;
	return (n < b) == (m->better == GP_LOWER_IS_BETTER) ? "better" : "worse";
}

/* the members every metric has */
static int common(struct gp_value *o, const struct gp__metric *m, double b, double n, double thr,
                  bool samples)
{
	if (gp_obj_set_str(o, "metric", m->name) || gp_obj_set_str(o, "title", m->title) ||
	    gp_obj_set_str(o, "unit", m->unit) ||
	    gp_obj_set_str(o, "better", m->better == GP_LOWER_IS_BETTER ? "lower" : "higher") ||
	    gp_obj_set_bool(o, "samples", samples) ||
	    gp_obj_set_str(o, "statistic", samples ? "median" : "value") ||
	    gp_obj_set_double(o, "base", b) || gp_obj_set_double(o, "new", n) ||
	    gp_obj_set_double(o, "delta", n - b) ||
	    gp_obj_set_double(o, "delta_pct", gp__cmp_pct(b, n)) ||
	    gp_obj_set_double(o, "threshold_pct", 100 * thr) ||
	    gp_obj_set_str(o, "direction", direction(m, b, n)))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

static int record_regression(struct gp__cmp *c, const char *group, const struct gp__metric *m,
                             const struct gp_change *ch)
{
	struct gp_value *r = gp__cmp_push_obj(c->regressions);

	if (!r || gp_obj_set_str(r, "group", group) || gp_obj_set_str(r, "metric", m->name) ||
	    gp_obj_set_str(r, "title", m->title) ||
	    gp_obj_set_double(r, "delta_pct", ch->delta_pct) || gp_obj_set_double(r, "p", ch->p))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

/* new/base past the threshold either way (the rule of gp_stats_compare) */
static bool large(double ratio, double thr)
{
	return ratio >= 1 + thr || ratio <= 1 / (1 + thr);
}

/*
 * Few samples (the rank test cannot reach alpha once a value is out of
 * order): Welch's t on the log values decides, and its interval of the ratio
 * replaces the bootstrap's, which is too narrow on a handful of values.
 * Verdict: better or worse when p < alpha, the ratio of the medians is past
 * the threshold and the means moved the same way; inconclusive when it is
 * past the threshold otherwise; same when the 95 % interval lies inside the
 * threshold band (the samples rule out a change that large); else
 * inconclusive. @return 0, or 1 when the test does not apply (a value <= 0).
 */
static int few_samples(struct gp__cmp *c, const struct gp__metric *m, double thr, const double *b,
                       size_t nb, const double *n, size_t nn, struct gp_change *ch, char *reason,
                       size_t rn)
{
	struct gp__welch w;
	bool up = ch->ratio > 1;

	if (gp__welch_log(b, nb, n, nn, 0.95, &w)) {
		gp_clear_error();
		return 1;
	}
	ch->p = w.p;
	ch->ratio_lo = w.ratio_lo;
	ch->ratio_hi = w.ratio_hi;
	reason[0] = '\0';
	if (large(ch->ratio, thr) && w.p < c->alpha && (w.t > 0) == up)
		ch->verdict =
		    up == (m->better == GP_LOWER_IS_BETTER) ? GP_VERDICT_WORSE : GP_VERDICT_BETTER;
	else if (large(ch->ratio, thr)) {
		ch->verdict = GP_VERDICT_INCONCLUSIVE;
		snprintf(reason, rn,
		         "past the threshold but not significant: Welch's t on %zu and %zu "
		         "values gives p >= alpha %g; more steps or runs would decide",
		         nb, nn, c->alpha);
	} else if (w.ratio_lo > 1 / (1 + thr) && w.ratio_hi < 1 + thr)
		ch->verdict = GP_VERDICT_SAME;
	else {
		char th[32];

		ch->verdict = GP_VERDICT_INCONCLUSIVE;
		snprintf(reason, rn,
		         "under the threshold, but with %zu and %zu values the 95%% interval "
		         "of the ratio still reaches a change of %s",
		         nb, nn, gp__fmt_pct(th, sizeof(th), 100 * thr, GP__FMT_GIVEN));
	}
	return 0;
}

/* every one of the @p n values equal */
static bool constant(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (x[i] != x[0])
			return false;
	return true;
}

/*
 * The exact rule of memory without spread into @p ch, its margin in bytes
 * into *@p margin and its threshold (a fraction) into *@p thr.
 */
static void exact(const struct gp__cmp *c, const struct gp__metric *m, double b, double n,
                  struct gp_change *ch, double *thr, double *margin)
{
	double d = n - b;

	*thr = gp__cmp_threshold_or(c, m->name, GP__CMP_MEM_EXACT);
	*margin = fmax(*thr * fabs(b), GP__CMP_MEM_FLOOR);
	ch->base_median = b;
	ch->new_median = n;
	ch->delta_pct = gp__cmp_pct(b, n);
	ch->ratio = b != 0 ? n / b : NAN;
	ch->ratio_lo = ch->ratio_hi = ch->p = NAN;
	if (fabs(d) <= *margin)
		ch->verdict = GP_VERDICT_SAME;
	else
		ch->verdict = (d > 0) == (m->better == GP_LOWER_IS_BETTER) ? GP_VERDICT_WORSE
		                                                           : GP_VERDICT_BETTER;
}

int gp__cmp_sampled(struct gp__cmp *c, const char *group, const struct gp__metric *m,
                    const double *b, size_t nb, const double *n, size_t nn,
                    struct gp_value *metrics, const struct gp_value **out_obj)
{
	double thr = gp__cmp_threshold(c, m->name), margin = NAN;
	const char *test = NULL;
	struct gp_change ch;
	struct gp_value *o;
	char reason[320] = "";
	int rc;

	if (out_obj)
		*out_obj = NULL;
	if (nb == 0 || nn == 0)
		return 0;
	memset(&ch, 0, sizeof(ch));
	ch.n_base = nb;
	ch.n_new = nn;
	if (m->kind == GP__MK_MEMORY && nb >= c->min_samples && nn >= c->min_samples &&
	    constant(b, nb) && constant(n, nn)) {
		char th[32], fl[32];

		exact(c, m, b[0], n[0], &ch, &thr, &margin);
		test = "exact";
		if (n[0] != b[0])
			snprintf(reason, sizeof(reason),
			         "the same in every iteration on each side: compared exactly, a "
			         "change counts past %s and %s",
			         gp__fmt_pct(th, sizeof(th), 100 * thr, GP__FMT_GIVEN),
			         gp__fmt_bytes(fl, sizeof(fl), GP__CMP_MEM_FLOOR, 0));
		goto emit;
	}
	ch.base_median = gp__cmp_median(b, nb);
	ch.new_median = gp__cmp_median(n, nn);
	if (ch.base_median == 0) {
		/* no ratio and no relative change: say only whether anything moved */
		ch.verdict = ch.new_median == 0 ? GP_VERDICT_SAME : GP_VERDICT_INCONCLUSIVE;
		ch.delta_pct = ch.ratio = ch.ratio_lo = ch.ratio_hi = ch.p = NAN;
	} else {
		struct gp_change_opts co;

		memset(&co, 0, sizeof(co));
		co.size = sizeof(co);
		co.resamples = c->resamples;
		co.seed = c->seed;
		co.alpha = c->alpha;
		co.threshold = thr;
		co.min_samples = c->min_samples;
		if ((rc = gp_stats_compare(b, nb, n, nn, m->better, &co, &ch))) {
			if (rc != GP_ENOMEM)
				gp__error_prefix("%s: %s", group, m->title);
			return rc;
		}
		if (nb >= c->min_samples && nn >= c->min_samples)
			test = "mann_whitney";
	}
	if (ch.verdict == GP_VERDICT_INCONCLUSIVE) {
		if (ch.base_median == 0)
			snprintf(reason, sizeof(reason),
			         "the base median is 0: no relative change");
		else if (nb < c->min_samples || nn < c->min_samples)
			snprintf(reason, sizeof(reason),
			         "too few samples: %zu and %zu, at least %u per side needed", nb,
			         nn, c->min_samples);
		else if (gp_mann_whitney_min_p(nb, nn) >= c->alpha)
			snprintf(reason, sizeof(reason),
			         "too few samples: with %zu and %zu, p cannot go below alpha %g",
			         nb, nn, c->alpha);
		else
			snprintf(reason, sizeof(reason),
			         "past the threshold but not significant (p >= alpha %g)",
			         c->alpha);
	}
	/* the rank test reaches alpha only with every value in order: Welch's t decides */
	if (test && gp_mann_whitney_min_p(nb, nn) >= c->alpha / 2) {
		if (few_samples(c, m, thr, b, nb, n, nn, &ch, reason, sizeof(reason)) == 0)
			test = "welch_t_log";
		else if (isnan(ch.p)) /* gp_stats_compare() did not test either */
			test = NULL;
	}
	/* not tested: no p and no interval, only the medians and their ratio */
	if (!test)
		ch.p = ch.ratio_lo = ch.ratio_hi = NAN;
	/*
	 * The interval is at 95 %, the test at alpha (0.01): one that excludes 1
	 * beside "not significant" says why, in words, rather than contradict it
	 */
	else if (ch.verdict == GP_VERDICT_INCONCLUSIVE && ch.p >= c->alpha &&
	         (ch.ratio_lo > 1 || ch.ratio_hi < 1)) {
		size_t k = strlen(reason);

		snprintf(reason + k, sizeof(reason) - k,
		         "; the 95 %% interval excludes 1, which is evidence at the 95 %% level "
		         "only: p = %.3g is not below alpha %g",
		         ch.p, c->alpha);
	}
emit:
	if (!(o = gp__cmp_push_obj(metrics)))
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = common(o, m, ch.base_median, ch.new_median, thr, true)))
		return rc;
	if ((isfinite(margin) && gp_obj_set_double(o, "threshold_bytes", margin)) ||
	    gp_obj_set_str(o, "reason", reason[0] ? reason : NULL) ||
	    gp_obj_set_str(o, "test", test) || gp_obj_set_int(o, "n_base", (int64_t)ch.n_base) ||
	    gp_obj_set_int(o, "n_new", (int64_t)ch.n_new) ||
	    gp_obj_set_double(o, "ratio", ch.ratio) ||
	    gp_obj_set_double(o, "ratio_lo", ch.ratio_lo) ||
	    gp_obj_set_double(o, "ratio_hi", ch.ratio_hi) || gp_obj_set_double(o, "p", ch.p) ||
	    gp_obj_set_str(o, "verdict", gp__cmp_verdict_word(ch.verdict, m->kind)) ||
	    gp_obj_set_bool(o, "regression", ch.verdict == GP_VERDICT_WORSE))
		return gp__error(GP_ENOMEM, "out of memory");
	c->n_sampled++;
	switch (ch.verdict) {
	case GP_VERDICT_WORSE:
		c->n_worse++;
		if ((rc = record_regression(c, group, m, &ch)))
			return rc;
		break;
	case GP_VERDICT_BETTER:
		c->n_better++;
		break;
	case GP_VERDICT_INCONCLUSIVE:
		c->n_inconclusive++;
		break;
	case GP_VERDICT_SAME:
	default:
		break;
	}
	if (out_obj)
		*out_obj = o;
	return 0;
}

int gp__cmp_single(struct gp__cmp *c, const struct gp__metric *m, double b, double n,
                   struct gp_value *metrics)
{
	double thr = gp__cmp_threshold(c, m->name), d = gp__cmp_pct(b, n);
	enum gp_verdict v;
	struct gp_value *o;
	int rc;

	if (!isfinite(b) || !isfinite(n))
		return 0;
	if (b == n)
		v = GP_VERDICT_SAME;
	else if (b == 0 || d >= 100 * thr ||
	         (b > 0 && n >= 0 ? n / b <= 1 / (1 + thr) : d <= -100 * thr))
		v = GP_VERDICT_INCONCLUSIVE; /* large (the rule of gp_stats_compare), no samples */
	else
		v = GP_VERDICT_SAME;
	if (!(o = gp__cmp_push_obj(metrics)))
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = common(o, m, b, n, thr, false)))
		return rc;
	if (gp_obj_set_null(o, "n_base") || gp_obj_set_null(o, "n_new") ||
	    gp_obj_set_str(o, "reason",
	                   v == GP_VERDICT_INCONCLUSIVE ? "one value per side: no test" : NULL) ||
	    gp_obj_set_double(o, "ratio", b != 0 ? n / b : NAN) || gp_obj_set_null(o, "ratio_lo") ||
	    gp_obj_set_null(o, "ratio_hi") || gp_obj_set_null(o, "p") ||
	    gp_obj_set_str(o, "verdict", gp__cmp_verdict_word(v, m->kind)) ||
	    gp_obj_set_bool(o, "regression", false))
		return gp__error(GP_ENOMEM, "out of memory");
	if (v == GP_VERDICT_INCONCLUSIVE)
		c->n_single_changed++;
	return 0;
}
