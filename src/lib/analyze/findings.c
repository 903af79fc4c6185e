/* SPDX-License-Identifier: MIT */
/*
 * findings.c - the rules that turn a rank's numbers into ranked advice.
 *
 * gp__an_findings() runs last and writes r["findings"]: a list of
 * { id, severity, title, evidence, suggestion, impact_pct }, sorted by
 * severity (high, medium, low, info), then by impact_pct (the share of GPU
 * window or step time at stake) descending, then by id. Rule ids and
 * thresholds are stable and documented in docs/analyses/findings.md.
 *
 * Numbers come from the sections already in @p r where the schema fixes
 * them (gpu.window_ns, gpu.idle_ns, gpu.idle_breakdown, steps[*].breakdown);
 * everything else is computed here from the analysis context, so a finding
 * never depends on a section that is absent. Evidence values are real
 * numbers from this trace, with unit-suffixed keys.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "intervals.h"
#include "util/error.h"
#include "util/sort.h"

/* thresholds (docs/analyses/findings.md) */
#define IDLE_PCT            20.0
#define IDLE_HIGH_PCT       50.0
#define HOST_WAIT_SHARE_PCT 50.0
#define KERNEL_WAIT_NS      30000 /* HTA consecutive_kernel_delay, 30 µs */
#define LAUNCH_MIN_KERNELS  50
#define LAUNCH_MED_NS       10000
#define LAUNCH_SHORT_PCT    50.0
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
#define QUEUE_LIMIT         1024

enum sev { SEV_HIGH = 0, SEV_MEDIUM, SEV_LOW, SEV_INFO };

static const char *const sev_names[] = { "high", "medium", "low", "info" };

struct fnd {
	const char *id;
	enum sev sev;
	double impact;
	struct gp_value *v;
};

struct flist {
	struct fnd *v;
	size_t n, cap;
};

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

/*
 * Adds a finding; takes @p ev (the evidence object) even on failure.
 * @p title and @p suggestion are copied.
 */
static int add(struct flist *fl, const char *id, enum sev sev, double impact, const char *title,
               struct gp_value *ev, const char *suggestion)
{
	struct gp_value *f = gp_value_object();
	int rc = 0;

	if (!f || !ev) {
		gp_value_free(f);
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	GP_TRY(gp_obj_set(f, "evidence", ev));
	ev = NULL;
	GP_TRY(gp_obj_set_str(f, "id", id));
	GP_TRY(gp_obj_set_str(f, "severity", sev_names[sev]));
	GP_TRY(gp_obj_set_str(f, "title", title));
	GP_TRY(gp_obj_set_str(f, "suggestion", suggestion));
	GP_TRY(gp_obj_set_double(f, "impact_pct", impact));
	GP_TRY(gp__grow((void **)&fl->v, &fl->cap, fl->n + 1, sizeof(*fl->v)));
	fl->v[fl->n].id = id;
	fl->v[fl->n].sev = sev;
	fl->v[fl->n].impact = isfinite(impact) ? impact : 0.0;
	fl->v[fl->n].v = f;
	fl->n++;
	return 0;
out:
	gp_value_free(ev);
	gp_value_free(f);
	return rc;
}

static int cmp_fnd(const void *x, const void *y)
{
	const struct fnd *a = x, *b = y;

	if (a->sev != b->sev)
		return a->sev < b->sev ? -1 : 1;
	if (a->impact != b->impact)
		return a->impact > b->impact ? -1 : 1;
	return strcmp(a->id, b->id);
}

/* ---- shared numbers ---- */

struct base {
	bool has_gpu;
	int64_t gpu_start, gpu_end;
	int64_t window_ns, busy_ns, idle_ns;
	/* step time: the ProfilerSteps, or the whole span when there are none */
	int64_t step_start, step_end, step_total_ns;
};

static int gpu_union(const struct gp__actx *c, struct gp_ivset *u)
{
	size_t k;
	int rc = 0;

	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];

		GP_TRY(gp_ivset_add(u, c->ts[i], gp__end(c, i)));
	}
	GP_TRY(gp_ivset_normalize(u));
out:
	return rc;
}

