/* SPDX-License-Identifier: MIT */
/*
 * test_analyze_json.c - gp_analyze_paths_json() and gp_analyze_paths_text(),
 * which spool each rank's JSON or text and copy the ranks out in rank order,
 * write byte for byte the JSON and the text of gp_analyze_paths()'s tree: for a directory of ranks
 * whose order is only known once they are read (from their metadata, their names, or the order
 * given, with ties), pretty and compact, on one thread and on all of them, with --rank, and where
 * no temporary file can be made; its summary holds what is said of each rank; a file that fails
 * writes nothing; a failing writer ends it with GP_EIO.
 */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/analyze.h"

/* a small Kineto trace: @p steps steps of ops, launches and kernels; @p rank < 0: no rank */
static char *trace_text(int rank, int steps, int seed)
{
	size_t cap = 1 << 20, len = 0;
	char *b = malloc(cap);
	int64_t ts = 1000 + seed;
	int s, i, corr = 1;

	assert_non_null(b);
	if (rank >= 0)
		len +=
		    (size_t)snprintf(b + len, cap - len,
		                     "{\"distributedInfo\":{\"rank\":%d,\"world_size\":8},", rank);
	else
		len += (size_t)snprintf(b + len, cap - len, "{");
	len += (size_t)snprintf(b + len, cap - len, "\"traceEvents\":[");
	for (s = 0; s < steps; s++) {
		int64_t s0 = ts;

		for (i = 0; i < 6 + seed % 3; i++, corr++) {
			len += (size_t)snprintf(
			    b + len, cap - len,
			    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,"
			    "\"tid\":1,"
			    "\"ts\":%lld,\"dur\":9,\"args\":{\"External id\":%d,\"Input "
			    "Dims\":[[64,"
			    "%d],[%d,32]],\"Input type\":[\"float\",\"float\"]}},"
			    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
			    "\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":5,\"args\":{\"correlation\":%"
			    "d,"
			    "\"External id\":%d}},"
			    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%d\",\"pid\":0,"
			    "\"tid\":7,"
			    "\"ts\":%lld,\"dur\":%d,\"args\":{\"correlation\":%d,\"External "
			    "id\":%d,"
			    "\"stream\":7,\"device\":0}},",
			    (long long)ts, corr, 16 + i, 16 + i, (long long)ts + 1, corr, corr,
			    i % 3, (long long)ts + 20, 7 + (seed + i) % 5, corr, corr);
			ts += 12;
		}
		len += (size_t)snprintf(
		    b + len, cap - len,
		    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
		    "\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld},",
		    s, (long long)s0 - 1, (long long)(ts - s0 + 30));
		ts += 40;
	}
	/* the last event has no comma after it */
	len += (size_t)snprintf(b + len, cap - len,
	                        "{\"ph\":\"i\",\"cat\":\"instant\",\"name\":\"end\",\"pid\":1,"
	                        "\"tid\":1,\"ts\":%lld,\"s\":\"t\"}]}",
	                        (long long)ts);
	assert_true(len < cap);
	return b;
}

struct mem {
	char *p;
	size_t len, calls, fail_at;
};

static int mem_add(const void *p, size_t n, void *user)
{
	struct mem *m = user;

	if (++m->calls == m->fail_at) {
		errno = ENOSPC;
		return -1;
	}
	m->p = realloc(m->p, m->len + n + 1);
	assert_non_null(m->p);
	memcpy(m->p + m->len, p, n);
	m->len += n;
	m->p[m->len] = '\0';
	return 0;
}

static struct gp_analyze_opts opts_of(uint32_t threads, int64_t only_rank)
{
	struct gp_analyze_opts o;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.only_rank = only_rank;
	o.threads = threads;
	return o;
}

