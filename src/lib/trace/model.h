/* SPDX-License-Identifier: MIT */
/*
 * model.h - the trace model: one process's (one rank's) events in columns.
 *
 * Filled by the readers (kineto.c today, the capture reader later), read by
 * analyze/. Invariants, established by the reader and relied on everywhere:
 *  - times are int64 nanoseconds on the trace's own clock: for Kineto, the
 *    JSON "ts" (µs, parsed from its decimal text, never through a double) times
 *    1000, plus baseTimeNanoseconds when the file has it;
 *  - dur >= 0 (a negative dur is a format error);
 *  - every ts and ts + dur lies within ±GP_TIME_LIMIT (about ±146 years of
 *    ns), and the durations of all events, the |Bytes| of all memory events
 *    and the bytes of all copies each add up to at most GP_SUM_LIMIT, so any
 *    difference of two times, and any sum over a subset of the events, fits
 *    in int64 (hostile input cannot make an analysis overflow);
 *  - every id column holds -1 for "unknown"; unknown doubles are NaN;
 *  - string ids index t->strs; 0 is "";
 *  - events are kept in file order; analyses sort index lists as they need.
 * Only complete ("X") events are stored as events; python_function events
 * (half of a with_stack trace), flows and metadata are counted, not stored,
 * except the nn.Module calls (t->pymod, a side table).
 */
#ifndef GP_TRACE_MODEL_H
#define GP_TRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/trace.h"
#include "gpuprof/value.h"
#include "util/strtab.h"

#define GP_TIME_LIMIT ((INT64_C(1) << 62) - 1)
#define GP_SUM_LIMIT  ((INT64_C(1) << 62) - 1)

/** What an event is, from its category (both the 2021 and the modern Kineto names). */
enum gp_kind {
	GP_K_OTHER = 0,       /* an X event of any other category */
	GP_K_CPU_OP,          /* cpu_op, Operator (except ProfilerStep#N) */
	GP_K_USER_ANNOTATION, /* user_annotation, and ProfilerStep#N of either schema */
	GP_K_GPU_ANNOTATION,  /* gpu_user_annotation */
	GP_K_RUNTIME,         /* cuda_runtime, Runtime (also HIP runtime calls) */
	GP_K_DRIVER,          /* cuda_driver */
	GP_K_KERNEL,          /* kernel, Kernel */
	GP_K_MEMCPY,          /* gpu_memcpy, Memcpy */
	GP_K_MEMSET,          /* gpu_memset, Memset */
	GP_K_SYNC,            /* cuda_sync */
	GP_K_TRACE,           /* Trace ("PyTorch Profiler (0)") */
	GP_K_OVERHEAD,        /* overhead */
	GP_K__COUNT
};

/** Event flags. */
enum gp_ev_flag {
	GP_EVF_STEP = 1 << 0,       /* a CPU ProfilerStep#N annotation */
	GP_EVF_HAS_STREAM = 1 << 1, /* the event carried args.stream (also on CPU events) */
	GP_EVF_STARTEND = 1 << 2,   /* an NVTX start/end range (push/pop otherwise) */
	GP_EVF_XTHREAD = 1 << 3,    /* a start/end range ended on another thread: not projected */
	GP_EVF_MARK = 1 << 4        /* an NVTX mark (captures): dur 0, kind GP_K_OTHER */
};

/** Per-event details of GPU activity (kernel, memcpy, memset), indexed by aux. */
struct gp_gpu_info {
	int32_t device;       /* args.device, -1 unknown */
	int32_t grid[3];      /* -1 unknown */
	int32_t block[3];     /* -1 unknown */
	int32_t regs;         /* registers per thread, -1 unknown */
	int64_t shmem;        /* shared memory bytes, -1 unknown */
	int64_t bytes;        /* memcpy/memset bytes, -1 unknown */
	double blocks_per_sm; /* NaN unknown */
	double warps_per_sm;  /* NaN unknown */
	double occupancy_pct; /* est. achieved occupancy %, NaN unknown */
	double bw_gbps;       /* memory bandwidth (GB/s), NaN unknown */
	uint32_t collective;  /* args "Collective name" string id, 0 none */
};

