/* SPDX-License-Identifier: MIT */
/*
 * load.c - one side of a comparison, from a path to a tree. What the path is
 * comes from the source layer (source/source.h): a bench result or an
 * analyze report (JSON documents gpuprof wrote, read whole), or traces,
 * captures and run directories, read by the analysis (which streams them).
 * A directory is the union of its documents when its files are all bench
 * results or all reports, else a directory of traces (or a `gpuprof run`
 * directory); files in it that are neither are left out.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze-srcs.h"
#include "compare-int.h"
#include "gpuprof/analyze.h"
#include "gpuprof/bench.h"
#include "source/source.h"
#include "util/opts.h"

/* "'path'": how errors and warnings name a file */
static char *quoted(const char *path)
{
	size_t n = strlen(path);
	char *q = gp__malloc(n + 3);

	if (q) {
		q[0] = '\'';
		memcpy(q + 1, path, n);
		q[n + 1] = '\'';
		q[n + 2] = '\0';
	}
	return q;
}

/* what an input of kind @p k is: the "input" of result.base / result.new */
static const char *kind_name(enum gp_compare_input k)
{
	return k == GP_COMPARE_BENCH       ? "bench"
	       : k == GP_COMPARE_REPORT    ? "report"
	       : k == GP_COMPARE_AGGREGATE ? "aggregate"
	                                   : "trace";
}

/* parses the gpuprof document @p path whole; checks its schema */
static int load_doc(const struct gp__src *src, struct gp_value **out, enum gp_compare_input *kind)
{
	const char *path = src->path;
	struct gp_value *v = NULL;
	const char *schema;
	char *label = NULL;
	int rc, k;

	*out = NULL;
	if ((rc = gp__doc_read(src, &v)))
		return rc;
	schema = gp_value_get_str(gp_obj_get(v, "schema"));
	k = gp__cmp_tree_kind(v);
	if (k < 0) {
		if (schema)
			rc = gp__error(GP_EVERSION,
			               "'%s': schema '%s' is not one that compare reads (%s, %s, "
			               "%s)",
			               path, schema, GP_BENCH_SCHEMA, GP_ANALYZE_SCHEMA,
			               "gpuprof.aggregate/1");
		else
			rc = gp__error(
			    GP_EFORMAT,
			    "'%s': no \"schema\": not a bench result, report or aggregate", path);
		goto out;
	}
	if (!(label = quoted(path))) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	rc = k == GP_COMPARE_BENCH       ? gp__cmp_check_bench(v, label)
	     : k == GP_COMPARE_AGGREGATE ? gp__cmp_check_aggregate(v, label)
	                                 : gp__cmp_check_report(v, label);
	if (rc)
		goto out;
	*kind = (enum gp_compare_input)k;
	*out = v;
	v = NULL;
out:
	gp_value_free(v);
	gp__free(label);
	return rc;
}

static int analyze(const char *path, struct gp__srcs *srcs, const struct gp_compare_opts *o,
                   struct gp_value **out)
{
	struct gp_analyze_opts ao;
	int rc;

	memset(&ao, 0, sizeof(ao));
	ao.size = sizeof(ao);
	ao.compat = GP_COMPAT_NONE;
	ao.top = 0;
	ao.only_rank = o && o->rank >= 0 ? o->rank : -1;
	ao.threads = o ? o->threads : 0;
	/* what compare does not read is named as compare's, before analyze's own check */
	rc = gp__srcs_keep(srcs, GP__ANALYZE_KINDS, "compare");
	if (!rc)
		rc = gp__analyze_srcs(srcs, &ao, out);
	/* every error names the input */
	if (rc && rc != GP_ENOMEM && !strstr(gp_last_error(), path))
		gp__error_prefix("'%s'", path);
	return rc;
}