/* both ways of @p paths agree, byte for byte, with @p flags and @p o; @return the summary */
static struct gp_value *check_same(const char *const *paths, size_t n,
                                   const struct gp_analyze_opts *o, unsigned flags)
{
	struct gp_value *tree = NULL, *sum = NULL;
	struct mem m = { 0 };
	char *want = NULL;
	size_t wlen = 0;

	if (gp_analyze_paths(paths, n, o, &tree))
		fail_msg("%s", gp_last_error());
	assert_int_equal(gp_value_to_json(tree, flags, &want, &wlen), 0);
	assert_int_equal(gp_analyze_paths_json(paths, n, o, flags, mem_add, &m, &sum), 0);
	assert_non_null(sum);
	if (m.len != wlen || memcmp(m.p, want, wlen) != 0) {
		size_t k = 0;

		while (k < wlen && k < m.len && m.p[k] == want[k])
			k++;
		fail_msg("differs at byte %zu of %zu/%zu: ...%.80s", k, m.len, wlen,
		         m.p + (k > 20 ? k - 20 : 0));
	}
	/* the summary: the same ranks, in the same order, with what is said of them only */
	assert_int_equal(gp_value_len(gp_obj_get(sum, "ranks")),
	                 gp_value_len(gp_obj_get(tree, "ranks")));
	for (size_t i = 0; i < gp_value_len(gp_obj_get(sum, "ranks")); i++) {
		const struct gp_value *a = gp_arr_get(gp_obj_get(sum, "ranks"), i),
		                      *b = gp_arr_get(gp_obj_get(tree, "ranks"), i);

		assert_int_equal(tu_geti(a, "rank"), tu_geti(b, "rank"));
		assert_string_equal(tu_gets(a, "file"), tu_gets(b, "file"));
		assert_non_null(gp_obj_get(a, "salvage"));
		assert_true(gp_value_len(a) <= 4);
	}
	/* the text report, the same way, with a few layouts */
	{
		static const struct gp_analyze_format_opts fos[] = {
			{ sizeof(struct gp_analyze_format_opts), 10, 0, 0 },
			{ sizeof(struct gp_analyze_format_opts), 0, 60, 0 },
			{ sizeof(struct gp_analyze_format_opts), 3, 160, GP_ANALYZE_FORMAT_WIDE },
		};
		size_t k;

		for (k = 0; k < GP_ARRAY_SIZE(fos); k++) {
			struct gp_value *tsum = NULL;

			gp_free(want);
			want = NULL;
			free(m.p);
			memset(&m, 0, sizeof(m));
			assert_int_equal(gp_analyze_format(tree, &fos[k], &want, &wlen), 0);
			assert_int_equal(
			    gp_analyze_paths_text(paths, n, o, &fos[k], mem_add, &m, &tsum), 0);
			assert_int_equal(m.len, wlen);
			assert_memory_equal(m.p, want, wlen);
			assert_int_equal(gp_value_len(gp_obj_get(tsum, "ranks")),
			                 gp_value_len(gp_obj_get(sum, "ranks")));
			gp_value_free(tsum);
		}
		/* no options: gp_analyze_format()'s defaults */
		gp_free(want);
		want = NULL;
		free(m.p);
		memset(&m, 0, sizeof(m));
		assert_int_equal(gp_analyze_format(tree, NULL, &want, &wlen), 0);
		assert_int_equal(gp_analyze_paths_text(paths, n, o, NULL, mem_add, &m, NULL), 0);
		assert_int_equal(m.len, wlen);
		assert_memory_equal(m.p, want, wlen);
	}
	gp_free(want);
	free(m.p);
	gp_value_free(tree);
	return sum;
}

struct fixture {
	char dir[64];
	char files[6][128];
};

static int setup(void **state)
{
	static struct fixture f;
	static const struct {
		const char *name;
		int rank, steps;
	} t[] = {
		/* ranks 3, 1 and 0 from metadata, whatever the names say; 5 from a name; two
		 * claiming 1 (the order given breaks the tie); one numbered by its order */
		{ "rank-9.json", 3, 3 },   { "b.json", 1, 2 }, { "c.json", 0, 4 },
		{ "worker5.json", -1, 2 }, { "e.json", 1, 1 }, { "f.json", -1, 3 },
	};
	size_t i;

	snprintf(f.dir, sizeof(f.dir), "/tmp/gp-test-anjson.XXXXXX");
	assert_int_equal(tu_tmpdir_make(f.dir), 0);
	for (i = 0; i < GP_ARRAY_SIZE(t); i++) {
		char *text = trace_text(t[i].rank, t[i].steps, (int)i);

		tu_write_file(f.dir, t[i].name, text);
		free(text);
		snprintf(f.files[i], sizeof(f.files[i]), "%s/%s", f.dir, t[i].name);
	}
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	return tu_tmpdir_remove(f->dir);
}

