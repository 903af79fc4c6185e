/* SPDX-License-Identifier: MIT */
/*
 * opmodel.c - FLOPs and bytes of PyTorch ops from their recorded inputs
 * (parsed by opmodel-parse.c): the models, one function per family, chosen
 * by the op's name from a table. A model that meets shapes it does not expect says "no
 * model" rather than guess. FLOPs of GEMM, convolution and attention follow
 * PyTorch's torch/utils/flop_counter.py; the others are documented, with
 * their sources, in docs/analyses/roofline.md. Results are doubles: sizes
 * are capped at 2^53 so products stay finite.
 */
#include "opmodel.h"

#include <math.h>
#include <string.h>

#include "util/error.h"

/* ---- helpers of the models ---- */

struct acc {
	const struct gp__opm_args *a;
	double bytes; /* NaN once a tensor's dtype is unknown */
};

/* input @p i is a tensor with a known shape and dtype */
static bool tensor(const struct gp__opm_args *a, size_t i)
{
	return i < a->n && a->in[i].rank >= 0 && a->in[i].ty != GP_DT_NONE;
}

/* a tensor, or, without "Input type", a list of sizes (of a tensor of unknown dtype) */
static bool shaped(const struct gp__opm_args *a, size_t i)
{
	return tensor(a, i) || (!a->typed && i < a->n && a->in[i].rank >= 1);
}

static double numel(const struct gp__opm_in *in)
{
	double n = 1;
	int k;

	for (k = 0; k < in->rank; k++)
		n *= (double)in->d[k];
	return n;
}

static void add_bytes(struct acc *c, double n, enum gp__dtype d)
{
	c->bytes += d == GP_DT_NONE ? NAN : n * (double)gp__dtype_size(d);
}

/* adds input @p i when it is a tensor (unknown bytes for one of unknown dtype) */
static void read_in(struct acc *c, size_t i)
{
	if (tensor(c->a, i))
		add_bytes(c, numel(&c->a->in[i]), c->a->in[i].ty);
	else if (shaped(c->a, i))
		c->bytes = NAN;
}

/* Concrete Inputs entry @p i equals @p s */
static bool conc_is(const struct gp__opm_args *a, size_t i, const char *s)
{
	return i < a->n && a->in[i].conc && a->in[i].conc_len == strlen(s) &&
	       memcmp(a->in[i].conc, s, a->in[i].conc_len) == 0;
}

/* a boolean Concrete Input: 1 true, 0 false, -1 absent or not a boolean */
static int conc_bool(const struct gp__opm_args *a, size_t i)
{
	if (conc_is(a, i, "True") || conc_is(a, i, "true") || conc_is(a, i, "1"))
		return 1;
	if (conc_is(a, i, "False") || conc_is(a, i, "false") || conc_is(a, i, "0"))
		return 0;
	return -1;
}

/*
 * Integers of a Concrete Input: "3", "-1", "[1, 2]" (a list), into @p v.
 * @return how many (up to @p max), 0 for "" or "None", -1 when it is not that.
 */
static int conc_ints(const struct gp__opm_args *a, size_t i, int64_t *v, int max)
{
	const char *p, *end;
	int n = 0;
	bool list;

	if (i >= a->n || !a->in[i].conc)
		return -1;
	p = a->in[i].conc;
	end = p + a->in[i].conc_len;
	if (p == end || conc_is(a, i, "None"))
		return 0;
	list = *p == '[';
	if (list)
		p++;
	for (;;) {
		bool neg = false;
		int64_t x = 0;

		gp__opm_skip_ws(&p, end);
		if (list && p < end && *p == ']' && n == 0)
			return 0;
		if (p < end && *p == '-') {
			neg = true;
			p++;
		}
		if (p >= end || *p < '0' || *p > '9')
			return -1;
		while (p < end && *p >= '0' && *p <= '9') {
			if (x <= GP_OPM_DIM_MAX)
				x = x * 10 + (*p - '0');
			p++;
		}
		if (x > GP_OPM_DIM_MAX || n >= max)
			return -1;
		v[n++] = neg ? -x : x;
		gp__opm_skip_ws(&p, end);
		if (!list)
			return p == end ? n : -1;
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return p + 1 == end && *p == ']' ? n : -1;
	}
}

/* ---- GEMM (torch/utils/flop_counter.py: mm_flop, addmm_flop, bmm_flop) ---- */

enum { G_MM, G_ADDMM, G_BMM, G_BADDBMM, G_MATMUL, G_LINEAR, G_SCALED_MM };

