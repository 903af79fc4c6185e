/* SPDX-License-Identifier: MIT */
/*
 * cupti.c - CUPTI's activity API, loaded with dlopen: $GPUPROF_CUPTI_LIBRARY
 * (only that one when set), else libcupti.so.13, else libcupti.so (a libcupti already mapped in the
 * process, e.g. PyTorch's, is the one these names find first).
 *
 * Attaching (at the start, or when a capture window opens: window.c), in the
 * order of ../shared/reference/cupti-nvtx-nvml.md 2.1: the monotonic clock is
 * registered once, before any kind is enabled; then the buffer callbacks;
 * then CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET, RUNTIME, SYNCHRONIZATION,
 * OVERHEAD, DEVICE, CONTEXT, MEMORY2 (allocations and frees; not with
 * GPUPROF_CUDA_MEMORY=0) (and CUDA_EVENT with GPUPROF_CUDA_EVENTS=1); then
 * the driver's launch calls one by one (cuLaunchKernel, cuLaunchKernelEx,
 * cuGraphLaunch: Triton launches are seen) and the noisiest runtime calls
 * off. A failing step is a warning and the rest goes on. Detaching (a window
 * closes): the kinds disabled, a forced flush, then cuptiFinalize at the next
 * runtime or driver API exit, from CUPTI's callback (NVIDIA's advice).
 *
 * Buffers: 4 MiB each, at most GPUPROF_CUPTI_BUFFERS (default 32) at once; a
 * request beyond that gets no buffer (CUPTI drops those records and counts
 * them; the refusal is counted too). Completed buffers are queued; the writer
 * thread decodes them into capture records (drain) and frees them.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "inject.h"

#define BUF_SIZE     (4u << 20)
#define MAX_BUFS_DEF 32

/* the CUPTI functions used (their types from cupti.h); any may be missing: that step is skipped */
#define GP_CUPTI_FUNCS(X)                                                                          \
	X(cuptiGetVersion)                                                                         \
	X(cuptiGetResultString)                                                                    \
	X(cuptiActivityRegisterTimestampCallback)                                                  \
	X(cuptiActivityRegisterCallbacks)                                                          \
	X(cuptiActivityEnable)                                                                     \
	X(cuptiActivityDisable)                                                                    \
	X(cuptiActivityEnableDriverApi)                                                            \
	X(cuptiActivityEnableRuntimeApi)                                                           \
	X(cuptiActivityFlushAll)                                                                   \
	X(cuptiActivityGetNextRecord)                                                              \
	X(cuptiActivityGetNumDroppedRecords)                                                       \
	X(cuptiGetCallbackName)                                                                    \
	X(cuptiGetTimestamp)                                                                       \
	X(cuptiSubscribe)                                                                          \
	X(cuptiEnableCallback)                                                                     \
	X(cuptiEnableDomain)                                                                       \
	X(cuptiFinalize)                                                                           \
	X(cuptiSetThreadIdType)                                                                    \
	X(cuptiActivityEnableCudaEventDeviceTimestamps)

#define X_FIELD(name) __typeof__(name) *name;
static struct {
	GP_CUPTI_FUNCS(X_FIELD)
} F;
#undef X_FIELD

static void *g_lib;
static bool g_usable; /* loaded, with the activity API */
static uint32_t g_version;
static unsigned g_max_bufs = MAX_BUFS_DEF;
static _Atomic bool g_started; /* kinds enabled: flushes make sense */
static bool g_cuda_events;     /* GPUPROF_CUDA_EVENTS=1 */
static bool g_cuda_memory;     /* MEMORY2: on unless GPUPROF_CUDA_MEMORY=0 */
static int64_t g_load_ns;      /* when CUPTI was loaded: no record can be older */

/* attach / detach (carried out for window.c under its lock; the callback only tries this one) */
static pthread_mutex_t g_att_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_clock_set; /* the timestamp callback was registered once */
static bool g_finalized; /* cuptiFinalize since the clock was registered: register it again */
static CUpti_SubscriberHandle g_sub;             /* our callback subscriber, NULL when none */
static bool g_sub_failed;                        /* another tool holds the one subscriber slot */
static _Atomic bool g_fin_req;                   /* detach at the next API exit */
static uint64_t g_clock_dropped, g_clock_warned; /* writer thread only */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER; /* the fields below */
static unsigned g_bufs; /* buffers out (given to CUPTI or queued) */
struct done_buf {
	struct done_buf *next;
	uint8_t *buf;
	size_t valid;
};
static struct done_buf *g_done, **g_done_tail = &g_done;
static uint64_t g_dropped_records, g_refused_buffers;

