/* SPDX-License-Identifier: MIT */
/*
 * core.c - what every part of the injected tracer shares, and calls nothing
 * else of it: the capture's clock, thread and record ids, the forked-child
 * flag, the memory the writer drains (the shared record queue, the
 * per-thread blocks and their spares, the allocator under the fork lock),
 * the loss counters and the writer's wake-up futex.
 *
 * Entry points live elsewhere (session.c: constructor, fork handlers, exit,
 * the writer thread; nvtx.c, annotate.c, cupti.c: the callbacks), so the
 * file graph of src/inject/ has no cycle: core.c is its leaf.
 *
 * Locking: g_mu guards the queue, the blocks list, the spares and the
 * counters, and every allocation the writer thread makes (gp__inj_alloc):
 * session.c's fork_prepare takes it (gp__inj_core_lock), so that no fork
 * happens while the writer is inside the allocator (glibc's is fork-safe; a
 * sanitizer's is not: the child then hangs in its next malloc or at exit).
 * Memory is bounded (gp__inj_core_open's max_bytes, for queued records and
 * blocks): what does not fit is dropped and counted.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

#define KICK_BYTES (4u << 20) /* this much waiting: a pass now, not at the next tick */
/*
 * Blocks ready for the threads' next ones, their pages touched (a page fault
 * on a thread's hot path costs more than the event): written blocks are kept
 * for reuse up to SPARE_MAX_BYTES (a quarter of the bound at most), and the
 * writer keeps at least SPARE_MIN ready, allocated and touched on its thread.
 * They count in g_held.
 */
#define SPARE_MAX_BYTES (32u << 20)
#define SPARE_MIN       16

static _Atomic bool g_forked; /* this process is a forked child: record nothing */
static _Atomic uint32_t g_next_id = 1;
static bool g_open;    /* the capture is open: records are accepted */
static bool g_verbose; /* GPUPROF_INJECT_VERBOSE: warnings on stderr too */
static size_t g_max_bytes = (size_t)256 << 20;

bool gp__inj_tsc; /* block events carry the TSC (set before the writer starts) */
_Atomic bool gp__inj_live;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER; /* everything below */
static unsigned char *g_q;                               /* queued records */
static size_t g_qlen, g_qcap;
/*
 * NVTX blocks in the order they were made, so that a pass writes a thread's
 * full (sealed) blocks before its current one: a thread's records must be
 * in the file in the order it made them (the reader pairs pushes and pops
 * in file order).
 */
static struct gp__inj_block *g_blocks, *g_blocks_last;
static struct gp__inj_block *g_spare;
static size_t g_nspare;
static size_t g_held; /* bytes of g_q + blocks */
static struct gp__inj_lost g_lost;

/* ---- clock, ids, flags ---- */

uint64_t gp__inj_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __thread uint32_t t_tid;

uint32_t gp__inj_tid(void)
{
	if (!t_tid)
		t_tid = (uint32_t)syscall(SYS_gettid);
	return t_tid;
}

uint32_t gp__inj_new_id(void)
{
	return atomic_fetch_add(&g_next_id, 1);
}

bool gp__inj_forked(void)
{
	return atomic_load_explicit(&g_forked, memory_order_relaxed);
}

void gp__inj_core_open(size_t max_bytes, bool verbose)
{
	g_max_bytes = max_bytes;
	g_verbose = verbose;
	g_open = true;
}

bool gp__inj_core_is_open(void)
{
	return g_open;
}

void gp__inj_core_close(void)
{
	g_open = false;
}

/* ---- fork ---- */

void gp__inj_core_lock(void)
{
	pthread_mutex_lock(&g_mu);
}

void gp__inj_core_unlock(void)
{
	pthread_mutex_unlock(&g_mu);
}

void gp__inj_core_forked(void)
{
	/* the writer thread does not exist here; the parent's file is not ours */
	atomic_store(&g_forked, true);
	atomic_store(&gp__inj_live, false);
	pthread_mutex_unlock(&g_mu);
}

/* ---- waking the writer: futexes, no descriptor the program could close ---- */

static _Atomic uint32_t g_wake;   /* bumped by every request; the writer waits on it */
static _Atomic bool g_req_kick;   /* much is waiting: a pass now */
static _Atomic size_t g_kick_new; /* bytes of blocks made since the last pass */