/* appends the series (bench) or ranks (report) of @p add to @p into */
static int merge_doc(struct gp_value *into, const struct gp_value *add, int kind, const char *path,
                     const char *first)
{
	const char *key = kind == GP_COMPARE_BENCH ? "series" : "ranks";
	struct gp_value *arr = (struct gp_value *)gp_obj_get(into, key);
	const struct gp_value *src = gp_obj_get(add, key);
	const struct gp_value *tags = gp_obj_get(add, "tags");
	struct gp_value *into_tags = (struct gp_value *)gp_obj_get(into, "tags");
	size_t i, j;
	int rc;

	for (i = 0; i < gp_value_len(src); i++) {
		const struct gp_value *x = gp_arr_get(src, i);

		for (j = 0; j < gp_value_len(arr); j++) {
			const struct gp_value *y = gp_arr_get(arr, j);

			if (kind == GP_COMPARE_BENCH) {
				const char *a = gp_value_get_str(gp_obj_get(x, "name"));
				const char *b = gp_value_get_str(gp_obj_get(y, "name"));

				if (strcmp(a, b) == 0)
					return gp__error(GP_EINVAL,
					                 "'%s': series '%s' is also in '%s'", path,
					                 a, first);
			} else {
				int64_t a = -1, b = -2;

				gp_value_get_int(gp_obj_get(x, "rank"), &a);
				gp_value_get_int(gp_obj_get(y, "rank"), &b);
				if (a == b)
					return gp__error(
					    GP_EINVAL,
					    "'%s': rank %lld is also in another report "
					    "of the directory (first: '%s')",
					    path, (long long)a, first);
			}
		}
		if (gp_arr_push(arr, gp_value_clone(x)))
			return gp__error(GP_ENOMEM, "out of memory");
	}
	if (gp_value_type(tags) == GP_VALUE_OBJECT && gp_value_type(into_tags) == GP_VALUE_OBJECT)
		for (i = 0; i < gp_value_len(tags); i++) {
			const char *k = gp_obj_key_at(tags, i);

			if (gp_obj_get(into_tags, k))
				continue;
			if ((rc = gp_obj_set(into_tags, k,
			                     gp_value_clone(gp_obj_value_at(tags, i)))))
				return gp__error(GP_ENOMEM, "out of memory");
		}
	return 0;
}

static bool is_doc(enum gp__src_kind k)
{
	return (GP_SRC_DOCS & 1u << k) != 0;
}

