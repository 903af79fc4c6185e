/* SPDX-License-Identifier: MIT */
/*
 * format.c - the history's text for people: `history list` as a table,
 * `history changes` as a table of change points per series, `history show`
 * as a sparkline per series with its change points marked under it, and
 * `history check` as verdicts with compare's explanation of each regression.
 * Numbers go through the one formatter (src/lib/text), tables through the one
 * table; values are printed by their unit (ns as durations, bytes in binary
 * units, others as numbers with the unit after them).
 */
#include "history-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuprof/compare.h"
#include "text/text.h"
#include "util/error.h"

/* a value by its unit, in the unit of @p ref (one unit per line) */
static const char *fmt_value(char *buf, size_t n, double v, double ref, const char *unit)
{
	if (!isfinite(v))
		return "-";
	if (unit && !strcmp(unit, "ns"))
		return gp__fmt_dur_like(buf, n, v, ref, 0);
	if (unit && !strcmp(unit, "bytes"))
		return gp__fmt_bytes_like(buf, n, v, ref, 0);
	if (unit && !strcmp(unit, "%"))
		return gp__fmt_pct(buf, n, v, 0);
	gp__fmt_rate(buf, n, v);
	if (unit && *unit && strlen(buf) + strlen(unit) + 2 < n) {
		if (strcmp(unit, "/s"))
			strcat(buf, " ");
		strcat(buf, unit);
	}
	return buf;
}

/* "2026-11-20 10:00" (UTC) of Unix ns @p t; "2026-11-20" without @p with_time */
static const char *fmt_time(char *buf, size_t n, int64_t t, bool with_time)
{
	time_t s = (time_t)(t / 1000000000);
	struct tm tm;

	if (t <= 0 || !gmtime_r(&s, &tm) ||
	    !strftime(buf, n, with_time ? "%Y-%m-%d %H:%M" : "%Y-%m-%d", &tm))
		return "-";
	return buf;
}

/* control characters of @p buf (a commit, a name from the database) as '?': none reach a terminal
 */
static char *no_ctrl(char *buf)
{
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return buf;
}

/* the first 8 characters of a commit (as the history page shows it), "-" when unknown */
static const char *fmt_commit(char *buf, size_t n, const char *c)
{
	if (!c || !*c)
		return "-";
	snprintf(buf, n, "%.8s", c);
	return no_ctrl(buf);
}

/* @p s cut to @p w columns, its control characters as '?' */
static void put_fit(struct gp__out *o, const char *s, size_t w)
{
	if (!o->rc)
		gp__out_keep(o, gp__text_fit(&o->b, s, w, 0));
}

/* the line @p text (a terminal's: its control characters '?') wrapped to @p width, indented */
static void put_wrapped(struct gp__out *o, const char *text, int width, size_t indent)
{
	char first[16];

	snprintf(first, sizeof(first), "%*s", (int)indent, "");
	if (!o->rc)
		gp__out_keep(
		    o, gp__text_wrap(&o->b, first, text, (size_t)width, indent + 2, GP__WRAP_RAW));
}

static double num(const struct gp_value *o, const char *k)
{
	double d = NAN;

	gp_value_get_double(gp_obj_get(o, k), &d);
	return d;
}

static int64_t inum(const struct gp_value *o, const char *k)
{
	int64_t i = 0;

	gp_value_get_int(gp_obj_get(o, k), &i);
	return i;
}

static const char *str(const struct gp_value *o, const char *k)
{
	const char *s = gp_value_get_str(gp_obj_get(o, k));

	return s ? s : "";
}

/* ---- list ---- */

/* `list`'s last value, in its unit */
static const char *cell_last(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	double lv = num(row, "last_value");

	(void)c;
	return fmt_value(buf, n, lv, lv, str(row, "unit"));
}

/*
 * The metric column is as wide as the longest name, within what @p width
 * leaves beside the other columns and the longest testbed (40 at least),
 * and fitted by the names rule: two kernels' series that differ deep in
 * their names still read apart.
 */
