/* SPDX-License-Identifier: MIT */
/*
 * test_bench_mem.c - memory per iteration in a bench result (bench/iters.c,
 * bench.c, bench-format.c): the peak and the at-end allocated bytes of each
 * ProfilerStep, range and frame from the trace's memory events, the most
 * loaded GPU of several, warm-up left out as for the times, the CPU never
 * counted, null when unknown; gp_bench_memory_at_end() and its checks; the
 * text and Markdown of a result with memory; compare's exact rule for memory
 * alike in every iteration at its edges.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench-int.h"
#include "gpuprof/bench.h"
#include "gpuprof/compare.h"
#include "gpuprof/value.h"

#define STEP 1000 /* ns per step */

static struct gp_value *result(struct gp_bench *b)
{
	struct gp_value *r = NULL;

	assert_int_equal(gp_bench_result(b, &r), 0);
	return r;
}

static void mem(struct gp_trace *t, int64_t ts, int64_t bytes, int64_t total, int32_t type,
                int32_t dev)
{
	struct gp_mem_event m = { .ts = ts,
		                  .bytes = bytes,
		                  .total_allocated = total,
		                  .total_reserved = -1,
		                  .addr = -1,
		                  .device = dev,
		                  .device_type = type };

	assert_int_equal(gp__trace_track(t, 1, 0, 1, 0, &m.track), 0);
	assert_int_equal(gp__trace_add_mem(t, &m), 0);
}

/*
 * Four ProfilerSteps of STEP ns from 1000, a kernel each. GPU 0 (Total
 * Allocated): 1000 B before the first; each step allocates 500 B at +100 and
 * frees 300 B at +600, so step i peaks at 1500 + 200 i and ends at
 * 1200 + 200 i. With @p gpu1, GPU 1 holds 1600 B from the start. The CPU's
 * events are far larger and never count.
 */
static struct gp_trace *step_trace(bool gpu1)
{
	struct gp_trace *t = tu_trace_new();
	int64_t total = 1000;

	mem(t, 500, 1000, total, 1, 0);
	mem(t, 500, 1 << 30, 1 << 30, 0, -1);
	if (gpu1)
		mem(t, 10, 1600, 1600, 1, 1);
	for (int i = 0; i < 4; i++) {
		int64_t s = 1000 + (int64_t)i * STEP;
		char name[32];

		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		tu_add(t, GP_K_USER_ANNOTATION, name, 1, 1, s, STEP);
		tu_runtime(t, "cudaLaunchKernel", 1, 1, s + 10, 5, i + 1);
		tu_kernel(t, "k", 0, 7, s + 20, 100, i + 1);
		total += 500;
		mem(t, s + 100, 500, total, 1, 0);
		total -= 300;
		mem(t, s + 600, -300, total, 1, 0);
		mem(t, s + 700, 1 << 20, (int64_t)(i + 2) << 30, 0, -1);
	}
	return t;
}

static void test_steps(void **state)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp_trace *t = step_trace(false);
	struct gp_bench *b = gp_bench_new("trace", 0);
	struct gp_value *r;

	(void)state;
	o.warmup = 1;
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	r = result(b);
	assert_string_equal(tu_gets(r, "series/0/name"), "ProfilerStep");
	assert_int_equal(tu_geti(r, "series/0/n"), 3);
	/* the warm-up step (1500 / 1200) is left out, as its time is */
	for (int i = 0; i < 3; i++) {
		char k[64];

		snprintf(k, sizeof(k), "series/0/peak_memory_bytes/%d", i);
		assert_int_equal(tu_geti(r, k), 1700 + 200 * i);
		snprintf(k, sizeof(k), "series/0/memory_at_end_bytes/%d", i);
		assert_int_equal(tu_geti(r, k), 1400 + 200 * i);
	}
	assert_true(fabs(tu_getd(r, "series/0/memory_stats/mean_bytes") - 1900) < 1e-9);
	assert_true(fabs(tu_getd(r, "series/0/memory_stats/std_bytes") - 200) < 1e-9);
	assert_true(fabs(tu_getd(r, "series/0/memory_at_end_stats/min_bytes") - 1400) < 1e-9);
	assert_true(fabs(tu_getd(r, "series/0/memory_at_end_stats/max_bytes") - 1800) < 1e-9);
	assert_true(fabs(tu_getd(r, "series/0/memory_at_end_stats/median_bytes") - 1600) < 1e-9);
	gp_value_free(r);
	gp_bench_free(b);
	gp_trace_free(t);
}

