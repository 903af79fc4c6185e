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
 * sort of keys that pack time, event and end (their integer order is node
 * order), one pass that fills the nodes and runs the lock pass, the call
 * stacks of all threads by a sweep over the events (critpath-stacks.c), the
 * kernels from a list (critpath-kernels.c); add_edge keeps each node's
 * incoming edges for the path. Everything is iterative (no recursion that
 * input can deepen) and allocated per analysis in buffers reused across
 * windows. docs/analyses/critical-path.md.
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

/* the forward and backward threads seen so far (fwd_bwd) */
struct fb {
	uint32_t fwd, bwd;
	bool fwd_many, bwd_many;
};

/* CPU op or annotation @p ev of the window (dur > 0, HTA: no row with a stream) for fwd_bwd */
static void fb_note(struct gp__cp *g, struct fb *fb, uint32_t ev)
{
	uint16_t f = gp__cp_ev_flags(g, ev);
	uint32_t tr = g->t->ev.track[ev];

	if (f & NF_FWD) {
		if (fb->fwd == NONE)
			fb->fwd = tr;
		else if (fb->fwd != tr)
			fb->fwd_many = true;
	}
	if (f & NF_AUTOGRAD) {
		if (fb->bwd == NONE)
			fb->bwd = tr;
		else if (fb->bwd != tr)
			fb->bwd_many = true;
	}
}

/* the window's GPU-side events so far: collect's, in locals */
struct win {
	const uint8_t *role;
	const int64_t *ts, *dur;
	uint32_t *wsync, *enode;
	uint64_t *key;
	size_t nw, nws;
	uint64_t base;  /* the keys' times are offsets from it (the window's start) */
	unsigned kbits; /* the bits below a key's time: event << 1 | end */
	int64_t lo, hi; /* the earliest and the latest time */
};

/*
 * The GPU events @p lgpu[j..je) a CPU event of the window launched: sync
 * events get no nodes, kernels a start and an end key, time offset << kbits
 * | event << 1 | end, which sort in node order; enode holds its collection
 * index until make_nodes.
 */
static void add_gpu(struct win *w, const uint32_t *lgpu, uint32_t j, uint32_t je)
{
	for (; j < je; j++) {
		uint32_t ev = lgpu[j];
		uint8_t r = w->role[ev];
		int64_t ts, te, lo, hi;
		uint64_t k = (uint64_t)ev << 1;
		size_t i;

		if (!(r & (RO_KERNEL | RO_SYNC)))
			continue;
		if (!(r & RO_KERNEL)) {
			w->wsync[w->nws++] = ev;
			continue;
		}
		ts = w->ts[ev];
		te = ts + w->dur[ev];
		lo = ts < te ? ts : te;
		hi = ts ^ te ^ lo;
		i = w->nw++;
		w->enode[ev] = (uint32_t)i;
		w->key[2 * i] = ((uint64_t)ts - w->base) << w->kbits | k;
		w->key[2 * i + 1] = ((uint64_t)te - w->base) << w->kbits | k | 1;
		w->lo = lo < w->lo ? lo : w->lo;
		w->hi = hi > w->hi ? hi : w->hi;
	}
}

/*
 * The window's events: CPU nodes starting in it (dur > 0) and the GPU events
 * they launched, their keys in key (2 per event with nodes, offsets from
 * @p start), their span in [*lo, *hi]; the CPU ops named for fwd_bwd
 * noted in @p fb. The buffers are sized first for the CPU events in the
 * window's range and every GPU event linked (each is in at most one
 * window's list once), so the loop checks no room.
 */
