/* SPDX-License-Identifier: MIT */
/*
 * help-render.c - the Markdown renderer of the command pages, one parser with
 * two back ends: text (`gpuprof help CMD`, `gpuprof CMD --help`) and roff
 * (the man pages, written at build time by gpuprof-mkman from the same pages).
 *
 * The parser splits the page into lines and walks them as blocks; a list item
 * or a definition is a container whose lines, their indentation removed, are
 * walked again (recursion depth is bounded by the indentation of the page).
 * Every block calls the back end in struct render; inline text (code spans,
 * emphasis, links, escapes) is rendered into a memory stream first, then
 * wrapped (text) or written as one filled line (roff). Nothing here exits:
 * a failed allocation sets render.err and the output stops short.
 */
#include "help-render.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum fmt { FMT_TEXT, FMT_ROFF };

/* a line of the page, or the part of it left once a container's indentation is removed */
struct line {
	const char *p;
	size_t n;
};

#define MAX_DEPTH 16

/* a list item or definition being written: how far its body is indented */
struct box {
	int indent;   /* text: columns added to the margin; roff: the .RS width */
	bool rs_open; /* roff: the body's later blocks are inside .RS */
};

struct render {
	FILE *out;
	enum fmt fmt;
	int width;          /* text: total columns */
	int margin;         /* text: columns before the body */
	const char *source; /* roff: the footer's source */
	bool first;         /* no block yet since the heading, item or term above */
	bool any;           /* something was written */
	char tag[16];       /* text: the bullet waiting for the next line */
	char section[32];   /* the level-2 heading we are under */
	struct box box[MAX_DEPTH];
	int depth;
	int err;
};

/* ---- lines */

static size_t lead(struct line l)
{
	size_t i = 0;

	while (i < l.n && l.p[i] == ' ')
		i++;
	return i;
}

static bool blank(struct line l)
{
	return lead(l) == l.n;
}

static struct line skip(struct line l, size_t k)
{
	if (k > l.n)
		k = l.n;
	l.p += k;
	l.n -= k;
	return l;
}

static struct line trim(struct line l)
{
	l = skip(l, lead(l));
	while (l.n && (l.p[l.n - 1] == ' ' || l.p[l.n - 1] == '\r'))
		l.n--;
	return l;
}

static int heading_level(struct line l)
{
	size_t i = 0;

	l = skip(l, lead(l) <= 3 ? lead(l) : 0);
	while (i < l.n && l.p[i] == '#')
		i++;
	return i >= 1 && i <= 6 && i < l.n && l.p[i] == ' ' ? (int)i : 0;
}

static bool fence(struct line l)
{
	l = skip(l, lead(l));
	return l.n >= 3 && (memcmp(l.p, "```", 3) == 0 || memcmp(l.p, "~~~", 3) == 0);
}

static bool table_row(struct line l)
{
	size_t k = lead(l);

	return k <= 3 && k < l.n && l.p[k] == '|';
}

static bool def_line(struct line l)
{
	size_t k = lead(l);

	return k <= 3 && k + 1 < l.n && l.p[k] == ':' && l.p[k + 1] == ' ';
}

/*
 * A list marker: `- `, `* `, `+ ` or `N. ` after at most 3 spaces. @return the
 * column of the item's content (0: not a marker); *num the number (0: bullet).
 */
static size_t list_marker(struct line l, long *num)
{
	size_t k = lead(l), i;

	*num = 0;
	if (k > 3 || k >= l.n)
		return 0;
	if ((l.p[k] == '-' || l.p[k] == '*' || l.p[k] == '+') && k + 1 < l.n && l.p[k + 1] == ' ')
		i = k + 1;
	else if (isdigit((unsigned char)l.p[k])) {
		for (i = k; i < l.n && i - k < 9 && isdigit((unsigned char)l.p[i]); i++)
			*num = *num * 10 + (l.p[i] - '0');
		if (i + 1 >= l.n || (l.p[i] != '.' && l.p[i] != ')') || l.p[i + 1] != ' ')
			return 0;
		i++;
	} else
		return 0;
	/* the content starts after one to four spaces */
	{
		size_t s = i;

		while (s < l.n && l.p[s] == ' ' && s - i < 4)
			s++;
		return s;
	}
}

/* a line that ends a paragraph: a heading, a fence, a table, a bullet or `1.` */
static bool interrupts(struct line l)
{
	long num;

	if (heading_level(l) || fence(l) || table_row(l))
		return true;
	return list_marker(l, &num) && num <= 1;
}

/* ---- output helpers */

static void put(struct render *r, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, r->out) != n && !r->err)
		r->err = -1;
}

static void puts_(struct render *r, const char *s)
{
	put(r, s, strlen(s));
}

