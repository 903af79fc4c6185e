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

struct agg {
	uint32_t name;
	int64_t ns;
	int64_t count;
};

/* what the section keeps across steps */
struct state {
	const struct gp__actx *c;
	struct gp__cp *g;
	uint32_t *stamp; /* per event: the step (+1) it was last counted in */
	uint32_t step;
	struct agg *cpu, *gpu;
	size_t ncpu, ngpu, cpu_cap, gpu_cap;
	uint32_t *cpu_ix, *gpu_ix; /* per string id: its index in cpu/gpu + 1 this step, 0 none */
	size_t nstr;
	size_t nseg_total;
	size_t work; /* events in the graphs so far */
	int64_t total_path, total_by[GP_CP__N];
};

static int add_agg(struct state *s, bool gpu, uint32_t ev, int64_t ns)
{
	uint32_t *m = gpu ? s->gpu_ix : s->cpu_ix;
	struct agg **a = gpu ? &s->gpu : &s->cpu;
	size_t *n = gpu ? &s->ngpu : &s->ncpu, *cap = gpu ? &s->gpu_cap : &s->cpu_cap;
	uint32_t name = s->c->t->ev.name[ev];
	uint32_t k;
	int rc;

	if (name >= s->nstr)
		return gp__error(GP_EINVAL, "an event name outside the string table");
	if (!(k = m[name])) {
		if ((rc = gp__grow((void **)a, cap, *n + 1, sizeof(**a))))
			return rc;
		(*a)[*n] = (struct agg){ name, 0, 0 };
		k = m[name] = (uint32_t)++ * n;
	}
	(*a)[k - 1].ns = gp__add_sat((*a)[k - 1].ns, ns);
	if (s->stamp[ev] != s->step) {
		s->stamp[ev] = s->step;
		(*a)[k - 1].count++;
	}
	return 0;
}

