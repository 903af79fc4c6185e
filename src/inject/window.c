/* SPDX-License-Identifier: MIT */
/*
 * window.c - capture windows: when the tracer records. Read once from the
 * environment that `gpuprof run` sets (docs/cli/gpuprof-run.md):
 *
 *   GPUPROF_CAPTURE_DELAY_NS, GPUPROF_CAPTURE_DURATION_NS: a time gate that
 *     opens DELAY after GPUPROF_RUN_START_NS (the run's start on
 *     CLOCK_MONOTONIC; the session's start without it) and closes DURATION
 *     later, for good;
 *   GPUPROF_CAPTURE_RANGE: "nvtx:NAME", inside every outermost NVTX range
 *     whose message is NAME (any domain, any thread); or "cudaProfilerApi",
 *     from the exit of cuProfilerStart to the entry of cuProfilerStop (the
 *     runtime's cudaProfilerStart/Stop call them);
 *   GPUPROF_CAPTURE_SCHEDULE "wait=W,warmup=U,active=A,repeat=R" with
 *     GPUPROF_CAPTURE_ITER_RANGE NAME: iterations are the outermost NVTX
 *     ranges named NAME, or the spans between marks named NAME; as
 *     torch.profiler's schedule, W are skipped, U warm up, A are recorded, R
 *     times (0: for ever). Between two iterations the state is the next one's.
 *
 * The tracer records while every option given says so. Outside, NVTX events
 * are not recorded (domains, registered strings and thread names still are:
 * they are definitions), CUPTI's kinds are disabled and CUPTI is detached
 * (cupti.c), so the program runs at full speed. During a warm-up CUPTI is
 * attached but what it records is dropped by the decoder (gp__inj_win_segment,
 * warm.c).
 * With cudaProfilerApi CUPTI stays subscribed to the two profiler calls, with
 * every kind disabled. Each change of "recording" is a WINDOW record.
 *
 * A state machine: gp__inj_win_step() takes an event (a matching range or
 * mark, the profiler calls, the writer's timer, CUPTI ready, exit) and the
 * time, moves the state and returns the actions that follow (attach or
 * detach CUPTI, write a WINDOW record) for its caller to carry out
 * (gp__inj_win_carry in inject.h): record.c for ranges and marks, cupti.c
 * for the profiler calls, session.c for the rest. So this file calls no
 * other part of the tracer but core.c, which calls nothing back.
 *
 * All state changes happen under one mutex (gp__inj_win_lock), held by the
 * caller from the step until its actions are done, from whichever thread
 * causes them. The WINDOW record of a change caused by a range or mark goes
 * into the calling thread's block (record.c), in order with its events, so
 * that a range that ends just before its window closes is never cut by a
 * writer pass falling between the two.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

enum phase { PH_OFF, PH_WAIT, PH_WARMUP, PH_ACTIVE };

/* NVTX events and CUPTI records are kept: published by the callers (gp__inj_win_carry) */
_Atomic bool gp__inj_rec = true;

struct gp__inj_win {
	bool any; /* some window option */
	/* the time gate: [on, off) */
	int64_t gate_on, gate_off;
	bool timed;
	/* capture range */
	bool range_nvtx;
	char *range_name;
	int range_depth; /* outermost NAME ranges open, over every thread */
	bool prof_on;
	/* schedule */
	bool sched;
	uint32_t wait, warmup, active, repeat;
	char *iter_name;
	int iter_depth;
	bool mark_iter; /* an iteration opened by a mark runs to the next mark */
	uint64_t iter;  /* iterations ended */
	enum phase phase;
	/* applied */
	bool rec, cupti, cuda_ready;
	/* read lock-free by the other parts */
	_Atomic bool watch;   /* NVTX messages are compared with the names */
	_Atomic int prof_api; /* cudaProfilerApi mode */
	/* warm-up intervals [s, e) (e = INT64_MAX while open); written in steps, read by the
	 * decoder */
	int64_t warm_s[GP_INJ_MAX_WARM];
	_Atomic int64_t warm_e[GP_INJ_MAX_WARM];
	_Atomic size_t nwarm;
};

/* the process's windows, and the lock of their steps */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gp__inj_win g_win;