static void list_text(struct gp__out *o, const struct gp_value *list, int width)
{
	struct gp__col cols[] = {
		{ .head = "metric",
		  .flags = GP__COL_LEFT | GP__COL_NAME,
		  .cell = gp__cell_str,
		  .key = "metric" },
		{ .head = "runs", .width = 6, .gap = " ", .cell = gp__cell_count, .key = "count" },
		{ .head = "noisy", .width = 6, .gap = " ", .cell = gp__cell_count, .key = "noisy" },
		{ .head = "last", .width = 14, .gap = " ", .cell = cell_last },
		{ .head = "better",
		  .width = 6,
		  .gap = "  ",
		  .flags = GP__COL_LEFT,
		  .cell = gp__cell_str,
		  .key = "better" },
		/* cut only to make its control characters '?' */
		{ .head = "testbed",
		  .cut = 1000,
		  .gap = "  ",
		  .flags = GP__COL_LEFT,
		  .cell = gp__cell_str,
		  .key = "testbed" },
	};
	const struct gp__table t = { .cols = cols, .n = 6 };
	size_t n = gp_value_len(list), mw = 0, tw = strlen("testbed"), room;
	const size_t rest = 39; /* the other columns and their gaps */
	const void **rows;

	if (!n) {
		gp__out_addf(o, "no series\n");
		return;
	}
	rows = gp__calloc(n, sizeof(*rows));
	if (!rows) {
		gp__out_keep(o, gp__error(GP_ENOMEM, "out of memory"));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t w;

		rows[i] = gp_arr_get(list, i);
		w = gp__text_width(str(rows[i], "metric"));
		mw = w > mw ? w : mw;
		w = gp__text_width(str(rows[i], "testbed"));
		tw = w > tw ? w : tw;
	}
	room = (size_t)width > rest + tw + 40 ? (size_t)width - rest - tw : 40;
	mw = mw > room ? room : mw < 6 ? 6 : mw;
	cols[0].width = cols[0].cut = mw;
	gp__out_keep(o, gp__table_head(&o->b, &t));
	gp__out_keep(o, gp__table_rows(&o->b, &t, rows, n));
	gp__free(rows);
}

/* ---- changes ---- */

/* the header line of series @p s */
/* "METRIC  on TESTBED" in @p w columns: the metric two thirds at most, the testbed the rest */
static void put_names(struct gp__out *o, const char *metric, const char *testbed, size_t w)
{
	size_t mw = w * 2 / 3, used = gp__text_width(metric);

	put_fit(o, metric, mw);
	gp__out_addf(o, "  on ");
	used = (used < mw ? used : mw) + 5;
	put_fit(o, testbed, w > used + 8 ? w - used : 8);
	gp__out_addf(o, "\n");
}

static void series_head(struct gp__out *o, const struct gp_value *s, int width)
{
	char noise[32], thr[32], noisy[64], line[512];
	size_t w = width > 20 ? (size_t)width : 20;

	put_names(o, str(s, "metric"), str(s, "testbed"), w);
	snprintf(noisy, sizeof(noisy), " (%" PRId64 " noisy, left out)", inum(s, "noisy"));
	snprintf(line, sizeof(line), "%" PRId64 " runs%s, %s is better, noise %s, threshold %s%s",
	         inum(s, "count"), inum(s, "noisy") ? noisy : "", str(s, "better"),
	         gp__fmt_pct(noise, sizeof(noise), num(s, "noise") * 100, 0),
	         gp__fmt_pct(thr, sizeof(thr), num(s, "threshold") * 100, GP__FMT_GIVEN),
	         gp_value_get_bool(gp_obj_get(s, "unstable"), false)
	             ? ": UNSTABLE, too noisy for its threshold: no change points"
	             : "");
	put_wrapped(o, line, (int)w, 2);
}

