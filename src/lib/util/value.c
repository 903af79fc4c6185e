/* SPDX-License-Identifier: MIT */
/*
 * value.c - the gp_value document tree and its JSON writer (value.h).
 *
 * Objects keep insertion order in memory and are written with keys sorted, so
 * output never depends on the order analyses filled them in. An object of
 * more than GP_OBJ_SCAN members also keeps a hash index of its keys, so that
 * setting (which replaces a member of the same key) and looking up stay
 * constant-time: a parsed document with 200,000 keys in one object took
 * minutes when each new key was compared with all the others. The key texts
 * of an object live in a few chunks of its own, never moved, rather than in
 * one allocation per key.
 */
#include "gpuprof/value.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "json-scan.h"
#include "strtab.h"
#include "value-int.h"

#define GP_OBJ_SCAN 16         /* objects up to this many members are searched in order */
#define GP_OBJ_MAX  (1u << 30) /* members of one object at most (32-bit counts and index) */

struct gp_member {
	char *key;
	struct gp_value *v;
};

/* An object's key index: open addressing, member position + 1 (0 empty), nslot a power of two
 * at least twice the members */
struct obj_index {
	size_t nslot;
	uint32_t slot[];
};

/* The key texts of an object: a list of chunks, newest first, whose texts never move (keys are
 * never removed); the newest also holds the object's key index, NULL up to GP_OBJ_SCAN members */
struct obj_keys {
	struct obj_keys *next;
	struct obj_index *idx;
	uint32_t used, cap;
	char text[];
};

#define KEYS_FIRST 64u         /* bytes of an object's first key chunk; each next one doubles */
#define KEYS_MAX   (64u << 10) /* up to this */

struct gp_value {
	enum gp_value_type type;
	union {
		bool b;
		int64_t i;
		double d;
		struct {
			char *p;
			size_t len;
		} s;
		struct {
			struct gp_value **items;
			size_t n, cap;
		} a;
		/* no wider than the array's: every node of a report has this size */
		struct {
			struct gp_member *m;
			uint32_t n, cap;
			struct obj_keys *keys; /* NULL while there is no member */
		} o;
	} u;
};

static struct gp_value *vnew(enum gp_value_type type)
{
	/* malloc and a fixed-size clear: cheaper than calloc for the report's many small nodes */
	struct gp_value *v = gp__malloc(sizeof(*v));

	if (v) {
		memset(v, 0, sizeof(*v));
		v->type = type;
	}
	return v;
}

GP_API struct gp_value *gp_value_null(void)
{
	return vnew(GP_VALUE_NULL);
}

GP_API struct gp_value *gp_value_bool(bool b)
{
	struct gp_value *v = vnew(GP_VALUE_BOOL);

	if (v)
		v->u.b = b;
	return v;
}

GP_API struct gp_value *gp_value_int(int64_t i)
{
	struct gp_value *v = vnew(GP_VALUE_INT);

	if (v)
		v->u.i = i;
	return v;
}

GP_API struct gp_value *gp_value_double(double d)
{
	struct gp_value *v = vnew(GP_VALUE_DOUBLE);

	if (v)
		v->u.d = d;
	return v;
}

GP_API struct gp_value *gp_value_strn(const char *s, size_t len)
{
	struct gp_value *v;

	if (!s)
		return gp_value_null();
	/* the text lives right after the node: one allocation (gp_value_free knows) */
	if (len > SIZE_MAX - sizeof(*v) - 1)
		return NULL;
	v = gp__malloc(sizeof(*v) + len + 1);
	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = GP_VALUE_STRING;
	v->u.s.p = (char *)(v + 1);
	memcpy(v->u.s.p, s, len);
	v->u.s.p[len] = '\0';
	v->u.s.len = len;
	return v;
}

GP_API struct gp_value *gp_value_str(const char *s)
{
	return s ? gp_value_strn(s, strlen(s)) : gp_value_null();
}

