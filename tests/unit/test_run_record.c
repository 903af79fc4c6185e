/* SPDX-License-Identifier: MIT */
/*
 * test_run_record.c - run.json's writer and reader (source/run.c,
 * gpuprof/run.h): a record written and read back whole; the room a version
 * that another will follow keeps after the document; options structs of
 * another size; a last version written in place when the atomic write
 * fails, and state "unknown" when it does not fit there either; the
 * guardian's read-modify-write; allocation failures.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/run.h"
#include "gpuprof/value.h"
#include "source/source.h"

#define RESERVE 4096

static char dir[] = "/tmp/gp-test-run-record.XXXXXX";

/* DIR/@p name */
static const char *subdir_path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	return tu_tmpdir_make(dir);
}

static int teardown(void **state)
{
	(void)state;
	umount(subdir_path("full")); /* when test_in_place failed */
	return tu_tmpdir_remove(dir);
}

/* DIR/@p name, made empty */
static const char *subdir(const char *name)
{
	static char buf[256];
	char cmd[600];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s'", buf, buf);
	assert_int_equal(system(cmd), 0);
	return buf;
}

static char *slurp(const char *d, size_t *len)
{
	char path[600], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/run.json", d);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct gp_value *read_back(const char *d)
{
	struct gp_value *v = NULL;

	assert_int_equal(gp__run_json_read(d, &v), 0);
	assert_non_null(v);
	return v;
}

static bool is_null(const struct gp_value *v, const char *path)
{
	const struct gp_value *x = gp_value_path(v, path);

	return x && gp_value_type(x) == GP_VALUE_NULL;
}

/* a record of `sh -c ...` that has started: state running */
static struct gp_run_record *started(const char *d)
{
	static const char *const argv[] = { "sh", "-c", "exit 3" };
	struct gp_run_options o = { .size = sizeof(o) };
	struct gp_run_record *rec = NULL;

	assert_int_equal(gp_run_record_new(d, &rec), 0);
	assert_int_equal(gp_run_record_set_command(rec, argv, 3, "/bin/sh"), 0);
	assert_int_equal(gp_run_record_set_host(rec, "node1", "/work"), 0);
	assert_int_equal(gp_run_record_set_tag(rec, "model", "resnet"), 0);
	assert_int_equal(gp_run_record_set_tag(rec, "batch", "8"), 0);
	o.sample_ms = 100;
	o.have_delay = true;
	o.delay_ns = 0;
	o.capture_range = "nvtx:step";
	o.schedule = "wait=1,warmup=1,active=2,repeat=0";
	o.from_config = 1u << GP_RUN_OPTION_SAMPLE_MS | 1u << GP_RUN_OPTION_TAGS;
	assert_int_equal(gp_run_record_set_options(rec, &o), 0);
	assert_int_equal(gp_run_record_set_injector(rec, "/lib/inject.so", NULL, true, true), 0);
	assert_int_equal(gp_run_record_set_env(rec, "GPUPROF_CAPTURE_DIR=/x=y"), 0);
	assert_int_equal(gp_run_record_set_start(rec, 1700000000123456789LL, 1000, 4242), 0);
	assert_int_equal(gp_run_record_set_state(rec, GP_RUN_RUNNING, 0, NULL), 0);
	assert_int_equal(gp_run_record_set_sampler(rec, "metrics.jsonl", 0, "no NVML"), 0);
	return rec;
}

/* ... that has ended: exited 3, one other process killed, one left running, report written */
static void ended(struct gp_run_record *rec)
{
	assert_int_equal(gp_run_record_set_end(rec, 1700000001123456789LL, 2000000001), 0);
	assert_int_equal(gp_run_record_set_state(rec, GP_RUN_EXITED, 3 << 8, NULL), 0);
	assert_int_equal(gp_run_record_add_process(rec, 4243, SIGKILL, 1500), 0);
	assert_int_equal(gp_run_record_add_not_waited(rec, 4244, "sleep 10", true), 0);
	assert_int_equal(gp_run_record_set_wait(rec, 2, false), 0);
	assert_int_equal(gp_run_record_set_sampler(rec, "metrics.jsonl", 10, "no NVML"), 0);
	assert_int_equal(gp_run_record_set_report(rec, GP_RUN_REPORT_WRITTEN, NULL, true), 0);
}

static void test_round_trip(void **state)
{
	const char *d = subdir("trip");
	struct gp_run_record *rec = started(d);
	enum gp_run_write_how how = GP_RUN_WRITE_NONE;
	struct gp_value *v;
	char *text;
	size_t len, i;

	(void)state;
	/* the first version: running, the room for the next after it */
	assert_int_equal(gp_run_record_write(rec, &how), 0);
	assert_int_equal(how, GP_RUN_WRITE_ATOMIC);
	text = slurp(d, &len);
	assert_true(len > RESERVE + 2);
	assert_int_equal(text[len - 1], '\n');
	for (i = len - 1 - RESERVE; i < len - 1; i++)
		assert_int_equal(text[i], ' ');
	assert_int_not_equal(text[len - 2 - RESERVE], ' ');
	free(text);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "schema"), GP_RUN_SCHEMA);
	assert_string_equal(tu_gets(v, "gpuprof_version"), gp_version());
	assert_string_equal(tu_gets(v, "state"), "running");
	assert_string_equal(tu_gets(v, "command/2"), "exit 3");
	assert_string_equal(tu_gets(v, "executable"), "/bin/sh");
	assert_string_equal(tu_gets(v, "hostname"), "node1");
	assert_string_equal(tu_gets(v, "tags/model"), "resnet");
	assert_string_equal(tu_gets(v, "environment/GPUPROF_CAPTURE_DIR"), "/x=y");
	assert_string_equal(tu_gets(v, "options/output"), d);
	assert_string_equal(tu_gets(v, "options/capture_range"), "nvtx:step");
	assert_string_equal(tu_gets(v, "options/wait"), "all");
	assert_int_equal(tu_geti(v, "options/delay_ns"), 0);
	assert_true(is_null(v, "options/duration_ns"));
	assert_true(is_null(v, "options/config"));
	assert_string_equal(tu_gets(v, "options/from_config/0"), "sample_ms");
	assert_string_equal(tu_gets(v, "options/from_config/1"), "tags");
	assert_string_equal(tu_gets(v, "start_time"), "2023-11-14T22:13:20.123456789Z");
	assert_int_equal(tu_geti(v, "pid"), 4242);
	assert_true(is_null(v, "end_time") && is_null(v, "wall_ns") && is_null(v, "exit_code"));
	assert_string_equal(tu_gets(v, "injector/path"), "/lib/inject.so");
	assert_int_equal(tu_geti(v, "sampler/interval_ms"), 100);
	assert_string_equal(tu_gets(v, "report/state"), "pending");
	assert_true(is_null(v, "report/file"));
	gp_value_free(v);

	/* the last: how it ended, and no room kept any more */
	ended(rec);
	assert_int_equal(gp_run_record_write(rec, &how), 0);
	assert_int_equal(how, GP_RUN_WRITE_ATOMIC);
	text = slurp(d, &len);
	assert_int_equal(text[len - 2], '}');
	assert_int_equal(text[len - 1], '\n');
	free(text);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "exited");
	assert_int_equal(tu_geti(v, "exit_code"), 3);
	assert_true(is_null(v, "exit_signal"));
	assert_int_equal(tu_geti(v, "wall_ns"), 2000000001 - 1000);
	assert_string_equal(tu_gets(v, "end_time"), "2023-11-14T22:13:21.123456789Z");
	assert_int_equal(tu_geti(v, "processes/0/pid"), 4243);
	assert_string_equal(tu_gets(v, "processes/0/state"), "signaled");
	assert_string_equal(tu_gets(v, "processes/0/exit_signal"), "SIGKILL");
	assert_int_equal(tu_geti(v, "processes_more"), 2);
	assert_string_equal(tu_gets(v, "not_waited/0/command"), "sleep 10");
	assert_true(gp_value_get_bool(gp_value_path(v, "not_waited/0/tracer"), false));
	assert_int_equal(tu_geti(v, "sampler/samples"), 10);
	assert_string_equal(tu_gets(v, "report/state"), "written");
	assert_string_equal(tu_gets(v, "report/file"), "report.json");
	assert_true(gp_value_get_bool(gp_value_path(v, "report/salvaged"), false));
	gp_value_free(v);

	/* a death by signal, with a core */
	assert_int_equal(gp_run_record_set_state(rec, GP_RUN_SIGNALED, SIGSEGV | 0x80, NULL), 0);
	assert_int_equal(gp_run_record_write(rec, NULL), 0);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "signaled");
	assert_string_equal(tu_gets(v, "exit_signal"), "SIGSEGV");
	assert_true(gp_value_get_bool(gp_value_path(v, "core_dumped"), false));
	assert_true(is_null(v, "exit_code"));
	gp_value_free(v);

	/* exec failed */
	assert_int_equal(gp_run_record_set_state(rec, GP_RUN_EXEC_FAILED, ENOENT, NULL), 0);
	assert_int_equal(gp_run_record_write(rec, NULL), 0);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "exec_failed");
	assert_string_equal(tu_gets(v, "exec_error"), strerror(ENOENT));
	gp_value_free(v);
	gp_run_record_free(rec);
}