/* ---- strings (writer thread only) ---- */

struct str_ent {
	uint64_t hash;
	uint32_t id, len;
	char *s;
};
static struct str_ent *g_strs;
static size_t g_nstrs, g_strs_cap; /* open addressing, cap a power of two */
static uint32_t g_rt_name[1024], g_drv_name[1024];

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The id of @p s (a GP_CAP_STRING record the first time); 0 when out of memory. */
static uint32_t intern(const char *s, size_t n)
{
	struct gp_cap_string rec = { 0, 0 };
	uint64_t h = fnv1a(s, n);
	size_t i;

	if (n > UINT32_MAX / 2)
		return 0;
	if (2 * (g_nstrs + 1) > g_strs_cap) {
		size_t cap = g_strs_cap ? 2 * g_strs_cap : 1024;
		struct str_ent *t =
		    cap <= SIZE_MAX / sizeof(*t) ? gp__inj_alloc(cap * sizeof(*t), true) : NULL;

		if (!t)
			return 0;
		for (size_t k = 0; k < g_strs_cap; k++) {
			if (!g_strs[k].s)
				continue;
			for (i = g_strs[k].hash & (cap - 1); t[i].s; i = (i + 1) & (cap - 1))
				;
			t[i] = g_strs[k];
		}
		gp__inj_free(g_strs);
		g_strs = t;
		g_strs_cap = cap;
	}
	for (i = h & (g_strs_cap - 1); g_strs[i].s; i = (i + 1) & (g_strs_cap - 1))
		if (g_strs[i].hash == h && g_strs[i].len == n && memcmp(g_strs[i].s, s, n) == 0)
			return g_strs[i].id;
	g_strs[i].s = gp__inj_alloc(n + 1, false);
	if (!g_strs[i].s)
		return 0;
	memcpy(g_strs[i].s, s, n);
	g_strs[i].s[n] = 0;
	g_strs[i].hash = h;
	g_strs[i].len = (uint32_t)n;
	g_strs[i].id = gp__inj_new_id();
	g_nstrs++;
	rec.id = g_strs[i].id;
	gp__inj_write(GP_CAP_STRING, &rec, sizeof(rec), s, n);
	return rec.id;
}

static uint32_t intern_c(const char *s)
{
	return s ? intern(s, strlen(s)) : 0;
}

/* The API's name without CUPTI's version suffix ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel").
 */
static uint32_t api_name(CUpti_CallbackDomain dom, uint32_t cbid)
{
	uint32_t *cache = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? g_rt_name : g_drv_name;
	const char *name = NULL;
	char tmp[64];
	size_t n;

	if (cbid < 1024 && cache[cbid])
		return cache[cbid];
	if (!F.cuptiGetCallbackName || F.cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS ||
	    !name) {
		snprintf(tmp, sizeof(tmp), "%s cbid %u",
		         dom == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", cbid);
		name = tmp;
	}
	n = strlen(name);
	{
		const char *v = strstr(name, "_v");

		if (v && v > name && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
			n = (size_t)(v - name);
	}
	{
		uint32_t id = intern(name, n);

		if (cbid < 1024)
			cache[cbid] = id;
		return id;
	}
}

/* ---- CUPTI's buffer callbacks ---- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *p = NULL;
	bool ok;

	*max_records = 0;
	*buffer = NULL;
	*size = 0;
	/* a forked child records nothing; g_mu may have been held by a thread of the parent */
	if (gp__inj_forked())
		return;
	pthread_mutex_lock(&g_mu);
	ok = g_bufs < g_max_bufs;
	if (ok)
		g_bufs++;
	else
		g_refused_buffers++;
	pthread_mutex_unlock(&g_mu);
	/*
	 * Not gp__inj_alloc: CUPTI may call this from a launch that holds driver
	 * locks, and the lock gp__inj_alloc takes is fork_prepare's (a fork that
	 * also waits for a driver lock would close a cycle).
	 */
	if (ok && posix_memalign(&p, 8, BUF_SIZE) != 0) {
		p = NULL;
		pthread_mutex_lock(&g_mu);
		g_bufs--;
		g_refused_buffers++;
		pthread_mutex_unlock(&g_mu);
	}
	*buffer = p;
	*size = p ? BUF_SIZE : 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                      size_t valid)
{
	struct done_buf *d;
	size_t dropped = 0;

	(void)size;
	if (gp__inj_forked()) { /* a buffer the parent had, completed in a forked child */
		free(buf);
		return;
	}
	if (F.cuptiActivityGetNumDroppedRecords &&
	    F.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) != CUPTI_SUCCESS)
		dropped = 0;
	d = malloc(sizeof(*d)); /* not gp__inj_alloc: see buffer_requested */
	pthread_mutex_lock(&g_mu);
	g_dropped_records += dropped;
	if (!buf || !d) {
		if (buf)
			g_bufs--;
		pthread_mutex_unlock(&g_mu);
		free(buf);
		free(d);
		return;
	}
	d->next = NULL;
	d->buf = buf;
	d->valid = valid;
	*g_done_tail = d;
	g_done_tail = &d->next;
	pthread_mutex_unlock(&g_mu);
	gp__inj_kick(); /* a whole buffer waits: decode and write it now, not at the next tick */
}

