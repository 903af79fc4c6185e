/* SPDX-License-Identifier: MIT */
/*
 * load-pgs.c - the process groups load.c reads without a tree: the rank
 * lists, reference-counted and shared between the ranks that list the
 * same, and the process groups kept as their JSON text by the pruned parse,
 * walked here as reduce_pgs() takes them from a tree. A default group lists
 * every rank of the job in every rank's report: a node per number, and a
 * list per rank, would grow with the square of the ranks.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aggregate-int.h"
#include "load-int.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/ts.h"

/*
 * A process group's rank list, shared by the ranks whose reports list the
 * same (sink_add): every rank's report lists the default group's every
 * rank, so one list per rank would be memory growing with the square of
 * the ranks. Reference-counted; the records point at v.
 */
struct rlist {
	size_t refs, n;
	int64_t v[];
};

static struct rlist *rlist_of(int64_t *v)
{
	return (struct rlist *)(void *)((char *)v - offsetof(struct rlist, v));
}

/* a new list of @p n ranks (one reference), or NULL */
int64_t *gp__agg_rlist_new(size_t n)
{
	struct rlist *l;

	if (n > (SIZE_MAX - sizeof(*l)) / sizeof(l->v[0]) ||
	    !(l = gp__malloc(sizeof(*l) + n * sizeof(l->v[0]))))
		return NULL;
	l->refs = 1;
	l->n = n;
	return l->v;
}

void gp__agg_rlist_unref(int64_t *v)
{
	if (v && --rlist_of(v)->refs == 0)
		gp__free(rlist_of(v));
}

void gp__agg_rlist_share(int64_t **mine, int64_t *other)
{
	if (rlist_of(other)->n != rlist_of(*mine)->n ||
	    memcmp(other, *mine, rlist_of(other)->n * sizeof(*other)) != 0)
		return; /* another list of the same hash: kept apart */
	rlist_of(other)->refs++;
	gp__agg_rlist_unref(*mine);
	*mine = other;
}

/*
 * The number at *pp as an int64, as gp_value_get_int() takes the value a
 * whole parse makes of it (an integer, or a double that is a whole number
 * within range); @return false for any other number.
 */
static bool text_int(struct gp_jscan *s, const char **pp, int64_t *out)
{
	struct gp_str num;
	bool is_int;
	double d;

	if (gp__json_number(s, pp, &num, &is_int))
		return false;
	if (is_int && gp__int_parse(num.p, num.len, out) == 0)
		return true;
	d = gp__json_double(num.p, num.len);
	if (!isfinite(d) || d != floor(d) || fabs(d) >= 9.2e18)
		return false;
	*out = (int64_t)d;
	return true;
}

/* the value at @p p (valid JSON: the pruned parse checked it) as int_or(v, @p dflt) takes it */
static int64_t text_int_or(struct gp_jscan *s, const char *p, int64_t dflt)
{
	int64_t x;

	p = gp__json_ws(p, s->end);
	if (p < s->end && (*p == '-' || gp__json_is_digit(*p)) && text_int(s, &p, &x))
		return x;
	return dflt;
}

/* the string at @p p interned as intern() does a string value (cut at a \u0000); else none */
static int text_intern(struct gp_jscan *s, const char *p, struct gp_strtab *st, uint32_t *id)
{
	struct gp_str raw;
	char *tmp;
	bool esc;
	int rc;

	*id = GP__AGG_NONE;
	p = gp__json_ws(p, s->end);
	if (p >= s->end || *p != '"' || gp__json_string(s, &p, &raw, &esc))
		return 0;
	if (!esc)
		return gp__strtab_intern(st, raw.p, strnlen(raw.p, raw.len), id);
	if (!(tmp = gp__malloc(raw.len + 1)))
		return gp__error(GP_ENOMEM, "out of memory");
	raw.len = gp__json_unescape(raw.p, raw.len, tmp);
	rc = gp__strtab_intern(st, tmp, strnlen(tmp, raw.len), id);
	gp__free(tmp);
	return rc;
}

/*
 * The members of the object at *pp (past it after): in @p at, where the
 * value of each of @p keys is (the last one of a repeated key), or NULL.
 */
