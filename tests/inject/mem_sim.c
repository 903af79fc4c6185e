/* SPDX-License-Identifier: MIT */
/*
 * mem_sim.c - CUDA allocations and frees through the injected tracer, without
 * a GPU: like driver_sim it loads libgpuprof-inject.so with the fake CUPTI
 * behind it and calls InitializeInjection (run it under `gpuprof run`, or
 * with GPUPROF_CAPTURE_DIR set), then emits, through the tracer's real buffer
 * callbacks, each call's runtime API record and its MEMORY2 record
 * (CUpti_ActivityMemory4, as CUPTI lays it out), sometimes the memory record
 * first (CUPTI's buffers keep no order between kinds):
 *
 *   device 0: cudaMalloc A 1 MiB; cudaMalloc B 4 MiB on another thread (never
 *             freed); cudaMallocAsync C 2 MiB on stream 7 from a local pool;
 *             cudaFree A; cudaFreeAsync C; cudaMallocManaged M 1 MiB;
 *             cudaFree M: peak 7 MiB, 4 MiB at the end, 4 allocations, 3 frees
 *   device 1: cudaMalloc D 3 MiB (never freed); then E 1 MiB allocated and
 *             freed by calls whose API records are not in the capture: peak
 *             4 MiB, 3 MiB at the end, 2 allocations, 1 free
 *   host:     cudaMallocHost H 64 KiB, pinned (never freed): the CPU row
 *   a module's __device__ variable (DEVICE_STATIC, 512 bytes): left out
 *
 * and one kernel launch, so that the rest of the capture can be checked too.
 *
 * usage: mem_sim INJECT_LIB FAKE_CUPTI_LIB
 * Prints "memory2 <0|1>" (whether the tracer had CUPTI's MEMORY2 kind enabled)
 * and "checks ok"; exit 1 when the tracer did not drive CUPTI as it should.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-cupti.h"

#define X_PTR(ret, name, params) static ret(*p_##name) params;
FAKE_CUPTI_CONTROL_FUNCS(X_PTR)
#undef X_PTR

#define MIB (1ull << 20)

static uint32_t g_corr = 1;
static uint64_t g_t;

static int fail(const char *what)
{
	fprintf(stderr, "mem_sim: %s\n", what);
	return 1;
}

struct op {
	CUpti_CallbackId cbid; /* 0: no API record (a call gpuprof did not record) */
	uint32_t tid_off;      /* the thread: getpid() + tid_off */
	int alloc;             /* 1 allocation, 0 release */
	CUpti_ActivityMemoryKind kind;
	uint32_t device, stream;
	uint64_t addr, bytes;
	int pool;      /* from a memory pool (async) */
	int mem_first; /* the memory record before the API record */
	uint32_t corr; /* 0: the next id */
};

static void emit_op(const struct op *o)
{
	CUpti_ActivityAPI api;
	CUpti_ActivityMemory4 m;
	uint64_t t = g_t;
	uint32_t corr = o->corr ? o->corr : g_corr++;

	g_t += 10000;
	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api.cbid = o->cbid;
	api.start = t;
	api.end = t + 4000;
	api.processId = (uint32_t)getpid();
	/* this thread as CUPTI names it, or another one made up */
	api.threadId = o->tid_off ? (uint32_t)getpid() + o->tid_off : p_fake_cupti_thread_id();
	api.correlationId = corr;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = o->alloc ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
	                                 : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	m.memoryKind = o->kind;
	m.correlationId = corr;
	m.address = o->addr;
	m.bytes = o->bytes;
	m.timestamp = t + 2000;
	m.processId = (uint32_t)getpid();
	m.deviceId = o->device;
	m.contextId = o->kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED ? CUPTI_INVALID_CONTEXT_ID : 1;
	m.streamId = o->stream ? o->stream : CUPTI_INVALID_STREAM_ID;
	m.isAsync = o->pool ? 1 : 0;
	if (o->pool) {
		m.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
		m.memoryPoolConfig.address = 0x7f1000000000ull;
		m.memoryPoolConfig.releaseThreshold = 0;
		m.memoryPoolConfig.pool.size = 32 * MIB;
		m.memoryPoolConfig.utilizedSize = o->alloc ? 2 * MIB : 0;
	}
	if (o->mem_first)
		p_fake_cupti_emit(&m, sizeof(m));
	if (o->cbid)
		p_fake_cupti_emit(&api, sizeof(api));
	if (!o->mem_first)
		p_fake_cupti_emit(&m, sizeof(m));
}

