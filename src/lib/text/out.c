/* SPDX-License-Identifier: MIT */
/*
 * out.c - text being built (text.h, struct gp__out): the formatters of
 * analyze, bench and compare append to one buffer and look at the status
 * once, at the end; the first error sticks and later writes do nothing.
 */
#include <stdarg.h>

#include "text/text.h"
#include "util/error.h"

void gp__out_addf(struct gp__out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->rc)
		return;
	va_start(ap, fmt);
	o->rc = gp__buf_vaddf(&o->b, fmt, ap);
	va_end(ap);
}

void gp__out_keep(struct gp__out *o, int rc)
{
	if (!o->rc)
		o->rc = rc;
}

int gp__out_detach(struct gp__out *o, char **text, size_t *len)
{
	if (o->rc) {
		int rc = o->rc;

		gp__buf_release(&o->b);
		return gp__error(rc, "out of memory");
	}
	*text = gp__buf_detach(&o->b, len);
	return *text ? 0 : gp__error(GP_ENOMEM, "out of memory");
}
