/* SPDX-License-Identifier: MIT */
/*
 * sort.c - radix sorts; see sort.h.
 */
#include "sort.h"

#include <math.h>
#include <string.h>

#include "error.h"

#define SMALL 64

/* digits of at most DIGIT_BITS bits: 3 passes cover the 30-33 bits in which the timestamps of a
 * trace of a few seconds differ, where bytes took 4 */
#define DIGIT_BITS 11
#define MAX_DIGITS ((64 + DIGIT_BITS - 1) / DIGIT_BITS)

static inline uint64_t ukey(int64_t k)
{
	return (uint64_t)k ^ (1ULL << 63); /* order-preserving for signed keys */
}

/* inputs made of at most this many sorted runs are merged instead (at most two passes) */
#define MERGE_RUNS 4

/*
 * One pass of a bottom-up merge: the runs of @p src bounded by b[0..nr]
 * (b[0] = 0, b[nr] = n) merged pairwise into @p dst, left first on ties
 * (stable); b is updated. @return the number of runs left.
 */
#define MERGE_PASS(NAME, T, KEYOF)                                                                 \
	static size_t NAME(const T *src, T *dst, size_t *b, size_t nr)                             \
	{                                                                                          \
		size_t r, o = 0;                                                                   \
                                                                                                   \
		for (r = 0; r + 1 < nr; r += 2) {                                                  \
			size_t i = b[r], j = b[r + 1], ie = b[r + 1], je = b[r + 2], k = b[r];     \
                                                                                                   \
			while (i < ie && j < je)                                                   \
				dst[k++] = KEYOF(src[j]) < KEYOF(src[i]) ? src[j++] : src[i++];    \
			memcpy(dst + k, src + i, (ie - i) * sizeof(T));                            \
			k += ie - i;                                                               \
			memcpy(dst + k, src + j, (je - j) * sizeof(T));                            \
			b[o++] = b[r];                                                             \
		}                                                                                  \
		if (r < nr) {                                                                      \
			memcpy(dst + b[r], src + b[r], (b[r + 1] - b[r]) * sizeof(T));             \
			b[o++] = b[r];                                                             \
		}                                                                                  \
		b[o] = b[nr];                                                                      \
		return o;                                                                          \
	}

/*
 * One generic sort for both element types. A first read finds the bits in
 * which the keys differ and the sorted runs the input is made of: one run
 * is left as it is; a few (the per-thread or per-stream lists of a trace
 * interleaved) are merged; otherwise the differing low bits are split into
 * as few digits of at most DIGIT_BITS bits as cover them, counted for all
 * digits in one read, and scattered one digit per LSD pass, the buffers
 * swapped after each. Small inputs use insertion sort.
 */
