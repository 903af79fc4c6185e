/* SPDX-License-Identifier: MIT */
/*
 * critpath.c - the "critical_path" section of a rank (issue 23).
 *
 * For each ProfilerStep of the trace (or the whole trace when it has none)
 * the longest chain of CPU ops, launches, kernels and waits that sets the
 * step's length (critpath-graph.c builds the graph and finds the path),
 * broken down by what bounds each part of it (HTA's bound_by categories),
 * with the CPU ops and kernels that spend the most time on it and the path
 * itself as time-ordered segments for the report page. Under --compat hta
 * only the step HTA's critical_path_analysis(rank, "ProfilerStep",
 * instance_id=1) analyses (the second ProfilerStep row of the trace, or the
 * first when one step is left), with HTA's numbers.
 * docs/analyses/critical-path.md has the definitions and every departure
 * from HTA.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "critpath.h"
#include "util/error.h"
#include "util/value-int.h"

#define TOP_ITEMS    10
#define MAX_SEGMENTS 4096
/* the graphs of all steps together take at most this many events per event of the trace
 * (plus WORK_MIN): ProfilerSteps that overlap each other many times over are not all analysed */
#define WORK_PER_EVENT 8
#define WORK_MIN       (1u << 20)
#define SEG_RESOLUTION 256   /* runs shorter than path_ns / this are pooled (segments()) */
#define TOTAL_SEGMENTS 65536 /* over all steps of a rank: steps beyond get no segments */

/* an item on a step's path: a CPU or a GPU name */
struct agg {
	uint32_t name;
	uint32_t gpu; /* 0: CPU, 1: GPU (enum gp__cp_seg_kind) */
	int64_t ns;
	int64_t count;
};

/* what the section keeps across steps */
struct state {
	const struct gp__actx *c;
	struct gp__cp *g;
	uint64_t *seen;   /* per event, a bit: counted in this step (cleared after each) */
	struct agg *rows; /* the items of the step */
	size_t nrows, rows_cap;
	uint32_t *ix; /* per string id and side (2 id + 1 for GPU): its index in rows + 1, 0 none */
	size_t nstr;
	size_t nseg_total;
	size_t work; /* events in the graphs so far */
	int64_t total_path, total_by[GP_CP__N];
};

/* whether agg @p a ranks before @p b: more time on the path, then the name */
static bool agg_before(const struct agg *a, const struct agg *b)
{
	return a->ns != b->ns ? a->ns > b->ns : a->name < b->name;
}

/* the TOP_ITEMS rows of side @p gpu that rank first, in rank order, as @p key of @p o */
static int top_list(struct state *s, uint32_t gpu, struct gp_value *o, const char *key)
{
	const struct agg *a = s->rows;
	size_t n = s->nrows;
	struct gp_value *arr = gp_value_array(), *it = NULL;
	const struct agg *top[TOP_ITEMS];
	size_t i, j, nt = 0;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (a[i].gpu != gpu || (nt == TOP_ITEMS && !agg_before(&a[i], top[nt - 1])))
			continue;
		j = nt < TOP_ITEMS ? nt++ : nt - 1;
		for (; j > 0 && agg_before(&a[i], top[j - 1]); j--)
			top[j] = top[j - 1];
		top[j] = &a[i];
	}
	for (i = 0; i < nt; i++) {
		it = gp_value_object();
		if (!it)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set_str(it, "name", gp__strtab_get(&s->c->t->strs, top[i]->name)));
		GP_TRY(gp_obj_set_int(it, "path_ns", top[i]->ns));
		GP_TRY(gp_obj_set_int(it, "count", top[i]->count));
		rc = gp_arr_push(arr, it);
		it = NULL;
		GP_TRY(rc);
	}
	rc = gp_obj_set(o, key, arr);
	arr = NULL;
out:
	gp_value_free(it);
	gp_value_free(arr);
	return rc;
}

static int set_bound(struct gp_value *o, const int64_t *by, int64_t path)
{
	struct gp_value *ns = gp_value_object(), *pct = gp_value_object();
	size_t k;
	int rc = 0;

	if (!ns || !pct)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < GP_CP__N; k++) {
		GP_TRY(gp_obj_set_int(ns, gp__cp_cat_name((enum gp__cp_cat)k), by[k]));
		GP_TRY(gp_obj_set_double(pct, gp__cp_cat_name((enum gp__cp_cat)k),
		                         gp__pct(by[k], path)));
	}
	GP_TRY(gp_obj_set_int(o, "path_ns", path));
	rc = gp_obj_set(o, "bound_by_ns", ns);
	ns = NULL;
	GP_TRY(rc);
	rc = gp_obj_set(o, "bound_by_pct", pct);
	pct = NULL;
