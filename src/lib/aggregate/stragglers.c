/* SPDX-License-Identifier: MIT */
/*
 * stragglers.c - who holds the others back (contract C of issue 22): per
 * matched collective, on the aligned clock, the transfer time (the shortest
 * duration of any rank), each rank's wait (the last start minus its start),
 * the skew and the last arrival; per rank its blame (the gap between the
 * last and the second-last arrival, summed where it was last), how often it
 * was last, whether that is more than chance (one-sided binomial test, p0 the
 * mean of 1/ranks over its collectives) and, from its own report against the
 * median of the other ranks, the cause when one explains most of its blame.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate-int.h"
#include "stats/binom.h"
#include "text/text.h"
#include "util/error.h"
#include "util/sort.h"

#define SIGNIFICANT_P   0.01 /* the straggler test's level */
#define CAUSE_SHARE     0.5  /* a cause explains at least this share of the lateness per step */
#define SLOW_CLOCK_FRAC 0.95 /* an SM clock below this share of the others' median is slower */

double gp__agg_busbw_factor(const char *name, int64_t n)
{
	static const char *const nm1[] = { "allgather",
		                           "all_gather",
		                           "_allgather_base",
		                           "reduce_scatter",
		                           "reducescatter",
		                           "_reduce_scatter_base",
		                           "all_to_all",
		                           "alltoall",
		                           "all_gather_into_tensor",
		                           "reduce_scatter_tensor",
		                           "allgather_into_tensor_coalesced",
		                           "reduce_scatter_tensor_coalesced",
		                           "alltoall_base",
		                           "all_to_all_single",
		                           "allgather_coalesced",
		                           "all_gather_coalesced",
		                           "reduce_scatter_coalesced",
		                           "all_gather_into_tensor_coalesced",
		                           "gather",
		                           "scatter" };
	static const char *const one[] = {
		"broadcast", "reduce", "sendrecv",       "send",        "recv",
		"isend",     "irecv",  "_broadcast_oop", "_reduce_oop", "batch_isend_irecv"
	};
	size_t i;

	if (!name || n < 1)
		return NAN;
	/* a barrier is a one-element all-reduce */
	if (!strcmp(name, "allreduce") || !strcmp(name, "all_reduce") ||
	    !strcmp(name, "allreduce_coalesced") || !strcmp(name, "all_reduce_coalesced") ||
	    !strcmp(name, "barrier"))
		return 2.0 * (double)(n - 1) / (double)n;
	for (i = 0; i < GP_ARRAY_SIZE(nm1); i++)
		if (!strcmp(name, nm1[i]))
			return (double)(n - 1) / (double)n;
	for (i = 0; i < GP_ARRAY_SIZE(one); i++)
		if (!strcmp(name, one[i]))
			return 1.0;
	return NAN;
}

/*
 * Whether member @p m of instance @p in ended before the last rank started,
 * beyond the clocks' uncertainty (1 µs more for the timestamps): no
 * collective can, so the ranks' entries of that (pg, seq) are not one
 * collective. Ranks whose clock is not aligned are not judged.
 */
static bool ended_before_last(const struct gp__agg *a, const struct gp__agg_inst *in, size_t m)
{
	const struct gp__agg_rank *r = &a->r[a->mem[m].rank], *l = &a->r[in->last_rank];
	double tol;

	if (r->unit != l->unit && (!isfinite(r->unc_ns) || !isfinite(l->unc_ns)))
		return false;
	tol = 1000.0 + (r->unit != l->unit ? r->unc_ns + l->unc_ns : 0.0);
	return (double)in->max_start - (double)(r->ent[a->mem[m].ent].end_ns + r->offset_ns) > tol;
}

/*
 * A warning when matched entries cannot be one collective: a rank ended
 * one before another started it. Numbered alike but not the same
 * collective: one rank ran a collective the others did not (with the same
 * metadata, so the desync check cannot see it), and later ones pair wrongly.
 */
/*
 * A rank of another job, recorded on the same clock as the others (on their
 * host): nearly all of its collectives (9 in 10) cannot be the others' --
 * a desynchronisation pairs wrongly only from where it happens. In an impossible
 * instance the odd one out is the only member that ended before the last
 * started, or the last itself when every other member did; with two ranks
 * it cannot be told which. @p odd[i] / @p judged[i] count per rank.
 * @return 0, or GP_EINVAL naming the file(s).
 */
