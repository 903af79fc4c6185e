/* SPDX-License-Identifier: MIT */
/*
 * memsnap-trace.c - the replay of one device's trace of a memory snapshot
 * (memsnap-int.h): the allocated bytes after every entry, their peak and the
 * allocations live then grouped by top frame, the OOM entries with what was
 * live at each, and the curve downsampled to GP_MEMSNAP_MAX_POINTS.
 *
 * An allocation lives from its "alloc" to the "free_completed" at its address
 * (to "free_requested" in a trace with no free_completed at all); an alloc
 * at an address still live ends the allocation before it (its free was not
 * recorded). The trace is a ring buffer, so what was allocated before it
 * began counts from its start: the frees of addresses the trace never
 * allocated before them, and the snapshot's live blocks at addresses it never
 * allocated. Every pass is linear (one hash map by address); the live set is
 * grouped at the peak and at the first GP_MEMSNAP_OOM_DETAIL OOMs only.
 */
#include <string.h>

#include "analyze/memsnap-int.h"
#include "analyze/memsnap.h"
#include "analyze/metrics.h"
#include "util/error.h"

enum act {
	A_OTHER,
	A_ALLOC,
	A_FREE_REQ,
	A_FREE_COMP,
	A_OOM,
};

struct ent {
	int64_t size;
	uint64_t addr;
	int64_t time_us;
	int64_t device_free;
	int64_t delta;    /* what the entry changes the allocated bytes by */
	uint32_t frames;  /* its frame list node */
	uint32_t node;    /* the entry's dict */
	uint32_t free_at; /* an alloc: the entry that ends it; NONE: alive at the end */
	uint8_t act;
	bool has_time, has_free;
};

struct pre {
	int64_t size;
	uint32_t frames;
	uint32_t free_at;
};

#define NONE UINT32_MAX

static int read_entry(struct gp__ms *m, uint32_t e, struct ent *x)
{
	uint32_t a;
	int64_t v;
	bool h, need;
	int rc;

	memset(x, 0, sizeof(*x));
	x->node = e;
	x->free_at = NONE;
	if ((rc = gp__ms_dict(m, e, "a trace entry")) < 0)
		return rc;
	a = gp__pk_get(m->pk, e, "action");
	if (gp__pk_type(m->pk, a) != GP_PK_STR)
		return gp__ms_bad(m, e, "a trace entry without an 'action' string");
	if (gp__pk_str_eq(m->pk, a, "alloc"))
		x->act = A_ALLOC;
	else if (gp__pk_str_eq(m->pk, a, "free_requested"))
		x->act = A_FREE_REQ;
	else if (gp__pk_str_eq(m->pk, a, "free_completed"))
		x->act = A_FREE_COMP;
	else if (gp__pk_str_eq(m->pk, a, "oom"))
		x->act = A_OOM;
	else
		x->act = A_OTHER; /* segment_*, snapshot, annotate: no allocated bytes */
	need = x->act != A_OTHER;
	if ((rc = gp__ms_int(m, e, "size", need, &x->size, &h)) < 0)
		return rc;
	if (x->size < 0)
		return gp__ms_bad(m, e, "a trace entry of %lld bytes", (long long)x->size);
	if ((rc = gp__ms_int(m, e, "addr", need && x->act != A_OOM, &v, &h)) < 0)
		return rc;
	x->addr = (uint64_t)v;
	if ((rc = gp__ms_int(m, e, "time_us", false, &x->time_us, &x->has_time)) < 0)
		return rc;
	if ((rc = gp__ms_int(m, e, "device_free", false, &x->device_free, &x->has_free)) < 0)
		return rc;
	x->frames = gp__pk_get(m->pk, e, "frames");
	return 0;
}