GP_API struct gp_value *gp_value_array(void)
{
	return vnew(GP_VALUE_ARRAY);
}

GP_API struct gp_value *gp_value_object(void)
{
	return vnew(GP_VALUE_OBJECT);
}

GP_API void gp_value_free(struct gp_value *v)
{
	size_t i;

	if (!v)
		return;
	switch (v->type) {
	case GP_VALUE_STRING:
		if (v->u.s.p != (char *)(v + 1))
			gp__free(v->u.s.p);
		break;
	case GP_VALUE_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			gp_value_free(v->u.a.items[i]);
		gp__free(v->u.a.items);
		break;
	case GP_VALUE_OBJECT:
		for (i = 0; i < v->u.o.n; i++)
			gp_value_free(v->u.o.m[i].v);
		gp__free(v->u.o.m);
		if (v->u.o.keys)
			gp__free(v->u.o.keys->idx);
		while (v->u.o.keys) {
			struct obj_keys *next = v->u.o.keys->next;

			gp__free(v->u.o.keys);
			v->u.o.keys = next;
		}
		break;
	default:
		break;
	}
	gp__free(v);
}

GP_API struct gp_value *gp_value_clone(const struct gp_value *v)
{
	struct gp_value *c;
	size_t i;

	if (!v)
		return NULL;
	switch (v->type) {
	case GP_VALUE_NULL:
		return gp_value_null();
	case GP_VALUE_BOOL:
		return gp_value_bool(v->u.b);
	case GP_VALUE_INT:
		return gp_value_int(v->u.i);
	case GP_VALUE_DOUBLE:
		return gp_value_double(v->u.d);
	case GP_VALUE_STRING:
		return gp_value_strn(v->u.s.p, v->u.s.len);
	case GP_VALUE_ARRAY:
		c = gp_value_array();
		for (i = 0; c && i < v->u.a.n; i++) {
			if (gp_arr_push(c, gp_value_clone(v->u.a.items[i]))) {
				gp_value_free(c);
				return NULL;
			}
		}
		return c;
	case GP_VALUE_OBJECT:
		c = gp_value_object();
		for (i = 0; c && i < v->u.o.n; i++) {
			if (gp_obj_set(c, v->u.o.m[i].key, gp_value_clone(v->u.o.m[i].v))) {
				gp_value_free(c);
				return NULL;
			}
		}
		return c;
	}
	return NULL;
}

static size_t key_hash(const char *key)
{
	return (size_t)gp__hash_bytes(key, strlen(key));
}

/* The key index of @p obj, or NULL. */
static struct obj_index *obj_idx(const struct gp_value *obj)
{
	return obj->u.o.keys ? obj->u.o.keys->idx : NULL;
}

/* The slot of @p key in the index of @p obj: the member's, or the empty one where it goes. */
static size_t idx_slot(const struct gp_value *obj, const char *key)
{
	const struct obj_index *idx = obj_idx(obj);
	size_t mask = idx->nslot - 1, j = key_hash(key) & mask;
	uint32_t m;

	while ((m = idx->slot[j]) && strcmp(obj->u.o.m[m - 1].key, key) != 0)
		j = (j + 1) & mask;
	return j;
}

/*
 * A copy of @p key (@p len bytes) among the key texts of @p obj, or NULL
 * (out of memory). The copy lives as long as the object.
 */
static char *keys_add(struct gp_value *obj, const char *key, size_t len)
{
	struct obj_keys *h = obj->u.o.keys, *nh;
	size_t cap;
	char *k;

	if (!h || h->cap - h->used <= len) {
		cap = h ? (h->cap < KEYS_MAX ? 2 * (size_t)h->cap : KEYS_MAX) : KEYS_FIRST;
		if (cap <= len)
			cap = len + 1;
		if (cap > UINT32_MAX)
			return NULL;
		nh = gp__malloc(sizeof(*nh) + cap);
		if (!nh)
			return NULL;
		nh->next = h;
		nh->idx = h ? h->idx : NULL;
		nh->used = 0;
		nh->cap = (uint32_t)cap;
		if (h)
			h->idx = NULL;
		obj->u.o.keys = h = nh;
	}
	k = h->text + h->used;
	memcpy(k, key, len);
	k[len] = '\0';
	h->used += (uint32_t)len + 1;
	return k;
}

