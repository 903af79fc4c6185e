/* SPDX-License-Identifier: MIT */
/*
 * top.h - what the parts of `gpuprof top` share: the options, the stop
 * conditions and sample loop (top-loop.c), the timeline recorder
 * (top-record.c), the Prometheus exporter (prom.c) and the full-screen
 * monitor (top-ui.c). cmd-top.c, the entry point, calls them; they call only
 * top-loop.c.
 */
#ifndef GP_CLI_TOP_H
#define GP_CLI_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuprof/sample.h"

struct gp_top_opts {
	bool json;
	const char *record;   /* --record FILE */
	const char *listen;   /* --listen ADDR:PORT */
	const char *textfile; /* --textfile DIR */
	/* --listen-timeout S: a connection's time to complete each request */
	uint32_t listen_timeout_s;
	/* --listen-per-address N: connections from one client address, 0: no limit */
	uint32_t listen_per_address;
	uint32_t interval_ms;
	uint64_t count;      /* 0: no limit */
	uint64_t duration_s; /* 0: no limit */
	int32_t pid;
	bool no_gpu, no_procs;
};

/* top-loop.c: the stop conditions and the sample loop (calls nothing back) */
/** Stops on SIGINT, SIGTERM and SIGHUP from now on. */
void gp_top_catch_signals(void);
/** CLOCK_MONOTONIC in ns. */
int64_t gp_top_mono_ns(void);
/** A signal came, @p taken reached --count, or --duration passed since @p start_ns. */
bool gp_top_should_stop(const struct gp_top_opts *o, uint64_t taken, int64_t start_ns);
/**
 * Calls @p fn with each new sample until a stop condition (--count counting
 * the calls that returned 0). @return 0; -1 on a sampler error (printed);
 * else what @p fn returned when it failed (non-zero ends the loop).
 */
int gp_top_each_sample(struct gp_sampler *s, const struct gp_top_opts *o,
                       int (*fn)(void *arg, const struct gp_sample *smp), void *arg);

/* top-record.c: samples to o->record until a stop condition. @return 0 or -1. */
int gp_top_record(struct gp_sampler *s, const struct gp_top_opts *o);

/* prom.c */
/*
 * The HTTP endpoint's limits: its connections in all, the default per client
 * address, and the default time a connection has to deliver a complete request
 * and take its answer (from its accept, or from the end of its previous answer).
 */
#define GP_LISTEN_MAX_CONNECTIONS 64
#define GP_LISTEN_PER_ADDRESS     8
#define GP_LISTEN_TIMEOUT_S       5
#define GP_LISTEN_TIMEOUT_MAX_S   3600
struct gp_prom;
/** Starts the HTTP endpoint (o->listen) and/or the textfile writer (o->textfile). */
int gp_prom_start(struct gp_prom **out, struct gp_sampler *s, const struct gp_top_opts *o);
/** Serves until a stop condition. @return 0 or -1. */
int gp_prom_wait(struct gp_prom *p, const struct gp_top_opts *o);
void gp_prom_stop(struct gp_prom *p);

/* top-ui.c: the full-screen monitor. @return 0 or -1. */
int gp_top_ui(struct gp_sampler *s, const struct gp_top_opts *o);

#endif
