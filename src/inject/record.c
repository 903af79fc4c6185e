/* SPDX-License-Identifier: MIT */
/*
 * record.c - the recording core of ranges, marks and counters, shared by the
 * NVTX tool (nvtx.c) and the annotation recorder (annotate.c). It needs no
 * CUDA header, so CPU-only builds have it too.
 *
 * Each thread appends its events to its own block (struct gp__inj_block,
 * core.c's, which session.c's writer drains): no lock and no allocation but a new block every
 * 64 KiB. A push and a pop each take one clock read (gp__inj_ts, the TSC
 * where it can) and one append. Registered strings, domains and range ids
 * are process-wide ids (gp__inj_new_id); definitions (strings, domains) go
 * through the shared queue, which the writer writes before the blocks of
 * the same pass, so a definition made before an event is in the file before
 * it (session.c, write_pass).
 *
 * Capture windows (window.c): a range or mark whose message names a window
 * range (--capture-range nvtx:NAME, --iter-range NAME) opens and closes
 * windows; the bits of a push are kept per domain and nesting level until
 * its pop (NVTX keeps a push/pop stack per thread per domain). Such an
 * event goes through window.c's state machine, and this file carries out
 * the actions it returns (gp__inj_win_carry): CUPTI attached or detached,
 * the WINDOW record into the calling thread's block (put_window_here).
 * Events are recorded inside windows only; definitions always.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

#define MAX_WATCH_DEPTH 32 /* push/pop levels whose window bits are kept (2 bits each) */
#define MAX_WATCHED     64 /* registered strings and open start/end ranges that match */
#define LEVEL_SLOTS     4  /* domains with push/pop ranges open at once on a thread */

/* a thread's push/pop stack in one domain (NVTX keeps one per thread per domain) */
struct level {
	uint32_t domain;
	int depth;      /* open push/pop ranges, for the value push and pop return */
	uint64_t wbits; /* per level: the GP_WIN_M_* bits of a range that opened a window */
};

struct tstate {
	struct gp__inj_block *b;
	uint32_t tid;
	/* [0]: the default domain; the others taken by a domain while it has ranges open */
	struct level lv[LEVEL_SLOTS];
};

static __thread struct tstate t_st;

static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static bool g_key_ok;

/*
 * A thread ends: its block is sealed (the writer recycles it once written)
 * and forgotten, so that an event from a later key destructor of this thread
 * takes a new block (and sets the key again: its destructor runs once more)
 * instead of writing into a block the writer may have handed to another thread.
 */
static void thread_gone(void *p)
{
	struct gp__inj_block *b = p;

	if (t_st.b == b)
		t_st.b = NULL;
	if (b)
		atomic_store_explicit(&b->sealed, true, memory_order_release);
}

static void make_key(void)
{
	g_key_ok = pthread_key_create(&g_key, thread_gone) == 0;
}

/* events (not definitions) are recorded inside capture windows only */
static inline bool rec(void)
{
	return gp__inj_win_recording();
}

/* reserve(), when the thread has no block or a full one */
static __attribute__((noinline)) unsigned char *reserve_slow(struct tstate *st)
{
	struct gp__inj_block *b = st->b;

	if (b)
		atomic_store_explicit(&b->sealed, true, memory_order_release);
	pthread_once(&g_key_once, make_key);
	b = st->b = gp__inj_block_new(GP_INJ_BLOCK_SIZE);
	if (g_key_ok)
		pthread_setspecific(g_key, b);
	if (!b) {
		gp__inj_nvtx_lost(1);
		return NULL;
	}
	return b->data;
}

/*
 * Room for @p need bytes in the calling thread's block (a new block when
 * full): the address to write at, or NULL (the memory bound: counted as
 * lost). commit() publishes them.
 */
static inline __attribute__((always_inline)) unsigned char *reserve(struct tstate *st, size_t need)
{
	struct gp__inj_block *b = st->b;

	if (__builtin_expect(b != NULL, 1)) {
		size_t used = atomic_load_explicit(&b->used, memory_order_relaxed);

		if (__builtin_expect(used + need <= b->cap, 1))
			return b->data + used;
	}
	return reserve_slow(st);
}

static inline void commit(struct tstate *st, size_t need)
{
	struct gp__inj_block *b = st->b;

	atomic_store_explicit(&b->used, atomic_load_explicit(&b->used, memory_order_relaxed) + need,
	                      memory_order_release);
}

