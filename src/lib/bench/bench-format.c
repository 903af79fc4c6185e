/* SPDX-License-Identifier: MIT */
/*
 * bench-format.c - a bench result ("gpuprof.bench/1" tree) as a table for
 * people: plain text (a block per series, as hyperfine prints) or Markdown
 * (one row per series, for a pull-request comment). Reads only the tree,
 * so a result read back from a file prints as it did when it was made.
 *
 * After the series: the targets (metric, value, target, status with ✓ or
 * ✗), the series against the fastest (one table, then hyperfine's
 * "Summary"), and the sweeps of a parameter scan with their knee; each only
 * when the result has it. Durations printed together share one unit, that
 * of their headline value (the median): "mean 11.88 ms ± 0.55 ms".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/bench.h"
#include "util/buf.h"
#include "util/error.h"
#include "text/text.h"

#define MAX_COLS 12

static double num(const struct gp_value *o, const char *key)
{
	double d;

	return gp_value_get_double(gp_value_path(o, key), &d) ? d : NAN;
}

static const char *str_or(const struct gp_value *o, const char *key, const char *dflt)
{
	const char *s = gp_value_get_str(gp_obj_get(o, key));

	return s ? s : dflt;
}

static const char *fmt_ratio(char *buf, size_t n, double r)
{
	return gp__fmt_num(buf, n, r, 3, "");
}

/* ---- tables whose text columns fit their cells ---- */

/* rows of ready cells, drawn through the one table once all are known */
struct grid {
	struct gp__col cols[MAX_COLS];
	size_t ncols, nrows, cap;
	char **cells; /* nrows * ncols */
	int rc;
};

static void grid_init(struct grid *g, const char *const *heads, const unsigned *flags, size_t n)
{
	memset(g, 0, sizeof(*g));
	g->ncols = n < MAX_COLS ? n : MAX_COLS;
	for (size_t i = 0; i < g->ncols; i++) {
		g->cols[i].head = heads[i];
		g->cols[i].flags = flags ? flags[i] : 0;
		g->cols[i].gap = i ? "  " : NULL;
		g->cols[i].width = gp__text_width(heads[i]);
	}
}

