/* SPDX-License-Identifier: MIT */
/*
 * query.c - reading the history back: the series (one metric on one
 * testbed, its points in time order) for `history list` and the commands
 * that analyse them, and every run whole for `history export`.
 *
 * Text is ordered by bytes on both backends (PostgreSQL's COLLATE "C"), so
 * SQLite and PostgreSQL list the same series in the same order.
 */
#include "history-int.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

#define NOMEM() gp__error(GP_ENOMEM, "out of memory")

struct series_rd {
	const char *pattern;
	struct gp_value *out;
	struct gp_value *cur;    /* the series being filled (in out), or NULL */
	struct gp_value *points; /* its points */
	char *name, *testbed;    /* of cur */
};

static int set_str_or_null(struct gp_value *o, const char *k, const char *s)
{
	return s ? gp_obj_set_str(o, k, s) : gp_obj_set_null(o, k);
}

/* name, testbed, unit, better, id, time_ns, commit, branch, value, noisy, reason, source, kind */
static int series_row(void *user, size_t ncol, const char *const *v)
{
	struct series_rd *rd = user;
	struct gp_value *p;

	if (ncol < 13 || !v[0] || !v[1])
		return 0;
	if (rd->pattern && fnmatch(rd->pattern, v[0], 0))
		return 0;
	if (!rd->cur || strcmp(rd->name, v[0]) || strcmp(rd->testbed, v[1])) {
		gp__free(rd->name);
		gp__free(rd->testbed);
		rd->name = gp__strdup(v[0]);
		rd->testbed = gp__strdup(v[1]);
		rd->cur = gp_value_object();
		rd->points = gp_value_array();
		if (!rd->name || !rd->testbed || !rd->cur || !rd->points ||
		    gp_obj_set_str(rd->cur, "metric", v[0]) ||
		    gp_obj_set_str(rd->cur, "testbed", v[1]) ||
		    set_str_or_null(rd->cur, "unit", v[2]) ||
		    set_str_or_null(rd->cur, "better", v[3]) ||
		    gp_obj_set(rd->cur, "points", rd->points) || gp_arr_push(rd->out, rd->cur)) {
			/* on failure the parent owns what was attached; cur is lost only then */
			rd->cur = NULL;
			return NOMEM();
		}
	}
	p = gp_value_object();
	if (!p || gp_obj_set_int(p, "run_id", strtoll(v[4], NULL, 10)) ||
	    gp_obj_set_int(p, "time_ns", strtoll(v[5], NULL, 10)) ||
	    set_str_or_null(p, "commit", v[6]) || set_str_or_null(p, "branch", v[7]) ||
	    gp_obj_set_double(p, "value", v[8] ? strtod(v[8], NULL) : NAN) ||
	    gp_obj_set_bool(p, "noisy", v[9] && strtol(v[9], NULL, 10) != 0) ||
	    set_str_or_null(p, "noise_reason", v[10]) || set_str_or_null(p, "source", v[11]) ||
	    set_str_or_null(p, "kind", v[12])) {
		gp_value_free(p);
		return NOMEM();
	}
	return gp_arr_push(rd->points, p) ? NOMEM() : 0;
}

int gp_history_series(struct gp_history *h, const char *pattern, struct gp_value **out)
{
	struct series_rd rd = { .pattern = pattern };
	struct gp_buf sql = GP_BUF_INIT;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_series: bad arguments");
	*out = NULL;
	rd.out = gp_value_array();
	if (!rd.out || gp__buf_addf(&sql,
	                            "SELECT m.name, r.testbed, m.unit, m.better, r.id, r.time_ns, "
	                            "r.commit_id, r.branch, m.value, r.noisy, r.noise_reason, "
	                            "r.source, r.kind "
	                            "FROM metrics m JOIN runs r ON r.id = m.run_id "
	                            "ORDER BY m.name%s, r.testbed%s, r.time_ns, r.id",
	                            h->ops->collate, h->ops->collate)) {
		rc = NOMEM();
		goto out;
	}
	rc = gp__hist_exec(h, sql.buf, 0, NULL, series_row, &rd);
out:
	gp__buf_release(&sql);
	gp__free(rd.name);
	gp__free(rd.testbed);
	if (rc) {
		gp_value_free(rd.out);
		return rc;
	}
	*out = rd.out;
	return 0;
}

