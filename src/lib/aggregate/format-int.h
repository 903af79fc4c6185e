/* SPDX-License-Identifier: MIT */
/*
 * format-int.h - what the two files of an aggregate's text share: the
 * formatter's state, its small helpers, and the groups of ranks by host or
 * GPU model. format.c draws the header, the desync, the stragglers and the
 * per-rank table; format-job.c the clocks and the collectives, and groups
 * the ranks (format.c calls format-job.c, never the other way).
 */
#ifndef GP_AGGREGATE_FORMAT_INT_H
#define GP_AGGREGATE_FORMAT_INT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuprof/value.h"
#include "text/text.h"
#include "util/buf.h"

/*
 * The cut of a column whose names are whole (--wide): a cut still makes
 * control characters of a hostile document '?', which no cut (0) would not
 */
#define WIDE_CUT 4096

struct agf {
	struct gp__out o;
	size_t top; /* rows per table, 0: all */
	int width;  /* columns */
	bool wide;  /* names whole */
};

#define out(f, ...) gp__out_addf(&(f)->o, __VA_ARGS__)

static inline void keep(struct agf *f, int rc)
{
	gp__out_keep(&f->o, rc);
}

static inline const struct gp_value *get(const struct gp_value *v, const char *key)
{
	return gp_obj_get(v, key);
}

/* the number of @p v, NaN (unknown) when it has none */
static inline double nv(const struct gp_value *v)
{
	double d;

	return gp_value_get_double(v, &d) ? d : NAN;
}

static inline const char *str(const struct gp_value *v, const char *dflt)
{
	const char *s = gp_value_get_str(v);

	return s ? s : dflt;
}

static inline size_t rows_to_show(size_t n, const struct agf *f)
{
	return f->top && n > f->top ? f->top : n;
}

/* word-wraps @p s at the width after @p indent spaces and @p first (text.h RAW) */
static inline void wrap(struct agf *f, const char *s, int indent, const char *first)
{
	char lead[96];

	snprintf(lead, sizeof(lead), "%*s%s", indent, "", first);
	keep(f, gp__text_wrap(&f->o.b, lead, s, (size_t)f->width,
	                      (size_t)indent + gp__text_width(first), GP__WRAP_RAW));
}

/*
 * Groups of ranks sharing the string member @p key (host, gpu_model): the
 * distinct values in order of first rank, each with its ranks; a rank whose
 * value is unknown goes in a group of NULL.
 */
struct gp__agf_group {
	const char *name; /* NULL: unknown */
	const struct gp_value *first;
	int64_t *ranks; /* into one array of all the ranks: the first group's owns it */
	size_t n;
};

/* format-job.c */

/** The groups of @p ranks by @p key into *@p out (free with gp__agf_groups_free()). */
int gp__agf_groups_of(const struct gp_value *ranks, const char *key, struct gp__agf_group **out,
                      size_t *nout);
void gp__agf_groups_free(struct gp__agf_group *g, size_t n);
/** Appends ranks @p r[0..n) (sorted here) as ranges "0-3, 5"; at most 8 ranges, then "…". */
void gp__agf_add_ranks(struct gp_buf *b, int64_t *r, size_t n, int *rc);

/** The clocks of the hosts, when an offset is not 0 or not known. */
void gp__agf_print_clocks(struct agf *f, const struct gp_value *agg);
/** The collectives per process group and name. */
void gp__agf_print_collectives(struct agf *f, const struct gp_value *agg);

#endif
