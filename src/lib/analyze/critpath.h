/* SPDX-License-Identifier: MIT */
/*
 * critpath.h - the critical-path graph of one rank (critpath-graph.c) and the
 * section built from it (critpath.c).
 *
 * The model is Holistic Trace Analysis's critical_path_analysis: a start and
 * an end node per CPU op, runtime call and GPU activity of a window (a
 * ProfilerStep), edges for the nesting and order of ops per thread, the
 * runtime lock, launches, the order of kernels per stream and the
 * synchronisations, and the longest path through that DAG, each edge of which
 * is attributed to what bounds it. docs/analyses/critical-path.md has the
 * rules and where gpuprof departs from HTA.
 */
#ifndef GP_ANALYZE_CRITPATH_H
#define GP_ANALYZE_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

/** What bounds an edge of the path (HTA's bound_by), in report order. */
enum gp__cp_cat {
	GP_CP_CPU = 0, /* cpu_bound */
	GP_CP_COMPUTE, /* gpu_compute_bound */
	GP_CP_COMM,    /* gpu_communication_bound */
	GP_CP_KK,      /* gpu_kernel_kernel_overhead */
	GP_CP_LAUNCH,  /* gpu_kernel_launch_overhead */
	GP_CP__N,
	GP_CP_NONE = GP_CP__N /* dependency and sync edges (zero weight) */
};

/** @return the category's name in the report ("cpu_bound", ...). */
const char *gp__cp_cat_name(enum gp__cp_cat k);

/** One edge of the path, in path (time) order. */
struct gp__cp_seg {
	int64_t t0, t1; /* its source and destination node times */
	int64_t w;      /* its weight: the time it adds to the path */
	uint32_t ev;    /* the event it is attributed to, UINT32_MAX none */
	uint8_t cat;    /* enum gp__cp_cat or GP_CP_NONE */
	uint8_t kind;   /* enum gp__cp_seg_kind */
};

enum gp__cp_seg_kind { GP_CP_SEG_CPU, GP_CP_SEG_GPU, GP_CP_SEG_EDGE };

/** The path of one window. */
struct gp__cp_path {
	bool ok;
	const char *reason; /* why not, when !ok (static text) */
	int64_t path_ns;
	int64_t by_ns[GP_CP__N];
	struct gp__cp_seg *seg; /* owned by the graph (valid until the next window) */
	size_t nseg;
	size_t nev; /* events in the window's graph: the work it took */
};

struct gp__cp;

/*
 * The most events a rank may hold for its critical path: a window's sort key packs an event
 * index and a time in 64 bits (critpath-graph.c). gp__an_critpath says the path is not
 * available past it; gp__cp_new refuses it.
 */
#define GP_CP_MAX_EVENTS (UINT32_C(1) << 30)

/** Prepares the per-rank tables (links, queue lengths); *@p out is freed with gp__cp_free. */
int gp__cp_new(const struct gp__actx *c, struct gp__cp **out);
void gp__cp_free(struct gp__cp *g);

/** Builds the graph of the window [@p start, @p end] and its longest path into *@p p. */
int gp__cp_window(struct gp__cp *g, int64_t start, int64_t end, struct gp__cp_path *p);

/** Whether GPU event @p ev is on a GPU (not a CPU event HTA takes for one). */
bool gp__cp_is_gpu(const struct gp__cp *g, uint32_t ev);

#endif
