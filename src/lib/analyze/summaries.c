/* SPDX-License-Identifier: MIT */
/*
 * summaries.c - the summary tables of one rank, with nsys `stats` column
 * semantics: "kernels" (and "hta_kernels" under --compat hta), "api_calls",
 * "memory_ops", "annotations", "gpu_annotations" and "cpu_ops".
 *
 * Every table groups events by an integer key (the interned name id, plus a
 * discriminator where one name can mean two things), never by string. The
 * durations of a table are bucketed per group with a counting sort and each
 * bucket is sorted once, which gives min, max and median directly and the
 * standard deviation in a second pass. Rows are ordered by their sort value
 * descending, ties by name then key, so every table is deterministic.
 *
 * CPU nesting (operator self time, the GPU time of operators, the GPU
 * projection of annotations) comes from one pass per host track over
 * user annotations, cpu_ops and runtime/driver calls merged in (ts, dur
 * descending) order with a stack: an event's parent is the innermost event
 * that fully contains it. That is O(n) after the per-kind sorts gp__actx_init
 * already did, plus O(depth) per GPU op to walk up from its launch call.
 * Definitions and JSON fields: docs/analyses/summaries.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "util/error.h"
#include "util/value-int.h"
#include "util/sort.h"

#define NONE UINT32_MAX

/* ---- grouping ---- */

struct group {
	uint64_t key;
	uint32_t name;  /* string id */
	uint32_t first; /* first event of the group, in item order */
	size_t off, n;  /* the group's durations: gtab.durs[off .. off + n) */
	int64_t total, min, max;
	double avg, med, std;
	int64_t sortv; /* rows are ordered by this, descending */
};

struct gtab {
	struct group *g;
	size_t ng, gcap;
	struct gp_u64map map; /* key -> group index */
	uint32_t *gid;        /* per item */
	int64_t *durs;        /* per group, ascending */
	uint32_t *order;      /* row order */
	int64_t total;        /* sum of every group's total */
};

static void gtab_release(struct gtab *gt)
{
	gp__free(gt->g);
	gp_u64map_release(&gt->map);
	gp__free(gt->gid);
	gp__free(gt->durs);
	gp__free(gt->order);
	memset(gt, 0, sizeof(*gt));
}

/*
 * Groups the @p n events @p ev by @p keys (NULL: the name id) and fills the
 * statistics of each group from the effective durations.
 */
static int gtab_build(const struct gp__actx *c, const uint32_t *ev, size_t n, const uint64_t *keys,
                      struct gtab *gt)
{
	const struct gp_events *e = &c->t->ev;
	size_t *cur = NULL, i, k;
	int rc = 0;

	memset(gt, 0, sizeof(*gt));
	GP_TRY(gp_u64map_init(&gt->map, 64));
	gt->gid = gp__calloc(n ? n : 1, sizeof(*gt->gid));
	gt->durs = gp__calloc(n ? n : 1, sizeof(*gt->durs));
	if (!gt->gid || !gt->durs)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for a summary table"));
	for (i = 0; i < n; i++) {
		uint64_t key = keys ? keys[i] : e->name[ev[i]], g;

		GP_TRY(gp_u64map_put_new(&gt->map, key, gt->ng, &g));
		if (g == gt->ng) {
			struct group *gr;

			GP_TRY(gp__grow((void **)&gt->g, &gt->gcap, gt->ng + 1, sizeof(*gt->g)));
			gr = &gt->g[gt->ng++];
			memset(gr, 0, sizeof(*gr));
			gr->key = key;
			gr->name = e->name[ev[i]];
			gr->first = ev[i];
		}
		gt->gid[i] = (uint32_t)g;
		gt->g[g].n++;
	}
	/* counting sort of the durations by group, then one sort per bucket */
	cur = gp__calloc(gt->ng ? gt->ng : 1, sizeof(*cur));
	gt->order = gp__calloc(gt->ng ? gt->ng : 1, sizeof(*gt->order));
	if (!cur || !gt->order)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for a summary table"));
	for (k = 0, i = 0; k < gt->ng; k++) {
		gt->g[k].off = cur[k] = i;
		i += gt->g[k].n;
	}
	for (i = 0; i < n; i++)
		gt->durs[cur[gt->gid[i]]++] = c->dur[ev[i]];
	for (k = 0; k < gt->ng; k++) {
		struct group *gr = &gt->g[k];
		const int64_t *d = gt->durs + gr->off;
		double ss = 0;
		size_t j;

		if (gr->n > 1)
			GP_TRY(gp__sort_i64(gt->durs + gr->off, gr->n));
		for (j = 0; j < gr->n; j++)
			gr->total += d[j];
		gr->min = d[0];
		gr->max = d[gr->n - 1];
		gr->avg = (double)gr->total / (double)gr->n;
		gr->med = gp__quantile_sorted(d, gr->n, 0.5);
		for (j = 0; j < gr->n; j++)
			ss += ((double)d[j] - gr->avg) * ((double)d[j] - gr->avg);
		/* sample standard deviation (n - 1); 0 for one instance, as nsys prints */
		gr->std = gr->n > 1 ? sqrt(ss / (double)(gr->n - 1)) : 0.0;
		gr->sortv = gr->total;
		gt->total += gr->total;
	}
out:
	gp__free(cur);
	return rc;
}

