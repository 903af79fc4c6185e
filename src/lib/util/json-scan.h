/* SPDX-License-Identifier: MIT */
/*
 * json-scan.h - a strict (RFC 8259) JSON tokenizer over a contiguous window.
 *
 * The scanner never allocates and never recurses: it validates and skips
 * values, scans strings (returning the raw bytes between the quotes, decoded
 * later only when they hold a backslash), checks number grammar and UTF-8.
 * Running into the end of the window mid-token gives GP_ETRUNC, so a
 * streaming caller can refill and retry; GP_EFORMAT marks bad input and
 * GP_ELIMIT nesting past GP_JSON_MAX_DEPTH. On any error err_at/err_msg say
 * where and what. Inline fast paths convert the common short numbers in
 * the same pass (gp__json_fast_int, gp__json_fast_double). Used by the
 * Kineto reader and gp_value_parse().
 */
#ifndef GP_UTIL_JSON_SCAN_H
#define GP_UTIL_JSON_SCAN_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define GP_JSON_MAX_DEPTH 512

/** A slice of the input (not NUL-terminated). */
struct gp_str {
	const char *p;
	size_t len;
};

struct gp_jscan {
	const char *end; /* end of the window */
	bool eof;        /* the window ends at the end of the input */
	/* set on error */
	const char *err_at;
	const char *err_msg;
};

/* Bit c set for the JSON whitespace bytes c (all are <= ' '). */
#define GP_JSON_WS_MASK ((1ULL << ' ') | (1ULL << '\n') | (1ULL << '\r') | (1ULL << '\t'))

/** @return true if @p c is JSON whitespace. */
static inline bool gp__json_is_ws(char c)
{
	unsigned char u = (unsigned char)c;

	return u <= ' ' && ((GP_JSON_WS_MASK >> u) & 1);
}

/**
 * Skips JSON whitespace; @return the first other byte's position (or end).
 * No whitespace and a single space return at once; longer runs (indentation)
 * go 16 bytes at a time with SSE2.
 */
static inline const char *gp__json_ws(const char *p, const char *end)
{
	if (p < end && (unsigned char)*p > ' ')
		return p;
	if (end - p >= 2 && *p == ' ' && (unsigned char)p[1] > ' ')
		return p + 1;
#if defined(__SSE2__)
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
		                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
		                         _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
		                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
		unsigned other = ~(unsigned)_mm_movemask_epi8(m) & 0xffffu;

		if (other)
			return p + __builtin_ctz(other);
		p += 16;
	}
#endif
	while (p < end && gp__json_is_ws(*p))
		p++;
	return p;
}

/**
 * Skips the bytes a JSON string holds as they are (printable ASCII but '"'
 * and '\\'); @return the first byte that needs attention (a quote, a
 * backslash, a control byte, a byte >= 0x80) or @p end. 16 bytes at a time
 * with SSE2, else 8 (SWAR: a false alarm at worst, which the bytes settle).
 * The parser's string scan and the writer's escaping share it.
 */
static inline const char *gp__json_plain(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), sp = _mm_set1_epi8(0x20);

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed compare: bytes >= 0x80 are negative, so < 0x20 too */
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
		                         _mm_cmplt_epi8(v, sp));
		int mask = _mm_movemask_epi8(m);

		if (mask)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#else
	while (end - p >= 8) {
		uint64_t w, t;

		memcpy(&w, p, 8);
		/* bytes equal to '"' or '\\', below 0x20, or with the top bit set */
		t = ((w ^ 0x2222222222222222ULL) - 0x0101010101010101ULL) &
		    ~(w ^ 0x2222222222222222ULL);
		t |= ((w ^ 0x5c5c5c5c5c5c5c5cULL) - 0x0101010101010101ULL) &
		     ~(w ^ 0x5c5c5c5c5c5c5c5cULL);
		t |= (w - 0x2020202020202020ULL) & ~w;
		t |= w;
		if (t & 0x8080808080808080ULL)
			break;
		p += 8;
	}
#endif
	while (p < end) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
			break;
		p++;
	}
	return p;
}

