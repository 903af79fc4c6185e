/* SPDX-License-Identifier: MIT */
/*
 * bench_annotate.c - what an annotation (include/gpuprof/annotate.h) costs the
 * calling thread: ns per push+pop pair, per frame mark and per counter
 * sample, each the median over RUNS runs of N calls in a tight loop (the
 * spread is given by the min, the 10th and 90th percentiles and the max).
 * With no tool attached this is the header's one load and one branch per
 * call; under `gpuprof run` (GPUPROF_ANNOTATE_LIBRARY set) it is the
 * recorder's whole path. bench/bench_annotate.sh runs both and compares
 * with the budgets of DESIGN.md (push+pop <= 2 ns / <= 50 ns).
 *
 * While recording, every call makes a record the writer thread must drain
 * (48 bytes per range edge or mark, 32 per counter sample): a loop of 10^7
 * pairs would make about 1 GB in a few hundred ms, past the tracer's memory
 * bound, after which calls take the cheaper "dropped" path. So a recording
 * run uses a smaller N and waits PAUSE_MS between runs (untimed) for the
 * writer to catch up; the script checks that nothing was dropped. The wait
 * spins on the clock, as a program that computes between its annotations
 * would; with -s it sleeps instead, which on a VM lets the core go idle and
 * makes the first microseconds after the wake-up slower (colder caches, a
 * lower clock), so the medians are higher and more spread.
 *
 * usage: bench_annotate [-r RUNS] [-n N] [-p PAUSE_MS] [-s] [-w push|frame|counter]...
 * Prints one JSON line per measurement, then "attached 0|1".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof/annotate.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The loops: noinline, so that the compiler cannot merge or hoist the calls across runs. */
static __attribute__((noinline)) void loop_push(long n)
{
	for (long i = 0; i < n; i++) {
		GPUPROF_RANGE_PUSH("bench");
		GPUPROF_RANGE_POP();
	}
}

static __attribute__((noinline)) void loop_frame(long n)
{
	for (long i = 0; i < n; i++)
		GPUPROF_FRAME_NAMED("bench frame");
}

static __attribute__((noinline)) void loop_counter(long n)
{
	for (long i = 0; i < n; i++)
		GPUPROF_COUNTER("bench counter", (double)i);
}

/* A quantile of sorted @p v (linear between the closest ranks). */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static bool g_sleep; /* -s: sleep between runs, instead of spinning */

static void pause_for(int ms)
{
	double end = now_ns() + ms * 1e6;

	if (g_sleep)
		usleep((useconds_t)ms * 1000);
	else
		while (now_ns() < end)
			;
}

static void measure(const char *what, void (*fn)(long), int runs, long n, int pause_ms)
{
	double *ns = calloc((size_t)runs, sizeof(*ns));

	if (!ns) {
		perror("bench_annotate");
		exit(1);
	}
	fn(n < 1000 ? n : 1000); /* the first call: the init, and the site's registration */
	if (pause_ms)
		pause_for(pause_ms);
	for (int r = 0; r < runs; r++) {
		double t0 = now_ns();

		fn(n);
		ns[r] = (now_ns() - t0) / (double)n;
		if (pause_ms)
			pause_for(pause_ms);
	}
	qsort(ns, (size_t)runs, sizeof(*ns), cmp_d);
	printf("{\"what\":\"%s\",\"runs\":%d,\"n\":%ld,\"median_ns\":%.3f,\"min_ns\":%.3f,"
	       "\"p10_ns\":%.3f,\"p90_ns\":%.3f,\"max_ns\":%.3f}\n",
	       what, runs, n, quantile(ns, runs, 0.5), ns[0], quantile(ns, runs, 0.1),
	       quantile(ns, runs, 0.9), ns[runs - 1]);
	fflush(stdout);
	free(ns);
}

int main(int argc, char **argv)
{
	int runs = 31, pause_ms = 0, opt, nwhat = 0;
	long n = 10000000;
	const char *what[3];

	while ((opt = getopt(argc, argv, "r:n:p:sw:")) != -1) {
		switch (opt) {
		case 'r':
			runs = atoi(optarg);
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 'p':
			pause_ms = atoi(optarg);
			break;
		case 's':
			g_sleep = true;
			break;
		case 'w':
			if (nwhat < 3)
				what[nwhat++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_annotate [-r RUNS] [-n N] [-p PAUSE_MS] [-s] "
			                "[-w push|frame|counter]...\n");
			return 2;
		}
	}
	if (runs < 1 || n < 1 || pause_ms < 0) {
		fprintf(stderr, "bench_annotate: RUNS, N must be > 0\n");
		return 2;
	}
	if (!nwhat) {
		what[nwhat++] = "push";
		what[nwhat++] = "frame";
		what[nwhat++] = "counter";
	}
	for (int i = 0; i < nwhat; i++) {
		if (!strcmp(what[i], "push"))
			measure("push_pop", loop_push, runs, n, pause_ms);
		else if (!strcmp(what[i], "frame"))
			measure("frame", loop_frame, runs, n, pause_ms);
		else if (!strcmp(what[i], "counter"))
			measure("counter", loop_counter, runs, n, pause_ms);
		else
			fprintf(stderr, "bench_annotate: unknown measurement '%s'\n", what[i]);
	}
	printf("attached %d\n", gpuprof_annotate_attached());
	return 0;
}
