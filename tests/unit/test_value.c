/* SPDX-License-Identifier: MIT */
/*
 * test_value.c - the gp_value tree (value.c) and its JSON writer (value-write.c)
 * against a model kept here: random trees built, changed, moved, cloned and
 * freed (some on other threads), the tree read back member by member through
 * the accessors and its JSON text compared byte for byte with the model's,
 * written by a plain reference writer (keys sorted with qsort, numbers with
 * printf, every byte escaped one by one, UTF-8 checked by json-scan.h's
 * rule). Also: pointers to members stay valid while their object grows, and
 * every allocation failure is reported and leaves a tree that can still be
 * written and freed. Shaped objects (value-shape.c) take part in the random
 * trees and match objects built key by key.
 */
#include "testutil.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/value.h"
#include "util/error.h"
#include "util/json-scan.h" /* gp__utf8_len: what valid UTF-8 is */
#include "util/value-int.h"

/* ---- the model ---- */

struct mv {
	enum gp_value_type t;
	bool b;
	int64_t i;
	double d;
	char *s; /* strings: s and slen */
	size_t slen;
	size_t n, cap; /* arrays and objects */
	char **keys;   /* objects: insertion order */
	struct mv **kids;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	assert_non_null(p);
	return p;
}

static struct mv *mv_new(enum gp_value_type t)
{
	struct mv *m = xmalloc(sizeof(*m));

	memset(m, 0, sizeof(*m));
	m->t = t;
	return m;
}

static struct mv *mv_str(const char *s, size_t len)
{
	struct mv *m = mv_new(GP_VALUE_STRING);

	m->s = xmalloc(len + 1);
	memcpy(m->s, s, len);
	m->s[len] = '\0';
	m->slen = len;
	return m;
}

static void mv_free(struct mv *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		if (m->keys)
			free(m->keys[i]);
		mv_free(m->kids[i]);
	}
	free(m->keys);
	free(m->kids);
	free(m->s);
	free(m);
}

static void mv_grow(struct mv *m)
{
	if (m->n < m->cap)
		return;
	m->cap = m->cap ? 2 * m->cap : 4;
	m->kids = realloc(m->kids, m->cap * sizeof(*m->kids));
	assert_non_null(m->kids);
	if (m->t == GP_VALUE_OBJECT) {
		m->keys = realloc(m->keys, m->cap * sizeof(*m->keys));
		assert_non_null(m->keys);
	}
}

static struct mv *mv_clone(const struct mv *m)
{
	struct mv *c = mv_new(m->t);
	size_t i;

	c->b = m->b;
	c->i = m->i;
	c->d = m->d;
	if (m->t == GP_VALUE_STRING) {
		mv_free(c);
		return mv_str(m->s, m->slen);
	}
	for (i = 0; i < m->n; i++) {
		mv_grow(c);
		if (m->keys) {
			c->keys[i] = xmalloc(strlen(m->keys[i]) + 1);
			strcpy(c->keys[i], m->keys[i]);
		}
		c->kids[i] = mv_clone(m->kids[i]);
		c->n++;
	}
	return c;
}

/* sets @p key of object @p o to @p kid (taken): a member of that key keeps its place */
static void mv_set(struct mv *o, const char *key, struct mv *kid)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		if (strcmp(o->keys[i], key) == 0) {
			mv_free(o->kids[i]);
			o->kids[i] = kid;
			return;
		}
	}
	mv_grow(o);
	o->keys[o->n] = xmalloc(strlen(key) + 1);
	strcpy(o->keys[o->n], key);
	o->kids[o->n++] = kid;
}

static void mv_push(struct mv *a, struct mv *kid)
{
	mv_grow(a);
	a->kids[a->n++] = kid;
}

/* ---- the reference writer ---- */

struct out {
	char *p;
	size_t len, cap;
};

static void out_add(struct out *o, const void *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		while (o->len + n + 1 > o->cap)
			o->cap = o->cap ? 2 * o->cap : 256;
		o->p = realloc(o->p, o->cap);
		assert_non_null(o->p);
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void out_str(struct out *o, const char *s)
{
	out_add(o, s, strlen(s));
}

static void ref_escape(struct out *o, const char *s, size_t len)
{
	size_t i, k;
	char tmp[8];

	out_add(o, "\"", 1);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80 && (k = gp__utf8_len((const unsigned char *)s + i, len - i))) {
			out_add(o, s + i, k);
			i += k - 1;
		} else if (c >= 0x80) {
			out_add(o, "\xef\xbf\xbd", 3);
		} else if (c == '"' || c == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			out_add(o, tmp, 2);
		} else if (c == '\n') {
			out_str(o, "\\n");
		} else if (c == '\t') {
			out_str(o, "\\t");
		} else if (c == '\r') {
			out_str(o, "\\r");
		} else if (c < 0x20) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", c);
			out_str(o, tmp);
		} else {
			out_add(o, s + i, 1);
		}
	}
	out_add(o, "\"", 1);
}

