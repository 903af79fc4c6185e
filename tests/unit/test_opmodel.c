/* SPDX-License-Identifier: MIT */
/*
 * test_opmodel.c - the op models' FLOPs and bytes on hand-computed shapes,
 * the record_shapes parsers on good and hostile text, and the peak table's
 * matching of deviceProperties.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "analyze/opmodel.h"
#include "analyze/peaks.h"

#define F32 "\"float\""
#define BF  "\"c10::BFloat16\""
#define H   "\"c10::Half\""

/* the model of @p name over the three texts; asserts that one applies */
static struct gp__opm_result eval(const char *name, const char *dims, const char *types,
                                  const char *conc)
{
	struct gp__opm_args a;
	struct gp__opm_result r;

	assert_true(gp__opm_parse(dims, strlen(dims), types, types ? strlen(types) : 0, conc,
	                          conc ? strlen(conc) : 0, &a));
	if (!gp__opm_eval(name, &a, &r))
		fail_msg("no model for %s %s", name, dims);
	return r;
}

static bool none(const char *name, const char *dims, const char *types, const char *conc)
{
	struct gp__opm_args a;
	struct gp__opm_result r;

	if (!gp__opm_parse(dims, strlen(dims), types, types ? strlen(types) : 0, conc,
	                   conc ? strlen(conc) : 0, &a))
		return true;
	return !gp__opm_eval(name, &a, &r) && r.kind == GP_OPM_NONE;
}

static void test_gemm(void **state)
{
	struct gp__opm_result r;

	(void)state;
	/* mm: 2·M·N·K; (MK + KN + MN)·2 bytes */
	r = eval("aten::mm", "[[1024, 2048], [2048, 4096]]", "[" BF ", " BF "]", NULL);
	assert_int_equal(r.kind, GP_OPM_GEMM);
	assert_int_equal(r.dtype, GP_DT_BF16);
	assert_true(r.flops == 2.0 * 1024 * 4096 * 2048);
	assert_true(r.bytes == (1024.0 * 2048 + 2048.0 * 4096 + 1024.0 * 4096) * 2);
	/* addmm: the bias is read, not counted in FLOPs (flop_counter) */
	r = eval("aten::addmm", "[[512], [141, 512], [512, 512], [], []]",
	         "[" BF ", " BF ", " BF ", \"Scalar\", \"Scalar\"]",
	         "[\"\", \"\", \"\", \"1\", \"1\"]");
	assert_true(r.flops == 2.0 * 141 * 512 * 512);
	assert_true(r.bytes == (512.0 + 141 * 512 + 512 * 512 + 141 * 512) * 2);
	/* bmm, baddbmm */
	r = eval("aten::bmm", "[[8, 64, 32], [8, 32, 16]]", "[" F32 ", " F32 "]", NULL);
	assert_true(r.flops == 2.0 * 8 * 64 * 16 * 32);
	assert_true(r.bytes == (8.0 * 64 * 32 + 8 * 32 * 16 + 8 * 64 * 16) * 4);
	r = eval("aten::baddbmm", "[[8, 64, 16], [8, 64, 32], [8, 32, 16], [], []]",
	         "[" F32 ", " F32 ", " F32 ", \"Scalar\", \"Scalar\"]", NULL);
	assert_true(r.flops == 2.0 * 8 * 64 * 16 * 32);
	assert_true(r.bytes == (8.0 * 64 * 16 * 2 + 8 * 64 * 32 + 8 * 32 * 16) * 4);
	/* matmul broadcasts its batch dims: [2,1,8,16] @ [3,16,4] -> [2,3,8,4] */
	r = eval("aten::matmul", "[[2, 1, 8, 16], [3, 16, 4]]", "[" H ", " H "]", NULL);
	assert_true(r.flops == 2.0 * 6 * 8 * 4 * 16);
	assert_true(r.bytes == (2.0 * 8 * 16 + 3 * 16 * 4 + 6 * 8 * 4) * 2);
	/* a vector operand: [16] @ [16, 4] */
	r = eval("aten::matmul", "[[16], [16, 4]]", "[" F32 ", " F32 "]", NULL);
	assert_true(r.flops == 2.0 * 4 * 16);
	/* linear: x[4, 10, 64] W[32, 64] b[32] */
	r = eval("aten::linear", "[[4, 10, 64], [32, 64], [32]]", "[" F32 ", " F32 ", " F32 "]",
	         NULL);
	assert_true(r.flops == 2.0 * 40 * 32 * 64);
	assert_true(r.bytes == (40.0 * 64 + 32 * 64 + 32 + 40 * 32) * 4);
	/* _scaled_mm: fp8 operands, fp32 scales, a bf16 output (out_dtype 15) */
	r = eval("aten::_scaled_mm", "[[128, 256], [256, 64], [], [], [], [], [], []]",
	         "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", " F32 ", " F32
	         ", \"\", \"\", \"Scalar\", \"Scalar\"]",
	         "[\"\", \"\", \"\", \"\", \"\", \"\", \"15\", \"False\"]");
	assert_int_equal(r.dtype, GP_DT_F8);
	assert_true(r.flops == 2.0 * 128 * 64 * 256);
	assert_true(r.bytes == 128.0 * 256 + 256 * 64 + 4 + 4 + 128 * 64 * 2);
	/* without Input type (a capture's emit_nvtx sizes): GEMM FLOPs, unknown bytes */
	r = eval("aten::addmm", "[[512], [141, 512], [512, 512], [], []]", NULL, NULL);
	assert_true(r.flops == 2.0 * 141 * 512 * 512);
	assert_true(isnan(r.bytes));
	assert_int_equal(r.dtype, GP_DT_NONE);
	assert_true(none("aten::add", "[[4, 4], [4, 4]]", NULL, NULL));
	assert_true(none("aten::_softmax", "[[4, 4], [], []]", NULL, NULL));
	/* shapes that do not multiply: no model */
	assert_true(none("aten::mm", "[[3, 4], [5, 6]]", "[" F32 ", " F32 "]", NULL));
	assert_true(none("aten::mm", "[[3, 4]]", "[" F32 "]", NULL));
	assert_true(none("aten::matmul", "[[], [4]]", "[" F32 ", " F32 "]", NULL));
}

