/* SPDX-License-Identifier: MIT */
/*
 * value.c - the gp_value document tree (value.h): building, reading, cloning
 * and freeing; value-write.c writes it as JSON, value-node.h is the layout.
 *
 * Objects keep insertion order in memory and are written with keys sorted, so
 * output never depends on the order analyses filled them in. An object of
 * more than GP_OBJ_SCAN members also keeps a hash index of its keys, so that
 * setting (which replaces a member of the same key) and looking up stay
 * constant-time: a parsed document with 200,000 keys in one object took
 * minutes when each new key was compared with all the others. While an
 * object is searched in order, that search also counts the keys below the
 * new one, which keeps the key order of its first GP_OBJ_ORDER members.
 *
 * Reports are mostly objects of scalars: gp_obj_set_int/double/str/bool/null
 * make the member's node (and its string) in the object's own storage chunks,
 * next to its key, rather than one allocation per value; such a node never
 * moves and is freed with its object. Replacing a member never takes new
 * storage from the chunks (an in-place node is overwritten when the new value
 * fits, else the new one is allocated alone), so an object's storage is
 * bounded by the members it ever had.
 */
#include "gpuprof/value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "error.h"
#include "strtab.h"
#include "value-int.h"
#include "value-node.h"

#define GP_OBJ_MAX (1u << 30) /* members of one object at most (32-bit counts and index) */

#define STORE_FIRST 256u        /* bytes of an object's first storage chunk; each next doubles */
#define STORE_MAX   (64u << 10) /* up to this */
#define INLINE_STR  1024u       /* longer strings set in place get a node of their own */

_Static_assert(offsetof(struct gp__obj_store, data) % 8 == 0, "store data 8-aligned");
_Static_assert(sizeof(struct gp_value) % 8 == 0, "nodes 8-aligned");
_Static_assert(sizeof(struct gp__obj_ext) % 8 == 0, "the first chunk 8-aligned");

static struct gp_value *vnew(enum gp_value_type type)
{
	/* malloc and a fixed-size clear: cheaper than calloc for small nodes */
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
	/* the text lives right after the node: one allocation, GP_VALUE_READ bytes readable */
	if (len > SIZE_MAX - sizeof(*v) - GP_VALUE_READ)
		return NULL;
	v = gp__malloc(sizeof(*v) + len + GP_VALUE_READ);
	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = GP_VALUE_STRING;
	v->u.s.p = (char *)(v + 1);
	memset(v->u.s.p + len, 0, GP_VALUE_READ); /* the NUL and the rest read */
	memcpy(v->u.s.p, s, len);
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
	/* the node, its header, its first storage chunk: one allocation for most objects */
	struct gp_value *v = gp__malloc(sizeof(*v) + sizeof(struct gp__obj_ext) +
	                                sizeof(struct gp__obj_store) + STORE_FIRST + GP_VALUE_READ);
	struct gp__obj_ext *x;
	struct gp__obj_store *st;

	if (!v)
		return NULL;
	*v = (struct gp_value){ .type = GP_VALUE_OBJECT };
	x = gp__obj_ext(v);
	x->order = 0;
	x->idx = NULL;
	memset(x->pre, 0, sizeof(x->pre));
	st = (struct gp__obj_store *)(void *)(x + 1);
	st->next = NULL;
	st->used = 0;
	st->cap = STORE_FIRST;
	memset(st->data + STORE_FIRST, 0, GP_VALUE_READ);
	v->u.o.m = x->m0;
	v->u.o.cap = GP_OBJ_SCAN;
	v->u.o.store = st;
	return v;
}

GP_API void gp_value_free(struct gp_value *v)
{
	struct gp__obj_store *st;
	size_t i;

	/* a node in its object's storage goes with the object */
	if (!v || v->inl)
		return;
	switch (v->type) {
	case GP_VALUE_ARRAY:
		for (i = 0; i < v->u.a.n; i++)
			gp_value_free(v->u.a.items[i]);
		gp__free(v->u.a.items);
		break;
	case GP_VALUE_OBJECT:
		for (i = 0; i < v->u.o.n; i++) {
			struct gp_value *c = v->u.o.m[i].v;

			/* most members are scalars in the object's storage: no call for them */
			if (c && !c->inl)
				gp_value_free(c);
		}
		if (v->mheap)
			gp__free(v->u.o.m);
		gp__free(gp__obj_ext(v)->idx);
		/* the last chunk came with the node */
		for (st = v->u.o.store; st->next;) {
			struct gp__obj_store *next = st->next;

			gp__free(st);
			st = next;
		}
		break;
	default: /* a string's text is in its node's allocation */
		break;
	}
	gp__free(v);
}

