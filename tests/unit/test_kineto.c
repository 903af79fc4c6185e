/* SPDX-License-Identifier: MIT */
/*
 * test_kineto.c - the Kineto reader on small hand-written traces
 * (tests/data/kineto/): both schemas, a bare array, baseTimeNanoseconds after
 * traceEvents, gzip (one and several members), errors with their offsets,
 * salvage, every window size, and allocation torture. Long non-ASCII and
 * escaped strings (names, keys, args, metadata) read the same in place,
 * through small windows and through gzip cut anywhere (stored blocks, members
 * and read chunks ending inside a character), from memory and from a file.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/trace.h"
#include "source/kineto.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/ts.h"

static char *data_path(const char *name)
{
	static char buf[4096];
	const char *src = getenv("GP_SRC_DIR");

	snprintf(buf, sizeof(buf), "%s/tests/data/kineto/%s", src ? src : ".", name);
	return buf;
}

static char *slurp(const char *name, size_t *n)
{
	FILE *f = fopen(data_path(name), "rb");
	char *p;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	p = malloc((size_t)len + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

static struct gp_trace *open_ok(const char *name, bool salvage)
{
	struct gp_open_opts o = { .size = sizeof(o), .salvage = salvage };
	struct gp_trace *t = NULL;
	int rc = gp_trace_open(data_path(name), &o, &t);

	if (rc)
		fail_msg("%s: rc %d: %s", name, rc, gp_last_error());
	assert_non_null(t);
	return t;
}

static int open_mem(const char *text, size_t n, bool salvage, struct gp_trace **t)
{
	struct gp_open_opts o = { .size = sizeof(o), .salvage = salvage, .name = "mem" };

	return gp_trace_open_mem(text, n, &o, t);
}

static uint64_t cat_count(const struct gp_trace *t, char ph, const char *cat)
{
	uint32_t id = cat ? gp__strtab_find(&t->strs, cat, strlen(cat)) : 0;
	size_t i;

	for (i = 0; i < t->ncats; i++)
		if (t->cats[i].ph == ph && t->cats[i].cat == id)
			return t->cats[i].count;
	return 0;
}

static const struct gp_track *track(const struct gp_trace *t, size_t ev)
{
	return &t->tracks[t->ev.track[ev]];
}

static void check_modern(struct gp_trace *t)
{
	const struct gp_gpu_info *gi;
	struct gp_device_props dp;
	size_t i;

	assert_int_equal(t->events_read, 17);
	assert_int_equal(t->ev.n, 9);
	assert_int_equal(t->npy, 1);
	assert_int_equal(t->rank, 3);
	assert_int_equal(t->world_size, 8);
	assert_false(t->has_base);
	assert_false(t->ts_float);
	assert_false(t->bare_array);
	assert_false(t->salvaged);

	/* ProfilerStep#7 */
	assert_string_equal(gp__ev_name(t, 0), "ProfilerStep#7");
	assert_int_equal(t->ev.kind[0], GP_K_USER_ANNOTATION);
	assert_int_equal(t->ev.flags[0], GP_EVF_STEP);
	assert_int_equal(t->ev.ts[0], 1000000);
	assert_int_equal(t->ev.dur[0], 500000);
	assert_int_equal(t->ev.ext[0], 1);
	assert_int_equal(t->ev.corr[0], -1);
	assert_int_equal(t->ev.kind[1], GP_K_CPU_OP);
	assert_int_equal(t->ev.kind[2], GP_K_RUNTIME);
	assert_int_equal(t->ev.corr[2], 77);
	assert_int_equal(t->ev.ext[2], 2);

	/* the kernel and its details */
	assert_int_equal(t->ev.kind[3], GP_K_KERNEL);
	assert_int_equal(t->ev.corr[3], 77);
	assert_int_equal(t->ev.stream[3], 7);
	assert_int_equal(t->ev.flags[3], GP_EVF_HAS_STREAM);
	assert_int_not_equal(t->ev.aux[3], UINT32_MAX);
	gi = &t->gpu[t->ev.aux[3]];
	assert_int_equal(gi->device, 0);
	assert_int_equal(gi->grid[0], 2);
	assert_int_equal(gi->grid[1], 3);
	assert_int_equal(gi->grid[2], 1);
	assert_int_equal(gi->block[0], 128);
	assert_int_equal(gi->regs, 72);
	assert_int_equal(gi->shmem, 8192);
	assert_int_equal(gi->bytes, -1);
	assert_true(gi->blocks_per_sm == 0.5);
	assert_true(gi->warps_per_sm == 2.25);
	assert_true(gi->occupancy_pct == 13.0);
	assert_true(isnan(gi->bw_gbps));
	assert_int_equal(gi->collective, 0);
	assert_true(track(t, 3)->gpu);
	assert_int_equal(track(t, 3)->device, 0);
	assert_int_equal(track(t, 3)->stream, 7);

	assert_int_equal(t->ev.kind[4], GP_K_MEMCPY);
	gi = &t->gpu[t->ev.aux[4]];
	assert_int_equal(gi->bytes, 4096);
	assert_true(fabs(gi->bw_gbps - 0.2048) < 1e-12);
	assert_int_equal(gi->regs, -1);

	/* a CPU event that carries args.stream */
	assert_int_equal(t->ev.kind[5], GP_K_SYNC);
	assert_int_equal(t->ev.flags[5], GP_EVF_HAS_STREAM);
	assert_int_equal(t->ev.stream[5], 7);
	assert_int_equal(t->ev.aux[5], UINT32_MAX);
	assert_false(track(t, 5)->gpu);
	assert_string_equal(gp__strtab_get(&t->strs, track(t, 5)->name), "thread 100 (python3)");

	assert_int_equal(t->ev.kind[6], GP_K_GPU_ANNOTATION);
	assert_int_equal(t->ev.flags[6], 0);
	assert_int_equal(t->ev.kind[7], GP_K_OTHER);
	assert_string_equal(gp__ev_name(t, 7), "no category");
	assert_int_equal(t->ev.kind[8], GP_K_TRACE);
	assert_string_equal(gp__strtab_get(&t->strs, track(t, 8)->pid_str), "Spans");
	assert_int_equal(track(t, 8)->pid, -1);

	/* memory events */
	assert_int_equal(t->nmem, 2);
	assert_int_equal(t->mem[0].ts, 1015000);
	assert_int_equal(t->mem[0].bytes, 512);
	assert_int_equal(t->mem[0].total_allocated, 512);
	assert_int_equal(t->mem[0].total_reserved, 2097152);
	assert_int_equal(t->mem[0].addr, 139870000000000LL);
	assert_int_equal(t->mem[0].device, 0);
	assert_int_equal(t->mem[0].device_type, 1);
	assert_int_equal(t->mem[1].bytes, -512);
	assert_int_equal(t->mem[1].total_allocated, -1);
	assert_int_equal(t->mem[1].addr, -1);

	/* counts by (ph, cat) */
	assert_int_equal(cat_count(t, 'X', "cpu_op"), 1);
	assert_int_equal(cat_count(t, 'X', "python_function"), 1);
	assert_int_equal(cat_count(t, 's', "ac2g"), 1);
	assert_int_equal(cat_count(t, 'f', "ac2g"), 1);
	assert_int_equal(cat_count(t, 'i', "cpu_instant_event"), 2);
	assert_int_equal(cat_count(t, 'i', NULL), 1);
	assert_int_equal(cat_count(t, 'M', NULL), 2);
	assert_int_equal(cat_count(t, 'X', NULL), 1);

	/* metadata: everything but traceEvents */
	assert_null(gp_obj_get(t->meta, "traceEvents"));
	assert_string_equal(gp_value_get_str(gp_obj_get(t->meta, "traceName")), "modern.json");
	assert_true(gp__trace_device_props(t, 0, &dp));
	assert_int_equal(dp.num_sms, 132);
	assert_int_equal(dp.compute_major, 9);
	assert_string_equal(dp.name, "NVIDIA H100 80GB HBM3");
	for (i = 0; i < t->ev.n; i++)
		assert_true(t->ev.dur[i] >= 0);
}

