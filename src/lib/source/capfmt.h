/* SPDX-License-Identifier: MIT */
/*
 * capfmt.h - the capture file format (docs/capture-format.md), shared by the
 * writer in the injected tracer (src/inject/) and the reader in libgpuprof.
 *
 * A capture file is one process's stream: a 16-byte header, then records,
 * each an 8-byte record header (type, payload size) and the payload, padded
 * with zeros to a multiple of 8. Everything is little-endian. Records are
 * only ever appended, whole: a file cut anywhere (a process killed with
 * SIGKILL) reads as every record before the cut.
 *
 * Compatibility: a reader skips record types it does not know; a payload
 * longer than the struct below carries fields a newer writer appended
 * (ignored), a shorter one is zero-extended if it holds at least the fields
 * of version 1 (GP_CAP_MIN_*). An incompatible change bumps GP_CAP_VERSION.
 */
#ifndef GP_CAPFMT_H
#define GP_CAPFMT_H

#include <stdint.h>

#define GP_CAP_MAGIC       "GPCAPT\r\n" /* 8 bytes; \r\n catches text-mode mangling */
#define GP_CAP_VERSION     1u
#define GP_CAP_HEADER_SIZE 16u
#define GP_CAP_MAX_PAYLOAD (16u << 20) /* larger is damage */
#define GP_CAP_SUFFIX      ".gpcap"

struct gp_cap_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size; /* 16; a larger header is skipped */
};

struct gp_cap_rec_header {
	uint32_t type; /* enum gp_cap_type */
	uint32_t size; /* payload bytes, without the padding */
};

enum gp_cap_type {
	GP_CAP_META = 1,        /* JSON object: the process (first record) */
	GP_CAP_END = 2,         /* JSON object: the end of the capture */
	GP_CAP_WARN = 3,        /* struct gp_cap_warn + UTF-8 text */
	GP_CAP_STRING = 4,      /* struct gp_cap_string + the bytes */
	GP_CAP_KERNEL = 5,      /* struct gp_cap_kernel */
	GP_CAP_MEMCPY = 6,      /* struct gp_cap_memcpy */
	GP_CAP_MEMSET = 7,      /* struct gp_cap_memset */
	GP_CAP_API = 8,         /* struct gp_cap_api */
	GP_CAP_SYNC = 9,        /* struct gp_cap_sync */
	GP_CAP_OVERHEAD = 10,   /* struct gp_cap_overhead */
	GP_CAP_DEVICE = 11,     /* struct gp_cap_device */
	GP_CAP_CONTEXT = 12,    /* struct gp_cap_context */
	GP_CAP_NVTX = 13,       /* struct gp_cap_nvtx + the message (UTF-8, may be empty) */
	GP_CAP_DROPPED = 14,    /* struct gp_cap_dropped */
	GP_CAP_THREAD = 15,     /* struct gp_cap_thread + the name */
	GP_CAP_WINDOW = 16,     /* struct gp_cap_window: capture on or off */
	GP_CAP_CUDA_EVENT = 17, /* struct gp_cap_cuda_event (GPUPROF_CUDA_EVENTS=1) */
	GP_CAP_SITE = 18,       /* struct gp_cap_site: an annotation call site */
	GP_CAP_COUNTER = 19,    /* struct gp_cap_counter: a counter sample */
	GP_CAP_FLUSH = 20,      /* struct gp_cap_flush: the end of one write pass */
	GP_CAP_MEM = 21         /* struct gp_cap_mem: a CUDA allocation or free (CUPTI MEMORY2) */
};

/*
 * Times are int64 ns of CLOCK_MONOTONIC (the tracer registers that clock with
 * CUPTI before enabling anything, and stamps NVTX with it). META holds one
 * (monotonic, realtime) pair taken together, to show wall time.
 */

struct gp_cap_warn {
	int64_t ts;
	uint32_t code; /* CUPTI result or errno, 0 none */
	uint32_t pad;
	/* followed by the text */
};

/* A string for the ids below (kernel names, API names, NVTX domains, registered strings). */
struct gp_cap_string {
	uint32_t id; /* > 0, unique in the file */
	uint32_t pad;
	/* followed by the bytes, no NUL */
};

struct gp_cap_kernel {
	int64_t start, end;
	uint32_t device, context, stream, correlation;
	int32_t grid[3], block[3];
	uint32_t name; /* string id (the mangled name as CUPTI gives it) */
	uint16_t regs; /* registers per thread */
	uint8_t launch_type, is_device_launched;
	uint32_t static_smem, dynamic_smem; /* bytes per block */
	uint32_t graph_id, pad;             /* graph_id 0: not in a graph */
	uint64_t graph_node_id;
};
#define GP_CAP_MIN_KERNEL sizeof(struct gp_cap_kernel)

