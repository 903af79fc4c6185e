/* SPDX-License-Identifier: MIT */
/*
 * inject.h - the injected tracer's parts (libgpuprof-inject.so).
 *
 * The parts call each other in one direction only (docs/internals/inject.md;
 * tests/check-cycles.py fails on a loop of more than two files):
 *
 *   annotate.c         -> record.c, window.c, session.c (opening the capture)
 *   nvtx.c             -> record.c, session.c
 *   record.c           -> cupti.c (carrying out window actions), window.c
 *   session.c          -> cupti.c, window.c
 *   cupti.c            -> warm.c, window.c
 *   warm.c             -> window.c
 *   every file         -> core.c, which calls none of them
 *
 * core.c: what every part shares and calls nothing else: the clock, ids,
 *   the forked flag, the shared record queue and the per-thread blocks the
 *   writer drains, the allocator under the fork lock, the writer's wake-up.
 * session.c: the entry points of the process (constructor, fork handlers,
 *   InitializeInjection, atexit, signals), the capture file and the writer
 *   thread that owns it.
 * window.c: capture windows (delay, duration, capture ranges, schedule) as
 *   a state machine: gp__inj_win_step returns actions (attach or detach
 *   CUPTI, a WINDOW record) that its caller carries out (gp__inj_win_carry).
 * cupti.c: CUPTI (dlopen'd) activity records, decoded on the writer thread,
 *   and CUPTI's callbacks; cupti-null.c instead in a build without the CUDA
 *   toolkit's headers.
 * warm.c: which decoded records a warm-up made, in whatever order CUPTI's
 *   buffers come (GPU records may be held until their calls are decoded).
 * record.c: the recording core of ranges, marks and counters: per-thread
 *   blocks, capture-window matching. Needs no CUDA header.
 * nvtx.c: the NVTX tool (InitializeInjectionNvtx2) on top of record.c (needs
 *   the nvtx3 headers: built with the CUDA toolkit only).
 * annotate.c: the recorder of include/gpuprof/annotate.h
 *   (gpuprof_annotate_init_v1) on top of record.c.
 *
 * Names shared across files are gp__inj_* (never exported: the library's
 * visibility is hidden); the entry points above are the only exports.
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
#include <time.h>

#include "source/capfmt.h"

#define GP_INJ_EXPORT __attribute__((visibility("default")))

/* ---- core.c: what the parts share; calls nothing else of the tracer ---- */

/** true from the session's start to its stop, never in a forked child (the hot paths' check). */
extern _Atomic bool gp__inj_live;
/** true in a forked child, where nothing is recorded (see session.c). */
bool gp__inj_forked(void);
/** CLOCK_MONOTONIC in ns: the one clock of the capture. */
uint64_t gp__inj_now(void);
/** A process-wide unique id for strings, domains and ranges (> 0). */
uint32_t gp__inj_new_id(void);
/** The kernel thread id of the caller (cached per thread). */
uint32_t gp__inj_tid(void);
/**
 * malloc (calloc when @p zero) and free for the writer thread, outside any
 * CUPTI call: under the lock that fork_prepare takes (gp__inj_core_lock),
 * so that no fork happens while the writer is inside the allocator (glibc's
 * is fork-safe; a sanitizer's is not: the child then hangs in its next
 * malloc or at exit). Not for CUPTI's callbacks, which may run with driver
 * locks held.
 */
void *gp__inj_alloc(size_t n, bool zero);
void gp__inj_free(void *p);

/** session.c: records are accepted from here on, within @p max_bytes of queue and blocks. */
void gp__inj_core_open(size_t max_bytes, bool verbose);
bool gp__inj_core_is_open(void);
/** At exit, after the last pass: records are dropped from here on. */
void gp__inj_core_close(void);
/** fork_prepare / fork_parent: the lock of the queue, the blocks and the allocator. */
void gp__inj_core_lock(void);
void gp__inj_core_unlock(void);
/** fork_child: the process is a forked child (records nothing); releases the lock. */
void gp__inj_core_forked(void);

