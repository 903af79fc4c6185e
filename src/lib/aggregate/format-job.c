/* SPDX-License-Identifier: MIT */
/*
 * format-job.c - two sections of an aggregate's text (format.c draws the
 * rest, format-int.h what they share): the clocks of the hosts (offset, the
 * estimate's uncertainty, the hard bound, the ranks) and the collectives per
 * process group and name (the name column as wide as the names, the groups'
 * descriptions under the table, point-to-point operations last); and the
 * groups of ranks by host or GPU model that format.c's header shows too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format-int.h"
#include "gpuprof/aggregate.h"
#include "text/text.h"
#include "util/error.h"

/* ---- rank lists: "0-3, 5, 7-9" ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void gp__agf_add_ranks(struct gp_buf *b, int64_t *r, size_t n, int *rc)
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

void gp__agf_groups_free(struct gp__agf_group *g, size_t n)
{
	if (g && n)
		gp__free(g[0].ranks);
	gp__free(g);
}

/* the groups' ranks in one array of n (not one of n per group: ranks² with a host per rank) */
int gp__agf_groups_of(const struct gp_value *ranks, const char *key, struct gp__agf_group **out,
                      size_t *nout)
{
	size_t n = gp_value_len(ranks), ng = 0, at = 0;
	struct gp__agf_group *g;
	size_t *of = NULL;
	int64_t *all = NULL;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	g = gp__calloc(n, sizeof(*g));
	of = gp__calloc(n, sizeof(*of));
	all = gp__calloc(n, sizeof(*all));
	if (!g || !of || !all) {
		gp__free(g);
		gp__free(of);
		gp__free(all);
		return GP_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		const char *name = gp_value_get_str(get(r, key));
		size_t k;

		for (k = 0; k < ng; k++)
			if ((!name && !g[k].name) ||
			    (name && g[k].name && strcmp(name, g[k].name) == 0))
				break;
		if (k == ng) {
			g[ng].name = name;
			g[ng].first = r;
			ng++;
		}
		g[k].n++;
		of[i] = k;
	}
	for (size_t k = 0; k < ng; k++) {
		g[k].ranks = all + at;
		at += g[k].n;
		g[k].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t rank = -1;

		gp_value_get_int(get(gp_arr_get(ranks, i), "rank"), &rank);
		g[of[i]].ranks[g[of[i]].n++] = rank;
	}
	gp__free(of);
	*out = g;
	*nout = ng;
	return 0;
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
void gp__agf_print_clocks(struct agf *f, const struct gp_value *agg)
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
	struct gp__agf_group *g = NULL;
	size_t ng = 0, shown;
	bool any = false;
	int rc;

	memcpy(c, cols, sizeof(c));
	if (f->wide)
		c[0].cut = WIDE_CUT;
	if ((rc = gp__agf_groups_of(ranks, "host", &g, &ng))) {
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
		gp__agf_add_ranks(&rl, g[i].ranks, g[i].n, &rc);
		keep(f, rc);
		clock_row(f, &t, g[i].name ? g[i].name : "-", g[i].first, rl.buf ? rl.buf : "");
	}
	if (shown < ng)
		out(f, "  … %zu more hosts\n", ng - shown);
	gp__buf_release(&rl);
out_groups:
	gp__agf_groups_free(g, ng);
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

void gp__agf_print_collectives(struct agf *f, const struct gp_value *agg)
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
