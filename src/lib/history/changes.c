/* SPDX-License-Identifier: MIT */
/*
 * changes.c - the change points of the history's series, and the CI gate
 * built on them: each series' clean points (the noise guard's noisy runs left
 * out) through the change-point detector of src/lib/stats/edivisive.c, the
 * series too noisy for its threshold called unstable, each change point told
 * regression or improvement by the metric's better direction; for the gate,
 * a verdict on the newest run of each series and, for a regression, the runs
 * either side of its change point compared as `gpuprof compare` does.
 *
 * docs/analyses/history-changes.md has the definitions.
 */
#include "history-int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/compare.h"
#include "stats/edivisive.h"
#include "util/error.h"

#define NOMEM() gp__error(GP_ENOMEM, "out of memory")

void gp_history_cpd_opts_init(struct gp_history_cpd_opts *o)
{
	struct gp__cpd_opts d;

	if (!o)
		return;
	gp__cpd_opts_gpu(&d);
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->window = d.window;
	o->max_pvalue = d.max_pvalue;
	o->min_magnitude = 0.02;
}

/* the detector's options from the public ones */
static int cpd_opts(const struct gp_history_cpd_opts *o, struct gp__cpd_opts *c)
{
	struct gp_history_cpd_opts def;

	if (!o) {
		gp_history_cpd_opts_init(&def);
		o = &def;
	}
	if (o->size < sizeof(*o))
		return gp__error(GP_EINVAL, "history: options of an older layout (size %u)",
		                 (unsigned)o->size);
	if (o->otava)
		gp__cpd_opts_default(c);
	else
		gp__cpd_opts_gpu(c);
	c->window = o->window;
	c->max_pvalue = o->max_pvalue;
	c->min_magnitude = o->min_magnitude;
	/* the detector checks them again; here the message names the options */
	if (o->window < 2 || o->window > GP__CPD_MAX_WINDOW)
		return gp__error(GP_EINVAL, "--window %zu is out of range (2 to %d)", o->window,
		                 GP__CPD_MAX_WINDOW);
	if (!(o->max_pvalue > 0 && o->max_pvalue <= 1))
		return gp__error(GP_EINVAL, "--max-pvalue %g is out of range (0 to 1]",
		                 o->max_pvalue);
	if (!(o->min_magnitude >= 0) || isinf(o->min_magnitude))
		return gp__error(GP_EINVAL, "--min-magnitude %g is out of range (0 or more)",
		                 o->min_magnitude);
	return 0;
}

static int set_str_or_null(struct gp_value *o, const char *k, const char *s)
{
	return s ? gp_obj_set_str(o, k, s) : gp_obj_set_null(o, k);
}

static int set_num_or_null(struct gp_value *o, const char *k, double d)
{
	return isfinite(d) ? gp_obj_set_double(o, k, d) : gp_obj_set_null(o, k);
}

static int segment(struct gp_value *c, const char *k, double mean, double sd, size_t n)
{
	struct gp_value *s = gp_value_object();

	if (!s || set_num_or_null(s, "mean", mean) || set_num_or_null(s, "sd", sd) ||
	    gp_obj_set_int(s, "n", (int64_t)n)) {
		gp_value_free(s);
		return NOMEM();
	}
	return gp_obj_set(c, k, s) ? NOMEM() : 0;
}

/* worse in the metric's direction: a rise of a lower-is-better metric, a fall of the other */
static bool worse(const char *better, double rel)
{
	bool higher = better && !strcmp(better, "higher");

	return higher ? rel < 0 : rel > 0;
}

/* one change point @p p, found on the clean points; @p at maps clean index -> point index */
static int change_value(const struct gp__cpd_point *p, const struct gp_value *pts, const size_t *at,
                        size_t nclean, const char *better, struct gp_value *changes)
{
	size_t ci = p->index < nclean ? p->index : nclean - 1;
	const struct gp_value *pt = gp_arr_get(pts, at[ci]);
	struct gp_value *c = gp_value_object();
	int64_t run = 0, t = 0;

	gp_value_get_int(gp_obj_get(pt, "run_id"), &run);
	gp_value_get_int(gp_obj_get(pt, "time_ns"), &t);
	if (!c || gp_obj_set_str(c, "kind", p->kind == GP__CPD_TREND ? "trend" : "step") ||
	    gp_obj_set_int(c, "index", (int64_t)at[ci]) || gp_obj_set_int(c, "run_id", run) ||
	    set_str_or_null(c, "commit", gp_value_get_str(gp_obj_get(pt, "commit"))) ||
	    gp_obj_set_int(c, "time_ns", t) ||
	    segment(c, "before", p->mean_before, p->sd_before, p->n_before) ||
	    segment(c, "after", p->mean_after, p->sd_after, p->n_after) ||
	    set_num_or_null(c, "rel_change", p->rel_change) ||
	    set_num_or_null(c, "magnitude", p->magnitude) ||
	    set_num_or_null(c, "pvalue", p->pvalue) ||
	    set_num_or_null(c, "steppiness", p->steppiness) ||
	    gp_obj_set_bool(c, "regression", worse(better, p->rel_change))) {
		gp_value_free(c);
		return NOMEM();
	}
	return gp_arr_push(changes, c) ? NOMEM() : 0; /* c is the array's, even on failure */
}

