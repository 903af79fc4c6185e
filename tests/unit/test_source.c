/* SPDX-License-Identifier: MIT */
/*
 * test_source.c - the source layer's resolver (source/resolve.c, sniff.c):
 * the kind of content by its first bytes, and the typed list a directory
 * gives (traces by name, run directory, metrics timeline, files that are
 * no traces dropped by gp__srcs_keep() into one line).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/source.h"

static enum gp__src_kind sniff(const char *text)
{
	return gp__sniff_mem(text, strlen(text), true);
}

static void test_sniff(void **state)
{
	(void)state;
	assert_int_equal(sniff("{\"traceEvents\":[]}"), GP_SRC_KINETO);
	assert_int_equal(sniff("[{\"ph\":\"X\"}]"), GP_SRC_KINETO);
	assert_int_equal(sniff("{\"deviceProperties\":[],\"traceEvents\":[]}"), GP_SRC_KINETO);
	assert_int_equal(sniff("{\"schema\":\"gpuprof.bench/1\"}"), GP_SRC_BENCH);
	assert_int_equal(sniff("{\"compat\":\"none\",\"gpuprof_version\":\"1\",\"ranks\":[],"
	                       "\"schema\":\"gpuprof.analyze/1\"}"),
	                 GP_SRC_ANALYZE);
	assert_int_equal(sniff("{\"schema\":\"gpuprof.compare/1\"}"), GP_SRC_COMPARE);
	assert_int_equal(sniff("{\"gpuprof_version\":\"1\",\"x\":1}"), GP_SRC_DOC);
	assert_int_equal(sniff("{\"hostname\":\"h\",\"schema\":\"gpuprof.metrics/1\"}\n{}\n"),
	                 GP_SRC_METRICS);
	assert_int_equal(sniff("{\"lr\": 0.1, \"batch_size\": 32}"), GP_SRC_OTHER);
	assert_int_equal(sniff("not json"), GP_SRC_OTHER);
	assert_int_equal(sniff(""), GP_SRC_OTHER);
	assert_int_equal(sniff("GPCAPT\r\n"), GP_SRC_CAPTURE);
	/* a prefix that cannot decide is a trace: its reader says what it is */
	assert_int_equal(gp__sniff_mem("{\"a\":[1,2", 9, false), GP_SRC_KINETO);
	assert_int_equal(gp__sniff_mem("{\"gpuprof_version\":\"1\",\"ranks\":[", 32, false),
	                 GP_SRC_DOC);
}

static void test_resolve(void **state)
{
	char dir[] = "/tmp/gp-test-source.XXXXXX", cmd[700];
	const char *paths[1];
	struct gp__srcs s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	tu_write_file(dir, "run.json",
	              "{\"schema\":\"gpuprof.run/1\",\"hostname\":\"h1\",\"pid\":77}");
	tu_write_file(dir, "metrics.jsonl", "{\"schema\":\"gpuprof.metrics/1\"}\n");
	tu_write_file(dir, "trace_rank-2.json", "{\"traceEvents\":[]}");
	tu_write_file(dir, "config.json", "{\"lr\":0.1}");
	tu_write_file(dir, "b.json", "{\"schema\":\"gpuprof.bench/1\",\"series\":[]}");
	tu_write_file(dir, "x.chrome.json", "{\"traceEvents\":[]}");
	paths[0] = dir;
	assert_int_equal(gp__srcs_resolve(paths, 1, 0, &s), 0);
	/* the run, the trace-named files by name (not the export), the metrics */
	assert_int_equal(s.n, 5);
	assert_int_equal(s.v[0].kind, GP_SRC_RUN_DIR);
	assert_int_equal(s.v[0].pid, 77);
	assert_string_equal(s.v[0].host, "h1");
	assert_int_equal(s.v[1].kind, GP_SRC_BENCH);
	assert_int_equal(s.v[2].kind, GP_SRC_OTHER);
	assert_int_equal(s.v[3].kind, GP_SRC_KINETO);
	assert_int_equal(s.v[3].rank, 2);
	assert_true(s.v[3].from_dir);
	assert_int_equal(s.v[4].kind, GP_SRC_METRICS);
	assert_int_equal(gp__srcs_count(&s, GP_SRC_TRACES), 1);
	assert_int_equal(gp__srcs_keep(&s, GP_SRC_RUN_INPUTS, "analyze"), 0);
	assert_int_equal(s.n, 3);
	assert_non_null(s.skipped);
	assert_non_null(strstr(s.skipped, "skipped 2 files that analyze does not read"));
	assert_non_null(strstr(s.skipped, "b.json (a bench result), config.json (not a trace)"));
	gp__srcs_release(&s);

	/* typed, a kind the command does not read is an error that says what it is */
	snprintf(cmd, sizeof(cmd), "%s/b.json", dir);
	paths[0] = cmd;
	assert_int_equal(gp__srcs_resolve(paths, 1, 0, &s), 0);
	assert_int_equal(gp__srcs_keep(&s, GP_SRC_RUN_INPUTS, "analyze"), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "is a bench result: analyze does not read it"));
	gp__srcs_release(&s);

	/* typed, JSON that is no trace goes to the trace reader, which says why */
	snprintf(cmd, sizeof(cmd), "%s/config.json", dir);
	assert_int_equal(gp__srcs_resolve(paths, 1, 0, &s), 0);
	assert_int_equal(s.v[0].kind, GP_SRC_KINETO);
	gp__srcs_release(&s);

	snprintf(cmd, sizeof(cmd), "%s/none.json", dir);
	assert_int_equal(gp__srcs_resolve(paths, 1, 0, &s), GP_ENOENT);
	assert_non_null(strstr(gp_last_error(), "none.json"));
	gp__srcs_release(&s);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_rank_from_name(void **state)
{
	(void)state;
	assert_int_equal(gp__rank_from_name("/a/rank3/x.json"), -1);
	assert_int_equal(gp__rank_from_name("/a/trace_rank-3.json"), 3);
	assert_int_equal(gp__rank_from_name("worker12.pt.trace.json"), 12);
	assert_int_equal(gp__rank_from_name("rank_7.json.gz"), 7);
	assert_int_equal(gp__rank_from_name("capture-1234.gpcap"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_rank_from_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
