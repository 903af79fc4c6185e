/* SPDX-License-Identifier: MIT */
/*
 * test_aggregate_format.c - gp_aggregate_format() at its edges: a document
 * with no stragglers, no collectives, no findings; a desync with nothing
 * found; ranks that say nothing (every value "-", no table, no clock);
 * 1,024 ranks kept to a page with the outlier in the middle still shown;
 * --top 0; widths; what it refuses. And gp_aggregate_load() on what is no
 * saved aggregate. Documents are built here, member by member.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/aggregate.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"

/* a rank object: mean step @p step_ns (< 0: unknown), an outlier in step_mean_ns when @p outlier */
static struct gp_value *rank_obj(int64_t r, int64_t step_ns, bool outlier)
{
	struct gp_value *o = gp_value_object(), *out = gp_value_array();
	char host[32];

	assert_non_null(o);
	snprintf(host, sizeof(host), "node-%lld", (long long)(r / 8));
	assert_int_equal(gp_obj_set_int(o, "rank", r), 0);
	assert_int_equal(gp_obj_set_str(o, "host", host), 0);
	assert_int_equal(gp_obj_set_int(o, "clock_offset_ns", 0), 0);
	if (step_ns >= 0)
		assert_int_equal(gp_obj_set_int(o, "step_mean_ns", step_ns), 0);
	else
		assert_int_equal(gp_obj_set_null(o, "step_mean_ns"), 0);
	assert_int_equal(gp_obj_set_int(o, "wait_ns", 1000), 0);
	if (outlier)
		assert_int_equal(gp_arr_push(out, gp_value_str("step_mean_ns")), 0);
	assert_int_equal(gp_obj_set(o, "outliers", out), 0);
	return o;
}

/* a document of @p n ranks, steps 100 ms + 1 µs * rank, rank @p outlier (-1: none) an outlier at
 * 150 ms */
static struct gp_value *doc_new(size_t n, int64_t outlier)
{
	struct gp_value *d = gp_value_object(), *ranks = gp_value_array();

	assert_int_equal(gp_obj_set_str(d, "schema", GP_AGGREGATE_SCHEMA), 0);
	assert_int_equal(gp_obj_set_int(d, "world_size", (int64_t)n), 0);
	for (size_t i = 0; i < n; i++) {
		int64_t step = (int64_t)i == outlier ? 150000000 : 100000000 + 1000 * (int64_t)i;

		assert_int_equal(
		    gp_arr_push(ranks, rank_obj((int64_t)i, step, (int64_t)i == outlier)), 0);
	}
	assert_int_equal(gp_obj_set(d, "ranks", ranks), 0);
	assert_int_equal(gp_obj_set(d, "stragglers", gp_value_array()), 0);
	assert_int_equal(gp_obj_set(d, "collectives", gp_value_array()), 0);
	assert_int_equal(gp_obj_set(d, "findings", gp_value_array()), 0);
	assert_int_equal(gp_obj_set_null(d, "desync"), 0);
	return d;
}

static char *format(const struct gp_value *d, size_t top, int width)
{
	struct gp_aggregate_format_opts o = { .top = top, .width = width };
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(gp_aggregate_format(d, &o, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

/* lines of @p text that start with spaces and then rank @p r's number and a host */
static bool has_rank_row(const char *text, int64_t r)
{
	char pat[48];

	snprintf(pat, sizeof(pat), " %lld node-", (long long)r);
	for (const char *p = text; (p = strstr(p, pat)); p++)
		if (p == text || p[-1] == ' ')
			return true;
	return false;
}

static size_t rank_rows(const char *text)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, " node-")); p++)
		if (p > text && p[-1] >= '0' && p[-1] <= '9')
			n++;
	return n;
}

static void test_nothing_to_say(void **state)
{
	struct gp_value *d = doc_new(4, -1);
	char *t;

	(void)state;
	t = format(d, 10, 100);
	assert_non_null(strstr(t, "== aggregate: 4 ranks of world size 4, backend - =="));
	assert_non_null(strstr(t, "none: no rank arrived last at a matched collective"));
	assert_non_null(strstr(t, "none matched across the ranks"));
	assert_non_null(strstr(t, "nothing stands out"));
	assert_null(strstr(t, "DESYNC"));
	/* every offset is 0: no clocks table; no outlier: no legend */
	assert_null(strstr(t, "Clocks"));
	assert_null(strstr(t, "robust outlier"));
	/* no clock object: said so, not a line of "-" */
	assert_non_null(strstr(t, "clock     not aligned"));
	assert_int_equal(rank_rows(t), 4);
	gp_free(t);
	gp_value_free(d);
}