/* printf's "%.6f" without trailing zeros, "-0" as "0", "%.17g" when that is too long */
static void ref_double(struct out *o, double d)
{
	char tmp[400];
	int n;

	if (!isfinite(d)) {
		out_str(o, "null");
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.6f", d);
	if (n >= 64) {
		snprintf(tmp, sizeof(tmp), "%.17g", d);
		out_str(o, tmp);
		return;
	}
	while (n > 1 && tmp[n - 1] == '0')
		n--;
	if (tmp[n - 1] == '.')
		n--;
	tmp[n] = '\0';
	out_str(o, strcmp(tmp, "-0") == 0 ? "0" : tmp);
}

static const struct mv *sort_base;

static int cmp_pos(const void *a, const void *b)
{
	return strcmp(sort_base->keys[*(const size_t *)a], sort_base->keys[*(const size_t *)b]);
}

static void ref_indent(struct out *o, bool pretty, int depth)
{
	int i;

	if (!pretty)
		return;
	out_add(o, "\n", 1);
	for (i = 0; i < depth; i++)
		out_add(o, "  ", 2);
}

static void ref_write(struct out *o, const struct mv *m, bool pretty, int depth)
{
	char tmp[32];
	size_t i, *pos;

	switch (m->t) {
	case GP_VALUE_NULL:
		out_str(o, "null");
		return;
	case GP_VALUE_BOOL:
		out_str(o, m->b ? "true" : "false");
		return;
	case GP_VALUE_INT:
		snprintf(tmp, sizeof(tmp), "%" PRId64, m->i);
		out_str(o, tmp);
		return;
	case GP_VALUE_DOUBLE:
		ref_double(o, m->d);
		return;
	case GP_VALUE_STRING:
		ref_escape(o, m->s, m->slen);
		return;
	case GP_VALUE_ARRAY:
		if (!m->n) {
			out_str(o, "[]");
			return;
		}
		out_str(o, "[");
		for (i = 0; i < m->n; i++) {
			if (i)
				out_str(o, ",");
			ref_indent(o, pretty, depth + 1);
			ref_write(o, m->kids[i], pretty, depth + 1);
		}
		ref_indent(o, pretty, depth);
		out_str(o, "]");
		return;
	case GP_VALUE_OBJECT:
		if (!m->n) {
			out_str(o, "{}");
			return;
		}
		pos = xmalloc(m->n * sizeof(*pos));
		for (i = 0; i < m->n; i++)
			pos[i] = i;
		sort_base = m;
		qsort(pos, m->n, sizeof(*pos), cmp_pos);
		out_str(o, "{");
		for (i = 0; i < m->n; i++) {
			if (i)
				out_str(o, ",");
			ref_indent(o, pretty, depth + 1);
			ref_escape(o, m->keys[pos[i]], strlen(m->keys[pos[i]]));
			out_str(o, pretty ? ": " : ":");
			ref_write(o, m->kids[pos[i]], pretty, depth + 1);
		}
		free(pos);
		ref_indent(o, pretty, depth);
		out_str(o, "}");
		return;
	}
}

/* gp_value_write_json()'s sink: appends to an out, counts the pieces, fails from piece fail_at */
struct sink {
	struct out o;
	size_t pieces, largest, fail_at; /* fail_at 0: never */
};

static int sink_add(const void *p, size_t n, void *user)
{
	struct sink *k = user;

	assert_true(n > 0);
	if (++k->pieces == k->fail_at) {
		errno = ENOSPC;
		return -1;
	}
	assert_true(k->fail_at == 0 || k->pieces < k->fail_at); /* no piece after a failure */
	k->largest = n > k->largest ? n : k->largest;
	out_add(&k->o, p, n);
	return 0;
}

/* gp_value_write_json() hands over exactly gp_value_to_json()'s @p len bytes of @p text */
static void check_streamed(const struct gp_value *v, unsigned flags, const char *text, size_t len)
{
	struct sink k = { 0 };

	assert_int_equal(gp_value_write_json(v, flags, sink_add, &k), 0);
	assert_int_equal(k.o.len, len);
	assert_memory_equal(k.o.p, text, len);
	free(k.o.p);
}

/* the texts of a spliced array's items (gp__value_write_json_spliced) */
struct items {
	char **text;
	size_t *len;
	size_t n, calls;
};

static int item_put(void *user, size_t i, gp_write_fn write, void *wuser)
{
	struct items *it = user;

	assert_true(i == it->calls++ && i < it->n); /* each once, in order */
	/* in two pieces: the writer takes an item's text however it comes */
	if (write(it->text[i], it->len[i] / 2, wuser) ||
	    write(it->text[i] + it->len[i] / 2, it->len[i] - it->len[i] / 2, wuser))
		return GP_EIO;
	return 0;
}

/* the first array of @p v, depth first, and its depth (@p depth that of @p v) */
static const struct gp_value *first_array(const struct gp_value *v, int depth, int *at)
{
	size_t i;

	if (gp_value_type(v) == GP_VALUE_ARRAY) {
		*at = depth;
		return v;
	}
	for (i = 0; gp_value_type(v) == GP_VALUE_OBJECT && i < gp_value_len(v); i++) {
		const struct gp_value *a = first_array(gp_obj_value_at(v, i), depth + 1, at);

		if (a)
			return a;
	}
	return NULL;
}

/*
 * gp__value_write_json_spliced() of @p v with its first array's items written from their
 * own texts (gp__value_to_json_at() at the array's depth + 1) is @p text, byte for byte
 */
static void check_spliced(const struct gp_value *v, unsigned flags, const char *text, size_t len)
{
	struct sink k = { 0 };
	struct items it = { 0 };
	const struct gp_value *a;
	int depth = 0;
	size_t i;

	if (!(a = first_array(v, 0, &depth)))
		return;
	it.n = gp_value_len(a);
	it.text = xmalloc((it.n + 1) * sizeof(*it.text));
	it.len = xmalloc((it.n + 1) * sizeof(*it.len));
	for (i = 0; i < it.n; i++)
		assert_int_equal(gp__value_to_json_at(gp_arr_get(a, i), flags, depth + 1,
		                                      &it.text[i], &it.len[i]),
		                 0);
	assert_int_equal(
	    gp__value_write_json_spliced(v, flags, a, it.n, item_put, &it, sink_add, &k), 0);
	assert_int_equal(it.calls, it.n);
	assert_int_equal(k.o.len, len);
	assert_memory_equal(k.o.p, text, len);
	for (i = 0; i < it.n; i++)
		gp_free(it.text[i]);
	free(it.text);
	free(it.len);
	free(k.o.p);
}

/* gp_value_to_json of @p v equals the reference text of @p m, pretty and compact */
static void check_json(const struct gp_value *v, const struct mv *m)
{
	int pretty;

	for (pretty = 0; pretty < 2; pretty++) {
		struct out o = { 0 };
		char *text = NULL;
		size_t len = 0;

		ref_write(&o, m, pretty, 0);
		if (pretty)
			out_str(&o, "\n");
		assert_int_equal(gp_value_to_json(v, pretty ? GP_JSON_PRETTY : 0, &text, &len), 0);
		assert_int_equal(len, strlen(text));
		if (len != o.len || memcmp(text, o.p, len) != 0) {
			size_t k = 0;

			while (k < len && k < o.len && text[k] == o.p[k])
				k++;
			fail_msg(
			    "JSON differs at byte %zu of %zu/%zu:\n got  ...%.60s\n want ...%.60s",
			    k, len, o.len, text + (k > 20 ? k - 20 : 0),
			    o.p + (k > 20 ? k - 20 : 0));
		}
		check_streamed(v, pretty ? GP_JSON_PRETTY : 0, text, len);
		check_spliced(v, pretty ? GP_JSON_PRETTY : 0, text, len);
		gp_free(text);
		free(o.p);
	}
}

/* the tree read through the accessors is the model */
static void check_tree(const struct gp_value *v, const struct mv *m)
{
	size_t i;
	int64_t iv;
	double dv;

	assert_int_equal(gp_value_type(v), m->t);
	switch (m->t) {
	case GP_VALUE_BOOL:
		assert_int_equal(gp_value_get_bool(v, !m->b), m->b);
		break;
	case GP_VALUE_INT:
		assert_true(gp_value_get_int(v, &iv));
		assert_true(iv == m->i);
		break;
	case GP_VALUE_DOUBLE:
		if (isfinite(m->d)) {
			assert_true(gp_value_get_double(v, &dv));
			assert_true(dv == m->d);
		} else {
			assert_false(gp_value_get_double(v, &dv));
		}
		break;
	case GP_VALUE_STRING:
		assert_non_null(gp_value_get_str(v));
		assert_memory_equal(gp_value_get_str(v), m->s, m->slen + 1);
		break;
	case GP_VALUE_ARRAY:
		assert_int_equal(gp_value_len(v), m->n);
		for (i = 0; i < m->n; i++)
			check_tree(gp_arr_get(v, i), m->kids[i]);
		assert_null(gp_arr_get(v, m->n));
		break;
	case GP_VALUE_OBJECT:
		assert_int_equal(gp_value_len(v), m->n);
		for (i = 0; i < m->n; i++) {
			assert_string_equal(gp_obj_key_at(v, i), m->keys[i]);
			assert_ptr_equal(gp_obj_get(v, m->keys[i]), gp_obj_value_at(v, i));
			check_tree(gp_obj_value_at(v, i), m->kids[i]);
		}
		assert_null(gp_obj_key_at(v, m->n));
		assert_null(gp_obj_get(v, "no such key, never made"));
		break;
	default:
		break;
	}
}

/* ---- random trees ---- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	return tu_xorshift(&r->s);
}

static unsigned pick(struct rng *r, unsigned n)
{
	return (unsigned)(rnd(r) % n);
}

/* keys that share prefixes, differ past 4 and 16 bytes, need escapes, are not UTF-8 */
static const char *const some_keys[] = {
	"a",
	"b",
	"ab",
	"abc",
	"abcd",
	"abcde",
	"abcdf",
	"abcd\xc3\xa9",
	"name",
	"name2",
	"nam",
	"n",
	"",
	"zzzz",
	"zzzzz",
	"q\"k",
	"t\tab",
	"\001ctl",
	"\xc3\xa9",
	"\xff",
	"\xfe",
	"count",
	"total_ns",
	"gpu_ns",
	"gpu_self_ns",
	"a_rather_long_key_beyond_sixteen_bytes",
	"a_rather_long_key_beyond_sixteen_bytez",
	"back\\slash",
	"~",
	"\x7f",
};

static void rand_key(struct rng *r, char *buf, size_t cap)
{
	if (pick(r, 3) == 0)
		snprintf(buf, cap, "k%02u", pick(r, 40)); /* objects past 16 members */
	else
		snprintf(buf, cap, "%s", some_keys[pick(r, GP_ARRAY_SIZE(some_keys))]);
}

/* a random text of @p len bytes: plain, escapes, UTF-8 and bytes that are not */
static void rand_text(struct rng *r, char *buf, size_t len)
{
	static const char *const bits[] = { "x",
		                            "Q",
		                            " ",
		                            "\"",
		                            "\\",
		                            "\n",
		                            "\t",
		                            "\r",
		                            "\x01",
		                            "\x1f",
		                            "\x7f",
		                            "\xc3\xa9",
		                            "\xe2\x82\xac",
		                            "\xf0\x9f\x98\x80",
		                            "\xff",
		                            "\xc3",
		                            "\xed\xa0\x80" };
	size_t n = 0;

	while (n < len) {
		const char *b =
		    pick(r, 4) ? &"abcdefgh"[pick(r, 8)] : bits[pick(r, GP_ARRAY_SIZE(bits))];
		size_t k = pick(r, 4) ? 1 : strlen(b);

		if (k > len - n)
			k = len - n;
		memcpy(buf + n, b, k);
		n += k;
	}
}

static size_t rand_len(struct rng *r)
{
	switch (pick(r, 8)) {
	case 0:
		return 0;
	case 1:
		return 15 + pick(r, 4); /* around the 16-byte step */
	case 2:
		return 1000 + pick(r, 60); /* around the longest string set in place */
	default:
		return pick(r, 40);
	}
}

static double rand_double(struct rng *r)
{
	static const double some[] = { 0.0,
		                       -0.0,
		                       0.5,
		                       -1.25,
		                       1e-7,
		                       5e-7,
		                       0.0000005,
		                       1234.5678905,
		                       1e300,
		                       -1e300,
		                       9007199254740993.0,
		                       1099511.627776,
		                       3.0,
		                       -2.5e-6,
		                       0.1 };

	switch (pick(r, 6)) {
	case 0:
		return some[pick(r, GP_ARRAY_SIZE(some))];
	case 1:
		return pick(r, 2) ? NAN : (pick(r, 2) ? INFINITY : -INFINITY);
	case 2:
		return (double)(int64_t)(rnd(r) >> pick(r, 64)) * (pick(r, 2) ? 1 : -1);
	case 3:
		return (double)(rnd(r) % 2000000000000ull) / 1e6 * (pick(r, 2) ? 1 : -1);
	default: {
		uint64_t u = rnd(r);
		double d;

		memcpy(&d, &u, sizeof(d)); /* any bit pattern */
		return d;
	}
	}
}

static int64_t rand_int(struct rng *r)
{
	switch (pick(r, 4)) {
	case 0:
		return pick(r, 2) ? INT64_MIN : INT64_MAX;
	case 1:
		return (int64_t)pick(r, 1000) - 500;
	default:
		return (int64_t)(rnd(r) >> pick(r, 64));
	}
}

/* a random scalar, as a value of its own and as the model */
static struct gp_value *rand_scalar(struct rng *r, struct mv **m)
{
	char text[1100];
	size_t len;

	switch (pick(r, 5)) {
	case 0:
		*m = mv_new(GP_VALUE_NULL);
		return gp_value_null();
	case 1:
		*m = mv_new(GP_VALUE_BOOL);
		(*m)->b = pick(r, 2);
		return gp_value_bool((*m)->b);
	case 2:
		*m = mv_new(GP_VALUE_INT);
		(*m)->i = rand_int(r);
		return gp_value_int((*m)->i);
	case 3:
		*m = mv_new(GP_VALUE_DOUBLE);
		(*m)->d = rand_double(r);
		return gp_value_double((*m)->d);
	default:
		len = rand_len(r);
		rand_text(r, text, len);
		*m = mv_str(text, len);
		return gp_value_strn(text, len);
	}
}

/* sets a random scalar member @p key of @p o in place (gp_obj_set_*) */
static void set_scalar(struct rng *r, struct gp_value *o, struct mv *mo, const char *key)
{
	char text[1100];
	size_t len;
	struct mv *m;

	switch (pick(r, 6)) {
	case 0:
		assert_int_equal(gp_obj_set_null(o, key), 0);
		m = mv_new(GP_VALUE_NULL);
		break;
	case 1:
		m = mv_new(GP_VALUE_BOOL);
		m->b = pick(r, 2);
		assert_int_equal(gp_obj_set_bool(o, key, m->b), 0);
		break;
	case 2:
		m = mv_new(GP_VALUE_INT);
		m->i = rand_int(r);
		assert_int_equal(gp_obj_set_int(o, key, m->i), 0);
		break;
	case 3:
		m = mv_new(GP_VALUE_DOUBLE);
		m->d = rand_double(r);
		assert_int_equal(gp_obj_set_double(o, key, m->d), 0);
		break;
	case 4:
		if (pick(r, 4) == 0) {
			assert_int_equal(pick(r, 2) ? gp_obj_set_str(o, key, NULL)
			                            : gp__obj_set_str_or_null(o, key, NULL),
			                 0);
			m = mv_new(GP_VALUE_NULL);
			break;
		}
		/* fall through */
	default:
		len = rand_len(r);
		rand_text(r, text, len);
		for (size_t i = 0; i < len; i++)
			if (!text[i])
				text[i] = 'z';
		text[len] = '\0';
		assert_int_equal(pick(r, 2) ? gp_obj_set_str(o, key, text)
		                            : gp__obj_set_str_or_null(o, key, text),
		                 0);
		m = mv_str(text, len);
		break;
	}
	mv_set(mo, key, m);
}

/* a random object of scalars and small containers, its model in *m */
static struct gp_value *rand_object(struct rng *r, struct mv **m, unsigned members)
{
	struct gp_value *o = gp_value_object();
	char key[64];
	unsigned i;

	assert_non_null(o);
	*m = mv_new(GP_VALUE_OBJECT);
	for (i = 0; i < members; i++) {
		rand_key(r, key, sizeof(key));
		if (pick(r, 5) == 0) {
			struct mv *k;
			struct gp_value *v = rand_scalar(r, &k);

			assert_int_equal(gp_obj_set(o, key, v), 0);
			mv_set(*m, key, k);
		} else if (pick(r, 8) == 0) {
			struct gp_value *a = gp_value_array();
			struct mv *ma = mv_new(GP_VALUE_ARRAY), *k;

			assert_non_null(a);
			for (unsigned j = pick(r, 4); j; j--) {
				assert_int_equal(gp_arr_push(a, rand_scalar(r, &k)), 0);
				mv_push(ma, k);
			}
			assert_int_equal(gp_obj_set(o, key, a), 0);
			mv_set(*m, key, ma);
		} else {
			set_scalar(r, o, *m, key);
		}
	}
	return o;
}

/*
 * A shaped object (value-shape.c): up to GP_SHAPE_MAX distinct random keys, all null at first,
 * then members put by position in random order, some twice (a long string, then a number).
 */
static struct gp_value *rand_shaped(struct rng *r, struct mv **m)
{
	char keys[GP_SHAPE_MAX][64], text[1100];
	const char *kp[GP_SHAPE_MAX];
	size_t n = 0, want = pick(r, GP_SHAPE_MAX + 1), i, j, len;
	struct gp__shape sh;
	struct gp_value *o;
	unsigned puts;

	for (i = 0; i < 4 * GP_SHAPE_MAX && n < want; i++) {
		rand_key(r, keys[n], sizeof(keys[n]));
		for (j = 0; j < n && strcmp(keys[j], keys[n]); j++)
			;
		if (j == n) {
			kp[n] = keys[n];
			n++;
		}
	}
	assert_int_equal(gp__shape_init(&sh, kp, n), 0);
	o = gp__obj_shaped(&sh);
	assert_non_null(o);
	*m = mv_new(GP_VALUE_OBJECT);
	for (i = 0; i < n; i++)
		mv_set(*m, kp[i], mv_new(GP_VALUE_NULL));
	for (puts = n ? pick(r, 2 * (unsigned)n + 1) : 0; puts; puts--) {
		size_t at = pick(r, (unsigned)n);
		struct mv *k;

		switch (pick(r, 5)) {
		case 0:
			gp__obj_put_null(o, at);
			k = mv_new(GP_VALUE_NULL);
			break;
		case 1:
			k = mv_new(GP_VALUE_INT);
			k->i = rand_int(r);
			gp__obj_put_int(o, at, k->i);
			break;
		case 2:
			k = mv_new(GP_VALUE_DOUBLE);
			k->d = rand_double(r);
			gp__obj_put_double(o, at, k->d);
			break;
		default:
			if (pick(r, 6) == 0) {
				assert_int_equal(gp__obj_put_str(o, at, NULL), 0);
				k = mv_new(GP_VALUE_NULL);
				break;
			}
			len = rand_len(r);
			rand_text(r, text, len);
			for (i = 0; i < len; i++)
				if (!text[i])
					text[i] = 'z';
			text[len] = '\0';
			assert_int_equal(gp__obj_put_str(o, at, text), 0);
			k = mv_str(text, len);
			break;
		}
		mv_set(*m, kp[at], k);
	}
	return o;
}

static size_t mv_count(const struct mv *m)
{
	size_t n = 1, i;

	for (i = 0; i < m->n; i++)
		n += mv_count(m->kids[i]);
	return n;
}

/* a container of the tree, with its model */
struct handle {
	struct gp_value *v;
	struct mv *m;
};

struct handles {
	struct handle h[4096];
	size_t n;
};

static void collect(struct handles *hs, struct gp_value *v, struct mv *m)
{
	size_t i;

	if (m->t != GP_VALUE_ARRAY && m->t != GP_VALUE_OBJECT)
		return;
	if (hs->n < GP_ARRAY_SIZE(hs->h))
		hs->h[hs->n++] = (struct handle){ v, m };
	for (i = 0; i < m->n; i++)
		collect(hs,
		        (struct gp_value *)(m->t == GP_VALUE_ARRAY ? gp_arr_get(v, i)
		                                                   : gp_obj_value_at(v, i)),
		        m->kids[i]);
}

/* any value of the tree, with its model */
static struct handle any_value(struct rng *r, struct gp_value *v, struct mv *m)
{
	/* deep enough that copies stay small: the tree grows linearly */
	while (m->n && (m->t == GP_VALUE_ARRAY || m->t == GP_VALUE_OBJECT) &&
	       (pick(r, 3) || mv_count(m) > 300)) {
		size_t i = pick(r, (unsigned)m->n);

		v = (struct gp_value *)(m->t == GP_VALUE_ARRAY ? gp_arr_get(v, i)
		                                               : gp_obj_value_at(v, i));
		m = m->kids[i];
	}
	return (struct handle){ v, m };
}

struct job {
	uint64_t seed;
	unsigned members;
	struct gp_value *v; /* built by the thread, or freed by it */
	struct mv *m;
};

static void *build_main(void *arg)
{
	struct job *j = arg;
	struct rng r = { j->seed };

	j->v = rand_object(&r, &j->m, j->members);
	return NULL;
}

static void *free_main(void *arg)
{
	struct job *j = arg;

	gp_value_free(j->v);
	j->v = NULL;
	return NULL;
}

static void run_on_thread(void *(*fn)(void *), struct job *j)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, fn, j), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* one random change to container @p h of the tree rooted at @p root */
static void change(struct rng *r, struct handle h, struct gp_value *root, struct mv *mroot)
{
	char key[64];
	struct mv *k;

	rand_key(r, key, sizeof(key));
	if (h.m->t == GP_VALUE_ARRAY) {
		switch (pick(r, 6)) {
		case 0:
			if (h.m->n) {
				size_t n = pick(r, (unsigned)h.m->n);

				gp__arr_truncate(h.v, n);
				while (h.m->n > n)
					mv_free(h.m->kids[--h.m->n]);
			}
			return;
		case 1: {
			struct gp_value *o =
			    pick(r, 3) ? rand_object(r, &k, pick(r, 20)) : rand_shaped(r, &k);

			assert_int_equal(gp_arr_push(h.v, o), 0);
			mv_push(h.m, k);
			return;
		}
		case 2: {
			struct handle src = any_value(r, root, mroot);

			assert_int_equal(gp_arr_push(h.v, gp_value_clone(src.v)), 0);
			mv_push(h.m, mv_clone(src.m));
			return;
		}
		default:
			assert_int_equal(gp_arr_push(h.v, rand_scalar(r, &k)), 0);
			mv_push(h.m, k);
			return;
		}
	}
	switch (pick(r, 12)) {
	case 0: { /* members built on another thread, moved in */
		struct job j = { rnd(r), pick(r, 24), NULL, NULL };

		if (pick(r, 2))
			run_on_thread(build_main, &j);
		else
			build_main(&j);
		assert_int_equal(gp__obj_move_members(h.v, j.v), 0);
		for (size_t i = 0; i < j.m->n; i++) {
			mv_set(h.m, j.m->keys[i], j.m->kids[i]);
			j.m->kids[i] = NULL;
		}
		mv_free(j.m);
		return;
	}
	case 1: { /* a copy of any value of the tree, maybe of this object itself */
		struct handle src = any_value(r, root, mroot);

		assert_int_equal(gp_obj_set(h.v, key, gp_value_clone(src.v)), 0);
		mv_set(h.m, key, mv_clone(src.m));
		return;
	}
	case 2:
		assert_int_equal(
		    gp_obj_set(h.v, key,
		               pick(r, 3) ? rand_object(r, &k, pick(r, 20)) : rand_shaped(r, &k)),
		    0);
		mv_set(h.m, key, k);
		return;
	case 3:
		assert_int_equal(gp_obj_set(h.v, key, gp_value_array()), 0);
		mv_set(h.m, key, mv_new(GP_VALUE_ARRAY));
		return;
	case 4:
		assert_int_equal(gp_obj_set(h.v, key, rand_scalar(r, &k)), 0);
		mv_set(h.m, key, k);
		return;
	default:
		set_scalar(r, h.v, h.m, key);
		return;
	}
}