/* ScalarType numbering of c10 (c10/core/ScalarType.h), for _scaled_mm's out_dtype */
static enum gp__dtype scalar_type(int64_t v)
{
	switch (v) {
	case 0:
		return GP_DT_U8;
	case 1:
		return GP_DT_I8;
	case 2:
		return GP_DT_I16;
	case 3:
		return GP_DT_I32;
	case 4:
		return GP_DT_I64;
	case 5:
		return GP_DT_F16;
	case 6:
		return GP_DT_F32;
	case 7:
		return GP_DT_F64;
	case 11:
		return GP_DT_BOOL;
	case 15:
		return GP_DT_BF16;
	case 23:
	case 24:
	case 25:
	case 26:
		return GP_DT_F8;
	default:
		return GP_DT_NONE;
	}
}

static bool m_gemm(const struct gp__opm_args *a, int v, struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	size_t ia = 0, ib = 1, k;
	double batch = 1, M, N, K;
	enum gp__dtype out;

	if (v == G_ADDMM || v == G_BADDBMM)
		ia = 1, ib = 2;
	if (!shaped(a, ia) || !shaped(a, ib))
		return false;
	{
		const struct gp__opm_in *A = &a->in[ia], *B = &a->in[ib];

		switch (v) {
		case G_MM:
		case G_ADDMM:
		case G_SCALED_MM:
			if (A->rank != 2 || B->rank != 2 || A->d[1] != B->d[0])
				return false;
			M = (double)A->d[0], K = (double)A->d[1], N = (double)B->d[1];
			break;
		case G_BMM:
		case G_BADDBMM:
			if (A->rank != 3 || B->rank != 3 || A->d[0] != B->d[0] ||
			    A->d[2] != B->d[1])
				return false;
			batch = (double)A->d[0];
			M = (double)A->d[1], K = (double)A->d[2], N = (double)B->d[2];
			break;
		case G_LINEAR: /* x [..., K] @ W[N, K]^T */
			if (A->rank < 1 || B->rank != 2 || A->d[A->rank - 1] != B->d[1])
				return false;
			K = (double)B->d[1], N = (double)B->d[0];
			M = 1;
			for (k = 0; k + 1 < (size_t)A->rank; k++)
				M *= (double)A->d[k];
			break;
		default: { /* matmul: 1-D operands as [1, K] and [K, 1], batch dims broadcast */
			int ra = A->rank, rb = B->rank, nb, j;
			int64_t ka, kb;

			if (ra < 1 || rb < 1)
				return false;
			ka = A->d[ra - 1];
			kb = rb >= 2 ? B->d[rb - 2] : B->d[0];
			if (ka != kb)
				return false;
			M = ra >= 2 ? (double)A->d[ra - 2] : 1;
			N = rb >= 2 ? (double)B->d[rb - 1] : 1;
			K = (double)ka;
			nb = (ra > rb ? ra : rb) - 2;
			for (j = 0; j < nb; j++) {
				int xa = ra - 3 - j, xb = rb - 3 - j;
				int64_t da = xa >= 0 ? A->d[xa] : 1, db = xb >= 0 ? B->d[xb] : 1;

				if (da != db && da != 1 && db != 1)
					return false;
				batch *= (double)(da > db ? da : db);
			}
		}
		}
	}
	r->kind = GP_OPM_GEMM;
	r->dtype = a->in[ia].ty;
	r->flops = 2 * batch * M * N * K;
	read_in(&c, ia);
	read_in(&c, ib);
	out = a->in[ia].ty;
	if (v == G_ADDMM || v == G_BADDBMM)
		read_in(&c, 0);
	else if (v == G_LINEAR)
		read_in(&c, 2);
	else if (v == G_SCALED_MM) {
		int64_t od;

		for (k = 2; k < 6; k++) /* scale_a, scale_b, bias, scale_result */
			read_in(&c, k);
		if (conc_ints(a, 6, &od, 1) == 1 && scalar_type(od) != GP_DT_NONE)
			out = scalar_type(od);
	}
	add_bytes(&c, batch * M * N, out);
	r->bytes = c.bytes;
	return true;
}

/* ---- convolution (flop_counter.py: conv_flop_count, conv_backward_flop) ---- */

enum { C_CONVOLUTION, C_CONVND, C_CUDNN, C_BACKWARD };

/* stride/padding/dilation/output_padding of @p nd spatial dims; @p dflt when absent */
static bool conv_param(const struct gp__opm_args *a, size_t i, int nd, int64_t dflt, int64_t *out)
{
	int64_t v[GP_OPM_MAX_RANK];
	int n = conc_ints(a, i, v, GP_OPM_MAX_RANK), k;

	if (n < 0)
		return false;
	for (k = 0; k < nd; k++)
		out[k] = n == 0 ? dflt : n == 1 ? v[0] : k < n ? v[k] : -1;
	if (n > 1 && n != nd)
		return false;
	for (k = 0; k < nd; k++)
		if (out[k] < 0)
			return false;
	return true;
}

