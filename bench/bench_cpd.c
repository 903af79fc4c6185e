/* SPDX-License-Identifier: MIT */
/*
 * bench_cpd.c - the cost of change point detection (src/lib/stats/edivisive.c)
 * against issue 25's budget: 10,000 series of 500 points analysed in seconds.
 *
 * Generates the series first (seeded, tests/unit/cpd_gen.h: the five noise
 * shapes in turn, every tenth series with a 3 % step in its middle), then
 * times, on one thread, gp__cpd_unstable() + gp__cpd_find() over all of
 * them with Otava's options (window 30, max p 0.01, min magnitude 0.05) and
 * with the GPU options (gp__cpd_opts_gpu(), min magnitude 0.02), RUNS times
 * each; prints the median and the range of the wall times, and the change
 * points found (a check that the work was done).
 *
 * usage: bench_cpd [--series N] [--points N] [--window N] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/edivisive.h"
#include "util/error.h"
#include "../tests/unit/cpd_gen.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* one pass over every series; the change points found (steps, trends) and the unstable ones */
static int pass(const double *x, size_t ns, size_t np, const struct gp__cpd_opts *o, size_t *steps,
                size_t *trends, size_t *unstable)
{
	*steps = *trends = *unstable = 0;
	for (size_t s = 0; s < ns; s++) {
		struct gp__cpd_point *p = NULL;
		size_t n = 0;
		int err;

		if (gp__cpd_unstable(x + s * np, np, o)) {
			(*unstable)++;
			continue;
		}
		err = gp__cpd_find(x + s * np, np, o, &p, &n);
		if (err)
			return err;
		for (size_t i = 0; i < n; i++)
			(*(p[i].kind == GP__CPD_TREND ? trends : steps))++;
		gp__free(p);
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t ns = 10000, np = 500, window = 30, runs = 5;
	struct gp__cpd_opts opts[2];
	const char *names[2] = { "otava", "gpu" };
	struct cpd_rng r;
	double *x, *t;

	for (int i = 1; i + 1 < argc; i += 2) {
		size_t v = strtoul(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "--series"))
			ns = v;
		else if (!strcmp(argv[i], "--points"))
			np = v;
		else if (!strcmp(argv[i], "--window"))
			window = v;
		else if (!strcmp(argv[i], "--runs"))
			runs = v;
		else {
			fprintf(
			    stderr,
			    "usage: bench_cpd [--series N] [--points N] [--window N] [--runs N]\n");
			return 2;
		}
	}
	if (!ns || !np || !runs) {
		fprintf(stderr, "bench_cpd: series, points and runs must be > 0\n");
		return 2;
	}
	x = malloc(ns * np * sizeof(*x));
	t = malloc(runs * sizeof(*t));
	if (!x || !t)
		return 1;
	cpd_rng_seed(&r, 500);
	for (size_t s = 0; s < ns; s++) {
		cpd_series(&r, (enum cpd_shape)(s % CPD_NSHAPES), 0.005, x + s * np, np);
		if (s % 10 == 9)
			for (size_t i = np / 2; i < np; i++)
				x[s * np + i] *= 1.03;
	}
	gp__cpd_opts_default(&opts[0]);
	gp__cpd_opts_gpu(&opts[1]);
	opts[1].min_magnitude = 0.02;
	printf("series %zu points %zu window %zu runs %zu\n", ns, np, window, runs);
	for (int k = 0; k < 2; k++) {
		size_t steps = 0, trends = 0, unstable = 0;

		opts[k].window = window;
		for (size_t i = 0; i < runs; i++) {
			double t0 = now_s();
			int err = pass(x, ns, np, &opts[k], &steps, &trends, &unstable);

			t[i] = now_s() - t0;
			if (err) {
				fprintf(stderr, "bench_cpd: %s\n", gp_last_error());
				return 1;
			}
		}
		qsort(t, runs, sizeof(*t), cmp);
		printf(
		    "%-6s median %.3f s (min %.3f, max %.3f), %.1f us/series; steps %zu trends %zu "
		    "unstable %zu\n",
		    names[k], t[runs / 2], t[0], t[runs - 1], 1e6 * t[runs / 2] / (double)ns, steps,
		    trends, unstable);
	}
	free(x);
	free(t);
	return 0;
}
