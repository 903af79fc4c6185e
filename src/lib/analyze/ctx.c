/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - builds the per-rank analysis context (ctx.h): effective times, the
 * kept-event mask, sorted index lists, kernel types, correlation maps, steps.
 */
#include "ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/opts.h"
#include "util/spare.h"
#include "util/sort.h"

/*
 * Sorts an index list by (ts, dur descending, index). The lists are built in
 * index order, so a stable radix sort on ts leaves equal-ts runs in index
 * order, and only those (short) runs need ordering by duration. @p buf holds
 * 2 * ix->n pairs: the keys and the sort's scratch (one buffer for all the
 * lists: each fresh one would be faulted in page by page).
 */
static int sort_idx(const struct gp__actx *c, struct gp__idx *ix, struct gp_kv *buf)
{
	struct gp_kv *kv = buf;
	size_t i, a, b;
	int sorted = 1, rc;

	for (i = 1; i < ix->n; i++) {
		uint32_t x = ix->v[i - 1], y = ix->v[i];

		if (c->ts[x] > c->ts[y] || (c->ts[x] == c->ts[y] && c->dur[x] < c->dur[y])) {
			sorted = 0;
			break;
		}
	}
	if (sorted || ix->n < 2)
		return 0;
	for (i = 0; i < ix->n; i++) {
		kv[i].key = c->ts[ix->v[i]];
		kv[i].val = ix->v[i];
	}
	rc = gp__sort_kv_with(kv, ix->n, kv + ix->n);
	for (a = 0; !rc && a < ix->n; a = b) {
		for (b = a + 1; b < ix->n && kv[b].key == kv[a].key; b++)
			;
		/* insertion sort of the tie run by duration, descending; stable */
		for (i = a + 1; i < b; i++) {
			struct gp_kv x = kv[i];
			size_t j = i;

			while (j > a && c->dur[kv[j - 1].val] < c->dur[x.val]) {
				kv[j] = kv[j - 1];
				j--;
			}
			kv[j] = x;
		}
	}
	for (i = 0; !rc && i < ix->n; i++)
		ix->v[i] = (uint32_t)kv[i].val;
	return rc;
}

/* index lists to sort, with one buffer for all of them (the spare thread's share, or the caller's)
 */
struct sort_job {
	struct gp__actx *c;
	struct gp__idx *ix[GP_K__COUNT + 1];
	bool kind[GP_K__COUNT + 1]; /* a by_kind list: its kpos are set too */
	size_t n, most;
	int rc;
	char err[512];
};

static int sort_lists(struct sort_job *j)
{
	struct gp_kv *buf;
	size_t k, i;
	int rc = 0;

	if (!j->n)
		return 0;
	buf = gp__reallocarray(NULL, 2 * (j->most ? j->most : 1), sizeof(*buf));
	if (!buf)
		return gp__error(GP_ENOMEM, "out of memory sorting events");
	for (k = 0; k < j->n && !rc; k++) {
		rc = sort_idx(j->c, j->ix[k], buf);
		for (i = 0; !rc && j->kind[k] && i < j->ix[k]->n; i++)
			j->c->kpos[j->ix[k]->v[i]] = (uint32_t)i;
	}
	gp__free(buf);
	return rc;
}

static void sort_job_main(void *arg)
{
	struct sort_job *j = arg;

	j->rc = sort_lists(j);
	if (j->rc)
		snprintf(j->err, sizeof(j->err), "%s", gp_last_error());
}

/*
 * Sorts every by_kind list and gpu, setting kpos. With a spare thread the
 * lists are dealt, largest first, to whichever side has fewer elements so
 * far, and the spare sorts its share while the caller sorts the rest.
 */