static bool m_conv(const struct gp__opm_args *a, int v, struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	size_t ix = v == C_BACKWARD ? 1 : 0, iw = ix + 1, is, ip, id, it, iop, ig;
	int64_t stride[GP_OPM_MAX_RANK], pad[GP_OPM_MAX_RANK], dil[GP_OPM_MAX_RANK],
	    opad[GP_OPM_MAX_RANK], groups = 1, out[GP_OPM_MAX_RANK];
	const struct gp__opm_in *X, *W;
	double conv_shape = 1, outn, fwd, kprod = 1;
	int nd, k, transposed = 0;
	bool same = false;

	if (!tensor(a, ix) || !tensor(a, iw))
		return false;
	X = &a->in[ix];
	W = &a->in[iw];
	nd = X->rank - 2;
	if (nd < 1 || W->rank != X->rank)
		return false;
	switch (v) {
	case C_CONVOLUTION: /* (input, weight, bias, stride, padding, dilation, transposed,
	                       output_padding, groups) */
		is = 3, ip = 4, id = 5, it = 6, iop = 7, ig = 8;
		break;
	case C_CONVND: /* conv2d(input, weight, bias, stride, padding, dilation, groups) */
		is = 3, ip = 4, id = 5, it = SIZE_MAX, iop = SIZE_MAX, ig = 6;
		break;
	case C_CUDNN: /* cudnn_convolution(self, weight, padding, stride, dilation, groups, ...) */
		ip = 2, is = 3, id = 4, it = SIZE_MAX, iop = SIZE_MAX, ig = 5;
		break;
	default: /* convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
	            dilation, transposed, output_padding, groups, output_mask) */
		is = 4, ip = 5, id = 6, it = 7, iop = 8, ig = 9;
		break;
	}
	if (v == C_CONVND && (conc_is(a, ip, "same") || conc_is(a, ip, "valid"))) {
		same = conc_is(a, ip, "same");
		for (k = 0; k < nd; k++)
			pad[k] = 0;
	} else if (!conv_param(a, ip, nd, 0, pad))
		return false;
	if (!conv_param(a, is, nd, 1, stride) || !conv_param(a, id, nd, 1, dil))
		return false;
	if (it != SIZE_MAX) {
		transposed = conc_bool(a, it);
		if (transposed < 0)
			return false;
	}
	if (transposed && !conv_param(a, iop, nd, 0, opad))
		return false;
	if (conc_ints(a, ig, &groups, 1) != 1 || groups < 1)
		return false;
	for (k = 0; k < nd; k++) {
		int64_t x = X->d[k + 2], kk = W->d[k + 2];

		if (stride[k] < 1)
			return false;
		if (same)
			out[k] = x;
		else if (transposed)
			out[k] = (x - 1) * stride[k] - 2 * pad[k] + dil[k] * (kk - 1) + opad[k] + 1;
		else
			out[k] = (x + 2 * pad[k] - dil[k] * (kk - 1) - 1) / stride[k] + 1;
		if (out[k] < 0)
			return false;
		conv_shape *= (double)(transposed ? x : out[k]);
		kprod *= (double)kk;
	}
	/* flop_counter: prod(conv_shape) * prod(filter) * batch * c_out * c_in * 2 (w = [c_out,
	 * c_in, ...]) */
	fwd = 2 * conv_shape * kprod * (double)X->d[0] * (double)W->d[0] * (double)W->d[1];
	outn = (double)X->d[0] * (double)(transposed ? W->d[1] * groups : W->d[0]);
	for (k = 0; k < nd; k++)
		outn *= (double)out[k];
	r->kind = GP_OPM_CONV;
	r->dtype = X->ty;
	if (v != C_BACKWARD) {
		r->flops = fwd;
		read_in(&c, ix);
		read_in(&c, iw);
		if (v != C_CUDNN)
			read_in(&c, 2);
		add_bytes(&c, outn, X->ty);
	} else {
		/* output_mask "[True, True, False]": grad_input, grad_weight, grad_bias */
		bool m[3] = { true, true, true };
		const char *p = ig + 1 < a->n ? a->in[ig + 1].conc : NULL;

		if (p) {
			const char *end = p + a->in[ig + 1].conc_len;
			int j = 0;

			for (; p < end && j < 3; p++) {
				if (*p == 'T' || *p == 'F')
					m[j++] = *p == 'T';
			}
		}
		if (!tensor(a, 0))
			return false;
		r->flops = (m[0] ? fwd : 0) + (m[1] ? fwd : 0);
		read_in(&c, 0);
		read_in(&c, ix);
		read_in(&c, iw);
		if (m[0])
			read_in(&c, ix);
		if (m[1])
			read_in(&c, iw);
		if (m[2])
			add_bytes(&c, (double)(transposed ? W->d[1] * groups : W->d[0]), X->ty);
	}
	r->bytes = c.bytes;
	return true;
}

