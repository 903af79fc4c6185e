/* SPDX-License-Identifier: MIT */
/*
 * ts.h - exact decimal timestamp parsing: JSON number text in microseconds to
 * int64 nanoseconds, never through a double.
 *
 * Absolute-epoch float microseconds ("1712195495505582.988") have 19
 * significant digits, more than a double holds, so the text is scaled by
 * 1000 in decimal. gp__ts_fast() is the inline single-pass form for the
 * common plain timestamp in a JSON window. Used by the Kineto reader and
 * its tests.
 */
#ifndef GP_UTIL_TS_H
#define GP_UTIL_TS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json-scan.h"

/**
 * Parses the JSON number @p p[0..n) (µs; integer, fraction or exponent form)
 * into nanoseconds, rounding digits past the ns to nearest (half away from
 * zero). The whole text must be one JSON number.
 * @param is_float receives true if the text has a fraction or an exponent
 *        (may be NULL).
 * @return 0; GP_EFORMAT when the text is not a JSON number; GP_ELIMIT when
 *         the value does not fit int64 nanoseconds. No error string is set.
 */
int gp__ts_parse(const char *p, size_t n, int64_t *ns, bool *is_float);

/**
 * Parses a JSON integer (no fraction or exponent) into int64.
 * @return 0, GP_EFORMAT (not an integer) or GP_ELIMIT (out of range).
 */
int gp__int_parse(const char *p, size_t n, int64_t *out);

/** gp__int_parse() with an inline path for short plain integers (up to 18 digits). */
static inline int gp__int_parse_fast(const char *p, size_t n, int64_t *out)
{
	const char *q = p, *end = p + n;
	int64_t v = 0;
	bool neg = false;

	if (q < end && *q == '-') {
		neg = true;
		q++;
	}
	if (q >= end || end - q > 18 || (*q == '0' && end - q > 1))
		return gp__int_parse(p, n, out);
	for (; q < end; q++) {
		if (*q < '0' || *q > '9')
			return gp__int_parse(p, n, out);
		v = v * 10 + (*q - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

/*
 * A non-negative timestamp in µs, integer or with a fraction, at most 16
 * integer digits, to ns: the first three fraction digits are the ns and the
 * fourth rounds half away from zero, exactly as gp__ts_parse(). Accepts
 * only a number followed in the window by a separator or whitespace;
 * @return false, with nothing consumed, for anything else (use
 * gp__json_number() and gp__ts_parse()).
 */
static inline bool gp__ts_fast(const char **pp, const char *end, int64_t *ns, bool *flt)
{
	const char *p = *pp, *q = p;
	uint64_t v, f = 0;

	if (q >= end || !gp__json_is_digit(*q))
		return false;
	v = (uint64_t)(*q++ - '0');
	if (v)
		q = gp__json_digits(q, end, &v);
	if (q >= end || q - p > 16)
		return false;
	*flt = false;
	if (*q == '.') {
		const char *fp = ++q;
		size_t k;

		while (q < end && gp__json_is_digit(*q))
			q++;
		k = (size_t)(q - fp);
		if (k == 0 || q >= end)
			return false;
		f = (uint64_t)(fp[0] - '0') * 100;
		if (k > 1)
			f += (uint64_t)(fp[1] - '0') * 10;
		if (k > 2)
			f += (uint64_t)(fp[2] - '0');
		if (k > 3 && fp[3] >= '5')
			f++;
		*flt = true;
	}
	if (!gp__json_num_end(*q) || v >= (uint64_t)(INT64_MAX / 1000) - 1)
		return false;
	*ns = (int64_t)(v * 1000 + f);
	*pp = q;
	return true;
}

#endif
