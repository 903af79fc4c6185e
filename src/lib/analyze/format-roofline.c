/* SPDX-License-Identifier: MIT */
/*
 * format-roofline.c - the text of the "roofline" section (gp_analyze_format()).
 *
 * Reads only the rank's "roofline" object: the device and its roofs, the
 * share of GPU time the models cover, MFU, and the op shapes with the most
 * headroom in a table. What the section lacks ("missing") is said in words,
 * never filled in. Numbers, cells and the table come from text/.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format-sections.h"
#include "util/buf.h"

/* numbers keep their units; \x1f is a space that does not break (the trace's names are
 * printed by the table, not here) */
#define WRAP (GP__WRAP_GLUE | GP__WRAP_RAW)

static double nv(const struct gp_value *v)
{
	double d;

	return gp_value_get_double(v, &d) ? d : NAN;
}

static const char *sv(const struct gp_value *v, const char *dflt)
{
	const char *s = gp_value_get_str(v);

	return s ? s : dflt;
}

/* @p s (a number and its unit, in a buffer of ours) with spaces the wrap keeps */
static const char *glue(const char *s)
{
	char *p;

	for (p = (char *)s; *p; p++)
		if (*p == ' ')
			*p = '\x1f';
	return s;
}

/* 8.198 GFLOP: three decimals and an SI prefix */
static const char *si(char *buf, size_t n, double v, const char *unit)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P", "E" };
	size_t k = 0;

	if (!isfinite(v))
		return "-";
	while (fabs(v) >= 1000 && k + 1 < sizeof(pre) / sizeof(pre[0])) {
		v /= 1000;
		k++;
	}
	snprintf(buf, n, "%.4g\x1f%s%s", v, pre[k], unit); /* \x1f: a space the wrap keeps */
	return buf;
}

/* "[[512], [141, 512], [], []]" as "[512],[141,512]": no spaces, no empty trailing inputs */
static const char *compact_dims(char *buf, size_t n, const char *s)
{
	size_t o = 0, len;
	const char *p;

	if (!s || !*s)
		return "-";
	p = s;
	if (*p == '[')
		p++;
	for (; *p && o + 1 < n; p++)
		if (*p != ' ')
			buf[o++] = *p;
	buf[o] = '\0';
	if (o && buf[o - 1] == ']' && s[0] == '[')
		buf[--o] = '\0';
	/* drop trailing ",[]" */
	for (len = strlen(buf); len >= 3 && strcmp(buf + len - 3, ",[]") == 0; len -= 3)
		buf[len - 3] = '\0';
	return buf;
}

static const char *cell_shape(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return compact_dims(buf, n, gp_value_get_str(gp_obj_get(row, c->key)));
}

static const char *cell_rate(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	double v = nv(gp_obj_get(row, c->key));

	/* three significant digits at most; the JSON has the exact figure */
	if (v > 0 && v < 0.01)
		return "<0.01";
	if (v >= 1e5) { /* only hostile shapes or a peak option far too low get here */
		snprintf(buf, n, "%.0e", v);
		return buf;
	}
	return gp__fmt_num(buf, n, v, v >= 100 ? 0 : v >= 10 ? 1 : 2, "");
}

/* a share of the roofline under 0.05 % is not 0.0 %: the JSON's (0, 100] holds no zero */
static const char *cell_roof_pct(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	double v = nv(gp_obj_get(row, c->key));

	if (v > 0 && v < 0.05)
		return "<0.1%";
	return gp__fmt_pct(buf, n, v, 0);
}

/* a percentage; one past 10^4 (MFU against a --peak-tflops far too low) in three digits */
static const char *big_pct(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1e4) {
		snprintf(buf, n, "%.3g%%", v);
		return buf;
	}
	return gp__fmt_pct(buf, n, v, 0);
}

