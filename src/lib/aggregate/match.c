/* SPDX-License-Identifier: MIT */
/*
 * match.c - one collective across ranks: the ledgers' entries matched by
 * (process group, sequence number), as contract C of issue 22 defines it.
 *
 * Every entry of every rank is one reference; the references sorted by
 * (pg, seq, rank) put the ranks of one collective side by side, so matching
 * costs a sort, never a rank-by-rank search. Per process group only the
 * sequence numbers every member covers count (the intersection of their
 * [min, max]): outside it the profiler windows differ ("unmatched"), inside
 * it a member without the entry, or with other metadata than the majority,
 * is a desynchronisation. The first one in time is reported; the matched
 * collectives are analysed all the same with the ranks that ran them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate-int.h"
#include "text/text.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/sort.h"

struct ref {
	uint32_t pg;
	uint32_t rank; /* index in a->r */
	bool p2p;      /* point-to-point: numbered apart, matched apart */
	int64_t seq;
	size_t ent;
};

static int cmp_ref(const void *x, const void *y)
{
	const struct ref *a = x, *b = y;

	if (a->pg != b->pg)
		return a->pg < b->pg ? -1 : 1;
	if (a->p2p != b->p2p)
		return a->p2p ? 1 : -1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->ent < b->ent ? -1 : a->ent > b->ent;
}

/* per process group: the members and their seq ranges */
struct pgscan {
	int64_t *lo, *hi; /* per rank index; lo > hi: no entry */
	bool *member;
	size_t *mlist; /* the members' rank indices, ascending */
	size_t nmember;
	int64_t common_lo, common_hi;
};

static const char *str_or_null(const struct gp__agg *a, uint32_t id)
{
	return id == GP__AGG_NONE ? NULL : gp__strtab_get(&a->str, id);
}

/*
 * An all-to-all whose splits may differ: with uneven splits (MoE token
 * routing) every rank sends and receives its own size, so the sizes of
 * one all-to-all need not agree across the ranks.
 */
static bool uneven_sizes(const struct gp__agg *a, uint32_t name)
{
	static const char *const a2a[] = { "all_to_all", "alltoall", "alltoall_base",
		                           "all_to_all_single", "alltoallv" };
	const char *n = str_or_null(a, name);
	size_t i;

	for (i = 0; n && i < GP_ARRAY_SIZE(a2a); i++)
		if (!strcmp(n, a2a[i]))
			return true;
	return false;
}

/* what must agree across the ranks of one collective (an all-to-all's size need not) */
static bool same_meta(const struct gp__agg *a, const struct gp__agg_ent *x,
                      const struct gp__agg_ent *y)
{
	return x->name == y->name && x->dtype == y->dtype && x->group_size == y->group_size &&
	       (x->bytes == y->bytes || uneven_sizes(a, x->name));
}

static int set_str(struct gp_value *o, const char *key, const char *s)
{
	return s ? gp_obj_set_str(o, key, s) : gp_obj_set_null(o, key);
}

static int set_i64(struct gp_value *o, const char *key, int64_t x)
{
	return x >= 0 ? gp_obj_set_int(o, key, x) : gp_obj_set_null(o, key);
}

static struct gp_value *meta_obj(const struct gp__agg *a, const struct gp__agg_ent *e)
{
	struct gp_value *o = gp_value_object();

	if (!o || set_str(o, "name", str_or_null(a, e->name)) ||
	    set_str(o, "dtype", str_or_null(a, e->dtype)) || set_i64(o, "bytes", e->bytes) ||
	    set_i64(o, "group_size", e->group_size)) {
		gp_value_free(o);
		return NULL;
	}
	return o;
}

