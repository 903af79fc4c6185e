/* SPDX-License-Identifier: MIT */
/*
 * critpath-int.h - what the parts of the critical-path graph share:
 * critpath-prep.c builds the per-rank tables once (name flags, event roles,
 * correlation links, stream queue lengths, event waits), critpath-graph.c
 * builds each window's graph from them (critpath-stacks.c its call stacks,
 * critpath-kernels.c its GPU side), critpath-path.c finds its longest path.
 */
#ifndef GP_ANALYZE_CRITPATH_INT_H
#define GP_ANALYZE_CRITPATH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "critpath.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/sort.h"

/* HTA KERNEL_KERNEL_DELAY_THRESHOLD_US: a longer gap between kernels is no kernel-kernel edge */
#define KK_THRESHOLD_NS INT64_C(1500000)
#define NONE            UINT32_MAX
#define Q_UNKNOWN       INT32_MIN

/* name flags, per string id; three in the bits of the role they give a CPU event (RO_*) */
enum {
	NF_DONE = 1 << 0,
	NF_BLOCK = 1 << 1,     /* a blocking call (HTA BLOCKING_SYNC_CALLS) */
	NF_BLOCK_HIP = 1 << 2, /* its HIP twin (gpuprof only) */
	NF_LAUNCH = 1 << 3,    /* a launch counted in queue lengths */
	NF_FWD = 1 << 4,       /* contains "forward" */
	NF_LOCK = 1 << 5,      /* shares the CUDA runtime lock (HTA CUDA_RUNTIME_EVENTS): RO_LOCK */
	NF_BLOCKING = 1 << 6,  /* NF_BLOCK, or gpuprof's NF_BLOCK_HIP: RO_BLOCK */
	NF_FB = 1 << 7,        /* NF_FWD or NF_AUTOGRAD: RO_FB */
	NF_AUTOGRAD = 1 << 8,  /* contains "autograd" */
	NF_EVREC = 1 << 9,     /* cudaEventRecord */
	NF_SYNC_STREAM = 1 << 10,
	NF_SYNC_CONTEXT = 1 << 11,
	NF_SYNC_EVENT = 1 << 12,
	NF_SYNC_WAIT = 1 << 13
};

/* event roles */
enum {
	RO_CPU = 1 << 0,    /* may be a CPU node (op, runtime or driver call of a CPU row) */
	RO_GSIDE = 1 << 1,  /* the GPU side of a correlation link */
	RO_KERNEL = 1 << 2, /* a GPU node of the kernel pass */
	RO_SYNC = 1 << 3,   /* a cuda_sync event */
	RO_GPUROW = 1 << 4, /* on a GPU for the bound (HTA: any row with a stream) */
	/* of RO_CPU events, from their names (set once per rank: collect reads no name) */
	RO_LOCK = 1 << 5,  /* shares the CUDA runtime lock (NF_LOCK) */
	RO_BLOCK = 1 << 6, /* a blocking call (NF_BLOCK, gpuprof also NF_BLOCK_HIP) */
	RO_FB = 1 << 7     /* a CPU op named "*forward*" or "*autograd*" (fwd_bwd) */
};

/* the roles of event kinds, without the bits names add */
#define RO_KIND_BITS (RO_CPU | RO_GSIDE | RO_KERNEL | RO_SYNC | RO_GPUROW)

/*
 * node attributes (nat): what the passes ask of a node, its event's role
 * bits (RO_NODE_BITS) with two of their own in bits no node's role has
 * (RO_GSIDE only steers links; a sync event gets no node)
 */
enum {
	NA_CPU = RO_CPU,
	NA_END = RO_GSIDE, /* the event's end node (else its start) */
	NA_KERNEL = RO_KERNEL,
	NA_SYNC = RO_SYNC, /* a sync edge ends here */
	NA_LOCK = RO_LOCK,
	NA_BLOCK = RO_BLOCK
};
#define RO_NODE_BITS (RO_CPU | RO_KERNEL | RO_LOCK | RO_BLOCK)

