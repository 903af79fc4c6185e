/* SPDX-License-Identifier: MIT */
/*
 * fake-cupti.h - the control API of libfake-cupti.so (tests/fake/fake-cupti.c),
 * the stand-in for libcupti that lets the injected tracer run without a GPU.
 *
 * A test program (cuda_host_sim, the unit tests) loads the fake the way the
 * tracer does, then reaches these functions with dlsym() on the handle of
 * dlopen(path, RTLD_NOW | RTLD_NOLOAD) of the same file; FAKE_CUPTI_CONTROL_FUNCS
 * lists them for such loaders, FAKE_CUPTI_FUNCS the CUPTI functions the fake
 * defines (with CUDA 13's signatures, checked against cupti.h when the fake
 * is built). Every function is thread-safe unless it says otherwise.
 */
#ifndef FAKE_CUPTI_H
#define FAKE_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#define FAKE_CUPTI_API __attribute__((visibility("default")))

/* X(return type, name, parameters) for each CUPTI function the fake defines */
#define FAKE_CUPTI_FUNCS(X)                                                                        \
	X(CUptiResult, cuptiGetVersion, (uint32_t * version))                                      \
	X(CUptiResult, cuptiGetResultString, (CUptiResult result, const char **str))               \
	X(CUptiResult, cuptiGetTimestamp, (uint64_t * timestamp))                                  \
	X(CUptiResult, cuptiActivityRegisterTimestampCallback,                                     \
	  (CUpti_TimestampCallbackFunc funcTimestamp))                                             \
	X(CUptiResult, cuptiActivityRegisterCallbacks,                                             \
	  (CUpti_BuffersCallbackRequestFunc funcBufferRequested,                                   \
	   CUpti_BuffersCallbackCompleteFunc funcBufferCompleted))                                 \
	X(CUptiResult, cuptiActivityEnable, (CUpti_ActivityKind kind))                             \
	X(CUptiResult, cuptiActivityDisable, (CUpti_ActivityKind kind))                            \
	X(CUptiResult, cuptiActivityEnableDriverApi, (CUpti_CallbackId cbid, uint8_t enable))      \
	X(CUptiResult, cuptiActivityEnableRuntimeApi, (CUpti_CallbackId cbid, uint8_t enable))     \
	X(CUptiResult, cuptiActivitySetAttribute,                                                  \
	  (CUpti_ActivityAttribute attr, size_t * valueSize, void *value))                         \
	X(CUptiResult, cuptiActivityGetAttribute,                                                  \
	  (CUpti_ActivityAttribute attr, size_t * valueSize, void *value))                         \
	X(CUptiResult, cuptiActivityFlushAll, (uint32_t flag))                                     \
	X(CUptiResult, cuptiActivityFlushPeriod, (uint32_t time))                                  \
	X(CUptiResult, cuptiActivityGetNextRecord,                                                 \
	  (uint8_t * buffer, size_t validBufferSizeBytes, CUpti_Activity * *record))               \
	X(CUptiResult, cuptiActivityGetNumDroppedRecords,                                          \
	  (CUcontext context, uint32_t streamId, size_t * dropped))                                \
	X(CUptiResult, cuptiGetCallbackName,                                                       \
	  (CUpti_CallbackDomain domain, uint32_t cbid, const char **name))                         \
	X(CUptiResult, cuptiSubscribe,                                                             \
	  (CUpti_SubscriberHandle * subscriber, CUpti_CallbackFunc callback, void *userdata))      \
	X(CUptiResult, cuptiUnsubscribe, (CUpti_SubscriberHandle subscriber))                      \
	X(CUptiResult, cuptiEnableCallback,                                                        \
	  (uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,        \
	   CUpti_CallbackId cbid))                                                                 \
	X(CUptiResult, cuptiEnableDomain,                                                          \
	  (uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain))       \
	X(CUptiResult, cuptiFinalize, (void))                                                      \
	X(CUptiResult, cuptiSetThreadIdType, (CUpti_ActivityThreadIdType type))                    \
	X(CUptiResult, cuptiActivityPushExternalCorrelationId,                                     \
	  (CUpti_ExternalCorrelationKind kind, uint64_t id))                                       \
	X(CUptiResult, cuptiActivityPopExternalCorrelationId,                                      \
	  (CUpti_ExternalCorrelationKind kind, uint64_t * lastId))

