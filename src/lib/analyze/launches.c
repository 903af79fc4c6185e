/* SPDX-License-Identifier: MIT */
/*
 * launches.c - the "launches" section: how the host feeds the GPU.
 *
 * A launch is a runtime/driver call with the first GPU event (c->gpu) it
 * started (same correlation id, gp__launcher()); a graph launch is one. For
 * each: launch delay = GPU start - end of the call; "short" when the GPU event
 * is shorter than its call; outliers when the call takes > 50 µs or the delay
 * is > 100 µs (HTA's defaults). Queue depth per stream: +1 at each launch
 * call, -1 when its (first) GPU event starts; its max, mean and, on CUDA, the
 * time spent at or above 1024 (its launch queue limit; other runtimes: none).
 * gpuprof counts every runtime/driver launch (cuLaunchKernel, hipLaunchKernel,
 * cudaGraphLaunch...), clips delays at 0 and weights the queue mean by time.
 * --compat hta follows HTA: launch stats only for cudaLaunchKernel,
 * cudaLaunchKernelExC, cudaMemcpyAsync and cudaMemsetAsync, unclipped delays;
 * the queue from HTA's launch-name list, keyed by stream number, its mean a
 * plain mean over the samples (pandas describe()) taken in HTA's order,
 * numpy's unstable sort by µs included (hta_queue_points()).
 */
#include "analyze-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/sort.h"

#define RUNTIME_CUTOFF_NS 50000
#define DELAY_CUTOFF_NS   100000
/*
 * CUDA's launch queue: a launch blocks the host thread once about 1024 are
 * pending on the device. HIP has no such documented depth (its AQL queues are
 * sized per stream and grow), so other runtimes get no limit.
 */
#define CUDA_QUEUE_LIMIT 1024

enum runtime { RT_UNKNOWN, RT_CUDA, RT_HIP };

/*
 * The runtime that launched the trace's GPU work: from the names of the
 * launching calls (cuda*, cu* vs hip*), else from the metadata PyTorch
 * writes (cuda_runtime_version, cupti_version vs hip_runtime_version,
 * roctracer_version); unknown when both or neither appear.
 */
static enum runtime trace_runtime(const struct gp__actx *c)
{
	bool cuda = false, hip = false;
	size_t k;

	for (k = 0; k < c->gpu.n; k++) {
		int64_t ln = gp__launcher(c, c->gpu.v[k]);
		const char *n;

		if (ln < 0)
			continue;
		n = gp__ev_name(c->t, (size_t)ln);
		if (strncmp(n, "hip", 3) == 0)
			hip = true;
		else if (strncmp(n, "cu", 2) == 0)
			cuda = true;
		if (cuda && hip)
			return RT_UNKNOWN;
	}
	if (!cuda && !hip) {
		cuda = gp_obj_get(c->t->meta, "cuda_runtime_version") ||
		       gp_obj_get(c->t->meta, "cupti_version");
		hip = gp_obj_get(c->t->meta, "hip_runtime_version") ||
		      gp_obj_get(c->t->meta, "roctracer_version");
	}
	return cuda == hip ? RT_UNKNOWN : cuda ? RT_CUDA : RT_HIP;
}

static bool name_in(const char *n, const char *const *list, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++)
		if (strcmp(n, list[k]) == 0)
			return true;
	return false;
}

/* HTA get_cuda_kernel_launch_stats(include_memory_events=True) */
static const char *const hta_stat_names[] = { "cudaLaunchKernel", "cudaLaunchKernelExC",
	                                      "cudaMemcpyAsync", "cudaMemsetAsync" };
/* HTA get_runtime_launch_events_mask() (CUDA and ROCm names) */
static const char *const hta_queue_names[] = {
	"cudaMemsetAsync", "cudaMemcpyAsync",  "cudaLaunchKernel",    "cudaLaunchKernelExC",
	"cuLaunchKernel",  "cuLaunchKernelEx", "hipLaunchKernel",     "hipExtModuleLaunchKernel",
	"hipMemsetAsync",  "hipMemcpyAsync",   "hipMemcpyWithStream",
};

static int64_t quantile(const int64_t *v, size_t n, double q)
{
	return (int64_t)llround(gp__quantile_sorted(v, n, q));
}