static int base_init(const struct gp__actx *c, const struct gp_value *r, struct base *b)
{
	struct gp_ivset u = GP_IVSET_INIT;
	size_t k;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	b->has_gpu = c->gpu.n > 0;
	if (b->has_gpu) {
		b->gpu_start = INT64_MAX;
		b->gpu_end = INT64_MIN;
		for (k = 0; k < c->gpu.n; k++) {
			uint32_t i = c->gpu.v[k];

			if (c->ts[i] < b->gpu_start)
				b->gpu_start = c->ts[i];
			if (gp__end(c, i) > b->gpu_end)
				b->gpu_end = gp__end(c, i);
		}
		GP_TRY(gpu_union(c, &u));
		b->window_ns = b->gpu_end - b->gpu_start;
		b->busy_ns = gp_ivset_len(&u);
		b->idle_ns = b->window_ns - b->busy_ns;
		/* the report's own numbers win, so findings agree with the gpu section */
		{
			const struct gp_value *g = gp_obj_get(r, "gpu");
			int64_t w, bz, id;

			if (gp_value_get_int(gp_obj_get(g, "window_ns"), &w) &&
			    gp_value_get_int(gp_obj_get(g, "busy_ns"), &bz) &&
			    gp_value_get_int(gp_obj_get(g, "idle_ns"), &id) && w > 0) {
				b->window_ns = w;
				b->busy_ns = bz;
				b->idle_ns = id;
			}
		}
	}
	if (c->nsteps) {
		b->step_start = c->steps[0].ts;
		b->step_end = c->steps[0].end;
		for (k = 0; k < c->nsteps; k++) {
			b->step_total_ns += c->steps[k].end - c->steps[k].ts;
			if (c->steps[k].end > b->step_end)
				b->step_end = c->steps[k].end;
		}
	} else {
		b->step_start = c->span_start;
		b->step_end = c->span_end;
		b->step_total_ns = c->span_end - c->span_start;
	}
	/* the steps section's durations (tb_plugin's step bounds) win when present */
	{
		const struct gp_value *steps = gp_obj_get(r, "steps");
		int64_t sum = 0, d;

		for (k = 0; k < gp_value_len(steps); k++)
			if (gp_value_get_int(gp_obj_get(gp_arr_get(steps, k), "dur_ns"), &d))
				sum += d;
		if (sum > 0)
			b->step_total_ns = sum;
	}
out:
	gp_ivset_release(&u);
	return rc;
}

/* is @p ts inside a step (or anywhere when the trace has no steps)? */
static bool in_step(const struct gp__actx *c, int64_t ts)
{
	size_t lo = 0, hi = c->nsteps;

	if (!c->nsteps)
		return true;
	/* steps are sorted by start and do not nest: find the last start <= ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->steps[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ts < c->steps[lo - 1].end;
}

/* ---- no-gpu ---- */

static int rule_no_gpu(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	struct gp_value *ev;
	int rc = 0;

	if (b->has_gpu)
		return 0;
	ev = gp_value_object();
	if (!ev)
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = gp_obj_set_int(ev, "gpu_events", 0)) ||
	    (rc = gp_obj_set_int(ev, "cpu_ops", (int64_t)c->by_kind[GP_K_CPU_OP].n)) ||
	    (rc = gp_obj_set_int(ev, "span_ns", c->span_end - c->span_start))) {
		gp_value_free(ev);
		return rc;
	}
	return add(fl, "no-gpu", SEV_INFO, NAN, "No GPU activity in this trace", ev,
	           "profile with ProfilerActivity.CUDA (or run the workload on a GPU) to see GPU "
	           "kernels; the CPU sections still apply");
}

/* ---- gpu-idle ---- */

struct idle_sum {
	int64_t host_wait_ns, kernel_wait_ns, other_ns;
};

/* HTA's idle breakdown, summed over streams: computed when the gpu section lacks it */
static int idle_breakdown(const struct gp__actx *c, struct idle_sum *s)
{
	const struct gp_trace *t = c->t;
	int64_t *prev;
	size_t k;

	prev = gp__calloc(t->ntracks ? t->ntracks : 1, sizeof(*prev));
	if (!prev)
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < t->ntracks; k++)
		prev[k] = INT64_MIN;
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k], tr = t->ev.track[i];
		int64_t l;

		if (tr >= t->ntracks)
			continue;
		if (prev[tr] != INT64_MIN && c->ts[i] > prev[tr]) {
			int64_t gap = c->ts[i] - prev[tr];

			l = gp__launcher(c, i);
			if (l >= 0 && c->ts[l] > prev[tr])
				s->host_wait_ns += gap;
			else if (gap < KERNEL_WAIT_NS)
				s->kernel_wait_ns += gap;
			else
				s->other_ns += gap;
		}
		if (prev[tr] == INT64_MIN || gp__end(c, i) > prev[tr])
			prev[tr] = gp__end(c, i);
	}
	gp__free(prev);
	return 0;
}

