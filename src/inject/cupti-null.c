/* SPDX-License-Identifier: MIT */
/*
 * cupti-null.c - the CUPTI backend of a build without the CUDA toolkit's
 * headers (cupti.c needs cupti.h): every gp__inj_cupti_* of inject.h as a
 * no-op. The injected tracer is then the CPU-only recorder of annotation
 * ranges, marks and counters (annotate.c); if the CUDA driver loads it all
 * the same (CUDA_INJECTION64_PATH), the capture says, in a warning, that no
 * GPU activity can be recorded.
 */
#include "inject.h"

int gp__inj_cupti_load(void)
{
	gp__inj_warn(0, "this libgpuprof-inject.so was built without the CUDA toolkit: no GPU "
	                "activity is recorded");
	return -1;
}

void gp__inj_cupti_attach(void)
{
}

void gp__inj_cupti_detach(bool finalize)
{
	(void)finalize;
}

void gp__inj_cupti_flush(bool forced)
{
	(void)forced;
}

void gp__inj_cupti_drain(void)
{
}

void gp__inj_cupti_stop(void)
{
}

void gp__inj_cupti_dropped(uint64_t *records, uint64_t *buffers)
{
	*records = 0;
	*buffers = 0;
}

uint32_t gp__inj_cupti_version(void)
{
	return 0;
}