static void device_line(struct gp__out *o, const struct gp_value *d, int width)
{
	static const char *const keys[] = { "bf16", "fp16", "fp8", "int8", "tf32", "fp32", "fp64" };
	const struct gp_value *pk = gp_obj_get(d, "peak_tflops");
	const char *matched = gp_value_get_str(gp_obj_get(d, "matched"));
	const char *src = sv(gp_obj_get(d, "source"), "");
	struct gp_buf b = GP_BUF_INIT;
	char nb[32];
	size_t k;
	bool any = false, tbps;

	gp__buf_addf(&b, "%s", sv(gp_obj_get(d, "name"), "GPU not described by the trace"));
	if (matched)
		gp__buf_addf(&b, " = %s", matched);
	if (strcmp(src, "option") == 0)
		gp__buf_addf(&b, " (peaks from --peak-tflops/--peak-tbps)");
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		double v = nv(gp_obj_get(pk, keys[k]));

		if (isnan(v))
			continue;
		gp__buf_addf(&b, "%s%s %s", any ? ", " : ": ", keys[k],
		             gp__fmt_rate(nb, sizeof(nb), v));
		any = true;
	}
	if (any)
		gp__buf_addf(&b, " TFLOP/s");
	tbps = !isnan(nv(gp_obj_get(d, "peak_tbps")));
	if (tbps)
		gp__buf_addf(&b, "%s%s\x1fTB/s", any ? "; " : ": ",
		             gp__fmt_rate(nb, sizeof(nb), nv(gp_obj_get(d, "peak_tbps"))));
	/* why there are no peaks: a GPU the table lacks, or none described at all */
	if (!any && !matched)
		gp__buf_addf(
		    &b, "%s (%s%s)", tbps ? "; no TFLOP/s peaks" : ": no peaks",
		    gp_value_get_str(gp_obj_get(d, "name")) ? "not in gpuprof's table of GPUs; "
		                                            : "",
		    tbps ? "--peak-tflops gives them" : "--peak-tflops and --peak-tbps give them");
	gp__out_keep(o, gp__text_wrap(&o->b, "  device    ", b.buf, (size_t)width, 12, WRAP));
	gp__buf_release(&b);
}

static void missing_line(struct gp__out *o, const struct gp_value *m, int width)
{
	struct gp_buf b = GP_BUF_INIT;
	size_t k;

	for (k = 0; k < gp_value_len(m); k++) {
		const char *s = sv(gp_arr_get(m, k), "?");

		if (k)
			gp__buf_addf(&b, "; ");
		if (strcmp(s, "shapes") == 0)
			gp__buf_addf(
			    &b,
			    "shapes: the ops carry no Input Dims (record them with "
			    "torch.profiler.profile(record_shapes=True)), so no op has a model");
		else if (strcmp(s, "deviceProperties") == 0)
			gp__buf_addf(
			    &b, "deviceProperties: the trace does not say which GPU ran it, so "
			        "there are no peaks, roofline %% nor headroom");
		else if (strcmp(s, "dtypes") == 0)
			gp__buf_addf(
			    &b, "dtypes: the ops' sizes come without their types (a capture's "
			        "op ranges), so bytes, roofline %% and headroom are unknown and "
			        "only GEMMs have a model");
		else if (strcmp(s, "gpu not in table") == 0)
			gp__buf_addf(&b, "gpu not in table: its peaks are unknown, so there are no "
			                 "roofline %% nor headroom (--peak-tflops, --peak-tbps)");
		else
			gp__buf_addf(&b, "%s", s);
	}
	if (b.len)
		gp__out_keep(o,
		             gp__text_wrap(&o->b, "  missing   ", b.buf, (size_t)width, 12, WRAP));
	gp__buf_release(&b);
}