/* "allreduce Float 25.3 MiB over 8" */
static int describe(struct gp_buf *b, const struct gp__agg *a, const struct gp__agg_ent *e)
{
	char t[32];
	int rc = 0;

	GP_TRY(gp__buf_addstr(b, e->name == GP__AGG_NONE ? "?" : gp__strtab_get(&a->str, e->name)));
	if (e->dtype != GP__AGG_NONE)
		GP_TRY(gp__buf_addf(b, " %s", gp__strtab_get(&a->str, e->dtype)));
	if (e->bytes >= 0)
		GP_TRY(gp__buf_addf(b, " %s", gp__fmt_bytes(t, sizeof(t), (double)e->bytes, 0)));
	if (e->group_size >= 0)
		GP_TRY(gp__buf_addf(b, " over %lld ranks", (long long)e->group_size));
out:
	return rc;
}

/* the desync candidate: kept when it is the first in time */
struct desync {
	bool set;
	int64_t when; /* the earliest start of the collective among its ranks (own clocks) */
	uint32_t pg;
	int64_t seq;
	size_t rank;        /* index in a->r of the divergent rank */
	bool missing;       /* else metadata */
	size_t expected_ix; /* rank index and entry of the majority's */
	size_t expected_ent;
	size_t found_ent; /* metadata: the divergent rank's entry */
	size_t nran;      /* ranks that ran it */
};

static int desync_doc(struct gp__agg *a, const struct desync *d)
{
	const struct gp__agg_ent *exp = &a->r[d->expected_ix].ent[d->expected_ent];
	const struct gp__agg_ent *fnd = d->missing ? NULL : &a->r[d->rank].ent[d->found_ent];
	const char *pg = str_or_null(a, d->pg);
	struct gp_value *o = gp_value_object();
	struct gp_buf b;
	int rc = 0;

	gp__buf_init(&b, 0);
	if (!o)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(set_str(o, "pg", pg));
	GP_TRY(gp_obj_set_int(o, "seq", d->seq));
	GP_TRY(gp_obj_set_int(o, "rank", a->r[d->rank].rank));
	GP_TRY(gp_obj_set_str(o, "kind", d->missing ? "missing" : "metadata"));
	GP_TRY(set_str(o, "collective", str_or_null(a, exp->name)));
	GP_TRY(gp_obj_set(o, "expected", meta_obj(a, exp)));
	GP_TRY(gp_obj_set(o, "found", fnd ? meta_obj(a, fnd) : gp_value_null()));
	if (!gp_obj_get(o, "expected") || !gp_obj_get(o, "found"))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__buf_addf(&b, "rank %lld ", (long long)a->r[d->rank].rank));
	if (d->missing) {
		GP_TRY(gp__buf_addf(&b, "never ran collective %lld of process group %s%s%s (",
		                    (long long)d->seq, pg ? "'" : "", pg ? pg : "(unnamed)",
		                    pg ? "'" : ""));
		GP_TRY(describe(&b, a, exp));
		GP_TRY(gp__buf_addf(&b, ") that %zu other rank%s ran", d->nran,
		                    d->nran == 1 ? "" : "s"));
	} else {
		GP_TRY(gp__buf_addf(&b, "ran collective %lld of process group %s%s%s as ",
		                    (long long)d->seq, pg ? "'" : "", pg ? pg : "(unnamed)",
		                    pg ? "'" : ""));
		GP_TRY(describe(&b, a, fnd));
		GP_TRY(gp__buf_addstr(&b, "; the other ranks as "));
		GP_TRY(describe(&b, a, exp));
	}
	GP_TRY(gp__buf_addstr(&b, ": the ranks diverge here (later collectives may pair wrongly)"));
	GP_TRY(gp_obj_set_str(o, "detail", b.buf));
	a->desync = o;
	o = NULL;
out:
	gp_value_free(o);
	gp__buf_release(&b);
	return rc;
}

bool gp__agg_is_p2p(const char *name)
{
	static const char *const p2p[] = { "send",  "recv",  "sendrecv",
		                           "isend", "irecv", "batch_isend_irecv" };
	size_t i;

	for (i = 0; name && i < GP_ARRAY_SIZE(p2p); i++)
		if (!strcmp(name, p2p[i]))
			return true;
	return false;
}

