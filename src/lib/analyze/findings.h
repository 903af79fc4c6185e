/* SPDX-License-Identifier: MIT */
/*
 * findings.h - internal declarations shared by findings.c (the list and its
 * ranking), findings-run.c (the entry point gp__an_findings()) and
 * findings-rules.c (the rules, run in the order of gp__fnd_rules[]).
 */
#ifndef GP_ANALYZE_FINDINGS_H
#define GP_ANALYZE_FINDINGS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze-int.h"

enum gp__fnd_sev { GP_FND_HIGH = 0, GP_FND_MEDIUM, GP_FND_LOW, GP_FND_INFO };

struct gp__fnd {
	const char *id;
	enum gp__fnd_sev sev;
	double impact; /* NaN stored as 0 for ranking */
	struct gp_value *v;
};

/** The findings of one rank, unsorted; owns each v. */
struct gp__fnd_list {
	struct gp__fnd *v;
	size_t n, cap;
};

/*
 * What the advice may assume about the GPU the trace ran on
 * (docs/analyses/findings.md, "The device"): the active device of highest
 * compute capability in overview.devices, or, when no active device has
 * deviceProperties (ROCm traces number devices by agent), the device every
 * deviceProperties entry describes. Unknown is its own state everywhere.
 */
struct gp__fnd_dev {
	enum gp__vendor vendor; /* the device's, else the trace's, else its API calls' */
	int cc;                 /* major × 10 + minor (70 for 7.0; HIP's on AMD); -1 unknown */
	char cc_text[24];       /* "7.0"; "" when unknown */
	const char *name;       /* NULL when unknown; borrowed from the report or the trace */
	int64_t mem_bytes;      /* the device's memory; -1 unknown */
	int64_t peak_bytes;     /* highest memory.devices peak (reserved, else allocated); -1 */
};

/* the rules' readers: @p part of @p whole in percent (NaN of nothing), a section's number */
static inline double gp__fnd_pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

static inline bool gp__fnd_geti(const struct gp_value *v, const char *path, int64_t *out)
{
	return gp_value_get_int(gp_value_path(v, path), out);
}

static inline bool gp__fnd_getd(const struct gp_value *v, const char *path, double *out)
{
	return gp_value_get_double(gp_value_path(v, path), out);
}

/* findings-device.c: the device of @p r's rank and its vendor's words */

/** Fills @p d from overview.devices, memory.devices and @p c's trace. */
void gp__fnd_dev_init(const struct gp__actx *c, const struct gp_value *r, struct gp__fnd_dev *d);
/** "CUDA graphs (...)", "HIP graphs (...)", or both names when the vendor is unknown. */
const char *gp__fnd_w_graphs(const struct gp__fnd_dev *d);
/** "SMs", "compute units", or both. */
const char *gp__fnd_w_units(const struct gp__fnd_dev *d);
/** "shared-memory", "LDS", or both. */
const char *gp__fnd_w_smem(const struct gp__fnd_dev *d);
/** Nsight Compute, the ROCm Compute Profiler, or both. */
const char *gp__fnd_w_profiler(const struct gp__fnd_dev *d);
/** "a larger batch", as far as the device's memory and the peak seen allow; in @p buf. */
const char *gp__fnd_w_batch(const struct gp__fnd_dev *d, char *buf, size_t n);
/** Adds vendor, device_name and compute_capability (null when unknown) to @p ev. */
int gp__fnd_ev_device(struct gp_value *ev, const struct gp__fnd_dev *d);

/* findings-launch.c: what the GPU waits for (launch-bound, gpu-idle) */

struct gp__fnd_base;

/* the calls that launched GPU work: no section has their union or their outliers */
struct gp__fnd_launch_stats {
	size_t ncalls;       /* GPU ops with a launching call */
	int64_t med_ns;      /* median launch call (-1 without calls) */
	int64_t all_ns;      /* union of every launch call */
	int64_t typical_ns;  /* union of the calls up to LAUNCH_OUTLIER_X x the median */
	size_t noutliers;    /* calls over it */
	int64_t outliers_ns; /* their summed time */
	int64_t slowest;     /* the slowest call (event index), -1 without calls */
	int64_t slowest_op;  /* a GPU op it launched */
	bool slowest_first;  /* it is the first call that launches that op's name */
};

/* what launch-bound is judged on; read by gpu-idle too, to say how the two relate */
struct gp__fnd_launch {
	int64_t n, nshort, med, delay;
	double short_pct, qmean;
	bool med_known, many_short, cpu_bound, fires;
	struct gp__fnd_launch_stats ls;
};

