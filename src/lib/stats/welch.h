/* SPDX-License-Identifier: MIT */
/*
 * welch.h - Welch's t-test on the logarithms of two samples, the test that
 * `compare` uses where the samples are too few for the Mann-Whitney U test to
 * reach its level (docs/analyses/statistics.md, "Few samples"). Internal:
 * src/lib/compare/metric.c is its caller.
 */
#ifndef GP_STATS_WELCH_H
#define GP_STATS_WELCH_H

#include <stddef.h>

/** The result of gp__welch_log(). */
struct gp__welch {
	double t;     /**< (mean log new - mean log base) / se; +-inf when se is 0 */
	double df;    /**< Welch-Satterthwaite degrees of freedom */
	double p;     /**< two-sided p-value */
	double ratio; /**< exp(mean log new - mean log base): the geometric-mean ratio */
	double ratio_lo, ratio_hi; /**< its interval at the confidence asked for */
};

/**
 * Welch's unequal-variance t-test on log(base) against log(new), and the
 * interval exp(d +- t(df, (1 + confidence) / 2) se) of the ratio new/base.
 * @p confidence in (0, 1). Both sides need 2 values or more, all positive and
 * finite. With no spread on either side, p is 0 when the means differ and 1
 * when they do not, and the interval is the ratio itself.
 * @return 0 or GP_EINVAL (too few values, a value <= 0, NaN or inf).
 */
int gp__welch_log(const double *base, size_t nb, const double *new_, size_t nn, double confidence,
                  struct gp__welch *out);

/**
 * Welch's t-test from summaries: the means, sample standard deviations (n - 1)
 * and counts of two samples (a kernel's instances on each side). Two-sided p;
 * NaN when a count is under 2 or a value is not finite. With no spread on
 * either side, p is 0 when the means differ and 1 when they do not.
 */
double gp__welch_p(double mean_b, double sd_b, double n_b, double mean_n, double sd_n, double n_n);

/** P(T <= t) for Student's t with @p df > 0 degrees of freedom. */
double gp__student_t_cdf(double t, double df);

/** The quantile of Student's t with @p df > 0 degrees of freedom at @p q in (0, 1). */
double gp__student_t_quantile(double q, double df);

#endif
