/* SPDX-License-Identifier: MIT */
/*
 * cmd-bench.c - `gpuprof bench`: iteration statistics.
 *
 *   gpuprof bench [options] -- CMD [ARGS]   times whole runs of CMD
 *   gpuprof bench [options] 'CMD' ...       commands as hyperfine takes them (with
 *                                           --shell, -S, -N, --runs, --prepare, -P, -L ...)
 *   gpuprof bench [options] PATH...         the iterations of traces or captures
 *
 * After '--' a command runs without a shell (--shell runs its words as one
 * string through /bin/sh -c); commands given as strings, hyperfine's way,
 * run through /bin/sh -c (-S SHELL another shell, -N none: the string is
 * split into words). Standard input is /dev/null and the output is
 * discarded unless --show-output; each run is timed on CLOCK_MONOTONIC from
 * fork to the end of wait (run_once(), which also runs --setup, --prepare
 * and --cleanup, untimed). --parameter-scan and --parameter-list make one
 * command per value ({NAME} replaced: gp_bench_subst()). The statistics,
 * the targets, the comparison of the series and the output are the
 * library's (bench.h), so the Python helper and `compare` see the same
 * numbers. Exit 3 when a --target is missed.
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
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/bench.h"
#include "gpuprof/gpuprof.h"

static const char usage_text[] =
    "usage: gpuprof bench [options] -- CMD [ARGS...]\n"
    "       gpuprof bench [options] --shell 'CMD' ['CMD'...]\n"
    "       gpuprof bench [options] PATH...\n"
    "\n"
    "Times whole runs of commands, or the iterations of traces and `gpuprof run`\n"
    "directories (ProfilerStep#N, an NVTX or annotation range, or frame marks).\n"
    "Commands given as strings (with --shell, -S, -N, --runs, --prepare, -P, -L, ...)\n"
    "are benchmarked one after the other and compared, as hyperfine does.\n"
    "\n"
    "    -w, --warmup N        runs (iterations) excluded first (command: 1, paths: 0)\n"
    "    -r, --runs N          measured runs of each command (default: as many as fill\n"
    "                          3 s, from --min-runs to --max-runs)\n"
    "    -m, --min-runs N      at least N runs (default 10)\n"
    "    -M, --max-runs N      at most N runs (default 1000)\n"
    "    -b, --batch-size B    items per iteration, for the rate (default 1); {NAME}: a\n"
    "                          parameter's value (a batch-size sweep)\n"
    "        --rate-name NAME  what an item per second is called (FPS, samples/s, ...)\n"
    "    -n, --name NAME       a command's name, {NAME} replaced (repeatable: one per\n"
    "                          command; default: the command line)\n"
    "        --command-name NAME  the same as --name (hyperfine's)\n"
    "        --iter-range NAME iterations are the instances of range NAME (paths;\n"
    "                          repeatable, also with --frame-mark: a series each)\n"
    "        --frame-mark NAME iterations run from one mark NAME to the next (paths)\n"
    "        --rank R          only rank R (paths)\n"
    "    -S, --shell[=SHELL]   run commands through SHELL -c (default /bin/sh; none:\n"
    "                          split into words and run directly)\n"
    "    -N                    no shell: --shell=none\n"
    "    -p, --prepare CMD     run CMD before each run, untimed (once, or once per\n"
    "                          command)\n"
    "    -c, --cleanup CMD     run CMD after the runs of each command\n"
    "    -s, --setup CMD       run CMD once before the runs of each command\n"
    "    -P, --parameter-scan NAME MIN MAX\n"
    "                          a command per value MIN, MIN+STEP, ... MAX of {NAME}\n"
    "    -D, --parameter-step-size STEP\n"
    "                          the step of --parameter-scan (default 1)\n"
    "    -L, --parameter-list NAME A,B,...\n"
    "                          a command per value of {NAME} (repeatable: every\n"
    "                          combination)\n"
    "        --target SPEC     a target to meet, e.g. 'p50<16.67ms', 'p99<25ms',\n"
    "                          'fps>=60' (repeatable); exit 3 when one is missed\n"
    "        --show-output     let the commands' standard output and error through\n"
    "    -i, --ignore-failure  go on when a command exits with a non-zero status\n"
    "        --tag KEY=VALUE   a tag to record (repeatable): dtype=fp16, compiled=yes\n"
    "        --seed N          seed of the bootstrap intervals\n"
    "        --json            the gpuprof.bench/1 JSON document\n"
    "        --markdown        a Markdown table\n"
    "    -o, --output FILE     write to FILE (atomically) instead of standard output\n"
    "        --export-json FILE      also write the JSON document to FILE\n"
    "        --export-markdown FILE  also write the Markdown table to FILE\n"
    "    -h, --help            this help; 'gpuprof help bench' for the docs\n";

enum {
	OPT_RATE = 256,
	OPT_ITER,
	OPT_FRAME,
	OPT_RANK,
	OPT_SHOW,
	OPT_TAG,
	OPT_SEED,
	OPT_JSON,
	OPT_MD,
	OPT_TARGET,
	OPT_EXPORT_JSON,
	OPT_EXPORT_MD
};

#define GP_EXIT_MISSED 3 /* a --target was missed (as compare's regression) */