static void spaces(struct render *r, int n)
{
	while (n-- > 0)
		put(r, " ", 1);
}

/* columns of UTF-8 text: its code points (the pages have no double-width characters) */
static int cols(const char *s, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* an output stream into memory: one allocation path for every inline buffer */
struct mem {
	FILE *f;
	char *p;
	size_t n;
};

static bool mem_open(struct render *r, struct mem *m)
{
	m->p = NULL;
	m->n = 0;
	m->f = open_memstream(&m->p, &m->n);
	if (!m->f)
		r->err = -1;
	return m->f != NULL;
}

/* closes the stream: m->p is the NUL-ended text, for the caller to free(); NULL on error */
static char *mem_close(struct render *r, struct mem *m)
{
	if (fclose(m->f)) {
		free(m->p);
		m->p = NULL;
		r->err = -1;
	}
	return m->p;
}

/* ---- inline */

/* roff: one character or UTF-8 sequence of text, escaped */
static size_t roff_char(FILE *f, const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	unsigned cp, len, i;

	if (c < 0x80) {
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-')
			fputs("\\-", f);
		else if (c == '/')
			fputs("/\\:", f); /* a line may break after it */
		else if (c == '\t')
			fputc(' ', f);
		else
			fputc(c, f);
		return 1;
	}
	len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	cp = len == 4 ? c & 0x07u : len == 3 ? c & 0x0fu : c & 0x1fu;
	if (len == 1 || len > n) {
		fputc('?', f);
		return 1;
	}
	for (i = 1; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			fputc('?', f);
			return i;
		}
		cp = cp << 6 | ((unsigned char)s[i] & 0x3fu);
	}
	fprintf(f, "\\[u%04X]", cp);
	return len;
}

static void lit(enum fmt fmt, FILE *f, const char *s, size_t n)
{
	size_t i = 0;

	if (fmt == FMT_TEXT) {
		fwrite(s, 1, n, f);
		return;
	}
	while (i < n)
		i += roff_char(f, s + i, n - i);
}

/*
 * roff: a long code span may be broken after . , / _ : { = (a zero-width break
 * point, \:), so a narrow table column or a long JSON sample does not make
 * troff overrun the line; the text copied stays the same.
 */
static void lit_code(enum fmt fmt, FILE *f, const char *s, size_t n)
{
	size_t i = 0, from = 0;

	if (fmt == FMT_TEXT || n <= 12) {
		lit(fmt, f, s, n);
		return;
	}
	for (; i < n; i++) {
		if (strchr(".,/_:{=", s[i]) && i + 1 < n) {
			lit(fmt, f, s + from, i + 1 - from);
			fputs("\\:", f);
			from = i + 1;
		}
	}
	lit(fmt, f, s + from, n - from);
}

static void font(enum fmt fmt, FILE *f, const char *esc)
{
	if (fmt == FMT_ROFF)
		fputs(esc, f);
}

static const char *find(const char *p, const char *end, const char *what)
{
	size_t k = strlen(what);

	for (; p + k <= end; p++)
		if (memcmp(p, what, k) == 0)
			return p;
	return NULL;
}

/* the end of the code span opened by the run of backticks at p, or NULL */
static const char *code_end(const char *p, const char *end, size_t *ticks)
{
	const char *q;
	size_t k = 0;

	while (p + k < end && p[k] == '`')
		k++;
	*ticks = k;
	for (q = p + k; q < end; q++) {
		size_t m = 0;

		while (q + m < end && q[m] == '`')
			m++;
		if (m == k)
			return q;
		q += m ? m - 1 : 0;
	}
	return NULL;
}

/* a closing emphasis marker: preceded by a non-space, outside code spans */
static const char *emph_end(const char *p, const char *end, const char *mark)
{
	size_t k = strlen(mark), ticks;

	for (; p + k <= end; p++) {
		if (*p == '`') {
			const char *e = code_end(p, end, &ticks);

			if (e) {
				p = e + ticks - 1;
				continue;
			}
		}
		if (memcmp(p, mark, k) == 0 && p[-1] != ' ' &&
		    (k == 2 || p + 1 >= end || p[1] != '*'))
			return p;
	}
	return NULL;
}

static bool absolute_url(const char *p, size_t n)
{
	return (n > 7 && memcmp(p, "http://", 7) == 0) ||
	       (n > 8 && memcmp(p, "https://", 8) == 0) || (n > 7 && memcmp(p, "mailto:", 7) == 0);
}

static void inline_md(enum fmt fmt, FILE *f, const char *p, size_t n);

