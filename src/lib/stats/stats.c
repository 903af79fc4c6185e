/* SPDX-License-Identifier: MIT */
/*
 * stats.c - summaries of a sample, seeded bootstrap intervals, robust
 * outliers and the regression verdict of two samples (stats.h); the
 * Mann-Whitney U test is in mwu.c. Used by bench and `gpuprof compare`.
 *
 * Every result is a function of the sorted sample and the seed only: sums
 * run over the sorted values and the bootstrap draws indices into them, so
 * the order of the iterations does not matter and the same inputs give the
 * same numbers on every machine. The bootstrap's randomness is integer-only
 * (splitmix64 seeding xoshiro256**, Lemire's unbiased bounded draws); no
 * libc rand() and no floating-point uniform is involved.
 * docs/analyses/statistics.md has the definitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/stats.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/sort.h"

#define DEFAULT_RESAMPLES  10000
#define DEFAULT_CONFIDENCE 0.95
#define DEFAULT_ALPHA      0.01
#define DEFAULT_THRESHOLD  0.05
#define DEFAULT_MIN        5

/*
 * A resample costs one draw per value, so resamples * n is capped at
 * BOOT_BUDGET draws (n = 1000 keeps its 10000 resamples) but never below
 * BOOT_MIN resamples, enough for a 95 % percentile interval.
 */
#define BOOT_BUDGET 2e7
#define BOOT_MIN    1000

/* ---- the generator: splitmix64 seeding xoshiro256** (Blackman and Vigna) ---- */

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

static void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t x = seed ? seed : GP_STATS_DEFAULT_SEED;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/*
 * One xoshiro256** step on the state held in locals s0..s3. A macro, so
 * that the hot loop below keeps the state in registers even in -O0
 * sanitizer builds (where nothing is inlined).
 */
#define ROTL(x, k) (((x) << (k)) | ((x) >> (64 - (k))))
#define XOSHIRO_NEXT(out)                                                                          \
	do {                                                                                       \
		uint64_t t_ = s1 << 17;                                                            \
		(out) = ROTL(s1 * 5, 7) * 9;                                                       \
		s2 ^= s0;                                                                          \
		s3 ^= s1;                                                                          \
		s1 ^= s2;                                                                          \
		s0 ^= s3;                                                                          \
		s2 ^= t_;                                                                          \
		s3 = ROTL(s3, 45);                                                                 \
	} while (0)

/*
 * Draws n indices uniformly from [0, n) with replacement and counts them in
 * @p cnt (n entries, zeroed here); returns the sum of the drawn values of
 * @p v. Each 64-bit output gives two 32-bit words, high half first; a word
 * x maps to the index (x n) >> 32, rejected when its low 32 bits fall below
 * 2^32 mod n, which removes the modulo bias (Lemire, "Fast random integer
 * generation in an interval", 2019). Past 2^32 values, 64-bit words with a
 * mask and rejection.
 */
static double draw_counts(struct rng *r, const double *v, size_t n, size_t *cnt)
{
	uint64_t s0 = r->s[0], s1 = r->s[1], s2 = r->s[2], s3 = r->s[3], w = 0;
	double sum = 0;
	size_t i = 0, j;

	memset(cnt, 0, n * sizeof(*cnt));
	if (n <= UINT32_MAX) {
		uint32_t bound = (uint32_t)n, reject = (0u - bound) % bound;
		int have = 0;

		while (i < n) {
			uint64_t m;

			if (!have) {
				XOSHIRO_NEXT(w);
				have = 2;
			}
			m = (uint64_t)(uint32_t)(have == 2 ? w >> 32 : w) * bound;
			have--;
			if ((uint32_t)m < reject)
				continue;
			j = (size_t)(m >> 32);
			cnt[j]++;
			sum += v[j];
			i++;
		}
	} else {
		uint64_t mask = (uint64_t)n - 1;

		mask |= mask >> 1;
		mask |= mask >> 2;
		mask |= mask >> 4;
		mask |= mask >> 8;
		mask |= mask >> 16;
		mask |= mask >> 32;
		while (i < n) {
			XOSHIRO_NEXT(w);
			w &= mask;
			if (w >= (uint64_t)n)
				continue;
			cnt[w]++;
			sum += v[w];
			i++;
		}
	}
	r->s[0] = s0;
	r->s[1] = s1;
	r->s[2] = s2;
	r->s[3] = s3;
	return sum;
}

/* ---- quantiles ---- */

