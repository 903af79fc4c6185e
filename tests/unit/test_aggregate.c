/* SPDX-License-Identifier: MIT */
/*
 * test_aggregate.c - the aggregate library (gpuprof/aggregate.h) on
 * synthetic jobs whose answers are known by construction: each rank's
 * gpuprof.analyze/1 report is written from a true timeline (collectives
 * that end together, a known straggler, known host clock offsets), then
 * gp_aggregate_paths() must recover them: the offset within 10 µs, the
 * straggler first with its cause, the desynchronisation at its seq, busbw
 * by nccl-tests' formula. Also the binomial tail against exact values and
 * every bad input the issue names (each an error or warning naming the file).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/aggregate-int.h"
#include "gpuprof/aggregate.h"
#include "stats/binom.h"
#include "util/buf.h"

#define assert_rel(a, b, rel)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (rel)*fabs(b_)))                                            \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

#define T0      INT64_C(1700000000000000000)
#define GAP_NS  INT64_C(10000000) /* between collectives */
#define XFER_NS INT64_C(1000000)  /* every collective's transfer once all arrived */
#define BYTES   INT64_C(26550272)

/* a job, as the generator writes it */
struct spec {
	int ranks, per_host; /* per_host 0: no host names */
	int64_t delta[8]; /* host h's clock reads true time + delta[h] (per rank without hosts) */
	int ncoll, per_step;
	int straggler;
	int64_t late_ns;
	bool late_data;            /* the straggler is late for its data loading, not its compute */
	bool late_silent;          /* ... or for nothing its report shows */
	bool late_host;            /* ... or for its GPU waiting for the host's launches */
	int drop_rank, drop_seq;   /* desync: this rank lacks this seq (-1 none) */
	int meta_rank, meta_seq;   /* desync: this rank's seq has other bytes */
	int skip_rank, skip_first; /* this rank's ledger starts later (profiler window) */
	/* bad inputs of rank bad_rank */
	int bad_rank;
	bool no_ledger, bad_pg, shift_seq;
	const char *schema;
	int64_t world, bad_world, hours;
	int64_t end_jitter; /* the ranks' ends of one collective spread over this many ns */
	bool us;            /* timestamps in whole µs, as old Kineto writes them */
	int p2p_every;      /* every p2p_every-th collective (c % p2p_every == 0) is a sendrecv */
	int64_t p2p_late;   /* host 1's ranks end their sendrecvs this much later */
	bool a2a;           /* all_to_all with uneven splits: each rank's own size */
};

static void spec_init(struct spec *s, int ranks)
{
	memset(s, 0, sizeof(*s));
	s->ranks = ranks;
	s->ncoll = 40;
	s->per_step = 4;
	s->straggler = -1;
	s->drop_rank = s->meta_rank = s->skip_rank = s->bad_rank = -1;
	s->world = ranks;
}

