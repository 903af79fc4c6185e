/* SPDX-License-Identifier: MIT */
/*
 * schema.c - opening a history database: the backend chosen by the target's
 * form, the schema created or migrated, and writing one run.
 *
 * Migrations are numbered: migrations[i] takes a database from version i to
 * i + 1, and schema_version holds the version reached. Opening runs the
 * missing ones in one write transaction (on PostgreSQL under an advisory
 * lock, so two first opens do not both create the tables); a database of a
 * newer version than GP_HISTORY_SCHEMA_VERSION is refused before anything
 * is written. The tables are in docs/history-schema.md.
 */
#include "history-int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprof-config.h"
#include "util/buf.h"
#include "gpuprof/stats.h"
#include "util/error.h"
#include "util/sort.h"

/* "@ID@" is the backend's auto-numbered primary key */
static const char *const migration_1[] = {
	"CREATE TABLE runs (id @ID@, time_ns BIGINT NOT NULL, commit_id TEXT, branch TEXT, "
	"testbed TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL, tags TEXT NOT NULL, "
	"sm_clock_hz DOUBLE PRECISION, noisy INTEGER NOT NULL, noise_reason TEXT)",
	"CREATE INDEX runs_testbed_time ON runs (testbed, time_ns)",
	"CREATE TABLE metrics (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
	"name TEXT NOT NULL, unit TEXT NOT NULL, better TEXT NOT NULL, "
	"value DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, name))",
	"CREATE INDEX metrics_name ON metrics (name)",
	NULL,
};

/*
 * 2: the series are read by metric name (history changes, check, list): an
 * index holding everything those reads take from metrics, so that 10,000
 * series of 500 points are read from the index alone, in name order,
 * instead of one table lookup a point (7.6 s -> 3.8 s on SQLite, and a
 * third more bytes on disk). It replaces the index on name alone.
 */
static const char *const migration_2[] = {
	"CREATE INDEX metrics_series ON metrics (name, run_id, value, unit, better)",
	"DROP INDEX metrics_name",
	NULL,
};

static const char *const *const migrations[GP_HISTORY_SCHEMA_VERSION] = { migration_1,
	                                                                  migration_2 };

const char *gp__hist_i64(int64_t v, char *buf)
{
	snprintf(buf, 32, "%" PRId64, v);
	return buf;
}

static int open_now(struct gp_history *h, bool existing);

int gp__hist_exec(struct gp_history *h, const char *sql, size_t nparam, const char *const *params,
                  gp__hdb_row_fn fn, void *user)
{
	int rc;

	if (h->lazy) { /* the first statement makes the file, or the tables */
		h->lazy = false;
		rc = open_now(h, false);
		if (rc) {
			h->lazy = true; /* the next statement tries again, and says why */
			return rc;
		}
	}
	return h->ops->exec(h->db, sql, nparam, params, fn, user);
}

int gp__hist_begin(struct gp_history *h)
{
	return gp__hist_exec(h, h->ops->begin, 0, NULL, NULL, NULL);
}

int gp__hist_commit(struct gp_history *h)
{
	return gp__hist_exec(h, "COMMIT", 0, NULL, NULL, NULL);
}

void gp__hist_rollback(struct gp_history *h)
{
	char *keep;

	if (!h->db || h->lazy)
		return;                     /* never opened, or never migrated: nothing to undo */
	keep = gp__strdup(gp_last_error()); /* the error that made us roll back */
	gp__hist_exec(h, "ROLLBACK", 0, NULL, NULL, NULL);
	if (keep)
		gp__error(GP_EIO, "%s", keep);
	gp__free(keep);
}

static int row_i64(void *user, size_t ncol, const char *const *vals)
{
	if (ncol >= 1 && vals[0])
		*(int64_t *)user = strtoll(vals[0], NULL, 10);
	return 0;
}

