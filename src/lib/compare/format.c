/* SPDX-License-Identifier: MIT */
/*
 * format.c - a "gpuprof.compare/1" result for people: plain-text tables for
 * a terminal, or Markdown for a pull-request comment (a summary line with
 * the verdict, a table of metrics per group, the kernel and operator diffs
 * folded in <details>, the explanations and the warnings).
 *
 * Reads only the tree and computes nothing: every number printed is one of
 * the result's. Unknown values print as "-". Names are cut to NAME_COLS
 * display columns; Markdown escapes '|' and puts names in code spans.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compare-int.h"
#include "util/fmt.h"
#include "util/buf.h"

#define NAME_COLS 72
#define TEXT_COLS 100 /* prose lines of the text format wrap here */

struct fmt {
	struct gp_buf b;
	bool md;
	uint32_t top;
	int rc;
};

static void out(struct fmt *f, const char *fmt, ...) GP_PRINTF(2, 3);
static void out(struct fmt *f, const char *fmt, ...)
{
	va_list ap;

	if (f->rc)
		return;
	va_start(ap, fmt);
	f->rc = gp_buf_vaddf(&f->b, fmt, ap);
	va_end(ap);
}

/* display columns of UTF-8 @p s (code points) */
static size_t cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * A paragraph of the text format: @p first, then the words of the text that
 * @p fmt makes, wrapped at TEXT_COLS columns (a word longer than a line
 * stands alone; a word of 3 columns or less stays with the one before it, so
 * that "7.948 ms" or "+19.1 %" is not cut), later lines indented by @p indent
 * spaces; then a newline. Markdown: the text as is (Markdown flows it).
 */
static void para(struct fmt *f, const char *first, size_t indent, const char *fmt, ...)
    GP_PRINTF(4, 5);
static void para(struct fmt *f, const char *first, size_t indent, const char *fmt, ...)
{
	struct gp_buf t = GP_BUF_INIT;
	size_t col, lead;
	const char *p;
	va_list ap;

	if (f->rc)
		return;
	va_start(ap, fmt);
	f->rc = gp_buf_vaddf(&t, fmt, ap);
	va_end(ap);
	if (f->rc)
		goto out;
	out(f, "%s", first);
	if (f->md) {
		out(f, "%s\n", t.buf);
		goto out;
	}
	col = lead = cols(first);
	for (p = t.buf; *p;) {
		size_t n = 0, w = 0;

		/* a word, and the short words after it */
		for (;;) {
			size_t k = 0, kw = 0;

			while (p[n + k] && p[n + k] != ' ') {
				kw += ((unsigned char)p[n + k] & 0xc0) != 0x80;
				k++;
			}
			if (n && kw > 3)
				break;
			n += k;
			w += kw;
			if (p[n] != ' ' || !p[n + 1] || p[n + 1] == ' ')
				break;
			n++; /* the space before the next word */
			w++;
		}
		while (n && p[n - 1] == ' ') { /* not ending on a space */
			n--;
			w--;
		}
		if (col > lead && col + 1 + w > TEXT_COLS) {
			out(f, "\n%*s", (int)indent, "");
			col = lead = indent;
		} else if (col > lead) {
			out(f, " ");
			col++;
		}
		out(f, "%.*s", (int)n, p);
		col += w;
		p += n;
		while (*p == ' ')
			p++;
	}
	out(f, "\n");
out:
	gp_buf_release(&t);
}

/* @p s left-aligned in @p w columns (right-aligned when @p right), then a space */
static void cell(struct fmt *f, const char *s, size_t w, bool right)
{
	size_t c = cols(s);

	if (right)
		out(f, "%*s%s ", (int)(w > c ? w - c : 0), "", s);
	else
		out(f, "%s%*s ", s, (int)(w > c ? w - c : 0), "");
}

static double num(const struct gp_value *v, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(v, key), &d) ? d : NAN;
}

static const char *str(const struct gp_value *v, const char *key)
{
	const char *s = gp_value_get_str(gp_obj_get(v, key));

	return s ? s : "-";
}

static const char *dur(char *buf, size_t n, double ns, bool sign)
{
	return gp__fmt_ns(buf, n, ns, sign);
}

static const char *bytes(char *buf, size_t n, double b)
{
	return gp__fmt_bytes(buf, n, b);
}

/* a metric's value in its unit */
static const char *value(char *buf, size_t n, const char *unit, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (strcmp(unit, "ns") == 0)
		return dur(buf, n, v, false);
	else if (strcmp(unit, "bytes") == 0)
		return bytes(buf, n, v);
	else if (strcmp(unit, "%") == 0)
		snprintf(buf, n, "%.2f %%", v);
	else
		snprintf(buf, n, "%.2f %s", v, unit);
	return buf;
}

