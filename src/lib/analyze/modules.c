/* SPDX-License-Identifier: MIT */
/*
 * modules.c - the "modules" section of a rank: the nn.Module tree and the
 * per-class table, host time and GPU-projected time (docs/analyses/modules.md).
 *
 * The module calls ("instances") come from the nn.Module python_function
 * events of the trace (t->pymod: with_modules / with_stack, and captures of
 * `gpuprof run --pytorch modules`), else from the ranges named the way
 * gpuprof.annotate_modules() names them ("encoder.layers.3 (Class)"). One
 * sweep per host thread over the calls, the CPU operators and the
 * runtime/driver calls, merged in (ts, dur descending) order from the
 * context's sorted lists with a bounded stack, nests the calls by time
 * containment and finds for each launching call the innermost call and the
 * outermost operator inside it around it. The GPU ops (kernel, memcpy,
 * memset) are then taken in start order, each one added to the running
 * interval union of every call around its launch (and of its class's
 * kernel and operator rows), so that a call's GPU time is the union of what
 * it launched with no interval lists.
 *
 * Cost: one sort of the calls, a counting sort by thread of the operators
 * and runtime/driver calls within the span of their thread's calls, O(depth)
 * per GPU op; nothing but one pass over the user annotations when the trace
 * has no module information. Hostile input is bounded: calls nested deeper
 * than GP__MOD_MAX_DEPTH are left out, the stack holds at most
 * GP__MOD_MAX_STACK events, the tree at most GP__MOD_MAX_NODES nodes, and
 * what was left out is reported ("truncated"). Nothing recurses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "util/error.h"

#include "modules.h"

#define NONE GP__MOD_NONE

static const char py_prefix[] = "nn.Module: ";

/* ---- the calls ---- */

/* the class of call @p name: the name without its "_N" suffix (python_function) */
static size_t class_len(const char *name, size_t len)
{
	size_t k = len;

	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k < len && k > 1 && name[k - 1] == '_')
		return k - 1;
	return len;
}

static bool ident_char(char ch, bool first)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (!first && ch >= '0' && ch <= '9');
}

/*
 * A range named as annotate_modules() names a module call: "PATH (Class)",
 * PATH without spaces and not empty ("encoder.layers.3", "<root>", with any
 * prefix), Class a Python identifier. @return the length of PATH, 0 if not.
 */
static size_t range_module(const char *s, size_t len, size_t *cls_at)
{
	size_t k, open;

	if (len < 5 || s[len - 1] != ')')
		return 0;
	for (k = len - 1; k > 0 && s[k - 1] != '('; k--)
		if (!ident_char(s[k - 1], false))
			return 0;
	if (k < 3 || k == len - 1 || !ident_char(s[k], true) || s[k - 2] != ' ')
		return 0;
	open = k - 2; /* the space before "(" */
	for (size_t i = 0; i < open; i++)
		if (s[i] == ' ' || s[i] == '\t')
			return 0;
	*cls_at = k;
	return open;
}

static int add_inst(struct gp__mod *m, int64_t ts, int64_t dur, uint32_t track, int64_t pyid,
                    const char *name, size_t nlen, const char *cls, size_t clen)
{
	struct gp__mod_call *x;
	uint32_t nid, cid;
	uint64_t v;
	int rc = 0;

	if (m->nin >= UINT32_MAX - 1)
		return gp__error(GP_ELIMIT, "too many module calls");
	GP_TRY(gp__grow((void **)&m->in, &m->incap, m->nin + 1, sizeof(*m->in)));
	GP_TRY(gp__strtab_intern(&m->strs, name, nlen, &nid));
	GP_TRY(gp__strtab_intern(&m->strs, cls, clen, &cid));
	if (gp__u64map_get(&m->cls_ix, cid, &v) != 1) {
		GP_TRY(gp__grow((void **)&m->cls, &m->clscap, m->ncls + 1, sizeof(*m->cls)));
		memset(&m->cls[m->ncls], 0, sizeof(*m->cls));
		m->cls[m->ncls].name = cid;
		v = m->ncls++;
		GP_TRY(gp__u64map_put(&m->cls_ix, cid, v));
	}
	x = &m->in[m->nin];
	memset(x, 0, sizeof(*x));
	x->s = ts;
	x->e = ts + (dur > 0 ? dur : 0);
	x->track = track;
	x->pyid = pyid;
	x->name = nid;
	x->cls = (uint32_t)v;
	x->order = (uint32_t)m->nin;
	x->parent = x->node = NONE;
	m->nin++;
out:
	return rc;
}