struct okey {
	int64_t sortv;
	const char *name;
	uint64_t key;
	uint32_t g;
};

static int cmp_okey(const void *x, const void *y)
{
	const struct okey *a = x, *b = y;
	int s;

	if (a->sortv != b->sortv)
		return a->sortv > b->sortv ? -1 : 1;
	if ((s = strcmp(a->name, b->name)))
		return s;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Orders the rows by sortv descending, then name, then key. */
static int gtab_order(const struct gp__actx *c, struct gtab *gt)
{
	struct okey *k = gp__calloc(gt->ng ? gt->ng : 1, sizeof(*k));
	size_t i;

	if (!k)
		return gp__error(GP_ENOMEM, "out of memory for a summary table");
	for (i = 0; i < gt->ng; i++) {
		k[i].sortv = gt->g[i].sortv;
		k[i].name = gp_strtab_get(&c->t->strs, gt->g[i].name);
		k[i].key = gt->g[i].key;
		k[i].g = (uint32_t)i;
	}
	qsort(k, gt->ng, sizeof(*k), cmp_okey);
	for (i = 0; i < gt->ng; i++)
		gt->order[i] = k[i].g;
	gp__free(k);
	return 0;
}

/* ---- rows ---- */

typedef int (*extra_fn)(const struct gp__actx *c, const struct gtab *gt, size_t g,
                        struct gp_value *row, void *user);

static int stat_row(const struct gp__actx *c, const struct group *gr, int64_t pct_total,
                    struct gp_value *row)
{
	int rc = 0;

	GP_TRY(gp_obj_set_str(row, "name", gp_strtab_get(&c->t->strs, gr->name)));
	GP_TRY(gp_obj_set_int(row, "count", (int64_t)gr->n));
	GP_TRY(gp_obj_set_int(row, "total_ns", gr->total));
	GP_TRY(gp_obj_set_double(row, "avg_ns", gr->avg));
	GP_TRY(gp_obj_set_double(row, "med_ns", gr->med));
	GP_TRY(gp_obj_set_int(row, "min_ns", gr->min));
	GP_TRY(gp_obj_set_int(row, "max_ns", gr->max));
	GP_TRY(gp_obj_set_double(row, "std_ns", gr->std));
	if (pct_total >= 0)
		GP_TRY(gp_obj_set_double(
		    row, "pct",
		    pct_total > 0 ? 100.0 * (double)gr->total / (double)pct_total : NAN));
out:
	return rc;
}

/*
 * Writes table @p name into @p r: every row, in order. --top is applied after
 * findings has read the full tables (gp__summaries_trim).
 */
static int emit_table(const struct gp__actx *c, struct gp_value *r, const char *name,
                      const struct gtab *gt, int64_t pct_total, extra_fn fn, void *user)
{
	struct gp_value *arr = gp_value_array();
	size_t k;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, name, arr));
	for (k = 0; k < gt->ng; k++) {
		struct gp_value *row = gp_value_object();

		GP_TRY(gp_arr_push(arr, row));
		GP_TRY(stat_row(c, &gt->g[gt->order[k]], pct_total, row));
		if (fn)
			GP_TRY(fn(c, gt, gt->order[k], row, user));
	}
out:
	return rc;
}

/* ---- kernels ---- */

static int kernel_extra(const struct gp__actx *c, const struct gtab *gt, size_t g,
                        struct gp_value *row, void *user)
{
	const struct group *gr = &gt->g[g];
	int rc = 0;

