/* SPDX-License-Identifier: MIT */
/*
 * test_json.c - the JSON tokenizer (util/json-scan.h) and gp_value_parse():
 * valid documents, every error class with its byte offset, the depth cap,
 * UTF-8 and escapes, truncation inside a streaming window, long non-ASCII
 * and escaped strings cut anywhere, and objects with many keys.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/value.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json-scan.h"

static struct gp_value *parse_ok(const char *s)
{
	struct gp_value *v = NULL;
	size_t off = 99;
	int rc = gp_value_parse(s, strlen(s), &v, &off);

	if (rc)
		fail_msg("\"%s\": rc %d at %zu: %s", s, rc, off, gp_last_error());
	assert_non_null(v);
	return v;
}

static void test_valid(void **state)
{
	struct gp_value *v;
	const struct gp_value *x;
	int64_t i;
	double d;
	char *out;

	(void)state;
	v = parse_ok(" {\"a\": [1, -2, 3.5, 1e2, true, false, null, \"s\"], \"b\": {\"c\": {}},"
	             " \"d\": [], \"big\": 123456789012345678901234567890,"
	             " \"min\": -9223372036854775808} \n");
	assert_int_equal(gp_value_type(v), GP_VALUE_OBJECT);
	x = gp_obj_get(v, "a");
	assert_int_equal(gp_value_len(x), 8);
	assert_true(gp_value_get_int(gp_arr_get(x, 1), &i));
	assert_int_equal(i, -2);
	assert_int_equal(gp_value_type(gp_arr_get(x, 2)), GP_VALUE_DOUBLE);
	assert_true(gp_value_get_double(gp_arr_get(x, 2), &d));
	assert_true(d == 3.5);
	assert_int_equal(gp_value_type(gp_arr_get(x, 3)), GP_VALUE_DOUBLE);
	assert_true(gp_value_get_bool(gp_arr_get(x, 4), false));
	assert_false(gp_value_get_bool(gp_arr_get(x, 5), true));
	assert_int_equal(gp_value_type(gp_arr_get(x, 6)), GP_VALUE_NULL);
	assert_string_equal(gp_value_get_str(gp_arr_get(x, 7)), "s");
	assert_int_equal(gp_value_type(gp_value_path(v, "b/c")), GP_VALUE_OBJECT);
	assert_int_equal(gp_value_type(gp_obj_get(v, "big")), GP_VALUE_DOUBLE);
	assert_true(gp_value_get_int(gp_obj_get(v, "min"), &i));
	assert_int_equal(i, INT64_MIN);
	assert_int_equal(gp_value_to_json(gp_obj_get(v, "b"), 0, &out, NULL), 0);
	assert_string_equal(out, "{\"c\":{}}");
	gp_free(out);
	gp_value_free(v);

	/* scalars as documents */
	v = parse_ok("42");
	assert_true(gp_value_get_int(v, &i));
	assert_int_equal(i, 42);
	gp_value_free(v);
	v = parse_ok("\"x\"");
	gp_value_free(v);
	v = parse_ok("null");
	gp_value_free(v);
}

