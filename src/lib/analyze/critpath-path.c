/* SPDX-License-Identifier: MIT */
/*
 * critpath-path.c - the longest path of a window's critical-path graph
 * (critpath-graph.c builds the graph) and the path as attributed segments.
 *
 * networkx's dag_longest_path over topological_sort, with its tie-breaking:
 * each node takes the first best predecessor in edge order, the path ends
 * at the first farthest node in the order of Kahn's generations. Each edge
 * of the path is attributed to what bounds it (HTA's bound_by).
 */
#include <string.h>

#include "critpath-int.h"
#include "util/error.h"

/* the farthest nodes so far, in the order their distances were set */
struct far {
	int64_t maxd;
	uint32_t best; /* the first at maxd */
	size_t nbest;  /* how many are */
};

/*
 * Node @p v's distance: each node takes the first best predecessor in edge
 * order (head lists the incoming edges newest first: the last of the best
 * in that list), all its predecessors' distances set.
 */
static inline void relax(struct gp__cp *g, uint32_t v, struct far *f)
{
	int64_t d = 0;
	uint32_t fe = NONE, k;

	for (k = g->head[v]; k != NONE; k = g->e[k].next) {
		const struct edge *e = &g->e[k];
		int64_t x = gp__add_sat(g->dist[e->u], e->w < 0 ? 0 : e->w);

		if (x >= d) { /* d starts at 0 and no x is negative */
			d = x;
			fe = k;
		}
	}
	g->dist[v] = d;
	g->from[v] = fe;
	if (d > f->maxd) {
		f->maxd = d;
		f->best = v;
		f->nbest = 1;
	} else if (d == f->maxd) {
		f->nbest++;
	}
}

/* Kahn's algorithm by generations (networkx topological_sort) into topo; *nt < nn: a cycle */
static int generations(struct gp__cp *g, size_t *nt_out)
{
	size_t nn = g->nn, ne = g->ne, i, j, nt = 0, head = 0;
	int rc = 0;

	GP_TRY(GROW(g->soff, g->soff_cap, nn + 2));
	GP_TRY(GROW(g->se, g->se_cap, ne + 1));
	GP_TRY(GROW(g->indeg, g->indeg_cap, nn + 1));
	GP_TRY(GROW(g->topo, g->topo_cap, nn + 1));
	memset(g->soff, 0, (nn + 2) * sizeof(uint32_t));
	memset(g->indeg, 0, nn * sizeof(uint32_t));
	for (i = 0; i < ne; i++) {
		g->soff[g->e[i].u + 2]++;
		g->indeg[g->e[i].v]++;
	}
	for (i = 2; i < nn + 2; i++)
		g->soff[i] += g->soff[i - 1];
	for (i = 0; i < ne; i++)
		g->se[g->soff[g->e[i].u + 1]++] = (uint32_t)i;
	for (i = 0; i < nn; i++)
		if (!g->indeg[i])
			g->topo[nt++] = (uint32_t)i;
	while (head < nt) {
		size_t gen_end = nt;

		for (; head < gen_end; head++) {
			uint32_t v = g->topo[head];

			for (j = g->soff[v]; j < g->soff[v + 1]; j++) {
				uint32_t ch = g->e[g->se[j]].v;

				if (--g->indeg[ch] == 0)
					g->topo[nt++] = ch;
			}
		}
	}
	*nt_out = nt;
out:
	return rc;
}

/* the longest run of nodes that local_order reorders before it builds the generations instead */
#define LOCAL_MAX 64

/* the last node of the run from node @p i that backward edges join, SIZE_MAX: too long */
static size_t run_end(const struct gp__cp *g, size_t i)
{
	size_t hi = g->reach[i], j;

	for (j = i; j <= hi; j++) {
		hi = g->reach[j] > hi ? g->reach[j] : hi;
		if (hi - i >= LOCAL_MAX)
			return SIZE_MAX;
	}
	return hi;
}

