/* SPDX-License-Identifier: MIT */
/*
 * job.c - whether the ranks read are one job: two inputs of one rank, a
 * rank whose world size, process groups or time say it belongs to another
 * job are errors naming the files; ranks missing from the world are a
 * warning naming them (the analysis goes on with the ranks given). Runs once
 * the inputs are loaded (load.c), before matching (match.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate-int.h"
#include "util/buf.h"
#include "util/error.h"

#define HOUR_NS INT64_C(3600000000000)

static int cmp_rank(const void *x, const void *y)
{
	const struct gp__agg_rank *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->file, b->file);
}

/* the world size most ranks give, -1 when none does */
static int64_t majority_world(const struct gp__agg *a)
{
	int64_t best = -1;
	size_t i, j, bestn = 0;

	/* ranks agree almost always: count the first value's votes, then any other's */
	for (i = 0; i < a->n; i++) {
		size_t k = 0;

		if (a->r[i].world_size < 0 || a->r[i].world_size == best)
			continue;
		for (j = 0; j < a->n; j++)
			k += a->r[j].world_size == a->r[i].world_size;
		if (k > bestn) {
			bestn = k;
			best = a->r[i].world_size;
		}
		if (bestn * 2 > a->n)
			break;
	}
	return best;
}

static bool same_ranks(const struct gp__agg_pg *x, const struct gp__agg_pg *y)
{
	return x->nranks == y->nranks && !memcmp(x->ranks, y->ranks, x->nranks * sizeof(*x->ranks));
}

/*
 * Ranks whose process groups contradict the first rank that describes each
 * group (by name, with its ranks): a map from the name to that rank and group.
 */
static int check_pgs(const struct gp__agg *a)
{
	struct gp_u64map first;
	size_t i, k;
	int rc = 0;

	if (gp__u64map_init(&first, 64))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < a->n; i++) {
		for (k = 0; k < a->r[i].npg; k++) {
			const struct gp__agg_pg *p = &a->r[i].pg[k], *q;
			uint64_t was;
			size_t j;

			if (p->name == GP__AGG_NONE || !p->ranks)
				continue;
			if (!gp__u64map_get(&first, p->name, &was)) {
				if (gp__u64map_put(&first, p->name, (uint64_t)i << 32 | k))
					GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
				continue;
			}
			j = (size_t)(was >> 32);
			q = &a->r[j].pg[was & 0xffffffffu];
			if (!same_ranks(p, q))
				GP_TRY(gp__error(
				    GP_EINVAL,
				    "'%s' (rank %lld): process group '%s' has other ranks "
				    "than in '%s' (rank %lld): a rank of another job",
				    a->r[i].file, (long long)a->r[i].rank,
				    gp__strtab_get(&a->str, p->name), a->r[j].file,
				    (long long)a->r[j].rank));
		}
	}
out:
	gp__u64map_release(&first);
	return rc;
}

#define MISSING_RANGES 32 /* ranges of missing ranks the warning lists */

/* appends the gap [lo, hi) of missing ranks as "3" or "5-7" (the first MISSING_RANGES) */
static int gap(struct gp_buf *b, int64_t lo, int64_t hi, size_t *nranges)
{
	if (lo >= hi || (*nranges)++ >= MISSING_RANGES)
		return 0;
	if (hi - lo == 1)
		return gp__buf_addf(b, "%s%lld", *nranges > 1 ? ", " : "", (long long)lo);
	return gp__buf_addf(b, "%s%lld-%lld", *nranges > 1 ? ", " : "", (long long)lo,
	                    (long long)(hi - 1));
}

/* the ranks of [0, world) no input holds: a warning with their ranges (never one by one) */
static int missing_ranks(struct gp__agg *a, int64_t world)
{
	int64_t want = 0, nm = 0;
	size_t i, nranges = 0;
	struct gp_buf b, list;
	int rc = 0;

	gp__buf_init(&b, 0);
	gp__buf_init(&list, 0);
	for (i = 0; i <= a->n; i++) {
		int64_t upto = i < a->n ? a->r[i].rank : world;

		if (upto > world)
			upto = world;
		if (upto > want) {
			nm += upto - want;
			GP_TRY(gap(&list, want, upto, &nranges));
		}
		if (i < a->n && a->r[i].rank >= want)
			want = a->r[i].rank + 1;
	}
	if (!nm)
		goto out;
	if (nranges > MISSING_RANGES)
		GP_TRY(gp__buf_addstr(&list, ", …"));
	GP_TRY(gp__buf_addf(&b, "world_size is %lld but %lld rank%s %s missing: %s",
	                    (long long)world, (long long)nm, nm == 1 ? "" : "s",
	                    nm == 1 ? "is" : "are", list.buf));
	GP_TRY(gp__buf_addstr(&b, " (the analysis covers the ranks given)"));
	GP_TRY(gp_arr_push(a->warnings, gp_value_str(b.buf)));
out:
	gp__buf_release(&b);
	gp__buf_release(&list);
	return rc;
}

