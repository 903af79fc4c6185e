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
#include <stddef.h>
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
	/* the layout before the filters' two fields: they are off */
	if (o->size < offsetof(struct gp_history_cpd_opts, min_median_change))
		return gp__error(GP_EINVAL, "history: options of an older layout (size %u)",
		                 (unsigned)o->size);
	if (o->otava) {
		/* Otava's answers exactly: its merge too, stale neighbour and all; no
		 * unstable rule (Otava has none: its 1 % threshold on a 1 % noisy series
		 * is one of its tests) */
		gp__cpd_opts_default(c);
		c->otava_merge = true;
		c->unstable_k = -1;
	} else {
		gp__cpd_opts_gpu(c);
	}
	c->window = o->window;
	c->max_pvalue = o->max_pvalue;
	c->min_magnitude = o->min_magnitude;
	if (o->size >= sizeof(*o)) {
		if (!(o->min_median_change >= 0 && o->min_median_change <= 1) ||
		    !(o->min_steppiness >= 0 && o->min_steppiness <= 1))
			return gp__error(GP_EINVAL,
			                 "--min-median-change %g or --min-steppiness %g "
			                 "is out of range (0 to 1)",
			                 o->min_median_change, o->min_steppiness);
		if (o->otava && (o->min_median_change > 0 || o->min_steppiness > 0))
			return gp__error(GP_EINVAL, "--otava runs Otava's test alone: no "
			                            "--min-median-change or --min-steppiness");
		c->min_median_change = o->min_median_change;
		c->min_steppiness = o->min_steppiness;
	}
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
static int change_value(const struct gp__cpd_point *p, const struct gp__hseries *s,
                        const size_t *at, size_t nclean, struct gp_value *changes)
{
	size_t ci = p->index < nclean ? p->index : nclean - 1;
	const struct gp__hpoint *pt = &s->p[at[ci]];
	struct gp_value *c = gp_value_object();

	if (!c || gp_obj_set_str(c, "kind", p->kind == GP__CPD_TREND ? "trend" : "step") ||
	    gp_obj_set_int(c, "index", (int64_t)at[ci]) ||
	    gp_obj_set_int(c, "run_id", pt->run_id) || set_str_or_null(c, "commit", pt->commit) ||
	    gp_obj_set_int(c, "time_ns", pt->time_ns) ||
	    segment(c, "before", p->mean_before, p->sd_before, p->n_before) ||
	    segment(c, "after", p->mean_after, p->sd_after, p->n_after) ||
	    set_num_or_null(c, "rel_change", p->rel_change) ||
	    set_num_or_null(c, "magnitude", p->magnitude) ||
	    set_num_or_null(c, "pvalue", p->pvalue) ||
	    set_num_or_null(c, "steppiness", p->steppiness) ||
	    gp_obj_set_bool(c, "regression", worse(s->better, p->rel_change))) {
		gp_value_free(c);
		return NOMEM();
	}
	return gp_arr_push(changes, c) ? NOMEM() : 0; /* c is the array's, even on failure */
}

/* the clean points of @p s: values into x, their indices into at; @return how many */
static size_t clean_points(const struct gp__hseries *s, double *x, size_t *at)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->p[i].noisy || !isfinite(s->p[i].value))
			continue;
		x[k] = s->p[i].value;
		at[k++] = i;
	}
	return k;
}

/* the change points of series @p s into a new object @p *out */
static int series_changes(const struct gp__hseries *s, const struct gp__cpd_opts *c, bool points,
                          struct gp_value **out)
{
	size_t n = s->n, nclean, ncp = 0;
	double *x = NULL, noise = NAN;
	size_t *at = NULL;
	struct gp__cpd_point *cp = NULL;
	struct gp_value *o = NULL, *changes = NULL, *last = NULL;
	const struct gp__hpoint *lp;
	bool unstable = false;
	int rc;

