/* SPDX-License-Identifier: MIT */
/*
 * history.h - `gpuprof history`: the performance database. Results gpuprof
 * writes (bench results, analyze reports, aggregates, run directories and
 * traces, analysed first) go in as runs, each with its metrics (a value, a
 * unit and which direction is better), the commit, branch, time, tags, a
 * testbed key built from stable facts only, and the noise guard's verdict.
 * Series (one metric on one testbed) are read back in time order.
 *
 * The database is SQLite (a file; WAL and a busy timeout, so concurrent
 * writers wait rather than fail) or PostgreSQL (a "postgresql://" or
 * "postgres://" URL), with one schema and versioned migrations
 * (docs/history-schema.md). Both libraries are loaded with dlopen when a
 * database is opened; a build without their headers says so on open.
 *
 * A gp_history is used from one thread at a time. Nothing here prints.
 */
#ifndef GPUPROF_HISTORY_H
#define GPUPROF_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The schema version this library writes (the schema_version table). */
#define GP_HISTORY_SCHEMA_VERSION 2

struct gp_history;

/**
 * Opens (creating when missing, migrating when older) the database @p target:
 * a "postgresql://..." or "postgres://..." URL, else a SQLite file path (its
 * directory must exist). A database of a newer schema version is refused
 * (GP_EVERSION); an older one is migrated in one transaction. A SQLite file
 * that cannot be written is opened for reading (immutable, as
 * gp_history_open_existing() says, when its folder cannot be written): a
 * write to it then fails (GP_EIO, "the database is read-only"), its
 * transaction undone. A missing SQLite file in a folder that can be written
 * is made by the first statement that needs it (a write, or a read), not by
 * this call: an add or import that fails before writing leaves no file.
 * @param out receives the handle (close with gp_history_close()).
 * @return 0; GP_ENOTSUP (built without the backend, or its library does not
 * load), GP_EIO (cannot open, locked, read-only), GP_EVERSION, GP_ENOMEM;
 * gp_last_error() names the database.
 */
GP_API int gp_history_open(const char *target, struct gp_history **out);

/**
 * Opens the database @p target as gp_history_open() does, but never makes
 * one: what reading commands use, so that a misspelt path reads as an error,
 * not as an empty history. A SQLite file that is missing, or a database
 * (SQLite or PostgreSQL) without the history's tables, is refused
 * (GP_ENOENT, "no history database there") and nothing is made. A SQLite
 * file that cannot be read where it lies because its folder cannot be
 * written (SQLite makes its -shm or journal file beside it) is opened
 * immutable: read as the file holds it, every write refused (GP_EIO, "the
 * database is read-only"); a write-ahead log beside it with changes not yet
 * in the file is refused (GP_EIO) rather than ignored.
 * @return as gp_history_open(), and GP_ENOENT.
 */
GP_API int gp_history_open_existing(const char *target, struct gp_history **out);

/** Closes @p h; NULL is a no-op. */
GP_API void gp_history_close(struct gp_history *h);

/** @return "sqlite" or "postgresql": the backend of @p h. */
GP_API const char *gp_history_backend(const struct gp_history *h);

/** What a run is recorded with. Zero-initialise, then set size = sizeof(...). */
struct gp_history_meta {
	uint32_t size;
	const char *commit;  /**< the commit; NULL: unknown */
	const char *branch;  /**< NULL: unknown */
	int64_t time_ns;     /**< Unix time of the run, ns; a CSV row's own time wins */
	const char *testbed; /**< a label for the testbed; NULL: built from the result's facts */
	const char *const *tags; /**< "KEY=VALUE" strings */
	size_t ntags;
};

/**
 * Adds the results at @p paths[0..n) (bench results, analyze reports,
 * aggregates, run directories, traces and captures: resolved as every
 * command resolves a PATH), one run each, all in one transaction: when one
 * fails nothing is written. A result whose metrics timeline shows throttling,
 * SM clocks below the testbed's usual or another process on the GPU is
 * stored and marked noisy with its reason.
 * @param run_ids when non-NULL, receives the n new runs' ids (n slots).
 * @return 0; GP_EFORMAT / GP_EVERSION (a result of an unknown schema or
 * without metrics, naming the file), GP_EIO, GP_ENOMEM.
 */
GP_API int gp_history_add(struct gp_history *h, const char *const *paths, size_t n,
                          const struct gp_history_meta *meta, int64_t *run_ids);

/**
 * Imports a CSV file of the layout Apache Otava and asv users keep: a header
 * row, a time column ("time", "timestamp" or "date"), a commit column
 * ("commit", "hash", "revision"; optional), the other columns one metric
 * each (empty cells unknown), one run per row, all in one transaction.
 * @param nrows when non-NULL, receives the rows imported.
 * @return 0; GP_EFORMAT naming the file, the line and the column on a
 * missing column or a cell that is not a number or a time; GP_EIO, GP_ENOMEM.
 */
GP_API int gp_history_import_csv(struct gp_history *h, const char *path,
                                 const struct gp_history_meta *meta, size_t *nrows);

/**
 * The series of @p h whose metric name matches the shell pattern @p pattern
 * (fnmatch; NULL: all; several patterns separated by newlines: a series that
 * matches any of them, as every @p pattern below), sorted by metric then testbed, each
 * {metric, testbed, unit, better ("lower"|"higher"), points: [{run_id,
 * time_ns, commit, branch, value, noisy, noise_reason, source, kind}]} with
 * the points in time order (then run id); source is the path the run was
 * added from (FILE:LINE for a CSV row), kind what it was (runs.kind). @p out receives the array
 * (gp_value_free()).
 */
GP_API int gp_history_series(struct gp_history *h, const char *pattern, struct gp_value **out);

