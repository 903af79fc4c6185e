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
 * so that --compat hta gives HTA's path. Few passes over the nodes: one
 * sort of packed keys, one pass that fills the nodes and runs the lock pass,
 * the call stacks of all threads in one pass in node order, the kernels from
 * a list (critpath-kernels.c); add_edge keeps each node's incoming edges for
 * the path. Everything
 * is iterative (no recursion that input can deepen) and allocated per
 * analysis in buffers reused across windows. docs/analyses/critical-path.md.
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

/* collect's view of the window's buffers, in locals (byte stores make the compiler reload g) */
struct win {
	const uint8_t *role;
	const int64_t *ts, *dur;
	const uint32_t *name;
	const uint16_t *nf;
	size_t nstr;
	bool hta;
	uint32_t *wev, *wsync;
	uint8_t *wat;
	uint64_t *key;
	size_t nw, nws, room; /* room: events the buffers hold */
	int64_t k0, k1;
};

/* the buffers of collect for @p need events */
static int win_grow(struct gp__cp *g, struct win *w, size_t need)
{
	int rc = 0;

	if (need >= NONE / 2)
		return gp__error(GP_ELIMIT, "too many nodes in the critical-path graph");
	need = need < 2 * w->room ? 2 * w->room : need;
	GP_TRY(GROW(g->wev, g->wev_cap, need));
	GP_TRY(GROW(g->wat, g->wat_cap, need));
	GP_TRY(GROW(g->wsync, g->wsync_cap, need));
	GP_TRY(GROW(g->key, g->key_cap, 2 * need));
	w->wev = g->wev;
	w->wat = g->wat;
	w->wsync = g->wsync;
	w->key = g->key;
	w->room = need;
out:
	return rc;
}

/* what the passes ask of a node's event (NA_*), read once per event */
static inline uint8_t node_attr(struct gp__cp *g, const struct win *w, uint32_t ev, uint8_t r)
{
	uint8_t a = 0;

	if (r & RO_CPU) {
		uint32_t id = w->name[ev];
		uint16_t f =
		    id < w->nstr && (w->nf[id] & NF_DONE) ? w->nf[id] : gp__cp_name_flags(g, id);

		a |= NA_CPU;
		if (f & NF_LOCK)
			a |= NA_LOCK;
		if ((f & NF_BLOCK) || (!w->hta && (f & NF_BLOCK_HIP)))
			a |= NA_BLOCK;
	}
	if (r & RO_KERNEL)
		a |= NA_KERNEL;
	return a;
}

/* one event of the window: sync events get no nodes, the others a start and an end key */
static inline void add_ev(struct gp__cp *g, struct win *w, uint32_t ev)
{
	uint8_t r = w->role[ev];
	int64_t ts = w->ts[ev], te = ts + w->dur[ev], lo = ts < te ? ts : te, hi = ts ^ te ^ lo;
	size_t i;

	if ((r & RO_SYNC) && !(r & RO_KERNEL)) {
		w->wsync[w->nws++] = ev;
		return;
	}
	i = w->nw++;
	w->wev[i] = ev;
	w->wat[i] = node_attr(g, w, ev, r);
	w->key[2 * i] = (uint64_t)ts;
	w->key[2 * i + 1] = (uint64_t)te;
	w->k0 = lo < w->k0 ? lo : w->k0;
	w->k1 = hi > w->k1 ? hi : w->k1;
}

/*
 * The window's events: CPU nodes starting in it (dur > 0) and the GPU events
 * they launched, their times in key (2 per event with nodes), their span in
 * [*k0, *k1].
 */
