/* SPDX-License-Identifier: MIT */
/*
 * fake-cupti.c - a scripted, deterministic stand-in for libcupti.so, so that
 * the injected tracer (src/inject/) runs its real CUPTI code paths in every
 * CI job, GPU or not. It defines the functions of FAKE_CUPTI_FUNCS
 * (fake-cupti.h) with CUDA 13's ABI (the prototypes come from cupti.h, so a
 * mismatch does not compile); a test program makes the tracer load this
 * library instead of libcupti ($GPUPROF_CUPTI_LIBRARY), then drives it through the
 * control API of fake-cupti.h: it emits activity records, which land in the
 * tracer's buffers exactly as CUPTI would put them there, fires API callbacks,
 * and reads back what the tracer asked for. Built as libfake-cupti.so in
 * $GP_FAKE_CUPTI_DIR under CTest.
 *
 * Configuration: read from the environment at the first CUPTI call after the
 * load or fake_cupti_reset().
 *
 *   FAKE_CUPTI_FAIL=NAME[:CODE][,NAME[:CODE]...]
 *                     CUPTI function NAME (one of FAKE_CUPTI_FUNCS) returns
 *                     CODE (a CUptiResult number, not 0; default 999,
 *                     CUPTI_ERROR_UNKNOWN) from every call and does nothing
 *                     else. An unknown NAME or bad CODE is printed once on
 *                     stderr ("fake-cupti: ...") and flagged in
 *                     fake_cupti_state.config_error; the other items apply.
 *   FAKE_CUPTI_VERSION=N  cuptiGetVersion reports N (a CUPTI of another CUDA
 *                     release: 28 is CUDA 12.9's) instead of CUPTI_API_VERSION.
 *   FAKE_CUPTI_NO_KINDS=K[,K...]
 *                     cuptiActivityEnable of activity kind number K returns
 *                     CUPTI_ERROR_NOT_SUPPORTED and enables nothing, as a
 *                     CUPTI or a device without that kind (49: MEMORY2);
 *                     the other kinds work.
 *   FAKE_CUPTI_ORDER=one|device-first|api-first
 *                     how records are spread over buffers (see Buffers
 *                     below): "one" (the default) keeps every record in one
 *                     buffer in the order it was emitted; the other two
 *                     model CUDA 13's per-thread activity buffers, and say
 *                     which buffers a flush completes first. Anything else
 *                     is a config_error and means "one".
 *
 * What it models (cupti_activity.h, cupti_callbacks.h, and
 * shared/reference/cupti-nvtx-nvml.md sections 1.5 and 2):
 *   - cuptiGetVersion: CUPTI_API_VERSION (130001). cuptiGetTimestamp and
 *     fake_cupti_now: the registered timestamp callback, else CLOCK_REALTIME.
 *   - Kinds: enabled per kind; the kinds CUDA 13 dropped (EVENT, METRIC,
 *     *_INSTANCE, SOURCE_LOCATOR, GLOBAL_ACCESS, BRANCH, INSTRUCTION_*,
 *     SHARED_ACCESS, PC_SAMPLING*, INSTANTANEOUS_*) give
 *     CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED, kinds outside 1..COUNT-1
 *     CUPTI_ERROR_INVALID_KIND. Enabling or disabling RUNTIME or DRIVER clears
 *     the per-cbid settings of cuptiActivityEnable{Runtime,Driver}Api, as the
 *     header says a later kind setting overrides them.
 *   - Buffers: one current buffer, taken from bufferRequested when a record
 *     arrives and completed (bufferCompleted(NULL, 0, ...)) when the next
 *     record does not fit in its bytes or maxNumRecords, or at
 *     cuptiActivityFlushAll (forced or not, if it holds a record).
 *     With FAKE_CUPTI_ORDER=device-first or api-first, as a real CUPTI 13
 *     with CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER on (its default;
 *     set to 0, every record goes to the one buffer again): the API records
 *     (RUNTIME, DRIVER, INTERNAL_LAUNCH_API) of each thread go to a current
 *     buffer of that thread's (64 threads; later ones share the 64th), every
 *     other record (kernels, copies, memsets, syncs, MEMORY2, ...) to the
 *     device buffer; each is completed when full, and a flush completes
 *     the device buffer before the threads' ones (device-first: what an
 *     H200 with CUPTI 13.0 did, so a kernel is decoded before the API
 *     record of its launch) or after them (api-first), threads in the order
 *     of their first API record. A NULL
 *     buffer drops the record; a misaligned (not 8-byte) or too small one is
 *     handed straight back empty and drops it too. Both callbacks run on the
 *     thread that emits or flushes, without the state lock held, so they may
 *     call back into the fake (but not emit or flush: FAKE_CUPTI_BUSY /
 *     CUPTI_ERROR_INVALID_OPERATION).
 *   - Records sit back to back from the buffer's start, each at an 8-byte
 *     aligned offset; cuptiActivityGetNextRecord walks them by the size of
 *     each kind's current struct (record_size below).
 *   - One subscriber; its enabled (domain, cbid) callbacks are called by
 *     fake_cupti_callback.
 *   - cuptiFinalize detaches: it forgets the buffer callbacks, the current
 *     buffer (handed back empty, its records counted as lost: flush first),
 *     the enabled kinds and cbids, the subscriber, the attributes, the thread
 *     id type and the flush period. cuptiGetTimestamp keeps the timestamp
 *     callback, but the records (fake_cupti_now) are on CUPTI's own clock
 *     until it is registered again, as a real CUPTI 13.0 did.
 *   - Thread ids: CUPTI fills the API records' threadId with pthread_self()
 *     cut to 32 bits unless cuptiSetThreadIdType(SYSTEM) asked for the
 *     kernel's thread id; fake_cupti_thread_id gives the test program what
 *     CUPTI would put there for the calling thread (the records are the test
 *     program's). A finalize sets the type back to DEFAULT.
 *   - External correlation ids: a stack per kind per thread, 64 deep
 *     (CUPTI_ERROR_MAX_LIMIT_REACHED past that); no EXTERNAL_CORRELATION
 *     records are made up: the test program emits those it wants.
 *
 * One mutex guards the state. The current buffer is also owned by one thread
 * at a time (a flag and a condition variable), so that the buffer callbacks
 * can run without the mutex while other threads wait to emit. A forked child
 * starts with both free (pthread_atfork): the thread that held the buffer is
 * gone there, and a test of a tracer's fork handling must not hang in the fake.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/* as when libcupti itself is built: the header's prototypes get default visibility */
