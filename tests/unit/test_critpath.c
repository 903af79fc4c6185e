/* SPDX-License-Identifier: MIT */
/*
 * test_critpath.c - the "critical_path" section on hand-built models whose
 * longest path is computed by hand (all times in ns; thread (1, 1), kernels
 * on device 0).
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "analyze/analyze-int.h"
#include "analyze/critpath.h"

static struct gp_value *cp(struct gp_trace *t, bool hta)
{
	return tu_section(t, hta, gp__an_critpath);
}

static void check_bound(const struct gp_value *r, const char *step, int64_t path, int64_t cpu,
                        int64_t comp, int64_t comm, int64_t kk, int64_t launch)
{
	char p[160];
	const char *names[] = { "cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
		                "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead" };
	int64_t want[] = { cpu, comp, comm, kk, launch };
	size_t k;

	snprintf(p, sizeof(p), "%s/path_ns", step);
	assert_int_equal(tu_geti(r, p), path);
	for (k = 0; k < 5; k++) {
		snprintf(p, sizeof(p), "%s/bound_by_ns/%s", step, names[k]);
		if (tu_geti(r, p) != want[k])
			fail_msg("%s = %lld, want %lld", p, (long long)tu_geti(r, p),
			         (long long)want[k]);
		snprintf(p, sizeof(p), "%s/bound_by_pct/%s", step, names[k]);
		assert_true(fabs(tu_getd(r, p) - 100.0 * (double)want[k] / (double)path) < 1e-9);
	}
}

/*
 * aten::mm [100, 400) launches K1 through L1 [150, 200) and K2 through
 * L2 [250, 300); K1 [210, 510), K2 [520, 820) on stream 7. K1's stream was
 * empty: launch edge L1.start -> K1.start (60); K2 was queued behind K1:
 * kernel-kernel edge K1.end -> K2.start (10). Path: mm.start -> L1.start
 * (cpu 50) -> K1 (launch 60, compute 300) -> K2 (kk 10, compute 300) = 720;
 * the CPU alone reaches mm.end after 300.
 */
static struct gp_trace *two_kernels(void)
{
	struct gp_trace *t = tu_trace_new();

	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000);
	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 100, 300);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 150, 50, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 250, 50, 2);
	tu_kernel(t, "K1", 0, 7, 210, 300, 1);
	tu_kernel(t, "K2", 0, 7, 520, 300, 2);
	return t;
}

static void test_two_kernels(void **state)
{
	struct gp_trace *t = two_kernels();
	struct gp_value *r;
	int hta;

	(void)state;
	for (hta = 0; hta < 2; hta++) {
		r = cp(t, hta);
		assert_true(gp_value_get_bool(gp_value_path(r, "critical_path/available"), false));
		assert_string_equal(tu_gets(r, "critical_path/compat"), hta ? "hta" : "gpuprof");
		assert_false(
		    gp_value_get_bool(gp_value_path(r, "critical_path/whole_trace"), true));
		assert_int_equal(gp_value_len(gp_value_path(r, "critical_path/steps")), 1);
		assert_string_equal(tu_gets(r, "critical_path/steps/0/step"), "ProfilerStep#1");
		assert_int_equal(tu_geti(r, "critical_path/steps/0/step_index"), 0);
		check_bound(r, "critical_path/steps/0", 720, 50, 600, 0, 10, 60);
		check_bound(r, "critical_path/total", 720, 50, 600, 0, 10, 60);
		/* top items: both kernels 300 each, the op 50 */
		assert_int_equal(tu_geti(r, "critical_path/steps/0/top_kernels/0/path_ns"), 300);
		assert_int_equal(tu_geti(r, "critical_path/steps/0/top_kernels/1/path_ns"), 300);
		assert_string_equal(tu_gets(r, "critical_path/steps/0/top_cpu_ops/0/name"),
		                    "aten::mm");
		assert_int_equal(tu_geti(r, "critical_path/steps/0/top_cpu_ops/0/path_ns"), 50);
		assert_int_equal(tu_geti(r, "critical_path/steps/0/top_cpu_ops/0/count"), 1);
		/* segments in time order: mm, launch, K1, kk, K2 */
		assert_int_equal(gp_value_len(gp_value_path(r, "critical_path/steps/0/segments")),
		                 5);
		assert_int_equal(tu_geti(r, "critical_path/steps/0/segments_omitted"), 0);
		assert_string_equal(tu_gets(r, "critical_path/steps/0/segments/0/kind"), "cpu");
		assert_int_equal(tu_geti(r, "critical_path/steps/0/segments/0/tid"), 1);
		assert_string_equal(tu_gets(r, "critical_path/steps/0/segments/1/bound"),
		                    "gpu_kernel_launch_overhead");
		assert_string_equal(tu_gets(r, "critical_path/steps/0/segments/2/name"), "K1");
		assert_int_equal(tu_geti(r, "critical_path/steps/0/segments/2/stream"), 7);
		assert_int_equal(tu_geti(r, "critical_path/steps/0/segments/2/start_ns"), 210);
		assert_int_equal(tu_geti(r, "critical_path/steps/0/segments/2/end_ns"), 510);
		assert_string_equal(tu_gets(r, "critical_path/steps/0/segments/3/bound"),
		                    "gpu_kernel_kernel_overhead");
		assert_int_equal(tu_geti(r, "critical_path/steps/0/segments/4/end_ns"), 820);
		gp_value_free(r);
	}
	gp_trace_free(t);
}