static inline double lerp(double a, double b, double t)
{
	return t == 0 ? a : a + t * (b - a);
}

double gp_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, frac;
	size_t lo;

	if (!n || !sorted || isnan(q))
		return NAN;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * q;
	lo = (size_t)floor(h);
	if (lo + 1 >= n)
		return sorted[n - 1];
	frac = h - (double)lo;
	return lerp(sorted[lo], sorted[lo + 1], frac);
}

/* GP_EINVAL unless @p x holds n >= 1 finite values */
static int check_sample(const double *x, size_t n, const char *what)
{
	size_t i;

	if (!n)
		return gp__error(GP_EINVAL, "%s: empty sample", what);
	if (!x)
		return gp__error(GP_EINVAL, "%s: no values", what);
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return gp__error(GP_EINVAL, "%s: value %zu is not finite", what, i);
	return 0;
}

/* a sorted copy of x, or NULL (GP_ENOMEM set) */
static double *sorted_copy(const double *x, size_t n)
{
	double *v = gp__reallocarray(NULL, n, sizeof(*v));

	if (!v) {
		gp__error(GP_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), gp__cmp_double);
	return v;
}

/* ---- the bootstrap ---- */

static uint32_t boot_count(uint32_t want, size_t n)
{
	double cap = BOOT_BUDGET / (double)n;

	if (cap < BOOT_MIN)
		cap = BOOT_MIN;
	return (double)want <= cap ? want : (uint32_t)cap;
}

/*
 * Draws one resample of the sorted @p v (n values with replacement, @p cnt
 * n entries of scratch) and returns its R-7 median, found by walking the
 * counts (no sort); *sum gets the sum of its values.
 */
static double resample(struct rng *r, const double *v, size_t n, size_t *cnt, double *sum)
{
	size_t i, k1 = (n - 1) / 2, k2 = n / 2, cum = 0;
	double a;

	*sum = draw_counts(r, v, n, cnt);
	/* order statistic k: the first i whose cumulative count exceeds k */
	for (i = 0; cum + cnt[i] <= k1; i++)
		cum += cnt[i];
	a = v[i];
	if (k2 == k1)
		return a;
	for (; cum + cnt[i] <= k2; i++)
		cum += cnt[i];
	return lerp(a, v[i], 0.5);
}

/* the percentile interval of @p b (sorted here) at confidence @p conf */
static void interval(double *b, size_t nb, double conf, double *lo, double *hi)
{
	qsort(b, nb, sizeof(*b), gp__cmp_double);
	*lo = gp_quantile_sorted(b, nb, (1 - conf) / 2);
	*hi = gp_quantile_sorted(b, nb, (1 + conf) / 2);
}

static int check_conf(double c)
{
	if (!(c > 0 && c < 1))
		return gp__error(GP_EINVAL, "confidence %g is not in (0, 1)", c);
	return 0;
}

/* ---- summaries ---- */

int gp_stats_compute(const double *x, size_t n, const struct gp_stats_opts *opts,
                     struct gp_stats *out)
{
	struct gp_stats_opts o;
	struct gp_stats s;
	struct rng r;
	double *v = NULL, *dev = NULL, *bmean = NULL, *bmed = NULL;
	size_t *cnt = NULL;
	double sum = 0, ss = 0;
	uint32_t nboot, k;
	size_t i;
	int rc = 0;

	if (!out)
		return gp__error(GP_EINVAL, "stats: no output");
	GP_TRY(GP__OPTS_VALID(opts, struct gp_stats_opts));
	memset(&o, 0, sizeof(o));
	o.resamples = GP__OPTS_GET(opts, resamples, 0);
	o.seed = GP__OPTS_GET(opts, seed, 0);
	o.confidence = GP__OPTS_GET(opts, confidence, 0);
	if (!o.resamples)
		o.resamples = DEFAULT_RESAMPLES;
	if (o.confidence == 0)
		o.confidence = DEFAULT_CONFIDENCE;
	GP_TRY(check_conf(o.confidence));
	GP_TRY(check_sample(x, n, "stats"));

