/* SPDX-License-Identifier: MIT */
/*
 * cuda_app.cu - a small CUDA program that knows exactly what it launched, for
 * tests/e2e/t0910-gpu-run-cuda.sh: it runs under `gpuprof run` and the test
 * compares the capture with the JSON summary this program prints.
 *
 * What it does (ROUNDS rounds, then a fork, then a last range):
 *   outside any range: a pageable H2D cudaMemcpy, a memset and a gp_fill kernel
 *   range "phase_a" (stream s1):
 *       TIMED gp_spin kernels, each between two cudaEvents (1.0 to 2.5 ms each, so
 *       a 2 % comparison is far above the events' jitter), one gp_fill, then
 *       range "inner": 3 gp_scale, 2 gp_axpy and a D2D cudaMemcpyAsync
 *   s2 waits for s1 (an event), then range "phase_b" (stream s2):
 *       4 gp_axpy, a cudaMemsetAsync, a D2H cudaMemcpyAsync into pinned memory, 5 gp_tiny
 *   fork(): the child pushes and pops an NVTX range "child", touches no CUDA and
 *       _exit(0)s; the parent waits for it
 *   range "after_fork" (stream s1): 1 gp_fill, so the parent's capture must go on
 *   outside any range: a pageable D2H cudaMemcpy
 * Exit code 5 (EXIT_CODE), so the test sees that `gpuprof run` passes it through.
 *
 * Kernels are extern "C": CUPTI reports their names as written (no mangling).
 * Every GPU op is counted for every range open when its API call is made (the
 * nsys projection rule, which is the report's `gpu_ops`).
 *
 * Output, one JSON object on stdout:
 *   pid, child_pid, child_status, exit_code, device,
 *   kernels        {name: launches}
 *   stream_kernels {"default"|"s1"|"s2": kernel launches on that stream}
 *   copies         {"HtoD"|"DtoH"|"DtoD": {count, bytes}}, memsets {count, bytes}
 *   ranges         {name: {count, kernels, gpu_ops}} (gpu_ops: kernels + copies + memsets)
 *   timed_kernel   "gp_spin", timed_ns [event-timed duration of each instance, launch order],
 *   timed_target_ns [the duration each instance spun for]
 *
 * usage: cuda_app            (exit code 5; any CUDA error: a message and exit 1)
 * Build: nvcc -O2 -o cuda_app tests/gpu/cuda_app.cu   (NVTX3 is header-only)
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_CODE 5
#define ROUNDS    2
#define TIMED     6 /* gp_spin instances per round */
#define N         (1 << 20)

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "cuda_app: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* ---- the kernels ---- */

static __device__ __forceinline__ unsigned long long gtime(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* spins for ns nanoseconds of the GPU's global timer (one thread) */
extern "C" __global__ void gp_spin(unsigned long long ns, int *sink)
{
	unsigned long long t0 = gtime(), n = 0;

	while (gtime() - t0 < ns)
		n++;
	if (n == 0xFFFFFFFFFFFFFFFFull)
		*sink = 1; /* never: keeps the loop */
}

extern "C" __global__ void gp_fill(float *x, float v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = v;
}

extern "C" __global__ void gp_scale(float *x, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= s;
}

extern "C" __global__ void gp_axpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] += a * x[i];
}

extern "C" __global__ void gp_tiny(int *p)
{
	if (threadIdx.x == 0)
		atomicAdd(p, 1);
}

/* ---- bookkeeping: what was launched, and inside which ranges ---- */

#define MAX_NAMES 8
static struct {
	const char *name;
	int n;
} g_kernels[MAX_NAMES];

static struct range {
	const char *name;
	int count, kernels, ops;
} g_ranges[] = { { "phase_a", 0, 0, 0 },
	         { "inner", 0, 0, 0 },
	         { "phase_b", 0, 0, 0 },
	         { "after_fork", 0, 0, 0 } };
#define NRANGES (int)(sizeof(g_ranges) / sizeof(g_ranges[0]))

static struct range *g_stack[8];
static int g_depth;

static int g_stream_kernels[3]; /* default, s1, s2 */
static struct {
	int count;
	long long bytes;
} g_copies[3], g_memsets; /* HtoD, DtoH, DtoD */

static void push(const char *name)
{
	for (int i = 0; i < NRANGES; i++)
		if (strcmp(g_ranges[i].name, name) == 0) {
			g_ranges[i].count++;
			g_stack[g_depth++] = &g_ranges[i];
			nvtxRangePushA(name);
			return;
		}
	fprintf(stderr, "cuda_app: unknown range %s\n", name);
	exit(1);
}

