/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - where the time goes: the analyses of one or more traces.
 *
 * gp_analyze_paths() reads every trace (in parallel), analyses each rank and
 * returns the report as a gp_value tree in the "gpuprof.analyze/1" schema
 * (docs/report-schema.md). Nothing here prints.
 */
#ifndef GPUPROF_ANALYZE_H
#define GPUPROF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "trace.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_ANALYZE_SCHEMA "gpuprof.analyze/1"

/** Definitions to apply. */
enum gp_compat {
	GP_COMPAT_NONE = 0, /**< gpuprof's exact definitions */
	GP_COMPAT_HTA = 1, /**< reproduce Holistic Trace Analysis (last-step filter, µs rounding) */
	GP_COMPAT_TB = 2,  /**< the TensorBoard plugin's step breakdown (Communication rule) */
};

/** Options; zero-initialise, then set size = sizeof(struct gp_analyze_opts). */
struct gp_analyze_opts {
	uint32_t size;
	uint32_t version;
	enum gp_compat compat;
	/** Rows kept in each summary table (kernels, operators, ...); 0: all. */
	uint32_t top;
	/** Keep what precedes the damage of a truncated trace (see gp_open_opts.salvage). */
	bool salvage;
	/** Worker threads for reading several files; 0: one per online CPU. */
	uint32_t threads;
	/** Only analyse this rank; -1: all. */
	int64_t only_rank;
	/** Roofline: peak TFLOP/s for every data type instead of the GPU table's; 0: the table. */
	double peak_tflops;
	/** Roofline: peak memory bandwidth in TB/s instead of the GPU table's; 0: the table. */
	double peak_tbps;
};

/**
 * Analyses one opened trace. @p out receives the rank object (one element of
 * the report's "ranks" list). @p rank_hint is the rank to use when the trace
 * has no distributedInfo.rank.
 */
GP_API int gp_analyze_trace(const struct gp_trace *t, const struct gp_analyze_opts *opts,
                            int64_t rank_hint, struct gp_value **out);

/**
 * Reads and analyses @p n paths: trace files (*.json, *.json.gz, *.pt.trace.json...),
 * captures (*.gpcap), directories of them (one per rank), run directories of
 * `gpuprof run`, metrics timelines (gpuprof.metrics/1), and "-" for a trace on
 * standard input. What each path is, is decided by its content where its name
 * does not say. The rank of a file comes from its distributedInfo.rank, else
 * from its name ("rank-3", "rank3", "worker3"), else from the order given.
 * @p out receives the whole report:
 * { "schema": "gpuprof.analyze/1", "ranks": [...], ... }, with "warnings"
 * (strings) when files of a directory that are no traces were skipped or
 * inputs claim the same rank, and "run" and "no_gpu_timeline" for a run
 * directory without a capture. --rank R (opts.only_rank) matching two inputs
 * is an error, as is one matching none (it lists the ranks there are).
 * On failure gp_last_error() names the file and the byte offset.
 */
GP_API int gp_analyze_paths(const char *const *paths, size_t n, const struct gp_analyze_opts *opts,
                            struct gp_value **out);

/**
 * gp_analyze_paths() with the report written as JSON, gp_value_write_json(report, @p flags,
 * @p write, @p user) byte for byte, rather than handed over: for two or more traces the
 * rank objects are not held until the last file is read, but each written into a
 * temporary file (unnamed, in $TMPDIR or /tmp) as soon as it is built, and copied out in
 * rank order at the end, so that memory holds the trees of one rank per thread whatever
 * the number of ranks. (Where no temporary file can be made, or for a run directory, the
 * ranks are held as gp_analyze_paths() holds them; the text is the same.) Nothing is
 * written when the analysis fails.
 * @param summary receives, when not NULL, the report with each rank reduced to its
 *        "rank", "file", "label" and "salvage" (what a caller says of it), else NULL.
 * @return as gp_analyze_paths(), or GP_EIO when @p write failed (errno as it set it).
 */
GP_API int gp_analyze_paths_json(const char *const *paths, size_t n,
                                 const struct gp_analyze_opts *opts, unsigned flags,
                                 gp_write_fn write, void *user, struct gp_value **summary);

/**
 * Keeps @p top rows in each summary table of every rank of @p report (a report
 * built with opts.top = 0), the rest summed in "<table>_omitted": the report
 * that opts.top = @p top would have given, without analysing again (`gpuprof
 * run` writes the full report.json and prints the trimmed tables).
 * @return 0, GP_ENOMEM or GP_EINVAL.
 */
GP_API int gp_analyze_trim(struct gp_value *report, uint32_t top);

/** Options of gp_analyze_format(); zero-initialise, then set size = sizeof(...). */
struct gp_analyze_format_opts {
	uint32_t size;  /**< sizeof(struct gp_analyze_format_opts) */
	uint32_t top;   /**< rows per table; 0: all */
	uint32_t width; /**< columns of the text; 0: 100; at least 60 */
	uint32_t flags; /**< GP_ANALYZE_FORMAT_* */
};

/** gp_analyze_format_opts.flags: names whole, never shortened to the width (`--wide`). */
#define GP_ANALYZE_FORMAT_WIDE 0x1u

/**
 * An analyze report (a "gpuprof.analyze/1" tree, as built or as read back)
 * as tables for people: one block per rank, then the metrics timeline.
 * Reads only the tree; a section absent from it is skipped and an unknown
 * value prints as "-". @p opts may be NULL (top 10, width 100). The text
 * (*@p text, *@p len bytes, NUL-ended) is the caller's: gp_free() it.
 * @return 0, GP_EINVAL or GP_ENOMEM.
 */
GP_API int gp_analyze_format(const struct gp_value *report,
                             const struct gp_analyze_format_opts *opts, char **text, size_t *len);

/**
 * gp_analyze_paths() with the report written as text, gp_analyze_format(report, @p fopts)
 * byte for byte, to @p write: as with gp_analyze_paths_json(), each rank's text is made
 * as soon as its file is analysed and held in an unnamed temporary file, not its tree.
 * @p fopts may be NULL (as for gp_analyze_format()); @p summary as for
 * gp_analyze_paths_json(). @return as gp_analyze_paths_json().
 */
GP_API int gp_analyze_paths_text(const char *const *paths, size_t n,
                                 const struct gp_analyze_opts *opts,
                                 const struct gp_analyze_format_opts *fopts, gp_write_fn write,
                                 void *user, struct gp_value **summary);

#ifdef __cplusplus
}
#endif
#endif
