/* SPDX-License-Identifier: MIT */
/*
 * analyze-print.c - the human form of an analyze report: compact tables
 * that fit 100 columns, one block per rank.
 *
 * Reads only the report tree (docs/report-schema.md) and computes nothing
 * beyond display shares: a section absent from the tree is skipped, an
 * unknown (null or missing) value prints as "-". Widths count UTF-8 code
 * points, so "µs" and "…" take one column.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define NAME_MIN 16

/* ---- value access ---- */

static const struct gp_value *get(const struct gp_value *v, const char *key)
{
	return gp_obj_get(v, key);
}

static bool num(const struct gp_value *v, double *out)
{
	return gp_value_get_double(v, out);
}

static const char *str(const struct gp_value *v, const char *dflt)
{
	const char *s = gp_value_get_str(v);

	return s ? s : dflt;
}

/* ---- formatting ---- */

/* four significant digits: "850 ns", "56.70 µs", "1.234 ms", "12.35 s" */
const char *gp_fmt_dur(char *buf, size_t n, long long ns)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e3, "µs" }, { 1e6, "ms" }, { 1e9, "s" } };
	double v;
	size_t i;

	if (ns > -1000 && ns < 1000) {
		snprintf(buf, n, "%lld ns", ns);
		return buf;
	}
	for (i = 0; i + 1 < sizeof(u) / sizeof(u[0]); i++)
		if (llabs(ns) < (long long)u[i + 1].div)
			break;
	v = (double)ns / u[i].div;
	if (fabs(v) < 9.9995)
		snprintf(buf, n, "%.3f %s", v, u[i].unit);
	else if (fabs(v) < 99.995)
		snprintf(buf, n, "%.2f %s", v, u[i].unit);
	else if (fabs(v) < 999.95 || i + 1 == sizeof(u) / sizeof(u[0]))
		snprintf(buf, n, "%.1f %s", v, u[i].unit);
	else
		snprintf(buf, n, "%.3f %s", v / 1e3, u[i + 1].unit);
	return buf;
}

static const char *dur(char *buf, size_t n, const struct gp_value *v)
{
	double d;

	if (!num(v, &d))
		return "-";
	return gp_fmt_dur(buf, n, llround(d));
}