/* The position of member @p key of @p obj, or SIZE_MAX. */
static size_t obj_find(const struct gp_value *obj, const char *key)
{
	size_t i;

	if (obj_idx(obj)) {
		uint32_t m = obj_idx(obj)->slot[idx_slot(obj, key)];

		return m ? m - 1 : SIZE_MAX;
	}
	/* the first byte inline: most keys differ there */
	for (i = 0; i < obj->u.o.n; i++)
		if (obj->u.o.m[i].key[0] == key[0] && strcmp(obj->u.o.m[i].key, key) == 0)
			return i;
	return SIZE_MAX;
}

/*
 * Makes sure the index of @p obj has room for @p n members (none is needed
 * up to GP_OBJ_SCAN), rebuilding it from the members when it grows.
 */
static int idx_reserve(struct gp_value *obj, size_t n)
{
	struct obj_index *idx = obj_idx(obj);
	size_t nslot = idx ? idx->nslot : 64, i;

	/* past GP_OBJ_SCAN members the object has keys, so obj->u.o.keys is set */
	if (n <= GP_OBJ_SCAN || !obj->u.o.keys || (idx && n * 2 <= idx->nslot))
		return 0;
	while (nslot < n * 2)
		nslot *= 2;
	idx = gp__calloc(1, sizeof(*idx) + nslot * sizeof(idx->slot[0]));
	if (!idx)
		return gp__error(GP_ENOMEM, "out of memory indexing an object");
	idx->nslot = nslot;
	gp__free(obj->u.o.keys->idx);
	obj->u.o.keys->idx = idx;
	for (i = 0; i < obj->u.o.n; i++)
		idx->slot[idx_slot(obj, obj->u.o.m[i].key)] = (uint32_t)(i + 1);
	return 0;
}

GP_API int gp_arr_push(struct gp_value *arr, struct gp_value *item)
{
	int rc;

	if (!item)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	if (!arr || arr->type != GP_VALUE_ARRAY) {
		gp_value_free(item);
		return gp__error(GP_EINVAL, "not an array");
	}
	if ((rc = gp__grow((void **)&arr->u.a.items, &arr->u.a.cap, arr->u.a.n + 1,
	                   sizeof(*arr->u.a.items)))) {
		gp_value_free(item);
		return rc;
	}
	arr->u.a.items[arr->u.a.n++] = item;
	return 0;
}

GP_API int gp_obj_set(struct gp_value *obj, const char *key, struct gp_value *v)
{
	size_t i, cap;
	char *k;
	int rc;

	if (!v)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	if (!obj || obj->type != GP_VALUE_OBJECT || !key) {
		gp_value_free(v);
		return gp__error(GP_EINVAL, "not an object");
	}
	if ((i = obj_find(obj, key)) != SIZE_MAX) {
		gp_value_free(obj->u.o.m[i].v);
		obj->u.o.m[i].v = v;
		return 0;
	}
	k = keys_add(obj, key, strlen(key));
	if (!k) {
		gp_value_free(v);
		return gp__error(GP_ENOMEM, "out of memory building a report");
	}
	cap = obj->u.o.cap;
	if ((rc = obj->u.o.n >= GP_OBJ_MAX ? gp__error(GP_ELIMIT, "too many members in one object")
	                                   : 0) ||
	    (rc = gp__grow((void **)&obj->u.o.m, &cap, obj->u.o.n + 1, sizeof(*obj->u.o.m))) ||
	    (rc = idx_reserve(obj, obj->u.o.n + 1))) {
		/* k stays among the key texts, unused, until the object is freed */
		gp_value_free(v);
		return rc;
	}
	obj->u.o.cap = (uint32_t)cap; /* <= 2 * GP_OBJ_MAX */
	obj->u.o.m[obj->u.o.n].key = k;
	obj->u.o.m[obj->u.o.n].v = v;
	obj->u.o.n++;
	if (obj_idx(obj))
		obj_idx(obj)->slot[idx_slot(obj, k)] = obj->u.o.n;
	return 0;
}

