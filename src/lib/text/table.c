/* SPDX-License-Identifier: MIT */
/*
 * table.c - the one table (text.h): a list of column descriptions draws
 * the heading and every row, as aligned text for a terminal or as a
 * Markdown table, the way Linux perf's ui/stdio/hist.c draws each column
 * of util/hist.c through its struct perf_hpp_fmt.
 *
 * Text: each cell is the column's gap, then the cell padded to the
 * column's width (a left-aligned last column is not padded). Markdown:
 * "| a | b |" rows under an alignment row; cells escaped (text.h). Cutting
 * to a column's width applies in both.
 */
#include <math.h>
#include <stdio.h>

#include "gpuprof/value.h"
#include "text/text.h"

static int one_cell(struct gp_buf *b, const struct gp__table *t, size_t i, const char *s)
{
	const struct gp__col *c = &t->cols[i];
	struct gp_buf cut = GP_BUF_INIT;
	bool left = c->flags & GP__COL_LEFT;
	int rc = 0;

	if (!s)
		s = "-";
	if (c->cut) {
		if ((rc = gp__text_fit(&cut, s, c->cut,
		                       (c->flags & GP__COL_CTRL) ? GP__TEXT_CTRL_SPACE : 0)))
			goto out_cut;
		s = cut.buf;
	}
	if (t->md) {
		rc = gp__buf_addstr(b, i ? " | " : "| ");
		if (!rc)
			rc = gp__text_md_cell(b, s, c->flags & GP__COL_CODE);
	} else {
		if (c->gap)
			rc = gp__buf_addstr(b, c->gap);
		if (!rc)
			rc = gp__text_pad(b, s, left && i + 1 == t->n ? 0 : c->width, !left);
	}
out_cut:
	gp__buf_release(&cut);
	return rc;
}

static int line_start(struct gp_buf *b, const struct gp__table *t)
{
	return !t->md && t->indent ? gp__buf_addstr(b, t->indent) : 0;
}

static int line_end(struct gp_buf *b, const struct gp__table *t)
{
	return gp__buf_addstr(b, t->md ? " |\n" : "\n");
}

int gp__table_head(struct gp_buf *b, const struct gp__table *t)
{
	int rc = line_start(b, t);

	for (size_t i = 0; i < t->n && !rc; i++) {
		const struct gp__col *c = &t->cols[i];
		const char *h = t->md && c->md_head ? c->md_head : c->head;

		if (t->md)
			rc = gp__buf_addstr(b, i ? " | " : "| ");
		else if (c->gap)
			rc = gp__buf_addstr(b, c->gap);
		if (!rc)
			rc = t->md ? gp__buf_addstr(b, h)
			           : gp__text_pad(
			                 b, h,
			                 (c->flags & GP__COL_LEFT) && i + 1 == t->n ? 0 : c->width,
			                 !(c->flags & GP__COL_LEFT));
	}
	if (!rc)
		rc = line_end(b, t);
	if (!rc && t->md) {
		rc = gp__buf_addch(b, '|');
		for (size_t i = 0; i < t->n && !rc; i++)
			rc =
			    gp__buf_addstr(b, (t->cols[i].flags & GP__COL_LEFT) ? "---|" : "---:|");
		if (!rc)
			rc = gp__buf_addch(b, '\n');
	}
	return rc;
}

int gp__table_cells(struct gp_buf *b, const struct gp__table *t, const char *const *cells)
{
	int rc = line_start(b, t);

	for (size_t i = 0; i < t->n && !rc; i++)
		rc = one_cell(b, t, i, cells[i]);
	return rc ? rc : line_end(b, t);
}

int gp__table_row(struct gp_buf *b, const struct gp__table *t, const void *row)
{
	int rc = line_start(b, t);

	for (size_t i = 0; i < t->n && !rc; i++) {
		const struct gp__col *c = &t->cols[i];
		char buf[512];

		rc = one_cell(b, t, i, c->cell ? c->cell(buf, sizeof(buf), c, row) : "");
	}
	return rc ? rc : line_end(b, t);
}

/* ---- cell formatters over report rows ---- */

static double member(const struct gp__col *c, const void *row)
{
	double d;

	return gp_value_get_double(gp_obj_get(row, c->key), &d) ? d : NAN;
}

const char *gp__cell_dur(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_dur(buf, n, member(c, row), 0);
}

const char *gp__cell_bytes(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_bytes(buf, n, member(c, row), 0);
}

const char *gp__cell_pct(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_pct(buf, n, member(c, row), 0);
}

const char *gp__cell_count(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_count(buf, n, member(c, row));
}

const char *gp__cell_str(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	const char *s = gp_value_get_str(gp_obj_get(row, c->key));

	(void)buf;
	(void)n;
	return s ? s : "-";
}
