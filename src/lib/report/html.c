/* SPDX-License-Identifier: MIT */
/*
 * html.c - the report page: a page model (load.c) as one HTML document.
 *
 * The page is static HTML for the environment header (escaped here, so the
 * header reads even without JavaScript), the page model as JSON in a
 * <script type="application/json"> element, and the embedded stylesheet and
 * script (assets/report.css, assets/perf.js, assets/memory.js, assets/memsnap.js,
 * on a history page assets/history.js, and assets/report.js in one script
 * element), which draw every other
 * section from that JSON with DOM calls (textContent, setAttribute), never
 * by parsing strings as HTML. A Content-Security-Policy allows inline style
 * and script and data: images only: the page can fetch nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "gpuprof/report.h"
#include "html.h"
#include "report-int.h"
#include "util/buf.h"
#include "util/error.h"

/*
 * The length of the valid UTF-8 sequence at p[0..n) and its code point, or 0
 * when it is not one (overlong forms, surrogates and values past U+10FFFF
 * are not).
 */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		c = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

static int html_escape(struct gp_buf *b, const char *s, size_t n, bool attr)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, len;
	uint32_t cp;
	int rc = 0;

	/* copies the safe run p[run..i) before each byte that needs a change */
	while (i < n) {
		const char *rep = NULL;

		len = utf8_seq(p + i, n - i, &cp);
		if (len == 0)
			rep = replacement;
		else if (cp == '&')
			rep = "&amp;";
		else if (cp == '<')
			rep = "&lt;";
		else if (cp == '>')
			rep = "&gt;";
		else if (cp == '"')
			rep = "&quot;";
		else if (cp == '\'')
			rep = "&#39;";
		else if (cp == '\t' || cp == '\n' || cp == '\r')
			rep = attr ? (cp == '\t' ? "&#9;" : cp == '\n' ? "&#10;" : "&#13;") : NULL;
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			rep = replacement;
		if (!rep) {
			i += len;
			continue;
		}
		GP_TRY(gp__buf_add(b, s + run, i - run));
		GP_TRY(gp__buf_addstr(b, rep));
		i += len ? len : 1;
		run = i;
	}
	rc = gp__buf_add(b, s + run, i - run);
out:
	return rc;
}

int gp__html_text(struct gp_buf *b, const char *s, size_t n)
{
	return html_escape(b, s, n, false);
}

int gp__html_attr(struct gp_buf *b, const char *s, size_t n)
{
	return html_escape(b, s, n, true);
}

int gp__html_script_json(struct gp_buf *b, const char *json, size_t n)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t i = 0, run = 0, len;
	uint32_t cp;
	int rc = 0;

	while (i < n) {
		const char *rep = NULL;

		if (p[i] == '<')
			rep = "\\u003c";
		else if (p[i] == '>')
			rep = "\\u003e";
		else if (p[i] == '&')
			rep = "\\u0026";
		else if (p[i] >= 0x80) {
			/* only inside strings: the JSON writer writes nothing else above ASCII */
			len = utf8_seq(p + i, n - i, &cp);
			if (len == 0)
				rep = "\\ufffd";
			else if (cp == 0x2028)
				rep = "\\u2028";
			else if (cp == 0x2029)
				rep = "\\u2029";
			else {
				i += len;
				continue;
			}
			GP_TRY(gp__buf_add(b, json + run, i - run));
			GP_TRY(gp__buf_addstr(b, rep));
			i += len ? len : 1;
			run = i;
			continue;
		}
		if (!rep) {
			i++;
			continue;
		}
		GP_TRY(gp__buf_add(b, json + run, i - run));
		GP_TRY(gp__buf_addstr(b, rep));
		run = ++i;
	}
	rc = gp__buf_add(b, json + run, i - run);
out:
	return rc;
}

static int text(struct gp_buf *b, const char *s)
{
	return gp__html_text(b, s, strlen(s));
}

static int attr(struct gp_buf *b, const char *s)
{
	return gp__html_attr(b, s, strlen(s));
}

/*
 * <div><dt>LABEL</dt><dd data-env="KEY">VALUE</dd></div> for a string field of
 * env; nothing where it is unknown (a bench result has no GPU, a compare no host)
 */
