/* SPDX-License-Identifier: MIT */
/*
 * steps.c - the per-step table ("steps"), its statistics ("step_stats") and
 * the TensorBoard-plugin GPU metrics ("gpu_utilization").
 *
 * Definitions follow kineto's tb_plugin (event_parser.py StepParser,
 * overall_parser.py, gpu_metrics_parser.py) so the Overview numbers
 * reproduce: host ProfilerStep spans are stretched to the device work their
 * runtime calls launched, each step's time is split among the roles Kernel >
 * Memcpy > Memset > Communication > Runtime > DataLoader > CPU Exec by
 * priority subtraction (so the parts sum exactly to the step), and trailing
 * steps whose device work looks truncated are flagged incomplete and left
 * out of the statistics. One departure: a kernel is Communication when the
 * kernel types call it so (classify.c: NCCL, RCCL, HCCL, symmetric-memory
 * and custom all-reduce kernels...), where tb_plugin only counts kernels
 * launched under a nccl:/gloo: op, which record_param_comms-era traces and
 * RCCL never have; --compat tb keeps the plugin's rule.
 * docs/analyses/steps.md has the exact rules.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "intervals.h"
#include "util/error.h"
#include "util/sort.h"

enum role { R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DATALOADER, R_CPU, R__N };

static const char *const role_key[R__N + 1] = {
	"kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other",
};

struct step {
	const char *name;
	int64_t number;         /* -1: none */
	int64_t host_s, host_e; /* the CPU span */
	int64_t s, e;           /* after tb_plugin's device adjustment */
	uint64_t ndev;          /* device events launched by runtime calls inside the host span */
	bool incomplete;
	int64_t cost[R__N + 1];
	int64_t busy_ns;
	int64_t kernels;
};

struct sctx {
	const struct gp__actx *c;
	struct gp_ivset role[R__N];
	struct step *st;
	size_t n, nkept; /* steps [0, nkept) are complete */
	bool has_gpu;    /* some device event was launched inside a step */
};

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);

	return n >= m && strcmp(s + n - m, x) == 0;
}

