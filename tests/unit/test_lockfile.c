/* SPDX-License-Identifier: MIT */
/*
 * test_lockfile.c - the one atomic writer (util/lockfile.c, and its public
 * entry point gp_file_write_atomic()): bad arguments refused, a new file's
 * mode from the umask, an existing file's mode kept, writing through
 * symbolic links (relative, absolute, chained, dangling; a loop refused), a
 * read-only file refused with a message naming it, a directory refused,
 * devices written in place, rollback, and errors (no directory, a full file
 * system, a write over the file size limit) that leave the target as it was
 * and no temporary file behind.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "source/input.h"
#include "util/lockfile.h"

static char dir[] = "/tmp/gp-test-lockfile.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return tu_tmpdir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	return tu_tmpdir_remove(dir);
}

static char *path_of(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* temporary files (.NAME.tmp.XXXXXX) left in directory @p d */
static int temps_in(const char *d)
{
	DIR *dh = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dh);
	while ((e = readdir(dh)))
		if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp."))
			n++;
	closedir(dh);
	return n;
}

static void put(const char *path, const char *s, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void assert_contents(const char *path, const char *want)
{
	char buf[256] = { 0 };
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), strlen(want));
	fclose(f);
	assert_string_equal(buf, want);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

static void test_new_and_existing_mode(void **state)
{
	const char *p = path_of("new.json");
	mode_t um;

	(void)state;
	/* a new file: 0666 less the umask */
	um = umask(027);
	assert_int_equal(gp_file_write_atomic(p, "new", 3), 0);
	umask(um);
	assert_contents(p, "new");
	assert_int_equal(mode_of(p), 0640);
	/* an existing file keeps its mode, whatever the umask */
	assert_int_equal(chmod(p, 0604), 0);
	um = umask(077);
	assert_int_equal(gp_file_write_atomic(p, "newer", 5), 0);
	umask(um);
	assert_contents(p, "newer");
	assert_int_equal(mode_of(p), 0604);
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(gp_file_write_atomic(p, "", 0), 0);
	assert_contents(p, "");
	assert_int_equal(mode_of(p), 0755);
	assert_int_equal(temps_in(dir), 0);
	unlink(p);
}

static void test_stream_and_rollback(void **state)
{
	struct gp__lockfile *lk = NULL;
	const char *p = path_of("s.txt");
	FILE *f;

	(void)state;
	put(p, "old", 0644);
	/* rollback leaves the target as it was */
	assert_int_equal(gp__lockfile_hold(p, &lk), 0);
	assert_int_equal(gp__lockfile_write(lk, "half", 4), 0);
	assert_int_equal(temps_in(dir), 1);
	errno = 4321;
	gp__lockfile_rollback(lk);
	assert_int_equal(errno, 4321);
	gp__lockfile_rollback(NULL);
	assert_contents(p, "old");
	assert_int_equal(temps_in(dir), 0);
	/* a stream and writes, in order */
	assert_int_equal(gp__lockfile_hold(p, &lk), 0);
	assert_int_equal(gp__lockfile_stream(lk, &f), 0);
	fputs("a", f);
	assert_int_equal(gp__lockfile_write(lk, "b", 1), 0);
	fputs("c", f);
	assert_contents(p, "old");
	assert_int_equal(gp__lockfile_commit(lk), 0);
	assert_contents(p, "abc");
	assert_int_equal(mode_of(p), 0644);
	assert_int_equal(temps_in(dir), 0);
	unlink(p);
}

/* the whole of @p path, gunzipped by the readers' input layer, into @p buf (@return its length) */
static size_t read_input(const char *path, char *buf, size_t cap)
{
	struct gp_input *in = NULL;
	size_t len = 0, got;

	assert_int_equal(gp__input_open_file(path, &in), 0);
	do {
		got = 0;
		assert_int_equal(gp__input_read(in, buf + len, cap - len, &got), 0);
		len += got;
	} while (got && len < cap);
	gp__input_close(in);
	return len;
}