static inline uint32_t tid_of(struct tstate *st)
{
	if (!st->tid)
		st->tid = gp__inj_tid();
	return st->tid;
}

/* Appends one record of @p type: @p r (@p nr bytes), then @p msg (@p n bytes), padded. */
static void put(struct tstate *st, uint32_t type, const void *r, size_t nr, const char *msg,
                size_t n)
{
	struct gp_cap_rec_header h;
	size_t pay, pad, need;
	unsigned char *p;

	if (n > GP_INJ_MAX_MSG)
		n = GP_INJ_MAX_MSG;
	pay = nr + n;
	pad = (8 - pay % 8) % 8;
	need = sizeof(h) + pay + pad;
	if (!(p = reserve(st, need)))
		return;
	h.type = type;
	h.size = (uint32_t)pay;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), r, nr);
	if (n)
		memcpy(p + sizeof(h) + nr, msg, n);
	memset(p + sizeof(h) + pay, 0, pad);
	commit(st, need);
}

/* An NVTX record without message text: the common case, built in place. */
static inline __attribute__((always_inline)) void
put_nvtx_short(struct tstate *st, uint8_t kind, uint32_t domain, uint32_t name, uint64_t id)
{
	const size_t need = sizeof(struct gp_cap_rec_header) + sizeof(struct gp_cap_nvtx);
	struct gp_cap_rec_header *h;
	struct gp_cap_nvtx *r;
	unsigned char *p;

	if (!(p = reserve(st, need)))
		return;
	/* the block's data is 8-aligned and every record a multiple of 8 */
	h = (struct gp_cap_rec_header *)(void *)p;
	r = (struct gp_cap_nvtx *)(void *)(p + sizeof(*h));
	h->type = GP_CAP_NVTX;
	h->size = sizeof(*r);
	r->ts = gp__inj_ts();
	r->tid = tid_of(st);
	r->kind = kind;
	memset(r->pad, 0, sizeof(r->pad));
	r->domain = domain;
	r->name = name;
	r->id = id;
	r->color = 0;
	r->category = 0;
	commit(st, need);
}

static void put_msg(struct tstate *st, uint8_t kind, uint32_t domain, uint64_t id,
                    const struct gp__inj_msg *m)
{
	struct gp_cap_nvtx r;

	if (!m->n && !m->color && !m->category) {
		put_nvtx_short(st, kind, domain, m->reg, id);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.ts = gp__inj_ts();
	r.tid = tid_of(st);
	r.kind = kind;
	r.domain = domain;
	r.id = id;
	r.name = m->reg;
	r.color = m->color;
	r.category = m->category;
	put(st, GP_CAP_NVTX, &r, sizeof(r), m->s, m->n);
}

/*
 * A WINDOW record (a change caused by this thread's range or mark) into the
 * calling thread's block, in order with its events (gp__inj_win_carry).
 * @return false when it cannot: it then goes through the shared queue.
 */
static bool put_window_here(const struct gp_cap_window *w)
{
	struct tstate *st = &t_st;
	const size_t need = sizeof(struct gp_cap_rec_header) + sizeof(*w);
	struct gp_cap_rec_header h = { GP_CAP_WINDOW, sizeof(*w) };
	unsigned char *p;

	if (gp__inj_forked() || !(p = reserve(st, need)))
		return false;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), w, sizeof(*w));
	commit(st, need);
	return true;
}

/* ---- capture windows: which events open and close them (window.c) ---- */

/* A range or mark of this thread through the windows' state machine, and its actions. */
static void win_event(enum gp__inj_win_ev ev, unsigned which)
{
	gp__inj_win_event(ev, which, put_window_here);
}

static pthread_mutex_t g_wmu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t id;
	unsigned which;
} g_wreg[MAX_WATCHED], g_wstart[MAX_WATCHED];
static size_t g_nwreg, g_nwstart;

unsigned gp__inj_watch(const struct gp__inj_msg *m)
{
	unsigned which = 0;

	if (!gp__inj_win_watching())
		return 0;
	if (m->reg) {
		pthread_mutex_lock(&g_wmu);
		for (size_t i = 0; i < g_nwreg; i++)
			if (g_wreg[i].id == m->reg)
				which = g_wreg[i].which;
		pthread_mutex_unlock(&g_wmu);
		return which;
	}
	gp__inj_win_match(m->s, m->n, &which);
	return which;
}

