/* SPDX-License-Identifier: MIT */
/*
 * test_fake_cupti.c - tests of the fake CUPTI (tests/fake/fake-cupti.c) that
 * the injected tracer's tests rely on: dlopens $GP_FAKE_CUPTI_DIR/libfake-cupti.so
 * as the tracer does (skips with 77 when the variable is unset), reaches the
 * control API through an RTLD_NOLOAD handle, and plays the tracer's part: a
 * timestamp callback, buffer callbacks that walk every completed buffer with
 * cuptiActivityGetNextRecord into a store, a subscriber. Each test starts
 * from fake_cupti_reset() with FAKE_CUPTI_FAIL unset and frees the buffers the
 * fake still held.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake-cupti.h"
#include "util/error.h"

struct cupti {
#define FN_PTR(ret, name, params) ret(*name) params;
	FAKE_CUPTI_FUNCS(FN_PTR)
	FAKE_CUPTI_CONTROL_FUNCS(FN_PTR)
#undef FN_PTR
};

static const char *const all_names[] = {
#define FN_NAME(ret, name, params) #name,
	FAKE_CUPTI_FUNCS(FN_NAME) FAKE_CUPTI_CONTROL_FUNCS(FN_NAME)
#undef FN_NAME
};

static const char *fake_dir;
static char lib_path[PATH_MAX];
static void *lib, *ctl;
static struct cupti F;

/* ---- the tracer's part: buffers and a store of the records read back ---- */

#define MAX_RECS  4096
#define MAX_BUFS  64
#define MAX_DONE  256
#define REC_BYTES 512

enum buf_mode { BUF_OK, BUF_NULL, BUF_MISALIGNED };

struct rec {
	CUpti_ActivityKind kind;
	_Alignas(8) unsigned char bytes[REC_BYTES]; /* the record structs are 8-byte aligned */
};

static pthread_mutex_t tu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	enum buf_mode mode;
	size_t size, maxrec;
	/* buffers handed out and not yet completed: what was given, what to free */
	struct {
		uint8_t *given, *base;
		size_t size;
	} live[MAX_BUFS];
	size_t nlive;
	size_t done_valid[MAX_DONE]; /* validSize of each completion, in order */
	size_t ndone;
	struct rec recs[MAX_RECS];
	size_t nrecs;
	CUptiResult last_walk; /* how the last walk ended */
	int errors;            /* callbacks may run on other threads: no cmocka asserts there */
} tu;

/* test_fork: bufferCompleted parks its thread while park_block is set */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static bool park_block, park_parked;

static void park(void)
{
	pthread_mutex_lock(&park_lock);
	if (park_block) {
		park_parked = true;
		pthread_cond_broadcast(&park_cond);
		while (park_block)
			pthread_cond_wait(&park_cond, &park_lock);
	}
	pthread_mutex_unlock(&park_lock);
}

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *maxNumRecords)
{
	pthread_mutex_lock(&tu_lock);
	*buffer = NULL;
	*size = 0;
	*maxNumRecords = tu.maxrec;
	if (tu.mode != BUF_NULL && tu.nlive < MAX_BUFS) {
		void *mem = NULL;
		uint8_t *base;

		if (posix_memalign(&mem, 8, tu.size + 8) != 0) {
			tu.errors++;
			pthread_mutex_unlock(&tu_lock);
			return;
		}
		base = mem;
		*buffer = tu.mode == BUF_MISALIGNED ? base + 4 : base;
		*size = tu.size;
		tu.live[tu.nlive].given = *buffer;
		tu.live[tu.nlive].base = base;
		tu.live[tu.nlive].size = tu.size;
		tu.nlive++;
	}
	pthread_mutex_unlock(&tu_lock);
}

static void buffer_completed(CUcontext ctx, uint32_t streamId, uint8_t *buffer, size_t size,
                             size_t validSize)
{
	CUpti_Activity *r = NULL;
	CUptiResult st;
	size_t i;

	park();
	/* F is read-only here; the walk runs without our lock, as a tracer's would */
	while ((st = F.cuptiActivityGetNextRecord(buffer, validSize, &r)) == CUPTI_SUCCESS) {
		size_t n = F.fake_cupti_record_size(r->kind);

		pthread_mutex_lock(&tu_lock);
		if (tu.nrecs < MAX_RECS) {
			tu.recs[tu.nrecs].kind = r->kind;
			memcpy(tu.recs[tu.nrecs].bytes, r, n < REC_BYTES ? n : REC_BYTES);
			tu.nrecs++;
		}
		pthread_mutex_unlock(&tu_lock);
	}
	pthread_mutex_lock(&tu_lock);
	if (ctx || streamId != 0)
		tu.errors++;
	tu.last_walk = st;
	if (tu.ndone < MAX_DONE)
		tu.done_valid[tu.ndone++] = validSize;
	for (i = 0; i < tu.nlive; i++) {
		if (tu.live[i].given == buffer) {
			if (size != tu.live[i].size)
				tu.errors++;
			free(tu.live[i].base);
			tu.live[i] = tu.live[--tu.nlive];
			break;
		}
	}
	if (i > tu.nlive)
		tu.errors++; /* not a buffer we gave */
	pthread_mutex_unlock(&tu_lock);
}

static atomic_uint_fast64_t clock_ticks;

static uint64_t test_clock(void)
{
	return 1000000 + atomic_fetch_add(&clock_ticks, 1);
}

/* ---- setup ---- */

static int group_setup(void **state)
{
	(void)state;
	snprintf(lib_path, sizeof(lib_path), "%s/libfake-cupti.so", fake_dir);
	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fail_msg("dlopen %s: %s", lib_path, dlerror());
	/* how a test program reaches the control API of the library the tracer loaded */
	ctl = dlopen(lib_path, RTLD_NOW | RTLD_NOLOAD);
	if (!ctl)
		fail_msg("dlopen %s (RTLD_NOLOAD): %s", lib_path, dlerror());
#define FN_LOAD(ret, name, params) *(void **)&F.name = dlsym(lib, #name);
	FAKE_CUPTI_FUNCS(FN_LOAD)
#undef FN_LOAD
#define FN_LOAD(ret, name, params) *(void **)&F.name = dlsym(ctl, #name);
	FAKE_CUPTI_CONTROL_FUNCS(FN_LOAD)
#undef FN_LOAD
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	dlclose(ctl);
	dlclose(lib);
	return 0;
}

