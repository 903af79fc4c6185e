/* SPDX-License-Identifier: MIT */
/*
 * buf.h - a growable byte buffer (git strbuf, curl dynbuf).
 *
 * Invariants: buf is never NULL (GP_BUF_INIT points it at a static ""), always
 * NUL-terminated, len < alloc when alloc > 0. A non-zero max caps the length:
 * appends past it fail with GP_ELIMIT and leave the buffer unchanged.
 */
#ifndef GP_UTIL_BUF_H
#define GP_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

struct gp_buf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t max; /* 0: no cap */
};

extern char gp__buf_empty[];
#define GP_BUF_INIT                                                                                \
	{                                                                                          \
		gp__buf_empty, 0, 0, 0                                                             \
	}

void gp__buf_init(struct gp_buf *b, size_t max);
/** Frees the memory and re-initialises (keeps max). */
void gp__buf_release(struct gp_buf *b);
/** Empties without freeing. */
void gp__buf_reset(struct gp_buf *b);
int gp__buf_grow(struct gp_buf *b, size_t extra);
int gp__buf_add(struct gp_buf *b, const void *p, size_t n);
int gp__buf_addstr(struct gp_buf *b, const char *s);
int gp__buf_addch(struct gp_buf *b, char c);
int gp__buf_addf(struct gp_buf *b, const char *fmt, ...) GP_PRINTF(2, 3);
int gp__buf_vaddf(struct gp_buf *b, const char *fmt, va_list ap) GP_PRINTF(2, 0);
/** Hands the string over to the caller (free with gp_free) and re-initialises @p b. */
char *gp__buf_detach(struct gp_buf *b, size_t *len);

#endif
