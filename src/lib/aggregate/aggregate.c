/* SPDX-License-Identifier: MIT */
/*
 * aggregate.c - gp_aggregate_paths(): the ranks loaded (load.c), their
 * collectives matched (match.c), their clocks aligned (clock.c), the
 * arrivals judged (stragglers.c), and the gpuprof.aggregate/1 document
 * written: the inputs, the clock, the per-rank table with its robust
 * outliers, the stragglers, the collectives per (process group, name), the
 * desynchronisation, the heatmap of wait per rank over the aligned time, and
 * the findings in analyze's shape and ranking (docs/aggregate-schema.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate-doc.h"
#include "aggregate-int.h"
#include "gpuprof/stats.h"
#include "text/text.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/sort.h"

#define OUTLIER_MADS 3.0   /* |x - median| > 3 × 1.4826 × MAD */
#define AUTO_BINS    100   /* heatmap bins when bin_ns is 0 */
#define MAX_BINS     10000 /* a bin_ns that would give more is widened */

GP_API void gp_aggregate_opts_init(struct gp_aggregate_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->analyze.size = sizeof(o->analyze);
	o->analyze.only_rank = -1;
}

static int set_str(struct gp_value *o, const char *key, const char *s)
{
	return s ? gp_obj_set_str(o, key, s) : gp_obj_set_null(o, key);
}

static struct gp_value *new_obj(struct gp_value *parent, const char *key)
{
	struct gp_value *o = gp_value_object();

	if (o && gp_obj_set(parent, key, o))
		return NULL; /* gp_obj_set frees it */
	return o;
}

static struct gp_value *new_arr(struct gp_value *parent, const char *key)
{
	struct gp_value *o = gp_value_array();

	if (o && gp_obj_set(parent, key, o))
		return NULL;
	return o;
}

/* ---- the per-rank table ---- */

struct col {
	double median, mad, mean, min, max;
	size_t n, min_ix, max_ix;
};

static int column(const struct gp__agg *a, int m, double *v, struct col *c)
{
	size_t i;
	double sum = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < a->n; i++) {
		double x = a->r[i].m[m];

		if (!isfinite(x))
			continue;
		if (!c->n || x < c->min) {
			c->min = x;
			c->min_ix = i;
		}
		if (!c->n || x > c->max) {
			c->max = x;
			c->max_ix = i;
		}
		sum += x;
		v[c->n++] = x;
	}
	if (!c->n)
		return 0;
	c->mean = sum / (double)c->n;
	qsort(v, c->n, sizeof(*v), gp__cmp_double);
	c->median = gp_quantile_sorted(v, c->n, 0.5);
	for (i = 0; i < c->n; i++)
		v[i] = fabs(v[i] - c->median);
	qsort(v, c->n, sizeof(*v), gp__cmp_double);
	c->mad = gp_quantile_sorted(v, c->n, 0.5);
	return 0;
}

