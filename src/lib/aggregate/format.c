/* SPDX-License-Identifier: MIT */
/*
 * format.c - an aggregate document for people (gp_aggregate_format()):
 * the header (ranks, hosts, GPUs, clock alignment, warnings), the first
 * desynchronisation when there is one, the stragglers, the clocks of the
 * hosts, the per-rank table with its min/max/mean rows and outlier marks,
 * the collectives per process group and name, and the findings.
 *
 * Reads only the gpuprof.aggregate/1 document (its schema is issue 22's) and
 * computes nothing beyond grouping ranks by host and model and choosing the
 * ranks to show: an unknown (null or missing) value prints as "-". Numbers,
 * the table and the Findings section are the text layer's (text/text.h), as
 * analyze's; the CLI only chooses the width and --top and writes the text.
 *
 * format-job.c draws the clocks and the collectives and groups the ranks by
 * host or model (format-int.h).
 *
 * Many ranks: with more than 2 * top ranks (top 0: all) the per-rank table
 * shows the top slowest and the top fastest ranks by mean step time and every
 * rank with an outlier mark, in rank order, and says how many it left out;
 * its min/max/mean rows always cover every rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format-int.h"
#include "gpuprof/aggregate.h"
#include "text/text.h"
#include "util/error.h"

/* ---- header ---- */

/* "hosts     2: node-0 (ranks 0-3), node-1 (ranks 4-7)"; "GPUs      NVIDIA H100 ×8" */
static void print_groups(struct agf *f, const struct gp_value *ranks, const char *key,
                         const char *lead, const char *unknown, bool count_first)
{
	struct gp_buf line = GP_BUF_INIT;
	struct gp__agf_group *g = NULL;
	size_t ng = 0, shown;
	int rc;

	if ((rc = gp__agf_groups_of(ranks, key, &g, &ng)) || !ng) {
		keep(f, rc);
		return;
	}
	/* nothing known of any rank: one word, not a list */
	if (ng == 1 && !g[0].name) {
		out(f, "%s%s\n", lead, unknown);
		goto out_groups;
	}
	shown = rows_to_show(ng, f);
	if (count_first) { /* the hosts known: ranks of an unknown one are no host more */
		size_t named = 0;

		for (size_t i = 0; i < ng; i++)
			named += g[i].name != NULL;
		rc = gp__buf_addf(&line, "%zu: ", named);
	}
	/* an entry stays on one line ("NVIDIA H100 80GB HBM3 (ranks 0-3, 5)"): its spaces do not
	 * break */
	for (size_t i = 0; i < shown && !rc; i++) {
		size_t at;

		if (i)
			rc = gp__buf_addstr(&line, ", ");
		at = line.len;
		if (!rc)
			rc = gp__buf_addf(&line, "%s (%s ", g[i].name ? g[i].name : unknown,
			                  g[i].n == 1 ? "rank" : "ranks");
		if (!rc)
			gp__agf_add_ranks(&line, g[i].ranks, g[i].n, &rc);
		if (!rc)
			rc = gp__buf_addch(&line, ')');
		for (size_t k = at; k < line.len && !rc; k++)
			if (line.buf[k] == ' ')
				line.buf[k] = '\x1f';
	}
	if (!rc && shown < ng)
		rc = gp__buf_addf(&line, ", … %zu more", ng - shown);
	keep(f, rc);
	if (!rc)
		wrap(f, line.buf, 0, lead);
	gp__buf_release(&line);
out_groups:
	gp__agf_groups_free(g, ng);
}

