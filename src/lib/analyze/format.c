/* SPDX-License-Identifier: MIT */
/*
 * format.c - an analyze report for people (gp_analyze_format()): compact
 * tables that fit the given width (100 columns by default), one block per
 * rank, then the metrics timeline of a run directory.
 *
 * Reads only the report tree (docs/report-schema.md) and computes nothing
 * beyond display shares: a section absent from the tree is skipped, an
 * unknown (null or missing) value prints as "-". Numbers, cells, cutting,
 * wrapping and the tables are the text layer's (text/text.h); the CLI only
 * chooses the width and writes the text.
 */
#include "format.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format-sections.h"
#include "gpuprof/analyze.h"
#include "memsnap.h"
#include "text/text.h"
#include "util/error.h"
#include "util/opts.h"

#define NAME_MIN 16

struct af {
	struct gp__out o;
	size_t top; /* rows per table, 0: all */
	int width;  /* columns */
	bool wide;  /* names whole (GP_ANALYZE_FORMAT_WIDE) */
	bool hta;   /* the report's compat is "hta" */
	bool tb;    /* the report's compat is "tb" */
};

#define out(f, ...) gp__out_addf(&(f)->o, __VA_ARGS__)

static void keep(struct af *f, int rc)
{
	gp__out_keep(&f->o, rc);
}

/* ---- value access ---- */

static const struct gp_value *get(const struct gp_value *v, const char *key)
{
	return gp_obj_get(v, key);
}

static bool num(const struct gp_value *v, double *out)
{
	return gp_value_get_double(v, out);
}

/* the number of @p v, NaN (unknown) when it has none */
static double nv(const struct gp_value *v)
{
	double d;

	return num(v, &d) ? d : NAN;
}

static const char *str(const struct gp_value *v, const char *dflt)
{
	const char *s = gp_value_get_str(v);

	return s ? s : dflt;
}

static const char *dur(char *buf, size_t n, const struct gp_value *v)
{
	return gp__fmt_dur(buf, n, nv(v), 0);
}

static const char *bytes(char *buf, size_t n, const struct gp_value *v)
{
	return gp__fmt_bytes(buf, n, nv(v), 0);
}

static const char *pctf(char *buf, size_t n, const struct gp_value *v, double scale)
{
	return gp__fmt_pct(buf, n, nv(v) * scale, 0);
}

static const char *intf(char *buf, size_t n, const struct gp_value *v)
{
	return gp__fmt_count(buf, n, nv(v));
}

static const char *share(char *buf, size_t n, const struct gp_value *part,
                         const struct gp_value *whole)
{
	double a, b;

	if (!num(part, &a) || !num(whole, &b) || b <= 0)
		return "-";
	return gp__fmt_pct(buf, n, 100.0 * a / b, 0);
}

/* a kernel's name without its leading "void " */
static const char *name_of(const char *s)
{
	return strncmp(s, "void ", 5) == 0 ? s + 5 : s;
}

/* @p s cut to @p w columns ("…"), control characters as '?', into @p buf */
static const char *fit(struct gp_buf *buf, const char *s, size_t w)
{
	gp__buf_reset(buf);
	if (gp__text_fit(buf, name_of(s), w, 0))
		return "-";
	return buf->buf;
}

static void heading(struct af *f, const char *title)
{
	out(f, "\n%s\n", title);
}

/* word-wraps @p s at @p w columns after @p indent spaces and @p first (text.h RAW) */
static void wrap(struct af *f, const char *s, int indent, int w, const char *first)
{
	char lead[96];

	snprintf(lead, sizeof(lead), "%*s%s", indent, "", first);
	keep(f, gp__text_wrap(&f->o.b, lead, s, (size_t)w, (size_t)indent + gp__text_width(first),
	                      GP__WRAP_RAW));
}

static void table_head(struct af *f, const struct gp__table *t)
{
	keep(f, gp__table_head(&f->o.b, t));
}

static void table_row(struct af *f, const struct gp__table *t, const void *row)
{
	keep(f, gp__table_row(&f->o.b, t, row));
}

static void table_cells(struct af *f, const struct gp__table *t, const char *const *cells)
{
	keep(f, gp__table_cells(&f->o.b, t, cells));
}

static size_t rows_to_show(const struct gp_value *arr, const struct af *f)
{
	size_t n = gp_value_len(arr);

	return f->top && n > f->top ? f->top : n;
}

static void more_rows(struct af *f, const struct gp_value *r, const char *key, size_t shown,
                      size_t len)
{
	char k[64], b[32];
	const struct gp_value *om;
	double rows;

	snprintf(k, sizeof(k), "%s_omitted", key);
	om = get(r, k);
	/* a table of self times (CPU operators) sums their self times: totals nest */
	if (num(get(om, "rows"), &rows) && rows > 0 && get(om, "self_ns"))
		out(f, "  … %.0f more (self %s)\n", rows, dur(b, sizeof(b), get(om, "self_ns")));
	else if (num(get(om, "rows"), &rows) && rows > 0)
		out(f, "  … %.0f more (%s)\n", rows, dur(b, sizeof(b), get(om, "total_ns")));
	else if (shown < len)
		out(f, "  … %zu more\n", len - shown);
}

/* ---- cell formatters of the tables below ---- */

/* a name column: the name without "void " (the table cuts it) */
static const char *cell_name(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	(void)buf;
	(void)n;
	return name_of(str(get(row, c->key), "-"));
}

/* a bandwidth in GB/s with four significant digits: a small copy's is no "0.00" */
static const char *cell_gbps(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_rate(buf, n, nv(get(row, c->key)));
}

/* @p n right-aligned columns of ready cells: headings @p heads, widths @p w, after @p gap */
static void plain_cols(struct gp__col *c, const char *const *heads, const size_t *w, size_t n,
                       const char *gap)
{
	for (size_t i = 0; i < n; i++)
		c[i] = (struct gp__col){ .head = heads[i], .width = w[i], .gap = gap };
}

/* a column over report rows: heading, width, gap before it, cell formatter, member */
#define COL(h, w, g, fn, k)                                                                        \
	{                                                                                          \
		.head = (h), .width = (w), .gap = (g), .cell = (fn), .key = (k)                    \
	}

/* ---- sections ---- */