GP_API int gp_obj_set_int(struct gp_value *obj, const char *key, int64_t i)
{
	return gp_obj_set(obj, key, gp_value_int(i));
}

GP_API int gp_obj_set_double(struct gp_value *obj, const char *key, double d)
{
	return gp_obj_set(obj, key, gp_value_double(d));
}

GP_API int gp_obj_set_str(struct gp_value *obj, const char *key, const char *s)
{
	return gp_obj_set(obj, key, gp_value_str(s));
}

GP_API int gp_obj_set_bool(struct gp_value *obj, const char *key, bool b)
{
	return gp_obj_set(obj, key, gp_value_bool(b));
}

GP_API int gp_obj_set_null(struct gp_value *obj, const char *key)
{
	return gp_obj_set(obj, key, gp_value_null());
}

GP_API enum gp_value_type gp_value_type(const struct gp_value *v)
{
	return v ? v->type : GP_VALUE_NULL;
}

GP_API size_t gp_value_len(const struct gp_value *v)
{
	if (!v)
		return 0;
	if (v->type == GP_VALUE_ARRAY)
		return v->u.a.n;
	if (v->type == GP_VALUE_OBJECT)
		return v->u.o.n;
	return 0;
}

GP_API const struct gp_value *gp_arr_get(const struct gp_value *arr, size_t i)
{
	if (!arr || arr->type != GP_VALUE_ARRAY || i >= arr->u.a.n)
		return NULL;
	return arr->u.a.items[i];
}

GP_API const struct gp_value *gp_obj_get(const struct gp_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != GP_VALUE_OBJECT || !key)
		return NULL;
	i = obj_find(obj, key);
	return i != SIZE_MAX ? obj->u.o.m[i].v : NULL;
}

GP_API const char *gp_obj_key_at(const struct gp_value *obj, size_t i)
{
	if (!obj || obj->type != GP_VALUE_OBJECT || i >= obj->u.o.n)
		return NULL;
	return obj->u.o.m[i].key;
}

GP_API const struct gp_value *gp_obj_value_at(const struct gp_value *obj, size_t i)
{
	if (!obj || obj->type != GP_VALUE_OBJECT || i >= obj->u.o.n)
		return NULL;
	return obj->u.o.m[i].v;
}

GP_API const struct gp_value *gp_value_path(const struct gp_value *v, const char *path)
{
	char seg[256];

	while (v && path && *path) {
		const char *slash = strchr(path, '/');
		size_t n = slash ? (size_t)(slash - path) : strlen(path);

		if (n >= sizeof(seg))
			return NULL;
		memcpy(seg, path, n);
		seg[n] = '\0';
		if (v->type == GP_VALUE_ARRAY) {
			char *end;
			unsigned long idx = strtoul(seg, &end, 10);

			if (*end || end == seg)
				return NULL;
			v = gp_arr_get(v, idx);
		} else {
			v = gp_obj_get(v, seg);
		}
		path = slash ? slash + 1 : NULL;
	}
	return v;
}

GP_API bool gp_value_get_int(const struct gp_value *v, int64_t *out)
{
	if (!v)
		return false;
	if (v->type == GP_VALUE_INT) {
		*out = v->u.i;
		return true;
	}
	if (v->type == GP_VALUE_DOUBLE && isfinite(v->u.d) && v->u.d == floor(v->u.d) &&
	    fabs(v->u.d) < 9.2e18) {
		*out = (int64_t)v->u.d;
		return true;
	}
	return false;
}