static __attribute__((noinline)) int collect(struct gp__cp *g, int64_t start, int64_t end,
                                             unsigned kbits, struct fb *fb, int64_t *lo,
                                             int64_t *hi)
{
	static const enum gp_kind kinds[] = { GP_K_CPU_OP, GP_K_RUNTIME, GP_K_DRIVER };
	const struct gp__actx *c = g->c;
	const uint32_t *loff = g->loff, *lgpu = g->lgpu;
	const uint8_t *role = g->role;
	const int64_t *ts = c->ts, *dur = c->dur;
	size_t pos[GP_ARRAY_SIZE(kinds)], lim[GP_ARRAY_SIZE(kinds)], need = loff[g->n], k;
	struct win w;
	uint32_t *enode = g->enode, *wblk, *wcpu;
	uint64_t *key, base = (uint64_t)start;
	size_t nw = 0, nwb = 0, ncev = 0;
	int64_t wlo = INT64_MAX, whi = INT64_MIN;
	bool hta = g->hta;
	int rc = 0;

	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const struct gp__idx *ix = &c->by_kind[kinds[k]];

		pos[k] = gp__first_at(c, ix, start);
		lim[k] = gp__cp_first_after(c, ix, end);
		need += lim[k] - pos[k];
	}
	if (need >= NONE / 2)
		return gp__error(GP_ELIMIT, "too many nodes in the critical-path graph");
	/* the syncs are GPU-side events, the blocking calls CPU events */
	GP_TRY(GROW(g->wsync, g->wsync_cap, loff[g->n] + 1));
	GP_TRY(GROW(g->wblk, g->wblk_cap, need - loff[g->n] + 1));
	GP_TRY(GROW(g->wcpu, g->wcpu_cap, need - loff[g->n] + 1));
	GP_TRY(GROW(g->key, g->key_cap, 2 * need + 2));
	wcpu = g->wcpu;
	wblk = g->wblk;
	key = g->key;
	w = (struct win){ .role = role,
		          .ts = ts,
		          .dur = dur,
		          .wsync = g->wsync,
		          .enode = enode,
		          .key = key,
		          .base = base,
		          .kbits = kbits,
		          .lo = INT64_MAX,
		          .hi = INT64_MIN };
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const uint32_t *v = c->by_kind[kinds[k]].v;
		size_t i, ie = lim[k];

		for (i = pos[k]; i < ie; i++) {
			uint32_t ev = v[i], j, je;
			uint8_t r = role[ev];
			int64_t t0 = ts[ev], d = dur[ev], t1;
			uint64_t kk = (uint64_t)ev << 1;

			if (d <= 0 || !(r & RO_CPU))
				continue;
			if (r & (RO_FB | RO_BLOCK)) {
				if (r & RO_FB) /* fwd_bwd's filter is this one for CPU ops */
					fb_note(g, fb, ev);
				if (r & RO_BLOCK)
					wblk[nwb++] = ev;
			}
			/* a CPU event of the range starts in it, at or after start */
			t1 = t0 + d;
			wcpu[ncev] = ev;
			enode[ev] = (uint32_t)nw;
			key[2 * nw] = ((uint64_t)t0 - base) << kbits | kk;
			key[2 * nw + 1] = ((uint64_t)t1 - base) << kbits | kk | 1;
			nw++;
			ncev++;
			whi = t1 > whi ? t1 : whi;
			j = loff[ev];
			je = loff[ev + 1];
			if (j == je)
				continue;
			/* HTA joins a call with one GPU event: the last of its correlation */
			if (hta)
				j = je - 1;
			w.nw = nw;
			add_gpu(&w, lgpu, j, je);
			nw = w.nw;
		}
		g->kend_cpu[k] = ncev;
	}
	/* the earliest CPU start: the first of each kind's run (sorted by start) */
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		size_t first = k ? g->kend_cpu[k - 1] : 0;

		if (first < g->kend_cpu[k] && ts[wcpu[first]] < wlo)
			wlo = ts[wcpu[first]];
	}
	g->nw = nw;
	g->ncev = ncev;
	g->nws = w.nws;
	g->nwb = nwb;
	*lo = wlo < w.lo ? wlo : w.lo;
	*hi = whi > w.hi ? whi : w.hi;
out:
	return rc;
}

