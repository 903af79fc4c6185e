/* SPDX-License-Identifier: MIT */
/*
 * history-int.h - what the files of src/lib/history share: the database
 * backend interface (SQLite in db-sqlite.c, PostgreSQL in db-pg.c), the
 * handle, and the metric list a result is turned into (ingest.c).
 *
 * A backend runs one SQL statement at a time with text parameters ("?" in
 * the SQL; NULL is SQL NULL) and hands each result row to a callback as
 * text. Both servers convert the text to the column's type, so the SQL is
 * written once (schema.c keeps the few words that differ in the backend).
 */
#ifndef GP_HISTORY_INT_H
#define GP_HISTORY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/history.h"

struct gp__hdb;

/** A result row: @p vals[0..ncol) as text, NULL for SQL NULL. Non-zero stops. */
typedef int (*gp__hdb_row_fn)(void *user, size_t ncol, const char *const *vals);

struct gp__hdb_ops {
	const char *name; /* "sqlite", "postgresql" */
	/* opens @p target; errors name it. @p existing: never create it (SQLite: a file that
	 * cannot be read where it lies, its folder not writable, is opened immutable) */
	int (*open)(const char *target, bool existing, struct gp__hdb **out);
	/* runs @p sql with @p params; @p fn (may be NULL) gets each row */
	int (*exec)(struct gp__hdb *db, const char *sql, size_t nparam, const char *const *params,
	            gp__hdb_row_fn fn, void *user);
	void (*close)(struct gp__hdb *db);
	const char *id_column;      /* the auto-numbered primary key's type */
	const char *begin;          /* a write transaction's BEGIN */
	const char *lock_sql;       /* serialises migrations (NULL: BEGIN does) */
	const char *has_schema_sql; /* one row: 1 when the schema_version table exists */
	const char *collate;        /* appended to ORDER BY text: byte order on both */
};

/* what a backend built without its header runs (db-null.c): GP_ENOTSUP, nothing */
int gp__hdb_null_exec(struct gp__hdb *db, const char *sql, size_t nparam, const char *const *params,
                      gp__hdb_row_fn fn, void *user);
void gp__hdb_null_close(struct gp__hdb *db);

extern const struct gp__hdb_ops gp__hdb_sqlite;
extern const struct gp__hdb_ops gp__hdb_pg;

struct gp_history {
	const struct gp__hdb_ops *ops;
	struct gp__hdb *db;
	char *target; /* as given, for errors */
	/* not migrated yet (and a SQLite file not made yet, db NULL): the first statement
	 * opens and migrates it (gp__hist_exec), so that an add that fails before
	 * writing leaves no file and no tables */
	bool lazy;
};

/** Runs @p sql on @p h (a shorthand of h->ops->exec). */
int gp__hist_exec(struct gp_history *h, const char *sql, size_t nparam, const char *const *params,
                  gp__hdb_row_fn fn, void *user);
/** BEGIN (the backend's write transaction), COMMIT, ROLLBACK (errors ignored). */
int gp__hist_begin(struct gp_history *h);
int gp__hist_commit(struct gp_history *h);
void gp__hist_rollback(struct gp_history *h);

/** One metric of a run. */
struct gp__hmetric {
	char *name;
	const char *unit;   /* static: "ns", "bytes", "/s", "%", "count", ... */
	bool higher_better; /* else lower is better */
	double value;
};

/** A run before it is written. */
struct gp__hrun {
	char *source;     /* the file or directory it came from */
	const char *kind; /* "bench", "analyze", "aggregate", "run", "trace", "csv" */
	int64_t time_ns;
	char *commit, *branch;
	char *testbed;
	char *tags_json;    /* "{}" or a JSON object of strings */
	double sm_clock_hz; /* median SM clock of its timeline; NAN unknown */
	char *noise;        /* why it is noisy (NULL: clean) */
	struct gp__hmetric *m;
	size_t nm, cap;
};

/** Appends a metric (the name copied); NAN values are skipped. @return 0 or GP_ENOMEM. */
int gp__hrun_metric(struct gp__hrun *r, const char *name, const char *unit, bool higher_better,
                    double value);
void gp__hrun_release(struct gp__hrun *r);

/**
 * Writes @p r (runs row, then its metrics) inside the caller's transaction,
 * the noise guard's clock check first. @param id receives its run id.
 */
int gp__hrun_write(struct gp_history *h, struct gp__hrun *r, int64_t *id);

/** What gp__hcsv_parse() does with each row's run (borrowed: released after the call). */
typedef int (*gp__hcsv_run_fn)(void *user, struct gp__hrun *r);

/**
 * Parses the CSV @p text[0..len) (modified in place, text[len] too: a NUL; @p path names it in
 * errors) into one run per row, each handed to @p fn (a non-zero return
 * stops and is returned). @p tags: the runs' tags as JSON text.
 * @param nrows receives the rows handed over.
 * @return 0, GP_EFORMAT / GP_ELIMIT naming the line and column, GP_ENOMEM.
 */
int gp__hcsv_parse(const char *path, char *text, size_t len, const struct gp_history_meta *meta,
                   const char *tags, gp__hcsv_run_fn fn, void *user, size_t *nrows);

/** Tags of @p meta as a JSON object text (malloc'd) into *@p out. */
int gp__hist_tags_json(const struct gp_history_meta *meta, char **out);

/** One point of a series as gp__hist_each_series() hands it over. */
struct gp__hpoint {
	int64_t run_id, time_ns;
	double value; /* NAN unknown */
	bool noisy;
	/* NULL when unknown; valid during the callback only */
	const char *commit, *branch, *noise_reason, *source, *kind;
};

/** One series: a metric on a testbed, its points in time order (then run id). */
struct gp__hseries {
	const char *metric, *testbed, *unit, *better;
	const struct gp__hpoint *p;
	size_t n;
};

/** What gp__hist_each_series() does with each series (borrowed); non-zero stops. */
typedef int (*gp__hseries_fn)(void *user, const struct gp__hseries *s);

/**
 * Reads the series whose metric matches the shell pattern @p pattern (NULL:
 * all; several patterns separated by newlines: any of them) one at a time,
 * sorted by metric then testbed, each handed to @p fn: memory for one series,
 * not for the whole history. Without @p full the
 * points' branch, noise_reason, source and kind are NULL (not read).
 * @return 0, @p fn's non-zero return, GP_EIO, GP_ENOMEM.
 */
int gp__hist_each_series(struct gp_history *h, const char *pattern, bool full, gp__hseries_fn fn,
                         void *user);

/** The source and kind of run @p id (gp__free() both). @return 0, GP_EINVAL (no such run). */
int gp__hist_run_source(struct gp_history *h, int64_t id, char **source, char **kind);

/** The points of @p s as gp_history_series() gives them (gp_value_free()); NULL: no memory. */
struct gp_value *gp__hist_points(const struct gp__hseries *s);

/** {metric, testbed, unit, better} of @p s into object @p o. @return 0 or GP_ENOMEM. */
int gp__hist_series_head(struct gp_value *o, const struct gp__hseries *s);

/** "12345" of @p v into @p buf (at least 32 bytes). */
const char *gp__hist_i64(int64_t v, char *buf);

#endif
