/* SPDX-License-Identifier: MIT */
/*
 * findings-launch.c - what the GPU waits for, as launch-bound and gpu-idle
 * judge it: the launch calls (their union, their median, the outliers a
 * single call of seconds makes: module loading, a blocking call), whether
 * work is queued ahead of the GPU (a backlog: the launch delay and the queue
 * depth), and the words for an outlier. findings-rules.c asks; nothing here
 * reads a rule. Thresholds are documented in docs/analyses/findings.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "intervals.h"
#include "text/text.h"
#include "util/error.h"
#include "util/sort.h"

/* launch-bound's thresholds (docs/analyses/findings.md) */
#define LAUNCH_MIN       50
#define LAUNCH_MED_NS    10000
#define LAUNCH_SHORT_PCT 50.0

/*
 * A median launch delay of 100 µs or more (HTA's delay outlier threshold), or
 * a stream whose mean queue depth reaches 2 (over time; not under --compat
 * hta, whose mean is over samples), is a backlog: the GPU has work waiting.
 * Launch-bound is not said then, and gpu-idle's host wait is between bursts
 * of queued work, not launch overhead.
 */
#define LAUNCH_WAIT_DELAY_NS 100000
#define LAUNCH_WAIT_QUEUE    2.0

/* the largest mean queue depth over the streams; NaN without a queue */
static double max_queue_mean(const struct gp_value *l)
{
	const struct gp_value *q = gp_obj_get(l, "queue");
	double m = NAN, v;
	size_t k;

	for (k = 0; k < gp_value_len(q); k++)
		if (gp__fnd_getd(gp_arr_get(q, k), "mean", &v) && !(v <= m))
			m = v;
	return m;
}

/*
 * A backlog: work is queued ahead of the GPU (a median launch delay or a
 * mean queue depth at the thresholds above), so whatever the GPU waits for,
 * it is not the launches. *delay is the p50 delay, or -1 when unknown.
 */
bool gp__fnd_backlog(const struct gp__actx *c, const struct gp_value *l, int64_t *delay,
                     double *qmean)
{
	if (!gp__fnd_geti(l, "launch_delay_ns/p50", delay))
		*delay = -1;
	/* HTA's queue mean is over its samples, not over time: not a depth to judge by */
	*qmean = c->hta ? NAN : max_queue_mean(l);
	return *delay >= LAUNCH_WAIT_DELAY_NS || *qmean >= LAUNCH_WAIT_QUEUE;
}

/*
 * A launch call longer than this multiple of the median launch call is an
 * outlier, not launch overhead: the first launch of a kernel that loads its
 * module (CUDA_MODULE_LOADING=LAZY, cuDNN/cuBLAS picking a kernel) or context
 * creation takes seconds once (alexnet: one 3.056 s cudaLaunchKernel beside a
 * median of 10 µs). The median is taken as at least 1 µs.
 */
#define LAUNCH_OUTLIER_X 100
/* an outlier call this share of the GPU's idle time is named by gpu-idle */
#define LAUNCH_OUTLIER_IDLE_PCT 10.0

static int launch_stats(const struct gp__actx *c, struct gp__fnd_launch_stats *ls)
{
	struct gp_ivset all = GP_IVSET_INIT, typ = GP_IVSET_INIT;
	int64_t *d = NULL, lim;
	size_t k, n = 0;
	int rc = 0;

	memset(ls, 0, sizeof(*ls));
	ls->med_ns = ls->slowest = ls->slowest_op = -1;
	if (!(d = gp__calloc(c->gpu.n ? c->gpu.n : 1, sizeof(*d))))
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < c->gpu.n; k++) {
		int64_t l = gp__launcher(c, c->gpu.v[k]);

		if (l < 0)
			continue;
		d[n++] = c->dur[l];
		if (ls->slowest < 0 || c->dur[l] > c->dur[ls->slowest]) {
			ls->slowest = l;
			ls->slowest_op = c->gpu.v[k];
		}
	}
	ls->ncalls = n;
	if (!n)
		goto out;
	GP_TRY(gp__sort_i64(d, n));
	ls->med_ns = (int64_t)llround(gp__quantile_sorted(d, n, 0.5));
	/* saturated: a median near 2^62 ns (a hostile trace) would overflow the product */
	lim = ls->med_ns > 1000 ? ls->med_ns : 1000;
	lim = lim > INT64_MAX / LAUNCH_OUTLIER_X ? INT64_MAX : lim * LAUNCH_OUTLIER_X;
	ls->slowest_first = true;
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];
		int64_t l = gp__launcher(c, i);

		if (l < 0)
			continue;
		GP_TRY(gp__ivset_add(&all, c->ts[l], gp__end(c, (size_t)l)));
		if (c->dur[l] > lim) {
			ls->noutliers++;
			ls->outliers_ns = gp__add_sat(ls->outliers_ns, c->dur[l]);
		} else {
			GP_TRY(gp__ivset_add(&typ, c->ts[l], gp__end(c, (size_t)l)));
		}
		if (c->t->ev.name[i] == c->t->ev.name[ls->slowest_op] &&
		    c->ts[l] < c->ts[ls->slowest])
			ls->slowest_first = false;
	}
	GP_TRY(gp__ivset_normalize(&all));
	GP_TRY(gp__ivset_normalize(&typ));
	ls->all_ns = gp__ivset_len(&all);
	ls->typical_ns = gp__ivset_len(&typ);
out:
	gp__free(d);
	gp__ivset_release(&all);
	gp__ivset_release(&typ);
	return rc;
}

/* is the slowest launch call an outlier? */
static bool launch_outlier(const struct gp__fnd_launch_stats *ls)
{
	return ls->slowest >= 0 && ls->noutliers > 0;
}

