/* SPDX-License-Identifier: MIT */
/*
 * nvtx.c - the NVTX tool: InitializeInjectionNvtx2, loaded by every NVTX v3
 * user (each DSO that embeds NVTX calls it once) when NVTX_INJECTION64_PATH
 * names this library. It works without CUDA: a program that never starts
 * CUDA still has its ranges recorded.
 *
 * Cost: a push and a pop each take one CLOCK_MONOTONIC read and an append
 * to the calling thread's block, with no lock and no allocation (the
 * message is copied inline; registered strings, domains and range ids are
 * process-wide ids). The writer thread drains the blocks as they grow.
 */
#define NVTX_NO_IMPL
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "inject.h"

#define BLOCK_SIZE (64u << 10)
#define MAX_MSG    4096u /* longer messages are cut */

static pthread_key_t g_key;
static bool g_key_ok;

#define MAX_WATCH_DEPTH 32 /* push/pop levels whose window bits are kept (2 bits each) */

struct tstate {
	struct gp_inj_block *b;
	int depth;      /* open push/pop ranges, for the value push and pop return */
	uint64_t wbits; /* per level: the GP_WIN_M_* bits of a range that opened a window */
};

static __thread struct tstate t_st;

static void thread_gone(void *p)
{
	struct gp_inj_block *b = p;

	if (b)
		atomic_store_explicit(&b->sealed, true, memory_order_release);
}

/* Appends one record to the thread's block (a new block when full). */
static void put(const struct gp_cap_nvtx *r, const char *msg, size_t n)
{
	static const unsigned char zero[8];
	struct gp_cap_rec_header h;
	struct gp_inj_block *b;
	size_t pay, pad, need, used;
	unsigned char *p;

	if (n > MAX_MSG)
		n = MAX_MSG;
	pay = sizeof(*r) + n;
	pad = (8 - pay % 8) % 8;
	need = sizeof(h) + pay + pad;
	b = t_st.b;
	used = b ? atomic_load_explicit(&b->used, memory_order_relaxed) : 0;
	if (!b || used + need > b->cap) {
		if (b)
			atomic_store_explicit(&b->sealed, true, memory_order_release);
		b = t_st.b = gp_inj_block_new(BLOCK_SIZE);
		if (g_key_ok)
			pthread_setspecific(g_key, b);
		if (!b) {
			gp_inj_nvtx_lost(1);
			return;
		}
		used = 0;
	}
	h.type = GP_CAP_NVTX;
	h.size = (uint32_t)pay;
	p = b->data + used;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), r, sizeof(*r));
	if (n)
		memcpy(p + sizeof(h) + sizeof(*r), msg, n);
	memcpy(p + sizeof(h) + pay, zero, pad);
	atomic_store_explicit(&b->used, used + need, memory_order_release);
}

static bool on(void)
{
	return !gp_inj_forked() && gp_inj_session();
}

/* events (not definitions) are recorded inside capture windows only */
static bool rec(void)
{
	return gp_inj_win_recording();
}

static void rec_init(struct gp_cap_nvtx *r, uint8_t kind, uint32_t domain)
{
	memset(r, 0, sizeof(*r));
	r->ts = (int64_t)gp_inj_now();
	r->tid = gp_inj_tid();
	r->kind = kind;
	r->domain = domain;
}

