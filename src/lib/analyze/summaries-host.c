/* SPDX-License-Identifier: MIT */
/*
 * summaries-host.c - the host-side summary tables: "annotations" (CPU time
 * and GPU-projected time), "ranges" (the same ranges with nsys's NVTX
 * projection), "gpu_annotations" and "cpu_ops" (self and total).
 *
 * CPU nesting (operator self time, the GPU time of operators, the GPU
 * projection of annotations) comes from one pass per host track over
 * user annotations, cpu_ops and runtime/driver calls merged in (ts, dur
 * descending) order with a stack: an event's parent is the innermost event
 * that fully contains it. That is O(n) after the per-kind sorts gp__actx_init
 * already did; operators get their GPU time in one more O(n) pass up the
 * tree, annotations (whose GPU time is a union, not a sum) in O(depth) per
 * GPU op walking up from its launch call, in memory of one record per
 * instance.
 * Definitions and JSON fields: docs/analyses/summaries.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summaries.h"
#include "util/error.h"
#include "util/sort.h"

/* ---- CPU nesting ---- */

/*
 * The host events that nest, in per-track (ts, dur descending) order:
 * pos -> event, event -> pos, and each one's parent position.
 */
struct nest {
	uint32_t *ev;     /* [m] */
	uint32_t *parent; /* [m], NONE for a top-level event */
	uint32_t *pos;    /* [t->ev.n], NONE for events not nested */
	size_t m;
};

static void nest_release(struct nest *ns)
{
	gp__free(ns->ev);
	gp__free(ns->parent);
	gp__free(ns->pos);
	memset(ns, 0, sizeof(*ns));
}

/* at equal (ts, dur) an annotation holds an operator, which holds a runtime call */
static const uint8_t nest_kinds[] = { GP_K_USER_ANNOTATION, GP_K_CPU_OP, GP_K_RUNTIME,
	                              GP_K_DRIVER };

static bool nest_before(const struct gp__actx *c, uint32_t a, int ra, uint32_t b, int rb)
{
	if (c->ts[a] != c->ts[b])
		return c->ts[a] < c->ts[b];
	if (c->dur[a] != c->dur[b])
		return c->dur[a] > c->dur[b];
	if (ra != rb)
		return ra < rb;
	return a < b;
}