long gp__inj_futex(_Atomic uint32_t *w, int op, uint32_t v, const struct timespec *rel)
{
	return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, v, rel, NULL, 0);
}

void gp__inj_wake(void)
{
	atomic_fetch_add(&g_wake, 1);
	gp__inj_futex(&g_wake, FUTEX_WAKE, 1, NULL);
}

void gp__inj_kick(void)
{
	if (!atomic_exchange(&g_req_kick, true))
		gp__inj_wake();
}

uint32_t gp__inj_wake_seq(void)
{
	return atomic_load(&g_wake);
}

void gp__inj_wait(uint32_t seq, int ms)
{
	struct timespec rel = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (!atomic_load(&g_req_kick))
		gp__inj_futex(&g_wake, FUTEX_WAIT, seq, &rel);
}

void gp__inj_kick_reset(void)
{
	atomic_store(&g_req_kick, false);
	atomic_store(&g_kick_new, 0);
}

/* ---- the queue ---- */

void gp__inj_write(uint32_t type, const void *a, size_t na, const void *b, size_t nb)
{
	static const unsigned char zero[8];
	struct gp_cap_rec_header h;
	size_t pay = na + nb, pad = (8 - pay % 8) % 8, need;
	bool kick;

	if (!g_open || gp__inj_forked() || pay > GP_CAP_MAX_PAYLOAD)
		return;
	need = sizeof(h) + pay + pad;
	h.type = type;
	h.size = (uint32_t)pay;
	pthread_mutex_lock(&g_mu);
	if (g_qlen + need > g_qcap) {
		size_t cap = g_qcap ? g_qcap : 65536;
		unsigned char *q;

		while (cap < g_qlen + need)
			cap *= 2;
		if (g_held - g_qcap + cap > g_max_bytes || !(q = realloc(g_q, cap))) {
			g_lost.queue_records++;
			pthread_mutex_unlock(&g_mu);
			return;
		}
		g_held += cap - g_qcap;
		g_q = q;
		g_qcap = cap;
	}
	memcpy(g_q + g_qlen, &h, sizeof(h));
	if (na)
		memcpy(g_q + g_qlen + sizeof(h), a, na);
	if (nb)
		memcpy(g_q + g_qlen + sizeof(h) + na, b, nb);
	memcpy(g_q + g_qlen + sizeof(h) + pay, zero, pad);
	g_qlen += need;
	kick = g_qlen >= KICK_BYTES && g_qlen - need < KICK_BYTES;
	pthread_mutex_unlock(&g_mu);
	if (kick)
		gp__inj_kick();
}

