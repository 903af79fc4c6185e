/* SPDX-License-Identifier: MIT */
/*
 * test_critpath_graph.c - the longest path of the critical-path graph
 * against its definition. Random steps (ops of several threads on a coarse
 * time grid, so that many nodes share a time and the call stacks add
 * backward edges; overlapping ops; runtime calls that take the lock, block
 * or launch kernels on two streams) go through gp__cp_window; the path it
 * returns must be the one networkx's dag_longest_path over
 * topological_sort gives on the same graph, computed here the plain way:
 * Kahn's generations with children in edge order, each node's first best
 * predecessor in edge order, the first farthest node in that order. Pass 2
 * (the call stacks) sweeps the events where they nest: on steps of nested
 * ops it must give each node the edges, in the order, that its walk by
 * nodes gives.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/critpath-int.h"

/* a small deterministic generator (tests must not depend on rand()'s implementation) */
static uint32_t rnd(uint64_t *s)
{
	*s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (uint32_t)(*s >> 33);
}

static int64_t grid(uint64_t *s, int64_t lo, int64_t hi, int64_t step)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)((hi - lo) / step + 1)) * step;
}

/* times in units of SCALE: some steps span more than the node sort packs with its keys */
static int64_t scale = 1;

static size_t op(struct gp_trace *t, enum gp_kind kind, const char *name, int64_t tid, int64_t ts,
                 int64_t dur)
{
	return tu_add(t, kind, name, 1, tid, ts * scale, dur * scale);
}

/* thread @p tid's ops: nested on the grid, some overlapping, launches and syncs inside */
static void add_thread(struct gp_trace *t, uint64_t *s, int64_t tid, int64_t *corr, bool many)
{
	static const char *const rt[] = { "cudaLaunchKernel", "cudaLaunchKernel", "cudaMemcpyAsync",
		                          "cudaDeviceSynchronize", "cudaStreamSynchronize" };
	int64_t at = grid(s, 0, 40, 10);
	int n = many ? 90 : 4 + (int)(rnd(s) % 8), i;

	for (i = 0; i < n; i++) {
		int64_t dur = grid(s, 10, 200, 10), c0 = at, k;
		int nk = (int)(rnd(s) % 3);
		const char *name = tid == 1 && i == 0   ? "forward"
		                   : tid == 2 && i == 0 ? "autograd::engine"
		                                        : "aten::op";

		op(t, GP_K_CPU_OP, name, tid, at, dur);
		if (many) { /* many ops starting and ending together: long runs of ties */
			op(t, GP_K_CPU_OP, "aten::inner", tid, at, dur / 2 ? dur / 2 : 10);
			continue;
		}
		for (k = 0; k < nk; k++) {
			const char *r = rt[rnd(s) % GP_ARRAY_SIZE(rt)];
			int64_t rd = grid(s, 10, 30, 10);

			c0 = grid(s, c0, at + dur - rd > c0 ? at + dur - rd : c0, 10);
			tu_runtime(t, r, 1, tid, c0 * scale, rd * scale, ++*corr);
			if (!strcmp(r, "cudaLaunchKernel") || !strcmp(r, "cudaMemcpyAsync"))
				tu_kernel(t, "K", 0, 7 + (int64_t)(rnd(s) % 2),
				          (c0 + grid(s, 0, 60, 10)) * scale,
				          grid(s, 0, 80, 10) * scale, *corr);
		}
		/* the next op: after this one, nested in it, or overlapping it */
		switch (rnd(s) % 4) {
		case 0:
			at += dur / 2 - (dur / 2) % 10;
			break;
		case 1:
			at += dur;
			break;
		default:
			at += dur + grid(s, 0, 30, 10);
		}
	}
}

/* the context of trace @p t, HTA's (@p hta) or gpuprof's */
static void ctx_init(struct gp__actx *c, struct gp_trace *t, bool hta)
{
	struct gp_analyze_opts o;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.compat = hta ? GP_COMPAT_HTA : GP_COMPAT_NONE;
	assert_int_equal(gp__actx_init(c, t, &o, 0), 0);
}

/*
 * thread @p tid's ops, nested: each op with a child or two inside, starting
 * or ending with it or not, runtime calls in either; the next op from its
 * end or later. Pass 2 sweeps such a thread.
 */
