/* SPDX-License-Identifier: MIT */
/*
 * annotate.c - the recorder of the annotation API (include/gpuprof/annotate.h):
 * gpuprof_annotate_init_v1, which a program's annotate.h init calls after
 * dlopen'ing this library (GPUPROF_ANNOTATE_LIBRARY, set by `gpuprof run`).
 * It needs no CUDA: a CPU-only program is captured all the same.
 *
 * Ranges and frame marks become NVTX records (push, pop, mark) in the domain
 * "gpuprof", created once, through record.c: they nest with NVTX ranges on
 * the same thread and open capture windows exactly as NVTX ranges do
 * (--capture-range nvtx:NAME, --iter-range NAME). Counters become COUNTER
 * records. A site is registered on its first call: its name as a STRING
 * (the site's id), its file and function as STRINGs (shared per pointer),
 * and a SITE record; the id and the site's window bits are then cached in
 * site->tool, so later calls copy no string, take no lock and allocate
 * nothing: one clock read and one append (docs/annotate.md, bench/).
 *
 * Names by value (push_str, frame_str, counter_str: a binding past its limit
 * of sites, GPUPROF_ANNOTATE_MAX_SITES, or names made at run time) register
 * nothing: the push or mark is an NVTX record with its name inline, the
 * counter sample a COUNTER record with name 0 and the name after it, so
 * memory and the capture grow with events, not with distinct names. Windows
 * match them by their text. The first such call writes one WARN record.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#define GPUPROF_DISABLE /* the types only: this library is the recorder, not a user */
#include "gpuprof/annotate.h"
#include "inject.h"

#define TOOL_SET  (1ull << 63) /* site->tool: registered */
#define TOOL_ID   0xffffffffull
#define TOOL_WIN  32   /* GP_WIN_M_* bits at bit 32 */
#define MAX_PATHS 4096 /* file and function strings shared by pointer */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static uint32_t g_domain;        /* the "gpuprof" domain's id; 0: not usable */
static atomic_bool g_byval_seen; /* the WARN of names by value is written */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER; /* registration */
static struct {
	const char *p;
	uint32_t id;
} g_paths[MAX_PATHS];

static void make_domain(void)
{
	struct gp__inj_msg m = { "gpuprof", 7, 0, 0, 0 };

	g_domain = gp__inj_domain(&m);
}

