/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - the "gpu" section: where GPU time goes.
 *
 * Over the GPU activity of ctx.h (c->gpu, sorted by start):
 *  - temporal breakdown: window (first start to last end), busy (union of all
 *    activity), idle = window - busy, compute (union of COMPUTATION),
 *    non-compute = window - compute - idle; in a capture of `gpuprof run`
 *    with capture windows, the idle time outside every window (nothing was
 *    recorded there) is left out of window and idle;
 *  - kernel-type breakdown: a sweep over the per-type unions, overlapping time
 *    under HTA's combined labels ("COMPUTATION overlapping COMMUNICATION");
 *  - comm/comp overlap: |COMP ∩ COMM| / |COMM|, null without communication;
 *  - idle breakdown per stream: each gap before a GPU event (less its part
 *    outside the capture windows) is host_wait when the call that launched
 *    the event started after the gap opened, else kernel_wait when shorter
 *    than 30 µs, else other;
 *  - per-stream busy time and which classification rule typed what.
 * Unions are built as HTA's merge_kernel_intervals builds them (sort by start,
 * a new group when a start passes every end so far); on well-formed events
 * that is the exact union. Under --compat hta the rounded times may hold
 * negative durations, which that merge keeps, as HTA does; the stream key is
 * the stream number alone, the gap is measured from the previous event's end
 * (HTA's shift(1)), and cuda_sync rows are left out of the idle breakdown.
 * docs/analyses/gpu.md has the definitions and the JSON fields.
 */
#include "analyze-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "util/error.h"
#include "util/sort.h"

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay: 30 µs */

/* a list of merged groups; unlike gp_ivset it may hold e < s (HTA rounding) */
struct ivl {
	struct gp_iv *v;
	size_t n, cap;
};

static void ivl_release(struct ivl *l)
{
	gp__free(l->v);
	memset(l, 0, sizeof(*l));
}

static int ivl_push(struct ivl *l, int64_t s, int64_t e)
{
	int rc;

	if (l->n == l->cap && (rc = gp__grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v))))
		return rc;
	l->v[l->n].s = s;
	l->v[l->n].e = e;
	l->n++;
	return 0;
}

static int64_t ivl_len(const struct ivl *l)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		sum += l->v[i].e - l->v[i].s;
	return sum;
}

/*
 * The capture windows of a `gpuprof run` capture as a normal set (a window
 * still open when the process died runs to the end of time); @p *have false
 * when the input has none (a Kineto trace, or a capture of the whole run).
 */
static int capture_windows(const struct gp__actx *c, struct gp_ivset *win, bool *have)
{
	const struct gp_value *w =
	    gp_obj_get(gp_obj_get(c->t->meta, "gpuprof_capture_read"), "windows");
	size_t i, n = gp_value_len(w);
	int rc;

	*have = gp_value_type(w) == GP_VALUE_ARRAY && n > 0;
	for (i = 0; *have && i < n; i++) {
		const struct gp_value *o = gp_arr_get(w, i);
		int64_t s, e;

		if (!gp_value_get_int(gp_obj_get(o, "start_ns"), &s))
			continue;
		if (!gp_value_get_int(gp_obj_get(o, "end_ns"), &e))
			e = INT64_MAX;
		if ((rc = gp__ivset_add(win, s, e)))
			return rc;
	}
	return gp__ivset_normalize(win);
}

/* Length of [s, e) outside the windows @p win (a normal set). */
static int64_t outside(const struct gp_ivset *win, int64_t s, int64_t e)
{
	return e > s ? (e - s) - gp__ivset_len_within(win, s, e) : 0;
}

/*
 * Idle time of [first, last) outside the capture windows: the parts of it
 * that no window covers, less the GPU activity @p busy still running there
 * (an op launched in a window may end after it).
 */
static int idle_outside(const struct gp_ivset *win, const struct ivl *busy, int64_t first,
                        int64_t last, int64_t *out)
{
	struct gp_ivset span = GP_IVSET_INIT, gaps = GP_IVSET_INIT, act = GP_IVSET_INIT;
	size_t i;
	int rc = 0;

	*out = 0;
	GP_TRY(gp__ivset_add(&span, first, last));
	GP_TRY(gp__ivset_subtract(&span, win, &gaps));
	for (i = 0; i < busy->n; i++)
		GP_TRY(gp__ivset_add(&act, busy->v[i].s, busy->v[i].e));
	GP_TRY(gp__ivset_normalize(&act));
	*out = gp__ivset_len(&gaps) - gp__ivset_overlap_len(&gaps, &act);
out:
	gp__ivset_release(&span);
	gp__ivset_release(&gaps);
	gp__ivset_release(&act);
	return rc;
}