static void test_conv(void **state)
{
	struct gp__opm_result r;
	double out = 8.0 * 64 * 112 * 112;

	(void)state;
	/* ResNet's stem: 224² -> 112² at stride 2, padding 3, 7×7 */
	r = eval(
	    "aten::convolution", "[[8, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], [], [], []]",
	    "[" F32 ", " F32 ", " F32 ", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
	    "\"Scalar\", \"ScalarList\", \"Scalar\"]",
	    "[\"\", \"\", \"\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]");
	assert_int_equal(r.kind, GP_OPM_CONV);
	assert_true(r.flops == 2 * out * 3 * 7 * 7);
	assert_true(r.bytes == (8.0 * 3 * 224 * 224 + 64 * 3 * 49 + 64 + out) * 4);
	/* conv2d with one stride for both dims, groups 2, no bias, padding "same" */
	r = eval("aten::conv2d", "[[1, 4, 10, 10], [6, 2, 3, 3], [], [], [], [], []]",
	         "[" H ", " H ", \"\", \"ScalarList\", \"\", \"ScalarList\", \"Scalar\"]",
	         "[\"\", \"\", \"\", \"[1]\", \"same\", \"[1]\", \"2\"]");
	assert_true(r.flops == 2.0 * 1 * 6 * 100 * 2 * 9);
	assert_true(r.bytes == (400.0 + 6 * 2 * 9 + 600) * 2);
	/* a transposed convolution: out = (x - 1)·s - 2p + d(k - 1) + op + 1 = 9 */
	r = eval(
	    "aten::convolution", "[[2, 4, 4, 4], [4, 3, 3, 3], [], [], [], [], [], [], []]",
	    "[" F32 ", " F32 ", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
	    "\"Scalar\", \"ScalarList\", \"Scalar\"]",
	    "[\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]");
	assert_true(r.flops == 2.0 * 16 * 9 * 2 * 4 * 3); /* conv_shape = x's spatial */
	assert_true(r.bytes == (2.0 * 4 * 16 + 4 * 3 * 9 + 2 * 3 * 81) * 4);
	/* backward, grad_input and grad_weight (no bias) */
	r = eval(
	    "aten::convolution_backward",
	    "[[8, 64, 112, 112], [8, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], [], []]",
	    "[" F32 ", " F32 ", " F32 ", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
	    "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"ScalarList\"]",
	    "[\"\", \"\", \"\", \"[64]\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", "
	    "\"[0, 0]\", \"1\", \"[True, True, False]\"]");
	assert_true(r.flops == 2 * (2 * out * 3 * 7 * 7));
	assert_true(r.bytes == (out + 2 * (8.0 * 3 * 224 * 224) + 2 * (64.0 * 3 * 49)) * 4);
	/* no Concrete Inputs: stride and padding unknown, no model */
	assert_true(none("aten::convolution", "[[8, 3, 224, 224], [64, 3, 7, 7], []]",
	                 "[" F32 ", " F32 ", \"\"]", NULL));
}