/* A key as objects compare it: its text, length and first 4 bytes big-endian (0-padded). */
struct key {
	const char *s;
	size_t len;
	uint32_t pre;
};

#define HOT  static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline, cold))

HOT struct key key_of(const char *s)
{
	size_t len = strlen(s);

	return (struct key){ s, len, gp__key_pre(s, len) };
}

/* The key index of @p obj, or NULL. */
static struct gp__obj_index *obj_idx(const struct gp_value *obj)
{
	return gp__obj_ext(obj)->idx;
}

/* The slot of @p k in the index of @p obj: the member's, or the empty one where it goes. */
static size_t idx_slot(const struct gp_value *obj, const char *k, size_t klen)
{
	const struct gp__obj_index *idx = obj_idx(obj);
	size_t mask = idx->nslot - 1, j = (size_t)gp__hash_bytes(k, klen) & mask;
	const struct gp_member *m;
	uint32_t at;

	while ((at = idx->slot[j]) &&
	       ((m = &obj->u.o.m[at - 1])->klen != klen || memcmp(m->key, k, klen) != 0))
		j = (j + 1) & mask;
	return j;
}

/*
 * The position of member @p k of @p obj, or SIZE_MAX; then, while the object has
 * no index, *rank is the number of its keys below @p k (bytewise).
 */
HOT size_t obj_find(const struct gp_value *obj, const struct key *k, unsigned *rank)
{
	const struct gp_member *m = obj->u.o.m;
	uint32_t n = obj->u.o.n, i;
	unsigned below = 0, eq = 0;
	int c;

	if (n > GP_OBJ_SCAN) {
		uint32_t at = obj_idx(obj)->slot[idx_slot(obj, k->s, k->len)];

		return at ? at - 1 : SIZE_MAX;
	}
#if defined(__SSE2__)
	{
		/* the first 4 bytes as one number, 4 members at a time: most keys differ there */
		const uint32_t *pre = gp__obj_ext(obj)->pre;
		const __m128i bias = _mm_set1_epi32(INT32_MIN);
		__m128i kp = _mm_set1_epi32((int32_t)(k->pre ^ 0x80000000u));
		unsigned lt = 0, all = (1u << n) - 1;

		for (i = 0; i < n; i += 4) {
			__m128i x = _mm_xor_si128(
			    _mm_loadu_si128((const __m128i *)(const void *)(pre + i)), bias);

			lt |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(kp, x)))
			      << i;
			eq |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(kp, x)))
			      << i;
		}
		/* the bits set in lt & all (16 at most), without a library call */
		lt &= all;
		lt -= (lt >> 1) & 0x5555u;
		lt = (lt & 0x3333u) + ((lt >> 2) & 0x3333u);
		lt = (lt + (lt >> 4)) & 0x0f0fu;
		below = (lt + (lt >> 8)) & 0x1fu;
		eq &= all;
	}
#else
	for (i = 0; i < n; i++) {
		below += m[i].pre < k->pre;
		eq |= (unsigned)(m[i].pre == k->pre) << i;
	}
#endif
	/* the same first 4 bytes: shorter keys are equal, longer ones go on */
	for (; eq; eq &= eq - 1) {
		i = (uint32_t)__builtin_ctz(eq);
		if (k->len < 4 || (c = strcmp(m[i].key + 4, k->s + 4)) == 0)
			return i;
		below += c < 0;
	}
	*rank = below;
	return SIZE_MAX;
}