/**
 * One row per series: {metric, testbed, unit, better, count, noisy, last_value,
 * last_time_ns, last_commit}, sorted by metric then testbed.
 */
GP_API int gp_history_list(struct gp_history *h, const char *pattern, struct gp_value **out);

/**
 * Every run with its metrics, in id order: {run_id, time_ns, commit, branch,
 * testbed, source, kind, tags {}, noisy, noise_reason, metrics: [{name, unit,
 * better, value}]}; @p out receives the array (one JSON line each for
 * `history export --jsonl`).
 */
GP_API int gp_history_export(struct gp_history *h, struct gp_value **out);

/**
 * Options of the change detection; gp_history_cpd_opts_init() fills the
 * defaults for GPU runs (docs/analyses/history-changes.md): E-divisive with
 * Otava's t-test (window 30, max p-value 0.01) and a 2 % minimum magnitude,
 * the Chromium filters (5 points each side), outliers past a modified
 * z-score of 6.745 left out, and the Mann-Kendall creep test at 0.001.
 */
struct gp_history_cpd_opts {
	uint32_t size;        /**< sizeof(struct gp_history_cpd_opts) */
	size_t window;        /**< E-divisive's window, 2..4096 */
	double max_pvalue;    /**< in (0, 1] */
	double min_magnitude; /**< the smallest relative change that counts, >= 0 */
	/** Otava's own test only (no Chromium filters, outlier rule or creep test) and its
	 *  merge (which recomputes the wrong neighbour of a removed point): Otava's change
	 *  points exactly, as its published tests have them */
	bool otava;
	bool points; /**< each series carries its points (for pages and `show`) */
	/** gp_history_check(): a regression counts when its change point lies in the last
	 *  @p recent clean points of its series (0: the window) */
	size_t recent;
	/** the Chromium perf dashboard's other filters (0: off, the default; not with
	 *  otava): a change point whose two segments' medians differ by less than this
	 *  fraction, or whose steppiness (in [0, 1]) is below @p min_steppiness, is dropped */
	double min_median_change;
	double min_steppiness;
};

/** Fills @p o with the defaults named on struct gp_history_cpd_opts. */
GP_API void gp_history_cpd_opts_init(struct gp_history_cpd_opts *o);

/**
 * The change points of every series whose metric matches @p pattern (NULL:
 * all), as gp_history_series() orders them: noisy points left out, a series
 * too noisy for its threshold called unstable and given none. Each element:
 * {metric, testbed, unit, better, count, clean, noisy, noise, threshold,
 * unstable, last {run_id, time_ns, commit, value}, changes [{kind ("step" or
 * "trend"), index (into all the points, noisy ones included: the first of the
 * new regime), run_id, commit, time_ns, before {mean, sd, n}, after {mean, sd,
 * n}, rel_change, magnitude, pvalue, steppiness, regression}], and with
 * o->points the points as gp_history_series() gives them}.
 * @param o NULL: the defaults.
 * @return 0, GP_EINVAL (an option out of range), GP_EIO, GP_ENOMEM.
 */
GP_API int gp_history_changes(struct gp_history *h, const char *pattern,
                              const struct gp_history_cpd_opts *o, struct gp_value **out);

/** What gp_history_changes_each() hands each series to (borrowed); non-zero stops. */
typedef int (*gp_history_series_fn)(void *user, const struct gp_value *series);

/**
 * gp_history_changes() one series at a time: each element it would return is
 * handed to @p fn, in the same order, and freed after the call, so the memory
 * taken is one series' (with its points when @p o asks), not the history's.
 * @return 0, @p fn's non-zero return, or as gp_history_changes().
 */
GP_API int gp_history_changes_each(struct gp_history *h, const char *pattern,
                                   const struct gp_history_cpd_opts *o, gp_history_series_fn fn,
                                   void *user);

/**
 * The CI gate: gp_history_changes() and, per series, a verdict on its newest
 * clean run: "regression" when the last change point is a regression within
 * the last o->recent clean points, "improvement", "unchanged", "unstable" or
 * "too few points". For each regression the runs on each side of the change
 * point (the last before it, the first after it) are compared as `gpuprof
 * compare` does when both still exist as results it reads ("compare": the
 * gpuprof.compare/1 result, else null and "compare_error" says why).
 * @p out: {series: [... with "verdict"], regressions: N, explanations:
 * [{metric, testbed, change, before {run_id, commit, source}, after {...},
 * compare, compare_error}]}.
 */
GP_API int gp_history_check(struct gp_history *h, const char *pattern,
                            const struct gp_history_cpd_opts *o, struct gp_value **out);

/** Text for people of the trees above: enum gp_history_format. */
enum gp_history_format {
	GP_HISTORY_LIST = 0,    /**< gp_history_list()'s rows, as a table */
	GP_HISTORY_CHANGES = 1, /**< gp_history_changes(): the change points of each series */
	GP_HISTORY_SHOW = 2,    /**< gp_history_changes() with points: a sparkline per series */
	GP_HISTORY_CHECK = 3,   /**< gp_history_check(): verdicts and explanations */
};

/**
 * Formats @p v (borrowed) as @p fmt says, @p width columns (0: 100).
 * @p out receives NUL-ended text to gp_free(); @p len its length (may be NULL).
 * @return 0, GP_EINVAL (a tree of another shape), GP_ENOMEM.
 */
GP_API int gp_history_format(const struct gp_value *v, enum gp_history_format fmt, int width,
                             char **out, size_t *len);

/** @return true when this build can open @p backend ("sqlite", "postgresql"). */
GP_API bool gp_history_built_with(const char *backend);

#ifdef __cplusplus
}
#endif

#endif
