/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - the report parts of a `gpuprof run` directory: "metrics" (the
 * run's metrics timeline, metrics.jsonl, as per-series statistics and at most
 * GP_METRICS_MAX_POINTS points a series, on the capture clock) and "tags"
 * (the run's --tag KEY=VALUE, from run.json and the captures' META), and
 * how long a process whose capture has no END lived after the tracer's last
 * write (from run.json: when gpuprof run reaped it).
 *
 * Statistics use every known sample; quantiles are the library's one
 * definition (linear interpolation between closest ranks, as
 * gp__quantile_sorted). The points are a min/max decimation, so a peak (of
 * memory, of power) is never averaged away and each point is a real sample.
 * Nothing here fails the analysis over a bad timeline: the object then says
 * why in "error". Called by gp_analyze_paths() (analyze.c).
 */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/text.h"
#include "util/error.h"
#include "util/sort.h"
#include "util/value-int.h"

/* ---- points ---- */

static int push_point(struct gp_value *points, int64_t t, double v)
{
	struct gp_value *p = gp_value_array();

	if (!p)
		return gp__error(GP_ENOMEM, "out of memory");
	if (gp_arr_push(p, gp_value_int(t)) ||
	    gp_arr_push(p, isnan(v) ? gp_value_null() : gp_value_double(v))) {
		gp_value_free(p);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return gp_arr_push(points, p) ? gp__error(GP_ENOMEM, "out of memory") : 0;
}

int gp__metrics_points(const int64_t *t, const double *v, size_t n, size_t max_points,
                       struct gp_value *points)
{
	size_t i, b, nbins;
	int rc = 0;

	if ((n && (!t || !v)) || !points || max_points < 2)
		return gp__error(GP_EINVAL, "gp__metrics_points: bad argument");
	if (n <= max_points) {
		for (i = 0; i < n; i++)
			GP_TRY(push_point(points, t[i], v[i]));
		return 0;
	}
	nbins = max_points / 2;
	for (b = 0; b < nbins; b++) {
		/* n <= GP_METRICS_MAX_SAMPLES, so b * n does not overflow */
		size_t lo = b * n / nbins, hi = (b + 1) * n / nbins, imin = SIZE_MAX,
		       imax = SIZE_MAX;

		for (i = lo; i < hi; i++) {
			if (isnan(v[i]))
				continue;
			if (imin == SIZE_MAX || v[i] < v[imin])
				imin = i;
			if (imax == SIZE_MAX || v[i] > v[imax])
				imax = i;
		}
		if (imin == SIZE_MAX) {
			GP_TRY(push_point(points, t[lo], NAN));
			continue;
		}
		if (imin > imax) {
			size_t x = imin;

			imin = imax;
			imax = x;
		}
		GP_TRY(push_point(points, t[imin], v[imin]));
		if (imax != imin)
			GP_TRY(push_point(points, t[imax], v[imax]));
	}
out:
	return rc;
}

/* ---- statistics ---- */

/*
 * Doubles as int64 keys in the same order, so that the library's radix sort
 * (gp__sort_i64, linear in n) sorts them: ten million samples sort in a
 * fraction of a second, where qsort takes seconds. No NaN reaches here.
 */
static int64_t dbl_key(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	b = (b >> 63) ? ~b : b | (1ULL << 63);
	return (int64_t)(b ^ (1ULL << 63));
}

static double key_dbl(int64_t k)
{
	uint64_t b = (uint64_t)k ^ (1ULL << 63);
	double d;

	b = (b >> 63) ? b & ~(1ULL << 63) : ~b;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/* the same definition as gp__quantile_sorted(), on the keys of doubles */
static double quantile_sorted(const int64_t *v, size_t n, double q)
{
	double pos, frac, lo_v;
	size_t lo;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	if (lo + 1 >= n)
		return key_dbl(v[n - 1]);
	frac = pos - (double)lo;
	lo_v = key_dbl(v[lo]);
	return lo_v + (key_dbl(v[lo + 1]) - lo_v) * frac;
}

static int series_object(const struct gp_metrics_series *s, int64_t *scratch, struct gp_value *o)
{
	struct gp_value *points;
	double sum = 0, last = NAN;
	size_t i, k = 0;
	int rc = 0;

	for (i = 0; i < s->n; i++) {
		if (isnan(s->v[i]))
			continue;
		scratch[k++] = dbl_key(s->v[i]);
		sum += s->v[i];
		last = s->v[i];
	}
	GP_TRY(gp_obj_set_str(o, "name", s->name));
	GP_TRY(gp_obj_set_str(o, "unit", s->unit));
	GP_TRY(gp_obj_set_int(o, "count", (int64_t)k));
	if (k)
		GP_TRY(gp__sort_i64(scratch, k));
	GP_TRY(gp_obj_set_double(o, "min", k ? key_dbl(scratch[0]) : NAN));
	GP_TRY(gp_obj_set_double(o, "max", k ? key_dbl(scratch[k - 1]) : NAN));
	/* the computed two as the JSON holds them, so that the text and the page round alike */
	GP_TRY(gp_obj_set_double(o, "mean", k ? gp__json_round(sum / (double)k) : NAN));
	GP_TRY(gp_obj_set_double(o, "p95", gp__json_round(quantile_sorted(scratch, k, 0.95))));
	GP_TRY(gp_obj_set_double(o, "last", last));
	points = gp_value_array();
	GP_TRY(gp_obj_set(o, "points", points));
	GP_TRY(gp__metrics_points(s->t_ns, s->v, s->n, GP_METRICS_MAX_POINTS, points));
out:
	return rc;
}

/*
 * Fields that hardly change during a run (totals, limits) or that another
 * series repeats (the graphics clock follows the SM clock; energy is the
 * integral of power): given once as values, not plotted, to keep reports small.
 */
static const char *const context_fields[] = {
	"memory_total_bytes", "memory_reserved_bytes", "power_limit_watts",
	"energy_joules",      "clock_graphics_hertz",
};

static bool is_context(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t i;

	for (i = 0; dot && i < GP_ARRAY_SIZE(context_fields); i++)
		if (strcmp(dot + 1, context_fields[i]) == 0)
			return true;
	return false;
}

/* first, last and largest known value of series @p name; false when it has none */
static bool series_values(const struct gp_metrics_timeline *m, const char *name, double *first,
                          double *last, double *max)
{
	const struct gp_metrics_series *s = gp__metrics_timeline_series(m, name);
	bool any = false;
	size_t i;

	for (i = 0; s && i < s->n; i++) {
		if (isnan(s->v[i]))
			continue;
		if (!any)
			*first = *max = s->v[i];
		*last = s->v[i];
		if (s->v[i] > *max)
			*max = s->v[i];
		any = true;
	}
	return any;
}

static int set_int_or_null(struct gp_value *o, const char *key, int64_t x)
{
	return x >= 0 ? gp_obj_set_int(o, key, x) : gp_obj_set_null(o, key);
}

enum val_kind { VAL_LAST, VAL_MAX, VAL_DELTA };

/* sets @p key of @p o from series "gpu<gpu>.<field>" ("host.<field>" when gpu < 0) */
static int context_value(const struct gp_metrics_timeline *m, int gpu, const char *field,
                         enum val_kind kind, struct gp_value *o, const char *key)
{
	char name[64];
	double first = NAN, last = NAN, max = NAN;

	if (gpu < 0)
		snprintf(name, sizeof(name), "host.%s", field);
	else
		snprintf(name, sizeof(name), "gpu%d.%s", gpu, field);
	if (!series_values(m, name, &first, &last, &max))
		return gp_obj_set_null(o, key);
	return gp_obj_set_double(o, key,
	                         kind == VAL_LAST  ? last
	                         : kind == VAL_MAX ? max
	                                           : (last >= first ? last - first : NAN));
}

static int gpus_array(const struct gp_metrics_timeline *m, struct gp_value *o)
{
	struct gp_value *arr = gp_value_array();
	int i;
	int rc = 0;

	GP_TRY(gp_obj_set(o, "gpus", arr));
	for (i = 0; i < (int)m->ngpus && i < GP_METRICS_MAX_GPUS; i++) {
		const struct gp_metrics_gpu *g = &m->gpus[i];
		struct gp_value *x;

		if (!g->seen)
			continue;
		x = gp_value_object();
		GP_TRY(gp_arr_push(arr, x));
		GP_TRY(gp_obj_set_int(x, "index", (int64_t)i));
		GP_TRY(gp__obj_set_str_or_null(x, "name", g->name));
		GP_TRY(gp__obj_set_str_or_null(x, "uuid", g->uuid));
		GP_TRY(gp__obj_set_str_or_null(x, "pci_bus_id", g->pci_bus_id));
		GP_TRY(context_value(m, i, "memory_total_bytes", VAL_MAX, x, "memory_total_bytes"));
		GP_TRY(context_value(m, i, "power_limit_watts", VAL_LAST, x, "power_limit_watts"));
		GP_TRY(context_value(m, i, "energy_joules", VAL_DELTA, x, "energy_used_joules"));
	}
out:
	return rc;
}

int gp__metrics_object(const struct gp_metrics_timeline *m, const char *file, struct gp_value **out)
{
	struct gp_value *o = gp_value_object(), *arr;
	int64_t *scratch = NULL;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp__obj_set_str_or_null(o, "file", file));
	GP_TRY(gp_obj_set_null(o, "error"));
	GP_TRY(gp__obj_set_str_or_null(o, "hostname", m->hostname));
	GP_TRY(set_int_or_null(o, "interval_ms", m->interval_ms));
	GP_TRY(set_int_or_null(o, "start_monotonic_ns", m->start_monotonic_ns));
	GP_TRY(gp__obj_set_str_or_null(o, "gpu_status", m->gpu_status));
	GP_TRY(gp__obj_set_str_or_null(o, "driver_version", m->driver_version));
	GP_TRY(set_int_or_null(o, "watched_pid", m->watched_pid));
	GP_TRY(gp_obj_set_int(o, "samples", (int64_t)m->nsamples));
	GP_TRY(set_int_or_null(o, "first_ns", m->nsamples ? m->t_ns[0] : -1));
	GP_TRY(set_int_or_null(o, "last_ns", m->nsamples ? m->t_ns[m->nsamples - 1] : -1));
	GP_TRY(gp_obj_set_bool(o, "ended", m->ended));
	GP_TRY(set_int_or_null(o, "missed_periods", m->missed_periods));
	GP_TRY(gp_obj_set_int(o, "malformed_lines", (int64_t)m->malformed_lines));
	GP_TRY(gp_obj_set_bool(o, "partial_last_line", m->partial_last_line));
	GP_TRY(gp_obj_set_bool(o, "truncated", m->truncated));
	GP_TRY(gp_obj_set_int(o, "max_points", GP_METRICS_MAX_POINTS));
	GP_TRY(gpus_array(m, o));
	GP_TRY(context_value(m, -1, "memory_total_bytes", VAL_LAST, o, "host_memory_total_bytes"));
	arr = gp_value_array();
	GP_TRY(gp_obj_set(o, "series", arr));
	if (m->nsamples) {
		scratch = gp__calloc(m->nsamples, sizeof(*scratch));
		if (!scratch)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	for (i = 0; i < m->nseries; i++) {
		struct gp_value *s;

		if (is_context(m->series[i].name))
			continue;
		s = gp_value_object();
		GP_TRY(gp_arr_push(arr, s));
		GP_TRY(series_object(&m->series[i], scratch, s));
	}
out:
	gp__free(scratch);
	if (rc) {
		gp_value_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* ---- the run directory ---- */

static struct gp_value *tags_object(struct gp_value *report)
{
	struct gp_value *t = gp__obj_get_mut(report, "tags");

	if (gp_value_type(t) == GP_VALUE_OBJECT)
		return t;
	t = gp_value_object();
	if (!t || gp_obj_set(report, "tags", t))
		return NULL;
	return t;
}

int gp__tags_merge(struct gp_value *report, const struct gp_value *tags)
{
	struct gp_value *dst;
	size_t i;

	if (gp_value_type(tags) != GP_VALUE_OBJECT)
		return 0;
	dst = tags_object(report);
	if (!dst)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < gp_value_len(tags); i++) {
		const char *k = gp_obj_key_at(tags, i);
		const char *v = gp_value_get_str(gp_obj_value_at(tags, i));

		if (!k || !v || gp_obj_get(dst, k))
			continue;
		if (gp_obj_set_str(dst, k, v))
			return gp__error(GP_ENOMEM, "out of memory");
	}
	return 0;
}

/* a copy of @p v, null for a key run.json lacks (a file of another version, edited) */
static struct gp_value *clone_or_null(const struct gp_value *v)
{
	return v ? gp_value_clone(v) : gp_value_null();
}

/* run.json's record of how process @p pid ended: CMD itself, or one of "processes" */
static const struct gp_value *process_end(const struct gp_value *run, int64_t pid)
{
	const struct gp_value *procs = gp_obj_get(run, "processes");
	int64_t x;

	if (gp_value_get_int(gp_obj_get(run, "pid"), &x) && x == pid)
		return run;
	for (size_t i = 0; i < gp_value_len(procs); i++) {
		const struct gp_value *p = gp_arr_get(procs, i);

		if (gp_value_get_int(gp_obj_get(p, "pid"), &x) && x == pid)
			return p;
	}
	return NULL;
}

/* whether another capture of the report is of process @p pid (an exec: the same pid, anew) */
static bool pid_again(const struct gp_value *ranks, const struct gp_value *cap, int64_t pid)
{
	for (size_t i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *c =
		    gp_obj_get(gp_obj_get(gp_arr_get(ranks, i), "overview"), "capture");
		int64_t x;

		if (c != cap && gp_value_get_int(gp_obj_get(c, "pid"), &x) && x == pid)
			return true;
	}
	return false;
}

/*
 * A capture of DIR without END (the reader's "end" null): how long its
 * process lived after the tracer's last write, from run.json (gpuprof run
 * reaps CMD and the orphans it leaves, and records when). Into the capture
 * object: "process_end" {state, exit_code, exit_signal, end_monotonic_ns} and
 * "lost_after_flush_ns", and a warning saying it. Nothing when run.json does
 * not know the process, or when the same pid has another capture (an exec:
 * its next image, which the reader's warning already names as a cause).
 */
static int process_ends(struct gp_value *report, const struct gp_value *run, const char *dir)
{
	const struct gp_value *ranks = gp_obj_get(report, "ranks");
	size_t dlen = strlen(dir);

	for (size_t i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *rank = gp_arr_get(ranks, i);
		/* the report is ours to change: the getters only hand out const */
		struct gp_value *cap =
		    (struct gp_value *)gp_obj_get(gp_obj_get(rank, "overview"), "capture");
		const char *file = gp_value_get_str(gp_obj_get(rank, "file")), *sig;
		const struct gp_value *pe;
		struct gp_value *wm, *w, *copy;
		int64_t pid, end, flush, code, lost, nw = 0;
		char how[64], text[320], dbuf[32];
		int k;

		if (gp_value_type(cap) != GP_VALUE_OBJECT ||
		    gp_value_type(gp_obj_get(cap, "end")) != GP_VALUE_NULL || !file ||
		    strncmp(file, dir, dlen) || file[dlen] != '/' ||
		    !gp_value_get_int(gp_obj_get(cap, "pid"), &pid) ||
		    !gp_value_get_int(gp_obj_get(cap, "last_flush_ns"), &flush) ||
		    pid_again(ranks, cap, pid) || !(pe = process_end(run, pid)) ||
		    !gp_value_get_int(gp_obj_get(pe, "end_monotonic_ns"), &end))
			continue;
		/* run.json may be anyone's: a time that makes no sense is left alone */
		if (__builtin_sub_overflow(end, flush, &lost) || lost < 0)
			lost = 0;
		if ((sig = gp_value_get_str(gp_obj_get(pe, "exit_signal"))))
			snprintf(how, sizeof(how), "was killed by %s", sig);
		else if (gp_value_get_int(gp_obj_get(pe, "exit_code"), &code))
			snprintf(how, sizeof(how), "exited with status %lld", (long long)code);
		else
			snprintf(how, sizeof(how), "ended");
		k = snprintf(text, sizeof(text),
		             "the process (pid %lld) %s %s after the tracer's last write: what "
		             "it recorded in that time is lost",
		             (long long)pid, how, gp__fmt_dur(dbuf, sizeof(dbuf), (double)lost, 0));
		if (!(copy = gp_value_object()) || gp_obj_set(cap, "process_end", copy) ||
		    gp_obj_set(copy, "state", clone_or_null(gp_obj_get(pe, "state"))) ||
		    gp_obj_set(copy, "exit_code", clone_or_null(gp_obj_get(pe, "exit_code"))) ||
		    gp_obj_set(copy, "exit_signal", clone_or_null(gp_obj_get(pe, "exit_signal"))) ||
		    gp_obj_set_int(copy, "end_monotonic_ns", end) ||
		    gp_obj_set_int(cap, "lost_after_flush_ns", lost))
			return gp__error(GP_ENOMEM, "out of memory");
		wm = (struct gp_value *)gp_obj_get(cap, "warning_messages");
		if (gp_value_type(wm) != GP_VALUE_ARRAY)
			continue;
		if (!(w = gp_value_object()) || gp_arr_push(wm, w) ||
		    gp_obj_set_int(w, "code", 0) ||
		    gp_obj_set(w, "text",
		               gp_value_strn(text, (size_t)k < sizeof(text) ? (size_t)k
		                                                            : sizeof(text) - 1)) ||
		    gp_obj_set_int(w, "count", 1))
			return gp__error(GP_ENOMEM, "out of memory");
		gp_value_get_int(gp_obj_get(cap, "warnings"), &nw);
		if (gp_obj_set_int(cap, "warnings", nw + 1))
			return gp__error(GP_ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * DIR/run.json (schema gpuprof.run/1): its tags merged into the report, and
 * the end of each process whose capture was cut short (process_ends). A
 * missing, oversized or unreadable run.json is skipped: these are extras.
 */
static int run_json_merge(struct gp_value *report, const char *dir)
{
	struct gp_value *v = NULL;
	int rc;

	if ((rc = gp__run_json_read(dir, &v)) || !v)
		return rc;
	if ((rc = gp__tags_merge(report, gp_obj_get(v, "tags"))) == 0)
		rc = process_ends(report, v, dir);
	gp_value_free(v);
	return rc;
}

static int metrics_from(struct gp_value *report, const char *file)
{
	struct gp_metrics_timeline *m = NULL;
	struct gp_value *o = NULL;
	int rc;

	rc = gp__metrics_timeline_read(file, &m);
	if (rc == GP_ENOMEM)
		return rc;
	if (rc) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", gp_last_error());
		gp_clear_error();
		o = gp_value_object();
		if (!o || gp_obj_set_str(o, "file", file) || gp_obj_set_str(o, "error", msg)) {
			gp_value_free(o);
			return gp__error(GP_ENOMEM, "out of memory");
		}
	} else {
		rc = gp__metrics_object(m, file, &o);
		gp__metrics_timeline_free(m);
		if (rc)
			return rc;
	}
	return gp_obj_set(report, "metrics", o) ? gp__error(GP_ENOMEM, "out of memory") : 0;
}

int gp__an_run_dirs(struct gp_value *report, const struct gp__srcs *srcs)
{
	bool have_metrics = false;
	size_t i;
	int rc = 0;

	if (!tags_object(report))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < srcs->n; i++) {
		const struct gp__src *x = &srcs->v[i];

		if (x->kind == GP_SRC_RUN_DIR)
			GP_TRY(run_json_merge(report, x->path));
		if (x->kind != GP_SRC_METRICS || have_metrics)
			continue;
		have_metrics = true;
		GP_TRY(metrics_from(report, x->path));
	}
out:
	return rc;
}
