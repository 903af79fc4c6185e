/* SPDX-License-Identifier: MIT */
/*
 * top.h - what the parts of `gpuprof top` share: the options, the stop
 * conditions (signals, --count, --duration), the timeline recorder
 * (top-record.c), the Prometheus exporter (prom.c) and the full-screen
 * monitor (top-ui.c).
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

/* cmd-top.c */
void gp_top_catch_signals(void);
/** The signal that asked us to stop, 0 if none. */
int gp_top_stopped(void);
bool gp_top_should_stop(const struct gp_top_opts *o, uint64_t taken, int64_t start_ns);
int gp_top_next(struct gp_sampler *s, const struct gp_top_opts *o, uint64_t seq, int64_t start_ns,
                struct gp_sample *out);

/**
 * Writes JSON lines of samples to @p f until a stop condition, counting them
 * in *@p n. @return 0; -1 on a sampler error (printed); GP_TOP_EWRITE when
 * writing to @p f failed (errno says why, nothing printed).
 */
#define GP_TOP_EWRITE (-2)
int gp_top_write_samples(struct gp_sampler *s, const struct gp_top_opts *o, FILE *f, uint64_t *n);

/* top-record.c: samples to o->record until a stop condition. @return 0 or -1. */
int gp_top_record(struct gp_sampler *s, const struct gp_top_opts *o);

/*
 * The header and end lines of a gpuprof.metrics/1 timeline (top-record.c),
 * shared with `gpuprof run`; @p watched_pid 0 writes null. @return 0, or
 * non-zero when out of memory or writing to @p f failed (errno says why).
 */
int gp_metrics_header(FILE *f, struct gp_sampler *s, int32_t watched_pid);
int gp_metrics_trailer(FILE *f, struct gp_sampler *s, uint64_t n);

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

/* prom-render.c */
/** The HTTP endpoint's own counters, in its /metrics only (not the textfile). */
struct gp_prom_http {
	uint64_t client_errors, timed_out, evicted, idle;
};
/**
 * Renders a sample in the Prometheus text format 0.0.4 into a malloc'd
 * string (NULL: out of memory), with the launcher's labels (rank,
 * local_rank, job) from the environment.
 */
char *gp_prom_render(const struct gp_sample *s, const char *hostname, size_t *len);
/** gp_prom_render() plus the HTTP endpoint's counters @p hc. */
char *gp_prom_render_http(const struct gp_sample *s, const char *hostname,
                          const struct gp_prom_http *hc, size_t *len);

/* top-ui.c: the full-screen monitor. @return 0 or -1. */
int gp_top_ui(struct gp_sampler *s, const struct gp_top_opts *o);

#endif