static int rule_gpu_idle(const struct gp__actx *c, const struct gp_value *r, const struct base *b,
                         struct flist *fl)
{
	const struct gp_value *ib = gp_value_path(r, "gpu/idle_breakdown");
	struct idle_sum s = { 0, 0, 0 };
	struct gp_value *ev = NULL;
	double idle_pct = pct(b->idle_ns, b->window_ns), host_share;
	int64_t all;
	bool host;
	char title[160];
	int rc = 0;

	if (!b->has_gpu || !(idle_pct > IDLE_PCT))
		return 0;
	if (gp_value_type(ib) == GP_VALUE_ARRAY) {
		size_t k;

		for (k = 0; k < gp_value_len(ib); k++) {
			const struct gp_value *row = gp_arr_get(ib, k);
			int64_t v;

			if (gp_value_get_int(gp_obj_get(row, "host_wait_ns"), &v))
				s.host_wait_ns += v;
			if (gp_value_get_int(gp_obj_get(row, "kernel_wait_ns"), &v))
				s.kernel_wait_ns += v;
			if (gp_value_get_int(gp_obj_get(row, "other_ns"), &v))
				s.other_ns += v;
		}
	} else {
		GP_TRY(idle_breakdown(c, &s));
	}
	all = s.host_wait_ns + s.kernel_wait_ns + s.other_ns;
	host_share = pct(s.host_wait_ns, all);
	host = host_share > HOST_WAIT_SHARE_PCT;

	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "window_ns", b->window_ns));
	GP_TRY(gp_obj_set_int(ev, "busy_ns", b->busy_ns));
	GP_TRY(gp_obj_set_int(ev, "idle_ns", b->idle_ns));
	GP_TRY(gp_obj_set_double(ev, "idle_pct", idle_pct));
	GP_TRY(gp_obj_set_int(ev, "host_wait_ns", s.host_wait_ns));
	GP_TRY(gp_obj_set_int(ev, "kernel_wait_ns", s.kernel_wait_ns));
	GP_TRY(gp_obj_set_int(ev, "other_ns", s.other_ns));
	GP_TRY(gp_obj_set_double(ev, "host_wait_share_pct", host_share));
	snprintf(title, sizeof(title), "GPU idle %.1f%% of its window%s", idle_pct,
	         host ? ", mostly waiting for the host (host-bound)" : "");
	rc = add(fl, "gpu-idle", idle_pct > IDLE_HIGH_PCT ? SEV_HIGH : SEV_MEDIUM, idle_pct, title,
	         ev,
	         host ? "the CPU does not launch work fast enough: look at the top CPU ops and API "
	                "calls in the steps, move data loading off the critical path, and reduce "
	                "launches (CUDA graphs, torch.compile, larger batches)"
	              : "the GPU waits between kernels: look for synchronisation, copies and gaps "
	                "between streams in the timeline");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- launch-bound ---- */

static int rule_launch_bound(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	struct gp_ivset lu = GP_IVSET_INIT;
	struct gp_value *ev = NULL;
	int64_t *d = NULL, med, launch_ns;
	size_t k, nshort = 0, nlaunched = 0;
	double short_pct, idle_pct = pct(b->idle_ns, b->window_ns);
	bool many_short, cpu_bound;
	char title[200];
	int rc = 0;

	if (kx->n < LAUNCH_MIN_KERNELS)
		return 0;
	d = gp__calloc(kx->n, sizeof(*d));
	if (!d)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < kx->n; k++) {
		uint32_t i = kx->v[k];
		int64_t l = gp__launcher(c, i);

		d[k] = c->dur[i];
		if (l < 0)
			continue;
		nlaunched++;
		if (c->dur[i] < c->dur[l])
			nshort++;
		GP_TRY(gp_ivset_add(&lu, c->ts[l], gp__end(c, (size_t)l)));
	}
	GP_TRY(gp_ivset_normalize(&lu));
	launch_ns = gp_ivset_len(&lu);
	GP_TRY(gp__sort_i64(d, kx->n));
	med = (int64_t)gp__quantile_sorted(d, kx->n, 0.5);
	short_pct = pct((int64_t)nshort, (int64_t)nlaunched);
	many_short = med < LAUNCH_MED_NS && short_pct > LAUNCH_SHORT_PCT;
	cpu_bound = nlaunched > 0 && b->busy_ns > 0 && launch_ns >= b->busy_ns;
	if (!many_short && !cpu_bound)
		goto out;

	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "kernels", (int64_t)kx->n));
	GP_TRY(gp_obj_set_int(ev, "kernel_med_ns", med));
	GP_TRY(gp_obj_set_int(ev, "kernels_shorter_than_launch", (int64_t)nshort));
	GP_TRY(gp_obj_set_double(ev, "kernels_shorter_than_launch_pct", short_pct));
	GP_TRY(gp_obj_set_int(ev, "launch_calls_ns", launch_ns));
	GP_TRY(gp_obj_set_int(ev, "gpu_busy_ns", b->busy_ns));
	GP_TRY(gp_obj_set_double(ev, "gpu_idle_pct", idle_pct));
	snprintf(title, sizeof(title),
	         "Launch-bound: %zu kernels, median %.1f µs, %.0f%% shorter than their launch call",
	         kx->n, (double)med / 1000.0, isfinite(short_pct) ? short_pct : 0.0);
	rc = add(fl, "launch-bound",
	         isfinite(idle_pct) && idle_pct > IDLE_HIGH_PCT ? SEV_HIGH : SEV_MEDIUM, idle_pct,
	         title, ev,
	         "launch fewer, larger kernels: capture the step in a CUDA graph "
	         "(torch.cuda.graphs / torch.compile(mode=\"reduce-overhead\")), fuse small "
	         "operations with torch.compile, or raise the batch size");
	ev = NULL;
