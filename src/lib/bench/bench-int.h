/* SPDX-License-Identifier: MIT */
/*
 * bench-int.h - the inside of a gp_bench (bench.h): its series, for
 * bench.c (the result), iters.c (series from traces and captures).
 */
#ifndef GP_BENCH_INT_H
#define GP_BENCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/bench.h"
#include "gpuprof/value.h"

#define GP_BENCH_SEED      UINT64_C(0x67707570726f6621) /* the default bootstrap seed */
#define GP_BENCH_MAX_ITERS 10000000u                    /* iterations per series */

struct gp_bench_series {
	char *name, *rate_name; /* rate_name NULL: from the batch size */
	double batch;
	uint32_t warmup;
	size_t n, nwarm;
	double *times; /* n, ns */
	double *warm;  /* nwarm, ns; NULL none */
	double *gpu;   /* n, ns; NULL unknown */
	double *mem;   /* n, bytes; NULL unknown */
	int *codes;    /* n exit codes; NULL: not a command */
};

struct gp_bench {
	char *kind;
	uint64_t seed;
	struct gp_value *tags; /* object of strings */
	struct gp_value *args; /* array of strings */
	struct gp_bench_series *s;
	size_t n, cap;
};

struct gp_trace;

/**
 * Adds the series of one opened trace (iters.c): the iterations @p o names.
 * @p path names the trace in messages; " [rank R]" is appended to the
 * series' name when @p several.
 */
int gp__bench_add_trace(struct gp_bench *b, const struct gp_trace *t, const char *path,
                        int64_t rank, bool several, const struct gp_bench_iter_opts *o);

#endif
