/* SPDX-License-Identifier: MIT */
/*
 * value-write.c - a gp_value tree as JSON text (gp_value_to_json, value.h).
 *
 * Keys go out sorted bytewise: an object keeps the key order of its first
 * GP_OBJ_ORDER members as they are added (value-node.h), so only the members
 * past those are sorted here and merged in. Integers are written exactly,
 * doubles as printf's "%.6f" without trailing zeros (without printf when that
 * is exact), NaN and infinity as null, strings escaped (valid UTF-8 kept,
 * each byte of invalid UTF-8 as U+FFFD, control characters as \u00XX).
 *
 * The text goes straight into one buffer: each piece asks once for a bound
 * on its length plus SLACK bytes, then is written with plain stores (an
 * indent as one fixed 64-byte copy of a newline and spaces, of which only
 * the needed part is kept). gp_value_to_json() grows the buffer to hold the
 * whole text; gp_value_write_json() hands it to its sink each time it is
 * full and starts again at its start, so that a report is written through
 * STREAM_BUF bytes (the 452 KB report of a 1.8 MB trace: 54 fewer page
 * faults, 881 -> 827; 64 ranks' 79 MB of JSON are no longer held whole).
 */
#include "gpuprof/value.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "buf.h"
#include "error.h"
#include "json-scan.h"
#include "value-int.h"
#include "value-node.h"

#define SLACK      192         /* room every piece asks for beyond its key and string text */
#define MAX_DEPTH  1000        /* values nested deeper are refused */
#define STREAM_BUF (64 * 1024) /* gp_value_write_json()'s buffer (more for a longer piece) */

/* a newline and the spaces of up to 31 levels of indent, copied 64 bytes at a time */
static const char nl_spaces[65] =
    "\n                                                               ";

/* "00" to "99" */
static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                               "25262728293031323334353637383940414243444546474849"
                               "50515253545556575859606162636465666768697071727374"
                               "75767778798081828384858687888990919293949596979899";

static const uint64_t pow10_u64[20] = { 1u,
	                                10u,
	                                100u,
	                                1000u,
	                                10000u,
	                                100000u,
	                                1000000u,
	                                10000000u,
	                                100000000u,
	                                1000000000u,
	                                10000000000u,
	                                100000000000u,
	                                1000000000000u,
	                                10000000000000u,
	                                100000000000000u,
	                                1000000000000000u,
	                                10000000000000000u,
	                                100000000000000000u,
	                                1000000000000000000u,
	                                10000000000000000000u };

struct wr {
	struct gp_buf b; /* b.len is only brought up to date when the buffer grows */
	char *p;         /* the next byte */
	char *end;       /* the end of the room, one byte kept for the NUL */
	bool pretty;
	gp_write_fn sink; /* NULL: the buffer holds the whole text */
	void *user;       /* the sink's */
	/* gp__value_write_json_spliced(): the array whose items come from item() */
	const struct gp_value *splice_at;
	size_t nsplice;
	gp__json_item_fn item;
	void *item_user;
	int raw_rc; /* what a put of raw_put() failed with */
};

/* Hands the text in the buffer to the sink: the buffer is empty again. */
static int flush(struct wr *w)
{
	size_t len = (size_t)(w->p - w->b.buf);
	int e;

	w->p = w->b.buf;
	if (!len || !w->sink(w->b.buf, len, w->user))
		return 0;
	e = errno ? errno : EIO;
	gp__error(GP_EIO, "cannot write the JSON text: %s", strerror(e));
	errno = e;
	return GP_EIO;
}

static int grow(struct wr *w, size_t n)
{
	int rc;

	if (w->sink) {
		if ((rc = flush(w)))
			return rc;
		if ((size_t)(w->end - w->p) >= n)
			return 0;
	}
	w->b.len = (size_t)(w->p - w->b.buf);
	/* four times the room at least: fewer copies of the text by realloc (the pages never
	 * written are never touched) */
	if (!w->sink && n < 3 * w->b.alloc && w->b.alloc < SIZE_MAX / 4)
		n = 3 * w->b.alloc;
	if ((rc = gp__buf_grow(&w->b, n)))
		return rc;
	w->p = w->b.buf + w->b.len;
	w->end = w->b.buf + w->b.alloc - 1;
	return 0;
}

