/* SPDX-License-Identifier: MIT */
/*
 * annotate_app.c - a CPU-only program annotated with include/gpuprof/annotate.h
 * (no CUDA, no NVTX), for tests/e2e/t0330-annotate.sh and the benchmark's
 * sanity check. Prints one line and exits 5, so that the tests can check
 * that output and exit code pass through `gpuprof run`.
 *
 * usage: annotate_app [ranges | marks | clock] [N]
 *   ranges (default): N iterations (default 5) of a range "step" holding a
 *     range "decode" and a sample i of the counter "queue", each followed by
 *     a frame mark "frame"; a second thread pushes a range "worker" twice.
 *   marks: N iterations delimited by frame marks "tick" only (the iteration
 *     i is the span after the i-th mark), each holding a range "work" and a
 *     sample i of "queue".
 *   clock: N ranges "timed" of about 2 ms, each between two reads of
 *     CLOCK_MONOTONIC printed as "clock T0 T1" (ns), so that the test can
 *     check that the capture's times are on that clock (the tracer may read
 *     the TSC and convert).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof/annotate.h"

static void work(void)
{
	usleep(300);
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		GPUPROF_SCOPE("worker");
		work();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ranges";
	int n = argc > 2 ? atoi(argv[2]) : 5;
	pthread_t th;

	if (!strcmp(mode, "clock")) {
		for (int i = 0; i < n; i++) {
			long long t0 = mono_ns(), t1;

			GPUPROF_RANGE_PUSH("timed");
			usleep(2000);
			GPUPROF_RANGE_POP();
			t1 = mono_ns();
			printf("clock %lld %lld\n", t0, t1);
		}
	} else if (!strcmp(mode, "marks")) {
		for (int i = 0; i < n; i++) {
			GPUPROF_FRAME_NAMED("tick");
			GPUPROF_RANGE_PUSH("work");
			work();
			GPUPROF_RANGE_POP();
			GPUPROF_COUNTER("queue", i);
		}
		GPUPROF_FRAME_NAMED("tick"); /* ends the last iteration */
	} else {
		if (pthread_create(&th, NULL, worker, NULL) != 0)
			return 1;
		for (int i = 0; i < n; i++) {
			GPUPROF_RANGE_PUSH("step");
			GPUPROF_RANGE_PUSH("decode");
			work();
			GPUPROF_RANGE_POP();
			GPUPROF_COUNTER("queue", i);
			GPUPROF_RANGE_POP();
			GPUPROF_FRAME();
		}
		pthread_join(th, NULL);
	}
	printf("annotate_app %s %d: attached %d\n", mode, n, gpuprof_annotate_attached());
	return 5;
}