static int collect_pymod(struct gp__mod *m)
{
	const struct gp__actx *c = m->c;
	const struct gp_trace *t = c->t;
	int rc = 0;

	for (size_t i = 0; i < t->npymod; i++) {
		const struct gp_py_module *p = &t->pymod[i];
		const char *s = gp__strtab_get(&t->strs, p->name);
		size_t len = gp__strtab_strlen(&t->strs, p->name);
		int64_t ts = p->ts, dur = p->dur;

		if (len >= sizeof(py_prefix) - 1 && !memcmp(s, py_prefix, sizeof(py_prefix) - 1)) {
			s += sizeof(py_prefix) - 1;
			len -= sizeof(py_prefix) - 1;
		}
		if (!len || p->track >= t->ntracks)
			continue;
		if (c->ts_own)
			gp__compat_hta_round(t, p->ts, p->dur, &ts, &dur);
		GP_TRY(add_inst(m, ts, dur, p->track, p->id, s, len, s, class_len(s, len)));
	}
out:
	return rc;
}

static int collect_ranges(struct gp__mod *m)
{
	const struct gp__actx *c = m->c;
	const struct gp_trace *t = c->t;
	const struct gp__idx *ua = &c->by_kind[GP_K_USER_ANNOTATION];
	int rc = 0;

	for (size_t i = 0; i < ua->n; i++) {
		uint32_t e = ua->v[i], name = t->ev.name[e];
		const char *s;
		size_t len, plen, cat = 0;
		uint64_t v;

		if (t->ev.flags[e] & (GP_EVF_STEP | GP_EVF_XTHREAD))
			continue;
		/* a named domain's range: its message */
		if (t->nvtx_names.n && gp__u64map_get(&t->nvtx_names, name, &v) == 1)
			name = (uint32_t)v;
		len = gp__strtab_strlen(&t->strs, name);
		s = gp__strtab_get(&t->strs, name);
		if (!len || s[len - 1] != ')' || !(plen = range_module(s, len, &cat)))
			continue;
		GP_TRY(add_inst(m, c->ts[e], c->dur[e], t->ev.track[e], -1, s, plen, s + cat,
		                len - 1 - cat));
	}
out:
	return rc;
}

/* ---- the sweep ---- */