/* Makes sure @p n bytes can be written at w->p. */
static inline int room(struct wr *w, size_t n)
{
	return (size_t)(w->end - w->p) >= n ? 0 : grow(w, n);
}

static int put(struct wr *w, const void *s, size_t n)
{
	int rc;

	if ((rc = room(w, n)))
		return rc;
	memcpy(w->p, s, n);
	w->p += n;
	return 0;
}

/*
 * The length of the run at @p s (at most @p len bytes) that goes out as it
 * is. @p s may be NULL when @p len is 0.
 */
static inline size_t plain_run(const char *s, size_t len)
{
	return len ? (size_t)(gp__json_plain(s, s + len) - s) : 0;
}

/* @p s (@p len bytes), whose first @p i bytes need no escape, quoted and escaped */
static int put_str_escaped(struct wr *w, const char *s, size_t len, size_t i)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;
	int rc;

	GP_TRY(put(w, "\"", 1));
	for (;;) {
		unsigned char c;
		char esc[7];
		size_t elen = 2, k;

		i += plain_run(s + i, len - i);
		if (i >= len)
			break;
		c = (unsigned char)s[i];
		if (c >= 0x80 && (k = gp__utf8_len((const unsigned char *)s + i, len - i))) {
			i += k; /* valid UTF-8: kept */
			continue;
		}
		GP_TRY(put(w, s + run, i - run));
		run = ++i;
		if (c >= 0x80) { /* a byte of invalid UTF-8: U+FFFD */
			GP_TRY(put(w, "\xEF\xBF\xBD", 3));
			continue;
		}
		esc[0] = '\\';
		switch (c) {
		case '"':
			esc[1] = '"';
			break;
		case '\\':
			esc[1] = '\\';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			elen = 6;
		}
		GP_TRY(put(w, esc, elen));
	}
	GP_TRY(put(w, s + run, len - run));
	rc = put(w, "\"", 1);
out:
	return rc;
}

/*
 * Whether @p s (@p len bytes, of which 16 at least can be read: value-node.h) goes out
 * as it is: one 16-byte compare for the usual short key or string.
 */
static inline bool is_plain(const char *s, size_t len)
{
#if defined(__SSE2__)
	if (len <= 16) {
		const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
		/* signed compare: bytes >= 0x80 are negative, so < 0x20 too */
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
		                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
		                         _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));

		return ((unsigned)_mm_movemask_epi8(m) & ((1u << len) - 1)) == 0;
	}
#endif
	return plain_run(s, len) == len;
}

/* @p len bytes of @p s at @p p (16 of @p s can be read, 16 written at @p p): the end */
static inline char *copy_text(char *p, const char *s, size_t len)
{
	if (len <= 16)
		memcpy(p, s, 16);
	else
		memcpy(p, s, len);
	return p + len;
}

/* The decimal digits of @p u at @p p (room for 20); @return the end. */
static char *put_u64(char *p, uint64_t u)
{
	unsigned t = ((64u - (unsigned)__builtin_clzll(u | 1)) * 1233u) >> 12;
	unsigned n = t + 1 - ((u | 1) < pow10_u64[t]);
	char *e = p + n;
	uint32_t x;

	/* 8 digits at a time in 32-bit arithmetic, 2 by 2 */
	while (u >= 100000000u) {
		uint32_t lo = (uint32_t)(u % 100000000u), a = lo / 10000, b = lo % 10000;

		u /= 100000000u;
		e -= 8;
		memcpy(e, pairs + 2 * (a / 100), 2);
		memcpy(e + 2, pairs + 2 * (a % 100), 2);
		memcpy(e + 4, pairs + 2 * (b / 100), 2);
		memcpy(e + 6, pairs + 2 * (b % 100), 2);
	}
	x = (uint32_t)u;
	while (x >= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (x % 100), 2);
		x /= 100;
	}
	if (x >= 10)
		memcpy(e - 2, pairs + 2 * x, 2);
	else
		e[-1] = (char)('0' + x);
	return p + n;
}

