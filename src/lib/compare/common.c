/* SPDX-License-Identifier: MIT */
/*
 * common.c - the helpers every file of compare/ shares: a metric's threshold,
 * a warning of the result, a new object in an array, the kind of a loaded
 * tree. They call nothing else of compare/, so that the entry points
 * (compare.c, load.c) and the files that compare (bench.c, report.c,
 * metric.c, table.c, explain.c) call them without a loop between files.
 */
#include <stdarg.h>
#include <string.h>

#include "compare-int.h"
#include "source/source.h"
#include "util/buf.h"

double gp__cmp_threshold(const struct gp__cmp *c, const char *name)
{
	const struct gp_compare_opts *o = c->opts;
	size_t i;

	if (o && o->threshold_names && o->threshold_values)
		for (i = o->n_thresholds; i-- > 0;)
			if (o->threshold_names[i] && strcmp(o->threshold_names[i], name) == 0)
				return o->threshold_values[i];
	return c->threshold;
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