/* ---- decoding (writer thread) ---- */

/*
 * Whether a record is kept: on our clock, and not made during a warm-up
 * (window.c). A time more than a second before CUPTI was loaded or after now
 * cannot be ours: CUPTI lost the clock callback (e.g. across a detach) and
 * these records would land years away.
 *
 * Host records (API calls, syncs, overheads) are judged by their start. A GPU
 * op may run after its warm-up ended, so it is judged by its launch instead:
 * correlation ids grow with every call, so the calls dropped in a warm-up span
 * one range of ids, and an op whose id lies in a range is dropped with them.
 */
static uint32_t g_warm_cmin[GP_INJ_MAX_WARM], g_warm_cmax[GP_INJ_MAX_WARM]; /* 0: none yet */

static bool on_clock(uint64_t start)
{
	int64_t ts = (int64_t)start;

	if (start > INT64_MAX || ts < g_load_ns - 1000000000 ||
	    ts > (int64_t)gp__inj_now() + 1000000000) {
		g_clock_dropped++;
		return false;
	}
	return true;
}

static bool keep(uint64_t start)
{
	return on_clock(start) && gp__inj_win_warm((int64_t)start) < 0;
}

static bool keep_api(uint64_t start, uint32_t corr)
{
	long w;

	if (!on_clock(start))
		return false;
	w = gp__inj_win_warm((int64_t)start);
	if (w < 0)
		return true;
	if (corr && (!g_warm_cmin[w] || corr < g_warm_cmin[w]))
		g_warm_cmin[w] = corr;
	if (corr > g_warm_cmax[w])
		g_warm_cmax[w] = corr;
	return false;
}

static bool keep_gpu(uint64_t start, uint32_t corr)
{
	size_t n = gp__inj_win_nwarm();

	if (!on_clock(start))
		return false;
	if (!corr)
		return gp__inj_win_warm((int64_t)start) < 0;
	/* the ranges grow with time: scan back from the newest, stop below the op's id */
	for (size_t w = n < GP_INJ_MAX_WARM ? n : GP_INJ_MAX_WARM; w-- > 0;) {
		if (!g_warm_cmin[w])
			continue;
		if (corr > g_warm_cmax[w])
			break;
		if (corr >= g_warm_cmin[w])
			return false;
	}
	return true;
}

static void put_kernel(const CUpti_ActivityKernel10 *k)
{
	struct gp_cap_kernel r;

	if (!keep_gpu(k->start, k->correlationId))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)k->start;
	r.end = (int64_t)k->end;
	r.device = k->deviceId;
	r.context = k->contextId;
	r.stream = k->streamId;
	r.correlation = k->correlationId;
	r.grid[0] = k->gridX;
	r.grid[1] = k->gridY;
	r.grid[2] = k->gridZ;
	r.block[0] = k->blockX;
	r.block[1] = k->blockY;
	r.block[2] = k->blockZ;
	r.name = intern_c(k->name);
	r.regs = k->registersPerThread;
	r.launch_type = k->launchType;
	r.is_device_launched = k->isDeviceLaunched;
	r.static_smem = (uint32_t)k->staticSharedMemory;
	r.dynamic_smem = (uint32_t)k->dynamicSharedMemory;
	r.graph_id = k->graphId;
	r.graph_node_id = k->graphNodeId;
	gp__inj_write(GP_CAP_KERNEL, &r, sizeof(r), NULL, 0);
}

