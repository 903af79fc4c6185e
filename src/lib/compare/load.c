/* SPDX-License-Identifier: MIT */
/*
 * load.c - one side of a comparison, from a path to a tree: tells a bench
 * result or an analyze report (JSON documents gpuprof wrote, read whole)
 * from a trace (read by gp_analyze_paths(), which streams it).
 *
 * The choice looks only at the top-level keys at the start of the file (up
 * to SNIFF_BYTES, gunzipped when gzip): a "schema" of "gpuprof.*", or a key
 * only gpuprof documents have ("gpuprof_version", "series", "ranks"), makes
 * it a gpuprof document; "traceEvents", any other "schema", a top-level
 * array or anything that is not JSON makes it a trace, whose reader then
 * gives its own error. gpuprof writes keys sorted, so "gpuprof_version"
 * comes before the large "ranks" and "series". A directory is the union of
 * its documents when its files are all bench results or all reports, else
 * a directory of traces (or a `gpuprof run` directory).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "compare-int.h"
#include "gpuprof/analyze.h"
#include "gpuprof/bench.h"
#include "trace/input.h"
#include "util/json-scan.h"

#define SNIFF_BYTES   (1u << 20)
#define DOC_MAX_BYTES ((size_t)1 << 30) /* a bench result or report larger than this is refused */
#define READ_CHUNK    (1u << 20)

enum sniff { SNIFF_TRACE = 0, SNIFF_DOC = 1 };

int gp__cmp_tree_kind(const struct gp_value *v)
{
	const char *s = gp_value_get_str(gp_obj_get(v, "schema"));

	if (!s)
		return -1;
	if (strcmp(s, GP_BENCH_SCHEMA) == 0)
		return GP_COMPARE_BENCH;
	if (strcmp(s, GP_ANALYZE_SCHEMA) == 0)
		return GP_COMPARE_REPORT;
	return -1;
}