static int write_dist(struct gp_value *l, const char *key, const int64_t *d, size_t n);

/* the distribution of kernel durations (every kept kernel, launched or not) */
static int kernel_durations(const struct gp__actx *c, struct gp_value *l)
{
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	int64_t *d = gp__calloc(kx->n ? kx->n : 1, sizeof(*d));
	size_t k;
	int rc = 0;

	if (!d)
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < kx->n; k++)
		d[k] = c->dur[kx->v[k]];
	GP_TRY(gp__sort_i64(d, kx->n));
	GP_TRY(write_dist(l, "kernel_dur_ns", d, kx->n));
out:
	gp__free(d);
	return rc;
}

/* writes the distribution of the sorted @p d as object @p key of @p l */
static int write_dist(struct gp_value *l, const char *key, const int64_t *d, size_t n)
{
	struct gp_value *o = gp_value_object();
	static const char *const keys[] = { "min", "p50", "p90", "p99", "max", "mean" };
	size_t k;
	int rc = 0;

	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(l, key, o));
	if (!n) {
		for (k = 0; k < GP_ARRAY_SIZE(keys); k++)
			GP_TRY(gp_obj_set_null(o, keys[k]));
		return 0;
	}
	{
		double sum = 0;

		for (k = 0; k < n; k++)
			sum += (double)d[k];
		GP_TRY(gp_obj_set_int(o, "min", d[0]));
		GP_TRY(gp_obj_set_int(o, "p50", quantile(d, n, 0.5)));
		GP_TRY(gp_obj_set_int(o, "p90", quantile(d, n, 0.9)));
		GP_TRY(gp_obj_set_int(o, "p99", quantile(d, n, 0.99)));
		GP_TRY(gp_obj_set_int(o, "max", d[n - 1]));
		GP_TRY(gp_obj_set_int(o, "mean", (int64_t)llround(sum / (double)n)));
	}
out:
	return rc;
}

static int count_obj(struct gp_value *l, const char *key, int64_t count, size_t n,
                     int64_t threshold)
{
	struct gp_value *o = gp_value_object();
	int rc = 0;

	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(l, key, o));
	GP_TRY(gp_obj_set_int(o, "count", count));
	GP_TRY(gp_obj_set_double(o, "pct", n ? 100.0 * (double)count / (double)n : NAN));
	if (threshold >= 0)
		GP_TRY(gp_obj_set_int(o, "threshold_ns", threshold));
out:
	return rc;
}

struct qpoint {
	int32_t device; /* -1 under --compat hta */
	int64_t stream;
	int64_t t;
	int d; /* +1 launch, -1 GPU start */
	uint32_t ev;
};
_Static_assert(sizeof(struct qpoint) >= sizeof(struct gp_kv), "sort_qpoints' scratch");

static int cmp_qpoint(const void *x, const void *y)
{
	const struct qpoint *a = x, *b = y;

	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->d != b->d)
		return b->d - a->d; /* a launch before an execution at the same instant */
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/*
 * Orders the points as cmp_qpoint does, with stable radix passes from the
 * least significant key up: (launch first, event), then time, then the rank
 * of the (device, stream) pair. Many streams (hostile input) fall back to qsort.
 */