static const char *bytes(char *buf, size_t n, const struct gp_value *v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d;
	size_t i = 0;

	if (!num(v, &d))
		return "-";
	while (fabs(d) >= 1024.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		d /= 1024.0;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%.0f B", d);
	else
		snprintf(buf, n, "%.1f %s", d, unit[i]);
	return buf;
}

static const char *pctf(char *buf, size_t n, const struct gp_value *v, double scale)
{
	double d;

	if (!num(v, &d))
		return "-";
	snprintf(buf, n, "%.1f%%", d * scale);
	return buf;
}

static const char *share(char *buf, size_t n, const struct gp_value *part,
                         const struct gp_value *whole)
{
	double a, b;

	if (!num(part, &a) || !num(whole, &b) || b <= 0)
		return "-";
	snprintf(buf, n, "%.1f%%", 100.0 * a / b);
	return buf;
}

static const char *intf(char *buf, size_t n, const struct gp_value *v)
{
	double d;

	if (!num(v, &d))
		return "-";
	snprintf(buf, n, "%.0f", d);
	return buf;
}

/* display columns of a UTF-8 string */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/*
 * Copies @p s into @p buf, cut to @p w columns with "…" at the end; control
 * characters become '?', a leading "void " of a kernel name is dropped.
 */
static const char *fit(char *buf, size_t n, const char *s, int w)
{
	size_t o = 0;
	int cols = 0, total;

	if (strncmp(s, "void ", 5) == 0)
		s += 5;
	total = width(s);
	for (; *s && o + 5 < n; s++) {
		unsigned char ch = (unsigned char)*s;
		bool lead = (ch & 0xc0) != 0x80;

		if (lead && total > w && cols == w - 1)
			break;
		if (lead && cols == w)
			break;
		buf[o++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
		cols += lead;
	}
	/* do not leave a partial UTF-8 sequence behind */
	while (o && ((unsigned char)buf[o - 1] & 0xc0) == 0xc0)
		o--;
	buf[o] = '\0';
	if (total > w && o + 4 < n)
		strcat(buf, "…");
	return buf;
}

/* prints @p s in @p w columns: right-aligned unless @p left */
static void cell(FILE *f, const char *s, int w, bool left)
{
	int pad = w - width(s);

	if (!left)
		fprintf(f, "%*s", pad > 0 ? pad : 0, "");
	fputs(s, f);
	if (left)
		fprintf(f, "%*s", pad > 0 ? pad : 0, "");
}

static void heading(FILE *f, const char *title)
{
	fprintf(f, "\n%s\n", title);
}

/*
 * word-wraps @p s at @p w columns, each line indented by @p indent spaces;
 * control characters become '?' (a capture's warning text is the program's)
 */
static void wrap(FILE *f, const char *s, int indent, int w, const char *first)
{
	int col = indent;

	fprintf(f, "%*s%s", indent, "", first);
	col += width(first);
	while (*s) {
		const char *e = s;
		int ww;

		while (*e && *e != ' ')
			e++;
		{
			char word[512];
			size_t len =
			    (size_t)(e - s) < sizeof(word) - 1 ? (size_t)(e - s) : sizeof(word) - 1;

			/* a word cut at the buffer's end: not inside a UTF-8 character */
			while (len && len < (size_t)(e - s) &&
			       ((unsigned char)s[len] & 0xc0) == 0x80)
				len--;
			memcpy(word, s, len);
			word[len] = '\0';
			for (char *p = word; *p; p++)
				if (((unsigned char)*p < 0x20 && *p != '\x1f') || *p == 0x7f)
					*p =
					    '?'; /* '\x1f' stands for a space that does not break */
			ww = width(word);
			if (col + ww + 1 > w && col > indent + width(first)) {
				fprintf(f, "\n%*s", indent + width(first), "");
				col = indent + width(first);
			} else if (col > indent + width(first)) {
				fputc(' ', f);
				col++;
			}
			for (char *p = word; *p; p++)
				if (*p == '\x1f')
					*p = ' ';
			fputs(word, f);
			col += ww;
		}
		s = *e ? e + 1 : e;
	}
	fputc('\n', f);
}

static size_t rows_to_show(const struct gp_value *arr, const struct gp_print_opts *o)
{
	size_t n = gp_value_len(arr);

	return o->top && n > o->top ? o->top : n;
}

static void more_rows(FILE *f, const struct gp_value *r, const char *key, size_t shown, size_t len)
{
	char k[64], b[32];
	const struct gp_value *om;
	double rows;

	snprintf(k, sizeof(k), "%s_omitted", key);
	om = get(r, k);
	if (num(get(om, "rows"), &rows) && rows > 0)
		fprintf(f, "  … %.0f more (%s)\n", rows, dur(b, sizeof(b), get(om, "total_ns")));
	else if (shown < len)
		fprintf(f, "  … %zu more\n", len - shown);
}

/* ---- sections ---- */

/* a capture of `gpuprof run`: what was lost, and the tracer's warnings (why no GPU activity) */
static void print_capture(FILE *f, const struct gp_value *cap)
{
	const struct gp_value *wm = get(cap, "warning_messages");
	char b1[32], b2[32], b3[32], first[48];
	double d;

	if (gp_value_type(cap) != GP_VALUE_OBJECT)
		return;
	fprintf(f, "capture   pid %s   dropped records %s   warnings %s\n",
	        intf(b1, sizeof(b1), get(cap, "pid")),
	        intf(b2, sizeof(b2), get(cap, "dropped_records")),
	        intf(b3, sizeof(b3), get(cap, "warnings")));
	for (size_t i = 0; i < gp_value_len(wm); i++) {
		const struct gp_value *w = gp_arr_get(wm, i);

		if (num(get(w, "count"), &d) && d > 1)
			snprintf(first, sizeof(first), "warning (%.0f×) ", d);
		else
			snprintf(first, sizeof(first), "warning   ");
		wrap(f, str(get(w, "text"), "-"), 0, 100, first);
	}
	if (gp_value_len(wm) && num(get(cap, "warnings"), &d) && d > 0) {
		double listed = 0, c;

		for (size_t i = 0; i < gp_value_len(wm); i++)
			if (num(get(gp_arr_get(wm, i), "count"), &c))
				listed += c;
		if (d > listed)
			fprintf(f, "          … %.0f more warnings of other kinds\n", d - listed);
	}
}

static void print_header(FILE *f, const struct gp_value *r)
{
	const struct gp_value *ov = get(r, "overview"), *devs = get(ov, "devices");
	char b1[32], b2[32], b3[32];
	size_t i;

	fprintf(f, "== rank %s: %s ==\n", intf(b1, sizeof(b1), get(r, "rank")),
	        str(get(r, "file"), "-"));
	if (!ov)
		return;
	fprintf(f, "span      %s   events %s kept of %s read\n",
	        dur(b1, sizeof(b1), get(ov, "span_ns")),
	        intf(b2, sizeof(b2), get(ov, "events_kept")),
	        intf(b3, sizeof(b3), get(ov, "events_read")));
	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);

		fprintf(f, "%s %s: %s (sm %s, %s SMs, %s)\n", i ? "         " : "devices  ",
		        intf(b1, sizeof(b1), get(d, "id")), str(get(d, "name"), "-"),
		        str(get(d, "compute_capability"), "-"),
		        intf(b2, sizeof(b2), get(d, "num_sms")),
		        bytes(b3, sizeof(b3), get(d, "total_memory_bytes")));
	}
	{
		const struct gp_value *st = get(r, "step_stats");

		fprintf(f, "steps     %s", intf(b1, sizeof(b1), get(ov, "steps")));
		if (st && num(get(st, "mean_ns"), &(double){ 0 }))
			fprintf(f, "   mean %s  median %s  p95 %s",
			        dur(b1, sizeof(b1), get(st, "mean_ns")),
			        dur(b2, sizeof(b2), get(st, "median_ns")),
			        dur(b3, sizeof(b3), get(st, "p95_ns")));
		fputc('\n', f);
	}
	if (gp_value_type(get(r, "salvage")) == GP_VALUE_OBJECT) {
		const struct gp_value *s = get(r, "salvage");

		fprintf(f, "salvaged  damage at byte %s, %s bytes not analysed\n",
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

static void print_gpu(FILE *f, const struct gp_value *r)
{
	static const char *const rows[][2] = {
		{ "busy", "busy_ns" },
		{ "idle", "idle_ns" },
		{ "compute", "compute_ns" },
		{ "non-compute", "non_compute_ns" },
	};
	const struct gp_value *g = get(r, "gpu"), *w, *kt, *ib;
	char b1[32], b2[32], b3[32], b4[32], nb[256];
	size_t i;

	if (!g)
		return;
	w = get(g, "window_ns");
	heading(f, "GPU time");
	fprintf(f, "  %-13s %10s", "window", dur(b1, sizeof(b1), w));
	if (gp_value_type(get(g, "outside_windows_ns")) == GP_VALUE_INT)
		fprintf(f, "  (%s between capture windows left out)",
		        dur(b2, sizeof(b2), get(g, "outside_windows_ns")));
	fputc('\n', f);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		fprintf(f, "  %-13s ", rows[i][0]);
		cell(f, dur(b1, sizeof(b1), get(g, rows[i][1])), 10, false);
		cell(f, share(b2, sizeof(b2), get(g, rows[i][1]), w), 8, false);
		fputc('\n', f);
	}
	fprintf(f, "  %-13s %10s\n", "comm/comp",
	        pctf(b1, sizeof(b1), get(g, "comm_comp_overlap_pct"), 1.0));
	kt = get(g, "kernel_types");
	if (gp_value_len(kt)) {
		fprintf(f, "  kernel types\n");
		for (i = 0; i < gp_value_len(kt); i++) {
			const struct gp_value *k = gp_arr_get(kt, i);

			fprintf(f, "    ");
			cell(f, dur(b1, sizeof(b1), get(k, "ns")), 10, false);
			cell(f, pctf(b2, sizeof(b2), get(k, "pct"), 1.0), 8, false);
			fprintf(f, "  %s\n", fit(nb, sizeof(nb), str(get(k, "type"), "-"), 70));
		}
	}
	ib = get(g, "idle_breakdown");
	if (gp_value_len(ib)) {
		fprintf(f, "  idle by stream  %6s %7s  %11s  %11s  %11s\n", "device", "stream",
		        "host wait", "kernel wait", "other");
		for (i = 0; i < gp_value_len(ib); i++) {
			const struct gp_value *s = gp_arr_get(ib, i);

			fprintf(f, "  %15s %6s %7s  ", "", intf(b1, sizeof(b1), get(s, "device")),
			        intf(b2, sizeof(b2), get(s, "stream")));
			cell(f, dur(b3, sizeof(b3), get(s, "host_wait_ns")), 11, false);
			fputs("  ", f);
			cell(f, dur(b4, sizeof(b4), get(s, "kernel_wait_ns")), 11, false);
			fputs("  ", f);
			cell(f, dur(b1, sizeof(b1), get(s, "other_ns")), 11, false);
			fputc('\n', f);
		}
	}
}

static void print_util(FILE *f, const struct gp_value *r)
{
	const struct gp_value *u = get(r, "gpu_utilization");
	char b1[32], b2[32], b3[32], b4[32];
	size_t i;

	if (!gp_value_len(u))
		return;
	heading(f, "Utilisation (steps window)");
	fprintf(f, "  %6s  %10s  %11s  %13s  %13s\n", "device", "window", "utilization",
	        "SM efficiency", "occupancy");
	for (i = 0; i < gp_value_len(u); i++) {
		const struct gp_value *d = gp_arr_get(u, i);

		fprintf(f, "  %6s  ", intf(b1, sizeof(b1), get(d, "device")));
		cell(f, dur(b2, sizeof(b2), get(d, "window_ns")), 10, false);
		fputs("  ", f);
		cell(f, pctf(b3, sizeof(b3), get(d, "utilization"), 100.0), 11, false);
		fputs("  ", f);
		cell(f, pctf(b4, sizeof(b4), get(d, "sm_efficiency"), 100.0), 13, false);
		fputs("  ", f);
		cell(f, pctf(b1, sizeof(b1), get(d, "achieved_occupancy_pct"), 1.0), 13, false);
		fputc('\n', f);
	}
}

static const char *const step_keys[] = { "kernel",  "memcpy",     "memset",   "communication",
	                                 "runtime", "dataloader", "cpu_exec", "other" };
static const char *const step_heads[] = { "Kernel",  "Memcpy", "Memset", "Comm",
	                                  "Runtime", "DataLd", "CPU",    "Other" };

static void print_steps(FILE *f, const struct gp_value *r, const struct gp_print_opts *o)
{
	const struct gp_value *steps = get(r, "steps"), *st = get(r, "step_stats");
	char b[64], key[40], nb[64];
	size_t i, k, n = rows_to_show(steps, o);

	if (!gp_value_len(steps))
		return;
	heading(f, "Steps (share of step time)");
	fprintf(f, "  %-18s %9s", "step", "duration");
	for (k = 0; k < 8; k++)
		fprintf(f, " %7s", step_heads[k]);
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		const struct gp_value *s = gp_arr_get(steps, i), *bd = get(s, "breakdown");

		snprintf(nb, sizeof(nb), "%s%s", str(get(s, "name"), "-"),
		         gp_value_get_bool(get(s, "incomplete"), false) ? " (inc.)" : "");
		fputs("  ", f);
		cell(f, fit(b, sizeof(b), nb, 18), 18, true);
		fputc(' ', f);
		cell(f, dur(b, sizeof(b), get(s, "dur_ns")), 9, false);
		for (k = 0; k < 8; k++) {
			snprintf(key, sizeof(key), "%s_ns", step_keys[k]);
			fputc(' ', f);
			cell(f, share(b, sizeof(b), get(bd, key), get(s, "dur_ns")), 7, false);
		}
		fputc('\n', f);
	}
	if (n < gp_value_len(steps))
		fprintf(f, "  … %zu more\n", gp_value_len(steps) - n);
	if (st) {
		const struct gp_value *bp = get(st, "breakdown_pct");

		fputs("  ", f);
		cell(f, "mean", 18, true);
		fputc(' ', f);
		cell(f, dur(b, sizeof(b), get(st, "mean_ns")), 9, false);
		for (k = 0; k < 8; k++) {
			snprintf(key, sizeof(key), "%s_pct", step_keys[k]);
			fputc(' ', f);
			cell(f, pctf(b, sizeof(b), get(bp, key), 1.0), 7, false);
		}
		fputc('\n', f);
		fprintf(f, "  median %s", dur(b, sizeof(b), get(st, "median_ns")));
		fprintf(f, "   p95 %s", dur(b, sizeof(b), get(st, "p95_ns")));
		fprintf(f, "   min %s", dur(b, sizeof(b), get(st, "min_ns")));
		fprintf(f, "   max %s", dur(b, sizeof(b), get(st, "max_ns")));
		fprintf(f, "   std %s\n", dur(b, sizeof(b), get(st, "std_ns")));
	}
}

/* nsys stats columns: Time %, Total, Instances, Avg, Med, Min, Max, StdDev, Name */
static void print_stats_table(FILE *f, const struct gp_value *r, const char *key, const char *title,
                              const struct gp_print_opts *o)
{
	static const char *const cols[] = { "avg_ns", "med_ns", "min_ns", "max_ns", "std_ns" };
	const struct gp_value *arr = get(r, key);
	int namew = o->width - (7 + 9 + 10 + 5 * 9 + 2);
	char b[512];
	size_t i, k, n = rows_to_show(arr, o);

	if (!arr)
		return;
	heading(f, title);
	if (!gp_value_len(arr)) {
		fprintf(f, "  (none)\n");
		return;
	}
	if (namew < NAME_MIN)
		namew = NAME_MIN;
	fprintf(f, "%7s%9s%10s%9s%9s%9s%9s%9s  %s\n", "Time %", "Total", "Instances", "Avg", "Med",
	        "Min", "Max", "StdDev", "Name");
	for (i = 0; i < n; i++) {
		const struct gp_value *row = gp_arr_get(arr, i);

		cell(f, pctf(b, sizeof(b), get(row, "pct"), 1.0), 7, false);
		cell(f, dur(b, sizeof(b), get(row, "total_ns")), 9, false);
		cell(f, intf(b, sizeof(b), get(row, "count")), 10, false);
		for (k = 0; k < 5; k++)
			cell(f, dur(b, sizeof(b), get(row, cols[k])), 9, false);
		fputs("  ", f);
		fputs(fit(b, sizeof(b), str(get(row, "name"), "-"), namew), f);
		fputc('\n', f);
	}
	more_rows(f, r, key, n, gp_value_len(arr));
}

static void print_memory_ops(FILE *f, const struct gp_value *r, const struct gp_print_opts *o)
{
	const struct gp_value *arr = get(r, "memory_ops");
	int namew = o->width - (7 + 9 + 10 + 9 + 11 + 11 + 9 + 2);
	char b[512];
	size_t i, n = rows_to_show(arr, o);

	if (!arr)
		return;
	heading(f, "Memory operations");
	if (!gp_value_len(arr)) {
		fprintf(f, "  (none)\n");
		return;
	}
	fprintf(f, "%7s%9s%10s%9s%11s%11s%9s  %s\n", "Time %", "Total", "Count", "Avg", "Bytes",
	        "Avg bytes", "GB/s", "Name");
	for (i = 0; i < n; i++) {
		const struct gp_value *row = gp_arr_get(arr, i);
		double bw;

		cell(f, pctf(b, sizeof(b), get(row, "pct"), 1.0), 7, false);
		cell(f, dur(b, sizeof(b), get(row, "total_ns")), 9, false);
		cell(f, intf(b, sizeof(b), get(row, "count")), 10, false);
		cell(f, dur(b, sizeof(b), get(row, "avg_ns")), 9, false);
		cell(f, bytes(b, sizeof(b), get(row, "total_bytes")), 11, false);
		cell(f, bytes(b, sizeof(b), get(row, "avg_bytes")), 11, false);
		if (num(get(row, "bandwidth_gbps"), &bw))
			snprintf(b, sizeof(b), "%.2f", bw);
		else
			snprintf(b, sizeof(b), "-");
		cell(f, b, 9, false);
		fputs("  ", f);
		fputs(fit(b, sizeof(b), str(get(row, "name"), "-"), namew), f);
		fputc('\n', f);
	}
	more_rows(f, r, "memory_ops", n, gp_value_len(arr));
}

/* annotations (CPU time and GPU-projected time) and CPU operators (self and total) */
static void print_ops(FILE *f, const struct gp_value *r, const char *key, const char *title,
                      bool cpu_ops, const struct gp_print_opts *o)
{
	const struct gp_value *arr = get(r, key);
	int namew = o->width - (10 + 10 + 10 + 10 + 10 + 2);
	char b[512];
	size_t i, n = rows_to_show(arr, o);

	if (!arr || !gp_value_len(arr))
		return;
	heading(f, title);
	if (cpu_ops)
		fprintf(f, "%10s%10s%10s%10s%10s  %s\n", "Self %", "Self", "Total", "Calls", "GPU",
		        "Name");
	else
		fprintf(f, "%10s%10s%10s%10s%10s  %s\n", "Time %", "Total", "Avg", "Calls", "GPU",
		        "Name");
	for (i = 0; i < n; i++) {
		const struct gp_value *row = gp_arr_get(arr, i);

		if (cpu_ops) {
			cell(f, pctf(b, sizeof(b), get(row, "pct_self"), 1.0), 10, false);
			cell(f, dur(b, sizeof(b), get(row, "self_ns")), 10, false);
			cell(f, dur(b, sizeof(b), get(row, "total_ns")), 10, false);
		} else {
			cell(f, pctf(b, sizeof(b), get(row, "pct"), 1.0), 10, false);
			cell(f, dur(b, sizeof(b), get(row, "total_ns")), 10, false);
			cell(f, dur(b, sizeof(b), get(row, "avg_ns")), 10, false);
		}
		cell(f, intf(b, sizeof(b), get(row, "count")), 10, false);
		cell(f, dur(b, sizeof(b), get(row, "gpu_ns")), 10, false);
		fputs("  ", f);
		fputs(fit(b, sizeof(b), str(get(row, "name"), "-"), namew), f);
		fputc('\n', f);
	}
	more_rows(f, r, key, n, gp_value_len(arr));
}

static void print_memory(FILE *f, const struct gp_value *r, const struct gp_print_opts *o)
{
	const struct gp_value *m = get(r, "memory"), *devs, *top;
	char b1[64], b2[64], b3[64], nb[512];
	size_t i, n;

	if (gp_value_type(m) != GP_VALUE_OBJECT)
		return;
	devs = get(m, "devices");
	heading(f, "Memory");
	fprintf(f, "  %6s %12s %12s %12s  %s\n", "device", "peak alloc", "peak reserv", "at end",
	        "peak in");
	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);
		const char *dev = gp_value_get_str(get(d, "device"));

		if (!dev)
			dev = intf(b1, sizeof(b1), get(d, "device"));
		fprintf(f, "  ");
		cell(f, dev, 6, false);
		fputc(' ', f);
		cell(f, bytes(b1, sizeof(b1), get(d, "peak_allocated_bytes")), 12, false);
		fputc(' ', f);
		cell(f, bytes(b2, sizeof(b2), get(d, "peak_reserved_bytes")), 12, false);
		fputc(' ', f);
		cell(f, bytes(b3, sizeof(b3), get(d, "final_allocated_bytes")), 12, false);
		snprintf(nb, sizeof(nb), "%s / %s", str(get(d, "peak_step"), "-"),
		         str(get(d, "peak_op"), "-"));
		fprintf(f, "  %s%s\n", fit(b3, sizeof(b3), nb, 40),
		        gp_value_get_bool(get(d, "leak_suspect"), false) ? "  LEAK?" : "");
	}
	top = get(m, "top_allocators");
	n = rows_to_show(top, o);
	if (n) {
		fprintf(f, "  top allocators %12s %10s  %s\n", "bytes", "count", "operator");
		for (i = 0; i < n; i++) {
			const struct gp_value *a = gp_arr_get(top, i);

			fprintf(f, "  %14s ", "");
			cell(f, bytes(b1, sizeof(b1), get(a, "bytes")), 12, false);
			fputc(' ', f);
			cell(f, intf(b2, sizeof(b2), get(a, "count")), 10, false);
			fprintf(f, "  %s\n", fit(nb, sizeof(nb), str(get(a, "name"), "-"), 56));
		}
	}
}