#define CUPTI_LIB 1

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake-cupti.h"

/* redeclared from the list: a signature that differs from cupti.h's does not compile */
#define FAKE_PROTO(ret, name, params) FAKE_CUPTI_API ret CUPTIAPI name params;
FAKE_CUPTI_FUNCS(FAKE_PROTO)
#undef FAKE_PROTO

#define FAKE_ENUM(ret, name, params) FN_##name,
enum fake_fn { FAKE_CUPTI_FUNCS(FAKE_ENUM) FN_COUNT };
#undef FAKE_ENUM

#define FAKE_NAME(ret, name, params) #name,
static const char *const fn_names[FN_COUNT] = { FAKE_CUPTI_FUNCS(FAKE_NAME) };
#undef FAKE_NAME

/* the control API's list must match its prototypes, too */
#define FAKE_CHECK(ret, name, params)                                                              \
	static ret(*const check_##name) params __attribute__((unused)) = name;
FAKE_CUPTI_CONTROL_FUNCS(FAKE_CHECK)
#undef FAKE_CHECK

#define FAKE_MAX_CBID    1024 /* above every domain's callback-id count */
#define FAKE_EXT_DEPTH   64
#define FAKE_CALL_DEPTH  64
#define FAKE_ATTR_COUNT  ((int)CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS + 1)
#define FAKE_ALIGN       8
#define FAKE_DEFAULT_ERR CUPTI_ERROR_UNKNOWN
#define FAKE_MAX_THREADS 64 /* threads with an API buffer of their own */

/* FAKE_CUPTI_ORDER */
enum fake_order { FAKE_ORDER_ONE, FAKE_ORDER_DEVICE_FIRST, FAKE_ORDER_API_FIRST };

_Static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE <= FAKE_MAX_CBID, "runtime cbids");
_Static_assert(CUPTI_DRIVER_TRACE_CBID_SIZE <= FAKE_MAX_CBID, "driver cbids");
_Static_assert(CUPTI_CBID_RESOURCE_SIZE <= FAKE_MAX_CBID, "resource cbids");
_Static_assert(CUPTI_CBID_SYNCHRONIZE_SIZE <= FAKE_MAX_CBID, "synchronize cbids");
_Static_assert(CUPTI_CBID_NVTX_SIZE <= FAKE_MAX_CBID, "nvtx cbids");
_Static_assert(CUPTI_CBID_STATE_SIZE <= FAKE_MAX_CBID, "state cbids");

/* The subscriber handle points at this; the address is the whole identity. */
struct CUpti_Subscriber_st {
	int unused;
};

static struct CUpti_Subscriber_st fake_subscriber;

/* a buffer the client gave us; p == NULL: none */
struct fake_buf {
	uint8_t *p;
	size_t size, used;   /* bytes */
	size_t nrec, maxrec; /* maxrec 0: no limit */
};

struct fake_state {
	bool config_read, config_error;
	struct {
		bool on;
		CUptiResult code;
	} fail[FN_COUNT];
	unsigned long long ncalls[FN_COUNT];

	CUpti_TimestampCallbackFunc ts_fn;
	/* the records' clock: ts_fn until a finalize, then CUPTI's own (see cuptiFinalize) */
	CUpti_TimestampCallbackFunc ts_rec_fn;
	unsigned ts_calls;
	bool ts_before_enable, any_enabled;

	CUpti_BuffersCallbackRequestFunc requested;
	CUpti_BuffersCallbackCompleteFunc completed;
	bool enabled[CUPTI_ACTIVITY_KIND_COUNT];
	bool refused[CUPTI_ACTIVITY_KIND_COUNT];      /* FAKE_CUPTI_NO_KINDS */
	int8_t rt_api[CUPTI_RUNTIME_TRACE_CBID_SIZE]; /* -1 unset, 0, 1 */
	int8_t drv_api[CUPTI_DRIVER_TRACE_CBID_SIZE];
	uint64_t attr[FAKE_ATTR_COUNT];
	uint32_t flush_period_ms;
	CUpti_ActivityThreadIdType tid_type;   /* cuptiSetThreadIdType */
	struct fake_buf cur;                   /* the one buffer, or the device buffer */
	enum fake_order order;                 /* FAKE_CUPTI_ORDER */
	struct fake_buf thr[FAKE_MAX_THREADS]; /* the threads' API buffers (per-thread orders) */
	size_t nthr;                           /* thr[0, nthr) belong to threads */

	uint64_t flushes_forced, flushes_unforced;
	uint64_t buffers_requested, buffers_completed, buffers_rejected;
	uint64_t records_emitted, records_dropped, records_not_enabled, records_lost;
	size_t dropped_pending;

	bool subscribed;
	CUpti_CallbackFunc sub_fn;
	void *sub_userdata;
	bool cb_on[CUPTI_CB_DOMAIN_SIZE][FAKE_MAX_CBID];
	uint32_t next_corr;
	uint64_t callbacks_delivered;
	uint64_t finalize_calls;
};

static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slot_cond = PTHREAD_COND_INITIALIZER;
static struct fake_state st;
static bool st_fresh = true; /* st still needs state_init_locked() */
/* the current buffer's owner; kept apart from st, which reset clears */
static bool slot_busy;
static pthread_t slot_owner;
/* bumped by finalize and reset: per-thread stacks of an older generation are empty */
static unsigned st_gen = 1;

/* per-thread stacks: external correlation ids, and the API calls under way */
struct fake_tls {
	unsigned gen;
	size_t ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];
	uint64_t ext[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE][FAKE_EXT_DEPTH];
	size_t tbuf; /* 1 + this thread's index in st.thr, 0: none yet */
	size_t call_depth;
	struct {
		uint32_t corr;
		uint64_t data;
	} call[FAKE_CALL_DEPTH + 1]; /* the extra slot takes calls nested too deep */
};

static _Thread_local struct fake_tls tls;

/* ---- CUPTI's tables ---- */

#define RT(name)  [CUPTI_RUNTIME_TRACE_CBID_##name] = #name
#define DRV(name) [CUPTI_DRIVER_TRACE_CBID_##name] = #name

