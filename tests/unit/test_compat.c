/* SPDX-License-Identifier: MIT */
/*
 * test_compat.c - --compat hta: µs rounding of float timestamps and the
 * last-ProfilerStep filter, on a tiny trace.
 */
#include "testutil.h"

#include <string.h>

#include "analyze/analyze-int.h"

#define BASE 1000000000LL /* baseTimeNanoseconds */

static void init(struct gp__actx *c, struct gp_trace *t, bool hta)
{
	struct gp_analyze_opts o;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.compat = hta ? GP_COMPAT_HTA : GP_COMPAT_NONE;
	assert_int_equal(gp__actx_init(c, t, &o, 0), 0);
}

static void test_rounding(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__actx c;
	size_t a, b, d;

	(void)state;
	t->has_base = true;
	t->base_ns = BASE;
	t->ts_float = true;
	a = tu_kernel(t, "a", 0, 7, BASE + 10400, 2300, 1); /* 10.4 + 2.3 -> [11, 12) */
	b = tu_kernel(t, "b", 0, 7, BASE + 20200, 500, 2);  /* 20.2 + 0.5 -> ts 21, end 20 */
	d = tu_kernel(t, "d", 0, 7, BASE + 30000, 1000, 3); /* integral: unchanged */

	init(&c, t, true);
	assert_int_equal(c.ts[a] - BASE, 11000);
	assert_int_equal(c.dur[a], 1000);
	assert_int_equal(c.ts[b] - BASE, 21000);
	assert_int_equal(c.dur[b], -1000);
	assert_int_equal(c.ts[d] - BASE, 30000);
	assert_int_equal(c.dur[d], 1000);
	assert_null(c.keep); /* no ProfilerStep: nothing filtered */
	gp__actx_release(&c);

	/* gpuprof's own definitions keep the exact times */
	init(&c, t, false);
	assert_int_equal(c.ts[a] - BASE, 10400);
	assert_int_equal(c.dur[b], 500);
	gp__actx_release(&c);
	gp_trace_free(t);
}

/* a trace whose ts are all integers is not rounded */
static void test_no_rounding_for_integer_ts(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__actx c;
	size_t a;

	(void)state;
	a = tu_kernel(t, "a", 0, 7, 10000, 2000, 1);
	init(&c, t, true);
	assert_int_equal(c.ts[a], 10000);
	assert_int_equal(c.dur[a], 2000);
	gp__actx_release(&c);
	gp_trace_free(t);
}

static void test_last_step_filter(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__actx c;
	size_t s1, s2, op1, op2, r1, r2, k1, k2, k3, ga;

	(void)state;
	s1 = tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 50000);
	s2 = tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 50000, 50000);
	op1 = tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 49999, 10000);
	op2 = tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 50000, 10000);
	r1 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 5000, 1000, 1);
	r2 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 60000, 1000, 2);
	k1 = tu_kernel(t, "k1", 0, 7, 70000, 1000, 1);  /* launched in step 1: kept */
	k2 = tu_kernel(t, "k2", 0, 7, 80000, 1000, 2);  /* launched in step 2: dropped */
	k3 = tu_kernel(t, "k3", 0, 7, 90000, 1000, -1); /* no correlation: kept */
	ga = tu_add(t, GP_K_GPU_ANNOTATION, "ProfilerStep#1", 0, 7, 45000, 1000);

	init(&c, t, true);
	assert_non_null(c.keep);
	assert_true(c.keep[s1]);
	assert_false(c.keep[s2]); /* the last step itself starts at the cut */
	assert_true(c.keep[op1]);
	assert_false(c.keep[op2]);
	assert_true(c.keep[r1]);
	assert_false(c.keep[r2]);
	assert_true(c.keep[k1]);
	assert_false(c.keep[k2]);
	assert_true(c.keep[k3]);
	assert_true(c.keep[ga]); /* stream-less: a "CPU" row to HTA, before the cut */
	assert_int_equal(c.gpu.n, 2);
	assert_int_equal(c.nsteps, 1);
	gp__actx_release(&c);

	/* without compat, everything counts */
	init(&c, t, false);
	assert_null(c.keep);
	assert_int_equal(c.gpu.n, 3);
	gp__actx_release(&c);
	gp_trace_free(t);
}

/* one step: HTA filters nothing */
static void test_one_step_no_filter(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp__actx c;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#7", 1, 1, 0, 50000);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 60000, 1000, 2);
	tu_kernel(t, "k", 0, 7, 80000, 1000, 2);
	init(&c, t, true);
	assert_null(c.keep);
	assert_int_equal(c.gpu.n, 1);
	gp__actx_release(&c);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_no_rounding_for_integer_ts),
		cmocka_unit_test(test_last_step_filter),
		cmocka_unit_test(test_one_step_no_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