/* the window bits of a text (GCC 12 warns of a dangling `which` when this is inlined) */
static __attribute__((noinline)) unsigned match_bits(const char *s, size_t n)
{
	unsigned which = 0;

	gp__inj_win_match(s, n, &which);
	return which;
}

void gp__inj_watch_reg(uint32_t id, const char *s, size_t n)
{
	unsigned which;

	if (!gp__inj_win_watching() || !(which = match_bits(s, n)))
		return;
	pthread_mutex_lock(&g_wmu);
	if (g_nwreg < MAX_WATCHED) {
		size_t i = g_nwreg++;

		g_wreg[i].id = id;
		g_wreg[i].which = which;
	}
	pthread_mutex_unlock(&g_wmu);
}

/* ---- definitions ---- */

uint32_t gp__inj_register_string(const char *s, size_t n)
{
	struct gp_cap_string rec = { 0, 0 };

	if (n > GP_INJ_MAX_MSG)
		n = GP_INJ_MAX_MSG;
	rec.id = gp__inj_new_id();
	gp__inj_write(GP_CAP_STRING, &rec, sizeof(rec), s, n);
	gp__inj_watch_reg(rec.id, s, n);
	return rec.id;
}

uint32_t gp__inj_domain(const struct gp__inj_msg *m)
{
	struct gp_cap_nvtx r;
	size_t n = m->n > GP_INJ_MAX_MSG ? GP_INJ_MAX_MSG : m->n;

	/* through the queue (clock: gp__inj_now), so that it precedes any event naming it */
	memset(&r, 0, sizeof(r));
	r.ts = (int64_t)gp__inj_now();
	r.tid = gp__inj_tid();
	r.kind = GP_NVTX_DOMAIN;
	r.id = gp__inj_new_id();
	r.name = m->reg;
	gp__inj_write(GP_CAP_NVTX, &r, sizeof(r), m->s, n);
	return (uint32_t)r.id;
}

void gp__inj_name_thread(uint32_t tid, const struct gp__inj_msg *m)
{
	put_msg(&t_st, GP_NVTX_NAME_THREAD, 0, tid, m);
}

/* ---- events ---- */

/*
 * The stack of @p domain on this thread: slot 0 for the default domain, else
 * the slot that domain last had (kept while no other domain needs it), else
 * (@p take) a free one. NULL when there is none: more domains have ranges
 * open on this thread than there are slots; such a push is recorded (the
 * reader pairs pushes and pops itself) but not followed: no level, no window.
 */
static inline struct level *level_of(struct tstate *st, uint32_t domain, bool take)
{
	struct level *free_lv = NULL;

	if (domain == 0)
		return &st->lv[0];
	for (int i = 1; i < LEVEL_SLOTS; i++) {
		struct level *l = &st->lv[i];

		if (l->domain == domain)
			return l;
		if (l->depth <= 0 && !free_lv)
			free_lv = l;
	}
	if (!take || !free_lv)
		return NULL;
	free_lv->domain = domain;
	free_lv->depth = 0;
	free_lv->wbits = 0;
	return free_lv;
}

/* push: the window opens before the push is recorded; pop: closes after */
int gp__inj_push(uint32_t domain, const struct gp__inj_msg *m, unsigned which)
{
	struct tstate *st = &t_st;
	struct level *l = level_of(st, domain, true);
	int d;

	if (!l) {
		if (rec())
			put_msg(st, GP_NVTX_PUSH, domain, 0, m);
		return -2; /* NVTX_NO_PUSH_POP_TRACKING */
	}
	d = l->depth;
	if (which && d < MAX_WATCH_DEPTH) {
		win_event(GP_INJ_WIN_BEGIN, which);
		l->wbits |= (uint64_t)which << (2 * d);
	}
	if (rec())
		put_msg(st, GP_NVTX_PUSH, domain, 0, m);
	return l->depth++;
}

void gp__inj_push_reg(uint32_t domain, uint32_t reg, unsigned which)
{
	struct tstate *st = &t_st;
	struct level *l = level_of(st, domain, true);
	int d;

	if (!l) {
		if (rec())
			put_nvtx_short(st, GP_NVTX_PUSH, domain, reg, 0);
		return;
	}
	d = l->depth;
	if (which && d < MAX_WATCH_DEPTH) {
		win_event(GP_INJ_WIN_BEGIN, which);
		l->wbits |= (uint64_t)which << (2 * d);
	}
	if (rec())
		put_nvtx_short(st, GP_NVTX_PUSH, domain, reg, 0);
	l->depth++;
}