static int migrate(struct gp_history *h, bool existing)
{
	int64_t version = 0;
	int rc;

	/* a reader's database must hold a history: a misspelt --db must not read as empty */
	if (existing) {
		int64_t tables = 0;

		rc = gp__hist_exec(h, h->ops->has_schema_sql, 0, NULL, row_i64, &tables);
		if (rc)
			return rc;
		if (!tables)
			return gp__error(GP_ENOENT,
			                 "'%s': no history database there (history add or import "
			                 "makes one)",
			                 h->target);
	}
	/*
	 * A database of this version needs nothing: read the version without
	 * the write lock, so that `history check` or `changes` reads while a
	 * writer holds it (WAL) instead of waiting for it and failing. A missing
	 * table (a new file) or any other answer takes the locked path below.
	 */
	if (!gp__hist_exec(h, "SELECT max(version) FROM schema_version", 0, NULL, row_i64,
	                   &version) &&
	    version == GP_HISTORY_SCHEMA_VERSION)
		return 0;
	version = 0;
	rc = gp__hist_begin(h);
	if (rc)
		return rc;
	if (h->ops->lock_sql && (rc = gp__hist_exec(h, h->ops->lock_sql, 0, NULL, NULL, NULL)))
		goto out_rollback;
	rc =
	    gp__hist_exec(h, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
	                  0, NULL, NULL, NULL);
	if (!rc)
		rc = gp__hist_exec(h, "SELECT max(version) FROM schema_version", 0, NULL, row_i64,
		                   &version);
	if (rc)
		goto out_rollback;
	if (version > GP_HISTORY_SCHEMA_VERSION) {
		rc = gp__error(GP_EVERSION,
		               "'%s': the history database is of schema version %" PRId64
		               "; this gpuprof knows versions up to %d: use a newer gpuprof",
		               h->target, version, GP_HISTORY_SCHEMA_VERSION);
		goto out_rollback;
	}
	if (version == GP_HISTORY_SCHEMA_VERSION)
		return gp__hist_commit(h);
	for (int64_t v = version; v < GP_HISTORY_SCHEMA_VERSION; v++) {
		for (const char *const *s = migrations[v]; *s; s++) {
			struct gp_buf b = GP_BUF_INIT;
			const char *id = strstr(*s, "@ID@");

			rc = id ? gp__buf_add(&b, *s, (size_t)(id - *s)) ||
			              gp__buf_addstr(&b, h->ops->id_column) ||
			              gp__buf_addstr(&b, id + 4)
			        : gp__buf_addstr(&b, *s);
			if (rc) {
				gp__buf_release(&b);
				rc = gp__error(GP_ENOMEM, "out of memory");
				goto out_rollback;
			}
			rc = gp__hist_exec(h, b.buf, 0, NULL, NULL, NULL);
			gp__buf_release(&b);
			if (rc)
				goto out_rollback;
		}
	}
	{
		char vb[32];
		const char *p[1] = { gp__hist_i64(GP_HISTORY_SCHEMA_VERSION, vb) };

		rc = gp__hist_exec(h, "DELETE FROM schema_version", 0, NULL, NULL, NULL);
		if (!rc)
			rc = gp__hist_exec(h, "INSERT INTO schema_version (version) VALUES (?)", 1,
			                   p, NULL, NULL);
	}
	if (rc)
		goto out_rollback;
	return gp__hist_commit(h);
out_rollback:
	gp__hist_rollback(h);
	return rc;
}

static bool is_pg_url(const char *t)
{
	return !strncmp(t, "postgresql://", 13) || !strncmp(t, "postgres://", 11);
}

bool gp_history_built_with(const char *backend)
{
	if (!backend)
		return false;
	if (!strcmp(backend, "sqlite"))
		return GP_HAVE_SQLITE;
	if (!strcmp(backend, "postgresql"))
		return GP_HAVE_PQ;
	return false;
}

/* opens h->target and brings its schema to this version */
static int open_now(struct gp_history *h, bool existing)
{
	int rc = h->db ? 0 : h->ops->open(h->target, existing, &h->db);

	return rc ? rc : migrate(h, existing);
}

/* a SQLite file that is missing where it could be made: made by its first statement */
static bool can_make_later(const char *target)
{
	const char *slash = strrchr(target, '/');
	char dir[4096];
	struct stat st;

	if (!stat(target, &st) || errno != ENOENT)
		return false;
	if (!slash)
		return !access(".", W_OK | X_OK);
	if ((size_t)(slash - target) >= sizeof(dir))
		return false;
	memcpy(dir, target, (size_t)(slash - target));
	dir[slash - target] = '\0';
	return !access(slash == target ? "/" : dir, W_OK | X_OK);
}

