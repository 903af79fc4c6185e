/* SPDX-License-Identifier: MIT */
/*
 * db-pg.c - the PostgreSQL backend of the history, for a team or a fleet of
 * CI runners writing to one database ("postgresql://..." URLs, libpq's
 * connection strings).
 *
 * libpq is loaded with dlopen on the first open (its header, from Debian's
 * libpq-dev, gives the types); a build without the header says why it
 * cannot open. The SQL is written with "?" placeholders, numbered here
 * ($1, $2...; no "?" appears inside a literal of ours). Parameters go as
 * text and the server casts them to the columns' types. Notices ("relation
 * already exists, skipping") are swallowed: the library never prints.
 * GP_HISTORY_PQ_LIBRARY overrides the library.
 */
#include "history-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof-config.h"
#include "util/buf.h"
#include "util/error.h"

#if GP_HAVE_PQ
#include <libpq-fe.h>

#include "util/dl.h"

static struct {
	__typeof__(PQconnectdb) *connectdb;
	__typeof__(PQstatus) *status;
	__typeof__(PQerrorMessage) *errmsg;
	__typeof__(PQfinish) *finish;
	__typeof__(PQexecParams) *exec_params;
	__typeof__(PQresultStatus) *result_status;
	__typeof__(PQresultErrorMessage) *result_errmsg;
	__typeof__(PQntuples) *ntuples;
	__typeof__(PQnfields) *nfields;
	__typeof__(PQgetvalue) *getvalue;
	__typeof__(PQgetisnull) *getisnull;
	__typeof__(PQclear) *clear;
	__typeof__(PQsetNoticeProcessor) *set_notice;
	struct gp_dl dl;
	bool loaded;
} lib;

static int load(void)
{
	static const char *const cands[] = { "libpq.so.5", "libpq.so", NULL };
	const struct gp_dl_sym syms[] = {
		{ { "PQconnectdb" }, (void **)&lib.connectdb, true },
		{ { "PQstatus" }, (void **)&lib.status, true },
		{ { "PQerrorMessage" }, (void **)&lib.errmsg, true },
		{ { "PQfinish" }, (void **)&lib.finish, true },
		{ { "PQexecParams" }, (void **)&lib.exec_params, true },
		{ { "PQresultStatus" }, (void **)&lib.result_status, true },
		{ { "PQresultErrorMessage" }, (void **)&lib.result_errmsg, true },
		{ { "PQntuples" }, (void **)&lib.ntuples, true },
		{ { "PQnfields" }, (void **)&lib.nfields, true },
		{ { "PQgetvalue" }, (void **)&lib.getvalue, true },
		{ { "PQgetisnull" }, (void **)&lib.getisnull, true },
		{ { "PQclear" }, (void **)&lib.clear, true },
		{ { "PQsetNoticeProcessor" }, (void **)&lib.set_notice, true },
	};
	int rc;

	if (lib.loaded)
		return 0;
	rc =
	    gp__dl_load(&lib.dl, getenv("GP_HISTORY_PQ_LIBRARY"), cands, syms, GP_ARRAY_SIZE(syms));
	if (rc)
		return gp__error(rc, "PostgreSQL: %s", gp_last_error());
	lib.loaded = true;
	return 0;
}

struct gp__hdb {
	PGconn *conn;
	char *target; /* the URL without its password, for errors */
};

static void quiet(void *arg, const char *msg)
{
	(void)arg, (void)msg;
}

/*
 * libpq's message on one line: its newlines and tabs (a hint is a line of
 * its own, indented) as one space, none at the end; cut at 1 KiB
 */
static int pg_error(struct gp__hdb *d, const char *what, const char *msg)
{
	char one[1024];
	size_t n = 0;

	for (const char *m = msg ? msg : ""; *m && n + 1 < sizeof(one); m++) {
		bool space = *m == '\n' || *m == '\t' || *m == '\r' || *m == ' ';

		if (!space)
			one[n++] = *m;
		else if (n && one[n - 1] != ' ')
			one[n++] = ' ';
	}
	while (n && one[n - 1] == ' ')
		n--;
	one[n] = '\0';
	return gp__error(GP_EIO, "'%s': %s: %s", d->target, what, one);
}