/* two GPUs: the highest of each number over them, each on its own */
static void test_two_gpus(void **state)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp_trace *t = step_trace(true);
	struct gp_bench *b = gp_bench_new("trace", 0);
	struct gp_value *r;

	(void)state;
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	r = result(b);
	assert_int_equal(tu_geti(r, "series/0/n"), 4);
	/* GPU 0 peaks 1500 1700 1900 2100, ends 1200 1400 1600 1800; GPU 1 stays at 1600 */
	assert_int_equal(tu_geti(r, "series/0/peak_memory_bytes/0"), 1600);
	assert_int_equal(tu_geti(r, "series/0/peak_memory_bytes/1"), 1700);
	assert_int_equal(tu_geti(r, "series/0/memory_at_end_bytes/0"), 1600);
	assert_int_equal(tu_geti(r, "series/0/memory_at_end_bytes/1"), 1600);
	assert_int_equal(tu_geti(r, "series/0/memory_at_end_bytes/3"), 1800);
	gp_value_free(r);
	gp_bench_free(b);
	gp_trace_free(t);
}

/*
 * Ranges and frames over a running sum of Bytes (no Total Allocated, as in
 * 2021 traces and captures): the level carried into an iteration counts.
 */
static void test_ranges_and_frames(void **state)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp_trace *t = tu_trace_new();
	struct gp_bench *b = gp_bench_new("capture", 0);
	struct gp_value *r;

	(void)state;
	for (int i = 0; i < 3; i++) {
		int64_t s = (int64_t)i * 100;
		size_t k;

		tu_add(t, GP_K_USER_ANNOTATION, "iter", 1, 1, s, 100);
		k = tu_add(t, GP_K_OTHER, "frame", 1, 1, s, 0);
		t->ev.flags[k] |= GP_EVF_MARK;
	}
	/* 64 before; iteration i: +32 at +10, -16 at +50 */
	mem(t, 0, 64, -1, 1, 0);
	for (int i = 0; i < 3; i++) {
		mem(t, i * 100 + 10, 32, -1, 1, 0);
		mem(t, i * 100 + 50, -16, -1, 1, 0);
	}
	o.iter_range = "iter";
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	o.iter_range = NULL;
	o.frame_mark = "frame";
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	r = result(b);
	/* ranges: peaks 96, 112, 128; ends 80, 96, 112 */
	assert_int_equal(tu_geti(r, "series/0/n"), 3);
	assert_int_equal(tu_geti(r, "series/0/peak_memory_bytes/0"), 96);
	assert_int_equal(tu_geti(r, "series/0/peak_memory_bytes/2"), 128);
	assert_int_equal(tu_geti(r, "series/0/memory_at_end_bytes/0"), 80);
	assert_int_equal(tu_geti(r, "series/0/memory_at_end_bytes/2"), 112);
	/* frames from mark to mark: two, the same windows as the first two ranges */
	assert_int_equal(tu_geti(r, "series/1/n"), 2);
	assert_int_equal(tu_geti(r, "series/1/peak_memory_bytes/1"), 112);
	assert_int_equal(tu_geti(r, "series/1/memory_at_end_bytes/1"), 96);
	gp_value_free(r);
	gp_bench_free(b);
	gp_trace_free(t);
}

