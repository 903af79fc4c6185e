/* SPDX-License-Identifier: MIT */
/*
 * classify.c - kernel typing rules (classify.h).
 *
 * Two rule sets, each tried in order until one fires:
 *  - HTA (--compat hta), as Holistic Trace Analysis types a GPU row by name:
 *    COMMUNICATION on ^nccl, ^hip, ^hccl or a name containing ncclKernel;
 *    MEMORY on ^Memcpy, ^hipMemcpy, ^Memset, ^hipMemset, ^dma; OTHER (left out
 *    of the kernel-type breakdown) when the name contains Memcpy, Memset, dma
 *    or Sync, starts with "Stream Wait Event" or "runFunction", or looks like
 *    cuda*LaunchKernel; COMPUTATION otherwise.
 *  - gpuprof's own: memcpy/memset events are MEMORY by their kind; a kernel is
 *    COMMUNICATION when its name says so (NCCL/RCCL/HCCL prefixes, NCCL device
 *    kernels, multimem/custom all-reduce kernels...) or it carries a
 *    "Collective name" arg; everything else is COMPUTATION.
 * Every decision returns a rule id whose stable name the report shows.
 * Pure functions; thread-safe.
 */
#include "classify.h"

#include <string.h>

enum rule {
	R_NONE = 0,
	/* HTA, in HTA's order */
	R_HTA_NCCL,
	R_HTA_HIP,
	R_HTA_HCCL,
	R_HTA_NCCLKERNEL,
	R_HTA_MEMCPY,
	R_HTA_MEMSET,
	R_HTA_DMA,
	R_HTA_OTHER,
	R_HTA_COMPUTE,
	/* gpuprof */
	R_KIND_MEMCPY,
	R_KIND_MEMSET,
	R_NAME_NCCL,
	R_NAME_RCCL,
	R_NAME_HCCL,
	R_NAME_NCCLKERNEL,
	R_NAME_NCCLDEVKERNEL,
	R_NAME_MULTIMEM,
	R_NAME_CROSS_DEVICE,
	R_NAME_COLLECTIVE,
	R_ARG_COLLECTIVE,
	R_DEFAULT_COMPUTE,
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
	[R_KIND_MEMCPY] = "kind:memcpy",
	[R_KIND_MEMSET] = "kind:memset",
	[R_NAME_NCCL] = "name:^nccl",
	[R_NAME_RCCL] = "name:^rccl",
	[R_NAME_HCCL] = "name:^hccl",
	[R_NAME_NCCLKERNEL] = "name:ncclKernel",
	[R_NAME_NCCLDEVKERNEL] = "name:ncclDevKernel",
	[R_NAME_MULTIMEM] = "name:multimem_all_reduce",
	[R_NAME_CROSS_DEVICE] = "name:cross_device_reduce",
	[R_NAME_COLLECTIVE] = "name:collective",
	[R_ARG_COLLECTIVE] = "arg:Collective name",
	[R_DEFAULT_COMPUTE] = "default:computation",
};

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool contains(const char *s, const char *p)
{
	return strstr(s, p) != NULL;
}

/* HTA's "not computation" pattern, matched from the start of the name */
static bool hta_not_compute(const char *n)
{
	const char *l;

	if (prefix(n, "nccl") || contains(n, "Memcpy") || contains(n, "Memset") ||
	    contains(n, "dma") || contains(n, "Sync") || prefix(n, "Stream Wait Event") ||
	    prefix(n, "runFunction") || prefix(n, "hip"))
		return true;
	/* cuda.*LaunchKernel */
	l = strstr(n, "cuda");
	return l && strstr(l + 4, "LaunchKernel") != NULL;
}

static enum gp_ktype classify_hta(const char *n, uint8_t *rule)
{
	if (prefix(n, "nccl"))
		return *rule = R_HTA_NCCL, GP_KT_COMM;
	/* HTA tests ^hip before memory, so hipMemcpy/hipMemset are communication too */
	if (prefix(n, "hip"))
		return *rule = R_HTA_HIP, GP_KT_COMM;
	if (prefix(n, "hccl"))
		return *rule = R_HTA_HCCL, GP_KT_COMM;
	if (contains(n, "ncclKernel"))
		return *rule = R_HTA_NCCLKERNEL, GP_KT_COMM;
	if (prefix(n, "Memcpy"))
		return *rule = R_HTA_MEMCPY, GP_KT_MEM;
	if (prefix(n, "Memset"))
		return *rule = R_HTA_MEMSET, GP_KT_MEM;
	if (prefix(n, "dma"))
		return *rule = R_HTA_DMA, GP_KT_MEM;
	if (hta_not_compute(n))
		return *rule = R_HTA_OTHER, GP_KT_OTHER;
	return *rule = R_HTA_COMPUTE, GP_KT_COMP;
}