/**
 * The collective metadata PyTorch writes in the args of NCCL/RCCL kernels and
 * of record_param_comms CPU ops, for one event (kernel or CPU op) that
 * carried at least one of these args. Kept in t->coll, sorted by ev (events
 * are added in file order), so gp__trace_coll() finds an event's by binary
 * search: the table costs nothing for the events without such args.
 * String ids are 0 when the arg was absent (or not a string); numbers are -1
 * when absent, not an integer, negative or beyond int64.
 */
struct gp_coll_info {
	uint32_t ev;                   /* the event's index */
	uint32_t name;                 /* "Collective name" */
	uint32_t dtype;                /* "dtype" (a c10 ScalarType name: "Float") */
	uint32_t pg_name, pg_desc;     /* "Process Group Name", "Process Group Description" */
	uint32_t pg_ranks;             /* "Process Group Ranks", as written ("[0, 1]") */
	uint32_t in_split, out_split;  /* "In split size", "Out split size", as written */
	int64_t in_nelems, out_nelems; /* "In msg nelems", "Out msg nelems" */
	int64_t group_size;            /* "Group size" */
	int64_t src_rank, dst_rank;    /* "Src Rank", "Dst Rank" (p2p) */
	int64_t seq;                   /* "Seq" */
};

/**
 * The inputs PyTorch records for a CPU op with record_shapes=True: the raw
 * JSON text of its "Input Dims", "Input type" and "Concrete Inputs" args
 * ("[[64, 128], [128, 256]]", "[\"float\", \"float\"]"), interned, so that
 * the many ops of one shape share one string; the analyses that need the
 * numbers parse them (analyze/opmodel.c). For captures of `gpuprof run
 * --pytorch shapes` the capture reader fills the same table from the op
 * ranges' names. Kept in t->opargs sorted by ev, like t->coll. String ids
 * are 0 when the arg was absent or not an array.
 */
struct gp_op_args {
	uint32_t ev;       /* the event's index (a GP_K_CPU_OP, or a range of a capture) */
	uint32_t dims;     /* "Input Dims" */
	uint32_t types;    /* "Input type" */
	uint32_t concrete; /* "Concrete Inputs" */
};

/**
 * What a cuda_sync event waited on (Kineto 2023+): its "cuda_sync_kind"
 * ("Stream Sync", "Event Sync", "Context Sync", "Stream Wait Event"), the
 * stream and the correlation id of the cudaEventRecord it waits for. The
 * event's own stream and correlation are in the event columns. Kept in
 * t->sync sorted by ev. Numbers are -1 when absent.
 */
struct gp_sync_info {
	uint32_t ev;
	uint32_t kind;           /* "cuda_sync_kind" string id, 0 absent */
	int64_t wait_stream;     /* "wait_on_stream" */
	int64_t wait_event_corr; /* "wait_on_cuda_event_record_corr_id" */
	int64_t wait_event_id;   /* "wait_on_cuda_event_id" */
};

/**
 * A python_function event of an nn.Module call, recorded with_modules or
 * with_stack ("nn.Module: Owlv2EncoderLayer_3"): the only python_function
 * events kept (the others are counted in npy). In file order in t->pymod.
 */
struct gp_py_module {
	int64_t ts, dur;
	uint32_t name;  /* string id of the whole name, "nn.Module: Block_23" */
	uint32_t track; /* the thread */
	int64_t id;     /* "Python id", -1 absent */
	int64_t parent; /* "Python parent id", -1 absent (null) */
};

/** A counter sample (captures: GPUPROF_COUNTER of the annotation API). */
struct gp_counter_sample {
	int64_t ts;
	double value;
	uint32_t name;  /* string id */
	uint32_t track; /* the thread that sampled it */
};

