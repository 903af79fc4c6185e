/* SPDX-License-Identifier: MIT */
/*
 * critpath-queue.c - the stream side of the critical path's per-rank tables
 * (critpath-prep.c builds the rest): the stream queue lengths HTA's
 * TraceCounters computes (they decide between a launch and a kernel-kernel
 * edge) and, for cuda_sync event waits, the kernels each wait links (HTA
 * _get_cuda_event_record_df and _get_cuda_stream_wait_event_df). The
 * launches come in time order from the context's sorted lists of their
 * kinds and the GPU events from its sorted GPU activity: no sort of the
 * whole trace, only of the runs of one time.
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-queue.h"
#include "util/error.h"

/* the queue slots of the streams seen so far: a short list, a map beyond it */
#define FEW_SLOTS 16
struct slots {
	uint64_t key[FEW_SLOTS];
	size_t n;
	struct gp_u64map map;
};

/* the slot of stream @p key, added when new; UINT32_MAX when out of memory */
static uint32_t slot_of(struct slots *sl, uint64_t key)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < sl->n && i < FEW_SLOTS; i++)
		if (sl->key[i] == key)
			return (uint32_t)i;
	if (sl->n < FEW_SLOTS) {
		sl->key[sl->n] = key;
		return (uint32_t)sl->n++;
	}
	if (!sl->map.nslot && gp__u64map_init(&sl->map, 64))
		return UINT32_MAX;
	if (gp__u64map_get(&sl->map, key, &v))
		return (uint32_t)v;
	if (sl->n >= UINT32_MAX - 1 || gp__u64map_put(&sl->map, key, sl->n))
		return UINT32_MAX;
	return (uint32_t)sl->n++;
}

/* sorts each run of equal keys (@p key[ev]) of v[0..n) by event: insertion sort or qsort */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* sorts v[i..j) by event: insertion sort when short, qsort otherwise (never quadratic) */
static void sort_run(uint32_t *v, size_t i, size_t j)
{
	size_t k, m;

	if (j - i > 16) {
		qsort(v + i, j - i, sizeof(*v), cmp_u32);
		return;
	}
	for (k = i + 1; k < j; k++) {
		uint32_t x = v[k];

		for (m = k; m > i && v[m - 1] > x; m--)
			v[m] = v[m - 1];
		v[m] = x;
	}
}

/* v[0..n), in order of ts[ev] (@p via NULL) or ts[via[ev]]: each run of one time by event */
static void ties_by_event(uint32_t *v, size_t n, const int64_t *ts, const uint32_t *via)
{
	size_t i, a = 0;

	if (n < 2)
		return;
	if (via) {
		int64_t prev = ts[via[v[0]]];

		for (i = 1; i < n; i++) {
			int64_t x = ts[via[v[i]]];

			if (x != prev) {
				if (i - a > 1)
					sort_run(v, a, i);
				a = i;
				prev = x;
			}
		}
	} else {
		int64_t prev = ts[v[0]];

		for (i = 1; i < n; i++) {
			int64_t x = ts[v[i]];

			if (x != prev) {
				if (i - a > 1)
					sort_run(v, a, i);
				a = i;
				prev = x;
			}
		}
	}
	if (n - a > 1)
		sort_run(v, a, n);
}

/* q[0..n) (events) by (@p ts[via[ev]] or ts[ev], event), a stable sort of the index-ordered list */
static int sort_by_time(uint32_t *q, size_t n, const int64_t *ts, const uint32_t *via)
{
	struct gp_kv *kv = gp__malloc((2 * n + 1) * sizeof(*kv));
	size_t i;
	int rc;

	if (!kv)
		return gp__error(GP_ENOMEM, "out of memory counting stream queues");
	for (i = 0; i < n; i++) {
		kv[i].key = ts[via ? via[q[i]] : q[i]];
		kv[i].val = q[i];
	}
	rc = gp__sort_kv_with(kv, n, kv + n);
	for (i = 0; !rc && i < n; i++)
		q[i] = (uint32_t)kv[i].val;
	gp__free(kv);
	return rc;
}

/*
 * Queue lengths (HTA TraceCounters): per stream, +1 at each launch call that
 * has a GPU event, -1 at that event, in time order over the whole (kept)
 * trace; at one time the launches first, each side in event order. q[launch]
 * is the length after its +1, q[gpu] after its -1. The queued GPU events
 * (launched by a launch call; a GPU row) are @p gs[0..ngs) (index order);
 * the launches come in time order from the context's lists of their kinds,
 * the GPU events from its sorted GPU activity, each sorted only within runs
 * of one time. snode holds each queued event's slot + 1 meanwhile. With
 * nsync, *@p lout: the launches, for the event waits.
 */