out:
	gp_value_free(ev);
	gp_ivset_release(&lu);
	gp__free(d);
	return rc;
}

/* ---- dataloader ---- */

static bool is_dataloader(const char *n)
{
	return strncmp(n, "enumerate(DataLoader)", 21) == 0 ||
	       strncmp(n, "enumerate(DataPipe)", 19) == 0;
}

/* tb_plugin's DataLoader role, approximated when the steps section is absent */
static int dataloader_own(const struct gp__actx *c, const struct base *b, int64_t *dl_ns)
{
	static const uint8_t above[] = { GP_K_KERNEL, GP_K_MEMCPY, GP_K_MEMSET, GP_K_RUNTIME,
		                         GP_K_DRIVER };
	static const uint8_t dl_kinds[] = { GP_K_CPU_OP, GP_K_USER_ANNOTATION };
	struct gp_ivset dl = GP_IVSET_INIT, hi = GP_IVSET_INIT, o = GP_IVSET_INIT;
	size_t k, j;
	int rc = 0;

	for (j = 0; j < GP_ARRAY_SIZE(dl_kinds); j++) {
		const struct gp__idx *x = &c->by_kind[dl_kinds[j]];

		for (k = 0; k < x->n; k++)
			if (is_dataloader(gp__ev_name(c->t, x->v[k])))
				GP_TRY(gp_ivset_add(&dl, c->ts[x->v[k]], gp__end(c, x->v[k])));
	}
	for (j = 0; j < GP_ARRAY_SIZE(above); j++) {
		const struct gp__idx *x = &c->by_kind[above[j]];

		for (k = 0; k < x->n; k++)
			GP_TRY(gp_ivset_add(&hi, c->ts[x->v[k]], gp__end(c, x->v[k])));
	}
	GP_TRY(gp_ivset_normalize(&dl));
	GP_TRY(gp_ivset_normalize(&hi));
	GP_TRY(gp_ivset_subtract(&dl, &hi, &o));
	*dl_ns = 0;
	if (c->nsteps) {
		for (k = 0; k < c->nsteps; k++)
			*dl_ns += gp_ivset_len_within(&o, c->steps[k].ts, c->steps[k].end);
	} else {
		*dl_ns = gp_ivset_len_within(&o, b->step_start, b->step_end);
	}
out:
	gp_ivset_release(&dl);
	gp_ivset_release(&hi);
	gp_ivset_release(&o);
	return rc;
}

static int rule_dataloader(const struct gp__actx *c, const struct gp_value *r, const struct base *b,
                           struct flist *fl)
{
	const struct gp_value *steps = gp_obj_get(r, "steps");
	struct gp_value *ev = NULL;
	int64_t dl_ns = 0, step_ns = 0;
	size_t nsteps = 0, k;
	double share;
	char title[160];
	int rc = 0;