/* tb_plugin's NcclOpNameSet and GlooOpNameSet */
static bool is_comm_op(const char *name)
{
	static const char *const ops[] = { "broadcast", "reduce", "all_reduce", "all_gather",
		                           "reduce_scatter" };
	const char *op;
	size_t i;

	if (prefix(name, "nccl:"))
		op = name + 5;
	else if (prefix(name, "gloo:"))
		op = name + 5;
	else
		return false;
	for (i = 0; i < GP_ARRAY_SIZE(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

static bool is_dataloader(const char *name)
{
	return (prefix(name, "enumerate(DataLoader)#") && suffix(name, ".__next__")) ||
	       prefix(name, "enumerate(DataPipe)#");
}

enum host_role { HOST_CPU = 1, HOST_DATALOADER, HOST_COMM, HOST_STEP };

/* a host event's role from its name; a DataLoader step wins over a step name */
static uint8_t host_role(const char *name)
{
	if (is_dataloader(name))
		return HOST_DATALOADER;
	if (prefix(name, "ProfilerStep#"))
		return HOST_STEP;
	if (is_comm_op(name))
		return HOST_COMM;
	return HOST_CPU;
}

/* the role ranges, merged, over the whole trace (tb_plugin StepParser._parse_step) */
static int build_roles(struct sctx *x)
{
	const struct gp__actx *c = x->c;
	const struct gp_trace *t = c->t;
	struct gp_u64map comm;
	static const uint8_t kinds[] = { GP_K_CPU_OP, GP_K_USER_ANNOTATION, GP_K_GPU_ANNOTATION };
	uint8_t *role_of = NULL;
	size_t k, j;
	int rc = 0;

	memset(&comm, 0, sizeof(comm));
	GP_TRY(gp__u64map_init(&comm, 64));
	/* communication nodes: External ids of nccl:/gloo: collective ops */
	/* the role of a host event depends on its name only: decided once per name */
	role_of = gp__calloc(gp__strtab_count(&t->strs) + 1, 1);
	if (!role_of)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const struct gp__idx *ix = &c->by_kind[kinds[k]];

		for (j = 0; j < ix->n; j++) {
			uint32_t i = ix->v[j], name = t->ev.name[i];
			enum role r;

			if (!role_of[name])
				role_of[name] = host_role(gp__strtab_get(&t->strs, name));
			if (role_of[name] == HOST_STEP || (t->ev.flags[i] & GP_EVF_STEP))
				continue;
			r = role_of[name] == HOST_DATALOADER ? R_DATALOADER
			    : role_of[name] == HOST_COMM     ? R_COMM
			                                     : R_CPU;
			if (r == R_COMM && t->ev.ext[i] >= 0)
				GP_TRY(gp__u64map_put(&comm, (uint64_t)t->ev.ext[i], 1));
			GP_TRY(gp__ivset_add(&x->role[r], c->ts[i], gp__end(c, i)));
		}
	}
	for (j = 0; j < c->by_kind[GP_K_KERNEL].n; j++) {
		uint32_t i = c->by_kind[GP_K_KERNEL].v[j];
		uint64_t v;
		bool cm;

		if (c->opts.compat == GP_COMPAT_TB) /* tb_plugin: a kernel of a nccl:/gloo: op */
			cm = t->ev.ext[i] >= 0 && gp__u64map_get(&comm, (uint64_t)t->ev.ext[i], &v);
		else /* the kernel types' rule (classify.c), so the two tables agree */
			cm = c->ktype[i] == GP_KT_COMM;

		GP_TRY(gp__ivset_add(&x->role[cm ? R_COMM : R_KERNEL], c->ts[i], gp__end(c, i)));
	}
	for (j = 0; j < c->by_kind[GP_K_MEMCPY].n; j++) {
		uint32_t i = c->by_kind[GP_K_MEMCPY].v[j];

		GP_TRY(gp__ivset_add(&x->role[R_MEMCPY], c->ts[i], gp__end(c, i)));
	}
	for (j = 0; j < c->by_kind[GP_K_MEMSET].n; j++) {
		uint32_t i = c->by_kind[GP_K_MEMSET].v[j];

		GP_TRY(gp__ivset_add(&x->role[R_MEMSET], c->ts[i], gp__end(c, i)));
	}
	for (j = 0; j < c->by_kind[GP_K_RUNTIME].n; j++) {
		uint32_t i = c->by_kind[GP_K_RUNTIME].v[j];

		GP_TRY(gp__ivset_add(&x->role[R_RUNTIME], c->ts[i], gp__end(c, i)));
	}
	for (k = 0; k < R__N; k++)
		GP_TRY(gp__ivset_normalize(&x->role[k]));
out:
	gp__free(role_of);
	gp__u64map_release(&comm);
	return rc;
}

/* host steps: the CPU ProfilerSteps, or one step over the host operators */
static int build_host_steps(struct sctx *x)
{
	const struct gp__actx *c = x->c;
	size_t i, n = c->nsteps ? c->nsteps : 1;

	x->st = gp__calloc(n, sizeof(*x->st));
	if (!x->st)
		return gp__error(GP_ENOMEM, "out of memory");
	x->n = n;
	if (c->nsteps) {
		for (i = 0; i < n; i++) {
			struct step *s = &x->st[i];

			s->name = gp__ev_name(c->t, c->steps[i].ev);
			s->number = c->steps[i].number;
			s->host_s = s->s = c->steps[i].ts;
			s->host_e = s->e = c->steps[i].end;
		}
	} else {
		const struct gp__idx *ix = &c->by_kind[GP_K_CPU_OP];
		int64_t lo = INT64_MAX, hi = INT64_MIN;

		for (i = 0; i < ix->n; i++) {
			if (c->ts[ix->v[i]] < lo)
				lo = c->ts[ix->v[i]];
			if (gp__end(c, ix->v[i]) > hi)
				hi = gp__end(c, ix->v[i]);
		}
		if (lo > hi) { /* no operators: the whole trace */
			lo = c->span_start;
			hi = c->span_end;
		}
		x->st[0].name = "trace";
		x->st[0].number = -1;
		x->st[0].host_s = x->st[0].s = lo;
		x->st[0].host_e = x->st[0].e = hi;
	}
	return 0;
}

/*
 * tb_plugin StepParser._find_device_steps + _update_steps_duration: stretch
 * each host step to the device work launched by the runtime calls fully
 * inside it, chain the steps, and flag the truncated tail.
 */
static int device_steps(struct sctx *x)
{
	const struct gp__actx *c = x->c;
	const struct gp__idx *rt = &c->by_kind[GP_K_RUNTIME];
	static const uint8_t dkinds[] = { GP_K_KERNEL, GP_K_MEMCPY, GP_K_MEMSET };
	int64_t *rt_min = NULL, *rt_max = NULL, *dev_min = NULL, *dev_max = NULL;
	uint32_t *rt_cnt = NULL;
	uint8_t *rt_in = NULL;
	int64_t prev_end;
	size_t i, k, is, ir;
	int rc = 0;

	rt_min = gp__calloc(rt->n + 1, sizeof(*rt_min));
	rt_max = gp__calloc(rt->n + 1, sizeof(*rt_max));
	rt_cnt = gp__calloc(rt->n + 1, sizeof(*rt_cnt));
	rt_in = gp__calloc(rt->n + 1, 1);
	dev_min = gp__calloc(x->n, sizeof(*dev_min));
	dev_max = gp__calloc(x->n, sizeof(*dev_max));
	if (!rt_min || !rt_max || !rt_cnt || !rt_in || !dev_min || !dev_max)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < rt->n; i++) {
		rt_min[i] = INT64_MAX;
		rt_max[i] = INT64_MIN;
	}
	/* the device events of each runtime call (by correlation id) */
	for (k = 0; k < GP_ARRAY_SIZE(dkinds); k++) {
		const struct gp__idx *ix = &c->by_kind[dkinds[k]];

		for (i = 0; i < ix->n; i++) {
			uint32_t d = ix->v[i];
			int64_t l = gp__launcher(c, d);
			size_t p;

			if (l < 0 || c->t->ev.kind[l] != GP_K_RUNTIME)
				continue;
			p = c->kpos[l];
			rt_cnt[p]++;
			if (c->ts[d] < rt_min[p])
				rt_min[p] = c->ts[d];
			if (gp__end(c, d) > rt_max[p])
				rt_max[p] = gp__end(c, d);
		}
	}
	/* two-way merge of steps and runtime calls, both by start time */
	for (i = 0; i < x->n; i++) {
		dev_min[i] = INT64_MAX;
		dev_max[i] = INT64_MIN;
	}
	is = ir = 0;
	while (is < x->n && ir < rt->n) {
		uint32_t r = rt->v[ir];
		struct step *s = &x->st[is];

		if (c->ts[r] < s->host_s) {
			ir++;
		} else if (gp__end(c, r) <= s->host_e) {
			if (rt_cnt[ir]) {
				rt_in[ir] = 1;
				s->ndev += rt_cnt[ir];
				if (rt_min[ir] < dev_min[is])
					dev_min[is] = rt_min[ir];
				if (rt_max[ir] > dev_max[is])
					dev_max[is] = rt_max[ir];
				x->has_gpu = true;
			}
			ir++;
		} else if (c->ts[r] < s->host_e) {
			ir++;
		} else {
			is++;
		}
	}
	x->nkept = x->n;
	if (!x->has_gpu)
		goto out;

	/* the first step starts after device work launched before it ended */
	prev_end = x->st[0].host_s;
	if (dev_min[0] != INT64_MAX) {
		for (k = 0; k < GP_ARRAY_SIZE(dkinds); k++) {
			const struct gp__idx *ix = &c->by_kind[dkinds[k]];

			for (i = 0; i < ix->n; i++) {
				uint32_t d = ix->v[i];
				int64_t l = gp__launcher(c, d);
				size_t p = SIZE_MAX;

				if (l >= 0 && c->t->ev.kind[l] == GP_K_RUNTIME)
					p = c->kpos[l];
				if (p != SIZE_MAX && rt_in[p])
					continue; /* launched inside a step */
				if (gp__end(c, d) < dev_min[0] && gp__end(c, d) > prev_end)
					prev_end = gp__end(c, d);
			}
		}
	}
	for (i = 0; i < x->n; i++) {
		struct step *s = &x->st[i];
		int64_t st = prev_end > s->host_s ? prev_end : s->host_s;
		int64_t en = s->host_e;

		if (dev_min[i] == INT64_MAX) {
			if (en < st)
				en = st;
		} else {
			if (dev_max[i] > en)
				en = dev_max[i];
			if (en < st)
				en = st;
		}
		s->s = st;
		s->e = en;
		prev_end = en;
	}
	/* trailing steps without device work, or with < 80 % of the previous one's */
	if (x->n > 1) {
		size_t last = x->n;

		while (last > 0 && x->st[last - 1].ndev == 0)
			last--;
		if (last > 0) {
			size_t keep = last;

			if (last > 1 &&
			    (double)x->st[last - 2].ndev * 0.8 > (double)x->st[last - 1].ndev)
				keep = last - 1;
			x->nkept = keep;
		}
	}
out:
	for (i = x->nkept; i < x->n; i++)
		x->st[i].incomplete = true;
	gp__free(rt_min);
	gp__free(rt_max);
	gp__free(rt_cnt);
	gp__free(rt_in);
	gp__free(dev_min);
	gp__free(dev_max);
	return rc;
}

/* priority subtraction inside one step (tb_plugin OverallParser.Statistics) */
static int breakdown(struct sctx *x, struct step *s)
{
	struct gp_ivset slots = GP_IVSET_INIT, part = GP_IVSET_INIT, tmp = GP_IVSET_INIT;
	struct gp_ivset busy = GP_IVSET_INIT;
	const struct gp__idx *kx = &x->c->by_kind[GP_K_KERNEL];
	size_t r;
	int rc = 0;

	memset(s->cost, 0, sizeof(s->cost));
	if (s->e > s->s)
		GP_TRY(gp__ivset_add(&slots, s->s, s->e));
	for (r = 0; r < R__N; r++) {
		GP_TRY(gp__ivset_clip(&x->role[r], s->s, s->e, &part));
		s->cost[r] = gp__ivset_overlap_len(&slots, &part);
		GP_TRY(gp__ivset_subtract(&slots, &part, &tmp));
		gp__ivset_move(&slots, &tmp);
	}
	s->cost[R__N] = gp__ivset_len(&slots);

	/* device busy time: kernels, memcpy, memset (communication kernels too) */
	for (r = 0; r <= R_COMM; r++) {
		GP_TRY(gp__ivset_clip(&x->role[r], s->s, s->e, &part));
		GP_TRY(gp__ivset_union(&busy, &part, &tmp));
		gp__ivset_move(&busy, &tmp);
	}
	s->busy_ns = gp__ivset_len(&busy);
	/* kernels starting in [s, e): kx is in start order */
	s->kernels = gp__first_at(x->c, kx, s->e) - gp__first_at(x->c, kx, s->s);
out:
	gp__ivset_release(&slots);
	gp__ivset_release(&part);
	gp__ivset_release(&tmp);
	gp__ivset_release(&busy);
	return rc;
}

static int emit_steps(struct sctx *x, struct gp_value *r)
{
	struct gp_value *arr = gp_value_array();
	size_t i, k;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "steps", arr));
	for (i = 0; i < x->n; i++) {
		const struct step *s = &x->st[i];
		struct gp_value *o = gp_value_object(), *b;
		char key[48];

		if (!o)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, o));
		GP_TRY(gp_obj_set_str(o, "name", s->name));
		if (s->number >= 0)
			GP_TRY(gp_obj_set_int(o, "number", s->number));
		else
			GP_TRY(gp_obj_set_null(o, "number"));
		GP_TRY(gp_obj_set_int(o, "start_ns", s->s));
		GP_TRY(gp_obj_set_int(o, "dur_ns", s->e - s->s));
		GP_TRY(gp_obj_set_int(o, "host_start_ns", s->host_s));
		GP_TRY(gp_obj_set_int(o, "host_dur_ns", s->host_e - s->host_s));
		GP_TRY(gp_obj_set_bool(o, "incomplete", s->incomplete));
		GP_TRY(gp_obj_set_int(o, "gpu_busy_ns", s->busy_ns));
		GP_TRY(gp_obj_set_int(o, "kernel_count", s->kernels));
		GP_TRY(gp_obj_set_int(o, "device_events", (int64_t)s->ndev));
		b = gp_value_object();
		GP_TRY(gp_obj_set(o, "breakdown", b));
		for (k = 0; k <= R__N; k++) {
			snprintf(key, sizeof(key), "%s_ns", role_key[k]);
			GP_TRY(gp_obj_set_int(b, key, s->cost[k]));
		}
	}