	x = gp__calloc(n ? n : 1, sizeof(*x));
	at = gp__calloc(n ? n : 1, sizeof(*at));
	if (!x || !at) {
		rc = NOMEM();
		goto out;
	}
	nclean = clean_points(s, x, at);
	lp = nclean ? &s->p[at[nclean - 1]] : NULL;
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
	if (lp && (gp_obj_set_int(last, "run_id", lp->run_id) ||
	           gp_obj_set_int(last, "time_ns", lp->time_ns) ||
	           set_str_or_null(last, "commit", lp->commit) ||
	           set_num_or_null(last, "value", lp->value))) {
		rc = NOMEM();
		goto out;
	}
	for (size_t i = 0; i < ncp; i++) {
		rc = change_value(&cp[i], s, at, nclean, changes);
		if (rc)
			goto out;
	}
	if (gp__hist_series_head(o, s) || gp_obj_set_int(o, "count", (int64_t)n) ||
	    gp_obj_set_int(o, "clean", (int64_t)nclean) ||
	    gp_obj_set_int(o, "noisy", (int64_t)(n - nclean)) ||
	    set_num_or_null(o, "noise", noise) ||
	    gp_obj_set_double(o, "threshold", c->min_magnitude) ||
	    gp_obj_set_bool(o, "unstable", unstable)) {
		rc = NOMEM();
		goto out;
	}
	/* gp_obj_set takes each value, even when it fails */
	rc = last ? gp_obj_set(o, "last", last) : gp_obj_set_null(o, "last");
	last = NULL;
	if (!rc)
		rc = gp_obj_set(o, "changes", changes);
	else
		gp_value_free(changes);
	changes = NULL;
	if (!rc && points) {
		struct gp_value *pts = gp__hist_points(s);

		rc = pts ? gp_obj_set(o, "points", pts) : GP_ENOMEM;
	}
	if (rc) {
		rc = NOMEM();
		goto out;
	}
	*out = o;
	o = NULL;
out:
	gp_value_free(last);
	gp_value_free(changes);
	gp_value_free(o);
	gp__free(cp);
	gp__free(at);
	gp__free(x);
	return rc;
}

/* ---- the gate ---- */

/* the verdict on series @p s, @p v its changes' object; *cp: the regression's change point */
static const char *verdict(const struct gp__hseries *s, const struct gp_value *v, size_t recent,
                           const struct gp_value **cp)
{
	const struct gp_value *changes = gp_obj_get(v, "changes");
	size_t nc = gp_value_len(changes), clean_after = 0;
	int64_t clean = 0, idx = 0;
	const struct gp_value *c;

	*cp = NULL;
	gp_value_get_int(gp_obj_get(v, "clean"), &clean);
	if (gp_value_get_bool(gp_obj_get(v, "unstable"), false))
		return "unstable";
	if (!nc)
		return clean < 2 ? "too few points" : "unchanged";
	c = gp_arr_get(changes, nc - 1);
	gp_value_get_int(gp_obj_get(c, "index"), &idx);
	/* the clean points from the change point on: its recency */
	for (size_t i = idx >= 0 ? (size_t)idx : 0; i < s->n; i++)
		clean_after += !s->p[i].noisy && isfinite(s->p[i].value);
	/* a creep is tested over the newest points already: it is recent by construction */
	if (clean_after > recent && strcmp(gp_value_get_str(gp_obj_get(c, "kind")), "trend"))
		return "unchanged";
	if (!gp_value_get_bool(gp_obj_get(c, "regression"), false))
		return "improvement";
	*cp = c;
	return "regression";
}

/* {run_id, commit} of point @p i of @p s; the source is looked up after the pass */
static struct gp_value *run_ref(const struct gp__hseries *s, size_t i)
{
	struct gp_value *r = gp_value_object();

	if (!r || gp_obj_set_int(r, "run_id", s->p[i].run_id) ||
	    set_str_or_null(r, "commit", s->p[i].commit)) {
		gp_value_free(r);
		return NULL;
	}
	return r;
}

/* the clean point nearest before index @p idx (going back), or at or after it (going on) */
static bool clean_near(const struct gp__hseries *s, int64_t idx, bool before, size_t *at)
{
	if (before) {
		for (int64_t i = idx - 1; i >= 0; i--)
			if (!s->p[i].noisy && isfinite(s->p[i].value)) {
				*at = (size_t)i;
				return true;
			}
		return false;
	}
	for (size_t i = idx >= 0 ? (size_t)idx : 0; i < s->n; i++)
		if (!s->p[i].noisy && isfinite(s->p[i].value)) {
			*at = i;
			return true;
		}
	return false;
}

