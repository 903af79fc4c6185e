/* SPDX-License-Identifier: MIT */
/*
 * run.c - run.json of a `gpuprof run` directory, schema gpuprof.run/1
 * (docs/cli/gpuprof-run.md): its one reader and its one writer.
 *
 * The reader gives analyze (tags, how each process ended, the run itself
 * when there is no capture) and report (the page's environment) the parsed
 * document. It is an extra: one that is missing, larger than
 * RUN_JSON_MAX_BYTES, not JSON or of another schema is left out silently.
 *
 * The writer (include/gpuprof/run.h) owns the schema: the key names, the
 * schema tag, the room a version that another will follow keeps after the
 * document (so that the last one can go in place on a full disk), the atomic
 * write through util/lockfile.h, and the read-modify-write that turns a
 * run.json left "running" into "unknown" for the guardian process the CLI
 * keeps. The CLI hands it what it knows (cli/run-json.c) and keeps the
 * processes, the waiting and the signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof/run.h"
#include "source.h"
#include "util/error.h"
#include "util/value-int.h"
#include "util/lockfile.h"
#include "util/opts.h"

#define RUN_JSON_MAX_BYTES ((size_t)16 << 20)

int gp__run_json_read(const char *dir, struct gp_value **out)
{
	size_t plen = strlen(dir) + sizeof("/run.json"), got = 0;
	char *path = gp__malloc(plen), *text = NULL;
	const char *schema;
	struct gp_value *v = NULL;
	struct stat st;
	int fd = -1, rc = 0;

	*out = NULL;
	if (!path)
		return gp__error(GP_ENOMEM, "out of memory");
	snprintf(path, plen, "%s/run.json", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (size_t)st.st_size > RUN_JSON_MAX_BYTES)
		goto out;
	text = gp__malloc((size_t)st.st_size);
	if (!text)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	rc = gp_value_parse(text, got, &v, NULL);
	if (rc == GP_ENOMEM)
		goto out;
	rc = 0;
	gp_clear_error();
	schema = gp_value_get_str(gp_obj_get(v, "schema"));
	if (!schema || strcmp(schema, GP_RUN_SCHEMA) != 0)
		goto out;
	*out = v;
	v = NULL;
out:
	gp_value_free(v);
	gp__free(text);
	gp__free(path);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ---- the record and its writer ---- */

struct gp_run_record {
	char *dir;
	struct gp_value *command; /* array of strings */
	char *exe, *cwd, *host;
	struct gp_value *tags, *env; /* objects */
	struct gp_run_options opts;  /* its strings owned */
	char *inj_path, *inj_reason;
	bool inj_cuda, inj_nvtx;
	int64_t start_unix_ns, start_mono_ns;
	int64_t end_unix_ns, end_mono_ns; /* 0: not ended */
	int pid;
	enum gp_run_state state;
	int exit_code, exit_signal, exec_errno;
	bool core_dumped;
	char *reason;
	struct gp_value *procs, *not_waited; /* arrays of objects */
	uint64_t procs_more;
	bool wait_interrupted;
	char *metrics_file, *gpu_status;
	uint64_t samples;
	enum gp_run_report_state report;
	char *report_error;
	bool report_salvaged;
};

/*
 * A run.json that another will follow (state "running", or the report step
 * still pending) ends with RESERVE_BYTES of spaces (JSON allows trailing
 * white space): room on disk for the next one, which is written in place
 * when a full disk refuses the temporary file.
 */
#define RESERVE_BYTES 4096

/* Replaces the string *@p dst by a copy of @p s (NULL: none). @return 0 or GP_ENOMEM. */
static int set_string(char **dst, const char *s)
{
	char *c = NULL;

	if (s && !(c = gp__strdup(s)))
		return gp__error(GP_ENOMEM, "out of memory");
	gp__free(*dst);
	*dst = c;
	return 0;
}

