/* SPDX-License-Identifier: MIT */
/*
 * aggregate.c - aggregate against aggregate ("gpuprof.aggregate/1", what
 * `gpuprof aggregate --json` writes): two runs of a distributed job, each already
 * reduced to one object per rank by `gpuprof aggregate`.
 *
 * An aggregate holds one value per rank and metric, so the samples a test
 * needs come from across the ranks. The groups of the result:
 *   - "job": the ranks' step means, waits and exposed communication as
 *     samples (one per rank of each side: metric.c's rank test, or Welch's t
 *     with few ranks), so a change that most ranks share is significant and
 *     can be a regression; then one value a side (never a regression): the
 *     slowest rank's mean step, the total wait over ranks and the top
 *     straggler's blame;
 *   - "collectives": the bus bandwidth of each collective matched by
 *     (process group, name), one value a side;
 *   - "rank R": per rank present on both sides (matched by number; only
 *     --rank R when given), one value a side: step time mean, p50, p95, wait,
 *     exposed communication, compute, GPU idle % and peak memory.
 * Warnings: ranks or collectives on one side only, a collective whose calls
 * move other sizes, another world size or GPU model, a desynchronisation on
 * either side. The "straggler" explanation
 * says when the top straggler or its blame changed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare-int.h"
#include "source/source.h"
#include "text/text.h"
#include "util/buf.h"

/* an array member that must be a list of objects when present */
static int check_list(const struct gp_value *v, const char *key, const char *label)
{
	const struct gp_value *a = gp_obj_get(v, key);
	size_t i;

	if (!a || gp_value_type(a) == GP_VALUE_NULL)
		return 0;
	if (gp_value_type(a) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "%s: \"%s\" is not a list", label, key);
	for (i = 0; i < gp_value_len(a); i++)
		if (gp_value_type(gp_arr_get(a, i)) != GP_VALUE_OBJECT)
			return gp__error(GP_EFORMAT, "%s: %s[%zu] is not an object", label, key, i);
	return 0;
}

int gp__cmp_check_aggregate(const struct gp_value *v, const char *label)
{
	const struct gp_value *ranks = gp_obj_get(v, "ranks"), *hm = gp_obj_get(v, "heatmap");
	size_t i;
	int rc;

	if (gp_value_type(v) != GP_VALUE_OBJECT)
		return gp__error(GP_EFORMAT, "%s: not a JSON object", label);
	if (gp_value_type(ranks) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "%s: \"ranks\" is missing or not a list", label);
	if ((rc = check_list(v, "ranks", label)) || (rc = check_list(v, "stragglers", label)) ||
	    (rc = check_list(v, "collectives", label)))
		return rc;
	for (i = 0; i < gp_value_len(ranks); i++) {
		int64_t rank;

		if (!gp_value_get_int(gp_obj_get(gp_arr_get(ranks, i), "rank"), &rank))
			return gp__error(GP_EFORMAT, "%s: ranks[%zu].rank is not an integer", label,
			                 i);
	}
	if (hm && gp_value_type(hm) != GP_VALUE_NULL && gp_value_type(hm) != GP_VALUE_OBJECT)
		return gp__error(GP_EFORMAT, "%s: \"heatmap\" is not an object", label);
	return 0;
}

static double num(const struct gp_value *v, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(v, key), &d) ? d : NAN;
}

/* the rank object of number @p rank in @p doc, NULL when absent */
static const struct gp_value *rank_named(const struct gp_value *doc, int64_t rank)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	size_t i;

	for (i = 0; i < gp_value_len(ranks); i++)
		if (gp__cmp_rank_of(gp_arr_get(ranks, i)) == rank)
			return gp_arr_get(ranks, i);
	return NULL;
}

/* the known values of member @p key over the ranks of @p doc; *n their number */
static double *per_rank(const struct gp_value *doc, const char *key, size_t *n)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	size_t i, len = gp_value_len(ranks);
	double *x = gp__calloc(len ? len : 1, sizeof(*x)), d;

	*n = 0;
	if (!x)
		return NULL;
	for (i = 0; i < len; i++)
		if (isfinite(d = num(gp_arr_get(ranks, i), key)))
			x[(*n)++] = d;
	return x;
}

static double max_of(const double *x, size_t n)
{
	double m = NAN;
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(m) || x[i] > m)
			m = x[i];
	return m;
}

static double sum_of(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	return n ? s : NAN;
}

