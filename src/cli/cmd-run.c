/* SPDX-License-Identifier: MIT */
/*
 * cmd-run.c - `gpuprof run [options] -- CMD [ARGS]`: runs CMD with the
 * injected tracer (libgpuprof-inject.so, through CUDA_INJECTION64_PATH and
 * NVTX_INJECTION64_PATH), samples GPU and CPU metrics of its process tree
 * meanwhile, and leaves a capture directory DIR behind: run.json (this
 * file's record of the run), metrics.jsonl (the sampler's timeline) and the
 * tracer's capture files.
 *
 * Everything is checked before CMD starts (usage errors exit 2). CMD then
 * keeps its stdin, stdout, stderr and process group; its exit status is
 * gpuprof's, and a death by signal is passed on by dying of the same signal
 * once the outputs are complete. The parts: options and --config
 * (run-opts.c), process and environment (run-child.c), metrics and status
 * line (run-metrics.c), run.json (run-json.c), report.json and the summary
 * on standard error (run-report.c).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "run.h"

static const char usage_text[] =
    "usage: gpuprof run [options] [--] CMD [ARGS]\n"
    "\n"
    "    -o, --output DIR      capture directory (default: ./gpuprof-run-N, the first free N)\n"
    "    --force               write into DIR even if it is not empty\n"
    "    --sample-ms N         GPU/CPU sampling interval, 1 to 60000 ms (default: 100;\n"
    "                          0: no sampling)\n"
    "    --no-cuda             no CUDA activity capture (NVTX and annotations only)\n"
    "    --cuda-events         also record cudaEventRecord calls on their streams\n"
    "    --capture-range R     capture only inside 'nvtx:NAME' ranges or between\n"
    "                          cudaProfilerStart/Stop ('cudaProfilerApi')\n"
    "    --delay S             start capturing S seconds after CMD starts\n"
    "    --duration S          capture for S seconds (CMD keeps running)\n"
    "    --schedule SPEC       wait=W,warmup=U,active=A,repeat=R iterations (repeat 0: forever)\n"
    "    --iter-range NAME     the range or mark that delimits an iteration (--schedule)\n"
    "    --pytorch LIST        a Python CMD loads gpuprof's startup hook: 'modules' (a range\n"
    "                          per nn.Module call), 'ops', 'shapes' (PyTorch's NVTX op\n"
    "                          ranges, with input shapes), comma-separated\n"
    "    --tag KEY=VALUE       a tag recorded with the run (repeatable)\n"
    "    --config FILE         options from a YAML file; the command line overrides it\n"
    "    --live [SECONDS]      a line of GPU and host metrics on standard error every\n"
    "                          SECONDS (default 1; 0.1 to 3600) while CMD runs\n"
    "    --quiet               no status line, notes or summary on standard error\n"
    "    --no-report           no DIR/report.json and no summary at the end\n"
    "    --wait all|primary    wait for every process CMD started (default), or for CMD\n"
    "                          only (the others still running are listed)\n"
    "    -h, --help            this help; 'gpuprof help run' for the docs\n";

enum {
	OPT_FORCE = 256,
	OPT_SAMPLE_MS,
	OPT_NO_CUDA,
	OPT_CUDA_EVENTS,
	OPT_CAPTURE_RANGE,
	OPT_DELAY,
	OPT_DURATION,
	OPT_SCHEDULE,
	OPT_ITER_RANGE,
	OPT_TAG,
	OPT_CONFIG,
	OPT_QUIET,
	OPT_NO_REPORT,
	OPT_WAIT,
	OPT_LIVE,
	OPT_PYTORCH,
};

/* one line: the problem and where to look */
#define run_usage(fmt, ...) usage_die(fmt " (see 'gpuprof run -h')", __VA_ARGS__)

static void set(struct gp_run_opts *o, enum gp_run_opt which, const char *text)
{
	char err[512];

	if (gp_run_opt_set(o, which, text, err, sizeof(err)))
		usage_die("%s", err);
}

/* whether @p text is a plain decimal number ("2", "0.5"): no command is named so */
static bool is_number(const char *text)
{
	char *end;

	if (!((*text >= '0' && *text <= '9') || *text == '.'))
		return false;
	errno = 0;
	strtod(text, &end);
	return !*end;
}

