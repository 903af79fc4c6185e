/* SPDX-License-Identifier: MIT */
/*
 * aggregate.h - many ranks, one answer: the analyze reports of the ranks of
 * one distributed job read together, their collectives matched across ranks
 * by (process group, sequence), the hosts' clocks aligned from the
 * collectives' bounds, and the stragglers, the collectives' cost and the
 * per-rank table as one "gpuprof.aggregate/1" document
 * (docs/aggregate-schema.md). Nothing here prints but gp_aggregate_format().
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

/** Options of gp_aggregate_paths(); fill with gp_aggregate_opts_init() first. */
struct gp_aggregate_opts {
	size_t threads; /**< 0: one per CPU; analysing traces and parsing reports */
	int64_t
	    bin_ns; /**< wait heatmap bin; 0: automatic (about 100 bins over the aligned span) */
	struct gp_analyze_opts
	    analyze; /**< used when a PATH is a trace/capture/run dir rather than a report */
};

/** The defaults: threads 0, bin_ns 0, analyze's defaults (all ranks). */
GP_API void gp_aggregate_opts_init(struct gp_aggregate_opts *o);

/**
 * PATHs: analyze reports (gpuprof.analyze/1, one or many ranks each), run
 * report.json, directories of them, or traces (analysed first, in parallel,
 * each rank object reduced to what aggregate needs and freed at once).
 * *@p out receives the "gpuprof.aggregate/1" document (gp_value_free() it).
 * Errors (GP_EFORMAT, GP_EVERSION, GP_EINVAL) name the file; warnings (a
 * missing rank, ...) go in the document's "warnings". @p o may be NULL.
 * @return 0, or a negative gp_status with gp_last_error() saying why.
 */
GP_API int gp_aggregate_paths(const char *const *paths, size_t n, const struct gp_aggregate_opts *o,
                              struct gp_value **out);

/** Options of gp_aggregate_format(). */
struct gp_aggregate_format_opts {
	size_t top;
	int width;
	unsigned flags;
};

/** The text of an aggregate document (gp_free() the text). */
GP_API int gp_aggregate_format(const struct gp_value *agg, const struct gp_aggregate_format_opts *o,
                               char **text, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