static void test_attention(void **state)
{
	struct gp__opm_result r;
	const char *ty = "[" BF ", " BF ", " BF ", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]";
	double qkv = 2.0 * 12 * 1024 * 64;

	(void)state;
	/* SDPA [B, H, S, D] = [2, 12, 1024, 64]: 2·B·H·Sq·Sk·(Dq + Dv), causal halves */
	r = eval("aten::scaled_dot_product_attention",
	         "[[2, 12, 1024, 64], [2, 12, 1024, 64], [2, 12, 1024, 64], [], [], [], []]", ty,
	         "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\"]");
	assert_int_equal(r.kind, GP_OPM_ATTENTION);
	assert_true(r.flops == 2.0 * 2 * 12 * 1024 * 1024 * 128);
	assert_true(r.bytes == 4 * qkv * 2);
	r = eval("aten::scaled_dot_product_attention",
	         "[[2, 12, 1024, 64], [2, 12, 1024, 64], [2, 12, 1024, 64], [], [], [], []]", ty,
	         "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\"]");
	assert_true(r.flops == 2.0 * 2 * 12 * 1024 * 1024 * 128 / 2);
	/* causal with Sq != Sk: the mask's alignment decides, no model */
	assert_true(none("aten::scaled_dot_product_attention",
	                 "[[2, 12, 1, 64], [2, 12, 1024, 64], [2, 12, 1024, 64], [], [], [], []]",
	                 ty, "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\"]"));
	/* _flash_attention_forward is [B, S, H, D], is_causal at 8 (the bert trace's call) */
	r = eval(
	    "aten::_flash_attention_forward",
	    "[[1, 141, 8, 64], [1, 141, 8, 64], [1, 141, 8, 64], [], [], [], [], [], [], [], [], "
	    "[], [], [], []]",
	    "[" BF ", " BF ", " BF ", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
	    "\"Scalar\", \"Scalar\", \"\", \"\", \"\", \"\"]",
	    "[\"\", \"\", \"\", \"\", \"\", \"141\", \"141\", \"0.\", \"False\", \"False\", "
	    "\"0.125\", \"\", \"\", \"\", \"\"]");
	assert_true(r.flops == 2.0 * 1 * 8 * 141 * 141 * 128);
	assert_true(r.bytes == 4.0 * 141 * 8 * 64 * 2);
	/* varlen (cum_seq_q given): no model */
	assert_true(none("aten::_flash_attention_forward",
	                 "[[1, 141, 8, 64], [1, 141, 8, 64], [1, 141, 8, 64], [2], [2]]",
	                 "[" BF ", " BF ", " BF ", \"int\", \"int\"]", NULL));
	/* flash backward: 2·B·H·Sq·Sk·(3·Dq + 2·Dv); grad_out, q, k, v, out read; dq, dk, dv */
	r = eval(
	    "aten::_scaled_dot_product_flash_attention_backward",
	    "[[1, 4, 16, 8], [1, 4, 16, 8], [1, 4, 16, 8], [1, 4, 16, 8], [1, 4, 16, 8], [1, 4, "
	    "16], [], [], [], [], [], [], [], [], []]",
	    "[" H ", " H ", " H ", " H ", " H ", " F32 "]",
	    "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"16\", \"16\", \"0.\", \"True\"]");
	assert_true(r.flops == 2.0 * 4 * 16 * 16 * 40 / 2);
	assert_true(r.bytes == 8.0 * 4 * 16 * 8 * 2);
}

