/* SPDX-License-Identifier: MIT */
/*
 * driver_sim.c - drives libgpuprof-inject.so the way the CUDA driver does,
 * with the fake CUPTI of tests/fake behind it (GPUPROF_CUPTI_LIBRARY): it
 * dlopens the tracer, calls InitializeInjection, checks what the tracer did
 * to CUPTI (clock registered once, before any kind; the kinds enabled), then
 * feeds canned activity records through the tracer's real buffer callbacks:
 * a device, 2 streams x KERNELS kernels with their cudaLaunchKernel records,
 * a cuLaunchKernel driver launch, a copy, a memset, a stream sync, a
 * cudaEventRecord with its CUDA_EVENT record.
 *
 * usage: driver_sim INJECT_LIB FAKE_CUPTI_LIB KERNELS MODE
 *   MODE exit: returns 0 (the tracer's atexit handler writes the rest)
 *        term: raise(SIGTERM) with the default disposition (the tracer flushes, then it dies)
 *        kill: waits 1.5 s (the periodic writes), then SIGKILL
 *        fork: a child forked just after InitializeInjection exits; another,
 *              forked after the records, emits records too and exits; none may
 *              appear, and neither may hang
 * Prints "checks ok" when the tracer drove CUPTI as it should; exit 1 otherwise.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-cupti.h"

#define X_PTR(ret, name, params) static ret(*p_##name) params;
FAKE_CUPTI_CONTROL_FUNCS(X_PTR)
#undef X_PTR

static int fail(const char *what)
{
	fprintf(stderr, "driver_sim: %s\n", what);
	return 1;
}

static uint32_t g_corr = 1;

static void emit_launch(uint32_t stream, const char *name, uint64_t t)
{
	CUpti_ActivityAPI api;
	CUpti_ActivityKernel10 k;

	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	api.start = t;
	api.end = t + 4000;
	api.processId = (uint32_t)getpid();
	api.threadId = p_fake_cupti_thread_id();
	api.correlationId = g_corr;
	p_fake_cupti_emit(&api, sizeof(api));
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = t + 10000;
	k.end = t + 30000;
	k.deviceId = 0;
	k.contextId = 1;
	k.streamId = stream;
	k.correlationId = g_corr++;
	k.gridX = 128;
	k.gridY = k.gridZ = 1;
	k.blockX = 256;
	k.blockY = k.blockZ = 1;
	k.registersPerThread = 32;
	k.staticSharedMemory = 1024;
	k.name = name;
	p_fake_cupti_emit(&k, sizeof(k));
}

static void emit_all(int kernels)
{
	uint64_t t = p_fake_cupti_now();
	CUpti_ActivityDevice5 dev;
	CUpti_ActivityMemcpy6 mc;
	CUpti_ActivityMemset4 ms;
	CUpti_ActivitySynchronization2 sy;
	CUpti_ActivityAPI drv, rec;
	CUpti_ActivityCudaEvent2 ev;

	memset(&dev, 0, sizeof(dev));
	dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	dev.id = 0;
	dev.name = "Fake H100";
	dev.globalMemorySize = 80ull << 30;
	dev.computeCapabilityMajor = 9;
	dev.numMultiprocessors = 132;
	dev.maxWarpsPerMultiprocessor = 64;
	dev.numThreadsPerWarp = 32;
	p_fake_cupti_emit(&dev, sizeof(dev));
	for (int i = 0; i < kernels; i++) {
		emit_launch(7, "_Z7kernelAPf", t + (uint64_t)i * 50000);
		emit_launch(13, "_Z7kernelBPf", t + (uint64_t)i * 50000 + 20000);
	}
	memset(&drv, 0, sizeof(drv));
	drv.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	drv.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	drv.start = t + 1;
	drv.end = t + 2001;
	drv.processId = (uint32_t)getpid();
	drv.threadId = p_fake_cupti_thread_id();
	drv.correlationId = 999999;
	p_fake_cupti_emit(&drv, sizeof(drv));
	memset(&mc, 0, sizeof(mc));
	mc.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	mc.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	mc.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	mc.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	mc.bytes = 1 << 20;
	mc.start = t + 5;
	mc.end = t + 105;
	mc.streamId = 7;
	mc.correlationId = 1000000;
	p_fake_cupti_emit(&mc, sizeof(mc));
	memset(&ms, 0, sizeof(ms));
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.bytes = 4096;
	ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	ms.start = t + 200;
	ms.end = t + 210;
	ms.streamId = 13;
	ms.correlationId = 1000001;
	p_fake_cupti_emit(&ms, sizeof(ms));
	memset(&sy, 0, sizeof(sy));
	sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	sy.start = t + 300;
	sy.end = t + 400000;
	sy.streamId = 7;
	sy.correlationId = 1000002;
	p_fake_cupti_emit(&sy, sizeof(sy));
	/* a cudaEventRecord and its CUDA_EVENT record (kept only with GPUPROF_CUDA_EVENTS=1) */
	memset(&rec, 0, sizeof(rec));
	rec.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	rec.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020;
	rec.start = t + 500;
	rec.end = t + 1500;
	rec.processId = (uint32_t)getpid();
	rec.threadId = p_fake_cupti_thread_id();
	rec.correlationId = 1000003;
	p_fake_cupti_emit(&rec, sizeof(rec));
	memset(&ev, 0, sizeof(ev));
	ev.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
	ev.correlationId = 1000003;
	ev.contextId = 1;
	ev.streamId = 13;
	ev.eventId = 42;
	p_fake_cupti_emit(&ev, sizeof(ev));
}

