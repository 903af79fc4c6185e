/* SPDX-License-Identifier: MIT */
/*
 * test_overview.c - the overview section on a small synthetic trace.
 */
#include "testutil.h"

#include <string.h>

#include "gpuprof/analyze.h"
#include "gpuprof/value.h"

static void count(struct gp_trace *t, char ph, const char *cat, int n)
{
	uint32_t id;

	assert_int_equal(gp__strtab_intern(&t->strs, cat, strlen(cat), &id), 0);
	while (n--)
		assert_int_equal(gp__trace_count_cat(t, ph, id), 0);
}

static void test_overview(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r = NULL;
	size_t m;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#3", 1, 1, 1000, 500);
	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 1100, 100);
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 2, 1200, 100);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 1110, 10, 1);
	tu_kernel(t, "gemm", 0, 7, 1300, 400, 1);
	tu_kernel(t, "gemm", 0, 8, 1300, 100, 2);
	m = tu_kernel(t, "Memcpy HtoD", 0, 7, 1750, 50, 3);
	t->ev.kind[m] = GP_K_MEMCPY;
	count(t, 'X', "kernel", 2);
	count(t, 'X', "cpu_op", 2);
	count(t, 'X', "cuda_runtime", 1);
	count(t, 'X', "gpu_memcpy", 1);
	count(t, 'f', "ac2g", 1);
	assert_int_equal(gp_analyze_trace(t, NULL, 0, &r), 0);
	assert_int_equal(tu_geti(r, "overview/start_ns"), 1000);
	assert_int_equal(tu_geti(r, "overview/span_ns"), 800);
	assert_int_equal(tu_geti(r, "overview/steps"), 1);
	assert_int_equal(tu_geti(r, "overview/threads"), 2);
	assert_true(gp_value_get_bool(gp_value_path(r, "overview/has_gpu"), false));
	/* categories by count desc, then name */
	assert_string_equal(gp_value_get_str(gp_value_path(r, "overview/categories/0/cat")),
	                    "cpu_op");
	assert_string_equal(gp_value_get_str(gp_value_path(r, "overview/categories/1/cat")),
	                    "kernel");
	assert_int_equal(tu_geti(r, "overview/categories/1/count"), 2);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "overview/categories/2/cat")),
	                    "ac2g");
	assert_string_equal(gp_value_get_str(gp_value_path(r, "overview/categories/2/ph")), "f");
	/* streams sorted by (device, stream) */
	assert_int_equal(gp_value_len(gp_value_path(r, "overview/streams")), 2);
	assert_int_equal(tu_geti(r, "overview/streams/0/stream"), 7);
	assert_int_equal(tu_geti(r, "overview/streams/0/kernels"), 1);
	assert_int_equal(tu_geti(r, "overview/streams/0/memcpys"), 1);
	assert_int_equal(tu_geti(r, "overview/streams/1/stream"), 8);
	/* device 0 seen, no deviceProperties: properties unknown */
	assert_int_equal(tu_geti(r, "overview/devices/0/id"), 0);
	assert_int_equal(gp_value_type(gp_value_path(r, "overview/devices/0/num_sms")),
	                 GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(r, "overview/distributed")), GP_VALUE_NULL);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "overview/trace/ts_format")),
	                    "integer_us");
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overview),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