static int sort_all(struct gp__actx *c, struct gp_spare *spare)
{
	struct sort_job side[2];
	struct gp__idx *all[GP_K__COUNT + 1];
	bool kind[GP_K__COUNT + 1];
	size_t total[2] = { 0, 0 }, n = 0, i, k;
	int rc;

	memset(side, 0, sizeof(side));
	for (k = 0; k < GP_K__COUNT; k++) {
		all[n] = &c->by_kind[k];
		kind[n++] = true;
	}
	all[n] = &c->gpu;
	kind[n++] = false;
	for (k = 0; k < 2; k++)
		side[k].c = c;
	for (i = 0; i < n; i++) {
		size_t best = i, s;

		/* largest first */
		for (k = i + 1; k < n; k++)
			if (all[k]->n > all[best]->n)
				best = k;
		if (best != i) {
			struct gp__idx *x = all[i];
			bool y = kind[i];

			all[i] = all[best];
			kind[i] = kind[best];
			all[best] = x;
			kind[best] = y;
		}
		s = spare && total[1] < total[0] ? 1 : 0;
		side[s].ix[side[s].n] = all[i];
		side[s].kind[side[s].n++] = kind[i];
		total[s] += all[i]->n;
		if (all[i]->n > side[s].most)
			side[s].most = all[i]->n;
	}
	if (spare && side[1].n)
		gp__spare_run(spare, sort_job_main, &side[1]);
	rc = sort_lists(&side[0]);
	if (spare && side[1].n) {
		gp__spare_wait(spare);
		if (!rc && side[1].rc)
			rc = gp__error(side[1].rc, "%s", side[1].err);
	}
	return rc;
}

static int64_t step_number(const char *name)
{
	const char *p = strchr(name, '#');
	int64_t n = 0;

	if (!p || !p[1])
		return -1;
	for (p++; *p; p++) {
		if (*p < '0' || *p > '9' || n > INT64_MAX / 10 - 10)
			return -1;
		n = n * 10 + (*p - '0');
	}
	return n;
}

static bool is_gpu_activity(const struct gp__actx *c, size_t i)
{
	uint8_t k = c->t->ev.kind[i];

	if (k == GP_K_KERNEL || k == GP_K_MEMCPY || k == GP_K_MEMSET)
		return true;
	/* HTA: any event with an integer stream is a GPU event, GPU annotations aside */
	return c->hta && (c->t->ev.flags[i] & GP_EVF_HAS_STREAM) && c->t->ev.stream[i] != -1 &&
	       k != GP_K_GPU_ANNOTATION && k != GP_K_TRACE;
}

/*
 * Kernel typing depends on the name, the kind and the Collective-name arg;
 * names repeat millions of times, so decisions are cached per (name, kind)
 * and the name predicates are computed once per name.
 */
static int classify_cached(struct gp__actx *c, struct gp_u64map *cache, size_t i)
{
	const struct gp_trace *t = c->t;
	uint32_t aux = t->ev.aux[i], name = t->ev.name[i];
	uint64_t key, v;

	if (!(c->name_flags[name] & GP_NF_DONE)) {
		const char *n = gp__strtab_get(&t->strs, name);

		c->name_flags[name] = GP_NF_DONE |
		                      (gp__uses_tensor_cores(n) ? GP_NF_TENSOR_CORE : 0) |
		                      (gp__is_gemm_like(n) ? GP_NF_GEMM : 0);
	}
	if (aux < t->ngpu && t->gpu[aux].collective) {
		c->ktype[i] = (uint8_t)gp__classify(t, i, c->hta, &c->krule[i]);
		return 0;
	}
	key = (uint64_t)name << 8 | t->ev.kind[i];
	if (gp__u64map_get(cache, key, &v)) {
		c->ktype[i] = (uint8_t)(v >> 8);
		c->krule[i] = (uint8_t)v;
		return 0;
	}
	c->ktype[i] = (uint8_t)gp__classify(t, i, c->hta, &c->krule[i]);
	return gp__u64map_put(cache, key, (uint64_t)c->ktype[i] << 8 | c->krule[i]);
}

/*
 * ids spread over more than this many slots per id (plus a constant) use the
 * hash map. A dense slot is 4 bytes, the map's 17 at a load of at most one
 * half, so up to 8 slots per id the array is no larger than the map (and a
 * lookup is one load): CUDA correlation ids, which every thread's calls
 * share, are spread about 5 per call in trace_diff_test (one rank).
 */
