/* SPDX-License-Identifier: MIT */
/*
 * html.h - escaping for the three contexts a string of a trace can land in on
 * the report page, and the page's embedded assets.
 *
 * Every function appends to @p b the bytes s[0..n) made safe for its context,
 * and replaces what is not valid UTF-8 (and, in HTML, the control characters
 * HTML forbids) with U+FFFD, so a damaged name never breaks the page.
 * @return 0, GP_ENOMEM or GP_ELIMIT (the buffer's cap).
 */
#ifndef GP_REPORT_HTML_H
#define GP_REPORT_HTML_H

#include <stddef.h>

#include "util/buf.h"

/** HTML text between tags: & < > " ' as character references. */
int gp__html_text(struct gp_buf *b, const char *s, size_t n);

/**
 * The value of a double-quoted attribute: as text, and newlines and tabs as
 * references too, so the value reads back exactly.
 */
int gp__html_attr(struct gp_buf *b, const char *s, size_t n);

/**
 * JSON text (as gp_value_to_json writes it) inside <script type="application/json">:
 * < > & as \u003c \u003e \u0026 (so no "</script" or "<!--" can end or
 * change the element), U+2028 and U+2029 as \u2028 \u2029, invalid UTF-8
 * inside strings as \ufffd. JSON.parse() of the element's text gives back the
 * same value.
 */
int gp__html_script_json(struct gp_buf *b, const char *json, size_t n);

/* the page's stylesheet and script (src/lib/report/assets/), embedded at build time */
extern const char gp__report_css[];
extern const size_t gp__report_css_len;
extern const char gp__report_js[];
extern const size_t gp__report_js_len;
extern const char gp__report_perf[];
extern const size_t gp__report_perf_len;
extern const char gp__report_mem[];
extern const size_t gp__report_mem_len;
extern const char gp__report_memsnap[];
extern const size_t gp__report_memsnap_len;
extern const char gp__report_history[];
extern const size_t gp__report_history_len;

#endif
