/* SPDX-License-Identifier: MIT */
/*
 * report.h - `gpuprof report PATH -o report.html`: one self-contained HTML page.
 *
 * Two steps. gp_report_load() reads any input (a capture directory, Kineto
 * traces, or the JSON of analyze, bench or compare) into a page model: a
 * "gpuprof.page/1" tree holding the document itself (an analyze report, a
 * bench result or a compare result), the environment it came from (host,
 * GPUs, driver and CUDA versions, command) and how to open the trace in
 * Perfetto. gp_report_html() renders a page model as one HTML document with
 * its CSS, SVG-drawing JavaScript and data inline: no network request, no
 * external file. Every string of the input is escaped for the context it
 * lands in (HTML text, a double-quoted attribute, JSON inside a script).
 * Nothing here prints; docs/cli/gpuprof-report.md describes the page.
 */
#ifndef GPUPROF_REPORT_H
#define GPUPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_PAGE_SCHEMA "gpuprof.page/1"

/** Options; zero-initialise, then set size = sizeof(struct gp_report_opts). */
struct gp_report_opts {
	uint32_t size;
	/** The page's title; NULL: the first input's file name. */
	const char *title;
	/** Rows kept in each table of an analyze report (analyze --top); 0: all. */
	uint32_t top;
	/** Only this rank of traces and reports; -1: every rank. */
	int64_t rank;
	/** Worker threads for reading traces (gp_analyze_opts.threads); 0: one per CPU. */
	uint32_t threads;
	/** Keep what precedes the damage of a truncated trace (gp_analyze_opts.salvage). */
	bool salvage;
};

/**
 * Reads @p paths[0..n) into a page model. One path may be a gpuprof JSON
 * document ("gpuprof.analyze/1", "gpuprof.bench/1", "gpuprof.compare/1"), a
 * directory of such documents of one kind, or traces: a Kineto trace ("-"
 * for standard input), a capture, a `gpuprof run` directory (its run.json
 * gives the command and host; without a capture, how the run ended and why
 * there is no GPU timeline), a directory of per-rank traces (its documents
 * and other files left out, named in the document's "warnings"), a metrics
 * timeline. Several paths are traces, analysed together as ranks.
 * @param out receives the page model, gp_value_free() it.
 * @return 0 or a negative status; gp_last_error() names the file.
 */
GP_API int gp_report_load(const char *const *paths, size_t n, const struct gp_report_opts *opts,
                          struct gp_value **out);

/**
 * Renders the page model @p page (from gp_report_load(), borrowed) as one
 * HTML document.
 * @param out receives the text (free with gp_free), @p len its length.
 * @return 0, GP_EINVAL for a tree that is not a page model, GP_ENOMEM.
 */
GP_API int gp_report_html(const struct gp_value *page, char **out, size_t *len);

/**
 * Renders the series of a performance database as one HTML page of the
 * report's kind ("history"): a summary table, then per series a chart of its
 * points (clean ones as a line, noisy ones apart), its change points marked,
 * each point's commit, time, value and run on hover. Self-contained as
 * gp_report_html()'s pages are; docs/cli/gpuprof-history.md describes it.
 * @param series gp_history_changes()'s output made with points (an array of
 * series objects, borrowed); an empty array makes a page that says so.
 * @param title the page's title (the database, say); NULL: "history".
 * @param out receives the text (free with gp_free), @p len its length.
 * @return 0, GP_EINVAL when @p series is not an array of objects, GP_ENOMEM.
 */
GP_API int gp_report_history_html(const struct gp_value *series, const char *title, char **out,
                                  size_t *len);

/**
 * gp_report_history_html() made one series at a time, the same bytes: so that
 * a page of a whole database holds its text and one series' tree, not every
 * series' tree at once (gp_history_changes_each() hands them over).
 * gp_report_history_page_new() starts a page titled @p title (NULL:
 * "history") into *@p out; gp_report_history_page_add() appends @p series
 * (one element of gp_history_changes()'s output with points, borrowed);
 * gp_report_history_page_finish() ends it: *@p out receives the text (free
 * with gp_free), @p len its length, and @p pg is freed, also on failure;
 * gp_report_history_page_free() drops an unfinished page (NULL: no-op).
 * @return 0, GP_EINVAL (a NULL argument, a series not an object), GP_ENOMEM.
 */
struct gp_report_history_page;
GP_API int gp_report_history_page_new(const char *title, struct gp_report_history_page **out);
GP_API int gp_report_history_page_add(struct gp_report_history_page *pg,
                                      const struct gp_value *series);
GP_API int gp_report_history_page_finish(struct gp_report_history_page *pg, char **out,
                                         size_t *len);
GP_API void gp_report_history_page_free(struct gp_report_history_page *pg);

#ifdef __cplusplus
}
#endif
#endif
