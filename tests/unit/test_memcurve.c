/* SPDX-License-Identifier: MIT */
/*
 * test_memcurve.c - the devices' allocated curves (analyze/memcurve.c):
 * grouping by device, time order with the file's order at equal times, Total
 * Allocated against the running sum of Bytes, windows, and many devices.
 */
#include "testutil.h"

#include "analyze/memcurve.h"

static void mem(struct gp_trace *t, int64_t ts, int64_t bytes, int64_t total, int32_t type,
                int32_t dev)
{
	struct gp_mem_event m = { .ts = ts,
		                  .bytes = bytes,
		                  .total_allocated = total,
		                  .total_reserved = total >= 0 ? total + 10 : -1,
		                  .addr = -1,
		                  .device = dev,
		                  .device_type = type };

	assert_int_equal(gp__trace_track(t, 1, 0, 1, 0, &m.track), 0);
	assert_int_equal(gp__trace_add_mem(t, &m), 0);
}

static void test_devices_and_order(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__memcurve mc;
	int64_t peak = 0, end = 0;

	(void)state;
	mem(t, 50, 8, -1, 0, -1);   /* CPU: running sum */
	mem(t, 30, 100, 100, 1, 1); /* GPU 1 */
	mem(t, 20, 64, 64, 1, 0);   /* GPU 0 */
	mem(t, 20, 16, 80, 1, 0);   /* same time: file order kept */
	mem(t, 40, -64, 16, 1, 0);
	mem(t, 10, 4, -1, -1, -1); /* unknown type without id: the CPU */
	assert_int_equal(gp__memcurve_build(t, &mc), 0);
	assert_int_equal(mc.ndev, 3);
	assert_int_equal(mc.dev[0].type, 1);
	assert_int_equal(mc.dev[0].id, 0);
	assert_int_equal(mc.dev[1].id, 1);
	assert_int_equal(mc.dev[2].type, 0);
	assert_true(mc.dev[0].use_total);
	assert_false(mc.dev[2].use_total);
	assert_int_equal(mc.dev[0].n, 3);
	assert_int_equal(mc.ord[mc.dev[0].first], 2);
	assert_int_equal(mc.ord[mc.dev[0].first + 1], 3);
	assert_int_equal(mc.alloc[mc.dev[0].first + 2], 16);
	assert_int_equal(mc.reserved[mc.dev[0].first + 2], 26);
	/* CPU: 4 at 10, then 12 at 50 */
	assert_int_equal(mc.alloc[mc.dev[2].first + 1], 12);
	assert_int_equal(mc.devof[5], 2);
	/* windows: the level carried in counts */
	assert_true(gp__memcurve_window(&mc, 0, 25, 45, &peak, &end));
	assert_int_equal(peak, 80);
	assert_int_equal(end, 16);
	assert_true(gp__memcurve_window(&mc, 0, 0, 20, &peak, &end));
	assert_int_equal(peak, 80);
	assert_false(gp__memcurve_window(&mc, 1, 0, 29, &peak, &end));
	assert_int_equal(gp__memcurve_at(&mc, 1, 29), SIZE_MAX);
	assert_int_equal(gp__memcurve_at(&mc, 1, 30), mc.dev[1].first);
	assert_false(gp__memcurve_window(&mc, 7, 0, 100, &peak, &end));
	gp__memcurve_release(&mc);
	gp__memcurve_release(&mc);
	gp_trace_free(t);
}

/* more devices than the linear scan keeps: each found once, in order */
static void test_many_devices(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__memcurve mc;
	size_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		mem(t, (int64_t)i, 1, -1, 1, (int32_t)((i * 37) % 50));
	assert_int_equal(gp__memcurve_build(t, &mc), 0);
	assert_int_equal(mc.ndev, 50);
	for (i = 0; i < 50; i++) {
		assert_int_equal(mc.dev[i].id, (int32_t)i);
		assert_int_equal(mc.dev[i].n, 2);
		assert_int_equal(mc.alloc[mc.dev[i].first + 1], 2);
	}
	gp__memcurve_release(&mc);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_and_order),
		cmocka_unit_test(test_many_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
