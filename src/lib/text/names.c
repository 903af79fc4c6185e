/* SPDX-License-Identifier: MIT */
/*
 * names.c - names of kernels, calls and operators in a column of a
 * given width, shortened so that names that differ still read apart
 * (text.h, "Names in tables").
 *
 * A C++ kernel name is mostly scaffolding: namespaces, the parameter list
 * that repeats the template arguments, nested template arguments. Two
 * names of one table often differ only deep inside
 * (at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor...>
 * and <4, ...threshold_kernel_impl...>), so cutting at the end shows them as
 * one. The rule, applied to one name until it fits:
 *   0. the display form: demangled when mangled ("_Z..."), without the
 *      "void " every kernel returns;
 *   1. the short form: namespace qualifiers dropped ("at::native::",
 *      "(anonymous namespace)::"), the function's own parameter list
 *      dropped, parameter lists inside it shown as "(…)";
 *   2. template arguments nested two deep or more shown as "<…>";
 *   3. cut at the end with "…".
 * Then, over the column: rows whose cut names are equal while their names
 * differ show the start of the name (a fifth of the width), "…", and the
 * name from where it differs from the others (back to the start of that
 * word), cut at the end: "vecto…AddFunctor<…>, Array…" and
 * "vecto…threshold_kernel_imp…" in 27 columns (group_apart() says where).
 * Steps 1-2 only apply to C++ names: with "::" or "<", brackets balanced
 * ("Memcpy HtoD (Pageable -> Device)" and Python's
 * "enumerate(DataLoader)#..." are only cut). Width 0 keeps every name
 * whole (after step 0). Control characters become '?' in every case.
 *
 * Users: table.c (GP__COL_NAME columns). Nothing here prints.
 */
#include <stdint.h>
#include <string.h>

#include "gpuprof/value.h"
#include "text/text.h"
#include "util/demangle.h"
#include "util/error.h"

static bool ident(char c)
{
	unsigned char u = (unsigned char)c;

	return u >= 0x80 || u == '_' || u == '$' || (u >= '0' && u <= '9') ||
	       ((u | 0x20) >= 'a' && (u | 0x20) <= 'z');
}

/* whether every @p open in @p s has its @p close after it, and no close comes first */
static bool balanced(const char *s, char open, char close)
{
	long d = 0;

	for (; *s; s++) {
		if (*s == open)
			d++;
		else if (*s == close && --d < 0)
			return false;
	}
	return d == 0;
}

/* the index of the bracket closing the one at @p s[i] */
static size_t closing(const char *s, size_t i, char open, char close)
{
	long d = 0;

	for (; s[i]; i++) {
		if (s[i] == open)
			d++;
		else if (s[i] == close && --d == 0)
			return i;
	}
	return i; /* none: the end */
}

/* step 0: demangled, without "void " */
static int display_form(struct gp_buf *out, const char *s)
{
	struct gp_buf d = GP_BUF_INIT;
	int rc = gp__demangle(&d, s);

	if (rc < 0)
		goto out_d;
	if (rc == 1)
		s = d.buf;
	if (strncmp(s, "void ", 5) == 0)
		s += 5;
	rc = gp__buf_addstr(out, s);
out_d:
	gp__buf_release(&d);
	return rc;
}

static const char anon[] = "(anonymous namespace)::";

/* step 1: namespaces and parameter lists (@p s balanced) */
static int short_form(struct gp_buf *out, const char *s)
{
	struct gp_buf t = GP_BUF_INIT;
	size_t i, j, n;
	int rc = 0, angle = 0, paren = 0;

	/* namespace qualifiers: an identifier that follows no identifier character, then "::" */
	for (i = 0; s[i] && !rc;) {
		if (strncmp(s + i, anon, sizeof(anon) - 1) == 0) {
			i += sizeof(anon) - 1;
			continue;
		}
		if (ident(s[i]) && (i == 0 || !ident(s[i - 1]))) {
			for (j = i; ident(s[j]); j++)
				;
			if (s[j] == ':' && s[j + 1] == ':' &&
			    (ident(s[j + 2]) || s[j + 2] == '(')) {
				i = j + 2;
				continue;
			}
			rc = gp__buf_add(&t, s + i, j - i);
			i = j;
			continue;
		}
		rc = gp__buf_addch(&t, s[i++]);
	}
	/* parameter lists: "(" after a name, a ">" or a ")"; the last one at top level goes */
	n = t.len;
	for (i = 0; i < n && !rc; i++) {
		char c = t.buf[i], prev = i ? t.buf[i - 1] : ' ';

		if (c == '(' && (ident(prev) || prev == '>' || prev == ')')) {
			j = closing(t.buf, i, '(', ')');
			if (j == i + 1) {
				rc = gp__buf_addstr(out, "()");
			} else if (!angle && !paren &&
			           (j + 1 == n || strcmp(t.buf + j + 1, " const") == 0)) {
				break; /* the function's own parameters */
			} else {
				rc = gp__buf_addstr(out, "(…)");
			}
			i = j;
			continue;
		}
		angle += c == '<' ? 1 : c == '>' ? -1 : 0;
		paren += c == '(' ? 1 : c == ')' ? -1 : 0;
		rc = gp__buf_addch(out, c);
	}
	gp__buf_release(&t);
	return rc;
}