static void test_strings(void **state)
{
	struct gp_value *v;

	(void)state;
	v = parse_ok(
	    "[\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\b\\f\\r\", \"caf\xc3\xa9 \xe2\x82\xac "
	    "\xf0\x9f\x98\x80\", \"a\\u0041b\"]");
	assert_string_equal(gp_value_get_str(gp_arr_get(v, 0)),
	                    "\xc3\xa9\xf0\x9f\x98\x80\n\t\"\\/\b\f\r");
	assert_string_equal(gp_value_get_str(gp_arr_get(v, 1)),
	                    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_string_equal(gp_value_get_str(gp_arr_get(v, 2)), "aAb");
	gp_value_free(v);
	/* a long ASCII run exercises the 16-byte scan */
	v = parse_ok("\"0123456789abcdef0123456789abcdef0123456789\\\"abcdef\"");
	assert_string_equal(gp_value_get_str(v),
	                    "0123456789abcdef0123456789abcdef0123456789\"abcdef");
	gp_value_free(v);
}

struct bad {
	const char *text;
	int rc;
	size_t off;
};

static void test_errors(void **state)
{
	static const struct bad cases[] = {
		{ "", GP_ETRUNC, 0 },
		{ "   ", GP_ETRUNC, 3 },
		{ "{\"a\":1,}", GP_EFORMAT, 7 },
		{ "[1,2", GP_ETRUNC, 4 },
		{ "[1 2]", GP_EFORMAT, 3 },
		{ "{\"a\" 1}", GP_EFORMAT, 5 },
		{ "{1:2}", GP_EFORMAT, 1 },
		{ "NaN", GP_EFORMAT, 0 },
		{ "[Infinity]", GP_EFORMAT, 1 },
		{ "[-Infinity]", GP_EFORMAT, 2 },
		{ "[01]", GP_EFORMAT, 2 },
		{ "[1.]", GP_EFORMAT, 3 },
		{ "[1e]", GP_EFORMAT, 3 },
		{ "[+1]", GP_EFORMAT, 1 },
		{ "[.5]", GP_EFORMAT, 1 },
		{ "\"a\x01\"", GP_EFORMAT, 2 },
		{ "\"a\tb\"", GP_EFORMAT, 2 },
		{ "\"\xc3\x28\"", GP_EFORMAT, 1 },
		{ "\"\xc0\xaf\"", GP_EFORMAT, 1 },         /* overlong */
		{ "\"\xe0\x80\xaf\"", GP_EFORMAT, 1 },     /* overlong */
		{ "\"\xed\xa0\x80\"", GP_EFORMAT, 1 },     /* UTF-16 surrogate */
		{ "\"\xf4\x90\x80\x80\"", GP_EFORMAT, 1 }, /* past U+10FFFF */
		{ "\"\xff\"", GP_EFORMAT, 1 },
		{ "\"\xe2\x82\"", GP_EFORMAT, 1 }, /* sequence cut by the quote */
		{ "\"\xe2\x82", GP_ETRUNC, 3 },
		{ "\"\\q\"", GP_EFORMAT, 1 },
		{ "\"\\u12G4\"", GP_EFORMAT, 1 },
		{ "\"\\ud800\"", GP_EFORMAT, 1 },
		{ "\"\\udc00\"", GP_EFORMAT, 1 },
		{ "\"\\ud800\\u0041\"", GP_EFORMAT, 1 },
		{ "\"abc", GP_ETRUNC, 4 },
		{ "{} x", GP_EFORMAT, 3 },
		{ "[] []", GP_EFORMAT, 3 },
		{ "tru", GP_ETRUNC, 3 },
		{ "trux", GP_EFORMAT, 0 },
		{ "nul", GP_ETRUNC, 3 },
		{ "[}", GP_EFORMAT, 1 },
		{ "{]", GP_EFORMAT, 1 },
		{ "{\"a\":1]", GP_EFORMAT, 6 },
		{ "[1}", GP_EFORMAT, 2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(cases); i++) {
		struct gp_value *v = (struct gp_value *)1;
		size_t off = 999;
		int rc = gp_value_parse(cases[i].text, strlen(cases[i].text), &v, &off);

		if (rc != cases[i].rc || off != cases[i].off)
			fail_msg("case %zu \"%s\": rc %d off %zu (%s); want %d at %zu", i,
			         cases[i].text, rc, off, gp_last_error(), cases[i].rc,
			         cases[i].off);
		assert_null(v);
		assert_non_null(strstr(gp_last_error(), "byte "));
	}
}

static void test_depth(void **state)
{
	const size_t n = 100000;
	struct gp_value *v;
	char *p = malloc(2 * n);
	size_t off, i;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < n; i++) {
		p[i] = '[';
		p[2 * n - 1 - i] = ']';
	}
	assert_int_equal(gp_value_parse(p, 2 * n, &v, &off), GP_ELIMIT);
	assert_int_equal(off, GP_JSON_MAX_DEPTH);
	assert_null(v);
	/* exactly at the cap is fine */
	assert_int_equal(gp_value_parse(p + n - GP_JSON_MAX_DEPTH, 2 * GP_JSON_MAX_DEPTH, &v, &off),
	                 0);
	gp_value_free(v);
	/* one more is not */
	assert_int_equal(
	    gp_value_parse(p + n - GP_JSON_MAX_DEPTH - 1, 2 * GP_JSON_MAX_DEPTH + 2, &v, &off),
	    GP_ELIMIT);
	/* objects too, and the skipper */
	for (i = 0; i < n; i++)
		p[i] = i % 6 == 0 ? '{' : i % 6 < 5 ? "\"a\":"[i % 6 - 1] : '[';
	assert_int_equal(gp_value_parse(p, n, &v, &off), GP_ELIMIT);
	{
		struct gp_jscan s = { .end = p + n, .eof = true };
		const char *q = p;

		assert_int_equal(gp__json_skip(&s, &q, 0), GP_ELIMIT);
		assert_non_null(s.err_at);
	}
	free(p);
}

static void test_scan_window(void **state)
{
	const char *doc = "{\"k\": [1, 2.5e3, \"s\\u00e9\", true, null], \"n\": -12}";
	size_t n = strlen(doc), cut;
	struct gp_str num;
	bool is_int;

	(void)state;
	/* any cut of a window gives GP_ETRUNC when more may follow */
	for (cut = 0; cut < n; cut++) {
		struct gp_jscan s = { .end = doc + cut, .eof = false };
		const char *p = doc;

		assert_int_equal(gp__json_skip(&s, &p, 0), GP_ETRUNC);
		assert_true(s.err_at == doc + cut);
	}
	{
		struct gp_jscan s = { .end = doc + n, .eof = true };
		const char *p = doc;

		assert_int_equal(gp__json_skip(&s, &p, 0), 0);
		assert_true(p == doc + n);
	}
	/* a number that reaches the window end may continue */
	{
		const char *t = "123";
		struct gp_jscan s = { .end = t + 3, .eof = false };
		const char *p = t;

		assert_int_equal(gp__json_number(&s, &p, &num, &is_int), GP_ETRUNC);
	}
	{
		const char *t = "123";
		struct gp_jscan s = { .end = t + 3, .eof = true };
		const char *p = t;

		assert_int_equal(gp__json_number(&s, &p, &num, &is_int), 0);
		assert_int_equal(num.len, 3);
		assert_true(is_int);
	}
}

static void test_utf8(void **state)
{
	char buf[64];
	size_t n;

	(void)state;
	assert_true(gp__utf8_valid("plain ascii", 11));
	assert_true(gp__utf8_valid("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9));
	assert_true(gp__utf8_valid("\xf4\x8f\xbf\xbf", 4));
	assert_false(gp__utf8_valid("\xc3", 1));
	assert_false(gp__utf8_valid("\x80", 1));
	assert_false(gp__utf8_valid("\xc1\xbf", 2));
	assert_false(gp__utf8_valid("\xed\xbf\xbf", 3));
	assert_false(gp__utf8_valid("\xf5\x80\x80\x80", 4));
	/* repair: valid sequences kept, U+FFFD per bad byte (a cut sequence is two here) */
	n = gp__utf8_repair("\xc3\xa9x\x80\xe2\x82", 6, buf);
	assert_int_equal(n, 12);
	assert_memory_equal(buf, "\xc3\xa9x\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 12);
	assert_true(gp__utf8_valid(buf, n));
	n = gp__json_unescape("a\\u00e9\\ud83d\\ude00\\n", 21, buf);
	assert_int_equal(n, 8);
	assert_memory_equal(buf, "a\xc3\xa9\xf0\x9f\x98\x80\n", 8);
}

/*
 * The writer keeps valid UTF-8 and puts U+FFFD for each byte that is not (a
 * lone continuation byte, a cut sequence, an overlong form, a surrogate, past
 * U+10FFFF), so that its text always parses back (strictly) as UTF-8 JSON.
 */
static void test_write_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "a\x80z", "a\xef\xbf\xbdz" },
		{ "cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xc1\xbf", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80!", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xff\"\xfe\n", "\xef\xbf\xbd\"\xef\xbf\xbd\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_value *v = gp_value_str(cases[i].in), *back = NULL;
		char *text = NULL;
		size_t len = 0;

		assert_non_null(v);
		assert_int_equal(gp_value_to_json(v, 0, &text, &len), 0);
		assert_true(gp__utf8_valid(text, len));
		assert_int_equal(gp_value_parse(text, len, &back, NULL), 0);
		assert_string_equal(gp_value_get_str(back), cases[i].out);
		gp_free(text);
		gp_value_free(v);
		gp_value_free(back);
	}
}

/* The writer's escape of one string, byte by byte: the oracle of test_write_offsets. */
static size_t ref_escape(const char *s, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, n = 0, k;

	out[n++] = '"';
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80 && (k = gp__utf8_len((const unsigned char *)s + i, len - i))) {
			memcpy(out + n, s + i, k);
			n += k;
			i += k - 1;
		} else if (c >= 0x80) {
			memcpy(out + n, "\xef\xbf\xbd", 3);
			n += 3;
		} else if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			out[n++] = '\\';
			out[n++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		} else if (c < 0x20) {
			memcpy(out + n, "\\u00", 4);
			out[n + 4] = hex[c >> 4];
			out[n + 5] = hex[c & 15];
			n += 6;
		} else {
			out[n++] = (char)c;
		}
	}
	out[n++] = '"';
	return n;
}

