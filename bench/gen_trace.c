// SPDX-License-Identifier: MIT
/*
 * gen_trace.c - writes large, realistic, deterministic PyTorch 2.x (Kineto) traces.
 *
 * The output copies the layout of modern Kineto JSON: schemaVersion, deviceProperties,
 * distributedInfo and the version keys first, then displayTimeUnit, baseTimeNanoseconds and
 * traceEvents, traceName last. Timestamps are float microseconds ("%lld.%03lld") relative to
 * baseTimeNanoseconds. A step is a ProfilerStep#N on the main thread: a DataLoader range, an
 * HtoD batch copy on a copy stream, a transformer-like forward pass wrapped in python_function
 * (with_stack) frames, a backward pass on the autograd thread that launches NCCL AllReduce
 * kernels on a communication stream (overlapping compute on stream 7), an optimizer step,
 * loss.item() and a cudaStreamSynchronize that drains the GPU. Every launch has its runtime
 * call, correlation ids, an ac2g flow pair and full kernel args; allocations give [memory]
 * instant events.
 *
 * Memory stays bounded: the events of one step are formatted into two byte buffers (CPU and
 * GPU side, as Kineto writes them) and flushed at the end of the step. The same seed always
 * gives the same bytes. This is a benchmark tool, not part of libgpuprof; it exits on errors.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB             1000000ull
#define BASE_TIME_NS   1751410836000000000ll
#define T0_NS          1428625731456483ll
#define MAIN_PID       25286
#define MAIN_TID       25286
#define BWD_TID        25391
#define GPU_PID        0
#define S_COMPUTE      7
#define S_COMM         20
#define S_COPY         24
#define NUM_SMS        132
#define MAX_THREADS_SM 2048
#define MAX_OPEN       24
#define FOOTER_RESERVE 4096
#define LIVE_MAX       65536

enum kclass { K_GEMM, K_ELEM, K_ATTN, K_REDUCE, K_OPTIM, K_NCCL };

struct kspec {
	const char *name;
	enum kclass cls;
	unsigned grid[3], block[3];
	unsigned regs, smem;
	int64_t dur_lo_ns, dur_hi_ns;
	char *args_tail; /* precomputed "registers per thread" ... "}" text */
};

/* names copied from real PyTorch 2.x traces; launch geometry is plausible for an H100 */
static struct kspec kspecs[] = {
#define KG_GEMM 0
	{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
	  "execute_segment_k_off_kernel__5x_cublas",
	  K_GEMM,
	  { 8, 70, 1 },
	  { 384, 1, 1 },
	  168,
	  213248,
	  40000,
	  160000,
	  NULL },
#define KG_GEMM2 1
	{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_"
	  "execute_segment_k_off_kernel__5x_cublas",
	  K_GEMM,
	  { 4, 70, 1 },
	  { 384, 1, 1 },
	  168,
	  229376,
	  60000,
	  240000,
	  NULL },
#define KG_MUL 2
	{ "void at::native::elementwise_kernel<128, 4, "
	  "at::native::gpu_kernel_impl_nocast<at::native::"
	  "BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
	  "MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, "
	  "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::"
	  "{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::"
	  "BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> "
	  "> >"
	  "(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::"
	  "BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
	  K_ELEM,
	  { 17888, 1, 1 },
	  { 128, 1, 1 },
	  30,
	  0,
	  6000,
	  30000,
	  NULL },
#define KG_COPY 3
	{ "void at::native::elementwise_kernel<128, 4, "
	  "at::native::gpu_kernel_impl_nocast<at::native::"
	  "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
	  "{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
	  "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()()"
	  " "
	  "const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::"
	  "{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_"
	  "cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::"
	  "operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::"
	  "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
	  "{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})",
	  K_ELEM,
	  { 8944, 1, 1 },
	  { 128, 1, 1 },
	  24,
	  0,
	  4000,
	  20000,
	  NULL },
#define KG_ADD 4
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::"
	  "BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
	  "std::array<char*, 3ul>)",
	  K_ELEM,
	  { 17888, 1, 1 },
	  { 128, 1, 1 },
	  26,
	  0,
	  5000,
	  25000,
	  NULL },
#define KG_BF16CP 5
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda"
	  "(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
	  "bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, "
	  "std::array<char*, "
	  "2ul>)",
	  K_ELEM,
	  { 17888, 1, 1 },
	  { 128, 1, 1 },
	  16,
	  0,
	  3000,
	  18000,
	  NULL },
#define KG_MEAN 6
	{ "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<"
	  "float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
	  "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
	  K_REDUCE,
	  { 8944, 1, 1 },
	  { 32, 16, 1 },
	  32,
	  16,
	  4000,
	  16000,
	  NULL },
#define KG_RSQRT 7
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::"
	  "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
	  "const::"
	  "{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::rsqrt_kernel_cuda(at::"
	  "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
	  "const::"
	  "{lambda(float)#1}, std::array<char*, 2ul>)",
	  K_ELEM,
	  { 70, 1, 1 },
	  { 128, 1, 1 },
	  16,
	  0,
	  1500,
	  3000,
	  NULL },
#define KG_POW 8
	{ "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
	  "pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, "
	  "float)::{lambda(float)"
	  "#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::pow_tensor_scalar_"
	  "kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, "
	  "std::array<"
	  "char*, 2ul>)",
	  K_ELEM,
	  { 17888, 1, 1 },
	  { 128, 1, 1 },
	  18,
	  0,
	  5000,
	  20000,
	  NULL },
#define KG_CAT 9
	{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
	  "namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::"
	  "OpaqueType<2u>*, at::native::(anonymous "
	  "namespace)::CatArrInputTensorMetadata<at::native::"
	  "(anonymous namespace)::OpaqueType<2u>, unsigned int, 64, 64>, at::native::(anonymous "
	  "namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
	  K_ELEM,
	  { 1056, 2, 1 },
	  { 512, 1, 1 },
	  40,
	  0,
	  6000,
	  24000,
	  NULL },
#define KG_FLASH_FWD 10
	{ "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, "
	  "128, "
	  "4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, "
	  "4, "
	  "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>"
	  "(pytorch_flash::Flash_fwd_params)",
	  K_ATTN,
	  { 5, 16, 16 },
	  { 128, 1, 1 },
	  255,
	  49152,
	  80000,
	  180000,
	  NULL },
