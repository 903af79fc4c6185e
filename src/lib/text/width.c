/* SPDX-License-Identifier: MIT */
/*
 * width.c - display width, cutting, padding, Markdown cells and word
 * wrapping (text.h).
 *
 * A column is a UTF-8 code point: "µs" and "…" take one each, as on a
 * terminal; continuation bytes take none, so a cut never splits a sequence.
 * Strings come from traces and programs: control characters never reach
 * the output as they are.
 */
#include <string.h>

#include "text/text.h"

static bool is_lead(unsigned char c)
{
	return (c & 0xc0) != 0x80;
}

static bool is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

size_t gp__text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += is_lead((unsigned char)*s);
	return w;
}

int gp__text_fit(struct gp_buf *b, const char *s, size_t w, unsigned flags)
{
	bool cut = w && gp__text_width(s) > w;
	size_t cols = 0;
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (is_lead(c) && cut && ++cols == w)
			break;
		if (is_ctrl(c))
			c = (flags & GP__TEXT_CTRL_SPACE) ? ' ' : '?';
		rc = gp_buf_addch(b, (char)c);
	}
	if (!rc && cut)
		rc = gp_buf_addstr(b, "…");
	return rc;
}

int gp__text_pad(struct gp_buf *b, const char *s, size_t w, bool right)
{
	size_t c = gp__text_width(s);
	int pad = (int)(w > c ? w - c : 0);

	return right ? gp_buf_addf(b, "%*s%s", pad, "", s) : gp_buf_addf(b, "%s%*s", s, pad, "");
}

int gp__text_md_cell(struct gp_buf *b, const char *s, bool code)
{
	int rc = 0;

	if (code)
		rc = gp_buf_addch(b, '`');
	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '|')
			rc = gp_buf_addstr(b, "\\|");
		else if (is_ctrl(c))
			rc = gp_buf_addch(b, ' ');
		else
			rc = gp_buf_addch(b, code && c == '`' ? '\'' : (char)c);
	}
	if (!rc && code)
		rc = gp_buf_addch(b, '`');
	return rc;
}

/*
 * Whether the word @p p (@p k bytes) is a unit after a number: "ms", "µs",
 * "%", "KiB"..., maybe closed by ")", ",", ";" or ":" ("ms),").
 */
static bool is_unit(const char *p, size_t k)
{
	static const char *const units[] = { "ns",  "µs",  "ms",  "s",   "%",  "B",
		                             "KiB", "MiB", "GiB", "TiB", "PiB" };

	while (k && strchr("),;:", p[k - 1]))
		k--;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i]) == k && memcmp(units[i], p, k) == 0)
			return true;
	return false;
}

/*
 * The next piece that does not break at @p p: its length in bytes in *len
 * and in columns in *cols. RAW: up to the next space. Otherwise a word and,
 * with GLUE, the words of 3 columns or less or units ("ms),") after it (so
 * that "7.948 ms" or "(308.2 ms)," stays on one line), without a space at
 * the end.
 */
static void piece(const char *p, unsigned flags, size_t *len, size_t *cols)
{
	size_t n = 0, w = 0;

	for (;;) {
		size_t k = 0, kw = 0;

		while (p[n + k] && p[n + k] != ' ')
			kw += is_lead((unsigned char)p[n + k++]);
		if (n && kw > 3 && !is_unit(p + n, k))
			break;
		n += k;
		w += kw;
		if (!(flags & GP__WRAP_GLUE) || (flags & GP__WRAP_RAW) || p[n] != ' ' ||
		    !p[n + 1] || p[n + 1] == ' ')
			break;
		n++; /* the space before the next word */
		w++;
	}
	while (n && p[n - 1] == ' ') {
		n--;
		w--;
	}
	*len = n;
	*cols = w;
}

int gp__text_wrap(struct gp_buf *b, const char *first, const char *text, size_t width,
                  size_t indent, unsigned flags)
{
	size_t col, lead;
	const char *p = text;
	int rc;

	if ((rc = gp_buf_addstr(b, first)))
		return rc;
	col = lead = gp__text_width(first);
	while (*p && !rc) {
		size_t n, w;

		piece(p, flags, &n, &w);
		if (col > lead && col + 1 + w > width) {
			rc = gp_buf_addf(b, "\n%*s", (int)indent, "");
			col = lead = indent;
		} else if (col > lead) {
			rc = gp_buf_addch(b, ' ');
			col++;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			unsigned char c = (unsigned char)p[i];

			if ((flags & GP__WRAP_RAW) && c == 0x1f)
				c = ' ';
			else if ((flags & GP__WRAP_RAW) && is_ctrl(c))
				c = '?';
			rc = gp_buf_addch(b, (char)c);
		}
		col += w;
		p += n;
		if (flags & GP__WRAP_RAW) {
			if (*p == ' ')
				p++;
		} else {
			while (*p == ' ')
				p++;
		}
	}
	return rc ? rc : gp_buf_addch(b, '\n');
}
