/* SPDX-License-Identifier: MIT */
/*
 * findings-roofline.c - roofline-headroom: the op shapes with the most time
 * to win against the roofline, and what usually closes the gap.
 *
 * Reads only the rank's "roofline" section (its ops are ranked by
 * headroom): the first few rows are named, their headroom summed, and the
 * advice follows from what they are (docs/analyses/findings.md,
 * docs/analyses/roofline.md).
 */
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "text/text.h"
#include "util/error.h"

#define TOP_OPS 3
/* the headroom of the top ops, as a share of the GPU window, that makes the finding medium */
#define HEADROOM_MEDIUM_PCT 25.0

static bool row_is(const struct gp_value *o, const char *key, const char *v)
{
	const char *s = gp_value_get_str(gp_obj_get(o, key));

	return s && strcmp(s, v) == 0;
}

int gp__fnd_roofline(const struct gp__actx *c, const struct gp_value *r,
                     const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *rl = gp_obj_get(r, "roofline"), *ops = gp_obj_get(rl, "ops");
	const struct gp_value *pk = gp_value_path(rl, "device/peak_tflops");
	struct gp_value *ev = NULL;
	int64_t total = 0, h;
	size_t k, n = 0;
	bool unfused_attn = false, conv_mem = false, fp32_mx = false, ew_mem = false;
	bool tensor = false;
	double share, pct = NAN, v;
	char title[320], sugg[900], names[200] = "", pc[16];
	size_t sl = 0;
	int rc = 0;

	(void)c;
	if (!b->has_gpu || gp_value_type(rl) != GP_VALUE_OBJECT || b->window_ns <= 0)
		return 0;
	/* Tensor / Matrix Cores for fp32 work: TF32, or bf16 through autocast */
	tensor = gp_value_get_double(gp_obj_get(pk, "tf32"), &v) ||
	         gp_value_get_double(gp_obj_get(pk, "bf16"), &v);
	for (k = 0; k < gp_value_len(ops) && n < TOP_OPS; k++) {
		const struct gp_value *o = gp_arr_get(ops, k);
		const char *nm = gp_value_get_str(gp_obj_get(o, "name"));

		if (!gp_value_get_int(gp_obj_get(o, "headroom_ns"), &h) || h <= 0 || !nm)
			break;
		if (!n)
			gp_value_get_double(gp_obj_get(o, "roofline_pct"), &pct);
		total += h;
		n++;
		if (strcmp(nm, "aten::bmm") == 0 || strcmp(nm, "aten::baddbmm") == 0 ||
		    row_is(o, "model", "softmax"))
			unfused_attn = true;
		if (row_is(o, "model", "conv") && row_is(o, "bound", "memory"))
			conv_mem = true;
		if ((row_is(o, "model", "gemm") || row_is(o, "model", "conv") ||
		     row_is(o, "model", "attention")) &&
		    row_is(o, "dtype", "fp32"))
			fp32_mx = true;
		if ((row_is(o, "model", "elementwise") || row_is(o, "model", "norm") ||
		     row_is(o, "model", "reduction")) &&
		    row_is(o, "bound", "memory"))
			ew_mem = true;
		sl += (size_t)snprintf(names + sl, sl < sizeof(names) ? sizeof(names) - sl : 0,
		                       "%s%s", n > 1 ? ", " : "", nm);
		if (sl >= sizeof(names))
			sl = sizeof(names) - 1;
	}
	if (!n)
		return 0;
	share = gp__fnd_pct(total, b->window_ns);
	if (!(ev = gp_value_object()))
		return GP_ENOMEM;
	{
		const struct gp_value *top = gp_arr_get(ops, 0);

		GP_TRY(gp_obj_set_str(ev, "top_op", gp_value_get_str(gp_obj_get(top, "name"))));
		GP_TRY(gp_obj_set_str(ev, "top_op_input_dims",
		                      gp_value_get_str(gp_obj_get(top, "input_dims"))));
		GP_TRY(
		    gp_obj_set_str(ev, "top_op_bound", gp_value_get_str(gp_obj_get(top, "bound"))));
		GP_TRY(gp_obj_set_double(ev, "top_op_roofline_pct", pct));
	}
	GP_TRY(gp_obj_set_int(ev, "ops", (int64_t)n));
	GP_TRY(gp_obj_set_int(ev, "headroom_ns", total));
	GP_TRY(gp_obj_set_double(ev, "gpu_window_pct", share));
	if (gp_value_get_double(gp_obj_get(rl, "coverage_pct"), &v))
		GP_TRY(gp_obj_set_double(ev, "coverage_pct", v));
	snprintf(title, sizeof(title),
	         "%s of the GPU window is headroom against the roofline in %zu op shape%s (%s)",
	         gp__fmt_pct(pc, sizeof(pc), share, 0), n, n > 1 ? "s" : "", names);
	sl = (size_t)snprintf(sugg, sizeof(sugg),
	                      "these ops run below what the GPU's peaks allow for their FLOPs and "
	                      "bytes (the Roofline table lists them, most time to win first).");
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (sl < sizeof(sugg))                                                             \
			sl += (size_t)snprintf(sugg + sl, sizeof(sugg) - sl, __VA_ARGS__);         \
	} while (0)
	if (unfused_attn)
		ADD(" An attention written as bmm, softmax and bmm reads and writes the score "
		    "matrix: a fused attention kernel (torch.nn.functional.scaled_dot_product_"
		    "attention, FlashAttention) keeps it on chip.");
	if (conv_mem)
		ADD(" Memory-bound convolutions often gain from the channels-last layout "
		    "(model.to(memory_format=torch.channels_last) and its inputs), which spares "
		    "the "
		    "layout transposes.");
	if (fp32_mx && tensor) {
		/* the words of the GPU's maker (findings.md, "The device") */
		if (b->dev.vendor == GP_VENDOR_NVIDIA)
			ADD(" fp32 matrix work leaves the Tensor Cores idle: bf16 autocast "
			    "(torch.autocast(\"cuda\", dtype=torch.bfloat16)) or TF32 "
			    "(torch.set_float32_matmul_precision(\"high\")) uses them.");
		else if (b->dev.vendor == GP_VENDOR_AMD)
			ADD(" fp32 matrix work runs far below the Matrix Cores' bf16 rate: bf16 "
			    "autocast (torch.autocast(\"cuda\", dtype=torch.bfloat16)) uses it.");
		else
			ADD(" fp32 matrix work runs far below the GPU's bf16 rate (Tensor Cores, "
			    "Matrix Cores on AMD): bf16 autocast (torch.autocast(\"cuda\", "
			    "dtype=torch.bfloat16)) uses it.");
	}
	if (ew_mem)
		ADD(" Memory-bound elementwise ops, norms and reductions each read and write their "
		    "tensors: fusing them (torch.compile) reads the data once.");
	if (!unfused_attn && !conv_mem && !(fp32_mx && tensor) && !ew_mem)
		ADD(" GEMMs and convolutions this small do not fill the GPU: more rows per call "
		    "(batching the work), dimensions that are multiples of 16, or fusing "
		    "neighbouring ops raise their efficiency.");
#undef ADD
	rc = gp__fnd_add(fl, "roofline-headroom",
	                 share >= HEADROOM_MEDIUM_PCT ? GP_FND_MEDIUM : GP_FND_LOW, share, title,
	                 ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}
