/* SPDX-License-Identifier: MIT */
/*
 * analyze-srcs.h - gp_analyze_paths() on inputs already resolved
 * (source/source.h), for the commands that resolve their PATHs themselves to
 * choose what to do with them (compare, report): each PATH is looked at once.
 */
#ifndef GP_ANALYZE_SRCS_H
#define GP_ANALYZE_SRCS_H

#include "gpuprof/analyze.h"
#include "source/source.h"

/** The kinds analyze reads: traces, captures, metrics timelines, run directories. */
#define GP__ANALYZE_KINDS GP_SRC_RUN_INPUTS

/**
 * The analyze report of @p srcs (inputs of other kinds found in directories
 * are left out and named in the report's "warnings"; typed ones are an
 * error). @p srcs stays the caller's. @return as gp_analyze_paths().
 */
int gp__analyze_srcs(struct gp__srcs *srcs, const struct gp_analyze_opts *opts,
                     struct gp_value **out);

/**
 * Called by a worker thread with each rank object as soon as it is built
 * (@p path its input); the object is freed when it returns, so memory grows
 * with the workers, not the ranks. Must be thread-safe. @return 0 or a
 * gp_status (with gp__error()), which fails the whole analysis.
 */
typedef int (*gp__analyze_each_fn)(void *arg, const struct gp_value *rank, const char *path);

/**
 * gp__analyze_srcs() that hands each rank object to @p each instead of
 * putting it in the report: *@p out is the report without its ranks (its
 * "warnings", "metrics" of run directories...).
 */
int gp__analyze_srcs_each(struct gp__srcs *srcs, const struct gp_analyze_opts *opts,
                          gp__analyze_each_fn each, void *arg, struct gp_value **out);

#endif
