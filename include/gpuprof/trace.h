/* SPDX-License-Identifier: MIT */
/*
 * trace.h - opening traces into gpuprof's trace model.
 *
 * A struct gp_trace holds one process's (one rank's) events in columns, with
 * interned strings, tracks and the file's metadata. Sources: PyTorch profiler
 * (Kineto) Chrome-trace JSON, plain or gzip-compressed, and the captures of
 * `gpuprof run` (told apart by their content). Readers stream: memory grows
 * with the events kept, not with the file size.
 */
#ifndef GPUPROF_TRACE_H
#define GPUPROF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gp_trace;

/** Options for opening a trace; zero-initialise, then set size = sizeof(struct gp_open_opts). */
struct gp_open_opts {
	uint32_t size;    /**< sizeof(struct gp_open_opts) */
	uint32_t version; /**< 0 */
	/**
	 * On a truncated or damaged file, keep the events that precede the damage
	 * instead of failing; gp_trace_salvage() then says how much was lost.
	 */
	bool salvage;
	/** Name used in messages for a memory buffer ("<memory>" when NULL). */
	const char *name;
	/** Cap on events kept (0: no cap besides memory); more gives GP_ELIMIT. */
	uint64_t max_events;
	/**
	 * Threads the reader may use: 0 lets it use a second thread where one
	 * pays (a large plain file is parsed in two halves, a large gzip file is
	 * inflated ahead); 1 reads on the calling thread only. The result is the
	 * same either way.
	 */
	uint32_t threads;
};

/**
 * Opens a trace file (.json or .json.gz, or a capture; detected from the content).
 * On failure gp_last_error() names the file and the byte offset.
 * @param out receives the trace; free it with gp_trace_free().
 */
GP_API int gp_trace_open(const char *path, const struct gp_open_opts *opts, struct gp_trace **out);

/**
 * Opens a trace from memory (plain or gzip JSON, or a capture). @p p is borrowed for the
 * duration of the call only. This is the fuzzers' entry point.
 */
GP_API int gp_trace_open_mem(const void *p, size_t n, const struct gp_open_opts *opts,
                             struct gp_trace **out);

/** Frees @p t. NULL is a no-op. */
GP_API void gp_trace_free(struct gp_trace *t);

/** @return the file path or name given at open (owned by @p t). */
GP_API const char *gp_trace_name(const struct gp_trace *t);

/** @return the rank from distributedInfo, or -1 when unknown. */
GP_API int64_t gp_trace_rank(const struct gp_trace *t);

/** @return the number of events kept in the model. */
GP_API uint64_t gp_trace_event_count(const struct gp_trace *t);

/** @return the number of events read from the file, kept or not. */
GP_API uint64_t gp_trace_events_read(const struct gp_trace *t);

/**
 * For a trace opened with salvage: @p lost_bytes receives the bytes after the
 * damage that were not analysed, @p offset the byte offset of the damage.
 * @return true if anything was lost.
 */
GP_API bool gp_trace_salvage(const struct gp_trace *t, uint64_t *offset, uint64_t *lost_bytes);

/**
 * The file's top-level metadata (every top-level key except traceEvents:
 * deviceProperties, distributedInfo, baseTimeNanoseconds, ...), owned by @p t.
 */
GP_API const struct gp_value *gp_trace_metadata(const struct gp_trace *t);

#ifdef __cplusplus
}
#endif
#endif