static void test_modern(void **state)
{
	struct gp_trace *t = open_ok("modern.json", false);

	(void)state;
	check_modern(t);
	assert_int_equal(t->bytes_read, 3238);
	gp_trace_free(t);
}

static void test_gzip(void **state)
{
	struct gp_trace *t;
	char *p;
	size_t n;

	(void)state;
	t = open_ok("modern.json.gz", false);
	check_modern(t);
	assert_int_equal(t->bytes_read, 3238);
	gp_trace_free(t);
	/* several gzip members make one stream */
	t = open_ok("multi.json.gz", false);
	check_modern(t);
	gp_trace_free(t);
	/* and from memory */
	p = slurp("multi.json.gz", &n);
	assert_int_equal(open_mem(p, n, false, &t), 0);
	check_modern(t);
	gp_trace_free(t);
	free(p);
}

static void test_legacy(void **state)
{
	struct gp_trace *t = open_ok("legacy2021.json", false);
	const struct gp_gpu_info *gi;

	(void)state;
	assert_int_equal(t->events_read, 9);
	assert_int_equal(t->ev.n, 5);
	assert_int_equal(t->ev.kind[0], GP_K_USER_ANNOTATION);
	assert_int_equal(t->ev.flags[0], GP_EVF_STEP);
	assert_int_equal(t->ev.ts[0], 1623142623460111000LL);
	assert_int_equal(t->ev.dur[0], 900000);
	/* numeric string tid is a number */
	assert_int_equal(track(t, 0)->tid, 25738);
	assert_int_equal(track(t, 0)->tid_str, 0);
	assert_int_equal(t->ev.kind[1], GP_K_CPU_OP);
	assert_int_equal(t->ev.ext[1], 3);
	assert_int_equal(t->ev.kind[2], GP_K_RUNTIME);
	assert_int_equal(t->ev.ext[2], 3); /* legacy "external id" */
	assert_int_equal(t->ev.corr[2], 311);
	assert_int_equal(t->ev.kind[3], GP_K_KERNEL);
	assert_int_equal(t->ev.ext[3], 3);
	gi = &t->gpu[t->ev.aux[3]];
	assert_int_equal(gi->grid[0], 784);
	assert_int_equal(gi->grid[2], 2);
	assert_true(gi->warps_per_sm == 10.0);
	assert_true(isnan(gi->occupancy_pct));
	/* "stream 7": a string tid, the stream number from it */
	assert_int_equal(track(t, 3)->tid, -1);
	assert_string_equal(gp__strtab_get(&t->strs, track(t, 3)->tid_str), "stream 7");
	assert_true(track(t, 3)->gpu);
	assert_int_equal(track(t, 3)->stream, 7);
	assert_int_equal(track(t, 3)->device, 0);
	assert_string_equal(gp__strtab_get(&t->strs, track(t, 3)->name), "stream 7 \xc3\xa9\"q\"");
	/* Memset without args.stream or device: stream from tid, device from pid */
	assert_int_equal(t->ev.kind[4], GP_K_MEMSET);
	assert_int_equal(t->ev.flags[4], 0);
	assert_int_equal(t->ev.track[4], t->ev.track[3]);
	assert_int_equal(t->gpu[t->ev.aux[4]].bytes, 1024);
	assert_int_equal(t->nmem, 1);
	assert_int_equal(t->mem[0].device, -1);
	assert_int_equal(t->mem[0].device_type, 0);
	assert_int_equal(t->mem[0].bytes, 4);
	assert_int_equal(cat_count(t, 's', "async"), 1);
	assert_int_equal(cat_count(t, 'i', NULL), 1);
	assert_int_equal(t->rank, -1);
	gp_trace_free(t);
}

static void test_bare(void **state)
{
	struct gp_trace *t = open_ok("bare.json", false);

	(void)state;
	assert_true(t->bare_array);
	assert_int_equal(t->events_read, 3);
	assert_int_equal(t->ev.n, 2);
	assert_int_equal(t->ev.kind[1], GP_K_KERNEL);
	assert_int_equal(cat_count(t, 'C', NULL), 1);
	assert_int_equal(gp_value_len(t->meta), 0);
	gp_trace_free(t);
}

