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
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "inject.h"

#define BLOCK_SIZE (64u << 10)
#define MAX_MSG    4096u /* longer messages are cut */

static pthread_key_t g_key;
static bool g_key_ok;

struct tstate {
	struct gp_inj_block *b;
	int depth; /* open push/pop ranges, for the value push and pop return */
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

/* An event with attributes: message (ASCII, wide or registered), color, category. */
static void put_attr(uint8_t kind, uint32_t domain, uint64_t id, const nvtxEventAttributes_t *a)
{
	struct gp_cap_nvtx r;
	char wbuf[MAX_MSG];
	const char *msg = NULL;
	size_t n = 0;

	rec_init(&r, kind, domain);
	r.id = id;
	if (a && a->size >= 48) { /* NVTX_EVENT_ATTRIB_STRUCT_SIZE of version 2 and later */
		if (a->colorType == NVTX_COLOR_ARGB)
			r.color = a->color;
		r.category = a->category;
		switch (a->messageType) {
		case NVTX_MESSAGE_TYPE_ASCII:
			msg = a->message.ascii;
			n = msg ? strnlen(msg, MAX_MSG) : 0;
			break;
		case NVTX_MESSAGE_TYPE_UNICODE:
			n = utf8_of(a->message.unicode, wbuf, sizeof(wbuf));
			msg = wbuf;
			break;
		case NVTX_MESSAGE_TYPE_REGISTERED:
			r.name = (uint32_t)(uintptr_t)a->message.registered;
			break;
		default:
			break;
		}
	}
	put(&r, msg, n);
}

static void put_text(uint8_t kind, uint32_t domain, uint64_t id, const char *msg)
{
	struct gp_cap_nvtx r;

	rec_init(&r, kind, domain);
	r.id = id;
	put(&r, msg, msg ? strnlen(msg, MAX_MSG) : 0);
}

/* ---- the handlers ---- */

static void NVTX_API mark_ex(const nvtxEventAttributes_t *a)
{
	if (on())
		put_attr(GP_NVTX_MARK, 0, 0, a);
}

static void NVTX_API mark_a(const char *m)
{
	if (on())
		put_text(GP_NVTX_MARK, 0, 0, m);
}

static nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t *a)
{
	uint64_t id;

	if (!on())
		return 0;
	id = gp_inj_new_id();
	put_attr(GP_NVTX_START, 0, id, a);
	return id;
}

static nvtxRangeId_t NVTX_API start_a(const char *m)
{
	uint64_t id;

	if (!on())
		return 0;
	id = gp_inj_new_id();
	put_text(GP_NVTX_START, 0, id, m);
	return id;
}

static void NVTX_API range_end(nvtxRangeId_t id)
{
	if (on())
		put_text(GP_NVTX_END, 0, id, NULL);
}

static int NVTX_API push_ex(const nvtxEventAttributes_t *a)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	put_attr(GP_NVTX_PUSH, 0, 0, a);
	return t_st.depth++;
}

static int NVTX_API push_a(const char *m)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	put_text(GP_NVTX_PUSH, 0, 0, m);
	return t_st.depth++;
}

static int NVTX_API pop(void)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	put_text(GP_NVTX_POP, 0, 0, NULL);
	if (t_st.depth > 0)
		return --t_st.depth;
	return -1; /* a pop without a push */
}

static void NVTX_API name_thread_a(uint32_t tid, const char *name)
{
	if (on())
		put_text(GP_NVTX_NAME_THREAD, 0, tid, name);
}

static void NVTX_API mark_w(const wchar_t *m)
{
	char buf[MAX_MSG];
	struct gp_cap_nvtx r;

	if (!on())
		return;
	rec_init(&r, GP_NVTX_MARK, 0);
	put(&r, buf, utf8_of(m, buf, sizeof(buf)));
}

static int NVTX_API push_w(const wchar_t *m)
{
	char buf[MAX_MSG];
	struct gp_cap_nvtx r;

	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	rec_init(&r, GP_NVTX_PUSH, 0);
	put(&r, buf, utf8_of(m, buf, sizeof(buf)));
	return t_st.depth++;
}

static nvtxRangeId_t NVTX_API start_w(const wchar_t *m)
{
	char buf[MAX_MSG];
	struct gp_cap_nvtx r;

	if (!on())
		return 0;
	rec_init(&r, GP_NVTX_START, 0);
	r.id = gp_inj_new_id();
	put(&r, buf, utf8_of(m, buf, sizeof(buf)));
	return r.id;
}

/* domains: a handle is a process-wide id (NVTX calls init once per DSO) */
static uint32_t dom_id(nvtxDomainHandle_t d)
{
	return (uint32_t)(uintptr_t)d;
}

static void NVTX_API d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	if (on())
		put_attr(GP_NVTX_MARK, dom_id(d), 0, a);
}

static nvtxRangeId_t NVTX_API d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	uint64_t id;

	if (!on())
		return 0;
	id = gp_inj_new_id();
	put_attr(GP_NVTX_START, dom_id(d), id, a);
	return id;
}

static void NVTX_API d_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	if (on())
		put_text(GP_NVTX_END, dom_id(d), id, NULL);
}

static int NVTX_API d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	put_attr(GP_NVTX_PUSH, dom_id(d), 0, a);
	return t_st.depth++;
}

static int NVTX_API d_pop(nvtxDomainHandle_t d)
{
	if (!on())
		return NVTX_NO_PUSH_POP_TRACKING;
	put_text(GP_NVTX_POP, dom_id(d), 0, NULL);
	if (t_st.depth > 0)
		return --t_st.depth;
	return -1;
}

static nvtxStringHandle_t NVTX_API d_register_a(nvtxDomainHandle_t d, const char *s)
{
	struct gp_cap_string rec = { 0, 0 };

	(void)d;
	if (!on() || !s)
		return NULL;
	rec.id = gp_inj_new_id();
	gp_inj_write(GP_CAP_STRING, &rec, sizeof(rec), s, strnlen(s, MAX_MSG));
	return (nvtxStringHandle_t)(uintptr_t)rec.id;
}

static nvtxStringHandle_t NVTX_API d_register_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	struct gp_cap_string rec = { 0, 0 };
	char buf[MAX_MSG];

	(void)d;
	if (!on() || !s)
		return NULL;
	rec.id = gp_inj_new_id();
	gp_inj_write(GP_CAP_STRING, &rec, sizeof(rec), buf, utf8_of(s, buf, sizeof(buf)));
	return (nvtxStringHandle_t)(uintptr_t)rec.id;
}

static nvtxDomainHandle_t NVTX_API d_create_a(const char *name)
{
	struct gp_cap_nvtx r;

	if (!on())
		return NULL;
	rec_init(&r, GP_NVTX_DOMAIN, 0);
	r.id = gp_inj_new_id();
	put(&r, name, name ? strnlen(name, MAX_MSG) : 0);
	return (nvtxDomainHandle_t)(uintptr_t)r.id;
}

static nvtxDomainHandle_t NVTX_API d_create_w(const wchar_t *name)
{
	struct gp_cap_nvtx r;
	char buf[MAX_MSG];

	if (!on())
		return NULL;
	rec_init(&r, GP_NVTX_DOMAIN, 0);
	r.id = gp_inj_new_id();
	put(&r, buf, utf8_of(name, buf, sizeof(buf)));
	return (nvtxDomainHandle_t)(uintptr_t)r.id;
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
