/* SPDX-License-Identifier: MIT */
/*
 * memleak.c - the leak test of one device: memory that grows step after
 * step because something made in each step is kept.
 *
 * Two tests, both needed (docs/analyses/overview-memory.md, "Leaks"):
 *  - the trend: over the complete steps (at least MIN_STEPS) the allocated
 *    bytes at each step's end rise from one step to the next in all but at
 *    most one of the transitions, fall in at most one (a dip is tolerated),
 *    and rise in at least two (one spike, such as the optimizer's state
 *    made in the first step, is no trend), and the last end is above the
 *    first; the growth per step is the median of the changes, so a spike
 *    does not inflate it;
 *  - the holder: an op whose allocations, made in all but at most one of
 *    the complete steps before the last, are still alive at the last
 *    complete step's end; the one holding the most bytes is named.
 * Without addresses (2021 traces) nothing can be paired: the trend alone
 * decides, only when every transition rises, and no op is named.
 */
#include "memleak.h"

#include <string.h>

#include "util/error.h"
#include "util/sort.h"
#include "util/value-int.h"

#define MIN_STEPS 3

/* the holder: allocations of complete steps before the last, alive at its end, by op */
static int holders(const struct gp__actx *c, const struct gp__memcurve *mc,
                   const struct gp__memlife *ml, size_t d, const int64_t *ends, size_t last,
                   struct gp__memgroup *g)
{
	const struct gp__memdev *x = &mc->dev[d];
	const struct gp_mem_event *mem = c->t->mem;
	int64_t e = c->steps[last].end;
	size_t i;
	int rc = 0;

	for (i = x->first; i < x->first + x->n; i++) {
		uint32_t k = mc->ord[i];
		int32_t s = ml->step[k];

		if (mem[k].bytes <= 0 || mem[k].addr < 0)
			continue;
		if (ml->lost[k] || s < 0 || (size_t)s >= last || ends[s] == GP_MEMLEAK_UNKNOWN ||
		    mem[k].ts > c->steps[s].end)
			continue;
		if (ml->pair[k] != GP_MEMLIFE_NONE && mem[ml->pair[k]].ts <= e)
			continue;
		GP_TRY(gp__memgroup_add(g, c, ml, k));
	}
	gp__memgroup_sort(g, c);
out:
	return rc;
}

int gp__memleak(const struct gp__actx *c, const struct gp__memcurve *mc,
                const struct gp__memlife *ml, size_t d, const int64_t *ends, int64_t peak,
                struct gp_value *v)
{
	struct gp_value *lk = gp_value_object(), *h;
	struct gp__memgroup g;
	const struct gp__memrow *hold = NULL;
	int64_t *delta = NULL, first = 0, prev = 0, growth = 0;
	size_t i, n = 0, rises = 0, dips = 0, last = 0, need;
	bool trend = false, have_addr = false, suspect;
	int rc = 0;

	memset(&g, 0, sizeof(g));
	if (!lk)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(v, "leak", lk));
	GP_TRY(gp__memgroup_init(&g));
	delta = gp__calloc(c->nsteps + 1, sizeof(*delta));
	if (!delta)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < c->nsteps; i++) {
		if (ends[i] == GP_MEMLEAK_UNKNOWN)
			continue;
		if (n) {
			/* the model bounds the sum of |Bytes|: no difference of two levels wraps */
			delta[n - 1] = ends[i] - prev;
			rises += ends[i] > prev;
			dips += ends[i] < prev;
		} else {
			first = ends[i];
		}
		prev = ends[i];
		last = i;
		n++;
	}
	if (n >= 2) {
		GP_TRY(gp__sort_i64(delta, n - 1));
		growth = (n - 1) % 2 ? delta[(n - 1) / 2]
		                     : delta[(n - 1) / 2 - 1] / 2 + delta[(n - 1) / 2] / 2;
	}
	need = n >= MIN_STEPS ? (n - 1 > 2 ? n - 2 : 2) : SIZE_MAX;
	trend = n >= MIN_STEPS && rises >= need && dips <= 1 && growth > 0 && prev > first;
	for (i = mc->dev[d].first; i < mc->dev[d].first + mc->dev[d].n && !have_addr; i++)
		have_addr = c->t->mem[mc->ord[i]].bytes > 0 && c->t->mem[mc->ord[i]].addr >= 0;
	if (n >= MIN_STEPS)
		GP_TRY(holders(c, mc, ml, d, ends, last, &g));
	for (i = 0; i < g.n && !hold; i++)
		if (g.rows[i].nsteps >= (n - 1 > 2 ? n - 2 : 2) && g.rows[i].bytes > 0)
			hold = &g.rows[i];
	suspect = trend && (have_addr ? hold != NULL : rises == n - 1);
	GP_TRY(gp_obj_set_int(lk, "steps_tested", (int64_t)n));
	GP_TRY(gp_obj_set_int(lk, "rises", (int64_t)rises));
	GP_TRY(gp_obj_set_int(lk, "dips", (int64_t)dips));
	if (n >= 2) {
		GP_TRY(gp_obj_set_int(lk, "growth_per_step_bytes", growth));
		GP_TRY(gp_obj_set_int(lk, "total_growth_bytes", prev - first));
		if (peak > 0)
			GP_TRY(gp_obj_set_double(lk, "total_growth_pct_of_peak",
			                         100.0 * (double)(prev - first) / (double)peak));
		else /* a running sum that never rose above its start: no share of it */
			GP_TRY(gp_obj_set_null(lk, "total_growth_pct_of_peak"));
	} else {
		GP_TRY(gp_obj_set_null(lk, "growth_per_step_bytes"));
		GP_TRY(gp_obj_set_null(lk, "total_growth_bytes"));
		GP_TRY(gp_obj_set_null(lk, "total_growth_pct_of_peak"));
	}
	GP_TRY(gp_obj_set_bool(lk, "trend", trend));
	GP_TRY(gp_obj_set_bool(lk, "addresses", have_addr));
	if (hold) {
		h = gp_value_object();
		if (!h)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set(lk, "holder", h));
		GP_TRY(gp__obj_set_str_or_null(h, "op", gp__memrow_op(hold, c)));
		GP_TRY(gp_obj_set_int(h, "retained_bytes", hold->bytes));
		GP_TRY(gp_obj_set_int(h, "allocations", hold->count));
		GP_TRY(gp_obj_set_int(h, "steps", (int64_t)hold->nsteps));
		GP_TRY(gp_obj_set_int(h, "retained_per_step_bytes",
		                      hold->bytes / (int64_t)(hold->nsteps ? hold->nsteps : 1)));
	} else {
		GP_TRY(gp_obj_set_null(lk, "holder"));
	}
	GP_TRY(gp_obj_set_bool(lk, "suspect", suspect));
	GP_TRY(gp_obj_set_bool(v, "leak_suspect", suspect));
out:
	gp__memgroup_release(&g);
	gp__free(delta);
	return rc;
}