static void grid_row(struct grid *g, const char *const *cells)
{
	if (g->rc)
		return;
	if (gp__grow((void **)&g->cells, &g->cap, (g->nrows + 1) * g->ncols, sizeof(char *))) {
		g->rc = gp__error(GP_ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < g->ncols; i++) {
		char **c = &g->cells[g->nrows * g->ncols + i];
		size_t w;

		*c = gp__strdup(cells[i] ? cells[i] : "-");
		if (!*c) {
			g->rc = gp__error(GP_ENOMEM, "out of memory");
			for (size_t k = 0; k < i; k++)
				gp__free(g->cells[g->nrows * g->ncols + k]);
			return;
		}
		w = gp__text_width(*c);
		if (w > g->cols[i].width)
			g->cols[i].width = w;
	}
	g->nrows++;
}

/* draws the grid (text indented by @p indent, or Markdown) and frees it */
static void grid_draw(struct gp__out *o, struct grid *g, const char *indent, bool md)
{
	struct gp__table t = { g->cols, g->ncols, indent, md };

	gp__out_keep(o, g->rc);
	gp__out_keep(o, gp__table_head(&o->b, &t));
	for (size_t r = 0; r < g->nrows; r++)
		gp__out_keep(
		    o, gp__table_cells(&o->b, &t, (const char *const *)&g->cells[r * g->ncols]));
	for (size_t i = 0; i < g->nrows * g->ncols; i++)
		gp__free(g->cells[i]);
	gp__free(g->cells);
	memset(g, 0, sizeof(*g));
}

/* ---- a series ---- */

/* one iteration has no spread or percentiles: its value alone (@p n: the iterations) */
static void text_stats(struct gp__out *o, const char *label, const struct gp_value *st, int64_t n)
{
	const char *u = "ns";
	char k[40], a[32], b[32], c[32], d[32], e[32];
	const struct gp_value *ci;
	double lo = NAN, hi = NAN, ref;

#define S(x)      (snprintf(k, sizeof(k), "%s_%s", x, u), num(st, k))
#define F(buf, v) gp__fmt_dur_like(buf, sizeof(buf), v, ref, 0)
	/* one unit for the block: the median's */
	ref = S("median");
	if (n == 1) {
		gp__out_addf(o, "  %-7s %s\n", label, F(a, S("median")));
		return;
	}
	snprintf(k, sizeof(k), "median_ci_%s", u);
	ci = gp_obj_get(st, k);
	gp_value_get_double(gp_arr_get(ci, 0), &lo);
	gp_value_get_double(gp_arr_get(ci, 1), &hi);
	gp__out_addf(o, "  %-7s median %s", label, F(a, S("median")));
	if (isfinite(lo))
		gp__out_addf(o, "  [95%% CI %s .. %s]", F(b, lo), F(c, hi));
	gp__out_addf(o, "   mean %s ± %s\n", F(a, S("mean")), F(d, S("std")));
	gp__out_addf(o, "  %-7s min %s  p90 %s  p95 %s  p99 %s  max %s\n", "", F(a, S("min")),
	             F(b, S("p90")), F(c, S("p95")), F(d, S("p99")), F(e, S("max")));
#undef S
#undef F
}

/*
 * The memory of the iterations beside their times, a line per kind (peak,
 * at end): "mean ± σ  min  max", each line in the unit of its mean and σ in
 * its own (one decimal of the mean's unit would hide a σ of a few MiB in
 * GiB); one iteration: its value alone.
 */
static void text_memory(struct gp__out *o, const struct gp_value *s, int64_t n)
{
	static const char *const keys[] = { "memory_stats", "memory_at_end_stats" };
	static const char *const labels[] = { "peak", "at end" };
	bool first = true;

	for (size_t i = 0; i < 2; i++) {
		const struct gp_value *st = gp_obj_get(s, keys[i]);
		char a[32], b[32], c[32], d[32];

		if (gp_value_type(st) != GP_VALUE_OBJECT)
			continue;
		double ref = num(st, "mean_bytes");

		gp__out_addf(o, "  %-7s %-7s", first ? "memory" : "", labels[i]);
		first = false;
		if (n == 1) {
			gp__out_addf(
			    o, "%s\n",
			    gp__fmt_bytes_like(a, sizeof(a), num(st, "mean_bytes"), ref, 0));
			continue;
		}
		gp__out_addf(o, "mean %s ± %s  min %s  max %s\n",
		             gp__fmt_bytes_like(a, sizeof(a), num(st, "mean_bytes"), ref, 0),
		             gp__fmt_bytes(b, sizeof(b), num(st, "std_bytes"), 0),
		             gp__fmt_bytes_like(c, sizeof(c), num(st, "min_bytes"), ref, 0),
		             gp__fmt_bytes_like(d, sizeof(d), num(st, "max_bytes"), ref, 0));
	}
}

/* a rate with its name: "84.81 runs/s" */
static const char *rate_text(char *buf, size_t n, double v, const char *rate)
{
	char r[32];

	snprintf(buf, n, "%s %s", gp__fmt_rate(r, sizeof(r), v), rate);
	return buf;
}

/* the cells of target @p t of series @p s: metric, value, target, status */
static void target_cells(const struct gp_value *s, const struct gp_value *t, bool md, char (*c)[48])
{
	const char *unit = str_or(t, "unit", "ns"), *status = str_or(t, "status", "unknown");
	const char *metric = str_or(t, "metric", "?");
	double thr = num(t, "threshold"), v = num(t, "value");
	char x[32];

	snprintf(c[0], sizeof(c[0]), "%s", metric);
	if (strcmp(unit, "ns") == 0) {
		/* one unit for the value and its target: the target's */
		gp__fmt_dur_like(c[1], sizeof(c[1]), v, thr, 0);
		snprintf(c[2], sizeof(c[2]), "%s %s", str_or(t, "op", "?"),
		         gp__fmt_dur(x, sizeof(x), thr, 0));
	} else {
		const char *rate =
		    strstr(metric, "iter") || strstr(metric, "runs")
		        ? "iterations/s"
		        : str_or(gp_obj_get(s, "throughput"), "rate_name", "items/s");

		if (isfinite(v))
			rate_text(c[1], sizeof(c[1]), v, rate);
		else
			snprintf(c[1], sizeof(c[1]), "-");
		snprintf(c[2], sizeof(c[2]), "%s %g %s", str_or(t, "op", "?"), thr, rate);
	}
	snprintf(c[3], sizeof(c[3]), "%s %s",
	         strcmp(status, "met") == 0      ? "✓"
	         : strcmp(status, "missed") == 0 ? "✗"
	                                         : "?",
	         status);
	if (md && strcmp(status, "met") != 0) {
		char b[48];

		snprintf(b, sizeof(b), "**%s**", c[3]);
		snprintf(c[3], sizeof(c[3]), "%s", b);
	}
}

static void text_targets(struct gp__out *o, const struct gp_value *s)
{
	static const char *const heads[] = { "metric", "value", "target", "status" };
	static const unsigned flags[] = { GP__COL_LEFT, 0, GP__COL_LEFT, GP__COL_LEFT };
	const struct gp_value *ts = gp_obj_get(s, "targets");
	struct grid g;

	if (!gp_value_len(ts))
		return;
	gp__out_addf(o, "  targets\n");
	grid_init(&g, heads, flags, 4);
	for (size_t i = 0; i < gp_value_len(ts); i++) {
		char c[4][48];
		const char *cells[4] = { c[0], c[1], c[2], c[3] };

		target_cells(s, gp_arr_get(ts, i), false, c);
		grid_row(&g, cells);
	}
	grid_draw(o, &g, "    ", false);
}

static void text_series(struct gp__out *o, const struct gp_value *s)
{
	const struct gp_value *tp = gp_obj_get(s, "throughput"), *w = gp_obj_get(s, "warnings");
	const char *name = gp_value_get_str(gp_obj_get(s, "name"));
	const char *rate = gp_value_get_str(gp_obj_get(tp, "rate_name"));
	int64_t n = 0, warm = 0;
	double batch = num(s, "batch_size");
	char a[32], b[32];

	gp_value_get_int(gp_obj_get(s, "n"), &n);
	gp_value_get_int(gp_obj_get(s, "warmup"), &warm);
	gp__out_addf(o, "%s  (%lld iteration%s, %lld warm-up)\n", name ? name : "?", (long long)n,
	             n == 1 ? "" : "s", (long long)warm);
	text_stats(o, "time", gp_obj_get(s, "stats"), n);
	if (gp_value_type(gp_obj_get(s, "gpu_stats")) == GP_VALUE_OBJECT) {
		double share = num(s, "gpu_share");

		text_stats(o, "gpu", gp_obj_get(s, "gpu_stats"), n);
		if (isfinite(share))
			gp__out_addf(o, "  %-7s GPU time is %s of an iteration's (median): %s\n",
			             "", gp__fmt_pct(a, sizeof(a), share * 100, GP__FMT_WHOLE),
			             share >= 0.9   ? "GPU-bound"
			             : share >= 0.5 ? "partly host-bound"
			                            : "host-bound, the GPU waits for the CPU");
	}
	text_memory(o, s, n);
	gp__out_addf(o, "  %-7s %s %s", "rate", gp__fmt_rate(a, sizeof(a), num(tp, "items_per_s")),
	             rate ? rate : "items/s");
	if (batch != 1)
		gp__out_addf(o, "  (batch %g, %s iterations/s)", batch,
		             gp__fmt_rate(b, sizeof(b), num(tp, "iterations_per_s")));
	gp__out_addf(o, "\n");
	text_targets(o, s);
	for (size_t i = 0; i < gp_value_len(w); i++) {
		const char *t = gp_value_get_str(gp_obj_get(gp_arr_get(w, i), "text"));

		gp__out_addf(o, "  warning: %s\n", t ? t : "?");
	}
}

/* ---- the series against the fastest ---- */

/* "1 (fastest)" or "1.920 [1.911 .. 1.932]" */
static const char *relative_cell(char *buf, size_t n, const struct gp_value *rel)
{
	char r[32], lo[32], hi[32];

	if (gp_value_get_bool(gp_obj_get(rel, "fastest"), false))
		snprintf(buf, n, "1 (fastest)");
	else if (isfinite(num(rel, "ratio_lo")))
		snprintf(buf, n, "%s [%s .. %s]", fmt_ratio(r, sizeof(r), num(rel, "ratio")),
		         fmt_ratio(lo, sizeof(lo), num(rel, "ratio_lo")),
		         fmt_ratio(hi, sizeof(hi), num(rel, "ratio_hi")));
	else
		snprintf(buf, n, "%s", fmt_ratio(r, sizeof(r), num(rel, "ratio")));
	return buf;
}

/*
 * What the test said of a series against the fastest, after "N times faster
 * than X": the interval at the level that decides (99 %, alpha 0.01) and,
 * when not significant, why; nothing that no test computed.
 */
static const char *significance(char *buf, size_t n, const struct gp_value *rel, const char *lo,
                                const char *hi)
{
	const struct gp_value *sig = gp_obj_get(rel, "significant");
	double l = num(rel, "ratio_lo"), h = num(rel, "ratio_hi"), p = num(rel, "p");

	if (gp_value_type(sig) != GP_VALUE_BOOL)
		snprintf(buf, n, " (too few runs: no test)");
	else if (gp_value_get_bool(sig, false))
		snprintf(buf, n, " (99%% CI %s .. %s, significant at alpha 0.01)", lo, hi);
	else if (isfinite(l) && (l > 1 || h < 1))
		/* the rank test and the bootstrap interval disagree near alpha */
		snprintf(
		    buf, n,
		    " (99%% CI %s .. %s, but not significant at alpha 0.01: the runs interleave "
		    "too much for the rank test, p = %.3f)",
		    lo, hi, p);
	else if (isfinite(l))
		snprintf(buf, n, " (99%% CI %s .. %s includes 1: not significant at alpha 0.01)",
		         lo, hi);
	else
		snprintf(buf, n, " (not significant at alpha 0.01, p = %.3f)", p);
	return buf;
}

static void comparison(struct gp__out *o, const struct gp_value *res, bool md)
{
	static const char *const heads[] = { "series", "median", "p95", "rate",
		                             "× fastest [99% CI]" };
	static const unsigned flags[] = { GP__COL_LEFT, 0, 0, 0, GP__COL_LEFT };
	const struct gp_value *series = gp_obj_get(res, "series");
	const char *fastest = str_or(gp_obj_get(res, "fastest"), "name", NULL);
	struct grid g;

	if (!fastest)
		return;
	if (md) {
		gp__out_addf(o, "\n**Summary:** ");
		gp__out_keep(o, gp__text_md_cell(&o->b, fastest, true));
		gp__out_addf(o, " ran\n\n");
	} else {
		gp__out_addf(o,
		             "\nAgainst the fastest (ratio of the medians, 99%% CI: the level of "
		             "alpha 0.01)\n");
		grid_init(&g, heads, flags, 5);
		for (size_t i = 0; i < gp_value_len(series); i++) {
			const struct gp_value *s = gp_arr_get(series, i);
			char c[5][64];
			const char *cells[5] = { str_or(s, "name", "?"), c[1], c[2], c[3], c[4] };
			double ref = num(s, "stats/median_ns");

			gp__fmt_dur_like(c[1], sizeof(c[1]), ref, ref, 0);
			gp__fmt_dur_like(c[2], sizeof(c[2]), num(s, "stats/p95_ns"), ref, 0);
			rate_text(c[3], sizeof(c[3]), num(s, "throughput/items_per_s"),
			          str_or(gp_obj_get(s, "throughput"), "rate_name", "items/s"));
			relative_cell(c[4], sizeof(c[4]), gp_obj_get(s, "relative"));
			grid_row(&g, cells);
		}
		grid_draw(o, &g, "  ", false);
		gp__out_addf(o, "\nSummary\n  %s ran\n", fastest);
	}
	for (size_t i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i), *rel = gp_obj_get(s, "relative");
		char r[32], lo[32], hi[32], c[192];

		if (!rel || gp_value_get_bool(gp_obj_get(rel, "fastest"), true))
			continue;
		fmt_ratio(r, sizeof(r), num(rel, "ratio"));
		if (md) {
			gp__out_addf(o, "- %s times faster than ", r);
			gp__out_keep(o, gp__text_md_cell(&o->b, str_or(s, "name", "?"), true));
		} else {
			gp__out_addf(o, "    %s times faster than %s", r, str_or(s, "name", "?"));
		}
		gp__out_addf(o, "%s\n",
		             significance(c, sizeof(c), rel,
		                          fmt_ratio(lo, sizeof(lo), num(rel, "ratio_lo")),
		                          fmt_ratio(hi, sizeof(hi), num(rel, "ratio_hi"))));
	}
}

