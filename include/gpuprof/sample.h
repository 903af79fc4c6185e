/* SPDX-License-Identifier: MIT */
/*
 * sample.h - the sampler: live GPU metrics from NVML (dlopen'd at run time,
 * no header or link needed) and host metrics from procfs, taken on a
 * drift-free schedule on their own thread and kept in a bounded history.
 *
 * Every metric carries a validity bit: a field whose bit is clear is unknown
 * (not supported, not readable, or the call failed), never 0. `gpuprof top`
 * and `gpuprof run` share this sampler.
 *
 * Ownership: a struct gp_sample is plain data (fixed-size arrays, no
 * pointers), filled by the library into caller memory. The sampler belongs
 * to its caller: gp_sampler_close() stops its thread and frees it.
 */
#ifndef GPUPROF_SAMPLE_H
#define GPUPROF_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_SAMPLE_MAX_GPUS  32    /**< GPUs reported; more are counted, not sampled */
#define GP_SAMPLE_MAX_PROCS 32    /**< processes listed per GPU; more are counted */
#define GP_SAMPLE_MAX_CPUS  512   /**< cores with a per-core busy %; more are counted */
#define GP_INTERVAL_MIN_MS  1     /**< shortest sampling interval */
#define GP_INTERVAL_MAX_MS  60000 /**< longest sampling interval */

/** The per-GPU numeric fields, each with a bit in gp_gpu_sample.valid. */
enum gp_gpu_field {
	GP_GF_MEM_TOTAL,     /**< mem_total_bytes */
	GP_GF_MEM_USED,      /**< mem_used_bytes */
	GP_GF_MEM_RESERVED,  /**< mem_reserved_bytes (driver-reserved) */
	GP_GF_UTIL_GPU,      /**< util_gpu: a kernel ran, share of the driver's last period */
	GP_GF_UTIL_MEM,      /**< util_mem: memory was read or written, same period */
	GP_GF_CLOCK_SM,      /**< clock_sm_hz */
	GP_GF_CLOCK_MEM,     /**< clock_mem_hz */
	GP_GF_CLOCK_GR,      /**< clock_graphics_hz */
	GP_GF_CLOCK_SM_MAX,  /**< clock_sm_max_hz */
	GP_GF_CLOCK_MEM_MAX, /**< clock_mem_max_hz */
	GP_GF_CLOCK_GR_MAX,  /**< clock_graphics_max_hz */
	GP_GF_TEMP,          /**< temp_celsius */
	GP_GF_TEMP_SLOWDOWN, /**< temp_slowdown_celsius: where the GPU starts slowing down */
	GP_GF_POWER,         /**< power_watts */
	GP_GF_POWER_LIMIT,   /**< power_limit_watts (enforced) */
	GP_GF_ENERGY,        /**< energy_joules: cumulative since the driver loaded */
	GP_GF_PCIE_TX,       /**< pcie_tx_bytes_per_second */
	GP_GF_PCIE_RX,       /**< pcie_rx_bytes_per_second */
	GP_GF_CLOCK_REASONS, /**< clock_event_reasons: NVML clock-event (throttle) bits */
	GP_GF_PROCS,         /**< nprocs/procs: the process list was read */
	GP_GF_COUNT
};

/** One process using a GPU. */
struct gp_gpu_proc {
	uint32_t pid;
	bool mem_valid, util_valid;
	uint64_t mem_bytes; /**< GPU memory used by the process */
	double util_sm;     /**< 0..1 share of SM time, when the driver reports it */
};

/** One GPU at one instant. Strings are NUL-terminated, "" when unknown. */
struct gp_gpu_sample {
	uint32_t index; /**< NVML index */
	char name[96];
	char uuid[96];
	char pci_bus_id[32];
	uint64_t valid; /**< bit (1 << enum gp_gpu_field) set: the field is known */
	uint64_t mem_total_bytes, mem_used_bytes, mem_reserved_bytes;
	double util_gpu, util_mem; /**< ratios 0..1 */
	double clock_sm_hz, clock_mem_hz, clock_graphics_hz;
	double clock_sm_max_hz, clock_mem_max_hz, clock_graphics_max_hz;
	double temp_celsius, temp_slowdown_celsius;
	double power_watts, power_limit_watts;
	double energy_joules;
	double pcie_tx_bytes_per_second, pcie_rx_bytes_per_second;
	uint64_t clock_event_reasons;
	uint32_t nprocs;    /**< processes listed in procs[] */
	uint32_t procs_all; /**< processes the driver reported (>= nprocs) */
	struct gp_gpu_proc procs[GP_SAMPLE_MAX_PROCS];
	/** 0; or negative when the GPU could not be read this time (see error) */
	int status;
	char error[160];
};

