/* SPDX-License-Identifier: MIT */
/*
 * clock.c - the hosts' clocks aligned from the collectives themselves
 * (contract C of issue 22).
 *
 * Ranks on one host share a clock: one offset per host when hosts are
 * known, per rank otherwise (a "unit"). No rank can finish a collective
 * before the last rank has started it, so for units u and p every matched
 * collective bounds d = o_u - o_p to [start_p - end_u, end_p - start_u]. NCCL
 * collectives end together: the estimate is the median over the shared
 * collectives of end_p - end_u, clamped into the intersection of the bounds;
 * the uncertainty is half the width of that intersection. The reference is
 * the unit of the lowest rank (offset 0). A unit that shares no collective
 * with the reference is reached through a unit already aligned (its parent,
 * the one it shares most collectives with), the uncertainties adding up, in
 * rounds until no unit is left that can be reached. Each round costs one pass
 * over the matched collectives' members: ranks × collectives, never ranks².
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate-int.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/sort.h"

struct hostix {
	const char *host;
	size_t i;
};

static int cmp_host(const void *x, const void *y)
{
	const struct hostix *p = x, *q = y;
	int c = strcmp(p->host, q->host);

	return c ? c : p->i < q->i ? -1 : p->i > q->i;
}

/* a->r[i].unit: one per host, one per rank without a host; the reference is the lowest rank's */
static int units(struct gp__agg *a)
{
	struct hostix *ix = gp__calloc(a->n ? a->n : 1, sizeof(*ix));
	size_t i, n = 0, nu = 0;

	if (!ix)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < a->n; i++) {
		if (a->r[i].host)
			ix[n++] = (struct hostix){ a->r[i].host, i };
		else
			a->r[i].unit = nu++;
	}
	qsort(ix, n, sizeof(*ix), cmp_host);
	for (i = 0; i < n; i++) {
		if (i && strcmp(ix[i].host, ix[i - 1].host) != 0)
			nu++;
		a->r[ix[i].i].unit = nu;
	}
	if (n)
		nu++;
	a->nunits = nu;
	a->ref_unit = a->n ? a->r[0].unit : 0;
	gp__free(ix);
	return 0;
}

/* one unit's part of one collective */
struct upart {
	size_t stamp; /* instance index + 1 when set for it */
	int64_t max_start, min_end, end;
};

/* fills part[] for instance @p k; returns the units present in @p present[0..*np) */
static void parts(const struct gp__agg *a, size_t k, struct upart *part, size_t *present,
                  size_t *np)
{
	const struct gp__agg_inst *in = &a->inst[k];
	size_t m;

	*np = 0;
	for (m = in->first; m < in->first + in->n; m++) {
		const struct gp__agg_rank *r = &a->r[a->mem[m].rank];
		const struct gp__agg_ent *e = &r->ent[a->mem[m].ent];
		struct upart *p = &part[r->unit];

		if (p->stamp != k + 1) {
			p->stamp = k + 1;
			p->max_start = e->start_ns;
			p->min_end = e->end_ns;
			p->end = e->end_ns; /* the unit's lowest rank's end: members are by rank */
			present[(*np)++] = r->unit;
			continue;
		}
		if (e->start_ns > p->max_start)
			p->max_start = e->start_ns;
		if (e->end_ns < p->min_end)
			p->min_end = e->end_ns;
	}
}

struct ustate {
	int64_t depth;  /* -1: not aligned yet */
	size_t parent;  /* this round's candidate parent */
	size_t votes;   /* collectives shared with the parent */
	int64_t offset; /* ns */
	double unc;
	int64_t lo, hi; /* the bounds of o_u - o_parent */
	int64_t *diff;  /* end_parent - end_u per shared collective */
	size_t ndiff, cap;
};

