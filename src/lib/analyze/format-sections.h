/* SPDX-License-Identifier: MIT */
/*
 * format-sections.h - the text of the sections that live in files of their
 * own (format-<section>.c), called by format.c's print_rank() in report
 * order. Each reads only its section of the rank object and prints nothing
 * when the section is absent or null; numbers, cells and tables come from
 * the text layer (text/text.h).
 */
#ifndef GP_ANALYZE_FORMAT_SECTIONS_H
#define GP_ANALYZE_FORMAT_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprof/value.h"
#include "text/text.h"

/** What format.c knows of the reader: the width and the rows per table. */
struct gp__fmt_sec {
	size_t top; /* rows per table, 0: all */
	int width;  /* columns */
	bool wide;  /* names whole (GP_ANALYZE_FORMAT_WIDE) */
};

/* format-critpath.c: "Critical path" (per step: length, bound-by shares, top items) */
void gp__format_critpath(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs);
/* format-modules.c: "Modules" (the tree and the per-class table) */
void gp__format_modules(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs);
/* format-memory.c: the memory section's lifetimes (steps, live at the peak, never freed, leak) */
void gp__format_memory(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs);
/* format-roofline.c: "Roofline" (the device's roofs, MFU, the top ops by headroom) */
void gp__format_roofline(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs);

#endif
