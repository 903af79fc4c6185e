/* SPDX-License-Identifier: MIT */
/*
 * table.c - the one table (text.h): a list of column descriptions draws
 * the heading and every row, as aligned text for a terminal or as a
 * Markdown table, the way Linux perf's ui/stdio/hist.c draws each column
 * of util/hist.c through its struct perf_hpp_fmt.
 *
 * A name column (GP__COL_NAME) is fitted by the names rule (names.c): row
 * by row, or, drawn with gp__table_rows(), over all its rows at once so that
 * names that differ stay apart.
 *
 * Text: each cell is the column's gap, then the cell padded to the
 * column's width (a left-aligned last column is not padded). Markdown:
 * "| a | b |" rows under an alignment row; cells escaped (text.h). Cutting
 * to a column's width applies in both.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/value.h"
#include "text/text.h"
#include "util/error.h"

/* GP__COL_CTRL: control characters of *@p s as spaces (into @p b) before a name is fitted */
static int ctrl_spaces(struct gp_buf *b, const struct gp__col *c, const char **s)
{
	int rc;

	if (!(c->flags & GP__COL_CTRL))
		return 0;
	gp__buf_reset(b);
	if ((rc = gp__text_fit(b, *s, 0, GP__TEXT_CTRL_SPACE)))
		return rc;
	*s = b->buf;
	return 0;
}

/* cell @p s of column @p i; @p fitted: a name column's cell already fitted (names.c) */
static int one_cell(struct gp_buf *b, const struct gp__table *t, size_t i, const char *s,
                    bool fitted)
{
	const struct gp__col *c = &t->cols[i];
	struct gp_buf cut = GP_BUF_INIT;
	bool left = c->flags & GP__COL_LEFT;
	char *name = NULL;
	int rc = 0;

	if (!s)
		s = "-";
	if ((c->flags & GP__COL_NAME) && !fitted) {
		if ((rc = ctrl_spaces(&cut, c, &s)) || (rc = gp__names_fit(&name, &s, 1, c->cut)))
			goto out_cut;
		s = name;
	} else if (c->cut && !fitted) {
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
	gp__names_free(&name, 1);
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
		rc = one_cell(b, t, i, cells[i], false);
	return rc ? rc : line_end(b, t);
}

int gp__table_row(struct gp_buf *b, const struct gp__table *t, const void *row)
{
	int rc = line_start(b, t);

	for (size_t i = 0; i < t->n && !rc; i++) {
		const struct gp__col *c = &t->cols[i];
		char buf[512];

		rc = one_cell(b, t, i, c->cell ? c->cell(buf, sizeof(buf), c, row) : "", false);
	}
	return rc ? rc : line_end(b, t);
}

int gp__table_rows(struct gp_buf *b, const struct gp__table *t, const void *const *rows, size_t n)
{
	const char **raw = NULL;
	char **fit = NULL; /* [column * n + row]: the fitted names of the name columns */
	size_t i, r;
	int rc = 0;

	if (!n)
		return 0;
	raw = gp__calloc(n, sizeof(*raw));
	fit = n <= SIZE_MAX / sizeof(*fit) ? gp__calloc(t->n, n * sizeof(*fit)) : NULL;
	if (!raw || !fit) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_fit;
	}
	for (i = 0; i < t->n && !rc; i++) {
		const struct gp__col *c = &t->cols[i];
		char **col = fit + i * n;

		if (!(c->flags & GP__COL_NAME) || !c->cell)
			continue;
		for (r = 0; r < n && !rc; r++) {
			struct gp_buf sp = GP_BUF_INIT;
			char buf[512];
			const char *s = c->cell(buf, sizeof(buf), c, rows[r]);

			if ((rc = ctrl_spaces(&sp, c, &s)) == 0 && !(col[r] = gp__strdup(s)))
				rc = gp__error(GP_ENOMEM, "out of memory");
			gp__buf_release(&sp);
		}
		for (r = 0; r < n; r++)
			raw[r] = col[r];
		if (!rc) {
			char **tmp = gp__calloc(n, sizeof(*tmp));

			if (!tmp || (rc = gp__names_fit(tmp, raw, n, c->cut)) != 0) {
				rc = rc ? rc : gp__error(GP_ENOMEM, "out of memory");
			} else {
				gp__names_free(col, n);
				memcpy(col, tmp, n * sizeof(*tmp));
			}
			gp__free(tmp);
		}
	}
	for (r = 0; r < n && !rc; r++) {
		rc = line_start(b, t);
		for (i = 0; i < t->n && !rc; i++) {
			const struct gp__col *c = &t->cols[i];
			char buf[512];

			if ((c->flags & GP__COL_NAME) && c->cell)
				rc = one_cell(b, t, i, fit[i * n + r], true);
			else
				rc = one_cell(b, t, i,
				              c->cell ? c->cell(buf, sizeof(buf), c, rows[r]) : "",
				              false);
		}
		if (!rc)
			rc = line_end(b, t);
	}
out_fit:
	for (i = 0; fit && i < t->n; i++)
		gp__names_free(fit + i * n, n);
	gp__free(fit);
	gp__free(raw);
	return rc;
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