/* step 2: template arguments two deep or more as "<…>" */
static int deep_form(struct gp_buf *out, const char *s)
{
	int rc = 0, depth = 0;

	for (size_t i = 0; s[i] && !rc; i++) {
		if (s[i] == '<' && depth >= 1) {
			rc = gp__buf_addstr(out, "<…>");
			i = closing(s, i, '<', '>');
			if (!s[i])
				break; /* no closing bracket: nothing more to show */
			continue;
		}
		depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
		rc = gp__buf_addch(out, s[i]);
	}
	return rc;
}

/* the forms of one name: 0 display, 1 short, 2 deep; and what is shown */
struct nm {
	struct gp_buf f[3];
	struct gp_buf shown;
};

static int fit_one(struct nm *m, const char *name, size_t w)
{
	int rc = display_form(&m->f[0], name);

	if (rc)
		return rc;
	/* C++: a qualified or template name whose brackets balance ("Memcpy HtoD (Pageable ->
	 * Device)" and "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" are not) */
	if ((strstr(m->f[0].buf, "::") || strchr(m->f[0].buf, '<')) &&
	    balanced(m->f[0].buf, '(', ')') && balanced(m->f[0].buf, '<', '>')) {
		if ((rc = short_form(&m->f[1], m->f[0].buf)) ||
		    (rc = deep_form(&m->f[2], m->f[1].buf)))
			return rc;
	} else if ((rc = gp__buf_addstr(&m->f[1], m->f[0].buf)) ||
	           (rc = gp__buf_addstr(&m->f[2], m->f[0].buf))) {
		return rc; /* not C++: every form is the display form */
	}
	for (int k = 0; k < 3; k++)
		if (!w || gp__text_width(m->f[k].buf) <= w)
			return gp__text_fit(&m->shown, m->f[k].buf, 0, 0);
	return gp__text_fit(&m->shown, m->f[2].buf, w, 0);
}

static size_t lcp(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	return i;
}

/* a letter or digit: the words of "split_embedding_backward" are three */
static bool alnum(char c)
{
	return ident(c) && c != '_' && c != '$';
}

/* where a window shows @p t from: byte @p p back to the start of its word */
static size_t window_start(const char *t, size_t p, size_t w)
{
	size_t s = p;

	while (s > 0 && alnum(t[s - 1]) && p - s < w / 3)
		s--;
	while (s > 0 && ((unsigned char)t[s] & 0xc0) == 0x80)
		s--; /* never inside a UTF-8 sequence */
	return s;
}

/* the columns of the character at @p t, its length in *@p len */
static size_t char_cols(const char *t, size_t *len)
{
	char one[8] = { t[0] };
	size_t n = 1;

	while (n < 4 && ((unsigned char)t[n] & 0xc0) == 0x80) {
		one[n] = t[n];
		n++;
	}
	*len = n;
	return gp__text_width(one);
}

/* the first byte of the last @p cols columns of @p t (at a character start); linear */
static size_t tail_start(const char *t, size_t cols)
{
	size_t s = 0, left = gp__text_width(t), len;

	while (t[s] && left > cols) {
		size_t c = char_cols(t + s, &len);

		left = c < left ? left - c : 0;
		s += len;
	}
	return s;
}

/* the columns a window keeps of a name's start */
static size_t head_cols(size_t w)
{
	return w / 5 < 3 ? 3 : w / 5;
}

/*
 * The start of @p t (a fifth of @p w), "…", then @p t from byte @p s, cut:
 * @p w columns in all.
 */
