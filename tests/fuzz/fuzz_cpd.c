/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cpd.c - libFuzzer target for change point detection
 * (src/lib/stats/edivisive.c) on arbitrary numbers.
 *
 * The first 4 bytes choose the options (window 2..65, max p-value, min
 * magnitude, each filter and the trend test on or off, Otava's merge); the
 * rest are the series, 8 bytes a double (NaN, infinities, denormals and huge
 * values included), at most 2,000 points. Errors are fine (an infinite point
 * is GP_EINVAL); crashes, sanitizer reports, an answer that changes on a
 * second call, and a result out of its documented ranges (indices strictly
 * increasing inside the series, a trend only last, p-values and steppiness
 * in [0, 1]) are findings.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/edivisive.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct gp__cpd_point *p, size_t np, size_t n)
{
	for (size_t i = 0; i < np; i++) {
		if (p[i].index >= n || (p[i].kind == GP__CPD_STEP && p[i].index == 0))
			abort();
		if (p[i].kind == GP__CPD_TREND && i != np - 1)
			abort();
		if (i && p[i].kind == GP__CPD_STEP && p[i].index <= p[i - 1].index)
			abort();
		if (!(p[i].pvalue >= 0 && p[i].pvalue <= 1))
			abort();
		if (p[i].kind == GP__CPD_STEP && !(p[i].steppiness >= 0 && p[i].steppiness <= 1) &&
		    !isnan(p[i].steppiness))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp__cpd_opts o;
	struct gp__cpd_point *p = NULL, *q = NULL;
	size_t n, np = 0, nq = 0;
	double *x;
	int a, b;

	if (size < 4)
		return 0;
	gp__cpd_opts_default(&o);
	o.window = 2 + data[0] % 64;
	o.max_pvalue = (data[1] % 8 + 1) / 16.0;
	o.min_magnitude = (data[2] % 8) / 40.0;
	o.min_points_each_side = data[3] & 1 ? 3 : 0;
	o.min_median_change = data[3] & 2 ? 0.01 : NAN;
	o.min_steppiness = data[3] & 4 ? 0.5 : NAN;
	o.outlier_z = data[3] & 8 ? 6.745 : 0;
	o.trend_alpha = data[3] & 16 ? 0.01 : NAN;
	o.otava_merge = data[3] & 32;
	data += 4;
	size -= 4;
	n = size / sizeof(double);
	if (n > 2000)
		n = 2000;
	x = malloc((n ? n : 1) * sizeof(*x));
	if (!x)
		return 0;
	memcpy(x, data, n * sizeof(*x));
	a = gp__cpd_find(x, n, &o, &p, &np);
	b = gp__cpd_find(x, n, &o, &q, &nq);
	if (a != b || np != nq || (np && memcmp(p, q, np * sizeof(*p))))
		abort();
	if (!a)
		check(p, np, n);
	(void)gp__cpd_unstable(x, n, &o);
	gp__free(p);
	gp__free(q);
	free(x);
	return 0;
}