/*
 * Strings and keys with one byte that needs care at every offset of every
 * length up to 40 (the writer tests eight bytes at a time, then byte by
 * byte): the text is the byte-by-byte escape, and it parses back.
 */
static void test_write_offsets(void **state)
{
	static const char *const special[] = { "\"",           "\\",   "\n",   "\x01",
		                               "\x1f",         "\x7f", " ",    "\xc3\xa9",
		                               "\xe2\x82\xac", "\x80", "\xff", "\xe2\x82" };
	char in[64], want[512];

	(void)state;
	for (size_t sp = 0; sp < sizeof(special) / sizeof(special[0]); sp++) {
		size_t sl = strlen(special[sp]);

		for (size_t len = sl; len <= 40; len++) {
			for (size_t at = 0; at + sl <= len; at++) {
				struct gp_value *v, *o;
				char *text = NULL;
				size_t n = 0, wn;

				memset(in, 'a', len);
				memcpy(in + at, special[sp], sl);
				in[len] = '\0';
				wn = ref_escape(in, len, want);
				v = gp_value_strn(in, len);
				assert_non_null(v);
				assert_int_equal(gp_value_to_json(v, 0, &text, &n), 0);
				assert_int_equal(n, wn);
				assert_memory_equal(text, want, wn);
				gp_free(text);
				gp_value_free(v);
				/* the same bytes as a key */
				o = gp_value_object();
				assert_non_null(o);
				assert_int_equal(gp_obj_set_int(o, in, 1), 0);
				assert_int_equal(gp_value_to_json(o, 0, &text, &n), 0);
				assert_int_equal(n, wn + 4);
				assert_memory_equal(text + 1, want, wn);
				assert_memory_equal(text + 1 + wn, ":1}", 3);
				gp_free(text);
				gp_value_free(o);
			}
		}
	}
}

