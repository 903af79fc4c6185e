/* SPDX-License-Identifier: MIT */
/*
 * format-memory.c - the text of the memory section's lifetimes
 * (gp_analyze_format(), after format.c's device table): per device the
 * steps' peaks and ends (the curve in a table), what was live at the peak
 * by op, what was never freed by op (allocations made before the first
 * step apart), and the leak test's verdict. Reads only the rank's "memory"
 * object; numbers, cells and tables come from text/.
 */
#include <stdio.h>
#include <string.h>

#include "format-sections.h"

/* steps shown one row each; more: the first and the last STEP_ROWS / 2 */
#define STEP_ROWS 10
/* rows of the per-op tables */
#define OP_ROWS 8

static void keep(struct gp__out *o, int rc)
{
	gp__out_keep(o, rc);
}

/* the op of a row; allocations outside any op have none */
static const char *cell_op(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	const char *s = gp_value_get_str(gp_obj_get(row, c->key));

	(void)buf;
	(void)n;
	return s ? s : "(outside any op)";
}

/* "ProfilerStep#1 .. ProfilerStep#6", one name when they are the same */
static const char *cell_steps(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	const char *a = gp_value_get_str(gp_obj_get(row, "first_step"));
	const char *b = gp_value_get_str(gp_obj_get(row, "last_step"));

	(void)c;
	if (!a || !b)
		return a ? a : b ? b : "-";
	if (!strcmp(a, b))
		return a;
	snprintf(buf, n, "%s .. %s", a, b);
	return buf;
}

static size_t rows_of(const struct gp_value *arr, const struct gp__fmt_sec *fs, size_t max,
                      const void **r)
{
	size_t n = gp_value_len(arr), i;

	if (n > max)
		n = max;
	if (fs->top && n > fs->top)
		n = fs->top;
	for (i = 0; i < n; i++)
		r[i] = gp_arr_get(arr, i);
	return n;
}

/* a table of the ops of group @p g ({ops, rows}): bytes, allocations, [steps], op */
static void op_table(struct gp__out *o, const struct gp__fmt_sec *fs, const struct gp_value *g,
                     bool steps)
{
	const struct gp_value *rows = gp_obj_get(g, "rows");
	int64_t nops = 0;
	struct gp__col cols[] = {
		{ .head = "bytes", .width = 10, .cell = gp__cell_bytes, .key = "bytes" },
		{ .head = "allocs",
		  .width = 7,
		  .gap = " ",
		  .cell = gp__cell_count,
		  .key = "allocations" },
		{ .head = "made in",
		  .width = 34,
		  .cut = 34,
		  .gap = "  ",
		  .flags = GP__COL_LEFT,
		  .cell = cell_steps },
		{ .head = "op",
		  .gap = "  ",
		  .flags = GP__COL_LEFT | GP__COL_NAME,
		  .cell = cell_op,
		  .key = "op" },
	};
	struct gp__table t = { cols, 4, "    ", false };
	const void *r[OP_ROWS];
	size_t n = rows_of(rows, fs, OP_ROWS, r), made = 34;
	int w;

	if (!n)
		return;
	/* a narrow terminal: the steps' column gives way first, to 16 columns */
	if (steps && fs->width < 4 + 10 + 8 + 2 + 36 + 20)
		made = fs->width - (4 + 10 + 8 + 2 + 2 + 20) < 16
		           ? 16
		           : (size_t)fs->width - (4 + 10 + 8 + 2 + 2 + 20);
	cols[2].width = cols[2].cut = made;
	w = fs->width - 4 - 10 - 8 - 2 - (steps ? (int)made + 2 : 0);
	if (!steps) {
		cols[2] = cols[3];
		t.n = 3;
	}
	cols[t.n - 1].cut = fs->wide ? 0 : (size_t)(w < 12 ? 12 : w);
	keep(o, gp__table_head(&o->b, &t));
	keep(o, gp__table_rows(&o->b, &t, r, n));
	if (gp_value_get_int(gp_obj_get(g, "ops"), &nops) && (size_t)nops > n)
		gp__out_addf(o, "    ... %zu more ops\n", (size_t)nops - n);
}

static void steps_table(struct gp__out *o, const struct gp_value *sg)
{
	static const struct gp__col cols[] = {
		{ .head = "step",
		  .width = 20,
		  .cut = 20,
		  .flags = GP__COL_LEFT,
		  .cell = gp__cell_str,
		  .key = "step" },
		{ .head = "peak",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_bytes,
		  .key = "peak_allocated_bytes" },
		{ .head = "at end",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_bytes,
		  .key = "allocated_at_end_bytes" },
	};
	const struct gp__table t = { cols, 3, "    ", false };
	const void *r[STEP_ROWS + 1];
	size_t n = gp_value_len(sg), i, k = 0;

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		if (n > STEP_ROWS && i == STEP_ROWS / 2)
			i = n - STEP_ROWS / 2;
		r[k++] = gp_arr_get(sg, i);
	}
	keep(o, gp__table_head(&o->b, &t));
	if (n > STEP_ROWS) {
		keep(o, gp__table_rows(&o->b, &t, r, STEP_ROWS / 2));
		gp__out_addf(o, "    ... %zu steps\n", n - STEP_ROWS);
		keep(o, gp__table_rows(&o->b, &t, r + STEP_ROWS / 2, STEP_ROWS / 2));
	} else {
		keep(o, gp__table_rows(&o->b, &t, r, k));
	}
}