/* A wide string as UTF-8 into @p out (at most @p cap bytes). */
static size_t utf8_of(const wchar_t *w, char *out, size_t cap)
{
	size_t n = 0;

	for (; w && *w && n + 4 <= cap; w++) {
		uint32_t c = (uint32_t)*w;

		if (c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
			c = 0xfffd;
		if (c < 0x80) {
			out[n++] = (char)c;
		} else if (c < 0x800) {
			out[n++] = (char)(0xc0 | c >> 6);
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[n++] = (char)(0xe0 | c >> 12);
			out[n++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[n++] = (char)(0xf0 | c >> 18);
			out[n++] = (char)(0x80 | (c >> 12 & 0x3f));
			out[n++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		}
	}
	return n;
}

/* An event's message: text (ASCII or converted), or a registered string's id. */
struct msg {
	const char *s;
	size_t n;
	uint32_t reg, color, category;
	char buf[MAX_MSG];
};

static void msg_text(struct msg *m, const char *s)
{
	memset(m, 0, offsetof(struct msg, buf));
	m->s = s;
	m->n = s ? strnlen(s, MAX_MSG) : 0;
}

static void msg_wide(struct msg *m, const wchar_t *w)
{
	memset(m, 0, offsetof(struct msg, buf));
	m->n = utf8_of(w, m->buf, sizeof(m->buf));
	m->s = m->buf;
}

static void msg_attr(struct msg *m, const nvtxEventAttributes_t *a)
{
	memset(m, 0, offsetof(struct msg, buf));
	if (!a || a->size < 48) /* NVTX_EVENT_ATTRIB_STRUCT_SIZE of version 2 and later */
		return;
	if (a->colorType == NVTX_COLOR_ARGB)
		m->color = a->color;
	m->category = a->category;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		m->s = a->message.ascii;
		m->n = m->s ? strnlen(m->s, MAX_MSG) : 0;
		break;
	case NVTX_MESSAGE_TYPE_UNICODE:
		m->n = utf8_of(a->message.unicode, m->buf, sizeof(m->buf));
		m->s = m->buf;
		break;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		m->reg = (uint32_t)(uintptr_t)a->message.registered;
		break;
	default:
		break;
	}
}

static void put_msg(uint8_t kind, uint32_t domain, uint64_t id, const struct msg *m)
{
	struct gp_cap_nvtx r;

	rec_init(&r, kind, domain);
	r.id = id;
	r.name = m->reg;
	r.color = m->color;
	r.category = m->category;
	put(&r, m->s, m->n);
}

/* ---- capture windows: which events open and close them (window.c) ---- */

#define MAX_WATCHED 64 /* registered strings and open start/end ranges that match */

static pthread_mutex_t g_wmu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t id;
	unsigned which;
} g_wreg[MAX_WATCHED], g_wstart[MAX_WATCHED];
static size_t g_nwreg, g_nwstart;

/* GP_WIN_M_* bits of the message, 0 when it names no window range */
static unsigned watch(const struct msg *m)
{
	unsigned which = 0;

	if (!gp_inj_win_watching())
		return 0;
	if (m->reg) {
		pthread_mutex_lock(&g_wmu);
		for (size_t i = 0; i < g_nwreg; i++)
			if (g_wreg[i].id == m->reg)
				which = g_wreg[i].which;
		pthread_mutex_unlock(&g_wmu);
		return which;
	}
	gp_inj_win_match(m->s, m->n, &which);
	return which;
}

static void watch_reg(uint32_t id, const char *s, size_t n)
{
	unsigned which;

	if (!gp_inj_win_watching() || !gp_inj_win_match(s, n, &which))
		return;
	pthread_mutex_lock(&g_wmu);
	if (g_nwreg < MAX_WATCHED) {
		g_wreg[g_nwreg].id = id;
		g_wreg[g_nwreg++].which = which;
	}
	pthread_mutex_unlock(&g_wmu);
}

/* push: the window opens before the push is recorded; pop: closes after */
static int do_push(uint32_t domain, const struct msg *m)
{
	unsigned w = watch(m);
	int d = t_st.depth;

	if (w && d < MAX_WATCH_DEPTH) {
		gp_inj_win_begin(w);
		t_st.wbits |= (uint64_t)w << (2 * d);
	}
	if (rec())
		put_msg(GP_NVTX_PUSH, domain, 0, m);
	return t_st.depth++;
}

static int do_pop(uint32_t domain)
{
	struct gp_cap_nvtx r;
	unsigned w = 0;
	int d;

	if (rec()) {
		rec_init(&r, GP_NVTX_POP, domain);
		put(&r, NULL, 0);
	}
	if (t_st.depth <= 0)
		return -1; /* a pop without a push */
	d = --t_st.depth;
	if (d < MAX_WATCH_DEPTH) {
		w = (unsigned)(t_st.wbits >> (2 * d)) & 3u;
		t_st.wbits &= ~((uint64_t)3 << (2 * d));
	}
	if (w)
		gp_inj_win_end(w);
	return d;
}

static nvtxRangeId_t do_start(uint32_t domain, const struct msg *m)
{
	uint64_t id = gp_inj_new_id();
	unsigned w = watch(m);

	if (w) {
		pthread_mutex_lock(&g_wmu);
		if (g_nwstart < MAX_WATCHED) {
			g_wstart[g_nwstart].id = id;
			g_wstart[g_nwstart++].which = w;
		} else {
			w = 0; /* too many open at once: this one is not followed */
		}
		pthread_mutex_unlock(&g_wmu);
		if (w)
			gp_inj_win_begin(w);
	}
	if (rec())
		put_msg(GP_NVTX_START, domain, id, m);
	return id;
}

static void do_end(uint32_t domain, nvtxRangeId_t id)
{
	struct gp_cap_nvtx r;
	unsigned w = 0;

	if (rec()) {
		rec_init(&r, GP_NVTX_END, domain);
		r.id = id;
		put(&r, NULL, 0);
	}
	if (!gp_inj_win_watching())
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
		gp_inj_win_end(w);
}

static void do_mark(uint32_t domain, const struct msg *m)
{
	unsigned w = watch(m);

	if (w)
		gp_inj_win_mark(w);
	if (rec())
		put_msg(GP_NVTX_MARK, domain, 0, m);
}

/* ---- the handlers ---- */

static void NVTX_API mark_ex(const nvtxEventAttributes_t *a)
{
	struct msg m;

	if (!on())
		return;
	msg_attr(&m, a);
	do_mark(0, &m);
}

static void NVTX_API mark_a(const char *s)
{
	struct msg m;

	if (!on())
		return;
	msg_text(&m, s);
	do_mark(0, &m);
}

static void NVTX_API mark_w(const wchar_t *s)
{
	struct msg m;

	if (!on())
		return;
	msg_wide(&m, s);
	do_mark(0, &m);
}

static nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t *a)
{
	struct msg m;

	if (!on())
		return 0;
	msg_attr(&m, a);
	return do_start(0, &m);
}

