/* SPDX-License-Identifier: MIT */
/*
 * test_intervals.c - interval-set arithmetic with hand-computed answers.
 */
#include "testutil.h"

#include "analyze/intervals.h"

static void build(struct gp_ivset *a, const int64_t *v, size_t n)
{
	size_t i;

	gp__ivset_reset(a);
	for (i = 0; i + 1 < n; i += 2)
		assert_int_equal(gp__ivset_add(a, v[i], v[i + 1]), 0);
	assert_int_equal(gp__ivset_normalize(a), 0);
}

static void test_normalize(void **state)
{
	struct gp_ivset a = GP_IVSET_INIT;
	const int64_t v[] = { 10, 20, 0, 5, 5, 7, 15, 30, 40, 40, 50, 45 };

	(void)state;
	build(&a, v, 12);
	/* [0,7) [10,30); empty [40,40) and inverted [50,45) dropped */
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[0].s, 0);
	assert_int_equal(a.v[0].e, 7);
	assert_int_equal(a.v[1].s, 10);
	assert_int_equal(a.v[1].e, 30);
	assert_int_equal(gp__ivset_len(&a), 27);
	assert_int_equal(gp__ivset_len_within(&a, 5, 12), 4);
	gp__ivset_release(&a);
}

static void test_ops(void **state)
{
	struct gp_ivset a = GP_IVSET_INIT, b = GP_IVSET_INIT, o = GP_IVSET_INIT;
	const int64_t va[] = { 0, 10, 20, 30 };
	const int64_t vb[] = { 5, 25 };

	(void)state;
	build(&a, va, 4);
	build(&b, vb, 2);
	assert_int_equal(gp__ivset_intersect(&a, &b, &o), 0);
	assert_int_equal(gp__ivset_len(&o), 10); /* [5,10) + [20,25) */
	assert_int_equal(gp__ivset_overlap_len(&a, &b), 10);
	assert_int_equal(gp__ivset_subtract(&a, &b, &o), 0);
	assert_int_equal(o.n, 2); /* [0,5) [25,30) */
	assert_int_equal(gp__ivset_len(&o), 10);
	assert_int_equal(gp__ivset_subtract(&b, &a, &o), 0);
	assert_int_equal(o.n, 1); /* [10,20) */
	assert_int_equal(o.v[0].s, 10);
	assert_int_equal(o.v[0].e, 20);
	assert_int_equal(gp__ivset_union(&a, &b, &o), 0);
	assert_int_equal(o.n, 1);
	assert_int_equal(gp__ivset_len(&o), 30);
	assert_int_equal(gp__ivset_clip(&a, 8, 22, &o), 0);
	assert_int_equal(gp__ivset_len(&o), 4);
	gp__ivset_release(&a);
	gp__ivset_release(&b);
	gp__ivset_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
