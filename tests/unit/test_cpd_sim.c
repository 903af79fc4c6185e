/* SPDX-License-Identifier: MIT */
/*
 * test_cpd_sim.c - the acceptance points of issue 25 that are the change
 * point algorithm's, on seeded generated series (cpd_gen.h), with the GPU
 * options (gp__cpd_opts_gpu()) and a threshold of 2 % (min_magnitude 0.02):
 *
 * - pure noise, 10,000 series of 500 points in five shapes (Gaussian,
 *   Student t3, log-normal, bimodal, 2 % outliers 20 % high) at a relative
 *   scale of 0.5 %: alarms (a change point on a series not called
 *   unstable) on at most 1 % of the series, and of each shape;
 * - a 3 % step after 50 points (100 points in all) is found within 5 points
 *   in at least 99 % of 200 series per shape;
 * - a creep of 0.5 % per week over 20 weeks of daily points (140 points,
 *   10.5 % in all, after 60 flat ones) is flagged (a change point upwards in
 *   the creep) in at least 99 % of 200 series per shape;
 * - a drift too gentle for E-divisive at 5 % (6 % over 140 points, so the
 *   halves differ by 3 %) is reported by the trend test as its own kind;
 * - the unstable rule: noise above the threshold is unstable, noise below it
 *   is not, and a step does not make a quiet series look noisy.
 *
 * The bounds are statistical; the seeds make the counts the same on every
 * run. No timing is asserted (bench/bench_cpd.c times the same work).
 */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/edivisive.h"
#include "cpd_gen.h"

#define NOISE_SERIES 2000 /* per shape: 10,000 in all */
#define NOISE_LEN    500
#define SCALE        0.005
#define THRESHOLD    0.02

static void gpu_opts(struct gp__cpd_opts *o)
{
	gp__cpd_opts_gpu(o);
	o->min_magnitude = THRESHOLD;
}

static void test_noise(void **state)
{
	struct gp__cpd_opts o;
	struct cpd_rng r;
	double *x = malloc(NOISE_LEN * sizeof(*x));
	size_t total = 0;

	(void)state;
	assert_non_null(x);
	gpu_opts(&o);
	cpd_rng_seed(&r, 25);
	for (int sh = 0; sh < CPD_NSHAPES; sh++) {
		size_t alarms = 0, unstable = 0;

		for (int k = 0; k < NOISE_SERIES; k++) {
			struct gp__cpd_point *p = NULL;
			size_t np = 0;

			cpd_series(&r, sh, SCALE, x, NOISE_LEN);
			if (gp__cpd_unstable(x, NOISE_LEN, &o)) {
				unstable++;
				continue;
			}
			assert_int_equal(gp__cpd_find(x, NOISE_LEN, &o, &p, &np), 0);
			alarms += np > 0;
			gp__free(p);
		}
		print_message("%-10s alarms %zu unstable %zu of %d\n", cpd_shape_names[sh], alarms,
		              unstable, NOISE_SERIES);
		assert_true(alarms * 100 <= NOISE_SERIES);
		total += alarms;
	}
	assert_true(total * 100 <= NOISE_SERIES * CPD_NSHAPES);
	free(x);
}

/*
 * 200 series of 100 points of each shape with a 3 % step at point @p at
 * (seed @p seed): how many get a step found within @p slack points of it
 * with a relative change in 2 %..@p max_rel, printed; at least @p need of
 * each shape.
 */
static void steps_found(uint64_t seed, int at, int slack, double max_rel, int need,
                        const char *what)
{
	struct gp__cpd_opts o;
	struct cpd_rng r;
	double x[100];

	gpu_opts(&o);
	cpd_rng_seed(&r, seed);
	for (int sh = 0; sh < CPD_NSHAPES; sh++) {
		int found = 0;

		for (int k = 0; k < 200; k++) {
			struct gp__cpd_point *p = NULL;
			size_t np = 0;

			cpd_series(&r, sh, SCALE, x, 100);
			for (int i = at; i < 100; i++)
				x[i] *= 1.03;
			assert_int_equal(gp__cpd_find(x, 100, &o, &p, &np), 0);
			for (size_t i = 0; i < np; i++) {
				if (p[i].kind == GP__CPD_STEP && (int)p[i].index >= at - slack &&
				    (int)p[i].index <= at + slack && p[i].rel_change > 0.02 &&
				    p[i].rel_change < max_rel) {
					found++;
					break;
				}
			}
			gp__free(p);
		}
		print_message("%-10s 3 %% step %s found %d of 200\n", cpd_shape_names[sh], what,
		              found);
		assert_true(found >= need);
	}
}

static void test_step(void **state)
{
	(void)state;
	steps_found(3, 50, 5, 0.04, 198, "after 50 of 100 points");
}

