/* SPDX-License-Identifier: MIT */
/*
 * memcurve.c - the allocated and reserved curves of a trace's devices
 * (memcurve.h): one stable sort of the memory events by time, a counting
 * pass that groups them by device keeping that order, and one pass that
 * runs each device's curve. Definitions: docs/analyses/overview-memory.md.
 */
#include "memcurve.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/sort.h"

/* the device key of an event: (type, id) */
static void dev_key(const struct gp_mem_event *m, int32_t *type, int32_t *id)
{
	if (m->device_type == 0 || (m->device_type < 0 && m->device < 0)) {
		*type = 0;
		*id = -1;
	} else {
		*type = 1;
		*id = m->device;
	}
}

static int cmp_dev(const void *a, const void *b)
{
	const struct gp__memdev *x = a, *y = b;

	if (x->type != y->type)
		return y->type - x->type; /* GPUs first */
	return (x->id > y->id) - (x->id < y->id);
}

/* the index of device (@p type, @p id) in @p d[0..n), or n */
static size_t find_dev(const struct gp__memdev *d, size_t n, int32_t type, int32_t id)
{
	size_t lo = 0, hi = n;
	struct gp__memdev k = { .type = type, .id = id };

	while (lo < hi) { /* sorted: binary search */
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_dev(&d[mid], &k);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

void gp__memcurve_release(struct gp__memcurve *mc)
{
	gp__free(mc->dev);
	gp__free(mc->ord);
	gp__free(mc->devof);
	gp__free(mc->ts);
	gp__free(mc->alloc);
	gp__free(mc->reserved);
	gp__free(mc->maxt);
	memset(mc, 0, sizeof(*mc));
}

/* the devices of @p t, sorted, into mc->dev (allocated here), with their event counts */
static int find_devices(const struct gp_trace *t, struct gp__memcurve *mc)
{
	struct gp__memdev few[17], *all = NULL, *d = few;
	size_t i, k, nd = 0;
	int rc = 0;

	/* distinct keys are few: a linear scan of the ones seen */
	for (i = 0; i < t->nmem && nd < 17; i++) {
		int32_t ty, id;

		dev_key(&t->mem[i], &ty, &id);
		for (k = 0; k < nd; k++)
			if (few[k].type == ty && few[k].id == id)
				break;
		if (k == nd)
			few[nd++] = (struct gp__memdev){ .type = ty, .id = id };
	}
	if (nd == 17) { /* many: every event's key, sorted, each kept once */
		all = gp__calloc(t->nmem, sizeof(*all));
		if (!all)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		for (i = 0; i < t->nmem; i++)
			dev_key(&t->mem[i], &all[i].type, &all[i].id);
		qsort(all, t->nmem, sizeof(*all), cmp_dev);
		for (i = 0, nd = 0; i < t->nmem; i++)
			if (!nd || cmp_dev(&all[nd - 1], &all[i]))
				all[nd++] = all[i];
		d = all;
	}
	qsort(d, nd, sizeof(*d), cmp_dev);
	mc->dev = gp__calloc(nd + 1, sizeof(*mc->dev));
	if (!mc->dev)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	memcpy(mc->dev, d, nd * sizeof(*d));
	mc->ndev = nd;
	for (k = 0; k < nd; k++)
		mc->dev[k].use_total = true;
	for (i = 0; i < t->nmem; i++) {
		int32_t ty, id;

		dev_key(&t->mem[i], &ty, &id);
		k = find_dev(mc->dev, nd, ty, id);
		mc->devof[i] = (uint32_t)k;
		mc->dev[k].n++;
		if (t->mem[i].total_allocated < 0)
			mc->dev[k].use_total = false;
	}
out:
	gp__free(all);
	return rc;
}

int gp__memcurve_build(const struct gp_trace *t, struct gp__memcurve *mc)
{
	struct gp_kv *kv = NULL;
	size_t *pos = NULL;
	size_t n = t->nmem, i, d;
	int rc = 0;

	memset(mc, 0, sizeof(*mc));
	if (n >= UINT32_MAX)
		return gp__error(GP_ELIMIT, "too many memory events (%zu)", n);
	mc->n = n;
	mc->ord = gp__calloc(n + 1, sizeof(*mc->ord));
	mc->devof = gp__calloc(n + 1, sizeof(*mc->devof));
	mc->ts = gp__calloc(n + 1, sizeof(*mc->ts));
	mc->alloc = gp__calloc(n + 1, sizeof(*mc->alloc));
	mc->reserved = gp__calloc(n + 1, sizeof(*mc->reserved));
	mc->maxt = gp__calloc(2 * n + 1, sizeof(*mc->maxt));
	kv = gp__calloc(n + 1, sizeof(*kv));
	if (!mc->ord || !mc->devof || !mc->ts || !mc->alloc || !mc->reserved || !mc->maxt || !kv)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(find_devices(t, mc));
	pos = gp__calloc(mc->ndev + 1, sizeof(*pos));
	if (!pos)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (d = 0, i = 0; d < mc->ndev; i += mc->dev[d++].n) {
		mc->dev[d].first = i;
		pos[d] = i;
	}
	/* time order (stable: equal times keep the file's order), then grouped by device */
	for (i = 0; i < n; i++) {
		kv[i].key = t->mem[i].ts;
		kv[i].val = i;
	}
	GP_TRY(gp__sort_kv(kv, n));
	for (i = 0; i < n; i++)
		mc->ord[pos[mc->devof[kv[i].val]]++] = (uint32_t)kv[i].val;
	for (d = 0; d < mc->ndev; d++) {
		const struct gp__memdev *x = &mc->dev[d];
		int64_t cur = 0;

		for (i = x->first; i < x->first + x->n; i++) {
			const struct gp_mem_event *m = &t->mem[mc->ord[i]];

			/* the model bounds the sum of |Bytes|: the running sum cannot wrap */
			cur = x->use_total ? m->total_allocated : cur + m->bytes;
			mc->ts[i] = m->ts;
			mc->alloc[i] = cur;
			mc->reserved[i] = m->total_reserved;
		}
	}
	/* the max tree, bottom up: leaves n..2n-1, node k the max of 2k and 2k + 1 */
	for (i = 0; i < n; i++)
		mc->maxt[n + i] = mc->alloc[i];
	for (i = n; i-- > 1;)
		mc->maxt[i] =
		    mc->maxt[2 * i] > mc->maxt[2 * i + 1] ? mc->maxt[2 * i] : mc->maxt[2 * i + 1];
out:
	gp__free(kv);
	gp__free(pos);
	if (rc)
		gp__memcurve_release(mc);
	return rc;
}

size_t gp__memcurve_at(const struct gp__memcurve *mc, size_t d, int64_t ts)
{
	const struct gp__memdev *x;
	size_t lo, hi;

	if (d >= mc->ndev)
		return SIZE_MAX;
	x = &mc->dev[d];
	lo = x->first;
	hi = x->first + x->n;
	while (lo < hi) { /* the first event after ts */
		size_t mid = lo + (hi - lo) / 2;

		if (mc->ts[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > x->first ? lo - 1 : SIZE_MAX;
}

/* the highest alloc of ord positions [lo, hi] (lo <= hi) */
static int64_t range_max(const struct gp__memcurve *mc, size_t lo, size_t hi)
{
	size_t l = lo + mc->n, r = hi + mc->n + 1;
	int64_t m = INT64_MIN;

	for (; l < r; l /= 2, r /= 2) {
		if (l & 1) {
			m = mc->maxt[l] > m ? mc->maxt[l] : m;
			l++;
		}
		if (r & 1) {
			r--;
			m = mc->maxt[r] > m ? mc->maxt[r] : m;
		}
	}
	return m;
}

bool gp__memcurve_window(const struct gp__memcurve *mc, size_t d, int64_t start, int64_t end,
                         int64_t *peak, int64_t *at_end)
{
	size_t e = gp__memcurve_at(mc, d, end), s;

	if (e == SIZE_MAX || end < start)
		return false;
	/* the level carried in: the last event before start; else the window starts at the first */
	s = start > INT64_MIN ? gp__memcurve_at(mc, d, start - 1) : SIZE_MAX;
	if (s == SIZE_MAX)
		s = mc->dev[d].first;
	*peak = range_max(mc, s, e);
	*at_end = mc->alloc[e];
	return true;
}