int gp_run_record_new(const char *dir, struct gp_run_record **out)
{
	struct gp_run_record *rec;

	*out = NULL;
	if (!dir || !*dir)
		return gp__error(GP_EINVAL, "run record: no directory");
	rec = gp__calloc(1, sizeof(*rec));
	if (!rec)
		return gp__error(GP_ENOMEM, "out of memory");
	rec->opts.size = sizeof(rec->opts);
	if (!(rec->dir = gp__strdup(dir)) || !(rec->command = gp_value_array()) ||
	    !(rec->tags = gp_value_object()) || !(rec->env = gp_value_object()) ||
	    !(rec->procs = gp_value_array()) || !(rec->not_waited = gp_value_array())) {
		gp_run_record_free(rec);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	*out = rec;
	return 0;
}

static void options_release(struct gp_run_options *o)
{
	gp__free((char *)o->capture_range);
	gp__free((char *)o->schedule);
	gp__free((char *)o->iter_range);
	gp__free((char *)o->config);
	gp__free((char *)o->pytorch);
}

void gp_run_record_free(struct gp_run_record *rec)
{
	if (!rec)
		return;
	gp__free(rec->dir);
	gp_value_free(rec->command);
	gp__free(rec->exe);
	gp__free(rec->cwd);
	gp__free(rec->host);
	gp_value_free(rec->tags);
	gp_value_free(rec->env);
	options_release(&rec->opts);
	gp__free(rec->inj_path);
	gp__free(rec->inj_reason);
	gp__free(rec->reason);
	gp_value_free(rec->procs);
	gp_value_free(rec->not_waited);
	gp__free(rec->metrics_file);
	gp__free(rec->gpu_status);
	gp__free(rec->report_error);
	gp__free(rec);
}

int gp_run_record_set_command(struct gp_run_record *rec, const char *const *argv, size_t argc,
                              const char *executable)
{
	struct gp_value *a = gp_value_array();
	size_t i;

	if (!a)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < argc; i++)
		if (gp_arr_push(a, gp_value_str(argv[i]))) {
			gp_value_free(a);
			return gp__error(GP_ENOMEM, "out of memory");
		}
	if (set_string(&rec->exe, executable)) {
		gp_value_free(a);
		return GP_ENOMEM;
	}
	gp_value_free(rec->command);
	rec->command = a;
	return 0;
}

int gp_run_record_set_host(struct gp_run_record *rec, const char *hostname, const char *cwd)
{
	if (set_string(&rec->host, hostname) || set_string(&rec->cwd, cwd))
		return GP_ENOMEM;
	return 0;
}

int gp_run_record_set_options(struct gp_run_record *rec, const struct gp_run_options *opts)
{
	struct gp_run_options o, b;
	int rc;

	if ((rc = GP__OPTS_VALID(opts, struct gp_run_options)))
		return rc;
	memset(&o, 0, sizeof(o));
	GP__OPTS_COPY(&o, opts);
	b = o; /* the strings as given (borrowed), then copied into o */
	o.capture_range = o.schedule = o.iter_range = o.config = o.pytorch = NULL;
	if ((b.capture_range && !(o.capture_range = gp__strdup(b.capture_range))) ||
	    (b.pytorch && !(o.pytorch = gp__strdup(b.pytorch))) ||
	    (b.schedule && !(o.schedule = gp__strdup(b.schedule))) ||
	    (b.iter_range && !(o.iter_range = gp__strdup(b.iter_range))) ||
	    (b.config && !(o.config = gp__strdup(b.config)))) {
		options_release(&o);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	options_release(&rec->opts);
	rec->opts = o;
	return 0;
}

int gp_run_record_set_tag(struct gp_run_record *rec, const char *key, const char *value)
{
	if (!key || !value)
		return gp__error(GP_EINVAL, "run record: a tag without key or value");
	return gp_obj_set_str(rec->tags, key, value) ? gp__error(GP_ENOMEM, "out of memory") : 0;
}

int gp_run_record_set_env(struct gp_run_record *rec, const char *assignment)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	char *name;
	int rc;

	if (!eq || eq == assignment)
		return gp__error(GP_EINVAL, "run record: '%s' is not NAME=VALUE",
		                 assignment ? assignment : "(null)");
	if (!(name = gp__strndup(assignment, (size_t)(eq - assignment))))
		return gp__error(GP_ENOMEM, "out of memory");
	rc = gp_obj_set_str(rec->env, name, eq + 1) ? gp__error(GP_ENOMEM, "out of memory") : 0;
	gp__free(name);
	return rc;
}