/* the enum constants' names without their prefix, as cuptiGetCallbackName gives them */
static const char *const rt_names[CUPTI_RUNTIME_TRACE_CBID_SIZE] = {
	RT(cudaGetLastError_v3020),
	RT(cudaGetDevice_v3020),
	RT(cudaMalloc_v3020),
	RT(cudaFree_v3020),
	RT(cudaMemcpy_v3020),
	RT(cudaMemcpyAsync_v3020),
	RT(cudaMemcpy2DAsync_v3020),
	RT(cudaMemsetAsync_v3020),
	RT(cudaStreamCreate_v3020),
	RT(cudaStreamDestroy_v3020),
	RT(cudaStreamSynchronize_v3020),
	RT(cudaEventCreateWithFlags_v3020),
	RT(cudaEventRecord_v3020),
	RT(cudaEventDestroy_v3020),
	RT(cudaEventSynchronize_v3020),
	RT(cudaStreamWaitEvent_v3020),
	RT(cudaDeviceReset_v3020),
	RT(cudaDeviceSynchronize_v3020),
	RT(cudaProfilerStart_v4000),
	RT(cudaProfilerStop_v4000),
	RT(cudaStreamCreateWithFlags_v5000),
	RT(cudaLaunchKernel_v7000),
	RT(cudaGraphLaunch_v10000),
	RT(cudaStreamIsCapturing_v10000),
	RT(cudaMallocAsync_v11020),
	RT(cudaLaunchKernelExC_v11060),
	RT(cudaMallocHost_v3020),
	RT(cudaFreeHost_v3020),
	RT(cudaMallocManaged_v6000),
	RT(cudaFreeAsync_v11020),
};

static const char *const drv_names[CUPTI_DRIVER_TRACE_CBID_SIZE] = {
	DRV(cuInit),
	DRV(cuCtxSynchronize),
	DRV(cuEventSynchronize),
	DRV(cuStreamSynchronize),
	DRV(cuMemsetD8Async),
	DRV(cuMemAlloc_v2),
	DRV(cuMemFree_v2),
	DRV(cuMemcpyHtoD_v2),
	DRV(cuStreamWaitEvent),
	DRV(cuCtxGetCurrent),
	DRV(cuMemcpyAsync),
	DRV(cuLaunchKernel),
	DRV(cuProfilerStart),
	DRV(cuProfilerStop),
	DRV(cuCtxDestroy_v2),
	DRV(cuDevicePrimaryCtxGetState),
	DRV(cuLaunchCooperativeKernel),
	DRV(cuGraphLaunch),
	DRV(cuLaunchKernelEx),
	DRV(cuKernelGetAttribute),
	DRV(cuMemAllocAsync),
	DRV(cuMemFreeAsync),
};

#undef RT
#undef DRV

#define RES(code) [code] = #code

static const char *const result_names[] = {
	RES(CUPTI_SUCCESS),
	RES(CUPTI_ERROR_INVALID_PARAMETER),
	RES(CUPTI_ERROR_INVALID_DEVICE),
	RES(CUPTI_ERROR_INVALID_CONTEXT),
	RES(CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID),
	RES(CUPTI_ERROR_INVALID_EVENT_ID),
	RES(CUPTI_ERROR_INVALID_EVENT_NAME),
	RES(CUPTI_ERROR_INVALID_OPERATION),
	RES(CUPTI_ERROR_OUT_OF_MEMORY),
	RES(CUPTI_ERROR_HARDWARE),
	RES(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT),
	RES(CUPTI_ERROR_API_NOT_IMPLEMENTED),
	RES(CUPTI_ERROR_MAX_LIMIT_REACHED),
	RES(CUPTI_ERROR_NOT_READY),
	RES(CUPTI_ERROR_NOT_COMPATIBLE),
	RES(CUPTI_ERROR_NOT_INITIALIZED),
	RES(CUPTI_ERROR_INVALID_METRIC_ID),
	RES(CUPTI_ERROR_INVALID_METRIC_NAME),
	RES(CUPTI_ERROR_QUEUE_EMPTY),
	RES(CUPTI_ERROR_INVALID_HANDLE),
	RES(CUPTI_ERROR_INVALID_STREAM),
	RES(CUPTI_ERROR_INVALID_KIND),
	RES(CUPTI_ERROR_INVALID_EVENT_VALUE),
	RES(CUPTI_ERROR_DISABLED),
	RES(CUPTI_ERROR_INVALID_MODULE),
	RES(CUPTI_ERROR_INVALID_METRIC_VALUE),
	RES(CUPTI_ERROR_HARDWARE_BUSY),
	RES(CUPTI_ERROR_NOT_SUPPORTED),
	RES(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED),
	RES(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE),
	RES(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES),
	RES(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS),
	RES(CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED),
	RES(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED),
	RES(CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE),
	RES(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
	RES(CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED),
	RES(CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE),
	RES(CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED),
	RES(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
	RES(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES),
	RES(CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED),
	RES(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED),
	RES(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED),
	RES(CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED),
	RES(CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED),
	RES(CUPTI_ERROR_INVALID_CHIP_NAME),
};

#undef RES

/* The struct of each kind the fake knows, CUDA 13.0's current versions. */
size_t fake_cupti_record_size(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return sizeof(CUpti_ActivityMemcpyPtoP4);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
	case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
		return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sizeof(CUpti_ActivitySynchronization2);
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		return sizeof(CUpti_ActivityCudaEvent2);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return sizeof(CUpti_ActivityOverhead3);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		return sizeof(CUpti_ActivityContext3);
	case CUPTI_ACTIVITY_KIND_STREAM:
		return sizeof(CUpti_ActivityStream);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
	case CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE:
		return sizeof(CUpti_ActivityGraphTrace2);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return sizeof(CUpti_ActivityMemory4);
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		return sizeof(CUpti_ActivityMemoryPool3);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return sizeof(CUpti_ActivityMarker2);
	case CUPTI_ACTIVITY_KIND_MARKER_DATA:
		return sizeof(CUpti_ActivityMarkerData2);
	case CUPTI_ACTIVITY_KIND_NAME:
		return sizeof(CUpti_ActivityName);
	default:
		return 0;
	}
}

static bool kind_legacy(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_EVENT:
	case CUPTI_ACTIVITY_KIND_METRIC:
	case CUPTI_ACTIVITY_KIND_SOURCE_LOCATOR:
	case CUPTI_ACTIVITY_KIND_GLOBAL_ACCESS:
	case CUPTI_ACTIVITY_KIND_BRANCH:
	case CUPTI_ACTIVITY_KIND_EVENT_INSTANCE:
	case CUPTI_ACTIVITY_KIND_METRIC_INSTANCE:
	case CUPTI_ACTIVITY_KIND_INSTRUCTION_EXECUTION:
	case CUPTI_ACTIVITY_KIND_SHARED_ACCESS:
	case CUPTI_ACTIVITY_KIND_PC_SAMPLING:
	case CUPTI_ACTIVITY_KIND_PC_SAMPLING_RECORD_INFO:
	case CUPTI_ACTIVITY_KIND_INSTRUCTION_CORRELATION:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_EVENT:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_EVENT_INSTANCE:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_METRIC:
	case CUPTI_ACTIVITY_KIND_INSTANTANEOUS_METRIC_INSTANCE:
		return true;
	default:
		return false;
	}
}