static const char *pct(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.1f %%", p);
	return buf;
}

static const char *pval(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "-");
	else if (p < 0.0001)
		snprintf(buf, n, "<0.0001");
	else
		snprintf(buf, n, "%.4f", p);
	return buf;
}

static const char *ratio(char *buf, size_t n, const struct gp_value *m)
{
	double r = num(m, "ratio"), lo = num(m, "ratio_lo"), hi = num(m, "ratio_hi");

	if (!isfinite(r))
		snprintf(buf, n, "-");
	else if (isfinite(lo) && isfinite(hi))
		snprintf(buf, n, "%.3f [%.3f, %.3f]", r, lo, hi);
	else
		snprintf(buf, n, "%.3f", r);
	return buf;
}

/* a name for a table: cut to NAME_COLS columns; Markdown: a code span, '|' escaped */
static void name_cell(struct fmt *f, const char *name)
{
	struct gp_buf t = GP_BUF_INIT;
	size_t c = 0;
	const char *p;

	for (p = name; *p && !f->rc; p++) {
		unsigned char u = (unsigned char)*p;

		if ((u & 0xc0) != 0x80 && ++c > NAME_COLS) {
			f->rc = gp_buf_addstr(&t, "…");
			break;
		}
		if (u < 0x20)
			f->rc = gp_buf_addch(&t, ' ');
		else if (f->md && u == '`')
			f->rc = gp_buf_addch(&t, '\'');
		else if (f->md && u == '|')
			f->rc = gp_buf_addstr(&t, "\\|");
		else
			f->rc = gp_buf_addch(&t, (char)u);
	}
	if (f->md)
		out(f, "`%s`", t.buf);
	else
		out(f, "%s", t.buf);
	gp_buf_release(&t);
}

static const char *verdict_cell(char *buf, size_t n, const struct gp_value *m, bool md)
{
	bool reg = gp_value_get_bool(gp_obj_get(m, "regression"), false);
	const char *v = str(m, "verdict");

	if (reg)
		snprintf(buf, n, md ? "**%s (regression)**" : "%s (REGRESSION)", v);
	else if (md && (strcmp(v, "faster") == 0 || strcmp(v, "better") == 0))
		snprintf(buf, n, "**%s**", v);
	else
		snprintf(buf, n, "%s", v);
	return buf;
}

static void metrics_table(struct fmt *f, const struct gp_value *ms)
{
	static const size_t w[] = { 18, 13, 13, 9, 24, 8 };
	size_t i;

	if (!gp_value_len(ms))
		return;
	if (f->md) {
		out(f, "| metric | base | new | Δ | ratio [95%% CI] | p | n | verdict |\n"
		       "|---|---:|---:|---:|---|---:|---:|---|\n");
	} else {
		cell(f, "metric", w[0], false);
		cell(f, "base", w[1], true);
		cell(f, "new", w[2], true);
		cell(f, "delta", w[3], true);
		cell(f, "ratio [95% CI]", w[4], false);
		cell(f, "p", w[5], true);
		cell(f, "n", 7, true);
		out(f, "verdict\n");
	}
	for (i = 0; i < gp_value_len(ms); i++) {
		const struct gp_value *m = gp_arr_get(ms, i);
		const char *unit = str(m, "unit");
		char a[48], b[48], d[32], r[64], p[24], n[32], v[64];
		double nb = num(m, "n_base"), nn = num(m, "n_new");

		value(a, sizeof(a), unit, num(m, "base"));
		value(b, sizeof(b), unit, num(m, "new"));
		pct(d, sizeof(d), num(m, "delta_pct"));
		ratio(r, sizeof(r), m);
		pval(p, sizeof(p), num(m, "p"));
		if (isfinite(nb) && isfinite(nn))
			snprintf(n, sizeof(n), "%.0f/%.0f", nb, nn);
		else
			snprintf(n, sizeof(n), "-");
		verdict_cell(v, sizeof(v), m, f->md);
		if (f->md) {
			out(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", str(m, "title"), a, b,
			    d, r, p, n, v);
			continue;
		}
		cell(f, str(m, "title"), w[0], false);
		cell(f, a, w[1], true);
		cell(f, b, w[2], true);
		cell(f, d, w[3], true);
		cell(f, r, w[4], false);
		cell(f, p, w[5], true);
		cell(f, n, 7, true);
		out(f, "%s\n", v);
	}
	/* why a tested metric stayed inconclusive */
	for (i = 0; i < gp_value_len(ms); i++) {
		const struct gp_value *m = gp_arr_get(ms, i);
		const char *reason = gp_value_get_str(gp_obj_get(m, "reason"));

		if (!reason || !gp_value_get_bool(gp_obj_get(m, "samples"), false))
			continue;
		if (f->md)
			out(f, "\n_%s: %s_\n", str(m, "title"), reason);
		else
			para(f, "  ", 4, "%s: %s", str(m, "title"), reason);
	}
}