static void consider(struct desync *best, const struct desync *d)
{
	if (!best->set || d->when < best->when)
		*best = *d;
}

/* one (pg, seq) group refs[i..j) inside the common range: an instance, and its checks */
static int instance(struct gp__agg *a, const struct ref *refs, size_t i, size_t j,
                    const struct pgscan *ps, size_t *icap, size_t *mcap, struct desync *best)
{
	const struct gp__agg_ent *maj = NULL;
	struct gp__agg_inst *in;
	struct desync d;
	size_t k, n = 0, majn = 0, ranks = 0;
	int64_t when = INT64_MAX;
	bool p2p;
	int rc = 0;

	/* the majority's metadata: Boyer-Moore vote, then a count */
	for (k = i; k < j; k++) {
		const struct gp__agg_ent *e = &a->r[refs[k].rank].ent[refs[k].ent];

		if (k > i && refs[k].rank == refs[k - 1].rank)
			continue;
		ranks++;
		if (e->start_ns < when)
			when = e->start_ns;
		if (!maj || same_meta(a, maj, e)) {
			maj = maj ? maj : e;
			majn++;
		} else if (--majn == 0) {
			maj = e;
			majn = 1;
		}
	}
	memset(&d, 0, sizeof(d));
	d.when = when;
	d.pg = refs[i].pg;
	d.seq = refs[i].seq;
	d.nran = ranks;
	/*
	 * Point-to-point: two ranks of the group take part, and PyTorch numbers
	 * them apart from the collectives, so the others' absence and another
	 * peer's other sizes are no desynchronisation.
	 */
	p2p = gp__agg_is_p2p(str_or_null(a, maj->name));
	for (k = i; k < j; k++) {
		const struct gp__agg_ent *e = &a->r[refs[k].rank].ent[refs[k].ent];

		if (same_meta(a, maj, e)) {
			d.expected_ix = refs[k].rank;
			d.expected_ent = refs[k].ent;
			break;
		}
	}
	/* a member without the entry: the first member missing, in rank order */
	if (!p2p && ranks < ps->nmember) {
		size_t q, r, at = i;

		for (q = 0; q < ps->nmember; q++) { /* the members, not every rank */
			r = ps->mlist[q];
			while (at < j && refs[at].rank < r)
				at++;
			if (at < j && refs[at].rank == r)
				continue;
			d.set = true;
			d.missing = true;
			d.rank = r;
			consider(best, &d);
			break;
		}
	}
	for (k = i; k < j; k++) {
		const struct gp__agg_ent *e = &a->r[refs[k].rank].ent[refs[k].ent];

		if (!p2p && !same_meta(a, maj, e) && (k == i || refs[k].rank != refs[k - 1].rank)) {
			d.set = true;
			d.missing = false;
			d.rank = refs[k].rank;
			d.found_ent = refs[k].ent;
			consider(best, &d);
			break;
		}
	}
	if (ranks < 2) {
		/* ran by one member of several: no match (the others' lack is the desync) */
		if (ps->nmember > 1 && !p2p)
			a->unmatched += (int64_t)(j - i);
		return 0;
	}
	GP_TRY(gp__grow((void **)&a->inst, icap, a->ninst + 1, sizeof(*a->inst)));
	GP_TRY(gp__grow((void **)&a->mem, mcap, a->nmem + ranks, sizeof(*a->mem)));
	in = &a->inst[a->ninst];
	memset(in, 0, sizeof(*in));
	in->pg = refs[i].pg;
	in->seq = refs[i].seq;
	in->name = maj->name;
	in->bytes = maj->bytes;
	in->group_size = maj->group_size;
	in->p2p = p2p;
	in->first = a->nmem;
	for (k = i; k < j; k++) {
		if (k > i && refs[k].rank == refs[k - 1].rank) {
			a->unmatched++; /* the same (pg, seq) twice in one rank: the second is no
			                   match */
			continue;
		}
		a->mem[a->nmem].rank = refs[k].rank;
		a->mem[a->nmem].ent = refs[k].ent;
		a->r[refs[k].rank].ent[refs[k].ent].inst = (int32_t)a->ninst;
		a->nmem++;
		n++;
	}
	in->n = n;
	a->ninst++;
out:
	return rc;
}