/* one round: the units not yet aligned that share collectives with aligned ones; *@p more */
static int round_(struct gp__agg *a, struct ustate *u, struct upart *part, size_t *present,
                  bool *used, int64_t depth, bool *more)
{
	struct gp_u64map votes;
	size_t k, i, np, x;
	int rc = 0;

	*more = false;
	if (gp__u64map_init(&votes, 64))
		return gp__error(GP_ENOMEM, "out of memory");
	/* pass 1: each collective votes for (unaligned unit, its best aligned unit present) */
	for (k = 0; k < a->ninst; k++) {
		size_t anchor = SIZE_MAX;

		parts(a, k, part, present, &np);
		for (i = 0; i < np; i++) {
			x = present[i];
			if (u[x].depth >= 0 && u[x].depth < depth &&
			    (anchor == SIZE_MAX || u[x].depth < u[anchor].depth ||
			     (u[x].depth == u[anchor].depth && x < anchor)))
				anchor = x;
		}
		if (anchor == SIZE_MAX)
			continue;
		for (i = 0; i < np; i++) {
			uint64_t key, n = 0;

			x = present[i];
			if (u[x].depth >= 0)
				continue;
			key = (uint64_t)x << 32 | anchor;
			gp__u64map_get(&votes, key, &n);
			if (gp__u64map_put(&votes, key, n + 1))
				GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
			if (n + 1 > u[x].votes || (n + 1 == u[x].votes && anchor < u[x].parent)) {
				u[x].votes = n + 1;
				u[x].parent = anchor;
			}
		}
	}
	/* pass 2: the bounds and the end differences against the parent */
	for (k = 0; k < a->ninst; k++) {
		parts(a, k, part, present, &np);
		for (i = 0; i < np; i++) {
			const struct upart *pu, *pp;
			int64_t lo, hi;

			x = present[i];
			if (u[x].depth >= 0 || !u[x].votes || part[u[x].parent].stamp != k + 1)
				continue;
			pu = &part[x];
			pp = &part[u[x].parent];
			lo = pp->max_start - pu->min_end;
			hi = pp->min_end - pu->max_start;
			if (!u[x].ndiff || lo > u[x].lo)
				u[x].lo = lo;
			if (!u[x].ndiff || hi < u[x].hi)
				u[x].hi = hi;
			GP_TRY(gp__grow((void **)&u[x].diff, &u[x].cap, u[x].ndiff + 1,
			                sizeof(*u[x].diff)));
			u[x].diff[u[x].ndiff++] = pp->end - pu->end;
			used[k] = true;
		}
	}
	for (x = 0; x < a->nunits; x++) {
		struct ustate *s = &u[x];
		int64_t est, n;

		if (s->depth >= 0 || !s->ndiff)
			continue;
		GP_TRY(gp__sort_i64(s->diff, s->ndiff));
		n = (int64_t)s->ndiff;
		est = n % 2 ? s->diff[n / 2]
		            : s->diff[n / 2 - 1] + (s->diff[n / 2] - s->diff[n / 2 - 1]) / 2;
		if (s->lo <= s->hi) {
			est = est < s->lo ? s->lo : est > s->hi ? s->hi : est;
			s->unc = u[s->parent].unc + (double)(s->hi - s->lo) / 2.0;
		} else {
			/* bounds that contradict each other (clock drift within the trace) */
			est = s->lo + (s->hi - s->lo) / 2;
			s->unc = u[s->parent].unc + (double)(s->lo - s->hi) / 2.0;
		}
		s->offset = u[s->parent].offset + est;
		s->depth = depth;
		gp__free(s->diff);
		s->diff = NULL;
		s->ndiff = s->cap = 0;
		*more = true;
	}
out:
	gp__u64map_release(&votes);
	return rc;
}

/* the warning naming the ranks whose clock could not be aligned */
static int unaligned(struct gp__agg *a, const struct ustate *u)
{
	struct gp_buf b;
	size_t i, n = 0;
	int rc = 0;

	gp__buf_init(&b, 0);
	for (i = 0; i < a->n; i++) {
		if (u[a->r[i].unit].depth >= 0)
			continue;
		if (n++ < 16)
			GP_TRY(
			    gp__buf_addf(&b, "%s%lld", n > 1 ? ", " : "", (long long)a->r[i].rank));
	}
	if (!n)
		goto out;
	if (n > 16)
		GP_TRY(gp__buf_addf(&b, " and %zu more", n - 16));
	GP_TRY(gp__buf_addstr(&b, ": no matched collective links their clock to the reference "
	                          "rank's; their times are compared unaligned"));
	GP_TRY(gp_arr_push(a->warnings, gp_value_str(b.buf)));
out:
	gp__buf_release(&b);
	return rc;
}

int gp__agg_clock(struct gp__agg *a)
{
	struct ustate *u = NULL;
	struct upart *part = NULL;
	size_t *present = NULL, i, k;
	bool *used = NULL, more = true;
	int64_t depth;
	int rc = 0;

	a->clock_method = "collective-bounds";
	a->max_unc_ns = 0;
	GP_TRY(units(a));
	u = gp__calloc(a->nunits ? a->nunits : 1, sizeof(*u));
	part = gp__calloc(a->nunits ? a->nunits : 1, sizeof(*part));
	present = gp__calloc(a->nunits ? a->nunits : 1, sizeof(*present));
	used = gp__calloc(a->ninst ? a->ninst : 1, sizeof(*used));
	if (!u || !part || !present || !used)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < a->nunits; i++)
		u[i].depth = -1;
	if (a->nunits)
		u[a->ref_unit].depth = 0;
	if (a->nunits == 1)
		a->clock_method = "one-clock"; /* every rank on one host */
	for (depth = 1; more && a->nunits > 1; depth++)
		GP_TRY(round_(a, u, part, present, used, depth, &more));
	for (k = 0; k < a->ninst; k++)
		a->clock_used += used[k];
	for (i = 0; i < a->n; i++) {
		const struct ustate *s = &u[a->r[i].unit];

		a->r[i].offset_ns = s->depth >= 0 ? s->offset : 0;
		a->r[i].unc_ns = s->depth >= 0 ? s->unc : NAN;
		if (s->depth >= 0 && s->unc > a->max_unc_ns)
			a->max_unc_ns = s->unc;
	}
	GP_TRY(unaligned(a, u));
out:
	for (i = 0; u && i < a->nunits; i++)
		gp__free(u[i].diff);
	gp__free(u);
	gp__free(part);
	gp__free(present);
	gp__free(used);
	return rc;
}