enum etype { E_OP, E_DEP, E_LAUNCH, E_KK, E_SYNC };

struct edge {
	int64_t w; /* its weight (HTA keeps negative ones for the summary; the graph counts 0) */
	uint32_t u, v;
	uint32_t attr; /* the event it is attributed to, NONE */
	uint32_t next; /* the edge into v added before it, NONE: v's incoming edges, newest first */
	uint32_t type; /* enum etype (not a byte, which the compiler takes to alias anything) */
};

/* pass 2's state of one thread (critpath-stacks.c) */
struct tstate {
	uint32_t last;   /* the node it visited last, NONE */
	uint32_t parent; /* the event enclosing it, NONE */
	uint32_t top;    /* the start node on top of its stack, NONE (the stack: below) */
	int32_t depth;
	int64_t top_end; /* the sweep: the end of top's event */
};

struct launch {
	int64_t ts;
	uint64_t stream;
	uint32_t thread;
	uint32_t gpu;  /* the GPU event it launched */
	uint32_t slot; /* its stream's index among the launches' streams */
};

struct slot {
	uint64_t key;
	uint32_t node;
};

struct gp__cp {
	const struct gp__actx *c;
	const struct gp_trace *t;
	bool hta;
	size_t n;
	uint16_t *nf;            /* per string id */
	uint64_t named_first[4]; /* the bytes that start a name with flags of its own, a bit each */
	size_t nstr;             /* string ids in the trace */
	uint8_t *role;           /* per event */
	uint32_t *link; /* per event: the CPU side of its correlation (GPU side events), NONE */
	uint32_t *loff; /* [n + 1]: the GPU events each CPU event launched, in lgpu */
	uint32_t *lgpu;
	int32_t *q; /* per event: queue length after it (launch or GPU event), Q_UNKNOWN */
	/* per event: its nodes in the window (0 before any), stale outside it: gp__cp_end_node */
	uint32_t *snode, *enode;
	bool have_sync;          /* the trace has cuda_sync events */
	struct gp_u64map syncsd; /* sync event -> src kernel << 32 | dest kernel (NONE parts) */

