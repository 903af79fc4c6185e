/* SPDX-License-Identifier: MIT */
/*
 * test_inject_window.c - the injected tracer's capture windows
 * (src/inject/window.c) as a state machine, driven without CUDA, threads or
 * a clock: each test sets the options `gpuprof run` would (environment), makes
 * a fresh state, feeds it events at chosen times and checks the actions it
 * returns, in order:
 *   A  attach CUPTI            D / d  detach it, with / without cuptiFinalize
 *   +R / -R  a WINDOW record opening / closing for reason R (1 start, 2
 *            duration, 3 nvtx range, 4 profiler API, 5 schedule, 6 exit),
 *            then recording published; "n" after it: not published (exit)
 *   p+ / p-  recording published without a record
 * t0311 (window_sim) checks the same through the library with a fake CUPTI.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

static const char *const g_vars[] = {
	"GPUPROF_RUN_START_NS",  "GPUPROF_CAPTURE_DELAY_NS", "GPUPROF_CAPTURE_DURATION_NS",
	"GPUPROF_CAPTURE_RANGE", "GPUPROF_CAPTURE_SCHEDULE", "GPUPROF_CAPTURE_ITER_RANGE",
};

static struct gp__inj_win *g_w;
static struct gp__inj_win_out g_out;

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(g_vars) / sizeof(g_vars[0]); i++)
		unsetenv(g_vars[i]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gp__inj_win_free(g_w);
	g_w = NULL;
	return 0;
}

/* The actions of the last step, in the notation above. */
static const char *acts(void)
{
	static char buf[128];
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < g_out.n && n < sizeof(buf) - 16; i++) {
		const struct gp__inj_win_act *a = &g_out.a[i];

		if (i)
			buf[n++] = ' ';
		switch (a->op) {
		case GP_INJ_WIN_ATTACH:
			buf[n++] = 'A';
			break;
		case GP_INJ_WIN_DETACH:
			buf[n++] = a->finalize ? 'D' : 'd';
			break;
		case GP_INJ_WIN_RECORD:
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%c%u%s",
			                      a->w.on ? '+' : '-', a->w.reason,
			                      a->publish ? "" : "n");
			break;
		case GP_INJ_WIN_PUBLISH:
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "p%c", a->w.on ? '+' : '-');
			break;
		}
		buf[n] = 0;
	}
	return buf;
}

/* One event at @p now; @return its actions. */
static const char *step(enum gp__inj_win_ev ev, unsigned which, int64_t now)
{
	gp__inj_win_step(g_w, ev, which, now, &g_out);
	return acts();
}

static void start(int64_t now)
{
	assert_int_equal(gp__inj_win_new(&g_w), 0);
	step(GP_INJ_WIN_INIT, 0, now);
}

/* without options everything is recorded, and CUPTI attached as soon as it is ready */
static void test_no_options(void **state)
{
	(void)state;
	start(100);
	assert_string_equal(acts(), "");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 110), "A");
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_RANGE, 120), "");
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 130), "");
	assert_string_equal(step(GP_INJ_WIN_EXIT, 0, 140), "");
}

/* --capture-range nvtx:NAME: outermost ranges open and close the window */
static void test_nvtx_range(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_RANGE", "nvtx:step", 1);
	start(100);
	assert_string_equal(acts(), "p-");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 110), "");
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_RANGE, 200), "A +3");
	assert_int_equal(g_out.a[1].w.ts, 200);
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_RANGE, 210), ""); /* nested */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_RANGE, 220), "");
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_RANGE, 230), "-3 D");
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_RANGE, 240), "");  /* a stray end */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 250), ""); /* not a range's */
	assert_string_equal(step(GP_INJ_WIN_EXIT, 0, 260), "");              /* closed: nothing */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_RANGE, 300), "A +3");
	assert_string_equal(step(GP_INJ_WIN_EXIT, 0, 310), "-6n"); /* open: closed, not published */
}

/* a window opened before CUDA was ready attaches CUPTI when it is */
static void test_range_before_cuda(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_RANGE", "nvtx:step", 1);
	start(100);
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_RANGE, 200), "+3");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 210), "A");
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_RANGE, 220), "-3 D");
}

/* --delay and --duration: a time gate from the run's start, opened and closed by ticks */
static void test_time_gate(void **state)
{
	(void)state;
	setenv("GPUPROF_RUN_START_NS", "1000", 1);
	setenv("GPUPROF_CAPTURE_DELAY_NS", "100", 1);
	setenv("GPUPROF_CAPTURE_DURATION_NS", "50", 1);
	start(500);
	assert_string_equal(acts(), "p-");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 600), "");
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 1099), "");
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 1100), "A +1");
	assert_int_equal(g_out.a[1].w.ts, 1100);
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 1149), "");
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 1150), "-2 D");
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 5000), ""); /* for good */
	assert_string_equal(step(GP_INJ_WIN_EXIT, 0, 5001), "");
}