out:
	gp_value_free(ns);
	gp_value_free(pct);
	return rc;
}

static int segment(struct state *s, const struct gp__cp_seg *x, int64_t t0, int64_t t1,
                   uint32_t name_ev, struct gp_value *arr)
{
	static const char *const kinds[] = { "cpu", "gpu", "edge" };
	const struct gp_trace *t = s->c->t;
	struct gp_value *o = gp_value_object();
	int rc = 0;

	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_int(o, "start_ns", t0));
	GP_TRY(gp_obj_set_int(o, "end_ns", t1));
	GP_TRY(gp_obj_set_str(o, "bound", gp__cp_cat_name((enum gp__cp_cat)x->cat)));
	GP_TRY(gp_obj_set_str(o, "kind", kinds[x->kind]));
	GP_TRY(gp__obj_set_str_or_null(o, "name",
	                               name_ev != UINT32_MAX ? gp__ev_name(t, name_ev) : NULL));
	if (x->kind == GP_CP_SEG_CPU && x->ev != UINT32_MAX &&
	    t->tracks[t->ev.track[x->ev]].tid_str == 0)
		GP_TRY(gp_obj_set_int(o, "tid", t->tracks[t->ev.track[x->ev]].tid));
	else
		GP_TRY(gp_obj_set_null(o, "tid"));
	if (x->kind != GP_CP_SEG_CPU && x->ev != UINT32_MAX && t->ev.stream[x->ev] >= 0)
		GP_TRY(gp_obj_set_int(o, "stream", t->ev.stream[x->ev]));
	else
		GP_TRY(gp_obj_set_null(o, "stream"));
	rc = gp_arr_push(arr, o);
	o = NULL;
out:
	gp_value_free(o);
	return rc;
}

/* a segment being built */
struct run {
	const struct gp__cp_seg *x; /* its first piece */
	int64_t t0, t1;
	uint64_t lane;  /* its thread (CPU) or stream (GPU, edges), UINT64_MAX none */
	uint32_t name;  /* the event it is named for, UINT32_MAX: unnamed or mixed */
	uint32_t nid;   /* that event's name (string id) */
	size_t npieces; /* the pieces with weight it holds, 0: none yet */
};

/* short runs pooled into one segment, drawn with the bound that holds most of its time */
struct pool {
	int64_t t0, t1;
	int64_t by[GP_CP__N];                   /* time of each bound's runs */
	const struct gp__cp_seg *rep[GP_CP__N]; /* the first piece of each bound */
	uint32_t name;
	size_t npieces;
};

/* adds segment @p x [t0, t1) unless a limit is reached; counts what it holds in *kept */
static int emit(struct state *s, const struct gp__cp_seg *x, int64_t t0, int64_t t1, uint32_t name,
                size_t npieces, struct gp_value *arr, size_t *n, size_t *kept)
{
	int rc;

	if (s->nseg_total >= TOTAL_SEGMENTS || *n >= MAX_SEGMENTS)
		return 0;
	if ((rc = segment(s, x, t0, t1, name, arr)))
		return rc;
	(*n)++;
	s->nseg_total++;
	*kept += npieces;
	return 0;
}

/* the pooled short runs as one segment (nothing when the pool is empty) */
static int flush(struct state *s, struct pool *pl, struct gp_value *arr, size_t *n, size_t *kept)
{
	size_t k, best = GP_CP__N;
	int rc;

	if (!pl->npieces)
		return 0;
	for (k = 0; k < GP_CP__N; k++)
		if (pl->rep[k] && (best == GP_CP__N || pl->by[k] > pl->by[best]))
			best = k;
	rc = emit(s, pl->rep[best], pl->t0, pl->t1, pl->name, pl->npieces, arr, n, kept);
	memset(pl, 0, sizeof(*pl));
	return rc;
}

/* run @p r ended: drawn as a segment when long, else pooled */
static int end_run(struct state *s, const struct run *r, int64_t res, struct pool *pl,
                   struct gp_value *arr, size_t *n, size_t *kept)
{
	const uint32_t *names = s->c->t->ev.name;
	uint8_t cat = r->x->cat;
	int rc;

	if (r->t1 - r->t0 >= res) {
		if ((rc = flush(s, pl, arr, n, kept)))
			return rc;
		return emit(s, r->x, r->t0, r->t1, r->name, r->npieces, arr, n, kept);
	}
	if (!pl->npieces) {
		pl->t0 = r->t0;
		pl->name = r->name;
	} else if (pl->name != UINT32_MAX && (r->name == UINT32_MAX || r->nid != names[pl->name])) {
		pl->name = UINT32_MAX;
	}
	pl->t1 = r->t1;
	pl->by[cat] += r->t1 - r->t0;
	if (!pl->rep[cat])
		pl->rep[cat] = r->x;
	pl->npieces += r->npieces;
	if (pl->t1 - pl->t0 >= res)
		return flush(s, pl, arr, n, kept);
	return 0;
}

