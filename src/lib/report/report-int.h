/* SPDX-License-Identifier: MIT */
/*
 * report-int.h - the report's internals shared with its fuzz target and tests.
 */
#ifndef GP_REPORT_INT_H
#define GP_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprof/value.h"

/**
 * The page model of the gpuprof document @p doc (analyze, bench, compare or aggregate;
 * checked as compare checks it; taken over, even on failure), read from
 * @p paths[0..n) (n may be 0) or analysed from them (@p analysed). @p run is
 * a run directory's run.json or NULL; @p title NULL takes the first path's name.
 * @return 0 or a negative status naming paths[0].
 */
int gp__report_page(struct gp_value *doc, const struct gp_value *run, const char *const *paths,
                    size_t n, bool analysed, const char *title, struct gp_value **out);

struct gp_report_opts;

/**
 * The job's view of page model @p page (gp__report_page()'s) of many ranks:
 * "aggregate", made from the analysis the page holds (its "doc"), or
 * "aggregate_note", why
 * there is none. Nothing for one rank, --rank, or a document other than an
 * analyze report. @return 0, or GP_ENOMEM (an input that does not aggregate
 * is a note, never an error).
 */
int gp__report_job(struct gp_value *page, const struct gp_report_opts *o);

/** The last component of @p path, trailing slashes aside: [*@p base, *@p base + *@p n). */
void gp__base_name(const char *path, const char **base, size_t *n);

#endif
