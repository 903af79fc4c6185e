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

#endif