/* the bits of @p x (0 for 0) */
static inline unsigned width(uint64_t x)
{
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/*
 * The keys' times as offsets from *@p k0 (@p start, or the earliest time
 * @p lo when one lies before it) in 63 - @p kbits bits, the latest in
 * *@p span; a span too wide for that: their ranks (the library's sort,
 * which keeps their order), *@p ranked.
 */
static int pack_keys(struct gp__cp *g, int64_t start, int64_t lo, int64_t hi, unsigned kbits,
                     int64_t *k0, uint64_t *span, bool *ranked)
{
	const int64_t *ts = g->c->ts, *dur = g->c->dur;
	size_t i, m = 2 * g->nw;
	uint64_t rank = 0, *key = g->key;
	uint64_t evmask = (UINT64_C(1) << (kbits - 1)) - 1;
	int64_t last = 0;
	int rc = 0;

	*ranked = false;
	*k0 = start;
	*span = (uint64_t)hi - (uint64_t)start;
	if (lo >= start && width(*span) + kbits <= 63)
		return 0; /* as collect packed them */
	*k0 = lo;
	*span = (uint64_t)hi - (uint64_t)lo;
	if (width(*span) + kbits <= 63) {
		for (i = 0; i < g->nw; i++) {
			uint32_t ev = (uint32_t)((key[2 * i] >> 1) & evmask);
			uint64_t kk = (uint64_t)ev << 1;

			key[2 * i] = ((uint64_t)ts[ev] - (uint64_t)lo) << kbits | kk;
			key[2 * i + 1] =
			    ((uint64_t)(ts[ev] + dur[ev]) - (uint64_t)lo) << kbits | kk | 1;
		}
		return 0;
	}
	GP_TRY(GROW(g->kv, g->kv_cap, m));
	GP_TRY(GROW(g->kv2, g->kv2_cap, m));
	for (i = 0; i < m; i++) {
		uint32_t ev = (uint32_t)((key[i] >> 1) & evmask);

		g->kv[i].key = ts[ev] + (i & 1 ? dur[ev] : 0);
		g->kv[i].val = i;
	}
	GP_TRY(gp__sort_kv_with(g->kv, m, g->kv2));
	for (i = 0; i < m; i++) {
		size_t j = (size_t)g->kv[i].val;

		rank += i && g->kv[i].key != last;
		last = g->kv[i].key;
		key[j] = rank << kbits | (key[j] & ((evmask << 1) | 1)); /* its event and end */
	}
	*k0 = 0;
	*span = rank;
	*ranked = true;
out:
	return rc;
}

/*
 * The forward and backward threads (HTA _get_fwd_tid/_get_bwd_tid): the only
 * thread with a CPU op or annotation named "*forward*" (resp. "*autograd*")
 * in the window; the backward one is merged into the forward one. collect
 * noted the CPU ops in @p fb; the annotations are added here.
 */
static void fwd_bwd(struct gp__cp *g, int64_t start, int64_t end, struct fb *fb, uint32_t *from,
                    uint32_t *to)
{
	const struct gp__actx *c = g->c;
	const struct gp__idx *ix = &c->by_kind[GP_K_USER_ANNOTATION];
	size_t i;

	*from = *to = NONE;
	for (i = gp__first_at(c, ix, start); i < ix->n && c->ts[ix->v[i]] <= end; i++) {
		uint32_t ev = ix->v[i];

		if (c->dur[ev] <= 0 || (g->hta && gp__cp_hta_row(g->t, ev)))
			continue;
		fb_note(g, fb, ev);
	}
	if (fb->fwd != NONE && fb->bwd != NONE && !fb->fwd_many && !fb->bwd_many &&
	    fb->fwd != fb->bwd) {
		*from = fb->bwd;
		*to = fb->fwd;
	}
}

/*
 * The kernel and lock nodes make_nodes listed in @p spec (node order; a
 * kernel end's collection index in the high half): the kernel start nodes
 * (kern), the kernel ends for pass_fallback_syncs (kend), HTA's threads
 * with kernel nodes (tskip), and pass 1, the runtime lock across threads
 * (HTA _construct_graph_from_cuda_runtime_events) over the lock nodes in
 * node order.
 */
static void special_nodes(struct gp__cp *g, const uint64_t *spec, size_t ns)
{
	const uint32_t *nev = g->nev, *track = g->t->ev.track;
	const uint8_t *nat = g->nat;
	const int64_t *nts = g->nts;
	bool fallback = !g->hta && !g->have_sync, hta = g->hta;
	uint32_t *kern = g->kern, *stk = g->stk, last = NONE;
	struct gp_kv *kend = g->kend;
	size_t i, nst = 0, nkern = 0, nkend = 0;

	for (i = 0; i < ns; i++) {
		uint32_t nd = (uint32_t)spec[i], ev = nev[nd];
		uint8_t a = nat[nd];

		if (a & NA_KERNEL) {
			if (!(a & NA_END))
				kern[nkern++] = nd;
			else if (fallback) {
				kend[nkend].key = nts[nd];
				kend[nkend++].val = (spec[i] & ~(uint64_t)UINT32_MAX) | ev;
			}
			/* HTA: threads with kernel nodes hold no call stack (gp__cp_pass_stacks) */
			if (hta && !(a & NA_CPU))
				g->tskip[track[ev]] = 1;
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
					add_edge_uv(g, p, nd, E_OP, false, ev);
				else
					add_edge_uv(g, p, nd, E_DEP, false, NONE);
			}
			if (last != NONE && (nat[last] & NA_END))
				add_edge_uv(g, last, nd, E_DEP, false, NONE);
		}
		last = nd;
	}
	g->nkern = nkern;
	g->nkend = nkend;
}

