/* SPDX-License-Identifier: MIT */
/*
 * test_metrics.c - the metrics timeline reader (source/metrics.c) and
 * the report's "metrics" object (analyze/metrics.c): a whole file, nulls, a
 * file cut short, malformed and oversized lines, blocks split mid-line, and
 * the min/max downsampling of the points; and the writer beside the reader:
 * what it writes reads back, with and without its end line.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/metrics.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"
#include "gpuprof/value.h"
#include "source/metrics.h"

#define HEADER                                                                                     \
	"{\"driver_version\":\"999.99\",\"gpu_status\":null,\"hostname\":\"h1\","                  \
	"\"interval_ms\":100,\"nvml_library\":null,\"schema\":\"gpuprof.metrics/1\","              \
	"\"start_monotonic_ns\":1000,\"start_unix_ns\":2000,\"watched_pid\":42}\n"

/* a sample line at @p t with GPU 0 utilisation @p util (NULL: null) and memory @p mem */
static void sample(char *buf, size_t n, long long t, const char *util, const char *mem)
{
	snprintf(buf, n,
	         "{\"schema\":\"gpuprof.sample/1\",\"seq\":1,\"time_monotonic_ns\":%lld,"
	         "\"host\":{\"cpu_busy_ratio\":0.25,\"memory_total_bytes\":1000,"
	         "\"memory_available_bytes\":400,\"load1\":null,"
	         "\"process_tree\":{\"pid\":42,\"processes\":2,\"cpu_cores\":1.5,"
	         "\"rss_bytes\":4096}},"
	         "\"gpus\":[{\"index\":0,\"name\":\"G0\",\"uuid\":\"GPU-0\",\"pci_bus_id\":null,"
	         "\"utilization_gpu_ratio\":%s,\"memory_used_bytes\":%s,"
	         "\"memory_total_bytes\":8000,\"power_watts\":null}]}\n",
	         t, util ? util : "null", mem);
}

static struct gp_metrics_timeline *parse(const char *text)
{
	struct gp_metrics_timeline *m = NULL;

	assert_int_equal(gp__metrics_timeline_parse(text, strlen(text), &m), 0);
	assert_non_null(m);
	return m;
}

static void test_whole(void **state)
{
	char text[8192], line[1024];
	struct gp_metrics_timeline *m;
	const struct gp_metrics_series *s;

	(void)state;
	snprintf(text, sizeof(text), "%s", HEADER);
	sample(line, sizeof(line), 5000, NULL, "100");
	strcat(text, line);
	sample(line, sizeof(line), 6000, "0.5", "300");
	strcat(text, line);
	sample(line, sizeof(line), 7000, "1", "200");
	strcat(text, line);
	strcat(text,
	       "{\"end\":true,\"samples\":3,\"missed_periods\":1,\"end_monotonic_ns\":8000}\n");
	m = parse(text);
	assert_true(m->header_seen);
	assert_string_equal(m->hostname, "h1");
	assert_string_equal(m->driver_version, "999.99");
	assert_null(m->gpu_status);
	assert_int_equal(m->interval_ms, 100);
	assert_int_equal(m->start_monotonic_ns, 1000);
	assert_int_equal(m->start_unix_ns, 2000);
	assert_int_equal(m->watched_pid, 42);
	assert_true(m->ended);
	assert_int_equal(m->end_samples, 3);
	assert_int_equal(m->missed_periods, 1);
	assert_int_equal(m->end_monotonic_ns, 8000);
	assert_int_equal(m->nsamples, 3);
	assert_int_equal(m->malformed_lines, 0);
	assert_false(m->partial_last_line);
	assert_false(m->truncated);
	assert_int_equal(m->ngpus, 1);
	assert_string_equal(m->gpus[0].name, "G0");
	assert_string_equal(m->gpus[0].uuid, "GPU-0");
	assert_null(m->gpus[0].pci_bus_id);
	assert_int_equal(m->t_ns[0], 5000);
	assert_int_equal(m->t_ns[2], 7000);

	/* nulls: unknown is NaN; a field never known makes no series */
	s = gp__metrics_timeline_series(m, "gpu0.utilization_gpu_ratio");
	assert_non_null(s);
	assert_string_equal(s->unit, "ratio");
	assert_int_equal(s->n, 3);
	assert_ptr_equal(s->t_ns, m->t_ns);
	assert_true(isnan(s->v[0]));
	assert_true(s->v[1] == 0.5 && s->v[2] == 1.0);
	assert_null(gp__metrics_timeline_series(m, "gpu0.power_watts"));
	assert_null(gp__metrics_timeline_series(m, "host.load1"));
	s = gp__metrics_timeline_series(m, "process_tree.rss_bytes");
	assert_non_null(s);
	assert_string_equal(s->unit, "bytes");
	assert_true(s->v[0] == 4096.0);
	s = gp__metrics_timeline_series(m, "host.cpu_busy_ratio");
	assert_non_null(s);
	/* the fixed order: host first, then the tree, then gpu0 */
	assert_string_equal(m->series[0].name, "host.cpu_busy_ratio");
	assert_string_equal(m->series[m->nseries - 1].name, "gpu0.memory_total_bytes");
	gp__metrics_timeline_free(m);
}