/* a delay already past at start: the window opens at once */
static void test_time_gate_open_at_start(void **state)
{
	(void)state;
	setenv("GPUPROF_RUN_START_NS", "1000", 1);
	setenv("GPUPROF_CAPTURE_DELAY_NS", "100", 1);
	start(2000);
	assert_string_equal(acts(), "p- +1");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 2001), "A");
	assert_string_equal(step(GP_INJ_WIN_EXIT, 0, 3000), "-6n");
}

/* --schedule wait=1,warmup=1,active=2,repeat=1 over ranges: attached in the warm-up, recorded
 * in the two active iterations, detached after them for good */
static void test_schedule(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_SCHEDULE", "wait=1,warmup=1,active=2,repeat=1", 1);
	setenv("GPUPROF_CAPTURE_ITER_RANGE", "it", 1);
	start(0);
	assert_string_equal(acts(), "p-");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 1), "");
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 10), ""); /* 0: wait */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 20), "A");  /* then warm-up */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 30), ""); /* 1: warm-up */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 40), "+5"); /* then active */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 50), ""); /* 2: active */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 55), ""); /* nested */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 56), "");
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 60), "");
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 70), "");   /* 3: active */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 80), "-5 D"); /* then off */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 90), "");   /* 4: off */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 100), "");
}

/* iterations delimited by marks: each mark ends one and begins the next */
static void test_schedule_marks(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_SCHEDULE", "wait=0,warmup=0,active=1,repeat=2", 1);
	setenv("GPUPROF_CAPTURE_ITER_RANGE", "frame", 1);
	start(0);
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 1), "");
	assert_string_equal(step(GP_INJ_WIN_MARK, GP_WIN_M_ITER, 10), "A +5");
	assert_string_equal(step(GP_INJ_WIN_MARK, GP_WIN_M_ITER, 20), "");
	assert_string_equal(step(GP_INJ_WIN_MARK, GP_WIN_M_ITER, 30), "-5 D");
	assert_string_equal(step(GP_INJ_WIN_MARK, GP_WIN_M_ITER, 40), "");
}

/* --capture-range cudaProfilerApi: CUPTI stays subscribed, so a detach does not finalize */
static void test_profiler_api(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_RANGE", "cudaProfilerApi", 1);
	start(0);
	assert_string_equal(acts(), "p-");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 1), "");
	assert_string_equal(step(GP_INJ_WIN_PROF_STOP, 0, 5), ""); /* not started */
	assert_string_equal(step(GP_INJ_WIN_PROF_START, 0, 10), "A +4");
	assert_string_equal(step(GP_INJ_WIN_PROF_START, 0, 15), "");
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_RANGE, 17), ""); /* no nvtx range */
	assert_string_equal(step(GP_INJ_WIN_PROF_STOP, 0, 20), "-4 d");
}

/* the profiler calls mean nothing without that option */
static void test_profiler_api_off(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_RANGE", "nvtx:step", 1);
	start(0);
	assert_string_equal(step(GP_INJ_WIN_PROF_START, 0, 10), "");
	assert_string_equal(step(GP_INJ_WIN_PROF_STOP, 0, 20), "");
}

/* options that cannot be used are ignored (a warning each): everything is recorded */
static void test_bad_options(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_RANGE", "bogus", 1);
	setenv("GPUPROF_CAPTURE_SCHEDULE", "wait=1,active=0", 1); /* no active, no iterations */
	setenv("GPUPROF_CAPTURE_DELAY_NS", "-5", 1);
	start(0);
	assert_string_equal(acts(), "");
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 1), "A");
	assert_string_equal(step(GP_INJ_WIN_TICK, 0, 2), "");
	assert_string_equal(step(GP_INJ_WIN_EXIT, 0, 3), "");
}

/* ranges and marks of one iteration name mixed: a range ends a mark's iteration */
static void test_schedule_mixed(void **state)
{
	(void)state;
	setenv("GPUPROF_CAPTURE_SCHEDULE", "wait=1,warmup=0,active=1", 1); /* repeat 0: for ever */
	setenv("GPUPROF_CAPTURE_ITER_RANGE", "it", 1);
	start(0);
	assert_string_equal(step(GP_INJ_WIN_CUDA_READY, 0, 1), "");
	assert_string_equal(step(GP_INJ_WIN_MARK, GP_WIN_M_ITER, 10), "");      /* 0: wait */
	assert_string_equal(step(GP_INJ_WIN_BEGIN, GP_WIN_M_ITER, 20), "A +5"); /* 1: active */
	assert_string_equal(step(GP_INJ_WIN_MARK, GP_WIN_M_ITER, 25), "");      /* inside: none */
	assert_string_equal(step(GP_INJ_WIN_END, GP_WIN_M_ITER, 30), "-5 D");   /* 2: wait */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvtx_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_range_before_cuda, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_gate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_gate_open_at_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schedule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schedule_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schedule_mixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiler_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiler_api_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