/* the change points of series @p s (borrowed) into a new object @p *out */
static int series_changes(const struct gp_value *s, const struct gp__cpd_opts *c, bool points,
                          struct gp_value **out)
{
	const struct gp_value *pts = gp_obj_get(s, "points");
	const char *better = gp_value_get_str(gp_obj_get(s, "better"));
	size_t n = gp_value_len(pts), nclean = 0, ncp = 0;
	double *x = NULL, noise = NAN;
	size_t *at = NULL;
	struct gp__cpd_point *cp = NULL;
	struct gp_value *o = NULL, *changes = NULL, *last = NULL;
	const struct gp_value *lp = NULL;
	bool unstable = false;
	int64_t run = 0, t = 0;
	double lv = NAN;
	int rc;

	x = gp__calloc(n ? n : 1, sizeof(*x));
	at = gp__calloc(n ? n : 1, sizeof(*at));
	if (!x || !at) {
		rc = NOMEM();
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gp_value *p = gp_arr_get(pts, i);
		double v = NAN;

		if (gp_value_get_bool(gp_obj_get(p, "noisy"), false) ||
		    !gp_value_get_double(gp_obj_get(p, "value"), &v) || !isfinite(v))
			continue;
		x[nclean] = v;
		at[nclean++] = i;
		lp = p;
	}
	if (nclean >= 3) {
		noise = gp__cpd_noise(x, nclean);
		unstable = gp__cpd_unstable(x, nclean, c);
	}
	if (!unstable && nclean >= 2) {
		rc = gp__cpd_find(x, nclean, c, &cp, &ncp);
		if (rc)
			goto out;
	}
	o = gp_value_object();
	changes = gp_value_array();
	last = lp ? gp_value_object() : NULL;
	if (!o || !changes || (lp && !last)) {
		rc = NOMEM();
		goto out;
	}
	if (lp) {
		gp_value_get_int(gp_obj_get(lp, "run_id"), &run);
		gp_value_get_int(gp_obj_get(lp, "time_ns"), &t);
		gp_value_get_double(gp_obj_get(lp, "value"), &lv);
		if (gp_obj_set_int(last, "run_id", run) || gp_obj_set_int(last, "time_ns", t) ||
		    set_str_or_null(last, "commit", gp_value_get_str(gp_obj_get(lp, "commit"))) ||
		    set_num_or_null(last, "value", lv)) {
			rc = NOMEM();
			goto out;
		}
	}
	for (size_t i = 0; i < ncp; i++) {
		rc = change_value(&cp[i], pts, at, nclean, better, changes);
		if (rc)
			goto out;
	}
	if (gp_obj_set_str(o, "metric", gp_value_get_str(gp_obj_get(s, "metric"))) ||
	    gp_obj_set_str(o, "testbed", gp_value_get_str(gp_obj_get(s, "testbed"))) ||
	    set_str_or_null(o, "unit", gp_value_get_str(gp_obj_get(s, "unit"))) ||
	    set_str_or_null(o, "better", better) || gp_obj_set_int(o, "count", (int64_t)n) ||
	    gp_obj_set_int(o, "clean", (int64_t)nclean) ||
	    gp_obj_set_int(o, "noisy", (int64_t)(n - nclean)) ||
	    set_num_or_null(o, "noise", noise) ||
	    gp_obj_set_double(o, "threshold", c->min_magnitude) ||
	    gp_obj_set_bool(o, "unstable", unstable)) {
		rc = NOMEM();
		goto out;
	}
	rc = last ? gp_obj_set(o, "last", last) : gp_obj_set_null(o, "last");
	last = NULL;
	if (rc || gp_obj_set(o, "changes", changes)) {
		changes = NULL;
		rc = NOMEM();
		goto out;
	}
	changes = NULL;
	if (points) {
		struct gp_value *copy = gp_value_clone(pts);

		if (!copy || gp_obj_set(o, "points", copy)) {
			rc = NOMEM();
			goto out;
		}
	}
	*out = o;
	o = NULL;
	rc = 0;
out:
	gp_value_free(last);
	gp_value_free(changes);
	gp_value_free(o);
	gp__free(cp);
	gp__free(at);
	gp__free(x);
	return rc;
}

