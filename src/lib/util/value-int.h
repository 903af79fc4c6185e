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

#endif
