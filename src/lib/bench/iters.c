/* SPDX-License-Identifier: MIT */
/*
 * iters.c - iteration series from traces and captures (gp_bench_add_paths).
 *
 * An iteration is a host time interval:
 *  - ProfilerStep#N (the default): the steps of the analysis (docs/analyses/
 *    steps.md): dur_ns (the step stretched to its device work) and
 *    gpu_busy_ns; incomplete steps are left out;
 *  - --iter-range NAME: each instance of the range or annotation NAME (an
 *    NVTX message with or without its domain, a Kineto user_annotation);
 *  - --frame-mark NAME: from one mark NAME to the next (n marks, n - 1
 *    iterations).
 * The GPU time of a range or frame iteration is the union of the intervals
 * of the GPU activities (kernels, copies, sets) launched inside it, on any
 * thread: the launching runtime or driver call (by correlation id) starts in
 * [start, end). Work launched in one iteration that runs into the next
 * counts for the one that launched it.
 *
 * Memory (a trace recorded with profile_memory=True, a capture with CUPTI
 * memory records): per iteration, over its host interval [start, end] (a
 * step's host_start_ns .. + host_dur_ns), the peak allocated bytes and the
 * allocated bytes at its end, of each GPU from the one curve of memcurve.h.
 * With several GPUs an iteration's number is the highest over them (peak
 * and at-end each: the most loaded GPU, the one that runs out first); a GPU
 * with no memory event yet at an iteration's end is left out of it. The
 * series has memory only when every measured iteration has a value; the
 * CPU's memory events never count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/memcurve.h"
#include "bench/bench-int.h"
#include "gpuprof/analyze.h"
#include "gpuprof/bench.h"
#include "source/source.h"
#include "trace/model.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/sort.h"

/* a GPU activity with the time its launch call started */
struct op {
	int64_t launch, start, end;
};

struct ivl {
	int64_t start, end;
};

struct iters {
	double *times, *gpu;
	struct ivl *host; /* per iteration: its host interval, for the memory */
	size_t n, cap_t, cap_g, cap_h;
	bool has_gpu;
};

static int cmp_op(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	return (x->launch > y->launch) - (x->launch < y->launch);
}

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end > y->end) - (x->end < y->end);
}

static bool is_gpu_kind(uint8_t k)
{
	return k == GP_K_KERNEL || k == GP_K_MEMCPY || k == GP_K_MEMSET;
}