/** Records an error at @p at and @return @p status. */
int gp__json_fail(struct gp_jscan *s, const char *at, int status, const char *msg);

/**
 * Scans a string; *@p pp points at its opening quote and is advanced past the
 * closing one. @p raw receives the bytes between the quotes; @p esc whether
 * they hold an escape (then use gp__json_unescape()).
 */
int gp__json_string(struct gp_jscan *s, const char **pp, struct gp_str *raw, bool *esc);

/**
 * gp__json_string() with an inline fast path for the common short string:
 * plain ASCII whose closing quote lies within the next 32 bytes.
 */
static inline int gp__json_string_fast(struct gp_jscan *s, const char **pp, struct gp_str *raw,
                                       bool *esc)
{
#if defined(__SSE2__)
	const char *p = *pp + 1;

	if (s->end - p >= 32) {
		const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'),
		              sp = _mm_set1_epi8(0x20);

		for (int i = 0; i < 32; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			/* signed compare: bytes >= 0x80 are negative, so < 0x20 too */
			__m128i m =
			    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
			                 _mm_cmplt_epi8(v, sp));
			unsigned mask = (unsigned)_mm_movemask_epi8(m);

			if (mask) {
				unsigned k = (unsigned)i + (unsigned)__builtin_ctz(mask);

				if (p[k] != '"')
					break;
				raw->p = p;
				raw->len = k;
				*esc = false;
				*pp = p + k + 1;
				return 0;
			}
		}
	}
#endif
	return gp__json_string(s, pp, raw, esc);
}

/**
 * Scans a number at *@p pp. @p num receives its text; @p is_int whether it
 * has neither fraction nor exponent (may be NULL).
 */
int gp__json_number(struct gp_jscan *s, const char **pp, struct gp_str *num, bool *is_int);

/*
 * Fast paths for the numbers of a typical trace (the Kineto reader). Each one validates and
 * converts in a single pass, and accepts only what the general path
 * (gp__json_number and a conversion) would accept with the same value:
 * a number that is followed in the window by a separator or whitespace.
 * Anything else (a sign, an exponent, too many digits, the window's end,
 * a grammar error) returns false with nothing consumed, and the caller
 * takes the general path, which also gives the exact error.
 */

/** @return true for an ASCII digit. */
static inline bool gp__json_is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* A byte that may follow a number in the documents we read quickly. */
static inline bool gp__json_num_end(char c)
{
	return c == ',' || c == '}' || c == ']' || gp__json_is_ws(c);
}

