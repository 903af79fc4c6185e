/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - the analysis context for one rank: the views every analysis shares.
 *
 * gp__actx_init() decides which events count (the HTA last-step filter under
 * --compat hta), their effective times (HTA's µs rounding under --compat hta),
 * sorts index lists per kind, types GPU events, and builds the correlation and
 * External-id maps and the list of ProfilerSteps. Analyses read only these
 * views, so compat handling lives in one place (ctx.c, compat.c).
 */
#ifndef GP_ANALYZE_CTX_H
#define GP_ANALYZE_CTX_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"
#include "gpuprof/analyze.h"
#include "trace/model.h"
#include "util/strtab.h"

/** A list of event indices, sorted by (effective ts, then dur descending, then index). */
struct gp__idx {
	uint32_t *v;
	size_t n;
};

/** A CPU ProfilerStep#N annotation, as found in the trace. */
struct gp__step {
	uint32_t ev;    /* event index */
	int64_t number; /* N of ProfilerStep#N, -1 if not a number */
	int64_t ts, end;
};

struct gp__actx {
	const struct gp_trace *t;
	struct gp_analyze_opts opts;
	bool hta; /* --compat hta */
	int64_t rank;

	/* effective times: the trace's own, or HTA-rounded copies */
	const int64_t *ts, *dur;
	int64_t *ts_own, *dur_own;
	/* per-event 1 = kept; NULL = every event kept */
	uint8_t *keep;

	/* kept events of each kind, sorted */
	struct gp__idx by_kind[GP_K__COUNT];
	/*
	 * GPU activity, sorted: kernels, memcpy and memset; under --compat hta
	 * every kept event with args.stream (HTA's "stream != -1"), except
	 * GPU-side annotations.
	 */
	struct gp__idx gpu;
	/* per event: enum gp_ktype and the rule id (meaningful for events in gpu) */
	uint8_t *ktype;
	uint8_t *krule;
	/* per string id: enum gp_name_flag bits for kernel names (GP_NF_DONE when computed) */
	uint8_t *name_flags;

	/* correlation id -> index of the runtime/driver call that launched it */
	struct gp_u64map corr_launch;
	/* per event: the launching call of each GPU event (UINT32_MAX none), from corr_launch */
	uint32_t *launch;
	/* External id -> index of the cpu_op / user_annotation that carries it */
	struct gp_u64map ext_op;

	/* CPU ProfilerStep#N annotations among kept events, sorted by ts */
	struct gp__step *steps;
	size_t nsteps;

	/* first start and last end over all kept events with a duration */
	int64_t span_start, span_end;
};

static inline bool gp__kept(const struct gp__actx *c, size_t i)
{
	return !c->keep || c->keep[i];
}

/** 100 × part / whole; NaN (unknown) when whole is not positive. */
static inline double gp__pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

/*
 * a + b saturated to int64. The model bounds every time and every sum over
 * the events (model.h), so plain additions suffice; this is for the few sums
 * that can count an event more than once (nested instances, many streams).
 */
static inline int64_t gp__add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t gp__end(const struct gp__actx *c, size_t i)
{
	return c->ts[i] + c->dur[i];
}

int gp__actx_init(struct gp__actx *c, const struct gp_trace *t, const struct gp_analyze_opts *o,
                  int64_t rank);
void gp__actx_release(struct gp__actx *c);

/** @return the launching runtime/driver event of GPU event @p i, or -1. */
int64_t gp__launcher(const struct gp__actx *c, size_t i);

/**
 * HTA compatibility (compat.c): fills c->ts_own/dur_own with HTA's rounding
 * of float timestamps and c->keep with its last-ProfilerStep filter. Called by
 * gp__actx_init() before the index lists are built.
 */
int gp__compat_hta_prepare(struct gp__actx *c);

#endif
