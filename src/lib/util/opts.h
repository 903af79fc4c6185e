/* SPDX-License-Identifier: MIT */
/*
 * opts.h - size-versioned options structs (libbpf's OPTS_VALID and OPTS_GET).
 *
 * Every public options struct starts with `uint32_t size`, which the caller sets
 * to sizeof the struct it was compiled with. A caller built against older headers
 * passes a smaller struct: the fields past its size are read as their defaults. A
 * caller built against newer headers passes a larger one: accepted when every byte
 * this library does not know is zero (the new fields left at their defaults), and
 * refused otherwise, since it asks for something this library cannot do. So fields
 * are only ever added at the end, and adding one breaks no caller.
 *
 *   GP_TRY(GP__OPTS_VALID(opts, struct gp_stats_opts));
 *   resamples = GP__OPTS_GET(opts, resamples, 0);
 *
 * A NULL opts is valid and every field reads as its default.
 */
#ifndef GP_UTIL_OPTS_H
#define GP_UTIL_OPTS_H

#include <stddef.h>
#include <stdint.h>

/**
 * 0 when @p opts (of @p user_size bytes, as its size field says) may be read as a
 * struct of @p lib_size bytes; else GP_EINVAL with gp_last_error() naming @p type:
 * a size below the size field itself, or non-zero bytes past @p lib_size.
 */
int gp__opts_check(const void *opts, size_t user_size, size_t lib_size, const char *type);

/** 0 or GP_EINVAL (see gp__opts_check()); NULL @p opts is valid. */
#define GP__OPTS_VALID(opts, type)                                                                 \
	((opts) ? gp__opts_check((opts), (opts)->size, sizeof(type), #type) : 0)

/** Whether @p opts (may be NULL) is large enough to hold @p field. */
#define GP__OPTS_HAS(opts, field)                                                                  \
	((opts) && (opts)->size >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))

/** @p opts->field, or @p fallback when @p opts is NULL or ends before the field. */
#define GP__OPTS_GET(opts, field, fallback) (GP__OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/**
 * Copies what @p opts (may be NULL) has of the struct into *@p dst, which the
 * caller initialised with the defaults of every field; then sets dst->size to the
 * full size. For code that keeps a whole copy; check GP__OPTS_VALID first.
 */
#define GP__OPTS_COPY(dst, opts)                                                                   \
	do {                                                                                       \
		if (opts)                                                                          \
			memcpy((dst), (opts),                                                      \
			       (opts)->size < sizeof(*(dst)) ? (opts)->size : sizeof(*(dst)));     \
		(dst)->size = sizeof(*(dst));                                                      \
	} while (0)

#endif