/* a capture of `gpuprof run`: what was lost, and the tracer's warnings (why no GPU activity) */
static void print_capture(struct af *f, const struct gp_value *cap)
{
	const struct gp_value *wm = get(cap, "warning_messages");
	char b1[32], b2[32], b3[32], first[48];
	double d;

	if (gp_value_type(cap) != GP_VALUE_OBJECT)
		return;
	out(f, "capture   pid %s   dropped records %s   warnings %s\n",
	    intf(b1, sizeof(b1), get(cap, "pid")),
	    intf(b2, sizeof(b2), get(cap, "dropped_records")),
	    intf(b3, sizeof(b3), get(cap, "warnings")));
	for (size_t i = 0; i < gp_value_len(wm); i++) {
		const struct gp_value *w = gp_arr_get(wm, i);

		if (num(get(w, "count"), &d) && d > 1)
			snprintf(first, sizeof(first), "warning (%.0f×) ", d);
		else
			snprintf(first, sizeof(first), "warning   ");
		wrap(f, str(get(w, "text"), "-"), 0, f->width, first);
	}
	if (gp_value_len(wm) && num(get(cap, "warnings"), &d) && d > 0) {
		double listed = 0, c;

		for (size_t i = 0; i < gp_value_len(wm); i++)
			if (num(get(gp_arr_get(wm, i), "count"), &c))
				listed += c;
		if (d > listed)
			out(f, "          … %.0f more warnings of other kinds\n", d - listed);
	}
}

/*
 * "0: NVIDIA A100 (sm_80, 108 SMs, 39.4 GiB)": the one device label
 * (text/device.c, the report page's too); a device the trace does not
 * describe (no deviceProperties) says so.
 */
static void print_device(struct af *f, const char *lead, const struct gp_value *d)
{
	char b1[32];
	int rc;

	out(f, "%s %s: ", lead, intf(b1, sizeof(b1), get(d, "id")));
	if (f->o.rc)
		return;
	rc = gp__text_device(&f->o.b, d, false);
	if (rc == GP_ENOENT) {
		out(f, "not described by the trace (no deviceProperties)\n");
		return;
	}
	keep(f, rc);
	if (get(d, "properties_by_id") && !gp_value_get_bool(get(d, "properties_by_id"), true))
		out(f, ": the trace's only model, listed under another id");
	out(f, "\n");
}

/*
 * "steps     6   mean ...": the count of ProfilerStep annotations; a trace
 * without one says so (the Steps section then takes the whole trace as one).
 */
static void print_steps_line(struct af *f, const struct gp_value *ov, const struct gp_value *st)
{
	char b1[32], b2[32], b3[32];
	double n;

	if (num(get(ov, "steps"), &n) && n == 0) {
		char line[160] = "none: no ProfilerStep in this trace";

		if (st && num(get(st, "mean_ns"), &(double){ 0 }))
			snprintf(
			    line, sizeof(line),
			    "none: no ProfilerStep in this trace (Steps shows the whole trace as "
			    "one step, %s)",
			    dur(b1, sizeof(b1), get(st, "mean_ns")));
		wrap(f, line, 0, f->width, "steps     ");
		return;
	}
	out(f, "steps     %s", intf(b1, sizeof(b1), get(ov, "steps")));
	if (st && num(get(st, "incomplete"), &n) && n > 0) /* not in the statistics after it */
		out(f, " (%s incomplete)", gp__fmt_count(b1, sizeof(b1), n));
	if (st && num(get(st, "count"), &n) && n == 1)
		out(f, "   %s", dur(b1, sizeof(b1), get(st, "mean_ns"))); /* one: no statistics */
	else if (st && num(get(st, "mean_ns"), &(double){ 0 }))
		out(f, "   mean %s  median %s  p95 %s", dur(b1, sizeof(b1), get(st, "mean_ns")),
		    dur(b2, sizeof(b2), get(st, "median_ns")),
		    dur(b3, sizeof(b3), get(st, "p95_ns")));
	out(f, "\n");
}

/* under --compat hta: that HTA's definitions apply, and what they changed in this trace */
static void print_compat(struct af *f, const struct gp_value *h)
{
	const char *step = gp_value_get_str(get(h, "dropped_step"));
	struct gp_buf line = GP_BUF_INIT;

	if (gp_value_type(h) != GP_VALUE_OBJECT)
		return;
	keep(f, gp__buf_addstr(&line, "HTA's definitions (--compat hta):"));
	if (step)
		keep(f, gp__buf_addf(
		            &line, " the last step (%s) and the GPU work it launched are left out;",
		            step));
	else
		keep(f, gp__buf_addstr(&line,
		                       " no step left out (fewer than two ProfilerStep names);"));
	keep(f, gp__buf_addstr(&line, gp_value_get_bool(get(h, "rounded_to_us"), false)
	                                  ? " times rounded to whole µs as HTA rounds them"
	                                  : " times as in the trace (whole µs already)"));
	wrap(f, line.buf, 0, f->width, "compat    ");
	gp__buf_release(&line);
}

static void print_header(struct af *f, const struct gp_value *r)
{
	const struct gp_value *ov = get(r, "overview"), *devs = get(ov, "devices");
	const struct gp_value *st = get(r, "step_stats");
	char b1[32], b2[32], b3[32];
	size_t i;

	/* a process of a run without a launcher is named by its pid, not a rank */
	if (gp_value_get_str(get(r, "label")))
		out(f, "== %s: %s ==\n", gp_value_get_str(get(r, "label")),
		    str(get(r, "file"), "-"));
	else
		out(f, "== rank %s: %s ==\n", intf(b1, sizeof(b1), get(r, "rank")),
		    str(get(r, "file"), "-"));
	if (!ov)
		return;
	out(f, "span      %s   events %s kept of %s read\n",
	    dur(b1, sizeof(b1), get(ov, "span_ns")), intf(b2, sizeof(b2), get(ov, "events_kept")),
	    intf(b3, sizeof(b3), get(ov, "events_read")));
	for (i = 0; i < gp_value_len(devs); i++)
		print_device(f, i ? "         " : "devices  ", gp_arr_get(devs, i));
	print_steps_line(f, ov, st);
	print_compat(f, get(ov, "compat_hta"));
	if (f->tb) /* the Steps table's Comm 0.0 % beside COMMUNICATION 24 % needs a reason */
		wrap(f,
		     "the TensorBoard plugin's step breakdown (--compat tb): Comm holds only the "
		     "kernels launched under a nccl:* or gloo:* operator; collectives launched "
		     "under "
		     "record_param_comms and RCCL kernels count as Kernel",
		     0, f->width, "compat    ");
	if (gp_value_type(get(r, "salvage")) == GP_VALUE_OBJECT) {
		const struct gp_value *s = get(r, "salvage");

		out(f, "salvaged  damage at byte %s, %s bytes not analysed\n",
		    intf(b1, sizeof(b1), get(s, "damage_offset")),
		    intf(b2, sizeof(b2), get(s, "lost_bytes")));
	}
	print_capture(f, get(ov, "capture"));
}

