/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the "memory" section, from the [memory] instant events that
 * profile_memory=True records (and the allocations a capture records): per
 * device the peak allocated and reserved bytes, when the peak happened and
 * inside which ProfilerStep and innermost CPU operator, what was live at the
 * peak grouped by op, the curve downsampled for the page, the allocated
 * bytes at each step's end and the step's own peak, the allocations never
 * freed grouped by op, the leak test (memleak.c), and the operators that
 * allocate most.
 *
 * The curves come from memcurve.c, the lifetimes from memlife.c. Runs after
 * steps.c and reads r["steps"] for the incomplete flags. Definitions:
 * docs/analyses/overview-memory.md.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "memcurve.h"
#include "memleak.h"
#include "memlife.h"
#include "metrics.h"
#include "util/error.h"
#include "util/value-int.h"

#define TOP_ALLOCATORS 10
/* rows of the per-op tables (live at the peak, never freed) */
#define MEM_ROWS 20
/* devices listed at most (GPUs first): each has a row per step */
#define MAX_DEVICES 64
/* points of the page's curve at most */
#define CURVE_POINTS 1000

/*
 * The operators that allocate most: every allocation (Bytes > 0) of a CPU
 * operator (not of the annotations outside them), grouped by the op's name
 * as the other per-op rows are (memlife.c), the TOP_ALLOCATORS largest.
 */
static int top_allocators(const struct gp__actx *c, const struct gp__memlife *ml,
                          struct gp_value *o)
{
	const struct gp_trace *t = c->t;
	struct gp_value *arr = gp_value_array();
	struct gp__memgroup g;
	size_t i;
	int rc = 0;

	memset(&g, 0, sizeof(g));
	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "top_allocators", arr));
	GP_TRY(gp__memgroup_init(&g));
	for (i = 0; i < t->nmem; i++)
		if (t->mem[i].bytes > 0 && ml->op[i] >= 0 && t->ev.kind[ml->op[i]] == GP_K_CPU_OP)
			GP_TRY(gp__memgroup_add(&g, c, ml, (uint32_t)i));
	gp__memgroup_sort(&g, c);
	for (i = 0; i < g.n && i < TOP_ALLOCATORS; i++) {
		struct gp_value *r = gp_value_object();

		if (!r)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, r));
		GP_TRY(gp_obj_set_str(r, "name", gp__memrow_op(&g.rows[i], c)));
		GP_TRY(gp_obj_set_int(r, "bytes", g.rows[i].bytes));
		GP_TRY(gp_obj_set_int(r, "count", g.rows[i].count));
	}
out:
	gp__memgroup_release(&g);
	return rc;
}

/* is step @p i flagged incomplete by steps.c? */
static bool step_incomplete(const struct gp_value *r, size_t i)
{
	const struct gp_value *s = gp_arr_get(gp_obj_get(r, "steps"), i);

	return gp_value_get_bool(gp_obj_get(s, "incomplete"), false);
}

/*
 * Per ProfilerStep: the allocated bytes at its host end and the highest
 * within its host span (the level carried in counts); the complete steps'
 * ends also go to @p ends for the leak test (GP_MEMLEAK_UNKNOWN otherwise).
 */
static int step_growth(const struct gp__actx *c, const struct gp_value *r,
                       const struct gp__memcurve *mc, size_t d, int64_t *ends, struct gp_value *o)
{
	struct gp_value *arr = gp_value_array();
	size_t i;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "step_growth", arr));
	for (i = 0; i < c->nsteps; i++) {
		struct gp_value *s = gp_value_object();
		bool inc = step_incomplete(r, i);
		int64_t peak = 0, end = 0;
		bool have =
		    gp__memcurve_window(mc, d, c->steps[i].ts, c->steps[i].end, &peak, &end);

		if (!s)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, s));
		GP_TRY(gp_obj_set_str(s, "step", gp__ev_name(c->t, c->steps[i].ev)));
		GP_TRY(gp_obj_set_bool(s, "incomplete", inc));
		if (have) {
			GP_TRY(gp_obj_set_int(s, "allocated_at_end_bytes", end));
			GP_TRY(gp_obj_set_int(s, "peak_allocated_bytes", peak));
		} else {
			GP_TRY(gp_obj_set_null(s, "allocated_at_end_bytes"));
			GP_TRY(gp_obj_set_null(s, "peak_allocated_bytes"));
		}
		ends[i] = have && !inc ? end : GP_MEMLEAK_UNKNOWN;
	}
