/* SPDX-License-Identifier: MIT */
/*
 * db-sqlite.c - the SQLite backend of the history (the default: one file).
 *
 * libsqlite3 is loaded with dlopen on the first open (its header, from
 * Debian's libsqlite3-dev, gives the types), so only `gpuprof history` pays
 * for it; a build without the header keeps the backend and says why it
 * cannot open. Concurrent writers: the journal is WAL (readers never block
 * the writer), every write transaction is BEGIN IMMEDIATE (it takes the
 * write lock at once, so two writers never deadlock upgrading a read lock)
 * and a busy timeout of 60 s makes a writer wait for another's commit
 * instead of failing. A file we may not write is opened all the same: the
 * commands that only read work, and a write fails as "the database is
 * read-only", its transaction undone. Where SQLite cannot make its -shm (or
 * journal) file beside it, the folder not writable, the file is reopened
 * immutable ("file:PATH?mode=ro&immutable=1"). A reader (existing) never
 * makes a file nor changes its journal mode. GP_HISTORY_SQLITE_LIBRARY
 * overrides the library.
 */
#include "history-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof-config.h"
#include "util/buf.h"
#include "util/error.h"

#if GP_HAVE_SQLITE
#include <sqlite3.h>

#include "util/dl.h"

static struct {
	__typeof__(sqlite3_open_v2) *open_v2;
	__typeof__(sqlite3_close) *close;
	__typeof__(sqlite3_errmsg) *errmsg;
	__typeof__(sqlite3_prepare_v2) *prepare_v2;
	__typeof__(sqlite3_bind_text) *bind_text;
	__typeof__(sqlite3_bind_null) *bind_null;
	__typeof__(sqlite3_step) *step;
	__typeof__(sqlite3_column_count) *column_count;
	__typeof__(sqlite3_column_text) *column_text;
	__typeof__(sqlite3_finalize) *finalize;
	__typeof__(sqlite3_busy_timeout) *busy_timeout;
	__typeof__(sqlite3_db_readonly) *db_readonly;
	struct gp_dl dl;
	bool loaded;
} lib;

static int load(void)
{
	static const char *const cands[] = { "libsqlite3.so.0", "libsqlite3.so", NULL };
	const struct gp_dl_sym syms[] = {
		{ { "sqlite3_open_v2" }, (void **)&lib.open_v2, true },
		{ { "sqlite3_close" }, (void **)&lib.close, true },
		{ { "sqlite3_errmsg" }, (void **)&lib.errmsg, true },
		{ { "sqlite3_prepare_v2" }, (void **)&lib.prepare_v2, true },
		{ { "sqlite3_bind_text" }, (void **)&lib.bind_text, true },
		{ { "sqlite3_bind_null" }, (void **)&lib.bind_null, true },
		{ { "sqlite3_step" }, (void **)&lib.step, true },
		{ { "sqlite3_column_count" }, (void **)&lib.column_count, true },
		{ { "sqlite3_column_text" }, (void **)&lib.column_text, true },
		{ { "sqlite3_finalize" }, (void **)&lib.finalize, true },
		{ { "sqlite3_busy_timeout" }, (void **)&lib.busy_timeout, true },
		{ { "sqlite3_db_readonly" }, (void **)&lib.db_readonly, true },
	};
	int rc;

	if (lib.loaded)
		return 0;
	rc = gp__dl_load(&lib.dl, getenv("GP_HISTORY_SQLITE_LIBRARY"), cands, syms,
	                 GP_ARRAY_SIZE(syms));
	if (rc)
		return gp__error(rc, "SQLite: %s", gp_last_error());
	lib.loaded = true;
	return 0;
}

struct gp__hdb {
	sqlite3 *db;
	char *path;
	int last_rc;    /* SQLite's code of the last error */
	bool immutable; /* opened read-only in a folder we cannot write */
};