static void test_cut_short(void **state)
{
	char text[8192], line[1024];
	struct gp_metrics_timeline *m;

	(void)state;
	snprintf(text, sizeof(text), "%s", HEADER);
	sample(line, sizeof(line), 5000, "0.1", "100");
	strcat(text, line);
	sample(line, sizeof(line), 6000, "0.2", "100");
	line[strlen(line) / 2] = '\0'; /* killed mid-line */
	strcat(text, line);
	m = parse(text);
	assert_false(m->ended);
	assert_int_equal(m->missed_periods, -1);
	assert_int_equal(m->end_samples, -1);
	assert_true(m->partial_last_line);
	assert_int_equal(m->nsamples, 1);
	assert_int_equal(m->malformed_lines, 0);
	gp__metrics_timeline_free(m);

	/* a last line complete but for its newline is kept */
	snprintf(text, sizeof(text), "%s", HEADER);
	sample(line, sizeof(line), 5000, "0.1", "100");
	line[strlen(line) - 1] = '\0';
	strcat(text, line);
	m = parse(text);
	assert_int_equal(m->nsamples, 1);
	assert_false(m->partial_last_line);
	gp__metrics_timeline_free(m);

	/* only a header: a timeline with no sample and no series */
	m = parse(HEADER);
	assert_int_equal(m->nsamples, 0);
	assert_int_equal(m->nseries, 0);
	gp__metrics_timeline_free(m);
}

static void test_malformed(void **state)
{
	char text[8192], line[1024];
	struct gp_metrics_timeline *m = NULL;

	(void)state;
	snprintf(text, sizeof(text), "%s", HEADER);
	strcat(text, "not json\n");
	strcat(text, "[1,2,3]\n");
	strcat(text, "{\"schema\":\"gpuprof.sample/1\",\"host\":{}}\n");    /* no time */
	strcat(text, "{\"time_monotonic_ns\":-5}\n");                       /* negative */
	strcat(text, "{\"schema\":\"other/1\",\"time_monotonic_ns\":5}\n"); /* not ours */
	strcat(text, HEADER);                                               /* a second header */
	strcat(text, "\n  \r\n");                                           /* blank: not counted */
	sample(line, sizeof(line), 5000, "0.1", "100");
	strcat(text, line);
	/* GPU indices out of range are ignored; no index: the position */
	strcat(text, "{\"time_monotonic_ns\":6000,\"gpus\":[{\"index\":99999,"
	             "\"power_watts\":5},{\"index\":-1,\"power_watts\":6},"
	             "{\"power_watts\":7},3]}\n");
	/* a number out of the double range is not a value */
	strcat(text,
	       "{\"time_monotonic_ns\":7000,\"host\":{\"load1\":1e999,\"cpu_busy_ratio\":1}}\n");
	m = parse(text);
	assert_int_equal(m->malformed_lines, 6);
	assert_int_equal(m->nsamples, 3);
	assert_int_equal(m->ngpus, 3);
	assert_true(gp__metrics_timeline_series(m, "gpu2.power_watts")->v[1] == 7.0);
	assert_true(isnan(gp__metrics_timeline_series(m, "gpu2.power_watts")->v[0]));
	assert_null(gp__metrics_timeline_series(m, "host.load1"));
	gp__metrics_timeline_free(m);

	/* nothing usable at all */
	m = (void *)1;
	assert_int_equal(gp__metrics_timeline_parse("", 0, &m), GP_EFORMAT);
	assert_null(m);
	assert_int_equal(gp__metrics_timeline_parse("garbage\n{}\n", 11, &m), GP_EFORMAT);
	assert_int_equal(gp__metrics_timeline_read("/nonexistent/metrics.jsonl", &m), GP_EIO);
	assert_int_equal(gp__metrics_timeline_read(NULL, &m), GP_EINVAL);
}

