/* SPDX-License-Identifier: MIT */
/*
 * width.c - display width, cutting, padding, Markdown cells and word
 * wrapping (text.h).
 *
 * Width is what a terminal gives a character: one column for most, two
 * for East Asian wide and fullwidth characters and emoji, none for
 * combining marks, zero-width spaces and joiners (the ranges of Markus
 * Kuhn's wcwidth that occur in names). A byte that starts no valid UTF-8
 * sequence takes one column and a stray continuation byte none, so a cut
 * never splits a sequence. Strings come from traces and programs: control
 * characters never reach the output as they are.
 */
#include <stdint.h>
#include <string.h>

#include "text/text.h"

static bool is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

struct range {
	uint32_t lo, hi;
};

static const struct range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
	{ 0x064b, 0x065f }, { 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff }, { 0x200b, 0x200f },
	{ 0x202a, 0x202e }, { 0x2060, 0x2064 }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff },
};

static const struct range wide[] = {
	{ 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },   { 0x3400, 0x4dbf },
	{ 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },   { 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },
	{ 0xfe30, 0xfe4f },   { 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x1f300, 0x1f64f },
	{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

static bool in(const struct range *r, size_t n, uint32_t c)
{
	for (size_t i = 0; i < n; i++)
		if (c >= r[i].lo && c <= r[i].hi)
			return true;
	return false;
}

/* the columns of the character at @p p; its length in bytes in *len (at least 1) */
static size_t char_width(const char *p, size_t *len)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t n, i;
	uint32_t c;

	*len = 1;
	if (u[0] < 0x80)
		return 1;
	if ((u[0] & 0xc0) == 0x80)
		return 0; /* a stray continuation byte */
	n = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : 2;
	c = u[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 1; /* not a sequence: the lead byte alone */
		c = c << 6 | (u[i] & 0x3f);
	}
	*len = n;
	if (in(zero_width, sizeof(zero_width) / sizeof(zero_width[0]), c))
		return 0;
	return in(wide, sizeof(wide) / sizeof(wide[0]), c) ? 2 : 1;
}

size_t gp__text_width(const char *s)
{
	size_t w = 0, len;

	for (; *s; s += len)
		w += char_width(s, &len);
	return w;
}

int gp__text_fit(struct gp_buf *b, const char *s, size_t w, unsigned flags)
{
	bool cut = w && gp__text_width(s) > w;
	size_t cols = 0, len, start = b->len;
	int rc = 0;

	for (; *s && !rc; s += len) {
		size_t cw = char_width(s, &len);

		if (cut && cols + cw > w - 1)
			break;
		cols += cw;
		if (len == 1 && is_ctrl((unsigned char)*s))
			rc = gp__buf_addch(b, (flags & GP__TEXT_CTRL_SPACE) ? ' ' : '?');
		else
			rc = gp__buf_add(b, s, len);
	}
	/* a cut right after an "…" of the text (a name's "(…)") needs no second one */
	if (!rc && cut && !(b->len >= start + 3 && memcmp(b->buf + b->len - 3, "…", 3) == 0))
		rc = gp__buf_addstr(b, "…");
	return rc;
}

int gp__text_pad(struct gp_buf *b, const char *s, size_t w, bool right)
{
	size_t c = gp__text_width(s);
	int pad = (int)(w > c ? w - c : 0);

	return right ? gp__buf_addf(b, "%*s%s", pad, "", s) : gp__buf_addf(b, "%s%*s", s, pad, "");
}

int gp__text_md_cell(struct gp_buf *b, const char *s, bool code)
{
	int rc = 0;

	if (code)
		rc = gp__buf_addch(b, '`');
	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '|')
			rc = gp__buf_addstr(b, "\\|");
		else if (is_ctrl(c))
			rc = gp__buf_addch(b, ' ');
		else
			rc = gp__buf_addch(b, code && c == '`' ? '\'' : (char)c);
	}
	if (!rc && code)
		rc = gp__buf_addch(b, '`');
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

		while (p[n + k] && p[n + k] != ' ') {
			size_t cl;

			kw += char_width(p + n + k, &cl);
			k += cl;
		}
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

	if ((rc = gp__buf_addstr(b, first)))
		return rc;
	col = lead = gp__text_width(first);
	while (*p && !rc) {
		size_t n, w;

		piece(p, flags, &n, &w);
		if (col > lead && col + 1 + w > width) {
			rc = gp__buf_addf(b, "\n%*s", (int)indent, "");
			col = lead = indent;
		} else if (col > lead) {
			rc = gp__buf_addch(b, ' ');
			col++;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			unsigned char c = (unsigned char)p[i];

			if ((flags & GP__WRAP_RAW) && c == 0x1f)
				c = ' ';
			else if ((flags & GP__WRAP_RAW) && is_ctrl(c))
				c = '?';
			rc = gp__buf_addch(b, (char)c);
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
	return rc ? rc : gp__buf_addch(b, '\n');
}