/* the value's type of each attribute: uint8_t for these, size_t for the rest */
static size_t attr_size(CUpti_ActivityAttribute attr)
{
	switch (attr) {
	case CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER:
	case CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED:
	case CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER:
		return sizeof(uint8_t);
	default:
		return sizeof(size_t);
	}
}

/* callback ids per domain */
static uint32_t domain_size(CUpti_CallbackDomain domain)
{
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API:
		return CUPTI_DRIVER_TRACE_CBID_SIZE;
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		return CUPTI_RUNTIME_TRACE_CBID_SIZE;
	case CUPTI_CB_DOMAIN_RESOURCE:
		return CUPTI_CBID_RESOURCE_SIZE;
	case CUPTI_CB_DOMAIN_SYNCHRONIZE:
		return CUPTI_CBID_SYNCHRONIZE_SIZE;
	case CUPTI_CB_DOMAIN_NVTX:
		return CUPTI_CBID_NVTX_SIZE;
	case CUPTI_CB_DOMAIN_STATE:
		return CUPTI_CBID_STATE_SIZE;
	default:
		return 0;
	}
}

static size_t align_up(size_t n)
{
	return (n + FAKE_ALIGN - 1) & ~(size_t)(FAKE_ALIGN - 1);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- state and configuration ---- */

/* What a detach forgets (cuptiFinalize) and a fresh load starts with. */
static void detach_locked(void)
{
	st.requested = NULL;
	st.completed = NULL;
	memset(st.enabled, 0, sizeof(st.enabled));
	memset(st.rt_api, -1, sizeof(st.rt_api));
	memset(st.drv_api, -1, sizeof(st.drv_api));
	st.attr[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE] = 3200000;
	st.attr[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_CDP] = 8388608;
	st.attr[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT] = 250;
	st.attr[CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE] = 25000;
	st.attr[CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_LIMIT] = 250;
	st.attr[CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER] = 0;
	st.attr[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE] = 3;
	st.attr[CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_PRE_ALLOCATE_VALUE] = 3;
	st.attr[CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED] = 0;
	st.attr[CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER] = 1;
	st.attr[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS] = 16777216;
	st.flush_period_ms = 0;
	/* not known to outlive a finalize in CUPTI: the client sets it at each attach */
	st.tid_type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
	memset(&st.cur, 0, sizeof(st.cur));
	memset(st.thr, 0, sizeof(st.thr));
	st.nthr = 0;
	st.subscribed = false;
	st.sub_fn = NULL;
	st.sub_userdata = NULL;
	memset(st.cb_on, 0, sizeof(st.cb_on));
	st_gen++;
}

static void state_init_locked(void)
{
	memset(&st, 0, sizeof(st));
	detach_locked();
	st_fresh = false;
}

/* A decimal number in [p, end), 1..INT_MAX; false when empty or malformed. */
static bool parse_code(const char *p, const char *end, CUptiResult *out)
{
	long long v = 0;

	if (p >= end)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return false;
	}
	if (v == 0)
		return false;
	*out = (CUptiResult)v;
	return true;
}

static int fn_lookup(const char *p, size_t len)
{
	int i;

	for (i = 0; i < FN_COUNT; i++)
		if (strlen(fn_names[i]) == len && memcmp(fn_names[i], p, len) == 0)
			return i;
	return -1;
}

/* FAKE_CUPTI_FAIL: NAME[:CODE] items; a bad one is reported and skipped */
static void config_read_locked(void)
{
	const char *v = getenv("FAKE_CUPTI_FAIL"), *p, *end, *colon;
	const char *nk = getenv("FAKE_CUPTI_NO_KINDS");
	const char *order = getenv("FAKE_CUPTI_ORDER");

	st.config_read = true;
	st.order = FAKE_ORDER_ONE;
	if (order && !strcmp(order, "device-first")) {
		st.order = FAKE_ORDER_DEVICE_FIRST;
	} else if (order && !strcmp(order, "api-first")) {
		st.order = FAKE_ORDER_API_FIRST;
	} else if (order && *order && strcmp(order, "one") != 0) {
		fprintf(stderr,
		        "fake-cupti: FAKE_CUPTI_ORDER: \"%s\" is not one, device-first or "
		        "api-first\n",
		        order);
		st.config_error = true;
	}
	for (p = nk; p && *p;) {
		char *e;
		unsigned long k = strtoul(p, &e, 10);

		if (e == p || k >= CUPTI_ACTIVITY_KIND_COUNT || (*e && *e != ',')) {
			fprintf(stderr, "fake-cupti: FAKE_CUPTI_NO_KINDS: bad list \"%s\"\n", nk);
			st.config_error = true;
			break;
		}
		st.refused[k] = true;
		p = *e ? e + 1 : e;
	}
	if (!v || !*v)
		return;
	for (p = v;; p = end + 1) {
		CUptiResult code = FAKE_DEFAULT_ERR;
		int fn;

		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		colon = memchr(p, ':', (size_t)(end - p));
		fn = fn_lookup(p, (size_t)((colon ? colon : end) - p));
		if (fn < 0 || (colon && !parse_code(colon + 1, end, &code))) {
			fprintf(
			    stderr,
			    "fake-cupti: FAKE_CUPTI_FAIL: bad item \"%.*s\" (NAME[:CODE], NAME a "
			    "CUPTI function of the fake, CODE 1..%d)\n",
			    (int)(end - p), p, INT_MAX);
			st.config_error = true;
		} else {
			st.fail[fn].on = true;
			st.fail[fn].code = code;
		}
		if (!*end)
			return;
	}
}

