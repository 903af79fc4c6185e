/* SPDX-License-Identifier: MIT */
/*
 * critpath-stacks.c - pass 2 of a window's critical-path graph
 * (critpath-graph.c builds the nodes and pass 1): the call stack of each
 * thread, HTA _construct_graph_from_call_stack. HTA walks each thread's CPU
 * nodes in its order (compare_events: by time; at one time ends before
 * starts, ends shortest first, then the later event, starts longest first,
 * then the earlier event) with a stack of the open events, an edge from the
 * node visited last to each node. Each node gets at most one edge in and
 * one out of this pass, so the threads may be walked in any interleaving:
 * the edges into and out of each node keep HTA's order, which is all the
 * path and the generations read of the edge order.
 *
 * Where the events of every thread nest, HTA's order of a thread is the
 * order of a sweep over its events by start (collect's runs of each kind,
 * in the order of the context's lists, merged) that closes the events on its stack ending no later
 * than each start: the sweep visits the events, not the nodes, with no list of the nodes and no
 * sort of the runs at one time. An event that outlasts the one open around it stops the sweep; its
 * edges are taken back and the nodes are walked in HTA's order instead.
 * docs/analyses/critical-path.md.
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

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

/* tie_order, with the usual run of two nodes ordered in place */
static int tie_run(struct gp__cp *g, uint32_t *ord, uint32_t *tr, size_t n)
{
	uint32_t e0, e1;
	bool swap;

	if (n != 2)
		return tie_order(g, ord, tr, n);
	e0 = g->nat[ord[0]] & NA_END;
	e1 = g->nat[ord[1]] & NA_END;
	if (tr[0] != tr[1]) {
		swap = tr[0] > tr[1];
	} else if (e0 != e1) {
		swap = e1 != 0; /* ends first */
	} else {
		uint32_t v0 = g->nev[ord[0]], v1 = g->nev[ord[1]];
		int64_t d0 = g->c->dur[v0] < 0 ? 0 : g->c->dur[v0];
		int64_t d1 = g->c->dur[v1] < 0 ? 0 : g->c->dur[v1];

		if (e0) /* ends: shortest first, then the later event */
			swap = d1 < d0 || (d1 == d0 && v1 > v0);
		else /* starts: longest first, then the earlier event */
			swap = d1 > d0 || (d1 == d0 && v1 < v0);
	}
	if (swap) {
		uint32_t x = ord[0], y = tr[0];

		ord[0] = ord[1];
		ord[1] = x;
		tr[0] = tr[1];
		tr[1] = y;
	}
	return 0;
}

/*
 * The CPU nodes of the window in node order, each run at one time in HTA's
 * order (tie_run), into cpun, their threads (@p from merged into @p to)
 * into cpt.
 */
static int list_cpu(struct gp__cp *g, uint32_t from, uint32_t to)
{
	const uint32_t *track = g->t->ev.track, *nev = g->nev;
	const int64_t *nts = g->nts;
	const uint8_t *nat = g->nat;
	size_t nd, ncpu = 0, run = 0, m = g->nn;
	int64_t run_ts = 0;
	int rc = 0;

	GP_TRY(GROW(g->cpun, g->cpun_cap, m + 1));
	GP_TRY(GROW(g->cpt, g->cpt_cap, m + 1));
	for (nd = 0; nd < m; nd++) {
		uint32_t tr;

		if (!(nat[nd] & NA_CPU))
			continue;
		if (!ncpu || nts[nd] != run_ts) {
			if (ncpu - run > 1)
				GP_TRY(tie_run(g, g->cpun + run, g->cpt + run, ncpu - run));
			run = ncpu;
			run_ts = nts[nd];
		}
		tr = track[nev[nd]];
		g->cpt[ncpu] = tr == from ? to : tr;
		g->cpun[ncpu++] = (uint32_t)nd;
	}
	if (ncpu - run > 1)
		GP_TRY(tie_run(g, g->cpun + run, g->cpt + run, ncpu - run));
	g->ncpu = ncpu;
out:
	return rc;
}

/*
 * Pass 2 by nodes, for any nesting: all threads in one pass in node order
 * (list_cpu listed the CPU nodes, those at one time in HTA's order), each
 * with its own state.
 */