int gp_run_record_set_injector(struct gp_run_record *rec, const char *path, const char *reason,
                               bool cuda, bool nvtx)
{
	if (set_string(&rec->inj_path, path) || set_string(&rec->inj_reason, reason))
		return GP_ENOMEM;
	rec->inj_cuda = cuda;
	rec->inj_nvtx = nvtx;
	return 0;
}

int gp_run_record_set_start(struct gp_run_record *rec, int64_t unix_ns, int64_t monotonic_ns,
                            int pid)
{
	rec->start_unix_ns = unix_ns;
	rec->start_mono_ns = monotonic_ns;
	rec->pid = pid;
	return 0;
}

int gp_run_record_set_end(struct gp_run_record *rec, int64_t unix_ns, int64_t monotonic_ns)
{
	rec->end_unix_ns = unix_ns;
	rec->end_mono_ns = monotonic_ns;
	return 0;
}

int gp_run_record_set_state(struct gp_run_record *rec, enum gp_run_state state, int code,
                            const char *reason)
{
	if ((unsigned)state > GP_RUN_UNKNOWN)
		return gp__error(GP_EINVAL, "run record: unknown state %d", (int)state);
	if (set_string(&rec->reason, reason))
		return GP_ENOMEM;
	rec->exit_code = rec->exit_signal = rec->exec_errno = 0;
	rec->core_dumped = false;
	if (state == GP_RUN_EXITED || state == GP_RUN_SIGNALED) {
		if (WIFEXITED(code)) {
			state = GP_RUN_EXITED;
			rec->exit_code = WEXITSTATUS(code);
		} else {
			state = GP_RUN_SIGNALED;
			rec->exit_signal = WTERMSIG(code);
			rec->core_dumped = WCOREDUMP(code);
		}
	} else if (state == GP_RUN_EXEC_FAILED) {
		rec->exec_errno = code;
	}
	rec->state = state;
	return 0;
}

/* "SIGTERM", or "SIG<n>" for a signal without a name */
static const char *signame(int sig, char *buf, size_t n)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "SIG%d", sig);
	return buf;
}

/* How a process ended, from its waitpid status: state, exit_code, exit_signal. */
static int set_status(struct gp_value *o, int st)
{
	char sig[32];

	if (WIFEXITED(st))
		return gp_obj_set_str(o, "state", "exited") ||
		       gp_obj_set_int(o, "exit_code", WEXITSTATUS(st)) ||
		       gp_obj_set_null(o, "exit_signal");
	return gp_obj_set_str(o, "state", "signaled") || gp_obj_set_null(o, "exit_code") ||
	       gp_obj_set_str(o, "exit_signal", signame(WTERMSIG(st), sig, sizeof(sig)));
}