static void test_desync_missing(void **state)
{
	struct gp_value *d = doc_new(2, -1), *ds = gp_value_object(), *exp = gp_value_object();
	char *t;

	(void)state;
	assert_int_equal(gp_obj_set_str(ds, "pg", "0"), 0);
	assert_int_equal(gp_obj_set_int(ds, "seq", 57), 0);
	assert_int_equal(gp_obj_set_int(ds, "rank", 1), 0);
	assert_int_equal(gp_obj_set_str(ds, "kind", "missing"), 0);
	assert_int_equal(gp_obj_set_str(ds, "collective", "broadcast"), 0);
	assert_int_equal(gp_obj_set_int(exp, "bytes", 2048), 0);
	assert_int_equal(gp_obj_set_null(exp, "dtype"), 0);
	assert_int_equal(gp_obj_set(ds, "expected", exp), 0);
	assert_int_equal(gp_obj_set_null(ds, "found"), 0);
	assert_int_equal(gp_obj_set(d, "desync", ds), 0);
	t = format(d, 10, 100);
	assert_non_null(
	    strstr(t, "\n!! DESYNC: rank 1 is missing broadcast #57 of process group 0\n"));
	/* a null of the expected entry is left out; what was found: nothing */
	assert_non_null(strstr(t, "   expected: bytes=2.0 KiB\n"));
	assert_non_null(strstr(t, "   found:    nothing (the rank never ran it)\n"));
	/* first: before the stragglers */
	assert_true(strstr(t, "DESYNC") < strstr(t, "Stragglers"));
	gp_free(t);
	gp_value_free(d);
}

static void test_unknown_everything(void **state)
{
	struct gp_value *d = gp_value_object(), *ranks = gp_value_array(), *r = gp_value_object();
	char *t;

	(void)state;
	assert_int_equal(gp_obj_set_str(d, "schema", GP_AGGREGATE_SCHEMA), 0);
	assert_int_equal(gp_obj_set_null(d, "world_size"), 0);
	assert_int_equal(gp_obj_set_int(r, "rank", 0), 0);
	assert_int_equal(gp_arr_push(ranks, r), 0);
	assert_int_equal(gp_obj_set(d, "ranks", ranks), 0);
	t = format(d, 10, 100);
	assert_non_null(strstr(t, "== aggregate: 1 rank, world size unknown, backend - =="));
	assert_non_null(strstr(t, "hosts     unknown\n"));
	/* the rank's row and the min row: every value "-", never 0 */
	assert_non_null(
	    strstr(t, "      0 -               -         -         -       -         -"));
	assert_non_null(
	    strstr(t, "    min                 -         -         -       -         -"));
	assert_null(strstr(t, " 0 ns"));
	/* sections the document does not have are left out */
	assert_null(strstr(t, "Stragglers"));
	assert_null(strstr(t, "Collectives"));
	assert_null(strstr(t, "Findings"));
	/* an unknown offset is no 0: the clocks table says "-" */
	assert_non_null(strstr(t, "Clocks"));
	gp_free(t);
	gp_value_free(d);
}

static void test_1024_ranks(void **state)
{
	struct gp_value *d = doc_new(1024, 500);
	char *t;

	(void)state;
	/* the 10 slowest (500, 1023..1015) and 10 fastest (0..9): 20 rows */
	t = format(d, 10, 100);
	assert_int_equal(rank_rows(t), 20);
	assert_true(has_rank_row(t, 500));
	assert_true(has_rank_row(t, 1023));
	assert_true(has_rank_row(t, 0));
	assert_true(has_rank_row(t, 9));
	assert_false(has_rank_row(t, 10));
	assert_false(has_rank_row(t, 1014));
	assert_non_null(strstr(t, "1004 of 1024 ranks not shown"));
	/* rows in rank order: 9 before 500 before 1015 */
	assert_true(strstr(t, "      9 node-1") < strstr(t, "    500 node-62"));
	assert_true(strstr(t, "    500 node-62") < strstr(t, "   1015 node-"));
	gp_free(t);
	/* --top 2: 2 slowest (500, 1023), 2 fastest (0, 1) */
	t = format(d, 2, 100);
	assert_int_equal(rank_rows(t), 4);
	assert_true(has_rank_row(t, 500) && has_rank_row(t, 1023) && has_rank_row(t, 1));
	gp_free(t);
	/* top 0: all */
	t = format(d, 0, 100);
	assert_int_equal(rank_rows(t), 1024);
	assert_null(strstr(t, "not shown"));
	gp_free(t);
	gp_value_free(d);
}