int gp_history_changes(struct gp_history *h, const char *pattern,
                       const struct gp_history_cpd_opts *o, struct gp_value **out)
{
	struct gp__cpd_opts c;
	struct gp_value *all = NULL, *res = NULL;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_changes: bad arguments");
	*out = NULL;
	rc = cpd_opts(o, &c);
	if (rc)
		return rc;
	rc = gp_history_series(h, pattern, &all);
	if (rc)
		return rc;
	res = gp_value_array();
	if (!res) {
		rc = NOMEM();
		goto out;
	}
	for (size_t i = 0; i < gp_value_len(all); i++) {
		struct gp_value *one = NULL;

		rc = series_changes(gp_arr_get(all, i), &c, o && o->points, &one);
		if (rc)
			goto out;
		if (gp_arr_push(res, one)) {
			rc = NOMEM();
			goto out;
		}
	}
	*out = res;
	res = NULL;
out:
	gp_value_free(res);
	gp_value_free(all);
	return rc;
}

/* ---- the gate ---- */

/* the verdict on series @p s (gp_history_changes()'s); *cp: the regression's change point */
static const char *verdict(const struct gp_value *s, size_t recent, const struct gp_value **cp)
{
	const struct gp_value *changes = gp_obj_get(s, "changes");
	const struct gp_value *pts = gp_obj_get(s, "points");
	size_t nc = gp_value_len(changes), n = gp_value_len(pts), clean_after = 0;
	int64_t clean = 0, idx = 0;
	const struct gp_value *c;

	*cp = NULL;
	gp_value_get_int(gp_obj_get(s, "clean"), &clean);
	if (gp_value_get_bool(gp_obj_get(s, "unstable"), false))
		return "unstable";
	if (!nc)
		return clean < 2 ? "too few points" : "unchanged";
	c = gp_arr_get(changes, nc - 1);
	gp_value_get_int(gp_obj_get(c, "index"), &idx);
	/* the clean points from the change point on: its recency */
	for (size_t i = idx >= 0 ? (size_t)idx : 0; i < n; i++)
		clean_after += !gp_value_get_bool(gp_obj_get(gp_arr_get(pts, i), "noisy"), false);
	/* a creep is tested over the newest points already: it is recent by construction */
	if (clean_after > recent && strcmp(gp_value_get_str(gp_obj_get(c, "kind")), "trend"))
		return "unchanged";
	if (!gp_value_get_bool(gp_obj_get(c, "regression"), false))
		return "improvement";
	*cp = c;
	return "regression";
}

/* member @p k of point @p i of @p pts, "" when missing */
static const char *str_of(const struct gp_value *pts, size_t i, const char *k)
{
	const char *s = gp_value_get_str(gp_obj_get(gp_arr_get(pts, i), k));

	return s ? s : "";
}

/* {run_id, commit, source} of point @p i of @p pts */
static struct gp_value *run_ref(const struct gp_value *pts, size_t i)
{
	const struct gp_value *p = gp_arr_get(pts, i);
	struct gp_value *r = gp_value_object();
	int64_t id = 0;

	gp_value_get_int(gp_obj_get(p, "run_id"), &id);
	if (!r || gp_obj_set_int(r, "run_id", id) ||
	    set_str_or_null(r, "commit", gp_value_get_str(gp_obj_get(p, "commit"))) ||
	    set_str_or_null(r, "source", gp_value_get_str(gp_obj_get(p, "source")))) {
		gp_value_free(r);
		return NULL;
	}
	return r;
}

/* the clean point nearest before index @p idx (going back), or after it (going on) */
static bool clean_near(const struct gp_value *pts, int64_t idx, bool before, size_t *at)
{
	size_t n = gp_value_len(pts);

	if (before) {
		for (int64_t i = idx - 1; i >= 0; i--)
			if (!gp_value_get_bool(gp_obj_get(gp_arr_get(pts, (size_t)i), "noisy"),
			                       false)) {
				*at = (size_t)i;
				return true;
			}
		return false;
	}
	for (size_t i = idx >= 0 ? (size_t)idx : 0; i < n; i++)
		if (!gp_value_get_bool(gp_obj_get(gp_arr_get(pts, i), "noisy"), false)) {
			*at = i;
			return true;
		}
	return false;
}

