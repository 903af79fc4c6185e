/* SPDX-License-Identifier: MIT */
/*
 * test_steps.c - the step table, its statistics and the tb_plugin GPU
 * metrics on small synthetic traces with hand-computed answers.
 */
#include "testutil.h"

#include <math.h>

#include "gpuprof/analyze.h"
#include "gpuprof/value.h"

static void set_kernel(struct gp_trace *t, size_t k, double bps, double occ)
{
	t->gpu[t->ev.aux[k]].blocks_per_sm = bps;
	t->gpu[t->ev.aux[k]].occupancy_pct = occ;
}

/*
 * Step 1, host [0,100): DataLoader [0,10), aten::mm [20,60) launching a
 * kernel [50,110) (runtime [30,40)) and a memcpy [60,80) (runtime [45,50)).
 * Step 2, host [100,200): aten::add [120,150), kernels [140,160) and
 * [165,170) from runtimes [125,135) and [136,140).
 */
static struct gp_trace *two_steps(void)
{
	struct gp_trace *t = tu_trace_new();
	size_t k, m;

	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 100, 100);
	tu_add(t, GP_K_CPU_OP, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1,
	       0, 10);
	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 20, 40);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 30, 10, 1);
	k = tu_kernel(t, "gemm", 0, 7, 50, 60, 1);
	set_kernel(t, k, 0.5, 50);
	tu_runtime(t, "cudaMemcpyAsync", 1, 1, 45, 5, 2);
	m = tu_kernel(t, "Memcpy HtoD", 0, 7, 60, 20, 2);
	t->ev.kind[m] = GP_K_MEMCPY;
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 120, 30);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 125, 10, 3);
	k = tu_kernel(t, "add", 0, 7, 140, 20, 3);
	set_kernel(t, k, 2.0, 25);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 136, 4, 4);
	tu_kernel(t, "add2", 0, 7, 165, 5, 4);
	return t;
}

static void test_two_steps(void **state)
{
	struct gp_trace *t = two_steps();
	struct gp_value *r = tu_analyze(t, GP_COMPAT_NONE);

	(void)state;
	assert_int_equal(gp_value_len(gp_obj_get(r, "steps")), 2);
	/* step 1 stretched to the kernel's end */
	assert_int_equal(tu_geti(r, "steps/0/start_ns"), 0);
	assert_int_equal(tu_geti(r, "steps/0/dur_ns"), 110);
	assert_int_equal(tu_geti(r, "steps/0/number"), 1);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/kernel_ns"), 60);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/memcpy_ns"), 0);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/runtime_ns"), 15);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/dataloader_ns"), 10);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/cpu_exec_ns"), 15);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/other_ns"), 10);
	assert_int_equal(tu_geti(r, "steps/0/gpu_busy_ns"), 60);
	assert_false(gp_value_get_bool(gp_value_path(r, "steps/0/incomplete"), true));
	/* step 2 starts where step 1 ended */
	assert_int_equal(tu_geti(r, "steps/1/start_ns"), 110);
	assert_int_equal(tu_geti(r, "steps/1/dur_ns"), 90);
	assert_int_equal(tu_geti(r, "steps/1/breakdown/kernel_ns"), 25);
	assert_int_equal(tu_geti(r, "steps/1/breakdown/runtime_ns"), 14);
	assert_int_equal(tu_geti(r, "steps/1/breakdown/cpu_exec_ns"), 6);
	assert_int_equal(tu_geti(r, "steps/1/breakdown/other_ns"), 45);
	assert_int_equal(tu_geti(r, "steps/1/kernel_count"), 2);
	/* statistics */
	assert_int_equal(tu_geti(r, "step_stats/count"), 2);
	assert_int_equal(tu_geti(r, "step_stats/mean_ns"), 100);
	assert_int_equal(tu_geti(r, "step_stats/median_ns"), 100);
	assert_int_equal(tu_geti(r, "step_stats/p95_ns"), 109);
	assert_int_equal(tu_geti(r, "step_stats/min_ns"), 90);
	assert_int_equal(tu_geti(r, "step_stats/max_ns"), 110);
	assert_int_equal(tu_geti(r, "step_stats/std_ns"), 14);
	assert_true(fabs(tu_getd(r, "step_stats/breakdown_pct/kernel_pct") - 42.5) < 1e-9);
	assert_true(fabs(tu_getd(r, "step_stats/breakdown_pct/runtime_pct") - 14.5) < 1e-9);
	assert_true(fabs(tu_getd(r, "step_stats/breakdown_pct/dataloader_pct") - 5.0) < 1e-9);
	assert_true(fabs(tu_getd(r, "step_stats/breakdown_pct/cpu_exec_pct") - 10.5) < 1e-9);
	assert_true(fabs(tu_getd(r, "step_stats/breakdown_pct/other_pct") - 27.5) < 1e-9);
	/* GPU metrics over [0,200): kernels 85 ns; SM 0.5*60 + 1*20; occupancy weighted */
	assert_int_equal(tu_geti(r, "gpu_utilization/0/device"), 0);
	assert_int_equal(tu_geti(r, "gpu_utilization/0/window_ns"), 200);
	assert_true(fabs(tu_getd(r, "gpu_utilization/0/utilization") - 0.425) < 1e-9);
	assert_true(fabs(tu_getd(r, "gpu_utilization/0/sm_efficiency") - 0.25) < 1e-9);
	assert_true(fabs(tu_getd(r, "gpu_utilization/0/achieved_occupancy_pct") - 43.75) < 1e-9);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_incomplete_tail(void **state)
{
	struct gp_trace *t = two_steps();
	struct gp_value *r;

	(void)state;
	/* step 3 launches 1 device event (< 80 % of step 2's 2); step 4 none */
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#3", 1, 1, 200, 100);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 210, 10, 5);
	tu_kernel(t, "late", 0, 7, 230, 10, 5);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#4", 1, 1, 300, 50);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "steps")), 4);
	assert_false(gp_value_get_bool(gp_value_path(r, "steps/1/incomplete"), true));
	assert_true(gp_value_get_bool(gp_value_path(r, "steps/2/incomplete"), false));
	assert_true(gp_value_get_bool(gp_value_path(r, "steps/3/incomplete"), false));
	assert_int_equal(tu_geti(r, "steps/2/dur_ns"), 100);
	assert_int_equal(tu_geti(r, "steps/2/breakdown/kernel_ns"), 10);
	assert_int_equal(tu_geti(r, "steps/2/breakdown/runtime_ns"), 10);
	assert_int_equal(tu_geti(r, "steps/2/breakdown/other_ns"), 80);
	assert_int_equal(tu_geti(r, "step_stats/count"), 2);
	assert_int_equal(tu_geti(r, "step_stats/incomplete"), 2);
	assert_int_equal(tu_geti(r, "step_stats/mean_ns"), 100);
	/* the utilisation window ends with the last complete step */
	assert_int_equal(tu_geti(r, "gpu_utilization/0/window_ns"), 200);
	gp_value_free(r);
	gp_trace_free(t);
}

