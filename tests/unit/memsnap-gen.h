/* SPDX-License-Identifier: MIT */
/*
 * memsnap-gen.h - what test_pickle.c and test_memsnap.c share: a temporary
 * directory, tests/memsnap_gen.py run into it (snapshots written by Python's
 * own pickle), and a file read whole. Static: each test includes it once.
 */
#ifndef GP_TEST_MEMSNAP_GEN_H
#define GP_TEST_MEMSNAP_GEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/gp-memsnap.XXXXXX");
	return tu_tmpdir_make(tmpdir);
}

static int teardown(void **state)
{
	(void)state;
	return tu_tmpdir_remove(tmpdir);
}

/* the bytes of @p path, NUL-ended (free()); *@p len their number */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/*
 * Runs tests/memsnap_gen.py OUT --proto PROTO --variant VARIANT, then @p flag
 * @p arg when @p flag ("--json", "--expect"); false when python3 is missing.
 */
static bool gen(const char *out, int proto, const char *variant, const char *flag, const char *arg)
{
	const char *src = getenv("GP_SRC_DIR");
	char cmd[2048];

	if (!src || system("python3 -c 'import pickle' >/dev/null 2>&1") != 0)
		return false;
	snprintf(cmd, sizeof(cmd),
	         "python3 %s/tests/memsnap_gen.py %s --proto %d --variant %s %s %s", src, out,
	         proto, variant, flag ? flag : "", flag ? arg : "");
	assert_int_equal(system(cmd), 0);
	return true;
}

#endif
