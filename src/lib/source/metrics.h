/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - the metrics timeline (`gpuprof.metrics/1`, the metrics.jsonl of
 * a run directory and `gpuprof top --record FILE`, format in
 * docs/metrics-format.md): its one writer (struct gp_metrics_writer, public
 * in gpuprof/sample.h, for `top --record` and `run`) and its one reader,
 * which turns a timeline into named numeric series for analyze and export.
 *
 * The writer streams: a header line, one `gpuprof.sample/1` line per sample,
 * and an end line with the counts. The file is written as the samples come
 * (not replaced atomically: a crash keeps what was sampled, and the reader
 * takes a file cut short) and synced when closed.
 *
 * The reader tolerates a file cut short (no end line, a partial last line):
 * everything before the cut is kept and `ended` is false. A line that is not
 * valid JSON or not a sample object is skipped and counted in `malformed_lines`.
 * Memory is bounded: at most GP_METRICS_MAX_SAMPLES sample lines are read
 * (`truncated` is set past it), at most GP_METRICS_MAX_VALUES numbers in all
 * series together (also `truncated`), at most GP_METRICS_MAX_LINE bytes a line
 * (a longer line counts as malformed), GPUs of index 0 .. GP_METRICS_MAX_GPUS - 1.
 * Samples keep the file's order (the sampler writes them in time order).
 *
 * Internal header: the reader's callers are analyze/metrics.c and export/;
 * the writer's (through the public API) the CLI's top-record.c and run-metrics.c.
 */
#ifndef GP_SOURCE_METRICS_H
#define GP_SOURCE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/sample.h"

/* the writer is public API: struct gp_metrics_writer in gpuprof/sample.h */

/* ---- the reader ---- */

/** Sample lines read at most; the rest of the file is ignored and `truncated` set. */
#define GP_METRICS_MAX_SAMPLES ((size_t)10 * 1000 * 1000)
/** Longest line accepted (bytes, without the newline); longer ones are malformed. */
#define GP_METRICS_MAX_LINE ((size_t)4 * 1024 * 1024)
/** Numbers held in all series together (2 GiB of doubles); `truncated` past it. */
#define GP_METRICS_MAX_VALUES ((size_t)1 << 28)
/** GPUs (by `index`, 0 .. this - 1) turned into series; others are ignored. */
#define GP_METRICS_MAX_GPUS 64

/** What the samples said of one GPU (the first non-null values seen). */
struct gp_metrics_gpu {
	bool seen;  /**< some sample listed a GPU of this index */
	char *name; /**< NULL when unknown */
	char *uuid;
	char *pci_bus_id;
};

/**
 * One numeric series; a series exists only when at least one sample had a
 * value for it. All series of a timeline have the same length and times:
 * n == the timeline's nsamples and t_ns[i] is sample i's time_monotonic_ns
 * (CLOCK_MONOTONIC, the capture clock). v[i] is NaN when the value was null or
 * absent in that sample ("unknown", never 0).
 */
struct gp_metrics_series {
	const char *name; /**< "host.cpu_busy_ratio", "gpu0.power_watts", ... */
	const char *unit; /**< "ratio", "bytes", "watts", "celsius", "hertz", "cores", ... */
	size_t n;
	int64_t *t_ns; /**< shared by all series of the timeline; do not free */
	double *v;
};

/**
 * A timeline. Everything belongs to it (free with gp__metrics_timeline_free()).
 * String fields are NULL when the header lacked them or had null.
 */
struct gp_metrics_timeline {
	/* header line; header_seen is false when line 1 was not a valid header */
	bool header_seen;
	char *hostname;
	int64_t interval_ms;        /**< -1 when unknown */
	int64_t start_monotonic_ns; /**< -1 when unknown */
	int64_t start_unix_ns;      /**< -1 when unknown */
	char *gpu_status;           /**< NULL when GPUs were sampled */
	char *driver_version;
	int64_t watched_pid; /**< -1 when none */

	/* end line */
	bool ended;               /**< the end line was seen */
	int64_t end_samples;      /**< its `samples`, -1 when no end line */
	int64_t missed_periods;   /**< its `missed_periods`, -1 when no end line */
	int64_t end_monotonic_ns; /**< -1 when no end line */

	/* what the reader saw */
	size_t nsamples;        /**< sample lines kept */
	size_t malformed_lines; /**< lines skipped: bad JSON, not an object, no time, too long */
	bool partial_last_line; /**< the file ended without a newline (cut short mid-line) */
	bool truncated;         /**< GP_METRICS_MAX_SAMPLES reached; later lines ignored */
	unsigned ngpus;         /**< 1 + the highest GPU index seen */
	struct gp_metrics_gpu gpus[GP_METRICS_MAX_GPUS]; /**< [0, ngpus) meaningful */

	int64_t *t_ns; /**< nsamples times (time_monotonic_ns), the series' t_ns */
	size_t nseries;
	/** fixed order: host.*, process_tree.*, then gpu0.*, gpu1.* ... */
	struct gp_metrics_series *series;
};

/**
 * Reads the timeline at @p path. A cut-short file or skipped lines are not
 * errors (see the fields above); a file with no header and no sample is.
 * @param out receives the timeline (NULL on error).
 * @return 0; GP_EIO (cannot open or read, errno text in gp_last_error()),
 * GP_EFORMAT (nothing usable in the file), GP_ENOMEM.
 */
int gp__metrics_timeline_read(const char *path, struct gp_metrics_timeline **out);

/** Like gp__metrics_timeline_read(), from @p len bytes in memory (the fuzz target uses it). */
int gp__metrics_timeline_parse(const char *data, size_t len, struct gp_metrics_timeline **out);

/** Looks up a series by name; NULL when absent. */
const struct gp_metrics_series *gp__metrics_timeline_series(const struct gp_metrics_timeline *m,
                                                            const char *name);

/** Frees @p m and everything it holds. NULL is a no-op. */
void gp__metrics_timeline_free(struct gp_metrics_timeline *m);

#endif /* GP_SOURCE_METRICS_H */
