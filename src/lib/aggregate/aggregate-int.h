/* SPDX-License-Identifier: MIT */
/*
 * aggregate-int.h - what the files of src/lib/aggregate share: the compact
 * record each rank's report is reduced to (load.c), the collectives matched
 * across ranks (match.c), the clocks (clock.c), the stragglers
 * (stragglers.c); aggregate.c runs them in that order and writes the
 * gpuprof.aggregate/1 document (docs/aggregate-schema.md).
 *
 * A rank keeps only what the document needs: its ledger as fixed-size
 * entries (strings interned in the job's table), the numbers of its table
 * row and the evidence a straggler's cause is judged from. Memory grows
 * with ranks and collectives, never with a trace's events.
 */
#ifndef GP_AGGREGATE_INT_H
#define GP_AGGREGATE_INT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/aggregate.h"
#include "util/error.h"
#include "util/strtab.h"

#define GP__AGG_NONE      UINT32_MAX /* an interned string that is null */
#define GP__AGG_MAD_SCALE 1.4826     /* MAD to sigma under normality */

/** One ledger entry of one rank (contract A), its strings interned. */
struct gp__agg_ent {
	int64_t seq;
	int64_t start_ns, end_ns; /* on the rank's own clock */
	int64_t bytes;            /* -1 unknown */
	int64_t group_size;       /* -1 unknown */
	int64_t step;             /* ProfilerStep#N; INT64_MIN unknown */
	uint32_t pg, name, dtype; /* ids; GP__AGG_NONE for null */
	int32_t inst;             /* match.c: the matched collective, -1 unmatched */
};

/** A process group as one rank's report describes it. */
struct gp__agg_pg {
	uint32_t name, desc; /* ids; GP__AGG_NONE for null */
	int64_t size;        /* -1 unknown */
	int64_t *ranks;      /* NULL: unknown */
	size_t nranks;
};

/** The numbers of a rank's table row; NAN where unknown. */
enum gp__agg_metric {
	GP_AGG_STEPS = 0,
	GP_AGG_STEP_MEAN,
	GP_AGG_STEP_P50,
	GP_AGG_STEP_P95,
	GP_AGG_GPU_BUSY,
	GP_AGG_GPU_IDLE,
	GP_AGG_GPU_IDLE_PCT,
	GP_AGG_COMPUTE,
	GP_AGG_COMM,
	GP_AGG_EXPOSED_COMM,
	GP_AGG_WAIT,
	GP_AGG_COLLECTIVES,
	GP_AGG_PEAK_MEM,
	GP_AGG_GPU_CLOCK,
	GP_AGG_NMETRICS
};

/** The document's key of each metric, in enum order. */
extern const char *const gp__agg_metric_keys[GP_AGG_NMETRICS];

/** One rank: its report reduced (load.c), then what the analysis adds. */
struct gp__agg_rank {
	int64_t rank;
	char *file;                /* the report or trace it came from */
	char *host;                /* NULL unknown */
	char *gpu_model;           /* NULL unknown */
	char *backend;             /* NULL unknown */
	int64_t world_size;        /* -1 unknown */
	int64_t device;            /* its active device's id; -1 unknown */
	bool from_trace;           /* analysed here, not read from a report */
	int64_t span_start_ns;     /* overview.start_ns; INT64_MIN unknown */
	int64_t span_ns;           /* overview.span_ns; -1 unknown */
	double m[GP_AGG_NMETRICS]; /* the table row */
	/* evidence for a straggler's cause, per step where it says; NAN unknown */
	double dataloader_ns;    /* step_stats.breakdown_pct.dataloader_pct of step_mean_ns */
	double host_wait_ns;     /* sum of gpu.idle_breakdown[].host_wait_ns */
	bool launch_bound;       /* its findings name launch-bound */
	struct gp__agg_ent *ent; /* the ledger, by start_ns */
	size_t nent;
	struct gp__agg_pg *pg;
	size_t npg;
	uint32_t seq_source; /* interned; GP__AGG_NONE null */
	/* clock.c */
	size_t unit;                /* its clock: a host, or the rank alone */
	int64_t offset_ns;          /* add to its times for the reference clock (0: not aligned) */
	double unc_ns;              /* NAN: not aligned */
	int64_t bound_lo, bound_hi; /* the feasible interval of offset_ns (when aligned) */
	/* stragglers.c */
	int64_t blame_ns, caused_wait_ns, last_count, matched;
};

/** The whole job. */
struct gp__agg {
	struct gp_strtab str;   /* every interned string */
	struct gp__agg_rank *r; /* sorted by rank */
	size_t n, cap;
	struct gp_value *warnings; /* strings */
	/* match.c */
	struct gp__agg_inst *inst;
	size_t ninst;
	struct gp__agg_member *mem; /* the members of every instance, instance by instance */
	size_t nmem;
	int64_t unmatched;
	struct gp_value *desync; /* NULL: none */
	/* clock.c */
	size_t nunits, ref_unit;
	int64_t clock_used, clock_p2p; /* collectives the clock used; p2p left out */
	double max_unc_ns;             /* NAN: no rank aligned */
	const char *clock_method;
};

