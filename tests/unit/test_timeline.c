/* SPDX-License-Identifier: MIT */
/*
 * test_timeline.c - the "timeline" section on small synthetic traces with
 * hand-computed answers (all times in ns).
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "analyze/analyze-int.h"

#define MAXB 200

/* checks the busy_ns list at @p path ("timeline/streams/0") against want[0..nbins) */
static void check_bins(const struct gp_value *r, const char *path, const int64_t *want,
                       size_t nbins)
{
	char p[128];
	int64_t sum = 0;
	size_t k;

	snprintf(p, sizeof(p), "%s/busy_ns", path);
	assert_int_equal(gp_value_len(gp_value_path(r, p)), nbins);
	for (k = 0; k < nbins; k++) {
		snprintf(p, sizeof(p), "%s/busy_ns/%zu", path, k);
		if (tu_geti(r, p) != want[k])
			fail_msg("%s: %lld, want %lld", p, (long long)tu_geti(r, p),
			         (long long)want[k]);
		sum += want[k];
	}
	snprintf(p, sizeof(p), "%s/total_busy_ns", path);
	assert_int_equal(tu_geti(r, p), sum);
}

/*
 * Window [1000, 3005): span 2005, 200 bins of ceil(2005 / 200) = 11 ns;
 * bin k covers [1000 + 11k, 1011 + 11k).
 * device 0 stream 7: A [1000,1030), B [1025,1040) overlapping A -> [1000,1040)
 * device 0 stream 8: C [1035,1050)
 * device 1 stream 3: D [2990,3005)
 * a CPU op [1500,1600) inside the window
 */
static struct gp_trace *scenario(void)
{
	struct gp_trace *t = tu_trace_new();

	tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 1500, 100);
	tu_kernel(t, "A", 0, 7, 1000, 30, 1);
	tu_kernel(t, "B", 0, 7, 1025, 15, 2);
	tu_kernel(t, "C", 0, 8, 1035, 15, 3);
	tu_kernel(t, "D", 1, 3, 2990, 15, 4);
	return t;
}

static void check_scenario(const struct gp_value *r)
{
	int64_t want[MAXB];

	assert_int_equal(tu_geti(r, "timeline/start_ns"), 1000);
	assert_int_equal(tu_geti(r, "timeline/end_ns"), 3005);
	assert_int_equal(tu_geti(r, "timeline/bin_ns"), 11);
	assert_int_equal(tu_geti(r, "timeline/bins"), 200);
	assert_int_equal(tu_geti(r, "timeline/streams_omitted"), 0);

	/* streams, by device then stream */
	assert_int_equal(gp_value_len(gp_value_path(r, "timeline/streams")), 3);
	assert_int_equal(tu_geti(r, "timeline/streams/0/device"), 0);
	assert_int_equal(tu_geti(r, "timeline/streams/0/stream"), 7);
	/* [1000,1040): 11 11 11 7 (A spans three bins, B overlaps A: counted once) */
	memset(want, 0, sizeof(want));
	want[0] = want[1] = want[2] = 11;
	want[3] = 7;
	check_bins(r, "timeline/streams/0", want, 200);
	assert_int_equal(tu_geti(r, "timeline/streams/0/total_busy_ns"), 40);

	assert_int_equal(tu_geti(r, "timeline/streams/1/device"), 0);
	assert_int_equal(tu_geti(r, "timeline/streams/1/stream"), 8);
	/* [1035,1050): bin 3 [1033,1044) 9, bin 4 [1044,1055) 6 */
	memset(want, 0, sizeof(want));
	want[3] = 9;
	want[4] = 6;
	check_bins(r, "timeline/streams/1", want, 200);

	assert_int_equal(tu_geti(r, "timeline/streams/2/device"), 1);
	assert_int_equal(tu_geti(r, "timeline/streams/2/stream"), 3);
	/* [2990,3005): bin 180 [2980,2991) 1, bin 181 11, bin 182 [3002,3013) 3 */
	memset(want, 0, sizeof(want));
	want[180] = 1;
	want[181] = 11;
	want[182] = 3;
	check_bins(r, "timeline/streams/2", want, 200);

	/* device 0: streams 7 and 8 overlap on [1035,1040): union [1000,1050) */
	assert_int_equal(gp_value_len(gp_value_path(r, "timeline/devices")), 2);
	assert_int_equal(tu_geti(r, "timeline/devices/0/device"), 0);
	memset(want, 0, sizeof(want));
	want[0] = want[1] = want[2] = want[3] = 11;
	want[4] = 6;
	check_bins(r, "timeline/devices/0", want, 200);
	assert_int_equal(tu_geti(r, "timeline/devices/0/total_busy_ns"), 50);
	assert_int_equal(tu_geti(r, "timeline/devices/1/device"), 1);
	assert_int_equal(tu_geti(r, "timeline/devices/1/total_busy_ns"), 15);
}