static void put_memcpy(const CUpti_ActivityMemcpy6 *m)
{
	struct gp_cap_memcpy r;

	if (!keep_gpu(m->start, m->correlationId))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)m->start;
	r.end = (int64_t)m->end;
	r.bytes = m->bytes;
	r.device = r.src_device = r.dst_device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.runtime_correlation = m->runtimeCorrelationId;
	r.copy_kind = m->copyKind;
	r.src_kind = m->srcKind;
	r.dst_kind = m->dstKind;
	r.flags = m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC ? 1 : 0;
	gp__inj_write(GP_CAP_MEMCPY, &r, sizeof(r), NULL, 0);
}

static void put_p2p(const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct gp_cap_memcpy r;

	if (!keep_gpu(m->start, m->correlationId))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)m->start;
	r.end = (int64_t)m->end;
	r.bytes = m->bytes;
	r.device = m->deviceId;
	r.src_device = m->srcDeviceId;
	r.dst_device = m->dstDeviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.copy_kind = m->copyKind;
	r.src_kind = m->srcKind;
	r.dst_kind = m->dstKind;
	r.flags = m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC ? 1 : 0;
	gp__inj_write(GP_CAP_MEMCPY, &r, sizeof(r), NULL, 0);
}

static void put_memset(const CUpti_ActivityMemset4 *m)
{
	struct gp_cap_memset r;

	if (!keep_gpu(m->start, m->correlationId))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)m->start;
	r.end = (int64_t)m->end;
	r.bytes = m->bytes;
	r.device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.value = m->value;
	r.memory_kind = (uint8_t)m->memoryKind;
	r.flags = m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC ? 1 : 0;
	gp__inj_write(GP_CAP_MEMSET, &r, sizeof(r), NULL, 0);
}

static void put_api(const CUpti_ActivityAPI *a)
{
	struct gp_cap_api r;
	CUpti_CallbackDomain dom = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME
	                               ? CUPTI_CB_DOMAIN_RUNTIME_API
	                               : CUPTI_CB_DOMAIN_DRIVER_API;

	if (!keep_api(a->start, a->correlationId))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)a->start;
	r.end = (int64_t)a->end;
	r.pid = a->processId;
	r.tid = a->threadId;
	r.correlation = a->correlationId;
	r.cbid = a->cbid;
	r.name = api_name(dom, a->cbid);
	r.ret = (int32_t)a->returnValue;
	r.domain = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME               ? GP_CAP_RUNTIME
	           : a->kind == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API ? GP_CAP_INTERNAL_LAUNCH
	                                                                : GP_CAP_DRIVER;
	gp__inj_write(GP_CAP_API, &r, sizeof(r), NULL, 0);
}

static void put_sync(const CUpti_ActivitySynchronization2 *s)
{
	struct gp_cap_sync r;

	if (!keep(s->start))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)s->start;
	r.end = (int64_t)s->end;
	r.type = (uint32_t)s->type;
	r.context = s->contextId;
	r.stream = s->streamId;
	r.correlation = s->correlationId;
	r.event = s->cudaEventId;
	gp__inj_write(GP_CAP_SYNC, &r, sizeof(r), NULL, 0);
}

static void put_overhead(const CUpti_ActivityOverhead3 *o)
{
	struct gp_cap_overhead r;

	if (!keep(o->start))
		return;
	memset(&r, 0, sizeof(r));
	r.start = (int64_t)o->start;
	r.end = (int64_t)o->end;
	r.kind = (uint32_t)o->overheadKind;
	r.object_kind = (uint32_t)o->objectKind;
	if (o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS ||
	    o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
		r.pid = o->objectId.pt.processId;
		r.tid = o->objectId.pt.threadId;
	} else {
		r.pid = o->objectId.dcs.deviceId;
	}
	r.correlation = o->correlationId;
	gp__inj_write(GP_CAP_OVERHEAD, &r, sizeof(r), NULL, 0);
}