/* ---- attention (flop_counter.py: sdpa_flop_count, sdpa_backward_flop_count) ---- */

struct attn_sig {
	size_t q, k, v; /* inputs */
	bool bshd;      /* [B, S, H, D] (flash/efficient forward) rather than [B, H, S, D] */
	size_t causal;  /* the is_causal input, SIZE_MAX none */
	bool mask_type; /* causal given as custom_mask_type (non-zero: causal) */
	size_t mask;    /* attn_mask / attn_bias input, SIZE_MAX none */
	size_t cu;      /* cum_seq_q input (varlen: no model when set), SIZE_MAX none */
	bool backward;  /* grad_out is input 0 */
	size_t out;     /* backward: the forward's output */
};

static bool m_attention(const struct gp__opm_args *a, const struct attn_sig *s,
                        struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	const struct gp__opm_in *Q, *K, *V;
	double B, H, Sq, Sk, Dq, Dv, pairs;
	int causal = 0;

	if (!tensor(a, s->q) || !tensor(a, s->k) || !tensor(a, s->v))
		return false;
	Q = &a->in[s->q], K = &a->in[s->k], V = &a->in[s->v];
	if (Q->rank != 4 || K->rank != 4 || V->rank != 4)
		return false;
	if (s->cu != SIZE_MAX && s->cu < a->n && a->in[s->cu].rank > 0)
		return false; /* varlen: per-sequence lengths are not in the trace */
	if (s->bshd) {
		B = (double)Q->d[0], Sq = (double)Q->d[1], H = (double)Q->d[2],
		Dq = (double)Q->d[3];
		Sk = (double)K->d[1], Dv = (double)V->d[3];
	} else {
		B = (double)Q->d[0], H = (double)Q->d[1], Sq = (double)Q->d[2],
		Dq = (double)Q->d[3];
		Sk = (double)K->d[2], Dv = (double)V->d[3];
	}
	if (s->causal != SIZE_MAX) {
		if (s->mask_type) {
			int64_t mt;

			if (conc_ints(a, s->causal, &mt, 1) == 1)
				causal = mt != 0;
		} else if (conc_bool(a, s->causal) == 1)
			causal = 1;
	}
	if (causal && Sq != Sk)
		return false; /* the share the mask keeps depends on its alignment */
	pairs = B * H * Sq * Sk * (causal ? 0.5 : 1);
	r->kind = GP_OPM_ATTENTION;
	r->dtype = Q->ty;
	read_in(&c, s->q);
	read_in(&c, s->k);
	read_in(&c, s->v);
	if (s->mask != SIZE_MAX)
		read_in(&c, s->mask);
	if (!s->backward) {
		/* QK^T and PV: 2·B·H·Sq·Sk·(Dq + Dv) */
		r->flops = 2 * pairs * (Dq + Dv);
		add_bytes(&c, B * H * Sq * Dv, Q->ty);
	} else {
		/* recomputed QK^T, dP = dO·V^T, dV, dQ, dK: 2·B·H·Sq·Sk·(3·Dq + 2·Dv) */
		r->flops = 2 * pairs * (3 * Dq + 2 * Dv);
		read_in(&c, 0);      /* grad_out */
		read_in(&c, s->out); /* out */
		read_in(&c, s->q);   /* grad_q, grad_k, grad_v written */
		read_in(&c, s->k);
		read_in(&c, s->v);
	}
	r->bytes = c.bytes;
	return true;
}

/* ---- softmax, norms ---- */

enum { S_SOFTMAX, S_HALF_TO_FLOAT, S_BACKWARD };

static bool m_softmax(const struct gp__opm_args *a, int v, struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	double n;

	if (!tensor(a, 0))
		return false;
	n = numel(&a->in[0]);
	r->kind = GP_OPM_SOFTMAX;
	r->dtype = a->in[0].ty;
	read_in(&c, 0);
	if (v == S_BACKWARD) {
		/* grad_input = y·(dy − Σ dy·y): multiply, sum, subtract, multiply */
		if (!tensor(a, 1))
			return false;
		read_in(&c, 1);
		r->flops = 4 * n;
		add_bytes(&c, n, a->in[0].ty);
	} else {
		/* exp, sum, divide (TraceLens Softmax.flops_func) */
		r->flops = 3 * n;
		add_bytes(&c, n,
		          v == S_HALF_TO_FLOAT && conc_bool(a, 2) == 1 ? GP_DT_F32 : a->in[0].ty);
	}
	r->bytes = c.bytes;
	return true;
}

