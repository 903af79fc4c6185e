/* SPDX-License-Identifier: MIT */
/*
 * test_stats_sim.c - a seeded simulation of gp_stats_compare(), the
 * regression verdict of `gpuprof compare`: its false-positive rate when
 * nothing changed, its power against a 10 % slowdown, its direction on a
 * speedup, and its refusal to decide on 4 samples per side.
 *
 * "Iteration times" come from a private generator (splitmix64 seeding
 * xoshiro256**, Box-Muller for normals, inversion for exponentials), so the
 * counts are the same on every run and machine; the bounds asserted below
 * are the statistical ones, so a different seed would pass as well (with
 * the stated probability).
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "gpuprof/stats.h"

#define ALPHA 0.01

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

static void seed(struct rng *r, uint64_t x)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* uniform in (0, 1): never 0, so log() is safe */
static double unif(struct rng *r)
{
	return ((double)(next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(struct rng *r)
{
	return sqrt(-2 * log(unif(r))) * cos(2 * M_PI * unif(r));
}

/* iteration-time models, around 10 ms */
enum dist {
	NORMAL4,   /* 10 (1 + 0.04 Z): 4 % noise */
	LOGNORMAL, /* 10 exp(0.05 Z): 5 % multiplicative noise */
	SKEWED,    /* 9.5 + 0.5 Exp(1): a floor plus exponential jitter, sd 5 % */
	NOISY,     /* 10 exp(0.25 Z): 25 % noise, so |delta| >= 5 % happens by chance */
};

static const char *const dist_name[] = { "normal 4%", "lognormal 5%", "skewed", "noisy 25%" };

static double draw(struct rng *r, enum dist d)
{
	switch (d) {
	case NORMAL4:
		return 10 * (1 + 0.04 * normal(r));
	case LOGNORMAL:
		return 10 * exp(0.05 * normal(r));
	case SKEWED:
		return 9.5 - 0.5 * log(unif(r));
	case NOISY:
		return 10 * exp(0.25 * normal(r));
	}
	return 0;
}

struct tally {
	int trials;
	int v[4];     /* by verdict */
	int sig;      /* p < alpha, whatever delta was */
	int covered;  /* the ratio's interval holds the true ratio */
	int untested; /* p is NaN */
};

/*
 * @p trials comparisons of n base draws with n new draws times @p factor
 * (1: nothing changed; 1.1: 10 % slower), @p resamples for the ratio's
 * interval (the verdict does not depend on it: the verdict runs use few).
 */
static void simulate(enum dist d, size_t n, double factor, int trials, uint32_t resamples,
                     uint64_t s, struct tally *t)
{
	struct gp_change_opts o = { .size = sizeof(o), .resamples = resamples };
	double base[64], new_[64];
	struct gp_change c;
	struct rng r;
	size_t i;
	int k;

	assert_true(n <= 64);
	memset(t, 0, sizeof(*t));
	t->trials = trials;
	seed(&r, s);
	for (k = 0; k < trials; k++) {
		for (i = 0; i < n; i++)
			base[i] = draw(&r, d);
		for (i = 0; i < n; i++)
			new_[i] = factor * draw(&r, d);
		o.seed = (uint64_t)k + 1;
		assert_int_equal(gp_stats_compare(base, n, new_, n, GP_LOWER_IS_BETTER, &o, &c), 0);
		assert_true(c.verdict >= GP_VERDICT_SAME && c.verdict <= GP_VERDICT_INCONCLUSIVE);
		t->v[c.verdict]++;
		if (isnan(c.p))
			t->untested++;
		else if (c.p < ALPHA)
			t->sig++;
		if (c.ratio_lo <= factor && factor <= c.ratio_hi)
			t->covered++;
	}
	print_message("%-13s n %2zu x%.2f: worse %4d better %4d same %4d inconclusive %4d"
	              " | p<%.2f %4d | CI (%u resamples) covers %.1f %%\n",
	              dist_name[d], n, factor, t->v[GP_VERDICT_WORSE], t->v[GP_VERDICT_BETTER],
	              t->v[GP_VERDICT_SAME], t->v[GP_VERDICT_INCONCLUSIVE], ALPHA, t->sig,
	              (unsigned)resamples, 100.0 * t->covered / t->trials);
}

/*
 * (1) No change: WORSE at most alpha of the time. With T trials the count
 * of p < alpha is Binomial(T, a) with a <= alpha (the exact test is
 * conservative); WORSE needs that and more, so
 *   count <= alpha T + 3 sqrt(alpha (1 - alpha) T)
 * (2000 trials: 20 + 3 * 4.45 = 33.3; 1000 trials: 10 + 3 * 3.15 = 19.4)
 * fails with probability about 0.2 % for a correct test (normal
 * approximation; 3 sigma). The p < alpha count must also stay above
 * alpha T - 3 sigma (6.7 for 2000) for these continuous, tie-free models: a
 * test that never rejects would pass the first bound. At 4-5 % noise a
 * chance |delta| >= 5 % is itself rare, so WORSE is almost never seen; the
 * 25 % noise model is the one where the p-value gate does the work.
 */
static void test_null(void **state)
{
	static const struct {
		enum dist d;
		int trials;
	} runs[] = { { NORMAL4, 2000 }, { SKEWED, 2000 }, { NOISY, 1000 } };
	struct tally t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const int trials = runs[i].trials;
		const double sd = sqrt(ALPHA * (1 - ALPHA) * trials);
		const double hi = ALPHA * trials + 3 * sd, lo = ALPHA * trials - 3 * sd;

		simulate(runs[i].d, 30, 1.0, trials, 20, 1000 + i, &t);
		assert_true(t.v[GP_VERDICT_WORSE] <= hi);
		assert_true(t.v[GP_VERDICT_BETTER] <= hi);
		assert_true(t.sig <= hi);
		assert_true(t.sig >= lo);
		assert_int_equal(t.untested, 0);
	}
}

/*
 * (2) A true 10 % slowdown, 30 samples per side: WORSE in at least 95 % of
 * trials. (The medians' difference has a standard error near 1.3 % at 4 %
 * noise, so |delta| >= 5 % fails about 3.8 sigma out; the U test's power at
 * an effect of 2.5 sd is essentially 1.) A 10 % slowdown is never BETTER.
 */
static void test_slowdown(void **state)
{
	static const enum dist ds[] = { NORMAL4, LOGNORMAL, SKEWED };
	const int trials = 1000;
	struct tally t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		simulate(ds[i], 30, 1.10, trials, 20, 2000 + i, &t);
		assert_true(t.v[GP_VERDICT_WORSE] >= 0.95 * trials);
		assert_int_equal(t.v[GP_VERDICT_BETTER], 0);
	}
}

/* (3) A 10 % speedup (times x 0.9): BETTER, never WORSE. */
static void test_speedup(void **state)
{
	static const enum dist ds[] = { NORMAL4, LOGNORMAL, SKEWED };
	const int trials = 1000;
	struct tally t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		simulate(ds[i], 30, 0.90, trials, 20, 3000 + i, &t);
		assert_true(t.v[GP_VERDICT_BETTER] >= 0.95 * trials);
		assert_int_equal(t.v[GP_VERDICT_WORSE], 0);
	}
}

