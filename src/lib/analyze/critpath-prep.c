/* SPDX-License-Identifier: MIT */
/*
 * critpath-prep.c - the per-rank tables of the critical-path graph.
 *
 * Built once per rank, before any window: the name flags of the calls the
 * model treats apart (runtime lock, blocking calls, launches, sync kinds),
 * each event's role (a CPU node, a GPU node, a sync), the correlation links
 * between CPU calls and GPU activity (HTA's index_correlation: under
 * --compat hta the last row of a correlation is the one a call joins),
 * the stream queue lengths HTA's TraceCounters computes (they decide
 * between a launch and a kernel-kernel edge) and, for cuda_sync event
 * waits, the kernels each wait links (HTA _get_cuda_event_record_df and
 * _get_cuda_stream_wait_event_df).
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

static const char *const cat_names[GP_CP__N] = { "cpu_bound", "gpu_compute_bound",
	                                         "gpu_communication_bound",
	                                         "gpu_kernel_kernel_overhead",
	                                         "gpu_kernel_launch_overhead" };

const char *gp__cp_cat_name(enum gp__cp_cat k)
{
	return k < GP_CP__N ? cat_names[k] : "";
}

static bool in_list(const char *s, const char *const *l)
{
	for (; *l; l++)
		if (!strcmp(s, *l))
			return true;
	return false;
}

uint16_t gp__cp_name_flags(struct gp__cp *g, uint32_t id)
{
	static const char *const lock[] = { "cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync",
		                            NULL };
	static const char *const block[] = { "cudaDeviceSynchronize",
		                             "cudaStreamSynchronize",
		                             "cudaEventQuery",
		                             "cudaEventSynchronize",
		                             "cudaMemcpy",
		                             "cudaMemcpyAsync",
		                             NULL };
	static const char *const block_hip[] = { "hipDeviceSynchronize", "hipStreamSynchronize",
		                                 "hipEventSynchronize", "hipMemcpy", NULL };
	static const char *const launch[] = { "cudaLaunchKernel",
		                              "cudaLaunchKernelExC",
		                              "cuLaunchKernel",
		                              "cuLaunchKernelEx",
		                              "cudaMemcpyAsync",
		                              "cudaMemsetAsync",
		                              "runFunction - job_prep_and_submit_for_execution",
		                              "hipLaunchKernel",
		                              "hipExtModuleLaunchKernel",
		                              "hipMemsetAsync",
		                              "hipMemcpyAsync",
		                              "hipMemcpyWithStream",
		                              NULL };
	const char *s;
	uint16_t f = NF_DONE;

	if (id >= g->nstr)
		return NF_DONE;
	if (g->nf[id] & NF_DONE)
		return g->nf[id];
	s = gp__strtab_get(&g->t->strs, id);
	if (in_list(s, lock))
		f |= NF_LOCK;
	if (in_list(s, block))
		f |= NF_BLOCK;
	if (in_list(s, block_hip))
		f |= NF_BLOCK_HIP;
	if (in_list(s, launch))
		f |= NF_LAUNCH;
	if (strstr(s, "forward"))
		f |= NF_FWD;
	if (strstr(s, "autograd"))
		f |= NF_AUTOGRAD;
	if (!strcmp(s, "cudaEventRecord") || (!g->hta && !strcmp(s, "hipEventRecord")))
		f |= NF_EVREC;
	if (!strcmp(s, "Stream Sync"))
		f |= NF_SYNC_STREAM;
	if (!strcmp(s, "Context Sync"))
		f |= NF_SYNC_CONTEXT;
	if (!strcmp(s, "Event Sync"))
		f |= NF_SYNC_EVENT;
	if (!strcmp(s, "Stream Wait Event"))
		f |= NF_SYNC_WAIT;
	g->nf[id] = f;
	return f;
}

/* the stream key of a GPU event: HTA pools streams by number, gpuprof by device and stream */
uint64_t gp__cp_stream_key(const struct gp__cp *g, uint32_t ev)
{
	const struct gp_trace *t = g->t;

	if (g->hta)
		return (uint64_t)t->ev.stream[ev];
	return ((uint64_t)(uint32_t)gp__ev_device(t, ev) << 32) ^ (uint64_t)t->ev.stream[ev];
}