static void free_live(void)
{
	size_t i;

	for (i = 0; i < tu.nlive; i++)
		free(tu.live[i].base);
	tu.nlive = 0;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("FAKE_CUPTI_FAIL");
	unsetenv("FAKE_CUPTI_ORDER");
	F.fake_cupti_reset();
	free_live();
	memset(&tu, 0, sizeof(tu));
	tu.mode = BUF_OK;
	tu.size = 4096;
	atomic_store(&clock_ticks, 0);
	return 0;
}

static int teardown(void **state)
{
	int errors = tu.errors;

	(void)state;
	unsetenv("FAKE_CUPTI_FAIL");
	unsetenv("FAKE_CUPTI_ORDER");
	F.fake_cupti_reset();
	free_live();
	if (errors)
		fprintf(stderr, "%d errors in the buffer callbacks\n", errors);
	return errors ? -1 : 0;
}

static struct fake_cupti_state get_state(void)
{
	struct fake_cupti_state s;

	F.fake_cupti_get_state(&s);
	return s;
}

static void start_activity(size_t size, size_t maxrec)
{
	tu.size = size;
	tu.maxrec = maxrec;
	assert_int_equal(F.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
	                 CUPTI_SUCCESS);
}

static void enable(CUpti_ActivityKind kind)
{
	assert_int_equal(F.cuptiActivityEnable(kind), CUPTI_SUCCESS);
}

static CUpti_ActivityKernel10 kernel(uint32_t corr, const char *name)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = 5000 + corr * 100;
	k.end = k.start + 40;
	k.deviceId = 1;
	k.contextId = 2;
	k.streamId = 7;
	k.correlationId = corr;
	k.gridX = 128;
	k.blockX = 256;
	k.registersPerThread = 32;
	k.name = name;
	return k;
}

static CUpti_ActivityAPI api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, uint32_t corr)
{
	CUpti_ActivityAPI a;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.cbid = cbid;
	a.start = 4000 + corr;
	a.end = a.start + 10;
	a.processId = 42;
	a.threadId = 43;
	a.correlationId = corr;
	return a;
}

static void emit_ok(const void *rec, size_t size)
{
	assert_int_equal(F.fake_cupti_emit(rec, size), FAKE_CUPTI_RECORDED);
}

/* ---- tests ---- */

static void test_symbols(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(all_names); i++)
		if (!dlsym(lib, all_names[i]))
			fail_msg("libfake-cupti.so lacks %s", all_names[i]);
	assert_ptr_equal(ctl, lib);
	/* one file, one library: the control API sees the state the CUPTI calls made */
	assert_int_equal(F.fake_cupti_calls("cuptiGetVersion"), 0);
	{
		uint32_t v = 0;

		assert_int_equal(F.cuptiGetVersion(&v), CUPTI_SUCCESS);
		assert_int_equal(v, 130001);
		assert_int_equal(v, CUPTI_API_VERSION);
	}
	assert_int_equal(F.fake_cupti_calls("cuptiGetVersion"), 1);
	assert_int_equal(F.fake_cupti_calls("cuptiNoSuchFunction"), -1);
	assert_int_equal(F.cuptiGetVersion(NULL), CUPTI_ERROR_INVALID_PARAMETER);
}