static int nest_build(const struct gp__actx *c, struct nest *ns)
{
	const struct gp_trace *t = c->t;
	size_t head[GP_ARRAY_SIZE(nest_kinds)] = { 0 };
	uint32_t *merged = NULL, *stack = NULL;
	size_t *cnt = NULL, m = 0, i, k, sp;
	int rc = 0;

	memset(ns, 0, sizeof(*ns));
	for (k = 0; k < GP_ARRAY_SIZE(nest_kinds); k++)
		m += c->by_kind[nest_kinds[k]].n;
	ns->m = m;
	ns->ev = gp__calloc(m ? m : 1, sizeof(*ns->ev));
	ns->parent = gp__calloc(m ? m : 1, sizeof(*ns->parent));
	ns->pos = gp__malloc((t->ev.n ? t->ev.n : 1) * sizeof(*ns->pos));
	merged = gp__calloc(m ? m : 1, sizeof(*merged));
	stack = gp__calloc(m ? m : 1, sizeof(*stack));
	cnt = gp__calloc(t->ntracks + 2, sizeof(*cnt));
	if (!ns->ev || !ns->parent || !ns->pos || !merged || !stack || !cnt)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory nesting host events"));
	memset(ns->pos, 0xff, (t->ev.n ? t->ev.n : 1) * sizeof(*ns->pos));

	/* merge the four sorted kind lists */
	for (i = 0; i < m; i++) {
		int best = -1;
		uint32_t bev = 0;

		for (k = 0; k < GP_ARRAY_SIZE(nest_kinds); k++) {
			const struct gp__idx *ix = &c->by_kind[nest_kinds[k]];

			if (head[k] >= ix->n)
				continue;
			if (best < 0 || nest_before(c, ix->v[head[k]], (int)k, bev, best)) {
				best = (int)k;
				bev = ix->v[head[k]];
			}
		}
		merged[i] = bev;
		head[best]++;
	}
	/* stable counting sort by track (an out-of-range track, impossible in a valid model, last)
	 */
	{
		size_t *start = cnt;

		for (i = 0; i < m; i++) {
			uint32_t tr = t->ev.track[merged[i]];

			start[(tr < t->ntracks ? tr : t->ntracks) + 1]++;
		}
		for (k = 1; k <= t->ntracks + 1; k++)
			start[k] += start[k - 1];
		for (i = 0; i < m; i++) {
			uint32_t tr = t->ev.track[merged[i]];

			ns->ev[start[tr < t->ntracks ? tr : t->ntracks]++] = merged[i];
		}
	}

	/* one stack sweep; a track change empties the stack */
	sp = 0;
	for (i = 0; i < m; i++) {
		uint32_t e = ns->ev[i];
		int64_t ts = c->ts[e], end = gp__end(c, e);

		if (i && t->ev.track[ns->ev[i - 1]] != t->ev.track[e])
			sp = 0;
		while (sp) {
			uint32_t top = ns->ev[stack[sp - 1]];
			int64_t tend = gp__end(c, top);

			/* pop unless top fully contains [ts, end) */
			if (tend < end || (tend <= ts && c->ts[top] < ts))
				sp--;
			else
				break;
		}
		ns->parent[i] = sp ? stack[sp - 1] : NONE;
		ns->pos[e] = (uint32_t)i;
		stack[sp++] = (uint32_t)i;
	}
out:
	gp__free(merged);
	gp__free(stack);
	gp__free(cnt);
	if (rc)
		nest_release(ns);
	return rc;
}

/* Where a GPU op's ancestors start: its launch call's parent, else its External-id op. */
static uint32_t gpu_op_anchor(const struct gp__actx *c, const struct nest *ns, size_t g)
{
	int64_t l = gp__launcher(c, g);
	uint32_t v;

	if (l >= 0 && (size_t)l < c->t->ev.n && ns->pos[l] != NONE)
		return ns->parent[ns->pos[l]];
	if (c->t->ev.ext[g] >= 0 && gp__idmap_get(&c->ext_op, c->t->ev.ext[g], &v) &&
	    v < c->t->ev.n)
		return ns->pos[v];
	return NONE;
}

/* ---- annotations ---- */

/*
 * What one annotation instance encloses, built as the GPU ops arrive in start
 * order (so memory stays one record per instance whatever the nesting): the
 * running union of their intervals (closed runs in len, the open one
 * [us, ue)), the first op's start, the latest end and the count.
 */
struct inst {
	int64_t us, ue, len, first_s, max_e, ops;
};

static void inst_add(struct inst *x, int64_t s, int64_t e)
{
	if (!x->ops) {
		x->us = x->first_s = s;
		x->ue = x->max_e = e;
	} else if (s > x->ue) {
		x->len += x->ue - x->us;
		x->us = s;
		x->ue = e;
	} else if (e > x->ue) {
		x->ue = e;
	}
	if (e > x->max_e)
		x->max_e = e;
	x->ops++;
}

struct annacc {
	int64_t gpu_ns, gpu_ops;
};

static int ann_extra(const struct gp__actx *c, const struct gtab *gt, size_t g,
                     struct gp_value *row, void *user)
{
	const struct annacc *a = &((const struct annacc *)user)[g];
	int rc = 0;

	(void)c;
	GP_TRY(gp_obj_set_int(row, "gpu_ns", a->gpu_ns));
	GP_TRY(gp_obj_set_int(row, "gpu_ops", a->gpu_ops));
out:
	return rc;
}

