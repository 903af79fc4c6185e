/* SPDX-License-Identifier: MIT */
/*
 * test_history.c - the history library on SQLite (src/lib/history): the
 * schema made and versioned (a newer version refused, the file untouched),
 * CSV rows parsed (times in every accepted form, quotes, empty cells, bad
 * cells naming line and column), an import that fails half-way writing
 * nothing, gp_history_series() in the shape CONTRACT-25 gives (points in
 * time order whatever the order added), the SM clock check of the noise
 * guard against the testbed's usual, tags as JSON, and what opening makes: a
 * writer's file at its first statement, a reader's never.
 */
#include "testutil.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/history.h"
#include "history/history-int.h"
#include "util/error.h"

static char dir[] = "/tmp/gp-test-history.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return tu_tmpdir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return tu_tmpdir_remove(dir);
}

static const char *path_of(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct gp_history *open_db(const char *name)
{
	struct gp_history *h = NULL;

	if (!gp_history_built_with("sqlite"))
		skip();
	assert_int_equal(gp_history_open(path_of(name), &h), 0);
	assert_string_equal(gp_history_backend(h), "sqlite");
	return h;
}

/* ---- the CSV parser alone ---- */

struct rows {
	int64_t t[8];
	char *commit[8];
	double v[8][4];
	size_t nm[8];
	size_t n;
};

static int keep(void *user, struct gp__hrun *r)
{
	struct rows *x = user;

	assert_true(x->n < 8);
	x->t[x->n] = r->time_ns;
	x->commit[x->n] = r->commit ? strdup(r->commit) : NULL;
	x->nm[x->n] = r->nm;
	for (size_t i = 0; i < r->nm && i < 4; i++)
		x->v[x->n][i] = r->m[i].value;
	x->n++;
	return 0;
}

static int parse(const char *csv, struct rows *x)
{
	struct gp_history_meta meta = { .size = sizeof(meta), .time_ns = 5 };
	char *t = strdup(csv);
	size_t n = 0;
	int rc;

	memset(x, 0, sizeof(*x));
	rc = gp__hcsv_parse("t.csv", t, strlen(t), &meta, "{}", keep, x, &n);
	if (!rc)
		assert_int_equal(n, x->n);
	free(t);
	return rc;
}

static void free_rows(struct rows *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->commit[i]);
}

static void test_csv_times(void **state)
{
	const int64_t s = 1000000000, t0 = 1767232800 * s; /* 2026-01-01 02:00:00 UTC */
	struct rows x;

	(void)state;
	assert_int_equal(parse("time,commit,m\n"
	                       "2026.01.01 3:00:00 +0100,a,1\n" /* Otava's example */
	                       "2026-01-01T02:00:00Z,b,2\n"     /* ISO 8601 */
	                       "2026-01-01 02:00:00.25,c,3\r\n" /* UTC, fraction, CRLF */
	                       "2026/1/1 1:30 -00:30,d,4\n"     /* a negative zone */
	                       "1767232800,e,5\n"               /* Unix seconds */
	                       "2026-01-01,f,6\n",              /* a date alone */
	                       &x),
	                 0);
	assert_int_equal(x.n, 6);
	assert_true(x.t[0] == t0 && x.t[1] == t0 && x.t[2] == t0 + s / 4);
	assert_true(x.t[3] == t0 && x.t[4] == t0 && x.t[5] == t0 - 2 * 3600 * s);
	assert_string_equal(x.commit[0], "a");
	assert_true(x.v[5][0] == 6);
	free_rows(&x);
}

