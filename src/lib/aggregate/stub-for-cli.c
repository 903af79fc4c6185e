/* SPDX-License-Identifier: MIT */
/*
 * stub-for-cli.c - TEMPORARY (issue 22, branch i22-aggcli): stands in for
 * helper aggcore's gp_aggregate_paths() and gp_aggregate_opts_init() so that
 * the aggcli branch (the command and the text) builds and is tested on saved
 * gpuprof.aggregate/1 documents before the two branches meet.
 *
 * DELETE THIS FILE WHEN MERGING i22-aggcore: its two functions are defined
 * there (src/lib/aggregate/).
 */
#include <string.h>

#include "gpuprof/aggregate.h"
#include "util/error.h"

GP_API void gp_aggregate_opts_init(struct gp_aggregate_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->analyze.size = sizeof(o->analyze);
	o->analyze.only_rank = -1;
}

GP_API int gp_aggregate_paths(const char *const *paths, size_t n, const struct gp_aggregate_opts *o,
                              struct gp_value **out)
{
	(void)paths;
	(void)n;
	(void)o;
	if (out)
		*out = NULL;
	return gp__error(GP_ENOTSUP, "aggregating reports: not merged yet (issue 22 stub)");
}
