/* SPDX-License-Identifier: MIT */
/*
 * cuda_mem.cu - a small CUDA program that knows exactly what it allocated and
 * freed, for tests/e2e/t0739-gpu-run-cuda-memory.sh: it runs under `gpuprof
 * run` and the test compares the capture's allocations (CUPTI MEMORY2) with
 * the JSON this program prints.
 *
 * On device 0, in this order (MiB):
 *   a = cudaMalloc 1; b = cudaMalloc 8
 *   c = cudaMallocAsync 2 on stream s (the device's default pool), a memset of
 *       it, cudaFreeAsync on s, stream synchronised
 *   h = cudaMallocHost 64 KiB (pinned host memory), cudaFreeHost
 *   w = cudaMalloc 4 on a second thread (its tid in the output), freed on the
 *       main thread after the join
 *   leak = cudaMalloc 3, never freed (the deliberate leak)
 *   cudaFree a, cudaFree b, cudaDeviceSynchronize
 * The device's allocated bytes from these: peak 13 MiB (a, b, w and the
 * freed c gone: 1 + 8 + 4 after c; 1 + 8 + 2 before), 3 MiB (the leak) at
 * the end. No cudaDeviceReset: the leak is still allocated when main returns.
 *
 * Output, one JSON object on stdout: pid, main_tid, worker_tid, device,
 * end_ns (CLOCK_MONOTONIC, the capture's clock, after the last CUDA call),
 * allocs [{name, call, free_call (null: never freed), addr, bytes, host,
 * async, tid}] in allocation order.
 *
 * usage: cuda_mem            (exit 0; any CUDA error: a message and exit 1)
 * Build: nvcc -O2 -o cuda_mem tests/gpu/cuda_mem.cu
 */
#include <cuda_runtime.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MIB (1ull << 20)

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "cuda_mem: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

struct alloc {
	const char *name, *call, *free_call;
	void *p;
	size_t bytes;
	int host, async;
	long tid;
};

static struct alloc g_allocs[8];
static int g_n;

static long tid_now(void)
{
	return (long)syscall(SYS_gettid);
}

static struct alloc *note(const char *name, const char *call, void *p, size_t bytes, int host,
                          int async)
{
	struct alloc *a = &g_allocs[g_n++];

	a->name = name;
	a->call = call;
	a->free_call = NULL;
	a->p = p;
	a->bytes = bytes;
	a->host = host;
	a->async = async;
	a->tid = tid_now();
	return a;
}

static void *worker(void *arg)
{
	void *p = NULL;

	CK(cudaSetDevice(0));
	CK(cudaMalloc(&p, 4 * MIB));
	*(struct alloc **)arg = note("w", "cudaMalloc", p, 4 * MIB, 0, 0);
	return NULL;
}

int main(void)
{
	void *a, *b, *c, *h, *leak;
	struct alloc *ra, *rb, *rc, *rh, *rw = NULL;
	cudaStream_t s;
	pthread_t th;
	struct timespec ts;
	cudaDeviceProp prop;
	long worker_tid;

	CK(cudaSetDevice(0));
	CK(cudaFree(0)); /* the context, before anything is counted */
	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

	CK(cudaMalloc(&a, 1 * MIB));
	ra = note("a", "cudaMalloc", a, 1 * MIB, 0, 0);
	CK(cudaMalloc(&b, 8 * MIB));
	rb = note("b", "cudaMalloc", b, 8 * MIB, 0, 0);

	CK(cudaMallocAsync(&c, 2 * MIB, s));
	rc = note("c", "cudaMallocAsync", c, 2 * MIB, 0, 1);
	CK(cudaMemsetAsync(c, 0, 2 * MIB, s));
	CK(cudaFreeAsync(c, s));
	rc->free_call = "cudaFreeAsync";
	CK(cudaStreamSynchronize(s));

	CK(cudaMallocHost(&h, 64 << 10));
	rh = note("h", "cudaMallocHost", h, 64 << 10, 1, 0);
	CK(cudaFreeHost(h));
	rh->free_call = "cudaFreeHost";

	if (pthread_create(&th, NULL, worker, &rw) != 0 || pthread_join(th, NULL) != 0 || !rw) {
		fprintf(stderr, "cuda_mem: the worker thread\n");
		return 1;
	}
	worker_tid = rw->tid;
	CK(cudaFree(rw->p));
	rw->free_call = "cudaFree";

	CK(cudaMalloc(&leak, 3 * MIB)); /* never freed */
	note("leak", "cudaMalloc", leak, 3 * MIB, 0, 0);

	CK(cudaFree(a));
	ra->free_call = "cudaFree";
	CK(cudaFree(b));
	rb->free_call = "cudaFree";
	CK(cudaDeviceSynchronize());
	CK(cudaStreamDestroy(s));
	clock_gettime(CLOCK_MONOTONIC, &ts);

	printf("{\"pid\": %ld, \"main_tid\": %ld, \"worker_tid\": %ld, \"device\": \"%s\", "
	       "\"end_ns\": %lld, \"allocs\": [",
	       (long)getpid(), tid_now(), worker_tid, prop.name,
	       (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec);
	for (int i = 0; i < g_n; i++) {
		const struct alloc *x = &g_allocs[i];

		printf("%s{\"name\": \"%s\", \"call\": \"%s\", \"free_call\": %s%s%s, \"addr\": %llu, "
		       "\"bytes\": %zu, \"host\": %s, \"async\": %s, \"tid\": %ld}",
		       i ? ", " : "", x->name, x->call, x->free_call ? "\"" : "",
		       x->free_call ? x->free_call : "null", x->free_call ? "\"" : "",
		       (unsigned long long)(uintptr_t)x->p, x->bytes, x->host ? "true" : "false",
		       x->async ? "true" : "false", x->tid);
	}
	printf("]}\n");
	return 0;
}