static void ensure_state_locked(void)
{
	if (st_fresh)
		state_init_locked();
}

/* Entry of every CUPTI function: counts the call, applies FAKE_CUPTI_FAIL. */
static CUptiResult enter_locked(enum fake_fn fn)
{
	ensure_state_locked();
	if (!st.config_read)
		config_read_locked();
	st.ncalls[fn]++;
	return st.fail[fn].on ? st.fail[fn].code : CUPTI_SUCCESS;
}

static CUptiResult enter_only(enum fake_fn fn)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(fn);
	pthread_mutex_unlock(&st_lock);
	return r;
}

/* The calling thread's stacks, emptied when finalize or reset came in between. */
static struct fake_tls *tls_get_locked(void)
{
	if (tls.gen != st_gen) {
		memset(&tls, 0, sizeof(tls));
		tls.gen = st_gen;
	}
	return &tls;
}

/* ---- fork ---- */

static void fork_prepare(void)
{
	pthread_mutex_lock(&st_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&st_lock);
}

static void fork_child(void)
{
	/* only this thread exists now: whoever owned the buffer slot is gone */
	slot_busy = false;
	pthread_cond_init(&slot_cond, NULL);
	pthread_mutex_unlock(&st_lock);
}

/* glibc drops these handlers when the library is dlclosed */
__attribute__((constructor)) static void fake_load(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- the buffer slot ---- */

/* Takes the current buffer; false when this thread holds it already (a buffer callback). */
static bool slot_take_locked(void)
{
	pthread_t self = pthread_self();

	while (slot_busy) {
		if (pthread_equal(slot_owner, self))
			return false;
		pthread_cond_wait(&slot_cond, &st_lock);
	}
	slot_busy = true;
	slot_owner = self;
	return true;
}

static void slot_give_locked(void)
{
	slot_busy = false;
	pthread_cond_broadcast(&slot_cond);
}

/* Hands @p b to bufferCompleted, without the lock (the slot is held). */
static void complete_locked(const struct fake_buf *b)
{
	CUpti_BuffersCallbackCompleteFunc cb = st.completed;

	st.buffers_completed++;
	pthread_mutex_unlock(&st_lock);
	if (cb)
		cb(NULL, 0, b->p, b->size, b->used);
	pthread_mutex_lock(&st_lock);
}

/*
 * Asks bufferRequested for a buffer that takes a record of @p need bytes and
 * makes it *@p dst; false when there is none (NULL, misaligned, too small:
 * the last two are handed back empty).
 */
static bool request_locked(struct fake_buf *dst, size_t need)
{
	CUpti_BuffersCallbackRequestFunc cb = st.requested;
	struct fake_buf b = { 0 };

	if (!cb)
		return false;
	pthread_mutex_unlock(&st_lock);
	cb(&b.p, &b.size, &b.maxrec);
	pthread_mutex_lock(&st_lock);
	st.buffers_requested++;
	if (!b.p)
		return false;
	if ((uintptr_t)b.p % FAKE_ALIGN != 0 || b.size < need) {
		st.buffers_rejected++;
		b.used = 0;
		complete_locked(&b);
		return false;
	}
	*dst = b;
	return true;
}

/* API records: in a per-thread buffer when CUPTI keeps those */
static bool api_kind(CUpti_ActivityKind kind)
{
	return kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER ||
	       kind == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API;
}

static bool per_thread_locked(void)
{
	return st.order != FAKE_ORDER_ONE &&
	       st.attr[CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER] != 0;
}

/* The current buffer a record of @p kind emitted by this thread goes to (slot held). */
static struct fake_buf *buf_for_locked(CUpti_ActivityKind kind)
{
	struct fake_tls *t;

	if (!per_thread_locked() || !api_kind(kind))
		return &st.cur;
	t = tls_get_locked();
	if (!t->tbuf) {
		if (st.nthr < FAKE_MAX_THREADS)
			st.nthr++;
		t->tbuf = st.nthr; /* past the limit, the last one is shared */
	}
	return &st.thr[t->tbuf - 1];
}

/*
 * Completes every current buffer in FAKE_CUPTI_ORDER's order (slot held):
 * a flush (@p lose false: the buffers that hold a record), or a finalize
 * (@p lose: every buffer goes back empty, its records counted as lost).
 */
static void complete_all_locked(bool lose)
{
	size_t n = st.nthr + 1;

	for (size_t i = 0; i < n; i++) {
		/* device-first and one: the device buffer (index 0 of the walk) first */
		size_t k = st.order == FAKE_ORDER_API_FIRST ? (i + 1) % n : i;
		struct fake_buf *cur = k == 0 ? &st.cur : &st.thr[k - 1];
		struct fake_buf b = *cur;

		if (!b.p || (!lose && b.nrec == 0))
			continue;
		memset(cur, 0, sizeof(*cur));
		if (lose) {
			st.records_lost += b.nrec;
			b.used = 0;
		}
		complete_locked(&b);
	}
}

/* ---- version, results, clock ---- */

CUptiResult cuptiGetVersion(uint32_t *version)
{
	CUptiResult r = enter_only(FN_cuptiGetVersion);

	if (r)
		return r;
	if (!version)
		return CUPTI_ERROR_INVALID_PARAMETER;
	{
		const char *v = getenv("FAKE_CUPTI_VERSION");

		*version = v && *v ? (uint32_t)strtoul(v, NULL, 10) : CUPTI_API_VERSION;
	}
	return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
	CUptiResult r = enter_only(FN_cuptiGetResultString);

	if (r)
		return r;
	if (!str)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (result == CUPTI_ERROR_UNKNOWN) {
		*str = "CUPTI_ERROR_UNKNOWN";
		return CUPTI_SUCCESS;
	}
	if ((unsigned)result < sizeof(result_names) / sizeof(result_names[0]) &&
	    result_names[result]) {
		*str = result_names[result];
		return CUPTI_SUCCESS;
	}
	/* the header: INVALID_PARAMETER for a code that is not a CUptiResult */
	*str = "CUPTI_ERROR_UNKNOWN";
	return CUPTI_ERROR_INVALID_PARAMETER;
}

static uint64_t now_ns(CUpti_TimestampCallbackFunc fn)
{
	return fn ? fn() : realtime_ns();
}

uint64_t fake_cupti_now(void)
{
	CUpti_TimestampCallbackFunc fn;

	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	fn = st.ts_rec_fn;
	pthread_mutex_unlock(&st_lock);
	return now_ns(fn);
}

CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
	CUpti_TimestampCallbackFunc fn;
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiGetTimestamp);
	fn = st.ts_fn;
	pthread_mutex_unlock(&st_lock);
	if (r)
		return r;
	if (!timestamp)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*timestamp = now_ns(fn);
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityRegisterTimestampCallback);
	if (r)
		goto out;
	if (!funcTimestamp) {
		r = CUPTI_ERROR_INVALID_PARAMETER;
		goto out;
	}
	if (st.ts_calls++ == 0)
		st.ts_before_enable = !st.any_enabled;
	st.ts_fn = funcTimestamp;
	st.ts_rec_fn = funcTimestamp;
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

