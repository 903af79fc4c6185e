/* SPDX-License-Identifier: MIT */
/*
 * test_classify.c - kernel typing: gpuprof's rules and HTA's, with the rule
 * that fired.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr, the oracle of test_gemm_like */
#endif
#include "testutil.h"

#include <string.h>

#include "analyze/classify.h"

static void expect(struct gp_trace *t, size_t ev, bool hta, enum gp_ktype type, const char *rule)
{
	uint8_t r = 0;

	assert_int_equal(gp__classify(t, ev, hta, &r), type);
	assert_string_equal(gp__classify_rule_name(r), rule);
}

static void test_gpuprof_rules(void **state)
{
	struct gp_trace *t = tu_trace_new();
	size_t mm, nccl, cpy, coll, comp, xdev, rccl, ag;
	uint32_t cname;

	(void)state;
	mm = tu_kernel(t, "multimem_all_reduce_kernel<bf16>", 0, 7, 0, 10, 1);
	nccl = tu_kernel(t, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 7, 0, 10, 2);
	cpy = tu_kernel(t, "Memcpy HtoD (Pageable -> Device)", 0, 7, 0, 10, 3);
	t->ev.kind[cpy] = GP_K_MEMCPY;
	coll = tu_kernel(t, "void my::fused_kernel<float>", 0, 7, 0, 10, 4);
	assert_int_equal(gp__strtab_intern(&t->strs, "allreduce", 9, &cname), 0);
	t->gpu[t->ev.aux[coll]].collective = cname;
	comp = tu_kernel(t, "void at::native::vectorized_elementwise_kernel<4>", 0, 7, 0, 10, 5);
	xdev = tu_kernel(t, "void vllm::cross_device_reduce_1stage<half, 8>", 0, 7, 0, 10, 6);
	rccl = tu_kernel(t, "rcclGenericKernel", 0, 7, 0, 10, 7);
	ag = tu_kernel(t, "void one_shot_all_gather_kernel", 0, 7, 0, 10, 8);

	expect(t, mm, false, GP_KT_COMM, "name:multimem_all_reduce");
	expect(t, nccl, false, GP_KT_COMM, "name:^nccl");
	expect(t, cpy, false, GP_KT_MEM, "kind:memcpy");
	expect(t, coll, false, GP_KT_COMM, "arg:Collective name");
	expect(t, comp, false, GP_KT_COMP, "default:computation");
	expect(t, xdev, false, GP_KT_COMM, "name:cross_device_reduce");
	expect(t, rccl, false, GP_KT_COMM, "name:^rccl");
	expect(t, ag, false, GP_KT_COMM, "name:collective");
	gp_trace_free(t);
}

static void test_hta_rules(void **state)
{
	struct gp_trace *t = tu_trace_new();
	size_t mm, nccl, cpy, coll, sync, wait, hip, kern, set;
	uint32_t cname;

	(void)state;
	mm = tu_kernel(t, "multimem_all_reduce_kernel<bf16>", 0, 7, 0, 10, 1);
	nccl = tu_kernel(t, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 7, 0, 10, 2);
	cpy = tu_kernel(t, "Memcpy HtoD (Pageable -> Device)", 0, 7, 0, 10, 3);
	t->ev.kind[cpy] = GP_K_MEMCPY;
	coll = tu_kernel(t, "void my::fused_kernel<float>", 0, 7, 0, 10, 4);
	assert_int_equal(gp__strtab_intern(&t->strs, "allreduce", 9, &cname), 0);
	t->gpu[t->ev.aux[coll]].collective = cname;
	sync = tu_kernel(t, "Context Sync", 0, 7, 0, 10, 5);
	t->ev.kind[sync] = GP_K_SYNC;
	wait = tu_kernel(t, "Stream Wait Event", 0, 7, 0, 10, 6);
	hip = tu_kernel(t, "hipMemcpyWithStream", 0, 7, 0, 10, 7);
	kern = tu_kernel(t, "void ncclKernel_SendRecv(ncclWorkElem)", 0, 7, 0, 10, 8);
	set = tu_kernel(t, "Memset (Device)", 0, 7, 0, 10, 9);

	/* HTA misses communication kernels that do not look like NCCL */
	expect(t, mm, true, GP_KT_COMP, "hta:computation");
	expect(t, nccl, true, GP_KT_COMM, "hta:^nccl");
	expect(t, cpy, true, GP_KT_MEM, "hta:^Memcpy");
	expect(t, coll, true, GP_KT_COMP, "hta:computation");
	expect(t, sync, true, GP_KT_OTHER, "hta:other");
	expect(t, wait, true, GP_KT_OTHER, "hta:other");
	/* HTA tests ^hip before the memory patterns */
	expect(t, hip, true, GP_KT_COMM, "hta:^hip");
	expect(t, kern, true, GP_KT_COMM, "hta:ncclKernel");
	expect(t, set, true, GP_KT_MEM, "hta:^Memset");
	assert_string_equal(gp__ktype_name(GP_KT_COMM), "COMMUNICATION");
	assert_string_equal(gp__classify_rule_name(250), "none");
	gp_trace_free(t);
}

