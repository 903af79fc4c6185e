/* SPDX-License-Identifier: MIT */
/*
 * counters.c - "counters": the counter samples of a capture (GPUPROF_COUNTER
 * of the annotation API, docs/annotate.md), one row per counter name over
 * every thread: {name, count, min, max, mean, last}, sorted by name. `last`
 * is the value of the latest sample (the later in the file on a tie). NaN
 * samples are left out of min and max; non-finite numbers are written as
 * null. The section is null for a source that cannot hold counters (a
 * Kineto trace), [] for a capture without any.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "util/error.h"

struct crow {
	const char *name;
	uint32_t id;
	uint64_t count;
	double min, max, sum, last;
	int64_t last_ts;
};

static int cmp_row(const void *x, const void *y)
{
	const struct crow *a = x, *b = y;

	return strcmp(a->name, b->name);
}

int gp__an_counters(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct gp_u64map by_name;
	struct crow *rows = NULL;
	struct gp_value *a;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (!t->has_counters)
		return gp_obj_set_null(r, "counters");
	memset(&by_name, 0, sizeof(by_name));
	if (!(a = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "counters", a));
	for (i = 0; i < t->nctr; i++) {
		const struct gp_counter_sample *s = &t->ctr[i];
		struct crow *w;
		uint64_t k;

		if (gp__u64map_get(&by_name, s->name, &k) != 1) {
			GP_TRY(gp__grow((void **)&rows, &cap, n + 1, sizeof(*rows)));
			k = n++;
			memset(&rows[k], 0, sizeof(rows[k]));
			rows[k].id = s->name;
			rows[k].name = gp__strtab_get(&t->strs, s->name);
			rows[k].min = rows[k].max = s->value;
			rows[k].last_ts = INT64_MIN;
			GP_TRY(gp__u64map_put(&by_name, s->name, k));
		}
		w = &rows[k];
		w->count++;
		w->sum += s->value;
		/* NaN samples are left out of min and max (and make the mean NaN) */
		if (isnan(w->min) || s->value < w->min)
			w->min = s->value;
		if (isnan(w->max) || s->value > w->max)
			w->max = s->value;
		if (s->ts >= w->last_ts) {
			w->last_ts = s->ts;
			w->last = s->value;
		}
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_row);
	for (i = 0; i < n; i++) {
		struct gp_value *o = gp_value_object();

		if (!o)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(a, o));
		GP_TRY(gp_obj_set_str(o, "name", rows[i].name));
		GP_TRY(gp_obj_set_int(o, "count", (int64_t)rows[i].count));
		/* NaN or infinite values come out as null */
		GP_TRY(gp_obj_set_double(o, "min", rows[i].min));
		GP_TRY(gp_obj_set_double(o, "max", rows[i].max));
		GP_TRY(gp_obj_set_double(o, "mean", rows[i].sum / (double)rows[i].count));
		GP_TRY(gp_obj_set_double(o, "last", rows[i].last));
	}
out:
	gp__u64map_release(&by_name);
	gp__free(rows);
	return rc;
}