int gp_run_record_add_process(struct gp_run_record *rec, int pid, int wait_status,
                              int64_t end_monotonic_ns)
{
	struct gp_value *o = gp_value_object();

	if (!o || gp_arr_push(rec->procs, o) || gp_obj_set_int(o, "pid", pid) ||
	    gp_obj_set_int(o, "end_monotonic_ns", end_monotonic_ns) || set_status(o, wait_status))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

int gp_run_record_add_not_waited(struct gp_run_record *rec, int pid, const char *command,
                                 bool tracer)
{
	struct gp_value *o = gp_value_object();

	if (!o || gp_arr_push(rec->not_waited, o) || gp_obj_set_int(o, "pid", pid) ||
	    gp_obj_set_str(o, "command", command) || gp_obj_set_bool(o, "tracer", tracer))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

int gp_run_record_set_wait(struct gp_run_record *rec, uint64_t more, bool interrupted)
{
	rec->procs_more = more;
	rec->wait_interrupted = interrupted;
	return 0;
}

int gp_run_record_set_sampler(struct gp_run_record *rec, const char *file, uint64_t samples,
                              const char *gpu_status)
{
	if (set_string(&rec->metrics_file, file) || set_string(&rec->gpu_status, gpu_status))
		return GP_ENOMEM;
	rec->samples = samples;
	return 0;
}

int gp_run_record_set_report(struct gp_run_record *rec, enum gp_run_report_state state,
                             const char *error, bool salvaged)
{
	if ((unsigned)state > GP_RUN_REPORT_DISABLED)
		return gp__error(GP_EINVAL, "run record: unknown report state %d", (int)state);
	if (set_string(&rec->report_error, error))
		return GP_ENOMEM;
	rec->report = state;
	rec->report_salvaged = salvaged;
	return 0;
}

#define TRY(x)                                                                                     \
	do {                                                                                       \
		if (x)                                                                             \
			goto out_nomem;                                                            \
	} while (0)

static int set_clone(struct gp_value *o, const char *key, const struct gp_value *v)
{
	return gp_obj_set(o, key, gp_value_clone(v));
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
static struct gp_value *options(const struct gp_run_record *rec)
{
	/* sorted by key, so that from_config comes out sorted */
	static const struct {
		const char *key;
		enum gp_run_option opt;
	} keys[] = {
		{ "capture_range", GP_RUN_OPTION_CAPTURE_RANGE },
		{ "cuda_events", GP_RUN_OPTION_CUDA_EVENTS },
		{ "delay_ns", GP_RUN_OPTION_DELAY },
		{ "duration_ns", GP_RUN_OPTION_DURATION },
		{ "force", GP_RUN_OPTION_FORCE },
		{ "iter_range", GP_RUN_OPTION_ITER_RANGE },
		{ "no_cuda", GP_RUN_OPTION_NO_CUDA },
		{ "output", GP_RUN_OPTION_OUTPUT },
		{ "pytorch", GP_RUN_OPTION_PYTORCH },
		{ "quiet", GP_RUN_OPTION_QUIET },
		{ "sample_ms", GP_RUN_OPTION_SAMPLE_MS },
		{ "schedule", GP_RUN_OPTION_SCHEDULE },
		{ "tags", GP_RUN_OPTION_TAGS },
		{ "wait", GP_RUN_OPTION_WAIT },
	};
	const struct gp_run_options *o = &rec->opts;
	struct gp_value *v = gp_value_object(), *from;
	size_t i;

	if (!v)
		return NULL;
	TRY(gp_obj_set_str(v, "output", rec->dir));
	TRY(gp_obj_set_int(v, "sample_ms", o->sample_ms));
	TRY(gp_obj_set_bool(v, "no_cuda", o->no_cuda));
	TRY(gp_obj_set_bool(v, "cuda_events", o->cuda_events));
	TRY(gp__obj_set_str_or_null(v, "capture_range", o->capture_range));
	TRY(o->have_delay ? gp_obj_set_int(v, "delay_ns", o->delay_ns)
	                  : gp_obj_set_null(v, "delay_ns"));
	TRY(o->have_duration ? gp_obj_set_int(v, "duration_ns", o->duration_ns)
	                     : gp_obj_set_null(v, "duration_ns"));
	TRY(gp__obj_set_str_or_null(v, "schedule", o->schedule));
	TRY(gp__obj_set_str_or_null(v, "iter_range", o->iter_range));
	TRY(gp_obj_set_bool(v, "quiet", o->quiet));
	TRY(gp_obj_set_bool(v, "force", o->force));
	TRY(gp_obj_set_bool(v, "no_report", o->no_report));
	TRY(gp_obj_set_str(v, "wait", o->wait_primary ? "primary" : "all"));
	TRY(gp__obj_set_str_or_null(v, "config", o->config));
	TRY(gp__obj_set_str_or_null(v, "pytorch", o->pytorch));
	TRY(!(from = gp_value_array()));
	TRY(gp_obj_set(v, "from_config", from));
	for (i = 0; i < GP_ARRAY_SIZE(keys); i++)
		if (o->from_config & (1u << keys[i].opt))
			TRY(gp_arr_push(from, gp_value_str(keys[i].key)));
	return v;
out_nomem:
	gp_value_free(v);
	return NULL;
}

static const char *const state_names[] = {
	[GP_RUN_STARTING] = "starting",       [GP_RUN_RUNNING] = "running",
	[GP_RUN_EXITED] = "exited",           [GP_RUN_SIGNALED] = "signaled",
	[GP_RUN_EXEC_FAILED] = "exec_failed", [GP_RUN_UNKNOWN] = "unknown",
};

static const char *const report_names[] = {
	[GP_RUN_REPORT_PENDING] = "pending",
	[GP_RUN_REPORT_WRITTEN] = "written",
	[GP_RUN_REPORT_FAILED] = "failed",
	[GP_RUN_REPORT_DISABLED] = "disabled",
};

/* run.json's document: keys come out sorted whatever the order they are set in */
static struct gp_value *build(const struct gp_run_record *rec)
{
	struct gp_value *v = gp_value_object(), *o;
	char sig[32];

	if (!v)
		return NULL;
	TRY(gp_obj_set_str(v, "schema", GP_RUN_SCHEMA));
	TRY(gp_obj_set_str(v, "gpuprof_version", gp_version()));
	TRY(set_clone(v, "command", rec->command));
	TRY(gp__obj_set_str_or_null(v, "executable", rec->exe));
	TRY(gp__obj_set_str_or_null(v, "cwd", rec->cwd));
	TRY(gp__obj_set_str_or_null(v, "hostname", rec->host));
	TRY(set_clone(v, "tags", rec->tags));
	TRY(!(o = options(rec)));
	TRY(gp_obj_set(v, "options", o));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "injector", o));
	TRY(gp__obj_set_str_or_null(o, "path", rec->inj_path));
	TRY(gp__obj_set_str_or_null(o, "reason", rec->inj_reason));
	TRY(gp_obj_set_bool(o, "cuda", rec->inj_cuda));
	TRY(gp_obj_set_bool(o, "nvtx", rec->inj_nvtx));
	TRY(set_clone(v, "environment", rec->env));

	TRY(gp_obj_set_int(v, "start_unix_ns", rec->start_unix_ns));
	TRY(set_time(v, "start_time", rec->start_unix_ns));
	TRY(gp_obj_set_int(v, "start_monotonic_ns", rec->start_mono_ns));
	if (rec->end_mono_ns) {
		TRY(gp_obj_set_int(v, "end_unix_ns", rec->end_unix_ns));
		TRY(set_time(v, "end_time", rec->end_unix_ns));
		TRY(gp_obj_set_int(v, "end_monotonic_ns", rec->end_mono_ns));
		TRY(gp_obj_set_int(v, "wall_ns", rec->end_mono_ns - rec->start_mono_ns));
	} else {
		TRY(gp_obj_set_null(v, "end_unix_ns"));
		TRY(gp_obj_set_null(v, "end_time"));
		TRY(gp_obj_set_null(v, "end_monotonic_ns"));
		TRY(gp_obj_set_null(v, "wall_ns"));
	}
	TRY(rec->pid > 0 ? gp_obj_set_int(v, "pid", rec->pid) : gp_obj_set_null(v, "pid"));
	TRY(gp_obj_set_str(v, "state", state_names[rec->state]));
	if (rec->state == GP_RUN_EXITED)
		TRY(gp_obj_set_int(v, "exit_code", rec->exit_code));
	else
		TRY(gp_obj_set_null(v, "exit_code"));
	if (rec->state == GP_RUN_SIGNALED) {
		TRY(gp_obj_set_str(v, "exit_signal", signame(rec->exit_signal, sig, sizeof(sig))));
		TRY(gp_obj_set_bool(v, "core_dumped", rec->core_dumped));
	} else {
		TRY(gp_obj_set_null(v, "exit_signal"));
		TRY(gp_obj_set_bool(v, "core_dumped", false));
	}
	TRY(gp__obj_set_str_or_null(v, "exec_error",
	                            rec->exec_errno ? strerror(rec->exec_errno) : NULL));
	TRY(gp__obj_set_str_or_null(v, "state_reason", rec->reason));
	TRY(set_clone(v, "processes", rec->procs));
	TRY(gp_obj_set_int(v, "processes_more", (int64_t)rec->procs_more));
	TRY(gp_obj_set_bool(v, "wait_interrupted", rec->wait_interrupted));
	TRY(set_clone(v, "not_waited", rec->not_waited));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "sampler", o));
	TRY(rec->opts.sample_ms ? gp_obj_set_int(o, "interval_ms", rec->opts.sample_ms)
	                        : gp_obj_set_null(o, "interval_ms"));
	TRY(gp__obj_set_str_or_null(o, "file", rec->metrics_file));
	TRY(gp_obj_set_int(o, "samples", (int64_t)rec->samples));
	TRY(gp__obj_set_str_or_null(o, "gpu_status", rec->gpu_status));

	TRY(!(o = gp_value_object()));
	TRY(gp_obj_set(v, "report", o));
	TRY(gp_obj_set_str(o, "state", report_names[rec->report]));
	TRY(gp__obj_set_str_or_null(o, "file",
	                            rec->report == GP_RUN_REPORT_WRITTEN ? "report.json" : NULL));
	TRY(gp__obj_set_str_or_null(o, "error", rec->report_error));
	TRY(gp_obj_set_bool(o, "salvaged", rec->report_salvaged));
	return v;