/* [text](target): the text; a page gpuprof[-NAME].md named by its name gets (1); a URL follows */
static const char *link(enum fmt fmt, FILE *f, const char *p, const char *end)
{
	const char *close = p + 1, *t, *te;
	int nest = 0;

	for (; close < end; close++) {
		if (*close == '[')
			nest++;
		else if (*close == ']' && nest-- == 0)
			break;
	}
	if (close >= end || close + 1 >= end || close[1] != '(')
		return NULL;
	t = close + 2;
	te = memchr(t, ')', (size_t)(end - t));
	if (!te)
		return NULL;
	inline_md(fmt, f, p + 1, (size_t)(close - p - 1));
	if (absolute_url(t, (size_t)(te - t))) {
		if ((size_t)(te - t) != (size_t)(close - p - 1) ||
		    memcmp(t, p + 1, (size_t)(te - t))) {
			fputs(" <", f);
			lit(fmt, f, t, (size_t)(te - t));
			fputc('>', f);
		}
	} else if (te - t > 9 && memcmp(t, "gpuprof", 7) == 0 &&
	           !memchr(t, '/', (size_t)(te - t))) {
		const char *dot = find(t, te, ".md");

		if (dot && (size_t)(dot - t) == (size_t)(close - p - 1) &&
		    memcmp(t, p + 1, (size_t)(dot - t)) == 0)
			fputs("(1)", f);
	}
	return te + 1;
}

/* inline Markdown of @p p into @p f: code spans, **strong**, *emphasis*, links, escapes */
static void inline_md(enum fmt fmt, FILE *f, const char *p, size_t n)
{
	const char *end = p + n, *e;
	size_t ticks;

	while (p < end) {
		if (*p == '\\' && p + 1 < end && ispunct((unsigned char)p[1])) {
			lit(fmt, f, p + 1, 1);
			p += 2;
		} else if (*p == '`' && (e = code_end(p, end, &ticks))) {
			const char *s = p + ticks;
			size_t k = (size_t)(e - s);

			/* one space each side is padding (`` `a` ``) */
			if (k >= 2 && s[0] == ' ' && s[k - 1] == ' ') {
				s++;
				k -= 2;
			}
			font(fmt, f, "\\fB");
			lit_code(fmt, f, s, k);
			font(fmt, f, "\\fR");
			p = e + ticks;
		} else if (p + 2 < end && p[0] == '*' && p[1] == '*' && p[2] != ' ' &&
		           (e = emph_end(p + 3, end, "**"))) {
			font(fmt, f, "\\fB");
			inline_md(fmt, f, p + 2, (size_t)(e - p - 2));
			font(fmt, f, "\\fR");
			p = e + 2;
		} else if (p + 1 < end && p[0] == '*' && p[1] != ' ' && p[1] != '*' &&
		           (e = emph_end(p + 2, end, "*"))) {
			font(fmt, f, "\\fI");
			inline_md(fmt, f, p + 1, (size_t)(e - p - 1));
			font(fmt, f, "\\fR");
			p = e + 1;
		} else if (*p == '[' && (e = link(fmt, f, p, end))) {
			p = e;
		} else if (*p == '<' && p + 1 < end && absolute_url(p + 1, (size_t)(end - p - 1)) &&
		           (e = memchr(p, '>', (size_t)(end - p)))) {
			lit(fmt, f, p + 1, (size_t)(e - p - 1));
			p = e + 1;
		} else {
			const char *q = p + 1;

			/* a run of plain characters at once */
			while (q < end && !strchr("\\`*[<", *q))
				q++;
			lit(fmt, f, p, (size_t)(q - p));
			p = q;
		}
	}
}

/* the lines of a paragraph, joined by spaces, rendered inline; NULL on error */
static char *inline_lines(struct render *r, const struct line *l, size_t n)
{
	struct mem m;
	struct mem src;
	char *text, *out;

	if (!mem_open(r, &src))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct line t = trim(l[i]);

		if (i)
			fputc(' ', src.f);
		fwrite(t.p, 1, t.n, src.f);
	}
	text = mem_close(r, &src);
	if (!text || !mem_open(r, &m)) {
		free(text);
		return NULL;
	}
	inline_md(r->fmt, m.f, text, strlen(text));
	free(text);
	out = mem_close(r, &m);
	return out;
}

/* ---- text back end */

/* the first line's prefix: the margin, or a bullet waiting before it */
static void text_prefix(struct render *r, int margin)
{
	if (r->tag[0]) {
		int k = cols(r->tag, strlen(r->tag));

		spaces(r, margin - k);
		puts_(r, r->tag);
		r->tag[0] = '\0';
	} else
		spaces(r, margin);
}

/*
 * Fills @p s into lines of r->width columns, the first at @p margin behind
 * any waiting bullet, the others at @p margin. Words longer than a line stay
 * whole.
 */
