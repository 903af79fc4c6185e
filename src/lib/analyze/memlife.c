/* SPDX-License-Identifier: MIT */
/*
 * memlife.c - the lifetimes of a trace's allocations (memlife.h).
 *
 * Pairing, per device in time order (the curve's order): an allocation
 * (Bytes > 0) with an address opens it; a free (Bytes < 0) of an open
 * address closes it and the two are a pair. A free of an address that is
 * not open freed memory allocated before the trace began; an allocation of
 * an open address means the earlier one's free was not recorded (it is
 * "lost": neither freed nor unfreed). As the TensorBoard plugin's memory
 * view pairs them, by (device, address), since the caching allocator hands
 * the same address out again once it is free.
 *
 * The op of an event: the innermost cpu_op on its thread whose span holds
 * its ts, else the innermost annotation (record_function, NVTX range of a
 * capture; never a ProfilerStep), by a sweep per thread with a stack of
 * open ops (ops on one thread nest, as Kineto records them): a CUDA
 * program captured without PyTorch has its NVTX ranges only.
 */
#include "memlife.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strtab.h"
#include "util/value-int.h"

/* sort keys, copied so qsort needs no context */
struct mkey {
	uint32_t track;
	int64_t ts;
	uint32_t idx;
};

static int cmp_mkey(const void *a, const void *b)
{
	const struct mkey *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * The innermost event of @p kind on its thread holding each memory event's
 * ts into ml->op, for the memory events that have none yet (ProfilerSteps
 * left out: a step is no op).
 */
static int innermost_ops(const struct gp__actx *c, struct gp__memlife *ml, enum gp_kind kind)
{
	const struct gp_trace *t = c->t;
	const struct gp__idx *ops = &c->by_kind[kind];
	struct mkey *mk = NULL, *ok = NULL;
	uint32_t *stack = NULL;
	size_t i, j = 0, k, sp = 0, nops;
	int rc = 0;

	mk = gp__calloc(t->nmem + 1, sizeof(*mk));
	ok = gp__calloc(ops->n + 1, sizeof(*ok));
	stack = gp__calloc(ops->n + 1, sizeof(*stack));
	if (!mk || !ok || !stack)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->nmem; i++)
		mk[i] = (struct mkey){ t->mem[i].track, t->mem[i].ts, (uint32_t)i };
	/* ops keep their (ts, -dur) order within a track: sort by (track, rank) */
	for (i = 0, k = 0; i < ops->n; i++)
		if (!(t->ev.flags[ops->v[i]] & GP_EVF_STEP))
			ok[k++] = (struct mkey){ t->ev.track[ops->v[i]], (int64_t)i, ops->v[i] };
	nops = k;
	qsort(mk, t->nmem, sizeof(*mk), cmp_mkey);
	qsort(ok, nops, sizeof(*ok), cmp_mkey);
	for (i = 0; i < t->nmem; i++) {
		uint32_t tr = mk[i].track;
		int64_t ts = mk[i].ts;

		if (i == 0 || mk[i - 1].track != tr)
			sp = 0;
		while (j < nops && ok[j].track < tr)
			j++;
		while (j < nops && ok[j].track == tr && c->ts[ok[j].idx] <= ts) {
			uint32_t e = ok[j].idx;

			while (sp && gp__end(c, stack[sp - 1]) < c->ts[e])
				sp--;
			stack[sp++] = e;
			j++;
		}
		while (sp && gp__end(c, stack[sp - 1]) < ts)
			sp--;
		if (sp && ml->op[mk[i].idx] < 0)
			ml->op[mk[i].idx] = (int64_t)stack[sp - 1];
	}
out:
	gp__free(mk);
	gp__free(ok);
	gp__free(stack);
	return rc;
}

/* pairs the events of device @p d, in its curve's order */
static int pair_device(const struct gp_trace *t, const struct gp__memcurve *mc, size_t d,
                       struct gp__memlife *ml)
{
	const struct gp__memdev *x = &mc->dev[d];
	struct gp_u64map open; /* address -> the open allocation, GP_MEMLIFE_NONE once freed */
	size_t i;
	int rc = 0;

	memset(&open, 0, sizeof(open));
	GP_TRY(gp__u64map_init(&open, x->n));
	for (i = x->first; i < x->first + x->n; i++) {
		uint32_t k = mc->ord[i];
		const struct gp_mem_event *m = &t->mem[k];
		uint64_t a = GP_MEMLIFE_NONE;

		if (m->bytes == 0)
			continue;
		if (m->addr < 0) {
			ml->no_addr++;
			continue;
		}
		if (gp__u64map_get(&open, (uint64_t)m->addr, &a) && a != GP_MEMLIFE_NONE) {
			if (m->bytes > 0) { /* allocated again: the free of the open one was lost */
				ml->lost[a] = 1;
				ml->lost_frees++;
			} else {
				ml->pair[a] = k;
				ml->pair[k] = (uint32_t)a;
				ml->paired++;
				ml->size_mismatch += t->mem[a].bytes != -m->bytes;
				a = GP_MEMLIFE_NONE;
				GP_TRY(gp__u64map_put(&open, (uint64_t)m->addr, a));
				continue;
			}
		}
		if (m->bytes > 0)
			GP_TRY(gp__u64map_put(&open, (uint64_t)m->addr, k));
		else
			ml->frees_unmatched++;
	}
out:
	gp__u64map_release(&open);
	return rc;
}

void gp__memlife_release(struct gp__memlife *ml)
{
	gp__free(ml->op);
	gp__free(ml->step);
	gp__free(ml->pair);
	gp__free(ml->lost);
	memset(ml, 0, sizeof(*ml));
}

