/* SPDX-License-Identifier: MIT */
/*
 * edivisive.c - change points of a series (edivisive.h): Apache Otava's
 * windowed E-divisive with its Student t-test, its merge of the weak change
 * points, the Chromium perf dashboard's filters as extra merge criteria, a
 * Mann-Kendall / Theil-Sen trend test on the last regime, and the noise rule.
 *
 * Written from the definitions in apache/otava at commit
 * 1ceb1537a49d516cf6cef9a79bea6926002082f8: otava/analysis.py (split, merge,
 * TTestSignificanceTester, fill_missing), otava/change_point_divisive/
 * detector.py, calculator.py (the Q statistic of Matteson and James, power 1)
 * and base.py (intervals, candidates); its expectations are in
 * tests/tigerbeetle_test.py, tests/analysis_test.py and
 * tests/change_point_divisive_test.py (our test_cpd_otava.c). The filters are
 * from catapult-project/catapult at 6fd8bbe723677254ff1130a1a416988b8b3e285e,
 * dashboard/dashboard/find_change_points.py (_PassesThresholds) and
 * find_step.py (Steppiness). No code was copied: see the doc for the
 * definitions restated.
 *
 * The split step slides a window of `window` points by window / 2 (or to the
 * last change point found, whichever is further), runs E-divisive inside it
 * with the t-test at a relaxed level, and collects the union of the points
 * found ("weak" change points). The merge step then removes, one at a time,
 * the point with the largest p-value while one is over max_pvalue, else the
 * smallest magnitude while one is at or under min_magnitude, else (ours) the
 * smallest magnitude among those failing a Chromium filter, recomputing the
 * neighbours' statistics after each removal exactly where Otava does.
 *
 * Cost: the within-window distance sums W(p, q) are one (window + 1)^2 table
 * per window (O(window^2)); a candidate for an interval is the argmax of Q over
 * its (tau, kappa) pairs, O(len^2) from the table, and only the two halves of
 * a split interval are searched again. A series of n points costs about
 * 2 n / window windows of O(window^2): O(n window) in all, plus the merge's
 * segment passes. Everything is allocated once per call.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/stats.h"
#include "stats/edivisive.h"
#include "stats/welch.h"
#include "util/error.h"
#include "util/sort.h"

#define DEF_TREND_WINDOW     200
#define DEF_TREND_MIN_POINTS 20
#define DEF_UNSTABLE_K       2.0

void gp__cpd_opts_default(struct gp__cpd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window = 30;
	o->max_pvalue = 0.01;
	o->min_magnitude = 0.05;
	o->min_median_change = NAN;
	o->min_steppiness = NAN;
	o->trend_alpha = NAN;
}

void gp__cpd_opts_gpu(struct gp__cpd_opts *o)
{
	gp__cpd_opts_default(o);
	o->min_points_each_side = 5;
	o->outlier_z = 6.745; /* 5 sigma of a normal sample in MAD units */
	o->trend_alpha = 0.001;
}

/* ---- the t-test of two segments (TTestSignificanceTester.compare) ---- */

struct seg_stats {
	size_t index, n1, n2;
	double m1, m2, s1, s2, p, mag;
};

static void moments(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = n >= 2 ? sqrt(ss / (double)n) : 0; /* numpy's std: ddof 0 */
}

/* Otava's change_magnitude(): the larger of the forward and backward changes, 0 for a 0 mean */
static double magnitude(double m1, double m2)
{
	double f = m1 == 0 ? 0 : m2 / m1 - 1, b = m2 == 0 ? 0 : m1 / m2 - 1;

	return fmax(fabs(f), fabs(b));
}

/*
 * Student's two-sample t-test from the summaries as scipy's
 * ttest_ind_from_stats(equal_var=True) computes it, fed the ddof-0 standard
 * deviations as Otava feeds them. A zero spread gives p 0 when the means
 * differ; a NaN t (equal means, no spread) p 1, which Otava's comparisons
 * treat the same way (never significant).
 */