static enum gp_ktype classify_gpuprof(const struct gp_trace *t, size_t ev, const char *n,
                                      uint8_t *rule)
{
	static const char *const coll[] = { "all_reduce", "allreduce",      "all_gather",
		                            "allgather",  "reduce_scatter", "alltoall",
		                            "all_to_all" };
	uint8_t kind = t->ev.kind[ev];
	uint32_t aux = t->ev.aux[ev];
	size_t k;

	if (kind == GP_K_MEMCPY)
		return *rule = R_KIND_MEMCPY, GP_KT_MEM;
	if (kind == GP_K_MEMSET)
		return *rule = R_KIND_MEMSET, GP_KT_MEM;
	if (prefix(n, "nccl"))
		return *rule = R_NAME_NCCL, GP_KT_COMM;
	if (prefix(n, "rccl"))
		return *rule = R_NAME_RCCL, GP_KT_COMM;
	if (prefix(n, "hccl"))
		return *rule = R_NAME_HCCL, GP_KT_COMM;
	if (contains(n, "ncclKernel"))
		return *rule = R_NAME_NCCLKERNEL, GP_KT_COMM;
	if (contains(n, "ncclDevKernel"))
		return *rule = R_NAME_NCCLDEVKERNEL, GP_KT_COMM;
	if (contains(n, "multimem_all_reduce"))
		return *rule = R_NAME_MULTIMEM, GP_KT_COMM;
	if (contains(n, "cross_device_reduce"))
		return *rule = R_NAME_CROSS_DEVICE, GP_KT_COMM;
	for (k = 0; k < sizeof(coll) / sizeof(coll[0]); k++)
		if (contains(n, coll[k]))
			return *rule = R_NAME_COLLECTIVE, GP_KT_COMM;
	if (aux != UINT32_MAX && aux < t->ngpu && t->gpu[aux].collective != 0 &&
	    gp__strtab_strlen(&t->strs, t->gpu[aux].collective) > 0)
		return *rule = R_ARG_COLLECTIVE, GP_KT_COMM;
	return *rule = R_DEFAULT_COMPUTE, GP_KT_COMP;
}

enum gp_ktype gp__classify(const struct gp_trace *t, size_t ev, bool hta, uint8_t *rule)
{
	const char *n;

	*rule = R_NONE;
	if (!t || ev >= t->ev.n)
		return GP_KT_OTHER;
	n = gp__ev_name(t, ev);
	return hta ? classify_hta(n, rule) : classify_gpuprof(t, ev, n, rule);
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

/*
 * AMD's matrix cores: Tensile/hipBLASLt name the matrix instruction a GEMM
 * uses in its name ("Cijk_..._MT256x128x64_MI16x16x1_..."); a kernel without
 * one runs on the vector units. Hand-written kernels name MFMA
 * ("..._mfma16_kernel"), Composable Kernel and MIOpen XDLOPS
 * ("kernel_gemm_xdl_cshuffle_v1", "DeviceGemmXdl", "..._xdlops_...").
 */
static bool amd_matrix_core(const char *name)
{
	const char *p;

	for (p = strstr(name, "_MI"); p; p = strstr(p + 3, "_MI")) {
		const char *q = p + 3;

		if (*q < '0' || *q > '9')
			continue;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == 'x')
			return true;
	}
	return strstr(name, "mfma") || strstr(name, "xdlops") || strstr(name, "_xdl_") ||
	       strstr(name, "Xdl");
}

bool gp__uses_tensor_cores(const char *name)
{
	static const char *const pats[] = {
		"h884",
		"s884",
		"h1688",
		"s1688",
		"hmma",
		"i8816",
		"16816",
		"dgrad_1x1_stride_2x2",
		"first_layer_wgrad_kernel",
		"conv1x1",
		"conv2d_c1_k1",
		"direct_group",
		"xmma_implicit_gemm",
		"xmma_sparse_conv",
		"xmma_warp_specialized_implicit_gemm",
		"xmma_gemm",
		"xmma_sparse_gemm",
		"c1688",
		/* newer than tb_plugin's list */
		"tensorop",
		"gmma",
		"wmma",
	};
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (strstr(name, pats[i]))
			return true;
	return amd_matrix_core(name);
}

/* @p c lowered, ASCII letters only (as strcasestr in the C locale) */
static inline unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

bool gp__is_gemm_like(const char *name)
{
	/*
	 * Cijk_: Tensile's and hipBLASLt's GEMMs (C[i,j,k] = A * B), ROCm's cuBLAS.
	 * Any of the lowercase patterns anywhere, case ignored; one pass over the
	 * name, which is often hundreds of bytes (strcasestr per pattern cost
	 * two thirds of the context's build on small traces).
	 */
	static const char *const pats[] = { "gemm", "conv", "cutlass", "xmma", "cudnn", "cijk_" };
	const unsigned char *p;
	size_t i, k;

	for (p = (const unsigned char *)name; *p; p++) {
		unsigned char c = lower(*p);

		if (c != 'g' && c != 'c' && c != 'x')
			continue;
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			if ((unsigned char)pats[i][0] != c)
				continue;
			/* a NUL of the name differs from every pattern byte: no read past it */
			for (k = 1; pats[i][k] && lower(p[k]) == (unsigned char)pats[i][k]; k++)
				;
			if (!pats[i][k])
				return true;
		}
	}
	return false;
}