static int sq_error(struct gp__hdb *d, int code, const char *what)
{
	/* SQLITE_BUSY and SQLITE_READONLY, CANTOPEN: the database, not the input */
	d->last_rc = code;
	if ((code & 0xff) == SQLITE_READONLY)
		return gp__error(GP_EIO, "'%s': the database is read-only%s", d->path,
		                 d->immutable ? " (in a folder gpuprof cannot write)" : "");
	return gp__error(code == SQLITE_NOMEM ? GP_ENOMEM : GP_EIO, "'%s': %s: %s", d->path, what,
	                 lib.errmsg(d->db));
}

static int sq_exec(struct gp__hdb *d, const char *sql, size_t nparam, const char *const *params,
                   gp__hdb_row_fn fn, void *user)
{
	sqlite3_stmt *st = NULL;
	const char *vals[64];
	int rc, ret = 0;

	rc = lib.prepare_v2(d->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_error(d, rc, "cannot prepare a statement");
	for (size_t i = 0; i < nparam; i++) {
		rc = params[i] ? lib.bind_text(st, (int)i + 1, params[i], -1, SQLITE_TRANSIENT)
		               : lib.bind_null(st, (int)i + 1);
		if (rc != SQLITE_OK) {
			ret = sq_error(d, rc, "cannot bind a value");
			goto out_stmt;
		}
	}
	while ((rc = lib.step(st)) == SQLITE_ROW) {
		size_t n = (size_t)lib.column_count(st);

		if (n > GP_ARRAY_SIZE(vals))
			n = GP_ARRAY_SIZE(vals);
		for (size_t i = 0; i < n; i++)
			vals[i] = (const char *)lib.column_text(st, (int)i);
		if (fn && (ret = fn(user, n, vals)))
			goto out_stmt;
	}
	if (rc != SQLITE_DONE)
		ret = sq_error(d, rc, "cannot write");
out_stmt:
	lib.finalize(st);
	return ret;
}

static void sq_close(struct gp__hdb *d)
{
	if (!d)
		return;
	if (d->db)
		lib.close(d->db);
	gp__free(d->path);
	gp__free(d);
}

/*
 * Opens d->path as @p uri (a plain path, or a "file:" URI with SQLITE_OPEN_URI in @p flags)
 * and reads its schema: a first read is where SQLite makes its -shm file (WAL) or looks
 * for a hot journal. @return SQLite's code (d->db NULL when it could not even start).
 */
static int sq_connect(struct gp__hdb *d, const char *uri, int flags, int busy_ms)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (d->db)
		lib.close(d->db);
	d->db = NULL;
	rc = lib.open_v2(uri, &d->db, flags, NULL);
	if (rc != SQLITE_OK)
		return rc;
	lib.busy_timeout(d->db, busy_ms);
	rc = lib.prepare_v2(d->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = lib.step(st);
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	lib.finalize(st);
	return rc;
}

/*
 * The read-only fallback: a database in a folder we cannot write (SQLite cannot make its
 * -shm or journal file there) is opened immutable, read as the file holds it. Its WAL, if
 * one is left beside it with changes not yet in the file, would be ignored: refused.
 */
static int sq_connect_immutable(struct gp__hdb *d, int busy_ms)
{
	struct gp_buf uri = GP_BUF_INIT, wal = GP_BUF_INIT;
	struct stat st;
	int rc;

	if (gp__buf_addstr(&wal, d->path) || gp__buf_addstr(&wal, "-wal"))
		goto out_nomem;
	if (!stat(wal.buf, &st) && st.st_size > 0) {
		rc = gp__error(GP_EIO,
		               "'%s': its folder cannot be written, and its write-ahead log '%s' "
		               "holds changes not yet in it: open it once where it can be written",
		               d->path, wal.buf);
		goto out;
	}
	/* a URI path: '%', '?' and '#' escaped; "file:///abs" so that "//x" is no host */
	if (gp__buf_addstr(&uri, d->path[0] == '/' ? "file://" : "file:"))
		goto out_nomem;
	for (const char *p = d->path; *p; p++) {
		if ((*p == '%' || *p == '?' || *p == '#') ? gp__buf_addf(&uri, "%%%02x", *p)
		                                          : gp__buf_addch(&uri, *p))
			goto out_nomem;
	}
	if (gp__buf_addstr(&uri, "?mode=ro&immutable=1"))
		goto out_nomem;
	rc = sq_connect(d, uri.buf, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, busy_ms);
	if (rc != SQLITE_OK)
		rc = d->db ? sq_error(d, rc, "cannot open")
		           : gp__error(GP_EIO, "'%s': cannot open", d->path);
	else
		d->immutable = true;
	goto out;
out_nomem:
	rc = gp__error(GP_ENOMEM, "out of memory");
out:
	gp__buf_release(&uri);
	gp__buf_release(&wal);
	return rc;
}

static int sq_open(const char *target, bool existing, struct gp__hdb **out)
{
	/* GP_HISTORY_BUSY_TIMEOUT_MS: how long to wait for another writer (tests) */
	const char *bt = getenv("GP_HISTORY_BUSY_TIMEOUT_MS");
	int ms = bt && *bt ? atoi(bt) : 60000;
	struct gp__hdb *d;
	int rc;

	*out = NULL;
	rc = load();
	if (rc)
		return rc;
	d = gp__calloc(1, sizeof(*d));
	if (!d || !(d->path = gp__strdup(target))) {
		gp__free(d);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	rc = sq_connect(d, target, SQLITE_OPEN_READWRITE | (existing ? 0 : SQLITE_OPEN_CREATE), ms);
	if (rc != SQLITE_OK && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY) &&
	    !access(target, R_OK)) {
		rc = sq_connect_immutable(d, ms);
		if (rc) {
			sq_close(d);
			return rc;
		}
	}
	if (rc != SQLITE_OK) {
		rc = d->db ? sq_error(d, rc, "cannot open")
		           : gp__error(GP_ENOMEM, "'%s': cannot open", target);
		sq_close(d);
		return rc;
	}
	/*
	 * WAL lets readers go on while one writes. Switching a new file to it
	 * takes the write lock without calling the busy handler, so a second
	 * first open at the same moment is told "locked": wait and retry. A
	 * file we may not write is read as it is; a write fails in sq_error().
	 * A reader changes nothing (a file that is no history stays as it was):
	 * a WAL file is read as one all the same.
	 */
	for (int waited = 0; !existing && lib.db_readonly(d->db, "main") != 1; waited += 20) {
		rc = sq_exec(d, "PRAGMA journal_mode=WAL", 0, NULL, NULL, NULL);
		if (!rc || waited >= ms ||
		    ((d->last_rc & 0xff) != SQLITE_BUSY && (d->last_rc & 0xff) != SQLITE_LOCKED))
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	/* NORMAL syncs at checkpoints */
	if (!rc)
		rc = sq_exec(d, "PRAGMA synchronous=NORMAL", 0, NULL, NULL, NULL);
	if (!rc)
		rc = sq_exec(d, "PRAGMA foreign_keys=ON", 0, NULL, NULL, NULL);
	if (rc) {
		sq_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

#else /* !GP_HAVE_SQLITE */

static int sq_open(const char *target, bool existing, struct gp__hdb **out)
{
	(void)existing;
	*out = NULL;
	return gp__error(GP_ENOTSUP,
	                 "'%s': gpuprof was built without SQLite (libsqlite3-dev was not found)",
	                 target);
}

#define sq_exec  gp__hdb_null_exec
#define sq_close gp__hdb_null_close

#endif

const struct gp__hdb_ops gp__hdb_sqlite = {
	.name = "sqlite",
	.open = sq_open,
	.exec = sq_exec,
	.close = sq_close,
	.id_column = "INTEGER PRIMARY KEY AUTOINCREMENT",
	.begin = "BEGIN IMMEDIATE",
	.lock_sql = NULL,
	.has_schema_sql =
	    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
	.collate = "",
};