#define AUTO_MIN_RUNS 10
#define AUTO_MAX_RUNS 1000
#define AUTO_TIME_NS  3e9
#define MAX_COMMANDS  10000

/* how a command is run: its words, /bin/sh -c, or another shell's -c */
enum shell_mode { SH_UNSET, SH_NONE, SH_DEFAULT, SH_CUSTOM };

/* a list of borrowed strings (argv's) */
struct strv {
	const char **v;
	size_t n;
};

/* --parameter-scan or --parameter-list: a name and its values (array of strings) */
struct param {
	const char *name;
	struct gp_value *values;
};

struct bench_cli {
	long long warmup, runs, min_runs, max_runs; /* -1: default */
	const char *batch;                          /* -b as given, may hold {NAME} */
	const char *rate, *output, *export_json, *export_md, *shell_cmd, *step;
	struct strv names, ranges, marks, tags, prepare, cleanup, setup, targets;
	long long rank;
	enum shell_mode shell;
	bool show, ignore, json, md, cmd_opts, scan;
	bool shell_bare; /* --shell without =SHELL */
	unsigned long long seed;
	struct param *params;
	size_t nparams;
};

/* one command to benchmark: a template with one combination of the parameters */
struct job {
	char **argv;             /* what is executed (NULL-ended, owned) */
	char *line;              /* the command line after substitution */
	char *name;              /* the series' name */
	char *tmpl;              /* the template line; NULL without parameters */
	struct gp_value *params; /* object NAME -> value; NULL without parameters */
	double batch;
	bool batch_param; /* the batch size is a parameter's: the rate counts items */
	size_t ti;        /* the template's index */
};

static void push(struct strv *l, const char *s)
{
	const char **nv = realloc(l->v, (l->n + 1) * sizeof(*l->v));

	if (!nv)
		die("out of memory");
	nv[l->n++] = s;
	l->v = nv;
}

static void free_cli(struct bench_cli *o)
{
	free(o->names.v);
	free(o->ranges.v);
	free(o->marks.v);
	free(o->tags.v);
	free(o->prepare.v);
	free(o->cleanup.v);
	free(o->setup.v);
	free(o->targets.v);
	for (size_t i = 0; i < o->nparams; i++)
		gp_value_free(o->params[i].values);
	free(o->params);
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
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
	if (status == 126)
		return error("bench: '%s' could not be executed (exit status 126): not an "
		             "executable file?",
		             what);
	return error("bench: '%s' exited with status %d on run %lld: use -i to measure "
	             "failing runs",
	             what, status, k + 1);
}

static char *join_words(const char *const *w, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(w[i]) + 1;
	s = xmalloc(len);
	s[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, w[i]);
	}
	return s;
}

/* a NULL-ended vector of owned strings being built */
struct words {
	char **v;
	size_t n;
};

static void words_push(struct words *w, char *s)
{
	char **nv = realloc(w->v, (w->n + 2) * sizeof(*w->v));

	if (!nv)
		die("out of memory");
	nv[w->n++] = s;
	nv[w->n] = NULL;
	w->v = nv;
}

/*
 * @p s split into words as a POSIX shell splits a simple command (hyperfine
 * -N, shell_words): blanks separate, '...' keeps everything, "..." keeps all
 * but \" \\ \$ \`, a backslash outside quotes keeps the next character.
 * NULL (and *@p err set) on an unterminated quote or no word at all.
 */