static void test_outlier_not_slow_shown(void **state)
{
	struct gp_value *d = doc_new(100, -1);
	struct gp_value *ranks = (struct gp_value *)gp_obj_get(d, "ranks");
	struct gp_value *r50 = (struct gp_value *)gp_arr_get(ranks, 50), *o = gp_value_array();
	char *t;

	(void)state;
	/* rank 50 is an outlier in its wait, not in its step time */
	assert_int_equal(gp_arr_push(o, gp_value_str("wait_ns")), 0);
	assert_int_equal(gp_obj_set(r50, "outliers", o), 0);
	t = format(d, 5, 100);
	assert_int_equal(rank_rows(t), 11);
	assert_true(has_rank_row(t, 50));
	assert_non_null(strstr(t, "*1.000 µs"));
	gp_free(t);
	gp_value_free(d);
}

static void test_width_and_refusals(void **state)
{
	struct gp_value *d = doc_new(3, -1), *other = gp_value_object();
	char *t = NULL;
	size_t len = 0;

	(void)state;
	/* NULL options: the defaults; a width below 60 is 60 */
	assert_int_equal(gp_aggregate_format(d, NULL, &t, NULL), 0);
	assert_non_null(strstr(t, "Ranks"));
	gp_free(t);
	t = format(d, 10, 10);
	assert_non_null(strstr(t, "Ranks"));
	gp_free(t);
	/* not an aggregate: refused, nothing handed back */
	assert_int_equal(gp_obj_set_str(other, "schema", "gpuprof.analyze/1"), 0);
	t = (char *)"x";
	assert_int_equal(gp_aggregate_format(other, NULL, &t, &len), GP_EINVAL);
	assert_null(t);
	assert_int_equal(gp_aggregate_format(NULL, NULL, &t, &len), GP_EINVAL);
	assert_int_equal(gp_aggregate_format(d, NULL, NULL, &len), GP_EINVAL);
	gp_value_free(other);
	gp_value_free(d);
}

static void test_load_others(void **state)
{
	char dir[] = "/tmp/gp-aggload.XXXXXX", path[128];
	struct gp_value *v = (struct gp_value *)1;

	(void)state;
	assert_int_equal(tu_tmpdir_make(dir), 0);
	/* a directory, a trace, an analyze report: gp_aggregate_paths()'s to read */
	assert_int_equal(gp_aggregate_load(dir, &v), 0);
	assert_null(v);
	tu_write_file(dir, "t.json", "{\"traceEvents\": []}");
	snprintf(path, sizeof(path), "%s/t.json", dir);
	assert_int_equal(gp_aggregate_load(path, &v), 0);
	assert_null(v);
	tu_write_file(dir, "r.json", "{\"ranks\": [], \"schema\": \"gpuprof.analyze/1\"}");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(gp_aggregate_load(path, &v), 0);
	assert_null(v);
	/* a bench result: refused, naming the file */
	tu_write_file(dir, "b.json",
	              "{\"gpuprof_version\": \"0\", \"schema\": \"gpuprof.bench/1\"}");
	snprintf(path, sizeof(path), "%s/b.json", dir);
	assert_int_equal(gp_aggregate_load(path, &v), GP_EFORMAT);
	assert_null(v);
	assert_non_null(strstr(gp_last_error(), path));
	/* the saved aggregate itself */
	tu_write_file(dir, "a.json", "{\"ranks\": [], \"schema\": \"gpuprof.aggregate/1\"}");
	snprintf(path, sizeof(path), "%s/a.json", dir);
	assert_int_equal(gp_aggregate_load(path, &v), 0);
	assert_non_null(v);
	gp_value_free(v);
	snprintf(path, sizeof(path), "%s/none.json", dir);
	assert_int_equal(gp_aggregate_load(path, &v), GP_ENOENT);
	assert_int_equal(tu_tmpdir_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_to_say),
		cmocka_unit_test(test_desync_missing),
		cmocka_unit_test(test_unknown_everything),
		cmocka_unit_test(test_1024_ranks),
		cmocka_unit_test(test_outlier_not_slow_shown),
		cmocka_unit_test(test_width_and_refusals),
		cmocka_unit_test(test_load_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