/* NAME.gz is written gzip-compressed: whole, through the stream, and never half */
static void test_gzip(void **state)
{
	enum { N = 300000 };
	static char data[N], back[N + 16];
	struct gp__lockfile *lk = NULL;
	const char *p = path_of("out.json.gz");
	unsigned char magic[2] = { 0 };
	FILE *f;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++)
		data[i] = (char)("{\"ts\":12345.678,\"name\":\"k\"}\n"[i % 29] + (i / 4096 % 3));
	assert_int_equal(gp_file_write_atomic(p, data, N), 0);
	f = fopen(p, "rb");
	assert_non_null(f);
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(magic[0], 0x1f);
	assert_int_equal(magic[1], 0x8b);
	assert_int_equal(read_input(p, back, sizeof(back)), N);
	assert_memory_equal(back, data, N);
	/* the stream and writes mix in order, compressed */
	assert_int_equal(gp__lockfile_hold(p, &lk), 0);
	assert_int_equal(gp__lockfile_stream(lk, &f), 0);
	fputs("a", f);
	assert_int_equal(gp__lockfile_write(lk, "b", 1), 0);
	fputs("c", f);
	assert_int_equal(gp__lockfile_commit(lk), 0);
	assert_int_equal(read_input(p, back, sizeof(back)), 3);
	assert_memory_equal(back, "abc", 3);
	/* a rollback leaves the old file */
	assert_int_equal(gp__lockfile_hold(p, &lk), 0);
	assert_int_equal(gp__lockfile_write(lk, data, N), 0);
	gp__lockfile_rollback(lk);
	assert_int_equal(read_input(p, back, sizeof(back)), 3);
	assert_int_equal(temps_in(dir), 0);
	/* only a name ending in ".gz": "x.gzip" stays plain */
	assert_int_equal(gp_file_write_atomic(path_of("x.gzip"), "plain", 5), 0);
	assert_contents(path_of("x.gzip"), "plain");
	unlink(path_of("x.gzip"));
	unlink(p);
}