static void ttest(const double *v, size_t lo, size_t mid, size_t hi, struct seg_stats *st)
{
	size_t n1 = mid - lo, n2 = hi - mid;
	double df, svar, den, t;

	st->index = mid;
	st->n1 = n1;
	st->n2 = n2;
	moments(v + lo, n1, &st->m1, &st->s1);
	moments(v + mid, n2, &st->m2, &st->s2);
	st->mag = magnitude(st->m1, st->m2);
	if (n1 + n2 <= 2) {
		st->p = 1;
		return;
	}
	df = (double)(n1 + n2 - 2);
	svar = ((double)(n1 - 1) * st->s1 * st->s1 + (double)(n2 - 1) * st->s2 * st->s2) / df;
	den = sqrt(svar * (1.0 / (double)n1 + 1.0 / (double)n2));
	if (!(den > 0)) {
		st->p = st->m1 == st->m2 ? 1 : 0;
		return;
	}
	t = (st->m1 - st->m2) / den;
	st->p = 2 * gp__student_t_cdf(-fabs(t), df);
	if (isnan(st->p))
		st->p = 1;
}

/* ---- E-divisive inside one window (ChangePointDetector.get_change_points) ---- */

struct window {
	const double *z; /* the window's points */
	size_t len;
	double *w;  /* w[p * (len + 1) + q]: sum of |z_i - z_k| over p <= i < k < q */
	size_t *cp; /* change points found, local indices, sorted; ncp of them */
	size_t ncp;
	size_t *ctau; /* the best tau of interval j (0: the interval has none) */
	double *cq;   /* and its Q */
};

#define W(win, p, q) ((win)->w[(p) * ((win)->len + 1) + (q)])

static void fill_w(struct window *win)
{
	size_t L = win->len, p, q;

	for (q = 0; q <= L; q++)
		W(win, q, q) = 0;
	for (q = 1; q <= L; q++) {
		double acc = 0, zq = win->z[q - 1];

		W(win, q - 1, q) = 0;
		for (p = q - 1; p-- > 0;) {
			acc += fabs(win->z[p] - zq);
			W(win, p, q) = W(win, p, q - 1) + acc;
		}
	}
}

/*
 * The candidate of [a, b): the tau maximising Q(tau, kappa) over
 * a < tau < kappa <= b, where with X = z[a, tau), Y = z[tau, kappa) of n and
 * m points, Q = 2/(m+n) sum|X-Y| - 2m/((m+n)(n-1)) sum_{i<k}|X_i-X_k|
 * - 2n/((m+n)(m-1)) sum_{j<k}|Y_j-Y_k| (a term is 0 when its n-1 or m-1 is).
 * The first maximum in (tau, kappa) row order wins, as numpy's argmax.
 */
static void candidate(const struct window *win, size_t a, size_t b, size_t *tau_out, double *q_out)
{
	size_t tau, kappa, best_tau = 0;
	double best = -INFINITY;

	for (tau = a + 1; tau < b; tau++) {
		double n = (double)(tau - a), wx = W(win, a, tau);

		for (kappa = tau + 1; kappa <= b; kappa++) {
			double m = (double)(kappa - tau), s = (double)(kappa - a);
			double wy = W(win, tau, kappa), cross = W(win, a, kappa) - wx - wy;
			double q = 2 * cross / s;

			if (n > 1)
				q -= 2 * m * wx / (s * (n - 1));
			if (m > 1)
				q -= 2 * n * wy / (s * (m - 1));
			if (q > best) {
				best = q;
				best_tau = tau;
			}
		}
	}
	*tau_out = best_tau;
	*q_out = best;
}

static size_t ival_lo(const struct window *win, size_t j)
{
	return j == 0 ? 0 : win->cp[j - 1];
}

static size_t ival_hi(const struct window *win, size_t j)
{
	return j == win->ncp ? win->len : win->cp[j];
}

static void interval_candidate(struct window *win, size_t j)
{
	size_t a = ival_lo(win, j), b = ival_hi(win, j);

	win->ctau[j] = 0;
	win->cq[j] = -INFINITY;
	if (b - a > 1)
		candidate(win, a, b, &win->ctau[j], &win->cq[j]);
}

