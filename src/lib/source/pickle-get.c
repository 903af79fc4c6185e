/* SPDX-License-Identifier: MIT */
/*
 * pickle-get.c - reading the graph pickle.c builds (pickle.h): types, lengths,
 * items, dict keys, numbers and string slices, each accepting GP_PK_NIL and a
 * node of another type with the "absent" answer, so callers walk a hostile
 * graph without checks of their own.
 */
#include <string.h>

#include "source/pickle.h"
#include "util/error.h"

enum gp__pk_type gp__pk_type(const struct gp__pk *pk, uint32_t id)
{
	return id < pk->nnode ? (enum gp__pk_type)pk->node[id].type : GP_PK_NONE;
}

const char *gp__pk_type_name(enum gp__pk_type t)
{
	static const char *const names[] = { "None", "bool",  "int",  "int",   "float",
		                             "str",  "bytes", "list", "tuple", "dict" };

	return (size_t)t < GP_ARRAY_SIZE(names) ? names[t] : "value";
}

uint64_t gp__pk_off(const struct gp__pk *pk, uint32_t id)
{
	return id < pk->nnode ? pk->node[id].off : 0;
}

size_t gp__pk_len(const struct gp__pk *pk, uint32_t id)
{
	if (id >= pk->nnode)
		return 0;
	switch (pk->node[id].type) {
	case GP_PK_STR:
	case GP_PK_BYTES:
	case GP_PK_LIST:
	case GP_PK_TUPLE:
	case GP_PK_DICT:
		return pk->node[id].len;
	default:
		return 0;
	}
}

uint32_t gp__pk_item(const struct gp__pk *pk, uint32_t id, size_t i)
{
	const struct gp__pk_node *nd;

	if (id >= pk->nnode)
		return GP_PK_NIL;
	nd = &pk->node[id];
	if ((nd->type != GP_PK_LIST && nd->type != GP_PK_TUPLE) || i >= nd->len)
		return GP_PK_NIL;
	return pk->kid[nd->u.c.first + i];
}

uint32_t gp__pk_key_at(const struct gp__pk *pk, uint32_t id, size_t i)
{
	if (id >= pk->nnode || pk->node[id].type != GP_PK_DICT || i >= pk->node[id].len)
		return GP_PK_NIL;
	return pk->kid[pk->node[id].u.c.first + 2 * i];
}

uint32_t gp__pk_val_at(const struct gp__pk *pk, uint32_t id, size_t i)
{
	if (id >= pk->nnode || pk->node[id].type != GP_PK_DICT || i >= pk->node[id].len)
		return GP_PK_NIL;
	return pk->kid[pk->node[id].u.c.first + 2 * i + 1];
}

uint32_t gp__pk_get(const struct gp__pk *pk, uint32_t id, const char *key)
{
	size_t i;

	if (id >= pk->nnode || pk->node[id].type != GP_PK_DICT)
		return GP_PK_NIL;
	for (i = pk->node[id].len; i-- > 0;)
		if (gp__pk_str_eq(pk, gp__pk_key_at(pk, id, i), key))
			return gp__pk_val_at(pk, id, i);
	return GP_PK_NIL;
}

bool gp__pk_int(const struct gp__pk *pk, uint32_t id, int64_t *out)
{
	if (id >= pk->nnode || (pk->node[id].type != GP_PK_INT && pk->node[id].type != GP_PK_BOOL))
		return false;
	*out = pk->node[id].u.i;
	return true;
}

bool gp__pk_double(const struct gp__pk *pk, uint32_t id, double *out)
{
	int64_t i;

	if (gp__pk_int(pk, id, &i)) {
		*out = (double)i;
		return true;
	}
	if (id >= pk->nnode ||
	    (pk->node[id].type != GP_PK_FLOAT && pk->node[id].type != GP_PK_BIGINT))
		return false;
	*out = pk->node[id].u.d;
	return true;
}

const char *gp__pk_str(const struct gp__pk *pk, uint32_t id, size_t *len)
{
	if (id >= pk->nnode || pk->node[id].type != GP_PK_STR)
		return NULL;
	*len = pk->node[id].len;
	return (const char *)pk->base + pk->node[id].u.at;
}

bool gp__pk_str_eq(const struct gp__pk *pk, uint32_t id, const char *s)
{
	size_t len;
	const char *p = gp__pk_str(pk, id, &len);

	return p && strlen(s) == len && memcmp(p, s, len) == 0;
}