static void test_result_strings(void **state)
{
	const char *s = NULL;

	(void)state;
	assert_int_equal(F.cuptiGetResultString(CUPTI_SUCCESS, &s), CUPTI_SUCCESS);
	assert_string_equal(s, "CUPTI_SUCCESS");
	assert_int_equal(F.cuptiGetResultString(CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED, &s),
	                 CUPTI_SUCCESS);
	assert_string_equal(s, "CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED");
	assert_int_equal(F.cuptiGetResultString(CUPTI_ERROR_INVALID_CHIP_NAME, &s), CUPTI_SUCCESS);
	assert_string_equal(s, "CUPTI_ERROR_INVALID_CHIP_NAME");
	assert_int_equal(F.cuptiGetResultString(CUPTI_ERROR_UNKNOWN, &s), CUPTI_SUCCESS);
	assert_string_equal(s, "CUPTI_ERROR_UNKNOWN");
	s = NULL;
	assert_int_equal(F.cuptiGetResultString((CUptiResult)47, &s),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_string_equal(s, "CUPTI_ERROR_UNKNOWN");
	assert_int_equal(F.cuptiGetResultString((CUptiResult)12345, &s),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_string_equal(s, "CUPTI_ERROR_UNKNOWN");
	assert_int_equal(F.cuptiGetResultString(CUPTI_SUCCESS, NULL),
	                 CUPTI_ERROR_INVALID_PARAMETER);
}

static uint64_t realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void test_timestamp(void **state)
{
	struct fake_cupti_state s;
	uint64_t before, t = 0, after;

	(void)state;
	/* no callback: CUPTI's default clock, CLOCK_REALTIME */
	before = realtime();
	assert_int_equal(F.cuptiGetTimestamp(&t), CUPTI_SUCCESS);
	after = realtime();
	assert_true(t >= before && t <= after);
	t = F.fake_cupti_now();
	assert_true(t >= before && t <= realtime());
	assert_int_equal(F.cuptiGetTimestamp(NULL), CUPTI_ERROR_INVALID_PARAMETER);
	s = get_state();
	assert_false(s.ts_registered);
	assert_false(s.ts_before_enable);

	/* the right order: registered once, then a kind enabled */
	assert_int_equal(F.cuptiActivityRegisterTimestampCallback(NULL),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiActivityRegisterTimestampCallback(test_clock), CUPTI_SUCCESS);
	enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	assert_int_equal(F.cuptiGetTimestamp(&t), CUPTI_SUCCESS);
	assert_int_equal(t, 1000000);
	assert_int_equal(F.fake_cupti_now(), 1000001);
	s = get_state();
	assert_true(s.ts_registered);
	assert_int_equal(s.ts_register_calls, 1);
	assert_true(s.ts_before_enable);
	assert_true(s.any_enabled);

	/* a second registration is counted; the first one's order stays */
	assert_int_equal(F.cuptiActivityRegisterTimestampCallback(test_clock), CUPTI_SUCCESS);
	s = get_state();
	assert_int_equal(s.ts_register_calls, 2);
	assert_true(s.ts_before_enable);

	/* the wrong order */
	F.fake_cupti_reset();
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	assert_int_equal(F.cuptiActivityRegisterTimestampCallback(test_clock), CUPTI_SUCCESS);
	s = get_state();
	assert_true(s.ts_registered);
	assert_int_equal(s.ts_register_calls, 1);
	assert_false(s.ts_before_enable);

	/* a failed enable does not count as one */
	F.fake_cupti_reset();
	assert_int_equal(F.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_METRIC),
	                 CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED);
	assert_int_equal(F.cuptiActivityRegisterTimestampCallback(test_clock), CUPTI_SUCCESS);
	assert_true(get_state().ts_before_enable);
}

static void test_enable(void **state)
{
	static const CUpti_ActivityKind legacy[] = {
		CUPTI_ACTIVITY_KIND_EVENT,
		CUPTI_ACTIVITY_KIND_METRIC,
		CUPTI_ACTIVITY_KIND_SOURCE_LOCATOR,
		CUPTI_ACTIVITY_KIND_GLOBAL_ACCESS,
		CUPTI_ACTIVITY_KIND_BRANCH,
		CUPTI_ACTIVITY_KIND_INSTRUCTION_EXECUTION,
		CUPTI_ACTIVITY_KIND_SHARED_ACCESS,
		CUPTI_ACTIVITY_KIND_PC_SAMPLING,
		CUPTI_ACTIVITY_KIND_PC_SAMPLING_RECORD_INFO,
		CUPTI_ACTIVITY_KIND_INSTRUCTION_CORRELATION,
		CUPTI_ACTIVITY_KIND_INSTANTANEOUS_EVENT,
		CUPTI_ACTIVITY_KIND_INSTANTANEOUS_EVENT_INSTANCE,
		CUPTI_ACTIVITY_KIND_INSTANTANEOUS_METRIC,
		CUPTI_ACTIVITY_KIND_INSTANTANEOUS_METRIC_INSTANCE,
	};
	struct fake_cupti_state s;
	size_t i;

	(void)state;
	enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	enable(CUPTI_ACTIVITY_KIND_MEMCPY);
	s = get_state();
	assert_true(s.enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]);
	assert_true(s.enabled[CUPTI_ACTIVITY_KIND_MEMCPY]);
	assert_false(s.enabled[CUPTI_ACTIVITY_KIND_KERNEL]);
	assert_int_equal(F.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
	s = get_state();
	assert_true(s.enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]);
	assert_false(s.enabled[CUPTI_ACTIVITY_KIND_MEMCPY]);

	for (i = 0; i < GP_ARRAY_SIZE(legacy); i++) {
		assert_int_equal(F.cuptiActivityEnable(legacy[i]),
		                 CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED);
		assert_int_equal(F.cuptiActivityDisable(legacy[i]),
		                 CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED);
		assert_false(get_state().enabled[legacy[i]]);
	}
	assert_int_equal(F.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_INVALID),
	                 CUPTI_ERROR_INVALID_KIND);
	assert_int_equal(F.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_COUNT),
	                 CUPTI_ERROR_INVALID_KIND);
	assert_int_equal(F.cuptiActivityEnable((CUpti_ActivityKind)-1), CUPTI_ERROR_INVALID_KIND);
	assert_int_equal(F.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_FORCE_INT),
	                 CUPTI_ERROR_INVALID_KIND);

	/* per-cbid settings, and a later kind setting clearing them */
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, 17), -1);
	assert_int_equal(F.cuptiActivityEnableRuntimeApi(17, 0), CUPTI_SUCCESS);
	assert_int_equal(F.cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1),
	                 CUPTI_SUCCESS);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, 17), 0);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_DRIVER_API, 307), 1);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_DRIVER_API, 652), -1);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_RESOURCE, 1), -1);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, 17), -1);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_DRIVER_API, 307), 1);
	assert_int_equal(F.cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_SIZE, 1),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiActivityEnableRuntimeApi(0, 1), CUPTI_ERROR_INVALID_PARAMETER);
}

static void test_attributes(void **state)
{
	size_t v = 0, sz = sizeof(v);
	uint8_t b = 9;

	(void)state;
	assert_int_equal(
	    F.cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v),
	    CUPTI_SUCCESS);
	assert_int_equal(v, 3200000);
	assert_int_equal(sz, sizeof(size_t));
	v = 8 << 20;
	assert_int_equal(
	    F.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v),
	    CUPTI_SUCCESS);
	v = 0;
	assert_int_equal(
	    F.cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v),
	    CUPTI_SUCCESS);
	assert_int_equal(v, 8 << 20);

	sz = sizeof(b);
	assert_int_equal(
	    F.cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &sz, &b),
	    CUPTI_SUCCESS);
	assert_int_equal(b, 1);
	b = 0;
	assert_int_equal(
	    F.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &sz, &b),
	    CUPTI_SUCCESS);
	b = 9;
	assert_int_equal(
	    F.cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &sz, &b),
	    CUPTI_SUCCESS);
	assert_int_equal(b, 0);

	sz = 4;
	assert_int_equal(
	    F.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v),
	    CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
	assert_int_equal(
	    F.cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v),
	    CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
	assert_int_equal(
	    F.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, NULL, &v),
	    CUPTI_ERROR_INVALID_PARAMETER);
	sz = sizeof(v);
	assert_int_equal(F.cuptiActivitySetAttribute((CUpti_ActivityAttribute)99, &sz, &v),
	                 CUPTI_ERROR_INVALID_PARAMETER);

	assert_int_equal(F.cuptiActivityFlushPeriod(250), CUPTI_SUCCESS);
	assert_int_equal(get_state().flush_period_ms, 250);
}