static void text_fill(struct render *r, const char *s, int margin)
{
	int avail = r->width - margin, used = 0;
	bool line_open = false;

	if (avail < 20)
		avail = 20;
	while (*s) {
		const char *w;
		int wc;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		w = s;
		while (*s && *s != ' ')
			s++;
		wc = cols(w, (size_t)(s - w));
		if (line_open && used + 1 + wc > avail) {
			puts_(r, "\n");
			line_open = false;
		}
		if (!line_open) {
			text_prefix(r, margin);
			line_open = true;
			used = 0;
		} else {
			put(r, " ", 1);
			used++;
		}
		put(r, w, (size_t)(s - w));
		used += wc;
	}
	if (line_open)
		puts_(r, "\n");
	else if (r->tag[0]) {
		text_prefix(r, margin);
		puts_(r, "\n");
	}
}

/* ---- blocks: the spacing both back ends share */

/*
 * Before a block: text puts a blank line between blocks (none at the top of a
 * section, item or definition); roff starts a paragraph, or, for the second
 * block of an item or definition, first the .RS that keeps it indented.
 * @p tight: an item or term that had no blank line before it in the page.
 */
static void block_start(struct render *r, bool tight, const char *roff_para)
{
	if (r->fmt == FMT_TEXT) {
		if (r->any && !r->first && !tight)
			puts_(r, "\n");
	} else if (!r->first) {
		struct box *b = r->depth ? &r->box[r->depth - 1] : NULL;

		if (b && !b->rs_open) {
			fprintf(r->out, ".RS %d\n", b->indent);
			b->rs_open = true;
		}
		if (roff_para)
			puts_(r, roff_para);
	}
	r->any = true;
}

static void block_end(struct render *r)
{
	r->first = false;
}

/* a line of roff text: a leading `.` or `'` would be read as a request */
static void roff_line(struct render *r, const char *s)
{
	if (*s == '.' || *s == '\'')
		puts_(r, "\\&");
	puts_(r, s);
	puts_(r, "\n");
}

static void heading(struct render *r, int level, struct line text)
{
	char *upper, *s;

	if (level == 2) {
		size_t n = text.n < sizeof(r->section) - 1 ? text.n : sizeof(r->section) - 1;

		memcpy(r->section, text.p, n);
		r->section[n] = '\0';
	}
	/* the sections in capitals, as in a man page, and man's title */
	upper = malloc(text.n + 1);
	if (!upper) {
		r->err = -1;
		return;
	}
	memcpy(upper, text.p, text.n);
	upper[text.n] = '\0';
	for (char *c = upper; (level == 2 || (level == 1 && r->fmt == FMT_ROFF)) && *c; c++)
		*c = (char)toupper((unsigned char)*c);
	text.p = upper;
	s = inline_lines(r, &text, 1);
	free(upper);
	if (!s)
		return;
	if (r->fmt == FMT_TEXT) {
		if (r->any)
			puts_(r, "\n");
		spaces(r, level >= 3 ? 2 : 0);
		puts_(r, s);
		puts_(r, "\n");
		r->margin = 4;
	} else if (level == 1) {
		fprintf(r->out, ".TH \"%s\" 1 \"\" \"", s);
		lit(FMT_ROFF, r->out, r->source, strlen(r->source));
		puts_(r, "\" \"gpuprof manual\"\n.ad l\n.nh\n");
	} else {
		puts_(r, level == 2 ? ".SH " : ".SS ");
		fprintf(r->out, "\"%s\"\n", s);
	}
	free(s);
	r->any = true;
	r->first = true;
}

static void paragraph(struct render *r, const struct line *l, size_t n)
{
	char *s;

	/* roff NAME: `gpuprof CMD - summary` becomes `gpuprof-CMD \- summary` for whatis(1) */
	if (r->fmt == FMT_ROFF && strcmp(r->section, "Name") == 0 && n == 1) {
		struct line t = trim(l[0]);
		const char *dash = find(t.p, t.p + t.n, " - ");

		if (dash) {
			struct line rest = { dash + 3, (size_t)(t.p + t.n - dash - 3) };

			block_start(r, false, ".PP\n");
			for (const char *c = t.p; c < dash; c++)
				lit(FMT_ROFF, r->out, *c == ' ' ? "-" : c, 1);
			puts_(r, " \\- ");
			s = inline_lines(r, &rest, 1);
			/* whatis(1) reads the line as it is: no break points (\\:) in it */
			if (s) {
				char *to = s;

				for (const char *from = s; *from; from++) {
					if (from[0] == '\\' && from[1] == ':') {
						from++;
						continue;
					}
					*to++ = *from;
				}
				*to = '\0';
				roff_line(r, s);
			}
			free(s);
			block_end(r);
			return;
		}
	}
	s = inline_lines(r, l, n);
	if (!s)
		return;
	block_start(r, false, ".PP\n");
	if (r->fmt == FMT_TEXT)
		text_fill(r, s, r->margin);
	else
		roff_line(r, s);
	free(s);
	block_end(r);
}

