/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - see demangle.h. Backends sit in an explicit array, tried in
 * order on the first call: "cxa" dlopens libstdc++ (or GP_DEMANGLE_LIBRARY)
 * and resolves __cxa_demangle, the C-ABI entry point every libstdc++ and
 * libc++ exports; "none" always loads and demangles nothing. The library
 * stays loaded for the life of the process (names are demangled whenever a
 * table is drawn). Used by the text layer (text/names.c) only.
 */
#include "util/demangle.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dl.h"
#include "util/error.h"

#define DEMANGLE_MAX 16384 /* bytes of a mangled name, at most */

typedef char *cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

struct backend {
	const char *name;
	int (*open)(void);                                  /* 0: usable */
	int (*demangle)(struct gp_buf *out, const char *s); /* as gp__demangle() */
};

static struct gp_dl g_dl;
static cxa_demangle_fn *g_cxa;
static const struct backend *g_backend;
static char g_desc[300];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int cxa_open(void)
{
	static const char *const candidates[] = { "libstdc++.so.6", "libc++.so.1", "libc++abi.so.1",
		                                  NULL };
	const struct gp_dl_sym syms[] = {
		{ { "__cxa_demangle" }, (void **)&g_cxa, true },
	};
	const char *env = getenv("GP_DEMANGLE_LIBRARY");

	if (env && !*env)
		return GP_ENOTSUP; /* asked for no demangler */
	return gp__dl_load(&g_dl, env, candidates, syms, GP_ARRAY_SIZE(syms));
}

static int cxa_demangle(struct gp_buf *out, const char *s)
{
	int status = -1, rc = 0;
	char *d = g_cxa(s, NULL, NULL, &status);

	if (!d)
		return 0;
	if (status == 0 && *d)
		rc = (rc = gp__buf_addstr(out, d)) ? rc : 1;
	free(d); /* libstdc++'s malloc's, not gp__malloc's */
	return rc;
}

static int none_open(void)
{
	return 0;
}

static int none_demangle(struct gp_buf *out, const char *s)
{
	(void)out;
	(void)s;
	return 0;
}

static const struct backend cxa = { "libstdc++", cxa_open, cxa_demangle };
static const struct backend none = { "none", none_open, none_demangle };
static const struct backend *const backends[] = { &cxa, &none };

static void choose(void)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(backends); i++) {
		if (backends[i]->open() == 0) {
			g_backend = backends[i];
			break;
		}
	}
	if (g_backend == &cxa)
		snprintf(g_desc, sizeof(g_desc), "%s (%s)", cxa.name, g_dl.path);
	else
		snprintf(g_desc, sizeof(g_desc), "none");
}

int gp__demangle(struct gp_buf *out, const char *name)
{
	pthread_once(&g_once, choose);
	/*
	 * only Itanium ABI names: a plain C name ("ampere_sgemm_...") is never
	 * touched; names come from traces, so a longer one than any real kernel's
	 * (cutlass's reach 3 KiB) is not handed to a recursive demangler
	 */
	if (!name || strncmp(name, "_Z", 2) != 0 || !g_backend ||
	    strnlen(name, DEMANGLE_MAX + 1) > DEMANGLE_MAX)
		return 0;
	return g_backend->demangle(out, name);
}

const char *gp__demangle_backend(void)
{
	pthread_once(&g_once, choose);
	return g_desc;
}
