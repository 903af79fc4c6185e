/* SPDX-License-Identifier: MIT */
/*
 * steps.c - PROVISIONAL placeholder until the analysis lands.
 */
#include "analyze-int.h"

int gp__an_steps(const struct gp__actx *c, struct gp_value *r)
{
	(void)c;
	(void)r;
	return 0;
}