#define KG_FLASH_BWD 11
	{ "void "
	  "pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_"
	  "kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
	  "pytorch_flash::"
	  "Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, "
	  "true, true, false>(pytorch_flash::Flash_bwd_params)",
	  K_ATTN,
	  { 5, 16, 16 },
	  { 256, 1, 1 },
	  255,
	  114688,
	  160000,
	  380000,
	  NULL },
#define KG_SOFTMAX 12
	{ "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
	  "float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, c10::"
	  "BFloat16 const*, int)",
	  K_REDUCE,
	  { 8944, 1, 1 },
	  { 1024, 1, 1 },
	  38,
	  16,
	  30000,
	  90000,
	  NULL },
#define KG_ADAM 13
	{ "void at::native::(anonymous "
	  "namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
	  "namespace)::TensorListMetadata<4>, at::native::(anonymous "
	  "namespace)::FusedAdamMathFunctor<"
	  "float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, "
	  "double, bool, bool, float*, float*>(at::native::(anonymous "
	  "namespace)::TensorListMetadata<"
	  "4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::"
	  "ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, bool, "
	  "float*, "
	  "float*)",
	  K_OPTIM,
	  { 320, 1, 1 },
	  { 512, 1, 1 },
	  72,
	  0,
	  60000,
	  150000,
	  NULL },
#define KG_TRITON 14
	{ "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1",
	  K_REDUCE,
	  { 8944, 1, 1 },
	  { 256, 1, 1 },
	  40,
	  0,
	  5000,
	  15000,
	  NULL },
#define KG_NCCL_AR 15
	{ "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
	  K_NCCL,
	  { 24, 1, 1 },
	  { 640, 1, 1 },
	  96,
	  8432,
	  250000,
	  1400000,
	  NULL },
};
#define NKSPECS (sizeof(kspecs) / sizeof(kspecs[0]))

/* python_function frames seen in real traces (with_stack=True) */
static const char *const py_noise[] = {
	"torch/nn/modules/module.py(1915): __getattr__",
	"transformers/configuration_utils.py(211): __getattribute__",
	"<built-in method _get_tracing_state of PyCapsule object at 0x7d6af4f5f4e0>",
	"<built-in function hasattr>",
	"<built-in function isinstance>",
	"transformers/configuration_utils.py(358): _attn_implementation",
	"<built-in function len>",
};
#define NPYNOISE (sizeof(py_noise) / sizeof(py_noise[0]))

struct optpl {
	const char *py_fwd;   /* the Python frame that calls the op */
	const char *py_call;  /* the builtin that enters C++ */
	const char *top;      /* top-level cpu_op */
	const char *child[3]; /* kernel-less children (views, allocations) */
	const char *leaf;     /* the op that launches, NULL: the top op launches */
	int kernel;           /* index into kspecs, -1: none */
	const char *inputs;   /* "Concrete Inputs" ... "Input Dims" args text */
};

static const struct optpl fwd_ops[] = {
	{ "torch/nn/modules/linear.py(124): forward",
	  "<built-in function linear>",
	  "aten::linear",
	  { "aten::t", "aten::transpose", "aten::as_strided" },
	  "aten::addmm",
	  KG_GEMM,
	  "\"Concrete Inputs\": [\"\", \"\", \"\"], \"Input type\": [\"c10::BFloat16\", "
	  "\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[1145856, 1024, 1], [1024, "
	  "1], "
	  "[1]], \"Input Dims\": [[16, 1119, 1024], [1024, 1024], [1024]]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(218): forward",
	  "<built-in method mul of Tensor object at 0x7d67180cc140>",
	  "aten::mul",
	  { NULL, NULL, NULL },
	  NULL,
	  KG_MUL,
	  "\"Concrete Inputs\": [\"\", \"\"], \"Input type\": [\"c10::BFloat16\", "
	  "\"c10::BFloat16\"], "
	  "\"Input Strides\": [[1145856, 1024, 1], [1145856, 1024, 1]], \"Input Dims\": [[16, "
	  "1119, "
	  "1024], [16, 1119, 1024]]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(61): forward",
	  "<built-in method pow of Tensor object at 0x7d67180cc140>",
	  "aten::pow",
	  { "aten::result_type", NULL, NULL },
	  NULL,
	  KG_POW,
	  "\"Concrete Inputs\": [\"\", \"2\"], \"Input type\": [\"float\", \"Scalar\"], \"Input "
	  "Strides\": [[1145856, 1024, 1], []], \"Input Dims\": [[16, 1119, 1024], []]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(62): forward",
	  "<built-in method mean of Tensor object at 0x7d67180cc9b0>",
	  "aten::mean",
	  { NULL, NULL, NULL },
	  NULL,
	  KG_MEAN,
	  "\"Concrete Inputs\": [\"\", \"[-1]\", \"True\", \"\"], \"Input type\": [\"float\", "
	  "\"ScalarList\", \"Scalar\", \"\"], \"Input Strides\": [[1145856, 1024, 1], [], [], []], "
	  "\"Input Dims\": [[16, 1119, 1024], [], [], []]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(63): forward",
	  "<built-in method rsqrt of type object at 0x7d6b7761df60>",
	  "aten::rsqrt",
	  { NULL, NULL, NULL },
	  NULL,
	  KG_RSQRT,
	  "\"Concrete Inputs\": [\"\"], \"Input type\": [\"float\"], \"Input Strides\": [[1119, 1, "
	  "1]], \"Input Dims\": [[16, 1119, 1]]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(218): forward",
	  "<built-in method to of Tensor object at 0x7d67180cc190>",
	  "aten::to",
	  { "aten::_to_copy", "aten::empty_strided", NULL },
	  "aten::copy_",
	  KG_BF16CP,
	  "\"Concrete Inputs\": [\"\", \"15\", \"False\", \"False\", \"\"], \"Input type\": "
	  "[\"float\", "
	  "\"Scalar\", \"Scalar\", \"Scalar\", \"\"], \"Input Strides\": [[1145856, 1024, 1], [], "
	  "[], "
	  "[], []], \"Input Dims\": [[16, 1119, 1024], [], [], [], []]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(150): apply_rotary_pos_emb",
	  "<built-in method cat of type object at 0x7d6b7761df60>",
	  "aten::cat",
	  { NULL, NULL, NULL },
	  NULL,
	  KG_CAT,
	  "\"Concrete Inputs\": [\"\", \"-1\"], \"Input type\": [\"TensorList\", \"Scalar\"], "
	  "\"Input "
	  "Strides\": [[], []], \"Input Dims\": [[], []]" },
	{ "torch/nn/functional.py(5740): scaled_dot_product_attention",
	  "<built-in function scaled_dot_product_attention>",
	  "aten::scaled_dot_product_attention",
	  { "aten::transpose", "aten::as_strided", NULL },
	  "aten::_scaled_dot_product_flash_attention",
	  KG_FLASH_FWD,
	  "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\"], \"Input type\": "
	  "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"Scalar\", \"Scalar\", "
	  "\"\"], \"Input Strides\": [[1145856, 64, 1024, 1], [1145856, 64, 1024, 1], [1145856, "
	  "64, "
	  "1024, 1], [], [], [], []], \"Input Dims\": [[16, 16, 1119, 64], [16, 16, 1119, 64], "
	  "[16, "
	  "16, 1119, 64], [], [], [], []]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(250): forward",
	  "<built-in method add of Tensor object at 0x7d67180cc500>",
	  "aten::add",
	  { NULL, NULL, NULL },
	  NULL,
	  KG_ADD,
	  "\"Concrete Inputs\": [\"\", \"\", \"1\"], \"Input type\": [\"c10::BFloat16\", "
	  "\"c10::BFloat16\", \"Scalar\"], \"Input Strides\": [[1145856, 1024, 1], [1145856, 1024, "
	  "1], []], \"Input Dims\": [[16, 1119, 1024], [16, 1119, 1024], []]" },
	{ "torch/_inductor/runtime/triton_heuristics.py(1109): run",
	  "<built-in method run of CompiledKernel object at 0x7d66f9f2a1d0>",
	  "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1",
	  { NULL, NULL, NULL },
	  NULL,
	  KG_TRITON,
	  "\"Concrete Inputs\": [], \"Input type\": [], \"Input Strides\": [], \"Input Dims\": "
	  "[]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(231): forward",
	  "<built-in method view of Tensor object at 0x7d67180cd8b0>",
	  "aten::view",
	  { NULL, NULL, NULL },
	  NULL,
	  -1,
	  "\"Concrete Inputs\": [\"\", \"[16, 1119, 16, 64]\"], \"Input type\": "
	  "[\"c10::BFloat16\", "
	  "\"ScalarList\"], \"Input Strides\": [[1145856, 1024, 1], []], \"Input Dims\": [[16, "
	  "1119, "
	  "1024], []]" },
	{ "transformers/models/qwen2/modeling_qwen2.py(233): forward",
	  "<built-in method contiguous of Tensor object at 0x7d67180cc500>",
	  "aten::contiguous",
	  { "aten::clone", "aten::empty_like", NULL },
	  "aten::copy_",
	  KG_COPY,
	  "\"Concrete Inputs\": [\"\", \"0\"], \"Input type\": [\"c10::BFloat16\", \"Scalar\"], "
	  "\"Input Strides\": [[1145856, 64, 1024, 1], []], \"Input Dims\": [[16, 16, 1119, 64], "
	  "[]]" },
};
#define NFWD (sizeof(fwd_ops) / sizeof(fwd_ops[0]))

