/* SPDX-License-Identifier: MIT */
/*
 * inject.h - the injected tracer's parts (libgpuprof-inject.so).
 *
 * session.c: the capture file of this process, the writer thread that owns
 *   it, the records other parts hand over, fork, signals and exit.
 * cupti.c: CUPTI (dlopen'd) activity records, decoded on the writer thread.
 * nvtx.c: the NVTX tool (InitializeInjectionNvtx2), per-thread buffers.
 * window.c: capture windows (delay, duration, capture ranges, schedule).
 *
 * Nothing here may crash, deadlock or change what the program prints or
 * returns: failures become GP_CAP_WARN records (and one line on stderr when
 * GPUPROF_INJECT_VERBOSE is set), and the program runs on.
 */
#ifndef GP_INJECT_H
#define GP_INJECT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capfmt.h"

#define GP_INJ_EXPORT __attribute__((visibility("default")))

/* ---- session.c ---- */

/** Opens the capture of this process once (either entry point may come first). @return true if
 * capturing. */
bool gp_inj_session(void);
/** true in a forked child, where nothing is recorded (see session.c). */
bool gp_inj_forked(void);
/** CLOCK_MONOTONIC in ns: the one clock of the capture. */
uint64_t gp_inj_now(void);
/** Appends one record (header, payload @p a then @p b, padding) to the shared queue. */
void gp_inj_write(uint32_t type, const void *a, size_t na, const void *b, size_t nb);
/** A GP_CAP_WARN record (and stderr with GPUPROF_INJECT_VERBOSE). */
void gp_inj_warn(uint32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** A process-wide unique id for strings, domains and ranges (> 0). */
uint32_t gp_inj_new_id(void);
/** The kernel thread id of the caller (cached per thread). */
uint32_t gp_inj_tid(void);

/*
 * A block of records made by one thread (NVTX): the owner appends and
 * publishes `used` with release; the writer thread writes [written, used).
 * A full block is sealed and queued, and the owner starts a new one.
 */
struct gp_inj_block {
	struct gp_inj_block *next; /* in the writer's list */
	_Atomic size_t used;
	size_t written; /* writer thread only */
	size_t cap;
	_Atomic bool sealed; /* the owner will not append any more */
	unsigned char data[];
};

/** A new block of @p cap bytes (within the memory bound), registered with the writer; NULL when
 * over the bound. */
struct gp_inj_block *gp_inj_block_new(size_t cap);
/** Counts NVTX records lost (memory bound, fork). */
void gp_inj_nvtx_lost(uint64_t n);

/* ---- window.c ---- */

#define GP_WIN_M_RANGE 1u /* the --capture-range nvtx:NAME */
#define GP_WIN_M_ITER  2u /* the --iter-range NAME */

/** Reads the window options from the environment; at session start, before the writer runs. */
void gp_inj_win_init(void);
/** true while events are recorded (always, without window options). Any thread, lock-free. */
bool gp_inj_win_recording(void);
/** true when NVTX messages must be compared with a window's names (gp_inj_win_match). */
bool gp_inj_win_watching(void);
/** true with --capture-range cudaProfilerApi. */
bool gp_inj_win_profiler_api(void);
/** Whether @p msg (@p n bytes) names a window range; @p which gets GP_WIN_M_* bits. */
bool gp_inj_win_match(const char *msg, size_t n, unsigned *which);
/** A matching range began (before it is recorded) / ended (after). */
void gp_inj_win_begin(unsigned which);
void gp_inj_win_end(unsigned which);
/** A matching mark (iterations delimited by marks). */
void gp_inj_win_mark(unsigned which);
/** cuProfilerStart returned (true) / cuProfilerStop was entered (false). */
void gp_inj_win_profiler(bool start);
/** CUPTI is loaded: attach it now if a window (or none) says so. */
void gp_inj_win_cuda_ready(void);
/** Writer thread: ns until the next edge of the time gate, -1 none; and applying it. */
int64_t gp_inj_win_next_edge(void);
void gp_inj_win_tick(void);
/** At exit: the WINDOW record that closes an open window. */
void gp_inj_win_exit(void);
#define GP_INJ_MAX_WARM 4096 /* warm-ups remembered; later cycles have none */
/** Decoder: the warm-up (CUPTI attached, records dropped) @p ts lies in, -1 none. */
long gp_inj_win_warm(int64_t ts);
/** The number of warm-ups so far. */
size_t gp_inj_win_nwarm(void);

/* ---- cupti.c ---- */

/** Loads CUPTI (dlopen, symbols); called from InitializeInjection. @return 0 when usable. */
int gp_inj_cupti_load(void);
/** Registers the clock and the buffers and enables the kinds (a window opens). */
void gp_inj_cupti_attach(void);
/** Disables the kinds and flushes; @p finalize: then detaches CUPTI at the next API exit. */
void gp_inj_cupti_detach(bool finalize);
/** Asks CUPTI for completed buffers (forced: also partial ones). Writer thread or exit. */
void gp_inj_cupti_flush(bool forced);
/** Decodes the CUPTI buffers handed over since the last call into records; writer thread. */
void gp_inj_cupti_drain(void);
/** Stops CUPTI for good (exit): forced flush, drain, disable. */
void gp_inj_cupti_stop(void);
/** Dropped-record counters for the GP_CAP_DROPPED record. */
void gp_inj_cupti_dropped(uint64_t *records, uint64_t *buffers);
/** The CUPTI version, 0 when not loaded. */
uint32_t gp_inj_cupti_version(void);

#endif