/* a file read in blocks: lines across block boundaries, one line past the cap */
static void test_file(void **state)
{
	char path[] = "/tmp/gp-test-metrics-XXXXXX", line[1024];
	struct gp_metrics_timeline *m = NULL;
	size_t i, big = GP_METRICS_MAX_LINE + 100;
	char *pad;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(HEADER, f);
	for (i = 0; i < 2000; i++) {
		sample(line, sizeof(line), 10000 + (long long)i, i % 2 ? "0.5" : "1", "100");
		fputs(line, f);
	}
	/* an oversized line (skipped, counted), then a long but valid one (a key of 100 KiB) */
	pad = malloc(big + 1);
	assert_non_null(pad);
	memset(pad, 'x', big);
	pad[big] = '\0';
	fprintf(f, "{\"k\":\"%s\"}\n", pad);
	pad[100 * 1024] = '\0';
	fprintf(f, "{\"time_monotonic_ns\":99999,\"pad\":\"%s\",\"host\":{\"cpu_busy_ratio\":1}}\n",
	        pad);
	free(pad);
	fputs("{\"end\":true,\"samples\":2001,\"missed_periods\":0}\n", f);
	fclose(f);
	assert_int_equal(gp__metrics_timeline_read(path, &m), 0);
	unlink(path);
	assert_int_equal(m->nsamples, 2001);
	assert_int_equal(m->malformed_lines, 1);
	assert_true(m->ended);
	assert_int_equal(m->t_ns[2000], 99999);
	assert_true(gp__metrics_timeline_series(m, "host.cpu_busy_ratio")->v[2000] == 1.0);
	assert_true(isnan(gp__metrics_timeline_series(m, "gpu0.utilization_gpu_ratio")->v[2000]));
	gp__metrics_timeline_free(m);
}

static void test_points(void **state)
{
	enum { N = 10000 };
	int64_t *t = malloc(N * sizeof(*t));
	double *v = malloc(N * sizeof(*v));
	struct gp_value *pts = gp_value_array();
	int64_t prev = -1, x;
	double d, hi = -1, lo = 1e9;
	size_t i;

	(void)state;
	assert_non_null(t);
	assert_non_null(v);
	for (i = 0; i < N; i++) {
		t[i] = 1000 + (int64_t)i * 10;
		v[i] = (double)(i % 100);
		if (i >= 4000 && i < 4100)
			v[i] = NAN; /* a gap of more than a bin */
	}
	v[1234] = 1e6; /* a one-sample peak and a one-sample trough */
	v[8765] = -7;
	assert_int_equal(gp__metrics_points(t, v, N, GP_METRICS_MAX_POINTS, pts), 0);
	assert_true(gp_value_len(pts) <= GP_METRICS_MAX_POINTS);
	assert_true(gp_value_len(pts) >= GP_METRICS_MAX_POINTS - 10);
	for (i = 0; i < gp_value_len(pts); i++) {
		const struct gp_value *p = gp_arr_get(pts, i);

		assert_int_equal(gp_value_len(p), 2);
		assert_true(gp_value_get_int(gp_arr_get(p, 0), &x));
		assert_true(x > prev); /* time order, each a real sample */
		assert_int_equal((x - 1000) % 10, 0);
		prev = x;
		if (gp_value_get_double(gp_arr_get(p, 1), &d)) {
			hi = d > hi ? d : hi;
			lo = d < lo ? d : lo;
		} else {
			assert_int_equal(gp_value_type(gp_arr_get(p, 1)), GP_VALUE_NULL);
			assert_true(x >= 1000 + 4000 * 10 && x < 1000 + 4100 * 10);
		}
	}
	assert_true(hi == 1e6 && lo == -7); /* peaks are never averaged away */
	gp_value_free(pts);

	/* few samples: all of them, nulls included */
	pts = gp_value_array();
	v[1] = NAN;
	assert_int_equal(gp__metrics_points(t, v, 3, GP_METRICS_MAX_POINTS, pts), 0);
	assert_int_equal(gp_value_len(pts), 3);
	assert_int_equal(gp_value_type(gp_arr_get(gp_arr_get(pts, 1), 1)), GP_VALUE_NULL);
	assert_int_equal(gp__metrics_points(t, v, 3, 1, pts), GP_EINVAL);
	gp_value_free(pts);
	free(t);
	free(v);
}

