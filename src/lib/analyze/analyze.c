/* SPDX-License-Identifier: MIT */
/*
 * analyze.c - the analyze entry points: one trace -> one rank object; many
 * paths -> the whole report.
 *
 * Files are read and analysed by a small pool of threads, each trace freed
 * as soon as its rank object is built, so memory holds one trace per worker.
 * Ranks come from distributedInfo.rank, else from the file name, else from
 * the order given; the report lists them sorted by rank.
 *
 * gp_analyze_paths_json() and gp_analyze_paths_text() do not hold the rank
 * objects until every file is read: a worker writes each one's JSON (or text,
 * format.h) into a spool (util/spool.h) and frees it, and the report's ranks
 * are copied out of the spool in rank order once the order is known (a rank
 * is only known once its file is read).
 */
#include "gpuprof/analyze.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze-int.h"
#include "analyze-srcs.h"
#include "format.h"
#include "memsnap.h"
#include "metrics.h"
#include "source/source.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/pool.h"
#include "util/spool.h"
#include "util/spare.h"
#include "util/value-int.h"

/*
 * The sections as tasks that share nothing but the (read-only) context. On a
 * large trace two threads take the tasks in this order, the usually longest
 * first (measured with callgrind on the shared traces: the critical path
 * costs about as much as all the others together, so it starts at once on
 * one thread while the other takes the rest), each into its own object,
 * merged into the rank object before findings (the last task), which reads
 * them all: a thread that is done takes the next task, so the two end together whatever the trace's
 * mix. memory.c reads the steps' incomplete flags in the same object, so memory is part of the
 * steps task.
 */
enum { TASK_LAST = 10 };

static const struct {
	const char *name;
	int (*fn)(const struct gp__actx *c, struct gp_value *r);
	unsigned task;
} sections[] = {
	{ "critical_path", gp__an_critpath, 0 },
	{ "steps", gp__an_steps, 1 },
	{ "memory", gp__an_memory, 1 },
	{ "summaries", gp__an_summaries, 2 },
	{ "roofline", gp__an_roofline, 3 },
	{ "launches", gp__an_launches, 4 },
	{ "gpu", gp__an_gpu, 5 },
	{ "modules", gp__an_modules, 6 },
	{ "counters", gp__an_counters, 7 },
	{ "collectives", gp__an_collectives, 7 },
	{ "timeline", gp__an_timeline, 8 },
	{ "overview", gp__an_overview, 9 },
	{ "findings", gp__an_findings, TASK_LAST },
};

/* events from which the second thread pays for itself */
#define PARALLEL_MIN_EVENTS 20000

/* the tasks both threads take from */
struct tasks {
	atomic_uint next;   /* the next task to take */
	atomic_bool failed; /* a task failed: take no more */
};

/* the spare thread's share of the tasks, into an object of its own */
struct spare_tasks {
	const struct gp__actx *c;
	struct tasks *tk;
	struct gp_value *obj;
	int rc;
	char err[1024];
};

/* runs the sections of task @p k into @p r */
static int run_task(const struct gp__actx *c, unsigned k, struct gp_value *r)
{
	size_t i;
	int rc;

	for (i = 0; i < GP_ARRAY_SIZE(sections); i++) {
		if (sections[i].task != k)
			continue;
		rc = sections[i].fn(c, r);
		if (rc) {
			gp__error_prefix("%s: %s analysis", c->t->path, sections[i].name);
			return rc;
		}
	}
	return 0;
}

/* takes tasks until none is left (or one failed), running them into @p r */
static int take_tasks(const struct gp__actx *c, struct tasks *tk, struct gp_value *r)
{
	for (;;) {
		unsigned k = atomic_fetch_add(&tk->next, 1);
		int rc;

		if (k >= TASK_LAST || atomic_load(&tk->failed))
			return 0;
		if ((rc = run_task(c, k, r))) {
			atomic_store(&tk->failed, true);
			return rc;
		}
	}
}

static void spare_tasks_main(void *arg)
{
	struct spare_tasks *st = arg;

	st->rc = take_tasks(st->c, st->tk, st->obj);
	if (st->rc)
		snprintf(st->err, sizeof(st->err), "%s", gp_last_error());
}

