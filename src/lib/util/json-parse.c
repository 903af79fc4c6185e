/* SPDX-License-Identifier: MIT */
/*
 * json-parse.c - JSON text to a gp_value tree (gp_value_parse, value.h).
 *
 * Built on the json-scan.h tokenizer with an explicit stack of open
 * containers (no recursion), so a 100 000-deep document costs a bounded
 * amount of memory and ends with GP_ELIMIT at GP_JSON_MAX_DEPTH. Every node
 * is attached to its parent as soon as it is made, so freeing the root on
 * error frees everything. Used for report files and the Kineto metadata.
 */
#include "gpuprof/value.h"

#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json-scan.h"
#include "ts.h"

struct frame {
	struct gp_value *v;
	char *key; /* pending member key (objects) */
	bool obj;
};

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* Decimal text to double, independent of the process locale. */
double gp__json_double(const char *p, size_t n)
{
	char small[64], *buf = small, *endp;
	double d;

	if (n >= sizeof(small)) {
		buf = gp__malloc(n + 1);
		if (!buf)
			return 0.0 / 0.0; /* NaN: "unknown" rather than a wrong number */
	}
	memcpy(buf, p, n);
	buf[n] = '\0';
	pthread_once(&c_locale_once, make_c_locale);
	d = c_locale ? strtod_l(buf, &endp, c_locale) : strtod(buf, &endp);
	if (buf != small)
		gp__free(buf);
	return d;
}

static struct gp_value *make_string(const struct gp_str *raw, bool esc)
{
	struct gp_value *v;
	char *tmp;
	size_t n;

	if (!esc)
		return gp_value_strn(raw->p, raw->len);
	tmp = gp__malloc(raw->len + 1);
	if (!tmp)
		return NULL;
	n = gp__json_unescape(raw->p, raw->len, tmp);
	v = gp_value_strn(tmp, n);
	gp__free(tmp);
	return v;
}

static struct gp_value *make_number(const struct gp_str *num, bool is_int)
{
	int64_t i;

	if (is_int && gp__int_parse(num->p, num->len, &i) == 0)
		return gp_value_int(i);
	return gp_value_double(gp__json_double(num->p, num->len));
}

/* Attaches @p node to the innermost open container (or makes it the root). */
static int attach(struct frame *st, unsigned depth, struct gp_value **root, struct gp_value *node)
{
	struct frame *f;
	int rc;

	if (!node)
		return GP_ENOMEM;
	if (depth == 0) {
		*root = node;
		return 0;
	}
	f = &st[depth - 1];
	if (f->obj) {
		rc = gp_obj_set(f->v, f->key, node);
		gp__free(f->key);
		f->key = NULL;
	} else {
		rc = gp_arr_push(f->v, node);
	}
	return rc;
}

int gp__json_parse_value(struct gp_jscan *s, const char **pp, unsigned max_depth,
                         struct gp_value **out)
{
	struct frame *st;
	struct gp_value *root = NULL, *node;
	const char *p = *pp, *end = s->end;
	unsigned depth = 0, i;
	size_t nst = 16; /* frames allocated: grown as the nesting needs, up to max_depth */
	struct gp_str str;
	bool esc, is_int;
	char lit;
	int rc = 0;