static char **split_words(const char *s, const char **err)
{
	struct words w = { NULL, 0 };
	char *cur = xmalloc(strlen(s) + 1);
	size_t n = 0;
	bool in_word = false;
	const char *p;

	*err = NULL;
	for (p = s; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			if (in_word) {
				cur[n] = 0;
				words_push(&w, xstrdup(cur));
				n = 0;
				in_word = false;
			}
			continue;
		}
		in_word = true;
		if (*p == '\\') {
			if (p[1])
				cur[n++] = *++p;
		} else if (*p == '\'') {
			while (*++p && *p != '\'')
				cur[n++] = *p;
			if (!*p) {
				*err = "a quote (') is not closed";
				break;
			}
		} else if (*p == '"') {
			while (*++p && *p != '"') {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				cur[n++] = *p;
			}
			if (!*p) {
				*err = "a quote (\") is not closed";
				break;
			}
		} else {
			cur[n++] = *p;
		}
	}
	if (!*err && in_word) {
		cur[n] = 0;
		words_push(&w, xstrdup(cur));
	}
	free(cur);
	if (!*err && !w.n)
		*err = "no command";
	if (*err) {
		free_argv(w.v);
		return NULL;
	}
	return w.v;
}

/*
 * What runs string @p line: the shell's words, "-c" and the line, or with
 * no shell (@p mode SH_NONE) the line's words. Dies on a line that does
 * not split (the caller has checked the templates).
 */
static char **line_argv(const struct bench_cli *o, enum shell_mode mode, const char *line)
{
	struct words w = { NULL, 0 };
	const char *err;

	if (mode == SH_NONE) {
		char **v = split_words(line, &err);

		if (!v)
			usage_die("bench: '%s': %s", line, err);
		return v;
	}
	if (mode == SH_CUSTOM) {
		char **sh = split_words(o->shell_cmd, &err);

		if (!sh)
			usage_die("bench: shell '%s': %s", o->shell_cmd, err);
		for (size_t i = 0; sh[i]; i++)
			words_push(&w, sh[i]);
		free(sh);
	} else {
		words_push(&w, xstrdup("/bin/sh"));
	}
	words_push(&w, xstrdup("-c"));
	words_push(&w, xstrdup(line));
	return w.v;
}

/* @p tmpl with the parameters of @p params put in (malloc'd) */
static char *subst(const char *tmpl, const struct gp_value *params)
{
	char *t = NULL, *s;

	if (!params)
		return xstrdup(tmpl);
	if (gp_bench_subst(tmpl, params, &t))
		die("%s", gp_last_error());
	s = xstrdup(t);
	gp_free(t);
	return s;
}

/* the shell of --setup, --prepare and --cleanup: the commands', /bin/sh when none was chosen */
static enum shell_mode aux_shell(const struct bench_cli *o)
{
	return o->shell == SH_UNSET ? SH_DEFAULT : o->shell;
}

/*
 * Runs --setup, --prepare or --cleanup (@p what) command @p tmpl for job
 * @p j, untimed; its failure stops the benchmark.
 */
static int run_aux(const struct bench_cli *o, const char *what, const char *tmpl,
                   const struct job *j)
{
	char *line = subst(tmpl, j->params), **argv = line_argv(o, aux_shell(o), line);
	double ns;
	int st, rc = 0;

	if (run_once((const char *const *)argv, o->show, &ns, &st))
		rc = -1;
	else if (st)
		rc = error("bench: the %s command '%s' exited with status %d (for '%s')", what,
		           line, st, j->name);
	free(line);
	free_argv(argv);
	return rc;
}

/*
 * The --setup, --prepare or --cleanup command of job @p k (of @p njobs): one
 * for all, one per command given, or one per job (checked by check_aux()).
 */
static const char *aux_for(const struct strv *l, const struct job *j, size_t k, size_t njobs)
{
	if (!l->n)
		return NULL;
	if (l->n == njobs)
		return l->v[k];
	if (l->n == 1)
		return l->v[0];
	return l->v[j->ti];
}

/* @p l's count fits, and with no shell each line splits: checked before anything runs */
static void check_aux(const struct bench_cli *o, const struct strv *l, const char *opt,
                      size_t ntmpl, size_t njobs)
{
	if (l->n > 1 && l->n != ntmpl && l->n != njobs)
		usage_die("bench: %zu %s commands for %zu commands: give one for all, or one per "
		          "command",
		          l->n, opt, njobs);
	for (size_t i = 0; aux_shell(o) == SH_NONE && i < l->n; i++)
		free_argv(line_argv(o, SH_NONE, l->v[i]));
}

/* does template @p t (its words) name parameter @p name as {NAME}? */
static bool uses_param(const char *const *t, size_t nt, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < nt; i++)
		for (const char *p = strchr(t[i], '{'); p; p = strchr(p + 1, '{'))
			if (strncmp(p + 1, name, len) == 0 && p[1 + len] == '}')
				return true;
	return false;
}

/*
 * A series' name without --name: the command line, then the parameters it
 * does not show, "true 1 (a = x, b = y)" (hyperfine's).
 */