/* verbatim lines; indented by 4 unless the first block under a heading, item or term */
static void code(struct render *r, const struct line *l, size_t n, size_t strip)
{
	bool in = !r->first;

	block_start(r, false, ".PP\n");
	if (r->fmt == FMT_ROFF)
		puts_(r, in ? ".RS 4\n.nf\n" : ".nf\n");
	for (size_t i = 0; i < n; i++) {
		struct line t = skip(l[i], lead(l[i]) < strip ? lead(l[i]) : strip);

		while (t.n && t.p[t.n - 1] == '\r')
			t.n--;
		if (r->fmt == FMT_TEXT) {
			if (t.n) {
				text_prefix(r, r->margin + (in ? 4 : 0));
				put(r, t.p, t.n);
			}
			puts_(r, "\n");
		} else {
			if (!t.n || t.p[0] == '.' || t.p[0] == '\'')
				puts_(r, "\\&");
			lit(FMT_ROFF, r->out, t.p, t.n);
			puts_(r, "\n");
		}
	}
	if (r->fmt == FMT_ROFF)
		puts_(r, in ? ".fi\n.RE\n" : ".fi\n");
	block_end(r);
}

/* ---- tables */

#define MAX_COLS 16

/* splits a row `| a | b |` into cells (trimmed), outside code spans and escapes */
static size_t split_row(struct line l, struct line *cell, size_t max)
{
	const char *p, *end, *start;
	size_t n = 0, ticks;

	l = trim(l);
	p = l.p;
	end = l.p + l.n;
	if (p < end && *p == '|')
		p++;
	if (end > p && end[-1] == '|' && !(end - 1 > p && end[-2] == '\\'))
		end--;
	start = p;
	while (p <= end && n < max) {
		if (p < end && *p == '\\' && p + 1 < end) {
			p += 2;
			continue;
		}
		if (p < end && *p == '`') {
			const char *e = code_end(p, end, &ticks);

			if (e) {
				p = e + ticks;
				continue;
			}
		}
		if (p == end || *p == '|') {
			struct line c = { start, (size_t)(p - start) };

			cell[n++] = trim(c);
			start = p + 1;
		}
		p++;
	}
	return n;
}

static bool separator_row(struct line l)
{
	l = trim(l);
	for (size_t i = 0; i < l.n; i++)
		if (!strchr("|-: ", l.p[i]))
			return false;
	return l.n > 0;
}

/*
 * The widths of the columns in @p avail columns: a column narrower than its
 * fair share keeps its natural width; the others share the rest in proportion
 * to their natural widths, none narrower than its longest word (@p least),
 * which no line break can split. The table may then be wider than @p avail.
 */
static void fit_columns(int *w, const int *natural, const int *least, size_t nc, int avail)
{
	bool fixed[MAX_COLS] = { false };
	bool changed = true;

	for (size_t i = 0; i < nc; i++)
		w[i] = natural[i];
	while (changed) {
		int rest = avail, left = 0;
		long sum = 0;

		changed = false;
		for (size_t i = 0; i < nc; i++) {
			if (fixed[i])
				rest -= w[i];
			else {
				left++;
				sum += natural[i];
			}
		}
		if (!left)
			break;
		for (size_t i = 0; i < nc && !changed; i++) {
			if (fixed[i])
				continue;
			if (natural[i] <= rest / left) {
				w[i] = natural[i];
				fixed[i] = changed = true;
			}
		}
		for (size_t i = 0; i < nc && !changed; i++) {
			int share = sum ? (int)((long)rest * natural[i] / sum) : 0;

			if (fixed[i])
				continue;
			if (share < least[i]) {
				w[i] = least[i];
				fixed[i] = changed = true;
			}
		}
		if (changed)
			continue;
		for (size_t i = 0; i < nc; i++)
			if (!fixed[i])
				w[i] = (int)((long)rest * natural[i] / sum);
	}
	for (size_t i = 0; i < nc; i++)
		if (w[i] < 1)
			w[i] = 1;
}

/*
 * The words of @p s that fit in @p width columns from *pos, or the first
 * @p width columns of a longer word; @return the length taken.
 */
