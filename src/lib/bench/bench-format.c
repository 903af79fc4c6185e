/* SPDX-License-Identifier: MIT */
/*
 * bench-format.c - a bench result ("gpuprof.bench/1" tree) as a table for
 * people: plain text (a block per series, as hyperfine prints) or Markdown
 * (one row per series, for a pull-request comment). Reads only the tree,
 * so a result read back from a file prints as it did when it was made.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/bench.h"
#include "util/buf.h"
#include "util/error.h"
#include "text/text.h"

static double num(const struct gp_value *o, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(o, key), &d) ? d : NAN;
}

static const char *fmt_ns(char *buf, size_t n, double ns)
{
	return gp__fmt_dur(buf, n, ns, 0);
}

static const char *fmt_bytes(char *buf, size_t n, double b)
{
	return gp__fmt_bytes(buf, n, b, 0);
}

static void text_stats(struct gp__out *o, const char *label, const struct gp_value *st, bool bytes)
{
	const char *u = bytes ? "bytes" : "ns";
	char k[40], a[32], b[32], c[32], d[32], e[32];
	const struct gp_value *ci;
	double lo = NAN, hi = NAN;

#define S(x)      (snprintf(k, sizeof(k), "%s_%s", x, u), num(st, k))
#define F(buf, v) (bytes ? fmt_bytes(buf, sizeof(buf), v) : fmt_ns(buf, sizeof(buf), v))
	snprintf(k, sizeof(k), "median_ci_%s", u);
	ci = gp_obj_get(st, k);
	gp_value_get_double(gp_arr_get(ci, 0), &lo);
	gp_value_get_double(gp_arr_get(ci, 1), &hi);
	gp__out_addf(o, "  %-7s median %s", label, F(a, S("median")));
	if (isfinite(lo))
		gp__out_addf(o, "  [95%% CI %s .. %s]", F(b, lo), F(c, hi));
	gp__out_addf(o, "   mean %s +/- %s\n", F(a, S("mean")), F(d, S("std")));
	gp__out_addf(o, "  %-7s min %s  p90 %s  p95 %s  p99 %s  max %s\n", "", F(a, S("min")),
	             F(b, S("p90")), F(c, S("p95")), F(d, S("p99")), F(e, S("max")));
#undef S
#undef F
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
	gp__out_addf(o, "%s  (%lld iterations, %lld warm-up)\n", name ? name : "?", (long long)n,
	             (long long)warm);
	text_stats(o, "time", gp_obj_get(s, "stats"), false);
	if (gp_value_type(gp_obj_get(s, "gpu_stats")) == GP_VALUE_OBJECT) {
		double share = num(s, "gpu_share");

		text_stats(o, "gpu", gp_obj_get(s, "gpu_stats"), false);
		if (isfinite(share))
			gp__out_addf(o,
			             "  %-7s GPU time is %.0f %% of an iteration's (median): %s\n",
			             "", share * 100,
			             share >= 0.9   ? "GPU-bound"
			             : share >= 0.5 ? "partly host-bound"
			                            : "host-bound, the GPU waits for the CPU");
	}
	if (gp_value_type(gp_obj_get(s, "memory_stats")) == GP_VALUE_OBJECT)
		text_stats(o, "memory", gp_obj_get(s, "memory_stats"), true);
	gp__out_addf(o, "  %-7s %s %s", "rate", gp__fmt_rate(a, sizeof(a), num(tp, "items_per_s")),
	             rate ? rate : "items/s");
	if (batch != 1)
		gp__out_addf(o, "  (batch %g, %s iterations/s)", batch,
		             gp__fmt_rate(b, sizeof(b), num(tp, "iterations_per_s")));
	gp__out_addf(o, "\n");
	for (size_t i = 0; i < gp_value_len(w); i++) {
		const char *t = gp_value_get_str(gp_obj_get(gp_arr_get(w, i), "text"));

		gp__out_addf(o, "  warning: %s\n", t ? t : "?");
	}
}

/* the Markdown table: one row per series */
static const struct gp__col md_cols[] = {
	{ .head = "series", .flags = GP__COL_LEFT },
	{ .head = "n" },
	{ .head = "median" },
	{ .head = "mean ± σ" },
	{ .head = "p95" },
	{ .head = "p99" },
	{ .head = "min" },
	{ .head = "rate" },
	{ .head = "GPU median" },
};
static const struct gp__table md_table = { md_cols, 9, NULL, true };

static void md_series(struct gp__out *o, const struct gp_value *s)
{
	const struct gp_value *st = gp_obj_get(s, "stats"), *tp = gp_obj_get(s, "throughput");
	const struct gp_value *gs = gp_obj_get(s, "gpu_stats");
	const char *rate = gp_value_get_str(gp_obj_get(tp, "rate_name"));
	int64_t n = 0;
	char c[9][48], a[32], b[32];
	const char *cells[9];

	gp_value_get_int(gp_obj_get(s, "n"), &n);
	cells[0] = gp_value_get_str(gp_obj_get(s, "name"));
	if (!cells[0])
		cells[0] = "";
	snprintf(c[1], sizeof(c[1]), "%lld", (long long)n);
	cells[1] = c[1];
	cells[2] = fmt_ns(c[2], sizeof(c[2]), num(st, "median_ns"));
	snprintf(c[3], sizeof(c[3]), "%s ± %s", fmt_ns(a, sizeof(a), num(st, "mean_ns")),
	         fmt_ns(b, sizeof(b), num(st, "std_ns")));
	cells[3] = c[3];
	cells[4] = fmt_ns(c[4], sizeof(c[4]), num(st, "p95_ns"));
	cells[5] = fmt_ns(c[5], sizeof(c[5]), num(st, "p99_ns"));
	cells[6] = fmt_ns(c[6], sizeof(c[6]), num(st, "min_ns"));
	snprintf(c[7], sizeof(c[7]), "%s %s", gp__fmt_rate(a, sizeof(a), num(tp, "items_per_s")),
	         rate ? rate : "items/s");
	cells[7] = c[7];
	cells[8] = gp_value_type(gs) == GP_VALUE_OBJECT
	               ? fmt_ns(c[8], sizeof(c[8]), num(gs, "median_ns"))
	               : "-";
	gp__out_keep(o, gp__table_cells(&o->b, &md_table, cells));
}

static void md_text(struct gp__out *o, const char *s)
{
	gp__out_keep(o, gp__text_md_cell(&o->b, s ? s : "", false));
}

GP_API int gp_bench_format(const struct gp_value *result, enum gp_bench_format fmt, char **out,
                           size_t *len)
{
	const struct gp_value *series = gp_obj_get(result, "series");
	struct gp__out o = { GP_BUF_INIT, 0 };

	*out = NULL;
	if (len)
		*len = 0;
	if (gp_value_type(series) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "not a bench result: no \"series\" list");
	if (fmt == GP_BENCH_MARKDOWN)
		gp__out_keep(&o, gp__table_head(&o.b, &md_table));
	for (size_t i = 0; i < gp_value_len(series); i++) {
		if (fmt == GP_BENCH_MARKDOWN) {
			md_series(&o, gp_arr_get(series, i));
		} else {
			if (i)
				gp__out_addf(&o, "\n");
			text_series(&o, gp_arr_get(series, i));
		}
	}
	if (fmt == GP_BENCH_MARKDOWN) {
		for (size_t i = 0; i < gp_value_len(series); i++) {
			const struct gp_value *w = gp_obj_get(gp_arr_get(series, i), "warnings");

			for (size_t k = 0; k < gp_value_len(w); k++) {
				gp__out_addf(&o, "%s> **warning** (", i + k ? "" : "\n");
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
