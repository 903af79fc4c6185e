/* SPDX-License-Identifier: MIT */
/*
 * test_summaries.c - the summary tables (summaries.c) on small synthetic
 * traces with hand-computed answers: kernel statistics (odd and even
 * medians, sample std, tensor cores), --top truncation, memory operations,
 * annotation GPU projection and operator self time.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "analyze/analyze-int.h"
#include "util/error.h"

/* Runs only the summaries on @p t; the caller frees the result. */
static struct gp_value *summarize(struct gp_trace *t, uint32_t top, enum gp_compat compat)
{
	struct gp_analyze_opts o = { .size = sizeof(o), .top = top, .compat = compat };
	struct gp__actx c;
	struct gp_value *r = gp_value_object();

	assert_non_null(r);
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	assert_int_equal(gp__an_summaries(&c, r), 0);
	assert_int_equal(gp__summaries_trim(r, top), 0);
	gp__actx_release(&c);
	return r;
}

static void assert_null_at(const struct gp_value *r, const char *path)
{
	const struct gp_value *v = gp_value_path(r, path);
	double d;

	assert_non_null(v);
	assert_false(gp_value_get_double(v, &d));
	assert_true(gp_value_type(v) == GP_VALUE_NULL || gp_value_type(v) == GP_VALUE_DOUBLE);
}

static void kernels_trace(struct gp_trace *t)
{
	/* A: 10, 20, 60 (odd count); B: 5, 15, 25, 100 (even); a TC kernel: 145 once */
	tu_kernel(t, "A", 0, 7, 0, 60, -1);
	tu_kernel(t, "A", 0, 7, 100, 10, -1);
	tu_kernel(t, "A", 0, 7, 200, 20, -1);
	tu_kernel(t, "B", 0, 7, 300, 25, -1);
	tu_kernel(t, "B", 0, 7, 400, 5, -1);
	tu_kernel(t, "B", 0, 7, 500, 100, -1);
	tu_kernel(t, "B", 0, 7, 700, 15, -1);
	tu_kernel(t, "volta_h884gemm", 0, 7, 800, 145, -1);
}