/** A [memory] instant event (profile_memory=True). */
struct gp_mem_event {
	int64_t ts;
	int64_t bytes;           /* signed: negative is a free */
	int64_t total_allocated; /* -1 unknown */
	int64_t total_reserved;  /* -1 unknown */
	int64_t addr;            /* -1 unknown */
	int32_t device;          /* "Device Id", -1 for CPU/unknown */
	int32_t device_type;     /* "Device Type": 0 CPU, 1 CUDA, -1 unknown */
	uint32_t track;
};

/**
 * A track: a host thread (pid, tid) or a GPU stream (device, stream). pid/tid
 * that are strings in the file ("stream 7", "Traces") keep their text in
 * pid_str/tid_str and have pid/tid = -1.
 */
struct gp_track {
	int64_t pid, tid;
	uint32_t pid_str, tid_str;
	uint32_t name; /* thread_name metadata, 0 none */
	bool gpu;      /* holds GPU activity */
	uint8_t set;   /* enum gp_track_set: what the reader set (for gp__trace_append) */
	int32_t device;
	int64_t stream;
};

/** Which track fields an event set explicitly (the merge of two halves needs it). */
enum gp_track_set {
	GP_TRS_DEVICE = 1 << 0, /* device came from args.device of a GPU event */
	GP_TRS_NAME = 1 << 1    /* name came from thread_name metadata */
};

/** Count of events by (ph, cat), for the overview. */
struct gp_cat_count {
	uint32_t cat; /* string id; 0: no cat */
	char ph;
	uint64_t count;
};

/** The events, as columns of equal length n. */
struct gp_events {
	size_t n, cap;
	int64_t *ts;
	int64_t *dur;
	int64_t *corr;   /* args.correlation, -1 unknown */
	int64_t *ext;    /* args."External id" (or "external id"), -1 unknown */
	int64_t *stream; /* args.stream, -1 unknown */
	uint32_t *name;
	uint32_t *track;
	uint32_t *aux; /* index into gpu_info, UINT32_MAX none */
	uint8_t *kind;
	uint8_t *flags;
};

struct gp_trace {
	char *path;
	struct gp_strtab strs;
	struct gp_events ev;

	struct gp_gpu_info *gpu;
	size_t ngpu, gpu_cap;

	struct gp_mem_event *mem;
	size_t nmem, mem_cap;

	/* collective metadata (struct gp_coll_info), sorted by event index */
	struct gp_coll_info *coll;
	size_t ncoll, coll_cap;

	/* record_shapes inputs of CPU ops (struct gp_op_args), sorted by event index */
	struct gp_op_args *opargs;
	size_t nopargs, opargs_cap;

	/* what cuda_sync events waited on (struct gp_sync_info), sorted by event index */
	struct gp_sync_info *sync;
	size_t nsync, sync_cap;

	/* nn.Module python_function events, in file order */
	struct gp_py_module *pymod;
	size_t npymod, pymod_cap;

	struct gp_track *tracks;
	size_t ntracks, tracks_cap;
	/* gp__trace_track's index: open addressing, slot = track index + 1, 0 empty */
	uint32_t *track_ix;
	size_t track_ix_slots;
	uint32_t track_last; /* the track found last (+ 1): the next lookup is often the same */

	/* python_function events: counted (the nn.Module ones are also kept in pymod) */
	size_t npy;

	struct gp_cat_count *cats;
	size_t ncats, cats_cap;
	bool cats_full; /* a (ph, cat) pair went uncounted: GP_TRACE_MAX_CATS reached */

	/* NVTX ranges of a named domain (captures): the name id of "domain:message" ->
	 * domain id << 32 | message id */
	struct gp_u64map nvtx_names;

	/* captures of the annotation API: a range's name id -> the string id of its first call
	 * site, "file:line" */
	struct gp_u64map range_src;