static int window(struct gp_buf *out, const char *t, size_t s, size_t w)
{
	size_t head = head_cols(w), fill = tail_start(t, w - head - 1);
	int rc;

	if (fill < s)
		s = fill; /* the name ends before the column does: show more of it */

	if ((rc = gp__text_fit(out, t, head + 1, 0)))
		return rc;
	return gp__text_fit(out, t + s, w - head - 1, 0);
}

/* what row @p i shows now */
static const char *cur(const struct nm *v, const struct gp_buf *alt, size_t i)
{
	return alt[i].len ? alt[i].buf : v[i].shown.buf;
}

/* whether @p s reads as what another row of the @p n than @p i shows now */
static bool clash(const struct nm *v, const struct gp_buf *alt, size_t n, size_t i, const char *s)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && strcmp(cur(v, alt, j), s) == 0)
			return true;
	return false;
}

/* two windows: from @p s1 (half of what the start leaves), then from @p s2 */
static int window2(struct gp_buf *out, const char *t, size_t s1, size_t s2, size_t w)
{
	size_t head = head_cols(w), half = (w - head - 1) / 2;
	int rc;

	if ((rc = gp__text_fit(out, t, head + 1, 0)) || (rc = gp__text_fit(out, t + s1, half, 0)))
		return rc;
	return gp__text_fit(out, t + s2, w - head - 1 - half, 0);
}

#define WAYS 4

/*
 * One group of rows whose cut names are equal while their names differ
 * (@p g, @p ng rows): each row shown as a window of its most compact form
 * that differs from the others': from where it departs from its nearest
 * name in the column; a row that then reads as another row tries from where
 * it first departs from its group, then its end, then both places at once.
 */
static int group_apart(struct nm *v, size_t n, const size_t *g, size_t ng, size_t w,
                       struct gp_buf *alt)
{
	struct gp_buf *cand = gp__calloc(ng * WAYS, sizeof(*cand));
	size_t a, b, way;
	int rc = 0;

	if (!cand)
		return gp__error(GP_ENOMEM, "out of memory");
	for (a = 0; a < ng * WAYS; a++)
		gp__buf_init(&cand[a], 0);
	for (a = 0; a < ng && !rc; a++) {
		const struct nm *m = &v[g[a]];
		size_t pmax = 0, pmin = SIZE_MAX;
		int k;

		/* the most compact form in which it reads apart from every other name */
		for (k = 2; k >= 0; k--) {
			bool apart = true;

			for (b = 0; b < n && apart; b++)
				apart = b == g[a] || strcmp(v[b].f[k].buf, m->f[k].buf) != 0 ||
				        strcmp(v[b].f[0].buf, m->f[0].buf) == 0;
			if (apart)
				break;
		}
		if (k < 0)
			continue; /* the same name twice: nothing to show apart */
		for (b = 0; b < ng; b++) {
			size_t l = b == a ? 0 : lcp(m->f[k].buf, v[g[b]].f[k].buf);

			if (b != a)
				pmin = l < pmin ? l : pmin;
		}
		/* from where it departs from its nearest name in the whole column */
		for (b = 0; b < n; b++) {
			size_t l = lcp(m->f[k].buf, v[b].f[k].buf);

			if (b != g[a] && strcmp(v[b].f[0].buf, m->f[0].buf) != 0 && l > pmax &&
			    m->f[k].buf[l])
				pmax = l;
		}
		if ((rc = window(&cand[a * WAYS], m->f[k].buf, window_start(m->f[k].buf, pmax, w),
		                 w)) ||
		    (rc = window(&cand[a * WAYS + 1], m->f[k].buf,
		                 window_start(m->f[k].buf, pmin, w), w)) ||
		    (rc = window(&cand[a * WAYS + 2], m->f[k].buf,
		                 tail_start(m->f[k].buf, w - head_cols(w) - 1), w)) ||
		    (pmin < pmax && w >= 24 &&
		     (rc = window2(&cand[a * WAYS + 3], m->f[k].buf,
		                   window_start(m->f[k].buf, pmin, w),
		                   window_start(m->f[k].buf, pmax, w), w))))
			break;
	}
	/* each row from its last difference; a row that still reads as another tries the next way
	 */
	for (way = 0; way < WAYS && !rc; way++) {
		for (a = 0; a < ng; a++) {
			const struct gp_buf *c = &cand[a * WAYS + way];
			bool taken = false;

			if (!c->len ||
			    (way && alt[g[a]].len && !clash(v, alt, n, g[a], alt[g[a]].buf)))
				continue;
			taken = clash(v, alt, n, g[a], c->buf);
			if (!way || !taken) {
				gp__buf_reset(&alt[g[a]]);
				rc = gp__buf_addstr(&alt[g[a]], c->buf);
			}
		}
	}
	for (a = 0; a < ng * WAYS; a++)
		gp__buf_release(&cand[a]);
	gp__free(cand);
	return rc;
}

