/* SPDX-License-Identifier: MIT */
/*
 * test_pickle.c - the pickle subset reader (src/lib/source/pickle.c).
 *
 * Snapshots written by Python's own pickle module at protocols 2, 3, 4 and 5
 * (tests/memsnap_gen.py) must read back to exactly the object Python dumped
 * as JSON beside them; hand-made hostile pickles (truncated at every byte,
 * cycles, memo bombs, huge length fields, opcodes that execute, deep nesting,
 * a memory limit) must each give one error naming its byte, or read with
 * memory linear in the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/value.h"
#include "source/pickle.h"
#include "memsnap-gen.h"
#include "testutil.h"

/* the test's own conversion of the graph to a gp_value (recursive: trusted depth) */
static struct gp_value *to_value(const struct gp__pk *pk, uint32_t id)
{
	struct gp_value *v = NULL;
	size_t i, len;
	const char *s;
	int64_t n;
	double d;

	switch (gp__pk_type(pk, id)) {
	case GP_PK_NONE:
		return gp_value_null();
	case GP_PK_BOOL:
		assert_true(gp__pk_int(pk, id, &n));
		return gp_value_bool(n != 0);
	case GP_PK_INT:
		assert_true(gp__pk_int(pk, id, &n));
		return gp_value_int(n);
	case GP_PK_BIGINT:
	case GP_PK_FLOAT:
		assert_true(gp__pk_double(pk, id, &d));
		return gp_value_double(d);
	case GP_PK_STR:
		s = gp__pk_str(pk, id, &len);
		return gp_value_strn(s, len);
	case GP_PK_BYTES:
		return gp_value_str("<bytes>");
	case GP_PK_LIST:
	case GP_PK_TUPLE:
		v = gp_value_array();
		for (i = 0; i < gp__pk_len(pk, id); i++)
			assert_int_equal(gp_arr_push(v, to_value(pk, gp__pk_item(pk, id, i))), 0);
		return v;
	case GP_PK_DICT:
		v = gp_value_object();
		for (i = 0; i < gp__pk_len(pk, id); i++) {
			char key[256];

			s = gp__pk_str(pk, gp__pk_key_at(pk, id, i), &len);
			assert_non_null(s);
			assert_true(len < sizeof(key));
			memcpy(key, s, len);
			key[len] = 0;
			assert_int_equal(gp_obj_set(v, key, to_value(pk, gp__pk_val_at(pk, id, i))),
			                 0);
		}
		return v;
	}
	return NULL;
}

static void test_protocols(void **state)
{
	int proto;

	(void)state;
	for (proto = 2; proto <= 5; proto++) {
		char pk_path[128], js_path[128], *bytes, *js, *a = NULL, *b = NULL;
		struct gp_value *want = NULL, *got;
		struct gp__pk *pk = NULL;
		size_t n, jn;

		snprintf(pk_path, sizeof(pk_path), "%s/s%d.pickle", tmpdir, proto);
		snprintf(js_path, sizeof(js_path), "%s/s%d.json", tmpdir, proto);
		if (!gen(pk_path, proto, "base", "--json", js_path))
			skip();
		bytes = slurp(pk_path, &n);
		assert_int_equal((unsigned char)bytes[0], 0x80);
		assert_int_equal(bytes[1], proto);
		assert_int_equal(gp__pk_parse(bytes, n, NULL, &pk), 0);
		assert_int_equal(pk->proto, proto);
		/* memory linear in the input, with frame lists shared, not copied */
		assert_true(pk->nnode <= n);
		got = to_value(pk, pk->root);
		js = slurp(js_path, &jn);
		assert_int_equal(gp_value_parse(js, jn, &want, NULL), 0);
		assert_int_equal(gp_value_to_json(got, 0, &a, NULL), 0);
		assert_int_equal(gp_value_to_json(want, 0, &b, NULL), 0);
		assert_string_equal(a, b);
		/* a frame list shared by blocks is one node */
		{
			uint32_t segs = gp__pk_get(pk, pk->root, "segments");
			uint32_t s0 = gp__pk_item(pk, segs, 0);
			uint32_t fr = gp__pk_get(pk, s0, "frames");
			uint32_t b0 = gp__pk_item(pk, gp__pk_get(pk, s0, "blocks"), 0);

			assert_int_equal(gp__pk_type(pk, fr), GP_PK_LIST);
			assert_true(gp__pk_len(pk, fr) > 0);
			if (gp__pk_len(pk, gp__pk_get(pk, b0, "frames")))
				assert_int_equal(gp__pk_get(pk, b0, "frames"), fr);
			assert_true(gp__pk_str_eq(pk, gp__pk_get(pk, s0, "segment_type"), "large"));
		}
		gp_free(a);
		gp_free(b);
		gp_value_free(got);
		gp_value_free(want);
		gp__pk_free(pk);
		free(js);
		free(bytes);
	}
}