/* store_alloc's new chunk, for @p size bytes at its start */
COLD char *store_grow(struct gp_value *obj, size_t size)
{
	struct gp__obj_store *h = obj->u.o.store, *nh;
	size_t cap;

	if (size > UINT32_MAX - 8)
		return NULL;
	cap = h->cap < STORE_MAX ? 2 * (size_t)h->cap : STORE_MAX;
	if (cap < size)
		cap = (size + 7) & ~(size_t)7;
	nh = gp__malloc(sizeof(*nh) + cap + GP_VALUE_READ);
	if (!nh)
		return NULL;
	memset(nh->data + cap, 0, GP_VALUE_READ);
	nh->next = h;
	nh->used = (uint32_t)size;
	nh->cap = (uint32_t)cap;
	obj->u.o.store = nh;
	return nh->data;
}

/*
 * @p size bytes of the storage of @p obj (8-aligned when @p align), or NULL (out of memory).
 * They live, unmoved, as long as the object.
 */
HOT char *store_alloc(struct gp_value *obj, size_t size, bool align)
{
	struct gp__obj_store *h = obj->u.o.store;
	size_t at = align ? ((size_t)h->used + 7) & ~(size_t)7 : h->used;

	if (at <= h->cap && size <= h->cap - at) {
		h->used = (uint32_t)(at + size);
		return h->data + at;
	}
	return store_grow(obj, size);
}

/*
 * Makes sure the index of @p obj has room for @p n members (more than GP_OBJ_SCAN),
 * rebuilding it from the members when it grows.
 */
COLD int idx_reserve(struct gp_value *obj, size_t n)
{
	struct gp__obj_index *idx = obj_idx(obj);
	size_t nslot = idx ? idx->nslot : 64, i;

	if (idx && n * 2 <= idx->nslot)
		return 0;
	while (nslot < n * 2)
		nslot *= 2;
	idx = gp__calloc(1, sizeof(*idx) + nslot * sizeof(idx->slot[0]));
	if (!idx)
		return gp__error(GP_ENOMEM, "out of memory indexing an object");
	idx->nslot = nslot;
	gp__free(gp__obj_ext(obj)->idx);
	gp__obj_ext(obj)->idx = idx;
	for (i = 0; i < obj->u.o.n; i++)
		idx->slot[idx_slot(obj, obj->u.o.m[i].key, obj->u.o.m[i].klen)] = (uint32_t)(i + 1);
	return 0;
}

/* Makes room for one more member of full @p obj: past GP_OBJ_SCAN, on the heap. */
COLD int members_grow(struct gp_value *obj)
{
	size_t n = obj->u.o.n, cap = obj->u.o.cap;
	struct gp_member *m;
	int rc;

	if (n >= GP_OBJ_MAX)
		return gp__error(GP_ELIMIT, "too many members in one object");
	if (obj->mheap) {
		if ((rc = gp__grow((void **)&obj->u.o.m, &cap, n + 1, sizeof(*m))))
			return rc;
	} else {
		cap = 2 * cap;
		m = gp__malloc(cap * sizeof(*m));
		if (!m)
			return gp__error(GP_ENOMEM, "out of memory building a report");
		memcpy(m, obj->u.o.m, n * sizeof(*m));
		obj->u.o.m = m;
		obj->mheap = true;
	}
	obj->u.o.cap = (uint32_t)cap; /* <= 2 * GP_OBJ_MAX */
	return 0;
}

/*
 * Appends member @p k (its text @p ks, in the storage of @p obj) = @p v, whose key has
 * @p rank keys below it. @p v stays the caller's on failure.
 */
HOT int obj_append(struct gp_value *obj, char *ks, const struct key *k, unsigned rank,
                   struct gp_value *v)
{
	uint32_t n = obj->u.o.n;
	struct gp_member *m;
	int rc;

