/* SPDX-License-Identifier: MIT */
/*
 * ts.c - exact decimal timestamp parsing (ts.h).
 *
 * The value of a JSON number is its digit string D (integer and fraction
 * digits run together) times a power of ten. Scaling µs to ns moves the
 * decimal point three places, so the integer nanoseconds are the first
 * `cut` digits of D (zeros appended when cut exceeds them) and digit `cut`
 * decides the rounding. Only integer arithmetic with overflow checks is used.
 */
#include "ts.h"

#include "error.h"

int gp__ts_parse(const char *p, size_t n, int64_t *ns, bool *is_float)
{
	const char *end = p + n, *ip, *fp = NULL;
	size_t nint, nfrac = 0, nd, i;
	int64_t exp = 0, cut;
	uint64_t acc = 0;
	bool neg = false, flt = false;

	if (is_float)
		*is_float = false;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || !gp__json_is_digit(*p))
		return GP_EFORMAT;
	ip = p;
	if (*p == '0')
		p++;
	else
		while (p < end && gp__json_is_digit(*p))
			p++;
	nint = (size_t)(p - ip);
	if (p < end && *p == '.') {
		flt = true;
		fp = ++p;
		while (p < end && gp__json_is_digit(*p))
			p++;
		nfrac = (size_t)(p - fp);
		if (!nfrac)
			return GP_EFORMAT;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;

		flt = true;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end || !gp__json_is_digit(*p))
			return GP_EFORMAT;
		while (p < end && gp__json_is_digit(*p)) {
			/* saturate: anything past 10^12 is far beyond int64 either way */
			if (exp < 1000000000000LL)
				exp = exp * 10 + (*p - '0');
			p++;
		}
		if (eneg)
			exp = -exp;
	}
	if (p != end)
		return GP_EFORMAT;
	if (is_float)
		*is_float = flt;

	nd = nint + nfrac;
	cut = (int64_t)nint + exp + 3; /* digits that make up whole nanoseconds */
	for (i = 0; i < nd && (int64_t)i < cut; i++) {
		char c = i < nint ? ip[i] : fp[i - nint];
		uint64_t d = (uint64_t)(c - '0');

		if (acc > (UINT64_MAX - d) / 10)
			return GP_ELIMIT;
		acc = acc * 10 + d;
	}
	if (acc && cut > (int64_t)nd) {
		for (int64_t k = (int64_t)nd; k < cut; k++) {
			if (acc > UINT64_MAX / 10)
				return GP_ELIMIT;
			acc *= 10;
		}
	}
	if (cut >= 0 && (uint64_t)cut < nd) {
		size_t r = (size_t)cut;
		char c = r < nint ? ip[r] : fp[r - nint];

		if (c >= '5') {
			if (acc == UINT64_MAX)
				return GP_ELIMIT;
			acc++;
		}
	}
	if (acc > (uint64_t)INT64_MAX)
		return GP_ELIMIT;
	*ns = neg ? -(int64_t)acc : (int64_t)acc;
	return 0;
}

int gp__int_parse(const char *p, size_t n, int64_t *out)
{
	const char *end = p + n;
	uint64_t acc = 0, lim;
	bool neg = false;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || !gp__json_is_digit(*p) || (*p == '0' && end - p > 1))
		return GP_EFORMAT;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; p < end; p++) {
		uint64_t d;

		if (!gp__json_is_digit(*p))
			return GP_EFORMAT;
		d = (uint64_t)(*p - '0');
		if (acc > (lim - d) / 10)
			return GP_ELIMIT;
		acc = acc * 10 + d;
	}
	*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return 0;
}