enum { N_LAYER, N_RMS, N_BATCH, N_BATCH_INFER, N_GROUP };

static bool m_norm(const struct gp__opm_args *a, int v, struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	bool affine;
	double n, per;
	size_t k, last;

	if (!tensor(a, 0))
		return false;
	n = numel(&a->in[0]);
	switch (v) {
	case N_LAYER: /* (input, normalized_shape, weight, bias, eps) */
	case N_GROUP: /* (input, [N, C, HxW,] weight, bias, ...): weight/bias are tensors */
		affine = tensor(a, 2) || tensor(a, 3) || (v == N_GROUP && tensor(a, 1));
		per = affine ? 5 : 4; /* fvcore norm_flop_counter */
		last = 4;
		break;
	case N_RMS: /* (input, normalized_shape, weight, eps): square, sum, scale (+ weight) */
		affine = tensor(a, 2);
		per = affine ? 4 : 3;
		last = 3;
		break;
	default: { /* (input, weight, bias, running_mean, running_var, training, ...) */
		int training = v == N_BATCH_INFER ? 0 : conc_bool(a, 5);

		if (training < 0)
			return false;
		affine = tensor(a, 1) || tensor(a, 2);
		/* fvcore batchnorm_flop_jit: training as a norm, inference 2 (1 without affine) */
		per = training ? (affine ? 5 : 4) : (affine ? 2 : 1);
		last = 5;
	}
	}
	r->kind = GP_OPM_NORM;
	r->dtype = a->in[0].ty;
	r->flops = gp__dtype_float(a->in[0].ty) ? per * n : 0;
	for (k = 0; k < last && k < a->n; k++)
		read_in(&c, k);
	add_bytes(&c, n, a->in[0].ty);
	r->bytes = c.bytes;
	return true;
}

/* ---- elementwise, reductions ---- */

#define E_FLOP  0x1u  /* one FLOP per output element (else 0: data movement) */
#define E_DST   0x2u  /* input 0 is the destination: written, not read (copy_, fill_) */
#define E_BOOL  0x4u  /* the output is bool (comparisons) */
#define E_FIRST 0x8u  /* the output has input 0's shape (not the broadcast of all) */
#define E_OUT2  0x10u /* the output has the second tensor's type (where(cond, x, y)) */

static bool m_elementwise(const struct gp__opm_args *a, unsigned f, struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	int64_t shape[GP_OPM_MAX_RANK];
	int rank = 0, k;
	size_t i, first = SIZE_MAX, src = SIZE_MAX;
	double outn = 1;
	enum gp__dtype out;

	for (i = 0; i < a->n; i++) {
		const struct gp__opm_in *in = &a->in[i];

		if (!tensor(a, i))
			continue;
		if (first == SIZE_MAX)
			first = i;
		else if (src == SIZE_MAX)
			src = i;
		if ((f & (E_DST | E_FIRST)) && i != first)
			continue;
		/* broadcast, right-aligned */
		for (k = 0; k < in->rank; k++) {
			int at = GP_OPM_MAX_RANK - in->rank + k;
			int64_t d = in->d[k];

			if (GP_OPM_MAX_RANK - at > rank) {
				shape[at] = d;
				continue;
			}
			if (shape[at] == 1)
				shape[at] = d;
			else if (d != 1 && d != shape[at])
				return false;
		}
		if (in->rank > rank)
			rank = in->rank;
	}
	if (first == SIZE_MAX || (f & E_DST && first != 0))
		return false;
	for (k = GP_OPM_MAX_RANK - rank; k < GP_OPM_MAX_RANK; k++)
		outn *= (double)shape[k];
	for (i = 0; i < a->n; i++)
		if (!((f & E_DST) && i == 0))
			read_in(&c, i);
	out = f & E_BOOL                        ? GP_DT_BOOL
	      : (f & E_OUT2) && src != SIZE_MAX ? a->in[src].ty
	                                        : a->in[first].ty;
	add_bytes(&c, outn, out);
	r->kind = GP_OPM_ELEMENTWISE;
	/* copy_: the source's type is the one computed on */
	r->dtype = (f & E_DST) && src != SIZE_MAX ? a->in[src].ty : a->in[first].ty;
	r->flops = (f & E_FLOP) && gp__dtype_float(r->dtype) ? outn : 0;
	r->bytes = c.bytes;
	return true;
}

