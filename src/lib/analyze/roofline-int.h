/* SPDX-License-Identifier: MIT */
/*
 * roofline-int.h - the two halves of the roofline section: roofline-calls.c
 * gives each kernel, memcpy and memset to the op call that launched it and
 * groups the calls by their recorded inputs; roofline.c models the groups,
 * sets them against the peaks and writes the section.
 */
#ifndef GP_ANALYZE_ROOFLINE_INT_H
#define GP_ANALYZE_ROOFLINE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

/** The calls of one (name, Input Dims, Input type, Concrete Inputs), a name with a model. */
struct gp__roof_grp {
	uint32_t name, dims, types, conc; /* string ids; types, conc 0: absent */
	int op;                           /* gp__opm_find() of the name */
	int64_t n, gpu_ns;                /* calls; the sum of their GPU times */
	bool tc;                          /* one of their kernels' names suggests Tensor Cores */
};

/** The GPU work of a rank, op call by op call. */
struct gp__roof_calls {
	int64_t win_s, win_e; /* the window of the GPU work; win_s > win_e: none */
	int64_t device;       /* the device of the most GPU time, -1 none */
	int64_t gpu_ns;       /* each call's GPU time (the union of its work) + the work of no op */
	size_t npairs;        /* GPU events that belong to an op */
	size_t ncalls;        /* op calls that launched GPU work */
	bool any_dims;        /* one of them has "Input Dims" */
	/* the groups (owned), in the order of (dims, name) and then (types, concrete) */
	struct gp__roof_grp *g;
	size_t ng;
};

/**
 * Fills @p rc (released with gp__roof_calls_release(), also on failure).
 * Definitions: docs/analyses/roofline.md. @return 0 or a gp_status code.
 */
int gp__roof_calls(const struct gp__actx *c, struct gp__roof_calls *rc);
void gp__roof_calls_release(struct gp__roof_calls *rc);

#endif
