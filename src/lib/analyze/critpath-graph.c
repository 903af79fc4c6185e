/* SPDX-License-Identifier: MIT */
/*
 * critpath-graph.c - the critical-path graph of a window.
 *
 * A re-implementation, on gpuprof's model, of the graph Holistic Trace
 * Analysis builds in critical_path_analysis.py (CPGraph): every CPU op,
 * runtime/driver call and GPU activity of the window gets a start and an end
 * node, numbered in (time, event) order; edges come from four passes in
 * HTA's order (the runtime lock across threads, the call stack of each
 * thread, the kernels per stream with their launch, kernel-kernel and sync
 * dependencies); critpath-path.c finds its longest path as networkx does,
 * so that --compat hta gives HTA's path. Everything is
 * iterative (no recursion that input can deepen) and allocated per analysis
 * in buffers reused across windows. docs/analyses/critical-path.md.
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

static inline __attribute__((always_inline)) int add_edge(struct gp__cp *g, uint32_t u, uint32_t v,
                                                          enum etype type, bool zero, uint32_t attr)
{
	struct edge *e;
	int rc;

	if (u == v || u == NONE || v == NONE)
		return 0;
	if (g->ne >= NONE - 1)
		return gp__error(GP_ELIMIT, "too many edges in the critical-path graph");
	if ((rc = GROW(g->e, g->e_cap, g->ne + 1)))
		return rc;
	e = &g->e[g->ne++];
	e->u = u;
	e->v = v;
	e->w = (type == E_DEP || type == E_SYNC || zero) ? 0 : g->nts[v] - g->nts[u];
	e->gw = e->w < 0 ? 0 : e->w;
	if (!g->hta)
		e->w = e->gw;
	e->attr = (type == E_OP || type == E_KK) ? attr : NONE;
	e->type = (uint8_t)type;
	e->blocking = 0;
	return 0;
}

/* the window's events: CPU nodes starting in it (dur > 0) and the GPU events they launched */
static int collect(struct gp__cp *g, int64_t start, int64_t end)
{
	static const enum gp_kind kinds[] = { GP_K_CPU_OP, GP_K_RUNTIME, GP_K_DRIVER };
	const struct gp__actx *c = g->c;
	size_t k, i;
	int rc = 0;

	g->nw = 0;
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const struct gp__idx *ix = &c->by_kind[kinds[k]];

		for (i = gp__first_at(c, ix, start); i < ix->n && c->ts[ix->v[i]] <= end; i++) {
			uint32_t ev = ix->v[i], j;

			if (c->dur[ev] <= 0 || !(g->role[ev] & RO_CPU))
				continue;
			GP_TRY(
			    GROW(g->wev, g->wev_cap, g->nw + 1 + (g->loff[ev + 1] - g->loff[ev])));
			g->wev[g->nw++] = ev;
			/* HTA joins a call with one GPU event: the last of its correlation */
			j = g->hta && g->loff[ev + 1] > g->loff[ev] ? g->loff[ev + 1] - 1
			                                            : g->loff[ev];
			for (; j < g->loff[ev + 1]; j++) {
				uint32_t ge = g->lgpu[j];

				if (g->role[ge] & (RO_KERNEL | RO_SYNC))
					g->wev[g->nw++] = ge;
			}
		}
	}
out:
	return rc;
}

