/* SPDX-License-Identifier: MIT */
/*
 * compare-int.h - what the files of src/lib/compare share.
 *
 * load.c loads the inputs the source layer resolved; compare.c holds the
 * entry points, the options and the overall verdict; common.c the helpers
 * every file calls (and that call none of them); metric.c compares one metric
 * (samples through gp_stats_compare(), or one value per side); bench.c and
 * report.c pair series and ranks and choose their metrics, aggregate.c
 * ranks, collectives and the job of two aggregates; table.c diffs
 * the kernel and operator tables; explain.c says why, where the numbers
 * support it; format.c draws the result for people. Every function works on
 * one struct gp__cmp, which owns the result tree being built.
 */
#ifndef GP_COMPARE_INT_H
#define GP_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "gpuprof/compare.h"
#include "gpuprof/stats.h"
#include "gpuprof/value.h"
#include "util/buf.h"
#include "util/error.h"

/* defaults of struct gp_compare_opts */
#define GP__CMP_ALPHA       0.01
#define GP__CMP_THRESHOLD   0.05
#define GP__CMP_MIN_SAMPLES 2 /* Welch's t needs 2 per side */
/*
 * Memory samples with no spread (every iteration the same on each side): an
 * exact comparison, a change past this share of the base and at least
 * GP__CMP_MEM_FLOOR bytes counts (docs/analyses/statistics.md)
 */
#define GP__CMP_MEM_EXACT 0.01
#define GP__CMP_MEM_FLOOR 1048576.0
/* GPU idle share change (percentage points) that an explanation mentions */
#define GP__CMP_IDLE_POINTS 5.0
/* a speedup under this, with reduced precision, points to a host- or memory-bound model */
#define GP__CMP_FP16_SPEEDUP 1.5

/** What a metric measures, which decides its verdict words. */
enum gp__mkind {
	GP__MK_TIME = 0, /**< faster / slower */
	GP__MK_RATE,     /**< faster / slower (throughput) */
	GP__MK_MEMORY,   /**< better / worse */
	GP__MK_PCT,      /**< better / worse (a share, 0-100) */
};

/** A metric's description. */
struct gp__metric {
	const char *name;  /**< key of --threshold-for and of the JSON ("step_time") */
	const char *title; /**< for people ("step time") */
	const char *unit;  /**< "ns", "bytes", "%", or a rate ("runs/s") */
	enum gp__mkind kind;
	enum gp_better better;
};

/** The comparison being built. */
struct gp__cmp {
	double alpha, threshold;
	uint32_t min_samples, resamples;
	uint64_t seed;
	int64_t rank;
	const struct gp_compare_opts *opts; /* the caller's, for the per-metric thresholds */
	const char *base_label, *new_label; /* the paths, or "base" and "new" */
	struct gp_value *result;            /* the root */
	struct gp_value *groups;            /* result.groups */
	struct gp_value *warnings;          /* result.warnings */
	struct gp_value *regressions;       /* result.regressions */
	/* over the metrics with samples: how many of each verdict */
	size_t n_sampled, n_better, n_worse, n_inconclusive;
	size_t n_single_changed; /* metrics without samples past their threshold */
	unsigned unlike_warned;  /* report.c: the "not alike" warnings given (once each) */
};

/* common.c */

/** The threshold (a fraction) of metric @p name. */
double gp__cmp_threshold(const struct gp__cmp *c, const char *name);
/** The threshold that --threshold-for gave metric @p name, else @p dflt. */
double gp__cmp_threshold_or(const struct gp__cmp *c, const char *name, double dflt);
/** Appends {id, text} to result.warnings. */
int gp__cmp_warn(struct gp__cmp *c, const char *id, const char *fmt, ...) GP_PRINTF(3, 4);
/** A new object appended to array @p arr (NULL when out of memory). */
struct gp_value *gp__cmp_push_obj(struct gp_value *arr);
/** The "rank" of rank object @p r, -1 when it has none. */
int64_t gp__cmp_rank_of(const struct gp_value *r);
/** Lists "rank R" under result.unmatched.@p side ("base", "new") and warns "unmatched_rank". */
int gp__cmp_unmatched_rank(struct gp__cmp *c, const char *side, int64_t rank);
/** Sorts the @p n names (GPU models) in place and appends them "; "-joined to @p out. */
int gp__cmp_join_names(const char **names, size_t n, struct gp_buf *out);
/** The kind of a loaded tree from its "schema" (enum gp_compare_input: bench, report, aggregate),
 * -1 none. */