static void print_launches(FILE *f, const struct gp_value *r)
{
	const struct gp_value *l = get(r, "launches"), *d, *q;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	size_t i;

	if (gp_value_type(l) != GP_VALUE_OBJECT)
		return;
	d = get(l, "launch_delay_ns");
	heading(f, "Launches");
	fprintf(f, "  launches %s   delay p50 %s  p90 %s  p99 %s  max %s\n",
	        intf(b1, sizeof(b1), get(l, "count")), dur(b2, sizeof(b2), get(d, "p50")),
	        dur(b3, sizeof(b3), get(d, "p90")), dur(b4, sizeof(b4), get(d, "p99")),
	        dur(b5, sizeof(b5), get(d, "max")));
	fprintf(f, "  kernels shorter than their launch call: %s (%s)\n",
	        intf(b1, sizeof(b1), get(get(l, "short_kernels"), "count")),
	        pctf(b2, sizeof(b2), get(get(l, "short_kernels"), "pct"), 1.0));
	q = get(l, "queue");
	if (gp_value_len(q)) {
		fprintf(f, "  queue  %6s %7s %8s %8s  %14s\n", "device", "stream", "max", "mean",
		        "at limit");
		for (i = 0; i < gp_value_len(q); i++) {
			const struct gp_value *s = gp_arr_get(q, i);
			double mean;

			if (num(get(s, "mean"), &mean))
				snprintf(b3, sizeof(b3), "%.1f", mean);
			else
				snprintf(b3, sizeof(b3), "-");
			fprintf(f, "  %5s  %6s %7s %8s %8s  ", "",
			        intf(b1, sizeof(b1), get(s, "device")),
			        intf(b2, sizeof(b2), get(s, "stream")),
			        intf(b4, sizeof(b4), get(s, "max")), b3);
			cell(f, dur(b1, sizeof(b1), get(s, "time_at_limit_ns")), 14, false);
			fputc('\n', f);
		}
	}
}