/* ---- the decision ---- */

static enum phase phase_of(struct gp__inj_win *w, uint64_t k)
{
	uint64_t cycle = (uint64_t)w->wait + w->warmup + w->active, j;

	if (w->repeat && k / cycle >= w->repeat)
		return PH_OFF;
	j = k % cycle;
	if (j < w->wait)
		return PH_WAIT;
	if (j < (uint64_t)w->wait + w->warmup)
		return PH_WARMUP;
	return PH_ACTIVE;
}

static void warm_begin(struct gp__inj_win *w, int64_t now)
{
	size_t n = atomic_load(&w->nwarm);

	if (n >= GP_INJ_MAX_WARM)
		return;
	w->warm_s[n] = now;
	w->warm_e[n] = INT64_MAX;
	atomic_store(&w->nwarm, n + 1);
}

static void warm_end(struct gp__inj_win *w, int64_t now)
{
	size_t n = atomic_load(&w->nwarm);

	if (n && w->warm_e[n - 1] == INT64_MAX)
		w->warm_e[n - 1] = now;
}

/* The next action of @p o (zeroed), NULL when full (cannot be: see GP_INJ_WIN_MAX_ACTS). */
static struct gp__inj_win_act *act(struct gp__inj_win_out *o, enum gp__inj_win_op op)
{
	struct gp__inj_win_act *a;

	if (o->n >= GP_INJ_WIN_MAX_ACTS)
		return NULL;
	a = &o->a[o->n++];
	memset(a, 0, sizeof(*a));
	a->op = op;
	return a;
}

static void act_record(struct gp__inj_win_out *o, int64_t now, bool on, uint32_t reason,
                       bool publish)
{
	struct gp__inj_win_act *a = act(o, GP_INJ_WIN_RECORD);

	if (!a)
		return;
	a->w.ts = now;
	a->w.on = on;
	a->w.reason = reason;
	a->publish = publish;
}

static void act_publish(struct gp__inj_win_out *o, bool on)
{
	struct gp__inj_win_act *a = act(o, GP_INJ_WIN_PUBLISH);

	if (a)
		a->w.on = on;
}

static void act_detach(struct gp__inj_win_out *o, bool finalize)
{
	struct gp__inj_win_act *a = act(o, GP_INJ_WIN_DETACH);

	if (a)
		a->finalize = finalize;
}

/* Brings recording and CUPTI in line with the options: the actions into @p o. g_mu held. */
static void apply(struct gp__inj_win *w, struct gp__inj_win_out *o, int64_t now, uint32_t reason)
{
	bool gate = now >= w->gate_on && now < w->gate_off;
	bool range = w->range_nvtx               ? w->range_depth > 0
	             : atomic_load(&w->prof_api) ? w->prof_on
	                                         : true;
	bool rec = gate && range && (!w->sched || w->phase == PH_ACTIVE);
	bool cupti = gate && range && (!w->sched || w->phase == PH_ACTIVE || w->phase == PH_WARMUP);

	if (cupti && !w->cupti) {
		w->cupti = true;
		if (!rec)
			warm_begin(w, now);
		if (w->cuda_ready)
			act(o, GP_INJ_WIN_ATTACH);
	}
	if (rec != w->rec) {
		w->rec = rec;
		if (rec)
			warm_end(w, now);
		else if (cupti && w->cupti)
			warm_begin(w, now); /* from an active iteration straight into a warm-up */
		act_record(o, now, rec, reason, true);
	}
	if (!cupti && w->cupti) {
		w->cupti = false;
		warm_end(w, now);
		if (w->cuda_ready)
			act_detach(o, !atomic_load(&w->prof_api));
	}
}

/* ---- the environment ---- */

static bool env_ns(const char *name, int64_t *out)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (!v || !*v)
		return false;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end || n < 0) {
		gp__inj_warn(0, "%s='%s' is not a number of ns: ignored", name, v);
		return false;
	}
	*out = n;
	return true;
}