	memset(&s, 0, sizeof(s));
	v = sorted_copy(x, n);
	if (!v)
		GP_TRY(GP_ENOMEM);
	for (i = 0; i < n; i++)
		sum += v[i];
	if (!isfinite(sum))
		GP_TRY(gp__error(GP_EINVAL, "stats: the sum overflows a double"));
	s.n = n;
	s.mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - s.mean) * (v[i] - s.mean);
	s.std = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	s.min = v[0];
	s.max = v[n - 1];
	s.p25 = gp_quantile_sorted(v, n, 0.25);
	s.p50 = gp_quantile_sorted(v, n, 0.50);
	s.p75 = gp_quantile_sorted(v, n, 0.75);
	s.p90 = gp_quantile_sorted(v, n, 0.90);
	s.p95 = gp_quantile_sorted(v, n, 0.95);
	s.p99 = gp_quantile_sorted(v, n, 0.99);
	s.median = s.p50;
	s.cv = s.mean != 0 ? s.std / s.mean : NAN;

	dev = gp__reallocarray(NULL, n, sizeof(*dev));
	if (!dev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < n; i++)
		dev[i] = fabs(v[i] - s.median);
	qsort(dev, n, sizeof(*dev), gp__cmp_double);
	s.mad = gp_quantile_sorted(dev, n, 0.5);

	s.mean_lo = s.mean_hi = s.median_lo = s.median_hi = NAN;
	if (n >= 2) {
		nboot = boot_count(o.resamples, n);
		bmean = gp__reallocarray(NULL, nboot, sizeof(*bmean));
		bmed = gp__reallocarray(NULL, nboot, sizeof(*bmed));
		cnt = gp__reallocarray(NULL, n, sizeof(*cnt));
		if (!bmean || !bmed || !cnt)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		rng_seed(&r, o.seed);
		for (k = 0; k < nboot; k++) {
			double rs;

			bmed[k] = resample(&r, v, n, cnt, &rs);
			bmean[k] = rs / (double)n;
		}
		interval(bmean, nboot, o.confidence, &s.mean_lo, &s.mean_hi);
		interval(bmed, nboot, o.confidence, &s.median_lo, &s.median_hi);
	}
	*out = s;
out:
	gp__free(cnt);
	gp__free(bmed);
	gp__free(bmean);
	gp__free(dev);
	gp__free(v);
	return rc;
}

/* ---- outliers ---- */

long gp_stats_outliers(const double *x, size_t n, double threshold, bool *flags)
{
	double *v = NULL, med, mad, sum = 0;
	long count = 0;
	size_t i;
	int rc;

	if (isnan(threshold) || threshold < 0)
		return gp__error(GP_EINVAL, "outliers: threshold %g is not >= 0", threshold);
	if (threshold == 0)
		threshold = GP_OUTLIER_Z;
	rc = check_sample(x, n, "outliers");
	if (rc < 0)
		return rc;
	v = sorted_copy(x, n);
	if (!v)
		return GP_ENOMEM;
	med = gp_quantile_sorted(v, n, 0.5);
	for (i = 0; i < n; i++)
		v[i] = fabs(x[i] - med);
	qsort(v, n, sizeof(*v), gp__cmp_double);
	mad = gp_quantile_sorted(v, n, 0.5);
	for (i = 0; i < n; i++) /* in sorted order: independent of the order of x */
		sum += v[i];
	gp__free(v);
	/* more than half the values equal the median: the IBM SPSS stand-in (stats.h) */
	if (mad == 0)
		mad = 1.253314 * (sum / (double)n);
	for (i = 0; i < n; i++) {
		bool o = mad > 0 && fabs((x[i] - med) / mad) > threshold;

		if (flags)
			flags[i] = o;
		count += o;
	}
	return count;
}

/* ---- comparison ---- */

static int change_opts(const struct gp_change_opts *opts, struct gp_change_opts *o)
{
	int rc = GP__OPTS_VALID(opts, struct gp_change_opts);

	if (rc)
		return rc;
	memset(o, 0, sizeof(*o));
	GP__OPTS_COPY(o, opts);
	if (!o->resamples)
		o->resamples = DEFAULT_RESAMPLES;
	if (o->alpha == 0)
		o->alpha = DEFAULT_ALPHA;
	if (o->threshold == 0)
		o->threshold = DEFAULT_THRESHOLD;
	if (o->confidence == 0)
		o->confidence = DEFAULT_CONFIDENCE;
	if (!o->min_samples)
		o->min_samples = DEFAULT_MIN;
	if (!(o->alpha > 0 && o->alpha < 1))
		return gp__error(GP_EINVAL, "compare: alpha %g is not in (0, 1)", o->alpha);
	if (!(o->threshold > 0 && isfinite(o->threshold)))
		return gp__error(GP_EINVAL, "compare: threshold %g is not positive", o->threshold);
	return check_conf(o->confidence);
}

