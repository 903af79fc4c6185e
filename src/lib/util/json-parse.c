/* SPDX-License-Identifier: MIT */
/*
 * json-parse.c - PROVISIONAL placeholder until the JSON parser lands.
 */
#include "gpuprof/value.h"

#include "error.h"

GP_API int gp_value_parse(const char *text, size_t len, struct gp_value **out, size_t *err_off)
{
	(void)text;
	(void)len;
	*out = NULL;
	if (err_off)
		*err_off = 0;
	return gp__error(GP_ENOTSUP, "parser not built yet");
}