/*
 * A member whose seq range does not meet the median range of the members
 * (median first, median last): it belongs to another job or profiler
 * window, and would empty the common range of all: an error naming it.
 */
static int disjoint(const struct gp__agg *a, const struct pgscan *ps, uint32_t pg)
{
	int64_t *v = gp__calloc(a->n ? a->n : 1, sizeof(*v)), mlo, mhi;
	size_t r, n = 0;
	int rc = 0;

	if (!v)
		return gp__error(GP_ENOMEM, "out of memory");
	for (r = 0; r < a->n; r++)
		if (ps->lo[r] <= ps->hi[r])
			v[n++] = ps->lo[r];
	if ((rc = gp__sort_i64(v, n)))
		goto out;
	mlo = v[n / 2];
	for (r = 0, n = 0; r < a->n; r++)
		if (ps->lo[r] <= ps->hi[r])
			v[n++] = ps->hi[r];
	if ((rc = gp__sort_i64(v, n)))
		goto out;
	mhi = v[(n - 1) / 2];
	for (r = 0; r < a->n && mlo <= mhi; r++) {
		if (ps->lo[r] > ps->hi[r] || (ps->hi[r] >= mlo && ps->lo[r] <= mhi))
			continue;
		rc = gp__error(
		    GP_EINVAL,
		    "'%s' (rank %lld): none of its collectives matches another rank's: its "
		    "process group '%s' runs seq %lld-%lld, the other ranks' %lld-%lld (a "
		    "rank of another job, or of another profiler window)",
		    a->r[r].file, (long long)a->r[r].rank,
		    pg == GP__AGG_NONE ? "(unnamed)" : gp__strtab_get(&a->str, pg),
		    (long long)ps->lo[r], (long long)ps->hi[r], (long long)mlo, (long long)mhi);
		break;
	}
out:
	gp__free(v);
	return rc;
}

/* the members of process group @p pg, their ranges and the common one, from refs[i..j) */
static int scan_pg(const struct gp__agg *a, const struct ref *refs, size_t i, size_t j,
                   struct pgscan *ps)
{
	size_t k, r;
	int rc;

	for (r = 0; r < a->n; r++) {
		ps->lo[r] = INT64_MAX;
		ps->hi[r] = INT64_MIN;
		ps->member[r] = false;
	}
	for (k = i; k < j; k++) {
		r = refs[k].rank;
		ps->member[r] = true;
		if (refs[k].seq < ps->lo[r])
			ps->lo[r] = refs[k].seq;
		if (refs[k].seq > ps->hi[r])
			ps->hi[r] = refs[k].seq;
	}
	if ((rc = disjoint(a, ps, refs[i].pg)))
		return rc;
	ps->common_lo = INT64_MIN;
	ps->common_hi = INT64_MAX;
	for (r = 0; r < a->n; r++) {
		if (!ps->member[r])
			continue;
		if (ps->lo[r] > ps->common_lo)
			ps->common_lo = ps->lo[r];
		if (ps->hi[r] < ps->common_hi)
			ps->common_hi = ps->hi[r];
	}
	/*
	 * The group's listed ranks that were given but ran none of its
	 * collectives are members too: every one of them is missing.
	 */
	for (r = 0; r < a->n; r++) {
		const struct gp__agg_rank *x = &a->r[r];
		size_t g, q;

		for (g = 0; g < x->npg; g++) {
			if (x->pg[g].name != refs[i].pg || !x->pg[g].ranks)
				continue;
			for (q = 0; q < x->pg[g].nranks; q++) {
				size_t lo = 0, hi = a->n;

				while (lo < hi) { /* the rank's index: a->r is sorted by rank */
					size_t mid = lo + (hi - lo) / 2;

					if (a->r[mid].rank < x->pg[g].ranks[q])
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo < a->n && a->r[lo].rank == x->pg[g].ranks[q])
					ps->member[lo] = true;
			}
			goto count; /* one description of the group is enough */
		}
	}
count:
	for (ps->nmember = 0, r = 0; r < a->n; r++)
		if (ps->member[r])
			ps->mlist[ps->nmember++] = r;
	return 0;
}