	/* per-window buffers, grown as needed (GROW) in scratch, released with it */
	struct gp__arena scratch;
	size_t nw;       /* the window's events with nodes (2 keys each in key) */
	uint32_t *wsync; /* the window's cuda_sync events (no nodes), in collection order */
	size_t wsync_cap, nws;
	uint32_t *wblk; /* its blocking CPU events (RO_BLOCK), in collection order */
	size_t wblk_cap, nwb;
	size_t ncev;        /* its CPU events */
	uint32_t *wcpu;     /* those CPU events, in collection order: a run per kind, */
	size_t wcpu_cap;    /* each sorted as the context's lists */
	size_t kend_cpu[3]; /* the end of each kind's run in wcpu */
	uint32_t *cev;      /* the sweep's order of them: the runs merged */
	size_t cev_cap;
	uint64_t *key, *key2; /* make_nodes' sort: time << kbits | event << 1 | end */
	size_t key_cap, key2_cap;
	uint32_t *bcnt; /* make_nodes' buckets */
	size_t bcnt_cap;
	struct gp_kv *kv, *kv2; /* scratch: time ranks, syncs by time */
	size_t kv_cap, kv2_cap;
	size_t nn;       /* nodes, in (time, event, start first) order: */
	int64_t *nts;    /* per node: its time */
	uint32_t *nev;   /* per node: its event */
	uint8_t *nat;    /* per node: NA_* */
	uint32_t *head;  /* per node: its last incoming edge, NONE (struct edge next) */
	uint32_t *reach; /* per node: the farthest source of a backward edge into it, 0 none */
	size_t nts_cap, nev_cap, nat_cap, head_cap, reach_cap;
	bool backward;   /* an edge goes from a later node to an earlier one */
	uint32_t *bedge; /* the exit edges of blocking calls in the window */
	size_t bedge_cap, nblock;
	uint32_t *cpun; /* pass 2 by nodes: the CPU nodes in node order (at one time: HTA's) */
	uint32_t *cpt;  /* their threads (the backward one merged into the forward one) */
	size_t cpun_cap, cpt_cap, ncpu;
	uint32_t *kern; /* the kernel start nodes, in node order */
	size_t kern_cap, nkern;
	struct gp_kv *kend; /* kernel ends (time, collection index << 32 | event), in node order */
	size_t kend_cap, nkend;
	uint32_t *stk; /* pass 1's pending starts */
	size_t stk_cap;
	struct tstate *tst; /* [ntracks]: pass 2's state per thread */
	bool by_nodes;      /* pass 2 by nodes even where events nest (tests compare the two) */
	bool swept;         /* the window's pass 2 was the sweep */
	size_t tst_cap;
	struct tiek *tk; /* a tie run of pass 2 */
	size_t tk_cap;
	uint8_t *tskip; /* [ntracks]: HTA: the thread holds GPU nodes (make_nodes; pass 2 clears) */
	struct edge *e;
	size_t e_cap, ne;
	/* gp__cp_longest: out-edges (soff, se) and indeg for the generations, topo (local_order's
	 * runs or Kahn's order), from (each node's best incoming edge; before: scratch) */
	uint32_t *soff, *se, *indeg, *topo, *from;
	size_t soff_cap, se_cap, indeg_cap, topo_cap, from_cap;
	int64_t *dist;
	size_t dist_cap;
	struct gp_u64map slmap; /* stream key -> index in sl */
	size_t sl_last;         /* the slot found last */
	struct slot *sl;
	size_t sl_cap, nsl;
	struct gp__cp_seg *seg;
	size_t seg_cap;
};

/*
 * The capacity check inline: GROW runs once per event or edge in the hot
 * loops. Its buffers (g's, all of them) live in g->scratch, huge pages
 * where there are (util/arena.h): the first window alone touched ~700 fresh
 * 4 KiB pages on trace_diff_control, 1-2 ms of page faults.
 */
#define GROW(p, cap, need)                                                                         \
	((need) <= (cap)                                                                           \
	     ? 0                                                                                   \
	     : gp__arena_grow(&g->scratch, (void **)&(p), &(cap), (need), sizeof(*(p))))

/* room for @p n more edges, which add_edge takes without a check */
static inline int reserve_edges(struct gp__cp *g, size_t n)
{
	if (n >= NONE - 1 - g->ne)
		return gp__error(GP_ELIMIT, "too many edges in the critical-path graph");
	return GROW(g->e, g->e_cap, g->ne + n);
}

/* an edge between two nodes of the graph (u != v), into room reserve_edges made */
static inline __attribute__((always_inline)) void
add_edge_uv(struct gp__cp *g, uint32_t u, uint32_t v, enum etype type, bool zero, uint32_t attr)
{
	struct edge *e = &g->e[g->ne];
	int64_t w;

	w = (type == E_DEP || type == E_SYNC || zero) ? 0 : g->nts[v] - g->nts[u];
	e->w = g->hta || w >= 0 ? w : 0;
	e->u = u;
	e->v = v;
	e->attr = (type == E_OP || type == E_KK) ? attr : NONE;
	e->next = g->head[v];
	e->type = (uint32_t)type;
	g->head[v] = (uint32_t)g->ne++;
	if (u > v) { /* backward: gp__cp_longest orders the runs they join */
		g->backward = true;
		if (u > g->reach[v])
			g->reach[v] = u;
	}
}