/*
 * A 3 % step among the newest points: 10 of 100 after it. Its points lie far
 * from the series' median, so an outlier rule over the whole series would
 * take them for spikes (as it did before runs of outliers were kept): the
 * CI gate sees a step first when it is this recent.
 */
static void test_late_step(void **state)
{
	(void)state;
	/* 10 points after it: a spike among them moves their mean past 4 % */
	steps_found(5, 90, 2, INFINITY, 190, "10 points from the end");
}

static void test_creep(void **state)
{
	struct gp__cpd_opts o;
	struct cpd_rng r;
	double x[200];

	(void)state;
	gpu_opts(&o);
	cpd_rng_seed(&r, 20);
	for (int sh = 0; sh < CPD_NSHAPES; sh++) {
		int flagged = 0;

		for (int k = 0; k < 200; k++) {
			struct gp__cpd_point *p = NULL;
			size_t np = 0;

			cpd_series(&r, sh, SCALE, x, 200);
			for (int i = 60; i < 200; i++) /* day i - 59 of the creep */
				x[i] *= pow(1.005, (double)(i - 59) / 7);
			assert_int_equal(gp__cpd_find(x, 200, &o, &p, &np), 0);
			for (size_t i = 0; i < np; i++) {
				if (p[i].index >= 55 && p[i].rel_change > 0) {
					flagged++;
					break;
				}
			}
			gp__free(p);
		}
		print_message("%-10s creep flagged %d of 200\n", cpd_shape_names[sh], flagged);
		assert_true(flagged >= 198);
	}
}

/* 6 % over 140 points at 1 % noise, threshold 5 %: steps miss it, the trend test does not */
static void test_trend(void **state)
{
	struct gp__cpd_opts o;
	struct cpd_rng r;
	double x[140];
	int trends = 0, steps = 0, off = 0;

	(void)state;
	gp__cpd_opts_gpu(&o);
	cpd_rng_seed(&r, 6);
	for (int k = 0; k < 200; k++) {
		struct gp__cpd_point *p = NULL;
		size_t np = 0;

		cpd_series(&r, CPD_GAUSS, 0.01, x, 140);
		for (int i = 0; i < 140; i++)
			x[i] *= 1 + 0.06 * i / 139.0;
		assert_int_equal(gp__cpd_find(x, 140, &o, &p, &np), 0);
		for (size_t i = 0; i < np; i++) {
			if (p[i].kind == GP__CPD_TREND) {
				trends++;
				assert_true(p[i].rel_change > 0.04 && p[i].rel_change < 0.08);
				assert_true(p[i].pvalue < o.trend_alpha);
				assert_true(i == np - 1);
			} else {
				steps++;
			}
		}
		gp__free(p);
		o.trend_alpha = NAN;
		assert_int_equal(gp__cpd_find(x, 140, &o, &p, &np), 0);
		off += np > 0;
		gp__free(p);
		o.trend_alpha = 0.001;
	}
	print_message("trend %d steps %d (trend test off: %d flagged) of 200\n", trends, steps,
	              off);
	assert_true(trends >= 190);
	assert_true(off <= 20);
}

static void test_unstable(void **state)
{
	struct gp__cpd_opts o;
	struct cpd_rng r;
	double x[300], noise;
	int unstable = 0, stable = 0;

	(void)state;
	gpu_opts(&o);
	cpd_rng_seed(&r, 9);
	for (int k = 0; k < 200; k++) {
		cpd_series(&r, k % CPD_NSHAPES, 0.03, x, 300); /* 3 % noise, 2 % threshold */
		unstable += gp__cpd_unstable(x, 300, &o);
		cpd_series(&r, CPD_GAUSS, 0.003, x, 300);
		stable += !gp__cpd_unstable(x, 300, &o);
	}
	assert_int_equal(unstable, 200);
	assert_int_equal(stable, 200);
	/* a 20 % step hardly moves the noise estimate of a quiet series */
	cpd_series(&r, CPD_GAUSS, 0.005, x, 300);
	noise = gp__cpd_noise(x, 300);
	assert_true(noise > 0.004 && noise < 0.006);
	for (int i = 150; i < 300; i++)
		x[i] *= 1.2;
	assert_true(fabs(gp__cpd_noise(x, 300) - noise) < 0.1 * noise);
	assert_false(gp__cpd_unstable(x, 300, &o));
	/* no threshold, no rule; too few points, no estimate */
	o.min_magnitude = 0;
	assert_false(gp__cpd_unstable(x, 300, &o));
	assert_true(isnan(gp__cpd_noise(x, 2)));
}