static void test_random_trees(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 12; seed++) {
		struct rng r = { seed * 0x9E3779B97F4A7C15ull };
		struct handles *hs = xmalloc(sizeof(*hs));
		struct mv *m;
		struct gp_value *root = rand_object(&r, &m, 5);
		unsigned op;

		for (op = 0; op < 1500; op++) {
			hs->n = 0;
			collect(hs, root, m);
			change(&r, hs->h[pick(&r, (unsigned)hs->n)], root, m);
			if (op % 50 == 49) {
				check_tree(root, m);
				check_json(root, m);
			}
		}
		check_tree(root, m);
		check_json(root, m);
		/* a copy reads and writes the same, and goes on another thread */
		{
			struct job j = { 0, 0, gp_value_clone(root), NULL };

			assert_non_null(j.v);
			check_tree(j.v, m);
			check_json(j.v, m);
			run_on_thread(free_main, &j);
		}
		gp_value_free(root);
		mv_free(m);
		free(hs);
	}
}

/*
 * A member read before its object grows (new storage chunks, the member array
 * moving to the heap, the key index) still reads the same; replacing a member in
 * place with a shorter string, a longer one, a number and a container.
 */
static void test_members_stay(void **state)
{
	struct gp_value *o = gp_value_object(), *child = gp_value_object();
	const struct gp_value *a, *c;
	char key[32], big[3000];
	int i;

	(void)state;
	assert_non_null(o);
	assert_non_null(child);
	assert_int_equal(gp_obj_set_str(o, "a", "first text"), 0);
	assert_int_equal(gp_obj_set(o, "child", child), 0);
	assert_int_equal(gp_obj_set_int(child, "x", 7), 0);
	a = gp_obj_get(o, "a");
	c = gp_obj_get(o, "child");
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (i = 0; i < 300; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(i % 7 ? gp_obj_set_int(o, key, i) : gp_obj_set_str(o, key, big),
		                 0);
	}
	assert_ptr_equal(gp_obj_get(o, "a"), a);
	assert_string_equal(gp_value_get_str(a), "first text");
	assert_ptr_equal(gp_obj_get(o, "child"), c);
	assert_int_equal(gp_value_len(o), 302);
	/* replaced: shorter in place, then longer (a node of its own), a number, a container */
	assert_int_equal(gp_obj_set_str(o, "a", "short"), 0);
	assert_string_equal(gp_value_get_str(gp_obj_get(o, "a")), "short");
	assert_int_equal(gp_obj_set_str(o, "a", gp_value_get_str(gp_obj_get(o, "a")) + 1), 0);
	assert_string_equal(gp_value_get_str(gp_obj_get(o, "a")), "hort");
	assert_int_equal(gp_obj_set_str(o, "a", big), 0);
	assert_string_equal(gp_value_get_str(gp_obj_get(o, "a")), big);
	assert_int_equal(gp_obj_set_double(o, "a", 2.5), 0);
	assert_int_equal(gp_obj_set(o, "a", gp_value_array()), 0);
	assert_int_equal(gp_value_type(gp_obj_get(o, "a")), GP_VALUE_ARRAY);
	assert_int_equal(gp_obj_set_bool(o, "a", true), 0);
	assert_true(gp_value_get_bool(gp_obj_get(o, "a"), false));
	/* the same key set again and again takes no new storage: bounded, and still right */
	for (i = 0; i < 100000; i++)
		assert_int_equal(gp_obj_set_int(o, "key1", i), 0);
	assert_int_equal(gp_value_len(o), 302);
	assert_string_equal(gp_obj_key_at(o, 0), "a");
	assert_string_equal(gp_obj_key_at(o, 301), "key299");
	gp_value_free(o);
	/* misuse answers, and takes ownership */
	assert_int_equal(gp_obj_set_int(NULL, "k", 1), GP_EINVAL);
	o = gp_value_null();
	assert_int_equal(gp_obj_set_str(o, "k", "s"), GP_EINVAL);
	gp_value_free(o);
	assert_int_equal(gp_obj_set(NULL, "k", gp_value_int(1)), GP_EINVAL);
	assert_int_equal(gp_obj_set(NULL, "k", NULL), GP_ENOMEM);
	o = gp_value_object();
	assert_int_equal(gp_obj_set_int(o, NULL, 1), GP_EINVAL);
	assert_int_equal(gp__obj_move_members(o, gp_value_int(3)), GP_EINVAL);
	assert_int_equal(gp__obj_move_members(o, NULL), 0);
	gp_value_free(o);
}

