/* SPDX-License-Identifier: MIT */
/*
 * sort.h - fast sorts for the analyses' hot paths.
 *
 * LSD radix sorts over 64-bit keys that only look at the low bits in which
 * the keys differ (timestamps of one trace share their high bits), in digits
 * of up to 11 bits: sorting a million events of a few seconds' trace costs
 * three passes instead of qsort's comparator calls. Sorted input is left as
 * it is after one read; small inputs use insertion sort. Also the one quantile definition
 * every analysis uses.
 */
#ifndef GP_UTIL_SORT_H
#define GP_UTIL_SORT_H

#include <stddef.h>
#include <stdint.h>

/** A key and its payload; gp__sort_kv() is stable. */
struct gp_kv {
	int64_t key;
	uint64_t val;
};

/**
 * Sorts @p v ascending. @return 0, GP_ENOMEM (a scratch buffer of n elements)
 * or GP_ELIMIT (n of 2^32 or more).
 */
int gp__sort_i64(int64_t *v, size_t n);

/** Sorts @p v by key ascending, stable. @return as gp__sort_i64(). */
int gp__sort_kv(struct gp_kv *v, size_t n);

/**
 * gp__sort_kv() with the caller's scratch buffer of @p n elements (NULL: one
 * of its own), for a caller that sorts several arrays in a row.
 */
int gp__sort_kv_with(struct gp_kv *v, size_t n, struct gp_kv *scratch);

/**
 * Quantile @p q (0..1) of the sorted @p v by linear interpolation between the
 * closest ranks (numpy's and pandas' default); the median is q = 0.5, the mean
 * of the two middle values for an even n. NaN when n is 0.
 */
double gp__quantile_sorted(const int64_t *v, size_t n, double q);

/** qsort comparison of doubles, ascending. */
int gp__cmp_double(const void *a, const void *b);

#endif
