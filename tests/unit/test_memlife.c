/* SPDX-License-Identifier: MIT */
/*
 * test_memlife.c - the memory section's lifetimes (analyze/memlife.c,
 * memory.c, memleak.c): pairing by device and address with its odd cases,
 * what was live at the peak, the unfreed rows with the allocations made
 * before the first step apart, the downsampled curve, and the leak test's
 * trend and holder on steady, spiking, dipping and leaking loops.
 */
#include "testutil.h"

#include <stdio.h>

#include "gpuprof/analyze.h"
#include "gpuprof/value.h"

static int64_t running; /* Total Allocated of the test's GPU 0 */

static void mem(struct gp_trace *t, int64_t ts, int64_t bytes, int64_t addr)
{
	struct gp_mem_event m = { .ts = ts,
		                  .bytes = bytes,
		                  .total_allocated = (running += bytes),
		                  .total_reserved = 1 << 30,
		                  .addr = addr,
		                  .device = 0,
		                  .device_type = 1 };

	assert_int_equal(gp__trace_track(t, 1, 0, 1, 0, &m.track), 0);
	assert_int_equal(gp__trace_add_mem(t, &m), 0);
}

static struct gp_trace *trace(void)
{
	running = 1000; /* allocated before the trace */
	return tu_trace_new();
}

static const char *gets(const struct gp_value *r, const char *path)
{
	return gp_value_get_str(gp_value_path(r, path));
}

/* pairing: frees close the open address; unmatched frees, reused addresses, size mismatches */
static void test_pairing(void **state)
{
	struct gp_trace *t = trace();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::empty", 1, 1, 0, 100);
	mem(t, 1, 100, 0xa00);  /* A, freed at 3 */
	mem(t, 2, 50, 0xb00);   /* B, freed at 7 with another size */
	mem(t, 3, -100, 0xa00); /* frees A */
	mem(t, 4, -30, 0xc00);  /* allocated before the trace */
	mem(t, 5, 70, 0xa00);   /* A again: its free is never seen... */
	mem(t, 6, 80, 0xa00);   /* ...as A is allocated once more: lost */
	mem(t, 7, -40, 0xb00);  /* frees B */
	mem(t, 8, 9, -1);       /* no address */
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(tu_geti(r, "memory/pairing/paired"), 2);
	assert_int_equal(tu_geti(r, "memory/pairing/frees_unmatched"), 1);
	assert_int_equal(tu_geti(r, "memory/pairing/frees_lost"), 1);
	assert_int_equal(tu_geti(r, "memory/pairing/size_mismatch"), 1);
	assert_int_equal(tu_geti(r, "memory/pairing/without_address"), 1);
	/* never freed: the last A only (the lost one and the one without address are unknown) */
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/bytes"), 80);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/allocations"), 1);
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/0/op"), "aten::empty");
	assert_int_equal(
	    gp_value_type(gp_value_path(r, "memory/devices/0/unfreed/rows/0/first_step")),
	    GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

/* unfreed rows by op, largest first, with their steps; before the first step apart */
static void test_unfreed(void **state)
{
	struct gp_trace *t = trace();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "load_weights", 1, 1, 0, 50);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 100, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 200, 100);
	tu_add(t, GP_K_CPU_OP, "aten::cat", 1, 1, 110, 20);
	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 150, 20);
	tu_add(t, GP_K_CPU_OP, "aten::cat", 1, 1, 210, 20);
	mem(t, 10, 5000, 0x100); /* weights */
	mem(t, 115, 30, 0x200);  /* cat, step 1 */
	mem(t, 116, 30, 0x300);  /* cat, step 1 */
	mem(t, 155, 200, 0x400); /* mm, step 1, freed in step 2 */
	mem(t, 180, 10, 0x500);  /* outside any op, step 1 */
	mem(t, 215, 30, 0x600);  /* cat, step 2 */
	mem(t, 250, -200, 0x400);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/bytes"), 100);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/allocations"), 4);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/ops"), 2);
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/0/op"), "aten::cat");
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/rows/0/bytes"), 90);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/rows/0/allocations"), 3);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/rows/0/steps"), 2);
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/0/first_step"),
	                    "ProfilerStep#1");
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/0/last_step"), "ProfilerStep#2");
	assert_int_equal(gp_value_type(gp_value_path(r, "memory/devices/0/unfreed/rows/1/op")),
	                 GP_VALUE_NULL);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/before_steps/bytes"), 5000);
	assert_string_equal(gets(r, "memory/devices/0/unfreed/before_steps/rows/0/op"),
	                    "load_weights");
	/* live at the peak: 1000 before the trace + 5000 + 90 + 200 + 10 */
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_allocated_bytes"), 6300);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_ts_ns"), 215);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_live/bytes"), 5300);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_live/other_bytes"), 1000);
	assert_string_equal(gets(r, "memory/devices/0/peak_live/rows/0/op"), "load_weights");
	assert_string_equal(gets(r, "memory/devices/0/peak_live/rows/1/op"), "aten::mm");
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_live/rows/2/bytes"), 90);
	/* the steps' own peaks and ends */
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/0/peak_allocated_bytes"), 6270);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/0/allocated_at_end_bytes"), 6270);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/1/peak_allocated_bytes"), 6300);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/1/allocated_at_end_bytes"), 6100);
	gp_value_free(r);
	gp_trace_free(t);
}

