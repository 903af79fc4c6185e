/* SPDX-License-Identifier: MIT */
/*
 * export.c - gp_export_paths(): the inputs of `gpuprof export` (trace files,
 * capture files, directories of them, run directories) through the Chrome
 * writer (chrome.c), one trace in memory at a time, and the atomic output
 * file of gp_export_paths_to_file() (util/lockfile.c: registered, so that
 * the CLI's signal handlers remove it when an export is interrupted).
 *
 * A directory's files are taken as `gpuprof analyze` takes them (*.json,
 * *.json.gz, *.gz, *.gpcap in name order; a run directory's run.json and
 * report.json are not traces), and also skipping *.chrome.json, the exports
 * this module writes, so exporting twice does not read its own output.
 * With several traces each is labelled: "rank R" from its metadata or its
 * file name, "pid P" for a capture with no rank, else its position.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export-int.h"
#include "gpuprof/export.h"
#include "source/metrics.h"
#include "trace/model.h"
#include "trace/input.h"
#include "util/error.h"
#include "util/lockfile.h"

struct input {
	char *path;
	size_t order;
};

struct inputs {
	struct input *v;
	size_t n, cap;
};

static void inputs_release(struct inputs *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		gp__free(in->v[i].path);
	gp__free(in->v);
	memset(in, 0, sizeof(*in));
}

static int add_input(struct inputs *in, const char *path)
{
	int rc;

	if ((rc = gp__grow((void **)&in->v, &in->cap, in->n + 1, sizeof(*in->v))))
		return rc;
	if (!(in->v[in->n].path = gp__strdup(path)))
		return gp__error(GP_ENOMEM, "out of memory");
	in->v[in->n].order = in->n;
	in->n++;
	return 0;
}

static int expand_dir(const char *dir, struct inputs *in)
{
	char **names;
	size_t nn, i;
	int rc;

	if ((rc = gp__trace_list(dir, &names, &nn)))
		return rc;
	for (i = 0; i < nn && !rc; i++)
		rc = add_input(in, names[i]);
	gp__trace_list_free(names, nn);
	return rc;
}

/* the label of trace @p i of @p n: none for a single trace */
static void trace_label(const struct gp_trace *t, const struct input *in, size_t n, char *buf,
                        size_t len)
{
	const struct gp_value *cap = gp_obj_get(t->meta, "gpuprof_capture");
	int64_t r = t->rank, pid;

	buf[0] = '\0';
	if (n <= 1)
		return;
	if (r < 0)
		r = gp__rank_from_name(in->path);
	if (r >= 0)
		snprintf(buf, len, "rank %lld", (long long)r);
	else if (cap && gp_value_get_int(gp_obj_get(cap, "pid"), &pid))
		snprintf(buf, len, "pid %lld", (long long)pid);
	else
		snprintf(buf, len, "trace %zu", in->order);
}

/*
 * A run directory's metrics.jsonl, when @p dir has one: counters. One that
 * cannot be read is left out (counted, its reason kept in the last error),
 * as analyze leaves it out of the report; a write error or no memory ends
 * the export.
 */
static int run_dir_metrics(struct gp_chrome_writer *w, const char *dir, uint64_t *skipped)
{
	struct gp_metrics_timeline *m = NULL;
	size_t len = strlen(dir) + sizeof("/metrics.jsonl");
	struct stat st;
	char *path;
	int rc;

	if (!(path = gp__malloc(len)))
		return gp__error(GP_ENOMEM, "out of memory");
	snprintf(path, len, "%s/metrics.jsonl", dir);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		gp__free(path);
		return 0;
	}
	rc = gp_metrics_timeline_read(path, &m);
	if (rc && rc != GP_ENOMEM) {
		gp__error_prefix("metrics left out");
		(*skipped)++;
		rc = 0;
	} else if (!rc) {
		rc = gp__chrome_writer_add_timeline(w, m);
	}
	gp_metrics_timeline_free(m);
	gp__free(path);
	return rc;
}

static int is_dir(const char *path, bool *dir)
{
	struct stat st;

	if (stat(path, &st))
		return gp__error(GP_ENOENT, "cannot read '%s': %s", path, strerror(errno));
	*dir = S_ISDIR(st.st_mode);
	return 0;
}

GP_API int gp_export_paths(const char *const *paths, size_t n, const struct gp_export_opts *opts,
                           FILE *f, struct gp_export_stats *stats)
{
	struct gp_export_opts o = { .size = sizeof(o) };
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_chrome_writer *w = NULL;
	struct inputs in;
	uint64_t skipped = 0;
	size_t i;
	int rc = 0;

	memset(&in, 0, sizeof(in));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (o.format != GP_EXPORT_CHROME)
		return gp__error(GP_EINVAL, "export format %d is not supported", (int)o.format);
	if (!n || !paths)
		return gp__error(GP_EINVAL, "no input files");
	if (!f)
		return gp__error(GP_EINVAL, "no output file");
	for (i = 0; i < n; i++) {
		bool dir = false;

		GP_TRY(is_dir(paths[i], &dir));
		if (dir)
			GP_TRY(expand_dir(paths[i], &in));
		else
			GP_TRY(add_input(&in, paths[i]));
	}

	oo.salvage = o.salvage;
	oo.threads = o.threads;
	GP_TRY(gp_chrome_writer_new(f, &w));
	for (i = 0; i < in.n; i++) {
		struct gp_trace *t = NULL;
		char label[64];

		GP_TRY(gp_trace_open(in.v[i].path, &oo, &t));
		trace_label(t, &in.v[i], in.n, label, sizeof(label));
		rc = gp_chrome_writer_add_trace(w, t, label);
		gp_trace_free(t);
		if (rc)
			goto out;
	}
	for (i = 0; i < n && !o.no_metrics; i++) {
		bool dir = false;

		GP_TRY(is_dir(paths[i], &dir));
		if (dir)
			GP_TRY(run_dir_metrics(w, paths[i], &skipped));
	}
	if (o.metrics)
		GP_TRY(gp_chrome_writer_add_metrics(w, o.metrics));
	GP_TRY(gp_chrome_writer_finish(w));
out:
	if (stats && w) {
		gp_chrome_writer_stats(w, stats);
		stats->metrics_skipped = skipped;
	}
	gp_chrome_writer_free(w);
	inputs_release(&in);
	return rc;
}

GP_API int gp_export_paths_to_file(const char *const *paths, size_t n,
                                   const struct gp_export_opts *opts, const char *out_path,
                                   struct gp_export_stats *stats)
{
	struct gp__lockfile *lk = NULL;
	FILE *f;
	int rc = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	/* registered for the CLI's signal handlers: an interrupted export leaves nothing */
	GP_TRY(gp__lockfile_hold(out_path, &lk));
	GP_TRY(gp__lockfile_stream(lk, &f));
	GP_TRY(gp_export_paths(paths, n, opts, f, stats));
	rc = gp__lockfile_commit(lk);
	lk = NULL;
out:
	gp__lockfile_rollback(lk);
	return rc;
}