out:
	return rc;
}

static int emit_stats(struct sctx *x, struct gp_value *r)
{
	struct gp_value *o = gp_value_object(), *b;
	int64_t *d = NULL, sum = 0, cost[R__N + 1] = { 0 };
	size_t n = x->nkept, i, k;
	char key[48];
	int rc = 0;

	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "step_stats", o));
	GP_TRY(gp_obj_set_int(o, "count", (int64_t)n));
	GP_TRY(gp_obj_set_int(o, "incomplete", (int64_t)(x->n - n)));
	d = gp__calloc(n ? n : 1, sizeof(*d));
	if (!d)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < n; i++) {
		d[i] = x->st[i].e - x->st[i].s;
		sum += d[i];
		for (k = 0; k <= R__N; k++)
			cost[k] += x->st[i].cost[k];
	}
	GP_TRY(gp__sort_i64(d, n));
	if (n) {
		double mean = (double)sum / (double)n, ss = 0;

		for (i = 0; i < n; i++)
			ss += ((double)d[i] - mean) * ((double)d[i] - mean);
		GP_TRY(gp_obj_set_int(o, "mean_ns", (int64_t)llround(mean)));
		GP_TRY(gp_obj_set_int(o, "median_ns",
		                      (int64_t)llround(gp__quantile_sorted(d, n, 0.5))));
		GP_TRY(
		    gp_obj_set_int(o, "p95_ns", (int64_t)llround(gp__quantile_sorted(d, n, 0.95))));
		GP_TRY(gp_obj_set_int(o, "min_ns", d[0]));
		GP_TRY(gp_obj_set_int(o, "max_ns", d[n - 1]));
		if (n > 1)
			GP_TRY(gp_obj_set_int(o, "std_ns",
			                      (int64_t)llround(sqrt(ss / (double)(n - 1)))));
		else
			GP_TRY(gp_obj_set_null(o, "std_ns"));
	} else {
		static const char *const keys[] = { "mean_ns", "median_ns", "p95_ns",
			                            "min_ns",  "max_ns",    "std_ns" };

		for (i = 0; i < GP_ARRAY_SIZE(keys); i++)
			GP_TRY(gp_obj_set_null(o, keys[i]));
	}
	b = gp_value_object();
	GP_TRY(gp_obj_set(o, "breakdown_pct", b));
	for (k = 0; k <= R__N; k++) {
		snprintf(key, sizeof(key), "%s_pct", role_key[k]);
		GP_TRY(gp_obj_set_double(b, key,
		                         sum > 0 ? 100.0 * (double)cost[k] / (double)sum : NAN));
	}
