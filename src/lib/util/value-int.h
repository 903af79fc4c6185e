/* SPDX-License-Identifier: MIT */
/*
 * value-int.h - library-internal operations on gp_value trees.
 */
#ifndef GP_UTIL_VALUE_INT_H
#define GP_UTIL_VALUE_INT_H

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
