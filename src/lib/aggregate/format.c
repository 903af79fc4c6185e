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
 * Many ranks: with more than 2 * top ranks (top 0: all) the per-rank table
 * shows the top slowest and the top fastest ranks by mean step time and every
 * rank with an outlier mark, in rank order, and says how many it left out;
 * its min/max/mean rows always cover every rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/aggregate.h"
#include "text/text.h"
#include "util/error.h"

/*
 * The cut of a column whose names are whole (--wide): a cut still makes
 * control characters of a hostile document '?', which no cut (0) would not
 */
#define WIDE_CUT 4096

struct agf {
	struct gp__out o;
	size_t top; /* rows per table, 0: all */
	int width;  /* columns */
	bool wide;  /* names whole */
};

#define out(f, ...) gp__out_addf(&(f)->o, __VA_ARGS__)

static void keep(struct agf *f, int rc)
{
	gp__out_keep(&f->o, rc);
}

static const struct gp_value *get(const struct gp_value *v, const char *key)
{
	return gp_obj_get(v, key);
}

/* the number of @p v, NaN (unknown) when it has none */
static double nv(const struct gp_value *v)
{
	double d;

	return gp_value_get_double(v, &d) ? d : NAN;
}

static const char *str(const struct gp_value *v, const char *dflt)
{
	const char *s = gp_value_get_str(v);

	return s ? s : dflt;
}

static size_t rows_to_show(size_t n, const struct agf *f)
{
	return f->top && n > f->top ? f->top : n;
}

/* word-wraps @p s at the width after @p indent spaces and @p first (text.h RAW) */
static void wrap(struct agf *f, const char *s, int indent, const char *first)
{
	char lead[96];

	snprintf(lead, sizeof(lead), "%*s%s", indent, "", first);
	keep(f, gp__text_wrap(&f->o.b, lead, s, (size_t)f->width,
	                      (size_t)indent + gp__text_width(first), GP__WRAP_RAW));
}

/* ---- rank lists: "0-3, 5, 7-9" ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* appends ranks @p r[0..n) (sorted here) as ranges; at most 8 ranges, then "…" */
static void add_ranks(struct gp_buf *b, int64_t *r, size_t n, int *rc)
{
	size_t i = 0, ranges = 0;

	qsort(r, n, sizeof(*r), cmp_i64);
	while (i < n && !*rc) {
		size_t j = i;

		while (j + 1 < n && r[j + 1] == r[j] + 1)
			j++;
		if (ranges++ == 8) {
			*rc = gp__buf_addstr(b, ", …");
			return;
		}
		if (j == i)
			*rc = gp__buf_addf(b, "%s%lld", i ? ", " : "", (long long)r[i]);
		else
			*rc = gp__buf_addf(b, "%s%lld-%lld", i ? ", " : "", (long long)r[i],
			                   (long long)r[j]);
		i = j + 1;
	}
}

/*
 * Groups of ranks sharing the string member @p key (host, gpu_model): the
 * distinct values in order of first rank, each with its ranks; a rank whose
 * value is unknown goes in a group of NULL.
 */
struct group {
	const char *name; /* NULL: unknown */
	const struct gp_value *first;
	int64_t *ranks;
	size_t n;
};

static void groups_free(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gp__free(g[i].ranks);
	gp__free(g);
}

static int groups_of(const struct gp_value *ranks, const char *key, struct group **out,
                     size_t *nout)
{
	size_t n = gp_value_len(ranks), ng = 0;
	struct group *g;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	if (!(g = gp__calloc(n, sizeof(*g))))
		return GP_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		const char *name = gp_value_get_str(get(r, key));
		int64_t rank = -1;
		size_t k;

		gp_value_get_int(get(r, "rank"), &rank);
		for (k = 0; k < ng; k++)
			if ((!name && !g[k].name) ||
			    (name && g[k].name && strcmp(name, g[k].name) == 0))
				break;
		if (k == ng) {
			g[ng].name = name;
			g[ng].first = r;
			if (!(g[ng].ranks = gp__calloc(n, sizeof(int64_t)))) {
				groups_free(g, ng);
				return GP_ENOMEM;
			}
			ng++;
		}
		g[k].ranks[g[k].n++] = rank;
	}
	*out = g;
	*nout = ng;
	return 0;
}