	if (gp_value_type(steps) == GP_VALUE_ARRAY && gp_value_len(steps)) {
		for (k = 0; k < gp_value_len(steps); k++) {
			const struct gp_value *s = gp_arr_get(steps, k);
			int64_t d, v;

			if (!gp_value_get_int(gp_obj_get(s, "dur_ns"), &d))
				continue;
			step_ns += d;
			nsteps++;
			if (gp_value_get_int(gp_value_path(s, "breakdown/dataloader_ns"), &v))
				dl_ns += v;
		}
	} else {
		GP_TRY(dataloader_own(c, b, &dl_ns));
		step_ns = b->step_total_ns;
		nsteps = c->nsteps ? c->nsteps : 1;
	}
	share = pct(dl_ns, step_ns);
	if (!(share > DATALOADER_PCT))
		goto out;
	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "dataloader_ns", dl_ns));
	GP_TRY(gp_obj_set_int(ev, "step_total_ns", step_ns));
	GP_TRY(gp_obj_set_int(ev, "steps", (int64_t)nsteps));
	GP_TRY(gp_obj_set_double(ev, "dataloader_pct", share));
	snprintf(title, sizeof(title), "DataLoader takes %.1f%% of the step time", share);
	rc = add(fl, "dataloader", share > DATALOADER_HIGH_PCT ? SEV_HIGH : SEV_MEDIUM, share,
	         title, ev,
	         "load data in parallel with the step: DataLoader(num_workers=N>0, "
	         "pin_memory=True, prefetch_factor=2+, persistent_workers=True); move "
	         "preprocessing to the workers or the GPU");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- sync-in-step ---- */

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

static int rule_sync(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	static const uint8_t api[] = { GP_K_RUNTIME, GP_K_DRIVER };
	const struct gp__idx *ops = &c->by_kind[GP_K_CPU_OP], *mc = &c->by_kind[GP_K_MEMCPY];
	struct gp_ivset blocked = GP_IVSET_INIT;
	struct gp_value *ev = NULL;
	int64_t sync_ns = 0, item_ns = 0, dtoh_ns = 0, blocked_ns;
	size_t k, j, nsync = 0, nitem = 0, ndtoh = 0;
	double share;
	char title[200];
	int rc = 0;

	for (j = 0; j < GP_ARRAY_SIZE(api); j++) {
		const struct gp__idx *x = &c->by_kind[api[j]];

		for (k = 0; k < x->n; k++) {
			uint32_t i = x->v[k];

			if (!is_sync_call(gp__ev_name(c->t, i)) || !in_step(c, c->ts[i]))
				continue;
			nsync++;
			sync_ns += c->dur[i];
			GP_TRY(gp_ivset_add(&blocked, c->ts[i], gp__end(c, i)));
		}
	}
	for (k = 0; k < ops->n; k++) {
		uint32_t i = ops->v[k];
		const char *n = gp__ev_name(c->t, i);

		if (!in_step(c, c->ts[i]))
			continue;
		if (strcmp(n, "aten::item") == 0) {
			nitem++;
			item_ns += c->dur[i];
			GP_TRY(gp_ivset_add(&blocked, c->ts[i], gp__end(c, i)));
		} else if (strcmp(n, "aten::_local_scalar_dense") == 0) {
			/* called by aten::item: counted in the blocked time, not twice */
			GP_TRY(gp_ivset_add(&blocked, c->ts[i], gp__end(c, i)));
		}
	}
	/* device-to-host copies launched inside a step: .cpu(), .item(), .tolist() */
	for (k = 0; k < mc->n; k++) {
		uint32_t i = mc->v[k];
		int64_t l = gp__launcher(c, i);

		if (!is_dtoh(gp__ev_name(c->t, i)) || !in_step(c, l >= 0 ? c->ts[l] : c->ts[i]))
			continue;
		ndtoh++;
		dtoh_ns += c->dur[i];
		if (l >= 0)
			GP_TRY(gp_ivset_add(&blocked, c->ts[l], gp__end(c, (size_t)l)));
	}
	if (!nsync && !nitem && !ndtoh)
		goto out;
	GP_TRY(gp_ivset_normalize(&blocked));
	blocked_ns = gp_ivset_len(&blocked);
	share = pct(blocked_ns, b->step_total_ns);

	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "sync_calls", (int64_t)nsync));
	GP_TRY(gp_obj_set_int(ev, "sync_ns", sync_ns));
	GP_TRY(gp_obj_set_int(ev, "item_calls", (int64_t)nitem));
	GP_TRY(gp_obj_set_int(ev, "item_ns", item_ns));
	GP_TRY(gp_obj_set_int(ev, "dtoh_copies", (int64_t)ndtoh));
	GP_TRY(gp_obj_set_int(ev, "dtoh_copy_ns", dtoh_ns));
	GP_TRY(gp_obj_set_int(ev, "host_blocked_ns", blocked_ns));
	GP_TRY(gp_obj_set_int(ev, "step_total_ns", b->step_total_ns));
	GP_TRY(gp_obj_set_double(ev, "host_blocked_pct", share));
	snprintf(title, sizeof(title),
	         "Synchronisation inside the step: %zu sync calls, %zu .item(), %zu device-to-host "
	         "copies",
	         nsync, nitem, ndtoh);
	rc = add(
	    fl, "sync-in-step", share > SYNC_MEDIUM_PCT ? SEV_MEDIUM : SEV_LOW, share, title, ev,
	    "each sync stalls the CPU until the GPU catches up: keep losses and metrics on the "
	    "GPU and read them every N steps, avoid .item()/.cpu()/print of tensors in the "
	    "loop, and use non_blocking=True copies with events instead of "
	    "torch.cuda.synchronize()");
	ev = NULL;
