/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - the report page's escaping, one test per context (HTML
 * text, a double-quoted attribute, JSON inside a script element), and the
 * page around a page model with hostile strings: they come out as text, the
 * data parses back to the same value, and nothing but the two script
 * elements of the page is a script. Then gp_report_history_html(), the
 * history page of a hand-built series list (gp_history_changes()'s shape with
 * points): markup in its metric, testbed, commit and title stays text, the
 * embedded data parses back to exactly the series given, the page is the
 * report's (its CSP, its stylesheet, the history view in its one script, the
 * generation time in the header), an empty list makes a page, what is not a
 * list of series is refused. t0765 opens such pages in Chromium.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "gpuprof/report.h"
#include "report/html.h"
#include "util/buf.h"

static const char evil[] = "</script><script>alert(1)</script>";

static char *esc(int (*fn)(struct gp_buf *, const char *, size_t), const char *s, size_t n)
{
	struct gp_buf b;
	char *out;

	gp__buf_init(&b, 0);
	assert_int_equal(fn(&b, s, n), 0);
	out = gp__buf_detach(&b, NULL);
	return out;
}

static void test_text(void **state)
{
	char *s;

	(void)state;
	s = esc(gp__html_text, evil, strlen(evil));
	assert_string_equal(s, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
	gp_free(s);
	s = esc(gp__html_text, "a&b \"q\" 'x' <!-- -->", 20);
	assert_string_equal(s, "a&amp;b &quot;q&quot; &#39;x&#39; &lt;!-- --&gt;");
	gp_free(s);
	/* valid UTF-8 is kept, newlines and tabs too (text) */
	s = esc(gp__html_text, "\xc2\xb5s\tline\n", 9);
	assert_string_equal(s, "\xc2\xb5s\tline\n");
	gp_free(s);
	/* invalid UTF-8 (a lone continuation, an overlong '<', a surrogate, a cut sequence) and
	 * control characters become U+FFFD, one per bad byte */
	s = esc(gp__html_text,
	        "a\x80"
	        "b\xc0\xbc"
	        "c\xed\xa0\x80"
	        "d\x01\x7f\xe2\x82",
	        14);
	assert_string_equal(s, "a\xef\xbf\xbd"
	                       "b\xef\xbf\xbd\xef\xbf\xbd"
	                       "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	                       "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	gp_free(s);
	/* a NUL inside the length is replaced, not a terminator */
	s = esc(gp__html_text, "x\0y", 3);
	assert_string_equal(s, "x\xef\xbf\xbdy");
	gp_free(s);
	s = esc(gp__html_text, "", 0);
	assert_string_equal(s, "");
	gp_free(s);
}

static void test_attr(void **state)
{
	char *s;

	(void)state;
	s = esc(gp__html_attr, "\" onmouseover=\"alert(1)", 23);
	assert_string_equal(s, "&quot; onmouseover=&quot;alert(1)");
	gp_free(s);
	s = esc(gp__html_attr, "' x='1", 6);
	assert_string_equal(s, "&#39; x=&#39;1");
	gp_free(s);
	/* whitespace as references, so the value reads back exactly */
	s = esc(gp__html_attr, "a\tb\nc\rd", 7);
	assert_string_equal(s, "a&#9;b&#10;c&#13;d");
	gp_free(s);
	s = esc(gp__html_attr, "\xe2\x80\xa8&\xff", 5);
	assert_string_equal(s, "\xe2\x80\xa8&amp;\xef\xbf\xbd");
	gp_free(s);
}

static void test_script_json(void **state)
{
	struct gp_value *v, *back = NULL;
	char *json, *s;
	size_t len;

	(void)state;
	v = gp_value_object();
	assert_int_equal(gp_obj_set_str(v, "k", evil), 0);
	assert_int_equal(gp_obj_set_str(v, "c", "<!-- a & b > c \xe2\x80\xa8\xe2\x80\xa9 \xc2\xb5"),
	                 0);
	assert_int_equal(gp_value_to_json(v, 0, &json, &len), 0);
	s = esc(gp__html_script_json, json, len);
	assert_null(strchr(s, '<'));
	assert_null(strchr(s, '>'));
	assert_null(strchr(s, '&'));
	assert_null(strstr(s, "\xe2\x80\xa8"));
	assert_null(strstr(s, "\xe2\x80\xa9"));
	assert_non_null(strstr(s, "\\u003c/script\\u003e"));
	assert_non_null(strstr(s, "\\u2028\\u2029 \xc2\xb5"));
	/* JSON.parse gives the same value back */
	assert_int_equal(gp_value_parse(s, strlen(s), &back, NULL), 0);
	assert_string_equal(gp_value_get_str(gp_obj_get(back, "k")), evil);
	assert_string_equal(gp_value_get_str(gp_obj_get(back, "c")),
	                    "<!-- a & b > c \xe2\x80\xa8\xe2\x80\xa9 \xc2\xb5");
	gp_value_free(back);
	gp_free(s);
	gp_free(json);
	gp_value_free(v);

	/* invalid UTF-8 inside a string becomes the escape of U+FFFD: still valid JSON */
	s = esc(gp__html_script_json, "{\"a\":\"x\xc3(y\"}", 12);
	assert_string_equal(s, "{\"a\":\"x\\ufffd(y\"}");
	assert_int_equal(gp_value_parse(s, strlen(s), &back, NULL), 0);
	assert_string_equal(gp_value_get_str(gp_obj_get(back, "a")), "x\xef\xbf\xbd(y");
	gp_value_free(back);
	gp_free(s);
}

/* a page model with hostile strings everywhere the header shows them */
static struct gp_value *evil_page(void)
{
	struct gp_value *p = gp_value_object(), *env, *doc, *tags, *gpus, *in;

	assert_int_equal(gp_obj_set_str(p, "schema", GP_PAGE_SCHEMA), 0);
	assert_int_equal(gp_obj_set_str(p, "kind", "analyze"), 0);
	assert_int_equal(gp_obj_set_str(p, "title", evil), 0);
	assert_int_equal(gp_obj_set(p, "inputs", in = gp_value_array()), 0);
	assert_int_equal(gp_arr_push(in, gp_value_str("/tmp/\"><img src=x onerror=alert(1)>.json")),
	                 0);
	assert_int_equal(gp_obj_set(p, "env", env = gp_value_object()), 0);
	assert_int_equal(gp_obj_set_str(env, "host", "<b>host</b>"), 0);
	assert_int_equal(gp_obj_set_str(env, "command", "python -c 'print(\"</script>\")'"), 0);
	assert_int_equal(gp_obj_set_null(env, "driver_version"), 0);
	assert_int_equal(gp_obj_set(env, "gpus", gpus = gp_value_array()), 0);
	assert_int_equal(gp_arr_push(gpus, gp_value_str("0: <svg onload=alert(1)>")), 0);
	assert_int_equal(gp_obj_set(env, "tags", tags = gp_value_object()), 0);
	assert_int_equal(gp_obj_set_str(tags, "k\"x", "v<&>"), 0);
	assert_int_equal(gp_obj_set(p, "doc", doc = gp_value_object()), 0);
	assert_int_equal(gp_obj_set_str(doc, "kernel", evil), 0);
	return p;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static const char DATA_OPEN[] = "<script type=\"application/json\" id=\"gp-data\">";

/* the value of the gp-data element of page @p html */
static struct gp_value *page_data(const char *html)
{
	const char *data = strstr(html, DATA_OPEN), *end;
	struct gp_value *v = NULL;

	assert_non_null(data);
	data += strlen(DATA_OPEN);
	end = strstr(data, "</script>");
	assert_non_null(end);
	assert_int_equal(gp_value_parse(data, (size_t)(end - data), &v, NULL), 0);
	return v;
}

static void test_page(void **state)
{
	struct gp_value *p = evil_page(), *back;
	char *html = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(gp_report_html(p, &html, &len), 0);
	assert_int_equal(strlen(html), len);
	assert_non_null(strstr(html, "<!DOCTYPE html>"));
	assert_non_null(strstr(html, "Content-Security-Policy"));
	assert_non_null(strstr(html, "default-src 'none'"));
	/* the page's own two script elements and nothing else */
	assert_int_equal(count(html, "<script"), 2);
	assert_int_equal(count(html, "</script>"), 2);
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<svg onload"));
	assert_null(strstr(html, "<b>host"));
	/* text, attribute and title contexts */
	assert_non_null(strstr(html, "<title>gpuprof report: &lt;/script&gt;&lt;script&gt;"));
	assert_non_null(strstr(html, "title=\"&lt;/script&gt;&lt;script&gt;alert(1)"));
	assert_non_null(
	    strstr(html, "title=\"/tmp/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.json\""));
	assert_non_null(strstr(html, "data-key=\"k&quot;x\">k&quot;x=v&lt;&amp;&gt;</span>"));
	assert_non_null(
	    strstr(html, "<code>python -c &#39;print(&quot;&lt;/script&gt;&quot;)&#39;</code>"));
	/* what is unknown is left out, not shown as "-" */
	assert_null(strstr(html, "data-env=\"driver_version\""));
	/* the data element parses back to the page model */
	back = page_data(html);
	assert_string_equal(gp_value_get_str(gp_value_path(back, "doc/kernel")), evil);
	assert_string_equal(gp_value_get_str(gp_value_path(back, "env/host")), "<b>host</b>");
	gp_value_free(back);
	gp_free(html);
	gp_value_free(p);
}

static void test_not_a_page(void **state)
{
	struct gp_value *p = gp_value_object();
	char *html = (char *)1;
	size_t len = 1;

	(void)state;
	assert_int_equal(gp_report_html(p, &html, &len), GP_EINVAL);
	assert_null(html);
	assert_int_equal(len, 0);
	assert_int_equal(gp_obj_set_str(p, "schema", GP_PAGE_SCHEMA), 0);
	assert_int_equal(gp_obj_set_str(p, "kind", "aggregate?"), 0);
	assert_int_equal(gp_obj_set(p, "doc", gp_value_object()), 0);
	assert_int_equal(gp_report_html(p, &html, &len), GP_EINVAL);
	assert_int_equal(gp_report_html(NULL, &html, &len), GP_EINVAL);
	/* a page model whose header fields have the wrong types still draws: unknown */
	assert_int_equal(gp_obj_set_str(p, "kind", "bench"), 0);
	assert_int_equal(gp_obj_set(p, "env", gp_value_object()), 0);
	assert_int_equal(gp_obj_set(p, "title", gp_value_int(3)), 0);
	assert_int_equal(gp_obj_set(p, "inputs", gp_value_object()), 0);
	{
		struct gp_value *env = (struct gp_value *)gp_obj_get(p, "env"), *tags;

		assert_int_equal(gp_obj_set(env, "tags", tags = gp_value_array()), 0);
		assert_int_equal(gp_arr_push(tags, gp_value_int(1)), 0);
		assert_int_equal(gp_obj_set(env, "gpus", gp_value_object()), 0);
	}
	assert_int_equal(gp_report_html(p, &html, &len), 0);
	assert_null(strstr(html, "data-env=\"host\""));
	assert_null(strstr(html, "data-env=\"gpus\""));
	assert_non_null(strstr(html, "data-env=\"gpuprof_version\""));
	assert_null(strstr(html, "data-env=\"tags\""));
	gp_free(html);
	gp_value_free(p);
}

/* the header's date as a person reads it; the exact value in its title; anything else as it is */
static void test_date(void **state)
{
	static const struct {
		const char *in, *shown;
	} cases[] = {
		{ "2026-11-27T14:12:15.789516882Z", ">2026-11-27 14:12:15 UTC</dd>" },
		{ "2026-11-27T14:10:52Z", ">2026-11-27 14:10:52 UTC</dd>" },
		{ "2026-11-27T14:10:52+01:00", ">2026-11-27T14:10:52+01:00</dd>" },
		{ "2026-11-27T14:10:5<b>Z", ">2026-11-27T14:10:5&lt;b&gt;Z</dd>" },
		{ "yesterday", ">yesterday</dd>" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_value *p = evil_page();
		struct gp_value *env = (struct gp_value *)gp_obj_get(p, "env");
		char *html = NULL;

		assert_int_equal(gp_obj_set_str(env, "date", cases[i].in), 0);
		assert_int_equal(gp_report_html(p, &html, NULL), 0);
		assert_non_null(strstr(html, cases[i].shown));
		gp_free(html);
		gp_value_free(p);
	}
}

/*
 * Renders @p v with @p render and the Nth allocation failing, N = 1, 2, ...
 * until it passes: each failure is GP_ENOMEM with no page, never a crash or
 * a leak (ASan).
 */
static void alloc_failures(int (*render)(const struct gp_value *, char **, size_t *),
                           const struct gp_value *v)
{
	char *html = NULL;
	size_t len;
	long n;
	int rc;

	for (n = 1; n < 2000; n++) {
		gp__test_fail_alloc_after(n);
		rc = render(v, &html, &len);
		gp__test_fail_alloc_after(-1);
		if (rc == 0) {
			gp_free(html);
			break;
		}
		assert_int_equal(rc, GP_ENOMEM);
		assert_null(html);
	}
	/* some allocation failed before one run passed */
	assert_true(n > 1 && n < 2000);
}

static void test_page_alloc_failures(void **state)
{
	struct gp_value *p = evil_page();

	(void)state;
	alloc_failures(gp_report_html, p);
	gp_value_free(p);
}

static struct gp_value *point(int64_t run, int64_t t, const char *commit, double v,
                              const char *noise)
{
	struct gp_value *p = gp_value_object();

	assert_int_equal(gp_obj_set_int(p, "run_id", run), 0);
	assert_int_equal(gp_obj_set_int(p, "time_ns", t), 0);
	assert_int_equal(gp_obj_set_str(p, "commit", commit), 0);
	assert_int_equal(gp_obj_set_null(p, "branch"), 0);
	assert_int_equal(gp_obj_set_double(p, "value", v), 0);
	assert_int_equal(gp_obj_set_bool(p, "noisy", noise != NULL), 0);
	assert_int_equal(gp_obj_set_str(p, "noise_reason", noise), 0);
	assert_int_equal(gp_obj_set_null(p, "source"), 0);
	return p;
}

static struct gp_value *stats(double mean, double sd, int64_t n)
{
	struct gp_value *o = gp_value_object();

	assert_int_equal(gp_obj_set_double(o, "mean", mean), 0);
	assert_int_equal(gp_obj_set_double(o, "sd", sd), 0);
	assert_int_equal(gp_obj_set_int(o, "n", n), 0);
	return o;
}

/*
 * A series of @p n points of step_time_ns with a 3 % step at n / 2 and one
 * noisy point, its metric, testbed and every commit carrying markup.
 */
static struct gp_value *series_step(size_t n)
{
	struct gp_value *s = gp_value_object(), *pts, *chs, *c, *last;
	size_t i, at = n / 2;

	assert_int_equal(gp_obj_set_str(s, "metric", "step_time<b>&\"q'_ns"), 0);
	assert_int_equal(gp_obj_set_str(s, "testbed", "host=<img src=x>;gpu=H100 x1"), 0);
	assert_int_equal(gp_obj_set_str(s, "unit", "ns"), 0);
	assert_int_equal(gp_obj_set_str(s, "better", "lower"), 0);
	assert_int_equal(gp_obj_set_int(s, "count", (int64_t)n), 0);
	assert_int_equal(gp_obj_set_int(s, "clean", (int64_t)n - 1), 0);
	assert_int_equal(gp_obj_set_int(s, "noisy", 1), 0);
	assert_int_equal(gp_obj_set_double(s, "noise", 0.004), 0);
	assert_int_equal(gp_obj_set_double(s, "threshold", 0.02), 0);
	assert_int_equal(gp_obj_set_bool(s, "unstable", false), 0);
	assert_int_equal(gp_obj_set(s, "points", pts = gp_value_array()), 0);
	for (i = 0; i < n; i++) {
		char commit[64];

		snprintf(commit, sizeof(commit), "%s%zu", i % 2 ? evil : "abcdef0123456789", i);
		assert_int_equal(
		    gp_arr_push(pts, point((int64_t)i + 1,
		                           1790000000000000000LL + (int64_t)i * 86400000000000LL,
		                           commit, i >= at ? 1.03e6 : 1.0e6,
		                           i == 3 ? "throttled <power_cap>" : NULL)),
		    0);
	}
	assert_int_equal(gp_obj_set(s, "changes", chs = gp_value_array()), 0);
	assert_int_equal(gp_arr_push(chs, c = gp_value_object()), 0);
	assert_int_equal(gp_obj_set_str(c, "kind", "step"), 0);
	assert_int_equal(gp_obj_set_int(c, "index", (int64_t)at), 0);
	assert_int_equal(gp_obj_set_int(c, "run_id", (int64_t)at + 1), 0);
	assert_int_equal(gp_obj_set_str(c, "commit", evil), 0);
	assert_int_equal(gp_obj_set_int(c, "time_ns", 1790000000000000000LL), 0);
	assert_int_equal(gp_obj_set(c, "before", stats(1.0e6, 3e3, 30)), 0);
	assert_int_equal(gp_obj_set(c, "after", stats(1.03e6, 3.1e3, 30)), 0);
	assert_int_equal(gp_obj_set_double(c, "rel_change", 0.03), 0);
	assert_int_equal(gp_obj_set_double(c, "magnitude", 0.03), 0);
	assert_int_equal(gp_obj_set_double(c, "pvalue", 1e-9), 0);
	assert_int_equal(gp_obj_set_double(c, "steppiness", 0.9), 0);
	assert_int_equal(gp_obj_set_bool(c, "regression", true), 0);
	assert_int_equal(gp_obj_set(s, "last", last = gp_value_object()), 0);
	assert_int_equal(gp_obj_set_int(last, "run_id", (int64_t)n), 0);
	assert_int_equal(gp_obj_set_str(last, "commit", evil), 0);
	assert_int_equal(gp_obj_set_double(last, "value", 1.03e6), 0);
	return s;
}

/* a series of one point, no commit, unstable */
static struct gp_value *series_one(void)
{
	struct gp_value *s = gp_value_object(), *pts;

	assert_int_equal(gp_obj_set_str(s, "metric", "throughput.items_per_s"), 0);
	assert_int_equal(gp_obj_set_str(s, "testbed", "csv"), 0);
	assert_int_equal(gp_obj_set_str(s, "unit", "/s"), 0);
	assert_int_equal(gp_obj_set_str(s, "better", "higher"), 0);
	assert_int_equal(gp_obj_set_int(s, "count", 1), 0);
	assert_int_equal(gp_obj_set_null(s, "noise"), 0);
	assert_int_equal(gp_obj_set_bool(s, "unstable", true), 0);
	assert_int_equal(gp_obj_set(s, "changes", gp_value_array()), 0);
	assert_int_equal(gp_obj_set(s, "points", pts = gp_value_array()), 0);
	assert_int_equal(gp_arr_push(pts, point(1, 0, NULL, 12.5, NULL)), 0);
	return s;
}

static void test_history_page(void **state)
{
	struct gp_value *list = gp_value_array(), *back;
	char *html = NULL, *json_in = NULL, *json_back = NULL;
	size_t len = 0, n1, n2;

	(void)state;
	assert_int_equal(gp_arr_push(list, series_step(40)), 0);
	assert_int_equal(gp_arr_push(list, series_one()), 0);
	assert_int_equal(gp_report_history_html(list, "db <\"x\">.sqlite", &html, &len), 0);
	assert_int_equal(strlen(html), len);
	/* the report's page: one CSP that fetches nothing, two script elements, its stylesheet */
	assert_non_null(strstr(html, "<!DOCTYPE html>"));
	assert_int_equal(count(html, "Content-Security-Policy"), 1);
	assert_non_null(strstr(html, "default-src 'none'"));
	assert_int_equal(count(html, "<script"), 2);
	assert_int_equal(count(html, "</script>"), 2);
	assert_non_null(strstr(html, ".gp-env {"));
	assert_non_null(strstr(html, "<body data-gp-kind=\"history\">"));
	/* the history view is in the script, and report.js after it */
	assert_non_null(strstr(html, "var gpHistory = function"));
	assert_true(strstr(html, "var gpHistory = function") < strstr(html, "report.js - draws"));
	/* markup in the data never appears raw */
	assert_null(strstr(html, evil));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<b>&"));
	assert_null(strstr(html, "<power_cap>"));
	/* the title in the title element, the heading and its attribute, escaped */
	assert_non_null(
	    strstr(html, "<title>gpuprof report: db &lt;&quot;x&quot;&gt;.sqlite</title>"));
	assert_non_null(
	    strstr(html, "title=\"db &lt;&quot;x&quot;&gt;.sqlite\">db &lt;&quot;x&quot;"));
	/* when it was made, no Input row (the title names the database) */
	assert_non_null(strstr(html, "<dt>Generated</dt><dd data-env=\"generated\" title=\""));
	assert_null(strstr(html, "data-env=\"inputs\""));
	/* the data is the series, value for value */
	back = page_data(html);
	assert_string_equal(gp_value_get_str(gp_obj_get(back, "schema")), GP_PAGE_SCHEMA);
	assert_string_equal(gp_value_get_str(gp_obj_get(back, "kind")), "history");
	assert_string_equal(gp_value_get_str(gp_obj_get(back, "title")), "db <\"x\">.sqlite");
	assert_int_equal(gp_value_to_json(list, 0, &json_in, &n1), 0);
	assert_int_equal(gp_value_to_json(gp_value_path(back, "doc/series"), 0, &json_back, &n2),
	                 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(json_in, json_back, n1);
	assert_string_equal(gp_value_get_str(gp_obj_get(
	                        gp_arr_get(gp_value_path(back, "doc/series"), 0), "metric")),
	                    "step_time<b>&\"q'_ns");
	gp_free(json_in);
	gp_free(json_back);
	gp_value_free(back);
	gp_free(html);
	/* a NULL title is "history"; len may be NULL */
	assert_int_equal(gp_report_history_html(list, NULL, &html, NULL), 0);
	assert_non_null(strstr(html, "<title>gpuprof report: history</title>"));
	gp_free(html);
	gp_value_free(list);
}

/* no series: still a page, with an empty list in its data */
static void test_history_empty(void **state)
{
	struct gp_value *list = gp_value_array(), *back;
	char *html = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(gp_report_history_html(list, "empty", &html, &len), 0);
	assert_true(len > 0);
	back = page_data(html);
	assert_int_equal(gp_value_type(gp_value_path(back, "doc/series")), GP_VALUE_ARRAY);
	assert_int_equal(gp_value_len(gp_value_path(back, "doc/series")), 0);
	gp_value_free(back);
	gp_free(html);
	gp_value_free(list);
}

static void test_history_not_series(void **state)
{
	struct gp_value *o = gp_value_object(), *a = gp_value_array();
	char *html = (char *)1;
	size_t len = 1;

	(void)state;
	assert_int_equal(gp_report_history_html(o, NULL, &html, &len), GP_EINVAL);
	assert_null(html);
	assert_int_equal(len, 0);
	assert_int_equal(gp_report_history_html(NULL, NULL, &html, &len), GP_EINVAL);
	assert_int_equal(gp_report_history_html(o, NULL, NULL, NULL), GP_EINVAL);
	assert_int_equal(gp_arr_push(a, gp_value_int(3)), 0);
	assert_int_equal(gp_report_history_html(a, NULL, &html, &len), GP_EINVAL);
	assert_non_null(strstr(gp_last_error(), "series 0 is not an object"));
	assert_null(html);
	gp_value_free(a);
	gp_value_free(o);
}

static int history_page(const struct gp_value *series, char **out, size_t *len)
{
	return gp_report_history_html(series, "t", out, len);
}

static void test_history_alloc_failures(void **state)
{
	struct gp_value *list = gp_value_array();

	(void)state;
	assert_int_equal(gp_arr_push(list, series_step(6)), 0);
	alloc_failures(history_page, list);
	gp_value_free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_script_json),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_not_a_page),
		cmocka_unit_test(test_page_alloc_failures),
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_history_page),
		cmocka_unit_test(test_history_empty),
		cmocka_unit_test(test_history_not_series),
		cmocka_unit_test(test_history_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
