/* SPDX-License-Identifier: MIT */
/*
 * format.h - the text report (format.c) in pieces, for analyze.c's
 * gp_analyze_paths_text(): one rank's text made apart, and the report's text
 * with its ranks' texts spliced in from elsewhere (a spool), byte for byte
 * gp_analyze_format()'s.
 */
#ifndef GP_ANALYZE_FORMAT_H
#define GP_ANALYZE_FORMAT_H

#include <stddef.h>

#include "gpuprof/analyze.h"
#include "util/value-int.h"

/**
 * The text gp_analyze_format(@p report, @p opts) prints for @p rank (a rank object, not
 * necessarily one of @p report's, which gives only "compat"). @return as gp_analyze_format().
 */
int gp__analyze_format_rank(const struct gp_value *report, const struct gp_value *rank,
                            const struct gp_analyze_format_opts *opts, char **text, size_t *len);

/** gp_analyze_format()'s text of @p report handed to @p write. @return as below. */
int gp__analyze_format_write(const struct gp_value *report,
                             const struct gp_analyze_format_opts *opts, gp_write_fn write,
                             void *wuser);

/**
 * gp_analyze_format()'s text of @p report written to @p write, with @p n ranks whose texts
 * (gp__analyze_format_rank()'s) @p item writes, in order, in place of the report's "ranks".
 * Not for a memory snapshot's document. @return 0, a gp_status, GP_EIO when @p write failed.
 */
int gp__analyze_format_spliced(const struct gp_value *report,
                               const struct gp_analyze_format_opts *opts, size_t n,
                               gp__json_item_fn item, void *user, gp_write_fn write, void *wuser);

#endif