static int foreign(const struct gp__agg *a, const size_t *odd, const size_t *judged)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (judged[i] < 3 || odd[i] * 10 < judged[i] * 9)
			continue;
		if (a->n == 2)
			return gp__error(
			    GP_EINVAL,
			    "'%s' (rank %lld) and '%s' (rank %lld): %zu of their %zu "
			    "collectives ended on one rank before the other rank started "
			    "them: not one job (or not one clock)",
			    a->r[0].file, (long long)a->r[0].rank, a->r[1].file,
			    (long long)a->r[1].rank, odd[i], judged[i]);
		return gp__error(GP_EINVAL,
		                 "'%s' (rank %lld): %zu of its %zu collectives cannot be the other "
		                 "ranks' (one side ended before the other started): a rank of "
		                 "another job (or one desynchronised from its first collective)",
		                 a->r[i].file, (long long)a->r[i].rank, odd[i], judged[i]);
	}
	return 0;
}

static int misordered(struct gp__agg *a)
{
	const struct gp__agg_inst *first = NULL;
	size_t k, m, fm = 0, count = 0, *odd = NULL, *judged = NULL;
	char w[512];
	int rc = 0;

	odd = gp__calloc(a->n ? a->n : 1, sizeof(*odd));
	judged = gp__calloc(a->n ? a->n : 1, sizeof(*judged));
	if (!odd || !judged)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < a->ninst; k++) {
		const struct gp__agg_inst *in = &a->inst[k];
		size_t nbad = 0, lastbad = SIZE_MAX;

		if (in->p2p || in->last_rank == SIZE_MAX || in->n < 2)
			continue;
		for (m = in->first; m < in->first + in->n; m++) {
			judged[a->mem[m].rank]++;
			if (!ended_before_last(a, in, m))
				continue;
			nbad++;
			lastbad = a->mem[m].rank;
			if (!first || in->min_start < first->min_start) {
				first = in;
				fm = m;
			}
		}
		if (!nbad)
			continue;
		count++;
		if (nbad == in->n - 1)
			odd[in->last_rank]++;
		else if (nbad == 1)
			odd[lastbad]++;
	}
	GP_TRY(foreign(a, odd, judged));
	if (!first)
		goto out;
	snprintf(
	    w, sizeof(w),
	    "rank %lld ended collective %lld of process group '%s' (%s) before rank %lld "
	    "started it, beyond the clocks' uncertainty: the ranks' entries of that number are "
	    "not one collective (a collective some ranks ran and others did not: the "
	    "collectives pair wrongly from there); %zu collective%s so",
	    (long long)a->r[a->mem[fm].rank].rank, (long long)first->seq,
	    first->pg == GP__AGG_NONE ? "(unnamed)" : gp__strtab_get(&a->str, first->pg),
	    first->name == GP__AGG_NONE ? "?" : gp__strtab_get(&a->str, first->name),
	    (long long)a->r[first->last_rank].rank, count, count == 1 ? "" : "s");
	rc = gp_arr_push(a->warnings, gp_value_str(w));
out:
	gp__free(odd);
	gp__free(judged);
	return rc;
}