/* more events than the curve keeps: at most 1000 points, the peak and the last among them */
static void test_curve(void **state)
{
	struct gp_trace *t = trace();
	const struct gp_value *pts;
	struct gp_value *r;
	int64_t v, last = 0, prev = INT64_MIN;
	size_t i, n;
	bool has_peak = false;

	(void)state;
	for (i = 0; i < 5000; i++) {
		mem(t, (int64_t)(i * 10), i == 3333 ? 1000000 : 64, (int64_t)(0x1000 + i * 64));
		mem(t, (int64_t)(i * 10 + 5), i == 3333 ? -1000000 : -64,
		    (int64_t)(0x1000 + i * 64));
	}
	r = tu_analyze(t, GP_COMPAT_NONE);
	pts = gp_value_path(r, "memory/devices/0/curve/allocated");
	n = gp_value_len(pts);
	assert_true(n <= 1000);
	assert_true(n >= 500);
	assert_true(
	    gp_value_get_bool(gp_value_path(r, "memory/devices/0/curve/downsampled"), false));
	assert_int_equal(tu_geti(r, "memory/devices/0/curve/events"), 10000);
	for (i = 0; i < n; i++) {
		int64_t ts;

		assert_true(gp_value_get_int(gp_arr_get(gp_arr_get(pts, i), 1), &v));
		assert_true(gp_value_get_int(gp_arr_get(gp_arr_get(pts, i), 0), &ts));
		assert_true(ts > prev);
		prev = ts;
		has_peak |= v == 1001000;
	}
	assert_true(has_peak);
	assert_int_equal(tu_geti(r, "memory/devices/0/peak_allocated_bytes"), 1001000);
	gp_value_get_int(gp_arr_get(gp_arr_get(pts, n - 1), 0), &last);
	assert_true(last >= 49000);
	/* a constant reserved level: one point per run */
	assert_int_equal(gp_value_len(gp_value_path(r, "memory/devices/0/curve/reserved")), 500);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a step's peak counts every event at its start, and the level carried in from before it */
static void test_step_start(void **state)
{
	struct gp_trace *t = trace();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 100, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 300, 100);
	mem(t, 50, 100, 0x100);
	mem(t, 100, 1000, 0x200);
	mem(t, 100, -1000, 0x200);
	mem(t, 150, 10, 0x300);
	mem(t, 350, -10, 0x300);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/0/peak_allocated_bytes"), 2100);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/0/allocated_at_end_bytes"), 1110);
	/* step 2: carried in 1110, then 1100 */
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/1/peak_allocated_bytes"), 1110);
	assert_int_equal(tu_geti(r, "memory/devices/0/step_growth/1/allocated_at_end_bytes"), 1100);
	gp_value_free(r);
	gp_trace_free(t);
}

/* outside any op: the innermost annotation or NVTX range holds it, never a ProfilerStep */
static void test_annotation_op(void **state)
{
	struct gp_trace *t = trace();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 100, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "train_loop", 1, 1, 110, 80);
	tu_add(t, GP_K_USER_ANNOTATION, "cache_fill", 1, 1, 120, 20);
	tu_add(t, GP_K_CPU_OP, "aten::empty", 1, 1, 150, 10);
	mem(t, 125, 64, 0x100); /* cache_fill */
	mem(t, 155, 32, 0x200); /* aten::empty */
	mem(t, 170, 16, 0x300); /* train_loop */
	mem(t, 195, 8, 0x400);  /* only the step */
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/0/op"), "cache_fill");
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/1/op"), "aten::empty");
	assert_string_equal(gets(r, "memory/devices/0/unfreed/rows/2/op"), "train_loop");
	assert_int_equal(gp_value_type(gp_value_path(r, "memory/devices/0/unfreed/rows/3/op")),
	                 GP_VALUE_NULL);
	/* top_allocators and peak_op name CPU operators only */
	assert_int_equal(gp_value_len(gp_value_path(r, "memory/top_allocators")), 1);
	assert_string_equal(gets(r, "memory/top_allocators/0/name"), "aten::empty");
	assert_int_equal(gp_value_type(gp_value_path(r, "memory/devices/0/peak_op")),
	                 GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * @p nsteps steps of 100 ns: each allocates and frees 500 in aten::mm; step
 * i also keeps keep[i] bytes made in aten::cat and frees drop[i] bytes of
 * what an earlier step of aten::index kept (idx_keep[i] made per step).
 */
static struct gp_value *loop(size_t nsteps, const int64_t *keep, const int64_t *idx_keep,
                             const int64_t *drop)
{
	struct gp_trace *t = trace();
	struct gp_value *r;
	int64_t addr = 0x10000;
	size_t i;

	for (i = 0; i < nsteps; i++) {
		char name[32];
		int64_t s = (int64_t)(100 + i * 100);

		snprintf(name, sizeof(name), "ProfilerStep#%zu", i + 1);
		tu_add(t, GP_K_USER_ANNOTATION, name, 1, 1, s, 100);
		tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, s + 10, 10);
		tu_add(t, GP_K_CPU_OP, "aten::cat", 1, 1, s + 30, 10);
		tu_add(t, GP_K_CPU_OP, "aten::index", 1, 1, s + 50, 10);
		mem(t, s + 12, 500, 0x5000);
		mem(t, s + 18, -500, 0x5000);
		if (keep && keep[i])
			mem(t, s + 32, keep[i], addr += 0x100);
		if (idx_keep && idx_keep[i])
			mem(t, s + 52, idx_keep[i], 0x90000 + (int64_t)i * 0x100);
		if (drop && drop[i])
			mem(t, s + 70, -drop[i], 0x90000 + (int64_t)(i - 2) * 0x100);
	}
	r = tu_analyze(t, GP_COMPAT_NONE);
	gp_trace_free(t);
	return r;
}

