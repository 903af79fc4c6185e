/* SPDX-License-Identifier: MIT */
/*
 * kineto.c - PROVISIONAL placeholder until the Kineto reader lands.
 */
#include "model.h"

#include "util/error.h"

GP_API int gp_trace_open(const char *path, const struct gp_open_opts *opts, struct gp_trace **out)
{
	(void)path;
	(void)opts;
	*out = NULL;
	return gp__error(GP_ENOTSUP, "reader not built yet");
}

GP_API int gp_trace_open_mem(const void *p, size_t n, const struct gp_open_opts *opts,
			     struct gp_trace **out)
{
	(void)p;
	(void)n;
	(void)opts;
	*out = NULL;
	return gp__error(GP_ENOTSUP, "reader not built yet");
}
