/* SPDX-License-Identifier: MIT */
/*
 * test_spool.c - texts put into a spool (util/spool.h) by several threads at
 * once come back whole, each where its span says, in any order asked; the
 * file has no name (its folder is empty while it is open); a spool that cannot be made, a failing
 * reader and a failing writer say so.
 */
#include "testutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/spool.h"

#define NTHREADS 4
#define NTEXTS   64

struct put_job {
	struct gp__spool *s;
	int first; /* texts first, first + NTHREADS, ... */
	struct gp__spool_span *spans;
	int rc;
};

/* text @p i: its number, repeated to a length that grows with it (past 64 KiB for some) */
static size_t text_of(int i, char *buf, size_t cap)
{
	size_t len = (size_t)(i * 2311 % 150000) + 1, k;

	assert_true(len <= cap);
	for (k = 0; k < len; k++)
		buf[k] = (char)('a' + (i + (int)(k / 7)) % 26);
	return len;
}

static void *put_main(void *arg)
{
	struct put_job *j = arg;
	char *buf = malloc(150001);
	int i;

	for (i = j->first; i < NTEXTS && !j->rc; i += NTHREADS)
		j->rc = gp__spool_put(j->s, buf, text_of(i, buf, 150001), &j->spans[i]);
	free(buf);
	return NULL;
}

struct got {
	char *p;
	size_t len, pieces, fail_at;
};

static int got_add(const void *p, size_t n, void *user)
{
	struct got *g = user;

	assert_true(n > 0 && n <= 64 * 1024);
	if (++g->pieces == g->fail_at) {
		errno = EPIPE;
		return -1;
	}
	g->p = realloc(g->p, g->len + n);
	assert_non_null(g->p);
	memcpy(g->p + g->len, p, n);
	g->len += n;
	return 0;
}

static void test_threads(void **state)
{
	struct gp__spool *s = NULL;
	struct gp__spool_span spans[NTEXTS];
	struct put_job jobs[NTHREADS];
	pthread_t th[NTHREADS];
	char *want = malloc(150001);
	int i, order;

	(void)state;
	assert_int_equal(gp__spool_open(&s), 0);
	memset(spans, 0, sizeof(spans));
	for (i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct put_job){ s, i, spans, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, put_main, &jobs[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(jobs[i].rc, 0);
	}
	/* read back last first: each text whole, in pieces of at most 64 KiB */
	for (order = NTEXTS - 1; order >= 0; order--) {
		struct got g = { 0 };
		size_t len = text_of(order, want, 150001);

		assert_int_equal(gp__spool_copy(s, &spans[order], got_add, &g), 0);
		assert_int_equal(g.len, len);
		assert_int_equal(spans[order].len, len);
		assert_memory_equal(g.p, want, len);
		free(g.p);
	}
	/* an empty span writes nothing */
	{
		struct gp__spool_span none = { 0, 0 };
		struct got g = { 0 };

		assert_int_equal(gp__spool_copy(s, &none, got_add, &g), 0);
		assert_int_equal(g.pieces, 0);
	}
	/* the writer failing: GP_EIO, its errno kept, no piece after */
	{
		struct got g = { .fail_at = 2 };
		size_t big = 0;

		for (i = 0; i < NTEXTS; i++)
			if (spans[i].len > 64 * 1024)
				big = (size_t)i;
		assert_true(spans[big].len > 64 * 1024);
		errno = 0;
		assert_int_equal(gp__spool_copy(s, &spans[big], got_add, &g), GP_EIO);
		assert_int_equal(errno, EPIPE);
		assert_int_equal(g.pieces, 2);
		free(g.p);
	}
	/* a span past the end: the read comes up short */
	{
		struct gp__spool_span past = { spans[0].off + (1u << 30), 10 };
		struct got g = { 0 };

		assert_int_equal(gp__spool_copy(s, &past, got_add, &g), GP_EIO);
		assert_non_null(strstr(gp_last_error(), "shorter than written"));
	}
	gp__spool_close(s);
	gp__spool_close(NULL);
	free(want);
}

/* $TMPDIR is used when it is absolute; one that does not exist is an error naming it */
static void test_tmpdir(void **state)
{
	char dir[] = "/tmp/gp-test-spool.XXXXXX";
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct gp__spool *s = NULL;
	struct gp__spool_span sp;

	(void)state;
	assert_int_equal(tu_tmpdir_make(dir), 0);
	setenv("TMPDIR", dir, 1);
	assert_int_equal(gp__spool_open(&s), 0);
	assert_int_equal(gp__spool_put(s, "abc", 3, &sp), 0);
	assert_true(sp.off == 0 && sp.len == 3);
	/* the open spool has no name: its folder is empty and can go while it is in use */
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(gp__spool_put(s, "defg", 4, &sp), 0);
	assert_true(sp.off == 3 && sp.len == 4);
	{
		struct got g = { 0 };

		assert_int_equal(gp__spool_copy(s, &sp, got_add, &g), 0);
		assert_true(g.len == 4 && memcmp(g.p, "defg", 4) == 0);
		free(g.p);
	}
	gp__spool_close(s);
	setenv("TMPDIR", "/nonexistent/gp-spool", 1);
	assert_int_equal(gp__spool_open(&s), GP_EIO);
	assert_null(s);
	assert_non_null(strstr(gp_last_error(), "/nonexistent/gp-spool"));
	/* a relative one is not used */
	setenv("TMPDIR", "relative", 1);
	assert_int_equal(gp__spool_open(&s), 0);
	gp__spool_close(s);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_tmpdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