static void test_bad_arguments(void **state)
{
	struct {
		struct gp_run_options o;
		uint64_t newer; /* a field of a later version */
	} big;
	struct gp_run_options old;
	struct gp_run_record *rec = NULL;
	struct gp_value *v;
	const char *d = subdir("args");

	(void)state;
	assert_int_equal(gp_run_record_new("", &rec), GP_EINVAL);
	assert_null(rec);
	assert_int_equal(gp_run_record_new(d, &rec), 0);
	assert_int_equal(gp_run_record_set_env(rec, "NOEQUALS"), GP_EINVAL);
	assert_int_equal(gp_run_record_set_env(rec, "=x"), GP_EINVAL);
	assert_int_equal(gp_run_record_set_tag(rec, "k", NULL), GP_EINVAL);
	assert_int_equal(gp_run_record_set_state(rec, (enum gp_run_state)99, 0, NULL), GP_EINVAL);
	assert_int_equal(gp_run_record_set_report(rec, (enum gp_run_report_state)99, NULL, false),
	                 GP_EINVAL);
	/* a later version's struct: fine while its new fields are zero */
	memset(&big, 0, sizeof(big));
	big.o.size = sizeof(big);
	big.o.sample_ms = 7;
	assert_int_equal(gp_run_record_set_options(rec, &big.o), 0);
	big.newer = 1;
	assert_int_equal(gp_run_record_set_options(rec, &big.o), GP_EINVAL);
	/* an earlier version's: the fields past its size read as their defaults */
	memset(&old, 0, sizeof(old));
	old.size = offsetof(struct gp_run_options, no_cuda);
	old.sample_ms = 9;
	old.wait_primary = true; /* past its size: not read */
	assert_int_equal(gp_run_record_set_options(rec, &old), 0);
	assert_int_equal(gp_run_record_set_options(rec, NULL), 0);
	assert_int_equal(gp_run_record_set_options(rec, &old), 0);
	assert_int_equal(gp_run_record_write(rec, NULL), 0);
	v = read_back(d);
	assert_int_equal(tu_geti(v, "options/sample_ms"), 9);
	assert_string_equal(tu_gets(v, "options/wait"), "all");
	assert_string_equal(tu_gets(v, "state"), "starting");
	assert_true(is_null(v, "pid"));
	gp_value_free(v);
	gp_run_record_free(rec);
	gp_run_record_free(NULL);
}

