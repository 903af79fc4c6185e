/* SPDX-License-Identifier: MIT */
/*
 * test_bench.c - bench results (bench.h): statistics, throughput and
 * warnings of hand-made series, the iterations of small synthetic traces
 * (ranges and frame marks, with the GPU time launched inside each), the
 * JSON document and the tables.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "bench/bench-int.h"
#include "gpuprof/bench.h"
#include "gpuprof/value.h"

static struct gp_value *result(struct gp_bench *b)
{
	struct gp_value *r = NULL;

	assert_int_equal(gp_bench_result(b, &r), 0);
	return r;
}

static bool has_warning(const struct gp_value *s, const char *id)
{
	const struct gp_value *w = gp_obj_get(s, "warnings");

	for (size_t i = 0; i < gp_value_len(w); i++)
		if (strcmp(gp_value_get_str(gp_obj_get(gp_arr_get(w, i), "id")), id) == 0)
			return true;
	return false;
}

/* five runs of 10..50 ms, batch 4: mean 30 ms, median 30 ms, n/sum = 5/0.15 s */
static void test_series_stats(void **state)
{
	static const double t[] = { 10e6, 20e6, 30e6, 40e6, 50e6 };
	static const double w[] = { 70e6 };
	static const int codes[] = { 0, 0, 0, 0, 0 };
	struct gp_bench *b = gp_bench_new("command", 7);
	struct gp_value *r;
	const struct gp_value *s;

	(void)state;
	assert_non_null(b);
	assert_int_equal(gp_bench_add(b, "work", NULL, 4, 1, t, 5, NULL, NULL, codes), 0);
	assert_int_equal(gp_bench_warmup_times(b, 0, w, 1), 0);
	assert_int_equal(gp_bench_tag(b, "dtype", "fp16"), 0);
	r = result(b);
	assert_string_equal(tu_gets(r, "schema"), GP_BENCH_SCHEMA);
	assert_string_equal(tu_gets(r, "source/kind"), "command");
	assert_string_equal(tu_gets(r, "tags/dtype"), "fp16");
	assert_int_equal(tu_geti(r, "seed"), 7);
	s = gp_value_path(r, "series/0");
	assert_string_equal(tu_gets(s, "name"), "work");
	assert_int_equal(tu_geti(s, "n"), 5);
	assert_int_equal(tu_geti(s, "warmup"), 1);
	assert_int_equal(tu_geti(s, "warmup_times_ns/0"), 70000000);
	assert_int_equal(tu_geti(s, "times_ns/4"), 50000000);
	assert_true(fabs(tu_getd(s, "stats/mean_ns") - 30e6) < 1e-3);
	assert_true(fabs(tu_getd(s, "stats/median_ns") - 30e6) < 1e-3);
	/* sample std of 10..50 step 10: sqrt(1000/4) * 1e6 = 15.811388e6 */
	assert_true(fabs(tu_getd(s, "stats/std_ns") - 15811388.300842) < 1.0);
	assert_true(fabs(tu_getd(s, "stats/min_ns") - 10e6) < 1e-3);
	/* R-7 p90 of 5 values: h = 3.6 -> 40 + 0.6 * 10 = 46 ms */
	assert_true(fabs(tu_getd(s, "stats/p90_ns") - 46e6) < 1e-3);
	/* 5 iterations in 0.15 s: 33.33/s, 133.33 items/s with batch 4 */
	assert_true(fabs(tu_getd(s, "throughput/iterations_per_s") - 100.0 / 3) < 1e-4);
	assert_true(fabs(tu_getd(s, "throughput/items_per_s") - 400.0 / 3) < 1e-4);
	assert_string_equal(tu_gets(s, "rate_name"), "items/s");
	assert_int_equal(gp_value_type(gp_obj_get(s, "gpu_stats")), GP_VALUE_NULL);
	assert_int_equal(tu_geti(s, "exit_codes/2"), 0);
	assert_false(has_warning(s, "failed_runs"));
	assert_false(has_warning(s, "short_runs"));
	assert_false(has_warning(s, "few_samples"));
	gp_value_free(r);
	gp_bench_free(b);
}