static int sort_qpoints(struct qpoint *p, size_t n)
{
	struct pairkey {
		int32_t device;
		int64_t stream;
	} pairs[64];
	int64_t rank[64];
	uint8_t *pair_of = NULL;
	struct qpoint *tmp = NULL;
	struct gp_kv *kv = NULL;
	size_t np = 0, i, j, last = 0;
	int rc = 0;

	if (n < 2)
		return 0;
	pair_of = gp__calloc(n, 1);
	kv = gp__calloc(n, sizeof(*kv));
	tmp = gp__calloc(n, sizeof(*tmp));
	if (!pair_of || !kv || !tmp)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < n; i++) {
		if (!np || pairs[last].device != p[i].device || pairs[last].stream != p[i].stream) {
			for (j = 0; j < np; j++)
				if (pairs[j].device == p[i].device &&
				    pairs[j].stream == p[i].stream)
					break;
			if (j == np) {
				if (np == GP_ARRAY_SIZE(pairs)) {
					qsort(p, n, sizeof(*p), cmp_qpoint);
					goto out;
				}
				pairs[np].device = p[i].device;
				pairs[np].stream = p[i].stream;
				np++;
			}
			last = j;
		}
		pair_of[i] = (uint8_t)last;
	}
	/* each pair's rank in (device, stream) order */
	for (i = 0; i < np; i++) {
		rank[i] = 0;
		for (j = 0; j < np; j++)
			rank[i] += pairs[j].device < pairs[i].device ||
			           (pairs[j].device == pairs[i].device &&
			            pairs[j].stream < pairs[i].stream);
	}
	/* tmp (n points of 32 bytes) is the sorts' scratch until the points are copied */
	for (i = 0; i < n; i++) {
		kv[i].key = (int64_t)((uint64_t)(p[i].d < 0) << 32 | p[i].ev);
		kv[i].val = i;
	}
	GP_TRY(gp__sort_kv_with(kv, n, (struct gp_kv *)(void *)tmp));
	for (i = 0; i < n; i++)
		kv[i].key = p[kv[i].val].t;
	GP_TRY(gp__sort_kv_with(kv, n, (struct gp_kv *)(void *)tmp));
	for (i = 0; i < n; i++)
		kv[i].key = rank[pair_of[kv[i].val]];
	GP_TRY(gp__sort_kv_with(kv, n, (struct gp_kv *)(void *)tmp));
	for (i = 0; i < n; i++)
		tmp[i] = p[kv[i].val];
	memcpy(p, tmp, n * sizeof(*p));
out:
	gp__free(pair_of);
	gp__free(kv);
	gp__free(tmp);
	return rc;
}

/* numpy's aheapsort_ (its introsort's fallback): moves @p tmp down from 1-based position @p i */
static void np_sift(const int64_t *key, size_t *a, size_t tmp, size_t i, size_t n)
{
	size_t j;

	for (j = i << 1; j <= n;) {
		if (j < n && key[a[j]] < key[a[j + 1]])
			j += 1;
		if (key[tmp] < key[a[j]]) {
			a[i] = a[j];
			i = j;
			j += j;
		} else {
			break;
		}
	}
	a[i] = tmp;
}

static void np_aheapsort(const int64_t *key, size_t *ix, size_t n)
{
	size_t *a = ix - 1, l, tmp; /* 1-based, as numpy's */

	for (l = n >> 1; l > 0; --l)
		np_sift(key, a, a[l], l, n);
	for (; n > 1;) {
		tmp = a[n];
		a[n] = a[1];
		n -= 1;
		np_sift(key, a, tmp, 1, n);
	}
}

#define NP_SMALL_QUICKSORT 16
#define NP_QS_STACK        128

/*
 * numpy 1.24's argsort(kind="quicksort") (npysort/quicksort.cpp, aheapsort_
 * and aquicksort_), which pandas' sort_values(by="ts") runs: an introsort
 * that is not stable, so events with the same µs come out in its order, and
 * the queue's samples with them. Sorts the positions @p ix by @p key.
 */
