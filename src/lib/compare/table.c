/* SPDX-License-Identifier: MIT */
/*
 * table.c - the kernel and operator diff of two ranks, as HTA's TraceDiff
 * and TraceLens' compare do it: per name, the count, total and per-call time
 * on each side, and a status.
 *
 * Status: "added" (only in new), "removed" (only in base), else by the
 * per-call time (total / count): "slower" when it grew by at least the
 * threshold ("kernels" or "operators", default the global one), "faster"
 * when it fell by at least that much, else "same". A count that changed
 * with the same per-call time is "same" with a non-zero delta_count; the
 * rows are sorted by |delta total| (largest first, then by name), so it
 * still shows at the top. Kernels are the report's `kernels` rows (kernel
 * events; memcpy and memset are not kernels), operators its `cpu_ops` rows
 * with their inclusive total_ns. Names repeated within a side are summed.
 *
 * With few steps the per-call times still have many samples, the instances:
 * each row has Welch's p of its per-call time over them (the means, std_ns
 * and counts of the two rows; null below 2 calls a side, without std_ns, or
 * for a name repeated within a side), and the table counts the slower and
 * faster rows whose change is significant at alpha. The status stays the
 * threshold's, so a table reads the same with or without the spread.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-int.h"
#include "stats/welch.h"

struct trow {
	const char *name;
	const char *type; /* kernels only */
	double count, total, self;
	double std; /* of one call, n - 1; NaN when unknown (or a name repeated) */
	bool has_self;
};

struct mrow {
	const struct trow *b, *n; /* NULL when absent on that side */
	double dtotal;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct trow *)a)->name, ((const struct trow *)b)->name);
}

static int by_delta(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;
	double dx = fabs(x->dtotal), dy = fabs(y->dtotal);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->b ? x->b->name : x->n->name, y->b ? y->b->name : y->n->name);
}

/* the rows of table @p t, sorted by name, repeated names summed; *n their number */
static struct trow *rows_of(const struct gp_value *t, size_t *n)
{
	size_t i, len = gp_value_len(t), k = 0;
	struct trow *r = gp__calloc(len ? len : 1, sizeof(*r));

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < len; i++) {
		const struct gp_value *row = gp_arr_get(t, i);

		r[i].name = gp_value_get_str(gp_obj_get(row, "name"));
		r[i].type = gp_value_get_str(gp_obj_get(row, "type"));
		gp_value_get_double(gp_obj_get(row, "count"), &r[i].count);
		gp_value_get_double(gp_obj_get(row, "total_ns"), &r[i].total);
		r[i].has_self = gp_value_get_double(gp_obj_get(row, "self_ns"), &r[i].self);
		if (!gp_value_get_double(gp_obj_get(row, "std_ns"), &r[i].std))
			r[i].std = NAN;
	}
	qsort(r, len, sizeof(*r), by_name);
	for (i = 0; i < len; i++) {
		if (k && strcmp(r[k - 1].name, r[i].name) == 0) {
			r[k - 1].count += r[i].count;
			r[k - 1].total += r[i].total;
			r[k - 1].self += r[i].self;
			r[k - 1].std = NAN; /* the spread of a union is not known */
			continue;
		}
		r[k++] = r[i];
	}
	*n = k;
	return r;
}

/* an integral value as an int (times and counts), anything else as a double */
static int set_num(struct gp_value *o, const char *key, double d)
{
	if (isfinite(d) && d == floor(d) && fabs(d) < 9e15)
		return gp_obj_set_int(o, key, (int64_t)d);
	return gp_obj_set_double(o, key, d);
}

static const char *status_of(const struct mrow *m, double thr, double *dpct)
{
	double ab, an;

	*dpct = NAN;
	if (!m->b || m->b->count == 0)
		return "added";
	if (!m->n || m->n->count == 0)
		return "removed";
	ab = m->b->total / m->b->count;
	an = m->n->total / m->n->count;
	if (ab == 0)
		return an > 0 ? "slower" : "same";
	*dpct = 100 * (an - ab) / ab;
	if (*dpct >= 100 * thr)
		return "slower";
	if (*dpct <= -100 * thr)
		return "faster";
	return "same";
}