static bool parse_schedule(struct gp__inj_win *w, const char *s)
{
	uint32_t *dst[4] = { &w->wait, &w->warmup, &w->active, &w->repeat };
	static const char *const keys[4] = { "wait", "warmup", "active", "repeat" };

	while (*s) {
		const char *eq = strchr(s, '=');
		char *end;
		unsigned long v;
		size_t k;

		if (!eq)
			return false;
		for (k = 0; k < 4; k++)
			if ((size_t)(eq - s) == strlen(keys[k]) &&
			    !strncmp(s, keys[k], (size_t)(eq - s)))
				break;
		errno = 0;
		v = strtoul(eq + 1, &end, 10);
		if (k == 4 || errno || end == eq + 1 || v > 1000000000ul || (*end && *end != ','))
			return false;
		*dst[k] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	return w->active > 0;
}

static void init(struct gp__inj_win *w, struct gp__inj_win_out *o, int64_t now)
{
	const char *range = getenv("GPUPROF_CAPTURE_RANGE");
	const char *sched = getenv("GPUPROF_CAPTURE_SCHEDULE");
	const char *iter = getenv("GPUPROF_CAPTURE_ITER_RANGE");
	int64_t t0 = now, delay = 0, dur = -1;
	bool has_delay, has_dur;

	w->gate_on = INT64_MIN;
	w->gate_off = INT64_MAX;
	w->rec = true;
	env_ns("GPUPROF_RUN_START_NS", &t0);
	has_delay = env_ns("GPUPROF_CAPTURE_DELAY_NS", &delay);
	has_dur = env_ns("GPUPROF_CAPTURE_DURATION_NS", &dur);
	if (has_delay || has_dur) {
		w->any = w->timed = true;
		w->gate_on = t0 + delay;
		if (dur >= 0)
			w->gate_off = w->gate_on + dur;
	}
	if (range && !strncmp(range, "nvtx:", 5) && range[5]) {
		w->any = w->range_nvtx = true;
		w->range_name = strdup(range + 5);
	} else if (range && !strcmp(range, "cudaProfilerApi")) {
		w->any = true;
		atomic_store(&w->prof_api, 1);
	} else if (range && *range) {
		gp__inj_warn(0, "GPUPROF_CAPTURE_RANGE='%s' is not understood: ignored", range);
	}
	if (sched && *sched) {
		if (!iter || !*iter || !parse_schedule(w, sched)) {
			gp__inj_warn(
			    0,
			    "GPUPROF_CAPTURE_SCHEDULE='%s' (iterations '%s') is not usable: "
			    "ignored",
			    sched, iter ? iter : "");
		} else {
			w->any = w->sched = true;
			w->iter_name = strdup(iter);
			w->phase = PH_OFF; /* until the first iteration begins */
		}
	}
	if ((w->range_nvtx && !w->range_name) || (w->sched && !w->iter_name))
		gp__inj_warn(0, "out of memory for the capture window's names");
	atomic_store(&w->watch, w->range_name || w->iter_name);
	if (w->any) {
		/* nothing is recorded until a window opens */
		w->rec = false;
		act_publish(o, false);
		apply(w, o, now, GP_WIN_START);
	}
}

/* ---- what the other parts ask ---- */

bool gp__inj_win_watching(void)
{
	struct gp__inj_win *w = &g_win;

	return atomic_load_explicit(&w->watch, memory_order_relaxed);
}

bool gp__inj_win_profiler_api(void)
{
	struct gp__inj_win *w = &g_win;

	return atomic_load(&w->prof_api) != 0;
}

long gp__inj_win_segment(int64_t ts)
{
	struct gp__inj_win *w = &g_win;

	size_t n = atomic_load(&w->nwarm);

	/* newest first: the first warm-up that began at or before @p ts tells */
	for (size_t i = n; i-- > 0;) {
		if (ts >= w->warm_e[i])
			return (long)(2 * i + 2);
		if (ts >= w->warm_s[i])
			return (long)(2 * i + 1);
	}
	return 0;
}

struct gp__inj_win *gp__inj_win_lock(void)
{
	pthread_mutex_lock(&g_mu);
	return &g_win;
}

void gp__inj_win_unlock(struct gp__inj_win *w)
{
	(void)w;
	pthread_mutex_unlock(&g_mu);
}

int gp__inj_win_new(struct gp__inj_win **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

void gp__inj_win_free(struct gp__inj_win *w)
{
	if (!w || w == &g_win)
		return;
	free(w->range_name);
	free(w->iter_name);
	free(w);
}

int64_t gp__inj_win_next_edge(int64_t now)
{
	struct gp__inj_win *w = &g_win;

	int64_t e = -1;

	if (!w->timed)
		return -1;
	pthread_mutex_lock(&g_mu);
	if (now < w->gate_on)
		e = w->gate_on - now;
	else if (now < w->gate_off && w->gate_off != INT64_MAX)
		e = w->gate_off - now;
	pthread_mutex_unlock(&g_mu);
	return e;
}

/* ---- NVTX and CUPTI events ---- */

bool gp__inj_win_match(const char *msg, size_t n, unsigned *which)
{
	struct gp__inj_win *w = &g_win;

	*which = 0;
	if (!msg)
		return false;
	if (w->range_name && strlen(w->range_name) == n && !memcmp(w->range_name, msg, n))
		*which |= GP_WIN_M_RANGE;
	if (w->iter_name && strlen(w->iter_name) == n && !memcmp(w->iter_name, msg, n))
		*which |= GP_WIN_M_ITER;
	return *which != 0;
}

static void iter_begin(struct gp__inj_win *w, struct gp__inj_win_out *o, int64_t now)
{
	w->phase = phase_of(w, w->iter);
	apply(w, o, now, GP_WIN_SCHEDULE);
}

static void iter_end(struct gp__inj_win *w, struct gp__inj_win_out *o, int64_t now)
{
	w->iter++;
	w->phase = phase_of(w, w->iter); /* between iterations: the next one's state */
	apply(w, o, now, GP_WIN_SCHEDULE);
}

/* ---- the step ---- */

void gp__inj_win_step(struct gp__inj_win *w, enum gp__inj_win_ev ev, unsigned which, int64_t now,
                      struct gp__inj_win_out *o)
{
	o->n = 0;
	switch (ev) {
	case GP_INJ_WIN_INIT:
		init(w, o, now);
		break;
	case GP_INJ_WIN_CUDA_READY:
		w->cuda_ready = true;
		if (!w->any || w->cupti)
			act(o, GP_INJ_WIN_ATTACH);
		break;
	case GP_INJ_WIN_TICK:
		if (w->timed)
			apply(w, o, now, now >= w->gate_off ? GP_WIN_DURATION : GP_WIN_START);
		break;
	case GP_INJ_WIN_EXIT:
		if (w->any && w->rec) {
			w->rec = false;
			act_record(o, now, false, GP_WIN_EXIT, false);
		}
		break;
	case GP_INJ_WIN_BEGIN:
		if ((which & GP_WIN_M_RANGE) && w->range_nvtx && w->range_depth++ == 0)
			apply(w, o, now, GP_WIN_NVTX);
		if ((which & GP_WIN_M_ITER) && w->sched) {
			if (w->mark_iter) { /* ranges and marks mixed: a range ends a mark's
				              iteration */
				w->mark_iter = false;
				iter_end(w, o, now);
			}
			if (w->iter_depth++ == 0)
				iter_begin(w, o, now);
		}
		break;
	case GP_INJ_WIN_END:
		if ((which & GP_WIN_M_RANGE) && w->range_nvtx && w->range_depth > 0 &&
		    --w->range_depth == 0)
			apply(w, o, now, GP_WIN_NVTX);
		if ((which & GP_WIN_M_ITER) && w->sched && w->iter_depth > 0 &&
		    --w->iter_depth == 0)
			iter_end(w, o, now);
		break;
	case GP_INJ_WIN_MARK:
		if ((which & GP_WIN_M_ITER) && w->sched && w->iter_depth == 0) {
			if (w->mark_iter)
				iter_end(w, o, now);
			w->mark_iter = true;
			iter_begin(w, o, now);
		}
		break;
	case GP_INJ_WIN_PROF_START:
	case GP_INJ_WIN_PROF_STOP:
		if (atomic_load(&w->prof_api) && w->prof_on != (ev == GP_INJ_WIN_PROF_START)) {
			w->prof_on = ev == GP_INJ_WIN_PROF_START;
			apply(w, o, now, GP_WIN_PROFILER_API);
		}
		break;
	}
}