out_nomem:
	gp_value_free(v);
	return NULL;
}

/* Writes @p text over @p path in place, padded with spaces to the file's size. @return 0, -1. */
static int write_in_place(const char *path, const char *text, size_t len)
{
	char pad[512];
	struct stat st;
	size_t off;
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < len)
		goto out_close;
	memset(pad, ' ', sizeof(pad));
	if (pwrite(fd, text, len, 0) != (ssize_t)len)
		goto out_close;
	for (off = len; off < (size_t)st.st_size;) {
		size_t k =
		    (size_t)st.st_size - off < sizeof(pad) ? (size_t)st.st_size - off : sizeof(pad);

		if (pwrite(fd, pad, k, (off_t)off) != (ssize_t)k)
			goto out_close;
		off += k;
	}
	rc = fsync(fd) ? -1 : 0;
out_close:
	close(fd);
	return rc;
}

/* The text of run.json: @p v pretty, plus the reserve when @p reserve. NULL: out of memory. */
static char *render(const struct gp_value *v, bool reserve, size_t *len)
{
	char *text = NULL, *out;

	if (!v || gp_value_to_json(v, GP_JSON_PRETTY, &text, len))
		return NULL;
	out = gp__malloc(*len + (reserve ? RESERVE_BYTES : 0) + 1);
	if (out) {
		memcpy(out, text, *len);
		if (reserve) {
			/* spaces, then the newline the pretty text already ended with */
			memset(out + *len - 1, ' ', RESERVE_BYTES);
			out[*len - 1 + RESERVE_BYTES] = '\n';
			*len += RESERVE_BYTES;
		}
		out[*len] = 0;
	}
	gp__free(text);
	return out;
}