int gp_history_list(struct gp_history *h, const char *pattern, struct gp_value **out)
{
	struct gp_value *all = NULL, *list;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_history_list: bad arguments");
	*out = NULL;
	rc = gp_history_series(h, pattern, &all);
	if (rc)
		return rc;
	list = gp_value_array();
	if (!list) {
		rc = NOMEM();
		goto out_all;
	}
	for (size_t i = 0; i < gp_value_len(all); i++) {
		const struct gp_value *s = gp_arr_get(all, i);
		const struct gp_value *pts = gp_obj_get(s, "points");
		size_t n = gp_value_len(pts), noisy = 0;
		const struct gp_value *last = gp_arr_get(pts, n - 1);
		struct gp_value *o = gp_value_object();
		double lv = NAN;
		int64_t lt = 0;

		for (size_t k = 0; k < n; k++)
			noisy += gp_value_get_bool(gp_obj_get(gp_arr_get(pts, k), "noisy"), false);
		gp_value_get_double(gp_obj_get(last, "value"), &lv);
		gp_value_get_int(gp_obj_get(last, "time_ns"), &lt);
		if (!o || gp_obj_set_str(o, "metric", gp_value_get_str(gp_obj_get(s, "metric"))) ||
		    gp_obj_set_str(o, "testbed", gp_value_get_str(gp_obj_get(s, "testbed"))) ||
		    set_str_or_null(o, "unit", gp_value_get_str(gp_obj_get(s, "unit"))) ||
		    set_str_or_null(o, "better", gp_value_get_str(gp_obj_get(s, "better"))) ||
		    gp_obj_set_int(o, "count", (int64_t)n) ||
		    gp_obj_set_int(o, "noisy", (int64_t)noisy) ||
		    gp_obj_set_double(o, "last_value", lv) ||
		    gp_obj_set_int(o, "last_time_ns", lt) ||
		    set_str_or_null(o, "last_commit",
		                    gp_value_get_str(gp_obj_get(last, "commit"))) ||
		    gp_arr_push(list, o)) {
			gp_value_free(o);
			gp_value_free(list);
			rc = NOMEM();
			goto out_all;
		}
	}
	*out = list;
out_all:
	gp_value_free(all);
	return rc;
}

/* ---- export ---- */

struct export_rd {
	struct gp_value *runs;
	size_t at; /* the run the metrics rows are at */
};

/* id, time_ns, commit, branch, testbed, source, kind, tags, noisy, reason */
static int run_row(void *user, size_t ncol, const char *const *v)
{
	struct export_rd *rd = user;
	struct gp_value *o = gp_value_object(), *tags = NULL;

	if (ncol < 10)
		return 0;
	if (!v[7] || gp_value_parse(v[7], strlen(v[7]), &tags, NULL))
		tags = gp_value_object();
	if (!o || !tags || gp_obj_set_int(o, "run_id", strtoll(v[0], NULL, 10)) ||
	    gp_obj_set_int(o, "time_ns", strtoll(v[1], NULL, 10)) ||
	    set_str_or_null(o, "commit", v[2]) || set_str_or_null(o, "branch", v[3]) ||
	    set_str_or_null(o, "testbed", v[4]) || set_str_or_null(o, "source", v[5]) ||
	    set_str_or_null(o, "kind", v[6]) || gp_obj_set(o, "tags", tags) ||
	    gp_obj_set_bool(o, "noisy", v[8] && strtol(v[8], NULL, 10) != 0) ||
	    set_str_or_null(o, "noise_reason", v[9]) ||
	    gp_obj_set(o, "metrics", gp_value_array()) || gp_arr_push(rd->runs, o)) {
		gp_value_free(o);
		return NOMEM();
	}
	return 0;
}

/* run_id, name, unit, better, value */
static int metric_row(void *user, size_t ncol, const char *const *v)
{
	struct export_rd *rd = user;
	int64_t id = ncol >= 5 && v[0] ? strtoll(v[0], NULL, 10) : -1, rid = -1;
	struct gp_value *m;
	const struct gp_value *run;

	if (ncol < 5)
		return 0;
	/* both lists are in run id order: walk the runs forward */
	for (; rd->at < gp_value_len(rd->runs); rd->at++) {
		gp_value_get_int(gp_obj_get(gp_arr_get(rd->runs, rd->at), "run_id"), &rid);
		if (rid >= id)
			break;
	}
	run = gp_arr_get(rd->runs, rd->at);
	if (!run || rid != id)
		return 0;
	m = gp_value_object();
	if (!m || set_str_or_null(m, "name", v[1]) || set_str_or_null(m, "unit", v[2]) ||
	    set_str_or_null(m, "better", v[3]) ||
	    gp_obj_set_double(m, "value", v[4] ? strtod(v[4], NULL) : NAN) ||
	    gp_arr_push((struct gp_value *)gp_obj_get(run, "metrics"), m)) {
		gp_value_free(m);
		return NOMEM();
	}
	return 0;
}

int gp_history_export(struct gp_history *h, struct gp_value **out)
{
	struct export_rd rd = { 0 };
	struct gp_buf sql = GP_BUF_INIT;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_export: bad arguments");
	*out = NULL;
	rd.runs = gp_value_array();
	if (!rd.runs)
		return NOMEM();
	rc = gp__hist_exec(h,
	                   "SELECT id, time_ns, commit_id, branch, testbed, source, kind, tags, "
	                   "noisy, noise_reason FROM runs ORDER BY id",
	                   0, NULL, run_row, &rd);
	if (!rc && gp__buf_addf(&sql,
	                        "SELECT run_id, name, unit, better, value FROM metrics "
	                        "ORDER BY run_id, name%s",
	                        h->ops->collate))
		rc = NOMEM();
	if (!rc)
		rc = gp__hist_exec(h, sql.buf, 0, NULL, metric_row, &rd);
	gp__buf_release(&sql);
	if (rc) {
		gp_value_free(rd.runs);
		return rc;
	}
	*out = rd.runs;
	return 0;
}