struct bwdtpl {
	const char *eval;  /* the autograd engine frame */
	const char *node;  /* autograd node, e.g. MmBackward0 */
	const char *child; /* the aten op under it */
	int kernel;
};

static const struct bwdtpl bwd_ops[] = {
	{ "autograd::engine::evaluate_function: MmBackward0", "MmBackward0", "aten::mm", KG_GEMM2 },
	{ "autograd::engine::evaluate_function: MmBackward0", "MmBackward0", "aten::mm", KG_GEMM },
	{ "autograd::engine::evaluate_function: MulBackward0", "MulBackward0", "aten::mul",
	  KG_MUL },
	{ "autograd::engine::evaluate_function: AddBackward0", "AddBackward0", "aten::add",
	  KG_ADD },
	{ "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
	  "ScaledDotProductFlashAttentionBackward0",
	  "aten::_scaled_dot_product_flash_attention_backward", KG_FLASH_BWD },
	{ "autograd::engine::evaluate_function: ToCopyBackward0", "ToCopyBackward0", "aten::copy_",
	  KG_BF16CP },
	{ "autograd::engine::evaluate_function: CatBackward0", "CatBackward0", "aten::cat",
	  KG_CAT },
	{ "autograd::engine::evaluate_function: PowBackward0", "PowBackward0", "aten::pow",
	  KG_POW },
	{ "autograd::engine::evaluate_function: MeanBackward1", "MeanBackward1", "aten::mean",
	  KG_MEAN },
	{ "autograd::engine::evaluate_function: CloneBackward0", "CloneBackward0", "aten::copy_",
	  KG_COPY },
};
#define NBWD (sizeof(bwd_ops) / sizeof(bwd_ops[0]))

struct obuf {
	char *p;
	size_t len, cap;
};

struct rec {
	int kind; /* 0 cpu_op, 1 python_function, 2 user_annotation */
	const char *name;
	const char *inputs;
	int tid;
	int64_t ts, end;
	uint64_t id, parent, evidx;
};

struct gen {
	struct obuf cpu, gpu;
	FILE *f;
	uint64_t rng;
	int64_t t;
	int64_t sfree[3]; /* compute, comm, copy stream busy-until */
	uint64_t ext_id, corr, ev_idx, py_id;
	int64_t mem_alloc, mem_reserved;
	struct {
		uint64_t addr;
		int64_t bytes;
	} live[LIVE_MAX]; /* the step's allocations not freed yet: freed at its end */
	int nlive;
	int64_t leak_bytes; /* --leak: allocated by aten::cat in every step, never freed */
	uint64_t written;
	struct rec open[MAX_OPEN];
	int nopen;
	struct rec done[4 * MAX_OPEN];
	int ndone;
	int64_t step_gpu_lo, step_gpu_hi;
	uint64_t n_events;
};

