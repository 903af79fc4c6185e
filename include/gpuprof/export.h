/* SPDX-License-Identifier: MIT */
/*
 * export.h - converting traces for other viewers: Chrome trace-event JSON,
 * which ui.perfetto.dev and chrome://tracing load.
 *
 * Two levels. gp_export_paths() and gp_export_paths_to_file() take what the
 * CLI takes (run directories, capture files, Kineto traces, directories of
 * traces), read one trace at a time and stream the output. The writer below
 * them (gp_chrome_writer_*) takes opened traces and metrics timelines, for
 * callers that hold their own gp_trace. Output is deterministic: the same
 * input gives the same bytes (sorted keys, exact times, no wall-clock stamps).
 *
 * What the Chrome JSON holds (docs/cli/gpuprof-export.md has the details):
 * each event of the trace model as a complete ("X") event on its track:
 * host threads (process = pid, thread = tid) for CPU ops, CUDA runtime and
 * driver calls and NVTX ranges; GPU streams (a process "GPU N" per device, a
 * thread "stream S" per stream) for kernels, copies and memsets. NVTX
 * start/end ranges, which need not nest, are async ("b"/"e") events. A flow
 * arrow ("s" -> "f") joins each GPU operation to the API call that launched
 * it. PyTorch memory events become Kineto's "[memory]" instants and counters
 * ("C"), as do metrics timelines and a capture's counters. A single trace's
 * top-level metadata (deviceProperties, distributedInfo, ...) is the
 * document's, so that an export analyses as its source. Times are µs with
 * exactly three decimals, printed from the integer ns (integers for a trace
 * written in whole µs).
 */
#ifndef GPUPROF_EXPORT_H
#define GPUPROF_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output formats. */
enum gp_export_format {
	GP_EXPORT_CHROME = 0, /**< Chrome trace-event JSON (Perfetto, chrome://tracing) */
};

/** Options; zero-initialise, then set size = sizeof(struct gp_export_opts). */
struct gp_export_opts {
	uint32_t size;    /**< sizeof(struct gp_export_opts) */
	uint32_t version; /**< 0 */
	enum gp_export_format format;
	/** Keep what precedes the damage of a truncated trace (see gp_open_opts.salvage). */
	bool salvage;
	/**
	 * A metrics timeline (gpuprof.metrics/1) to add as counter tracks, NULL
	 * for none. Besides it, each run directory given as a path adds its own
	 * metrics.jsonl unless @c no_metrics.
	 */
	const char *metrics;
	/** Add no counter tracks from run directories' metrics.jsonl. */
	bool no_metrics;
	/** Threads each file's reader may use (gp_open_opts.threads); 0: its choice. */
	uint32_t threads;
};

/** What an export wrote (gp_chrome_writer_stats()). */
struct gp_export_stats {
	uint64_t traces;    /**< traces written */
	uint64_t events;    /**< slices: complete ("X") events and async ("b"/"e") pairs */
	uint64_t flows;     /**< flow arrows (each an "s" and an "f" event) */
	uint64_t counters;  /**< counter ("C") events */
	uint64_t bytes;     /**< bytes of JSON written */
	uint64_t timelines; /**< metrics timelines added as counters */
	/**
	 * Run directories' metrics.jsonl that could not be read and were left
	 * out (the export goes on without them); gp_last_error() then says why.
	 */
	uint64_t metrics_skipped;
};

/**
 * Exports @p n paths (trace files, capture files, directories of them, run
 * directories of `gpuprof run`, metrics timelines; "-" for standard input)
 * through @p write, one trace read at a time. Files of a directory go in
 * name order; a run directory's metrics.jsonl is added as counters (see
 * gp_export_opts), and so is a metrics timeline given as a path. With several
 * traces, process names carry "rank R" (or the capture's pid, or the file
 * name) so that they stay apart.
 * @param write receives the bytes (@p user passed along). A failure leaves
 *        partial output behind (gp_export_paths_to_file() leaves none).
 * @param stats receives what was written (may be NULL).
 * @return 0; GP_EINVAL (bad options, an unsupported format), GP_ENOENT (no
 * such path, no trace in a directory), the reader's errors (the file and byte
 * offset in gp_last_error()), GP_EIO (a write failed), GP_ENOMEM.
 */
GP_API int gp_export_paths(const char *const *paths, size_t n, const struct gp_export_opts *opts,
                           gp_write_fn write, void *user, struct gp_export_stats *stats);

/**
 * Like gp_export_paths(), into the file @p out_path, atomically: a temporary
 * file in the same directory is written, synced and renamed over @p out_path,
 * so a failure leaves nothing behind (and an existing @p out_path untouched).
 * An @p out_path that exists and is not a regular file (/dev/null, a FIFO) is
 * written as it is, never renamed over.
 */
GP_API int gp_export_paths_to_file(const char *const *paths, size_t n,
                                   const struct gp_export_opts *opts, const char *out_path,
                                   struct gp_export_stats *stats);

/** A streaming Chrome JSON writer. Not thread-safe; one per output. */
struct gp_chrome_writer;

/**
 * Starts a Chrome trace written through @p write (with @p user, which must
 * outlive the writer; the writer buffers and calls it in large chunks). The
 * opening of the document is written with the first trace: when that trace
 * has a baseTimeNanoseconds (Kineto), every time of the document is written
 * relative to it and it is kept as the top-level "baseTimeNanoseconds", as
 * Kineto does. Nothing is held per event: memory grows with the tracks and
 * correlation ids of the trace being written, not with the output.
 */
GP_API int gp_chrome_writer_new(gp_write_fn write, void *user, struct gp_chrome_writer **out);

/**
 * Writes every event of @p t (borrowed). Each call gets its own processes
 * (host pids are kept where no earlier trace of this writer used them) and
 * its own flow ids. @p label (may be NULL) prefixes the process names, e.g.
 * "rank 3" gives "rank 3: GPU 0". The top-level metadata of the first trace
 * is the document's own; that of every later one is kept in a
 * "trace_metadata" metadata event on its first process.
 */
GP_API int gp_chrome_writer_add_trace(struct gp_chrome_writer *w, const struct gp_trace *t,
                                      const char *label);

/**
 * Adds the metrics timeline at @p path (gpuprof.metrics/1: a run directory's
 * metrics.jsonl, `gpuprof top --record FILE`) as counter tracks: a process
 * "host metrics" and one "GPU N metrics" per GPU (prefixed with the host name
 * when the timeline has one), a counter per series holding its known values
 * at the samples' time_monotonic_ns. That is the clock of capture files;
 * traces on another clock (Kineto's) are not converted to it.
 * @return 0, the reader's errors (GP_EIO, GP_EFORMAT), GP_EIO on a write
 * error, GP_ENOMEM.
 */
GP_API int gp_chrome_writer_add_metrics(struct gp_chrome_writer *w, const char *path);

/** Ends the document and hands what is buffered to the write function. */
GP_API int gp_chrome_writer_finish(struct gp_chrome_writer *w);

/** What @p w has written so far. */
GP_API void gp_chrome_writer_stats(const struct gp_chrome_writer *w, struct gp_export_stats *out);

/** Frees @p w (without finishing the document). NULL is a no-op. */
GP_API void gp_chrome_writer_free(struct gp_chrome_writer *w);

#ifdef __cplusplus
}
#endif
#endif