/* a new row of @p name on side @p gpu; @return its index + 1, 0 when out of memory */
static uint32_t new_row(struct state *s, uint32_t name, uint32_t gpu)
{
	if (s->nrows >= UINT32_MAX - 1 ||
	    gp__grow((void **)&s->rows, &s->rows_cap, s->nrows + 1, sizeof(*s->rows)))
		return 0;
	s->rows[s->nrows] = (struct agg){ name, gpu, 0, 0 };
	s->ix[2 * (size_t)name + gpu] = (uint32_t)(s->nrows + 1);
	return (uint32_t)++s->nrows;
}

/*
 * The time of the path's CPU and GPU pieces per item (string id and side)
 * into s->rows, each distinct event counted once (a bit per event in
 * s->seen, cleared before it returns).
 */
static int items(struct state *s, const struct gp__cp_path *p)
{
	const uint32_t *names = s->c->t->ev.name;
	const struct gp__cp_seg *x = p->seg, *end = p->seg + p->nseg;
	uint64_t *seen = s->seen;
	uint32_t *ix = s->ix, lo = UINT32_MAX, hi = 0;
	size_t nstr = s->nstr;

	for (; x < end; x++) {
		uint32_t ev = x->ev, kind = x->kind, name, k;
		uint64_t bit, *word;
		struct agg *a;

		if (kind > GP_CP_SEG_GPU || x->w == 0 || ev == UINT32_MAX)
			continue;
		name = names[ev];
		if (name >= nstr)
			return gp__error(GP_EINVAL, "an event name outside the string table");
		/* ix holds a row's index + 1 (0: none yet) */
		if (!(k = ix[2 * (size_t)name + kind]) && !(k = new_row(s, name, kind)))
			return gp__error(GP_ENOMEM, "out of memory");
		a = &s->rows[k - 1];
		a->ns = gp__add_sat(a->ns, x->w);
		bit = UINT64_C(1) << (ev & 63);
		word = &seen[ev >> 6];
		if (!(*word & bit)) {
			*word |= bit;
			a->count++;
			lo = ev < lo ? ev : lo;
			hi = ev > hi ? ev : hi;
		}
	}
	/* the bits cleared: their span of words, or word by word when that is wider than
	 * the path (a rank of many steps stays linear) */
	if (lo <= hi && (size_t)(hi / 64 - lo / 64) <= p->nseg) {
		memset(seen + lo / 64, 0, (hi / 64 - lo / 64 + 1) * sizeof(*seen));
	} else if (lo <= hi) {
		for (x = p->seg; x < end; x++)
			if (x->ev != UINT32_MAX)
				seen[x->ev >> 6] = 0;
	}
	return 0;
}

/*
 * The path as segments, for drawing it, into "segments" of @p o: its
 * pieces with time (zero-weight dependency and sync edges left out);
 * consecutive pieces of one bound on one lane (thread or stream) form a
 * run, named when all its pieces are of one item (kernel-kernel gaps are
 * not named). Runs shorter than the drawing's resolution (path_ns /
 * SEG_RESOLUTION) are pooled with their short neighbours into one segment,
 * drawn with the bound (and lane) that holds most of the pool's time, named
 * only when all are of one item; a pool ends at the next long run or once
 * it reaches the resolution, so a path of many short kernels is drawn as
 * the compute it is, not as the bound of whatever preceded it. bound_by_ns
 * stays exact. The pieces with weight that no segment holds (beyond
 * MAX_SEGMENTS a step or TOTAL_SEGMENTS a rank) are counted in
 * "segments_omitted".
 */
