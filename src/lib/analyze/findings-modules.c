/* SPDX-License-Identifier: MIT */
/*
 * findings-modules.c - "module-hotspot": a module class whose calls cost
 * much the same except a few that take far longer on the GPU, when the GPU
 * time those few take beyond a typical call is a share of the step worth
 * winning back. Reads only the "modules" section (classes[].slowest, mean);
 * thresholds in docs/analyses/findings.md and docs/analyses/modules.md.
 * A class that merely dominates the step (the transformer blocks of a
 * transformer) is what the Modules table shows already: no finding.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "text/text.h"
#include "util/error.h"

#define HOT_MIN_CALLS  4    /* calls of a class before one can stand out */
#define HOT_SLOW_X     1.5  /* a slow call: at least this times the class's mean */
#define HOT_MIN_SHARE  10.0 /* the class holds at least this % of the step's (GPU) time */
#define HOT_MEDIUM_PCT 10.0 /* the excess over the mean: medium from this % of the step */

struct hot {
	const struct gp_value *cls;
	int64_t count, gpu, mean, excess, slowest;
	size_t nslow;
	double share, excess_pct;
};

/* judges class @p k: its slow calls, their excess, and its share of @p whole_ns (-1: by step_pct)
 */
static bool judge(const struct gp_value *k, int64_t whole_ns, struct hot *h)
{
	const struct gp_value *sl = gp_obj_get(k, "slowest");
	double pct;

	memset(h, 0, sizeof(*h));
	h->cls = k;
	if (!gp__fnd_geti(k, "count", &h->count) || !gp__fnd_geti(k, "gpu_time_ns", &h->gpu) ||
	    !gp__fnd_geti(k, "mean_gpu_ns", &h->mean) || h->count < HOT_MIN_CALLS || h->mean <= 0)
		return false;
	for (size_t i = 0; i < gp_value_len(sl); i++) {
		int64_t g;

		if (!gp__fnd_geti(gp_arr_get(sl, i), "gpu_time_ns", &g) ||
		    (double)g < HOT_SLOW_X * (double)h->mean)
			break;
		if (!i)
			h->slowest = g;
		h->nslow++;
		h->excess += g - h->mean;
	}
	/* a few calls stand out, not half of them (two kinds of call, not outliers) */
	if (!h->nslow || (int64_t)h->nslow * 4 > h->count)
		return false;
	if (gp__fnd_getd(k, "step_pct", &pct)) {
		h->share = pct;
		h->excess_pct = pct * (double)h->excess / (double)h->gpu;
	} else {
		h->share = gp__fnd_pct(h->gpu, whole_ns);
		h->excess_pct = gp__fnd_pct(h->excess, whole_ns);
	}
	return h->share >= HOT_MIN_SHARE && isfinite(h->excess_pct);
}

int gp__fnd_modules(const struct gp__actx *c, const struct gp_value *r,
                    const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *m = gp_obj_get(r, "modules"), *cls = gp_obj_get(m, "classes");
	const struct gp_value *first;
	struct gp_value *ev = NULL;
	struct hot best = { 0 }, h;
	char title[400], sugg[800], d1[32], d2[32], d3[32], pc[16];
	const char *name, *inst;
	bool found = false;
	int rc = 0;

	(void)c;
	if (gp_value_type(m) != GP_VALUE_OBJECT)
		return 0;
	for (size_t i = 0; i < gp_value_len(cls); i++)
		if (judge(gp_arr_get(cls, i), b->busy_ns, &h) &&
		    (!found || h.excess > best.excess)) {
			best = h;
			found = true;
		}
	if (!found)
		return 0;
	name = gp_value_get_str(gp_obj_get(best.cls, "name"));
	first = gp_arr_get(gp_obj_get(best.cls, "slowest"), 0);
	inst = gp_value_get_str(gp_obj_get(first, "instance"));
	if (!(ev = gp_value_object()))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_str(ev, "class", name));
	GP_TRY(gp_obj_set_int(ev, "calls", best.count));
	GP_TRY(gp_obj_set_int(ev, "slow_calls", (int64_t)best.nslow));
	GP_TRY(gp_obj_set_str(ev, "slowest", inst));
	GP_TRY(gp_obj_set_int(ev, "slowest_gpu_ns", best.slowest));
	GP_TRY(gp_obj_set_int(ev, "mean_gpu_ns", best.mean));
	GP_TRY(gp_obj_set_int(ev, "excess_gpu_ns", best.excess));
	GP_TRY(gp_obj_set_double(ev, "class_pct", best.share));
	GP_TRY(gp_obj_set_double(ev, "excess_pct", best.excess_pct));
	if (best.nslow == 1)
		snprintf(
		    title, sizeof(title),
		    "%s takes %.1f× the GPU time of a typical %s call (%s against a mean of %s)",
		    inst, (double)best.slowest / (double)best.mean, name,
		    gp__fmt_dur(d1, sizeof(d1), (double)best.slowest, 0),
		    gp__fmt_dur_like(d2, sizeof(d2), (double)best.mean, (double)best.slowest, 0));
	else
		snprintf(
		    title, sizeof(title),
		    "%zu of %lld %s calls take %.1f× their mean GPU time or more (%s beyond the "
		    "mean, %s)",
		    best.nslow, (long long)best.count, name, HOT_SLOW_X,
		    gp__fmt_dur(d3, sizeof(d3), (double)best.excess, 0),
		    gp__fmt_pct(pc, sizeof(pc), best.excess_pct, 0));
	snprintf(
	    sugg, sizeof(sugg),
	    "%s holds %s of the %s; compare its slow calls with a typical one on the timeline "
	    "(modules.classes[].slowest gives their start): a first call pays for warm-up "
	    "(kernel autotuning, torch.compile, the caching allocator growing), so "
	    "profile after a few warm-up steps; calls that see other input shapes (padding, "
	    "dynamic sequence lengths) or take another branch cost more; other work on the GPU "
	    "at the same time shows as overlapping kernels",
	    name, gp__fmt_pct(pc, sizeof(pc), best.share, 0),
	    gp_value_type(gp_obj_get(best.cls, "step_pct")) == GP_VALUE_NULL ? "GPU busy time"
	                                                                     : "step time");
	rc = gp__fnd_add(fl, "module-hotspot",
	                 best.excess_pct >= HOT_MEDIUM_PCT ? GP_FND_MEDIUM : GP_FND_LOW,
	                 best.excess_pct, title, ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}