static void test_buffers(void **state)
{
	static const char kname[] = "_Z6kernelPfi";
	CUpti_ActivityKernel10 k = kernel(7, kname);
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityAPI a =
	    api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 7);
	CUpti_ActivityMarker2 mk;
	const CUpti_ActivityKernel10 *rk;
	const CUpti_ActivityMemcpy6 *rm;
	const CUpti_ActivityAPI *ra;
	struct fake_cupti_state s;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1 << 20;
	m.start = 9000;
	m.end = 9500;
	m.streamId = 7;
	m.correlationId = 8;
	m.runtimeCorrelationId = 9;
	memset(&mk, 0, sizeof(mk));
	mk.kind = CUPTI_ACTIVITY_KIND_MARKER;

	/* not enabled yet, and nowhere to go */
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_NOT_ENABLED);
	start_activity(4096, 0);
	enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	enable(CUPTI_ACTIVITY_KIND_MEMCPY);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	emit_ok(&a, sizeof(a));
	emit_ok(&k, sizeof(k));
	emit_ok(&m, sizeof(m));
	assert_int_equal(F.fake_cupti_emit(&mk, sizeof(mk)), FAKE_CUPTI_NOT_ENABLED);
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k) - 8), FAKE_CUPTI_BAD_RECORD);
	assert_int_equal(F.fake_cupti_emit(NULL, sizeof(k)), FAKE_CUPTI_BAD_RECORD);
	k.kind = CUPTI_ACTIVITY_KIND_INVALID;
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_BAD_RECORD);

	s = get_state();
	assert_int_equal(s.buffers_requested, 1);
	assert_int_equal(s.buffers_completed, 0);
	assert_int_equal(s.records_emitted, 3);
	assert_int_equal(s.records_not_enabled, 2);
	assert_int_equal(s.cur_records, 3);
	assert_int_equal(s.cur_bytes, sizeof(CUpti_ActivityAPI) + sizeof(CUpti_ActivityKernel10) +
	                                  sizeof(CUpti_ActivityMemcpy6));
	assert_int_equal(tu.ndone, 0);

	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(tu.ndone, 1);
	assert_int_equal(tu.done_valid[0], s.cur_bytes);
	assert_int_equal(tu.last_walk, CUPTI_ERROR_MAX_LIMIT_REACHED);
	assert_int_equal(tu.nrecs, 3);
	assert_int_equal(tu.nlive, 0);

	assert_int_equal(tu.recs[0].kind, CUPTI_ACTIVITY_KIND_RUNTIME);
	ra = (const CUpti_ActivityAPI *)(const void *)tu.recs[0].bytes;
	assert_int_equal(ra->cbid, 211);
	assert_int_equal(ra->correlationId, 7);
	assert_int_equal(ra->start, 4007);
	assert_int_equal(ra->end, 4017);
	assert_int_equal(ra->processId, 42);
	assert_int_equal(ra->threadId, 43);

	assert_int_equal(tu.recs[1].kind, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	rk = (const CUpti_ActivityKernel10 *)(const void *)tu.recs[1].bytes;
	assert_int_equal(rk->correlationId, 7);
	assert_int_equal(rk->start, 5700);
	assert_int_equal(rk->end, 5740);
	assert_int_equal(rk->streamId, 7);
	assert_int_equal(rk->deviceId, 1);
	assert_int_equal(rk->gridX, 128);
	assert_int_equal(rk->blockX, 256);
	assert_int_equal(rk->registersPerThread, 32);
	assert_ptr_equal(rk->name, kname);

	assert_int_equal(tu.recs[2].kind, CUPTI_ACTIVITY_KIND_MEMCPY);
	rm = (const CUpti_ActivityMemcpy6 *)(const void *)tu.recs[2].bytes;
	assert_int_equal(rm->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	assert_int_equal(rm->bytes, 1 << 20);
	assert_int_equal(rm->correlationId, 8);
	assert_int_equal(rm->runtimeCorrelationId, 9);

	/* nothing held: a flush completes nothing */
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(tu.ndone, 1);
	s = get_state();
	assert_int_equal(s.flushes_unforced, 2);
	assert_int_equal(s.flushes_forced, 0);
	assert_int_equal(s.buffers_completed, 1);
	assert_int_equal(s.cur_records, 0);
}

static void *emit_api_2(void *arg)
{
	CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 2);

	(void)arg;
	if (F.fake_cupti_emit(&a, sizeof(a)) != FAKE_CUPTI_RECORDED)
		tu.errors++;
	return NULL;
}

/*
 * FAKE_CUPTI_ORDER @p order, PER_THREAD_ACTIVITY_BUFFER @p per_thread: this
 * thread emits call 1, its kernel, call 3, another thread call 2 and the
 * kernel of 2 follows; one flush. @p want: the (kind, correlation id) read
 * back, in order, kinds 'A' (API) and 'K'.
 */
static void check_order(const char *order, uint8_t per_thread, size_t nbufs, const char *want)
{
	CUpti_ActivityAPI a1 = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1);
	CUpti_ActivityAPI a3 = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 3);
	CUpti_ActivityKernel10 k1 = kernel(1, "k1"), k2 = kernel(2, "k2");
	size_t sz = sizeof(per_thread);
	struct fake_cupti_state s;
	char got[64] = "";
	pthread_t th;

	setup(NULL);
	setenv("FAKE_CUPTI_ORDER", order, 1);
	assert_int_equal(F.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER,
	                                             &sz, &per_thread),
	                 CUPTI_SUCCESS);
	start_activity(4096, 0);
	enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	emit_ok(&a1, sizeof(a1));
	emit_ok(&k1, sizeof(k1));
	assert_int_equal(pthread_create(&th, NULL, emit_api_2, NULL), 0);
	pthread_join(th, NULL);
	emit_ok(&k2, sizeof(k2));
	emit_ok(&a3, sizeof(a3));
	s = get_state();
	assert_int_equal(s.cur_records, 5);
	assert_int_equal(s.thread_buffers, nbufs == 3 ? 2 : 0);
	assert_false(s.config_error);
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(tu.ndone, nbufs);
	assert_int_equal(tu.nrecs, 5);
	for (size_t i = 0; i < tu.nrecs; i++) {
		const CUpti_ActivityAPI *ra = (const void *)tu.recs[i].bytes;
		const CUpti_ActivityKernel10 *rk = (const void *)tu.recs[i].bytes;
		bool isk = tu.recs[i].kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;

		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%c%u", i ? " " : "",
		         isk ? 'K' : 'A', isk ? rk->correlationId : ra->correlationId);
	}
	assert_string_equal(got, want);
	assert_int_equal(get_state().cur_records, 0);
	teardown(NULL);
}

static void test_thread_buffers(void **state)
{
	(void)state;
	/* CUPTI 13's default: the device buffer, then each thread's, by first API record */
	check_order("device-first", 1, 3, "K1 K2 A1 A3 A2");
	check_order("api-first", 1, 3, "A1 A3 A2 K1 K2");
	/* per-thread buffers off: one buffer, in emission order, as without the option */
	check_order("device-first", 0, 1, "A1 K1 A2 K2 A3");
	check_order("one", 1, 1, "A1 K1 A2 K2 A3");
}

