/* SPDX-License-Identifier: MIT */
/*
 * format-roofline.c - the text of the "roofline" section (gp_analyze_format()).
 *
 * Placeholder of the lead's scaffold: the helper who owns this file
 * replaces it with the section's tables.
 */
#include "format-sections.h"

void gp__format_roofline(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs)
{
	(void)o;
	(void)r;
	(void)fs;
}