/* runs the detector over win; the points found stay in win->cp */
static void detect(struct window *win, double pvalue)
{
	size_t j;

	win->ncp = 0;
	fill_w(win);
	interval_candidate(win, 0);
	for (;;) {
		size_t best = 0, tau;
		bool any = false;
		struct seg_stats st;

		for (j = 0; j <= win->ncp; j++) {
			if (win->ctau[j] == 0)
				continue;
			if (!any || win->cq[j] > win->cq[best])
				best = j;
			any = true;
		}
		if (!any)
			return;
		tau = win->ctau[best];
		ttest(win->z, ival_lo(win, best), tau, ival_hi(win, best), &st);
		if (!(st.p <= pvalue))
			return;
		/* interval best becomes [lo, tau) and [tau, hi) */
		memmove(win->cp + best + 1, win->cp + best, (win->ncp - best) * sizeof(*win->cp));
		memmove(win->ctau + best + 2, win->ctau + best + 1,
		        (win->ncp - best) * sizeof(*win->ctau));
		memmove(win->cq + best + 2, win->cq + best + 1,
		        (win->ncp - best) * sizeof(*win->cq));
		win->cp[best] = tau;
		win->ncp++;
		interval_candidate(win, best);
		interval_candidate(win, best + 1);
	}
}

/* ---- split and merge over the whole series (analysis.py) ---- */

struct run {
	const double *y;
	size_t n;
	const struct gp__cpd_opts *o;
	struct seg_stats *cps; /* sorted by index */
	size_t ncp;
};

static void recompute(struct run *r, size_t k)
{
	size_t lo, hi;

	if (k >= r->ncp)
		return;
	lo = k == 0 ? 0 : r->cps[k - 1].index;
	hi = k + 1 == r->ncp ? r->n : r->cps[k + 1].index;
	ttest(r->y, lo, r->cps[k].index, hi, &r->cps[k]);
}

/* inserts a weak change point at global index idx unless it is there */
static void add_weak(struct run *r, size_t idx)
{
	size_t k = r->ncp;

	while (k > 0 && r->cps[k - 1].index > idx)
		k--;
	if (k > 0 && r->cps[k - 1].index == idx)
		return;
	memmove(r->cps + k + 1, r->cps + k, (r->ncp - k) * sizeof(*r->cps));
	memset(&r->cps[k], 0, sizeof(r->cps[k]));
	r->cps[k].index = idx;
	r->ncp++;
}

static int split(struct run *r, double pvalue)
{
	size_t wlen = r->o->window, step = wlen / 2, start = 0, k, L = wlen < r->n ? wlen : r->n;
	struct window win = { 0 };
	int ret = GP_ENOMEM;

	win.w = gp__reallocarray(NULL, (L + 1) * (L + 1), sizeof(*win.w));
	win.cp = gp__reallocarray(NULL, L + 1, sizeof(*win.cp));
	win.ctau = gp__reallocarray(NULL, L + 2, sizeof(*win.ctau));
	win.cq = gp__reallocarray(NULL, L + 2, sizeof(*win.cq));
	if (!win.w || !win.cp || !win.ctau || !win.cq)
		goto out_free;
	while (start < r->n) {
		size_t end = start + wlen < r->n ? start + wlen : r->n, last = 0;

		win.z = r->y + start;
		win.len = end - start;
		detect(&win, pvalue);
		for (k = 0; k < win.ncp; k++)
			add_weak(r, win.cp[k] + start);
		if (win.ncp)
			last = win.cp[win.ncp - 1] + start;
		start = last > start + step ? last : start + step;
	}
	for (k = 0; k < r->ncp; k++)
		recompute(r, k);
	ret = 0;
out_free:
	gp__free(win.w);
	gp__free(win.cp);
	gp__free(win.ctau);
	gp__free(win.cq);
	return ret;
}

static int cmp_dbl(const void *a, const void *b)
{
	return gp__cmp_double(a, b);
}

/* the median of the segment [lo, hi) of y, sorted into scratch */
static double seg_median(const double *y, size_t lo, size_t hi, double *scratch)
{
	size_t m = hi - lo;

	memcpy(scratch, y + lo, m * sizeof(*y));
	qsort(scratch, m, sizeof(*scratch), cmp_dbl);
	return gp_quantile_sorted(scratch, m, 0.5);
}

/*
 * Chromium's Steppiness() of y[lo, hi) split at mid: 1 minus the RMS distance
 * of the standardised values from their best step at mid, which is
 * 1 - sqrt(SS within the two sides / SS about the mean). 1 when flat.
 */
