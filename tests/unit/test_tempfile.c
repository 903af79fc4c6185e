/* SPDX-License-Identifier: MIT */
/*
 * test_tempfile.c - struct gp__tempfile (util/tempfile.c), the registered
 * temporary file under util/lockfile.c: the name beside the target, the mode
 * of a new file, close-on-exec, rename and delete, errors that leave nothing
 * behind, the registry growing past one block, and
 * gp_tempfile_cleanup_signal(): from a real signal handler in a child that
 * then dies of the signal, never for a forked child's parent's files, and a
 * rename after it fails cleanly. test_lockfile.c tests the writer above it.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuprof/gpuprof.h"
#include "util/tempfile.h"

static char dir[] = "/tmp/gp-test-tempfile.XXXXXX";

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
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* the number of entries of dir (hidden ones included) */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void write_str(struct gp__tempfile *t, const char *s)
{
	assert_int_equal(write(gp__tempfile_fd(t), s, strlen(s)), (ssize_t)strlen(s));
}

/* closes (synced) and renames @p t over @p target: @return 0 or an errno value */
static int commit(struct gp__tempfile *t, const char *target)
{
	int e = gp__tempfile_close(t, true);

	if (e) {
		gp__tempfile_delete(t);
		return e;
	}
	return gp__tempfile_rename(t, target);
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

static void test_commit(void **state)
{
	struct gp__tempfile *t = NULL;
	char *target = strdup(path_of("out.json"));
	const char *tp;
	struct stat st;
	mode_t um;

	(void)state;
	um = umask(027);
	assert_int_equal(gp__tempfile_create(target, &t), 0);
	umask(um);
	tp = gp__tempfile_path(t);
	/* .NAME.tmp.XXXXXX beside NAME */
	assert_int_equal(strncmp(tp, dir, strlen(dir)), 0);
	assert_int_equal(strncmp(tp + strlen(dir), "/.out.json.tmp.", 15), 0);
	assert_int_equal(strlen(tp), strlen(dir) + 15 + 6);
	assert_int_equal(stat(tp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_true(fcntl(gp__tempfile_fd(t), F_GETFD) & FD_CLOEXEC);
	assert_int_equal(access(target, F_OK), -1);
	write_str(t, "new");
	assert_int_equal(commit(t, target), 0);
	assert_contents(target, "new");
	assert_int_equal(entries(), 1);

	/* replaces an existing file; through the stream */
	{
		FILE *f;

		assert_int_equal(gp__tempfile_create(target, &t), 0);
		assert_int_equal(gp__tempfile_stream(t, &f), 0);
		fputs("newer", f);
		assert_int_equal(entries(), 2);
		assert_int_equal(commit(t, target), 0);
		assert_contents(target, "newer");
		assert_int_equal(entries(), 1);
	}
	unlink(target);
	free(target);
}

static void test_discard_and_errors(void **state)
{
	struct gp__tempfile *t = (struct gp__tempfile *)1;
	char *target = strdup(path_of("keep"));
	FILE *f;

	(void)state;
	gp__tempfile_delete(NULL);
	/* discard leaves the target as it was */
	f = fopen(target, "w");
	fputs("old", f);
	fclose(f);
	assert_int_equal(gp__tempfile_create(target, &t), 0);
	write_str(t, "half");
	gp__tempfile_delete(t);
	assert_contents(target, "old");
	assert_int_equal(entries(), 1);

	/* no file name, no directory */
	t = (struct gp__tempfile *)1;
	assert_int_equal(gp__tempfile_create(path_of(""), &t), GP_EINVAL);
	assert_null(t);
	assert_int_equal(gp__tempfile_create("", &t), GP_EINVAL);
	assert_int_equal(gp__tempfile_create(path_of("none/x"), &t), GP_EIO);
	assert_non_null(strstr(gp_last_error(), "cannot create a temporary file next to"));
	assert_null(t);

	/* a commit that cannot rename (the target is a non-empty directory) removes the temp */
	assert_int_equal(mkdir(path_of("d"), 0777), 0);
	assert_int_equal(mkdir(path_of("d/sub"), 0777), 0);
	assert_int_equal(gp__tempfile_create(path_of("d"), &t), 0);
	write_str(t, "x");
	assert_int_equal(commit(t, path_of("d")), EISDIR);
	assert_int_equal(entries(), 2);
	rmdir(path_of("d/sub"));
	rmdir(path_of("d"));
	unlink(target);
	free(target);
	assert_int_equal(entries(), 0);
}

static void test_many(void **state)
{
	struct gp__tempfile *t[70];
	char name[32];
	size_t i;

	(void)state;
	/* more than a block of slots: the registry grows, and the handler sees them all */
	for (i = 0; i < 70; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		assert_int_equal(gp__tempfile_create(path_of(name), &t[i]), 0);
	}
	assert_int_equal(entries(), 70);
	for (i = 0; i < 70; i += 2)
		gp__tempfile_delete(t[i]);
	assert_int_equal(entries(), 35);
	errno = 1234;
	gp_tempfile_cleanup_signal();
	assert_int_equal(errno, 1234);
	assert_int_equal(entries(), 0);
	/* after the handler: a commit fails, a discard is quiet, the slots are reusable */
	assert_int_equal(commit(t[1], path_of("f1")), ENOENT);
	for (i = 3; i < 70; i += 2)
		gp__tempfile_delete(t[i]);
	assert_int_equal(gp__tempfile_create(path_of("again"), &t[0]), 0);
	assert_int_equal(commit(t[0], path_of("again")), 0);
	unlink(path_of("again"));
	assert_int_equal(entries(), 0);
}

static void on_term(int sig)
{
	gp_tempfile_cleanup_signal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void test_signal(void **state)
{
	struct gp__tempfile *t = NULL;
	int status, p[2];
	pid_t pid;
	char c;

	(void)state;
	/* a forked child's cleanup leaves its parent's files alone */
	assert_int_equal(gp__tempfile_create(path_of("parent"), &t), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		gp_tempfile_cleanup_signal();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(access(gp__tempfile_path(t), F_OK), 0);

	/* a child killed by SIGTERM removes its own file, then dies of it */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gp__tempfile *mine = NULL;

		signal(SIGTERM, on_term);
		if (gp__tempfile_create(path_of("child"), &mine))
			_exit(2);
		if (write(p[1], "x", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	assert_int_equal(entries(), 2);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_int_equal(entries(), 1);
	assert_int_equal(commit(t, path_of("parent")), 0);
	unlink(path_of("parent"));
	assert_int_equal(entries(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_discard_and_errors),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_signal),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