	*out = NULL;
	if (max_depth == 0 || max_depth > GP_JSON_MAX_DEPTH)
		max_depth = GP_JSON_MAX_DEPTH;
	if (nst > max_depth)
		nst = max_depth;
	st = gp__calloc(nst, sizeof(*st));
	if (!st)
		return gp__json_fail(s, p, GP_ENOMEM, "out of memory");
value:
	p = gp__json_ws(p, end);
	if (p >= end) {
		rc = gp__json_fail(s, end, GP_ETRUNC, "unexpected end of input");
		goto out;
	}
	switch (*p) {
	case '{':
	case '[': {
		bool obj = *p == '{';

		if (depth >= max_depth) {
			rc = gp__json_fail(s, p, GP_ELIMIT, "nesting too deep");
			goto out;
		}
		if (depth >= nst) {
			size_t ncap = nst;
			struct frame *ns = st;

			if (gp__grow((void **)&ns, &ncap, depth + 1, sizeof(*st))) {
				rc = GP_ENOMEM;
				goto nomem;
			}
			memset(ns + nst, 0, (ncap - nst) * sizeof(*st));
			st = ns;
			nst = ncap;
		}
		node = obj ? gp_value_object() : gp_value_array();
		if ((rc = attach(st, depth, &root, node)))
			goto nomem;
		st[depth].v = node;
		st[depth].obj = obj;
		st[depth].key = NULL;
		depth++;
		p = gp__json_ws(p + 1, end);
		if (p >= end) {
			rc = gp__json_fail(s, end, GP_ETRUNC, "unexpected end of input");
			goto out;
		}
		if (*p == (obj ? '}' : ']')) {
			p++;
			depth--;
			goto close;
		}
		if (obj)
			goto key;
		goto value;
	}
	case '"':
		if ((rc = gp__json_string(s, &p, &str, &esc)))
			goto out;
		if ((rc = attach(st, depth, &root, make_string(&str, esc))))
			goto nomem;
		goto close;
	case 't':
	case 'f':
	case 'n':
		if ((rc = gp__json_literal(s, &p, &lit)))
			goto out;
		node = lit == 'n' ? gp_value_null() : gp_value_bool(lit == 't');
		if ((rc = attach(st, depth, &root, node)))
			goto nomem;
		goto close;
	default:
		if (*p == '-' || (*p >= '0' && *p <= '9')) {
			if ((rc = gp__json_number(s, &p, &str, &is_int)))
				goto out;
			if ((rc = attach(st, depth, &root, make_number(&str, is_int))))
				goto nomem;
			goto close;
		}
		if (*p == 'N' || *p == 'I')
			rc = gp__json_fail(s, p, GP_EFORMAT, "NaN and Infinity are not JSON");
		else if (*p == ']' || *p == '}' || *p == ',')
			rc = gp__json_fail(s, p, GP_EFORMAT, "value expected");
		else
			rc = gp__json_fail(s, p, GP_EFORMAT, "unexpected character");
		goto out;
	}
key:
	if (p >= end) {
		rc = gp__json_fail(s, end, GP_ETRUNC, "unexpected end of input");
		goto out;
	}
	if (*p != '"') {
		rc = gp__json_fail(s, p, GP_EFORMAT, "expected string key in object");
		goto out;
	}
	if ((rc = gp__json_string(s, &p, &str, &esc)))
		goto out;
	{
		char *k = gp__malloc(str.len + 1);
		size_t n;

		if (!k) {
			rc = GP_ENOMEM;
			goto nomem;
		}
		if (esc) {
			n = gp__json_unescape(str.p, str.len, k);
		} else {
			memcpy(k, str.p, str.len);
			n = str.len;
		}
		k[n] = '\0';
		st[depth - 1].key = k;
	}
	p = gp__json_ws(p, end);
	if (p >= end) {
		rc = gp__json_fail(s, end, GP_ETRUNC, "unexpected end of input");
		goto out;
	}
	if (*p != ':') {
		rc = gp__json_fail(s, p, GP_EFORMAT, "expected ':' after object key");
		goto out;
	}
	p++;
	goto value;
close:
	if (depth == 0)
		goto out;
	p = gp__json_ws(p, end);
	if (p >= end) {
		rc = gp__json_fail(s, end, GP_ETRUNC, "unexpected end of input");
		goto out;
	}
	if (st[depth - 1].obj) {
		if (*p == ',') {
			p = gp__json_ws(p + 1, end);
			goto key;
		}
		if (*p != '}') {
			rc = gp__json_fail(s, p, GP_EFORMAT, "expected ',' or '}' in object");
			goto out;
		}
	} else {
		if (*p == ',') {
			p++;
			goto value;
		}
		if (*p != ']') {
			rc = gp__json_fail(s, p, GP_EFORMAT, "expected ',' or ']' in array");
			goto out;
		}
	}
	p++;
	depth--;
	goto close;
nomem:
	rc = gp__json_fail(s, p, GP_ENOMEM, "out of memory");
out:
	for (i = 0; i < nst && i <= depth; i++)
		gp__free(st[i].key);
	gp__free(st);
	if (rc) {
		gp_value_free(root);
		return rc;
	}
	*pp = p;
	*out = root;
	return 0;
}

int gp__json_parse_end(struct gp_jscan *s, const char *text, const char *p, int rc,
                       struct gp_value *v, size_t *err_off, struct gp_value **out)
{
	if (rc == 0) {
		p = gp__json_ws(p, s->end);
		if (p < s->end)
			rc =
			    gp__json_fail(s, p, GP_EFORMAT, "trailing characters after JSON value");
	}
	if (rc) {
		size_t off = (size_t)(s->err_at - text);

		gp_value_free(v);
		if (err_off)
			*err_off = off;
		return gp__error(rc, "byte %zu: %s", off,
		                 s->err_msg ? s->err_msg : gp_strerror(rc));
	}
	*out = v;
	return 0;
}

GP_API int gp_value_parse(const char *text, size_t len, struct gp_value **out, size_t *err_off)
{
	struct gp_jscan s = { .end = text + len, .eof = true };
	const char *p = text;
	struct gp_value *v = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (err_off)
		*err_off = 0;
	if (!out || (!text && len))
		return gp__error(GP_EINVAL, "gp_value_parse: NULL argument");
	if (!text)
		text = p = "";
	s.end = text + len;
	rc = gp__json_parse_value(&s, &p, GP_JSON_MAX_DEPTH, &v);
	return gp__json_parse_end(&s, text, p, rc, v, err_off, out);
}
