/* SPDX-License-Identifier: MIT */
/*
 * modules.c - the "modules" section of a rank: the module tree and per-class table (issue 23).
 *
 * Placeholder of the lead's scaffold: the helper who owns this file
 * replaces it with the analysis (docs/analyses).
 */
#include "analyze-int.h"

int gp__an_modules(const struct gp__actx *c, struct gp_value *r)
{
	(void)c;
	(void)r;
	return 0;
}