#define IDMAP_SPREAD 8

/* key range [lo, hi] of @p count ids (count 0: empty) */
static int idmap_init(struct gp__idmap *m, int64_t lo, int64_t hi, size_t count)
{
	memset(m, 0, sizeof(*m));
	if (count && (uint64_t)(hi - lo) < (uint64_t)IDMAP_SPREAD * count + 4096) {
		m->lo = lo;
		m->n = (size_t)(hi - lo) + 1;
		m->dense = gp__malloc(m->n * sizeof(*m->dense));
		if (!m->dense)
			return gp__error(GP_ENOMEM, "out of memory");
		memset(m->dense, 0xff, m->n * sizeof(*m->dense));
		return 0;
	}
	return gp__u64map_init(&m->map, count);
}

/* maps @p id (>= 0, inside the range given to idmap_init) to @p ev unless already mapped */
static int idmap_put_first(struct gp__idmap *m, int64_t id, uint32_t ev)
{
	if (m->dense) {
		if (m->dense[id - m->lo] == UINT32_MAX)
			m->dense[id - m->lo] = ev;
		return 0;
	}
	return gp__u64map_put_new(&m->map, (uint64_t)id, ev, NULL);
}

static void idmap_release(struct gp__idmap *m)
{
	gp__free(m->dense);
	gp__u64map_release(&m->map);
	memset(m, 0, sizeof(*m));
}

int gp__actx_init(struct gp__actx *c, const struct gp_trace *t, const struct gp_analyze_opts *o,
                  int64_t rank)
{
	return gp__actx_init_with(c, t, o, rank, NULL);
}