static void test_kernel_stats(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	kernels_trace(t);
	r = summarize(t, 0, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "kernels")), 3);
	/* B and the TC kernel tie at 145: by name */
	assert_string_equal(tu_gets(r, "kernels/0/name"), "B");
	assert_string_equal(tu_gets(r, "kernels/1/name"), "volta_h884gemm");
	assert_string_equal(tu_gets(r, "kernels/2/name"), "A");

	assert_int_equal(tu_geti(r, "kernels/0/count"), 4);
	assert_int_equal(tu_geti(r, "kernels/0/total_ns"), 145);
	assert_float_equal(tu_getd(r, "kernels/0/avg_ns"), 36.25, 1e-9);
	assert_float_equal(tu_getd(r, "kernels/0/med_ns"), 20.0, 1e-9); /* (15 + 25) / 2 */
	assert_int_equal(tu_geti(r, "kernels/0/min_ns"), 5);
	assert_int_equal(tu_geti(r, "kernels/0/max_ns"), 100);
	assert_float_equal(tu_getd(r, "kernels/0/std_ns"), sqrt(5618.75 / 3), 1e-9);
	assert_false(gp_value_get_bool(gp_value_path(r, "kernels/0/tensor_core"), true));
	assert_string_equal(tu_gets(r, "kernels/0/type"), "COMPUTATION");

	assert_int_equal(tu_geti(r, "kernels/2/count"), 3);
	assert_int_equal(tu_geti(r, "kernels/2/total_ns"), 90);
	assert_float_equal(tu_getd(r, "kernels/2/avg_ns"), 30.0, 1e-9);
	assert_float_equal(tu_getd(r, "kernels/2/med_ns"), 20.0, 1e-9);
	assert_float_equal(tu_getd(r, "kernels/2/std_ns"), sqrt(700.0), 1e-9);
	assert_float_equal(tu_getd(r, "kernels/2/pct"), 100.0 * 90 / 380, 1e-9);

	/* one instance: std 0 (nsys prints 0) */
	assert_float_equal(tu_getd(r, "kernels/1/std_ns"), 0.0, 0);
	assert_float_equal(tu_getd(r, "kernels/1/med_ns"), 145.0, 0);
	assert_true(gp_value_get_bool(gp_value_path(r, "kernels/1/tensor_core"), false));
	assert_float_equal(tu_getd(r, "kernels_tensor_core_pct"), 100.0 * 145 / 380, 1e-9);
	assert_null(gp_obj_get(r, "kernels_omitted"));
	assert_null(gp_obj_get(r, "hta_kernels"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_top(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	kernels_trace(t);
	r = summarize(t, 1, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "kernels")), 1);
	assert_string_equal(tu_gets(r, "kernels/0/name"), "B");
	/* pct stays a share of the whole table */
	assert_float_equal(tu_getd(r, "kernels/0/pct"), 100.0 * 145 / 380, 1e-9);
	assert_int_equal(tu_geti(r, "kernels_omitted/rows"), 2);
	assert_int_equal(tu_geti(r, "kernels_omitted/total_ns"), 235);
	assert_int_equal(tu_geti(r, "api_calls_omitted/rows"), 0);
	gp_value_free(r);

	/* --compat hta adds hta_kernels over every GPU event */
	r = summarize(t, 0, GP_COMPAT_HTA);
	assert_int_equal(gp_value_len(gp_obj_get(r, "hta_kernels")), 3);
	assert_int_equal(tu_geti(r, "hta_kernels/2/total_ns"), 90);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_no_kernels(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	r = summarize(t, 0, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "kernels")), 0);
	assert_null_at(r, "kernels_tensor_core_pct");
	assert_int_equal(gp_value_len(gp_obj_get(r, "cpu_ops")), 0);
	assert_int_equal(gp_value_len(gp_obj_get(r, "annotations")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

static size_t mem_op(struct gp_trace *t, enum gp_kind kind, const char *name, int64_t ts,
                     int64_t dur, int64_t bytes)
{
	size_t i = tu_kernel(t, name, 0, 7, ts, dur, -1);

	t->ev.kind[i] = (uint8_t)kind;
	t->gpu[t->ev.aux[i]].bytes = bytes;
	return i;
}

static void test_memory_ops(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	mem_op(t, GP_K_MEMCPY, "Memcpy HtoD (Pageable -> Device)", 0, 100, 1000);
	mem_op(t, GP_K_MEMCPY, "Memcpy HtoD (Pageable -> Device)", 200, 300, 3000);
	mem_op(t, GP_K_MEMCPY, "Memcpy DtoH (Device -> Pinned)", 600, 50, -1);
	mem_op(t, GP_K_MEMSET, "Memset (Device)", 700, 20, 2000);
	mem_op(t, GP_K_MEMCPY, "Memcpy PtoP (Device -> Device)", 800, 10, 10);
	r = summarize(t, 0, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "memory_ops")), 4);

	assert_string_equal(tu_gets(r, "memory_ops/0/name"), "Memcpy HtoD (Pageable -> Device)");
	assert_string_equal(tu_gets(r, "memory_ops/0/kind"), "memcpy");
	assert_string_equal(tu_gets(r, "memory_ops/0/direction"), "HtoD");
	assert_true(gp_value_get_bool(gp_value_path(r, "memory_ops/0/pageable"), false));
	assert_int_equal(tu_geti(r, "memory_ops/0/count"), 2);
	assert_int_equal(tu_geti(r, "memory_ops/0/total_ns"), 400);
	assert_int_equal(tu_geti(r, "memory_ops/0/total_bytes"), 4000);
	assert_float_equal(tu_getd(r, "memory_ops/0/avg_bytes"), 2000.0, 0);
	assert_int_equal(tu_geti(r, "memory_ops/0/min_bytes"), 1000);
	assert_int_equal(tu_geti(r, "memory_ops/0/max_bytes"), 3000);
	assert_float_equal(tu_getd(r, "memory_ops/0/bandwidth_gbps"), 10.0, 1e-9);

	assert_string_equal(tu_gets(r, "memory_ops/1/direction"), "DtoH");
	assert_false(gp_value_get_bool(gp_value_path(r, "memory_ops/1/pageable"), true));
	assert_null_at(r, "memory_ops/1/total_bytes");
	assert_null_at(r, "memory_ops/1/bandwidth_gbps");

	assert_string_equal(tu_gets(r, "memory_ops/2/kind"), "memset");
	assert_null_at(r, "memory_ops/2/direction");
	assert_float_equal(tu_getd(r, "memory_ops/2/bandwidth_gbps"), 100.0, 1e-9);

	assert_string_equal(tu_gets(r, "memory_ops/3/direction"), "PtoP");
	/* memcpy/memset are not kernels */
	assert_int_equal(gp_value_len(gp_obj_get(r, "kernels")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_annotations(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 10, 0, 1000);
	tu_add(t, GP_K_USER_ANNOTATION, "fwd", 1, 10, 0, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "inner", 1, 10, 5, 35);
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 10, 10, 1);
	tu_kernel(t, "k1", 0, 7, 30, 30, 1); /* [30, 60) */
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 50, 5, 2);
	tu_kernel(t, "k2", 0, 8, 50, 30, 2); /* [50, 80): union with k1 is 50 */
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 120, 10, 3);
	tu_kernel(t, "k3", 0, 7, 140, 10, 3); /* launched outside fwd */
	tu_runtime(t, "cudaLaunchKernel", 1, 11, 20, 5, 4);
	tu_kernel(t, "k4", 0, 7, 200, 10, 4); /* launched inside fwd's time, other thread */
	tu_add(t, GP_K_USER_ANNOTATION, "fwd", 1, 10, 300, 100);
	tu_runtime(t, "cudaMemcpyAsync", 1, 10, 310, 5, 5);
	t->ev.corr[mem_op(t, GP_K_MEMCPY, "Memcpy DtoD (Device -> Device)", 400, 20, 64)] = 5;
	tu_add(t, GP_K_GPU_ANNOTATION, "fwd", 0, 7, 30, 50);
	tu_add(t, GP_K_GPU_ANNOTATION, "ProfilerStep#1", 0, 7, 30, 400);

	r = summarize(t, 0, GP_COMPAT_NONE);
	/* ProfilerStep#N is left out */
	assert_int_equal(gp_value_len(gp_obj_get(r, "annotations")), 2);
	assert_string_equal(tu_gets(r, "annotations/0/name"), "fwd");
	assert_int_equal(tu_geti(r, "annotations/0/count"), 2);
	assert_int_equal(tu_geti(r, "annotations/0/total_ns"), 200);
	assert_int_equal(tu_geti(r, "annotations/0/gpu_ns"), 70); /* 50 + 20 */
	assert_int_equal(tu_geti(r, "annotations/0/gpu_ops"), 3);
	assert_string_equal(tu_gets(r, "annotations/1/name"), "inner");
	assert_int_equal(tu_geti(r, "annotations/1/gpu_ns"), 30);
	assert_int_equal(tu_geti(r, "annotations/1/gpu_ops"), 1);

	assert_int_equal(gp_value_len(gp_obj_get(r, "gpu_annotations")), 1);
	assert_int_equal(tu_geti(r, "gpu_annotations/0/total_ns"), 50);

	/* api_calls: runtime calls grouped by name */
	assert_string_equal(tu_gets(r, "api_calls/0/name"), "cudaLaunchKernel");
	assert_int_equal(tu_geti(r, "api_calls/0/count"), 4);
	assert_int_equal(tu_geti(r, "api_calls/0/total_ns"), 30);
	assert_float_equal(tu_getd(r, "api_calls/0/med_ns"), 7.5, 1e-9);
	assert_string_equal(tu_gets(r, "api_calls/0/api"), "runtime");
	gp_value_free(r);
	gp_trace_free(t);
}