/*
 * "ranges": nsys's nvtx_sum and nvtx_gpu_proj_sum in one row per range name.
 * An instance's projection runs from the start of the first GPU op it
 * encloses (its launch call inside the range, on the range's thread) to the
 * end of the last, gaps included; a start/end range ended on another thread
 * is not projected. @p in holds each annotation instance's ops, in the
 * order of c->by_kind[GP_K_USER_ANNOTATION].
 */
struct rngacc {
	int64_t proj_ns, ops;
};

static int rng_extra(const struct gp__actx *c, const struct gtab *gt, size_t g,
                     struct gp_value *row, void *user)
{
	const struct rngacc *a = &((const struct rngacc *)user)[g];
	const struct gp_trace *t = c->t;
	uint64_t v;
	int rc = 0;

	if (gp__u64map_get(&t->nvtx_names, gt->g[g].name, &v) == 1) {
		GP_TRY(gp_obj_set_str(row, "name", gp__strtab_get(&t->strs, (uint32_t)v)));
		GP_TRY(
		    gp_obj_set_str(row, "domain", gp__strtab_get(&t->strs, (uint32_t)(v >> 32))));
	} else {
		/* the default domain (or a Kineto annotation) */
		GP_TRY(gp_obj_set_str(row, "domain", ""));
	}
	/* the annotation API's call site ("file:line"), null for NVTX and Kineto ranges */
	if (gp__u64map_get(&t->range_src, gt->g[g].name, &v) == 1)
		GP_TRY(gp_obj_set_str(row, "source", gp__strtab_get(&t->strs, (uint32_t)v)));
	else
		GP_TRY(gp_obj_set_null(row, "source"));
	GP_TRY(gp_obj_set_int(row, "gpu_projected_ns", a->proj_ns));
	GP_TRY(gp_obj_set_int(row, "gpu_ops", a->ops));
out:
	return rc;
}

static int emit_ranges(const struct gp__actx *c, const struct gtab *gt, const struct inst *in,
                       struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	const struct gp__idx *ua = &c->by_kind[GP_K_USER_ANNOTATION];
	struct rngacc *acc = gp__calloc(gt->ng ? gt->ng : 1, sizeof(*acc));
	size_t i;
	int rc = 0;

	if (!acc)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < ua->n; i++) {
		uint32_t a = ua->v[i];
		uint64_t g;

		if (!in[i].ops || (t->ev.flags[a] & GP_EVF_XTHREAD) ||
		    gp__u64map_get(&gt->map, t->ev.name[a], &g) != 1 || g >= gt->ng)
			continue;
		acc[g].proj_ns = gp__add_sat(acc[g].proj_ns, in[i].max_e - in[i].first_s);
		acc[g].ops += in[i].ops;
	}
	rc = gp__emit_table(c, r, "ranges", gt, -1, rng_extra, acc);
	gp__free(acc);
	return rc;
}

