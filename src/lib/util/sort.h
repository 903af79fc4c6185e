/* SPDX-License-Identifier: MIT */
/*
 * sort.h - fast sorts for the analyses' hot paths.
 *
 * LSD radix sorts over 64-bit keys that skip the byte positions where every
 * key agrees (timestamps of one trace share their high bytes), so sorting a
 * million events costs a few passes instead of qsort's comparator calls.
 * Small inputs fall back to insertion sort. Also the one quantile definition
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

/** Sorts @p v ascending. @return 0 or GP_ENOMEM (a scratch buffer of n elements). */
int gp__sort_i64(int64_t *v, size_t n);

/** Sorts @p v by key ascending, stable. @return 0 or GP_ENOMEM. */
int gp__sort_kv(struct gp_kv *v, size_t n);

/**
 * Quantile @p q (0..1) of the sorted @p v by linear interpolation between the
 * closest ranks (numpy's and pandas' default); the median is q = 0.5, the mean
 * of the two middle values for an even n. NaN when n is 0.
 */
double gp__quantile_sorted(const int64_t *v, size_t n, double q);

#endif
