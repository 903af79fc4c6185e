/* SPDX-License-Identifier: MIT */
/*
 * aggregate-doc.h - gp_aggregate_paths() on an analyze document already in
 * memory, for `gpuprof report`, whose page holds the analysis of the ranks:
 * the job's view is made from it without reading or analysing anything again.
 */
#ifndef GP_AGGREGATE_DOC_H
#define GP_AGGREGATE_DOC_H

#include "gpuprof/aggregate.h"

/**
 * The "gpuprof.aggregate/1" document of the ranks of analyze document @p doc
 * (borrowed) into *@p out (the caller's). @p o may be NULL; its analyze
 * options are unused. @return as gp_aggregate_paths().
 */
int gp__aggregate_doc(const struct gp_value *doc, const struct gp_aggregate_opts *o,
                      struct gp_value **out);

#endif