/* What fake_cupti_emit() did with a record. */
enum fake_cupti_emit_result {
	FAKE_CUPTI_RECORDED = 0,    /* copied into the current buffer */
	FAKE_CUPTI_NOT_ENABLED = 1, /* its kind (or API cbid) is not enabled: not recorded */
	FAKE_CUPTI_DROPPED = 2,     /* no usable buffer: counted as dropped */
	FAKE_CUPTI_BAD_RECORD = -1, /* NULL, unknown kind, or size != that kind's struct */
	FAKE_CUPTI_BUSY = -2,       /* called from a buffer callback of the emitting thread */
};

/* A snapshot of the fake's state (fake_cupti_get_state). Counters run from load or reset. */
struct fake_cupti_state {
	/* clock */
	bool ts_registered;         /* a timestamp callback is registered */
	unsigned ts_register_calls; /* successful cuptiActivityRegisterTimestampCallback calls */
	bool ts_before_enable;      /* the first registration came before any kind was enabled */
	bool any_enabled; /* some cuptiActivityEnable has succeeded (not reset by finalize) */
	/* activity */
	bool callbacks_registered; /* cuptiActivityRegisterCallbacks */
	bool enabled[CUPTI_ACTIVITY_KIND_COUNT];
	uint32_t flush_period_ms;   /* cuptiActivityFlushPeriod; 0: CUPTI's heuristic */
	uint64_t flushes_forced;    /* cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) */
	uint64_t flushes_unforced;  /* cuptiActivityFlushAll(0) */
	uint64_t buffers_requested; /* calls of bufferRequested */
	uint64_t buffers_completed; /* calls of bufferCompleted, rejected buffers included */
	uint64_t buffers_rejected;  /* handed back unused: misaligned or too small */
	uint64_t records_emitted;   /* copied into a buffer */
	uint64_t records_dropped;   /* no buffer, plus fake_cupti_add_dropped */
	uint64_t records_not_enabled;
	uint64_t records_lost;  /* in the buffer that cuptiFinalize discarded */
	size_t dropped_pending; /* what cuptiActivityGetNumDroppedRecords returns next */
	size_t cur_records;     /* records in the current (not yet completed) buffers */
	size_t cur_bytes;
	/* callback API */
	bool subscribed;
	uint64_t callbacks_delivered;
	/* lifecycle and configuration */
	uint64_t finalize_calls;
	bool config_error; /* FAKE_CUPTI_FAIL held an unknown name or bad code */
	/* per-thread API buffers (FAKE_CUPTI_ORDER): threads that have one now */
	size_t thread_buffers;
};

/**
 * The current time in ns on CUPTI's clock: the registered timestamp callback's
 * value, or CLOCK_REALTIME when none is registered (CUPTI's default on Linux).
 * Use it to stamp the records handed to fake_cupti_emit().
 */
FAKE_CUPTI_API uint64_t fake_cupti_now(void);

/**
 * Records one activity record: @p record is a complete CUPTI record struct of
 * @p size bytes (exactly sizeof the struct of its kind: fake_cupti_record_size).
 * It is copied, 8-byte aligned, into the current buffer (with
 * FAKE_CUPTI_ORDER=device-first or api-first, an API record into the calling
 * thread's buffer, any other into the device buffer: fake-cupti.c); a buffer
 * that cannot take it (bytes or maxNumRecords) is first completed, and a new
 * one requested, on the calling thread. Pointers inside the record (a kernel's name) are
 * copied as they are: keep what they point at alive until the buffer is read.
 * A record of a kind that is not enabled is not recorded; neither is a
 * RUNTIME/DRIVER record whose cbid was switched off with
 * cuptiActivityEnable{Runtime,Driver}Api (a cbid switched on is recorded
 * without its kind), as in CUPTI.
 * @return an enum fake_cupti_emit_result (0: recorded)
 */
