/* SPDX-License-Identifier: MIT */
/*
 * analyze.c - the analyze entry points: one trace -> one rank object; many
 * paths -> the whole report.
 *
 * Files are read and analysed by a small pool of threads, each trace freed
 * as soon as its rank object is built, so memory holds one trace per worker.
 * Ranks come from distributedInfo.rank, else from the file name, else from
 * the order given; the report lists them sorted by rank.
 */
#include "gpuprof/analyze.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze-int.h"
#include "metrics.h"
#include "trace/input.h"
#include "util/error.h"
#include "util/spin.h"
#include "util/value-int.h"

/*
 * The sections in two groups that share nothing but the (read-only) context:
 * on a large trace they run on two threads, each into its own object, merged
 * into the rank object before findings, which reads them all. memory.c reads
 * the steps' incomplete flags, so it runs after steps in the same group;
 * launches joins them there so that the two groups take about as long.
 */
enum { GROUP_A, GROUP_B, GROUP_LAST, NGROUPS };

static const struct {
	const char *name;
	int (*fn)(const struct gp__actx *c, struct gp_value *r);
	int group;
} sections[] = {
	{ "overview", gp__an_overview, GROUP_A },    { "gpu", gp__an_gpu, GROUP_A },
	{ "summaries", gp__an_summaries, GROUP_A },  { "launches", gp__an_launches, GROUP_B },
	{ "steps", gp__an_steps, GROUP_B },          { "memory", gp__an_memory, GROUP_B },
	{ "counters", gp__an_counters, GROUP_A },    { "timeline", gp__an_timeline, GROUP_B },
	{ "findings", gp__an_findings, GROUP_LAST },
};

/* events from which the second thread pays for itself */
#define PARALLEL_MIN_EVENTS 50000

/* the longest spin-wait for the other thread (util/spin.h); then it sleeps */
#define SPIN_NS (50u * 1000 * 1000)

/*
 * Group B's thread. It is started before the analysis context is built and
 * spins until the context is ready: a thread started on an idle CPU of a VM
 * begins up to a host tick later (0-4 ms measured), about as long as the
 * context takes, which so hides it. Then it runs the group into obj.
 */
struct group_run {
	const struct gp__actx *c;
	struct gp_value *obj; /* the group's sections */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_bool go;     /* c is set, or the run is cancelled */
	atomic_bool cancel; /* with go: end without running */
	atomic_bool done;   /* set by the thread as its last step */
	int rc;
	char err[1024];
};

static int run_group(const struct gp__actx *c, int group, struct gp_value *r)
{
	size_t i;
	int rc;

	for (i = 0; i < GP_ARRAY_SIZE(sections); i++) {
		if (sections[i].group != group)
			continue;
		rc = sections[i].fn(c, r);
		if (rc) {
			gp__error_prefix("%s: %s analysis", c->t->path, sections[i].name);
			return rc;
		}
	}
	return 0;
}

static void *group_thread(void *arg)
{
	struct group_run *g = arg;

	gp__spin_until(&g->go, SPIN_NS);
	pthread_mutex_lock(&g->mu);
	while (!atomic_load(&g->go))
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
	if (!atomic_load(&g->cancel)) {
		g->rc = run_group(g->c, GROUP_B, g->obj);
		if (g->rc)
			snprintf(g->err, sizeof(g->err), "%s", gp_last_error());
	}
	atomic_store_explicit(&g->done, true, memory_order_release);
	return NULL;
}

/* starts group B's thread, to wait for group_go(); false when it could not */
static bool group_start(struct group_run *g)
{
	memset(g, 0, sizeof(*g));
	g->obj = gp_value_object();
	if (!g->obj)
		return false;
	atomic_init(&g->go, false);
	atomic_init(&g->cancel, false);
	atomic_init(&g->done, false);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	if (pthread_create(&g->tid, NULL, group_thread, g) == 0)
		return true;
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	gp_value_free(g->obj);
	return false;
}