static void test_base_after(void **state)
{
	struct gp_trace *t = open_ok("base_after.json", false);
	const int64_t base = 1751410836000000000LL;

	(void)state;
	assert_true(t->has_base);
	assert_int_equal(t->base_ns, base);
	assert_true(t->ts_float);
	assert_int_equal(t->ev.n, 2);
	assert_int_equal(t->ev.ts[0], base + 1428625731896179LL);
	assert_int_equal(t->ev.dur[0], 12501); /* 12.5006 us rounds to 12501 ns */
	assert_int_equal(t->ev.ts[1], base + 1428625731900000LL);
	assert_int_equal(t->ev.dur[1], 15000); /* 1.5e1 */
	assert_int_equal(t->nmem, 1);
	assert_int_equal(t->mem[0].ts, base + 1428625731896200LL);
	assert_int_equal(t->npy, 1);
	gp_trace_free(t);
}

static void test_truncated(void **state)
{
	struct gp_trace *t = NULL;
	uint64_t off, lost;
	const char *ev;
	char *p;
	size_t n;
	int rc;

	(void)state;
	rc = gp_trace_open(data_path("truncated.json"), NULL, &t);
	assert_int_equal(rc, GP_ETRUNC);
	assert_null(t);
	assert_non_null(strstr(gp_last_error(), "truncated.json: byte 1529: unexpected end"));

	t = open_ok("truncated.json", true);
	p = slurp("truncated.json", &n);
	ev = p + n;
	while (ev > p && *ev != '{')
		ev--;
	assert_true(gp_trace_salvage(t, &off, &lost));
	assert_int_equal(off, (uint64_t)(ev - p));
	assert_int_equal(lost, n - (size_t)(ev - p));
	assert_int_equal(t->ev.n, 5);
	assert_int_equal(t->events_read, 5);
	assert_int_equal(t->rank, 3); /* metadata before traceEvents is kept */
	gp_trace_free(t);

	/* a truncated gzip: an error, or the events before the cut */
	free(p);
	p = slurp("modern.json.gz", &n);
	rc = open_mem(p, n / 2, false, &t);
	assert_int_equal(rc, GP_ETRUNC);
	assert_non_null(strstr(gp_last_error(), "(uncompressed)"));
	rc = open_mem(p, n / 2, true, &t);
	assert_int_equal(rc, 0);
	assert_true(t->salvaged);
	assert_true(t->ev.n < 9);
	gp_trace_free(t);
	free(p);
}

struct bad_case {
	const char *text;
	int rc;
	const char *msg; /* expected substring of the error */
};

static void test_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ "hello", GP_EFORMAT, "mem: byte 0: not a trace" },
		{ "", GP_EFORMAT, "mem: byte 0: empty input" },
		{ "   \n", GP_ETRUNC, "byte 4: unexpected end of input" },
		{ "{\"traceEvents\": [{\"ph\":\"X\",\"ts\":\"12\",\"dur\":1}]}", GP_EFORMAT,
		  "byte 32: \"ts\" is not a number" },
		{ "{\"traceEvents\": {}}", GP_EFORMAT, "byte 16: \"traceEvents\" is not an array" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":-5}]}", GP_EFORMAT,
		  "byte 39: negative \"dur\"" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":NaN}]}", GP_EFORMAT,
		  "byte 31: NaN and Infinity are not JSON" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"args\":{\"a\":-Infinity}}]}", GP_EFORMAT,
		  "byte 39: invalid number" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":99999999999999999}]}", GP_EFORMAT,
		  "byte 31: timestamp out of range" },
		/* the model's limits: ts + dur within 2^62 ns, durations summing within 2^62 */
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1623142623460111,"
		  "\"dur\":9138398674455552}]}",
		  GP_EFORMAT, "byte 16: time out of range" },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":0,\"dur\":4611686018427387},"
		  "{\"ph\":\"X\",\"ts\":0,\"dur\":4611686018427387}]}",
		  GP_EFORMAT, "event durations add up to more than 2^62" },
		{ "{\"traceEvents\":[{\"name\":\"a\xff\"}]}", GP_EFORMAT,
		  "byte 26: invalid UTF-8 in string" },
		{ "{\"traceEvents\":[{\"name\":\"a\x01\"}]}", GP_EFORMAT,
		  "byte 26: control character in string" },
		{ "{\"traceEvents\":[{\"name\":\"\\x\"}]}", GP_EFORMAT, "byte 25: invalid escape" },
		{ "{\"traceEvents\":[{\"name\":\"\\ud800\"}]}", GP_EFORMAT,
		  "byte 25: unpaired high surrogate" },
		{ "{\"traceEvents\":[]} x", GP_EFORMAT, "byte 19: trailing characters" },
		{ "{\"traceEvents\":[] ", GP_ETRUNC, "byte 18: unexpected end of input" },
		{ "{\"traceEvents\":[1]}", GP_EFORMAT, "byte 16: event is not an object" },
		{ "{\"traceEvents\":[{} {}]}", GP_EFORMAT,
		  "byte 19: expected ',' or ']' after an event" },
		{ "{\"traceEvents\":[{\"ph\" 1}]}", GP_EFORMAT, "byte 22: expected ':'" },
		{ "{\"other\":1}", GP_EFORMAT, "no \"traceEvents\" array" },
		{ "{\"traceEvents\":[], \"traceEvents\":[]}", GP_EFORMAT,
		  "second \"traceEvents\"" },
		{ "{\"traceEvents\":[], \"baseTimeNanoseconds\":\"x\"}", GP_EFORMAT,
		  "\"baseTimeNanoseconds\" is not an integer" },
		{ "{\"traceEvents\": []}", GP_EFORMAT, "no events to analyse" },
		{ "[]", GP_EFORMAT, "no events to analyse" },
		{ "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1}]}",
		  GP_EFORMAT, "no events to analyse" },
		{ "{\"traceEvents\":[{\"pid\":1.5}]}", GP_EFORMAT,
		  "byte 23: \"pid\" is not an integer" },
		{ "{\"a\":tru}", GP_EFORMAT, "byte 5: invalid literal" },
		{ "\x1f\x8b\x08\x01mtim\x02\x03\xff\xff\xffgarbage", GP_EFORMAT, "corrupt gzip" },
		{ "\x1f\x8b", GP_ETRUNC, "gzip stream ends early" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(cases); i++) {
		struct gp_trace *t = (struct gp_trace *)1;
		int rc = open_mem(cases[i].text, strlen(cases[i].text), false, &t);

		if (rc != cases[i].rc || !strstr(gp_last_error(), cases[i].msg))
			fail_msg("case %zu: rc %d, error \"%s\"; want %d \"%s\"", i, rc,
			         gp_last_error(), cases[i].rc, cases[i].msg);
		assert_null(t);
		/* the same through the streaming window */
		gp__kineto_test_window = 7;
		rc = open_mem(cases[i].text, strlen(cases[i].text), false, &t);
		gp__kineto_test_window = 0;
		if (rc != cases[i].rc || !strstr(gp_last_error(), cases[i].msg))
			fail_msg("case %zu (window 7): rc %d, error \"%s\"; want %d \"%s\"", i, rc,
			         gp_last_error(), cases[i].rc, cases[i].msg);
		assert_null(t);
	}
}

