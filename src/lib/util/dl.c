/* SPDX-License-Identifier: MIT */
/*
 * dl.c - see dl.h. htop's resolve() and nvtop's NVML loader in spirit: the
 * symbol table is data, the library is optional at run time.
 */
#include "dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static int resolve(struct gp_dl *dl, const struct gp_dl_sym *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct gp_dl_sym *s = &syms[i];
		void *p = NULL;

		for (size_t k = 0; k < GP_ARRAY_SIZE(s->names) && s->names[k] && !p; k++)
			p = dlsym(dl->handle, s->names[k]);
		*s->slot = p;
		if (!p && s->required)
			return gp__error(GP_ENOTSUP, "%s: required symbol %s not found", dl->path,
			                 s->names[0] ? s->names[0] : "?");
	}
	return 0;
}

int gp__dl_load(struct gp_dl *dl, const char *override, const char *const *candidates,
                const struct gp_dl_sym *syms, size_t n)
{
	char why[512] = "";
	int rc;

	memset(dl, 0, sizeof(*dl));
	if (override && *override) {
		dl->handle = dlopen(override, RTLD_NOW | RTLD_LOCAL);
		if (!dl->handle) {
			const char *e = dlerror();

			return gp__error(GP_ENOTSUP, "cannot load %s", e ? e : override);
		}
		snprintf(dl->path, sizeof(dl->path), "%s", override);
	} else {
		for (size_t i = 0; candidates && candidates[i] && !dl->handle; i++) {
			dl->handle = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
			if (dl->handle) {
				snprintf(dl->path, sizeof(dl->path), "%s", candidates[i]);
			} else if (!why[0]) {
				const char *e = dlerror();

				snprintf(why, sizeof(why), "%s", e ? e : candidates[i]);
			}
		}
		if (!dl->handle)
			return gp__error(GP_ENOTSUP, "cannot load %s", why[0] ? why : "library");
	}
	rc = resolve(dl, syms, n);
	if (rc)
		gp__dl_close(dl);
	return rc;
}

void gp__dl_close(struct gp_dl *dl)
{
	if (dl && dl->handle)
		dlclose(dl->handle);
	if (dl)
		dl->handle = NULL;
}