static void test_warnings(void **state)
{
	double slow_first[12], one_out[12], warming[20], short_runs[3] = { 1e6, 1.1e6, 0.9e6 };
	int codes[3] = { 0, 2, 0 };
	struct gp_bench *b = gp_bench_new("command", 0);
	struct gp_value *r;

	(void)state;
	/* one slow first run among steady ones */
	for (int i = 0; i < 12; i++)
		slow_first[i] = 10e6 + (i % 3) * 0.1e6;
	slow_first[0] = 40e6;
	/* the first 2 of 20 (n / 10) at +50 %, the rest steady */
	for (int i = 0; i < 20; i++)
		warming[i] = (i < 2 ? 15e6 : 10e6) + (i % 4) * 0.05e6;
	assert_int_equal(gp_bench_add(b, "a", NULL, 1, 0, slow_first, 12, NULL, NULL, NULL), 0);
	assert_int_equal(gp_bench_add(b, "b", NULL, 1, 0, warming, 20, NULL, NULL, NULL), 1);
	assert_int_equal(gp_bench_add(b, "c", "runs/s", 1, 0, short_runs, 3, NULL, NULL, codes), 2);
	assert_int_equal(gp_bench_add(b, "d", NULL, 1, 0, warming, 1, NULL, NULL, NULL), 3);
	/* one outlier, not the first run */
	memcpy(one_out, slow_first, sizeof(one_out));
	one_out[0] = one_out[1];
	one_out[5] = 40e6;
	assert_int_equal(gp_bench_add(b, "e", NULL, 1, 0, one_out, 12, NULL, NULL, NULL), 4);
	r = result(b);
	assert_true(has_warning(gp_value_path(r, "series/0"), "slow_first_run"));
	assert_false(has_warning(gp_value_path(r, "series/0"), "outliers"));
	assert_true(has_warning(gp_value_path(r, "series/1"), "not_steady"));
	assert_true(has_warning(gp_value_path(r, "series/2"), "failed_runs"));
	assert_true(has_warning(gp_value_path(r, "series/2"), "short_runs"));
	assert_true(has_warning(gp_value_path(r, "series/2"), "few_samples"));
	/* compare does decide with 3 a side (Welch's t): the warning does not say otherwise */
	for (size_t i = 0; i < gp_value_len(gp_value_path(r, "series/2/warnings")); i++) {
		const struct gp_value *w = gp_arr_get(gp_value_path(r, "series/2/warnings"), i);

		if (strcmp(gp_value_get_str(gp_obj_get(w, "id")), "few_samples") == 0)
			assert_string_equal(
			    gp_value_get_str(gp_obj_get(w, "text")),
			    "3 measured iterations: compare can confirm only large changes; "
			    "more confirm smaller ones");
	}
	assert_true(has_warning(gp_value_path(r, "series/4"), "outliers"));
	assert_string_equal(tu_gets(r, "series/4/warnings/0/text"),
	                    "1 of 12 iterations is a statistical outlier (modified z-score over "
	                    "14.826); other work on the machine may have interfered: re-run on a "
	                    "quiet system");
	assert_string_equal(tu_gets(r, "series/3/warnings/0/text"),
	                    "1 measured iteration: compare needs at least 2 a side for a verdict");
	assert_string_equal(tu_gets(r, "series/2/rate_name"), "runs/s");
	gp_value_free(r);
	gp_bench_free(b);
}

static void test_errors(void **state)
{
	double t[2] = { 1, NAN }, ok[1] = { 5 };
	struct gp_bench *b = gp_bench_new("python", 0);

	(void)state;
	assert_int_equal(gp_bench_add(b, "x", NULL, 1, 0, t, 0, NULL, NULL, NULL), GP_EINVAL);
	assert_int_equal(gp_bench_add(b, "x", NULL, 1, 0, t, 2, NULL, NULL, NULL), GP_EINVAL);
	assert_int_equal(gp_bench_add(b, "x", NULL, 0, 0, ok, 1, NULL, NULL, NULL), GP_EINVAL);
	assert_int_equal(gp_bench_add(b, NULL, NULL, 1, 0, ok, 1, NULL, NULL, NULL), GP_EINVAL);
	assert_int_equal(gp_bench_warmup_times(b, 0, ok, 1), GP_EINVAL);
	assert_int_equal(gp_bench_tag(b, "", "v"), GP_EINVAL);
	gp_bench_free(b);
}