static bool has_gpu(const struct gp_value *r)
{
	const struct gp_value *g = get(r, "gpu");

	if (g && gp_value_type(get(g, "has_gpu")) == GP_VALUE_BOOL)
		return gp_value_get_bool(get(g, "has_gpu"), true);
	return gp_value_get_bool(get(get(r, "overview"), "has_gpu"), true);
}

static void print_gpu(struct af *f, const struct gp_value *r)
{
	static const char *const rows[][2] = {
		{ "busy", "busy_ns" },
		{ "idle", "idle_ns" },
		{ "compute", "compute_ns" },
		{ "non-compute", "non_compute_ns" },
	};
	static const struct gp__col time_cols[] = {
		{ .head = "", .width = 13, .flags = GP__COL_LEFT },
		{ .head = "", .width = 10, .gap = " " },
		{ .head = "", .width = 8 },
	};
	static const struct gp__col type_cols[] = {
		COL("", 10, NULL, gp__cell_dur, "ns"),
		COL("", 8, NULL, gp__cell_pct, "pct"),
		{ .head = "",
		  .gap = "  ",
		  .cut = 70,
		  .flags = GP__COL_LEFT,
		  .cell = cell_name,
		  .key = "type" },
	};
	static const struct gp__col idle_cols[] = {
		{ .head = "idle by stream", .width = 15, .flags = GP__COL_LEFT },
		COL("device", 6, " ", gp__cell_count, "device"),
		COL("stream", 7, " ", gp__cell_count, "stream"),
		COL("host wait", 11, "  ", gp__cell_dur, "host_wait_ns"),
		COL("kernel wait", 11, "  ", gp__cell_dur, "kernel_wait_ns"),
		COL("other", 11, "  ", gp__cell_dur, "other_ns"),
	};
	const struct gp__table times = { time_cols, 3, "  ", false };
	const struct gp__table types = { type_cols, 3, "    ", false };
	const struct gp__table idle = { idle_cols, 6, "  ", false };
	const struct gp_value *g = get(r, "gpu"), *w, *kt, *ib;
	char b1[32], b2[32];
	size_t i;

	if (!g)
		return;
	w = get(g, "window_ns");
	heading(f, "GPU time");
	out(f, "  %-13s %10s", "window", dur(b1, sizeof(b1), w));
	if (gp_value_type(get(g, "outside_windows_ns")) == GP_VALUE_INT)
		out(f, "  (%s between capture windows left out)",
		    dur(b2, sizeof(b2), get(g, "outside_windows_ns")));
	out(f, "\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *cells[] = { rows[i][0], dur(b1, sizeof(b1), get(g, rows[i][1])),
			                share(b2, sizeof(b2), get(g, rows[i][1]), w) };

		table_cells(f, &times, cells);
	}
	/* the overlap is unknown without communication: no line rather than a "-" */
	if (num(get(g, "comm_comp_overlap_pct"), &(double){ 0 }))
		out(f, "  %-13s %10s\n", "comm/comp",
		    pctf(b1, sizeof(b1), get(g, "comm_comp_overlap_pct"), 1.0));
	kt = get(g, "kernel_types");
	if (gp_value_len(kt)) {
		out(f, "  kernel types\n");
		for (i = 0; i < gp_value_len(kt); i++)
			table_row(f, &types, gp_arr_get(kt, i));
	}
	ib = get(g, "idle_breakdown");
	if (gp_value_len(ib)) {
		table_head(f, &idle);
		for (i = 0; i < gp_value_len(ib); i++)
			table_row(f, &idle, gp_arr_get(ib, i));
	}
}

/* a ratio (0..1) member as a percentage */
static const char *cell_ratio(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_pct(buf, n, nv(get(row, c->key)) * 100.0, 0);
}

static void print_util(struct af *f, const struct gp_value *r)
{
	static const struct gp__col cols[] = {
		COL("device", 6, NULL, gp__cell_count, "device"),
		COL("window", 10, "  ", gp__cell_dur, "window_ns"),
		COL("utilization", 11, "  ", cell_ratio, "utilization"),
		COL("SM efficiency", 13, "  ", cell_ratio, "sm_efficiency"),
		COL("occupancy", 13, "  ", gp__cell_pct, "achieved_occupancy_pct"),
	};
	const struct gp_value *u = get(r, "gpu_utilization");
	struct gp__col shown[5];
	struct gp__table t = { shown, 0, "  ", false };

	if (!gp_value_len(u))
		return;
	/* the kernels' estimates (not in ROCm traces nor captures): no column of "-" */
	for (size_t k = 0; k < 5; k++) {
		bool known = k < 3;

		for (size_t i = 0; !known && i < gp_value_len(u); i++)
			known = num(get(gp_arr_get(u, i), cols[k].key), &(double){ 0 });
		if (known)
			shown[t.n++] = cols[k];
	}
	heading(f, "Utilisation (steps window)");
	table_head(f, &t);
	for (size_t i = 0; i < gp_value_len(u); i++)
		table_row(f, &t, gp_arr_get(u, i));
}

static const char *const step_keys[] = { "kernel",  "memcpy",     "memset",   "communication",
	                                 "runtime", "dataloader", "cpu_exec", "other" };

