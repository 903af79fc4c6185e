/* SPDX-License-Identifier: MIT */
/*
 * json-prune.c - a gp_value tree of only the members a keep tree names
 * (json-prune.h).
 *
 * The walk follows json-parse.c's grammar step for step so that a document
 * is accepted or refused at the same byte with the same words: the members
 * it keeps are parsed by gp__json_parse_value() (whole) or by this walk
 * (pruned), the others are skipped by gp__json_skip(), and each of them is
 * given the nesting depth left at its place, so that GP_JSON_MAX_DEPTH
 * counts from the document's root as in a whole parse. Recursion follows
 * the keep tree only (an array's arrays are parsed whole), so the C stack
 * stays bounded by its depth whatever the input nests.
 */
#include "json-prune.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "gpuprof/value.h"
#include "json-scan.h"
#include "ts.h"

/* containers open around a value at most, as json-parse.c counts them */
#define MAXD GP_JSON_MAX_DEPTH

static int prune(struct gp_jscan *s, const char **pp, const struct gp_jkeep *keep, unsigned open,
                 struct gp_value **out);

static int skip(struct gp_jscan *s, const char **pp, unsigned open);

/* a member kept as its JSON text: member GP_JKEEP_TEXT @p key of @p obj */
static int text(struct gp_jscan *s, const char **pp, unsigned open, struct gp_value *obj,
                const char *key)
{
	const char *b = gp__json_ws(*pp, s->end);
	char name[64];
	int rc;

	if ((rc = skip(s, pp, open)))
		return rc;
	if ((size_t)snprintf(name, sizeof(name), GP_JKEEP_TEXT "%s", key) >= sizeof(name))
		return gp__json_fail(s, b, GP_EINVAL, "keep tree: key too long");
	if (gp_obj_set(obj, name, gp_value_strn(b, (size_t)(*pp - b))))
		return gp__json_fail(s, *pp, GP_ENOMEM, "out of memory");
	return 0;
}

static int trunc_at(struct gp_jscan *s)
{
	return gp__json_fail(s, s->end, GP_ETRUNC, "unexpected end of input");
}

/* the nesting left to a value with @p open containers around it; 0 when none */
static unsigned left(unsigned open)
{
	return open < MAXD ? MAXD - open : 0;
}

/*
 * A container where none may open: the error a whole parse gives there.
 * @return nonzero when *p opens one.
 */
static int too_deep(struct gp_jscan *s, const char *p, unsigned open)
{
	if (left(open) == 0 && p < s->end && (*p == '{' || *p == '['))
		return gp__json_fail(s, p, GP_ELIMIT, "nesting too deep");
	return 0;
}

/*
 * A scalar at *pp (no whitespace before it), made as json-parse.c makes it
 * (make_string, make_number), the same errors; without its stack of
 * GP_JSON_MAX_DEPTH frames, which a ledger's every number would allocate.
 */
static int scalar(struct gp_jscan *s, const char **pp, struct gp_value **out)
{
	const char *p = *pp;
	struct gp_str str;
	bool esc, is_int;
	int64_t i;
	char lit, *tmp;
	int rc;

	switch (*p) {
	case '"':
		if ((rc = gp__json_string(s, &p, &str, &esc)))
			return rc;
		if (!esc) {
			*out = gp_value_strn(str.p, str.len);
		} else if ((tmp = gp__malloc(str.len + 1))) {
			*out = gp_value_strn(tmp, gp__json_unescape(str.p, str.len, tmp));
			gp__free(tmp);
		}
		break;
	case 't':
	case 'f':
	case 'n':
		if ((rc = gp__json_literal(s, &p, &lit)))
			return rc;
		*out = lit == 'n' ? gp_value_null() : gp_value_bool(lit == 't');
		break;
	default:
		if (*p == 'N' || *p == 'I')
			return gp__json_fail(s, p, GP_EFORMAT, "NaN and Infinity are not JSON");
		if (*p == ']' || *p == '}' || *p == ',')
			return gp__json_fail(s, p, GP_EFORMAT, "value expected");
		if (*p != '-' && !gp__json_is_digit(*p))
			return gp__json_fail(s, p, GP_EFORMAT, "unexpected character");
		if ((rc = gp__json_number(s, &p, &str, &is_int)))
			return rc;
		if (is_int && gp__int_parse_fast(str.p, str.len, &i) == 0)
			*out = gp_value_int(i);
		else
			*out = gp_value_double(gp__json_double(str.p, str.len));
		break;
	}
	if (!*out)
		return gp__json_fail(s, p, GP_ENOMEM, "out of memory");
	*pp = p;
	return 0;
}

/* a value kept whole */
static int whole(struct gp_jscan *s, const char **pp, unsigned open, struct gp_value **out)
{
	const char *p = gp__json_ws(*pp, s->end);
	int rc;

	*out = NULL;
	*pp = p;
	if (p >= s->end)
		return trunc_at(s);
	if (*p != '{' && *p != '[')
		return scalar(s, pp, out);
	if ((rc = too_deep(s, p, open)))
		return rc;
	return gp__json_parse_value(s, pp, left(open), out);
}

/* a value skipped (validated) */
static int skip(struct gp_jscan *s, const char **pp, unsigned open)
{
	int rc;

	*pp = gp__json_ws(*pp, s->end);
	if ((rc = too_deep(s, *pp, open)))
		return rc;
	return gp__json_skip(s, pp, left(open) ? left(open) : 1);
}