static int collect(struct gp__cp *g, int64_t start, int64_t end, int64_t *k0, int64_t *k1)
{
	static const enum gp_kind kinds[] = { GP_K_CPU_OP, GP_K_RUNTIME, GP_K_DRIVER };
	const struct gp__actx *c = g->c;
	const uint32_t *loff = g->loff, *lgpu = g->lgpu;
	struct win w = {
		.role = g->role,
		.ts = c->ts,
		.dur = c->dur,
		.name = g->t->ev.name,
		.nf = g->nf,
		.nstr = g->nstr,
		.hta = g->hta,
		.wev = g->wev,
		.wsync = g->wsync,
		.wat = g->wat,
		.key = g->key,
		.k0 = INT64_MAX,
		.k1 = INT64_MIN,
	};
	size_t k, i;
	int rc = 0;

	w.room = g->wev_cap < g->wat_cap ? g->wev_cap : g->wat_cap;
	w.room = g->wsync_cap < w.room ? g->wsync_cap : w.room;
	w.room = g->key_cap / 2 < w.room ? g->key_cap / 2 : w.room;
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const struct gp__idx *ix = &c->by_kind[kinds[k]];

		for (i = gp__first_at(c, ix, start); i < ix->n && w.ts[ix->v[i]] <= end; i++) {
			uint32_t ev = ix->v[i], j, je;
			size_t need;

			if (w.dur[ev] <= 0 || !(w.role[ev] & RO_CPU))
				continue;
			j = loff[ev];
			je = loff[ev + 1];
			need = w.nw + w.nws + 1 + (je - j);
			if (need > w.room)
				GP_TRY(win_grow(g, &w, need));
			add_ev(g, &w, ev);
			/* HTA joins a call with one GPU event: the last of its correlation */
			if (w.hta && je > j)
				j = je - 1;
			for (; j < je; j++) {
				uint32_t ge = lgpu[j];

				if (w.role[ge] & (RO_KERNEL | RO_SYNC))
					add_ev(g, &w, ge);
			}
		}
	}
out:
	g->nw = w.nw;
	g->nws = w.nws;
	*k0 = w.k0;
	*k1 = w.k1;
	return rc;
}

/* the event and end bit of packed key @p k: the order of nodes at one time */
static inline uint64_t tie_val(const struct gp__cp *g, uint64_t k, uint64_t jmask)
{
	uint64_t j = k & jmask;

	return (uint64_t)g->wev[j >> 1] << 1 | (j & 1);
}

/*
 * A run of keys at one time in (event, start first) order: insertion sort
 * when short, the library's stable sort otherwise (never quadratic).
 */
static int sort_ties(struct gp__cp *g, uint64_t *k, size_t n, uint64_t jmask)
{
	size_t i, j;
	int rc = 0;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			uint64_t x = k[i], xv = tie_val(g, x, jmask);

			for (j = i; j > 0 && tie_val(g, k[j - 1], jmask) > xv; j--)
				k[j] = k[j - 1];
			k[j] = x;
		}
		return 0;
	}
	GP_TRY(GROW(g->kv, g->kv_cap, n));
	GP_TRY(GROW(g->kv2, g->kv2_cap, n));
	for (i = 0; i < n; i++) {
		g->kv[i].key = (int64_t)tie_val(g, k[i], jmask);
		g->kv[i].val = k[i];
	}
	GP_TRY(gp__sort_kv_with(g->kv, n, g->kv2));
	for (i = 0; i < n; i++)
		k[i] = g->kv[i].val;
out:
	return rc;
}

/*
 * A bucket of make_nodes' keys in (time, event, start first) order:
 * insertion when short (the event compared only at equal times), else the
 * library's stable sort by time and sort_ties for each run of one time
 * (never quadratic).
 */
