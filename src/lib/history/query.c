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
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

#define NOMEM() gp__error(GP_ENOMEM, "out of memory")

static int set_str_or_null(struct gp_value *o, const char *k, const char *s)
{
	return s ? gp_obj_set_str(o, k, s) : gp_obj_set_null(o, k);
}

/* ---- the series, one at a time ---- */

#define NOSTR ((size_t)-1)

/* a point read, its strings as offsets into each_rd.str until the series is handed over */
struct rd_point {
	int64_t run_id, time_ns;
	double value;
	bool noisy;
	size_t str[5]; /* commit, branch, noise_reason, source, kind; NOSTR: NULL */
};

struct each_rd {
	char *pats; /* the patterns, each ended by '\0'; NULL: every metric */
	size_t npats;
	gp__hseries_fn fn;
	void *user;
	char *metric; /* the metric of the rows being read (copied), and whether it matches */
	bool match;
	bool have;         /* a series is being filled */
	struct gp_buf str; /* its metric, testbed, unit, better, then its points' strings */
	size_t head[4];    /* offsets of metric, testbed, unit, better (NOSTR: NULL) */
	struct rd_point *p;
	size_t n, cap;
	struct gp__hpoint *out; /* what fn sees, cap of them */
};

static size_t keep_str(struct gp_buf *b, const char *s, int *rc)
{
	size_t at = b->len;

	if (!s)
		return NOSTR;
	if (!*rc && gp__buf_add(b, s, strlen(s) + 1))
		*rc = NOMEM();
	return at;
}

static const char *str_at(const struct gp_buf *b, size_t at)
{
	return at == NOSTR ? NULL : b->buf + at;
}

/* hands the series read so far to fn and empties it */
static int flush_series(struct each_rd *rd)
{
	struct gp__hseries s;
	int rc;

	if (!rd->have)
		return 0;
	for (size_t i = 0; i < rd->n; i++) {
		const struct rd_point *q = &rd->p[i];
		struct gp__hpoint *o = &rd->out[i];

		o->run_id = q->run_id;
		o->time_ns = q->time_ns;
		o->value = q->value;
		o->noisy = q->noisy;
		o->commit = str_at(&rd->str, q->str[0]);
		o->branch = str_at(&rd->str, q->str[1]);
		o->noise_reason = str_at(&rd->str, q->str[2]);
		o->source = str_at(&rd->str, q->str[3]);
		o->kind = str_at(&rd->str, q->str[4]);
	}
	s.metric = str_at(&rd->str, rd->head[0]);
	s.testbed = str_at(&rd->str, rd->head[1]);
	s.unit = str_at(&rd->str, rd->head[2]);
	s.better = str_at(&rd->str, rd->head[3]);
	s.p = rd->out;
	s.n = rd->n;
	rc = rd->fn(rd->user, &s);
	rd->have = false;
	rd->n = 0;
	gp__buf_reset(&rd->str);
	return rc;
}

/* whether @p name matches one of the shell patterns of @p rd */
static bool match_any(const struct each_rd *rd, const char *name)
{
	const char *p = rd->pats;

	if (!p)
		return true;
	for (size_t i = 0; i < rd->npats; i++, p += strlen(p) + 1)
		if (!fnmatch(p, name, 0))
			return true;
	return false;
}

/* name, testbed, unit, better, id, time_ns, commit, branch, value, noisy, reason, source, kind */
static int each_row(void *user, size_t ncol, const char *const *v)
{
	struct each_rd *rd = user;
	struct rd_point *q;
	int rc = 0;

	if (ncol < 13 || !v[0] || !v[1])
		return 0;
	/* rows come sorted by metric: the pattern is matched once per metric */
	if (!rd->metric || strcmp(rd->metric, v[0])) {
		gp__free(rd->metric);
		rd->metric = gp__strdup(v[0]);
		if (!rd->metric)
			return NOMEM();
		rd->match = match_any(rd, v[0]);
	}
	if (!rd->match)
		return 0;
	if (rd->have && (strcmp(str_at(&rd->str, rd->head[0]), v[0]) ||
	                 strcmp(str_at(&rd->str, rd->head[1]), v[1]))) {
		rc = flush_series(rd);
		if (rc)
			return rc;
	}
	if (!rd->have) {
		for (int k = 0; k < 4; k++)
			rd->head[k] = keep_str(&rd->str, v[k], &rc);
		if (rc)
			return rc;
		rd->have = true;
	}
	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? 2 * rd->cap : 64;
		struct rd_point *p = gp__reallocarray(rd->p, cap, sizeof(*p));
		struct gp__hpoint *o;

		if (!p)
			return NOMEM();
		rd->p = p;
		o = gp__reallocarray(rd->out, cap, sizeof(*o));
		if (!o)
			return NOMEM();
		rd->out = o;
		rd->cap = cap;
	}
	q = &rd->p[rd->n];
	q->run_id = strtoll(v[4], NULL, 10);
	q->time_ns = strtoll(v[5], NULL, 10);
	q->value = v[8] ? strtod(v[8], NULL) : NAN;
	q->noisy = v[9] && strtol(v[9], NULL, 10) != 0;
	q->str[0] = keep_str(&rd->str, v[6], &rc);
	q->str[1] = keep_str(&rd->str, v[7], &rc);
	q->str[2] = keep_str(&rd->str, v[10], &rc);
	q->str[3] = keep_str(&rd->str, v[11], &rc);
	q->str[4] = keep_str(&rd->str, v[12], &rc);
	if (rc)
		return rc;
	rd->n++;
	return 0;
}