static void np_aquicksort(const int64_t *key, size_t *ix, size_t num)
{
	size_t *pl = ix, *pr, *stack[NP_QS_STACK], **sptr = stack;
	size_t *pm, *pi, *pj, *pk, vi, tmp;
	int depth[NP_QS_STACK], *psdepth = depth, cdepth = 0;
	int64_t vp;
	size_t u = num;

	if (num < 2)
		return;
	pr = ix + num - 1;
	while (u >>= 1)
		cdepth++;
	cdepth *= 2;
	for (;;) {
		if (cdepth < 0) {
			np_aheapsort(key, pl, (size_t)(pr - pl) + 1);
			goto stack_pop;
		}
		while (pr - pl > NP_SMALL_QUICKSORT) {
			pm = pl + ((pr - pl) >> 1);
			if (key[*pm] < key[*pl])
				tmp = *pm, *pm = *pl, *pl = tmp;
			if (key[*pr] < key[*pm])
				tmp = *pr, *pr = *pm, *pm = tmp;
			if (key[*pm] < key[*pl])
				tmp = *pm, *pm = *pl, *pl = tmp;
			vp = key[*pm];
			pi = pl;
			pj = pr - 1;
			tmp = *pm, *pm = *pj, *pj = tmp;
			for (;;) {
				do
					++pi;
				while (key[*pi] < vp);
				do
					--pj;
				while (vp < key[*pj]);
				if (pi >= pj)
					break;
				tmp = *pi, *pi = *pj, *pj = tmp;
			}
			pk = pr - 1;
			tmp = *pi, *pi = *pk, *pk = tmp;
			/* the larger partition goes on the stack */
			if (pi - pl < pr - pi) {
				*sptr++ = pi + 1;
				*sptr++ = pr;
				pr = pi - 1;
			} else {
				*sptr++ = pl;
				*sptr++ = pi - 1;
				pl = pi + 1;
			}
			*psdepth++ = --cdepth;
		}
		for (pi = pl + 1; pi <= pr; ++pi) {
			vi = *pi;
			vp = key[vi];
			pj = pi;
			pk = pi - 1;
			while (pj > pl && vp < key[*pk])
				*pj-- = *pk--;
			*pj = vi;
		}
	stack_pop:
		if (sptr == stack)
			break;
		pr = *(--sptr);
		pl = *(--sptr);
		cdepth = *(--psdepth);
	}
}

/* HTA's GPU rows: any event with a stream other than -1 */
static bool hta_gpu_row(const struct gp__actx *c, size_t i)
{
	return gp__kept(c, i) && c->t->ev.kind[i] != GP_K_TRACE &&
	       (c->t->ev.flags[i] & GP_EVF_HAS_STREAM) && c->t->ev.stream[i] != -1;
}

/* a kept call HTA counts as a launch (get_runtime_launch_events_mask), with an id */
static bool hta_listed_call(const struct gp__actx *c, size_t i)
{
	return gp__kept(c, i) && !hta_gpu_row(c, i) && c->t->ev.kind[i] != GP_K_TRACE &&
	       c->t->ev.corr[i] >= 0 &&
	       name_in(gp__ev_name(c->t, i), hta_queue_names, GP_ARRAY_SIZE(hta_queue_names));
}