#define RADIX_BODY(T, KEYOF, MERGE)                                                                \
	uint32_t cnt[MAX_DIGITS][1u << DIGIT_BITS];                                                \
	T *tmp, *src = v, *dst;                                                                    \
	uint64_t k0, diff = 0, mask;                                                               \
	size_t i, d, ndig, width, nb, runs = 1, nr = 1, bnd[MERGE_RUNS + 2];                       \
                                                                                                   \
	if (n < 2)                                                                                 \
		return 0;                                                                          \
	if (n <= SMALL) {                                                                          \
		for (i = 1; i < n; i++) {                                                          \
			T x = v[i];                                                                \
			size_t j = i;                                                              \
			while (j > 0 && KEYOF(v[j - 1]) > KEYOF(x)) {                              \
				v[j] = v[j - 1];                                                   \
				j--;                                                               \
			}                                                                          \
			v[j] = x;                                                                  \
		}                                                                                  \
		return 0;                                                                          \
	}                                                                                          \
	if (n > UINT32_MAX)                                                                        \
		return gp__error(GP_ELIMIT, "cannot sort %zu elements (at most 2^32 - 1)", n);     \
	k0 = KEYOF(v[0]);                                                                          \
	bnd[0] = 0;                                                                                \
	for (i = 1; i < n; i++) {                                                                  \
		size_t down = KEYOF(v[i - 1]) > KEYOF(v[i]);                                       \
                                                                                                   \
		diff |= KEYOF(v[i]) ^ k0;                                                          \
		/* branch-free: the slot after the last run start is rewritten until a run ends */ \
		bnd[nr] = i;                                                                       \
		nr += down & (nr <= MERGE_RUNS);                                                   \
		runs += down;                                                                      \
	}                                                                                          \
	if (runs == 1)                                                                             \
		return 0;                                                                          \
	tmp = scratch ? scratch : gp__reallocarray(NULL, n, sizeof(T));                            \
	if (!tmp)                                                                                  \
		return gp__error(GP_ENOMEM, "out of memory sorting %zu elements", n);              \
	if (runs <= MERGE_RUNS) {                                                                  \
		bnd[runs] = n;                                                                     \
		for (dst = tmp; runs > 1; dst = src == v ? tmp : v) {                              \
			runs = MERGE(src, dst, bnd, runs);                                         \
			src = dst;                                                                 \
		}                                                                                  \
		goto done;                                                                         \
	}                                                                                          \
	ndig = ((size_t)(64 - __builtin_clzll(diff)) + DIGIT_BITS - 1) / DIGIT_BITS;               \
	width = ((size_t)(64 - __builtin_clzll(diff)) + ndig - 1) / ndig;                          \
	nb = (size_t)1 << width;                                                                   \
	mask = nb - 1;                                                                             \
	for (d = 0; d < ndig; d++)                                                                 \
		memset(cnt[d], 0, nb * sizeof(cnt[d][0]));                                         \
	for (i = 0; i < n; i++) {                                                                  \
		uint64_t k = KEYOF(v[i]);                                                          \
		for (d = 0; d < ndig; d++)                                                         \
			cnt[d][(k >> (d * width)) & mask]++;                                       \
	}                                                                                          \
	dst = tmp;                                                                                 \
	for (d = 0; d < ndig; d++) {                                                               \
		uint32_t sum = 0, c;                                                               \
		size_t b;                                                                          \
		if (cnt[d][(k0 >> (d * width)) & mask] == n)                                       \
			continue;                                                                  \
		for (b = 0; b < nb; b++) {                                                         \
			c = cnt[d][b];                                                             \
			cnt[d][b] = sum;                                                           \
			sum += c;                                                                  \
		}                                                                                  \
		for (i = 0; i < n; i++)                                                            \
			dst[cnt[d][(KEYOF(src[i]) >> (d * width)) & mask]++] = src[i];             \
		{                                                                                  \
			T *sw = src;                                                               \
			src = dst;                                                                 \
			dst = sw;                                                                  \
		}                                                                                  \
	}                                                                                          \
	done:                                                                                      \
	if (src != v)                                                                              \
		memcpy(v, src, n * sizeof(T));                                                     \
	if (tmp != scratch)                                                                        \
		gp__free(tmp);                                                                     \
	return 0;

#define KEY_I64(x) ukey(x)
#define KEY_KV(x)  ukey((x).key)

MERGE_PASS(merge_i64, int64_t, KEY_I64)
MERGE_PASS(merge_kv, struct gp_kv, KEY_KV)

int gp__sort_i64(int64_t *v, size_t n)
{
	int64_t *scratch = NULL;

	RADIX_BODY(int64_t, KEY_I64, merge_i64)
}

int gp__sort_kv_with(struct gp_kv *v, size_t n, struct gp_kv *scratch)
{
	RADIX_BODY(struct gp_kv, KEY_KV, merge_kv)
}

int gp__sort_kv(struct gp_kv *v, size_t n)
{
	return gp__sort_kv_with(v, n, NULL);
}

double gp__quantile_sorted(const int64_t *v, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	lo = (size_t)floor(pos);
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return (double)v[n - 1];
	return (double)v[lo] + frac * (double)(v[lo + 1] - v[lo]);
}

int gp__cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