static void print_header(struct agf *f, const struct gp_value *agg)
{
	const struct gp_value *ranks = get(agg, "ranks"), *clock = get(agg, "clock");
	const struct gp_value *w = get(agg, "warnings");
	char b1[32], b2[32], b3[32];
	double ws = nv(get(agg, "world_size")), un = nv(get(agg, "unmatched"));
	size_t n = gp_value_len(ranks);

	out(f, "== aggregate: %zu rank%s", n, n == 1 ? "" : "s");
	if (isfinite(ws))
		out(f, " of world size %s", gp__fmt_count(b1, sizeof(b1), ws));
	else
		out(f, ", world size unknown");
	out(f, ", backend %s ==\n", str(get(agg, "backend"), "-"));
	print_groups(f, ranks, "host", "hosts     ", "unknown", true);
	print_groups(f, ranks, "gpu_model", "GPUs      ", "unknown", false);
	if (gp_value_type(clock) == GP_VALUE_OBJECT) {
		const char *method = str(get(clock, "method"), "-");
		double p2p = nv(get(clock, "p2p_excluded"));
		char line[256], b4[32];

		if (isfinite(p2p) && p2p > 0)
			snprintf(b4, sizeof(b4), " (%s point-to-point left out)",
			         gp__fmt_count(b3, sizeof(b3), p2p));
		else
			b4[0] = '\0';
		if (strcmp(method, "none") == 0)
			snprintf(line, sizeof(line),
			         "not aligned: no collective links the ranks' clocks%s; offsets "
			         "unknown",
			         b4);
		else if (strcmp(method, "one-clock") == 0)
			snprintf(line, sizeof(line), "one clock: every rank on one host");
		else
			snprintf(
			    line, sizeof(line),
			    "%s from rank %s's clock over %s collectives%s; max uncertainty ±%s",
			    method, gp__fmt_count(b1, sizeof(b1), nv(get(clock, "reference_rank"))),
			    gp__fmt_count(b2, sizeof(b2), nv(get(clock, "collectives_used"))), b4,
			    gp__fmt_dur(b3, sizeof(b3), nv(get(clock, "max_uncertainty_ns")), 0));
		wrap(f, line, 0, "clock     ");
	} else {
		out(f, "clock     not aligned (no collective shared between the hosts)\n");
	}
	if (isfinite(un) && un > 0) {
		char first[48];

		snprintf(first, sizeof(first), "unmatched %s ", gp__fmt_count(b1, sizeof(b1), un));
		wrap(f,
		     "collectives outside the window every rank's profile covers (the ranks' "
		     "profiler windows differ): not matched, no desync",
		     0, first);
	}
	for (size_t i = 0; i < gp_value_len(w); i++)
		wrap(f, str(gp_arr_get(w, i), "-"), 0, "warning   ");
}

/* ---- desync ---- */

static void print_desync(struct agf *f, const struct gp_value *d)
{
	const char *kind = str(get(d, "kind"), "-"), *pg = str(get(d, "pg"), "-");
	const char *coll = str(get(d, "collective"), "collective");
	struct gp_buf line = GP_BUF_INIT;
	char b1[32], b2[32];
	int rc;

	if (gp_value_type(d) != GP_VALUE_OBJECT)
		return;
	gp__fmt_count(b1, sizeof(b1), nv(get(d, "rank")));
	gp__fmt_count(b2, sizeof(b2), nv(get(d, "seq")));
	if (strcmp(kind, "missing") == 0)
		rc = gp__buf_addf(&line, "rank %s is missing %s #%s of process group %s", b1, coll,
		                  b2, pg);
	else if (strcmp(kind, "metadata") == 0)
		rc = gp__buf_addf(&line,
		                  "rank %s's %s #%s of process group %s differs from the other "
		                  "ranks'",
		                  b1, coll, b2, pg);
	else
		rc = gp__buf_addf(&line, "rank %s, %s #%s of process group %s (%s)", b1, coll, b2,
		                  pg, kind);
	keep(f, rc);
	out(f, "\n");
	if (!rc)
		wrap(f, line.buf, 0, "!! DESYNC: ");
	gp__buf_release(&line);
	if (gp_value_get_str(get(d, "detail")))
		wrap(f, str(get(d, "detail"), "-"), 3, "");
	gp__text_evidence(&f->o, get(d, "expected"), f->width, 3, "expected: ");
	if (gp_value_type(get(d, "found")) == GP_VALUE_OBJECT)
		gp__text_evidence(&f->o, get(d, "found"), f->width, 3, "found:    ");
	else
		out(f, "   found:    nothing (the rank never ran it)\n");
	wrap(f,
	     "the ranks hang or fail from here; the collectives that match on every rank are "
	     "still analysed below",
	     3, "");
}