static void test_vector_ops(void **state)
{
	struct gp__opm_result r;

	(void)state;
	/* softmax: 3 per element; half_to_float writes fp32 */
	r = eval("aten::_softmax", "[[4, 100], [], []]", "[" H ", \"Scalar\", \"Scalar\"]",
	         "[\"\", \"-1\", \"True\"]");
	assert_int_equal(r.kind, GP_OPM_SOFTMAX);
	assert_true(r.flops == 1200);
	assert_true(r.bytes == 400 * 2 + 400 * 4);
	r = eval("aten::_softmax_backward_data", "[[4, 100], [4, 100], [], []]",
	         "[" F32 ", " F32 ", \"Scalar\", \"Scalar\"]", NULL);
	assert_true(r.flops == 1600);
	assert_true(r.bytes == 1200 * 4);
	/* layer norm with weight and bias: 5 per element (fvcore) */
	r = eval("aten::native_layer_norm", "[[1, 141, 512], [], [512], [512], []]",
	         "[" BF ", \"ScalarList\", " BF ", " BF ", \"Scalar\"]", NULL);
	assert_int_equal(r.kind, GP_OPM_NORM);
	assert_true(r.flops == 5.0 * 141 * 512);
	assert_true(r.bytes == (2.0 * 141 * 512 + 1024) * 2);
	r = eval("aten::rms_norm", "[[8, 64], [], [64], []]",
	         "[" F32 ", \"ScalarList\", " F32 ", \"Scalar\"]", NULL);
	assert_true(r.flops == 4.0 * 512);
	/* batch norm: training as a norm, inference 2 per element; unknown mode: no model */
	r = eval("aten::cudnn_batch_norm", "[[2, 3, 4, 4], [3], [3], [3], [3], [], [], []]",
	         "[" F32 ", " F32 ", " F32 ", " F32 ", " F32 "]",
	         "[\"\", \"\", \"\", \"\", \"\", \"False\", \"0.1\", \"1e-05\"]");
	assert_true(r.flops == 2.0 * 96);
	assert_true(r.bytes == (96.0 * 2 + 12) * 4);
	assert_true(none("aten::cudnn_batch_norm", "[[2, 3, 4, 4], [3], [3], [3], [3]]",
	                 "[" F32 ", " F32 ", " F32 ", " F32 ", " F32 "]", NULL));
	/* elementwise broadcast: [4, 1, 8] + [3, 1] -> [4, 3, 8] */
	r = eval("aten::add", "[[4, 1, 8], [3, 1], []]", "[" F32 ", " F32 ", \"Scalar\"]", NULL);
	assert_int_equal(r.kind, GP_OPM_ELEMENTWISE);
	assert_true(r.flops == 96);
	assert_true(r.bytes == (32.0 + 3 + 96) * 4);
	/* mismatched shapes do not broadcast */
	assert_true(none("aten::add", "[[4, 2], [3]]", "[" F32 ", " F32 "]", NULL));
	/* copy_ converts: reads the source, writes the destination, no FLOP */
	r = eval("aten::copy_", "[[16, 32], [16, 32], []]", "[" BF ", " F32 ", \"Scalar\"]", NULL);
	assert_true(r.flops == 0);
	assert_true(r.bytes == 512.0 * 4 + 512 * 2);
	assert_int_equal(r.dtype, GP_DT_F32);
	/* comparisons write bool; integer ops count no FLOP */
	r = eval("aten::eq", "[[1, 141], []]", "[\"long int\", \"Scalar\"]", NULL);
	assert_true(r.flops == 0);
	assert_true(r.bytes == 141.0 * 8 + 141);
	/* a 0-dim tensor (dims [] with a dtype) broadcasts */
	r = eval("aten::mul", "[[10, 10], []]", "[" F32 ", " F32 "]", NULL);
	assert_true(r.bytes == (100.0 + 1 + 100) * 4);
	/* reductions over the listed dims; the whole tensor without any */
	r = eval("aten::sum", "[[4, 5, 6], [], [], []]",
	         "[" F32 ", \"ScalarList\", \"Scalar\", \"\"]",
	         "[\"\", \"[-1, 0]\", \"False\", \"\"]");
	assert_int_equal(r.kind, GP_OPM_REDUCTION);
	assert_true(r.flops == 120);
	assert_true(r.bytes == (120.0 + 5) * 4);
	r = eval("aten::sum", "[[4, 5, 6]]", "[" F32 "]", NULL);
	assert_true(r.bytes == (120.0 + 1) * 4);
	r = eval("aten::argmax", "[[32, 151936], [], []]", "[" BF ", \"Scalar\", \"Scalar\"]",
	         "[\"\", \"-1\", \"False\"]");
	assert_true(r.bytes == 32.0 * 151936 * 2 + 32 * 8);
	assert_true(
	    none("aten::mean", "[[4, 5], []]", "[" F32 ", \"ScalarList\"]", "[\"\", \"[7]\"]"));
	/* max(self, other) is elementwise */
	r = eval("aten::max", "[[4, 5], [4, 5]]", "[" F32 ", " F32 "]", NULL);
	assert_int_equal(r.kind, GP_OPM_ELEMENTWISE);
	/* ops without a model */
	assert_true(none("aten::view", "[[4, 5], []]", "[" F32 ", \"ScalarList\"]", NULL));
	assert_true(none("mm", "[[1, 1], [1, 1]]", "[" F32 ", " F32 "]", NULL));
}

