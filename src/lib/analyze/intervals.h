/* SPDX-License-Identifier: MIT */
/*
 * intervals.h - interval-set arithmetic on half-open [s, e) nanosecond ranges.
 *
 * A set is "normal" after gp__ivset_normalize(): sorted by start, disjoint and
 * non-touching, with no empty interval. The binary operations require normal
 * inputs and produce normal outputs. Every timeline metric (busy, idle,
 * overlap, step breakdown) is built from these.
 */
#ifndef GP_ANALYZE_INTERVALS_H
#define GP_ANALYZE_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

struct gp_iv {
	int64_t s, e;
};

struct gp_ivset {
	struct gp_iv *v;
	size_t n, cap;
};

#define GP_IVSET_INIT                                                                              \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

void gp__ivset_release(struct gp_ivset *a);
void gp__ivset_reset(struct gp_ivset *a);
/** Appends [s, e); empty or inverted ranges are ignored. Breaks normality. */
int gp__ivset_add(struct gp_ivset *a, int64_t s, int64_t e);
/** Sorts and merges overlapping or touching intervals. */
int gp__ivset_normalize(struct gp_ivset *a);
/** Total length of a normal set. */
int64_t gp__ivset_len(const struct gp_ivset *a);
/** Length of a normal set inside [s, e). */
int64_t gp__ivset_len_within(const struct gp_ivset *a, int64_t s, int64_t e);
/** out = a ∩ b. @p out must not alias an input. */
int gp__ivset_intersect(const struct gp_ivset *a, const struct gp_ivset *b, struct gp_ivset *out);
/** out = a \ b. @p out must not alias an input. */
int gp__ivset_subtract(const struct gp_ivset *a, const struct gp_ivset *b, struct gp_ivset *out);
/** out = a ∪ b. @p out must not alias an input. */
int gp__ivset_union(const struct gp_ivset *a, const struct gp_ivset *b, struct gp_ivset *out);
/** |a ∩ b| without building the set. */
int64_t gp__ivset_overlap_len(const struct gp_ivset *a, const struct gp_ivset *b);
/** out = a ∩ [s, e) of a normal set (the first interval found by binary search). */
int gp__ivset_clip(const struct gp_ivset *a, int64_t s, int64_t e, struct gp_ivset *out);
/** Moves @p src into @p dst (dst's old contents are freed). */
void gp__ivset_move(struct gp_ivset *dst, struct gp_ivset *src);

#endif
