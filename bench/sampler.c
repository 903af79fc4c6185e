/* SPDX-License-Identifier: MIT */
/*
 * sampler.c (bench_sampler) - what the sampler costs: the time per sample
 * (the process's CPU time per sample taken, and the sampler's own timer of
 * the last one) and the share of one core the process uses while the
 * sampling thread runs at a given rate: the process's CPU time (getrusage)
 * over the wall time while its main thread sleeps.
 *
 * Before each rate, the floor: the same process with a thread that only wakes
 * up at that rate (a timed wait on a condition variable, as the sampler's
 * thread sleeps) and does nothing, so that the sampler's own cost can be told
 * from what a wake-up costs on the machine (on a VM, tens of microseconds).
 *
 * usage: bench_sampler [-l NVML_LIBRARY] [-s SECONDS] [-p PID] INTERVAL_MS...
 * The NVML library is GPUPROF_NVML_LIBRARY's default unless -l is given
 * (bench/bench_sampler.sh passes the fake one of the tests).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof/sample.h"

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct idle {
	unsigned interval_ms, n;
};

static void *idle_main(void *arg)
{
	const struct idle *id = arg;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t ca;
	pthread_cond_t cv;
	struct timespec t;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cv, &ca);
	clock_gettime(CLOCK_MONOTONIC, &t);
	pthread_mutex_lock(&mu);
	for (unsigned i = 0; i < id->n; i++) {
		t.tv_nsec += (long)id->interval_ms * 1000000L;
		while (t.tv_nsec >= 1000000000L) {
			t.tv_nsec -= 1000000000L;
			t.tv_sec++;
		}
		while (pthread_cond_timedwait(&cv, &mu, &t) == 0)
			;
	}
	pthread_mutex_unlock(&mu);
	pthread_cond_destroy(&cv);
	pthread_condattr_destroy(&ca);
	return NULL;
}

/* CPU time per wake-up of a thread that only wakes up every @p interval ms */
static double idle_floor_us(unsigned interval, double secs)
{
	struct idle id = { interval, 0 };
	pthread_t t;
	double c0, c1;

	id.n = (unsigned)(secs * 1000 / interval);
	if (id.n == 0)
		id.n = 1;
	c0 = cpu_s();
	if (pthread_create(&t, NULL, idle_main, &id))
		return -1;
	pthread_join(t, NULL);
	c1 = cpu_s();
	return (c1 - c0) / id.n * 1e6;
}

static int run(const char *lib, unsigned interval, double secs, int pid)
{
	struct gp_sampler_opts o;
	struct gp_sampler *s = NULL;
	struct gp_sample *smp = malloc(sizeof(*smp));
	uint64_t seq0, seq1, missed;
	double c0, w0, c1, w1, floor_us = idle_floor_us(interval, secs < 5 ? secs : 5), per;
	unsigned ngpu;
	struct timespec ts;

	if (!smp)
		return 1;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.interval_ms = interval;
	o.nvml_library = lib;
	o.watch_pid = pid;
	if (gp_sampler_open(&o, &s) || gp_sampler_start(s) || gp_sampler_wait(s, 0, 10000, smp)) {
		fprintf(stderr, "bench_sampler: %s\n", gp_last_error());
		return 1;
	}
	/*
	 * From the first sample on, this thread sleeps the whole time: the
	 * process's CPU time is then the sampler's (its sampling thread and
	 * the once-a-second thread for process lists).
	 */
	seq0 = smp->seq;
	c0 = cpu_s();
	w0 = wall_s();
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts))
		;
	c1 = cpu_s();
	w1 = wall_s();
	gp_sampler_latest(s, smp);
	seq1 = smp->seq;
	ngpu = smp->ngpus;
	missed = gp_sampler_missed(s);
	gp_sampler_close(s);
	per = seq1 > seq0 ? (c1 - c0) / (seq1 - seq0) * 1e6 : 0.0;
	printf("%6u ms  %8.1f Hz  %2u GPUs  %7llu samples  CPU per sample %7.1f us"
	       " (its own timer: %6.1f us; an idle wake-up: %5.1f us, above it: %6.1f us)"
	       "  %8.4f %% of a core  missed %llu\n",
	       interval, (seq1 - seq0) / (w1 - w0), ngpu, (unsigned long long)(seq1 - seq0), per,
	       smp->cost_ns / 1e3, floor_us, per - floor_us, 100 * (c1 - c0) / (w1 - w0),
	       (unsigned long long)missed);
	free(smp);
	return 0;
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	double secs = 10;
	int pid = 0, c, rc = 0;

	while ((c = getopt(argc, argv, "l:s:p:")) != -1) {
		switch (c) {
		case 'l':
			lib = optarg;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'p':
			pid = atoi(optarg);
			break;
		default:
			fprintf(stderr,
			        "usage: bench_sampler [-l NVML_LIBRARY] [-s SECONDS] [-p PID] "
			        "INTERVAL_MS...\n");
			return 2;
		}
	}
	if (optind >= argc || secs <= 0) {
		fprintf(stderr, "bench_sampler: give one or more intervals in ms\n");
		return 2;
	}
	for (int i = optind; i < argc && !rc; i++)
		rc = run(lib, (unsigned)atoi(argv[i]), secs, pid);
	return rc;
}