out:
	return rc;
}

/*
 * The curve for the page: [t, bytes] points of the allocated and reserved
 * bytes, every event when there are at most CURVE_POINTS, else the lowest
 * and the highest of each of CURVE_POINTS / 2 runs of consecutive events
 * (gp__metrics_points, as the metrics timeline is downsampled): the peak is
 * the highest of its run, never lost.
 */
static int curve(const struct gp__memcurve *mc, size_t d, struct gp_value *o)
{
	const struct gp__memdev *x = &mc->dev[d];
	struct gp_value *cv = gp_value_object(), *pts;
	double *v = NULL;
	bool reserved = true;
	size_t i;
	int rc = 0;

	if (!cv)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "curve", cv));
	GP_TRY(gp_obj_set_int(cv, "events", (int64_t)x->n));
	GP_TRY(gp_obj_set_bool(cv, "downsampled", x->n > CURVE_POINTS));
	v = gp__calloc(x->n + 1, sizeof(*v));
	if (!v)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < x->n; i++) {
		v[i] = (double)mc->alloc[x->first + i];
		reserved &= mc->reserved[x->first + i] >= 0;
	}
	if (!(pts = gp_value_array()))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set(cv, "allocated", pts));
	GP_TRY(gp__metrics_points(mc->ts + x->first, v, x->n, CURVE_POINTS, pts));
	if (!reserved)
		GP_TRY(gp_obj_set_null(cv, "reserved"));
	else {
		for (i = 0; i < x->n; i++)
			v[i] = (double)mc->reserved[x->first + i];
		if (!(pts = gp_value_array()))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set(cv, "reserved", pts));
		GP_TRY(gp__metrics_points(mc->ts + x->first, v, x->n, CURVE_POINTS, pts));
	}
out:
	gp__free(v);
	return rc;
}

/*
 * What was live at the peak (ord position @p p of device @p d), grouped by
 * op: the allocations made at or before it and freed after it or never
 * (a lost free: unknown, left out); pos maps a t->mem index to its ord
 * position. With Total Allocated, other_bytes is the rest of the peak
 * (allocated before the trace, or without an address).
 */
static int peak_live(const struct gp__actx *c, const struct gp__memcurve *mc,
                     const struct gp__memlife *ml, const uint32_t *pos, size_t d, size_t p,
                     struct gp_value *o)
{
	const struct gp__memdev *x = &mc->dev[d];
	struct gp__memgroup g;
	struct gp_value *pl = gp_value_object(), *rows = NULL;
	size_t i;
	int rc = 0;

	memset(&g, 0, sizeof(g));
	if (!pl)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "peak_live", pl));
	GP_TRY(gp__memgroup_init(&g));
	for (i = x->first; i <= p; i++) {
		uint32_t k = mc->ord[i];

		if (c->t->mem[k].bytes <= 0 || c->t->mem[k].addr < 0 || ml->lost[k])
			continue;
		if (ml->pair[k] != GP_MEMLIFE_NONE && pos[ml->pair[k]] <= p)
			continue;
		GP_TRY(gp__memgroup_add(&g, c, ml, k));
	}
	gp__memgroup_sort(&g, c);
	GP_TRY(gp_obj_set_int(pl, "bytes", g.bytes));
	GP_TRY(gp_obj_set_int(pl, "allocations", g.count));
	GP_TRY(gp_obj_set_int(pl, "ops", (int64_t)g.n));
	if (x->use_total)
		GP_TRY(gp_obj_set_int(pl, "other_bytes", mc->alloc[p] - g.bytes));
	else
		GP_TRY(gp_obj_set_null(pl, "other_bytes"));
	GP_TRY(gp__memgroup_rows(&g, c, false, MEM_ROWS, &rows));
	GP_TRY(gp_obj_set(pl, "rows", rows));
out:
	gp__memgroup_release(&g);
	return rc;
}

/* rows of group @p g under @p key: {bytes, allocations, ops, rows} */
static int group_obj(const struct gp__memgroup *g, const struct gp__actx *c, bool steps,
                     struct gp_value *o, const char *key)
{
	struct gp_value *v = gp_value_object(), *rows = NULL;
	int rc = 0;

