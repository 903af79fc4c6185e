/* SPDX-License-Identifier: MIT */
/*
 * memory.c - the "memory" section, from the [memory] instant events that
 * profile_memory=True records: per device the peak allocated and reserved
 * bytes, when the peak happened and inside which ProfilerStep and innermost
 * CPU operator, the allocated bytes at each step's end with a leak warning,
 * and the operators that allocate most.
 *
 * The allocated curve is the events' "Total Allocated" when every event of
 * the device carries it, else the running sum of "Bytes" (older traces).
 * Runs after steps.c and reads r["steps"] for the incomplete flags.
 * Definitions: docs/analyses/overview-memory.md.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "util/error.h"

#define TOP_ALLOCATORS 10

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
 * For each memory event, the innermost cpu_op on its thread whose span holds
 * its ts (-1 none): a sweep per thread with a stack of open operators,
 * assuming operators on one thread nest (as Kineto records them).
 */
static int innermost_ops(const struct gp__actx *c, int64_t *op_of)
{
	const struct gp_trace *t = c->t;
	const struct gp__idx *ops = &c->by_kind[GP_K_CPU_OP];
	struct mkey *mk = NULL, *ok = NULL;
	uint32_t *stack = NULL;
	size_t i, j = 0, sp = 0;
	int rc = 0;

	mk = gp__calloc(t->nmem + 1, sizeof(*mk));
	ok = gp__calloc(ops->n + 1, sizeof(*ok));
	stack = gp__calloc(ops->n + 1, sizeof(*stack));
	if (!mk || !ok || !stack)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->nmem; i++)
		mk[i] = (struct mkey){ t->mem[i].track, t->mem[i].ts, (uint32_t)i };
	/* ops keep their (ts, -dur) order within a track: sort by (track, rank) */
	for (i = 0; i < ops->n; i++)
		ok[i] = (struct mkey){ t->ev.track[ops->v[i]], (int64_t)i, ops->v[i] };
	qsort(mk, t->nmem, sizeof(*mk), cmp_mkey);
	qsort(ok, ops->n, sizeof(*ok), cmp_mkey);
	for (i = 0; i < t->nmem; i++) {
		uint32_t tr = mk[i].track;
		int64_t ts = mk[i].ts;

		if (i == 0 || mk[i - 1].track != tr)
			sp = 0;
		while (j < ops->n && ok[j].track < tr)
			j++;
		while (j < ops->n && ok[j].track == tr && c->ts[ok[j].idx] <= ts) {
			uint32_t e = ok[j].idx;

			while (sp && gp__end(c, stack[sp - 1]) < c->ts[e])
				sp--;
			stack[sp++] = e;
			j++;
		}
		while (sp && gp__end(c, stack[sp - 1]) < ts)
			sp--;
		op_of[mk[i].idx] = sp ? (int64_t)stack[sp - 1] : -1;
	}
out:
	gp__free(mk);
	gp__free(ok);
	gp__free(stack);
	return rc;
}

struct dev {
	int32_t type; /* 0 cpu, 1 gpu */
	int32_t id;
	bool use_total;
	int64_t cur, peak, peak_res, final;
	int64_t peak_ts;
	int64_t peak_mem; /* memory event index of the peak */
	int64_t allocs, frees;
};

static void dev_key(const struct gp_mem_event *m, int32_t *type, int32_t *id)
{
	if (m->device_type == 0 || (m->device_type < 0 && m->device < 0)) {
		*type = 0;
		*id = -1;
	} else {
		*type = 1;
		*id = m->device;
	}
}

static size_t find_dev(struct dev *d, size_t n, int32_t type, int32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (d[i].type == type && d[i].id == id)
			return i;
	return SIZE_MAX;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;

	if (x->type != y->type)
		return y->type - x->type; /* GPUs first */
	return (x->id > y->id) - (x->id < y->id);
}

struct alloc_row {
	uint32_t name;
	int64_t bytes, count;
	const char *s;
};

static int cmp_alloc(const void *a, const void *b)
{
	const struct alloc_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->s, y->s);
}

