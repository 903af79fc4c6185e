/* SPDX-License-Identifier: MIT */
/*
 * value-shape.c - rows of one layout: objects whose keys a gp__shape knows
 * (value-int.h).
 *
 * A table of a report is hundreds of objects with the same dozen keys. Set
 * one by one (value.c), each member costs a key search, a copy of its key and
 * its place in the object's key order: ~230 instructions a member, which the
 * roofline's rows paid ~3,400 times a row. A shaped object is made with all
 * its members at once: its keys copied in one block, their order and prefixes
 * from the shape, every node in the object's first storage chunk (null until
 * put), room for short strings after them. It is an ordinary object after
 * that: gp_obj_set and the readers and the writer see no difference.
 */
#include <string.h>

#include "error.h"
#include "value-int.h"
#include "value-node.h"

_Static_assert(GP_SHAPE_MAX == GP_OBJ_SCAN && GP_SHAPE_MAX <= GP_OBJ_ORDER,
               "a shape fills an object's prefixes and key order");

/* bytes of a shaped object's first chunk for string texts, beyond its nodes and keys */
#define SHAPE_TEXT 256u

int gp__shape_init(struct gp__shape *s, const char *const *keys, size_t n)
{
	size_t i, j, off = 0;
	unsigned rank[GP_SHAPE_MAX];

	memset(s, 0, sizeof(*s));
	if (n > GP_SHAPE_MAX)
		return gp__error(GP_EINVAL, "a row layout of %zu keys (at most %d)", n,
		                 GP_SHAPE_MAX);
	for (i = 0; i < n; i++) {
		size_t len = strlen(keys[i]);

		if (len + 1 > sizeof(s->keys) - off)
			return gp__error(GP_EINVAL, "a row layout's keys are too long");
		memcpy(s->keys + off, keys[i], len + 1);
		s->koff[i] = (uint32_t)off;
		s->klen[i] = (uint32_t)len;
		s->pre[i] = gp__key_pre(keys[i], len);
		off += len + 1;
		rank[i] = 0;
		for (j = 0; j < i; j++) {
			int c = strcmp(keys[j], keys[i]);

			if (c == 0)
				return gp__error(GP_EINVAL, "a row layout names \"%s\" twice",
				                 keys[i]);
			rank[c < 0 ? i : j]++;
		}
	}
	/* nibble r: the member with the r-th smallest key (value-node.h) */
	for (i = 0; i < n; i++)
		s->order |= (uint64_t)i << (4 * rank[i]);
	s->n = (uint32_t)n;
	s->kbytes = (uint32_t)off;
	return 0;
}

/* the first chunk of shaped object @p o: its nodes, then its keys, then texts */
static struct gp__obj_store *first_chunk(const struct gp_value *o)
{
	return (struct gp__obj_store *)(void *)(gp__obj_ext(o) + 1);
}

static struct gp_value *node_at(const struct gp_value *o, size_t i)
{
	return (struct gp_value *)(void *)(first_chunk(o)->data + i * sizeof(struct gp_value));
}

struct gp_value *gp__obj_shaped(const struct gp__shape *s)
{
	size_t nodes = s->n * sizeof(struct gp_value), keys = ((size_t)s->kbytes + 7) & ~(size_t)7;
	size_t cap = nodes + keys + SHAPE_TEXT, i;
	struct gp_value *v = gp__malloc(sizeof(*v) + sizeof(struct gp__obj_ext) +
	                                sizeof(struct gp__obj_store) + cap + GP_VALUE_READ);
	struct gp__obj_ext *x;
	struct gp__obj_store *st;
	char *k;

	if (!v) {
		gp__error(GP_ENOMEM, "out of memory building a report");
		return NULL;
	}
	*v = (struct gp_value){ .type = GP_VALUE_OBJECT };
	x = gp__obj_ext(v);
	x->order = s->order;
	x->idx = NULL;
	memcpy(x->pre, s->pre, sizeof(s->pre)); /* as many: the assertion above */
	st = first_chunk(v);
	st->next = NULL;
	st->used = (uint32_t)(nodes + keys);
	st->cap = (uint32_t)cap;
	memset(st->data + cap, 0, GP_VALUE_READ);
	k = st->data + nodes;
	memcpy(k, s->keys, s->kbytes);
	for (i = 0; i < s->n; i++) {
		struct gp_value *nd = node_at(v, i);
		struct gp_member *m = &x->m0[i];

		*nd = (struct gp_value){ .type = GP_VALUE_NULL, .inl = true };
		m->key = k + s->koff[i];
		m->v = nd;
		m->klen = s->klen[i];
		m->pre = s->pre[i];
	}
	v->u.o.m = x->m0;
	v->u.o.n = s->n;
	v->u.o.cap = GP_OBJ_SCAN;
	v->u.o.store = st;
	return v;
}

/*
 * Member @p i's own node, to be overwritten: a string put before that took a node of
 * its own is freed and the member given its node in the chunk back.
 */
static struct gp_value *slot(struct gp_value *o, size_t i)
{
	struct gp_member *m = &o->u.o.m[i];

	if (!m->v->inl) {
		gp_value_free(m->v);
		m->v = node_at(o, i);
	}
	return m->v;
}

void gp__obj_put_int(struct gp_value *o, size_t i, int64_t x)
{
	struct gp_value *v = slot(o, i);

	v->type = GP_VALUE_INT;
	v->u.i = x;
}

void gp__obj_put_double(struct gp_value *o, size_t i, double d)
{
	struct gp_value *v = slot(o, i);

	v->type = GP_VALUE_DOUBLE;
	v->u.d = d;
}

void gp__obj_put_null(struct gp_value *o, size_t i)
{
	slot(o, i)->type = GP_VALUE_NULL;
}

int gp__obj_put_str(struct gp_value *o, size_t i, const char *s)
{
	struct gp__obj_store *st = first_chunk(o);
	struct gp_value *v;
	size_t len;

	if (!s) {
		gp__obj_put_null(o, i);
		return 0;
	}
	len = strlen(s);
	v = slot(o, i);
	/* in the first chunk while it is the newest and has room (16 bytes readable past
	 * any text there: the chunk's end is padded) */
	if (o->u.o.store == st && len < st->cap - st->used) {
		char *p = st->data + st->used;

		memcpy(p, s, len + 1);
		st->used += (uint32_t)len + 1;
		v->type = GP_VALUE_STRING;
		v->u.s.p = p;
		v->u.s.len = len;
		return 0;
	}
	v = gp_value_strn(s, len);
	if (!v)
		return gp__error(GP_ENOMEM, "out of memory building a report");
	o->u.o.m[i].v = v;
	return 0;
}