/* sorts a run of equal keys: insertion sort when short, qsort otherwise (never quadratic) */
static void sort_run(struct gp_kv *v, size_t n, int (*cmp)(const void *, const void *))
{
	size_t i, j;

	if (n > 16) {
		qsort(v, n, sizeof(*v), cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		struct gp_kv x = v[i];

		for (j = i; j > 0 && cmp(&v[j - 1], &x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* the digits of sort_nodes: up to three of up to 11 bits, so keys spanning below 2^33 */
#define NODE_DIGITS 3
#define NODE_BITS   11

/*
 * kv[0..m) by key, each key in [k0, k1]: a radix sort of key - k0 (a step
 * spans well under 2^33 ns, so three passes at most), the library's sort
 * otherwise. Ties are left in any order (make_nodes orders them).
 */
static int sort_nodes(struct gp__cp *g, size_t m, int64_t k0, int64_t k1)
{
	uint32_t cnt[NODE_DIGITS][1u << NODE_BITS];
	uint64_t span = (uint64_t)k1 - (uint64_t)k0, mask;
	struct gp_kv *src = g->kv, *dst = g->kv2, *sw;
	unsigned bits = span ? 64 - (unsigned)__builtin_clzll(span) : 0, nd, w, d;
	size_t i;

	if (bits == 0 || m < 2)
		return 0;
	if (bits > NODE_DIGITS * NODE_BITS || m <= 64)
		return gp__sort_kv_with(g->kv, m, g->kv2);
	nd = (bits + NODE_BITS - 1) / NODE_BITS;
	w = (bits + nd - 1) / nd;
	mask = (UINT64_C(1) << w) - 1;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < m; i++) {
		uint64_t r = (uint64_t)src[i].key - (uint64_t)k0;

		for (d = 0; d < nd; d++)
			cnt[d][(r >> (d * w)) & mask]++;
	}
	for (d = 0; d < nd; d++) {
		uint32_t sum = 0, c;
		size_t b;

		for (b = 0; b <= mask; b++) {
			c = cnt[d][b];
			cnt[d][b] = sum;
			sum += c;
		}
		for (i = 0; i < m; i++) {
			uint64_t r = (uint64_t)src[i].key - (uint64_t)k0;

			dst[cnt[d][(r >> (d * w)) & mask]++] = src[i];
		}
		sw = src;
		src = dst;
		dst = sw;
	}
	if (src != g->kv) { /* both hold 2 nw + 1 (make_nodes): swap them, not the data */
		size_t cap = g->kv_cap;

		g->kv_cap = g->kv2_cap;
		g->kv2_cap = cap;
		g->kv2 = g->kv;
		g->kv = src;
	}
	return 0;
}

/* (event, start first), the node attributes above them left out */
static int cmp_kv_val(const void *a, const void *b)
{
	uint64_t x = ((const struct gp_kv *)a)->val & NA_EVMASK;
	uint64_t y = ((const struct gp_kv *)b)->val & NA_EVMASK;

	return x < y ? -1 : x > y;
}

/* what the passes ask of a node's event, read once per event */
static uint8_t node_attr(struct gp__cp *g, uint32_t ev)
{
	uint8_t r = g->role[ev], a = 0;

	if (r & RO_CPU) {
		uint16_t f = gp__cp_ev_flags(g, ev);

		a |= NA_CPU;
		if (f & NF_LOCK)
			a |= NA_LOCK;
		if ((f & NF_BLOCK) || (!g->hta && (f & NF_BLOCK_HIP)))
			a |= NA_BLOCK;
	}
	if (r & RO_KERNEL)
		a |= NA_KERNEL;
	return a;
}

/* nodes: a start and an end per event, in (time, event, start first) order */
static int make_nodes(struct gp__cp *g)
{
	const struct gp__actx *c = g->c;
	size_t i, m = 0;
	int64_t k0 = INT64_MAX, k1 = INT64_MIN;
	int rc = 0;

	GP_TRY(GROW(g->kv, g->kv_cap, 2 * g->nw + 1));
	for (i = 0; i < g->nw; i++) {
		uint32_t ev = g->wev[i];
		uint64_t at;

		if (g->role[ev] & RO_SYNC && !(g->role[ev] & RO_KERNEL))
			continue; /* sync events get no nodes */
		at = (uint64_t)node_attr(g, ev) << NA_SHIFT;
		g->kv[m].key = c->ts[ev];
		g->kv[m++].val = at | (uint64_t)ev << 1;
		g->kv[m].key = c->ts[ev] + c->dur[ev];
		g->kv[m++].val = at | (uint64_t)ev << 1 | 1;
		k0 = c->ts[ev] < k0 ? c->ts[ev] : k0;
		k1 = g->kv[m - 1].key > k1 ? g->kv[m - 1].key : k1;
	}
	if (m >= NONE - 1)
		GP_TRY(gp__error(GP_ELIMIT, "too many nodes in the critical-path graph"));
	GP_TRY(GROW(g->kv2, g->kv2_cap, 2 * g->nw + 1));
	GP_TRY(sort_nodes(g, m, k0, k1));
	/* equal times in (event, start first) order: val order within each run */
	for (i = 0; i < m;) {
		size_t j = i + 1;

		while (j < m && g->kv[j].key == g->kv[i].key)
			j++;
		if (j - i > 1)
			sort_run(g->kv + i, j - i, cmp_kv_val);
		i = j;
	}
	memset(g->tcnt, 0, (g->t->ntracks + 1) * sizeof(*g->tcnt));
	GP_TRY(GROW(g->nts, g->nts_cap, m + 1));
	GP_TRY(GROW(g->nev, g->nev_cap, m + 1));
	GP_TRY(GROW(g->nend, g->nend_cap, m + 1));
	GP_TRY(GROW(g->nsync, g->nsync_cap, m + 1));
	GP_TRY(GROW(g->nat, g->nat_cap, m + 1));
	GP_TRY(GROW(g->ntr, g->ntr_cap, m + 1));
	for (i = 0; i < m; i++) {
		uint32_t ev = (uint32_t)((g->kv[i].val & NA_EVMASK) >> 1);

		g->nts[i] = g->kv[i].key;
		g->nev[i] = ev;
		g->nend[i] = g->kv[i].val & 1;
		g->nsync[i] = 0;
		g->nat[i] = (uint8_t)(g->kv[i].val >> NA_SHIFT);
		g->ntr[i] = g->t->ev.track[ev];
		/* per thread for pass_stacks: its CPU nodes, whether it holds kernel nodes (HTA) */
		if (g->nat[i] & NA_CPU)
			g->tcnt[g->ntr[i] + 1]++;
		else if (g->hta && (g->nat[i] & NA_KERNEL))
			g->tskip[g->ntr[i]] = 1;
		if (g->nend[i])
			g->enode[ev] = (uint32_t)i;
		else
			g->snode[ev] = (uint32_t)i;
	}
	g->nn = m;
out:
	return rc;
}

static bool is_lock(const struct gp__cp *g, uint32_t node)
{
	return (g->nat[node] & NA_LOCK) != 0;
}

/* HTA _shares_cuda_runtime_lock */
static bool shares_lock(struct gp__cp *g, uint32_t a, uint32_t b)
{
	return is_lock(g, a) && is_lock(g, b) && (!g->nend[a] || g->nend[b]);
}

/* pass 1: the runtime lock, across threads (HTA _construct_graph_from_cuda_runtime_events) */
static int pass_lock(struct gp__cp *g)
{
	size_t i, nst = 0;
	uint32_t last = NONE;
	int rc = 0;

	GP_TRY(GROW(g->stk, g->stk_cap, g->nn + 1));
	for (i = 0; i < g->nn; i++) {
		uint32_t nd = (uint32_t)i, ev = g->nev[i];

		if (!(g->nat[nd] & NA_LOCK))
			continue;
		if (!g->nend[nd]) {
			g->stk[nst++] = nd;
		} else {
			while (nst) {
				uint32_t p = g->stk[--nst];

				if (g->nev[p] == ev)
					GP_TRY(add_edge(g, p, nd, E_OP, false, ev));
				else
					GP_TRY(add_edge(g, p, nd, E_DEP, false, NONE));
			}
			if (last != NONE && g->nend[last])
				GP_TRY(add_edge(g, last, nd, E_DEP, false, NONE));
		}
		last = nd;
	}
out:
	return rc;
}

static int cmp_kv_keyval(const void *a, const void *b)
{
	const struct gp_kv *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->val < y->val ? -1 : x->val > y->val;
}

/*
 * HTA's compare_events at one time on one thread (events of positive
 * duration): ends before starts; ends shortest first, then the later event
 * first; starts longest first, then the earlier event first. Sorts the run
 * @p ord[0..n) of node ids.
 */
static int tie_order(struct gp__cp *g, uint32_t *ord, size_t n)
{
	size_t i;
	int rc = 0;

	GP_TRY(GROW(g->kv2, g->kv2_cap, n));
	for (i = 0; i < n; i++) {
		uint32_t nd = ord[i], ev = g->nev[nd];
		int64_t d = g->c->dur[ev] < 0 ? 0 : g->c->dur[ev];
		bool st = !g->nend[nd];

		g->kv2[i].key = st ? (INT64_C(1) << 62) | ((INT64_C(1) << 62) - 1 - d) : d;
		g->kv2[i].val = (uint64_t)(st ? ev : NONE - ev) << 32 | nd;
	}
	sort_run(g->kv2, n, cmp_kv_keyval);
	for (i = 0; i < n; i++)
		ord[i] = (uint32_t)g->kv2[i].val;
out:
	return rc;
}

/*
 * The forward and backward threads (HTA _get_fwd_tid/_get_bwd_tid): the only
 * thread with a CPU op or annotation named "*forward*" (resp. "*autograd*")
 * in the window; the backward one is merged into the forward one.
 */
static void fwd_bwd(struct gp__cp *g, int64_t start, int64_t end, uint32_t *from, uint32_t *to)
{
	static const enum gp_kind kinds[] = { GP_K_CPU_OP, GP_K_USER_ANNOTATION };
	const struct gp__actx *c = g->c;
	const struct gp_trace *t = g->t;
	uint32_t fwd = NONE, bwd = NONE;
	bool fwd_many = false, bwd_many = false;
	size_t k, i;

	*from = *to = NONE;
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const struct gp__idx *ix = &c->by_kind[kinds[k]];

		for (i = gp__first_at(c, ix, start); i < ix->n && c->ts[ix->v[i]] <= end; i++) {
			uint32_t ev = ix->v[i], tr = t->ev.track[ev];
			uint16_t f;

			if (c->dur[ev] <= 0 || (g->hta && gp__cp_hta_row(t, ev)))
				continue;
			f = gp__cp_ev_flags(g, ev);
			if (f & NF_FWD) {
				if (fwd == NONE)
					fwd = tr;
				else if (fwd != tr)
					fwd_many = true;
			}
			if (f & NF_AUTOGRAD) {
				if (bwd == NONE)
					bwd = tr;
				else if (bwd != tr)
					bwd_many = true;
			}
		}
	}
	if (fwd != NONE && bwd != NONE && !fwd_many && !bwd_many && fwd != bwd) {
		*from = bwd;
		*to = fwd;
	}
}

/* pass 2: the call stack of each thread (HTA _construct_graph_from_call_stack) */
static int pass_stacks(struct gp__cp *g, int64_t start, int64_t end)
{
	const struct gp_trace *t = g->t;
	size_t i, j, nst = 0, nt = t->ntracks;
	uint32_t from, to, last = NONE, last_parent = NONE;
	int depth = 0;
	int rc = 0;

	fwd_bwd(g, start, end, &from, &to);
	GP_TRY(GROW(g->stk, g->stk_cap, g->nw + 1));
	GP_TRY(GROW(g->ord, g->ord_cap, g->nn + 1));
	/* the CPU nodes per thread (the backward one merged), each in node (time) order:
	 * make_nodes counted them per thread, the backward one's join the forward one's */
	if (from != NONE) {
		g->tcnt[to + 1] += g->tcnt[from + 1];
		g->tcnt[from + 1] = 0;
		g->tskip[to] |= g->tskip[from];
		g->tskip[from] = 0;
	}
	for (i = 0; i < nt; i++)
		g->tcnt[i + 1] += g->tcnt[i];
	for (i = 0; i < g->nn; i++) {
		uint32_t tr = g->ntr[i];

		if (tr == from)
			tr = to;
		if (g->nat[i] & NA_CPU)
			g->ord[g->tcnt[tr]++] = (uint32_t)i;
	}
	/* now tcnt[tr] is the end of thread tr's nodes: ties at one time in HTA's order */
	for (i = 0, j = 0; i < nt; j = g->tcnt[i], i++) {
		size_t k = j, e = g->tcnt[i];

		while (k < e) {
			size_t l = k + 1;

			while (l < e && g->nts[g->ord[l]] == g->nts[g->ord[k]])
				l++;
			if (l - k > 1)
				GP_TRY(tie_order(g, g->ord + k, l - k));
			k = l;
		}
	}
	for (i = 0, j = 0; i < nt; j = g->tcnt[i], i++) {
		size_t k, e = g->tcnt[i];

		last = last_parent = NONE;
		depth = 0;
		nst = 0;
		/* HTA: a thread holding a row with a stream is no call stack */
		if (g->tskip[i] && !t->tracks[i].gpu) {
			g->tskip[i] = 0;
			continue;
		}
		for (k = j; k < e; k++) {
			uint32_t nd = g->ord[k];

			if (!g->nend[nd]) {
				uint32_t s = nd, ev = g->nev[nd];

				if (last != NONE && !shares_lock(g, last, s)) {
					uint32_t attr = !g->nend[last] ? g->nev[last] : last_parent;

					GP_TRY(add_edge(g, last, s, depth == 0 ? E_DEP : E_OP,
					                false, attr));
				}
				last_parent = nst ? g->stk[nst - 1] : NONE;
				last = s;
				g->stk[nst++] = ev;
				depth++;
			} else if (nst) {
				uint32_t ev = g->stk[--nst], e2 = g->enode[ev];

				if (last != NONE && !shares_lock(g, last, e2)) {
					uint32_t attr = !g->nend[last] ? g->nev[last] : ev;
					bool bl = (g->nat[e2] & NA_BLOCK) != 0;

					GP_TRY(add_edge(g, last, e2, E_OP, bl && g->hta, attr));
					g->e[g->ne - 1].blocking = bl;
					g->nblock += bl;
				}
				last_parent = nst ? g->stk[nst - 1] : NONE;
				last = e2;
				depth--;
			}
		}
	}
out:
	for (i = 0; i < nt; i++)
		g->tskip[i] = 0;
	return rc;
}

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
	uint32_t e = g->enode[cpu_ev];
	int rc;

	if (e == NONE || gpu_end == NONE)
		return 0;
	if ((rc = add_edge(g, gpu_end, e, E_SYNC, false, NONE)))
		return rc;
	g->nsync[e] = 1;
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
			GP_TRY(sync_edge(g, g->enode[src], rt));
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
static int pass_kernels(struct gp__cp *g, bool *same_stream_sync, bool *no_launch_node)
{
	const struct gp__actx *c = g->c;
	struct gp_u64map ksync;
	size_t i, m = 0, ni = 0;
	int rc = 0;

	memset(&ksync, 0, sizeof(ksync));
	g->nsl = 0;
	gp__u64map_release(&g->slmap);
	GP_TRY(gp__u64map_init(&g->slmap, 16));
	GP_TRY(gp__u64map_init(&ksync, 16));
	/* syncs by end (a sync overlaps the copy it waits for), merged with the kernels by start */
	for (i = 0; i < g->nw; i++) {
		uint32_t ev = g->wev[i];

		if ((g->role[ev] & RO_SYNC) && !(g->role[ev] & RO_KERNEL)) {
			g->kv[m].key = c->ts[ev] + c->dur[ev];
			g->kv[m++].val = ev;
		}
	}
	GP_TRY(gp__sort_kv(g->kv, m));
	for (i = 0;;) {
		uint32_t ev, s, e, rt, *last, ks_end = NONE;
		uint64_t ks, sk;
		bool has_ks;
		int64_t rts;

		while (ni < g->nn && (g->nend[ni] || !(g->nat[ni] & NA_KERNEL)))
			ni++;
		if (i < m && (ni >= g->nn || g->kv[i].key < g->nts[ni] ||
		              (g->kv[i].key == g->nts[ni] && g->kv[i].val < g->nev[ni]))) {
			GP_TRY(on_sync(g, (uint32_t)g->kv[i++].val, &ksync));
			continue;
		}
		if (ni >= g->nn)
			break;
		ev = g->nev[ni++];
		s = g->snode[ev];
		e = g->enode[ev];
		rt = g->link[ev];
		if (s == NONE || e == NONE || rt == NONE)
			continue;
		GP_TRY(add_edge(g, s, e, E_OP, false, ev));
		sk = gp__cp_stream_key(g, ev);
		last = stream_slot(g, sk, true);
		if (!last)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		has_ks = ksync.n && gp__u64map_get(&ksync, ev, &ks) && (uint32_t)ks != NONE;
		if (has_ks) {
			ks_end = g->enode[(uint32_t)ks];
			if (ks_end != NONE) {
				uint64_t a = g->t->ev.stream[(uint32_t)ks], b = g->t->ev.stream[ev];

				if (a == b) {
					*same_stream_sync = true;
					if (!g->hta)
						ks_end = NONE;
				}
				if (ks_end != NONE)
					GP_TRY(add_edge(g, ks_end, s, E_SYNC, false, NONE));
			}
			GP_TRY(gp__u64map_put(&ksync, ev, NONE));
			if (ks_end == NONE)
				has_ks = false;
		}
		rts = c->ts[rt];
		if (g->q[rt] == 1 && g->q[ev] == 0 && (*last == NONE || g->nts[*last] < rts) &&
		    (!has_ks || g->nts[ks_end] < rts)) {
			/* HTA asserts the launching call is a node: its analysis fails */
			if (g->snode[rt] == NONE)
				*no_launch_node = true;
			GP_TRY(add_edge(g, g->snode[rt], s, E_LAUNCH, false, NONE));
		} else if (*last != NONE && g->nts[s] - g->nts[*last] < KK_THRESHOLD_NS &&
		           (!has_ks || g->nts[ks_end] < g->nts[*last])) {
			GP_TRY(add_edge(g, *last, s, E_KK, false, g->nev[*last]));
		}
		/* the slot may have moved when stream_slot grew the array */
		last = stream_slot(g, sk, false);
		*last = e;
	}
out:
	gp__u64map_release(&ksync);
	return rc;
}

/*
 * gpuprof without cuda_sync events: a blocking call (device, stream or event
 * synchronize, a synchronous copy) waited for the GPU activity of the window
 * that ended last while it ran; that activity's end gets a sync edge to the
 * call's end.
 */
static int pass_fallback_syncs(struct gp__cp *g)
{
	const struct gp__actx *c = g->c;
	size_t i, m = 0;
	int rc = 0;

	/* NA_BLOCK: a blocking CPU event's nodes (node_attr; every CPU event has nodes) */
	for (i = 0; i < g->nn; i++)
		if (g->nat[i] & NA_BLOCK)
			break;
	if (i == g->nn)
		return 0; /* no blocking call */
	for (i = 0; i < g->nw; i++) {
		uint32_t ev = g->wev[i];

		if (!(g->role[ev] & RO_KERNEL) || g->enode[ev] == NONE)
			continue;
		g->kv[m].key = c->ts[ev] + c->dur[ev];
		g->kv[m++].val = ev;
	}
	GP_TRY(gp__sort_kv(g->kv, m));
	for (i = 0; i < g->nw; i++) {
		uint32_t ev = g->wev[i];
		int64_t bend;
		size_t lo = 0, hi = m;

		if (g->enode[ev] == NONE || !(g->nat[g->enode[ev]] & NA_BLOCK))
			continue;
		bend = c->ts[ev] + c->dur[ev];
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (g->kv[mid].key <= bend)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && g->kv[lo - 1].key >= c->ts[ev])
			GP_TRY(sync_edge(g, g->enode[(uint32_t)g->kv[lo - 1].val], ev));
	}
out:
	return rc;
}

/*
 * The longest path (networkx dag_longest_path over topological_sort): nodes
 * in generations of Kahn's algorithm, children in edge order; each node takes
 * the first best predecessor in edge order; the path ends at the first
 * farthest node in that order.
 */
int gp__cp_window(struct gp__cp *g, int64_t start, int64_t end, struct gp__cp_path *p)
{
	bool same = false, nolaunch = false;
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	g->ne = 0;
	g->nn = 0;
	g->nblock = 0;
	GP_TRY(collect(g, start, end));
	p->nev = g->nw;
	GP_TRY(make_nodes(g));
	GP_TRY(pass_lock(g));
	GP_TRY(pass_stacks(g, start, end));
	GP_TRY(pass_kernels(g, &same, &nolaunch));
	if (!g->hta && !g->have_sync)
		GP_TRY(pass_fallback_syncs(g));
	if (!g->hta && g->nblock) {
		/* a blocking call whose wait the graph explains adds no CPU time of its own */
		for (i = 0; i < g->ne; i++)
			if (g->e[i].blocking && g->nsync[g->e[i].v])
				g->e[i].w = g->e[i].gw = 0;
	}
	if (!g->nn) {
		p->reason = "no CPU op or kernel in the step";
		goto out;
	}
	if (nolaunch && g->hta) {
		p->reason = "HTA fails on this step: a kernel launch whose call is no node of its "
		            "graph (2021 Kineto categories)";
		goto out;
	}
	if (same && g->hta) {
		p->reason = "HTA rejects the graph: a sync edge between kernels of one stream";
		goto out;
	}
	p->ok = true;
	GP_TRY(gp__cp_longest(g, p));
out:
	for (i = 0; i < g->nw; i++)
		g->snode[g->wev[i]] = g->enode[g->wev[i]] = NONE;
	if (rc) /* pass_stacks clears what make_nodes marked */
		memset(g->tskip, 0, g->t->ntracks);
	return rc;
}