out:
	gp__free(d);
	return rc;
}

/* ---- GPU utilisation, est. SM efficiency, est. achieved occupancy ---- */

struct endpoint {
	int64_t t;
	int type; /* 0 start, 1 end: starts sort first */
	size_t seq;
	double v;
};

static int cmp_ep(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->type != y->type)
		return x->type - y->type;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sorts endpoints by (t, starts first, seq) with a radix sort on t * 2 + type:
 * seq is the insertion order, which the stable sort keeps. Time ranges too
 * wide for that key (hostile input) fall back to qsort.
 */
static int sort_endpoints(struct endpoint *ep, size_t n)
{
	struct gp_kv *kv;
	struct endpoint *tmp;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		lo = ep[i].t < lo ? ep[i].t : lo;
		hi = ep[i].t > hi ? ep[i].t : hi;
	}
	if (n < 2)
		return 0;
	if (hi - lo < 0 || hi - lo > INT64_MAX / 4) {
		qsort(ep, n, sizeof(*ep), cmp_ep);
		return 0;
	}
	kv = gp__calloc(n, sizeof(*kv));
	tmp = gp__calloc(n, sizeof(*tmp));
	if (!kv || !tmp) {
		gp__free(kv);
		gp__free(tmp);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		kv[i].key = (ep[i].t - lo) * 2 + ep[i].type;
		kv[i].val = i;
	}
	rc = gp__sort_kv(kv, n);
	for (i = 0; !rc && i < n; i++)
		tmp[i] = ep[kv[i].val];
	if (!rc)
		memcpy(ep, tmp, n * sizeof(*ep));
	gp__free(kv);
	gp__free(tmp);
	return rc;
}

