/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics behind `gpuprof bench` and `gpuprof compare`:
 * summaries of a sample (quantiles by one documented rule, robust spread,
 * seeded bootstrap intervals), the Mann-Whitney U test, robust outliers, and
 * the regression verdict of two samples. Definitions: docs/analyses/statistics.md.
 *
 * Everything here is a pure function of its inputs (and of a seed): the same
 * samples and seed give the same numbers on every machine, and the order of
 * the values within a sample does not matter. Inputs are not modified; NaN
 * or infinite samples are rejected with GP_EINVAL. Thread-safe (no state).
 */
#ifndef GPUPROF_STATS_H
#define GPUPROF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The q-quantile (0 <= q <= 1) of @p n sorted values by Hyndman and Fan's
 * definition 7 (R's default, numpy's "linear"): h = (n - 1) q, the value at
 * floor(h) plus (h - floor(h)) times the step to the next. NaN when n is 0
 * or q is NaN; q below 0 or above 1 gives the minimum or the maximum.
 */
GP_API double gp_quantile_sorted(const double *sorted, size_t n, double q);

/** The bootstrap seed used when an options struct says 0 ("gpuprof!" in ASCII). */
#define GP_STATS_DEFAULT_SEED UINT64_C(0x67707570726f6621)

/**
 * Options of gp_stats_compute(); zero-initialise, then set size. A resample
 * costs one draw per value, so at most max(1000, 2e7 / n) resamples are
 * drawn (n = 1000 keeps the default 10000; n = 10000 gets 2000).
 */
struct gp_stats_opts {
	uint32_t size;      /**< sizeof(struct gp_stats_opts) */
	uint32_t resamples; /**< bootstrap resamples; 0: 10000 */
	uint64_t seed;      /**< bootstrap seed; 0: GP_STATS_DEFAULT_SEED (still reproducible) */
	double confidence;  /**< of the intervals, in (0, 1); 0: 0.95 */
};

/** A summary of one sample. Intervals are NaN when n < 2. */
struct gp_stats {
	size_t n;
	double mean;
	double std;    /**< sample standard deviation (n - 1); 0 when n < 2 */
	double median; /**< = p50 */
	double mad;    /**< median absolute deviation from the median, unscaled */
	double min, max;
	double p25, p50, p75, p90, p95, p99; /**< gp_quantile_sorted() */
	double cv;                           /**< std / mean; NaN when mean is 0 */
	/** Bootstrap percentile intervals (resampling with replacement, seeded). */
	double mean_lo, mean_hi;
	double median_lo, median_hi;
};

/**
 * Summarises @p n values (n >= 1); @p opts may be NULL (defaults).
 * @return 0, GP_EINVAL (n = 0, NaN/inf, a sum that overflows, a confidence
 * outside (0, 1)) or GP_ENOMEM; *out is written on success only.
 */
GP_API int gp_stats_compute(const double *x, size_t n, const struct gp_stats_opts *opts,
                            struct gp_stats *out);

/** The result of a two-sided Mann-Whitney U test of samples a and b. */
struct gp_mwu {
	double u_a; /**< U of a: pairs (a_i, b_j) with a_i > b_j, ties counting 1/2 */
	double u_b; /**< na nb - u_a */
	double z;   /**< the normal approximation's z, > 0 when a tends larger (0 when exact) */
	double p;   /**< two-sided p-value */
	bool exact; /**< p from the exact distribution of U (no ties, na and nb <= 50) */
	bool ties;  /**< ties were present (normal approximation with tie correction) */
};

/**
 * Two-sided Mann-Whitney U (Wilcoxon rank-sum) test. Exact p when there are no
 * ties (no two equal values in the pooled sample) and both samples have at
 * most 50 values; otherwise the normal
 * approximation with the tie-corrected variance and a continuity correction
 * of 0.5 (scipy.stats.mannwhitneyu, method "asymptotic"). p is capped at 1.
 * @return 0, GP_EINVAL (an empty sample, NaN/inf) or GP_ENOMEM.
 */
GP_API int gp_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                           struct gp_mwu *out);

