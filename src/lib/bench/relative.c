/* SPDX-License-Identifier: MIT */
/*
 * relative.c - the series of one bench against each other: each against the
 * fastest (as hyperfine's summary), and the sweeps of a parameter scan with
 * their knee (docs/cli/gpuprof-bench.md, docs/bench-schema.md).
 *
 * Against the fastest: the fastest series has the lowest median time; each
 * other one gets ratio = its median / the fastest's median with the
 * Mann-Whitney p of gp_stats_compare() and its bootstrap interval, or, with
 * runs too few for the rank test to reach alpha with one value out of order
 * (4 and 4), Welch's t on the log times and its t-interval (the tests
 * `gpuprof compare` uses), and hyperfine's ratio of the means with its
 * propagated standard deviation. The interval is at 1 - alpha (99 %), the
 * level that decides "significant", so that an interval that excludes 1 and
 * "not significant" do not meet on one line (with Welch's t they never do;
 * the rank test and the bootstrap can still differ, which the text says).
 * With one run a side there is no test: no p, no interval. Only for commands and functions:
 * the series of a trace (steps beside frames, ranks) are not rivals.
 *
 * Sweeps: with one parameter (--parameter-scan or --parameter-list), the
 * series of each command template in the order of the values, with their
 * latency (median, p99) and throughput. When the batch size changes along
 * the sweep (a batch-size sweep), its knee: the smallest value whose
 * throughput reaches KNEE_SHARE of the sweep's best; none when that is the
 * largest value (the throughput is still rising there).
 * Called by bench.c (gp_bench_result) once the series objects are built.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench-int.h"
#include "gpuprof/stats.h"
#include "stats/welch.h"
#include "util/error.h"

#define KNEE_SHARE  0.9  /* of the best throughput: the knee */
#define KNEE_POINTS 3    /* a knee needs this many values */
#define ALPHA       0.01 /* significance, as compare's default */

static double num_at(const struct gp_value *v, const char *path)
{
	double d;

	return gp_value_get_double(gp_value_path(v, path), &d) ? d : NAN;
}

static int set_num(struct gp_value *o, const char *key, double v)
{
	return isfinite(v) ? gp_obj_set_double(o, key, v) : gp_obj_set_null(o, key);
}

/* the mean and the standard deviation (n - 1; NaN for one value) of @p x */
static void mean_std(const double *x, size_t n, double *mean, double *std)
{
	double m = 0, ss = 0;

	for (size_t k = 0; k < n; k++)
		m += x[k];
	m /= (double)n;
	for (size_t k = 0; k < n; k++)
		ss += (x[k] - m) * (x[k] - m);
	*mean = m;
	*std = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

/* the "relative" object of series @p i against the fastest, @p f */
static int one_relative(const struct gp_bench *b, size_t f, size_t i, struct gp_value *so)
{
	const struct gp_bench_series *fs = &b->s[f], *s = &b->s[i];
	struct gp_change_opts co = { .size = sizeof(co) };
	struct gp_value *o = gp_value_object();
	struct gp_change ch;
	const char *test;
	double mf, sf, mi, si, mr;
	int rc = 0;

	if (!o || gp_obj_set(so, "relative", o))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_bool(o, "fastest", i == f));
	if (i == f) {
		GP_TRY(gp_obj_set_double(o, "ratio", 1));
		GP_TRY(gp_obj_set_double(o, "mean_ratio", 1));
		GP_TRY(gp_obj_set_null(o, "ratio_lo"));
		GP_TRY(gp_obj_set_null(o, "ratio_hi"));
		GP_TRY(gp_obj_set_null(o, "p"));
		GP_TRY(gp_obj_set_null(o, "significant"));
		GP_TRY(gp_obj_set_null(o, "test"));
		GP_TRY(gp_obj_set_double(o, "confidence", 1 - ALPHA));
		GP_TRY(gp_obj_set_null(o, "mean_ratio_std"));
		return 0;
	}
	co.seed = b->seed;
	co.alpha = ALPHA;
	co.confidence = 1 - ALPHA;
	GP_TRY(gp_stats_compare(fs->times, fs->n, s->times, s->n, GP_LOWER_IS_BETTER, &co, &ch));
	test = isfinite(ch.p) ? "mann_whitney" : NULL;
	if (fs->n >= 2 && s->n >= 2 && gp_mann_whitney_min_p(fs->n, s->n) >= ALPHA / 2) {
		/* few runs: Welch's t on the log times, its p and interval dual at 1 - alpha */
		struct gp__welch w;

		if (gp__welch_log(fs->times, fs->n, s->times, s->n, 1 - ALPHA, &w) == 0) {
			ch.p = w.p;
			ch.ratio_lo = w.ratio_lo;
			ch.ratio_hi = w.ratio_hi;
			test = "welch_t_log";
		} else
			gp_clear_error();
	}
	if (!test) /* not tested: no p, no interval */
		ch.p = ch.ratio_lo = ch.ratio_hi = NAN;
	GP_TRY(gp_obj_set_str(o, "test", test));
	GP_TRY(gp_obj_set_double(o, "confidence", 1 - ALPHA));
	GP_TRY(set_num(o, "ratio", ch.ratio));
	GP_TRY(set_num(o, "ratio_lo", ch.ratio_lo));
	GP_TRY(set_num(o, "ratio_hi", ch.ratio_hi));
	GP_TRY(set_num(o, "p", ch.p));
	if (isfinite(ch.p))
		GP_TRY(gp_obj_set_bool(o, "significant", ch.p < ALPHA));
	else
		GP_TRY(gp_obj_set_null(o, "significant"));
	/* hyperfine's number: the ratio of the means, its σ propagated from both sides */
	mean_std(fs->times, fs->n, &mf, &sf);
	mean_std(s->times, s->n, &mi, &si);
	mr = mi / mf;
	GP_TRY(set_num(o, "mean_ratio", mr));
	GP_TRY(
	    set_num(o, "mean_ratio_std", mr * sqrt((si / mi) * (si / mi) + (sf / mf) * (sf / mf))));
out:
	return rc;
}