static int table_and_ranks(struct gp__agg *a, struct gp_value *doc)
{
	struct gp_value *table = new_obj(doc, "table"), *ranks = new_arr(doc, "ranks");
	struct gp_value **outl = gp__calloc(a->n ? a->n : 1, sizeof(*outl));
	double *v = gp__calloc(a->n ? a->n : 1, sizeof(*v));
	size_t i;
	int m, rc = 0;

	if (!table || !ranks || !outl || !v)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < a->n; i++)
		GP_TRY(GP__AGG_NEW(outl[i] = gp_value_array()));
	for (m = 0; m < GP_AGG_NMETRICS; m++) {
		struct gp_value *t;
		struct col c;

		GP_TRY(column(a, m, v, &c));
		if (!c.n) {
			GP_TRY(gp_obj_set_null(table, gp__agg_metric_keys[m]));
			continue;
		}
		GP_TRY(GP__AGG_NEW(t = new_obj(table, gp__agg_metric_keys[m])));
		GP_TRY(gp__agg_set_num(t, "min", c.min));
		GP_TRY(gp__agg_set_num(t, "max", c.max));
		GP_TRY(gp__agg_set_num(t, "mean", c.mean));
		GP_TRY(gp__agg_set_num(t, "median", c.median));
		GP_TRY(gp_obj_set_int(t, "min_rank", a->r[c.min_ix].rank));
		GP_TRY(gp_obj_set_int(t, "max_rank", a->r[c.max_ix].rank));
		if (c.mad <= 0)
			continue;
		for (i = 0; i < a->n; i++) {
			double x = a->r[i].m[m];

			if (isfinite(x) &&
			    fabs(x - c.median) > OUTLIER_MADS * GP__AGG_MAD_SCALE * c.mad)
				GP_TRY(gp_arr_push(outl[i], gp_value_str(gp__agg_metric_keys[m])));
		}
	}
	for (i = 0; i < a->n; i++) {
		const struct gp__agg_rank *r = &a->r[i];
		struct gp_value *o;

		GP_TRY(GP__AGG_NEW(o = gp_value_object()));
		GP_TRY(gp_arr_push(ranks, o));
		GP_TRY(gp_obj_set_int(o, "rank", r->rank));
		GP_TRY(set_str(o, "host", r->host));
		GP_TRY(gp_obj_set_str(o, "file", r->file));
		if (isfinite(r->unc_ns)) {
			struct gp_value *bound;

			GP_TRY(gp_obj_set_int(o, "clock_offset_ns", r->offset_ns));
			GP_TRY(gp__agg_set_num(o, "clock_uncertainty_ns", round(r->unc_ns)));
			GP_TRY(GP__AGG_NEW(bound = new_arr(o, "clock_bound_ns")));
			GP_TRY(gp_arr_push(bound, gp_value_int(r->bound_lo)));
			GP_TRY(gp_arr_push(bound, gp_value_int(r->bound_hi)));
		} else { /* not aligned: unknown */
			GP_TRY(gp_obj_set_null(o, "clock_offset_ns"));
			GP_TRY(gp_obj_set_null(o, "clock_uncertainty_ns"));
			GP_TRY(gp_obj_set_null(o, "clock_bound_ns"));
		}
		for (m = 0; m < GP_AGG_NMETRICS; m++)
			GP_TRY(gp__agg_set_num(o, gp__agg_metric_keys[m], r->m[m]));
		GP_TRY(set_str(o, "gpu_model", r->gpu_model));
		GP_TRY(gp_obj_set(o, "outliers", outl[i]));
		outl[i] = NULL;
	}
out:
	for (i = 0; outl && i < a->n; i++)
		gp_value_free(outl[i]);
	gp__free(outl);
	gp__free(v);
	return rc;
}

/* ---- the collectives per (pg, name) ---- */

struct gref {
	uint32_t pg, name;
	size_t k;
};

