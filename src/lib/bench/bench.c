/* SPDX-License-Identifier: MIT */
/*
 * bench.c - a bench result: named iteration series and their statistics
 * (bench.h, docs/bench-schema.md, docs/analyses/statistics.md).
 *
 * The series own copies of the caller's arrays. gp_bench_result() derives
 * everything else (statistics, throughput, outliers, warnings; targets in
 * target.c, the series against the fastest and the sweeps in relative.c)
 * so that the CLI, the trace and capture readers and the Python helper all
 * give the same numbers for the same samples and seed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench-int.h"
#include "gpuprof/bench.h"
#include "gpuprof/stats.h"
#include "text/text.h"
#include "util/error.h"
#include "util/sort.h"

#define SHORT_RUN_NS 5e6 /* hyperfine's MIN_EXECUTION_TIME: a command this short is start-up */
#define FEW_SAMPLES  5   /* fewer measured iterations: compare falls back on Welch's t */

static double *dup_doubles(const double *x, size_t n)
{
	double *p;

	if (!x || !n)
		return NULL;
	p = gp__reallocarray(NULL, n, sizeof(*p));
	if (p)
		memcpy(p, x, n * sizeof(*p));
	return p;
}

GP_API struct gp_bench *gp_bench_new(const char *source_kind, uint64_t seed)
{
	struct gp_bench *b = gp__calloc(1, sizeof(*b));

	if (!b) {
		gp__error(GP_ENOMEM, "out of memory");
		return NULL;
	}
	/* 63 bits, so that the seed in the JSON (an int64) is the seed used */
	b->seed = (seed ? seed : GP_BENCH_SEED) & (uint64_t)INT64_MAX;
	if (!b->seed)
		b->seed = GP_BENCH_SEED;
	b->kind = gp__strdup(source_kind ? source_kind : "command");
	b->tags = gp_value_object();
	b->args = gp_value_array();
	b->param_names = gp_value_array();
	if (!b->kind || !b->tags || !b->args || !b->param_names) {
		gp_bench_free(b);
		gp__error(GP_ENOMEM, "out of memory");
		return NULL;
	}
	return b;
}

GP_API void gp_bench_free(struct gp_bench *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		struct gp_bench_series *s = &b->s[i];

		gp__free(s->name);
		gp__free(s->rate_name);
		gp__free(s->times);
		gp__free(s->warm);
		gp__free(s->gpu);
		gp__free(s->mem);
		gp__free(s->mem_end);
		gp__free(s->codes);
		gp_value_free(s->params);
		gp__free(s->tmpl);
	}
	gp__free(b->s);
	gp__free(b->kind);
	gp_value_free(b->tags);
	gp_value_free(b->args);
	gp_value_free(b->param_names);
	gp__bench_free_targets(b);
	gp__free(b);
}

GP_API int gp_bench_tag(struct gp_bench *b, const char *key, const char *value)
{
	if (!b || !key || !*key || !value)
		return gp__error(GP_EINVAL, "a tag needs a key and a value");
	return gp_obj_set_str(b->tags, key, value);
}

GP_API int gp_bench_source_arg(struct gp_bench *b, const char *arg)
{
	if (!b || !arg)
		return gp__error(GP_EINVAL, "no argument");
	return gp_arr_push(b->args, gp_value_str(arg));
}

static int check_samples(const double *x, size_t n, const char *what, bool positive)
{
	for (size_t i = 0; x && i < n; i++)
		if (!isfinite(x[i]) || x[i] < 0 || (positive && x[i] == 0))
			return gp__error(GP_EINVAL, "%s[%zu] is %g: not a %s number", what, i, x[i],
			                 positive ? "positive" : "non-negative");
	return 0;
}

