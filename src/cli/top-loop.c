/* SPDX-License-Identifier: MIT */
/*
 * top-loop.c - what the modes of `gpuprof top` share: the stop conditions
 * (SIGINT, SIGTERM, SIGHUP, --count, --duration) and the loop that hands each
 * new sample to a mode (JSON lines in cmd-top.c, the timeline in
 * top-record.c). The modes and cmd-top.c call in here; nothing here calls
 * them back, so the entry point and its helpers form no cycle.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"
#include "top.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void gp_top_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int64_t gp_top_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

bool gp_top_should_stop(const struct gp_top_opts *o, uint64_t taken, int64_t start_ns)
{
	if (stop_signal)
		return true;
	if (o->count && taken >= o->count)
		return true;
	if (o->duration_s && gp_top_mono_ns() - start_ns >= (int64_t)o->duration_s * 1000000000LL)
		return true;
	return false;
}

/*
 * The next sample after @p seq, waiting in short slices so that a signal or
 * the duration ends the wait. @return 0, 1 when stopping, -1 on error (printed).
 */
static int next_sample(struct gp_sampler *s, const struct gp_top_opts *o, uint64_t seq,
                       int64_t start_ns, struct gp_sample *out)
{
	for (;;) {
		int rc;

		if (gp_top_should_stop(o, 0, start_ns))
			return 1;
		rc = gp_sampler_wait(s, seq, 200, out);
		if (rc == 0)
			return 0;
		if (rc != GP_ETRUNC)
			return error("sampler: %s", gp_last_error());
	}
}

int gp_top_each_sample(struct gp_sampler *s, const struct gp_top_opts *o,
                       int (*fn)(void *arg, const struct gp_sample *smp), void *arg)
{
	struct gp_sample *smp = xmalloc(sizeof(*smp));
	int64_t start = gp_top_mono_ns();
	uint64_t seq = 0, n = 0;
	int rc = 0;

	while (!gp_top_should_stop(o, n, start)) {
		rc = next_sample(s, o, seq, start, smp);
		if (rc) {
			rc = rc > 0 ? 0 : rc;
			break;
		}
		seq = smp->seq;
		if ((rc = fn(arg, smp)))
			break;
		n++;
	}
	free(smp);
	return rc;
}
