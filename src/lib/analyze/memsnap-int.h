/* SPDX-License-Identifier: MIT */
/*
 * memsnap-int.h - what the files of the snapshot analysis share: the walk's
 * state (the graph, per-node caches, the frame groups) between memsnap.c (the
 * schema: devices, segments, blocks, settings, the document) and
 * memsnap-trace.c (the replay of a device's trace: peak, curve, OOMs).
 */
#ifndef GP_ANALYZE_MEMSNAP_INT_H
#define GP_ANALYZE_MEMSNAP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuprof/value.h"
#include "source/pickle.h"
#include "util/error.h"
#include "util/strtab.h"

/**
 * A live block of the snapshot: its bytes (the allocator's rounded size), the bytes
 * asked for (requested_size, what trace entries count; its size when unknown) and its
 * frame list (a node; GP_PK_NIL none).
 */
struct gp__ms_blk {
	uint64_t addr;
	int64_t size, requested;
	uint32_t frames;
};

struct gp__ms {
	const struct gp__pk *pk;
	uint32_t top;
	uint8_t *seen;      /* per node: walked as a collection once already */
	uint32_t *topframe; /* per node (a frame list): its group + 1; 0 not yet known */
	struct gp_strtab keys;
	/* per group (a strtab id): bytes and blocks being summed, its first frame dict */
	int64_t *gbytes;
	uint32_t *gcount, *gframe;
	size_t gcap;
	uint32_t *touched; /* the groups summed since the last gp__ms_groups() */
	size_t ntouched, touched_cap;
};

/** One message "byte N: ..." of the value @p id: GP_EFORMAT. */
int gp__ms_bad(const struct gp__ms *m, uint32_t id, const char *fmt, ...) GP_PRINTF(3, 4);

/** Marks collection @p id walked; an error if it was already (a memo-shared collection). */
int gp__ms_once(struct gp__ms *m, uint32_t id, const char *what);

/** The int member @p key of dict @p d (false: absent); an error when it is not an int. */
int gp__ms_int(const struct gp__ms *m, uint32_t d, const char *key, bool need, int64_t *v,
               bool *has);

/** Checks that @p id is a dict of schema size (at most 64 keys) named @p what. */
int gp__ms_dict(const struct gp__ms *m, uint32_t id, const char *what);

/** Adds @p size bytes and one block to the group of frame list @p frames. */
int gp__ms_add(struct gp__ms *m, uint32_t frames, int64_t size);

/** The groups summed, as rows largest first (the first m->top; 0 all), then cleared. */
int gp__ms_groups(struct gp__ms *m, struct gp_value **rows, size_t *ngroups);

/** A checked int64 sum: GP_EFORMAT naming @p id on overflow. */
int gp__ms_sum(const struct gp__ms *m, uint32_t id, int64_t *acc, int64_t v);

/**
 * The trace of one device (list @p tr) replayed onto @p dev (its "peak",
 * "frames", "ooms", "curve", "trace_entries"), starting from the snapshot's
 * live blocks @p live[0..nlive) of that device.
 */
int gp__ms_trace(struct gp__ms *m, uint32_t tr, const struct gp__ms_blk *live, size_t nlive,
                 struct gp_value *dev);

#endif
