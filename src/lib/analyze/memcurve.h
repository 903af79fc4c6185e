/* SPDX-License-Identifier: MIT */
/*
 * memcurve.h - the allocated and reserved curves of a trace's devices, built
 * once from its memory events (t->mem): the memory section (memory.c), the
 * lifetimes (memlife.c) and bench's memory per iteration read them.
 *
 * A device is keyed by the events' Device Type / Device Id: type 1 (CUDA)
 * gives the GPU's id; type 0, or an unknown type without an id, the CPU.
 * Its curve is the events' Total Allocated when every event of the device
 * carries it, else the running sum of Bytes in time order (2021 traces, and
 * captures: relative to what was allocated when recording began).
 */
#ifndef GP_ANALYZE_MEMCURVE_H
#define GP_ANALYZE_MEMCURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/model.h"

struct gp__memdev {
	int32_t type;    /* 0 CPU, 1 GPU */
	int32_t id;      /* the GPU's id; -1 for the CPU */
	bool use_total;  /* the curve is Total Allocated (else the running sum of Bytes) */
	size_t first, n; /* its events: ord[first .. first + n) */
};

/** The curves; every array belongs to the structure (gp__memcurve_release). */
struct gp__memcurve {
	size_t ndev;
	struct gp__memdev *dev; /* GPUs first by id, then the CPU */
	size_t n;               /* memory events (t->nmem) */
	uint32_t *ord;     /* t->mem indices grouped by device (dev order), (ts, index) within */
	uint32_t *devof;   /* per t->mem index: its device (index into dev) */
	int64_t *ts;       /* per ord entry: its time (ns) */
	int64_t *alloc;    /* per ord entry: the device's allocated bytes after it */
	int64_t *reserved; /* per ord entry: Total Reserved, -1 unknown */
	int64_t *maxt;     /* [2 n]: a max tree over alloc (leaves at n + i), for windows */
};

/** Builds the curves of @p t into @p mc (zeroed first; released on failure). */
int gp__memcurve_build(const struct gp_trace *t, struct gp__memcurve *mc);

/** Frees what @p mc holds and zeroes it; a no-op on a zeroed one. */
void gp__memcurve_release(struct gp__memcurve *mc);

/**
 * Device @p d over [@p start, @p end]: the highest allocated bytes (the level
 * carried in from before @p start counts, and every event at @p start) into
 * @p peak and the allocated bytes at @p end into @p at_end. False (and both
 * left alone) when the device has no event at or before @p end. O(log n),
 * however many windows overlap.
 */
bool gp__memcurve_window(const struct gp__memcurve *mc, size_t d, int64_t start, int64_t end,
                         int64_t *peak, int64_t *at_end);

/** The ord position of device @p d's last event at or before @p ts, or SIZE_MAX. */
size_t gp__memcurve_at(const struct gp__memcurve *mc, size_t d, int64_t ts);

#endif