static void test_object(void **state)
{
	char text[16384], line[1024];
	struct gp_metrics_timeline *m;
	struct gp_value *o = NULL;
	const struct gp_value *series, *s = NULL;
	size_t i;
	int k;

	(void)state;
	snprintf(text, sizeof(text), "%s", HEADER);
	for (k = 1; k <= 20; k++) {
		char u[16];

		snprintf(u, sizeof(u), "%d", k);
		sample(line, sizeof(line), 1000LL * k, k == 3 ? NULL : u, "100");
		strcat(text, line);
	}
	m = parse(text);
	assert_int_equal(gp__metrics_object(m, "dir/metrics.jsonl", &o), 0);
	assert_string_equal(tu_gets(o, "file"), "dir/metrics.jsonl");
	assert_int_equal(gp_value_type(gp_obj_get(o, "error")), GP_VALUE_NULL);
	assert_int_equal(tu_geti(o, "samples"), 20);
	assert_int_equal(tu_geti(o, "first_ns"), 1000);
	assert_int_equal(tu_geti(o, "last_ns"), 20000);
	assert_false(gp_value_get_bool(gp_obj_get(o, "ended"), true));
	assert_int_equal(gp_value_type(gp_obj_get(o, "missed_periods")), GP_VALUE_NULL);
	assert_int_equal(tu_geti(o, "interval_ms"), 100);
	assert_int_equal(tu_geti(o, "gpus/0/memory_total_bytes"), 8000);
	assert_string_equal(tu_gets(o, "gpus/0/name"), "G0");
	assert_int_equal(tu_geti(o, "host_memory_total_bytes"), 1000);
	series = gp_obj_get(o, "series");
	for (i = 0; i < gp_value_len(series); i++) {
		const char *name = gp_value_get_str(gp_obj_get(gp_arr_get(series, i), "name"));

		/* totals and limits are values, not series */
		assert_null(strstr(name, "memory_total_bytes"));
		if (strcmp(name, "gpu0.utilization_gpu_ratio") == 0)
			s = gp_arr_get(series, i);
	}
	assert_non_null(s);
	/* 19 known values: 1, 2, 4 .. 20 */
	assert_int_equal(tu_geti(s, "count"), 19);
	assert_true(tu_getd(s, "min") == 1 && tu_getd(s, "max") == 20);
	/* the mean as the JSON holds it (six decimals), so that the text and the page agree */
	assert_true(tu_getd(s, "mean") == 10.894737);
	/* linear interpolation: position 0.95 * 18 = 17.1 between 19 and 20 */
	assert_true(fabs(tu_getd(s, "p95") - 19.1) < 1e-9);
	assert_true(tu_getd(s, "last") == 20);
	assert_int_equal(gp_value_len(gp_obj_get(s, "points")), 20);
	assert_int_equal(tu_geti(s, "points/2/0"), 3000);
	assert_int_equal(gp_value_type(gp_value_path(s, "points/2/1")), GP_VALUE_NULL);
	gp_value_free(o);
	gp__metrics_timeline_free(m);

	/* negative, signed zero and extreme values keep their order in the statistics */
	m = parse("{\"time_monotonic_ns\":1,\"host\":{\"load1\":-2.5}}\n"
	          "{\"time_monotonic_ns\":2,\"host\":{\"load1\":1e300}}\n"
	          "{\"time_monotonic_ns\":3,\"host\":{\"load1\":-0.0}}\n"
	          "{\"time_monotonic_ns\":4,\"host\":{\"load1\":-1e-300}}\n"
	          "{\"time_monotonic_ns\":5,\"host\":{\"load1\":3}}\n");
	assert_int_equal(gp__metrics_object(m, NULL, &o), 0);
	s = gp_value_path(o, "series/0");
	assert_string_equal(tu_gets(s, "name"), "host.load1");
	assert_true(tu_getd(s, "min") == -2.5);
	assert_true(tu_getd(s, "max") == 1e300);
	assert_true(tu_getd(s, "last") == 3);
	/* sorted: -2.5, -1e-300, -0, 3, 1e300; p95 at 3.8: 3 + 0.8 * (1e300 - 3) */
	assert_true(fabs(tu_getd(s, "p95") / 0.8e300 - 1) < 1e-9);
	assert_int_equal(gp_value_type(gp_obj_get(o, "file")), GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_obj_get(o, "interval_ms")), GP_VALUE_NULL);
	gp_value_free(o);
	gp__metrics_timeline_free(m);
}