static void test_csv_cells(void **state)
{
	struct rows x;

	(void)state;
	/* quotes of both kinds, a doubled quote, an empty cell unknown, spaces trimmed */
	assert_int_equal(parse("Timestamp,Hash,a,b\n"
	                       "1,'x,y', 1.5 ,\n"
	                       "2,\"q\"\"\",,2e3\n",
	                       &x),
	                 0);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.commit[0], "x,y");
	assert_string_equal(x.commit[1], "q\"");
	assert_int_equal(x.nm[0], 1);
	assert_true(x.v[0][0] == 1.5);
	assert_int_equal(x.nm[1], 1);
	assert_true(x.v[1][0] == 2000);
	free_rows(&x);

	/* no commit column: fine; blank lines skipped */
	assert_int_equal(parse("date,m\n\n2026-01-01,1\n\n", &x), 0);
	assert_int_equal(x.n, 1);
	assert_null(x.commit[0]);
	free_rows(&x);

	assert_int_equal(parse("time,commit,m\n1,a,1\n2,b,nan\n", &x), GP_EFORMAT);
	assert_non_null(
	    strstr(gp_last_error(), "'t.csv': line 3, column 'm': 'nan' is not a number"));
	free_rows(&x);
	assert_int_equal(parse("time,m\n1,1\nyesterday,2\n", &x), GP_EFORMAT);
	assert_non_null(
	    strstr(gp_last_error(), "line 3, column 'time': 'yesterday' is not a time"));
	free_rows(&x);
	assert_int_equal(parse("time,m\n2026-13-01,2\n", &x), GP_EFORMAT);
	free_rows(&x);
	assert_int_equal(parse("time,m\n1013-01-01,2\n", &x), GP_EFORMAT); /* beyond int64 ns */
	free_rows(&x);
	assert_int_equal(parse("when,m\n1,2\n", &x), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), "line 1: no time column"));
	free_rows(&x);
	assert_int_equal(parse("time\n1\n", &x), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), "no metric column"));
	free_rows(&x);
	assert_int_equal(parse("time,m\n1,\"2\n", &x), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), "line 2: a quote is not closed"));
	free_rows(&x);
	assert_int_equal(parse("time,m\n1,2,3\n", &x), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), "line 2: 3 cells, the header has 2"));
	free_rows(&x);
	assert_int_equal(parse("time,m\n1,\n2,3\n", &x), 0); /* every metric empty: no run */
	assert_int_equal(x.n, 1);
	free_rows(&x);
	assert_int_equal(parse("", &x), GP_EFORMAT);
	free_rows(&x);
}

/* ---- the database ---- */

static void test_schema_version(void **state)
{
	struct gp_history *h = open_db("v.sqlite");
	const char *p[1] = { "99" };

	(void)state;
	gp_history_close(h);
	h = open_db("v.sqlite"); /* opened again: nothing to migrate */
	assert_int_equal(
	    gp__hist_exec(h, "UPDATE schema_version SET version = ?", 1, p, NULL, NULL), 0);
	gp_history_close(h);
	h = NULL;
	assert_int_equal(gp_history_open(path_of("v.sqlite"), &h), GP_EVERSION);
	assert_null(h);
	assert_non_null(strstr(gp_last_error(), "v.sqlite': the history database is of schema "
	                                        "version 99; this gpuprof knows versions up to 2"));
	assert_int_equal(gp_history_open(NULL, &h), GP_EINVAL);
	assert_int_equal(gp_history_open(path_of("no/such/dir.sqlite"), &h), GP_EIO);
	assert_non_null(strstr(gp_last_error(), "dir.sqlite"));
}

/*
 * gp_history_open() makes a missing file at its first statement, so an add that fails on its
 * input makes none; gp_history_open_existing() refuses a missing file or a file without the
 * history's tables and makes nothing.
 */
static void test_open_modes(void **state)
{
	struct gp_history_meta meta = { .size = sizeof(meta) };
	const char *bad[1] = { path_of("no-such-result.json") };
	struct gp_history *h = open_db("lazy.sqlite");
	struct gp_value *v = NULL;
	FILE *f;

	(void)state;
	assert_int_equal(access(path_of("lazy.sqlite"), F_OK), -1);
	assert_int_not_equal(gp_history_add(h, bad, 1, &meta, NULL), 0);
	gp_history_close(h);
	assert_int_equal(access(path_of("lazy.sqlite"), F_OK), -1); /* a failed add: no file */

	h = NULL;
	assert_int_equal(gp_history_open_existing(path_of("lazy.sqlite"), &h), GP_ENOENT);
	assert_null(h);
	assert_non_null(strstr(gp_last_error(), "lazy.sqlite': no history database there"));
	assert_int_equal(access(path_of("lazy.sqlite"), F_OK), -1);

	f = fopen(path_of("empty.sqlite"), "w"); /* a file, but no history */
	assert_non_null(f);
	fclose(f);
	assert_int_equal(gp_history_open_existing(path_of("empty.sqlite"), &h), GP_ENOENT);
	assert_null(h);

	h = open_db("lazy.sqlite");
	assert_int_equal(gp_history_list(h, NULL, &v), 0); /* the first statement makes it */
	gp_value_free(v);
	gp_history_close(h);
	assert_int_equal(access(path_of("lazy.sqlite"), F_OK), 0);
	assert_int_equal(gp_history_open_existing(path_of("lazy.sqlite"), &h), 0);
	assert_int_equal(gp_history_list(h, NULL, &v), 0);
	assert_int_equal(gp_value_len(v), 0);
	gp_value_free(v);
	gp_history_close(h);
}