GP_API int gp_bench_add(struct gp_bench *b, const char *name, const char *rate_name,
                        double batch_size, uint32_t warmup, const double *times_ns, size_t n,
                        const double *gpu_ns, const double *mem_bytes, const int *exit_codes)
{
	struct gp_bench_series *s;
	int rc;

	if (!b || !name || !times_ns || !n)
		return gp__error(GP_EINVAL, "a series needs a name and at least one iteration");
	if (!isfinite(batch_size) || batch_size <= 0)
		return gp__error(GP_EINVAL, "batch size %g: must be positive", batch_size);
	if (n > GP_BENCH_MAX_ITERS)
		return gp__error(GP_ELIMIT, "%zu iterations: at most %u per series", n,
		                 GP_BENCH_MAX_ITERS);
	if ((rc = check_samples(times_ns, n, "times_ns", true)) ||
	    (rc = check_samples(gpu_ns, n, "gpu_ns", false)) ||
	    (rc = check_samples(mem_bytes, n, "peak_memory_bytes", false)))
		return rc;
	if (b->n >= INT32_MAX || gp__grow((void **)&b->s, &b->cap, b->n + 1, sizeof(*b->s)))
		return gp__error(GP_ENOMEM, "out of memory");
	s = &b->s[b->n];
	memset(s, 0, sizeof(*s));
	s->name = gp__strdup(name);
	s->rate_name = rate_name ? gp__strdup(rate_name) : NULL;
	s->batch = batch_size;
	s->warmup = warmup;
	s->n = n;
	s->times = dup_doubles(times_ns, n);
	s->gpu = dup_doubles(gpu_ns, n);
	s->mem = dup_doubles(mem_bytes, n);
	if (exit_codes) {
		s->codes = gp__reallocarray(NULL, n, sizeof(*s->codes));
		if (s->codes)
			memcpy(s->codes, exit_codes, n * sizeof(*s->codes));
	}
	if (!s->name || (rate_name && !s->rate_name) || !s->times || (gpu_ns && !s->gpu) ||
	    (mem_bytes && !s->mem) || (exit_codes && !s->codes)) {
		gp__free(s->name);
		gp__free(s->rate_name);
		gp__free(s->times);
		gp__free(s->gpu);
		gp__free(s->mem);
		gp__free(s->codes);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return (int)b->n++;
}

GP_API int gp_bench_warmup_times(struct gp_bench *b, int series, const double *times_ns, size_t n)
{
	struct gp_bench_series *s;
	double *w;
	int rc;

	if (!b || series < 0 || (size_t)series >= b->n)
		return gp__error(GP_EINVAL, "no series %d", series);
	if (!n)
		return 0;
	if ((rc = check_samples(times_ns, n, "warmup_times_ns", true)))
		return rc;
	s = &b->s[series];
	if (!(w = dup_doubles(times_ns, n)))
		return gp__error(GP_ENOMEM, "out of memory");
	gp__free(s->warm);
	s->warm = w;
	s->nwarm = n;
	return 0;
}

GP_API int gp_bench_memory_at_end(struct gp_bench *b, int series, const double *bytes, size_t n)
{
	struct gp_bench_series *s;
	double *m;
	int rc;

	if (!b || series < 0 || (size_t)series >= b->n)
		return gp__error(GP_EINVAL, "no series %d", series);
	s = &b->s[series];
	if (!bytes || n != s->n)
		return gp__error(GP_EINVAL, "%zu values of memory at the end for %zu iterations", n,
		                 s->n);
	if ((rc = check_samples(bytes, n, "memory_at_end_bytes", false)))
		return rc;
	if (!(m = dup_doubles(bytes, n)))
		return gp__error(GP_ENOMEM, "out of memory");
	gp__free(s->mem_end);
	s->mem_end = m;
	return 0;
}

GP_API int gp_bench_param(struct gp_bench *b, int series, const char *name, const char *value)
{
	struct gp_bench_series *s;
	size_t i;
	int rc;

	if (!b || series < 0 || (size_t)series >= b->n)
		return gp__error(GP_EINVAL, "no series %d", series);
	if (!name || !*name || !value)
		return gp__error(GP_EINVAL, "a parameter needs a name and a value");
	s = &b->s[series];
	if (!s->params && !(s->params = gp_value_object()))
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = gp_obj_set_str(s->params, name, value)))
		return rc;
	for (i = 0; i < gp_value_len(b->param_names); i++)
		if (strcmp(gp_value_get_str(gp_arr_get(b->param_names, i)), name) == 0)
			return 0;
	return gp_arr_push(b->param_names, gp_value_str(name));
}

