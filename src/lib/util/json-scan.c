/* SPDX-License-Identifier: MIT */
/*
 * json-scan.c - the strict JSON tokenizer (json-scan.h).
 *
 * Speed comes from touching each byte about once: strings are scanned 16
 * bytes at a time (SSE2) or 8 at a time (portable SWAR) for the bytes that
 * need attention (quote, backslash, control, non-ASCII); pure ASCII runs
 * never enter the UTF-8 decoder. Skipping keeps an explicit bit stack of
 * container types instead of recursing, so nesting depth costs no C stack.
 */
#include "json-scan.h"

#include <string.h>

#include "error.h"

int gp__json_fail(struct gp_jscan *s, const char *at, int status, const char *msg)
{
	s->err_at = at;
	s->err_msg = msg;
	return status;
}

static inline int trunc_at(struct gp_jscan *s, const char *at)
{
	return gp__json_fail(s, at, GP_ETRUNC, "unexpected end of input");
}

/*
 * Length of a valid UTF-8 sequence at p (lead byte >= 0x80), 0 if invalid,
 * -1 if it runs past end.
 */
static inline int utf8_seq(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	unsigned lo = 0x80, hi = 0xbf;
	int n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f; /* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if (p + i >= end)
			return -1;
		if (p[i] < lo || p[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

bool gp__utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		int k;

		if (*p < 0x80) {
			p++;
			continue;
		}
		k = utf8_seq(p, end);
		if (k <= 0)
			return false;
		p += k;
	}
	return true;
}

size_t gp__utf8_repair(const char *s, size_t n, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			out[o++] = s[i++];
		} else if ((k = gp__utf8_len(p + i, n - i))) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	return o;
}

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads 4 hex digits at p (p + 4 <= end checked by the caller); -1 if bad. */
static inline long hex4(const char *p)
{
	int a = hexval(p[0]), b = hexval(p[1]), c = hexval(p[2]), d = hexval(p[3]);

	if ((a | b | c | d) < 0)
		return -1;
	return (long)((a << 12) | (b << 8) | (c << 4) | d);
}

/* Validates the escape at p (p[0] == '\\'); @return bytes consumed or a status. */
static int scan_escape(struct gp_jscan *s, const char *p, const char *end)
{
	long u, lo;

	if (p + 1 >= end)
		return trunc_at(s, end);
	switch (p[1]) {
	case '"':
	case '\\':
	case '/':
	case 'b':
	case 'f':
	case 'n':
	case 'r':
	case 't':
		return 2;
	case 'u':
		break;
	default:
		return gp__json_fail(s, p, GP_EFORMAT, "invalid escape in string");
	}
	if (end - p < 6) {
		/* report bad hex before truncation when it is already visible */
		for (const char *q = p + 2; q < end; q++)
			if (hexval(*q) < 0)
				return gp__json_fail(s, p, GP_EFORMAT,
				                     "invalid \\u escape in string");
		return trunc_at(s, end);
	}
	u = hex4(p + 2);
	if (u < 0)
		return gp__json_fail(s, p, GP_EFORMAT, "invalid \\u escape in string");
	if (u >= 0xdc00 && u <= 0xdfff)
		return gp__json_fail(s, p, GP_EFORMAT, "unpaired low surrogate in string");
	if (u < 0xd800 || u > 0xdbff)
		return 6;
	/* a high surrogate must be followed by \uDC00-\uDFFF */
	if (end - p < 12) {
		const char *q = p + 6;

		if ((q < end && *q != '\\') || (q + 1 < end && q[1] != 'u'))
			return gp__json_fail(s, p, GP_EFORMAT, "unpaired high surrogate in string");
		return trunc_at(s, end);
	}
	if (p[6] != '\\' || p[7] != 'u')
		return gp__json_fail(s, p, GP_EFORMAT, "unpaired high surrogate in string");
	lo = hex4(p + 8);
	if (lo < 0xdc00 || lo > 0xdfff)
		return gp__json_fail(s, p, GP_EFORMAT, "unpaired high surrogate in string");
	return 12;
}

int gp__json_string(struct gp_jscan *s, const char **pp, struct gp_str *raw, bool *esc)
{
	const char *start = *pp + 1, *p = start, *end = s->end;
	bool has_esc = false;

	for (;;) {
		unsigned char c;

		p = gp__json_plain(p, end);
		if (p >= end)
			return trunc_at(s, end);
		c = (unsigned char)*p;
		if (c == '"') {
			raw->p = start;
			raw->len = (size_t)(p - start);
			*esc = has_esc;
			*pp = p + 1;
			return 0;
		}
		/*
		 * A run of escapes or of non-ASCII characters (a name in
		 * another script, "\u00e9\u00e9...") stays in this loop: going
		 * back to the vector loop would cost a load and a mask for
		 * every character.
		 */
		do {
			int k;

			if (c == '\\') {
				k = scan_escape(s, p, end);
				if (k < 0)
					return k;
				has_esc = true;
			} else if (c < 0x20) {
				return gp__json_fail(s, p, GP_EFORMAT,
				                     "control character in string");
			} else {
				k = utf8_seq((const unsigned char *)p, (const unsigned char *)end);
				if (k == 0)
					return gp__json_fail(s, p, GP_EFORMAT,
					                     "invalid UTF-8 in string");
				if (k < 0)
					return trunc_at(s, end);
			}
			p += k;
		} while (p < end && ((c = (unsigned char)*p) == '\\' || c >= 0x80));
	}
}

size_t gp__json_unescape(const char *raw, size_t n, char *out)
{
	const char *p = raw, *end = raw + n;
	char *o = out;

	while (p < end) {
		const char *bsl = memchr(p, '\\', (size_t)(end - p));
		unsigned long u;

		if (!bsl)
			bsl = end;
		memmove(o, p, (size_t)(bsl - p));
		o += bsl - p;
		p = bsl;
		if (p >= end || p + 1 >= end)
			break;
		switch (p[1]) {
		case 'b':
			*o++ = '\b';
			p += 2;
			continue;
		case 'f':
			*o++ = '\f';
			p += 2;
			continue;
		case 'n':
			*o++ = '\n';
			p += 2;
			continue;
		case 'r':
			*o++ = '\r';
			p += 2;
			continue;
		case 't':
			*o++ = '\t';
			p += 2;
			continue;
		case 'u':
			break;
		default: /* '"', '\\', '/' */
			*o++ = p[1];
			p += 2;
			continue;
		}
		if (end - p < 6)
			break; /* not reached on validated input */
		u = (unsigned long)hex4(p + 2);
		p += 6;
		if (u >= 0xd800 && u <= 0xdbff && end - p >= 6) {
			unsigned long lo = (unsigned long)hex4(p + 2);

			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		}
		if (u < 0x80) {
			*o++ = (char)u;
		} else if (u < 0x800) {
			*o++ = (char)(0xc0 | (u >> 6));
			*o++ = (char)(0x80 | (u & 0x3f));
		} else if (u < 0x10000) {
			*o++ = (char)(0xe0 | (u >> 12));
			*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
			*o++ = (char)(0x80 | (u & 0x3f));
		} else {
			*o++ = (char)(0xf0 | (u >> 18));
			*o++ = (char)(0x80 | ((u >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
			*o++ = (char)(0x80 | (u & 0x3f));
		}
	}
	return (size_t)(o - out);
}

int gp__json_number(struct gp_jscan *s, const char **pp, struct gp_str *num, bool *is_int)
{
	const char *start = *pp, *p = start, *end = s->end;
	bool integer = true;

	if (p < end && *p == '-')
		p++;
	if (p >= end)
		return trunc_at(s, end);
	if (*p == '0') {
		p++;
	} else if (gp__json_is_digit(*p)) {
		while (p < end && gp__json_is_digit(*p))
			p++;
	} else {
		return gp__json_fail(s, p, GP_EFORMAT, "invalid number");
	}
	if (p < end && *p == '.') {
		integer = false;
		p++;
		if (p >= end)
			return trunc_at(s, end);
		if (!gp__json_is_digit(*p))
			return gp__json_fail(s, p, GP_EFORMAT,
			                     "invalid number: digit expected after '.'");
		while (p < end && gp__json_is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		integer = false;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end)
			return trunc_at(s, end);
		if (!gp__json_is_digit(*p))
			return gp__json_fail(s, p, GP_EFORMAT,
			                     "invalid number: digit expected in exponent");
		while (p < end && gp__json_is_digit(*p))
			p++;
	}
	/* the number may continue in the next window */
	if (p >= end && !s->eof)
		return trunc_at(s, end);
	if (p < end && (gp__json_is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' ||
	                *p == '-'))
		return gp__json_fail(s, p, GP_EFORMAT, "invalid number");
	num->p = start;
	num->len = (size_t)(p - start);
	if (is_int)
		*is_int = integer;
	*pp = p;
	return 0;
}

int gp__json_literal(struct gp_jscan *s, const char **pp, char *which)
{
	static const char *const lits[] = { "true", "false", "null" };
	const char *p = *pp, *lit;
	size_t n, i, avail;

	switch (*p) {
	case 't':
		lit = lits[0];
		break;
	case 'f':
		lit = lits[1];
		break;
	case 'n':
		lit = lits[2];
		break;
	default:
		return gp__json_fail(s, p, GP_EFORMAT, "unexpected character");
	}
	n = strlen(lit);
	avail = (size_t)(s->end - p);
	for (i = 0; i < n && i < avail; i++)
		if (p[i] != lit[i])
			return gp__json_fail(s, p, GP_EFORMAT, "invalid literal");
	if (i < n)
		return trunc_at(s, s->end);
	*which = *p;
	*pp = p + n;
	return 0;
}

static inline int value_start_error(struct gp_jscan *s, const char *p)
{
	switch (*p) {
	case 'N':
	case 'I':
		return gp__json_fail(s, p, GP_EFORMAT, "NaN and Infinity are not JSON");
	case ']':
	case '}':
	case ',':
		return gp__json_fail(s, p, GP_EFORMAT, "value expected");
	default:
		return gp__json_fail(s, p, GP_EFORMAT, "unexpected character");
	}
}

static inline bool in_object(const uint64_t *stack, unsigned depth)
{
	return (stack[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1;
}

int gp__json_skip(struct gp_jscan *s, const char **pp, unsigned max_depth)
{
	uint64_t stack[GP_JSON_MAX_DEPTH / 64]; /* bit set: object, clear: array */
	const char *p = *pp, *end = s->end;
	unsigned depth = 0;
	struct gp_str str;
	bool esc;
	char lit;
	int rc;

	if (max_depth == 0 || max_depth > GP_JSON_MAX_DEPTH)
		max_depth = GP_JSON_MAX_DEPTH;
value:
	p = gp__json_ws(p, end);
	if (p >= end)
		return trunc_at(s, end);
	switch (*p) {
	case '{':
	case '[': {
		bool obj = *p == '{';

		if (depth >= max_depth)
			return gp__json_fail(s, p, GP_ELIMIT, "nesting too deep");
		if (obj)
			stack[depth / 64] |= 1ULL << (depth % 64);
		else
			stack[depth / 64] &= ~(1ULL << (depth % 64));
		depth++;
		p = gp__json_ws(p + 1, end);
		if (p >= end)
			return trunc_at(s, end);
		if (*p == (obj ? '}' : ']')) {
			p++;
			depth--;
			goto close;
		}
		if (obj)
			goto key;
		goto value;
	}
	case '"':
		if ((rc = gp__json_string_fast(s, &p, &str, &esc)))
			return rc;
		goto close;
	case 't':
	case 'f':
	case 'n':
		if ((rc = gp__json_literal(s, &p, &lit)))
			return rc;
		goto close;
	default:
		if (gp__json_is_digit(*p)) {
			/* plain integers ending in a separator: the common case */
			const char *q = p + 1;

			if (*p != '0')
				while (q < end && gp__json_is_digit(*q))
					q++;
			if (q < end &&
			    (*q == ',' || *q == ']' || *q == '}' || gp__json_is_ws(*q))) {
				p = q;
				goto close;
			}
		}
		if (*p == '-' || gp__json_is_digit(*p)) {
			if ((rc = gp__json_number(s, &p, &str, NULL)))
				return rc;
			goto close;
		}
		return value_start_error(s, p);
	}
key:
	/* p is at the first non-space byte after '{' or ',' */
	if (p >= end)
		return trunc_at(s, end);
	if (*p != '"')
		return gp__json_fail(s, p, GP_EFORMAT, "expected string key in object");
	if ((rc = gp__json_string_fast(s, &p, &str, &esc)))
		return rc;
	p = gp__json_ws(p, end);
	if (p >= end)
		return trunc_at(s, end);
	if (*p != ':')
		return gp__json_fail(s, p, GP_EFORMAT, "expected ':' after object key");
	p++;
	goto value;
close:
	if (depth == 0) {
		*pp = p;
		return 0;
	}
	p = gp__json_ws(p, end);
	if (p >= end)
		return trunc_at(s, end);
	if (in_object(stack, depth)) {
		if (*p == ',') {
			p = gp__json_ws(p + 1, end);
			goto key;
		}
		if (*p != '}')
			return gp__json_fail(s, p, GP_EFORMAT, "expected ',' or '}' in object");
	} else {
		if (*p == ',') {
			p++;
			goto value;
		}
		if (*p != ']')
			return gp__json_fail(s, p, GP_EFORMAT, "expected ',' or ']' in array");
	}
	p++;
	depth--;
	goto close;
}
