/* SPDX-License-Identifier: MIT */
/*
 * memleak.h - the leak test of one device (memleak.c), run by the memory
 * section (memory.c) and read by the memory-leak finding.
 */
#ifndef GP_ANALYZE_MEMLEAK_H
#define GP_ANALYZE_MEMLEAK_H

#include <stddef.h>
#include <stdint.h>

#include "analyze-int.h"
#include "memcurve.h"
#include "memlife.h"

/* a step whose allocated bytes at its end are unknown (incomplete, or before any event) */
#define GP_MEMLEAK_UNKNOWN INT64_MIN

/**
 * Sets `leak` and `leak_suspect` of device object @p v: device @p d of the
 * curves @p mc, lifetimes @p ml, the allocated bytes at each step's end
 * @p ends (c->nsteps of them, GP_MEMLEAK_UNKNOWN for the steps left out),
 * the device's @p peak.
 */
int gp__memleak(const struct gp__actx *c, const struct gp__memcurve *mc,
                const struct gp__memlife *ml, size_t d, const int64_t *ends, int64_t peak,
                struct gp_value *v);

#endif