static void test_depth_bomb(void **state)
{
	const size_t n = 100000;
	const char *pre[] = { "{\"traceEvents\":[{\"args\":{\"x\":", "{\"meta\":",
		              "{\"traceEvents\":[{\"other\":" };
	struct gp_trace *t;
	size_t i, k;
	char *p;
	int rc;

	(void)state;
	for (k = 0; k < GP_ARRAY_SIZE(pre); k++) {
		size_t pl = strlen(pre[k]);

		p = malloc(pl + n);
		assert_non_null(p);
		memcpy(p, pre[k], pl);
		for (i = 0; i < n; i++)
			p[pl + i] = '[';
		rc = open_mem(p, pl + n, false, &t);
		assert_int_equal(rc, GP_ELIMIT);
		assert_non_null(strstr(gp_last_error(), "nesting too deep"));
		assert_null(t);
		/* inside traceEvents, salvage keeps what came before: nothing, an error */
		rc = open_mem(p, pl + n, true, &t);
		if (k == 1) {
			assert_int_equal(rc, GP_ELIMIT);
		} else {
			assert_int_equal(rc, GP_EFORMAT);
			assert_non_null(strstr(gp_last_error(), "none before the damage"));
			assert_null(t);
		}
		free(p);
	}
}

/* Every window size gives the same trace as reading in place. */
/*
 * The key-segment memo (kineto-int.h): events whose layout changes between
 * occurrences of the same keys (spacing around ',' and ':', a key in another
 * place, an unknown or escaped key where a known one was, keys longer than a
 * segment, more distinct segments than the memo holds) give the values the
 * text says, in place and through a small window; errors right after a
 * remembered segment are reported at their own byte.
 */