/* ---- sweeps ---- */

static void sweeps(struct gp__out *o, const struct gp_value *res, bool md)
{
	const struct gp_value *sw = gp_obj_get(res, "sweeps");

	for (size_t i = 0; i < gp_value_len(sw); i++) {
		const struct gp_value *x = gp_arr_get(sw, i), *pts = gp_obj_get(x, "points");
		const struct gp_value *k = gp_obj_get(x, "knee");
		const char *param = str_or(x, "parameter", "?"),
		           *tmpl = str_or(x, "template", NULL);
		const char *heads[5] = { param, "batch", "median", "p99", "throughput" };
		static const unsigned flags[] = { GP__COL_LEFT, 0, 0, 0, 0 };
		bool batch = gp_value_get_bool(gp_obj_get(x, "batch_sweep"), false);
		bool show_batch = batch; /* a batch column of 1s says nothing */
		const char *rate = "items/s";
		struct grid g;

		for (size_t j = 0; j < gp_value_len(pts); j++)
			show_batch |= num(gp_arr_get(pts, j), "batch_size") != 1;
		if (!show_batch)
			memmove(heads + 1, heads + 2, 3 * sizeof(*heads));

		if (gp_value_len(pts)) {
			int64_t si = 0;

			gp_value_get_int(gp_obj_get(gp_arr_get(pts, 0), "series"), &si);
			rate =
			    str_or(gp_value_path(gp_arr_get(gp_obj_get(res, "series"), (size_t)si),
			                         "throughput"),
			           "rate_name", "items/s");
		}
		if (md) {
			gp__out_addf(o, "\n**Sweep over** ");
			gp__out_keep(o, gp__text_md_cell(&o->b, param, true));
		} else {
			gp__out_addf(o, "\nSweep over %s", param);
		}
		if (tmpl) {
			gp__out_addf(o, " (");
			gp__out_keep(o, md ? gp__text_md_cell(&o->b, tmpl, true)
			                   : gp__buf_addstr(&o->b, tmpl));
			gp__out_addf(o, ")");
		}
		gp__out_addf(o, md ? "\n\n" : "\n");
		grid_init(&g, heads, flags, show_batch ? 5 : 4);
		g.cols[0].flags |= md ? GP__COL_CODE : 0;
		for (size_t j = 0; j < gp_value_len(pts); j++) {
			const struct gp_value *p = gp_arr_get(pts, j);
			char c[5][48];
			const char *cells[5] = { str_or(p, "value", "?"), c[1], c[2], c[3], c[4] };
			double ref = num(p, "median_ns");

			snprintf(c[1], sizeof(c[1]), "%g", num(p, "batch_size"));
			gp__fmt_dur_like(c[2], sizeof(c[2]), ref, ref, 0);
			gp__fmt_dur_like(c[3], sizeof(c[3]), num(p, "p99_ns"), ref, 0);
			rate_text(c[4], sizeof(c[4]), num(p, "items_per_s"), rate);
			if (!show_batch)
				memmove(cells + 1, cells + 2, 3 * sizeof(*cells));
			grid_row(&g, cells);
		}
		grid_draw(o, &g, "  ", md);
		if (gp_value_type(k) == GP_VALUE_OBJECT &&
		    strcmp(str_or(k, "value", ""), str_or(k, "best_value", "")) == 0) {
			char a[32], b[32];

			gp__out_addf(
			    o,
			    "%sknee: %s = %s, the best throughput (%s) at a median latency "
			    "of %s\n",
			    md ? "\n" : "  ", param, str_or(k, "value", "?"),
			    rate_text(a, sizeof(a), num(k, "best_items_per_s"), rate),
			    gp__fmt_dur(b, sizeof(b), num(k, "median_ns"), 0));
		} else if (gp_value_type(k) == GP_VALUE_OBJECT) {
			char a[32], b[32], c[32], p[16];

			gp__out_addf(
			    o,
			    "%sknee: %s = %s reaches %s of the best throughput "
			    "(%s at %s = %s) at a median latency of %s (%s at %s)\n",
			    md ? "\n" : "  ", param, str_or(k, "value", "?"),
			    gp__fmt_pct(p, sizeof(p), 100 * num(k, "share_of_best"), GP__FMT_WHOLE),
			    rate_text(a, sizeof(a), num(k, "best_items_per_s"), rate), param,
			    str_or(k, "best_value", "?"),
			    gp__fmt_dur(b, sizeof(b), num(k, "median_ns"), 0),
			    gp__fmt_dur_like(c, sizeof(c), num(k, "best_median_ns"),
			                     num(k, "median_ns"), 0),
			    str_or(k, "best_value", "?"));
		} else if (batch && gp_value_get_str(gp_obj_get(x, "knee_note"))) {
			gp__out_addf(o, "%sknee: %s\n", md ? "\n" : "  ",
			             str_or(x, "knee_note", ""));
		}
	}
}

