/* SPDX-License-Identifier: MIT */
/*
 * annotate_disabled.c - part of test_annotate: every macro and function of
 * include/gpuprof/annotate.h compiled with GPUPROF_DISABLE, where they must
 * compile (as statements and in expressions) and do nothing.
 */
#define GPUPROF_DISABLE
#include "gpuprof/annotate.h"

int annotate_disabled_calls(void);

int annotate_disabled_calls(void)
{
	static struct gpuprof_site s = GPUPROF_SITE_INIT("site");
	int n = 0;

	for (int i = 0; i < 3; i++) {
		GPUPROF_SCOPE("scope");
		GPUPROF_RANGE_PUSH("a");
		GPUPROF_RANGE_POP();
		GPUPROF_FRAME();
		GPUPROF_FRAME_NAMED("f");
		GPUPROF_COUNTER("c", i);
		if (i)
			GPUPROF_RANGE_PUSH("in an if");
		else
			GPUPROF_RANGE_POP();
		gpuprof_range_push(&s);
		gpuprof_range_pop();
		gpuprof_frame(&s);
		gpuprof_counter(&s, 1.0);
		n += gpuprof_annotate_attached();
	}
	return n + (int)s.tool;
}