int gp__bench_relative(const struct gp_bench *b, struct gp_value *r)
{
	struct gp_value *series = (struct gp_value *)gp_obj_get(r, "series"), *fo;
	size_t f = 0;
	int rc = 0;

	if (b->n < 2 || (strcmp(b->kind, "command") != 0 && strcmp(b->kind, "python") != 0))
		return 0;
	for (size_t i = 1; i < b->n; i++)
		if (num_at(gp_arr_get(series, i), "stats/median_ns") <
		    num_at(gp_arr_get(series, f), "stats/median_ns"))
			f = i;
	for (size_t i = 0; i < b->n; i++)
		GP_TRY(one_relative(b, f, i, (struct gp_value *)gp_arr_get(series, i)));
	if (!(fo = gp_value_object()) || gp_obj_set(r, "fastest", fo))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_str(fo, "name", b->s[f].name));
	GP_TRY(gp_obj_set_int(fo, "index", (int64_t)f));
out:
	return rc;
}

/* a value of the sweep: the series, its parameter value as a number when it is one */
struct point {
	size_t i;
	double v;
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static bool same_tmpl(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const char *param_of(const struct gp_bench_series *s, const char *name)
{
	return gp_value_get_str(gp_obj_get(s->params, name));
}

/* the value of parameter @p name of series @p i of the result's @p series */
static const char *param_of_value(const struct gp_value *series, size_t i, const char *name)
{
	return gp_value_get_str(gp_obj_get(gp_obj_get(gp_arr_get(series, i), "parameters"), name));
}

/* the knee of a batch-size sweep of @p n points (sorted by value) into @p sw */
static int knee(const struct gp_value *series, const struct point *p, size_t n, const char *name,
                struct gp_value *sw)
{
	struct gp_value *k;
	double best = -1, tp;
	size_t ib = 0, ik;
	int rc = 0;

	for (size_t j = 0; j < n; j++) {
		tp = num_at(gp_arr_get(series, p[j].i), "throughput/items_per_s");
		if (tp > best) {
			best = tp;
			ib = j;
		}
	}
	for (ik = 0; ik < n; ik++)
		if (num_at(gp_arr_get(series, p[ik].i), "throughput/items_per_s") >=
		    KNEE_SHARE * best)
			break;
	if (ik + 1 >= n) {
		GP_TRY(gp_obj_set_null(sw, "knee"));
		return gp_obj_set_str(sw, "knee_note",
		                      "the throughput is still rising at the largest value: "
		                      "no knee within the sweep");
	}
	if (!(k = gp_value_object()) || gp_obj_set(sw, "knee", k))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_str(k, "value", param_of_value(series, p[ik].i, name)));
	GP_TRY(set_num(k, "items_per_s",
	               num_at(gp_arr_get(series, p[ik].i), "throughput/items_per_s")));
	GP_TRY(set_num(k, "median_ns", num_at(gp_arr_get(series, p[ik].i), "stats/median_ns")));
	GP_TRY(set_num(k, "share_of_best",
	               num_at(gp_arr_get(series, p[ik].i), "throughput/items_per_s") / best));
	GP_TRY(gp_obj_set_str(k, "best_value", param_of_value(series, p[ib].i, name)));
	GP_TRY(set_num(k, "best_items_per_s", best));
	GP_TRY(
	    set_num(k, "best_median_ns", num_at(gp_arr_get(series, p[ib].i), "stats/median_ns")));
	GP_TRY(gp_obj_set_double(k, "rule_share", KNEE_SHARE));
	GP_TRY(gp_obj_set_null(sw, "knee_note"));
out:
	return rc;
}

/* one point of a sweep: series @p i of the result's @p series */
static int add_point(const struct gp_value *series, size_t i, const char *name,
                     struct gp_value *points)
{
	const struct gp_value *so = gp_arr_get(series, i);
	struct gp_value *o = gp_value_object();
	int rc = 0;

