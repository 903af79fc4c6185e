/* SPDX-License-Identifier: MIT */
/*
 * compare.c - the entry points of `gpuprof compare` on loaded trees: the
 * options (defaults, per-metric thresholds), the skeleton of the
 * "gpuprof.compare/1" result, the tags that differ, and the overall verdict
 * and summary line once bench.c or report.c has compared the metrics.
 *
 * The overall verdict reads only the metrics with samples: "regression" when
 * one of them is worse (significant, past its threshold, the bad way; exit
 * 3), else "improvement" when one is better, else "inconclusive" when one
 * could not be decided, else "same". Without any metric with samples it is
 * "inconclusive" when a single-valued metric moved past its threshold, else
 * "same". The helpers the comparing files share are in common.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare-int.h"
#include "text/text.h"
#include "util/buf.h"
#include "util/opts.h"

/* the metric names that --threshold-for accepts (docs/cli/gpuprof-compare.md) */
static const char *const known_metrics[] = {
	/* bench */
	"time",
	"throughput",
	"gpu_time",
	"peak_memory",
	"memory_at_end",
	/* reports */
	"step_time",
	"gpu_busy",
	"gpu_idle_pct",
	"compute",
	"communication",
	"memcpy",
	"comm_comp_overlap_pct",
	"kernel_time",
	/* the table diffs (per-call time) */
	"kernels",
	"operators",
	/* aggregates (gpuprof.aggregate/1) */
	"step_mean",
	"step_p50",
	"step_p95",
	"wait",
	"exposed_comm",
	"max_step_mean",
	"total_wait",
	"straggler_blame",
	"busbw",
	/* the module and roofline diffs (per instance, per call) */
	"modules",
	"ops",
};

/* what a tree of kind @p k (gp__cmp_tree_kind()) is, in words */
static const char *kind_words(int k)
{
	return k == GP_COMPARE_BENCH       ? "a bench result"
	       : k == GP_COMPARE_REPORT    ? "an analyze report"
	       : k == GP_COMPARE_AGGREGATE ? "an aggregate"
	                                   : "not a gpuprof document";
}

/* the "input" and "kind" word of a tree of kind @p k */
static const char *kind_name(int k)
{
	return k == GP_COMPARE_BENCH ? "bench" : k == GP_COMPARE_AGGREGATE ? "aggregate" : "report";
}

/* a tag's value as text (tags are strings; anything else is shown as JSON) */
static char *tag_text(const struct gp_value *v)
{
	char *s = NULL;

	if (!v)
		return NULL;
	if (gp_value_get_str(v))
		return gp__strdup(gp_value_get_str(v));
	if (gp_value_to_json(v, 0, &s, NULL))
		return NULL;
	return s;
}

static int tag_change(struct gp__cmp *c, struct gp_value *arr, const char *key,
                      const struct gp_value *b, const struct gp_value *n)
{
	char *bs = tag_text(b), *ns = tag_text(n);
	struct gp_value *o;
	int rc = 0;

	if ((b && !bs) || (n && !ns))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (bs && ns && strcmp(bs, ns) == 0)
		goto out;
	if (!(o = gp__cmp_push_obj(arr)) || gp_obj_set_str(o, "key", key) ||
	    gp_obj_set_str(o, "base", bs) || gp_obj_set_str(o, "new", ns))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	(void)c;
out:
	gp__free(bs);
	gp__free(ns);
	return rc;
}

int gp__cmp_tags(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_)
{
	const struct gp_value *bt = gp_obj_get(base, "tags"), *nt = gp_obj_get(new_, "tags");
	struct gp_value *arr = gp_value_array();
	size_t i;
	int rc = 0;

	if (!arr || gp_obj_set(c->result, "tag_changes", arr))
		return gp__error(GP_ENOMEM, "out of memory");
	/* base's keys in its order, then the keys only new has */
	for (i = 0; i < gp_value_len(bt) && gp_value_type(bt) == GP_VALUE_OBJECT; i++) {
		const char *k = gp_obj_key_at(bt, i);

		GP_TRY(tag_change(c, arr, k, gp_obj_value_at(bt, i), gp_obj_get(nt, k)));
	}
	for (i = 0; i < gp_value_len(nt) && gp_value_type(nt) == GP_VALUE_OBJECT; i++) {
		const char *k = gp_obj_key_at(nt, i);

		if (gp_value_type(bt) != GP_VALUE_OBJECT || !gp_obj_get(bt, k))
			GP_TRY(tag_change(c, arr, k, NULL, gp_obj_value_at(nt, i)));
	}
out:
	return rc;
}