static double steppiness(const double *y, size_t lo, size_t mid, size_t hi)
{
	double m, s, ml, sl, mr, sr, sst, q;

	moments(y + lo, hi - lo, &m, &s);
	moments(y + lo, mid - lo, &ml, &sl);
	moments(y + mid, hi - mid, &mr, &sr);
	sst = s * s * (double)(hi - lo);
	if (!(sst > 0))
		return 1;
	/* moments() gives 0 for one point, which is its true SS */
	q = (sl * sl * (double)(mid - lo) + sr * sr * (double)(hi - mid)) / sst;
	if (isnan(q))
		return NAN;
	/* the sides' SS never exceeds the total's but in rounding, at extreme magnitudes */
	return 1 - sqrt(q < 1 ? q : 1);
}

static bool on(double v)
{
	return v > 0; /* 0 and NAN: off */
}

/* false when the point at k fails one of the Chromium filters that are on */
static bool passes_filters(const struct run *r, size_t k, double *scratch)
{
	const struct gp__cpd_opts *o = r->o;
	const struct seg_stats *c = &r->cps[k];
	size_t lo = c->index - c->n1, hi = c->index + c->n2;

	if (o->min_points_each_side &&
	    (c->n1 < o->min_points_each_side || c->n2 < o->min_points_each_side))
		return false;
	if (on(o->min_median_change)) {
		double mb = seg_median(r->y, lo, c->index, scratch);
		double ma = seg_median(r->y, c->index, hi, scratch);
		double rc = mb != 0 ? fabs((ma - mb) / mb) : INFINITY;

		if (rc < o->min_median_change)
			return false;
	}
	if (on(o->min_steppiness) && steppiness(r->y, lo, c->index, hi) < o->min_steppiness)
		return false;
	return true;
}

/*
 * Which failing point goes first: the one with the shortest side (an outlier
 * is a segment of one point between two change points, and removing it first
 * keeps a real step beside it), then the smaller magnitude.
 */
static bool filter_before(const struct seg_stats *a, const struct seg_stats *b)
{
	size_t sa = a->n1 < a->n2 ? a->n1 : a->n2, sb = b->n1 < b->n2 ? b->n1 : b->n2;

	return sa != sb ? sa < sb : a->mag < b->mag;
}

static void merge(struct run *r, double *scratch)
{
	const struct gp__cpd_opts *o = r->o;

	while (r->ncp) {
		size_t k, w = 0;
		bool filtered = false;

		for (k = 1; k < r->ncp; k++)
			if (r->cps[k].p > r->cps[w].p)
				w = k;
		if (r->cps[w].p < o->max_pvalue) {
			w = 0;
			for (k = 1; k < r->ncp; k++)
				if (r->cps[k].mag < r->cps[w].mag)
					w = k;
			if (r->cps[w].mag > o->min_magnitude) {
				/* ours: Otava keeps them all; the Chromium filters may not */
				bool found = false;

				for (k = 0; k < r->ncp; k++) {
					if (passes_filters(r, k, scratch))
						continue;
					if (!found || filter_before(&r->cps[k], &r->cps[w]))
						w = k;
					found = true;
				}
				if (!found)
					return;
				filtered = true;
			}
		}
		memmove(r->cps + w, r->cps + w + 1, (r->ncp - w - 1) * sizeof(*r->cps));
		r->ncp--;
		/*
		 * The removal changes the segments of the points now at w - 1 and w.
		 * Otava recomputes w and w + 1 instead, leaving w - 1 stale: a stale
		 * point can then be judged on a segment that no longer exists and a
		 * clear step be dropped (docs/analyses/history-changes.md). Its
		 * published expectations depend on it, so otava_merge does the same.
		 */
		if (o->otava_merge && !filtered) {
			recompute(r, w);
			recompute(r, w + 1);
		} else {
			if (w > 0)
				recompute(r, w - 1);
			recompute(r, w);
		}
	}
}

/* ---- the trend test ---- */

static double normal_sf2(double z)
{
	return erfc(fabs(z) / sqrt(2.0)); /* two-sided */
}