static void print_steps(struct af *f, const struct gp_value *r)
{
	static const char *const heads[] = { "duration", "Kernel", "Memcpy", "Memset", "Comm",
		                             "Runtime",  "DataLd", "CPU",    "Other" };
	static const size_t widths[] = { 9, 7, 7, 7, 7, 7, 7, 7, 7 };
	struct gp__col cols[10] = {
		{ .head = "step", .width = 18, .cut = 18, .flags = GP__COL_LEFT },
	};
	const struct gp__table t = { cols, 10, "  ", false };
	const struct gp_value *steps = get(r, "steps"), *st = get(r, "step_stats");
	char b[10][48], key[40], nb[64];
	const char *cells[10];
	size_t i, k, n = rows_to_show(steps, f), incomplete = 0;
	struct gp_buf cut = GP_BUF_INIT;
	double one;

	if (!gp_value_len(steps))
		return;
	heading(f, "Steps (share of step time)");
	plain_cols(cols + 1, heads, widths, 9, " ");
	table_head(f, &t);
	for (i = 0; i < n; i++) {
		const struct gp_value *s = gp_arr_get(steps, i), *bd = get(s, "breakdown");
		bool inc = gp_value_get_bool(get(s, "incomplete"), false);

		/* "*" after the name, cut first, so the mark is never cut off ("ProfilerStep#2
		 * (i…") */
		gp__buf_reset(&cut);
		keep(f, gp__text_fit(&cut, name_of(str(get(s, "name"), "-")), inc ? 17 : 18, 0));
		snprintf(nb, sizeof(nb), "%s%s", cut.buf, inc ? "*" : "");
		incomplete += inc;
		cells[0] = nb;
		cells[1] = dur(b[1], sizeof(b[1]), get(s, "dur_ns"));
		for (k = 0; k < 8; k++) {
			snprintf(key, sizeof(key), "%s_ns", step_keys[k]);
			cells[2 + k] =
			    share(b[2 + k], sizeof(b[2 + k]), get(bd, key), get(s, "dur_ns"));
		}
		table_cells(f, &t, cells);
	}
	gp__buf_release(&cut);
	more_rows(f, r, "steps", n, gp_value_len(steps));
	if (st) {
		const struct gp_value *bp = get(st, "breakdown_pct");

		cells[0] = "mean";
		cells[1] = dur(b[1], sizeof(b[1]), get(st, "mean_ns"));
		for (k = 0; k < 8; k++) {
			snprintf(key, sizeof(key), "%s_pct", step_keys[k]);
			cells[2 + k] = pctf(b[2 + k], sizeof(b[2 + k]), get(bp, key), 1.0);
		}
		table_cells(f, &t, cells);
		/* one step: its duration is the mean row's; median..std would repeat it, or "-" */
		if (!num(get(st, "count"), &one) || one > 1) {
			out(f, "  median %s", dur(b[0], sizeof(b[0]), get(st, "median_ns")));
			out(f, "   p95 %s", dur(b[0], sizeof(b[0]), get(st, "p95_ns")));
			out(f, "   min %s", dur(b[0], sizeof(b[0]), get(st, "min_ns")));
			out(f, "   max %s", dur(b[0], sizeof(b[0]), get(st, "max_ns")));
			out(f, "   std %s\n", dur(b[0], sizeof(b[0]), get(st, "std_ns")));
		}
	}
	if (incomplete)
		out(f, "  * incomplete: the trace ends inside the step; not in the statistics\n");
}

/*
 * The width of a name column: the columns left of @p used, at least
 * NAME_MIN; 0 (whole) with --wide. Names are fitted by the text layer's
 * names rule (text.h), so that names that differ stay apart.
 */
static size_t name_width(const struct af *f, int used)
{
	int w = f->width - used;

	return f->wide ? 0 : (size_t)(w < NAME_MIN ? NAME_MIN : w);
}

/* the name column of a summary table */
static struct gp__col name_col(const struct af *f, int used)
{
	struct gp__col c = { .head = "Name",
		             .gap = "  ",
		             .flags = GP__COL_LEFT | GP__COL_NAME,
		             .cell = cell_name,
		             .key = "name" };

	c.cut = name_width(f, used);
	return c;
}