/* AMD matrix cores are Tensor Cores too; Tensile's Cijk_ kernels are GEMMs */
static void test_amd_matrix_cores(void **state)
{
	static const char mfma[] =
	    "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0";
	static const char valu[] = "Cijk_Ailk_Bljk_SB_MT64x64x8_SE_1LDSB0_APM1_AF0EM1_AF1EM1";

	(void)state;
	assert_true(gp__is_gemm_like(mfma));
	assert_true(gp__uses_tensor_cores(mfma));
	assert_true(gp__is_gemm_like(valu));
	assert_false(gp__uses_tensor_cores(valu));
	assert_true(gp__uses_tensor_cores("paged_attention_ll4mi_QKV_mfma16_kernel"));
	assert_true(gp__uses_tensor_cores("kernel_gemm_xdl_cshuffle_v1<ck::GridwiseGemm>"));
	assert_false(gp__uses_tensor_cores("k_MIx")); /* no instruction shape */
	assert_false(gp__uses_tensor_cores("void at::native::reduce_kernel<128, 4>"));
}

/*
 * A name of up to @p most random pieces (xorshift state *@p x) into @p name
 * (@p cap bytes, NUL-terminated): the inputs of the oracle tests below.
 */
static void random_name(uint64_t *x, const char *const *pieces, size_t npieces, size_t most,
                        char *name, size_t cap)
{
	size_t n = 0, k, np;

	np = (size_t)(tu_xorshift(x) % (most + 1));
	for (k = 0; k < np; k++) {
		const char *pc = pieces[(*x >> (5 * k + 4)) % npieces];
		size_t l = strlen(pc);

		if (n + l >= cap)
			break;
		memcpy(name + n, pc, l);
		n += l;
	}
	name[n] = '\0';
}

/*
 * gp__is_gemm_like is "any of gemm, conv, cutlass, xmma, cudnn, Cijk_ with
 * case ignored": random names of pattern pieces in random case, near misses
 * (a pattern cut at its end, '_' against DEL) and bytes above 0x7f agree
 * with strcasestr on each pattern.
 */
static void test_gemm_like(void **state)
{
	static const char *const pieces[] = { "GeM",      "gemM",  "CONV",     "co",   "cutlas",
		                              "CutLass",  "xmm",   "XmMa",     "cudn", "CUDNN",
		                              "cijk",     "Cijk_", "cijk\x7f", "_",    "ge",
		                              "\xc3\xa9", "\xff",  "kernel<",  "x",    "c",
		                              "g",        "M",     "a" };
	static const char *const pats[] = { "gemm", "conv", "cutlass", "xmma", "cudnn", "Cijk_" };
	uint64_t x = 0x2545f4914f6cdd1dULL;
	char name[256];

	(void)state;
	assert_true(gp__is_gemm_like("ampere_sgemm_128x64_nn"));
	assert_true(gp__is_gemm_like("Cijk_Alik_Bljk_HHS_BH"));
	assert_false(gp__is_gemm_like("cijk\x7f"));
	assert_false(gp__is_gemm_like("vectorized_elementwise_kernel"));
	assert_false(gp__is_gemm_like(""));
	for (int it = 0; it < 20000; it++) {
		size_t k;
		bool want = false;

		random_name(&x, pieces, sizeof(pieces) / sizeof(pieces[0]), 8, name, sizeof(name));
		for (k = 0; k < sizeof(pats) / sizeof(pats[0]); k++)
			want |= strcasestr(name, pats[k]) != NULL;
		if (gp__is_gemm_like(name) != want)
			fail_msg("\"%s\": gp__is_gemm_like %d, strcasestr %d", name, !want, want);
	}
}

/*
 * gp__uses_tensor_cores is "any of its NVIDIA patterns anywhere, case kept,
 * or an AMD matrix-core name": random names of pattern pieces (with AMD's
 * markers left out, those are test_amd_matrix_cores') agree with strstr.
 */
static void test_tensor_core_names(void **state)
{
	static const char *const pats[] = { "h884",
		                            "s884",
		                            "h1688",
		                            "s1688",
		                            "hmma",
		                            "i8816",
		                            "16816",
		                            "dgrad_1x1_stride_2x2",
		                            "first_layer_wgrad_kernel",
		                            "conv1x1",
		                            "conv2d_c1_k1",
		                            "direct_group",
		                            "xmma_implicit_gemm",
		                            "xmma_sparse_conv",
		                            "xmma_warp_specialized_implicit_gemm",
		                            "xmma_gemm",
		                            "xmma_sparse_gemm",
		                            "c1688",
		                            "tensorop",
		                            "gmma",
		                            "wmma" };
	static const char *const pieces[] = {
		"h88",     "4",      "s8",   "h168",        "8",     "HMMA",
		"hmm",     "a",      "i881", "6",           "1681",  "dgrad_1x1_stride_2x",
		"2",       "conv1x", "1",    "conv2d_c1_k", "xmma_", "gemm",
		"sparse_", "conv",   "c168", "tensoro",     "p",     "gmm",
		"wmm",     "_",      "k",    "\xff",        "x"
	};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char name[512];

	(void)state;
	for (int it = 0; it < 30000; it++) {
		size_t k;
		bool want = false;

		random_name(&x, pieces, sizeof(pieces) / sizeof(pieces[0]), 10, name, sizeof(name));
		for (k = 0; k < sizeof(pats) / sizeof(pats[0]); k++)
			want |= strstr(name, pats[k]) != NULL;
		if (gp__uses_tensor_cores(name) != want)
			fail_msg("\"%s\": gp__uses_tensor_cores %d, strstr %d", name, !want, want);
	}
	for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++)
		assert_true(gp__uses_tensor_cores(pats[k]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpuprof_rules),     cmocka_unit_test(test_hta_rules),
		cmocka_unit_test(test_amd_matrix_cores),  cmocka_unit_test(test_gemm_like),
		cmocka_unit_test(test_tensor_core_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
