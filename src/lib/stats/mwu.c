/* SPDX-License-Identifier: MIT */
/*
 * mwu.c - the two-sided Mann-Whitney U (Wilcoxon rank-sum) test (stats.h).
 *
 * U of a counts the pairs (a_i, b_j) with a_i > b_j, ties counting 1/2; it
 * is found from the pooled sample sorted once, group of equal values by
 * group, so half-integers stay exact. Without ties and with both samples of
 * at most 50 values the p-value comes from the exact null distribution of
 * U; otherwise from the normal approximation with the tie-corrected
 * variance and a continuity correction of 0.5, as scipy.stats.mannwhitneyu
 * computes it (method "asymptotic").
 *
 * The exact distribution: the number of orderings of m + n distinct values
 * whose U is k is the coefficient of q^k in the Gaussian binomial
 * [m+n choose m]_q (Mann and Whitney's recurrence
 * c(k; m, n) = c(k - n; m - 1, n) + c(k; m, n - 1) summed up), built one
 * factor at a time,
 *   [n+i choose i]_q = [n+i-1 choose i-1]_q (1 - q^(n+i)) / (1 - q^i),
 * in exact integer counts (64-bit up to 67 values in all, 128-bit beyond:
 * C(100, 50) < 2^97, so nothing overflows and nothing is rounded before the
 * final division) and truncated at the degree the tail needs. That is O(min(m, n) * m n / 2)
 * work, against O(m^2 n^2) for the two-dimensional recurrence: the
 * regression simulation calls this thousands of times.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/stats.h"
#include "util/error.h"

#define EXACT_MAX 50

/* unsigned 128-bit counts, add and subtract only (wrapping, like unsigned) */
struct u128 {
	uint64_t lo, hi;
};

static inline void u128_add(struct u128 *a, const struct u128 *b)
{
	uint64_t lo = a->lo + b->lo;

	a->hi += b->hi + (lo < a->lo);
	a->lo = lo;
}

static inline void u128_sub(struct u128 *a, const struct u128 *b)
{
	uint64_t lo = a->lo - b->lo;

	a->hi -= b->hi + (a->lo < b->lo);
	a->lo = lo;
}

static double u128_double(const struct u128 *a)
{
	return (double)a->hi * 18446744073709551616.0 + (double)a->lo;
}

/* 1 / C(n, k), underflowing gracefully to 0 */
static double inv_binom(size_t n, size_t k)
{
	double r = 1;
	size_t i;

	if (k > n - k)
		k = n - k;
	for (i = 1; i <= k && r > 0; i++)
		r *= (double)i / (double)(n - k + i);
	return r;
}

double gp_mann_whitney_min_p(size_t na, size_t nb)
{
	double p = 2 * inv_binom(na + nb, na);

	return p < 1 ? p : 1;
}

/*
 * The counts c[0..u] of orderings with U = k (see the top of the file), m <= n.
 * Unsigned arithmetic wraps, but every final count is below C(m + n, m), so
 * results are exact when that fits the type: 64 bits up to m + n = 67
 * (C(67, 33) < 2^64), 128 bits beyond (C(100, 50) < 2^97).
 */
static const uint64_t *counts64(size_t m, size_t n, size_t u, uint64_t *a, uint64_t *b)
{
	size_t i, k;

	/*
	 * Out of place, one pass per factor: b = a (1 - q^d) / (1 - q^i), i.e.
	 * b[k] = a[k] - a[k - d] + b[k - i], up to the degree i n of the result.
	 * Entries of a past the previous degree were never written: zero.
	 */
	a[0] = 1; /* [n choose 0]_q = 1 */
	for (i = 1; i <= m; i++) {
		size_t d = n + i, top = i * n < u ? i * n : u;
		uint64_t *t;

		for (k = 0; k < i && k <= top; k++)
			b[k] = a[k];
		for (; k < d && k <= top; k++)
			b[k] = a[k] + b[k - i];
		for (; k <= top; k++)
			b[k] = a[k] - a[k - d] + b[k - i];
		t = a;
		a = b;
		b = t;
	}
	return a;
}

static void counts128(size_t m, size_t n, size_t u, struct u128 *c)
{
	size_t i, k;

	c[0].lo = 1; /* in place: two passes per factor */
	for (i = 1; i <= m; i++) {
		size_t d = n + i;

		/* times (1 - q^d), from the top so that c[k - d] is still the old one (d >= 2) */
		for (k = u; k >= d; k--)
			u128_sub(&c[k], &c[k - d]);
		/* over (1 - q^i): running sums of stride i, from the bottom */
		for (k = i; k <= u; k++)
			u128_add(&c[k], &c[k - i]);
	}
}