int gp__agg_arrivals(struct gp__agg *a)
{
	size_t k, m, i;

	for (i = 0; i < a->n; i++) {
		a->r[i].m[GP_AGG_WAIT] = NAN; /* known once it is in a matched collective */
		a->r[i].blame_ns = a->r[i].caused_wait_ns = a->r[i].last_count = a->r[i].matched =
		    0;
	}
	for (k = 0; k < a->ninst; k++) {
		struct gp__agg_inst *in = &a->inst[k];
		int64_t last = INT64_MIN, second = INT64_MIN, lo = INT64_MAX, xfer = INT64_MAX,
		        waits = 0;
		size_t last_rank = SIZE_MAX;

		for (m = in->first; m < in->first + in->n; m++) {
			const struct gp__agg_rank *r = &a->r[a->mem[m].rank];
			const struct gp__agg_ent *e = &r->ent[a->mem[m].ent];
			int64_t s = e->start_ns + r->offset_ns;

			if (e->end_ns - e->start_ns < xfer)
				xfer = e->end_ns - e->start_ns;
			if (s < lo)
				lo = s;
			if (s > last) {
				second = last;
				last = s;
				last_rank = a->mem[m].rank;
			} else if (s > second) {
				second = s;
			}
		}
		in->max_start = last;
		in->min_start = lo;
		in->second = second;
		in->transfer = xfer;
		in->last = last - second;
		in->last_rank = last_rank;
		in->waits = 0;
		if (in->p2p) {
			/* two peers, not the group: nobody's wait, nobody's lateness */
			in->last_rank = SIZE_MAX;
			continue;
		}
		for (m = in->first; m < in->first + in->n; m++) {
			struct gp__agg_rank *r = &a->r[a->mem[m].rank];
			int64_t w = last - (r->ent[a->mem[m].ent].start_ns + r->offset_ns);

			if (isnan(r->m[GP_AGG_WAIT]))
				r->m[GP_AGG_WAIT] = 0;
			r->m[GP_AGG_WAIT] += (double)w;
			r->matched++;
			waits = gp__agg_add(waits, w);
		}
		in->waits = waits;
		/* a tie for last is nobody's lateness */
		if (in->n >= 2 && last > second) {
			struct gp__agg_rank *r = &a->r[last_rank];

			r->last_count++;
			r->blame_ns = gp__agg_add(r->blame_ns, last - second);
			r->caused_wait_ns = gp__agg_add(r->caused_wait_ns, waits);
		}
	}
	return misordered(a);
}

/* ---- the cause ---- */

/* a rank's value of an evidence, per step; NAN unknown */
typedef double (*evid_fn)(const struct gp__agg_rank *r);

static double steps_of(const struct gp__agg_rank *r)
{
	double s = r->m[GP_AGG_STEPS];

	return s > 0 ? s : NAN;
}

static double ev_compute(const struct gp__agg_rank *r)
{
	return r->m[GP_AGG_COMPUTE] / steps_of(r);
}

static double ev_data(const struct gp__agg_rank *r)
{
	return r->dataloader_ns; /* already per step (of the mean step) */
}

static double ev_host(const struct gp__agg_rank *r)
{
	return r->host_wait_ns / steps_of(r);
}

/* the median of @p f over the ranks other than @p self (the values known); NAN when none */
static double median_others(const struct gp__agg *a, size_t self, evid_fn f, double *scratch)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		double v = i == self ? NAN : f(&a->r[i]);

		if (isfinite(v))
			scratch[n++] = v;
	}
	if (!n)
		return NAN;
	qsort(scratch, n, sizeof(*scratch), gp__cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2.0;
}

static double clock_mhz(const struct gp__agg_rank *r)
{
	return r->m[GP_AGG_GPU_CLOCK];
}

/* whether @p r's GPU is slower than the others': another model than most, or a lower clock */
static bool slower_gpu(const struct gp__agg *a, size_t self, double *scratch, char *why, size_t n)
{
	const struct gp__agg_rank *r = &a->r[self];
	double med = median_others(a, self, clock_mhz, scratch);
	size_t i, same = 0, known = 0;

	if (isfinite(r->m[GP_AGG_GPU_CLOCK]) && isfinite(med) &&
	    r->m[GP_AGG_GPU_CLOCK] < SLOW_CLOCK_FRAC * med) {
		snprintf(why, n, "its SM clock averaged %.0f MHz, the other ranks' median %.0f MHz",
		         r->m[GP_AGG_GPU_CLOCK], med);
		return true;
	}
	if (!r->gpu_model)
		return false;
	for (i = 0; i < a->n; i++) {
		if (i == self || !a->r[i].gpu_model)
			continue;
		known++;
		same += strcmp(a->r[i].gpu_model, r->gpu_model) == 0;
	}
	if (known && same * 2 < known) {
		snprintf(why, n, "its GPU is a %s, unlike most other ranks'", r->gpu_model);
		return true;
	}
	return false;
}

/*
 * Rank @p i's lateness per step: per step, the largest gap by which it
 * arrived last at a collective of that step, averaged over its steps. A
 * delay carries over to the later collectives of its step (DDP's buckets are
 * launched as the backward pass gets to them), so the sum of the gaps, its
 * blame, counts one delay several times. Without steps in the ledger:
 * blame_ns / steps. NAN when neither is known.
 */