/*
 * L1 [100, 150) launches K1 [200, 1200); cudaDeviceSynchronize [160, 1210)
 * waits for it; aten::add [1300, 1400) follows. gpuprof (no cuda_sync
 * events): K1 ended last while the sync ran, so K1.end -> sync.end and the
 * sync's own 1050 is no CPU time: L1.start -> K1 (launch 100, compute 1000)
 * -> add (cpu 100) = 1200. HTA zeroes the blocking call and knows no wait:
 * its path ends at K1: 1100.
 */
static void test_sync(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 2000);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 100, 50, 1);
	tu_runtime(t, "cudaDeviceSynchronize", 1, 1, 160, 1050, -1);
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 1300, 100);
	tu_kernel(t, "K1", 0, 7, 200, 1000, 1);

	r = cp(t, false);
	check_bound(r, "critical_path/steps/0", 1200, 100, 1000, 0, 0, 100);
	assert_string_equal(tu_gets(r, "critical_path/steps/0/top_cpu_ops/0/name"), "aten::add");
	gp_value_free(r);
	r = cp(t, true);
	check_bound(r, "critical_path/steps/0", 1100, 0, 1000, 0, 0, 100);
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * A cross-stream wait: L1 [100, 120) launches K1 [130, 1130) on stream 7,
 * cudaEventRecord R [130, 140) records on stream 7 (corr 2),
 * cudaStreamWaitEvent W [150, 160) makes stream 8 wait for it (its cuda_sync
 * "Stream Wait Event" waits on record corr 2, stream 7), L2 [170, 190)
 * launches K2 [1140, 1640) on stream 8. K2 waits for K1: K1.end -> K2.start,
 * no launch edge: L1.start -> K1 (launch 30, compute 1000) -> K2 (compute
 * 500) = 1530. Without the wait K2's launch edge from L2 would be 970.
 */
static void test_stream_wait(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_sync_info si;
	struct gp_value *r;
	uint32_t kind;
	size_t s;
	int hta;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 3000);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 100, 20, 1);
	tu_runtime(t, "cudaEventRecord", 1, 1, 130, 10, 2);
	tu_runtime(t, "cudaStreamWaitEvent", 1, 1, 150, 10, 3);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 170, 20, 4);
	tu_kernel(t, "K1", 0, 7, 130, 1000, 1);
	s = tu_kernel(t, "Stream Wait Event", 0, 8, 150, 1, 3);
	t->ev.kind[s] = GP_K_SYNC;
	tu_kernel(t, "K2", 0, 8, 1140, 500, 4);
	assert_int_equal(gp__strtab_intern(&t->strs, "Stream Wait Event", 17, &kind), 0);
	memset(&si, 0, sizeof(si));
	si.kind = kind;
	si.wait_stream = 7;
	si.wait_event_corr = 2;
	si.wait_event_id = -1;
	assert_int_equal(gp__trace_add_sync(t, s, &si), 0);

	for (hta = 0; hta < 2; hta++) {
		r = cp(t, hta);
		check_bound(r, "critical_path/steps/0", 1530, 0, 1500, 0, 0, 30);
		gp_value_free(r);
	}
	gp_trace_free(t);
}