/* a new group {name, metrics, explanations}; *@p metrics its list */
static struct gp_value *new_group(struct gp__cmp *c, const char *name, struct gp_value **metrics)
{
	struct gp_value *g = gp__cmp_push_obj(c->groups);

	*metrics = gp_value_array();
	if (!g || !*metrics || gp_obj_set(g, "metrics", *metrics) ||
	    gp_obj_set_str(g, "name", name) || gp_obj_set(g, "explanations", gp_value_array())) {
		if (!g)
			gp_value_free(*metrics);
		return NULL;
	}
	return g;
}

/* "straggler": the top straggler or its blame changed */
static int straggler_rule(struct gp__cmp *c, const struct gp_value *base,
                          const struct gp_value *new_, struct gp_value *group)
{
	const struct gp_value *sb = gp_arr_get(gp_obj_get(base, "stragglers"), 0);
	const struct gp_value *sn = gp_arr_get(gp_obj_get(new_, "stragglers"), 0);
	const char *cause = sn ? gp_value_get_str(gp_obj_get(sn, "cause")) : NULL;
	double bb = sb ? num(sb, "blame_ns") : 0, nb = sn ? num(sn, "blame_ns") : 0;
	int64_t rb = sb ? gp__cmp_rank_of(sb) : -1, rn = sn ? gp__cmp_rank_of(sn) : -1;
	double thr = gp__cmp_threshold(c, "straggler_blame");
	struct gp_value *o, *ev, *arr = (struct gp_value *)gp_obj_get(group, "explanations");
	struct gp_buf t = GP_BUF_INIT;
	char a[32], b[32];
	int rc = 0;

	if (!isfinite(bb) || !isfinite(nb) || (rb == rn && fabs(nb - bb) < thr * fabs(bb)) ||
	    (bb == nb && bb == 0))
		return 0;
	gp__fmt_dur(a, sizeof(a), bb, 0);
	gp__fmt_dur(b, sizeof(b), nb, 0);
	if (rn < 0)
		GP_TRY(gp__buf_addf(&t,
		                    "No rank arrives last in new; in base rank %lld did, "
		                    "costing the others %s.",
		                    (long long)rb, a));
	else if (rb < 0)
		GP_TRY(gp__buf_addf(&t, "Rank %lld is a new straggler: the others wait %s for it.",
		                    (long long)rn, b));
	else if (rb != rn)
		GP_TRY(gp__buf_addf(&t,
		                    "The top straggler changed from rank %lld (blame %s) to rank "
		                    "%lld (blame %s).",
		                    (long long)rb, a, (long long)rn, b));
	else
		GP_TRY(gp__buf_addf(&t,
		                    "Rank %lld stays the top straggler; its blame %s from %s "
		                    "to %s.",
		                    (long long)rn, nb > bb ? "rose" : "fell", a, b));
	if (cause)
		GP_TRY(gp__buf_addf(&t, " Cause in new: %s.", cause));
	if (!(o = gp__cmp_push_obj(arr)) || gp_obj_set_str(o, "id", "straggler") ||
	    gp_obj_set_str(o, "text", t.buf) || !(ev = gp_value_object()) ||
	    gp_obj_set(o, "evidence", ev) ||
	    (rb >= 0 ? gp_obj_set_int(ev, "base_rank", rb) : gp_obj_set_null(ev, "base_rank")) ||
	    (rn >= 0 ? gp_obj_set_int(ev, "new_rank", rn) : gp_obj_set_null(ev, "new_rank")) ||
	    gp_obj_set_double(ev, "base_blame_ns", bb) ||
	    gp_obj_set_double(ev, "new_blame_ns", nb) || gp_obj_set_str(ev, "new_cause", cause))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
out:
	gp__buf_release(&t);
	return rc;
}

