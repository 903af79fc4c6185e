/* SPDX-License-Identifier: MIT */
/*
 * prom.h - a sample (gpuprof/sample.h) in the Prometheus text exposition
 * format 0.0.4 (export/prom.c). The caller says which labels go on every
 * series; the renderer reads no environment and keeps no state, so any
 * thread may render its own copy of a sample.
 *
 * Internal header: the caller is the CLI's `gpuprof top` (src/cli/prom.c).
 */
#ifndef GP_EXPORT_PROM_H
#define GP_EXPORT_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprof/sample.h"

/**
 * The labels of every series, borrowed; NULL or "" leaves a label out
 * (Hostname is then ""). Values are escaped and cut to a bounded length.
 */
struct gp__prom_labels {
	const char *hostname;   /**< Hostname="..." (dcgm-exporter's) */
	const char *rank;       /**< rank="...": the launcher's global rank */
	const char *local_rank; /**< local_rank="..." */
	const char *job;        /**< job="...": the batch system's job id */
};

/** The HTTP endpoint's own counters, in its /metrics only (not the textfile). */
struct gp__prom_http {
	uint64_t client_errors, timed_out, evicted, idle;
};

/**
 * Renders sample @p s with labels @p l, plus the endpoint's counters @p hc
 * when non-NULL.
 * @param out the text, NUL-ended, owned by the caller (free with gp_free())
 * @param len its length in bytes, may be NULL
 * @return 0 or GP_ENOMEM.
 */
int gp__prom_render(const struct gp_sample *s, const struct gp__prom_labels *l,
                    const struct gp__prom_http *hc, char **out, size_t *len);

#endif
