/* SPDX-License-Identifier: MIT */
/*
 * test_gpu.c - the "gpu" section on small synthetic traces with
 * hand-computed answers (all times in ns).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze-int.h"

/*
 * stream 7:  gemm [0,100k)  Memcpy [200k,210k)  gemm2 [220k,230k)  gemm3 [300k,310k)
 * stream 20: ncclDevKernel_AllReduce [50k,150k)
 * launches:  gemm @-10k, nccl @40k, memcpy @190k, gemm2 @150k, gemm3 @100k
 */
static struct gp_trace *scenario(void)
{
	struct gp_trace *t = tu_trace_new();
	size_t m;

	tu_runtime(t, "cudaLaunchKernel", 1, 1, -10000, 5000, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 40000, 5000, 2);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 100000, 20000, 5);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 150000, 1000, 4);
	tu_runtime(t, "cudaMemcpyAsync", 1, 1, 190000, 2000, 3);
	tu_kernel(t, "gemm", 0, 7, 0, 100000, 1);
	tu_kernel(t, "ncclDevKernel_AllReduce_Sum_f32", 0, 20, 50000, 100000, 2);
	m = tu_kernel(t, "Memcpy HtoD (Pinned -> Device)", 0, 7, 200000, 10000, 3);
	t->ev.kind[m] = GP_K_MEMCPY;
	tu_kernel(t, "gemm2", 0, 7, 220000, 10000, 4);
	tu_kernel(t, "gemm3", 0, 7, 300000, 10000, 5);
	return t;
}

/* the idle breakdown of the first stream */
static void check_idle0(const struct gp_value *r, int64_t host, int64_t kernel, int64_t other)
{
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/host_wait_ns"), host);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/kernel_wait_ns"), kernel);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/other_ns"), other);
}

/*
 * The scenario's totals over a window of @p window ns with @p idle of it idle:
 * the busy, compute and non-compute times do not depend on the window.
 */
static void check_totals(const struct gp_value *r, int64_t window, int64_t idle)
{
	assert_int_equal(tu_geti(r, "gpu/window_ns"), window);
	assert_int_equal(tu_geti(r, "gpu/busy_ns"), 180000);
	assert_int_equal(tu_geti(r, "gpu/idle_ns"), idle);
	assert_int_equal(tu_geti(r, "gpu/compute_ns"), 120000);
	assert_int_equal(tu_geti(r, "gpu/non_compute_ns"), 60000);
	assert_true(fabs(tu_getd(r, "gpu/idle_pct") - 100.0 * (double)idle / (double)window) <
	            1e-4);
}

static void check_scenario(const struct gp_value *r)
{
	assert_true(gp_value_get_bool(gp_value_path(r, "gpu/has_gpu"), false));
	check_totals(r, 310000, 130000);
	assert_true(fabs(tu_getd(r, "gpu/comm_comp_overlap_pct") - 50.0) < 1e-9);

	/* sweep: COMP 70k, COMM 50k, COMP+COMM 50k, MEM 10k (ties: single types first) */
	assert_int_equal(gp_value_len(gp_value_path(r, "gpu/kernel_types")), 4);
	assert_string_equal(tu_gets(r, "gpu/kernel_types/0/type"), "COMPUTATION");
	assert_int_equal(tu_geti(r, "gpu/kernel_types/0/ns"), 70000);
	assert_true(fabs(tu_getd(r, "gpu/kernel_types/0/pct") - 100.0 * 70 / 180) < 1e-4);
	assert_string_equal(tu_gets(r, "gpu/kernel_types/1/type"), "COMMUNICATION");
	assert_int_equal(tu_geti(r, "gpu/kernel_types/1/ns"), 50000);
	assert_string_equal(tu_gets(r, "gpu/kernel_types/2/type"),
	                    "COMPUTATION overlapping COMMUNICATION");
	assert_int_equal(tu_geti(r, "gpu/kernel_types/2/ns"), 50000);
	assert_string_equal(tu_gets(r, "gpu/kernel_types/3/type"), "MEMORY");
	assert_int_equal(tu_geti(r, "gpu/kernel_types/3/ns"), 10000);

	/* stream 7: memcpy host_wait 100k, gemm2 kernel_wait 10k, gemm3 other 70k */
	assert_int_equal(gp_value_len(gp_value_path(r, "gpu/idle_breakdown")), 2);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/stream"), 7);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/device"), 0);
	check_idle0(r, 100000, 10000, 70000);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/1/stream"), 20);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/1/host_wait_ns"), 0);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown_total/other_ns"), 70000);
	assert_int_equal(tu_geti(r, "gpu/streams/0/busy_ns"), 130000);
	assert_int_equal(tu_geti(r, "gpu/streams/0/count"), 4);
	assert_int_equal(tu_geti(r, "gpu/streams/1/busy_ns"), 100000);
}