static void emit_kernel(void)
{
	CUpti_ActivityAPI api;
	CUpti_ActivityKernel10 k;
	uint64_t t = g_t;

	g_t += 10000;
	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	api.start = t;
	api.end = t + 3000;
	api.processId = (uint32_t)getpid();
	api.threadId = p_fake_cupti_thread_id();
	api.correlationId = g_corr;
	p_fake_cupti_emit(&api, sizeof(api));
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = t + 4000;
	k.end = t + 9000;
	k.streamId = 7;
	k.correlationId = g_corr++;
	k.gridX = k.gridY = k.gridZ = 1;
	k.blockX = k.blockY = k.blockZ = 32;
	k.name = "_Z6touchPf";
	p_fake_cupti_emit(&k, sizeof(k));
}

static void emit_all(void)
{
	const CUpti_ActivityMemoryKind DEV = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	const struct op ops[] = {
		{ CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 0, 1, DEV, 0, 0, 0x7f0000000000ull,
		  1 * MIB, 0, 0, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 1, 1, DEV, 0, 0, 0x7f0000200000ull,
		  4 * MIB, 0, 1, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, 0, 1, DEV, 0, 7,
		  0x7f1000000000ull, 2 * MIB, 1, 0, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 0, 0, DEV, 0, 0, 0x7f0000000000ull,
		  1 * MIB, 0, 1, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, 0, 0, DEV, 0, 7, 0x7f1000000000ull,
		  2 * MIB, 1, 0, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, 0, 1,
		  CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, 0, 0, 0x7f2000000000ull, 1 * MIB, 0, 0, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 0, 0, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED,
		  0, 0, 0x7f2000000000ull, 1 * MIB, 0, 0, 0 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 0, 1, DEV, 1, 0, 0x7f3000000000ull,
		  3 * MIB, 0, 0, 0 },
		{ 0, 0, 1, DEV, 1, 0, 0x7f3000400000ull, 1 * MIB, 0, 0, 777777 },
		{ 0, 0, 0, DEV, 1, 0, 0x7f3000400000ull, 1 * MIB, 0, 0, 777778 },
		{ CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, 0, 1,
		  CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 0, 0, 0x7f4000000000ull, 64 << 10, 0, 0, 0 },
		{ 0, 0, 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, 0, 0, 0x7f5000000000ull, 512,
		  0, 0, 0 },
	};

	g_t = p_fake_cupti_now();
	emit_kernel();
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		emit_op(&ops[i]);
}

int main(int argc, char **argv)
{
	struct fake_cupti_state st;
	const char *refused = getenv("FAKE_CUPTI_NO_KINDS");
	int want_mem = !(refused && strstr(refused, "49"));
	int (*init)(void);
	void *inj, *fake;

	if (argc != 3)
		return fail("usage: mem_sim INJECT_LIB FAKE_CUPTI_LIB");
	if (getenv("GPUPROF_CUDA_MEMORY") && !strcmp(getenv("GPUPROF_CUDA_MEMORY"), "0"))
		want_mem = 0;
	setenv("GPUPROF_CUPTI_LIBRARY", argv[2], 1);
	inj = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!inj)
		return fail(dlerror());
	*(void **)&init = dlsym(inj, "InitializeInjection");
	if (!init || init() != 1)
		return fail("no InitializeInjection, or it failed");
	fake = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
	if (!fake)
		return fail("the tracer did not load the fake CUPTI");
#define X_SYM(ret, name, params) *(void **)&p_##name = dlsym(fake, #name);
	FAKE_CUPTI_CONTROL_FUNCS(X_SYM)
#undef X_SYM
	p_fake_cupti_get_state(&st);
	printf("memory2 %d\n", st.enabled[CUPTI_ACTIVITY_KIND_MEMORY2]);
	if (st.enabled[CUPTI_ACTIVITY_KIND_MEMORY2] != want_mem)
		return fail(want_mem ? "MEMORY2 is not enabled" : "MEMORY2 is enabled");
	if (!st.enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ||
	    !st.enabled[CUPTI_ACTIVITY_KIND_RUNTIME])
		return fail("the other kinds are not enabled");
	if (p_fake_cupti_record_size(CUPTI_ACTIVITY_KIND_MEMORY2) != sizeof(CUpti_ActivityMemory4))
		return fail("the fake does not take CUpti_ActivityMemory4 records");
	printf("checks ok\n");
	fflush(stdout);
	emit_all();
	return 0;
}
