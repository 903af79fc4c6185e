/* SPDX-License-Identifier: MIT */
/*
 * findings-rules.c - the findings rules: each reads the report sections of
 * the rank and adds at most one finding to the list (findings.c ranks it).
 *
 * Every number a section already computes is read from @p r ("gpu",
 * "launches", "steps", "gpu_utilization", "kernels", "memory_ops",
 * "overview"), so a finding always agrees with the tables; a rule whose
 * section is absent does not fire. Only what no section provides is counted
 * here from the analysis context: synchronisation calls, item() and
 * device-to-host copies inside the steps, the union of the launch calls, and
 * the GEMM/convolution time without Tensor Cores. Thresholds are documented
 * in docs/analyses/findings.md.
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

/* thresholds (docs/analyses/findings.md) */
#define IDLE_PCT            20.0
#define IDLE_HIGH_PCT       50.0
#define HOST_WAIT_SHARE_PCT 50.0
#define DATALOADER_PCT      5.0
#define DATALOADER_HIGH_PCT 20.0
#define SYNC_MEDIUM_PCT     5.0
#define PAGEABLE_MEDIUM_PCT 5.0
#define GEMM_NO_TC_PCT      20.0
#define GEMM_NO_TC_HIGH_PCT 50.0
#define EXPOSED_COMM_PCT    10.0
#define EXPOSED_COMM_HIGH   30.0
#define LOW_OCC_PCT         30.0
#define LOW_OCC_MEDIUM_PCT  15.0