/*
 * The distances in a topological order (*nt < nn: a cycle), the runs' order
 * kept in topo (at their nodes' places; the other nodes in node order), of
 * a graph whose backward edges (u > v: nodes at one time put in another
 * order on their thread) join short runs of nodes: node order, each run of
 * nodes that backward edges span put in an order of its edges. Every other
 * edge goes forward from one run to a later one, and a cycle lies within one
 * run. *done false: a run longer than LOCAL_MAX; the caller builds the
 * generations. reach holds, per node, the farthest source of a backward edge
 * into it (0: none), from is scratch until relax sets it.
 */
static int local_order(struct gp__cp *g, struct far *f, size_t *nt_out, bool *done)
{
	size_t nn = g->nn, i, j, nt = 0;
	uint32_t *reach = g->reach, *placed, k;
	struct far f0 = *f;
	int rc = 0;

	*done = false;
	GP_TRY(GROW(g->topo, g->topo_cap, nn + 1));
	placed = g->from;
	for (i = 0; i < nn;) {
		size_t hi, left, moved;

		if (!reach[i]) {
			nt++;
			relax(g, (uint32_t)i++, &f0);
			continue;
		}
		if (reach[i] == i + 1 && !reach[i + 1]) {
			/* the usual run: node i + 1, then i (an edge i -> i + 1: a cycle) */
			for (k = g->head[i + 1]; k != NONE && g->e[k].u != i; k = g->e[k].next)
				;
			if (k != NONE)
				break; /* a cycle */
			g->topo[nt++] = (uint32_t)i + 1;
			g->topo[nt++] = (uint32_t)i;
			relax(g, (uint32_t)i + 1, &f0);
			relax(g, (uint32_t)i, &f0);
			i += 2;
			continue;
		}
		if ((hi = run_end(g, i)) == SIZE_MAX)
			return 0;
		/* nodes i..hi: place, pass after pass, each whose predecessors in the run are
		 * placed */
		for (j = i; j <= hi; j++)
			placed[j] = 0;
		left = hi - i + 1;
		do {
			moved = 0;
			for (j = i; j <= hi; j++) {
				bool ready = !placed[j];

				for (k = g->head[j]; ready && k != NONE; k = g->e[k].next) {
					uint32_t u = g->e[k].u;

					ready = u < i || placed[u];
				}
				if (ready) {
					placed[j] = 1;
					g->topo[nt++] = (uint32_t)j; /* nt is i + placed so far */
					moved++;
				}
			}
			left -= moved;
		} while (left && moved);
		if (left)
			break; /* a cycle */
		/* placed is from: the run's distances once it is placed */
		for (j = i; j <= hi; j++)
			relax(g, g->topo[j], &f0);
		i = hi + 1;
	}
	*nt_out = nt;
	*done = true;
	*f = f0;
out:
	return rc;
}

/* the kernel type of GPU event @p ev: the context's (typed once per name and kind) */
static enum gp_ktype ktype(const struct gp__cp *g, uint32_t ev)
{
	uint8_t rule;

	/* the context types its GPU activity, which leaves out HTA's GPU annotations */
	if (g->t->ev.kind[ev] != GP_K_GPU_ANNOTATION)
		return (enum gp_ktype)g->c->ktype[ev];
	return gp__classify(g->t, ev, g->hta, &rule);
}

/*
 * The first of the @p nbest nodes at distance @p maxd in the order of Kahn's
 * generations. A node's generation is the most edges on a path that ends at
 * it, so the tied nodes of the lowest generation come first: when that is
 * one node (or generation 0, which is in node order) it is the answer, found
 * in one sweep in topological order (node order when @p forward, else
 * local_order's: the runs in topo); else the generations are built.
 */
static int first_farthest(struct gp__cp *g, bool forward, int64_t maxd, size_t *best)
{
	size_t nn = g->nn, n, nt, nlow = 0, run_hi = 0;
	uint32_t *lev, low = UINT32_MAX, k;
	bool in_run = false;
	int rc = 0;

	GP_TRY(GROW(g->indeg, g->indeg_cap, nn + 1));
	lev = g->indeg;
	for (n = 0; n < nn; n++) {
		size_t i = n;
		uint32_t l = 0;

		/* local_order's: node order, runs in topo (run_end succeeded for each) */
		if (!forward && !in_run && g->reach[n]) {
			run_hi = run_end(g, n);
			in_run = true;
		}
		if (in_run) {
			i = g->topo[n];
			in_run = n < run_hi;
		}

		for (k = g->head[i]; k != NONE; k = g->e[k].next) {
			uint32_t lu = lev[g->e[k].u] + 1;

			l = lu > l ? lu : l;
		}
		lev[i] = l;
		if (g->dist[i] != maxd)
			continue;
		if (l < low) {
			low = l;
			nlow = 1;
			*best = i;
		} else if (l == low) {
			nlow++;
			if (i < *best) /* generation 0 is in node order */
				*best = i;
		}
	}
	if (nlow == 1 || low == 0)
		return 0;
	GP_TRY(generations(g, &nt));
	for (n = 0; n < nt; n++)
		if (g->dist[g->topo[n]] == maxd) {
			*best = g->topo[n];
			break;
		}
out:
	return rc;
}

