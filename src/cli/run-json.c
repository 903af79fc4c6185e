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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
		{ "wait", GP_RO_WAIT },
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
	TRY(gp_obj_set_str(v, "wait", o->wait_primary ? "primary" : "all"));
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

/* How a process ended, from its waitpid status: state, exit_code, exit_signal. */
static int set_status(struct gp_value *o, int st)
{
	char sig[32];

	if (WIFEXITED(st))
		return gp_obj_set_str(o, "state", "exited") ||
		       gp_obj_set_int(o, "exit_code", WEXITSTATUS(st)) ||
		       gp_obj_set_null(o, "exit_signal");
	return gp_obj_set_str(o, "state", "signaled") || gp_obj_set_null(o, "exit_code") ||
	       gp_obj_set_str(o, "exit_signal", gp_run_signame(WTERMSIG(st), sig, sizeof(sig)));
}

/* processes: CMD's others that gpuprof reaped; not_waited: those left running */
static int processes(const struct gp_run *r, struct gp_value *v)
{
	struct gp_value *a, *o;
	size_t i;

	if (!(a = gp_value_array()) || gp_obj_set(v, "processes", a) ||
	    gp_obj_set_int(v, "processes_more", (int64_t)r->procs_more))
		return -1;
	for (i = 0; i < r->nprocs; i++) {
		if (!(o = gp_value_object()) || gp_arr_push(a, o) ||
		    gp_obj_set_int(o, "pid", r->procs[i].pid) ||
		    gp_obj_set_int(o, "end_monotonic_ns", r->procs[i].end_mono_ns) ||
		    set_status(o, r->procs[i].status))
			return -1;
	}
	if (gp_obj_set_bool(v, "wait_interrupted", r->wait_interrupted) ||
	    !(a = gp_value_array()) || gp_obj_set(v, "not_waited", a))
		return -1;
	for (i = 0; i < r->nleft; i++) {
		if (!(o = gp_value_object()) || gp_arr_push(a, o) ||
		    gp_obj_set_int(o, "pid", r->left[i].pid) ||
		    gp_obj_set_str(o, "command", r->left[i].cmd) ||
		    gp_obj_set_bool(o, "tracer", r->left[i].tracer))
			return -1;
	}
	return 0;
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
	TRY(set_opt_str(v, "state_reason", r->state_reason));
	TRY(processes(r, v));

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

/*
 * A run.json that another will follow (state "running", or the report step
 * still pending) ends with RESERVE_BYTES of spaces (JSON allows trailing
 * white space): room on disk for the next one, which is written in place
 * when a full disk refuses the temporary file.
 */
#define RESERVE_BYTES 4096

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
		goto out;
	memset(pad, ' ', sizeof(pad));
	if (pwrite(fd, text, len, 0) != (ssize_t)len)
		goto out;
	for (off = len; off < (size_t)st.st_size;) {
		size_t k =
		    (size_t)st.st_size - off < sizeof(pad) ? (size_t)st.st_size - off : sizeof(pad);

		if (pwrite(fd, pad, k, (off_t)off) != (ssize_t)k)
			goto out;
		off += k;
	}
	rc = fsync(fd) ? -1 : 0;
out:
	close(fd);
	return rc;
}

/* The text of run.json: @p v pretty, plus the reserve when @p reserve. NULL: out of memory. */
static char *render(struct gp_value *v, bool reserve, size_t *len)
{
	char *text = NULL, *out;

	if (!v || gp_value_to_json(v, GP_JSON_PRETTY, &text, len))
		return NULL;
	out = malloc(*len + (reserve ? RESERVE_BYTES : 0) + 1);
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
	gp_free(text);
	return out;
}