/* the first @p n rows of @p arr, the name columns fitted over all of them */
static void table_rows(struct af *f, const struct gp__table *t, const struct gp_value *arr,
                       size_t n)
{
	const void **rows = n ? gp__calloc(n, sizeof(*rows)) : NULL;

	if (n && !rows) {
		keep(f, GP_ENOMEM);
		return;
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = gp_arr_get(arr, i);
	keep(f, gp__table_rows(&f->o.b, t, rows, n));
	gp__free(rows);
}

/* draws summary table @p key of rank @p r with @p ncols columns, the name column last */
static void summary_table(struct af *f, const struct gp_value *r, const char *key,
                          struct gp__col *cols, size_t ncols)
{
	const struct gp__table t = { cols, ncols, NULL, false };
	const struct gp_value *arr = get(r, key);
	size_t n = rows_to_show(arr, f);

	table_head(f, &t);
	table_rows(f, &t, arr, n);
	more_rows(f, r, key, n, gp_value_len(arr));
}

/*
 * Under 100 columns the widest tables leave columns out (--json and wider
 * terminals have them) rather than be wider than the terminal or cut names
 * to NAME_MIN; not with --wide, whose lines are as long as the names.
 */
static bool narrow(const struct af *f)
{
	return f->width < 100 && !f->wide;
}

/* nsys stats columns: Time %, Total, Instances, Avg, Med, Min, Max, StdDev, Name */
static void print_stats_table(struct af *f, const struct gp_value *r, const char *key,
                              const char *title)
{
	struct gp__col cols[] = {
		COL("Time %", 7, NULL, gp__cell_pct, "pct"),
		COL("Total", 9, NULL, gp__cell_dur, "total_ns"),
		COL("Instances", 10, NULL, gp__cell_count, "count"),
		COL("Avg", 9, NULL, gp__cell_dur, "avg_ns"),
		COL("Med", 9, NULL, gp__cell_dur, "med_ns"),
		COL("Min", 9, NULL, gp__cell_dur, "min_ns"),
		COL("Max", 9, NULL, gp__cell_dur, "max_ns"),
		COL("StdDev", 9, NULL, gp__cell_dur, "std_ns"),
		name_col(f, 7 + 9 + 10 + 5 * 9 + 2),
	};
	size_t ncols = sizeof(cols) / sizeof(cols[0]);
	const struct gp_value *arr = get(r, key);

	if (!arr)
		return;
	heading(f, title);
	if (!gp_value_len(arr)) {
		out(f, "  (none)\n");
		return;
	}
	if (narrow(f)) {
		/* Med, Min and Max go (--json has them), so that 80 columns leave names 34 */
		cols[4] = cols[7];
		cols[5] = name_col(f, 7 + 9 + 10 + 2 * 9 + 2);
		ncols = 6;
	}
	summary_table(f, r, key, cols, ncols);
}

static void print_memory_ops(struct af *f, const struct gp_value *r)
{
	struct gp__col cols[] = {
		COL("Time %", 7, NULL, gp__cell_pct, "pct"),
		COL("Total", 9, NULL, gp__cell_dur, "total_ns"),
		COL("Count", 10, NULL, gp__cell_count, "count"),
		COL("Avg", 9, NULL, gp__cell_dur, "avg_ns"),
		COL("Bytes", 11, NULL, gp__cell_bytes, "total_bytes"),
		COL("Avg bytes", 11, NULL, gp__cell_bytes, "avg_bytes"),
		COL("GB/s", 12, NULL, cell_gbps, "bandwidth_gbps"), /* " 0.000001000" */
		name_col(f, 7 + 9 + 10 + 9 + 11 + 11 + 12 + 2),
	};
	size_t ncols = sizeof(cols) / sizeof(cols[0]);
	const struct gp_value *arr = get(r, "memory_ops");
	bool bytes_known = false;

	if (!arr)
		return;
	heading(f, "Memory operations");
	if (!gp_value_len(arr)) {
		out(f, "  (none)\n");
		return;
	}
	for (size_t i = 0; i < gp_value_len(arr); i++)
		bytes_known |= num(get(gp_arr_get(arr, i), "total_bytes"), &(double){ 0 });
	if (!bytes_known) { /* no sizes (ROCm traces): no Bytes, Avg bytes, GB/s of "-" */
		cols[4] = name_col(f, 7 + 9 + 10 + 9 + 2);
		ncols = 5;
	} else if (narrow(f)) { /* Avg bytes goes */
		cols[5] = cols[6];
		cols[6] = name_col(f, 7 + 9 + 10 + 9 + 11 + 12 + 2);
		ncols = 7;
	}
	summary_table(f, r, "memory_ops", cols, ncols);
}

/* annotations (CPU time and GPU-projected time) and CPU operators (self and total) */
static void print_ops(struct af *f, const struct gp_value *r, const char *key, const char *title,
                      bool cpu_ops)
{
	struct gp__col cols[] = {
		COL("Time %", 10, NULL, gp__cell_pct, "pct"),
		COL("Total", 10, NULL, gp__cell_dur, "total_ns"),
		COL("Avg", 10, NULL, gp__cell_dur, "avg_ns"),
		COL("Calls", 10, NULL, gp__cell_count, "count"),
		COL("GPU", 10, NULL, gp__cell_dur, "gpu_ns"),
		name_col(f, 10 + 10 + 10 + 10 + 10 + 2),
	};
	const struct gp_value *arr = get(r, key);
	size_t ncols = sizeof(cols) / sizeof(cols[0]);

	if (!arr || !gp_value_len(arr))
		return;
	if (cpu_ops) {
		cols[0] = (struct gp__col)COL("Self %", 10, NULL, gp__cell_pct, "pct_self");
		cols[1] = (struct gp__col)COL("Self", 10, NULL, gp__cell_dur, "self_ns");
		cols[2] = (struct gp__col)COL("Total", 10, NULL, gp__cell_dur, "total_ns");
	}
	/* GPU annotations are GPU time already: no column of "-" */
	if (strcmp(key, "gpu_annotations") == 0) {
		cols[4] = name_col(f, 10 + 10 + 10 + 10 + 2);
		ncols--;
	}
	heading(f, title);
	summary_table(f, r, key, cols, ncols);
}

/* whether @p v has both string members @p a and @p b */
static bool get_str2(const struct gp_value *v, const char *a, const char *b)
{
	return gp_value_get_str(get(v, a)) && gp_value_get_str(get(v, b));
}

static void print_memory(struct af *f, const struct gp_value *r)
{
	static const char *const heads[] = { "peak alloc", "peak reserv", "at end" };
	static const size_t widths[] = { 12, 12, 12 };
	struct gp__col dev_cols[5] = {
		{ .head = "device", .width = 6 },
		[4] = { .head = "peak in", .gap = "  ", .flags = GP__COL_LEFT },
	};
	const struct gp__col top_cols[] = {
		{ .head = "top allocators", .width = 14, .flags = GP__COL_LEFT },
		COL("bytes", 12, " ", gp__cell_bytes, "bytes"),
		COL("count", 10, " ", gp__cell_count, "count"),
		{ .head = "operator",
		  .gap = "  ",
		  .cut = name_width(f, 2 + 14 + 1 + 12 + 1 + 10 + 2),
		  .flags = GP__COL_LEFT | GP__COL_NAME,
		  .cell = cell_name,
		  .key = "name" },
	};
	struct gp__table devt = { dev_cols, 5, "  ", false };
	const struct gp__table topt = { top_cols, 4, "  ", false };
	const struct gp_value *m = get(r, "memory"), *devs, *top;
	struct gp_buf cut = GP_BUF_INIT;
	char b0[64], b1[64], b2[64], b3[64], nb[512];
	bool reserved = false;
	size_t i, n;

	if (gp_value_type(m) != GP_VALUE_OBJECT)
		return;
	devs = get(m, "devices");
	heading(f, "Memory");
	plain_cols(dev_cols + 1, heads, widths, 3, " ");
	/* a 2021-schema trace has no reserved bytes: no "peak reserv" column of "-" */
	for (i = 0; i < gp_value_len(devs); i++)
		reserved |= num(get(gp_arr_get(devs, i), "peak_reserved_bytes"), &(double){ 0 });
	if (!reserved) {
		dev_cols[2] = dev_cols[3];
		dev_cols[3] = dev_cols[4];
		devt.n = 4;
	}
	table_head(f, &devt);
	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);
		const char *dev = gp_value_get_str(get(d, "device"));
		const char *cells[5];

		/* what is known of where the peak was: "step / op", one of them, or "-" */
		snprintf(nb, sizeof(nb), "%s%s%s", str(get(d, "peak_step"), ""),
		         get_str2(d, "peak_step", "peak_op") ? " / " : "",
		         str(get(d, "peak_op"), ""));
		if (!nb[0])
			snprintf(nb, sizeof(nb), "-");
		fit(&cut, nb, f->wide ? 0 : 40);
		cells[0] = dev ? dev : intf(b0, sizeof(b0), get(d, "device"));
		cells[1] = bytes(b1, sizeof(b1), get(d, "peak_allocated_bytes"));
		cells[2] = bytes(b2, sizeof(b2), get(d, "peak_reserved_bytes"));
		cells[3] = bytes(b3, sizeof(b3), get(d, "final_allocated_bytes"));
		cells[4] = cut.buf;
		if (!reserved)
			memmove(cells + 2, cells + 3, 2 * sizeof(*cells));
		table_cells(f, &devt, cells);
	}
	gp__buf_release(&cut);
	top = get(m, "top_allocators");
	n = rows_to_show(top, f);
	if (n) {
		table_head(f, &topt);
		table_rows(f, &topt, top, n);
	}
}

