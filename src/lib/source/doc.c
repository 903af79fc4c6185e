/* SPDX-License-Identifier: MIT */
/*
 * doc.c - gpuprof's own JSON documents (analyze reports, bench results,
 * compare results) read back: whole, parsed into a gp_value tree, their
 * kind told by their "schema". The commands check the shape they need
 * (compare/check.h). Used by compare and report through the resolver's kinds.
 */
#include <string.h>

#include "gpuprof/analyze.h"
#include "gpuprof/bench.h"
#include "gpuprof/compare.h"
#include "source.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json-prune.h"

#ifndef GP_AGGREGATE_SCHEMA
#define GP_AGGREGATE_SCHEMA "gpuprof.aggregate/1"
#endif

#define DOC_MAX_BYTES ((size_t)1 << 30) /* a document larger than this is refused */

enum gp__src_kind gp__doc_kind(const struct gp_value *v)
{
	const char *s = gp_value_get_str(gp_obj_get(v, "schema"));

	if (!s)
		return GP_SRC_DOC;
	if (strcmp(s, GP_BENCH_SCHEMA) == 0)
		return GP_SRC_BENCH;
	if (strcmp(s, GP_ANALYZE_SCHEMA) == 0)
		return GP_SRC_ANALYZE;
	if (strcmp(s, GP_COMPARE_SCHEMA) == 0)
		return GP_SRC_COMPARE;
	if (strcmp(s, GP_AGGREGATE_SCHEMA) == 0)
		return GP_SRC_AGGREGATE;
	return GP_SRC_DOC;
}

int gp__doc_read_pruned(const struct gp__src *s, const struct gp_jkeep *keep, struct gp_value **out)
{
	const char *path = s->path;
	char *text = NULL;
	size_t got = 0, off = 0;
	int rc;

	*out = NULL;
	if (s->is_stdin) {
		/* the resolver read standard input whole: it cannot be read again */
		if ((rc = gp__json_parse_pruned(s->mem, s->len, keep, out, &off)) &&
		    rc != GP_ENOMEM)
			gp__error_prefix("'%s'", path);
		return rc;
	}
	if ((rc = gp__read_prefix(path, DOC_MAX_BYTES, &text, &got)))
		return rc;
	if (got == DOC_MAX_BYTES) {
		rc = gp__error(GP_ELIMIT, "'%s': larger than %zu bytes: not a gpuprof document",
		               path, DOC_MAX_BYTES);
		goto out;
	}
	if ((rc = gp__json_parse_pruned(text, got, keep, out, &off)) && rc != GP_ENOMEM)
		gp__error_prefix("'%s'", path);
out:
	gp__free(text);
	return rc;
}

int gp__doc_read(const struct gp__src *s, struct gp_value **out)
{
	return gp__doc_read_pruned(s, NULL, out);
}

int gp__doc_ranks_list(const struct gp_value *doc, struct gp_buf *b)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	size_t i, k = 0;
	int rc = 0;

	for (i = 0; i < gp_value_len(ranks); i++) {
		int64_t x;

		if (gp_value_get_int(gp_obj_get(gp_arr_get(ranks, i), "rank"), &x))
			GP_TRY(gp__buf_addf(b, "%s%lld", k++ ? ", " : "", (long long)x));
	}
	if (!k)
		GP_TRY(gp__buf_addstr(b, "none"));
out:
	return rc;
}
