/* SPDX-License-Identifier: MIT */
/*
 * compat.c - Holistic Trace Analysis compatibility (--compat hta).
 *
 * Reproduces the two load-time steps of HTA that change its numbers:
 *  1. µs rounding of float timestamps (HTA round_down_time_stamps): with the
 *     file's ts and dur as doubles in µs (relative to baseTimeNanoseconds),
 *     end = floor(ts + dur), ts = ceil(ts), dur = end - ts. Sub-µs events get
 *     a negative dur; that is kept, as HTA keeps it.
 *  2. the last-ProfilerStep filter (HTA _filter_irrelevant_gpu_kernels with
 *     include_last_profiler_step=False): when the trace names at least two
 *     distinct "ProfilerStep" strings, keep the CPU rows (no numeric stream)
 *     that start strictly before the last CPU ProfilerStep starts, plus the
 *     GPU rows (stream != -1) whose correlation id one of those kept CPU rows
 *     carries. GPU rows without a correlation id are kept (HTA joins them with
 *     the CPU rows that lack one too).
 * Called by gp__actx_init() only; fills c->ts_own/dur_own/keep (freed by
 * gp__actx_release()).
 */
#include "ctx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define TWO53 9007199254740992LL

/* HTA's view: an event is a GPU row when it has an integer stream other than -1 */
static bool hta_gpu_row(const struct gp_trace *t, size_t i)
{
	return (t->ev.flags[i] & GP_EVF_HAS_STREAM) && t->ev.stream[i] != -1;
}

/* the double Python's json gives for the decimal "ns/1000" (µs with 3 decimals) */
static double us_double(int64_t ns)
{
	char buf[48];
	uint64_t a;

	if (ns > -TWO53 && ns < TWO53)
		return (double)ns / 1000.0; /* exact operand: one correctly rounded division */
	a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(buf, sizeof(buf), "%s%llu.%03llu", ns < 0 ? "-" : "",
	         (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
	return strtod(buf, NULL);
}

void gp__compat_hta_round(const struct gp_trace *t, int64_t ts, int64_t dur, int64_t *ots,
                          int64_t *odur)
{
	int64_t base = t->has_base ? t->base_ns : 0;
	double fts = us_double(ts - base), end = fts + us_double(dur);
	double s = ceil(fts), e = floor(end);

	/* out of the range where µs * 1000 fits: keep the exact times */
	if (!(fabs(s) < 4.0e15) || !(fabs(e) < 4.0e15) || base > INT64_MAX / 2) {
		*ots = ts;
		*odur = dur;
		return;
	}
	*ots = (int64_t)s * 1000 + base;
	*odur = ((int64_t)e - (int64_t)s) * 1000;
}

static int round_times(struct gp__actx *c)
{
	const struct gp_trace *t = c->t;
	size_t n = t->ev.n, i;

	c->ts_own = gp__calloc(n ? n : 1, sizeof(int64_t));
	c->dur_own = gp__calloc(n ? n : 1, sizeof(int64_t));
	if (!c->ts_own || !c->dur_own)
		return gp__error(GP_ENOMEM, "out of memory rounding timestamps");
	for (i = 0; i < n; i++)
		gp__compat_hta_round(t, t->ev.ts[i], t->ev.dur[i], &c->ts_own[i], &c->dur_own[i]);
	c->ts = c->ts_own;
	c->dur = c->dur_own;
	return 0;
}

static bool is_step_name(const char *s)
{
	return strstr(s, "ProfilerStep") != NULL;
}

static int last_step_filter(struct gp__actx *c)
{
	const struct gp_trace *t = c->t;
	size_t n = t->ev.n, i;
	uint32_t first_name = 0;
	bool two_names = false, have_last = false;
	int64_t last = 0;
	struct gp_u64map corr;
	int rc = 0;

	/* HTA counts distinct symbol names containing "ProfilerStep" */
	for (i = 0; i < n && !two_names; i++) {
		if (t->ev.kind[i] == GP_K_TRACE || !is_step_name(gp__ev_name(t, i)))
			continue;
		if (!first_name)
			first_name = t->ev.name[i];
		else if (t->ev.name[i] != first_name)
			two_names = true;
	}
	if (!two_names)
		return 0;
	for (i = 0; i < n; i++) {
		if (t->ev.kind[i] == GP_K_TRACE || hta_gpu_row(t, i) ||
		    !is_step_name(gp__ev_name(t, i)))
			continue;
		if (!have_last || c->ts[i] > last) {
			last = c->ts[i];
			c->hta_dropped = (int64_t)i;
		}
		have_last = true;
	}
	if (!have_last)
		return 0;

	memset(&corr, 0, sizeof(corr));
	c->keep = gp__calloc(n ? n : 1, 1);
	if (!c->keep)
		return gp__error(GP_ENOMEM, "out of memory filtering events");
	GP_TRY(gp__u64map_init(&corr, n / 4 + 16));
	for (i = 0; i < n; i++) {
		if (hta_gpu_row(t, i))
			continue;
		if (t->ev.kind[i] == GP_K_TRACE) {
			c->keep[i] = 1; /* not an HTA row; kept so the overview still sees it */
			continue;
		}
		if (c->ts[i] < last) {
			c->keep[i] = 1;
			if (t->ev.corr[i] >= 0)
				GP_TRY(gp__u64map_put(&corr, (uint64_t)t->ev.corr[i], 1));
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (!hta_gpu_row(t, i))
			continue;
		if (t->ev.corr[i] < 0 || gp__u64map_get(&corr, (uint64_t)t->ev.corr[i], &v))
			c->keep[i] = 1;
	}
out:
	gp__u64map_release(&corr);
	return rc;
}

int gp__compat_hta_prepare(struct gp__actx *c)
{
	int rc = 0;

	c->hta_dropped = -1;
	if (c->t->ts_float)
		GP_TRY(round_times(c));
	GP_TRY(last_step_filter(c));
out:
	return rc;
}
