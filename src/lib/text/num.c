/* SPDX-License-Identifier: MIT */
/*
 * num.c - numbers for people (text.h): the one duration formatter, the one
 * byte formatter, percentages, counts, rates and plain numbers.
 *
 * Every formatter writes at most @p n bytes into the caller's buffer and
 * returns it; a value that is not finite is unknown and prints as "-".
 * The precision policy is text.h's: four significant digits for durations,
 * one decimal for bytes, the unit chosen after rounding, so a value never
 * prints as "1000.0 µs" or "1024.0 KiB".
 */
#include <math.h>
#include <stdio.h>

#include "gpuprof/gpuprof.h"
#include "text/text.h"

static const char *unknown(char *buf, size_t n)
{
	snprintf(buf, n, "-");
	return buf;
}

const char *gp__fmt_dur(char *buf, size_t n, double ns, unsigned flags)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e3, "µs" }, { 1e6, "ms" }, { 1e9, "s" } };
	const size_t nu = sizeof(u) / sizeof(u[0]);
	const char *sg;
	double v, a;
	size_t i;

	if (!isfinite(ns))
		return unknown(buf, n);
	v = round(ns) + 0.0; /* whole nanoseconds; + 0.0: no "-0" */
	sg = (flags & GP__FMT_SIGN) && v >= 0 ? "+" : "";
	a = fabs(v);
	if (a < 1e3) {
		snprintf(buf, n, "%s%.0f ns", sg, v);
		return buf;
	}
	for (i = 0; i + 1 < nu; i++)
		if (a < u[i + 1].div)
			break;
	v /= u[i].div;
	a = fabs(v);
	if (a < 9.9995)
		snprintf(buf, n, "%s%.3f %s", sg, v, u[i].unit);
	else if (a < 99.995)
		snprintf(buf, n, "%s%.2f %s", sg, v, u[i].unit);
	else if (a < 999.95 || i + 1 == nu)
		snprintf(buf, n, "%s%.1f %s", sg, v, u[i].unit);
	else
		snprintf(buf, n, "%s%.3f %s", sg, v / 1e3, u[i + 1].unit);
	return buf;
}

const char *gp__fmt_bytes(char *buf, size_t n, double b, unsigned flags)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	const char *sg = b < 0 ? "-" : (flags & GP__FMT_SIGN) ? "+" : "";
	double a = fabs(b);
	size_t i = 0;

	if (!isfinite(b))
		return unknown(buf, n);
	/* the next unit from where the rounded value would read 1024 */
	while (i + 1 < sizeof(unit) / sizeof(unit[0]) && a >= (i ? 1023.95 : 1023.5)) {
		a /= 1024;
		i++;
	}
	if (flags & GP__FMT_COMPACT) {
		/* three significant digits: "1.5G", "512M", "80G"; the unit after rounding */
		if (i && a >= 1023.5 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
			a /= 1024;
			i++;
		}
		snprintf(buf, n, a < 9.95 && i ? "%s%.1f%c" : "%s%.0f%c", sg, a, unit[i][0]);
	} else if (!i)
		snprintf(buf, n, "%s%.0f B", sg, a);
	else
		snprintf(buf, n, "%s%.1f %s", sg, a, unit[i]);
	return buf;
}

GP_API const char *gp_format_duration(double ns, unsigned flags, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	return gp__fmt_dur(buf, size, ns, flags & GP_FORMAT_SIGN);
}

GP_API const char *gp_format_bytes(double bytes, unsigned flags, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	return gp__fmt_bytes(buf, size, bytes, flags & (GP_FORMAT_SIGN | GP_FORMAT_COMPACT));
}

const char *gp__fmt_pct(char *buf, size_t n, double pct, unsigned flags)
{
	if (!isfinite(pct))
		return unknown(buf, n);
	snprintf(buf, n, (flags & GP__FMT_SIGN) ? "%+.1f%s" : "%.1f%s", pct,
	         (flags & GP__FMT_SPACE) ? " %" : "%");
	return buf;
}

const char *gp__fmt_count(char *buf, size_t n, double v)
{
	return gp__fmt_num(buf, n, v, 0, "");
}

const char *gp__fmt_num(char *buf, size_t n, double v, int decimals, const char *suffix)
{
	if (!isfinite(v))
		return unknown(buf, n);
	snprintf(buf, n, "%.*f%s", decimals, v, suffix);
	return buf;
}

const char *gp__fmt_rate(char *buf, size_t n, double r)
{
	double a = fabs(r);

	if (!isfinite(r))
		return unknown(buf, n);
	/* the durations' four significant digits, without a unit to move to */
	snprintf(buf, n, "%.*f", a < 9.9995 ? 3 : a < 99.995 ? 2 : a < 999.95 ? 1 : 0, r);
	return buf;
}
