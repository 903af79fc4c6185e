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

#endif