/* the tree of test_fail_alloc: every call's failure goes to *failed */
static struct gp_value *fixed_tree(bool *failed)
{
	struct gp_value *o = gp_value_object(), *src = gp_value_object(), *a = gp_value_array(), *c;
	char key[32], big[1500];
	int i;

	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "m%02d", (i * 7) % 40);
		*failed |= (i % 5 == 0 ? gp_obj_set_str(o, key, i % 10 ? "text" : big)
		                       : gp_obj_set_double(o, key, i / 3.0)) != 0;
		*failed |= gp_obj_set_int(src, key + 1, i) != 0;
		*failed |= gp_arr_push(a, gp_value_str(key)) != 0;
	}
	*failed |= gp_obj_set(o, "arr", a) != 0;
	{
		static const char *const keys[] = { "name", "n", "long", "x" };
		struct gp__shape sh;
		struct gp_value *row;

		assert_int_equal(gp__shape_init(&sh, keys, 4), 0);
		row = gp__obj_shaped(&sh);
		*failed |= row == NULL;
		if (row) {
			*failed |= gp__obj_put_str(row, 0, "a row") != 0;
			gp__obj_put_int(row, 1, 7);
			*failed |= gp__obj_put_str(row, 2, big) != 0; /* a node of its own */
			gp__obj_put_double(row, 3, 0.5);
		}
		*failed |= gp_obj_set(o, "row", row) != 0;
	}
	*failed |= gp__obj_move_members(o, src) != 0;
	c = gp_value_clone(o);
	*failed |= c == NULL;
	*failed |= gp_obj_set(o, "copy", c) != 0;
	return o;
}