/*
 * Merges the events idx[0..n) (sorted by start) whose type is in @p tmask
 * (0: all) into groups. @p skip_neg leaves out negative durations.
 */
static int merge_groups(const struct gp__actx *c, const uint32_t *idx, size_t n, unsigned tmask,
                        bool skip_neg, struct ivl *out)
{
	int64_t runmax = 0;
	struct gp_iv cur = { 0, 0 };
	bool have = false;
	size_t k;
	int rc;

	out->n = 0;
	for (k = 0; k < n; k++) {
		uint32_t i = idx[k];
		int64_t s = c->ts[i], e = s + c->dur[i];

		if (tmask && !(c->ktype[i] & tmask))
			continue;
		if (skip_neg && e < s)
			continue;
		if (!have) {
			cur.s = s;
			cur.e = e;
			runmax = e;
			have = true;
			continue;
		}
		if (s > runmax) {
			if ((rc = ivl_push(out, cur.s, cur.e)))
				return rc;
			cur.s = s;
			cur.e = e;
		} else if (e > cur.e) {
			cur.e = e;
		}
		if (e > runmax)
			runmax = e;
	}
	return have ? ivl_push(out, cur.s, cur.e) : 0;
}

/*
 * The boundary points of the three type unions, in time order; at one time
 * starts come first, larger type bits first (a zero-length group still shows).
 * val holds the signed type bit + 8.
 */
static void order_points(struct gp_kv *p, size_t n)
{
	size_t a, b, i;

	for (a = 0; a < n; a = b) {
		for (b = a + 1; b < n && p[b].key == p[a].key; b++)
			;
		for (i = a + 1; i < b; i++) {
			struct gp_kv x = p[i];
			size_t j = i;

			while (j > a && p[j - 1].val < x.val) {
				p[j] = p[j - 1];
				j--;
			}
			p[j] = x;
		}
	}
}

/* sweep over the three type unions; acc[m] = time with exactly the types in bitmask m */
static int sweep(const struct ivl *comp, const struct ivl *comm, const struct ivl *mem,
                 int64_t acc[8], bool seen[8])
{
	const struct ivl *l[3] = { comp, comm, mem };
	const int bit[3] = { GP_KT_COMP, GP_KT_COMM, GP_KT_MEM };
	struct gp_kv *p;
	size_t n = 0, k, j, w = 0;
	int running = 0, rc;

	memset(acc, 0, 8 * sizeof(*acc));
	memset(seen, 0, 8 * sizeof(*seen));
	for (k = 0; k < 3; k++)
		n += 2 * l[k]->n;
	if (!n)
		return 0;
	p = gp__calloc(n, sizeof(*p));
	if (!p)
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < 3; k++) {
		for (j = 0; j < l[k]->n; j++) {
			p[w].key = l[k]->v[j].s;
			p[w++].val = (uint64_t)(8 + bit[k]);
			p[w].key = l[k]->v[j].e;
			p[w++].val = (uint64_t)(8 - bit[k]);
		}
	}
	if ((rc = gp__sort_kv(p, n))) {
		gp__free(p);
		return rc;
	}
	order_points(p, n);
	for (k = 0; k + 1 < n; k++) {
		running += (int)p[k].val - 8;
		if (running > 0 && (running & 7)) {
			acc[running & 7] += p[k + 1].key - p[k].key;
			seen[running & 7] = true;
		}
	}
	gp__free(p);
	return 0;
}

/* GPU events grouped by stream */
struct sentry {
	int32_t device; /* grouping device: -1 under --compat hta */
	int64_t stream;
	uint32_t pos; /* position in c->gpu (start order) */
	uint32_t ev;
};
_Static_assert(sizeof(struct sentry) >= sizeof(struct gp_kv), "group_sentries' scratch");

/*
 * Sorts se[0..n) (built in start order) by (device, stream, start order):
 * two stable radix passes, by stream and then by device.
 */