static void die(const char *msg)
{
	fprintf(stderr, "gen_trace: %s\n", msg);
	exit(1);
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int64_t rnd(struct gen *g, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + (int64_t)(splitmix64(&g->rng) % (uint64_t)(hi - lo + 1));
}

static void ob_reserve(struct obuf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 1 << 20;
	while (cap < b->len + n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		die("out of memory");
	b->p = p;
	b->cap = cap;
}

static void put_mem(struct obuf *b, const char *s, size_t n)
{
	ob_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void put(struct obuf *b, const char *s)
{
	put_mem(b, s, strlen(s));
}

static void put_u64(struct obuf *b, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_reserve(b, (size_t)n);
	while (n)
		b->p[b->len++] = tmp[--n];
}

static void put_i64(struct obuf *b, int64_t v)
{
	if (v < 0) {
		put_mem(b, "-", 1);
		put_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(b, (uint64_t)v);
	}
}

/* ns -> "µs.fff", Kineto's fmtTs format */
static void put_us(struct obuf *b, int64_t ns)
{
	put_u64(b, (uint64_t)(ns / 1000));
	ob_reserve(b, 4);
	int f = (int)(ns % 1000);
	b->p[b->len++] = '.';
	b->p[b->len++] = (char)('0' + f / 100);
	b->p[b->len++] = (char)('0' + f / 10 % 10);
	b->p[b->len++] = (char)('0' + f % 10);
}

static void flush_out(struct gen *g, struct obuf *b)
{
	if (b->len && fwrite(b->p, 1, b->len, g->f) != b->len)
		die("write failed");
	g->written += b->len;
	b->len = 0;
}

static void ev_head(struct obuf *b, const char *ph, const char *cat, const char *name, int pid,
                    int tid, int64_t ts)
{
	put(b, "  {\n    \"ph\": \"");
	put(b, ph);
	put(b, "\", \"cat\": \"");
	put(b, cat);
	put(b, "\", \"name\": \"");
	put(b, name);
	put(b, "\", \"pid\": ");
	put_i64(b, pid);
	put(b, ", \"tid\": ");
	put_i64(b, tid);
	put(b, ",\n    \"ts\": ");
	put_us(b, ts);
}

static void ev_x(struct obuf *b, const char *cat, const char *name, int pid, int tid, int64_t ts,
                 int64_t dur)
{
	ev_head(b, "X", cat, name, pid, tid, ts);
	put(b, ", \"dur\": ");
	put_us(b, dur);
	put(b, ",\n    \"args\": {\n      ");
}

static void flow(struct gen *g, struct obuf *b, const char *ph, uint64_t id, int pid, int tid,
                 int64_t ts)
{
	put(b, "  {\n    \"ph\": \"");
	put(b, ph);
	put(b, "\", \"id\": ");
	put_u64(b, id);
	put(b, ", \"pid\": ");
	put_i64(b, pid);
	put(b, ", \"tid\": ");
	put_i64(b, tid);
	put(b, ", \"ts\": ");
	put_us(b, ts);
	put(b, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
	if (ph[0] == 'f')
		put(b, ", \"bp\": \"e\"");
	put(b, "\n  },\n");
	g->n_events++;
}

/* ---- CPU-side nesting: records open in start order, written once closed ---- */

static struct rec *rec_open(struct gen *g, int kind, const char *name, int tid)
{
	if (g->nopen >= MAX_OPEN)
		die("nesting too deep");
	struct rec *r = &g->open[g->nopen++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->name = name;
	r->tid = tid;
	r->ts = g->t;
	r->evidx = g->ev_idx++;
	if (kind == 1) {
		r->id = ++g->py_id;
		r->parent = 0;
		for (int i = g->nopen - 2; i >= 0; i--) {
			if (g->open[i].kind == 1) {
				r->parent = g->open[i].id;
				break;
			}
		}
	} else {
		r->id = ++g->ext_id;
	}
	g->t += rnd(g, 300, 1500);
	return r;
}

static void rec_write(struct gen *g, const struct rec *r)
{
	struct obuf *b = &g->cpu;
	static const char *const cats[] = { "cpu_op", "python_function", "user_annotation" };
	ev_x(b, cats[r->kind], r->name, MAIN_PID, r->tid, r->ts, r->end - r->ts);
	if (r->kind == 1) {
		put(b, "\"Python parent id\": ");
		if (r->parent)
			put_u64(b, r->parent);
		else
			put(b, "null");
		put(b, ", \"Python id\": ");
		put_u64(b, r->id);
		put(b, ", \"Ev Idx\": ");
		put_u64(b, r->evidx);
	} else {
		put(b, "\"External id\": ");
		put_u64(b, r->id);
		put(b, ",\"Record function id\": 0");
		if (r->inputs) {
			put(b, ", ");
			put(b, r->inputs);
		}
		put(b, ", \"Ev Idx\": ");
		put_u64(b, r->evidx);
	}
	put(b, "\n    }\n  },\n");
	g->n_events++;
}

/* closes the innermost open record; when the outermost closes, all are written in start order */
static void rec_close(struct gen *g)
{
	g->t += rnd(g, 200, 1200);
	struct rec *r = &g->open[--g->nopen];
	r->end = g->t;
	if (g->ndone >= (int)(sizeof(g->done) / sizeof(g->done[0])))
		die("too many records");
	g->done[g->ndone++] = *r;
	if (g->nopen <= 1 || g->ndone >= 3 * MAX_OPEN) {
		/* records sorted by start: stable insertion by ts (small arrays) */
		for (int i = 1; i < g->ndone; i++) {
			struct rec x = g->done[i];
			int j = i - 1;
			while (j >= 0 && g->done[j].ts > x.ts) {
				g->done[j + 1] = g->done[j];
				j--;
			}
			g->done[j + 1] = x;
		}
		for (int i = 0; i < g->ndone; i++)
			rec_write(g, &g->done[i]);
		g->ndone = 0;
	}
}

static void py_leaf(struct gen *g, const char *name)
{
	rec_open(g, 1, name, MAIN_TID);
	rec_close(g);
}

/* one [memory] event: Bytes at Addr, the running totals after it */
static void mem_put(struct gen *g, int tid, int64_t bytes, uint64_t addr)
{
	struct obuf *b = &g->cpu;
	g->mem_alloc += bytes;
	if (g->mem_alloc > g->mem_reserved)
		g->mem_reserved = (g->mem_alloc / (2 << 20) + 1) * (2 << 20);
	ev_head(b, "i", "cpu_instant_event", "[memory]", MAIN_PID, tid, g->t);
	put(b, ", \"s\": \"t\",\n    \"args\": {\n      \"Total Reserved\": ");
	put_i64(b, g->mem_reserved);
	put(b, ", \"Total Allocated\": ");
	put_i64(b, g->mem_alloc);
	put(b, ", \"Bytes\": ");
	put_i64(b, bytes);
	put(b, ", \"Addr\": ");
	put_u64(b, addr);
	put(b, ", \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": ");
	put_u64(b, g->ev_idx++);
	put(b, "\n    }\n  },\n");
	g->n_events++;
}

/*
 * An allocation (bytes > 0) at a fresh address, kept in g->live unless @p keep is 0, or a free of
 * the latest live allocation of that size at its address (none when none is live). One draw of the
 * generator either way, so the rest of the trace does not depend on how the frees are paired.
 */
static void mem_event_at(struct gen *g, int tid, int64_t bytes, int keep)
{
	uint64_t addr = 137877174353920ull + (splitmix64(&g->rng) % (1ull << 34)) * 512;
	if (bytes > 0 && keep) {
		if (g->nlive >= LIVE_MAX)
			die("too many live allocations");
		g->live[g->nlive].addr = addr;
		g->live[g->nlive++].bytes = bytes;
	} else if (bytes < 0) {
		int i = g->nlive - 1;
		while (i >= 0 && g->live[i].bytes != -bytes)
			i--;
		if (i < 0)
			return; /* nothing of that size is live: no free */
		addr = g->live[i].addr;
		memmove(&g->live[i], &g->live[i + 1],
		        (size_t)(g->nlive - i - 1) * sizeof(g->live[0]));
		g->nlive--;
	}
	mem_put(g, tid, bytes, addr);
}

static void mem_event(struct gen *g, int tid, int64_t bytes)
{
	mem_event_at(g, tid, bytes, 1);
}

/* the end of a step: its activations freed (newest first), and with --leak the one kept */
static void step_mem_end(struct gen *g)
{
	if (g->leak_bytes) {
		rec_open(g, 0, "aten::cat", MAIN_TID);
		g->t += 800;
		mem_event_at(g, MAIN_TID, g->leak_bytes, 0);
		g->t += 1200;
		rec_close(g);
	}
	while (g->nlive) {
		int64_t bytes = g->live[g->nlive - 1].bytes;
		uint64_t addr = g->live[g->nlive - 1].addr;
		g->nlive--;
		/* a free at the live address, without a draw of the generator */
		mem_put(g, MAIN_TID, -bytes, addr);
		g->t += 50;
	}
}

static int sidx(int stream)
{
	return stream == S_COMPUTE ? 0 : stream == S_COMM ? 1 : 2;
}

static void gpu_span(struct gen *g, int64_t s, int64_t e)
{
	if (g->step_gpu_lo < 0 || s < g->step_gpu_lo)
		g->step_gpu_lo = s;
	if (e > g->step_gpu_hi)
		g->step_gpu_hi = e;
}

/* the runtime call at g->t launching kernel k on a stream; returns the kernel end */
static int64_t launch(struct gen *g, int tid, uint64_t ext, int k, int stream, int64_t not_before)
{
	const struct kspec *ks = &kspecs[k];
	uint64_t corr = ++g->corr;
	int64_t rt_ts = g->t;
	int64_t rt_dur = rnd(g, 3500, 9000);
	if (rnd(g, 0, 99) < 2)
		rt_dur += rnd(g, 20000, 80000); /* a slow launch now and then */
	int ex = k == KG_NCCL_AR;
	struct obuf *b = &g->cpu;
	ev_x(b, "cuda_runtime", ex ? "cudaLaunchKernelExC" : "cudaLaunchKernel", MAIN_PID, tid,
	     rt_ts, rt_dur);
	put(b, "\"External id\": ");
	put_u64(b, ext);
	put(b, ", \"cbid\": ");
	put(b, ex ? "430" : "211");
	put(b, ", \"correlation\": ");
	put_u64(b, corr);
	put(b, "\n    }\n  },\n");
	g->n_events++;
	flow(g, b, "s", corr, MAIN_PID, tid, rt_ts);

	int64_t *sf = &g->sfree[sidx(stream)];
	int64_t ts = rt_ts + rnd(g, 2000, 6000);
	if (ts < *sf)
		ts = *sf + rnd(g, 0, 2) * rnd(g, 500, 1500);
	if (ts < not_before)
		ts = not_before + rnd(g, 1000, 3000);
	int64_t dur = rnd(g, ks->dur_lo_ns, ks->dur_hi_ns);
	*sf = ts + dur;
	gpu_span(g, ts, ts + dur);

	struct obuf *gb = &g->gpu;
	ev_x(gb, "kernel", ks->name, GPU_PID, stream, ts, dur);
	put(gb, "\"External id\": ");
	put_u64(gb, ext);
	put(gb, ",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": ");
	put_i64(gb, stream);
	put(gb, ", \"correlation\": ");
	put_u64(gb, corr);
	put(gb, ",\n      ");
	put(gb, ks->args_tail);
	g->n_events++;
	flow(g, gb, "f", corr, GPU_PID, stream, ts);
	g->t = rt_ts + rt_dur;
	return ts + dur;
}

/* cudaMemcpyAsync / cudaMemsetAsync and their GPU op; sync: the call blocks until it is done */
static void memop(struct gen *g, int tid, uint64_t ext, int is_set, const char *kind, int stream,
                  int64_t bytes, int64_t bw_gbs_x10, int sync)
{
	uint64_t corr = ++g->corr;
	int64_t rt_ts = g->t;
	int64_t rt_dur = rnd(g, 4000, 12000);
	int64_t *sf = &g->sfree[sidx(stream)];
	int64_t ts = rt_ts + rnd(g, 2000, 5000);
	if (sync) {
		for (int i = 0; i < 3; i++)
			if (ts < g->sfree[i])
				ts = g->sfree[i] + rnd(g, 1000, 3000);
	} else if (ts < *sf) {
		ts = *sf + rnd(g, 500, 1500);
	}
	int64_t dur = bytes * 10 / bw_gbs_x10 + rnd(g, 700, 1500); /* bytes / (GB/s) = ns */
	*sf = ts + dur;
	gpu_span(g, ts, ts + dur);
	if (sync && ts + dur + 2000 > rt_ts + rt_dur)
		rt_dur = ts + dur + rnd(g, 2000, 4000) - rt_ts;

	struct obuf *b = &g->cpu;
	ev_x(b, "cuda_runtime", is_set ? "cudaMemsetAsync" : "cudaMemcpyAsync", MAIN_PID, tid,
	     rt_ts, rt_dur);
	put(b, "\"External id\": ");
	put_u64(b, ext);
	put(b, ", \"cbid\": ");
	put(b, is_set ? "51" : "41");
	put(b, ", \"correlation\": ");
	put_u64(b, corr);
	put(b, "\n    }\n  },\n");
	g->n_events++;
	flow(g, b, "s", corr, MAIN_PID, tid, rt_ts);

	struct obuf *gb = &g->gpu;
	char bw[40];
	snprintf(bw, sizeof(bw), "%.6g", (double)bytes / (double)dur);
	ev_x(gb, is_set ? "gpu_memset" : "gpu_memcpy", kind, GPU_PID, stream, ts, dur);
	put(gb, "\"External id\": ");
	put_u64(gb, ext);
	put(gb, ",\n      \"device\": 0, \"context\": 1,\n      \"stream\": ");
	put_i64(gb, stream);
	put(gb, ", \"correlation\": ");
	put_u64(gb, corr);
	put(gb, ",\n      \"bytes\": ");
	put_i64(gb, bytes);
	put(gb, ", \"memory bandwidth (GB/s)\": ");
	put(gb, bw);
	put(gb, "\n    }\n  },\n");
	g->n_events++;
	flow(g, gb, "f", corr, GPU_PID, stream, ts);
	g->t = rt_ts + rt_dur;
}

/* one forward op with its Python frames, children and launch */
static void fwd_op(struct gen *g, const struct optpl *op)
{
	rec_open(g, 1, "torch/nn/modules/module.py(1732): _wrapped_call_impl", MAIN_TID);
	rec_open(g, 1, "torch/nn/modules/module.py(1743): _call_impl", MAIN_TID);
	py_leaf(g, py_noise[rnd(g, 0, NPYNOISE - 1)]);
	rec_open(g, 1, op->py_fwd, MAIN_TID);
	int nn = (int)rnd(g, 3, 9);
	for (int i = 0; i < nn; i++)
		py_leaf(g, py_noise[rnd(g, 0, NPYNOISE - 1)]);
	rec_open(g, 1, op->py_call, MAIN_TID);
	struct rec *top = rec_open(g, 0, op->top, MAIN_TID);
	top->inputs = op->inputs;
	uint64_t ext = top->id;
	for (int i = 0; i < 3 && op->child[i]; i++) {
		rec_open(g, 0, op->child[i], MAIN_TID);
		if (strstr(op->child[i], "empty"))
			mem_event(g, MAIN_TID, 36667392);
		g->t += rnd(g, 500, 3000);
	}
	for (int i = 2; i >= 0; i--)
		if (op->child[i])
			rec_close(g);
	if (op->leaf) {
		ext = rec_open(g, 0, op->leaf, MAIN_TID)->id;
		g->open[g->nopen - 1].inputs = op->inputs;
	}
	if (op->kernel >= 0) {
		if (op->kernel != KG_RSQRT && rnd(g, 0, 3) == 0)
			mem_event(g, MAIN_TID, 18317312);
		g->t += rnd(g, 1000, 4000);
		launch(g, MAIN_TID, ext, op->kernel, S_COMPUTE, 0);
		if (rnd(g, 0, 3) == 0)
			mem_event(g, MAIN_TID, -18317312);
	}
	if (op->leaf)
		rec_close(g);
	rec_close(g); /* top */
	rec_close(g); /* builtin */
	rec_close(g); /* forward frame */
	rec_close(g); /* _call_impl */
	rec_close(g); /* _wrapped_call_impl */
}

static void bwd_op(struct gen *g, const struct bwdtpl *op)
{
	rec_open(g, 0, op->eval, BWD_TID);
	rec_open(g, 0, op->node, BWD_TID);
	uint64_t ext = rec_open(g, 0, op->child, BWD_TID)->id;
	g->t += rnd(g, 1000, 3000);
	launch(g, BWD_TID, ext, op->kernel, S_COMPUTE, 0);
	rec_close(g);
	rec_close(g);
	rec_close(g);
}

static void allreduce(struct gen *g)
{
	struct rec *r = rec_open(g, 0, "record_param_comms", BWD_TID);
	r->inputs =
	    "\"Concrete Inputs\": [\"\", \"0\", \"0\", \"1\", \"allreduce\"], \"Input type\": "
	    "[\"TensorList\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"], \"Input Strides\": "
	    "[[], [], [], [], []], \"Input Dims\": [[], [], [], [], []]";
	uint64_t ext = rec_open(g, 0, "nccl:all_reduce", BWD_TID)->id;
	g->t += rnd(g, 2000, 6000);
	/* the comm stream waits on the compute stream (cudaStreamWaitEvent) */
	launch(g, BWD_TID, ext, KG_NCCL_AR, S_COMM, g->sfree[sidx(S_COMPUTE)]);
	rec_close(g);
	rec_close(g);
}

static void step(struct gen *g, int n, int layers)
{
	char stepname[32];
	snprintf(stepname, sizeof(stepname), "ProfilerStep#%d", n);
	g->step_gpu_lo = -1;
	g->step_gpu_hi = 0;
	struct rec *st = rec_open(g, 2, stepname, MAIN_TID);
	uint64_t step_ext = st->id;

	/* data loading, then the batch copy on the copy stream */
	rec_open(g, 2, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", MAIN_TID);
	for (int i = 0, m = (int)rnd(g, 6, 14); i < m; i++) {
		py_leaf(g, py_noise[rnd(g, 0, NPYNOISE - 1)]);
		g->t += rnd(g, 20000, 150000);
	}
	rec_close(g);
	rec_open(g, 0, "aten::to", MAIN_TID);
	rec_open(g, 0, "aten::_to_copy", MAIN_TID);
	uint64_t ext = rec_open(g, 0, "aten::copy_", MAIN_TID)->id;
	memop(g, MAIN_TID, ext, 0, "Memcpy HtoD (Pinned -> Device)", S_COPY, 16 * 2048 * 8, 220, 0);
	rec_close(g);
	rec_close(g);
	rec_close(g);

	/* forward: per layer, a pass over the op table */
	for (int l = 0; l < layers; l++)
		for (size_t i = 0; i < NFWD; i++)
			fwd_op(g, &fwd_ops[(i + (size_t)rnd(g, 0, 1)) % NFWD]);

	/* backward on the autograd thread; NCCL all-reduce buckets overlap with it */
	rec_open(g, 1, "torch/_tensor.py(626): backward", MAIN_TID);
	rec_open(g, 1,
	         "<built-in method run_backward of torch._C._EngineBase object at 0x7d6b6e1b2c40>",
	         MAIN_TID);
	for (int l = 0; l < layers; l++) {
		for (size_t i = 0; i < NBWD; i++)
			bwd_op(g, &bwd_ops[(i + (size_t)rnd(g, 0, 2)) % NBWD]);
		if (l % 4 == 3)
			allreduce(g);
	}
	rec_close(g);
	rec_close(g);

	/* optimizer */
	rec_open(g, 2, "Optimizer.step#AdamW.step", MAIN_TID);
	for (int i = 0; i < 4; i++) {
		ext = rec_open(g, 0, "aten::_fused_adamw_", MAIN_TID)->id;
		launch(g, MAIN_TID, ext, KG_ADAM, S_COMPUTE, g->sfree[sidx(S_COMM)]);
		rec_close(g);
	}
	rec_close(g);
	rec_open(g, 2, "Optimizer.zero_grad#AdamW.zero_grad", MAIN_TID);
	for (int i = 0; i < 3; i++) {
		rec_open(g, 0, "aten::zero_", MAIN_TID);
		ext = rec_open(g, 0, "aten::fill_", MAIN_TID)->id;
		memop(g, MAIN_TID, ext, 1, "Memset (Device)", S_COMPUTE, 4 << 20, 15000, 0);
		rec_close(g);
		rec_close(g);
	}
	rec_close(g);

	/* loss.item(): a blocking DtoH copy, then a stream sync */
	rec_open(g, 0, "aten::item", MAIN_TID);
	ext = rec_open(g, 0, "aten::_local_scalar_dense", MAIN_TID)->id;
	memop(g, MAIN_TID, ext, 0, "Memcpy DtoH (Device -> Pageable)", S_COMPUTE, 4, 10, 1);
	rec_close(g);
	rec_close(g);
	{
		uint64_t corr = ++g->corr;
		int64_t ts = g->t, end = ts + rnd(g, 2000, 4000);
		for (int i = 0; i < 3; i++)
			if (g->sfree[i] + 2000 > end)
				end = g->sfree[i] + rnd(g, 2000, 4000);
		ev_x(&g->cpu, "cuda_runtime", "cudaStreamSynchronize", MAIN_PID, MAIN_TID, ts,
		     end - ts);
		put(&g->cpu, "\"cbid\": 131, \"correlation\": ");
		put_u64(&g->cpu, corr);
		put(&g->cpu, "\n    }\n  },\n");
		g->n_events++;
		g->t = end;
	}
	step_mem_end(g);
	rec_close(g); /* ProfilerStep */

	/* the GPU-side projection of the step */
	ev_x(&g->gpu, "gpu_user_annotation", stepname, GPU_PID, S_COMPUTE, g->step_gpu_lo,
	     g->step_gpu_hi - g->step_gpu_lo);
	put(&g->gpu, "\"External id\": ");
	put_u64(&g->gpu, step_ext);
	put(&g->gpu, "\n    }\n  },\n");
	g->n_events++;
	g->t += rnd(g, 20000, 60000); /* gap before the next step */
}

static void precompute_kspecs(void)
{
	for (size_t i = 0; i < NKSPECS; i++) {
		struct kspec *k = &kspecs[i];
		double blocks = (double)k->grid[0] * k->grid[1] * k->grid[2];
		unsigned threads = k->block[0] * k->block[1] * k->block[2];
		double bps = blocks / NUM_SMS;
		double wps = bps * threads / 32.0;
		/* resident blocks per SM: registers, shared memory, threads, the 32-block cap */
		unsigned active = MAX_THREADS_SM / threads;
		unsigned by_regs = 65536 / (k->regs * threads);
		if (by_regs < active)
			active = by_regs;
		if (k->smem && 233472 / k->smem < active)
			active = 233472 / k->smem;
		if (active > 32)
			active = 32;
		double resident = bps < active ? bps : active;
		int occ = (int)(resident * threads * 100.0 / MAX_THREADS_SM + 0.5);
		char buf[512];
		snprintf(
		    buf, sizeof(buf),
		    "\"registers per thread\": %u,\n      \"shared memory\": %u,\n      \"blocks "
		    "per SM\": %.6f,\n      \"warps per SM\": %.6f,\n      \"grid\": [%u, %u, "
		    "%u],\n      \"block\": [%u, %u, %u],\n      \"est. achieved occupancy %%\": "
		    "%d\n    }\n  },\n",
		    k->regs, k->smem, bps, wps, k->grid[0], k->grid[1], k->grid[2], k->block[0],
		    k->block[1], k->block[2], occ);
		k->args_tail = strdup(buf);
		if (!k->args_tail)
			die("out of memory");
	}
}

static void header(struct gen *g)
{
	struct obuf *b = &g->cpu;
	put(b,
	    "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n"
	    "      \"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": "
	    "85018279936,\n"
	    "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
	    "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
	    "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
	    "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
	    "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }\n  ],\n"
	    "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8, "
	    "\"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
	    "\"backend_config\": \"cuda:nccl\", \"pg_size\": 8, \"ranks\": [0, 1, 2, 3, 4, 5, 6, "
	    "7]}], \"nccl_version\": \"2.21.5\"},\n"
	    "  \"cupti_version\": 22,\n  \"cuda_runtime_version\": 12040,\n"
	    "  \"cuda_driver_version\": 12090,\n  \"record_shapes\": 1,\n  \"with_stack\": 1,\n"
	    "  \"profile_memory\": 1,\n  \"with_flops\": 0,\n  \"with_modules\": 0,\n"
	    "  \"trace_id\": \"D74EA3FAC1814011AB8FC4FC00427B48\",\n"
	    "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ");
	put_i64(b, BASE_TIME_NS);
	put(b, ",\n  \"traceEvents\": [\n");
}

static void meta(struct obuf *b, const char *name, int pid, int tid, int64_t ts, const char *key,
                 const char *sval, int64_t ival)
{
	put(b, "  {\n    \"name\": \"");
	put(b, name);
	put(b, "\", \"ph\": \"M\", \"ts\": ");
	put_us(b, ts);
	put(b, ", \"pid\": ");
	put_i64(b, pid);
	put(b, ", \"tid\": ");
	put_i64(b, tid);
	put(b, ",\n    \"args\": {\n      \"");
	put(b, key);
	put(b, "\": ");
	if (sval) {
		put(b, "\"");
		put(b, sval);
		put(b, "\"");
	} else {
		put_i64(b, ival);
	}
	put(b, "\n    }\n  },\n");
}

static void footer(struct gen *g, const char *trace_name)
{
	struct obuf *b = &g->cpu;
	int64_t t0 = T0_NS, t1 = g->t;
	meta(b, "process_name", MAIN_PID, 0, t0, "name", "python3", 0);
	meta(b, "process_labels", MAIN_PID, 0, t0, "labels", "CPU", 0);
	meta(b, "process_sort_index", MAIN_PID, 0, t0, "sort_index", NULL, MAIN_PID);
	meta(b, "process_name", GPU_PID, 0, t0, "name", "python3", 0);
	meta(b, "process_labels", GPU_PID, 0, t0, "labels", "GPU 0", 0);
	meta(b, "process_sort_index", GPU_PID, 0, t0, "sort_index", NULL, 5000000);
	static const int streams[] = { S_COMPUTE, S_COMM, S_COPY };
	for (int i = 0; i < 3; i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "stream %d", streams[i]);
		meta(b, "thread_name", GPU_PID, streams[i], t0, "name", nm, 0);
		meta(b, "thread_sort_index", GPU_PID, streams[i], t0, "sort_index", NULL,
		     streams[i]);
	}
	meta(b, "thread_name", MAIN_PID, MAIN_TID, t0, "name", "thread 25286 (python3)", 0);
	meta(b, "thread_sort_index", MAIN_PID, MAIN_TID, t0, "sort_index", NULL, MAIN_TID);
	meta(b, "thread_name", MAIN_PID, BWD_TID, t0, "name", "thread 25391 (pt_autograd_0)", 0);
	meta(b, "thread_sort_index", MAIN_PID, BWD_TID, t0, "sort_index", NULL, BWD_TID);
	put(b, "  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
	put_us(b, t0);
	put(b, ", \"dur\": ");
	put_us(b, t1 - t0);
	put(b,
	    ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n"
	    "    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n"
	    "    }\n  },\n  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", "
	    "\"s\": \"g\",\n    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", "
	    "\"ts\": ");
	put_us(b, t0);
	put(b, "\n  },\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
	       "    \"pid\": \"\", \"tid\": \"\",\n    \"ts\": ");
	put_us(b, t1 + 1000);
	put(b, "\n  }\n],\n  \"traceName\": \"");
	put(b, trace_name);
	put(b, "\"\n}\n");
}

static void usage(void)
{
	fputs("usage: gen_trace [--size-mb N] [--steps N] [--layers N] [--seed S] [--leak BYTES] "
	      "[-o FILE]\n"
	      "  --size-mb N  stop after the step that reaches N MB (10^6 bytes; default 1024)\n"
	      "  --steps N    write exactly N steps instead (overrides --size-mb)\n"
	      "  --layers N   transformer layers per step (default 24)\n"
	      "  --seed S     PRNG seed (default 1); the same options give the same bytes\n"
	      "  --leak BYTES every step allocates BYTES in aten::cat and never frees them\n"
	      "  -o FILE      output file (default stdout); written to FILE.tmp, then renamed\n",
	      stderr);
	exit(2);
}

static long long num_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage();
	char *end;
	errno = 0;
	long long v = strtoll(argv[++*i], &end, 10);
	if (errno || *end || v < 0)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	long long size_mb = 1024, steps = -1, layers = 24, seed = 1, leak = 0;
	const char *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size-mb"))
			size_mb = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--steps"))
			steps = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--layers"))
			layers = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--seed"))
			seed = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--leak"))
			leak = num_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else
			usage();
	}
	if (layers < 1 || layers > 1000)
		usage();

	static struct gen g;
	g.rng = (uint64_t)seed;
	g.t = T0_NS + 150000;
	g.ext_id = 18432;
	g.corr = 675770;
	g.mem_alloc = 1003059712;
	g.mem_reserved = 2629828608;
	g.leak_bytes = leak;
	precompute_kspecs();

	char *tmp = NULL;
	if (out) {
		size_t n = strlen(out) + 5;
		tmp = malloc(n);
		if (!tmp)
			die("out of memory");
		snprintf(tmp, n, "%s.tmp", out);
		g.f = fopen(tmp, "wb");
		if (!g.f) {
			perror(tmp);
			return 1;
		}
	} else {
		g.f = stdout;
	}

	uint64_t target = (uint64_t)size_mb * MB;
	header(&g);
	for (int n = 1;; n++) {
		if (steps >= 0 ? n > steps : g.written + g.cpu.len + FOOTER_RESERVE >= target)
			break;
		step(&g, n, (int)layers);
		put_mem(&g.cpu, g.gpu.p, g.gpu.len);
		g.gpu.len = 0;
		flush_out(&g, &g.cpu);
		if (steps < 0 && n > 1000000)
			break;
	}
	footer(&g, out ? out : "stdout");
	flush_out(&g, &g.cpu);
	if (fflush(g.f) || ferror(g.f))
		die("write failed");
	if (out) {
		if (fclose(g.f))
			die("write failed");
		if (rename(tmp, out)) {
			perror(out);
			return 1;
		}
	}
	fprintf(stderr, "gen_trace: %llu bytes, %llu events\n", (unsigned long long)g.written,
	        (unsigned long long)g.n_events);
	free(tmp);
	free(g.cpu.p);
	free(g.gpu.p);
	for (size_t i = 0; i < NKSPECS; i++)
		free(kspecs[i].args_tail);
	return 0;
}
