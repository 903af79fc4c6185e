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
#include "util/fmt.h"

static double num(const struct gp_value *o, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(o, key), &d) ? d : NAN;
}

static const char *fmt_ns(char *buf, size_t n, double ns)
{
	return gp__fmt_ns(buf, n, ns, false);
}

static const char *fmt_bytes(char *buf, size_t n, double b)
{
	return gp__fmt_bytes(buf, n, b);
}

static const char *fmt_rate(char *buf, size_t n, double r)
{
	if (!isfinite(r))
		snprintf(buf, n, "-");
	else if (r >= 100)
		snprintf(buf, n, "%.1f", r);
	else
		snprintf(buf, n, "%.3g", r);
	return buf;
}

struct out {
	struct gp_buf b;
	int rc;
};

static void put(struct out *o, const char *fmt, ...) GP_PRINTF(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->rc)
		return;
	va_start(ap, fmt);
	o->rc = gp_buf_vaddf(&o->b, fmt, ap);
	va_end(ap);
}

static void text_stats(struct out *o, const char *label, const struct gp_value *st, bool bytes)
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
	put(o, "  %-7s median %s", label, F(a, S("median")));
	if (isfinite(lo))
		put(o, "  [95%% CI %s .. %s]", F(b, lo), F(c, hi));
	put(o, "   mean %s +/- %s\n", F(a, S("mean")), F(d, S("std")));
	put(o, "  %-7s min %s  p90 %s  p95 %s  p99 %s  max %s\n", "", F(a, S("min")),
	    F(b, S("p90")), F(c, S("p95")), F(d, S("p99")), F(e, S("max")));
#undef S
#undef F
}

static void text_series(struct out *o, const struct gp_value *s)
{
	const struct gp_value *tp = gp_obj_get(s, "throughput"), *w = gp_obj_get(s, "warnings");
	const char *name = gp_value_get_str(gp_obj_get(s, "name"));
	const char *rate = gp_value_get_str(gp_obj_get(tp, "rate_name"));
	int64_t n = 0, warm = 0;
	double batch = num(s, "batch_size");
	char a[32], b[32];

	gp_value_get_int(gp_obj_get(s, "n"), &n);
	gp_value_get_int(gp_obj_get(s, "warmup"), &warm);
	put(o, "%s  (%lld iterations, %lld warm-up)\n", name ? name : "?", (long long)n,
	    (long long)warm);
	text_stats(o, "time", gp_obj_get(s, "stats"), false);
	if (gp_value_type(gp_obj_get(s, "gpu_stats")) == GP_VALUE_OBJECT) {
		double share = num(s, "gpu_share");

		text_stats(o, "gpu", gp_obj_get(s, "gpu_stats"), false);
		if (isfinite(share))
			put(o, "  %-7s GPU time is %.0f %% of an iteration's (median): %s\n", "",
			    share * 100,
			    share >= 0.9   ? "GPU-bound"
			    : share >= 0.5 ? "partly host-bound"
			                   : "host-bound, the GPU waits for the CPU");
	}
	if (gp_value_type(gp_obj_get(s, "memory_stats")) == GP_VALUE_OBJECT)
		text_stats(o, "memory", gp_obj_get(s, "memory_stats"), true);
	put(o, "  %-7s %s %s", "rate", fmt_rate(a, sizeof(a), num(tp, "items_per_s")),
	    rate ? rate : "items/s");
	if (batch != 1)
		put(o, "  (batch %g, %s iterations/s)", batch,
		    fmt_rate(b, sizeof(b), num(tp, "iterations_per_s")));
	put(o, "\n");
	for (size_t i = 0; i < gp_value_len(w); i++) {
		const char *t = gp_value_get_str(gp_obj_get(gp_arr_get(w, i), "text"));

		put(o, "  warning: %s\n", t ? t : "?");
	}
}

/* a Markdown cell: '|' and newlines would break the table */
static void md_cell(struct out *o, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			put(o, "\\|");
		else if (*s == '\n' || *s == '\r')
			put(o, " ");
		else
			put(o, "%c", *s);
	}
}

static void md_series(struct out *o, const struct gp_value *s)
{
	const struct gp_value *st = gp_obj_get(s, "stats"), *tp = gp_obj_get(s, "throughput");
	const struct gp_value *gs = gp_obj_get(s, "gpu_stats");
	const char *rate = gp_value_get_str(gp_obj_get(tp, "rate_name"));
	int64_t n = 0;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[32];

	gp_value_get_int(gp_obj_get(s, "n"), &n);
	put(o, "| ");
	md_cell(o, gp_value_get_str(gp_obj_get(s, "name")));
	put(o, " | %lld | %s | %s ± %s | %s | %s | %s | %s %s | %s |\n", (long long)n,
	    fmt_ns(a, sizeof(a), num(st, "median_ns")), fmt_ns(b, sizeof(b), num(st, "mean_ns")),
	    fmt_ns(c, sizeof(c), num(st, "std_ns")), fmt_ns(d, sizeof(d), num(st, "p95_ns")),
	    fmt_ns(e, sizeof(e), num(st, "p99_ns")), fmt_ns(f, sizeof(f), num(st, "min_ns")),
	    fmt_rate(g, sizeof(g), num(tp, "items_per_s")), rate ? rate : "items/s",
	    gp_value_type(gs) == GP_VALUE_OBJECT ? fmt_ns(h, sizeof(h), num(gs, "median_ns"))
	                                         : "-");
}

GP_API int gp_bench_format(const struct gp_value *result, enum gp_bench_format fmt, char **out,
                           size_t *len)
{
	const struct gp_value *series = gp_obj_get(result, "series");
	struct out o;

	*out = NULL;
	if (len)
		*len = 0;
	if (gp_value_type(series) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "not a bench result: no \"series\" list");
	memset(&o, 0, sizeof(o));
	gp_buf_init(&o.b, 0);
	if (fmt == GP_BENCH_MARKDOWN)
		put(&o, "| series | n | median | mean ± σ | p95 | p99 | min | rate | GPU median "
		        "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < gp_value_len(series); i++) {
		if (fmt == GP_BENCH_MARKDOWN) {
			md_series(&o, gp_arr_get(series, i));
		} else {
			if (i)
				put(&o, "\n");
			text_series(&o, gp_arr_get(series, i));
		}
	}
	if (fmt == GP_BENCH_MARKDOWN) {
		for (size_t i = 0; i < gp_value_len(series); i++) {
			const struct gp_value *w = gp_obj_get(gp_arr_get(series, i), "warnings");

			for (size_t k = 0; k < gp_value_len(w); k++) {
				put(&o, "%s> **warning** (", i + k ? "" : "\n");
				md_cell(&o, gp_value_get_str(
				                gp_obj_get(gp_arr_get(series, i), "name")));
				put(&o, "): ");
				md_cell(&o, gp_value_get_str(gp_obj_get(gp_arr_get(w, k), "text")));
				put(&o, "\n");
			}
		}
	}
	if (o.rc) {
		gp_buf_release(&o.b);
		return o.rc;
	}
	if (!(*out = gp_buf_detach(&o.b, len)))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
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