static int an_annotations(const struct gp__actx *c, const struct nest *ns, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	const struct gp__idx *ua = &c->by_kind[GP_K_USER_ANNOTATION];
	uint32_t *ev = gp__calloc(ua->n ? ua->n : 1, sizeof(*ev));
	struct inst *in = gp__calloc(ua->n ? ua->n : 1, sizeof(*in));
	size_t n = 0, i;
	struct annacc *acc = NULL;
	struct gtab gt;
	int rc = 0;

	memset(&gt, 0, sizeof(gt));
	if (!ev || !in)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < ua->n; i++)
		if (!(t->ev.flags[ua->v[i]] & GP_EVF_STEP))
			ev[n++] = ua->v[i];
	GP_TRY(gp__gtab_build(c, ev, n, NULL, &gt));
	GP_TRY(gp__gtab_order(c, &gt));
	acc = gp__calloc(gt.ng ? gt.ng : 1, sizeof(*acc));
	if (!acc)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));

	/* each GPU op, in time order (c->gpu), joins every annotation instance around its launch */
	for (i = 0; n && i < c->gpu.n; i++) {
		uint32_t g = c->gpu.v[i], p;
		uint8_t kd = t->ev.kind[g];

		if (kd != GP_K_KERNEL && kd != GP_K_MEMCPY && kd != GP_K_MEMSET)
			continue;
		for (p = gpu_op_anchor(c, ns, g); p != NONE; p = ns->parent[p]) {
			uint32_t a = ns->ev[p];

			if (t->ev.kind[a] != GP_K_USER_ANNOTATION || (t->ev.flags[a] & GP_EVF_STEP))
				continue;
			inst_add(&in[c->kpos[a]], c->ts[g], gp__end(c, g));
		}
	}
	/* per instance, in the annotations' order: the union of its GPU ops' intervals */
	for (i = 0; i < ua->n; i++) {
		uint64_t g;

		if (in[i].ops && gp__u64map_get(&gt.map, t->ev.name[ua->v[i]], &g) && g < gt.ng) {
			/* nested instances of one name count their ops again: saturate */
			acc[g].gpu_ns =
			    gp__add_sat(acc[g].gpu_ns, in[i].len + (in[i].ue - in[i].us));
			acc[g].gpu_ops += in[i].ops;
		}
	}
	GP_TRY(gp__emit_table(c, r, "annotations", &gt, gt.total, ann_extra, acc));
	GP_TRY(emit_ranges(c, &gt, in, r));

	/* Kineto's own GPU-side projections, its per-step ProfilerStep#N ones aside */
	gp__gtab_release(&gt);
	{
		const struct gp__idx *ga = &c->by_kind[GP_K_GPU_ANNOTATION];
		uint32_t *gev = gp__reallocarray(ev, ga->n ? ga->n : 1, sizeof(*ev));

		if (!gev)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		ev = gev;
		for (i = 0, n = 0; i < ga->n; i++)
			if (strncmp(gp__ev_name(t, ga->v[i]), "ProfilerStep#", 13) != 0)
				ev[n++] = ga->v[i];
		GP_TRY(gp__gtab_build(c, ev, n, NULL, &gt));
		GP_TRY(gp__gtab_order(c, &gt));
		GP_TRY(gp__emit_table(c, r, "gpu_annotations", &gt, gt.total, NULL, NULL));
	}
out:
	gp__gtab_release(&gt);
	gp__free(ev);
	gp__free(in);
	gp__free(acc);
	return rc;
}

/* ---- CPU operators ---- */

struct opacc {
	int64_t self_ns, gpu_ns, gpu_self_ns;
};

static int op_extra(const struct gp__actx *c, const struct gtab *gt, size_t g, struct gp_value *row,
                    void *user)
{
	const struct opacc *o = (const struct opacc *)user;
	int64_t self_total = 0;
	size_t k;
	int rc = 0;

	(void)c;
	/* the table's self total is stored after the groups */
	self_total = o[gt->ng].self_ns;
	k = g;
	GP_TRY(gp_obj_set_int(row, "self_ns", o[k].self_ns));
	GP_TRY(gp_obj_set_int(row, "gpu_ns", o[k].gpu_ns));
	GP_TRY(gp_obj_set_int(row, "gpu_self_ns", o[k].gpu_self_ns));
	GP_TRY(gp_obj_set_double(row, "pct_self",
	                         self_total > 0 ? 100.0 * (double)o[k].self_ns / (double)self_total
	                                        : NAN));
out:
	return rc;
}