	GP_TRY(gp_obj_set_str(row, "type", gp__ktype_name((enum gp_ktype)c->ktype[gr->first])));
	if (user)
		GP_TRY(
		    gp_obj_set_bool(row, "tensor_core",
		                    gp__uses_tensor_cores(gp_strtab_get(&c->t->strs, gr->name))));
out:
	return rc;
}

static int an_kernels(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp__idx *k = &c->by_kind[GP_K_KERNEL];
	struct gtab gt;
	int64_t tc = 0;
	size_t g;
	int rc = 0;

	GP_TRY(gtab_build(c, k->v, k->n, NULL, &gt));
	GP_TRY(gtab_order(c, &gt));
	GP_TRY(emit_table(c, r, "kernels", &gt, gt.total, kernel_extra, (void *)1));
	for (g = 0; g < gt.ng; g++)
		if (gp__uses_tensor_cores(gp_strtab_get(&c->t->strs, gt.g[g].name)))
			tc += gt.g[g].total;
	GP_TRY(gp_obj_set_double(r, "kernels_tensor_core_pct",
	                         gt.total > 0 ? 100.0 * (double)tc / (double)gt.total : NAN));
	if (c->hta) {
		gtab_release(&gt);
		GP_TRY(gtab_build(c, c->gpu.v, c->gpu.n, NULL, &gt));
		GP_TRY(gtab_order(c, &gt));
		GP_TRY(emit_table(c, r, "hta_kernels", &gt, gt.total, kernel_extra, NULL));
	}
out:
	gtab_release(&gt);
	return rc;
}

/* ---- API calls ---- */

static int api_extra(const struct gp__actx *c, const struct gtab *gt, size_t g,
                     struct gp_value *row, void *user)
{
	(void)c;
	(void)user;
	return gp_obj_set_str(row, "api", gt->g[g].key >> 32 ? "driver" : "runtime");
}

static int an_api(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp__idx *rt = &c->by_kind[GP_K_RUNTIME], *dr = &c->by_kind[GP_K_DRIVER];
	size_t n = rt->n + dr->n, i;
	uint32_t *ev = gp__calloc(n ? n : 1, sizeof(*ev));
	uint64_t *keys = gp__calloc(n ? n : 1, sizeof(*keys));
	struct gtab gt;
	int rc = 0;

	memset(&gt, 0, sizeof(gt));
	if (!ev || !keys)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < rt->n; i++) {
		ev[i] = rt->v[i];
		keys[i] = c->t->ev.name[rt->v[i]];
	}
	for (i = 0; i < dr->n; i++) {
		ev[rt->n + i] = dr->v[i];
		keys[rt->n + i] = (uint64_t)1 << 32 | c->t->ev.name[dr->v[i]];
	}
	GP_TRY(gtab_build(c, ev, n, keys, &gt));
	GP_TRY(gtab_order(c, &gt));
	GP_TRY(emit_table(c, r, "api_calls", &gt, gt.total, api_extra, NULL));
out:
	gtab_release(&gt);
	gp__free(ev);
	gp__free(keys);
	return rc;
}

/* ---- memory operations ---- */

struct memacc {
	int64_t known; /* instances with a byte count */
	int64_t bytes, min, max;
	int64_t dur; /* time of the instances with a byte count */
};

/* "Memcpy HtoD (Pageable -> Device)" -> "HtoD"; NULL when not named */
static const char *mem_direction(const char *name)
{
	static const char *const dirs[] = { "HtoD", "DtoH", "DtoD", "PtoP", "HtoH" };
	size_t i;

	for (i = 0; i < GP_ARRAY_SIZE(dirs); i++) {
		const char *p = strstr(name, dirs[i]);

		/* a whole word: not part of a longer identifier */
		if (p && (p == name || p[-1] == ' ' || p[-1] == '_') &&
		    (p[4] == '\0' || p[4] == ' ' || p[4] == '_' || p[4] == ')'))
			return dirs[i];
	}
	return NULL;
}

static int mem_extra(const struct gp__actx *c, const struct gtab *gt, size_t g,
                     struct gp_value *row, void *user)
{
	const struct memacc *m = &((const struct memacc *)user)[g];
	const char *name = gp_strtab_get(&c->t->strs, gt->g[g].name);
	int rc = 0;