out:
	gp_value_free(ev);
	gp_ivset_release(&blocked);
	return rc;
}

/* ---- pageable-copies ---- */

static int rule_pageable(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	const struct gp__idx *mc = &c->by_kind[GP_K_MEMCPY];
	struct gp_value *ev = NULL;
	int64_t bytes = 0, time_ns = 0;
	size_t k, n = 0, nbytes_known = 0;
	double share;
	char title[160];
	int rc = 0;

	for (k = 0; k < mc->n; k++) {
		uint32_t i = mc->v[k], aux = c->t->ev.aux[i];

		if (!strstr(gp__ev_name(c->t, i), "Pageable"))
			continue;
		n++;
		time_ns += c->dur[i];
		if (aux < c->t->ngpu && c->t->gpu[aux].bytes >= 0) {
			bytes += c->t->gpu[aux].bytes;
			nbytes_known++;
		}
	}
	if (!n)
		return 0;
	share = pct(time_ns, b->window_ns);
	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "copies", (int64_t)n));
	if (nbytes_known)
		GP_TRY(gp_obj_set_int(ev, "bytes", bytes));
	else
		GP_TRY(gp_obj_set_null(ev, "bytes"));
	GP_TRY(gp_obj_set_int(ev, "copy_ns", time_ns));
	GP_TRY(gp_obj_set_double(ev, "gpu_window_pct", share));
	snprintf(title, sizeof(title), "%zu copies from or to pageable host memory", n);
	rc = add(fl, "pageable-copies", share > PAGEABLE_MEDIUM_PCT ? SEV_MEDIUM : SEV_LOW, share,
	         title, ev,
	         "pageable copies are staged and synchronous: pin host buffers "
	         "(DataLoader(pin_memory=True), tensor.pin_memory()) and copy with "
	         "tensor.to(device, non_blocking=True)");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- fp32-gemm-no-tc ---- */

static int rule_fp32_gemm(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	struct gp_value *ev = NULL;
	int64_t kernel_ns = 0, gemm_ns = 0, notc_ns = 0, best_cc = -1;
	size_t k, nnotc = 0;
	double share;
	char title[160];
	int64_t last_dev = -1;
	int rc = 0;

	for (k = 0; k < kx->n; k++) {
		uint32_t i = kx->v[k], aux = c->t->ev.aux[i];
		struct gp_device_props p;

		kernel_ns += c->dur[i];
		/* device properties are looked up once per run of the same device */
		if (aux < c->t->ngpu && c->t->gpu[aux].device >= 0 &&
		    c->t->gpu[aux].device != last_dev) {
			last_dev = c->t->gpu[aux].device;
			if (gp__trace_device_props(c->t, last_dev, &p) && p.compute_major >= 0) {
				int64_t cc = p.compute_major * 10 +
				             (p.compute_minor >= 0 ? p.compute_minor : 0);

				if (cc > best_cc)
					best_cc = cc;
			}
		}
		if (!(c->name_flags[c->t->ev.name[i]] & GP_NF_GEMM))
			continue;
		gemm_ns += c->dur[i];
		if (!(c->name_flags[c->t->ev.name[i]] & GP_NF_TENSOR_CORE)) {
			notc_ns += c->dur[i];
			nnotc++;
		}
	}
	share = pct(notc_ns, kernel_ns);
	if (best_cc < 70 || !(share > GEMM_NO_TC_PCT))
		return 0;
	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_double(ev, "compute_capability", (double)best_cc / 10.0));
	GP_TRY(gp_obj_set_int(ev, "kernel_ns", kernel_ns));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_ns", gemm_ns));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_no_tc_ns", notc_ns));
	GP_TRY(gp_obj_set_int(ev, "gemm_conv_no_tc_kernels", (int64_t)nnotc));
	GP_TRY(gp_obj_set_double(ev, "gemm_conv_no_tc_pct", share));
	snprintf(title, sizeof(title),
	         "%.1f%% of kernel time is GEMM/convolution without Tensor Cores (sm_%lld)", share,
	         (long long)best_cc);
	rc = add(
	    fl, "fp32-gemm-no-tc", share > GEMM_NO_TC_HIGH_PCT ? SEV_HIGH : SEV_MEDIUM,
	    pct(notc_ns, b->window_ns), title, ev,
	    "use Tensor Cores: mixed precision (torch.autocast(\"cuda\", dtype=torch.bfloat16) "
	    "or float16 with GradScaler), or TF32 for FP32 models "
	    "(torch.backends.cuda.matmul.allow_tf32=True, torch.backends.cudnn.allow_tf32=True, "
	    "torch.set_float32_matmul_precision(\"high\"))");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- exposed-comm ---- */