static void test_parser(void **state)
{
	static const char *const bad[] = {
		"",        "[",          "[[1, 2]", "[[1, 2],",      "x",
		"[[1 2]]", "[[1, 2]] x", "[\"",     "[[1], [2, [3]",
	};
	struct gp__opm_args a;
	size_t k;
	char big[4096];

	(void)state;
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		if (gp__opm_parse(bad[k], strlen(bad[k]), NULL, 0, NULL, 0, &a) &&
		    strcmp(bad[k], "[[1, 2]] x") != 0)
			fail_msg("'%s' parsed", bad[k]);
	/* nested lists (TensorList), floats and huge sizes are not tensors to the models */
	{
		const char *s = "[[[1, 2], [3]], [1.5], [99999999999999999999], [2, 3]]";

		assert_true(gp__opm_parse(s, strlen(s), NULL, 0, NULL, 0, &a));
	}
	assert_int_equal(a.n, 4);
	assert_int_equal(a.in[0].rank, -1);
	assert_int_equal(a.in[1].rank, -1);
	assert_int_equal(a.in[2].rank, -1);
	assert_int_equal(a.in[3].rank, 2);
	assert_int_equal(a.in[3].d[1], 3);
	/* more dims than GP_OPM_MAX_RANK */
	assert_true(gp__opm_parse("[[1,1,1,1,1,1,1,1,1]]", 21, NULL, 0, NULL, 0, &a));
	assert_int_equal(a.in[0].rank, -1);
	/* more inputs than GP_OPM_MAX_IN are read to the end and dropped */
	strcpy(big, "[");
	for (k = 0; k < 100; k++)
		strcat(big, k ? ", [1]" : "[1]");
	strcat(big, "]");
	assert_true(gp__opm_parse(big, strlen(big), NULL, 0, NULL, 0, &a));
	assert_int_equal(a.n, GP_OPM_MAX_IN);
	/* types: escapes and unknown names give no dtype; a cut text stops quietly */
	{
		const char *ty = "[\"fl\\\"oat\", \"double\", \"c10::Ha", *co = "[\"a\\\"b\", \"";

		assert_true(
		    gp__opm_parse("[[1], [1], [1]]", 15, ty, strlen(ty), co, strlen(co), &a));
	}
	assert_int_equal(a.in[0].ty, GP_DT_NONE);
	assert_int_equal(a.in[1].ty, GP_DT_F64);
	assert_int_equal(a.in[2].ty, GP_DT_NONE);
	assert_int_equal(a.in[0].conc_len, 4);
	assert_null(a.in[1].conc);
	/* the parsers stop at the length given, not at a NUL */
	assert_false(gp__opm_parse("[[1, 2]]", 5, NULL, 0, NULL, 0, &a));
	/* dtypes */
	assert_int_equal(gp__dtype_from_c10("c10::Float8_e5m2fnuz", 20), GP_DT_F8);
	assert_int_equal(gp__dtype_from_c10("long int", 8), GP_DT_I64);
	assert_int_equal(gp__dtype_size(GP_DT_BF16), 2);
	assert_string_equal(gp__dtype_name(GP_DT_F32), "fp32");
	assert_null(gp__dtype_name(GP_DT_NONE));
}