/*
 * Est. SM efficiency of one device: sweep the kernels' blocks-per-SM, sum
 * the values of concurrent kernels, clip at 1, integrate inside [ws, we).
 * @return false when no kernel with blocks per SM > 0 overlaps the window.
 */
static int sm_efficiency(const struct gp__actx *c, int32_t dev, int64_t ws, int64_t we,
                         double *area, bool *any)
{
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	struct endpoint *ep;
	size_t n = 0, i;
	double val;
	int rc = 0;

	*area = 0;
	*any = false;
	ep = gp__calloc(2 * kx->n + 1, sizeof(*ep));
	if (!ep)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < kx->n; i++) {
		uint32_t k = kx->v[i];
		const struct gp_gpu_info *g;

		if (c->t->ev.aux[k] >= c->t->ngpu)
			continue;
		g = &c->t->gpu[c->t->ev.aux[k]];
		if (g->device != dev || !(g->blocks_per_sm > 0.0))
			continue;
		ep[n] = (struct endpoint){ c->ts[k], 0, n, g->blocks_per_sm };
		n++;
		ep[n] = (struct endpoint){ gp__end(c, k), 1, n, g->blocks_per_sm };
		n++;
	}
	GP_TRY(sort_endpoints(ep, n));
	val = n ? ep[0].v : 0;
	for (i = 1; i < n; i++) {
		if (ep[i].t > ep[i - 1].t && val > 1e-12) {
			int64_t s = ep[i - 1].t > ws ? ep[i - 1].t : ws;
			int64_t e = ep[i].t < we ? ep[i].t : we;

			if (e > s) {
				*area += (val < 1.0 ? val : 1.0) * (double)(e - s);
				*any = true;
			}
		}
		val += ep[i].type == 0 ? ep[i].v : -ep[i].v;
	}