static nvtxRangeId_t NVTX_API start_a(const char *s)
{
	struct msg m;

	if (!on())
		return 0;
	msg_text(&m, s);
	return do_start(0, &m);
}

static nvtxRangeId_t NVTX_API start_w(const wchar_t *s)
{
	struct msg m;

	if (!on())
		return 0;
	msg_wide(&m, s);
	return do_start(0, &m);
}

static void NVTX_API range_end(nvtxRangeId_t id)
{
	if (on())
		do_end(0, id);
}

static int NVTX_API push_ex(const nvtxEventAttributes_t *a)
{
	struct msg m;

	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	msg_attr(&m, a);
	return do_push(0, &m);
}

static int NVTX_API push_a(const char *s)
{
	struct msg m;

	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	msg_text(&m, s);
	return do_push(0, &m);
}

static int NVTX_API push_w(const wchar_t *s)
{
	struct msg m;

	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	msg_wide(&m, s);
	return do_push(0, &m);
}

static int NVTX_API pop(void)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	return do_pop(0);
}

static void NVTX_API name_thread_a(uint32_t tid, const char *name)
{
	struct msg m;

	if (!on())
		return;
	msg_text(&m, name);
	put_msg(GP_NVTX_NAME_THREAD, 0, tid, &m);
}

/* domains: a handle is a process-wide id (NVTX calls init once per DSO) */
static uint32_t dom_id(nvtxDomainHandle_t d)
{
	return (uint32_t)(uintptr_t)d;
}

static void NVTX_API d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	struct msg m;

	if (!on())
		return;
	msg_attr(&m, a);
	do_mark(dom_id(d), &m);
}

static nvtxRangeId_t NVTX_API d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	struct msg m;

	if (!on())
		return 0;
	msg_attr(&m, a);
	return do_start(dom_id(d), &m);
}

static void NVTX_API d_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	if (on())
		do_end(dom_id(d), id);
}

static int NVTX_API d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	struct msg m;

	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	msg_attr(&m, a);
	return do_push(dom_id(d), &m);
}

static int NVTX_API d_pop(nvtxDomainHandle_t d)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	return do_pop(dom_id(d));
}

