/* SPDX-License-Identifier: MIT */
/*
 * test_critpath_prep.c - the per-rank tables of the critical path
 * (critpath-prep.c) against their definitions, computed here the direct way
 * on generated models: event roles, correlation links (gpuprof: the first
 * runtime or driver call of a correlation; --compat hta: the last other row),
 * the GPU events of each call in event order, and HTA's stream queue lengths
 * (+1 at each launch call, -1 at its GPU event, in time order, launches first
 * at one time, each side in event order). The models mix runtime and driver
 * launches, several GPU events per correlation, more streams than the short
 * list of slots holds, ties in time, GPU events before their launch, and GPU
 * events stored in an order far from their launches' (the paths the shared
 * traces do not take). And the name flags of every name the model treats apart.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/critpath-int.h"

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

struct gen {
	uint64_t seed;
	int nlaunch;  /* launch calls */
	int nstream;  /* streams, over two devices */
	int scramble; /* 0: GPU events right after their calls; 1: all at the end, shuffled */
	int driver;   /* driver launches too */
	int spread;   /* correlation ids this far apart (wide apart: HTA's links in a map) */
};

static struct gp_trace *generate(const struct gen *gc)
{
	static const char *const calls[] = { "cudaLaunchKernel", "cudaMemcpyAsync",
		                             "cudaEventRecord", "cuLaunchKernel" };
	struct gp_trace *t = tu_trace_new();
	uint64_t s = gc->seed;
	int64_t *pts = calloc((size_t)gc->nlaunch * 2 + 1, sizeof(*pts));
	int *pstream = calloc((size_t)gc->nlaunch * 2 + 1, sizeof(*pstream));
	int64_t *pcorr = calloc((size_t)gc->nlaunch * 2 + 1, sizeof(*pcorr));
	int i, j, np = 0;

	assert_non_null(pts);
	assert_non_null(pstream);
	assert_non_null(pcorr);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 100000);
	tu_add(t, GP_K_CPU_OP, "aten::op", 1, 1, 10, 90000);
	/* names that give roles: a forward op, a blocking call, a HIP one (gpuprof's) */
	tu_add(t, GP_K_CPU_OP, "Model.forward", 1, 1, 20, 500);
	tu_add(t, GP_K_RUNTIME, "cudaDeviceSynchronize", 1, 1, 600, 50);
	tu_add(t, GP_K_RUNTIME, "hipMemcpy", 1, 2, 700, 50);
	for (i = 0; i < gc->nlaunch; i++) {
		const char *name = calls[rnd(&s) % (gc->driver ? 4 : 3)];
		int64_t ts = 100 + 10 * (int64_t)(rnd(&s) % (unsigned)(gc->nlaunch * 2));
		/* a few ids repeated */
		int64_t corr = 1000 + (int64_t)gc->spread * (i - (rnd(&s) % 16 == 0 && i > 0));
		int tid = 1 + (int)(rnd(&s) % 2), ngpu = 1 + (rnd(&s) % 5 == 0);
		size_t c = tu_runtime(t, name, 1, tid, ts, 5 + rnd(&s) % 3, corr);

		if (!strncmp(name, "cu", 2) && strncmp(name, "cuda", 4))
			t->ev.kind[c] = GP_K_DRIVER;
		for (j = 0; j < ngpu; j++) {
			pts[np] = ts + 10 * (int64_t)(rnd(&s) % 7) - 20; /* some before the call */
			pstream[np] = (int)(rnd(&s) % (unsigned)gc->nstream);
			pcorr[np] = corr;
			if (!gc->scramble) {
				tu_kernel(t, rnd(&s) % 3 ? "K" : "M", pstream[np] % 2,
				          7 + pstream[np], pts[np], 3, corr);
			}
			np++;
		}
	}
	/* a sync of the first call's correlation, a GPU event without a correlation and one
	 * whose correlation has no call */
	{
		size_t y = tu_add(t, GP_K_SYNC, "Stream Sync", 1, 1, 500, 10);

		t->ev.corr[y] = 1000;
	}
	tu_kernel(t, "K", 0, 7, 400, 3, -1);
	tu_kernel(t, "K", 0, 7, 400, 3, 999999);
	if (gc->scramble) {
		for (i = np - 1; i > 0; i--) { /* Fisher-Yates */
			int k = (int)(rnd(&s) % (unsigned)(i + 1));
			int64_t a = pts[i], b = pcorr[i];
			int st = pstream[i];

			pts[i] = pts[k];
			pcorr[i] = pcorr[k];
			pstream[i] = pstream[k];
			pts[k] = a;
			pcorr[k] = b;
			pstream[k] = st;
		}
		for (i = 0; i < np; i++) {
			size_t e =
			    tu_kernel(t, "K", pstream[i] % 2, 7 + pstream[i], pts[i], 3, pcorr[i]);

			if (i % 4 == 1)
				t->ev.kind[e] = GP_K_MEMSET;
		}
	}
	free(pts);
	free(pstream);
	free(pcorr);
	return t;
}

