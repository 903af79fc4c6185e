/* SPDX-License-Identifier: MIT */
/*
 * window_sim.c - capture windows in the injected tracer, without a GPU: like
 * driver_sim it loads libgpuprof-inject.so with the fake CUPTI behind it and
 * calls InitializeInjection; it annotates its iterations with real NVTX3 calls
 * (NVTX_INJECTION64_PATH must name the same tracer) and "launches" one kernel
 * per iteration, named k<i>, through the fake (recorded only while CUPTI has
 * the kind enabled, as with the real one), each with a driver API callback
 * (where the tracer detaches CUPTI after a window).
 *
 * usage: window_sim INJECT_LIB FAKE_CUPTI_LIB MODE ITERATIONS
 *   MODE nvtx:     iterations 1 and 3 run inside a range "capture", the
 *                  others inside "other"; each has a nested range "inner"
 *        steps:    every iteration is a range "step"
 *        threads:  as steps, and a second thread, started and joined in
 *                  each iteration, launches k<100+i> (its API records go to
 *                  a buffer of its own with FAKE_CUPTI_ORDER set)
 *        marks:    a mark "frame" starts every iteration
 *        profiler: cuProfilerStart before iteration 2, cuProfilerStop after 3
 *        timed:    iterations 25 ms apart (for --delay / --duration)
 * The test sets the GPUPROF_CAPTURE_* variables. Prints, per iteration,
 * "i <n> kernel-enabled <0|1>", then the fake's counters:
 * "finalize <n> ts-registrations <n> subscribed <0|1>".
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "fake-cupti.h"

#define X_PTR(ret, name, params) static ret(*p_##name) params;
FAKE_CUPTI_CONTROL_FUNCS(X_PTR)
#undef X_PTR

static uint32_t g_corr = 1;

static int fail(const char *what)
{
	fprintf(stderr, "window_sim: %s\n", what);
	return 1;
}

static void api_call(CUpti_CallbackId cbid, const char *name)
{
	p_fake_cupti_callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid, CUPTI_API_ENTER, name);
	p_fake_cupti_callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid, CUPTI_API_EXIT, name);
}

/* a kernel launch: the driver call's callbacks, its API record and the kernel's */
static void launch(int i)
{
	static char names[64][16];
	uint64_t t = p_fake_cupti_now();
	CUpti_ActivityAPI api;
	CUpti_ActivityKernel10 k;
	char *name = names[i % 64];

	snprintf(name, sizeof(names[0]), "k%d", i);
	api_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel");
	memset(&api, 0, sizeof(api));
	api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	api.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	api.start = t;
	api.end = t + 3000;
	api.processId = (uint32_t)getpid();
	api.threadId = p_fake_cupti_thread_id();
	api.correlationId = g_corr;
	p_fake_cupti_emit(&api, sizeof(api));
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = t + 5000;
	k.end = t + 25000;
	k.streamId = 7;
	k.correlationId = g_corr++;
	k.gridX = k.gridY = k.gridZ = 1;
	k.blockX = k.blockY = k.blockZ = 32;
	k.name = name;
	p_fake_cupti_emit(&k, sizeof(k));
}

static void *launch_thread(void *arg)
{
	launch((int)(intptr_t)arg);
	return NULL;
}

static void report(int i)
{
	struct fake_cupti_state st;

	p_fake_cupti_get_state(&st);
	printf("i %d kernel-enabled %d\n", i, st.enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]);
}

int main(int argc, char **argv)
{
	struct fake_cupti_state st;
	int (*init)(void);
	void *inj, *fake;
	const char *mode;
	int n;

	if (argc != 5)
		return fail("usage: window_sim INJECT_LIB FAKE_CUPTI_LIB MODE ITERATIONS");
	mode = argv[3];
	n = atoi(argv[4]);
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
	for (int i = 0; i < n; i++) {
		if (!strcmp(mode, "nvtx")) {
			nvtxRangePushA(i == 1 || i == 3 ? "capture" : "other");
			nvtxRangePushA("inner");
			report(i);
			launch(i);
			nvtxRangePop();
			nvtxRangePop();
		} else if (!strcmp(mode, "steps")) {
			nvtxRangePushA("step");
			report(i);
			launch(i);
			nvtxRangePop();
		} else if (!strcmp(mode, "threads")) {
			pthread_t th;

			nvtxRangePushA("step");
			report(i);
			launch(i);
			if (pthread_create(&th, NULL, launch_thread, (void *)(intptr_t)(100 + i)))
				return fail("pthread_create");
			pthread_join(th, NULL);
			nvtxRangePop();
		} else if (!strcmp(mode, "marks")) {
			nvtxMarkA("frame");
			report(i);
			launch(i);
		} else if (!strcmp(mode, "profiler")) {
			if (i == 2)
				api_call(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart,
				         "cuProfilerStart");
			report(i);
			launch(i);
			if (i == 3)
				api_call(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop");
		} else if (!strcmp(mode, "timed")) {
			report(i);
			launch(i);
			usleep(25000);
		} else {
			return fail("unknown mode");
		}
		/* another driver call between iterations: where a pending detach happens */
		api_call(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize");
	}
	p_fake_cupti_get_state(&st);
	printf("finalize %llu ts-registrations %u subscribed %d\n",
	       (unsigned long long)st.finalize_calls, st.ts_register_calls, st.subscribed);
	return 0;
}
