/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report.c - libFuzzer target for what `gpuprof report` reads and
 * writes: a gpuprof document (analyze, bench or compare JSON) made into a
 * page model (src/lib/report/load.c: the environment and Perfetto hints read
 * out of any tree) and drawn as HTML (html.c); any tree as the series of a
 * history page (history-page.c); and the input's raw bytes escaped for each
 * context of the page.
 *
 * Findings besides crashes, leaks and sanitizer reports: an escaped text or
 * attribute with a raw < > " ' or an ampersand that starts no reference, a
 * script-JSON escape with a raw < > &, a page with other than two script
 * elements, or a page whose data element does not parse back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/report.h"
#include "gpuprof/value.h"
#include "report/html.h"
#include "report/report-int.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* a page must hold its two script elements, and its data must parse back */
static void check_page(const char *html)
{
	static const char open_tag[] = "<script type=\"application/json\" id=\"gp-data\">";
	struct gp_value *back = NULL;
	const char *d, *e;

	if (count(html, "<script") != 2)
		abort();
	d = strstr(html, open_tag);
	e = d ? strstr(d, "</script>") : NULL;
	if (!d || !e)
		abort();
	d += sizeof(open_tag) - 1;
	if (gp_value_parse(d, (size_t)(e - d), &back, NULL))
		abort();
	gp_value_free(back);
}

static void check_escapes(const char *s, size_t n)
{
	struct gp_buf b;
	size_t i;

	gp__buf_init(&b, 0);
	if (gp__html_text(&b, s, n) == 0)
		for (i = 0; i < b.len; i++)
			if (strchr("<>\"'", b.buf[i]) ||
			    (b.buf[i] == '&' && !(b.buf[i + 1] && strchr("aglq#", b.buf[i + 1]))))
				abort();
	gp__buf_reset(&b);
	if (gp__html_attr(&b, s, n) == 0)
		for (i = 0; i < b.len; i++)
			if (strchr("<>\"'\n\t\r", b.buf[i]))
				abort();
	gp__buf_reset(&b);
	/* (byte by byte: raw input may hold NULs, which the JSON writer never emits) */
	if (gp__html_script_json(&b, s, n) == 0)
		for (i = 0; i < b.len; i++)
			if (b.buf[i] == '<' || b.buf[i] == '>' || b.buf[i] == '&')
				abort();
	gp__buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "in<put>.json" };
	struct gp_value *doc = NULL, *page = NULL;
	char *html = NULL;
	size_t len = 0;

	if (size > (1u << 20))
		return 0;
	check_escapes((const char *)data, size);
	if (gp_value_parse((const char *)data, size, &doc, NULL))
		return 0;
	/* the tree itself as a page model: gp_report_html() takes any tree */
	if (gp_report_html(doc, &html, &len) == 0)
		gp_free(html);
	html = NULL;
	/* the tree as a history page's series: an array of objects, else refused */
	if (gp_report_history_html(doc, "t<\"&", &html, &len) == 0) {
		check_page(html);
		gp_free(html);
	}
	html = NULL;
	if (gp__report_page(doc, NULL, paths, 1, false, NULL, &page))
		return 0;
	if (gp_report_html(page, &html, &len) == 0) {
		check_page(html);
		gp_free(html);
	}
	gp_value_free(page);
	return 0;
}