	GP_TRY(gp_obj_set_str(row, "kind", gt->g[g].key >> 32 ? "memset" : "memcpy"));
	GP_TRY(gp_obj_set_str(row, "direction", mem_direction(name)));
	GP_TRY(gp_obj_set_bool(row, "pageable", strstr(name, "Pageable") != NULL));
	if (m->known) {
		GP_TRY(gp_obj_set_int(row, "total_bytes", m->bytes));
		GP_TRY(gp_obj_set_double(row, "avg_bytes", (double)m->bytes / (double)m->known));
		GP_TRY(gp_obj_set_int(row, "min_bytes", m->min));
		GP_TRY(gp_obj_set_int(row, "max_bytes", m->max));
	} else {
		GP_TRY(gp_obj_set_null(row, "total_bytes"));
		GP_TRY(gp_obj_set_null(row, "avg_bytes"));
		GP_TRY(gp_obj_set_null(row, "min_bytes"));
		GP_TRY(gp_obj_set_null(row, "max_bytes"));
	}
	/* bytes per ns are GB/s */
	GP_TRY(gp_obj_set_double(row, "bandwidth_gbps",
	                         m->known && m->dur > 0 ? (double)m->bytes / (double)m->dur : NAN));
out:
	return rc;
}

static int an_memory_ops(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp__idx *mc = &c->by_kind[GP_K_MEMCPY], *ms = &c->by_kind[GP_K_MEMSET];
	const struct gp_trace *t = c->t;
	size_t n = mc->n + ms->n, i;
	uint32_t *ev = gp__calloc(n ? n : 1, sizeof(*ev));
	uint64_t *keys = gp__calloc(n ? n : 1, sizeof(*keys));
	struct memacc *acc = NULL;
	struct gtab gt;
	int rc = 0;

	memset(&gt, 0, sizeof(gt));
	if (!ev || !keys)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < mc->n; i++) {
		ev[i] = mc->v[i];
		keys[i] = t->ev.name[mc->v[i]];
	}
	for (i = 0; i < ms->n; i++) {
		ev[mc->n + i] = ms->v[i];
		keys[mc->n + i] = (uint64_t)1 << 32 | t->ev.name[ms->v[i]];
	}
	GP_TRY(gtab_build(c, ev, n, keys, &gt));
	GP_TRY(gtab_order(c, &gt));
	acc = gp__calloc(gt.ng ? gt.ng : 1, sizeof(*acc));
	if (!acc)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < n; i++) {
		uint32_t aux = t->ev.aux[ev[i]];
		struct memacc *m = &acc[gt.gid[i]];
		int64_t b;

		if (aux == UINT32_MAX || aux >= t->ngpu || (b = t->gpu[aux].bytes) < 0)
			continue;
		if (!m->known || b < m->min)
			m->min = b;
		if (!m->known || b > m->max)
			m->max = b;
		m->known++;
		m->bytes += b;
		m->dur += c->dur[ev[i]];
	}
	GP_TRY(emit_table(c, r, "memory_ops", &gt, gt.total, mem_extra, acc));
out:
	gtab_release(&gt);
	gp__free(acc);
	gp__free(ev);
	gp__free(keys);
	return rc;
}

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
	uint64_t v;

	if (l >= 0 && (size_t)l < c->t->ev.n && ns->pos[l] != NONE)
		return ns->parent[ns->pos[l]];
	if (c->t->ev.ext[g] >= 0 && gp_u64map_get(&c->ext_op, (uint64_t)c->t->ev.ext[g], &v) &&
	    v < c->t->ev.n)
		return ns->pos[v];
	return NONE;
}

/* ---- annotations ---- */

struct proj {
	uint32_t ann; /* annotation event */
	int64_t s, e; /* GPU op interval */
};

