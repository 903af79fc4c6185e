/* SPDX-License-Identifier: MIT */
/*
 * job.c - whether the ranks read are one job: two inputs of one rank, a
 * rank whose world size, process groups or time say it belongs to another
 * job are errors naming the files; ranks missing from the world are a
 * warning naming them (the analysis goes on with the ranks given). Runs once
 * the inputs are loaded (load.c), before matching (match.c).
 */
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

/* "3, 5-7" */
static int ranges(struct gp_buf *b, const int64_t *v, size_t n)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j] == v[j - 1] + 1; j++)
			;
		GP_TRY(gp__buf_addf(b, "%s%lld", i ? ", " : "", (long long)v[i]));
		if (j - i > 1)
			GP_TRY(gp__buf_addf(b, "-%lld", (long long)v[j - 1]));
	}
out:
	return rc;
}

static int missing_ranks(struct gp__agg *a, int64_t world)
{
	int64_t *miss = NULL;
	size_t i, nm = 0, cap = 0;
	int64_t want = 0;
	struct gp_buf b;
	int rc = 0;

	gp__buf_init(&b, 0);
	for (i = 0; i <= a->n; i++) {
		int64_t upto = i < a->n ? a->r[i].rank : world;

		if (upto > world)
			upto = world;
		for (; want < upto; want++) {
			GP_TRY(gp__grow((void **)&miss, &cap, nm + 1, sizeof(*miss)));
			miss[nm++] = want;
		}
		if (i < a->n && a->r[i].rank >= want)
			want = a->r[i].rank + 1;
	}
	if (!nm)
		goto out;
	GP_TRY(gp__buf_addf(&b, "world_size is %lld but %zu rank%s %s missing: ", (long long)world,
	                    nm, nm == 1 ? "" : "s", nm == 1 ? "is" : "are"));
	GP_TRY(ranges(&b, miss, nm));
	GP_TRY(gp__buf_addstr(&b, " (the analysis covers the ranks given)"));
	GP_TRY(gp_arr_push(a->warnings, gp_value_str(b.buf)));
out:
	gp__free(miss);
	gp__buf_release(&b);
	return rc;
}

int gp__agg_check_job(struct gp__agg *a)
{
	int64_t world;
	size_t i;
	int rc = 0;

	qsort(a->r, a->n, sizeof(*a->r), cmp_rank);
	for (i = 1; i < a->n; i++)
		if (a->r[i].rank == a->r[i - 1].rank)
			return gp__error(GP_EINVAL, "rank %lld is in two inputs: '%s' and '%s'",
			                 (long long)a->r[i].rank, a->r[i - 1].file, a->r[i].file);
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
	/* hours apart: not one job (NTP leaves milliseconds, not hours) */
	for (i = 1; i < a->n; i++) {
		const struct gp__agg_rank *r = &a->r[i], *z = &a->r[0];
		int64_t lo, hi;

		if (r->span_start_ns == INT64_MIN || z->span_start_ns == INT64_MIN ||
		    r->span_ns < 0 || z->span_ns < 0)
			continue;
		lo = r->span_start_ns > z->span_start_ns ? r->span_start_ns : z->span_start_ns;
		hi = r->span_start_ns + r->span_ns < z->span_start_ns + z->span_ns
		         ? r->span_start_ns + r->span_ns
		         : z->span_start_ns + z->span_ns;
		if (lo - hi > HOUR_NS)
			return gp__error(
			    GP_EINVAL,
			    "'%s' (rank %lld) was recorded %.1f hours apart from '%s' (rank "
			    "%lld): a rank of another job",
			    r->file, (long long)r->rank, (double)(lo - hi) / 3.6e12, z->file,
			    (long long)z->rank);
	}
	GP_TRY(check_pgs(a));
	if (world >= 0)
		GP_TRY(missing_ranks(a, world));
out:
	return rc;
}
