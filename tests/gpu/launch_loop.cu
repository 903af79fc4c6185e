/* SPDX-License-Identifier: MIT */
/*
 * launch_loop.cu - the worst case for a tracer: back-to-back launches of an
 * empty kernel, for bench/bench_capture.sh (the CUDA-only row: the cost of
 * `gpuprof run` per kernel launch, without Python or PyTorch in between).
 *
 * Each iteration launches K empty kernels on one stream inside an NVTX range
 * "iter" and synchronises the stream. WARMUP iterations first, then ITERS timed
 * ones (CLOCK_MONOTONIC around them). Prints one JSON line:
 *   {"iters", "kernels_per_iter", "launches", "measured_ns", "per_iter_ns", "per_launch_ns"}
 *
 * usage: launch_loop [ITERS [K [WARMUP]]]   (default 2000 20 200); exit 0, 1 on a CUDA error
 * Build: nvcc -O2 -o launch_loop tests/gpu/launch_loop.cu
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "launch_loop: %s: %s\n", #call, cudaGetErrorString(e_));   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

extern "C" __global__ void gp_empty(void)
{
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void iteration(cudaStream_t s, int k)
{
	nvtxRangePushA("iter");
	for (int j = 0; j < k; j++)
		gp_empty<<<1, 1, 0, s>>>();
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(s));
	nvtxRangePop();
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 2000;
	int k = argc > 2 ? atoi(argv[2]) : 20;
	int warmup = argc > 3 ? atoi(argv[3]) : 200;
	cudaStream_t s;
	long long t0, dt;

	if (iters < 1 || k < 1 || warmup < 0) {
		fprintf(stderr, "usage: launch_loop [ITERS [K [WARMUP]]]\n");
		return 2;
	}
	CK(cudaSetDevice(0));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int i = 0; i < warmup; i++)
		iteration(s, k);
	t0 = now_ns();
	for (int i = 0; i < iters; i++)
		iteration(s, k);
	dt = now_ns() - t0;
	printf(
	    "{\"iters\": %d, \"kernels_per_iter\": %d, \"launches\": %lld, \"measured_ns\": %lld, "
	    "\"per_iter_ns\": %.1f, \"per_launch_ns\": %.1f}\n",
	    iters, k, (long long)iters * k, dt, (double)dt / iters, (double)dt / iters / k);
	CK(cudaStreamDestroy(s));
	return 0;
}
