/* SPDX-License-Identifier: MIT */
/*
 * check.h - what compare offers the other commands that read its inputs
 * (report): the checks of a document's shape, and one side loaded from
 * inputs already resolved (source/source.h).
 */
#ifndef GP_COMPARE_CHECK_H
#define GP_COMPARE_CHECK_H

#include "gpuprof/compare.h"
#include "gpuprof/value.h"
#include "source/source.h"

/** Checks that @p v is a usable "gpuprof.bench/1" tree; errors name @p label and the field. */
int gp__cmp_check_bench(const struct gp_value *v, const char *label);

/** Checks that @p v is a usable "gpuprof.analyze/1" tree; errors name @p label and the field. */
int gp__cmp_check_report(const struct gp_value *v, const char *label);

/** Checks that @p v is a usable "gpuprof.aggregate/1" tree; errors name @p label and the field. */
int gp__cmp_check_aggregate(const struct gp_value *v, const char *label);

/**
 * gp_compare_load() of the inputs @p srcs that @p path gave: one document,
 * a directory of bench results or reports (their union), or traces analysed.
 * @p srcs stays the caller's.
 */
int gp__cmp_load_srcs(const char *path, struct gp__srcs *srcs, const struct gp_compare_opts *opts,
                      enum gp_compare_input *kind, struct gp_value **out);

#endif