static int env_row(struct gp_buf *b, const struct gp_value *env, const char *key, const char *label,
                   bool code)
{
	const char *v = gp_value_get_str(gp_obj_get(env, key));
	int rc = 0;

	if (!v)
		return 0;
	GP_TRY(gp__buf_addf(b, "<div%s><dt>%s</dt><dd data-env=\"%s\">",
	                    code ? " class=\"gp-wide\"" : "", label, key));
	if (code)
		GP_TRY(gp__buf_addstr(b, "<code>"));
	GP_TRY(text(b, v));
	if (code)
		GP_TRY(gp__buf_addstr(b, "</code>"));
	rc = gp__buf_addstr(b, "</dd></div>\n");
out:
	return rc;
}

/*
 * The Date row: an RFC 3339 UTC time ("2026-11-27T14:12:15.789516882Z", as
 * run.json and bench write it) as a person reads it, "2026-11-27 14:12:15
 * UTC"; anything else as it is. The exact value stays in the title.
 */
static int date_row(struct gp_buf *b, const struct gp_value *env, const char *key,
                    const char *label)
{
	const char *v = gp_value_get_str(gp_obj_get(env, key));
	size_t n = v ? strlen(v) : 0;
	int rc = 0;

	if (!v)
		return 0;
	GP_TRY(gp__buf_addf(b, "<div><dt>%s</dt><dd data-env=\"%s\" title=\"", label, key));
	GP_TRY(attr(b, v));
	GP_TRY(gp__buf_addstr(b, "\">"));
	if (n >= 20 && v[10] == 'T' && v[n - 1] == 'Z' && v[13] == ':' && v[16] == ':' &&
	    (n == 20 || v[19] == '.')) {
		GP_TRY(gp__html_text(b, v, 10));
		GP_TRY(gp__buf_addch(b, ' '));
		GP_TRY(gp__html_text(b, v + 11, 8));
		GP_TRY(gp__buf_addstr(b, " UTC"));
	} else {
		GP_TRY(text(b, v));
	}
	rc = gp__buf_addstr(b, "</dd></div>\n");
out:
	return rc;
}

void gp__base_name(const char *path, const char **base, size_t *n)
{
	size_t len = strlen(path);
	const char *p;

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (p = path + len; p > path && p[-1] != '/'; p--)
		;
	*base = p;
	*n = (size_t)(path + len - p);
}

/* the Input row: each input's file name, its whole path in the title */
static int inputs_row(struct gp_buf *b, const struct gp_value *inputs)
{
	size_t i;
	int rc = 0;

	GP_TRY(gp__buf_addstr(b, "<div class=\"gp-wide\"><dt>Input</dt><dd data-env=\"inputs\">"));
	for (i = 0; i < gp_value_len(inputs); i++) {
		const char *p = gp_value_get_str(gp_arr_get(inputs, i)), *base;
		size_t n;

		if (!p)
			continue;
		gp__base_name(p, &base, &n);
		GP_TRY(gp__buf_addstr(b, "<span class=\"gp-path\" title=\""));
		GP_TRY(attr(b, p));
		GP_TRY(gp__buf_addstr(b, "\">"));
		GP_TRY(gp__html_text(b, base, n));
		GP_TRY(gp__buf_addstr(b, "</span> "));
	}
	rc = gp__buf_addstr(b, "</dd></div>\n");
out:
	return rc;
}