#define R_ARG   0x1u /* the output is int64 (argmax, argmin) */
#define R_DIM2  0x2u /* the dims are input 2 (norm, linalg_vector_norm), else input 1 */
#define R_BOOLO 0x4u /* the output is bool (any, all) */

static bool m_reduction(const struct gp__opm_args *a, unsigned f, struct gp__opm_result *r)
{
	struct acc c = { a, 0 };
	const struct gp__opm_in *X;
	int64_t dims[GP_OPM_MAX_RANK];
	int nd, k;
	double n, outn = 1;
	enum gp__dtype out;

	if (!tensor(a, 0))
		return false;
	X = &a->in[0];
	n = numel(X);
	nd = a->n > 1 ? conc_ints(a, f & R_DIM2 ? 2 : 1, dims, GP_OPM_MAX_RANK) : 0;
	if (nd < 0) {
		/* a dim that is not an integer list (a name, a float "p"): the whole tensor only
		 * when the op has no dim argument there */
		return false;
	}
	if (nd > 0) {
		bool red[GP_OPM_MAX_RANK] = { false };

		for (k = 0; k < nd; k++) {
			int64_t d = dims[k] < 0 ? dims[k] + X->rank : dims[k];

			if (d < 0 || d >= (X->rank ? X->rank : 1))
				return false;
			if (X->rank)
				red[d] = true;
		}
		for (k = 0; k < X->rank; k++)
			if (!red[k])
				outn *= (double)X->d[k];
	}
	read_in(&c, 0);
	out = f & R_ARG ? GP_DT_I64 : f & R_BOOLO ? GP_DT_BOOL : X->ty;
	add_bytes(&c, outn, out);
	r->kind = GP_OPM_REDUCTION;
	r->dtype = X->ty;
	r->flops = gp__dtype_float(X->ty) ? n : 0; /* one operation per input element */
	r->bytes = c.bytes;
	return true;
}

/* ---- the table of ops ---- */

enum fam { F_GEMM, F_CONV, F_ATTN, F_SOFTMAX, F_NORM, F_EW, F_RED };

#define NO SIZE_MAX
static const struct attn_sig attn_sigs[] = {
	/* 0 scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gqa) */
	{ .q = 0, .k = 1, .v = 2, .causal = 5, .mask = 3, .cu = NO, .out = NO },
	/* 1 _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, debug, scale) */
	{ .q = 0, .k = 1, .v = 2, .causal = 4, .mask = NO, .cu = NO, .out = NO },
	/* 2 _scaled_dot_product_efficient_attention / _cudnn_attention(q, k, v, attn_bias,
	 * compute_log_sumexp, dropout_p, is_causal, ...) */
	{ .q = 0, .k = 1, .v = 2, .causal = 6, .mask = 3, .cu = NO, .out = NO },
	/* 3 _flash_attention_forward(q, k, v, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
	 * is_causal, ...), [B, S, H, D] */
	{ .q = 0, .k = 1, .v = 2, .bshd = true, .causal = 8, .mask = NO, .cu = 3, .out = NO },
	/* 4 _efficient_attention_forward(q, k, v, bias, cu_seqlens_q, cu_seqlens_k, max_q, max_k,
	 * dropout_p, custom_mask_type, ...), [B, S, H, D] */
	{ .q = 0,
	  .k = 1,
	  .v = 2,
	  .bshd = true,
	  .causal = 9,
	  .mask_type = true,
	  .mask = 3,
	  .cu = 4,
	  .out = NO },
	/* 5 _scaled_dot_product_flash_attention_backward(grad_out, q, k, v, out, logsumexp,
	 * cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, ...) */
	{ .q = 1, .k = 2, .v = 3, .causal = 11, .mask = NO, .cu = NO, .backward = true, .out = 4 },
	/* 6 _scaled_dot_product_efficient_attention_backward(grad_out, q, k, v, attn_bias, out,
	 * logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, ...) */
	{ .q = 1, .k = 2, .v = 3, .causal = 11, .mask = 4, .cu = NO, .backward = true, .out = 5 },
	/* 7 _flash_attention_backward(grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k,
	 * max_q, max_k, dropout_p, is_causal, ...), [B, S, H, D] */
	{ .q = 1,
	  .k = 2,
	  .v = 3,
	  .bshd = true,
	  .causal = 11,
	  .mask = NO,
	  .cu = 6,
	  .backward = true,
	  .out = 4 },
};
#undef NO

