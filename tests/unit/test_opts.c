/* SPDX-License-Identifier: MIT */
/*
 * test_opts.c - size-versioned options structs (util/opts.h): GP__OPTS_VALID
 * takes NULL, an older caller's smaller struct and a newer caller's larger one
 * whose unknown bytes are zero, and refuses a size below the size field or a
 * non-zero unknown byte; GP__OPTS_GET reads the default past the caller's size.
 * Then the same through the public entry points that take options.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "gpuprof/bench.h"
#include "gpuprof/sample.h"
#include "gpuprof/stats.h"
#include "util/opts.h"

struct demo_opts {
	uint32_t size;
	uint32_t a;
	double b;
	const char *c;
};

/* what a caller built against a newer header passes */
struct demo_opts_v2 {
	struct demo_opts v1;
	uint64_t d;
};

static int read_demo(const struct demo_opts *o, uint32_t *a, double *b, const char **c)
{
	int rc = GP__OPTS_VALID(o, struct demo_opts);

	if (rc)
		return rc;
	*a = GP__OPTS_GET(o, a, 7);
	*b = GP__OPTS_GET(o, b, 0.5);
	*c = GP__OPTS_GET(o, c, "dflt");
	return 0;
}

static void test_valid_and_get(void **state)
{
	struct demo_opts o = { .size = sizeof(o), .a = 1, .b = 2, .c = "x" };
	struct demo_opts_v2 n;
	uint32_t a;
	double b;
	const char *c;

	(void)state;
	assert_int_equal(read_demo(NULL, &a, &b, &c), 0);
	assert_int_equal(a, 7);
	assert_true(b == 0.5);
	assert_string_equal(c, "dflt");

	assert_int_equal(read_demo(&o, &a, &b, &c), 0);
	assert_int_equal(a, 1);
	assert_true(b == 2);
	assert_string_equal(c, "x");

	/* an older caller: fields past its size are defaults, whatever the memory holds */
	o.size = offsetof(struct demo_opts, b);
	assert_int_equal(read_demo(&o, &a, &b, &c), 0);
	assert_int_equal(a, 1);
	assert_true(b == 0.5);
	assert_string_equal(c, "dflt");
	o.size = sizeof(uint32_t);
	assert_int_equal(read_demo(&o, &a, &b, &c), 0);
	assert_int_equal(a, 7);

	/* too small to hold its own size */
	o.size = 0;
	assert_int_equal(read_demo(&o, &a, &b, &c), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "struct demo_opts: size 0 is too small"));
	o.size = 3;
	assert_int_equal(read_demo(&o, &a, &b, &c), GP_EINVAL);

	/* a newer caller: fine while the fields this library lacks are zero */
	memset(&n, 0, sizeof(n));
	n.v1.size = sizeof(n);
	n.v1.a = 3;
	assert_int_equal(read_demo(&n.v1, &a, &b, &c), 0);
	assert_int_equal(a, 3);
	n.d = 1;
	assert_int_equal(read_demo(&n.v1, &a, &b, &c), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "struct demo_opts: byte"));
}

static void test_copy(void **state)
{
	struct demo_opts o = { .size = offsetof(struct demo_opts, b), .a = 5, .b = 9 };
	struct demo_opts d = { .a = 1, .b = 2 };
	const struct demo_opts *p = &o;

	(void)state;
	GP__OPTS_COPY(&d, p);
	assert_int_equal(d.size, sizeof(d));
	assert_int_equal(d.a, 5);
	assert_true(d.b == 2); /* past the caller's size: the default kept */
}

/* the same rules at the public entry points */
static void test_public(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5 };
	struct {
		struct gp_stats_opts o;
		uint32_t later;
	} big;
	struct gp_stats s;
	struct gp_change ch;
	struct gp_change_opts co = { .size = 0 };
	struct gp_sampler_opts so = { .size = 2 };
	struct gp_sampler *smp = (struct gp_sampler *)&s;
	struct gp_bench *b;
	struct gp_bench_iter_opts io = { .size = 1 };
	const char *paths[] = { "/nonexistent" };

	(void)state;
	memset(&big, 0, sizeof(big));
	big.o.size = sizeof(big);
	big.o.resamples = 100;
	assert_int_equal(gp_stats_compute(x, 5, &big.o, &s), 0);
	big.later = 1;
	assert_int_equal(gp_stats_compute(x, 5, &big.o, &s), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "struct gp_stats_opts"));

	assert_int_equal(gp_stats_compare(x, 5, x, 5, GP_LOWER_IS_BETTER, &co, &ch), GP_EINVAL);
	co.size = sizeof(co);
	assert_int_equal(gp_stats_compare(x, 5, x, 5, GP_LOWER_IS_BETTER, &co, &ch), 0);

	/* out-parameter last; a bad opts struct leaves *out NULL */
	assert_int_equal(gp_sampler_open(&so, &smp), GP_EINVAL);
	assert_null(smp);
	assert_non_null(strstr(gp_last_error(), "struct gp_sampler_opts"));

	b = gp_bench_new("trace", 0);
	assert_non_null(b);
	assert_int_equal(gp_bench_add_paths(b, paths, 1, &io), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "struct gp_bench_iter_opts"));
	gp_bench_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_and_get),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_public),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