static void test_symlinks(void **state)
{
	char sub[600], abs_link[600], t[600], l1[600], l2[600];
	struct stat st;

	(void)state;
	snprintf(sub, sizeof(sub), "%s", path_of("sub"));
	snprintf(t, sizeof(t), "%s", path_of("sub/target"));
	snprintf(l1, sizeof(l1), "%s", path_of("link1"));
	snprintf(l2, sizeof(l2), "%s", path_of("link2"));
	assert_int_equal(mkdir(sub, 0777), 0);
	put(t, "old", 0600);
	/* link2 -> link1 -> sub/target, both relative: the target is written, the links stay */
	assert_int_equal(symlink("sub/target", l1), 0);
	assert_int_equal(symlink("link1", l2), 0);
	assert_int_equal(gp_file_write_atomic(l2, "through", 7), 0);
	assert_int_equal(lstat(l1, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(l2, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_contents(t, "through");
	assert_int_equal(mode_of(t), 0600);
	assert_int_equal(temps_in(dir), 0);
	assert_int_equal(temps_in(sub), 0);
	/* an absolute link */
	snprintf(abs_link, sizeof(abs_link), "%s", path_of("abs"));
	assert_int_equal(symlink(t, abs_link), 0);
	assert_int_equal(gp_file_write_atomic(abs_link, "abs", 3), 0);
	assert_contents(t, "abs");
	assert_int_equal(lstat(abs_link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* a dangling link: the file it points at is created */
	assert_int_equal(symlink("sub/created", path_of("dangling")), 0);
	assert_int_equal(gp_file_write_atomic(path_of("dangling"), "made", 4), 0);
	assert_contents(path_of("sub/created"), "made");
	assert_int_equal(lstat(path_of("dangling"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* a loop is refused, naming the path */
	assert_int_equal(symlink("loop-b", path_of("loop-a")), 0);
	assert_int_equal(symlink("loop-a", path_of("loop-b")), 0);
	errno = 0;
	assert_int_equal(gp_file_write_atomic(path_of("loop-a"), "x", 1), GP_EIO);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(gp_last_error(), "loop-a"));
	assert_int_equal(temps_in(dir), 0);
	assert_int_equal(temps_in(sub), 0);
}

static void test_read_only(void **state)
{
	const char *p = path_of("ro.json");
	struct gp__lockfile *lk = (struct gp__lockfile *)1;
	char want[700];

	(void)state;
	put(p, "keep", 0444);
	errno = 0;
	assert_int_equal(gp__lockfile_hold(p, &lk), GP_EIO);
	assert_null(lk);
	assert_int_equal(errno, EACCES);
	snprintf(want, sizeof(want), "cannot write '%s': Permission denied", p);
	assert_non_null(strstr(gp_last_error(), want));
	assert_contents(p, "keep");
	/* also through a link to it */
	assert_int_equal(symlink("ro.json", path_of("ro-link")), 0);
	assert_int_equal(gp_file_write_atomic(path_of("ro-link"), "x", 1), GP_EIO);
	assert_non_null(strstr(gp_last_error(), "ro-link"));
	assert_contents(p, "keep");
	assert_int_equal(temps_in(dir), 0);
	chmod(p, 0644);
}

static void test_bad_paths(void **state)
{
	struct gp__lockfile *lk = (struct gp__lockfile *)1;

	(void)state;
	/* no directory */
	errno = 0;
	assert_int_equal(gp__lockfile_hold(path_of("none/x"), &lk), GP_EIO);
	assert_null(lk);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(gp_last_error(), "none/x"));
	/* no file name, no name at all */
	assert_int_equal(gp__lockfile_hold(path_of(""), &lk), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "not a file name"));
	assert_int_equal(gp__lockfile_hold("", &lk), GP_EINVAL);
	assert_int_equal(gp__lockfile_hold(NULL, &lk), GP_EINVAL);
	/* the same through the public entry point, and nothing made */
	assert_int_equal(gp_file_write_atomic(NULL, "x", 1), GP_EINVAL);
	assert_int_equal(gp_file_write_atomic("", "x", 1), GP_EINVAL);
	assert_int_equal(gp_file_write_atomic(path_of(""), "x", 1), GP_EINVAL);
	errno = 0;
	assert_int_equal(gp_file_write_atomic(path_of("none/x"), "x", 1), GP_EIO);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(gp_last_error(), "none/x"));
	assert_int_equal(temps_in(dir), 0);
	/* a directory */
	assert_int_equal(mkdir(path_of("adir"), 0777), 0);
	assert_int_equal(gp_file_write_atomic(path_of("adir"), "x", 1), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "it is a directory"));
	assert_int_equal(temps_in(dir), 0);
	/* a read-only directory: no temporary file can be made (root may write anyway) */
	if (geteuid() != 0) {
		assert_int_equal(chmod(path_of("adir"), 0555), 0);
		assert_int_equal(gp_file_write_atomic(path_of("adir/f"), "x", 1), GP_EIO);
		assert_int_equal(errno, EACCES);
		chmod(path_of("adir"), 0755);
	}
	rmdir(path_of("adir"));
}

static void test_devices(void **state)
{
	(void)state;
	/* written in place, never replaced */
	assert_int_equal(gp_file_write_atomic("/dev/null", "x", 1), 0);
	if (access("/dev/full", W_OK) == 0) {
		errno = 0;
		assert_int_equal(gp_file_write_atomic("/dev/full", "x", 1), GP_EIO);
		assert_int_equal(errno, ENOSPC);
		assert_non_null(strstr(gp_last_error(), "cannot write '/dev/full'"));
	}
}

/* A write that fails for want of room: the target stays, no temporary file. */
/* a report whose JSON text is longer than @p bytes, many writer buffers long */
static struct gp_value *big_value(size_t bytes)
{
	struct gp_value *arr = gp_value_array();
	char row[100];
	size_t n = 0, i;

	assert_non_null(arr);
	for (i = 0; n <= bytes; i++) {
		snprintf(row, sizeof(row), "row %zu of a report written as it is made", i);
		assert_int_equal(gp_arr_push(arr, gp_value_str(row)), 0);
		n += strlen(row) + 3;
	}
	return arr;
}

/* gp_file_write_atomic_json() writes gp_value_to_json()'s text, plain or gzip-compressed */
static void test_json(void **state)
{
	struct gp_value *v = big_value(600000);
	static char back[1 << 21];
	const char *names[] = { "report.json", "report.json.gz" };
	char *text = NULL;
	size_t len = 0, i;

	(void)state;
	assert_int_equal(gp_value_to_json(v, GP_JSON_PRETTY, &text, &len), 0);
	assert_true(len < sizeof(back));
	for (i = 0; i < 2; i++) {
		const char *p = path_of(names[i]);

		put(p, "old", 0600);
		assert_int_equal(gp_file_write_atomic_json(p, v, GP_JSON_PRETTY), 0);
		assert_int_equal(read_input(p, back, sizeof(back)), len);
		assert_memory_equal(back, text, len);
		assert_int_equal(mode_of(p), 0600);
		unlink(p);
	}
	assert_int_equal(temps_in(dir), 0);
	assert_int_equal(gp_file_write_atomic_json(path_of("x.json"), NULL, 0), GP_EINVAL);
	gp_free(text);
	gp_value_free(v);
}

/* gp_file_write_atomic_with()'s document: @p user pieces "ab", then its error if any */
static int produce_pieces(void *user, gp_write_fn write, void *wuser)
{
	const int *fail = user;

	if (write("a", 1, wuser) || write("b", 1, wuser))
		return GP_EIO;
	return *fail ? gp__error(GP_EFORMAT, "the producer failed") : 0;
}

/* a text made as it is written; a producer failing after writing leaves the old file */
static void test_with(void **state)
{
	const char *p = path_of("made.json");
	int fail = 0;

	(void)state;
	put(p, "old", 0600);
	assert_int_equal(gp_file_write_atomic_with(p, produce_pieces, &fail), 0);
	assert_contents(p, "ab");
	fail = 1;
	assert_int_equal(gp_file_write_atomic_with(p, produce_pieces, &fail), GP_EFORMAT);
	assert_string_equal(gp_last_error(), "the producer failed");
	assert_contents(p, "ab");
	assert_int_equal(temps_in(dir), 0);
	assert_int_equal(gp_file_write_atomic_with(p, NULL, NULL), GP_EINVAL);
	unlink(p);
}

static void check_full(const char *d, const char *target, size_t big, int want_errno)
{
	struct gp_value *v = big_value(big);
	char *data = malloc(big);
	struct gp__lockfile *lk;
	int rc;

	assert_non_null(data);
	memset(data, 'x', big);
	put(target, "old", 0640);
	errno = 0;
	assert_int_equal(gp_file_write_atomic(target, data, big), GP_EIO);
	assert_int_equal(errno, want_errno);
	assert_contents(target, "old");
	assert_int_equal(temps_in(d), 0);
	/* the same through hold, write and commit: the commit fails and cleans up */
	assert_int_equal(gp__lockfile_hold(target, &lk), 0);
	rc = gp__lockfile_write(lk, data, big);
	if (rc == 0)
		rc = gp__lockfile_commit(lk);
	else
		assert_int_equal(gp__lockfile_commit(lk), GP_EIO);
	assert_int_equal(rc, GP_EIO);
	assert_contents(target, "old");
	assert_int_equal(temps_in(d), 0);
	assert_int_equal(mode_of(target), 0640);
	/* a report written as it is made fails part way: the old file stays, nothing is left */
	errno = 0;
	assert_int_equal(gp_file_write_atomic_json(target, v, GP_JSON_PRETTY), GP_EIO);
	assert_int_equal(errno, want_errno);
	assert_contents(target, "old");
	assert_int_equal(temps_in(d), 0);
	assert_int_equal(mode_of(target), 0640);
	gp_value_free(v);
	free(data);
}

static void test_full_tmpfs(void **state)
{
	const char *d = path_of("tmpfs");

	(void)state;
	assert_int_equal(mkdir(d, 0777), 0);
	if (mount("tmpfs", d, "tmpfs", 0, "size=64k")) {
		rmdir(d);
		skip(); /* not allowed to mount here: test_file_size_limit fails a write instead */
	}
	check_full(d, path_of("tmpfs/out.json"), 1 << 20, ENOSPC);
	umount(d);
	rmdir(d);
}

static void test_file_size_limit(void **state)
{
	struct rlimit old, small;
	void (*old_handler)(int);

	(void)state;
	/* RLIMIT_FSIZE: a write past 16 KiB fails with EFBIG (SIGXFSZ ignored) */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 16384;
	old_handler = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	check_full(dir, path_of("limited.json"), 1 << 20, EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_handler);
	unlink(path_of("limited.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_existing_mode),
		cmocka_unit_test(test_stream_and_rollback),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_bad_paths),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_full_tmpfs),
		cmocka_unit_test(test_file_size_limit),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_with),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