static void test_same_text(void **state)
{
	struct fixture *f = *state;
	const char *dir[] = { f->dir };
	const char *files[] = { f->files[5], f->files[0], f->files[2], f->files[1] };
	uint32_t threads;
	unsigned pretty;

	for (threads = 0; threads < 3; threads++) {
		for (pretty = 0; pretty < 2; pretty++) {
			struct gp_analyze_opts o = opts_of(threads, -1);
			unsigned flags = pretty ? GP_JSON_PRETTY : 0;

			gp_value_free(check_same(dir, 1, &o, flags));
			gp_value_free(check_same(files, 4, &o, flags));
			/* one file: nothing to spool */
			gp_value_free(check_same(files, 1, &o, flags));
		}
	}
	/* --compat hta: the text follows the report's compat */
	{
		struct gp_analyze_opts o = opts_of(0, -1);

		o.compat = GP_COMPAT_HTA;
		gp_value_free(check_same(dir, 1, &o, GP_JSON_PRETTY));
	}
	/* --rank: the one rank asked for */
	{
		struct gp_analyze_opts o = opts_of(0, 5);
		struct gp_value *sum = check_same(dir, 1, &o, GP_JSON_PRETTY);

		assert_int_equal(gp_value_len(gp_obj_get(sum, "ranks")), 1);
		gp_value_free(sum);
	}
	/* the warning of two inputs claiming rank 1 is in the summary */
	{
		struct gp_analyze_opts o = opts_of(0, -1);
		struct gp_value *sum = check_same(dir, 1, &o, GP_JSON_PRETTY);

		assert_non_null(strstr(tu_gets(sum, "warnings/0"), "claim rank 1"));
		gp_value_free(sum);
	}
}

/* no temporary file can be made: the ranks are held in memory, the text the same */
static void test_no_tmpdir(void **state)
{
	struct fixture *f = *state;
	const char *dir[] = { f->dir };
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct gp_analyze_opts o = opts_of(0, -1);

	setenv("TMPDIR", "/nonexistent/gp-test", 1);
	gp_value_free(check_same(dir, 1, &o, GP_JSON_PRETTY));
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

static void test_failures(void **state)
{
	struct fixture *f = *state;
	const char *dir[] = { f->dir };
	struct gp_analyze_opts o = opts_of(0, -1);
	struct gp_value *sum = NULL;
	struct mem m = { 0 };
	char bad[160];

	/* the writer failing: GP_EIO with its errno, no summary */
	m.fail_at = 1;
	errno = 0;
	assert_int_equal(gp_analyze_paths_json(dir, 1, &o, GP_JSON_PRETTY, mem_add, &m, &sum),
	                 GP_EIO);
	assert_int_equal(errno, ENOSPC);
	assert_null(sum);
	assert_int_equal(m.len, 0);
	/* a truncated trace among the ranks: its error, and not a byte written */
	tu_write_file(f->dir, "rank-7.json", "{\"traceEvents\":[{\"ph\":\"X\",");
	memset(&m, 0, sizeof(m));
	assert_true(gp_analyze_paths_json(dir, 1, &o, GP_JSON_PRETTY, mem_add, &m, &sum) < 0);
	snprintf(bad, sizeof(bad), "%s/rank-7.json", f->dir);
	assert_non_null(strstr(gp_last_error(), bad));
	assert_int_equal(m.calls, 0);
	assert_null(sum);
	assert_int_equal(unlink(bad), 0);
	/* no writer, no input */
	assert_int_equal(gp_analyze_paths_json(dir, 1, &o, 0, NULL, NULL, NULL), GP_EINVAL);
	assert_int_equal(gp_analyze_paths_json(dir, 0, &o, 0, mem_add, &m, NULL), GP_EINVAL);
	free(m.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_text),
		cmocka_unit_test(test_no_tmpdir),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