/* every prefix of a real pickle fails with one "byte N:" error, never a crash */
static void test_truncated(void **state)
{
	char path[128], *bytes;
	size_t n, k;

	(void)state;
	snprintf(path, sizeof(path), "%s/t.pickle", tmpdir);
	if (!gen(path, 4, "tiny", NULL, NULL))
		skip();
	bytes = slurp(path, &n);
	for (k = 0; k < n; k++) {
		struct gp__pk *pk = NULL;
		char *copy = malloc(k ? k : 1); /* exactly k bytes: ASan sees any overread */
		int rc;

		assert_non_null(copy);
		memcpy(copy, bytes, k);
		rc = gp__pk_parse(copy, k, NULL, &pk);
		assert_true(rc == GP_ETRUNC || rc == GP_EFORMAT);
		assert_null(pk);
		assert_memory_equal(gp_last_error(), "byte ", 5);
		free(copy);
	}
	free(bytes);
}

static int parse_bytes(const char *p, size_t n, struct gp__pk **pk)
{
	*pk = NULL;
	return gp__pk_parse(p, n, NULL, pk);
}

#define PARSE_FAILS(lit, code, msg)                                                                \
	do {                                                                                       \
		struct gp__pk *pk_;                                                                \
		assert_int_equal(parse_bytes(lit, sizeof(lit) - 1, &pk_), code);                   \
		assert_null(pk_);                                                                  \
		assert_non_null(strstr(gp_last_error(), msg));                                     \
	} while (0)

static void test_hostile(void **state)
{
	(void)state;
	/* opcodes that would execute code: named, with their byte */
	PARSE_FAILS("\x80\x02"
	            "cos\nsystem\n.",
	            GP_EFORMAT, "byte 2: opcode GLOBAL (0x63)");
	PARSE_FAILS("\x80\x04\x8c\x02os\x94\x8c\x06system\x94\x93.", GP_EFORMAT,
	            "byte 16: opcode STACK_GLOBAL");
	PARSE_FAILS("\x80\x02N)R.", GP_EFORMAT, "byte 4: opcode REDUCE");
	PARSE_FAILS("\x80\x02}N\x81.", GP_EFORMAT, "NEWOBJ");
	PARSE_FAILS("\x80\x02}}b.", GP_EFORMAT, "byte 4: opcode BUILD");
	PARSE_FAILS("\x80\x02\xff.", GP_EFORMAT, "byte 2: unknown opcode 0xff");
	/* protocols outside 2..5 */
	PARSE_FAILS("\x80\x01N.", GP_EVERSION, "byte 0: pickle protocol 1");
	PARSE_FAILS("\x80\x06N.", GP_EVERSION, "pickle protocol 6");
	PARSE_FAILS("(lp0\n.", GP_EVERSION, "byte 0: not a pickle");
	/* huge length fields against the bytes left */
	PARSE_FAILS("\x80\x02X\xff\xff\xff\xff"
	            "ab.",
	            GP_ETRUNC, "byte 2: the pickle ends inside a string");
	PARSE_FAILS("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f.", GP_ETRUNC, "byte 2:");
	PARSE_FAILS("\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\xffN.", GP_ETRUNC, "a frame of");
	PARSE_FAILS("\x80\x02\x8b\xff\xff\xff\x7fN.", GP_ETRUNC, "byte 2:");
	PARSE_FAILS("\x80\x02Nr\xff\xff\xff\xff.", GP_EFORMAT, "memo index 4294967295 is beyond");
	/* memo use */
	PARSE_FAILS("\x80\x02h\x07.", GP_EFORMAT, "byte 2: memo index 7 was never stored");
	PARSE_FAILS("\x80\x02(q\x00.", GP_EFORMAT, "byte 3: memo store with nothing");
	PARSE_FAILS("\x80\x02g1x\n.", GP_EFORMAT, "not a decimal");
	/* a list that holds itself, and one through a dict */
	PARSE_FAILS("\x80\x02]q\x00h\x00"
	            "a.",
	            GP_EFORMAT, "byte 2: a list holds itself");
	PARSE_FAILS("\x80\x02]q\x00}q\x01X\x01\x00\x00\x00kh\x00sa.", GP_EFORMAT, "holds itself");
	/* a malformed stack */
	PARSE_FAILS("\x80\x02NN.", GP_EFORMAT, "byte 4: STOP with 2 values");
	PARSE_FAILS("\x80\x02(N.", GP_EFORMAT, "STOP inside an open MARK");
	PARSE_FAILS("\x80\x02}(Nu.", GP_EFORMAT, "odd number");
	PARSE_FAILS("\x80\x02}Na.", GP_EFORMAT, "byte 4: APPEND on a dict");
	PARSE_FAILS("\x80\x02Ne.", GP_EFORMAT, "APPENDS without a MARK");
	PARSE_FAILS("\x80\x02\x86.", GP_EFORMAT, "TUPLE2 needs 2 values");
	PARSE_FAILS("\x80\x02(Na.", GP_EFORMAT, "APPEND with no container");
	PARSE_FAILS("\x80\x02", GP_ETRUNC, "byte 2: the pickle ends before its STOP");
	PARSE_FAILS("", GP_ETRUNC, "byte 0");
}