static uint64_t rng(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* true arrival of rank r at collective c (jitter up to 50 µs, the straggler later) */
static int64_t arrival(const struct spec *s, int r, int c)
{
	uint64_t x = (uint64_t)(r * 1000003 + c * 7919 + 1);

	return T0 + (int64_t)c * GAP_NS + (int64_t)(rng(&x) % 50000) +
	       (r == s->straggler ? s->late_ns : 0);
}

static int64_t end_of(const struct spec *s, int c)
{
	int64_t last = 0;
	int r;

	for (r = 0; r < s->ranks; r++)
		if (arrival(s, r, c) > last)
			last = arrival(s, r, c);
	return last + XFER_NS;
}

static int64_t delta_of(const struct spec *s, int r)
{
	return s->per_host ? s->delta[r / s->per_host] : s->delta[r % 8];
}

/* writes rank r's report into @p dir as rank<r>.json */
static void write_rank(const char *dir, const struct spec *s, int r)
{
	struct gp_buf b;
	int64_t d = delta_of(s, r), steps = s->ncoll / s->per_step;
	bool late = r == s->straggler;
	int64_t compute =
	    steps * INT64_C(20000000) + r * 100000 +
	    (late && !s->late_data && !s->late_silent && !s->late_host ? s->ncoll * s->late_ns : 0);
	/* data loading: 1 % of a 40 ms step; the straggler's per_step * late_ns more */
	double dl_pct =
	    1.0 + (late && s->late_data ? 100.0 * (double)(s->per_step * s->late_ns) / 40e6 : 0);
	bool bad = r == s->bad_rank;
	char name[32];
	int c, k, n = 0;

	gp__buf_init(&b, 0);
	assert_int_equal(gp__buf_addf(&b, "{\"schema\": \"%s\", \"ranks\": [{\"rank\": %d, ",
	                              bad && s->schema ? s->schema : "gpuprof.analyze/1", r),
	                 0);
	if (s->per_host)
		gp__buf_addf(&b, "\"host\": \"node-%d\", ", r / s->per_host);
	else
		gp__buf_addstr(&b, "\"host\": null, ");
	gp__buf_addf(&b,
	             "\"overview\": {\"start_ns\": %lld, \"span_ns\": %lld, \"distributed\": "
	             "{\"rank\": %d, \"world_size\": %lld, \"backend\": \"nccl\"}, \"devices\": "
	             "[{\"id\": 0, \"active\": true, \"name\": \"NVIDIA H100\"}]}, ",
	             (long long)(T0 + d + (bad ? s->hours * INT64_C(3600000000000) : 0)),
	             (long long)(s->ncoll * GAP_NS), r,
	             (long long)(bad && s->bad_world ? s->bad_world : s->world));
	gp__buf_addf(&b,
	             "\"gpu\": {\"busy_ns\": %lld, \"idle_ns\": 1000, \"idle_pct\": 1.5, "
	             "\"compute_ns\": %lld, \"communication_ns\": 4000000, "
	             "\"comm_comp_overlap_pct\": 25, \"idle_breakdown_total\": {\"host_wait_ns\": "
	             "%lld}}, ",
	             (long long)compute, (long long)compute,
	             (long long)(1000 + (late && s->late_host ? s->ncoll * s->late_ns : 0)));
	gp__buf_addf(
	    &b,
	    "\"step_stats\": {\"count\": %lld, \"mean_ns\": 40000000, \"median_ns\": "
	    "40000000, \"p95_ns\": 41000000, \"breakdown_pct\": {\"dataloader_pct\": %g}}, "
	    "\"memory\": {\"devices\": [{\"device\": \"cpu\", \"peak_allocated_bytes\": "
	    "999999999}, {\"device\": 0, \"peak_allocated_bytes\": %d}]}, \"findings\": [], ",
	    (long long)steps, dl_pct, 1000000 + r);
	if (bad && s->no_ledger) {
		gp__buf_addstr(&b, "\"x\": 0}]}");
		goto write;
	}
	gp__buf_addstr(&b, "\"collectives\": {\"seq_source\": \"trace\", \"process_groups\": "
	                   "[{\"name\": \"0\", \"desc\": \"default_pg\", \"ranks\": [");
	for (k = 0; k < s->ranks; k++)
		gp__buf_addf(&b, "%s%d", k ? ", " : "", bad && s->bad_pg ? k + 100 : k);
	gp__buf_addf(&b, "], \"size\": %d}], \"ledger\": [", s->ranks);
	for (c = 0; c < s->ncoll; c++) {
		int64_t st = arrival(s, r, c) + d, en = end_of(s, c) + d;
		int64_t seq = c + (bad && s->shift_seq ? 100000 : 0);
		bool p2p = s->p2p_every && c % s->p2p_every == 0;
		uint64_t x = (uint64_t)(r * 7 + c * 131 + 5);

		if (s->end_jitter)
			en += (int64_t)(rng(&x) % (uint64_t)s->end_jitter);
		if (p2p && s->per_host && r / s->per_host == 1)
			en += s->p2p_late;
		if (s->us) {
			st = st / 1000 * 1000;
			en = en / 1000 * 1000;
		}

		if ((r == s->drop_rank && c == s->drop_seq) ||
		    (r == s->skip_rank && c < s->skip_first))
			continue;
		gp__buf_addf(&b,
		             "%s{\"pg\": \"0\", \"seq\": %lld, \"name\": \"%s\", \"kernel\": "
		             "null, \"dtype\": \"Float\", \"bytes\": %lld, \"group_size\": %d, "
		             "\"step\": %lld, \"cpu_start_ns\": null, \"start_ns\": %lld, "
		             "\"end_ns\": %lld}",
		             n++ ? ", " : "", (long long)seq,
		             p2p      ? "sendrecv"
		             : s->a2a ? "all_to_all"
		                      : "allreduce",
		             (long long)(r == s->meta_rank && c == s->meta_seq ? 1024
		                         : s->a2a                              ? BYTES + r * 4096
		                                                               : BYTES),
		             s->ranks, (long long)(c / s->per_step), (long long)st, (long long)en);
	}
	gp__buf_addstr(&b, "]}}]}");
write:
	snprintf(name, sizeof(name), "rank%d.json", r);
	tu_write_file(dir, name, b.buf);
	gp__buf_release(&b);
}

/* the job of @p s aggregated from its directory; rc the status, *doc the document */
static int run(const struct spec *s, int only_ranks, struct gp_value **doc, char *dir)
{
	struct gp_aggregate_opts o;
	const char *paths[1] = { dir };
	int r;

	strcpy(dir, "/tmp/gp-agg.XXXXXX");
	assert_int_equal(tu_tmpdir_make(dir), 0);
	for (r = 0; r < (only_ranks ? only_ranks : s->ranks); r++)
		write_rank(dir, s, r);
	gp_aggregate_opts_init(&o);
	o.threads = 2;
	return gp_aggregate_paths(paths, 1, &o, doc);
}

static const struct gp_value *rank_obj(const struct gp_value *doc, int64_t rank)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	size_t i;

	for (i = 0; i < gp_value_len(ranks); i++)
		if (tu_geti(gp_arr_get(ranks, i), "rank") == rank)
			return gp_arr_get(ranks, i);
	fail_msg("no rank %lld", (long long)rank);
	return NULL;
}

/* ---- the binomial tail ---- */