static double late_per_step(const struct gp__agg *a, size_t i)
{
	const struct gp__agg_rank *r = &a->r[i];
	int64_t step = INT64_MIN, cur = 0, sum = 0, nsteps = 0;
	size_t k;

	for (k = 0; k < r->nent && r->ent[k].step == INT64_MIN; k++)
		;
	if (k == r->nent)
		return (double)r->blame_ns / steps_of(r);
	for (k = 0; k < r->nent; k++) {
		const struct gp__agg_ent *e = &r->ent[k];
		const struct gp__agg_inst *in;

		if (e->step == INT64_MIN)
			continue; /* outside the steps (a broadcast at start-up) */
		if (e->step != step) {
			sum = gp__agg_add(sum, cur);
			cur = 0;
			step = e->step;
			nsteps++;
		}
		if (e->inst < 0)
			continue;
		in = &a->inst[e->inst];
		if (in->last_rank == i && in->last > cur && in->max_start > in->second)
			cur = in->last;
	}
	sum = gp__agg_add(sum, cur);
	/* in double: a hostile report's step count need not fit an int64 */
	return steps_of(r) > (double)nsteps ? (double)sum / steps_of(r)
	       : nsteps                     ? (double)sum / (double)nsteps
	                                    : NAN;
}

const char *gp__agg_cause(const struct gp__agg *a, size_t i, char *detail, size_t n, double *excess)
{
	static const struct {
		const char *cause, *what;
		evid_fn f;
	} ev[] = {
		/* first: data loading keeps the host from launching, so it shows as host wait too
		 */
		{ "data_loading", "data loading", ev_data },
		{ "compute", "GPU compute", ev_compute },
		{ "host_launch",
		  "idle waiting for the host's launches, summed over its GPU's streams,", ev_host },
	};
	const struct gp__agg_rank *r = &a->r[i];
	double *scratch, per_step, mean_late, best = 0, best_mine = NAN, best_med = NAN;
	const char *cause = NULL;
	char t1[32], t2[32], t3[32], t4[32], why[160];
	size_t k, bk = 0;

	detail[0] = '\0';
	*excess = NAN;
	if (!r->last_count || r->blame_ns <= 0)
		return NULL;
	mean_late = (double)r->blame_ns / (double)r->last_count;
	/*
	 * its clock is not known well enough to say it was late at all: the
	 * uncertainty is one collective's, so against one late arrival's gap
	 * (a clock off by U makes every arrival look up to U late; the blame,
	 * their sum, outgrows U with the collectives)
	 */
	if (isfinite(r->unc_ns) && r->unc_ns > mean_late) {
		snprintf(detail, n,
		         "its clock offset is known only to ±%s, more than its lateness of %s per "
		         "late arrival (%s of blame in all): the lateness may be the clocks'",
		         gp__fmt_dur(t1, sizeof(t1), r->unc_ns, 0),
		         gp__fmt_dur(t3, sizeof(t3), mean_late, 0),
		         gp__fmt_dur(t2, sizeof(t2), (double)r->blame_ns, 0));
		return "clock";
	}
	per_step = late_per_step(a, i);
	if (!isfinite(per_step) || a->n < 2 || !(scratch = gp__calloc(a->n, sizeof(*scratch))))
		return NULL;
	for (k = 0; k < GP_ARRAY_SIZE(ev); k++) {
		double mine = ev[k].f(r), med = median_others(a, i, ev[k].f, scratch);

		if (isfinite(mine) && isfinite(med) && mine - med > best) {
			best = mine - med;
			best_mine = mine;
			best_med = med;
			bk = k;
		}
		if (k == 0 && best >= CAUSE_SHARE * per_step)
			break; /* the more specific cause explains it */
	}
	if (best > 0 && best >= CAUSE_SHARE * per_step) {
		cause = ev[bk].cause;
		*excess = best;
		why[0] = '\0';
		if (bk == 1 && slower_gpu(a, i, scratch, why, sizeof(why)))
			cause = "slow_gpu";
		snprintf(
		    detail, n,
		    "%s %s per step against the other ranks' median %s: %s more, %.0f%% of its "
		    "lateness per step (%s)%s%s",
		    ev[bk].what, gp__fmt_dur(t1, sizeof(t1), best_mine, 0),
		    gp__fmt_dur(t2, sizeof(t2), best_med, 0), gp__fmt_dur(t3, sizeof(t3), best, 0),
		    100.0 * best / per_step, gp__fmt_dur(t4, sizeof(t4), per_step, 0),
		    why[0] ? "; " : "", why);
	}
	gp__free(scratch);
	return cause;
}

