/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - builds the per-rank analysis context (ctx.h): effective times, the
 * kept-event mask, sorted index lists, kernel types, correlation maps, steps.
 */
#include "ctx.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/sort.h"

/*
 * Sorts an index list by (ts, dur descending, index). The lists are built in
 * index order, so a stable radix sort on ts leaves equal-ts runs in index
 * order, and only those (short) runs need ordering by duration.
 */
static int sort_idx(const struct gp__actx *c, struct gp__idx *ix)
{
	struct gp_kv *kv;
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
	kv = gp__calloc(ix->n, sizeof(*kv));
	if (!kv)
		return gp__error(GP_ENOMEM, "out of memory sorting events");
	for (i = 0; i < ix->n; i++) {
		kv[i].key = c->ts[ix->v[i]];
		kv[i].val = ix->v[i];
	}
	rc = gp__sort_kv(kv, ix->n);
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
	gp__free(kv);
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
		const char *n = gp_strtab_get(&t->strs, name);

		c->name_flags[name] = GP_NF_DONE |
		                      (gp__uses_tensor_cores(n) ? GP_NF_TENSOR_CORE : 0) |
		                      (gp__is_gemm_like(n) ? GP_NF_GEMM : 0);
	}
	if (aux < t->ngpu && t->gpu[aux].collective) {
		c->ktype[i] = (uint8_t)gp__classify(t, i, c->hta, &c->krule[i]);
		return 0;
	}
	key = (uint64_t)name << 8 | t->ev.kind[i];
	if (gp_u64map_get(cache, key, &v)) {
		c->ktype[i] = (uint8_t)(v >> 8);
		c->krule[i] = (uint8_t)v;
		return 0;
	}
	c->ktype[i] = (uint8_t)gp__classify(t, i, c->hta, &c->krule[i]);
	return gp_u64map_put(cache, key, (uint64_t)c->ktype[i] << 8 | c->krule[i]);
}

int gp__actx_init(struct gp__actx *c, const struct gp_trace *t, const struct gp_analyze_opts *o,
                  int64_t rank)
{
	const struct gp_events *e = &t->ev;
	size_t counts[GP_K__COUNT] = { 0 }, ngpu = 0, i, k;
	struct gp_u64map cache = { 0 };
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->t = t;
	if (o)
		memcpy(&c->opts, o, o->size < sizeof(c->opts) ? o->size : sizeof(c->opts));
	c->hta = c->opts.compat == GP_COMPAT_HTA;
	c->rank = rank;
	c->ts = e->ts;
	c->dur = e->dur;
	if (c->hta)
		GP_TRY(gp__compat_hta_prepare(c));

	c->ktype = gp__calloc(e->n ? e->n : 1, 1);
	c->krule = gp__calloc(e->n ? e->n : 1, 1);
	c->name_flags = gp__calloc(gp_strtab_count(&t->strs) + 1, 1);
	if (!c->ktype || !c->krule || !c->name_flags)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));

	for (i = 0; i < e->n; i++) {
		if (!gp__kept(c, i))
			continue;
		counts[e->kind[i]]++;
		if (is_gpu_activity(c, i))
			ngpu++;
	}
	for (k = 0; k < GP_K__COUNT; k++) {
		c->by_kind[k].v = gp__calloc(counts[k] ? counts[k] : 1, sizeof(uint32_t));
		if (!c->by_kind[k].v)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	}
	c->gpu.v = gp__calloc(ngpu ? ngpu : 1, sizeof(uint32_t));
	if (!c->gpu.v)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_u64map_init(&c->corr_launch, counts[GP_K_RUNTIME] + counts[GP_K_DRIVER]));
	GP_TRY(gp_u64map_init(&c->ext_op, counts[GP_K_CPU_OP] + counts[GP_K_USER_ANNOTATION]));

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
			GP_TRY(gp_u64map_put_new(&c->corr_launch, (uint64_t)e->corr[i], i, NULL));
		if ((kind == GP_K_CPU_OP || kind == GP_K_USER_ANNOTATION) && e->ext[i] >= 0)
			GP_TRY(gp_u64map_put_new(&c->ext_op, (uint64_t)e->ext[i], i, NULL));
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
		uint32_t g = c->gpu.v[k];
		uint64_t v;

		if (e->corr[g] >= 0 && gp_u64map_get(&c->corr_launch, (uint64_t)e->corr[g], &v))
			c->launch[g] = (uint32_t)v;
	}
	for (k = 0; k < GP_K__COUNT; k++)
		GP_TRY(sort_idx(c, &c->by_kind[k]));
	GP_TRY(sort_idx(c, &c->gpu));

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
	gp_u64map_release(&cache);
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
	gp__free(c->ts_own);
	gp__free(c->dur_own);
	gp__free(c->keep);
	gp__free(c->steps);
	gp_u64map_release(&c->corr_launch);
	gp_u64map_release(&c->ext_op);
	memset(c, 0, sizeof(*c));
}

int64_t gp__launcher(const struct gp__actx *c, size_t i)
{
	if (c->launch && c->launch[i] != UINT32_MAX)
		return c->launch[i];
	return -1;
}