static void test_breakdown(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r = tu_section(t, false, gp__an_gpu);

	(void)state;
	check_scenario(r);
	/* classification, most kernels first */
	assert_int_equal(gp_value_len(gp_value_path(r, "gpu/classification")), 3);
	assert_string_equal(tu_gets(r, "gpu/classification/0/rule"), "default:computation");
	assert_int_equal(tu_geti(r, "gpu/classification/0/count"), 3);
	assert_int_equal(tu_geti(r, "gpu/classification/0/ns"), 120000);
	assert_string_equal(tu_gets(r, "gpu/classification/1/rule"), "kind:memcpy");
	assert_string_equal(tu_gets(r, "gpu/classification/2/rule"), "name:^nccl");
	assert_string_equal(tu_gets(r, "gpu/classification/2/type"), "COMMUNICATION");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_breakdown_hta(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r = tu_section(t, true, gp__an_gpu);

	(void)state;
	check_scenario(r);
	assert_string_equal(tu_gets(r, "gpu/classification/0/rule"), "hta:computation");
	gp_value_free(r);
	gp_trace_free(t);
}

/* the 30 µs rule: a gap of exactly 30 µs is "other", 29.999 µs "kernel_wait" */
static void test_kernel_wait_threshold(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 0, 100, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 200, 100, 2);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 300, 100, 3);
	tu_kernel(t, "a", 0, 7, 1000, 1000, 1);
	tu_kernel(t, "b", 0, 7, 2000 + 29999, 1000, 2);
	tu_kernel(t, "c", 0, 7, 32999 + 30000, 1000, 3);
	r = tu_section(t, false, gp__an_gpu);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/kernel_wait_ns"), 29999);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/other_ns"), 30000);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/host_wait_ns"), 0);
	/* no communication: the overlap is unknown */
	assert_int_equal(gp_value_type(gp_value_path(r, "gpu/comm_comp_overlap_pct")),
	                 GP_VALUE_DOUBLE);
	assert_false(
	    gp_value_get_double(gp_value_path(r, "gpu/comm_comp_overlap_pct"), &(double){ 0 }));
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * HTA's launcher fallback: a GPU row whose correlation id no CPU row carries
 * is joined with the trace's row 0 (index_correlation = min(corr, 0) = 0), so
 * its gap is host_wait when row 0 started after the gap opened. Rows without
 * a correlation id (-1) get no launcher. gpuprof's own mode has no fallback.
 * row 0: ProfilerStep#1 @50k; stream 7: a [1k,11k) corr 1 (launched @0),
 * b [21k,31k) corr 99, c [100k,110k) no corr, d [130k,140k) corr 98.
 */
static void test_hta_row0_launcher(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 50000, 100000);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 0, 1000, 1);
	tu_kernel(t, "a", 0, 7, 1000, 10000, 1);
	tu_kernel(t, "b", 0, 7, 21000, 10000, 99);
	tu_kernel(t, "c", 0, 7, 100000, 10000, -1);
	tu_kernel(t, "d", 0, 7, 130000, 10000, 98);

	/* b: 50k > 11k, host_wait 10k; c: no launcher, other 69k; d: 50k < 110k, kernel_wait 20k */
	r = tu_section(t, true, gp__an_gpu);
	check_idle0(r, 10000, 20000, 69000);
	gp_value_free(r);

	r = tu_section(t, false, gp__an_gpu);
	check_idle0(r, 0, 30000, 69000);
	gp_value_free(r);

	/* a "Trace" row 0 is dropped by HTA's parser: no fallback */
	t->ev.kind[0] = GP_K_TRACE;
	r = tu_section(t, true, gp__an_gpu);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/host_wait_ns"), 0);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/kernel_wait_ns"), 30000);
	gp_value_free(r);
	gp_trace_free(t);
}

