/* SPDX-License-Identifier: MIT */
/*
 * load-int.h - what load.c and load-pgs.c share: the shared rank lists of
 * the process groups, and the walk of process groups kept as JSON text.
 */
#ifndef GP_AGGREGATE_LOAD_INT_H
#define GP_AGGREGATE_LOAD_INT_H

#include <stdint.h>

#include "aggregate-int.h"

/** A new rank list of @p n ranks (one reference, the caller's), or NULL. */
int64_t *gp__agg_rlist_new(size_t n);
/** Drops a reference to rank list @p v (NULL: none); the last one frees it. */
void gp__agg_rlist_unref(int64_t *v);
/** *@p mine replaced by a new reference to @p other when both hold the same ranks. */
void gp__agg_rlist_share(int64_t **mine, int64_t *other);

/**
 * The process groups of rank @p rank of @p file from their JSON @p text
 * (GP_JKEEP_TEXT "process_groups", checked by the pruned parse) into
 * @p out->pg, as load.c's reduce_pgs() takes them from a tree. Errors name
 * the file.
 */
int gp__agg_reduce_pgs_text(const char *text, const char *file, int64_t rank, struct gp_strtab *st,
                            struct gp__agg_rank *out);

#endif