/* the role bits the names generate() gives CPU events add, by their definitions (critpath-int.h) */
static uint8_t name_ref(struct gp__cp *g, size_t i, bool op)
{
	const char *s = gp__ev_name(g->t, i);
	uint8_t r = 0;

	/* the runtime lock: cudaLaunchKernel, cudaMemcpyAsync (not cuLaunchKernel) */
	if (!strcmp(s, "cudaLaunchKernel") || !strcmp(s, "cudaMemcpyAsync"))
		r |= RO_LOCK;
	/* blocking: cudaDeviceSynchronize, cudaMemcpyAsync; hipMemcpy for gpuprof only */
	if (!strcmp(s, "cudaDeviceSynchronize") || !strcmp(s, "cudaMemcpyAsync") ||
	    (!g->hta && !strcmp(s, "hipMemcpy")))
		r |= RO_BLOCK;
	if (op && (strstr(s, "forward") || strstr(s, "autograd")))
		r |= RO_FB;
	return r;
}

/* the roles by their definitions (critpath-int.h) */
static uint8_t role_ref(struct gp__cp *g, size_t i)
{
	const struct gp_trace *t = g->t;
	enum gp_kind k = (enum gp_kind)t->ev.kind[i];
	bool cpuk = k == GP_K_CPU_OP || k == GP_K_RUNTIME || k == GP_K_DRIVER;
	bool gpuk = k == GP_K_KERNEL || k == GP_K_MEMCPY || k == GP_K_MEMSET;
	uint8_t r = 0;

	if (!gp__kept(g->c, i) || k == GP_K_TRACE)
		return 0;
	if (k == GP_K_SYNC)
		r |= RO_SYNC;
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
	if (r & RO_CPU)
		r |= name_ref(g, i, k == GP_K_CPU_OP);
	return r;
}

/* the CPU side of GPU-side event @p i: gpuprof the first runtime or driver call of its
 * correlation, HTA the last other row */
static uint32_t link_ref(struct gp__cp *g, size_t i)
{
	const struct gp_trace *t = g->t;
	uint32_t l = NONE;
	size_t j;

	if (!(g->role[i] & RO_GSIDE))
		return NONE;
	for (j = 0; j < g->n; j++) {
		uint8_t k = t->ev.kind[j];

		if (t->ev.corr[j] != t->ev.corr[i] || !gp__kept(g->c, j))
			continue;
		if (!g->hta && (k == GP_K_RUNTIME || k == GP_K_DRIVER))
			return (uint32_t)j;
		if (g->hta && k != GP_K_TRACE && !(g->role[j] & RO_GSIDE))
			l = (uint32_t)j;
	}
	return l;
}

struct item {
	int64_t ts;
	int gpu;
	size_t k;
	uint32_t ev;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu - y->gpu;
	return x->k < y->k ? -1 : x->k > y->k;
}