static void set_roles(struct gp__cp *g)
{
	const struct gp_trace *t = g->t;
	size_t i;
	for (i = 0; i < g->n; i++) {
		enum gp_kind k = (enum gp_kind)t->ev.kind[i];
		bool cpuk = k == GP_K_CPU_OP || k == GP_K_RUNTIME || k == GP_K_DRIVER;
		bool gpuk = k == GP_K_KERNEL || k == GP_K_MEMCPY || k == GP_K_MEMSET;
		uint8_t r = 0;

		if (!gp__kept(g->c, i) || k == GP_K_TRACE)
			continue;
		if (k == GP_K_SYNC) {
			r |= RO_SYNC;
			g->have_sync = true;
		}
		if (g->hta) {
			bool row = gp__cp_hta_row(t, i);
			uint16_t f = k == GP_K_SYNC ? gp__cp_ev_flags(g, (uint32_t)i) : 0;

			if (cpuk && !row)
				r |= RO_CPU;
			if ((row && t->ev.stream[i] >= 0 && t->ev.corr[i] >= 0) ||
			    (t->ev.corr[i] >= 0 && (f & (NF_SYNC_EVENT | NF_SYNC_CONTEXT))))
				r |= RO_GSIDE;
			if (row && k != GP_K_SYNC && t->ev.corr[i] >= 0)
				r |= RO_KERNEL;
			if (row)
				r |= RO_GPUROW;
		} else {
			if (cpuk)
				r |= RO_CPU;
			if ((gpuk || k == GP_K_SYNC) && t->ev.corr[i] >= 0)
				r |= RO_GSIDE;
			if (gpuk)
				r |= RO_KERNEL | RO_GPUROW;
		}
		g->role[i] = r;
	}
}

/* links: the CPU side of each correlation, and per CPU event the GPU events it launched */
static int build_links(struct gp__cp *g)
{
	const struct gp_trace *t = g->t;
	struct gp_u64map m;
	size_t i;
	uint64_t v;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < g->n; i++)
		g->link[i] = NONE;
	if (!g->hta)
		goto link; /* the context's map: correlation -> first runtime or driver call */
	GP_TRY(gp__u64map_init(&m, g->n / 4 + 16));
	for (i = 0; i < g->n; i++) {
		uint8_t r = g->role[i];
		enum gp_kind k = (enum gp_kind)t->ev.kind[i];
		bool cpu_side;

		if (t->ev.corr[i] < 0 || !gp__kept(g->c, i) || k == GP_K_TRACE)
			continue;
		/* HTA: every other row with a correlation, the last one wins */
		cpu_side = !(r & RO_GSIDE);
		if (cpu_side)
			GP_TRY(gp__u64map_put(&m, (uint64_t)t->ev.corr[i], i));
	}
link:
	memset(g->loff, 0, (g->n + 1) * sizeof(uint32_t));
	for (i = 0; i < g->n; i++) {
		uint32_t l;

		if (!(g->role[i] & RO_GSIDE))
			continue;
		if (g->hta) {
			if (!gp__u64map_get(&m, (uint64_t)t->ev.corr[i], &v))
				continue;
			l = (uint32_t)v;
		} else if (!gp__idmap_get(&g->c->corr_launch, t->ev.corr[i], &l)) {
			continue;
		}
		g->link[i] = l;
		g->loff[l + 1]++;
	}
	for (i = 0; i < g->n; i++)
		g->loff[i + 1] += g->loff[i];
	{
		uint32_t *fill = g->snode; /* scratch: next slot per CPU event */

		memcpy(fill, g->loff, g->n * sizeof(uint32_t));
		for (i = 0; i < g->n; i++)
			if (g->link[i] != NONE)
				g->lgpu[fill[g->link[i]]++] = (uint32_t)i;
	}
out:
	gp__u64map_release(&m);
	return rc;
}

/* whether GPU event @p i counts in the queues: launched by a launch call, a GPU row */
static bool queued(struct gp__cp *g, size_t i)
{
	uint32_t L = g->link[i];

	if (L == NONE || !(gp__cp_ev_flags(g, L) & NF_LAUNCH))
		return false;
	return g->hta ? gp__cp_hta_row(g->t, i) : (g->role[i] & RO_KERNEL) != 0;
}

/*
 * Queue lengths (HTA TraceCounters): per stream, +1 at each launch call that
 * has a GPU event, -1 at that event, in time order over the whole (kept)
 * trace. q[launch] is the length after its +1, q[gpu] after its -1.
 */