void gp__inj_mark_reg(uint32_t domain, uint32_t reg, unsigned which)
{
	if (which)
		win_event(GP_INJ_WIN_MARK, which);
	if (rec())
		put_nvtx_short(&t_st, GP_NVTX_MARK, domain, reg, 0);
}

int gp__inj_pop(uint32_t domain)
{
	struct tstate *st = &t_st;
	struct level *l = level_of(st, domain, false);
	unsigned w = 0;
	int d;

	if (rec())
		put_nvtx_short(st, GP_NVTX_POP, domain, 0, 0);
	if (!l || l->depth <= 0)
		return -1; /* a pop without a push (or of a push not followed) */
	d = --l->depth;
	if (d < MAX_WATCH_DEPTH) {
		w = (unsigned)(l->wbits >> (2 * d)) & 3u;
		l->wbits &= ~((uint64_t)3 << (2 * d));
	}
	if (w)
		win_event(GP_INJ_WIN_END, w);
	return d;
}

uint64_t gp__inj_start(uint32_t domain, const struct gp__inj_msg *m, unsigned which)
{
	uint64_t id = gp__inj_new_id();

	if (which) {
		pthread_mutex_lock(&g_wmu);
		if (g_nwstart < MAX_WATCHED) {
			g_wstart[g_nwstart].id = id;
			g_wstart[g_nwstart++].which = which;
		} else {
			which = 0; /* too many open at once: this one is not followed */
		}
		pthread_mutex_unlock(&g_wmu);
		if (which)
			win_event(GP_INJ_WIN_BEGIN, which);
	}
	if (rec())
		put_msg(&t_st, GP_NVTX_START, domain, id, m);
	return id;
}

void gp__inj_end(uint32_t domain, uint64_t id)
{
	unsigned w = 0;

	if (rec())
		put_nvtx_short(&t_st, GP_NVTX_END, domain, 0, id);
	if (!gp__inj_win_watching())
		return;
	pthread_mutex_lock(&g_wmu);
	for (size_t i = 0; i < g_nwstart; i++) {
		if (g_wstart[i].id == id) {
			w = g_wstart[i].which;
			g_wstart[i] = g_wstart[--g_nwstart];
			break;
		}
	}
	pthread_mutex_unlock(&g_wmu);
	if (w)
		win_event(GP_INJ_WIN_END, w);
}

void gp__inj_mark(uint32_t domain, const struct gp__inj_msg *m, unsigned which)
{
	if (which)
		win_event(GP_INJ_WIN_MARK, which);
	if (rec())
		put_msg(&t_st, GP_NVTX_MARK, domain, 0, m);
}

void gp__inj_counter(uint32_t name, double value)
{
	struct tstate *st = &t_st;
	const size_t need = sizeof(struct gp_cap_rec_header) + sizeof(struct gp_cap_counter);
	struct gp_cap_rec_header *h;
	struct gp_cap_counter *r;
	unsigned char *p;

	if (!rec() || !(p = reserve(st, need)))
		return;
	h = (struct gp_cap_rec_header *)(void *)p;
	r = (struct gp_cap_counter *)(void *)(p + sizeof(*h));
	h->type = GP_CAP_COUNTER;
	h->size = sizeof(*r);
	r->ts = gp__inj_ts();
	r->tid = tid_of(st);
	r->name = name;
	r->value = value;
	commit(st, need);
}

/*
 * A counter sample named by value (the annotation API past its sites): name 0,
 * then the name's @p n bytes (cut at GP_INJ_MAX_MSG), as an NVTX message follows
 * its record. Registers nothing: the capture grows with samples, not names.
 */
void gp__inj_counter_str(const char *s, size_t n, double value)
{
	struct gp_cap_counter r;

	if (!rec())
		return;
	memset(&r, 0, sizeof(r));
	r.ts = gp__inj_ts();
	r.tid = tid_of(&t_st);
	r.name = 0;
	r.value = value;
	put(&t_st, GP_CAP_COUNTER, &r, sizeof(r), s, n);
}