/**
 * The smallest two-sided p-value that samples of sizes na and nb can reach
 * (2 / C(na + nb, na), capped at 1): below alpha a significant result is possible.
 * E.g. 0.0079 for 5 and 5, 0.029 for 4 and 4.
 */
GP_API double gp_mann_whitney_min_p(size_t na, size_t nb);

#define GP_OUTLIER_Z 14.826 /**< hyperfine's threshold (Iglewicz-Hoaglin, 10 sigma) */

/**
 * Robust outliers as hyperfine finds them: the modified z-score
 * (x - median) / MAD above @p threshold in absolute value (GP_OUTLIER_Z when
 * 0). When MAD is 0, 1.253314 times the mean absolute deviation from the
 * median stands in for it (IBM SPSS's modified z-score); when that is 0 too,
 * there are none. @p flags (n bools, may be NULL) marks them. @return the
 * number of outliers, or GP_EINVAL (n = 0, NaN/inf, a negative or NaN
 * threshold) or GP_ENOMEM.
 */
GP_API long gp_stats_outliers(const double *x, size_t n, double threshold, bool *flags);

/** Which way is better for a metric. */
enum gp_better {
	GP_LOWER_IS_BETTER = 0, /**< times, latency, memory */
	GP_HIGHER_IS_BETTER = 1 /**< throughput, FPS, utilisation */
};

/** The verdict of a comparison of two samples. */
enum gp_verdict {
	GP_VERDICT_SAME = 0,
	GP_VERDICT_BETTER = 1,      /**< significant and past the threshold, the good way */
	GP_VERDICT_WORSE = 2,       /**< a regression */
	GP_VERDICT_INCONCLUSIVE = 3 /**< too few samples, or a large but not significant change */
};

/** Options of gp_stats_compare(); zero-initialise, then set size. */
struct gp_change_opts {
	uint32_t size;        /**< sizeof(struct gp_change_opts) */
	uint32_t resamples;   /**< bootstrap resamples for the ratio's interval; 0: 10000 */
	uint64_t seed;        /**< 0: a fixed default */
	double alpha;         /**< significance level; 0: 0.01 */
	double threshold;     /**< minimum relative change of the median; 0: 0.05 (5 %) */
	double confidence;    /**< of the ratio's interval; 0: 0.95 */
	uint32_t min_samples; /**< fewer per side is inconclusive; 0: 5 */
};

/** The change from a base sample to a new one. */
struct gp_change {
	size_t n_base, n_new;
	double base_median, new_median;
	double delta_pct; /**< 100 (new_median - base_median) / |base_median| */
	double ratio;     /**< new_median / base_median */
	/**
	 * Bootstrap percentile interval of the ratio: median(new*) / median(base*),
	 * each side resampled on its own (resamples capped as for gp_stats_opts, at
	 * n_base + n_new values). NaN when a side has fewer than 2 values or a
	 * resampled base median is 0.
	 */
	double ratio_lo, ratio_hi;
	double p; /**< Mann-Whitney U two-sided p; NaN when not tested (too few samples) */
	enum gp_verdict verdict;
};

/**
 * Compares two samples of one metric. Verdict: INCONCLUSIVE when a side has
 * fewer than min_samples values or gp_mann_whitney_min_p() >= alpha; else
 * BETTER or WORSE (by @p better) when p < alpha and the change is large:
 * new/base >= 1 + threshold or new/base <= 1 / (1 + threshold) (symmetric in
 * ratio, so a time and the rate 1/time pass it together); else INCONCLUSIVE
 * when the change is large (not significant); else SAME.
 * A regression is verdict == GP_VERDICT_WORSE. @p opts may be NULL (defaults).
 * @return 0, GP_EINVAL (an empty side, NaN/inf, base median 0, alpha or
 * confidence outside (0, 1), a negative threshold) or GP_ENOMEM; *out is
 * written on success only.
 */
GP_API int gp_stats_compare(const double *base, size_t nb, const double *new_, size_t nn,
                            enum gp_better better, const struct gp_change_opts *opts,
                            struct gp_change *out);

/** "same", "better", "worse", "inconclusive"; "unknown" for other values. */
GP_API const char *gp_verdict_name(enum gp_verdict v);

#ifdef __cplusplus
}
#endif
#endif