static int an_cpu_ops(const struct gp__actx *c, const struct nest *ns, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	const struct gp__idx *ops = &c->by_kind[GP_K_CPU_OP];
	int64_t *self = NULL, *below = NULL;
	uint32_t *inner = NULL; /* per position: the innermost operator at or above it, NONE */
	struct opacc *acc = NULL;
	struct gtab gt;
	size_t i;
	int rc = 0;

	memset(&gt, 0, sizeof(gt));
	GP_TRY(gp__gtab_build(c, ops->v, ops->n, NULL, &gt));
	acc = gp__calloc(gt.ng + 1, sizeof(*acc));
	self = gp__calloc(ns->m ? ns->m : 1, sizeof(*self));
	below = gp__calloc(ns->m ? ns->m : 1, sizeof(*below));
	inner = gp__calloc(ns->m ? ns->m : 1, sizeof(*inner));
	if (!acc || !self || !below || !inner)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));

	/* self = inclusive minus direct cpu_op / user_annotation children */
	for (i = 0; i < ns->m; i++)
		self[i] = c->dur[ns->ev[i]];
	for (i = 0; i < ns->m; i++) {
		uint8_t kd = t->ev.kind[ns->ev[i]];

		if (ns->parent[i] != NONE && (kd == GP_K_CPU_OP || kd == GP_K_USER_ANNOTATION))
			self[ns->parent[i]] -= c->dur[ns->ev[i]];
	}
	/*
	 * GPU time: to every enclosing operator's row (gpu_ns, saturating: nested
	 * instances of one name count an op again), the innermost one's too
	 * (gpu_self_ns). An operator's row: its group in gt, by its position
	 * among the operators. In O(n) whatever the nesting's depth: each op's
	 * time goes to its anchor and to the innermost operator around it, then
	 * up the tree in one pass (positions are in pre-order: a parent before
	 * its children), so below[p] is the GPU time launched inside p.
	 */
	for (i = 0; i < ns->m; i++) {
		uint32_t q = ns->parent[i];

		inner[i] = t->ev.kind[ns->ev[i]] == GP_K_CPU_OP ? (uint32_t)i
		           : q != NONE                          ? inner[q]
		                                                : NONE;
	}
	for (i = 0; i < c->gpu.n; i++) {
		uint32_t g = c->gpu.v[i], p;
		uint8_t kd = t->ev.kind[g];

		if (kd != GP_K_KERNEL && kd != GP_K_MEMCPY && kd != GP_K_MEMSET)
			continue;
		if ((p = gpu_op_anchor(c, ns, g)) == NONE)
			continue;
		below[p] += c->dur[g];
		if (inner[p] != NONE)
			acc[gt.gid[c->kpos[ns->ev[inner[p]]]]].gpu_self_ns += c->dur[g];
	}
	for (i = ns->m; i-- > 0;)
		if (ns->parent[i] != NONE)
			below[ns->parent[i]] += below[i];
	for (i = 0; i < ops->n; i++) {
		uint32_t p = ns->pos[ops->v[i]];

		if (p == NONE)
			continue;
		acc[gt.gid[i]].gpu_ns = gp__add_sat(acc[gt.gid[i]].gpu_ns, below[p]);
		/* overlapping siblings could push self below 0 */
		acc[gt.gid[i]].self_ns += self[p] > 0 ? self[p] : 0;
	}
	for (i = 0; i < gt.ng; i++) {
		gt.g[i].sortv = acc[i].self_ns;
		acc[gt.ng].self_ns += acc[i].self_ns;
	}
	GP_TRY(gp__gtab_order(c, &gt));
	GP_TRY(gp__emit_table(c, r, "cpu_ops", &gt, -1, op_extra, acc));
out:
	gp__gtab_release(&gt);
	gp__free(self);
	gp__free(below);
	gp__free(inner);
	gp__free(acc);
	return rc;
}

int gp__sum_host(const struct gp__actx *c, struct gp_value *r)
{
	struct nest ns;
	int rc = 0;

	memset(&ns, 0, sizeof(ns));
	GP_TRY(nest_build(c, &ns));
	GP_TRY(an_annotations(c, &ns, r));
	GP_TRY(an_cpu_ops(c, &ns, r));
out:
	nest_release(&ns);
	return rc;
}