static int sort_bucket(struct gp__cp *g, uint64_t *k, size_t n, unsigned kbits)
{
	uint64_t jmask = (UINT64_C(1) << kbits) - 1;
	size_t i, j;
	int rc = 0;

	if (n <= 32) {
		for (i = 1; i < n; i++) {
			uint64_t x = k[i], xt = x >> kbits;

			for (j = i; j > 0; j--) {
				uint64_t y = k[j - 1], yt = y >> kbits;

				if (yt < xt ||
				    (yt == xt && tie_val(g, y, jmask) <= tie_val(g, x, jmask)))
					break;
				k[j] = y;
			}
			k[j] = x;
		}
		return 0;
	}
	GP_TRY(GROW(g->kv, g->kv_cap, n));
	GP_TRY(GROW(g->kv2, g->kv2_cap, n));
	for (i = 0; i < n; i++) {
		g->kv[i].key = (int64_t)(k[i] >> kbits);
		g->kv[i].val = k[i];
	}
	GP_TRY(gp__sort_kv_with(g->kv, n, g->kv2));
	for (i = 0; i < n; i++)
		k[i] = g->kv[i].val;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && k[j] >> kbits == k[i] >> kbits; j++)
			;
		if (j - i > 1)
			GP_TRY(sort_ties(g, k + i, j - i, jmask));
	}
out:
	return rc;
}

/*
 * The times in key[0..m), in [*k0, *k1], as offsets from *k0, *bits wide; a
 * span too wide to pack with a key index of @p kbits bits: their ranks
 * (the library's sort), which keep their order, in [0, *k1].
 */
static int time_offsets(struct gp__cp *g, size_t m, int64_t *k0, int64_t *k1, unsigned kbits,
                        unsigned *bits)
{
	uint64_t span = (uint64_t)*k1 - (uint64_t)*k0, rank = 0;
	int64_t last = 0;
	size_t i;
	int rc = 0;

	*bits = span ? 64 - (unsigned)__builtin_clzll(span) : 0;
	if (*bits + kbits <= 64)
		return 0;
	GP_TRY(GROW(g->kv, g->kv_cap, m));
	GP_TRY(GROW(g->kv2, g->kv2_cap, m));
	for (i = 0; i < m; i++) {
		g->kv[i].key = (int64_t)g->key[i];
		g->kv[i].val = i;
	}
	GP_TRY(gp__sort_kv_with(g->kv, m, g->kv2));
	for (i = 0; i < m; i++) {
		rank += i && g->kv[i].key != last;
		last = g->kv[i].key;
		g->key[g->kv[i].val] = rank;
	}
	*k0 = 0;
	*k1 = (int64_t)rank;
	*bits = rank ? 64 - (unsigned)__builtin_clzll(rank) : 0;
out:
	return rc;
}

/* HTA _shares_cuda_runtime_lock, of two nodes' attributes */
static inline bool shares_lock(uint8_t x, uint8_t y)
{
	return (x & y & NA_LOCK) && (!(x & NA_END) || (y & NA_END));
}

/* a node of a tie run of pass_stacks: its thread, then HTA's order */
struct tiek {
	int64_t key;
	uint64_t val;
	uint32_t tr;
};

static int cmp_tiek(const void *a, const void *b)
{
	const struct tiek *x = a, *y = b;

	if (x->tr != y->tr)
		return x->tr < y->tr ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->val < y->val ? -1 : x->val > y->val;
}

/* CPU node @p nd of thread @p tr in a tie run */
static inline struct tiek tie_key(const struct gp__cp *g, uint32_t nd, uint32_t tr)
{
	uint32_t ev = g->nev[nd];
	int64_t d = g->c->dur[ev] < 0 ? 0 : g->c->dur[ev];
	bool st = !(g->nat[nd] & NA_END);
	struct tiek k;

	k.key = st ? (INT64_C(1) << 62) | ((INT64_C(1) << 62) - 1 - d) : d;
	k.val = (uint64_t)(st ? ev : NONE - ev) << 32 | nd;
	k.tr = tr;
	return k;
}

/*
 * HTA's compare_events at one time on one thread (events of positive
 * duration): ends before starts; ends shortest first, then the later event
 * first; starts longest first, then the earlier event first. Sorts the run @p ord[0..n) of CPU
 * nodes at one time, their threads in @p tr, by thread, then in that order.
 */