static int top_allocators(const struct gp__actx *c, const int64_t *op_of, struct gp_value *o)
{
	const struct gp_trace *t = c->t;
	struct gp_value *arr = gp_value_array();
	struct alloc_row *rows = NULL;
	struct gp_u64map m;
	size_t n = 0, i;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "top_allocators", arr));
	GP_TRY(gp__u64map_init(&m, 256));
	rows = gp__calloc(t->nmem + 1, sizeof(*rows));
	if (!rows)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->nmem; i++) {
		uint64_t slot;
		uint32_t name;

		if (t->mem[i].bytes <= 0 || op_of[i] < 0)
			continue;
		name = t->ev.name[op_of[i]];
		if (!gp__u64map_get(&m, name, &slot)) {
			slot = n++;
			rows[slot].name = name;
			rows[slot].s = gp__strtab_get(&t->strs, name);
			GP_TRY(gp__u64map_put(&m, name, slot));
		}
		rows[slot].bytes += t->mem[i].bytes;
		rows[slot].count++;
	}
	qsort(rows, n, sizeof(*rows), cmp_alloc);
	for (i = 0; i < n && i < TOP_ALLOCATORS; i++) {
		struct gp_value *r = gp_value_object();

		if (!r)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, r));
		GP_TRY(gp_obj_set_str(r, "name", rows[i].s));
		GP_TRY(gp_obj_set_int(r, "bytes", rows[i].bytes));
		GP_TRY(gp_obj_set_int(r, "count", rows[i].count));
	}
out:
	gp__u64map_release(&m);
	gp__free(rows);
	return rc;
}

/* is step @p i flagged incomplete by steps.c? */
static bool step_incomplete(const struct gp_value *r, size_t i)
{
	const struct gp_value *s = gp_arr_get(gp_obj_get(r, "steps"), i);

	return gp_value_get_bool(gp_obj_get(s, "incomplete"), false);
}

/*
 * Allocated bytes at the end of each ProfilerStep, and the leak heuristic:
 * over the complete steps (at least 3), every step ends with more allocated
 * than the one before, by more than 1 % of the device's peak each time.
 */
static int step_growth(const struct gp__actx *c, const struct gp_value *r, const uint32_t *ord,
                       const struct dev *d, struct gp_value *o)
{
	const struct gp_trace *t = c->t;
	struct gp_value *arr = gp_value_array();
	int64_t cur = 0, prev = 0;
	size_t i, j = 0, ncomplete = 0;
	bool have = false, leak = true;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "step_growth", arr));
	for (i = 0; i < c->nsteps; i++) {
		struct gp_value *s = gp_value_object();
		bool inc = step_incomplete(r, i);

		/* advance over this device's events up to the step's end */
		for (; j < t->nmem && t->mem[ord[j]].ts <= c->steps[i].end; j++) {
			const struct gp_mem_event *m = &t->mem[ord[j]];
			int32_t ty, id;

			dev_key(m, &ty, &id);
			if (ty != d->type || id != d->id)
				continue;
			cur = d->use_total ? m->total_allocated : cur + m->bytes;
			have = true;
		}
		if (!s)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, s));
		GP_TRY(gp_obj_set_str(s, "step", gp__ev_name(t, c->steps[i].ev)));
		GP_TRY(gp_obj_set_bool(s, "incomplete", inc));
		if (have)
			GP_TRY(gp_obj_set_int(s, "allocated_at_end_bytes", cur));
		else
			GP_TRY(gp_obj_set_null(s, "allocated_at_end_bytes"));
		if (inc)
			continue;
		if (!have || (ncomplete > 0 && !((double)(cur - prev) > 0.01 * (double)d->peak)))
			leak = false;
		prev = cur;
		ncomplete++;
	}
	GP_TRY(gp_obj_set_bool(o, "leak_suspect", leak && ncomplete >= 3));
out:
	return rc;
}