/* the detection options of the layout before the Chromium filters' fields: read, filters off */
static void test_opts_layout(void **state)
{
	struct gp_history *h = open_db("o.sqlite");
	struct gp_history_meta meta = { .size = sizeof(meta) };
	struct gp_history_cpd_opts o;
	struct gp_value *v = NULL;
	char csv[4096], *at = csv;
	size_t n = 0;

	(void)state;
	at += sprintf(at, "time,commit,lat_ns\n");
	for (int i = 0; i < 40; i++)
		at += sprintf(at, "%d,c%02d,%g\n", 1000 + i, i,
		              (i < 20 ? 100.0 : 110.0) + 0.1 * (i % 3));
	write_text(path_of("o.csv"), csv);
	assert_int_equal(gp_history_import_csv(h, path_of("o.csv"), &meta, &n), 0);
	gp_history_cpd_opts_init(&o);
	o.min_steppiness = 1; /* no step is that clean: the filter would drop it */
	o.size = (uint32_t)offsetof(struct gp_history_cpd_opts, min_median_change);
	assert_int_equal(gp_history_changes(h, NULL, &o, &v), 0);
	assert_string_equal(tu_gets(v, "0/changes/0/kind"), "step");
	assert_int_equal(tu_geti(v, "0/changes/0/index"), 20);
	gp_value_free(v);
	o.size = sizeof(o);
	assert_int_equal(gp_history_changes(h, NULL, &o, &v), 0);
	for (size_t i = 0; i < gp_value_len(gp_value_path(v, "0/changes")); i++)
		assert_string_not_equal(gp_value_get_str(gp_obj_get(
		                            gp_arr_get(gp_value_path(v, "0/changes"), i), "kind")),
		                        "step");
	gp_value_free(v);
	o.min_steppiness = 2;
	assert_int_equal(gp_history_changes(h, NULL, &o, &v), GP_EINVAL);
	o.size = (uint32_t)offsetof(struct gp_history_cpd_opts, recent);
	assert_int_equal(gp_history_changes(h, NULL, &o, &v), GP_EINVAL);
	gp_history_close(h);
}

static void test_import_and_series(void **state)
{
	struct gp_history *h = open_db("s.sqlite");
	struct gp_history_meta meta = { .size = sizeof(meta), .branch = "main" };
	const char *tags[] = { "k=v" };
	struct gp_value *s = NULL;
	const struct gp_value *pts, *p0;
	size_t n = 0;

	(void)state;
	meta.tags = tags;
	meta.ntags = 1;
	/* rows out of time order: the series is in time order */
	write_text(path_of("a.csv"), "time,commit,lat_ns,fps\n30,c3,3,30\n10,c1,1,10\n20,c2,2,\n");
	assert_int_equal(gp_history_import_csv(h, path_of("a.csv"), &meta, &n), 0);
	assert_int_equal(n, 3);
	/* a failed import writes nothing: the good row before the bad one is undone */
	write_text(path_of("b.csv"), "time,commit,lat_ns,fps\n40,c4,4,40\n50,c5,x,50\n");
	n = 99;
	assert_int_equal(gp_history_import_csv(h, path_of("b.csv"), &meta, &n), GP_EFORMAT);
	assert_int_equal(n, 99);
	assert_non_null(strstr(gp_last_error(), "b.csv': line 3, column 'lat_ns'"));

	assert_int_equal(gp_history_series(h, NULL, &s), 0);
	assert_int_equal(gp_value_len(s), 2);
	assert_string_equal(tu_gets(s, "0/metric"), "fps");
	assert_string_equal(tu_gets(s, "0/better"), "higher");
	assert_string_equal(tu_gets(s, "0/unit"), "/s");
	assert_int_equal(gp_value_len(gp_value_path(s, "0/points")), 2); /* an empty cell */
	assert_string_equal(tu_gets(s, "1/metric"), "lat_ns");
	assert_string_equal(tu_gets(s, "1/testbed"), "csv");
	assert_string_equal(tu_gets(s, "1/unit"), "ns");
	assert_string_equal(tu_gets(s, "1/better"), "lower");
	pts = gp_value_path(s, "1/points");
	assert_int_equal(gp_value_len(pts), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct gp_value *p = gp_arr_get(pts, i);
		char c[8];

		snprintf(c, sizeof(c), "c%zu", i + 1);
		assert_int_equal(tu_geti(p, "time_ns"), (int64_t)(i + 1) * 10 * 1000000000);
		assert_string_equal(tu_gets(p, "commit"), c);
		assert_true(tu_getd(p, "value") == (double)(i + 1));
	}
	p0 = gp_arr_get(pts, 0);
	assert_string_equal(tu_gets(p0, "branch"), "main");
	assert_int_equal(tu_geti(p0, "run_id"), 2);
	assert_false(gp_value_get_bool(gp_obj_get(p0, "noisy"), true));
	assert_int_equal(gp_value_type(gp_obj_get(p0, "noise_reason")), GP_VALUE_NULL);
	gp_value_free(s);

	assert_int_equal(gp_history_series(h, "lat*", &s), 0);
	assert_int_equal(gp_value_len(s), 1);
	gp_value_free(s);
	assert_int_equal(gp_history_list(h, "f?s", &s), 0);
	assert_int_equal(gp_value_len(s), 1);
	assert_int_equal(tu_geti(s, "0/count"), 2);
	assert_true(tu_getd(s, "0/last_value") == 30);
	assert_string_equal(tu_gets(s, "0/last_commit"), "c3");
	gp_value_free(s);
	assert_int_equal(gp_history_export(h, &s), 0);
	assert_int_equal(gp_value_len(s), 3);
	assert_string_equal(tu_gets(s, "0/tags/k"), "v");
	gp_value_free(s);
	gp_history_close(h);
}