GP_API int gp_bench_template(struct gp_bench *b, int series, const char *tmpl)
{
	char *t;

	if (!b || series < 0 || (size_t)series >= b->n)
		return gp__error(GP_EINVAL, "no series %d", series);
	if (!tmpl)
		return gp__error(GP_EINVAL, "no template");
	if (!(t = gp__strdup(tmpl)))
		return gp__error(GP_ENOMEM, "out of memory");
	gp__free(b->s[series].tmpl);
	b->s[series].tmpl = t;
	return 0;
}

/* ---- the result tree ---- */

/* gp_obj_set(), with a NULL @p v (a failed allocation) reported as such */
static int attach(struct gp_value *o, const char *key, struct gp_value *v)
{
	if (!v)
		return gp__error(GP_ENOMEM, "out of memory");
	return gp_obj_set(o, key, v);
}

static struct gp_value *num_array(const double *x, size_t n)
{
	struct gp_value *a = gp_value_array();

	for (size_t i = 0; a && i < n; i++) {
		double v = x[i];
		/* whole numbers print as integers (ns from clocks are whole) */
		struct gp_value *e = (v == floor(v) && fabs(v) < 9e15) ? gp_value_int((int64_t)v)
		                                                       : gp_value_double(v);

		if (gp_arr_push(a, e)) {
			gp_value_free(a);
			return NULL;
		}
	}
	return a;
}