/* ---- activity: setup ---- */

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                           CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityRegisterCallbacks);
	if (r)
		goto out;
	if (!funcBufferRequested || !funcBufferCompleted) {
		r = CUPTI_ERROR_INVALID_PARAMETER;
		goto out;
	}
	st.requested = funcBufferRequested;
	st.completed = funcBufferCompleted;
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

static CUptiResult set_kind(enum fake_fn fn, CUpti_ActivityKind kind, bool on)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(fn);
	if (r)
		goto out;
	if ((int)kind <= (int)CUPTI_ACTIVITY_KIND_INVALID ||
	    (int)kind >= (int)CUPTI_ACTIVITY_KIND_COUNT) {
		r = CUPTI_ERROR_INVALID_KIND;
		goto out;
	}
	if (kind_legacy(kind)) {
		r = CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED;
		goto out;
	}
	if (on && st.refused[kind]) {
		r = CUPTI_ERROR_NOT_SUPPORTED;
		goto out;
	}
	st.enabled[kind] = on;
	if (on)
		st.any_enabled = true;
	/* a later kind setting overrides cuptiActivityEnable{Runtime,Driver}Api */
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		memset(st.rt_api, -1, sizeof(st.rt_api));
	else if (kind == CUPTI_ACTIVITY_KIND_DRIVER)
		memset(st.drv_api, -1, sizeof(st.drv_api));
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	return set_kind(FN_cuptiActivityEnable, kind, true);
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	return set_kind(FN_cuptiActivityDisable, kind, false);
}

static CUptiResult set_api(enum fake_fn fn, int8_t *tab, uint32_t n, CUpti_CallbackId cbid,
                           uint8_t enable)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(fn);
	if (!r && (cbid == 0 || cbid >= n))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r)
		tab[cbid] = enable ? 1 : 0;
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return set_api(FN_cuptiActivityEnableDriverApi, st.drv_api, CUPTI_DRIVER_TRACE_CBID_SIZE,
	               cbid, enable);
}

CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return set_api(FN_cuptiActivityEnableRuntimeApi, st.rt_api, CUPTI_RUNTIME_TRACE_CBID_SIZE,
	               cbid, enable);
}

static CUptiResult attr_check(CUpti_ActivityAttribute attr, size_t *valueSize, void *value)
{
	if (!valueSize || !value || (int)attr < 0 || (int)attr >= FAKE_ATTR_COUNT)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (*valueSize < attr_size(attr))
		return CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *valueSize, void *value)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivitySetAttribute);
	if (!r)
		r = attr_check(attr, valueSize, value);
	if (!r) {
		if (attr_size(attr) == sizeof(uint8_t)) {
			st.attr[attr] = *(const uint8_t *)value;
		} else {
			size_t v;

			memcpy(&v, value, sizeof(v));
			st.attr[attr] = v;
		}
	}
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiActivityGetAttribute(CUpti_ActivityAttribute attr, size_t *valueSize, void *value)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityGetAttribute);
	if (!r)
		r = attr_check(attr, valueSize, value);
	if (!r) {
		if (attr_size(attr) == sizeof(uint8_t)) {
			*(uint8_t *)value = (uint8_t)st.attr[attr];
		} else {
			size_t v = (size_t)st.attr[attr];

			memcpy(value, &v, sizeof(v));
		}
		*valueSize = attr_size(attr);
	}
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiActivityFlushPeriod(uint32_t time)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityFlushPeriod);
	if (!r)
		st.flush_period_ms = time;
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiSetThreadIdType);
	if (!r && type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT &&
	    type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r)
		st.tid_type = type;
	pthread_mutex_unlock(&st_lock);
	return r;
}

uint32_t fake_cupti_thread_id(void)
{
	CUpti_ActivityThreadIdType type;
	pthread_t self = pthread_self();
	uint32_t low;

	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	type = st.tid_type;
	pthread_mutex_unlock(&st_lock);
	if (type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return (uint32_t)syscall(SYS_gettid);
	/* CUPTI's default on Linux: pthread_self(), cut to 32 bits (as Kineto reads it) */
	memcpy(&low, &self, sizeof(low));
	return low;
}

/* ---- activity: records and buffers ---- */

/* Whether CUPTI would record @p rec of @p kind now. */
static bool recorded_locked(const void *rec, CUpti_ActivityKind kind)
{
	const int8_t *tab = NULL;
	uint32_t n = 0;
	CUpti_CallbackId cbid;

	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
		tab = st.rt_api;
		n = CUPTI_RUNTIME_TRACE_CBID_SIZE;
	} else if (kind == CUPTI_ACTIVITY_KIND_DRIVER) {
		tab = st.drv_api;
		n = CUPTI_DRIVER_TRACE_CBID_SIZE;
	}
	if (tab) {
		memcpy(&cbid, (const uint8_t *)rec + offsetof(CUpti_ActivityAPI, cbid),
		       sizeof(cbid));
		if (cbid < n && tab[cbid] >= 0)
			return tab[cbid] == 1;
	}
	return st.enabled[kind];
}