/* no GPU memory event, or none before an iteration's end: the series has no memory */
static void test_unknown(void **state)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp_trace *t = tu_trace_new();
	struct gp_bench *b = gp_bench_new("trace", 0);
	struct gp_value *r;

	(void)state;
	o.iter_range = "iter";
	tu_add(t, GP_K_USER_ANNOTATION, "iter", 1, 1, 0, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "iter", 1, 1, 100, 100);
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	mem(t, 10, 8, -1, 0, -1); /* the CPU only */
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	mem(t, 150, 8, 8, 1, 0); /* a GPU, but only from the second iteration */
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	o.warmup = 1; /* ... which is all that is measured now */
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	r = result(b);
	for (int i = 0; i < 3; i++) {
		const struct gp_value *s = gp_arr_get(gp_obj_get(r, "series"), (size_t)i);

		assert_int_equal(gp_value_type(gp_obj_get(s, "peak_memory_bytes")), GP_VALUE_NULL);
		assert_int_equal(gp_value_type(gp_obj_get(s, "memory_at_end_bytes")),
		                 GP_VALUE_NULL);
		assert_int_equal(gp_value_type(gp_obj_get(s, "memory_stats")), GP_VALUE_NULL);
		assert_int_equal(gp_value_type(gp_obj_get(s, "memory_at_end_stats")),
		                 GP_VALUE_NULL);
	}
	assert_int_equal(tu_geti(r, "series/3/peak_memory_bytes/0"), 8);
	assert_int_equal(tu_geti(r, "series/3/memory_at_end_bytes/0"), 8);
	gp_value_free(r);
	gp_bench_free(b);
	gp_trace_free(t);
}

static void test_api_and_text(void **state)
{
	static const double times[] = { 29e6, 29.5e6, 28.5e6 };
	static const double peak[] = { 2291.17e6, 2291.17e6, 2291.17e6 };
	static const double end[] = { 1e9, 1.5e9, 2e9 };
	static const double bad[] = { 1, -1, 1 };
	struct gp_bench *b = gp_bench_new("python", 0);
	struct gp_value *r;
	char *txt = NULL;
	size_t len = 0;
	int si;

	(void)state;
	si = gp_bench_add(b, "fwd", NULL, 1, 0, times, 3, NULL, peak, NULL);
	assert_int_equal(si, 0);
	assert_int_equal(gp_bench_memory_at_end(b, 1, end, 3), GP_EINVAL);
	assert_int_equal(gp_bench_memory_at_end(b, si, end, 2), GP_EINVAL);
	assert_int_equal(gp_bench_memory_at_end(b, si, NULL, 3), GP_EINVAL);
	assert_int_equal(gp_bench_memory_at_end(b, si, bad, 3), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "memory_at_end_bytes[1]"));
	assert_int_equal(gp_bench_memory_at_end(b, si, end, 3), 0);
	r = result(b);
	assert_true(fabs(tu_getd(r, "series/0/memory_at_end_stats/mean_bytes") - 1.5e9) < 1e-3);
	assert_true(fabs(tu_getd(r, "series/0/memory_at_end_stats/std_bytes") - 0.5e9) < 1e-3);
	assert_true(fabs(tu_getd(r, "series/0/memory_stats/std_bytes")) < 1e-3);
	gp_value_free(r);

	/* the text: memory beside the time, each line in its mean's unit, σ in its own */
	assert_int_equal(gp_bench_text(b, GP_BENCH_TEXT, &txt, &len), 0);
	assert_non_null(
	    strstr(txt, "  memory  peak   mean 2.1 GiB ± 0 B  min 2.1 GiB  max 2.1 GiB\n"));
	assert_non_null(
	    strstr(txt, "          at end mean 1.4 GiB ± 476.8 MiB  min 0.9 GiB  max 1.9 GiB\n"));
	gp_free(txt);
	assert_int_equal(gp_bench_text(b, GP_BENCH_MARKDOWN, &txt, &len), 0);
	assert_non_null(strstr(txt, "peak memory (mean)"));
	assert_non_null(strstr(txt, "2.1 GiB"));
	gp_free(txt);
	gp_bench_free(b);
}