static void diff_table(struct fmt *f, const struct gp_value *t, const char *what)
{
	const struct gp_value *rows = gp_obj_get(t, "rows");
	size_t i, n = gp_value_len(rows), shown = f->top && f->top < n ? f->top : n;
	char a[32], b[32], c[32], d[32], e[32];

	if (!t)
		return;
	para(f, f->md ? "<details><summary>" : "", 2,
	     "%s: %.0f names in base, %.0f in new; total %s -> %s (%s); %.0f added (%s), %.0f "
	     "removed (%s); %.0f slower, %.0f faster per call (threshold %g %%)%s%s",
	     what, num(t, "base_names"), num(t, "new_names"),
	     dur(a, sizeof(a), num(t, "base_total_ns"), false),
	     dur(b, sizeof(b), num(t, "new_total_ns"), false),
	     dur(c, sizeof(c), num(t, "delta_total_ns"), true),
	     num(gp_obj_get(t, "added"), "names"),
	     dur(d, sizeof(d), num(gp_obj_get(t, "added"), "total_ns"), false),
	     num(gp_obj_get(t, "removed"), "names"),
	     dur(e, sizeof(e), num(gp_obj_get(t, "removed"), "total_ns"), false), num(t, "slower"),
	     num(t, "faster"), num(t, "threshold_pct"),
	     gp_value_get_bool(gp_obj_get(t, "complete"), true)
	         ? ""
	         : " (incomplete: a report was trimmed)",
	     f->md ? "</summary>\n" : "");
	if (!n) {
		out(f, f->md ? "\n</details>\n\n" : "\n");
		return;
	}
	if (f->md)
		out(f, "| status | calls | base total | new total | Δ total | per call | name |\n"
		       "|---|---:|---:|---:|---:|---:|---|\n");
	else {
		out(f, "  ");
		cell(f, "status", 8, false);
		cell(f, "calls", 15, true);
		cell(f, "base total", 12, true);
		cell(f, "new total", 12, true);
		cell(f, "delta total", 12, true);
		cell(f, "per call", 9, true);
		out(f, "name\n");
	}
	for (i = 0; i < shown; i++) {
		const struct gp_value *r = gp_arr_get(rows, i);
		char calls[48], bt[32], nt[32], dt[32], pc[32];

		snprintf(calls, sizeof(calls), "%.0f -> %.0f", num(r, "base_count"),
		         num(r, "new_count"));
		dur(bt, sizeof(bt), num(r, "base_total_ns"), false);
		dur(nt, sizeof(nt), num(r, "new_total_ns"), false);
		dur(dt, sizeof(dt), num(r, "delta_total_ns"), true);
		pct(pc, sizeof(pc), num(r, "delta_avg_pct"));
		if (f->md) {
			out(f, "| %s | %s | %s | %s | %s | %s | ", str(r, "status"), calls, bt, nt,
			    dt, pc);
			name_cell(f, str(r, "name"));
			out(f, " |\n");
			continue;
		}
		out(f, "  ");
		cell(f, str(r, "status"), 8, false);
		cell(f, calls, 15, true);
		cell(f, bt, 12, true);
		cell(f, nt, 12, true);
		cell(f, dt, 12, true);
		cell(f, pc, 9, true);
		name_cell(f, str(r, "name"));
		out(f, "\n");
	}
	if (shown < n)
		out(f, "%s%zu of %zu rows, by |delta total|; --top 0 or --json for all\n",
		    f->md ? "\n" : "  ", shown, n);
	out(f, f->md ? "\n</details>\n\n" : "\n");
}

static void list(struct fmt *f, const struct gp_value *arr, const char *title)
{
	size_t i;

	if (!gp_value_len(arr))
		return;
	out(f, f->md ? "**%s**\n\n" : "%s:\n", title);
	for (i = 0; i < gp_value_len(arr); i++) {
		const char *p = str(gp_arr_get(arr, i), "text");

		if (!f->md) {
			para(f, "  - ", 4, "%s", p);
			continue;
		}
		/* kernel names hold C++ templates: keep "<...>" from reading as HTML */
		out(f, "- ");
		for (; *p && !f->rc; p++)
			f->rc = *p == '<'   ? gp_buf_addstr(&f->b, "&lt;")
			        : *p == '>' ? gp_buf_addstr(&f->b, "&gt;")
			                    : gp_buf_addch(&f->b, *p);
		out(f, "\n");
	}
	out(f, "\n");
}

