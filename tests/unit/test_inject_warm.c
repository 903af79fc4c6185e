/* SPDX-License-Identifier: MIT */
/*
 * test_inject_warm.c - the decoder's warm-up filter (src/inject/warm.c over
 * window.c and core.c), driven without CUDA: the process's window gets the
 * schedule warmup=1,active=1 and eight iterations of 9 ms, 10 ms apart, so
 * the warm-ups are [10, 19), [29, 39), [49, 59), [69, 79) and from 89 ms on;
 * then the tests decode API and GPU records in the orders CUPTI may hand them
 * over and read back from core.c's queue which GPU records were written. The
 * tests share the filter's state, so each uses its own correlation ids.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

#define MS 1000000ll

/* What the queue held: the kernels' correlation ids, in order, and the warnings' texts. */
static struct {
	uint32_t corr[1 << 19];
	size_t n;
	char warn[512];
} g_got;

static void take(void)
{
	unsigned char *q;
	size_t len = gp__inj_queue_take(&q), off = 0;

	g_got.n = 0;
	g_got.warn[0] = 0;
	while (off + sizeof(struct gp_cap_rec_header) <= len) {
		struct gp_cap_rec_header h;

		memcpy(&h, q + off, sizeof(h));
		off += sizeof(h);
		if (h.type == GP_CAP_KERNEL &&
		    g_got.n < sizeof(g_got.corr) / sizeof(g_got.corr[0])) {
			struct gp_cap_kernel k;

			memcpy(&k, q + off, sizeof(k));
			g_got.corr[g_got.n++] = k.correlation;
		} else if (h.type == GP_CAP_WARN) {
			size_t n = h.size - sizeof(struct gp_cap_warn);

			if (n >= sizeof(g_got.warn))
				n = sizeof(g_got.warn) - 1;
			memcpy(g_got.warn, q + off + sizeof(struct gp_cap_warn), n);
			g_got.warn[n] = 0;
		}
		off += (h.size + 7u) & ~7u;
	}
	gp__inj_free(q);
}

/* The kernels written since the last take(), as "c1 c2 ...". */
static const char *kernels(void)
{
	static char buf[256];
	size_t n = 0;

	take();
	buf[0] = 0;
	for (size_t i = 0; i < g_got.n && n < sizeof(buf) - 12; i++)
		n +=
		    (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u", i ? " " : "", g_got.corr[i]);
	return buf;
}

static void kernel(uint32_t corr, int64_t start)
{
	struct gp_cap_kernel k;

	memset(&k, 0, sizeof(k));
	k.start = start;
	k.end = start + 1000;
	k.correlation = corr;
	gp__inj_warm_gpu(GP_CAP_KERNEL, k.start, corr, &k, sizeof(k));
}

static void step(enum gp__inj_win_ev ev, unsigned which, int64_t now)
{
	struct gp__inj_win_out out;
	struct gp__inj_win *w = gp__inj_win_lock();

	gp__inj_win_step(w, ev, which, now, &out); /* the actions (attach, ...) are not ours */
	gp__inj_win_unlock(w);
}

static int group_setup(void **state)
{
	(void)state;
	unsetenv("GPUPROF_CAPTURE_DELAY_NS");
	unsetenv("GPUPROF_CAPTURE_DURATION_NS");
	unsetenv("GPUPROF_CAPTURE_RANGE");
	setenv("GPUPROF_CAPTURE_SCHEDULE", "warmup=1,active=1", 1);
	setenv("GPUPROF_CAPTURE_ITER_RANGE", "step", 1);
	gp__inj_core_open((size_t)1 << 30, false);
	step(GP_INJ_WIN_INIT, 0, 1 * MS);
	for (int i = 0; i < 8; i++) {
		step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, (i + 1) * 10 * MS);
		step(GP_INJ_WIN_END, GP_WIN_M_ITER, (i + 1) * 10 * MS + 9 * MS);
	}
	take();
	return 0;
}

static void test_segments(void **state)
{
	(void)state;
	assert_int_equal(gp__inj_win_segment(9 * MS), 0);
	assert_int_equal(gp__inj_win_segment(10 * MS), 1);
	assert_int_equal(gp__inj_win_segment(19 * MS - 1), 1);
	assert_int_equal(gp__inj_win_segment(19 * MS), 2);
	assert_int_equal(gp__inj_win_segment(35 * MS), 3);
	assert_int_equal(gp__inj_win_segment(45 * MS), 4);
	assert_int_equal(gp__inj_win_segment(79 * MS), 8);
}