static char *put_i64(char *p, int64_t i)
{
	if (i < 0)
		*p++ = '-';
	return put_u64(p, i < 0 ? 0 - (uint64_t)i : (uint64_t)i);
}

/*
 * The "%.6f" text of @p d with its trailing zeros (and '.') removed, without
 * printf when that is exact: for |d| < 2^40 / 10^6 the product m = d * 10^6
 * is within 2^-13 of the exact one (half an ulp below 2^40), so unless m lies
 * within 2^-11 of a tie its nearest integer is the correctly rounded one
 * printf gives. @return the length written to @p out (>= 24 bytes), 0 when
 * the caller must use printf.
 */
static size_t fixed6_fast(double d, char *out)
{
	double m = d * 1e6, r, frac;
	uint64_t u;
	uint32_t f;
	char *p = out;

	if (!(m > -1099511627776.0 && m < 1099511627776.0))
		return 0;
	r = nearbyint(m);
	frac = fabs(m - trunc(m));
	if (fabs(frac - 0.5) < 1.0 / 2048)
		return 0;
	u = (uint64_t)(r < 0 ? -r : r);
	if (r < 0 && u)
		*p++ = '-';
	p = put_u64(p, u / 1000000); /* the digits before the point, at least one */
	f = (uint32_t)(u % 1000000);
	if (f) { /* the six digits of the fraction, then its trailing zeros dropped */
		*p++ = '.';
		memcpy(p, pairs + 2 * (f / 10000), 2);
		memcpy(p + 2, pairs + 2 * (f / 100 % 100), 2);
		memcpy(p + 4, pairs + 2 * (f % 100), 2);
		p += 6;
		while (p[-1] == '0')
			p--;
	}
	return (size_t)(p - out);
}

/* the text of @p d at @p p (room for 64 bytes): the end */
static char *put_double(char *p, double d)
{
	char tmp[64];
	size_t fast;
	int n;

	if (!isfinite(d)) {
		memcpy(p, "null", 4);
		return p + 4;
	}
	if (d == 0)
		d = 0; /* no "-0" */
	/* a whole number below 2^53 is exact: "%.6f" gives its digits and six zeros, trimmed */
	if (fabs(d) < 9007199254740992.0 && d == trunc(d))
		return put_i64(p, (int64_t)d);
	if ((fast = fixed6_fast(d, p)))
		return p + fast;
	n = snprintf(tmp, sizeof(tmp), "%.6f", d);
	if (n <= 0 || (size_t)n >= sizeof(tmp)) {
		n = snprintf(tmp, sizeof(tmp), "%.17g", d);
	} else {
		while (n > 1 && tmp[n - 1] == '0')
			n--;
		if (tmp[n - 1] == '.')
			n--;
		if (n == 2 && tmp[0] == '-' && tmp[1] == '0')
			n = 1, tmp[0] = '0';
	}
	if (n <= 0 || (size_t)n >= sizeof(tmp))
		n = 0;
	memcpy(p, tmp, (size_t)n);
	return p + n;
}

double gp__json_round(double d)
{
	char text[72];

	if (!isfinite(d))
		return d;
	return gp__json_double(text, (size_t)(put_double(text, d) - text));
}

/* A newline and the indent of @p depth (pretty only). */
static int put_indent(struct wr *w, int depth)
{
	size_t sp = 2 * (size_t)depth;
	int rc;

	if (!w->pretty)
		return 0;
	if ((rc = room(w, sp + SLACK)))
		return rc;
	if (sp < sizeof(nl_spaces) - 1) {
		memcpy(w->p, nl_spaces, sizeof(nl_spaces) - 1);
	} else {
		w->p[0] = '\n';
		memset(w->p + 1, ' ', sp);
	}
	w->p += 1 + sp;
	return 0;
}

static int write_value(struct wr *w, const struct gp_value *v, int depth);

/*
 * An item at @p depth: ',' unless @p first, then, pretty, a newline and the indent; for
 * member @p m its key and ':' (and ' ', pretty); then value @p v. One check of the room for
 * all of it, but for containers and text to escape.
 */