static int build_queues(struct gp__cp *g, const uint32_t *gs, size_t ngs, struct launch **lout,
                        size_t *nlout)
{
	const struct gp__actx *c = g->c;
	const int64_t *ts = c->ts;
	struct slots sl;
	uint32_t *qd = NULL, *A, *B, kinds = 0, *slot = g->snode; /* slot + 1, 0: not queued */
	int64_t *cnt = NULL;
	size_t i, k, nq = 0, na = 0, nb = 0;
	int rc = 0;

	memset(&sl, 0, sizeof(sl));
	for (i = 0; i < g->n; i++)
		g->q[i] = Q_UNKNOWN;
	qd = gp__malloc((3 * ngs + 1) * sizeof(*qd));
	if (!qd)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory counting stream queues"));
	A = qd + ngs;
	B = A + ngs;
	for (i = 0; i < ngs; i++) {
		uint32_t ev = gs[i], L = g->link[ev], s;

		if (!(gp__cp_ev_flags(g, L) & NF_LAUNCH) ||
		    !(g->hta ? gp__cp_hta_row(g->t, ev) : (g->role[ev] & RO_KERNEL) != 0))
			continue;
		if ((s = slot_of(&sl, gp__cp_stream_key(g, ev))) == UINT32_MAX)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory counting stream queues"));
		slot[ev] = s + 1;
		qd[nq++] = ev;
		kinds |= 1u << g->t->ev.kind[L];
	}
	/* the launches by time: the launching calls' kinds' lists, merged */
	{
		const struct gp__idx *ix[GP_K__COUNT];
		size_t pos[GP_K__COUNT], nk = 0;

		for (k = 0; k < GP_K__COUNT; k++)
			if (kinds & (1u << k)) {
				ix[nk] = &c->by_kind[k];
				pos[nk++] = 0;
			}
		for (;;) {
			size_t best = 0, j, e;
			uint32_t L;

			if (nk == 1) { /* the usual case: one kind launches */
				const uint32_t *v = ix[0]->v, *loff = g->loff;
				size_t nv = ix[0]->n;

				for (i = 0; i < nv; i++) {
					L = v[i];
					for (j = loff[L], e = loff[L + 1]; j < e && na < nq; j++)
						if (slot[g->lgpu[j]])
							A[na++] = g->lgpu[j];
				}
				break;
			}
			for (k = 1; k < nk; k++)
				if (pos[k] < ix[k]->n &&
				    (pos[best] >= ix[best]->n ||
				     ts[ix[k]->v[pos[k]]] < ts[ix[best]->v[pos[best]]]))
					best = k;
			if (nk == 0 || pos[best] >= ix[best]->n)
				break;
			L = ix[best]->v[pos[best]++];
			for (j = g->loff[L], e = g->loff[L + 1]; j < e && na < nq; j++)
				if (slot[g->lgpu[j]])
					A[na++] = g->lgpu[j];
		}
		if (na == nq)
			ties_by_event(A, na, ts, g->link);
	}
	if (na != nq) { /* not reached: every launch is among its kind's kept events */
		memcpy(A, qd, nq * sizeof(*A));
		na = nq;
		GP_TRY(sort_by_time(A, na, ts, g->link));
	}
	/* the GPU events by time: the context's GPU activity (HTA's GPU annotations aside) */
	for (i = 0; i < c->gpu.n && nb < nq; i++)
		if (slot[c->gpu.v[i]])
			B[nb++] = c->gpu.v[i];
	if (nb == nq) {
		ties_by_event(B, nb, ts, NULL);
	} else {
		memcpy(B, qd, nq * sizeof(*B));
		nb = nq;
		GP_TRY(sort_by_time(B, nb, ts, NULL));
	}
	cnt = gp__calloc(sl.n + 1, sizeof(*cnt));
	if (!cnt)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory counting stream queues"));
	{
		/* INT64_MAX past the end of a side: the model's times are far below it */
		const uint32_t *link = g->link;
		int32_t *qs = g->q;
		int64_t ka = na ? ts[link[A[0]]] : INT64_MAX, kb = nb ? ts[B[0]] : INT64_MAX, q;

		for (i = 0, k = 0;;) {
			uint32_t ev;

			if (ka <= kb) {
				if (i >= na)
					break;
				ev = A[i++];
				q = ++cnt[slot[ev] - 1];
				qs[link[ev]] =
				    q < INT32_MIN + 1 || q > INT32_MAX ? INT32_MAX : (int32_t)q;
				ka = i < na ? ts[link[A[i]]] : INT64_MAX;
			} else {
				ev = B[k++];
				q = --cnt[slot[ev] - 1];
				qs[ev] =
				    q < INT32_MIN + 1 || q > INT32_MAX ? INT32_MAX : (int32_t)q;
				kb = k < nb ? ts[B[k]] : INT64_MAX;
			}
		}
	}
	if (g->t->nsync) {
		struct launch *l = gp__calloc(nq + 1, sizeof(*l));

		if (!l)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory counting stream queues"));
		for (i = 0; i < nq; i++) {
			uint32_t ev = qd[i], L = g->link[ev];

			l[i].ts = ts[L];
			l[i].stream = gp__cp_stream_key(g, ev);
			l[i].slot = slot[ev] - 1;
			l[i].thread = g->t->ev.track[L];
			l[i].gpu = ev;
		}
		*lout = l;
		*nlout = nq;
	}
out:
	for (i = 0; i < nq; i++)
		slot[qd[i]] = 0;
	gp__u64map_release(&sl.map);
	gp__free(cnt);
	gp__free(qd);
	return rc;
}