/*
 * Makes an atomic write into @p d fail while run.json in it stays writable in
 * place: a full file system (a small tmpfs on @p d, filled up, as root) or a
 * directory without write permission (as another user). *@p how says which
 * to undo. @return 0, or -1 when neither can be had here.
 */
enum no_room_how { NR_NONE, NR_CHMOD, NR_TMPFS };

static int no_room_prepare(const char *d, enum no_room_how *how)
{
	*how = NR_NONE;
	if (geteuid() != 0) {
		*how = NR_CHMOD;
		return 0;
	}
	if (mount("tmpfs", d, "tmpfs", 0, "size=64k"))
		return -1;
	*how = NR_TMPFS;
	return 0;
}

static void no_room_now(const char *d, enum no_room_how how)
{
	char path[600], block[4096];
	int fd;

	if (how == NR_CHMOD) {
		assert_int_equal(chmod(d, 0555), 0);
		return;
	}
	snprintf(path, sizeof(path), "%s/fill", d);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	memset(block, 'x', sizeof(block));
	while (write(fd, block, sizeof(block)) > 0)
		;
	/* the last partial block too */
	while (write(fd, block, 1) > 0)
		;
	close(fd);
}

static void no_room_undo(const char *d, enum no_room_how how)
{
	if (how == NR_CHMOD)
		chmod(d, 0755);
	else if (how == NR_TMPFS)
		umount(d);
}