static bool fits(const struct fake_buf *b, size_t need)
{
	return b->size - b->used >= need && (b->maxrec == 0 || b->nrec < b->maxrec);
}

int fake_cupti_emit(const void *record, size_t size)
{
	CUpti_ActivityKind kind;
	struct fake_buf *cur;
	size_t need;
	int ret;

	if (!record || size < sizeof(kind))
		return FAKE_CUPTI_BAD_RECORD;
	memcpy(&kind, record, sizeof(kind));
	if (fake_cupti_record_size(kind) == 0 || size != fake_cupti_record_size(kind))
		return FAKE_CUPTI_BAD_RECORD;
	need = align_up(size);

	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	if (!recorded_locked(record, kind)) {
		st.records_not_enabled++;
		ret = FAKE_CUPTI_NOT_ENABLED;
		goto out;
	}
	if (!slot_take_locked()) {
		ret = FAKE_CUPTI_BUSY;
		goto out;
	}
	/* the slot is held: cur stays where it is while the callbacks run unlocked */
	cur = buf_for_locked(kind);
	for (;;) {
		if (cur->p && fits(cur, need)) {
			memcpy(cur->p + cur->used, record, size);
			memset(cur->p + cur->used + size, 0, need - size);
			cur->used += need;
			cur->nrec++;
			st.records_emitted++;
			ret = FAKE_CUPTI_RECORDED;
			break;
		}
		if (cur->p) {
			struct fake_buf full = *cur;

			memset(cur, 0, sizeof(*cur));
			complete_locked(&full);
			continue;
		}
		if (!request_locked(cur, need)) {
			st.records_dropped++;
			st.dropped_pending++;
			ret = FAKE_CUPTI_DROPPED;
			break;
		}
	}
	slot_give_locked();
out:
	pthread_mutex_unlock(&st_lock);
	return ret;
}

void fake_cupti_add_dropped(size_t n)
{
	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	st.records_dropped += n;
	st.dropped_pending += n;
	pthread_mutex_unlock(&st_lock);
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityFlushAll);
	if (r)
		goto out;
	if (!st.completed || !slot_take_locked()) {
		r = CUPTI_ERROR_INVALID_OPERATION;
		goto out;
	}
	if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
		st.flushes_forced++;
	else
		st.flushes_unforced++;
	/* every record of the fake is complete, so a plain flush returns it as well */
	complete_all_locked(false);
	slot_give_locked();
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes,
                                       CUpti_Activity **record)
{
	CUpti_ActivityKind kind;
	size_t off, size;
	CUptiResult r = enter_only(FN_cuptiActivityGetNextRecord);

	if (r)
		return r;
	if (!buffer || !record)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (!*record) {
		off = 0;
	} else {
		uint8_t *prev = (uint8_t *)*record;

		/* the previous record must be one this walk returned */
		if (prev < buffer || (size_t)(prev - buffer) >= validBufferSizeBytes ||
		    (size_t)(prev - buffer) % FAKE_ALIGN != 0)
			return CUPTI_ERROR_INVALID_PARAMETER;
		off = (size_t)(prev - buffer);
		memcpy(&kind, prev, sizeof(kind));
		size = fake_cupti_record_size(kind);
		if (size == 0 || size > validBufferSizeBytes - off)
			return CUPTI_ERROR_INVALID_KIND;
		off += align_up(size);
		if (off > validBufferSizeBytes)
			off = validBufferSizeBytes;
	}
	if (off == validBufferSizeBytes)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	if (validBufferSizeBytes - off < sizeof(kind))
		return CUPTI_ERROR_INVALID_KIND;
	memcpy(&kind, buffer + off, sizeof(kind));
	size = fake_cupti_record_size(kind);
	if (size == 0 || size > validBufferSizeBytes - off)
		return CUPTI_ERROR_INVALID_KIND;
	*record = (CUpti_Activity *)(void *)(buffer + off);
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId, size_t *dropped)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityGetNumDroppedRecords);
	if (!r && !dropped)
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		/* one global queue: the count for a context or stream is the same */
		*dropped = st.dropped_pending;
		st.dropped_pending = 0;
	}
	pthread_mutex_unlock(&st_lock);
	return r;
}

/* ---- callback API ---- */

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
	const char *s = NULL;
	CUptiResult r = enter_only(FN_cuptiGetCallbackName);

	if (r)
		return r;
	if (!name)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		s = rt_names[cbid];
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		s = drv_names[cbid];
	if (!s)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = s;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                           void *userdata)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiSubscribe);
	if (r)
		goto out;
	if (!subscriber) {
		r = CUPTI_ERROR_INVALID_PARAMETER;
		goto out;
	}
	if (st.subscribed) {
		r = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
		goto out;
	}
	st.subscribed = true;
	st.sub_fn = callback;
	st.sub_userdata = userdata;
	memset(st.cb_on, 0, sizeof(st.cb_on));
	*subscriber = &fake_subscriber;
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiUnsubscribe);
	if (!r && (!st.subscribed || subscriber != &fake_subscriber))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		st.subscribed = false;
		st.sub_fn = NULL;
		st.sub_userdata = NULL;
		memset(st.cb_on, 0, sizeof(st.cb_on));
	}
	pthread_mutex_unlock(&st_lock);
	return r;
}

/* checks of cuptiEnableCallback and cuptiEnableDomain */
static bool sub_ok_locked(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain)
{
	return st.subscribed && subscriber == &fake_subscriber && domain_size(domain) > 0;
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiEnableCallback);
	if (!r && (!sub_ok_locked(subscriber, domain) || cbid >= domain_size(domain)))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r)
		st.cb_on[domain][cbid] = enable != 0;
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                              CUpti_CallbackDomain domain)
{
	CUptiResult r;
	uint32_t i;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiEnableDomain);
	if (!r && !sub_ok_locked(subscriber, domain))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r)
		for (i = 0; i < domain_size(domain); i++)
			st.cb_on[domain][i] = enable != 0;
	pthread_mutex_unlock(&st_lock);
	return r;
}

