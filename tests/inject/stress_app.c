/* SPDX-License-Identifier: MIT */
/*
 * stress_app.c - a program that is hard on the injected tracer, annotated
 * with include/gpuprof/annotate.h (no CUDA), for tests/e2e/t0312-inject-fds.sh
 * and t0317-inject-stress.sh. It does to its file descriptors what daemons,
 * test harnesses and subprocess-heavy programs do, and checks that its own
 * files stay its own.
 *
 * usage:
 *   stress_app fds closerange|closefrom|dup2 LOG
 *     one range, then closes every descriptor above 2 (a loop of close(2)
 *     up to 1023, as Python's os.closerange; or closefrom(3)), or dup2()s
 *     LOG over every one of them; then writes 50 lines to LOG, each inside
 *     a range. Prints "fds MODE: LOG has N bytes", exits 3.
 *   stress_app daemon LOG
 *     one range, then closes every descriptor, 0 to 2 included, as a daemon
 *     does, waits for the tracer to find its own gone (and reopen it), then
 *     opens /dev/null as its standard input and dup()s it as its output:
 *     these must get 0, 1 and 2, not a number the tracer took. Writes
 *     "daemon: 0 1 2" to LOG (its stdout is gone), exits 3.
 *   stress_app exec LOG
 *     one range, then execs itself as "execd LOG N": the new image must hold
 *     no descriptor of the tracer's. Exits 4 there, after 10 ranges;
 *     prints "execd: leaked N" (descriptors above 2 more than the first
 *     image was started with).
 *   stress_app stress THREADS RANGES
 *     THREADS threads, each RANGES times: a range "outer" holding a range
 *     "inner", a counter sample every 16th, a frame mark every 64th, a 1 ms
 *     sleep every 256th. The
 *     main thread meanwhile churns descriptors (opens, dup2 over low
 *     numbers, closefrom(3) now and then) and forks children, half of which
 *     exec /bin/true. Prints "stress THREADS RANGES: ok", exits 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof/annotate.h"

static int write_line(int fd, int i)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "line %d\n", i);

	return write(fd, buf, (size_t)n) == n ? 0 : -1;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static int mode_daemon(const char *log)
{
	char line[64];
	int in, out, err, fd, n;

	GPUPROF_RANGE_PUSH("before");
	GPUPROF_RANGE_POP();
	for (int k = 0; k < 1024; k++)
		close(k);
	usleep(100000); /* the tracer's passes (the test's 10 ms flushes) */
	in = open("/dev/null", O_RDWR);
	out = dup(in);
	err = dup(in);
	GPUPROF_RANGE_PUSH("after");
	GPUPROF_RANGE_POP();
	usleep(50000);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	n = snprintf(line, sizeof(line), "daemon: %d %d %d\n", in, out, err);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		return 1;
	close(fd);
	return 3;
}

static int mode_fds(const char *how, const char *log)
{
	int fd;

	GPUPROF_RANGE_PUSH("before");
	GPUPROF_RANGE_POP();
	if (!strcmp(how, "closerange")) {
		for (int k = 3; k < 1024; k++)
			close(k);
	} else if (!strcmp(how, "closefrom")) {
		closefrom(3);
	} else if (!strcmp(how, "dup2")) {
		int l = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (l < 0)
			return 1;
		for (int k = 3; k < 1024; k++)
			if (k != l)
				dup2(l, k);
		/* the program's own descriptors stay what it made them, until it closes them */
		GPUPROF_RANGE_PUSH("dup2ed");
		usleep(50000);
		GPUPROF_RANGE_POP();
		for (int k = 3; k < 1024; k++)
			if (k != l)
				close(k);
		close(l);
	} else {
		return 2;
	}
	/* no O_TRUNC: what anything wrote into LOG through the dup2()ed numbers stays there */
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return 1;
	for (int i = 0; i < 50; i++) {
		GPUPROF_RANGE_PUSH("line");
		if (write_line(fd, i))
			return 1;
		usleep(2000); /* across the tracer's flushes (GPUPROF_FLUSH_MS in the test) */
		GPUPROF_RANGE_POP();
	}
	close(fd);
	printf("fds %s: %s has %ld bytes\n", how, log, file_size(log));
	return 3;
}

