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
 * The host-side tables (annotations, CPU operators) are in summaries-host.c.
 * Definitions and JSON fields: docs/analyses/summaries.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summaries.h"
#include "util/error.h"
#include "util/value-int.h"
#include "util/sort.h"

void gp__gtab_release(struct gtab *gt)
{
	gp__free(gt->g);
	gp__u64map_release(&gt->map);
	gp__free(gt->gid);
	gp__free(gt->durs);
	gp__free(gt->order);
	memset(gt, 0, sizeof(*gt));
}

/*
 * Groups the @p n events @p ev by @p keys (NULL: the name id) and fills the
 * statistics of each group from the effective durations.
 */
int gp__gtab_build(const struct gp__actx *c, const uint32_t *ev, size_t n, const uint64_t *keys,
                   struct gtab *gt)
{
	const struct gp_events *e = &c->t->ev;
	size_t *cur = NULL, i, k;
	int rc = 0;

	memset(gt, 0, sizeof(*gt));
	GP_TRY(gp__u64map_init(&gt->map, 64));
	gt->gid = gp__calloc(n ? n : 1, sizeof(*gt->gid));
	gt->durs = gp__calloc(n ? n : 1, sizeof(*gt->durs));
	if (!gt->gid || !gt->durs)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for a summary table"));
	for (i = 0; i < n; i++) {
		uint64_t key = keys ? keys[i] : e->name[ev[i]], g;

		GP_TRY(gp__u64map_put_new(&gt->map, key, gt->ng, &g));
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
int gp__gtab_order(const struct gp__actx *c, struct gtab *gt)
{
	struct okey *k = gp__calloc(gt->ng ? gt->ng : 1, sizeof(*k));
	size_t i;

	if (!k)
		return gp__error(GP_ENOMEM, "out of memory for a summary table");
	for (i = 0; i < gt->ng; i++) {
		k[i].sortv = gt->g[i].sortv;
		k[i].name = gp__strtab_get(&c->t->strs, gt->g[i].name);
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

static int stat_row(const struct gp__actx *c, const struct group *gr, int64_t pct_total,
                    struct gp_value *row)
{
	int rc = 0;

	GP_TRY(gp_obj_set_str(row, "name", gp__strtab_get(&c->t->strs, gr->name)));
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
int gp__emit_table(const struct gp__actx *c, struct gp_value *r, const char *name,
                   const struct gtab *gt, int64_t pct_total, gp__extra_fn fn, void *user)
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
		GP_TRY(gp_obj_set_bool(row, "tensor_core", gp__name_tensor_core(c, gr->name)));
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

	GP_TRY(gp__gtab_build(c, k->v, k->n, NULL, &gt));
	GP_TRY(gp__gtab_order(c, &gt));
	GP_TRY(gp__emit_table(c, r, "kernels", &gt, gt.total, kernel_extra, (void *)1));
	for (g = 0; g < gt.ng; g++)
		if (gp__name_tensor_core(c, gt.g[g].name))
			tc += gt.g[g].total;
	GP_TRY(gp_obj_set_double(r, "kernels_tensor_core_pct",
	                         gt.total > 0 ? 100.0 * (double)tc / (double)gt.total : NAN));
	if (c->hta) {
		gp__gtab_release(&gt);
		GP_TRY(gp__gtab_build(c, c->gpu.v, c->gpu.n, NULL, &gt));
		GP_TRY(gp__gtab_order(c, &gt));
		GP_TRY(gp__emit_table(c, r, "hta_kernels", &gt, gt.total, kernel_extra, NULL));
	}
out:
	gp__gtab_release(&gt);
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
	GP_TRY(gp__gtab_build(c, ev, n, keys, &gt));
	GP_TRY(gp__gtab_order(c, &gt));
	GP_TRY(gp__emit_table(c, r, "api_calls", &gt, gt.total, api_extra, NULL));
out:
	gp__gtab_release(&gt);
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
	const char *name = gp__strtab_get(&c->t->strs, gt->g[g].name);
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
	GP_TRY(gp__gtab_build(c, ev, n, keys, &gt));
	GP_TRY(gp__gtab_order(c, &gt));
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
	GP_TRY(gp__emit_table(c, r, "memory_ops", &gt, gt.total, mem_extra, acc));
out:
	gp__gtab_release(&gt);
	gp__free(acc);
	gp__free(ev);
	gp__free(keys);
	return rc;
}

int gp__an_summaries(const struct gp__actx *c, struct gp_value *r)
{
	int rc = 0;

	GP_TRY(an_kernels(c, r));
	GP_TRY(an_api(c, r));
	GP_TRY(an_memory_ops(c, r));
	GP_TRY(gp__sum_host(c, r));
out:
	return rc;
}

/* the tables --top trims, and the totals their "_omitted" object sums */
static const struct {
	const char *name;
	const char *sums[2];
} trimmed[] = {
	{ "kernels", { "total_ns", NULL } },         { "hta_kernels", { "total_ns", NULL } },
	{ "api_calls", { "total_ns", NULL } },       { "memory_ops", { "total_ns", NULL } },
	{ "annotations", { "total_ns", NULL } },     { "ranges", { "total_ns", NULL } },
	{ "gpu_annotations", { "total_ns", NULL } }, { "cpu_ops", { "total_ns", "self_ns" } },
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