/*
 * Ranges "iter" [0,100) [100,200) [200,300) on thread 1. Launched in the first:
 * kernels [50,120) (call at 10) and [110,130) (call at 20): union 80. In the
 * second: a kernel [160,170) (call at 150) and a copy [165,180) (call at 160):
 * union 20. The third launches nothing. Marks "gpuprof:frame" at 0, 100, 250.
 */
static struct gp_trace *iter_trace(void)
{
	struct gp_trace *t = tu_trace_new();
	size_t m;

	tu_add(t, GP_K_USER_ANNOTATION, "iter", 1, 1, 0, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "iter", 1, 1, 100, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "iter", 1, 1, 200, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "other", 1, 1, 0, 300);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 10, 5, 1);
	tu_kernel(t, "k1", 0, 7, 50, 70, 1);
	tu_runtime(t, "cudaLaunchKernel", 1, 2, 20, 5, 2);
	tu_kernel(t, "k2", 0, 8, 110, 20, 2);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 150, 5, 3);
	tu_kernel(t, "k3", 0, 7, 160, 10, 3);
	tu_runtime(t, "cudaMemcpyAsync", 1, 1, 160, 5, 4);
	m = tu_kernel(t, "Memcpy HtoD", 0, 7, 165, 15, 4);
	t->ev.kind[m] = GP_K_MEMCPY;
	/* a kernel with no launch call is not attributed */
	tu_kernel(t, "orphan", 0, 7, 20, 10, 99);
	for (int64_t ts = 0; ts <= 250; ts += ts == 100 ? 150 : 100) {
		size_t k = tu_add(t, GP_K_OTHER, "gpuprof:frame", 1, 1, ts, 0);

		t->ev.flags[k] |= GP_EVF_MARK;
	}
	return t;
}

static void test_ranges(void **state)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp_trace *t = iter_trace();
	struct gp_bench *b = gp_bench_new("trace", 0);
	struct gp_value *r;

	(void)state;
	o.iter_range = "iter";
	o.warmup = 1;
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	r = result(b);
	assert_string_equal(tu_gets(r, "series/0/name"), "iter");
	assert_string_equal(tu_gets(r, "series/0/rate_name"), "iter/s");
	assert_int_equal(tu_geti(r, "series/0/n"), 2);
	assert_int_equal(tu_geti(r, "series/0/warmup_times_ns/0"), 100);
	assert_int_equal(tu_geti(r, "series/0/times_ns/0"), 100);
	assert_int_equal(tu_geti(r, "series/0/gpu_ns/0"), 20);
	assert_int_equal(tu_geti(r, "series/0/gpu_ns/1"), 0);
	gp_value_free(r);

	/* all three, no warm-up: the first's GPU time is the union of its two kernels */
	o.warmup = 0;
	gp_bench_free(b);
	b = gp_bench_new("trace", 0);
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 3, true, &o), 0);
	r = result(b);
	assert_string_equal(tu_gets(r, "series/0/name"), "iter [rank 3]");
	assert_int_equal(tu_geti(r, "series/0/gpu_ns/0"), 80);
	gp_value_free(r);

	/* errors: no such range; a warm-up that takes everything */
	o.iter_range = "nope";
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), GP_ENOENT);
	o.iter_range = "iter";
	o.warmup = 3;
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), GP_EINVAL);
	gp_bench_free(b);
	gp_trace_free(t);
}

static void test_frames(void **state)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp_trace *t = iter_trace();
	struct gp_bench *b = gp_bench_new("capture", 0);
	struct gp_value *r;

	(void)state;
	o.frame_mark = "gpuprof:frame";
	o.batch_size = 2;
	assert_int_equal(gp__bench_add_trace(b, t, "mem", 0, false, &o), 0);
	r = result(b);
	assert_string_equal(tu_gets(r, "series/0/rate_name"), "FPS");
	assert_int_equal(tu_geti(r, "series/0/n"), 2);
	assert_int_equal(tu_geti(r, "series/0/times_ns/0"), 100);
	assert_int_equal(tu_geti(r, "series/0/times_ns/1"), 150);
	assert_int_equal(tu_geti(r, "series/0/gpu_ns/0"), 80);
	assert_int_equal(tu_geti(r, "series/0/gpu_ns/1"), 20);
	/* GPU / wall per frame: 0.8 and 20 / 150; the median of two is their mean */
	assert_true(fabs(tu_getd(r, "series/0/gpu_share") - (0.8 + 20.0 / 150) / 2) < 1e-6);
	/* 2 frames of batch 2 in 250 ns: 1.6e7 items/s */
	assert_true(fabs(tu_getd(r, "series/0/throughput/items_per_s") - 1.6e7) < 1e-3);
	gp_value_free(r);
	gp_bench_free(b);
	gp_trace_free(t);
}