/* runs every task but the last, on two threads when @p spare is non-NULL */
static int run_tasks(const struct gp__actx *c, struct gp_spare *spare, struct gp_value *r)
{
	struct spare_tasks st = { .c = c };
	struct tasks tk;
	int rc;

	atomic_init(&tk.next, 0);
	atomic_init(&tk.failed, false);
	if (spare)
		st.obj = gp_value_object();
	if (!st.obj)
		return take_tasks(c, &tk, r);
	st.tk = &tk;
	gp__spare_run(spare, spare_tasks_main, &st);
	rc = take_tasks(c, &tk, r);
	gp__spare_wait(spare);
	if (!rc && st.rc)
		rc = gp__error(st.rc, "%s", st.err);
	if (rc) {
		gp_value_free(st.obj);
		return rc;
	}
	return gp__obj_move_members(r, st.obj);
}

static int analyze_trace(const struct gp_trace *t, const struct gp_analyze_opts *opts,
                         int64_t rank_hint, bool may_thread, struct gp_value **out)
{
	struct gp_analyze_opts o = { .size = sizeof(o) };
	struct gp__actx c;
	struct gp_value *r = NULL;
	struct gp_spare *spare = NULL;
	uint64_t off, lost;
	int rc = 0;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	if (!t)
		return gp__error(GP_EINVAL, "no trace");
	GP_TRY(GP__OPTS_VALID(opts, struct gp_analyze_opts));
	GP__OPTS_COPY(&o, opts);
	/*
	 * The spare thread starts before the context is built: a thread started
	 * on an idle CPU of a VM begins up to a host tick later (0-4 ms measured),
	 * and it is first needed for the context's sorts.
	 */
	if (may_thread && t->ev.n >= PARALLEL_MIN_EVENTS && o.threads != 1 &&
	    sysconf(_SC_NPROCESSORS_ONLN) > 1)
		spare = gp__spare_start();
	GP_TRY(gp__actx_init_with(&c, t, &o, t->rank >= 0 ? t->rank : rank_hint, spare));
	r = gp_value_object();
	if (!r)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(r, "rank", c.rank));
	GP_TRY(gp_obj_set_str(r, "file", t->path));
	if (gp_trace_salvage(t, &off, &lost)) {
		struct gp_value *s = gp_value_object();

		GP_TRY(gp_obj_set(r, "salvage", s));
		GP_TRY(gp_obj_set_int(s, "damage_offset", (int64_t)off));
		GP_TRY(gp_obj_set_int(s, "lost_bytes", (int64_t)lost));
		GP_TRY(gp_obj_set_int(s, "events_kept", (int64_t)t->ev.n));
	} else {
		GP_TRY(gp_obj_set_null(r, "salvage"));
	}
	GP_TRY(run_tasks(&c, spare, r));
	gp__spare_stop(spare);
	spare = NULL;
	GP_TRY(run_task(&c, TASK_LAST, r));
	GP_TRY(gp__summaries_trim(r, o.top));