#define ROUNDS 4 /* rows kept apart in one group may meet rows of another: again */

/* rows whose cut names collide while the names differ: the part that differs, shown */
static int keep_apart(struct nm *v, size_t n, size_t w, struct gp_buf *alt)
{
	size_t *g = gp__calloc(n, sizeof(*g));
	bool *done = gp__calloc(n, sizeof(*done));
	bool again = true;
	int rc = 0;

	if (!g || !done) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_g;
	}
	for (int round = 0; round < ROUNDS && again && !rc; round++) {
		again = false;
		memset(done, 0, n * sizeof(*done));
		for (size_t i = 0; i < n && !rc; i++) {
			size_t ng = 0;
			bool differ = false;

			if (done[i])
				continue;
			for (size_t j = i; j < n; j++)
				if (!done[j] && strcmp(cur(v, alt, j), cur(v, alt, i)) == 0) {
					done[j] = true;
					g[ng++] = j;
					differ =
					    differ || strcmp(v[j].f[0].buf, v[i].f[0].buf) != 0;
				}
			if (ng > 1 && differ) {
				again = true;
				for (size_t a = 0; a < ng; a++)
					gp__buf_reset(&alt[g[a]]);
				rc = group_apart(v, n, g, ng, w, alt);
			}
		}
	}
out_g:
	gp__free(g);
	gp__free(done);
	return rc;
}

int gp__names_fit(char **out, const char *const *names, size_t n, size_t w)
{
	struct nm *v = n ? gp__calloc(n, sizeof(*v)) : NULL;
	struct gp_buf *alt = n ? gp__calloc(n, sizeof(*alt)) : NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		out[i] = NULL;
	if (n && (!v || !alt)) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_v;
	}
	for (i = 0; i < n; i++) {
		for (int k = 0; k < 3; k++)
			gp__buf_init(&v[i].f[k], 0);
		gp__buf_init(&v[i].shown, 0);
		gp__buf_init(&alt[i], 0);
	}
	for (i = 0; i < n && !rc; i++)
		rc = fit_one(&v[i], names[i] ? names[i] : "-", w);
	if (!rc && w >= 8)
		rc = keep_apart(v, n, w, alt);
	for (i = 0; i < n && !rc; i++) {
		struct gp_buf *b = alt[i].len ? &alt[i] : &v[i].shown;

		if (!(out[i] = gp__strdup(b->buf)))
			rc = gp__error(GP_ENOMEM, "out of memory");
	}
	if (rc)
		gp__names_free(out, n);
out_v:
	for (i = 0; v && alt && i < n; i++) {
		for (int k = 0; k < 3; k++)
			gp__buf_release(&v[i].f[k]);
		gp__buf_release(&v[i].shown);
		gp__buf_release(&alt[i]);
	}
	gp__free(v);
	gp__free(alt);
	return rc;
}

void gp__names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++) {
		gp__free(names[i]);
		names[i] = NULL;
	}
}

int gp__names_fit_rows(char **out, const struct gp_value *rows, size_t n, const char *key, size_t w,
                       unsigned flags)
{
	struct gp_buf *sp = n ? gp__calloc(n, sizeof(*sp)) : NULL;
	const char **raw = n ? gp__calloc(n, sizeof(*raw)) : NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		out[i] = NULL;
	if (n && (!sp || !raw)) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_sp;
	}
	for (i = 0; i < n && !rc; i++) {
		raw[i] = gp_value_get_str(gp_obj_get(gp_arr_get(rows, i), key));
		gp__buf_init(&sp[i], 0);
		if (raw[i] && (flags & GP__TEXT_CTRL_SPACE) &&
		    !(rc = gp__text_fit(&sp[i], raw[i], 0, GP__TEXT_CTRL_SPACE)))
			raw[i] = sp[i].buf;
	}
	if (!rc)
		rc = gp__names_fit(out, raw, n, w);
out_sp:
	for (i = 0; sp && i < n; i++)
		gp__buf_release(&sp[i]);
	gp__free(sp);
	gp__free(raw);
	return rc;
}