/* lets group B's thread run on @p c, or end without running when @p c is NULL */
static void group_go(struct group_run *g, const struct gp__actx *c)
{
	pthread_mutex_lock(&g->mu);
	g->c = c;
	atomic_store(&g->cancel, c == NULL);
	atomic_store(&g->go, true);
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* waits for group B's thread (spinning first: it usually ends within milliseconds) */
static void group_join(struct group_run *g)
{
	gp__spin_until(&g->done, SPIN_NS);
	pthread_join(g->tid, NULL);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
}

/* runs groups A and B, B on its thread when @p b is non-NULL (then joined and freed here) */
static int run_groups(const struct gp__actx *c, struct group_run *b, struct gp_value *r)
{
	int rc;

	if (!b) {
		if ((rc = run_group(c, GROUP_A, r)))
			return rc;
		return run_group(c, GROUP_B, r);
	}
	group_go(b, c);
	rc = run_group(c, GROUP_A, r);
	group_join(b);
	if (!rc && b->rc)
		rc = gp__error(b->rc, "%s", b->err);
	if (rc) {
		gp_value_free(b->obj);
		return rc;
	}
	return gp__obj_move_members(r, b->obj);
}

static int analyze_trace(const struct gp_trace *t, const struct gp_analyze_opts *opts,
                         int64_t rank_hint, bool may_thread, struct gp_value **out)
{
	struct gp_analyze_opts o = { .size = sizeof(o) };
	struct gp__actx c;
	struct gp_value *r = NULL;
	struct group_run b;
	uint64_t off, lost;
	bool started = false;
	int rc = 0;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	if (!t)
		return gp__error(GP_EINVAL, "no trace");
	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	o.size = sizeof(o);
	if (may_thread && t->ev.n >= PARALLEL_MIN_EVENTS && o.threads != 1 &&
	    sysconf(_SC_NPROCESSORS_ONLN) > 1)
		started = group_start(&b);
	GP_TRY(gp__actx_init(&c, t, &o, t->rank >= 0 ? t->rank : rank_hint));
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
	rc = run_groups(&c, started ? &b : NULL, r);
	started = false; /* joined, its object merged or freed */
	if (rc)
		goto out;
	GP_TRY(run_group(&c, GROUP_LAST, r));
	GP_TRY(gp__summaries_trim(r, o.top));
out:
	if (started) {
		group_go(&b, NULL);
		group_join(&b);
		gp_value_free(b.obj);
	}
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
	char *path;
	int64_t name_rank; /* rank from the file name, -1 none */
	size_t order;
	bool may_thread; /* a spare CPU for its sections */
	/* results */
	int rc;
	char err[1024];
	int64_t rank;
	struct gp_value *val;
	struct gp_value *tags; /* the capture's META tags (gpuprof run --tag), or NULL */
};

struct pool {
	struct job *jobs;
	size_t n, next;
	const struct gp_analyze_opts *opts;
	pthread_mutex_t lock;
};

static int add_job(struct job **jobs, size_t *n, size_t *cap, const char *path)
{
	int rc;

	if ((rc = gp__grow((void **)jobs, cap, *n + 1, sizeof(**jobs))))
		return rc;
	memset(&(*jobs)[*n], 0, sizeof(**jobs));
	(*jobs)[*n].path = gp__strdup(path);
	if (!(*jobs)[*n].path)
		return gp__error(GP_ENOMEM, "out of memory");
	(*jobs)[*n].name_rank = gp__rank_from_name(path);
	(*jobs)[*n].order = *n;
	(*n)++;
	return 0;
}

static int expand_dir(const char *dir, struct job **jobs, size_t *n, size_t *cap)
{
	char **names;
	size_t nn, i;
	int rc;

	if ((rc = gp__trace_list(dir, &names, &nn)))
		return rc;
	for (i = 0; i < nn && !rc; i++)
		rc = add_job(jobs, n, cap, names[i]);
	gp__trace_list_free(names, nn);
	return rc;
}

static void run_job(struct job *j, const struct gp_analyze_opts *opts)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	int64_t hint = j->name_rank >= 0 ? j->name_rank : (int64_t)j->order;

	oo.salvage = opts->salvage;
	/* a spare CPU also goes to reading the file (two halves, or gzip ahead) */
	oo.threads = j->may_thread ? 0 : 1;
	j->rc = gp_trace_open(j->path, &oo, &t);
	if (!j->rc) {
		const struct gp_value *tags =
		    gp_obj_get(gp_obj_get(t->meta, "gpuprof_capture"), "tags");

		/* tags are the run's, whichever rank is analysed; a failed clone only loses them */
		if (gp_value_type(tags) == GP_VALUE_OBJECT)
			j->tags = gp_value_clone(tags);
		j->rank = t->rank >= 0 ? t->rank : hint;
		if (opts->only_rank >= 0 && j->rank != opts->only_rank) {
			gp_trace_free(t);
			return;
		}
		j->rc = analyze_trace(t, opts, hint, j->may_thread, &j->val);
	}
	if (j->rc)
		snprintf(j->err, sizeof(j->err), "%s", gp_last_error());
	gp_trace_free(t);
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			break;
		run_job(&p->jobs[i], p->opts);
	}
	return NULL;
}

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