/* ---- the list ---- */

struct by_blame {
	int64_t blame, rank;
	size_t i;
};

static int cmp_blame(const void *x, const void *y)
{
	const struct by_blame *p = x, *q = y;

	if (p->blame != q->blame)
		return p->blame > q->blame ? -1 : 1;
	return p->rank < q->rank ? -1 : p->rank > q->rank;
}

/* the rank indices with a last arrival, by blame (every rank may have one: a sort) */
static size_t by_blame(const struct gp__agg *a, size_t *ix, struct by_blame *tmp)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		if (a->r[i].last_count)
			tmp[n++] = (struct by_blame){ a->r[i].blame_ns, a->r[i].rank, i };
	if (n)
		qsort(tmp, n, sizeof(*tmp), cmp_blame);
	for (i = 0; i < n; i++)
		ix[i] = tmp[i].i;
	return n;
}

/* p0: the chance of being last at random, the mean of 1/ranks over its collectives */
static double chance(const struct gp__agg *a, size_t self)
{
	const struct gp__agg_rank *r = &a->r[self];
	double sum = 0;
	size_t k, n = 0;

	for (k = 0; k < r->nent; k++) {
		int32_t in = r->ent[k].inst;

		if (in < 0 || a->inst[in].p2p)
			continue;
		sum += 1.0 / (double)a->inst[in].n;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

int gp__agg_stragglers(const struct gp__agg *a, struct gp_value **out)
{
	struct gp_value *list = gp_value_array(), *o = NULL;
	size_t *ix = gp__calloc(a->n ? a->n : 1, sizeof(*ix)), i, n;
	struct by_blame *tmp = gp__calloc(a->n ? a->n : 1, sizeof(*tmp));
	char detail[512];
	double excess;
	int rc = 0;

	*out = NULL;
	if (!list || !ix || !tmp)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	n = by_blame(a, ix, tmp);
	for (i = 0; i < n; i++) {
		const struct gp__agg_rank *r = &a->r[ix[i]];
		double lp = gp__binom_logsf(r->last_count, r->matched, chance(a, ix[i]));
		double p = exp(lp);
		/* last no more often than chance: nothing to explain (and noise would) */
		const char *cause = p < SIGNIFICANT_P
		                        ? gp__agg_cause(a, ix[i], detail, sizeof(detail), &excess)
		                        : NULL;

		if (!(o = gp_value_object()))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set_int(o, "rank", r->rank));
		GP_TRY(gp_obj_set_int(o, "blame_ns", r->blame_ns));
		GP_TRY(gp_obj_set_int(o, "last_count", r->last_count));
		GP_TRY(gp_obj_set_int(o, "collectives", r->matched));
		GP_TRY(gp_obj_set_double(
		    o, "last_arrival_pct",
		    r->matched ? 100.0 * (double)r->last_count / (double)r->matched : NAN));
		GP_TRY(gp_obj_set_double(o, "p_value", p));
		/* the magnitude that 6 decimals lose (every p below 5e-7 reads 0) */
		GP_TRY(gp_obj_set_double(o, "p_value_log10", lp / log(10.0)));
		GP_TRY(gp_obj_set_bool(o, "significant", p < SIGNIFICANT_P));
		GP_TRY(gp_obj_set_int(o, "caused_wait_ns", r->caused_wait_ns));
		GP_TRY(cause ? gp_obj_set_str(o, "cause", cause) : gp_obj_set_null(o, "cause"));
		GP_TRY(cause ? gp_obj_set_str(o, "cause_detail", detail)
		             : gp_obj_set_null(o, "cause_detail"));
		/* per step, how much longer than the median rank (clock: the uncertainty) */
		GP_TRY(gp__agg_set_num(o, "cause_excess_ns",
		                       cause && isfinite(excess) ? round(excess) : NAN));
		GP_TRY(gp_arr_push(list, o));
		o = NULL;
	}
	*out = list;
	list = NULL;
out:
	gp_value_free(o);
	gp_value_free(list);
	gp__free(ix);
	gp__free(tmp);
	return rc;
}