/* the launch evidence shared by gpu-idle and launch-bound */
int gp__fnd_ev_launch(struct gp_value *ev, const struct gp__actx *c,
                      const struct gp__fnd_launch_stats *ls)
{
	int rc;

	if ((rc = gp_obj_set_int(ev, "launch_calls_ns", ls->all_ns)) ||
	    (rc = gp_obj_set_int(ev, "typical_launch_calls_ns", ls->typical_ns)) ||
	    (rc = gp_obj_set_int(ev, "outlier_launch_calls", (int64_t)ls->noutliers)) ||
	    (rc = gp_obj_set_int(ev, "outlier_launch_calls_ns", ls->outliers_ns)))
		return rc;
	if (ls->med_ns >= 0)
		rc = gp_obj_set_int(ev, "launch_call_med_ns", ls->med_ns);
	else
		rc = gp_obj_set_null(ev, "launch_call_med_ns");
	if (rc)
		return rc;
	if (ls->slowest < 0)
		return gp_obj_set_null(ev, "slowest_launch_call_ns");
	if ((rc = gp_obj_set_int(ev, "slowest_launch_call_ns", c->dur[ls->slowest])) ||
	    (rc = gp_obj_set_str(ev, "slowest_launch_call",
	                         gp__strtab_get(&c->t->strs, c->t->ev.name[ls->slowest]))))
		return rc;
	/* its op when it is the op's first launch: the module loaded then */
	return ls->slowest_first
	           ? gp_obj_set_str(ev, "slowest_launch_call_first_of",
	                            gp__strtab_get(&c->t->strs, c->t->ev.name[ls->slowest_op]))
	           : gp_obj_set_null(ev, "slowest_launch_call_first_of");
}

/*
 * "one cudaLaunchKernel call of 3.056 s, the first launch of K: ..." into
 * @p buf: what an outlier launch call is and what to do about it.
 */
void gp__fnd_outlier_advice(const struct gp__actx *c, const struct gp__fnd_launch_stats *ls,
                            const struct gp__fnd_dev *d, char *buf, size_t n)
{
	char med[32];
	const char *call = gp__strtab_get(&c->t->strs, c->t->ev.name[ls->slowest]);
	const char *op = gp__strtab_get(&c->t->strs, c->t->ev.name[ls->slowest_op]);
	const bool amd = d->vendor == GP_VENDOR_AMD;

	gp__fmt_dur(med, sizeof(med), (double)(ls->med_ns > 0 ? ls->med_ns : 0), 0);
	if (ls->slowest_first)
		snprintf(buf, n,
		         "one %.40s call (a median launch call takes %s), the first launch of "
		         "%.60s%s: a one-time cost of loading its module (%s loads a kernel's code "
		         "at its first launch; %s load theirs at first use), not launch overhead: "
		         "warm up before the profiled steps (torch.profiler.schedule(wait=1, "
		         "warmup=1, active=N)), or load at start-up with %s",
		         call, med, op, strlen(op) > 60 ? "..." : "",
		         amd ? "HIP_ENABLE_DEFERRED_LOADING=1, the default,"
		             : "CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2,",
		         amd ? "MIOpen and rocBLAS" : "cuDNN and cuBLAS",
		         amd ? "HIP_ENABLE_DEFERRED_LOADING=0" : "CUDA_MODULE_LOADING=EAGER");
	else
		snprintf(
		    buf, n,
		    "one %.40s call (a median launch call takes %s) that blocked, which is not "
		    "launch overhead (an allocation, a full queue, a lock): see what ran beside "
		    "it in the timeline",
		    call, med);
}

/*
 * Judges launch-bound: @p j->fires when the kernels are short or the typical
 * launch calls (the outliers left out) cover the GPU's busy time, and no
 * backlog says the GPU is waiting for something else. @p j->ls is filled
 * whenever the launches section is there.
 */
int gp__fnd_launch_judge(const struct gp__actx *c, const struct gp_value *r,
                         const struct gp__fnd_base *b, struct gp__fnd_launch *j)
{
	const struct gp_value *l = gp_obj_get(r, "launches");
	int rc;

	memset(j, 0, sizeof(*j));
	j->ls.slowest = j->ls.slowest_op = j->ls.med_ns = -1;
	j->delay = -1;
	j->qmean = NAN;
	if (!b->has_gpu || !gp__fnd_geti(l, "count", &j->n) ||
	    !gp__fnd_geti(l, "short_kernels/count", &j->nshort) ||
	    !gp__fnd_getd(l, "short_kernels/pct", &j->short_pct))
		return 0;
	if ((rc = launch_stats(c, &j->ls)))
		return rc;
	if (j->n < LAUNCH_MIN)
		return 0;
	j->med_known = gp__fnd_geti(l, "kernel_dur_ns/p50", &j->med);
	j->many_short =
	    (!j->med_known || j->med < LAUNCH_MED_NS) && j->short_pct > LAUNCH_SHORT_PCT;
	/* typical calls: one call of seconds (module loading) is not launch overhead */
	j->cpu_bound = b->busy_ns > 0 && j->ls.typical_ns >= b->busy_ns;
	/* a backlog: the GPU does not wait for launches */
	j->fires = (j->many_short || j->cpu_bound) && !gp__fnd_backlog(c, l, &j->delay, &j->qmean);
	return 0;
}

/* an outlier launch call of at least LAUNCH_OUTLIER_IDLE_PCT of the GPU's idle time */
bool gp__fnd_outlier_matters(const struct gp__actx *c, const struct gp__fnd_launch_stats *ls,
                             const struct gp__fnd_base *b)
{
	return launch_outlier(ls) && b->idle_ns > 0 &&
	       gp__fnd_pct(c->dur[ls->slowest], b->idle_ns) >= LAUNCH_OUTLIER_IDLE_PCT;
}