static char *default_name(const struct bench_cli *o, const char *line, const char *const *words,
                          size_t nw, const struct gp_value *params)
{
	size_t len = strlen(line) + 3, m = 0;
	char *s;

	for (size_t i = 0; i < o->nparams; i++)
		len += strlen(o->params[i].name) + 5 +
		       strlen(gp_value_get_str(gp_obj_get(params, o->params[i].name)));
	s = xmalloc(len);
	strcpy(s, line);
	for (size_t i = 0; i < o->nparams; i++) {
		if (uses_param(words, nw, o->params[i].name))
			continue;
		strcat(s, m++ ? ", " : " (");
		strcat(s, o->params[i].name);
		strcat(s, " = ");
		strcat(s, gp_value_get_str(gp_obj_get(params, o->params[i].name)));
	}
	if (m)
		strcat(s, ")");
	return s;
}

/* a parameter that is a batch size by its name: -b {NAME} without -b */
static bool batch_name(const char *name)
{
	return strcasecmp(name, "bs") == 0 || strcasecmp(name, "batch") == 0 ||
	       strcasecmp(name, "batch_size") == 0 || strcasecmp(name, "batch-size") == 0;
}

static double parse_batch(const char *s, const char *what)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d <= 0 || d > 1e12)
		usage_die("bench: option '--batch-size' expects a positive number, not '%s'%s", s,
		          what);
	return d;
}

/*
 * The jobs: each template (the words after '--', or each command string)
 * with each combination of the parameters, the first parameter changing
 * fastest, the templates fastest of all (hyperfine's order).
 */
static struct job *make_jobs(const struct bench_cli *o, const char *const *t, size_t nt, bool dd,
                             size_t *njobs)
{
	size_t combos = 1, ntmpl = dd ? 1 : nt, n, k = 0;
	struct job *jobs;

	for (size_t i = 0; i < o->nparams; i++) {
		combos *= gp_value_len(o->params[i].values);
		if (combos > MAX_COMMANDS)
			break;
	}
	n = combos * ntmpl;
	if (combos > MAX_COMMANDS || n > MAX_COMMANDS)
		usage_die("bench: the parameters make more than %d commands", MAX_COMMANDS);
	if (o->names.n > 1 && o->names.n != n && (o->nparams || o->names.n > ntmpl))
		usage_die("bench: %zu names for %zu commands: give one name, or one per command",
		          o->names.n, n);
	jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	for (size_t c = 0; c < combos; c++) {
		struct gp_value *params = NULL;
		size_t rem = c;

		if (o->nparams && !(params = gp_value_object()))
			die("out of memory");
		for (size_t i = 0; i < o->nparams; i++) {
			const struct gp_value *vals = o->params[i].values;
			size_t len = gp_value_len(vals);

			if (gp_obj_set_str(params, o->params[i].name,
			                   gp_value_get_str(gp_arr_get(vals, rem % len))))
				die("out of memory");
			rem /= len;
		}
		for (size_t ti = 0; ti < ntmpl; ti++, k++) {
			struct job *j = &jobs[k];
			const char *const *words = dd ? t : t + ti;
			size_t nw = dd ? nt : 1;
			char *tl = join_words(words, nw);

			j->ti = ti;
			j->params = params ? gp_value_clone(params) : NULL;
			if (params && !j->params)
				die("out of memory");
			j->line = subst(tl, params);
			if (dd && (o->shell == SH_UNSET || o->shell == SH_NONE)) {
				struct words w = { NULL, 0 };

				for (size_t i = 0; i < nw; i++)
					words_push(&w, subst(words[i], params));
				j->argv = w.v;
			} else {
				j->argv = line_argv(o, o->shell == SH_UNSET ? SH_DEFAULT : o->shell,
				                    j->line);
			}
			/* with parameters one name for all or one each; else one per template */
			if (o->nparams && (o->names.n == 1 || o->names.n == n))
				j->name = subst(o->names.v[o->names.n == 1 ? 0 : k], params);
			else if (!o->nparams && ti < o->names.n)
				j->name = xstrdup(o->names.v[ti]);
			if (!j->name)
				j->name = default_name(o, j->line, words, nw, params);
			if (params)
				j->tmpl = xstrdup(tl);
			j->batch = 1;
			if (o->batch) {
				char *bs = subst(o->batch, params), what[600];

				snprintf(what, sizeof(what), " (for '%s')", j->name);
				j->batch = parse_batch(bs, strcmp(bs, o->batch) ? what : "");
				j->batch_param = strcmp(bs, o->batch) != 0;
				free(bs);
			} else {
				for (size_t i = 0; i < o->nparams; i++) {
					const char *v =
					    gp_value_get_str(gp_obj_get(params, o->params[i].name));
					char *end;
					double d = strtod(v, &end);

					if (batch_name(o->params[i].name) && end != v && !*end &&
					    isfinite(d) && d > 0 && d <= 1e12) {
						j->batch = d;
						j->batch_param = true;
					}
				}
			}
			free(tl);
		}
		gp_value_free(params);
	}
	*njobs = n;
	return jobs;
}