static int cmp_gref(const void *x, const void *y)
{
	const struct gref *a = x, *b = y;

	if (a->pg != b->pg)
		return a->pg < b->pg ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

static const char *pg_desc(const struct gp__agg *a, uint32_t pg)
{
	size_t i, k;

	for (i = 0; i < a->n; i++)
		for (k = 0; k < a->r[i].npg; k++)
			if (a->r[i].pg[k].name == pg && a->r[i].pg[k].desc != GP__AGG_NONE)
				return gp__strtab_get(&a->str, a->r[i].pg[k].desc);
	return NULL;
}

static const char *id_str(const struct gp__agg *a, uint32_t id)
{
	return id == GP__AGG_NONE ? NULL : gp__strtab_get(&a->str, id);
}

/* whether instance @p in crossed hosts: true, false, or -1 when a host is unknown */
static int crossed(const struct gp__agg *a, const struct gp__agg_inst *in)
{
	const char *h0 = NULL;
	bool unknown = false;
	size_t m;

	for (m = in->first; m < in->first + in->n; m++) {
		const char *h = a->r[a->mem[m].rank].host;

		if (!h) {
			unknown = true;
			continue;
		}
		if (!h0)
			h0 = h;
		else if (strcmp(h, h0) != 0)
			return 1;
	}
	return unknown ? -1 : 0;
}

struct group {
	uint32_t pg, name;
	bool p2p;
	int64_t count, ranks, bytes, xfer_known, bytes_xfer, transfer, wait, n_for_factor;
	int cross; /* 1, 0, -1 unknown */
	double *skew;
	size_t nskew;
};

static int group_obj(const struct gp__agg *a, const struct group *g, struct gp_value **out)
{
	struct gp_value *o = gp_value_object(), *s;
	double algbw = g->xfer_known > 0 ? (double)g->bytes_xfer / (double)g->xfer_known : NAN;
	double factor = gp__agg_busbw_factor(id_str(a, g->name), g->n_for_factor), sum = 0;
	size_t i;
	int rc = 0;

	*out = NULL;
	GP_TRY(GP__AGG_NEW(o));
	GP_TRY(set_str(o, "pg", id_str(a, g->pg)));
	GP_TRY(set_str(o, "pg_desc", g->pg == GP__AGG_NONE ? NULL : pg_desc(a, g->pg)));
	GP_TRY(set_str(o, "name", id_str(a, g->name)));
	GP_TRY(gp_obj_set_int(o, "count", g->count));
	GP_TRY(gp_obj_set_int(o, "ranks", g->ranks));
	GP_TRY(g->bytes >= 0 ? gp_obj_set_int(o, "bytes", g->bytes) : gp_obj_set_null(o, "bytes"));
	GP_TRY(gp_obj_set_bool(o, "p2p", g->p2p));
	GP_TRY(gp_obj_set_int(o, "transfer_ns", g->transfer));
	if (g->p2p) { /* two peers of the group: no wait, no skew (docs: "Point-to-point") */
		GP_TRY(gp_obj_set_null(o, "wait_ns"));
		GP_TRY(gp_obj_set_null(o, "skew_ns"));
		goto bw;
	}
	GP_TRY(gp_obj_set_int(o, "wait_ns", g->wait));
	GP_TRY(GP__AGG_NEW(s = new_obj(o, "skew_ns")));
	for (i = 0; i < g->nskew; i++)
		sum += g->skew[i];
	qsort(g->skew, g->nskew, sizeof(*g->skew), gp__cmp_double);
	GP_TRY(gp__agg_set_num(s, "mean", g->nskew ? sum / (double)g->nskew : NAN));
	GP_TRY(gp__agg_set_num(s, "p95",
	                       g->nskew ? gp_quantile_sorted(g->skew, g->nskew, 0.95) : NAN));
	GP_TRY(gp__agg_set_num(s, "max", g->nskew ? g->skew[g->nskew - 1] : NAN));
bw:
	GP_TRY(gp__agg_set_num(o, "algbw_gbps", algbw)); /* bytes per ns = 1e9 B/s */
	GP_TRY(gp__agg_set_num(o, "busbw_gbps", algbw * factor));
	GP_TRY(gp__agg_set_num(o, "factor", factor));
	GP_TRY(g->cross < 0 ? gp_obj_set_null(o, "cross_host")
	                    : gp_obj_set_bool(o, "cross_host", g->cross == 1));
	*out = o;
	o = NULL;
out:
	gp_value_free(o);
	return rc;
}

/* by wait, descending; point-to-point (no wait) last, by transfer */
static int cmp_wait_obj(const void *x, const void *y)
{
	const struct gp_value *p = *(struct gp_value *const *)x, *q = *(struct gp_value *const *)y;
	bool pp = gp_value_get_bool(gp_obj_get(p, "p2p"), false);
	bool qp = gp_value_get_bool(gp_obj_get(q, "p2p"), false);
	int64_t a = 0, b = 0;

	if (pp != qp)
		return pp ? 1 : -1;
	if (pp) {
		gp_value_get_int(gp_obj_get(p, "transfer_ns"), &a);
		gp_value_get_int(gp_obj_get(q, "transfer_ns"), &b);
		return a > b ? -1 : a < b;
	}
	gp_value_get_int(gp_obj_get(*(struct gp_value *const *)x, "wait_ns"), &a);
	gp_value_get_int(gp_obj_get(*(struct gp_value *const *)y, "wait_ns"), &b);
	return a > b ? -1 : a < b;
}

static int collectives(const struct gp__agg *a, struct gp_value *doc)
{
	struct gref *g = gp__calloc(a->ninst ? a->ninst : 1, sizeof(*g));
	double *skew = gp__calloc(a->ninst ? a->ninst : 1, sizeof(*skew));
	struct gp_value **objs = NULL, *list = new_arr(doc, "collectives");
	size_t k, i, j, nobj = 0, cap = 0;
	int rc = 0;

	if (!g || !skew || !list)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < a->ninst; k++)
		g[k] = (struct gref){ a->inst[k].pg, a->inst[k].name, k };
	qsort(g, a->ninst, sizeof(*g), cmp_gref);
	for (i = 0; i < a->ninst; i = j) {
		struct group gr = { .pg = g[i].pg,
			            .name = g[i].name,
			            .p2p = a->inst[g[i].k].p2p,
			            .bytes = 0,
			            .cross = 0 };
		bool bytes_known = false;

		gr.skew = skew;
		for (j = i; j < a->ninst && g[j].pg == g[i].pg && g[j].name == g[i].name; j++) {
			const struct gp__agg_inst *in = &a->inst[g[j].k];
			int c = crossed(a, in);

			gr.count++;
			if ((int64_t)in->n > gr.ranks)
				gr.ranks = (int64_t)in->n;
			if (!gr.n_for_factor)
				gr.n_for_factor =
				    in->group_size > 0 ? in->group_size : (int64_t)in->n;
			if (in->bytes >= 0) {
				bytes_known = true;
				gr.bytes = gp__agg_add(gr.bytes, in->bytes);
				gr.bytes_xfer = gp__agg_add(gr.bytes_xfer, in->bytes);
				gr.xfer_known = gp__agg_add(gr.xfer_known, in->transfer);
			}
			gr.transfer = gp__agg_add(gr.transfer, in->transfer);
			gr.wait = gp__agg_add(gr.wait, in->waits);
			skew[gr.nskew++] = (double)(in->max_start - in->min_start);
			if (c == 1 || (c < 0 && gr.cross == 0))
				gr.cross = c;
		}
		if (!bytes_known)
			gr.bytes = -1;
		GP_TRY(gp__grow((void **)&objs, &cap, nobj + 1, sizeof(*objs)));
		GP_TRY(group_obj(a, &gr, &objs[nobj]));
		nobj++;
	}
	if (nobj)
		qsort(objs, nobj, sizeof(*objs), cmp_wait_obj);
	for (i = 0; i < nobj; i++) {
		GP_TRY(gp_arr_push(list, objs[i]));
		objs[i] = NULL;
	}
out:
	for (i = 0; i < nobj; i++)
		gp_value_free(objs[i]);
	gp__free(objs);
	gp__free(g);
	gp__free(skew);
	return rc;
}