static int cmp_launch_stream(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

static int cmp_launch_thread(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return cmp_launch_stream(a, b);
}

/*
 * The kernels of event waits (HTA _get_cuda_event_record_df and
 * _get_cuda_stream_wait_event_df): for a sync event waiting on the
 * cudaEventRecord with correlation C, the source is the GPU event of the
 * last launch on the recorded stream at or before that record; for a Stream
 * Wait Event, the destination is the GPU event of the next launch on the
 * waiting stream from the cudaStreamWaitEvent call's thread.
 */
static int build_waits(struct gp__cp *g, struct launch *l, size_t nl)
{
	const struct gp_trace *t = g->t;
	struct gp_u64map rec, recstream;
	struct launch *l2 = NULL;
	size_t i;
	int rc = 0;

	memset(&rec, 0, sizeof(rec));
	memset(&recstream, 0, sizeof(recstream));
	GP_TRY(gp__u64map_init(&g->syncsd, t->nsync + 16));
	if (!t->nsync)
		goto out;
	GP_TRY(gp__u64map_init(&rec, 64));
	GP_TRY(gp__u64map_init(&recstream, t->nsync + 16));
	for (i = 0; i < t->nsync; i++)
		if (t->sync[i].wait_stream > -1 && t->sync[i].wait_event_corr >= 0)
			GP_TRY(gp__u64map_put(&recstream, (uint64_t)t->sync[i].wait_event_corr,
			                      (uint64_t)t->sync[i].wait_stream));
	for (i = 0; i < g->n; i++)
		if (gp__kept(g->c, i) && t->ev.corr[i] >= 0 &&
		    (t->ev.kind[i] == GP_K_RUNTIME || t->ev.kind[i] == GP_K_DRIVER) &&
		    (gp__cp_ev_flags(g, (uint32_t)i) & NF_EVREC))
			GP_TRY(gp__u64map_put_new(&rec, (uint64_t)t->ev.corr[i], i, NULL));
	l2 = gp__calloc(nl ? nl : 1, sizeof(*l2));
	if (!l2)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory matching event waits"));
	memcpy(l2, l, nl * sizeof(*l));
	qsort(l, nl, sizeof(*l), cmp_launch_stream);
	qsort(l2, nl, sizeof(*l2), cmp_launch_thread);
	for (i = 0; i < t->nsync; i++) {
		const struct gp_sync_info *si = &t->sync[i];
		uint32_t ev = si->ev, src = NONE, dst = NONE;
		uint64_t r, ws;
		uint16_t f;

		if (ev >= g->n || !gp__kept(g->c, ev) || si->wait_event_corr < 0)
			continue;
		f = gp__cp_ev_flags(g, ev);
		if (!(f & (NF_SYNC_EVENT | NF_SYNC_WAIT)))
			continue;
		if (gp__u64map_get(&rec, (uint64_t)si->wait_event_corr, &r) &&
		    gp__u64map_get(&recstream, (uint64_t)si->wait_event_corr, &ws)) {
			uint64_t sk =
			    g->hta ? ws : (((uint64_t)(uint32_t)gp__ev_device(t, ev) << 32) ^ ws);
			int64_t rts = g->c->ts[r];
			size_t lo = 0, hi = nl;

			/* the last launch on (sk) with ts <= rts */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (l[mid].stream < sk || (l[mid].stream == sk && l[mid].ts <= rts))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > 0 && l[lo - 1].stream == sk)
				src = l[lo - 1].gpu;
		}
		if ((f & NF_SYNC_WAIT) && g->link[ev] != NONE) {
			uint32_t W = g->link[ev], th = t->ev.track[W];
			uint64_t sk = gp__cp_stream_key(g, ev);
			int64_t wts = g->c->ts[W];
			size_t lo = 0, hi = nl;

			/* the first launch on (thread, sk) with ts >= wts */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				const struct launch *x = &l2[mid];

				if (x->thread < th || (x->thread == th && x->stream < sk) ||
				    (x->thread == th && x->stream == sk && x->ts < wts))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < nl && l2[lo].thread == th && l2[lo].stream == sk)
				dst = l2[lo].gpu;
		}
		if (src != NONE)
			GP_TRY(gp__u64map_put(&g->syncsd, ev, (uint64_t)src << 32 | dst));
	}
out:
	gp__free(l2);
	gp__u64map_release(&rec);
	gp__u64map_release(&recstream);
	return rc;
}

int gp__cp_streams(struct gp__cp *g, const uint32_t *gs, size_t ngs)
{
	struct launch *l = NULL;
	size_t nl = 0;
	int rc;

	rc = build_queues(g, gs, ngs, &l, &nl);
	if (!rc)
		rc = build_waits(g, l, nl);
	gp__free(l);
	return rc;
}
