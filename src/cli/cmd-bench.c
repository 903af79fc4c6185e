/* SPDX-License-Identifier: MIT */
/*
 * cmd-bench.c - `gpuprof bench`: iteration statistics.
 *
 *   gpuprof bench [options] -- CMD [ARGS]   times whole runs of CMD (as hyperfine)
 *   gpuprof bench [options] PATH...         the iterations of traces or captures
 *
 * A command is run without a shell (--shell runs it through /bin/sh -c),
 * with standard input from /dev/null and its output discarded unless
 * --show-output; each run is timed on CLOCK_MONOTONIC from fork to the end of
 * wait. The statistics and the output are the library's (bench.h), so the
 * Python helper and `compare` see the same numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/bench.h"
#include "gpuprof/gpuprof.h"

static const char usage_text[] =
    "usage: gpuprof bench [options] -- CMD [ARGS...]\n"
    "       gpuprof bench [options] PATH...\n"
    "\n"
    "Times whole runs of CMD, or the iterations of traces and `gpuprof run` directories\n"
    "(ProfilerStep#N, an NVTX or annotation range, or frame marks).\n"
    "\n"
    "    -w, --warmup N        runs (iterations) excluded first (command: 1, paths: 0)\n"
    "    -r, --runs N          measured runs of CMD (default: at least 10 and 3 s, at\n"
    "                          most 1000)\n"
    "    -b, --batch-size B    items per iteration, for the rate (default 1)\n"
    "        --rate-name NAME  what an item per second is called (FPS, samples/s, ...)\n"
    "        --name NAME       the series' name (default: the command line)\n"
    "        --iter-range NAME iterations are the instances of range NAME (paths;\n"
    "                          repeatable, also with --frame-mark: a series each)\n"
    "        --frame-mark NAME iterations run from one mark NAME to the next (paths)\n"
    "        --rank R          only rank R (paths)\n"
    "        --shell           run CMD through /bin/sh -c (one string)\n"
    "        --show-output     let CMD's standard output and error through\n"
    "    -i, --ignore-failure  go on when CMD exits with a non-zero status\n"
    "        --tag KEY=VALUE   a tag to record (repeatable): dtype=fp16, compiled=yes\n"
    "        --seed N          seed of the bootstrap intervals\n"
    "        --json            the gpuprof.bench/1 JSON document\n"
    "        --markdown        a Markdown table\n"
    "    -o, --output FILE     write to FILE (atomically) instead of standard output\n"
    "    -h, --help            this help; 'gpuprof help bench' for the docs\n";

enum {
	OPT_RATE = 256,
	OPT_NAME,
	OPT_ITER,
	OPT_FRAME,
	OPT_RANK,
	OPT_SHELL,
	OPT_SHOW,
	OPT_TAG,
	OPT_SEED,
	OPT_JSON,
	OPT_MD
};

#define AUTO_MIN_RUNS 10
#define AUTO_MAX_RUNS 1000
#define AUTO_TIME_NS  3e9

struct bench_cli {
	long long warmup, runs; /* -1: default */
	double batch;
	const char *rate, *name, *output;
	const char **ranges, **marks; /* --iter-range, --frame-mark (repeatable) */
	size_t nranges, nmarks;
	long long rank;
	bool shell, show, ignore, json, md;
	const char **tags;
	size_t ntags;
	unsigned long long seed;
};

static void free_cli(struct bench_cli *o)
{
	free(o->tags);
	free(o->ranges);
	free(o->marks);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* one run of @p argv: its wall time in ns and exit status (128 + signal when killed) */
static int run_once(const char *const *argv, bool show, double *ns, int *status)
{
	int64_t t0, t1;
	pid_t pid;
	int ws;

	fflush(NULL);
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return error("bench: cannot fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd >= 0) {
			dup2(fd, 0);
			if (!show) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		/* the command gets the signal dispositions gpuprof was started with */
		if (gp_cli_sigpipe_ignored)
			signal(SIGPIPE, SIG_IGN);
		else
			signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		/* with the output discarded, the parent's message on status 127 says it */
		dprintf(2, "gpuprof: bench: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR)
			return error("bench: waitpid: %s", strerror(errno));
	}
	t1 = now_ns();
	*ns = (double)(t1 - t0 > 0 ? t1 - t0 : 1);
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
	return 0;
}

static int check_status(const struct bench_cli *o, const char *what, int status, long long k)
{
	if (status == 0 || o->ignore)
		return 0;
	if (status == 127)
		return error("bench: '%s' could not be run (exit status 127): is it on the PATH?",
		             what);
	return error("bench: '%s' exited with status %d on run %lld: use -i to measure "
	             "failing runs",
	             what, status, k + 1);
}

static char *join_words(const char *const *w, int n)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(w[i]) + 1;
	s = xmalloc(len);
	s[0] = 0;
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, w[i]);
	}
	return s;
}