/* Scans digits from q; @return the end. The value wraps past 19 digits (callers check). */
static inline const char *gp__json_digits(const char *q, const char *end, uint64_t *v)
{
	uint64_t x = *v;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * Eight bytes at a time (SWAR): find the leading digits, move them to
	 * the top of the word (the bytes shifted in are leading zeros), then
	 * combine pairs, quads and octets.
	 */
	static const uint64_t p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };

	while (end - q >= 8) {
		uint64_t w, t;
		unsigned k;

		memcpy(&w, q, 8);
		/* zero bytes where w has a digit; carries only run past a non-digit */
		t = ((w & 0xf0f0f0f0f0f0f0f0ULL) |
		     ((w + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4) ^
		    0x3333333333333333ULL;
		k = t ? (unsigned)__builtin_ctzll(t) / 8 : 8;
		if (k == 0)
			break;
		w -= 0x3030303030303030ULL;
		if (k < 8)
			w <<= 8 * (8 - k);
		w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffULL;
		w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffULL;
		w = (w * 10000 + (w >> 32)) & 0xffffffffULL;
		if (k < 8) {
			*v = x * p10[k] + w;
			return q + k;
		}
		x = x * 100000000 + w;
		q += 8;
	}
#endif
	while (q < end && gp__json_is_digit(*q))
		x = x * 10 + (uint64_t)(*q++ - '0');
	*v = x;
	return q;
}

/* A non-negative integer of at most 18 digits. */
static inline bool gp__json_fast_int(const char **pp, const char *end, int64_t *out)
{
	const char *p = *pp, *q = p;
	uint64_t v;

	if (q >= end || !gp__json_is_digit(*q))
		return false;
	v = (uint64_t)(*q++ - '0');
	if (v)
		q = gp__json_digits(q, end, &v);
	if (q >= end || q - p > 18 || !gp__json_num_end(*q))
		return false;
	*out = (int64_t)v;
	*pp = q;
	return true;
}

/*
 * A non-negative decimal without exponent whose digits fit 2^53 and with at
 * most 22 fraction digits: m / 10^k is then one correctly rounded IEEE
 * division of two exact doubles, the same value strtod gives.
 */
static inline bool gp__json_fast_double(const char **pp, const char *end, double *out)
{
#if FLT_EVAL_METHOD == 0
	static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
		                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
		                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *p = *pp, *q = p, *fp;
	uint64_t v;
	size_t k = 0;

	if (q >= end || !gp__json_is_digit(*q))
		return false;
	v = (uint64_t)(*q++ - '0');
	if (v)
		q = gp__json_digits(q, end, &v);
	if (q >= end || q - p > 15)
		return false;
	if (*q == '.') {
		fp = ++q;
		q = gp__json_digits(q, end, &v);
		k = (size_t)(q - fp);
		if (k == 0 || q >= end || q - p > 17)
			return false;
	}
	if (!gp__json_num_end(*q) || v > (1ULL << 53) || k >= sizeof(p10) / sizeof(p10[0]))
		return false;
	*out = (double)v / p10[k];
	*pp = q;
	return true;
#else
	(void)pp;
	(void)end;
	(void)out;
	return false;
#endif
}

/** Scans the literal true, false or null; @p which receives 't', 'f' or 'n'. */
int gp__json_literal(struct gp_jscan *s, const char **pp, char *which);

/**
 * Validates and skips one value (with leading whitespace) of any type,
 * nesting at most @p max_depth levels (0: GP_JSON_MAX_DEPTH).
 */
int gp__json_skip(struct gp_jscan *s, const char **pp, unsigned max_depth);

/**
 * Decodes the escapes of a validated raw string into @p out, which must hold
 * @p n bytes (decoding never lengthens). @return the decoded length.
 */
size_t gp__json_unescape(const char *raw, size_t n, char *out);

struct gp_value;

/** Decimal JSON number text to double, independent of the locale (json-parse.c). */
double gp__json_double(const char *p, size_t n);

/**
 * Parses one value (with leading whitespace) at *@p pp into a new gp_value
 * tree (json-parse.c). On error nothing is allocated and *@p out is NULL;
 * GP_ENOMEM is reported through err_msg too.
 */
int gp__json_parse_value(struct gp_jscan *s, const char **pp, unsigned max_depth,
                         struct gp_value **out);

/**
 * The end of a whole-document parse (gp_value_parse(), the pruned parse):
 * with @p rc 0, only whitespace may follow @p p; on an error, @p v is freed
 * and the error is "byte N: why" with N in *@p err_off (may be NULL). On
 * success *@p out takes @p v. @p text is the document's first byte.
 */
int gp__json_parse_end(struct gp_jscan *s, const char *text, const char *p, int rc,
                       struct gp_value *v, size_t *err_off, struct gp_value **out);

/** @return true if @p p[0..n) is valid UTF-8 (RFC 3629: no overlongs, no surrogates). */
bool gp__utf8_valid(const char *p, size_t n);

/**
 * Copies @p s[0..n) to @p out (room for 3 × @p n bytes) with U+FFFD for each
 * byte that is not part of valid UTF-8. @return the length written.
 */
size_t gp__utf8_repair(const char *s, size_t n, char *out);

/**
 * Length of the valid UTF-8 sequence at @p s[0..n) (n > 0, s[0] >= 0x80),
 * 0 if it is invalid or cut short: the writers of JSON and Chrome traces put
 * U+FFFD for each such byte, so that their output is always valid UTF-8.
 */
static inline size_t gp__utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t k, i;

	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F; /* no surrogates */
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F; /* at most U+10FFFF */
	if (n < k || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return k;
}

#endif
