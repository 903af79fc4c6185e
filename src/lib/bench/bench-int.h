/* SPDX-License-Identifier: MIT */
/*
 * bench-int.h - the inside of a gp_bench (bench.h): its series, for
 * bench.c (the result), iters.c (series from traces and captures),
 * target.c (targets), relative.c (the series against the fastest, sweeps).
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
	double *times;           /* n, ns */
	double *warm;            /* nwarm, ns; NULL none */
	double *gpu;             /* n, ns; NULL unknown */
	double *mem;             /* n, peak bytes; NULL unknown */
	double *mem_end;         /* n, bytes allocated at the end; NULL unknown */
	int *codes;              /* n exit codes; NULL: not a command */
	struct gp_value *params; /* object of strings: the parameters' values; NULL none */
	char *tmpl;              /* the command before substitution; NULL none */
};

#define GP_BENCH_MAX_TARGETS 64

/* one --target: METRIC OP VALUE (target.c) */
struct gp__bench_target {
	char *spec;        /* as given */
	char metric[24];   /* as written, lower case: "p50", "gpu_p99", "fps" */
	const char *stats; /* "stats", "gpu_stats" or NULL: a rate */
	const char *key;   /* the member: "p50_ns", or "items_per_s" under "throughput" */
	char op[3];        /* "<", "<=", ">", ">=" */
	double threshold;  /* ns, or per second */
};

struct gp_bench {
	char *kind;
	uint64_t seed;
	struct gp_value *tags; /* object of strings */
	struct gp_value *args; /* array of strings */
	struct gp_bench_series *s;
	size_t n, cap;
	struct gp_value *param_names; /* array of strings, in the order given */
	struct gp__bench_target *t;
	size_t nt;
};

struct gp_trace;

/**
 * Adds the series of one opened trace (iters.c): the iterations @p o names.
 * @p path names the trace in messages; " [rank R]" is appended to the
 * series' name when @p several.
 */
int gp__bench_add_trace(struct gp_bench *b, const struct gp_trace *t, const char *path,
                        int64_t rank, bool several, const struct gp_bench_iter_opts *o);

/*
 * target.c: the "targets" of the series object @p so (its statistics
 * already in it), one per target of @p b; *@p all_met cleared when one is
 * missed or unknown.
 */
int gp__bench_eval_targets(const struct gp_bench *b, struct gp_value *so, bool *all_met);

/* target.c: frees the targets of @p b */
void gp__bench_free_targets(struct gp_bench *b);

/*
 * relative.c: each series against the fastest ("relative", top-level
 * "fastest") when @p b has two series or more of commands or functions, and
 * the sweeps of a one-parameter scan ("sweeps"), into result @p r whose
 * "series" are already built.
 */
int gp__bench_relative(const struct gp_bench *b, struct gp_value *r);
int gp__bench_sweeps(const struct gp_bench *b, struct gp_value *r);

#endif
