/* SPDX-License-Identifier: MIT */
/*
 * format.c - a "gpuprof.compare/1" result for people: plain-text tables for
 * a terminal, or Markdown for a pull-request comment (a summary line with
 * the verdict, a table of metrics per group, the kernel and operator diffs
 * folded in <details>, the explanations and the warnings).
 *
 * Reads only the tree and computes nothing: every number printed is one of
 * the result's. Unknown values print as "-". Names are fitted to NAME_COLS
 * display columns by the text layer's names rule (demangled, shortened, kept
 * apart); Markdown escapes '|' and puts names in code spans. The
 * numbers, the wrapping and the tables are the text layer's (text/text.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-int.h"
#include "text/text.h"
#include "util/buf.h"

#define NAME_COLS 72
#define TEXT_COLS 100 /* prose lines of the text format wrap here */

struct fmt {
	struct gp__out o;
	bool md;
	uint32_t top;
};

#define out(f, ...) gp__out_addf(&(f)->o, __VA_ARGS__)

/*
 * A paragraph of the text format: @p first, then the words of the text that
 * @p fmt makes, wrapped at TEXT_COLS columns (a word longer than a line
 * stands alone; a word of 3 columns or less stays with the one before it, so
 * that "7.948 ms" or "+19.1%" is not cut), later lines indented by @p indent
 * spaces; then a newline. Markdown: the text as is (Markdown flows it).
 */
static void para(struct fmt *f, const char *first, size_t indent, const char *fmt, ...)
    GP_PRINTF(4, 5);
static void para(struct fmt *f, const char *first, size_t indent, const char *fmt, ...)
{
	struct gp_buf t = GP_BUF_INIT;
	va_list ap;

	if (f->o.rc)
		return;
	va_start(ap, fmt);
	f->o.rc = gp__buf_vaddf(&t, fmt, ap);
	va_end(ap);
	if (f->o.rc)
		goto out;
	if (f->md)
		out(f, "%s%s\n", first, t.buf);
	else
		gp__out_keep(
		    &f->o, gp__text_wrap(&f->o.b, first, t.buf, TEXT_COLS, indent, GP__WRAP_GLUE));
out:
	gp__buf_release(&t);
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
	return gp__fmt_dur(buf, n, ns, sign ? GP__FMT_SIGN : 0);
}

/* a metric's value in its unit */
static const char *value(char *buf, size_t n, const char *unit, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (strcmp(unit, "ns") == 0)
		return dur(buf, n, v, false);
	else if (strcmp(unit, "bytes") == 0)
		return gp__fmt_bytes(buf, n, v, 0);
	else if (strcmp(unit, "%") == 0)
		return gp__fmt_pct(buf, n, v, 0);
	else { /* a rate: "runs/s" */
		char r[32];

		snprintf(buf, n, "%s %s", gp__fmt_rate(r, sizeof(r), v), unit);
	}
	return buf;
}

/* a metric's value in the unit of @p ref: the new value beside the base's, one unit per row */
static const char *value_like(char *buf, size_t n, const char *unit, double v, double ref)
{
	if (isfinite(v) && strcmp(unit, "ns") == 0)
		return gp__fmt_dur_like(buf, n, v, ref, 0);
	if (isfinite(v) && strcmp(unit, "bytes") == 0)
		return gp__fmt_bytes_like(buf, n, v, ref, 0);
	return value(buf, n, unit, v);
}

static const char *pct(char *buf, size_t n, double p)
{
	return gp__fmt_pct(buf, n, p, GP__FMT_SIGN);
}

/*
 * A metric's change: relative ("+4.1 %"), or in percentage points ("-12.7 pp")
 * for a metric that is itself a percentage, whose relative change a reader
 * would take for points (16.4 % -> 3.7 % is -12.7 pp, not -77.6 %).
 */
