/* SPDX-License-Identifier: MIT */
/*
 * dl.h - loading a shared library and a table of its symbols at run time
 * (NVML now, CUPTI later): the caller declares what it needs, newest names
 * first, and which ones it cannot do without.
 */
#ifndef GP_UTIL_DL_H
#define GP_UTIL_DL_H

#include <stdbool.h>
#include <stddef.h>

/** One symbol to resolve: the first of names[] found goes into *slot. */
struct gp_dl_sym {
	const char *names[4]; /* newest first, NULL-terminated when shorter */
	void **slot;
	bool required;
};

struct gp_dl {
	void *handle;
	char path[256]; /* the library that was loaded */
};

/**
 * Loads the first library that opens: @p override (when non-NULL and
 * non-empty: only that one), else each of @p candidates (NULL-terminated), and
 * resolves @p syms. Optional symbols not found leave their slot NULL.
 * @return 0; GP_ENOTSUP when no library opens or a required symbol is
 * missing (nothing stays loaded then), with the dlerror or the symbol's name
 * in gp_last_error().
 */
int gp__dl_load(struct gp_dl *dl, const char *override, const char *const *candidates,
                const struct gp_dl_sym *syms, size_t n);

/** Unloads; a no-op on a zeroed or already closed struct. */
void gp__dl_close(struct gp_dl *dl);

#endif