static void print_evidence(FILE *f, const struct gp_value *ev, int w)
{
	char line[1024], b[64];
	size_t i, o = 0;

	line[0] = '\0';
	for (i = 0; i < gp_value_len(ev); i++) {
		const char *k = gp_obj_key_at(ev, i);
		const struct gp_value *v = gp_obj_value_at(ev, i);
		size_t kl = strlen(k);
		const char *s;

		if (kl > 3 && strcmp(k + kl - 3, "_ns") == 0)
			s = dur(b, sizeof(b), v);
		else if (kl > 4 && strcmp(k + kl - 4, "_pct") == 0)
			s = pctf(b, sizeof(b), v, 1.0);
		else if (kl >= 5 && strcmp(k + kl - 5, "bytes") == 0)
			s = bytes(b, sizeof(b), v);
		else if (gp_value_type(v) == GP_VALUE_DOUBLE) {
			double d = 0;

			s = num(v, &d) ? (snprintf(b, sizeof(b), "%.4g", d), b) : "-";
		} else if (gp_value_type(v) == GP_VALUE_STRING)
			s = str(v, "-");
		else
			s = intf(b, sizeof(b), v);
		{
			/* a value stays on one line: its spaces become \x1f until printed */
			char nb[64], *p;

			snprintf(nb, sizeof(nb), "%s", s);
			for (p = nb; *p; p++)
				if (*p == ' ')
					*p = '\x1f';
			o += (size_t)snprintf(line + o, o < sizeof(line) ? sizeof(line) - o : 0,
			                      "%s%s=%s", i ? ", " : "", k, nb);
		}
		if (o >= sizeof(line))
			break;
	}
	if (line[0])
		wrap(f, line, 5, w, "evidence: ");
}