int gp__agg_match(struct gp__agg *a)
{
	struct ref *refs = NULL;
	struct pgscan ps = { 0 };
	struct desync best;
	size_t nref = 0, r, k, i, j, icap = 0, mcap = 0;
	int rc = 0;

	memset(&best, 0, sizeof(best));
	for (r = 0; r < a->n; r++)
		nref += a->r[r].nent;
	if (!nref)
		return 0;
	refs = gp__calloc(nref, sizeof(*refs));
	ps.lo = gp__calloc(a->n, sizeof(*ps.lo));
	ps.hi = gp__calloc(a->n, sizeof(*ps.hi));
	ps.member = gp__calloc(a->n, sizeof(*ps.member));
	ps.mlist = gp__calloc(a->n, sizeof(*ps.mlist));
	if (!refs || !ps.lo || !ps.hi || !ps.member || !ps.mlist)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	nref = 0;
	for (r = 0; r < a->n; r++)
		for (k = 0; k < a->r[r].nent; k++) {
			const struct gp__agg_ent *e = &a->r[r].ent[k];

			refs[nref++] =
			    (struct ref){ e->pg, (uint32_t)r,
				          gp__agg_is_p2p(str_or_null(a, e->name)), e->seq, k };
		}
	qsort(refs, nref, sizeof(*refs), cmp_ref);
	for (i = 0; i < nref; i = j) {
		size_t g, h;

		for (j = i + 1; j < nref && refs[j].pg == refs[i].pg && refs[j].p2p == refs[i].p2p;
		     j++)
			;
		/*
		 * Point-to-point: two ranks of the group each, so no common window
		 * of the group's members and no missing member (instance())
		 */
		if (!refs[i].p2p)
			GP_TRY(scan_pg(a, refs, i, j, &ps));
		for (g = i; g < j; g = h) {
			for (h = g + 1; h < j && refs[h].seq == refs[g].seq; h++)
				;
			if (!refs[i].p2p &&
			    (refs[g].seq < ps.common_lo || refs[g].seq > ps.common_hi)) {
				a->unmatched += (int64_t)(h - g);
				continue;
			}
			GP_TRY(instance(a, refs, g, h, &ps, &icap, &mcap, &best));
		}
	}
	if (best.set)
		GP_TRY(desync_doc(a, &best));
out:
	gp__free(refs);
	gp__free(ps.lo);
	gp__free(ps.hi);
	gp__free(ps.member);
	gp__free(ps.mlist);
	return rc;
}

int gp__agg_check_matched(const struct gp__agg *a)
{
	size_t r, k, with = 0;

	for (r = 0; r < a->n; r++)
		with += a->r[r].nent > 0;
	if (with < 2)
		return 0;
	for (r = 0; r < a->n; r++) {
		const struct gp__agg_rank *x = &a->r[r];
		size_t coll = 0;
		bool any = false;

		/* its collectives; point-to-point whose peer was not given match nothing */
		for (k = 0; k < x->nent && !any; k++) {
			if (gp__agg_is_p2p(str_or_null(a, x->ent[k].name)))
				continue;
			coll++;
			any = x->ent[k].inst >= 0;
		}
		if (coll && !any)
			return gp__error(
			    GP_EINVAL,
			    "'%s' (rank %lld): none of its %zu collectives matches another "
			    "rank's by process group and sequence number: a rank of "
			    "another job, or another profiler window",
			    x->file, (long long)x->rank, x->nent);
	}
	return 0;
}