static const char *match(const char *name, int64_t sms, double gb)
{
	struct gp_device_props p = {
		.id = 0, .name = name, .num_sms = sms, .total_mem = (int64_t)(gb * 1e9)
	};
	const struct gp__peaks *pk = gp__peaks_match(&p);

	return pk ? pk->matched : NULL;
}

static void test_peaks(void **state)
{
	const struct gp__peaks *t;
	size_t n, k;

	(void)state;
	assert_string_equal(match("NVIDIA H100 80GB HBM3", 132, 85.0), "H100 SXM");
	assert_string_equal(match("NVIDIA H100 PCIe", 114, 85.0), "H100 PCIe");
	assert_string_equal(match("NVIDIA H100 NVL", 132, 100.0), "H100 NVL");
	assert_null(match("NVIDIA H100", 100, 85.0));
	assert_string_equal(match("NVIDIA H200", 132, 150.0), "H200 SXM");
	assert_null(match("NVIDIA H200 NVL", 132, 150.0));
	assert_string_equal(match("NVIDIA A100-PG509-200", 108, 42.5), "A100 40GB");
	assert_string_equal(match("NVIDIA A100-SXM4-80GB", 108, 85.0), "A100 80GB SXM");
	assert_string_equal(match("NVIDIA A100 80GB PCIe", 108, 85.0), "A100 80GB PCIe");
	assert_null(match("NVIDIA A100", 108, 85.0));
	assert_string_equal(match("Tesla V100-SXM2-16GB", 80, 16.9), "V100 SXM2");
	assert_string_equal(match("Tesla V100-DGXS-32GB", 80, 34.1), "V100 SXM2");
	assert_string_equal(match("Tesla V100-PCIE-32GB", 80, 34.1), "V100 PCIe");
	assert_null(match("Tesla V100S-PCIE-32GB", 80, 34.1));
	assert_string_equal(match("NVIDIA L4", 58, 24.0), "L4");
	assert_string_equal(match("NVIDIA L40S", 142, 48.0), "L40S");
	assert_null(match("NVIDIA L40", 142, 48.0));
	assert_string_equal(match("NVIDIA B200", 148, 190.0), "B200");
	assert_string_equal(match("AMD Instinct MI300X VF", 304, 205.6), "MI300X");
	assert_string_equal(match("AMD Instinct MI250X/MI250", 110, 68.7), "MI250X (one GCD)");
	assert_string_equal(match("AMD Instinct MI250X/MI250", 104, 68.7), "MI250 (one GCD)");
	assert_null(match("AMD Instinct MI250X/MI250", -1, 68.7));
	assert_null(match("AMD Radeon Graphics", 104, 68.7));
	assert_null(match("", 1, 1));
	assert_null(gp__peaks_match(NULL));
	/* every row: positive figures where given, a bandwidth and a source */
	t = gp__peaks_table(&n);
	for (k = 0; k < n; k++) {
		assert_true(t[k].tbps > 0);
		assert_true(t[k].fp32 > 0);
		assert_true(isnan(t[k].bf16) || t[k].bf16 >= t[k].fp32);
		assert_non_null(strstr(t[k].url, "https://"));
	}
}

/*
 * Mutated texts (a fixed xorshift sequence) through the parsers and every model: no read
 * past the buffer (a copy of exactly len bytes, no NUL), finite results.
 */
/* @p a and @p b hold the same inputs, every field of every slot */
static void same_args(const struct gp__opm_args *a, const struct gp__opm_args *b)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	assert_int_equal(a->typed, b->typed);
	for (i = 0; i < GP_OPM_MAX_IN; i++) {
		assert_int_equal(a->in[i].rank, b->in[i].rank);
		assert_memory_equal(a->in[i].d, b->in[i].d, sizeof(a->in[i].d));
		assert_int_equal(a->in[i].ty, b->in[i].ty);
		assert_ptr_equal(a->in[i].conc, b->in[i].conc);
		assert_int_equal(a->in[i].conc_len, b->in[i].conc_len);
	}
}