static int tie_order(struct gp__cp *g, uint32_t *ord, uint32_t *tr, size_t n)
{
	size_t i, j;
	int rc = 0;

	if (n == 2) { /* the usual run: no buffer */
		struct tiek a = tie_key(g, ord[0], tr[0]), b = tie_key(g, ord[1], tr[1]);

		if (cmp_tiek(&a, &b) > 0) {
			ord[0] = (uint32_t)b.val;
			ord[1] = (uint32_t)a.val;
			tr[0] = b.tr;
			tr[1] = a.tr;
		}
		return 0;
	}
	GP_TRY(GROW(g->tk, g->tk_cap, n));
	for (i = 0; i < n; i++)
		g->tk[i] = tie_key(g, ord[i], tr[i]);
	if (n > 16) {
		qsort(g->tk, n, sizeof(*g->tk), cmp_tiek);
	} else {
		for (i = 1; i < n; i++) {
			struct tiek x = g->tk[i];

			for (j = i; j > 0 && cmp_tiek(&g->tk[j - 1], &x) > 0; j--)
				g->tk[j] = g->tk[j - 1];
			g->tk[j] = x;
		}
	}
	for (i = 0; i < n; i++) {
		ord[i] = (uint32_t)g->tk[i].val;
		tr[i] = g->tk[i].tr;
	}
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

/*
 * Nodes: a start and an end per event with nodes, in (time, event, start
 * first) order. The keys, (time - k0) << kbits | j (j: 2 wev index + end),
 * go to about one bucket per key by time; each bucket is ordered (mostly one
 * or two keys) and its nodes filled in turn with what the later passes read
 * of them; pass 1, the runtime lock across threads (HTA
 * _construct_graph_from_cuda_runtime_events), which only adds edges into the
 * node at hand, runs in the same loop, and the CPU nodes are listed for
 * pass_stacks with their threads (@p from merged into @p to), each run at one
 * time in HTA's order (tie_order). The hot loop reads the arrays through
 * locals (a byte store would make the compiler reload every field of g).
 */
static int make_nodes(struct gp__cp *g, int64_t k0, int64_t k1, uint32_t from, uint32_t to)
{
	const int64_t *cts = g->c->ts, *cdur = g->c->dur;
	const uint32_t *track = g->t->ev.track, *wev = g->wev;
	const uint8_t *wat = g->wat;
	size_t i, m = 2 * g->nw, nb, b, lo, nst = 0, ncpu = 0, nkern = 0, nkend = 0, run = 0;
	int64_t run_ts = 0;
	unsigned kbits = m > 1 ? 64 - (unsigned)__builtin_clzll((uint64_t)m - 1) : 1, bits, sh;
	uint64_t jmask = (UINT64_C(1) << kbits) - 1, *key, *out;
	bool fallback = !g->hta && !g->have_sync, hta = g->hta;
	uint32_t *cnt, *nev, *head, *reach, *snode = g->snode, *enode = g->enode, *cpun, *cpt,
	                                    *kern, *stk, last = NONE;
	int64_t *nts;
	uint8_t *nat, *tskip = g->tskip;
	struct gp_kv *kend;
	int rc = 0;

	g->nn = g->ncpu = g->nkern = g->nkend = 0;
	if (!m)
		return 0;
	GP_TRY(time_offsets(g, m, &k0, &k1, kbits, &bits));
	/* buckets of time offset >> sh: at most 2^(kbits - 1), fewer than m */
	sh = bits + 1 > kbits ? bits + 1 - kbits : 0;
	nb = (size_t)(((uint64_t)k1 - (uint64_t)k0) >> sh) + 1;
	GP_TRY(GROW(g->bcnt, g->bcnt_cap, nb + 1));
	GP_TRY(GROW(g->key2, g->key2_cap, m));
	GP_TRY(GROW(g->nts, g->nts_cap, m + 1));
	GP_TRY(GROW(g->nev, g->nev_cap, m + 1));
	GP_TRY(GROW(g->nat, g->nat_cap, m + 1));
	GP_TRY(GROW(g->head, g->head_cap, m + 1));
	GP_TRY(GROW(g->reach, g->reach_cap, m + 1));
	GP_TRY(GROW(g->cpun, g->cpun_cap, m + 1));
	GP_TRY(GROW(g->kern, g->kern_cap, m + 1));
	GP_TRY(GROW(g->stk, g->stk_cap, m + 1));
	GP_TRY(GROW(g->cpt, g->cpt_cap, m + 1));
	GP_TRY(GROW(g->kend, g->kend_cap, fallback ? m + 1 : 1));
	GP_TRY(reserve_edges(g, m)); /* pass 1: at most one edge per node */
	cnt = g->bcnt;
	key = g->key;
	out = g->key2;
	nts = g->nts;
	nev = g->nev;
	nat = g->nat;
	head = g->head;
	reach = g->reach;
	cpun = g->cpun;
	kern = g->kern;
	stk = g->stk;
	cpt = g->cpt;
	kend = g->kend;
	memset(cnt, 0, (nb + 1) * sizeof(*cnt));
	for (i = 0; i < m; i++) {
		uint64_t r = key[i] - (uint64_t)k0;

		key[i] = r << kbits | i;
		cnt[(r >> sh) + 1]++;
	}
	for (b = 1; b <= nb; b++)
		cnt[b] += cnt[b - 1];
	for (i = 0; i < m; i++)
		out[cnt[key[i] >> (kbits + sh)]++] = key[i];
	/* now bucket b is out[cnt[b - 1]..cnt[b]) */
	for (b = 0, lo = 0; b < nb; lo = cnt[b++]) {
		size_t hi = cnt[b];

		if (hi - lo > 1)
			GP_TRY(sort_bucket(g, out + lo, hi - lo, kbits));
		for (i = lo; i < hi; i++) {
			uint64_t jj = out[i] & jmask;
			uint32_t w = (uint32_t)(jj >> 1), ev = wev[w], nd = (uint32_t)i;
			uint8_t a = wat[w];

			nev[nd] = ev;
			head[nd] = NONE;
			reach[nd] = 0;
			if (jj & 1) {
				a |= NA_END;
				nts[nd] = cts[ev] + cdur[ev];
				enode[ev] = nd;
			} else {
				nts[nd] = cts[ev];
				snode[ev] = nd;
			}
			nat[nd] = a;
			/* pass_stacks' nodes and threads, threads with kernel nodes (HTA) */
			if (a & NA_CPU) {
				uint32_t tr = track[ev];

				if (!ncpu || nts[nd] != run_ts) {
					if (ncpu - run > 1)
						GP_TRY(tie_order(g, cpun + run, cpt + run,
						                 ncpu - run));
					run = ncpu;
					run_ts = nts[nd];
				}
				cpt[ncpu] = tr == from ? to : tr;
				cpun[ncpu++] = nd;
			} else if (hta && (a & NA_KERNEL)) {
				tskip[track[ev]] = 1;
			}
			if (a & NA_KERNEL) {
				if (!(a & NA_END)) {
					kern[nkern++] = nd;
				} else if (fallback) { /* kernel ends for pass_fallback_syncs */
					kend[nkend].key = nts[nd];
					kend[nkend++].val = (uint64_t)w << 32 | ev;
				}
			}
			if (!(a & NA_LOCK))
				continue;
			/* pass 1 */
			if (!(a & NA_END)) {
				stk[nst++] = nd;
			} else {
				while (nst) {
					uint32_t p = stk[--nst];

					if (nev[p] == ev)
						add_edge(g, p, nd, E_OP, false, ev);
					else
						add_edge(g, p, nd, E_DEP, false, NONE);
				}
				if (last != NONE && (nat[last] & NA_END))
					add_edge(g, last, nd, E_DEP, false, NONE);
			}
			last = nd;
		}
	}
	if (ncpu - run > 1)
		GP_TRY(tie_order(g, cpun + run, cpt + run, ncpu - run));
	g->nn = m;
	g->ncpu = ncpu;
	g->nkern = nkern;
	g->nkend = nkend;
out:
	return rc;
}

/*
 * pass 2: the call stack of each thread (HTA _construct_graph_from_call_stack),
 * all threads in one pass in node order (make_nodes listed the CPU nodes,
 * those at one time in HTA's order), each with its own state: the edges
 * into and out of each node come in the order HTA's per-thread passes give
 * them, which is all the path and the generations read of the edge order.
 */
static int pass_stacks(struct gp__cp *g, uint32_t from, uint32_t to)
{
	const struct gp_trace *t = g->t;
	const uint32_t *cpun = g->cpun, *cpt = g->cpt, *nev = g->nev, *enode = g->enode;
	const uint8_t *nat = g->nat, *tskip = g->tskip;
	size_t k, n = g->ncpu, nt = t->ntracks;
	uint32_t *below;
	struct tstate *tst;
	bool hta = g->hta;
	int rc = 0;

	if (from != NONE) {
		g->tskip[to] |= g->tskip[from];
		g->tskip[from] = 0;
	}
	GP_TRY(GROW(g->tst, g->tst_cap, nt + 1));
	GP_TRY(GROW(g->from, g->from_cap, g->nn + 1));
	GP_TRY(reserve_edges(g, n)); /* at most one edge per node */
	tst = g->tst;
	for (k = 0; k < nt; k++)
		tst[k] = (struct tstate){ NONE, NONE, NONE, 0 };
	below = g->from; /* the stacks' links: gp__cp_longest's, free until then */
	for (k = 0; k < n; k++) {
		uint32_t nd = cpun[k], tr = cpt[k];
		struct tstate *s;

		/* HTA: a thread holding a row with a stream is no call stack */
		if (tskip[tr] && !t->tracks[tr].gpu)
			continue;
		s = &tst[tr];
		if (!(nat[nd] & NA_END)) {
			if (s->last != NONE && !shares_lock(nat[s->last], nat[nd])) {
				uint32_t attr = !(nat[s->last] & NA_END) ? nev[s->last] : s->parent;

				add_edge(g, s->last, nd, s->depth == 0 ? E_DEP : E_OP, false, attr);
			}
			s->parent = s->top != NONE ? nev[s->top] : NONE;
			s->last = nd;
			below[nd] = s->top;
			s->top = nd;
			s->depth++;
		} else if (s->top != NONE) {
			uint32_t ev = nev[s->top], e2 = enode[ev];

			s->top = below[s->top];
			if (s->last != NONE && !shares_lock(nat[s->last], nat[e2])) {
				uint32_t attr = !(nat[s->last] & NA_END) ? nev[s->last] : ev;
				bool bl = (nat[e2] & NA_BLOCK) != 0;

				add_edge(g, s->last, e2, E_OP, bl && hta, attr);
				g->e[g->ne - 1].blocking = bl;
				g->nblock += bl;
			}
			s->parent = s->top != NONE ? nev[s->top] : NONE;
			s->last = e2;
			s->depth--;
		}
	}
out:
	memset(g->tskip, 0, t->ntracks);
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
	uint32_t from, to;
	int64_t k0, k1;
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	g->ne = 0;
	g->nn = 0;
	g->nblock = 0;
	g->backward = false;
	GP_TRY(collect(g, start, end, &k0, &k1));
	p->nev = g->nw + g->nws;
	fwd_bwd(g, start, end, &from, &to);
	GP_TRY(make_nodes(g, k0, k1, from, to));
	GP_TRY(pass_stacks(g, from, to));
	GP_TRY(gp__cp_pass_kernels(g, &same, &nolaunch));
	if (!g->hta && !g->have_sync)
		GP_TRY(gp__cp_pass_fallback_syncs(g));
	if (!g->hta && g->nblock) {
		/* a blocking call whose wait the graph explains adds no CPU time of its own */
		for (i = 0; i < g->ne; i++)
			if (g->e[i].blocking && (g->nat[g->e[i].v] & NA_SYNC))
				g->e[i].w = 0;
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