/* ---- header ---- */

/* "hosts     2: node-0 (ranks 0-3), node-1 (ranks 4-7)"; "GPUs      NVIDIA H100 ×8" */
static void print_groups(struct agf *f, const struct gp_value *ranks, const char *key,
                         const char *lead, const char *unknown, bool count_first)
{
	struct gp_buf line = GP_BUF_INIT;
	struct group *g = NULL;
	size_t ng = 0, shown;
	int rc;

	if ((rc = groups_of(ranks, key, &g, &ng)) || !ng) {
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
			add_ranks(&line, g[i].ranks, g[i].n, &rc);
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
	groups_free(g, ng);
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
			                                    : "no (chance)",
			str(get(r, "cause"), "-"),
		};

		keep(f, gp__table_cells(&f->o.b, &t, cells));
		if (gp_value_get_str(get(r, "cause_detail")))
			wrap(f, str(get(r, "cause_detail"), "-"), 9, "");
	}
	if (shown < n)
		out(f, "  … %zu more (--top 0 or --json for all)\n", n - shown);
}

/* ---- clocks ---- */

/* an offset: "+12.35 ms", "-1.200 µs", "0 ns" */
static const char *offset(char *buf, size_t n, const struct gp_value *v)
{
	double o = nv(v);

	return gp__fmt_dur(buf, n, o, o != 0 ? GP__FMT_SIGN : 0);
}

/* the feasible interval of an offset: "-4.556 ms..-784.1 µs"; "-" unknown */
static const char *bound(char *buf, size_t n, const struct gp_value *r)
{
	const struct gp_value *b = get(r, "clock_bound_ns");
	double lo = nv(gp_arr_get(b, 0)), hi = nv(gp_arr_get(b, 1));
	char t1[32], t2[32];

	if (gp_value_len(b) != 2 || !isfinite(lo) || !isfinite(hi))
		return "-";
	snprintf(buf, n, "%s..%s", offset(t1, sizeof(t1), gp_arr_get(b, 0)),
	         offset(t2, sizeof(t2), gp_arr_get(b, 1)));
	return buf;
}

/* one row of the clocks table: @p name, the offset of rank @p r, its ranks @p ranks */
static void clock_row(struct agf *f, const struct gp__table *t, const char *name,
                      const struct gp_value *r, const char *ranks)
{
	char b1[32], b2[40], b3[80];
	double u = nv(get(r, "clock_uncertainty_ns"));
	const char *cells[5];

	cells[0] = name;
	cells[1] = offset(b1, sizeof(b1), get(r, "clock_offset_ns"));
	if (isfinite(u)) {
		char tb[32];

		snprintf(b2, sizeof(b2), "±%s", gp__fmt_dur(tb, sizeof(tb), u, 0));
		cells[2] = b2;
	} else {
		cells[2] = "-";
	}
	cells[3] = bound(b3, sizeof(b3), r);
	cells[4] = ranks;
	keep(f, gp__table_cells(&f->o.b, t, cells));
}