static void add_nested(struct gp_trace *t, uint64_t *s, int64_t tid, int64_t *corr)
{
	static const char *const rt[] = { "cudaLaunchKernel", "cudaMemcpyAsync",
		                          "cudaDeviceSynchronize", "cudaHostAlloc" };
	int64_t at = grid(s, 0, 40, 10);
	int n = 2 + (int)(rnd(s) % 6), i, k;

	for (i = 0; i < n; i++) {
		int64_t dur = grid(s, 40, 200, 10), c0, cd;

		op(t, GP_K_CPU_OP, tid == 1 && i == 0 ? "forward" : "aten::op", tid, at, dur);
		/* a child: at the op's start or later, to its end or earlier */
		c0 = rnd(s) % 2 ? at : grid(s, at, at + dur - 20, 10);
		cd = rnd(s) % 2 ? at + dur - c0 : grid(s, 10, at + dur - c0, 10);
		op(t, GP_K_CPU_OP, "aten::child", tid, c0, cd);
		if (rnd(s) % 2) /* a second one, of the same span: a tie of two starts and ends */
			op(t, GP_K_CPU_OP, "aten::twin", tid, c0, cd);
		for (k = 0; k < (int)(rnd(s) % 3); k++) { /* runtime calls in the child */
			const char *r = rt[rnd(s) % GP_ARRAY_SIZE(rt)];
			int64_t r0 = grid(s, c0, c0 + cd - 10, 10),
			        rd = grid(s, 10, c0 + cd - r0, 10);

			tu_runtime(t, r, 1, tid, r0 * scale, rd * scale, ++*corr);
			if (strcmp(r, "cudaDeviceSynchronize") && strcmp(r, "cudaHostAlloc"))
				tu_kernel(t, "K", 0, 7 + (int64_t)(rnd(s) % 2),
				          (r0 + grid(s, 0, 60, 10)) * scale,
				          grid(s, 0, 80, 10) * scale, *corr);
			if (rnd(s) % 4 == 0)
				break;
		}
		at += dur + (rnd(s) % 2 ? 0 : grid(s, 0, 30, 10));
	}
}

/* the edges into (@p in) or out of node @p nd in their order, as text into @p b */
static void node_edges(const struct gp__cp *g, uint32_t nd, bool in, char *b, size_t cap)
{
	size_t len = 0, k;

	b[0] = '\0';
	if (in) {
		for (k = g->head[nd]; k != NONE && len < cap; k = g->e[k].next)
			len += (size_t)snprintf(b + len, cap - len, "%u:%u:%u:%lld ", g->e[k].u,
			                        g->e[k].type, g->e[k].attr, (long long)g->e[k].w);
		return;
	}
	for (k = 0; k < g->ne && len < cap; k++)
		if (g->e[k].u == nd)
			len += (size_t)snprintf(b + len, cap - len, "%u:%u:%u:%lld ", g->e[k].v,
			                        g->e[k].type, g->e[k].attr, (long long)g->e[k].w);
}

/*
 * Pass 2's sweep against its walk by nodes: the same window built both ways
 * has the same edges into and out of each node, in the same order, and the
 * same path. *@p swept: the sweep did it (the events nest).
 */
static void compare_pass2(struct gp_trace *t, bool hta, unsigned seed, size_t *swept)
{
	struct gp__actx c;
	struct gp__cp *g[2] = { NULL, NULL };
	struct gp__cp_path p[2];
	char a[512], b[512];
	uint32_t nd;
	int k;

	ctx_init(&c, t, hta);
	for (k = 0; k < 2; k++) {
		assert_int_equal(gp__cp_new(&c, &g[k]), 0);
		g[k]->by_nodes = k == 1;
		assert_int_equal(gp__cp_window(g[k], 0, 2000 * scale, &p[k]), 0);
	}
	*swept += g[0]->swept;
	assert_false(g[1]->swept);
	assert_int_equal(g[0]->nn, g[1]->nn);
	assert_int_equal(g[0]->ne, g[1]->ne);
	for (nd = 0; nd < g[0]->nn; nd++) {
		node_edges(g[0], nd, true, a, sizeof(a));
		node_edges(g[1], nd, true, b, sizeof(b));
		if (strcmp(a, b))
			fail_msg("seed %u hta %d: edges into %u: %s, by nodes %s", seed, hta, nd, a,
			         b);
		node_edges(g[0], nd, false, a, sizeof(a));
		node_edges(g[1], nd, false, b, sizeof(b));
		if (strcmp(a, b))
			fail_msg("seed %u hta %d: edges out of %u: %s, by nodes %s", seed, hta, nd,
			         a, b);
	}
	assert_int_equal(p[0].ok, p[1].ok);
	assert_int_equal(p[0].path_ns, p[1].path_ns);
	assert_int_equal(p[0].nseg, p[1].nseg);
	for (k = 0; k < 2; k++)
		gp__cp_free(g[k]);
	gp__actx_release(&c);
}