static void test_api_cbids(void **state)
{
	CUpti_ActivityAPI launch = api(CUPTI_ACTIVITY_KIND_DRIVER, 307, 1);
	CUpti_ActivityAPI other = api(CUPTI_ACTIVITY_KIND_DRIVER, 17, 2);
	CUpti_ActivityAPI get_dev = api(CUPTI_ACTIVITY_KIND_RUNTIME, 17, 3);
	CUpti_ActivityAPI rt = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 4);

	(void)state;
	start_activity(4096, 0);
	/* a driver cbid switched on records without the DRIVER kind */
	assert_int_equal(F.cuptiActivityEnableDriverApi(307, 1), CUPTI_SUCCESS);
	emit_ok(&launch, sizeof(launch));
	assert_int_equal(F.fake_cupti_emit(&other, sizeof(other)), FAKE_CUPTI_NOT_ENABLED);
	/* a runtime cbid switched off after the RUNTIME kind */
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	assert_int_equal(F.cuptiActivityEnableRuntimeApi(17, 0), CUPTI_SUCCESS);
	assert_int_equal(F.fake_cupti_emit(&get_dev, sizeof(get_dev)), FAKE_CUPTI_NOT_ENABLED);
	emit_ok(&rt, sizeof(rt));
	/* ... and back on by a later RUNTIME enable */
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	emit_ok(&get_dev, sizeof(get_dev));
	assert_int_equal(F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	assert_int_equal(tu.nrecs, 3);
}

static void test_buffer_full(void **state)
{
	const size_t ksz = sizeof(CUpti_ActivityKernel10);
	struct fake_cupti_state s;
	uint32_t i;

	(void)state;
	/* four kernels fit */
	start_activity(4 * ksz + ksz / 2, 0);
	enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	for (i = 1; i <= 10; i++) {
		CUpti_ActivityKernel10 k = kernel(i, "k");

		emit_ok(&k, sizeof(k));
	}
	assert_int_equal(tu.ndone, 2);
	assert_int_equal(tu.done_valid[0], 4 * ksz);
	assert_int_equal(tu.done_valid[1], 4 * ksz);
	assert_int_equal(F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	assert_int_equal(tu.ndone, 3);
	assert_int_equal(tu.done_valid[2], 2 * ksz);
	assert_int_equal(tu.nrecs, 10);
	for (i = 0; i < 10; i++) {
		const CUpti_ActivityKernel10 *k =
		    (const CUpti_ActivityKernel10 *)(const void *)tu.recs[i].bytes;

		assert_int_equal(k->correlationId, i + 1);
	}
	s = get_state();
	assert_int_equal(s.buffers_requested, 3);
	assert_int_equal(s.buffers_completed, 3);
	assert_int_equal(s.records_emitted, 10);
	assert_int_equal(s.records_dropped, 0);
	assert_int_equal(s.flushes_forced, 1);
	assert_int_equal(s.flushes_unforced, 0);
	assert_int_equal(tu.nlive, 0);
}

static void test_max_records(void **state)
{
	uint32_t i;

	(void)state;
	start_activity(1 << 16, 2);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	for (i = 1; i <= 5; i++) {
		CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, i);

		emit_ok(&a, sizeof(a));
	}
	assert_int_equal(tu.ndone, 2);
	assert_int_equal(tu.done_valid[0], 2 * sizeof(CUpti_ActivityAPI));
	assert_int_equal(tu.done_valid[1], 2 * sizeof(CUpti_ActivityAPI));
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(tu.ndone, 3);
	assert_int_equal(tu.done_valid[2], sizeof(CUpti_ActivityAPI));
	assert_int_equal(tu.nrecs, 5);
}

static void test_dropped(void **state)
{
	CUpti_ActivityKernel10 k = kernel(1, "k");
	struct fake_cupti_state s;
	size_t n = 99;

	(void)state;
	/* no callbacks registered: dropped */
	enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_DROPPED);
	assert_int_equal(F.cuptiActivityGetNumDroppedRecords(NULL, 0, &n), CUPTI_SUCCESS);
	assert_int_equal(n, 1);

	/* the client declines: NULL */
	start_activity(4096, 0);
	tu.mode = BUF_NULL;
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_DROPPED);
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_DROPPED);
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_DROPPED);
	s = get_state();
	assert_int_equal(s.buffers_requested, 3);
	assert_int_equal(s.records_dropped, 4);
	assert_int_equal(s.dropped_pending, 3);
	assert_int_equal(F.cuptiActivityGetNumDroppedRecords(NULL, 0, &n), CUPTI_SUCCESS);
	assert_int_equal(n, 3);
	assert_int_equal(F.cuptiActivityGetNumDroppedRecords(NULL, 0, &n), CUPTI_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(F.cuptiActivityGetNumDroppedRecords(NULL, 0, NULL),
	                 CUPTI_ERROR_INVALID_PARAMETER);

	/* too small, and misaligned: handed back empty */
	tu.mode = BUF_OK;
	tu.size = sizeof(k) - 8;
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_DROPPED);
	tu.mode = BUF_MISALIGNED;
	tu.size = 4096;
	assert_int_equal(F.fake_cupti_emit(&k, sizeof(k)), FAKE_CUPTI_DROPPED);
	assert_int_equal(tu.ndone, 2);
	assert_int_equal(tu.done_valid[0], 0);
	assert_int_equal(tu.done_valid[1], 0);
	assert_int_equal(tu.nlive, 0);
	s = get_state();
	assert_int_equal(s.buffers_rejected, 2);
	assert_int_equal(s.records_emitted, 0);

	F.fake_cupti_add_dropped(5);
	assert_int_equal(F.cuptiActivityGetNumDroppedRecords(NULL, 0, &n), CUPTI_SUCCESS);
	assert_int_equal(n, 7);
	assert_int_equal(get_state().records_dropped, 11);

	/* a good buffer again */
	tu.mode = BUF_OK;
	emit_ok(&k, sizeof(k));
}

