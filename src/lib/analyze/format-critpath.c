/* SPDX-License-Identifier: MIT */
/*
 * format-critpath.c - the text of the "critical_path" section (gp_analyze_format()).
 *
 * "Critical path": what bounds the steps (the shares of the path over all
 * of them), one row per step (or, past a few steps, their mean and the
 * longest step), and the CPU ops and kernels with the most time on the
 * longest step's path. Nothing when the section is absent or null; one line
 * with the reason when the path is not available.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format-sections.h"

/* up to this many steps one row each; more: the mean and the longest */
#define STEP_ROWS 4
/* rows of each top list */
#define TOP_ROWS 5

static const char *const cats[] = { "cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
	                            "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead" };

/* a share of the path: member c->key of the row's bound_by_pct */
static const char *cell_bound(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	double d = NAN;

	if (!gp_value_get_double(gp_obj_get(gp_obj_get(row, "bound_by_pct"), c->key), &d))
		d = NAN;
	return gp__fmt_pct(buf, n, d, 0);
}

/* the step's name; "mean" rows and the whole trace have none */
static const char *cell_step(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	const char *s = gp_value_get_str(gp_obj_get(row, c->key));

	(void)buf;
	(void)n;
	return s ? s : "whole trace";
}

static void keep(struct gp__out *o, int rc)
{
	gp__out_keep(o, rc);
}

static void rows(struct gp__out *o, const struct gp__table *t, const void *const *r, size_t n)
{
	keep(o, gp__table_head(&o->b, t));
	keep(o, gp__table_rows(&o->b, t, r, n));
}

/* the mean over the steps, as a row object of the same shape (freed by the caller) */
static struct gp_value *mean_row(const struct gp_value *cp, size_t nsteps)
{
	struct gp_value *m = gp_value_object(), *pct = gp_value_object();
	const struct gp_value *tot = gp_obj_get(cp, "total");
	int64_t path = 0;
	double v;
	size_t k;

	if (!m || !pct) {
		gp_value_free(m);
		gp_value_free(pct);
		return NULL;
	}
	gp_value_get_int(gp_obj_get(tot, "path_ns"), &path);
	for (k = 0; k < 5; k++)
		if (gp_value_get_double(gp_obj_get(gp_obj_get(tot, "bound_by_pct"), cats[k]), &v))
			gp_obj_set_double(pct, cats[k], v);
	gp_obj_set_str(m, "step", "mean");
	gp_obj_set_double(m, "path_ns", (double)path / (double)nsteps);
	gp_obj_set(m, "bound_by_pct", pct);
	return m;
}

static void top(struct gp__out *o, const struct gp__fmt_sec *fs, const struct gp_value *step,
                const char *key, const char *what)
{
	const struct gp_value *l = gp_obj_get(step, key);
	struct gp__col cols[] = {
		{ .head = "on path",
		  .width = 10,
		  .gap = "  ",
		  .cell = gp__cell_dur,
		  .key = "path_ns" },
		{ .head = "count", .width = 6, .gap = " ", .cell = gp__cell_count, .key = "count" },
		{ .head = what,
		  .gap = "  ",
		  .flags = GP__COL_LEFT | GP__COL_NAME,
		  .cell = gp__cell_str,
		  .key = "name" },
	};
	const struct gp__table t = { cols, 3, "  ", false };
	const void *r[TOP_ROWS];
	size_t n = gp_value_len(l), i;
	int w = fs->width - 2 - 12 - 7 - 2;

	if (!n)
		return;
	cols[2].cut = fs->wide ? 0 : (size_t)(w < 20 ? 20 : w);
	if (n > TOP_ROWS)
		n = TOP_ROWS;
	if (fs->top && n > fs->top)
		n = fs->top;
	for (i = 0; i < n; i++)
		r[i] = gp_arr_get(l, i);
	rows(o, &t, r, n);
}

void gp__format_critpath(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs)
{
	const struct gp_value *cp = gp_obj_get(r, "critical_path"), *steps, *longest = NULL;
	struct gp__col cols[] = {
		{ .head = "step",
		  .width = 18,
		  .cut = 18,
		  .flags = GP__COL_LEFT,
		  .cell = cell_step,
		  .key = "step" },
		{ .head = "path", .width = 10, .gap = " ", .cell = gp__cell_dur, .key = "path_ns" },
		{ .head = "cpu", .width = 7, .gap = " ", .cell = cell_bound, .key = cats[0] },
		{ .head = "compute", .width = 8, .gap = " ", .cell = cell_bound, .key = cats[1] },
		{ .head = "comm", .width = 7, .gap = " ", .cell = cell_bound, .key = cats[2] },
		{ .head = "kernel gaps",
		  .width = 11,
		  .gap = " ",
		  .cell = cell_bound,
		  .key = cats[3] },
		{ .head = "launch", .width = 7, .gap = " ", .cell = cell_bound, .key = cats[4] },
	};
	const struct gp__table t = { cols, 7, "  ", false };
	struct gp_value *mean = NULL;
	const void *rs[STEP_ROWS];
	int64_t best = -1, v;
	size_t n, i;
	bool hta;

	if (gp_value_type(cp) != GP_VALUE_OBJECT)
		return;
	hta = gp_value_get_str(gp_obj_get(cp, "compat")) &&
	      !strcmp(gp_value_get_str(gp_obj_get(cp, "compat")), "hta");
	gp__out_addf(o, "\nCritical path%s\n", hta ? " (HTA's step)" : "");
	if (!gp_value_get_bool(gp_obj_get(cp, "available"), false)) {
		const char *why = gp_value_get_str(gp_obj_get(cp, "reason"));

		keep(o, gp__text_wrap(&o->b, "  not available: ", why ? why : "unknown",
		                      (size_t)fs->width, 2, GP__WRAP_RAW));
		return;
	}
	steps = gp_obj_get(cp, "steps");
	n = gp_value_len(steps);
	for (i = 0; i < n; i++)
		if (gp_value_get_int(gp_obj_get(gp_arr_get(steps, i), "path_ns"), &v) && v > best) {
			best = v;
			longest = gp_arr_get(steps, i);
		}
	if (n <= STEP_ROWS) {
		for (i = 0; i < n; i++)
			rs[i] = gp_arr_get(steps, i);
		rows(o, &t, rs, n);
	} else {
		mean = mean_row(cp, n);
		if (!mean) {
			keep(o, GP_ENOMEM);
			return;
		}
		rs[0] = mean;
		rs[1] = longest;
		cols[0].head = "steps (mean, longest)";
		cols[0].width = cols[0].cut = 21;
		rows(o, &t, rs, 2);
		gp_value_free(mean);
	}
	if (n > 1)
		gp__out_addf(o, "  on the path of %s:\n",
		             gp_value_get_str(gp_obj_get(longest, "step"))
		                 ? gp_value_get_str(gp_obj_get(longest, "step"))
		                 : "the longest step");
	top(o, fs, longest, "top_cpu_ops", "CPU op");
	top(o, fs, longest, "top_kernels", "kernel");
}