/*
 * Every allocation made building, moving, cloning and writing fails in turn: the failure is
 * reported, nothing leaks (ASan), and the tree left behind still writes valid JSON.
 */
static void test_fail_alloc(void **state)
{
	long k;
	bool clean = false;

	(void)state;
	for (k = 1; !clean && k < 2000; k++) {
		bool failed = false;
		struct gp_value *o, *back = NULL;
		char *text = NULL;
		int rc;

		gp__test_fail_alloc_after(k);
		o = fixed_tree(&failed);
		rc = o ? gp_value_to_json(o, GP_JSON_PRETTY, &text, NULL) : GP_ENOMEM;
		gp__test_fail_alloc_after(0);
		if (rc)
			assert_null(text);
		clean = !failed && !rc && o;
		if (o && !text)
			assert_int_equal(gp_value_to_json(o, 0, &text, NULL), 0);
		if (text) {
			assert_int_equal(gp_value_parse(text, strlen(text), &back, NULL), 0);
			gp_value_free(back);
		}
		gp_free(text);
		gp_value_free(o);
	}
	assert_true(clean); /* a k past the last allocation was reached */
}

/*
 * A report far larger than the writer's buffer goes out in pieces of about 64 KiB (a longer
 * one only for a string that needs it), byte for byte gp_value_to_json()'s text; a failed
 * write ends it with GP_EIO and the sink's errno, and no piece follows.
 */
