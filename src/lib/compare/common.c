/* SPDX-License-Identifier: MIT */
/*
 * common.c - the helpers every file of compare/ shares: a metric's threshold,
 * a warning of the result, a new object in an array, the kind of a loaded
 * tree, a rank's number and a rank on one side only. They call nothing else
 * of compare/ but this file, so that the entry points (compare.c, load.c)
 * and the files that compare (bench.c, report.c, aggregate.c, metric.c,
 * table.c, explain.c) call them without a loop between files.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compare-int.h"
#include "source/source.h"
#include "util/buf.h"

double gp__cmp_threshold_or(const struct gp__cmp *c, const char *name, double dflt)
{
	const struct gp_compare_opts *o = c->opts;
	size_t i;

	if (o && o->threshold_names && o->threshold_values)
		for (i = o->n_thresholds; i-- > 0;)
			if (o->threshold_names[i] && strcmp(o->threshold_names[i], name) == 0)
				return o->threshold_values[i];
	return dflt;
}

double gp__cmp_threshold(const struct gp__cmp *c, const char *name)
{
	return gp__cmp_threshold_or(c, name, c->threshold);
}

struct gp_value *gp__cmp_push_obj(struct gp_value *arr)
{
	struct gp_value *o = gp_value_object();

	if (!o || gp_arr_push(arr, o))
		return NULL;
	return o;
}

int gp__cmp_warn(struct gp__cmp *c, const char *id, const char *fmt, ...)
{
	struct gp_buf b = GP_BUF_INIT;
	struct gp_value *w;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = gp__buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (rc || !(w = gp__cmp_push_obj(c->warnings)) || gp_obj_set_str(w, "id", id) ||
	    gp_obj_set_str(w, "text", b.buf)) {
		gp__buf_release(&b);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	gp__buf_release(&b);
	return 0;
}

int gp__cmp_tree_kind(const struct gp_value *v)
{
	enum gp__src_kind k = gp__doc_kind(v);

	if (k == GP_SRC_BENCH)
		return GP_COMPARE_BENCH;
	if (k == GP_SRC_ANALYZE)
		return GP_COMPARE_REPORT;
	if (k == GP_SRC_AGGREGATE)
		return GP_COMPARE_AGGREGATE;
	return -1;
}

int64_t gp__cmp_rank_of(const struct gp_value *r)
{
	int64_t k = -1;

	gp_value_get_int(gp_obj_get(r, "rank"), &k);
	return k;
}

int gp__cmp_unmatched_rank(struct gp__cmp *c, const char *side, int64_t rank)
{
	struct gp_value *arr =
	    (struct gp_value *)gp_obj_get(gp_obj_get(c->result, "unmatched"), side);
	char name[48];

	snprintf(name, sizeof(name), "rank %lld", (long long)rank);
	if (gp_arr_push(arr, gp_value_str(name)))
		return gp__error(GP_ENOMEM, "out of memory");
	return gp__cmp_warn(c, "unmatched_rank", "%s is only in %s", name, side);
}

int gp__cmp_join_names(const char **names, size_t n, struct gp_buf *out)
{
	size_t i, j;

	for (i = 1; i < n; i++) /* insertion sort: a handful of names */
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		if (gp__buf_addf(out, "%s%s", i ? "; " : "", names[i]))
			return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

double gp__cmp_num(const struct gp_value *v, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(v, key), &d) ? d : NAN;
}