/* ---- stragglers ---- */

static void print_stragglers(struct agf *f, const struct gp_value *agg)
{
	static const struct gp__col cols[] = {
		{ .head = "rank", .width = 5 },
		{ .head = "blame", .width = 10, .gap = "  " },
		{ .head = "last", .width = 6, .gap = "  " },
		{ .head = "of", .width = 6, .gap = " " },
		{ .head = "last %", .width = 7, .gap = "  " },
		{ .head = "p-value", .width = 7, .gap = "  " },
		{ .head = "significant", .width = 11, .gap = "  ", .flags = GP__COL_LEFT },
		{ .head = "cause", .cut = WIDE_CUT, .gap = "  ", .flags = GP__COL_LEFT },
	};
	const struct gp__table t = { cols, 8, "  ", false };
	const struct gp_value *s = get(agg, "stragglers");
	size_t n = gp_value_len(s), shown = rows_to_show(n, f);
	char b[7][32];

	if (!s)
		return;
	out(f,
	    "\nStragglers (arrived last at a collective; by blame: the others' wait it caused)\n");
	if (!n) {
		out(f, "  none: no rank arrived last at a matched collective\n");
		return;
	}
	keep(f, gp__table_head(&f->o.b, &t));
	for (size_t i = 0; i < shown; i++) {
		const struct gp_value *r = gp_arr_get(s, i);
		const struct gp_value *sig = get(r, "significant");
		const char *cells[8] = {
			gp__fmt_count(b[0], sizeof(b[0]), nv(get(r, "rank"))),
			gp__fmt_dur(b[1], sizeof(b[1]), nv(get(r, "blame_ns")), 0),
			gp__fmt_count(b[2], sizeof(b[2]), nv(get(r, "last_count"))),
			gp__fmt_count(b[3], sizeof(b[3]), nv(get(r, "collectives"))),
			gp__fmt_pct(b[4], sizeof(b[4]), nv(get(r, "last_arrival_pct")), 0),
			gp__fmt_pvalue(b[5], sizeof(b[5]), nv(get(r, "p_value"))),
			gp_value_type(sig) != GP_VALUE_BOOL ? "-"
			: gp_value_get_bool(sig, false)     ? "yes"
			                                    : "no",
			str(get(r, "cause"), "-"),
		};

		keep(f, gp__table_cells(&f->o.b, &t, cells));
		if (gp_value_get_str(get(r, "cause_detail")))
			wrap(f, str(get(r, "cause_detail"), "-"), 9, "");
	}
	if (shown < n)
		out(f, "  … %zu more (--top 0 or --json for all)\n", n - shown);
}

/* ---- the per-rank table ---- */

