/* SPDX-License-Identifier: MIT */
/*
 * target.c - performance targets of a bench (`gpuprof bench --target`,
 * gp_bench_target()): "p50<16.67ms", "p99 <= 25 ms", "fps>=60".
 *
 * A target is METRIC OP VALUE [UNIT]: a time statistic of the iterations
 * (mean, median, min, max, std, mad, p25 ... p99; gpu_ for the GPU time)
 * with a time unit, or a rate (fps, rate, throughput: items per second;
 * iterations/s) with none. Each series gets, per target, its value, the
 * target and a status: met, missed, or unknown (the series has no such
 * number, e.g. no GPU time); unknown counts as missed, so a gate that
 * cannot check fails. Parse errors name the target and what is wrong.
 * Called by bench.c (gp_bench_result) and the CLI; reads only the series
 * object's statistics, so the numbers are the ones printed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/bench-int.h"
#include "gpuprof/bench.h"
#include "util/error.h"

/* the time statistics: the name typed, the member of "stats" and "gpu_stats" */
static const struct {
	const char *name, *key;
} time_stats[] = { { "mean", "mean_ns" }, { "median", "median_ns" }, { "min", "min_ns" },
	           { "max", "max_ns" },   { "std", "std_ns" },       { "mad", "mad_ns" },
	           { "p25", "p25_ns" },   { "p50", "p50_ns" },       { "p75", "p75_ns" },
	           { "p90", "p90_ns" },   { "p95", "p95_ns" },       { "p99", "p99_ns" } };