/* the entry of @p keep for key @p k, or NULL */
static const struct gp_jkeep *find(const struct gp_jkeep *keep, const char *k)
{
	for (; keep->key; keep++)
		if (keep->key[0] == k[0] && strcmp(keep->key, k) == 0)
			return keep;
	return NULL;
}

/*
 * The key at *pp decoded into @p small (@p n bytes) or a new buffer (*@p
 * heap, freed by the caller): a C string, cut at a \u0000 as a whole
 * parse's keys are.
 */
static int key(struct gp_jscan *s, const char **pp, char *small, size_t n, char **k, char **heap)
{
	struct gp_str str;
	bool esc;
	size_t len;
	int rc;

	if ((rc = gp__json_string(s, pp, &str, &esc)))
		return rc;
	*k = small;
	if (str.len >= n) {
		if (!(*heap = gp__malloc(str.len + 1)))
			return gp__json_fail(s, *pp, GP_ENOMEM, "out of memory");
		*k = *heap;
	}
	if (esc) {
		len = gp__json_unescape(str.p, str.len, *k);
	} else {
		memcpy(*k, str.p, str.len);
		len = str.len;
	}
	(*k)[len] = '\0';
	return 0;
}

static int object(struct gp_jscan *s, const char **pp, const struct gp_jkeep *keep, unsigned open,
                  struct gp_value *obj)
{
	const char *p = gp__json_ws(*pp + 1, s->end), *end = s->end;
	int rc = 0;

	if (p >= end)
		return trunc_at(s);
	if (*p == '}') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		char small[64], *k = NULL, *heap = NULL;
		const struct gp_jkeep *e;
		struct gp_value *v = NULL;

		if (p >= end)
			return trunc_at(s);
		if (*p != '"')
			return gp__json_fail(s, p, GP_EFORMAT, "expected string key in object");
		if ((rc = key(s, &p, small, sizeof(small), &k, &heap)))
			goto next;
		p = gp__json_ws(p, end);
		if (p >= end) {
			rc = trunc_at(s);
			goto next;
		}
		if (*p != ':') {
			rc = gp__json_fail(s, p, GP_EFORMAT, "expected ':' after object key");
			goto next;
		}
		p++;
		if (!(e = find(keep, k))) {
			rc = skip(s, &p, open);
			goto next;
		}
		if (e->text) {
			rc = text(s, &p, open, obj, e->key);
			goto next;
		}
		rc = e->sub ? prune(s, &p, e->sub, open, &v) : whole(s, &p, open, &v);
		/* a duplicate key replaces the member, as in a whole parse */
		if (!rc && gp_obj_set(obj, k, v))
			rc = gp__json_fail(s, p, GP_ENOMEM, "out of memory");
	next:
		gp__free(heap);
		if (rc)
			return rc;
		p = gp__json_ws(p, end);
		if (p >= end)
			return trunc_at(s);
		if (*p == ',') {
			p = gp__json_ws(p + 1, end);
			continue;
		}
		if (*p != '}')
			return gp__json_fail(s, p, GP_EFORMAT, "expected ',' or '}' in object");
		*pp = p + 1;
		return 0;
	}
}

static int array(struct gp_jscan *s, const char **pp, const struct gp_jkeep *keep, unsigned open,
                 struct gp_value *arr)
{
	const char *p = gp__json_ws(*pp + 1, s->end), *end = s->end;
	int rc;

	if (p >= end)
		return trunc_at(s);
	if (*p == ']') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		struct gp_value *v = NULL;

		p = gp__json_ws(p, end);
		rc = p < end && *p == '{' ? prune(s, &p, keep, open, &v) : whole(s, &p, open, &v);
		if (rc)
			return rc;
		if (gp_arr_push(arr, v))
			return gp__json_fail(s, p, GP_ENOMEM, "out of memory");
		p = gp__json_ws(p, end);
		if (p >= end)
			return trunc_at(s);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p != ']')
			return gp__json_fail(s, p, GP_EFORMAT, "expected ',' or ']' in array");
		*pp = p + 1;
		return 0;
	}
}

/* a value with @p open containers around it, pruned by @p keep when a container */
static int prune(struct gp_jscan *s, const char **pp, const struct gp_jkeep *keep, unsigned open,
                 struct gp_value **out)
{
	const char *p = gp__json_ws(*pp, s->end);
	struct gp_value *v;
	int rc;

	*out = NULL;
	if (p >= s->end || (*p != '{' && *p != '['))
		return whole(s, pp, open, out);
	if ((rc = too_deep(s, p, open)))
		return rc;
	if (!(v = *p == '{' ? gp_value_object() : gp_value_array()))
		return gp__json_fail(s, p, GP_ENOMEM, "out of memory");
	rc = *p == '{' ? object(s, &p, keep, open + 1, v) : array(s, &p, keep, open + 1, v);
	if (rc) {
		gp_value_free(v);
		return rc;
	}
	*pp = p;
	*out = v;
	return 0;
}

int gp__json_parse_pruned(const char *text, size_t len, const struct gp_jkeep *keep,
                          struct gp_value **out, size_t *err_off)
{
	struct gp_jscan s = { .end = text + len, .eof = true };
	const char *p = text;
	struct gp_value *v = NULL;
	int rc;

	if (!keep)
		return gp_value_parse(text, len, out, err_off);
	*out = NULL;
	if (err_off)
		*err_off = 0;
	if (!text && len)
		return gp__error(GP_EINVAL, "gp__json_parse_pruned: NULL argument");
	if (!text)
		text = p = "";
	s.end = text + len;
	rc = prune(&s, &p, keep, 0, &v);
	return gp__json_parse_end(&s, text, p, rc, v, err_off, out);
}