/* the bootstrap interval of median(new*) / median(base*), each side resampled on its own */
static int ratio_interval(const double *vb, size_t nb, const double *vn, size_t nn,
                          const struct gp_change_opts *o, struct gp_change *c)
{
	double *b = NULL;
	size_t *cnt = NULL;
	struct rng r;
	uint32_t nboot = boot_count(o->resamples, nb + nn), k;
	int rc = 0;

	c->ratio_lo = c->ratio_hi = NAN;
	if (nb < 2 || nn < 2)
		return 0;
	b = gp__reallocarray(NULL, nboot, sizeof(*b));
	cnt = gp__reallocarray(NULL, nb > nn ? nb : nn, sizeof(*cnt));
	if (!b || !cnt)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	rng_seed(&r, o->seed);
	for (k = 0; k < nboot; k++) {
		double sum, mb, mn;

		mb = resample(&r, vb, nb, cnt, &sum);
		mn = resample(&r, vn, nn, cnt, &sum);

		if (mb == 0) /* no ratio: leave the interval unknown */
			goto out;
		b[k] = mn / mb;
	}
	interval(b, nboot, o->confidence, &c->ratio_lo, &c->ratio_hi);
out:
	gp__free(cnt);
	gp__free(b);
	return rc;
}

int gp_stats_compare(const double *base, size_t nb, const double *new_, size_t nn,
                     enum gp_better better, const struct gp_change_opts *opts,
                     struct gp_change *out)
{
	struct gp_change_opts o;
	struct gp_change c;
	struct gp_mwu u;
	double *vb = NULL, *vn = NULL, rel;
	int rc = 0;

	if (!out)
		return gp__error(GP_EINVAL, "compare: no output");
	if (better != GP_LOWER_IS_BETTER && better != GP_HIGHER_IS_BETTER)
		return gp__error(GP_EINVAL, "compare: bad direction %d", (int)better);
	GP_TRY(change_opts(opts, &o));
	GP_TRY(check_sample(base, nb, "compare: base"));
	GP_TRY(check_sample(new_, nn, "compare: new"));

	memset(&c, 0, sizeof(c));
	vb = sorted_copy(base, nb);
	vn = vb ? sorted_copy(new_, nn) : NULL;
	if (!vn)
		GP_TRY(GP_ENOMEM);
	c.n_base = nb;
	c.n_new = nn;
	c.base_median = gp_quantile_sorted(vb, nb, 0.5);
	c.new_median = gp_quantile_sorted(vn, nn, 0.5);
	if (c.base_median == 0)
		GP_TRY(gp__error(GP_EINVAL, "compare: the base median is 0"));
	/* |base| so that the sign of delta is the direction of the change (Google Benchmark) */
	rel = (c.new_median - c.base_median) / fabs(c.base_median);
	c.delta_pct = 100 * rel;
	c.ratio = c.new_median / c.base_median;
	GP_TRY(ratio_interval(vb, nb, vn, nn, &o, &c));

	c.p = NAN;
	if (nb < o.min_samples || nn < o.min_samples || gp_mann_whitney_min_p(nb, nn) >= o.alpha) {
		c.verdict = GP_VERDICT_INCONCLUSIVE;
	} else {
		/* symmetric in ratio (asv's factor): up by thr, or down to 1 / (1 + thr), so
		 * that a time and its reciprocal, a rate, pass the threshold together */
		bool big = rel >= o.threshold || (c.base_median > 0 && c.new_median >= 0
		                                      ? c.ratio <= 1 / (1 + o.threshold)
		                                      : rel <= -o.threshold);

		GP_TRY(gp_mann_whitney(vb, nb, vn, nn, &u));
		c.p = u.p;
		if (big && u.p < o.alpha)
			c.verdict = (rel > 0) == (better == GP_LOWER_IS_BETTER) ? GP_VERDICT_WORSE
			                                                        : GP_VERDICT_BETTER;
		else if (big)
			c.verdict = GP_VERDICT_INCONCLUSIVE;
		else
			c.verdict = GP_VERDICT_SAME;
	}
	*out = c;
out:
	gp__free(vn);
	gp__free(vb);
	return rc;
}

const char *gp_verdict_name(enum gp_verdict v)
{
	switch (v) {
	case GP_VERDICT_SAME:
		return "same";
	case GP_VERDICT_BETTER:
		return "better";
	case GP_VERDICT_WORSE:
		return "worse";
	case GP_VERDICT_INCONCLUSIVE:
		return "inconclusive";
	}
	return "unknown";
}
