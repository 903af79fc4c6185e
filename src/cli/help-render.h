/* SPDX-License-Identifier: MIT */
/*
 * help-render.h - the one Markdown renderer of gpuprof's command pages
 * (docs/cli/gpuprof-*.md), with two back ends: plain text for `gpuprof help
 * CMD` and roff (man(7) with tbl) for the man pages the build writes.
 *
 * It reads the Markdown the pages use and nothing more: ATX headings, paragraphs,
 * indented and fenced code, `-` and `1.` lists, definition lists (a term line, then
 * `:   ` and the definition indented by 4), pipe tables, and inline code, `**strong**`,
 * `*emphasis*`, backslash escapes and links. Depends on libc only, so the build-time
 * tool gpuprof-mkman (src/cli/tools/mkman.c) compiles it too.
 */
#ifndef GP_HELP_RENDER_H
#define GP_HELP_RENDER_H

#include <stddef.h>
#include <stdio.h>

/**
 * Writes Markdown @p md (@p len bytes) to @p out as text wrapped to @p width
 * columns (40 at least): headings in capitals, paragraphs filled, code
 * indented and kept as it is, tables aligned (cells wrapped when too wide),
 * inline markers removed, links as their text (an absolute URL is kept
 * after its text). Columns are counted in code points: the pages hold no
 * double-width characters. @return 0, or -1 when memory runs out (errno set).
 */
int gp_help_render_text(FILE *out, const char *md, size_t len, int width);

/**
 * Writes Markdown @p md to @p out as a man page in section 1 (man(7) macros,
 * tables for tbl(1)): the first heading is the title, `## Name` gives the
 * NAME line `gpuprof-CMD \- summary` that whatis(1) reads, and @p source
 * (e.g. "gpuprof 0.1.0") the footer. Every character outside ASCII is written
 * as a groff escape, so no preconv(1) is needed. @return 0 or -1 (ENOMEM).
 */
int gp_help_render_roff(FILE *out, const char *md, size_t len, const char *source);

#endif