/*
 * Nodes: a start and an end per event with nodes, in (time, event, start
 * first) order: the order of collect's keys, which go to about one bucket
 * per key by time, then one insertion pass moves each key within its
 * bucket (mostly one or two keys; past a few moves per key the library's
 * sort finishes, never quadratic), then the nodes are filled with what the later passes read of
 * them, the kernel and lock nodes listed (in key, free by then) for special_nodes. The hot loops
 * read the arrays through locals (a byte store would make the compiler reload every field of g).
 */
static __attribute__((noinline)) int make_nodes(struct gp__cp *g, int64_t start, int64_t lo,
                                                int64_t hi, unsigned kbits)
{
	const uint8_t *role = g->role;
	size_t i, m = 2 * g->nw, nb, b, ns = 0;
	int64_t k0;
	unsigned sh, lg, bsh;
	uint64_t *key, *out, span, evmask = (UINT64_C(1) << (kbits - 1)) - 1;
	bool fallback = !g->hta && !g->have_sync, ranked;
	uint32_t *cnt, *nev, *head, *reach, *snode = g->snode, *enode = g->enode, nd,
	                                    m32 = (uint32_t)m;
	int64_t *nts;
	uint8_t *nat;
	int rc = 0;

	g->nn = g->nkern = g->nkend = 0;
	if (!m)
		return 0;
	GP_TRY(pack_keys(g, start, lo, hi, kbits, &k0, &span, &ranked));
	/* buckets of time offset >> sh: at most 2^lg, no more than m */
	lg = 63 - (unsigned)__builtin_clzll((uint64_t)m);
	sh = width(span) > lg ? width(span) - lg : 0;
	bsh = kbits + sh;
	nb = (size_t)(span >> sh) + 1;
	GP_TRY(GROW(g->bcnt, g->bcnt_cap, nb + 1));
	GP_TRY(GROW(g->key2, g->key2_cap, m));
	GP_TRY(GROW(g->nts, g->nts_cap, m + 1));
	GP_TRY(GROW(g->nev, g->nev_cap, m + 1));
	GP_TRY(GROW(g->nat, g->nat_cap, m + 1));
	GP_TRY(GROW(g->head, g->head_cap, m + 1));
	GP_TRY(GROW(g->reach, g->reach_cap, m + 1));
	GP_TRY(GROW(g->kern, g->kern_cap, m + 1));
	GP_TRY(GROW(g->stk, g->stk_cap, m + 1));
	GP_TRY(GROW(g->kend, g->kend_cap, fallback ? m + 1 : 1));
	GP_TRY(reserve_edges(g, m)); /* pass 1: at most one edge per node */
	cnt = g->bcnt;
	key = g->key;
	out = g->key2;
	gp__cp_fill_u32(cnt, nb + 1, 0);
	for (i = 0; i < m; i++)
		cnt[(key[i] >> bsh) + 1]++;
	for (b = 1; b <= nb; b++)
		cnt[b] += cnt[b - 1];
	for (i = 0; i < m; i++)
		out[cnt[key[i] >> bsh]++] = key[i];
	/* now bucket b is out[cnt[b - 1]..cnt[b]): one insertion pass puts each key in place */
	{
		size_t j, moves = 0;

		for (i = 1; i < m; i++) {
			uint64_t x = out[i];

			if (out[i - 1] <= x)
				continue;
			for (j = i; j > 0 && out[j - 1] > x; j--)
				out[j] = out[j - 1];
			out[j] = x;
			moves += i - j;
			if (moves > 8 * m) { /* many keys in few buckets: the library's sort */
				GP_TRY(gp__sort_i64((int64_t *)out, m));
				break;
			}
		}
	}
	head = g->head;
	reach = g->reach;
	nev = g->nev;
	nts = g->nts;
	nat = g->nat;
	for (nd = 0; nd < m32; nd++) {
		uint64_t k = out[nd];
		uint32_t ev = (uint32_t)((k >> 1) & evmask);
		uint8_t a = role[ev] & RO_NODE_BITS;

		nev[nd] = ev;
		head[nd] = NONE;
		reach[nd] = 0;
		nts[nd] = (int64_t)((k >> kbits) + (uint64_t)k0);
		if (k & 1) {
			a |= NA_END;
			/* a kernel end keeps its collection index for pass_fallback_syncs */
			if (a & (NA_KERNEL | NA_LOCK))
				key[ns++] = (uint64_t)enode[ev] << 32 | nd;
			enode[ev] = nd;
		} else {
			snode[ev] = nd;
			if (a & (NA_KERNEL | NA_LOCK))
				key[ns++] = nd;
		}
		nat[nd] = a;
	}
	if (ranked) /* the keys held time ranks */
		for (nd = 0; nd < m32; nd++)
			nts[nd] = g->c->ts[nev[nd]] + (nat[nd] & NA_END ? g->c->dur[nev[nd]] : 0);
	g->nn = m;
	special_nodes(g, key, ns);
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
	struct fb fb = { NONE, NONE, false, false };
	bool same = false, nolaunch = false;
	uint32_t from, to;
	/* the keys' low bits: event << 1 | end (gp__cp_new bounds the events) */
	unsigned kbits = g->n ? width(2 * (uint64_t)g->n - 1) : 1;
	int64_t lo, hi;
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	g->ne = 0;
	g->nn = 0;
	g->nblock = 0;
	g->backward = false;
	GP_TRY(collect(g, start, end, kbits, &fb, &lo, &hi));
	p->nev = g->nw + g->nws;
	fwd_bwd(g, start, end, &fb, &from, &to);
	GP_TRY(make_nodes(g, start, lo, hi, kbits));
	GP_TRY(gp__cp_pass_stacks(g, from, to));
	GP_TRY(gp__cp_pass_kernels(g, &same, &nolaunch));
	if (!g->hta && !g->have_sync)
		GP_TRY(gp__cp_pass_fallback_syncs(g));
	/* gpuprof: a blocking call whose wait the graph explains adds no CPU time of its own */
	for (i = 0; i < g->nblock; i++)
		if (g->nat[g->e[g->bedge[i]].v] & NA_SYNC)
			g->e[g->bedge[i]].w = 0;
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
	if (rc) /* gp__cp_pass_stacks clears what make_nodes marked */
		memset(g->tskip, 0, g->t->ntracks);
	return rc;
}