static const struct {
	const char *name;
	double ns;
} time_units[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

/* rates: the name typed, the member of "throughput" */
static const struct {
	const char *name, *key;
} rates[] = { { "fps", "items_per_s" },
	      { "rate", "items_per_s" },
	      { "throughput", "items_per_s" },
	      { "items/s", "items_per_s" },
	      { "iterations/s", "iterations_per_s" },
	      { "iters/s", "iterations_per_s" },
	      { "runs/s", "iterations_per_s" } };

#define METRICS_HELP                                                                               \
	"times: mean, median, min, max, std, mad, p25, p50, p75, p90, p95, p99 (gpu_p50 ... "      \
	"for GPU time), with a unit ns, us, ms or s; rates: fps, rate, throughput (items/s), "     \
	"iterations/s"

static int bad(const char *spec, const char *fmt, ...) GP_PRINTF(2, 3);

/* GP_EINVAL with "target 'SPEC': " and the message */
static int bad(const char *spec, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gp__error(GP_EINVAL, "target '%s': %s", spec, msg);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* the metric @p m (lower case): its statistics object and member, or -1 */
static int find_metric(const char *m, struct gp__bench_target *t)
{
	const char *base = m;
	bool gpu = false;
	size_t i;

	for (i = 0; i < GP_ARRAY_SIZE(rates); i++)
		if (strcmp(m, rates[i].name) == 0) {
			t->stats = NULL;
			t->key = rates[i].key;
			return 0;
		}
	if (strncmp(m, "gpu_", 4) == 0) {
		base = m + 4;
		gpu = true;
	}
	for (i = 0; i < GP_ARRAY_SIZE(time_stats); i++)
		if (strcmp(base, time_stats[i].name) == 0) {
			t->stats = gpu ? "gpu_stats" : "stats";
			t->key = time_stats[i].key;
			return 0;
		}
	return -1;
}

/* parses @p spec into @p t (its spec not set) */
static int parse(const char *spec, struct gp__bench_target *t)
{
	const char *p = skip_space(spec), *q;
	char num[64], unit[16];
	size_t n;
	double v;
	char *end;

	q = p;
	while (*q && (isalnum((unsigned char)*q) || *q == '_' || *q == '/'))
		q++;
	n = (size_t)(q - p);
	if (!*p)
		return bad(spec, "empty: write METRIC OP VALUE, e.g. 'p50<16.67ms' or 'fps>=60'");
	if (!n)
		return bad(spec, "no metric before '%.1s' (" METRICS_HELP ")", p);
	if (n >= sizeof(t->metric))
		return bad(spec, "unknown metric (%s)", METRICS_HELP);
	for (size_t i = 0; i < n; i++)
		t->metric[i] = (char)tolower((unsigned char)p[i]);
	t->metric[n] = 0;
	if (find_metric(t->metric, t))
		return gp__error(GP_EINVAL, "target '%s': unknown metric '%s' (%s)", spec,
		                 t->metric, METRICS_HELP);
	p = skip_space(q);
	if ((p[0] == '<' || p[0] == '>') && p[1] == '=') {
		memcpy(t->op, p, 2);
		t->op[2] = 0;
		p += 2;
	} else if (p[0] == '<' || p[0] == '>') {
		t->op[0] = p[0];
		t->op[1] = 0;
		p++;
	} else if (!*p) {
		return bad(spec,
		           "no comparison and no value after the metric: write e.g. "
		           "'%s<16.67ms'",
		           t->metric);
	} else {
		return bad(spec, "'%.1s' is not a comparison: use <, <=, > or >=", p);
	}
	p = skip_space(p);
	q = p;
	while (*q && (isdigit((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+' ||
	              ((*q == 'e' || *q == 'E') && q > p && isdigit((unsigned char)q[-1]))))
		q++;
	n = (size_t)(q - p);
	if (!n)
		return bad(spec, "no number after the comparison '%s'", t->op);
	if (n >= sizeof(num))
		return bad(spec, "the number is too long");
	memcpy(num, p, n);
	num[n] = 0;
	errno = 0;
	v = strtod(num, &end);
	if (errno || *end || end == num || !isfinite(v))
		return bad(spec, "'%s' is not a number", num);
	if (v < 0)
		return bad(spec, "'%s' is negative: a target is 0 or more", num);
	p = skip_space(q);
	n = strcspn(p, " \t");
	if (n >= sizeof(unit))
		return bad(spec, "unknown unit '%s'", p);
	memcpy(unit, p, n);
	unit[n] = 0;
	if (*skip_space(p + n))
		return bad(spec, "'%s' after the value: one target per --target",
		           skip_space(p + n));
	if (t->stats) {
		size_t i;

		if (!unit[0])
			return bad(spec, "a time needs a unit: ns, us, ms or s (e.g. '%s<16.67ms')",
			           t->metric);
		for (i = 0; i < GP_ARRAY_SIZE(time_units); i++)
			if (strcmp(unit, time_units[i].name) == 0)
				break;
		if (i == GP_ARRAY_SIZE(time_units))
			return bad(spec, "unknown time unit '%s' (ns, us, ms, s)", unit);
		t->threshold = v * time_units[i].ns;
	} else {
		if (unit[0] && strcmp(unit, "/s") != 0 && strcasecmp(unit, "fps") != 0 &&
		    strcasecmp(unit, "hz") != 0)
			return bad(spec, "'%s' after a rate: a rate is per second, with no unit",
			           unit);
		t->threshold = v;
	}
	return 0;
}

GP_API int gp_bench_target(struct gp_bench *b, const char *spec)
{
	struct gp__bench_target t, *nt;

	if (!b || !spec)
		return gp__error(GP_EINVAL, "no target");
	memset(&t, 0, sizeof(t));
	if (parse(spec, &t))
		return GP_EINVAL;
	if (b->nt >= GP_BENCH_MAX_TARGETS)
		return gp__error(GP_ELIMIT, "target '%s': at most %d targets", spec,
		                 GP_BENCH_MAX_TARGETS);
	if (!(t.spec = gp__strdup(spec)))
		return gp__error(GP_ENOMEM, "out of memory");
	nt = gp__reallocarray(b->t, b->nt + 1, sizeof(*b->t));
	if (!nt) {
		gp__free(t.spec);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	b->t = nt;
	b->t[b->nt++] = t;
	return 0;
}

void gp__bench_free_targets(struct gp_bench *b)
{
	for (size_t i = 0; i < b->nt; i++)
		gp__free(b->t[i].spec);
	gp__free(b->t);
	b->t = NULL;
	b->nt = 0;
}

static bool holds(double v, const char *op, double thr)
{
	if (op[0] == '<')
		return op[1] ? v <= thr : v < thr;
	return op[1] ? v >= thr : v > thr;
}

int gp__bench_eval_targets(const struct gp_bench *b, struct gp_value *so, bool *all_met)
{
	struct gp_value *arr;
	int rc = 0;

	if (!b->nt)
		return 0;
	if (!(arr = gp_value_array()) || gp_obj_set(so, "targets", arr))
		return gp__error(GP_ENOMEM, "out of memory");
	for (size_t i = 0; i < b->nt; i++) {
		const struct gp__bench_target *t = &b->t[i];
		const struct gp_value *from = gp_obj_get(so, t->stats ? t->stats : "throughput");
		struct gp_value *o = gp_value_object();
		double v;
		bool known = gp_value_get_double(gp_obj_get(from, t->key), &v);
		bool met = known && holds(v, t->op, t->threshold);

		if (gp_arr_push(arr, o))
			return gp__error(GP_ENOMEM, "out of memory");
		GP_TRY(gp_obj_set_str(o, "target", t->spec));
		GP_TRY(gp_obj_set_str(o, "metric", t->metric));
		GP_TRY(gp_obj_set_str(o, "op", t->op));
		GP_TRY(gp_obj_set_double(o, "threshold", t->threshold));
		GP_TRY(gp_obj_set_str(o, "unit", t->stats ? "ns" : "/s"));
		GP_TRY(known ? gp_obj_set_double(o, "value", v) : gp_obj_set_null(o, "value"));
		GP_TRY(known ? gp_obj_set_bool(o, "met", met) : gp_obj_set_null(o, "met"));
		GP_TRY(gp_obj_set_str(o, "status", !known ? "unknown" : met ? "met" : "missed"));
		if (!met)
			*all_met = false;
	}
out:
	return rc;
}
