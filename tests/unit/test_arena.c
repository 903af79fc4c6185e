/* SPDX-License-Identifier: MIT */
/*
 * test_arena.c - the scratch arena: aligned pieces that keep their bytes,
 * growth that keeps the prefix (in place for the last piece), huge blocks
 * on 2 MiB boundaries, failures that leave the piece as it was.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	return tu_xorshift(&rng);
}

/* many pieces of random sizes: aligned, disjoint (each keeps the pattern written into it) */
static void test_pieces(void **state)
{
	struct gp__arena a;
	unsigned char *p[500];
	size_t n[500], i, j;

	(void)state;
	gp__arena_init(&a, 0);
	for (i = 0; i < 500; i++) {
		n[i] = (size_t)(next() % 20000);
		p[i] = gp__arena_alloc(&a, n[i]);
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t)p[i] % 64, 0);
		memset(p[i], (int)(i & 0xff), n[i]);
	}
	for (i = 0; i < 500; i++)
		for (j = 0; j < n[i]; j++)
			assert_int_equal(p[i][j], i & 0xff);
	gp__arena_release(&a);
	assert_null(a.blk);
	gp__arena_release(&a); /* twice: nothing left to free */
}

/* buffers grown in turns keep their elements; the block's last piece grows where it is */
static void test_grow(void **state)
{
	struct gp__arena a;
	uint32_t *x = NULL, *y = NULL, *before;
	size_t cx = 0, cy = 0, i;

	(void)state;
	gp__arena_init(&a, 4096);
	for (i = 0; i < 300000; i++) {
		assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, i + 1, sizeof(*x)), 0);
		x[i] = (uint32_t)i * 7u;
		if (i % 3 == 0) {
			size_t k = i / 3;

			assert_int_equal(gp__arena_grow(&a, (void **)&y, &cy, k + 1, sizeof(*y)),
			                 0);
			y[k] = (uint32_t)k ^ 0x5a5a5a5au;
		}
	}
	assert_true(cx >= 300000);
	for (i = 0; i < 300000; i++)
		assert_int_equal(x[i], (uint32_t)i * 7u);
	for (i = 0; i < 100000; i++)
		assert_int_equal(y[i], (uint32_t)i ^ 0x5a5a5a5au);
	/* no growth when the room is there */
	before = x;
	assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, 10, sizeof(*x)), 0);
	assert_ptr_equal(x, before);
	gp__arena_release(&a);

	/* alone in its block, a piece grows in place */
	gp__arena_init(&a, 1 << 20);
	x = NULL;
	cx = 0;
	assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, 1000, sizeof(*x)), 0);
	before = x;
	x[999] = 42;
	assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, 100000, sizeof(*x)), 0);
	if (!GP_ARENA_EACH_MALLOC)
		assert_ptr_equal(x, before);
	assert_int_equal(x[999], 42);
	gp__arena_release(&a);
}

/* a block of GP_ARENA_HUGE or more starts on a 2 MiB boundary and is all usable */
static void test_huge(void **state)
{
	struct gp__arena a;
	unsigned char *p;
	size_t n = 3 * GP_ARENA_HUGE + 12345;

	(void)state;
	gp__arena_init(&a, 0);
	p = gp__arena_alloc(&a, n);
	assert_non_null(p);
	if (!GP_ARENA_EACH_MALLOC)
		assert_int_equal((uintptr_t)p % (2u << 20), 0);
	memset(p, 0xab, n);
	assert_int_equal(p[n - 1], 0xab);
	gp__arena_release(&a);
}

/* an allocation that fails leaves the buffer and its capacity as they were */
static void test_fail(void **state)
{
	struct gp__arena a;
	uint64_t *x = NULL;
	size_t cx = 0;

	(void)state;
	gp__arena_init(&a, 256);
	assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, 8, sizeof(*x)), 0);
	x[7] = 99;
	/* the next block's header is the first allocation: it fails */
	gp__test_fail_alloc_after(1);
	assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, 1000, sizeof(*x)), GP_ENOMEM);
	gp__test_fail_alloc_after(0);
	assert_int_equal(cx, 16);
	assert_int_equal(x[7], 99);
	assert_int_equal(gp__arena_grow(&a, (void **)&x, &cx, SIZE_MAX / 4, sizeof(*x)), GP_ENOMEM);
	assert_int_equal(x[7], 99);
	gp__arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_fail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
