/* SPDX-License-Identifier: MIT */
/*
 * memlife.h - the lifetimes of a trace's allocations: each allocation paired
 * with its free by device and address, attributed to the innermost CPU op
 * on its thread and to the step it was made in. Read by the memory section
 * (memory.c) and its leak finding. Definitions: docs/analyses/overview-memory.md.
 */
#ifndef GP_ANALYZE_MEMLIFE_H
#define GP_ANALYZE_MEMLIFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze-int.h"
#include "memcurve.h"
#include "util/strtab.h"

#define GP_MEMLIFE_NONE UINT32_MAX

/** Per memory event (t->mem index); every array belongs to the structure. */
struct gp__memlife {
	size_t n;
	int64_t *op;   /* the innermost CPU op (else annotation) on its thread at its ts, -1 */
	int32_t *step; /* the last ProfilerStep (c->steps index) started at or before it, -1 */
	/*
	 * An allocation's free, a free's allocation (t->mem indices), or
	 * GP_MEMLIFE_NONE: an allocation never freed in the trace, a free of
	 * memory allocated before it, an event without an address.
	 */
	uint32_t *pair;
	uint8_t *lost; /* an allocation whose address was allocated again before a free was seen */
	/* counts over every device */
	size_t allocs, frees;   /* Bytes > 0, Bytes < 0 */
	size_t paired;          /* allocations with their free */
	size_t no_addr;         /* allocations and frees without an address */
	size_t frees_unmatched; /* frees of memory allocated before the trace */
	size_t lost_frees;      /* allocations whose free was never recorded (address reused) */
	size_t size_mismatch;   /* pairs whose free names another size than the allocation */
};

/** Allocations grouped by the name of their op: one row per name (and one for none). */
struct gp__memrow {
	uint32_t key;         /* the op's name id + 1; 0: no op */
	int64_t bytes, count; /* the allocations' bytes and number */
	int32_t first, last;  /* the steps they were made in (memlife's step), -1 before */
	int32_t seen;         /* the step of the last one added */
	size_t nsteps;        /* distinct steps (allocations added in time order) */
};

struct gp__memgroup {
	struct gp_u64map ix; /* key -> row */
	struct gp__memrow *rows;
	size_t n, cap;
	int64_t bytes, count; /* over every row */
};

/** An empty group. */
int gp__memgroup_init(struct gp__memgroup *g);
/** Adds allocation @p k (a t->mem index) to its op's row. */
int gp__memgroup_add(struct gp__memgroup *g, const struct gp__actx *c, const struct gp__memlife *ml,
                     uint32_t k);
/** Sorts the rows: most bytes first, then by name; no row may be added after it. */
void gp__memgroup_sort(struct gp__memgroup *g, const struct gp__actx *c);
/**
 * The first @p max rows (0: all) as objects {op, bytes, allocations} and,
 * with @p steps, {first_step, last_step, steps} (step names; null before
 * the first step), into a new array *@p out.
 */
int gp__memgroup_rows(const struct gp__memgroup *g, const struct gp__actx *c, bool steps,
                      size_t max, struct gp_value **out);
/** The name of row @p r's op, or NULL for allocations outside any op. */
const char *gp__memrow_op(const struct gp__memrow *r, const struct gp__actx *c);
void gp__memgroup_release(struct gp__memgroup *g);

/** Builds the lifetimes of @p c's trace from its curves @p mc (zeroed first; released on failure).
 */
int gp__memlife_build(const struct gp__actx *c, const struct gp__memcurve *mc,
                      struct gp__memlife *ml);

/** Frees what @p ml holds and zeroes it; a no-op on a zeroed one. */
void gp__memlife_release(struct gp__memlife *ml);

#endif