/* before the first warm-up began, nothing can be a warm-up's: written at once */
static void test_before_warmups(void **state)
{
	(void)state;
	kernel(900, 5 * MS);
	assert_string_equal(kernels(), "900");
}

/* the H200's order: a drain's kernels before the calls that launched them */
static void test_device_first(void **state)
{
	(void)state;
	/* calls 1, 2 in warm-up 0, 3, 4 in the active iteration after it, 5, 6 in warm-up 1, ... */
	for (uint32_t c = 1; c <= 8; c++)
		kernel(c, ((c + 1) / 2) * 10 * MS + 8 * MS); /* each runs late in its iteration */
	gp__inj_warm_settle(false);
	assert_string_equal(kernels(), ""); /* no call decoded: all held */
	for (uint32_t c = 1; c <= 8; c++) {
		bool keep = gp__inj_warm_api(((c + 1) / 2) * 10 * MS + 100000 * (int64_t)c, c);

		assert_int_equal(keep, ((c + 1) / 2) % 2 == 0);
	}
	gp__inj_warm_settle(false);
	assert_string_equal(kernels(), "3 4 7 8");
	/* a kernel decoded after its call is judged at once */
	kernel(5, 38 * MS);
	kernel(8, 48 * MS);
	assert_string_equal(kernels(), "8");
}

/*
 * Two threads: A's calls 9, 11 (warm-up 2), 12, 14 (the active iteration
 * after it) decoded, B's 10 and 13 not yet: their kernels lie between A's
 * calls of one segment, so they are judged without B's records.
 */
static void test_other_thread(void **state)
{
	(void)state;
	for (uint32_t c = 9; c <= 14; c++)
		kernel(c, (c <= 11 ? 58 : 68) * MS);
	assert_true(gp__inj_warm_api(50 * MS, 9) == false);
	assert_true(gp__inj_warm_api(50 * MS + 200, 11) == false);
	assert_true(gp__inj_warm_api(60 * MS, 12));
	assert_true(gp__inj_warm_api(60 * MS + 200, 14));
	gp__inj_warm_settle(false);
	assert_string_equal(kernels(), "12 13 14");
	/* B's calls come last: nothing left to write */
	assert_true(gp__inj_warm_api(50 * MS + 100, 10) == false);
	assert_true(gp__inj_warm_api(60 * MS + 100, 13));
	gp__inj_warm_settle(false);
	assert_string_equal(kernels(), "");
}

/* a call CUPTI never reports: held until the end, then kept; no id: judged by its time */
static void test_last(void **state)
{
	(void)state;
	kernel(20, 75 * MS);
	kernel(0, 72 * MS); /* in warm-up 3 */
	kernel(0, 85 * MS);
	assert_string_equal(kernels(), "0");
	gp__inj_warm_settle(false);
	assert_string_equal(kernels(), "");
	gp__inj_warm_settle(true);
	assert_string_equal(kernels(), "20");
}

/* past the bound a record is kept at once without its call, and a warning says how many */
static void test_bound(void **state)
{
	const uint32_t n = (1u << 18) + 5;

	(void)state;
	for (uint32_t c = 0; c < n; c++)
		kernel(1000 + c, 85 * MS);
	take();
	assert_int_equal(g_got.n, 5);
	assert_int_equal(g_got.corr[0], 1000 + (1u << 18));
	gp__inj_warm_settle(false);
	take();
	assert_int_equal(g_got.n, 0);
	assert_non_null(strstr(g_got.warn, "5 GPU records came too long before"));
	/* their calls, after warm-up 3: all of them are written */
	assert_true(gp__inj_warm_api(80 * MS, 1000));
	assert_true(gp__inj_warm_api(88 * MS, 1000 + n));
	gp__inj_warm_settle(false);
	take();
	assert_int_equal(g_got.n, 1u << 18);
	assert_int_equal(g_got.corr[0], 1000);
	gp__inj_warm_settle(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments),     cmocka_unit_test(test_before_warmups),
		cmocka_unit_test(test_device_first), cmocka_unit_test(test_other_thread),
		cmocka_unit_test(test_last),         cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
