/* SPDX-License-Identifier: MIT */
/*
 * opts.c - the check behind GP__OPTS_VALID (opts.h): a size-versioned options
 * struct is read only when its size covers the size field and every byte past the
 * struct this library knows is zero.
 */
#include "opts.h"

#include "error.h"

int gp__opts_check(const void *opts, size_t user_size, size_t lib_size, const char *type)
{
	const unsigned char *p = opts;
	size_t i;

	if (!opts)
		return 0;
	if (user_size < sizeof(uint32_t))
		return gp__error(GP_EINVAL, "%s: size %zu is too small (set size = sizeof(%s))",
		                 type, user_size, type);
	for (i = lib_size; i < user_size; i++)
		if (p[i])
			return gp__error(
			    GP_EINVAL,
			    "%s: byte %zu of %zu is set, but this libgpuprof (%s) knows "
			    "only the first %zu: a field it does not have was asked for",
			    type, i, user_size, gp_version(), lib_size);
	return 0;
}
