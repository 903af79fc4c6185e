/* SPDX-License-Identifier: MIT */
/*
 * clock.c - the hosts' clocks aligned from the collectives themselves
 * (contract C of issue 22).
 *
 * Ranks on one host share a clock: one offset per host when hosts are
 * known, per rank otherwise (a "unit"). No rank can finish a collective
 * before the last rank has started it, so for units u and p every matched
 * collective bounds d = o_u - o_p to [start_p - end_u, end_p - start_u]: the
 * intersection over the shared collectives is the hard bound. NCCL
 * collectives end together: the estimate is the median over the shared
 * collectives of end_p - end_u, clamped into the bound; its uncertainty is
 * the spread of those differences around it (1.4826 × their median absolute
 * deviation: a robust sigma of one difference), never below the timestamps'
 * resolution, never above the bound's half-width (docs/aggregate-schema.md,
 * "Clock"). Point-to-point operations (send, recv, sendrecv) neither wait
 * for the whole group nor end together: they are left out.
 *
 * The reference is the unit of the lowest rank (offset 0). A unit that
 * shares no collective with the reference is reached through a unit already
 * aligned (its parent, the one it shares most collectives with), the
 * uncertainties and the bounds adding up, in rounds until no unit is left
 * that can be reached. Each round costs one pass over the matched
 * collectives' members: ranks × collectives, never ranks².
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
	int64_t lo, hi;   /* the bounds of o_u - o_parent */
	int64_t blo, bhi; /* the bound of the offset: the parent's and its own added */
	int64_t res;      /* the coarsest timestamp resolution of its ranks, ns */
	int64_t *diff;    /* end_parent - end_u per shared collective */
	size_t ndiff, cap;
};

/*
 * An offset within twice the job's spread (job.c): a chain of hostile
 * reports cannot push a time plus its offset beyond int64.
 */
static int64_t clamp_offset(int64_t x)
{
	const int64_t m = 2 * GP__AGG_JOB_SPREAD;

	return x < -m ? -m : x > m ? m : x;
}

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

		if (a->inst[k].p2p)
			continue;
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
		if (a->inst[k].p2p)
			continue;
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
		const struct ustate *p = &u[s->parent];
		int64_t est, n, res, lo, hi;
		double half, spread;

		if (s->depth >= 0 || !s->ndiff)
			continue;
		GP_TRY(gp__sort_i64(s->diff, s->ndiff));
		n = (int64_t)s->ndiff;
		est = n % 2 ? s->diff[n / 2]
		            : s->diff[n / 2 - 1] + (s->diff[n / 2] - s->diff[n / 2 - 1]) / 2;
		/* bounds that contradict each other (clock drift within the trace): their span */
		lo = s->lo <= s->hi ? s->lo : s->hi;
		hi = s->lo <= s->hi ? s->hi : s->lo;
		est = s->lo <= s->hi ? (est < lo ? lo : est > hi ? hi : est) : lo + (hi - lo) / 2;
		half = (double)hi / 2.0 - (double)lo / 2.0;
		/* the spread of the end differences around the estimate, in place */
		for (i = 0; i < s->ndiff; i++)
			s->diff[i] = s->diff[i] >= est ? s->diff[i] - est : est - s->diff[i];
		GP_TRY(gp__sort_i64(s->diff, s->ndiff));
		spread = GP__AGG_MAD_SCALE *
		         (n % 2 ? (double)s->diff[n / 2]
		                : ((double)s->diff[n / 2 - 1] + (double)s->diff[n / 2]) / 2.0);
		res = s->res > p->res ? s->res : p->res;
		if (spread < (double)res)
			spread = (double)res;
		if (spread > half)
			spread = half;
		s->unc = p->unc + spread;
		s->offset = clamp_offset(p->offset + est);
		s->blo = clamp_offset(p->blo + lo);
		s->bhi = clamp_offset(p->bhi + hi);
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

