/* SPDX-License-Identifier: MIT */
/*
 * sort.c - radix sorts; see sort.h.
 */
#include "sort.h"

#include <math.h>
#include <string.h>

#include "error.h"

#define SMALL 64

static inline uint64_t ukey(int64_t k)
{
	return (uint64_t)k ^ (1ULL << 63); /* order-preserving for signed keys */
}

/*
 * One generic LSD pass structure for both element types: counts for all 8
 * byte positions are made in one read, positions with a single bucket are
 * skipped, and the buffers are swapped after each pass.
 */
#define RADIX_BODY(T, KEYOF)                                                                       \
	size_t cnt[8][256];                                                                        \
	T *tmp, *src = v, *dst;                                                                    \
	size_t i, b;                                                                               \
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
	tmp = gp__reallocarray(NULL, n, sizeof(T));                                                \
	if (!tmp)                                                                                  \
		return gp__error(GP_ENOMEM, "out of memory sorting %zu elements", n);              \
	memset(cnt, 0, sizeof(cnt));                                                               \
	for (i = 0; i < n; i++) {                                                                  \
		uint64_t k = KEYOF(v[i]);                                                          \
		for (b = 0; b < 8; b++)                                                            \
			cnt[b][(k >> (8 * b)) & 255]++;                                            \
	}                                                                                          \
	dst = tmp;                                                                                 \
	for (b = 0; b < 8; b++) {                                                                  \
		size_t sum = 0, c;                                                                 \
		uint64_t k0 = (KEYOF(src[0]) >> (8 * b)) & 255;                                    \
		if (cnt[b][k0] == n)                                                               \
			continue;                                                                  \
		for (c = 0; c < 256; c++) {                                                        \
			size_t t = cnt[b][c];                                                      \
			cnt[b][c] = sum;                                                           \
			sum += t;                                                                  \
		}                                                                                  \
		for (i = 0; i < n; i++)                                                            \
			dst[cnt[b][(KEYOF(src[i]) >> (8 * b)) & 255]++] = src[i];                  \
		{                                                                                  \
			T *sw = src;                                                               \
			src = dst;                                                                 \
			dst = sw;                                                                  \
		}                                                                                  \
	}                                                                                          \
	if (src != v)                                                                              \
		memcpy(v, src, n * sizeof(T));                                                     \
	gp__free(tmp);                                                                             \
	return 0;

#define KEY_I64(x) ukey(x)
#define KEY_KV(x)  ukey((x).key)

int gp__sort_i64(int64_t *v, size_t n)
{
	RADIX_BODY(int64_t, KEY_I64)
}

int gp__sort_kv(struct gp_kv *v, size_t n)
{
	RADIX_BODY(struct gp_kv, KEY_KV)
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