static int group_sentries(struct sentry *se, size_t n)
{
	struct gp_kv *kv = gp__calloc(n ? n : 1, sizeof(*kv));
	struct sentry *tmp = gp__calloc(n ? n : 1, sizeof(*tmp));
	size_t k;
	int rc = 0;

	if (!kv || !tmp)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	/* tmp (n entries of 24 bytes) is the sorts' scratch until the entries are copied */
	for (k = 0; k < n; k++) {
		kv[k].key = se[k].stream;
		kv[k].val = k;
	}
	GP_TRY(gp__sort_kv_with(kv, n, (struct gp_kv *)(void *)tmp));
	for (k = 0; k < n; k++)
		kv[k].key = se[kv[k].val].device;
	GP_TRY(gp__sort_kv_with(kv, n, (struct gp_kv *)(void *)tmp));
	for (k = 0; k < n; k++)
		tmp[k] = se[kv[k].val];
	memcpy(se, tmp, n * sizeof(*se));
out:
	gp__free(kv);
	gp__free(tmp);
	return rc;
}

static int obj_add_int_or_null(struct gp_value *o, const char *k, bool ok, int64_t v)
{
	return ok ? gp_obj_set_int(o, k, v) : gp_obj_set_null(o, k);
}

/*
 * When the call that launched GPU event i started; false if unknown. Under
 * --compat hta, a GPU row whose correlation id no CPU row carries gets HTA's
 * fallback: transform_correlation_to_index sets its index_correlation to
 * min(correlation, 0) = 0, and get_idle_time_breakdown then joins the ts of
 * the trace's row 0 (the first traceEvents element, here the first stored
 * event, when HTA keeps it: not a "Trace" row, not removed by the filter).
 */
static bool launch_ts(const struct gp__actx *c, size_t i, int64_t *ts)
{
	const struct gp_trace *t = c->t;
	int64_t l = gp__launcher(c, i);

	if (l >= 0) {
		*ts = c->ts[l];
		return true;
	}
	if (!c->hta || t->ev.corr[i] < 0 || t->ev.n == 0 || t->ev.kind[0] == GP_K_TRACE ||
	    !gp__kept(c, 0))
		return false;
	*ts = c->ts[0];
	return true;
}

/*
 * idle categories of one stream's events evs[0..n) (start order); a gap's
 * part outside the capture windows @p win (NULL: none) is not idle time
 */
static void idle_stream(const struct gp__actx *c, const uint32_t *evs, size_t n,
                        const struct gp_ivset *win, int64_t out[3])
{
	int64_t prev_end = 0;
	bool have = false;
	size_t k;

	out[0] = out[1] = out[2] = 0;
	for (k = 0; k < n; k++) {
		uint32_t i = evs[k];
		uint8_t kind = c->t->ev.kind[i];
		int64_t s = c->ts[i], e = s + c->dur[i], gap, lts;
		bool none = false;

		/* HTA (PR #149) breaks down the idle time between kernels and copies only */
		if (kind != GP_K_KERNEL && kind != GP_K_MEMCPY && kind != GP_K_MEMSET)
			continue;
		if (!have) {
			prev_end = e;
			have = true;
			continue;
		}
		gap = s - prev_end;
		/* a gap's part outside the capture windows is not idle; all of it: no gap at all */
		if (win && gap > 0) {
			gap -= outside(win, prev_end, s);
			none = gap <= 0;
		}
		if (!none && (c->hta || gap > 0)) {
			if (launch_ts(c, i, &lts) && lts > prev_end)
				out[0] += gap;
			else if (gap < KERNEL_WAIT_NS)
				out[1] += gap;
			else
				out[2] += gap;
		}
		/* HTA compares with the previous row's end; gpuprof with the latest end */
		if (c->hta || e > prev_end)
			prev_end = e;
	}
}

