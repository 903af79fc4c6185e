/* SPDX-License-Identifier: MIT */
/*
 * error.h - internal helpers for the thread-local last-error string, logging
 * and checked allocation.
 *
 * Every allocation in the library goes through gp__malloc/gp__calloc/
 * gp__realloc so the allocation-torture hook can fail the Nth one and so
 * n * size overflows are caught. None of them aborts.
 */
#ifndef GP_UTIL_ERROR_H
#define GP_UTIL_ERROR_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprof/gpuprof.h"

#if defined(__GNUC__)
#define GP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GP_PRINTF(a, b)
#endif

/** Formats the thread's last-error string and returns @p status (for `return gp__error(...)`). */
int gp__error(int status, const char *fmt, ...) GP_PRINTF(2, 3);

/** Prefixes the current last-error string with "PREFIX: ". */
void gp__error_prefix(const char *fmt, ...) GP_PRINTF(1, 2);

/** Logs through the callback set with gp_set_log(); a no-op without one. */
void gp__log(enum gp_log_level level, const char *fmt, ...) GP_PRINTF(2, 3);

void *gp__malloc(size_t size);
void *gp__calloc(size_t n, size_t size);
/** Reallocates to n * size bytes, checking the product; NULL on overflow or failure (p kept). */
void *gp__reallocarray(void *p, size_t n, size_t size);
char *gp__strndup(const char *s, size_t n);
char *gp__strdup(const char *s);
void gp__free(void *p);

/**
 * Allocation torture, for the unit tests (never exported): the @p n-th allocation through
 * gp__malloc and its siblings from now on fails (0 or less disables).
 */
void gp__test_fail_alloc_after(long n);

/** Grows *p (an array of *cap elements of @p size) to hold at least @p need. */
int gp__grow(void **p, size_t *cap, size_t need, size_t size);

/** Evaluates expr; on a negative result stores it in `rc` and jumps to `out`. */
#define GP_TRY(expr)                                                                               \
	do {                                                                                       \
		int gp_try_rc__ = (expr);                                                          \
		if (gp_try_rc__ < 0) {                                                             \
			rc = gp_try_rc__;                                                          \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

#define GP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