void fake_cupti_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         CUpti_ApiCallbackSite site, const char *functionName)
{
	CUpti_CallbackData d;
	CUpti_CallbackFunc fn = NULL;
	struct fake_tls *t;
	void *userdata = NULL;
	size_t slot;

	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	memset(&d, 0, sizeof(d));
	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	/*
	 * An ENTER pushes a new correlation id and a zeroed correlationData, its
	 * EXIT pops them, whether or not a callback is enabled, so that nested
	 * calls (a runtime call making driver calls) pair up as in CUPTI.
	 */
	t = tls_get_locked();
	if (site == CUPTI_API_ENTER) {
		slot = t->call_depth < FAKE_CALL_DEPTH ? t->call_depth++ : FAKE_CALL_DEPTH;
		t->call[slot].corr = ++st.next_corr;
		t->call[slot].data = 0;
	} else if (t->call_depth > 0) {
		slot = --t->call_depth;
	} else {
		slot = FAKE_CALL_DEPTH;
		t->call[slot].corr = ++st.next_corr;
		t->call[slot].data = 0;
	}
	if (st.subscribed && st.sub_fn && cbid < domain_size(domain) && st.cb_on[domain][cbid]) {
		fn = st.sub_fn;
		userdata = st.sub_userdata;
		st.callbacks_delivered++;
	}
	pthread_mutex_unlock(&st_lock);
	if (!fn)
		return;
	d.callbackSite = site;
	d.functionName = functionName;
	d.correlationId = t->call[slot].corr;
	d.correlationData = &t->call[slot].data;
	fn(userdata, domain, cbid, &d);
}

/* ---- finalize, external correlation ---- */

CUptiResult cuptiFinalize(void)
{
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiFinalize);
	if (r)
		goto out;
	if (!slot_take_locked()) {
		r = CUPTI_ERROR_INVALID_OPERATION;
		goto out;
	}
	st.finalize_calls++;
	/*
	 * Seen with CUPTI 13.0 on an H200 (2026-11-28): after a finalize and a new
	 * attach, cuptiGetTimestamp still read the registered clock, yet the
	 * records were on CUPTI's own until the callback was registered again.
	 */
	st.ts_rec_fn = NULL;
	/* the client's memory goes back to it, the records do not */
	complete_all_locked(true);
	detach_locked();
	slot_give_locked();
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

static bool ext_kind_ok(CUpti_ExternalCorrelationKind kind)
{
	return (int)kind > (int)CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
	       (int)kind < (int)CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id)
{
	struct fake_tls *t;
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityPushExternalCorrelationId);
	if (!r && !ext_kind_ok(kind))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		t = tls_get_locked();
		if (t->ext_depth[kind] == FAKE_EXT_DEPTH)
			r = CUPTI_ERROR_MAX_LIMIT_REACHED;
		else
			t->ext[kind][t->ext_depth[kind]++] = id;
	}
	pthread_mutex_unlock(&st_lock);
	return r;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                  uint64_t *lastId)
{
	struct fake_tls *t;
	CUptiResult r;

	pthread_mutex_lock(&st_lock);
	r = enter_locked(FN_cuptiActivityPopExternalCorrelationId);
	if (!r && !ext_kind_ok(kind))
		r = CUPTI_ERROR_INVALID_PARAMETER;
	if (!r) {
		t = tls_get_locked();
		if (t->ext_depth[kind] == 0) {
			r = CUPTI_ERROR_QUEUE_EMPTY;
		} else {
			uint64_t id = t->ext[kind][--t->ext_depth[kind]];

			if (lastId)
				*lastId = id;
		}
	}
	pthread_mutex_unlock(&st_lock);
	return r;
}

/* ---- control API ---- */

void fake_cupti_get_state(struct fake_cupti_state *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	out->ts_registered = st.ts_fn != NULL;
	out->ts_register_calls = st.ts_calls;
	out->ts_before_enable = st.ts_calls > 0 && st.ts_before_enable;
	out->any_enabled = st.any_enabled;
	out->callbacks_registered = st.requested != NULL;
	memcpy(out->enabled, st.enabled, sizeof(out->enabled));
	out->flush_period_ms = st.flush_period_ms;
	out->flushes_forced = st.flushes_forced;
	out->flushes_unforced = st.flushes_unforced;
	out->buffers_requested = st.buffers_requested;
	out->buffers_completed = st.buffers_completed;
	out->buffers_rejected = st.buffers_rejected;
	out->records_emitted = st.records_emitted;
	out->records_dropped = st.records_dropped;
	out->records_not_enabled = st.records_not_enabled;
	out->records_lost = st.records_lost;
	out->dropped_pending = st.dropped_pending;
	out->cur_records = st.cur.nrec;
	out->cur_bytes = st.cur.used;
	for (size_t i = 0; i < st.nthr; i++) {
		out->cur_records += st.thr[i].nrec;
		out->cur_bytes += st.thr[i].used;
	}
	out->thread_buffers = st.nthr;
	out->subscribed = st.subscribed;
	out->callbacks_delivered = st.callbacks_delivered;
	out->finalize_calls = st.finalize_calls;
	out->config_error = st.config_error;
	pthread_mutex_unlock(&st_lock);
}

int fake_cupti_api_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	int v = -1;

	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		v = st.rt_api[cbid];
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		v = st.drv_api[cbid];
	pthread_mutex_unlock(&st_lock);
	return v;
}

int fake_cupti_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	int v = 0;

	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	if (st.subscribed && cbid < domain_size(domain))
		v = st.cb_on[domain][cbid];
	pthread_mutex_unlock(&st_lock);
	return v;
}

size_t fake_cupti_external_depth(CUpti_ExternalCorrelationKind kind, uint64_t *top)
{
	struct fake_tls *t;
	size_t depth = 0;

	if (!ext_kind_ok(kind))
		return 0;
	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	t = tls_get_locked();
	depth = t->ext_depth[kind];
	if (top && depth > 0)
		*top = t->ext[kind][depth - 1];
	pthread_mutex_unlock(&st_lock);
	return depth;
}

long long fake_cupti_calls(const char *name)
{
	long long n;
	int fn;

	if (!name)
		return -1;
	fn = fn_lookup(name, strlen(name));
	if (fn < 0)
		return -1;
	pthread_mutex_lock(&st_lock);
	ensure_state_locked();
	n = (long long)st.ncalls[fn];
	pthread_mutex_unlock(&st_lock);
	return n;
}

void fake_cupti_reset(void)
{
	pthread_mutex_lock(&st_lock);
	state_init_locked();
	pthread_mutex_unlock(&st_lock);
}