int gp_run_json_write(const struct gp_run *r)
{
	struct gp_value *v = build(r);
	bool first = strcmp(r->state, "running") == 0 || strcmp(r->state, "starting") == 0;
	/* another version will follow: keep room for it */
	bool reserve = first || (r->report_state && strcmp(r->report_state, "pending") == 0);
	char *text, *path;
	size_t len = 0, plen;
	int rc, e;

	text = render(v, reserve, &len);
	gp_value_free(v);
	if (!text)
		return error("cannot build run.json: out of memory");
	plen = strlen(r->dir) + sizeof("/run.json");
	path = xmalloc(plen);
	snprintf(path, plen, "%s/run.json", r->dir);
	errno = 0;
	rc = write_file_atomic(path, text, len); /* pretty JSON ends with a newline */
	e = errno;
	if (rc && !first) {
		/*
		 * No room for a temporary file (a full disk): the last state goes
		 * into the room the first one reserved. If even it does not fit,
		 * "unknown", with why, rather than "running" for ever.
		 */
		/* the document alone (its reserve is for a next version the disk has no room for)
		 */
		if (write_in_place(path, text, reserve ? len - RESERVE_BYTES : len) == 0) {
			fprintf(stderr,
			        "gpuprof run: run.json written in place instead, into the room "
			        "its first version kept\n");
			rc = 0;
		} else {
			struct gp_run u = *r;
			char why[256];

			snprintf(why, sizeof(why),
			         "gpuprof could not write this file at the end: %s",
			         e ? strerror(e) : "unknown error");
			u.state = "unknown";
			u.state_reason = why;
			u.end_mono_ns = u.end_real_ns = 0;
			free(text);
			v = build(&u);
			text = render(v, false, &len);
			gp_value_free(v);
			if (text && write_in_place(path, text, len) == 0)
				warning("run.json says state \"unknown\" (%s)", why);
		}
	}
	free(path);
	free(text);
	return rc;
}

/* ---- the guardian: run.json when gpuprof itself is killed ---- */

/*
 * In the guardian, once gpuprof is gone: a run.json that still says
 * "running" gets "unknown", with why. Read and written again whole, so
 * that everything gpuprof wrote stays.
 */
static void guardian_fix(const char *dir, pid_t gpuprof)
{
	struct gp_value *v = NULL;
	char *path = NULL, *text = NULL, why[200];
	const char *st;
	size_t len;

	if (asprintf(&path, "%s/run.json", dir) < 0)
		return;
	if (!(text = read_file_max(path, 16 << 20, &len)) || gp_value_parse(text, len, &v, NULL) ||
	    !(st = gp_value_get_str(gp_obj_get(v, "state"))) ||
	    (strcmp(st, "running") && strcmp(st, "starting")))
		goto out;
	free(text);
	text = NULL;
	snprintf(why, sizeof(why),
	         "gpuprof (pid %d) ended before it completed this file: it was killed (SIGKILL) or "
	         "crashed; how CMD ended is not known",
	         (int)gpuprof);
	if (gp_obj_set_str(v, "state", "unknown") || gp_obj_set_str(v, "state_reason", why) ||
	    !(text = render(v, false, &len)))
		goto out;
	if (write_file_atomic(path, text, len))
		write_in_place(path, text, len);
out:
	free(text);
	free(path);
	gp_value_free(v);
}

int gp_run_guardian_start(const char *dir)
{
	pid_t gp = getpid(), mid;
	int p[2], st;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	mid = fork();
	if (mid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (mid == 0) {
		/* the middle process: forks the guardian and exits, so init adopts it */
		if (fork() != 0)
			_exit(0);
		/* the guardian: its own session (a kill of the job's process group spares it), no
		 * signals, no descriptor of gpuprof's but the pipe's read end */
		struct sigaction ign;
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		char b;
		ssize_t n;

		setsid();
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD)
				sigaction(s, &ign, NULL);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		if (p[0] != 3)
			dup2(p[0], 3);
		closefrom(4);
		do
			n = read(3, &b, 1);
		while (n < 0 && errno == EINTR);
		/* one byte: gpuprof finished its files; EOF: it died */
		if (n == 0)
			guardian_fix(dir, gp);
		_exit(0);
	}
	close(p[0]);
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	return p[1];
}

void gp_run_guardian_done(int fd)
{
	if (fd < 0)
		return;
	while (write(fd, "d", 1) < 0 && errno == EINTR)
		;
	close(fd);
}
