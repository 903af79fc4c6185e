/* SPDX-License-Identifier: MIT */
/*
 * roofline.c - the "roofline" section of a rank: the per-op roofline (issue 23).
 *
 * Placeholder of the lead's scaffold: the helper who owns this file
 * replaces it with the analysis (docs/analyses).
 */
#include "analyze-int.h"

int gp__an_roofline(const struct gp__actx *c, struct gp_value *r)
{
	(void)c;
	(void)r;
	return 0;
}