static void test_binom(void **state)
{
	(void)state;
	/* exact values (Python's fractions over math.comb) */
	assert_rel(gp__binom_sf(3, 10, 0.1), 0.070190826400000003, 1e-12);
	assert_rel(gp__binom_sf(40, 120, 0.125), 2.727505024174407e-09, 1e-9);
	assert_rel(gp__binom_sf(600, 4000, 0.125), 1.7572822921799556e-06, 1e-8);
	assert_rel(gp__binom_sf(700, 4000, 0.125), 5.5046612403397249e-20, 1e-8);
	assert_rel(gp__binom_sf(2500, 5000, 0.5), 0.50564161374773997, 1e-10);
	assert_true(gp__binom_sf(0, 10, 0.3) == 1.0);
	assert_true(gp__binom_sf(11, 10, 0.3) == 0.0);
	assert_true(gp__binom_sf(5000, 5000, 0.125) == 0.0); /* underflows to 0, not NaN */
	assert_true(isnan(gp__binom_sf(1, 10, NAN)));
	/* C(5000, 5000) 0.125^5000 = 10^(5000 log10 0.125): far below a double */
	assert_rel(gp__binom_logsf(5000, 5000, 0.125) / log(10.0), 5000 * log10(0.125), 1e-12);
	assert_rel(gp__binom_logsf(700, 4000, 0.125), log(5.5046612403397249e-20), 1e-9);
}

/* ---- busbw ---- */