/* SECONDS of --live, 0.1 to 3600, into ms; @return whether it is one */
static bool live_ms(const char *text, uint32_t *ms)
{
	char *end;
	double v;

	if (!is_number(text))
		return false;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !(v >= 0.1 && v <= 3600))
		return false;
	*ms = (uint32_t)(v * 1000 + 0.5);
	return true;
}

/* @return the index of CMD in argv */
static int parse_args(int argc, const char **argv, struct gp_run_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "sample-ms", required_argument, NULL, OPT_SAMPLE_MS },
		{ "no-cuda", no_argument, NULL, OPT_NO_CUDA },
		{ "cuda-events", no_argument, NULL, OPT_CUDA_EVENTS },
		{ "capture-range", required_argument, NULL, OPT_CAPTURE_RANGE },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "schedule", required_argument, NULL, OPT_SCHEDULE },
		{ "iter-range", required_argument, NULL, OPT_ITER_RANGE },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "no-report", no_argument, NULL, OPT_NO_REPORT },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "live", optional_argument, NULL, OPT_LIVE },
		{ "pytorch", required_argument, NULL, OPT_PYTORCH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	/* '+': the first non-option is CMD; its own options are left alone */
	while ((c = getopt_long(argc, (char *const *)argv, "+:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			set(o, GP_RO_OUTPUT, optarg);
			break;
		case OPT_FORCE:
			set(o, GP_RO_FORCE, "true");
			break;
		case OPT_SAMPLE_MS:
			set(o, GP_RO_SAMPLE_MS, optarg);
			break;
		case OPT_NO_CUDA:
			set(o, GP_RO_NO_CUDA, "true");
			break;
		case OPT_CUDA_EVENTS:
			set(o, GP_RO_CUDA_EVENTS, "true");
			break;
		case OPT_CAPTURE_RANGE:
			set(o, GP_RO_CAPTURE_RANGE, optarg);
			break;
		case OPT_DELAY:
			set(o, GP_RO_DELAY, optarg);
			break;
		case OPT_DURATION:
			set(o, GP_RO_DURATION, optarg);
			break;
		case OPT_SCHEDULE:
			set(o, GP_RO_SCHEDULE, optarg);
			break;
		case OPT_ITER_RANGE:
			set(o, GP_RO_ITER_RANGE, optarg);
			break;
		case OPT_TAG:
			set(o, GP_RO_TAG, optarg);
			break;
		case OPT_CONFIG:
			if (!*optarg)
				usage_die("option '--config' expects a file name");
			free(o->config);
			o->config = xstrdup(optarg);
			break;
		case OPT_QUIET:
			set(o, GP_RO_QUIET, "true");
			break;
		case OPT_NO_REPORT:
			o->no_report = true;
			break;
		case OPT_WAIT:
			set(o, GP_RO_WAIT, optarg);
			break;
		case OPT_PYTORCH:
			set(o, GP_RO_PYTORCH, optarg);
			break;
		case OPT_LIVE:
			/* --live=S, or --live S when the next word is a number (CMD never is one)
			 */
			if (!optarg && optind < argc && is_number(argv[optind]))
				optarg = (char *)argv[optind++];
			if (optarg && !live_ms(optarg, &o->live_ms))
				run_usage("option '--live' expects 0.1 to 3600 seconds, not '%s'",
				          optarg);
			if (!optarg)
				o->live_ms = 1000;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(GP_EXIT_OK);
		case ':':
			run_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			run_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_die("no command given: gpuprof run [options] -- CMD [ARGS]");
	if (o->config)
		gp_run_config_load(o);
	if (o->iter_range && !o->have_schedule)
		usage_die("option '--iter-range' needs '--schedule'");
	if (o->have_schedule && !o->iter_range)
		usage_die(
		    "option '--schedule' needs '--iter-range NAME', the NVTX range that marks "
		    "one iteration");
	if (o->live_ms && !o->sample_ms)
		usage_die("option '--live' needs sampling: it cannot be combined with "
		          "'--sample-ms 0'");
	if (o->no_cuda && o->capture_range && strcmp(o->capture_range, "cudaProfilerApi") == 0)
		usage_die("'--capture-range cudaProfilerApi' needs CUDA capture: it cannot be "
		          "combined with '--no-cuda'");
	return optind;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		die("cannot read directory '%s': %s", path, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

/*
 * What the run left in its directory, for the last line: "capture,
 * metrics timeline, report.json and run.json"; a run without CUDA has no
 * capture to speak of ("metrics timeline and run.json").
 */
static void dir_contents(const struct gp_run *r, char *buf, size_t n)
{
	const char *have[4];
	size_t k = 0, len = 0;
	bool cap = false;
	DIR *d = opendir(r->dir);
	struct dirent *e;
	char path[PATH_MAX];

	while (d && !cap && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		cap = l > 6 && strcmp(e->d_name + l - 6, ".gpcap") == 0;
	}
	if (d)
		closedir(d);
	if (cap)
		have[k++] = "capture";
	if (snprintf(path, sizeof(path), "%s/metrics.jsonl", r->dir) < (int)sizeof(path) &&
	    access(path, F_OK) == 0)
		have[k++] = "metrics timeline";
	if (r->report_state == GP_RUN_REPORT_WRITTEN)
		have[k++] = "report.json";
	have[k++] = "run.json";
	buf[0] = 0;
	for (size_t i = 0; i < k && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
		                        !i           ? ""
		                        : i + 1 == k ? " and "
		                                     : ", ",
		                        have[i]);
}

/* mkdir -p; @return 0, or -1 with errno */
static int mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) && errno != EEXIST) {
			rc = -1;
			break;
		}
		*s = '/';
	}
	if (!rc && mkdir(p, 0777) && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* Checks -o DIR before anything is created: exists and not empty needs --force. */
static void check_output(const struct gp_run_opts *o)
{
	struct stat st;

	if (!o->output || stat(o->output, &st))
		return;
	if (!S_ISDIR(st.st_mode))
		usage_die("output '%s' exists and is not a directory", o->output);
	if (!o->force && !dir_is_empty(o->output))
		usage_die("output directory '%s' is not empty (use --force to write into it, or "
		          "-o another directory)",
		          o->output);
}

/* Creates the capture directory. @return its absolute path (malloc'd). */
static char *make_output(const struct gp_run_opts *o)
{
	char name[64], *abs;
	const char *dir = o->output;
	unsigned n;

	if (!dir) {
		/* mkdir is the existence test, so two runs started together never share one */
		for (n = 1;; n++) {
			if (n == 1000000)
				die("no free name ./gpuprof-run-N; give -o DIR");
			snprintf(name, sizeof(name), "gpuprof-run-%u", n);
			if (mkdir(name, 0777) == 0)
				break;
			if (errno != EEXIST)
				die("cannot create directory '%s': %s", name, strerror(errno));
		}
		dir = name;
	} else if (mkdirs(dir)) {
		die("cannot create directory '%s': %s", dir, strerror(errno));
	}
	abs = realpath(dir, NULL);
	if (!abs)
		die("cannot resolve '%s': %s", dir, strerror(errno));
	return abs;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* the status line on a terminal, redrawn by the wait loop */
struct status {
	struct gp_run_metrics *m;
	int64_t start_mono_ns;
	bool drawn;
};

static void status_tick(void *arg)
{
	struct status *st = arg;
	struct winsize ws;
	char line[512];
	int width = 79;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		width = ws.ws_col - 1;
	gp_run_status_format(st->m, clock_ns(CLOCK_MONOTONIC) - st->start_mono_ns, line,
	                     sizeof(line), width);
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	st->drawn = true;
}

static void status_erase(struct status *st)
{
	if (st->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		st->drawn = false;
	}
}

/* --live: a line of metrics on standard error, never redrawn (also when stderr is a file) */
static void live_tick(void *arg)
{
	struct status *st = arg;
	char line[2048];

	gp_run_live_format(st->m, clock_ns(CLOCK_MONOTONIC) - st->start_mono_ns, line,
	                   sizeof(line));
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

static void record_end(struct gp_run *r, const struct gp_run_child *c)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);

	/* CMD's end, not that of the processes it left behind, which gpuprof may have waited for */
	r->end_mono_ns = c->reaped && c->end_mono_ns ? c->end_mono_ns : now;
	r->end_real_ns = clock_ns(CLOCK_REALTIME) - (now - r->end_mono_ns);
	r->procs = c->procs;
	r->nprocs = c->nprocs;
	r->procs_more = c->procs_more;
	r->left = c->left;
	r->nleft = c->nleft;
	r->wait_interrupted = c->interrupted;
	if (c->exec_errno) {
		r->state = GP_RUN_EXEC_FAILED;
		r->exec_errno = c->exec_errno;
	} else if (c->reaped && WIFEXITED(c->status)) {
		r->state = GP_RUN_EXITED;
		r->wait_status = c->status;
		r->exit_code = WEXITSTATUS(c->status);
	} else if (c->reaped && WIFSIGNALED(c->status)) {
		r->state = GP_RUN_SIGNALED;
		r->wait_status = c->status;
		r->exit_signal = WTERMSIG(c->status);
	} else {
		r->state = GP_RUN_UNKNOWN;
	}
}

/* --wait primary or Ctrl-C: which processes of CMD were left running, said exactly (and in
 * run.json) */
static void note_left(const struct gp_run *r)
{
	size_t i, traced = 0;

	if (r->opts.quiet || !r->nleft)
		return;
	for (i = 0; i < r->nleft; i++)
		traced += r->left[i].tracer;
	fprintf(stderr, "gpuprof run: %s: not waiting for %zu process%s CMD started:",
	        r->wait_interrupted ? "interrupted (SIGINT)" : "--wait primary", r->nleft,
	        r->nleft == 1 ? "" : "es");
	for (i = 0; i < r->nleft; i++)
		fprintf(stderr, "%s pid %d (%s%s)", i ? "," : "", (int)r->left[i].pid,
		        r->left[i].cmd, r->left[i].tracer ? ", tracer loaded" : "");
	fputc('\n', stderr);
	if (traced)
		fprintf(
		    stderr,
		    "gpuprof run: the capture%s of %zu of them may be incomplete in the report\n",
		    traced == 1 ? "" : "s", traced);
}

/* Dies of @p sig as CMD did, so the parent sees the same death; 128+sig if we survive. */
static int die_of(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	/* CMD may have dumped core; a second core, of gpuprof, would only mislead */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

static void run_release(struct gp_run *r, char **envp, char **sh_argv)
{
	size_t i;

	for (i = 0; r->env_set && r->env_set[i]; i++)
		free(r->env_set[i]);
	free(r->env_set);
	free(envp);
	free(sh_argv);
	free(r->exe);
	free(r->dir);
	free(r->config_path);
	free(r->cwd);
	free(r->inj.path);
	free(r->inj.lib);
	free(r->inj.pyhook);
	free(r->inj.reason);
	free(r->gpu_status);
	free(r->report_error);
	gp_run_opts_release(&r->opts);
}

int cmd_run(int argc, const char **argv)
{
	struct gp_run r;
	struct gp_run_child c;
	struct gp_run_metrics *m = NULL;
	struct status st;
	char **envp = NULL, **sh_argv = NULL, *mpath = NULL;
	int first, rc, i, guard = -1;
	bool tty;

	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	c.go_fd = c.err_fd = c.sig_fd = -1;
	gp_run_opts_init(&r.opts);
	first = parse_args(argc, argv, &r.opts);
	r.argc = argc - first;
	r.argv = argv + first;
	r.state = GP_RUN_STARTING;
	r.report_state = r.opts.no_report ? GP_RUN_REPORT_DISABLED : GP_RUN_REPORT_PENDING;

	/* everything that can refuse the run, before anything is created */
	gp_run_check_env();
	check_output(&r.opts);
	rc = gp_run_resolve(r.argv[0], &r.exe);
	if (rc) {
		gp_run_opts_release(&r.opts);
		return rc;
	}
	if (r.opts.config) {
		r.config_path = realpath(r.opts.config, NULL);
		if (!r.config_path)
			r.config_path = xstrdup(r.opts.config);
	}
	gp_run_find_injector(&r.inj, r.opts.no_cuda);
	if (r.opts.pytorch)
		gp_run_find_pyhook(&r.inj);
	r.cwd = getcwd(NULL, 0);
	gethostname(r.host, sizeof(r.host) - 1);
	r.dir = make_output(&r.opts);
	if (!r.inj.path && !r.opts.quiet)
		fprintf(stderr,
		        "gpuprof run: CUDA and NVTX capture are not available in this build "
		        "(%s); recording metrics only\n",
		        r.inj.reason);
	else if (r.inj.reason && !r.opts.quiet)
		fprintf(stderr, "gpuprof run: %s\n", r.inj.reason);

	/* the child's argv as execvp would make it for a script without #! */
	sh_argv = xcalloc((size_t)r.argc + 2, sizeof(*sh_argv));
	sh_argv[0] = (char *)"sh";
	sh_argv[1] = r.exe;
	for (i = 1; i < r.argc; i++)
		sh_argv[i + 1] = (char *)r.argv[i];
	r.start_real_ns = clock_ns(CLOCK_REALTIME);
	r.start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	gp_run_build_env(&r.opts, &r.inj, r.dir, r.start_mono_ns, &envp, &r.env_set);
	c.path = r.exe;
	c.argv = (char *const *)r.argv;
	c.envp = envp;
	c.sh_argv = sh_argv;

	c.wait_all = !r.opts.wait_primary;
	c.quiet = r.opts.quiet;
	c.inj_path = r.inj.path;
	if (gp_run_signals_take(&c)) {
		rc = GP_EXIT_FAILURE;
		goto out;
	}
	guard = gp_run_guardian_start(r.dir);
	gp_run_subreaper();
	if (gp_run_child_fork(&c)) {
		rc = GP_EXIT_FAILURE;
		goto out_signals;
	}
	r.pid = c.pid;
	if (r.opts.sample_ms) {
		size_t n = strlen(r.dir) + sizeof("/metrics.jsonl");

		mpath = xmalloc(n);
		snprintf(mpath, n, "%s/metrics.jsonl", r.dir);
		/* without metrics the run still goes on: the capture matters more */
		if (gp_run_metrics_start(&m, r.opts.sample_ms, c.pid, mpath))
			warning("running '%s' without GPU/CPU metrics", r.argv[0]);
		else
			r.metrics_ok = true;
	}
	if (m && gp_run_metrics_gpu_status(m))
		r.gpu_status = xstrdup(gp_run_metrics_gpu_status(m));
	r.state = GP_RUN_RUNNING;
	if (gp_run_json_write(&r)) {
		/* no record of the run: do not start CMD at all */
		gp_run_child_abort(&c);
		rc = GP_EXIT_FAILURE;
		goto out_metrics;
	}

	memset(&st, 0, sizeof(st));
	st.m = m;
	st.start_mono_ns = r.start_mono_ns;
	/* the status line on a terminal; --live prints lines of its own instead */
	tty = !r.opts.quiet && !r.opts.live_ms && isatty(STDERR_FILENO);
	rc = 0;
	if (gp_run_child_release(&c)) {
		gp_run_child_abort(&c);
		if (c.exec_errno)
			error("cannot run '%s': %s", r.argv[0], strerror(c.exec_errno));
		rc = c.exec_errno == ENOENT ? 127 : 126;
	} else if (gp_run_child_wait(&c,
	                             r.opts.live_ms ? live_tick
	                             : tty          ? status_tick
	                                            : NULL,
	                             &st,
	                             r.opts.live_ms ? (int)r.opts.live_ms
	                             : tty          ? 1000
	                                            : 0) &&
	           !c.reaped) {
		/* cannot wait (should not happen): stop CMD rather than leave it behind */
		kill(c.pid, SIGKILL);
		gp_run_child_abort(&c);
	}
	status_erase(&st);
	record_end(&r, &c);
	note_left(&r);

	/* CMD has ended: complete the outputs */
	if (m) {
		if (gp_run_metrics_stop(m))
			r.metrics_ok = false;
		r.samples = gp_run_metrics_count(m);
	}
	/*
	 * The report step: the tracer's capture files are complete (every
	 * process of CMD has exited); DIR/report.json and the summary come
	 * before run.json gets its final state (run-report.c). gpuprof's own
	 * signal dispositions come back first: Ctrl-C stops a long analysis.
	 */
	gp_run_signals_restore(&c);
	/* how CMD and its processes ended, for the report step too (a capture cut short is
	 * dated by its process's end: analyze/metrics.c) */
	gp_run_json_write(&r);
	gp_run_report(&r);
	if (gp_run_json_write(&r) == 0 && !r.opts.quiet) {
		char what[96];

		dir_contents(&r, what, sizeof(what));
		fprintf(stderr, "gpuprof run: %s in '%s'\n", what, r.dir);
	}
	if (r.state == GP_RUN_EXITED)
		rc = r.exit_code;
	else if (r.state == GP_RUN_SIGNALED)
		rc = 128 + r.exit_signal;
	else if (!rc)
		rc = GP_EXIT_FAILURE;
out_metrics:
	gp_run_metrics_free(m);
	free(mpath);
out_signals:
	gp_run_signals_restore(&c);
out:
	gp_run_guardian_done(guard);
	gp_run_child_release_lists(&c);
	if (r.state == GP_RUN_SIGNALED) {
		int sig = r.exit_signal;

		run_release(&r, envp, sh_argv);
		return die_of(sig);
	}
	run_release(&r, envp, sh_argv);
	return rc;
}