int gp_compare_check_opts(const struct gp_compare_opts *o)
{
	size_t i, k;
	int rc;

	if (!o)
		return 0;
	if ((rc = GP__OPTS_VALID(o, struct gp_compare_opts)))
		return rc;
	/* every field is read below: a caller's struct must reach the last one */
	if (o->size < offsetof(struct gp_compare_opts, threads) + sizeof(o->threads))
		return gp__error(GP_EINVAL, "gp_compare: opts.size is %u, expected %zu", o->size,
		                 sizeof(*o));
	if (!(o->alpha >= 0 && o->alpha < 1))
		return gp__error(GP_EINVAL, "alpha %g is not between 0 and 1", o->alpha);
	if (!(o->threshold >= 0 && o->threshold <= 100))
		return gp__error(GP_EINVAL, "threshold %g is not a fraction between 0 and 100",
		                 o->threshold);
	if (o->n_thresholds && (!o->threshold_names || !o->threshold_values))
		return gp__error(GP_EINVAL, "gp_compare: NULL per-metric threshold arrays");
	for (i = 0; i < o->n_thresholds; i++) {
		const char *name = o->threshold_names[i];
		double v = o->threshold_values[i];
		bool known = false;

		for (k = 0; name && k < GP_ARRAY_SIZE(known_metrics); k++)
			known |= strcmp(name, known_metrics[k]) == 0;
		if (!known) {
			struct gp_buf b = GP_BUF_INIT;

			for (k = 0; k < GP_ARRAY_SIZE(known_metrics); k++)
				if (gp__buf_addf(&b, "%s%s", k ? ", " : "", known_metrics[k]))
					return gp__error(GP_ENOMEM, "out of memory");
			rc = gp__error(GP_EINVAL,
			               "no metric '%s' to set a threshold for (metrics: %s)",
			               name ? name : "(null)", b.buf);
			gp__buf_release(&b);
			return rc;
		}
		if (!(v > 0 && v <= 100))
			return gp__error(GP_EINVAL, "the threshold of '%s' (%g) is not above 0",
			                 name, v);
	}
	return 0;
}

/* result.options: what the verdicts were decided with */
static int options_obj(struct gp__cmp *c)
{
	struct gp_value *o = gp_value_object(), *per;
	const struct gp_compare_opts *u = c->opts;
	size_t i;

	if (!o || gp_obj_set(c->result, "options", o) || !(per = gp_value_object()) ||
	    gp_obj_set(o, "thresholds_pct", per) || gp_obj_set_double(o, "alpha", c->alpha) ||
	    gp_obj_set_double(o, "threshold_pct", 100 * c->threshold) ||
	    gp_obj_set_int(o, "min_samples", c->min_samples) ||
	    gp_obj_set_int(o, "resamples", c->resamples ? c->resamples : 10000) ||
	    gp_obj_set_int(o, "seed", (int64_t)(c->seed ? c->seed : GP_STATS_DEFAULT_SEED)) ||
	    (c->rank >= 0 ? gp_obj_set_int(o, "rank", c->rank) : gp_obj_set_null(o, "rank")))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; u && i < u->n_thresholds; i++)
		if (gp_obj_set_double(per, u->threshold_names[i], 100 * u->threshold_values[i]))
			return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

static int side_obj(struct gp__cmp *c, const char *key, const struct gp_value *tree)
{
	struct gp_value *o = gp_value_object();
	const struct gp_value *tags = gp_obj_get(tree, "tags");
	int k = gp__cmp_tree_kind(tree);

	if (!o || gp_obj_set(c->result, key, o) || gp_obj_set_null(o, "path") ||
	    gp_obj_set_str(o, "input", kind_name(k)) ||
	    gp_obj_set(o, "tags",
	               gp_value_type(tags) == GP_VALUE_OBJECT ? gp_value_clone(tags)
	                                                      : gp_value_object()))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

static void fmt_p(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "p = -");
	else if (p < 0.0001)
		snprintf(buf, n, "p < 0.0001");
	else
		snprintf(buf, n, "p = %.4f", p);
}

