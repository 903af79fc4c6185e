/* SPDX-License-Identifier: MIT */
/*
 * binom.c - the one-sided binomial tail P(X >= k), the test beside
 * Mann-Whitney (mwu.c) and Welch (welch.c) that aggregate uses to say
 * whether a rank arrives last at collectives more often than chance.
 *
 * Each term C(n, i) p^i (1-p)^(n-i) is taken as its logarithm (lgamma), the
 * terms summed from the largest down (log-sum-exp), so no term overflows or
 * underflows before it is scaled: n = 10000 is as exact as n = 10.
 */
#include "binom.h"

#include <math.h>

/* log C(n, i) p^i q^(n-i) */
static double log_term(int64_t n, int64_t i, double lp, double lq)
{
	double t = lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1);

	if (i > 0)
		t += (double)i * lp;
	if (n - i > 0)
		t += (double)(n - i) * lq;
	return t;
}

double gp__binom_logsf(int64_t k, int64_t n, double p)
{
	double lp, lq, top, sum = 0.0;
	int64_t i;

	if (isnan(p))
		return NAN;
	if (k <= 0)
		return 0.0;
	if (n < 0 || k > n || p <= 0.0)
		return -INFINITY;
	if (p >= 1.0)
		return 0.0;
	lp = log(p);
	lq = log1p(-p);
	/*
	 * The terms rise to the mode floor((n + 1) p) and fall after it: the
	 * largest of the tail is at max(k, mode). Scaling by it keeps each
	 * exp() in [0, 1].
	 */
	{
		int64_t mode = (int64_t)floor((double)(n + 1) * p);

		if (mode > n)
			mode = n;
		top = log_term(n, mode > k ? mode : k, lp, lq);
	}
	for (i = k; i <= n; i++) {
		double t = log_term(n, i, lp, lq) - top;

		if (t < -745.0 && i > k && (double)i > (double)(n + 1) * p)
			break; /* past the mode, every later term is smaller still */
		sum += exp(t);
	}
	top += log(sum);
	return top > 0.0 ? 0.0 : top;
}

double gp__binom_sf(int64_t k, int64_t n, double p)
{
	return exp(gp__binom_logsf(k, n, p));
}