static void test_key_memo(void **state)
{
	static const char *const layouts[] = {
		/* @T ts, @D dur, @E external id, @C correlation */
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
		"\"ts\": @T, \"dur\": @D, \"args\": {\"External id\": @E, \"correlation\": @C}}",
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,"
		"\"ts\":@T,\"dur\":@D,\"args\":{\"External id\":@E,\"correlation\":@C}}",
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
		"\"ts\":   @T, \"dur\" :@D, \"args\": {\"External id\":  @E , \"correlation\": @C "
		"}}",
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
		"\"dur\": @D, \"ts\": @T, \"args\": {\"correlation\": @C, \"External id\": @E}}",
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
		"\"tss\": 99, \"ts\": @T, \"dur\": @D, \"args\": {\"External idx\": 5, "
		"\"External id\": @E, \"correlatio\\u006e\": 77, \"correlation\": @C}}",
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
		"\"a key longer than any segment the memo keeps, by far\": [1, {\"ts\": 3}], "
		"\"ts\": @T, \"dur\": @D, \"args\": {\"another argument key longer than a "
		"segment\": "
		"\"x\", \"External id\": @E, \"correlation\": @C}}",
	};
	enum { N = 600 };
	static int64_t want_ts[N], want_dur[N], want_ext[N], want_corr[N];
	struct gp_buf b = GP_BUF_INIT;
	struct gp_trace *t, *tw, *tg;
	size_t i;

	(void)state;
	assert_int_equal(gp__buf_addstr(&b, "{\"traceEvents\": [\n"), 0);
	for (i = 0; i < N; i++) {
		int ts = 1000 + 3 * (int)i, dur = 1 + (int)(i % 7), ext = 10 + (int)i,
		    corr = 5000 + (int)i;

		if (i)
			assert_int_equal(gp__buf_addstr(&b, ",\n  "), 0);
		if (i >= 300 && i < 560) {
			/* a new key every time: more segments than the memo holds */
			assert_int_equal(
			    gp__buf_addf(&b,
			                 "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
			                 "\"op\", \"k%zu\": 1, \"ts\": %d, \"dur\": %d, "
			                 "\"args\": {\"a%zu\": 2, \"External id\": %d, "
			                 "\"correlation\": %d}}",
			                 i, ts, dur, i, ext, corr),
			    0);
		} else {
			const char *l = layouts[(i / 3) % GP_ARRAY_SIZE(layouts)];

			for (; *l; l++) {
				int v;

				if (*l != '@') {
					assert_int_equal(gp__buf_addch(&b, *l), 0);
					continue;
				}
				l++;
				v = *l == 'T' ? ts : *l == 'D' ? dur : *l == 'E' ? ext : corr;
				assert_int_equal(gp__buf_addf(&b, "%d", v), 0);
			}
		}
		want_ts[i] = (int64_t)ts * 1000;
		want_dur[i] = (int64_t)dur * 1000;
		want_ext[i] = ext;
		want_corr[i] = corr;
	}
	assert_int_equal(gp__buf_addstr(&b, "\n]}\n"), 0);

	assert_int_equal(open_mem(b.buf, b.len, false, &t), 0);
	gp__kineto_test_window = 61;
	assert_int_equal(open_mem(b.buf, b.len, false, &tw), 0);
	gp__kineto_test_window = 0;
	/* and the same without the memo, column by column */
	gp__kineto_no_memo = true;
	assert_int_equal(open_mem(b.buf, b.len, false, &tg), 0);
	gp__kineto_no_memo = false;
	assert_int_equal(tg->ev.n, N);
	assert_int_equal(tg->strs.n, t->strs.n);
	assert_int_equal(tg->ntracks, t->ntracks);
	for (i = 0; i < N; i++)
		assert_true(tg->ev.ts[i] == t->ev.ts[i] && tg->ev.dur[i] == t->ev.dur[i] &&
		            tg->ev.ext[i] == t->ev.ext[i] && tg->ev.corr[i] == t->ev.corr[i] &&
		            tg->ev.name[i] == t->ev.name[i] && tg->ev.track[i] == t->ev.track[i] &&
		            tg->ev.kind[i] == t->ev.kind[i] && tg->ev.flags[i] == t->ev.flags[i]);
	gp_trace_free(tg);
	assert_int_equal(t->ev.n, N);
	assert_int_equal(tw->ev.n, N);
	for (i = 0; i < N; i++) {
		if (t->ev.ts[i] != want_ts[i] || t->ev.dur[i] != want_dur[i] ||
		    t->ev.ext[i] != want_ext[i] || t->ev.corr[i] != want_corr[i])
			fail_msg("event %zu: ts %lld dur %lld ext %lld corr %lld", i,
			         (long long)t->ev.ts[i], (long long)t->ev.dur[i],
			         (long long)t->ev.ext[i], (long long)t->ev.corr[i]);
		assert_true(tw->ev.ts[i] == want_ts[i] && tw->ev.dur[i] == want_dur[i] &&
		            tw->ev.ext[i] == want_ext[i] && tw->ev.corr[i] == want_corr[i]);
		assert_string_equal(gp__ev_name(t, i), "op");
	}
	gp_trace_free(t);
	gp_trace_free(tw);
	gp__buf_release(&b);

	/* errors just after a segment the memo knows: the offset is the bad value's */
	{
		static const struct {
			const char *ts, *ext, *msg;
			size_t into; /* the reported byte, from the bad value's start */
		} cases[] = {
			{ "\"12\"", "1", "\"ts\" is not a number", 0 },
			{ "5", "tru", "invalid literal", 0 },
			{ "5", "-", "invalid number", 1 },
			{ "5", "1 2", "expected ',' or '}' in object", 2 },
		};
		static const char ev[] = "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", "
		                         "\"ts\": %s, \"dur\": 1, \"args\": {\"External id\": %s}}";
		size_t c, k;

		for (c = 0; c < GP_ARRAY_SIZE(cases); c++) {
			char want[64];
			size_t at;
			int rc;

			b = (struct gp_buf)GP_BUF_INIT;
			assert_int_equal(gp__buf_addstr(&b, "{\"traceEvents\": ["), 0);
			for (k = 0; k < 3; k++) {
				assert_int_equal(gp__buf_addf(&b, ev, "5", "1"), 0);
				assert_int_equal(gp__buf_addstr(&b, ", "), 0);
			}
			at = b.len;
			assert_int_equal(gp__buf_addf(&b, ev, cases[c].ts, cases[c].ext), 0);
			/* the bad value: the ts value, else the External id value */
			if (strcmp(cases[c].ts, "5") != 0)
				at = (size_t)(strstr(b.buf + at, cases[c].ts) - b.buf);
			else
				at = (size_t)(strstr(b.buf + at, "id\": ") - b.buf) + 5;
			at += cases[c].into;
			assert_int_equal(gp__buf_addstr(&b, "]}"), 0);
			snprintf(want, sizeof(want), "byte %zu: %s", at, cases[c].msg);
			rc = open_mem(b.buf, b.len, false, &t);
			if (rc != GP_EFORMAT || !strstr(gp_last_error(), want))
				fail_msg("case %zu: rc %d \"%s\", want \"%s\"", c, rc,
				         gp_last_error(), want);
			assert_null(t);
			gp__buf_release(&b);
		}
	}
}

static void test_windows(void **state)
{
	static const char *files[] = { "modern.json",     "legacy2021.json", "bare.json",
		                       "base_after.json", "modern.json.gz",  "multi.json.gz" };
	static const size_t wins[] = { 1, 2, 3, 5, 8, 13, 64, 100, 333, 1000, 4096 };
	size_t f, w, i;

	(void)state;
	for (f = 0; f < GP_ARRAY_SIZE(files); f++) {
		struct gp_trace *ref, *t;
		char *p, *mj, *rj;
		size_t n;

		p = slurp(files[f], &n);
		assert_int_equal(open_mem(p, n, false, &ref), 0);
		assert_int_equal(gp_value_to_json(ref->meta, 0, &rj, NULL), 0);
		for (w = 0; w < GP_ARRAY_SIZE(wins); w++) {
			gp__kineto_test_window = wins[w];
			i = (size_t)open_mem(p, n, false, &t);
			gp__kineto_test_window = 0;
			if (i)
				fail_msg("%s window %zu: %s", files[f], wins[w], gp_last_error());
			assert_int_equal(t->events_read, ref->events_read);
			assert_int_equal(t->ev.n, ref->ev.n);
			assert_int_equal(t->nmem, ref->nmem);
			assert_int_equal(t->npy, ref->npy);
			assert_int_equal(t->ntracks, ref->ntracks);
			assert_int_equal(t->ncats, ref->ncats);
			assert_int_equal(t->bytes_read, ref->bytes_read);
			for (i = 0; i < t->ev.n; i++) {
				assert_int_equal(t->ev.ts[i], ref->ev.ts[i]);
				assert_int_equal(t->ev.dur[i], ref->ev.dur[i]);
				assert_int_equal(t->ev.corr[i], ref->ev.corr[i]);
				assert_string_equal(gp__ev_name(t, i), gp__ev_name(ref, i));
			}
			assert_int_equal(gp_value_to_json(t->meta, 0, &mj, NULL), 0);
			assert_string_equal(mj, rj);
			gp_free(mj);
			gp_trace_free(t);
		}
		gp_free(rj);
		gp_trace_free(ref);
		free(p);
	}
}

/*
 * Numbers around the reader's fast paths (single-pass integer, timestamp and
 * decimal conversion) give exactly what the general path gives: the
 * timestamp parser, strtod and the integer parser, in place and through tiny
 * windows (where the fast paths mostly give way to the general one).
 */
