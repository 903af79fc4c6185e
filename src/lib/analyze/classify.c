/* SPDX-License-Identifier: MIT */
/*
 * classify.c - kernel typing rules (classify.h). PROVISIONAL: HTA rules only;
 * the gpuprof rule set is being extended.
 */
#include "classify.h"

#include <string.h>

enum rule {
	R_NONE = 0,
	R_HTA_NCCL,
	R_HTA_HIP,
	R_HTA_HCCL,
	R_HTA_NCCLKERNEL,
	R_HTA_MEMCPY,
	R_HTA_MEMSET,
	R_HTA_DMA,
	R_HTA_OTHER,
	R_HTA_COMPUTE,
	R__COUNT
};

static const char *const rule_names[R__COUNT] = {
	[R_NONE] = "none",
	[R_HTA_NCCL] = "hta:^nccl",
	[R_HTA_HIP] = "hta:^hip",
	[R_HTA_HCCL] = "hta:^hccl",
	[R_HTA_NCCLKERNEL] = "hta:ncclKernel",
	[R_HTA_MEMCPY] = "hta:^Memcpy",
	[R_HTA_MEMSET] = "hta:^Memset",
	[R_HTA_DMA] = "hta:^dma",
	[R_HTA_OTHER] = "hta:other",
	[R_HTA_COMPUTE] = "hta:computation",
};

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

enum gp_ktype gp__classify(const struct gp_trace *t, size_t ev, bool hta, uint8_t *rule)
{
	const char *n = gp__ev_name(t, ev);

	(void)hta;
	*rule = R_NONE;
	if (prefix(n, "nccl"))
		return *rule = R_HTA_NCCL, GP_KT_COMM;
	if (prefix(n, "hip"))
		return *rule = R_HTA_HIP, GP_KT_COMM;
	if (prefix(n, "hccl"))
		return *rule = R_HTA_HCCL, GP_KT_COMM;
	if (strstr(n, "ncclKernel"))
		return *rule = R_HTA_NCCLKERNEL, GP_KT_COMM;
	if (prefix(n, "Memcpy") || prefix(n, "hipMemcpy"))
		return *rule = R_HTA_MEMCPY, GP_KT_MEM;
	if (prefix(n, "Memset") || prefix(n, "hipMemset"))
		return *rule = R_HTA_MEMSET, GP_KT_MEM;
	if (prefix(n, "dma"))
		return *rule = R_HTA_DMA, GP_KT_MEM;
	*rule = R_HTA_COMPUTE;
	return GP_KT_COMP;
}

const char *gp__classify_rule_name(uint8_t rule)
{
	return rule < R__COUNT ? rule_names[rule] : "none";
}

const char *gp__ktype_name(enum gp_ktype k)
{
	switch (k) {
	case GP_KT_COMP:
		return "COMPUTATION";
	case GP_KT_COMM:
		return "COMMUNICATION";
	case GP_KT_MEM:
		return "MEMORY";
	default:
		return "OTHER";
	}
}
