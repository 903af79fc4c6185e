/* SPDX-License-Identifier: MIT */
/*
 * critpath-kernels.c - the GPU side of a window's critical-path graph
 * (critpath-graph.c builds the rest): pass 3, the GPU events per stream with
 * their launch, kernel-kernel and sync edges (HTA
 * _construct_graph_from_kernels and handle_cuda_sync), and gpuprof's sync
 * edges of blocking calls when the trace has no cuda_sync events. Both walk
 * lists make_nodes left: the kernel start nodes in node order, the kernel
 * ends in time order. docs/analyses/critical-path.md.
 */
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

/* the last node of a stream key (NONE: none yet); NULL when absent and not @p add, or no memory */
static uint32_t *stream_slot(struct gp__cp *g, uint64_t key, bool add)
{
	uint64_t v;

	if (g->nsl && g->sl[g->sl_last].key == key)
		return &g->sl[g->sl_last].node;
	if (gp__u64map_get(&g->slmap, key, &v)) {
		g->sl_last = (size_t)v;
		return &g->sl[v].node;
	}
	if (!add || GROW(g->sl, g->sl_cap, g->nsl + 1) || gp__u64map_put(&g->slmap, key, g->nsl))
		return NULL;
	g->sl[g->nsl].key = key;
	g->sl[g->nsl].node = NONE;
	g->sl_last = g->nsl;
	return &g->sl[g->nsl++].node;
}

static int sync_edge(struct gp__cp *g, uint32_t gpu_end, uint32_t cpu_ev)
{
	uint32_t e = gp__cp_end_node(g, cpu_ev);
	int rc;

	if (e == NONE || gpu_end == NONE)
		return 0;
	if ((rc = reserve_edges(g, 1)))
		return rc;
	add_edge(g, gpu_end, e, E_SYNC, false, NONE);
	g->nat[e] |= NA_SYNC;
	return 0;
}

/* the sync event @p ev (HTA handle_cuda_sync) */
static int on_sync(struct gp__cp *g, uint32_t ev, struct gp_u64map *ksync)
{
	uint16_t f = gp__cp_ev_flags(g, ev);
	uint32_t rt = g->link[ev];
	uint64_t sd;
	size_t i;
	int rc = 0;

	if (rt == NONE)
		return 0;
	if (f & (NF_SYNC_WAIT | NF_SYNC_EVENT)) {
		uint32_t src, dst;

		if (!gp__u64map_get(&g->syncsd, ev, &sd))
			return 0;
		src = (uint32_t)(sd >> 32);
		dst = (uint32_t)sd;
		if (f & NF_SYNC_WAIT) {
			if (dst != NONE)
				GP_TRY(gp__u64map_put(ksync, dst, src));
		} else {
			GP_TRY(sync_edge(g, gp__cp_end_node(g, src), rt));
		}
		return 0;
	}
	if (f & NF_SYNC_CONTEXT) {
		for (i = 0; i < g->nsl; i++)
			GP_TRY(sync_edge(g, g->sl[i].node, rt));
	} else if (f & NF_SYNC_STREAM) {
		uint32_t *s = stream_slot(g, gp__cp_stream_key(g, ev), false);

		if (s)
			GP_TRY(sync_edge(g, *s, rt));
	}
out:
	return rc;
}

