/* SPDX-License-Identifier: MIT */
/*
 * value.h - a small JSON document model (gp_value) for reports.
 *
 * Analyses build their results as a tree of gp_value; the report JSON is that tree
 * written with sorted keys and a fixed number format, and later commands (compare,
 * aggregate, report) read report JSON back into the same tree. A double that is
 * NaN or infinite means "unknown" and is written as null.
 *
 * Ownership: a child added to an array or object belongs to its parent; freeing
 * the root frees everything. Strings are copied. Not thread-safe per tree.
 */
#ifndef GPUPROF_VALUE_H
#define GPUPROF_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_value_type {
	GP_VALUE_NULL = 0,
	GP_VALUE_BOOL,
	GP_VALUE_INT,
	GP_VALUE_DOUBLE,
	GP_VALUE_STRING,
	GP_VALUE_ARRAY,
	GP_VALUE_OBJECT,
};

struct gp_value;

/* Constructors: return NULL when out of memory. */
GP_API struct gp_value *gp_value_null(void);
GP_API struct gp_value *gp_value_bool(bool b);
GP_API struct gp_value *gp_value_int(int64_t i);
GP_API struct gp_value *gp_value_double(double d);
/** Copies @p s (NUL-terminated); NULL gives a null value. */
GP_API struct gp_value *gp_value_str(const char *s);
/** Copies @p len bytes of @p s. */
GP_API struct gp_value *gp_value_strn(const char *s, size_t len);
GP_API struct gp_value *gp_value_array(void);
GP_API struct gp_value *gp_value_object(void);
/** Frees @p v and its children. NULL is a no-op. */
GP_API void gp_value_free(struct gp_value *v);
/** Deep copy; NULL when out of memory. */
GP_API struct gp_value *gp_value_clone(const struct gp_value *v);

/**
 * Appends @p item to array @p arr; @p arr takes ownership of @p item even on
 * failure (it is freed then). @return 0, GP_ENOMEM, or GP_EINVAL if @p item is NULL.
 */
GP_API int gp_arr_push(struct gp_value *arr, struct gp_value *item);
/**
 * Sets @p key of object @p obj to @p v, replacing an existing member; takes
 * ownership of @p v even on failure. @return 0, GP_ENOMEM or GP_EINVAL (NULL @p v).
 */
GP_API int gp_obj_set(struct gp_value *obj, const char *key, struct gp_value *v);
GP_API int gp_obj_set_int(struct gp_value *obj, const char *key, int64_t i);
/** NaN or infinity is stored as a double and written as null. */
GP_API int gp_obj_set_double(struct gp_value *obj, const char *key, double d);
/** A NULL @p s stores null. */
GP_API int gp_obj_set_str(struct gp_value *obj, const char *key, const char *s);
GP_API int gp_obj_set_bool(struct gp_value *obj, const char *key, bool b);
GP_API int gp_obj_set_null(struct gp_value *obj, const char *key);

/* Accessors. They accept NULL and wrong types, returning the "absent" answer. */
GP_API enum gp_value_type gp_value_type(const struct gp_value *v);
/** Number of items of an array or members of an object; 0 otherwise. */
GP_API size_t gp_value_len(const struct gp_value *v);
/** Item @p i of an array, or NULL. */
GP_API const struct gp_value *gp_arr_get(const struct gp_value *arr, size_t i);
/** Member @p key of an object, or NULL. */
GP_API const struct gp_value *gp_obj_get(const struct gp_value *obj, const char *key);
/** Key and value of member @p i (insertion order) of an object; NULL if out of range. */
GP_API const char *gp_obj_key_at(const struct gp_value *obj, size_t i);
GP_API const struct gp_value *gp_obj_value_at(const struct gp_value *obj, size_t i);
/** Follows a '/'-separated path of object keys and array indices ("gpu/busy_ns", "ranks/0"). */
GP_API const struct gp_value *gp_value_path(const struct gp_value *v, const char *path);
/** @return true and stores the number if @p v is an int, or a double holding an integer. */
GP_API bool gp_value_get_int(const struct gp_value *v, int64_t *out);
/** @return true and stores the number if @p v is an int or a finite double. */
GP_API bool gp_value_get_double(const struct gp_value *v, double *out);
/** @return the string (owned by @p v), or NULL if @p v is not a string. */
GP_API const char *gp_value_get_str(const struct gp_value *v);
/** @return the boolean, or @p dflt if @p v is not a boolean. */
GP_API bool gp_value_get_bool(const struct gp_value *v, bool dflt);

/** Flags for gp_value_to_json(). */
enum gp_json_flags {
	GP_JSON_PRETTY = 1 << 0, /**< two-space indentation and newlines */
};

/**
 * Serialises @p v: object keys sorted bytewise, integers exactly, doubles with
 * at most 6 decimals and no trailing zeros, NaN/infinity as null, strings
 * escaped as JSON with valid UTF-8 kept, each byte of invalid UTF-8 as U+FFFD
 * and control characters as \\u00XX: the text is always valid UTF-8 JSON.
 * @param out receives a NUL-terminated string to free with gp_free().
 * @param len receives its length (may be NULL).
 */
GP_API int gp_value_to_json(const struct gp_value *v, unsigned flags, char **out, size_t *len);

/**
 * gp_value_to_json()'s text, byte for byte, handed to @p write in order, in
 * pieces of about 64 KiB, instead of held whole: the memory it takes does not
 * grow with the text. A failure may come after some pieces were written.
 * @param write where the text goes (gpuprof.h), with @p user
 * @return 0; GP_EINVAL, GP_ELIMIT (nested too deeply), GP_ENOMEM, or GP_EIO
 *         when @p write failed (errno left as it set it).
 */
GP_API int gp_value_write_json(const struct gp_value *v, unsigned flags, gp_write_fn write,
                               void *user);

/**
 * Parses JSON text into a tree. Strict RFC 8259 (UTF-8 checked, depth capped at
 * 512). Integers that fit int64 become ints; other numbers doubles.
 * @param err_off receives the byte offset of an error (may be NULL).
 * @return 0, GP_EFORMAT, GP_ETRUNC, GP_ELIMIT or GP_ENOMEM.
 */
GP_API int gp_value_parse(const char *text, size_t len, struct gp_value **out, size_t *err_off);

#ifdef __cplusplus
}
#endif
#endif