	if ((n >= obj->u.o.cap && (rc = members_grow(obj))) ||
	    (n >= GP_OBJ_SCAN && (!obj_idx(obj) || 2 * ((size_t)n + 1) > obj_idx(obj)->nslot) &&
	     (rc = idx_reserve(obj, (size_t)n + 1))))
		return rc;
	m = &obj->u.o.m[n];
	m->key = ks;
	m->v = v;
	m->klen = (uint32_t)k->len;
	m->pre = k->pre;
	obj->u.o.n = n + 1;
	if (n >= GP_OBJ_SCAN) {
		obj_idx(obj)->slot[idx_slot(obj, ks, k->len)] = n + 1;
	} else {
		/* position n goes in at nibble rank, the nibbles from rank on move up one */
		struct gp__obj_ext *x = gp__obj_ext(obj);
		uint64_t ord = x->order, s = 4 * (uint64_t)rank;

		x->order =
		    (ord & ((UINT64_C(1) << s) - 1)) | ((uint64_t)n << s) | ((ord >> s) << 4 << s);
		x->pre[n] = k->pre;
	}
	return 0;
}

HOT int check_obj(const struct gp_value *obj, const char *key)
{
	if (!obj || obj->type != GP_VALUE_OBJECT || !key)
		return gp__error(GP_EINVAL, "not an object");
	return 0;
}

GP_API int gp_obj_set(struct gp_value *obj, const char *key, struct gp_value *v)
{
	unsigned rank = 0;
	struct key k;
	size_t i;
	char *ks;
	int rc;

	if (!v)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	if ((rc = check_obj(obj, key))) {
		gp_value_free(v);
		return rc;
	}
	k = key_of(key);
	if ((i = obj_find(obj, &k, &rank)) != SIZE_MAX) {
		gp_value_free(obj->u.o.m[i].v);
		obj->u.o.m[i].v = v;
		return 0;
	}
	ks = k.len < UINT32_MAX ? store_alloc(obj, k.len + 1, false) : NULL;
	if (!ks) {
		gp_value_free(v);
		return gp__error(GP_ENOMEM, "out of memory building a report");
	}
	memcpy(ks, key, k.len + 1);
	/* on failure ks stays in the storage, unused, until the object is freed */
	if ((rc = obj_append(obj, ks, &k, rank, v)))
		gp_value_free(v);
	return rc;
}

/* set_scalar's replacing of member @p i */
COLD int replace_scalar(struct gp_value *obj, size_t i, const struct gp_value *tv, const char *s,
                        size_t slen)
{
	struct gp_value *v, *old = obj->u.o.m[i].v;
	bool str = tv->type == GP_VALUE_STRING;
	char *p;

	if (old->inl && (!str || (old->type == GP_VALUE_STRING && old->u.s.len >= slen))) {
		/* overwritten where it is: a string in the old one's text */
		p = old->type == GP_VALUE_STRING ? old->u.s.p : NULL;
		old->type = tv->type;
		old->u = tv->u;
		if (str) {
			memmove(p, s, slen); /* s may be the old text */
			p[slen] = '\0';
			old->u.s.p = p;
			old->u.s.len = slen;
		}
		return 0;
	}
	v = str ? gp_value_strn(s, slen) : vnew(tv->type);
	if (!v)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	if (!str)
		v->u = tv->u;
	gp_value_free(old);
	obj->u.o.m[i].v = v;
	return 0;
}

/* set_scalar's new member @p k with a long string: a node of its own */
COLD int add_long_str(struct gp_value *obj, const struct key *k, unsigned rank, const char *s,
                      size_t slen)
{
	struct gp_value *v = gp_value_strn(s, slen);
	char *p;
	int rc;

	if (!v)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	if (!(p = store_alloc(obj, k->len + 1, false))) {
		gp_value_free(v);
		return gp__error(GP_ENOMEM, "out of memory building a report");
	}
	memcpy(p, k->s, k->len + 1);
	if ((rc = obj_append(obj, p, k, rank, v)))
		gp_value_free(v);
	return rc;
}

/*
 * Sets @p key of @p obj to the scalar @p tv (a string's text: @p s, @p slen bytes), made
 * in the object's storage when the key is new.
 */
