/* SPDX-License-Identifier: MIT */
/*
 * test_compare.c - gp_compare_values() and gp_compare_paths() on small
 * hand-built bench results and reports with hand-computed answers: the
 * kernel/operator diff (statuses, deltas, order, totals), the pairing of
 * series and ranks, the verdicts and the exit logic (only a significant
 * change past the threshold the bad way is a regression), per-metric
 * thresholds, the explanations, the formatters, kind detection of files
 * and directories, and the errors (kind mismatch, malformed trees).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/compare.h"
#include "stats/welch.h"

/* ---- builders ---- */

static struct gp_value *parse(const char *json)
{
	struct gp_value *v = NULL;

	assert_int_equal(gp_value_parse(json, strlen(json), &v, NULL), 0);
	return v;
}

/* a JSON list of n times: base * (1 + 0.001 (i % 7)) */
static void times_json(char *buf, size_t cap, size_t n, double base)
{
	size_t i, len = 0;

	len += (size_t)snprintf(buf + len, cap - len, "[");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%.1f", i ? "," : "",
		                        base * (1 + 0.001 * (double)(i % 7)));
	snprintf(buf + len, cap - len, "]");
}

/* a bench result with one series */
static struct gp_value *bench1(const char *name, size_t n, double t, double batch, int warmup,
                               const char *tags)
{
	char times[4096], doc[8192];

	times_json(times, sizeof(times), n, t);
	snprintf(doc, sizeof(doc),
	         "{\"schema\":\"gpuprof.bench/1\",\"tags\":%s,\"series\":[{\"name\":\"%s\","
	         "\"batch_size\":%g,\"warmup\":%d,\"times_ns\":%s,\"gpu_ns\":null,"
	         "\"peak_memory_bytes\":null,\"rate_name\":\"runs/s\"}]}",
	         tags ? tags : "{}", name, batch, warmup, times);
	return parse(doc);
}

static struct gp_value *compare(const struct gp_value *b, const struct gp_value *n,
                                const struct gp_compare_opts *o)
{
	struct gp_value *r = NULL;
	int rc = gp_compare_values(b, n, o, &r);

	if (rc)
		fail_msg("gp_compare_values: %s", gp_last_error());
	assert_non_null(r);
	assert_string_equal(tu_gets(r, "schema"), "gpuprof.compare/1");
	return r;
}

static struct gp_compare_opts opts0(void)
{
	struct gp_compare_opts o;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.rank = -1;
	return o;
}

static const struct gp_value *metric(const struct gp_value *r, size_t group, const char *name)
{
	char path[64];
	const struct gp_value *ms;
	size_t i;

	snprintf(path, sizeof(path), "groups/%zu/metrics", group);
	ms = gp_value_path(r, path);
	for (i = 0; i < gp_value_len(ms); i++)
		if (strcmp(tu_gets(gp_arr_get(ms, i), "metric"), name) == 0)
			return gp_arr_get(ms, i);
	return NULL;
}

static bool has_id(const struct gp_value *arr, const char *id)
{
	size_t i;

	for (i = 0; i < gp_value_len(arr); i++)
		if (strcmp(tu_gets(gp_arr_get(arr, i), "id"), id) == 0)
			return true;
	return false;
}