/* list i = [list i-1, list i-1], 40 times: 2^40 leaves as a tree, 43 nodes here */
static void test_memo_bomb(void **state)
{
	char buf[1024];
	struct gp__pk *pk = NULL;
	size_t n = 0;
	uint32_t id;
	int i, depth = 0;

	(void)state;
	memcpy(buf,
	       "\x80\x02]q\x00"
	       "0",
	       6);
	n = 6;
	for (i = 1; i <= 40; i++) {
		/* EMPTY_LIST MARK GET i-1 GET i-1 APPENDS BINPUT i POP */
		buf[n++] = ']';
		buf[n++] = '(';
		buf[n++] = 'h';
		buf[n++] = (char)(i - 1);
		buf[n++] = 'h';
		buf[n++] = (char)(i - 1);
		buf[n++] = 'e';
		buf[n++] = 'q';
		buf[n++] = (char)i;
		buf[n++] = '0'; /* POP: only the memo keeps it */
	}
	buf[n++] = 'h';
	buf[n++] = 40;
	buf[n++] = '.';
	assert_int_equal(gp__pk_parse(buf, n, NULL, &pk), 0);
	assert_true(pk->nnode < 50);
	for (id = pk->root; gp__pk_len(pk, id); id = gp__pk_item(pk, id, 1)) {
		assert_int_equal(gp__pk_item(pk, id, 0), gp__pk_item(pk, id, 1));
		depth++;
	}
	assert_int_equal(depth, 40);
	gp__pk_free(pk);
}

/* 200,000 nested lists: no recursion in the parse or the cycle check */
static void test_deep(void **state)
{
	size_t depth = 200000, n = 0, i;
	char *buf = malloc(2 * depth + 4);
	struct gp__pk *pk = NULL;
	uint32_t id;

	(void)state;
	assert_non_null(buf);
	buf[n++] = '\x80';
	buf[n++] = 2;
	for (i = 0; i < depth; i++)
		buf[n++] = ']';
	for (i = 1; i < depth; i++)
		buf[n++] = 'a';
	buf[n++] = '.';
	assert_int_equal(gp__pk_parse(buf, n, NULL, &pk), 0);
	for (i = 0, id = pk->root; gp__pk_len(pk, id); i++)
		id = gp__pk_item(pk, id, 0);
	assert_int_equal(i, depth - 1);
	gp__pk_free(pk);
	/* the same under a memory limit: one clear GP_ELIMIT */
	{
		struct gp__pk_limits lim = { .max_bytes = 64 * 1024 };

		assert_int_equal(gp__pk_parse(buf, n, &lim, &pk), GP_ELIMIT);
		assert_null(pk);
		assert_non_null(strstr(gp_last_error(), "bytes of memory"));
	}
	free(buf);
}