/*
 * Mann-Kendall on v[0, m): S = sum over i < j of sign(v_j - v_i), its variance
 * with the ties correction, z with the continuity correction; two-sided p.
 */
static double mann_kendall(const double *v, size_t m, double *scratch)
{
	double s = 0, var, z, mm = (double)m;
	size_t i, j;

	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			s += (v[j] > v[i]) - (v[j] < v[i]);
	memcpy(scratch, v, m * sizeof(*v));
	qsort(scratch, m, sizeof(*scratch), cmp_dbl);
	var = mm * (mm - 1) * (2 * mm + 5);
	for (i = 0; i < m; i = j) {
		double t;

		for (j = i + 1; j < m && scratch[j] == scratch[i]; j++)
			;
		t = (double)(j - i);
		var -= t * (t - 1) * (2 * t + 5);
	}
	var /= 18;
	if (!(var > 0) || s == 0)
		return 1;
	z = (s > 0 ? s - 1 : s + 1) / sqrt(var);
	return normal_sf2(z);
}

/* the Theil-Sen line of v[0, m): slope the median pairwise slope, intercept the median of v_i -
 * slope i */
static int theil_sen(const double *v, size_t m, double *slope, double *icept)
{
	size_t i, j, k = 0, np = m * (m - 1) / 2;
	double *s = gp__reallocarray(NULL, np > m ? np : m, sizeof(*s));

	if (!s)
		return GP_ENOMEM;
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			s[k++] = (v[j] - v[i]) / (double)(j - i);
	qsort(s, np, sizeof(*s), cmp_dbl);
	*slope = gp_quantile_sorted(s, np, 0.5);
	for (i = 0; i < m; i++)
		s[i] = v[i] - *slope * (double)i;
	qsort(s, m, sizeof(*s), cmp_dbl);
	*icept = gp_quantile_sorted(s, m, 0.5);
	gp__free(s);
	return 0;
}

/* a trend on the last regime (after the last step), into *pt; 1 when found, 0 not, or < 0 */
static int trend(const struct run *r, double *scratch, struct gp__cpd_point *pt)
{
	const struct gp__cpd_opts *o = r->o;
	size_t tw = o->trend_window ? o->trend_window : DEF_TREND_WINDOW;
	size_t minp = o->trend_min_points ? o->trend_min_points : DEF_TREND_MIN_POINTS;
	size_t lo = r->ncp ? r->cps[r->ncp - 1].index : 0, m;
	double p, slope, icept, b, a;
	int err;

	if (r->n > tw && r->n - tw > lo)
		lo = r->n - tw;
	m = r->n - lo;
	if (m < minp || m < 3)
		return 0;
	p = mann_kendall(r->y + lo, m, scratch);
	if (!(p < o->trend_alpha))
		return 0;
	err = theil_sen(r->y + lo, m, &slope, &icept);
	if (err)
		return err;
	b = icept;
	a = icept + slope * (double)(m - 1);
	if (!(magnitude(b, a) > o->min_magnitude))
		return 0;
	memset(pt, 0, sizeof(*pt));
	pt->kind = GP__CPD_TREND;
	pt->index = lo;
	pt->n_after = m;
	pt->mean_before = b;
	pt->mean_after = a;
	pt->sd_before = pt->sd_after = NAN;
	pt->rel_change = b == 0 ? 0 : (a - b) / b;
	pt->magnitude = magnitude(b, a);
	pt->pvalue = p;
	pt->steppiness = NAN;
	return 1;
}

/* ---- entry points ---- */

static int check_opts(const struct gp__cpd_opts *o)
{
	if (o->window < 2 || o->window > GP__CPD_MAX_WINDOW)
		return gp__error(GP_EINVAL, "change points: window %zu not in [2, %d]", o->window,
		                 GP__CPD_MAX_WINDOW);
	if (!(o->max_pvalue > 0 && o->max_pvalue <= 1))
		return gp__error(GP_EINVAL, "change points: max p-value %g not in (0, 1]",
		                 o->max_pvalue);
	if (!(o->min_magnitude >= 0) || isinf(o->min_magnitude))
		return gp__error(GP_EINVAL, "change points: min magnitude %g not >= 0",
		                 o->min_magnitude);
	if (on(o->trend_alpha) && !(o->trend_alpha < 1))
		return gp__error(GP_EINVAL, "change points: trend alpha %g not in (0, 1)",
		                 o->trend_alpha);
	return 0;
}