/* pass 3: the GPU events per stream (HTA _construct_graph_from_kernels) */
int gp__cp_pass_kernels(struct gp__cp *g, bool *same_stream_sync, bool *no_launch_node)
{
	const struct gp__actx *c = g->c;
	struct gp_u64map ksync;
	size_t i, m = g->nws, k = 0;
	int rc = 0;

	memset(&ksync, 0, sizeof(ksync));
	g->nsl = 0;
	gp__u64map_release(&g->slmap);
	GP_TRY(gp__u64map_init(&g->slmap, 16));
	GP_TRY(gp__u64map_init(&ksync, 16));
	/* syncs by end (a sync overlaps the copy it waits for), merged with the kernels by start */
	GP_TRY(GROW(g->kv, g->kv_cap, m + 1));
	for (i = 0; i < m; i++) {
		uint32_t ev = g->wsync[i];

		g->kv[i].key = c->ts[ev] + c->dur[ev];
		g->kv[i].val = ev;
	}
	if (m > 1)
		GP_TRY(gp__sort_kv(g->kv, m));
	for (i = 0;;) {
		uint32_t ev, s, e, rt, *last, ks_end = NONE, ni = k < g->nkern ? g->kern[k] : NONE;
		uint64_t ks, sk;
		bool has_ks;
		int64_t rts;

		if (i < m && (ni == NONE || g->kv[i].key < g->nts[ni] ||
		              (g->kv[i].key == g->nts[ni] && g->kv[i].val < g->nev[ni]))) {
			GP_TRY(on_sync(g, (uint32_t)g->kv[i++].val, &ksync));
			continue;
		}
		if (ni == NONE)
			break;
		k++;
		ev = g->nev[ni];
		s = g->snode[ev];
		e = g->enode[ev];
		rt = g->link[ev];
		if (s == NONE || e == NONE || rt == NONE)
			continue;
		GP_TRY(reserve_edges(g, 3)); /* its own, a sync, a launch or kernel-kernel edge */
		add_edge(g, s, e, E_OP, false, ev);
		sk = gp__cp_stream_key(g, ev);
		last = stream_slot(g, sk, true);
		if (!last)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		has_ks = ksync.n && gp__u64map_get(&ksync, ev, &ks) && (uint32_t)ks != NONE;
		if (has_ks) {
			ks_end = gp__cp_end_node(g, (uint32_t)ks);
			if (ks_end != NONE) {
				uint64_t a = g->t->ev.stream[(uint32_t)ks], b = g->t->ev.stream[ev];

				if (a == b) {
					*same_stream_sync = true;
					if (!g->hta)
						ks_end = NONE;
				}
				if (ks_end != NONE)
					add_edge(g, ks_end, s, E_SYNC, false, NONE);
			}
			GP_TRY(gp__u64map_put(&ksync, ev, NONE));
			if (ks_end == NONE)
				has_ks = false;
		}
		rts = c->ts[rt];
		if (g->q[rt] == 1 && g->q[ev] == 0 && (*last == NONE || g->nts[*last] < rts) &&
		    (!has_ks || g->nts[ks_end] < rts)) {
			/* HTA asserts the launching call is a node: its analysis fails */
			uint32_t rs = gp__cp_start_node(g, rt);

			if (rs == NONE)
				*no_launch_node = true;
			add_edge(g, rs, s, E_LAUNCH, false, NONE);
		} else if (*last != NONE && g->nts[s] - g->nts[*last] < KK_THRESHOLD_NS &&
		           (!has_ks || g->nts[ks_end] < g->nts[*last])) {
			add_edge(g, *last, s, E_KK, false, g->nev[*last]);
		}
		*last = e; /* nothing grew the slots since stream_slot found it */
	}
out:
	gp__u64map_release(&ksync);
	return rc;
}

/*
 * gpuprof without cuda_sync events: a blocking call (device, stream or event
 * synchronize, a synchronous copy) waited for the GPU activity of the window
 * that ended last while it ran (the one collected last among those ending
 * together); that activity's end gets a sync edge to the call's end.
 * make_nodes listed the kernel ends in kend in time order.
 */
int gp__cp_pass_fallback_syncs(struct gp__cp *g)
{
	const struct gp__actx *c = g->c;
	struct gp_kv *ke = g->kend;
	size_t i, j, m = g->nkend;
	int rc = 0;

	/* the one collected last of each run of ends at one time, at the run's last entry:
	 * a lookup below lands there, in O(1) however many kernels end together */
	for (i = 0; i < m; i = j) {
		uint64_t best = ke[i].val;

		for (j = i + 1; j < m && ke[j].key == ke[i].key; j++)
			best = ke[j].val > best ? ke[j].val : best;
		ke[j - 1].val = best;
	}
	for (i = 0; i < g->nwb; i++) { /* the blocking CPU events, in collection order */
		uint32_t ev = g->wblk[i];
		int64_t bend;
		size_t lo = 0, hi = m;

		bend = c->ts[ev] + c->dur[ev];
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ke[mid].key <= bend)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || ke[lo - 1].key < c->ts[ev])
			continue;
		GP_TRY(sync_edge(g, g->enode[(uint32_t)ke[lo - 1].val], ev));
	}
out:
	return rc;
}