int gp__hist_each_series(struct gp_history *h, const char *pattern, bool full, gp__hseries_fn fn,
                         void *user)
{
	struct each_rd rd = { .fn = fn, .user = user, .str = GP_BUF_INIT };
	struct gp_buf sql = GP_BUF_INIT;
	int rc;

	if (pattern) {
		rd.pats = gp__strdup(pattern);
		if (!rd.pats)
			return NOMEM();
		rd.npats = 1;
		for (char *c = rd.pats; *c; c++)
			if (*c == '\n') {
				*c = '\0';
				rd.npats++;
			}
	}
	/* what is not needed is not converted to text and back, 5 million times */
	if (gp__buf_addf(&sql,
	                 "SELECT m.name, r.testbed, m.unit, m.better, r.id, r.time_ns, "
	                 "r.commit_id, %s, m.value, r.noisy, %s "
	                 "FROM metrics m JOIN runs r ON r.id = m.run_id "
	                 "ORDER BY m.name%s, r.testbed%s, r.time_ns, r.id",
	                 full ? "r.branch" : "NULL",
	                 full ? "r.noise_reason, r.source, r.kind" : "NULL, NULL, NULL",
	                 h->ops->collate, h->ops->collate)) {
		rc = NOMEM();
		goto out;
	}
	rc = gp__hist_exec(h, sql.buf, 0, NULL, each_row, &rd);
	if (!rc)
		rc = flush_series(&rd);
out:
	gp__buf_release(&sql);
	gp__buf_release(&rd.str);
	gp__free(rd.pats);
	gp__free(rd.metric);
	gp__free(rd.p);
	gp__free(rd.out);
	return rc;
}

struct gp_value *gp__hist_points(const struct gp__hseries *s)
{
	struct gp_value *pts = gp_value_array();

	for (size_t i = 0; pts && i < s->n; i++) {
		const struct gp__hpoint *q = &s->p[i];
		struct gp_value *p = gp_value_object();

		if (!p || gp_obj_set_int(p, "run_id", q->run_id) ||
		    gp_obj_set_int(p, "time_ns", q->time_ns) ||
		    set_str_or_null(p, "commit", q->commit) ||
		    set_str_or_null(p, "branch", q->branch) ||
		    gp_obj_set_double(p, "value", q->value) ||
		    gp_obj_set_bool(p, "noisy", q->noisy) ||
		    set_str_or_null(p, "noise_reason", q->noise_reason) ||
		    set_str_or_null(p, "source", q->source) ||
		    set_str_or_null(p, "kind", q->kind)) {
			gp_value_free(p);
			gp_value_free(pts);
			return NULL;
		}
		if (gp_arr_push(pts, p)) {
			gp_value_free(pts);
			return NULL;
		}
	}
	return pts;
}

int gp__hist_series_head(struct gp_value *o, const struct gp__hseries *s)
{
	return gp_obj_set_str(o, "metric", s->metric) || gp_obj_set_str(o, "testbed", s->testbed) ||
	               set_str_or_null(o, "unit", s->unit) ||
	               set_str_or_null(o, "better", s->better)
	           ? NOMEM()
	           : 0;
}

static int series_one(void *user, const struct gp__hseries *s)
{
	struct gp_value *out = user, *o = gp_value_object(), *pts;

	if (!o || gp__hist_series_head(o, s)) {
		gp_value_free(o);
		return NOMEM();
	}
	pts = gp__hist_points(s);
	if (!pts || gp_obj_set(o, "points", pts)) {
		gp_value_free(o);
		return NOMEM();
	}
	return gp_arr_push(out, o) ? NOMEM() : 0;
}