/*
 * The regression of series @p s at change @p c, to be explained: the runs
 * either side of a step, a creep's first and newest runs (explain()
 * compares them once the series are read).
 */
static int regression_ref(const struct gp__hseries *s, const struct gp_value *c,
                          struct gp_value **out)
{
	struct gp_value *e = gp_value_object(), *b = NULL, *a = NULL, *cc = NULL;
	size_t ib = 0, ia = 0;
	int64_t idx = 0;
	bool ok;
	int rc;

	gp_value_get_int(gp_obj_get(c, "index"), &idx);
	/*
	 * A creep's runs are its first and the newest: it may start at the
	 * series' first point (no run before it) and its change is end to end.
	 */
	if (!strcmp(gp_value_get_str(gp_obj_get(c, "kind")), "trend")) {
		ok = clean_near(s, idx, false, &ib) && clean_near(s, (int64_t)s->n, true, &ia);
	} else {
		ok = clean_near(s, idx, true, &ib) && clean_near(s, idx, false, &ia);
	}
	if (!e || !ok) {
		rc = e ? gp__error(GP_EINVAL, "history: a change point without runs either side")
		       : NOMEM();
		goto out;
	}
	b = run_ref(s, ib);
	a = run_ref(s, ia);
	cc = gp_value_clone(c);
	if (!b || !a || !cc || gp_obj_set_str(e, "metric", s->metric) ||
	    gp_obj_set_str(e, "testbed", s->testbed)) {
		rc = NOMEM();
		goto out;
	}
	/* gp_obj_set takes each value, even when it fails */
	rc = gp_obj_set(e, "change", cc);
	cc = NULL;
	if (!rc) {
		rc = gp_obj_set(e, "before", b);
		b = NULL;
	}
	if (!rc) {
		rc = gp_obj_set(e, "after", a);
		a = NULL;
	}
	if (rc) {
		rc = NOMEM();
		goto out;
	}
	*out = e;
	e = NULL;
out:
	gp_value_free(cc);
	gp_value_free(a);
	gp_value_free(b);
	gp_value_free(e);
	return rc;
}

/* a run's source into its reference @p r; @p *csv: it is a CSV row */
static int add_source(struct gp_history *h, struct gp_value *r, char **src, bool *csv)
{
	int64_t id = 0;
	char *kind = NULL;
	int rc;

	gp_value_get_int(gp_obj_get(r, "run_id"), &id);
	rc = gp__hist_run_source(h, id, src, &kind);
	if (rc)
		return rc;
	*csv = !strcmp(kind, "csv");
	gp__free(kind);
	return gp_obj_set_str(r, "source", *src) ? NOMEM() : 0;
}

/* explains regression @p e (regression_ref()'s): the runs either side compared */
static int explain(struct gp_history *h, struct gp_value *e)
{
	struct gp_compare_opts co = { .size = sizeof(co), .rank = -1 };
	struct gp_value *cmp = NULL;
	char *sb = NULL, *sa = NULL, why[512] = "";
	bool cb = false, ca = false;
	int rc;

	rc = add_source(h, (struct gp_value *)gp_obj_get(e, "before"), &sb, &cb);
	if (!rc)
		rc = add_source(h, (struct gp_value *)gp_obj_get(e, "after"), &sa, &ca);
	if (rc)
		goto out;
	if (cb || ca)
		snprintf(why, sizeof(why),
		         "the runs are rows of a CSV file, not results to compare");
	else if (gp_compare_paths(sb, sa, &co, &cmp)) {
		/* a result may be gone or moved: say so, it is no fault of the history's */
		snprintf(why, sizeof(why), "%s", gp_last_error());
		cmp = NULL;
	}
	rc = cmp ? gp_obj_set(e, "compare", cmp) : gp_obj_set_null(e, "compare");
	if (rc ||
	    (*why ? gp_obj_set_str(e, "compare_error", why) : gp_obj_set_null(e, "compare_error")))
		rc = NOMEM();
out:
	gp__free(sb);
	gp__free(sa);
	return rc;
}