static int by_nodes(struct gp__cp *g)
{
	const struct gp_trace *t = g->t;
	const uint32_t *cpun = g->cpun, *cpt = g->cpt, *nev = g->nev, *enode = g->enode;
	const uint8_t *nat = g->nat;
	const uint8_t *tskip = g->tskip;
	size_t k, n = g->ncpu, nt = t->ntracks;
	uint32_t *below;
	struct tstate *tst;
	bool hta = g->hta;
	int rc = 0;

	tst = g->tst; /* gp__cp_pass_stacks made room for the states, links and edges */
	for (k = 0; k < nt; k++)
		tst[k] = (struct tstate){ NONE, NONE, NONE, 0, 0 };
	below = g->from; /* the stacks' links: gp__cp_longest's, free until then */
	for (k = 0; k < n; k++) {
		uint32_t nd = cpun[k], tr = cpt[k];
		struct tstate *s;

		if (tskip[tr])
			continue;
		s = &tst[tr];
		if (!(nat[nd] & NA_END)) {
			if (s->last != NONE && !shares_lock(nat[s->last], nat[nd])) {
				if (s->depth == 0)
					add_edge_uv(g, s->last, nd, E_DEP, false, NONE);
				else
					add_edge_uv(g, s->last, nd, E_OP, false,
					            !(nat[s->last] & NA_END) ? nev[s->last]
					                                     : s->parent);
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

				add_edge_uv(g, s->last, e2, E_OP, bl && hta, attr);
				if (bl && !hta) {
					GP_TRY(GROW(g->bedge, g->bedge_cap, g->nblock + 1));
					g->bedge[g->nblock++] = (uint32_t)(g->ne - 1);
				}
			}
			s->parent = s->top != NONE ? nev[s->top] : NONE;
			s->last = e2;
			s->depth--;
		}
	}
out:
	return rc;
}

/*
 * The sweep's state, in locals: the graph's edge arrays (add_edge_uv's, the
 * count written back at the end) and the tables it reads. A thread's state
 * in the sweep is its tstate's last, top and top_end (parent and depth are
 * by_nodes': the sweep reads nev[top] and top != NONE for them); the stack
 * links each start node to the one below it (below) and that one's end
 * (bend).
 */
struct sweep {
	struct gp__cp *g;
	struct edge *e;
	uint32_t *head, *reach, *below, *bedge;
	int64_t *bend;
	const int64_t *nts, *ts, *dur;
	const uint32_t *track, *snode, *enode, *nev;
	const uint8_t *tskip, *nat;
	struct tstate *tst;
	size_t ne, nblock;
	uint32_t from, to;
	bool hta, backward;
};

/* add_edge_uv on the sweep's locals */
static inline __attribute__((always_inline)) void sw_edge(struct sweep *w, uint32_t u, uint32_t v,
                                                          enum etype type, bool zero, uint32_t attr)
{
	struct edge *e = &w->e[w->ne];
	int64_t x = zero || type == E_DEP ? 0 : w->nts[v] - w->nts[u];

	e->w = w->hta || x >= 0 ? x : 0;
	e->u = u;
	e->v = v;
	e->attr = type == E_OP ? attr : NONE;
	e->next = w->head[v];
	e->type = (uint32_t)type;
	w->head[v] = (uint32_t)w->ne++;
	if (u > v) {
		w->backward = true;
		if (u > w->reach[v])
			w->reach[v] = u;
	}
}

/*
 * The sweep's visit of the end of the event open on top of a thread's
 * stack (start node *@p top, the thread's last node *@p last): the edge
 * from the last node to the end node, the stack popped.
 */
static inline __attribute__((always_inline)) void sw_close(struct sweep *w, uint32_t *top,
                                                           int64_t *top_end, uint32_t *last)
{
	uint32_t t = *top, ev = w->nev[t], e2 = w->enode[ev], l = *last;
	uint8_t xl = w->nat[l], x2 = w->nat[e2];

	*top = w->below[t];
	*top_end = w->bend[t];
	/* l != NONE: at least t's start was visited; e2 is an end: shares_lock is the lock bits */
	if (!(xl & x2 & NA_LOCK)) {
		bool bl = (x2 & NA_BLOCK) != 0;

		sw_edge(w, l, e2, E_OP, bl && w->hta, !(xl & NA_END) ? w->nev[l] : ev);
		if (bl && !w->hta) /* room: one per CPU event, made by sweep */
			w->bedge[w->nblock++] = (uint32_t)(w->ne - 1);
	}
	*last = e2;
}