static void free_jobs(struct job *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++) {
		free_argv(jobs[i].argv);
		free(jobs[i].line);
		free(jobs[i].name);
		free(jobs[i].tmpl);
		gp_value_free(jobs[i].params);
	}
	free(jobs);
}

/*
 * The series of job @p k of @p njobs: its setup, warm-up and measured runs
 * (each after its --prepare), then its cleanup.
 */
static int bench_job(const struct bench_cli *o, struct gp_bench *b, const struct job *j, size_t k,
                     size_t njobs)
{
	const char *const *cmd = (const char *const *)j->argv;
	const char *prep = aux_for(&o->prepare, j, k, njobs);
	const char *setup = aux_for(&o->setup, j, k, njobs);
	const char *cleanup = aux_for(&o->cleanup, j, k, njobs);
	double *times = NULL, *warm = NULL;
	int *codes = NULL, rc = -1, si;
	long long warmup = o->warmup >= 0 ? o->warmup : 1, runs = o->runs, n;
	bool set_up = false;

	if (setup && run_aux(o, "--setup", setup, j))
		goto out;
	set_up = true;
	warm = xcalloc((size_t)warmup + 1, sizeof(*warm));
	for (n = 0; n < warmup; n++) {
		int st;

		if ((prep && run_aux(o, "--prepare", prep, j)) ||
		    run_once(cmd, o->show, &warm[n], &st) || check_status(o, j->line, st, n))
			goto out;
	}
	if (runs < 0) {
		/* auto: one timed run says how many fit in AUTO_TIME_NS */
		long long lo = o->min_runs >= 0 ? o->min_runs : AUTO_MIN_RUNS;
		long long hi = o->max_runs >= 0 ? o->max_runs : AUTO_MAX_RUNS;
		double t;
		int st;

		if (hi < lo)
			hi = lo;
		if ((prep && run_aux(o, "--prepare", prep, j)) || run_once(cmd, o->show, &t, &st) ||
		    check_status(o, j->line, st, warmup))
			goto out;
		runs = (long long)ceil(AUTO_TIME_NS / t);
		runs = runs < lo ? lo : runs > hi ? hi : runs;
		if (runs < 1)
			runs = 1;
		times = xcalloc((size_t)runs, sizeof(*times));
		codes = xcalloc((size_t)runs, sizeof(*codes));
		times[0] = t;
		codes[0] = st;
		n = 1;
	} else {
		times = xcalloc((size_t)runs, sizeof(*times));
		codes = xcalloc((size_t)runs, sizeof(*codes));
		n = 0;
	}
	for (; n < runs; n++)
		if ((prep && run_aux(o, "--prepare", prep, j)) ||
		    run_once(cmd, o->show, &times[n], &codes[n]) ||
		    check_status(o, j->line, codes[n], warmup + n))
			goto out;
	/* a run is an iteration; with a batch (a sweep's too), the rate counts items ("items/s") */
	si = gp_bench_add(b, j->name,
	                  o->rate                            ? o->rate
	                  : j->batch == 1 && !j->batch_param ? "runs/s"
	                                                     : "items/s",
	                  j->batch, (uint32_t)warmup, times, (size_t)runs, NULL, NULL, codes);
	if (si < 0 || (warmup && gp_bench_warmup_times(b, si, warm, (size_t)warmup) < 0) ||
	    (j->tmpl && gp_bench_template(b, si, j->tmpl) < 0)) {
		rc = error("bench: %s", gp_last_error());
		goto out;
	}
	for (size_t i = 0; i < o->nparams; i++)
		if (gp_bench_param(b, si, o->params[i].name,
		                   gp_value_get_str(gp_obj_get(j->params, o->params[i].name)))) {
			rc = error("bench: %s", gp_last_error());
			goto out;
		}
	rc = 0;
out:
	/* the cleanup runs whenever the setup did, so a failed run leaves no more behind */
	if (set_up && cleanup && run_aux(o, "--cleanup", cleanup, j))
		rc = -1;
	free(times);
	free(warm);
	free(codes);
	return rc;
}