/* at equal (track, ts, dur): the caller (smaller Python id, else first in the file) first */
static int cmp_inst(const void *pa, const void *pb)
{
	const struct gp__mod_call *a = pa, *b = pb;
	uint64_t ia = (uint64_t)a->pyid, ib = (uint64_t)b->pyid; /* -1 last */

	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* a stack entry of the sweep: an open call or operator */
struct sent {
	int64_t s, e;
	uint32_t inst; /* innermost call kept at or below this entry, NONE */
	uint32_t op;   /* outermost operator above that call, NONE */
	uint32_t next_depth;
};

static bool is_gpu_op(const struct gp_trace *t, uint32_t g)
{
	uint8_t k = t->ev.kind[g];

	return k == GP_K_KERNEL || k == GP_K_MEMCPY || k == GP_K_MEMSET;
}

/* one kind's events inside the span of their thread's calls, grouped by thread, in time order */
struct bytrack {
	uint32_t *v;
	size_t *first; /* [ntracks + 1]: thread tr's events are v[first[tr] .. first[tr + 1]) */
};

static void bytrack_release(struct bytrack *b)
{
	gp__free(b->v);
	gp__free(b->first);
}

/* a stable counting sort of @p ix (sorted by time) by thread, keeping what lies in [lo, hi] */
static int bytrack_build(const struct gp__actx *c, const struct gp__idx *ix, const int64_t *lo,
                         const int64_t *hi, struct bytrack *b)
{
	const struct gp_trace *t = c->t;
	size_t nt = t->ntracks, n = 0, *at;

	b->first = gp__calloc(nt + 2, sizeof(*b->first));
	if (!b->first)
		return gp__error(GP_ENOMEM, "out of memory nesting module calls");
	for (size_t i = 0; i < ix->n; i++) {
		uint32_t e = ix->v[i], tr = t->ev.track[e];

		if (tr < nt && c->ts[e] >= lo[tr] && gp__end(c, e) <= hi[tr]) {
			b->first[tr + 2]++;
			n++;
		}
	}
	b->v = gp__calloc(n ? n : 1, sizeof(*b->v));
	if (!b->v)
		return gp__error(GP_ENOMEM, "out of memory nesting module calls");
	for (size_t k = 2; k < nt + 2; k++)
		b->first[k] += b->first[k - 1];
	/* first[tr + 1] is where thread tr's events go while filling: it ends at first[tr + 2] */
	at = b->first + 1;
	for (size_t i = 0; i < ix->n; i++) {
		uint32_t e = ix->v[i], tr = t->ev.track[e];

		if (tr < nt && c->ts[e] >= lo[tr] && gp__end(c, e) <= hi[tr])
			b->v[at[tr]++] = e;
	}
	return 0;
}

enum { SRC_INST, SRC_OP, SRC_RT, SRC_DRV, SRC__N };

/* a source's next event on the thread being swept */
struct head {
	size_t at, end;
	int64_t s, e;
	uint32_t idx; /* call (sorted index) or event */
};

static void head_load(const struct gp__mod *m, const struct bytrack *b, int src, struct head *h)
{
	if (h->at >= h->end)
		return;
	if (src == SRC_INST) {
		h->idx = (uint32_t)h->at;
		h->s = m->in[h->at].s;
		h->e = m->in[h->at].e;
	} else {
		h->idx = b->v[h->at];
		h->s = m->c->ts[h->idx];
		h->e = gp__end(m->c, h->idx);
	}
}

/* where launching call @p l (a runtime or driver call) keeps its call and operator */
static size_t launch_slot(const struct gp__actx *c, uint32_t l)
{
	return c->kpos[l] + (c->t->ev.kind[l] == GP_K_DRIVER ? c->by_kind[GP_K_RUNTIME].n : 0);
}

/* a launching call: the innermost open entry around it gives its call and operator */
static void sweep_launch(struct gp__mod *m, const struct sent *st, size_t *sp, const struct head *x)
{
	size_t k;

	/* drop what ended before the call */
	while (*sp && (st[*sp - 1].e < x->s ||
	               (st[*sp - 1].e == x->s && st[*sp - 1].s < x->s && x->e > x->s)))
		(*sp)--;
	for (k = *sp; k > 0 && st[k - 1].e < x->e; k--)
		;
	if (k) {
		size_t at = launch_slot(m->c, x->idx);

		m->l_inst[at] = st[k - 1].inst;
		m->l_op[at] = st[k - 1].op;
	}
}

/* a call or an operator: pops what does not contain it, nests it, pushes it */
static void sweep_open(struct gp__mod *m, struct sent *st, size_t *sp, const struct head *x,
                       int src)
{
	struct sent ne = { x->s, x->e, NONE, NONE, 0 };

	/* pop unless the top fully contains [s, e) (summaries-host.c's rule) */
	while (*sp && (st[*sp - 1].e < x->e || (st[*sp - 1].e <= x->s && st[*sp - 1].s < x->s)))
		(*sp)--;
	if (*sp) {
		ne.inst = st[*sp - 1].inst;
		ne.op = st[*sp - 1].op;
		ne.next_depth = st[*sp - 1].next_depth;
	}
	if (src == SRC_INST) {
		struct gp__mod_call *in = &m->in[x->idx];

		in->parent = ne.inst;
		if (ne.next_depth >= GP__MOD_MAX_DEPTH || *sp >= GP__MOD_MAX_STACK) {
			in->dropped = true;
			m->ndropped++;
		} else {
			in->depth = (uint16_t)ne.next_depth;
			ne.inst = x->idx;
			ne.op = NONE;
		}
		ne.next_depth++;
	} else if (ne.op == NONE) {
		ne.op = x->idx; /* the outermost operator inside the call */
	}
	if (*sp < GP__MOD_MAX_STACK)
		st[(*sp)++] = ne;
}

/* whether @p a comes before @p b: start, then end descending, then the source's rank */
static bool head_before(const struct head *a, int ra, const struct head *b, int rb)
{
	if (a->s != b->s)
		return a->s < b->s;
	if (a->e != b->e)
		return a->e > b->e;
	return (ra >= SRC_RT ? SRC_RT : ra) < (rb >= SRC_RT ? SRC_RT : rb);
}

/*
 * Nests the calls (parent, depth, dropped) and finds for each launching
 * call its innermost call and outermost operator inside it (m->l_inst,
 * m->l_op), in one stack sweep per thread over the calls, the operators and
 * the runtime/driver calls, merged in (ts, dur descending) order from their
 * sorted lists: at equal times a call holds an operator, which holds a
 * launch. Only events within the span of their thread's calls are taken.
 */
static int sweep(struct gp__mod *m)
{
	const struct gp__actx *c = m->c;
	const struct gp_trace *t = c->t;
	static const uint8_t kinds[SRC__N] = { 0, GP_K_CPU_OP, GP_K_RUNTIME, GP_K_DRIVER };
	struct bytrack bt[SRC__N];
	struct sent *st = NULL;
	int64_t *lo = NULL, *hi = NULL;
	size_t nt = t->ntracks, i;
	size_t n = c->by_kind[GP_K_RUNTIME].n + c->by_kind[GP_K_DRIVER].n + 1;
	int rc = 0;

	memset(bt, 0, sizeof(bt));
	lo = gp__malloc((nt ? nt : 1) * sizeof(*lo));
	hi = gp__malloc((nt ? nt : 1) * sizeof(*hi));
	m->l_inst = gp__malloc(n * sizeof(*m->l_inst));
	m->l_op = gp__malloc(n * sizeof(*m->l_op));
	st = gp__calloc(GP__MOD_MAX_STACK, sizeof(*st));
	if (!lo || !hi || !m->l_inst || !m->l_op || !st)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory nesting module calls"));
	memset(m->l_inst, 0xff, n * sizeof(*m->l_inst));
	memset(m->l_op, 0xff, n * sizeof(*m->l_op));
	for (i = 0; i < nt; i++) {
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
	}
	for (i = 0; i < m->nin; i++) {
		const struct gp__mod_call *x = &m->in[i];

		if (x->s < lo[x->track])
			lo[x->track] = x->s;
		if (x->e > hi[x->track])
			hi[x->track] = x->e;
	}
	for (int k = SRC_OP; k < SRC__N; k++)
		GP_TRY(bytrack_build(c, &c->by_kind[kinds[k]], lo, hi, &bt[k]));

	/* the calls are sorted by thread: one merge per thread that has calls */
	for (size_t i0 = 0, i1; i0 < m->nin; i0 = i1) {
		uint32_t tr = m->in[i0].track;
		struct head h[SRC__N];
		size_t sp = 0;

		for (i1 = i0; i1 < m->nin && m->in[i1].track == tr; i1++)
			;
		h[SRC_INST].at = i0;
		h[SRC_INST].end = i1;
		for (int k = SRC_OP; k < SRC__N; k++) {
			h[k].at = bt[k].first[tr];
			h[k].end = bt[k].first[tr + 1];
		}
		for (int k = 0; k < SRC__N; k++)
			head_load(m, &bt[k], k, &h[k]);
		for (;;) {
			int best = -1;

			for (int k = 0; k < SRC__N; k++)
				if (h[k].at < h[k].end &&
				    (best < 0 || head_before(&h[k], k, &h[best], best)))
					best = k;
			if (best < 0)
				break;
			if (best >= SRC_RT)
				sweep_launch(m, st, &sp, &h[best]);
			else
				sweep_open(m, st, &sp, &h[best], best);
			h[best].at++;
			head_load(m, &bt[best], best, &h[best]);
		}
	}
out:
	for (int k = 0; k < SRC__N; k++)
		bytrack_release(&bt[k]);
	gp__free(st);
	gp__free(lo);
	gp__free(hi);
	return rc;
}

/* ---- steps ---- */

/* the step whose span holds @p ts, or NONE */
static uint32_t step_of(const struct gp__actx *c, int64_t ts)
{
	size_t lo = gp__steps_started(c, ts);

	if (lo == 0 || ts >= c->steps[lo - 1].end)
		return NONE;
	return (uint32_t)(lo - 1);
}

/* marks the calls counted: those inside a step, or all of them when none is */
static int pick_steps(struct gp__mod *m)
{
	const struct gp__actx *c = m->c;
	size_t i, in_step = 0;

	for (i = 0; i < m->nin; i++) {
		struct gp__mod_call *x = &m->in[i];

		x->counted = !x->dropped && step_of(c, x->s) != NONE;
		in_step += x->counted;
	}
	if (!in_step) {
		for (i = 0; i < m->nin; i++)
			m->in[i].counted = !m->in[i].dropped;
		return 0;
	}
	m->nsteps = c->nsteps;
	m->step_end = gp__calloc(c->nsteps, sizeof(*m->step_end));
	if (!m->step_end)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nsteps; i++)
		m->step_end[i] = c->steps[i].end;
	return 0;
}