/* pairs allocations with their ends, fills each entry's delta and the list of earlier ones */
static int pair(struct gp__ms *m, struct ent *es, size_t n, const struct gp__ms_blk *live,
                size_t nlive, struct pre **pres, size_t *npre)
{
	struct gp_u64map amap, premap;
	size_t i, cap = 0;
	bool completed = false;
	uint8_t free_act;
	uint64_t v;
	int rc;

	for (i = 0; i < n; i++)
		completed |= es[i].act == A_FREE_COMP;
	free_act = completed ? A_FREE_COMP : A_FREE_REQ;
	if ((rc = gp__u64map_init(&amap, n)) < 0)
		return rc;
	if ((rc = gp__u64map_init(&premap, 16)) < 0) {
		gp__u64map_release(&amap);
		return rc;
	}
	for (i = 0; i < n; i++) {
		struct ent *x = &es[i];

		if (x->act == A_ALLOC) {
			x->delta = x->size;
			if (gp__u64map_get(&amap, x->addr, &v) && es[v].free_at == NONE) {
				es[v].free_at = (uint32_t)i;
				x->delta -= es[v].size;
			}
			GP_TRY(gp__u64map_put(&amap, x->addr, i));
		} else if (x->act == free_act) {
			if (gp__u64map_get(&amap, x->addr, &v)) {
				if (es[v].free_at == NONE) {
					es[v].free_at = (uint32_t)i;
					x->delta = -es[v].size;
				}
			} else if (!gp__u64map_get(&premap, x->addr, &v)) {
				GP_TRY(gp__u64map_put(&premap, x->addr, 1));
				GP_TRY(gp__grow((void **)pres, &cap, *npre + 1, sizeof(**pres)));
				(*pres)[(*npre)++] =
				    (struct pre){ x->size, x->frames, (uint32_t)i };
				x->delta = -x->size;
			}
		}
	}
	for (i = 0; i < nlive; i++) {
		if (live[i].addr != UINT64_MAX && (gp__u64map_get(&amap, live[i].addr, &v) ||
		                                   gp__u64map_get(&premap, live[i].addr, &v)))
			continue;
		GP_TRY(gp__grow((void **)pres, &cap, *npre + 1, sizeof(**pres)));
		/* in the trace's unit: the bytes asked for, as its alloc entry would have had */
		(*pres)[(*npre)++] = (struct pre){ live[i].requested, live[i].frames, NONE };
	}
out:
	gp__u64map_release(&premap);
	gp__u64map_release(&amap);
	return rc;
}

/* the allocations live after entry @p k (-1: before the first), grouped, into @p o */
static int live_at(struct gp__ms *m, const struct ent *es, long k, const struct pre *pres,
                   size_t npre, struct gp_value *o)
{
	struct gp_value *rows = NULL;
	size_t i, ng = 0;
	int64_t blocks = 0;
	int rc = 0;

	for (i = 0; i < npre; i++)
		if (pres[i].free_at == NONE || (long)pres[i].free_at > k) {
			GP_TRY(gp__ms_add(m, pres[i].frames, pres[i].size));
			blocks++;
		}
	for (i = 0; (long)i <= k; i++)
		if (es[i].act == A_ALLOC && (es[i].free_at == NONE || (long)es[i].free_at > k)) {
			GP_TRY(gp__ms_add(m, es[i].frames, es[i].size));
			blocks++;
		}
	GP_TRY(gp_obj_set_int(o, "live_blocks", blocks));
	GP_TRY(gp__ms_groups(m, &rows, &ng));
	GP_TRY(gp_obj_set_int(o, "frame_groups", (int64_t)ng));
	rc = gp_obj_set(o, "frames", rows);
	rows = NULL;
out:
	gp_value_free(rows);
	return rc;
}

/* at most GP_MEMSNAP_MAX_POINTS: the one min/max decimation of series (analyze/metrics.h) */
static int curve(const struct ent *es, const int64_t *level, size_t n, bool times,
                 struct gp_value *dev)
{
	struct gp_value *c = gp_value_object(), *pts = gp_value_array();
	int64_t *x = gp__calloc(n ? n : 1, sizeof(*x));
	double *y = gp__calloc(n ? n : 1, sizeof(*y));
	size_t i;
	int rc = 0;

	if (!c || !pts || !x || !y)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory drawing a snapshot's curve"));
	for (i = 0; i < n; i++) {
		x[i] = times ? es[i].time_us : (int64_t)i;
		y[i] = (double)level[i]; /* exact: bytes below 2^53 */
	}
	GP_TRY(gp_obj_set_str(c, "x", times ? "time_us" : "entry"));
	GP_TRY(gp__metrics_points(x, y, n, GP_MEMSNAP_MAX_POINTS, pts));
	rc = gp_obj_set(c, "points", pts);
	pts = NULL;
	GP_TRY(rc);
	rc = gp_obj_set(dev, "curve", c);
	c = NULL;
out:
	gp__free(y);
	gp__free(x);
	gp_value_free(pts);
	gp_value_free(c);
	return rc;
}