static int text_members(struct gp_jscan *s, const char **pp, const char *const *keys,
                        const char **at, size_t nkeys)
{
	const char *p = gp__json_ws(*pp + 1, s->end);
	struct gp_str raw;
	bool esc;
	size_t k;

	for (k = 0; k < nkeys; k++)
		at[k] = NULL;
	while (p < s->end && *p == '"') {
		char key[32];
		size_t n = 0;

		if (gp__json_string(s, &p, &raw, &esc))
			return GP_EFORMAT;
		/* a key longer than any of @p keys (even unescaped) is none of them */
		if (raw.len < sizeof(key))
			n = esc ? gp__json_unescape(raw.p, raw.len, key) : raw.len;
		if (raw.len < sizeof(key) && !esc)
			memcpy(key, raw.p, n);
		key[n] = '\0';
		p = gp__json_ws(p, s->end);
		if (p >= s->end || *p != ':')
			return GP_EFORMAT;
		p = gp__json_ws(p + 1, s->end);
		for (k = 0; k < nkeys; k++)
			if (raw.len < sizeof(key) && strcmp(key, keys[k]) == 0)
				at[k] = p;
		if (gp__json_skip(s, &p, 0))
			return GP_EFORMAT;
		p = gp__json_ws(p, s->end);
		if (p < s->end && *p == ',')
			p = gp__json_ws(p + 1, s->end);
	}
	if (p >= s->end || *p != '}')
		return GP_EFORMAT;
	*pp = p + 1;
	return 0;
}

/* the rank list at @p p, as reduce_pgs() takes it from a tree: its integers, -1 for the rest */
static int text_ranks(struct gp_jscan *s, const char *p, struct gp__agg_pg *g)
{
	int64_t *tmp = NULL, x;
	size_t n = 0, cap = 0;
	const char *q;
	int rc = 0;

	p = gp__json_ws(p, s->end);
	if (p >= s->end || *p != '[')
		return 0;
	for (q = gp__json_ws(p + 1, s->end); q < s->end && *q != ']'; n++) {
		const char *e = q;

		GP_TRY(gp__grow((void **)&tmp, &cap, n + 1, sizeof(*tmp)));
		/* a plain rank number, converted as it is scanned: the common case */
		if (gp__json_fast_int(&q, s->end, &x)) {
			tmp[n] = x;
		} else {
			tmp[n] = text_int_or(s, e, -1);
			if (gp__json_skip(s, &q, 0))
				GP_TRY(GP_EFORMAT);
		}
		q = gp__json_ws(q, s->end);
		if (q < s->end && *q == ',')
			q = gp__json_ws(q + 1, s->end);
	}
	/* one list of its size, shared as it is (gp__agg_rlist_share) */
	if (n && !(g->ranks = gp__agg_rlist_new(n)))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (n)
		memcpy(g->ranks, tmp, n * sizeof(*tmp));
	g->nranks = n;
out:
	gp__free(tmp);
	return rc;
}

/*
 * reduce_pgs() (load.c) of process_groups kept as its JSON text by the pruned parse
 * (GP_JKEEP_TEXT): a default group lists every rank of the job in every
 * rank's report, a tree node per number otherwise. test_json_prune checks
 * that both give the same record.
 */
int gp__agg_reduce_pgs_text(const char *text, const char *file, int64_t rank, struct gp_strtab *st,
                            struct gp__agg_rank *out)
{
	static const char *const keys[] = { "name", "desc", "size", "ranks" };
	struct gp_jscan s = { .end = text + strlen(text), .eof = true };
	const char *p = gp__json_ws(text, s.end), *at[4];
	size_t cap = 0;
	int rc = 0;

	if (p >= s.end || *p != '[')
		return gp__error(GP_EFORMAT,
		                 "'%s': rank %lld: collectives.process_groups is not a list", file,
		                 (long long)rank);
	for (p = gp__json_ws(p + 1, s.end); p < s.end && *p != ']';) {
		struct gp__agg_pg *g;

		GP_TRY(gp__grow((void **)&out->pg, &cap, out->npg + 1, sizeof(*out->pg)));
		g = &out->pg[out->npg++];
		memset(g, 0, sizeof(*g));
		g->name = g->desc = GP__AGG_NONE;
		g->size = -1;
		if (*p != '{') {
			if (gp__json_skip(&s, &p, 0))
				GP_TRY(gp__error(GP_EFORMAT, "'%s': rank %lld: bad process_groups",
				                 file, (long long)rank));
		} else {
			if (text_members(&s, &p, keys, at, 4))
				GP_TRY(gp__error(GP_EFORMAT, "'%s': rank %lld: bad process_groups",
				                 file, (long long)rank));
			if (at[0])
				GP_TRY(text_intern(&s, at[0], st, &g->name));
			if (at[1])
				GP_TRY(text_intern(&s, at[1], st, &g->desc));
			if (at[2])
				g->size = text_int_or(&s, at[2], -1);
			if (at[3])
				GP_TRY(text_ranks(&s, at[3], g));
		}
		p = gp__json_ws(p, s.end);
		if (p < s.end && *p == ',')
			p = gp__json_ws(p + 1, s.end);
	}
out:
	return rc;
}