HOT int set_scalar(struct gp_value *obj, const char *key, const struct gp_value *tv, const char *s,
                   size_t slen)
{
	bool str = tv->type == GP_VALUE_STRING;
	unsigned rank = 0;
	struct gp_value *v;
	struct key k;
	size_t i;
	char *p;
	int rc;

	if ((rc = check_obj(obj, key)))
		return rc;
	k = key_of(key);
	if ((i = obj_find(obj, &k, &rank)) != SIZE_MAX)
		return replace_scalar(obj, i, tv, s, slen);
	if (k.len >= UINT32_MAX)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	if (str && slen > INLINE_STR)
		return add_long_str(obj, &k, rank, s, slen);
	/* the node, its key, then its text */
	p = store_alloc(obj, sizeof(*v) + k.len + 1 + (str ? slen + 1 : 0), true);
	if (!p)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	v = (struct gp_value *)(void *)p;
	*v = (struct gp_value){ .type = tv->type, .inl = true, .u = tv->u };
	p += sizeof(*v);
	memcpy(p, key, k.len + 1);
	if (str) {
		v->u.s.p = p + k.len + 1;
		v->u.s.len = slen;
		memcpy(v->u.s.p, s, slen);
		v->u.s.p[slen] = '\0';
	}
	/* on failure the node stays in the storage, unused, until the object is freed */
	return obj_append(obj, p, &k, rank, v);
}

GP_API int gp_obj_set_int(struct gp_value *obj, const char *key, int64_t i)
{
	struct gp_value tv = { .type = GP_VALUE_INT, .u.i = i };

	return set_scalar(obj, key, &tv, NULL, 0);
}

GP_API int gp_obj_set_double(struct gp_value *obj, const char *key, double d)
{
	struct gp_value tv = { .type = GP_VALUE_DOUBLE, .u.d = d };

	return set_scalar(obj, key, &tv, NULL, 0);
}

GP_API int gp_obj_set_str(struct gp_value *obj, const char *key, const char *s)
{
	struct gp_value tv = { .type = s ? GP_VALUE_STRING : GP_VALUE_NULL };

	return set_scalar(obj, key, &tv, s, s ? strlen(s) : 0);
}

GP_API int gp_obj_set_bool(struct gp_value *obj, const char *key, bool b)
{
	struct gp_value tv = { .type = GP_VALUE_BOOL, .u.b = b };

	return set_scalar(obj, key, &tv, NULL, 0);
}

GP_API int gp_obj_set_null(struct gp_value *obj, const char *key)
{
	struct gp_value tv = { .type = GP_VALUE_NULL };

	return set_scalar(obj, key, &tv, NULL, 0);
}

/* Sets @p key of @p obj to a copy of scalar @p v (in the object's storage when new). */
static int set_scalar_copy(struct gp_value *obj, const char *key, const struct gp_value *v)
{
	return set_scalar(obj, key, v, v->type == GP_VALUE_STRING ? v->u.s.p : NULL,
	                  v->type == GP_VALUE_STRING ? v->u.s.len : 0);
}

static bool is_scalar(const struct gp_value *v)
{
	return v->type != GP_VALUE_ARRAY && v->type != GP_VALUE_OBJECT;
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
			const struct gp_member *m = &v->u.o.m[i];

			if (is_scalar(m->v) ? set_scalar_copy(c, m->key, m->v)
			                    : gp_obj_set(c, m->key, gp_value_clone(m->v))) {
				gp_value_free(c);
				return NULL;
			}
		}
		return c;
	}
	return NULL;
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
	if (arr->u.a.n >= arr->u.a.cap &&
	    (rc = gp__grow((void **)&arr->u.a.items, &arr->u.a.cap, arr->u.a.n + 1,
	                   sizeof(*arr->u.a.items)))) {
		gp_value_free(item);
		return rc;
	}
	arr->u.a.items[arr->u.a.n++] = item;
	return 0;
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
	unsigned rank;
	struct key k;
	size_t i;

	if (!obj || obj->type != GP_VALUE_OBJECT || !key)
		return NULL;
	k = key_of(key);
	i = obj_find(obj, &k, &rank);
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
		struct gp_value *v = src->u.o.m[i].v;
		int r;

		/* a scalar in the storage of src is copied (into that of dst when new); any other
		 * value moves, gp_obj_set owning it from here, even when it fails */
		if (v->inl) {
			r = set_scalar_copy(dst, src->u.o.m[i].key, v);
		} else {
			r = gp_obj_set(dst, src->u.o.m[i].key, v);
			src->u.o.m[i].v = NULL;
		}
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