/*
 * The event clock of records appended to per-thread blocks (gp__inj_ts). With
 * the TSC (x86-64, the kernel's clocksource is "tsc", a writer thread, and
 * GPUPROF_INJECT_CLOCK is not "mono"), an event stores the raw TSC and the
 * writer thread turns it into CLOCK_MONOTONIC ns before writing the block,
 * interpolating between two (TSC, CLOCK_MONOTONIC) pairs it reads around
 * each pass; reading the TSC costs about a third of clock_gettime. Without
 * it, events store gp__inj_now(). Records of the shared queue
 * (gp__inj_write) always carry gp__inj_now().
 */
extern bool gp__inj_tsc;

#if defined(__x86_64__)
static inline uint64_t gp__inj_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#else
static inline uint64_t gp__inj_rdtsc(void)
{
	return 0;
}
#endif

/** The timestamp of an event appended to a thread's block (see above). */
static inline int64_t gp__inj_ts(void)
{
	return gp__inj_tsc ? (int64_t)gp__inj_rdtsc() : (int64_t)gp__inj_now();
}

/**
 * Asks the writer for a pass now rather than at its next tick (much is
 * waiting: KICK_BYTES of queued records or new blocks, a CUPTI buffer).
 * Lock-free and async-signal-safe, so CUPTI's callbacks may call it.
 */
void gp__inj_kick(void);
/** Wakes the writer to look at its requests (async-signal-safe). */
void gp__inj_wake(void);
/** The writer's wake-up count, read before it checks its requests. */
uint32_t gp__inj_wake_seq(void);
/** Writer: waits until a wake-up after @p seq, or @p ms pass (not at all when kicked). */
void gp__inj_wait(uint32_t seq, int ms);
/** Writer, as a pass begins: the kicks so far are answered. */
void gp__inj_kick_reset(void);
/** futex(2) on @p w, process-private. */
long gp__inj_futex(_Atomic uint32_t *w, int op, uint32_t v, const struct timespec *rel);