static int set_time(struct gp_value *o, const struct ent *x)
{
	return x && x->has_time ? gp_obj_set_int(o, "time_us", x->time_us)
	                        : gp_obj_set_null(o, "time_us");
}

static int ooms(struct gp__ms *m, const struct ent *es, const int64_t *level, size_t n,
                const struct pre *pres, size_t npre, struct gp_value *dev)
{
	struct gp_value *arr = gp_value_array(), *o = NULL;
	size_t i, k = 0;
	int rc = 0;

	if (!arr)
		return GP_ENOMEM;
	for (i = 0; i < n; i++) {
		if (es[i].act != A_OOM)
			continue;
		if (!(o = gp_value_object()))
			GP_TRY(GP_ENOMEM);
		GP_TRY(gp_obj_set_int(o, "entry", (int64_t)i));
		GP_TRY(set_time(o, &es[i]));
		GP_TRY(gp_obj_set_int(o, "requested_bytes", es[i].size));
		if (es[i].has_free)
			GP_TRY(gp_obj_set_int(o, "device_free_bytes", es[i].device_free));
		else
			GP_TRY(gp_obj_set_null(o, "device_free_bytes"));
		GP_TRY(gp_obj_set_int(o, "allocated_bytes", level[i]));
		if (k++ < GP_MEMSNAP_OOM_DETAIL)
			GP_TRY(live_at(m, es, (long)i, pres, npre, o));
		rc = gp_arr_push(arr, o);
		o = NULL;
		GP_TRY(rc);
	}
	rc = gp_obj_set(dev, "ooms", arr);
	arr = NULL;
out:
	gp_value_free(o);
	gp_value_free(arr);
	return rc;
}

int gp__ms_trace(struct gp__ms *m, uint32_t tr, const struct gp__ms_blk *live, size_t nlive,
                 struct gp_value *dev)
{
	size_t n = gp__pk_len(m->pk, tr), npre = 0, i;
	struct ent *es = gp__calloc(n, sizeof(*es));
	int64_t *level = gp__calloc(n, sizeof(*level)), lv = 0, peak;
	struct gp_value *pk = gp_value_object();
	struct pre *pres = NULL;
	bool times = true;
	long at = -1;
	int rc = 0;

	if (!es || !level || !pk)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory replaying a snapshot's trace"));
	for (i = 0; i < n; i++) {
		GP_TRY(read_entry(m, gp__pk_item(m->pk, tr, i), &es[i]));
		times &= es[i].has_time;
	}
	GP_TRY(pair(m, es, n, live, nlive, &pres, &npre));
	for (i = 0; i < npre; i++)
		GP_TRY(gp__ms_sum(m, tr, &lv, pres[i].size));
	GP_TRY(gp_obj_set_int(dev, "trace_entries", (int64_t)n));
	GP_TRY(gp_obj_set_int(dev, "initial_bytes", lv));
	peak = lv;
	for (i = 0; i < n; i++) {
		GP_TRY(gp__ms_sum(m, es[i].node, &lv, es[i].delta));
		level[i] = lv;
		if (lv > peak) {
			peak = lv;
			at = (long)i;
		}
	}
	GP_TRY(gp_obj_set_str(pk, "source", "trace"));
	GP_TRY(gp_obj_set_int(pk, "allocated_bytes", peak));
	if (at >= 0)
		GP_TRY(gp_obj_set_int(pk, "entry", at));
	else
		GP_TRY(gp_obj_set_null(pk, "entry"));
	GP_TRY(set_time(pk, at >= 0 ? &es[at] : NULL));
	GP_TRY(live_at(m, es, at, pres, npre, pk));
	rc = gp_obj_set(dev, "peak", pk);
	pk = NULL;
	GP_TRY(rc);
	GP_TRY(ooms(m, es, level, n, pres, npre, dev));
	GP_TRY(curve(es, level, n, times, dev));
out:
	gp_value_free(pk);
	gp__free(pres);
	gp__free(level);
	gp__free(es);
	return rc;
}