/* Otava's fill_missing(): forward fill, then back fill the leading NANs; false when all are NAN */
static bool fill_missing(const double *x, size_t n, double *y)
{
	size_t i, first = n;

	for (i = 0; i < n; i++) {
		if (!isnan(x[i])) {
			y[i] = x[i];
			if (first == n)
				first = i;
		} else {
			y[i] = first == n ? NAN : y[i - 1];
		}
	}
	for (i = 0; i < first && first < n; i++)
		y[i] = x[first];
	return first < n;
}

/* a run of this many outliers in a row is a regime, not spikes: the newest points after a step */
#define OUTLIER_RUN 3

/* whether flagged y[i] lies near y[nb], a point kept: nearer than half its distance to @p med */
static bool near_kept(const double *y, const bool *flags, size_t i, size_t nb, double med)
{
	return !flags[nb] && fabs(y[i] - y[nb]) < 0.5 * fabs(y[i] - med);
}

/*
 * Ours: points whose modified z-score (gp_stats_outliers(), the one outlier
 * rule of `compare` and bench) exceeds z become missing and are filled as
 * Otava fills them, so a lone spike neither makes a segment of its own nor
 * drags a neighbouring segment's mean across the threshold. Only spikes: a
 * run of OUTLIER_RUN or more flagged points in a row stays, or a step near
 * the end of a series (its few new points far from the series' median)
 * would be taken for outliers and never found; so does a flagged point near
 * a kept neighbour (and, in turn, a flagged one near it): the first point of
 * a regime far from the series' median, noisier than the points after it,
 * is the step's first point, and dropping it would blame the next commit.
 */
static int drop_outliers(double *y, size_t n, double z, double *scratch)
{
	bool *flags = gp__calloc(n, sizeof(*flags));
	double med;
	long k;
	size_t i, j;

	if (!flags)
		return GP_ENOMEM;
	k = gp_stats_outliers(y, n, z, flags);
	for (i = 0; k > 0 && i < n; i = j) {
		for (j = i; j < n && flags[j]; j++)
			;
		if (j - i >= OUTLIER_RUN) {
			k -= (long)(j - i);
			for (size_t m = i; m < j; m++)
				flags[m] = false;
		}
		if (j == i)
			j++;
	}
	if (k > 0) {
		med = seg_median(y, 0, n, scratch);
		/* forwards then backwards: a kept point keeps its flagged neighbours in turn */
		for (i = 1; i < n; i++)
			if (flags[i] && near_kept(y, flags, i, i - 1, med)) {
				flags[i] = false;
				k--;
			}
		for (i = n - 1; i-- > 0;)
			if (flags[i] && near_kept(y, flags, i, i + 1, med)) {
				flags[i] = false;
				k--;
			}
	}
	if (k > 0 && (size_t)k < n) {
		for (i = 0; i < n; i++)
			scratch[i] = flags[i] ? NAN : y[i];
		fill_missing(scratch, n, y);
	}
	gp__free(flags);
	return k < 0 ? (int)k : 0;
}

int gp__cpd_find(const double *x, size_t n, const struct gp__cpd_opts *o,
                 struct gp__cpd_point **out, size_t *nout)
{
	struct gp__cpd_opts def;
	struct run r = { 0 };
	struct gp__cpd_point *pts = NULL, tp;
	double *y = NULL, *scratch = NULL, pv;
	size_t i;
	int err;