/* descriptors above 2 open now, but for the one reading the directory */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d))
			n++;
	closedir(d);
	return n;
}

static int mode_exec(const char *log, char **argv)
{
	char inherited[16];
	char *args[] = { argv[0], (char *)"execd", (char *)log, inherited, NULL };

	/* what this process was started with (a test harness may pass some on) */
	snprintf(inherited, sizeof(inherited), "%d", count_fds());
	GPUPROF_RANGE_PUSH("before-exec");
	usleep(1000);
	GPUPROF_RANGE_POP();
	/* an exec loses what the tracer has not written yet: leave it a flush (the test's 10 ms) */
	usleep(100000);
	fflush(stdout);
	execv("/proc/self/exe", args);
	return 1;
}

static int mode_execd(int inherited)
{
	int leaked = count_fds() - inherited;

	for (int i = 0; i < 10; i++) {
		GPUPROF_RANGE_PUSH("after-exec");
		usleep(500);
		GPUPROF_RANGE_POP();
	}
	printf("execd: leaked %d\n", leaked);
	return 4;
}

static long g_ranges;
static atomic_int g_running;

static void *stress_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < g_ranges; i++) {
		GPUPROF_RANGE_PUSH("outer");
		GPUPROF_RANGE_PUSH("inner");
		if (i % 16 == 0)
			GPUPROF_COUNTER("depth", (double)i);
		GPUPROF_RANGE_POP();
		if (i % 64 == 0)
			GPUPROF_FRAME_NAMED("tick");
		GPUPROF_RANGE_POP();
		if (i % 256 == 255) {
			/* paced, so that the main thread's churn and forks fall in between */
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	atomic_fetch_sub(&g_running, 1);
	return NULL;
}

static void churn(unsigned k)
{
	int fds[5];

	for (int i = 0; i < 5; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	/* over a low number, which may be the tracer's: it must notice and reopen */
	if (fds[0] >= 0)
		dup2(fds[0], 3 + (int)(k % 16));
	for (int i = 0; i < 5; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (k % 8 == 0)
		closefrom(3);
}

static void fork_one(unsigned k)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* a forked child records nothing, and must not hang or write the parent's file */
		GPUPROF_RANGE_PUSH("child");
		GPUPROF_RANGE_POP();
		if (k % 2)
			execl("/bin/true", "true", (char *)NULL);
		_exit(0);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

static int mode_stress(int threads, long ranges)
{
	pthread_t th[64];
	unsigned k = 0;

	if (threads < 1 || threads > 64 || ranges < 1)
		return 2;
	g_ranges = ranges;
	/* the recorder is loaded (dlopen) on the first call: not while closefrom() runs */
	GPUPROF_RANGE_PUSH("start");
	GPUPROF_RANGE_POP();
	atomic_store(&g_running, threads);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, stress_thread, NULL))
			return 1;
	while (atomic_load(&g_running) > 0) {
		struct timespec ts = { 0, 2000000 };

		churn(k);
		if (k % 16 == 0)
			fork_one(k / 16);
		k++;
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("stress %d %ld: ok (%u churns)\n", threads, ranges, k);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "fds"))
		return mode_fds(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "daemon"))
		return mode_daemon(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "exec"))
		return mode_exec(argv[2], argv);
	if (argc == 4 && !strcmp(argv[1], "execd"))
		return mode_execd(atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "stress"))
		return mode_stress(atoi(argv[2]), atol(argv[3]));
	fprintf(stderr,
	        "usage: stress_app fds closerange|closefrom|dup2 LOG | daemon LOG | exec LOG "
	        "| stress THREADS RANGES\n");
	return 2;
}