static int cmp_agg(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

static int top_list(struct state *s, struct agg *a, size_t n, struct gp_value *o, const char *key)
{
	struct gp_value *arr = gp_value_array(), *it = NULL;
	size_t i;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	if (n)
		qsort(a, n, sizeof(*a), cmp_agg);
	for (i = 0; i < n && i < TOP_ITEMS; i++) {
		it = gp_value_object();
		if (!it)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set_str(it, "name", gp__strtab_get(&s->c->t->strs, a[i].name)));
		GP_TRY(gp_obj_set_int(it, "path_ns", a[i].ns));
		GP_TRY(gp_obj_set_int(it, "count", a[i].count));
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

/* the lane a piece of the path is drawn on: its thread (CPU) or its stream (GPU, edges) */
static uint64_t lane(const struct gp_trace *t, const struct gp__cp_seg *x)
{
	if (x->ev == UINT32_MAX)
		return UINT64_MAX;
	if (x->kind == GP_CP_SEG_CPU)
		return t->ev.track[x->ev];
	return (uint64_t)t->ev.stream[x->ev] | (UINT64_C(1) << 63);
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
	uint32_t name;  /* UINT32_MAX: unnamed or mixed */
	size_t npieces; /* the pieces with weight it holds */
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

/*
 * The path as segments, for drawing it: its pieces with time (zero-weight
 * dependency and sync edges left out); consecutive pieces of one bound on
 * one lane (thread or stream) form a run, named when all its pieces are of
 * one item (kernel-kernel gaps are not named). Runs shorter than the
 * drawing's resolution (path_ns / SEG_RESOLUTION) are pooled with their
 * short neighbours into one segment, drawn with the bound (and lane) that
 * holds most of the pool's time, named only when all are of one item; a
 * pool ends at the next long run or once it reaches the resolution, so a
 * path of many short kernels is drawn as the compute it is, not as the
 * bound of whatever preceded it. bound_by_ns stays exact. The pieces with
 * weight that no segment holds (beyond MAX_SEGMENTS a step or
 * TOTAL_SEGMENTS a rank) are counted in "segments_omitted".
 */
static int segments(struct state *s, const struct gp__cp_path *p, struct gp_value *o)
{
	const struct gp_trace *t = s->c->t;
	struct gp_value *arr = gp_value_array();
	struct pool pl;
	int64_t res = p->path_ns / SEG_RESOLUTION;
	size_t i, n = 0, pieces = 0, kept = 0;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	memset(&pl, 0, sizeof(pl));
	for (i = 0; i < p->nseg; i++)
		pieces += p->seg[i].w > 0 && p->seg[i].cat < GP_CP__N;
	for (i = 0; i < p->nseg && s->nseg_total < TOTAL_SEGMENTS && n < MAX_SEGMENTS;) {
		const struct gp__cp_seg *x = &p->seg[i];
		struct run r = { x, x->t0, x->t1, x->cat == GP_CP_KK ? UINT32_MAX : x->ev, 1 };
		uint64_t ln = lane(t, x);
		size_t j;

		if (x->w <= 0 || x->cat >= GP_CP__N) {
			i++;
			continue;
		}
		for (j = i + 1; j < p->nseg; j++) {
			const struct gp__cp_seg *y = &p->seg[j];

			if (y->w <= 0 || y->cat >= GP_CP__N)
				continue;
			if (y->cat != x->cat || y->kind != x->kind || lane(t, y) != ln)
				break;
			if (r.name != UINT32_MAX &&
			    (y->ev == UINT32_MAX || t->ev.name[y->ev] != t->ev.name[r.name]))
				r.name = UINT32_MAX;
			r.t1 = y->t1;
			r.npieces++;
		}
		i = j;
		if (r.t1 - r.t0 >= res) {
			GP_TRY(flush(s, &pl, arr, &n, &kept));
			GP_TRY(emit(s, r.x, r.t0, r.t1, r.name, r.npieces, arr, &n, &kept));
			continue;
		}
		if (!pl.npieces) {
			pl.t0 = r.t0;
			pl.name = r.name;
		} else if (pl.name != UINT32_MAX &&
		           (r.name == UINT32_MAX || t->ev.name[r.name] != t->ev.name[pl.name])) {
			pl.name = UINT32_MAX;
		}
		pl.t1 = r.t1;
		pl.by[x->cat] += r.t1 - r.t0;
		if (!pl.rep[x->cat])
			pl.rep[x->cat] = x;
		pl.npieces += r.npieces;
		if (pl.t1 - pl.t0 >= res)
			GP_TRY(flush(s, &pl, arr, &n, &kept));
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
	s->step++;
	/* the index of the step before, reset through its rows */
	for (i = 0; i < s->ncpu; i++)
		s->cpu_ix[s->cpu[i].name] = 0;
	for (i = 0; i < s->ngpu; i++)
		s->gpu_ix[s->gpu[i].name] = 0;
	s->ncpu = s->ngpu = 0;
	for (i = 0; i < p.nseg; i++) {
		const struct gp__cp_seg *x = &p.seg[i];

		if (x->ev == UINT32_MAX || x->w == 0)
			continue;
		if (x->kind == GP_CP_SEG_CPU)
			GP_TRY(add_agg(s, false, x->ev, x->w));
		else if (x->kind == GP_CP_SEG_GPU)
			GP_TRY(add_agg(s, true, x->ev, x->w));
	}
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
	GP_TRY(top_list(s, s->cpu, s->ncpu, o, "top_cpu_ops"));
	GP_TRY(top_list(s, s->gpu, s->ngpu, o, "top_kernels"));
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
	if (!has_gpu(c)) {
		int64_t z[GP_CP__N] = { 0 };
		struct gp_value *tot = gp_value_object();

		GP_TRY(gp_obj_set_bool(cp, "available", false));
		GP_TRY(gp_obj_set_str(cp, "reason", "no GPU activity"));
		GP_TRY(gp_obj_set(cp, "steps", gp_value_array()));
		GP_TRY(gp_obj_set_bool(cp, "whole_trace", c->nsteps == 0));
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
	s.stamp = gp__calloc(c->t->ev.n, sizeof(*s.stamp));
	s.nstr = gp__strtab_count(&c->t->strs);
	s.cpu_ix = gp__calloc(s.nstr + 1, sizeof(*s.cpu_ix));
	s.gpu_ix = gp__calloc(s.nstr + 1, sizeof(*s.gpu_ix));
	if (!s.stamp || !s.cpu_ix || !s.gpu_ix)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__cp_new(c, &s.g));
	GP_TRY(run(&s, cp, &whole));
	GP_TRY(gp_obj_set_bool(cp, "whole_trace", whole));
done:
	rc = gp_obj_set(r, "critical_path", cp);
	cp = NULL;
out:
	gp__cp_free(s.g);
	gp__free(s.stamp);
	gp__free(s.cpu);
	gp__free(s.gpu);
	gp__free(s.cpu_ix);
	gp__free(s.gpu_ix);
	gp_value_free(cp);
	gp_value_free(cats);
	return rc;
}
