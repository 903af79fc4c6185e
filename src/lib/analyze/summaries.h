/* SPDX-License-Identifier: MIT */
/*
 * summaries.h - the grouping machinery shared by the summary tables:
 * summaries.c (GPU kernels, API calls, memory operations; the entry point and
 * --top) and summaries-host.c (annotations and CPU operators, which need the
 * host nesting). Internal to the analyses.
 */
#ifndef GP_ANALYZE_SUMMARIES_H
#define GP_ANALYZE_SUMMARIES_H

#include "analyze-int.h"

#define NONE UINT32_MAX

struct group {
	uint64_t key;
	uint32_t name;  /* string id */
	uint32_t first; /* first event of the group, in item order */
	size_t off, n;  /* the group's durations: gtab.durs[off .. off + n) */
	int64_t total, min, max;
	double avg, med, std;
	int64_t sortv; /* rows are ordered by this, descending */
};

struct gtab {
	struct group *g;
	size_t ng, gcap;
	struct gp_u64map map; /* key -> group index */
	uint32_t *gid;        /* per item */
	int64_t *durs;        /* per group, ascending */
	uint32_t *order;      /* row order */
	int64_t total;        /* sum of every group's total */
};

typedef int (*gp__extra_fn)(const struct gp__actx *c, const struct gtab *gt, size_t g,
                            struct gp_value *row, void *user);

void gp__gtab_release(struct gtab *gt);
/**
 * Groups the @p n events @p ev by @p keys (NULL: the name id) and fills the
 * statistics of each group from the effective durations.
 */
int gp__gtab_build(const struct gp__actx *c, const uint32_t *ev, size_t n, const uint64_t *keys,
                   struct gtab *gt);
/** Orders the rows: sortv descending (total_ns unless set), then name, then key. */
int gp__gtab_order(const struct gp__actx *c, struct gtab *gt);
/** Writes table @p name: every row in order, with @p fn adding per-table columns. */
int gp__emit_table(const struct gp__actx *c, struct gp_value *r, const char *name,
                   const struct gtab *gt, int64_t pct_total, gp__extra_fn fn, void *user);

/* summaries-host.c: "annotations", "gpu_annotations" and "cpu_ops" */
int gp__sum_host(const struct gp__actx *c, struct gp_value *r);

#endif
