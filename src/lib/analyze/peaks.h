/* SPDX-License-Identifier: MIT */
/*
 * peaks.h - the GPUs whose peaks gpuprof knows: dense peak TFLOP/s per
 * data type and unit and peak memory bandwidth, from the vendors'
 * datasheets (the URL of each row is in the table and in
 * docs/analyses/roofline.md). A GPU is matched from its deviceProperties
 * (name, SM/CU count, memory); one that does not match is unknown, never
 * the closest guess. Read by roofline.c and the unit tests.
 */
#ifndef GP_ANALYZE_PEAKS_H
#define GP_ANALYZE_PEAKS_H

#include <stddef.h>

#include "trace/model.h"

/** One GPU's peaks; NaN where the GPU has no such unit or the datasheet gives none. */
struct gp__peaks {
	const char *matched;                /* "H100 SXM" */
	double fp64;                        /* TFLOP/s, vector (CUDA core / SIMD) FP64 */
	double fp64_mx;                     /* FP64 Tensor Core / Matrix Core */
	double fp32;                        /* vector FP32 (CUDA core / SIMD) */
	double fp32_mx;                     /* FP32 Matrix Core (AMD); NaN on NVIDIA (none) */
	double tf32, fp16, bf16, fp8, int8; /* Tensor / Matrix Core, dense */
	double tbps;                        /* memory bandwidth, TB/s (10^12 bytes/s) */
	const char *url;                    /* the datasheet */
};

/** The peaks of the GPU @p p describes, or NULL when it is not in the table. */
const struct gp__peaks *gp__peaks_match(const struct gp_device_props *p);

/** The whole table (docs, tests): @p *n rows. */
const struct gp__peaks *gp__peaks_table(size_t *n);

#endif
