/* SPDX-License-Identifier: MIT */
/*
 * value-int.h - library-internal operations on gp_value trees.
 */
#ifndef GP_UTIL_VALUE_INT_H
#define GP_UTIL_VALUE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprof/value.h"

/**
 * Moves every member of object @p src into object @p dst (replacing members of
 * the same key) and frees @p src, whatever the outcome. @return 0, GP_ENOMEM or GP_EINVAL.
 */
int gp__obj_move_members(struct gp_value *dst, struct gp_value *src);

/** Mutable member @p key of object @p obj, or NULL. */
struct gp_value *gp__obj_get_mut(struct gp_value *obj, const char *key);

/** Sets member @p key of @p o to string @p s, or to null when @p s is NULL. */
int gp__obj_set_str_or_null(struct gp_value *o, const char *key, const char *s);

/** Frees the items of array @p arr from index @p n on. */
void gp__arr_truncate(struct gp_value *arr, size_t n);

/* the most members of a shaped object */
#define GP_SHAPE_MAX 16

/**
 * The keys of a table's rows, in the order the rows' members are put
 * (value-shape.c): made once by gp__shape_init(), then only read, so threads
 * may share one.
 */
struct gp__shape {
	uint32_t n;      /* keys */
	uint32_t kbytes; /* of keys: the texts back to back, each NUL-terminated */
	uint64_t order;  /* as an object's (value-node.h) */
	uint32_t pre[GP_SHAPE_MAX], klen[GP_SHAPE_MAX], koff[GP_SHAPE_MAX];
	char keys[512];
};

/**
 * A shape of the @p n distinct keys @p keys (at most GP_SHAPE_MAX, 512 bytes
 * with their NULs). @return 0, or GP_EINVAL.
 */
int gp__shape_init(struct gp__shape *s, const char *const *keys, size_t n);

/**
 * A new object with one member per key of @p s, in its order, each null
 * until put, or NULL (GP_ENOMEM, the last error set). Its members are put by
 * position with gp__obj_put_*(); it is an ordinary object otherwise.
 */
struct gp_value *gp__obj_shaped(const struct gp__shape *s);

/* Member @p i (< the shape's keys) of shaped object @p o becomes the value given. */
void gp__obj_put_int(struct gp_value *o, size_t i, int64_t x);
void gp__obj_put_double(struct gp_value *o, size_t i, double d);
void gp__obj_put_null(struct gp_value *o, size_t i);
/** As the others; @p s NULL: null. @return 0, or GP_ENOMEM. */
int gp__obj_put_str(struct gp_value *o, size_t i, const char *s);

/**
 * @p d as the JSON text holds it: the double a reader of gp_value_to_json()'s
 * "%.6f"-trimmed number gets back (NaN and infinities unchanged). A statistic
 * stored so reads the same in the text report, which formats the tree, as on
 * the page, which formats the JSON: 0.06250000000000001 is "6.2%" in both.
 */
double gp__json_round(double d);

/**
 * The text of @p v as gp_value_to_json() writes it where @p v lies at @p depth in a
 * larger document (its closing bracket indented so, no newline after it).
 */
int gp__value_to_json_at(const struct gp_value *v, unsigned flags, int depth, char **out,
                         size_t *len);

/**
 * Writes item @p i of a spliced array (gp__value_write_json_spliced()) to @p write:
 * @return 0, or a gp_status with gp__error() (a failed @p write needs none).
 */
typedef int (*gp__json_item_fn)(void *user, size_t i, gp_write_fn write, void *wuser);

/**
 * gp_value_write_json() of @p v in which the array @p at (a node of @p v, by address;
 * NULL: none), whatever it holds, is written as @p n items that @p item writes, item i
 * being the text of gp__value_to_json_at(x, @p flags, D + 1, ...) for @p at at depth D:
 * the document holds what it would with those items in @p at, byte for byte, but they
 * need not be in memory at once. @return as gp_value_write_json(), or @p item's error.
 */
int gp__value_write_json_spliced(const struct gp_value *v, unsigned flags,
                                 const struct gp_value *at, size_t n, gp__json_item_fn item,
                                 void *item_user, gp_write_fn write, void *user);

#endif