/* the first position in @p gk (sorted by key) whose key is at least @p id */
static size_t kv_lower(const struct gp_kv *gk, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gk[mid].key < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * HTA's queue samples (TraceCounters._get_queue_length_time_series_for_rank),
 * in its order: the launch calls in file order, each once per GPU row of its
 * correlation id (a call without one takes part in the sort, then has no
 * stream), then those GPU rows in file order; that table sorted by ts as
 * pandas sorts it, then split by stream keeping that order. Allocates *@p out
 * (freed by the caller) and sets *@p np to its number of points.
 */
static int hta_queue_points(const struct gp__actx *c, struct qpoint **out, size_t *np)
{
	const struct gp_trace *t = c->t;
	struct gp_u64map calls;
	struct gp_kv *gk = NULL, *sk = NULL;
	struct qpoint *all = NULL, *p = NULL;
	int64_t *key = NULL;
	size_t *ix = NULL;
	size_t ng = 0, n = 0, m = 0, i, k, lo;
	uint64_t v;
	int rc = 0;

	*out = NULL;
	*np = 0;
	memset(&calls, 0, sizeof(calls));
	GP_TRY(gp__u64map_init(&calls, 1024));
	gk = gp__calloc(t->ev.n + 1, sizeof(*gk));
	if (!gk)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	/* GPU rows by correlation id, in file order among equal ids (a stable sort) */
	for (i = 0; i < t->ev.n; i++)
		if (hta_gpu_row(c, i) && t->ev.corr[i] >= 0)
			gk[ng++] = (struct gp_kv){ t->ev.corr[i], i };
	GP_TRY(gp__sort_kv(gk, ng));
	for (i = 0; i < t->ev.n; i++) {
		if (!hta_listed_call(c, i))
			continue;
		GP_TRY(gp__u64map_put(&calls, (uint64_t)t->ev.corr[i], 1));
		lo = kv_lower(gk, ng, t->ev.corr[i]);
		for (k = lo; k < ng && gk[k].key == t->ev.corr[i]; k++)
			m++;
		m += k == lo;
	}
	m += ng;
	all = gp__calloc(m + 1, sizeof(*all));
	key = gp__calloc(m + 1, sizeof(*key));
	ix = gp__calloc(m + 1, sizeof(*ix));
	sk = gp__calloc(m + 1, sizeof(*sk));
	p = gp__calloc(m + 1, sizeof(*p));
	if (!all || !key || !ix || !sk || !p)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->ev.n; i++) {
		if (!hta_listed_call(c, i))
			continue;
		lo = kv_lower(gk, ng, t->ev.corr[i]);
		for (k = lo; k < ng && gk[k].key == t->ev.corr[i]; k++)
			all[n++] = (struct qpoint){ -1, t->ev.stream[gk[k].val], c->ts[i], +1,
				                    (uint32_t)i };
		if (k == lo)
			all[n++] = (struct qpoint){ -2, 0, c->ts[i], +1, (uint32_t)i };
	}
	for (i = 0; i < t->ev.n; i++)
		if (hta_gpu_row(c, i) && t->ev.corr[i] >= 0 &&
		    gp__u64map_get(&calls, (uint64_t)t->ev.corr[i], &v))
			all[n++] =
			    (struct qpoint){ -1, t->ev.stream[i], c->ts[i], -1, (uint32_t)i };
	for (i = 0; i < n; i++) {
		key[i] = all[i].t;
		ix[i] = i;
	}
	np_aquicksort(key, ix, n);
	/* groupby("stream"): by stream, the sorted order kept; calls without a row dropped */
	for (i = k = 0; i < n; i++)
		if (all[ix[i]].device != -2)
			sk[k++] = (struct gp_kv){ all[ix[i]].stream, ix[i] };
	GP_TRY(gp__sort_kv(sk, k));
	for (i = 0; i < k; i++)
		p[i] = all[sk[i].val];
	*out = p;
	*np = k;
	p = NULL;
out:
	gp__u64map_release(&calls);
	gp__free(gk);
	gp__free(sk);
	gp__free(all);
	gp__free(key);
	gp__free(ix);
	gp__free(p);
	return rc;
}

static int write_queue(const struct gp__actx *c, struct gp_value *l)
{
	size_t n = 0, k, a, b;
	struct qpoint *p = NULL;
	struct gp_value *arr = gp_value_array();
	int64_t span = c->span_end - c->span_start;
	enum runtime rt = trace_runtime(c);
	uint8_t *seen = NULL;
	int64_t limit = rt == RT_CUDA ? CUDA_QUEUE_LIMIT : 0; /* 0: none known */
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(l, "queue", arr));
	GP_TRY(gp_obj_set_str(l, "runtime", rt == RT_CUDA ? "cuda" : rt == RT_HIP ? "hip" : NULL));
	if (limit)
		GP_TRY(gp_obj_set_int(l, "queue_limit", limit));
	else
		GP_TRY(gp_obj_set_null(l, "queue_limit"));
	if (c->hta) {
		GP_TRY(hta_queue_points(c, &p, &n));
	} else {
		p = gp__calloc(2 * c->gpu.n + 1, sizeof(*p));
		seen = gp__calloc(c->t->ev.n ? c->t->ev.n : 1, 1);
		if (!p || !seen)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		for (k = 0; k < c->gpu.n; k++) {
			uint32_t i = c->gpu.v[k];
			int64_t ln = gp__launcher(c, i);
			int32_t dev = gp__ev_device(c->t, i);

			/* one pending launch per call, a graph launch too: until its first op */
			if (ln < 0 || seen[ln])
				continue;
			seen[ln] = 1;
			p[n] =
			    (struct qpoint){ dev, c->t->ev.stream[i], c->ts[ln], +1, (uint32_t)ln };
			p[n + 1] = (struct qpoint){ dev, c->t->ev.stream[i], c->ts[i], -1, i };
			n += 2;
		}
		GP_TRY(sort_qpoints(p, n));
	}
	for (a = 0; a < n; a = b) {
		struct gp_value *o;
		int64_t q = 0, qmax = 0, at_limit = 0;
		double sum = 0, wsum = 0;
		int32_t dev = p[a].device;

		for (b = a + 1; b < n && p[b].device == p[a].device && p[b].stream == p[a].stream;
		     b++)
			;
		for (k = a; k < b; k++) {
			int64_t dt = k + 1 < b ? p[k + 1].t - p[k].t : 0;

			q += p[k].d;
			if (q > qmax || (c->hta && k == a)) /* HTA: the max of the samples */
				qmax = q;
			sum += (double)q;
			wsum += (double)q * (double)dt;
			if (limit && q >= limit)
				at_limit += dt;
		}
		for (k = a; k < b && dev < 0; k++)
			if (p[k].d < 0)
				dev = gp__ev_device(c->t, p[k].ev);
		o = gp_value_object();
		if (!o || (rc = gp_arr_push(arr, o))) {
			if (!rc)
				rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
		GP_TRY(gp_obj_set_int(o, "device", dev));
		GP_TRY(gp_obj_set_int(o, "stream", p[a].stream));
		GP_TRY(gp_obj_set_int(o, "max", qmax));
		if (c->hta || p[b - 1].t == p[a].t)
			GP_TRY(gp_obj_set_double(o, "mean", sum / (double)(b - a)));
		else
			GP_TRY(gp_obj_set_double(o, "mean", wsum / (double)(p[b - 1].t - p[a].t)));
		if (limit) {
			GP_TRY(gp_obj_set_int(o, "time_at_limit_ns", at_limit));
			GP_TRY(gp_obj_set_double(o, "time_at_limit_pct",
			                         span > 0 ? 100.0 * (double)at_limit / (double)span
			                                  : NAN));
		} else {
			GP_TRY(gp_obj_set_null(o, "time_at_limit_ns"));
			GP_TRY(gp_obj_set_null(o, "time_at_limit_pct"));
		}
	}
out:
	gp__free(seen);
	gp__free(p);
	return rc;
}