/** The host fields, each with a bit in gp_host_sample.valid. */
enum gp_host_field {
	GP_HF_CPU_BUSY, /**< cpu_busy and cpu_core_busy[] (needs two reads, 250 ms apart) */
	GP_HF_MEM,      /**< mem_total_bytes, mem_available_bytes */
	GP_HF_LOAD,     /**< load1, load5, load15 */
	GP_HF_PROC_CPU, /**< proc_cpu: CPU of the watched process tree (needs two samples) */
	GP_HF_PROC_RSS, /**< proc_rss_bytes of the watched process tree */
	GP_HF_COUNT
};

/** The host at one instant. */
struct gp_host_sample {
	uint64_t valid; /**< bit (1 << enum gp_host_field) set: the field is known */
	/**
	 * 0..1 over all cores between the last two reads of /proc/stat, at
	 * most every 250 ms (its counters move in 10 ms ticks); a sample in
	 * between carries the last values, cpu_core_busy[] too
	 */
	double cpu_busy;
	uint32_t ncpus; /**< cores in cpu_core_busy[] */
	uint32_t ncpus_all;
	float cpu_core_busy[GP_SAMPLE_MAX_CPUS];
	uint64_t mem_total_bytes, mem_available_bytes;
	double load1, load5, load15;
	int32_t proc_pid;    /**< root of the watched tree, 0 none */
	uint32_t proc_count; /**< processes in the tree */
	double proc_cpu;     /**< cores used by the tree (1.0 = one full core) */
	uint64_t proc_rss_bytes;
};

/** One sample of everything. */
struct gp_sample {
	uint64_t seq;      /**< 1, 2, ... in the order taken */
	int64_t t_mono_ns; /**< CLOCK_MONOTONIC when taken */
	int64_t t_real_ns; /**< CLOCK_REALTIME when taken */
	int64_t cost_ns;   /**< how long taking it took */
	struct gp_host_sample host;
	uint32_t ngpus; /**< GPUs in gpus[] */
	struct gp_gpu_sample gpus[GP_SAMPLE_MAX_GPUS];
};

/* ---- the history ---- */

/** Metrics kept in the history, per GPU (enum gp_gpu_field order up to GP_GF_CLOCK_REASONS). */
#define GP_HIST_GPU_FIELDS GP_GF_CLOCK_REASONS
/** Host metrics kept in the history. */
enum gp_hist_host { GP_HH_CPU_BUSY, GP_HH_MEM_USED, GP_HH_PROC_CPU, GP_HH_PROC_RSS, GP_HH_COUNT };

/**
 * One point of the history: the mean of @p n consecutive samples over
 * [t0_ns, t1_ns] (monotonic). Old points are merged pairwise when the history
 * is full, so n grows with age; nothing is dropped silently. A NaN value is
 * unknown over the whole span.
 */
struct gp_hist_point {
	int64_t t0_ns, t1_ns;
	uint32_t n;
	float host[GP_HH_COUNT];
	float gpu[GP_SAMPLE_MAX_GPUS][GP_HIST_GPU_FIELDS];
};

/* ---- the sampler ---- */

struct gp_sampler;

/** Options of gp_sampler_open(); zero-initialise, then set size = sizeof(struct gp_sampler_opts).
 */
struct gp_sampler_opts {
	uint32_t size;            /**< sizeof(struct gp_sampler_opts) */
	uint32_t interval_ms;     /**< 0: 100 ms; else GP_INTERVAL_MIN_MS..GP_INTERVAL_MAX_MS */
	size_t history;           /**< points kept before old ones are merged; 0: 1024 */
	const char *proc_root;    /**< procfs mount, NULL: "/proc" (tests point it at fixtures) */
	int32_t watch_pid;        /**< root of a process tree to follow, 0 none */
	bool no_gpu;              /**< do not load NVML */
	bool no_procs;            /**< do not list GPU processes */
	const char *nvml_library; /**< NULL: $GPUPROF_NVML_LIBRARY, then libnvidia-ml.so.1, .so */
};

/**
 * Opens the backends (NVML when available; a missing NVML is not an error:
 * gp_sampler_gpu_status() says why there is no GPU) and reads the slow GPU
 * fields (process lists) once. Sampling starts with gp_sampler_start(), or
 * one sample at a time with gp_sampler_sample_now(). @p opts may be NULL
 * (defaults). @return 0, GP_EINVAL (a bad interval, or an opts struct from
 * newer headers asking for what this library lacks) or a negative status.
 */