static int segments(struct state *s, const struct gp__cp_path *p, struct gp_value *o)
{
	const struct gp_trace *t = s->c->t;
	const uint32_t *names = t->ev.name, *track = t->ev.track;
	const int64_t *stream = t->ev.stream;
	const struct gp__cp_seg *y, *end = p->seg + p->nseg;
	struct gp_value *arr = gp_value_array();
	const struct gp__cp_seg *rx = NULL; /* the run being built: its first piece, ... */
	int64_t rt0 = 0, rt1 = 0;
	uint64_t rlane = 0;
	uint32_t rname = 0, rnid = 0;
	size_t rnp = 0;
	struct pool pl;
	int64_t res = p->path_ns / SEG_RESOLUTION;
	size_t n = 0, pieces = 0, kept = 0;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	memset(&pl, 0, sizeof(pl));
	for (y = p->seg; y < end; y++) {
		uint32_t ev = y->ev;
		uint64_t ln;

		if (y->w <= 0 || y->cat >= GP_CP__N)
			continue;
		ln = ev == UINT32_MAX           ? UINT64_MAX
		     : y->kind == GP_CP_SEG_CPU ? track[ev]
		                                : (uint64_t)stream[ev] | (UINT64_C(1) << 63);
		pieces++;
		if (rx && y->cat == rx->cat && y->kind == rx->kind && ln == rlane) {
			if (rname != UINT32_MAX && (ev == UINT32_MAX || names[ev] != rnid))
				rname = UINT32_MAX;
			rt1 = y->t1;
			rnp++;
			continue;
		}
		if (rx) {
			struct run r = { rx, rt0, rt1, rlane, rname, rnid, rnp };

			GP_TRY(end_run(s, &r, res, &pl, arr, &n, &kept));
		}
		rx = y;
		rt0 = y->t0;
		rt1 = y->t1;
		rlane = ln;
		rname = y->cat == GP_CP_KK ? UINT32_MAX : ev;
		rnid = rname != UINT32_MAX ? names[ev] : 0;
		rnp = 1;
	}
	if (rx) {
		struct run r = { rx, rt0, rt1, rlane, rname, rnid, rnp };

		GP_TRY(end_run(s, &r, res, &pl, arr, &n, &kept));
	}
	GP_TRY(flush(s, &pl, arr, &n, &kept));
	rc = gp_obj_set(o, "segments", arr);
	arr = NULL;
	GP_TRY(rc);
	rc = gp_obj_set_int(o, "segments_omitted", (int64_t)(pieces - kept));
out:
	gp_value_free(arr);
	return rc;
}

/* one step's object into @p steps; *ok false when its graph gave no path (reason in *why) */
static int do_step(struct state *s, uint32_t ev, int64_t index, int64_t start, int64_t end,
                   struct gp_value *steps, const char **why)
{
	const struct gp_trace *t = s->c->t;
	struct gp__cp_path p;
	struct gp_value *o = NULL;
	size_t i, k;
	int rc = 0;

	GP_TRY(gp__cp_window(s->g, start, end, &p));
	s->work += p.nev;
	if (!p.ok) {
		*why = p.reason;
		return 0;
	}
	/* the index of the step before, reset through its rows */
	for (i = 0; i < s->nrows; i++)
		s->ix[2 * (size_t)s->rows[i].name + s->rows[i].gpu] = 0;
	s->nrows = 0;
	GP_TRY(items(s, &p));
	o = gp_value_object();
	if (!o)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__obj_set_str_or_null(o, "step", ev != UINT32_MAX ? gp__ev_name(t, ev) : NULL));
	if (index >= 0)
		GP_TRY(gp_obj_set_int(o, "step_index", index));
	else
		GP_TRY(gp_obj_set_null(o, "step_index"));
	GP_TRY(gp_obj_set_int(o, "start_ns", start));
	GP_TRY(gp_obj_set_int(o, "end_ns", end));
	GP_TRY(set_bound(o, p.by_ns, p.path_ns));
	GP_TRY(top_list(s, GP_CP_SEG_CPU, o, "top_cpu_ops"));
	GP_TRY(top_list(s, GP_CP_SEG_GPU, o, "top_kernels"));
	GP_TRY(segments(s, &p, o));
	s->total_path = gp__add_sat(s->total_path, p.path_ns);
	for (k = 0; k < GP_CP__N; k++)
		s->total_by[k] = gp__add_sat(s->total_by[k], p.by_ns[k]);
	rc = gp_arr_push(steps, o);
	o = NULL;
out:
	gp_value_free(o);
	return rc;
}

static bool has_gpu(const struct gp__actx *c)
{
	return c->by_kind[GP_K_KERNEL].n || c->by_kind[GP_K_MEMCPY].n || c->by_kind[GP_K_MEMSET].n;
}

/* --compat hta: the row HTA's instance_id=1 picks among the "ProfilerStep" rows, in file order */
static int64_t hta_step_row(const struct gp__actx *c)
{
	const struct gp_trace *t = c->t;
	size_t want = c->nsteps >= 2 ? 1 : 0, seen = 0, i;

	for (i = 0; i < t->ev.n; i++) {
		if (!gp__kept(c, i) || t->ev.kind[i] == GP_K_TRACE ||
		    !strstr(gp__ev_name(t, i), "ProfilerStep"))
			continue;
		if (seen++ == want)
			return (int64_t)i;
	}
	return -1;
}