/** Appends one record (header, payload @p a then @p b, padding) to the shared queue. */
void gp__inj_write(uint32_t type, const void *a, size_t na, const void *b, size_t nb);
/** A GP_CAP_WARN record (and stderr with GPUPROF_INJECT_VERBOSE). */
void gp__inj_warn(uint32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Writer: takes the queue (*@p q, free with gp__inj_free). @return its length in bytes. */
size_t gp__inj_queue_take(unsigned char **q);
/** The bytes queued now. */
size_t gp__inj_queue_len(void);

/* what was lost, for the GP_CAP_DROPPED record */
struct gp__inj_lost {
	uint64_t nvtx_records;  /* blocks over the memory bound */
	uint64_t queue_records; /* queued records over the memory bound */
	uint64_t write_bytes;   /* bytes the file refused */
};
void gp__inj_write_lost(uint64_t bytes);
void gp__inj_lost_get(struct gp__inj_lost *out);

/*
 * A block of records made by one thread (NVTX): the owner appends and
 * publishes `used` with release; the writer thread writes [written, used).
 * A full block is sealed and queued, and the owner starts a new one.
 */
struct gp__inj_block {
	struct gp__inj_block *next; /* in the writer's list */
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
struct gp__inj_block *gp__inj_block_new(size_t cap);
/** Counts NVTX records lost (memory bound, fork). */
void gp__inj_nvtx_lost(uint64_t n);
/** Writer: the first and last block now; blocks are only appended after @p last meanwhile. */
void gp__inj_blocks_span(struct gp__inj_block **head, struct gp__inj_block **last);
/** Writer: unlinks sealed, fully written blocks (kept as spares, or freed). */
void gp__inj_blocks_reap(void);
/** Writer: keeps a few blocks allocated and touched for the threads' next ones. */
void gp__inj_spare_fill(void);

/* ---- session.c: the entry points (constructor, InitializeInjection, exit, signals, fork)
 * and the writer thread ---- */

/** Opens the capture of this process once (either entry point may come first). @return true if
 * capturing. */
bool gp__inj_session(void);

/* ---- record.c: ranges, marks and counters (NVTX and annotations) ---- */

#define GP_INJ_MAX_MSG 4096u /* longer messages are cut */

/** An event's message: text (@p s, @p n bytes, not NUL-ended), or a registered string's id. */
struct gp__inj_msg {
	const char *s;
	size_t n;
	uint32_t reg, color, category;
};

/** true when events may be recorded: not a forked child, and the capture is open (opens it). */
static inline bool gp__inj_on(void)
{
	return atomic_load_explicit(&gp__inj_live, memory_order_relaxed) ||
	       (!gp__inj_forked() && gp__inj_session());
}
/** The GP_WIN_M_* bits of a message (0: names no window range). */
unsigned gp__inj_watch(const struct gp__inj_msg *m);
/** Whether the text of registered string @p id names a window range; kept for gp__inj_watch. */
void gp__inj_watch_reg(uint32_t id, const char *s, size_t n);
/** A STRING record for @p s (@p n bytes) with a new id, also watched. @return the id. */
uint32_t gp__inj_register_string(const char *s, size_t n);
/** A DOMAIN record named @p m with a new id (through the shared queue). @return the id. */
uint32_t gp__inj_domain(const struct gp__inj_msg *m);
/** A thread-named record (NVTX). */
void gp__inj_name_thread(uint32_t tid, const struct gp__inj_msg *m);
/**
 * A push/pop range opens on the calling thread; @p which (gp__inj_watch) opens windows first.
 * @return the depth before the push (NVTX's return value).
 */
int gp__inj_push(uint32_t domain, const struct gp__inj_msg *m, unsigned which);
/** gp__inj_push() of a registered string without color or category: the annotations' path. */
void gp__inj_push_reg(uint32_t domain, uint32_t reg, unsigned which);
/** The calling thread's innermost push/pop range ends. @return the new depth, -1 without one. */
int gp__inj_pop(uint32_t domain);
/** A start/end range opens. @return its id. */
uint64_t gp__inj_start(uint32_t domain, const struct gp__inj_msg *m, unsigned which);
/** The start/end range @p id ends. */
void gp__inj_end(uint32_t domain, uint64_t id);
/** A mark (an instant; iterations may be delimited by marks). */
void gp__inj_mark(uint32_t domain, const struct gp__inj_msg *m, unsigned which);
/** gp__inj_mark() of a registered string without color or category. */
void gp__inj_mark_reg(uint32_t domain, uint32_t reg, unsigned which);
/** A counter sample, the counter named by STRING @p name. */
void gp__inj_counter(uint32_t name, double value);
/** A counter sample named by value: @p s, @p n bytes (not NUL-ended), inline after the record. */
void gp__inj_counter_str(const char *s, size_t n, double value);
/* ---- window.c: the capture windows' state machine ---- */

#define GP_WIN_M_RANGE 1u /* the --capture-range nvtx:NAME */
#define GP_WIN_M_ITER  2u /* the --iter-range NAME */

/* what happened (the input of gp__inj_win_step) */
enum gp__inj_win_ev {
	GP_INJ_WIN_INIT,       /* session start: read the options from the environment */
	GP_INJ_WIN_CUDA_READY, /* CUPTI is loaded and usable */
	GP_INJ_WIN_TICK,       /* the writer's timer: the time gate may open or close */
	GP_INJ_WIN_EXIT,       /* the last pass: an open window closes */
	GP_INJ_WIN_BEGIN,      /* a range matching `which` began (before it is recorded) */
	GP_INJ_WIN_END,        /* a range matching `which` ended (after it is recorded) */
	GP_INJ_WIN_MARK,       /* a mark matching `which` (iterations delimited by marks) */
	GP_INJ_WIN_PROF_START, /* cuProfilerStart returned */
	GP_INJ_WIN_PROF_STOP,  /* cuProfilerStop was entered */
};

/* what the caller then does, in order (the output of gp__inj_win_step) */
enum gp__inj_win_op {
	GP_INJ_WIN_ATTACH,  /* gp__inj_cupti_attach() */
	GP_INJ_WIN_DETACH,  /* gp__inj_cupti_detach(finalize) */
	GP_INJ_WIN_RECORD,  /* a WINDOW record w; then, with publish, gp__inj_rec = w.on */
	GP_INJ_WIN_PUBLISH, /* gp__inj_rec = w.on, without a record */
};

struct gp__inj_win_act {
	enum gp__inj_win_op op;
	bool finalize; /* DETACH */
	bool publish;  /* RECORD */
	struct gp_cap_window w;
};

#define GP_INJ_WIN_MAX_ACTS 8 /* an event changes the state at most 3 times, 2 actions each */

struct gp__inj_win_out {
	unsigned n;
	struct gp__inj_win_act a[GP_INJ_WIN_MAX_ACTS];
};

/* the windows' state (window.c); the process has one, which gp__inj_win_lock hands out */
struct gp__inj_win;

/**
 * The state machine: moves state @p w for event @p ev (@p which: its GP_WIN_M_* bits) at
 * @p now (CLOCK_MONOTONIC ns) and says in @p out what the caller must do, in order. It calls
 * no other part of the tracer (core.c's warnings about bad options at GP_INJ_WIN_INIT aside),
 * reads the environment only at GP_INJ_WIN_INIT, and reads no clock.
 */
void gp__inj_win_step(struct gp__inj_win *w, enum gp__inj_win_ev ev, unsigned which, int64_t now,
                      struct gp__inj_win_out *out);
/**
 * The process's state, locked: its caller holds it from the step until the actions are done,
 * so that changes and their actions (CUPTI attached or not, WINDOW records) happen in one
 * order whatever the threads (gp__inj_win_event does all three).
 */
struct gp__inj_win *gp__inj_win_lock(void);
void gp__inj_win_unlock(struct gp__inj_win *w);
/** A state of its own, all zero (the unit tests'); 0, or -1 out of memory. Freed by
 * gp__inj_win_free (which leaves the process's alone). */
int gp__inj_win_new(struct gp__inj_win **out);
void gp__inj_win_free(struct gp__inj_win *w);
/** true while events are recorded (always, without window options). Any thread, lock-free. */
extern _Atomic bool gp__inj_rec;
static inline bool gp__inj_win_recording(void)
{
	return atomic_load_explicit(&gp__inj_rec, memory_order_relaxed);
}
/** true when NVTX messages must be compared with a window's names (gp__inj_win_match). */
bool gp__inj_win_watching(void);
/** true with --capture-range cudaProfilerApi. */
bool gp__inj_win_profiler_api(void);
/** Whether @p msg (@p n bytes) names a window range; @p which gets GP_WIN_M_* bits. */
bool gp__inj_win_match(const char *msg, size_t n, unsigned *which);
/** Writer thread: ns from @p now until the next edge of the time gate, -1 none. */
int64_t gp__inj_win_next_edge(int64_t now);
#define GP_INJ_MAX_WARM 4096 /* warm-ups remembered; later cycles have none */
/**
 * Decoder: where @p ts lies among the warm-ups (CUPTI attached, records
 * dropped) so far: 2w+1 inside warm-up w, 2k between warm-ups k-1 and k (0
 * before the first). Lock-free.
 */
long gp__inj_win_segment(int64_t ts);

/* ---- warm.c: the decoder's warm-up filter (writer thread) ---- */

/** An API call that began at @p start: whether it is kept (not in a warm-up); notes its id. */
bool gp__inj_warm_api(int64_t start, uint32_t corr);
/** A host record at @p ts (a sync, an overhead): whether it is kept. */
bool gp__inj_warm_host(int64_t ts);
/**
 * A GPU record (a GP_CAP_* @p type, @p size bytes at @p rec) that began at
 * @p start, made by call @p corr: written now, dropped (a warm-up made it),
 * or held until its call's segment is known (a copy is kept).
 */
void gp__inj_warm_gpu(uint32_t type, int64_t start, uint32_t corr, const void *rec, size_t size);
/** After a drain: writes or drops the held records now judged; @p last: all of them. */
void gp__inj_warm_settle(bool last);

/* ---- cupti.c ---- */

/** Loads CUPTI (dlopen, symbols); called from InitializeInjection. @return 0 when usable. */
int gp__inj_cupti_load(void);
/** Registers the clock and the buffers and enables the kinds (a window opens). */
void gp__inj_cupti_attach(void);
/** Disables the kinds and flushes; @p finalize: then detaches CUPTI at the next API exit. */
void gp__inj_cupti_detach(bool finalize);
/** Asks CUPTI for completed buffers (forced: also partial ones). Writer thread or exit. */
void gp__inj_cupti_flush(bool forced);
/** Decodes the CUPTI buffers handed over since the last call into records; writer thread. */
void gp__inj_cupti_drain(void);
/** Stops CUPTI for good (exit): forced flush, drain, disable. */
void gp__inj_cupti_stop(void);
/** Dropped-record counters for the GP_CAP_DROPPED record. */
void gp__inj_cupti_dropped(uint64_t *records, uint64_t *buffers);
/** The CUPTI version, 0 when not loaded. */
uint32_t gp__inj_cupti_version(void);

/* ---- carrying out the window's actions (record.c, cupti.c, session.c) ---- */

/**
 * Does what gp__inj_win_step said, in order. @p here, when not NULL, puts a
 * WINDOW record into the calling thread's block (record.c: a change caused
 * by that thread's range or mark is written in order with its events,
 * whatever the writer's passes); it returns false when it cannot, and the
 * record goes through the shared queue, as every other change's does.
 * Recording is published after its WINDOW record is made: no event of
 * another thread recorded in a window is older than the window's record.
 */
static inline void gp__inj_win_carry(const struct gp__inj_win_out *o,
                                     bool (*here)(const struct gp_cap_window *w))
{
	for (unsigned i = 0; i < o->n; i++) {
		const struct gp__inj_win_act *a = &o->a[i];
		struct gp_cap_window w = a->w;

		switch (a->op) {
		case GP_INJ_WIN_ATTACH:
			gp__inj_cupti_attach();
			break;
		case GP_INJ_WIN_DETACH:
			gp__inj_cupti_detach(a->finalize);
			break;
		case GP_INJ_WIN_RECORD:
			w.ts = here ? gp__inj_ts()
			            : a->w.ts; /* a block's records: the block's clock */
			if (!here || !here(&w)) {
				w.ts = a->w.ts;
				gp__inj_write(GP_CAP_WINDOW, &w, sizeof(w), NULL, 0);
			}
			if (a->publish)
				atomic_store(&gp__inj_rec, w.on);
			break;
		case GP_INJ_WIN_PUBLISH:
			atomic_store(&gp__inj_rec, a->w.on);
			break;
		}
	}
}

/** One event through the state machine, its actions carried out under the window's lock. */
static inline void gp__inj_win_event(enum gp__inj_win_ev ev, unsigned which,
                                     bool (*here)(const struct gp_cap_window *w))
{
	struct gp__inj_win_out o;
	struct gp__inj_win *w = gp__inj_win_lock();

	gp__inj_win_step(w, ev, which, (int64_t)gp__inj_now(), &o);
	gp__inj_win_carry(&o, here);
	gp__inj_win_unlock(w);
}

#endif