static void test_flush(void **state)
{
	CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1);
	struct fake_cupti_state s;

	(void)state;
	/* before cuptiActivityRegisterCallbacks */
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_ERROR_INVALID_OPERATION);
	assert_int_equal(F.cuptiActivityRegisterCallbacks(NULL, buffer_completed),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	start_activity(4096, 0);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	emit_ok(&a, sizeof(a));
	assert_int_equal(F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	emit_ok(&a, sizeof(a));
	emit_ok(&a, sizeof(a));
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	s = get_state();
	assert_int_equal(s.flushes_forced, 2);
	assert_int_equal(s.flushes_unforced, 1);
	assert_int_equal(tu.ndone, 2);
	assert_int_equal(tu.done_valid[0], sizeof(a));
	assert_int_equal(tu.done_valid[1], 2 * sizeof(a));
	assert_int_equal(tu.nrecs, 3);
}

static void test_next_record(void **state)
{
	union {
		uint64_t align;
		uint8_t b[512];
	} buf;
	CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_DRIVER, 307, 1);
	CUpti_ActivityKernel10 k = kernel(1, "k");
	CUpti_Activity *r = NULL;
	uint32_t bad = 12345;

	(void)state;
	memset(&buf, 0, sizeof(buf));
	memcpy(buf.b, &a, sizeof(a));
	memcpy(buf.b + sizeof(a), &k, sizeof(k));
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, 0, &r), CUPTI_ERROR_MAX_LIMIT_REACHED);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + sizeof(k), &r),
	                 CUPTI_SUCCESS);
	assert_ptr_equal(r, buf.b);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + sizeof(k), &r),
	                 CUPTI_SUCCESS);
	assert_ptr_equal(r, buf.b + sizeof(a));
	assert_int_equal(r->kind, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + sizeof(k), &r),
	                 CUPTI_ERROR_MAX_LIMIT_REACHED);

	/* a record cut short by validBufferSizeBytes */
	r = NULL;
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + 100, &r), CUPTI_SUCCESS);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + 100, &r),
	                 CUPTI_ERROR_INVALID_KIND);
	/* an unknown kind */
	memcpy(buf.b + sizeof(a), &bad, sizeof(bad));
	r = NULL;
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + sizeof(k), &r),
	                 CUPTI_SUCCESS);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + sizeof(k), &r),
	                 CUPTI_ERROR_INVALID_KIND);
	/* bad arguments */
	r = NULL;
	assert_int_equal(F.cuptiActivityGetNextRecord(NULL, 64, &r), CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, 64, NULL),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	r = (CUpti_Activity *)(void *)(buf.b + 4);
	assert_int_equal(F.cuptiActivityGetNextRecord(buf.b, sizeof(a) + sizeof(k), &r),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.fake_cupti_record_size(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 216);
	assert_int_equal(F.fake_cupti_record_size(CUPTI_ACTIVITY_KIND_MEMCPY), 96);
	assert_int_equal(F.fake_cupti_record_size(CUPTI_ACTIVITY_KIND_RUNTIME), 40);
	assert_int_equal(F.fake_cupti_record_size(CUPTI_ACTIVITY_KIND_EVENT), 0);
}

