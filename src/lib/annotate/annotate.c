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
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gpuprof/annotate.h"
#include "util/error.h"

#define MAX_SITES (1u << 20) /* sites kept at most; more make NULL (no-op) sites */

struct entry {
	struct gpuprof_site site; /* first: the pointer handed out */
	uint64_t hash;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry **g_tab; /* open addressing, nslot a power of 2 */
static size_t g_n, g_nslot;
static char **g_strs; /* interned file and function names, same scheme */
static size_t g_nstr, g_nstr_slot;

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
	h = hash_str(hash_str(14695981039346656037ull, name) * 31 + (uint64_t)line, file);
	pthread_mutex_lock(&g_mu);
	/* at the limit (or out of memory) the known sites are still found; no new one is made */
	full = g_n >= MAX_SITES || ((g_n + 1) * 2 > g_nslot && grow_sites());
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
	/* with no recorder, no site is made: the call stays one load and one branch */
	if (!__atomic_load_n(&gpuprof_annotate_v1.frame, __ATOMIC_RELAXED))
		return;
	gp_annotate_frame_site(gp_annotate_site(name ? name : "frame", NULL, 0, NULL));
}

GP_API void gp_annotate_counter_site(void *site, double value)
{
	if (site)
		gpuprof_counter(site, value);
}

GP_API void gp_annotate_counter(const char *name, double value)
{
	if (!name || !__atomic_load_n(&gpuprof_annotate_v1.counter, __ATOMIC_RELAXED))
		return;
	gp_annotate_counter_site(gp_annotate_site(name, NULL, 0, NULL), value);
}

GP_API int gp_annotate_attached(void)
{
	return gpuprof_annotate_attached();
}