/* Welch's p of the per-call times over the instances; NaN where they do not allow a test */
static double row_p(const struct mrow *m)
{
	if (!m->b || !m->n || !(m->b->count >= 2 && m->n->count >= 2))
		return NAN;
	return gp__welch_p(m->b->total / m->b->count, m->b->std, m->b->count,
	                   m->n->total / m->n->count, m->n->std, m->n->count);
}

static int row_obj(struct gp_value *rows, const struct mrow *m, const char *status, double dpct,
                   double p, bool kernels)
{
	struct gp_value *o = gp__cmp_push_obj(rows);
	double bc = m->b ? m->b->count : 0, nc = m->n ? m->n->count : 0;
	double bt = m->b ? m->b->total : 0, nt = m->n ? m->n->total : 0;
	const char *type = m->n && m->n->type ? m->n->type : m->b ? m->b->type : NULL;

	if (!o || gp_obj_set_str(o, "name", m->b ? m->b->name : m->n->name) ||
	    gp_obj_set_str(o, "status", status) || set_num(o, "base_count", bc) ||
	    set_num(o, "new_count", nc) || set_num(o, "delta_count", nc - bc) ||
	    set_num(o, "base_total_ns", bt) || set_num(o, "new_total_ns", nt) ||
	    set_num(o, "delta_total_ns", nt - bt) ||
	    gp_obj_set_double(o, "base_avg_ns", bc > 0 ? bt / bc : NAN) ||
	    gp_obj_set_double(o, "new_avg_ns", nc > 0 ? nt / nc : NAN) ||
	    gp_obj_set_double(o, "delta_avg_pct", dpct) || gp_obj_set_double(o, "p", p))
		return gp__error(GP_ENOMEM, "out of memory");
	if (kernels && gp_obj_set_str(o, "type", type))
		return gp__error(GP_ENOMEM, "out of memory");
	if (!kernels && ((m->b && m->b->has_self ? set_num(o, "base_self_ns", m->b->self)
	                                         : gp_obj_set_null(o, "base_self_ns")) ||
	                 (m->n && m->n->has_self ? set_num(o, "new_self_ns", m->n->self)
	                                         : gp_obj_set_null(o, "new_self_ns"))))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

static int trimmed_warning(struct gp__cmp *c, const char *group, const char *side,
                           const struct gp_value *r, const char *key, bool *complete)
{
	char okey[64];
	int64_t rows = 0;

	snprintf(okey, sizeof(okey), "%s_omitted", key);
	if (!gp_value_get_int(gp_obj_get(gp_obj_get(r, okey), "rows"), &rows) || rows == 0)
		return 0;
	*complete = false;
	return gp__cmp_warn(c, "table_trimmed",
	                    "%s: the %s report left out %lld %s rows (analyze --top): the diff "
	                    "covers the rows it kept; analyze with --json and no --top for all",
	                    group, side, (long long)rows, key);
}

int gp__cmp_table(struct gp__cmp *c, const char *group, const struct gp_value *base_rank,
                  const struct gp_value *new_rank, const char *key, struct gp_value **out)
{
	const struct gp_value *tb = gp_obj_get(base_rank, key), *tn = gp_obj_get(new_rank, key);
	bool kernels = strcmp(key, "kernels") == 0, complete = true;
	double thr = gp__cmp_threshold(c, kernels ? "kernels" : "operators");
	struct trow *rb = NULL, *rn = NULL;
	struct mrow *m = NULL;
	size_t nb = 0, nn = 0, nm = 0, i = 0, j = 0;
	size_t n_added = 0, n_removed = 0, n_slower = 0, n_faster = 0, n_same = 0;
	size_t n_slower_sig = 0, n_faster_sig = 0;
	double sum_b = 0, sum_n = 0, added_ns = 0, removed_ns = 0;
	struct gp_value *o = NULL, *rows = NULL, *x;
	int rc = 0;

	*out = NULL;
	if (gp_value_type(tb) != GP_VALUE_ARRAY || gp_value_type(tn) != GP_VALUE_ARRAY) {
		if (gp_value_type(tb) == GP_VALUE_ARRAY || gp_value_type(tn) == GP_VALUE_ARRAY)
			return gp__cmp_warn(
			    c, "table_missing", "%s: only the %s report has %s", group,
			    gp_value_type(tb) == GP_VALUE_ARRAY ? "base" : "new", key);
		return 0;
	}
	GP_TRY(trimmed_warning(c, group, "base", base_rank, key, &complete));
	GP_TRY(trimmed_warning(c, group, "new", new_rank, key, &complete));
	if (!(rb = rows_of(tb, &nb)) || !(rn = rows_of(tn, &nn)) ||
	    !(m = gp__calloc(nb + nn + 1, sizeof(*m))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	while (i < nb || j < nn) {
		int d = i == nb ? 1 : j == nn ? -1 : strcmp(rb[i].name, rn[j].name);

		m[nm].b = d <= 0 ? &rb[i++] : NULL;
		m[nm].n = d >= 0 ? &rn[j++] : NULL;
		m[nm].dtotal = (m[nm].n ? m[nm].n->total : 0) - (m[nm].b ? m[nm].b->total : 0);
		nm++;
	}
	qsort(m, nm, sizeof(*m), by_delta);

	if (!(o = gp_value_object()) || !(rows = gp_value_array()) || gp_obj_set(o, "rows", rows))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < nm; i++) {
		double dpct, p = row_p(&m[i]);
		const char *st = status_of(&m[i], thr, &dpct);

		GP_TRY(row_obj(rows, &m[i], st, dpct, p, kernels));
		sum_b += m[i].b ? m[i].b->total : 0;
		sum_n += m[i].n ? m[i].n->total : 0;
		if (strcmp(st, "added") == 0) {
			n_added++;
			added_ns += m[i].n ? m[i].n->total : 0;
		} else if (strcmp(st, "removed") == 0) {
			n_removed++;
			removed_ns += m[i].b ? m[i].b->total : 0;
		} else if (strcmp(st, "slower") == 0) {
			n_slower++;
			n_slower_sig += p < c->alpha;
		} else if (strcmp(st, "faster") == 0) {
			n_faster++;
			n_faster_sig += p < c->alpha;
		} else
			n_same++;
	}
	if (gp_obj_set_str(o, "table", kernels ? "kernels" : "operators") ||
	    gp_obj_set_double(o, "threshold_pct", 100 * thr) ||
	    gp_obj_set_bool(o, "complete", complete) || set_num(o, "base_names", (double)nb) ||
	    set_num(o, "new_names", (double)nn) || set_num(o, "base_total_ns", sum_b) ||
	    set_num(o, "new_total_ns", sum_n) || set_num(o, "delta_total_ns", sum_n - sum_b) ||
	    set_num(o, "slower", (double)n_slower) || set_num(o, "faster", (double)n_faster) ||
	    set_num(o, "slower_significant", (double)n_slower_sig) ||
	    set_num(o, "faster_significant", (double)n_faster_sig) ||
	    set_num(o, "same", (double)n_same) || !(x = gp_value_object()) ||
	    gp_obj_set(o, "added", x) || set_num(x, "names", (double)n_added) ||
	    set_num(x, "total_ns", added_ns) || !(x = gp_value_object()) ||
	    gp_obj_set(o, "removed", x) || set_num(x, "names", (double)n_removed) ||
	    set_num(x, "total_ns", removed_ns))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	*out = o;
	o = NULL;
out:
	gp_value_free(o);
	gp__free(rb);
	gp__free(rn);
	gp__free(m);
	return rc;
}