static const struct op {
	const char *name; /* without "aten::" */
	uint8_t fam;
	uint8_t arg;
} ops[] = {
	{ "mm", F_GEMM, G_MM },
	{ "addmm", F_GEMM, G_ADDMM },
	{ "bmm", F_GEMM, G_BMM },
	{ "baddbmm", F_GEMM, G_BADDBMM },
	{ "matmul", F_GEMM, G_MATMUL },
	{ "linear", F_GEMM, G_LINEAR },
	{ "_scaled_mm", F_GEMM, G_SCALED_MM },
	{ "convolution", F_CONV, C_CONVOLUTION },
	{ "_convolution", F_CONV, C_CONVOLUTION },
	{ "conv1d", F_CONV, C_CONVND },
	{ "conv2d", F_CONV, C_CONVND },
	{ "conv3d", F_CONV, C_CONVND },
	{ "cudnn_convolution", F_CONV, C_CUDNN },
	{ "miopen_convolution", F_CONV, C_CUDNN },
	{ "convolution_backward", F_CONV, C_BACKWARD },
	{ "scaled_dot_product_attention", F_ATTN, 0 },
	{ "_scaled_dot_product_flash_attention", F_ATTN, 1 },
	{ "_scaled_dot_product_efficient_attention", F_ATTN, 2 },
	{ "_scaled_dot_product_cudnn_attention", F_ATTN, 2 },
	{ "_flash_attention_forward", F_ATTN, 3 },
	{ "_efficient_attention_forward", F_ATTN, 4 },
	{ "_scaled_dot_product_flash_attention_backward", F_ATTN, 5 },
	{ "_scaled_dot_product_efficient_attention_backward", F_ATTN, 6 },
	{ "_flash_attention_backward", F_ATTN, 7 },
	{ "softmax", F_SOFTMAX, S_SOFTMAX },
	{ "_softmax", F_SOFTMAX, S_HALF_TO_FLOAT },
	{ "log_softmax", F_SOFTMAX, S_SOFTMAX },
	{ "_log_softmax", F_SOFTMAX, S_HALF_TO_FLOAT },
	{ "_softmax_backward_data", F_SOFTMAX, S_BACKWARD },
	{ "_log_softmax_backward_data", F_SOFTMAX, S_BACKWARD },
	{ "layer_norm", F_NORM, N_LAYER },
	{ "native_layer_norm", F_NORM, N_LAYER },
	{ "rms_norm", F_NORM, N_RMS },
	{ "_fused_rms_norm", F_NORM, N_RMS },
	{ "batch_norm", F_NORM, N_BATCH },
	{ "native_batch_norm", F_NORM, N_BATCH },
	{ "_native_batch_norm_legit", F_NORM, N_BATCH },
	{ "_native_batch_norm_legit_no_training", F_NORM, N_BATCH_INFER },
	{ "_batch_norm_impl_index", F_NORM, N_BATCH },
	{ "cudnn_batch_norm", F_NORM, N_BATCH },
	{ "miopen_batch_norm", F_NORM, N_BATCH },
	{ "group_norm", F_NORM, N_GROUP },
	{ "native_group_norm", F_NORM, N_GROUP },
	/* elementwise with one FLOP per output element */
	{ "add", F_EW, E_FLOP },
	{ "add_", F_EW, E_FLOP },
	{ "sub", F_EW, E_FLOP },
	{ "sub_", F_EW, E_FLOP },
	{ "rsub", F_EW, E_FLOP },
	{ "mul", F_EW, E_FLOP },
	{ "mul_", F_EW, E_FLOP },
	{ "div", F_EW, E_FLOP },
	{ "div_", F_EW, E_FLOP },
	{ "neg", F_EW, E_FLOP },
	{ "neg_", F_EW, E_FLOP },
	{ "abs", F_EW, E_FLOP },
	{ "exp", F_EW, E_FLOP },
	{ "exp_", F_EW, E_FLOP },
	{ "log", F_EW, E_FLOP },
	{ "sqrt", F_EW, E_FLOP },
	{ "rsqrt", F_EW, E_FLOP },
	{ "rsqrt_", F_EW, E_FLOP },
	{ "reciprocal", F_EW, E_FLOP },
	{ "pow", F_EW, E_FLOP },
	{ "pow_", F_EW, E_FLOP },
	{ "square", F_EW, E_FLOP },
	{ "sin", F_EW, E_FLOP },
	{ "cos", F_EW, E_FLOP },
	{ "tanh", F_EW, E_FLOP },
	{ "tanh_", F_EW, E_FLOP },
	{ "sigmoid", F_EW, E_FLOP },
	{ "sigmoid_", F_EW, E_FLOP },
	{ "erf", F_EW, E_FLOP },
	{ "relu", F_EW, E_FLOP },
	{ "relu_", F_EW, E_FLOP },
	{ "gelu", F_EW, E_FLOP },
	{ "gelu_", F_EW, E_FLOP },
	{ "silu", F_EW, E_FLOP },
	{ "silu_", F_EW, E_FLOP },
	{ "hardtanh", F_EW, E_FLOP },
	{ "hardtanh_", F_EW, E_FLOP },
	{ "leaky_relu", F_EW, E_FLOP },
	{ "elu", F_EW, E_FLOP },
	{ "clamp", F_EW, E_FLOP },
	{ "clamp_", F_EW, E_FLOP },
	{ "clamp_min", F_EW, E_FLOP },
	{ "clamp_max", F_EW, E_FLOP },
	{ "maximum", F_EW, E_FLOP },
	{ "minimum", F_EW, E_FLOP },
	{ "addcmul", F_EW, E_FLOP },
	{ "addcmul_", F_EW, E_FLOP },
	{ "addcdiv", F_EW, E_FLOP },
	{ "addcdiv_", F_EW, E_FLOP },
	{ "lerp", F_EW, E_FLOP },
	{ "lerp_", F_EW, E_FLOP },
	{ "threshold_backward", F_EW, E_FLOP },
	{ "gelu_backward", F_EW, E_FLOP },
	{ "silu_backward", F_EW, E_FLOP },
	{ "sigmoid_backward", F_EW, E_FLOP },
	{ "tanh_backward", F_EW, E_FLOP },
	{ "native_dropout", F_EW, E_FLOP | E_FIRST },
	{ "native_dropout_backward", F_EW, E_FLOP },
	{ "eq", F_EW, E_FLOP | E_BOOL },
	{ "ne", F_EW, E_FLOP | E_BOOL },
	{ "lt", F_EW, E_FLOP | E_BOOL },
	{ "le", F_EW, E_FLOP | E_BOOL },
	{ "gt", F_EW, E_FLOP | E_BOOL },
	{ "ge", F_EW, E_FLOP | E_BOOL },
	/* data movement: no FLOP */
	{ "copy_", F_EW, E_DST },
	{ "fill_", F_EW, E_DST },
	{ "zero_", F_EW, E_DST },
	{ "masked_fill", F_EW, 0 },
	{ "masked_fill_", F_EW, 0 },
	{ "where", F_EW, E_OUT2 },
	/* reductions */
	{ "sum", F_RED, 0 },
	{ "mean", F_RED, 0 },
	{ "amax", F_RED, 0 },
	{ "amin", F_RED, 0 },
	{ "max", F_RED, 0 },
	{ "min", F_RED, 0 },
	{ "prod", F_RED, 0 },
	{ "var", F_RED, 0 },
	{ "std", F_RED, 0 },
	{ "logsumexp", F_RED, 0 },
	{ "argmax", F_RED, R_ARG },
	{ "argmin", F_RED, R_ARG },
	{ "any", F_RED, R_BOOLO },
	{ "all", F_RED, R_BOOLO },
	{ "norm", F_RED, R_DIM2 },
	{ "linalg_vector_norm", F_RED, R_DIM2 },
};