int gp__actx_init_with(struct gp__actx *c, const struct gp_trace *t,
                       const struct gp_analyze_opts *o, int64_t rank, struct gp_spare *spare)
{
	const struct gp_events *e = &t->ev;
	size_t counts[GP_K__COUNT] = { 0 }, ngpu = 0, ncorr = 0, next = 0, i, k;
	int64_t corr_lo = INT64_MAX, corr_hi = INT64_MIN, ext_lo = INT64_MAX, ext_hi = INT64_MIN;
	struct gp_u64map cache = { 0 };
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->t = t;
	GP__OPTS_COPY(&c->opts, o);
	c->hta = c->opts.compat == GP_COMPAT_HTA;
	c->rank = rank;
	c->ts = e->ts;
	c->dur = e->dur;
	if (c->hta)
		GP_TRY(gp__compat_hta_prepare(c));

	c->ktype = gp__calloc(e->n ? e->n : 1, 1);
	c->krule = gp__calloc(e->n ? e->n : 1, 1);
	c->name_flags = gp__calloc(gp__strtab_count(&t->strs) + 1, 1);
	if (!c->ktype || !c->krule || !c->name_flags)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));

	for (i = 0; i < e->n; i++) {
		if (!gp__kept(c, i))
			continue;
		counts[e->kind[i]]++;
		if (is_gpu_activity(c, i))
			ngpu++;
		if ((e->kind[i] == GP_K_RUNTIME || e->kind[i] == GP_K_DRIVER) && e->corr[i] >= 0) {
			ncorr++;
			corr_lo = e->corr[i] < corr_lo ? e->corr[i] : corr_lo;
			corr_hi = e->corr[i] > corr_hi ? e->corr[i] : corr_hi;
		}
		if ((e->kind[i] == GP_K_CPU_OP || e->kind[i] == GP_K_USER_ANNOTATION) &&
		    e->ext[i] >= 0) {
			next++;
			ext_lo = e->ext[i] < ext_lo ? e->ext[i] : ext_lo;
			ext_hi = e->ext[i] > ext_hi ? e->ext[i] : ext_hi;
		}
	}
	for (k = 0; k < GP_K__COUNT; k++) {
		c->by_kind[k].v = gp__calloc(counts[k] ? counts[k] : 1, sizeof(uint32_t));
		if (!c->by_kind[k].v)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	c->gpu.v = gp__calloc(ngpu ? ngpu : 1, sizeof(uint32_t));
	if (!c->gpu.v)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(idmap_init(&c->corr_launch, corr_lo, corr_hi, ncorr));
	GP_TRY(idmap_init(&c->ext_op, ext_lo, ext_hi, next));

	c->span_start = INT64_MAX;
	c->span_end = INT64_MIN;
	for (i = 0; i < e->n; i++) {
		uint8_t kind = e->kind[i];

		if (!gp__kept(c, i))
			continue;
		c->by_kind[kind].v[c->by_kind[kind].n++] = (uint32_t)i;
		if (is_gpu_activity(c, i)) {
			c->gpu.v[c->gpu.n++] = (uint32_t)i;
			GP_TRY(classify_cached(c, &cache, i));
		}
		if ((kind == GP_K_RUNTIME || kind == GP_K_DRIVER) && e->corr[i] >= 0)
			GP_TRY(idmap_put_first(&c->corr_launch, e->corr[i], (uint32_t)i));
		if ((kind == GP_K_CPU_OP || kind == GP_K_USER_ANNOTATION) && e->ext[i] >= 0)
			GP_TRY(idmap_put_first(&c->ext_op, e->ext[i], (uint32_t)i));
		if (kind != GP_K_TRACE) {
			if (c->ts[i] < c->span_start)
				c->span_start = c->ts[i];
			if (c->ts[i] + c->dur[i] > c->span_end)
				c->span_end = c->ts[i] + c->dur[i];
		}
	}
	if (c->span_start > c->span_end)
		c->span_start = c->span_end = 0;
	/* launching calls, looked up once: analyses ask for them many times */
	c->launch = gp__calloc(e->n ? e->n : 1, sizeof(*c->launch));
	if (!c->launch)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	memset(c->launch, 0xff, (e->n ? e->n : 1) * sizeof(*c->launch));
	for (k = 0; k < c->gpu.n; k++) {
		uint32_t g = c->gpu.v[k], v;

		if (e->corr[g] >= 0 && gp__idmap_get(&c->corr_launch, e->corr[g], &v))
			c->launch[g] = v;
	}
	c->kpos = gp__malloc((e->n ? e->n : 1) * sizeof(*c->kpos));
	if (!c->kpos)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(sort_all(c, spare));

	/* steps: CPU ProfilerStep#N annotations, in time order */
	{
		const struct gp__idx *ua = &c->by_kind[GP_K_USER_ANNOTATION];
		size_t n = 0;

		for (i = 0; i < ua->n; i++)
			n += (e->flags[ua->v[i]] & GP_EVF_STEP) != 0;
		c->steps = gp__calloc(n ? n : 1, sizeof(*c->steps));
		if (!c->steps)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		for (i = 0; i < ua->n; i++) {
			uint32_t ev = ua->v[i];
			struct gp__step *s;

			if (!(e->flags[ev] & GP_EVF_STEP))
				continue;
			s = &c->steps[c->nsteps++];
			s->ev = ev;
			s->number = step_number(gp__ev_name(t, ev));
			s->ts = c->ts[ev];
			s->end = c->ts[ev] + c->dur[ev];
		}
	}
out:
	gp__u64map_release(&cache);
	if (rc)
		gp__actx_release(c);
	return rc;
}

void gp__actx_release(struct gp__actx *c)
{
	size_t k;

	for (k = 0; k < GP_K__COUNT; k++)
		gp__free(c->by_kind[k].v);
	gp__free(c->gpu.v);
	gp__free(c->ktype);
	gp__free(c->krule);
	gp__free(c->name_flags);
	gp__free(c->launch);
	gp__free(c->kpos);
	gp__free(c->ts_own);
	gp__free(c->dur_own);
	gp__free(c->keep);
	gp__free(c->steps);
	idmap_release(&c->corr_launch);
	idmap_release(&c->ext_op);
	memset(c, 0, sizeof(*c));
}

int64_t gp__launcher(const struct gp__actx *c, size_t i)
{
	if (c->launch && c->launch[i] != UINT32_MAX)
		return c->launch[i];
	return -1;
}
