/* SPDX-License-Identifier: MIT */
/*
 * binom.h - the one-sided binomial test: how likely k or more successes in n
 * trials are by chance. Internal: aggregate's straggler test
 * (src/lib/aggregate/stragglers.c) is its caller.
 */
#ifndef GP_STATS_BINOM_H
#define GP_STATS_BINOM_H

#include <stdint.h>

/**
 * P(X >= @p k) for X ~ Binomial(@p n, @p p): the upper tail, summed in log
 * space (lgamma, log-sum-exp) so that it stays exact to double precision for
 * n in the thousands and tails far below 1e-300 (they give 0, never NaN).
 * 1 when k <= 0; 0 when k > n; p is clamped to [0, 1]. NaN when p is NaN.
 */
double gp__binom_sf(int64_t k, int64_t n, double p);

/**
 * The natural logarithm of gp__binom_sf(), which keeps the magnitude of a
 * tail too small for a double (1e-400 is -921.0): 0 when k <= 0, -inf when
 * k > n or p is 0, NaN when p is NaN.
 */
double gp__binom_logsf(int64_t k, int64_t n, double p);

#endif