int gp_history_series(struct gp_history *h, const char *pattern, struct gp_value **out)
{
	struct gp_value *res;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_series: bad arguments");
	*out = NULL;
	res = gp_value_array();
	if (!res)
		return NOMEM();
	rc = gp__hist_each_series(h, pattern, true, series_one, res);
	if (rc) {
		gp_value_free(res);
		return rc;
	}
	*out = res;
	return 0;
}

static int list_one(void *user, const struct gp__hseries *s)
{
	struct gp_value *list = user, *o = gp_value_object();
	const struct gp__hpoint *last = &s->p[s->n - 1];
	size_t noisy = 0;

	for (size_t k = 0; k < s->n; k++)
		noisy += s->p[k].noisy;
	if (!o || gp__hist_series_head(o, s) || gp_obj_set_int(o, "count", (int64_t)s->n) ||
	    gp_obj_set_int(o, "noisy", (int64_t)noisy) ||
	    gp_obj_set_double(o, "last_value", last->value) ||
	    gp_obj_set_int(o, "last_time_ns", last->time_ns) ||
	    set_str_or_null(o, "last_commit", last->commit)) {
		gp_value_free(o);
		return NOMEM();
	}
	return gp_arr_push(list, o) ? NOMEM() : 0;
}

int gp_history_list(struct gp_history *h, const char *pattern, struct gp_value **out)
{
	struct gp_value *list;
	int rc;

	if (!h || !out)
		return gp__error(GP_EINVAL, "gp_history_list: bad arguments");
	*out = NULL;
	list = gp_value_array();
	if (!list)
		return NOMEM();
	rc = gp__hist_each_series(h, pattern, false, list_one, list);
	if (rc) {
		gp_value_free(list);
		return rc;
	}
	*out = list;
	return 0;
}

static int source_row(void *user, size_t ncol, const char *const *v)
{
	char **out = user;

	if (ncol < 2 || out[0])
		return 0;
	out[0] = gp__strdup(v[0] ? v[0] : "");
	out[1] = gp__strdup(v[1] ? v[1] : "");
	return out[0] && out[1] ? 0 : NOMEM();
}

int gp__hist_run_source(struct gp_history *h, int64_t id, char **source, char **kind)
{
	char ib[32], *got[2] = { NULL, NULL };
	const char *p[1] = { gp__hist_i64(id, ib) };
	int rc;

	*source = *kind = NULL;
	rc = gp__hist_exec(h, "SELECT source, kind FROM runs WHERE id = ?", 1, p, source_row, got);
	if (!rc && !got[0])
		rc = gp__error(GP_EINVAL, "'%s': no run %" PRId64, h->target, id);
	if (rc) {
		gp__free(got[0]);
		gp__free(got[1]);
		return rc;
	}
	*source = got[0];
	*kind = got[1];
	return 0;
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

	if (ncol < 10 || !o) {
		gp_value_free(o);
		return o ? 0 : NOMEM();
	}
	if (!v[7] || gp_value_parse(v[7], strlen(v[7]), &tags, NULL))
		tags = gp_value_object();
	if (!tags || gp_obj_set_int(o, "run_id", strtoll(v[0], NULL, 10)) ||
	    gp_obj_set_int(o, "time_ns", strtoll(v[1], NULL, 10)) ||
	    set_str_or_null(o, "commit", v[2]) || set_str_or_null(o, "branch", v[3]) ||
	    set_str_or_null(o, "testbed", v[4]) || set_str_or_null(o, "source", v[5]) ||
	    set_str_or_null(o, "kind", v[6])) {
		gp_value_free(tags); /* not yet the run's */
		gp_value_free(o);
		return NOMEM();
	}
	/* gp_obj_set takes tags, even when it fails */
	if (gp_obj_set(o, "tags", tags) ||
	    gp_obj_set_bool(o, "noisy", v[8] && strtol(v[8], NULL, 10) != 0) ||
	    set_str_or_null(o, "noise_reason", v[9]) ||
	    gp_obj_set(o, "metrics", gp_value_array())) {
		gp_value_free(o);
		return NOMEM();
	}
	return gp_arr_push(rd->runs, o) ? NOMEM() : 0; /* o is the array's, even on failure */
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
	    gp_obj_set_double(m, "value", v[4] ? strtod(v[4], NULL) : NAN)) {
		gp_value_free(m);
		return NOMEM();
	}
	/* m is the array's, even on failure */
	return gp_arr_push((struct gp_value *)gp_obj_get(run, "metrics"), m) ? NOMEM() : 0;
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