/* the first metric with samples whose verdict is @p want ("better" or "worse" direction) */
static const struct gp_value *first_sampled(const struct gp__cmp *c, bool worse, const char **group)
{
	size_t i, j;

	for (i = 0; i < gp_value_len(c->groups); i++) {
		const struct gp_value *g = gp_arr_get(c->groups, i);
		const struct gp_value *ms = gp_obj_get(g, "metrics");

		for (j = 0; j < gp_value_len(ms); j++) {
			const struct gp_value *m = gp_arr_get(ms, j);
			const char *v = gp_value_get_str(gp_obj_get(m, "verdict"));

			if (!gp_value_get_bool(gp_obj_get(m, "samples"), false) || !v)
				continue;
			if (worse ? gp_value_get_bool(gp_obj_get(m, "regression"), false)
			          : (strcmp(v, "faster") == 0 || strcmp(v, "better") == 0)) {
				*group = gp_value_get_str(gp_obj_get(g, "name"));
				return m;
			}
		}
	}
	return NULL;
}

static int verdict_and_summary(struct gp__cmp *c, bool bench)
{
	const char *verdict, *group = NULL;
	const struct gp_value *m = NULL;
	struct gp_buf b = GP_BUF_INIT;
	char th[32];
	int rc = 0;

	gp__fmt_pct(th, sizeof(th), 100 * c->threshold, GP__FMT_GIVEN);
	if (c->n_worse)
		verdict = "regression";
	else if (c->n_better)
		verdict = "improvement";
	else if (c->n_inconclusive || (!c->n_sampled && c->n_single_changed))
		verdict = "inconclusive";
	else
		verdict = "same";
	if (c->n_worse || c->n_better)
		m = first_sampled(c, c->n_worse > 0, &group);
	if (m) {
		double d = NAN, p = NAN;
		char pb[32], db[32];

		gp_value_get_double(gp_obj_get(m, "delta_pct"), &d);
		gp_value_get_double(gp_obj_get(m, "p"), &p);
		if (gp_value_get_str(gp_obj_get(m, "test")) &&
		    strcmp(gp_value_get_str(gp_obj_get(m, "test")), "exact") == 0)
			snprintf(pb, sizeof(pb), "exact"); /* memory alike in every iteration */
		else
			fmt_p(pb, sizeof(pb), p);
		GP_TRY(gp__buf_addf(&b, "%s: %s %s (%s) %s %s%s%s", verdict,
		                    gp_value_get_str(gp_obj_get(m, "title")),
		                    gp__fmt_pct(db, sizeof(db), d, GP__FMT_SIGN), pb,
		                    bench ? "for" : "on", bench ? "'" : "", group ? group : "?",
		                    bench ? "'" : ""));
		if (c->n_worse > 1)
			GP_TRY(gp__buf_addf(&b, ", and %zu more regression%s", c->n_worse - 1,
			                    c->n_worse > 2 ? "s" : ""));
		else if (!c->n_worse && c->n_better > 1)
			GP_TRY(gp__buf_addf(&b, ", and %zu more improvement%s", c->n_better - 1,
			                    c->n_better > 2 ? "s" : ""));
	} else if (!c->n_worse && !c->n_better &&
	           (c->n_inconclusive || (!c->n_sampled && c->n_single_changed))) {
		if (c->n_sampled)
			GP_TRY(gp__buf_addf(
			    &b,
			    "inconclusive: %zu metric%s could not be decided (too few "
			    "samples, or samples that cannot confirm or rule out a change "
			    "past the threshold at alpha %g: the reasons say which)",
			    c->n_inconclusive, c->n_inconclusive == 1 ? "" : "s", c->alpha));
		else
			GP_TRY(gp__buf_addf(
			    &b,
			    "inconclusive: no metric with samples to test; %zu total%s "
			    "changed by %s or more",
			    c->n_single_changed, c->n_single_changed == 1 ? "" : "s", th));
	} else if (c->n_sampled)
		GP_TRY(gp__buf_addf(&b, "same: no significant change of %s or more (alpha %g)", th,
		                    c->alpha));
	else
		GP_TRY(
		    gp__buf_addf(&b, "same: no change of %s or more (no metric with samples)", th));
	/* the totals with one value a side read "inconclusive" in the table: counted here too */
	if (!m && c->n_sampled && c->n_single_changed)
		GP_TRY(gp__buf_addf(&b,
		                    "; %zu total%s with one value a side changed by %s or "
		                    "more (no test)",
		                    c->n_single_changed, c->n_single_changed == 1 ? "" : "s", th));
	if (gp_obj_set_str(c->result, "verdict", verdict) ||
	    gp_obj_set_bool(c->result, "regression", c->n_worse > 0) ||
	    gp_obj_set_str(c->result, "summary", b.buf))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
out:
	if (rc == GP_ENOMEM)
		gp__error(GP_ENOMEM, "out of memory");
	gp__buf_release(&b);
	return rc;
}

