/* SPDX-License-Identifier: MIT */
/*
 * aggregate.h - many ranks, one answer: the reports of a distributed job's
 * ranks combined into one "gpuprof.aggregate/1" document:
 * the per-rank table, the collectives matched across ranks, the clock offset
 * of each host, the stragglers and the first desynchronisation.
 *
 * gp_aggregate_paths() reads the ranks' analyze reports (or analyses traces
 * first); gp_aggregate_format() draws the document as text;
 * gp_aggregate_load() reads a saved document back to draw it again.
 * Nothing here prints.
 */
#ifndef GPUPROF_AGGREGATE_H
#define GPUPROF_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "gpuprof.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_AGGREGATE_SCHEMA "gpuprof.aggregate/1"

/** Options of gp_aggregate_paths(); set them with gp_aggregate_opts_init() first. */
struct gp_aggregate_opts {
	size_t threads; /* 0: one per CPU; analysing traces and parsing reports */
	int64_t bin_ns; /* wait heatmap bin; 0: automatic (about 100 bins over the aligned span) */
	struct gp_analyze_opts
	    analyze; /* used when a PATH is a trace/capture/run dir rather than a report */
};

/** Sets @p o to the defaults. */
GP_API void gp_aggregate_opts_init(struct gp_aggregate_opts *o);

/*
 * PATHs: analyze reports (gpuprof.analyze/1, one or many ranks each), run report.json, directories
 * of them, or traces (analysed first, in parallel, each rank object reduced to what aggregate needs
 * and freed at once). Errors (GP_EFORMAT/GP_EVERSION/GP_EINVAL) name the file. Warnings go in the
 * document's "warnings".
 * *@p out: the document (gp_value_free() it).
 */
GP_API int gp_aggregate_paths(const char *const *paths, size_t n, const struct gp_aggregate_opts *o,
                              struct gp_value **out);

/** Options of gp_aggregate_format(); zero-initialise. */
struct gp_aggregate_format_opts {
	size_t top; /* rows per table (stragglers, collectives, findings' lists; ranks: see below);
	               0: all */
	int width;  /* columns; 0: 100; at least 60 */
	unsigned flags; /* GP_AGGREGATE_FORMAT_* */
};

/** gp_aggregate_format_opts.flags: names (hosts, process groups) whole, never cut. */
#define GP_AGGREGATE_FORMAT_WIDE 0x1u

/*
 * The text of an aggregate document (gp_free the text): header, desync,
 * stragglers, the per-rank table, collectives, findings (docs/cli/gpuprof-aggregate.md).
 * An unknown value prints "-". More ranks than 2 * top (top 0: all) shows the
 * top slowest and fastest ranks by mean step time and every outlier, and says so.
 * @p agg borrowed; *@p text owned by the caller, *@p len (may be NULL) its length.
 * @return 0; GP_EINVAL (not a gpuprof.aggregate/1 document); GP_ENOMEM.
 */
GP_API int gp_aggregate_format(const struct gp_value *agg, const struct gp_aggregate_format_opts *o,
                               char **text, size_t *len);

/*
 * Reads @p path back when it is a saved gpuprof.aggregate/1 document (plain
 * or .gz), to be drawn again (`gpuprof aggregate saved.json --top 50`).
 * @return 0 with *@p out the document (gp_value_free() it); 0 with *@p out
 * NULL when @p path is something gp_aggregate_paths() reads (a trace, a
 * report, a directory); GP_EFORMAT naming the file for a gpuprof document
 * aggregate does not read (a compare or bench result); GP_EVERSION for an
 * aggregate of another version; GP_ENOENT, GP_EIO, GP_ENOMEM.
 */
GP_API int gp_aggregate_load(const char *path, struct gp_value **out);

#ifdef __cplusplus
}
#endif

#endif