static int cmp_ts(const void *a, const void *b)
{
	const struct mkey *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int gp__an_memory(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct gp_value *o, *arr;
	struct dev *d = NULL;
	struct mkey *tk = NULL;
	uint32_t *ord = NULL;
	int64_t *op_of = NULL;
	size_t nd = 0, i, k;
	int rc = 0;

	if (!t->nmem)
		return gp_obj_set_null(r, "memory");
	o = gp_value_object();
	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "memory", o));
	GP_TRY(gp_obj_set_int(o, "events", (int64_t)t->nmem));
	d = gp__calloc(t->nmem, sizeof(*d));
	tk = gp__calloc(t->nmem, sizeof(*tk));
	ord = gp__calloc(t->nmem, sizeof(*ord));
	op_of = gp__calloc(t->nmem, sizeof(*op_of));
	if (!d || !tk || !ord || !op_of)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->nmem; i++)
		tk[i] = (struct mkey){ 0, t->mem[i].ts, (uint32_t)i };
	qsort(tk, t->nmem, sizeof(*tk), cmp_ts);
	for (i = 0; i < t->nmem; i++)
		ord[i] = tk[i].idx;
	GP_TRY(innermost_ops(c, op_of));

	/* the devices, and whether each has Total Allocated on every event */
	for (i = 0; i < t->nmem; i++) {
		int32_t ty, id;

		dev_key(&t->mem[i], &ty, &id);
		k = find_dev(d, nd, ty, id);
		if (k == SIZE_MAX) {
			k = nd++;
			d[k].type = ty;
			d[k].id = id;
			d[k].use_total = true;
			d[k].peak = INT64_MIN;
			d[k].peak_res = -1;
			d[k].peak_mem = -1;
		}
		if (t->mem[i].total_allocated < 0)
			d[k].use_total = false;
	}
	qsort(d, nd, sizeof(*d), cmp_dev);
	for (i = 0; i < t->nmem; i++) {
		const struct gp_mem_event *m = &t->mem[ord[i]];
		int32_t ty, id;
		struct dev *x;

		dev_key(m, &ty, &id);
		x = &d[find_dev(d, nd, ty, id)];
		x->cur = x->use_total ? m->total_allocated : x->cur + m->bytes;
		if (x->cur > x->peak) {
			x->peak = x->cur;
			x->peak_ts = m->ts;
			x->peak_mem = ord[i];
		}
		if (m->total_reserved > x->peak_res)
			x->peak_res = m->total_reserved;
		x->allocs += m->bytes > 0;
		x->frees += m->bytes < 0;
		x->final = x->cur;
	}

	arr = gp_value_array();
	if (!arr)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set(o, "devices", arr));
	for (k = 0; k < nd; k++) {
		struct gp_value *v = gp_value_object();
		const char *step = NULL, *op = NULL;

		if (!v)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, v));
		if (d[k].type == 0)
			GP_TRY(gp_obj_set_str(v, "device", "cpu"));
		else
			GP_TRY(gp_obj_set_int(v, "device", d[k].id));
		GP_TRY(gp_obj_set_str(v, "allocated_source",
		                      d[k].use_total ? "total_allocated" : "bytes_sum"));
		GP_TRY(gp_obj_set_int(v, "peak_allocated_bytes", d[k].peak));
		if (d[k].peak_res >= 0)
			GP_TRY(gp_obj_set_int(v, "peak_reserved_bytes", d[k].peak_res));
		else
			GP_TRY(gp_obj_set_null(v, "peak_reserved_bytes"));
		GP_TRY(gp_obj_set_int(v, "peak_ts_ns", d[k].peak_ts));
		for (i = 0; i < c->nsteps; i++)
			if (c->steps[i].ts <= d[k].peak_ts && d[k].peak_ts <= c->steps[i].end)
				step = gp__ev_name(t, c->steps[i].ev);
		if (d[k].peak_mem >= 0 && op_of[d[k].peak_mem] >= 0)
			op = gp__ev_name(t, (size_t)op_of[d[k].peak_mem]);
		GP_TRY(gp_obj_set_str(v, "peak_step", step));
		GP_TRY(gp_obj_set_str(v, "peak_op", op));
		GP_TRY(gp_obj_set_int(v, "final_allocated_bytes", d[k].final));
		GP_TRY(gp_obj_set_int(v, "alloc_count", d[k].allocs));
		GP_TRY(gp_obj_set_int(v, "free_count", d[k].frees));
		GP_TRY(step_growth(c, r, ord, &d[k], v));
	}
	GP_TRY(top_allocators(c, op_of, o));
out:
	gp__free(d);
	gp__free(tk);
	gp__free(ord);
	gp__free(op_of);
	return rc;
}