static size_t take_line(const char *s, size_t *pos, int width)
{
	size_t i = *pos, start, end;
	int used = 0;

	while (s[i] == ' ')
		i++;
	start = end = i;
	while (s[i]) {
		size_t w = i;
		int wc;

		while (s[i] && s[i] != ' ')
			i++;
		wc = cols(s + w, i - w);
		if (end > start && used + 1 + wc > width) {
			i = w;
			break;
		}
		if (end == start && wc > width) {
			/* a word wider than its column: cut it, the rest on the next line */
			for (i = w, wc = 0; wc < width; wc++)
				do
					i++;
				while (((unsigned char)s[i] & 0xc0) == 0x80);
			*pos = i;
			return i - start;
		}
		used += (end > start ? 1 : 0) + wc;
		end = i;
		while (s[i] == ' ')
			i++;
	}
	*pos = i;
	return end - start;
}

static void text_row(struct render *r, char **cells, size_t nc, const int *w, int margin)
{
	size_t pos[MAX_COLS] = { 0 };
	bool more = true;

	while (more) {
		int pad =
		    0; /* spaces owed before the next cell's text: none at the end of a line */

		more = false;
		text_prefix(r, margin);
		for (size_t i = 0; i < nc; i++) {
			const char *s = cells[i];
			size_t start, k;

			while (s[pos[i]] == ' ')
				pos[i]++;
			start = pos[i];
			k = take_line(s, &pos[i], w[i]);
			if (k) {
				spaces(r, pad);
				pad = 0;
				put(r, s + start, k);
			}
			pad += w[i] - cols(s + start, k) + 2;
			if (s[pos[i]])
				more = true;
		}
		puts_(r, "\n");
	}
}

/* roff: the columns of a man page (man(1)'s 80 less its 7-column indent, and some slack) */
#define ROFF_COLS 68

/*
 * A pipe table. Both back ends lay it out the same way: the column widths
 * come from the cells as text, each column as wide as its widest cell until
 * the table no longer fits, the widest then sharing what is left
 * (fit_columns). Text writes the rows, a wrapped cell over several lines;
 * roff gives tbl(1) those widths, the narrowed columns as text blocks.
 */
static void table(struct render *r, const struct line *l, size_t n)
{
	struct line cell[MAX_COLS];
	char **cells, **text;
	size_t nc = split_row(l[0], cell, MAX_COLS), rows = 0;
	int natural[MAX_COLS] = { 0 }, least[MAX_COLS] = { 0 }, w[MAX_COLS], margin, avail, need;
	bool in = !r->first;
	enum fmt fmt = r->fmt;

	if (!nc)
		return;
	cells = calloc(2 * n * nc, sizeof(*cells));
	if (!cells) {
		r->err = -1;
		return;
	}
	text = cells + n * nc;
	/* rendered cells, the separator row left out: as text, and for roff as roff */
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (i == 1 && separator_row(l[i]))
			continue;
		k = split_row(l[i], cell, MAX_COLS);
		for (size_t c = 0; c < nc; c++) {
			size_t at = rows * nc + c;

			r->fmt = FMT_TEXT;
			text[at] = c < k ? inline_lines(r, &cell[c], 1) : strdup("");
			r->fmt = fmt;
			cells[at] = c < k ? inline_lines(r, &cell[c], 1) : strdup("");
			if (!cells[at] || !text[at])
				r->err = -1;
		}
		rows++;
	}
	if (r->err)
		goto out_cells;
	for (size_t i = 0; i < rows * nc; i++) {
		int c = cols(text[i], strlen(text[i]));

		if (c > natural[i % nc])
			natural[i % nc] = c;
		for (const char *p = text[i]; *p;) {
			size_t k = strcspn(p, " ");

			/* roff may break a long code span (lit_code), text cuts a long word */
			c = cols(p, k);
			if (c > (fmt == FMT_ROFF ? 20 : 30))
				c = fmt == FMT_ROFF ? 20 : 30;
			if (c > least[i % nc])
				least[i % nc] = c;
			p += k + (p[k] == ' ');
		}
	}
	block_start(r, false, ".PP\n");
	if (fmt == FMT_TEXT) {
		margin = r->margin + (in ? 2 : 0);
		fit_columns(w, natural, least, nc, r->width - margin - 2 * (int)(nc - 1));
		for (size_t i = 0; i < rows; i++) {
			text_row(r, cells + i * nc, nc, w, margin);
			if (i == 0) {
				text_prefix(r, margin);
				for (size_t c = 0; c < nc; c++) {
					for (int k = 0; k < w[c]; k++)
						put(r, "-", 1);
					if (c + 1 < nc)
						spaces(r, 2);
				}
				puts_(r, "\n");
			}
		}
	} else {
		avail = ROFF_COLS - 3 * (int)(nc - 1);
		for (int d = 0; d < r->depth; d++)
			avail -= r->box[d].indent;
		fit_columns(w, natural, least, nc, avail);
		/*
		 * Room for the whole table first: man's continuous page grows on
		 * .ne, and tbl warns when a text block finds less room than it needs.
		 */
		need = 3;
		for (size_t i = 0; i < rows; i++) {
			int most = 1;

			for (size_t c = 0; c < nc; c++) {
				int k = cols(text[i * nc + c], strlen(text[i * nc + c])) /
				            (w[c] > 0 ? w[c] : 1) +
				        1;

				most = k > most ? k : most;
			}
			need += most;
		}
		fprintf(r->out, ".ne %d\n", need);
		puts_(r, ".TS\n");
		for (size_t c = 0; c < nc; c++)
			puts_(r, c + 1 < nc ? "lB " : "lB\n");
		for (size_t c = 0; c < nc; c++) {
			if (w[c] < natural[c])
				fprintf(r->out, "lw(%dn)", w[c]);
			else
				puts_(r, "l");
			puts_(r, c + 1 < nc ? " " : ".\n");
		}
		for (size_t i = 0; i < rows; i++) {
			for (size_t c = 0; c < nc; c++) {
				const char *s = cells[i * nc + c];

				if (i == 0 || w[c] >= natural[c]) {
					puts_(r, *s == '.' || *s == '\'' ? "\\&" : "");
					puts_(r, s);
				} else {
					puts_(r, "T{\n");
					roff_line(r, s);
					puts_(r, "T}");
				}
				puts_(r, c + 1 < nc ? "\t" : "\n");
			}
			if (i == 0)
				puts_(r, "_\n");
		}
		puts_(r, ".TE\n");
	}
	block_end(r);