/*
 * Shapes: a row built by position is the row built by key, byte for byte, with keys
 * that share their first four bytes and shorter ones; a layout that names a key twice,
 * has too many keys or too long ones is refused.
 */
static void test_shape(void **state)
{
	static const char *const keys[] = { "name_b", "nam", "name_a", "", "zz", "name" };
	const char *many[GP_SHAPE_MAX + 1], *twice[] = { "a", "b", "a" };
	char *x = NULL, *y = NULL, lng[600], names[GP_SHAPE_MAX + 1][8];
	struct gp_value *row, *ref = gp_value_object();
	struct gp__shape sh;
	size_t i;

	(void)state;
	assert_int_equal(gp__shape_init(&sh, keys, GP_ARRAY_SIZE(keys)), 0);
	row = gp__obj_shaped(&sh);
	assert_non_null(row);
	assert_int_equal(gp__obj_put_str(row, 0, "b"), 0);
	gp__obj_put_int(row, 1, -3);
	gp__obj_put_double(row, 2, 2.5);
	assert_int_equal(gp__obj_put_str(row, 4, NULL), 0);
	gp__obj_put_double(row, 5, NAN); /* written null */
	for (i = 0; i < GP_ARRAY_SIZE(keys); i++)
		assert_string_equal(gp_obj_key_at(row, i), keys[i]);
	assert_int_equal(gp_obj_set_str(ref, "name_b", "b"), 0);
	assert_int_equal(gp_obj_set_int(ref, "nam", -3), 0);
	assert_int_equal(gp_obj_set_double(ref, "name_a", 2.5), 0);
	assert_int_equal(gp_obj_set_null(ref, ""), 0);
	assert_int_equal(gp_obj_set_null(ref, "zz"), 0);
	assert_int_equal(gp_obj_set_double(ref, "name", NAN), 0);
	/* set by key afterwards: one replaced, one added */
	assert_int_equal(gp_obj_set_str(row, "nam", "now a string"), 0);
	assert_int_equal(gp_obj_set_str(ref, "nam", "now a string"), 0);
	assert_int_equal(gp_obj_set_bool(row, "name_c", true), 0);
	assert_int_equal(gp_obj_set_bool(ref, "name_c", true), 0);
	assert_int_equal(gp_value_to_json(row, GP_JSON_PRETTY, &x, NULL), 0);
	assert_int_equal(gp_value_to_json(ref, GP_JSON_PRETTY, &y, NULL), 0);
	assert_string_equal(x, y);
	assert_string_equal(gp_value_get_str(gp_obj_get(row, "nam")), "now a string");
	/* put by position after that replaced it with a node of its own */
	gp__obj_put_int(row, 1, 4);
	assert_int_equal(gp_obj_set_int(ref, "nam", 4), 0);
	gp_free(x);
	gp_free(y);
	assert_int_equal(gp_value_to_json(row, 0, &x, NULL), 0);
	assert_int_equal(gp_value_to_json(ref, 0, &y, NULL), 0);
	assert_string_equal(x, y);
	gp_free(x);
	gp_free(y);
	gp_value_free(row);
	gp_value_free(ref);

	for (i = 0; i <= GP_SHAPE_MAX; i++) { /* distinct: refused for their number alone */
		snprintf(names[i], sizeof(names[i]), "k%02zu", i);
		many[i] = names[i];
	}
	assert_int_equal(gp__shape_init(&sh, twice, 3), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "\"a\" twice"));
	assert_int_equal(gp__shape_init(&sh, many, GP_SHAPE_MAX + 1), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "at most"));
	assert_int_equal(gp__shape_init(&sh, many, GP_SHAPE_MAX), 0);
	memset(lng, 'k', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	many[0] = lng;
	assert_int_equal(gp__shape_init(&sh, many, 1), GP_EINVAL);
	assert_int_equal(gp__shape_init(&sh, many, 0), 0);
	row = gp__obj_shaped(&sh);
	assert_non_null(row);
	assert_int_equal(gp_value_len(row), 0);
	gp_value_free(row);
}

