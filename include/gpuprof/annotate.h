/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - gpuprof's annotation API: ranges, frame marks and counters,
 * header-only, for C (C99 and later, GNU C) and C++. No library to link.
 *
 *   GPUPROF_RANGE_PUSH("decode"); ... GPUPROF_RANGE_POP();
 *   GPUPROF_SCOPE("step");            the range ends with the enclosing block
 *   GPUPROF_FRAME();                  a frame mark named "frame"
 *   GPUPROF_FRAME_NAMED("render");    a frame mark of another name
 *   GPUPROF_COUNTER("queue", 12.0);   a counter sample (double)
 *
 * With no tool attached a call costs one load and one branch: every module
 * (executable or shared library) that includes this header gets one table
 * of function pointers (a weak, hidden symbol, like NVTX's link-once
 * globals) whose entries point at init stubs. The first call of any entry
 * runs the init once: when the environment variable
 * GPUPROF_ANNOTATE_LIBRARY names a library, it is dlopen'd (RTLD_NOW |
 * RTLD_LOCAL) and its gpuprof_annotate_init_v1(table, size) fills the
 * entries; otherwise, or on any failure, the entries become NULL and every
 * later call is `fn = table.push; if (fn) fn(site);`. `gpuprof run` sets
 * GPUPROF_ANNOTATE_LIBRARY to its recorder (libgpuprof-inject.so), which
 * works with and without CUDA. docs/annotate.md has the details.
 *
 * Each macro declares a `static struct gpuprof_site` at the call site: the
 * name, __FILE__, __LINE__ and __func__, plus a word the recorder uses as a
 * cache (the id it gave the site on first use), so later calls pass one
 * pointer and copy no string. Names must be string literals or strings that
 * live as long as the process. Names made at run time ("step 17") go by
 * value instead (gpuprof_range_push_str, gpuprof_frame_str,
 * gpuprof_counter_str): copied into the capture at each call, with no site
 * and no source location, so that nothing grows with the number of names.
 *
 * Defining GPUPROF_DISABLE before including this header turns every macro
 * into ((void)0) and every function into an empty inline one.
 *
 * Thread safety: every call may come from any thread. Ranges nest per
 * thread: a pop closes the innermost range its thread pushed. The init is
 * idempotent and runs once per module (C11-style atomics through the GNU
 * __atomic builtins); a thread that calls while another runs it waits.
 * dlopen is in libc from glibc 2.34 on (Debian 12 and later); with an older
 * glibc a program using this header links with -ldl.
 */
#ifndef GPUPROF_ANNOTATE_H
#define GPUPROF_ANNOTATE_H

/*
 * 2: the table gained the by-value entries (push_str, frame_str, counter_str).
 * The recorder's interface is still gpuprof_annotate_init_v1 (the size it is
 * given says which entries the caller has); this module's own symbols carry
 * the header's version (gpuprof_annotate_v2, ...), so that translation units
 * built with different versions of this header keep separate tables even
 * within one module.
 */
#define GPUPROF_ANNOTATE_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A call site: static storage, made by the macros (or by a binding, which
 * keeps it for the life of the process). @p tool belongs to the recorder:
 * zero-initialised, written by it on first use (through __atomic builtins),
 * never read by the caller.
 */
struct gpuprof_site {
	const char *name; /* UTF-8, NUL-ended */
	const char *file; /* __FILE__, or NULL */
	const char *func; /* __func__, or NULL */
	unsigned int line;
	unsigned int size; /* sizeof(struct gpuprof_site): later versions append fields */
	unsigned long long tool;
};

/**
 * The table a recorder fills (gpuprof_annotate_init_v1). Entries may be
 * NULL: that call is then a no-op. Entries are called from any thread and
 * must not block, allocate on the common path or throw.
 *
 * Entries are only ever appended: a caller built with an older header passes
 * a smaller size, and the recorder fills no entry past it; an older recorder
 * fills the entries it knows and leaves the later ones NULL (their calls are
 * then no-ops).
 */
