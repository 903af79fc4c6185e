/* SPDX-License-Identifier: MIT */
/*
 * history-page.c - `gpuprof history report`: the series of a performance
 * database and their change points (gp_history_changes()'s output, with
 * points) as one self-contained page.
 *
 * The page is the report's page (html.c): this file only makes its page
 * model, kind "history", whose "doc" holds the series as they are and whose
 * header says when the page was made; html.c writes the same header,
 * stylesheet, Content-Security-Policy and escaping as for every other page,
 * and assets/history.js draws a chart per series from the embedded JSON.
 * Nothing here reads a database or computes a statistic: the series come in
 * ready (history/), so the page shows exactly what `history changes` says.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuprof/report.h"
#include "util/error.h"

/* now as RFC 3339 UTC, "2026-11-28T03:04:05Z" (the header shows it as a date) */
static int set_generated(struct gp_value *env)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[32];

	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return gp_obj_set_null(env, "generated");
	return gp_obj_set_str(env, "generated", buf);
}

/* the page model of @p series: its doc holds a copy of them */
static int history_page(const struct gp_value *series, const char *title, struct gp_value **out)
{
	struct gp_value *page, *env, *doc;
	int rc = 0;

	page = gp_value_object();
	if (!page)
		return GP_ENOMEM;
	GP_TRY(gp_obj_set_str(page, "schema", GP_PAGE_SCHEMA));
	GP_TRY(gp_obj_set_str(page, "kind", "history"));
	GP_TRY(gp_obj_set_str(page, "title", title ? title : "history"));
	GP_TRY(gp_obj_set(page, "inputs", gp_value_array()));
	/* gp_obj_set takes env and doc over, also when it fails */
	env = gp_value_object();
	GP_TRY(gp_obj_set(page, "env", env));
	GP_TRY(set_generated(env));
	doc = gp_value_object();
	GP_TRY(gp_obj_set(page, "doc", doc));
	GP_TRY(gp_obj_set(doc, "series", gp_value_clone(series)));
	*out = page;
	return 0;
out:
	gp_value_free(page);
	return rc;
}

GP_API int gp_report_history_html(const struct gp_value *series, const char *title, char **out,
                                  size_t *len)
{
	struct gp_value *page = NULL;
	size_t i;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_report_history_html: NULL argument");
	*out = NULL;
	if (len)
		*len = 0;
	if (gp_value_type(series) != GP_VALUE_ARRAY)
		return gp__error(GP_EINVAL, "gp_report_history_html: the series are not an array");
	for (i = 0; i < gp_value_len(series); i++)
		if (gp_value_type(gp_arr_get(series, i)) != GP_VALUE_OBJECT)
			return gp__error(GP_EINVAL,
			                 "gp_report_history_html: series %zu is not an object", i);
	/* an error building the model is in gp_last_error() already */
	rc = history_page(series, title, &page);
	if (rc == 0)
		rc = gp_report_html(page, out, len);
	gp_value_free(page);
	return rc;
}
