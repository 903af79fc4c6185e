/* SPDX-License-Identifier: MIT */
/*
 * run-json.c - DIR/run.json of `gpuprof run`: what the run knows (struct
 * gp_run) handed to the library's record of it (gpuprof/run.h, which owns
 * the format: keys, the room kept on disk, the atomic and in-place writes),
 * and the guardian process that outlives gpuprof to complete run.json when
 * gpuprof is killed.
 *
 * Written at the start (state "running") and again at the end; what went
 * wrong is said here, on standard error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/run.h"
#include "run.h"

static int set_options(struct gp_run_record *rec, const struct gp_run *r)
{
	const struct gp_run_opts *o = &r->opts;
	struct gp_run_options ro;
	char sched[128], pt[32];

	memset(&ro, 0, sizeof(ro));
	ro.size = sizeof(ro);
	ro.sample_ms = o->sample_ms;
	ro.no_cuda = o->no_cuda;
	ro.cuda_events = o->cuda_events;
	ro.quiet = o->quiet;
	ro.force = o->force;
	ro.no_report = o->no_report;
	ro.wait_primary = o->wait_primary;
	ro.have_delay = o->delay_ns >= 0;
	ro.delay_ns = o->delay_ns;
	ro.have_duration = o->duration_ns >= 0;
	ro.duration_ns = o->duration_ns;
	ro.capture_range = o->capture_range;
	ro.schedule =
	    o->have_schedule ? gp_run_sched_str(&o->schedule, sched, sizeof(sched)) : NULL;
	ro.iter_range = o->iter_range;
	ro.config = r->config_path;
	ro.from_config = o->from_config; /* enum gp_run_opt is numbered as gp_run_option */
	ro.pytorch = o->pytorch ? gp_run_pytorch_str(o->pytorch, pt, sizeof(pt)) : NULL;
	return gp_run_record_set_options(rec, &ro);
}

/* the run's state as gp_run_record_set_state() takes it: a waitpid status, or exec's errno */
static int state_code(const struct gp_run *r)
{
	if (r->state == GP_RUN_EXITED || r->state == GP_RUN_SIGNALED)
		return r->wait_status;
	return r->state == GP_RUN_EXEC_FAILED ? r->exec_errno : 0;
}

/* the record of @p r, in *@p out. @return 0 or a status */
static int record_of(const struct gp_run *r, struct gp_run_record **out)
{
	struct gp_run_record *rec;
	size_t i;
	int rc;

	if ((rc = gp_run_record_new(r->dir, &rec)))
		return rc;
	rc = gp_run_record_set_command(rec, r->argv, (size_t)r->argc, r->exe);
	if (!rc)
		rc = gp_run_record_set_host(rec, r->host, r->cwd);
	for (i = 0; !rc && i < r->opts.ntags; i++)
		rc = gp_run_record_set_tag(rec, r->opts.tags[i].key, r->opts.tags[i].value);
	if (!rc)
		rc = set_options(rec, r);
	if (!rc)
		rc = gp_run_record_set_injector(rec, r->inj.path, r->inj.reason, r->inj.cuda,
		                                r->inj.nvtx);
	for (i = 0; !rc && r->env_set && r->env_set[i]; i++)
		rc = gp_run_record_set_env(rec, r->env_set[i]);
	if (!rc)
		rc = gp_run_record_set_start(rec, r->start_real_ns, r->start_mono_ns, r->pid);
	if (!rc)
		rc = gp_run_record_set_end(rec, r->end_real_ns, r->end_mono_ns);
	if (!rc)
		rc = gp_run_record_set_state(rec, r->state, state_code(r), NULL);
	for (i = 0; !rc && i < r->nprocs; i++)
		rc = gp_run_record_add_process(rec, r->procs[i].pid, r->procs[i].status,
		                               r->procs[i].end_mono_ns);
	for (i = 0; !rc && i < r->nleft; i++)
		rc = gp_run_record_add_not_waited(rec, r->left[i].pid, r->left[i].cmd,
		                                  r->left[i].tracer);
	if (!rc)
		rc = gp_run_record_set_wait(rec, r->procs_more, r->wait_interrupted);
	if (!rc)
		rc = gp_run_record_set_sampler(rec, r->metrics_ok ? "metrics.jsonl" : NULL,
		                               r->samples, r->gpu_status);
	if (!rc)
		rc = gp_run_record_set_report(rec, r->report_state, r->report_error,
		                              r->report_salvaged);
	if (rc) {
		gp_run_record_free(rec);
		return rc;
	}
	*out = rec;
	return 0;
}

int gp_run_json_write(const struct gp_run *r)
{
	struct gp_run_record *rec;
	enum gp_run_write_how how;
	int rc, e;

	if (record_of(r, &rec))
		return error("cannot build run.json: %s", gp_last_error());
	rc = gp_run_record_write(rec, &how);
	e = errno;
	gp_run_record_free(rec);
	if (how != GP_RUN_WRITE_ATOMIC)
		error("%s", gp_last_error());
	if (how == GP_RUN_WRITE_IN_PLACE)
		fprintf(stderr, "gpuprof run: run.json written in place instead, into the room "
		                "its first version kept\n");
	else if (how == GP_RUN_WRITE_UNKNOWN)
		warning("run.json says state \"unknown\" (gpuprof could not write this file at the "
		        "end: %s)",
		        e ? strerror(e) : "unknown error");
	return rc ? -1 : 0;
}

/* ---- the guardian: run.json when gpuprof itself is killed ---- */

/*
 * In the guardian, once gpuprof is gone: a run.json that still says
 * "running" gets "unknown", with why (the library keeps everything else).
 */
static void guardian_fix(const char *dir, pid_t gpuprof)
{
	char why[200];

	snprintf(why, sizeof(why),
	         "gpuprof (pid %d) ended before it completed this file: it was killed (SIGKILL) or "
	         "crashed; how CMD ended is not known",
	         (int)gpuprof);
	gp_run_record_mark_unfinished(dir, why, NULL);
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
