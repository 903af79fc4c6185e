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

/**
 * An id (correlation, External id) -> event index map, the first event kept
 * for a repeated id. Kineto numbers ids densely, so it is usually an array
 * over [lo, lo + n); ids spread wider than a few times their count go to a
 * hash map instead.
 */
struct gp__idmap {
	int64_t lo;
	size_t n;
	uint32_t *dense; /* [n], UINT32_MAX for none; NULL when the map is used */
	struct gp_u64map map;
};

/** @return whether @p id is mapped, and its event in *@p ev. */
static inline bool gp__idmap_get(const struct gp__idmap *m, int64_t id, uint32_t *ev)
{
	uint64_t v;

	if (m->dense) {
		if (id < m->lo || (uint64_t)(id - m->lo) >= m->n ||
		    m->dense[id - m->lo] == UINT32_MAX)
			return false;
		*ev = m->dense[id - m->lo];
		return true;
	}
	if (id < 0 || !gp__u64map_get(&m->map, (uint64_t)id, &v))
		return false;
	*ev = (uint32_t)v;
	return true;
}

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
	/* --compat hta: the ProfilerStep event its last-step filter left out, -1 none */
	int64_t hta_dropped;

	/* kept events of each kind, sorted */
	struct gp__idx by_kind[GP_K__COUNT];
	/* per kept event: its position in by_kind[its kind] */
	uint32_t *kpos;
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
	struct gp__idmap corr_launch;
	/* per event: the launching call of each GPU event (UINT32_MAX none), from corr_launch */
	uint32_t *launch;
	/* External id -> index of the cpu_op / user_annotation that carries it */
	struct gp__idmap ext_op;

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

/** The position of the first event of @p ix (in start order) starting at or after @p t. */
static inline size_t gp__first_at(const struct gp__actx *c, const struct gp__idx *ix, int64_t t)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ts[ix->v[mid]] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/** How many of the ProfilerSteps (c->steps, sorted by start) start at or before @p ts. */
static inline size_t gp__steps_started(const struct gp__actx *c, int64_t ts)
{
	size_t lo = 0, hi = c->nsteps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->steps[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/** Whether the name with string id @p name suggests tensor cores (cached for GPU events). */
static inline bool gp__name_tensor_core(const struct gp__actx *c, uint32_t name)
{
	if (c->name_flags[name] & GP_NF_DONE)
		return (c->name_flags[name] & GP_NF_TENSOR_CORE) != 0;
	return gp__uses_tensor_cores(gp__strtab_get(&c->t->strs, name));
}

int gp__actx_init(struct gp__actx *c, const struct gp_trace *t, const struct gp_analyze_opts *o,
                  int64_t rank);
struct gp_spare;
/** gp__actx_init() with a spare thread (util/spare.h) that sorts part of the index lists. */
int gp__actx_init_with(struct gp__actx *c, const struct gp_trace *t,
                       const struct gp_analyze_opts *o, int64_t rank, struct gp_spare *spare);
void gp__actx_release(struct gp__actx *c);

/** @return the launching runtime/driver event of GPU event @p i, or -1. */
int64_t gp__launcher(const struct gp__actx *c, size_t i);

/**
 * HTA compatibility (compat.c): fills c->ts_own/dur_own with HTA's rounding
 * of float timestamps and c->keep with its last-ProfilerStep filter. Called by
 * gp__actx_init() before the index lists are built.
 */
int gp__compat_hta_prepare(struct gp__actx *c);

/**
 * HTA's µs rounding of one interval [@p ts, @p ts + @p dur) of @p t's clock,
 * as gp__compat_hta_prepare() rounds every event's: for times kept beside
 * the events (nn.Module calls), so they line up with the effective times.
 */
void gp__compat_hta_round(const struct gp_trace *t, int64_t ts, int64_t dur, int64_t *ots,
                          int64_t *odur);

#endif
