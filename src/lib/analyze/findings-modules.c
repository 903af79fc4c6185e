/* SPDX-License-Identifier: MIT */
/*
 * findings-modules.c - the findings of the "modules" section (issue 23).
 *
 * Placeholder of the lead's scaffold: the helper who owns this file
 * replaces it with the rule.
 */
#include "findings.h"

int gp__fnd_modules(const struct gp__actx *c, const struct gp_value *r,
                    const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	(void)c;
	(void)r;
	(void)b;
	(void)fl;
	return 0;
}