GP_API bool gp_value_get_double(const struct gp_value *v, double *out)
{
	if (!v)
		return false;
	if (v->type == GP_VALUE_INT) {
		*out = (double)v->u.i;
		return true;
	}
	if (v->type == GP_VALUE_DOUBLE && isfinite(v->u.d)) {
		*out = v->u.d;
		return true;
	}
	return false;
}

GP_API const char *gp_value_get_str(const struct gp_value *v)
{
	return v && v->type == GP_VALUE_STRING ? v->u.s.p : NULL;
}

GP_API bool gp_value_get_bool(const struct gp_value *v, bool dflt)
{
	return v && v->type == GP_VALUE_BOOL ? v->u.b : dflt;
}

/* ---- writer ---- */

/*
 * The length of the run at @p s (at most @p len bytes) that goes out as it
 * is. @p s may be NULL when @p len is 0 (an array item's head has no key).
 */
static inline size_t plain_run(const char *s, size_t len)
{
	return len ? (size_t)(gp__json_plain(s, s + len) - s) : 0;
}

static int write_str(struct gp_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run = 0;
	int rc;

	if ((rc = gp__buf_addch(b, '"')))
		return rc;
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
		if ((rc = gp__buf_add(b, s + run, i - run)))
			return rc;
		run = ++i;
		if (c >= 0x80) { /* a byte of invalid UTF-8: U+FFFD */
			if ((rc = gp__buf_add(b, "\xEF\xBF\xBD", 3)))
				return rc;
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
		if ((rc = gp__buf_add(b, esc, elen)))
			return rc;
	}
	if ((rc = gp__buf_add(b, s + run, len - run)))
		return rc;
	return gp__buf_addch(b, '"');
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
	char digits[24], *p = digits + sizeof(digits);
	double m = d * 1e6, r, frac;
	uint64_t u;
	size_t n = 0, k;
	int dec = 0;

	if (!(m > -1099511627776.0 && m < 1099511627776.0))
		return 0;
	r = nearbyint(m);
	frac = fabs(m - trunc(m));
	if (fabs(frac - 0.5) < 1.0 / 2048)
		return 0;
	u = (uint64_t)(r < 0 ? -r : r);
	if (r < 0 && u)
		out[n++] = '-';
	/* the digits of u, at least 7 (one before the point) */
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
		dec++;
	} while (u || dec < 7);
	k = (size_t)(digits + sizeof(digits) - p); /* digits, the last 6 after the point */
	memcpy(out + n, p, k - 6);
	n += k - 6;
	/* the fraction without its trailing zeros */
	{
		size_t f = 6;

		while (f && p[k - 6 + f - 1] == '0')
			f--;
		if (f) {
			out[n++] = '.';
			memcpy(out + n, p + k - 6, f);
			n += f;
		}
	}
	return n;
}

/* decimal text of @p i, without printf */
static int write_int(struct gp_buf *b, int64_t i)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (i < 0)
		*--p = '-';
	return gp__buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

static int write_double(struct gp_buf *b, double d)
{
	char tmp[64];
	size_t fast;
	int n;

	if (!isfinite(d))
		return gp__buf_addstr(b, "null");
	if (d == 0)
		d = 0; /* no "-0" */
	/* a whole number below 2^53 is exact: "%.6f" gives its digits and six zeros, trimmed */
	if (fabs(d) < 9007199254740992.0 && d == trunc(d))
		return write_int(b, (int64_t)d);
	if ((fast = fixed6_fast(d, tmp)))
		return gp__buf_add(b, tmp, fast);
	n = snprintf(tmp, sizeof(tmp), "%.6f", d);
	if (n <= 0 || (size_t)n >= sizeof(tmp)) {
		n = snprintf(tmp, sizeof(tmp), "%.17g", d);
		return gp__buf_add(b, tmp, (size_t)n);
	}
	while (n > 1 && tmp[n - 1] == '0')
		n--;
	if (tmp[n - 1] == '.')
		n--;
	if (n == 2 && tmp[0] == '-' && tmp[1] == '0')
		return gp__buf_addch(b, '0');
	return gp__buf_add(b, tmp, (size_t)n);
}