/* the header: what this is and where it came from, readable without JavaScript */
static int header(struct gp_buf *b, const struct gp_value *page)
{
	const struct gp_value *env = gp_obj_get(page, "env");
	const struct gp_value *gpus = gp_obj_get(env, "gpus"), *tags = gp_obj_get(env, "tags");
	const struct gp_value *inputs = gp_obj_get(page, "inputs");
	const char *title = gp_value_get_str(gp_obj_get(page, "title"));
	const char *kind = gp_value_get_str(gp_obj_get(page, "kind"));
	const char *src = gp_value_get_str(gp_obj_get(env, "source_version"));
	size_t i;
	int rc = 0;

	GP_TRY(gp__buf_addstr(b,
	                      "<header id=\"gp-env\" class=\"gp-env\">\n"
	                      "<div class=\"gp-brand\">gpuprof report <span class=\"gp-kind\">"));
	GP_TRY(text(b, kind));
	GP_TRY(gp__buf_addstr(b, "</span></div>\n<h1 id=\"gp-title\" title=\""));
	GP_TRY(attr(b, title ? title : ""));
	GP_TRY(gp__buf_addstr(b, "\">"));
	GP_TRY(text(b, title ? title : ""));
	GP_TRY(gp__buf_addstr(b, "</h1>\n<dl class=\"gp-envlist\">\n"));
	GP_TRY(env_row(b, env, "host", "Host", false));
	if (gp_value_type(gpus) == GP_VALUE_ARRAY && gp_value_len(gpus)) {
		GP_TRY(gp__buf_addstr(b, "<div><dt>GPUs</dt><dd data-env=\"gpus\">"));
		for (i = 0; i < gp_value_len(gpus); i++) {
			const char *g = gp_value_get_str(gp_arr_get(gpus, i));

			if (!g)
				continue;
			GP_TRY(gp__buf_addstr(b, "<span class=\"gp-gpu\">"));
			GP_TRY(text(b, g));
			GP_TRY(gp__buf_addstr(b, "</span>"));
		}
		GP_TRY(gp__buf_addstr(b, "</dd></div>\n"));
	}
	GP_TRY(env_row(b, env, "driver_version", "Driver", false));
	GP_TRY(env_row(b, env, "cuda_version", "CUDA", false));
	GP_TRY(env_row(b, env, "hip_version", "HIP", false));
	GP_TRY(env_row(b, env, "command", "Command", true));
	GP_TRY(date_row(b, env, "date", "Date"));
	/* a history page: when it was made (its series have their own times) */
	GP_TRY(date_row(b, env, "generated", "Generated"));
	/* a run directory without a capture: how the run ended, why no GPU timeline */
	GP_TRY(env_row(b, env, "run_end", "Run", false));
	GP_TRY(env_row(b, env, "no_gpu_timeline", "No GPU timeline", true));
	/* a history page's input is a database, which its title names */
	if (!kind || strcmp(kind, "history") != 0)
		GP_TRY(inputs_row(b, inputs));
	if (gp_value_type(tags) == GP_VALUE_OBJECT && gp_value_len(tags)) {
		GP_TRY(gp__buf_addstr(b, "<div><dt>Tags</dt><dd data-env=\"tags\">"));
		for (i = 0; i < gp_value_len(tags); i++) {
			const char *k = gp_obj_key_at(tags, i);
			const char *v = gp_value_get_str(gp_obj_value_at(tags, i));

			if (!k)
				continue;
			GP_TRY(gp__buf_addstr(b, "<span class=\"gp-tag\" data-key=\""));
			GP_TRY(attr(b, k));
			GP_TRY(gp__buf_addstr(b, "\">"));
			GP_TRY(text(b, k));
			GP_TRY(gp__buf_addch(b, '='));
			GP_TRY(text(b, v ? v : "-"));
			GP_TRY(gp__buf_addstr(b, "</span> "));
		}
		GP_TRY(gp__buf_addstr(b, "</dd></div>\n"));
	}
	GP_TRY(gp__buf_addstr(b, "<div><dt>gpuprof</dt><dd data-env=\"gpuprof_version\">"));
	GP_TRY(text(b, gp_version()));
	if (src && strcmp(src, gp_version()) != 0) {
		GP_TRY(gp__buf_addstr(b, " (input written by "));
		GP_TRY(text(b, src));
		GP_TRY(gp__buf_addch(b, ')'));
	}
	rc = gp__buf_addstr(b, "</dd></div>\n</dl>\n</header>\n");
out:
	return rc;
}

