/* SPDX-License-Identifier: MIT */
/*
 * edivisive.h - change points of one series of numbers: Apache Otava's
 * windowed E-divisive with its Student t-test and merge step, the Chromium
 * perf dashboard's filters on top, a Mann-Kendall trend test for the slow
 * creep E-divisive misses, and the rule that calls a series too noisy for its
 * threshold. Internal; the `gpuprof history` commands are its callers.
 * docs/analyses/history-changes.md has the definitions and where they differ
 * from Otava's and Chromium's.
 */
#ifndef GP_STATS_EDIVISIVE_H
#define GP_STATS_EDIVISIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What a change point is. */
enum gp__cpd_kind {
	GP__CPD_STEP = 0,  /**< a step: E-divisive's, the new regime starts at index */
	GP__CPD_TREND = 1, /**< a creep: the trend test's, over [index, n) */
};

/**
 * Options of gp__cpd_find(). gp__cpd_opts_default() fills Otava's defaults
 * (the ones its tests use: window 30, max_pvalue 0.01, min_magnitude 0.05)
 * with the Chromium filters and the trend test off; a NULL opts means them.
 * Every field is taken literally (0 is a legitimate min_magnitude).
 */
struct gp__cpd_opts {
	size_t window;        /**< Otava's window_len, >= 2 and <= GP__CPD_MAX_WINDOW */
	double max_pvalue;    /**< in (0, 1] */
	double min_magnitude; /**< Otava's: max(|after/before - 1|, |before/after - 1|), >= 0 */
	uint64_t seed;        /**< reserved for the permutation test; the t-test needs none */
	/* the Chromium perf dashboard's filters (0 or NAN: off) */
	size_t min_points_each_side; /**< its min_segment_size: points in each segment */
	double
	    min_median_change; /**< its min_relative_change: |median after / median before - 1| */
	double min_steppiness; /**< its Steppiness() over the two segments, in [0, 1] */
	/** ours: points past this modified z-score (gp_stats_outliers()) count as missing */
	double outlier_z;
	/* the trend test (trend_alpha 0 or NAN: off) */
	double trend_alpha;      /**< Mann-Kendall's two-sided level, e.g. 0.001 */
	size_t trend_window;     /**< the last points tested at most (0: 200) */
	size_t trend_min_points; /**< fewer points since the last step: no test (0: 20) */
	double unstable_k; /**< gp__cpd_unstable(): noise * k > min_magnitude (0: 2; < 0: off) */
	/** merge as Otava does, recomputing only the points after a removed one
	 *  (bit-exact with its results, stale statistics included); false: both neighbours */
	bool otava_merge;
};

#define GP__CPD_MAX_WINDOW 4096

/** One change point. */
struct gp__cpd_point {
	enum gp__cpd_kind kind;
	size_t
	    index; /**< the first point of the new regime, as Otava indexes it (NAN points count) */
	size_t n_before, n_after; /**< the points of the segments compared */
	/** the segments' means and population standard deviations (numpy's std, as Otava);
	 *  for a trend, the Theil-Sen line at the window's first and last point, sd NAN */
	double mean_before, sd_before, mean_after, sd_after;
	double rel_change; /**< (after - before) / before; 0 when before is 0 (Otava) */
	double magnitude;  /**< Otava's: max(|after/before - 1|, |before/after - 1|) */
	double pvalue;     /**< the t-test's (Mann-Kendall's for a trend) */
	double steppiness; /**< Chromium's, in [0, 1]; NAN for a trend */
};

/** Fills @p o with the defaults named on struct gp__cpd_opts. */
void gp__cpd_opts_default(struct gp__cpd_opts *o);

/**
 * Fills @p o with the defaults for GPU runs, gp__cpd_opts_default() plus:
 * min_points_each_side 5, outlier_z 6.745 (5 sigma) and the trend test at
 * 0.001. What the simulation in test_cpd_sim.c measures.
 */
void gp__cpd_opts_gpu(struct gp__cpd_opts *o);

/**
 * The change points of x[0..n), into *out (gp__malloc'd, gp__free() it; NULL when
 * none), *nout of them, steps in index order then at most one trend last.
 * NAN points are filled as Otava fills missing values (the previous value,
 * leading ones the first value after them) and their indices still count;
 * an all-NAN series has none. Infinite values are GP_EINVAL. Deterministic:
 * a function of x and @p o only. Thread-safe.
 * @return 0, GP_EINVAL (an option out of range, an infinite value) or GP_ENOMEM.
 */
int gp__cpd_find(const double *x, size_t n, const struct gp__cpd_opts *o,
                 struct gp__cpd_point **out, size_t *nout);

/**
 * The robust relative noise of x[0..n): the mean absolute successive
 * difference over its lower 90 %, scaled to a standard deviation for normal
 * noise, over |median of x|. A step or a slow trend moves few differences and
 * outliers fall in the trimmed 10 %; unlike the MAD it stays well defined for
 * bimodal noise. NAN points are skipped; NAN with fewer than 3 finite points
 * or a median of 0.
 */
double gp__cpd_noise(const double *x, size_t n);

/**
 * A series too noisy for its threshold: gp__cpd_noise() * unstable_k >
 * min_magnitude. Such a series is reported unstable and not alarmed on.
 * False when min_magnitude is 0 (no threshold), unstable_k is negative (the
 * rule off, as in Otava, which has none) or the noise is NAN.
 */
bool gp__cpd_unstable(const double *x, size_t n, const struct gp__cpd_opts *o);

#endif
