/* SPDX-License-Identifier: MIT */
/*
 * modules.h - what modules.c (the analysis) hands modules-json.c (the
 * section's JSON): the module calls, nested and projected, their classes
 * and the tree merged by path. Internal to the two files.
 */
#ifndef GP_ANALYZE_MODULES_H
#define GP_ANALYZE_MODULES_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze-int.h"
#include "util/strtab.h"

#define GP__MOD_NONE UINT32_MAX

#define GP__MOD_MAX_DEPTH 64    /* calls nested deeper are left out */
#define GP__MOD_MAX_STACK 256   /* open host events per thread in the sweep */
#define GP__MOD_MAX_NODES 10000 /* nodes of the JSON tree */
#define GP__MOD_TOP       5     /* slowest instances, top kernels and top ops per class */

/* one module call */
struct gp__mod_call {
	int64_t s, e;    /* effective times */
	int64_t pyid;    /* "Python id", -1 */
	uint32_t track;  /* host thread */
	uint32_t name;   /* instance name, local string id ("Block_3", "layers.3") */
	uint32_t cls;    /* class, index into the class table */
	uint32_t order;  /* input order, the last tie-break */
	uint32_t parent; /* index into the sorted calls, NONE for a root */
	uint32_t node;   /* tree node, NONE */
	uint16_t depth;  /* 0 for a root */
	bool dropped;    /* nested deeper than GP__MOD_MAX_DEPTH, or the stack was full */
	bool counted;    /* inside a step (every call without steps) */
	int64_t us, ue;  /* the running union of its GPU ops: current interval */
	int64_t gpu;     /* closed part of the union */
	bool any;        /* a GPU op was added (us, ue hold its interval) */
};

/* a (class, kernel or operator name) row with its running union */
struct gp__mod_row {
	uint32_t cls, name; /* class index; the trace's string id */
	int64_t us, ue, total;
	bool any;
};

/* the rows of one kind (kernels, operators), found by (class, name) */
struct gp__mod_rows {
	struct gp__mod_row *v;
	size_t n, cap;
	struct gp_u64map ix;
};

struct gp__mod_class {
	uint32_t name; /* local string id */
	int64_t count, host, gpu;
	double sqdev; /* Σ (GPU time − mean)² over the calls, for σ */
	uint32_t slow[GP__MOD_TOP];
	size_t nslow;
	uint32_t stamp; /* the last GPU op added to its rows (+ 1) */
};

struct gp__mod_node {
	uint32_t parent, name, cls; /* parent node (NONE root), local string id, class */
	int64_t calls, host, gpu, first;
};

struct gp__mod {
	const struct gp__actx *c;
	struct gp_strtab strs; /* instance and class names */
	struct gp_u64map cls_ix;
	struct gp__mod_call *in;
	size_t nin, incap;
	struct gp__mod_class *cls;
	size_t ncls, clscap;
	bool annotations; /* the calls are ranges, not python_function events */
	/* per runtime, then driver call (by position in its kind's list): its innermost call and
	 * the outermost operator inside that call around it */
	uint32_t *l_inst, *l_op;
	struct gp__mod_rows kern, ops;
	/* steps */
	size_t nsteps;
	int64_t *step_end; /* the step's end, stretched to the GPU ops its calls launched */
	int64_t step_ns;   /* the steps' summed (stretched) duration */
	size_t ndropped, nodes_dropped;
	struct gp__mod_node *nodes;
	size_t nnodes, nodecap;
};

/** Writes r["modules"] from the finished analysis @p m. @return 0 or a negative status. */
int gp__mod_emit(const struct gp__mod *m, struct gp_value *r);

#endif