out:
	gp__spare_stop(spare);
	gp__actx_release(&c);
	if (rc) {
		gp_value_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

GP_API int gp_analyze_trace(const struct gp_trace *t, const struct gp_analyze_opts *opts,
                            int64_t rank_hint, struct gp_value **out)
{
	return analyze_trace(t, opts, rank_hint, true, out);
}

GP_API int gp_analyze_trim(struct gp_value *report, uint32_t top)
{
	struct gp_value *ranks = gp__obj_get_mut(report, "ranks");
	size_t i;
	int rc;

	if (gp_value_type(ranks) != GP_VALUE_ARRAY)
		return gp__error(GP_EINVAL, "gp_analyze_trim: not a report");
	for (i = 0; i < gp_value_len(ranks); i++)
		if ((rc = gp__summaries_trim((struct gp_value *)gp_arr_get(ranks, i), top)))
			return rc;
	return 0;
}

/* ---- many paths ---- */

struct job {
	const struct gp__src *src; /* a trace or a capture, from a file or standard input */
	const char *path;
	int64_t name_rank; /* rank from the file name, -1 none */
	size_t order;
	bool may_thread; /* a spare CPU for its sections */
	/* results */
	int rc;
	char err[1024];
	int64_t rank;
	bool claimed; /* the rank came from the trace or the file name, not the order */
	struct gp_value *val;
	struct gp_value *tags;      /* the capture's META tags (gpuprof run --tag), or NULL */
	struct gp__spool_span span; /* its text in the spool, where there is one */
};

/* gp_analyze_paths_json(), _text(): the rank objects as text in a spool, in rank order */
struct spooled {
	unsigned flags; /* the JSON's (GP_JSON_PRETTY) */
	/* gp_analyze_paths_text(): the text's options, and a report head giving its "compat" */
	const struct gp_analyze_format_opts *text;
	const struct gp_value *head;
	struct gp__spool *spool;
	struct gp__spool_span *spans; /* of the report's ranks, in order */
	size_t n;
};

struct pool {
	struct job *jobs;
	const struct gp_analyze_opts *opts;
	gp__analyze_each_fn each; /* NULL: the rank objects go into the report */
	void *each_arg;
	struct spooled *sp; /* non-NULL: they go into its spool, and a summary into the report */
};

static int add_job(struct job **jobs, size_t *n, size_t *cap, const struct gp__src *src)
{
	int rc;

	if ((rc = gp__grow((void **)jobs, cap, *n + 1, sizeof(**jobs))))
		return rc;
	memset(&(*jobs)[*n], 0, sizeof(**jobs));
	(*jobs)[*n].src = src;
	(*jobs)[*n].path = src->is_stdin ? "<stdin>" : src->path;
	(*jobs)[*n].name_rank = src->rank;
	(*jobs)[*n].order = *n;
	(*n)++;
	return 0;
}

static void run_job(struct job *j, const struct gp_analyze_opts *opts)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	int64_t hint = j->name_rank >= 0 ? j->name_rank : (int64_t)j->order;

	oo.salvage = opts->salvage;
	/* a spare CPU also goes to reading the file (two halves, or gzip ahead) */
	oo.threads = j->may_thread ? 0 : 1;
	j->rc = gp__src_open_trace(j->src, &oo, &t);
	if (!j->rc) {
		const struct gp_value *tags =
		    gp_obj_get(gp_obj_get(t->meta, "gpuprof_capture"), "tags");

		/* tags are the run's, whichever rank is analysed; a failed clone only loses them */
		if (gp_value_type(tags) == GP_VALUE_OBJECT)
			j->tags = gp_value_clone(tags);
		j->rank = t->rank >= 0 ? t->rank : hint;
		j->claimed = t->rank >= 0 || j->name_rank >= 0;
		if (opts->only_rank >= 0 && j->rank != opts->only_rank) {
			gp_trace_free(t);
			return;
		}
		j->rc = analyze_trace(t, opts, hint, j->may_thread, &j->val);
		/*
		 * A capture of a run without a launcher has no rank: its number is
		 * only its order, and the process is what it is (by pid).
		 */
		if (!j->rc && t->rank < 0 && j->name_rank < 0 && j->src->kind == GP_SRC_CAPTURE &&
		    j->src->pid > 0) {
			char label[48];

			snprintf(label, sizeof(label), "process %lld", (long long)j->src->pid);
			if (gp_obj_set_str(j->val, "label", label))
				j->rc = gp__error(GP_ENOMEM, "out of memory");
		}
	}
	if (j->rc)
		snprintf(j->err, sizeof(j->err), "%s", gp_last_error());
	gp_trace_free(t);
}

/* the report's "compat" */
static const char *compat_name(int compat)
{
	return compat == GP_COMPAT_HTA ? "hta" : compat == GP_COMPAT_TB ? "tb" : "none";
}

/* the members of a rank object that stay in the report when its text is spooled */
static const char *const summary_keys[] = { "file", "label", "rank", "salvage" };

/* a new object of the summary_keys[] of @p rank, or NULL (out of memory) */
static struct gp_value *summary_of(const struct gp_value *rank)
{
	struct gp_value *sum = gp_value_object();
	size_t k;