GP_API int gp_sampler_open(const struct gp_sampler_opts *opts, struct gp_sampler **out);

/** Starts the sampling thread. @return 0 or a negative status. */
GP_API int gp_sampler_start(struct gp_sampler *s);

/** Stops the thread (if started) and frees everything. NULL is a no-op. */
GP_API void gp_sampler_close(struct gp_sampler *s);

/**
 * Takes one sample now on the calling thread (without a started thread:
 * for one-shot use and tests). @return 0 or a negative status.
 */
GP_API int gp_sampler_sample_now(struct gp_sampler *s, struct gp_sample *out);

/**
 * Waits until a sample newer than @p after_seq exists (or @p timeout_ms
 * passes; < 0 waits forever) and copies the newest into @p out.
 * @return 0, GP_ETRUNC on timeout, GP_EIO once the sampler stopped.
 */
GP_API int gp_sampler_wait(struct gp_sampler *s, uint64_t after_seq, int timeout_ms,
                           struct gp_sample *out);

/** Copies the newest sample into @p out. @return 0, or GP_ENOENT before the first. */
GP_API int gp_sampler_latest(struct gp_sampler *s, struct gp_sample *out);

/**
 * Copies up to @p max history points, oldest first, into @p out.
 * @return the number copied.
 */
GP_API size_t gp_sampler_history(struct gp_sampler *s, struct gp_hist_point *out, size_t max);

/** Samples merged into older history points so far (0 until the history fills). */
GP_API uint64_t gp_sampler_downsampled(struct gp_sampler *s);

/** Sampling periods the thread missed because a sample took longer than the interval. */
GP_API uint64_t gp_sampler_missed(struct gp_sampler *s);

/**
 * @return NULL when GPUs are sampled, else why not: "no NVML library
 * (libnvidia-ml.so.1: ...)", "NVML found no GPU", "disabled (--no-gpu)", ...
 * Valid until gp_sampler_close().
 */
GP_API const char *gp_sampler_gpu_status(struct gp_sampler *s);

/** The NVML library loaded ("libnvidia-ml.so.1") and driver version, or NULL. */
GP_API const char *gp_sampler_nvml_library(struct gp_sampler *s);
GP_API const char *gp_sampler_driver_version(struct gp_sampler *s);

/** The interval in ms in use. */
GP_API uint32_t gp_sampler_interval_ms(struct gp_sampler *s);

/**
 * The numeric value of field @p f (enum gp_gpu_field, GP_GF_MEM_TOTAL ..
 * GP_GF_PCIE_RX) of @p g in the field's unit; NaN when the field is unknown,
 * GP_GF_CLOCK_REASONS/GP_GF_PROCS, or the GPU was lost in this sample.
 */
GP_API double gp_gpu_sample_value(const struct gp_gpu_sample *g, int f);

/**
 * Decodes clock-event (throttle) bits into names ("gpu_idle", "power_cap",
 * "sw_thermal", ..., dcgm-exporter's names), joined by @p sep into @p buf.
 * Unknown bits print as hex. @return buf.
 */
GP_API const char *gp_clock_reasons_str(uint64_t bits, const char *sep, char *buf, size_t n);

/**
 * Writes a sample as one JSON object (no newline) into *@p json (owned by the
 * caller, gp_free()), base units with unit-suffixed keys, null for unknown:
 * the `gpuprof top --json` line format, schema "gpuprof.sample/1".
 */
GP_API int gp_sample_to_json(const struct gp_sample *s, char **json, size_t *len);

/* ---- the Prometheus text exposition ---- */

/**
 * The counters of an HTTP endpoint that serves the exposition (`gpuprof top
 * --listen`), rendered as gpuprof_http_* series when passed in gp_prom_opts.
 */
struct gp_prom_http_stats {
	uint64_t client_errors; /**< malformed, abandoned or refused client connections */
	uint64_t timed_out;     /**< closed: no request answered in time */
	uint64_t evicted;       /**< closed: the oldest, when every slot was taken */
	uint64_t idle;          /**< closed: kept alive, no new request in time */
};

/**
 * Options of gp_sample_to_prom(); zero-initialise, then set size =
 * sizeof(struct gp_prom_opts). Every pointer is borrowed for the call. A label
 * that is NULL or "" is left out (Hostname is then ""); values are escaped and
 * cut to a bounded length. The renderer reads no environment: finding the
 * rank or the job (RANK, SLURM_PROCID, ...) is the caller's business.
 */
