/* SPDX-License-Identifier: MIT */
/*
 * test_analyze_threads.c - the analysis of a trace on two threads (the
 * sections as tasks taken by the calling thread and a helper started before
 * the context): the same report as on one thread, and every failure (an
 * allocation failing on either thread, before or after the helper starts
 * its tasks) reported as such with nothing leaked (the ASan build checks).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* a trace above the parallel threshold: steps of CPU ops, launches and kernels on two streams */
static struct gp_trace *big_trace(void)
{
	struct gp_trace *t = tu_trace_new();
	int64_t ts = 1000;
	int step, i;

	for (step = 0; step < 8; step++) {
		char name[32];
		int64_t s0 = ts;

		snprintf(name, sizeof(name), "ProfilerStep#%d", step);
		for (i = 0; i < 1000; i++) {
			int64_t corr = step * 1000 + i + 1;
			size_t op =
			    tu_add(t, GP_K_CPU_OP, i % 3 ? "aten::mm" : "aten::add", 1, 1, ts, 9);

			t->ev.ext[op] = corr;
			tu_runtime(t, "cudaLaunchKernel", 1, 1, ts + 1, 5, corr);
			tu_kernel(t, i % 2 ? "gemm_kernel" : "elementwise_kernel", 0, 7 + i % 2,
			          ts + 20 + (i % 5), 7, corr);
			ts += 10;
		}
		tu_add(t, GP_K_USER_ANNOTATION, name, 1, 1, s0 - 1, ts - s0 + 2);
		ts += 50;
	}
	return t;
}

/* the report of @p t as JSON; allocation @p fail_after of the analysis fails (0: none) */
static char *report_json(struct gp_trace *t, uint32_t threads, long fail_after, int *rc)
{
	struct gp_analyze_opts o;
	struct gp_value *r = NULL;
	char *text = NULL;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.only_rank = -1;
	o.threads = threads;
	gp__test_fail_alloc_after(fail_after);
	*rc = gp_analyze_trace(t, &o, 0, &r);
	/* only the analysis fails: which allocation the JSON text makes depends on the threads */
	gp__test_fail_alloc_after(0);
	if (*rc) {
		assert_null(r);
		return NULL;
	}
	assert_int_equal(gp_value_to_json(r, GP_JSON_PRETTY, &text, NULL), 0);
	gp_value_free(r);
	return text;
}

static void test_same_as_one_thread(void **state)
{
	struct gp_trace *t = big_trace();
	struct gp_value *r;
	char *one, *two;
	int rc;

	(void)state;
	assert_true(t->ev.n >= 20000);
	one = report_json(t, 1, 0, &rc);
	assert_int_equal(rc, 0);
	two = report_json(t, 0, 0, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(one, two);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(tu_geti(r, "kernels/0/count"), 4000);
	gp_value_free(r);
	gp_free(one);
	gp_free(two);
	gp_trace_free(t);
}

/* allocation n fails, for n spread over the whole run: an error or the same report */
static void test_alloc_failures(void **state)
{
	struct gp_trace *t = big_trace();
	char *want, *got;
	unsigned long n;
	int rc = GP_ENOMEM, tries = 0;

	(void)state;
	want = report_json(t, 0, 0, &rc);
	assert_int_equal(rc, 0);
	for (n = 1; rc == GP_ENOMEM || n < 50; n += 1 + n / 6, tries++) {
		got = report_json(t, 0, (long)n, &rc);
		if (rc) {
			assert_int_equal(rc, GP_ENOMEM);
			assert_null(got);
		} else {
			assert_string_equal(got, want);
			gp_free(got);
		}
	}
	assert_int_equal(rc, 0);
	assert_true(tries > 20);
	gp_free(want);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_one_thread),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
