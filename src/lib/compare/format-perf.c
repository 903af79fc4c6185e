/* SPDX-License-Identifier: MIT */
/*
 * format-perf.c - the critical path, module and roofline parts of a report
 * group (perf.c's objects) for people, in text or Markdown: the bound shift
 * of the path as a table of categories, then the module classes and the ops
 * as diffs (top rows by |delta GPU time|). Called by format.c after the
 * kernel and operator diffs; reads only the tree and computes nothing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare-int.h"
#include "text/text.h"
#include "util/buf.h"

#define NAME_COLS 72
#define TEXT_COLS 100

static const char *sget(const struct gp_value *v, const char *key)
{
	const char *s = gp_value_get_str(gp_obj_get(v, key));

	return s ? s : "-";
}

/* a summary line: wrapped at TEXT_COLS in text, as it is (and folded in <details>) in Markdown */
static void line(struct gp__out *o, bool md, bool details, const char *text)
{
	if (md)
		gp__out_addf(o, details ? "<details><summary>%s</summary>\n\n" : "%s\n\n", text);
	else
		gp__out_keep(o, gp__text_wrap(&o->b, "", text, TEXT_COLS, 2, GP__WRAP_GLUE));
}

static const struct gp__col bound_cols[] = {
	{ .head = "bound", .width = 28, .flags = GP__COL_LEFT },
	{ .head = "base", .width = 8, .gap = " " },
	{ .head = "new", .width = 8, .gap = " " },
	{ .head = "delta", .md_head = "Δ", .width = 10, .gap = " " },
	{ .head = "p (steps)", .width = 9, .gap = " " },
};

static void critical_path(struct gp__out *o, bool md, const struct gp_value *cp)
{
	const struct gp_value *b = gp_obj_get(cp, "base"), *n = gp_obj_get(cp, "new");
	const struct gp_value *rows = gp_obj_get(cp, "bounds");
	const struct gp__table t = { bound_cols, GP_ARRAY_SIZE(bound_cols), "  ", md };
	struct gp_buf s = GP_BUF_INIT;
	char x[32], y[32], z[32], pv[24];
	size_t i;

	if (!cp)
		return;
	gp__fmt_pvalue(pv, sizeof(pv), gp__cmp_num(cp, "path_p"));
	gp__out_keep(o,
	             gp__buf_addf(&s,
	                          "critical path: %s -> %s per step (%s; %.0f and %.0f %s; p %s "
	                          "over the steps); bound by %s -> %s",
	                          gp__fmt_dur(x, sizeof(x), gp__cmp_num(b, "mean_path_ns"), 0),
	                          gp__fmt_dur_like(y, sizeof(y), gp__cmp_num(n, "mean_path_ns"),
	                                           gp__cmp_num(b, "mean_path_ns"), 0),
	                          gp__fmt_pct(z, sizeof(z), gp__cmp_num(cp, "delta_mean_path_pct"),
	                                      GP__FMT_SIGN),
	                          gp__cmp_num(b, "steps"), gp__cmp_num(n, "steps"),
	                          gp_value_get_bool(gp_obj_get(b, "whole_trace"), false)
	                              ? "pseudo-steps over the trace"
	                              : "steps",
	                          pv, sget(b, "bound"), sget(n, "bound")));
	if (!o->rc)
		line(o, md, false, s.buf);
	gp__buf_release(&s);
	gp__out_keep(o, gp__table_head(&o->b, &t));
	for (i = 0; i < gp_value_len(rows); i++) {
		const struct gp_value *r = gp_arr_get(rows, i);
		char a[32], c[32], d[32], p[24];
		const char *cells[] = { sget(r, "category"), a, c, d, p };

		gp__fmt_pct(a, sizeof(a), gp__cmp_num(r, "base_pct"), 0);
		gp__fmt_pct(c, sizeof(c), gp__cmp_num(r, "new_pct"), 0);
		if (isfinite(gp__cmp_num(r, "delta_pp")))
			snprintf(d, sizeof(d), "%+.1f pp", gp__cmp_num(r, "delta_pp"));
		else
			snprintf(d, sizeof(d), "-");
		gp__fmt_pvalue(p, sizeof(p), gp__cmp_num(r, "p"));
		gp__out_keep(o, gp__table_cells(&o->b, &t, cells));
	}
	gp__out_addf(o, "\n");
}

/* the module and op diffs: one column list, the per-unit column named by the table */
static const struct gp__col diff_cols[] = {
	{ .head = "status", .width = 8, .flags = GP__COL_LEFT },
	{ .head = "count", .width = 13, .gap = " " },
	{ .head = "base per", .width = 10, .gap = " " },
	{ .head = "new per", .width = 10, .gap = " " },
	{ .head = "delta per", .md_head = "Δ per", .width = 10, .gap = " " },
	{ .head = "delta total", .md_head = "Δ total", .width = 12, .gap = " " },
	{ .head = "TFLOP/s", .width = 17, .gap = " " },
	{ .head = "name",
	  .gap = " ",
	  .cut = NAME_COLS + 1,
	  .flags = GP__COL_LEFT | GP__COL_CODE | GP__COL_CTRL },
};