	*out = NULL;
	*nout = 0;
	if (!o) {
		gp__cpd_opts_default(&def);
		o = &def;
	}
	err = check_opts(o);
	if (err)
		return err;
	if (n && !x)
		return gp__error(GP_EINVAL, "change points: no series");
	for (i = 0; i < n; i++)
		if (isinf(x[i]))
			return gp__error(GP_EINVAL, "change points: point %zu is infinite", i);
	if (n < 2)
		return 0;
	err = GP_ENOMEM;
	y = gp__reallocarray(NULL, n, sizeof(*y));
	scratch = gp__reallocarray(NULL, n, sizeof(*scratch));
	r.cps = gp__reallocarray(NULL, n, sizeof(*r.cps));
	if (!y || !scratch || !r.cps)
		goto out_free;
	if (!fill_missing(x, n, y)) {
		err = 0;
		goto out_free;
	}
	if (on(o->outlier_z)) {
		err = drop_outliers(y, n, o->outlier_z, scratch);
		if (err)
			goto out_free;
	}
	r.y = y;
	r.n = n;
	r.o = o;
	/* the first pass's relaxed level, as compute_change_points() sets it */
	pv = o->max_pvalue < 0.05 ? o->max_pvalue * 10
	                          : (o->max_pvalue < 0.5 ? o->max_pvalue * 2 : o->max_pvalue);
	err = split(&r, pv);
	if (err)
		goto out_free;
	merge(&r, scratch);
	/* ours: report each point against its final neighbours (Otava's may be stale) */
	for (i = 0; i < r.ncp; i++)
		recompute(&r, i);
	pts = gp__reallocarray(NULL, r.ncp + 1, sizeof(*pts));
	err = GP_ENOMEM;
	if (!pts)
		goto out_free;
	for (i = 0; i < r.ncp; i++) {
		const struct seg_stats *c = &r.cps[i];
		struct gp__cpd_point *p = &pts[i];

		memset(p, 0, sizeof(*p));
		p->kind = GP__CPD_STEP;
		p->index = c->index;
		p->n_before = c->n1;
		p->n_after = c->n2;
		p->mean_before = c->m1;
		p->sd_before = c->s1;
		p->mean_after = c->m2;
		p->sd_after = c->s2;
		p->rel_change = c->m1 == 0 ? 0 : (c->m2 - c->m1) / c->m1;
		p->magnitude = c->mag;
		p->pvalue = c->p;
		p->steppiness = steppiness(y, c->index - c->n1, c->index, c->index + c->n2);
	}
	*nout = r.ncp;
	if (on(o->trend_alpha)) {
		err = trend(&r, scratch, &tp);
		if (err < 0)
			goto out_free;
		if (err)
			pts[(*nout)++] = tp;
	}
	if (*nout) {
		*out = pts;
		pts = NULL;
	}
	err = 0;
out_free:
	gp__free(pts);
	gp__free(y);
	gp__free(scratch);
	gp__free(r.cps);
	return err;
}

/*
 * E|Z| over the lower 90 % of |Z|, Z standard normal: 2 (phi(0) - phi(q)) / 0.9
 * with q = 1.644854 its 90th percentile; divides the trimmed mean of |d| back
 * to the standard deviation of d.
 */
#define TRIM_KEEP  0.9
#define TRIM_SCALE 0.657348

double gp__cpd_noise(const double *x, size_t n)
{
	double *d = NULL, prev = NAN, med, sum = 0;
	size_t i, m = 0, k = 0, keep;

	if (n < 3 || !(d = gp__reallocarray(NULL, n, sizeof(*d))))
		return NAN;
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			d[m++] = x[i];
	if (m < 3) {
		gp__free(d);
		return NAN;
	}
	qsort(d, m, sizeof(*d), cmp_dbl);
	med = gp_quantile_sorted(d, m, 0.5);
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		if (!isnan(prev))
			d[k++] = fabs(x[i] - prev);
		prev = x[i];
	}
	qsort(d, k, sizeof(*d), cmp_dbl);
	keep = (size_t)ceil(TRIM_KEEP * (double)k);
	for (i = 0; i < keep; i++)
		sum += d[i];
	gp__free(d);
	if (med == 0)
		return NAN;
	/* sd of d is sqrt(2) sd of the noise */
	return sum / (double)keep / TRIM_SCALE / sqrt(2.0) / fabs(med);
}

bool gp__cpd_unstable(const double *x, size_t n, const struct gp__cpd_opts *o)
{
	struct gp__cpd_opts def;
	double noise, k;

	if (!o) {
		gp__cpd_opts_default(&def);
		o = &def;
	}
	k = o->unstable_k > 0 ? o->unstable_k : DEF_UNSTABLE_K;
	if (!(o->min_magnitude > 0) || o->unstable_k < 0)
		return false;
	noise = gp__cpd_noise(x, n);
	return !isnan(noise) && noise * k > o->min_magnitude;
}