/*
 * The longest path (networkx dag_longest_path over topological_sort): each
 * node takes the first best predecessor in edge order; the path ends at the
 * first farthest node in the order of Kahn's generations. The distances do
 * not depend on the order, so when every edge goes forward in node order
 * (the usual case) they are computed in node order, when backward edges
 * only join short runs of nodes in local_order's, and the generations are
 * built only to break a tie between farthest nodes. add_edge kept each
 * node's incoming edges (head) and whether an edge goes backward.
 */
int gp__cp_longest(struct gp__cp *g, struct gp__cp_path *p)
{
	size_t nn = g->nn, i, nt = nn, best;
	bool forward = !g->backward, local = false;
	struct far f = { -1, 0, 0 };
	uint32_t v;
	int rc = 0;

	GP_TRY(GROW(g->from, g->from_cap, nn + 1));
	GP_TRY(GROW(g->dist, g->dist_cap, nn + 1));
	if (forward) {
		for (i = 0; i < nn; i++)
			relax(g, (uint32_t)i, &f);
	} else {
		GP_TRY(local_order(g, &f, &nt, &local));
		if (!local) {
			f = (struct far){ -1, 0, 0 };
			GP_TRY(generations(g, &nt));
			if (nt == nn)
				for (i = 0; i < nn; i++)
					relax(g, g->topo[i], &f);
		}
		if (nt < nn) {
			p->ok = false;
			p->reason = "the dependency graph has a cycle";
			return 0;
		}
	}
	best = f.best;
	if ((forward || local) && f.nbest > 1) /* the first farthest node in networkx's order */
		GP_TRY(first_farthest(g, forward, f.maxd, &best));
	/* the path's edges, back from the farthest node, into the end of seg (at most nn - 1) */
	{
		size_t k;

		GP_TRY(GROW(g->seg, g->seg_cap, nn + 1));
		k = nn + 1;
		for (v = (uint32_t)best; g->from[v] != NONE; v = g->e[g->from[v]].u) {
			const struct edge *e = &g->e[g->from[v]];
			struct gp__cp_seg *s = &g->seg[--k];

			s->t0 = g->nts[e->u];
			s->t1 = g->nts[e->v];
			s->w = e->w;
			s->ev = e->attr;
			s->kind = GP_CP_SEG_EDGE;
			switch (e->type) {
			case E_KK:
				s->cat = GP_CP_KK;
				s->ev = NONE;
				break;
			case E_LAUNCH:
				s->cat = GP_CP_LAUNCH;
				s->ev = g->nev[e->v];
				break;
			case E_OP:
				/* gp__cp_is_gpu, read here once per segment */
				if (e->attr < g->n && (g->role[e->attr] & RO_GPUROW)) {
					s->cat = ktype(g, e->attr) == GP_KT_COMM ? GP_CP_COMM
					                                         : GP_CP_COMPUTE;
					s->kind = GP_CP_SEG_GPU;
				} else {
					s->cat = GP_CP_CPU;
					s->kind = GP_CP_SEG_CPU;
				}
				break;
			default:
				s->cat = GP_CP_NONE;
				s->ev = NONE;
			}
			if (s->cat < GP_CP__N)
				p->by_ns[s->cat] = gp__add_sat(p->by_ns[s->cat], s->w);
			p->path_ns = gp__add_sat(p->path_ns, s->w);
		}
		p->seg = g->seg + k;
		p->nseg = nn + 1 - k;
	}
out:
	return rc;
}
