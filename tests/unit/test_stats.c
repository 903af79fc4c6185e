/* SPDX-License-Identifier: MIT */
/*
 * test_stats.c - the statistics library (stats.h) against hand-computed
 * values: R-7 quantiles (numpy's default), mean/std/median/MAD, outliers,
 * Mann-Whitney U against published critical values and an independent
 * implementation of Mann and Whitney's recurrence, the bootstrap's
 * reproducibility, the verdict rules and the error cases.
 */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/stats.h"

#define assert_near(a, b, eps)                                                                     \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps)))                                                     \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

/* relative closeness, for p-values spanning many orders of magnitude */
#define assert_rel(a, b, rel)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (rel)*fabs(b_)))                                            \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

static const double nan_ = NAN;

/* ---- quantiles ---- */

static void test_quantile_r7(void **state)
{
	const double v4[] = { 1, 2, 3, 4 };
	const double v5[] = { 15, 20, 35, 40, 50 };
	const double one[] = { 7 };

	(void)state;
	/* h = (n - 1) q = 3 q; value v[floor h] + frac(h) (v[floor h + 1] - v[floor h]) */
	assert_near(gp_quantile_sorted(v4, 4, 0.25), 1.75, 1e-15); /* h 0.75: 1 + 0.75 * 1 */
	assert_near(gp_quantile_sorted(v4, 4, 0.50), 2.5, 1e-15);  /* h 1.5: 2 + 0.5 */
	assert_near(gp_quantile_sorted(v4, 4, 0.75), 3.25, 1e-15); /* h 2.25: 3 + 0.25 */
	assert_near(gp_quantile_sorted(v4, 4, 0.90), 3.7, 1e-15);  /* h 2.7: 3 + 0.7 */
	assert_near(gp_quantile_sorted(v4, 4, 0.99), 3.97, 1e-15); /* h 2.97: 3 + 0.97 */
	assert_true(gp_quantile_sorted(v4, 4, 0) == 1);
	assert_true(gp_quantile_sorted(v4, 4, 1) == 4);
	/* numpy.percentile([15, 20, 35, 40, 50], 40) = 29: h = 4 * 0.4 = 1.6, 20 + 0.6 * 15 */
	assert_near(gp_quantile_sorted(v5, 5, 0.40), 29, 1e-12);
	/* p90: h = 3.6, 40 + 0.6 * 10 = 46; p10: h = 0.4, 15 + 0.4 * 5 = 17 */
	assert_near(gp_quantile_sorted(v5, 5, 0.90), 46, 1e-12);
	assert_near(gp_quantile_sorted(v5, 5, 0.10), 17, 1e-12);
	/* odd n: the median is the middle value exactly */
	assert_true(gp_quantile_sorted(v5, 5, 0.5) == 35);
	/* one value: every quantile is it */
	assert_true(gp_quantile_sorted(one, 1, 0.3) == 7);
	assert_true(gp_quantile_sorted(one, 1, 1) == 7);
	/* out of range q clamps; NaN q and n = 0 give NaN */
	assert_true(gp_quantile_sorted(v4, 4, -0.5) == 1);
	assert_true(gp_quantile_sorted(v4, 4, 1.5) == 4);
	assert_true(isnan(gp_quantile_sorted(v4, 4, nan_)));
	assert_true(isnan(gp_quantile_sorted(v4, 0, 0.5)));
	assert_true(isnan(gp_quantile_sorted(NULL, 0, 0.5)));
}

/* ---- summaries ---- */

static void test_summary(void **state)
{
	/* sorted: 2 4 4 4 5 5 7 9 (given shuffled: the order must not matter) */
	const double x[] = { 5, 2, 9, 4, 4, 7, 4, 5 };
	const double y[] = { 9, 7, 5, 5, 4, 4, 4, 2 };
	struct gp_stats s, t;

	(void)state;
	assert_int_equal(gp_stats_compute(x, 8, NULL, &s), 0);
	assert_int_equal(s.n, 8);
	assert_true(s.mean == 5); /* 40 / 8 */
	/* squared deviations 9 + 1 + 1 + 1 + 0 + 0 + 4 + 16 = 32; n - 1 = 7 */
	assert_near(s.std, sqrt(32.0 / 7), 1e-15);
	assert_near(s.cv, sqrt(32.0 / 7) / 5, 1e-15);
	/* h = 7 * 0.5 = 3.5: 4 + 0.5 (5 - 4) */
	assert_true(s.median == 4.5);
	assert_true(s.p50 == 4.5);
	/* |x - 4.5| sorted: 0.5 0.5 0.5 0.5 0.5 2.5 2.5 4.5; h = 3.5 -> 0.5 */
	assert_true(s.mad == 0.5);
	assert_true(s.min == 2);
	assert_true(s.max == 9);
	assert_near(s.p25, 4, 1e-15);    /* h 1.75: 4 + 0.75 (4 - 4) */
	assert_near(s.p75, 5.5, 1e-15);  /* h 5.25: 5 + 0.25 (7 - 5) */
	assert_near(s.p90, 7.6, 1e-12);  /* h 6.3: 7 + 0.3 (9 - 7) */
	assert_near(s.p95, 8.3, 1e-12);  /* h 6.65: 7 + 0.65 * 2 */
	assert_near(s.p99, 8.86, 1e-12); /* h 6.93: 7 + 0.93 * 2 */
	assert_true(s.mean_lo <= s.mean && s.mean <= s.mean_hi);
	assert_true(s.median_lo <= s.median && s.median <= s.median_hi);
	assert_true(s.mean_lo >= 2 && s.mean_hi <= 9);
	/* the same multiset in another order: bit-identical, intervals included */
	assert_int_equal(gp_stats_compute(y, 8, NULL, &t), 0);
	assert_memory_equal(&s, &t, sizeof(s));
}

