/* SPDX-License-Identifier: MIT */
/*
 * test_launches.c - launch delay, short kernels, outliers and queue depth on
 * a small synthetic trace with hand-computed answers (times in ns).
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "analyze/analyze-int.h"

/*
 * calls (ts, dur) -> GPU event (stream, ts, dur), delay = gpu.ts - call end:
 *  cudaLaunchKernel (-10k, 5k)  -> s7  [0, 100k)        5k
 *  cudaLaunchKernel (40k, 5k)   -> s20 [50k, 150k)      5k
 *  cudaLaunchKernel (100k, 20k) -> s7  [300k, 310k)   180k, shorter than its call
 *  cudaLaunchKernel (150k, 1k)  -> s7  [220k, 230k)    69k
 *  cudaMemcpyAsync  (190k, 2k)  -> s7  [200k, 210k)     8k
 *  cuLaunchKernel   (400k, 60k) -> s7  [470k, 480k)    10k (gpuprof only)
 */
static struct gp_trace *scenario(void)
{
	struct gp_trace *t = tu_trace_new();
	size_t d;

	tu_runtime(t, "cudaLaunchKernel", 1, 1, -10000, 5000, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 40000, 5000, 2);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 100000, 20000, 5);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 150000, 1000, 4);
	tu_runtime(t, "cudaMemcpyAsync", 1, 1, 190000, 2000, 3);
	d = tu_runtime(t, "cuLaunchKernel", 1, 1, 400000, 60000, 6);
	t->ev.kind[d] = GP_K_DRIVER;
	tu_kernel(t, "gemm", 0, 7, 0, 100000, 1);
	tu_kernel(t, "ncclKernel", 0, 20, 50000, 100000, 2);
	tu_kernel(t, "Memcpy HtoD", 0, 7, 200000, 10000, 3);
	tu_kernel(t, "gemm2", 0, 7, 220000, 10000, 4);
	tu_kernel(t, "gemm3", 0, 7, 300000, 10000, 5);
	tu_kernel(t, "triton_", 0, 7, 470000, 10000, 6);
	return t;
}

