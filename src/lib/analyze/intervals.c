/* SPDX-License-Identifier: MIT */
/*
 * intervals.c - interval-set arithmetic; see intervals.h for the invariants.
 */
#include "intervals.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/sort.h"

void gp__ivset_release(struct gp_ivset *a)
{
	gp__free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

void gp__ivset_reset(struct gp_ivset *a)
{
	a->n = 0;
}

void gp__ivset_move(struct gp_ivset *dst, struct gp_ivset *src)
{
	gp__ivset_release(dst);
	*dst = *src;
	src->v = NULL;
	src->n = src->cap = 0;
}

int gp__ivset_add(struct gp_ivset *a, int64_t s, int64_t e)
{
	int rc;

	if (e <= s)
		return 0;
	if (a->n == a->cap && (rc = gp__grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v))))
		return rc;
	a->v[a->n].s = s;
	a->v[a->n].e = e;
	a->n++;
	return 0;
}

/* sorts by start: a radix sort on the start with the end as payload */
static int sort_by_start(struct gp_ivset *a)
{
	struct gp_kv *kv = gp__reallocarray(NULL, a->n, sizeof(*kv));
	size_t i;
	int rc;

	if (!kv)
		return gp__error(GP_ENOMEM, "out of memory sorting %zu intervals", a->n);
	for (i = 0; i < a->n; i++) {
		kv[i].key = a->v[i].s;
		kv[i].val = (uint64_t)a->v[i].e;
	}
	rc = gp__sort_kv(kv, a->n);
	for (i = 0; !rc && i < a->n; i++) {
		a->v[i].s = kv[i].key;
		a->v[i].e = (int64_t)kv[i].val;
	}
	gp__free(kv);
	return rc;
}

int gp__ivset_normalize(struct gp_ivset *a)
{
	size_t i, w = 0;
	int rc;

	for (i = 1; i < a->n; i++) {
		if (a->v[i].s < a->v[i - 1].s) {
			if ((rc = sort_by_start(a)))
				return rc;
			break;
		}
	}
	for (i = 0; i < a->n; i++) {
		if (a->v[i].e <= a->v[i].s)
			continue;
		if (w && a->v[i].s <= a->v[w - 1].e) {
			if (a->v[i].e > a->v[w - 1].e)
				a->v[w - 1].e = a->v[i].e;
		} else {
			a->v[w++] = a->v[i];
		}
	}
	a->n = w;
	return 0;
}

int64_t gp__ivset_len(const struct gp_ivset *a)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < a->n; i++)
		sum += a->v[i].e - a->v[i].s;
	return sum;
}

/* index of the first interval of a normal set that ends after @p s (binary search) */
static size_t first_ending_after(const struct gp_ivset *a, int64_t s)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->v[mid].e <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t gp__ivset_len_within(const struct gp_ivset *a, int64_t s, int64_t e)
{
	int64_t sum = 0;
	size_t lo;

	for (lo = first_ending_after(a, s); lo < a->n && a->v[lo].s < e; lo++) {
		int64_t x = a->v[lo].s > s ? a->v[lo].s : s;
		int64_t y = a->v[lo].e < e ? a->v[lo].e : e;

		if (y > x)
			sum += y - x;
	}
	return sum;
}

int gp__ivset_intersect(const struct gp_ivset *a, const struct gp_ivset *b, struct gp_ivset *out)
{
	size_t i = 0, j = 0;
	int rc;

	gp__ivset_reset(out);
	while (i < a->n && j < b->n) {
		int64_t s = a->v[i].s > b->v[j].s ? a->v[i].s : b->v[j].s;
		int64_t e = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;

		if (e > s && (rc = gp__ivset_add(out, s, e)))
			return rc;
		if (a->v[i].e < b->v[j].e)
			i++;
		else
			j++;
	}
	return 0;
}

int64_t gp__ivset_overlap_len(const struct gp_ivset *a, const struct gp_ivset *b)
{
	size_t i = 0, j = 0;
	int64_t sum = 0;

	while (i < a->n && j < b->n) {
		int64_t s = a->v[i].s > b->v[j].s ? a->v[i].s : b->v[j].s;
		int64_t e = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;

		if (e > s)
			sum += e - s;
		if (a->v[i].e < b->v[j].e)
			i++;
		else
			j++;
	}
	return sum;
}

int gp__ivset_subtract(const struct gp_ivset *a, const struct gp_ivset *b, struct gp_ivset *out)
{
	size_t i, j = 0;
	int rc;

	gp__ivset_reset(out);
	for (i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;

		while (j < b->n && b->v[j].e <= s)
			j++;
		for (size_t k = j; k < b->n && b->v[k].s < e; k++) {
			if (b->v[k].s > s && (rc = gp__ivset_add(out, s, b->v[k].s)))
				return rc;
			if (b->v[k].e > s)
				s = b->v[k].e;
			if (s >= e)
				break;
		}
		if (s < e && (rc = gp__ivset_add(out, s, e)))
			return rc;
	}
	return 0;
}

int gp__ivset_union(const struct gp_ivset *a, const struct gp_ivset *b, struct gp_ivset *out)
{
	size_t i = 0, j = 0;
	int rc;

	gp__ivset_reset(out);
	while (i < a->n || j < b->n) {
		const struct gp_iv *x;

		if (j >= b->n || (i < a->n && a->v[i].s <= b->v[j].s))
			x = &a->v[i++];
		else
			x = &b->v[j++];
		if (out->n && x->s <= out->v[out->n - 1].e) {
			if (x->e > out->v[out->n - 1].e)
				out->v[out->n - 1].e = x->e;
		} else if ((rc = gp__ivset_add(out, x->s, x->e))) {
			return rc;
		}
	}
	return 0;
}

int gp__ivset_clip(const struct gp_ivset *a, int64_t s, int64_t e, struct gp_ivset *out)
{
	size_t i;
	int rc;

	gp__ivset_reset(out);
	for (i = first_ending_after(a, s); i < a->n && a->v[i].s < e; i++) {
		int64_t x = a->v[i].s > s ? a->v[i].s : s;
		int64_t y = a->v[i].e < e ? a->v[i].e : e;

		if (y > x && (rc = gp__ivset_add(out, x, y)))
			return rc;
	}
	return 0;
}