static void print_findings(FILE *f, const struct gp_value *r, const struct gp_print_opts *o)
{
	const struct gp_value *fs = get(r, "findings");
	size_t i;

	if (!fs)
		return;
	heading(f, "Findings");
	if (!gp_value_len(fs)) {
		fprintf(f, "  nothing stands out\n");
		return;
	}
	for (i = 0; i < gp_value_len(fs); i++) {
		const struct gp_value *x = gp_arr_get(fs, i);
		char first[64];

		snprintf(first, sizeof(first), "%zu. [%s] ", i + 1, str(get(x, "severity"), "-"));
		wrap(f, str(get(x, "title"), "-"), 2, o->width, first);
		print_evidence(f, get(x, "evidence"), o->width);
		wrap(f, str(get(x, "suggestion"), "-"), 5, o->width, "→ ");
	}
}

static void print_rank(FILE *f, const struct gp_value *r, const struct gp_print_opts *o)
{
	print_header(f, r);
	if (!has_gpu(r)) {
		fprintf(f, "\nNo GPU activity in this trace: GPU sections are skipped.\n");
	} else {
		print_gpu(f, r);
		print_util(f, r);
	}
	print_steps(f, r, o);
	if (has_gpu(r)) {
		print_stats_table(f, r, "kernels", "Top GPU kernels", o);
		print_memory_ops(f, r, o);
	}
	print_stats_table(f, r, "api_calls", "Top CUDA API calls", o);
	print_ops(f, r, "annotations", "User annotations (CPU time; GPU: projected)", false, o);
	print_ops(f, r, "gpu_annotations", "GPU annotations", false, o);
	print_ops(f, r, "cpu_ops", "Top CPU operators", true, o);
	print_memory(f, r, o);
	if (has_gpu(r))
		print_launches(f, r);
	print_findings(f, r, o);
}