static void test_launches_gpuprof(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r = tu_section(t, false, gp__an_launches);

	(void)state;
	/* delays sorted: 5k 5k 8k 10k 69k 180k */
	assert_int_equal(tu_geti(r, "launches/count"), 6);
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/min"), 5000);
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/p50"), 9000);
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/p90"), 124500); /* 69k + .5 * 111k */
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/max"), 180000);
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/mean"), 46167); /* 277k / 6 */
	assert_int_equal(tu_geti(r, "launches/short_kernels/count"), 2);
	assert_true(fabs(tu_getd(r, "launches/short_kernels/pct") - 100.0 / 3) < 1e-4);
	assert_int_equal(tu_geti(r, "launches/runtime_outliers/count"), 1);
	assert_int_equal(tu_geti(r, "launches/delay_outliers/count"), 1);

	/*
	 * stream 7 depth: +1@-10k -1@0 +1@100k +1@150k +1@190k -1@200k -1@220k
	 * -1@300k +1@400k -1@470k: max 3; time-weighted over [-10k, 470k):
	 * 10k*1 + 50k*1 + 40k*2 + 10k*3 + 20k*2 + 80k*1 + 70k*1 = 360k / 480k
	 */
	assert_int_equal(tu_geti(r, "launches/queue/0/stream"), 7);
	assert_int_equal(tu_geti(r, "launches/queue/0/device"), 0);
	assert_int_equal(tu_geti(r, "launches/queue/0/max"), 3);
	assert_true(fabs(tu_getd(r, "launches/queue/0/mean") - 0.75) < 1e-9);
	assert_int_equal(tu_geti(r, "launches/queue/0/time_at_limit_ns"), 0);
	assert_int_equal(tu_geti(r, "launches/queue/1/stream"), 20);
	assert_int_equal(tu_geti(r, "launches/queue/1/max"), 1);
	assert_true(fabs(tu_getd(r, "launches/queue/1/mean") - 1.0) < 1e-9);
	assert_int_equal(tu_geti(r, "launches/queue_limit"), 1024);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_launches_hta(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r = tu_section(t, true, gp__an_launches);

	(void)state;
	/* HTA's launch stats leave cuLaunchKernel out: 5k 5k 8k 69k 180k */
	assert_int_equal(tu_geti(r, "launches/count"), 5);
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/p50"), 8000);
	assert_int_equal(tu_geti(r, "launches/short_kernels/count"), 1);
	assert_int_equal(tu_geti(r, "launches/runtime_outliers/count"), 0);
	/* its queue counts cuLaunchKernel; the mean is over the samples */
	assert_int_equal(tu_geti(r, "launches/queue/0/max"), 3);
	assert_true(fabs(tu_getd(r, "launches/queue/0/mean") - 1.1) < 1e-9); /* 11 / 10 samples */
	assert_true(fabs(tu_getd(r, "launches/queue/1/mean") - 0.5) < 1e-9);
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * Correlation ids spread far apart (no dense array: the hash map) and a
 * repeated id (the first call keeps it) give the same answers.
 */
static void test_launches_sparse_ids(void **state)
{
	static const int64_t big = INT64_C(1) << 40;
	struct gp_trace *t = scenario(), *u = scenario();
	struct gp_value *a, *b;
	char *ja = NULL, *jb = NULL;
	size_t i, na, nb;

	(void)state;
	for (i = 0; i < u->ev.n; i++)
		u->ev.corr[i] = u->ev.corr[i] * big + 3;
	a = tu_section(t, false, gp__an_launches);
	b = tu_section(u, false, gp__an_launches);
	assert_int_equal(gp_value_to_json(gp_obj_get(a, "launches"), 0, &ja, &na), 0);
	assert_int_equal(gp_value_to_json(gp_obj_get(b, "launches"), 0, &jb, &nb), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(ja, jb, na);
	gp_free(ja);
	gp_free(jb);
	gp_value_free(a);
	gp_value_free(b);
	gp_trace_free(u);

	/* a second call with correlation 1, later: the kernel stays with the first */
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 600000, 1000, 1);
	a = tu_section(t, false, gp__an_launches);
	assert_int_equal(tu_geti(a, "launches/count"), 6);
	assert_int_equal(tu_geti(a, "launches/launch_delay_ns/min"), 5000);
	assert_int_equal(tu_geti(a, "launches/launch_delay_ns/max"), 180000);
	gp_value_free(a);
	gp_trace_free(t);
}

static void test_no_launches(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_kernel(t, "orphan", 0, 7, 0, 10, -1);
	r = tu_section(t, false, gp__an_launches);
	assert_int_equal(tu_geti(r, "launches/count"), 0);
	assert_int_equal(gp_value_type(gp_value_path(r, "launches/launch_delay_ns/p50")),
	                 GP_VALUE_NULL);
	assert_int_equal(gp_value_len(gp_value_path(r, "launches/queue")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a graph launch is one launch: its first GPU op gives the delay, not each op */
static void test_graph_launch(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	/* cudaGraphLaunch [0, 10k) -> three kernels of 100k back to back from 12k */
	tu_runtime(t, "cudaGraphLaunch", 1, 1, 0, 10000, 1);
	tu_kernel(t, "g1", 0, 7, 12000, 100000, 1);
	tu_kernel(t, "g2", 0, 7, 112000, 100000, 1);
	tu_kernel(t, "g3", 0, 7, 212000, 100000, 1);
	r = tu_section(t, false, gp__an_launches);
	assert_int_equal(tu_geti(r, "launches/count"), 1);
	assert_int_equal(tu_geti(r, "launches/launch_delay_ns/max"), 2000);
	assert_int_equal(tu_geti(r, "launches/delay_outliers/count"), 0);
	/* one pending launch in the queue, until its first op starts */
	assert_int_equal(tu_geti(r, "launches/queue/0/max"), 1);
	gp_value_free(r);
	gp_trace_free(t);

	/* a graph of 300 ops (more than a byte counts) is still one launch */
	t = tu_trace_new();
	tu_runtime(t, "cudaGraphLaunch", 1, 1, 0, 10000, 1);
	for (k = 0; k < 300; k++)
		tu_kernel(t, "g", 0, 7, 12000 + 100 * k, 100, 1);
	r = tu_section(t, false, gp__an_launches);
	assert_int_equal(tu_geti(r, "launches/count"), 1);
	assert_int_equal(tu_geti(r, "launches/queue/0/max"), 1);
	gp_value_free(r);
	gp_trace_free(t);
}

/* HIP: CUDA's launch-queue limit does not apply; no limit, no time at it */
static void test_queue_limit_hip(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	/* 1100 launches pending at once, as a ROCm trace may show */
	for (k = 0; k < 1100; k++) {
		tu_runtime(t, "hipLaunchKernel", 1, 1, k, 1, k + 1);
		tu_kernel(t, "k", 0, 0, 100000 + 10 * k, 10, k + 1);
	}
	r = tu_section(t, false, gp__an_launches);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "launches/runtime")), "hip");
	assert_int_equal(gp_value_type(gp_value_path(r, "launches/queue_limit")), GP_VALUE_NULL);
	assert_int_equal(tu_geti(r, "launches/queue/0/max"), 1100);
	assert_int_equal(gp_value_type(gp_value_path(r, "launches/queue/0/time_at_limit_ns")),
	                 GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);

	/* CUDA names: the limit applies; unknown (no launching call) has none */
	t = scenario();
	r = tu_section(t, false, gp__an_launches);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "launches/runtime")), "cuda");
	gp_value_free(r);
	gp_trace_free(t);
	t = tu_trace_new();
	tu_kernel(t, "orphan", 0, 7, 0, 10, -1);
	r = tu_section(t, false, gp__an_launches);
	assert_int_equal(gp_value_type(gp_value_path(r, "launches/runtime")), GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(r, "launches/queue_limit")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launches_gpuprof),    cmocka_unit_test(test_launches_hta),
		cmocka_unit_test(test_launches_sparse_ids), cmocka_unit_test(test_no_launches),
		cmocka_unit_test(test_queue_limit_hip),     cmocka_unit_test(test_graph_launch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