static void test_busbw(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *c;
	struct spec s;
	char dir[64];
	double algbw;

	(void)state;
	assert_true(gp__agg_busbw_factor("allreduce", 8) == 1.75);
	assert_true(gp__agg_busbw_factor("allgather", 8) == 0.875);
	assert_true(gp__agg_busbw_factor("reduce_scatter", 4) == 0.75);
	assert_true(gp__agg_busbw_factor("all_to_all", 2) == 0.5);
	assert_true(gp__agg_busbw_factor("broadcast", 8) == 1.0);
	/* a barrier is a one-byte all-reduce */
	assert_true(gp__agg_busbw_factor("barrier", 8) == 1.75);
	assert_true(isnan(gp__agg_busbw_factor("no_such_collective", 8)));
	/* PyTorch's many spellings */
	{
		static const char *const ar[] = { "allreduce", "all_reduce", "allreduce_coalesced",
			                          "barrier" };
		static const char *const nm1[] = { "allgather",
			                           "all_gather",
			                           "_allgather_base",
			                           "all_gather_into_tensor",
			                           "allgather_into_tensor_coalesced",
			                           "reduce_scatter",
			                           "_reduce_scatter_base",
			                           "reduce_scatter_tensor",
			                           "reduce_scatter_tensor_coalesced",
			                           "alltoall",
			                           "all_to_all",
			                           "alltoall_base",
			                           "gather",
			                           "scatter" };
		static const char *const one[] = { "broadcast", "reduce", "send", "recv",
			                           "sendrecv" };
		size_t i;

		for (i = 0; i < sizeof(ar) / sizeof(ar[0]); i++)
			assert_true(gp__agg_busbw_factor(ar[i], 4) == 1.5);
		for (i = 0; i < sizeof(nm1) / sizeof(nm1[0]); i++)
			if (gp__agg_busbw_factor(nm1[i], 4) != 0.75)
				fail_msg("%s: factor %g", nm1[i], gp__agg_busbw_factor(nm1[i], 4));
		for (i = 0; i < sizeof(one) / sizeof(one[0]); i++)
			assert_true(gp__agg_busbw_factor(one[i], 4) == 1.0);
	}

	spec_init(&s, 8);
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	c = gp_arr_get(gp_obj_get(doc, "collectives"), 0);
	assert_string_equal(tu_gets(c, "name"), "allreduce");
	/* a rank's peak memory is its GPU's, not its host's larger one */
	assert_int_equal(tu_geti(rank_obj(doc, 3), "peak_memory_bytes"), 1000003);
	assert_int_equal(tu_geti(c, "count"), s.ncoll);
	assert_int_equal(tu_geti(c, "ranks"), 8);
	assert_int_equal(tu_geti(c, "bytes"), s.ncoll * BYTES);
	/* the last to arrive took exactly the transfer: the shortest duration */
	assert_int_equal(tu_geti(c, "transfer_ns"), s.ncoll * XFER_NS);
	algbw = (double)BYTES / (double)XFER_NS; /* B/ns = GB/s */
	assert_rel(tu_getd(c, "algbw_gbps"), algbw, 1e-12);
	assert_rel(tu_getd(c, "busbw_gbps"), algbw * 2.0 * 7.0 / 8.0, 1e-12);
	assert_true(gp_value_get_bool(gp_obj_get(c, "cross_host"), true) == false ||
	            gp_value_type(gp_obj_get(c, "cross_host")) == GP_VALUE_NULL);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/* ---- clocks ---- */

static void test_clock_hosts(void **state)
{
	struct gp_value *doc = NULL;
	struct spec s;
	char dir[64];
	int r;

	(void)state;
	spec_init(&s, 8);
	s.per_host = 4;
	s.delta[0] = 1000;
	s.delta[1] = 3456789; /* host 1 runs 3.455789 ms ahead of host 0 */
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	for (r = 0; r < 8; r++) {
		int64_t want = -(delta_of(&s, r) - s.delta[0]);
		int64_t got = tu_geti(rank_obj(doc, r), "clock_offset_ns");

		if (llabs(got - want) > 10000)
			fail_msg("rank %d: offset %lld, expected %lld", r, (long long)got,
			         (long long)want);
	}
	assert_int_equal(tu_geti(rank_obj(doc, 0), "clock_offset_ns"), 0);
	assert_true(tu_geti(doc, "clock/collectives_used") > 0);
	assert_string_equal(tu_gets(doc, "clock/method"), "collective-bounds");
	/* the bound: half the window of one arrival jitter, never more than the transfer */
	assert_true(tu_getd(rank_obj(doc, 5), "clock_uncertainty_ns") <= (double)XFER_NS);
	assert_true(gp_value_get_bool(
	    gp_obj_get(gp_arr_get(gp_obj_get(doc, "collectives"), 0), "cross_host"), false));
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

static void test_clock_ranks(void **state)
{
	struct gp_value *doc = NULL;
	struct spec s;
	char dir[64];
	int r;

	(void)state;
	spec_init(&s, 4); /* no hosts: one clock per rank */
	s.delta[1] = -777777;
	s.delta[2] = 123456789;
	s.delta[3] = 42;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	for (r = 0; r < 4; r++) {
		int64_t want = -(s.delta[r] - s.delta[0]);

		assert_true(llabs(tu_geti(rank_obj(doc, r), "clock_offset_ns") - want) <= 10000);
	}
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/*
 * The offset's uncertainty is the estimate's, from the spread of the end
 * differences, not the half-width of the causal bound (which is loose when
 * one host never holds the last arrival); the bound is reported apart.
 */
static void test_clock_uncertainty(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *b;
	struct spec s;
	char dir[64];
	double u, lo, hi;
	int64_t off;

	(void)state;
	spec_init(&s, 8);
	s.per_host = 4;
	s.delta[1] = 1234500;
	s.straggler = 5; /* host 1 holds the last arrival: host 0's bound side is loose */
	s.late_ns = 5000000;
	s.end_jitter = 4000; /* the ends of one collective within 4 µs */
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	off = tu_geti(rank_obj(doc, 5), "clock_offset_ns");
	assert_true(llabs(off + s.delta[1]) <= 4000);
	u = tu_getd(rank_obj(doc, 5), "clock_uncertainty_ns");
	b = gp_obj_get(rank_obj(doc, 5), "clock_bound_ns");
	assert_int_equal(gp_value_len(b), 2);
	assert_true(gp_value_get_double(gp_arr_get(b, 0), &lo));
	assert_true(gp_value_get_double(gp_arr_get(b, 1), &hi));
	assert_true(lo <= (double)off && (double)off <= hi);
	assert_true(lo <= -1234500.0 && -1234500.0 <= hi);
	/* the bound is milliseconds wide; the estimate known to a few µs */
	assert_true(hi - lo > 1e6);
	assert_true(u >= 1.0 && u <= 10000.0);
	assert_true(u <= (hi - lo) / 2);
	assert_rel(tu_getd(doc, "clock/max_uncertainty_ns"), u, 1e-9);
	/* the reference: offset 0, exactly */
	assert_int_equal(tu_geti(rank_obj(doc, 0), "clock_uncertainty_ns"), 0);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);

	/* whole-µs timestamps: never less certain than their resolution */
	spec_init(&s, 4);
	s.per_host = 2;
	s.delta[1] = 777000;
	s.us = true;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	assert_true(tu_getd(rank_obj(doc, 3), "clock_uncertainty_ns") >= 1000.0);
	assert_true(llabs(tu_geti(rank_obj(doc, 3), "clock_offset_ns") + 777000) <= 2000);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/*
 * A rank late by less than its clock's uncertainty at each collective may
 * be late only by the clocks, however many collectives add up its blame:
 * the cause is "clock" (the uncertainty is one collective's, as the lateness
 * per late arrival is).
 */
static void test_cause_clock(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *st;
	struct spec s;
	char dir[64];
	double u;

	(void)state;
	spec_init(&s, 8);
	s.per_host = 4;
	s.delta[1] = 1234500;
	s.ncoll = 200;
	s.straggler = 5;
	s.late_ns = 200000; /* 200 µs late at every collective, for nothing in its report */
	s.late_silent = true;
	s.end_jitter = 2000000; /* the ends spread over 2 ms: the clock known to hundreds of µs */
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	u = tu_getd(rank_obj(doc, 5), "clock_uncertainty_ns");
	st = gp_arr_get(gp_obj_get(doc, "stragglers"), 0);
	assert_int_equal(tu_geti(st, "rank"), 5);
	assert_true(gp_value_get_bool(gp_obj_get(st, "significant"), false));
	/* the blame adds up far beyond the uncertainty; one late arrival does not */
	assert_true(tu_getd(st, "blame_ns") > u);
	assert_true(tu_getd(st, "blame_ns") / tu_getd(st, "last_count") < u);
	assert_string_equal(tu_gets(st, "cause"), "clock");
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/*
 * Point-to-point operations neither wait for the group nor end together:
 * the clock leaves them out (and says how many), so do the waits and the
 * stragglers; the collectives table shows them on their own lines.
 */
static void test_p2p(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *cs, *c;
	struct spec s;
	char dir[64];
	size_t i, np = 0;
	int r;

	(void)state;
	spec_init(&s, 4);
	s.per_host = 2;
	s.delta[1] = -2500000;
	s.p2p_every = 2;
	s.p2p_late = 3000000; /* would pull the estimate by 1.5 ms if they counted */
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	for (r = 0; r < 4; r++)
		assert_true(llabs(tu_geti(rank_obj(doc, r), "clock_offset_ns") + delta_of(&s, r)) <=
		            10000);
	assert_int_equal(tu_geti(doc, "clock/collectives_used"), s.ncoll / 2);
	assert_int_equal(tu_geti(doc, "clock/p2p_excluded"), s.ncoll / 2);
	cs = gp_obj_get(doc, "collectives");
	for (i = 0; i < gp_value_len(cs); i++) {
		c = gp_arr_get(cs, i);
		if (!gp_value_get_bool(gp_obj_get(c, "p2p"), false))
			continue;
		np++;
		assert_string_equal(tu_gets(c, "name"), "sendrecv");
		assert_true(gp_value_type(gp_obj_get(c, "wait_ns")) == GP_VALUE_NULL);
		assert_true(i == gp_value_len(cs) - 1); /* after the collectives */
	}
	assert_int_equal(np, 1);
	/* the stragglers count the collectives only */
	for (i = 0; i < gp_value_len(gp_obj_get(doc, "stragglers")); i++)
		assert_int_equal(
		    tu_geti(gp_arr_get(gp_obj_get(doc, "stragglers"), i), "collectives"),
		    s.ncoll / 2);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);

	/* nothing but p2p, hosts unknown: no clock, offsets unknown, a warning, no waits */
	spec_init(&s, 2);
	s.delta[1] = 57000000;
	s.p2p_every = 1;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	assert_string_equal(tu_gets(doc, "clock/method"), "none");
	assert_true(gp_value_type(gp_obj_get(doc, "clock")) == GP_VALUE_OBJECT);
	assert_true(gp_value_type(gp_obj_get(gp_obj_get(doc, "clock"), "max_uncertainty_ns")) ==
	            GP_VALUE_NULL);
	assert_true(gp_value_type(gp_obj_get(rank_obj(doc, 1), "clock_offset_ns")) ==
	            GP_VALUE_NULL);
	assert_true(gp_value_type(gp_obj_get(rank_obj(doc, 1), "wait_ns")) == GP_VALUE_NULL);
	assert_int_equal(gp_value_len(gp_obj_get(doc, "stragglers")), 0);
	assert_non_null(
	    strstr(gp_value_get_str(gp_arr_get(gp_obj_get(doc, "warnings"), 0)), "point-to-point"));
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/* ---- hostile reports ---- */

/* one rank's report: world @p world, ledger entries "pg 0, seq k" at @p times[2k], [2k + 1] */
static void write_raw(const char *dir, int rank, const char *world, const char *const *times, int n)
{
	struct gp_buf b;
	char name[32];
	int k;

	gp__buf_init(&b, 0);
	gp__buf_addf(&b,
	             "{\"schema\": \"gpuprof.analyze/1\", \"ranks\": [{\"rank\": %d, \"host\": "
	             "\"node-%d\", \"overview\": {\"distributed\": {\"rank\": %d, \"world_size\": "
	             "%s}}, \"collectives\": {\"seq_source\": \"trace\", \"process_groups\": [], "
	             "\"ledger\": [",
	             rank, rank, rank, world);
	for (k = 0; k < n; k++)
		gp__buf_addf(
		    &b,
		    "%s{\"pg\": \"0\", \"seq\": %d, \"name\": \"allreduce\", \"bytes\": 8, "
		    "\"group_size\": 2, \"start_ns\": %s, \"end_ns\": %s}",
		    k ? ", " : "", k, times[2 * k], times[2 * k + 1]);
	gp__buf_addstr(&b, "]}}]}");
	snprintf(name, sizeof(name), "rank%d.json", rank);
	tu_write_file(dir, name, b.buf);
	gp__buf_release(&b);
}

/*
 * A world size of 2^62 is named in ranges, never rank by rank (which never
 * ended); times at the ends of int64 are left out with a warning naming the
 * file (their differences overflowed: a SIGFPE in the heatmap); collectives
 * months apart are not one job.
 */
static void test_hostile(void **state)
{
	static const char *const ok[] = { "1000000000", "1000001000", "2000000000",
		                          "2000001000", "3000000000", "3000001000" };
	static const char *const bad[] = { "1000000100",           "1000001000",
		                           "-9223372036854775808", "9223372036854775807",
		                           "3000000100",           "3000001000" };
	static const char *const far[] = { "1000000100",          "1000001000",
		                           "2000000100",          "2000001000",
		                           "4000000000000000000", "4000000000000001000" };
	const char *paths[1];
	struct gp_value *doc = NULL;
	const struct gp_value *w;
	char dir[64];
	size_t i;
	bool named = false, left = false;

	(void)state;
	strcpy(dir, "/tmp/gp-agg.XXXXXX");
	assert_int_equal(tu_tmpdir_make(dir), 0);
	paths[0] = dir;
	write_raw(dir, 0, "4611686018427387904", ok, 3);
	write_raw(dir, 1, "4611686018427387904", bad, 3);
	assert_int_equal(gp_aggregate_paths(paths, 1, NULL, &doc), 0);
	w = gp_obj_get(doc, "warnings");
	for (i = 0; i < gp_value_len(w); i++) {
		const char *x = gp_value_get_str(gp_arr_get(w, i));

		named |=
		    strstr(x, "4611686018427387902 ranks are missing: 2-4611686018427387903") !=
		    NULL;
		left |= strstr(x, "rank1.json") && strstr(x, "1 collective of its ledger left out");
	}
	assert_true(named);
	assert_true(left);
	/* the two sound collectives are matched */
	assert_int_equal(tu_geti(gp_arr_get(gp_obj_get(doc, "collectives"), 0), "count"), 2);
	gp_value_free(doc);
	doc = NULL;
	write_raw(dir, 1, "2", far, 3);
	write_raw(dir, 0, "2", ok, 3);
	assert_int_equal(gp_aggregate_paths(paths, 1, NULL, &doc), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "days apart"));
	assert_non_null(strstr(gp_last_error(), "rank1.json"));
	assert_null(doc);
	tu_tmpdir_remove(dir);
}

/* ---- stragglers ---- */

static void test_straggler(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *st, *f, *h, *o;
	struct spec s;
	char dir[64];
	size_t b;
	int r, found;

	(void)state;
	spec_init(&s, 8);
	s.per_host = 2;
	s.delta[1] = 5000000;
	s.delta[2] = -2000000;
	s.delta[3] = 700;
	s.straggler = 5;
	s.late_ns = 2000000; /* 2 ms late at every collective */
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	st = gp_arr_get(gp_obj_get(doc, "stragglers"), 0);
	assert_int_equal(tu_geti(st, "rank"), 5);
	assert_int_equal(tu_geti(st, "last_count"), s.ncoll);
	assert_true(gp_value_get_bool(gp_obj_get(st, "significant"), false));
	assert_true(tu_getd(st, "p_value_log10") < -9);
	assert_true(tu_getd(st, "last_arrival_pct") == 100.0);
	/* blame: the gap to the second-last, about the delay (the jitter is < 50 µs) */
	assert_true(llabs(tu_geti(st, "blame_ns") - s.ncoll * s.late_ns) <= s.ncoll * 50000);
	assert_string_equal(tu_gets(st, "cause"), "compute");
	/* its wait is the smallest; another rank's is about 2 ms per collective */
	assert_true(tu_getd(rank_obj(doc, 5), "wait_ns") < tu_getd(rank_obj(doc, 0), "wait_ns"));
	f = gp_arr_get(gp_obj_get(doc, "findings"), 0);
	assert_string_equal(tu_gets(f, "id"), "straggler");
	assert_true(tu_getd(f, "impact_pct") > 0);
	/* impact: the others' wait it caused over the job's step time (10 steps of 40 ms) × ranks
	 */
	assert_rel(tu_getd(f, "impact_pct"),
	           100.0 * tu_getd(st, "caused_wait_ns") / (10 * 40e6 * 8), 1e-5);
	h = gp_obj_get(doc, "heatmap");
	assert_int_equal(gp_value_len(gp_obj_get(h, "wait_ns")), 8);
	assert_true(tu_geti(h, "bin_ns") > 0);
	/* every rank's row holds its wait, spread over the bins */
	for (r = 0; r < 8; r++) {
		const struct gp_value *row = gp_arr_get(gp_obj_get(h, "wait_ns"), (size_t)r);
		int64_t sum = 0, x;

		assert_true(gp_value_get_int(gp_arr_get(gp_obj_get(h, "ranks"), (size_t)r), &x));
		assert_int_equal(x, r);
		for (b = 0; b < gp_value_len(row); b++) {
			assert_true(gp_value_get_int(gp_arr_get(row, b), &x));
			sum += x;
		}
		assert_int_equal(sum, tu_geti(rank_obj(doc, r), "wait_ns"));
	}
	/* the straggler's compute stands out of the table; its wait too (the least) */
	o = gp_obj_get(rank_obj(doc, 5), "outliers");
	for (b = 0, found = 0; b < gp_value_len(o); b++)
		found += !strcmp(gp_value_get_str(gp_arr_get(o, b)), "compute_ns");
	assert_int_equal(found, 1);
	assert_int_equal(tu_geti(doc, "table/compute_ns/max_rank"), 5);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

static void test_straggler_data(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *st;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 6);
	s.straggler = 2;
	s.late_ns = 1500000;
	s.late_data = true;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	st = gp_arr_get(gp_obj_get(doc, "stragglers"), 0);
	assert_int_equal(tu_geti(st, "rank"), 2);
	assert_string_equal(tu_gets(st, "cause"), "data_loading");
	assert_non_null(strstr(tu_gets(st, "cause_detail"), "data loading"));
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/*
 * A GPU waiting for the host's launches: the evidence is HTA's per-stream
 * idle summed over the streams, which can exceed the step, and says so.
 */
static void test_straggler_host(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *st;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 6);
	s.straggler = 2;
	s.late_ns = 1500000;
	s.late_host = true;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	st = gp_arr_get(gp_obj_get(doc, "stragglers"), 0);
	assert_int_equal(tu_geti(st, "rank"), 2);
	assert_string_equal(tu_gets(st, "cause"), "host_launch");
	assert_non_null(strstr(tu_gets(st, "cause_detail"), "summed over its GPU's streams"));
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/*
 * Three hosts in a chain: process group "0" joins ranks 0 and 1, "1" joins
 * 1 and 2, so host 2 shares no collective with the reference and is aligned
 * through host 1, the uncertainties adding up.
 */
static void test_clock_chain(void **state)
{
	static const int64_t delta[3] = { 0, 4000000, -9000000 };
	const char *paths[1];
	struct gp_value *doc = NULL;
	char dir[64], name[32];
	struct gp_buf b;
	int r, c, n;

	(void)state;
	strcpy(dir, "/tmp/gp-agg.XXXXXX");
	assert_int_equal(tu_tmpdir_make(dir), 0);
	for (r = 0; r < 3; r++) {
		gp__buf_init(&b, 0);
		gp__buf_addf(
		    &b,
		    "{\"schema\": \"gpuprof.analyze/1\", \"ranks\": [{\"rank\": %d, \"host\": "
		    "\"node-%d\", \"collectives\": {\"seq_source\": \"trace\", "
		    "\"process_groups\": [], \"ledger\": [",
		    r, r);
		for (c = 0, n = 0; c < 20; c++) {
			int g;

			for (g = 0; g < 2; g++) {
				int64_t t = T0 + c * GAP_NS + g * GAP_NS / 2,
				        end = t + 60000 + XFER_NS;
				uint64_t x = (uint64_t)(r * 31 + c * 7 + g + 1);
				int64_t st = t + (int64_t)(rng(&x) % 60000);

				if (r != g && r != g + 1)
					continue; /* pg g joins ranks g and g + 1 */
				gp__buf_addf(
				    &b,
				    "%s{\"pg\": \"%d\", \"seq\": %d, \"name\": \"allreduce\", "
				    "\"dtype\": \"Float\", \"bytes\": 4096, \"group_size\": 2, "
				    "\"start_ns\": %lld, \"end_ns\": %lld}",
				    n++ ? ", " : "", g, c, (long long)(st + delta[r]),
				    (long long)(end + delta[r]));
			}
		}
		gp__buf_addstr(&b, "]}}]}");
		snprintf(name, sizeof(name), "rank%d.json", r);
		tu_write_file(dir, name, b.buf);
		gp__buf_release(&b);
	}
	paths[0] = dir;
	assert_int_equal(gp_aggregate_paths(paths, 1, NULL, &doc), 0);
	for (r = 0; r < 3; r++)
		assert_true(llabs(tu_geti(rank_obj(doc, r), "clock_offset_ns") + delta[r]) <=
		            10000);
	/* through host 1: its uncertainty and host 1's added */
	assert_true(tu_getd(rank_obj(doc, 2), "clock_uncertainty_ns") >
	            tu_getd(rank_obj(doc, 1), "clock_uncertainty_ns"));
	assert_null(gp_obj_get(doc, "warnings"));
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/* ---- matching ---- */

static void test_desync_missing(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *d;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 8);
	s.drop_rank = 2;
	s.drop_seq = 17;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	d = gp_obj_get(doc, "desync");
	assert_string_equal(tu_gets(d, "kind"), "missing");
	assert_int_equal(tu_geti(d, "seq"), 17);
	assert_int_equal(tu_geti(d, "rank"), 2);
	assert_string_equal(tu_gets(d, "collective"), "allreduce");
	assert_true(gp_value_type(gp_obj_get(d, "found")) == GP_VALUE_NULL);
	/* the matched collectives are still analysed, seq 17 with the 7 ranks there */
	assert_int_equal(tu_geti(gp_arr_get(gp_obj_get(doc, "collectives"), 0), "count"), s.ncoll);
	assert_int_equal(tu_geti(doc, "unmatched"), 0);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

static void test_desync_metadata(void **state)
{
	struct gp_value *doc = NULL;
	const struct gp_value *d;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 8);
	s.meta_rank = 6;
	s.meta_seq = 9;
	s.drop_rank = 1; /* a later divergence: the first in time is reported */
	s.drop_seq = 30;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	d = gp_obj_get(doc, "desync");
	assert_string_equal(tu_gets(d, "kind"), "metadata");
	assert_int_equal(tu_geti(d, "seq"), 9);
	assert_int_equal(tu_geti(d, "rank"), 6);
	assert_int_equal(tu_geti(d, "found/bytes"), 1024);
	assert_int_equal(tu_geti(d, "expected/bytes"), BYTES);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/*
 * An all-to-all with uneven splits (MoE token routing) moves another size on
 * every rank: that is no desynchronisation, and every collective matches.
 */
static void test_a2a_uneven(void **state)
{
	struct gp_value *doc = NULL;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 4);
	s.a2a = true;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	assert_true(gp_value_type(gp_obj_get(doc, "desync")) == GP_VALUE_NULL);
	assert_int_equal(tu_geti(gp_arr_get(gp_obj_get(doc, "collectives"), 0), "count"), s.ncoll);
	assert_string_equal(tu_gets(gp_arr_get(gp_obj_get(doc, "collectives"), 0), "name"),
	                    "all_to_all");
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

static void test_unmatched(void **state)
{
	struct gp_value *doc = NULL;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 4);
	s.skip_rank = 3; /* its profiler started 5 collectives later */
	s.skip_first = 5;
	assert_int_equal(run(&s, 0, &doc, dir), 0);
	assert_true(gp_value_type(gp_obj_get(doc, "desync")) == GP_VALUE_NULL);
	assert_int_equal(tu_geti(doc, "unmatched"), 3 * 5);
	assert_int_equal(tu_geti(gp_arr_get(gp_obj_get(doc, "collectives"), 0), "count"), 35);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

/* ---- bad inputs ---- */

static void expect_error(struct spec *s, int only, int status, const char *const *words)
{
	struct gp_value *doc = NULL;
	char dir[64];
	int rc = run(s, only, &doc, dir);

	if (rc != status)
		fail_msg("status %d, expected %d (%s)", rc, status, gp_last_error());
	for (; *words; words++)
		if (!strstr(gp_last_error(), *words))
			fail_msg("'%s' not in: %s", *words, gp_last_error());
	assert_null(doc);
	tu_tmpdir_remove(dir);
}

static void test_bad_no_ledger(void **state)
{
	const char *const w[] = { "rank3.json", "collectives ledger", "gpuprof analyze --json",
		                  NULL };
	struct spec s;

	(void)state;
	spec_init(&s, 4);
	s.bad_rank = 3;
	s.no_ledger = true;
	expect_error(&s, 0, GP_EFORMAT, w);
}

static void test_bad_schema(void **state)
{
	const char *const w[] = { "rank1.json", "gpuprof.analyze/2", NULL };
	struct spec s;

	(void)state;
	spec_init(&s, 4);
	s.bad_rank = 1;
	s.schema = "gpuprof.analyze/2";
	expect_error(&s, 0, GP_EVERSION, w);
}

static void test_bad_same_rank(void **state)
{
	struct gp_value *doc = NULL;
	struct spec s;
	char dir[64], p2[96];
	const char *paths[2];
	int rc;

	(void)state;
	spec_init(&s, 2);
	rc = run(&s, 0, &doc, dir);
	assert_int_equal(rc, 0);
	gp_value_free(doc);
	doc = NULL;
	snprintf(p2, sizeof(p2), "%s/rank1.json", dir);
	paths[0] = dir;
	paths[1] = p2;
	rc = gp_aggregate_paths(paths, 2, NULL, &doc);
	assert_int_equal(rc, GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "rank 1 is in two inputs"));
	assert_non_null(strstr(gp_last_error(), "rank1.json' and '"));
	tu_tmpdir_remove(dir);
}

static void test_missing_rank_warns(void **state)
{
	struct gp_value *doc = NULL;
	const char *w;
	struct spec s;
	char dir[64];

	(void)state;
	spec_init(&s, 8);
	assert_int_equal(run(&s, 7, &doc, dir), 0); /* ranks 0-6 of 8 */
	w = gp_value_get_str(gp_arr_get(gp_obj_get(doc, "warnings"), 0));
	assert_non_null(w);
	assert_non_null(strstr(w, "world_size is 8 but 1 rank is missing: 7"));
	assert_int_equal(gp_value_len(gp_obj_get(doc, "ranks")), 7);
	gp_value_free(doc);
	tu_tmpdir_remove(dir);
}

static void test_bad_other_job(void **state)
{
	const char *const ws[] = { "rank2.json", "world_size 16", "another job", NULL };
	const char *const pg[] = { "rank1.json", "process group '0'", "another job", NULL };
	const char *const hr[] = { "rank3.json", "hours apart", "another job", NULL };
	const char *const nm[] = { "rank2.json", "matches another rank", NULL };
	struct spec s;

	(void)state;
	spec_init(&s, 4);
	s.bad_rank = 2;
	s.bad_world = 16;
	expect_error(&s, 0, GP_EINVAL, ws);
	spec_init(&s, 4);
	s.bad_rank = 1;
	s.bad_pg = true;
	expect_error(&s, 0, GP_EINVAL, pg);
	spec_init(&s, 4);
	s.bad_rank = 3;
	s.hours = 5;
	expect_error(&s, 0, GP_EINVAL, hr);
	spec_init(&s, 4);
	s.bad_rank = 2;
	s.shift_seq = true;
	expect_error(&s, 0, GP_EINVAL, nm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binom),
		cmocka_unit_test(test_busbw),
		cmocka_unit_test(test_clock_hosts),
		cmocka_unit_test(test_clock_ranks),
		cmocka_unit_test(test_straggler),
		cmocka_unit_test(test_straggler_data),
		cmocka_unit_test(test_clock_chain),
		cmocka_unit_test(test_desync_missing),
		cmocka_unit_test(test_desync_metadata),
		cmocka_unit_test(test_unmatched),
		cmocka_unit_test(test_bad_no_ledger),
		cmocka_unit_test(test_bad_schema),
		cmocka_unit_test(test_bad_same_rank),
		cmocka_unit_test(test_missing_rank_warns),
		cmocka_unit_test(test_bad_other_job),
		cmocka_unit_test(test_clock_uncertainty),
		cmocka_unit_test(test_p2p),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_cause_clock),
		cmocka_unit_test(test_straggler_host),
		cmocka_unit_test(test_a2a_uneven),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