static int64_t write_clock(struct gp_history *h, const char *testbed, double hz, char **noise)
{
	struct gp__hrun r = { .kind = "run", .sm_clock_hz = hz, .time_ns = 1 };
	int64_t id = -1;

	r.testbed = gp__strdup(testbed);
	assert_int_equal(gp__hrun_metric(&r, "m", "ns", false, 1), 0);
	assert_int_equal(gp__hrun_metric(&r, "m", "ns", false, 2), 0); /* the first wins */
	assert_int_equal(gp__hrun_metric(&r, "nan", "ns", false, NAN), 0);
	assert_int_equal(r.nm, 1);
	assert_int_equal(gp__hrun_write(h, &r, &id), 0);
	*noise = r.noise ? strdup(r.noise) : NULL;
	gp__hrun_release(&r);
	return id;
}

static int count_row(void *user, size_t ncol, const char *const *v)
{
	(void)ncol;
	*(long *)user = strtol(v[0] ? v[0] : "-1", NULL, 10);
	return 0;
}

/* a database of version 1 (the index on name alone) is migrated to 2, its rows kept */
static void test_migration_2(void **state)
{
	struct gp_history *h = open_db("m.sqlite");
	char *noise = NULL;
	long n = -1;

	(void)state;
	write_clock(h, "tb", NAN, &noise);
	free(noise);
	/* back to version 1's layout */
	assert_int_equal(gp__hist_exec(h, "DROP INDEX metrics_series", 0, NULL, NULL, NULL), 0);
	assert_int_equal(
	    gp__hist_exec(h, "CREATE INDEX metrics_name ON metrics (name)", 0, NULL, NULL, NULL),
	    0);
	assert_int_equal(
	    gp__hist_exec(h, "UPDATE schema_version SET version = 1", 0, NULL, NULL, NULL), 0);
	gp_history_close(h);
	h = open_db("m.sqlite");
	assert_int_equal(
	    gp__hist_exec(h, "SELECT max(version) FROM schema_version", 0, NULL, count_row, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(
	    gp__hist_exec(h,
	                  "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
	                  "name IN ('metrics_series', 'metrics_name')",
	                  0, NULL, count_row, &n),
	    0);
	assert_int_equal(n, 1); /* metrics_series only */
	assert_int_equal(gp__hist_exec(h, "SELECT count(*) FROM metrics", 0, NULL, count_row, &n),
	                 0);
	assert_int_equal(n, 1);
	gp_history_close(h);
}

static void test_clock_guard(void **state)
{
	struct gp_history *h = open_db("c.sqlite");
	char *noise = NULL;

	(void)state;
	/* two earlier runs are not enough to know the usual */
	write_clock(h, "tb", 1980e6, &noise);
	write_clock(h, "tb", 1990e6, &noise);
	write_clock(h, "tb", 1500e6, &noise);
	assert_null(noise);
	write_clock(h, "tb", 1970e6, &noise);
	/* usual: the median of the clean ones (1500 1970 1980 1990: 1975; 5 % below: 1876) */
	write_clock(h, "tb", 1900e6, &noise);
	assert_null(noise);
	write_clock(h, "tb", 1700e6, &noise);
	assert_non_null(noise);
	assert_non_null(strstr(noise, "SM clock 1700 MHz, below the testbed's usual 1970 MHz"));
	free(noise);
	/* another testbed has its own usual; an unknown clock is never noisy */
	write_clock(h, "other", 1000e6, &noise);
	assert_null(noise);
	write_clock(h, "tb", NAN, &noise);
	assert_null(noise);
	gp_history_close(h);
}

/* every allocation of the reading commands failing in turn: GP_ENOMEM, nothing leaked (ASan) */
static void test_read_torture(void **state)
{
	struct gp_history *h = open_db("t.sqlite");
	struct gp_history_meta meta = { .size = sizeof(meta) };
	struct gp_history_cpd_opts o;
	char csv[8192], *at = csv;
	size_t n = 0;

	(void)state;
	/* a 10 % step at row 30 of 40 (a regression check explains), a higher-is-better metric */
	at += sprintf(at, "time,commit,lat_ns,fps\n");
	for (int i = 0; i < 40; i++)
		at += sprintf(at, "%d,c%02d,%g,%g\n", 1000 + i, i,
		              (i >= 30 ? 1.1e6 : 1e6) + (i % 3) * 1e3, 50.0 + (i % 2));
	write_text(path_of("t.csv"), csv);
	assert_int_equal(gp_history_import_csv(h, path_of("t.csv"), &meta, &n), 0);
	assert_int_equal(
	    gp__hist_exec(h, "UPDATE runs SET noisy = 1, noise_reason = 'x' WHERE id IN (5, 33)", 0,
	                  NULL, NULL, NULL),
	    0);
	gp_history_cpd_opts_init(&o);
	o.points = true;
	/*
	 * A few failures are absorbed (a run's tags unparsed are {}): the walk goes on
	 * until 300 allocations in a row failed to make a call fail, past its last one.
	 */
	for (int what = 0; what < 4; what++) {
		long ok = 0;

		for (long k = 1; ok < 300; k++) {
			struct gp_value *v = NULL;
			char *text = NULL;
			int rc;

			gp__test_fail_alloc_after(k);
			rc = what == 0   ? gp_history_changes(h, NULL, &o, &v)
			     : what == 1 ? gp_history_check(h, NULL, &o, &v)
			     : what == 2 ? gp_history_list(h, NULL, &v)
			                 : gp_history_export(h, &v);
			if (!rc && what < 3)
				rc = gp_history_format(v,
				                       what == 0   ? GP_HISTORY_SHOW
				                       : what == 1 ? GP_HISTORY_CHECK
				                                   : GP_HISTORY_LIST,
				                       60, &text, NULL);
			gp__test_fail_alloc_after(0);
			ok = rc ? 0 : ok + 1;
			if (rc)
				assert_int_equal(rc, GP_ENOMEM);
			gp_free(text);
			gp_value_free(v);
		}
	}
	gp_history_close(h);
}

static void test_tags(void **state)
{
	const char *tags[] = { "a=1", "q=\"x\"\\", "e=" };
	struct gp_history_meta m = { .size = sizeof(m), .tags = tags, .ntags = 3 };
	const char *bad[] = { "=x" };
	char *j = NULL;

	(void)state;
	assert_int_equal(gp__hist_tags_json(&m, &j), 0);
	assert_string_equal(j, "{\"a\":\"1\",\"q\":\"\\\"x\\\"\\\\\",\"e\":\"\"}");
	gp_free(j);
	m.tags = bad;
	m.ntags = 1;
	assert_int_equal(gp__hist_tags_json(&m, &j), GP_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_times),      cmocka_unit_test(test_csv_cells),
		cmocka_unit_test(test_schema_version), cmocka_unit_test(test_migration_2),
		cmocka_unit_test(test_opts_layout),    cmocka_unit_test(test_import_and_series),
		cmocka_unit_test(test_clock_guard),    cmocka_unit_test(test_tags),
		cmocka_unit_test(test_read_torture),   cmocka_unit_test(test_open_modes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
