/* SPDX-License-Identifier: MIT */
/*
 * export.c - gp_export_paths(): the inputs of `gpuprof export` (trace files,
 * capture files, directories of them, run directories, metrics timelines,
 * standard input; what each is comes from source/resolve.c) through the Chrome
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
#include "source/source.h"
#include "trace/model.h"
#include "util/error.h"
#include "util/lockfile.h"
#include "util/opts.h"

/* the label of trace @p i of @p n: none for a single trace */
static void trace_label(const struct gp_trace *t, const struct gp__src *in, size_t order, size_t n,
                        char *buf, size_t len)
{
	int64_t r = t->rank;

	buf[0] = '\0';
	if (n <= 1)
		return;
	if (r < 0)
		r = in->rank;
	if (r >= 0)
		snprintf(buf, len, "rank %lld", (long long)r);
	else if (in->pid > 0)
		snprintf(buf, len, "pid %lld", (long long)in->pid);
	else
		snprintf(buf, len, "trace %zu", order);
}

/*
 * A run directory's metrics.jsonl, when @p dir has one: counters. One that
 * cannot be read is left out (counted, its reason kept in the last error),
 * as analyze leaves it out of the report; a write error or no memory ends
 * the export.
 */
static int run_dir_metrics(struct gp_chrome_writer *w, const char *path, uint64_t *skipped)
{
	struct gp_metrics_timeline *m = NULL;
	int rc;

	rc = gp__metrics_timeline_read(path, &m);
	if (rc && rc != GP_ENOMEM) {
		gp__error_prefix("metrics left out");
		(*skipped)++;
		rc = 0;
	} else if (!rc) {
		rc = gp__chrome_writer_add_timeline(w, m);
	}
	gp__metrics_timeline_free(m);
	return rc;
}

GP_API int gp_export_paths(const char *const *paths, size_t n, const struct gp_export_opts *opts,
                           gp_write_fn write, void *user, struct gp_export_stats *stats)
{
	struct gp_export_opts o = { .size = sizeof(o) };
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_chrome_writer *w = NULL;
	struct gp__srcs in;
	uint64_t skipped = 0;
	size_t i, k, ntraces;
	int rc = 0;

	memset(&in, 0, sizeof(in));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if ((rc = GP__OPTS_VALID(opts, struct gp_export_opts)))
		return rc;
	GP__OPTS_COPY(&o, opts);
	if (o.format != GP_EXPORT_CHROME)
		return gp__error(GP_EINVAL, "export format %d is not supported", (int)o.format);
	if (!n || !paths)
		return gp__error(GP_EINVAL, "no input files");
	if (!write)
		return gp__error(GP_EINVAL, "no write function");
	GP_TRY(gp__srcs_resolve(paths, n, GP_SRC_ALLOW_STDIN, &in));
	GP_TRY(gp__srcs_keep(&in, GP_SRC_RUN_INPUTS, "export"));
	ntraces = gp__srcs_count(&in, GP_SRC_TRACES);
	if (in.skipped)
		gp__log(GP_LOG_WARN, "%s", in.skipped);
	if (!in.n)
		GP_TRY(gp__error(GP_ENOENT, "no trace among the inputs (%s)",
		                 in.skipped ? in.skipped : "none"));

	oo.salvage = o.salvage;
	oo.threads = o.threads;
	GP_TRY(gp_chrome_writer_new(write, user, &w));
	gp__chrome_writer_expect_traces(w, ntraces);
	for (i = 0, k = 0; i < in.n; i++) {
		struct gp_trace *t = NULL;
		char label[64];

		if (!(GP_SRC_TRACES & 1u << in.v[i].kind))
			continue;
		GP_TRY(gp__src_open_trace(&in.v[i], &oo, &t));
		trace_label(t, &in.v[i], k++, ntraces, label, sizeof(label));
		rc = gp_chrome_writer_add_trace(w, t, label);
		gp_trace_free(t);
		if (rc)
			goto out;
	}
	/* a directory's metrics.jsonl is an extra; a metrics timeline typed is an input */
	for (i = 0; i < in.n; i++) {
		if (in.v[i].kind != GP_SRC_METRICS)
			continue;
		if (!in.v[i].from_dir)
			GP_TRY(gp_chrome_writer_add_metrics(w, in.v[i].path));
		else if (!o.no_metrics)
			GP_TRY(run_dir_metrics(w, in.v[i].path, &skipped));
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
	gp__srcs_release(&in);
	return rc;
}

/* gp_write_fn over a stdio stream: the held file */
static int stream_write(const void *p, size_t n, void *user)
{
	errno = 0;
	if (fwrite(p, 1, n, user) == n)
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
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
	GP_TRY(gp_export_paths(paths, n, opts, stream_write, f, stats));
	rc = gp__lockfile_commit(lk);
	lk = NULL;
out:
	gp__lockfile_rollback(lk);
	return rc;
}
