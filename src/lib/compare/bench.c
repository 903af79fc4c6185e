/* SPDX-License-Identifier: MIT */
/*
 * bench.c - bench result against bench result ("gpuprof.bench/1",
 * docs/bench-schema.md).
 *
 * Series are paired by name; when each side has exactly one series they are
 * paired whatever their names (`sleep 0.02` against `sleep 0.03`) and a
 * warning says so. Per pair, with gp_stats_compare() on the per-iteration
 * samples: wall time (times_ns, lower is better), throughput (batch_size /
 * time per iteration, higher is better; shown as its median, which is close
 * to but not the bench's items_per_s = batch n / sum of times), GPU time
 * (gpu_ns, when both sides have it), peak memory (peak_memory_bytes) and
 * memory at the iterations' end (memory_at_end_bytes), when both have it:
 * memory that is the same in every iteration of each side is compared
 * exactly (metric.c). A warm-up that differs between the sides, and the
 * bench's own warnings, become warnings of the comparison.
 */
#include <math.h>
#include <string.h>

#include "compare-int.h"

/* a list of numbers: every item a finite number >= 0 (@p nulls: or null) */
static int check_numbers(const struct gp_value *arr, const char *label, size_t series,
                         const char *key, bool nulls, bool need)
{
	size_t i;

	if (!arr || gp_value_type(arr) == GP_VALUE_NULL) {
		if (need)
			return gp__error(GP_EFORMAT, "%s: series[%zu].%s is missing", label, series,
			                 key);
		return 0;
	}
	if (gp_value_type(arr) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "%s: series[%zu].%s is not a list", label, series,
		                 key);
	if (need && gp_value_len(arr) == 0)
		return gp__error(GP_EFORMAT, "%s: series[%zu].%s is empty", label, series, key);
	for (i = 0; i < gp_value_len(arr); i++) {
		const struct gp_value *x = gp_arr_get(arr, i);
		double d;

		if (nulls && gp_value_type(x) == GP_VALUE_NULL)
			continue;
		if (!gp_value_get_double(x, &d) || d < 0)
			return gp__error(GP_EFORMAT,
			                 "%s: series[%zu].%s[%zu] is not a number of 0 or more",
			                 label, series, key, i);
	}
	return 0;
}

int gp__cmp_check_bench(const struct gp_value *v, const char *label)
{
	const struct gp_value *series = gp_obj_get(v, "series");
	size_t i;
	int rc;

	if (gp_value_type(v) != GP_VALUE_OBJECT)
		return gp__error(GP_EFORMAT, "%s: not a JSON object", label);
	if (gp_value_type(series) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "%s: \"series\" is missing or not a list", label);
	if (gp_value_len(series) == 0)
		return gp__error(GP_EFORMAT, "%s: no series", label);
	for (i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i);
		const struct gp_value *bs = gp_obj_get(s, "batch_size");
		const struct gp_value *w = gp_obj_get(s, "warmup");
		double d;
		int64_t k;

		if (gp_value_type(s) != GP_VALUE_OBJECT)
			return gp__error(GP_EFORMAT, "%s: series[%zu] is not an object", label, i);
		if (!gp_value_get_str(gp_obj_get(s, "name")))
			return gp__error(GP_EFORMAT, "%s: series[%zu].name is missing", label, i);
		if ((rc = check_numbers(gp_obj_get(s, "times_ns"), label, i, "times_ns", false,
		                        true)) ||
		    (rc =
		         check_numbers(gp_obj_get(s, "gpu_ns"), label, i, "gpu_ns", true, false)) ||
		    (rc = check_numbers(gp_obj_get(s, "peak_memory_bytes"), label, i,
		                        "peak_memory_bytes", true, false)) ||
		    (rc = check_numbers(gp_obj_get(s, "memory_at_end_bytes"), label, i,
		                        "memory_at_end_bytes", true, false)))
			return rc;
		if (bs && gp_value_type(bs) != GP_VALUE_NULL &&
		    !(gp_value_get_double(bs, &d) && d > 0))
			return gp__error(GP_EFORMAT, "%s: series[%zu].batch_size is not above 0",
			                 label, i);
		if (w && gp_value_type(w) != GP_VALUE_NULL && !(gp_value_get_int(w, &k) && k >= 0))
			return gp__error(GP_EFORMAT, "%s: series[%zu].warmup is not a count", label,
			                 i);
	}
	return 0;
}

/* the numbers of list @p arr (nulls left out) into a new array; *n its length */
static double *numbers(const struct gp_value *arr, size_t *n)
{
	size_t i, len = gp_value_len(arr);
	double *x = gp__calloc(len ? len : 1, sizeof(*x));

	*n = 0;
	if (!x)
		return NULL;
	for (i = 0; i < len; i++)
		if (gp_value_get_double(gp_arr_get(arr, i), &x[*n]))
			(*n)++;
	return x;
}