/* the offset of each host (its first rank's: ranks of a host share it) when any is not 0 */
static void print_clocks(struct agf *f, const struct gp_value *agg)
{
	static const struct gp__col cols[] = {
		{ .head = "host", .width = 16, .cut = 16, .flags = GP__COL_LEFT },
		{ .head = "offset", .width = 11, .gap = "  " },
		{ .head = "uncertainty", .width = 11, .gap = "  " },
		{ .head = "bound", .width = 23, .gap = "  " },
		{ .head = "ranks", .gap = "  ", .flags = GP__COL_LEFT },
	};
	struct gp__col c[5];
	const struct gp__table t = { c, 5, "  ", false };
	const struct gp_value *ranks = get(agg, "ranks");
	struct gp_buf rl = GP_BUF_INIT;
	struct group *g = NULL;
	size_t ng = 0, shown;
	bool any = false;
	int rc;

	memcpy(c, cols, sizeof(c));
	if (f->wide)
		c[0].cut = WIDE_CUT;
	if ((rc = groups_of(ranks, "host", &g, &ng))) {
		keep(f, rc);
		return;
	}
	for (size_t i = 0; i < gp_value_len(ranks); i++) {
		double o = nv(get(gp_arr_get(ranks, i), "clock_offset_ns"));

		if (!isfinite(o) || o != 0)
			any = true;
	}
	if (!any || !ng)
		goto out_groups;
	out(f, "\n");
	wrap(f,
	     "(add the offset to a rank's times for the reference clock; uncertainty: the "
	     "estimate's; bound: where the offset must lie)",
	     0, "Clocks ");
	keep(f, gp__table_head(&f->o.b, &t));
	/* hosts unknown: one group of NULL, shown rank by rank */
	if (ng == 1 && !g[0].name) {
		size_t n = gp_value_len(ranks);

		shown = rows_to_show(n, f);
		for (size_t i = 0; i < shown; i++) {
			const struct gp_value *r = gp_arr_get(ranks, i);
			char rk[32];

			clock_row(f, &t, "-", r, gp__fmt_count(rk, sizeof(rk), nv(get(r, "rank"))));
		}
		if (shown < n)
			out(f, "  … %zu more ranks\n", n - shown);
		goto out_groups;
	}
	shown = rows_to_show(ng, f);
	for (size_t i = 0; i < shown; i++) {
		rc = 0;
		gp__buf_reset(&rl);
		add_ranks(&rl, g[i].ranks, g[i].n, &rc);
		keep(f, rc);
		clock_row(f, &t, g[i].name ? g[i].name : "-", g[i].first, rl.buf ? rl.buf : "");
	}
	if (shown < ng)
		out(f, "  … %zu more hosts\n", ng - shown);
	gp__buf_release(&rl);
out_groups:
	groups_free(g, ng);
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

/* ---- collectives ---- */

/* the widest of @p cells' first @p n, at least @p min, at most @p max */
static size_t fit_width(const char *const *cells, size_t n, size_t min, size_t max)
{
	size_t w = min;

	for (size_t i = 0; i < n; i++) {
		size_t x = gp__text_width(cells[i]);

		if (x > w)
			w = x;
	}
	return w > max ? max : w;
}

/* "pg 0 = default_pg, 1 = tp_group, 2 = tp_group" under the table: the groups' descriptions */
static void print_pg_legend(struct agf *f, const struct gp_value *cs, size_t shown)
{
	struct gp_buf line = GP_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < shown && !rc; i++) {
		const struct gp_value *x = gp_arr_get(cs, i);
		const char *pg = gp_value_get_str(get(x, "pg"));
		const char *desc = gp_value_get_str(get(x, "pg_desc"));
		bool seen = false;

		if (!pg || !desc)
			continue;
		for (size_t k = 0; k < i && !seen; k++) {
			const char *p2 = gp_value_get_str(get(gp_arr_get(cs, k), "pg"));

			seen = p2 && gp_value_get_str(get(gp_arr_get(cs, k), "pg_desc")) &&
			       strcmp(p2, pg) == 0;
		}
		if (!seen)
			rc = gp__buf_addf(&line, "%s%s\x1f=\x1f%s", line.len ? ", " : "", pg, desc);
	}
	keep(f, rc);
	if (!rc && line.len)
		wrap(f, line.buf, 2, "process groups: ");
	gp__buf_release(&line);
}