void gp__format_roofline(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs)
{
	const struct gp_value *rl = gp_obj_get(r, "roofline"), *ops;
	char b1[48], b2[48], b3[48], b4[48], line[256];
	size_t n, k, avail, wname, wshape, fixed;
	bool narrow;
	double cov, mfu;

	if (gp_value_type(rl) != GP_VALUE_OBJECT)
		return;
	gp__out_addf(o, "\nRoofline\n");
	device_line(o, gp_obj_get(rl, "device"), fs->width);
	missing_line(o, gp_obj_get(rl, "missing"), fs->width);
	cov = nv(gp_obj_get(rl, "coverage_pct"));
	snprintf(line, sizeof(line), "%s of the ops' GPU time (%s of %s) has a model; %s",
	         gp__fmt_pct(b1, sizeof(b1), cov, 0),
	         glue(gp__fmt_dur(b2, sizeof(b2), nv(gp_obj_get(rl, "modeled_gpu_time_ns")), 0)),
	         glue(gp__fmt_dur(b3, sizeof(b3), nv(gp_obj_get(rl, "gpu_time_ns")), 0)),
	         si(b4, sizeof(b4), nv(gp_obj_get(rl, "model_flops")), "FLOP"));
	gp__out_keep(o, gp__text_wrap(&o->b, "  coverage  ", line, (size_t)fs->width, 12, WRAP));
	mfu = nv(gp_obj_get(rl, "mfu_pct"));
	if (!isnan(mfu))
		snprintf(line, sizeof(line), "%s of the peak over the GPU window (%s)",
		         big_pct(b1, sizeof(b1), mfu),
		         glue(gp__fmt_dur(b2, sizeof(b2), nv(gp_obj_get(rl, "mfu_window_ns")), 0)));
	else
		snprintf(line, sizeof(line), "- (%s)",
		         isnan(nv(gp_value_path(rl, "device/peak_tflops/fp32")))
		             ? "no peaks for this GPU"
		         : !(cov >= 50) ? "the models cover less than half of the GPU time"
		                        : "an op's data type has no peak on this GPU");
	gp__out_keep(o, gp__text_wrap(&o->b, "  MFU       ", line, (size_t)fs->width, 12, WRAP));
	ops = gp_obj_get(rl, "ops");
	n = gp_value_len(ops);
	if (!n)
		return;
	if (fs->top && n > fs->top)
		n = fs->top;
	/*
	 * The numbers take 58 columns, the indent and gaps 4: names and shapes share the rest.
	 * Under 80 columns TB/s and bound (15 columns; --json has them) make room, so that the
	 * table fits 60.
	 */
	narrow = !fs->wide && fs->width < 80;
	fixed = narrow ? 62 - 15 : 62;
	avail = (size_t)fs->width > fixed + 13 ? (size_t)fs->width - fixed : 13;
	wname = fs->wide ? 0 : avail * 11 / 20;
	wshape = fs->wide ? 0 : avail - wname;
	{
		const struct gp__col cols[] = {
			{ .head = "op",
			  .width = wname,
			  .cut = wname,
			  .flags = GP__COL_LEFT | GP__COL_NAME,
			  .cell = gp__cell_str,
			  .key = "name" },
			{ .head = "shape",
			  .width = wshape,
			  .cut = wshape,
			  .gap = "  ",
			  .flags = GP__COL_LEFT,
			  .cell = cell_shape,
			  .key = "input_dims" },
			{ .head = "count",
			  .width = 5,
			  .gap = " ",
			  .cell = gp__cell_count,
			  .key = "count" },
			{ .head = "time",
			  .width = 9,
			  .gap = " ",
			  .cell = gp__cell_dur,
			  .key = "gpu_time_ns" },
			{ .head = "TFLOP/s",
			  .width = 7,
			  .gap = " ",
			  .cell = cell_rate,
			  .key = "achieved_tflops" },
			{ .head = "TB/s",
			  .width = 6,
			  .gap = " ",
			  .cell = cell_rate,
			  .key = "achieved_tbps" },
			{ .head = "bound",
			  .width = 7,
			  .gap = " ",
			  .flags = GP__COL_LEFT,
			  .cell = gp__cell_str,
			  .key = "bound" },
			{ .head = "roofline",
			  .width = 8,
			  .gap = " ",
			  .cell = cell_roof_pct,
			  .key = "roofline_pct" },
			{ .head = "headroom",
			  .width = 9,
			  .gap = " ",
			  .cell = gp__cell_dur,
			  .key = "headroom_ns" },
		};
		struct gp__col use[sizeof(cols) / sizeof(cols[0])];
		const struct gp__table t = { use, 0, "  ", false };
		struct gp__table tt = t;
		const void *rows[256];

		for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
			if (!narrow ||
			    (strcmp(cols[k].head, "TB/s") && strcmp(cols[k].head, "bound")))
				use[tt.n++] = cols[k];

		if (n > sizeof(rows) / sizeof(rows[0]))
			n = sizeof(rows) / sizeof(rows[0]);
		for (k = 0; k < n; k++)
			rows[k] = gp_arr_get(ops, k);
		gp__out_keep(o, gp__table_head(&o->b, &tt));
		gp__out_keep(o, gp__table_rows(&o->b, &tt, rows, n));
		if (gp_value_len(ops) > n)
			gp__out_addf(o, "  … %zu more op shapes (--json has them all)\n",
			             gp_value_len(ops) - n);
	}
}