/* DIR/run.json, malloc'd; NULL: out of memory (said) */
static char *json_path(const char *dir)
{
	size_t n = strlen(dir) + sizeof("/run.json");
	char *path = gp__malloc(n);

	if (!path)
		gp__error(GP_ENOMEM, "out of memory");
	else
		snprintf(path, n, "%s/run.json", dir);
	return path;
}

/*
 * After a failed atomic write of a last version: the document goes into the
 * room the first one reserved (its own reserve is for a next version the disk
 * has no room for); if even it does not fit, "unknown", with why, rather than
 * "running" for ever. @return how it went.
 */
static enum gp_run_write_how write_fallback(const struct gp_run_record *rec, const char *path,
                                            const char *text, size_t len, int err)
{
	struct gp_run_record u = *rec;
	struct gp_value *v;
	char why[256], *t;
	size_t n = 0;
	int rc;

	if (write_in_place(path, text, len) == 0)
		return GP_RUN_WRITE_IN_PLACE;
	snprintf(why, sizeof(why), "gpuprof could not write this file at the end: %s",
	         err ? strerror(err) : "unknown error");
	/* a shallow copy: its strings stay rec's, and are not freed here */
	u.state = GP_RUN_UNKNOWN;
	u.reason = why;
	u.end_mono_ns = u.end_unix_ns = 0;
	v = build(&u);
	t = render(v, false, &n);
	gp_value_free(v);
	rc = t ? write_in_place(path, t, n) : -1;
	gp__free(t);
	return rc == 0 ? GP_RUN_WRITE_UNKNOWN : GP_RUN_WRITE_NONE;
}