/* ---- Markdown ---- */

static void md_text(struct gp__out *o, const char *s)
{
	gp__out_keep(o, gp__text_md_cell(&o->b, s ? s : "", false));
}

static void md_table(struct gp__out *o, const struct gp_value *series, bool rel, bool targets)
{
	const char *heads[12] = { "series", "n",   "median", "mean ± σ",  "p95",
		                  "p99",    "min", "rate",   "GPU median" };
	unsigned flags[12] = { GP__COL_LEFT };
	size_t nc = 8, kmem = 0;
	bool gpu = false, mem = false;
	struct grid g;

	/* commands have no GPU time or memory: no column of "-" */
	for (size_t i = 0; i < gp_value_len(series); i++) {
		gpu |= gp_value_type(gp_obj_get(gp_arr_get(series, i), "gpu_stats")) ==
		       GP_VALUE_OBJECT;
		mem |= gp_value_type(gp_obj_get(gp_arr_get(series, i), "memory_stats")) ==
		       GP_VALUE_OBJECT;
	}
	if (gpu)
		nc++;
	if (mem) {
		kmem = nc;
		heads[nc++] = "peak memory (mean)";
	}
	if (rel) {
		flags[nc] = GP__COL_LEFT;
		heads[nc++] = "× fastest [99% CI]";
	}
	if (targets) {
		flags[nc] = GP__COL_LEFT;
		heads[nc++] = "targets";
	}
	grid_init(&g, heads, flags, nc);
	for (size_t i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i);
		const struct gp_value *st = gp_obj_get(s, "stats"),
		                      *gs = gp_obj_get(s, "gpu_stats");
		const struct gp_value *ts = gp_obj_get(s, "targets");
		char c[12][64], a[32], b[32];
		const char *cells[12];
		double ref = num(st, "median_ns");
		int64_t n = 0;
		size_t k = (gpu ? 9 : 8) + (mem ? 1 : 0), met = 0;

		for (size_t j = 0; j < 12; j++)
			cells[j] = c[j];
		gp_value_get_int(gp_obj_get(s, "n"), &n);
		cells[0] = str_or(s, "name", "");
		snprintf(c[1], sizeof(c[1]), "%lld", (long long)n);
		gp__fmt_dur_like(c[2], sizeof(c[2]), ref, ref, 0);
		/* one iteration has no σ */
		snprintf(c[3], sizeof(c[3]), n == 1 ? "%s" : "%s ± %s",
		         gp__fmt_dur_like(a, sizeof(a), num(st, "mean_ns"), ref, 0),
		         gp__fmt_dur_like(b, sizeof(b), num(st, "std_ns"), ref, 0));
		gp__fmt_dur_like(c[4], sizeof(c[4]), num(st, "p95_ns"), ref, 0);
		gp__fmt_dur_like(c[5], sizeof(c[5]), num(st, "p99_ns"), ref, 0);
		gp__fmt_dur_like(c[6], sizeof(c[6]), num(st, "min_ns"), ref, 0);
		rate_text(c[7], sizeof(c[7]), num(s, "throughput/items_per_s"),
		          str_or(gp_obj_get(s, "throughput"), "rate_name", "items/s"));
		if (gpu && gp_value_type(gs) == GP_VALUE_OBJECT)
			gp__fmt_dur_like(c[8], sizeof(c[8]), num(gs, "median_ns"), ref, 0);
		else if (gpu)
			cells[8] = "-"; /* another series has GPU time */
		if (mem)
			gp__fmt_bytes(c[kmem], sizeof(c[0]), num(s, "memory_stats/mean_bytes"), 0);
		if (rel)
			relative_cell(c[k++], sizeof(c[0]), gp_obj_get(s, "relative"));
		if (targets) {
			for (size_t j = 0; j < gp_value_len(ts); j++)
				met += strcmp(str_or(gp_arr_get(ts, j), "status", ""), "met") == 0;
			snprintf(c[k], sizeof(c[k]), "%s %zu/%zu met",
			         met == gp_value_len(ts) ? "✓" : "✗", met, gp_value_len(ts));
			k++;
		}
		grid_row(&g, cells);
	}
	grid_draw(o, &g, NULL, true);
}