/* reads what the library wrote on stderr while @p fn ran */
static void capture_stderr(void (*fn)(void), char *out, size_t outsz)
{
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, outsz - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static void two_calls(void)
{
	uint32_t v;

	F.cuptiGetVersion(&v);
	F.cuptiGetVersion(&v);
}

static void test_fail_env(void **state)
{
	char err[1024];
	uint32_t v = 0;
	const char *p;

	(void)state;
	setenv("FAKE_CUPTI_FAIL", "cuptiActivityEnable:38,cuptiGetVersion", 1);
	F.fake_cupti_reset(); /* read again at the next CUPTI call */
	assert_int_equal(F.cuptiGetVersion(&v), CUPTI_ERROR_UNKNOWN);
	assert_int_equal(v, 0);
	assert_int_equal(F.cuptiGetVersion(&v), CUPTI_ERROR_UNKNOWN);
	assert_int_equal(F.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME),
	                 CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED);
	assert_false(get_state().enabled[CUPTI_ACTIVITY_KIND_RUNTIME]);
	assert_false(get_state().any_enabled);
	assert_int_equal(F.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
	assert_int_equal(F.fake_cupti_calls("cuptiGetVersion"), 2);
	assert_int_equal(F.fake_cupti_calls("cuptiActivityEnable"), 1);
	assert_false(get_state().config_error);

	/* changing the variable alone changes nothing: it was read */
	unsetenv("FAKE_CUPTI_FAIL");
	assert_int_equal(F.cuptiGetVersion(&v), CUPTI_ERROR_UNKNOWN);
	F.fake_cupti_reset();
	assert_int_equal(F.cuptiGetVersion(&v), CUPTI_SUCCESS);

	/* bad items: reported once, the good ones apply */
	setenv("FAKE_CUPTI_FAIL",
	       "cuptiNope,cuptiFinalize:abc,cuptiActivityFlushAll:7,cuptiGetVersion:0", 1);
	F.fake_cupti_reset();
	capture_stderr(two_calls, err, sizeof(err));
	assert_non_null(strstr(err, "fake-cupti: FAKE_CUPTI_FAIL: bad item \"cuptiNope\""));
	assert_non_null(strstr(err, "\"cuptiFinalize:abc\""));
	assert_non_null(strstr(err, "\"cuptiGetVersion:0\""));
	p = strstr(err, "cuptiNope");
	assert_null(strstr(p + 1, "cuptiNope"));
	assert_true(get_state().config_error);
	assert_int_equal(F.cuptiGetVersion(&v), CUPTI_SUCCESS);
	assert_int_equal(F.cuptiActivityFlushAll(0), 7);
	assert_int_equal(F.cuptiFinalize(), CUPTI_SUCCESS);
}

struct cb_log {
	int n;
	CUpti_CallbackDomain domain[8];
	CUpti_CallbackId cbid[8];
	CUpti_ApiCallbackSite site[8];
	uint32_t corr[8];
	uint64_t *data[8];
	uint64_t data_at_exit[8];
	const char *name[8];
};

static void subscriber_cb(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void *cbdata)
{
	struct cb_log *log = userdata;
	const CUpti_CallbackData *d = cbdata;
	int i = log->n++;

	assert_true(i < 8);
	log->domain[i] = domain;
	log->cbid[i] = cbid;
	log->site[i] = d->callbackSite;
	log->corr[i] = d->correlationId;
	log->data[i] = d->correlationData;
	log->name[i] = d->functionName;
	assert_null(d->context);
	assert_null(d->functionParams);
	assert_non_null(d->correlationData);
	if (d->callbackSite == CUPTI_API_ENTER) {
		assert_int_equal(*d->correlationData, 0);
		*d->correlationData = 1000 + d->correlationId;
	} else {
		log->data_at_exit[i] = *d->correlationData;
	}
}

static void test_subscriber(void **state)
{
	CUpti_SubscriberHandle h = NULL, h2 = NULL;
	struct cb_log log;

	(void)state;
	memset(&log, 0, sizeof(log));
	assert_int_equal(F.cuptiSubscribe(NULL, subscriber_cb, &log),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiSubscribe(&h, subscriber_cb, &log), CUPTI_SUCCESS);
	assert_non_null(h);
	assert_true(get_state().subscribed);
	assert_int_equal(F.cuptiSubscribe(&h2, subscriber_cb, &log),
	                 CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
	assert_int_equal(F.cuptiEnableCallback(1, h, CUPTI_CB_DOMAIN_RUNTIME_API, 211),
	                 CUPTI_SUCCESS);
	assert_int_equal(F.cuptiEnableCallback(1, h2, CUPTI_CB_DOMAIN_RUNTIME_API, 211),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(
	    F.cuptiEnableCallback(1, h, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE),
	    CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiEnableCallback(1, h, CUPTI_CB_DOMAIN_INVALID, 1),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiEnableDomain(1, h, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
	assert_int_equal(F.fake_cupti_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, 211), 1);
	assert_int_equal(F.fake_cupti_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, 17), 0);
	assert_int_equal(F.fake_cupti_callback_enabled(CUPTI_CB_DOMAIN_DRIVER_API, 652), 1);

	/* a runtime launch making a driver launch; a call with no callback enabled between */
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RUNTIME_API, 211, CUPTI_API_ENTER,
	                      "cudaLaunchKernel");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_DRIVER_API, 307, CUPTI_API_ENTER, "cuLaunchKernel");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RUNTIME_API, 17, CUPTI_API_ENTER, "cudaGetDevice");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RUNTIME_API, 17, CUPTI_API_EXIT, "cudaGetDevice");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_DRIVER_API, 307, CUPTI_API_EXIT, "cuLaunchKernel");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RUNTIME_API, 211, CUPTI_API_EXIT, "cudaLaunchKernel");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RESOURCE, 1, CUPTI_API_ENTER, "ignored");
	assert_int_equal(log.n, 4);
	assert_int_equal(log.domain[0], CUPTI_CB_DOMAIN_RUNTIME_API);
	assert_int_equal(log.cbid[0], 211);
	assert_int_equal(log.site[0], CUPTI_API_ENTER);
	assert_string_equal(log.name[0], "cudaLaunchKernel");
	assert_int_equal(log.domain[1], CUPTI_CB_DOMAIN_DRIVER_API);
	assert_int_equal(log.cbid[1], 307);
	assert_int_equal(log.site[2], CUPTI_API_EXIT);
	assert_int_equal(log.cbid[2], 307);
	assert_int_equal(log.site[3], CUPTI_API_EXIT);
	assert_int_equal(log.cbid[3], 211);
	assert_true(log.corr[0] != log.corr[1]);
	assert_true(log.corr[1] > log.corr[0]);
	assert_int_equal(log.corr[2], log.corr[1]);
	assert_int_equal(log.corr[3], log.corr[0]);
	assert_ptr_equal(log.data[3], log.data[0]);
	assert_int_equal(log.data_at_exit[3], 1000 + log.corr[0]);
	assert_int_equal(log.data_at_exit[2], 1000 + log.corr[1]);
	assert_int_equal(get_state().callbacks_delivered, 4);

	/* switched off */
	assert_int_equal(F.cuptiEnableCallback(0, h, CUPTI_CB_DOMAIN_RUNTIME_API, 211),
	                 CUPTI_SUCCESS);
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RUNTIME_API, 211, CUPTI_API_ENTER,
	                      "cudaLaunchKernel");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_RUNTIME_API, 211, CUPTI_API_EXIT, "cudaLaunchKernel");
	assert_int_equal(log.n, 4);

	assert_int_equal(F.cuptiUnsubscribe(h2), CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiUnsubscribe(h), CUPTI_SUCCESS);
	assert_false(get_state().subscribed);
	assert_int_equal(F.fake_cupti_callback_enabled(CUPTI_CB_DOMAIN_DRIVER_API, 307), 0);
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_DRIVER_API, 307, CUPTI_API_ENTER, "cuLaunchKernel");
	F.fake_cupti_callback(CUPTI_CB_DOMAIN_DRIVER_API, 307, CUPTI_API_EXIT, "cuLaunchKernel");
	assert_int_equal(log.n, 4);
	assert_int_equal(F.cuptiSubscribe(&h2, subscriber_cb, &log), CUPTI_SUCCESS);
}

static void test_callback_names(void **state)
{
	static const struct {
		CUpti_CallbackDomain domain;
		uint32_t cbid;
		const char *name;
	} names[] = {
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 211, "cudaLaunchKernel_v7000" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 430, "cudaLaunchKernelExC_v11060" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 311, "cudaGraphLaunch_v10000" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 41, "cudaMemcpyAsync_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 51, "cudaMemsetAsync_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 131, "cudaStreamSynchronize_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 137, "cudaEventSynchronize_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 147, "cudaStreamWaitEvent_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 165, "cudaDeviceSynchronize_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 20, "cudaMalloc_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 22, "cudaFree_v3020" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 171, "cudaProfilerStart_v4000" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 172, "cudaProfilerStop_v4000" },
		{ CUPTI_CB_DOMAIN_RUNTIME_API, 31, "cudaMemcpy_v3020" },
		{ CUPTI_CB_DOMAIN_DRIVER_API, 307, "cuLaunchKernel" },
		{ CUPTI_CB_DOMAIN_DRIVER_API, 652, "cuLaunchKernelEx" },
		{ CUPTI_CB_DOMAIN_DRIVER_API, 514, "cuGraphLaunch" },
	};
	const char *s;
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(names); i++) {
		s = NULL;
		assert_int_equal(F.cuptiGetCallbackName(names[i].domain, names[i].cbid, &s),
		                 CUPTI_SUCCESS);
		assert_string_equal(s, names[i].name);
	}
	assert_int_equal(F.cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 0, &s),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 100000, &s),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiGetCallbackName(CUPTI_CB_DOMAIN_RESOURCE, 1, &s),
	                 CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(F.cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, 307, NULL),
	                 CUPTI_ERROR_INVALID_PARAMETER);
}