/* an edge, into room reserve_edges made; none when an end is NONE or both are one node */
static inline __attribute__((always_inline)) void
add_edge(struct gp__cp *g, uint32_t u, uint32_t v, enum etype type, bool zero, uint32_t attr)
{
	if (u != v && u != NONE && v != NONE)
		add_edge_uv(g, u, v, type, zero, attr);
}

/**
 * Pass 2: the call stack of each thread (HTA _construct_graph_from_call_stack)
 * of the window's CPU events (collect's wcpu), the thread @p from merged
 * into @p to (critpath-stacks.c). Clears tskip.
 */
int gp__cp_pass_stacks(struct gp__cp *g, uint32_t from, uint32_t to);

/**
 * Pass 3: the GPU events per stream (HTA _construct_graph_from_kernels), with
 * the cuda_sync events (critpath-kernels.c). *@p same_stream_sync: a sync
 * edge joins two kernels of one stream; *@p no_launch_node: a kernel launched
 * by a call that is no node (HTA fails on both).
 */
int gp__cp_pass_kernels(struct gp__cp *g, bool *same_stream_sync, bool *no_launch_node);

/** gpuprof without cuda_sync events: the sync edges of blocking calls (critpath-kernels.c). */
int gp__cp_pass_fallback_syncs(struct gp__cp *g);

/** The longest path of the graph in @p g into @p p (critpath-path.c). */
int gp__cp_longest(struct gp__cp *g, struct gp__cp_path *p);

/** @p p[0..n) = @p x, by word stores rather than memset (critpath-prep.c). */
void gp__cp_fill_u32(uint32_t *p, size_t n, uint32_t x);

/** The name flags of string @p id (NF_*), computed on first use (critpath-prep.c). */
uint16_t gp__cp_name_flags(struct gp__cp *g, uint32_t id);

/** The name flags of event @p ev (NF_*), computed once per string. */
static inline uint16_t gp__cp_ev_flags(struct gp__cp *g, uint32_t ev)
{
	uint32_t id = g->t->ev.name[ev];

	if (id < g->nstr && (g->nf[id] & NF_DONE))
		return g->nf[id];
	return gp__cp_name_flags(g, id);
}

/* node @p nd of event @p ev's map (snode, enode) if it is one of the window's, else NONE */
static inline uint32_t gp__cp_node_in(const struct gp__cp *g, uint32_t nd, uint32_t ev)
{
	return nd < g->nn && g->nev[nd] == ev ? nd : NONE;
}

/**
 * The start node of event @p ev in the window, NONE: none. Events outside
 * the window keep whatever snode held: a node of the window is one whose
 * event is @p ev.
 */
static inline uint32_t gp__cp_start_node(const struct gp__cp *g, uint32_t ev)
{
	return gp__cp_node_in(g, g->snode[ev], ev);
}

/** The end node of event @p ev in the window, NONE: none (as gp__cp_start_node). */
static inline uint32_t gp__cp_end_node(const struct gp__cp *g, uint32_t ev)
{
	return gp__cp_node_in(g, g->enode[ev], ev);
}

/** The position of the first event of @p ix (in start order) starting after @p t. */
static inline size_t gp__cp_first_after(const struct gp__actx *c, const struct gp__idx *ix,
                                        int64_t t)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ts[ix->v[mid]] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/** HTA's "stream != -1": the row has an integer stream. */
static inline bool gp__cp_hta_row(const struct gp_trace *t, size_t i)
{
	return (t->ev.flags[i] & GP_EVF_HAS_STREAM) && t->ev.stream[i] != -1;
}

/** The stream key of a GPU event: HTA pools streams by number, gpuprof by device and stream. */
static inline uint64_t gp__cp_stream_key(const struct gp__cp *g, uint32_t ev)
{
	const struct gp_trace *t = g->t;

	if (g->hta)
		return (uint64_t)t->ev.stream[ev];
	return ((uint64_t)(uint32_t)gp__ev_device(t, ev) << 32) ^ (uint64_t)t->ev.stream[ev];
}

#endif
