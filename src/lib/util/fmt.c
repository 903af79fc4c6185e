/* SPDX-License-Identifier: MIT */
/* fmt.c - numbers for people (fmt.h). */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>

const char *gp__fmt_ns(char *buf, size_t n, double ns, bool sign)
{
	double a = fabs(ns);
	const char *sg = ns < 0 ? "-" : sign ? "+" : "";

	if (!isfinite(ns))
		snprintf(buf, n, "-");
	else if (a >= 1e9)
		snprintf(buf, n, "%s%.3f s", sg, a / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%s%.3f ms", sg, a / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%s%.3f µs", sg, a / 1e3);
	else
		snprintf(buf, n, "%s%.0f ns", sg, a);
	return buf;
}

const char *gp__fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double a = fabs(b);
	size_t k = 0;

	if (!isfinite(b)) {
		snprintf(buf, n, "-");
		return buf;
	}
	while (a >= 1024 && k < 4) {
		a /= 1024;
		k++;
	}
	snprintf(buf, n, k ? "%s%.2f %s" : "%s%.0f %s", b < 0 ? "-" : "", a, u[k]);
	return buf;
}

int gp__cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