static void test_summary_small(void **state)
{
	const double one[] = { 3 };
	const double two[] = { 1, 3 };
	const double zero[] = { -1, 1 };
	struct gp_stats s;

	(void)state;
	assert_int_equal(gp_stats_compute(one, 1, NULL, &s), 0);
	assert_true(s.mean == 3 && s.median == 3 && s.min == 3 && s.max == 3);
	assert_true(s.std == 0 && s.mad == 0 && s.cv == 0);
	assert_true(s.p99 == 3);
	assert_true(isnan(s.mean_lo) && isnan(s.mean_hi));
	assert_true(isnan(s.median_lo) && isnan(s.median_hi));

	/* n = 2: resamples are {1,1}, {1,3}, {3,1}, {3,3}; every mean and median is in [1, 3] */
	assert_int_equal(gp_stats_compute(two, 2, NULL, &s), 0);
	assert_true(s.mean == 2 && s.median == 2);
	assert_near(s.std, sqrt(2.0), 1e-15); /* (1 + 1) / 1 */
	assert_true(s.mad == 1);
	assert_true(s.mean_lo == 1 && s.mean_hi == 3);
	assert_true(s.median_lo == 1 && s.median_hi == 3);

	/* mean 0: cv unknown */
	assert_int_equal(gp_stats_compute(zero, 2, NULL, &s), 0);
	assert_true(s.mean == 0);
	assert_true(isnan(s.cv));
}

/* a deterministic pseudo-normal sample (splitmix64 + Box-Muller) */
static uint64_t sm_state;

