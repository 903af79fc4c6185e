/* SPDX-License-Identifier: MIT */
/*
 * opmodel.h - per-op performance models: FLOPs and bytes of one PyTorch op
 * call from the text Kineto records with record_shapes ("Input Dims",
 * "Input type", "Concrete Inputs").
 *
 * The texts are hostile input: the parsers read them against their length
 * with bounded counts (GP_OPM_MAX_IN inputs, GP_OPM_MAX_RANK dimensions) and
 * give up (no model) on anything they do not expect. Every formula and its
 * source is in docs/analyses/roofline.md. Used by roofline.c, the unit tests
 * and, through analyze, the fuzzers.
 */
#ifndef GP_ANALYZE_OPMODEL_H
#define GP_ANALYZE_OPMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GP_OPM_MAX_IN   48 /* inputs read; later ones are ignored */
#define GP_OPM_MAX_RANK 8  /* dimensions of a tensor; a deeper one is not a tensor to the models */
#define GP_OPM_DIM_MAX  (INT64_C(1) << 53) /* a larger size is unknown: products stay finite */

/** An element type, as "Input type" spells it (c10 names). */
enum gp__dtype {
	GP_DT_NONE = 0, /* not a tensor ("Scalar", "", lists) or unknown */
	GP_DT_F64,
	GP_DT_F32,
	GP_DT_F16,
	GP_DT_BF16,
	GP_DT_F8, /* every float8 variant (e4m3fn, e5m2, the fnuz ones) */
	GP_DT_I8,
	GP_DT_U8,
	GP_DT_I16,
	GP_DT_I32,
	GP_DT_I64,
	GP_DT_BOOL,
	GP_DT_C64,
	GP_DT_C128,
	GP_DT__COUNT
};

/** Bytes per element; 0 for GP_DT_NONE. */
size_t gp__dtype_size(enum gp__dtype d);
/** "fp32", "bf16", "int64"...; NULL for GP_DT_NONE. */
const char *gp__dtype_name(enum gp__dtype d);
/** Whether elements of @p d are floating point (FLOPs are counted on them). */
bool gp__dtype_float(enum gp__dtype d);
/** The dtype of one "Input type" entry (@p len bytes, without quotes). */
enum gp__dtype gp__dtype_from_c10(const char *s, size_t len);

/** The models; the names are the JSON's ("gemm", "conv", ...). */
enum gp__opm_kind {
	GP_OPM_NONE = 0,
	GP_OPM_GEMM,
	GP_OPM_CONV,
	GP_OPM_ATTENTION,
	GP_OPM_SOFTMAX,
	GP_OPM_NORM,
	GP_OPM_ELEMENTWISE,
	GP_OPM_REDUCTION
};

/** "gemm", "conv", ...; NULL for GP_OPM_NONE. */
const char *gp__opm_kind_name(enum gp__opm_kind k);
/** Whether the model's FLOPs run on Tensor / Matrix Cores (GEMM, convolution, attention). */
bool gp__opm_matrix(enum gp__opm_kind k);

/** One input as the parsers read it. */
struct gp__opm_in {
	int rank;                   /* dimensions; -1: not a list of integers (nested, too deep) */
	int64_t d[GP_OPM_MAX_RANK]; /* the sizes */
	enum gp__dtype ty;          /* from "Input type", GP_DT_NONE when not a tensor */
	const char *conc;           /* "Concrete Inputs" entry, NULL when absent */
	size_t conc_len;
};

/** The parsed inputs of one op call. */
struct gp__opm_args {
	size_t n;    /* inputs read (at most GP_OPM_MAX_IN) */
	bool typed;  /* "Input type" was given (captures of emit_nvtx ranges have none) */
	size_t used; /* in[used..] are all zero (what gp__opm_reparse() clears) */
	struct gp__opm_in in[GP_OPM_MAX_IN];
};

/** Moves *@p p past blanks (space, tab, CR, LF), never past @p end. */
void gp__opm_skip_ws(const char **p, const char *end);

/**
 * Parses the three texts (each may be NULL / 0 long: absent) into @p a.
 * "Input Dims" must be an array of arrays of non-negative integers (an item
 * that is not is recorded with rank -1). @return false when @p dims is not
 * such an array (then no model applies).
 */
bool gp__opm_parse(const char *dims, size_t dims_len, const char *types, size_t types_len,
                   const char *conc, size_t conc_len, struct gp__opm_args *a);

/**
 * gp__opm_parse() into @p a that holds the result of an earlier parse (or
 * reparse): clears only the inputs that one wrote, not the whole array, for
 * a caller that parses many texts in a row. Same result as gp__opm_parse().
 */
bool gp__opm_reparse(const char *dims, size_t dims_len, const char *types, size_t types_len,
                     const char *conc, size_t conc_len, struct gp__opm_args *a);

/** What a model says of one call. */
struct gp__opm_result {
	enum gp__opm_kind kind;
	enum gp__dtype dtype; /* the compute type (the first operand's) */
	double flops;         /* floating-point operations */
	double bytes;         /* inputs read + outputs written, at their dtypes' sizes; NaN
	                         (unknown) without "Input type" */
};

/**
 * The model of op @p name (e.g. "aten::addmm") over parsed inputs @p a.
 * Without "Input type" only the GEMMs apply (their FLOPs need no dtype; the
 * other models need the dtype or the Concrete Inputs), with unknown bytes.
 * @return false (and kind GP_OPM_NONE) when no model applies: an op gpuprof
 * has no model for, or shapes the model cannot read.
 */
bool gp__opm_eval(const char *name, const struct gp__opm_args *a, struct gp__opm_result *r);

/**
 * The model of op @p name: a handle for gp__opm_eval_op(), -1 when gpuprof
 * has none (then gp__opm_eval() says "no model" whatever the inputs). For a
 * caller that evaluates many calls of one name: it looks the name up once.
 */
int gp__opm_find(const char *name);

/** gp__opm_eval() of the op @p op that gp__opm_find() gave (-1: no model). */
bool gp__opm_eval_op(int op, const struct gp__opm_args *a, struct gp__opm_result *r);

#endif