/* the Chromium filters and the outlier rule, each on a series made for it */
static void test_filters(void **state)
{
	struct gp__cpd_opts o;
	struct gp__cpd_point *p = NULL;
	size_t np = 0;
	double x[60];

	(void)state;
	for (int i = 0; i < 60; i++)
		x[i] = 100 + 0.1 * (i % 5) + (i >= 30 ? 10 : 0);
	x[20] = x[21] = 115; /* a spike of two points */
	gp__cpd_opts_default(&o);
	assert_int_equal(gp__cpd_find(x, 60, &o, &p, &np), 0);
	assert_int_equal(np, 3); /* Otava: the spike is a segment of its own */
	assert_int_equal(p[0].index, 20);
	assert_int_equal(p[1].index, 22);
	gp__free(p);
	o.min_points_each_side = 5;
	assert_int_equal(gp__cpd_find(x, 60, &o, &p, &np), 0);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].index, 30);
	assert_true(p[0].steppiness > 0.4 &&
	            p[0].steppiness <
	                0.6); /* 1 - sqrt(SSW / SST): the spike is in its left side, ~0.5 */
	gp__free(p);
	/* steppiness: a perfect step is 1 */
	for (int i = 0; i < 60; i++)
		x[i] = i < 30 ? 100 : 110;
	assert_int_equal(gp__cpd_find(x, 60, &o, &p, &np), 0);
	assert_int_equal(np, 1);
	assert_true(p[0].steppiness == 1);
	assert_true(p[0].pvalue == 0);
	assert_true(fabs(p[0].rel_change - 0.1) < 1e-12);
	gp__free(p);
	/* a step under the median filter's threshold goes */
	o.min_median_change = 0.2;
	assert_int_equal(gp__cpd_find(x, 60, &o, &p, &np), 0);
	assert_int_equal(np, 0);
	o.min_median_change = NAN;
	o.min_steppiness = 0.5;
	assert_int_equal(gp__cpd_find(x, 60, &o, &p, &np), 0);
	assert_int_equal(np, 1);
	gp__free(p);
	/* the outlier rule: the spike is filled, no filter needed */
	for (int i = 0; i < 60; i++)
		x[i] = 100 + 0.1 * (i % 5);
	x[20] = 150;
	gp__cpd_opts_default(&o);
	o.outlier_z = 6.745;
	assert_int_equal(gp__cpd_find(x, 60, &o, &p, &np), 0);
	assert_int_equal(np, 0);
}

static void test_edges(void **state)
{
	struct gp__cpd_opts o;
	struct gp__cpd_point *p = NULL, *q = NULL;
	size_t np = 0, nq = 0;
	double x[80];
	struct cpd_rng r;

	(void)state;
	gp__cpd_opts_default(&o);
	o.window = 1;
	assert_int_equal(gp__cpd_find(x, 0, &o, &p, &np), GP_EINVAL);
	gp__cpd_opts_default(&o);
	o.max_pvalue = 0;
	assert_int_equal(gp__cpd_find(x, 0, &o, &p, &np), GP_EINVAL);
	gp__cpd_opts_default(&o);
	o.min_magnitude = -1;
	assert_int_equal(gp__cpd_find(x, 0, &o, &p, &np), GP_EINVAL);
	for (int i = 0; i < 80; i++)
		x[i] = 5;
	assert_int_equal(gp__cpd_find(x, 80, NULL, &p, &np), 0);
	assert_int_equal(np, 0); /* constant */
	assert_int_equal(gp__cpd_find(x, 1, NULL, &p, &np), 0);
	assert_int_equal(np, 0);
	x[3] = INFINITY;
	assert_int_equal(gp__cpd_find(x, 80, NULL, &p, &np), GP_EINVAL);
	/* deterministic, and a window larger than the series is the whole series */
	cpd_rng_seed(&r, 1);
	cpd_series(&r, CPD_STUDENT3, 0.01, x, 80);
	for (int i = 40; i < 80; i++)
		x[i] *= 0.9;
	gp__cpd_opts_gpu(&o);
	o.window = 200;
	assert_int_equal(gp__cpd_find(x, 80, &o, &p, &np), 0);
	assert_int_equal(gp__cpd_find(x, 80, &o, &q, &nq), 0);
	assert_int_equal(np, nq);
	assert_true(np >= 1);
	assert_memory_equal(p, q, np * sizeof(*p));
	assert_true(p[0].index == 40 && p[0].rel_change < -0.05);
	gp__free(p);
	gp__free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise),     cmocka_unit_test(test_step),
		cmocka_unit_test(test_late_step), cmocka_unit_test(test_creep),
		cmocka_unit_test(test_trend),     cmocka_unit_test(test_unstable),
		cmocka_unit_test(test_filters),   cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
