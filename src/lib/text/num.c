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
#include "util/error.h"

static const char *unknown(char *buf, size_t n)
{
	snprintf(buf, n, "-");
	return buf;
}

/* how gp__fmt_dur() writes a duration like @p ns: the unit's divisor and name, the decimals */
struct dur_unit {
	double div;
	const char *name;
	int decimals;
};

static struct dur_unit dur_unit_of(double ns)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e3, "µs" }, { 1e6, "ms" }, { 1e9, "s" } };
	const size_t nu = sizeof(u) / sizeof(u[0]);
	struct dur_unit d = { 1, "ns", 0 };
	double a = fabs(round(ns));
	size_t i;

	if (a < 1e3)
		return d;
	for (i = 0; i + 1 < nu; i++)
		if (a < u[i + 1].div)
			break;
	a /= u[i].div;
	d.div = u[i].div;
	d.name = u[i].unit;
	if (a < 9.9995)
		d.decimals = 3;
	else if (a < 99.995)
		d.decimals = 2;
	else if (a < 999.95 || i + 1 == nu)
		d.decimals = 1;
	else { /* rounding reaches 1000 of the unit: the next one */
		d.div = u[i + 1].div;
		d.name = u[i + 1].unit;
		d.decimals = 3;
	}
	return d;
}

static const char *fmt_dur_in(char *buf, size_t n, double ns, struct dur_unit d, unsigned flags)
{
	const char *sg;
	double v;

	if (!isfinite(ns))
		return unknown(buf, n);
	v = round(ns) + 0.0; /* whole nanoseconds; + 0.0: no "-0" */
	sg = (flags & GP__FMT_SIGN) && v >= 0 ? "+" : "";
	snprintf(buf, n, "%s%.*f %s", sg, d.decimals, v / d.div, d.name);
	return buf;
}

const char *gp__fmt_dur(char *buf, size_t n, double ns, unsigned flags)
{
	return fmt_dur_in(buf, n, ns, dur_unit_of(ns), flags);
}

const char *gp__fmt_dur_like(char *buf, size_t n, double ns, double ref_ns, unsigned flags)
{
	if (!isfinite(ref_ns))
		return gp__fmt_dur(buf, n, ns, flags);
	return fmt_dur_in(buf, n, ns, dur_unit_of(ref_ns), flags);
}

static const char *const byte_unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

/* the unit gp__fmt_bytes() writes @p b in: an index of byte_unit */
static size_t bytes_unit_of(double b)
{
	double a = fabs(b);
	size_t i = 0;

	/* the next unit from where the rounded value would read 1024 */
	while (i + 1 < GP_ARRAY_SIZE(byte_unit) && a >= (i ? 1023.95 : 1023.5)) {
		a /= 1024;
		i++;
	}
	return i;
}

static const char *fmt_bytes_in(char *buf, size_t n, double b, size_t i, unsigned flags)
{
	const char *sg = b < 0 ? "-" : (flags & GP__FMT_SIGN) ? "+" : "";
	double a = fabs(b);

	if (!isfinite(b))
		return unknown(buf, n);
	for (size_t k = 0; k < i; k++)
		a /= 1024;
	if (!i)
		snprintf(buf, n, "%s%.0f B", sg, a);
	else
		snprintf(buf, n, "%s%.1f %s", sg, a, byte_unit[i]);
	return buf;
}

const char *gp__fmt_bytes(char *buf, size_t n, double b, unsigned flags)
{
	const char *sg = b < 0 ? "-" : (flags & GP__FMT_SIGN) ? "+" : "";
	double a = fabs(b);
	size_t i;

	if (!isfinite(b))
		return unknown(buf, n);
	i = bytes_unit_of(b);
	if (!(flags & GP__FMT_COMPACT))
		return fmt_bytes_in(buf, n, b, i, flags);
	for (size_t k = 0; k < i; k++)
		a /= 1024;
	/* three significant digits: "1.5G", "512M", "80G"; the unit after rounding */
	if (i && a >= 1023.5 && i + 1 < GP_ARRAY_SIZE(byte_unit)) {
		a /= 1024;
		i++;
	}
	snprintf(buf, n, a < 9.95 && i ? "%s%.1f%c" : "%s%.0f%c", sg, a, byte_unit[i][0]);
	return buf;
}

const char *gp__fmt_bytes_like(char *buf, size_t n, double b, double ref, unsigned flags)
{
	if (!isfinite(ref))
		return gp__fmt_bytes(buf, n, b, flags & ~GP__FMT_COMPACT);
	return fmt_bytes_in(buf, n, b, bytes_unit_of(ref), flags);
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
	if (flags & GP__FMT_GIVEN)
		snprintf(buf, n, (flags & GP__FMT_SIGN) ? "%+g%%" : "%g%%", pct);
	else
		snprintf(buf, n, (flags & GP__FMT_SIGN) ? "%+.*f%%" : "%.*f%%",
		         (flags & GP__FMT_WHOLE) ? 0 : 1, pct);
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
	int dec = a < 9.9995 ? 3 : a < 99.995 ? 2 : a < 999.95 ? 1 : 0;

	if (!isfinite(r))
		return unknown(buf, n);
	/*
	 * the durations' four significant digits, without a unit to move to;
	 * under 1 as many decimals as four significant digits take, so that a
	 * rate above 0 never reads "0.000" (1 byte in 1 ms: "0.000001000")
	 */
	if (a > 0 && a < 0.99995)
		for (dec = 3; dec < 15 && a * pow(10, dec) < 999.95; dec++)
			;
	snprintf(buf, n, "%.*f", dec, r);
	return buf;
}

const char *gp__fmt_pvalue(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		return unknown(buf, n);
	if (p < 0.0001)
		snprintf(buf, n, "<0.0001");
	else
		snprintf(buf, n, "%.4f", p);
	return buf;
}