static void put_device(const CUpti_ActivityDevice5 *d)
{
	struct gp_cap_device r;

	memset(&r, 0, sizeof(r));
	r.id = d->id;
	r.name = intern_c(d->name);
	r.global_memory_bytes = d->globalMemorySize;
	r.cc_major = d->computeCapabilityMajor;
	r.cc_minor = d->computeCapabilityMinor;
	r.sm_count = d->numMultiprocessors;
	r.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
	r.max_threads_per_sm = d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp;
	r.max_regs_per_sm = d->maxRegistersPerMultiprocessor;
	r.max_smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
	memcpy(r.uuid, &d->uuid,
	       sizeof(r.uuid) < sizeof(d->uuid) ? sizeof(r.uuid) : sizeof(d->uuid));
	gp__inj_write(GP_CAP_DEVICE, &r, sizeof(r), NULL, 0);
}

static void put_context(const CUpti_ActivityContext3 *c)
{
	struct gp_cap_context r = { c->contextId, c->deviceId, c->nullStreamId, 0 };

	gp__inj_write(GP_CAP_CONTEXT, &r, sizeof(r), NULL, 0);
}

static void put_cuda_event(const CUpti_ActivityCudaEvent2 *e)
{
	struct gp_cap_cuda_event r;

	memset(&r, 0, sizeof(r));
	r.device_ts = e->deviceTimestamp;
	r.correlation = e->correlationId;
	r.context = e->contextId;
	r.stream = e->streamId;
	r.event = e->eventId;
	r.device = e->deviceId;
	gp__inj_write(GP_CAP_CUDA_EVENT, &r, sizeof(r), NULL, 0);
}

/*
 * An allocation or a free (MEMORY2). Judged like a GPU op, by the call that
 * made it: one made during a warm-up goes with its dropped API record.
 */
static void put_mem(const CUpti_ActivityMemory4 *m)
{
	struct gp_cap_mem r;

	if (!keep_gpu(m->timestamp, m->correlationId))
		return;
	memset(&r, 0, sizeof(r));
	r.ts = (int64_t)m->timestamp;
	r.addr = m->address;
	r.bytes = m->bytes;
	r.device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.pid = m->processId;
	r.op = (uint8_t)m->memoryOperationType;
	r.memory_kind = (uint8_t)m->memoryKind;
	r.flags = m->isAsync ? GP_CAP_MEM_ASYNC : 0;
	r.pool_type = (uint8_t)m->memoryPoolConfig.memoryPoolType;
	if (r.pool_type) {
		r.pool_addr = m->memoryPoolConfig.address;
		r.pool_used = m->memoryPoolConfig.utilizedSize;
		if (m->memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL)
			r.pool_size = m->memoryPoolConfig.pool.size;
	}
	gp__inj_write(GP_CAP_MEM, &r, sizeof(r), NULL, 0);
}