/* the targets of every series: series, metric, value, target, status */
static void md_targets(struct gp__out *o, const struct gp_value *series)
{
	static const char *const heads[] = { "series", "metric", "value", "target", "status" };
	static const unsigned flags[] = { GP__COL_LEFT, GP__COL_LEFT, 0, GP__COL_LEFT,
		                          GP__COL_LEFT };
	struct grid g;

	grid_init(&g, heads, flags, 5);
	for (size_t i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i), *ts = gp_obj_get(s, "targets");

		for (size_t j = 0; j < gp_value_len(ts); j++) {
			char c[4][48];
			const char *cells[5] = { str_or(s, "name", ""), c[0], c[1], c[2], c[3] };

			target_cells(s, gp_arr_get(ts, j), true, c);
			grid_row(&g, cells);
		}
	}
	gp__out_addf(o, "\n");
	grid_draw(o, &g, NULL, true);
}

GP_API int gp_bench_format(const struct gp_value *result, enum gp_bench_format fmt, char **out,
                           size_t *len)
{
	const struct gp_value *series = gp_obj_get(result, "series");
	struct gp__out o = { GP_BUF_INIT, 0 };
	bool md = fmt == GP_BENCH_MARKDOWN;
	bool rel = gp_value_type(gp_obj_get(result, "fastest")) == GP_VALUE_OBJECT;
	bool targets = gp_value_len(gp_obj_get(result, "targets")) > 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (gp_value_type(series) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "not a bench result: no \"series\" list");
	if (md) {
		md_table(&o, series, rel, targets);
		if (targets)
			md_targets(&o, series);
	} else {
		for (size_t i = 0; i < gp_value_len(series); i++) {
			if (i)
				gp__out_addf(&o, "\n");
			text_series(&o, gp_arr_get(series, i));
		}
	}
	if (rel)
		comparison(&o, result, md);
	sweeps(&o, result, md);
	if (md) {
		for (size_t i = 0, nw = 0; i < gp_value_len(series); i++) {
			const struct gp_value *w = gp_obj_get(gp_arr_get(series, i), "warnings");

			for (size_t k = 0; k < gp_value_len(w); k++, nw++) {
				gp__out_addf(&o, "%s> **warning** (", nw ? "" : "\n");
				md_text(&o, gp_value_get_str(
				                gp_obj_get(gp_arr_get(series, i), "name")));
				gp__out_addf(&o, "): ");
				md_text(&o, gp_value_get_str(gp_obj_get(gp_arr_get(w, k), "text")));
				gp__out_addf(&o, "\n");
			}
		}
	}
	return gp__out_detach(&o, out, len);
}

GP_API int gp_bench_text(const struct gp_bench *b, enum gp_bench_format fmt, char **out,
                         size_t *len)
{
	struct gp_value *r;
	int rc;

	*out = NULL;
	if ((rc = gp_bench_result(b, &r)))
		return rc;
	rc = gp_bench_format(r, fmt, out, len);
	gp_value_free(r);
	return rc;
}