	for (k = 0; sum && k < GP_ARRAY_SIZE(summary_keys); k++) {
		const struct gp_value *x = gp_obj_get(rank, summary_keys[k]);

		if (x && gp_obj_set(sum, summary_keys[k], gp_value_clone(x))) {
			gp_value_free(sum);
			sum = NULL;
		}
	}
	return sum;
}

/*
 * Writes the rank object of @p j into the spool as the report's text holds it
 * (an item of "ranks" at depth 2 of the JSON, or its section of the text) and
 * keeps of it only its summary.
 */
static int spool_rank(struct spooled *sp, struct job *j)
{
	struct gp_value *sum;
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	if (sp->text)
		GP_TRY(gp__analyze_format_rank(sp->head, j->val, sp->text, &text, &len));
	else
		GP_TRY(gp__value_to_json_at(j->val, sp->flags, 2, &text, &len));
	GP_TRY(gp__spool_put(sp->spool, text, len, &j->span));
	if (!(sum = summary_of(j->val)))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	gp_value_free(j->val);
	j->val = sum;
out:
	gp__free(text);
	return rc;
}

static void worker(void *arg, size_t i)
{
	struct pool *p = arg;
	struct job *j = &p->jobs[i];

	run_job(j, p->opts);
	if (p->sp && !j->rc && j->val && (j->rc = spool_rank(p->sp, j)))
		snprintf(j->err, sizeof(j->err), "%s", gp_last_error());
	/* handed over and freed at once: memory holds one rank object per worker */
	if (p->each && !j->rc && j->val) {
		if ((j->rc = p->each(p->each_arg, j->val, j->path)))
			snprintf(j->err, sizeof(j->err), "%s", gp_last_error());
		gp_value_free(j->val);
		j->val = NULL;
	}
}

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* appends ", R" for each rank read (@p jobs sorted by rank), "none" when there is none */
static int list_ranks(const struct job *jobs, size_t n, struct gp_buf *b)
{
	size_t i, k = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		if (jobs[i].rc || (i && jobs[i - 1].rank == jobs[i].rank))
			continue;
		GP_TRY(gp__buf_addf(b, "%s%lld", k++ ? ", " : "", (long long)jobs[i].rank));
	}
	if (!k)
		GP_TRY(gp__buf_addstr(b, "none"));
out:
	return rc;
}

/*
 * Inputs that claim the same rank (by their metadata or name; @p jobs sorted
 * by rank): a warning each, into @p warnings. With --rank R, two inputs of
 * rank R, claimed or numbered by their order, are an error.
 */
static int same_ranks(const struct job *jobs, size_t n, int64_t only, struct gp_value *warnings)
{
	struct gp_buf b;
	size_t i, j, k, nclaim;
	int rc = 0;

	gp__buf_init(&b, 0);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && jobs[j].rank == jobs[i].rank; j++)
			;
		if (j - i < 2)
			continue;
		for (k = i, nclaim = 0; k < j; k++)
			nclaim += jobs[k].claimed;
		gp__buf_reset(&b);
		for (k = i; k < j; k++)
			GP_TRY(gp__buf_addf(&b, "%s'%s'", k > i ? ", " : "", jobs[k].path));
		if (only == jobs[i].rank)
			GP_TRY(gp__error(GP_EINVAL, "--rank %lld matches more than one input: %s",
			                 (long long)only, b.buf));
		if (nclaim < 2)
			continue;
		gp__buf_reset(&b);
		GP_TRY(gp__buf_addf(&b, "%zu inputs claim rank %lld:", nclaim,
		                    (long long)jobs[i].rank));
		for (k = i, nclaim = 0; k < j; k++)
			if (jobs[k].claimed)
				GP_TRY(
				    gp__buf_addf(&b, "%s '%s'", nclaim++ ? "," : "", jobs[k].path));
		GP_TRY(gp__buf_addstr(&b, " (by their metadata or file names)"));
		GP_TRY(gp_arr_push(warnings, gp_value_str(b.buf)));
	}
out:
	gp__buf_release(&b);
	return rc;
}

/* a copy of member @p key of @p from into @p to, null when absent */
static int copy_member(struct gp_value *to, const struct gp_value *from, const char *key)
{
	const struct gp_value *v = gp_obj_get(from, key);

	return gp_obj_set(to, key, v ? gp_value_clone(v) : gp_value_null());
}