/* "1 copy", "2 copies": @p one for 1, @p many otherwise */
static const char *plural(int64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* ---- shared numbers, from the sections ---- */

static int sync_blocked_idle(const struct gp__actx *c, const struct gp__fnd_base *b, int64_t *out);

int gp__fnd_base_init(const struct gp__actx *c, const struct gp_value *r, struct gp__fnd_base *b)
{
	int rc;

	const struct gp_value *g = gp_obj_get(r, "gpu"), *hg = gp_obj_get(g, "has_gpu");
	const struct gp_value *steps = gp_obj_get(r, "steps");
	size_t k;

	memset(b, 0, sizeof(*b));
	b->gpu_known = gp_value_type(hg) == GP_VALUE_BOOL;
	b->has_gpu = gp_value_get_bool(hg, false);
	if (!b->has_gpu || !gp__fnd_geti(g, "window_ns", &b->window_ns) ||
	    !gp__fnd_geti(g, "busy_ns", &b->busy_ns) || !gp__fnd_geti(g, "idle_ns", &b->idle_ns))
		b->window_ns = b->busy_ns = b->idle_ns = 0;
	if (!b->has_gpu || !gp__fnd_getd(g, "idle_pct", &b->idle_pct))
		b->idle_pct = NAN;
	b->step_total_ns = -1;
	for (k = 0; k < gp_value_len(steps); k++) {
		int64_t d;

		if (!gp__fnd_geti(gp_arr_get(steps, k), "dur_ns", &d))
			continue;
		b->step_total_ns = (b->step_total_ns < 0 ? 0 : b->step_total_ns) + d;
		b->nsteps++;
	}
	gp__fnd_dev_init(c, r, &b->dev);
	if ((rc = gp__fnd_launch_judge(c, r, b, &b->launch)))
		return rc;
	return sync_blocked_idle(c, b, &b->sync_idle_ns);
}

/* is @p ts inside a step (or anywhere when the trace has no steps)? */
static bool in_step(const struct gp__actx *c, int64_t ts)
{
	size_t lo;

	if (!c->nsteps)
		return true;
	/* steps are sorted by start and do not nest: find the last start <= ts */
	lo = gp__steps_started(c, ts);
	return lo > 0 && ts < c->steps[lo - 1].end;
}

/* evidence @p key: the integer at @p path of @p src, or null when it is not there */
static int ev_copy_int(struct gp_value *ev, const char *key, const struct gp_value *src,
                       const char *path)
{
	int64_t v;

	return gp__fnd_geti(src, path, &v) ? gp_obj_set_int(ev, key, v) : gp_obj_set_null(ev, key);
}

static struct gp_value *ev_new(void)
{
	struct gp_value *ev = gp_value_object();

	if (!ev)
		gp__error(GP_ENOMEM, "out of memory");
	return ev;
}

/* ---- no-gpu ---- */

static int rule_no_gpu(const struct gp__actx *c, const struct gp_value *r,
                       const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *cap;
	struct gp_value *ev;
	bool ended;
	int rc = 0;

	if (!b->gpu_known || b->has_gpu)
		return 0;
	if (!(ev = ev_new()))
		return GP_ENOMEM;
	if ((rc = gp_obj_set_int(ev, "gpu_events", 0)) ||
	    (rc = gp_obj_set_int(ev, "cpu_ops", (int64_t)c->by_kind[GP_K_CPU_OP].n)) ||
	    (rc = ev_copy_int(ev, "span_ns", r, "overview/span_ns"))) {
		gp_value_free(ev);
		return rc;
	}
	cap = gp_value_path(r, "overview/capture");
	if (gp_value_type(cap) != GP_VALUE_OBJECT)
		return gp__fnd_add(
		    fl, "no-gpu", GP_FND_INFO, NAN, "No GPU activity in this trace", ev,
		    b->dev.vendor == GP_VENDOR_AMD
		        ? "profile with ProfilerActivity.CUDA, under which ROCm builds of PyTorch "
		          "record HIP activity (or run the workload on a GPU) to see GPU kernels; "
		          "the CPU sections still apply"
		        : "profile with ProfilerActivity.CUDA (or run the workload on a GPU) to "
		          "see "
		          "GPU kernels; the CPU sections still apply");
	/* a capture of `gpuprof run`: ProfilerActivity is not the user's knob there */
	ended = gp_value_type(gp_obj_get(cap, "end")) == GP_VALUE_OBJECT;
	if ((rc = gp_obj_set_bool(ev, "capture_ended", ended))) {
		gp_value_free(ev);
		return rc;
	}
	return gp__fnd_add(
	    fl, "no-gpu", GP_FND_INFO, NAN, "No GPU activity in this capture", ev,
	    ended ? "the process made no CUDA work the tracer could record: see the capture's "
	            "warnings (CUPTI not found or refused), and run without `gpuprof run "
	            "--no-cuda` or a `gpuprof run --capture-range` that excludes it; the CPU "
	            "sections still apply"
	          : "the capture has no END record: the process was killed or crashed, and "
	            "what the tracer had not written yet (GPU activity included) is lost; let "
	            "it exit, or stop it with SIGTERM or SIGINT, which the tracer handles");
}

/* the share of the GPU's idle time over which sync-in-step and gpu-idle name each other */
#define SYNC_IDLE_PCT 10.0

/* ---- gpu-idle: gpu.idle_pct and gpu.idle_breakdown_total ---- */

/*
 * The idle breakdown is HTA's, per stream: time two streams are idle
 * together counts once per stream, so its sums can exceed the window. The
 * evidence names them as sums over the streams and keeps the union (idle_ns)
 * as the number to read beside the window; only their shares decide.
 */
static int rule_gpu_idle(const struct gp__actx *c, const struct gp_value *r,
                         const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *ib = gp_value_path(r, "gpu/idle_breakdown_total");
	struct gp_value *ev = NULL;
	int64_t hw, kw, ot;
	double host_share = NAN, qmean;
	int64_t delay;
	bool host, sums, backlog;
	char pc[16], title[160], sugg[1800], batch[200], dly[32], note[900] = "",
	                                                          sync_note[300] = "";
	int rc = 0;

	if (!b->has_gpu || !(b->idle_pct > IDLE_PCT))
		return 0;
	sums = gp__fnd_geti(ib, "host_wait_ns", &hw) && gp__fnd_geti(ib, "kernel_wait_ns", &kw) &&
	       gp__fnd_geti(ib, "other_ns", &ot);
	if (sums)
		host_share = gp__fnd_pct(hw, hw + kw + ot);
	backlog = gp__fnd_backlog(c, gp_obj_get(r, "launches"), &delay, &qmean);
	host = host_share > HOST_WAIT_SHARE_PCT;
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_int(ev, "window_ns", b->window_ns));
	GP_TRY(gp_obj_set_int(ev, "busy_ns", b->busy_ns));
	GP_TRY(gp_obj_set_int(ev, "idle_ns", b->idle_ns));
	GP_TRY(gp_obj_set_double(ev, "idle_pct", b->idle_pct));
	GP_TRY(gp_obj_set_int(ev, "streams",
	                      (int64_t)gp_value_len(gp_value_path(r, "gpu/idle_breakdown"))));
	GP_TRY(ev_copy_int(ev, "stream_sum_host_wait_ns", ib, "host_wait_ns"));
	GP_TRY(ev_copy_int(ev, "stream_sum_kernel_wait_ns", ib, "kernel_wait_ns"));
	GP_TRY(ev_copy_int(ev, "stream_sum_other_ns", ib, "other_ns"));
	GP_TRY(gp_obj_set_double(ev, "host_wait_share_pct", host_share));
	if (delay >= 0)
		GP_TRY(gp_obj_set_int(ev, "launch_delay_p50_ns", delay));
	else
		GP_TRY(gp_obj_set_null(ev, "launch_delay_p50_ns"));
	GP_TRY(gp_obj_set_double(ev, "max_queue_mean", qmean));
	if (gp__fnd_pct(b->sync_idle_ns, b->idle_ns) >= SYNC_IDLE_PCT) {
		GP_TRY(gp_obj_set_int(ev, "sync_blocked_while_idle_ns", b->sync_idle_ns));
		snprintf(sync_note, sizeof(sync_note),
		         "for %s of the idle time the host is blocked in synchronisation "
		         "(sync-in-step: sync calls, .item(), blocking device-to-host "
		         "copies), so it cannot launch work: start there; ",
		         gp__fmt_dur(dly, sizeof(dly), (double)b->sync_idle_ns, 0));
	}
	if (host && !backlog) {
		const struct gp__fnd_launch *lj = &b->launch;

		if (gp__fnd_outlier_matters(c, &lj->ls, b)) {
			char adv[800];

			GP_TRY(gp__fnd_ev_launch(ev, c, &lj->ls));
			gp__fnd_outlier_advice(c, &lj->ls, &b->dev, adv, sizeof(adv));
			snprintf(
			    note, sizeof(note), "up to %s of the idle time is %s; for the rest, ",
			    gp__fmt_dur(dly, sizeof(dly), (double)c->dur[lj->ls.slowest], 0), adv);
		}
	}
	snprintf(title, sizeof(title), "GPU idle %s of its window%s",
	         gp__fmt_pct(pc, sizeof(pc), b->idle_pct, 0),
	         !host     ? ""
	         : backlog ? ", waiting for the host between bursts of queued work"
	                   : ", mostly waiting for the host (host-bound)");
	if (host && backlog)
		snprintf(
		    sugg, sizeof(sugg),
		    "%swithin a burst the host runs ahead of the GPU (a median launch delay of "
		    "%s), so launch overhead is not the cause: look at what the host does "
		    "between the bursts (data loading, synchronisation, copies, logging) in "
		    "the timeline",
		    sync_note,
		    delay >= 0 ? gp__fmt_dur(dly, sizeof(dly), (double)delay, 0) : "unknown");
	else if (host && b->launch.fires)
		snprintf(
		    sugg, sizeof(sugg),
		    "%s%sthe host launches work too slowly to keep the GPU busy (launch-bound, "
		    "the same idle time seen from the launches): launch less often: %s, "
		    "torch.compile, %s",
		    sync_note, note, gp__fnd_w_graphs(&b->dev),
		    gp__fnd_w_batch(&b->dev, batch, sizeof(batch)));
	else if (host)
		snprintf(sugg, sizeof(sugg),
		         "%s%sthe host is busy elsewhere between launches (the launch calls alone "
		         "do not explain it, so this is not launch-bound): look at the top CPU ops "
		         "and API calls in the steps (allocations, synchronisation, data loading) "
		         "and move them off the critical path; then launch less often: %s, "
		         "torch.compile, %s",
		         sync_note, note, gp__fnd_w_graphs(&b->dev),
		         gp__fnd_w_batch(&b->dev, batch, sizeof(batch)));
	else
		snprintf(sugg, sizeof(sugg),
		         "%sthe GPU waits between kernels: look for synchronisation, copies and "
		         "gaps between streams in the timeline",
		         sync_note);
	rc = gp__fnd_add(fl, "gpu-idle", b->idle_pct > IDLE_HIGH_PCT ? GP_FND_HIGH : GP_FND_MEDIUM,
	                 b->idle_pct, title, ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/*
 * ---- launch-bound: launches.short_kernels, launches.kernel_dur_ns,
 * launches.launch_delay_ns, launches.queue ----
 *
 * Launch-bound means the GPU waits for launches: short kernels (or launch
 * calls covering the GPU's busy time) are not enough when work is queued up
 * ahead of the GPU. A median launch delay of 100 µs or more (HTA's delay
 * outlier threshold), or a stream whose mean queue depth reaches 2 (over
 * time; not under --compat hta, whose mean is over samples), is a backlog:
 * the GPU has work waiting, so the launches are not what it waits for
 * (resnet50: delay p50 9.5 ms, mean queue 100).
 */
static int rule_launch_bound(const struct gp__actx *c, const struct gp_value *r,
                             const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp__fnd_launch *j = &b->launch;
	struct gp_value *ev = NULL;
	char pc[16], title[200], medtxt[32] = "", sugg[1800], batch[200], note[900] = "", d1[32],
	                         d2[32];
	int rc = 0;

	(void)r;
	if (!j->fires)
		goto out;
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_int(ev, "kernels", j->n));
	if (j->med_known)
		GP_TRY(gp_obj_set_int(ev, "kernel_med_ns", j->med));
	else
		GP_TRY(gp_obj_set_null(ev, "kernel_med_ns"));
	GP_TRY(gp_obj_set_int(ev, "kernels_shorter_than_launch", j->nshort));
	GP_TRY(gp_obj_set_double(ev, "kernels_shorter_than_launch_pct", j->short_pct));
	GP_TRY(gp__fnd_ev_launch(ev, c, &j->ls));
	if (j->delay >= 0)
		GP_TRY(gp_obj_set_int(ev, "launch_delay_p50_ns", j->delay));
	else
		GP_TRY(gp_obj_set_null(ev, "launch_delay_p50_ns"));
	GP_TRY(gp_obj_set_double(ev, "max_queue_mean", j->qmean));
	GP_TRY(gp_obj_set_int(ev, "gpu_busy_ns", b->busy_ns));
	GP_TRY(gp_obj_set_double(ev, "gpu_idle_pct", b->idle_pct));
	if (j->med_known)
		snprintf(medtxt, sizeof(medtxt), ", median kernel %s",
		         gp__fmt_dur(d1, sizeof(d1), (double)j->med, 0));
	if (j->many_short)
		snprintf(title, sizeof(title),
		         "Launch-bound: %lld launches%s, %s of the kernels shorter than their "
		         "launch call",
		         (long long)j->n, medtxt,
		         gp__fmt_pct(pc, sizeof(pc), j->short_pct, GP__FMT_WHOLE));
	else
		snprintf(title, sizeof(title),
		         "Launch-bound: %lld launch calls take %s, the GPU is busy %s",
		         (long long)j->n, gp__fmt_dur(d1, sizeof(d1), (double)j->ls.typical_ns, 0),
		         gp__fmt_dur(d2, sizeof(d2), (double)b->busy_ns, 0));
	if (gp__fnd_outlier_matters(c, &j->ls, b)) {
		char adv[800];

		gp__fnd_outlier_advice(c, &j->ls, &b->dev, adv, sizeof(adv));
		snprintf(note, sizeof(note),
		         "; apart from that, %s of the launch calls' time is %s",
		         gp__fmt_dur(d2, sizeof(d2), (double)c->dur[j->ls.slowest], 0), adv);
	}
	snprintf(sugg, sizeof(sugg),
	         "%slaunch fewer, larger kernels: capture the step in %s "
	         "(torch.compile(mode=\"reduce-overhead\") does it for you), fuse small "
	         "operations with torch.compile, or %s%s",
	         b->idle_pct > IDLE_PCT ? "the GPU's idle time (gpu-idle) is this launch "
	                                  "overhead: "
	                                : "",
	         gp__fnd_w_graphs(&b->dev), gp__fnd_w_batch(&b->dev, batch, sizeof(batch)), note);
	rc = gp__fnd_add(fl, "launch-bound",
	                 b->idle_pct > IDLE_HIGH_PCT ? GP_FND_HIGH : GP_FND_MEDIUM, b->idle_pct,
	                 title, ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- dataloader: steps[*].breakdown.dataloader_ns ---- */

static int rule_dataloader(const struct gp__actx *c, const struct gp_value *r,
                           const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *steps = gp_obj_get(r, "steps");
	struct gp_value *ev = NULL;
	int64_t dl_ns = 0;
	double share;
	char pc[16], title[160];
	size_t k;
	int rc = 0;

	for (k = 0; k < gp_value_len(steps); k++) {
		const struct gp_value *s = gp_arr_get(steps, k);
		int64_t d, v;

		if (gp__fnd_geti(s, "dur_ns", &d) && gp__fnd_geti(s, "breakdown/dataloader_ns", &v))
			dl_ns += v;
	}
	share = gp__fnd_pct(dl_ns, b->step_total_ns);
	if (!(share > DATALOADER_PCT))
		return 0;
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_int(ev, "dataloader_ns", dl_ns));
	GP_TRY(gp_obj_set_int(ev, "step_total_ns", b->step_total_ns));
	GP_TRY(gp_obj_set_int(ev, "steps", (int64_t)b->nsteps));
	GP_TRY(gp_obj_set_double(ev, "dataloader_pct", share));
	snprintf(title, sizeof(title), "DataLoader takes %s of the %s",
	         gp__fmt_pct(pc, sizeof(pc), share, 0),
	         c->nsteps ? "step time" : "traced window (no ProfilerStep)");
	rc =
	    gp__fnd_add(fl, "dataloader", share > DATALOADER_HIGH_PCT ? GP_FND_HIGH : GP_FND_MEDIUM,
	                share, title, ev,
	                "load data in parallel with the step: DataLoader(num_workers=N>0, "
	                "pin_memory=True, prefetch_factor=2+, persistent_workers=True); move "
	                "preprocessing to the workers or the GPU");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- sync-in-step: counted from the context, step time from the steps section ---- */

static bool is_sync_call(const char *n)
{
	static const char *const names[] = {
		"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
		"cuStreamSynchronize",   "cuCtxSynchronize",      "cuEventSynchronize",
		"hipStreamSynchronize",  "hipDeviceSynchronize",  "hipEventSynchronize",
	};
	size_t k;

	for (k = 0; k < GP_ARRAY_SIZE(names); k++)
		if (strcmp(n, names[k]) == 0)
			return true;
	return false;
}

static bool is_dtoh(const char *n)
{
	return strstr(n, "DtoH") || strstr(n, "Device -> Host") ||
	       strstr(n, "Device -> Pageable") || strstr(n, "Device -> Pinned");
}

/*
 * What blocks the host: each part's own union (sync calls, item ops, the
 * DtoH copies' launch calls: a blocking cudaMemcpy waits for the GPU), and
 * the GPU time of the copies, which is not host time.
 */
struct sync_count {
	size_t nsync, nitem, ndtoh;
	int64_t sync_ns, item_ns, dtoh_ns, dtoh_call_ns;
	struct gp_ivset sync, item, call;
};

/* what count_sync() looks for in a name; decided once per name (string id) */
enum { SN_DONE = 1, SN_SYNC = 2, SN_ITEM = 4, SN_SCALAR = 8, SN_DTOH = 16 };

static uint8_t sync_name(uint8_t *memo, const struct gp_trace *t, uint32_t name)
{
	const char *n;

	if (memo[name])
		return memo[name];
	n = gp__strtab_get(&t->strs, name);
	memo[name] = SN_DONE | (is_sync_call(n) ? SN_SYNC : 0) |
	             (strcmp(n, "aten::item") == 0 ? SN_ITEM : 0) |
	             (strcmp(n, "aten::_local_scalar_dense") == 0 ? SN_SCALAR : 0) |
	             (is_dtoh(n) ? SN_DTOH : 0);
	return memo[name];
}

/* counts into @p s; the union of its three parts goes to @p bl */
static int count_sync(const struct gp__actx *c, struct sync_count *s, struct gp_ivset *bl)
{
	static const uint8_t api[] = { GP_K_RUNTIME, GP_K_DRIVER };
	const struct gp__idx *ops = &c->by_kind[GP_K_CPU_OP], *mc = &c->by_kind[GP_K_MEMCPY];
	const struct gp_trace *t = c->t;
	struct gp_ivset *const parts[] = { &s->sync, &s->item, &s->call };
	uint8_t *memo;
	size_t k, j;
	int rc = 0;

	memo = gp__calloc(gp__strtab_count(&t->strs) + 1, 1);
	if (!memo)
		return gp__error(GP_ENOMEM, "out of memory");
	for (j = 0; j < GP_ARRAY_SIZE(api); j++) {
		const struct gp__idx *x = &c->by_kind[api[j]];

		for (k = 0; k < x->n; k++) {
			uint32_t i = x->v[k];

			if (!(sync_name(memo, t, t->ev.name[i]) & SN_SYNC) || !in_step(c, c->ts[i]))
				continue;
			s->nsync++;
			GP_TRY(gp__ivset_add(&s->sync, c->ts[i], gp__end(c, i)));
		}
	}
	for (k = 0; k < ops->n; k++) {
		uint32_t i = ops->v[k];
		uint8_t f = sync_name(memo, t, t->ev.name[i]);

		/* aten::_local_scalar_dense is called by aten::item: blocked time, not a call */
		if (!(f & (SN_ITEM | SN_SCALAR)) || !in_step(c, c->ts[i]))
			continue;
		if (f & SN_ITEM)
			s->nitem++;
		GP_TRY(gp__ivset_add(&s->item, c->ts[i], gp__end(c, i)));
	}
	/* device-to-host copies launched inside a step: .cpu(), .item(), .tolist() */
	for (k = 0; k < mc->n; k++) {
		uint32_t i = mc->v[k];
		int64_t l = gp__launcher(c, i);

		if (!(sync_name(memo, t, t->ev.name[i]) & SN_DTOH) ||
		    !in_step(c, l >= 0 ? c->ts[l] : c->ts[i]))
			continue;
		s->ndtoh++;
		s->dtoh_ns += c->dur[i];
		if (l >= 0)
			GP_TRY(gp__ivset_add(&s->call, c->ts[l], gp__end(c, (size_t)l)));
	}
	for (k = 0; k < GP_ARRAY_SIZE(parts); k++) {
		GP_TRY(gp__ivset_normalize(parts[k]));
		for (j = 0; j < parts[k]->n; j++)
			GP_TRY(gp__ivset_add(bl, parts[k]->v[j].s, parts[k]->v[j].e));
	}
	s->sync_ns = gp__ivset_len(&s->sync);
	s->item_ns = gp__ivset_len(&s->item);
	s->dtoh_call_ns = gp__ivset_len(&s->call);
	GP_TRY(gp__ivset_normalize(bl));
out:
	gp__free(memo);
	return rc;
}

/* the part of the blocked host time that dominates, in words, and its time */
static const char *sync_major(const struct sync_count *s, int64_t *ns)
{
	if (s->dtoh_call_ns >= s->sync_ns && s->dtoh_call_ns >= s->item_ns) {
		*ns = s->dtoh_call_ns;
		return s->ndtoh == 1 ? "the device-to-host copy's launch call"
		                     : "the device-to-host copies' launch calls";
	}
	*ns = s->sync_ns >= s->item_ns ? s->sync_ns : s->item_ns;
	return s->sync_ns >= s->item_ns ? "sync calls" : ".item() ops";
}

/*
 * "Synchronisation inside the steps: 12 sync calls, 1 .item() call; host
 * blocked 1.2 ms (4.0% of the step time), most in sync calls": the kinds seen,
 * with plurals, and the part that dominates. Without ProfilerStep the one
 * step is the traced window, and the title says so.
 */
static void sync_title(char *buf, size_t n, const struct gp__actx *c, const struct sync_count *s,
                       bool has_gpu, int64_t blocked_ns, double share)
{
	const struct {
		size_t n;
		const char *one, *many;
	} parts[] = {
		{ s->nsync, "sync call", "sync calls" },
		{ s->nitem, ".item() call", ".item() calls" },
		{ s->ndtoh, "device-to-host copy", "device-to-host copies" },
	};
	const char *where =
	    c->nsteps ? "inside the step" : "in the traced window (no ProfilerStep)";
	char d[32], pc[16];
	int64_t major_ns;
	const char *major = sync_major(s, &major_ns);
	size_t k, len;
	bool first = true;

	len = (size_t)snprintf(
	    buf, n, "%s %s%s: ", has_gpu ? "Synchronisation" : "Possible synchronisation", where,
	    has_gpu ? "" : " (no GPU activity recorded)");
	for (k = 0; k < GP_ARRAY_SIZE(parts) && len < n; k++) {
		if (!parts[k].n)
			continue;
		len +=
		    (size_t)snprintf(buf + len, n - len, "%s%zu %s", first ? "" : ", ", parts[k].n,
		                     plural((int64_t)parts[k].n, parts[k].one, parts[k].many));
		first = false;
	}
	if (len < n && blocked_ns > 0)
		snprintf(buf + len, n - len, "; host blocked %s (%s of the %s)%s%s",
		         gp__fmt_dur(d, sizeof(d), (double)blocked_ns, 0),
		         gp__fmt_pct(pc, sizeof(pc), share, 0), c->nsteps ? "step time" : "window",
		         gp__fnd_pct(major_ns, blocked_ns) > 50.0 ? ", most in " : "",
		         gp__fnd_pct(major_ns, blocked_ns) > 50.0 ? major : "");
}

static void sync_release(struct sync_count *s)
{
	gp__ivset_release(&s->sync);
	gp__ivset_release(&s->item);
	gp__ivset_release(&s->call);
}

/*
 * The host time blocked in synchronisation (count_sync) while the GPU is
 * idle: inside the GPU window, outside every GPU op. gpu-idle and
 * sync-in-step both read it, to say how they relate. 0 without steps or GPU.
 */
static int sync_blocked_idle(const struct gp__actx *c, const struct gp__fnd_base *b, int64_t *out)
{
	struct gp_ivset blocked = GP_IVSET_INIT, busy = GP_IVSET_INIT;
	struct sync_count s;
	int64_t ws = INT64_MAX, we = INT64_MIN;
	size_t k;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	*out = 0;
	if (b->step_total_ns < 0 || !b->has_gpu || !c->gpu.n)
		return 0;
	GP_TRY(count_sync(c, &s, &blocked));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];

		GP_TRY(gp__ivset_add(&busy, c->ts[i], gp__end(c, i)));
		ws = c->ts[i] < ws ? c->ts[i] : ws;
		we = gp__end(c, i) > we ? gp__end(c, i) : we;
	}
	GP_TRY(gp__ivset_normalize(&busy));
	*out = gp__ivset_len_within(&blocked, ws, we) - gp__ivset_overlap_len(&blocked, &busy);
	if (*out < 0)
		*out = 0;
out:
	gp__ivset_release(&blocked);
	gp__ivset_release(&busy);
	sync_release(&s);
	return rc;
}

static int rule_sync(const struct gp__actx *c, const struct gp_value *r,
                     const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	struct gp_ivset blocked = GP_IVSET_INIT;
	struct sync_count s;
	struct gp_value *ev = NULL;
	int64_t blocked_ns, major_ns, idle_ns = 0;
	double share;
	char title[320], sugg[900], gd[32], id[32], rel[300] = "", full[1200];
	int rc = 0;

	(void)r;
	memset(&s, 0, sizeof(s));
	if (b->step_total_ns < 0)
		return 0;
	GP_TRY(count_sync(c, &s, &blocked));
	if (!s.nsync && !s.nitem && !s.ndtoh)
		goto out;
	blocked_ns = gp__ivset_len(&blocked);
	share = gp__fnd_pct(blocked_ns, b->step_total_ns);
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	/* host_blocked_ns = sync_ns + item_ns + dtoh_copy_call_ns - parts_overlap_ns */
	GP_TRY(gp_obj_set_int(ev, "sync_calls", (int64_t)s.nsync));
	GP_TRY(gp_obj_set_int(ev, "sync_ns", s.sync_ns));
	GP_TRY(gp_obj_set_int(ev, "item_calls", (int64_t)s.nitem));
	GP_TRY(gp_obj_set_int(ev, "item_ns", s.item_ns));
	GP_TRY(gp_obj_set_int(ev, "dtoh_copies", (int64_t)s.ndtoh));
	GP_TRY(gp_obj_set_int(ev, "dtoh_copy_call_ns", s.dtoh_call_ns));
	GP_TRY(gp_obj_set_int(ev, "parts_overlap_ns",
	                      s.sync_ns + s.item_ns + s.dtoh_call_ns - blocked_ns));
	GP_TRY(gp_obj_set_int(ev, "host_blocked_ns", blocked_ns));
	GP_TRY(gp_obj_set_int(ev, "dtoh_copy_gpu_ns", s.dtoh_ns));
	GP_TRY(gp_obj_set_int(ev, "step_total_ns", b->step_total_ns));
	GP_TRY(gp_obj_set_int(ev, "profiler_steps", (int64_t)c->nsteps));
	GP_TRY(gp_obj_set_double(ev, "host_blocked_pct", share));
	/* the part of it the GPU is idle for: gpu-idle's host wait, named there too */
	idle_ns = b->sync_idle_ns;
	if (b->has_gpu)
		GP_TRY(gp_obj_set_int(ev, "blocked_while_gpu_idle_ns", idle_ns));
	if (b->idle_pct > IDLE_PCT && gp__fnd_pct(idle_ns, b->idle_ns) >= SYNC_IDLE_PCT)
		snprintf(rel, sizeof(rel),
		         "; for %s of it the GPU is idle too (gpu-idle): the host waits while the "
		         "GPU has nothing to run, so what the wait is for (another stream, another "
		         "process, the copy) is worth a look in the timeline",
		         gp__fmt_dur(id, sizeof(id), (double)idle_ns, 0));
	sync_title(title, sizeof(title), c, &s, b->has_gpu, blocked_ns, share);
	if (!b->has_gpu)
		snprintf(
		    sugg, sizeof(sugg),
		    "the trace has no GPU activity, so whether these calls wait for a GPU is "
		    "not known: if the tensors live on a GPU, keep losses and metrics there and "
		    "read them every N steps, and avoid .item()/.cpu()/print of tensors in the "
		    "loop");
	else if (sync_major(&s, &major_ns) && major_ns == s.dtoh_call_ns && s.dtoh_call_ns > 0)
		snprintf(sugg, sizeof(sugg),
		         "the host waits in blocking device-to-host copies (a synchronous "
		         "cudaMemcpy/hipMemcpy under .cpu(), .tolist(), .item() or printing a "
		         "tensor returns only when the GPU has run everything queued before it and "
		         "the copy; the copies themselves take %s on the GPU): copy with "
		         "tensor.to(\"cpu\", non_blocking=True) into pinned memory and wait on an "
		         "event only where the value is needed, or read values every N steps",
		         gp__fmt_dur(gd, sizeof(gd), (double)s.dtoh_ns, 0));
	else
		snprintf(
		    sugg, sizeof(sugg),
		    "each sync stalls the CPU until the GPU catches up: keep losses and metrics "
		    "on the GPU and read them every N steps, avoid .item()/.cpu()/print of "
		    "tensors in the loop, and use non_blocking=True copies with events instead "
		    "of torch.cuda.synchronize()");
	snprintf(full, sizeof(full), "%s%s", sugg, rel);
	rc = gp__fnd_add(fl, "sync-in-step", share > SYNC_MEDIUM_PCT ? GP_FND_MEDIUM : GP_FND_LOW,
	                 share, title, ev, full);
	ev = NULL;
out:
	gp_value_free(ev);
	gp__ivset_release(&blocked);
	sync_release(&s);
	return rc;
}

/* ---- pageable-copies: memory_ops rows with pageable = true ---- */

static int rule_pageable(const struct gp__actx *c, const struct gp_value *r,
                         const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *mo = gp_obj_get(r, "memory_ops");
	struct gp_value *ev = NULL;
	int64_t n = 0, bytes = 0, time_ns = 0, v;
	bool bytes_known = false;
	double share;
	char title[160];
	size_t k;
	int rc = 0;

	(void)c;
	for (k = 0; k < gp_value_len(mo); k++) {
		const struct gp_value *row = gp_arr_get(mo, k);
		const char *kind = gp_value_get_str(gp_obj_get(row, "kind"));

		if (!kind || strcmp(kind, "memcpy") != 0 ||
		    !gp_value_get_bool(gp_obj_get(row, "pageable"), false) ||
		    !gp__fnd_geti(row, "count", &v))
			continue;
		n += v;
		if (gp__fnd_geti(row, "total_ns", &v))
			time_ns += v;
		if (gp__fnd_geti(row, "total_bytes", &v)) {
			bytes += v;
			bytes_known = true;
		}
	}
	if (!n || !b->has_gpu)
		return 0;
	share = gp__fnd_pct(time_ns, b->window_ns);
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_int(ev, "copies", n));
	if (bytes_known)
		GP_TRY(gp_obj_set_int(ev, "bytes", bytes));
	else
		GP_TRY(gp_obj_set_null(ev, "bytes"));
	GP_TRY(gp_obj_set_int(ev, "copy_ns", time_ns));
	GP_TRY(gp_obj_set_double(ev, "gpu_window_pct", share));
	snprintf(title, sizeof(title), "%lld %s from or to pageable host memory", (long long)n,
	         plural(n, "copy", "copies"));
	rc = gp__fnd_add(fl, "pageable-copies",
	                 share > PAGEABLE_MEDIUM_PCT ? GP_FND_MEDIUM : GP_FND_LOW, share, title, ev,
	                 "pageable copies are staged and synchronous: pin host buffers "
	                 "(DataLoader(pin_memory=True), tensor.pin_memory()) and copy with "
	                 "tensor.to(device, non_blocking=True)");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- fp32-gemm-no-tc ---- */

/* AMD's names for its Matrix Cores: Tensile's MI<M>x<N> tile, MFMA, XDLOPS */
static bool amd_matrix_name(const char *n)
{
	const char *p;

	if (strcasestr(n, "mfma") || strcasestr(n, "xdlops"))
		return true;
	for (p = strstr(n, "_MI"); p; p = strstr(p + 1, "_MI"))
		if (p[3] >= '0' && p[3] <= '9')
			return true;
	return false;
}

/* the advice for GEMMs off the matrix units, for what this device has */
static void fp32_advice(const struct gp__fnd_dev *d, char *buf, size_t n)
{
	if (d->vendor == GP_VENDOR_AMD) {
		snprintf(buf, n,
		         "use the Matrix Cores: mixed precision with torch.autocast(\"cuda\", "
		         "dtype=torch.bfloat16) (ROCm builds of PyTorch use the \"cuda\" device; "
		         "bfloat16 needs no GradScaler), and hipBLASLt for the GEMMs "
		         "(TORCH_BLAS_PREFER_HIPBLASLT=1 where it is not the default)");
	} else if (d->vendor == GP_VENDOR_NVIDIA && d->cc < 80) {
		snprintf(buf, n,
		         "use the Tensor Cores of sm_%d with float16 (bfloat16 and TF32 need sm_80 "
		         "or newer): torch.autocast(\"cuda\", dtype=torch.float16) with "
		         "torch.amp.GradScaler(\"cuda\") for training; matrix sizes that are "
		         "multiples of 8 let cuBLAS and cuDNN pick Tensor Core kernels",
		         d->cc);
	} else if (d->vendor == GP_VENDOR_NVIDIA) {
		snprintf(buf, n,
		         "use the Tensor Cores: mixed precision (torch.autocast(\"cuda\", "
		         "dtype=torch.bfloat16), or float16 with torch.amp.GradScaler(\"cuda\")), "
		         "or TF32 for FP32 models (torch.backends.cuda.matmul.allow_tf32=True, "
		         "torch.backends.cudnn.allow_tf32=True, "
		         "torch.set_float32_matmul_precision(\"high\"))%s",
		         d->cc >= 89 ? "; FP8 (NVIDIA Transformer Engine) for the largest GEMMs"
		                     : "");
	} else {
		snprintf(buf, n,
		         "use the GPU's matrix units with mixed precision: "
		         "torch.autocast(\"cuda\", dtype=torch.bfloat16) where the GPU has "
		         "bfloat16 (NVIDIA sm_80 or newer, AMD Instinct), else float16 with "
		         "torch.amp.GradScaler(\"cuda\")");
	}
}

/* the GEMM/convolution time without Tensor Cores: no section splits kernel time so */
static int rule_fp32_gemm(const struct gp__actx *c, const struct gp_value *r,
                          const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	const struct gp__fnd_dev *d = &b->dev;
	const bool amd = d->vendor == GP_VENDOR_AMD;
	struct gp_ivset busy = GP_IVSET_INIT;
	struct gp_value *ev = NULL;
	int64_t kernel_ns = 0, gemm_ns = 0, notc_ns = 0, notc_busy_ns;
	size_t k, nnotc = 0;
	double share;
	char pc[16], title[200], sugg[640], what[96];
	int rc = 0;

	(void)r;
	/* NVIDIA's Tensor Cores start at sm_70; AMD's HIP reports 9.x for CDNA (MI100 on) */
	if (!b->has_gpu || d->cc < 70)
		return 0;
	for (k = 0; k < kx->n; k++) {
		uint32_t i = kx->v[k], nf = c->name_flags[c->t->ev.name[i]];
		const char *n = amd ? gp__strtab_get(&c->t->strs, c->t->ev.name[i]) : NULL;
		bool gemm = (nf & GP_NF_GEMM) || (amd && strncmp(n, "Cijk_", 5) == 0);
		bool mma = (nf & GP_NF_TENSOR_CORE) || (amd && amd_matrix_name(n));

		kernel_ns += c->dur[i];
		if (!gemm)
			continue;
		gemm_ns += c->dur[i];
		if (!mma) {
			notc_ns += c->dur[i];
			nnotc++;
			GP_TRY(gp__ivset_add(&busy, c->ts[i], gp__end(c, i)));
		}
	}
	share = gp__fnd_pct(notc_ns, kernel_ns);
	if (!(share > GEMM_NO_TC_PCT))
		goto out;
	/* the kernels of several streams overlap: the union is the time at stake in the window */
	GP_TRY(gp__ivset_normalize(&busy));
	notc_busy_ns = gp__ivset_len(&busy);
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp__fnd_ev_device(ev, d));
	GP_TRY(gp_obj_set_int(ev, "kernel_ns", kernel_ns));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_ns", gemm_ns));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_no_tc_ns", notc_ns));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_no_tc_kernels", (int64_t)nnotc));
	GP_TRY(gp_obj_set_double(ev, "gemm_conv_no_tc_pct", share));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_no_tc_busy_ns", notc_busy_ns));
	GP_TRY(gp_obj_set_double(ev, "gpu_window_pct", gp__fnd_pct(notc_busy_ns, b->window_ns)));
	if (d->vendor == GP_VENDOR_NVIDIA)
		snprintf(what, sizeof(what), "without Tensor Cores (sm_%d)", d->cc);
	else if (amd)
		snprintf(what, sizeof(what), "without Matrix Cores (%.60s)",
		         d->name ? d->name : "AMD GPU");
	else
		snprintf(what, sizeof(what), "without matrix units (compute capability %s)",
		         d->cc_text);
	snprintf(title, sizeof(title), "%s of kernel time is GEMM/convolution %s",
	         gp__fmt_pct(pc, sizeof(pc), share, 0), what);
	fp32_advice(d, sugg, sizeof(sugg));
	rc = gp__fnd_add(fl, "fp32-gemm-no-tc",
	                 share > GEMM_NO_TC_HIGH_PCT ? GP_FND_HIGH : GP_FND_MEDIUM,
	                 gp__fnd_pct(notc_busy_ns, b->window_ns), title, ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	gp__ivset_release(&busy);
	return rc;
}