/* copy kinds and memory kinds: CUPTI's numbers (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind)
 */
struct gp_cap_memcpy {
	int64_t start, end;
	uint64_t bytes;
	uint32_t device, context, stream, correlation;
	uint32_t runtime_correlation;
	uint8_t copy_kind, src_kind, dst_kind, flags; /* flags: 1 async */
	uint32_t src_device, dst_device;              /* peer copies; else = device */
	uint32_t pad;
};
#define GP_CAP_MIN_MEMCPY sizeof(struct gp_cap_memcpy)

struct gp_cap_memset {
	int64_t start, end;
	uint64_t bytes;
	uint32_t device, context, stream, correlation;
	uint32_t value;
	uint8_t memory_kind, flags, pad[2];
};
#define GP_CAP_MIN_MEMSET sizeof(struct gp_cap_memset)

enum gp_cap_api_domain { GP_CAP_RUNTIME = 1, GP_CAP_DRIVER = 2, GP_CAP_INTERNAL_LAUNCH = 3 };

struct gp_cap_api {
	int64_t start, end;
	uint32_t pid, tid; /* tid: the thread id CUPTI gives (the kernel tid on Linux) */
	uint32_t correlation, cbid;
	uint32_t name; /* string id of the API's name */
	int32_t ret;   /* its return value */
	uint8_t domain, pad[7];
};
#define GP_CAP_MIN_API sizeof(struct gp_cap_api)

struct gp_cap_sync {
	int64_t start, end;
	uint32_t type; /* CUpti_ActivitySynchronizationType: 1 event, 2 stream-wait-event, 3 stream,
	                  4 context */
	uint32_t context, stream, correlation;
	uint32_t event, pad;
};
#define GP_CAP_MIN_SYNC sizeof(struct gp_cap_sync)

struct gp_cap_overhead {
	int64_t start, end;
	uint32_t kind;        /* CUpti_ActivityOverheadKind */
	uint32_t object_kind; /* CUpti_ActivityObjectKind */
	uint32_t pid, tid;    /* or device, 0 */
	uint32_t correlation, pad;
};
#define GP_CAP_MIN_OVERHEAD sizeof(struct gp_cap_overhead)

struct gp_cap_device {
	uint32_t id;
	uint32_t name; /* string id */
	uint64_t global_memory_bytes;
	uint32_t cc_major, cc_minor;
	uint32_t sm_count, max_threads_per_sm;
	uint32_t max_warps_per_sm, max_regs_per_sm;
	uint32_t max_smem_per_sm, pad;
	uint8_t uuid[16];
};
#define GP_CAP_MIN_DEVICE sizeof(struct gp_cap_device)

struct gp_cap_context {
	uint32_t context, device, null_stream, pad;
};
#define GP_CAP_MIN_CONTEXT sizeof(struct gp_cap_context)

enum gp_cap_nvtx_kind {
	GP_NVTX_PUSH = 1,  /* a push/pop range opens on tid */
	GP_NVTX_POP = 2,   /* the innermost open push/pop range of tid closes */
	GP_NVTX_START = 3, /* a start/end range opens; id pairs it with its END */
	GP_NVTX_END = 4,
	GP_NVTX_MARK = 5,       /* an instant */
	GP_NVTX_DOMAIN = 6,     /* a domain is created: id, message = its name */
	GP_NVTX_NAME_THREAD = 7 /* message names thread id */
};

struct gp_cap_nvtx {
	int64_t ts;
	uint32_t tid;
	uint8_t kind, pad[3];
	uint32_t domain;   /* 0: the default domain; else a GP_NVTX_DOMAIN id */
	uint32_t name;     /* registered-string id, 0: the message follows inline */
	uint64_t id;       /* start/end pairing, domain id, thread id */
	uint32_t color;    /* ARGB, 0 none */
	uint32_t category; /* 0 none */
	                   /* followed by the message */
};
#define GP_CAP_MIN_NVTX sizeof(struct gp_cap_nvtx)

struct gp_cap_dropped {
	int64_t ts;
	uint64_t cupti_records; /* cuptiActivityGetNumDroppedRecords, summed */
	uint64_t cupti_buffers; /* buffers refused (the memory bound) */
	uint64_t nvtx_records;  /* NVTX events lost (the memory bound, or after fork) */
	uint64_t write_bytes;   /* bytes that could not be written (disk full, ...) */
};
#define GP_CAP_MIN_DROPPED sizeof(struct gp_cap_dropped)