/*
 * P(U <= u) under the null hypothesis for samples of m and n distinct
 * values, u <= m n / 2 (the smaller tail).
 */
static int exact_cdf(size_t m, size_t n, size_t u, double *p)
{
	double count;
	size_t k;

	if (m > n) { /* U's distribution is the same with the sizes swapped: fewer factors */
		size_t t = m;

		m = n;
		n = t;
	}
	if (m + n <= 67) {
		uint64_t *buf = gp__calloc(2 * (u + 1), sizeof(*buf)), sum = 0;
		const uint64_t *c;

		if (!buf)
			return gp__error(GP_ENOMEM, "out of memory");
		c = counts64(m, n, u, buf, buf + u + 1);
		for (k = 0; k <= u; k++)
			sum += c[k];
		gp__free(buf);
		count = (double)sum;
	} else {
		struct u128 *c = gp__calloc(u + 1, sizeof(*c)), sum = { 0, 0 };

		if (!c)
			return gp__error(GP_ENOMEM, "out of memory");
		counts128(m, n, u, c);
		for (k = 0; k <= u; k++)
			u128_add(&sum, &c[k]);
		gp__free(c);
		count = u128_double(&sum);
	}
	*p = count * inv_binom(m + n, m);
	return 0;
}

struct tagged {
	double v;
	int a; /* 1: from sample a */
};

static int cmp_tagged(const void *x, const void *y)
{
	double a = ((const struct tagged *)x)->v, b = ((const struct tagged *)y)->v;

	return (a > b) - (a < b);
}

static int check(const double *x, size_t n, const char *what)
{
	size_t i;

	if (!n)
		return gp__error(GP_EINVAL, "mann-whitney: sample %s is empty", what);
	if (!x)
		return gp__error(GP_EINVAL, "mann-whitney: sample %s has no values", what);
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return gp__error(GP_EINVAL, "mann-whitney: %s[%zu] is not finite", what, i);
	return 0;
}

int gp_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct gp_mwu *out)
{
	struct tagged *t = NULL;
	struct gp_mwu r;
	size_t n, i, j, b_below = 0;
	double tie_term = 0, nab;
	int rc = 0;

	if (!out)
		return gp__error(GP_EINVAL, "mann-whitney: no output");
	GP_TRY(check(a, na, "a"));
	GP_TRY(check(b, nb, "b"));
	n = na + nb;
	t = gp__reallocarray(NULL, n, sizeof(*t));
	if (!t)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < na; i++)
		t[i] = (struct tagged){ a[i], 1 };
	for (i = 0; i < nb; i++)
		t[na + i] = (struct tagged){ b[i], 0 };
	qsort(t, n, sizeof(*t), cmp_tagged);

	memset(&r, 0, sizeof(r));
	/* per group of equal values: each a beats the b's below and ties half the group's b's */
	for (i = 0; i < n; i = j) {
		size_t ga = 0, gb;

		for (j = i; j < n && t[j].v == t[i].v; j++)
			ga += (size_t)t[j].a;
		gb = (j - i) - ga;
		r.u_a += (double)ga * (double)b_below + 0.5 * (double)ga * (double)gb;
		b_below += gb;
		if (j - i > 1) {
			double g = (double)(j - i);

			r.ties = true;
			tie_term += g * g * g - g;
		}
	}
	nab = (double)na * (double)nb;
	r.u_b = nab - r.u_a;

	if (!r.ties && na <= EXACT_MAX && nb <= EXACT_MAX) {
		size_t u = (size_t)r.u_a, mn = na * nb;
		double p = 1;

		r.exact = true;
		GP_TRY(exact_cdf(na, nb, u < mn - u ? u : mn - u, &p));
		r.p = 2 * p < 1 ? 2 * p : 1;
	} else {
		double nn = (double)n;
		double var = nab / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
		double d = r.u_a - nab / 2, ad = fabs(d) - 0.5;

		if (var > 0 && ad > 0) {
			r.z = copysign(ad / sqrt(var), d);
			r.p = erfc(ad / sqrt(var) / M_SQRT2); /* 2 * (1 - Phi(|z|)) */
		} else {
			r.p = 1; /* every value tied, or U at its mean within the correction */
		}
		if (r.p > 1)
			r.p = 1;
	}
	*out = r;
out:
	gp__free(t);
	return rc;
}