/*
 * A run directory without any capture (CMD used no CUDA, or the tracer was
 * not injected): "run", what run.json says of the run, and
 * "no_gpu_timeline", the one line saying why there is no GPU timeline.
 */
static int run_without_capture(struct gp_value *report, const char *dir)
{
	static const char *const keys[] = { "command",   "cwd",         "end_time", "environment",
		                            "exit_code", "exit_signal", "hostname", "start_time",
		                            "state",     "wall_ns" };
	const struct gp_value *inj, *rep;
	struct gp_value *run = NULL, *r;
	const char *why = NULL, *inj_why;
	struct gp_buf b;
	size_t i;
	int rc = 0;

	gp__buf_init(&b, 0);
	GP_TRY(gp__run_json_read(dir, &run));
	if (!(r = gp_value_object()) || gp_obj_set(report, "run", r))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_str(r, "dir", dir));
	for (i = 0; i < GP_ARRAY_SIZE(keys); i++)
		GP_TRY(copy_member(r, run, keys[i]));
	inj = gp_obj_get(run, "injector");
	rep = gp_obj_get(run, "report");
	inj_why = gp_value_get_str(gp_obj_get(inj, "reason"));
	if (inj_why)
		GP_TRY(gp__buf_addf(&b, "no capture: the tracer was not injected (%s)", inj_why));
	else if ((why = gp_value_get_str(gp_obj_get(rep, "error"))))
		GP_TRY(gp__buf_addstr(&b, why));
	else
		GP_TRY(gp__buf_addstr(&b, "no capture file: the program used neither CUDA nor NVTX "
		                          "(or capture was off)"));
	GP_TRY(gp_obj_set_str(report, "no_gpu_timeline", b.buf));
out:
	gp__buf_release(&b);
	gp_value_free(run);
	return rc;
}

/*
 * The report of @p srcs; with @p each, its rank objects go there instead; with @p sp, into
 * sp's spool when there are two or more (and no run directory, whose captures the report
 * amends after they are all read), with a summary of each in the report.
 */
static int analyze_srcs(struct gp__srcs *srcs, const struct gp_analyze_opts *opts,
                        gp__analyze_each_fn each, void *each_arg, struct spooled *sp,
                        struct gp_value **out)
{
	struct gp_analyze_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct job *jobs = NULL;
	size_t njobs = 0, cap = 0, i, nthreads;
	long ncpu;
	struct gp_value *report = NULL, *ranks, *warnings = NULL;
	const char *run_dir = NULL;
	struct pool pool;
	struct gp_buf b;
	int rc = 0;

	*out = NULL;
	gp__buf_init(&b, 0);
	GP_TRY(GP__OPTS_VALID(opts, struct gp_analyze_opts));
	GP__OPTS_COPY(&o, opts);
	GP_TRY(gp__srcs_keep(srcs, GP__ANALYZE_KINDS, "analyze"));
	for (i = 0; i < srcs->n; i++) {
		if (GP_SRC_TRACES & 1u << srcs->v[i].kind)
			GP_TRY(add_job(&jobs, &njobs, &cap, &srcs->v[i]));
		else if (srcs->v[i].kind == GP_SRC_RUN_DIR && !run_dir)
			run_dir = srcs->v[i].path;
	}
	/* a directory of files that are none of these: nothing to analyse */
	if (!srcs->n)
		GP_TRY(gp__error(GP_ENOENT, "no trace among the inputs (%s)",
		                 srcs->skipped ? srcs->skipped : "none"));

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	nthreads = o.threads ? o.threads : (size_t)(ncpu > 0 ? ncpu : 1);
	if (nthreads < 1)
		nthreads = 1;
	/* spare CPUs go to the sections of each file (fewer files than CPUs) */
	for (i = 0; i < njobs; i++)
		jobs[i].may_thread = njobs < nthreads;
	if (nthreads > njobs)
		nthreads = njobs;
	memset(&pool, 0, sizeof(pool));
	pool.jobs = jobs;
	pool.opts = &o;
	pool.each = each;
	pool.each_arg = each_arg;
	/* no spool where there is no file to write one in: the ranks stay in memory */
	if (sp && njobs > 1 && !run_dir && !gp__spool_open(&sp->spool))
		pool.sp = sp;
	gp__pool_run(njobs, nthreads, worker, &pool);