static int cmp_proj(const void *x, const void *y)
{
	const struct proj *a = x, *b = y;

	if (a->ann != b->ann)
		return a->ann < b->ann ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return a->e < b->e ? -1 : a->e > b->e;
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

static int an_annotations(const struct gp__actx *c, const struct nest *ns, struct gp_value *r)
{
	static const uint8_t gpu_kinds[] = { GP_K_KERNEL, GP_K_MEMCPY, GP_K_MEMSET };
	const struct gp_trace *t = c->t;
	const struct gp__idx *ua = &c->by_kind[GP_K_USER_ANNOTATION];
	uint32_t *ev = gp__calloc(ua->n ? ua->n : 1, sizeof(*ev));
	struct proj *pr = NULL;
	size_t npr = 0, prcap = 0, n = 0, i, k;
	struct annacc *acc = NULL;
	struct gtab gt;
	int rc = 0;

	memset(&gt, 0, sizeof(gt));
	if (!ev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < ua->n; i++)
		if (!(t->ev.flags[ua->v[i]] & GP_EVF_STEP))
			ev[n++] = ua->v[i];
	GP_TRY(gtab_build(c, ev, n, NULL, &gt));
	GP_TRY(gtab_order(c, &gt));
	acc = gp__calloc(gt.ng ? gt.ng : 1, sizeof(*acc));
	if (!acc)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));

	/* each GPU op belongs to every annotation instance around its launch call */
	for (k = 0; n && k < GP_ARRAY_SIZE(gpu_kinds); k++) {
		const struct gp__idx *gx = &c->by_kind[gpu_kinds[k]];

		for (i = 0; i < gx->n; i++) {
			uint32_t g = gx->v[i], p = gpu_op_anchor(c, ns, g);

			for (; p != NONE; p = ns->parent[p]) {
				uint32_t a = ns->ev[p];

				if (t->ev.kind[a] != GP_K_USER_ANNOTATION ||
				    (t->ev.flags[a] & GP_EVF_STEP))
					continue;
				GP_TRY(gp__grow((void **)&pr, &prcap, npr + 1, sizeof(*pr)));
				pr[npr].ann = a;
				pr[npr].s = c->ts[g];
				pr[npr].e = gp__end(c, g);
				npr++;
			}
		}
	}
	if (npr > 1)
		qsort(pr, npr, sizeof(*pr), cmp_proj);
	/* per instance: the union of its GPU ops' intervals */
	for (i = 0; i < npr;) {
		uint32_t a = pr[i].ann;
		int64_t cs = pr[i].s, ce = pr[i].e, len = 0, ops = 0;
		uint64_t g;

		for (; i < npr && pr[i].ann == a; i++, ops++) {
			if (pr[i].s > ce) {
				len += ce - cs;
				cs = pr[i].s;
				ce = pr[i].e;
			} else if (pr[i].e > ce) {
				ce = pr[i].e;
			}
		}
		len += ce - cs;
		if (gp_u64map_get(&gt.map, t->ev.name[a], &g) && g < gt.ng) {
			acc[g].gpu_ns += len;
			acc[g].gpu_ops += ops;
		}
	}
	GP_TRY(emit_table(c, r, "annotations", &gt, gt.total, ann_extra, acc));

	/* Kineto's own GPU-side projections, its per-step ProfilerStep#N ones aside */
	gtab_release(&gt);
	{
		const struct gp__idx *ga = &c->by_kind[GP_K_GPU_ANNOTATION];
		uint32_t *gev = gp__reallocarray(ev, ga->n ? ga->n : 1, sizeof(*ev));

		if (!gev)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		ev = gev;
		for (i = 0, n = 0; i < ga->n; i++)
			if (strncmp(gp__ev_name(t, ga->v[i]), "ProfilerStep#", 13) != 0)
				ev[n++] = ga->v[i];
		GP_TRY(gtab_build(c, ev, n, NULL, &gt));
		GP_TRY(gtab_order(c, &gt));
		GP_TRY(emit_table(c, r, "gpu_annotations", &gt, gt.total, NULL, NULL));
	}