static int build_queues(struct gp__cp *g, struct launch **lout, size_t *nlout)
{
	const struct gp_trace *t = g->t;
	struct gp_kv *kv = NULL;
	struct launch *l = NULL;
	struct gp_u64map slot;
	int64_t *cnt = NULL;
	size_t i, nl = 0, l_cap = 0, k, nslot = 0;
	uint64_t v;
	int rc = 0;

	memset(&slot, 0, sizeof(slot));
	for (i = 0; i < g->n; i++)
		g->q[i] = Q_UNKNOWN;
	GP_TRY(gp__u64map_init(&slot, 16));
	for (i = 0; i < g->n; i++) {
		uint32_t L = g->link[i];

		if (!queued(g, i))
			continue;
		GP_TRY(GROW(l, l_cap, nl + 1));
		l[nl].ts = g->c->ts[L];
		l[nl].stream = gp__cp_stream_key(g, (uint32_t)i);
		if (!gp__u64map_get(&slot, l[nl].stream, &v)) {
			v = nslot++;
			GP_TRY(gp__u64map_put(&slot, l[nl].stream, v));
		}
		l[nl].slot = (uint32_t)v;
		l[nl].thread = t->ev.track[L];
		l[nl].gpu = (uint32_t)i;
		nl++;
	}
	GP_TRY(GROW(l, l_cap, 1)); /* never NULL */
	kv = gp__calloc(2 * nl + 1, sizeof(*kv));
	if (!kv)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory counting stream queues"));
	/* the launches first, then the GPU events: a tie puts the launch before its event */
	for (k = 0; k < nl; k++) {
		kv[k].key = l[k].ts;
		kv[k].val = k << 1;
		kv[nl + k].key = g->c->ts[l[k].gpu];
		kv[nl + k].val = k << 1 | 1;
	}
	GP_TRY(gp__sort_kv(kv, 2 * nl));
	cnt = gp__calloc(nslot + 1, sizeof(*cnt));
	if (!cnt)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory counting stream queues"));
	for (k = 0; k < 2 * nl; k++) {
		const struct launch *x = &l[kv[k].val >> 1];
		bool gpu = kv[k].val & 1;
		int64_t q = cnt[x->slot] += gpu ? -1 : 1;

		if (q < INT32_MIN + 1 || q > INT32_MAX)
			q = INT32_MAX;
		if (gpu)
			g->q[x->gpu] = (int32_t)q;
		else
			g->q[g->link[x->gpu]] = (int32_t)q;
	}
	*lout = l;
	*nlout = nl;
	l = NULL;
out:
	gp__u64map_release(&slot);
	gp__free(cnt);
	gp__free(kv);
	gp__free(l);
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

int gp__cp_new(const struct gp__actx *c, struct gp__cp **out)
{
	struct gp__cp *g;
	struct launch *l = NULL;
	size_t nl = 0, n = c->t->ev.n;
	int rc = 0;

	*out = NULL;
	if (n >= NONE - 1)
		return gp__error(GP_ELIMIT, "too many events for the critical path");
	g = gp__calloc(1, sizeof(*g));
	if (!g)
		return gp__error(GP_ENOMEM, "out of memory");
	g->c = c;
	g->t = c->t;
	g->hta = c->hta;
	g->n = n;
	g->nstr = gp__strtab_count(&c->t->strs);
	g->nf = gp__calloc(g->nstr + 1, sizeof(*g->nf));
	g->role = gp__calloc(n + 1, 1);
	g->link = gp__calloc(n + 1, sizeof(uint32_t));
	g->loff = gp__calloc(n + 1, sizeof(uint32_t));
	g->lgpu = gp__calloc(n + 1, sizeof(uint32_t));
	g->q = gp__calloc(n + 1, sizeof(int32_t));
	g->snode = gp__calloc(n + 1, sizeof(uint32_t));
	g->enode = gp__calloc(n + 1, sizeof(uint32_t));
	g->tskip = gp__calloc(c->t->ntracks + 1, 1);
	if (!g->nf || !g->role || !g->link || !g->loff || !g->lgpu || !g->q || !g->snode ||
	    !g->enode || !g->tskip)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for the critical path"));
	set_roles(g);
	GP_TRY(build_links(g));
	/* NONE is all ones in every byte */
	memset(g->snode, 0xff, n * sizeof(*g->snode));
	memset(g->enode, 0xff, n * sizeof(*g->enode));
	GP_TRY(build_queues(g, &l, &nl));
	GP_TRY(build_waits(g, l, nl));
	*out = g;
	g = NULL;
out:
	gp__free(l);
	gp__cp_free(g);
	return rc;
}

void gp__cp_free(struct gp__cp *g)
{
	if (!g)
		return;
	gp__u64map_release(&g->syncsd);
	gp__u64map_release(&g->slmap);
	gp__free(g->nf);
	gp__free(g->role);
	gp__free(g->link);
	gp__free(g->loff);
	gp__free(g->lgpu);
	gp__free(g->q);
	gp__free(g->snode);
	gp__free(g->enode);
	gp__free(g->wev);
	gp__free(g->wat);
	gp__free(g->wsync);
	gp__free(g->key);
	gp__free(g->key2);
	gp__free(g->bcnt);
	gp__free(g->kend);
	gp__free(g->kv);
	gp__free(g->kv2);
	gp__free(g->nts);
	gp__free(g->nev);
	gp__free(g->nat);
	gp__free(g->head);
	gp__free(g->reach);
	gp__free(g->cpun);
	gp__free(g->cpt);
	gp__free(g->kern);
	gp__free(g->stk);
	gp__free(g->tst);
	gp__free(g->tk);
	gp__free(g->tskip);
	gp__free(g->e);
	gp__free(g->soff);
	gp__free(g->se);
	gp__free(g->indeg);
	gp__free(g->topo);
	gp__free(g->from);
	gp__free(g->dist);
	gp__free(g->sl);
	gp__free(g->seg);
	gp__free(g);
}

bool gp__cp_is_gpu(const struct gp__cp *g, uint32_t ev)
{
	return ev < g->n && (g->role[ev] & RO_GPUROW);
}