static void pop(void)
{
	nvtxRangePop();
	g_depth--;
}

/* a GPU op was launched: it belongs to every open range */
static void op(int is_kernel)
{
	for (int i = 0; i < g_depth; i++) {
		g_stack[i]->ops++;
		g_stack[i]->kernels += is_kernel;
	}
}

static void kernel(const char *name, int stream)
{
	int i;

	CK(cudaGetLastError());
	for (i = 0; i < MAX_NAMES && g_kernels[i].name; i++)
		if (strcmp(g_kernels[i].name, name) == 0)
			break;
	if (i == MAX_NAMES)
		exit(1);
	g_kernels[i].name = name;
	g_kernels[i].n++;
	g_stream_kernels[stream]++;
	op(1);
}

static void copy(int kind, long long bytes)
{
	g_copies[kind].count++;
	g_copies[kind].bytes += bytes;
	op(0);
}

static void memset_op(long long bytes)
{
	g_memsets.count++;
	g_memsets.bytes += bytes;
	op(0);
}

enum { HTOD, DTOH, DTOD };
enum { S_DEFAULT, S_1, S_2 };

int main(void)
{
	const size_t bytes = (size_t)N * sizeof(float);
	const int grid = (N + 255) / 256, block = 256;
	cudaStream_t s1, s2;
	cudaEvent_t ev[ROUNDS * TIMED][2], s1_done;
	unsigned long long target[ROUNDS * TIMED];
	float *d_x, *d_y, *d_z, *h_pin, *h_page;
	int *d_cnt;
	cudaDeviceProp prop;
	pid_t child;
	int status = -1, k = 0;

	CK(cudaSetDevice(0));
	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaMalloc(&d_x, bytes));
	CK(cudaMalloc(&d_y, bytes));
	CK(cudaMalloc(&d_z, bytes));
	CK(cudaMalloc(&d_cnt, sizeof(int)));
	CK(cudaMallocHost(&h_pin, bytes));
	h_page = (float *)malloc(bytes);
	if (!h_page)
		return 1;
	for (int i = 0; i < N; i++)
		h_page[i] = (float)(i % 100) * 0.01f;
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	for (int i = 0; i < ROUNDS * TIMED; i++) {
		CK(cudaEventCreate(&ev[i][0]));
		CK(cudaEventCreate(&ev[i][1]));
	}
	CK(cudaEventCreateWithFlags(&s1_done, cudaEventDisableTiming));
	/*
	 * CUDA loads a module's functions at their first launch (lazy loading, the
	 * default since CUDA 12.2): the first timed gp_spin's event pair held ~30 us
	 * of it on an H200. Load it now, without a launch.
	 */
	{
		cudaFuncAttributes fa;

		CK(cudaFuncGetAttributes(&fa, gp_spin));
	}

	/* outside any range; the default stream is synchronised before s1 starts */
	CK(cudaMemcpy(d_x, h_page, bytes, cudaMemcpyHostToDevice));
	copy(HTOD, (long long)bytes);
	CK(cudaMemset(d_cnt, 0, sizeof(int)));
	memset_op(sizeof(int));
	gp_fill<<<grid, block>>>(d_z, 1.0f, N);
	kernel("gp_fill", S_DEFAULT);
	CK(cudaDeviceSynchronize());

	for (int r = 0; r < ROUNDS; r++) {
		push("phase_a");
		for (int i = 0; i < TIMED; i++, k++) {
			target[k] = 1000000ull + (unsigned long long)(k % 4) * 500000ull;
			CK(cudaEventRecord(ev[k][0], s1));
			gp_spin<<<1, 1, 0, s1>>>(target[k], d_cnt);
			kernel("gp_spin", S_1);
			CK(cudaEventRecord(ev[k][1], s1));
		}
		gp_fill<<<grid, block, 0, s1>>>(d_y, 2.0f, N);
		kernel("gp_fill", S_1);
		push("inner");
		for (int i = 0; i < 3; i++) {
			gp_scale<<<grid, block, 0, s1>>>(d_x, 1.0001f, N);
			kernel("gp_scale", S_1);
		}
		for (int i = 0; i < 2; i++) {
			gp_axpy<<<grid, block, 0, s1>>>(0.5f, d_x, d_y, N);
			kernel("gp_axpy", S_1);
		}
		CK(cudaMemcpyAsync(d_z, d_y, bytes, cudaMemcpyDeviceToDevice, s1));
		copy(DTOD, (long long)bytes);
		pop(); /* inner */
		pop(); /* phase_a */

		CK(cudaEventRecord(s1_done, s1));
		CK(cudaStreamWaitEvent(s2, s1_done, 0));
		push("phase_b");
		for (int i = 0; i < 4; i++) {
			gp_axpy<<<grid, block, 0, s2>>>(0.25f, d_z, d_x, N);
			kernel("gp_axpy", S_2);
		}
		CK(cudaMemsetAsync(d_y, 0, bytes, s2));
		memset_op((long long)bytes);
		CK(cudaMemcpyAsync(h_pin, d_x, bytes, cudaMemcpyDeviceToHost, s2));
		copy(DTOH, (long long)bytes);
		for (int i = 0; i < 5; i++) {
			gp_tiny<<<1, 32, 0, s2>>>(d_cnt);
			kernel("gp_tiny", S_2);
		}
		pop(); /* phase_b */
		CK(cudaStreamSynchronize(s2));
	}
	CK(cudaDeviceSynchronize());

	/* a fork: the child annotates but touches no CUDA; it must leave no capture */
	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("cuda_app: fork");
		return 1;
	}
	if (child == 0) {
		volatile long sum = 0;

		nvtxRangePushA("child");
		for (long i = 0; i < 1000000; i++)
			sum += i;
		nvtxRangePop();
		_exit(sum == 499999500000L ? 0 : 1);
	}
	if (waitpid(child, &status, 0) != child) {
		perror("cuda_app: waitpid");
		return 1;
	}

	push("after_fork");
	gp_fill<<<grid, block, 0, s1>>>(d_x, 3.0f, N);
	kernel("gp_fill", S_1);
	pop();
	CK(cudaStreamSynchronize(s1));
	CK(cudaMemcpy(h_page, d_x, bytes, cudaMemcpyDeviceToHost));
	copy(DTOH, (long long)bytes);
	CK(cudaDeviceSynchronize());

	/* the summary */
	printf("{\n  \"pid\": %d,\n  \"child_pid\": %d,\n  \"child_status\": %d,\n", (int)getpid(),
	       (int)child, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	printf("  \"exit_code\": %d,\n  \"device\": \"%s\",\n", EXIT_CODE, prop.name);
	printf("  \"kernels\": {");
	for (int i = 0; i < MAX_NAMES && g_kernels[i].name; i++)
		printf("%s\"%s\": %d", i ? ", " : "", g_kernels[i].name, g_kernels[i].n);
	printf("},\n  \"stream_kernels\": {\"default\": %d, \"s1\": %d, \"s2\": %d},\n",
	       g_stream_kernels[0], g_stream_kernels[1], g_stream_kernels[2]);
	printf("  \"copies\": {\"HtoD\": {\"count\": %d, \"bytes\": %lld}, "
	       "\"DtoH\": {\"count\": %d, \"bytes\": %lld}, "
	       "\"DtoD\": {\"count\": %d, \"bytes\": %lld}},\n",
	       g_copies[HTOD].count, g_copies[HTOD].bytes, g_copies[DTOH].count,
	       g_copies[DTOH].bytes, g_copies[DTOD].count, g_copies[DTOD].bytes);
	printf("  \"memsets\": {\"count\": %d, \"bytes\": %lld},\n", g_memsets.count,
	       g_memsets.bytes);
	printf("  \"ranges\": {");
	for (int i = 0; i < NRANGES; i++)
		printf("%s\"%s\": {\"count\": %d, \"kernels\": %d, \"gpu_ops\": %d}", i ? ", " : "",
		       g_ranges[i].name, g_ranges[i].count, g_ranges[i].kernels, g_ranges[i].ops);
	printf("},\n  \"timed_kernel\": \"gp_spin\",\n  \"timed_ns\": [");
	for (int i = 0; i < k; i++) {
		float ms = 0;

		CK(cudaEventElapsedTime(&ms, ev[i][0], ev[i][1]));
		printf("%s%.0f", i ? ", " : "", (double)ms * 1e6);
	}
	printf("],\n  \"timed_target_ns\": [");
	for (int i = 0; i < k; i++)
		printf("%s%llu", i ? ", " : "", target[i]);
	printf("]\n}\n");

	for (int i = 0; i < ROUNDS * TIMED; i++) {
		CK(cudaEventDestroy(ev[i][0]));
		CK(cudaEventDestroy(ev[i][1]));
	}
	CK(cudaEventDestroy(s1_done));
	CK(cudaStreamDestroy(s1));
	CK(cudaStreamDestroy(s2));
	CK(cudaFree(d_x));
	CK(cudaFree(d_y));
	CK(cudaFree(d_z));
	CK(cudaFree(d_cnt));
	CK(cudaFreeHost(h_pin));
	free(h_page);
	return EXIT_CODE;
}
