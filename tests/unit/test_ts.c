/* SPDX-License-Identifier: MIT */
/*
 * test_ts.c - the decimal timestamp parser (util/ts.h): integer, fraction and
 * exponent forms, rounding, overflow, bad syntax, and the double-precision trap.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/ts.h"

static int64_t ts(const char *s, bool *flt)
{
	int64_t v = 0;
	int rc = gp__ts_parse(s, strlen(s), &v, flt);

	if (rc)
		fail_msg("\"%s\": rc %d", s, rc);
	return v;
}

static void test_trap(void **state)
{
	const char *s = "1712195495505582.988";
	double d = strtod(s, NULL);

	(void)state;
	/* exact in decimal */
	assert_int_equal(ts(s, NULL), 1712195495505582988LL);
	/* and not through a double: the nearest double is off by tens of ns */
	assert_int_not_equal((int64_t)(d * 1000.0), 1712195495505582988LL);
	assert_int_not_equal((int64_t)d * 1000 + (int64_t)((d - (double)(int64_t)d) * 1000.0 + 0.5),
	                     1712195495505582988LL);
}

static void test_forms(void **state)
{
	bool f = true;

	(void)state;
	assert_int_equal(ts("1623142623460111", &f), 1623142623460111000LL);
	assert_false(f);
	assert_int_equal(ts("1428625731896.179", &f), 1428625731896179LL);
	assert_true(f);
	assert_int_equal(ts("0", &f), 0);
	assert_false(f);
	assert_int_equal(ts("-0", NULL), 0);
	assert_int_equal(ts("-1.5", &f), -1500);
	assert_true(f);
	assert_int_equal(ts("12.0", &f), 12000);
	assert_true(f); /* float syntax, even when integral */
	/* exponents, exactly in decimal */
	assert_int_equal(ts("1.5e3", &f), 1500000);
	assert_true(f);
	assert_int_equal(ts("1.5E+3", NULL), 1500000);
	assert_int_equal(ts("15e-1", NULL), 1500);
	assert_int_equal(ts("1e-3", NULL), 1);
	assert_int_equal(ts("2e15", NULL), 2000000000000000000LL);
	assert_int_equal(ts("0e999999999999999999", NULL), 0);
	assert_int_equal(ts("1e-999999999999999999", NULL), 0);
	assert_int_equal(ts("1712195495505.582988e3", NULL), 1712195495505582988LL);
}

static void test_rounding(void **state)
{
	(void)state;
	assert_int_equal(ts("0.0004", NULL), 0);
	assert_int_equal(ts("0.0005", NULL), 1); /* half away from zero */
	assert_int_equal(ts("-0.0005", NULL), -1);
	assert_int_equal(ts("1.2345", NULL), 1235);
	assert_int_equal(ts("1.23449999", NULL), 1234);
	assert_int_equal(ts("12.5006", NULL), 12501);
	assert_int_equal(ts("1428625731900.0004", NULL), 1428625731900000LL);
	assert_int_equal(ts("5e-4", NULL), 1);
	assert_int_equal(ts("4.9999e-4", NULL), 0);
	assert_int_equal(ts("0.999999999", NULL), 1000);
}

static void test_limits(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(ts("9223372036854775.807", NULL), INT64_MAX);
	assert_int_equal(ts("-9223372036854775.807", NULL), -INT64_MAX);
	assert_int_equal(gp__ts_parse("9223372036854775.808", 20, &v, NULL), GP_ELIMIT);
	assert_int_equal(gp__ts_parse("9223372036854775.8075", 21, &v, NULL), GP_ELIMIT);
	assert_int_equal(gp__ts_parse("99999999999999999", 17, &v, NULL), GP_ELIMIT);
	assert_int_equal(gp__ts_parse("1e300", 5, &v, NULL), GP_ELIMIT);
	assert_int_equal(gp__ts_parse("1e99999999999999999999", 22, &v, NULL), GP_ELIMIT);
	assert_int_equal(gp__ts_parse("18446744073709551616", 20, &v, NULL), GP_ELIMIT);
}

static void test_bad(void **state)
{
	static const char *bad[] = { "",     "-",  "01",  "1.",  ".5", "1e",   "1e+",  "abc",
		                     "1.5x", "+1", "NaN", "- 1", "1 ", "0x10", "1.e3", "--1" };
	size_t i;
	int64_t v;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(bad); i++)
		if (gp__ts_parse(bad[i], strlen(bad[i]), &v, NULL) != GP_EFORMAT)
			fail_msg("\"%s\" accepted", bad[i]);
}

static void test_int(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(gp__int_parse("-9223372036854775808", 20, &v), 0);
	assert_int_equal(v, INT64_MIN);
	assert_int_equal(gp__int_parse("9223372036854775807", 19, &v), 0);
	assert_int_equal(v, INT64_MAX);
	assert_int_equal(gp__int_parse("9223372036854775808", 19, &v), GP_ELIMIT);
	assert_int_equal(gp__int_parse("01", 2, &v), GP_EFORMAT);
	assert_int_equal(gp__int_parse("1.0", 3, &v), GP_EFORMAT);
	assert_int_equal(gp__int_parse("", 0, &v), GP_EFORMAT);
	assert_int_equal(gp__int_parse("0", 1, &v), 0);
	assert_int_equal(v, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trap),     cmocka_unit_test(test_forms),
		cmocka_unit_test(test_rounding), cmocka_unit_test(test_limits),
		cmocka_unit_test(test_bad),      cmocka_unit_test(test_int),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
