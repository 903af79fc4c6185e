/* SPDX-License-Identifier: MIT */
/*
 * test_memory.c - the memory section: peak with its step and operator,
 * top allocators, the Bytes running sum, and the leak heuristic.
 */
#include "testutil.h"

#include <stdio.h>

#include "gpuprof/analyze.h"
#include "gpuprof/value.h"

static void mem(struct gp_trace *t, int64_t ts, int64_t bytes, int64_t total)
{
	struct gp_mem_event m = { .ts = ts,
		                  .bytes = bytes,
		                  .total_allocated = total,
		                  .total_reserved = total >= 0 ? 4096 : -1,
		                  .addr = -1,
		                  .device = 0,
		                  .device_type = 1 };

	assert_int_equal(gp__trace_track(t, 1, 0, 1, 0, &m.track), 0);
	assert_int_equal(gp__trace_add_mem(t, &m), 0);
}

static void test_none(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 0, 10);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(gp_value_type(gp_obj_get(r, "memory")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

/* Peak 300 at ts 150 inside aten::linear > aten::mm (innermost), step #2. */
static void test_peak(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 100, 100);
	tu_add(t, GP_K_CPU_OP, "aten::empty", 1, 1, 10, 10);
	tu_add(t, GP_K_CPU_OP, "aten::linear", 1, 1, 120, 60);
	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 140, 20);
	mem(t, 15, 100, 100);
	mem(t, 150, 200, 300);
	mem(t, 170, -250, 50);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(tu_geti(r, "memory/devices/0/device"), 0);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_allocated_bytes"), 300);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_reserved_bytes"), 4096);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_ts_ns"), 150);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "memory/devices/0/peak_step")),
	                    "ProfilerStep#2");
	assert_string_equal(gp_value_get_str(gp_value_path(r, "memory/devices/0/peak_op")),
	                    "aten::mm");
	assert_int_equal(tu_geti(r, "memory/devices/0/final_allocated_bytes"), 50);
	assert_int_equal(tu_geti(r, "memory/devices/0/alloc_count"), 2);
	assert_int_equal(tu_geti(r, "memory/devices/0/free_count"), 1);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/0/allocated_at_end_bytes"), 100);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/1/allocated_at_end_bytes"), 50);
	assert_false(gp_value_get_bool(gp_value_path(r, "memory/devices/0/leak_suspect"), true));
	assert_string_equal(gp_value_get_str(gp_value_path(r, "memory/top_allocators/0/name")),
	                    "aten::mm");
	assert_int_equal(tu_geti(r, "memory/top_allocators/0/bytes"), 200);
	assert_int_equal(tu_geti(r, "memory/top_allocators/1/bytes"), 100);
	gp_value_free(r);
	gp_trace_free(t);
}

/* No Total Allocated: running sum of Bytes; 3 steps each growing by 100 (> 1 % of 300). */
static void test_leak(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		tu_add(t, GP_K_USER_ANNOTATION, name, 1, 1, i * 100, 100);
		mem(t, i * 100 + 10, 150, -1);
		mem(t, i * 100 + 20, -50, -1);
	}
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_string_equal(gp_value_get_str(gp_value_path(r, "memory/devices/0/allocated_source")),
	                    "bytes_sum");
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_allocated_bytes"), 350);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/2/allocated_at_end_bytes"), 300);
	assert_true(gp_value_get_bool(gp_value_path(r, "memory/devices/0/leak_suspect"), false));
	assert_int_equal(gp_value_type(gp_value_path(r, "memory/devices/0/peak_reserved_bytes")),
	                 GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_peak),
		cmocka_unit_test(test_leak),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