/* a mean with one decimal */
static const char *cell_mean(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_num(buf, n, nv(get(row, c->key)), 1, "");
}

static void print_launches(struct af *f, const struct gp_value *r)
{
	static const struct gp__col cols[] = {
		{ .head = "queue", .width = 5, .flags = GP__COL_LEFT },
		COL("device", 6, "  ", gp__cell_count, "device"),
		COL("stream", 7, " ", gp__cell_count, "stream"),
		COL("max", 8, " ", gp__cell_count, "max"),
		COL("mean", 8, " ", cell_mean, "mean"),
		COL("at limit", 14, "  ", gp__cell_dur, "time_at_limit_ns"),
	};
	const struct gp_value *l = get(r, "launches"), *d, *q;
	/* HIP has no launch-queue limit (queue_limit null): no "at limit" column of "-" */
	const struct gp__table t = { cols, num(get(l, "queue_limit"), &(double){ 0 }) ? 6 : 5, "  ",
		                     false };
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	double n;

	if (gp_value_type(l) != GP_VALUE_OBJECT)
		return;
	d = get(l, "launch_delay_ns");
	heading(f, "Launches");
	if (num(get(l, "count"), &n) && n == 0) {
		/* no launch: no delays nor short kernels to show as "-" and "0 (-)" */
		wrap(f,
		     f->hta
		         ? "none counted: --compat hta counts cudaLaunchKernel, "
		           "cudaLaunchKernelExC, cudaMemcpyAsync and cudaMemsetAsync only, as HTA "
		           "does"
		         : "none counted",
		     0, f->width, "  launches ");
		goto queue;
	}
	out(f, "  launches %s   delay p50 %s  p90 %s  p99 %s  max %s\n",
	    intf(b1, sizeof(b1), get(l, "count")), dur(b2, sizeof(b2), get(d, "p50")),
	    dur(b3, sizeof(b3), get(d, "p90")), dur(b4, sizeof(b4), get(d, "p99")),
	    dur(b5, sizeof(b5), get(d, "max")));
	out(f, "  kernels shorter than their launch call: %s (%s)\n",
	    intf(b1, sizeof(b1), get(get(l, "short_kernels"), "count")),
	    pctf(b2, sizeof(b2), get(get(l, "short_kernels"), "pct"), 1.0));
queue:
	q = get(l, "queue");
	if (gp_value_len(q)) {
		table_head(f, &t);
		for (size_t i = 0; i < gp_value_len(q); i++)
			table_row(f, &t, gp_arr_get(q, i));
	}
}

static void print_findings(struct af *f, const struct gp_value *r)
{
	gp__text_findings(&f->o, get(r, "findings"), f->width); /* the one Findings section */
}

/* the sections with files of their own (format-sections.h) */
static void print_sections(struct af *f, const struct gp_value *r)
{
	struct gp__fmt_sec fs = { .top = f->top, .width = f->width, .wide = f->wide };

	gp__format_critpath(&f->o, r, &fs);
	gp__format_modules(&f->o, r, &fs);
	gp__format_roofline(&f->o, r, &fs);
}

static void print_rank(struct af *f, const struct gp_value *r)
{
	print_header(f, r);
	if (!has_gpu(r)) {
		out(f, "\nNo GPU activity in this trace: GPU sections are skipped.\n");
	} else {
		print_gpu(f, r);
		print_util(f, r);
	}
	print_steps(f, r);
	if (has_gpu(r)) {
		print_stats_table(f, r, "kernels", "Top GPU kernels");
		print_memory_ops(f, r);
	}
	/* a ROCm trace's calls are HIP's (hipLaunchKernel) */
	print_stats_table(f, r, "api_calls",
	                  strcmp(str(get(get(r, "launches"), "runtime"), ""), "hip") == 0
	                      ? "Top HIP API calls"
	                      : "Top CUDA API calls");
	print_ops(f, r, "annotations", "User annotations (CPU time; GPU: projected)", false);
	print_ops(f, r, "gpu_annotations", "GPU annotations", false);
	print_ops(f, r, "cpu_ops", "Top CPU operators", true);
	print_memory(f, r);
	{
		struct gp__fmt_sec fs = { .top = f->top, .width = f->width, .wide = f->wide };

		gp__format_memory(&f->o, r, &fs); /* its lifetimes, under its device table */
	}
	if (has_gpu(r))
		print_launches(f, r);
	print_sections(f, r);
	print_findings(f, r);
}

/* ---- report-wide parts: tags, the metrics timeline of a run directory ---- */

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A run directory without a capture: the run as run.json tells it (command,
 * how it ended, how long, where), and why there is no GPU timeline, before
 * the metrics.
 */
static void print_run(struct af *f, const struct gp_value *report)
{
	const struct gp_value *run = get(report, "run");
	const struct gp_value *cmd = get(run, "command");
	const char *why = gp_value_get_str(get(report, "no_gpu_timeline"));
	const char *sig = gp_value_get_str(get(run, "exit_signal"));
	const char *host = gp_value_get_str(get(run, "hostname"));
	char b[32];
	int64_t code;
	double wall;
	size_t i;

	if (gp_value_type(run) != GP_VALUE_OBJECT)
		return;
	out(f, "run      ");
	for (i = 0; i < gp_value_len(cmd) && i < 32; i++)
		out(f, " %s", str(gp_arr_get(cmd, i), "?"));
	out(f, "\n         ");
	if (sig)
		out(f, " killed by %s", sig);
	else if (gp_value_get_int(get(run, "exit_code"), &code))
		out(f, " exit status %lld", (long long)code);
	else
		out(f, " state %s", str(get(run, "state"), "unknown"));
	if (num(get(run, "wall_ns"), &wall))
		out(f, "   duration %s", gp__fmt_dur(b, sizeof(b), wall, 0));
	if (host)
		out(f, "   host %s", host);
	out(f, "\n");
	if (why)
		out(f, "no GPU timeline: %s\n", why);
}