static void test_numbers(void **state)
{
	/* LONG1 2^63-1, -2^63, 2^64 (beyond int64), -1 in 1 byte, 0 in 0 bytes; BININT -2;
	   BINFLOAT 1.5; LONG1 -2^63 written in 9 bytes */
	static const char p[] = "\x80\x02("
	                        "\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f"
	                        "\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80"
	                        "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01"
	                        "\x8a\x01\xff"
	                        "\x8a\x00"
	                        "J\xfe\xff\xff\xff"
	                        "G\x3f\xf8\x00\x00\x00\x00\x00\x00"
	                        "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\xff"
	                        "\x88\x89N"
	                        "t.";
	struct gp__pk *pk = NULL;
	int64_t v;
	double d;

	(void)state;
	assert_int_equal(gp__pk_parse(p, sizeof(p) - 1, NULL, &pk), 0);
	assert_int_equal(gp__pk_type(pk, pk->root), GP_PK_TUPLE);
	assert_int_equal(gp__pk_len(pk, pk->root), 11);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 0), &v));
	assert_true(v == INT64_MAX);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 1), &v));
	assert_true(v == INT64_MIN);
	assert_int_equal(gp__pk_type(pk, gp__pk_item(pk, pk->root, 2)), GP_PK_BIGINT);
	assert_true(gp__pk_double(pk, gp__pk_item(pk, pk->root, 2), &d));
	assert_true(d == 18446744073709551616.0);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 3), &v));
	assert_true(v == -1);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 4), &v));
	assert_true(v == 0);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 5), &v));
	assert_true(v == -2);
	assert_true(gp__pk_double(pk, gp__pk_item(pk, pk->root, 6), &d));
	assert_true(d == 1.5);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 7), &v));
	assert_true(v == INT64_MIN);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 8), &v) && v == 1);
	assert_true(gp__pk_int(pk, gp__pk_item(pk, pk->root, 9), &v) && v == 0);
	assert_int_equal(gp__pk_type(pk, gp__pk_item(pk, pk->root, 10)), GP_PK_NONE);
	assert_int_equal(gp__pk_item(pk, pk->root, 11), GP_PK_NIL);
	gp__pk_free(pk);
}

/* a repeated key: the last value wins, as in Python; text PUT/GET read */
static void test_dict_and_text_memo(void **state)
{
	static const char p[] = "\x80\x02}(\x8c\x01kK\x01\x8c\x01kK\x02u"
	                        "p12\n0g12\n.";
	struct gp__pk *pk = NULL;
	int64_t v;

	(void)state;
	assert_int_equal(gp__pk_parse(p, sizeof(p) - 1, NULL, &pk), 0);
	assert_true(gp__pk_int(pk, gp__pk_get(pk, pk->root, "k"), &v));
	assert_int_equal(v, 2);
	assert_int_equal(gp__pk_get(pk, pk->root, "missing"), GP_PK_NIL);
	gp__pk_free(pk);
}

static void test_alloc_failures(void **state)
{
	char path[128], *bytes;
	size_t n;
	long k;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.pickle", tmpdir);
	if (!gen(path, 4, "tiny", NULL, NULL))
		skip();
	bytes = slurp(path, &n);
	for (k = 1;; k++) {
		struct gp__pk *pk = NULL;
		int rc;

		gp__test_fail_alloc_after(k);
		rc = gp__pk_parse(bytes, n, NULL, &pk);
		gp__test_fail_alloc_after(0);
		if (rc == 0) {
			gp__pk_free(pk);
			break;
		}
		assert_int_equal(rc, GP_ENOMEM);
		assert_null(pk);
	}
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocols),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_memo_bomb),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_dict_and_text_memo),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