FAKE_CUPTI_API int fake_cupti_emit(const void *record, size_t size);

/** The size of the record struct of @p kind, 0 for a kind the fake does not know. */
FAKE_CUPTI_API size_t fake_cupti_record_size(CUpti_ActivityKind kind);

/** Counts @p n records as dropped, as if CUPTI had lost them (device buffers full). */
FAKE_CUPTI_API void fake_cupti_add_dropped(size_t n);

/**
 * A CUDA API call reaching CUPTI's callback API: when the subscriber has
 * (@p domain, @p cbid) enabled, calls it on this thread with a
 * CUpti_CallbackData holding @p site, @p functionName, a correlationId and
 * correlationData shared by an ENTER and the matching (nested) EXIT on the
 * same thread; every other field is zero or NULL. Only the RUNTIME_API and
 * DRIVER_API domains; others are ignored.
 */
FAKE_CUPTI_API void fake_cupti_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                        CUpti_ApiCallbackSite site, const char *functionName);

/** Copies the fake's state into @p out. */
FAKE_CUPTI_API void fake_cupti_get_state(struct fake_cupti_state *out);

/**
 * The per-cbid activity setting of cuptiActivityEnable{Runtime,Driver}Api
 * for @p domain (CUPTI_CB_DOMAIN_RUNTIME_API or _DRIVER_API).
 * @return 1 on, 0 off, -1 unset (or a bad domain or cbid); enabling or
 * disabling the RUNTIME or DRIVER kind clears that domain's settings
 */
FAKE_CUPTI_API int fake_cupti_api_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/** 1 when the subscriber has callback (@p domain, @p cbid) enabled, else 0. */
FAKE_CUPTI_API int fake_cupti_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/**
 * The calling thread's external correlation stack for @p kind: its depth,
 * and its top id in @p top (when not NULL and the stack is not empty).
 */
FAKE_CUPTI_API size_t fake_cupti_external_depth(CUpti_ExternalCorrelationKind kind, uint64_t *top);

/** Calls of CUPTI function @p name (failed ones included), -1 for a name the fake lacks. */
FAKE_CUPTI_API long long fake_cupti_calls(const char *name);

/**
 * Back to the state of a fresh load: callbacks, enables, counters forgotten;
 * FAKE_CUPTI_FAIL is read again at the next CUPTI call. A buffer still held
 * is forgotten, not completed (flush first). Call it with no other thread in
 * the library.
 */
FAKE_CUPTI_API void fake_cupti_reset(void);

/*
 * The threadId that CUPTI puts in the API records of the calling thread: the
 * low 32 bits of pthread_self() (CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT on
 * Linux), or the kernel's thread id (gettid) once the client has called
 * cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM). A test program
 * fills its API records' threadId with this, as CUPTI would.
 */
FAKE_CUPTI_API uint32_t fake_cupti_thread_id(void);

/* X(return type, name, parameters) for each control function, for dlsym loaders */
#define FAKE_CUPTI_CONTROL_FUNCS(X)                                                                \
	X(uint64_t, fake_cupti_now, (void))                                                        \
	X(int, fake_cupti_emit, (const void *record, size_t size))                                 \
	X(size_t, fake_cupti_record_size, (CUpti_ActivityKind kind))                               \
	X(void, fake_cupti_add_dropped, (size_t n))                                                \
	X(void, fake_cupti_callback,                                                               \
	  (CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,         \
	   const char *functionName))                                                              \
	X(void, fake_cupti_get_state, (struct fake_cupti_state * out))                             \
	X(int, fake_cupti_api_enabled, (CUpti_CallbackDomain domain, CUpti_CallbackId cbid))       \
	X(int, fake_cupti_callback_enabled, (CUpti_CallbackDomain domain, CUpti_CallbackId cbid))  \
	X(size_t, fake_cupti_external_depth, (CUpti_ExternalCorrelationKind kind, uint64_t * top)) \
	X(long long, fake_cupti_calls, (const char *name))                                         \
	X(uint32_t, fake_cupti_thread_id, (void))                                                  \
	X(void, fake_cupti_reset, (void))

#endif