static nvtxStringHandle_t register_string(const char *s, size_t n)
{
	struct gp_cap_string rec = { 0, 0 };

	rec.id = gp_inj_new_id();
	gp_inj_write(GP_CAP_STRING, &rec, sizeof(rec), s, n);
	watch_reg(rec.id, s, n);
	return (nvtxStringHandle_t)(uintptr_t)rec.id;
}

static nvtxStringHandle_t NVTX_API d_register_a(nvtxDomainHandle_t d, const char *s)
{
	(void)d;
	if (!on() || !s)
		return NULL;
	return register_string(s, strnlen(s, MAX_MSG));
}

static nvtxStringHandle_t NVTX_API d_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	struct msg m;

	(void)d;
	if (!on() || !s)
		return NULL;
	msg_wide(&m, s);
	return register_string(m.s, m.n);
}

static nvtxDomainHandle_t create_domain(const struct msg *m)
{
	uint32_t id = gp_inj_new_id();

	put_msg(GP_NVTX_DOMAIN, 0, id, m);
	return (nvtxDomainHandle_t)(uintptr_t)id;
}

static nvtxDomainHandle_t NVTX_API d_create_a(const char *name)
{
	struct msg m;

	if (!on())
		return NULL;
	msg_text(&m, name);
	return create_domain(&m);
}

static nvtxDomainHandle_t NVTX_API d_create_w(const wchar_t *name)
{
	struct msg m;

	if (!on())
		return NULL;
	msg_wide(&m, name);
	return create_domain(&m);
}

static void NVTX_API d_destroy(nvtxDomainHandle_t d)
{
	(void)d; /* ids stay unique: nothing to free */
}

/* ---- the entry point ---- */

static void set(NvtxFunctionTable table, unsigned int size, unsigned id, NvtxFunctionPointer fn)
{
	if (table && id < size && table[id])
		*table[id] = fn;
}

static void make_key(void)
{
	g_key_ok = pthread_key_create(&g_key, thread_gone) == 0;
}

GP_INJ_EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

/*
 * Called once per DSO that uses NVTX. @return 1 to stay loaded; 0 (no
 * capture possible, or a forked child) turns that DSO's NVTX calls into
 * no-ops.
 */
int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const NvtxExportTableCallbacks *cb;
	NvtxFunctionTable core = NULL, core2 = NULL;
	unsigned int ncore = 0, ncore2 = 0;

	if (!get || !on())
		return 0;
	pthread_once(&once, make_key);
	cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable)
		return 0;
	if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &ncore))
		core = NULL;
	if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &ncore2))
		core2 = NULL;
#define FP(f) ((NvtxFunctionPointer)(void (*)(void))(f))
	set(core, ncore, NVTX_CBID_CORE_MarkEx, FP(mark_ex));
	set(core, ncore, NVTX_CBID_CORE_MarkA, FP(mark_a));
	set(core, ncore, NVTX_CBID_CORE_MarkW, FP(mark_w));
	set(core, ncore, NVTX_CBID_CORE_RangeStartEx, FP(start_ex));
	set(core, ncore, NVTX_CBID_CORE_RangeStartA, FP(start_a));
	set(core, ncore, NVTX_CBID_CORE_RangeStartW, FP(start_w));
	set(core, ncore, NVTX_CBID_CORE_RangeEnd, FP(range_end));
	set(core, ncore, NVTX_CBID_CORE_RangePushEx, FP(push_ex));
	set(core, ncore, NVTX_CBID_CORE_RangePushA, FP(push_a));
	set(core, ncore, NVTX_CBID_CORE_RangePushW, FP(push_w));
	set(core, ncore, NVTX_CBID_CORE_RangePop, FP(pop));
	set(core, ncore, NVTX_CBID_CORE_NameOsThreadA, FP(name_thread_a));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainMarkEx, FP(d_mark_ex));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainRangeStartEx, FP(d_start_ex));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainRangeEnd, FP(d_end));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainRangePushEx, FP(d_push_ex));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainRangePop, FP(d_pop));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainRegisterStringA, FP(d_register_a));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainRegisterStringW, FP(d_register_w));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainCreateA, FP(d_create_a));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainCreateW, FP(d_create_w));
	set(core2, ncore2, NVTX_CBID_CORE2_DomainDestroy, FP(d_destroy));
#undef FP
	return 1;
}