static void test_mutations(void **state)
{
	static const char *const names[] = {
		"aten::mm",
		"aten::addmm",
		"aten::bmm",
		"aten::baddbmm",
		"aten::matmul",
		"aten::linear",
		"aten::_scaled_mm",
		"aten::convolution",
		"aten::conv2d",
		"aten::cudnn_convolution",
		"aten::convolution_backward",
		"aten::scaled_dot_product_attention",
		"aten::_flash_attention_forward",
		"aten::_efficient_attention_forward",
		"aten::_flash_attention_backward",
		"aten::_softmax",
		"aten::_softmax_backward_data",
		"aten::native_layer_norm",
		"aten::rms_norm",
		"aten::native_batch_norm",
		"aten::native_group_norm",
		"aten::add",
		"aten::copy_",
		"aten::where",
		"aten::sum",
		"aten::max",
		"aten::argmax",
		"aten::norm",
	};
	static const char *const seeds[][3] = {
		{ "[[8, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []]",
		  "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", "
		  "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
		  "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, "
		  "0]\", \"1\"]" },
		{ "[[2, 4, 64, 32], [2, 4, 64, 32], [2, 4, 64, 32], [], [], [], [], [], [], [], "
		  "[], []]",
		  "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"Scalar\"]",
		  "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\", \"\", \"True\", \"1\"]" },
		{ "[[4, 5, 6], [4, 5, 6], [6], []]", "[\"float\", \"long int\", \"bool\", \"\"]",
		  "[\"\", \"[-1, 0]\", \"False\", \"None\"]" },
	};
	static const char alphabet[] = "[], 0123456789-\"\\Tx.e";
	uint64_t x = 88172645463325252ull;
	/* reparsed round after round: it must read as a fresh parse */
	static struct gp__opm_args b;
	int round;

	(void)state;
	assert_false(gp__opm_parse(NULL, 0, NULL, 0, NULL, 0, &b));
	for (round = 0; round < 20000; round++) {
		char *txt[3];
		size_t len[3], k, j;
		struct gp__opm_args a;
		struct gp__opm_result r;

		for (k = 0; k < 3; k++) {
			const char *sd = seeds[round % 3][k];
			size_t n = strlen(sd), m;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			len[k] = n - (x % 4 == 0 ? x % (n + 1) : 0); /* sometimes cut short */
			txt[k] = malloc(len[k] ? len[k] : 1);
			assert_non_null(txt[k]);
			memcpy(txt[k], sd, len[k]);
			for (m = 0; m < 1 + x % 4 && len[k]; m++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				txt[k][x % len[k]] = alphabet[(x >> 20) % (sizeof(alphabet) - 1)];
			}
		}
		assert_int_equal(
		    gp__opm_parse(txt[0], len[0], txt[1], len[1], txt[2], len[2], &a),
		    gp__opm_reparse(txt[0], len[0], txt[1], len[1], txt[2], len[2], &b));
		same_args(&a, &b);
		if (gp__opm_parse(txt[0], len[0], txt[1], len[1], txt[2], len[2], &a))
			for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
				struct gp__opm_result r2;
				bool ok = gp__opm_eval(names[j], &a, &r);

				/* the name looked up once, then its model */
				assert_int_equal(ok,
				                 gp__opm_eval_op(gp__opm_find(names[j]), &b, &r2));
				assert_memory_equal(&r, &r2, sizeof(r));
				if (ok) {
					assert_true(isfinite(r.flops) && r.flops >= 0);
					assert_true(isfinite(r.bytes) && r.bytes >= 0);
				}
			}
		for (k = 0; k < 3; k++)
			free(txt[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm),      cmocka_unit_test(test_conv),
		cmocka_unit_test(test_attention), cmocka_unit_test(test_vector_ops),
		cmocka_unit_test(test_parser),    cmocka_unit_test(test_peaks),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
