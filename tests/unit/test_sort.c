/* SPDX-License-Identifier: MIT */
/*
 * test_sort.c - radix sorts against a reference: order, stability, signed keys.
 */
#include "testutil.h"

#include <stdlib.h>

#include "util/sort.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	return tu_xorshift(&rng);
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_i64(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 100000 };
	size_t s, i;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		int64_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));

		for (i = 0; i < n; i++) {
			/* mixed signs, shared high bytes, duplicates */
			a[i] =
			    (int64_t)(next() % 5000) - 2500 + (s & 1 ? 1700000000000000000LL : 0);
			if (i % 7 == 0)
				a[i] = INT64_MIN + (int64_t)(i % 3);
			if (i % 11 == 0)
				a[i] = INT64_MAX - (int64_t)(i % 2);
			b[i] = a[i];
		}
		assert_int_equal(gp__sort_i64(a, n), 0);
		qsort(b, n, sizeof(*b), cmp);
		for (i = 0; i < n; i++)
			assert_true(a[i] == b[i]);
		free(a);
		free(b);
	}
}

static void test_kv_stable(void **state)
{
	size_t n = 5000, i;
	struct gp_kv *v = malloc(n * sizeof(*v));

	(void)state;
	for (i = 0; i < n; i++) {
		v[i].key = (int64_t)(next() % 37) - 18;
		v[i].val = i;
	}
	assert_int_equal(gp__sort_kv(v, n), 0);
	for (i = 1; i < n; i++) {
		assert_true(v[i - 1].key <= v[i].key);
		if (v[i - 1].key == v[i].key)
			assert_true(v[i - 1].val < v[i].val);
	}
	free(v);
}

/* keys that differ in their low w bits only, for every digit split; sorted and reversed input */
static void test_widths(void **state)
{
	static const unsigned widths[] = { 1, 2, 10, 11, 12, 22, 23, 30, 33, 34, 44, 45, 63, 64 };
	size_t n = 3000, i, w, pass;
	int64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct gp_kv *v = malloc(n * sizeof(*v));

	(void)state;
	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		uint64_t m = widths[w] == 64 ? ~0ULL : (1ULL << widths[w]) - 1;

		for (pass = 0; pass < 3; pass++) {
			for (i = 0; i < n; i++)
				a[i] = (int64_t)((1661938466265032000ULL & ~m) | (next() & m));
			if (pass) {
				qsort(a, n, sizeof(*a), cmp);
				if (pass == 2) /* reversed */
					for (i = 0; i < n / 2; i++) {
						int64_t t = a[i];

						a[i] = a[n - 1 - i];
						a[n - 1 - i] = t;
					}
			}
			for (i = 0; i < n; i++) {
				b[i] = a[i];
				v[i].key = a[i];
				v[i].val = i;
			}
			assert_int_equal(gp__sort_i64(a, n), 0);
			assert_int_equal(gp__sort_kv(v, n), 0);
			qsort(b, n, sizeof(*b), cmp);
			for (i = 0; i < n; i++) {
				assert_true(a[i] == b[i]);
				assert_true(v[i].key == b[i]);
				if (i && v[i - 1].key == v[i].key)
					assert_true(v[i - 1].val < v[i].val);
			}
		}
	}
	free(a);
	free(b);
	free(v);
}

/* inputs made of a few sorted runs (merged rather than radix-sorted): order and stability */
static void test_runs(void **state)
{
	size_t n = 5000, i, k, r, trial;
	struct gp_kv *v = malloc(n * sizeof(*v));
	int64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));

	(void)state;
	for (k = 2; k <= 7; k++) {
		for (trial = 0; trial < 20; trial++) {
			size_t start = 0;

			for (r = 0; r < k; r++) {
				/* run lengths from 1 up; the last run takes the rest */
				size_t len = r + 1 == k ? n - start : 1 + next() % (n / k);
				int64_t key = (int64_t)(next() % 50) - 25;

				for (i = start; i < start + len; i++) {
					key += (int64_t)(next() %
					                 3); /* duplicates within and across runs */
					v[i].key = key;
					v[i].val = i;
					a[i] = b[i] = key;
				}
				start += len;
			}
			assert_int_equal(gp__sort_kv(v, n), 0);
			assert_int_equal(gp__sort_i64(a, n), 0);
			qsort(b, n, sizeof(*b), cmp);
			for (i = 0; i < n; i++) {
				assert_true(v[i].key == b[i] && a[i] == b[i]);
				if (i && v[i - 1].key == v[i].key)
					assert_true(v[i - 1].val < v[i].val);
			}
		}
	}
	free(v);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_kv_stable),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
