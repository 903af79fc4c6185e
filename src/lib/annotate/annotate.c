/* SPDX-License-Identifier: MIT */
/*
 * annotate.c - the annotation API (include/gpuprof/annotate.h) as exported
 * functions of libgpuprof.so, for language bindings: the Python module
 * (python/gpuprof) calls them through ctypes. libgpuprof is itself a module
 * using the header, so it has its own table, filled by the recorder of
 * GPUPROF_ANNOTATE_LIBRARY on the first call, and these calls cost what the
 * header's do plus one function call.
 *
 * Sites: a binding has no static storage per call site, so gp_annotate_site()
 * makes one that lives as long as the process, kept in a registry keyed by
 * (name, file, line) (a binding that creates the same site again gets the
 * same one; the recorder registers each site once). File and function names
 * are interned, so that sites of one file share one string in the capture.
 * The registry takes a mutex; pushes and pops through a site do not.
 * Named frames and counters (gp_annotate_frame, gp_annotate_counter) find
 * their site there by name: one lock per call, so a binding that calls them
 * often keeps the site (gp_annotate_frame_site, gp_annotate_counter_site).
 *
 * The registry is bounded: a program that names its ranges at run time
 * ("step 17", ...) would otherwise keep every name forever, here, in the
 * binding and in the capture. It holds at most GPUPROF_ANNOTATE_MAX_SITES
 * sites (read once; default 65,536); past that gp_annotate_site() returns
 * NULL and the binding passes names by value (gp_annotate_push_name, ...),
 * which the recorder copies into each event instead of registering them: no
 * source location, but nothing that grows with the number of names.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/annotate.h"
#include "util/error.h"

#define MAX_SITES_ENV     "GPUPROF_ANNOTATE_MAX_SITES"
#define MAX_SITES_DEFAULT 65536u
#define MAX_SITES_TOP     (1u << 20) /* the most GPUPROF_ANNOTATE_MAX_SITES may ask for */