int main(int argc, char **argv)
{
	struct fake_cupti_state st;
	int (*init)(void);
	void *inj, *fake;
	int kernels;

	if (argc != 5)
		return fail("usage: driver_sim INJECT_LIB FAKE_CUPTI_LIB KERNELS MODE");
	kernels = atoi(argv[3]);
	setenv("GPUPROF_CUPTI_LIBRARY", argv[2], 1);
	inj = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!inj)
		return fail(dlerror());
	*(void **)&init = dlsym(inj, "InitializeInjection");
	if (!init)
		return fail("no InitializeInjection");
	if (init() != 1 || init() != 1) /* a second call is harmless */
		return fail("InitializeInjection did not return 1");
	if (strcmp(argv[4], "fork") == 0) {
		/* a fork just after the tracer started its writer thread: the child allocates and
		 * exits normally (under ASan, a leak check that needs every allocator lock) */
		pid_t p = fork();

		if (p == 0) {
			free(malloc(64));
			exit(0);
		}
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return fail("the early fork");
	}
	fake = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
	if (!fake)
		return fail("the tracer did not load the fake CUPTI");
#define X_SYM(ret, name, params) *(void **)&p_##name = dlsym(fake, #name);
	FAKE_CUPTI_CONTROL_FUNCS(X_SYM)
#undef X_SYM
	p_fake_cupti_get_state(&st);
	if (!st.ts_registered || st.ts_register_calls != 1 || !st.ts_before_enable)
		return fail("the clock was not registered once, before enabling");
	if (!st.callbacks_registered || !st.enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ||
	    !st.enabled[CUPTI_ACTIVITY_KIND_MEMCPY] || !st.enabled[CUPTI_ACTIVITY_KIND_MEMSET] ||
	    !st.enabled[CUPTI_ACTIVITY_KIND_RUNTIME] ||
	    !st.enabled[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION] ||
	    st.enabled[CUPTI_ACTIVITY_KIND_KERNEL])
		return fail("the activity kinds enabled are not the expected ones");
	if (p_fake_cupti_api_enabled(CUPTI_CB_DOMAIN_DRIVER_API,
	                             CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) != 1 ||
	    p_fake_cupti_api_enabled(CUPTI_CB_DOMAIN_RUNTIME_API,
	                             CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020) != 0)
		return fail("driver launches not on, or cudaGetDevice not off");
	if (p_fake_cupti_now() == 0)
		return fail("no time");
	printf("checks ok\n");
	fflush(stdout);
	emit_all(kernels);
	if (strcmp(argv[4], "fork") == 0) {
		pid_t p = fork();

		if (p == 0) {
			emit_launch(99, "_Z11child_kernelv", p_fake_cupti_now());
			exit(0); /* atexit handlers run: the tracer must do nothing here */
		}
		waitpid(p, NULL, 0);
	} else if (strcmp(argv[4], "term") == 0) {
		raise(SIGTERM);
		return fail("still alive after SIGTERM");
	} else if (strcmp(argv[4], "kill") == 0) {
		usleep(1500 * 1000);
		raise(SIGKILL);
	}
	return 0;
}