static const struct gp_value *row(const struct gp_value *table, const char *name)
{
	const struct gp_value *rows = gp_obj_get(table, "rows");
	size_t i;

	for (i = 0; i < gp_value_len(rows); i++)
		if (strcmp(tu_gets(gp_arr_get(rows, i), "name"), name) == 0)
			return gp_arr_get(rows, i);
	return NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- the kernel and operator diff ---- */

static const char *const report_base =
    "{\"schema\":\"gpuprof.analyze/1\",\"compat\":\"none\",\"tags\":{},\"ranks\":[{\"rank\":0,"
    "\"kernels\":["
    "{\"name\":\"A\",\"count\":2,\"total_ns\":200,\"type\":\"COMPUTATION\"},"
    "{\"name\":\"B\",\"count\":1,\"total_ns\":50,\"type\":\"COMPUTATION\"},"
    "{\"name\":\"C\",\"count\":4,\"total_ns\":400,\"type\":\"COMMUNICATION\"},"
    "{\"name\":\"D\",\"count\":1,\"total_ns\":10,\"type\":\"COMPUTATION\"}],"
    "\"cpu_ops\":["
    "{\"name\":\"aten::mm\",\"count\":10,\"total_ns\":1000,\"self_ns\":400},"
    "{\"name\":\"aten::add\",\"count\":5,\"total_ns\":100,\"self_ns\":100}]}]}";

static const char *const report_new =
    "{\"schema\":\"gpuprof.analyze/1\",\"compat\":\"none\",\"tags\":{},\"ranks\":[{\"rank\":0,"
    "\"kernels\":["
    "{\"name\":\"C\",\"count\":8,\"total_ns\":760,\"type\":\"COMMUNICATION\"},"
    "{\"name\":\"A\",\"count\":2,\"total_ns\":300,\"type\":\"COMPUTATION\"},"
    "{\"name\":\"E\",\"count\":3,\"total_ns\":90,\"type\":\"COMPUTATION\"},"
    "{\"name\":\"D\",\"count\":1,\"total_ns\":10,\"type\":\"COMPUTATION\"}],"
    "\"cpu_ops\":["
    "{\"name\":\"aten::mm\",\"count\":10,\"total_ns\":800,\"self_ns\":300},"
    "{\"name\":\"aten::mul\",\"count\":2,\"total_ns\":40,\"self_ns\":40}]}]}";

static void test_table_diff(void **state)
{
	struct gp_value *b = parse(report_base), *n = parse(report_new), *r;
	const struct gp_value *k, *x, *ops;
	struct gp_compare_opts o = opts0();
	const char *order[] = { "C", "A", "E", "B", "D" };
	size_t i;
	double d;

	(void)state;
	r = compare(b, n, &o);
	k = gp_value_path(r, "groups/0/kernels");
	assert_non_null(k);
	/* sorted by |delta total|: C +360, A +100, E +90, B -50, D 0 */
	for (i = 0; i < 5; i++)
		assert_string_equal(tu_gets(gp_arr_get(gp_obj_get(k, "rows"), i), "name"),
		                    order[i]);
	x = row(k, "A"); /* per call 100 -> 150: +50 % */
	assert_string_equal(tu_gets(x, "status"), "slower");
	assert_int_equal(tu_geti(x, "delta_total_ns"), 100);
	assert_true(fabs(tu_getd(x, "delta_avg_pct") - 50) < 1e-9);
	x = row(k, "C"); /* per call 100 -> 95: exactly -5 %, the threshold */
	assert_string_equal(tu_gets(x, "status"), "faster");
	assert_int_equal(tu_geti(x, "delta_count"), 4);
	assert_true(fabs(tu_getd(x, "new_avg_ns") - 95) < 1e-9);
	assert_string_equal(tu_gets(row(k, "B"), "status"), "removed");
	assert_string_equal(tu_gets(row(k, "D"), "status"), "same");
	x = row(k, "E");
	assert_string_equal(tu_gets(x, "status"), "added");
	assert_int_equal(tu_geti(x, "base_count"), 0);
	/* unknown: NaN in the tree, null in JSON */
	assert_false(gp_value_get_double(gp_obj_get(x, "base_avg_ns"), &d));
	assert_false(gp_value_get_double(gp_obj_get(x, "delta_avg_pct"), &d));
	assert_string_equal(tu_gets(x, "type"), "COMPUTATION");
	assert_int_equal(tu_geti(k, "base_total_ns"), 660);
	assert_int_equal(tu_geti(k, "new_total_ns"), 1160);
	assert_int_equal(tu_geti(k, "delta_total_ns"), 500);
	assert_int_equal(tu_geti(k, "added/names"), 1);
	assert_int_equal(tu_geti(k, "added/total_ns"), 90);
	assert_int_equal(tu_geti(k, "removed/names"), 1);
	assert_int_equal(tu_geti(k, "removed/total_ns"), 50);
	assert_int_equal(tu_geti(k, "slower"), 1);
	assert_int_equal(tu_geti(k, "faster"), 1);
	assert_int_equal(tu_geti(k, "same"), 1);
	assert_int_equal(tu_geti(k, "base_names"), 4);
	assert_true(gp_value_get_bool(gp_obj_get(k, "complete"), false));

	ops = gp_value_path(r, "groups/0/operators");
	x = row(ops, "aten::mm"); /* inclusive 100 -> 80 per call */
	assert_string_equal(tu_gets(x, "status"), "faster");
	assert_int_equal(tu_geti(x, "base_self_ns"), 400);
	assert_int_equal(tu_geti(x, "new_self_ns"), 300);
	assert_string_equal(tu_gets(row(ops, "aten::add"), "status"), "removed");
	assert_string_equal(tu_gets(row(ops, "aten::mul"), "status"), "added");
	assert_int_equal(gp_value_type(gp_obj_get(row(ops, "aten::mul"), "base_self_ns")),
	                 GP_VALUE_NULL);
	assert_string_equal(tu_gets(gp_arr_get(gp_obj_get(ops, "rows"), 0), "name"), "aten::mm");
	/* no steps: nothing with samples, so no regression whatever the tables say */
	assert_false(gp_compare_regression(r));
	assert_null(metric(r, 0, "step_time"));
	gp_value_free(r);

	/* a per-metric threshold for the kernels only: A (+50 %) and C (-5 %) are "same" */
	{
		const char *names[] = { "kernels" };
		double vals[] = { 0.6 };

		o.threshold_names = names;
		o.threshold_values = vals;
		o.n_thresholds = 1;
		r = compare(b, n, &o);
		k = gp_value_path(r, "groups/0/kernels");
		assert_string_equal(tu_gets(row(k, "A"), "status"), "same");
		assert_string_equal(tu_gets(row(k, "C"), "status"), "same");
		assert_true(fabs(tu_getd(k, "threshold_pct") - 60) < 1e-9);
		/* the operators keep the global 5 % */
		assert_string_equal(
		    tu_gets(row(gp_value_path(r, "groups/0/operators"), "aten::mm"), "status"),
		    "faster");
		assert_true(fabs(tu_getd(r, "options/thresholds_pct/kernels") - 60) < 1e-9);
		gp_value_free(r);
	}
	gp_value_free(b);
	gp_value_free(n);
}

static void test_table_trimmed(void **state)
{
	struct gp_value *b = parse(report_base), *n = parse(report_new), *r;
	struct gp_value *rank = (struct gp_value *)gp_value_path(n, "ranks/0"), *om;
	struct gp_compare_opts o = opts0();

	(void)state;
	om = gp_value_object();
	gp_obj_set_int(om, "rows", 3);
	gp_obj_set_int(om, "total_ns", 30);
	gp_obj_set(rank, "kernels_omitted", om);
	r = compare(b, n, &o);
	assert_false(gp_value_get_bool(gp_value_path(r, "groups/0/kernels/complete"), true));
	assert_true(has_id(gp_obj_get(r, "warnings"), "table_trimmed"));
	/* kernel time counts the rows left out: 660 -> 1190 */
	assert_true(fabs(tu_getd(metric(r, 0, "kernel_time"), "new") - 1190) < 1e-9);
	gp_value_free(r);
	gp_value_free(b);
	gp_value_free(n);
}

/* ---- bench: pairing, verdicts, exit logic ---- */

static void test_bench_pairing(void **state)
{
	struct gp_value *b = bench1("sleep 0.02", 30, 20e6, 1, 3, NULL);
	struct gp_value *n = bench1("sleep 0.03", 30, 30e6, 1, 3, NULL), *r;
	struct gp_compare_opts o = opts0();
	const struct gp_value *m;

	(void)state;
	r = compare(b, n, &o);
	assert_string_equal(tu_gets(r, "kind"), "bench");
	assert_int_equal(gp_value_len(gp_obj_get(r, "groups")), 1);
	assert_string_equal(tu_gets(r, "groups/0/base_series"), "sleep 0.02");
	assert_string_equal(tu_gets(r, "groups/0/new_series"), "sleep 0.03");
	assert_true(has_id(gp_obj_get(r, "warnings"), "series_paired"));
	m = metric(r, 0, "time");
	assert_string_equal(tu_gets(m, "verdict"), "slower");
	assert_true(fabs(tu_getd(m, "delta_pct") - 50) < 1e-6);
	assert_true(fabs(tu_getd(m, "ratio") - 1.5) < 1e-9);
	assert_true(tu_getd(m, "ratio_lo") <= 1.5 && tu_getd(m, "ratio_hi") >= 1.5);
	assert_true(tu_getd(m, "p") < 0.01);
	assert_int_equal(tu_geti(m, "n_base"), 30);
	m = metric(r, 0, "throughput");
	assert_string_equal(tu_gets(m, "verdict"), "slower");
	assert_string_equal(tu_gets(m, "unit"), "runs/s");
	assert_string_equal(tu_gets(m, "better"), "higher");
	/* no gpu_ns or memory: no such metric */
	assert_null(metric(r, 0, "gpu_time"));
	assert_null(metric(r, 0, "peak_memory"));
	assert_true(gp_compare_regression(r));
	assert_string_equal(tu_gets(r, "verdict"), "regression");
	assert_int_equal(gp_value_len(gp_obj_get(r, "regressions")), 2);
	assert_non_null(strstr(tu_gets(r, "summary"), "regression: time +50.0%"));
	gp_value_free(r);
	gp_value_free(b);
	gp_value_free(n);

	/* several series: by name; the others are unmatched */
	b = parse("{\"schema\":\"gpuprof.bench/1\",\"series\":["
	          "{\"name\":\"a\",\"times_ns\":[1,2,3]},{\"name\":\"b\",\"times_ns\":[1,2,3]}]}");
	n = parse("{\"schema\":\"gpuprof.bench/1\",\"series\":["
	          "{\"name\":\"c\",\"times_ns\":[1,2,3]},{\"name\":\"b\",\"times_ns\":[1,2,3]}]}");
	r = compare(b, n, &o);
	assert_int_equal(gp_value_len(gp_obj_get(r, "groups")), 1);
	assert_string_equal(tu_gets(r, "groups/0/name"), "b");
	assert_string_equal(tu_gets(r, "unmatched/base/0"), "a");
	assert_string_equal(tu_gets(r, "unmatched/new/0"), "c");
	assert_true(has_id(gp_obj_get(r, "warnings"), "unmatched_series"));
	assert_false(has_id(gp_obj_get(r, "warnings"), "series_paired"));
	/* 3 samples: inconclusive, whatever they say */
	assert_string_equal(tu_gets(metric(r, 0, "time"), "verdict"), "inconclusive");
	gp_value_free(r);
	gp_value_free(n);

	/* no series in common */
	n = parse("{\"schema\":\"gpuprof.bench/1\",\"series\":["
	          "{\"name\":\"x\",\"times_ns\":[1]},{\"name\":\"y\",\"times_ns\":[1]}]}");
	assert_int_equal(gp_compare_values(b, n, &o, &r), GP_EINVAL);
	assert_null(r);
	assert_non_null(strstr(gp_last_error(), "no series name in common"));
	/* and what to do about it */
	assert_non_null(strstr(gp_last_error(), "gpuprof bench -n NAME"));
	gp_value_free(b);
	gp_value_free(n);
}

/* whether member @p key of @p o is a finite number (NaN and null print as null) */
static bool finite_at(const struct gp_value *o, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(o, key), &d) && isfinite(d);
}