static int run(struct state *s, struct gp_value *cp, bool *whole)
{
	const struct gp__actx *c = s->c;
	struct gp_value *steps = gp_value_array(), *tot = NULL;
	const char *why = NULL;
	size_t i;
	int rc = 0;

	if (!steps)
		return gp__error(GP_ENOMEM, "out of memory");
	*whole = false;
	if (c->hta) {
		int64_t row = hta_step_row(c), idx = -1;

		if (row < 0) {
			why = "no ProfilerStep: HTA analyses one step";
		} else {
			for (i = 0; i < c->nsteps; i++)
				if (c->steps[i].ev == (uint32_t)row)
					idx = (int64_t)i;
			GP_TRY(do_step(s, (uint32_t)row, idx, c->ts[row], c->ts[row] + c->dur[row],
			               steps, &why));
		}
	} else if (c->nsteps) {
		/* steps that overlap each other many times over stop at a budget of work */
		for (i = 0; i < c->nsteps && s->work <= WORK_PER_EVENT * c->t->ev.n + WORK_MIN; i++)
			GP_TRY(do_step(s, c->steps[i].ev, (int64_t)i, c->steps[i].ts,
			               c->steps[i].end, steps, &why));
	} else {
		*whole = true;
		GP_TRY(do_step(s, UINT32_MAX, -1, c->span_start, c->span_end, steps, &why));
	}
	GP_TRY(gp_obj_set_bool(cp, "available", gp_value_len(steps) > 0));
	GP_TRY(gp__obj_set_str_or_null(cp, "reason", gp_value_len(steps) ? NULL : why));
	rc = gp_obj_set(cp, "steps", steps);
	steps = NULL;
	GP_TRY(rc);
	tot = gp_value_object();
	if (!tot)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(set_bound(tot, s->total_by, s->total_path));
	rc = gp_obj_set(cp, "total", tot);
	tot = NULL;
out:
	gp_value_free(steps);
	gp_value_free(tot);
	return rc;
}

int gp__an_critpath(const struct gp__actx *c, struct gp_value *r)
{
	struct gp_value *cp = NULL, *cats = NULL;
	struct state s;
	bool whole = false;
	size_t k;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.c = c;
	if (!c->t->ev.n)
		return gp_obj_set_null(r, "critical_path");
	cp = gp_value_object();
	cats = gp_value_array();
	if (!cp || !cats)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_str(cp, "compat", c->hta ? "hta" : "gpuprof"));
	for (k = 0; k < GP_CP__N; k++)
		GP_TRY(gp_arr_push(cats, gp_value_str(gp__cp_cat_name((enum gp__cp_cat)k))));
	rc = gp_obj_set(cp, "categories", cats);
	cats = NULL;
	GP_TRY(rc);
	if (!has_gpu(c) || c->t->ev.n > GP_CP_MAX_EVENTS) {
		int64_t z[GP_CP__N] = { 0 };
		struct gp_value *tot;

		GP_TRY(gp_obj_set_bool(cp, "available", false));
		GP_TRY(gp_obj_set_str(cp, "reason",
		                      !has_gpu(c)
		                          ? "no GPU activity"
		                          : "more than 2^30 events in the rank: too many for "
		                            "the critical path's node keys"));
		GP_TRY(gp_obj_set(cp, "steps", gp_value_array()));
		GP_TRY(gp_obj_set_bool(cp, "whole_trace", c->nsteps == 0));
		/* made after the sets above, which leave it nothing to free when they fail */
		tot = gp_value_object();
		if (!tot)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		rc = set_bound(tot, z, 0);
		if (rc) {
			gp_value_free(tot);
			goto out;
		}
		GP_TRY(gp_obj_set(cp, "total", tot));
		goto done;
	}
	s.seen = gp__calloc(c->t->ev.n / 64 + 1, sizeof(*s.seen));
	s.nstr = gp__strtab_count(&c->t->strs);
	s.ix = gp__calloc(2 * s.nstr + 2, sizeof(*s.ix));
	if (!s.seen || !s.ix)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__cp_new(c, &s.g));
	GP_TRY(run(&s, cp, &whole));
	GP_TRY(gp_obj_set_bool(cp, "whole_trace", whole));
done:
	rc = gp_obj_set(r, "critical_path", cp);
	cp = NULL;
out:
	gp__cp_free(s.g);
	gp__free(s.seen);
	gp__free(s.rows);
	gp__free(s.ix);
	gp_value_free(cp);
	gp_value_free(cats);
	return rc;
}