struct gp_prom_opts {
	uint32_t size;          /**< sizeof(struct gp_prom_opts) */
	const char *hostname;   /**< Hostname="..." (dcgm-exporter's label) */
	const char *rank;       /**< rank="...": the launcher's global rank */
	const char *local_rank; /**< local_rank="..." */
	const char *job;        /**< job="...": the batch system's job id */
	/** the endpoint's counters, NULL: none (a textfile has no endpoint) */
	const struct gp_prom_http_stats *http;
};

/**
 * Renders a sample in the Prometheus text exposition format 0.0.4:
 * gpuprof_gpu_* series per GPU with dcgm-exporter's labels (gpu, UUID,
 * pci_bus_id, device, modelName, Hostname), gpuprof_host_* and
 * gpuprof_process_tree_* series, gpuprof_info, and the @p opts labels on
 * every series. An unknown value is left out, never 0. Keeps no state:
 * any thread may render its own copy of a sample.
 * @param s    the sample (borrowed)
 * @param opts labels and counters, may be NULL (no labels but Hostname="")
 * @param text the text, NUL-ended, owned by the caller (free with gp_free());
 *             NULL on error
 * @param len  its length in bytes, may be NULL
 * @return 0, GP_EINVAL (NULL @p s or @p text, or @p opts from newer headers
 *         asking for what this library lacks), GP_ENOMEM.
 */
GP_API int gp_sample_to_prom(const struct gp_sample *s, const struct gp_prom_opts *opts,
                             char **text, size_t *len);

/* ---- the metrics timeline writer ---- */

/**
 * A metrics timeline being written (`gpuprof.metrics/1`, the format of
 * `gpuprof top --record FILE` and of a run directory's metrics.jsonl,
 * docs/metrics-format.md): a header line, one `gpuprof.sample/1` line per
 * sample (gp_sample_to_json()), and an end line with the counts. The file is
 * written as the samples come, not replaced atomically: a crash keeps what
 * was sampled, and gpuprof's reader takes a file cut short. Used by one
 * thread at a time.
 */
struct gp_metrics_writer;

/** Options of gp_metrics_writer_open(); zero-initialise, then set size. */
struct gp_metrics_writer_opts {
	uint32_t size;       /**< sizeof(struct gp_metrics_writer_opts) */
	int32_t watched_pid; /**< the root of the process tree sampled, 0: none (null) */
};

/**
 * Creates (or truncates) @p path and writes the header line: the host name,
 * the sampler's interval, GPU status, NVML library and driver version, the
 * start time on both clocks and the watched pid.
 * @param path the file (borrowed; copied for messages)
 * @param s    the sampler whose samples follow (borrowed; read here only)
 * @param opts may be NULL (no watched pid)
 * @param out  the writer, owned by the caller until gp_metrics_writer_close()
 *             or gp_metrics_writer_free(); NULL on error
 * @return 0; GP_EINVAL (a NULL argument, or @p opts from newer headers asking
 *         for what this library lacks), GP_EIO (cannot create or write
 *         @p path: gp_last_error() names it, errno says why), GP_ENOMEM.
 */
GP_API int gp_metrics_writer_open(const char *path, struct gp_sampler *s,
                                  const struct gp_metrics_writer_opts *opts,
                                  struct gp_metrics_writer **out);

/**
 * Appends one sample line (@p smp borrowed).
 * @return 0, GP_EIO (gp_last_error() names the file, errno says why), GP_ENOMEM.
 */
GP_API int gp_metrics_writer_add(struct gp_metrics_writer *w, const struct gp_sample *smp);

/** @return the sample lines written so far. */
GP_API uint64_t gp_metrics_writer_count(const struct gp_metrics_writer *w);

/**
 * Writes the end line (the samples written, the sampler @p s's missed
 * periods, the end time), syncs and closes the file, and frees @p w in every
 * case. @return 0, GP_EIO (errno says why), GP_ENOMEM.
 */
GP_API int gp_metrics_writer_close(struct gp_metrics_writer *w, struct gp_sampler *s);

/**
 * Closes the file without an end line (what is written stays: a timeline cut
 * short) and frees @p w; NULL is a no-op.
 */
GP_API void gp_metrics_writer_free(struct gp_metrics_writer *w);

#ifdef __cplusplus
}
#endif
#endif