out:
	gp__free(ep);
	return rc;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static int emit_gpu_util(struct sctx *x, struct gp_value *r)
{
	const struct gp__actx *c = x->c;
	const struct gp__idx *kx = &c->by_kind[GP_K_KERNEL];
	struct gp_value *arr = gp_value_array();
	struct gp_ivset ks = GP_IVSET_INIT;
	int32_t *devs = NULL;
	size_t ndev = 0, i, j;
	int64_t ws, we;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "gpu_utilization", arr));
	if (!x->nkept)
		goto out;
	ws = x->st[0].s;
	we = x->st[x->nkept - 1].e;
	devs = gp__calloc(kx->n + 1, sizeof(*devs));
	if (!devs)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < kx->n; i++) {
		uint32_t a = c->t->ev.aux[kx->v[i]];

		if (a < c->t->ngpu && c->t->gpu[a].device >= 0)
			devs[ndev++] = c->t->gpu[a].device;
	}
	qsort(devs, ndev, sizeof(*devs), cmp_i32);
	for (i = 0; i < ndev; i++) {
		struct gp_value *o;
		double occ_sum = 0, area;
		int64_t occ_t = 0, busy;
		bool any;

		if (i > 0 && devs[i] == devs[i - 1])
			continue;
		gp__ivset_reset(&ks);
		for (j = 0; j < kx->n; j++) {
			uint32_t k = kx->v[j], a = c->t->ev.aux[k];
			const struct gp_gpu_info *g;
			int64_t s, e;

			if (a >= c->t->ngpu || c->t->gpu[a].device != devs[i])
				continue;
			g = &c->t->gpu[a];
			GP_TRY(gp__ivset_add(&ks, c->ts[k], gp__end(c, k)));
			s = c->ts[k] > ws ? c->ts[k] : ws;
			e = gp__end(c, k) < we ? gp__end(c, k) : we;
			if (e > s && g->occupancy_pct >= 0.0) {
				occ_sum += g->occupancy_pct * (double)(e - s);
				occ_t += e - s;
			}
		}
		GP_TRY(gp__ivset_normalize(&ks));
		busy = gp__ivset_len_within(&ks, ws, we);
		GP_TRY(sm_efficiency(c, devs[i], ws, we, &area, &any));
		o = gp_value_object();
		if (!o)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, o));
		GP_TRY(gp_obj_set_int(o, "device", devs[i]));
		GP_TRY(gp_obj_set_int(o, "window_ns", we - ws));
		GP_TRY(gp_obj_set_int(o, "window_start_ns", ws));
		GP_TRY(gp_obj_set_double(o, "utilization",
		                         we > ws ? (double)busy / (double)(we - ws) : NAN));
		GP_TRY(gp_obj_set_double(o, "sm_efficiency",
		                         any && we > ws ? area / (double)(we - ws) : NAN));
		GP_TRY(gp_obj_set_double(o, "achieved_occupancy_pct",
		                         occ_t > 0 ? occ_sum / (double)occ_t : NAN));
	}
out:
	gp__ivset_release(&ks);
	gp__free(devs);
	return rc;
}

int gp__an_steps(const struct gp__actx *c, struct gp_value *r)
{
	struct sctx x;
	size_t i;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.c = c;
	GP_TRY(build_roles(&x));
	GP_TRY(build_host_steps(&x));
	GP_TRY(device_steps(&x));
	for (i = 0; i < x.n; i++)
		GP_TRY(breakdown(&x, &x.st[i]));
	GP_TRY(emit_steps(&x, r));
	GP_TRY(emit_stats(&x, r));
	GP_TRY(emit_gpu_util(&x, r));
out:
	for (i = 0; i < R__N; i++)
		gp__ivset_release(&x.role[i]);
	gp__free(x.st);
	return rc;
}
