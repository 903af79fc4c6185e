/* SPDX-License-Identifier: MIT */
/*
 * torch-nvtx.h - the names of PyTorch's NVTX op ranges (emit_nvtx, nsys's
 * --pytorch) and of the module ranges of gpuprof's Python startup hook
 * (gpuprof run --pytorch), which the capture reader (capture.c) turns into
 * CPU ops and nn.Module calls (docs/capture-format.md).
 */
#ifndef GP_SOURCE_TORCH_NVTX_H
#define GP_SOURCE_TORCH_NVTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The name prefix of a module range ("nn.Module: Block_3"), as PyTorch names its own. */
#define GP__TORCH_MODULE_PREFIX "nn.Module: "

/**
 * What an op range's message says. PyTorch 2.x writes
 * "NAME[, seq = N][, op_id = N][, sizes = [[2, 3], []]][, input_op_ids = [(7,0), (0,-1)]]"
 * (torch/csrc/profiler/util.cpp getNvtxStr), 1.x "NAME[, seq = N][, sizes = [...]]".
 */
struct gp__torch_op {
	size_t name_len;  /* the op's name: the message's first name_len bytes */
	int64_t seq;      /* the autograd sequence number, -1 absent */
	int64_t op_id;    /* 0 absent */
	size_t sizes_off; /* the sizes text "[[512], [64, 1024]]" at msg + sizes_off ... */
	size_t sizes_len; /* ... of sizes_len bytes; 0: no sizes (or cut off) */
};

/**
 * Parses @p msg[0..n) as an op range's message: the first ", " after which
 * the rest is PyTorch's suffix (at least one of its fields, in its order,
 * to the end) ends the name. @p cut: the tracer cut the message (4 KiB), so
 * a last sizes or input_op_ids list may be incomplete (its sizes are then
 * unknown). @return whether @p msg is one (a plain "aten::add" is not: it
 * carries nothing of the suffix).
 */
bool gp__torch_op_parse(const char *msg, size_t n, bool cut, struct gp__torch_op *out);

#endif