static void test_json_and_tables(void **state)
{
	static const double t[] = { 1e6, 2e6, 3e6, 4e6, 5e6, 6e6 };
	static const double g[] = { 0.5e6, 1e6, 1e6, 1e6, 1e6, 1e6 };
	struct gp_bench *b = gp_bench_new("python", 0);
	struct gp_value *back = NULL;
	char *text = NULL;
	size_t len = 0, off = 0;

	(void)state;
	assert_int_equal(gp_bench_add(b, "a|b", "FPS", 1, 0, t, 6, g, NULL, NULL), 0);
	assert_int_equal(gp_bench_json(b, false, &text, &len), 0);
	assert_int_equal(gp_value_parse(text, len, &back, &off), 0);
	gp_free(text);
	assert_string_equal(tu_gets(back, "schema"), GP_BENCH_SCHEMA);
	assert_true(fabs(tu_getd(back, "series/0/gpu_stats/median_ns") - 1e6) < 1e-3);

	assert_int_equal(gp_bench_format(back, GP_BENCH_TEXT, &text, &len), 0);
	assert_non_null(strstr(text, "a|b  (6 iterations, 0 warm-up)"));
	assert_non_null(strstr(text, "median 3.500 ms"));
	assert_non_null(strstr(text, "FPS"));
	gp_free(text);
	assert_int_equal(gp_bench_format(back, GP_BENCH_MARKDOWN, &text, &len), 0);
	assert_non_null(strstr(text, "| series | n | median"));
	assert_non_null(strstr(text, "| a\\|b | 6 | 3.500 ms |"));
	assert_non_null(strstr(text, "| GPU median |"));
	gp_free(text);
	gp_value_free(back);
	gp_bench_free(b);

	/* commands have no GPU time: no "GPU median" column of "-" */
	b = gp_bench_new("command", 0);
	assert_int_equal(gp_bench_add(b, "sleep", NULL, 1, 0, t, 6, NULL, NULL, NULL), 0);
	assert_int_equal(gp_bench_json(b, false, &text, &len), 0);
	off = 0;
	assert_int_equal(gp_value_parse(text, len, &back, &off), 0);
	gp_free(text);
	assert_int_equal(gp_bench_format(back, GP_BENCH_MARKDOWN, &text, &len), 0);
	assert_null(strstr(text, "GPU median"));
	assert_null(strstr(text, "| - |"));
	assert_non_null(strstr(text, "| sleep | 6 | 3.500 ms |"));
	gp_free(text);
	gp_value_free(back);
	gp_bench_free(b);

	/* one iteration: "1 iteration", its time alone (no "± 0.000 ms", no p99) */
	b = gp_bench_new("command", 0);
	assert_int_equal(gp_bench_add(b, "once", NULL, 1, 0, t, 1, NULL, NULL, NULL), 0);
	assert_int_equal(gp_bench_json(b, false, &text, &len), 0);
	off = 0;
	assert_int_equal(gp_value_parse(text, len, &back, &off), 0);
	gp_free(text);
	assert_int_equal(gp_bench_format(back, GP_BENCH_TEXT, &text, &len), 0);
	assert_non_null(strstr(text, "once  (1 iteration, 0 warm-up)\n  time    1.000 ms\n"));
	assert_null(strstr(text, "±"));
	assert_null(strstr(text, "p99"));
	gp_free(text);
	gp_value_free(back);

	/* not a bench result */
	assert_int_equal(gp_value_parse("{}", 2, &back, &off), 0);
	assert_int_equal(gp_bench_format(back, GP_BENCH_TEXT, &text, &len), GP_EFORMAT);
	gp_value_free(back);
	gp_bench_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_stats), cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_errors),       cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_frames),       cmocka_unit_test(test_json_and_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
