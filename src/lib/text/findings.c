/* SPDX-License-Identifier: MIT */
/*
 * findings.c - the Findings section as every command prints it (text.h):
 * a numbered list of findings ({id, severity, title, evidence, suggestion}),
 * each with its title wrapped, its evidence on one wrapped line ("key=value",
 * the value formatted by its key's unit suffix: _ns a duration, _pct a
 * percentage, ...bytes bytes) and its suggestion after "→".
 *
 * Reads the finding objects only; analyze's report (analyze/format.c) and
 * aggregate's document (aggregate/format.c) share the shape, so both print
 * it through here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/value.h"
#include "text/text.h"

static const struct gp_value *get(const struct gp_value *v, const char *key)
{
	return gp_obj_get(v, key);
}

static double nv(const struct gp_value *v)
{
	double d;

	return gp_value_get_double(v, &d) ? d : NAN;
}

static const char *str(const struct gp_value *v, const char *dflt)
{
	const char *s = gp_value_get_str(v);

	return s ? s : dflt;
}

/* word-wraps @p s at @p w columns after @p indent spaces and @p first (text.h RAW) */
static void wrap(struct gp__out *o, const char *s, int indent, int w, const char *first)
{
	char lead[96];

	snprintf(lead, sizeof(lead), "%*s%s", indent, "", first);
	gp__out_keep(o, gp__text_wrap(&o->b, lead, s, (size_t)w,
	                              (size_t)indent + gp__text_width(first), GP__WRAP_RAW));
}

/* an evidence value as text: by its key's unit suffix, else by its type */
static const char *evidence_value(char *buf, size_t n, const char *k, const struct gp_value *v)
{
	size_t kl = strlen(k);

	if (kl > 3 && strcmp(k + kl - 3, "_ns") == 0)
		return gp__fmt_dur(buf, n, nv(v), 0);
	if (kl > 4 && strcmp(k + kl - 4, "_pct") == 0)
		return gp__fmt_pct(buf, n, nv(v), 0);
	if (kl >= 5 && strcmp(k + kl - 5, "bytes") == 0)
		return gp__fmt_bytes(buf, n, nv(v), 0);
	if (gp_value_type(v) == GP_VALUE_DOUBLE) {
		double d = 0;

		if (!gp_value_get_double(v, &d))
			return "-";
		snprintf(buf, n, "%.4g", d);
		return buf;
	}
	if (gp_value_type(v) == GP_VALUE_STRING)
		return str(v, "-");
	if (gp_value_type(v) == GP_VALUE_BOOL)
		return gp_value_get_bool(v, false) ? "yes" : "no";
	return gp__fmt_count(buf, n, nv(v));
}

void gp__text_evidence(struct gp__out *o, const struct gp_value *ev, int width, int indent,
                       const char *first)
{
	struct gp_buf line = GP_BUF_INIT;
	char b[64];
	size_t i;

	for (i = 0; i < gp_value_len(ev) && !o->rc; i++) {
		const char *k = gp_obj_key_at(ev, i);
		const struct gp_value *v = gp_obj_value_at(ev, i);
		const char *s;
		double d;
		size_t len;
		bool cut;

		/* an unknown value is left out, not shown as "-" (the JSON keeps its null) */
		if (gp_value_type(v) == GP_VALUE_NULL ||
		    (gp_value_type(v) == GP_VALUE_DOUBLE && !gp_value_get_double(v, &d)))
			continue;
		s = evidence_value(b, sizeof(b), k, v);
		len = strlen(s);

		/*
		 * a value shows its first 63 bytes, on one line: spaces become \x1f until
		 * printed; a longer one is cut at a character and ends in "…", so that
		 * a shape text such as "[[16, 559], [], [" does not read as the whole value.
		 * A value of more than 32 bytes may break at its spaces: kept whole it
		 * would run past the width.
		 */
		cut = len > 63;
		if (cut) {
			len = 62;
			while (len && ((unsigned char)s[len] & 0xC0) == 0x80)
				len--;
		}
		gp__out_keep(o, gp__buf_addf(&line, "%s%s=", line.len ? ", " : "", k));
		for (size_t j = 0; j < len && !o->rc; j++)
			gp__out_keep(
			    o, gp__buf_addch(&line, s[j] == ' ' && len <= 32 ? '\x1f' : s[j]));
		if (cut)
			gp__out_keep(o, gp__buf_addf(&line, "…"));
	}
	if (line.len)
		wrap(o, line.buf, indent, width, first);
	gp__buf_release(&line);
}

void gp__text_findings(struct gp__out *o, const struct gp_value *fs, int width)
{
	size_t i;

	if (!fs)
		return;
	gp__out_addf(o, "\nFindings\n");
	if (!gp_value_len(fs)) {
		gp__out_addf(o, "  nothing stands out\n");
		return;
	}
	for (i = 0; i < gp_value_len(fs); i++) {
		const struct gp_value *x = gp_arr_get(fs, i);
		char first[64];

		snprintf(first, sizeof(first), "%zu. [%s] ", i + 1, str(get(x, "severity"), "-"));
		wrap(o, str(get(x, "title"), "-"), 2, width, first);
		gp__text_evidence(o, get(x, "evidence"), width, 5, "evidence: ");
		wrap(o, str(get(x, "suggestion"), "-"), 5, width, "→ ");
	}
}
