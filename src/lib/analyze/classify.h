/* SPDX-License-Identifier: MIT */
/*
 * classify.h - kernel typing: computation, communication, memory or other.
 *
 * Two rule sets: HTA's name regexes (--compat hta) and gpuprof's own, which
 * also recognise communication kernels that do not start with "nccl"
 * (multimem_all_reduce, cross_device_reduce, RCCL, a "Collective name" arg)
 * and type memcpy/memset by event kind. Each decision records the rule that
 * fired, so the report can say which rule classified what.
 */
#ifndef GP_ANALYZE_CLASSIFY_H
#define GP_ANALYZE_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/model.h"

enum gp_ktype {
	GP_KT_OTHER = 0,
	GP_KT_COMP = 1,
	GP_KT_COMM = 2,
	GP_KT_MEM = 4,
};

/**
 * Classifies GPU event @p ev of @p t. @p rule receives a rule id for
 * gp__classify_rule_name(). Pure; thread-safe.
 */
enum gp_ktype gp__classify(const struct gp_trace *t, size_t ev, bool hta, uint8_t *rule);

/** @return a stable rule name such as "hta:^nccl" or "name:multimem_all_reduce". */
const char *gp__classify_rule_name(uint8_t rule);

/**
 * @return true when a kernel name shows Tensor Core use: the TensorBoard plugin's
 * patterns (profiler/tensor_core.py, from NVIDIA PyProf) plus the Ampere/Hopper
 * names it predates (tensorop, gmma, wmma), and AMD's matrix cores: a Tensile or
 * hipBLASLt matrix instruction ("_MI16x16x1"), "mfma" or XDLOPS in the name.
 */
bool gp__uses_tensor_cores(const char *name);

/** @return true for GEMM or convolution kernels (gemm, conv, cutlass, xmma, cudnn, Cijk_; any
 * case). */
bool gp__is_gemm_like(const char *name);

/** Per-name flags cached in the analysis context (ctx.h name_flags). */
enum gp_name_flag {
	GP_NF_DONE = 1 << 0,
	GP_NF_TENSOR_CORE = 1 << 1,
	GP_NF_GEMM = 1 << 2,
};

/** @return "COMPUTATION", "COMMUNICATION", "MEMORY" or "OTHER". */
const char *gp__ktype_name(enum gp_ktype k);

#endif