/* A piece of a long string: its JSON text and the bytes it decodes to. */
struct piece {
	const char *json, *text;
};

static const struct piece pieces[] = {
	{ "\xc3\xa9", "\xc3\xa9" },
	{ "\xe2\x82\xac", "\xe2\x82\xac" },
	{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
	{ "a", "a" },
	{ "\\u00e9", "\xc3\xa9" },
	{ "\\ud83d\\ude00", "\xf0\x9f\x98\x80" },
	{ "\\n", "\n" },
	{ "\\\"", "\"" },
	{ "\\u20AC", "\xe2\x82\xac" },
	{ "\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9" },
};

/*
 * The JSON text (quotes included) of @p n pieces into @p json and their
 * decoded bytes into @p text: piece i is pieces[(i * step) % npieces], so
 * step 0 repeats the first piece and others mix them.
 */
static void long_string(size_t n, size_t first, size_t step, struct gp_buf *json,
                        struct gp_buf *text)
{
	size_t i;

	assert_int_equal(gp__buf_addch(json, '"'), 0);
	for (i = 0; i < n; i++) {
		const struct piece *pc = &pieces[(first + i * step) % GP_ARRAY_SIZE(pieces)];

		assert_int_equal(gp__buf_addstr(json, pc->json), 0);
		assert_int_equal(gp__buf_addstr(text, pc->text), 0);
	}
	assert_int_equal(gp__buf_addch(json, '"'), 0);
}

/* Every cut near both ends of @p n bytes, every 16381st in between. */
static size_t next_cut(size_t cut, size_t n)
{
	if (cut < 64 || cut + 64 >= n)
		return cut + 1;
	return cut + 16381 < n - 64 ? cut + 16381 : n - 64;
}

/*
 * Long strings of one repeated non-ASCII character or escape, and of mixed
 * ones: scanned in one window they give the same raw bytes as through any cut
 * (GP_ETRUNC at the window's end until the closing quote is in), and parse to
 * the expected text. A bad byte at the end of a long run is found at its
 * offset.
 */
static void test_long_strings(void **state)
{
	static const struct {
		size_t n, first, step;
	} cases[] = {
		{ 300000, 0, 0 }, /* é, 2 bytes each */
		{ 200000, 4, 0 }, /* \u00e9 */
		{ 100000, 5, 0 }, /* surrogate pairs */
		{ 250000, 0, 3 }, /* mixed */
		{ 250000, 1, 7 }, /* mixed */
	};
	size_t c, cut;

	(void)state;
	for (c = 0; c < GP_ARRAY_SIZE(cases); c++) {
		struct gp_buf json = GP_BUF_INIT, text = GP_BUF_INIT;
		struct gp_value *v = NULL;
		struct gp_str raw;
		bool esc;
		size_t off;

		long_string(cases[c].n, cases[c].first, cases[c].step, &json, &text);
		/* the whole string in one window */
		{
			struct gp_jscan s = { .end = json.buf + json.len, .eof = true };
			const char *p = json.buf;

			assert_int_equal(gp__json_string(&s, &p, &raw, &esc), 0);
			assert_true(p == json.buf + json.len);
			assert_true(raw.p == json.buf + 1 && raw.len == json.len - 2);
			assert_int_equal(esc, strchr(json.buf, '\\') != NULL);
		}
		/* cut near both ends, at the refill sizes and through the middle */
		for (cut = 0; cut < json.len; cut = next_cut(cut, json.len)) {
			struct gp_jscan s = { .end = json.buf + cut, .eof = false };
			const char *p = json.buf;

			if (gp__json_string(&s, &p, &raw, &esc) != GP_ETRUNC || s.err_at != s.end)
				fail_msg("case %zu cut %zu of %zu: not GP_ETRUNC at the end", c,
				         cut, json.len);
			assert_true(p == json.buf);
		}
		if (gp_value_parse(json.buf, json.len, &v, &off))
			fail_msg("case %zu: %s", c, gp_last_error());
		assert_int_equal(gp_value_type(v), GP_VALUE_STRING);
		assert_int_equal(strlen(gp_value_get_str(v)), text.len);
		assert_memory_equal(gp_value_get_str(v), text.buf, text.len);
		gp_value_free(v);
		/* as an object key too */
		gp__buf_reset(&text);
		assert_int_equal(gp__buf_addch(&text, '{'), 0);
		assert_int_equal(gp__buf_add(&text, json.buf, json.len), 0);
		assert_int_equal(gp__buf_addstr(&text, ":1}"), 0);
		assert_int_equal(gp_value_parse(text.buf, text.len, &v, &off), 0);
		assert_int_equal(gp_value_len(v), 1);
		gp_value_free(v);
		/* a bad byte after the long run: found where it is */
		json.buf[json.len - 1] = '\xff';
		assert_int_equal(gp__buf_addch(&json, '"'), 0);
		assert_int_equal(gp_value_parse(json.buf, json.len, &v, &off), GP_EFORMAT);
		assert_int_equal(off, json.len - 2);
		assert_null(v);
		/* and a string that never ends: truncated at the end */
		json.len -= 2;
		assert_int_equal(gp_value_parse(json.buf, json.len, &v, &off), GP_ETRUNC);
		assert_int_equal(off, json.len);
		gp__buf_release(&json);
		gp__buf_release(&text);
	}
}

/*
 * An object with many keys (indexed past a few): setting replaces a member of
 * the same key in place, lookups find every key, the writer sorts them, a
 * parsed duplicate keeps the first position and the last value, and a clone
 * is the same.
 */
static void test_many_keys(void **state)
{
	const size_t n = 20000;
	struct gp_value *o = gp_value_object(), *c, *back = NULL;
	struct gp_buf doc = GP_BUF_INIT;
	char key[32], *a = NULL, *b = NULL;
	size_t i;
	int64_t x;

	(void)state;
	assert_non_null(o);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k%zu", (i * 7919) % n);
		assert_int_equal(gp_obj_set_int(o, key, (int64_t)i), 0);
	}
	/* every other key again: replaced, not added */
	for (i = 0; i < n; i += 2) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(gp_obj_set_int(o, key, -(int64_t)i), 0);
	}
	assert_int_equal(gp_value_len(o), n);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_true(gp_value_get_int(gp_obj_get(o, key), &x));
		if (i % 2 == 0)
			assert_int_equal(x, -(int64_t)i);
		else
			assert_int_equal((size_t)x * 7919 % n, i);
	}
	assert_null(gp_obj_get(o, "k"));
	assert_null(gp_obj_get(o, "k20000"));
	/* insertion order is kept: the first key set is first */
	assert_string_equal(gp_obj_key_at(o, 0), "k0");
	snprintf(key, sizeof(key), "k%zu", 7919 % n);
	assert_string_equal(gp_obj_key_at(o, 1), key);
	c = gp_value_clone(o);
	assert_non_null(c);
	assert_int_equal(gp_value_to_json(o, 0, &a, NULL), 0);
	assert_int_equal(gp_value_to_json(c, 0, &b, NULL), 0);
	assert_string_equal(a, b);
	assert_int_equal(strncmp(a, "{\"k0\":0,\"k1\":", 13), 0);
	/* parsed back: the same text */
	assert_int_equal(gp_value_parse(a, strlen(a), &back, NULL), 0);
	gp_free(b);
	assert_int_equal(gp_value_to_json(back, 0, &b, NULL), 0);
	assert_string_equal(a, b);
	gp_value_free(back);
	gp_free(a);
	gp_free(b);
	gp_value_free(c);
	gp_value_free(o);
	/* duplicates in a parsed document: the last value at the first position */
	assert_int_equal(gp__buf_addch(&doc, '{'), 0);
	for (i = 0; i < 3 * n; i++)
		assert_int_equal(gp__buf_addf(&doc, "%s\"d%zu\":%zu", i ? "," : "", i % n, i), 0);
	assert_int_equal(gp__buf_addch(&doc, '}'), 0);
	assert_int_equal(gp_value_parse(doc.buf, doc.len, &back, NULL), 0);
	assert_int_equal(gp_value_len(back), n);
	for (i = 0; i < n; i += 997) {
		snprintf(key, sizeof(key), "d%zu", i);
		assert_string_equal(gp_obj_key_at(back, i), key);
		assert_true(gp_value_get_int(gp_obj_value_at(back, i), &x));
		assert_int_equal(x, (int64_t)(2 * n + i));
	}
	gp_value_free(back);
	gp__buf_release(&doc);
}