/* "tags      k=v k2=v2" (keys sorted), nothing when there is none */
static void print_tags(struct af *f, const struct gp_value *report)
{
	const struct gp_value *t = get(report, "tags");
	size_t i, n = gp_value_len(t);
	const char **keys;

	if (gp_value_type(t) != GP_VALUE_OBJECT || !n)
		return;
	if (!(keys = gp__calloc(n, sizeof(*keys)))) {
		keep(f, GP_ENOMEM);
		return;
	}
	for (i = 0; i < n; i++)
		keys[i] = gp_obj_key_at(t, i);
	qsort(keys, n, sizeof(*keys), cmp_cstr);
	out(f, "tags     ");
	for (i = 0; i < n; i++)
		out(f, " %s=%s", keys[i], str(get(t, keys[i]), "-"));
	out(f, "\n");
	gp__free(keys);
}

/* member @p key of the series named "@p prefix.@p field" in the metrics' series, or NULL */
static const struct gp_value *series_stat(const struct gp_value *series, const char *prefix,
                                          const char *field, const char *key)
{
	char name[96];
	size_t i;

	snprintf(name, sizeof(name), "%s.%s", prefix, field);
	for (i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i);
		const char *sn = gp_value_get_str(get(s, "name"));

		if (sn && strcmp(sn, name) == 0)
			return get(s, key);
	}
	return NULL;
}

/* "123.4 W" / "71 °C" (@p decimals, then @p suffix); "-" when unknown */
static const char *unitf(char *buf, size_t n, const struct gp_value *v, int decimals,
                         const char *suffix)
{
	return gp__fmt_num(buf, n, nv(v), decimals, suffix);
}

static void print_metric_gpus(struct af *f, const struct gp_value *series,
                              const struct gp_value *gpus)
{
	static const char *const heads[] = { "util mean",  "util max",  "memory peak",
		                             "power mean", "power max", "temp max" };
	static const size_t widths[] = { 9, 8, 21, 10, 9, 8 };
	/* the GPU's name takes what the numbers (79 columns) leave, 10 to 24 */
	size_t gw = f->width - 79 < 10 ? 10 : f->width - 79 > 24 ? 24 : (size_t)f->width - 79;
	struct gp__col cols[7] = {
		{ .head = "GPU", .width = gw, .cut = gw, .flags = GP__COL_LEFT },
	};
	const struct gp__table t = { cols, 7, "  ", false };
	char b[7][80], b3[32], b4[32];

	/* two spaces between columns: headings of two words never run together */
	plain_cols(cols + 1, heads, widths, 6, "  ");
	table_head(f, &t);
	for (size_t i = 0; i < gp_value_len(gpus); i++) {
		const struct gp_value *g = gp_arr_get(gpus, i);
		char prefix[32];
		const char *cells[7];
		double idx = 0;

		num(get(g, "index"), &idx);
		snprintf(prefix, sizeof(prefix), "gpu%.0f", idx);
		snprintf(b[0], sizeof(b[0]), "%.0f %s", idx, str(get(g, "name"), "-"));
		cells[0] = name_of(b[0]);
		cells[1] =
		    pctf(b[1], sizeof(b[1]),
		         series_stat(series, prefix, "utilization_gpu_ratio", "mean"), 100.0);
		cells[2] = pctf(b[2], sizeof(b[2]),
		                series_stat(series, prefix, "utilization_gpu_ratio", "max"), 100.0);
		snprintf(
		    b[3], sizeof(b[3]), "%s / %s",
		    bytes(b3, sizeof(b3), series_stat(series, prefix, "memory_used_bytes", "max")),
		    bytes(b4, sizeof(b4), get(g, "memory_total_bytes")));
		cells[3] = b[3];
		cells[4] = unitf(b[4], sizeof(b[4]),
		                 series_stat(series, prefix, "power_watts", "mean"), 1, " W");
		cells[5] = unitf(b[5], sizeof(b[5]),
		                 series_stat(series, prefix, "power_watts", "max"), 1, " W");
		cells[6] =
		    unitf(b[6], sizeof(b[6]),
		          series_stat(series, prefix, "temperature_celsius", "max"), 0, " °C");
		table_cells(f, &t, cells);
	}
}

static void print_metrics(struct af *f, const struct gp_value *report)
{
	const struct gp_value *m = get(report, "metrics"), *series = get(m, "series"),
	                      *gpus = get(m, "gpus");
	char b1[32], b2[32], b3[32];
	bool rss, cpu;
	double n;

	if (gp_value_type(m) != GP_VALUE_OBJECT)
		return;
	if (gp_value_get_str(get(m, "error"))) {
		heading(f, "Metrics");
		out(f, "  cannot read %s\n", str(get(m, "error"), "-"));
		return;
	}
	out(f, "%sMetrics (%s sample%s", f->o.b.len ? "\n" : "",
	    intf(b1, sizeof(b1), get(m, "samples")),
	    num(get(m, "samples"), &n) && n == 1 ? "" : "s");
	if (num(get(m, "interval_ms"),
	        &(double){ 0 })) /* an unknown interval is not "every - ms" */
		out(f, ", every %s ms", intf(b2, sizeof(b2), get(m, "interval_ms")));
	out(f, "%s)\n", gp_value_get_bool(get(m, "ended"), true) ? "" : "; cut short");
	if (gp_value_len(gpus))
		print_metric_gpus(f, series, gpus);
	else if (gp_value_get_str(get(m, "gpu_status")))
		out(f, "  no GPU: %s\n", gp_value_get_str(get(m, "gpu_status")));
	else
		out(f, "  no GPU\n");
	/* a timeline without the host's series (an older or cut file): no line of "-" */
	if (series_stat(series, "host", "cpu_busy_ratio", "max"))
		out(f, "  host CPU busy   mean %s  max %s\n",
		    pctf(b1, sizeof(b1), series_stat(series, "host", "cpu_busy_ratio", "mean"),
		         100.0),
		    pctf(b2, sizeof(b2), series_stat(series, "host", "cpu_busy_ratio", "max"),
		         100.0));
	/* the tree's CPU is a rate: one sample has none, and no "CPU mean -  max - cores" */
	rss = num(series_stat(series, "process_tree", "rss_bytes", "max"), &n);
	cpu = num(series_stat(series, "process_tree", "cpu_cores", "max"), &n);
	if (!rss && !cpu)
		return;
	out(f, "  process tree  ");
	if (rss)
		out(f, "  RSS peak %s",
		    bytes(b1, sizeof(b1), series_stat(series, "process_tree", "rss_bytes", "max")));
	if (cpu)
		out(f, "  CPU mean %s  max %s cores",
		    unitf(b2, sizeof(b2), series_stat(series, "process_tree", "cpu_cores", "mean"),
		          2, ""),
		    unitf(b3, sizeof(b3), series_stat(series, "process_tree", "cpu_cores", "max"),
		          2, ""));
	out(f, "\n");
}