/* ---- the heatmap ---- */

static void add_wait(double *row, int64_t start, int64_t bin, size_t nbins, int64_t lo, int64_t hi)
{
	int64_t b;

	if (hi <= lo)
		return;
	for (b = (lo - start) / bin; b >= 0 && (size_t)b < nbins; b++) {
		int64_t bs = start + b * bin, be = bs + bin;
		int64_t s = lo > bs ? lo : bs, e = hi < be ? hi : be;

		if (s >= hi)
			break;
		if (e > s)
			row[b] += (double)(e - s);
	}
}

static int heatmap(const struct gp__agg *a, const struct gp_aggregate_opts *o, struct gp_value *doc,
                   int64_t *span_out)
{
	int64_t start = INT64_MAX, end = INT64_MIN, bin;
	struct gp_value *h, *ranks, *rows;
	double *w = NULL;
	size_t k, m, i, nbins, b;
	int rc = 0;

	*span_out = 0;
	for (k = 0; k < a->ninst; k++) {
		const struct gp__agg_inst *in = &a->inst[k];

		if (in->p2p)
			continue;
		if (in->min_start < start)
			start = in->min_start;
		for (m = in->first; m < in->first + in->n; m++) {
			const struct gp__agg_rank *r = &a->r[a->mem[m].rank];
			int64_t e = r->ent[a->mem[m].ent].end_ns + r->offset_ns;

			if (e > end)
				end = e;
		}
	}
	if (end <= start)
		return gp_obj_set_null(doc, "heatmap");
	*span_out = end - start;
	bin = o->bin_ns > 0 ? o->bin_ns : (end - start + AUTO_BINS - 1) / AUTO_BINS;
	if (bin < 1)
		bin = 1;
	if (bin > end - start)
		bin = end - start; /* one bin (and no overflow below for a huge --bin) */
	if ((end - start) / bin >= MAX_BINS)
		bin = (end - start + MAX_BINS - 1) / MAX_BINS;
	nbins = (size_t)((end - start + bin - 1) / bin);
	if (!nbins)
		nbins = 1;
	if (!(w = gp__calloc(nbins * a->n, sizeof(*w))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < a->ninst; k++) {
		const struct gp__agg_inst *in = &a->inst[k];

		for (m = in->first; m < in->first + in->n && !in->p2p; m++) {
			const struct gp__agg_rank *r = &a->r[a->mem[m].rank];

			add_wait(w + a->mem[m].rank * nbins, start, bin, nbins,
			         r->ent[a->mem[m].ent].start_ns + r->offset_ns, in->max_start);
		}
	}
	GP_TRY(GP__AGG_NEW(h = new_obj(doc, "heatmap")));
	GP_TRY(gp_obj_set_int(h, "start_ns", start));
	GP_TRY(gp_obj_set_int(h, "bin_ns", bin));
	GP_TRY(GP__AGG_NEW(ranks = new_arr(h, "ranks")));
	GP_TRY(GP__AGG_NEW(rows = new_arr(h, "wait_ns")));
	for (i = 0; i < a->n; i++) {
		struct gp_value *row;

		GP_TRY(gp_arr_push(ranks, gp_value_int(a->r[i].rank)));
		GP_TRY(GP__AGG_NEW(row = gp_value_array()));
		GP_TRY(gp_arr_push(rows, row));
		for (b = 0; b < nbins; b++)
			GP_TRY(gp_arr_push(row, gp_value_int(llround(w[i * nbins + b]))));
	}
out:
	gp__free(w);
	return rc;
}

/* ---- the document ---- */

static int head(const struct gp__agg *a, struct gp_value *doc)
{
	struct gp_value *in, *c;
	const char *backend = NULL;
	int64_t world = -1;
	size_t i;
	int rc = 0;

	GP_TRY(gp_obj_set_str(doc, "schema", GP_AGGREGATE_SCHEMA));
	GP_TRY(gp_obj_set_str(doc, "gpuprof_version", gp_version()));
	GP_TRY(GP__AGG_NEW(in = new_arr(doc, "inputs")));
	for (i = 0; i < a->n; i++) {
		struct gp_value *x;

		GP_TRY(GP__AGG_NEW(x = gp_value_object()));
		GP_TRY(gp_arr_push(in, x));
		GP_TRY(gp_obj_set_str(x, "file", a->r[i].file));
		GP_TRY(gp_obj_set_int(x, "rank", a->r[i].rank));
		if (world < 0)
			world = a->r[i].world_size;
		if (!backend)
			backend = a->r[i].backend;
	}
	GP_TRY(world >= 0 ? gp_obj_set_int(doc, "world_size", world)
	                  : gp_obj_set_null(doc, "world_size"));
	GP_TRY(set_str(doc, "backend", backend));
	if (gp_value_len(a->warnings))
		GP_TRY(gp_obj_set(doc, "warnings", gp_value_clone(a->warnings)));
	GP_TRY(GP__AGG_NEW(c = new_obj(doc, "clock")));
	GP_TRY(gp_obj_set_int(c, "reference_rank", a->n ? a->r[0].rank : 0));
	GP_TRY(gp_obj_set_str(c, "method", a->clock_method));
	GP_TRY(gp_obj_set_int(c, "collectives_used", a->clock_used));
	GP_TRY(gp_obj_set_int(c, "p2p_excluded", a->clock_p2p));
	GP_TRY(gp__agg_set_num(c, "max_uncertainty_ns",
	                       isfinite(a->max_unc_ns) ? round(a->max_unc_ns) : NAN));
out:
	return rc;
}

int gp__agg_document(struct gp__agg *a, const struct gp_aggregate_opts *o, struct gp_value **out)
{
	struct gp_value *doc = gp_value_object(), *strag = NULL;
	int64_t span = 0;
	int rc = 0;

	*out = NULL;
	GP_TRY(GP__AGG_NEW(doc));
	GP_TRY(head(a, doc));
	GP_TRY(table_and_ranks(a, doc));
	GP_TRY(gp__agg_stragglers(a, &strag));
	GP_TRY(gp_obj_set(doc, "stragglers", strag));
	GP_TRY(collectives(a, doc));
	GP_TRY(gp_obj_set(doc, "desync", a->desync ? gp_value_clone(a->desync) : gp_value_null()));
	GP_TRY(gp_obj_set_int(doc, "unmatched", a->unmatched));
	GP_TRY(heatmap(a, o, doc, &span));
	GP_TRY(gp__agg_findings(a, doc, strag, span));
	*out = doc;
	doc = NULL;
out:
	gp_value_free(doc);
	return rc;
}

/* from the loaded ranks to the document: the job's checks, matching, clocks, arrivals */
static int run(struct gp__agg *a, const struct gp_aggregate_opts *o, struct gp_value **out)
{
	int rc = 0;

	GP_TRY(gp__agg_check_job(a));
	GP_TRY(gp__agg_match(a));
	GP_TRY(gp__agg_check_matched(a));
	GP_TRY(gp__agg_clock(a));
	GP_TRY(gp__agg_arrivals(a));
	if (a->n == 1)
		GP_TRY(gp_arr_push(
		    a->warnings, gp_value_str("one rank only: nothing to match across ranks (give "
		                              "every rank's report or trace)")));
	GP_TRY(gp__agg_document(a, o, out));
out:
	return rc;
}

GP_API int gp_aggregate_paths(const char *const *paths, size_t n, const struct gp_aggregate_opts *o,
                              struct gp_value **out)
{
	struct gp_aggregate_opts dflt;
	struct gp__agg a;
	int rc = 0;

	if (!out || (!paths && n))
		return gp__error(GP_EINVAL, "gp_aggregate_paths: NULL argument");
	*out = NULL;
	if (!n)
		return gp__error(GP_EINVAL, "no input files");
	if (!o) {
		gp_aggregate_opts_init(&dflt);
		o = &dflt;
	}
	if ((rc = gp__agg_init(&a)))
		return rc;
	GP_TRY(gp__agg_load(&a, paths, n, o));
	GP_TRY(run(&a, o, out));
out:
	gp__agg_release(&a);
	return rc;
}

int gp__aggregate_doc(const struct gp_value *doc, const struct gp_aggregate_opts *o,
                      struct gp_value **out)
{
	struct gp_aggregate_opts dflt;
	struct gp__agg a;
	int rc = 0;

	*out = NULL;
	if (!o) {
		gp_aggregate_opts_init(&dflt);
		o = &dflt;
	}
	if ((rc = gp__agg_init(&a)))
		return rc;
	GP_TRY(gp__agg_load_doc(&a, doc));
	GP_TRY(run(&a, o, out));
out:
	gp__agg_release(&a);
	return rc;
}
