/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - the "timeline" section: GPU busy time per stream and per
 * device, binned over the trace span, for the HTML report's timeline.
 *
 * The window is [c->span_start, c->span_end), cut into B = min(200, span)
 * bins of bin_ns = ceil(span / B). Over the GPU activity of ctx.h (c->gpu,
 * sorted by start), events with end < start left out and every interval
 * clipped to the window: per stream (real device, stream) the union of its
 * events, per device the union over its streams, each spread over the bins
 * (busy_ns[k] = the union's length inside bin k, 0..bin_ns). At most
 * TL_MAX_STREAMS streams are listed, the busiest; the others are counted.
 *
 * Cost: two radix sorts of the GPU events, one pass over each stream's
 * events, and per listed row the bins its merged intervals touch. Temporary
 * memory is O(GPU events). Bin arithmetic is done on unsigned offsets from
 * the window start, so spans near the int64 limits cannot overflow it.
 * docs/analyses/gpu.md has the definition.
 */
#include "analyze-int.h"

#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "util/error.h"
#include "util/sort.h"

#define TL_BINS        200
#define TL_MAX_STREAMS 64

struct tl_window {
	int64_t start, end;
	uint64_t span, bin_ns;
	size_t nbins;
};

/* one stream: its merged, clipped intervals iv[off, off + n) */
struct tl_stream {
	int32_t device;
	int64_t stream;
	size_t off, n;
	uint64_t total;
};

static int64_t to_i64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* adds [s, e) (inside the window, s < e) to bins[] */
static void bin_add(const struct tl_window *w, uint64_t *bins, int64_t s, int64_t e)
{
	uint64_t o0 = (uint64_t)s - (uint64_t)w->start, o1 = (uint64_t)e - (uint64_t)w->start;
	uint64_t k0 = o0 / w->bin_ns, k1 = (o1 - 1) / w->bin_ns, k;

	/* o1 <= span <= nbins * bin_ns, so k1 < nbins */
	if (k0 == k1) {
		bins[k0] += o1 - o0;
		return;
	}
	bins[k0] += (k0 + 1) * w->bin_ns - o0;
	for (k = k0 + 1; k < k1; k++)
		bins[k] += w->bin_ns;
	bins[k1] += o1 - k1 * w->bin_ns;
}

/* attaches {busy_ns: bins[], total_busy_ns} to @p row */
static int write_bins(const struct tl_window *w, const uint64_t *bins, uint64_t total,
                      struct gp_value *row)
{
	struct gp_value *arr = gp_value_array();
	size_t k;
	int rc;

	if ((rc = gp_obj_set(row, "busy_ns", arr)))
		return rc;
	for (k = 0; k < w->nbins; k++)
		if ((rc = gp_arr_push(arr, gp_value_int(to_i64(bins[k])))))
			return rc;
	return gp_obj_set_int(row, "total_busy_ns", to_i64(total));
}

/* a new object pushed to @p arr, in *@p row */
static int push_row(struct gp_value *arr, struct gp_value **row)
{
	*row = gp_value_object();
	return gp_arr_push(arr, *row);
}

/*
 * Fills st[] and iv[] from the GPU events: groups them by (device, stream)
 * keeping start order (two stable radix passes, by stream then by device),
 * then merges each stream's clipped intervals. @p kv is scratch of c->gpu.n.
 */
static int build_streams(const struct gp__actx *c, const struct tl_window *w, struct gp_kv *kv,
                         struct tl_stream **st, size_t *nst, size_t *cap, struct gp_iv *iv)
{
	const struct gp_trace *t = c->t;
	size_t n = c->gpu.n, a, b, k, niv = 0;
	int rc;

	*nst = 0;
	for (k = 0; k < n; k++) {
		kv[k].key = t->ev.stream[c->gpu.v[k]];
		kv[k].val = c->gpu.v[k];
	}
	if ((rc = gp__sort_kv(kv, n)))
		return rc;
	for (k = 0; k < n; k++)
		kv[k].key = gp__ev_device(t, kv[k].val);
	if ((rc = gp__sort_kv(kv, n)))
		return rc;

	for (a = 0; a < n; a = b) {
		int64_t stream = t->ev.stream[kv[a].val];
		struct gp_iv cur = { 0, 0 };
		bool seen = false, have = false;
		uint64_t total = 0;
		size_t off = niv;

		for (b = a; b < n && kv[b].key == kv[a].key && t->ev.stream[kv[b].val] == stream;
		     b++) {
			uint32_t i = (uint32_t)kv[b].val;
			int64_t s = c->ts[i], e;

			if (__builtin_add_overflow(s, c->dur[i], &e))
				e = c->dur[i] > 0 ? INT64_MAX : INT64_MIN;
			if (e < s)
				continue;
			seen = true;
			if (s < w->start)
				s = w->start;
			if (e > w->end)
				e = w->end;
			if (e <= s)
				continue;
			if (have && s <= cur.e) {
				if (e > cur.e)
					cur.e = e;
				continue;
			}
			if (have) {
				iv[niv++] = cur;
				total += (uint64_t)cur.e - (uint64_t)cur.s;
			}
			cur.s = s;
			cur.e = e;
			have = true;
		}
		if (have) {
			iv[niv++] = cur;
			total += (uint64_t)cur.e - (uint64_t)cur.s;
		}
		if (!seen) /* every event skipped: not a stream of the timeline */
			continue;
		if ((rc = gp__grow((void **)st, cap, *nst + 1, sizeof(**st))))
			return rc;
		(*st)[*nst].device = (int32_t)kv[a].key;
		(*st)[*nst].stream = stream;
		(*st)[*nst].off = off;
		(*st)[*nst].n = niv - off;
		(*st)[*nst].total = total;
		(*nst)++;
	}
	return 0;
}

/*
 * The device rows: per device, the union of its streams' intervals (sorted
 * by start in @p kv, scratch of at least as many entries as iv[]).
 */
static int write_devices(const struct tl_window *w, const struct tl_stream *st, size_t nst,
                         const struct gp_iv *iv, struct gp_kv *kv, uint64_t *bins,
                         struct gp_value *devs)
{
	size_t a, b, k, m;
	int rc;

	for (a = 0; a < nst; a = b) {
		struct gp_value *row;
		struct gp_iv cur = { 0, 0 };
		bool have = false;
		uint64_t total = 0;

		for (b = a + 1; b < nst && st[b].device == st[a].device; b++)
			;
		/* streams of a device lie together in iv[] */
		m = st[b - 1].off + st[b - 1].n - st[a].off;
		for (k = 0; k < m; k++) {
			kv[k].key = iv[st[a].off + k].s;
			kv[k].val = (uint64_t)iv[st[a].off + k].e;
		}
		if (b - a > 1 && (rc = gp__sort_kv(kv, m)))
			return rc;
		memset(bins, 0, w->nbins * sizeof(*bins));
		for (k = 0; k < m; k++) {
			int64_t s = kv[k].key, e = (int64_t)kv[k].val;

			if (have && s <= cur.e) {
				if (e > cur.e)
					cur.e = e;
				continue;
			}
			if (have) {
				bin_add(w, bins, cur.s, cur.e);
				total += (uint64_t)cur.e - (uint64_t)cur.s;
			}
			cur.s = s;
			cur.e = e;
			have = true;
		}
		if (have) {
			bin_add(w, bins, cur.s, cur.e);
			total += (uint64_t)cur.e - (uint64_t)cur.s;
		}
		if ((rc = push_row(devs, &row)) ||
		    (rc = gp_obj_set_int(row, "device", st[a].device)) ||
		    (rc = write_bins(w, bins, total, row)))
			return rc;
	}
	return 0;
}

/* busiest first; ties: lower device, then lower stream */
static int cmp_busiest(const void *x, const void *y)
{
	const struct tl_stream *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

static int cmp_key(const void *x, const void *y)
{
	const struct tl_stream *a = x, *b = y;

	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

/* the stream rows; reorders st[] when more than TL_MAX_STREAMS are there */
static int write_streams(const struct tl_window *w, struct tl_stream *st, size_t nst,
                         const struct gp_iv *iv, uint64_t *bins, struct gp_value *tl)
{
	struct gp_value *arr = gp_value_array(), *row;
	size_t k, j, shown = nst;
	int rc;

	if ((rc = gp_obj_set(tl, "streams", arr)))
		return rc;
	if (nst > TL_MAX_STREAMS) {
		qsort(st, nst, sizeof(*st), cmp_busiest);
		shown = TL_MAX_STREAMS;
		qsort(st, shown, sizeof(*st), cmp_key);
	}
	if ((rc = gp_obj_set_int(tl, "streams_omitted", (int64_t)(nst - shown))))
		return rc;
	for (k = 0; k < shown; k++) {
		memset(bins, 0, w->nbins * sizeof(*bins));
		for (j = 0; j < st[k].n; j++)
			bin_add(w, bins, iv[st[k].off + j].s, iv[st[k].off + j].e);
		if ((rc = push_row(arr, &row)) ||
		    (rc = gp_obj_set_int(row, "device", st[k].device)) ||
		    (rc = gp_obj_set_int(row, "stream", st[k].stream)) ||
		    (rc = write_bins(w, bins, st[k].total, row)))
			return rc;
	}
	return 0;
}

int gp__an_timeline(const struct gp__actx *c, struct gp_value *r)
{
	size_t n = c->gpu.n, nst = 0, cap = 0;
	struct tl_window w;
	struct gp_kv *kv = NULL;
	struct gp_iv *iv = NULL;
	struct tl_stream *st = NULL;
	uint64_t *bins = NULL;
	struct gp_value *tl, *devs;
	int rc = 0;

	if (!n || c->span_end <= c->span_start)
		return gp_obj_set_null(r, "timeline");
	w.start = c->span_start;
	w.end = c->span_end;
	w.span = (uint64_t)w.end - (uint64_t)w.start;
	w.nbins = w.span < TL_BINS ? (size_t)w.span : TL_BINS;
	w.bin_ns = w.span / w.nbins + (w.span % w.nbins != 0);

	tl = gp_value_object();
	if ((rc = gp_obj_set(r, "timeline", tl)))
		return rc;
	GP_TRY(gp_obj_set_int(tl, "start_ns", w.start));
	GP_TRY(gp_obj_set_int(tl, "end_ns", w.end));
	GP_TRY(gp_obj_set_int(tl, "bin_ns", to_i64(w.bin_ns)));
	GP_TRY(gp_obj_set_int(tl, "bins", (int64_t)w.nbins));
	devs = gp_value_array();
	GP_TRY(gp_obj_set(tl, "devices", devs));

	kv = gp__calloc(n, sizeof(*kv));
	iv = gp__calloc(n, sizeof(*iv));
	bins = gp__calloc(w.nbins, sizeof(*bins));
	if (!kv || !iv || !bins)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(build_streams(c, &w, kv, &st, &nst, &cap, iv));
	GP_TRY(write_devices(&w, st, nst, iv, kv, bins, devs));
	GP_TRY(write_streams(&w, st, nst, iv, bins, tl));
out:
	gp__free(kv);
	gp__free(iv);
	gp__free(st);
	gp__free(bins);
	return rc;
}
