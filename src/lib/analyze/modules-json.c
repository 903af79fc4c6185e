/* SPDX-License-Identifier: MIT */
/*
 * modules-json.c - the "modules" section's JSON from the finished analysis
 * (modules.c): the classes by GPU time, their slowest calls, top kernels and
 * operators, and the tree, children in call order. The tree's objects are
 * made first and then hung under their parents in order, so nothing
 * recurses however deep the tree (modules.c bounds it anyway).
 * Fields: docs/report-schema.md; definitions: docs/analyses/modules.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modules.h"
#include "util/error.h"

#define NONE GP__MOD_NONE

/* ---- JSON ---- */

struct ord {
	int64_t a, b; /* sort keys: descending a, then ascending b */
	const char *name;
	uint32_t i;
};

static int cmp_ord(const void *pa, const void *pb)
{
	const struct ord *a = pa, *b = pb;
	int k;

	if (a->a != b->a)
		return a->a > b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	if ((k = strcmp(a->name, b->name)))
		return k;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* rows of @p rw of class @p cls, top GP__MOD_TOP by GPU time, into array @p key of @p o */
static int emit_rows(const struct gp__mod *m, const struct gp__mod_rows *rw, const uint32_t *at,
                     size_t cnt, struct gp_value *o, const char *key)
{
	const struct gp_trace *t = m->c->t;
	struct gp_value *a = gp_value_array();
	struct ord *ord = NULL;
	int rc = 0;

	if (!a)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, key, a));
	ord = gp__calloc(cnt ? cnt : 1, sizeof(*ord));
	if (!ord)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (size_t i = 0; i < cnt; i++)
		ord[i] = (struct ord){ rw->v[at[i]].total, 0,
			               gp__strtab_get(&t->strs, rw->v[at[i]].name), at[i] };
	qsort(ord, cnt, sizeof(*ord), cmp_ord);
	for (size_t i = 0; i < cnt && i < GP__MOD_TOP; i++) {
		struct gp_value *r = gp_value_object();

		GP_TRY(gp_arr_push(a, r));
		GP_TRY(gp_obj_set_str(r, "name", ord[i].name));
		GP_TRY(gp_obj_set_int(r, "gpu_time_ns", ord[i].a));
	}
out:
	gp__free(ord);
	return rc;
}

/* the row indices of @p rw grouped by class: at[first[k] .. first[k + 1]) */
static int group_rows(const struct gp__mod *m, const struct gp__mod_rows *rw, uint32_t **at,
                      size_t **first)
{
	size_t *f = gp__calloc(m->ncls + 1, sizeof(*f)), *pos = NULL;
	uint32_t *a = gp__calloc(rw->n ? rw->n : 1, sizeof(*a));

	pos = gp__calloc(m->ncls + 1, sizeof(*pos));
	if (!f || !a || !pos) {
		gp__free(f);
		gp__free(a);
		gp__free(pos);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < rw->n; i++)
		f[rw->v[i].cls + 1]++;
	for (size_t k = 1; k <= m->ncls; k++)
		f[k] += f[k - 1];
	memcpy(pos, f, (m->ncls + 1) * sizeof(*pos));
	for (size_t i = 0; i < rw->n; i++)
		a[pos[rw->v[i].cls]++] = (uint32_t)i;
	gp__free(pos);
	*at = a;
	*first = f;
	return 0;
}

