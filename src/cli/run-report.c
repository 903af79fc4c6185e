/* SPDX-License-Identifier: MIT */
/*
 * run-report.c - the last step of `gpuprof run`: DIR analysed with the same
 * library calls as `gpuprof analyze DIR`, so that DIR/report.json is exactly
 * what `gpuprof analyze DIR --json` prints and the summary on standard error
 * exactly what `gpuprof analyze DIR` prints (standard output stays CMD's).
 *
 * A capture cut short (a process of CMD killed) is read again with salvage,
 * as `gpuprof analyze --salvage` would. Nothing here changes the exit status:
 * no capture (CMD used neither CUDA nor NVTX), a damaged one or a full disk
 * become a note on standard error and run.json's "report" object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/analyze.h"
#include "gpuprof/gpuprof.h"
#include "run.h"

/* rows per table in the summary, as `gpuprof analyze` without --top */
#define SUMMARY_TOP 10

/* as cli-util.c's output_width(), for standard error */
static int summary_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	int w = 100;

	if (env && atoi(env) > 0)
		w = atoi(env);
	else if (isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 &&
	         ws.ws_col > 0)
		w = ws.ws_col;
	return w < 60 ? 60 : w > 200 ? 200 : w;
}

static void failed(struct gp_run *r, const char *msg)
{
	r->report_state = GP_RUN_REPORT_FAILED;
	free(r->report_error);
	r->report_error = xstrdup(msg);
	if (!r->opts.quiet)
		fprintf(stderr, "gpuprof run: no report: %s\n", msg);
}

/* the report as `gpuprof analyze --json` writes it, into DIR/report.json */
static int write_report(struct gp_run *r, const struct gp_value *report)
{
	size_t plen = strlen(r->dir) + sizeof("/report.json");
	char *path = xmalloc(plen);
	int rc;

	snprintf(path, plen, "%s/report.json", r->dir);
	/* as cmd-analyze.c writes it (pretty JSON ends with a newline), said on failure */
	rc = write_output_json(path, report, GP_JSON_PRETTY);
	free(path);
	if (rc) {
		failed(r, "cannot write report.json");
		return -1;
	}
	return 0;
}

void gp_run_report(struct gp_run *r)
{
	const char *paths[1] = { r->dir };
	struct gp_analyze_opts opts;
	struct gp_value *report = NULL;
	char msg[1024];
	int rc;

	if (r->opts.no_report) {
		r->report_state = GP_RUN_REPORT_DISABLED;
		return;
	}
	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.only_rank = -1;
	opts.compat = GP_COMPAT_NONE;
	rc = gp_analyze_paths(paths, 1, &opts, &report);
	if (rc == GP_ETRUNC || rc == GP_EFORMAT) {
		/* a process of CMD killed mid-write: keep what precedes the cut */
		opts.salvage = true;
		rc = gp_analyze_paths(paths, 1, &opts, &report);
		r->report_salvaged = rc == 0;
	}
	/* a run directory without a capture reads as a report with no ranks */
	if (rc == 0 && gp_value_len(gp_obj_get(report, "ranks")) == 0) {
		gp_value_free(report);
		report = NULL;
		rc = GP_ENOENT;
	}
	if (rc == GP_ENOENT && !r->inj.path) {
		/* said once already, at the start: no tracer in this build */
		r->report_state = GP_RUN_REPORT_FAILED;
		r->report_error =
		    xstrdup("no capture file: CUDA and NVTX capture are not available");
		return;
	}
	if (rc == GP_ENOENT) {
		failed(r, "no capture file: CMD used neither CUDA nor NVTX (or capture was off)");
		return;
	}
	if (rc) {
		const char *e = gp_last_error();

		snprintf(msg, sizeof(msg), "%s", e && *e ? e : gp_strerror(rc));
		failed(r, msg);
		return;
	}
	if (write_report(r, report)) {
		gp_value_free(report);
		return;
	}
	r->report_state = GP_RUN_REPORT_WRITTEN;
	if (!r->opts.quiet) {
		struct gp_analyze_format_opts po = { .size = sizeof(po),
			                             .top = SUMMARY_TOP,
			                             .width = (uint32_t)summary_width() };
		char *text = NULL;
		size_t len = 0;

		if (r->report_salvaged)
			fprintf(stderr, "gpuprof run: a capture was cut short; the report keeps "
			                "what precedes the cut (as 'gpuprof analyze --salvage')\n");
		if (gp_analyze_trim(report, SUMMARY_TOP) == 0 &&
		    gp_analyze_format(report, &po, &text, &len) == 0) {
			fwrite(text, 1, len, stderr);
			fflush(stderr);
			gp_free(text);
		}
	}
	gp_value_free(report);
}