static void print_collectives(struct agf *f, const struct gp_value *agg)
{
	static const struct gp__col cols[] = {
		{ .head = "pg", .flags = GP__COL_LEFT | GP__COL_CTRL },
		{ .head = "name", .gap = " ", .flags = GP__COL_LEFT | GP__COL_CTRL },
		{ .head = "count", .width = 6, .gap = " " },
		{ .head = "bytes", .width = 10, .gap = " " },
		{ .head = "transfer", .width = 9, .gap = " " },
		{ .head = "wait", .width = 9, .gap = " " },
		{ .head = "skew p95", .width = 9, .gap = " " },
		{ .head = "algbw", .width = 7, .gap = " " },
		{ .head = "busbw", .width = 7, .gap = " " },
		{ .head = "x-host", .gap = " ", .flags = GP__COL_LEFT },
	};
	/* the columns after the name, their gaps and the indent */
	const size_t fixed = 2 + 7 + 11 + 10 + 10 + 10 + 8 + 8 + 7 + 1;
	struct gp__col c[10];
	const struct gp__table t = { c, 10, "  ", false };
	const struct gp_value *cs = get(agg, "collectives");
	size_t n = gp_value_len(cs), shown = rows_to_show(n, f), room, pgw, namew;
	const char **pgs = NULL, **names = NULL;
	bool p2p = false;
	char b[10][48];

	if (!cs)
		return;
	memcpy(c, cols, sizeof(c));
	out(f,
	    "\nCollectives (per process group and name, by wait; bandwidths in GB/s = 1e9 B/s)\n");
	if (!n) {
		out(f, "  none matched across the ranks\n");
		return;
	}
	pgs = gp__calloc(shown, sizeof(*pgs));
	names = gp__calloc(shown, sizeof(*names));
	if (!pgs || !names) {
		keep(f, GP_ENOMEM);
		goto out_cells;
	}
	for (size_t i = 0; i < shown; i++) {
		const struct gp_value *x = gp_arr_get(cs, i);

		pgs[i] = str(get(x, "pg"), "-");
		names[i] = str(get(x, "name"), "-");
		p2p |= gp_value_get_bool(get(x, "p2p"), false);
	}
	/* the names whole when they fit; the process group compact (its name; the legend below) */
	room = (size_t)f->width > fixed + 2 + 8 ? (size_t)f->width - fixed : 2 + 8;
	pgw = fit_width(pgs, shown, 2, f->wide ? WIDE_CUT : 12);
	namew = fit_width(names, shown, 4, f->wide ? WIDE_CUT : 40);
	/* too narrow for the names: cut them, to no less than the 14 columns they always had */
	if (!f->wide && pgw + namew > room && namew > 14)
		namew = room > pgw + 14 ? room - pgw : 14;
	c[0].width = c[0].cut = pgw;
	c[1].width = c[1].cut = namew;
	keep(f, gp__table_head(&f->o.b, &t));
	for (size_t i = 0; i < shown; i++) {
		const struct gp_value *x = gp_arr_get(cs, i), *xh = get(x, "cross_host");
		const char *cells[10];

		cells[0] = pgs[i];
		cells[1] = names[i];
		cells[2] = gp__fmt_count(b[2], sizeof(b[2]), nv(get(x, "count")));
		cells[3] = gp__fmt_bytes(b[3], sizeof(b[3]), nv(get(x, "bytes")), 0);
		cells[4] = gp__fmt_dur(b[4], sizeof(b[4]), nv(get(x, "transfer_ns")), 0);
		cells[5] = gp__fmt_dur(b[5], sizeof(b[5]), nv(get(x, "wait_ns")), 0);
		cells[6] = gp__fmt_dur(b[6], sizeof(b[6]), nv(get(get(x, "skew_ns"), "p95")), 0);
		cells[7] = gp__fmt_rate(b[7], sizeof(b[7]), nv(get(x, "algbw_gbps")));
		cells[8] = gp__fmt_rate(b[8], sizeof(b[8]), nv(get(x, "busbw_gbps")));
		cells[9] = gp_value_type(xh) != GP_VALUE_BOOL ? "-"
		           : gp_value_get_bool(xh, false)     ? "yes"
		                                              : "no";
		keep(f, gp__table_cells(&f->o.b, &t, cells));
	}
	if (shown < n)
		out(f, "  … %zu more (--top 0 or --json for all)\n", n - shown);
	print_pg_legend(f, cs, shown);
	if (p2p)
		wrap(f,
		     "point-to-point operations (send, recv, sendrecv) join two ranks, not the "
		     "group: they have no wait or skew, and take no part in the clocks and the "
		     "stragglers",
		     2, "");
out_cells:
	gp__free(pgs);
	gp__free(names);
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
	print_clocks(&f, agg);
	print_collectives(&f, agg);
	gp__text_findings(&f.o, get(agg, "findings"), f.width);
	return gp__out_detach(&f.o, text, len);
}