static inline __attribute__((always_inline)) int
put_item(struct wr *w, bool first, const struct gp_member *m, const struct gp_value *v, int depth)
{
	size_t klen = m ? m->klen : 0, sp = w->pretty ? 2 * (size_t)depth : 0;
	size_t slen = v->type == GP_VALUE_STRING ? v->u.s.len : 0;
	char *p;
	int rc;

	if ((rc = room(w, sp + klen + slen + SLACK)))
		return rc;
	p = w->p;
	if (!first)
		*p++ = ',';
	if (w->pretty) {
		if (sp < sizeof(nl_spaces) - 1) {
			memcpy(p, nl_spaces, sizeof(nl_spaces) - 1);
		} else {
			p[0] = '\n';
			memset(p + 1, ' ', sp);
		}
		p += 1 + sp;
	}
	if (m) {
		if (is_plain(m->key, klen)) {
			*p++ = '"';
			p = copy_text(p, m->key, klen);
			*p++ = '"';
			*p++ = ':';
			if (w->pretty)
				*p++ = ' ';
		} else { /* a key to escape: rare */
			w->p = p;
			if ((rc = put_str_escaped(w, m->key, klen, 0)) ||
			    (rc = put(w, ": ", w->pretty ? 2 : 1)) || (rc = room(w, slen + SLACK)))
				return rc;
			p = w->p;
		}
	}
	switch (v->type) {
	case GP_VALUE_NULL:
		memcpy(p, "null", 4);
		p += 4;
		break;
	case GP_VALUE_BOOL:
		memcpy(p, v->u.b ? "true" : "false", 5);
		p += v->u.b ? 4 : 5;
		break;
	case GP_VALUE_INT:
		p = put_i64(p, v->u.i);
		break;
	case GP_VALUE_DOUBLE:
		p = put_double(p, v->u.d);
		break;
	case GP_VALUE_STRING:
		if (!is_plain(v->u.s.p, slen)) {
			w->p = p;
			return put_str_escaped(w, v->u.s.p, slen, 0);
		}
		*p++ = '"';
		p = copy_text(p, v->u.s.p, slen);
		*p++ = '"';
		break;
	default:
		w->p = p;
		return write_value(w, v, depth);
	}
	w->p = p;
	return 0;
}

static int cmp_member(const void *a, const void *b)
{
	const struct gp_member *const *x = a, *const *y = b;

	return strcmp((*x)->key, (*y)->key);
}

/* strcmp(a, b) > 0, the first 4 bytes as one number */
static bool key_after(const struct gp_member *a, const struct gp_member *b)
{
	if (a->pre != b->pre)
		return a->pre > b->pre;
	return strcmp(a->key, b->key) > 0;
}

/*
 * The members of @p v (more than GP_OBJ_ORDER) in key order, into @p ord: the first ones in
 * the order the object keeps, merged with the others, sorted here in @p tmp (n entries).
 */
static void member_order(const struct gp_value *v, const struct gp_member **ord,
                         const struct gp_member **tmp)
{
	const struct gp_member *m = v->u.o.m;
	uint64_t o = gp__obj_ext(v)->order;
	size_t n = v->u.o.n, t = n - GP_OBJ_ORDER, i, a = 0, b = GP_OBJ_ORDER, k = 0;

	for (i = 0; i < GP_OBJ_ORDER; i++, o >>= 4)
		tmp[i] = &m[o & 15];
	for (i = 0; i < t; i++)
		tmp[GP_OBJ_ORDER + i] = &m[GP_OBJ_ORDER + i];
	if (t > 24) {
		qsort(tmp + GP_OBJ_ORDER, t, sizeof(*tmp), cmp_member);
	} else {
		for (i = GP_OBJ_ORDER + 1; i < n; i++) {
			const struct gp_member *x = tmp[i];
			size_t j = i;

			while (j > GP_OBJ_ORDER && key_after(tmp[j - 1], x)) {
				tmp[j] = tmp[j - 1];
				j--;
			}
			tmp[j] = x;
		}
	}
	/* keys are distinct: never equal */
	while (a < GP_OBJ_ORDER && b < n)
		ord[k++] = key_after(tmp[a], tmp[b]) ? tmp[b++] : tmp[a++];
	while (a < GP_OBJ_ORDER)
		ord[k++] = tmp[a++];
	while (b < n)
		ord[k++] = tmp[b++];
}

