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
 * A page is made series by series (gp_report_history_page_*): the memory it
 * takes is its text and one series, never every series' tree at once.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuprof/report.h"
#include "html.h"
#include "util/buf.h"
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

/* the page model with no series: doc {series: []} */
static int history_page(const char *title, struct gp_value **out)
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
	GP_TRY(gp_obj_set(doc, "series", gp_value_array()));
	*out = page;
	return 0;
out:
	gp_value_free(page);
	return rc;
}

/*
 * The page is made whole once with no series (html.c: its header, styles and
 * scripts), then cut where its data's series array opens: the text before
 * it, each series' JSON escaped as html.c escapes the data (so the bytes are
 * those of the page made with every series at once), then the text after.
 */
struct gp_report_history_page {
	struct gp_buf b; /* the page so far */
	char *rest;      /* the text after the series */
	size_t nrest, nseries;
};

/* where the data opens: keys sorted, "doc" first */
static const char data_open[] = "id=\"gp-data\">{\"doc\":{\"series\":[";

GP_API int gp_report_history_page_new(const char *title, struct gp_report_history_page **out)
{
	struct gp_report_history_page *pg = NULL;
	struct gp_value *page = NULL;
	char *html = NULL, *at;
	size_t len = 0;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_report_history_page_new: NULL argument");
	*out = NULL;
	rc = history_page(title, &page);
	if (rc) /* an error building the model is in gp_last_error() already */
		return rc == GP_ENOMEM ? gp__error(GP_ENOMEM, "out of memory") : rc;
	rc = gp_report_html(page, &html, &len);
	gp_value_free(page);
	if (rc)
		return rc;
	at = strstr(html, data_open);
	if (!at || at[sizeof(data_open) - 1] != ']') {
		gp_free(html);
		return gp__error(GP_EINVAL, "the history page has no series array to fill");
	}
	at += sizeof(data_open) - 1;
	pg = gp__calloc(1, sizeof(*pg));
	if (!pg || !(pg->rest = gp__strdup(at))) {
		gp__free(pg);
		gp_free(html);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	pg->nrest = len - (size_t)(at - html);
	gp__buf_init(&pg->b, 0);
	if (gp__buf_add(&pg->b, html, (size_t)(at - html))) {
		gp_free(html);
		gp_report_history_page_free(pg);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	gp_free(html);
	*out = pg;
	return 0;
}

GP_API int gp_report_history_page_add(struct gp_report_history_page *pg,
                                      const struct gp_value *series)
{
	char *json = NULL;
	size_t n = 0;
	int rc;

	if (!pg || gp_value_type(series) != GP_VALUE_OBJECT)
		return gp__error(GP_EINVAL,
		                 "gp_report_history_page_add: series %zu is not an object",
		                 pg ? pg->nseries : 0);
	rc = gp_value_to_json(series, 0, &json, &n);
	if (!rc && pg->nseries && gp__buf_addch(&pg->b, ','))
		rc = GP_ENOMEM;
	if (!rc)
		rc = gp__html_script_json(&pg->b, json, n);
	gp_free(json);
	if (rc)
		return gp__error(rc, "out of memory writing the report page");
	pg->nseries++;
	return 0;
}

GP_API int gp_report_history_page_finish(struct gp_report_history_page *pg, char **out, size_t *len)
{
	int rc = 0;

	if (!pg || !out) {
		gp_report_history_page_free(pg);
		return gp__error(GP_EINVAL, "gp_report_history_page_finish: NULL argument");
	}
	*out = NULL;
	if (gp__buf_add(&pg->b, pg->rest, pg->nrest) || !(*out = gp__buf_detach(&pg->b, len)))
		rc = gp__error(GP_ENOMEM, "out of memory writing the report page");
	gp_report_history_page_free(pg);
	return rc;
}

GP_API void gp_report_history_page_free(struct gp_report_history_page *pg)
{
	if (!pg)
		return;
	gp__buf_release(&pg->b);
	gp__free(pg->rest);
	gp__free(pg);
}

GP_API int gp_report_history_html(const struct gp_value *series, const char *title, char **out,
                                  size_t *len)
{
	struct gp_report_history_page *pg = NULL;
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
	rc = gp_report_history_page_new(title, &pg);
	for (i = 0; !rc && i < gp_value_len(series); i++)
		rc = gp_report_history_page_add(pg, gp_arr_get(series, i));
	if (rc) {
		gp_report_history_page_free(pg);
		return rc;
	}
	return gp_report_history_page_finish(pg, out, len);
}
