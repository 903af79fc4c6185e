/* SPDX-License-Identifier: MIT */
/*
 * sample-int.h - the sampler's backends, behind which sampler.c schedules:
 * host.c (procfs, with a movable root for tests) and nvml.c (NVML through
 * dlopen). Each fills the public structs of gpuprof/sample.h and sets a
 * field's validity bit only when the value was read.
 */
#ifndef GP_SAMPLE_INT_H
#define GP_SAMPLE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/sample.h"

#define GP_HF_BIT(f) (1ULL << (f))
#define GP_GF_BIT(f) (1ULL << (f))

/* ---- host.c ---- */

struct gp__host;

/**
 * Opens the host backend on the procfs mounted at @p proc_root ("/proc" when
 * NULL), following the process tree rooted at @p watch_pid (0: none).
 * @return 0, or a negative status when @p proc_root has no readable "stat".
 */
int gp__host_open(struct gp__host **out, const char *proc_root, int32_t watch_pid);

/**
 * Fills @p s. Rates (CPU busy, process CPU) are deltas since the previous
 * call, so they are valid from the second call on; a file that cannot be read
 * or parsed leaves its fields invalid. @p now_ns is CLOCK_MONOTONIC.
 * @return 0 (partial data is not an error).
 */
int gp__host_sample(struct gp__host *h, int64_t now_ns, struct gp_host_sample *s);

void gp__host_close(struct gp__host *h);

/* ---- nvml.c ---- */

struct gp__nvml;

/**
 * dlopens NVML (@p library, else $GPUPROF_NVML_LIBRARY, else libnvidia-ml.so.1,
 * then libnvidia-ml.so), resolves its symbols (newest versions first), calls
 * nvmlInit and enumerates the GPUs with their static data.
 * @return 0; or GP_ENOTSUP (no library, a required symbol missing), GP_ENODEV
 * (init failed, no GPU) with the reason in gp_last_error().
 */
int gp__nvml_open(struct gp__nvml **out, const char *library);

/** GPUs found (those past GP_SAMPLE_MAX_GPUS are not sampled). */
unsigned gp__nvml_count(const struct gp__nvml *n);
/** GPUs the driver reported. */
unsigned gp__nvml_count_all(const struct gp__nvml *n);
const char *gp__nvml_library(const struct gp__nvml *n);
/** The driver version, "" when unknown. */
const char *gp__nvml_driver(const struct gp__nvml *n);

/**
 * Reads the fast, non-blocking fields of GPU @p i into @p g (static data
 * included; the process list and slow fields are left as they were).
 * A failing call leaves its field invalid; a lost GPU sets g->status.
 */
void gp__nvml_sample(struct gp__nvml *n, unsigned i, int64_t now_ns, struct gp_gpu_sample *g);

/**
 * Reads the slow fields of GPU @p i: the process list with per-process
 * utilisation and, when the PCIe byte counters are not available, the PCIe
 * throughput that blocks about 20 ms. Call it off the sampling thread.
 * Fills only GP_GF_PROCS, nprocs, procs_all, procs[] (when @p procs), the
 * enforced power limit (it changes only by an administrator's hand) and
 * (fallback) PCIe.
 */
void gp__nvml_slow(struct gp__nvml *n, unsigned i, bool procs, struct gp_gpu_sample *g);

/** true when PCIe comes from gp__nvml_slow() (no byte counters). */
bool gp__nvml_pcie_slow(const struct gp__nvml *n, unsigned i);

void gp__nvml_close(struct gp__nvml *n);

#endif