static void test_finalize(void **state)
{
	CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1);
	CUpti_SubscriberHandle h = NULL;
	struct fake_cupti_state s;
	struct cb_log log;
	uint64_t id = 0;
	size_t n;

	(void)state;
	memset(&log, 0, sizeof(log));
	assert_int_equal(F.cuptiActivityRegisterTimestampCallback(test_clock), CUPTI_SUCCESS);
	start_activity(4096, 0);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	assert_int_equal(F.cuptiActivityEnableDriverApi(307, 1), CUPTI_SUCCESS);
	assert_int_equal(F.cuptiSubscribe(&h, subscriber_cb, &log), CUPTI_SUCCESS);
	assert_int_equal(F.cuptiEnableDomain(1, h, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);

	/* external correlation: a stack per kind and thread */
	assert_int_equal(
	    F.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 5),
	    CUPTI_SUCCESS);
	assert_int_equal(
	    F.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 6),
	    CUPTI_SUCCESS);
	assert_int_equal(
	    F.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 77),
	    CUPTI_SUCCESS);
	assert_int_equal(
	    F.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id),
	    CUPTI_SUCCESS);
	assert_int_equal(id, 6);
	n = F.fake_cupti_external_depth(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
	assert_int_equal(n, 1);
	assert_int_equal(id, 5);
	assert_int_equal(F.fake_cupti_external_depth(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, NULL),
	                 1);
	assert_int_equal(
	    F.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_INVALID, 1),
	    CUPTI_ERROR_INVALID_PARAMETER);
	assert_int_equal(
	    F.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_SIZE, NULL),
	    CUPTI_ERROR_INVALID_PARAMETER);

	/* two records flushed, one left behind */
	emit_ok(&a, sizeof(a));
	emit_ok(&a, sizeof(a));
	assert_int_equal(F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	emit_ok(&a, sizeof(a));
	assert_int_equal(F.cuptiFinalize(), CUPTI_SUCCESS);

	s = get_state();
	assert_int_equal(s.finalize_calls, 1);
	assert_int_equal(s.records_lost, 1);
	assert_false(s.callbacks_registered);
	assert_false(s.enabled[CUPTI_ACTIVITY_KIND_RUNTIME]);
	assert_false(s.subscribed);
	assert_true(s.ts_registered);
	assert_int_equal(s.cur_records, 0);
	assert_int_equal(F.fake_cupti_api_enabled(CUPTI_CB_DOMAIN_DRIVER_API, 307), -1);
	assert_int_equal(F.fake_cupti_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, 211), 0);
	/* the left-behind buffer came back empty; only the flushed records were read */
	assert_int_equal(tu.ndone, 2);
	assert_int_equal(tu.done_valid[1], 0);
	assert_int_equal(tu.nrecs, 2);
	assert_int_equal(tu.nlive, 0);
	assert_int_equal(F.fake_cupti_external_depth(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL),
	                 0);
	assert_int_equal(
	    F.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id),
	    CUPTI_ERROR_QUEUE_EMPTY);
	/* detached: nothing is recorded, flushing needs callbacks again */
	assert_int_equal(F.fake_cupti_emit(&a, sizeof(a)), FAKE_CUPTI_NOT_ENABLED);
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_ERROR_INVALID_OPERATION);

	/* and CUPTI attaches again on the next use */
	start_activity(4096, 0);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	emit_ok(&a, sizeof(a));
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(tu.nrecs, 3);
	assert_int_equal(F.cuptiSubscribe(&h, subscriber_cb, &log), CUPTI_SUCCESS);
	assert_int_equal(F.fake_cupti_calls("cuptiFinalize"), 1);
}

#define NTHREADS   4
#define PER_THREAD 500

static void *emitter(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg, i;

	for (i = 0; i < PER_THREAD; i++) {
		CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, t * 100000 + i);

		if (F.fake_cupti_emit(&a, sizeof(a)) != FAKE_CUPTI_RECORDED)
			return (void *)1;
		if (i % 97 == 0 && F.cuptiActivityFlushAll(0) != CUPTI_SUCCESS)
			return (void *)1;
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th[NTHREADS];
	uint32_t next[NTHREADS] = { 0 };
	struct fake_cupti_state s;
	uintptr_t i;

	(void)state;
	start_activity(1000, 0);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, emitter, (void *)i), 0);
	for (i = 0; i < NTHREADS; i++) {
		void *ret = (void *)1;

		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
	assert_int_equal(tu.nrecs, NTHREADS * PER_THREAD);
	/* each thread's records arrive complete and in its order */
	for (i = 0; i < tu.nrecs; i++) {
		const CUpti_ActivityAPI *a =
		    (const CUpti_ActivityAPI *)(const void *)tu.recs[i].bytes;
		uint32_t t = a->correlationId / 100000;

		assert_true(t < NTHREADS);
		assert_int_equal(a->correlationId % 100000, next[t]);
		next[t]++;
		assert_int_equal(a->cbid, 211);
	}
	s = get_state();
	assert_int_equal(s.records_emitted, NTHREADS * PER_THREAD);
	assert_int_equal(s.records_dropped, 0);
	assert_int_equal(s.buffers_completed, s.buffers_requested);
	assert_int_equal(tu.nlive, 0);
}

static void *park_emitter(void *arg)
{
	CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1);

	(void)arg;
	F.fake_cupti_emit(&a, sizeof(a));
	/* the buffer is full (maxNumRecords 1): completing it parks this thread */
	F.fake_cupti_emit(&a, sizeof(a));
	return NULL;
}

static void test_fork(void **state)
{
	CUpti_ActivityAPI a = api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 2);
	pthread_t th;
	pid_t pid;
	int status = -1;

	(void)state;
	start_activity(4096, 1);
	enable(CUPTI_ACTIVITY_KIND_RUNTIME);
	park_block = true;
	park_parked = false;
	assert_int_equal(pthread_create(&th, NULL, park_emitter, NULL), 0);
	pthread_mutex_lock(&park_lock);
	while (!park_parked)
		pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);

	/* another thread holds the fake's buffer: a child must still get one */
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bool ok;

		park_block = false;
		alarm(10);
		ok = F.fake_cupti_emit(&a, sizeof(a)) == FAKE_CUPTI_RECORDED &&
		     F.cuptiActivityFlushAll(0) == CUPTI_SUCCESS;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	pthread_mutex_lock(&park_lock);
	park_block = false;
	pthread_cond_broadcast(&park_cond);
	pthread_mutex_unlock(&park_lock);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(F.cuptiActivityFlushAll(0), CUPTI_SUCCESS);
	assert_int_equal(tu.nrecs, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_symbols, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timestamp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attributes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_api_cbids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_next_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subscriber, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finalize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_buffers, setup, teardown),
	};

	fake_dir = getenv("GP_FAKE_CUPTI_DIR");
	if (!fake_dir || !*fake_dir) {
		printf("skip: GP_FAKE_CUPTI_DIR is not set\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