static const char *delta(char *buf, size_t n, const struct gp_value *m)
{
	if (strcmp(str(m, "unit"), "%") != 0)
		return pct(buf, n, num(m, "delta_pct"));
	if (!isfinite(num(m, "delta")))
		return gp__fmt_num(buf, n, NAN, 1, "");
	snprintf(buf, n, "%+.1f pp", num(m, "delta"));
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

/* the metrics of a group: text and Markdown from one column list */
static const struct gp__col metric_cols[] = {
	{ .head = "metric", .width = 18, .flags = GP__COL_LEFT },
	{ .head = "base", .width = 13, .gap = " " },
	{ .head = "new", .width = 13, .gap = " " },
	{ .head = "delta", .md_head = "Δ", .width = 9, .gap = " " },
	{ .head = "ratio [95% CI]", .width = 24, .gap = " ", .flags = GP__COL_LEFT },
	{ .head = "p", .width = 8, .gap = " " },
	{ .head = "n", .width = 7, .gap = " " },
	{ .head = "verdict", .gap = " ", .flags = GP__COL_LEFT },
};

/* the kernel or operator diff: the name is cut and, in Markdown, a code span */
static const struct gp__col diff_cols[] = {
	{ .head = "status", .width = 8, .flags = GP__COL_LEFT },
	{ .head = "calls", .width = 15, .gap = " " },
	{ .head = "base total", .width = 12, .gap = " " },
	{ .head = "new total", .width = 12, .gap = " " },
	{ .head = "delta total", .md_head = "Δ total", .width = 12, .gap = " " },
	{ .head = "per call", .width = 9, .gap = " " },
	{ .head = "p", .width = 7, .gap = " " },
	{ .head = "name",
	  .gap = " ",
	  .cut = NAME_COLS + 1,
	  .flags = GP__COL_LEFT | GP__COL_CODE | GP__COL_CTRL },
};

static void metrics_table(struct fmt *f, const struct gp_value *ms)
{
	struct gp__col cols[GP_ARRAY_SIZE(metric_cols)];
	const struct gp__table t = { cols, 8, NULL, f->md };
	size_t i;

	if (!gp_value_len(ms))
		return;
	/* the metric column as wide as its longest title (an aggregate's "busbw reduce_scatter (pg
	 * 1)") */
	memcpy(cols, metric_cols, sizeof(cols));
	for (i = 0; i < gp_value_len(ms); i++) {
		size_t w = gp__text_width(str(gp_arr_get(ms, i), "title"));

		if (w > cols[0].width)
			cols[0].width = w;
	}
	gp__out_keep(&f->o, gp__table_head(&f->o.b, &t));
	for (i = 0; i < gp_value_len(ms); i++) {
		const struct gp_value *m = gp_arr_get(ms, i);
		const char *unit = str(m, "unit");
		char a[48], b[48], d[32], r[64], p[24], n[32], v[64];
		double nb = num(m, "n_base"), nn = num(m, "n_new");
		const char *cells[] = { str(m, "title"), a, b, d, r, p, n, v };

		value(a, sizeof(a), unit, num(m, "base"));
		value_like(b, sizeof(b), unit, num(m, "new"), num(m, "base"));
		delta(d, sizeof(d), m);
		ratio(r, sizeof(r), m);
		gp__fmt_pvalue(p, sizeof(p), num(m, "p"));
		if (isfinite(nb) && isfinite(nn))
			snprintf(n, sizeof(n), "%.0f/%.0f", nb, nn);
		else
			snprintf(n, sizeof(n), "-");
		verdict_cell(v, sizeof(v), m, f->md);
		gp__out_keep(&f->o, gp__table_cells(&f->o.b, &t, cells));
	}
	/*
	 * Which test decided the metrics with few samples (one line for those of the
	 * same sizes), then why a tested metric stayed inconclusive.
	 */
	{
		struct gp_buf names = GP_BUF_INIT;
		double wb = NAN, wn = NAN;
		size_t k = 0, shown = 0;

		for (i = 0; i < gp_value_len(ms); i++) {
			const struct gp_value *m = gp_arr_get(ms, i);
			const char *test = gp_value_get_str(gp_obj_get(m, "test"));

			if (!test || strcmp(test, "welch_t_log") != 0)
				continue;
			if (!k++) {
				wb = num(m, "n_base");
				wn = num(m, "n_new");
			} else if (num(m, "n_base") != wb || num(m, "n_new") != wn)
				continue;
			shown++;
		}
		for (i = 0, k = 0; i < gp_value_len(ms) && !f->o.rc; i++) {
			const struct gp_value *m = gp_arr_get(ms, i);
			const char *test = gp_value_get_str(gp_obj_get(m, "test"));

			if (!test || strcmp(test, "welch_t_log") != 0 || num(m, "n_base") != wb ||
			    num(m, "n_new") != wn)
				continue;
			f->o.rc =
			    gp__buf_addf(&names, "%s%s", k ? k + 1 == shown ? " and " : ", " : "",
			                 str(m, "title"));
			k++;
		}
		if (shown)
			para(f, f->md ? "\n_" : "  ", 4,
			     "%s: %.0f and %.0f values, too few for the rank test: Welch's t-test "
			     "on "
			     "the log values decides, with its 95%% interval of the ratio%s",
			     names.buf, wb, wn, f->md ? "_" : "");
		gp__buf_release(&names);
	}
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

static void diff_table(struct fmt *f, const struct gp_value *t, const char *what, double alpha)
{
	const struct gp_value *rows = gp_obj_get(t, "rows");
	size_t i, n = gp_value_len(rows), shown = f->top && f->top < n ? f->top : n;
	const struct gp__table tab = { diff_cols, 8, "  ", f->md };
	char a[32], b[32], c[32], d[32], e[32], th[32], **names;

	if (!t)
		return;
	para(f, f->md ? "<details><summary>" : "", 2,
	     "%s: %.0f names in base, %.0f in new; total %s -> %s (%s); %.0f added (%s), %.0f "
	     "removed (%s); %.0f slower, %.0f faster per call (threshold %s), of which %.0f "
	     "and %.0f are significant over their calls (p < %g)%s%s",
	     what, num(t, "base_names"), num(t, "new_names"),
	     dur(a, sizeof(a), num(t, "base_total_ns"), false),
	     dur(b, sizeof(b), num(t, "new_total_ns"), false),
	     dur(c, sizeof(c), num(t, "delta_total_ns"), true),
	     num(gp_obj_get(t, "added"), "names"),
	     dur(d, sizeof(d), num(gp_obj_get(t, "added"), "total_ns"), false),
	     num(gp_obj_get(t, "removed"), "names"),
	     dur(e, sizeof(e), num(gp_obj_get(t, "removed"), "total_ns"), false), num(t, "slower"),
	     num(t, "faster"), gp__fmt_pct(th, sizeof(th), num(t, "threshold_pct"), GP__FMT_GIVEN),
	     num(t, "slower_significant"), num(t, "faster_significant"), alpha,
	     gp_value_get_bool(gp_obj_get(t, "complete"), true)
	         ? ""
	         : " (incomplete: a report was trimmed)",
	     f->md ? "</summary>\n" : "");
	if (!n) {
		out(f, f->md ? "\n</details>\n\n" : "\n");
		return;
	}
	gp__out_keep(&f->o, gp__table_head(&f->o.b, &tab));
	/* names fitted over all the rows shown, so that names that differ read apart (text.h) */
	if (!(names = gp__calloc(shown, sizeof(*names))))
		gp__out_keep(&f->o, GP_ENOMEM);
	else
		gp__out_keep(&f->o, gp__names_fit_rows(names, rows, shown, "name", NAME_COLS + 1,
		                                       GP__TEXT_CTRL_SPACE));
	for (i = 0; i < shown; i++) {
		const struct gp_value *r = gp_arr_get(rows, i);
		char calls[48], bt[32], nt[32], dt[32], pc[32], pv[24];
		const char *cells[] = { str(r, "status"),
			                calls,
			                bt,
			                nt,
			                dt,
			                pc,
			                pv,
			                names && names[i] ? names[i] : str(r, "name") };

		snprintf(calls, sizeof(calls), "%.0f -> %.0f", num(r, "base_count"),
		         num(r, "new_count"));
		dur(bt, sizeof(bt), num(r, "base_total_ns"), false);
		dur(nt, sizeof(nt), num(r, "new_total_ns"), false);
		dur(dt, sizeof(dt), num(r, "delta_total_ns"), true);
		pct(pc, sizeof(pc), num(r, "delta_avg_pct"));
		gp__fmt_pvalue(pv, sizeof(pv), num(r, "p"));
		gp__out_keep(&f->o, gp__table_cells(&f->o.b, &tab, cells));
	}
	gp__names_free(names, shown);
	gp__free(names);
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
		for (; *p && !f->o.rc; p++)
			f->o.rc = *p == '<'   ? gp__buf_addstr(&f->o.b, "&lt;")
			          : *p == '>' ? gp__buf_addstr(&f->o.b, "&gt;")
			                      : gp__buf_addch(&f->o.b, *p);
		out(f, "\n");
	}
	out(f, "\n");
}

/* the metric named @p name of group @p g, NULL when it has none */
static const struct gp_value *metric_of(const struct gp_value *g, const char *name)
{
	const struct gp_value *ms = gp_obj_get(g, "metrics");
	size_t i;

	for (i = 0; i < gp_value_len(ms); i++)
		if (strcmp(str(gp_arr_get(ms, i), "metric"), name) == 0)
			return gp_arr_get(ms, i);
	return NULL;
}

/* the per-rank groups of an aggregate comparison: one table, a row per rank */
static const struct gp__col rank_cols[] = {
	{ .head = "rank", .width = 6 },
	{ .head = "step mean", .width = 12, .gap = " " },
	{ .head = "new", .width = 12, .gap = " " },
	{ .head = "delta", .md_head = "Δ", .width = 8, .gap = " " },
	{ .head = "p95 delta", .md_head = "p95 Δ", .width = 9, .gap = " " },
	{ .head = "wait delta", .md_head = "wait Δ", .width = 10, .gap = " " },
	{ .head = "exposed", .md_head = "exposed comm Δ", .width = 8, .gap = " " },
	{ .head = "compute", .md_head = "compute Δ", .width = 8, .gap = " " },
	{ .head = "idle", .md_head = "GPU idle Δ", .width = 8, .gap = " " },
	{ .head = "memory", .md_head = "peak memory Δ", .width = 8, .gap = " " },
};
static const char *const rank_metrics[] = { "step_p95", "wait",         "exposed_comm",
	                                    "compute",  "gpu_idle_pct", "peak_memory" };

/* |delta_pct| of the step mean of rank group @p g, -1 when unknown */
static double rank_change(const struct gp_value *g)
{
	double d = num(metric_of(g, "step_mean"), "delta_pct");

	return isfinite(d) ? fabs(d) : -1;
}

static int by_change(const void *a, const void *b)
{
	const struct gp_value *x = *(const struct gp_value *const *)a;
	const struct gp_value *y = *(const struct gp_value *const *)b;
	double dx = rank_change(x), dy = rank_change(y);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return num(x, "base_rank") < num(y, "base_rank")   ? -1
	       : num(x, "base_rank") > num(y, "base_rank") ? 1
	                                                   : 0;
}

static void rank_table(struct fmt *f, const struct gp_value **gs, size_t n)
{
	const struct gp__table t = { rank_cols, GP_ARRAY_SIZE(rank_cols), NULL, f->md };
	size_t i, k, shown = f->top && f->top < n ? f->top : n;

	if (!n)
		return;
	qsort(gs, n, sizeof(*gs), by_change);
	out(f,
	    f->md ? "#### ranks\n\n" : "== ranks (the change of each metric, new against base)\n");
	gp__out_keep(&f->o, gp__table_head(&f->o.b, &t));
	for (i = 0; i < shown; i++) {
		const struct gp_value *m = metric_of(gs[i], "step_mean");
		char r[24], a[32], b[32], d[GP_ARRAY_SIZE(rank_metrics) + 1][32];
		const char *cells[GP_ARRAY_SIZE(rank_cols)];

		snprintf(r, sizeof(r), "%.0f", num(gs[i], "base_rank"));
		value(a, sizeof(a), "ns", num(m, "base"));
		value_like(b, sizeof(b), "ns", num(m, "new"), num(m, "base"));
		if (m)
			delta(d[0], sizeof(d[0]), m);
		else
			snprintf(d[0], sizeof(d[0]), "-");
		for (k = 0; k < GP_ARRAY_SIZE(rank_metrics); k++) {
			const struct gp_value *x = metric_of(gs[i], rank_metrics[k]);

			if (x)
				delta(d[k + 1], sizeof(d[k + 1]), x);
			else
				snprintf(d[k + 1], sizeof(d[k + 1]), "-");
		}
		cells[0] = r;
		cells[1] = a;
		cells[2] = b;
		for (k = 0; k <= GP_ARRAY_SIZE(rank_metrics); k++)
			cells[3 + k] = d[k];
		gp__out_keep(&f->o, gp__table_cells(&f->o.b, &t, cells));
	}
	para(f, f->md ? "\n_" : "  ", 4,
	     "%zu of %zu ranks, by |delta| of the mean step; one value a rank and side: no test "
	     "(the job's lines test across the ranks)%s%s",
	     shown, n, shown < n ? "; --top 0 or --json for all" : "", f->md ? "_" : "");
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
	struct fmt f = { .o = { GP_BUF_INIT, 0 }, .md = fmt == GP_COMPARE_MARKDOWN, .top = top };
	const struct gp_value *groups = gp_obj_get(result, "groups");
	const struct gp_value *opts = gp_obj_get(result, "options");
	const struct gp_value *tags = gp_obj_get(result, "tag_changes");
	const char *verdict = str(result, "verdict");
	bool agg = strcmp(str(result, "kind"), "aggregate") == 0;
	const struct gp_value **ranks = NULL;
	size_t i, nranks = 0;
	char th[32];

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
	if (strcmp(str(result, "kind"), "memory snapshot") == 0) { /* compare/memsnap.c */
		gp__cmp_format_memsnap(&f.o, result, f.md, f.top);
		goto out_detach;
	}
	para(&f, "", 2,
	     f.md ? "%s `%s` (%s) -> %s `%s` (%s); alpha %g, threshold %s"
	          : "%s '%s' (%s) -> %s '%s' (%s); alpha %g, threshold %s",
	     "base", side_path(result, "base"), str(gp_obj_get(result, "base"), "input"), "new",
	     side_path(result, "new"), str(gp_obj_get(result, "new"), "input"), num(opts, "alpha"),
	     gp__fmt_pct(th, sizeof(th), num(opts, "threshold_pct"), GP__FMT_GIVEN));
	out(&f, "\n");
	for (i = 0; i < gp_value_len(groups); i++) {
		const struct gp_value *g = gp_arr_get(groups, i);
		const char *bs = gp_value_get_str(gp_obj_get(g, "base_series"));
		const char *ns = gp_value_get_str(gp_obj_get(g, "new_series"));
		double rb = num(g, "base_rank"), rn = num(g, "new_rank");

		/* an aggregate's ranks: one table after the job's lines */
		if (agg && isfinite(rb)) {
			if (!ranks && !(ranks = gp__calloc(gp_value_len(groups), sizeof(*ranks))))
				gp__out_keep(&f.o, GP_ENOMEM);
			if (ranks)
				ranks[nranks++] = g;
			continue;
		}
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
		diff_table(&f, gp_obj_get(g, "kernels"), "kernels", num(opts, "alpha"));
		diff_table(&f, gp_obj_get(g, "operators"), "operators", num(opts, "alpha"));
		gp__cmp_format_perf(&f.o, g, f.md, f.top);
		list(&f, gp_obj_get(g, "explanations"), "why");
	}
	rank_table(&f, ranks, nranks);
	gp__free(ranks);
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
out_detach:
	/* one final newline */
	while (!f.o.rc && f.o.b.len >= 2 && f.o.b.buf[f.o.b.len - 1] == '\n' &&
	       f.o.b.buf[f.o.b.len - 2] == '\n')
		f.o.b.buf[--f.o.b.len] = '\0';
	return gp__out_detach(&f.o, text, len);
}