/* @p f for @p report (its "compat") with @p opts (may be NULL) */
static int af_init(struct af *f, const struct gp_value *report,
                   const struct gp_analyze_format_opts *opts)
{
	int rc;

	*f = (struct af){ .o = { GP_BUF_INIT, 0 }, .top = 10, .width = 100 };
	if ((rc = GP__OPTS_VALID(opts, struct gp_analyze_format_opts)))
		return rc;
	if (gp_value_type(report) != GP_VALUE_OBJECT)
		return gp__error(GP_EINVAL, "gp_analyze_format: not a %s report",
		                 GP_ANALYZE_SCHEMA);
	f->top = GP__OPTS_GET(opts, top, 10);
	f->wide = GP__OPTS_GET(opts, flags, 0) & GP_ANALYZE_FORMAT_WIDE;
	f->hta = gp_value_get_str(get(report, "compat")) &&
	         strcmp(gp_value_get_str(get(report, "compat")), "hta") == 0;
	f->tb = gp_value_get_str(get(report, "compat")) &&
	        strcmp(gp_value_get_str(get(report, "compat")), "tb") == 0;
	f->width =
	    GP__OPTS_GET(opts, width, 0) ? (int)(opts->width > 1000 ? 1000 : opts->width) : 100;
	if (f->width < 60)
		f->width = 60;
	return 0;
}

GP_API int gp_analyze_format(const struct gp_value *report,
                             const struct gp_analyze_format_opts *opts, char **text, size_t *len)
{
	struct af f;
	const struct gp_value *ranks = get(report, "ranks");
	size_t i;
	int rc;

	if (!text)
		return gp__error(GP_EINVAL, "gp_analyze_format: NULL argument");
	*text = NULL;
	if (len)
		*len = 0;
	if ((rc = af_init(&f, report, opts)))
		return rc;
	if (gp__memsnap_is(report)) /* a memory snapshot's document: its own text */
		return gp__memsnap_format(report, f.top, f.width, text, len);
	print_run(&f, report);
	print_tags(&f, report);
	for (i = 0; i < gp_value_len(ranks); i++) {
		if (i)
			out(&f, "\n");
		print_rank(&f, gp_arr_get(ranks, i));
	}
	/* a metrics timeline alone has no rank: its Metrics section is the report */
	if (!gp_value_len(ranks) && gp_value_type(get(report, "metrics")) != GP_VALUE_OBJECT)
		out(&f, "no ranks in this report\n");
	print_metrics(&f, report);
	return gp__out_detach(&f.o, text, len);
}

int gp__analyze_format_rank(const struct gp_value *report, const struct gp_value *rank,
                            const struct gp_analyze_format_opts *opts, char **text, size_t *len)
{
	struct af f;
	int rc;

	*text = NULL;
	if ((rc = af_init(&f, report, opts)))
		return rc;
	print_rank(&f, rank);
	return gp__out_detach(&f.o, text, len);
}

/* hands @p len bytes of @p text to @p write: 0, or GP_EIO with errno as it set it */
static int write_all(const char *text, size_t len, gp_write_fn write, void *wuser)
{
	int e;

	if (!len || !write(text, len, wuser))
		return 0;
	e = errno ? errno : EIO;
	gp__error(GP_EIO, "cannot write the report: %s", strerror(e));
	errno = e;
	return GP_EIO;
}

/* hands the text @p f holds to @p write and empties it */
static int hand_over(struct af *f, gp_write_fn write, void *wuser)
{
	char *text = NULL;
	size_t len = 0;
	int rc = gp__out_detach(&f->o, &text, &len);

	f->o = (struct gp__out){ GP_BUF_INIT, 0 };
	if (!rc)
		rc = write_all(text, len, write, wuser);
	gp_free(text);
	return rc;
}

int gp__analyze_format_write(const struct gp_value *report,
                             const struct gp_analyze_format_opts *opts, gp_write_fn write,
                             void *wuser)
{
	char *text = NULL;
	size_t len = 0;
	int rc = gp_analyze_format(report, opts, &text, &len);

	if (!rc)
		rc = write_all(text, len, write, wuser);
	gp_free(text);
	return rc;
}

int gp__analyze_format_spliced(const struct gp_value *report,
                               const struct gp_analyze_format_opts *opts, size_t n,
                               gp__json_item_fn item, void *user, gp_write_fn write, void *wuser)
{
	struct af f;
	size_t i;
	int rc = 0;

	GP_TRY(af_init(&f, report, opts));
	print_run(&f, report);
	print_tags(&f, report);
	for (i = 0; i < n; i++) {
		if (i)
			out(&f, "\n");
		GP_TRY(hand_over(&f, write, wuser));
		GP_TRY(item(user, i, write, wuser));
	}
	if (!n && gp_value_type(get(report, "metrics")) != GP_VALUE_OBJECT)
		out(&f, "no ranks in this report\n");
	print_metrics(&f, report);
	rc = hand_over(&f, write, wuser);
out:
	gp__buf_release(&f.o.b);
	return rc;
}