struct gpuprof_annotate_table_v1 {
	void (*push)(struct gpuprof_site *site);
	void (*pop)(void);
	void (*frame)(struct gpuprof_site *site);
	void (*counter)(struct gpuprof_site *site, double value);
	/* since version 2 of the header: names by value, @p len bytes of UTF-8 (not
	 * necessarily NUL-ended), read during the call only; recorded whole (cut at 4 KiB) at
	 * each call, with no site: no source location */
	void (*push_str)(const char *name, unsigned long len);
	void (*frame_str)(const char *name, unsigned long len);
	void (*counter_str)(const char *name, unsigned long len, double value);
};

/**
 * What a recorder library exports: fills the entries of @p table it knows,
 * within @p size bytes (sizeof the caller's table), leaving others alone:
 * it must not write past @p size.
 * @return 0 when it records; anything else, and the caller sets every entry
 * to NULL.
 */
typedef int (*gpuprof_annotate_init_fn)(struct gpuprof_annotate_table_v1 *table,
                                        unsigned long size);
#define GPUPROF_ANNOTATE_INIT_SYMBOL "gpuprof_annotate_init_v1"
#define GPUPROF_ANNOTATE_LIBRARY_ENV "GPUPROF_ANNOTATE_LIBRARY"

#define GPUPROF_SITE_INIT(nm)                                                                      \
	{                                                                                          \
		(nm), __FILE__, __func__, (unsigned int)__LINE__,                                  \
		    (unsigned int)sizeof(struct gpuprof_site), 0ull                                \
	}

#define GPUPROF__CAT2(a, b) a##b
#define GPUPROF__CAT(a, b)  GPUPROF__CAT2(a, b)

#if defined(GPUPROF_DISABLE)

#define GPUPROF_RANGE_PUSH(name)     ((void)0)
#define GPUPROF_RANGE_POP()          ((void)0)
#define GPUPROF_SCOPE(name)          ((void)0)
#define GPUPROF_FRAME()              ((void)0)
#define GPUPROF_FRAME_NAMED(name)    ((void)0)
#define GPUPROF_COUNTER(name, value) ((void)0)

static inline void gpuprof_range_push(struct gpuprof_site *site)
{
	(void)site;
}

static inline void gpuprof_range_pop(void)
{
}

static inline void gpuprof_frame(struct gpuprof_site *site)
{
	(void)site;
}

static inline void gpuprof_counter(struct gpuprof_site *site, double value)
{
	(void)site;
	(void)value;
}

static inline void gpuprof_range_push_str(const char *name, unsigned long len)
{
	(void)name;
	(void)len;
}

static inline void gpuprof_frame_str(const char *name, unsigned long len)
{
	(void)name;
	(void)len;
}

static inline void gpuprof_counter_str(const char *name, unsigned long len, double value)
{
	(void)name;
	(void)len;
	(void)value;
}

static inline int gpuprof_annotate_attached(void)
{
	return 0;
}

#else /* !GPUPROF_DISABLE */

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#define GPUPROF__LOCAL __attribute__((weak, visibility("hidden")))

/* 0 fresh, 1 done, 1 + pid while a thread of process pid runs the init: one per module */
GPUPROF__LOCAL int gpuprof__annotate_state_v2 = 0;

GPUPROF__LOCAL void gpuprof__annotate_init_v2(void);
GPUPROF__LOCAL void gpuprof__annotate_push_stub_v2(struct gpuprof_site *site);
GPUPROF__LOCAL void gpuprof__annotate_pop_stub_v2(void);
GPUPROF__LOCAL void gpuprof__annotate_frame_stub_v2(struct gpuprof_site *site);
GPUPROF__LOCAL void gpuprof__annotate_counter_stub_v2(struct gpuprof_site *site, double value);
GPUPROF__LOCAL void gpuprof__annotate_push_str_stub_v2(const char *name, unsigned long len);
GPUPROF__LOCAL void gpuprof__annotate_frame_str_stub_v2(const char *name, unsigned long len);
GPUPROF__LOCAL void gpuprof__annotate_counter_str_stub_v2(const char *name, unsigned long len,
                                                          double value);

/** This module's table: the init stubs until the first call, then the recorder's or NULL. */
GPUPROF__LOCAL struct gpuprof_annotate_table_v1 gpuprof_annotate_v2 = {
	gpuprof__annotate_push_stub_v2,        gpuprof__annotate_pop_stub_v2,
	gpuprof__annotate_frame_stub_v2,       gpuprof__annotate_counter_stub_v2,
	gpuprof__annotate_push_str_stub_v2,    gpuprof__annotate_frame_str_stub_v2,
	gpuprof__annotate_counter_str_stub_v2,
};