static void leak_line(struct gp__out *o, const struct gp__fmt_sec *fs, const struct gp_value *lk)
{
	const struct gp_value *h = gp_obj_get(lk, "holder");
	int64_t g = 0, steps = 0, held = 0, hs = 0;
	char gb[32], hb[32], line[512];

	if (!gp_value_get_bool(gp_obj_get(lk, "suspect"), false))
		return;
	gp_value_get_int(gp_obj_get(lk, "growth_per_step_bytes"), &g);
	gp_value_get_int(gp_obj_get(lk, "steps_tested"), &steps);
	gp_value_get_int(gp_obj_get(h, "retained_bytes"), &held);
	gp_value_get_int(gp_obj_get(h, "steps"), &hs);
	gp__fmt_bytes(gb, sizeof(gb), (double)g, 0);
	gp__fmt_bytes(hb, sizeof(hb), (double)held, 0);
	if (gp_value_type(h) == GP_VALUE_OBJECT)
		snprintf(line, sizeof(line),
		         "grows by %s a step over %lld steps; %s keeps %s made in %lld of them", gb,
		         (long long)steps,
		         gp_value_get_str(gp_obj_get(h, "op"))
		             ? gp_value_get_str(gp_obj_get(h, "op"))
		             : "code outside any op",
		         hb, (long long)hs);
	else
		snprintf(line, sizeof(line), "grows by %s a step over %lld steps", gb,
		         (long long)steps);
	keep(o, gp__text_wrap(&o->b, "    LEAK: ", line, (size_t)fs->width, 10, GP__WRAP_RAW));
}

static void device(struct gp__out *o, const struct gp__fmt_sec *fs, const struct gp_value *d)
{
	const struct gp_value *pl = gp_obj_get(d, "peak_live"), *u = gp_obj_get(d, "unfreed"), *b;
	int64_t id = 0, v = 0, other = 0;
	char name[32], b1[32], b2[32];

	int64_t has = 0;

	/* nothing to show (no step, nothing live, nothing unfreed, no leak): no heading */
	gp_value_get_int(gp_obj_get(u, "bytes"), &has);
	if (!gp_value_len(gp_obj_get(d, "step_growth")) && !gp_value_len(gp_obj_get(pl, "rows")) &&
	    has <= 0 && !gp_value_get_bool(gp_value_path(d, "leak/suspect"), false))
		return;
	if (gp_value_get_int(gp_obj_get(d, "device"), &id))
		snprintf(name, sizeof(name), "GPU %lld", (long long)id);
	else
		snprintf(name, sizeof(name), "host");
	gp__out_addf(o, "  %s\n", name);
	steps_table(o, gp_obj_get(d, "step_growth"));
	if (gp_value_len(gp_obj_get(pl, "rows"))) {
		gp_value_get_int(gp_obj_get(d, "peak_allocated_bytes"), &v);
		/* the step's name cut as the steps table cuts it */
		gp__out_addf(o, "    live at the peak (%s%s%.20s%s):\n",
		             gp__fmt_bytes(b1, sizeof(b1), (double)v, 0),
		             gp_value_get_str(gp_obj_get(d, "peak_step")) ? " in " : "",
		             gp_value_get_str(gp_obj_get(d, "peak_step"))
		                 ? gp_value_get_str(gp_obj_get(d, "peak_step"))
		                 : "",
		             gp_value_get_str(gp_obj_get(d, "peak_step")) &&
		                     strlen(gp_value_get_str(gp_obj_get(d, "peak_step"))) > 20
		                 ? "..."
		                 : "");
		op_table(o, fs, pl, false);
		if (gp_value_get_int(gp_obj_get(pl, "other_bytes"), &other) && other > 0)
			gp__out_addf(
			    o,
			    "    %10s  allocated before the trace began, or without an address\n",
			    gp__fmt_bytes(b2, sizeof(b2), (double)other, 0));
	}
	if (gp_value_type(u) == GP_VALUE_OBJECT) {
		gp_value_get_int(gp_obj_get(u, "bytes"), &v);
		if (v > 0) {
			gp__out_addf(o, "    never freed: %s in %lld allocations\n",
			             gp__fmt_bytes(b1, sizeof(b1), (double)v, 0),
			             (long long)(gp_value_get_int(gp_obj_get(u, "allocations"), &id)
			                             ? id
			                             : 0));
			op_table(o, fs, u, true);
		}
		b = gp_obj_get(u, "before_steps");
		if (gp_value_get_int(gp_obj_get(b, "bytes"), &v) && v > 0) {
			gp__out_addf(o,
			             "    made before the first step, never freed (weights, "
			             "optimizer state): %s\n",
			             gp__fmt_bytes(b1, sizeof(b1), (double)v, 0));
			op_table(o, fs, b, false);
		}
	}
	leak_line(o, fs, gp_obj_get(d, "leak"));
}

void gp__format_memory(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs)
{
	const struct gp_value *m = gp_obj_get(r, "memory"), *devs;
	size_t i;

	if (gp_value_type(m) != GP_VALUE_OBJECT)
		return;
	devs = gp_obj_get(m, "devices");
	for (i = 0; i < gp_value_len(devs); i++)
		device(o, fs, gp_arr_get(devs, i));
}
