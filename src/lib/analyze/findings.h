/* SPDX-License-Identifier: MIT */
/*
 * findings.h - internal declarations shared by findings.c (the list, its
 * ranking and the entry point gp__an_findings()) and findings-rules.c (the
 * rules, run in the order of gp__fnd_rules[]).
 */
#ifndef GP_ANALYZE_FINDINGS_H
#define GP_ANALYZE_FINDINGS_H

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
};

/** Fills @p b from the sections of rank object @p r (and the device from @p c's trace). */
void gp__fnd_base_init(const struct gp__actx *c, const struct gp_value *r, struct gp__fnd_base *b);

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

/** A rule: adds at most one finding to @p fl; 0 or a negative gp_status. */
typedef int (*gp__fnd_rule_fn)(const struct gp__actx *c, const struct gp_value *r,
                               const struct gp__fnd_base *b, struct gp__fnd_list *fl);

extern const gp__fnd_rule_fn gp__fnd_rules[];
extern const size_t gp__fnd_nrules;

#endif