/* "ranges": nsys's projection, first GPU op start to last GPU op end, gaps included */
static void test_ranges(void **state)
{
	struct gp_trace *t = tu_trace_new();
	uint32_t dom, msg, full;
	struct gp_value *r;
	size_t x;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "step", 1, 10, 0, 1000);
	full = t->ev.name[tu_add(t, GP_K_USER_ANNOTATION, "dom:fwd", 1, 10, 0, 500)];
	assert_int_equal(gp__strtab_intern(&t->strs, "dom", 3, &dom), 0);
	assert_int_equal(gp__strtab_intern(&t->strs, "fwd", 3, &msg), 0);
	assert_int_equal(gp__u64map_put(&t->nvtx_names, full, (uint64_t)dom << 32 | msg), 0);
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 10, 5, 1);
	tu_kernel(t, "k1", 0, 7, 100, 10, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 20, 5, 2);
	tu_kernel(t, "k2", 0, 8, 300, 10, 2);
	/* a start/end range that ended on another thread is not projected */
	x = tu_add(t, GP_K_USER_ANNOTATION, "xr", 1, 10, 600, 300);
	t->ev.flags[x] |= GP_EVF_STARTEND | GP_EVF_XTHREAD;
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 610, 5, 3);
	tu_kernel(t, "k3", 0, 7, 620, 30, 3);
	/* a launch on another thread belongs to no range of thread 10 */
	tu_runtime(t, "cudaLaunchKernel", 1, 11, 30, 5, 4);
	tu_kernel(t, "k4", 0, 7, 900, 10, 4);

	r = summarize(t, 0, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "ranges")), 3);
	assert_string_equal(tu_gets(r, "ranges/0/name"), "step");
	assert_string_equal(tu_gets(r, "ranges/0/domain"), "");
	assert_int_equal(tu_geti(r, "ranges/0/gpu_projected_ns"), 550); /* [100, 650) */
	assert_int_equal(tu_geti(r, "ranges/0/gpu_ops"), 3);
	assert_string_equal(tu_gets(r, "ranges/1/name"), "fwd");
	assert_string_equal(tu_gets(r, "ranges/1/domain"), "dom");
	assert_int_equal(tu_geti(r, "ranges/1/total_ns"), 500);
	assert_int_equal(tu_geti(r, "ranges/1/gpu_projected_ns"), 210); /* [100, 310) */
	assert_int_equal(tu_geti(r, "ranges/1/gpu_ops"), 2);
	assert_string_equal(tu_gets(r, "ranges/2/name"), "xr");
	assert_int_equal(tu_geti(r, "ranges/2/gpu_projected_ns"), 0);
	assert_int_equal(tu_geti(r, "ranges/2/gpu_ops"), 0);
	/* the annotations table keeps the union of the op intervals */
	assert_int_equal(tu_geti(r, "annotations/1/gpu_ns"), 20);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_cpu_ops(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::linear", 1, 10, 0, 100);
	tu_add(t, GP_K_CPU_OP, "aten::addmm", 1, 10, 10, 50);
	tu_runtime(t, "cudaLaunchKernel", 1, 10, 20, 10, 7);
	tu_kernel(t, "gemm", 0, 7, 40, 50, 7);
	tu_add(t, GP_K_CPU_OP, "aten::t", 1, 10, 60, 10);
	tu_add(t, GP_K_USER_ANNOTATION, "blk", 1, 10, 70, 20);
	tu_add(t, GP_K_CPU_OP, "aten::t", 1, 10, 200, 5);
	/* another thread: overlaps in time, not nested */
	tu_add(t, GP_K_CPU_OP, "aten::empty", 1, 11, 0, 3);

	r = summarize(t, 0, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "cpu_ops")), 4);
	/* by self time: addmm 50, linear 100-50-10-20 = 20, t 15, empty 3 */
	assert_string_equal(tu_gets(r, "cpu_ops/0/name"), "aten::addmm");
	assert_int_equal(tu_geti(r, "cpu_ops/0/self_ns"), 50);
	assert_int_equal(tu_geti(r, "cpu_ops/0/total_ns"), 50);
	assert_int_equal(tu_geti(r, "cpu_ops/0/gpu_ns"), 50);
	assert_int_equal(tu_geti(r, "cpu_ops/0/gpu_self_ns"), 50);
	assert_string_equal(tu_gets(r, "cpu_ops/1/name"), "aten::linear");
	assert_int_equal(tu_geti(r, "cpu_ops/1/self_ns"), 20);
	assert_int_equal(tu_geti(r, "cpu_ops/1/total_ns"), 100);
	assert_int_equal(tu_geti(r, "cpu_ops/1/gpu_ns"), 50);
	assert_int_equal(tu_geti(r, "cpu_ops/1/gpu_self_ns"), 0);
	assert_string_equal(tu_gets(r, "cpu_ops/2/name"), "aten::t");
	assert_int_equal(tu_geti(r, "cpu_ops/2/count"), 2);
	assert_int_equal(tu_geti(r, "cpu_ops/2/self_ns"), 15);
	assert_int_equal(tu_geti(r, "cpu_ops/2/max_ns"), 10);
	assert_float_equal(tu_getd(r, "cpu_ops/2/avg_ns"), 7.5, 1e-9);
	assert_int_equal(tu_geti(r, "cpu_ops/3/self_ns"), 3);
	assert_float_equal(tu_getd(r, "cpu_ops/0/pct_self"), 100.0 * 50 / 88, 1e-9);
	gp_value_free(r);

	r = summarize(t, 2, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "cpu_ops")), 2);
	assert_int_equal(tu_geti(r, "cpu_ops_omitted/rows"), 2);
	assert_int_equal(tu_geti(r, "cpu_ops_omitted/self_ns"), 18);
	assert_int_equal(tu_geti(r, "cpu_ops_omitted/total_ns"), 18);
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_stats), cmocka_unit_test(test_top),
		cmocka_unit_test(test_no_kernels),   cmocka_unit_test(test_memory_ops),
		cmocka_unit_test(test_annotations),  cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_cpu_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