static int rule_exposed_comm(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	struct gp_ivset comm = GP_IVSET_INIT, comp = GP_IVSET_INIT, o = GP_IVSET_INIT;
	struct gp_value *ev = NULL;
	int64_t comm_ns, exposed_ns;
	double share;
	char title[160];
	size_t k;
	int rc = 0;

	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];

		if (c->ktype[i] == GP_KT_COMM)
			GP_TRY(gp_ivset_add(&comm, c->ts[i], gp__end(c, i)));
		else if (c->ktype[i] == GP_KT_COMP)
			GP_TRY(gp_ivset_add(&comp, c->ts[i], gp__end(c, i)));
	}
	GP_TRY(gp_ivset_normalize(&comm));
	GP_TRY(gp_ivset_normalize(&comp));
	comm_ns = gp_ivset_len(&comm);
	if (!comm_ns)
		goto out;
	GP_TRY(gp_ivset_subtract(&comm, &comp, &o));
	exposed_ns = gp_ivset_len(&o);
	share = pct(exposed_ns, b->window_ns);
	if (!(share > EXPOSED_COMM_PCT))
		goto out;
	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "comm_ns", comm_ns));
	GP_TRY(gp_obj_set_int(ev, "exposed_comm_ns", exposed_ns));
	GP_TRY(gp_obj_set_int(ev, "window_ns", b->window_ns));
	GP_TRY(gp_obj_set_double(ev, "exposed_comm_pct", share));
	GP_TRY(gp_obj_set_double(ev, "comm_comp_overlap_pct", pct(comm_ns - exposed_ns, comm_ns)));
	snprintf(title, sizeof(title),
	         "Communication not overlapped by computation: %.1f%% of the GPU window", share);
	rc = add(
	    fl, "exposed-comm", share > EXPOSED_COMM_HIGH ? SEV_HIGH : SEV_MEDIUM, share, title, ev,
	    "overlap communication with computation: DDP bucket_cap_mb / gradient_as_bucket_view, "
	    "FSDP forward/backward prefetch, fewer and larger collectives; check the "
	    "interconnect and look for stragglers with `gpuprof aggregate`");
	ev = NULL;
out:
	gp_value_free(ev);
	gp_ivset_release(&comm);
	gp_ivset_release(&comp);
	gp_ivset_release(&o);
	return rc;
}

/* ---- low-occupancy ---- */

static int rule_low_occupancy(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	struct gp_value *ev = NULL;
	double wsum = 0.0, occ;
	int64_t known_ns = 0;
	char title[160];
	size_t k;
	int rc = 0;

	for (k = 0; k < kx->n; k++) {
		uint32_t i = kx->v[k], aux = c->t->ev.aux[i];
		double o;

		if (aux >= c->t->ngpu)
			continue;
		o = c->t->gpu[aux].occupancy_pct;
		/* some sm90 kernels report 0: an artefact, not a measurement */
		if (!isfinite(o) || o <= 0.0)
			continue;
		wsum += o * (double)c->dur[i];
		known_ns += c->dur[i];
	}
	if (known_ns <= 0)
		return 0;
	occ = wsum / (double)known_ns;
	if (!(occ < LOW_OCC_PCT))
		return 0;
	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_double(ev, "est_achieved_occupancy_pct", occ));
	GP_TRY(gp_obj_set_int(ev, "occupancy_kernel_ns", known_ns));
	snprintf(title, sizeof(title), "Low estimated achieved occupancy: %.1f%%", occ);
	rc = add(fl, "low-occupancy", occ < LOW_OCC_MEDIUM_PCT ? SEV_MEDIUM : SEV_LOW,
	         pct(known_ns, b->window_ns), title, ev,
	         "kernels launch too few blocks or threads to fill the SMs: raise the batch size, "
	         "fuse small operations (torch.compile), or check the grid and block sizes and "
	         "register or shared-memory use of the top kernels");
	ev = NULL;