static void test_fast_numbers(void **state)
{
	static const char *ts[] = { "0",
		                    "7",
		                    "25286",
		                    "1428625732359.255",
		                    "1428625732359.2555",
		                    "1428625732359.2554999",
		                    "1712195495505582.988",
		                    "1712195495505582.9995",
		                    "9223372036854774",
		                    "9223372036854775.807",
		                    "12345678.9",
		                    "0.0005",
		                    "0.0004999",
		                    "1.5e3",
		                    "1234567890123456.5" };
	static const char *dbl[] = {
		"4.242424",           "135.515152",         "0.1", "9007199254740993", "19", "1e2",
		"123456789.12345678", "0.30000000000000004"
	};
	static const char *ints[] = {
		"0",   "5", "25286", "12345678", "123456789012345678", "1234567890123456789",
		"7.0", "-3"
	};
	static const size_t wins[] = { 0, 1, 7, 64 };
	char doc[1024];
	size_t i, j, w;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(ts); i++) {
		for (j = 0; j < GP_ARRAY_SIZE(dbl) + GP_ARRAY_SIZE(ints); j++) {
			const char *d = dbl[j % GP_ARRAY_SIZE(dbl)];
			const char *n = ints[j % GP_ARRAY_SIZE(ints)];
			int64_t want_ts, want_n;
			double want_d = strtod(d, NULL);
			bool flt;
			int len;

			bool in_range, dur_too;

			assert_int_equal(gp__ts_parse(ts[i], strlen(ts[i]), &want_ts, &flt), 0);
			if (gp__int_parse(n, strlen(n), &want_n))
				want_n = (int64_t)strtod(n, NULL);
			/*
			 * The model keeps ts and ts + dur within +-2^62 ns: a timestamp
			 * beyond is parsed exactly and then refused; dur repeats ts only
			 * while the sum stays inside.
			 */
			in_range = want_ts >= -GP_TIME_LIMIT && want_ts <= GP_TIME_LIMIT;
			dur_too = want_ts >= 0 && want_ts <= GP_TIME_LIMIT / 2;
			len = snprintf(doc, sizeof(doc),
			               "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
			               "\"name\":\"k\",\"pid\":%s,\"tid\":%s,\"ts\":%s,\"dur\":%s,"
			               "\"args\":{\"blocks per SM\":%s,\"correlation\":%s,"
			               "\"grid\":[%s,1,1],\"queued\":%s}}]}",
			               n, n, ts[i], dur_too ? ts[i] : "0", d, n, n, n);
			assert_true(len > 0 && (size_t)len < sizeof(doc));
			for (w = 0; w < GP_ARRAY_SIZE(wins); w++) {
				struct gp_trace *t;
				const struct gp_gpu_info *gi;
				int rc;

				gp__kineto_test_window = wins[w];
				rc = open_mem(doc, (size_t)len, false, &t);
				gp__kineto_test_window = 0;
				if (!in_range) {
					assert_int_equal(rc, GP_EFORMAT);
					assert_non_null(strstr(gp_last_error(), "out of range"));
					continue;
				}
				if (rc)
					fail_msg("%s: %s", doc, gp_last_error());
				assert_int_equal(t->ev.n, 1);
				assert_int_equal(t->ev.ts[0], want_ts);
				assert_int_equal(t->ev.dur[0], dur_too ? want_ts : 0);
				assert_int_equal(t->ts_float, flt);
				assert_int_equal(t->ev.corr[0], want_n);
				assert_int_equal(track(t, 0)->pid, want_n);
				gi = &t->gpu[t->ev.aux[0]];
				assert_true(gi->blocks_per_sm == want_d);
				assert_int_equal(gi->grid[0],
				                 want_n >= INT32_MIN && want_n <= INT32_MAX ? want_n
				                                                            : -1);
				gp_trace_free(t);
			}
		}
	}
}

