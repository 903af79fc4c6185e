/* SPDX-License-Identifier: MIT */
/*
 * run-json.c - DIR/run.json, the record of a `gpuprof run` (schema
 * "gpuprof.run/1", documented in docs/cli/gpuprof-run.md): what was run,
 * where, with which options and environment, when, and how it ended.
 *
 * Written at the start (state "running") and again at the end, each time as
 * a whole through write_file_atomic(), so a reader never sees half a file.
 * Built as a gp_value tree: sorted keys, fixed number format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "run.h"

#define TRY(x)                                                                                     \
	do {                                                                                       \
		if (x)                                                                             \
			goto out_nomem;                                                            \
	} while (0)

static int set_opt_str(struct gp_value *o, const char *key, const char *s)
{
	return s ? gp_obj_set_str(o, key, s) : gp_obj_set_null(o, key);
}

static int set_opt_ns(struct gp_value *o, const char *key, int64_t ns)
{
	return ns >= 0 ? gp_obj_set_int(o, key, ns) : gp_obj_set_null(o, key);
}

/* 2026-01-02T03:04:05.123456789Z */
static int set_time(struct gp_value *o, const char *key, int64_t unix_ns)
{
	char buf[64];
	struct tm tm;
	time_t t = (time_t)(unix_ns / 1000000000LL);

	if (!gmtime_r(&t, &tm))
		return gp_obj_set_null(o, key);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	         (long long)(unix_ns % 1000000000LL));
	return gp_obj_set_str(o, key, buf);
}

/* the options as resolved; from_config lists the keys whose value came from the file */
static struct gp_value *options(const struct gp_run *r)
{
	/* sorted by key, so that from_config comes out sorted */
	static const struct {
		const char *key;
		enum gp_run_opt opt;
	} keys[] = {
		{ "capture_range", GP_RO_CAPTURE_RANGE },
		{ "cuda_events", GP_RO_CUDA_EVENTS },
		{ "delay_ns", GP_RO_DELAY },
		{ "duration_ns", GP_RO_DURATION },
		{ "force", GP_RO_FORCE },
		{ "iter_range", GP_RO_ITER_RANGE },
		{ "no_cuda", GP_RO_NO_CUDA },
		{ "output", GP_RO_OUTPUT },
		{ "quiet", GP_RO_QUIET },
		{ "sample_ms", GP_RO_SAMPLE_MS },
		{ "schedule", GP_RO_SCHEDULE },
		{ "tags", GP_RO_TAG },
	};
	const struct gp_run_opts *o = &r->opts;
	struct gp_value *v = gp_value_object(), *from;
	char sched[128];
	size_t i;

	if (!v)
		return NULL;
	TRY(gp_obj_set_str(v, "output", r->dir));
	TRY(gp_obj_set_int(v, "sample_ms", o->sample_ms));
	TRY(gp_obj_set_bool(v, "no_cuda", o->no_cuda));
	TRY(gp_obj_set_bool(v, "cuda_events", o->cuda_events));
	TRY(set_opt_str(v, "capture_range", o->capture_range));
	TRY(set_opt_ns(v, "delay_ns", o->delay_ns));
	TRY(set_opt_ns(v, "duration_ns", o->duration_ns));
	TRY(set_opt_str(v, "schedule",
	                o->have_schedule ? gp_run_sched_str(&o->schedule, sched, sizeof(sched))
	                                 : NULL));
	TRY(set_opt_str(v, "iter_range", o->iter_range));
	TRY(gp_obj_set_bool(v, "quiet", o->quiet));
	TRY(gp_obj_set_bool(v, "force", o->force));
	TRY(gp_obj_set_bool(v, "no_report", o->no_report));
	TRY(set_opt_str(v, "config", r->config_path));
	TRY(!(from = gp_value_array()));
	TRY(gp_obj_set(v, "from_config", from));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (o->from_config & (1u << keys[i].opt))
			TRY(gp_arr_push(from, gp_value_str(keys[i].key)));
	return v;
out_nomem:
	gp_value_free(v);
	return NULL;
}

static struct gp_value *build(const struct gp_run *r)
{
	struct gp_value *v = gp_value_object(), *a, *o;
	char sig[32];
	size_t i;
	int ended = r->end_mono_ns != 0;