static int write_object(struct wr *w, const struct gp_value *v, int depth)
{
	const struct gp_member *few[2 * 64], **ord = few, **big = NULL;
	size_t n = v->u.o.n, i;
	uint64_t o;
	int rc = 0;

	if (!n)
		return put(w, "{}", 2);
	if (depth + 1 > MAX_DEPTH)
		return gp__error(GP_ELIMIT, "report nested too deeply");
	GP_TRY(put(w, "{", 1));
	if (n <= GP_OBJ_ORDER) {
		/* the usual small object: the order it keeps, one nibble a member */
		o = gp__obj_ext(v)->order;
		for (i = 0; i < n; i++, o >>= 4) {
			const struct gp_member *m = &v->u.o.m[o & 15];

			GP_TRY(put_item(w, i == 0, m, m->v, depth + 1));
		}
	} else {
		if (n > GP_ARRAY_SIZE(few) / 2) {
			big = gp__calloc(n, 2 * sizeof(*big));
			if (!big)
				return gp__error(GP_ENOMEM, "out of memory writing a report");
			ord = big;
		}
		member_order(v, ord, ord + n);
		for (i = 0; i < n; i++)
			GP_TRY(put_item(w, i == 0, ord[i], ord[i]->v, depth + 1));
	}
	GP_TRY(put_indent(w, depth));
	rc = put(w, "}", 1);
out:
	gp__free(big);
	return rc;
}

/* item()'s sink: its text as it is */
static int raw_put(const void *p, size_t n, void *user)
{
	struct wr *w = user;

	if (!w->raw_rc)
		w->raw_rc = put(w, p, n);
	if (!w->raw_rc)
		return 0;
	errno = errno ? errno : EIO;
	return -1;
}

/* The spliced array at @p depth: its items from item(), as put_item() would place them */
static int write_spliced(struct wr *w, int depth)
{
	size_t i;
	int rc = 0;

	if (!w->nsplice)
		return put(w, "[]", 2);
	GP_TRY(put(w, "[", 1));
	for (i = 0; i < w->nsplice; i++) {
		if (i)
			GP_TRY(put(w, ",", 1));
		GP_TRY(put_indent(w, depth + 1));
		w->raw_rc = 0;
		rc = w->item(w->item_user, i, raw_put, w);
		if (w->raw_rc)
			return w->raw_rc;
		if (rc)
			return rc;
	}
	GP_TRY(put_indent(w, depth));
	rc = put(w, "]", 1);
out:
	return rc;
}

static int write_value(struct wr *w, const struct gp_value *v, int depth)
{
	size_t i;
	int rc = 0;

	if (depth > MAX_DEPTH)
		return gp__error(GP_ELIMIT, "report nested too deeply");
	switch (v->type) {
	case GP_VALUE_ARRAY:
		if (v == w->splice_at)
			return write_spliced(w, depth);
		if (!v->u.a.n)
			return put(w, "[]", 2);
		if (depth + 1 > MAX_DEPTH)
			return gp__error(GP_ELIMIT, "report nested too deeply");
		GP_TRY(put(w, "[", 1));
		for (i = 0; i < v->u.a.n; i++)
			GP_TRY(put_item(w, i == 0, NULL, v->u.a.items[i], depth + 1));
		GP_TRY(put_indent(w, depth));
		return put(w, "]", 1);
	case GP_VALUE_OBJECT:
		return write_object(w, v, depth);
	default:
		/* a scalar alone: as an array's first item, without the head */
		{
			bool pretty = w->pretty;

			w->pretty = false;
			rc = put_item(w, true, NULL, v, depth);
			w->pretty = pretty;
			return rc;
		}
	}
out:
	return rc;
}

/*
 * A bound on the text of @p v at @p depth, near enough to reserve once: an object's storage
 * (its keys, strings and 32 bytes a scalar, more than most numbers take), its heads and the
 * values it does not hold there. Text to escape may need more; the buffer grows then.
 */