static void check_tables(struct gp_trace *t, bool hta)
{
	struct gp_analyze_opts o;
	struct gp__actx c;
	struct gp__cp *g = NULL;
	struct item *it;
	uint32_t *link;
	int32_t *q;
	size_t i, j, n = t->ev.n, nq = 0, m = 0;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.compat = hta ? GP_COMPAT_HTA : GP_COMPAT_NONE;
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	assert_int_equal(gp__cp_new(&c, &g), 0);
	link = calloc(n + 1, sizeof(*link));
	q = calloc(n + 1, sizeof(*q));
	it = calloc(2 * n + 1, sizeof(*it));
	assert_non_null(link);
	assert_non_null(q);
	assert_non_null(it);
	for (i = 0; i < n; i++) {
		if (g->role[i] != role_ref(g, i))
			fail_msg("role[%zu] = %u, want %u", i, g->role[i], role_ref(g, i));
		link[i] = link_ref(g, i);
		if (g->link[i] != link[i])
			fail_msg("link[%zu] = %u, want %u", i, g->link[i], link[i]);
		assert_int_equal(g->snode[i], 0);
		assert_int_equal(g->enode[i], 0);
	}
	/* each call's GPU events, in event order */
	for (i = 0; i < n; i++) {
		assert_int_equal(g->loff[i], m);
		for (j = 0; j < n; j++)
			if (link[j] == i)
				assert_int_equal(g->lgpu[m++], j);
	}
	assert_int_equal(g->loff[n], m);
	/* queue lengths */
	for (i = 0; i < n; i++) {
		q[i] = Q_UNKNOWN;
		if (link[i] == NONE || !(gp__cp_ev_flags(g, link[i]) & NF_LAUNCH) ||
		    !(hta ? gp__cp_hta_row(t, i) : (g->role[i] & RO_KERNEL) != 0))
			continue;
		it[2 * nq] = (struct item){ c.ts[link[i]], 0, nq, (uint32_t)i };
		it[2 * nq + 1] = (struct item){ c.ts[i], 1, nq, (uint32_t)i };
		nq++;
	}
	assert_true(nq > 0);
	qsort(it, 2 * nq, sizeof(*it), cmp_item);
	for (i = 0; i < 2 * nq; i++) {
		int64_t cnt = 0;

		/* the length after this item on its stream: the items so far on that stream */
		for (j = 0; j <= i; j++)
			if (gp__cp_stream_key(g, it[j].ev) == gp__cp_stream_key(g, it[i].ev))
				cnt += it[j].gpu ? -1 : 1;
		q[it[i].gpu ? it[i].ev : link[it[i].ev]] = (int32_t)cnt;
	}
	for (i = 0; i < n; i++)
		if (g->q[i] != q[i])
			fail_msg("q[%zu] = %d, want %d", i, g->q[i], q[i]);
	free(it);
	free(q);
	free(link);
	gp__cp_free(g);
	gp__actx_release(&c);
}

static void test_tables(void **state)
{
	static const struct gen gens[] = {
		{ 1, 40, 3, 0, 1, 1 },     { 2, 60, 20, 0, 1, 1 },    { 3, 60, 20, 1, 1, 1 },
		{ 4, 200, 24, 1, 1, 1 },   { 5, 120, 2, 1, 1, 1 },    { 6, 30, 1, 0, 1, 1 },
		{ 7, 90, 18, 0, 1, 1 },    { 8, 80, 3, 0, 0, 1 },     { 9, 150, 4, 1, 0, 1 },
		{ 10, 200, 5, 1, 1, 100 }, { 11, 60, 3, 0, 0, 1000 },
	};
	size_t k;
	int hta;

	(void)state;
	for (k = 0; k < sizeof(gens) / sizeof(gens[0]); k++) {
		struct gp_trace *t = generate(&gens[k]);

		for (hta = 0; hta < 2; hta++)
			check_tables(t, hta);
		gp_trace_free(t);
	}
}

/*
 * Name flags: HTA's lists (CUDA_RUNTIME_EVENTS, BLOCKING_SYNC_CALLS), the launches of queue
 * lengths, event records and sync kinds, as written here, for each name on them, for near
 * misses, and for the names that take the forward/backward flags.
 */