/*
 * (4) 4 samples per side: below min_samples (5), and 2 / C(8, 4) = 0.029 is
 * above alpha anyway: always INCONCLUSIVE and untested, even for a 30 %
 * slowdown that every sample shows.
 */
static void test_few(void **state)
{
	static const double factors[] = { 1.0, 1.1, 1.3 };
	const int trials = 100;
	struct tally t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(factors) / sizeof(factors[0]); i++) {
		simulate(NORMAL4, 4, factors[i], trials, 20, 4000 + i, &t);
		assert_int_equal(t.v[GP_VERDICT_INCONCLUSIVE], trials);
		assert_int_equal(t.untested, trials);
	}
}

/*
 * The ratio's 95 % bootstrap interval (200 resamples) holds the true ratio
 * of medians (1.1: every draw is scaled) in about 95 % of 300 trials; the
 * percentile bootstrap of a median at n = 30 is a little off, so the bound
 * is 90 %: 4 binomial sigmas (sqrt(0.95 * 0.05 / 300) = 1.26 %) below 95 %.
 */
static void test_coverage(void **state)
{
	static const enum dist ds[] = { NORMAL4, SKEWED };
	const int trials = 300;
	struct tally t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		simulate(ds[i], 30, 1.10, trials, 200, 5000 + i, &t);
		assert_true(t.covered >= 0.90 * trials);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),     cmocka_unit_test(test_slowdown),
		cmocka_unit_test(test_speedup),  cmocka_unit_test(test_few),
		cmocka_unit_test(test_coverage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