/* A STRING record for a file or function name, one per distinct pointer (g_mu held). */
static uint32_t path_id(const char *p)
{
	size_t h, i;

	if (!p || !*p)
		return 0;
	h = ((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull >> 52; /* 12 bits */
	for (i = 0; i < MAX_PATHS; i++) {
		size_t k = (h + i) % MAX_PATHS;

		if (g_paths[k].p == p)
			return g_paths[k].id;
		if (!g_paths[k].p) {
			struct gp_cap_string s = { gp__inj_new_id(), 0 };

			gp__inj_write(GP_CAP_STRING, &s, sizeof(s), p, strnlen(p, GP_INJ_MAX_MSG));
			g_paths[k].p = p;
			g_paths[k].id = s.id;
			return s.id;
		}
	}
	return 0; /* full: the site's file or function is unknown */
}

/* The first call of a site: its records, and its cached id and window bits. */
static uint64_t site_register(struct gpuprof_site *s)
{
	struct gp_cap_site rec;
	struct gp_cap_string str;
	unsigned which = 0;
	uint64_t v;
	size_t n;

	pthread_mutex_lock(&g_mu);
	v = __atomic_load_n(&s->tool, __ATOMIC_ACQUIRE);
	if (v & TOOL_SET)
		goto out; /* another thread was first */
	n = strnlen(s->name, GP_INJ_MAX_MSG);
	str.id = gp__inj_new_id();
	str.pad = 0;
	gp__inj_write(GP_CAP_STRING, &str, sizeof(str), s->name, n);
	memset(&rec, 0, sizeof(rec));
	rec.id = str.id;
	rec.line = s->line;
	rec.file = path_id(s->file);
	rec.func = path_id(s->func);
	gp__inj_write(GP_CAP_SITE, &rec, sizeof(rec), NULL, 0);
	if (gp__inj_win_watching())
		gp__inj_win_match(s->name, n, &which);
	v = TOOL_SET | (uint64_t)(which & 3u) << TOOL_WIN | str.id;
	__atomic_store_n(&s->tool, v, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&g_mu);
	return v;
}

/* The site's cached word (registering it on first use); 0: ignore the call. */
static inline uint64_t site_get(struct gpuprof_site *s)
{
	uint64_t v;

	if (!s || !s->name || s->size < sizeof(struct gpuprof_site) || !gp__inj_on())
		return 0;
	v = __atomic_load_n(&s->tool, __ATOMIC_ACQUIRE);
	return v & TOOL_SET ? v : site_register(s);
}

static void a_push(struct gpuprof_site *s)
{
	uint64_t v = site_get(s);

	if (v)
		gp__inj_push_reg(g_domain, (uint32_t)(v & TOOL_ID), (unsigned)(v >> TOOL_WIN) & 3u);
}

static void a_pop(void)
{
	if (gp__inj_on())
		gp__inj_pop(g_domain);
}

static void a_frame(struct gpuprof_site *s)
{
	uint64_t v = site_get(s);

	if (v)
		gp__inj_mark_reg(g_domain, (uint32_t)(v & TOOL_ID), (unsigned)(v >> TOOL_WIN) & 3u);
}

static void a_counter(struct gpuprof_site *s, double value)
{
	uint64_t v = site_get(s);

	if (v)
		gp__inj_counter((uint32_t)(v & TOOL_ID), value);
}

/* ---- names by value ---- */

/* The first name by value: say so once, in the capture (the report lists its warnings). */
static __attribute__((noinline)) void byval_first(void)
{
	if (atomic_exchange_explicit(&g_byval_seen, true, memory_order_relaxed))
		return;
	gp__inj_warn(0, "annotation names by value from here on (the call sites reached "
	                "GPUPROF_ANNOTATE_MAX_SITES, or the program names them at run time): every "
	                "event keeps its name; new names get no source location");
}

/* The message of a name by value (cut at GP_INJ_MAX_MSG); false: ignore the call. */
static inline bool byval_msg(const char *name, unsigned long len, struct gp__inj_msg *m)
{
	if (!name || !gp__inj_on())
		return false;
	if (!atomic_load_explicit(&g_byval_seen, memory_order_relaxed))
		byval_first();
	memset(m, 0, sizeof(*m));
	m->s = name;
	m->n = len > GP_INJ_MAX_MSG ? GP_INJ_MAX_MSG : (size_t)len;
	return true;
}

static void a_push_str(const char *name, unsigned long len)
{
	struct gp__inj_msg m;

	if (byval_msg(name, len, &m))
		gp__inj_push(g_domain, &m, gp__inj_watch(&m));
}

static void a_frame_str(const char *name, unsigned long len)
{
	struct gp__inj_msg m;

	if (byval_msg(name, len, &m))
		gp__inj_mark(g_domain, &m, gp__inj_watch(&m));
}

static void a_counter_str(const char *name, unsigned long len, double value)
{
	struct gp__inj_msg m;

	if (byval_msg(name, len, &m))
		gp__inj_counter_str(m.s, m.n, value);
}

GP_INJ_EXPORT int gpuprof_annotate_init_v1(struct gpuprof_annotate_table_v1 *t, unsigned long size);

/*
 * Fills the entries of @p t that fit in @p size, and none past it: a caller
 * built with an older header has a shorter table (four entries before the
 * names by value). @return 0, or -1 when nothing can be recorded here (a
 * forked child, no capture file): the caller's table then stays empty and
 * its calls cost one load and a branch.
 */
int gpuprof_annotate_init_v1(struct gpuprof_annotate_table_v1 *t, unsigned long size)
{
#define FITS(f) (size >= offsetof(struct gpuprof_annotate_table_v1, f) + sizeof(t->f))
	if (!t || !FITS(push) || !gp__inj_on())
		return -1;
	pthread_once(&g_once, make_domain);
	if (!g_domain)
		return -1;
	t->push = a_push;
	if (FITS(pop))
		t->pop = a_pop;
	if (FITS(frame))
		t->frame = a_frame;
	if (FITS(counter))
		t->counter = a_counter;
	if (FITS(push_str))
		t->push_str = a_push_str;
	if (FITS(frame_str))
		t->frame_str = a_frame_str;
	if (FITS(counter_str))
		t->counter_str = a_counter_str;
	return 0;
#undef FITS
}