/* Looks for the recorder and fills the table; once per module, never fails. */
GPUPROF__LOCAL void gpuprof__annotate_init_v2(void)
{
	struct gpuprof_annotate_table_v1 t = { 0, 0, 0, 0, 0, 0, 0 };
	int fresh = 0, me, s;

	/* the state: 0 fresh, 1 done, else 1 + the pid of the process whose thread runs it */
	if (__atomic_load_n(&gpuprof__annotate_state_v2, __ATOMIC_ACQUIRE) == 1)
		return;
	me = (int)getpid() + 1;
	if (!__atomic_compare_exchange_n(&gpuprof__annotate_state_v2, &fresh, me, 0,
	                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* another thread runs it: wait (the table must be final when we return) */
		while ((s = __atomic_load_n(&gpuprof__annotate_state_v2, __ATOMIC_ACQUIRE)) != 1) {
			if (s != me) {
				/* a fork while another thread ran it: that thread is not in this
				 * process, and a forked child records nothing */
				goto store;
			}
			sched_yield();
		}
		return;
	}
	{
		const char *path = getenv(GPUPROF_ANNOTATE_LIBRARY_ENV);
		void *h = path && *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : 0;

		if (h) {
			union {
				void *p;
				gpuprof_annotate_init_fn f;
			} u;

			u.p = dlsym(h, GPUPROF_ANNOTATE_INIT_SYMBOL);
			if (!u.p || u.f(&t, (unsigned long)sizeof(t)) != 0) {
				/* the library stays loaded: it may have started something */
				t.push = 0;
				t.pop = 0;
				t.frame = 0;
				t.counter = 0;
				t.push_str = 0;
				t.frame_str = 0;
				t.counter_str = 0;
			}
		}
	}
store:
	__atomic_store_n(&gpuprof_annotate_v2.push, t.push, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof_annotate_v2.pop, t.pop, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof_annotate_v2.frame, t.frame, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof_annotate_v2.counter, t.counter, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof_annotate_v2.push_str, t.push_str, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof_annotate_v2.frame_str, t.frame_str, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof_annotate_v2.counter_str, t.counter_str, __ATOMIC_RELEASE);
	__atomic_store_n(&gpuprof__annotate_state_v2, 1, __ATOMIC_RELEASE);
}

/* The stubs: init, then the call through the final table (never back into a stub). */
GPUPROF__LOCAL void gpuprof__annotate_push_stub_v2(struct gpuprof_site *site)
{
	void (*fn)(struct gpuprof_site *);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.push, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_push_stub_v2)
		fn(site);
}

GPUPROF__LOCAL void gpuprof__annotate_pop_stub_v2(void)
{
	void (*fn)(void);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.pop, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_pop_stub_v2)
		fn();
}

GPUPROF__LOCAL void gpuprof__annotate_frame_stub_v2(struct gpuprof_site *site)
{
	void (*fn)(struct gpuprof_site *);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.frame, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_frame_stub_v2)
		fn(site);
}

GPUPROF__LOCAL void gpuprof__annotate_counter_stub_v2(struct gpuprof_site *site, double value)
{
	void (*fn)(struct gpuprof_site *, double);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.counter, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_counter_stub_v2)
		fn(site, value);
}

GPUPROF__LOCAL void gpuprof__annotate_push_str_stub_v2(const char *name, unsigned long len)
{
	void (*fn)(const char *, unsigned long);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.push_str, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_push_str_stub_v2)
		fn(name, len);
}

GPUPROF__LOCAL void gpuprof__annotate_frame_str_stub_v2(const char *name, unsigned long len)
{
	void (*fn)(const char *, unsigned long);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.frame_str, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_frame_str_stub_v2)
		fn(name, len);
}

GPUPROF__LOCAL void gpuprof__annotate_counter_str_stub_v2(const char *name, unsigned long len,
                                                          double value)
{
	void (*fn)(const char *, unsigned long, double);

	gpuprof__annotate_init_v2();
	fn = __atomic_load_n(&gpuprof_annotate_v2.counter_str, __ATOMIC_ACQUIRE);
	if (fn && fn != gpuprof__annotate_counter_str_stub_v2)
		fn(name, len, value);
}