static double batch_of(const struct gp_value *s)
{
	double b = 1;

	if (!gp_value_get_double(gp_obj_get(s, "batch_size"), &b) || !(b > 0))
		b = 1;
	return b;
}

/* per iteration batch / time, in items per second; false when a time is 0 */
static bool rates(const double *t, size_t n, double batch, double *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(t[i] > 0))
			return false;
		out[i] = batch * 1e9 / t[i];
	}
	return true;
}

static int one_metric(struct gp__cmp *c, const char *group, const struct gp__metric *m,
                      const struct gp_value *bs, const struct gp_value *ns, const char *key,
                      struct gp_value *metrics)
{
	size_t nb = 0, nn = 0;
	double *b = numbers(gp_obj_get(bs, key), &nb), *n = numbers(gp_obj_get(ns, key), &nn);
	int rc = 0;

	if (!b || !n)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (nb && nn)
		GP_TRY(gp__cmp_sampled(c, group, m, b, nb, n, nn, metrics, NULL));
out:
	gp__free(b);
	gp__free(n);
	return rc;
}

static int warmup_warning(struct gp__cmp *c, const char *name, const struct gp_value *bs,
                          const struct gp_value *ns)
{
	int64_t wb, wn;

	if (!gp_value_get_int(gp_obj_get(bs, "warmup"), &wb) ||
	    !gp_value_get_int(gp_obj_get(ns, "warmup"), &wn) || wb == wn)
		return 0;
	if (wb == 0 || wn == 0)
		return gp__cmp_warn(
		    c, "warmup_differs",
		    "series '%s': %s has no warm-up and %s has %lld iteration%s: the "
		    "first iterations of a run are often slower (caches, JIT, "
		    "allocator), so the side without warm-up may look slower",
		    name, wb == 0 ? "base" : "new", wb == 0 ? "new" : "base",
		    (long long)(wb == 0 ? wn : wb), (wb == 0 ? wn : wb) == 1 ? "" : "s");
	return gp__cmp_warn(c, "warmup_differs",
	                    "series '%s': the warm-up differs: base %lld iterations, new %lld",
	                    name, (long long)wb, (long long)wn);
}

/* the bench's own warnings (slow first run, not steady, ...) of one side */
static int bench_warnings(struct gp__cmp *c, const char *side, const struct gp_value *s)
{
	const struct gp_value *w = gp_obj_get(s, "warnings");
	const char *name = gp_value_get_str(gp_obj_get(s, "name"));
	size_t i;
	int rc;

	for (i = 0; i < gp_value_len(w); i++) {
		const struct gp_value *x = gp_arr_get(w, i);
		const char *id = gp_value_get_str(gp_obj_get(x, "id"));
		const char *text = gp_value_get_str(gp_obj_get(x, "text"));

		if (!id && !text)
			continue;
		if ((rc = gp__cmp_warn(c, "bench_warning", "%s series '%s': %s%s%s", side, name,
		                       id ? id : "", id && text ? ": " : "", text ? text : "")))
			return rc;
	}
	return 0;
}