static void changes_table(struct gp__out *o, const struct gp_value *s)
{
	static const struct gp__col cols[] = {
		{ .head = "index", .width = 5 },
		{ .head = "commit", .width = 8, .gap = "  ", .flags = GP__COL_LEFT },
		{ .head = "date", .width = 10, .gap = "  ", .flags = GP__COL_LEFT },
		{ .head = "before", .width = 16, .gap = "  " },
		{ .head = "after", .width = 16, .gap = "  " },
		{ .head = "change", .width = 6, .gap = "  " },
		{ .head = "p-value", .width = 7, .gap = "  " },
		{ .head = "is", .gap = "  ", .flags = GP__COL_LEFT },
	};
	const struct gp__table t = { .cols = cols, .n = 8, .indent = "  " };
	const struct gp_value *cs = gp_obj_get(s, "changes");
	const char *unit = str(s, "unit");

	if (!gp_value_len(cs))
		return;
	gp__out_keep(o, gp__table_head(&o->b, &t));
	for (size_t i = 0; i < gp_value_len(cs) && !o->rc; i++) {
		const struct gp_value *c = gp_arr_get(cs, i);
		const struct gp_value *b = gp_obj_get(c, "before"), *a = gp_obj_get(c, "after");
		double mb = num(b, "mean"), ma = num(a, "mean");
		char idx[32], com[16], tm[32], v1[32], v2[32], s1[32], s2[32], before[80],
		    after[80];
		char ch[32], p[32], what[64];
		bool trend = !strcmp(str(c, "kind"), "trend");
		const char *cells[8];

		snprintf(idx, sizeof(idx), "%" PRId64, inum(c, "index"));
		/* the spread as a share of the mean: "1.000 ms ± 0.3%" */
		if (trend) {
			snprintf(before, sizeof(before), "%s",
			         fmt_value(v1, sizeof(v1), mb, mb, unit));
			snprintf(after, sizeof(after), "%s",
			         fmt_value(v2, sizeof(v2), ma, mb, unit));
		} else {
			snprintf(before, sizeof(before), "%s ± %s",
			         fmt_value(v1, sizeof(v1), mb, mb, unit),
			         gp__fmt_pct(s1, sizeof(s1), num(b, "sd") / fabs(mb) * 100, 0));
			snprintf(after, sizeof(after), "%s ± %s",
			         fmt_value(v2, sizeof(v2), ma, mb, unit),
			         gp__fmt_pct(s2, sizeof(s2), num(a, "sd") / fabs(ma) * 100, 0));
		}
		snprintf(what, sizeof(what), "%s%s",
		         gp_value_get_bool(gp_obj_get(c, "regression"), false) ? "worse" : "better",
		         trend ? ", a creep from here on" : "");
		cells[0] = idx;
		cells[1] = fmt_commit(com, sizeof(com), gp_value_get_str(gp_obj_get(c, "commit")));
		cells[2] = fmt_time(tm, sizeof(tm), inum(c, "time_ns"), false);
		cells[3] = before;
		cells[4] = after;
		cells[5] = gp__fmt_pct(ch, sizeof(ch), num(c, "rel_change") * 100, GP__FMT_SIGN);
		cells[6] = gp__fmt_pvalue(p, sizeof(p), num(c, "pvalue"));
		cells[7] = what;
		gp__out_keep(o, gp__table_cells(&o->b, &t, cells));
	}
}

static void changes_text(struct gp__out *o, const struct gp_value *series, int width)
{
	size_t with = 0, unstable = 0;

	for (size_t i = 0; i < gp_value_len(series) && !o->rc; i++) {
		const struct gp_value *s = gp_arr_get(series, i);

		unstable += gp_value_get_bool(gp_obj_get(s, "unstable"), false);
		if (!gp_value_len(gp_obj_get(s, "changes")) &&
		    !gp_value_get_bool(gp_obj_get(s, "unstable"), false))
			continue;
		if (with++)
			gp__out_addf(o, "\n");
		series_head(o, s, width);
		changes_table(o, s);
	}
	if (with)
		gp__out_addf(o, "\n");
	gp__out_addf(o, "%zu series, %zu with change points, %zu unstable\n", gp_value_len(series),
	             with - unstable, unstable);
}

/* ---- show ---- */

/* the sparkline of @p pts in at most @p w columns; the column of each point into col[] */
static void sparkline(struct gp__out *o, const struct gp_value *pts, size_t w, size_t *col)
{
	static const char *const bars[8] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	size_t n = gp_value_len(pts), cols = n < w ? n : w;
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		const struct gp_value *p = gp_arr_get(pts, i);
		double v = num(p, "value");

		col[i] = cols ? i * cols / n : 0;
		if (gp_value_get_bool(gp_obj_get(p, "noisy"), false) || !isfinite(v))
			continue;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	gp__out_addf(o, "  ");
	for (size_t c = 0, i = 0; c < cols; c++) {
		double sum = 0;
		size_t k = 0;

		/* the column's mean of its clean points; '·' when all were noisy */
		for (; i < n && col[i] == c; i++) {
			const struct gp_value *p = gp_arr_get(pts, i);
			double v = num(p, "value");

			if (!gp_value_get_bool(gp_obj_get(p, "noisy"), false) && isfinite(v)) {
				sum += v;
				k++;
			}
		}
		if (!k)
			gp__out_addf(o, "·");
		else if (!(hi > lo))
			gp__out_addf(o, "%s", bars[3]);
		else {
			int b = (int)((sum / (double)k - lo) / (hi - lo) * 7.999);

			gp__out_addf(o, "%s", bars[b < 0 ? 0 : b > 7 ? 7 : b]);
		}
	}
	gp__out_addf(o, "\n");
}