static void test_sweep(void **state)
{
	size_t swept = 0, n = 0;
	unsigned seed;

	(void)state;
	scale = 1;
	for (seed = 1; seed <= 300; seed++) {
		struct gp_trace *t = tu_trace_new();
		uint64_t s = seed;
		int64_t corr = 0, tid, nt = 1 + seed % 3;

		op(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 0, 2000);
		for (tid = 1; tid <= nt; tid++) {
			if (seed % 5 == 0 &&
			    tid == nt) /* some steps with a thread that does not nest */
				add_thread(t, &s, tid, &corr, false);
			else
				add_nested(t, &s, tid, &corr);
		}
		if (seed % 3 == 0) /* a backward thread merged into the forward one */
			op(t, GP_K_CPU_OP, "autograd::engine", nt + 1, 50, 100);
		compare_pass2(t, false, seed, &swept);
		compare_pass2(t, true, seed, &swept);
		n += 2;
		gp_trace_free(t);
	}
	/* both ways were taken */
	assert_true(swept > n / 2);
	assert_true(swept < n);
}

/* the path by the definition, back from its end; @return its length, *ok false: a cycle */
static int64_t reference(const struct gp__cp *g, uint32_t *path, size_t *np, bool *ok)
{
	size_t nn = g->nn, ne = g->ne, i, j, nt = 0, head = 0, best = 0;
	uint32_t *indeg = calloc(nn + 1, sizeof(*indeg)), *topo = calloc(nn + 1, sizeof(*topo));
	uint32_t *from = calloc(nn + 1, sizeof(*from));
	int64_t *dist = calloc(nn + 1, sizeof(*dist)), maxd = -1;
	bool *done = calloc(nn + 1, sizeof(*done));

	assert_true(indeg && topo && from && dist && done);
	for (i = 0; i < ne; i++)
		indeg[g->e[i].v]++;
	for (i = 0; i < nn; i++)
		if (!indeg[i])
			topo[nt++] = (uint32_t)i;
	while (head < nt) { /* a generation; each node's children in edge order */
		size_t gen_end = nt;

		for (; head < gen_end; head++)
			for (j = 0; j < ne; j++)
				if (g->e[j].u == topo[head] && --indeg[g->e[j].v] == 0)
					topo[nt++] = g->e[j].v;
	}
	*ok = nt == nn;
	for (i = 0; *ok && i < nn; i++) {
		uint32_t v = topo[i], fe = NONE;
		int64_t d = 0;

		for (j = 0; j < ne; j++) { /* the first best predecessor in edge order */
			int64_t x;

			if (g->e[j].v != v)
				continue;
			assert_true(done[g->e[j].u]);
			x = dist[g->e[j].u] + (g->e[j].w < 0 ? 0 : g->e[j].w);
			if (fe == NONE || x > d) {
				d = x;
				fe = (uint32_t)j;
			}
		}
		dist[v] = d;
		from[v] = fe;
		done[v] = true;
		if (d > maxd) { /* the first farthest in that order */
			maxd = d;
			best = v;
		}
	}
	*np = 0;
	maxd = 0; /* the length: the edges' own weights (HTA keeps negative ones) */
	for (i = best; *ok && from[i] != NONE; i = g->e[from[i]].u) {
		path[(*np)++] = from[i];
		maxd += g->e[from[i]].w;
	}
	free(indeg);
	free(topo);
	free(from);
	free(dist);
	free(done);
	return maxd;
}