static void test_in_place(void **state)
{
	const char *d = strdup(subdir("full"));
	struct gp_run_record *rec, *meas;
	enum gp_run_write_how how;
	enum no_room_how nr;
	struct gp_value *v;
	char *text, *pad, why[200];
	size_t len, len0;
	int rc;

	(void)state;
	if (no_room_prepare(d, &nr)) {
		free((char *)d);
		skip();
		return;
	}
	rec = started(d);
	assert_int_equal(gp_run_record_write(rec, &how), 0);
	assert_int_equal(how, GP_RUN_WRITE_ATOMIC);
	free(slurp(d, &len0));
	no_room_now(d, nr);

	/* the first version cannot be written: nothing to write in place into */
	assert_int_not_equal(gp_run_record_write(rec, &how), 0);
	assert_int_equal(how, GP_RUN_WRITE_NONE);

	/* the last goes in place, padded with spaces to the size the first kept */
	ended(rec);
	gp_clear_error();
	assert_int_equal(gp_run_record_write(rec, &how), 0);
	assert_int_equal(how, GP_RUN_WRITE_IN_PLACE);
	assert_non_null(strstr(gp_last_error(), "run.json"));
	text = slurp(d, &len);
	assert_int_equal(len, len0);
	assert_int_equal(text[len - 1], ' ');
	free(text);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "exited");
	assert_int_equal(tu_geti(v, "exit_code"), 3);
	gp_value_free(v);

	/*
	 * A last version a little larger than that room (a tag of the right
	 * length, measured in a directory of a name as long), with a long
	 * state_reason: state "unknown" instead, with a shorter one and no end,
	 * fits.
	 */
	memset(why, 'w', sizeof(why) - 1);
	why[sizeof(why) - 1] = 0;
	assert_int_equal(gp_run_record_set_tag(rec, "pad", ""), 0);
	assert_int_equal(gp_run_record_set_state(rec, GP_RUN_EXITED, 3 << 8, why), 0);
	meas = started(subdir("meas"));
	ended(meas);
	assert_int_equal(gp_run_record_set_tag(meas, "pad", ""), 0);
	assert_int_equal(gp_run_record_set_state(meas, GP_RUN_EXITED, 3 << 8, why), 0);
	assert_int_equal(gp_run_record_write(meas, NULL), 0);
	free(slurp(subdir_path("meas"), &len));
	assert_true(len < len0);
	pad = calloc(len0 - len + 11, 1);
	assert_non_null(pad);
	memset(pad, 'p', len0 - len + 10);
	assert_int_equal(gp_run_record_set_tag(meas, "pad", pad), 0);
	assert_int_equal(gp_run_record_write(meas, NULL), 0);
	free(slurp(subdir_path("meas"), &len));
	assert_int_equal(len, len0 + 10);
	assert_int_equal(gp_run_record_set_tag(rec, "pad", pad), 0);
	free(pad);
	gp_run_record_free(meas);
	errno = 0;
	rc = gp_run_record_write(rec, &how);
	assert_int_not_equal(rc, 0);
	assert_int_equal(how, GP_RUN_WRITE_UNKNOWN);
	assert_int_not_equal(errno, 0);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "unknown");
	assert_non_null(strstr(tu_gets(v, "state_reason"), "could not write this file at the end"));
	assert_true(is_null(v, "end_time") && is_null(v, "exit_code"));
	gp_value_free(v);
	gp_run_record_free(rec);
	no_room_undo(d, nr);
	free((char *)d);
}

/* the guardian's rewrite: "running" becomes "unknown", everything else kept */
static void test_mark_unfinished(void **state)
{
	const char *d = subdir("guard");
	struct gp_run_record *rec = started(d);
	struct gp_value *v;
	bool changed = true;
	char *text;
	size_t len;

	(void)state;
	assert_int_equal(gp_run_record_write(rec, NULL), 0);
	assert_int_equal(gp_run_record_mark_unfinished(d, "killed", &changed), 0);
	assert_true(changed);
	text = slurp(d, &len);
	assert_int_equal(text[len - 2], '}'); /* no room kept: it is the last version */
	free(text);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "unknown");
	assert_string_equal(tu_gets(v, "state_reason"), "killed");
	assert_string_equal(tu_gets(v, "tags/model"), "resnet");
	assert_int_equal(tu_geti(v, "pid"), 4242);
	gp_value_free(v);

	/* another state, no file, no directory: left alone */
	ended(rec);
	assert_int_equal(gp_run_record_write(rec, NULL), 0);
	assert_int_equal(gp_run_record_mark_unfinished(d, "killed", &changed), 0);
	assert_false(changed);
	v = read_back(d);
	assert_string_equal(tu_gets(v, "state"), "exited");
	gp_value_free(v);
	assert_int_equal(gp_run_record_mark_unfinished("/nonexistent/dir", "x", &changed), 0);
	assert_false(changed);
	gp_run_record_free(rec);
}

/* every allocation failing in turn: a status, never a crash or a leak (ASan) */
static void test_alloc_failures(void **state)
{
	const char *d = subdir("alloc");
	struct gp_run_record *rec;
	long n;
	int rc;

	(void)state;
	for (n = 1; n < 10000; n++) {
		rec = NULL;
		gp__test_fail_alloc_after(n);
		rc = gp_run_record_new(d, &rec);
		if (rc == 0)
			rc = gp_run_record_set_tag(rec, "k", "v");
		if (rc == 0)
			rc = gp_run_record_add_process(rec, 1, 0, 5);
		if (rc == 0)
			rc = gp_run_record_set_env(rec, "A=b");
		if (rc == 0)
			rc = gp_run_record_write(rec, NULL);
		gp__test_fail_alloc_after(0);
		gp_run_record_free(rec);
		if (rc == 0)
			break;
		assert_int_equal(rc, GP_ENOMEM);
	}
	/* the hook reached the record's allocations: at least one failed before one passed */
	assert_true(n > 1 && n < 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_in_place),       cmocka_unit_test(test_mark_unfinished),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