/* No ProfilerStep: one step over the CPU operators; two overlapping kernels. */
static void test_no_steps_two_kernels(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t k;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::forward", 1, 1, 0, 200);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 10, 10, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 60, 10, 2);
	k = tu_kernel(t, "k1", 0, 7, 0, 100, 1);
	set_kernel(t, k, 0.4, 40);
	k = tu_kernel(t, "k2", 0, 8, 50, 100, 2);
	set_kernel(t, k, 0.8, 20);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "steps")), 1);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "steps/0/name")), "trace");
	assert_int_equal(gp_value_type(gp_value_path(r, "steps/0/number")), GP_VALUE_NULL);
	assert_int_equal(tu_geti(r, "steps/0/dur_ns"), 200);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/kernel_ns"), 150);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/runtime_ns"), 0);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/cpu_exec_ns"), 50);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/other_ns"), 0);
	assert_int_equal(tu_geti(r, "steps/0/gpu_busy_ns"), 150);
	/* util 150/200; SM: 0.4*50 + min(1.2,1)*50 + 0.8*50 = 110 over 200 */
	assert_true(fabs(tu_getd(r, "gpu_utilization/0/utilization") - 0.75) < 1e-9);
	assert_true(fabs(tu_getd(r, "gpu_utilization/0/sm_efficiency") - 0.55) < 1e-9);
	assert_true(fabs(tu_getd(r, "gpu_utilization/0/achieved_occupancy_pct") - 30.0) < 1e-9);
	assert_int_equal(gp_value_type(gp_value_path(r, "step_stats/std_ns")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

/* nccl:all_reduce ops and the kernels carrying their External id are Communication */
static void test_communication(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t i, k;
	double d;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#0", 1, 1, 0, 100);
	i = tu_add(t, GP_K_CPU_OP, "nccl:all_reduce", 1, 1, 10, 20);
	t->ev.ext[i] = 99;
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 15, 5, 1);
	k = tu_kernel(t, "ncclKernel_AllReduce", 0, 7, 40, 30, 1);
	t->ev.ext[k] = 99;
	r = tu_analyze(t, GP_COMPAT_NONE);
	/* comm (before Runtime in priority): op [10,30) + kernel [40,70) */
	assert_int_equal(tu_geti(r, "steps/0/breakdown/communication_ns"), 50);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/kernel_ns"), 0);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/runtime_ns"), 0);
	assert_int_equal(tu_geti(r, "steps/0/breakdown/other_ns"), 50);
	/* no blocks-per-SM or occupancy args: unknown, not 0 */
	assert_false(gp_value_get_double(gp_value_path(r, "gpu_utilization/0/sm_efficiency"), &d));
	assert_false(
	    gp_value_get_double(gp_value_path(r, "gpu_utilization/0/achieved_occupancy_pct"), &d));
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_incomplete_tail),
		cmocka_unit_test(test_no_steps_two_kernels),
		cmocka_unit_test(test_communication),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