static int write_streams(const struct gp__actx *c, const struct gp_ivset *win, struct gp_value *g)
{
	size_t n = c->gpu.n, k, a, b;
	struct sentry *se = NULL;
	uint32_t *evs = NULL;
	struct ivl grp = { 0 };
	struct gp_value *idle = NULL, *streams = NULL, *tot = NULL;
	int64_t total[3] = { 0, 0, 0 };
	int rc = 0;

	se = gp__calloc(n ? n : 1, sizeof(*se));
	evs = gp__calloc(n ? n : 1, sizeof(*evs));
	idle = gp_value_array();
	streams = gp_value_array();
	tot = gp_value_object();
	if (!se || !evs || !idle || !streams || !tot) {
		gp_value_free(idle);
		gp_value_free(streams);
		gp_value_free(tot);
		idle = streams = tot = NULL;
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	rc = gp_obj_set(g, "idle_breakdown", idle);
	if (!rc)
		rc = gp_obj_set(g, "streams", streams);
	else
		gp_value_free(streams);
	if (!rc)
		rc = gp_obj_set(g, "idle_breakdown_total", tot);
	else
		gp_value_free(tot);
	if (rc)
		goto out;

	for (k = 0; k < n; k++) {
		uint32_t i = c->gpu.v[k];

		se[k].device = c->hta ? -1 : gp__ev_device(c->t, i);
		se[k].stream = c->t->ev.stream[i];
		se[k].pos = (uint32_t)k;
		se[k].ev = i;
	}
	GP_TRY(group_sentries(se, n));
	for (k = 0; k < n; k++)
		evs[k] = se[k].ev;
	for (a = 0; a < n; a = b) {
		struct gp_value *row, *srow;
		int32_t dev = se[a].device;
		int64_t cat[3];

		for (b = a + 1;
		     b < n && se[b].device == se[a].device && se[b].stream == se[a].stream; b++)
			;
		if (c->hta) /* the group's device: the first one known */
			for (k = a; k < b && dev < 0; k++)
				dev = gp__ev_device(c->t, se[k].ev);
		GP_TRY(merge_groups(c, evs + a, b - a, 0, true, &grp));
		idle_stream(c, evs + a, b - a, win, cat);
		/* per stream at most the span; summed over many streams: saturate */
		total[0] = gp__add_sat(total[0], cat[0]);
		total[1] = gp__add_sat(total[1], cat[1]);
		total[2] = gp__add_sat(total[2], cat[2]);

		srow = gp_value_object();
		if (!srow || (rc = gp_arr_push(streams, srow))) {
			if (!rc)
				rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
		GP_TRY(gp_obj_set_int(srow, "device", dev));
		GP_TRY(gp_obj_set_int(srow, "stream", se[a].stream));
		GP_TRY(gp_obj_set_int(srow, "busy_ns", ivl_len(&grp)));
		GP_TRY(gp_obj_set_int(srow, "count", (int64_t)(b - a)));

		row = gp_value_object();
		if (!row || (rc = gp_arr_push(idle, row))) {
			if (!rc)
				rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
		GP_TRY(gp_obj_set_int(row, "device", dev));
		GP_TRY(gp_obj_set_int(row, "stream", se[a].stream));
		GP_TRY(gp_obj_set_int(row, "host_wait_ns", cat[0]));
		GP_TRY(gp_obj_set_int(row, "kernel_wait_ns", cat[1]));
		GP_TRY(gp_obj_set_int(row, "other_ns", cat[2]));
	}
	GP_TRY(gp_obj_set_int(tot, "host_wait_ns", total[0]));
	GP_TRY(gp_obj_set_int(tot, "kernel_wait_ns", total[1]));
	GP_TRY(gp_obj_set_int(tot, "other_ns", total[2]));
out:
	ivl_release(&grp);
	gp__free(se);
	gp__free(evs);
	return rc;
}

struct ktrow {
	unsigned mask;
	int64_t ns;
};

static int cmp_ktrow(const void *x, const void *y)
{
	const struct ktrow *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->mask < b->mask ? -1 : a->mask > b->mask;
}

/* @p seen: also list labels that occurred with no time (HTA lists them) */
static int write_kernel_types(struct gp_value *g, const int64_t acc[8], const bool *seen)
{
	static const unsigned bits[3] = { GP_KT_COMP, GP_KT_COMM, GP_KT_MEM };
	struct gp_value *arr = gp_value_array();
	struct ktrow rows[7];
	size_t nrows = 0, k, j;
	int64_t total = 0;
	int rc;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = gp_obj_set(g, "kernel_types", arr)))
		return rc;
	for (k = 1; k < 8; k++) {
		total += acc[k];
		if (acc[k] > 0 || (seen && seen[k])) {
			rows[nrows].mask = (unsigned)k;
			rows[nrows++].ns = acc[k];
		}
	}
	qsort(rows, nrows, sizeof(rows[0]), cmp_ktrow);
	for (k = 0; k < nrows; k++) {
		struct gp_value *o = gp_value_object();
		char label[96];
		size_t len = 0;

		label[0] = 0;
		for (j = 0; j < 3; j++) {
			if (!(rows[k].mask & bits[j]))
				continue;
			len += (size_t)snprintf(label + len, sizeof(label) - len, "%s%s",
			                        len ? " overlapping " : "",
			                        gp__ktype_name((enum gp_ktype)bits[j]));
		}
		if (!o || (rc = gp_arr_push(arr, o)))
			return o ? rc : gp__error(GP_ENOMEM, "out of memory");
		if ((rc = gp_obj_set_str(o, "type", label)) ||
		    (rc = gp_obj_set_int(o, "ns", rows[k].ns)) ||
		    (rc = gp_obj_set_double(o, "pct", gp__pct(rows[k].ns, total))))
			return rc;
	}
	return 0;
}

struct rulerow {
	uint8_t rule;
	uint8_t type;
	int64_t count, ns;
};

static int cmp_rulerow(const void *x, const void *y)
{
	const struct rulerow *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(gp__classify_rule_name(a->rule), gp__classify_rule_name(b->rule));
}

static int write_classification(const struct gp__actx *c, struct gp_value *g)
{
	struct rulerow rows[256];
	struct gp_value *arr = gp_value_array();
	size_t k, n = 0;
	int rc;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = gp_obj_set(g, "classification", arr)))
		return rc;
	memset(rows, 0, sizeof(rows));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];
		struct rulerow *r = &rows[c->krule[i]];

		r->rule = c->krule[i];
		r->type = c->ktype[i];
		r->count++;
		r->ns += c->dur[i];
	}
	for (k = 0; k < 256; k++)
		if (rows[k].count)
			rows[n++] = rows[k];
	qsort(rows, n, sizeof(rows[0]), cmp_rulerow);
	for (k = 0; k < n; k++) {
		struct gp_value *o = gp_value_object();

		if (!o || (rc = gp_arr_push(arr, o)))
			return o ? rc : gp__error(GP_ENOMEM, "out of memory");
		if ((rc = gp_obj_set_str(o, "rule", gp__classify_rule_name(rows[k].rule))) ||
		    (rc = gp_obj_set_str(o, "type", gp__ktype_name((enum gp_ktype)rows[k].type))) ||
		    (rc = gp_obj_set_int(o, "count", rows[k].count)) ||
		    (rc = gp_obj_set_int(o, "ns", rows[k].ns)))
			return rc;
	}
	return 0;
}