/*
 * Launch-bound: ten launches L_i [100 i, 100 i + 50) of kernels
 * K_i [100 i + 60, 100 i + 65), each after the previous kernel ended. The
 * launches are chained on the CPU (50 each); the path leaves the CPU at the
 * last launch: cpu 9 * 50, launch 60, compute 5 = 515.
 */
static void test_launch_bound(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r, *rank;
	int64_t i;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 2000);
	for (i = 0; i < 10; i++) {
		tu_runtime(t, "cudaLaunchKernel", 1, 1, 100 * i, 50, i + 1);
		tu_kernel(t, "K", 0, 7, 100 * i + 60, 5, i + 1);
	}
	r = cp(t, false);
	check_bound(r, "critical_path/steps/0", 515, 450, 5, 0, 0, 60);
	assert_int_equal(tu_geti(r, "critical_path/steps/0/top_kernels/0/count"), 1);
	assert_int_equal(tu_geti(r, "critical_path/steps/0/top_cpu_ops/0/count"), 9);
	gp_value_free(r);

	/* the finding: the host bounds the step (98.8 % of the path), impact its share */
	rank = tu_analyze(t, GP_COMPAT_NONE);
	{
		const struct gp_value *f = gp_obj_get(rank, "findings");
		size_t k;
		bool found = false;

		for (k = 0; k < gp_value_len(f); k++) {
			const char *id = gp_value_get_str(gp_obj_get(gp_arr_get(f, k), "id"));

			if (id && !strcmp(id, "critical-path-bound")) {
				double imp = -1;

				found = true;
				assert_true(gp_value_get_double(
				    gp_obj_get(gp_arr_get(f, k), "impact_pct"), &imp));
				assert_true(fabs(imp - 100.0 * 510 / 515) < 1e-6);
				assert_non_null(strstr(
				    gp_value_get_str(gp_obj_get(gp_arr_get(f, k), "suggestion")),
				    "faster kernels will not shorten"));
			}
		}
		assert_true(found);
	}
	gp_value_free(rank);
	gp_trace_free(t);
}

/*
 * A long host stretch, then 300 short kernels queued one behind the other:
 * each kernel (9) and each gap between them (1) is far below the drawing's
 * resolution (path / 256), yet together they are most of the path. The
 * segments pool them and draw them as the compute they mostly are, not
 * as the host run before them.
 */
static void test_short_pieces(void **state)
{
	struct gp_trace *t = tu_trace_new();
	const struct gp_value *segs;
	struct gp_value *r;
	int64_t i, compute = 0, path;
	size_t k;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 5000);
	tu_add(t, GP_K_CPU_OP, "aten::prep", 1, 1, 0, 1000);
	for (i = 0; i < 300; i++) {
		tu_runtime(t, "cudaLaunchKernel", 1, 1, 1000 + 2 * i, 1, i + 1);
		tu_kernel(t, "K", 0, 7, 1010 + 10 * i, 9, i + 1);
	}
	r = cp(t, false);
	path = tu_geti(r, "critical_path/steps/0/path_ns");
	segs = gp_value_path(r, "critical_path/steps/0/segments");
	assert_true(gp_value_len(segs) > 2);
	assert_int_equal(tu_geti(r, "critical_path/steps/0/segments_omitted"), 0);
	for (k = 0; k < gp_value_len(segs); k++) {
		const struct gp_value *g = gp_arr_get(segs, k);
		int64_t a = 0, b = 0;

		assert_true(gp_value_get_int(gp_obj_get(g, "start_ns"), &a));
		assert_true(gp_value_get_int(gp_obj_get(g, "end_ns"), &b));
		if (!strcmp(gp_value_get_str(gp_obj_get(g, "bound")), "gpu_compute_bound"))
			compute += b - a;
	}
	/* compute is 2,700 of the ~4,000 ns path; the pools of kernels and gaps draw as it */
	assert_true(compute * 100 >= path * 60);
	gp_value_free(r);
	gp_trace_free(t);
}

