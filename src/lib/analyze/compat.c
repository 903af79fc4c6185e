/* SPDX-License-Identifier: MIT */
/*
 * compat.c - Holistic Trace Analysis compatibility. PROVISIONAL.
 */
#include "ctx.h"

#include "util/error.h"

int gp__compat_hta_prepare(struct gp__actx *c)
{
	(void)c;
	return 0;
}