static void show_text(struct gp__out *o, const struct gp_value *series, int width)
{
	size_t w = width > 20 ? (size_t)width - 4 : 96;

	if (!gp_value_len(series)) {
		gp__out_addf(o, "no series\n");
		return;
	}
	for (size_t i = 0; i < gp_value_len(series) && !o->rc; i++) {
		const struct gp_value *s = gp_arr_get(series, i);
		const struct gp_value *pts = gp_obj_get(s, "points"),
		                      *cs = gp_obj_get(s, "changes");
		const struct gp_value *last = gp_obj_get(s, "last");
		size_t n = gp_value_len(pts), *col;
		double lo = INFINITY, hi = -INFINITY, lv = num(last, "value");
		const char *unit = str(s, "unit");
		char a[32], b[32], c[32], com[16], tm[32], line[256];

		if (i)
			gp__out_addf(o, "\n");
		series_head(o, s, width);
		if (!n)
			continue;
		col = gp__calloc(n, sizeof(*col));
		if (!col) {
			gp__out_keep(o, GP_ENOMEM);
			return;
		}
		sparkline(o, pts, w, col);
		if (gp_value_len(cs)) {
			/* '^' under a regression's column, 'v' under an improvement's */
			size_t at = 0;

			gp__out_addf(o, "  ");
			for (size_t k = 0; k < gp_value_len(cs); k++) {
				const struct gp_value *ch = gp_arr_get(cs, k);
				int64_t idx = inum(ch, "index");
				size_t cc = idx >= 0 && (size_t)idx < n ? col[idx] : 0;

				if (cc < at)
					continue; /* two in one column: the first is shown */
				gp__out_addf(o, "%*s%s", (int)(cc - at), "",
				             gp_value_get_bool(gp_obj_get(ch, "regression"), false)
				                 ? "^"
				                 : "v");
				at = cc + 1;
			}
			gp__out_addf(o, "\n");
		}
		gp__free(col);
		for (size_t k = 0; k < n; k++) {
			const struct gp_value *p = gp_arr_get(pts, k);
			double v = num(p, "value");

			if (gp_value_get_bool(gp_obj_get(p, "noisy"), false) || !isfinite(v))
				continue;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		snprintf(line, sizeof(line), "min %s, max %s, last %s at %s %s",
		         fmt_value(a, sizeof(a), lo, lv, unit),
		         fmt_value(b, sizeof(b), hi, lv, unit),
		         fmt_value(c, sizeof(c), lv, lv, unit),
		         fmt_commit(com, sizeof(com), gp_value_get_str(gp_obj_get(last, "commit"))),
		         fmt_time(tm, sizeof(tm), inum(last, "time_ns"), true));
		put_wrapped(o, line, width, 2);
		changes_table(o, s);
	}
}

/* ---- check ---- */

static void check_text(struct gp__out *o, const struct gp_value *res, int width)
{
	const struct gp_value *series = gp_obj_get(res, "series");
	const struct gp_value *ex = gp_obj_get(res, "explanations");
	static const char *const kinds[] = { "regression", "improvement", "unchanged", "unstable",
		                             "too few points" };
	size_t count[5] = { 0 };
	struct gp_buf side = GP_BUF_INIT;
	char total[256];

	for (size_t i = 0; i < gp_value_len(series); i++)
		for (size_t k = 0; k < 5; k++)
			count[k] += !strcmp(str(gp_arr_get(series, i), "verdict"), kinds[k]);
	for (size_t i = 0; i < gp_value_len(ex) && !o->rc; i++) {
		const struct gp_value *e = gp_arr_get(ex, i), *c = gp_obj_get(e, "change");
		const struct gp_value *b = gp_obj_get(e, "before"), *a = gp_obj_get(e, "after");
		const struct gp_value *cmp = gp_obj_get(e, "compare");
		double mb = num(gp_obj_get(c, "before"), "mean"),
		       ma = num(gp_obj_get(c, "after"), "mean");
		const char *unit = "";
		char ch[32], v1[32], v2[32], p[32], c1[16], c2[16], tm[32], line[512];

		for (size_t k = 0; k < gp_value_len(series); k++)
			if (!strcmp(str(gp_arr_get(series, k), "metric"), str(e, "metric")) &&
			    !strcmp(str(gp_arr_get(series, k), "testbed"), str(e, "testbed")))
				unit = str(gp_arr_get(series, k), "unit");
		gp__out_addf(o, "REGRESSION  ");
		put_names(o, str(e, "metric"), str(e, "testbed"),
		          width > 32 ? (size_t)width - 12 : 20);
		snprintf(line, sizeof(line),
		         "%s %s at index %" PRId64 " (run %" PRId64 ", %s, %s): %s -> %s, p %s",
		         gp__fmt_pct(ch, sizeof(ch), num(c, "rel_change") * 100, GP__FMT_SIGN),
		         !strcmp(str(c, "kind"), "trend") ? "creep" : "step", inum(c, "index"),
		         inum(c, "run_id"),
		         fmt_commit(c1, sizeof(c1), gp_value_get_str(gp_obj_get(c, "commit"))),
		         fmt_time(tm, sizeof(tm), inum(c, "time_ns"), true),
		         fmt_value(v1, sizeof(v1), mb, mb, unit),
		         fmt_value(v2, sizeof(v2), ma, mb, unit),
		         gp__fmt_pvalue(p, sizeof(p), num(c, "pvalue")));
		put_wrapped(o, line, width, 2);
		/* the sources are paths of any length: a buffer of their size */
		gp__buf_reset(&side);
		gp__out_keep(
		    o, gp__buf_addf(
		           &side, "%s: run %" PRId64 " (%s) '%s' and run %" PRId64 " (%s) '%s'",
		           !strcmp(str(c, "kind"), "trend") ? "the creep's first and newest runs"
		                                            : "the runs either side",
		           inum(b, "run_id"),
		           fmt_commit(c1, sizeof(c1), gp_value_get_str(gp_obj_get(b, "commit"))),
		           str(b, "source"), inum(a, "run_id"),
		           fmt_commit(c2, sizeof(c2), gp_value_get_str(gp_obj_get(a, "commit"))),
		           str(a, "source")));
		if (!o->rc)
			put_wrapped(o, side.buf, width, 2);
		if (cmp && gp_value_type(cmp) == GP_VALUE_OBJECT) {
			char *text = NULL;
			size_t len = 0;
			int rc = gp_compare_format(cmp, GP_COMPARE_TEXT, 10, &text, &len);

			if (rc) {
				gp__out_keep(o, rc);
				break;
			}
			gp__out_addf(o, "  compared as `gpuprof compare` does:\n");
			/* indented by four */
			for (const char *l = text; l && *l;) {
				const char *nl = strchr(l, '\n');
				size_t k = nl ? (size_t)(nl - l) : strlen(l);

				gp__out_addf(o, "%s%.*s\n", k ? "    " : "", (int)k, l);
				l = nl ? nl + 1 : l + k;
			}
			gp_free(text);
		} else {
			struct gp_buf wrapped = GP_BUF_INIT;

			gp__out_keep(o, gp__text_wrap(&wrapped,
			                              "  no comparison: ", str(e, "compare_error"),
			                              (size_t)width, 4, GP__WRAP_RAW));
			if (!o->rc)
				gp__out_addf(o, "%s", wrapped.buf ? wrapped.buf : "");
			gp__buf_release(&wrapped);
		}
		gp__out_addf(o, "\n");
	}
	gp__buf_release(&side);
	snprintf(total, sizeof(total),
	         "checked %zu series: %zu regression%s, %zu improvement%s, %zu unchanged, "
	         "%zu unstable, %zu with too few points",
	         gp_value_len(series), count[0], count[0] == 1 ? "" : "s", count[1],
	         count[1] == 1 ? "" : "s", count[2], count[3], count[4]);
	put_wrapped(o, total, width, 0);
}

int gp_history_format(const struct gp_value *v, enum gp_history_format fmt, int width, char **out,
                      size_t *len)
{
	struct gp__out o = { .b = GP_BUF_INIT };

	if (!v || !out)
		return gp__error(GP_EINVAL, "gp_history_format: bad arguments");
	*out = NULL;
	if (width <= 0)
		width = 100;
	if ((fmt == GP_HISTORY_CHECK) != (gp_value_type(v) == GP_VALUE_OBJECT) ||
	    (fmt == GP_HISTORY_CHECK && !gp_obj_get(v, "series")))
		return gp__error(GP_EINVAL, "gp_history_format: not a tree of this format");
	switch (fmt) {
	case GP_HISTORY_LIST:
		list_text(&o, v, width);
		break;
	case GP_HISTORY_CHANGES:
		changes_text(&o, v, width);
		break;
	case GP_HISTORY_SHOW:
		show_text(&o, v, width);
		break;
	case GP_HISTORY_CHECK:
		check_text(&o, v, width);
		break;
	default:
		gp__buf_release(&o.b);
		return gp__error(GP_EINVAL, "gp_history_format: unknown format %d", (int)fmt);
	}
	return gp__out_detach(&o, out, len);
}