	/* counter samples, in file order; has_counters: the source can hold them (a capture) */
	struct gp_counter_sample *ctr;
	size_t nctr, ctr_cap;
	bool has_counters;

	/* metadata */
	struct gp_value *meta; /* top-level keys except traceEvents */
	int64_t rank;          /* distributedInfo.rank, -1 unknown */
	int64_t world_size;    /* -1 unknown */
	int64_t base_ns;       /* baseTimeNanoseconds, 0 when absent */
	bool has_base;
	bool ts_float;   /* some ts or dur had a fractional part (HTA rounds then) */
	bool bare_array; /* the file was a bare array of events */

	/* running sums behind the GP_SUM_LIMIT invariant */
	int64_t dur_sum, mem_bytes_sum, copy_bytes_sum;

	/* reading */
	uint64_t events_read; /* every element of traceEvents */
	uint64_t bytes_read;  /* uncompressed JSON bytes */
	bool salvaged;
	uint64_t damage_offset, lost_bytes;
};

#define GP_TRACE_MAX_CATS 4096u /* (ph, cat) pairs counted; more are dropped */

/** Device properties from the file (deviceProperties[]), for one device id. */
struct gp_device_props {
	int64_t id;
	const char *name;
	int64_t total_mem;
	int64_t num_sms;
	int64_t max_threads_per_sm;
	int64_t compute_major, compute_minor;
	int64_t warp_size; /* warpSize: 32 on NVIDIA, 64 on AMD Instinct; -1 unknown */
};

/** Looks up deviceProperties for @p device; @return false if absent. */
bool gp__trace_device_props(const struct gp_trace *t, int64_t device, struct gp_device_props *out);

/**
 * deviceProperties for @p device by its id; else, when every entry describes
 * one model (name and compute capability), that model (*by_id false): a ROCm
 * trace numbers its kernels' devices by agent (2, 9) and deviceProperties by
 * visible index (0). @return false when neither applies.
 */
bool gp__trace_device_model(const struct gp_trace *t, int64_t device, struct gp_device_props *out,
                            bool *by_id);

/** The @p k-th entry of deviceProperties (any id); @return false past the end. */
bool gp__trace_device_props_at(const struct gp_trace *t, size_t k, struct gp_device_props *out);

/** Who made a GPU; unknown is its own state. */
enum gp__vendor { GP_VENDOR_UNKNOWN = 0, GP_VENDOR_NVIDIA, GP_VENDOR_AMD };

/** "nvidia", "amd", or NULL for unknown: the vendor as the JSON documents spell it. */
const char *gp__vendor_name(enum gp__vendor v);

/**
 * The vendor of device @p p from its name (NVIDIA, Tesla, Quadro, GeForce,
 * TITAN; AMD, Radeon, Instinct), else a warp of 64 (AMD); unknown otherwise.
 */
enum gp__vendor gp__device_vendor(const struct gp_device_props *p);

/**
 * The vendor of the trace's GPUs: from deviceProperties when every entry
 * that tells agrees, else from the top-level keys a Kineto writes only on
 * one of them (hip_runtime_version, roctracer_version; cuda_runtime_version,
 * cupti_version). Unknown otherwise (the caller may look at the API names).
 */
enum gp__vendor gp__trace_vendor(const struct gp_trace *t);

/* Model construction (used by readers and tests). All return 0 or a negative status. */
int gp__trace_new(const char *path, struct gp_trace **out);
/**
 * Appends an event; every column gets its unknown value except those given.
 * GP_EFORMAT when @p ts / @p dur break the time or sum limits above.
 */
int gp__trace_add_event(struct gp_trace *t, enum gp_kind kind, uint32_t name, uint32_t track,
                        int64_t ts, int64_t dur, size_t *idx);