/* the GPU activities that have a launch call, sorted by launch time */
static int gpu_ops(const struct gp_trace *t, struct op **out, size_t *nout)
{
	struct gp_u64map launch;
	struct op *ops = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	memset(&launch, 0, sizeof(launch));
	for (i = 0; i < t->ev.n; i++) {
		uint8_t k = t->ev.kind[i];

		if ((k == GP_K_RUNTIME || k == GP_K_DRIVER) && t->ev.corr[i] >= 0) {
			uint64_t prev;

			/* the earliest call with an id launches (a driver call under a runtime one)
			 */
			rc = gp__u64map_put_new(&launch, (uint64_t)t->ev.corr[i], i, &prev);
			if (rc >= 0 && prev != i && t->ev.ts[i] < t->ev.ts[prev])
				rc = gp__u64map_put(&launch, (uint64_t)t->ev.corr[i], i);
			if (rc < 0)
				goto out;
			rc = 0;
		}
	}
	for (i = 0; i < t->ev.n; i++) {
		uint64_t li;

		if (!is_gpu_kind(t->ev.kind[i]) || t->ev.corr[i] < 0 ||
		    gp__u64map_get(&launch, (uint64_t)t->ev.corr[i], &li) != 1)
			continue;
		if (gp__grow((void **)&ops, &cap, n + 1, sizeof(*ops)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		ops[n].launch = t->ev.ts[li];
		ops[n].start = t->ev.ts[i];
		ops[n].end = t->ev.ts[i] + t->ev.dur[i];
		n++;
	}
	if (n)
		qsort(ops, n, sizeof(*ops), cmp_op);
	*out = ops;
	*nout = n;
	ops = NULL;
out:
	gp__u64map_release(&launch);
	gp__free(ops);
	return rc;
}

/* the first op launched at or after @p ts */
static size_t lower(const struct op *ops, size_t n, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ops[mid].launch < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the union of the intervals of the ops launched in [start, end) */
static int gpu_time(const struct op *ops, size_t nops, int64_t start, int64_t end, struct ivl **buf,
                    size_t *cap, double *out)
{
	size_t a = lower(ops, nops, start), b = lower(ops, nops, end), m = b - a, i;
	int64_t sum = 0, cs, ce;

	*out = 0;
	if (!m)
		return 0;
	if (gp__grow((void **)buf, cap, m, sizeof(**buf)))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < m; i++) {
		(*buf)[i].start = ops[a + i].start;
		(*buf)[i].end = ops[a + i].end;
	}
	qsort(*buf, m, sizeof(**buf), cmp_ivl);
	cs = (*buf)[0].start;
	ce = (*buf)[0].end;
	for (i = 1; i < m; i++) {
		if ((*buf)[i].start > ce) {
			sum += ce - cs;
			cs = (*buf)[i].start;
			ce = (*buf)[i].end;
		} else if ((*buf)[i].end > ce) {
			ce = (*buf)[i].end;
		}
	}
	sum += ce - cs;
	*out = (double)sum;
	return 0;
}

static int push_iter(struct iters *it, double t, double g, int64_t start, int64_t end)
{
	if (gp__grow((void **)&it->times, &it->cap_t, it->n + 1, sizeof(double)) ||
	    gp__grow((void **)&it->gpu, &it->cap_g, it->n + 1, sizeof(double)) ||
	    gp__grow((void **)&it->host, &it->cap_h, it->n + 1, sizeof(*it->host)))
		return gp__error(GP_ENOMEM, "out of memory");
	it->times[it->n] = t;
	it->host[it->n].start = start;
	it->host[it->n].end = end;
	it->gpu[it->n++] = g;
	return 0;
}

/*
 * The peak and at-end allocated bytes of iterations [@p from, it->n) into
 * new arrays *@p peak and *@p end (the highest over the GPUs), both NULL when
 * the trace has no GPU memory event or an iteration has no value.
 */
static int iter_memory(const struct gp_trace *t, const struct iters *it, size_t from, double **peak,
                       double **end)
{
	struct gp__memcurve mc;
	size_t n = it->n - from, i, d;
	double *p = NULL, *e = NULL;
	int rc = 0;

	*peak = *end = NULL;
	if (!t->nmem)
		return 0;
	GP_TRY(gp__memcurve_build(t, &mc));
	if (!mc.ndev || mc.dev[0].type != 1)
		goto out; /* GPUs come first: none */
	if (!(p = gp__reallocarray(NULL, n, sizeof(*p))) ||
	    !(e = gp__reallocarray(NULL, n, sizeof(*e))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < n; i++) {
		const struct ivl *h = &it->host[from + i];
		bool any = false;

		for (d = 0; d < mc.ndev && mc.dev[d].type == 1; d++) {
			int64_t dp, de;

			if (!gp__memcurve_window(&mc, d, h->start, h->end, &dp, &de))
				continue;
			/* a running sum of Bytes can dip below where recording began */
			dp = dp > 0 ? dp : 0;
			de = de > 0 ? de : 0;
			if (!any || (double)dp > p[i])
				p[i] = (double)dp;
			if (!any || (double)de > e[i])
				e[i] = (double)de;
			any = true;
		}
		if (!any)
			goto out; /* this iteration has none: the series has no memory */
	}
	*peak = p;
	*end = e;
	p = e = NULL;
out:
	gp__free(p);
	gp__free(e);
	gp__memcurve_release(&mc);
	return rc;
}

/* the message of a capture's domain range name, or the name itself */
static bool name_is(const struct gp_trace *t, uint32_t id, const char *want)
{
	uint64_t v;

	if (strcmp(gp__strtab_get(&t->strs, id), want) == 0)
		return true;
	return gp__u64map_get(&t->nvtx_names, id, &v) == 1 &&
	       strcmp(gp__strtab_get(&t->strs, (uint32_t)v), want) == 0;
}

/* ranges (marks = false) or frames between marks (marks = true) named @p name */
static int from_events(const struct gp_trace *t, const char *name, bool marks, struct iters *it)
{
	struct gp_kv *idx = NULL; /* by start time, the event index */
	size_t n = 0, cap = 0, nops = 0, bcap = 0, i;
	struct op *ops = NULL;
	struct ivl *buf = NULL;
	int rc = 0;

	for (i = 0; i < t->ev.n; i++) {
		bool mark = (t->ev.flags[i] & GP_EVF_MARK) != 0;

		if (marks != mark || (!marks && t->ev.kind[i] != GP_K_USER_ANNOTATION) ||
		    !name_is(t, t->ev.name[i], name))
			continue;
		if (gp__grow((void **)&idx, &cap, n + 1, sizeof(*idx)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		idx[n].key = t->ev.ts[i];
		idx[n++].val = i;
	}
	GP_TRY(gp__sort_kv(idx, n));
	GP_TRY(gpu_ops(t, &ops, &nops));
	it->has_gpu = nops > 0;
	for (i = 0; i + (marks ? 1 : 0) < n; i++) {
		int64_t s = idx[i].key;
		int64_t e = marks ? idx[i + 1].key : s + t->ev.dur[idx[i].val];
		double g = 0;

		if (e <= s)
			continue; /* two marks at one instant, or an empty range */
		GP_TRY(gpu_time(ops, nops, s, e, &buf, &bcap, &g));
		GP_TRY(push_iter(it, (double)(e - s), g, s, e));
	}
out:
	gp__free(idx);
	gp__free(ops);
	gp__free(buf);
	return rc;
}

#define NAMES_LISTED 12 /* names an error lists at most */

/*
 * Appends the distinct names of the trace's ranges (@p marks false) or marks
 * to @p b, "a, b, c", at most NAMES_LISTED then how many more; "none".
 */
static int names_list(const struct gp_trace *t, bool marks, struct gp_buf *b)
{
	struct gp_u64map seen;
	size_t i, k = 0;
	int rc;

	if ((rc = gp__u64map_init(&seen, 64)))
		return rc;
	for (i = 0; i < t->ev.n; i++) {
		bool mark = (t->ev.flags[i] & GP_EVF_MARK) != 0;
		uint32_t id = t->ev.name[i];
		uint64_t v;
		size_t before;

		if (marks != mark || (!marks && t->ev.kind[i] != GP_K_USER_ANNOTATION))
			continue;
		/* a capture's range in a named domain answers to its message too */
		if (gp__u64map_get(&t->nvtx_names, id, &v) == 1)
			id = (uint32_t)v;
		before = seen.n;
		if ((rc = gp__u64map_put_new(&seen, id, 0, NULL)))
			goto out;
		if (seen.n == before)
			continue;
		if (k < NAMES_LISTED)
			GP_TRY(
			    gp__buf_addf(b, "%s'%s'", k ? ", " : "", gp__strtab_get(&t->strs, id)));
		k++;
	}
	if (k > NAMES_LISTED)
		GP_TRY(gp__buf_addf(b, " and %zu more", k - NAMES_LISTED));
	if (!k)
		GP_TRY(gp__buf_addstr(b, "none"));
out:
	gp__u64map_release(&seen);
	return rc;
}

/* the complete ProfilerStep#N steps of the analysis */
static int from_steps(const struct gp_trace *t, int64_t rank, struct iters *it)
{
	struct gp_analyze_opts ao = { .size = sizeof(ao), .top = 1, .only_rank = -1 };
	struct gp_value *r = NULL;
	const struct gp_value *steps;
	int rc;

	ao.threads = 1;
	if ((rc = gp_analyze_trace(t, &ao, rank, &r)))
		return rc;
	steps = gp_obj_get(r, "steps");
	for (size_t i = 0; i < gp_value_len(steps); i++) {
		const struct gp_value *s = gp_arr_get(steps, i);
		int64_t d = 0, g = 0, hs = 0, hd = 0;

		if (gp_value_get_bool(gp_obj_get(s, "incomplete"), false) ||
		    gp_value_get_int(gp_obj_get(s, "number"), &d) == false)
			continue; /* incomplete, or the whole trace standing in for a step */
		if (!gp_value_get_int(gp_obj_get(s, "dur_ns"), &d) || d <= 0)
			continue;
		if (gp_value_get_int(gp_obj_get(s, "gpu_busy_ns"), &g))
			it->has_gpu = true;
		gp_value_get_int(gp_obj_get(s, "host_start_ns"), &hs);
		gp_value_get_int(gp_obj_get(s, "host_dur_ns"), &hd);
		if ((rc = push_iter(it, (double)d, (double)g, hs, hs + hd)))
			break;
	}
	gp_value_free(r);
	return rc;
}

int gp__bench_add_trace(struct gp_bench *b, const struct gp_trace *t, const char *path,
                        int64_t rank, bool several, const struct gp_bench_iter_opts *o)
{
	struct iters it;
	double *peak = NULL, *end = NULL;
	const char *what;
	char name[512], rate[256];
	size_t w;
	int rc = 0, si;

	memset(&it, 0, sizeof(it));
	if (o->frame_mark) {
		what = o->frame_mark;
		GP_TRY(from_events(t, o->frame_mark, true, &it));
	} else if (o->iter_range) {
		what = o->iter_range;
		GP_TRY(from_events(t, o->iter_range, false, &it));
	} else {
		what = "ProfilerStep";
		GP_TRY(from_steps(t, rank, &it));
	}
	if (!it.n) {
		struct gp_buf nb;

		gp__buf_init(&nb, 0);
		if ((o->frame_mark || o->iter_range) && (rc = names_list(t, o->frame_mark, &nb))) {
			gp__buf_release(&nb);
			goto out;
		}
		if (o->frame_mark)
			rc = gp__error(GP_ENOENT, "%s: fewer than two marks '%s' (marks: %s)", path,
			               what, nb.buf);
		else if (o->iter_range)
			rc = gp__error(GP_ENOENT, "%s: no range '%s' (ranges: %s)", path, what,
			               nb.buf);
		else
			rc = gp__error(GP_ENOENT,
			               "%s: no complete ProfilerStep#N: name the iterations with "
			               "--iter-range NAME or --frame-mark NAME",
			               path);
		gp__buf_release(&nb);
		goto out;
	}
	if (o->warmup >= it.n)
		GP_TRY(gp__error(GP_EINVAL,
		                 "%s: %zu iterations of '%s', all within the warm-up of %u", path,
		                 it.n, what, o->warmup));
	w = o->warmup;
	if (several)
		snprintf(name, sizeof(name), "%s [rank %lld]", what, (long long)rank);
	else
		snprintf(name, sizeof(name), "%s", what);
	if (o->rate_name)
		snprintf(rate, sizeof(rate), "%s", o->rate_name);
	else if (o->frame_mark)
		snprintf(rate, sizeof(rate), "FPS");
	else if (!o->iter_range)
		snprintf(rate, sizeof(rate), "steps/s");
	else
		snprintf(rate, sizeof(rate), "%s/s", what);
	GP_TRY(iter_memory(t, &it, w, &peak, &end));
	si = gp_bench_add(b, name, rate, o->batch_size > 0 ? o->batch_size : 1, (uint32_t)w,
	                  it.times + w, it.n - w, it.has_gpu ? it.gpu + w : NULL, peak, NULL);
	GP_TRY(si);
	if (end)
		GP_TRY(gp_bench_memory_at_end(b, si, end, it.n - w));
	if (w)
		GP_TRY(gp_bench_warmup_times(b, si, it.times, w));
out:
	gp__free(it.times);
	gp__free(it.gpu);
	gp__free(it.host);
	gp__free(peak);
	gp__free(end);
	return rc;
}

static int add_file(struct gp_bench *b, const struct gp__src *src, int64_t order, bool several,
                    const struct gp_bench_iter_opts *o)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	const char *path = src->is_stdin ? "<stdin>" : src->path;
	struct gp_trace *t = NULL;
	int64_t rank;
	int rc;

	if ((rc = gp__src_open_trace(src, &oo, &t)))
		return rc;
	rank = t->rank >= 0 ? t->rank : src->rank;
	if (rank < 0)
		rank = order;
	if (o->only_rank >= 0 && rank != o->only_rank)
		goto out;
	if (!o->iter_range && !o->frame_mark && !o->nranges && !o->nmarks) {
		rc = gp__bench_add_trace(b, t, path, rank, several, o);
		goto out;
	}
	/* one series per range or mark name */
	for (size_t k = 0; !rc && k < 2 + o->nranges + o->nmarks; k++) {
		struct gp_bench_iter_opts one = *o;

		one.iter_range = one.frame_mark = NULL;
		if (k == 0)
			one.iter_range = o->iter_range;
		else if (k == 1)
			one.frame_mark = o->frame_mark;
		else if (k - 2 < o->nranges)
			one.iter_range = o->ranges[k - 2];
		else
			one.frame_mark = o->marks[k - 2 - o->nranges];
		if (one.iter_range || one.frame_mark)
			rc = gp__bench_add_trace(b, t, path, rank, several, &one);
	}
out:
	gp_trace_free(t);
	return rc;
}

GP_API int gp_bench_add_paths(struct gp_bench *b, const char *const *paths, size_t n,
                              const struct gp_bench_iter_opts *opts)
{
	struct gp_bench_iter_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct gp__srcs srcs;
	size_t i, k = 0, ntraces;
	int rc = 0;

	memset(&srcs, 0, sizeof(srcs));
	if (!b || !paths || !n)
		return gp__error(GP_EINVAL, "no input");
	if ((rc = GP__OPTS_VALID(opts, struct gp_bench_iter_opts)))
		return rc;
	GP__OPTS_COPY(&o, opts);
	for (i = 0; i < n; i++)
		GP_TRY(gp_bench_source_arg(b, paths[i]));
	GP_TRY(gp__srcs_resolve(paths, n, GP_SRC_ALLOW_STDIN, &srcs));
	/* a run directory's run.json and metrics hold no iterations */
	GP_TRY(gp__srcs_keep(&srcs, GP_SRC_RUN_INPUTS, "bench"));
	ntraces = gp__srcs_count(&srcs, GP_SRC_TRACES);
	/* for a caller with a log callback (gp_set_log()): what the directories held besides */
	if (srcs.skipped)
		gp__log(GP_LOG_WARN, "%s", srcs.skipped);
	if (!ntraces)
		GP_TRY(gp__error(GP_ENOENT, "'%s': no trace or capture to take iterations from",
		                 paths[0]));
	for (i = 0; i < srcs.n; i++)
		if (GP_SRC_TRACES & 1u << srcs.v[i].kind)
			GP_TRY(add_file(b, &srcs.v[i], (int64_t)k++, ntraces > 1, &o));
out:
	gp__srcs_release(&srcs);
	return rc;
}