/* "?" -> "$N" */
static int number_params(const char *sql, struct gp_buf *b)
{
	unsigned k = 0;

	for (const char *p = sql; *p; p++) {
		int rc = *p == '?' ? gp__buf_addf(b, "$%u", ++k) : gp__buf_add(b, p, 1);

		if (rc)
			return rc;
	}
	return 0;
}

static int pg_exec(struct gp__hdb *d, const char *sql, size_t nparam, const char *const *params,
                   gp__hdb_row_fn fn, void *user)
{
	struct gp_buf b = GP_BUF_INIT;
	PGresult *res;
	const char *vals[64];
	int ret = 0, st;

	if (number_params(sql, &b)) {
		gp__buf_release(&b);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	res = lib.exec_params(d->conn, b.buf, (int)nparam, NULL, params, NULL, NULL, 0);
	gp__buf_release(&b);
	if (!res)
		return pg_error(d, "the query failed", lib.errmsg(d->conn));
	st = lib.result_status(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = pg_error(d, "the query failed", lib.result_errmsg(res));
		goto out_res;
	}
	if (fn && st == PGRES_TUPLES_OK) {
		int nrow = lib.ntuples(res), ncol = lib.nfields(res);

		if (ncol > (int)GP_ARRAY_SIZE(vals))
			ncol = (int)GP_ARRAY_SIZE(vals);
		for (int r = 0; r < nrow && !ret; r++) {
			for (int c = 0; c < ncol; c++)
				vals[c] = lib.getisnull(res, r, c) ? NULL : lib.getvalue(res, r, c);
			ret = fn(user, (size_t)ncol, vals);
		}
	}
out_res:
	lib.clear(res);
	return ret;
}

static void pg_close(struct gp__hdb *d)
{
	if (!d)
		return;
	if (d->conn)
		lib.finish(d->conn);
	gp__free(d->target);
	gp__free(d);
}

/* the URL for errors: "postgresql://user:secret@host/db" -> "postgresql://user@host/db" */
static char *redact(const char *url)
{
	const char *at = strchr(url, '@'), *s = strstr(url, "://");
	char *r;

	if (!at || !s || at < s)
		return gp__strdup(url);
	for (const char *c = s + 3; c < at; c++) {
		if (*c == ':') {
			size_t a = (size_t)(c - url);

			r = gp__malloc(strlen(url) + 1);
			if (r) {
				memcpy(r, url, a);
				strcpy(r + a, at);
			}
			return r;
		}
	}
	return gp__strdup(url);
}

static int pg_open(const char *target, bool existing, struct gp__hdb **out)
{
	struct gp__hdb *d;
	int rc;

	(void)existing; /* a server's database is never made here: schema.c checks its tables */
	*out = NULL;
	rc = load();
	if (rc)
		return rc;
	d = gp__calloc(1, sizeof(*d));
	if (!d || !(d->target = redact(target))) {
		gp__free(d);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	d->conn = lib.connectdb(target);
	if (!d->conn || lib.status(d->conn) != CONNECTION_OK) {
		rc = d->conn ? pg_error(d, "cannot connect", lib.errmsg(d->conn))
		             : gp__error(GP_ENOMEM, "'%s': cannot connect", d->target);
		pg_close(d);
		return rc;
	}
	lib.set_notice(d->conn, quiet, NULL);
	*out = d;
	return 0;
}

#else /* !GP_HAVE_PQ */

static int pg_open(const char *target, bool existing, struct gp__hdb **out)
{
	(void)target, (void)existing;
	*out = NULL;
	return gp__error(GP_ENOTSUP,
	                 "gpuprof was built without PostgreSQL (libpq-dev was not found)");
}

#define pg_exec  gp__hdb_null_exec
#define pg_close gp__hdb_null_close

#endif

const struct gp__hdb_ops gp__hdb_pg = {
	.name = "postgresql",
	.open = pg_open,
	.exec = pg_exec,
	.close = pg_close,
	.id_column = "BIGSERIAL PRIMARY KEY",
	.begin = "BEGIN",
	/* two first opens would both create the tables: one waits for the other */
	.lock_sql = "SELECT pg_advisory_xact_lock(7243553025)",
	.has_schema_sql = "SELECT count(*) FROM information_schema.tables WHERE table_name = "
	                  "'schema_version' AND table_schema = current_schema()",
	.collate = " COLLATE \"C\"",
};