static int set_pair(struct gp_value *o, const char *key, double lo, double hi)
{
	struct gp_value *a;

	if (!isfinite(lo) || !isfinite(hi))
		return gp_obj_set_null(o, key);
	if (!(a = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	if (gp_arr_push(a, gp_value_double(lo)) || gp_arr_push(a, gp_value_double(hi))) {
		gp_value_free(a);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return attach(o, key, a);
}

static int set_num(struct gp_value *o, const char *key, double v)
{
	return isfinite(v) ? gp_obj_set_double(o, key, v) : gp_obj_set_null(o, key);
}

/* the statistics object of one sample, keys suffixed with @p unit ("ns", "bytes") */
static int stats_obj(const double *x, size_t n, uint64_t seed, const char *unit,
                     struct gp_stats *st, struct gp_value **out)
{
	struct gp_stats_opts so = { .size = sizeof(so) };
	struct gp_value *o = NULL;
	char k[32];
	int rc;

	*out = NULL;
	so.seed = seed;
	if ((rc = gp_stats_compute(x, n, &so, st)))
		return rc;
	if (!(o = gp_value_object()))
		return gp__error(GP_ENOMEM, "out of memory");
#define NUM(name, v)                                                                               \
	do {                                                                                       \
		snprintf(k, sizeof(k), "%s_%s", name, unit);                                       \
		GP_TRY(set_num(o, k, v));                                                          \
	} while (0)
	NUM("mean", st->mean);
	NUM("std", st->std);
	NUM("median", st->median);
	NUM("mad", st->mad);
	NUM("min", st->min);
	NUM("max", st->max);
	NUM("p25", st->p25);
	NUM("p50", st->p50);
	NUM("p75", st->p75);
	NUM("p90", st->p90);
	NUM("p95", st->p95);
	NUM("p99", st->p99);
#undef NUM
	GP_TRY(set_num(o, "cv", st->cv));
	snprintf(k, sizeof(k), "mean_ci_%s", unit);
	GP_TRY(set_pair(o, k, st->mean_lo, st->mean_hi));
	snprintf(k, sizeof(k), "median_ci_%s", unit);
	GP_TRY(set_pair(o, k, st->median_lo, st->median_hi));
	GP_TRY(gp_obj_set_double(o, "confidence", 0.95));
	*out = o;
	return 0;
out:
	gp_value_free(o);
	return rc;
}

static int warn(struct gp_value *w, const char *id, const char *fmt, ...) GP_PRINTF(3, 4);

static int warn(struct gp_value *w, const char *id, const char *fmt, ...)
{
	struct gp_value *o = gp_value_object();
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!o || gp_obj_set_str(o, "id", id) || gp_obj_set_str(o, "text", text)) {
		gp_value_free(o);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return gp_arr_push(w, o);
}

/*
 * The steady-state check (docs/analyses/statistics.md): the first k = max(2, n/10)
 * measured iterations are "still warming up" when their median is over 10 %
 * above the median of the others and each of them is above the others' p75.
 */
static int steady(const double *x, size_t n, size_t *k_out, double *slow_pct)
{
	size_t k = n / 10 > 2 ? n / 10 : 2, m;
	double *rest, *first, mr, mf, p75;

	*k_out = 0;
	if (n < 10)
		return 0;
	m = n - k;
	rest = gp__reallocarray(NULL, n, sizeof(*rest));
	if (!rest)
		return gp__error(GP_ENOMEM, "out of memory");
	first = rest + m;
	memcpy(first, x, k * sizeof(*x));
	memcpy(rest, x + k, m * sizeof(*x));
	qsort(rest, m, sizeof(*rest), gp__cmp_double);
	qsort(first, k, sizeof(*first), gp__cmp_double);
	mr = gp_quantile_sorted(rest, m, 0.5);
	mf = gp_quantile_sorted(first, k, 0.5);
	p75 = gp_quantile_sorted(rest, m, 0.75);
	if (mf > 1.10 * mr && first[0] > p75) {
		*k_out = k;
		*slow_pct = 100.0 * (mf - mr) / mr;
	}
	gp__free(rest);
	return 0;
}

static int series_warnings(const struct gp_bench_series *s, const struct gp_stats *st,
                           struct gp_value *row, struct gp_value *w)
{
	bool *fl = NULL;
	long nout;
	size_t k = 0, nfail = 0, i;
	char d1[32], d2[32];
	double slow = 0;
	int rc = 0;

	if (!(fl = gp__calloc(s->n, sizeof(*fl))))
		return gp__error(GP_ENOMEM, "out of memory");
	nout = gp_stats_outliers(s->times, s->n, 0, fl);
	if (nout < 0)
		GP_TRY((int)nout);
	GP_TRY(gp_obj_set_int(row, "outliers", nout));
	if (s->n > 1 && fl[0] && s->times[0] > st->median) {
		GP_TRY(warn(w, "slow_first_run",
		            "the first measured iteration took %s against a median of %s: "
		            "caches were cold or work was still being set up; raise the warm-up "
		            "(--warmup)",
		            gp__fmt_dur_like(d1, sizeof(d1), s->times[0], st->median, 0),
		            gp__fmt_dur(d2, sizeof(d2), st->median, 0)));
		nout--;
	}
	if (nout > 0)
		GP_TRY(warn(w, "outliers",
		            "%ld of %zu iterations %s (modified z-score over 14.826); other work "
		            "on the machine may have interfered: re-run on a quiet system",
		            nout, s->n,
		            nout == 1 ? "is a statistical outlier" : "are statistical outliers"));
	GP_TRY(steady(s->times, s->n, &k, &slow));
	if (k)
		GP_TRY(warn(w, "not_steady",
		            "the first %zu measured iterations are %s slower than the rest: "
		            "not yet in a steady state; raise the warm-up (--warmup)",
		            k, gp__fmt_pct(d1, sizeof(d1), slow, GP__FMT_WHOLE)));
	for (i = 0; s->codes && i < s->n; i++)
		nfail += s->codes[i] != 0;
	if (nfail)
		GP_TRY(warn(w, "failed_runs", "%zu of %zu runs exited with a non-zero status",
		            nfail, s->n));
	if (s->codes && st->median < SHORT_RUN_NS)
		GP_TRY(warn(w, "short_runs",
		            "a run takes %s: under 5 ms, process start-up dominates what is "
		            "measured",
		            gp__fmt_dur(d1, sizeof(d1), st->median, 0)));
	if (s->n < 2)
		GP_TRY(warn(w, "few_samples",
		            "%zu measured iteration: compare needs at least 2 a side for a verdict",
		            s->n));
	else if (s->n < FEW_SAMPLES)
		GP_TRY(warn(w, "few_samples",
		            "%zu measured iterations: compare can confirm only large changes; "
		            "more confirm smaller ones",
		            s->n));
out:
	gp__free(fl);
	return rc;
}

/*
 * The median over the iterations of GPU time / wall time: near or over 1 the
 * iterations are GPU-bound, well under 1 the GPU waits for the host.
 */
static int gpu_share(const struct gp_bench_series *s, struct gp_value *o)
{
	double *r = gp__reallocarray(NULL, s->n, sizeof(*r));
	int rc;

	if (!r)
		return gp__error(GP_ENOMEM, "out of memory");
	for (size_t i = 0; i < s->n; i++)
		r[i] = s->gpu[i] / s->times[i];
	qsort(r, s->n, sizeof(*r), gp__cmp_double);
	rc = gp_obj_set_double(o, "gpu_share", gp_quantile_sorted(r, s->n, 0.5));
	gp__free(r);
	return rc;
}

static int series_obj(const struct gp_bench *b, const struct gp_bench_series *s, bool *targets_met,
                      struct gp_value **out)
{
	/* every child is attached to o as soon as it exists: o owns it, even on failure */
	struct gp_value *o = gp_value_object(), *w, *v, *tp;
	struct gp_stats st, gst, mst, est;
	double sum = 0;
	const char *rate;
	int rc = 0;

	*out = NULL;
	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	rate = s->rate_name ? s->rate_name : s->batch != 1 ? "items/s" : "iterations/s";
	GP_TRY(gp_obj_set_str(o, "name", s->name));
	GP_TRY(gp_obj_set_str(o, "rate_name", rate));
	GP_TRY(gp_obj_set_double(o, "batch_size", s->batch));
	GP_TRY(gp_obj_set_int(o, "warmup", s->warmup));
	GP_TRY(gp_obj_set_int(o, "n", (int64_t)s->n));
	/* a parameter scan's: present only there, so other documents stay as they were */
	if (s->params)
		GP_TRY(attach(o, "parameters", gp_value_clone(s->params)));
	if (s->tmpl)
		GP_TRY(gp_obj_set_str(o, "template", s->tmpl));
#define ARR(key, x, n)                                                                             \
	do {                                                                                       \
		if (x) {                                                                           \
			GP_TRY(attach(o, key, num_array(x, n)));                                   \
		} else {                                                                           \
			GP_TRY(gp_obj_set_null(o, key));                                           \
		}                                                                                  \
	} while (0)
	ARR("times_ns", s->times, s->n);
	ARR("warmup_times_ns", s->warm, s->nwarm);
	ARR("gpu_ns", s->gpu, s->n);
	ARR("peak_memory_bytes", s->mem, s->n);
	ARR("memory_at_end_bytes", s->mem_end, s->n);
#undef ARR
	if (s->codes) {
		GP_TRY(attach(o, "exit_codes", v = gp_value_array()));
		for (size_t i = 0; i < s->n; i++)
			GP_TRY(gp_arr_push(v, gp_value_int(s->codes[i])));
	} else {
		GP_TRY(gp_obj_set_null(o, "exit_codes"));
	}
	GP_TRY(stats_obj(s->times, s->n, b->seed, "ns", &st, &v));
	GP_TRY(attach(o, "stats", v));
	if (s->gpu) {
		GP_TRY(stats_obj(s->gpu, s->n, b->seed, "ns", &gst, &v));
		GP_TRY(attach(o, "gpu_stats", v));
		GP_TRY(gpu_share(s, o));
	} else {
		GP_TRY(gp_obj_set_null(o, "gpu_stats"));
		GP_TRY(gp_obj_set_null(o, "gpu_share"));
	}
	if (s->mem) {
		GP_TRY(stats_obj(s->mem, s->n, b->seed, "bytes", &mst, &v));
		GP_TRY(attach(o, "memory_stats", v));
	} else {
		GP_TRY(gp_obj_set_null(o, "memory_stats"));
	}
	if (s->mem_end) {
		GP_TRY(stats_obj(s->mem_end, s->n, b->seed, "bytes", &est, &v));
		GP_TRY(attach(o, "memory_at_end_stats", v));
	} else {
		GP_TRY(gp_obj_set_null(o, "memory_at_end_stats"));
	}
	for (size_t i = 0; i < s->n; i++)
		sum += s->times[i];
	GP_TRY(attach(o, "throughput", tp = gp_value_object()));
	GP_TRY(gp_obj_set_double(tp, "iterations_per_s", (double)s->n * 1e9 / sum));
	GP_TRY(gp_obj_set_double(tp, "items_per_s", s->batch * (double)s->n * 1e9 / sum));
	GP_TRY(gp_obj_set_str(tp, "rate_name", rate));
	GP_TRY(attach(o, "warnings", w = gp_value_array()));
	GP_TRY(series_warnings(s, &st, o, w));
	GP_TRY(gp__bench_eval_targets(b, o, targets_met));
	*out = o;
	return 0;
out:
	gp_value_free(o);
	return rc;
}

static int iso_now(char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -1;
	return 0;
}

GP_API int gp_bench_result(const struct gp_bench *b, struct gp_value **out)
{
	struct gp_value *r, *v;
	bool met = true;
	char buf[256];
	long ncpu;
	int rc = 0;

	*out = NULL;
	if (!b)
		return gp__error(GP_EINVAL, "no bench result");
	if (!(r = gp_value_object()))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_str(r, "schema", GP_BENCH_SCHEMA));
	GP_TRY(gp_obj_set_str(r, "gpuprof_version", gp_version()));
	if (iso_now(buf, sizeof(buf)) == 0)
		GP_TRY(gp_obj_set_str(r, "date", buf));
	else
		GP_TRY(gp_obj_set_null(r, "date"));
	GP_TRY(attach(r, "host", v = gp_value_object()));
	if (gethostname(buf, sizeof(buf) - 1) == 0) {
		buf[sizeof(buf) - 1] = 0;
		GP_TRY(gp_obj_set_str(v, "hostname", buf));
	} else {
		GP_TRY(gp_obj_set_null(v, "hostname"));
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	GP_TRY(ncpu > 0 ? gp_obj_set_int(v, "cpus", ncpu) : gp_obj_set_null(v, "cpus"));
	GP_TRY(attach(r, "source", v = gp_value_object()));
	GP_TRY(gp_obj_set_str(v, "kind", b->kind));
	GP_TRY(attach(v, "args", gp_value_clone(b->args)));
	GP_TRY(attach(r, "tags", gp_value_clone(b->tags)));
	GP_TRY(gp_obj_set_int(r, "seed", (int64_t)b->seed));
	GP_TRY(attach(r, "series", v = gp_value_array()));
	for (size_t i = 0; i < b->n; i++) {
		struct gp_value *s;

		GP_TRY(series_obj(b, &b->s[i], &met, &s));
		GP_TRY(gp_arr_push(v, s));
	}
	/* what a run had, present only when it had it */
	if (gp_value_len(b->param_names))
		GP_TRY(attach(r, "parameters", gp_value_clone(b->param_names)));
	if (b->nt) {
		GP_TRY(attach(r, "targets", v = gp_value_array()));
		for (size_t i = 0; i < b->nt; i++)
			GP_TRY(gp_arr_push(v, gp_value_str(b->t[i].spec)));
		GP_TRY(gp_obj_set_bool(r, "targets_met", met));
	}
	GP_TRY(gp__bench_relative(b, r));
	GP_TRY(gp__bench_sweeps(b, r));
	*out = r;
	return 0;
out:
	gp_value_free(r);
	return rc;
}

GP_API int gp_bench_json(const struct gp_bench *b, bool pretty, char **out, size_t *len)
{
	struct gp_value *r;
	int rc;

	*out = NULL;
	if ((rc = gp_bench_result(b, &r)))
		return rc;
	rc = gp_value_to_json(r, pretty ? GP_JSON_PRETTY : 0, out, len);
	gp_value_free(r);
	return rc;
}