/* Writes @p n samples of a CPU-only sampler to @p path; closed (end line) when @p close. */
static void write_timeline(const char *path, int n, bool close)
{
	struct gp_sampler_opts so = { .size = sizeof(so), .interval_ms = 10, .no_gpu = true };
	struct gp_metrics_writer_opts wo = { .size = sizeof(wo), .watched_pid = 4242 };
	struct gp_metrics_writer *w = NULL;
	struct gp_sampler *s = NULL;
	struct gp_sample *smp = malloc(sizeof(*smp));

	assert_non_null(smp);
	assert_int_equal(gp_sampler_open(&so, &s), 0);
	assert_int_equal(gp_metrics_writer_open(path, s, &wo, &w), 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(gp_sampler_sample_now(s, smp), 0);
		assert_int_equal(gp_metrics_writer_add(w, smp), 0);
	}
	assert_int_equal(gp_metrics_writer_count(w), (uint64_t)n);
	if (close)
		assert_int_equal(gp_metrics_writer_close(w, s), 0);
	else
		gp_metrics_writer_free(w);
	gp_sampler_close(s);
	free(smp);
}

static void test_writer(void **state)
{
	char path[] = "/tmp/gp-test-metrics-w.XXXXXX";
	struct gp_metrics_timeline *m = NULL;
	struct gp_sampler_opts so = { .size = sizeof(so), .interval_ms = 10, .no_gpu = true };
	struct gp_metrics_writer *w = (struct gp_metrics_writer *)1;
	struct gp_metrics_writer_opts big[2];
	struct gp_sampler *s = NULL;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_timeline(path, 3, true);
	assert_int_equal(gp__metrics_timeline_read(path, &m), 0);
	assert_true(m->header_seen);
	assert_true(m->ended);
	assert_int_equal(m->nsamples, 3);
	assert_int_equal(m->end_samples, 3);
	assert_int_equal(m->watched_pid, 4242);
	assert_int_equal(m->interval_ms, 10);
	assert_int_equal(m->malformed_lines, 0);
	assert_non_null(m->gpu_status); /* --no-gpu says why */
	gp__metrics_timeline_free(m);

	/* freed without closing: the samples stay, no end line */
	write_timeline(path, 2, false);
	assert_int_equal(gp__metrics_timeline_read(path, &m), 0);
	assert_false(m->ended);
	assert_int_equal(m->nsamples, 2);
	gp__metrics_timeline_free(m);
	unlink(path);

	/* a file that cannot be made: the path named, nothing handed out */
	assert_int_equal(gp_sampler_open(&so, &s), 0);
	assert_int_equal(gp_metrics_writer_open("/nonexistent-dir/m.jsonl", s, NULL, &w), GP_EIO);
	assert_null(w);
	assert_non_null(strstr(gp_last_error(), "cannot write '/nonexistent-dir/m.jsonl'"));

	/* bad arguments: refused, nothing created or handed out */
	w = (struct gp_metrics_writer *)1;
	assert_int_equal(gp_metrics_writer_open(path, NULL, NULL, &w), GP_EINVAL);
	assert_null(w);
	assert_int_equal(gp_metrics_writer_open(NULL, s, NULL, &w), GP_EINVAL);
	assert_int_equal(gp_metrics_writer_open(path, s, NULL, NULL), GP_EINVAL);
	assert_int_equal(access(path, F_OK), -1);
	/* opts from newer headers asking for more than this library knows */
	memset(big, 0, sizeof(big));
	big[0].size = sizeof(big);
	((unsigned char *)big)[sizeof(big) - 1] = 1;
	assert_int_equal(gp_metrics_writer_open(path, s, &big[0], &w), GP_EINVAL);
	assert_int_equal(access(path, F_OK), -1);
	/* opts from older headers (only the size), NULL opts: no watched pid */
	big[0].size = sizeof(uint32_t);
	assert_int_equal(gp_metrics_writer_open(path, s, &big[0], &w), 0);
	assert_int_equal(gp_metrics_writer_add(w, NULL), GP_EINVAL);
	assert_int_equal(gp_metrics_writer_count(w), 0);
	assert_int_equal(gp_metrics_writer_close(w, s), 0);
	assert_int_equal(gp__metrics_timeline_read(path, &m), 0);
	assert_true(m->ended);
	assert_int_equal(m->watched_pid, -1);
	assert_int_equal(m->nsamples, 0);
	gp__metrics_timeline_free(m);
	unlink(path);
	assert_int_equal(gp_metrics_writer_count(NULL), 0);
	gp_metrics_writer_free(NULL);
	gp_sampler_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),     cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_malformed), cmocka_unit_test(test_file),
		cmocka_unit_test(test_points),    cmocka_unit_test(test_object),
		cmocka_unit_test(test_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