/* strange input: no step (whole trace), kernels without launch, zero-length and overlapping
 * ops, overlapping kernels (a negative gap), a trace without GPU activity, an empty trace */
static void test_strange(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::zero", 1, 1, 50, 0);
	tu_add(t, GP_K_CPU_OP, "aten::a", 1, 1, 100, 300);
	tu_add(t, GP_K_CPU_OP, "aten::b", 1, 1, 350, 300); /* overlaps a */
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 120, 10, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 140, 10, 2);
	tu_kernel(t, "K1", 0, 7, 200, 100, 1);
	tu_kernel(t, "K2", 0, 7, 250, 100, 2); /* starts before K1 ends */
	tu_kernel(t, "orphan", 0, 7, 5000, 100, 99);
	r = cp(t, false);
	assert_true(gp_value_get_bool(gp_value_path(r, "critical_path/available"), false));
	assert_true(gp_value_get_bool(gp_value_path(r, "critical_path/whole_trace"), false));
	assert_null(gp_value_get_str(gp_value_path(r, "critical_path/steps/0/step")));
	assert_true(tu_geti(r, "critical_path/steps/0/path_ns") > 0);
	assert_true(tu_geti(r, "critical_path/steps/0/path_ns") <= 5100);
	gp_value_free(r);
	r = cp(t, true); /* HTA analyses only a ProfilerStep */
	assert_false(gp_value_get_bool(gp_value_path(r, "critical_path/available"), true));
	assert_non_null(tu_gets(r, "critical_path/reason"));
	gp_value_free(r);
	gp_trace_free(t);

	t = tu_trace_new();
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 100);
	tu_add(t, GP_K_CPU_OP, "aten::a", 1, 1, 10, 30);
	r = cp(t, false);
	assert_false(gp_value_get_bool(gp_value_path(r, "critical_path/available"), true));
	assert_string_equal(tu_gets(r, "critical_path/reason"), "no GPU activity");
	gp_value_free(r);
	gp_trace_free(t);

	t = tu_trace_new();
	r = cp(t, false);
	assert_int_equal(gp_value_type(gp_obj_get(r, "critical_path")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a step with no CPU op or kernel of its own gets a reason, the others their paths */
static void test_two_steps(void **state)
{
	struct gp_trace *t = two_kernels();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 1000, 1000);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 1100, 50, 3);
	tu_kernel(t, "K3", 0, 7, 1200, 100, 3);
	r = cp(t, false);
	assert_int_equal(gp_value_len(gp_value_path(r, "critical_path/steps")), 2);
	assert_int_equal(tu_geti(r, "critical_path/steps/1/step_index"), 1);
	/* step 2: L3.start -> K3.start (launch 100) -> K3 (compute 100) */
	check_bound(r, "critical_path/steps/1", 200, 0, 100, 0, 0, 100);
	check_bound(r, "critical_path/total", 920, 50, 700, 0, 10, 160);
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * Every allocation of the section failing in turn, with GPU work (both
 * compats) and without: GP_ENOMEM each time, nothing leaked (the "no GPU
 * activity" total once leaked when a set before it failed).
 */
static void test_alloc_failures(void **state)
{
	struct gp_trace *t = two_kernels(), *cpu = tu_trace_new();

	(void)state;
	assert_true(tu_section_torture(t, false, gp__an_critpath) > 1);
	assert_true(tu_section_torture(t, true, gp__an_critpath) > 1);
	tu_add(cpu, GP_K_CPU_OP, "aten::mm", 1, 1, 100, 300);
	assert_true(tu_section_torture(cpu, false, gp__an_critpath) > 1);
	gp_trace_free(t);
	gp_trace_free(cpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_kernels),  cmocka_unit_test(test_sync),
		cmocka_unit_test(test_stream_wait),  cmocka_unit_test(test_launch_bound),
		cmocka_unit_test(test_strange),      cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_short_pieces), cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