/* ---- report-wide parts: tags, the metrics timeline of a run directory ---- */

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "tags      k=v k2=v2" (keys sorted), nothing when there is none */
static void print_tags(FILE *f, const struct gp_value *report)
{
	const struct gp_value *t = get(report, "tags");
	size_t i, n = gp_value_len(t);
	const char **keys;

	if (gp_value_type(t) != GP_VALUE_OBJECT || !n)
		return;
	keys = xcalloc(n, sizeof(*keys));
	for (i = 0; i < n; i++)
		keys[i] = gp_obj_key_at(t, i);
	qsort(keys, n, sizeof(*keys), cmp_cstr);
	fputs("tags     ", f);
	for (i = 0; i < n; i++)
		fprintf(f, " %s=%s", keys[i], str(get(t, keys[i]), "-"));
	fputc('\n', f);
	free(keys);
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
	double d;

	if (!num(v, &d))
		return "-";
	snprintf(buf, n, "%.*f%s", decimals, d, suffix);
	return buf;
}

static void print_metrics(FILE *f, const struct gp_value *report)
{
	const struct gp_value *m = get(report, "metrics"), *series = get(m, "series"),
	                      *gpus = get(m, "gpus");
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[64];
	size_t i;

	if (gp_value_type(m) != GP_VALUE_OBJECT)
		return;
	if (gp_value_get_str(get(m, "error"))) {
		heading(f, "Metrics");
		fprintf(f, "  cannot read %s\n", str(get(m, "error"), "-"));
		return;
	}
	fprintf(f, "\nMetrics (%s samples, every %s ms%s)\n",
	        intf(b1, sizeof(b1), get(m, "samples")),
	        intf(b2, sizeof(b2), get(m, "interval_ms")),
	        gp_value_get_bool(get(m, "ended"), true) ? "" : "; cut short");
	if (gp_value_len(gpus)) {
		fprintf(f, "  %-24s %9s %8s %21s %10s %9s %8s\n", "GPU", "util mean", "util max",
		        "memory peak", "power mean", "power max", "temp max");
		for (i = 0; i < gp_value_len(gpus); i++) {
			const struct gp_value *g = gp_arr_get(gpus, i);
			char prefix[32], name[64], mem[80];
			double idx = 0;

			num(get(g, "index"), &idx);
			snprintf(prefix, sizeof(prefix), "gpu%.0f", idx);
			snprintf(b7, sizeof(b7), "%.0f %s", idx, str(get(g, "name"), "-"));
			fputs("  ", f);
			cell(f, fit(name, sizeof(name), b7, 24), 24, true);
			fputc(' ', f);
			cell(f,
			     pctf(b1, sizeof(b1),
			          series_stat(series, prefix, "utilization_gpu_ratio", "mean"),
			          100.0),
			     9, false);
			fputc(' ', f);
			cell(f,
			     pctf(b2, sizeof(b2),
			          series_stat(series, prefix, "utilization_gpu_ratio", "max"),
			          100.0),
			     8, false);
			fputc(' ', f);
			snprintf(mem, sizeof(mem), "%s / %s",
			         bytes(b3, sizeof(b3),
			               series_stat(series, prefix, "memory_used_bytes", "max")),
			         bytes(b4, sizeof(b4), get(g, "memory_total_bytes")));
			cell(f, mem, 21, false);
			fputc(' ', f);
			cell(f,
			     unitf(b5, sizeof(b5),
			           series_stat(series, prefix, "power_watts", "mean"), 1, " W"),
			     10, false);
			fputc(' ', f);
			cell(f,
			     unitf(b6, sizeof(b6),
			           series_stat(series, prefix, "power_watts", "max"), 1, " W"),
			     9, false);
			fputc(' ', f);
			cell(f,
			     unitf(b1, sizeof(b1),
			           series_stat(series, prefix, "temperature_celsius", "max"), 0,
			           " °C"),
			     8, false);
			fputc('\n', f);
		}
	} else {
		fprintf(f, "  no GPU: %s\n", str(get(m, "gpu_status"), "-"));
	}
	fprintf(f, "  host CPU busy   mean %s  max %s\n",
	        pctf(b1, sizeof(b1), series_stat(series, "host", "cpu_busy_ratio", "mean"), 100.0),
	        pctf(b2, sizeof(b2), series_stat(series, "host", "cpu_busy_ratio", "max"), 100.0));
	if (series_stat(series, "process_tree", "rss_bytes", "max") ||
	    series_stat(series, "process_tree", "cpu_cores", "max"))
		fprintf(
		    f, "  process tree    RSS peak %s  CPU mean %s  max %s cores\n",
		    bytes(b1, sizeof(b1), series_stat(series, "process_tree", "rss_bytes", "max")),
		    unitf(b2, sizeof(b2), series_stat(series, "process_tree", "cpu_cores", "mean"),
		          2, ""),
		    unitf(b3, sizeof(b3), series_stat(series, "process_tree", "cpu_cores", "max"),
		          2, ""));
}

void gp_print_report(FILE *f, const struct gp_value *report, const struct gp_print_opts *opts)
{
	struct gp_print_opts o = { .top = 10, .width = 100 };
	const struct gp_value *ranks = get(report, "ranks");
	size_t i;

	if (opts)
		o = *opts;
	if (o.width < 60)
		o.width = 60;
	print_tags(f, report);
	for (i = 0; i < gp_value_len(ranks); i++) {
		if (i)
			fputc('\n', f);
		print_rank(f, gp_arr_get(ranks, i), &o);
	}
	if (!gp_value_len(ranks))
		fprintf(f, "no ranks in this report\n");
	print_metrics(f, report);
}