	if (!v)
		return NULL;
	TRY(gp_obj_set_str(v, "schema", "gpuprof.run/1"));
	TRY(gp_obj_set_str(v, "gpuprof_version", gp_version()));
	TRY(!(a = gp_value_array()));
	TRY(gp_obj_set(v, "command", a));
	for (i = 0; i < (size_t)r->argc; i++)
		TRY(gp_arr_push(a, gp_value_str(r->argv[i])));
	TRY(set_opt_str(v, "executable", r->exe));
	TRY(set_opt_str(v, "cwd", r->cwd));
	TRY(gp_obj_set_str(v, "hostname", r->host));
	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "tags", o));
	for (i = 0; i < r->opts.ntags; i++)
		TRY(gp_obj_set_str(o, r->opts.tags[i].key, r->opts.tags[i].value));
	TRY(!(o = options(r)));
	TRY(gp_obj_set(v, "options", o));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "injector", o));
	TRY(set_opt_str(o, "path", r->inj.path));
	TRY(set_opt_str(o, "reason", r->inj.reason));
	TRY(gp_obj_set_bool(o, "cuda", r->inj.cuda));
	TRY(gp_obj_set_bool(o, "nvtx", r->inj.nvtx));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "environment", o));
	for (i = 0; r->env_set && r->env_set[i]; i++) {
		const char *eq = strchr(r->env_set[i], '=');
		char name[64];

		if (!eq || (size_t)(eq - r->env_set[i]) >= sizeof(name))
			continue;
		memcpy(name, r->env_set[i], (size_t)(eq - r->env_set[i]));
		name[eq - r->env_set[i]] = 0;
		TRY(gp_obj_set_str(o, name, eq + 1));
	}

	TRY(gp_obj_set_int(v, "start_unix_ns", r->start_real_ns));
	TRY(set_time(v, "start_time", r->start_real_ns));
	TRY(gp_obj_set_int(v, "start_monotonic_ns", r->start_mono_ns));
	if (ended) {
		TRY(gp_obj_set_int(v, "end_unix_ns", r->end_real_ns));
		TRY(set_time(v, "end_time", r->end_real_ns));
		TRY(gp_obj_set_int(v, "end_monotonic_ns", r->end_mono_ns));
		TRY(gp_obj_set_int(v, "wall_ns", r->end_mono_ns - r->start_mono_ns));
	} else {
		TRY(gp_obj_set_null(v, "end_unix_ns"));
		TRY(gp_obj_set_null(v, "end_time"));
		TRY(gp_obj_set_null(v, "end_monotonic_ns"));
		TRY(gp_obj_set_null(v, "wall_ns"));
	}
	TRY(r->pid > 0 ? gp_obj_set_int(v, "pid", r->pid) : gp_obj_set_null(v, "pid"));
	TRY(gp_obj_set_str(v, "state", r->state));
	if (strcmp(r->state, "exited") == 0)
		TRY(gp_obj_set_int(v, "exit_code", r->exit_code));
	else
		TRY(gp_obj_set_null(v, "exit_code"));
	if (strcmp(r->state, "signaled") == 0) {
		TRY(gp_obj_set_str(v, "exit_signal",
		                   gp_run_signame(r->exit_signal, sig, sizeof(sig))));
		TRY(gp_obj_set_bool(v, "core_dumped", r->core_dumped));
	} else {
		TRY(gp_obj_set_null(v, "exit_signal"));
		TRY(gp_obj_set_bool(v, "core_dumped", false));
	}
	TRY(set_opt_str(v, "exec_error", r->exec_errno ? strerror(r->exec_errno) : NULL));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "sampler", o));
	TRY(r->opts.sample_ms ? gp_obj_set_int(o, "interval_ms", r->opts.sample_ms)
	                      : gp_obj_set_null(o, "interval_ms"));
	TRY(set_opt_str(o, "file", r->metrics_ok ? "metrics.jsonl" : NULL));
	TRY(gp_obj_set_int(o, "samples", (int64_t)r->samples));
	TRY(set_opt_str(o, "gpu_status", r->gpu_status));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "report", o));
	TRY(set_opt_str(o, "state", r->report_state ? r->report_state : "pending"));
	TRY(set_opt_str(o, "file",
	                r->report_state && strcmp(r->report_state, "written") == 0 ? "report.json"
	                                                                           : NULL));
	TRY(set_opt_str(o, "error", r->report_error));
	TRY(gp_obj_set_bool(o, "salvaged", r->report_salvaged));
	return v;
out_nomem:
	gp_value_free(v);
	return NULL;
}

int gp_run_json_write(const struct gp_run *r)
{
	struct gp_value *v = build(r);
	char *text = NULL, *path;
	size_t len = 0, plen;
	int rc;

	if (!v || gp_value_to_json(v, GP_JSON_PRETTY, &text, &len)) {
		gp_value_free(v);
		return error("cannot build run.json: out of memory");
	}
	gp_value_free(v);
	plen = strlen(r->dir) + sizeof("/run.json");
	path = xmalloc(plen);
	snprintf(path, plen, "%s/run.json", r->dir);
	rc = write_file_atomic(path, text, len); /* pretty JSON ends with a newline */
	free(path);
	gp_free(text);
	return rc;
}