static int bench_commands(const struct bench_cli *o, struct gp_bench *b, const char *const *t,
                          size_t nt, bool dd)
{
	struct job *jobs;
	size_t njobs = 0;
	int rc = 0;

	for (size_t i = 0; i < nt; i++) {
		if (!dd && strcmp(t[i], "--") == 0)
			usage_die(
			    "bench: '--' after a command: give the commands as strings, or one "
			    "command after '--'");
		if (gp_bench_source_arg(b, t[i]))
			return error("bench: %s", gp_last_error());
	}
	jobs = make_jobs(o, t, nt, dd, &njobs);
	check_aux(o, &o->prepare, "--prepare", dd ? 1 : nt, njobs);
	check_aux(o, &o->cleanup, "--cleanup", dd ? 1 : nt, njobs);
	check_aux(o, &o->setup, "--setup", dd ? 1 : nt, njobs);
	for (size_t k = 0; k < njobs && !rc; k++)
		rc = bench_job(o, b, &jobs[k], k, njobs);
	free_jobs(jobs, njobs);
	return rc;
}

static void parse_tag(struct bench_cli *o, const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s)
		usage_die("bench: option '--tag' expects KEY=VALUE, not '%s'", s);
	push(&o->tags, s);
}

/* a parameter's NAME: letters, digits, '_' and '-', once */
static void check_param_name(const struct bench_cli *o, const char *opt, const char *name)
{
	if (!*name || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                           "0123456789_-") != strlen(name))
		usage_die("bench: option '%s' expects a NAME of letters, digits, '_' and '-', not "
		          "'%s'",
		          opt, name);
	for (size_t i = 0; i < o->nparams; i++)
		if (strcmp(o->params[i].name, name) == 0)
			usage_die("bench: parameter '%s' is given twice", name);
}

static void add_param(struct bench_cli *o, const char *name, struct gp_value *values)
{
	struct param *np = realloc(o->params, (o->nparams + 1) * sizeof(*np));

	if (!np)
		die("out of memory");
	np[o->nparams].name = name;
	np[o->nparams++].values = values;
	o->params = np;
}

/* the operands of an option that takes more than one: argv[optind], ... */
static const char *next_operand(int argc, const char **argv, const char *opt, const char *what)
{
	if (optind >= argc)
		usage_die("bench: option '%s' expects %s", opt, what);
	return argv[optind++];
}

/* a shell's name or path ("bash", "/bin/zsh") */
static bool is_shell_name(const char *s)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "fish", "pwsh" };
	const char *base = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;

	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(base, shells[i]) == 0)
			return true;
	return false;
}

/* true when none of @p paths exists and one has a blank: a command typed as a path */
static bool looks_like_command(const char *const *paths, size_t n)
{
	bool blank = false;
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(paths[i], "-") == 0 || stat(paths[i], &st) == 0)
			return false;
		blank |= strpbrk(paths[i], " \t") != NULL;
	}
	return blank;
}

static int write_exports(const struct bench_cli *o, const struct gp_value *res)
{
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	if (o->export_json) {
		if (gp_value_to_json(res, GP_JSON_PRETTY, &text, &len))
			return error("bench: %s", gp_last_error());
		rc = write_file_atomic(o->export_json, text, len);
		gp_free(text);
		text = NULL;
	}
	if (!rc && o->export_md) {
		if (gp_bench_format(res, GP_BENCH_MARKDOWN, &text, &len))
			return error("bench: %s", gp_last_error());
		rc = write_file_atomic(o->export_md, text, len);
		gp_free(text);
	}
	return rc;
}