/** A collective matched across ranks: (pg, seq) and the ranks that ran it. */
struct gp__agg_inst {
	uint32_t pg, name;
	int64_t seq, bytes, group_size;
	size_t first, n; /* its members: mem[first .. first + n) */
	bool p2p;        /* point-to-point (send, recv, sendrecv): no clock, wait, blame, desync */
	/* stragglers.c, after alignment */
	int64_t max_start, min_start, transfer, last, second;
	int64_t waits;    /* the sum of its ranks' waits */
	size_t last_rank; /* index in r[] of the last to arrive */
};

/** One rank's part of an instance. */
struct gp__agg_member {
	size_t rank; /* index in r[] */
	size_t ent;  /* index in r[rank].ent */
};

/*
 * What a ledger may hold (job.c refuses or leaves out the rest): times
 * within 2^62 ns of 0 and a job's collectives within JOB_SPREAD of each
 * other, so that a difference of two times, with the clock offsets (kept
 * within twice that), never overflows; sums over collectives saturate.
 */
#define GP__AGG_TIME_MAX   (INT64_C(1) << 62)
#define GP__AGG_JOB_SPREAD (INT64_C(1) << 52) /* about 52 days */

/** @p x + @p y saturated to int64 (sums over a hostile report's collectives). */
static inline int64_t gp__agg_add(int64_t x, int64_t y)
{
	int64_t z;

	if (__builtin_add_overflow(x, y, &z))
		return y > 0 ? INT64_MAX : INT64_MIN;
	return z;
}

/** ENOMEM unless @p x (a new value) is non-NULL. */
#define GP__AGG_NEW(x) ((x) ? 0 : gp__error(GP_ENOMEM, "out of memory"))

/** Member @p key of @p o: a number, written as an integer when it is one; null when unknown. */
static inline int gp__agg_set_num(struct gp_value *o, const char *key, double v)
{
	if (!isfinite(v))
		return gp_obj_set_null(o, key);
	if (v == floor(v) && fabs(v) < 9e15)
		return gp_obj_set_int(o, key, (int64_t)v);
	return gp_obj_set_double(o, key, v);
}

/* load.c */

/**
 * Reduces rank object @p ro of a gpuprof.analyze/1 report read from @p file
 * into @p out (zeroed by the caller; its strings and arrays are its own, its
 * interned ids in the private table @p st). Errors name the file.
 */
int gp__agg_reduce(const struct gp_value *ro, const struct gp_value *report, const char *file,
                   struct gp_strtab *st, struct gp__agg_rank *out);
/** What gp__agg_reduce() reads of a report: its pruned parse's keep tree (util/json-prune.h). */
extern const struct gp_jkeep *const gp__agg_report_keep;
/** Moves a rank's ids from table @p from into @p to. */
int gp__agg_reintern(struct gp__agg_rank *r, const struct gp_strtab *from, struct gp_strtab *to);
/** Reads the inputs of @p paths into @p a (sorted by rank; same ranks an error). */
int gp__agg_load(struct gp__agg *a, const char *const *paths, size_t n,
                 const struct gp_aggregate_opts *o);
/**
 * Reads the rank objects of analyze document @p doc, already in memory (the
 * page of `gpuprof report`), into @p a: no file is read again.
 */
int gp__agg_load_doc(struct gp__agg *a, const struct gp_value *doc);
void gp__agg_rank_release(struct gp__agg_rank *r);
void gp__agg_release(struct gp__agg *a);
int gp__agg_init(struct gp__agg *a);
/** Sorts the ranks, refuses duplicates and ranks of another job, warns of missing ranks. */
int gp__agg_check_job(struct gp__agg *a);

/* match.c */

/** Whether collective @p name is point-to-point (send, recv, sendrecv, ...). */
bool gp__agg_is_p2p(const char *name);
/** Matches the ledgers by (pg, seq): a->inst, a->mem, a->unmatched, a->desync. */
int gp__agg_match(struct gp__agg *a);
/** A rank with collectives none of which matched while another's did: an error naming it. */
int gp__agg_check_matched(const struct gp__agg *a);

/* clock.c */

/** The clock offset and uncertainty of every rank (contract C). */
int gp__agg_clock(struct gp__agg *a);

/* stragglers.c */

/** nccl-tests' bus bandwidth factor of collective @p name over @p n ranks; NAN unknown. */
double gp__agg_busbw_factor(const char *name, int64_t n);
/** Per instance: skew, transfer, the last arrivals; per rank: wait, blame. */
int gp__agg_arrivals(struct gp__agg *a);
/** The "stragglers" list of the document. */
int gp__agg_stragglers(const struct gp__agg *a, struct gp_value **out);
/**
 * The cause of rank index @p i's lateness, or NULL; @p detail its evidence;
 * *@p excess how much longer per step than the other ranks' median its
 * evidence is; NAN without a cause or for cause "clock".
 */
const char *gp__agg_cause(const struct gp__agg *a, size_t i, char *detail, size_t n,
                          double *excess);

/* findings.c */

/** The "findings" of the document @p doc (its "ranks" written); @p span: the aligned span. */
int gp__agg_findings(const struct gp__agg *a, struct gp_value *doc, const struct gp_value *strag,
                     int64_t span);

/* aggregate.c */

/** The gpuprof.aggregate/1 document of a loaded job. */
int gp__agg_document(struct gp__agg *a, const struct gp_aggregate_opts *o, struct gp_value **out);

#endif