/* the edges from @p ne0 on taken back (before pass 2 no edge went backward) */
static void take_back(struct gp__cp *g, size_t ne0)
{
	while (g->ne > ne0) {
		const struct edge *e = &g->e[--g->ne];

		g->head[e->v] = e->next;
		if (e->u > e->v)
			g->reach[e->v] = 0;
	}
	g->backward = false;
	g->nblock = 0;
}

/*
 * CPU event @p ev of the window in the sweep: the events on its thread's
 * stack ending no later than its start closed, then its start visited and
 * pushed. false: it outlasts the event open around it.
 */
static inline __attribute__((always_inline)) bool visit(struct sweep *w, uint32_t ev)
{
	uint32_t tr, top, last, nd;
	struct tstate *s;
	int64_t t0, t1, top_end;
	uint8_t xn;

	tr = w->track[ev];
	tr = tr == w->from ? w->to : tr;
	if (w->tskip[tr])
		return true;
	s = &w->tst[tr];
	top = s->top;
	top_end = s->top_end;
	last = s->last;
	t0 = w->ts[ev];
	t1 = t0 + w->dur[ev];
	while (top != NONE && top_end <= t0)
		sw_close(w, &top, &top_end, &last);
	if (top != NONE && t1 > top_end) {
		s->top = top;
		s->top_end = top_end;
		s->last = last;
		return false;
	}
	nd = w->snode[ev];
	xn = w->nat[nd];
	/* nd is a start: shares_lock(last, nd) is both locking and last a start */
	if (last != NONE && !(w->nat[last] & xn & NA_LOCK && !(w->nat[last] & NA_END))) {
		if (top == NONE)
			sw_edge(w, last, nd, E_DEP, false, NONE);
		else /* the event open around a start or the one that ended */
			sw_edge(w, last, nd, E_OP, false,
			        !(w->nat[last] & NA_END) ? w->nev[last] : w->nev[top]);
	}
	w->below[nd] = top;
	w->bend[nd] = top_end;
	s->top = nd;
	s->top_end = t1;
	s->last = nd;
	return true;
}

/* visit over @p cev[0..n), with --compat hta (@p hta) a constant in its loop */
static inline __attribute__((always_inline)) bool visit_all(struct sweep *w, const uint32_t *cev,
                                                            size_t n, bool hta)
{
	size_t i;

	w->hta = hta;
	for (i = 0; i < n; i++)
		if (!visit(w, cev[i]))
			return false;
	return true;
}

/* whether event @p x comes before @p y in the context's lists: by start, longest first, index */
static inline bool before(const int64_t *ts, const int64_t *dur, uint32_t x, uint32_t y)
{
	return ts[x] < ts[y] ||
	       (ts[x] == ts[y] && (dur[x] > dur[y] || (dur[x] == dur[y] && x < y)));
}

/*
 * The window's CPU events in the order of the context's lists (start, then
 * longest first, then the earlier event) over their kinds: collect's runs
 * of each kind (wcpu) merged into cev, two at a time (the third, driver
 * calls, is mostly empty). @return cev, or wcpu itself when one run holds
 * them all.
 */
static const uint32_t *merge_runs(struct gp__cp *g)
{
	const int64_t *ts = g->c->ts, *dur = g->c->dur;
	const uint32_t *w = g->wcpu, *a, *b;
	uint32_t *out = g->cev, *o;
	size_t r[4] = { 0, g->kend_cpu[0], g->kend_cpu[1], g->kend_cpu[2] }, pos[3], lim[3];
	size_t nk = 0, k;

	for (k = 0; k < 3; k++) {
		pos[nk] = r[k];
		lim[nk] = r[k + 1];
		nk += r[k] < r[k + 1];
	}
	if (nk <= 1)
		return w + (nk ? pos[0] : 0);
	o = out;
	while (nk == 3) {
		size_t m = before(ts, dur, w[pos[1]], w[pos[0]]);

		m = before(ts, dur, w[pos[2]], w[pos[m]]) ? 2 : m;
		*o++ = w[pos[m]++];
		if (pos[m] == lim[m]) { /* the run is done */
			nk--;
			for (k = m; k < nk; k++) {
				pos[k] = pos[k + 1];
				lim[k] = lim[k + 1];
			}
		}
	}
	a = w + pos[0];
	b = w + pos[1];
	{
		const uint32_t *ae = w + lim[0], *be = w + lim[1];
		uint32_t xa = *a, xb = *b;
		int64_t ta = ts[xa], da = dur[xa], tb = ts[xb], db = dur[xb];

		for (;;) {
			if (tb < ta || (tb == ta && (db > da || (db == da && xb < xa)))) {
				*o++ = xb;
				if (++b == be)
					break;
				xb = *b;
				tb = ts[xb];
				db = dur[xb];
			} else {
				*o++ = xa;
				if (++a == ae)
					break;
				xa = *a;
				ta = ts[xa];
				da = dur[xa];
			}
		}
		while (a < ae)
			*o++ = *a++;
		while (b < be)
			*o++ = *b++;
	}
	return out;
}