struct entry {
	struct gpuprof_site site; /* first: the pointer handed out */
	uint64_t hash;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry **g_tab; /* open addressing, nslot a power of 2 */
static size_t g_n, g_nslot;
static char **g_strs; /* interned file and function names, same scheme */
static size_t g_nstr, g_nstr_slot;
static size_t g_max_sites; /* GPUPROF_ANNOTATE_MAX_SITES, read once */
static pthread_once_t g_max_once = PTHREAD_ONCE_INIT;

/* The limit: GPUPROF_ANNOTATE_MAX_SITES when it is a number 0..MAX_SITES_TOP, else the default */
static void read_max_sites(void)
{
	const char *e = getenv(MAX_SITES_ENV);
	unsigned long long v = 0;
	const char *p;

	g_max_sites = MAX_SITES_DEFAULT;
	if (!e || !*e)
		return;
	for (p = e; *p >= '0' && *p <= '9' && v <= MAX_SITES_TOP; p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (!*p && v <= MAX_SITES_TOP)
		g_max_sites = (size_t)v;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The interned copy of @p s (NULL stays NULL; NULL when out of memory). g_mu held. */
static const char *intern(const char *s)
{
	uint64_t h;
	size_t i;

	if (!s)
		return NULL;
	if ((g_nstr + 1) * 2 > g_nstr_slot) {
		size_t ns = g_nstr_slot ? g_nstr_slot * 2 : 64;
		char **t = gp__calloc(ns, sizeof(*t));

		if (!t)
			return NULL;
		for (i = 0; i < g_nstr_slot; i++) {
			size_t j;

			if (!g_strs[i])
				continue;
			for (j = hash_str(14695981039346656037ull, g_strs[i]) & (ns - 1); t[j];
			     j = (j + 1) & (ns - 1))
				;
			t[j] = g_strs[i];
		}
		gp__free(g_strs);
		g_strs = t;
		g_nstr_slot = ns;
	}
	h = hash_str(14695981039346656037ull, s);
	for (i = h & (g_nstr_slot - 1); g_strs[i]; i = (i + 1) & (g_nstr_slot - 1))
		if (!strcmp(g_strs[i], s))
			return g_strs[i];
	if (!(g_strs[i] = gp__strdup(s)))
		return NULL;
	g_nstr++;
	return g_strs[i];
}

static int grow_sites(void)
{
	size_t ns = g_nslot ? g_nslot * 2 : 256, i, j;
	struct entry **t = gp__calloc(ns, sizeof(*t));

	if (!t)
		return GP_ENOMEM;
	for (i = 0; i < g_nslot; i++) {
		if (!g_tab[i])
			continue;
		for (j = g_tab[i]->hash & (ns - 1); t[j]; j = (j + 1) & (ns - 1))
			;
		t[j] = g_tab[i];
	}
	gp__free(g_tab);
	g_tab = t;
	g_nslot = ns;
	return 0;
}

GP_API void *gp_annotate_site(const char *name, const char *file, int line, const char *func)
{
	struct entry *e = NULL;
	bool full;
	uint64_t h;
	size_t i;

	if (!name)
		return NULL;
	if (line < 0)
		line = 0;
	pthread_once(&g_max_once, read_max_sites);
	h = hash_str(hash_str(14695981039346656037ull, name) * 31 + (uint64_t)line, file);
	pthread_mutex_lock(&g_mu);
	/* at the limit (or out of memory) the known sites are still found; no new one is made */
	full = g_n >= g_max_sites || ((g_n + 1) * 2 > g_nslot && grow_sites());
	if (!g_nslot)
		goto out;
	for (i = h & (g_nslot - 1); g_tab[i]; i = (i + 1) & (g_nslot - 1)) {
		struct entry *x = g_tab[i];

		if (x->hash == h && x->site.line == (unsigned)line && !strcmp(x->site.name, name) &&
		    same(x->site.file, file)) {
			e = x;
			goto out;
		}
	}
	if (full)
		goto out;
	if (!(e = gp__calloc(1, sizeof(*e))) || !(e->site.name = gp__strdup(name)) ||
	    (file && !(e->site.file = intern(file))) || (func && !(e->site.func = intern(func)))) {
		if (e)
			gp__free((void *)e->site.name);
		gp__free(e);
		e = NULL;
		goto out;
	}
	e->site.line = (unsigned)line;
	e->site.size = sizeof(e->site);
	e->hash = h;
	g_tab[i] = e;
	g_n++;
out:
	pthread_mutex_unlock(&g_mu);
	return e ? &e->site : NULL;
}

GP_API uint64_t gp_annotate_site_count(uint64_t *limit)
{
	uint64_t n;

	pthread_once(&g_max_once, read_max_sites);
	pthread_mutex_lock(&g_mu);
	n = g_n;
	pthread_mutex_unlock(&g_mu);
	if (limit)
		*limit = g_max_sites;
	return n;
}

GP_API void gp_annotate_push(void *site)
{
	if (site)
		gpuprof_range_push(site);
}

GP_API void gp_annotate_pop(void)
{
	gpuprof_range_pop();
}

GP_API void gp_annotate_frame_site(void *site)
{
	if (site)
		gpuprof_frame(site);
}

GP_API void gp_annotate_frame(const char *name)
{
	void *site;

	/* with no recorder, no site is made: the call stays one load and one branch */
	if (!__atomic_load_n(&gpuprof_annotate_v2.frame, __ATOMIC_RELAXED))
		return;
	if (!name)
		name = "frame";
	if ((site = gp_annotate_site(name, NULL, 0, NULL)))
		gp_annotate_frame_site(site);
	else
		gp_annotate_frame_name(name, strlen(name)); /* past the limit */
}

GP_API void gp_annotate_counter_site(void *site, double value)
{
	if (site)
		gpuprof_counter(site, value);
}

GP_API void gp_annotate_counter(const char *name, double value)
{
	void *site;

	if (!name || !__atomic_load_n(&gpuprof_annotate_v2.counter, __ATOMIC_RELAXED))
		return;
	if ((site = gp_annotate_site(name, NULL, 0, NULL)))
		gp_annotate_counter_site(site, value);
	else
		gp_annotate_counter_name(name, strlen(name), value); /* past the limit */
}

GP_API void gp_annotate_push_name(const char *name, size_t len)
{
	if (name)
		gpuprof_range_push_str(name, (unsigned long)len);
}

GP_API void gp_annotate_frame_name(const char *name, size_t len)
{
	if (name)
		gpuprof_frame_str(name, (unsigned long)len);
}

GP_API void gp_annotate_counter_name(const char *name, size_t len, double value)
{
	if (name)
		gpuprof_counter_str(name, (unsigned long)len, value);
}

GP_API int gp_annotate_attached(void)
{
	return gpuprof_annotate_attached();
}