out_cells:
	for (size_t i = 0; i < 2 * n * nc; i++)
		free(cells[i]);
	free(cells);
}

/* ---- containers: list items and definitions */

static void blocks(struct render *r, const struct line *l, size_t n, int level);

/*
 * The lines of a container that starts at l[0] with its first line @p first:
 * the following lines indented by @p indent or more (or blank between such
 * lines), and lazy continuation lines of a paragraph. @return how many lines
 * of @p l it takes; its lines, the indentation removed, in *@p body (malloc'd).
 */
static size_t container(struct render *r, const struct line *l, size_t n, struct line first,
                        size_t indent, struct line **body, size_t *nbody)
{
	size_t j = 1, k = 0;
	struct line *b = malloc(n * sizeof(*b));

	*body = b;
	*nbody = 0;
	if (!b) {
		r->err = -1;
		return n;
	}
	b[k++] = first;
	while (j < n) {
		if (blank(l[j])) {
			size_t q = j;

			while (q < n && blank(l[q]))
				q++;
			if (q == n || lead(l[q]) < indent)
				break;
			for (; j < q; j++)
				b[k++] = skip(l[j], l[j].n);
		} else if (lead(l[j]) >= indent) {
			b[k++] = skip(l[j], indent);
			j++;
		} else if (!blank(l[j - 1]) && !interrupts(l[j]) && !def_line(l[j])) {
			long num;

			if (list_marker(l[j], &num))
				break;
			b[k++] = l[j]; /* lazy continuation */
			j++;
		} else
			break;
	}
	*nbody = k;
	return j;
}

static void item(struct render *r, long num, bool tight, const struct line *body, size_t n,
                 int level)
{
	/* text: the body after "- " or "1. "; roff: .IP's indent, room for "10." */
	int indent = !num ? 2 : r->fmt == FMT_TEXT ? 3 : 4;

	if (r->depth >= MAX_DEPTH) {
		blocks(r, body, n, level + 1);
		return;
	}
	block_start(r, tight, NULL);
	if (r->fmt == FMT_TEXT) {
		if (num)
			snprintf(r->tag, sizeof(r->tag), "%ld. ", num);
		else
			snprintf(r->tag, sizeof(r->tag), "- ");
	} else {
		if (tight)
			puts_(r, ".PD 0\n");
		if (num)
			fprintf(r->out, ".IP %ld. %d\n", num, indent);
		else
			fprintf(r->out, ".IP \\(bu %d\n", indent);
		if (tight)
			puts_(r, ".PD\n");
	}
	r->box[r->depth].indent = indent;
	r->box[r->depth].rs_open = false;
	r->depth++;
	r->margin += indent;
	r->first = true;
	blocks(r, body, n, level + 1);
	r->margin -= indent;
	r->depth--;
	if (r->fmt == FMT_ROFF && r->box[r->depth].rs_open)
		puts_(r, ".RE\n");
	r->tag[0] = '\0';
	block_end(r);
}