static void diff(struct gp__out *o, bool md, uint32_t top, const struct gp_value *d, bool ops)
{
	const struct gp_value *rows = gp_obj_get(d, "rows");
	const struct gp_value *ad = gp_obj_get(d, "added"), *rm = gp_obj_get(d, "removed");
	size_t i, n = gp_value_len(rows), shown = top && top < n ? top : n;
	struct gp__col cols[GP_ARRAY_SIZE(diff_cols)];
	struct gp__table t = { cols, GP_ARRAY_SIZE(diff_cols), "  ", md };
	const char *unit = ops ? "ops" : "classes";
	struct gp_buf s = GP_BUF_INIT, nm = GP_BUF_INIT;
	char a[32], b[32], th[32], cb[32], cn[32];

	if (!d)
		return;
	memcpy(cols, diff_cols, sizeof(cols));
	cols[1].head = ops ? "calls" : "instances";
	cols[2].head = ops ? "base/call" : "base/inst";
	cols[3].head = ops ? "new/call" : "new/inst";
	if (!ops) { /* no TFLOP/s: the name moves left */
		cols[6] = diff_cols[7];
		t.n = GP_ARRAY_SIZE(diff_cols) - 1;
	}
	gp__out_keep(
	    o,
	    gp__buf_addf(
	        &s,
	        "%s: %.0f %s in base, %.0f in new; %.0f added (%s), %.0f removed (%s); "
	        "%.0f slower, %.0f faster per %s (threshold %s)",
	        ops ? "ops (roofline)" : "modules",
	        gp__cmp_num(d, ops ? "base_ops" : "base_classes"), unit,
	        gp__cmp_num(d, ops ? "new_ops" : "new_classes"), gp__cmp_num(ad, unit),
	        gp__fmt_dur(a, sizeof(a), gp__cmp_num(ad, "gpu_time_ns"), 0), gp__cmp_num(rm, unit),
	        gp__fmt_dur(b, sizeof(b), gp__cmp_num(rm, "gpu_time_ns"), 0),
	        gp__cmp_num(d, "slower"), gp__cmp_num(d, "faster"), ops ? "call" : "instance",
	        gp__fmt_pct(th, sizeof(th), gp__cmp_num(d, "threshold_pct"), GP__FMT_GIVEN)));
	if (ops)
		gp__out_keep(
		    o, gp__buf_addf(
		           &s, "; device %s -> %s; models cover %s -> %s of the GPU time",
		           sget(d, "base_device"), sget(d, "new_device"),
		           gp__fmt_pct(cb, sizeof(cb), gp__cmp_num(d, "base_coverage_pct"), 0),
		           gp__fmt_pct(cn, sizeof(cn), gp__cmp_num(d, "new_coverage_pct"), 0)));
	if (!o->rc)
		line(o, md, true, s.buf);
	gp__buf_release(&s);
	if (n)
		gp__out_keep(o, gp__table_head(&o->b, &t));
	for (i = 0; i < shown && !o->rc; i++) {
		const struct gp_value *r = gp_arr_get(rows, i);
		const char *per = ops ? "avg_ns" : "mean_gpu_ns", *dims;
		char cnt[48], bp[32], np[32], dp[32], dt[32], tf[48], k1[24], k2[24], x[24], y[24];
		const char *cells[] = { sget(r, "status"), cnt, bp, np, dp, dt, tf, NULL };

		snprintf(k1, sizeof(k1), "base_%s", per);
		snprintf(k2, sizeof(k2), "new_%s", per);
		snprintf(cnt, sizeof(cnt), "%s -> %s",
		         gp__fmt_num(x, sizeof(x), gp__cmp_num(r, "base_count"), 0, ""),
		         gp__fmt_num(y, sizeof(y), gp__cmp_num(r, "new_count"), 0, ""));
		gp__fmt_dur(bp, sizeof(bp), gp__cmp_num(r, k1), 0);
		gp__fmt_dur_like(np, sizeof(np), gp__cmp_num(r, k2), gp__cmp_num(r, k1), 0);
		gp__fmt_pct(dp, sizeof(dp),
		            gp__cmp_num(r, ops ? "delta_avg_pct" : "delta_mean_pct"), GP__FMT_SIGN);
		gp__fmt_dur(dt, sizeof(dt), gp__cmp_num(r, "delta_gpu_time_ns"), GP__FMT_SIGN);
		tf[0] = '\0';
		if (ops)
			snprintf(tf, sizeof(tf), "%s -> %s",
			         gp__fmt_rate(x, sizeof(x), gp__cmp_num(r, "base_achieved_tflops")),
			         gp__fmt_rate(y, sizeof(y), gp__cmp_num(r, "new_achieved_tflops")));
		dims = ops ? gp_value_get_str(gp_obj_get(r, "input_dims")) : NULL;
		gp__buf_reset(&nm);
		gp__out_keep(o, gp__buf_addf(&nm, "%s%s%s", sget(r, "name"), dims ? " " : "",
		                             dims ? dims : ""));
		cells[ops ? 7 : 6] = nm.buf;
		gp__out_keep(o, gp__table_cells(&o->b, &t, cells));
	}
	gp__buf_release(&nm);
	if (shown < n)
		gp__out_addf(o, "%s%zu of %zu rows, by |delta total|; --top 0 or --json for all\n",
		             md ? "\n" : "  ", shown, n);
	gp__out_addf(o, md ? "\n</details>\n\n" : "\n");
}

void gp__cmp_format_perf(struct gp__out *o, const struct gp_value *g, bool md, uint32_t top)
{
	critical_path(o, md, gp_obj_get(g, "critical_path"));
	diff(o, md, top, gp_obj_get(g, "modules"), false);
	diff(o, md, top, gp_obj_get(g, "roofline"), true);
}