/* ---- GPU projection ---- */

static void un_add(int64_t *us, int64_t *ue, int64_t *total, bool *any, int64_t s, int64_t e)
{
	if (!*any) {
		*us = s;
		*ue = e;
		*any = true;
	} else if (s > *ue) {
		*total = gp__add_sat(*total, *ue - *us);
		*us = s;
		*ue = e;
	} else if (e > *ue) {
		*ue = e;
	}
}

static int row_add(struct gp__mod_rows *rw, uint32_t cls, uint32_t name, int64_t s, int64_t e)
{
	uint64_t key = (uint64_t)cls << 32 | name, v;
	struct gp__mod_row *r;
	int rc = 0;

	if (gp__u64map_get(&rw->ix, key, &v) != 1) {
		GP_TRY(gp__grow((void **)&rw->v, &rw->cap, rw->n + 1, sizeof(*rw->v)));
		v = rw->n++;
		memset(&rw->v[v], 0, sizeof(rw->v[v]));
		rw->v[v].cls = cls;
		rw->v[v].name = name;
		GP_TRY(gp__u64map_put(&rw->ix, key, v));
	}
	r = &rw->v[v];
	un_add(&r->us, &r->ue, &r->total, &r->any, s, e);
out:
	return rc;
}

/*
 * The GPU ops in start order: each one joins the running union of every
 * call around its launch, and once per class the class's kernel and
 * operator rows.
 */