int gp__an_launches(const struct gp__actx *c, struct gp_value *r)
{
	struct gp_value *l = gp_value_object();
	int64_t *delay = NULL, nshort = 0, nrt = 0, ndelay = 0;
	uint8_t *seen = NULL;
	size_t n = 0, k;
	int rc = 0;

	if (!l)
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = gp_obj_set(r, "launches", l)))
		return rc;
	delay = gp__calloc(c->gpu.n ? c->gpu.n : 1, sizeof(*delay));
	seen = gp__calloc(c->t->ev.n ? c->t->ev.n : 1, 1);
	if (!delay || !seen)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t i = c->gpu.v[k];
		int64_t ln = gp__launcher(c, i), d, call_dur;

		if (ln < 0)
			continue;
		if (c->hta && !name_in(gp__ev_name(c->t, (size_t)ln), hta_stat_names,
		                       GP_ARRAY_SIZE(hta_stat_names)))
			continue;
		/*
		 * One launch per call: a graph launch starts many GPU ops, and only
		 * the first (c->gpu is in start order) measures its delay; the
		 * others wait for their predecessors, not for the launch. HTA
		 * counts every op of its (non-graph) calls.
		 */
		if (!c->hta && seen[ln])
			continue;
		seen[ln] = 1;
		call_dur = c->dur[ln];
		d = c->ts[i] - (c->ts[ln] + call_dur);
		if (!c->hta && d < 0)
			d = 0;
		delay[n++] = d;
		nshort += c->dur[i] < call_dur;
		nrt += call_dur > RUNTIME_CUTOFF_NS;
		ndelay += d > DELAY_CUTOFF_NS;
	}
	GP_TRY(gp__sort_i64(delay, n));
	GP_TRY(gp_obj_set_int(l, "count", (int64_t)n));
	GP_TRY(write_dist(l, "launch_delay_ns", delay, n));
	GP_TRY(kernel_durations(c, l));
	GP_TRY(count_obj(l, "short_kernels", nshort, n, -1));
	GP_TRY(count_obj(l, "runtime_outliers", nrt, n, RUNTIME_CUTOFF_NS));
	GP_TRY(count_obj(l, "delay_outliers", ndelay, n, DELAY_CUTOFF_NS));
	GP_TRY(write_queue(c, l));
out:
	gp__free(seen);
	gp__free(delay);
	return rc;
}