	if (!v)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, key, v));
	GP_TRY(gp_obj_set_int(v, "bytes", g->bytes));
	GP_TRY(gp_obj_set_int(v, "allocations", g->count));
	GP_TRY(gp_obj_set_int(v, "ops", (int64_t)g->n));
	GP_TRY(gp__memgroup_rows(g, c, steps, MEM_ROWS, &rows));
	GP_TRY(gp_obj_set(v, "rows", rows));
out:
	return rc;
}

/*
 * The allocations of device @p d never freed in the trace, grouped by op;
 * those made before the first ProfilerStep (weights, optimizer state) apart.
 * Null when none of its allocations has an address (nothing can be paired).
 */
static int unfreed(const struct gp__actx *c, const struct gp__memcurve *mc,
                   const struct gp__memlife *ml, size_t d, struct gp_value *o)
{
	const struct gp__memdev *x = &mc->dev[d];
	struct gp__memgroup in, before;
	struct gp_value *u;
	size_t i, naddr = 0;
	int rc = 0;

	memset(&in, 0, sizeof(in));
	memset(&before, 0, sizeof(before));
	for (i = x->first; i < x->first + x->n; i++)
		naddr += c->t->mem[mc->ord[i]].bytes > 0 && c->t->mem[mc->ord[i]].addr >= 0;
	if (!naddr)
		return gp_obj_set_null(o, "unfreed");
	u = gp_value_object();
	if (!u)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "unfreed", u));
	GP_TRY(gp__memgroup_init(&in));
	GP_TRY(gp__memgroup_init(&before));
	for (i = x->first; i < x->first + x->n; i++) {
		uint32_t k = mc->ord[i];

		if (c->t->mem[k].bytes <= 0 || c->t->mem[k].addr < 0 || ml->lost[k] ||
		    ml->pair[k] != GP_MEMLIFE_NONE)
			continue;
		GP_TRY(gp__memgroup_add(c->nsteps && ml->step[k] < 0 ? &before : &in, c, ml, k));
	}
	gp__memgroup_sort(&in, c);
	gp__memgroup_sort(&before, c);
	GP_TRY(gp_obj_set_int(u, "bytes", in.bytes));
	GP_TRY(gp_obj_set_int(u, "allocations", in.count));
	GP_TRY(gp_obj_set_int(u, "ops", (int64_t)in.n));
	{
		struct gp_value *rows = NULL;

		GP_TRY(gp__memgroup_rows(&in, c, true, MEM_ROWS, &rows));
		GP_TRY(gp_obj_set(u, "rows", rows));
	}
	GP_TRY(group_obj(&before, c, false, u, "before_steps"));
out:
	gp__memgroup_release(&in);
	gp__memgroup_release(&before);
	return rc;
}

/* the name of the step whose host span holds @p ts, else NULL */
static const char *step_at(const struct gp__actx *c, int64_t ts)
{
	const char *step = NULL;
	size_t i;

	for (i = 0; i < c->nsteps; i++)
		if (c->steps[i].ts <= ts && ts <= c->steps[i].end)
			step = gp__ev_name(c->t, c->steps[i].ev);
	return step;
}

static int device(const struct gp__actx *c, const struct gp_value *r, const struct gp__memcurve *mc,
                  const struct gp__memlife *ml, const uint32_t *pos, int64_t *ends, size_t d,
                  struct gp_value *v)
{
	const struct gp__memdev *x = &mc->dev[d];
	const struct gp_mem_event *mem = c->t->mem;
	int64_t peak = INT64_MIN, peak_res = -1, allocs = 0, frees = 0, pop;
	size_t i, p = x->first;
	int rc = 0;