static int history_open(const char *target, bool existing, struct gp_history **out)
{
	struct gp_history *h;
	struct stat st;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_history_open: out is NULL");
	*out = NULL;
	if (!target || !*target)
		return gp__error(GP_EINVAL, "gp_history_open: no database given");
	h = gp__calloc(1, sizeof(*h));
	if (!h || !(h->target = gp__strdup(target))) {
		gp__free(h);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	h->ops = is_pg_url(target) ? &gp__hdb_pg : &gp__hdb_sqlite;
	/* a build without SQLite says so at once (open_now), whether or not the file is there */
	if (GP_HAVE_SQLITE && h->ops == &gp__hdb_sqlite && existing && stat(target, &st) &&
	    errno == ENOENT) {
		rc = gp__error(GP_ENOENT,
		               "'%s': no history database there (history add or import makes one)",
		               target);
		goto out_h;
	}
	/*
	 * A writer makes nothing before its first statement: a missing SQLite
	 * file in a folder it can write is made then, a server's database is
	 * connected to at once (a wrong URL says so before results are read)
	 * and its tables made then.
	 */
	if (!existing && (h->ops == &gp__hdb_pg || (GP_HAVE_SQLITE && can_make_later(target)))) {
		rc = h->ops == &gp__hdb_pg ? h->ops->open(target, false, &h->db) : 0;
		if (rc)
			goto out_h;
		h->lazy = true;
		*out = h;
		return 0;
	}
	rc = open_now(h, existing);
	if (rc)
		goto out_h;
	*out = h;
	return 0;
out_h:
	gp_history_close(h);
	return rc;
}

int gp_history_open(const char *target, struct gp_history **out)
{
	return history_open(target, false, out);
}

int gp_history_open_existing(const char *target, struct gp_history **out)
{
	return history_open(target, true, out);
}

void gp_history_close(struct gp_history *h)
{
	if (!h)
		return;
	if (h->db)
		h->ops->close(h->db);
	gp__free(h->target);
	gp__free(h);
}

const char *gp_history_backend(const struct gp_history *h)
{
	return h ? h->ops->name : NULL;
}

/* ---- one run ---- */

int gp__hrun_metric(struct gp__hrun *r, const char *name, const char *unit, bool higher_better,
                    double value)
{
	struct gp__hmetric *m;

	if (!isfinite(value) || !name || !*name)
		return 0;
	for (size_t i = 0; i < r->nm; i++)
		if (!strcmp(r->m[i].name, name))
			return 0; /* the first of a name wins */
	if (r->nm == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;

		m = gp__reallocarray(r->m, cap, sizeof(*m));
		if (!m)
			return gp__error(GP_ENOMEM, "out of memory");
		r->m = m;
		r->cap = cap;
	}
	m = &r->m[r->nm];
	m->name = gp__strdup(name);
	if (!m->name)
		return gp__error(GP_ENOMEM, "out of memory");
	m->unit = unit;
	m->higher_better = higher_better;
	m->value = value;
	r->nm++;
	return 0;
}

void gp__hrun_release(struct gp__hrun *r)
{
	for (size_t i = 0; i < r->nm; i++)
		gp__free(r->m[i].name);
	gp__free(r->m);
	gp__free(r->source);
	gp__free(r->commit);
	gp__free(r->branch);
	gp__free(r->testbed);
	gp__free(r->tags_json);
	gp__free(r->noise);
	memset(r, 0, sizeof(*r));
}

struct clocks {
	double v[64];
	size_t n;
};

static int row_clock(void *user, size_t ncol, const char *const *vals)
{
	struct clocks *c = user;

	if (ncol >= 1 && vals[0] && c->n < GP_ARRAY_SIZE(c->v))
		c->v[c->n++] = strtod(vals[0], NULL);
	return 0;
}

/*
 * The testbed's usual SM clock: the median of the SM clocks of its latest 20
 * clean runs (3 at least, else unknown). A run more than 5 % below it ran
 * with its clocks held down (a power cap, another tenant, a clock lock).
 */
static int clock_check(struct gp_history *h, struct gp__hrun *r)
{
	struct clocks c = { .n = 0 };
	const char *p[1] = { r->testbed };
	double usual;
	int rc;

	if (r->noise || !isfinite(r->sm_clock_hz))
		return 0;
	rc = gp__hist_exec(h,
	                   "SELECT sm_clock_hz FROM runs WHERE testbed = ? AND noisy = 0 AND "
	                   "sm_clock_hz IS NOT NULL ORDER BY id DESC LIMIT 20",
	                   1, p, row_clock, &c);
	if (rc || c.n < 3)
		return rc;
	qsort(c.v, c.n, sizeof(c.v[0]), gp__cmp_double);
	usual = gp_quantile_sorted(c.v, c.n, 0.5);
	if (r->sm_clock_hz < 0.95 * usual) {
		char buf[160];

		snprintf(
		    buf, sizeof(buf),
		    "SM clock %.0f MHz, below the testbed's usual %.0f MHz (median of its last "
		    "%zu clean runs)",
		    r->sm_clock_hz / 1e6, usual / 1e6, c.n);
		r->noise = gp__strdup(buf);
		if (!r->noise)
			return gp__error(GP_ENOMEM, "out of memory");
	}
	return 0;
}

int gp__hrun_write(struct gp_history *h, struct gp__hrun *r, int64_t *id)
{
	char tb[32], cb[32], nb[32], ib[32], vb[40];
	const char *p[10];
	int64_t rid = -1;
	int rc;

	rc = clock_check(h, r);
	if (rc)
		return rc;
	if (isfinite(r->sm_clock_hz))
		snprintf(cb, sizeof(cb), "%.17g", r->sm_clock_hz);
	p[0] = gp__hist_i64(r->time_ns, tb);
	p[1] = r->commit;
	p[2] = r->branch;
	p[3] = r->testbed ? r->testbed : "unknown";
	p[4] = r->source ? r->source : "-";
	p[5] = r->kind;
	p[6] = r->tags_json ? r->tags_json : "{}";
	p[7] = isfinite(r->sm_clock_hz) ? cb : NULL;
	p[8] = gp__hist_i64(r->noise ? 1 : 0, nb);
	p[9] = r->noise;
	rc = gp__hist_exec(h,
	                   "INSERT INTO runs (time_ns, commit_id, branch, testbed, source, kind, "
	                   "tags, sm_clock_hz, noisy, noise_reason) "
	                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
	                   10, p, row_i64, &rid);
	if (rc)
		return rc;
	if (rid < 0)
		return gp__error(GP_EIO, "'%s': the new run got no id", h->target);
	gp__hist_i64(rid, ib);
	for (size_t i = 0; i < r->nm; i++) {
		const struct gp__hmetric *m = &r->m[i];
		const char *q[5] = { ib, m->name, m->unit, m->higher_better ? "higher" : "lower",
			             vb };

		snprintf(vb, sizeof(vb), "%.17g", m->value);
		rc = gp__hist_exec(h,
		                   "INSERT INTO metrics (run_id, name, unit, better, value) "
		                   "VALUES (?, ?, ?, ?, ?)",
		                   5, q, NULL, NULL);
		if (rc)
			return rc;
	}
	if (id)
		*id = rid;
	return 0;
}

/* a JSON string of @p s[0..n) */
static int json_str(struct gp_buf *b, const char *s, size_t n)
{
	int rc = gp__buf_addch(b, '"');

	for (size_t i = 0; i < n && !rc; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			rc = gp__buf_addch(b, '\\') || gp__buf_addch(b, (char)c);
		else if (c < 0x20)
			rc = gp__buf_addf(b, "\\u%04x", c);
		else
			rc = gp__buf_addch(b, (char)c);
	}
	return rc || gp__buf_addch(b, '"');
}

int gp__hist_tags_json(const struct gp_history_meta *meta, char **out)
{
	struct gp_buf b = GP_BUF_INIT;
	int rc = gp__buf_addch(&b, '{');

	for (size_t i = 0; meta && i < meta->ntags && !rc; i++) {
		const char *t = meta->tags[i], *eq = t ? strchr(t, '=') : NULL;

		if (!eq || eq == t) {
			gp__buf_release(&b);
			return gp__error(GP_EINVAL, "tag '%s' is not KEY=VALUE", t ? t : "");
		}
		rc = (i && gp__buf_addch(&b, ',')) || json_str(&b, t, (size_t)(eq - t)) ||
		     gp__buf_addch(&b, ':') || json_str(&b, eq + 1, strlen(eq + 1));
	}
	if (rc || gp__buf_addch(&b, '}')) {
		gp__buf_release(&b);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	*out = gp__buf_detach(&b, NULL);
	return *out ? 0 : gp__error(GP_ENOMEM, "out of memory");
}