/* ---- long strings ---- */

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	static uint32_t tab[256];
	uint32_t c = 0xffffffffu;
	size_t i;

	if (!tab[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t x = (uint32_t)i;

			for (int k = 0; k < 8; k++)
				x = x & 1 ? 0xedb88320u ^ (x >> 1) : x >> 1;
			tab[i] = x;
		}
	}
	for (i = 0; i < n; i++)
		c = tab[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static void put_le(struct gp_buf *b, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		assert_int_equal(gp__buf_addch(b, (char)(v >> (8 * i))), 0);
}

/* One gzip member of @p p[0..n) in stored (uncompressed) deflate blocks of @p block bytes. */
static void gz_member(struct gp_buf *b, const char *p, size_t n, size_t block)
{
	static const char hdr[10] = { 0x1f, (char)0x8b, 8, 0, 0, 0, 0, 0, 0, (char)0xff };
	size_t off = 0;

	assert_int_equal(gp__buf_add(b, hdr, sizeof(hdr)), 0);
	do {
		size_t k = n - off < block ? n - off : block;

		put_le(b, off + k == n ? 1 : 0, 1); /* BFINAL, BTYPE 00 (stored) */
		put_le(b, (uint32_t)k, 2);
		put_le(b, (uint32_t)k ^ 0xffffu, 2);
		assert_int_equal(gp__buf_add(b, p + off, k), 0);
		off += k;
	} while (off < n);
	put_le(b, crc32_of((const unsigned char *)p, n), 4);
	put_le(b, (uint32_t)n, 4);
}

/*
 * gzip of @p p[0..n) in stored blocks of @p block bytes, with a new member
 * at each of @p cuts (ascending; one not past the previous is ignored), so
 * that blocks, members and the reader's chunks end where the caller wants
 * them: inside a character, an escape, a key.
 */
static void gz_stored(struct gp_buf *b, const char *p, size_t n, size_t block, const size_t *cuts,
                      size_t ncuts)
{
	size_t from = 0, i;

	for (i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts && cuts[i] < n ? cuts[i] : n;

		if (to <= from && i < ncuts)
			continue;
		gz_member(b, p + from, to - from, block);
		from = to;
	}
}

/* Writes @p b to a new temporary file named into @p path (room for 64 bytes). */
static void tmp_file(const struct gp_buf *b, char *path)
{
	int fd;

	snprintf(path, 64, "/tmp/gp-test-kineto.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->buf, b->len), (ssize_t)b->len);
	close(fd);
}

/* A piece of a long string: its JSON text and the bytes it decodes to. */
struct piece {
	const char *json, *text;
};

static const struct piece pieces[] = {
	{ "\xc3\xa9", "\xc3\xa9" },
	{ "\\u00e9", "\xc3\xa9" },
	{ "\xe2\x82\xac", "\xe2\x82\xac" },
	{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
	{ "\\ud83d\\ude00", "\xf0\x9f\x98\x80" },
	{ "a", "a" },
	{ "\\n", "\n" },
};

/* @p n pieces, piece i = pieces[(first + i * step) % 7]: JSON text (quoted) and bytes */
static void long_string(size_t n, size_t first, size_t step, struct gp_buf *json,
                        struct gp_buf *text)
{
	assert_int_equal(gp__buf_addch(json, '"'), 0);
	for (size_t i = 0; i < n; i++) {
		const struct piece *pc = &pieces[(first + i * step) % GP_ARRAY_SIZE(pieces)];

		assert_int_equal(gp__buf_addstr(json, pc->json), 0);
		assert_int_equal(gp__buf_addstr(text, pc->text), 0);
	}
	assert_int_equal(gp__buf_addch(json, '"'), 0);
}

/*
 * A trace with the long string @p s (JSON text) as an event name and, when
 * @p all, also as a top-level member, a skipped argument, a skipped key and
 * a thread name. @p pad spaces go first, so that over pads 0..3 every
 * boundary falls at each byte of a character in turn.
 */
static void long_doc(struct gp_buf *d, const struct gp_buf *s, bool all, size_t pad)
{
	const char *o = all ? s->buf : "\"x\"";
	size_t on = all ? s->len : 3;

	for (size_t i = 0; i < pad; i++)
		assert_int_equal(gp__buf_addch(d, ' '), 0);
	assert_int_equal(gp__buf_addstr(d, "{\"meta\": "), 0);
	assert_int_equal(gp__buf_add(d, o, on), 0);
	assert_int_equal(gp__buf_addstr(d, ", \"traceEvents\": [\n {\"ph\": \"X\", \"cat\": "
	                                   "\"kernel\", \"name\": "),
	                 0);
	assert_int_equal(gp__buf_add(d, s->buf, s->len), 0);
	assert_int_equal(gp__buf_addstr(d, ", \"pid\": 1, \"tid\": 7, \"ts\": 1, \"dur\": 2, "
	                                   "\"args\": {\"Call stack\": "),
	                 0);
	assert_int_equal(gp__buf_add(d, o, on), 0);
	assert_int_equal(gp__buf_addstr(d, ", "), 0);
	assert_int_equal(gp__buf_add(d, o, on), 0);
	assert_int_equal(gp__buf_addstr(d,
	                                ": [1, \"2\"], \"device\": 0, \"correlation\": 5}},\n"
	                                " {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, "
	                                "\"tid\": 1, \"args\": {\"name\": "),
	                 0);
	assert_int_equal(gp__buf_add(d, o, on), 0);
	assert_int_equal(
	    gp__buf_addstr(d, "}},\n {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
	                      "\"k2\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 4}\n]}"),
	    0);
}

/* The trace holds the decoded @p text where long_doc() put the string. */
static void check_long(const char *how, const struct gp_trace *t, const struct gp_buf *text,
                       bool all)
{
	const char *x = all ? text->buf : "x", *meta;
	size_t xn = all ? text->len : 1, i;
	const struct gp_track *tr = NULL;

	if (t->ev.n != 2 || t->events_read != 3)
		fail_msg("%s: %zu events of %zu", how, (size_t)t->ev.n, (size_t)t->events_read);
	if (gp__strtab_strlen(&t->strs, t->ev.name[0]) != text->len ||
	    memcmp(gp__ev_name(t, 0), text->buf, text->len) != 0)
		fail_msg("%s: the name differs", how);
	assert_string_equal(gp__ev_name(t, 1), "k2");
	assert_int_equal(t->ev.corr[0], 5);
	assert_int_equal(t->ev.ts[1], 3000);
	meta = gp_value_get_str(gp_obj_get(t->meta, "meta"));
	assert_non_null(meta);
	assert_int_equal(strlen(meta), xn);
	assert_memory_equal(meta, x, xn);
	for (i = 0; i < t->ntracks; i++)
		if (t->tracks[i].pid == 1 && t->tracks[i].tid == 1)
			tr = &t->tracks[i];
	assert_non_null(tr);
	assert_int_equal(gp__strtab_strlen(&t->strs, tr->name), xn);
	assert_memory_equal(gp__strtab_get(&t->strs, tr->name), x, xn);
}

/* @p d read in place, through small windows, as gzip cut at @p cuts from memory and a file */
static void read_all_ways(const struct gp_buf *d, const struct gp_buf *text, bool all,
                          const size_t *cuts, size_t ncuts)
{
	static const size_t wins[] = { 1000, 65536 };
	struct gp_buf gz = GP_BUF_INIT;
	struct gp_trace *t;
	char path[64], how[64];
	size_t w;

	assert_int_equal(open_mem(d->buf, d->len, false, &t), 0);
	check_long("in place", t, text, all);
	gp_trace_free(t);
	for (w = 0; w < GP_ARRAY_SIZE(wins); w++) {
		gp__kineto_test_window = wins[w];
		if (open_mem(d->buf, d->len, false, &t))
			fail_msg("window %zu: %s", wins[w], gp_last_error());
		gp__kineto_test_window = 0;
		snprintf(how, sizeof(how), "window %zu", wins[w]);
		check_long(how, t, text, all);
		gp_trace_free(t);
	}
	/* blocks of an odd size, so that they end inside characters too */
	gz_stored(&gz, d->buf, d->len, 65521, cuts, ncuts);
	if (open_mem(gz.buf, gz.len, false, &t))
		fail_msg("gzip: %s", gp_last_error());
	check_long("gzip", t, text, all);
	gp_trace_free(t);
	tmp_file(&gz, path);
	if (gp_trace_open(path, NULL, &t))
		fail_msg("gzip file: %s", gp_last_error());
	check_long("gzip file", t, text, all);
	gp_trace_free(t);
	unlink(path);
	gp__buf_release(&gz);
}

/*
 * Long strings of one repeated non-ASCII character or escape, and mixed
 * ones, longer than a refill (256 KiB): everything reads the same however
 * the input is cut. The first case is longer than the initial 8 MiB window.
 */
static void test_long_strings(void **state)
{
	static const struct {
		size_t n, first, step;
		bool all;
	} cases[] = {
		{ 4500000, 0, 0, false }, /* é, 9 MB: the window grows past 8 MiB */
		{ 300000, 0, 0, true },   /* é */
		{ 100000, 1, 0, true },   /* \u00e9 */
		{ 60000, 4, 0, true },    /* \ud83d\ude00 */
		{ 200000, 0, 3, true },   /* mixed */
	};
	size_t c, pad;

	(void)state;
	for (c = 0; c < GP_ARRAY_SIZE(cases); c++) {
		struct gp_buf s = GP_BUF_INIT, text = GP_BUF_INIT;

		long_string(cases[c].n, cases[c].first, cases[c].step, &s, &text);
		for (pad = 0; pad < (c ? 4 : 1); pad++) {
			struct gp_buf d = GP_BUF_INIT;
			size_t cuts[6];
			const char *name;

			long_doc(&d, &s, cases[c].all, pad);
			name = strstr(d.buf, "\"name\": \"") + 9;
			/*
			 * New gzip members inside the name (mid-character for
			 * pads 1-3), at the reads' 256 KiB and just after.
			 */
			cuts[0] = (size_t)(name - d.buf) + 1;
			cuts[1] = cuts[0] + 4099;
			cuts[2] = (256u << 10) - 1;
			cuts[3] = (256u << 10) + 1;
			cuts[4] = d.len / 2 + pad;
			cuts[5] = d.len - 3;
			for (size_t i = 1; i < GP_ARRAY_SIZE(cuts); i++)
				for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
					size_t x = cuts[j];

					cuts[j] = cuts[j - 1];
					cuts[j - 1] = x;
				}
			read_all_ways(&d, &text, cases[c].all, cuts, GP_ARRAY_SIZE(cuts));
			gp__buf_release(&d);
		}
		gp__buf_release(&s);
		gp__buf_release(&text);
	}
}

/*
 * A bad byte or the end of the input deep in a long string: the same error
 * at the same offset in place, through a small window and through gzip.
 */
static void test_long_string_errors(void **state)
{
	struct gp_buf s = GP_BUF_INIT, text = GP_BUF_INIT, d = GP_BUF_INIT, gz = GP_BUF_INIT;
	struct gp_trace *t = NULL;
	char want[128], *bad;
	size_t at;

	(void)state;
	long_string(400000, 0, 3, &s, &text);
	long_doc(&d, &s, true, 1);
	/* a bad byte for the closing quote of the event name */
	bad = strstr(d.buf, "\"name\": \"") + 9 + s.len - 2;
	*bad = '\xff';
	at = (size_t)(bad - d.buf);
	snprintf(want, sizeof(want), "mem: byte %zu", at);
	assert_int_equal(open_mem(d.buf, d.len, false, &t), GP_EFORMAT);
	if (!strstr(gp_last_error(), want) || !strstr(gp_last_error(), "invalid UTF-8 in string"))
		fail_msg("%s; want %s", gp_last_error(), want);
	gp__kineto_test_window = 4096;
	assert_int_equal(open_mem(d.buf, d.len, false, &t), GP_EFORMAT);
	gp__kineto_test_window = 0;
	assert_non_null(strstr(gp_last_error(), want));
	gz_stored(&gz, d.buf, d.len, 65535, &at, 1);
	assert_int_equal(open_mem(gz.buf, gz.len, false, &t), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), want));
	assert_non_null(strstr(gp_last_error(), "(uncompressed): invalid UTF-8 in string"));
	assert_null(t);
	/* the input ends inside the long string */
	gp__buf_reset(&gz);
	d.len = at;
	snprintf(want, sizeof(want), "mem: byte %zu", at);
	assert_int_equal(open_mem(d.buf, d.len, false, &t), GP_ETRUNC);
	assert_non_null(strstr(gp_last_error(), want));
	gz_stored(&gz, d.buf, d.len, 65535, NULL, 0);
	assert_int_equal(open_mem(gz.buf, gz.len, false, &t), GP_ETRUNC);
	assert_non_null(strstr(gp_last_error(), want));
	assert_non_null(strstr(gp_last_error(), "unexpected end of input"));
	assert_null(t);
	gp__buf_release(&s);
	gp__buf_release(&text);
	gp__buf_release(&d);
	gp__buf_release(&gz);
}