static int bench_command(const struct bench_cli *o, struct gp_bench *b, int argc, const char **argv)
{
	const char *sh[4] = { "/bin/sh", "-c", NULL, NULL };
	const char **cmd = argv;
	char *line = join_words(argv, argc);
	double *times = NULL, *warm = NULL;
	int *codes = NULL, rc = -1, si;
	long long warmup = o->warmup >= 0 ? o->warmup : 1, runs = o->runs, k;

	if (o->shell) {
		sh[2] = line;
		cmd = sh;
	}
	for (int i = 0; i < argc; i++)
		if (gp_bench_source_arg(b, argv[i]))
			goto out;
	warm = xcalloc((size_t)warmup + 1, sizeof(*warm));
	for (k = 0; k < warmup; k++) {
		int st;

		if (run_once(cmd, o->show, &warm[k], &st) || check_status(o, line, st, k))
			goto out;
	}
	if (runs < 0) {
		/* auto: one timed run says how many fit in AUTO_TIME_NS */
		double t;
		int st;

		if (run_once(cmd, o->show, &t, &st) || check_status(o, line, st, warmup))
			goto out;
		runs = (long long)ceil(AUTO_TIME_NS / t);
		runs = runs < AUTO_MIN_RUNS   ? AUTO_MIN_RUNS
		       : runs > AUTO_MAX_RUNS ? AUTO_MAX_RUNS
		                              : runs;
		times = xcalloc((size_t)runs, sizeof(*times));
		codes = xcalloc((size_t)runs, sizeof(*codes));
		times[0] = t;
		codes[0] = st;
		k = 1;
	} else {
		times = xcalloc((size_t)runs, sizeof(*times));
		codes = xcalloc((size_t)runs, sizeof(*codes));
		k = 0;
	}
	for (; k < runs; k++)
		if (run_once(cmd, o->show, &times[k], &codes[k]) ||
		    check_status(o, line, codes[k], warmup + k))
			goto out;
	si = gp_bench_add(b, o->name ? o->name : line, o->rate ? o->rate : "runs/s",
	                  o->batch > 0 ? o->batch : 1, (uint32_t)warmup, times, (size_t)runs, NULL,
	                  NULL, codes);
	if (si < 0 || (warmup && gp_bench_warmup_times(b, si, warm, (size_t)warmup) < 0)) {
		rc = error("bench: %s", gp_last_error());
		goto out;
	}
	rc = 0;
out:
	free(line);
	free(times);
	free(warm);
	free(codes);
	return rc;
}

static void push_name(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		die("out of memory");
	nv[(*n)++] = s;
	*v = nv;
}

static void parse_tag(struct bench_cli *o, const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s)
		usage_die("bench: option '--tag' expects KEY=VALUE, not '%s'", s);
	o->tags = realloc(o->tags, (o->ntags + 1) * sizeof(*o->tags));
	if (!o->tags)
		die("out of memory");
	o->tags[o->ntags++] = s;
}

static double parse_batch(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d <= 0 || d > 1e12)
		usage_die("bench: option '--batch-size' expects a positive number, not '%s'", s);
	return d;
}