GP_API int gp_analyze_paths(const char *const *paths, size_t n, const struct gp_analyze_opts *opts,
                            struct gp_value **out)
{
	struct gp_analyze_opts o = { .size = sizeof(o), .only_rank = -1 };
	struct job *jobs = NULL;
	size_t njobs = 0, cap = 0, i, nthreads;
	long ncpu;
	struct gp_value *report = NULL, *ranks;
	pthread_t *tids = NULL;
	struct pool pool;
	int rc = 0;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	o.size = sizeof(o);
	if (!n)
		return gp__error(GP_EINVAL, "no input files");
	for (i = 0; i < n; i++) {
		struct stat st;

		if (stat(paths[i], &st))
			GP_TRY(gp__error(GP_ENOENT, "cannot read '%s': %s", paths[i],
			                 strerror(errno)));
		if (S_ISDIR(st.st_mode))
			GP_TRY(expand_dir(paths[i], &jobs, &njobs, &cap));
		else
			GP_TRY(add_job(&jobs, &njobs, &cap, paths[i]));
	}

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
	pool.n = njobs;
	pool.opts = &o;
	pthread_mutex_init(&pool.lock, NULL);
	if (nthreads <= 1) {
		worker(&pool);
	} else {
		size_t started = 0;

		tids = gp__calloc(nthreads, sizeof(*tids));
		for (i = 0; tids && i < nthreads; i++)
			if (pthread_create(&tids[i], NULL, worker, &pool) == 0)
				started++;
		if (!started)
			worker(&pool);
		for (i = 0; i < started; i++)
			pthread_join(tids[i], NULL);
	}
	pthread_mutex_destroy(&pool.lock);

	for (i = 0; i < njobs; i++) {
		if (jobs[i].rc) {
			rc = gp__error(jobs[i].rc, "%s", jobs[i].err);
			goto out;
		}
	}
	qsort(jobs, njobs, sizeof(*jobs), cmp_job);

	report = gp_value_object();
	ranks = gp_value_array();
	if (!report || !ranks) {
		gp_value_free(ranks);
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	GP_TRY(gp_obj_set(report, "ranks", ranks));
	GP_TRY(gp_obj_set_str(report, "schema", GP_ANALYZE_SCHEMA));
	GP_TRY(gp_obj_set_str(report, "compat", o.compat == GP_COMPAT_HTA ? "hta" : "none"));
	GP_TRY(gp_obj_set_str(report, "gpuprof_version", gp_version()));
	for (i = 0; i < njobs; i++) {
		if (!jobs[i].val)
			continue;
		GP_TRY(gp_arr_push(ranks, jobs[i].val));
		jobs[i].val = NULL;
	}
	if (!gp_value_len(ranks) && o.only_rank >= 0)
		GP_TRY(gp__error(GP_ENOENT, "no trace of rank %lld among the inputs",
		                 (long long)o.only_rank));
	/* "tags" and "metrics" of run directories (metrics.c) */
	GP_TRY(gp__an_run_dirs(report, paths, n));
	for (i = 0; i < njobs; i++)
		GP_TRY(gp__tags_merge(report, jobs[i].tags));
out:
	for (i = 0; i < njobs; i++) {
		gp__free(jobs[i].path);
		gp_value_free(jobs[i].val);
		gp_value_free(jobs[i].tags);
	}
	gp__free(jobs);
	gp__free(tids);
	if (rc) {
		gp_value_free(report);
		return rc;
	}
	*out = report;
	return 0;
}