/* the path of side @p key ("base", "new") of a result, or @p key when it has none */
static const char *side_path(const struct gp_value *res, const char *key)
{
	const char *path = gp_value_get_str(gp_obj_get(gp_obj_get(res, key), "path"));

	return path ? path : key;
}

GP_API int gp_compare_format(const struct gp_value *result, enum gp_compare_format fmt,
                             uint32_t top, char **text, size_t *len)
{
	struct fmt f = { .b = GP_BUF_INIT, .md = fmt == GP_COMPARE_MARKDOWN, .top = top };
	const struct gp_value *groups = gp_obj_get(result, "groups");
	const struct gp_value *opts = gp_obj_get(result, "options");
	const struct gp_value *tags = gp_obj_get(result, "tag_changes");
	const char *verdict = str(result, "verdict");
	size_t i;

	if (!text)
		return gp__error(GP_EINVAL, "gp_compare_format: NULL argument");
	*text = NULL;
	if (len)
		*len = 0;
	if (gp_value_type(result) != GP_VALUE_OBJECT ||
	    !gp_value_get_str(gp_obj_get(result, "schema")) ||
	    strcmp(gp_value_get_str(gp_obj_get(result, "schema")), GP_COMPARE_SCHEMA) != 0)
		return gp__error(GP_EINVAL, "gp_compare_format: not a %s result",
		                 GP_COMPARE_SCHEMA);
	if (f.md)
		out(&f, "### gpuprof compare: %s\n\n**%s**\n\n", verdict, str(result, "summary"));
	else
		out(&f, "%s\n", str(result, "summary"));
	para(&f, "", 2,
	     f.md ? "%s `%s` (%s) -> %s `%s` (%s); alpha %g, threshold %g %%"
	          : "%s '%s' (%s) -> %s '%s' (%s); alpha %g, threshold %g %%",
	     "base", side_path(result, "base"), str(gp_obj_get(result, "base"), "input"), "new",
	     side_path(result, "new"), str(gp_obj_get(result, "new"), "input"), num(opts, "alpha"),
	     num(opts, "threshold_pct"));
	out(&f, "\n");
	for (i = 0; i < gp_value_len(groups); i++) {
		const struct gp_value *g = gp_arr_get(groups, i);
		const char *bs = gp_value_get_str(gp_obj_get(g, "base_series"));
		const char *ns = gp_value_get_str(gp_obj_get(g, "new_series"));
		double rb = num(g, "base_rank"), rn = num(g, "new_rank");

		if (bs)
			out(&f, f.md ? "#### series `%s`" : "== series '%s'", bs);
		else
			out(&f, f.md ? "#### %s" : "== %s", str(g, "name"));
		if (bs && ns && strcmp(bs, ns) != 0)
			out(&f, f.md ? " (new: `%s`)" : " (new: '%s')", ns);
		if (isfinite(rb) && isfinite(rn) && rb != rn)
			out(&f, " (new: rank %.0f)", rn);
		out(&f, "\n%s", f.md ? "\n" : "");
		metrics_table(&f, gp_obj_get(g, "metrics"));
		out(&f, "\n");
		diff_table(&f, gp_obj_get(g, "kernels"), "kernels");
		diff_table(&f, gp_obj_get(g, "operators"), "operators");
		list(&f, gp_obj_get(g, "explanations"), "why");
	}
	if (gp_value_len(tags)) {
		out(&f, f.md ? "**tags that differ**\n\n" : "tags that differ:\n");
		for (i = 0; i < gp_value_len(tags); i++) {
			const struct gp_value *t = gp_arr_get(tags, i);

			out(&f, f.md ? "- `%s`: %s -> %s\n" : "  - %s: %s -> %s\n", str(t, "key"),
			    str(t, "base"), str(t, "new"));
		}
		out(&f, "\n");
	}
	/* unmatched series and ranks are in the warnings */
	list(&f, gp_obj_get(result, "warnings"), "warnings");
	if (f.rc) {
		gp_buf_release(&f.b);
		return gp__error(f.rc, "out of memory");
	}
	/* one final newline */
	while (f.b.len >= 2 && f.b.buf[f.b.len - 1] == '\n' && f.b.buf[f.b.len - 2] == '\n')
		f.b.buf[--f.b.len] = '\0';
	*text = gp_buf_detach(&f.b, len);
	return *text ? 0 : gp__error(GP_ENOMEM, "out of memory");
}
