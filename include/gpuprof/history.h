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
#define GP_HISTORY_SCHEMA_VERSION 1

struct gp_history;

/**
 * Opens (creating when missing, migrating when older) the database @p target:
 * a "postgresql://..." or "postgres://..." URL, else a SQLite file path (its
 * directory must exist). A database of a newer schema version is refused
 * (GP_EVERSION); an older one is migrated in one transaction.
 * @param out receives the handle (close with gp_history_close()).
 * @return 0; GP_ENOTSUP (built without the backend, or its library does not
 * load), GP_EIO (cannot open, locked, read-only), GP_EVERSION, GP_ENOMEM;
 * gp_last_error() names the database.
 */
GP_API int gp_history_open(const char *target, struct gp_history **out);

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
 * (fnmatch; NULL: all), sorted by metric then testbed, each
 * {metric, testbed, unit, better ("lower"|"higher"), points: [{run_id,
 * time_ns, commit, branch, value, noisy, noise_reason}]} with the points in
 * time order (then run id). @p out receives the array (gp_value_free()).
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

/** @return true when this build can open @p backend ("sqlite", "postgresql"). */
GP_API bool gp_history_built_with(const char *backend);

#ifdef __cplusplus
}
#endif

#endif