int cmd_bench(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "warmup", required_argument, NULL, 'w' },
		{ "runs", required_argument, NULL, 'r' },
		{ "batch-size", required_argument, NULL, 'b' },
		{ "rate-name", required_argument, NULL, OPT_RATE },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "iter-range", required_argument, NULL, OPT_ITER },
		{ "frame-mark", required_argument, NULL, OPT_FRAME },
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "show-output", no_argument, NULL, OPT_SHOW },
		{ "ignore-failure", no_argument, NULL, 'i' },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "markdown", no_argument, NULL, OPT_MD },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_cli o;
	struct gp_bench *b = NULL;
	struct gp_value *res = NULL;
	char *text = NULL;
	size_t len = 0;
	bool has_dashdash = false;
	int c, rc = GP_EXIT_FAILURE;

	memset(&o, 0, sizeof(o));
	o.warmup = o.runs = o.rank = -1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			has_dashdash = true;
			break;
		}
	optind = 0;
	opterr = 0;
	/* '+': options end at the command's first word */
	while ((c = getopt_long(argc, (char *const *)argv, "+:w:r:b:io:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			o.warmup = parse_count("--warmup", optarg, 1000000);
			break;
		case 'r':
			o.runs = parse_count("--runs", optarg, 10000000);
			if (o.runs < 1)
				usage_die("bench: option '--runs' expects at least 1");
			break;
		case 'b':
			o.batch = parse_batch(optarg);
			break;
		case OPT_RATE:
			o.rate = optarg;
			break;
		case OPT_NAME:
			o.name = optarg;
			break;
		case OPT_ITER:
			push_name(&o.ranges, &o.nranges, optarg);
			break;
		case OPT_FRAME:
			push_name(&o.marks, &o.nmarks, optarg);
			break;
		case OPT_RANK:
			o.rank = parse_count("--rank", optarg, INT32_MAX);
			break;
		case OPT_SHELL:
			o.shell = true;
			break;
		case OPT_SHOW:
			o.show = true;
			break;
		case 'i':
			o.ignore = true;
			break;
		case OPT_TAG:
			parse_tag(&o, optarg);
			break;
		case OPT_SEED:
			o.seed = (unsigned long long)parse_count("--seed", optarg, INT64_MAX);
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_MD:
			o.md = true;
			break;
		case 'o':
			o.output = optarg;
			break;
		default:
			free_cli(&o);
			return opt_tail("bench", c, argv, usage_text);
		}
	}
	if (o.json && o.md)
		usage_die("bench: --json and --markdown exclude each other");
	if (optind >= argc) {
		fprintf(stderr, "gpuprof bench: no command (after --) and no trace given\n%s",
		        usage_text);
		free_cli(&o);
		return GP_EXIT_USAGE;
	}
	if (has_dashdash && (o.nranges || o.nmarks || o.rank >= 0))
		usage_die("bench: --iter-range, --frame-mark and --rank apply to traces, not to a "
		          "command");
	if (!has_dashdash && (o.runs >= 0 || o.shell || o.show || o.ignore))
		usage_die("bench: --runs, --shell, --show-output and -i apply to a command: put it "
		          "after '--'");

	b = gp_bench_new(has_dashdash ? "command" : "trace", o.seed);
	if (!b)
		die("out of memory");
	for (size_t i = 0; i < o.ntags; i++) {
		char *k = xstrdup(o.tags[i]), *eq = strchr(k, '=');

		*eq = 0;
		if (gp_bench_tag(b, k, eq + 1)) {
			free(k);
			error("bench: %s", gp_last_error());
			goto out;
		}
		free(k);
	}
	if (has_dashdash) {
		if (bench_command(&o, b, argc - optind, argv + optind))
			goto out;
	} else {
		struct gp_bench_iter_opts io = { .size = sizeof(io) };
		int added;

		io.ranges = o.ranges;
		io.nranges = o.nranges;
		io.marks = o.marks;
		io.nmarks = o.nmarks;
		io.warmup = o.warmup >= 0 ? (uint32_t)o.warmup : 0;
		io.batch_size = o.batch;
		io.rate_name = o.rate;
		io.only_rank = o.rank;
		library_warnings(true);
		added = gp_bench_add_paths(b, argv + optind, (size_t)(argc - optind), &io);
		library_warnings(false);
		if (added) {
			error("%s", gp_last_error());
			goto out;
		}
	}
	if (gp_bench_result(b, &res)) {
		error("bench: %s", gp_last_error());
		goto out;
	}
	if (o.json) {
		if (gp_value_to_json(res, GP_JSON_PRETTY, &text, &len)) {
			error("bench: %s", gp_last_error());
			goto out;
		}
	} else if (gp_bench_format(res, o.md ? GP_BENCH_MARKDOWN : GP_BENCH_TEXT, &text, &len)) {
		error("bench: %s", gp_last_error());
		goto out;
	}
	/* pretty JSON ends with its newline already */
	if (write_output(o.output, text, len) == 0)
		rc = GP_EXIT_OK;
out:
	gp_free(text);
	gp_value_free(res);
	gp_bench_free(b);
	free_cli(&o);
	return rc;
}