static int compare_pair(struct gp__cmp *c, const struct gp_value *base_doc,
                        const struct gp_value *new_doc, const struct gp_value *bs,
                        const struct gp_value *ns)
{
	static const struct gp__metric m_time = { "time", "time", "ns", GP__MK_TIME,
		                                  GP_LOWER_IS_BETTER };
	static const struct gp__metric m_gpu = { "gpu_time", "GPU time", "ns", GP__MK_TIME,
		                                 GP_LOWER_IS_BETTER };
	static const struct gp__metric m_mem = { "peak_memory", "peak memory", "bytes",
		                                 GP__MK_MEMORY, GP_LOWER_IS_BETTER };
	static const struct gp__metric m_end = { "memory_at_end", "memory at end", "bytes",
		                                 GP__MK_MEMORY, GP_LOWER_IS_BETTER };
	struct gp__metric m_rate = { "throughput", "throughput", "items/s", GP__MK_RATE,
		                     GP_HIGHER_IS_BETTER };
	const char *bname = gp_value_get_str(gp_obj_get(bs, "name"));
	const char *nname = gp_value_get_str(gp_obj_get(ns, "name"));
	const char *rate_name = gp_value_get_str(gp_obj_get(bs, "rate_name"));
	struct gp_value *g, *metrics = gp_value_array(), *expl;
	double *tb = NULL, *tn = NULL, *rb = NULL, *rn = NULL;
	size_t nb = 0, nn = 0;
	int rc = 0;

	if (!metrics || !(g = gp__cmp_push_obj(c->groups))) {
		gp_value_free(metrics);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if (gp_obj_set(g, "metrics", metrics) || gp_obj_set_str(g, "name", bname) ||
	    gp_obj_set_str(g, "base_series", bname) || gp_obj_set_str(g, "new_series", nname) ||
	    !(expl = gp_value_array()) || gp_obj_set(g, "explanations", expl))
		return gp__error(GP_ENOMEM, "out of memory");
	if (rate_name)
		m_rate.unit = rate_name;

	if (!(tb = numbers(gp_obj_get(bs, "times_ns"), &nb)) ||
	    !(tn = numbers(gp_obj_get(ns, "times_ns"), &nn)) ||
	    !(rb = gp__calloc(nb ? nb : 1, sizeof(*rb))) ||
	    !(rn = gp__calloc(nn ? nn : 1, sizeof(*rn))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__cmp_sampled(c, bname, &m_time, tb, nb, tn, nn, metrics, NULL));
	if (rates(tb, nb, batch_of(bs), rb) && rates(tn, nn, batch_of(ns), rn))
		GP_TRY(gp__cmp_sampled(c, bname, &m_rate, rb, nb, rn, nn, metrics, NULL));
	GP_TRY(one_metric(c, bname, &m_gpu, bs, ns, "gpu_ns", metrics));
	GP_TRY(one_metric(c, bname, &m_mem, bs, ns, "peak_memory_bytes", metrics));
	GP_TRY(one_metric(c, bname, &m_end, bs, ns, "memory_at_end_bytes", metrics));

	GP_TRY(warmup_warning(c, bname, bs, ns));
	if (batch_of(bs) != batch_of(ns))
		GP_TRY(
		    gp__cmp_warn(c, "batch_differs",
		                 "series '%s': the batch size differs (base %g, new %g): compare "
		                 "throughput, not time",
		                 bname, batch_of(bs), batch_of(ns)));
	GP_TRY(bench_warnings(c, "base", bs));
	GP_TRY(bench_warnings(c, "new", ns));
	GP_TRY(gp__cmp_explain_bench(c, base_doc, new_doc, g));
out:
	gp__free(tb);
	gp__free(tn);
	gp__free(rb);
	gp__free(rn);
	return rc;
}

static const struct gp_value *series_named(const struct gp_value *list, const char *name)
{
	size_t i;

	for (i = 0; i < gp_value_len(list); i++) {
		const struct gp_value *s = gp_arr_get(list, i);

		if (strcmp(gp_value_get_str(gp_obj_get(s, "name")), name) == 0)
			return s;
	}
	return NULL;
}

static int unmatched(struct gp__cmp *c, const char *side, const char *name)
{
	struct gp_value *arr =
	    (struct gp_value *)gp_obj_get(gp_obj_get(c->result, "unmatched"), side);

	if (gp_arr_push(arr, gp_value_str(name)))
		return gp__error(GP_ENOMEM, "out of memory");
	return gp__cmp_warn(c, "unmatched_series", "series '%s' is only in %s", name, side);
}

int gp__cmp_bench(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_)
{
	const struct gp_value *bl = gp_obj_get(base, "series"), *nl = gp_obj_get(new_, "series");
	size_t i, pairs = 0;
	int rc;

	if (gp_value_len(bl) == 1 && gp_value_len(nl) == 1) {
		const struct gp_value *bs = gp_arr_get(bl, 0), *ns = gp_arr_get(nl, 0);
		const char *bn = gp_value_get_str(gp_obj_get(bs, "name"));
		const char *nn = gp_value_get_str(gp_obj_get(ns, "name"));

		if (strcmp(bn, nn) != 0 &&
		    (rc = gp__cmp_warn(c, "series_paired",
		                       "each side has one series: '%s' (base) is compared with "
		                       "'%s' (new)",
		                       bn, nn)))
			return rc;
		return compare_pair(c, base, new_, bs, ns);
	}
	for (i = 0; i < gp_value_len(bl); i++) {
		const struct gp_value *bs = gp_arr_get(bl, i);
		const char *name = gp_value_get_str(gp_obj_get(bs, "name"));
		const struct gp_value *ns = series_named(nl, name);

		if (!ns) {
			if ((rc = unmatched(c, "base", name)))
				return rc;
			continue;
		}
		if (series_named(bl, name) != bs)
			continue; /* a repeated name: the first one is compared */
		if ((rc = compare_pair(c, base, new_, bs, ns)))
			return rc;
		pairs++;
	}
	for (i = 0; i < gp_value_len(nl); i++) {
		const char *name = gp_value_get_str(gp_obj_get(gp_arr_get(nl, i), "name"));

		if (!series_named(bl, name) && (rc = unmatched(c, "new", name)))
			return rc;
	}
	if (pairs == 0)
		return gp__error(GP_EINVAL,
		                 "%s and %s have no series name in common: name the series "
		                 "alike on both sides (gpuprof bench -n NAME; in a parameter "
		                 "scan, -n 'n={n}')",
		                 c->base_label, c->new_label);
	return 0;
}