static uint64_t sm_next(void)
{
	uint64_t z = (sm_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double unif(void) /* in (0, 1) */
{
	return ((double)(sm_next() >> 11) + 0.5) / 9007199254740992.0;
}

static void normal_sample(double *x, size_t n, double mu, double sigma, uint64_t seed)
{
	size_t i;

	sm_state = seed;
	for (i = 0; i < n; i++) {
		double u1 = unif(), u2 = unif();

		x[i] = mu + sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	}
}

static void test_bootstrap(void **state)
{
	enum { N = 200 };
	double *x = malloc(N * sizeof(*x));
	struct gp_stats_opts o = { .size = sizeof(o) };
	struct gp_stats a, b, c, d;
	double half, w;

	(void)state;
	assert_non_null(x);
	normal_sample(x, N, 100, 5, 42);

	/* no options, seed 0 and the default seed are the same thing */
	assert_int_equal(gp_stats_compute(x, N, NULL, &a), 0);
	assert_int_equal(gp_stats_compute(x, N, &o, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	o.seed = GP_STATS_DEFAULT_SEED;
	assert_int_equal(gp_stats_compute(x, N, &o, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));

	/* same seed, same intervals; another seed, other but close intervals */
	o.seed = 1;
	assert_int_equal(gp_stats_compute(x, N, &o, &c), 0);
	assert_int_equal(gp_stats_compute(x, N, &o, &d), 0);
	assert_memory_equal(&c, &d, sizeof(c));
	o.seed = 2;
	assert_int_equal(gp_stats_compute(x, N, &o, &d), 0);
	assert_true(c.mean_lo != d.mean_lo || c.mean_hi != d.mean_hi);
	assert_true(c.mean == d.mean && c.median == d.median);
	w = c.mean_hi - c.mean_lo;
	/* 10000 resamples: the endpoints move by a few percent of the width, not more */
	assert_true(fabs(c.mean_lo - d.mean_lo) < 0.05 * w);
	assert_true(fabs(c.mean_hi - d.mean_hi) < 0.05 * w);
	w = c.median_hi - c.median_lo;
	assert_true(fabs(c.median_lo - d.median_lo) < 0.15 * w);
	assert_true(fabs(c.median_hi - d.median_hi) < 0.15 * w);

	/*
	 * The mean's 95 % interval is close to the normal one, mean +- 1.96 s / sqrt(n):
	 * half-width 1.96 * 5 / sqrt(200) = 0.69 for sigma 5 (s is within a few % of it).
	 */
	half = 1.96 * a.std / sqrt((double)N);
	assert_true(a.mean_lo < a.mean && a.mean < a.mean_hi);
	assert_near((a.mean_hi - a.mean_lo) / 2, half, 0.1 * half);
	assert_near((a.mean_hi + a.mean_lo) / 2, a.mean, 0.1 * half);
	/* the median's is wider (asymptotic efficiency 2 / pi: sqrt(pi / 2) = 1.25 times) */
	assert_true(a.median_lo < a.median && a.median < a.median_hi);
	assert_true(a.median_hi - a.median_lo > a.mean_hi - a.mean_lo);
	assert_true(a.median_hi - a.median_lo < 2 * (a.mean_hi - a.mean_lo));

	/* confidence 0.5 gives a narrower interval inside the 0.95 one */
	o.seed = 0;
	o.confidence = 0.5;
	assert_int_equal(gp_stats_compute(x, N, &o, &b), 0);
	assert_true(b.mean_lo > a.mean_lo && b.mean_hi < a.mean_hi);
	free(x);
}

/*
 * A pin on the generator and the interval rule: integer data make every
 * resample mean a multiple of 1/n and every median a half-integer. The
 * expected values were reproduced by an independent Python implementation
 * of docs/analyses/statistics.md (splitmix64-seeded xoshiro256**, two
 * 32-bit words per output, Lemire's rejection, R-7 on the sorted
 * statistics). A change here means results are no longer reproducible.
 */
static void test_bootstrap_pinned(void **state)
{
	const double x[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4 };
	struct gp_stats_opts o = { .size = sizeof(o), .resamples = 1000, .seed = 12345 };
	struct gp_stats s;

	(void)state;
	assert_int_equal(gp_stats_compute(x, 20, &o, &s), 0);
	assert_true(s.mean == 4.85); /* 97 / 20 */
	assert_true(s.median == 4.5);
	assert_near(s.mean_lo, 3.7, 1e-12); /* 74 / 20 */
	assert_near(s.mean_hi, 6.1, 1e-12); /* 122 / 20 */
	assert_true(s.median_lo == 3);
	assert_true(s.median_hi == 6.5);
	/* 7 resamples: the endpoints interpolate between single resamples (h = 6 * 0.025 = 0.15) */
	o.resamples = 7;
	assert_int_equal(gp_stats_compute(x, 20, &o, &s), 0);
	assert_near(s.mean_lo, 4.13, 1e-12);
	assert_near(s.mean_hi, 5.975, 1e-12);
	assert_near(s.median_lo, 3, 1e-12);
	assert_near(s.median_hi, 7.625, 1e-12);
}

static void test_bootstrap_large(void **state)
{
	enum { N = 20000 };
	double *x = malloc(N * sizeof(*x));
	struct gp_stats s;

	(void)state;
	assert_non_null(x);
	/* n resamples is capped (2e7 / n = 1000): still a sane interval, quickly */
	normal_sample(x, N, 10, 1, 7);
	assert_int_equal(gp_stats_compute(x, N, NULL, &s), 0);
	assert_true(s.mean_lo < s.mean && s.mean < s.mean_hi);
	assert_near(s.mean_hi - s.mean_lo, 2 * 1.96 / sqrt((double)N), 0.004);
	free(x);
}

static void test_summary_errors(void **state)
{
	const double ok[] = { 1, 2, 3 };
	const double bad_nan[] = { 1, NAN, 3 };
	const double bad_inf[] = { 1, 2, INFINITY };
	const double bad_ninf[] = { -INFINITY, 2, 3 };
	const double huge[] = { 1e308, 1e308 };
	struct gp_stats_opts o = { .size = sizeof(o) };
	struct gp_stats s;

	(void)state;
	memset(&s, 0x5a, sizeof(s));
	assert_int_equal(gp_stats_compute(ok, 0, NULL, &s), GP_EINVAL);
	assert_int_equal(gp_stats_compute(NULL, 3, NULL, &s), GP_EINVAL);
	assert_int_equal(gp_stats_compute(bad_nan, 3, NULL, &s), GP_EINVAL);
	assert_int_equal(gp_stats_compute(bad_inf, 3, NULL, &s), GP_EINVAL);
	assert_int_equal(gp_stats_compute(bad_ninf, 3, NULL, &s), GP_EINVAL);
	assert_int_equal(gp_stats_compute(huge, 2, NULL, &s), GP_EINVAL);
	assert_int_equal(gp_stats_compute(ok, 3, NULL, NULL), GP_EINVAL);
	o.confidence = 1;
	assert_int_equal(gp_stats_compute(ok, 3, &o, &s), GP_EINVAL);
	o.confidence = -0.5;
	assert_int_equal(gp_stats_compute(ok, 3, &o, &s), GP_EINVAL);
	o.confidence = NAN;
	assert_int_equal(gp_stats_compute(ok, 3, &o, &s), GP_EINVAL);
	assert_true(strlen(gp_last_error()) > 0);
	/* the output is untouched on failure */
	assert_true(s.n == 0x5a5a5a5a5a5a5a5aULL);
	/* an options struct from an older caller (size covering resamples only) */
	o.size = offsetof(struct gp_stats_opts, seed);
	o.resamples = 50;
	assert_int_equal(gp_stats_compute(ok, 3, &o, &s), 0);
}

static void test_enomem(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5, 6 };
	const double y[] = { 2, 3, 4, 5, 6, 7 };
	struct gp_stats s;
	struct gp_change c;
	struct gp_mwu u;
	long k;
	int rc;

	(void)state;
	for (k = 1; k < 100; k++) {
		gp__test_fail_alloc_after(k);
		rc = gp_stats_compute(x, 6, NULL, &s);
		gp__test_fail_alloc_after(0);
		if (rc == 0)
			break;
		assert_int_equal(rc, GP_ENOMEM);
	}
	assert_true(k > 1 && k < 100);
	for (k = 1; k < 100; k++) {
		gp__test_fail_alloc_after(k);
		rc = gp_stats_compare(x, 6, y, 6, GP_LOWER_IS_BETTER, NULL, &c);
		gp__test_fail_alloc_after(0);
		if (rc == 0)
			break;
		assert_int_equal(rc, GP_ENOMEM);
	}
	assert_true(k > 1 && k < 100);
	gp__test_fail_alloc_after(1);
	rc = gp_mann_whitney(x, 6, y, 6, &u);
	gp__test_fail_alloc_after(0);
	assert_int_equal(rc, GP_ENOMEM);
	gp__test_fail_alloc_after(1);
	rc = (int)gp_stats_outliers(x, 6, 0, NULL);
	gp__test_fail_alloc_after(0);
	assert_int_equal(rc, GP_ENOMEM);
}

/* ---- outliers ---- */

static void test_outliers(void **state)
{
	/* median 0; |x| sorted 0 0 1 1 1 1 14: MAD 1; z(14) = 14 <= 14.826 */
	const double a[] = { 0, 1, -1, 1, -1, 0, 14 };
	/* the same with 15: z = 15 > 14.826 */
	const double b[] = { 0, 1, -1, 1, -1, 0, 15 };
	/* sorted 9.8 9.9 10 10 10.1 10.2 30: median 10, MAD 0.1 (approximately), z(30) ~ 200 */
	const double c[] = { 10, 10.1, 9.9, 10.2, 9.8, 10, 30 };
	bool f[7];
	size_t i;

	(void)state;
	assert_int_equal(gp_stats_outliers(a, 7, 0, f), 0);
	for (i = 0; i < 7; i++)
		assert_false(f[i]);
	assert_int_equal(gp_stats_outliers(b, 7, 0, f), 1);
	assert_true(f[6]);
	for (i = 0; i < 6; i++)
		assert_false(f[i]);
	assert_int_equal(gp_stats_outliers(b, 7, GP_OUTLIER_Z, NULL), 1);
	/* a lower threshold: z(14) = 14 > 3.5 (Iglewicz-Hoaglin's own, unscaled here) */
	assert_int_equal(gp_stats_outliers(a, 7, 3.5, f), 1);
	assert_true(f[6]);
	/* z of +-1 is not above 1 (strictly greater counts) */
	assert_int_equal(gp_stats_outliers(a, 7, 1, f), 1);
	assert_int_equal(gp_stats_outliers(a, 7, 0.99, f), 5);
	assert_int_equal(gp_stats_outliers(c, 7, 0, f), 1);
	assert_true(f[6]);
}

static void test_outliers_mad0(void **state)
{
	double x[22];
	/* median 5; |x - 5|: five 0s, 1, 95: MAD 0; mean |dev| 96 / 7, times 1.253314 = 17.188 */
	const double y[] = { 5, 5, 100, 5, 5, 6, 5 };
	const double same[] = { 3, 3, 3, 3 };
	bool f[22];
	size_t i;

	(void)state;
	/* z(100) = 95 / 17.188 = 5.53: not an outlier at 14.826 but one at 3 */
	assert_int_equal(gp_stats_outliers(y, 7, 0, f), 0);
	assert_int_equal(gp_stats_outliers(y, 7, 3, f), 1);
	assert_true(f[2]);
	assert_false(f[5]); /* z(6) = 1 / 17.188 = 0.058 */
	assert_int_equal(gp_stats_outliers(y, 7, 5.5, NULL), 1);
	assert_int_equal(gp_stats_outliers(y, 7, 5.6, NULL), 0);
	/*
	 * twenty 5s, a 6 and a 1000: MAD 0; mean |dev| (1 + 995) / 22 = 45.27,
	 * times 1.253314 = 56.74; z(1000) = 995 / 56.74 = 17.5 > 14.826
	 */
	for (i = 0; i < 20; i++)
		x[i] = 5;
	x[20] = 6;
	x[21] = 1000;
	assert_int_equal(gp_stats_outliers(x, 22, 0, f), 1);
	assert_true(f[21]);
	assert_false(f[20]);
	/* everything equal: MAD and mean deviation 0, no outliers */
	assert_int_equal(gp_stats_outliers(same, 4, 0, f), 0);
	assert_false(f[0] || f[1] || f[2] || f[3]);
	assert_int_equal(gp_stats_outliers(same, 1, 0, f), 0);
}

static void test_outliers_errors(void **state)
{
	const double x[] = { 1, 2, 3 };
	const double bad[] = { 1, NAN, 3 };
	const double bad_inf[] = { 1, -INFINITY, 3 };

	(void)state;
	assert_int_equal(gp_stats_outliers(x, 0, 0, NULL), GP_EINVAL);
	assert_int_equal(gp_stats_outliers(NULL, 3, 0, NULL), GP_EINVAL);
	assert_int_equal(gp_stats_outliers(bad, 3, 0, NULL), GP_EINVAL);
	assert_int_equal(gp_stats_outliers(bad_inf, 3, 0, NULL), GP_EINVAL);
	assert_int_equal(gp_stats_outliers(x, 3, -1, NULL), GP_EINVAL);
	assert_int_equal(gp_stats_outliers(x, 3, NAN, NULL), GP_EINVAL);
}

/* ---- Mann-Whitney U ---- */

/*
 * Samples of sizes na and nb without ties whose U_a is u: b = 0, 2, 4, ...
 * and each a_i beats the first k_i of them, the k_i summing to u.
 */
static void with_u(double *a, size_t na, double *b, size_t nb, size_t u)
{
	size_t i, rem = u;

	for (i = 0; i < nb; i++)
		b[i] = 2.0 * (double)i;
	for (i = 0; i < na; i++) {
		size_t k = rem > nb ? nb : rem;

		rem -= k;
		a[i] = 2.0 * (double)k - 1 + 0.001 * (double)i;
	}
}

static double p_of(size_t na, size_t nb, size_t u, bool *exact)
{
	double a[64], b[64];
	struct gp_mwu r;

	assert_true(na <= 64 && nb <= 64);
	with_u(a, na, b, nb, u);
	assert_int_equal(gp_mann_whitney(a, na, b, nb, &r), 0);
	assert_true(r.u_a == (double)u);
	assert_true(r.u_b == (double)(na * nb - u));
	assert_false(r.ties);
	if (exact)
		*exact = r.exact;
	return r.p;
}

/*
 * Critical values of U for a two-sided test at alpha = 0.05 (the standard
 * Mann-Whitney table, e.g. Siegel and Castellan; the largest U with
 * p <= 0.05): n1 = n2 = 5: 2; n1 = n2 = 10: 23; n1 = n2 = 20: 127.
 * Exact p-values: 2 * count(U <= u) / C(n1 + n2, n1), the counts from
 * Mann and Whitney's recurrence in exact integers (Python fractions):
 *   (5, 5):   U = 2: 8 / 252 = 0.031746;     U = 3: 14 / 252 = 0.055556
 *   (10, 10): U = 23: 0.0432570525449782;    U = 24: 0.0524259022711035
 *   (20, 20): U = 127: 0.0490903251893724;   U = 128: 0.0523995218728497
 */
static void test_mwu_critical(void **state)
{
	bool exact;

	(void)state;
	assert_rel(p_of(5, 5, 2, &exact), 8.0 / 252, 1e-12);
	assert_true(exact);
	assert_rel(p_of(5, 5, 3, NULL), 14.0 / 252, 1e-12);
	assert_true(p_of(5, 5, 2, NULL) <= 0.05 && p_of(5, 5, 3, NULL) > 0.05);
	assert_rel(p_of(10, 10, 23, NULL), 0.0432570525449782, 1e-12);
	assert_rel(p_of(10, 10, 24, NULL), 0.0524259022711035, 1e-12);
	assert_true(p_of(10, 10, 23, NULL) <= 0.05 && p_of(10, 10, 24, NULL) > 0.05);
	assert_rel(p_of(20, 20, 127, NULL), 0.0490903251893724, 1e-12);
	assert_rel(p_of(20, 20, 128, NULL), 0.0523995218728497, 1e-12);
	assert_true(p_of(20, 20, 127, NULL) <= 0.05 && p_of(20, 20, 128, NULL) > 0.05);
	/* the upper tail mirrors the lower: U and n1 n2 - U give the same p */
	assert_true(p_of(10, 10, 100 - 23, NULL) == p_of(10, 10, 23, NULL));
	/* U = 0: the smallest p, 2 / C(n1 + n2, n1) */
	assert_rel(p_of(10, 10, 0, NULL), 2.0 / 184756, 1e-12);
	assert_rel(p_of(50, 50, 0, &exact), gp_mann_whitney_min_p(50, 50), 1e-12);
	assert_true(exact);
	/* U at the centre: p capped at 1 */
	assert_true(p_of(10, 10, 50, NULL) == 1);
	assert_true(p_of(3, 50, 75, NULL) == 1);
	/* unequal sizes: (12, 40), U = 100: 0.001747908521838267; (7, 13), U = 20:
	 * 0.0455624355005160 */
	assert_rel(p_of(12, 40, 100, NULL), 0.001747908521838267, 1e-12);
	assert_rel(p_of(7, 13, 20, NULL), 0.0455624355005160, 1e-12);
}

/*
 * Mann and Whitney's recurrence on probabilities, as the reference:
 * P(u; m, n) = m / (m + n) P(u - n; m - 1, n) + n / (m + n) P(u; m, n - 1),
 * P(0; m, 0) = P(0; 0, n) = 1. Returns the whole distribution of U (mn + 1
 * values), computed row by row over m.
 */
static double *ref_dist(size_t m, size_t n)
{
	size_t w = m * n + 1, i, j, k;
	double *prev = calloc((n + 1) * w, sizeof(double));
	double *cur = calloc((n + 1) * w, sizeof(double));
	double *res;

	assert_non_null(prev);
	assert_non_null(cur);
	for (j = 0; j <= n; j++)
		prev[j * w] = 1; /* m = 0 */
	for (i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * w * sizeof(double));
		cur[0] = 1; /* n = 0 */
		for (j = 1; j <= n; j++)
			for (k = 0; k <= i * j; k++)
				cur[j * w + k] = (double)i / (double)(i + j) *
				                     (k >= j ? prev[j * w + k - j] : 0) +
				                 (double)j / (double)(i + j) * cur[(j - 1) * w + k];
		res = prev;
		prev = cur;
		cur = res;
	}
	res = malloc(w * sizeof(double));
	assert_non_null(res);
	memcpy(res, prev + n * w, w * sizeof(double));
	free(prev);
	free(cur);
	return res;
}

static void test_mwu_recurrence(void **state)
{
	static const size_t sizes[][2] = { { 1, 1 },   { 1, 7 },   { 2, 3 },  { 4, 4 },
		                           { 6, 9 },   { 8, 8 },   { 13, 5 }, { 17, 21 },
		                           { 30, 30 }, { 50, 50 }, { 50, 3 } };
	size_t s;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t m = sizes[s][0], n = sizes[s][1], mn = m * n, u, step;
		double *d = ref_dist(m, n), lo = 0;

		/* every u for the small cases, a spread of them for the large ones */
		step = mn > 200 ? mn / 37 : 1;
		for (u = 0; u <= mn; u++) {
			lo += d[u];
			if (u % step && u != mn / 2 - 1)
				continue;
			{
				double hi = 0, want, got;
				size_t k;

				for (k = u; k <= mn; k++)
					hi += d[k];
				want = 2 * (lo < hi ? lo : hi);
				if (want > 1)
					want = 1;
				got = p_of(m, n, u, NULL);
				if (!(fabs(got - want) <= 1e-12 * want + 1e-300))
					fail_msg("m %zu n %zu u %zu: p %.17g, reference %.17g", m,
					         n, u, got, want);
			}
		}
		free(d);
	}
}

/*
 * scipy.stats.mannwhitneyu documentation example: males 19 22 16 29 24,
 * females 20 11 17 12. U1 = 3 + 4 + 2 + 4 + 4 = 17 (pairs with male >
 * female); method "exact" gives p = 0.1111111111111111 (2 * 7 / 126; the 7
 * arrangements with U >= 17 out of C(9, 4) = 126) and "asymptotic"
 * 0.11134688653314041: mu = 10, sigma^2 = 20 / 12 * 10, z = (17 - 10 - 0.5)
 * / 4.0825 = 1.59217, p = 2 (1 - Phi(z)).
 */
static void test_mwu_scipy(void **state)
{
	const double males[] = { 19, 22, 16, 29, 24 };
	const double females[] = { 20, 11, 17, 12 };
	struct gp_mwu r, s;

	(void)state;
	assert_int_equal(gp_mann_whitney(males, 5, females, 4, &r), 0);
	assert_true(r.u_a == 17 && r.u_b == 3);
	assert_true(r.exact && !r.ties);
	assert_true(r.z == 0);
	assert_rel(r.p, 1.0 / 9, 1e-14);
	/* swapped: U's swap, same p */
	assert_int_equal(gp_mann_whitney(females, 4, males, 5, &s), 0);
	assert_true(s.u_a == 3 && s.u_b == 17);
	assert_true(s.p == r.p);
}

static void test_mwu_asymptotic(void **state)
{
	double a[60], b[60];
	struct gp_mwu r, s;
	size_t i;

	(void)state;
	/*
	 * 60 vs 60, no ties: a = 0..59, b = 10.5..69.5. a_i > b_j when
	 * j <= i - 11: U_a = 1 + 2 + ... + 49 = 1225. mu = 1800, sigma^2 = 3600 / 12
	 * * 121 = 36300; z = -(575 - 0.5) / 190.526 = -3.015342996813091,
	 * p = erfc(|z| / sqrt 2) = 0.0025668879435241797 (scipy's formula).
	 */
	for (i = 0; i < 60; i++) {
		a[i] = (double)i;
		b[i] = (double)i + 10.5;
	}
	assert_int_equal(gp_mann_whitney(a, 60, b, 60, &r), 0);
	assert_false(r.exact);
	assert_false(r.ties);
	assert_true(r.u_a == 1225 && r.u_b == 2375);
	assert_near(r.z, -3.015342996813091, 1e-12);
	assert_rel(r.p, 0.0025668879435241797, 1e-10);
	assert_int_equal(gp_mann_whitney(b, 60, a, 60, &s), 0);
	assert_near(s.z, 3.015342996813091, 1e-12);
	assert_true(s.p == r.p);
	/* 51 vs 3 without ties is past the exact limit */
	assert_int_equal(gp_mann_whitney(a, 51, b, 3, &r), 0);
	assert_false(r.exact);
	assert_int_equal(gp_mann_whitney(a, 50, b, 3, &r), 0);
	assert_true(r.exact);
}

static void test_mwu_ties(void **state)
{
	/*
	 * a = 1 2 2 3 3 3, b = 2 3 4 4 5. U_a: the 1 beats nothing; each 2 ties
	 * one b (0.5 each: 1); each 3 beats the b 2 and ties the b 3 (1.5 each:
	 * 4.5): U_a = 5.5, U_b = 30 - 5.5 = 24.5. Tie groups: 2 (3 values), 3 (4),
	 * 4 (2): sum t^3 - t = 24 + 60 + 6 = 90. sigma^2 = 30 / 12 (12 - 90 / 110)
	 * = 27.954545; z = -(9.5 - 0.5) / 5.28721 = -1.7022223637379919,
	 * p = 0.08871369199677624.
	 */
	const double a[] = { 1, 2, 2, 3, 3, 3 };
	const double b[] = { 2, 3, 4, 4, 5 };
	const double c[] = { 7, 7, 7 };
	/* ties within one sample only still rule out the exact test */
	const double d[] = { 1, 1, 2 };
	const double e[] = { 3, 4 };
	struct gp_mwu r;

	(void)state;
	assert_int_equal(gp_mann_whitney(a, 6, b, 5, &r), 0);
	assert_true(r.ties);
	assert_false(r.exact);
	assert_true(r.u_a == 5.5 && r.u_b == 24.5);
	assert_near(r.z, -1.7022223637379919, 1e-12);
	assert_rel(r.p, 0.08871369199677624, 1e-12);
	/* every value equal: no variance; U at its mean, p = 1 */
	assert_int_equal(gp_mann_whitney(c, 3, c, 2, &r), 0);
	assert_true(r.ties && !r.exact);
	assert_true(r.u_a == 3 && r.u_b == 3);
	assert_true(r.p == 1 && r.z == 0);
	assert_int_equal(gp_mann_whitney(d, 3, e, 2, &r), 0);
	assert_true(r.ties && !r.exact);
	assert_true(r.u_a == 0);
}

static void test_mwu_min_p(void **state)
{
	(void)state;
	assert_rel(gp_mann_whitney_min_p(5, 5), 2.0 / 252, 1e-14); /* 0.0079 < 0.01 */
	assert_rel(gp_mann_whitney_min_p(4, 4), 2.0 / 70, 1e-14);  /* 0.029 */
	assert_rel(gp_mann_whitney_min_p(3, 9), 2.0 / 220, 1e-14);
	assert_rel(gp_mann_whitney_min_p(9, 3), 2.0 / 220, 1e-14);
	assert_true(gp_mann_whitney_min_p(1, 1) == 1); /* 2 / 2 */
	assert_rel(gp_mann_whitney_min_p(1, 2), 2.0 / 3, 1e-15);
	assert_true(gp_mann_whitney_min_p(0, 5) == 1);
	assert_true(gp_mann_whitney_min_p(0, 0) == 1);
	assert_true(gp_mann_whitney_min_p(100000, 100000) == 0); /* underflows, no overflow */
	/* 2 / C(100, 50), C(100, 50) = 100891344545564193334812497256 */
	assert_rel(gp_mann_whitney_min_p(50, 50), 2 / 1.00891344545564193334812497256e29, 1e-13);
}

static void test_mwu_errors(void **state)
{
	const double a[] = { 1, 2, 3 };
	const double bad[] = { 1, NAN };
	const double bad_inf[] = { INFINITY, 1 };
	struct gp_mwu r;

	(void)state;
	assert_int_equal(gp_mann_whitney(a, 0, a, 3, &r), GP_EINVAL);
	assert_int_equal(gp_mann_whitney(a, 3, a, 0, &r), GP_EINVAL);
	assert_int_equal(gp_mann_whitney(NULL, 3, a, 3, &r), GP_EINVAL);
	assert_int_equal(gp_mann_whitney(a, 3, bad, 2, &r), GP_EINVAL);
	assert_int_equal(gp_mann_whitney(bad_inf, 2, a, 3, &r), GP_EINVAL);
	assert_int_equal(gp_mann_whitney(a, 3, a, 3, NULL), GP_EINVAL);
}

/* ---- comparison ---- */

static void test_compare_verdicts(void **state)
{
	double base[50], fast[50], slow[50], near[50];
	const double b10[] = { 95, 96, 97, 98, 99, 101, 102, 103, 104, 105 };
	const double n10[] = { 100, 101, 102, 103, 104, 106, 107, 108, 109, 110 };
	struct gp_change c;
	size_t i;

	(void)state;
	for (i = 0; i < 50; i++) {
		base[i] = 100 + 0.1 * (double)i; /* 100 .. 104.9, median 102.45 */
		slow[i] = base[i] * 1.2;
		fast[i] = base[i] * 0.8;
		near[i] = base[i] + 2.05; /* +2 %: significant but small */
	}
	/* fully separated, +20 %: p = 2 / C(100, 50) */
	assert_int_equal(gp_stats_compare(base, 50, slow, 50, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_WORSE);
	assert_int_equal(c.n_base, 50);
	assert_int_equal(c.n_new, 50);
	assert_near(c.base_median, 102.45, 1e-12);
	assert_near(c.new_median, 102.45 * 1.2, 1e-9);
	assert_near(c.delta_pct, 20, 1e-9);
	assert_near(c.ratio, 1.2, 1e-12);
	assert_rel(c.p, gp_mann_whitney_min_p(50, 50), 1e-12);
	assert_true(c.ratio_lo <= c.ratio && c.ratio <= c.ratio_hi);
	assert_true(c.ratio_lo > 1.15 && c.ratio_hi < 1.25);
	/* higher is better (throughput): the same numbers are an improvement */
	assert_int_equal(gp_stats_compare(base, 50, slow, 50, GP_HIGHER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_BETTER);
	assert_int_equal(gp_stats_compare(base, 50, fast, 50, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_BETTER);
	assert_near(c.delta_pct, -20, 1e-9);
	assert_int_equal(gp_stats_compare(base, 50, fast, 50, GP_HIGHER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_WORSE);

	/*
	 * +2.05 on 100..104.9: new_j > base_i when i <= j + 20, U = 2065 of 2500,
	 * z ~ 5.6, p ~ 1e-8: significant, but delta = 2.05 / 102.45 = 2 % < 5 %: SAME
	 */
	assert_int_equal(gp_stats_compare(base, 50, near, 50, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_true(c.p < 1e-6);
	assert_near(c.delta_pct, 100 * 2.05 / 102.45, 1e-9);
	assert_int_equal(c.verdict, GP_VERDICT_SAME);

	/* identical samples: p = 1, delta 0 */
	assert_int_equal(gp_stats_compare(base, 50, base, 50, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_SAME);
	assert_true(c.p == 1 && c.delta_pct == 0 && c.ratio == 1);

	/*
	 * medians 100 and 105: delta exactly 5 % = the threshold (>= counts) but
	 * not significant at 0.01: INCONCLUSIVE. U_base = 1.5 + 2.5 + 3.5 + 4.5 + 5
	 * = 17 (101..104 each tie one new value), ties 101..104: sum t^3 - t = 24,
	 * sigma^2 = 100 / 12 (21 - 24 / 380) = 174.47, z = 32.5 / 13.21 = 2.4605,
	 * p = 0.013875446882842861
	 */
	assert_int_equal(gp_stats_compare(b10, 10, n10, 10, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_true(c.delta_pct == 5);
	assert_rel(c.p, 0.013875446882842861, 1e-12);
	assert_int_equal(c.verdict, GP_VERDICT_INCONCLUSIVE);
}

/*
 * A time and its rate agree: times 5.1 % up are rates 4.85 % down, and the
 * threshold holds in ratio both ways (up to 1.05, down to 1 / 1.05 = 0.9524),
 * so both are verdicts (WORSE). 4.7 % down (ratio 0.953) is under it: SAME.
 */
static void test_compare_reciprocal(void **state)
{
	struct gp_change_opts o = { .size = sizeof(o), .resamples = 200 };
	double tb[20], tn[20], rb[20], rn[20], dn[20];
	struct gp_change ct, cr, cd;

	(void)state;
	for (int i = 0; i < 20; i++) {
		tb[i] = 100 + 0.01 * i;
		tn[i] = tb[i] * 1.051;
		rb[i] = 1 / tb[i];
		rn[i] = 1 / tn[i];
		dn[i] = tb[i] * 0.953;
	}
	assert_int_equal(gp_stats_compare(tb, 20, tn, 20, GP_LOWER_IS_BETTER, &o, &ct), 0);
	assert_int_equal(gp_stats_compare(rb, 20, rn, 20, GP_HIGHER_IS_BETTER, &o, &cr), 0);
	assert_int_equal(ct.verdict, GP_VERDICT_WORSE);
	assert_int_equal(cr.verdict, GP_VERDICT_WORSE);
	assert_true(cr.delta_pct < -4.8 && cr.delta_pct > -4.9);
	assert_int_equal(gp_stats_compare(tb, 20, dn, 20, GP_LOWER_IS_BETTER, &o, &cd), 0);
	assert_int_equal(cd.verdict, GP_VERDICT_SAME);
	for (int i = 0; i < 20; i++)
		dn[i] = tb[i] * 0.952;
	assert_int_equal(gp_stats_compare(tb, 20, dn, 20, GP_LOWER_IS_BETTER, &o, &cd), 0);
	assert_int_equal(cd.verdict, GP_VERDICT_BETTER);
}

static void test_compare_small(void **state)
{
	const double a[] = { 10, 11, 12, 13 };
	const double b[] = { 20, 21, 22, 23 };
	struct gp_change_opts o = { .size = sizeof(o) };
	struct gp_change c;

	(void)state;
	/* 4 per side: below min_samples 5; p not tested */
	assert_int_equal(gp_stats_compare(a, 4, b, 4, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_INCONCLUSIVE);
	assert_true(isnan(c.p));
	assert_near(c.delta_pct, 100 * (21.5 - 11.5) / 11.5, 1e-9);
	/* min_samples 3 is not enough either: min p 2 / 70 = 0.029 >= alpha 0.01 */
	o.min_samples = 3;
	assert_int_equal(gp_stats_compare(a, 4, b, 4, GP_LOWER_IS_BETTER, &o, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_INCONCLUSIVE);
	assert_true(isnan(c.p));
	/* at alpha 0.05 it is: fully separated, p = 2 / 70 */
	o.alpha = 0.05;
	assert_int_equal(gp_stats_compare(a, 4, b, 4, GP_LOWER_IS_BETTER, &o, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_WORSE);
	assert_rel(c.p, 2.0 / 70, 1e-12);
	/* a single value per side: a ratio but no interval */
	o.min_samples = 1;
	assert_int_equal(gp_stats_compare(a, 1, b, 1, GP_LOWER_IS_BETTER, &o, &c), 0);
	assert_true(c.ratio == 2);
	assert_true(isnan(c.ratio_lo) && isnan(c.ratio_hi));
	assert_int_equal(c.verdict, GP_VERDICT_INCONCLUSIVE);
	/* significant, but +87 % is under a threshold of 1000 %: SAME */
	o.min_samples = 3;
	o.threshold = 10;
	assert_int_equal(gp_stats_compare(a, 4, b, 4, GP_LOWER_IS_BETTER, &o, &c), 0);
	assert_true(c.p < 0.05);
	assert_int_equal(c.verdict, GP_VERDICT_SAME);
}

static void test_compare_interval(void **state)
{
	enum { N = 40 };
	double a[N], b[N];
	struct gp_change_opts o = { .size = sizeof(o) };
	struct gp_change c, d;

	(void)state;
	normal_sample(a, N, 100, 3, 11);
	normal_sample(b, N, 110, 3, 12);
	assert_int_equal(gp_stats_compare(a, N, b, N, GP_LOWER_IS_BETTER, NULL, &c), 0);
	assert_int_equal(c.verdict, GP_VERDICT_WORSE);
	assert_true(c.p < 1e-10);
	assert_true(c.ratio_lo < c.ratio && c.ratio < c.ratio_hi);
	assert_true(c.ratio_lo > 1.05 && c.ratio_hi < 1.15);
	/* reproducible, and seeded */
	assert_int_equal(gp_stats_compare(a, N, b, N, GP_LOWER_IS_BETTER, NULL, &d), 0);
	assert_memory_equal(&c, &d, sizeof(c));
	o.seed = 99;
	assert_int_equal(gp_stats_compare(a, N, b, N, GP_LOWER_IS_BETTER, &o, &d), 0);
	assert_true(d.ratio_lo != c.ratio_lo || d.ratio_hi != c.ratio_hi);
	assert_near(d.ratio_lo, c.ratio_lo, 0.01);
	assert_near(d.ratio_hi, c.ratio_hi, 0.01);
	assert_true(d.p == c.p && d.verdict == c.verdict);
	/* a narrower confidence, a narrower interval */
	o.seed = 0;
	o.confidence = 0.5;
	assert_int_equal(gp_stats_compare(a, N, b, N, GP_LOWER_IS_BETTER, &o, &d), 0);
	assert_true(d.ratio_lo > c.ratio_lo && d.ratio_hi < c.ratio_hi);
}

static void test_compare_errors(void **state)
{
	const double a[] = { 1, 2, 3, 4, 5 };
	const double z[] = { -1, 0, 0, 0, 1 };
	const double bad[] = { 1, 2, NAN, 4, 5 };
	struct gp_change_opts o = { .size = sizeof(o) };
	struct gp_change c;

	(void)state;
	assert_int_equal(gp_stats_compare(a, 0, a, 5, GP_LOWER_IS_BETTER, NULL, &c), GP_EINVAL);
	assert_int_equal(gp_stats_compare(a, 5, a, 0, GP_LOWER_IS_BETTER, NULL, &c), GP_EINVAL);
	assert_int_equal(gp_stats_compare(NULL, 5, a, 5, GP_LOWER_IS_BETTER, NULL, &c), GP_EINVAL);
	assert_int_equal(gp_stats_compare(a, 5, bad, 5, GP_LOWER_IS_BETTER, NULL, &c), GP_EINVAL);
	assert_int_equal(gp_stats_compare(z, 5, a, 5, GP_LOWER_IS_BETTER, NULL, &c), GP_EINVAL);
	assert_int_equal(gp_stats_compare(a, 5, a, 5, (enum gp_better)7, NULL, &c), GP_EINVAL);
	assert_int_equal(gp_stats_compare(a, 5, a, 5, GP_LOWER_IS_BETTER, NULL, NULL), GP_EINVAL);
	o.alpha = 1.5;
	assert_int_equal(gp_stats_compare(a, 5, a, 5, GP_LOWER_IS_BETTER, &o, &c), GP_EINVAL);
	o.alpha = 0;
	o.threshold = -0.1;
	assert_int_equal(gp_stats_compare(a, 5, a, 5, GP_LOWER_IS_BETTER, &o, &c), GP_EINVAL);
	o.threshold = INFINITY;
	assert_int_equal(gp_stats_compare(a, 5, a, 5, GP_LOWER_IS_BETTER, &o, &c), GP_EINVAL);
	o.threshold = 0;
	o.confidence = 2;
	assert_int_equal(gp_stats_compare(a, 5, a, 5, GP_LOWER_IS_BETTER, &o, &c), GP_EINVAL);
	/* a negative base median is allowed: delta is relative to its magnitude */
	{
		const double neg[] = { -10, -10, -10, -10, -10 };
		const double neg2[] = { -9, -9, -9, -9, -9 };

		assert_int_equal(gp_stats_compare(neg, 5, neg2, 5, GP_LOWER_IS_BETTER, NULL, &c),
		                 0);
		assert_near(c.delta_pct, 10, 1e-12); /* -9 is up from -10 */
		assert_int_equal(c.verdict, GP_VERDICT_WORSE);
	}
}

static void test_verdict_name(void **state)
{
	(void)state;
	assert_string_equal(gp_verdict_name(GP_VERDICT_SAME), "same");
	assert_string_equal(gp_verdict_name(GP_VERDICT_BETTER), "better");
	assert_string_equal(gp_verdict_name(GP_VERDICT_WORSE), "worse");
	assert_string_equal(gp_verdict_name(GP_VERDICT_INCONCLUSIVE), "inconclusive");
	assert_string_equal(gp_verdict_name((enum gp_verdict)42), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile_r7),      cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_small),    cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_bootstrap_pinned), cmocka_unit_test(test_bootstrap_large),
		cmocka_unit_test(test_summary_errors),   cmocka_unit_test(test_enomem),
		cmocka_unit_test(test_outliers),         cmocka_unit_test(test_outliers_mad0),
		cmocka_unit_test(test_outliers_errors),  cmocka_unit_test(test_mwu_critical),
		cmocka_unit_test(test_mwu_recurrence),   cmocka_unit_test(test_mwu_scipy),
		cmocka_unit_test(test_mwu_asymptotic),   cmocka_unit_test(test_mwu_ties),
		cmocka_unit_test(test_mwu_min_p),        cmocka_unit_test(test_mwu_errors),
		cmocka_unit_test(test_compare_verdicts), cmocka_unit_test(test_compare_small),
		cmocka_unit_test(test_compare_interval), cmocka_unit_test(test_compare_errors),
		cmocka_unit_test(test_verdict_name),     cmocka_unit_test(test_compare_reciprocal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
