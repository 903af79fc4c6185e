/* SPDX-License-Identifier: MIT */
/*
 * nvtx.c - the NVTX tool: InitializeInjectionNvtx2, loaded by every NVTX v3
 * user (each DSO that embeds NVTX calls it once) when NVTX_INJECTION64_PATH
 * names this library. It works without CUDA: a program that never starts
 * CUDA still has its ranges recorded. Built only with the CUDA toolkit's
 * nvtx3 headers; the recording itself is record.c's.
 *
 * Cost: a push and a pop each take one clock read and an append to the
 * calling thread's block, with no lock and no allocation (the message is
 * copied inline; registered strings, domains and range ids are process-wide
 * ids). The writer thread drains the blocks as they grow.
 */
#define NVTX_NO_IMPL
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "inject.h"

#define MAX_MSG GP_INJ_MAX_MSG

static bool on(void)
{
	return gp__inj_on();
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
	struct gp__inj_msg m;
	char buf[MAX_MSG];
};

static void msg_text(struct msg *m, const char *s)
{
	memset(&m->m, 0, sizeof(m->m));
	m->m.s = s;
	m->m.n = s ? strnlen(s, MAX_MSG) : 0;
}

static void msg_wide(struct msg *m, const wchar_t *w)
{
	memset(&m->m, 0, sizeof(m->m));
	m->m.n = utf8_of(w, m->buf, sizeof(m->buf));
	m->m.s = m->buf;
}

static void msg_attr(struct msg *m, const nvtxEventAttributes_t *a)
{
	memset(&m->m, 0, sizeof(m->m));
	if (!a || a->size < 48) /* NVTX_EVENT_ATTRIB_STRUCT_SIZE of version 2 and later */
		return;
	if (a->colorType == NVTX_COLOR_ARGB)
		m->m.color = a->color;
	m->m.category = a->category;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		m->m.s = a->message.ascii;
		m->m.n = m->m.s ? strnlen(m->m.s, MAX_MSG) : 0;
		break;
	case NVTX_MESSAGE_TYPE_UNICODE:
		m->m.n = utf8_of(a->message.unicode, m->buf, sizeof(m->buf));
		m->m.s = m->buf;
		break;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		m->m.reg = (uint32_t)(uintptr_t)a->message.registered;
		break;
	default:
		break;
	}
}

/* the record.c calls, with the window bits of the message */
static int do_push(uint32_t domain, const struct msg *m)
{
	return gp__inj_push(domain, &m->m, gp__inj_watch(&m->m));
}

static int do_pop(uint32_t domain)
{
	return gp__inj_pop(domain);
}

static nvtxRangeId_t do_start(uint32_t domain, const struct msg *m)
{
	return gp__inj_start(domain, &m->m, gp__inj_watch(&m->m));
}

static void do_end(uint32_t domain, nvtxRangeId_t id)
{
	gp__inj_end(domain, id);
}

static void do_mark(uint32_t domain, const struct msg *m)
{
	gp__inj_mark(domain, &m->m, gp__inj_watch(&m->m));
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
	gp__inj_name_thread(tid, &m.m);
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
	return (nvtxStringHandle_t)(uintptr_t)gp__inj_register_string(s, n);
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
	return register_string(m.m.s, m.m.n);
}

static nvtxDomainHandle_t create_domain(const struct msg *m)
{
	return (nvtxDomainHandle_t)(uintptr_t)gp__inj_domain(&m->m);
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

GP_INJ_EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

/*
 * Called once per DSO that uses NVTX. @return 1 to stay loaded; 0 (no
 * capture possible, or a forked child) turns that DSO's NVTX calls into
 * no-ops.
 */
int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	const NvtxExportTableCallbacks *cb;
	NvtxFunctionTable core = NULL, core2 = NULL;
	unsigned int ncore = 0, ncore2 = 0;

	if (!get || !on())
		return 0;
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