/* the warning naming the ranks whose clock could not be aligned, and why */
static int unaligned(struct gp__agg *a, const struct ustate *u)
{
	struct gp_buf b;
	size_t i, n = 0, shown = 0;
	bool waits = a->ninst > (size_t)a->clock_p2p;
	int rc = 0;

	gp__buf_init(&b, 0);
	for (i = 0; i < a->n; i++)
		n += u[a->r[i].unit].depth < 0;
	if (!n)
		goto out;
	GP_TRY(gp__buf_addstr(&b, n == 1 ? "rank " : "ranks "));
	for (i = 0; i < a->n && shown < 16; i++)
		if (u[a->r[i].unit].depth < 0)
			GP_TRY(gp__buf_addf(&b, "%s%lld", shown++ ? ", " : "",
			                    (long long)a->r[i].rank));
	if (n > 16)
		GP_TRY(gp__buf_addf(&b, " and %zu more", n - 16));
	GP_TRY(gp__buf_addf(&b,
	                    ": no collective links %s clock to rank %lld's%s, so %s offset is "
	                    "unknown; %s",
	                    n == 1 ? "its" : "their", (long long)a->r[0].rank,
	                    a->clock_p2p ? " (point-to-point operations cannot: they are left out)"
	                                 : "",
	                    n == 1 ? "its" : "their",
	                    waits ? "waits at collectives across these clocks assume they agree"
	                          : "no collective is shared, so there are no waits either"));
	GP_TRY(gp_arr_push(a->warnings, gp_value_str(b.buf)));
out:
	gp__buf_release(&b);
	return rc;
}

/* the coarsest power of ten (1 ns to 1 µs) that divides every timestamp of rank @p r */
static int64_t resolution(const struct gp__agg_rank *r)
{
	int64_t res = 1000;
	size_t k;

	for (k = 0; k < r->nent && res > 1; k++)
		while (res > 1 && (r->ent[k].start_ns % res || r->ent[k].end_ns % res))
			res /= 10;
	return res;
}

int gp__agg_clock(struct gp__agg *a)
{
	struct ustate *u = NULL;
	struct upart *part = NULL;
	size_t *present = NULL, i, k, aligned = 0;
	bool *used = NULL, more = true;
	int64_t depth;
	int rc = 0;

	a->clock_method = "collective-bounds";
	a->max_unc_ns = NAN;
	a->clock_used = a->clock_p2p = 0;
	GP_TRY(units(a));
	u = gp__calloc(a->nunits ? a->nunits : 1, sizeof(*u));
	part = gp__calloc(a->nunits ? a->nunits : 1, sizeof(*part));
	present = gp__calloc(a->nunits ? a->nunits : 1, sizeof(*present));
	used = gp__calloc(a->ninst ? a->ninst : 1, sizeof(*used));
	if (!u || !part || !present || !used)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < a->nunits; i++) {
		u[i].depth = -1;
		u[i].res = 1;
	}
	for (i = 0; i < a->n; i++) {
		int64_t res = resolution(&a->r[i]);

		if (res > u[a->r[i].unit].res)
			u[a->r[i].unit].res = res;
	}
	if (a->nunits)
		u[a->ref_unit].depth = 0;
	if (a->nunits == 1)
		a->clock_method = "one-clock"; /* every rank on one host */
	for (depth = 1; more && a->nunits > 1; depth++)
		GP_TRY(round_(a, u, part, present, used, depth, &more));
	for (k = 0; k < a->ninst; k++) {
		a->clock_used += used[k];
		a->clock_p2p += a->inst[k].p2p;
	}
	for (i = 0; i < a->nunits; i++)
		aligned += u[i].depth > 0;
	if (a->nunits > 1 && !aligned)
		a->clock_method = "none"; /* no collective links two clocks */
	for (i = 0; i < a->n; i++) {
		const struct ustate *s = &u[a->r[i].unit];

		a->r[i].offset_ns = s->depth >= 0 ? s->offset : 0;
		a->r[i].unc_ns = s->depth >= 0 ? s->unc : NAN;
		a->r[i].bound_lo = s->blo;
		a->r[i].bound_hi = s->bhi;
		if (s->depth >= 0 && !(s->unc <= a->max_unc_ns))
			a->max_unc_ns = s->unc;
	}
	if (!strcmp(a->clock_method, "none"))
		a->max_unc_ns = NAN;
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