/* gp__json_round: the double a reader of the JSON gets back, for every kind of number */
static void test_json_round(void **state)
{
	static const double cases[] = { 0.06250000000000001,
		                        0.1 + 0.2,
		                        1e-7,
		                        -1e-7,
		                        2.5e-6,
		                        123456789.12345678,
		                        -0.0,
		                        1e300,
		                        4503599627370497.5,
		                        0.0625,
		                        1.0 / 3 };
	size_t i;

	(void)state;
	assert_true(gp__json_round(0.06250000000000001) == 0.0625);
	assert_true(gp__json_round(0.1 + 0.2) == 0.3);
	assert_true(gp__json_round(1e-7) == 0 && !signbit(gp__json_round(-1e-7)));
	assert_true(isnan(gp__json_round(NAN)));
	assert_true(isinf(gp__json_round(INFINITY)));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_value *v = gp_value_double(cases[i]), *back = NULL;
		char *text = NULL;
		double d = NAN;

		assert_int_equal(gp_value_to_json(v, 0, &text, NULL), 0);
		assert_int_equal(gp_value_parse(text, strlen(text), &back, NULL), 0);
		assert_true(gp_value_get_double(back, &d));
		assert_true(gp__json_round(cases[i]) == d);
		/* rounding twice changes nothing */
		assert_true(gp__json_round(gp__json_round(cases[i])) == d);
		gp_value_free(v);
		gp_value_free(back);
		gp_free(text);
	}
}

/*
 * A spliced array's items come from the callback, not from the tree: an empty array
 * written as three items and a full one as none; an item's error, a failing sink and
 * an array that is not one end the writing.
 */