int gp__cmp_tree_kind(const struct gp_value *v);
/** Member @p key of object @p v as a number; NaN when it is not one (null, absent). */
double gp__cmp_num(const struct gp_value *v, const char *key);

/* compare.c */

/** Compares the tags objects of the two sides into result.tag_changes. */
int gp__cmp_tags(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_);

/* metric.c */

/**
 * Compares samples @p b (@p nb) and @p n (@p nn) of metric @p m (Mann-Whitney
 * U, or Welch's t on the logs when they are few; memory that is the same in
 * every sample of each side exactly, "test": "exact") and appends the
 * metric object to @p metrics; counts it in @p c and records a regression
 * under group @p group. @p out_obj (may be NULL) receives the object.
 */
int gp__cmp_sampled(struct gp__cmp *c, const char *group, const struct gp__metric *m,
                    const double *b, size_t nb, const double *n, size_t nn,
                    struct gp_value *metrics, const struct gp_value **out_obj);
/** Compares one value per side (no test: "same" or "inconclusive"). */
int gp__cmp_single(struct gp__cmp *c, const struct gp__metric *m, double b, double n,
                   struct gp_value *metrics);
/** The verdict word of @p v for a metric of kind @p k ("faster", "worse", ...). */
const char *gp__cmp_verdict_word(enum gp_verdict v, enum gp__mkind k);
/** The median of @p n values (copied and sorted); NaN when n is 0. */
double gp__cmp_median(const double *x, size_t n);
/** The mean of @p n values; NaN when n is 0. */
double gp__cmp_mean(const double *x, size_t n);
/** 100 (n - b) / b; NaN when b is 0 or either is not finite. */
double gp__cmp_pct(double b, double n);

/* bench.c (gp__cmp_check_bench() in check.h) */

int gp__cmp_bench(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_);

/* report.c (gp__cmp_check_report() in check.h) */

int gp__cmp_reports(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_);

/* aggregate.c (gp__cmp_check_aggregate() in check.h) */

int gp__cmp_aggregates(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_);

/* table.c */

/**
 * Diffs the summary table @p key ("kernels" or "cpu_ops") of two rank objects
 * into a new object (rows sorted by |delta total|, totals, counts by status).
 */
int gp__cmp_table(struct gp__cmp *c, const char *group, const struct gp_value *base_rank,
                  const struct gp_value *new_rank, const char *key, struct gp_value **out);

/* perf.c */

/**
 * The critical path, module and roofline sections of rank objects @p br and
 * @p nr (issue 23) compared into group @p g: its "critical_path", "modules"
 * and "roofline" objects and their explanations. Never a verdict.
 */
int gp__cmp_perf(struct gp__cmp *c, const char *group, const struct gp_value *br,
                 const struct gp_value *nr, struct gp_value *g);

/* format-perf.c */

struct gp__out;

/**
 * Appends the "critical_path", "modules" and "roofline" objects of group
 * @p g for people (Markdown when @p md; @p top rows of each diff, 0 all).
 */
void gp__cmp_format_perf(struct gp__out *o, const struct gp_value *g, bool md, uint32_t top);

/* explain.c */

/** The explanations of a rank group (its metrics and tables already built). */
int gp__cmp_explain_rank(struct gp__cmp *c, const struct gp_value *base_rank,
                         const struct gp_value *new_rank, struct gp_value *group);
/** The explanations of a bench series pair. */
int gp__cmp_explain_bench(struct gp__cmp *c, const struct gp_value *base_doc,
                          const struct gp_value *new_doc, struct gp_value *group);

/** gp_compare_values() with the names errors and warnings give the two sides. */
int gp__cmp_values_labelled(const struct gp_value *base, const struct gp_value *new_,
                            const struct gp_compare_opts *opts, const char *base_label,
                            const char *new_label, struct gp_value **out);

/* memsnap.c: two PyTorch memory snapshots (analyze/memsnap.h) */

/**
 * When @p base or @p new_ is a memory snapshot (*@p handled), their comparison into
 * *@p out (a gpuprof.compare/1 result of kind "memory snapshot"), or an error when
 * only one of them is; otherwise nothing (*@p handled false, 0).
 */
int gp__cmp_memsnap_paths(const char *base, const char *new_, const struct gp_compare_opts *opts,
                          bool *handled, struct gp_value **out);
/** The text (or Markdown) of such a result after its summary line, @p top frames a device. */
void gp__cmp_format_memsnap(struct gp__out *o, const struct gp_value *result, bool md,
                            uint32_t top);

#endif