/** Adds GPU details to event @p idx (sets aux). */
int gp__trace_add_gpu_info(struct gp_trace *t, size_t idx, const struct gp_gpu_info *gi);
int gp__trace_add_mem(struct gp_trace *t, const struct gp_mem_event *m);
/**
 * Adds the collective metadata of event @p idx (@p ci->ev is set to it).
 * Events must be given in increasing index order; GP_EINVAL otherwise.
 */
int gp__trace_add_coll(struct gp_trace *t, size_t idx, const struct gp_coll_info *ci);
/** The collective metadata of event @p ev, or NULL when it carried none. */
const struct gp_coll_info *gp__trace_coll(const struct gp_trace *t, size_t ev);
/**
 * Adds the record_shapes inputs of event @p idx (@p oa->ev is set to it).
 * Events must be given in increasing index order; GP_EINVAL otherwise.
 */
int gp__trace_add_op_args(struct gp_trace *t, size_t idx, const struct gp_op_args *oa);
/** The record_shapes inputs of event @p ev, or NULL when it carried none. */
const struct gp_op_args *gp__trace_op_args(const struct gp_trace *t, size_t ev);
/** Adds what cuda_sync event @p idx waited on; increasing index order, as above. */
int gp__trace_add_sync(struct gp_trace *t, size_t idx, const struct gp_sync_info *si);
/** What cuda_sync event @p ev waited on, or NULL when it said nothing. */
const struct gp_sync_info *gp__trace_sync(const struct gp_trace *t, size_t ev);
/**
 * Appends an nn.Module call. GP_EFORMAT when its ts / dur break the time
 * limits (or dur < 0); its dur is not counted in dur_sum (it nests over events).
 */
int gp__trace_add_py_module(struct gp_trace *t, const struct gp_py_module *pm);
/** Checks that @p ts and @p ts + @p dur lie within ±GP_TIME_LIMIT. */
int gp__trace_check_time(int64_t ts, int64_t dur);
/** Finds or adds a track. @p pid_str / @p tid_str are string ids (0 when numeric). */
int gp__trace_track(struct gp_trace *t, int64_t pid, uint32_t pid_str, int64_t tid,
                    uint32_t tid_str, uint32_t *out);
int gp__trace_count_cat(struct gp_trace *t, char ph, uint32_t cat);
/**
 * Appends everything @p src holds after the events of @p dst, as if the
 * reader had gone on reading src's part of the file into dst: strings are
 * interned into dst in src's id order, tracks are found or added in src's
 * order (names, device and stream merged as later events would have set
 * them, using gp_track.set), GPU details, aux indices, memory events,
 * collective metadata (event indices shifted), (ph, cat) counts, the python count, events_read and
 * ts_float follow. dst keeps its metadata, bytes_read and flags otherwise. Because src's strings
 * and tracks are in first-use order, the ids in dst come out as a single reader would have made
 * them. @p src must not have dropped categories (src->cats_full). On failure (GP_ENOMEM, GP_ELIMIT)
 * dst is consistent but partly appended: the caller discards it.
 */
int gp__trace_append(struct gp_trace *dst, const struct gp_trace *src);
/** Kind from a category string (NULL/"" for none). */
enum gp_kind gp__kind_from_cat(const char *cat, size_t len);
/** @return the kind's canonical name ("kernel", "cpu_op", ...). */
const char *gp__kind_name(enum gp_kind k);

/** The device of GPU event @p i: args.device, else its track's device, else -1. */
static inline int32_t gp__ev_device(const struct gp_trace *t, size_t i)
{
	uint32_t aux = t->ev.aux[i], tr = t->ev.track[i];

	if (aux < t->ngpu && t->gpu[aux].device >= 0)
		return t->gpu[aux].device;
	if (tr < t->ntracks && t->tracks[tr].gpu)
		return t->tracks[tr].device;
	return -1;
}

static inline const char *gp__ev_name(const struct gp_trace *t, size_t i)
{
	return gp__strtab_get(&t->strs, t->ev.name[i]);
}

#endif