static void test_bins(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r = tu_section(t, false, gp__an_timeline);

	(void)state;
	check_scenario(r);
	gp_value_free(r);
	/* the real device, not HTA's stream-only key */
	r = tu_section(t, true, gp__an_timeline);
	check_scenario(r);
	gp_value_free(r);
	gp_trace_free(t);
}

/* the section is part of the full analysis (sections[] of analyze.c) */
static void test_in_report(void **state)
{
	struct gp_trace *t = scenario();
	struct gp_value *r = tu_analyze(t, GP_COMPAT_NONE);

	(void)state;
	check_scenario(r);
	/* single device 0 rows agree with the gpu section's union where they can */
	assert_int_equal(tu_geti(r, "gpu/streams/0/busy_ns"),
	                 tu_geti(r, "timeline/streams/0/total_busy_ns"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_no_gpu(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 0, 100);
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(gp_value_type(gp_value_path(r, "timeline")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);

	/* GPU events but an empty span: null too */
	t = tu_trace_new();
	tu_kernel(t, "k", 0, 7, 500, 0, 1);
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(gp_value_type(gp_value_path(r, "timeline")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a span under 200 ns: one bin per ns */
static void test_short_span(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int64_t want[MAXB];
	size_t k;

	(void)state;
	tu_kernel(t, "a", 0, 7, 100, 50, 1);
	tu_kernel(t, "b", 0, 9, 120, 10, 2);
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(tu_geti(r, "timeline/bins"), 50);
	assert_int_equal(tu_geti(r, "timeline/bin_ns"), 1);
	for (k = 0; k < 50; k++)
		want[k] = 1;
	check_bins(r, "timeline/streams/0", want, 50);
	check_bins(r, "timeline/devices/0", want, 50);
	memset(want, 0, sizeof(want));
	for (k = 20; k < 30; k++)
		want[k] = 1;
	check_bins(r, "timeline/streams/1", want, 50);
	gp_value_free(r);
	gp_trace_free(t);

	/* a 1 ns span: one bin */
	t = tu_trace_new();
	tu_kernel(t, "a", 0, 7, 5, 1, 1);
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(tu_geti(r, "timeline/bins"), 1);
	assert_int_equal(tu_geti(r, "timeline/bin_ns"), 1);
	assert_int_equal(tu_geti(r, "timeline/streams/0/busy_ns/0"), 1);
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * 71 streams: device 0 streams 100..109 busy [0,100) (a tie), streams
 * 110..169 busy [0, 100 + j) for j = 10..69, and device 1 stream 1 busy
 * [0,100), tied with the first ten. The 60 longer ones are kept, then of the
 * eleven tied the lower device, then the lower stream: 100..103.
 */
static void test_stream_cap(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	char p[64];
	int j;

	(void)state;
	tu_kernel(t, "x", 1, 1, 0, 100, 1000);
	for (j = 0; j < 70; j++)
		tu_kernel(t, "k", 0, 100 + j, 0, j < 10 ? 100 : 100 + j, j);
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(tu_geti(r, "timeline/bins"), 169);
	assert_int_equal(gp_value_len(gp_value_path(r, "timeline/streams")), 64);
	assert_int_equal(tu_geti(r, "timeline/streams_omitted"), 7);
	for (j = 0; j < 64; j++) {
		snprintf(p, sizeof(p), "timeline/streams/%d/device", j);
		assert_int_equal(tu_geti(r, p), 0);
		snprintf(p, sizeof(p), "timeline/streams/%d/stream", j);
		assert_int_equal(tu_geti(r, p), j < 4 ? 100 + j : 106 + j);
	}
	assert_int_equal(tu_geti(r, "timeline/streams/63/total_busy_ns"), 169);
	/* every device is listed */
	assert_int_equal(gp_value_len(gp_value_path(r, "timeline/devices")), 2);
	assert_int_equal(tu_geti(r, "timeline/devices/0/total_busy_ns"), 169);
	assert_int_equal(tu_geti(r, "timeline/devices/1/device"), 1);
	assert_int_equal(tu_geti(r, "timeline/devices/1/total_busy_ns"), 100);
	gp_value_free(r);
	gp_trace_free(t);
}

/* an event with end < start (HTA rounding can make one) is left out */
static void test_negative_duration(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t m;

	(void)state;
	tu_kernel(t, "a", 0, 7, 0, 100, 1);
	m = tu_kernel(t, "neg", 0, 9, 50, 10, 2);
	t->ev.dur[m] = -30;
	m = tu_kernel(t, "neg2", 0, 7, 90, 10, 3);
	t->ev.dur[m] = -80;
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(tu_geti(r, "timeline/start_ns"), 0);
	assert_int_equal(tu_geti(r, "timeline/end_ns"), 100);
	/* stream 9 has only the skipped event: not listed */
	assert_int_equal(gp_value_len(gp_value_path(r, "timeline/streams")), 1);
	assert_int_equal(tu_geti(r, "timeline/streams/0/stream"), 7);
	assert_int_equal(tu_geti(r, "timeline/streams/0/total_busy_ns"), 100);
	assert_int_equal(tu_geti(r, "timeline/devices/0/total_busy_ns"), 100);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a span of almost 2^63 ns: the bin arithmetic must not overflow */
static void test_huge_span(void **state)
{
	const int64_t lim = (INT64_C(1) << 62) - 1;
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int64_t want[MAXB];

	(void)state;
	tu_kernel(t, "first", 0, 7, -lim, 10, 1);
	tu_kernel(t, "last", 0, 7, lim - 10, 10, 2);
	r = tu_section(t, false, gp__an_timeline);
	assert_int_equal(tu_geti(r, "timeline/start_ns"), -lim);
	assert_int_equal(tu_geti(r, "timeline/end_ns"), lim);
	/* ceil((2^63 - 2) / 200) */
	assert_int_equal(tu_geti(r, "timeline/bin_ns"), INT64_C(46116860184273880));
	memset(want, 0, sizeof(want));
	want[0] = 10;
	want[199] = 10;
	check_bins(r, "timeline/streams/0", want, 200);
	check_bins(r, "timeline/devices/0", want, 200);
	gp_value_free(r);
	gp_trace_free(t);
}

/* every allocation failing in turn: GP_ENOMEM, nothing leaked (ASan) */
static void test_alloc_torture(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_analyze_opts o;
	struct gp__actx c;
	struct gp_value *r;
	long k;
	int rc = GP_ENOMEM, j;

	(void)state;
	/*
	 * two devices, six streams, overlaps, 70 events (radix sort
	 * scratch); a short span keeps the rows short, as the loop is quadratic
	 */
	for (j = 0; j < 70; j++)
		tu_kernel(t, "k", j % 2, j % 3, j % 40, 5, j);
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	for (k = 1; rc == GP_ENOMEM; k++) {
		r = gp_value_object();
		assert_non_null(r);
		gp__test_fail_alloc_after(k);
		rc = gp__an_timeline(&c, r);
		gp__test_fail_alloc_after(0);
		if (rc == 0)
			assert_int_equal(tu_geti(r, "timeline/bins"), 44);
		else
			assert_int_equal(rc, GP_ENOMEM);
		gp_value_free(r);
	}
	assert_int_equal(rc, 0);
	assert_true(k > 10);
	gp__actx_release(&c);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bins),       cmocka_unit_test(test_in_report),
		cmocka_unit_test(test_no_gpu),     cmocka_unit_test(test_short_span),
		cmocka_unit_test(test_stream_cap), cmocka_unit_test(test_negative_duration),
		cmocka_unit_test(test_huge_span),  cmocka_unit_test(test_alloc_torture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