	if (gp_arr_push(points, o))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_str(o, "value", param_of_value(series, i, name)));
	GP_TRY(gp_obj_set_int(o, "series", (int64_t)i));
	GP_TRY(gp_obj_set_str(o, "name", gp_value_get_str(gp_obj_get(so, "name"))));
	GP_TRY(set_num(o, "batch_size", num_at(so, "batch_size")));
	GP_TRY(set_num(o, "median_ns", num_at(so, "stats/median_ns")));
	GP_TRY(set_num(o, "p99_ns", num_at(so, "stats/p99_ns")));
	GP_TRY(set_num(o, "items_per_s", num_at(so, "throughput/items_per_s")));
	GP_TRY(set_num(o, "iterations_per_s", num_at(so, "throughput/iterations_per_s")));
out:
	return rc;
}

int gp__bench_sweeps(const struct gp_bench *b, struct gp_value *r)
{
	const struct gp_value *series = gp_obj_get(r, "series");
	const char *name = gp_value_get_str(gp_arr_get(b->param_names, 0));
	struct gp_value *sweeps = NULL;
	struct point *p = NULL;
	bool *done = NULL;
	int rc = 0;

	if (gp_value_len(b->param_names) != 1 || b->n < 2)
		return 0;
	p = gp__calloc(b->n, sizeof(*p));
	done = gp__calloc(b->n, sizeof(*done));
	if (!p || !done || !(sweeps = gp_value_array()) || gp_obj_set(r, "sweeps", sweeps))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (size_t i = 0; i < b->n; i++) {
		struct gp_value *sw, *points;
		bool numeric = true, batch = false;
		size_t n = 0;

		if (done[i] || !param_of(&b->s[i], name))
			continue;
		for (size_t j = i; j < b->n; j++) {
			char *end;

			if (done[j] || !param_of(&b->s[j], name) ||
			    !same_tmpl(b->s[i].tmpl, b->s[j].tmpl))
				continue;
			done[j] = true;
			p[n].i = j;
			p[n].v = strtod(param_of(&b->s[j], name), &end);
			if (*end || end == param_of(&b->s[j], name) || !isfinite(p[n].v))
				numeric = false;
			batch |= b->s[j].batch != b->s[i].batch;
			n++;
		}
		if (n < 2)
			continue;
		if (numeric)
			qsort(p, n, sizeof(*p), cmp_point);
		if (!(sw = gp_value_object()) || gp_arr_push(sweeps, sw))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_obj_set_str(sw, "parameter", name));
		GP_TRY(gp_obj_set_str(sw, "template", b->s[i].tmpl));
		GP_TRY(gp_obj_set_bool(sw, "batch_sweep", batch));
		GP_TRY(gp_obj_set_bool(sw, "numeric", numeric));
		if (!(points = gp_value_array()) || gp_obj_set(sw, "points", points))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		for (size_t j = 0; j < n; j++)
			GP_TRY(add_point(series, p[j].i, name, points));
		if (batch && numeric && n >= KNEE_POINTS) {
			GP_TRY(knee(series, p, n, name, sw));
		} else {
			GP_TRY(gp_obj_set_null(sw, "knee"));
			GP_TRY(gp_obj_set_str(
			    sw, "knee_note",
			    !batch     ? "not a batch-size sweep: the knee is of throughput "
			                 "against batch size"
			    : !numeric ? "the values are not numbers: no knee"
			               : "fewer than 3 values: no knee"));
		}
	}
out:
	gp__free(p);
	gp__free(done);
	return rc;
}