static void test_name_flags(void **state)
{
	static const struct {
		const char *name;
		uint16_t f, hta; /* gpuprof's flags (without NF_DONE), HTA's */
	} want[] = {
		{ "cudaHostAlloc", NF_LOCK, NF_LOCK },
		{ "cudaLaunchKernel", NF_LOCK | NF_LAUNCH, NF_LOCK | NF_LAUNCH },
		{ "cudaMemcpyAsync", NF_LOCK | NF_BLOCK | NF_BLOCKING | NF_LAUNCH,
		  NF_LOCK | NF_BLOCK | NF_BLOCKING | NF_LAUNCH },
		{ "cudaDeviceSynchronize", NF_BLOCK | NF_BLOCKING, NF_BLOCK | NF_BLOCKING },
		{ "cudaStreamSynchronize", NF_BLOCK | NF_BLOCKING, NF_BLOCK | NF_BLOCKING },
		{ "cudaEventQuery", NF_BLOCK | NF_BLOCKING, NF_BLOCK | NF_BLOCKING },
		{ "cudaEventSynchronize", NF_BLOCK | NF_BLOCKING, NF_BLOCK | NF_BLOCKING },
		{ "cudaMemcpy", NF_BLOCK | NF_BLOCKING, NF_BLOCK | NF_BLOCKING },
		{ "hipDeviceSynchronize", NF_BLOCK_HIP | NF_BLOCKING, NF_BLOCK_HIP },
		{ "hipStreamSynchronize", NF_BLOCK_HIP | NF_BLOCKING, NF_BLOCK_HIP },
		{ "hipEventSynchronize", NF_BLOCK_HIP | NF_BLOCKING, NF_BLOCK_HIP },
		{ "hipMemcpy", NF_BLOCK_HIP | NF_BLOCKING, NF_BLOCK_HIP },
		{ "cudaLaunchKernelExC", NF_LAUNCH, NF_LAUNCH },
		{ "cuLaunchKernel", NF_LAUNCH, NF_LAUNCH },
		{ "cuLaunchKernelEx", NF_LAUNCH, NF_LAUNCH },
		{ "cudaMemsetAsync", NF_LAUNCH, NF_LAUNCH },
		{ "runFunction - job_prep_and_submit_for_execution", NF_LAUNCH, NF_LAUNCH },
		{ "hipLaunchKernel", NF_LAUNCH, NF_LAUNCH },
		{ "hipExtModuleLaunchKernel", NF_LAUNCH, NF_LAUNCH },
		{ "hipMemsetAsync", NF_LAUNCH, NF_LAUNCH },
		{ "hipMemcpyAsync", NF_LAUNCH, NF_LAUNCH },
		{ "hipMemcpyWithStream", NF_LAUNCH, NF_LAUNCH },
		{ "cudaEventRecord", NF_EVREC, NF_EVREC },
		{ "hipEventRecord", NF_EVREC, 0 },
		{ "Stream Sync", NF_SYNC_STREAM, NF_SYNC_STREAM },
		{ "Context Sync", NF_SYNC_CONTEXT, NF_SYNC_CONTEXT },
		{ "Event Sync", NF_SYNC_EVENT, NF_SYNC_EVENT },
		{ "Stream Wait Event", NF_SYNC_WAIT, NF_SYNC_WAIT },
		{ "Model.forward", NF_FWD | NF_FB, NF_FWD | NF_FB },
		{ "autograd::engine::evaluate_function: MmBackward0", NF_AUTOGRAD | NF_FB,
		  NF_AUTOGRAD | NF_FB },
		{ "cudaMemcpyAsync_forward", NF_FWD | NF_FB, NF_FWD | NF_FB },
		{ "cudaMemcpyAsyncX", 0, 0 },
		{ "cudaMemcp", 0, 0 },
		{ "Stream Sync ", 0, 0 },
		{ "stream Sync", 0, 0 },
		{ "aten::mm", 0, 0 },
		{ "c", 0, 0 },
		{ "", 0, 0 },
	};
	size_t i;
	int hta;

	(void)state;
	for (hta = 0; hta < 2; hta++) {
		struct gp_trace *t = tu_trace_new();
		struct gp_analyze_opts o;
		struct gp__actx c;
		struct gp__cp *g = NULL;

		for (i = 0; i < GP_ARRAY_SIZE(want); i++)
			tu_add(t, GP_K_RUNTIME, want[i].name, 1, 1, 10 * (int64_t)i, 5);
		memset(&o, 0, sizeof(o));
		o.size = sizeof(o);
		o.compat = hta ? GP_COMPAT_HTA : GP_COMPAT_NONE;
		assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
		assert_int_equal(gp__cp_new(&c, &g), 0);
		for (i = 0; i < GP_ARRAY_SIZE(want); i++) {
			uint16_t f = gp__cp_ev_flags(g, (uint32_t)i);

			if (f != (NF_DONE | (hta ? want[i].hta : want[i].f)))
				fail_msg("%s \"%s\": flags %#x, want %#x", hta ? "hta" : "gpuprof",
				         want[i].name, f,
				         NF_DONE | (hta ? want[i].hta : want[i].f));
		}
		gp__cp_free(g);
		gp__actx_release(&c);
		gp_trace_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_name_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