static bool suspect(const struct gp_value *r)
{
	return gp_value_get_bool(gp_value_path(r, "memory/devices/0/leak/suspect"), true);
}

static void test_leak_steady(void **state)
{
	struct gp_value *r = loop(6, NULL, NULL, NULL);

	(void)state;
	assert_false(suspect(r));
	assert_false(gp_value_get_bool(gp_value_path(r, "memory/devices/0/leak_suspect"), true));
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/rises"), 0);
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/growth_per_step_bytes"), 0);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/bytes"), 0);
	gp_value_free(r);
}

/* one spike (the optimizer's state in the first step, kept) is no leak */
static void test_leak_spike(void **state)
{
	static const int64_t keep[] = { 0, 4096, 0, 0, 0, 0 };
	struct gp_value *r = loop(6, keep, NULL, NULL);

	(void)state;
	assert_false(suspect(r));
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/rises"), 1);
	assert_int_equal(tu_geti(r, "memory/devices/0/unfreed/bytes"), 4096);
	gp_value_free(r);
}

/* a leak with one dip: named, with its growth; two dips are no trend */
static void test_leak_dip(void **state)
{
	static const int64_t keep[] = { 100, 100, 100, 100, 100, 100 };
	static const int64_t ikeep[] = { 300, 0, 0, 0, 0, 0 };
	static const int64_t drop1[] = { 0, 0, 300, 0, 0, 0 };
	struct gp_value *r = loop(6, keep, ikeep, drop1);

	(void)state;
	/* ends: 1400, 1500, 1300 (dip), 1400, 1500, 1600 */
	assert_true(suspect(r));
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/dips"), 1);
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/rises"), 4);
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/growth_per_step_bytes"), 100);
	assert_string_equal(gets(r, "memory/devices/0/leak/holder/op"), "aten::cat");
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/holder/steps"), 5);
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/holder/retained_bytes"), 500);
	assert_true(gp_value_get_bool(gp_value_path(r, "memory/devices/0/leak_suspect"), false));
	gp_value_free(r);
}

static void test_leak_two_dips(void **state)
{
	static const int64_t keep[] = { 100, 100, 100, 100, 100, 100 };
	static const int64_t ikeep[] = { 300, 300, 0, 0, 0, 0 };
	static const int64_t drop2[] = { 0, 0, 300, 300, 0, 0 };
	struct gp_value *r = loop(6, keep, ikeep, drop2);

	(void)state;
	assert_false(suspect(r));
	assert_int_equal(tu_geti(r, "memory/devices/0/leak/dips"), 2);
	gp_value_free(r);
}

/* a trend whose allocations are all freed later (a cache that drains) names no holder */
static void test_leak_no_holder(void **state)
{
	static const int64_t ikeep[] = { 100, 100, 100, 100, 0, 0 };
	static const int64_t drop[] = { 0, 0, 100, 100, 100, 100 };
	struct gp_value *r = loop(6, NULL, ikeep, drop);

	(void)state;
	assert_false(suspect(r));
	assert_int_equal(gp_value_type(gp_value_path(r, "memory/devices/0/leak/holder")),
	                 GP_VALUE_NULL);
	gp_value_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing),       cmocka_unit_test(test_unfreed),
		cmocka_unit_test(test_curve),         cmocka_unit_test(test_annotation_op),
		cmocka_unit_test(test_step_start),    cmocka_unit_test(test_leak_steady),
		cmocka_unit_test(test_leak_spike),    cmocka_unit_test(test_leak_dip),
		cmocka_unit_test(test_leak_two_dips), cmocka_unit_test(test_leak_no_holder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