void gp__inj_warn(uint32_t code, const char *fmt, ...)
{
	struct gp_cap_warn w = { (int64_t)gp__inj_now(), code, 0 };
	char text[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	gp__inj_write(GP_CAP_WARN, &w, sizeof(w), text, (size_t)n);
	if (g_verbose)
		fprintf(stderr, "gpuprof-inject[%d]: %s\n", (int)getpid(), text);
}

size_t gp__inj_queue_take(unsigned char **q)
{
	size_t qlen;

	pthread_mutex_lock(&g_mu);
	*q = g_q;
	qlen = g_qlen;
	g_held -= g_qcap;
	g_q = NULL;
	g_qlen = g_qcap = 0;
	pthread_mutex_unlock(&g_mu);
	return qlen;
}

size_t gp__inj_queue_len(void)
{
	size_t n;

	pthread_mutex_lock(&g_mu);
	n = g_qlen;
	pthread_mutex_unlock(&g_mu);
	return n;
}

/* ---- blocks ---- */

struct gp__inj_block *gp__inj_block_new(size_t cap)
{
	struct gp__inj_block *b;

	if (!g_open || gp__inj_forked())
		return NULL;
	pthread_mutex_lock(&g_mu);
	if (g_spare && g_spare->cap == cap) {
		b = g_spare; /* still counted in g_held */
		g_spare = b->next;
		g_nspare--;
	} else if (g_held + cap > g_max_bytes || !(b = malloc(sizeof(*b) + cap))) {
		pthread_mutex_unlock(&g_mu);
		return NULL;
	} else {
		g_held += cap;
	}
	atomic_init(&b->used, 0);
	atomic_init(&b->sealed, false);
	b->written = 0;
	b->snap = 0;
	b->cap = cap;
	b->next = NULL;
	if (g_blocks_last)
		g_blocks_last->next = b;
	else
		g_blocks = b;
	g_blocks_last = b;
	pthread_mutex_unlock(&g_mu);
	if (atomic_fetch_add(&g_kick_new, cap) + cap >= KICK_BYTES)
		gp__inj_kick();
	return b;
}

void gp__inj_blocks_span(struct gp__inj_block **head, struct gp__inj_block **last)
{
	pthread_mutex_lock(&g_mu);
	*head = g_blocks;
	*last = g_blocks_last;
	pthread_mutex_unlock(&g_mu);
}

static size_t spare_max(void)
{
	size_t m = g_max_bytes / 4 < SPARE_MAX_BYTES ? g_max_bytes / 4 : SPARE_MAX_BYTES;

	return m / GP_INJ_BLOCK_SIZE;
}

void gp__inj_blocks_reap(void)
{
	struct gp__inj_block *prev, *next, *b, *dead = NULL;

	pthread_mutex_lock(&g_mu);
	for (prev = NULL, b = g_blocks; b; b = next) {
		next = b->next;
		if (!atomic_load_explicit(&b->sealed, memory_order_acquire) ||
		    b->written != atomic_load_explicit(&b->used, memory_order_acquire)) {
			prev = b;
			continue;
		}
		if (prev)
			prev->next = next;
		else
			g_blocks = next;
		if (g_blocks_last == b)
			g_blocks_last = prev;
		if (g_nspare < spare_max()) {
			b->next = g_spare;
			g_spare = b;
			g_nspare++;
			continue;
		}
		g_held -= b->cap;
		b->next = dead;
		dead = b;
	}
	while (dead) {
		b = dead->next;
		free(dead);
		dead = b;
	}
	pthread_mutex_unlock(&g_mu);
}

void gp__inj_spare_fill(void)
{
	for (;;) {
		struct gp__inj_block *b;

		pthread_mutex_lock(&g_mu);
		if (g_nspare >= SPARE_MIN || g_held + GP_INJ_BLOCK_SIZE > g_max_bytes) {
			pthread_mutex_unlock(&g_mu);
			return;
		}
		/* malloc under g_mu, which fork_prepare takes: no fork while this thread is inside
		 * the allocator (a sanitizer's allocator, unlike glibc's, is not fork-safe) */
		b = malloc(sizeof(*b) + GP_INJ_BLOCK_SIZE);
		if (!b) {
			pthread_mutex_unlock(&g_mu);
			return;
		}
		g_held += GP_INJ_BLOCK_SIZE;
		pthread_mutex_unlock(&g_mu);
		memset(b->data, 0, GP_INJ_BLOCK_SIZE); /* the page faults, here */
		b->cap = GP_INJ_BLOCK_SIZE;
		pthread_mutex_lock(&g_mu);
		b->next = g_spare;
		g_spare = b;
		g_nspare++;
		pthread_mutex_unlock(&g_mu);
	}
}

/* ---- the allocator of the writer thread, and the counters ---- */

void *gp__inj_alloc(size_t n, bool zero)
{
	void *p;

	pthread_mutex_lock(&g_mu);
	p = zero ? calloc(1, n) : malloc(n);
	pthread_mutex_unlock(&g_mu);
	return p;
}

void gp__inj_free(void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&g_mu);
	free(p);
	pthread_mutex_unlock(&g_mu);
}

void gp__inj_nvtx_lost(uint64_t n)
{
	pthread_mutex_lock(&g_mu);
	g_lost.nvtx_records += n;
	pthread_mutex_unlock(&g_mu);
}

void gp__inj_write_lost(uint64_t bytes)
{
	pthread_mutex_lock(&g_mu);
	g_lost.write_bytes += bytes;
	pthread_mutex_unlock(&g_mu);
}

void gp__inj_lost_get(struct gp__inj_lost *out)
{
	pthread_mutex_lock(&g_mu);
	*out = g_lost;
	pthread_mutex_unlock(&g_mu);
}