static int emit_classes(const struct gp__mod *m, struct gp_value *sec)
{
	struct gp_value *arr = gp_value_array();
	struct ord *ord = gp__calloc(m->ncls ? m->ncls : 1, sizeof(*ord));
	uint32_t *kat = NULL, *oat = NULL;
	size_t *kf = NULL, *of = NULL, i;
	int rc = 0;

	if (!arr || !ord) {
		gp_value_free(arr);
		gp__free(ord);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	GP_TRY(gp_obj_set(sec, "classes", arr));
	GP_TRY(group_rows(m, &m->kern, &kat, &kf));
	GP_TRY(group_rows(m, &m->ops, &oat, &of));
	for (i = 0; i < m->ncls; i++)
		ord[i] = (struct ord){ m->cls[i].gpu, 0, gp__strtab_get(&m->strs, m->cls[i].name),
			               (uint32_t)i };
	qsort(ord, m->ncls, sizeof(*ord), cmp_ord);
	for (i = 0; i < m->ncls; i++) {
		const struct gp__mod_class *k = &m->cls[ord[i].i];
		struct gp_value *o, *sl;
		double mean, var;

		if (!k->count)
			continue;
		o = gp_value_object();
		GP_TRY(gp_arr_push(arr, o));
		mean = (double)k->gpu / (double)k->count;
		/* the sample σ (n − 1, as the summary tables): 0 for one call */
		var = k->count > 1 ? k->sqdev / (double)(k->count - 1) : 0.0;
		GP_TRY(gp_obj_set_str(o, "name", ord[i].name));
		GP_TRY(gp_obj_set_int(o, "count", k->count));
		GP_TRY(gp_obj_set_int(o, "host_time_ns", k->host));
		GP_TRY(gp_obj_set_int(o, "gpu_time_ns", k->gpu));
		GP_TRY(gp_obj_set_int(o, "mean_gpu_ns", (int64_t)llround(mean)));
		GP_TRY(gp_obj_set_int(o, "std_gpu_ns", (int64_t)llround(var > 0 ? sqrt(var) : 0)));
		if (m->step_ns > 0)
			GP_TRY(gp_obj_set_double(o, "step_pct",
			                         fmin(100.0, gp__pct(k->gpu, m->step_ns))));
		else
			GP_TRY(gp_obj_set_null(o, "step_pct"));
		sl = gp_value_array();
		GP_TRY(gp_obj_set(o, "slowest", sl));
		for (size_t j = 0; j < k->nslow; j++) {
			const struct gp__mod_call *x = &m->in[k->slow[j]];
			struct gp_value *r = gp_value_object();

			GP_TRY(gp_arr_push(sl, r));
			GP_TRY(gp_obj_set_str(r, "instance", gp__strtab_get(&m->strs, x->name)));
			GP_TRY(gp_obj_set_int(r, "gpu_time_ns", x->gpu));
			GP_TRY(gp_obj_set_int(r, "start_ns", x->s));
		}
		GP_TRY(emit_rows(m, &m->kern, kat + kf[ord[i].i], kf[ord[i].i + 1] - kf[ord[i].i],
		                 o, "top_kernels"));
		GP_TRY(emit_rows(m, &m->ops, oat + of[ord[i].i], of[ord[i].i + 1] - of[ord[i].i], o,
		                 "top_ops"));
	}
out:
	gp__free(ord);
	gp__free(kat);
	gp__free(kf);
	gp__free(oat);
	gp__free(of);
	return rc;
}

/* builds every node's object, then hangs each under its parent's "children" in order */
static int emit_tree(const struct gp__mod *m, struct gp_value *sec)
{
	struct gp_value *top = gp_value_array(), **obj = NULL, **kids = NULL;
	struct ord *ord = NULL;
	int rc = 0;

	if (!top)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(sec, "tree", top));
	obj = gp__calloc(m->nnodes ? m->nnodes : 1, sizeof(*obj));
	kids = gp__calloc(m->nnodes ? m->nnodes : 1, sizeof(*kids));
	ord = gp__calloc(m->nnodes ? m->nnodes : 1, sizeof(*ord));
	if (!obj || !kids || !ord)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct gp__mod_node *n = &m->nodes[i];
		struct gp_value *o = gp_value_object(), *ch = gp_value_array();

		/* children in call order: by parent (roots first), first call, name */
		ord[i] = (struct ord){ n->parent == NONE ? 1 : -(int64_t)n->parent, n->first,
			               gp__strtab_get(&m->strs, n->name), (uint32_t)i };
		if (!o || !ch) {
			gp_value_free(o);
			gp_value_free(ch);
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		}
		obj[i] = o; /* freed below until its parent takes it */
		kids[i] = ch;
		/* the node owns its children's array from here, even when this fails */
		GP_TRY(gp_obj_set(o, "children", ch));
		GP_TRY(gp_obj_set_str(o, "name", gp__strtab_get(&m->strs, n->name)));
	}
	/* the parent's object owns each node from here: push in order, parents first */
	qsort(ord, m->nnodes, sizeof(*ord), cmp_ord);
	for (size_t i = 0; i < m->nnodes; i++) {
		uint32_t k = ord[i].i;
		const struct gp__mod_node *n = &m->nodes[k];
		struct gp_value *o = obj[k];

		obj[k] = NULL;
		GP_TRY(gp_arr_push(n->parent == NONE ? top : kids[n->parent], o));
		GP_TRY(gp_obj_set_str(o, "class", gp__strtab_get(&m->strs, m->cls[n->cls].name)));
		GP_TRY(gp_obj_set_int(o, "calls", n->calls));
		GP_TRY(gp_obj_set_int(o, "host_time_ns", n->host));
		GP_TRY(gp_obj_set_int(o, "gpu_time_ns", n->gpu));
	}
out:
	if (obj)
		for (size_t i = 0; i < m->nnodes; i++)
			gp_value_free(obj[i]);
	gp__free(obj);
	gp__free(kids);
	gp__free(ord);
	return rc;
}

int gp__mod_emit(const struct gp__mod *m, struct gp_value *r)
{
	struct gp_value *sec = gp_value_object(), *tr;
	int rc = 0;

	if (!sec)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "modules", sec));
	GP_TRY(gp_obj_set_str(sec, "source", m->annotations ? "annotations" : "python_function"));
	GP_TRY(gp_obj_set_int(sec, "steps", (int64_t)m->nsteps));
	GP_TRY(emit_classes(m, sec));
	GP_TRY(emit_tree(m, sec));
	if (!m->ndropped && !m->nodes_dropped) {
		GP_TRY(gp_obj_set_null(sec, "truncated"));
	} else {
		tr = gp_value_object();
		GP_TRY(gp_obj_set(sec, "truncated", tr));
		GP_TRY(gp_obj_set_int(tr, "max_depth", GP__MOD_MAX_DEPTH));
		GP_TRY(gp_obj_set_int(tr, "max_nodes", GP__MOD_MAX_NODES));
		GP_TRY(gp_obj_set_int(tr, "calls_dropped", (int64_t)m->ndropped));
		GP_TRY(gp_obj_set_int(tr, "nodes_dropped", (int64_t)m->nodes_dropped));
	}
out:
	return rc;
}