static void check_step(struct gp_trace *t, bool hta, unsigned seed)
{
	struct gp__actx c;
	struct gp__cp *g = NULL;
	struct gp__cp_path p;
	uint32_t *path;
	size_t np, i;
	int64_t len;
	bool ok;

	ctx_init(&c, t, hta);
	assert_int_equal(gp__cp_new(&c, &g), 0);
	assert_int_equal(gp__cp_window(g, 0, 2000 * scale, &p), 0);
	for (i = 1; i < g->nn; i++) { /* nodes in (time, event, start first) order */
		uint64_t a = (uint64_t)g->nev[i - 1] << 1 | (g->nat[i - 1] & NA_END ? 1 : 0);
		uint64_t b = (uint64_t)g->nev[i] << 1 | (g->nat[i] & NA_END ? 1 : 0);

		if (g->nts[i - 1] > g->nts[i] || (g->nts[i - 1] == g->nts[i] && a > b))
			fail_msg("seed %u hta %d: nodes %zu and %zu out of order", seed, hta, i - 1,
			         i);
	}
	if (p.ok || (p.reason && strstr(p.reason, "cycle"))) {
		path = calloc(g->nn + 1, sizeof(*path));
		assert_non_null(path);
		len = reference(g, path, &np, &ok);
		if (ok != p.ok)
			fail_msg("seed %u hta %d: ok %d, want %d", seed, hta, p.ok, ok);
		if (ok) {
			if (p.path_ns != len || p.nseg != np)
				fail_msg("seed %u hta %d: path %lld in %zu edges, want %lld in %zu",
				         seed, hta, (long long)p.path_ns, p.nseg, (long long)len,
				         np);
			for (i = 0; i < np; i++) { /* the path's edges, back from its end */
				const struct edge *e = &g->e[path[i]];
				const struct gp__cp_seg *x = &p.seg[np - 1 - i];

				if (x->t0 != g->nts[e->u] || x->t1 != g->nts[e->v] || x->w != e->w)
					fail_msg("seed %u hta %d: edge %zu differs", seed, hta, i);
			}
		}
		free(path);
	}
	gp__cp_free(g);
	gp__actx_release(&c);
}

static void test_random_steps(void **state)
{
	unsigned seed;

	(void)state;
	for (seed = 1; seed <= 400; seed++) {
		struct gp_trace *t = tu_trace_new();
		uint64_t s = seed;
		int64_t corr = 0, tid, nt = 1 + seed % 3;

		/* some steps span 2^58 ns: the node sort ranks their times */
		scale = seed % 7 || seed % 50 == 0 ? 1 : INT64_C(1) << 47;
		op(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 0, 2000);
		for (tid = 1; tid <= nt; tid++)
			add_thread(t, &s, tid, &corr, seed % 50 == 0 && tid == 1);
		check_step(t, false, seed);
		check_step(t, true, seed);
		gp_trace_free(t);
	}
}

/* the kernel event whose end has a sync edge into blocking call @p call's end, NONE */
static uint32_t sync_source(const struct gp__cp *g, size_t call)
{
	uint32_t src = NONE;
	size_t i;

	for (i = 0; i < g->ne; i++)
		if (g->e[i].type == E_SYNC && g->nev[g->e[i].v] == call &&
		    (g->nat[g->e[i].v] & NA_END)) {
			assert_int_equal(src, NONE); /* one edge per call */
			assert_true(g->nat[g->e[i].u] & NA_END);
			src = g->nev[g->e[i].u];
		}
	return src;
}

/*
 * gpuprof without cuda_sync events: a blocking call waited for the kernel
 * that ended last while it ran, of kernels that end together the one
 * collected last (the last launch's). Kernels end together in two runs,
 * their events in the reverse of their launches' order (so node order is
 * not collection order), and blocking calls span each run, or neither.
 * The lookup is O(1) per call: a walk over the run per call made a window
 * of n kernels ending together and n calls O(n^2).
 */
static void test_sync_ties(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__actx c;
	struct gp__cp *g = NULL;
	struct gp__cp_path p;
	size_t kev[8], s1, s2, s3;
	int64_t k;

	(void)state;
	scale = 1;
	for (k = 7; k >= 0; k--) /* kernels 0-3 end at 600, 4-7 at 1100 */
		kev[k] = tu_kernel(t, "K", 0, 7 + k % 2, 100 + 10 * k,
		                   (k < 4 ? 500 : 1000) - 10 * k, k + 1);
	for (k = 0; k < 8; k++)
		tu_runtime(t, "cudaLaunchKernel", 1, 1, 5 * k, 2, k + 1);
	s1 = tu_runtime(t, "cudaDeviceSynchronize", 1, 2, 590, 20, -1);
	s2 = tu_runtime(t, "cudaStreamSynchronize", 1, 3, 1090, 30, -1);
	s3 = tu_runtime(t, "cudaDeviceSynchronize", 1, 2, 1200, 100, -1);
	ctx_init(&c, t, false);
	assert_int_equal(gp__cp_new(&c, &g), 0);
	assert_int_equal(gp__cp_window(g, 0, 2000, &p), 0);
	assert_int_equal(sync_source(g, s1), kev[3]);
	assert_int_equal(sync_source(g, s2), kev[7]);
	assert_int_equal(sync_source(g, s3), NONE);
	gp__cp_free(g);
	gp__actx_release(&c);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_steps),
		cmocka_unit_test(test_sync_ties),
		cmocka_unit_test(test_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