static void torture(const char *name, const char *mem, size_t n, size_t win, bool salvage)
{
	long k;

	for (k = 1; k < 100000; k++) {
		struct gp_trace *t = (struct gp_trace *)1;
		int rc;

		gp__kineto_test_window = win;
		gp__test_fail_alloc_after(k);
		if (mem)
			rc = open_mem(mem, n, salvage, &t);
		else
			rc = gp_trace_open(data_path(name), NULL, &t);
		gp__test_fail_alloc_after(0);
		gp__kineto_test_window = 0;
		if (rc == 0) {
			assert_non_null(t);
			gp_trace_free(t);
			break;
		}
		assert_int_equal(rc, GP_ENOMEM);
		assert_null(t);
	}
	assert_true(k > 10);
}

static void test_alloc_torture(void **state)
{
	char *p;
	size_t n;

	(void)state;
	torture("modern.json", NULL, 0, 0, false);
	p = slurp("modern.json.gz", &n);
	torture(NULL, p, n, 0, false);
	torture(NULL, p, n, 16, false);
	free(p);
	p = slurp("truncated.json", &n);
	torture(NULL, p, n, 32, true);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modern),       cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_legacy),       cmocka_unit_test(test_bare),
		cmocka_unit_test(test_base_after),   cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_errors),       cmocka_unit_test(test_depth_bomb),
		cmocka_unit_test(test_windows),      cmocka_unit_test(test_alloc_torture),
		cmocka_unit_test(test_fast_numbers), cmocka_unit_test(test_key_memo),
		cmocka_unit_test(test_long_strings), cmocka_unit_test(test_long_string_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