static size_t est_size(const struct gp_value *v, size_t depth)
{
	const struct gp__obj_store *st;
	size_t n = 0, i, head = 2 * (depth + 1) + 8;

	if (depth > MAX_DEPTH) /* the writer refuses it */
		return 0;
	switch (v->type) {
	case GP_VALUE_STRING:
		return v->u.s.len + 2;
	case GP_VALUE_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			n += head + est_size(v->u.a.items[i], depth + 1);
		return n + head;
	case GP_VALUE_OBJECT:
		for (st = v->u.o.store; st; st = st->next)
			n += st->used;
		for (i = 0; i < v->u.o.n; i++) {
			const struct gp_value *c = v->u.o.m[i].v;

			n += head;
			if (!c->inl)
				n += est_size(c, depth + 1);
		}
		return n + head;
	default:
		return 24;
	}
}

/* the text of @p v at @p depth, pretty with a newline after it at depth 0 */
static int to_json(const struct gp_value *v, unsigned flags, int depth, char **out, size_t *len)
{
	struct wr w = { .b = GP_BUF_INIT, .pretty = flags & GP_JSON_PRETTY };
	char *shrunk;
	int rc;

	*out = NULL;
	if (!v)
		return gp__error(GP_EINVAL, "no value");
	if (depth < 0 || depth > MAX_DEPTH)
		return gp__error(GP_EINVAL, "no such depth: %d", depth);
	w.p = w.end = w.b.buf;
	/* one reservation from an estimate of the text, rather than copies as it grows */
	rc = grow(&w, est_size(v, (size_t)depth) + SLACK);
	if (!rc)
		rc = write_value(&w, v, depth);
	if (!rc && w.pretty && !depth)
		rc = put(&w, "\n", 1);
	if (rc) {
		gp__buf_release(&w.b);
		return rc;
	}
	*w.p = '\0';
	w.b.len = (size_t)(w.p - w.b.buf);
	/* the room of the last growth (up to 4 times the text) back to the allocator; kept if
	 * that fails */
	if (w.b.alloc - w.b.len > w.b.len / 2 + 4096 &&
	    (shrunk = gp__reallocarray(w.b.buf, w.b.len + 1, 1))) {
		w.b.buf = shrunk;
		w.b.alloc = w.b.len + 1;
	}
	*out = gp__buf_detach(&w.b, len);
	return *out ? 0 : gp__error(GP_ENOMEM, "out of memory");
}

GP_API int gp_value_to_json(const struct gp_value *v, unsigned flags, char **out, size_t *len)
{
	return to_json(v, flags, 0, out, len);
}

int gp__value_to_json_at(const struct gp_value *v, unsigned flags, int depth, char **out,
                         size_t *len)
{
	return to_json(v, flags, depth, out, len);
}

GP_API int gp_value_write_json(const struct gp_value *v, unsigned flags, gp_write_fn write,
                               void *user)
{
	return gp__value_write_json_spliced(v, flags, NULL, 0, NULL, NULL, write, user);
}

int gp__value_write_json_spliced(const struct gp_value *v, unsigned flags,
                                 const struct gp_value *at, size_t n, gp__json_item_fn item,
                                 void *item_user, gp_write_fn write, void *user)
{
	struct wr w = { .b = GP_BUF_INIT,
		        .pretty = flags & GP_JSON_PRETTY,
		        .user = user,
		        .splice_at = at,
		        .nsplice = n,
		        .item = item,
		        .item_user = item_user };
	int rc;

	if (!v || !write || (at && (gp_value_type(at) != GP_VALUE_ARRAY || (n && !item))))
		return gp__error(GP_EINVAL, "no value or no writer");
	w.p = w.end = w.b.buf;
	/* the buffer first, without the sink: nothing to hand over yet */
	rc = grow(&w, STREAM_BUF - 1); /* gp__buf_grow() adds the NUL's byte: STREAM_BUF */
	w.sink = write;
	if (!rc)
		rc = write_value(&w, v, 0);
	if (!rc && w.pretty)
		rc = put(&w, "\n", 1);
	if (!rc)
		rc = flush(&w);
	gp__buf_release(&w.b);
	return rc;
}