int cmd_bench(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "warmup", required_argument, NULL, 'w' },
		{ "runs", required_argument, NULL, 'r' },
		{ "min-runs", required_argument, NULL, 'm' },
		{ "max-runs", required_argument, NULL, 'M' },
		{ "batch-size", required_argument, NULL, 'b' },
		{ "rate-name", required_argument, NULL, OPT_RATE },
		{ "name", required_argument, NULL, 'n' },
		{ "command-name", required_argument, NULL, 'n' },
		{ "iter-range", required_argument, NULL, OPT_ITER },
		{ "frame-mark", required_argument, NULL, OPT_FRAME },
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "shell", optional_argument, NULL, 'S' },
		{ "prepare", required_argument, NULL, 'p' },
		{ "cleanup", required_argument, NULL, 'c' },
		{ "setup", required_argument, NULL, 's' },
		{ "parameter-scan", required_argument, NULL, 'P' },
		{ "parameter-step-size", required_argument, NULL, 'D' },
		{ "parameter-list", required_argument, NULL, 'L' },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "show-output", no_argument, NULL, OPT_SHOW },
		{ "ignore-failure", no_argument, NULL, 'i' },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "markdown", no_argument, NULL, OPT_MD },
		{ "output", required_argument, NULL, 'o' },
		{ "export-json", required_argument, NULL, OPT_EXPORT_JSON },
		{ "export-markdown", required_argument, NULL, OPT_EXPORT_MD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *scan_name = NULL, *scan_min = NULL, *scan_max = NULL;
	struct bench_cli o;
	struct gp_bench *b = NULL;
	struct gp_value *res = NULL, *vals;
	char *text = NULL;
	size_t len = 0;
	bool dd;
	int c, rc = GP_EXIT_FAILURE;

	memset(&o, 0, sizeof(o));
	o.warmup = o.runs = o.min_runs = o.max_runs = o.rank = -1;
	optind = 0;
	opterr = 0;
	/*
	 * Options may follow the commands and paths, as hyperfine's do ('a' 'b' --runs 5):
	 * getopt moves the operands to the end. '--' ends the options and starts the one
	 * command, so the command's own options after it are left alone.
	 */
	while ((c = getopt_long(argc, (char *const *)argv, ":w:r:m:M:b:n:S:Np:c:s:P:D:L:io:h",
	                        longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			o.warmup = parse_count("--warmup", optarg, 1000000);
			break;
		case 'r':
			o.runs = parse_count("--runs", optarg, 10000000);
			if (o.runs < 1)
				usage_die("bench: option '--runs' expects at least 1");
			o.cmd_opts = true;
			break;
		case 'm':
			o.min_runs = parse_count("--min-runs", optarg, 10000000);
			o.cmd_opts = true;
			break;
		case 'M':
			o.max_runs = parse_count("--max-runs", optarg, 10000000);
			if (o.max_runs < 1)
				usage_die("bench: option '--max-runs' expects at least 1");
			o.cmd_opts = true;
			break;
		case 'b':
			o.batch = optarg;
			if (!strchr(optarg, '{'))
				parse_batch(optarg, "");
			break;
		case OPT_RATE:
			o.rate = optarg;
			break;
		case 'n':
			push(&o.names, optarg);
			break;
		case OPT_ITER:
			push(&o.ranges, optarg);
			break;
		case OPT_FRAME:
			push(&o.marks, optarg);
			break;
		case OPT_RANK:
			o.rank = parse_count("--rank", optarg, INT32_MAX);
			break;
		case 'S':
			o.cmd_opts = true;
			o.shell_bare = !optarg;
			if (!optarg || strcmp(optarg, "default") == 0) {
				o.shell = SH_DEFAULT;
			} else if (strcmp(optarg, "none") == 0) {
				o.shell = SH_NONE;
			} else {
				const char *err;
				char **w = split_words(optarg, &err);

				if (!w)
					usage_die("bench: option '--shell': '%s': %s", optarg, err);
				free_argv(w);
				o.shell = SH_CUSTOM;
				o.shell_cmd = optarg;
			}
			break;
		case 'N':
			o.shell = SH_NONE;
			o.cmd_opts = true;
			break;
		case 'p':
			push(&o.prepare, optarg);
			o.cmd_opts = true;
			break;
		case 'c':
			push(&o.cleanup, optarg);
			o.cmd_opts = true;
			break;
		case 's':
			push(&o.setup, optarg);
			o.cmd_opts = true;
			break;
		case 'P':
			if (scan_name)
				usage_die("bench: option '--parameter-scan' is given twice: use "
				          "--parameter-list for more parameters");
			check_param_name(&o, "--parameter-scan", optarg);
			scan_name = optarg;
			scan_min = next_operand(argc, argv, "--parameter-scan", "NAME MIN MAX");
			scan_max = next_operand(argc, argv, "--parameter-scan", "NAME MIN MAX");
			o.cmd_opts = true;
			break;
		case 'D':
			o.step = optarg;
			break;
		case 'L': {
			const char *list;

			check_param_name(&o, "--parameter-list", optarg);
			list = next_operand(argc, argv, "--parameter-list", "NAME VALUES");
			if (gp_bench_list_values(list, &vals))
				usage_die("bench: option '--parameter-list': %s", gp_last_error());
			add_param(&o, optarg, vals);
			o.cmd_opts = true;
			break;
		}
		case OPT_TARGET:
			push(&o.targets, optarg);
			break;
		case OPT_SHOW:
			o.show = true;
			o.cmd_opts = true;
			break;
		case 'i':
			o.ignore = true;
			o.cmd_opts = true;
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
		case OPT_EXPORT_JSON:
			o.export_json = optarg;
			break;
		case OPT_EXPORT_MD:
			o.export_md = optarg;
			break;
		default:
			free_cli(&o);
			return opt_tail("bench", c, argv, usage_text);
		}
	}
	if (o.json && o.md)
		usage_die("bench: --json and --markdown exclude each other");
	if (o.step && !scan_name)
		usage_die("bench: --parameter-step-size needs --parameter-scan");
	if (scan_name) {
		if (gp_bench_scan_values(scan_min, scan_max, o.step, &vals))
			usage_die("bench: option '--parameter-scan': %s", gp_last_error());
		/* the scan first, as hyperfine has it: its values change fastest */
		add_param(&o, scan_name, vals);
		if (o.nparams > 1) {
			struct param p = o.params[o.nparams - 1];

			memmove(o.params + 1, o.params, (o.nparams - 1) * sizeof(*o.params));
			o.params[0] = p;
		}
	}
	if (o.min_runs >= 0 && o.max_runs >= 0 && o.min_runs > o.max_runs)
		usage_die("bench: --min-runs %lld is above --max-runs %lld", o.min_runs,
		          o.max_runs);
	/* '--' ends the options and starts the one command */
	dd = optind > 0 && optind <= argc && strcmp(argv[optind - 1], "--") == 0;
	if (optind >= argc) {
		fprintf(stderr, "gpuprof bench: no command (after --) and no trace given\n%s",
		        usage_text);
		free_cli(&o);
		return GP_EXIT_USAGE;
	}
	/* hyperfine's "--shell bash 'CMD'" would time bash: say how to name the shell */
	if (o.shell_bare && !dd && argc - optind > 1 && is_shell_name(argv[optind]))
		usage_die("bench: '--shell %s' takes '%s' as a command to time: name the shell "
		          "with -S %s or --shell=%s",
		          argv[optind], argv[optind], argv[optind], argv[optind]);
	if ((dd || o.cmd_opts) && (o.ranges.n || o.marks.n || o.rank >= 0))
		usage_die("bench: --iter-range, --frame-mark and --rank apply to traces, not to a "
		          "command");
	if (!dd && !o.cmd_opts && (o.batch && strchr(o.batch, '{')))
		usage_die("bench: --batch-size '%s' names a parameter: give --parameter-scan or "
		          "--parameter-list",
		          o.batch);

	b = gp_bench_new(dd || o.cmd_opts ? "command" : "trace", o.seed);
	if (!b)
		die("out of memory");
	for (size_t i = 0; i < o.tags.n; i++) {
		char *k = xstrdup(o.tags.v[i]), *eq = strchr(k, '=');

		*eq = 0;
		if (gp_bench_tag(b, k, eq + 1)) {
			free(k);
			error("bench: %s", gp_last_error());
			goto out;
		}
		free(k);
	}
	for (size_t i = 0; i < o.targets.n; i++)
		if (gp_bench_target(b, o.targets.v[i])) {
			error("bench: %s", gp_last_error());
			rc = GP_EXIT_USAGE;
			goto out;
		}
	if (dd || o.cmd_opts) {
		if (bench_commands(&o, b, argv + optind, (size_t)(argc - optind), dd))
			goto out;
	} else {
		struct gp_bench_iter_opts io = { .size = sizeof(io) };
		int added;

		io.ranges = o.ranges.v;
		io.nranges = o.ranges.n;
		io.marks = o.marks.v;
		io.nmarks = o.marks.n;
		io.warmup = o.warmup >= 0 ? (uint32_t)o.warmup : 0;
		io.batch_size = o.batch ? parse_batch(o.batch, "") : 0;
		io.rate_name = o.rate;
		io.only_rank = o.rank;
		library_warnings(true);
		added = gp_bench_add_paths(b, argv + optind, (size_t)(argc - optind), &io);
		library_warnings(false);
		if (added) {
			if (looks_like_command(argv + optind, (size_t)(argc - optind)))
				error("%s (to time a command, give it after '--', or as a string "
				      "with --shell)",
				      gp_last_error());
			else
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
	if (write_output(o.output, text, len) || write_exports(&o, res))
		goto out;
	rc = gp_value_get_bool(gp_obj_get(res, "targets_met"), true) ? GP_EXIT_OK : GP_EXIT_MISSED;
out:
	gp_free(text);
	gp_value_free(res);
	gp_bench_free(b);
	free_cli(&o);
	return rc;
}