static int cmp_member(const void *a, const void *b)
{
	const struct gp_member *const *x = a, *const *y = b;

	return strcmp((*x)->key, (*y)->key);
}

/* strcmp(a, b) > 0, the first byte inline */
static bool key_after(const char *a, const char *b)
{
	if (*a != *b)
		return (unsigned char)*a > (unsigned char)*b;
	return strcmp(a, b) > 0;
}

static int indent(struct gp_buf *b, unsigned flags, int depth)
{
	/* a newline and 64 spaces: one append for up to 32 levels */
	static const char nl[] =
	    "\n                                                                ";
	size_t want = 1 + 2 * (size_t)depth, k;
	const char *from = nl;
	int rc;

	if (!(flags & GP_JSON_PRETTY))
		return 0;
	while (want) {
		k = want < (size_t)(nl + sizeof(nl) - 1 - from)
		        ? want
		        : (size_t)(nl + sizeof(nl) - 1 - from);
		if ((rc = gp__buf_add(b, from, k)))
			return rc;
		want -= k;
		from = nl + 1;
	}
	return 0;
}

/*
 * What goes before an item at @p depth: ',' unless @p first, then, pretty, a newline and the
 * indent; for a member also its key and ':' (and ' ', pretty). One append when the key needs
 * no escape, which is nearly always.
 */
static int write_head(struct gp_buf *b, bool first, const char *key, unsigned flags, int depth)
{
	bool pretty = flags & GP_JSON_PRETTY;
	size_t n = key ? strlen(key) : 0, sp = pretty ? 2 * (size_t)depth : 0;
	char *p;
	int rc;

	if (plain_run(key, n) < n) {
		if (!first && (rc = gp__buf_addch(b, ',')))
			return rc;
		if ((rc = indent(b, flags, depth)) || (rc = write_str(b, key, n)))
			return rc;
		return gp__buf_add(b, pretty ? ": " : ":", pretty ? 2 : 1);
	}
	/* the buffer's room checked inline: grow only when it lacks it (or has a cap) */
	if ((b->max || b->alloc - b->len <= 1 + 1 + sp + n + 4) &&
	    (rc = gp__buf_grow(b, 1 + 1 + sp + n + 4)))
		return rc;
	p = b->buf + b->len;
	if (!first)
		*p++ = ',';
	if (pretty) {
		*p++ = '\n';
		memset(p, ' ', sp);
		p += sp;
	}
	if (key) {
		*p++ = '"';
		memcpy(p, key, n);
		p += n;
		*p++ = '"';
		*p++ = ':';
		if (pretty)
			*p++ = ' ';
	}
	*p = '\0';
	b->len = (size_t)(p - b->buf);
	return 0;
}