/* what the per-series pass fills */
struct pass {
	struct gp__cpd_opts c;
	bool points, check;
	size_t recent;
	struct gp_value *series;       /* the array of series results */
	struct gp_value *explanations; /* check: one per regression */
	size_t nreg;
	/* gp_history_changes_each(): each series handed to fn and freed, none kept */
	gp_history_series_fn fn;
	void *user;
};

static int one_series(void *user, const struct gp__hseries *s)
{
	struct pass *ps = user;
	struct gp_value *v = NULL, *e = NULL;
	const struct gp_value *cp;
	const char *vd;
	int rc;

	rc = series_changes(s, &ps->c, ps->points, &v);
	if (rc)
		return rc;
	if (ps->check) {
		vd = verdict(s, v, ps->recent, &cp);
		if (gp_obj_set_str(v, "verdict", vd)) {
			gp_value_free(v);
			return NOMEM();
		}
		if (cp) {
			ps->nreg++;
			rc = regression_ref(s, cp, &e);
			if (rc) {
				gp_value_free(v);
				return rc;
			}
			if (gp_arr_push(ps->explanations, e)) {
				gp_value_free(v);
				return NOMEM();
			}
		}
	}
	if (ps->fn) {
		rc = ps->fn(ps->user, v);
		gp_value_free(v);
		return rc;
	}
	return gp_arr_push(ps->series, v) ? NOMEM() : 0;
}

static int run_pass(struct gp_history *h, const char *pattern, const struct gp_history_cpd_opts *o,
                    bool check, struct pass *ps)
{
	struct gp_history_cpd_opts def;
	int rc;

	if (!o) {
		gp_history_cpd_opts_init(&def);
		o = &def;
	}
	rc = cpd_opts(o, &ps->c);
	if (rc)
		return rc;
	ps->points = o->points;
	ps->check = check;
	ps->recent = o->recent ? o->recent : o->window;
	ps->series = gp_value_array();
	ps->explanations = check ? gp_value_array() : NULL;
	if (!ps->series || (check && !ps->explanations))
		return NOMEM();
	rc = gp__hist_each_series(h, pattern, o->points, one_series, ps);
	/* the explanations' queries, after the series' one */
	for (size_t i = 0; !rc && check && i < gp_value_len(ps->explanations); i++)
		rc = explain(h, (struct gp_value *)gp_arr_get(ps->explanations, i));
	return rc;
}

int gp_history_changes(struct gp_history *h, const char *pattern,
                       const struct gp_history_cpd_opts *o, struct gp_value **out)
{
	struct pass ps = { 0 };
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_changes: bad arguments");
	*out = NULL;
	rc = run_pass(h, pattern, o, false, &ps);
	if (rc) {
		gp_value_free(ps.series);
		return rc;
	}
	*out = ps.series;
	return 0;
}

int gp_history_changes_each(struct gp_history *h, const char *pattern,
                            const struct gp_history_cpd_opts *o, gp_history_series_fn fn,
                            void *user)
{
	struct pass ps = { .fn = fn, .user = user };
	int rc;

	if (!h || !fn)
		return gp__error(GP_EINVAL, "gp_history_changes_each: bad arguments");
	rc = run_pass(h, pattern, o, false, &ps);
	gp_value_free(ps.series); /* empty: each series went to fn */
	return rc;
}

int gp_history_check(struct gp_history *h, const char *pattern, const struct gp_history_cpd_opts *o,
                     struct gp_value **out)
{
	struct pass ps = { 0 };
	struct gp_value *res = NULL;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_check: bad arguments");
	*out = NULL;
	rc = run_pass(h, pattern, o, true, &ps);
	if (rc)
		goto out;
	res = gp_value_object();
	if (!res) {
		rc = NOMEM();
		goto out;
	}
	rc = gp_obj_set(res, "series", ps.series);
	ps.series = NULL;
	if (!rc)
		rc = gp_obj_set_int(res, "regressions", (int64_t)ps.nreg);
	if (!rc)
		rc = gp_obj_set(res, "explanations", ps.explanations);
	else
		gp_value_free(ps.explanations);
	ps.explanations = NULL;
	if (rc) {
		rc = NOMEM();
		goto out;
	}
	*out = res;
	res = NULL;
out:
	gp_value_free(res);
	gp_value_free(ps.series);
	gp_value_free(ps.explanations);
	return rc;
}