static int write_empty(struct gp_value *g)
{
	static const char *const nulls[] = { "window_ns",         "busy_ns",
		                             "idle_ns",           "compute_ns",
		                             "non_compute_ns",    "communication_ns",
		                             "idle_pct",          "compute_pct",
		                             "non_compute_pct",   "comm_comp_overlap_pct",
		                             "outside_windows_ns" };
	static const char *const lists[] = { "kernel_types", "idle_breakdown", "streams",
		                             "classification" };
	size_t k;
	int rc = 0;

	GP_TRY(gp_obj_set_bool(g, "has_gpu", false));
	GP_TRY(gp_obj_set_str(g, "note", "no GPU activity"));
	GP_TRY(gp_obj_set_null(g, "idle_breakdown_total"));
	for (k = 0; k < GP_ARRAY_SIZE(nulls); k++)
		GP_TRY(gp_obj_set_null(g, nulls[k]));
	for (k = 0; k < GP_ARRAY_SIZE(lists); k++) {
		struct gp_value *a = gp_value_array();

		if (!a)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set(g, lists[k], a));
	}
out:
	return rc;
}

int gp__an_gpu(const struct gp__actx *c, struct gp_value *r)
{
	struct ivl all = { 0 }, comp = { 0 }, comm = { 0 }, mem = { 0 };
	struct gp_ivset win = GP_IVSET_INIT;
	const uint32_t *v = c->gpu.v;
	size_t n = c->gpu.n, k;
	int64_t first, last, window, busy, compute, idle, non_compute, comm_ns, acc[8], off = 0;
	bool seen[8], windowed;
	struct gp_value *g = gp_value_object();
	const char *note = NULL;
	bool has_comm = false;
	int rc = 0;

	if (!g)
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = gp_obj_set(r, "gpu", g)))
		return rc;
	if (!n)
		return write_empty(g);

	first = c->ts[v[0]];
	last = INT64_MIN;
	for (k = 0; k < n; k++) {
		int64_t e = c->ts[v[k]] + c->dur[v[k]];

		if (e > last)
			last = e;
		has_comm |= c->ktype[v[k]] == GP_KT_COMM;
	}
	window = last > first ? last - first : 0;
	GP_TRY(merge_groups(c, v, n, 0, false, &all));
	GP_TRY(merge_groups(c, v, n, GP_KT_COMP, false, &comp));
	GP_TRY(merge_groups(c, v, n, GP_KT_COMM, false, &comm));
	GP_TRY(merge_groups(c, v, n, GP_KT_MEM, false, &mem));
	busy = ivl_len(&all);
	compute = ivl_len(&comp);
	comm_ns = ivl_len(&comm);
	GP_TRY(sweep(&comp, &comm, &mem, acc, seen));
	idle = window - busy;
	non_compute = window - compute - idle;
	if (non_compute < 0 || idle < 0) {
		/*
		 * HTA asserts here: its µs rounding gave sub-µs events a negative
		 * duration that its merge subtracts. Report the union without them.
		 */
		struct ivl a2 = { 0 }, c2 = { 0 };

		rc = merge_groups(c, v, n, 0, true, &a2);
		if (!rc)
			rc = merge_groups(c, v, n, GP_KT_COMP, true, &c2);
		busy = ivl_len(&a2);
		compute = ivl_len(&c2);
		ivl_release(&a2);
		ivl_release(&c2);
		if (rc)
			goto out;
		idle = window - busy;
		non_compute = window - compute - idle;
		note = "HTA's temporal breakdown fails on this trace (negative durations after its "
		       "us rounding); the union without them is shown";
	}

	/* a capture's time between its windows: nothing was recorded there */
	GP_TRY(capture_windows(c, &win, &windowed));
	if (windowed) {
		GP_TRY(idle_outside(&win, &all, first, last, &off));
		if (off > idle) /* only with HTA's negative durations */
			off = idle > 0 ? idle : 0;
		window -= off;
		idle -= off;
	}

	GP_TRY(gp_obj_set_bool(g, "has_gpu", true));
	GP_TRY(gp_obj_set_str(g, "note", note));
	GP_TRY(gp_obj_set_int(g, "window_ns", window));
	GP_TRY(gp_obj_set_int(g, "busy_ns", busy));
	GP_TRY(gp_obj_set_int(g, "idle_ns", idle));
	GP_TRY(gp_obj_set_int(g, "compute_ns", compute));
	GP_TRY(gp_obj_set_int(g, "non_compute_ns", non_compute));
	GP_TRY(obj_add_int_or_null(g, "outside_windows_ns", windowed, off));
	GP_TRY(obj_add_int_or_null(g, "communication_ns", has_comm, comm_ns));
	GP_TRY(gp_obj_set_double(g, "idle_pct", gp__pct(idle, window)));
	GP_TRY(gp_obj_set_double(g, "compute_pct", gp__pct(compute, window)));
	GP_TRY(gp_obj_set_double(g, "non_compute_pct", gp__pct(non_compute, window)));
	GP_TRY(gp_obj_set_double(g, "comm_comp_overlap_pct",
	                         has_comm ? gp__pct(acc[GP_KT_COMP | GP_KT_COMM] +
	                                                acc[GP_KT_COMP | GP_KT_COMM | GP_KT_MEM],
	                                            comm_ns)
	                                  : NAN));
	GP_TRY(write_kernel_types(g, acc, c->hta ? seen : NULL));
	GP_TRY(write_streams(c, windowed ? &win : NULL, g));
	GP_TRY(write_classification(c, g));
out:
	gp__ivset_release(&win);
	ivl_release(&all);
	ivl_release(&comp);
	ivl_release(&comm);
	ivl_release(&mem);
	return rc;
}