int gp__opm_find(const char *name)
{
	size_t i;

	if (!name || strncmp(name, "aten::", 6) != 0)
		return -1;
	name += 6;
	for (i = 0; i < GP_ARRAY_SIZE(ops); i++)
		if (ops[i].name[0] == name[0] && strcmp(ops[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool gp__opm_eval_op(int op, const struct gp__opm_args *a, struct gp__opm_result *r)
{
	const struct op *o;
	bool ok = false;

	memset(r, 0, sizeof(*r));
	if (op < 0 || (size_t)op >= GP_ARRAY_SIZE(ops))
		return false;
	o = &ops[op];
	switch (o->fam) {
	case F_GEMM:
		ok = m_gemm(a, o->arg, r);
		break;
	case F_CONV:
		ok = m_conv(a, o->arg, r);
		break;
	case F_ATTN:
		ok = m_attention(a, &attn_sigs[o->arg], r);
		break;
	case F_SOFTMAX:
		ok = m_softmax(a, o->arg, r);
		break;
	case F_NORM:
		ok = m_norm(a, o->arg, r);
		break;
	case F_EW:
		ok = m_elementwise(a, o->arg, r);
		break;
	default:
		/* max(self, other), min(self, other): elementwise */
		ok = tensor(a, 1) ? m_elementwise(a, E_FLOP, r) : m_reduction(a, o->arg, r);
		break;
	}
	if (!ok || !isfinite(r->flops) || (!isfinite(r->bytes) && a->typed) ||
	    (!a->typed && o->fam != F_GEMM))
		memset(r, 0, sizeof(*r));
	return r->kind != GP_OPM_NONE;
}

bool gp__opm_eval(const char *name, const struct gp__opm_args *a, struct gp__opm_result *r)
{
	return gp__opm_eval_op(gp__opm_find(name), a, r);
}