/*
 * Ledger entries whose times cannot be (an end before the start, a time
 * beyond 2^62 ns) are left out with a warning naming the file; sizes beyond
 * any message (bytes over 2^50, a group over 2^31) become unknown. Then the
 * ranks' collectives must lie within GP__AGG_JOB_SPREAD of each other.
 */
static int check_times(struct gp__agg *a)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i, k, n, lo_ix = 0, hi_ix = 0;
	int rc = 0;

	for (i = 0; i < a->n; i++) {
		struct gp__agg_rank *r = &a->r[i];

		for (k = 0, n = 0; k < r->nent; k++) {
			struct gp__agg_ent e = r->ent[k];

			if (e.start_ns > e.end_ns || e.start_ns < -GP__AGG_TIME_MAX ||
			    e.end_ns > GP__AGG_TIME_MAX)
				continue;
			if (e.bytes > (INT64_C(1) << 50))
				e.bytes = -1;
			if (e.group_size > (INT64_C(1) << 31) || e.group_size == 0)
				e.group_size = -1;
			r->ent[n++] = e;
			if (e.start_ns < lo) {
				lo = e.start_ns;
				lo_ix = i;
			}
			if (e.end_ns > hi) {
				hi = e.end_ns;
				hi_ix = i;
			}
		}
		if (n < r->nent) {
			char w[1200];

			snprintf(
			    w, sizeof(w),
			    "'%s' (rank %lld): %zu collective%s of its ledger left out: an end "
			    "before the start, or a time beyond any clock",
			    r->file, (long long)r->rank, r->nent - n, r->nent - n == 1 ? "" : "s");
			GP_TRY(gp_arr_push(a->warnings, gp_value_str(w)));
		}
		r->nent = n;
	}
	if (lo <= hi && hi - lo > GP__AGG_JOB_SPREAD)
		return gp__error(
		    GP_EINVAL,
		    "'%s' (rank %lld) and '%s' (rank %lld): their collectives are %.0f "
		    "days apart: not one job",
		    a->r[lo_ix].file, (long long)a->r[lo_ix].rank, a->r[hi_ix].file,
		    (long long)a->r[hi_ix].rank, (double)(hi - lo) / 8.64e13);
out:
	return rc;
}

int gp__agg_check_job(struct gp__agg *a)
{
	int64_t world;
	size_t i;
	int rc = 0;

	qsort(a->r, a->n, sizeof(*a->r), cmp_rank);
	world = majority_world(a);
	for (i = 0; i < a->n; i++) {
		const struct gp__agg_rank *r = &a->r[i];

		if (r->world_size >= 0 && world >= 0 && r->world_size != world)
			return gp__error(
			    GP_EINVAL,
			    "'%s' (rank %lld): world_size %lld, the other ranks' is %lld: a "
			    "rank of another job",
			    r->file, (long long)r->rank, (long long)r->world_size,
			    (long long)world);
		if (world >= 0 && (r->rank < 0 || r->rank >= world))
			return gp__error(GP_EINVAL, "'%s': rank %lld is outside world_size %lld",
			                 r->file, (long long)r->rank, (long long)world);
	}
	/* after the world sizes: a rank of another job is named so, not as a duplicate */
	for (i = 1; i < a->n; i++) {
		if (a->r[i].rank != a->r[i - 1].rank)
			continue;
		if (!strcmp(a->r[i].file, a->r[i - 1].file))
			return gp__error(
			    GP_EINVAL,
			    "rank %lld is in two inputs: '%s' and '%s' (the same file: "
			    "given twice, or a report holding the rank twice; give each "
			    "rank once)",
			    (long long)a->r[i].rank, a->r[i].file, a->r[i].file);
		return gp__error(GP_EINVAL, "rank %lld is in two inputs: '%s' and '%s'",
		                 (long long)a->r[i].rank, a->r[i - 1].file, a->r[i].file);
	}
	/* hours apart: not one job (NTP leaves milliseconds, not hours) */
	for (i = 1; i < a->n; i++) {
		const struct gp__agg_rank *r = &a->r[i], *z = &a->r[0];
		int64_t lo, hi, re, ze;

		if (r->span_start_ns == INT64_MIN || z->span_start_ns == INT64_MIN ||
		    r->span_ns < 0 || z->span_ns < 0)
			continue;
		re = gp__agg_add(r->span_start_ns, r->span_ns);
		ze = gp__agg_add(z->span_start_ns, z->span_ns);
		lo = r->span_start_ns > z->span_start_ns ? r->span_start_ns : z->span_start_ns;
		hi = re < ze ? re : ze;
		if ((double)lo - (double)hi > (double)HOUR_NS)
			return gp__error(
			    GP_EINVAL,
			    "'%s' (rank %lld) was recorded %.1f hours apart from '%s' (rank "
			    "%lld): a rank of another job",
			    r->file, (long long)r->rank, ((double)lo - (double)hi) / 3.6e12,
			    z->file, (long long)z->rank);
	}
	GP_TRY(check_pgs(a));
	GP_TRY(check_times(a));
	if (world >= 0)
		GP_TRY(missing_ranks(a, world));
out:
	return rc;
}