/* ---- the function forms (for bindings and for code that keeps its own sites) ---- */

/** Opens a range at @p site on the calling thread. */
static inline void gpuprof_range_push(struct gpuprof_site *site)
{
	void (*fn)(struct gpuprof_site *) =
	    __atomic_load_n(&gpuprof_annotate_v2.push, __ATOMIC_RELAXED);

	if (fn)
		fn(site);
}

/** Closes the innermost range the calling thread opened. */
static inline void gpuprof_range_pop(void)
{
	void (*fn)(void) = __atomic_load_n(&gpuprof_annotate_v2.pop, __ATOMIC_RELAXED);

	if (fn)
		fn();
}

/** A frame mark named by @p site (an instant; iterations may be delimited by it). */
static inline void gpuprof_frame(struct gpuprof_site *site)
{
	void (*fn)(struct gpuprof_site *) =
	    __atomic_load_n(&gpuprof_annotate_v2.frame, __ATOMIC_RELAXED);

	if (fn)
		fn(site);
}

/** A sample @p value of the counter named by @p site. */
static inline void gpuprof_counter(struct gpuprof_site *site, double value)
{
	void (*fn)(struct gpuprof_site *, double) =
	    __atomic_load_n(&gpuprof_annotate_v2.counter, __ATOMIC_RELAXED);

	if (fn)
		fn(site, value);
}

/*
 * By value: for names made at run time, which a static site cannot hold. @p name is @p len
 * bytes of UTF-8 (need not be NUL-ended), read during the call only. Each call copies the
 * name into the capture (cut at 4 KiB); there is no site, so no source location. A recorder
 * older than version 2 of this header leaves these entries NULL: the calls do nothing.
 */

/** Opens a range named @p name (@p len bytes) on the calling thread; gpuprof_range_pop closes it.
 */
static inline void gpuprof_range_push_str(const char *name, unsigned long len)
{
	void (*fn)(const char *, unsigned long) =
	    __atomic_load_n(&gpuprof_annotate_v2.push_str, __ATOMIC_RELAXED);

	if (fn)
		fn(name, len);
}

/** A frame mark named @p name (@p len bytes). */
static inline void gpuprof_frame_str(const char *name, unsigned long len)
{
	void (*fn)(const char *, unsigned long) =
	    __atomic_load_n(&gpuprof_annotate_v2.frame_str, __ATOMIC_RELAXED);

	if (fn)
		fn(name, len);
}

/** A sample @p value of the counter named @p name (@p len bytes). */
static inline void gpuprof_counter_str(const char *name, unsigned long len, double value)
{
	void (*fn)(const char *, unsigned long, double) =
	    __atomic_load_n(&gpuprof_annotate_v2.counter_str, __ATOMIC_RELAXED);

	if (fn)
		fn(name, len, value);
}

/** Runs the init if needed. @return 1 when a recorder filled this module's table, else 0. */
static inline int gpuprof_annotate_attached(void)
{
	gpuprof__annotate_init_v2();
	return __atomic_load_n(&gpuprof_annotate_v2.push, __ATOMIC_ACQUIRE) != 0;
}

/* ---- the macros ---- */

#define GPUPROF__SITE_CALL(call, nm)                                                               \
	do {                                                                                       \
		static struct gpuprof_site gpuprof__site_ = GPUPROF_SITE_INIT(nm);                 \
		call;                                                                              \
	} while (0)

#define GPUPROF_RANGE_PUSH(name)  GPUPROF__SITE_CALL(gpuprof_range_push(&gpuprof__site_), name)
#define GPUPROF_RANGE_POP()       gpuprof_range_pop()
#define GPUPROF_FRAME_NAMED(name) GPUPROF__SITE_CALL(gpuprof_frame(&gpuprof__site_), name)
#define GPUPROF_FRAME()           GPUPROF_FRAME_NAMED("frame")
#define GPUPROF_COUNTER(name, value)                                                               \
	GPUPROF__SITE_CALL(gpuprof_counter(&gpuprof__site_, (double)(value)), name)

#ifdef __cplusplus
} /* extern "C" */