/* three types overlapping at once get the three-part HTA label */
static void test_triple_overlap(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t m;

	(void)state;
	tu_kernel(t, "gemm", 0, 7, 0, 300, 1);
	tu_kernel(t, "ncclKernel_AllReduce", 0, 8, 100, 300, 2);
	m = tu_kernel(t, "Memcpy DtoD (Device -> Device)", 0, 9, 200, 50, 3);
	t->ev.kind[m] = GP_K_MEMCPY;
	r = tu_section(t, false, gp__an_gpu);
	/* COMP [0,100) 100; COMP+COMM [100,200)+[250,300) 150; all three [200,250) 50; COMM 100 */
	assert_string_equal(tu_gets(r, "gpu/kernel_types/0/type"),
	                    "COMPUTATION overlapping COMMUNICATION");
	assert_int_equal(tu_geti(r, "gpu/kernel_types/0/ns"), 150);
	assert_string_equal(tu_gets(r, "gpu/kernel_types/3/type"),
	                    "COMPUTATION overlapping COMMUNICATION overlapping MEMORY");
	assert_int_equal(tu_geti(r, "gpu/kernel_types/3/ns"), 50);
	/* comm 300 of which 200 under compute */
	assert_true(fabs(tu_getd(r, "gpu/comm_comp_overlap_pct") - 200.0 / 3) < 1e-4);
	assert_int_equal(tu_geti(r, "gpu/non_compute_ns"), 100);
	gp_value_free(r);
	gp_trace_free(t);
}

static void set_windows(struct gp_trace *t, const char *windows)
{
	char json[300];
	struct gp_value *m = NULL;

	snprintf(json, sizeof(json), "{\"gpuprof_capture_read\":{\"windows\":%s}}", windows);
	assert_int_equal(gp_value_parse(json, strlen(json), &m, NULL), 0);
	gp_value_free(t->meta);
	t->meta = m;
}

/*
 * A capture with two windows, [-20k, 120k) and [250k, open): nothing was
 * recorded in [120k, 250k), so its idle part (80k: [150k,200k), [210k,220k),
 * [230k,250k)) is neither window nor idle time; the GPU work that ran on
 * there (launched in the first window) stays busy. Per stream 7: the gap
 * [100k,200k) keeps its 20k inside the first window (host_wait), [210k,220k)
 * lies between the windows (no gap), [230k,300k) keeps its 50k (other).
 */
static void test_capture_windows(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r;

	(void)state;
	set_windows(t, "[{\"start_ns\":-20000,\"end_ns\":120000},"
	               "{\"start_ns\":250000,\"end_ns\":null}]");
	r = tu_section(t, false, gp__an_gpu);
	assert_int_equal(tu_geti(r, "gpu/outside_windows_ns"), 80000);
	check_totals(r, 230000, 50000);
	assert_int_equal(tu_geti(r, "gpu/idle_breakdown/0/stream"), 7);
	check_idle0(r, 20000, 0, 50000);
	gp_value_free(r);
	/* the same under --compat hta: the gap between the windows is none there either */
	r = tu_section(t, true, gp__an_gpu);
	check_idle0(r, 20000, 0, 50000);
	gp_value_free(r);

	/* one window around everything: as without windows, and 0 left out */
	set_windows(t, "[{\"start_ns\":-1,\"end_ns\":1000000}]");
	r = tu_section(t, false, gp__an_gpu);
	check_scenario(r);
	assert_int_equal(tu_geti(r, "gpu/outside_windows_ns"), 0);
	gp_value_free(r);

	/* the whole run captured (windows null), or a Kineto trace: null */
	set_windows(t, "null");
	r = tu_section(t, false, gp__an_gpu);
	check_scenario(r);
	assert_int_equal(gp_value_type(gp_value_path(r, "gpu/outside_windows_ns")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_no_gpu(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 0, 100);
	r = tu_section(t, false, gp__an_gpu);
	assert_false(gp_value_get_bool(gp_value_path(r, "gpu/has_gpu"), true));
	assert_string_equal(tu_gets(r, "gpu/note"), "no GPU activity");
	assert_int_equal(gp_value_type(gp_value_path(r, "gpu/window_ns")), GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(r, "gpu/idle_pct")), GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(r, "gpu/outside_windows_ns")), GP_VALUE_NULL);
	assert_int_equal(gp_value_len(gp_value_path(r, "gpu/kernel_types")), 0);
	assert_int_equal(gp_value_len(gp_value_path(r, "gpu/idle_breakdown")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_breakdown),
		cmocka_unit_test(test_breakdown_hta),
		cmocka_unit_test(test_kernel_wait_threshold),
		cmocka_unit_test(test_hta_row0_launcher),
		cmocka_unit_test(test_triple_overlap),
		cmocka_unit_test(test_capture_windows),
		cmocka_unit_test(test_no_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