int gp__cmp_values_labelled(const struct gp_value *base, const struct gp_value *new_,
                            const struct gp_compare_opts *opts, const char *base_label,
                            const char *new_label, struct gp_value **out)
{
	struct gp__cmp c;
	struct gp_value *unmatched;
	int kb, kn, rc = 0;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	GP_TRY(gp_compare_check_opts(opts));
	c.opts = opts;
	c.alpha = opts && opts->alpha > 0 ? opts->alpha : GP__CMP_ALPHA;
	c.threshold = opts && opts->threshold > 0 ? opts->threshold : GP__CMP_THRESHOLD;
	c.min_samples = opts && opts->min_samples ? opts->min_samples : GP__CMP_MIN_SAMPLES;
	c.resamples = opts ? opts->resamples : 0;
	c.seed = opts ? opts->seed : 0;
	c.rank = opts ? opts->rank : -1;
	c.base_label = base_label;
	c.new_label = new_label;

	kb = gp__cmp_tree_kind(base);
	kn = gp__cmp_tree_kind(new_);
	if (kb < 0 || kn < 0)
		GP_TRY(gp__error(GP_EINVAL,
		                 "%s: not a bench result, an analyze report or an aggregate",
		                 kb < 0 ? base_label : new_label));
	/* the aggregate, else the bench result, named first */
	if (kb != kn) {
		bool first_b = kb == GP_COMPARE_AGGREGATE ||
		               (kn != GP_COMPARE_AGGREGATE && kb == GP_COMPARE_BENCH);

		GP_TRY(gp__error(GP_EINVAL, "cannot compare %s (%s) with %s (%s)",
		                 kind_words(first_b ? kb : kn), first_b ? base_label : new_label,
		                 kind_words(first_b ? kn : kb), first_b ? new_label : base_label));
	}
	GP_TRY(kb == GP_COMPARE_BENCH       ? gp__cmp_check_bench(base, base_label)
	       : kb == GP_COMPARE_AGGREGATE ? gp__cmp_check_aggregate(base, base_label)
	                                    : gp__cmp_check_report(base, base_label));
	GP_TRY(kn == GP_COMPARE_BENCH       ? gp__cmp_check_bench(new_, new_label)
	       : kn == GP_COMPARE_AGGREGATE ? gp__cmp_check_aggregate(new_, new_label)
	                                    : gp__cmp_check_report(new_, new_label));

	if (!(c.result = gp_value_object()) ||
	    gp_obj_set_str(c.result, "schema", GP_COMPARE_SCHEMA) ||
	    gp_obj_set_str(c.result, "gpuprof_version", gp_version()) ||
	    gp_obj_set_str(c.result, "kind", kind_name(kb)) || !(c.groups = gp_value_array()) ||
	    gp_obj_set(c.result, "groups", c.groups) || !(c.warnings = gp_value_array()) ||
	    gp_obj_set(c.result, "warnings", c.warnings) || !(c.regressions = gp_value_array()) ||
	    gp_obj_set(c.result, "regressions", c.regressions) ||
	    !(unmatched = gp_value_object()) || gp_obj_set(c.result, "unmatched", unmatched) ||
	    gp_obj_set(unmatched, "base", gp_value_array()) ||
	    gp_obj_set(unmatched, "new", gp_value_array()))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(options_obj(&c));
	GP_TRY(side_obj(&c, "base", base));
	GP_TRY(side_obj(&c, "new", new_));
	GP_TRY(gp__cmp_tags(&c, base, new_));
	if (kb == GP_COMPARE_BENCH)
		GP_TRY(gp__cmp_bench(&c, base, new_));
	else if (kb == GP_COMPARE_AGGREGATE)
		GP_TRY(gp__cmp_aggregates(&c, base, new_));
	else
		GP_TRY(gp__cmp_reports(&c, base, new_));
	GP_TRY(verdict_and_summary(&c, kb == GP_COMPARE_BENCH));
	*out = c.result;
	c.result = NULL;
out:
	if (rc)
		gp_value_free(c.result);
	return rc;
}

GP_API int gp_compare_values(const struct gp_value *base, const struct gp_value *new_,
                             const struct gp_compare_opts *opts, struct gp_value **out)
{
	if (!out)
		return gp__error(GP_EINVAL, "gp_compare_values: NULL argument");
	*out = NULL;
	if (!base || !new_)
		return gp__error(GP_EINVAL, "gp_compare_values: NULL tree");
	return gp__cmp_values_labelled(base, new_, opts, "base", "new", out);
}

GP_API bool gp_compare_regression(const struct gp_value *result)
{
	return gp_value_get_bool(gp_obj_get(result, "regression"), false);
}