out:
	gp_value_free(ev);
	return rc;
}

/* ---- queue-saturated ---- */

struct qev {
	uint32_t track;
	int64_t ts;
	int delta;
};

static int cmp_qev(const void *x, const void *y)
{
	const struct qev *a = x, *b = y;

	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->delta - b->delta; /* starts (-1) before launches (+1) at a tie */
}

static int rule_queue(const struct gp__actx *c, const struct base *b, struct flist *fl)
{
	struct qev *q = NULL;
	struct gp_value *ev = NULL;
	size_t n = 0, k;
	int64_t depth = 0, max_depth = 0, full_ns = 0;
	double share;
	char title[160];
	int rc = 0;

	if (!c->gpu.n)
		return 0;
	q = gp__calloc(2 * c->gpu.n, sizeof(*q));
	if (!q)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];
		int64_t l = gp__launcher(c, i);

		if (l < 0)
			continue;
		q[n++] = (struct qev){ c->t->ev.track[i], c->ts[l], +1 };
		q[n++] = (struct qev){ c->t->ev.track[i], c->ts[i], -1 };
	}
	qsort(q, n, sizeof(*q), cmp_qev);
	for (k = 0; k < n; k++) {
		if (k && q[k].track != q[k - 1].track)
			depth = 0;
		depth += q[k].delta;
		if (depth > max_depth)
			max_depth = depth;
		if (depth >= QUEUE_LIMIT && k + 1 < n && q[k + 1].track == q[k].track)
			full_ns += q[k + 1].ts - q[k].ts;
	}
	if (full_ns <= 0)
		goto out;
	share = pct(full_ns, b->window_ns);
	ev = gp_value_object();
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(ev, "max_queue_depth", max_depth));
	GP_TRY(gp_obj_set_int(ev, "queue_limit", QUEUE_LIMIT));
	GP_TRY(gp_obj_set_int(ev, "time_at_limit_ns", full_ns));
	GP_TRY(gp_obj_set_double(ev, "time_at_limit_pct", share));
	snprintf(title, sizeof(title), "Launch queue full (%d pending launches) for %.1f ms",
	         QUEUE_LIMIT, (double)full_ns / 1e6);
	rc = add(
	    fl, "queue-saturated", SEV_MEDIUM, share, title, ev,
	    "the CPU runs far ahead of the GPU and blocks on a full launch queue: the workload is "
	    "GPU-bound here, so speed up the top kernels; the CPU time spent blocked is free "
	    "for data loading or logging");
	ev = NULL;
out:
	gp_value_free(ev);
	gp__free(q);
	return rc;
}

int gp__an_findings(const struct gp__actx *c, struct gp_value *r)
{
	struct flist fl = { NULL, 0, 0 };
	struct gp_value *list = NULL;
	struct base b;
	size_t k;
	int rc = 0;

	GP_TRY(base_init(c, r, &b));
	GP_TRY(rule_no_gpu(c, &b, &fl));
	if (b.has_gpu) {
		GP_TRY(rule_gpu_idle(c, r, &b, &fl));
		GP_TRY(rule_launch_bound(c, &b, &fl));
		GP_TRY(rule_pageable(c, &b, &fl));
		GP_TRY(rule_fp32_gemm(c, &b, &fl));
		GP_TRY(rule_exposed_comm(c, &b, &fl));
		GP_TRY(rule_low_occupancy(c, &b, &fl));
		GP_TRY(rule_queue(c, &b, &fl));
	}
	GP_TRY(rule_dataloader(c, r, &b, &fl));
	GP_TRY(rule_sync(c, &b, &fl));

	if (fl.n > 1)
		qsort(fl.v, fl.n, sizeof(*fl.v), cmp_fnd);
	list = gp_value_array();
	if (!list)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < fl.n; k++) {
		struct gp_value *v = fl.v[k].v;

		fl.v[k].v = NULL;
		GP_TRY(gp_arr_push(list, v));
	}
	rc = gp_obj_set(r, "findings", list);
	list = NULL;
out:
	gp_value_free(list);
	for (k = 0; k < fl.n; k++)
		gp_value_free(fl.v[k].v);
	gp__free(fl.v);
	return rc;
}