static void test_bench_verdicts(void **state)
{
	struct gp_compare_opts o = opts0();
	struct gp_value *b = bench1("s", 30, 1e6, 1, 3, NULL), *n, *r;
	const struct gp_value *m;

	(void)state;
	/* the same samples: same, exit 0 */
	n = bench1("s", 30, 1e6, 1, 3, NULL);
	r = compare(b, n, &o);
	m = metric(r, 0, "time");
	assert_string_equal(tu_gets(m, "verdict"), "same");
	assert_true(fabs(tu_getd(m, "delta_pct")) < 1e-12);
	assert_string_equal(tu_gets(r, "verdict"), "same");
	assert_false(gp_compare_regression(r));
	assert_int_equal(gp_value_type(gp_obj_get(m, "direction")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_value_free(n);

	/* 20 % faster: an improvement, exit 0 */
	n = bench1("s", 30, 0.8e6, 1, 3, NULL);
	r = compare(b, n, &o);
	assert_string_equal(tu_gets(metric(r, 0, "time"), "verdict"), "faster");
	assert_string_equal(tu_gets(metric(r, 0, "throughput"), "verdict"), "faster");
	assert_string_equal(tu_gets(r, "verdict"), "improvement");
	assert_false(gp_compare_regression(r));
	gp_value_free(r);
	gp_value_free(n);

	/* 3 % slower: under the 5 % threshold (same), past a 2 % one (a regression) */
	n = bench1("s", 30, 1.03e6, 1, 3, NULL);
	r = compare(b, n, &o);
	assert_string_equal(tu_gets(metric(r, 0, "time"), "verdict"), "same");
	assert_false(gp_compare_regression(r));
	gp_value_free(r);
	o.threshold = 0.02;
	r = compare(b, n, &o);
	assert_string_equal(tu_gets(metric(r, 0, "time"), "verdict"), "slower");
	assert_true(gp_compare_regression(r));
	gp_value_free(r);
	{
		/* time at 10 %: same; throughput keeps the 2 %: slower */
		const char *names[] = { "time" };
		double vals[] = { 0.10 };

		o.threshold_names = names;
		o.threshold_values = vals;
		o.n_thresholds = 1;
		r = compare(b, n, &o);
		assert_string_equal(tu_gets(metric(r, 0, "time"), "verdict"), "same");
		assert_true(fabs(tu_getd(metric(r, 0, "time"), "threshold_pct") - 10) < 1e-9);
		assert_string_equal(tu_gets(metric(r, 0, "throughput"), "verdict"), "slower");
		assert_true(gp_compare_regression(r));
		gp_value_free(r);
		o.n_thresholds = 0;
	}
	o.threshold = 0;
	gp_value_free(n);
	gp_value_free(b);

	/*
	 * 4 samples per side, 20 % slower: too few for the rank test (2 / C(8, 4)
	 * = 0.029 >= alpha), so Welch's t on the logs decides: slower, exit 3
	 */
	b = bench1("s", 4, 1e6, 1, 3, NULL);
	n = bench1("s", 4, 1.2e6, 1, 3, NULL);
	r = compare(b, n, &o);
	m = metric(r, 0, "time");
	assert_string_equal(tu_gets(m, "verdict"), "slower");
	assert_string_equal(tu_gets(m, "test"), "welch_t_log");
	assert_true(tu_getd(m, "p") < 0.01);
	assert_true(tu_getd(m, "ratio_lo") > 1.05 && tu_getd(m, "ratio_hi") < 1.5);
	assert_string_equal(tu_gets(metric(r, 0, "throughput"), "verdict"), "slower");
	assert_string_equal(tu_gets(r, "verdict"), "regression");
	assert_true(gp_compare_regression(r));
	gp_value_free(r);
	/* --min-samples 5: too few, inconclusive, not tested: no p and no interval */
	o.min_samples = 5;
	r = compare(b, n, &o);
	m = metric(r, 0, "time");
	assert_string_equal(tu_gets(m, "verdict"), "inconclusive");
	assert_non_null(strstr(tu_gets(m, "reason"), "too few samples"));
	assert_int_equal(gp_value_type(gp_obj_get(m, "test")), GP_VALUE_NULL);
	assert_false(finite_at(m, "p")); /* NaN: null in the JSON */
	assert_false(finite_at(m, "ratio_lo"));
	assert_false(finite_at(m, "ratio_hi"));
	assert_string_equal(tu_gets(m, "direction"), "worse");
	assert_string_equal(tu_gets(r, "verdict"), "inconclusive");
	assert_false(gp_compare_regression(r));
	gp_value_free(r);
	o.min_samples = 0;
	gp_value_free(n);
	gp_value_free(b);

	/* throughput only: twice the batch in the same time; warm-up differs */
	b = bench1("s", 30, 1e6, 1, 3, "{\"dtype\":\"fp32\"}");
	n = bench1("s", 30, 1e6, 2, 0, "{\"dtype\":\"fp32\",\"host\":\"b\"}");
	r = compare(b, n, &o);
	assert_string_equal(tu_gets(metric(r, 0, "time"), "verdict"), "same");
	m = metric(r, 0, "throughput");
	assert_string_equal(tu_gets(m, "verdict"), "faster");
	assert_true(fabs(tu_getd(m, "delta_pct") - 100) < 1e-6);
	assert_string_equal(tu_gets(r, "verdict"), "improvement");
	assert_true(has_id(gp_obj_get(r, "warnings"), "warmup_differs"));
	assert_true(has_id(gp_obj_get(r, "warnings"), "batch_differs"));
	/* tags: only "host" differs (absent in base) */
	assert_int_equal(gp_value_len(gp_obj_get(r, "tag_changes")), 1);
	assert_string_equal(tu_gets(r, "tag_changes/0/key"), "host");
	assert_int_equal(gp_value_type(gp_value_path(r, "tag_changes/0/base")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_value_free(n);
	gp_value_free(b);
}

static void test_bench_memory_gpu(void **state)
{
	struct gp_compare_opts o = opts0();
	struct gp_value *b = NULL, *n = NULL, *r;
	const struct gp_value *m;
	char doc[4096];
	int i, len;

	(void)state;
	/* peak memory up 10 %: "worse" (not "slower"); GPU time unchanged */
	for (i = 0; i < 2; i++) {
		len = snprintf(doc, sizeof(doc),
		               "{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"m\","
		               "\"times_ns\":[10,11,12,13,14,15,16,17,18,19],"
		               "\"gpu_ns\":[5,5,5,5,5,5,5,5,5,null],\"peak_memory_bytes\":[");
		for (int k = 0; k < 10; k++)
			len += snprintf(doc + len, sizeof(doc) - (size_t)len, "%s%d", k ? "," : "",
			                (i ? 1100 : 1000) + k);
		snprintf(doc + len, sizeof(doc) - (size_t)len, "]}]}");
		if (i == 0)
			b = parse(doc);
		else
			n = parse(doc);
	}
	r = compare(b, n, &o);
	m = metric(r, 0, "peak_memory");
	assert_non_null(m);
	assert_string_equal(tu_gets(m, "verdict"), "worse");
	assert_string_equal(tu_gets(m, "unit"), "bytes");
	assert_true(gp_value_get_bool(gp_obj_get(m, "regression"), false));
	m = metric(r, 0, "gpu_time");
	assert_int_equal(tu_geti(m, "n_base"), 9); /* the null left out */
	assert_string_equal(tu_gets(m, "verdict"), "same");
	assert_string_equal(tu_gets(r, "regressions/0/metric"), "peak_memory");
	assert_true(gp_compare_regression(r));
	gp_value_free(r);
	gp_value_free(b);
	gp_value_free(n);
}

/* ---- reports: step time with samples, totals without ---- */

/* a report of one rank with 6 steps of dur[i] (gpu busy busy[i]) and gpu totals */
static struct gp_value *report(int rank, const double *dur, const double *busy, double busy_ns,
                               double idle_pct, double overlap, double tc)
{
	char doc[8192];
	int len, i;

	len = snprintf(doc, sizeof(doc),
	               "{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[{\"rank\":%d,"
	               "\"kernels_tensor_core_pct\":%g,"
	               "\"gpu\":{\"busy_ns\":%g,\"idle_pct\":%g,\"comm_comp_overlap_pct\":%g,"
	               "\"compute_ns\":1000,\"communication_ns\":null},\"steps\":[",
	               rank, tc, busy_ns, idle_pct, overlap);
	for (i = 0; i < 6; i++)
		len += snprintf(
		    doc + len, sizeof(doc) - (size_t)len,
		    "%s{\"number\":%d,\"dur_ns\":%g,\"gpu_busy_ns\":%g,\"incomplete\":false,"
		    "\"breakdown\":{\"kernel_ns\":%g,\"cpu_exec_ns\":%g}}",
		    i ? "," : "", i, dur[i], busy[i], busy[i], dur[i] - busy[i]);
	snprintf(doc + len, sizeof(doc) - (size_t)len,
	         ",{\"number\":9,\"dur_ns\":1,\"incomplete\":true}]}]}");
	return parse(doc);
}

static void test_report_metrics(void **state)
{
	const double db[6] = { 100e6, 101e6, 102e6, 103e6, 104e6, 105e6 };
	const double dn[6] = { 150e6, 151e6, 152e6, 153e6, 154e6, 155e6 };
	const double busy[6] = { 50e6, 50e6, 50e6, 50e6, 50e6, 50e6 };
	struct gp_compare_opts o = opts0();
	struct gp_value *b, *n, *r;
	const struct gp_value *m;

	(void)state;
	b = report(0, db, busy, 1000, 10, 40, 0);
	n = report(0, dn, busy, 1030, 20, 50, 0);
	r = compare(b, n, &o);
	assert_string_equal(tu_gets(r, "kind"), "report");
	assert_string_equal(tu_gets(r, "groups/0/name"), "rank 0");
	m = metric(r, 0, "step_time");
	assert_int_equal(tu_geti(m, "n_base"), 6); /* the incomplete step left out */
	assert_true(fabs(tu_getd(m, "base") - 102.5e6) < 1e-3);
	assert_true(fabs(tu_getd(m, "new") - 152.5e6) < 1e-3);
	assert_string_equal(tu_gets(m, "verdict"), "slower");
	/* 6 against 6, fully apart: the exact p is 2 / C(12, 6) */
	assert_true(fabs(tu_getd(m, "p") - 2.0 / 924) < 1e-6);
	assert_true(gp_compare_regression(r));
	/* +3 %: same; idle 10 -> 20 %: inconclusive, worse; overlap up: better; never a regression
	 */
	m = metric(r, 0, "gpu_busy");
	assert_string_equal(tu_gets(m, "verdict"), "same");
	assert_false(gp_value_get_bool(gp_obj_get(m, "samples"), true));
	assert_int_equal(gp_value_type(gp_obj_get(m, "p")), GP_VALUE_NULL);
	m = metric(r, 0, "gpu_idle_pct");
	assert_string_equal(tu_gets(m, "verdict"), "inconclusive");
	assert_string_equal(tu_gets(m, "direction"), "worse");
	assert_false(gp_value_get_bool(gp_obj_get(m, "regression"), true));
	assert_true(fabs(tu_getd(m, "delta") - 10) < 1e-9);
	m = metric(r, 0, "comm_comp_overlap_pct");
	assert_string_equal(tu_gets(m, "direction"), "better");
	assert_string_equal(tu_gets(m, "better"), "higher");
	assert_string_equal(tu_gets(metric(r, 0, "compute"), "verdict"), "same");
	assert_null(metric(r, 0, "communication")); /* unknown (null) on both sides */
	assert_null(metric(r, 0, "kernel_time"));   /* no kernels table */
	assert_int_equal(gp_value_len(gp_obj_get(r, "regressions")), 1);
	assert_string_equal(tu_gets(r, "regressions/0/group"), "rank 0");
	/* the step got slower with the same GPU busy time: the host side */
	assert_true(has_id(gp_value_path(r, "groups/0/explanations"), "host_side"));
	assert_true(has_id(gp_value_path(r, "groups/0/explanations"), "step_breakdown"));
	assert_true(has_id(gp_value_path(r, "groups/0/explanations"), "gpu_idle"));
	gp_value_free(r);

	/* only the totals moved (no steps on one side): never a regression */
	{
		struct gp_value *nb =
		    parse("{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[{\"rank\":0,"
		          "\"gpu\":{\"busy_ns\":5000}}]}");

		r = compare(b, nb, &o);
		assert_null(metric(r, 0, "step_time"));
		assert_string_equal(tu_gets(metric(r, 0, "gpu_busy"), "verdict"), "inconclusive");
		assert_false(gp_compare_regression(r));
		assert_string_equal(tu_gets(r, "verdict"), "inconclusive");
		gp_value_free(r);
		gp_value_free(nb);
	}
	gp_value_free(b);
	gp_value_free(n);
}

static void test_report_ranks(void **state)
{
	const double d[6] = { 1, 2, 3, 4, 5, 6 };
	struct gp_compare_opts o = opts0();
	struct gp_value *b = report(3, d, d, 1, 1, 1, 0), *n = report(1, d, d, 1, 1, 1, 0), *r;

	(void)state;
	/* one rank each: paired whatever the numbers */
	r = compare(b, n, &o);
	assert_int_equal(tu_geti(r, "groups/0/base_rank"), 3);
	assert_int_equal(tu_geti(r, "groups/0/new_rank"), 1);
	assert_true(has_id(gp_obj_get(r, "warnings"), "ranks_paired"));
	assert_string_equal(tu_gets(r, "verdict"), "same");
	gp_value_free(r);
	/* --rank that one side lacks */
	o.rank = 3;
	assert_int_equal(gp_compare_values(b, n, &o, &r), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "new has no rank 3"));
	gp_value_free(b);
	gp_value_free(n);
}

/* two ranks a side on other GPUs and world sizes: each warning once, in the text too */
static void test_unlike_runs(void **state)
{
	static const char rank_fmt[] =
	    "{\"rank\":%d,\"steps\":[{\"dur_ns\":10,\"incomplete\":false}],"
	    "\"overview\":{\"devices\":[{\"id\":0,\"active\":true,\"name\":\"%s\"}],"
	    "\"distributed\":{\"world_size\":%d}},"
	    "\"kernels\":[{\"name\":\"void gemm<%s>(%s*)\",\"count\":2,\"total_ns\":8,"
	    "\"std_ns\":1}]}";
	struct gp_compare_opts o = opts0();
	char doc[2048], r0[512], r1[512];
	struct gp_value *b, *n, *r;
	const struct gp_value *w;
	char *text = NULL;
	size_t i, gpu = 0, world = 0, prec = 0;

	(void)state;
	snprintf(r0, sizeof(r0), rank_fmt, 0, "NVIDIA A100-SXM4-80GB", 8, "float", "float");
	snprintf(r1, sizeof(r1), rank_fmt, 1, "NVIDIA A100-SXM4-80GB", 8, "float", "float");
	snprintf(doc, sizeof(doc), "{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[%s,%s]}", r0, r1);
	b = parse(doc);
	snprintf(r0, sizeof(r0), rank_fmt, 0, "Tesla V100-SXM2-16GB", 2, "c10::Half", "c10::Half");
	snprintf(r1, sizeof(r1), rank_fmt, 1, "Tesla V100-SXM2-16GB", 2, "c10::Half", "c10::Half");
	snprintf(doc, sizeof(doc), "{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[%s,%s]}", r0, r1);
	n = parse(doc);
	r = compare(b, n, &o);
	w = gp_obj_get(r, "warnings");
	for (i = 0; i < gp_value_len(w); i++) {
		const char *id = tu_gets(gp_arr_get(w, i), "id");

		gpu += strcmp(id, "gpu_differs") == 0;
		world += strcmp(id, "world_size_differs") == 0;
		prec += strcmp(id, "precision_differs") == 0;
	}
	assert_true(gpu == 1 && world == 1 && prec == 1);
	assert_int_equal(gp_compare_format(r, GP_COMPARE_TEXT, 20, &text, NULL), 0);
	assert_non_null(strstr(text, "rank 0: the runs are on different GPUs (base NVIDIA "
	                             "A100-SXM4-80GB, new Tesla V100-SXM2-16GB)"));
	assert_non_null(strstr(text, "mostly fp32 in base"));
	assert_non_null(strstr(text, "mostly fp16 in new"));
	gp_free(text);
	gp_value_free(r);
	/* the same GPU, world size and precision: nothing */
	r = compare(b, b, &o);
	assert_false(has_id(gp_obj_get(r, "warnings"), "gpu_differs") ||
	             has_id(gp_obj_get(r, "warnings"), "world_size_differs") ||
	             has_id(gp_obj_get(r, "warnings"), "precision_differs"));
	gp_value_free(r);
	gp_value_free(n);
	gp_value_free(b);
}

/* ---- explanations ---- */

static void test_explain_precision(void **state)
{
	const double db[6] = { 100e6, 100e6, 100e6, 100e6, 100e6, 100e6 };
	const double dn[6] = { 80e6, 80e6, 80e6, 80e6, 80e6, 80e6 };
	const double busy[6] = { 90e6, 90e6, 90e6, 90e6, 90e6, 90e6 };
	const double busyn[6] = { 70e6, 70e6, 70e6, 70e6, 70e6, 70e6 };
	struct gp_compare_opts o = opts0();
	struct gp_value *b, *n, *r;
	const struct gp_value *ex;

	(void)state;
	/* 1.25x with tensor-core kernels 0 -> 40 %: host- or memory-bound */
	b = report(0, db, busy, 1, 1, 1, 0);
	n = report(0, dn, busyn, 1, 1, 1, 40);
	r = compare(b, n, &o);
	ex = gp_value_path(r, "groups/0/explanations");
	assert_true(has_id(ex, "reduced_precision"));
	assert_true(has_id(ex, "gpu_side"));
	gp_value_free(r);
	gp_value_free(n);
	/* the same speedup without tensor cores: no such explanation */
	n = report(0, dn, busyn, 1, 1, 1, 0);
	r = compare(b, n, &o);
	assert_false(has_id(gp_value_path(r, "groups/0/explanations"), "reduced_precision"));
	gp_value_free(r);
	gp_value_free(n);
	gp_value_free(b);

	/* bench: dtype fp32 -> fp16 and 1.2x: the same rule; 2x: none */
	b = bench1("s", 30, 1.2e6, 1, 3, "{\"dtype\":\"fp32\"}");
	n = bench1("s", 30, 1e6, 1, 3, "{\"dtype\":\"fp16\"}");
	r = compare(b, n, &o);
	ex = gp_value_path(r, "groups/0/explanations");
	assert_true(has_id(ex, "reduced_precision"));
	assert_true(fabs(tu_getd(gp_arr_get(ex, 0), "evidence/speedup") - 1.2) < 1e-9);
	assert_string_equal(tu_gets(r, "tag_changes/0/new"), "fp16");
	gp_value_free(r);
	gp_value_free(n);
	n = bench1("s", 30, 0.6e6, 1, 3, "{\"dtype\":\"fp16\"}");
	r = compare(b, n, &o);
	assert_false(has_id(gp_value_path(r, "groups/0/explanations"), "reduced_precision"));
	gp_value_free(r);
	gp_value_free(n);
	gp_value_free(b);
}

/* ---- aggregates ---- */

/*
 * An aggregate of @p n ranks: rank r's mean step step * (1 + r / 1000), its
 * wait @p wait (0 for rank 0, the straggler, whose blame is @p blame), one
 * allreduce with busbw @p busbw
 */
static struct gp_value *agg(size_t n, double step, double wait, double blame, double busbw)
{
	char doc[16384];
	size_t len, r;

	len = (size_t)snprintf(doc, sizeof(doc),
	                       "{\"schema\":\"gpuprof.aggregate/1\",\"world_size\":%zu,\"ranks\":[",
	                       n);
	for (r = 0; r < n; r++)
		len += (size_t)snprintf(
		    doc + len, sizeof(doc) - len,
		    "%s{\"rank\":%zu,\"host\":\"h\",\"step_mean_ns\":%.0f,\"step_p50_ns\":%.0f,"
		    "\"step_p95_ns\":%.0f,\"wait_ns\":%.0f,\"exposed_comm_ns\":1000000,"
		    "\"compute_ns\":5000000,\"gpu_idle_pct\":20,\"peak_memory_bytes\":null,"
		    "\"gpu_model\":\"G\"}",
		    r ? "," : "", r, step * (1 + (double)r / 1000), step, step * 1.01,
		    r ? wait : 0.0);
	snprintf(doc + len, sizeof(doc) - len,
	         "],\"stragglers\":[{\"rank\":0,\"blame_ns\":%.0f}],\"collectives\":[{\"pg\":\"0\","
	         "\"name\":\"allreduce\",\"busbw_gbps\":%g}],\"desync\":null}",
	         blame, busbw);
	return parse(doc);
}

static void test_aggregates(void **state)
{
	struct gp_compare_opts o = opts0();
	struct gp_value *b = agg(8, 1e8, 2e6, 2e6, 100), *slow = agg(8, 1.2e8, 2e6, 4e6, 80);
	struct gp_value *five = agg(5, 1e8, 2e6, 2e6, 100), *rep = parse(report_base), *r;
	const struct gp_value *m;

	(void)state;
	/* the same job: no regression */
	r = compare(b, b, &o);
	assert_string_equal(tu_gets(r, "kind"), "aggregate");
	assert_false(gp_compare_regression(r));
	gp_value_free(r);
	/* every rank 20 % slower: the ranks' step means, 8 and 8, tested */
	r = compare(b, slow, &o);
	assert_true(gp_compare_regression(r));
	assert_string_equal(tu_gets(r, "groups/0/name"), "job");
	m = metric(r, 0, "step_time");
	assert_non_null(m);
	assert_string_equal(tu_gets(m, "test"), "mann_whitney");
	assert_int_equal(tu_geti(m, "n_base"), 8);
	assert_string_equal(tu_gets(m, "verdict"), "slower");
	/* one value a side: never a regression */
	m = metric(r, 0, "straggler_blame");
	assert_true(tu_getd(m, "base") == 2e6 && tu_getd(m, "new") == 4e6);
	assert_false(gp_value_get_bool(gp_obj_get(m, "regression"), true));
	m = metric(r, 0, "total_wait");
	assert_true(tu_getd(m, "base") == 7 * 2e6);
	m = metric(r, 1, "busbw");
	assert_string_equal(tu_gets(m, "direction"), "worse");
	assert_string_equal(tu_gets(m, "collective"), "allreduce");
	assert_string_equal(tu_gets(r, "groups/2/name"), "rank 0");
	assert_int_equal(gp_value_len(gp_obj_get(r, "groups")), 2 + 8);
	gp_value_free(r);
	/* ranks on one side only, another world size */
	r = compare(b, five, &o);
	assert_int_equal(gp_value_len(gp_value_path(r, "unmatched/base")), 3);
	assert_string_equal(tu_gets(r, "unmatched/base/0"), "rank 5");
	assert_string_equal(tu_gets(r, "warnings/0/id"), "world_size_differs");
	gp_value_free(r);
	/* another kind: an error naming both sides, the aggregate first */
	assert_int_equal(gp_compare_values(rep, b, &o, &r), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(),
	                       "cannot compare an aggregate (new) with an analyze report (base)"));
	gp_value_free(b);
	gp_value_free(slow);
	gp_value_free(five);
	gp_value_free(rep);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
	struct gp_compare_opts o = opts0();
	struct gp_value *b = bench1("s", 5, 1e6, 1, 0, NULL), *rep = parse(report_base), *x, *r;

	(void)state;
	assert_int_equal(gp_compare_values(b, rep, &o, &r), GP_EINVAL);
	assert_null(r);
	assert_non_null(strstr(gp_last_error(), "cannot compare a bench result (base)"));
	assert_int_equal(gp_compare_values(rep, b, &o, &r), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "cannot compare a bench result (new)"));

	x = parse("{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"s\","
	          "\"times_ns\":[1,\"2\"]}]}");
	assert_int_equal(gp_compare_values(b, x, &o, &r), GP_EFORMAT);
	assert_string_equal(gp_last_error(),
	                    "new: series[0].times_ns[1] is not a number of 0 or more");
	gp_value_free(x);
	x = parse("{\"schema\":\"gpuprof.bench/1\",\"series\":[]}");
	assert_int_equal(gp_compare_values(x, b, &o, &r), GP_EFORMAT);
	assert_string_equal(gp_last_error(), "base: no series");
	gp_value_free(x);
	x = parse("{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[{\"rank\":0,\"kernels\":"
	          "[{\"name\":\"k\",\"count\":-1,\"total_ns\":1}]}]}");
	assert_int_equal(gp_compare_values(rep, x, &o, &r), GP_EFORMAT);
	assert_string_equal(gp_last_error(), "new: ranks[0].kernels[0].count is not a count");
	gp_value_free(x);
	x = parse("{\"schema\":\"gpuprof.other/1\"}");
	assert_int_equal(gp_compare_values(x, rep, &o, &r), GP_EINVAL);
	gp_value_free(x);

	/* options */
	{
		const char *names[] = { "stepp_time" };
		double vals[] = { 0.1 };

		o.threshold_names = names;
		o.threshold_values = vals;
		o.n_thresholds = 1;
		assert_int_equal(gp_compare_values(rep, rep, &o, &r), GP_EINVAL);
		assert_non_null(strstr(gp_last_error(), "no metric 'stepp_time'"));
		o.n_thresholds = 0;
	}
	o.alpha = 1.5;
	assert_int_equal(gp_compare_values(rep, rep, &o, &r), GP_EINVAL);
	o.alpha = 0;
	o.size = 4;
	assert_int_equal(gp_compare_values(rep, rep, &o, &r), GP_EINVAL);
	/* NULL opts: the defaults */
	assert_int_equal(gp_compare_values(rep, rep, NULL, &r), 0);
	assert_true(fabs(tu_getd(r, "options/alpha") - 0.01) < 1e-12);
	assert_true(fabs(tu_getd(r, "options/threshold_pct") - 5) < 1e-12);
	gp_value_free(r);
	gp_value_free(b);
	gp_value_free(rep);
}

/* ---- formatters ---- */

static void test_format(void **state)
{
	struct gp_value *b = bench1("sleep 0.02", 30, 20e6, 1, 3, NULL);
	struct gp_value *n = bench1("sleep 0.02", 30, 24e6, 1, 3, NULL), *r, *rep;
	struct gp_compare_opts o = opts0();
	char *text = NULL;
	size_t len = 0;

	(void)state;
	r = compare(b, n, &o);
	assert_int_equal(gp_compare_format(r, GP_COMPARE_MARKDOWN, 20, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	assert_true(
	    starts_with(text, "### gpuprof compare: regression\n\n**regression: time +20.0%"));
	assert_non_null(
	    strstr(text, "| metric | base | new | Δ | ratio [95% CI] | p | n | verdict |"));
	assert_non_null(strstr(text, "| time | 20.06 ms | 24.07 ms | +20.0% |"));
	assert_non_null(strstr(text, "**slower (regression)**"));
	assert_non_null(strstr(text, "#### series `sleep 0.02`"));
	gp_free(text);
	assert_int_equal(gp_compare_format(r, GP_COMPARE_TEXT, 20, &text, &len), 0);
	assert_true(starts_with(text, "regression: time +20.0%"));
	assert_non_null(strstr(text, "slower (REGRESSION)"));
	assert_int_equal(text[len - 1], '\n');
	assert_int_not_equal(text[len - 2], '\n');
	gp_free(text);
	gp_value_free(r);

	/* a table with '|' and '`' in a name, cut to --top */
	rep = parse("{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[{\"rank\":0,\"kernels\":["
	            "{\"name\":\"a|b`c\",\"count\":1,\"total_ns\":5},"
	            "{\"name\":\"z\",\"count\":1,\"total_ns\":1}]}]}");
	r = compare(rep, rep, &o);
	assert_int_equal(gp_compare_format(r, GP_COMPARE_MARKDOWN, 1, &text, NULL), 0);
	assert_non_null(strstr(text, "`a\\|b'c`"));
	assert_null(strstr(text, "`z`"));
	assert_non_null(strstr(text, "1 of 2 rows"));
	assert_non_null(strstr(text, "<details><summary>kernels:"));
	gp_free(text);
	assert_int_equal(gp_compare_format(b, GP_COMPARE_TEXT, 0, &text, NULL), GP_EINVAL);
	gp_value_free(r);
	gp_value_free(rep);
	gp_value_free(b);
	gp_value_free(n);
}

/* ---- files: kind detection, directories, gp_compare_paths ---- */

static void test_paths(void **state)
{
	char dir[] = "/tmp/gp-test-compare.XXXXXX", a[600], b[600], d1[600], d2[600];
	struct gp_compare_opts o = opts0();
	enum gp_compare_input kind;
	struct gp_value *r = NULL, *v;
	char cmd[1300];

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* keys in any order: "series" before "schema" still says bench */
	tu_write_file(dir, "a.json",
	              "{\"series\":[{\"name\":\"s\",\"times_ns\":[1,2,3,4,5]}],"
	              "\"schema\":\"gpuprof.bench/1\"}");
	tu_write_file(dir, "b.json",
	              "{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"s\","
	              "\"times_ns\":[1,2,3,4,5]}]}");
	tu_write_file(dir, "bad.json", "{\"schema\":\"gpuprof.bench/1\",\"series\":[");
	tu_write_file(dir, "rep.json", report_base);
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	assert_int_equal(gp_compare_load(a, &o, &kind, &v), 0);
	assert_int_equal(kind, GP_COMPARE_BENCH);
	gp_value_free(v);
	assert_int_equal(gp_compare_paths(a, b, &o, &r), 0);
	assert_string_equal(tu_gets(r, "base/path"), a);
	assert_string_equal(tu_gets(r, "new/input"), "bench");
	/* 5 values from 1 to 5: too spread for 5 a side to rule out a 5 % change */
	assert_string_equal(tu_gets(r, "verdict"), "inconclusive");
	gp_value_free(r);

	snprintf(d1, sizeof(d1), "%s/bad.json", dir);
	assert_int_equal(gp_compare_paths(a, d1, &o, &r), GP_ETRUNC);
	assert_non_null(strstr(gp_last_error(), d1));
	snprintf(d1, sizeof(d1), "%s/rep.json", dir);
	assert_int_equal(gp_compare_paths(a, d1, &o, &r), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "cannot compare a bench result"));
	assert_non_null(strstr(gp_last_error(), "an analyze report"));
	snprintf(d1, sizeof(d1), "%s/none.json", dir);
	assert_int_equal(gp_compare_paths(a, d1, &o, &r), GP_ENOENT);
	assert_non_null(strstr(gp_last_error(), d1));

	/* directories of bench results: their union */
	snprintf(d1, sizeof(d1), "%s/d1", dir);
	snprintf(d2, sizeof(d2), "%s/d2", dir);
	snprintf(cmd, sizeof(cmd), "mkdir %s %s", d1, d2);
	assert_int_equal(system(cmd), 0);
	tu_write_file(
	    d1, "x.json",
	    "{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"x\",\"times_ns\":[1]}]}");
	tu_write_file(
	    d1, "y.json",
	    "{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"y\",\"times_ns\":[1]}]}");
	tu_write_file(
	    d2, "all.json",
	    "{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"y\",\"times_ns\":[1]},"
	    "{\"name\":\"x\",\"times_ns\":[1]}]}");
	assert_int_equal(gp_compare_paths(d1, d2, &o, &r), 0);
	assert_int_equal(gp_value_len(gp_obj_get(r, "groups")), 2);
	gp_value_free(r);
	tu_write_file(
	    d2, "dup.json",
	    "{\"schema\":\"gpuprof.bench/1\",\"series\":[{\"name\":\"x\",\"times_ns\":[1]}]}");
	assert_int_equal(gp_compare_paths(d1, d2, &o, &r), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "series 'x' is also in"));
	snprintf(cmd, sizeof(cmd), "%s/dup.json", d2);
	assert_int_equal(unlink(cmd), 0);

	/* every allocation failing in turn, both sides loading at once */
	{
		long k;
		int rc = GP_ENOMEM;

		for (k = 1; rc == GP_ENOMEM; k++) {
			gp__test_fail_alloc_after(k);
			rc = gp_compare_paths(d1, d2, &o, &r);
			gp__test_fail_alloc_after(0);
			if (rc == 0)
				break;
			assert_int_equal(rc, GP_ENOMEM);
			assert_null(r);
		}
		assert_int_equal(rc, 0);
		gp_value_free(r);
	}

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- every allocation failing in turn: GP_ENOMEM, nothing leaked (ASan) ---- */

static void torture(const struct gp_value *b, const struct gp_value *n)
{
	struct gp_compare_opts o = opts0();
	struct gp_value *r = NULL;
	char *text = NULL;
	long k;
	int rc = GP_ENOMEM;

	for (k = 1; rc == GP_ENOMEM; k++) {
		gp__test_fail_alloc_after(k);
		rc = gp_compare_values(b, n, &o, &r);
		gp__test_fail_alloc_after(0);
		if (rc == 0)
			break;
		assert_int_equal(rc, GP_ENOMEM);
		assert_null(r);
	}
	assert_int_equal(rc, 0);
	for (k = 1, rc = GP_ENOMEM; rc == GP_ENOMEM; k++) {
		gp__test_fail_alloc_after(k);
		rc = gp_compare_format(r, GP_COMPARE_MARKDOWN, 0, &text, NULL);
		gp__test_fail_alloc_after(0);
		if (rc == 0)
			break;
		assert_int_equal(rc, GP_ENOMEM);
		assert_null(text);
	}
	assert_int_equal(rc, 0);
	gp_free(text);
	gp_value_free(r);
}

static void test_alloc_torture(void **state)
{
	const double db[6] = { 100e6, 101e6, 102e6, 103e6, 104e6, 105e6 };
	const double dn[6] = { 80e6, 81e6, 82e6, 83e6, 84e6, 85e6 };
	const double busy[6] = { 90e6, 90e6, 90e6, 90e6, 90e6, 90e6 };
	struct gp_value *b = bench1("s", 30, 1.2e6, 1, 3, "{\"dtype\":\"fp32\"}");
	struct gp_value *n = bench1("t", 30, 1e6, 2, 0, "{\"dtype\":\"fp16\"}");

	(void)state;
	torture(b, n);
	gp_value_free(b);
	gp_value_free(n);
	b = report(0, db, busy, 1000, 10, 40, 0);
	n = report(0, dn, busy, 1030, 20, 50, 30);
	torture(b, n);
	gp_value_free(b);
	gp_value_free(n);
	b = parse(report_base);
	n = parse(report_new);
	torture(b, n);
	gp_value_free(b);
	gp_value_free(n);
}

/* ---- few samples: Welch's t on the logs (issue 21, item 7) ---- */

static void test_welch(void **state)
{
	/* trace_diff's first 3 and 4 steps, control against test (ns) */
	static const double c[] = { 75656000, 76800000, 76234000, 76727000 };
	static const double t[] = { 156646000, 117128000, 114802000, 123104000 };
	static const double one[] = { 5, 5 }, two[] = { 6, 6 }, neg[] = { 1, -1 };
	struct gp__welch w;

	(void)state;
	/* Student's t against published tables */
	assert_true(fabs(gp__student_t_quantile(0.975, 2) - 4.302653) < 1e-6);
	assert_true(fabs(gp__student_t_quantile(0.995, 1) - 63.656741) < 1e-5);
	assert_true(fabs(gp__student_t_quantile(0.975, 10) - 2.228139) < 1e-6);
	assert_true(fabs(gp__student_t_cdf(2, 5) - 0.949030) < 1e-6);
	assert_true(fabs(gp__student_t_cdf(-2, 5) - 0.050970) < 1e-6);
	assert_true(fabs(gp__student_t_cdf(0, 3) - 0.5) < 1e-12);
	/* p checked by integrating the t density numerically (Python, no scipy) */
	assert_int_equal(gp__welch_log(c, 3, t, 3, 0.95, &w), 0);
	assert_true(fabs(w.t - 5.17111) < 1e-4 && fabs(w.df - 2.00745) < 1e-4);
	assert_true(fabs(w.p - 0.0351465) < 1e-6);
	assert_true(fabs(w.ratio_lo - 1.09289) < 1e-4 && fabs(w.ratio_hi - 2.58747) < 1e-4);
	assert_int_equal(gp__welch_log(c, 4, t, 4, 0.95, &w), 0);
	assert_true(fabs(w.p - 0.0057185) < 1e-6);
	assert_true(w.ratio_lo < w.ratio && w.ratio < w.ratio_hi);
	/* no spread: p 0 or 1, the interval the ratio itself */
	assert_int_equal(gp__welch_log(one, 2, two, 2, 0.95, &w), 0);
	assert_true(w.p == 0 && fabs(w.ratio - 1.2) < 1e-12 && w.ratio_lo == w.ratio_hi);
	assert_int_equal(gp__welch_log(one, 2, one, 2, 0.95, &w), 0);
	assert_true(w.p == 1 && w.ratio == 1);
	/* from summaries: [1, 2, 3, 4] against [3, 4, 5, 6, 9] (p by numerical integration) */
	assert_true(fabs(gp__welch_p(2.5, 1.2909944487, 4, 5.4, 2.3021728866, 5) - 0.0514867) <
	            1e-6);
	assert_true(gp__welch_p(1, 0, 3, 1, 0, 3) == 1 && gp__welch_p(1, 0, 3, 2, 0, 3) == 0);
	assert_true(isnan(gp__welch_p(1, 1, 1, 2, 1, 3)) && isnan(gp__welch_p(1, NAN, 3, 2, 1, 3)));
	/* what it refuses */
	assert_int_equal(gp__welch_log(one, 1, two, 2, 0.95, &w), GP_EINVAL);
	assert_int_equal(gp__welch_log(neg, 2, two, 2, 0.95, &w), GP_EINVAL);
	assert_int_equal(gp__welch_log(one, 2, two, 2, 1, &w), GP_EINVAL);
}

/* splitmix64: the simulation's own generator, so the test is the same everywhere */
static uint64_t sim_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double sim_normal(uint64_t *s)
{
	double u1 = ((double)(sim_next(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(sim_next(s) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* a report of one rank with @p n complete steps of @p ms times lognormal noise */
static struct gp_value *steps_report(uint64_t *s, size_t n, double ms, double noise)
{
	char doc[4096];
	size_t i, len;

	len = (size_t)snprintf(
	    doc, sizeof(doc),
	    "{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[{\"rank\":0,\"steps\":[");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(doc + len, sizeof(doc) - len,
		                        "%s{\"dur_ns\":%.0f,\"incomplete\":false}", i ? "," : "",
		                        ms * 1e6 * exp(noise * sim_normal(s)));
	snprintf(doc + len, sizeof(doc) - len, "]}]}");
	return parse(doc);
}

/*
 * Seeded simulations of profiled runs, 2 to 5 steps a side: the same code with
 * 3 % noise is a regression at most at the rate alpha allows (it needs p < alpha
 * and a 5 % change: none are expected), 55 % slower is one nearly always.
 */
static void test_few_samples_sim(void **state)
{
	struct gp_compare_opts o;
	uint64_t seed = 21;
	size_t trial, worse = 0, same = 0, slow = 0, n, slow_n[6] = { 0 };
	const size_t trials = 600;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.rank = -1;
	o.resamples = 200;
	for (trial = 0; trial < trials; trial++) {
		struct gp_value *b, *nw, *r;

		n = 2 + trial % 4;
		b = steps_report(&seed, n, 100, 0.03);
		nw = steps_report(&seed, n, 100, 0.03);
		r = compare(b, nw, &o);
		worse += gp_compare_regression(r);
		same += strcmp(tu_gets(r, "verdict"), "same") == 0;
		gp_value_free(r);
		gp_value_free(nw);
		nw = steps_report(&seed, n, 155, 0.03);
		r = compare(b, nw, &o);
		slow += gp_compare_regression(r);
		slow_n[n] += gp_compare_regression(r);
		assert_string_equal(tu_gets(metric(r, 0, "step_time"), "test"), "welch_t_log");
		gp_value_free(r);
		gp_value_free(nw);
		gp_value_free(b);
	}
	print_message("few samples: %zu of %zu same-code pairs a regression, %zu same; %zu of %zu "
	              "55 %% slower pairs a regression\n",
	              worse, trials, same, slow, trials);
	print_message("slow by n: %zu %zu %zu %zu\n", slow_n[2], slow_n[3], slow_n[4], slow_n[5]);
	/* alpha T + 3 sqrt(alpha (1 - alpha) T): 13 of 600 */
	assert_true(worse <= 13);
	assert_true(same > trials / 10);
	/* 3 to 5 steps a side always decide; 2 (df about 1 to 2) about half the time */
	assert_true(slow_n[3] == trials / 4 && slow_n[4] == trials / 4 && slow_n[5] == trials / 4);
	assert_true(slow_n[2] >= trials / 4 / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_diff),
		cmocka_unit_test(test_table_trimmed),
		cmocka_unit_test(test_bench_pairing),
		cmocka_unit_test(test_bench_verdicts),
		cmocka_unit_test(test_bench_memory_gpu),
		cmocka_unit_test(test_report_metrics),
		cmocka_unit_test(test_report_ranks),
		cmocka_unit_test(test_unlike_runs),
		cmocka_unit_test(test_explain_precision),
		cmocka_unit_test(test_aggregates),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_alloc_torture),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_few_samples_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