static int job_group(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_)
{
	static const struct gp__metric sampled[] = {
		{ "step_time", "step time (rank means)", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		{ "wait", "wait (per rank)", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		{ "exposed_comm", "exposed comm (per rank)", "ns", GP__MK_TIME,
		  GP_LOWER_IS_BETTER },
	};
	static const char *const keys[] = { "step_mean_ns", "wait_ns", "exposed_comm_ns" };
	static const struct gp__metric m_max = { "max_step_mean", "slowest rank's mean step", "ns",
		                                 GP__MK_TIME, GP_LOWER_IS_BETTER };
	static const struct gp__metric m_wait = { "total_wait", "total wait", "ns", GP__MK_TIME,
		                                  GP_LOWER_IS_BETTER };
	static const struct gp__metric m_blame = { "straggler_blame", "top straggler's blame", "ns",
		                                   GP__MK_TIME, GP_LOWER_IS_BETTER };
	const struct gp_value *sb = gp_arr_get(gp_obj_get(base, "stragglers"), 0);
	const struct gp_value *sn = gp_arr_get(gp_obj_get(new_, "stragglers"), 0);
	struct gp_value *g, *metrics;
	double *b = NULL, *n = NULL;
	size_t i, nb = 0, nn = 0;
	int rc = 0;

	if (!(g = new_group(c, "job", &metrics)))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < GP_ARRAY_SIZE(sampled); i++) {
		if (!(b = per_rank(base, keys[i], &nb)) || !(n = per_rank(new_, keys[i], &nn)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp__cmp_sampled(c, "job", &sampled[i], b, nb, n, nn, metrics, NULL));
		if (i == 0)
			GP_TRY(gp__cmp_single(c, &m_max, max_of(b, nb), max_of(n, nn), metrics));
		if (i == 1)
			GP_TRY(gp__cmp_single(c, &m_wait, sum_of(b, nb), sum_of(n, nn), metrics));
		gp__free(b);
		gp__free(n);
		b = n = NULL;
	}
	/* no straggler on a side: nobody arrived last, a blame of 0 */
	GP_TRY(gp__cmp_single(c, &m_blame, sb ? num(sb, "blame_ns") : 0,
	                      sn ? num(sn, "blame_ns") : 0, metrics));
	GP_TRY(straggler_rule(c, base, new_, g));
out:
	gp__free(b);
	gp__free(n);
	return rc;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* the collective of @p list with the process group and name of @p x */
static const struct gp_value *collective_like(const struct gp_value *list, const struct gp_value *x)
{
	const char *pg = gp_value_get_str(gp_obj_get(x, "pg"));
	const char *name = gp_value_get_str(gp_obj_get(x, "name"));
	size_t i;

	for (i = 0; i < gp_value_len(list); i++) {
		const struct gp_value *y = gp_arr_get(list, i);

		if (same_str(pg, gp_value_get_str(gp_obj_get(y, "pg"))) &&
		    same_str(name, gp_value_get_str(gp_obj_get(y, "name"))))
			return y;
	}
	return NULL;
}

static int unmatched_collective(struct gp__cmp *c, const struct gp_value *x, const char *side)
{
	const char *pg = gp_value_get_str(gp_obj_get(x, "pg"));
	const char *name = gp_value_get_str(gp_obj_get(x, "name"));

	return gp__cmp_warn(c, "unmatched_collective",
	                    "collective %s of process group %s is only in %s", name ? name : "?",
	                    pg ? pg : "(none)", side);
}

/* the bytes a call of collective @p x moves (its bytes over its count), NaN when unknown */
static double bytes_per_call(const struct gp_value *x)
{
	double b = num(x, "bytes"), n = num(x, "count");

	return n > 0 ? b / n : NAN;
}

/*
 * A collective whose calls move other sizes (another model, bucket size or
 * batch): its bandwidth and time differ for that reason, not only for the
 * change. A size that differs by 1% or less is the same.
 */
static int bytes_warning(struct gp__cmp *c, const struct gp_value *x, const struct gp_value *y,
                         const char *pg, const char *name)
{
	double b = bytes_per_call(x), n = bytes_per_call(y);
	char a[32], z[32];

	if (!isfinite(b) || !isfinite(n) || fabs(n - b) <= 0.01 * fmax(fabs(b), fabs(n)))
		return 0;
	gp__fmt_bytes(a, sizeof(a), b, 0);
	gp__fmt_bytes_like(z, sizeof(z), n, b, 0);
	return gp__cmp_warn(c, "collective_bytes_differ",
	                    "collective %s of process group %s moves other sizes (base %s, new "
	                    "%s a call): its bandwidth and wait differ for that reason too",
	                    name ? name : "?", pg ? pg : "(none)", a, z);
}

static int collectives_group(struct gp__cmp *c, const struct gp_value *base,
                             const struct gp_value *new_)
{
	const struct gp_value *bl = gp_obj_get(base, "collectives"),
	                      *nl = gp_obj_get(new_, "collectives");
	struct gp_value *g = NULL, *metrics = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < gp_value_len(bl); i++) {
		const struct gp_value *x = gp_arr_get(bl, i), *y = collective_like(nl, x);
		const char *pg = gp_value_get_str(gp_obj_get(x, "pg"));
		const char *name = gp_value_get_str(gp_obj_get(x, "name"));
		struct gp__metric m = { "busbw", NULL, "GB/s", GP__MK_RATE, GP_HIGHER_IS_BETTER };
		struct gp_value *o;
		size_t before;
		char title[160];

		if (collective_like(bl, x) != x)
			continue; /* a (pg, name) listed twice: the first one */
		if (!y) {
			GP_TRY(unmatched_collective(c, x, "base"));
			continue;
		}
		GP_TRY(bytes_warning(c, x, y, pg, name));
		if (!g && !(g = new_group(c, "collectives", &metrics)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		snprintf(title, sizeof(title), "busbw %s (pg %s)", name ? name : "?",
		         pg ? pg : "-");
		m.title = title;
		before = gp_value_len(metrics);
		GP_TRY(gp__cmp_single(c, &m, num(x, "busbw_gbps"), num(y, "busbw_gbps"), metrics));
		/* which collective: the title says it to people, these to programs */
		if (gp_value_len(metrics) > before &&
		    ((o = (struct gp_value *)gp_arr_get(metrics, before)),
		     gp_obj_set_str(o, "pg", pg) || gp_obj_set_str(o, "collective", name)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	for (i = 0; i < gp_value_len(nl); i++)
		if (!collective_like(bl, gp_arr_get(nl, i)) &&
		    collective_like(nl, gp_arr_get(nl, i)) == gp_arr_get(nl, i))
			GP_TRY(unmatched_collective(c, gp_arr_get(nl, i), "new"));
out:
	return rc;
}

static int rank_group(struct gp__cmp *c, const struct gp_value *br, const struct gp_value *nr)
{
	static const struct {
		struct gp__metric m;
		const char *key;
	} singles[] = {
		{ { "step_mean", "step time mean", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "step_mean_ns" },
		{ { "step_p50", "step time p50", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "step_p50_ns" },
		{ { "step_p95", "step time p95", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "step_p95_ns" },
		{ { "wait", "wait", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER }, "wait_ns" },
		{ { "exposed_comm", "exposed comm", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "exposed_comm_ns" },
		{ { "compute", "compute", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER }, "compute_ns" },
		{ { "gpu_idle_pct", "GPU idle", "%", GP__MK_PCT, GP_LOWER_IS_BETTER },
		  "gpu_idle_pct" },
		{ { "peak_memory", "peak memory", "bytes", GP__MK_MEMORY, GP_LOWER_IS_BETTER },
		  "peak_memory_bytes" },
	};
	struct gp_value *g, *metrics;
	char name[48];
	size_t i;
	int rc;

	snprintf(name, sizeof(name), "rank %lld", (long long)gp__cmp_rank_of(br));
	if (!(g = new_group(c, name, &metrics)) ||
	    gp_obj_set_int(g, "base_rank", gp__cmp_rank_of(br)) ||
	    gp_obj_set_int(g, "new_rank", gp__cmp_rank_of(nr)))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < GP_ARRAY_SIZE(singles); i++)
		if ((rc = gp__cmp_single(c, &singles[i].m, num(br, singles[i].key),
		                         num(nr, singles[i].key), metrics)))
			return rc;
	return 0;
}

/* the distinct GPU models of the ranks, sorted, "; "-joined (at most 8) */
static int gpu_models(const struct gp_value *doc, struct gp_buf *out)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	const char *names[8];
	size_t i, j, n = 0;

	for (i = 0; i < gp_value_len(ranks); i++) {
		const char *m = gp_value_get_str(gp_obj_get(gp_arr_get(ranks, i), "gpu_model"));

		for (j = 0; m && j < n && strcmp(names[j], m) != 0; j++)
			;
		if (m && j == n && n < GP_ARRAY_SIZE(names))
			names[n++] = m;
	}
	return gp__cmp_join_names(names, n, out);
}

/* the runs not alike, and a desynchronisation on a side */
static int warnings(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_)
{
	struct gp_buf gb = GP_BUF_INIT, gn = GP_BUF_INIT;
	const struct gp_value *sides[2] = { base, new_ };
	static const char *const side_names[2] = { "base", "new" };
	int64_t wb, wn;
	size_t i;
	int rc = 0;

	if (gp_value_get_int(gp_obj_get(base, "world_size"), &wb) &&
	    gp_value_get_int(gp_obj_get(new_, "world_size"), &wn) && wb != wn)
		GP_TRY(gp__cmp_warn(c, "world_size_differs",
		                    "the world size differs (base %lld ranks, new %lld): "
		                    "communication and the work per rank differ for that reason "
		                    "too",
		                    (long long)wb, (long long)wn));
	GP_TRY(gpu_models(base, &gb));
	GP_TRY(gpu_models(new_, &gn));
	if (gb.len && gn.len && strcmp(gb.buf, gn.buf) != 0)
		GP_TRY(gp__cmp_warn(c, "gpu_differs",
		                    "the runs are on different GPUs (base %s, new %s): times "
		                    "differ for that reason too, not only for the change",
		                    gb.buf, gn.buf));
	for (i = 0; i < 2; i++) {
		const struct gp_value *d = gp_obj_get(sides[i], "desync");
		const char *detail = gp_value_get_str(gp_obj_get(d, "detail"));
		char seq[32] = "-", rank[32] = "-";

		if (gp_value_type(d) != GP_VALUE_OBJECT)
			continue;
		/* an unknown seq or rank (null in the document) is "-", never "nan" */
		if (isfinite(num(d, "seq")))
			snprintf(seq, sizeof(seq), "%.0f", num(d, "seq"));
		if (isfinite(num(d, "rank")))
			snprintf(rank, sizeof(rank), "%.0f", num(d, "rank"));
		GP_TRY(gp__cmp_warn(c, "desync",
		                    "%s has a desynchronisation (process group %s, seq %s, "
		                    "rank %s): %s; its ranks did not run the same collectives",
		                    side_names[i],
		                    gp_value_get_str(gp_obj_get(d, "pg"))
		                        ? gp_value_get_str(gp_obj_get(d, "pg"))
		                        : "-",
		                    seq, rank,
		                    detail ? detail
		                    : gp_value_get_str(gp_obj_get(d, "kind"))
		                        ? gp_value_get_str(gp_obj_get(d, "kind"))
		                        : "-"));
	}
out:
	gp__buf_release(&gb);
	gp__buf_release(&gn);
	return rc;
}

int gp__cmp_aggregates(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_)
{
	const struct gp_value *bl = gp_obj_get(base, "ranks"), *nl = gp_obj_get(new_, "ranks");
	size_t i, pairs = 0;
	int rc = 0;

	if (c->rank >= 0 && (!rank_named(base, c->rank) || !rank_named(new_, c->rank))) {
		struct gp_buf b = GP_BUF_INIT;

		rc = gp__doc_ranks_list(!rank_named(base, c->rank) ? base : new_, &b);
		if (!rc)
			rc = gp__error(GP_EINVAL, "%s has no rank %lld (ranks: %s)",
			               !rank_named(base, c->rank) ? c->base_label : c->new_label,
			               (long long)c->rank, b.buf);
		gp__buf_release(&b);
		return rc;
	}
	GP_TRY(warnings(c, base, new_));
	GP_TRY(job_group(c, base, new_));
	GP_TRY(collectives_group(c, base, new_));
	for (i = 0; i < gp_value_len(bl); i++) {
		const struct gp_value *br = gp_arr_get(bl, i);
		const struct gp_value *nr = rank_named(new_, gp__cmp_rank_of(br));

		if (rank_named(base, gp__cmp_rank_of(br)) != br)
			continue; /* a rank listed twice: the first one */
		if (!nr) {
			GP_TRY(gp__cmp_unmatched_rank(c, "base", gp__cmp_rank_of(br)));
			continue;
		}
		pairs++;
		if (c->rank < 0 || gp__cmp_rank_of(br) == c->rank)
			GP_TRY(rank_group(c, br, nr));
	}
	for (i = 0; i < gp_value_len(nl); i++) {
		const struct gp_value *nr = gp_arr_get(nl, i);

		if (!rank_named(base, gp__cmp_rank_of(nr)) &&
		    rank_named(new_, gp__cmp_rank_of(nr)) == nr)
			GP_TRY(gp__cmp_unmatched_rank(c, "new", gp__cmp_rank_of(nr)));
	}
	if (!pairs)
		GP_TRY(gp__error(GP_EINVAL, "%s and %s have no rank in common", c->base_label,
		                 c->new_label));
out:
	return rc;
}