	for (i = x->first; i < x->first + x->n; i++) {
		if (mc->alloc[i] > peak) { /* the first time it was reached */
			peak = mc->alloc[i];
			p = i;
		}
		if (mc->reserved[i] > peak_res)
			peak_res = mc->reserved[i];
		allocs += mem[mc->ord[i]].bytes > 0;
		frees += mem[mc->ord[i]].bytes < 0;
	}
	pop = ml->op[mc->ord[p]]; /* peak_op is a CPU op, as ever */
	if (x->type == 0)
		GP_TRY(gp_obj_set_str(v, "device", "cpu"));
	else
		GP_TRY(gp_obj_set_int(v, "device", x->id));
	GP_TRY(
	    gp_obj_set_str(v, "allocated_source", x->use_total ? "total_allocated" : "bytes_sum"));
	GP_TRY(gp_obj_set_int(v, "peak_allocated_bytes", peak));
	if (peak_res >= 0)
		GP_TRY(gp_obj_set_int(v, "peak_reserved_bytes", peak_res));
	else
		GP_TRY(gp_obj_set_null(v, "peak_reserved_bytes"));
	GP_TRY(gp_obj_set_int(v, "peak_ts_ns", mc->ts[p]));
	GP_TRY(gp__obj_set_str_or_null(v, "peak_step", step_at(c, mc->ts[p])));
	GP_TRY(gp__obj_set_str_or_null(
	    v, "peak_op",
	    pop >= 0 && c->t->ev.kind[pop] == GP_K_CPU_OP ? gp__ev_name(c->t, (size_t)pop) : NULL));
	GP_TRY(gp_obj_set_int(v, "final_allocated_bytes", mc->alloc[x->first + x->n - 1]));
	GP_TRY(gp_obj_set_int(v, "alloc_count", allocs));
	GP_TRY(gp_obj_set_int(v, "free_count", frees));
	GP_TRY(peak_live(c, mc, ml, pos, d, p, v));
	GP_TRY(step_growth(c, r, mc, d, ends, v));
	GP_TRY(unfreed(c, mc, ml, d, v));
	GP_TRY(gp__memleak(c, mc, ml, d, ends, peak, v));
	GP_TRY(curve(mc, d, v));
out:
	return rc;
}

/* the pairing's counts over every device */
static int pairing(const struct gp__memlife *ml, struct gp_value *o)
{
	struct gp_value *p = gp_value_object();
	int rc = 0;

	if (!p)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "pairing", p));
	GP_TRY(gp_obj_set_int(p, "paired", (int64_t)ml->paired));
	GP_TRY(gp_obj_set_int(p, "without_address", (int64_t)ml->no_addr));
	GP_TRY(gp_obj_set_int(p, "frees_unmatched", (int64_t)ml->frees_unmatched));
	GP_TRY(gp_obj_set_int(p, "frees_lost", (int64_t)ml->lost_frees));
	GP_TRY(gp_obj_set_int(p, "size_mismatch", (int64_t)ml->size_mismatch));
out:
	return rc;
}

int gp__an_memory(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct gp__memcurve mc;
	struct gp__memlife ml;
	struct gp_value *o, *arr;
	uint32_t *pos = NULL;
	int64_t *ends = NULL;
	size_t i, d;
	int rc = 0;

	memset(&mc, 0, sizeof(mc));
	memset(&ml, 0, sizeof(ml));
	if (!t->nmem)
		return gp_obj_set_null(r, "memory");
	o = gp_value_object();
	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "memory", o));
	GP_TRY(gp_obj_set_int(o, "events", (int64_t)t->nmem));
	GP_TRY(gp__memcurve_build(t, &mc));
	GP_TRY(gp__memlife_build(c, &mc, &ml));
	pos = gp__calloc(t->nmem + 1, sizeof(*pos));
	ends = gp__calloc(c->nsteps + 1, sizeof(*ends));
	if (!pos || !ends)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->nmem; i++)
		pos[mc.ord[i]] = (uint32_t)i;
	GP_TRY(pairing(&ml, o));
	arr = gp_value_array();
	if (!arr)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set(o, "devices", arr));
	GP_TRY(gp_obj_set_int(o, "devices_omitted",
	                      (int64_t)(mc.ndev > MAX_DEVICES ? mc.ndev - MAX_DEVICES : 0)));
	for (d = 0; d < mc.ndev && d < MAX_DEVICES; d++) {
		struct gp_value *v = gp_value_object();

		if (!v)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, v));
		GP_TRY(device(c, r, &mc, &ml, pos, ends, d, v));
	}
	GP_TRY(top_allocators(c, &ml, o));
out:
	gp__memcurve_release(&mc);
	gp__memlife_release(&ml);
	gp__free(pos);
	gp__free(ends);
	return rc;
}