struct gp_cap_thread {
	uint32_t tid, pad;
	/* followed by the name */
};

struct gp_cap_window {
	int64_t ts;
	uint32_t on;     /* 1: capture starts, 0: it stops */
	uint32_t reason; /* enum gp_cap_window_reason */
};

#define GP_CAP_MIN_WINDOW sizeof(struct gp_cap_window)

/* A cudaEventRecord as CUPTI's CUDA_EVENT kind reports it */
struct gp_cap_cuda_event {
	uint64_t device_ts;   /* CUPTI's device-side timestamp (ns, GPU clock); 0 unknown */
	uint32_t correlation; /* of the cudaEventRecord call */
	uint32_t context, stream, event, device, pad;
};
#define GP_CAP_MIN_CUDA_EVENT sizeof(struct gp_cap_cuda_event)

/*
 * An annotation call site (include/gpuprof/annotate.h): its name is the STRING
 * @id, registered once per site, and NVTX records whose registered-string id
 * is @id (ranges and frame marks in the "gpuprof" domain) come from it.
 */
struct gp_cap_site {
	uint32_t id;   /* string id of the name (the site's id) */
	uint32_t line; /* 0 unknown */
	uint32_t file; /* string id, 0 unknown */
	uint32_t func; /* string id, 0 unknown */
};
#define GP_CAP_MIN_SITE sizeof(struct gp_cap_site)

/*
 * A counter sample (GPUPROF_COUNTER); the name is a STRING id (a site's, as
 * above), or 0 when the name is given by value: then the bytes after the
 * struct are the name (UTF-8, cut at 4 KiB), as an NVTX record's message
 */
struct gp_cap_counter {
	int64_t ts;
	uint32_t tid;
	uint32_t name; /* string id */
	double value;
};
#define GP_CAP_MIN_COUNTER sizeof(struct gp_cap_counter)

/*
 * The last record of each pass of the writer: what the process recorded
 * before @ts is in the file before this record, but for what CUPTI had not
 * handed over yet (its buffers are returned when full, or at exit). A
 * capture without END ends at its last FLUSH: what came after is lost.
 */
struct gp_cap_flush {
	int64_t ts;    /* CLOCK_MONOTONIC when the pass began */
	uint64_t pass; /* 1, 2, ... */
};
#define GP_CAP_MIN_FLUSH sizeof(struct gp_cap_flush)

/*
 * An allocation or a free of CUDA memory, as CUPTI's MEMORY2 kind reports it
 * (CUpti_ActivityMemory4): one record per operation, joined to the runtime
 * or driver call that made it (cudaMalloc, cudaFree, cudaMallocAsync,
 * cuMemAlloc, ...) by its correlation id. Added within version 1 (a reader
 * that predates it skips it). Numbers are CUPTI's: op
 * CUpti_ActivityMemoryOperationType, memory_kind CUpti_ActivityMemoryKind,
 * pool_type CUpti_ActivityMemoryPoolType; context and stream 0xffffffff when
 * CUPTI gives none (a synchronous operation has no stream).
 */
struct gp_cap_mem {
	int64_t ts;
	uint64_t addr;                            /* the allocation's virtual address */
	uint64_t bytes;                           /* its size (a free: the size freed) */
	uint64_t pool_addr, pool_size, pool_used; /* the memory pool's base, size, utilized */
	uint32_t device, context, stream, correlation;
	uint32_t pid;
	uint8_t op;          /* 1 allocation, 2 release */
	uint8_t memory_kind; /* 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6-7 static */
	uint8_t flags;       /* GP_CAP_MEM_ASYNC */
	uint8_t pool_type;   /* 0 none, 1 local, 2 imported */
};
#define GP_CAP_MIN_MEM   sizeof(struct gp_cap_mem)
#define GP_CAP_MEM_ASYNC 1u /* an async memory API (cudaMallocAsync, cudaFreeAsync) */

enum gp_cap_window_reason {
	GP_WIN_START = 1,        /* at start (no range, or after --delay) */
	GP_WIN_DURATION = 2,     /* --duration elapsed */
	GP_WIN_NVTX = 3,         /* the --capture-range nvtx range */
	GP_WIN_PROFILER_API = 4, /* cudaProfilerStart/Stop */
	GP_WIN_SCHEDULE = 5,     /* --schedule */
	GP_WIN_EXIT = 6
};

#endif