/* the writer's text of a double: "%.6f" with trailing zeros removed (%.17g when too long) */
static void want_fixed6(double d, char *out, size_t cap)
{
	int n;

	if (d == 0)
		d = 0;
	n = snprintf(out, cap, "%.6f", d);
	if (n >= 64) { /* the writer's buffer: longer numbers go out as %.17g */
		snprintf(out, cap, "%.17g", d);
		return;
	}
	while (n > 1 && out[n - 1] == '0')
		n--;
	if (out[n - 1] == '.')
		n--;
	out[n] = '\0';
	if (strcmp(out, "-0") == 0)
		strcpy(out, "0");
}

/* doubles written without printf where that is exact: the same text as printf's */
static void test_doubles(void **state)
{
	static const double fixed[] = {
		0.0000005, 0.0000015, 0.0000025, 2.5e-7, -2.5e-7, -0.0000005, 1e-7, -1e-7, 0.1, 0.3,
		68.31, 99.999999, 99.9999995, 1099511.6, 1099511.62777, -1099511.627, 1234567.5,
		123.4564995, 5.0, -5.0, 1e300, -1e-300, 4503599.627370, 0.000001,
		/* whole numbers, the integer path up to 2^53, printf's beyond */
		1e6, -1e6, 1099512.0, 123456789012.0, -98765432109876.0, 9007199254740991.0,
		9007199254740992.0, -9007199254740992.0, 9007199254740994.0, 1e17, 4e18, -0.0
	};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char want[400];
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(fixed) + 220000; i++) {
		double d;
		struct gp_value *v;
		char *text;

		if (i < GP_ARRAY_SIZE(fixed)) {
			d = fixed[i];
		} else {
			/* random magnitudes from 1e-9 to 1e9, random signs, and decimal-looking
			 * values */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			d = (double)(x >> 11) / 9007199254740992.0 *
			    pow(10.0, (double)(x % 19) - 9.0);
			if (x & 1)
				d = -d;
			if ((x >> 5) % 4 == 0)
				d = round(d * 1e7) /
				    1e7; /* a tie at the 7th decimal now and then */
			if (i >= GP_ARRAY_SIZE(fixed) + 200000) /* whole numbers up to 2^60 */
				d = (double)(int64_t)((x >> 4) >> (x % 60)) * (x & 2 ? -1 : 1);
		}
		v = gp_value_double(d);
		assert_non_null(v);
		assert_int_equal(gp_value_to_json(v, 0, &text, NULL), 0);
		want_fixed6(d, want, sizeof(want));
		if (strcmp(text, want) != 0)
			fail_msg("%.17g: wrote %s, printf gives %s", d, text, want);
		gp_free(text);
		gp_value_free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),         cmocka_unit_test(test_strings),
		cmocka_unit_test(test_errors),        cmocka_unit_test(test_depth),
		cmocka_unit_test(test_scan_window),   cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_doubles),       cmocka_unit_test(test_write_utf8),
		cmocka_unit_test(test_write_offsets), cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_many_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