/* ---- exposed-comm: gpu.communication_ns and gpu.comm_comp_overlap_pct ---- */

static int rule_exposed_comm(const struct gp__actx *c, const struct gp_value *r,
                             const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *g = gp_obj_get(r, "gpu");
	struct gp_value *ev = NULL;
	int64_t comm_ns, exposed_ns;
	double overlap, share;
	char pc[16], title[160], sugg[640];
	int rc = 0;

	(void)c;
	if (!b->has_gpu || !gp__fnd_geti(g, "communication_ns", &comm_ns) || comm_ns <= 0 ||
	    !gp__fnd_getd(g, "comm_comp_overlap_pct", &overlap))
		return 0;
	exposed_ns = comm_ns - (int64_t)llround((double)comm_ns * overlap / 100.0);
	share = gp__fnd_pct(exposed_ns, b->window_ns);
	if (!(share > EXPOSED_COMM_PCT))
		return 0;
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_int(ev, "comm_ns", comm_ns));
	GP_TRY(gp_obj_set_int(ev, "exposed_comm_ns", exposed_ns));
	GP_TRY(gp_obj_set_int(ev, "window_ns", b->window_ns));
	GP_TRY(gp_obj_set_double(ev, "exposed_comm_pct", share));
	GP_TRY(gp_obj_set_double(ev, "comm_comp_overlap_pct", overlap));
	snprintf(title, sizeof(title),
	         "Communication not overlapped by computation: %s of the GPU window",
	         gp__fmt_pct(pc, sizeof(pc), share, 0));
	snprintf(sugg, sizeof(sugg),
	         "overlap communication with computation: DDP bucket_cap_mb / "
	         "gradient_as_bucket_view, FSDP forward/backward prefetch, fewer and larger "
	         "collectives; check the interconnect (%s) and look for a straggler: "
	         "`gpuprof aggregate DIR` on the traces or reports of every rank names the rank "
	         "the others wait for, why, and each collective's bus bandwidth",
	         b->dev.vendor == GP_VENDOR_NVIDIA
	             ? "NVLink, InfiniBand; NCCL_DEBUG=INFO names the transport NCCL uses"
	         : b->dev.vendor == GP_VENDOR_AMD
	             ? "Infinity Fabric, InfiniBand; NCCL_DEBUG=INFO names the transport RCCL uses"
	             : "NCCL_DEBUG=INFO names the transport the collective library uses");
	rc =
	    gp__fnd_add(fl, "exposed-comm", share > EXPOSED_COMM_HIGH ? GP_FND_HIGH : GP_FND_MEDIUM,
	                share, title, ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- low-occupancy: gpu_utilization[*].achieved_occupancy_pct, the lowest device ---- */

static int rule_low_occupancy(const struct gp__actx *c, const struct gp_value *r,
                              const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *gu = gp_obj_get(r, "gpu_utilization"), *worst = NULL;
	struct gp_value *ev = NULL;
	double occ = NAN, o, util;
	char pc[16], title[160], sugg[640], batch[200];
	size_t k;
	int rc = 0;

	(void)c;
	if (!b->has_gpu)
		return 0;
	for (k = 0; k < gp_value_len(gu); k++) {
		const struct gp_value *row = gp_arr_get(gu, k);

		/* 0 means every kernel reported 0, an artefact of some sm90 kernels: unknown */
		if (gp__fnd_getd(row, "achieved_occupancy_pct", &o) && o > 0.0 &&
		    (!worst || o < occ)) {
			worst = row;
			occ = o;
		}
	}
	if (!worst || !(occ < LOW_OCC_PCT))
		return 0;
	if (!gp__fnd_getd(worst, "utilization", &util))
		util = NAN;
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_double(ev, "est_achieved_occupancy_pct", occ));
	GP_TRY(ev_copy_int(ev, "device", worst, "device"));
	GP_TRY(gp_obj_set_double(ev, "gpu_utilization_pct", 100.0 * util));
	snprintf(title, sizeof(title), "Low estimated achieved occupancy: %s",
	         gp__fmt_pct(pc, sizeof(pc), occ, 0));
	snprintf(sugg, sizeof(sugg),
	         "kernels launch too few blocks or threads to fill the %s: try %s, fuse small "
	         "operations (torch.compile), or check the grid and block sizes and the register "
	         "and %s use of the top kernels in %s",
	         gp__fnd_w_units(&b->dev), gp__fnd_w_batch(&b->dev, batch, sizeof(batch)),
	         gp__fnd_w_smem(&b->dev), gp__fnd_w_profiler(&b->dev));
	rc = gp__fnd_add(fl, "low-occupancy", occ < LOW_OCC_MEDIUM_PCT ? GP_FND_MEDIUM : GP_FND_LOW,
	                 100.0 * util, title, ev, sugg);
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- queue-saturated: launches.queue[*] ---- */

static int rule_queue(const struct gp__actx *c, const struct gp_value *r,
                      const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *l = gp_obj_get(r, "launches"), *q = gp_obj_get(l, "queue");
	struct gp_value *ev = NULL;
	int64_t max_depth = 0, full_ns = 0, limit, v, nfull = 0;
	double full_pct = 0.0, p;
	char title[160], dbuf[32];
	size_t k;
	int rc = 0;

	(void)c;
	if (!b->has_gpu || !gp__fnd_geti(l, "queue_limit", &limit))
		return 0;
	for (k = 0; k < gp_value_len(q); k++) {
		const struct gp_value *row = gp_arr_get(q, k);

		if (gp__fnd_geti(row, "max", &v) && v > max_depth)
			max_depth = v;
		if (gp__fnd_geti(row, "time_at_limit_ns", &v) && v > 0) {
			full_ns = gp__add_sat(full_ns, v);
			nfull++;
		}
		if (gp__fnd_getd(row, "time_at_limit_pct", &p))
			full_pct += p;
	}
	if (full_ns <= 0)
		return 0;
	if (!(ev = ev_new()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set_int(ev, "max_queue_depth", max_depth));
	GP_TRY(gp_obj_set_int(ev, "queue_limit", limit));
	GP_TRY(gp_obj_set_int(ev, "time_at_limit_ns", full_ns));
	GP_TRY(gp_obj_set_double(ev, "time_at_limit_pct", full_pct));
	GP_TRY(gp_obj_set_int(ev, "streams_at_limit", nfull));
	/* only CUDA has a known limit (launches.c): other runtimes never get here */
	/* per stream: the times of several streams are a sum, not wall time */
	snprintf(title, sizeof(title), "CUDA launch queue full (%lld pending launches) for %s%s",
	         (long long)limit, gp__fmt_dur(dbuf, sizeof(dbuf), (double)full_ns, 0),
	         nfull > 1 ? " summed over the streams" : "");
	rc = gp__fnd_add(
	    fl, "queue-saturated", GP_FND_MEDIUM, full_pct, title, ev,
	    "the CPU runs far ahead of the GPU and blocks on a full launch queue: the workload is "
	    "GPU-bound here, so speed up the top kernels; the CPU time spent blocked is free "
	    "for data loading or logging");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

const gp__fnd_rule_fn gp__fnd_rules[] = {
	rule_no_gpu,      rule_gpu_idle,   rule_launch_bound, rule_dataloader,    rule_sync,
	rule_pageable,    rule_fp32_gemm,  rule_exposed_comm, rule_low_occupancy, rule_queue,
	gp__fnd_critpath, gp__fnd_modules, gp__fnd_roofline,  gp__fnd_memory,
};
const size_t gp__fnd_nrules = GP_ARRAY_SIZE(gp__fnd_rules);
