/* SPDX-License-Identifier: MIT */
/*
 * capture-int.h - what the capture reader's files share: the reader's state
 * (struct rd), its primitives (capture-rd.c: strings, warnings, tracks,
 * events), the NVTX ranges (capture-nvtx.c) and the CUDA allocations
 * (capture-mem.c), for capture.c, which reads the records and hands NVTX,
 * SITE, COUNTER and MEM records over.
 */
#ifndef GP_SOURCE_CAPTURE_INT_H
#define GP_SOURCE_CAPTURE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capfmt.h"
#include "trace/model.h"
#include "util/strtab.h"
#include "gpuprof/value.h"

#define MAX_OPEN_RANGES 4096u /* per thread and domain; deeper pushes count as unmatched */

/* what a push/pop range becomes when it closes (docs/capture-format.md) */
enum range_as {
	AS_RANGE = 0, /* a user_annotation event */
	AS_MODULE,    /* an nn.Module call of the Python startup hook (t->pymod) */
	AS_OP,        /* a CPU op of PyTorch's emit_nvtx, its sizes in t->opargs */
};

struct open_range {
	int64_t ts;
	uint32_t name; /* model string id */
	uint32_t dims; /* AS_OP: the sizes text (model string id), 0 none */
	uint8_t as;    /* enum range_as */
};

/* the open push/pop ranges of one thread in one domain (NVTX: a stack per thread per domain) */
struct tstack {
	uint32_t tid, domain;
	size_t n, cap;
	struct open_range *v;
	bool listed; /* in rd.busy */
};

struct rd {
	struct gp_trace *t;
	const char *name;
	size_t off; /* the byte offset of the record being read */
	int32_t pid;
	struct gp_u64map strs;    /* capture string id -> model string id */
	struct gp_u64map domains; /* domain id -> model string id of its name */
	uint32_t gp_domain;       /* the id of the domain "gpuprof" (the annotation API), 0 none */
	/*
	 * Start/end ranges since the last window closed: sv (a closed one has
	 * name UINT32_MAX), found by id through starts, whose values are
	 * generation << 32 | index; a window's end cuts every open one at once
	 * by starting a new generation.
	 */
	struct gp_u64map starts;
	struct open_range *sv;
	uint32_t *sv_tid;
	size_t nsv, sv_cap, sv_tid_cap, sv_open;
	uint32_t sv_gen;
	struct tstack *stacks;
	size_t nstacks, stacks_cap;
	struct gp_u64map stack_ix; /* tid << 32 | domain -> index into stacks */
	uint32_t *busy;            /* stacks that had a push since the last window closed */
	size_t nbusy, busy_cap;
	/* order: a thread's records must come in the order it made them */
	struct gp_u64map last_ts; /* tid -> the time of its last event record */
	uint64_t out_of_order;
	struct gp_u64map order_warned; /* threads named in a warning so far */
	/* the end: END record, FLUSH records */
	bool ended;
	char end_reason[64];
	int64_t start_ns, end_ns, last_flush_ns; /* start: META's clock; 0 unknown */
	uint64_t flushes;
	struct gp_value *devices;
	uint64_t unmatched, marks, warnings, dropped_records;
	struct gp_value *wmsgs; /* [{code, text, count}]: the first MAX_WARN_TEXTS distinct ones */
	/* capture windows (WINDOW records) */
	struct gp_value *windows;  /* [{start_ns, end_ns, reason, end_reason}] */
	struct gp_value *win_last; /* its last element */
	bool win_seen, win_open;
	uint64_t cut; /* NVTX ranges cut by a window's edge */
	/* CUDA events, placed at their cudaEventRecord call once every record is read */
	struct gp_cap_cuda_event *cev;
	size_t ncev, cev_cap;
	uint64_t cev_unplaced;
	/* CUDA allocations and frees (MEM records), placed on their calls' threads at the end */
	struct gp_cap_mem *mem;
	size_t nmem, mem_cap;
	uint64_t mem_events, mem_unplaced, mem_static, mem_skipped;
	/* the annotation API: site id -> model string id of "file:line"; marks per name */
	struct gp_u64map sites;
	struct gp_u64map mark_counts; /* model name id -> count */
};

/* ---- capture-rd.c ---- */

/** The model string id of capture string @p cap_id into *@p out (0: none); never fails. */
int gp__cap_str_of(struct rd *r, uint32_t cap_id, uint32_t *out);
/** Interns @p s (@p n bytes, not UTF-8 repaired with U+FFFD) into the model. */
int gp__cap_intern(struct rd *r, const char *s, size_t n, uint32_t *out);
/** Counts a warning and lists its text once (the first MAX_WARN_TEXTS distinct ones). */
int gp__cap_warn(struct rd *r, uint32_t code, const char *text, size_t n);
/** The model track of (@p pid, @p tid), a GPU stream's when @p gpu. */
int gp__cap_track(struct rd *r, int64_t pid, int64_t tid, bool gpu, int32_t device, uint32_t *out);
/** An event [@p start, @p end) into the model, its index in *@p idx (@p stream < 0: none). */
int gp__cap_add(struct rd *r, enum gp_kind kind, uint32_t name, uint32_t tr, int64_t start,
                int64_t end, int64_t corr, int64_t stream, size_t *idx);

/* ---- capture-mem.c ---- */

/** A MEM record (CUDA allocation or free), kept until every API record is read. */
int gp__cap_on_mem(struct rd *r, const struct gp_cap_mem *m);
/** Once every record is read: the MEM records into the model's memory events. */
int gp__cap_place_mem(struct rd *r);

/* ---- capture-nvtx.c ---- */

/** An NVTX record (push, pop, start, end, mark) with its message of @p len bytes. */
int gp__cap_on_nvtx(struct rd *r, const struct gp_cap_nvtx *n, const char *msg, size_t len);
/** A SITE record of the annotation API. */
int gp__cap_on_site(struct rd *r, const struct gp_cap_site *s);
/** A COUNTER sample, named by @p msg. */
int gp__cap_on_counter(struct rd *r, const struct gp_cap_counter *c, const char *msg, size_t len);
/** A capture window closed: the ranges still open lose their end and count as cut. */
void gp__cap_cut_ranges(struct rd *r);
/** Once every record is read: the nn.Module calls (t->pymod) in start order, outer first. */
void gp__cap_sort_modules(struct rd *r);

#endif