GP_API int gp_report_html(const struct gp_value *page, char **out, size_t *len)
{
	const char *schema = gp_value_get_str(gp_obj_get(page, "schema"));
	const char *kind = gp_value_get_str(gp_obj_get(page, "kind"));
	const char *title = gp_value_get_str(gp_obj_get(page, "title"));
	bool history = kind && !strcmp(kind, "history");
	struct gp_buf b;
	char *json = NULL;
	size_t jlen = 0;
	int rc = 0;

	if (!out)
		return gp__error(GP_EINVAL, "gp_report_html: NULL argument");
	*out = NULL;
	if (len)
		*len = 0;
	if (!schema || strcmp(schema, GP_PAGE_SCHEMA) != 0 || !kind ||
	    (strcmp(kind, "analyze") && strcmp(kind, "bench") && strcmp(kind, "compare") &&
	     strcmp(kind, "aggregate") && strcmp(kind, "memsnap") && strcmp(kind, "history")) ||
	    gp_value_type(gp_obj_get(page, "doc")) != GP_VALUE_OBJECT)
		return gp__error(GP_EINVAL, "gp_report_html: not a page model (%s)",
		                 GP_PAGE_SCHEMA);
	gp__buf_init(&b, 0);
	GP_TRY(gp_value_to_json(page, 0, &json, &jlen));
	GP_TRY(gp__buf_grow(&b, jlen + gp__report_js_len + gp__report_perf_len +
	                            gp__report_mem_len + gp__report_memsnap_len +
	                            gp__report_css_len + gp__report_history_len + 8192));
	GP_TRY(gp__buf_addstr(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	                          "<meta charset=\"utf-8\">\n"
	                          "<meta name=\"viewport\" content=\"width=device-width, "
	                          "initial-scale=1\">\n"
	                          "<meta http-equiv=\"Content-Security-Policy\" "
	                          "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	                          "script-src 'unsafe-inline'; img-src 'none'\">\n"
	                          "<meta name=\"generator\" content=\"gpuprof "));
	GP_TRY(attr(&b, gp_version()));
	GP_TRY(gp__buf_addstr(&b, "\">\n<title>gpuprof report: "));
	GP_TRY(text(&b, title ? title : ""));
	GP_TRY(gp__buf_addstr(&b, "</title>\n<style>\n"));
	GP_TRY(gp__buf_add(&b, gp__report_css, gp__report_css_len));
	GP_TRY(gp__buf_addstr(&b, "</style>\n</head>\n<body data-gp-kind=\""));
	GP_TRY(attr(&b, kind));
	GP_TRY(gp__buf_addstr(&b, "\">\n"));
	GP_TRY(header(&b, page));
	GP_TRY(gp__buf_addstr(&b, "<nav id=\"gp-nav\" class=\"gp-nav\"></nav>\n"
	                          "<main id=\"gp-main\">\n<noscript><p class=\"gp-note\">The "
	                          "charts and tables of this report are drawn by its "
	                          "JavaScript: allow scripts for this file, or read the data "
	                          "in the gp-data element of its source.</p></noscript>\n"
	                          "</main>\n<div id=\"gp-error\" class=\"gp-error\" "
	                          "hidden></div>\n"
	                          "<script type=\"application/json\" id=\"gp-data\">"));
	GP_TRY(gp__html_script_json(&b, json, jlen));
	GP_TRY(gp__buf_addstr(&b, "</script>\n<script>\n"));
	GP_TRY(gp__buf_add(&b, gp__report_perf, gp__report_perf_len));
	GP_TRY(gp__buf_add(&b, gp__report_mem, gp__report_mem_len));
	GP_TRY(gp__buf_add(&b, gp__report_memsnap, gp__report_memsnap_len));
	/* the history view only where it is drawn: the other pages stay as they were */
	if (history)
		GP_TRY(gp__buf_add(&b, gp__report_history, gp__report_history_len));
	GP_TRY(gp__buf_add(&b, gp__report_js, gp__report_js_len));
	GP_TRY(gp__buf_addstr(&b, "</script>\n</body>\n</html>\n"));
	*out = gp__buf_detach(&b, len);
out:
	if (rc == GP_ENOMEM)
		gp__error(GP_ENOMEM, "out of memory writing the report page");
	gp_free(json);
	gp__buf_release(&b);
	return rc;
}