/* the documents of a directory, all bench results or all reports, as one */
static int load_dir_docs(const char *dir, const struct gp__srcs *srcs, enum gp_compare_input *kind,
                         struct gp_value **out)
{
	struct gp_value *acc = NULL, *v = NULL;
	enum gp_compare_input k0 = GP_COMPARE_TRACE, k;
	const char *first = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < srcs->n; i++) {
		const char *path = srcs->v[i].path;

		if (!is_doc(srcs->v[i].kind))
			continue;
		if ((rc = load_doc(&srcs->v[i], &v, &k)))
			goto out;
		if (!acc) {
			acc = v;
			k0 = k;
			first = path;
			v = NULL;
			if (!gp_obj_get(acc, "tags") &&
			    (rc = gp_obj_set(acc, "tags", gp_value_object()))) {
				rc = gp__error(GP_ENOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		if (k != k0) {
			rc = gp__error(
			    GP_EINVAL,
			    "'%s': holds gpuprof results of two kinds ('%s': %s, '%s': %s)", dir,
			    first, kind_name(k0), path, kind_name(k));
			goto out;
		}
		/* an aggregate is a whole job already: two are two jobs, not one */
		if (k == GP_COMPARE_AGGREGATE) {
			rc = gp__error(GP_EINVAL,
			               "'%s': holds more than one aggregate ('%s', '%s'): give the "
			               "file",
			               dir, first, path);
			goto out;
		}
		if ((rc = merge_doc(acc, v, (int)k, path, first)))
			goto out;
		gp_value_free(v);
		v = NULL;
	}
	*kind = k0;
	*out = acc;
	acc = NULL;
out:
	gp_value_free(v);
	gp_value_free(acc);
	return rc;
}

int gp__cmp_load_srcs(const char *path, struct gp__srcs *srcs, const struct gp_compare_opts *opts,
                      enum gp_compare_input *kind, struct gp_value **out)
{
	size_t i, ndoc = 0, ntrace = 0;

	*out = NULL;
	*kind = GP_COMPARE_TRACE;
	for (i = 0; i < srcs->n; i++) {
		enum gp__src_kind k = srcs->v[i].kind;

		ndoc += is_doc(k);
		ntrace += (GP_SRC_TRACES & 1u << k) != 0;
	}
	if (ndoc == 0)
		return analyze(path, srcs, opts, out);
	if (srcs->n == 1 && !srcs->v[0].from_dir)
		return load_doc(&srcs->v[0], out, kind);
	if (ntrace)
		return gp__error(GP_EINVAL,
		                 "'%s': holds both traces and gpuprof results (bench or report): "
		                 "compare one kind",
		                 path);
	return load_dir_docs(path, srcs, kind, out);
}

GP_API int gp_compare_load(const char *path, const struct gp_compare_opts *opts,
                           enum gp_compare_input *kind, struct gp_value **out)
{
	enum gp_compare_input k = GP_COMPARE_TRACE;
	struct gp__srcs srcs;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_compare_load: NULL argument");
	*out = NULL;
	if (!path)
		return gp__error(GP_EINVAL, "gp_compare_load: NULL path");
	if ((rc = GP__OPTS_VALID(opts, struct gp_compare_opts)))
		return rc;
	rc = gp__srcs_resolve(&path, 1, GP_SRC_ALLOW_STDIN, &srcs);
	if (rc == 0)
		rc = gp__cmp_load_srcs(path, &srcs, opts, &k, out);
	gp__srcs_release(&srcs);
	if (rc == 0 && kind)
		*kind = k;
	return rc;
}

/* gp_compare_paths() reads the base on a second thread while the new side loads */
struct side {
	const char *path;
	const struct gp_compare_opts *opts;
	enum gp_compare_input kind;
	struct gp_value *tree;
	int rc;
	char err[1024];
};

static void *load_side(void *arg)
{
	struct side *s = arg;

	s->rc = gp_compare_load(s->path, s->opts, &s->kind, &s->tree);
	if (s->rc)
		snprintf(s->err, sizeof(s->err), "%s", gp_last_error());
	return NULL;
}

/* "path" and "input" of result.base / result.new */
static int label_side(struct gp_value *result, const char *key, const char *path,
                      enum gp_compare_input k)
{
	struct gp_value *o = (struct gp_value *)gp_obj_get(result, key);

	if (gp_obj_set_str(o, "path", path) || gp_obj_set_str(o, "input", kind_name(k)))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

GP_API int gp_compare_paths(const char *base, const char *new_, const struct gp_compare_opts *opts,
                            struct gp_value **out)
{
	struct side b = { .path = base, .opts = opts }, n = { .path = new_, .opts = opts };
	char *bl = NULL, *nl = NULL;
	pthread_t th;
	bool threaded;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_compare_paths: NULL argument");
	*out = NULL;
	if (!base || !new_)
		return gp__error(GP_EINVAL, "gp_compare_paths: NULL path");
	/* a bad option fails before any trace is read */
	if ((rc = gp_compare_check_opts(opts)))
		return rc;
	{ /* two memory snapshots: their own comparison (memsnap.c) */
		bool snap;

		if ((rc = gp__cmp_memsnap_paths(base, new_, opts, &snap, out)) || snap)
			return rc;
	}
	threaded = pthread_create(&th, NULL, load_side, &b) == 0;
	load_side(&n);
	if (threaded)
		pthread_join(th, NULL);
	else
		load_side(&b);
	/* the base's error first: it is the first argument */
	if (b.rc) {
		rc = gp__error(b.rc, "%s", b.err);
		goto out;
	}
	if (n.rc) {
		rc = gp__error(n.rc, "%s", n.err);
		goto out;
	}
	if ((b.kind == GP_COMPARE_AGGREGATE) != (n.kind == GP_COMPARE_AGGREGATE)) {
		const struct side *agg = b.kind == GP_COMPARE_AGGREGATE ? &b : &n;
		const struct side *other = b.kind == GP_COMPARE_AGGREGATE ? &n : &b;

		rc = gp__error(GP_EINVAL,
		               "cannot compare an aggregate ('%s') with %s ('%s'): give two "
		               "aggregates (gpuprof aggregate --json)",
		               agg->path,
		               other->kind == GP_COMPARE_BENCH    ? "a bench result"
		               : other->kind == GP_COMPARE_REPORT ? "an analyze report"
		                                                  : "a trace",
		               other->path);
		goto out;
	}
	if ((b.kind == GP_COMPARE_BENCH) != (n.kind == GP_COMPARE_BENCH)) {
		const struct side *bench = b.kind == GP_COMPARE_BENCH ? &b : &n;
		const struct side *other = b.kind == GP_COMPARE_BENCH ? &n : &b;

		rc = gp__error(GP_EINVAL,
		               "cannot compare a bench result ('%s') with %s ('%s'): give two "
		               "bench results, or two reports or traces",
		               bench->path,
		               other->kind == GP_COMPARE_REPORT ? "an analyze report" : "a trace",
		               other->path);
		goto out;
	}
	bl = quoted(base);
	nl = quoted(new_);
	if (!bl || !nl) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	rc = gp__cmp_values_labelled(b.tree, n.tree, opts, bl, nl, out);
	if (rc == 0)
		rc = label_side(*out, "base", base, b.kind);
	if (rc == 0)
		rc = label_side(*out, "new", new_, n.kind);
	if (rc) {
		gp_value_free(*out);
		*out = NULL;
	}
out:
	gp__free(bl);
	gp__free(nl);
	gp_value_free(b.tree);
	gp_value_free(n.tree);
	return rc;
}