	for (i = 0; i < njobs; i++) {
		if (jobs[i].rc) {
			rc = gp__error(jobs[i].rc, "%s", jobs[i].err);
			goto out;
		}
	}
	if (njobs > 1)
		qsort(jobs, njobs, sizeof(*jobs), cmp_job);

	report = gp_value_object();
	ranks = gp_value_array();
	warnings = gp_value_array();
	if (!report || !ranks || !warnings) {
		gp_value_free(ranks);
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	GP_TRY(gp_obj_set(report, "ranks", ranks));
	GP_TRY(gp_obj_set_str(report, "schema", GP_ANALYZE_SCHEMA));
	GP_TRY(gp_obj_set_str(report, "compat", compat_name(o.compat)));
	GP_TRY(gp_obj_set_str(report, "gpuprof_version", gp_version()));
	if (srcs->skipped)
		GP_TRY(gp_arr_push(warnings, gp_value_str(srcs->skipped)));
	GP_TRY(same_ranks(jobs, njobs, o.only_rank, warnings));
	if (pool.sp && !(sp->spans = gp__calloc(njobs, sizeof(*sp->spans))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < njobs; i++) {
		if (!jobs[i].val)
			continue;
		GP_TRY(gp_arr_push(ranks, jobs[i].val));
		jobs[i].val = NULL;
		if (pool.sp)
			sp->spans[sp->n++] = jobs[i].span;
	}
	if (!gp_value_len(ranks) && o.only_rank >= 0) {
		GP_TRY(list_ranks(jobs, njobs, &b));
		GP_TRY(gp__error(GP_ENOENT, "no trace of rank %lld among the inputs (ranks: %s)",
		                 (long long)o.only_rank, b.buf));
	}
	if (!njobs && run_dir)
		GP_TRY(run_without_capture(report, run_dir));
	/* "tags" and "metrics" of run directories and metrics timelines (metrics.c) */
	GP_TRY(gp__an_run_dirs(report, srcs));
	for (i = 0; i < njobs; i++)
		GP_TRY(gp__tags_merge(report, jobs[i].tags));
	/* only when there is something to say: reports without stay as they were */
	if (gp_value_len(warnings)) {
		GP_TRY(gp_obj_set(report, "warnings", warnings));
		warnings = NULL;
	}
out:
	for (i = 0; i < njobs; i++) {
		gp_value_free(jobs[i].val);
		gp_value_free(jobs[i].tags);
	}
	gp__free(jobs);
	gp_value_free(warnings);
	gp__buf_release(&b);
	if (rc) {
		gp_value_free(report);
		return rc;
	}
	*out = report;
	return 0;
}

int gp__analyze_srcs(struct gp__srcs *srcs, const struct gp_analyze_opts *opts,
                     struct gp_value **out)
{
	return analyze_srcs(srcs, opts, NULL, NULL, NULL, out);
}

int gp__analyze_srcs_each(struct gp__srcs *srcs, const struct gp_analyze_opts *opts,
                          gp__analyze_each_fn each, void *arg, struct gp_value **out)
{
	return analyze_srcs(srcs, opts, each, arg, NULL, out);
}

static int analyze_paths(const char *const *paths, size_t n, const struct gp_analyze_opts *opts,
                         struct spooled *sp, struct gp_value **out)
{
	struct gp__srcs srcs;
	int rc;

	*out = NULL;
	if (!n)
		return gp__error(GP_EINVAL, "no input files");
	if ((rc = gp__srcs_resolve(paths, n, GP_SRC_ALLOW_STDIN, &srcs)) == 0) {
		/* a memory snapshot is no trace: its own document (memsnap.h), read alone */
		if (gp__srcs_count(&srcs, 1u << GP_SRC_SNAPSHOT) && srcs.n > 1)
			rc = gp__error(GP_EINVAL, "a memory snapshot is analysed alone, not with "
			                          "other inputs");
		else if (gp__srcs_count(&srcs, 1u << GP_SRC_SNAPSHOT))
			rc = gp__memsnap_read(&srcs.v[0], GP__OPTS_GET(opts, top, 0), out);
		else
			rc = analyze_srcs(&srcs, opts, NULL, NULL, sp, out);
	}
	gp__srcs_release(&srcs);
	return rc;
}

GP_API int gp_analyze_paths(const char *const *paths, size_t n, const struct gp_analyze_opts *opts,
                            struct gp_value **out)
{
	if (!out)
		return gp__error(GP_EINVAL, "gp_analyze_paths: NULL argument");
	return analyze_paths(paths, n, opts, NULL, out);
}

/* gp__value_write_json_spliced()'s items: the spooled ranks */
static int spooled_item(void *user, size_t i, gp_write_fn write, void *wuser)
{
	struct spooled *sp = user;

	return gp__spool_copy(sp->spool, &sp->spans[i], write, wuser);
}

/* @p report (not NULL) with each rank reduced to its summary_keys[] */
static int summarize(struct gp_value *report)
{
	const struct gp_value *ranks = gp_obj_get(report, "ranks");
	struct gp_value *sums;
	size_t i;

	if (gp_value_type(ranks) != GP_VALUE_ARRAY)
		return 0;
	sums = gp_value_array();
	for (i = 0; sums && i < gp_value_len(ranks); i++)
		if (gp_arr_push(sums, summary_of(gp_arr_get(ranks, i)))) {
			gp_value_free(sums);
			sums = NULL;
		}
	if (!sums || gp_obj_set(report, "ranks", sums))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

/* gp_analyze_paths_json() and gp_analyze_paths_text(), as @p sp says */
static int paths_out(const char *const *paths, size_t n, const struct gp_analyze_opts *opts,
                     struct spooled *sp, gp_write_fn write, void *user, struct gp_value **summary)
{
	struct gp_value *report = NULL;
	int rc;

	if (summary)
		*summary = NULL;
	if (!write)
		return gp__error(GP_EINVAL, "gp_analyze_paths: no writer");
	rc = analyze_paths(paths, n, opts, sp, &report);
	if (!rc && sp->text && sp->spool)
		rc = gp__analyze_format_spliced(report, sp->text, sp->n, spooled_item, sp, write,
		                                user);
	else if (!rc && sp->text)
		rc = gp__analyze_format_write(report, sp->text, write, user);
	else if (!rc)
		rc = gp__value_write_json_spliced(report, sp->flags,
		                                  sp->spool ? gp_obj_get(report, "ranks") : NULL,
		                                  sp->n, spooled_item, sp, write, user);
	/* held whole (one trace, or no spool): the same summary as when spooled */
	if (!rc && summary && !sp->spool)
		rc = summarize(report);
	gp__spool_close(sp->spool);
	gp__free(sp->spans);
	if (!rc && summary)
		*summary = report;
	else
		gp_value_free(report);
	return rc;
}

GP_API int gp_analyze_paths_json(const char *const *paths, size_t n,
                                 const struct gp_analyze_opts *opts, unsigned flags,
                                 gp_write_fn write, void *user, struct gp_value **summary)
{
	struct spooled sp = { .flags = flags };

	return paths_out(paths, n, opts, &sp, write, user, summary);
}

GP_API int gp_analyze_paths_text(const char *const *paths, size_t n,
                                 const struct gp_analyze_opts *opts,
                                 const struct gp_analyze_format_opts *fopts, gp_write_fn write,
                                 void *user, struct gp_value **summary)
{
	static const struct gp_analyze_format_opts dflt = { .size = sizeof(dflt), .top = 10 };
	struct spooled sp = { .text = fopts ? fopts : &dflt };
	struct gp_value *head = gp_value_object();
	int rc;

	if (summary)
		*summary = NULL;
	if (!head || gp_obj_set_str(head, "compat", compat_name(GP__OPTS_GET(opts, compat, 0)))) {
		gp_value_free(head);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	sp.head = head;
	rc = paths_out(paths, n, opts, &sp, write, user, summary);
	gp_value_free(head);
	return rc;
}
