/* SPDX-License-Identifier: MIT */
/*
 * inject.h - the injected tracer's parts (libgpuprof-inject.so).
 *
 * session.c: the capture file of this process, the writer thread that owns
 *   it, the records other parts hand over, the event clock, fork, signals
 *   and exit.
 * cupti.c: CUPTI (dlopen'd) activity records, decoded on the writer thread;
 *   cupti-null.c instead in a build without the CUDA toolkit's headers.
 * record.c: the recording core of ranges, marks and counters: per-thread
 *   blocks, capture-window matching. Needs no CUDA header.
 * nvtx.c: the NVTX tool (InitializeInjectionNvtx2) on top of record.c (needs
 *   the nvtx3 headers: built with the CUDA toolkit only).
 * annotate.c: the recorder of include/gpuprof/annotate.h
 *   (gpuprof_annotate_init_v1) on top of record.c.
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

#include "source/capfmt.h"

#define GP_INJ_EXPORT __attribute__((visibility("default")))

/* ---- session.c ---- */

/** Opens the capture of this process once (either entry point may come first). @return true if
 * capturing. */
bool gp_inj_session(void);
/** true from the session's start to its stop, never in a forked child (the hot paths' check). */
extern _Atomic bool gp__inj_live;
/** true in a forked child, where nothing is recorded (see session.c). */
bool gp_inj_forked(void);
/**
 * malloc (calloc when @p zero) and free for the writer thread, outside any
 * CUPTI call: under the lock that fork_prepare takes, so that no fork happens
 * while the writer is inside the allocator (glibc's is fork-safe; a
 * sanitizer's is not: the child then hangs in its next malloc or at exit).
 * Not for CUPTI's callbacks, which may run with driver locks held.
 */
void *gp_inj_alloc(size_t n, bool zero);
void gp_inj_free(void *p);
/** CLOCK_MONOTONIC in ns: the one clock of the capture. */
uint64_t gp_inj_now(void);

/*
 * The event clock of records appended to per-thread blocks (gp_inj_ts). With
 * the TSC (x86-64, the kernel's clocksource is "tsc", a writer thread, and
 * GPUPROF_INJECT_CLOCK is not "mono"), an event stores the raw TSC and the
 * writer thread turns it into CLOCK_MONOTONIC ns before writing the block,
 * interpolating between two (TSC, CLOCK_MONOTONIC) pairs it reads around
 * each pass; reading the TSC costs about a third of clock_gettime. Without
 * it, events store gp_inj_now(). Records of the shared queue
 * (gp_inj_write) always carry gp_inj_now().
 */
extern bool gp__inj_tsc;

#if defined(__x86_64__)
static inline uint64_t gp_inj_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#else
static inline uint64_t gp_inj_rdtsc(void)
{
	return 0;
}
#endif

/** The timestamp of an event appended to a thread's block (see above). */
static inline int64_t gp_inj_ts(void)
{
	return gp__inj_tsc ? (int64_t)gp_inj_rdtsc() : (int64_t)gp_inj_now();
}

/**
 * Asks the writer for a pass now rather than at its next tick (much is
 * waiting: KICK_BYTES of queued records or new blocks, a CUPTI buffer).
 * Lock-free and async-signal-safe, so CUPTI's callbacks may call it.
 */
void gp_inj_kick(void);
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
	size_t snap;    /* writer thread only: `used` when the pass began */
	size_t cap;
	_Atomic bool sealed;                              /* the owner will not append any more */
	unsigned char data[] __attribute__((aligned(8))); /* records, each a multiple of 8 */
};

#define GP_INJ_BLOCK_SIZE (64u << 10) /* the blocks of record.c */

/** A new block of @p cap bytes (within the memory bound), registered with the writer; NULL when
 * over the bound. */
struct gp_inj_block *gp_inj_block_new(size_t cap);
/** Counts NVTX records lost (memory bound, fork). */
void gp_inj_nvtx_lost(uint64_t n);

/* ---- record.c: ranges, marks and counters (NVTX and annotations) ---- */

#define GP_INJ_MAX_MSG 4096u /* longer messages are cut */

/** An event's message: text (@p s, @p n bytes, not NUL-ended), or a registered string's id. */
struct gp_inj_msg {
	const char *s;
	size_t n;
	uint32_t reg, color, category;
};

/** true when events may be recorded: not a forked child, and the capture is open (opens it). */
static inline bool gp_inj_on(void)
{
	return atomic_load_explicit(&gp__inj_live, memory_order_relaxed) ||
	       (!gp_inj_forked() && gp_inj_session());
}
/** The GP_WIN_M_* bits of a message (0: names no window range). */
unsigned gp_inj_watch(const struct gp_inj_msg *m);
/** Whether the text of registered string @p id names a window range; kept for gp_inj_watch. */
void gp_inj_watch_reg(uint32_t id, const char *s, size_t n);
/** A STRING record for @p s (@p n bytes) with a new id, also watched. @return the id. */
uint32_t gp_inj_register_string(const char *s, size_t n);
/** A DOMAIN record named @p m with a new id (through the shared queue). @return the id. */
uint32_t gp_inj_domain(const struct gp_inj_msg *m);
/** A thread-named record (NVTX). */
void gp_inj_name_thread(uint32_t tid, const struct gp_inj_msg *m);
/**
 * A push/pop range opens on the calling thread; @p which (gp_inj_watch) opens windows first.
 * @return the depth before the push (NVTX's return value).
 */
int gp_inj_push(uint32_t domain, const struct gp_inj_msg *m, unsigned which);
/** gp_inj_push() of a registered string without color or category: the annotations' path. */
void gp_inj_push_reg(uint32_t domain, uint32_t reg, unsigned which);
/** The calling thread's innermost push/pop range ends. @return the new depth, -1 without one. */
int gp_inj_pop(uint32_t domain);
/** A start/end range opens. @return its id. */
uint64_t gp_inj_start(uint32_t domain, const struct gp_inj_msg *m, unsigned which);
/** The start/end range @p id ends. */
void gp_inj_end(uint32_t domain, uint64_t id);
/** A mark (an instant; iterations may be delimited by marks). */
void gp_inj_mark(uint32_t domain, const struct gp_inj_msg *m, unsigned which);
/** gp_inj_mark() of a registered string without color or category. */
void gp_inj_mark_reg(uint32_t domain, uint32_t reg, unsigned which);
/** A counter sample, the counter named by STRING @p name. */
void gp_inj_counter(uint32_t name, double value);
/** A counter sample named by value: @p s, @p n bytes (not NUL-ended), inline after the record. */
void gp_inj_counter_str(const char *s, size_t n, double value);
/**
 * window.c: the WINDOW record of a change caused by an event of the calling thread goes into
 * that thread's block, so that it is written in order with the thread's events. @return false
 * when it could not (then it goes through the shared queue).
 */
bool gp_inj_put_window_here(const struct gp_cap_window *w);

/* ---- window.c ---- */

#define GP_WIN_M_RANGE 1u /* the --capture-range nvtx:NAME */
#define GP_WIN_M_ITER  2u /* the --iter-range NAME */

/** Reads the window options from the environment; at session start, before the writer runs. */
void gp_inj_win_init(void);
/** true while events are recorded (always, without window options). Any thread, lock-free. */
extern _Atomic bool gp__inj_rec;
static inline bool gp_inj_win_recording(void)
{
	return atomic_load_explicit(&gp__inj_rec, memory_order_relaxed);
}
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