static int write_value(struct gp_buf *b, const struct gp_value *v, unsigned flags, int depth)
{
	const struct gp_member *few[16], **sorted = NULL, **order;
	size_t i;
	int rc = 0;

	if (depth > 1000)
		return gp__error(GP_ELIMIT, "report nested too deeply");
	switch (v->type) {
	case GP_VALUE_NULL:
		return gp__buf_addstr(b, "null");
	case GP_VALUE_BOOL:
		return gp__buf_addstr(b, v->u.b ? "true" : "false");
	case GP_VALUE_INT:
		return write_int(b, v->u.i);
	case GP_VALUE_DOUBLE:
		return write_double(b, v->u.d);
	case GP_VALUE_STRING:
		return write_str(b, v->u.s.p, v->u.s.len);
	case GP_VALUE_ARRAY:
		if (!v->u.a.n)
			return gp__buf_addstr(b, "[]");
		GP_TRY(gp__buf_addch(b, '['));
		for (i = 0; i < v->u.a.n; i++) {
			GP_TRY(write_head(b, i == 0, NULL, flags, depth + 1));
			GP_TRY(write_value(b, v->u.a.items[i], flags, depth + 1));
		}
		GP_TRY(indent(b, flags, depth));
		return gp__buf_addch(b, ']');
	case GP_VALUE_OBJECT:
		if (!v->u.o.n)
			return gp__buf_addstr(b, "{}");
		/* members in key order: on the stack and by insertion for the usual few */
		if (v->u.o.n <= GP_ARRAY_SIZE(few)) {
			order = few;
		} else {
			sorted = gp__calloc(v->u.o.n, sizeof(*sorted));
			if (!sorted)
				return gp__error(GP_ENOMEM, "out of memory writing a report");
			order = sorted;
		}
		for (i = 0; i < v->u.o.n; i++)
			order[i] = &v->u.o.m[i];
		if (sorted) {
			qsort(order, v->u.o.n, sizeof(*order), cmp_member);
		} else {
			for (i = 1; i < v->u.o.n; i++) {
				const struct gp_member *x = order[i];
				size_t j = i;

				while (j > 0 && key_after(order[j - 1]->key, x->key)) {
					order[j] = order[j - 1];
					j--;
				}
				order[j] = x;
			}
		}
		GP_TRY(gp__buf_addch(b, '{'));
		for (i = 0; i < v->u.o.n; i++) {
			GP_TRY(write_head(b, i == 0, order[i]->key, flags, depth + 1));
			GP_TRY(write_value(b, order[i]->v, flags, depth + 1));
		}
		GP_TRY(indent(b, flags, depth));
		rc = gp__buf_addch(b, '}');
		break;
	}
out:
	gp__free(sorted);
	return rc;
}

GP_API int gp_value_to_json(const struct gp_value *v, unsigned flags, char **out, size_t *len)
{
	struct gp_buf b = GP_BUF_INIT;
	int rc;

	*out = NULL;
	if (!v)
		return gp__error(GP_EINVAL, "no value");
	rc = write_value(&b, v, flags, 0);
	if (!rc && (flags & GP_JSON_PRETTY))
		rc = gp__buf_addch(&b, '\n');
	if (rc) {
		gp__buf_release(&b);
		return rc;
	}
	*out = gp__buf_detach(&b, len);
	return *out ? 0 : gp__error(GP_ENOMEM, "out of memory");
}

int gp__obj_move_members(struct gp_value *dst, struct gp_value *src)
{
	size_t i;
	int rc = 0;

	if (!src)
		return 0;
	if (src->type != GP_VALUE_OBJECT || !dst || dst->type != GP_VALUE_OBJECT) {
		gp_value_free(src);
		return gp__error(GP_EINVAL, "not an object");
	}
	for (i = 0; i < src->u.o.n; i++) {
		/* gp_obj_set owns the value from here, even when it fails */
		int r = gp_obj_set(dst, src->u.o.m[i].key, src->u.o.m[i].v);

		src->u.o.m[i].v = NULL;
		if (r && !rc)
			rc = r;
	}
	gp_value_free(src);
	return rc;
}

int gp__obj_set_str_or_null(struct gp_value *o, const char *key, const char *s)
{
	return s ? gp_obj_set_str(o, key, s) : gp_obj_set_null(o, key);
}

struct gp_value *gp__obj_get_mut(struct gp_value *obj, const char *key)
{
	return (struct gp_value *)gp_obj_get(obj, key);
}

void gp__arr_truncate(struct gp_value *arr, size_t n)
{
	if (!arr || arr->type != GP_VALUE_ARRAY)
		return;
	while (arr->u.a.n > n)
		gp_value_free(arr->u.a.items[--arr->u.a.n]);
}