int gp__memlife_build(const struct gp__actx *c, const struct gp__memcurve *mc,
                      struct gp__memlife *ml)
{
	const struct gp_trace *t = c->t;
	size_t i, n = t->nmem;
	int rc = 0;

	memset(ml, 0, sizeof(*ml));
	ml->n = n;
	ml->op = gp__calloc(n + 1, sizeof(*ml->op));
	ml->step = gp__calloc(n + 1, sizeof(*ml->step));
	ml->pair = gp__calloc(n + 1, sizeof(*ml->pair));
	ml->lost = gp__calloc(n + 1, sizeof(*ml->lost));
	if (!ml->op || !ml->step || !ml->pair || !ml->lost)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < n; i++)
		ml->op[i] = -1;
	/* the innermost CPU op; outside any, the innermost annotation or NVTX range */
	GP_TRY(innermost_ops(c, ml, GP_K_CPU_OP));
	GP_TRY(innermost_ops(c, ml, GP_K_USER_ANNOTATION));
	for (i = 0; i < n; i++) {
		ml->step[i] = (int32_t)gp__steps_started(c, t->mem[i].ts) - 1;
		ml->pair[i] = GP_MEMLIFE_NONE;
		ml->allocs += t->mem[i].bytes > 0;
		ml->frees += t->mem[i].bytes < 0;
	}
	for (i = 0; i < mc->ndev; i++)
		GP_TRY(pair_device(t, mc, i, ml));
out:
	if (rc)
		gp__memlife_release(ml);
	return rc;
}

/* ---- allocations grouped by op ---- */

int gp__memgroup_init(struct gp__memgroup *g)
{
	memset(g, 0, sizeof(*g));
	return gp__u64map_init(&g->ix, 64);
}

void gp__memgroup_release(struct gp__memgroup *g)
{
	gp__u64map_release(&g->ix);
	gp__free(g->rows);
	memset(g, 0, sizeof(*g));
}

int gp__memgroup_add(struct gp__memgroup *g, const struct gp__actx *c, const struct gp__memlife *ml,
                     uint32_t k)
{
	uint32_t key = ml->op[k] >= 0 ? c->t->ev.name[ml->op[k]] + 1 : 0;
	int64_t b = c->t->mem[k].bytes;
	int32_t st = ml->step[k];
	struct gp__memrow *r;
	uint64_t slot;
	int rc = 0;

	if (!gp__u64map_get(&g->ix, key, &slot)) {
		GP_TRY(gp__grow((void **)&g->rows, &g->cap, g->n + 1, sizeof(*g->rows)));
		slot = g->n++;
		g->rows[slot] =
		    (struct gp__memrow){ .key = key, .first = st, .last = st, .seen = st };
		g->rows[slot].nsteps = st >= 0; /* before the first step is no step */
		GP_TRY(gp__u64map_put(&g->ix, key, slot));
	}
	r = &g->rows[slot];
	/* the model bounds the sum of |Bytes|: these sums cannot wrap */
	r->bytes += b;
	r->count++;
	g->bytes += b;
	g->count++;
	if (st != r->seen && st >= 0)
		r->nsteps++;
	r->seen = st;
	r->first = st < r->first ? st : r->first;
	r->last = st > r->last ? st : r->last;
out:
	return rc;
}

const char *gp__memrow_op(const struct gp__memrow *r, const struct gp__actx *c)
{
	return r->key ? gp__strtab_get(&c->t->strs, r->key - 1) : NULL;
}

/* qsort has no context: the rows' names, set before each sort (one analysis at a time per thread)
 */
static _Thread_local const struct gp__actx *sort_ctx;

static int cmp_row(const void *a, const void *b)
{
	const struct gp__memrow *x = a, *y = b;
	const char *xn, *yn;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	xn = gp__memrow_op(x, sort_ctx);
	yn = gp__memrow_op(y, sort_ctx);
	if (!xn || !yn)
		return (xn == NULL) - (yn == NULL);
	return strcmp(xn, yn);
}

void gp__memgroup_sort(struct gp__memgroup *g, const struct gp__actx *c)
{
	sort_ctx = c;
	if (g->n > 1)
		qsort(g->rows, g->n, sizeof(*g->rows), cmp_row);
	sort_ctx = NULL;
}

static const char *step_name(const struct gp__actx *c, int32_t s)
{
	return s >= 0 && (size_t)s < c->nsteps ? gp__ev_name(c->t, c->steps[s].ev) : NULL;
}

int gp__memgroup_rows(const struct gp__memgroup *g, const struct gp__actx *c, bool steps,
                      size_t max, struct gp_value **out)
{
	struct gp_value *arr = gp_value_array();
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < g->n && (!max || i < max); i++) {
		const struct gp__memrow *r = &g->rows[i];
		struct gp_value *o = gp_value_object();

		if (!o)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, o));
		GP_TRY(gp__obj_set_str_or_null(o, "op", gp__memrow_op(r, c)));
		GP_TRY(gp_obj_set_int(o, "bytes", r->bytes));
		GP_TRY(gp_obj_set_int(o, "allocations", r->count));
		if (!steps)
			continue;
		GP_TRY(gp__obj_set_str_or_null(o, "first_step", step_name(c, r->first)));
		GP_TRY(gp__obj_set_str_or_null(o, "last_step", step_name(c, r->last)));
		GP_TRY(gp_obj_set_int(o, "steps", (int64_t)r->nsteps));
	}
	*out = arr;
	arr = NULL;
out:
	gp_value_free(arr);
	return rc;
}
