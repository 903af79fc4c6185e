/* SPDX-License-Identifier: MIT */
/*
 * compare.h - `gpuprof compare BASE NEW`: did a change make things faster,
 * slower or neither, with statistical significance.
 *
 * Both sides are loaded into gp_value trees (a bench result, "gpuprof.bench/1";
 * an analyze report, "gpuprof.analyze/1"; an aggregate of many ranks,
 * "gpuprof.aggregate/1"; or traces, captures and directories of them,
 * analysed here), compared metric by metric with gp_stats_compare()
 * (stats.h) and, for reports, kernel by kernel and operator by operator; two
 * aggregates by job (samples: one value per rank), collective and rank. The
 * result is a "gpuprof.compare/1" tree (docs/cli/gpuprof-compare.md), which
 * gp_compare_format() turns into a text or Markdown table. Nothing here prints.
 *
 * A regression is a metric with samples whose change is significant (p <
 * alpha), at least its threshold, and in the bad direction for that metric
 * (time up, throughput down, memory up). Metrics without samples (totals of
 * a trace) and the kernel and operator tables never make a regression.
 */
#ifndef GPUPROF_COMPARE_H
#define GPUPROF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_COMPARE_SCHEMA "gpuprof.compare/1"

/** Options; zero-initialise, then set size = sizeof(struct gp_compare_opts). */
struct gp_compare_opts {
	uint32_t size;
	uint32_t resamples; /**< bootstrap resamples of the ratio's interval; 0: 10000 */
	uint64_t seed;      /**< bootstrap seed; 0: the fixed default (stats.h) */
	double alpha;       /**< significance level, 0 < alpha < 1; 0: 0.01 */
	/** Minimum relative change that counts, as a fraction (0.05 = 5 %); 0: 0.05. */
	double threshold;
	/**
	 * Per-metric thresholds (fractions) by metric name ("step_time", "time",
	 * "kernels", ...; the names of docs/cli/gpuprof-compare.md): parallel arrays
	 * of @p n_thresholds entries, borrowed. An unknown name is GP_EINVAL.
	 */
	const char *const *threshold_names;
	const double *threshold_values;
	size_t n_thresholds;
	uint32_t min_samples; /**< fewer samples per side is inconclusive; 0: 2 */
	/** Only this rank of reports and traces; -1: every rank present on both sides. */
	int64_t rank;
	/** Worker threads per side for reading traces (gp_analyze_opts.threads); 0: one per CPU. */
	uint32_t threads;
};

/** The input kinds gp_compare_load() tells apart. */
enum gp_compare_input {
	GP_COMPARE_BENCH = 0,  /**< a "gpuprof.bench/1" result (or a directory of them) */
	GP_COMPARE_REPORT = 1, /**< a "gpuprof.analyze/1" report (or a directory of them) */
	GP_COMPARE_TRACE = 2,  /**< traces, captures or directories of them, analysed on load */
	GP_COMPARE_AGGREGATE =
	    3, /**< a "gpuprof.aggregate/1" document (gpuprof aggregate --json) */
};

/**
 * Loads one side: a bench result or an analyze report as it is, anything else
 * (a Kineto trace, a capture, a `gpuprof run` directory, a directory of
 * traces, "-" for a trace on standard input) through gp_analyze_paths() with
 * every row kept; what the path is comes from its content where its name
 * does not say. A directory whose gpuprof documents are all bench results (or
 * all reports) and that holds no trace is their union; its other files are
 * left out.
 * @param kind receives the input's kind (may be NULL).
 * @param out  receives the tree (a bench result or a report), gp_value_free() it.
 * @return 0 or a negative status; gp_last_error() names the file.
 */
GP_API int gp_compare_load(const char *path, const struct gp_compare_opts *opts,
                           enum gp_compare_input *kind, struct gp_value **out);

/**
 * Compares two loaded trees, both bench results, both analyze reports or
 * both aggregates (GP_EINVAL otherwise). The trees are borrowed. @p out receives the
 * "gpuprof.compare/1" result; its "base" and "new" say "path": null.
 * @return 0 or a negative status (GP_EINVAL, GP_EFORMAT for a malformed tree, GP_ENOMEM).
 */
GP_API int gp_compare_values(const struct gp_value *base, const struct gp_value *new_,
                             const struct gp_compare_opts *opts, struct gp_value **out);

/**
 * gp_compare_load() on both paths (traces are read side by side on two
 * threads), then gp_compare_values(). Errors name the file.
 */
GP_API int gp_compare_paths(const char *base, const char *new_, const struct gp_compare_opts *opts,
                            struct gp_value **out);

/**
 * Checks @p opts (size, alpha, thresholds and their metric names) as every
 * call above does first, without reading anything. @return 0 or GP_EINVAL
 * with a last-error message that names the bad option.
 */
GP_API int gp_compare_check_opts(const struct gp_compare_opts *opts);

/** @return true when the result @p result holds a regression (`gpuprof compare` exits 3). */
GP_API bool gp_compare_regression(const struct gp_value *result);

/** Output formats of gp_compare_format(). */
enum gp_compare_format { GP_COMPARE_TEXT = 0, GP_COMPARE_MARKDOWN = 1 };

/**
 * The result as tables for people: plain text, or Markdown for a pull-request
 * comment (a summary line with the verdict, then tables). @p top: rows of each
 * kernel and operator table (0: all). @p out receives NUL-ended text to
 * gp_free(); @p len its length (may be NULL). Reads only the tree.
 */
GP_API int gp_compare_format(const struct gp_value *result, enum gp_compare_format fmt,
                             uint32_t top, char **out, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