/*
 * Pass 2 by a sweep over the window's CPU events (collect's: starting in
 * the window, dur > 0) in the order of the context's lists (merge_runs).
 * *@p nested false: an event outlasts the one open around it on its
 * thread (the edges of the sweep taken back).
 */
static int sweep(struct gp__cp *g, uint32_t from, uint32_t to, bool *nested)
{
	const struct gp__actx *c = g->c;
	const uint32_t *cev;
	struct sweep w;
	size_t n = g->ncev, k, ne0 = g->ne;
	bool ok = true;
	int rc = 0;

	*nested = true;
	GP_TRY(GROW(g->bedge, g->bedge_cap, n + 1));
	GP_TRY(GROW(g->cev, g->cev_cap, n + 1));
	GP_TRY(GROW(g->dist, g->dist_cap, g->nn + 1)); /* bend: gp__cp_longest's, free until then */
	cev = merge_runs(g);
	w = (struct sweep){ .g = g,
		            .e = g->e,
		            .head = g->head,
		            .reach = g->reach,
		            .below = g->from,
		            .bedge = g->bedge,
		            .bend = g->dist,
		            .nts = g->nts,
		            .ts = c->ts,
		            .dur = c->dur,
		            .track = g->t->ev.track,
		            .snode = g->snode,
		            .enode = g->enode,
		            .nev = g->nev,
		            .tskip = g->tskip,
		            .nat = g->nat,
		            .tst = g->tst,
		            .ne = g->ne,
		            .nblock = g->nblock,
		            .from = from,
		            .to = to,
		            .hta = g->hta,
		            .backward = g->backward };
	ok = g->hta ? visit_all(&w, cev, n, true) : visit_all(&w, cev, n, false);
	g->ne = w.ne;
	g->nblock = w.nblock;
	g->backward = w.backward;
	if (!ok) {
		take_back(g, ne0);
		*nested = false;
		return 0;
	}
	for (k = 0; k < g->t->ntracks; k++) {
		struct tstate *s = &g->tst[k];

		while (s->top != NONE)
			sw_close(&w, &s->top, &s->top_end, &s->last);
	}
	g->ne = w.ne;
	g->nblock = w.nblock;
	g->backward = w.backward;
out:
	return rc;
}

int gp__cp_pass_stacks(struct gp__cp *g, uint32_t from, uint32_t to)
{
	const struct gp_trace *t = g->t;
	uint8_t *tskip = g->tskip;
	size_t k, nt = t->ntracks;
	bool nested;
	int rc = 0;

	if (from != NONE) {
		tskip[to] |= tskip[from];
		tskip[from] = 0;
	}
	GP_TRY(GROW(g->tst, g->tst_cap, nt + 1));
	GP_TRY(GROW(g->from, g->from_cap, g->nn + 1));
	GP_TRY(reserve_edges(g, 2 * g->ncev)); /* at most one edge per CPU node */
	for (k = 0; k < nt; k++) {
		g->tst[k] = (struct tstate){ NONE, NONE, NONE, 0, 0 };
		/* HTA: a thread holding a row with a stream is no call stack */
		tskip[k] = tskip[k] && !t->tracks[k].gpu;
	}
	nested = false;
	if (!g->by_nodes)
		GP_TRY(sweep(g, from, to, &nested));
	g->swept = nested;
	if (!nested) {
		GP_TRY(list_cpu(g, from, to));
		GP_TRY(by_nodes(g));
	}
out:
	memset(g->tskip, 0, nt);
	return rc;
}