static void decode(uint8_t *buf, size_t valid)
{
	CUpti_Activity *rec = NULL;
	unsigned unknown = 0;

	while (F.cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS && rec) {
		switch (rec->kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
			put_kernel((const CUpti_ActivityKernel10 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY:
			put_memcpy((const CUpti_ActivityMemcpy6 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY2:
			put_p2p((const CUpti_ActivityMemcpyPtoP4 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMSET:
			put_memset((const CUpti_ActivityMemset4 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_RUNTIME:
		case CUPTI_ACTIVITY_KIND_DRIVER:
		case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
			put_api((const CUpti_ActivityAPI *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
			put_sync((const CUpti_ActivitySynchronization2 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_OVERHEAD:
			put_overhead((const CUpti_ActivityOverhead3 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_DEVICE:
			put_device((const CUpti_ActivityDevice5 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_CONTEXT:
			put_context((const CUpti_ActivityContext3 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
			put_cuda_event((const CUpti_ActivityCudaEvent2 *)(void *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMORY2:
			put_mem((const CUpti_ActivityMemory4 *)(void *)rec);
			break;
		default:
			unknown++;
			break;
		}
	}
	if (unknown)
		gp__inj_warn(0, "%u CUPTI records of kinds not decoded were skipped", unknown);
	if (g_clock_dropped > g_clock_warned) {
		gp__inj_warn(0, "%llu CUPTI records with times off the capture clock were dropped",
		             (unsigned long long)(g_clock_dropped - g_clock_warned));
		g_clock_warned = g_clock_dropped;
	}
}

void gp__inj_cupti_drain(void)
{
	struct done_buf *d, *next;

	pthread_mutex_lock(&g_mu);
	d = g_done;
	g_done = NULL;
	g_done_tail = &g_done;
	pthread_mutex_unlock(&g_mu);
	for (; d; d = next) {
		next = d->next;
		if (F.cuptiActivityGetNextRecord && !gp__inj_forked())
			decode(d->buf, d->valid);
		gp__inj_free(d->buf);
		gp__inj_free(d);
		pthread_mutex_lock(&g_mu);
		g_bufs--;
		pthread_mutex_unlock(&g_mu);
	}
}

void gp__inj_cupti_flush(bool forced)
{
	if (atomic_load(&g_started) && F.cuptiActivityFlushAll && !gp__inj_forked())
		F.cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void gp__inj_cupti_stop(void)
{
	gp__inj_cupti_flush(true);
}

void gp__inj_cupti_dropped(uint64_t *records, uint64_t *buffers)
{
	pthread_mutex_lock(&g_mu);
	*records = g_dropped_records;
	*buffers = g_refused_buffers;
	pthread_mutex_unlock(&g_mu);
}

uint32_t gp__inj_cupti_version(void)
{
	return g_version;
}

/* ---- start ---- */

static const char *result_str(CUptiResult r)
{
	const char *s = NULL;

	if (F.cuptiGetResultString && F.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "unknown CUPTI error";
}

static bool check(CUptiResult r, const char *what)
{
	if (r == CUPTI_SUCCESS)
		return true;
	gp__inj_warn((uint32_t)r, "%s failed: %s (%d)", what, result_str(r), (int)r);
	return false;
}

static const CUpti_ActivityKind g_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	CUPTI_ACTIVITY_KIND_OVERHEAD,          CUPTI_ACTIVITY_KIND_DEVICE,
	CUPTI_ACTIVITY_KIND_CONTEXT,
};
static const CUpti_CallbackId g_drv_on[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
};
static const CUpti_CallbackId g_rt_off[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
};

/* CUPTI's callback: the profiler calls (cudaProfilerApi) and the deferred detach */
static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *info)
{
	const CUpti_CallbackData *d = info;

	(void)user;
	if (!d || gp__inj_forked())
		return;
	if (dom == CUPTI_CB_DOMAIN_DRIVER_API && gp__inj_win_profiler_api()) {
		if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart &&
		    d->callbackSite == CUPTI_API_EXIT)
			gp__inj_win_event(GP_INJ_WIN_PROF_START, 0, NULL);
		else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop &&
		         d->callbackSite == CUPTI_API_ENTER)
			gp__inj_win_event(GP_INJ_WIN_PROF_STOP, 0, NULL);
	}
	/*
	 * NVIDIA's advice: finalize at an API's exit. trylock: a thread that
	 * holds the lock may be waiting inside CUPTI; the next exit will do.
	 */
	if (d->callbackSite == CUPTI_API_EXIT && atomic_load(&g_fin_req) &&
	    pthread_mutex_trylock(&g_att_mu) == 0) {
		if (atomic_load(&g_fin_req)) {
			atomic_store(&g_fin_req, false);
			if (check(F.cuptiFinalize(), "cuptiFinalize")) {
				g_sub = NULL; /* finalize ends every subscription */
				g_finalized = true;
			}
		}
		pthread_mutex_unlock(&g_att_mu);
	}
}

static bool subscribe(void)
{
	CUptiResult r;

	if (g_sub)
		return true;
	if (g_sub_failed || !F.cuptiSubscribe || !F.cuptiEnableCallback || !F.cuptiEnableDomain)
		return false;
	r = F.cuptiSubscribe(&g_sub, (CUpti_CallbackFunc)on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		g_sub = NULL;
		g_sub_failed = true;
		gp__inj_warn(
		    (uint32_t)r,
		    "cuptiSubscribe failed: %s (%d): another tool holds CUPTI's callbacks; "
		    "CUPTI stays attached between capture windows",
		    result_str(r), (int)r);
		return false;
	}
	if (gp__inj_win_profiler_api()) {
		check(F.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API,
		                            CUPTI_DRIVER_TRACE_CBID_cuProfilerStart),
		      "cuptiEnableCallback(cuProfilerStart)");
		check(F.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API,
		                            CUPTI_DRIVER_TRACE_CBID_cuProfilerStop),
		      "cuptiEnableCallback(cuProfilerStop)");
	}
	return true;
}

/* The clock: registered once; after a detach only when CUPTI no longer uses it. */
static void set_clock(void)
{
	uint64_t t;

	if (!F.cuptiActivityRegisterTimestampCallback) {
		if (!g_clock_set)
			gp__inj_warn(
			    0, "CUPTI has no timestamp callback: GPU times are on CUPTI's clock");
		g_clock_set = true;
		return;
	}
	/*
	 * After a finalize, always again: a real CUPTI 13.0 (H200) went on
	 * answering cuptiGetTimestamp with our clock but stamped the records of
	 * the next attach with its own, and they were dropped as off the clock.
	 */
	if (g_clock_set && !g_finalized && F.cuptiGetTimestamp &&
	    F.cuptiGetTimestamp(&t) == CUPTI_SUCCESS &&
	    llabs((long long)(t - gp__inj_now())) < 1000000000ll)
		return; /* still ours, CUPTI attached all along */
	if (check(F.cuptiActivityRegisterTimestampCallback(gp__inj_now),
	          "cuptiActivityRegisterTimestampCallback") &&
	    g_clock_set && !g_finalized)
		gp__inj_warn(0, "the clock callback was registered again after CUPTI detached");
	g_clock_set = true;
	g_finalized = false;
}

void gp__inj_cupti_attach(void)
{
	if (!g_usable || gp__inj_forked())
		return;
	pthread_mutex_lock(&g_att_mu);
	if (atomic_load(&g_fin_req)) {
		/* a detach still pending: cancel it, CUPTI is wanted again */
		atomic_store(&g_fin_req, false);
		if (g_sub) {
			F.cuptiEnableDomain(0, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
			F.cuptiEnableDomain(0, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
		}
	}
	if (atomic_load(&g_started))
		goto out;
	/* the one clock, before anything is enabled */
	set_clock();
	if (!check(F.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
	           "cuptiActivityRegisterCallbacks"))
		goto out;
	/*
	 * API records name their thread by pthread_self() cut to 32 bits unless
	 * asked otherwise; NVTX and annotation records, /proc and every other
	 * record of the capture by the kernel's thread id (gettid). Without this,
	 * no range could own the kernels launched inside it (seen on an H200).
	 */
	if (!F.cuptiSetThreadIdType ||
	    !check(F.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
	           "cuptiSetThreadIdType(SYSTEM)"))
		gp__inj_warn(0, "CUDA API calls carry CUPTI's own thread ids, not the system's: "
		                "NVTX and annotation ranges cannot own the GPU work launched in "
		                "them");
	for (size_t i = 0; i < sizeof(g_kinds) / sizeof(g_kinds[0]); i++) {
		CUptiResult r = F.cuptiActivityEnable(g_kinds[i]);

		if (r != CUPTI_SUCCESS)
			gp__inj_warn((uint32_t)r, "cuptiActivityEnable(kind %d) failed: %s (%d)",
			             (int)g_kinds[i], result_str(r), (int)r);
	}
	if (g_cuda_memory) {
		CUptiResult r = F.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2);

		if (r != CUPTI_SUCCESS)
			gp__inj_warn(
			    (uint32_t)r,
			    "cuptiActivityEnable(MEMORY2) failed: %s (%d): CUDA allocations "
			    "and frees are not recorded",
			    result_str(r), (int)r);
	}
	if (g_cuda_events) {
		check(F.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT),
		      "cuptiActivityEnable(CUDA_EVENT)");
		if (F.cuptiActivityEnableCudaEventDeviceTimestamps)
			check(F.cuptiActivityEnableCudaEventDeviceTimestamps(1),
			      "cuptiActivityEnableCudaEventDeviceTimestamps");
	}
	for (size_t i = 0;
	     F.cuptiActivityEnableDriverApi && i < sizeof(g_drv_on) / sizeof(g_drv_on[0]); i++)
		check(F.cuptiActivityEnableDriverApi(g_drv_on[i], 1),
		      "cuptiActivityEnableDriverApi");
	for (size_t i = 0;
	     F.cuptiActivityEnableRuntimeApi && i < sizeof(g_rt_off) / sizeof(g_rt_off[0]); i++)
		check(F.cuptiActivityEnableRuntimeApi(g_rt_off[i], 0),
		      "cuptiActivityEnableRuntimeApi");
	atomic_store(&g_started, true);
out:
	pthread_mutex_unlock(&g_att_mu);
}

void gp__inj_cupti_detach(bool finalize)
{
	if (!g_usable || gp__inj_forked())
		return;
	pthread_mutex_lock(&g_att_mu);
	if (!atomic_load(&g_started))
		goto out;
	for (size_t i = 0; F.cuptiActivityDisable && i < sizeof(g_kinds) / sizeof(g_kinds[0]); i++)
		F.cuptiActivityDisable(g_kinds[i]);
	if (g_cuda_events && F.cuptiActivityDisable)
		F.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
	if (g_cuda_memory && F.cuptiActivityDisable)
		F.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMORY2);
	for (size_t i = 0;
	     F.cuptiActivityEnableDriverApi && i < sizeof(g_drv_on) / sizeof(g_drv_on[0]); i++)
		F.cuptiActivityEnableDriverApi(g_drv_on[i], 0);
	/* what was recorded so far goes to the writer */
	F.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	atomic_store(&g_started, false);
	if (finalize && F.cuptiFinalize && subscribe()) {
		/* detach at the next runtime or driver API exit (on_callback) */
		atomic_store(&g_fin_req, true);
		F.cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
		F.cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
	}
out:
	pthread_mutex_unlock(&g_att_mu);
}

/*
 * The CUDA major release of a CUPTI API version (cupti_version.h): xxyyzz
 * from CUDA 13.0 on; 19..28 were CUDA 12.x, 13..18 CUDA 11.x; 0 older.
 */
static unsigned cuda_major(uint32_t v)
{
	if (v >= 10000)
		return v / 10000;
	return v >= 19 ? 12 : v >= 13 ? 11 : 0;
}

int gp__inj_cupti_load(void)
{
	const char *names[3] = { getenv("GPUPROF_CUPTI_LIBRARY"), "libcupti.so.13", "libcupti.so" };
	int nnames = names[0] && *names[0] ? 1 : 3; /* a library named by the user, or none */
	const char *v = getenv("GPUPROF_CUPTI_BUFFERS"), *ev = getenv("GPUPROF_CUDA_EVENTS");
	const char *mem = getenv("GPUPROF_CUDA_MEMORY");

	g_load_ns = (int64_t)gp__inj_now();
	for (int i = 0; i < nnames && !g_lib; i++)
		if (names[i] && *names[i])
			g_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!g_lib) {
		gp__inj_warn(0, "no CUPTI (%s): no GPU activity is recorded", dlerror());
		return -1;
	}
#define X_SYM(name) *(void **)(&F.name) = dlsym(g_lib, #name);
	GP_CUPTI_FUNCS(X_SYM)
#undef X_SYM
	if (v && *v && atoi(v) > 0 && atoi(v) <= 4096)
		g_max_bufs = (unsigned)atoi(v);
	g_cuda_events = ev && !strcmp(ev, "1");
	g_cuda_memory = !mem || strcmp(mem, "0") != 0;
	if (F.cuptiGetVersion)
		F.cuptiGetVersion(&g_version);
	/*
	 * The records are read with this build's cupti_activity.h structs, which
	 * hold within a CUDA major release: another release's records would be
	 * misread, or read past their end.
	 */
	if (cuda_major(g_version) != cuda_major(CUPTI_API_VERSION)) {
		gp__inj_warn(
		    0,
		    "CUPTI API version %u is not from CUDA %u (this tracer's CUPTI is %u): "
		    "its records cannot be read, no GPU activity is recorded; build gpuprof "
		    "with your program's CUDA or set GPUPROF_CUPTI_LIBRARY",
		    g_version, cuda_major(CUPTI_API_VERSION), CUPTI_API_VERSION);
		return -1;
	}
	if (!F.cuptiActivityRegisterCallbacks || !F.cuptiActivityEnable ||
	    !F.cuptiActivityGetNextRecord || !F.cuptiActivityFlushAll) {
		gp__inj_warn(0, "CUPTI lacks the activity API: no GPU activity is recorded");
		return -1;
	}
	g_usable = true;
	/* cudaProfilerApi: the subscription that sees the profiler calls, from the start */
	if (gp__inj_win_profiler_api() && !subscribe())
		gp__inj_warn(0, "--capture-range cudaProfilerApi cannot be followed: nothing is "
		                "recorded");
	return 0;
}