/* why series @p s regressed at change @p c: the runs either side, compared */
static int explain(const struct gp_value *s, const struct gp_value *c, struct gp_value **out)
{
	const struct gp_value *pts = gp_obj_get(s, "points");
	struct gp_compare_opts co = { .size = sizeof(co), .rank = -1 };
	struct gp_value *e = gp_value_object(), *b = NULL, *a = NULL, *cmp = NULL, *cc = NULL;
	size_t ib = 0, ia = 0;
	int64_t idx = 0;
	const char *sb, *sa;
	char why[512] = "";
	int rc;

	gp_value_get_int(gp_obj_get(c, "index"), &idx);
	if (!e || !clean_near(pts, idx, true, &ib) || !clean_near(pts, idx, false, &ia)) {
		rc = e ? gp__error(GP_EINVAL, "history: a change point without runs either side")
		       : NOMEM();
		goto out;
	}
	b = run_ref(pts, ib);
	a = run_ref(pts, ia);
	cc = gp_value_clone(c);
	if (!b || !a || !cc) {
		rc = NOMEM();
		goto out;
	}
	sb = gp_value_get_str(gp_obj_get(b, "source"));
	sa = gp_value_get_str(gp_obj_get(a, "source"));
	if (!sb || !sa || !strcmp(str_of(pts, ib, "kind"), "csv") ||
	    !strcmp(str_of(pts, ia, "kind"), "csv"))
		snprintf(why, sizeof(why),
		         "the runs are rows of a CSV file, not results to compare");
	else if (gp_compare_paths(sb, sa, &co, &cmp)) {
		/* a CSV row's source is FILE:LINE, a result may be gone: say so, it is no fault */
		snprintf(why, sizeof(why), "%s", gp_last_error());
		cmp = NULL;
	}
	if (gp_obj_set_str(e, "metric", gp_value_get_str(gp_obj_get(s, "metric"))) ||
	    gp_obj_set_str(e, "testbed", gp_value_get_str(gp_obj_get(s, "testbed")))) {
		rc = NOMEM();
		goto out;
	}
	/* gp_obj_set takes each value, even when it fails */
	rc = gp_obj_set(e, "change", cc);
	cc = NULL;
	if (rc)
		goto nomem;
	rc = gp_obj_set(e, "before", b);
	b = NULL;
	if (rc)
		goto nomem;
	rc = gp_obj_set(e, "after", a);
	a = NULL;
	if (rc)
		goto nomem;
	rc = cmp ? gp_obj_set(e, "compare", cmp) : gp_obj_set_null(e, "compare");
	cmp = NULL;
	if (rc || (*why ? gp_obj_set_str(e, "compare_error", why)
	                : gp_obj_set_null(e, "compare_error"))) {
		rc = NOMEM();
		goto out;
	}
	*out = e;
	e = NULL;
	rc = 0;
	goto out;
nomem:
	rc = NOMEM();
out:
	gp_value_free(cc);
	gp_value_free(cmp);
	gp_value_free(a);
	gp_value_free(b);
	gp_value_free(e);
	return rc;
}

int gp_history_check(struct gp_history *h, const char *pattern, const struct gp_history_cpd_opts *o,
                     struct gp_value **out)
{
	struct gp_history_cpd_opts def, with;
	struct gp_value *series = NULL, *res = NULL, *ex = NULL;
	size_t recent, nreg = 0;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_check: bad arguments");
	*out = NULL;
	if (!o) {
		gp_history_cpd_opts_init(&def);
		o = &def;
	}
	with = *o;
	with.points = true; /* the verdict counts clean points, the explanation finds runs: kept */
	recent = o->recent ? o->recent : o->window;
	rc = gp_history_changes(h, pattern, &with, &series);
	if (rc)
		return rc;
	res = gp_value_object();
	ex = gp_value_array();
	if (!res || !ex) {
		rc = NOMEM();
		goto out;
	}
	for (size_t i = 0; i < gp_value_len(series); i++) {
		struct gp_value *s = (struct gp_value *)gp_arr_get(series, i);
		const struct gp_value *cp;
		const char *v = verdict(s, recent, &cp);
		struct gp_value *e = NULL;

		if (gp_obj_set_str(s, "verdict", v)) {
			rc = NOMEM();
			goto out;
		}
		if (!cp)
			continue;
		nreg++;
		rc = explain(s, cp, &e);
		if (rc)
			goto out;
		if (gp_arr_push(ex, e)) {
			rc = NOMEM();
			goto out;
		}
	}
	if (gp_obj_set(res, "series", series)) {
		series = NULL;
		rc = NOMEM();
		goto out;
	}
	series = NULL;
	if (gp_obj_set_int(res, "regressions", (int64_t)nreg) ||
	    gp_obj_set(res, "explanations", ex)) {
		ex = NULL;
		rc = NOMEM();
		goto out;
	}
	ex = NULL;
	*out = res;
	res = NULL;
out:
	gp_value_free(ex);
	gp_value_free(res);
	gp_value_free(series);
	return rc;
}