static int project(struct gp__mod *m)
{
	const struct gp__actx *c = m->c;
	const struct gp_trace *t = c->t;
	int rc = 0;

	for (size_t i = 0; i < c->gpu.n; i++) {
		uint32_t g = c->gpu.v[i], l = c->launch[g], p, op;
		int64_t s = c->ts[g], e = gp__end(c, g);

		if (l >= t->ev.n || !is_gpu_op(t, g) ||
		    (t->ev.kind[l] != GP_K_RUNTIME && t->ev.kind[l] != GP_K_DRIVER) ||
		    (p = m->l_inst[launch_slot(c, l)]) == NONE)
			continue;
		op = m->l_op[launch_slot(c, l)];
		if (e < s)
			e = s; /* HTA's rounding of a sub-µs op */
		for (; p != NONE; p = m->in[p].parent) {
			struct gp__mod_call *x = &m->in[p];
			struct gp__mod_class *k = &m->cls[x->cls];
			un_add(&x->us, &x->ue, &x->gpu, &x->any, s, e);
			if (!x->counted)
				continue;
			if (m->step_end) {
				uint32_t si = step_of(c, x->s);

				if (si != NONE && e > m->step_end[si])
					m->step_end[si] = e;
			}
			if (k->stamp == g + 1)
				continue;
			k->stamp = g + 1;
			GP_TRY(row_add(&m->kern, x->cls, t->ev.name[g], s, e));
			if (op != NONE)
				GP_TRY(row_add(&m->ops, x->cls, t->ev.name[op], s, e));
		}
	}
	for (size_t i = 0; i < m->nin; i++) {
		struct gp__mod_call *x = &m->in[i];

		if (x->any)
			x->gpu = gp__add_sat(x->gpu, x->ue - x->us);
	}
	for (size_t i = 0; i < m->kern.n; i++)
		if (m->kern.v[i].any)
			m->kern.v[i].total =
			    gp__add_sat(m->kern.v[i].total, m->kern.v[i].ue - m->kern.v[i].us);
	for (size_t i = 0; i < m->ops.n; i++)
		if (m->ops.v[i].any)
			m->ops.v[i].total =
			    gp__add_sat(m->ops.v[i].total, m->ops.v[i].ue - m->ops.v[i].us);
out:
	return rc;
}

/* ---- classes and the tree ---- */

/* whether instance @p a is slower than @p b: GPU time, then earlier start, then order */
static bool slower(const struct gp__mod_call *a, const struct gp__mod_call *b)
{
	if (a->gpu != b->gpu)
		return a->gpu > b->gpu;
	if (a->s != b->s)
		return a->s < b->s;
	return a->order < b->order;
}