out:
	gtab_release(&gt);
	gp__free(ev);
	gp__free(pr);
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
	static const uint8_t gpu_kinds[] = { GP_K_KERNEL, GP_K_MEMCPY, GP_K_MEMSET };
	const struct gp_trace *t = c->t;
	const struct gp__idx *ops = &c->by_kind[GP_K_CPU_OP];
	int64_t *self = NULL, *gpu = NULL, *gpu_self = NULL;
	struct opacc *acc = NULL;
	struct gtab gt;
	size_t i, k;
	int rc = 0;

	memset(&gt, 0, sizeof(gt));
	self = gp__calloc(ns->m ? ns->m : 1, sizeof(*self));
	gpu = gp__calloc(ns->m ? ns->m : 1, sizeof(*gpu));
	gpu_self = gp__calloc(ns->m ? ns->m : 1, sizeof(*gpu_self));
	if (!self || !gpu || !gpu_self)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));

	/* self = inclusive minus direct cpu_op / user_annotation children */
	for (i = 0; i < ns->m; i++)
		self[i] = c->dur[ns->ev[i]];
	for (i = 0; i < ns->m; i++) {
		uint8_t kd = t->ev.kind[ns->ev[i]];

		if (ns->parent[i] != NONE && (kd == GP_K_CPU_OP || kd == GP_K_USER_ANNOTATION))
			self[ns->parent[i]] -= c->dur[ns->ev[i]];
	}
	/* GPU time: to every enclosing operator (gpu_ns), the innermost one (gpu_self_ns) */
	for (k = 0; k < GP_ARRAY_SIZE(gpu_kinds); k++) {
		const struct gp__idx *gx = &c->by_kind[gpu_kinds[k]];

		for (i = 0; i < gx->n; i++) {
			uint32_t g = gx->v[i], p = gpu_op_anchor(c, ns, g);
			bool first = true;

			for (; p != NONE; p = ns->parent[p]) {
				if (t->ev.kind[ns->ev[p]] != GP_K_CPU_OP)
					continue;
				gpu[p] += c->dur[g];
				if (first)
					gpu_self[p] += c->dur[g];
				first = false;
			}
		}
	}

	GP_TRY(gtab_build(c, ops->v, ops->n, NULL, &gt));
	acc = gp__calloc(gt.ng + 1, sizeof(*acc));
	if (!acc)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < ops->n; i++) {
		uint32_t p = ns->pos[ops->v[i]];
		struct opacc *o = &acc[gt.gid[i]];

		if (p == NONE)
			continue;
		/* overlapping siblings could push self below 0 */
		o->self_ns += self[p] > 0 ? self[p] : 0;
		o->gpu_ns += gpu[p];
		o->gpu_self_ns += gpu_self[p];
	}
	for (k = 0; k < gt.ng; k++) {
		gt.g[k].sortv = acc[k].self_ns;
		acc[gt.ng].self_ns += acc[k].self_ns;
	}
	GP_TRY(gtab_order(c, &gt));
	GP_TRY(emit_table(c, r, "cpu_ops", &gt, -1, op_extra, acc));
out:
	gtab_release(&gt);
	gp__free(self);
	gp__free(gpu);
	gp__free(gpu_self);
	gp__free(acc);
	return rc;
}

int gp__an_summaries(const struct gp__actx *c, struct gp_value *r)
{
	struct nest ns;
	int rc = 0;

	memset(&ns, 0, sizeof(ns));
	GP_TRY(an_kernels(c, r));
	GP_TRY(an_api(c, r));
	GP_TRY(an_memory_ops(c, r));
	GP_TRY(nest_build(c, &ns));
	GP_TRY(an_annotations(c, &ns, r));
	GP_TRY(an_cpu_ops(c, &ns, r));
out:
	nest_release(&ns);
	return rc;
}

/* the tables --top trims, and the totals their "_omitted" object sums */
static const struct {
	const char *name;
	const char *sums[2];
} trimmed[] = {
	{ "kernels", { "total_ns", NULL } },      { "hta_kernels", { "total_ns", NULL } },
	{ "api_calls", { "total_ns", NULL } },    { "memory_ops", { "total_ns", NULL } },
	{ "annotations", { "total_ns", NULL } },  { "gpu_annotations", { "total_ns", NULL } },
	{ "cpu_ops", { "total_ns", "self_ns" } },
};

int gp__summaries_trim(struct gp_value *r, uint32_t top)
{
	size_t t, k, j;
	char key[64];
	int rc = 0;

	if (!top)
		return 0;
	for (t = 0; t < GP_ARRAY_SIZE(trimmed); t++) {
		struct gp_value *arr = gp__obj_get_mut(r, trimmed[t].name), *om;
		size_t n = gp_value_len(arr);

		if (gp_value_type(arr) != GP_VALUE_ARRAY)
			continue;
		om = gp_value_object();
		snprintf(key, sizeof(key), "%s_omitted", trimmed[t].name);
		GP_TRY(gp_obj_set(r, key, om));
		GP_TRY(gp_obj_set_int(om, "rows", n > top ? (int64_t)(n - top) : 0));
		for (j = 0; j < 2 && trimmed[t].sums[j]; j++) {
			int64_t rest = 0, v;

			for (k = top; k < n; k++)
				if (gp_value_get_int(
				        gp_obj_get(gp_arr_get(arr, k), trimmed[t].sums[j]), &v))
					rest += v;
			GP_TRY(gp_obj_set_int(om, trimmed[t].sums[j], rest));
		}
		gp__arr_truncate(arr, top);
	}
out:
	return rc;
}