/** A range for the lifetime of the object (GPUPROF_SCOPE). */
class gpuprof_scope
{
      public:
	explicit gpuprof_scope(struct gpuprof_site *site)
	{
		gpuprof_range_push(site);
	}
	~gpuprof_scope()
	{
		gpuprof_range_pop();
	}
	gpuprof_scope(const gpuprof_scope &) = delete;
	gpuprof_scope &operator=(const gpuprof_scope &) = delete;
};

#define GPUPROF_SCOPE(name)                                                                        \
	static struct gpuprof_site GPUPROF__CAT(gpuprof__site_, __LINE__) =                        \
	    GPUPROF_SITE_INIT(name);                                                               \
	gpuprof_scope GPUPROF__CAT(gpuprof__scope_,                                                \
	                           __LINE__)(&GPUPROF__CAT(gpuprof__site_, __LINE__))

extern "C" {
#else /* C: the GNU cleanup attribute pops when the enclosing block ends */

static inline void gpuprof__scope_end(int *unused)
{
	(void)unused;
	gpuprof_range_pop();
}

#define GPUPROF_SCOPE(name)                                                                        \
	static struct gpuprof_site GPUPROF__CAT(gpuprof__site_, __LINE__) =                        \
	    GPUPROF_SITE_INIT(name);                                                               \
	int GPUPROF__CAT(gpuprof__scope_, __LINE__)                                                \
	    __attribute__((unused, cleanup(gpuprof__scope_end))) =                                 \
	        (gpuprof_range_push(&GPUPROF__CAT(gpuprof__site_, __LINE__)), 0)

#endif /* __cplusplus */

#endif /* GPUPROF_DISABLE */

/*
 * Entry points of libgpuprof.so for language bindings (the Python module
 * calls them through ctypes). They are declared only when
 * GPUPROF_ANNOTATE_BINDINGS is defined, since using them means linking
 * with -lgpuprof; everything above needs no library.
 */
#if defined(GPUPROF_ANNOTATE_BINDINGS) || defined(GP_BUILDING_LIB)
#include "gpuprof.h" /* GP_API */
/**
 * A site for @p name at @p file : @p line in @p func (strings copied; @p file and @p func may
 * be NULL). Sites with the same (name, file, line) are shared. Sites are kept for the life of
 * the process, at most GPUPROF_ANNOTATE_MAX_SITES of them (an environment variable read on the
 * first call: 0 to 1048576, default 65536): past that, known sites are still found and new
 * ones are not made. @return the site, or NULL when the table is full or out of memory (the
 * calls below accept NULL as a no-op): the caller then passes the name by value
 * (gp_annotate_push_name, ...). Thread-safe (a mutex).
 */
GP_API void *gp_annotate_site(const char *name, const char *file, int line, const char *func);
/**
 * The number of sites gp_annotate_site() made so far; @p limit (may be NULL) gets the most
 * it makes (GPUPROF_ANNOTATE_MAX_SITES). Thread-safe.
 */
GP_API uint64_t gp_annotate_site_count(uint64_t *limit);
/** Opens a range at @p site (from gp_annotate_site) on the calling thread. */
GP_API void gp_annotate_push(void *site);
/** Closes the calling thread's innermost range. */
GP_API void gp_annotate_pop(void);
/** A frame mark named @p name ("frame" when NULL): at its site, or by value past the limit. */
GP_API void gp_annotate_frame(const char *name);
/** A frame mark at @p site. */
GP_API void gp_annotate_frame_site(void *site);
/** A sample of the counter named @p name: at its site, or by value past the limit. */
GP_API void gp_annotate_counter(const char *name, double value);
/** A sample of the counter at @p site. */
GP_API void gp_annotate_counter_site(void *site, double value);
/**
 * Names by value (no site, no source location, nothing kept): a range opens, a frame mark, a
 * counter sample, named by the @p len bytes at @p name (UTF-8, need not be NUL-ended, read
 * during the call only). For bindings past the site limit, and for names made at run time.
 * NULL @p name is a no-op.
 */
GP_API void gp_annotate_push_name(const char *name, size_t len);
GP_API void gp_annotate_frame_name(const char *name, size_t len);
GP_API void gp_annotate_counter_name(const char *name, size_t len, double value);
/** @return 1 when a recorder is attached to libgpuprof (runs the init), else 0. */
GP_API int gp_annotate_attached(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GPUPROF_ANNOTATE_H */