/* a bench result of @p n iterations of 1 ms with every peak @p peak (and at-end bytes 1 MiB) */
static struct gp_value *mem_doc(size_t n, double peak)
{
	double t[8], p[8], e[8];
	struct gp_bench *b = gp_bench_new("python", 0);
	struct gp_value *r;

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) {
		t[i] = 1e6;
		p[i] = peak;
		e[i] = 1048576;
	}
	assert_int_equal(gp_bench_add(b, "s", NULL, 1, 0, t, n, NULL, p, NULL), 0);
	assert_int_equal(gp_bench_memory_at_end(b, 0, e, n), 0);
	r = result(b);
	gp_bench_free(b);
	return r;
}

/* the verdict and the test of metric "peak_memory" of base and new peaks; *reg the regression */
static const char *peak_verdict(size_t n, double base, double new_, const char **test, bool *reg)
{
	static char v[32];
	struct gp_value *a = mem_doc(n, base), *b = mem_doc(n, new_), *r = NULL;
	const struct gp_value *ms;

	assert_int_equal(gp_compare_values(a, b, NULL, &r), 0);
	ms = gp_obj_get(gp_arr_get(gp_obj_get(r, "groups"), 0), "metrics");
	v[0] = 0;
	*test = NULL;
	for (size_t i = 0; i < gp_value_len(ms); i++) {
		const struct gp_value *m = gp_arr_get(ms, i);

		if (strcmp(gp_value_get_str(gp_obj_get(m, "metric")), "peak_memory") != 0)
			continue;
		snprintf(v, sizeof(v), "%s", gp_value_get_str(gp_obj_get(m, "verdict")));
		*test = gp_value_get_str(gp_obj_get(m, "test")) &&
		                strcmp(gp_value_get_str(gp_obj_get(m, "test")), "exact") == 0
		            ? "exact"
		            : "other";
	}
	*reg = gp_compare_regression(r);
	gp_value_free(a);
	gp_value_free(b);
	gp_value_free(r);
	return v;
}

static void test_compare_exact(void **state)
{
	const double g = 1e9, mi = 1048576.0; /* 1 % of 1e9 is exact: 1e7 */
	const char *test;
	bool reg;

	(void)state;
	/* 1 % of 1 GB is 10 MB: at the margin the same, a byte past it worse */
	assert_string_equal(peak_verdict(4, g, g + 1e7, &test, &reg), "same");
	assert_string_equal(test, "exact");
	assert_false(reg);
	assert_string_equal(peak_verdict(4, g, g + 1e7 + 1, &test, &reg), "worse");
	assert_true(reg);
	assert_string_equal(peak_verdict(4, g, g - 1e7 - 1, &test, &reg), "better");
	assert_false(reg);
	/* under 100 MiB the 1 MiB floor decides, also from 0 */
	assert_string_equal(peak_verdict(4, 10 * mi, 11 * mi, &test, &reg), "same");
	assert_string_equal(peak_verdict(4, 10 * mi, 11 * mi + 1, &test, &reg), "worse");
	assert_string_equal(peak_verdict(4, 0, mi, &test, &reg), "same");
	assert_string_equal(peak_verdict(4, 0, 2 * mi, &test, &reg), "worse");
	/* one iteration a side: under --min-samples, not exact, no verdict */
	assert_string_equal(peak_verdict(1, g, 2 * g, &test, &reg), "inconclusive");
	assert_string_equal(test, "other");
	assert_false(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_two_gpus),
		cmocka_unit_test(test_ranges_and_frames),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_api_and_text),
		cmocka_unit_test(test_compare_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