static void test_spliced(void **state)
{
	struct gp_value *doc = gp_value_object(), *ranks = gp_value_array(), *ref = NULL;
	struct gp_value *x[3];
	struct items it = { 0 };
	struct sink k = { 0 };
	char *want = NULL;
	size_t wlen = 0, i;
	unsigned pretty;

	(void)state;
	assert_int_equal(gp_obj_set(doc, "ranks", ranks), 0);
	assert_int_equal(gp_obj_set_str(doc, "schema", "s/1"), 0);
	assert_int_equal(gp_obj_set_str(doc, "a", "first"), 0);
	for (i = 0; i < 3; i++) {
		x[i] = gp_value_object();
		assert_int_equal(gp_obj_set_int(x[i], "rank", (int64_t)i), 0);
		assert_int_equal(gp_obj_set(x[i], "rows", gp_value_array()), 0);
		assert_int_equal(gp_arr_push((struct gp_value *)gp_obj_get(x[i], "rows"),
		                             gp_value_double(0.5 * (double)i)),
		                 0);
	}
	it.n = 3;
	it.text = xmalloc(3 * sizeof(*it.text));
	it.len = xmalloc(3 * sizeof(*it.len));
	for (pretty = 0; pretty < 2; pretty++) {
		unsigned flags = pretty ? GP_JSON_PRETTY : 0;

		/* the reference: the same document with the items in the tree */
		ref = gp_value_clone(doc);
		for (i = 0; i < 3; i++)
			assert_int_equal(gp_arr_push((struct gp_value *)gp_obj_get(ref, "ranks"),
			                             gp_value_clone(x[i])),
			                 0);
		assert_int_equal(gp_value_to_json(ref, flags, &want, &wlen), 0);
		for (i = 0; i < 3; i++)
			assert_int_equal(
			    gp__value_to_json_at(x[i], flags, 2, &it.text[i], &it.len[i]), 0);
		it.calls = 0;
		memset(&k, 0, sizeof(k));
		assert_int_equal(
		    gp__value_write_json_spliced(doc, flags, ranks, 3, item_put, &it, sink_add, &k),
		    0);
		assert_int_equal(k.o.len, wlen);
		assert_memory_equal(k.o.p, want, wlen);
		free(k.o.p);
		/* none: "[]", whatever the tree holds there */
		memset(&k, 0, sizeof(k));
		assert_int_equal(gp__value_write_json_spliced(ref, flags, gp_obj_get(ref, "ranks"),
		                                              0, NULL, NULL, sink_add, &k),
		                 0);
		out_add(&k.o, "", 1);
		assert_non_null(strstr(k.o.p, pretty ? "\"ranks\": []" : "\"ranks\":[]"));
		free(k.o.p);
		/* the sink failing in an item: GP_EIO, errno as it set it, nothing after */
		it.calls = 0;
		memset(&k, 0, sizeof(k));
		k.fail_at = 1;
		errno = 0;
		assert_int_equal(
		    gp__value_write_json_spliced(doc, flags, ranks, 3, item_put, &it, sink_add, &k),
		    GP_EIO);
		assert_int_equal(errno, ENOSPC);
		free(k.o.p);
		for (i = 0; i < 3; i++)
			gp_free(it.text[i]);
		gp_free(want);
		gp_value_free(ref);
	}
	/* not an array, or items without a callback */
	memset(&k, 0, sizeof(k));
	assert_int_equal(gp__value_write_json_spliced(doc, 0, gp_obj_get(doc, "schema"), 0, NULL,
	                                              NULL, sink_add, &k),
	                 GP_EINVAL);
	assert_int_equal(gp__value_write_json_spliced(doc, 0, ranks, 2, NULL, NULL, sink_add, &k),
	                 GP_EINVAL);
	assert_int_equal(k.pieces, 0);
	/* a depth past the writer's limit */
	assert_int_equal(gp__value_to_json_at(doc, 0, -1, &want, &wlen), GP_EINVAL);
	for (i = 0; i < 3; i++)
		gp_value_free(x[i]);
	free(it.text);
	free(it.len);
	gp_value_free(doc);
}

static void test_write_streamed(void **state)
{
	struct gp_value *root = gp_value_object(), *rows = gp_value_array();
	struct sink k = { 0 };
	char *text = NULL, *big = xmalloc(300001);
	size_t len = 0, i;

	(void)state;
	assert_non_null(root);
	assert_non_null(rows);
	assert_int_equal(gp_obj_set(root, "rows", rows), 0);
	for (i = 0; i < 20000; i++) {
		struct gp_value *o = gp_value_object();

		assert_int_equal(gp_arr_push(rows, o), 0);
		assert_int_equal(gp_obj_set_int(o, "i", (int64_t)i), 0);
		assert_int_equal(gp_obj_set_double(o, "x", (double)i / 7), 0);
		assert_int_equal(
		    gp_obj_set_str(o, "name", i % 3 ? "aten::mm" : "a \"quoted\" name"), 0);
	}
	memset(big, 'z', 300000);
	big[300000] = '\0';
	assert_int_equal(gp_obj_set_str(root, "zbig", big), 0); /* after the rows */
	for (i = 0; i < 2; i++) {
		unsigned flags = i ? GP_JSON_PRETTY : 0;

		assert_int_equal(gp_value_to_json(root, flags, &text, &len), 0);
		assert_true(len > 1000000);
		memset(&k, 0, sizeof(k));
		assert_int_equal(gp_value_write_json(root, flags, sink_add, &k), 0);
		assert_int_equal(k.o.len, len);
		assert_memory_equal(k.o.p, text, len);
		assert_true(k.pieces >= (len - 300000) / (64 * 1024)); /* the rows in 64 KiB */
		assert_true(k.largest < 300000 + 64 * 1024); /* the string's piece, no more */
		free(k.o.p);
		gp_free(text);
	}
	/* the third piece fails: GP_EIO, the sink's errno, nothing after */
	memset(&k, 0, sizeof(k));
	k.fail_at = 3;
	errno = 0;
	assert_int_equal(gp_value_write_json(root, 0, sink_add, &k), GP_EIO);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(k.pieces, 3);
	assert_non_null(strstr(gp_last_error(), "No space left"));
	free(k.o.p);
	assert_int_equal(gp_value_write_json(NULL, 0, sink_add, &k), GP_EINVAL);
	assert_int_equal(gp_value_write_json(root, 0, NULL, &k), GP_EINVAL);
	free(big);
	gp_value_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_trees), cmocka_unit_test(test_members_stay),
		cmocka_unit_test(test_fail_alloc),   cmocka_unit_test(test_write_streamed),
		cmocka_unit_test(test_json_round),   cmocka_unit_test(test_spliced),
		cmocka_unit_test(test_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