static void definition(struct render *r, const struct line *term, size_t nterm, bool tight,
                       const struct line *body, size_t n, int level)
{
	char *s = inline_lines(r, term, nterm);

	if (!s)
		return;
	block_start(r, tight, NULL);
	if (r->fmt == FMT_TEXT)
		text_fill(r, s, r->margin);
	else {
		if (tight)
			puts_(r, ".PD 0\n");
		puts_(r, ".TP 4\n");
		roff_line(r, s);
		if (tight)
			puts_(r, ".PD\n");
	}
	free(s);
	if (r->depth >= MAX_DEPTH) {
		blocks(r, body, n, level + 1);
		return;
	}
	r->box[r->depth].indent = 4;
	r->box[r->depth].rs_open = false;
	r->depth++;
	r->margin += 4;
	r->first = true;
	blocks(r, body, n, level + 1);
	r->margin -= 4;
	r->depth--;
	if (r->fmt == FMT_ROFF && r->box[r->depth].rs_open)
		puts_(r, ".RE\n");
	block_end(r);
}

/* ---- the block walk */

static void blocks(struct render *r, const struct line *l, size_t n, int level)
{
	size_t i = 0;
	bool was_blank = false;

	while (i < n && !r->err) {
		struct line *body = NULL;
		size_t nbody = 0, k, j;
		long num;

		if (level > 32) {
			/* deeper than any page goes: the rest as one paragraph */
			paragraph(r, l + i, n - i);
			return;
		}
		if (blank(l[i])) {
			was_blank = true;
			i++;
			continue;
		}
		if (lead(l[i]) >= 4) {
			/* indented code: to the first line indented less, trailing blank lines left
			 * out */
			for (j = i; j < n && (blank(l[j]) || lead(l[j]) >= 4); j++)
				;
			for (k = j; k > i && blank(l[k - 1]); k--)
				;
			code(r, l + i, k - i, 4);
			i = j;
		} else if ((k = (size_t)heading_level(l[i]))) {
			struct line t = trim(l[i]);

			t = trim(skip(t, k));
			while (t.n && t.p[t.n - 1] == '#')
				t.n--;
			heading(r, (int)k, trim(t));
			i++;
		} else if (fence(l[i])) {
			for (j = i + 1; j < n && !fence(l[j]); j++)
				;
			code(r, l + i + 1, j - i - 1, lead(l[i]));
			i = j < n ? j + 1 : j;
		} else if (table_row(l[i])) {
			for (j = i; j < n && table_row(l[j]); j++)
				;
			table(r, l + i, j - i);
			i = j;
		} else if ((k = list_marker(l[i], &num))) {
			bool tight = !was_blank;

			i += container(r, l + i, n - i, skip(l[i], k), k, &body, &nbody);
			if (body)
				item(r, num, tight, body, nbody, level);
			free(body);
		} else {
			bool tight = !was_blank;

			for (j = i + 1;
			     j < n && !blank(l[j]) && !interrupts(l[j]) && !def_line(l[j]); j++)
				;
			if (j < n && def_line(l[j])) {
				struct line first = skip(l[j], lead(l[j]) + 1);
				size_t after =
				    j + container(r, l + j, n - j, skip(first, lead(first)), 4,
				                  &body, &nbody);

				if (body)
					definition(r, l + i, j - i, tight, body, nbody, level);
				free(body);
				i = after;
			} else {
				paragraph(r, l + i, j - i);
				i = j;
			}
		}
		was_blank = false;
	}
}

static int render(struct render *r, const char *md, size_t len)
{
	struct line *lines;
	size_t n = 0, cap = 1;

	for (size_t i = 0; i < len; i++)
		cap += md[i] == '\n';
	lines = malloc(cap * sizeof(*lines));
	if (!lines) {
		errno = ENOMEM;
		return -1;
	}
	for (const char *p = md, *end = md + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		lines[n].p = p;
		lines[n++].n = (size_t)(e - p);
		p = nl ? nl + 1 : end;
	}
	r->first = true;
	blocks(r, lines, n, 0);
	free(lines);
	if (r->err && !errno)
		errno = ENOMEM;
	return r->err;
}

int gp_help_render_text(FILE *out, const char *md, size_t len, int width)
{
	struct render r;

	memset(&r, 0, sizeof(r));
	r.out = out;
	r.fmt = FMT_TEXT;
	r.width = width < 40 ? 40 : width;
	return render(&r, md, len);
}

int gp_help_render_roff(FILE *out, const char *md, size_t len, const char *source)
{
	struct render r;

	memset(&r, 0, sizeof(r));
	r.out = out;
	r.fmt = FMT_ROFF;
	r.source = source ? source : "gpuprof";
	/* tbl(1) preprocesses the tables (man reads this line) */
	fputs("'\\\" t\n", out);
	return render(&r, md, len);
}