int gp_run_record_write(const struct gp_run_record *rec, enum gp_run_write_how *how)
{
	bool first = rec->state == GP_RUN_STARTING || rec->state == GP_RUN_RUNNING;
	/* another version will follow: keep room for it */
	bool reserve = first || rec->report == GP_RUN_REPORT_PENDING;
	struct gp_value *v = build(rec);
	enum gp_run_write_how done = GP_RUN_WRITE_NONE;
	char *text, *path = NULL;
	size_t len = 0;
	int rc, e;

	text = render(v, reserve, &len);
	gp_value_free(v);
	if (!text) {
		rc = gp__error(GP_ENOMEM, "cannot build run.json: out of memory");
		goto out;
	}
	if (!(path = json_path(rec->dir))) {
		rc = GP_ENOMEM;
		goto out_text;
	}
	errno = 0;
	rc = gp_file_write_atomic(path, text, len); /* pretty JSON ends with a newline */
	e = errno;
	if (rc == 0)
		done = GP_RUN_WRITE_ATOMIC;
	else if (!first) {
		done = write_fallback(rec, path, text, reserve ? len - RESERVE_BYTES : len, e);
		if (done == GP_RUN_WRITE_IN_PLACE)
			rc = 0;
	}
	errno = e;
	gp__free(path);
out_text:
	gp__free(text);
out:
	if (how)
		*how = done;
	return rc;
}

int gp_run_record_mark_unfinished(const char *dir, const char *reason, bool *changed)
{
	struct gp_value *v = NULL;
	const char *st;
	char *text = NULL, *path = NULL;
	size_t len = 0;
	int rc;

	if (changed)
		*changed = false;
	if ((rc = gp__run_json_read(dir, &v)) || !v)
		return rc;
	st = gp_value_get_str(gp_obj_get(v, "state"));
	if (!st || (strcmp(st, "running") && strcmp(st, "starting")))
		goto out_value;
	if (gp_obj_set_str(v, "state", "unknown") || gp_obj_set_str(v, "state_reason", reason) ||
	    !(text = render(v, false, &len)) || !(path = json_path(dir))) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_value;
	}
	/* the disk may be full: then in place, into the room the file kept */
	rc = gp_file_write_atomic(path, text, len);
	if (rc && write_in_place(path, text, len) == 0)
		rc = 0;
	if (rc == 0 && changed)
		*changed = true;
out_value:
	gp__free(path);
	gp__free(text);
	gp_value_free(v);
	return rc;
}