static void aggregate(struct gp__mod *m)
{
	for (size_t i = 0; i < m->nin; i++) {
		const struct gp__mod_call *x = &m->in[i];
		struct gp__mod_class *k = &m->cls[x->cls];
		size_t j;

		if (!x->counted)
			continue;
		k->count++;
		k->host = gp__add_sat(k->host, x->e - x->s);
		k->gpu = gp__add_sat(k->gpu, x->gpu);
		/* insertion into the slowest GP__MOD_TOP */
		j = k->nslow < GP__MOD_TOP ? k->nslow++ : GP__MOD_TOP;
		if (j == GP__MOD_TOP && !slower(x, &m->in[k->slow[GP__MOD_TOP - 1]]))
			continue;
		if (j == GP__MOD_TOP)
			j = GP__MOD_TOP - 1;
		while (j > 0 && slower(x, &m->in[k->slow[j - 1]])) {
			k->slow[j] = k->slow[j - 1];
			j--;
		}
		k->slow[j] = (uint32_t)i;
	}
	/* the squared deviations from the class's mean, in a second pass (no cancellation) */
	for (size_t i = 0; i < m->nin; i++) {
		const struct gp__mod_call *x = &m->in[i];
		struct gp__mod_class *k = &m->cls[x->cls];
		double d;

		if (!x->counted)
			continue;
		d = (double)x->gpu - (double)k->gpu / (double)k->count;
		k->sqdev += d * d;
	}
}

/* merges the counted calls by path of names into the tree (at most GP__MOD_MAX_NODES nodes) */
static int build_tree(struct gp__mod *m)
{
	struct gp_u64map ix;
	int rc = 0;

	memset(&ix, 0, sizeof(ix));
	GP_TRY(gp__u64map_init(&ix, 64));
	for (size_t i = 0; i < m->nin; i++) {
		struct gp__mod_call *x = &m->in[i];
		uint32_t pn = NONE;
		uint64_t key, v;
		struct gp__mod_node *n;

		if (!x->counted)
			continue;
		if (x->parent != NONE && m->in[x->parent].counted) {
			pn = m->in[x->parent].node;
			if (pn == NONE) {
				m->nodes_dropped++; /* its parent's node was left out */
				continue;
			}
		}
		key = (uint64_t)pn << 32 | x->name;
		if (gp__u64map_get(&ix, key, &v) != 1) {
			if (m->nnodes >= GP__MOD_MAX_NODES) {
				m->nodes_dropped++;
				continue;
			}
			GP_TRY(gp__grow((void **)&m->nodes, &m->nodecap, m->nnodes + 1,
			                sizeof(*m->nodes)));
			v = m->nnodes++;
			m->nodes[v] = (struct gp__mod_node){ pn, x->name, x->cls, 0, 0, 0, x->s };
			GP_TRY(gp__u64map_put(&ix, key, v));
		}
		n = &m->nodes[v];
		x->node = (uint32_t)v;
		n->calls++;
		n->host = gp__add_sat(n->host, x->e - x->s);
		n->gpu = gp__add_sat(n->gpu, x->gpu);
		if (x->s < n->first)
			n->first = x->s;
	}
out:
	gp__u64map_release(&ix);
	return rc;
}

static void mod_release(struct gp__mod *m)
{
	gp__strtab_release(&m->strs);
	gp__u64map_release(&m->cls_ix);
	gp__u64map_release(&m->kern.ix);
	gp__u64map_release(&m->ops.ix);
	gp__free(m->kern.v);
	gp__free(m->ops.v);
	gp__free(m->in);
	gp__free(m->cls);
	gp__free(m->l_inst);
	gp__free(m->l_op);
	gp__free(m->step_end);
	gp__free(m->nodes);
}

int gp__an_modules(const struct gp__actx *c, struct gp_value *r)
{
	struct gp__mod m;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	m.c = c;
	GP_TRY(gp__strtab_init(&m.strs));
	GP_TRY(gp__u64map_init(&m.cls_ix, 16));
	GP_TRY(gp__u64map_init(&m.kern.ix, 64));
	GP_TRY(gp__u64map_init(&m.ops.ix, 64));
	if (c->t->npymod) {
		GP_TRY(collect_pymod(&m));
	} else {
		m.annotations = true;
		GP_TRY(collect_ranges(&m));
	}
	if (!m.nin) {
		GP_TRY(gp_obj_set_null(r, "modules"));
		goto out;
	}
	qsort(m.in, m.nin, sizeof(*m.in), cmp_inst);
	GP_TRY(sweep(&m));
	GP_TRY(pick_steps(&m));
	GP_TRY(project(&m));
	for (size_t i = 0; i < m.nsteps; i++)
		m.step_ns = gp__add_sat(m.step_ns, m.step_end[i] - c->steps[i].ts);
	aggregate(&m);
	GP_TRY(build_tree(&m));
	GP_TRY(gp__mod_emit(&m, r));
out:
	mod_release(&m);
	return rc;
}
