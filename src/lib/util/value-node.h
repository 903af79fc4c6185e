/* SPDX-License-Identifier: MIT */
/*
 * value-node.h - the layout of a gp_value tree, shared by value.c (building,
 * reading, freeing), value-shape.c (rows of one layout) and value-write.c (the
 * JSON writer), and by nothing else:
 * the rest of the library sees struct gp_value through value.h and value-int.h.
 *
 * An object keeps its members in insertion order (an array of key, value
 * pointer and key length) and owns a list of storage chunks that never move:
 * they hold its key texts and the scalar members made in place by
 * gp_obj_set_int/double/str/bool/null (a node and its string text, flagged
 * inl: freed with the object, never on their own). Values built apart (by
 * gp_value_int(), gp_value_object()...) and set with gp_obj_set() or pushed
 * on an array are allocated one by one, so that they can move between trees
 * and threads as value.h promises. An object's allocation holds its node, a
 * header (gp__obj_ext: the key order of its first 16 members, kept as they
 * are added so that the writer does not sort the usual small objects; their
 * key prefixes side by side, searched 4 at a time; the member array while
 * it has up to 16 members; past GP_OBJ_SCAN members the hash index of all
 * keys) and its first storage chunk.
 */
#ifndef GP_UTIL_VALUE_NODE_H
#define GP_UTIL_VALUE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/value.h"

/*
 * Every key and string text can be read GP_VALUE_READ bytes from its start (the bytes past
 * its NUL are zeros): the writer checks and copies a short one in one 16-byte step. Storage
 * chunks and string nodes are allocated that much longer.
 */
#define GP_VALUE_READ 16

#define GP_OBJ_SCAN  16 /* objects up to this many members are searched in order */
#define GP_OBJ_ORDER 16 /* members whose key order the object keeps (4 bits each in a uint64_t) */

struct gp_member {
	char *key; /* NUL-terminated, in the object's storage */
	struct gp_value *v;
	uint32_t klen; /* strlen(key) */
	uint32_t pre;  /* its first 4 bytes big-endian, 0-padded: most keys compare here */
};

/* An object's key index: open addressing, member position + 1 (0 empty), nslot a power of two
 * at least twice the members */
struct gp__obj_index {
	size_t nslot;
	uint32_t slot[];
};

/* A chunk of an object's storage: the newest comes first, the last is in the object's allocation */
struct gp__obj_store {
	struct gp__obj_store *next;
	uint32_t used, cap;
	char data[]; /* 8-aligned: the header is 16 bytes */
};

/* What an object's allocation holds after its node (gp__obj_ext), then its first chunk */
struct gp__obj_ext {
	/* nibble r: the position of the member with the r-th smallest key, for the first
	 * min(n, GP_OBJ_ORDER) members */
	uint64_t order;
	struct gp__obj_index *idx; /* NULL up to GP_OBJ_SCAN members */
	uint32_t
	    pre[GP_OBJ_SCAN]; /* the first members' key prefixes (gp_member.pre), side by side */
	struct gp_member m0[GP_OBJ_SCAN]; /* the member array while it is this short */
};

struct gp_value {
	enum gp_value_type type;
	bool inl;   /* lives in its parent object's storage: freed with it, never alone */
	bool mheap; /* an object whose member array is on the heap, not its m0 */
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
		/* no wider than the array's: every node has this size */
		struct {
			struct gp_member *m;
			uint32_t n, cap;
			struct gp__obj_store
			    *store; /* never NULL: the last chunk is in the node's allocation */
		} o;
	} u;
};

/* The first 4 bytes of key @p s (@p len bytes) big-endian, 0-padded: gp_member.pre. */
static inline uint32_t gp__key_pre(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t p = 0;
	size_t i;

	if (len >= 4)
		return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
	for (i = 0; i < len; i++)
		p |= (uint32_t)u[i] << (24 - 8 * i);
	return p;
}

/* The header of object @p v after its node. */
static inline struct gp__obj_ext *gp__obj_ext(const struct gp_value *v)
{
	return (struct gp__obj_ext *)(void *)((char *)(uintptr_t)v + sizeof(*v));
}

#endif
