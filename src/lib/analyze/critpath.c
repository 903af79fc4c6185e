/* SPDX-License-Identifier: MIT */
/*
 * critpath.c - the "critical_path" section of a rank: the critical path (issue 23).
 *
 * Placeholder of the lead's scaffold: the helper who owns this file
 * replaces it with the analysis (docs/analyses).
 */
#include "analyze-int.h"

int gp__an_critpath(const struct gp__actx *c, struct gp_value *r)
{
	(void)c;
	(void)r;
	return 0;
}