/* the metrics of the table: member, heading, kind */
enum kind { K_DUR, K_PCT, K_BYTES, K_MHZ };
static const struct metric {
	const char *key, *head;
	enum kind kind;
} metrics[] = {
	{ "step_mean_ns", "step mean", K_DUR }, { "step_p50_ns", "p50", K_DUR },
	{ "step_p95_ns", "p95", K_DUR },        { "gpu_idle_pct", "idle", K_PCT },
	{ "compute_ns", "compute", K_DUR },     { "exposed_comm_ns", "exp comm", K_DUR },
	{ "wait_ns", "wait", K_DUR },           { "peak_memory_bytes", "peak mem", K_BYTES },
	{ "gpu_clock_mhz", "MHz", K_MHZ },
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static const char *metric_cell(char *buf, size_t n, const struct metric *m, double v, bool mark)
{
	char b[32];

	switch (m->kind) {
	case K_DUR:
		gp__fmt_dur(b, sizeof(b), v, 0);
		break;
	case K_PCT:
		gp__fmt_pct(b, sizeof(b), v, 0);
		break;
	case K_BYTES:
		gp__fmt_bytes(b, sizeof(b), v, 0);
		break;
	case K_MHZ:
		gp__fmt_count(b, sizeof(b), v);
		break;
	}
	/* the mark goes before the value: right-aligned numbers stay aligned */
	snprintf(buf, n, "%s%s", mark ? "*" : "", b);
	return buf;
}

static bool is_outlier(const struct gp_value *r, const char *key)
{
	const struct gp_value *o = get(r, "outliers");

	for (size_t i = 0; i < gp_value_len(o); i++)
		if (strcmp(str(gp_arr_get(o, i), ""), key) == 0)
			return true;
	return false;
}

struct rank_table {
	struct gp__col c[2 + NMETRICS];
	struct gp__table t;
};

static void rank_table_init(struct rank_table *rt, const struct agf *f)
{
	static const size_t widths[NMETRICS] = { 10, 10, 10, 8, 10, 10, 10, 11, 6 };
	size_t fixed = 2 + 5, host;

	for (size_t i = 0; i < NMETRICS; i++)
		fixed += widths[i];
	/* the host takes what the numbers leave, 6 to 24 columns; none under 6 */
	host = (size_t)f->width > fixed + 7 ? (size_t)f->width - fixed - 1 : 0;
	if (host > 24)
		host = 24;
	rt->c[0] = (struct gp__col){ .head = "rank", .width = 5 };
	rt->c[1] = (struct gp__col){ .head = "host",
		                     .width = host,
		                     .cut = f->wide ? WIDE_CUT : host,
		                     .gap = " ",
		                     .flags = GP__COL_LEFT };
	for (size_t i = 0; i < NMETRICS; i++)
		rt->c[2 + i] = (struct gp__col){ .head = metrics[i].head, .width = widths[i] };
	rt->t = (struct gp__table){ rt->c, 2 + NMETRICS, "  ", false };
	if (host < 6) { /* no host column: the numbers move left */
		memmove(rt->c + 1, rt->c + 2, NMETRICS * sizeof(rt->c[0]));
		rt->t.n--;
	}
}

static void rank_row(struct agf *f, const struct rank_table *rt, const struct gp_value *r)
{
	char b[2 + NMETRICS][40];
	const char *cells[2 + NMETRICS];
	size_t k = 0;

	cells[k++] = gp__fmt_count(b[0], sizeof(b[0]), nv(get(r, "rank")));
	if (rt->t.n == 2 + NMETRICS)
		cells[k++] = str(get(r, "host"), "-");
	for (size_t i = 0; i < NMETRICS; i++, k++)
		cells[k] = metric_cell(b[k], sizeof(b[k]), &metrics[i], nv(get(r, metrics[i].key)),
		                       is_outlier(r, metrics[i].key));
	keep(f, gp__table_cells(&f->o.b, &rt->t, cells));
}

/* "min", "max", "mean" over every rank, from the document's table */
static void stat_row(struct agf *f, const struct rank_table *rt, const struct gp_value *table,
                     const char *stat)
{
	char b[2 + NMETRICS][40];
	const char *cells[2 + NMETRICS];
	size_t k = 0;

	cells[k++] = stat;
	if (rt->t.n == 2 + NMETRICS)
		cells[k++] = "";
	for (size_t i = 0; i < NMETRICS; i++, k++)
		cells[k] = metric_cell(b[k], sizeof(b[k]), &metrics[i],
		                       nv(get(get(table, metrics[i].key), stat)), false);
	keep(f, gp__table_cells(&f->o.b, &rt->t, cells));
}

/* a rank by its mean step time, for choosing the ranks to show */
struct by_step {
	double step; /* NaN: unknown */
	size_t i;    /* position in "ranks" */
};

/* slowest first; unknown last; then by position */
static int cmp_slowest(const void *a, const void *b)
{
	const struct by_step *x = a, *y = b;

	if (isfinite(x->step) != isfinite(y->step))
		return isfinite(x->step) ? -1 : 1;
	if (isfinite(x->step) && x->step != y->step)
		return x->step > y->step ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * Which ranks to show: all of them up to 2 * top; beyond, the top slowest,
 * the top fastest (by mean step time) and every rank with an outlier.
 * @return the number marked in @p show, or (size_t)-1 without memory.
 */
static size_t choose_ranks(const struct agf *f, const struct gp_value *ranks, bool *show)
{
	size_t n = gp_value_len(ranks), known = 0, shown = 0;
	struct by_step *order;

	if (!f->top || n <= 2 * f->top) {
		for (size_t i = 0; i < n; i++)
			show[i] = true;
		return n;
	}
	if (!(order = gp__calloc(n, sizeof(*order))))
		return (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		order[i] = (struct by_step){ nv(get(gp_arr_get(ranks, i), "step_mean_ns")), i };
		known += isfinite(order[i].step);
	}
	qsort(order, n, sizeof(*order), cmp_slowest);
	/* unknown step times sort last: the fastest are the last known ones */
	for (size_t k = 0; k < n; k++)
		if (k < f->top || (k < known && k + f->top >= known) ||
		    gp_value_len(get(gp_arr_get(ranks, order[k].i), "outliers")))
			show[order[k].i] = true;
	gp__free(order);
	for (size_t i = 0; i < n; i++)
		shown += show[i];
	return shown;
}

static void print_ranks(struct agf *f, const struct gp_value *agg)
{
	const struct gp_value *ranks = get(agg, "ranks"), *table = get(agg, "table");
	size_t n = gp_value_len(ranks), shown;
	struct rank_table rt;
	bool *show, marks = false;

	if (!n)
		return;
	if (!(show = gp__calloc(n, sizeof(*show)))) {
		keep(f, GP_ENOMEM);
		return;
	}
	shown = choose_ranks(f, ranks, show);
	if (shown == (size_t)-1) {
		keep(f, GP_ENOMEM);
		goto out_show;
	}
	rank_table_init(&rt, f);
	out(f, "\n");
	wrap(f,
	     "(exp comm: communication no compute overlaps; wait: in collectives; MHz: SM clock)",
	     0, "Ranks ");
	keep(f, gp__table_head(&f->o.b, &rt.t));
	for (size_t i = 0; i < n; i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);

		if (!show[i])
			continue;
		marks |= gp_value_len(get(r, "outliers")) > 0;
		rank_row(f, &rt, r);
	}
	if (shown < n) {
		char line[256];

		snprintf(
		    line, sizeof(line),
		    "%zu of %zu ranks not shown: these are the %zu slowest and the %zu fastest "
		    "by mean step time and every outlier (--top 0 for all); min, max and mean "
		    "cover all",
		    n - shown, n, f->top, f->top);
		wrap(f, line, 2, "… ");
	}
	stat_row(f, &rt, table, "min");
	stat_row(f, &rt, table, "max");
	stat_row(f, &rt, table, "mean");
	if (marks)
		out(f, "  *: a robust outlier, more than 3 × 1.4826 × MAD from the median of the "
		       "ranks\n");
out_show:
	gp__free(show);
}

GP_API int gp_aggregate_format(const struct gp_value *agg, const struct gp_aggregate_format_opts *o,
                               char **text, size_t *len)
{
	struct agf f = { .o = { GP_BUF_INIT, 0 }, .top = 10, .width = 100 };
	const char *schema = gp_value_get_str(get(agg, "schema"));

	if (!text)
		return gp__error(GP_EINVAL, "gp_aggregate_format: NULL argument");
	*text = NULL;
	if (len)
		*len = 0;
	if (gp_value_type(agg) != GP_VALUE_OBJECT || !schema ||
	    strcmp(schema, GP_AGGREGATE_SCHEMA) != 0)
		return gp__error(GP_EINVAL, "gp_aggregate_format: not a %s document",
		                 GP_AGGREGATE_SCHEMA);
	if (o) {
		f.top = o->top;
		f.wide = o->flags & GP_AGGREGATE_FORMAT_WIDE;
		f.width = o->width <= 0 ? 100 : o->width > 1000 ? 1000 : o->width;
	}
	if (f.width < 60)
		f.width = 60;
	print_header(&f, agg);
	print_desync(&f, get(agg, "desync"));
	print_stragglers(&f, agg);
	print_ranks(&f, agg);
	gp__agf_print_clocks(&f, agg);
	gp__agf_print_collectives(&f, agg);
	gp__text_findings(&f.o, get(agg, "findings"), f.width);
	return gp__out_detach(&f.o, text, len);
}
