/* SPDX-License-Identifier: MIT */
/*
 * buf.c - growable NUL-terminated byte buffer; see buf.h for the invariants.
 */
#include "buf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

char gp__buf_empty[1];

void gp__buf_init(struct gp_buf *b, size_t max)
{
	b->buf = gp__buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->max = max;
}

void gp__buf_release(struct gp_buf *b)
{
	if (b->alloc)
		gp__free(b->buf);
	gp__buf_init(b, b->max);
}

void gp__buf_reset(struct gp_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
}

int gp__buf_grow(struct gp_buf *b, size_t extra)
{
	size_t need, nalloc;
	char *nb;

	if (extra > SIZE_MAX - b->len - 1)
		return gp__error(GP_ELIMIT, "buffer size overflow");
	need = b->len + extra + 1;
	if (b->max && need - 1 > b->max)
		return gp__error(GP_ELIMIT, "buffer would exceed its cap of %zu bytes", b->max);
	if (need <= b->alloc)
		return 0;
	nalloc = b->alloc ? b->alloc : 64;
	while (nalloc < need)
		nalloc = nalloc > SIZE_MAX / 2 ? need : nalloc * 2;
	nb = b->alloc ? gp__reallocarray(b->buf, nalloc, 1) : gp__malloc(nalloc);
	if (!nb)
		return gp__error(GP_ENOMEM, "out of memory growing a buffer to %zu bytes", nalloc);
	if (!b->alloc)
		nb[0] = '\0';
	b->buf = nb;
	b->alloc = nalloc;
	return 0;
}

int gp__buf_add(struct gp_buf *b, const void *p, size_t n)
{
	int rc = gp__buf_grow(b, n);

	if (rc)
		return rc;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return 0;
}

int gp__buf_addstr(struct gp_buf *b, const char *s)
{
	return gp__buf_add(b, s, strlen(s));
}

int gp__buf_addch(struct gp_buf *b, char c)
{
	return gp__buf_add(b, &c, 1);
}

int gp__buf_vaddf(struct gp_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, rc;

	va_copy(cp, ap);
	n = vsnprintf(b->buf + b->len, b->alloc ? b->alloc - b->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return gp__error(GP_EINVAL, "bad format string");
	if (b->alloc && (size_t)n < b->alloc - b->len) {
		if (b->max && b->len + (size_t)n > b->max) {
			b->buf[b->len] = '\0';
			return gp__error(GP_ELIMIT, "buffer would exceed its cap");
		}
		b->len += (size_t)n;
		return 0;
	}
	rc = gp__buf_grow(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int gp__buf_addf(struct gp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = gp__buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *gp__buf_detach(struct gp_buf *b, size_t *len)
{
	char *s;

	if (len)
		*len = b->len;
	if (!b->alloc) {
		s = gp__malloc(1);
		if (s)
			s[0] = '\0';
	} else {
		s = b->buf;
	}
	gp__buf_init(b, b->max);
	return s;
}