/* reads up to @p max uncompressed bytes of @p path; *got < max means the whole file */
static int read_prefix(const char *path, size_t max, char **text, size_t *got)
{
	struct gp_input *in = NULL;
	size_t cap = 0, len = 0;
	char *buf = NULL;
	int rc;

	*text = NULL;
	*got = 0;
	if ((rc = gp__input_open_file(path, &in)))
		return rc;
	gp__input_no_prefetch(in);
	for (;;) {
		size_t want, n = 0;

		if (len == max)
			break;
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : READ_CHUNK;
			char *nb;

			if (ncap > max)
				ncap = max;
			if (!(nb = gp__reallocarray(buf, ncap + 1, 1))) {
				rc = gp__error(GP_ENOMEM, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		want = cap - len;
		if ((rc = gp__input_read(in, buf + len, want, &n))) {
			gp__error_prefix("'%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (!buf && !(buf = gp__malloc(1))) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	buf[len] = '\0';
	*text = buf;
	*got = len;
	buf = NULL;
out:
	gp__free(buf);
	gp__input_close(in);
	return rc;
}

static bool str_is(struct gp_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && memcmp(s.p, lit, n) == 0;
}

/* the top-level keys at the start of @p p[0..n): is it a gpuprof document? */
static enum sniff sniff_text(const char *p, size_t n, bool eof)
{
	struct gp_jscan s = { .end = p + n, .eof = eof };
	const char *q = gp__json_ws(p, s.end);

	if (q >= s.end || *q != '{')
		return SNIFF_TRACE;
	q = gp__json_ws(q + 1, s.end);
	while (q < s.end && *q == '"') {
		struct gp_str key, val;
		bool esc;

		if (gp__json_string(&s, &q, &key, &esc))
			return SNIFF_TRACE;
		q = gp__json_ws(q, s.end);
		if (q >= s.end || *q != ':')
			return SNIFF_TRACE;
		q = gp__json_ws(q + 1, s.end);
		if (str_is(key, "gpuprof_version") || str_is(key, "series") || str_is(key, "ranks"))
			return SNIFF_DOC;
		if (str_is(key, "traceEvents"))
			return SNIFF_TRACE;
		if (str_is(key, "schema")) {
			if (q < s.end && *q == '"' && !gp__json_string(&s, &q, &val, &esc) &&
			    val.len >= 8 && memcmp(val.p, "gpuprof.", 8) == 0)
				return SNIFF_DOC;
			return SNIFF_TRACE;
		}
		if (gp__json_skip(&s, &q, 0))
			return SNIFF_TRACE;
		q = gp__json_ws(q, s.end);
		if (q < s.end && *q == ',')
			q = gp__json_ws(q + 1, s.end);
	}
	return SNIFF_TRACE;
}

static int sniff_file(const char *path, enum sniff *out)
{
	char *text = NULL;
	size_t got = 0;
	int rc;

	*out = SNIFF_TRACE;
	rc = read_prefix(path, SNIFF_BYTES, &text, &got);
	if (rc == GP_ENOMEM || rc == GP_ENOENT || rc == GP_EIO) {
		gp__free(text);
		return rc;
	}
	/* a damaged gzip stream and the like: the trace reader says what is wrong */
	gp_clear_error();
	if (rc == 0)
		*out = sniff_text(text, got, got < SNIFF_BYTES);
	gp__free(text);
	return 0;
}

int gp__doc_sniff(const char *path, bool *is_doc)
{
	enum sniff s = SNIFF_TRACE;
	int rc = sniff_file(path, &s);

	*is_doc = rc == 0 && s == SNIFF_DOC;
	return rc;
}

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

int gp__doc_read(const char *path, struct gp_value **out)
{
	char *text = NULL;
	size_t got = 0, off = 0;
	int rc;

	*out = NULL;
	if ((rc = read_prefix(path, DOC_MAX_BYTES, &text, &got)))
		return rc;
	if (got == DOC_MAX_BYTES) {
		rc = gp__error(GP_ELIMIT, "'%s': larger than %zu bytes: not a gpuprof document",
		               path, DOC_MAX_BYTES);
		goto out;
	}
	if ((rc = gp_value_parse(text, got, out, &off)) && rc != GP_ENOMEM)
		gp__error_prefix("'%s'", path);
out:
	gp__free(text);
	return rc;
}

/* parses the gpuprof document @p path whole; checks its schema */
static int load_doc(const char *path, struct gp_value **out, enum gp_compare_input *kind)
{
	struct gp_value *v = NULL;
	const char *schema;
	char *label = NULL;
	int rc, k;

	*out = NULL;
	if ((rc = gp__doc_read(path, &v)))
		return rc;
	schema = gp_value_get_str(gp_obj_get(v, "schema"));
	k = gp__cmp_tree_kind(v);
	if (k < 0) {
		if (schema)
			rc = gp__error(GP_EVERSION,
			               "'%s': schema '%s' is not one that compare reads (%s, %s)",
			               path, schema, GP_BENCH_SCHEMA, GP_ANALYZE_SCHEMA);
		else
			rc = gp__error(GP_EFORMAT,
			               "'%s': no \"schema\": not a bench result or report", path);
		goto out;
	}
	if (!(label = quoted(path))) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	rc = k == GP_COMPARE_BENCH ? gp__cmp_check_bench(v, label) : gp__cmp_check_report(v, label);
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

static int analyze(const char *path, const struct gp_compare_opts *o, struct gp_value **out)
{
	struct gp_analyze_opts ao;
	int rc;

	memset(&ao, 0, sizeof(ao));
	ao.size = sizeof(ao);
	ao.compat = GP_COMPAT_NONE;
	ao.top = 0;
	ao.only_rank = o && o->rank >= 0 ? o->rank : -1;
	ao.threads = o ? o->threads : 0;
	rc = gp_analyze_paths(&path, 1, &ao, out);
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

/* a directory: the union of its documents, or traces for gp_analyze_paths() */
static int load_dir(const char *dir, const struct gp_compare_opts *o, enum gp_compare_input *kind,
                    struct gp_value **out)
{
	struct gp_value *acc = NULL, *v = NULL;
	char **paths = NULL;
	size_t n = 0, i, ndoc = 0;
	enum gp_compare_input k0 = GP_COMPARE_TRACE, k;
	int rc;

	rc = gp__trace_list(dir, &paths, &n);
	if (rc == GP_ENOENT) {
		gp_clear_error();
		n = 0;
	} else if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		enum sniff s;

		if ((rc = sniff_file(paths[i], &s)))
			goto out;
		ndoc += s == SNIFF_DOC;
	}
	if (ndoc == 0) {
		*kind = GP_COMPARE_TRACE;
		rc = analyze(dir, o, out);
		goto out;
	}
	if (ndoc != n) {
		rc = gp__error(GP_EINVAL,
		               "'%s': holds both traces and gpuprof results (bench or report): "
		               "compare one kind",
		               dir);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if ((rc = load_doc(paths[i], &v, &k)))
			goto out;
		if (!acc) {
			acc = v;
			k0 = k;
			v = NULL;
			if (!gp_obj_get(acc, "tags") &&
			    (rc = gp_obj_set(acc, "tags", gp_value_object()))) {
				rc = gp__error(GP_ENOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		if (k != k0) {
			rc = gp__error(GP_EINVAL,
			               "'%s': holds both bench results and reports ('%s', '%s')",
			               dir, paths[0], paths[i]);
			goto out;
		}
		if ((rc = merge_doc(acc, v, (int)k, paths[i], paths[0])))
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
	gp__trace_list_free(paths, n);
	return rc;
}

GP_API int gp_compare_load(const char *path, const struct gp_compare_opts *opts,
                           enum gp_compare_input *kind, struct gp_value **out)
{
	enum gp_compare_input k = GP_COMPARE_TRACE;
	struct stat st;
	enum sniff s;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_compare_load: NULL argument");
	*out = NULL;
	if (!path)
		return gp__error(GP_EINVAL, "gp_compare_load: NULL path");
	if (opts && opts->size < sizeof(uint32_t))
		return gp__error(GP_EINVAL, "gp_compare_load: opts.size not set");
	if (stat(path, &st)) {
		int e = errno;

		return gp__error(e == ENOENT ? GP_ENOENT : GP_EIO, "'%s': %s", path, strerror(e));
	}
	if (S_ISDIR(st.st_mode))
		rc = load_dir(path, opts, &k, out);
	else if ((rc = sniff_file(path, &s)) == 0) {
		if (s == SNIFF_DOC)
			rc = load_doc(path, out, &k);
		else
			rc = analyze(path, opts, out);
	}
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

static const char *kind_name(enum gp_compare_input k)
{
	return k == GP_COMPARE_BENCH ? "bench" : k == GP_COMPARE_REPORT ? "report" : "trace";
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