/**
 * A backlog: work queued ahead of the GPU (median launch delay or a mean
 * queue depth at the thresholds); *delay the p50 delay (-1 unknown), *qmean
 * the largest mean queue depth (NaN under --compat hta).
 */
bool gp__fnd_backlog(const struct gp__actx *c, const struct gp_value *l, int64_t *delay,
                     double *qmean);
/** Judges launch-bound for rank @p r into @p j (j->fires); 0 or a negative status. */
int gp__fnd_launch_judge(const struct gp__actx *c, const struct gp_value *r,
                         const struct gp__fnd_base *b, struct gp__fnd_launch *j);
/** Adds the launch calls' numbers and their slowest call to @p ev. */
int gp__fnd_ev_launch(struct gp_value *ev, const struct gp__actx *c,
                      const struct gp__fnd_launch_stats *ls);
/** What the slowest launch call probably was, and what to do, in @p buf. */
void gp__fnd_outlier_advice(const struct gp__actx *c, const struct gp__fnd_launch_stats *ls,
                            const struct gp__fnd_dev *d, char *buf, size_t n);
/** An outlier launch call that is a tenth or more of the GPU's idle time. */
bool gp__fnd_outlier_matters(const struct gp__actx *c, const struct gp__fnd_launch_stats *ls,
                             const struct gp__fnd_base *b);

/** Numbers most rules share, read from the gpu and steps sections. */
struct gp__fnd_base {
	bool gpu_known; /* the gpu section is there */
	bool has_gpu;
	/* gpu section: window, busy, idle (0 when unknown), idle % (NaN when unknown) */
	int64_t window_ns, busy_ns, idle_ns;
	double idle_pct;
	/* steps section: sum of steps[*].dur_ns; -1 when the section is absent or empty */
	int64_t step_total_ns;
	size_t nsteps;
	struct gp__fnd_dev dev;
	/* judged once, read by launch-bound and gpu-idle */
	struct gp__fnd_launch launch;
	/* host blocked in synchronisation while no GPU op runs (sync-in-step, gpu-idle) */
	int64_t sync_idle_ns;
};

/**
 * Fills @p b from the sections of rank object @p r, the device from @p c's
 * trace, and what two rules share (the launch judgement, the sync time while
 * the GPU idles). @return 0 or a negative status.
 */
int gp__fnd_base_init(const struct gp__actx *c, const struct gp_value *r, struct gp__fnd_base *b);

/*
 * A finding whose impact_pct is below this share of the time is not listed:
 * under 1 % of the window or of the step time, no change it suggests can be
 * told apart from run-to-run noise.
 */
#define GP_FND_MIN_IMPACT_PCT 1.0

/**
 * Adds a finding to @p fl; takes @p ev (the evidence object) even on failure.
 * @p id must outlive the list; @p title and @p suggestion are copied.
 * @p impact_pct NaN is written as null; a finite one under
 * GP_FND_MIN_IMPACT_PCT adds nothing (and returns 0).
 */
int gp__fnd_add(struct gp__fnd_list *fl, const char *id, enum gp__fnd_sev sev, double impact_pct,
                const char *title, struct gp_value *ev, const char *suggestion);

/**
 * The findings of @p fl as the ranked list (severity, then impact_pct
 * descending, then id) into *@p out; empties @p fl even on failure. Also
 * aggregate's findings (src/lib/aggregate), the same shape and ranking.
 */
int gp__fnd_list_take(struct gp__fnd_list *fl, struct gp_value **out);

/** A rule: adds at most one finding to @p fl; 0 or a negative gp_status. */
typedef int (*gp__fnd_rule_fn)(const struct gp__actx *c, const struct gp_value *r,
                               const struct gp__fnd_base *b, struct gp__fnd_list *fl);

extern const gp__fnd_rule_fn gp__fnd_rules[];

/* the rules of issue 23's analyses, each beside its analysis's findings file */
int gp__fnd_critpath(const struct gp__actx *c, const struct gp_value *r,
                     const struct gp__fnd_base *b,
                     struct gp__fnd_list *fl); /* findings-critpath.c */
int gp__fnd_modules(const struct gp__actx *c, const struct gp_value *r,
                    const struct gp__fnd_base *b, struct gp__fnd_list *fl); /* findings-modules.c */
int gp__fnd_roofline(const struct gp__actx *c, const struct gp_value *r,
                     const struct gp__fnd_base *b,
                     struct gp__fnd_list *fl); /* findings-roofline.c */
/* the rule of issue 24's memory section */
int gp__fnd_memory(const struct gp__actx *c, const struct gp_value *r, const struct gp__fnd_base *b,
                   struct gp__fnd_list *fl); /* findings-memory.c */
extern const size_t gp__fnd_nrules;

#endif
