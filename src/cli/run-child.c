/* SPDX-License-Identifier: MIT */
/*
 * run-child.c - the process side of `gpuprof run`: the environment contract
 * with the injected tracer, finding CMD and the injector, and running CMD
 * as a child that sees exactly what it would have seen without gpuprof
 * (same stdin, stdout, stderr, process group, signal mask and dispositions).
 *
 * The child is forked early and waits on a pipe until the parent has its
 * sampler and run.json ready, then execs; a second close-on-exec pipe brings
 * back the errno of a failed exec. Meanwhile gpuprof ignores SIGINT and
 * SIGQUIT (the terminal sends them to CMD too, like time(1)) and takes
 * SIGCHLD, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 through a signalfd: they are
 * blocked in every thread (the sampler's inherit the mask), so no handler
 * runs and nothing unsafe can happen in one. The fork happens before any
 * thread exists, so the child may use malloc'd memory prepared beforehand.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof-config.h"
#include "run.h"

extern char **environ;

static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };

/* the variables of the contract: never inherited, only set by this run */
static const char *const contract_vars[] = {
	"GPUPROF_CAPTURE_DIR",         "GPUPROF_RUN_START_NS",
	"GPUPROF_CAPTURE_RANGE",       "GPUPROF_CAPTURE_DELAY_NS",
	"GPUPROF_CAPTURE_DURATION_NS", "GPUPROF_CAPTURE_SCHEDULE",
	"GPUPROF_CAPTURE_ITER_RANGE",  "GPUPROF_TAGS",
	"GPUPROF_CUDA_EVENTS",         "GPUPROF_ANNOTATE_LIBRARY",
	"GPUPROF_RUN_LIBRARY",         "GPUPROF_PYTORCH",
};

static const char *guess_tool(const char *v)
{
	if (strstr(v, "nsight-systems") || strstr(v, "ToolsInjection") || strstr(v, "nsys"))
		return "Nsight Systems (nsys)";
	if (strstr(v, "nsight-compute") || strstr(v, "InjectionTarget") || strstr(v, "ncu"))
		return "Nsight Compute (ncu)";
	if (strstr(v, "sanitizer"))
		return "compute-sanitizer";
	if (strstr(v, "gpuprof"))
		return "another 'gpuprof run'";
	return "another CUDA tool such as nsys or ncu";
}

void gp_run_check_env(void)
{
	static const char *const vars[] = { "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			usage_die("%s is already set to '%s', probably by %s: gpuprof run cannot "
			          "capture under another CUDA tool (run it outside that tool, or "
			          "unset %s)",
			          vars[i], v, guess_tool(v), vars[i]);
	}
}

/* 0: runnable; else errno (ENOENT, EACCES, EISDIR) */
static int check_exe(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == ENOTDIR ? ENOENT : errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (access(path, X_OK))
		return errno;
	return 0;
}

static char *join(const char *dir, size_t dlen, const char *name)
{
	size_t n = strlen(name);
	char *p;

	if (!dlen) {
		dir = ".";
		dlen = 1;
	}
	p = xmalloc(dlen + 1 + n + 1);
	memcpy(p, dir, dlen);
	p[dlen] = '/';
	memcpy(p + dlen + 1, name, n + 1);
	return p;
}

int gp_run_resolve(const char *cmd, char **path)
{
	const char *env = getenv("PATH"), *p;
	char defpath[256];
	int e, denied = 0;

	*path = NULL;
	if (strchr(cmd, '/')) {
		e = check_exe(cmd);
		if (e) {
			error("cannot run '%s': %s", cmd, strerror(e));
			return e == ENOENT ? 127 : 126;
		}
		*path = xstrdup(cmd);
		return 0;
	}
	if (*cmd && strlen(cmd) <= NAME_MAX) {
		if (!env) {
			if (!confstr(_CS_PATH, defpath, sizeof(defpath)))
				snprintf(defpath, sizeof(defpath), "/bin:/usr/bin");
			env = defpath;
		}
		for (p = env;;) {
			const char *end = strchrnul(p, ':');
			char *cand = join(p, (size_t)(end - p), cmd);

			e = check_exe(cand);
			if (!e) {
				*path = cand;
				return 0;
			}
			/* like execvp: a match we may not run is reported if nothing else is found
			 */
			if (e == EACCES && !denied)
				denied = EACCES;
			free(cand);
			if (!*end)
				break;
			p = end + 1;
		}
	}
	if (denied) {
		error("cannot run '%s': %s", cmd, strerror(denied));
		return 126;
	}
	error("cannot run '%s': command not found", cmd);
	return 127;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The first of NAME in the directory of the gpuprof binary (a build tree), in the install
 * directory relative to it (an installed tree, wherever its prefix is), and in the install
 * directory of this configuration, as a malloc'd absolute path (the directory resolved, the
 * name kept); NULL when none is a file (and *where says where it looked, malloc'd).
 */
static char *find_beside_exe(const char *exe_dir, const char *rel, const char *full,
                             const char *name, char **where)
{
	char beside[2 * PATH_MAX + 64], buf[4 * PATH_MAX], *p;
	const char *dirs[3] = { exe_dir, beside, full };
	size_t i;

	snprintf(beside, sizeof(beside), "%s/%s", exe_dir, rel);
	for (i = 0; i < 3; i++) {
		if (snprintf(buf, sizeof(buf), "%s/%s", dirs[i], name) >= (int)sizeof(buf) ||
		    !is_file(buf))
			continue;
		/* the directory made absolute, the name kept (libgpuprof.so.0, not the file
		 * that link points at) */
		p = realpath(dirs[i], NULL);
		if (!p)
			die("cannot resolve '%s': %s", dirs[i], strerror(errno));
		snprintf(buf, sizeof(buf), "%s/%s", p, name);
		free(p);
		return xstrdup(buf);
	}
	if (where) {
		snprintf(buf, sizeof(buf), "%s not found in '%s' nor in '%s' nor in '%s'", name,
		         exe_dir, beside, full);
		*where = xstrdup(buf);
	}
	return NULL;
}

void gp_run_find_injector(struct gp_run_injector *inj, bool no_cuda)
{
	const char *env = getenv("GPUPROF_INJECT_LIBRARY");
	char exe[PATH_MAX], buf[2 * PATH_MAX + 256];
	ssize_t n;

	memset(inj, 0, sizeof(*inj));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		/* this build's libgpuprof, for the Python binding in CMD (GPUPROF_RUN_LIBRARY) */
		inj->lib = find_beside_exe(exe, GP_INSTALL_BIN_TO_LIBDIR, GP_INSTALL_FULL_LIBDIR,
		                           GP_SONAME, NULL);
	}
	if (env && *env) {
		if (is_file(env)) {
			inj->path = realpath(env, NULL);
			if (!inj->path)
				die("cannot resolve GPUPROF_INJECT_LIBRARY '%s': %s", env,
				    strerror(errno));
		} else {
			snprintf(buf, sizeof(buf), "GPUPROF_INJECT_LIBRARY '%s' is not a file",
			         env);
			inj->reason = xstrdup(buf);
		}
	} else if (n <= 0) {
		snprintf(buf, sizeof(buf), "cannot read /proc/self/exe: %s", strerror(errno));
		inj->reason = xstrdup(buf);
	} else {
		inj->path =
		    find_beside_exe(exe, GP_INSTALL_BIN_TO_PKGLIBDIR, GP_INSTALL_FULL_PKGLIBDIR,
		                    "libgpuprof-inject.so", &inj->reason);
	}
	if (inj->path && !(env && *env) && !GP_HAVE_CUPTI) {
		/* this build's tracer records the annotation API only (cupti-null.c, no nvtx.c) */
		inj->reason =
		    xstrdup("gpuprof was built without the CUDA toolkit: its tracer records "
		            "annotations only, no NVTX ranges and no GPU activity");
	} else if (inj->path) {
		inj->nvtx = true;
		inj->cuda = !no_cuda;
	}
}

#define PYHOOK_FILE "python/gpuprof/_startup/sitecustomize.py"

void gp_run_find_pyhook(struct gp_run_injector *inj)
{
	char exe[PATH_MAX], *where = NULL, *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		die("option '--pytorch': cannot read /proc/self/exe: %s", strerror(errno));
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	/* a build tree has python/ beside the binary, an installed one in LIBDIR/gpuprof */
	inj->pyhook = find_beside_exe(exe, GP_INSTALL_BIN_TO_PKGLIBDIR, GP_INSTALL_FULL_PKGLIBDIR,
	                              PYHOOK_FILE, &where);
	if (!inj->pyhook)
		die("option '--pytorch': the Python startup hook is missing (%s): an incomplete "
		    "build or installation",
		    where);
	*strrchr(inj->pyhook, '/') = 0; /* its directory */
}

GP_CLI_PRINTF(1, 2) static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

static bool is_contract_var(const char *entry, const struct gp_run_injector *inj)
{
	size_t i;

	/* --pytorch: the hook's directory goes first in a PYTHONPATH of this run's making */
	if (inj->pyhook && strncmp(entry, "PYTHONPATH=", 11) == 0)
		return true;
	for (i = 0; i < sizeof(contract_vars) / sizeof(contract_vars[0]); i++) {
		size_t n = strlen(contract_vars[i]);

		if (strncmp(entry, contract_vars[i], n) == 0 && entry[n] == '=')
			return true;
	}
	/* empty ones (the only kind gp_run_check_env lets through) are replaced when set */
	if (inj->nvtx && strncmp(entry, "NVTX_INJECTION64_PATH=", 22) == 0)
		return true;
	if (inj->cuda && strncmp(entry, "CUDA_INJECTION64_PATH=", 22) == 0)
		return true;
	return false;
}

void gp_run_build_env(const struct gp_run_opts *o, const struct gp_run_injector *inj,
                      const char *dir, int64_t start_mono_ns, char ***envp, char ***set)
{
	size_t n = 0, k = 0, i, len = 0;
	char **env, **add, *tags, sched[128];

	for (i = 0; environ && environ[i]; i++)
		n++;
	add = xcalloc(20, sizeof(*add));
	if (inj->nvtx)
		add[k++] = xasprintf("NVTX_INJECTION64_PATH=%s", inj->path);
	if (inj->cuda)
		add[k++] = xasprintf("CUDA_INJECTION64_PATH=%s", inj->path);
	/* the recorder of the annotation API (include/gpuprof/annotate.h), also with --no-cuda */
	if (inj->path)
		add[k++] = xasprintf("GPUPROF_ANNOTATE_LIBRARY=%s", inj->path);
	/* the libgpuprof of this build, which the Python binding loads to reach that recorder */
	if (inj->path && inj->lib)
		add[k++] = xasprintf("GPUPROF_RUN_LIBRARY=%s", inj->lib);
	add[k++] = xasprintf("GPUPROF_CAPTURE_DIR=%s", dir);
	add[k++] = xasprintf("GPUPROF_RUN_START_NS=%lld", (long long)start_mono_ns);
	if (o->capture_range)
		add[k++] = xasprintf("GPUPROF_CAPTURE_RANGE=%s", o->capture_range);
	if (o->delay_ns >= 0)
		add[k++] = xasprintf("GPUPROF_CAPTURE_DELAY_NS=%lld", (long long)o->delay_ns);
	if (o->duration_ns >= 0)
		add[k++] = xasprintf("GPUPROF_CAPTURE_DURATION_NS=%lld", (long long)o->duration_ns);
	if (o->have_schedule)
		add[k++] = xasprintf("GPUPROF_CAPTURE_SCHEDULE=%s",
		                     gp_run_sched_str(&o->schedule, sched, sizeof(sched)));
	if (o->iter_range)
		add[k++] = xasprintf("GPUPROF_CAPTURE_ITER_RANGE=%s", o->iter_range);
	if (o->cuda_events)
		add[k++] = xstrdup("GPUPROF_CUDA_EVENTS=1");
	if (o->pytorch && inj->pyhook) {
		const char *pp = getenv("PYTHONPATH");

		add[k++] = xasprintf("GPUPROF_PYTORCH=%s",
		                     gp_run_pytorch_str(o->pytorch, sched, sizeof(sched)));
		/* the hook first: Python imports the first sitecustomize on its path (the hook
		 * runs the next one); an empty PYTHONPATH adds nothing */
		add[k++] = pp && *pp ? xasprintf("PYTHONPATH=%s:%s", inj->pyhook, pp)
		                     : xasprintf("PYTHONPATH=%s", inj->pyhook);
	}
	if (o->ntags) {
		/* "k=v" lines, sorted by key; keys and values hold no newline */
		for (i = 0; i < o->ntags; i++)
			len += strlen(o->tags[i].key) + strlen(o->tags[i].value) + 2;
		tags = xmalloc(len + 1);
		tags[0] = 0;
		for (i = 0, len = 0; i < o->ntags; i++)
			len += (size_t)sprintf(tags + len, "%s%s=%s", i ? "\n" : "", o->tags[i].key,
			                       o->tags[i].value);
		add[k++] = xasprintf("GPUPROF_TAGS=%s", tags);
		free(tags);
	}
	env = xcalloc(n + k + 1, sizeof(*env));
	for (i = 0, n = 0; environ && environ[i]; i++)
		if (!is_contract_var(environ[i], inj))
			env[n++] = environ[i];
	for (i = 0; i < k; i++)
		env[n++] = add[i];
	env[n] = NULL;
	*envp = env;
	*set = add;
}

int gp_run_signals_take(struct gp_run_child *c)
{
	struct sigaction ign, dfl;
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	if (pthread_sigmask(SIG_BLOCK, &set, &c->old_mask))
		return error("cannot block signals");
	c->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (c->sig_fd < 0) {
		int e = errno;

		pthread_sigmask(SIG_SETMASK, &c->old_mask, NULL);
		return error("signalfd: %s", strerror(e));
	}
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	dfl = ign;
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGINT, &ign, &c->old_int);
	sigaction(SIGQUIT, &ign, &c->old_quit);
	/* an inherited SIG_IGN would make the kernel reap CMD before waitpid sees it */
	sigaction(SIGCHLD, &dfl, &c->old_chld);
	c->signals_set = true;
	return 0;
}

void gp_run_signals_restore(struct gp_run_child *c)
{
	struct signalfd_siginfo si;

	if (!c->signals_set)
		return;
	/* what came after CMD ended was meant for CMD: drop it rather than die of it now */
	while (read(c->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
	close(c->sig_fd);
	c->sig_fd = -1;
	sigaction(SIGINT, &c->old_int, NULL);
	sigaction(SIGQUIT, &c->old_quit, NULL);
	sigaction(SIGCHLD, &c->old_chld, NULL);
	pthread_sigmask(SIG_SETMASK, &c->old_mask, NULL);
	c->signals_set = false;
}

/* In the child: wait for the go byte, restore what CMD should inherit, exec. */
GP_CLI_NORETURN static void child_main(struct gp_run_child *c, int go_r, int err_w)
{
	struct sigaction sa;
	ssize_t n;
	char b;
	int e;

	do
		n = read(go_r, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* the parent gave up before starting CMD */
	close(go_r);
	sigaction(SIGINT, &c->old_int, NULL);
	sigaction(SIGQUIT, &c->old_quit, NULL);
	sigaction(SIGCHLD, &c->old_chld, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = gp_cli_sigpipe_ignored ? SIG_IGN : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	sigprocmask(SIG_SETMASK, &c->old_mask, NULL);
	execve(c->path, c->argv, c->envp);
	/* like execvp: a file without a #! line is a shell script */
	if (errno == ENOEXEC)
		execve("/bin/sh", c->sh_argv, c->envp);
	e = errno;
	while (write(err_w, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

int gp_run_child_fork(struct gp_run_child *c)
{
	int go[2], er[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return error("pipe: %s", strerror(errno));
	if (pipe2(er, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return error("pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return error("cannot start a process: %s", strerror(e));
	}
	if (pid == 0) {
		close(go[1]);
		close(er[0]);
		child_main(c, go[0], er[1]);
	}
	close(go[0]);
	close(er[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = er[0];
	return 0;
}

int gp_run_child_release(struct gp_run_child *c)
{
	ssize_t n;
	int e = 0;

	do
		n = write(c->go_fd, "g", 1);
	while (n < 0 && errno == EINTR);
	if (n != 1) {
		/* the child is gone already: report it as a failed start */
		c->exec_errno = errno ? errno : EIO;
		close(c->go_fd);
		c->go_fd = -1;
		return -1;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		c->exec_errno = e ? e : EIO;
		return -1;
	}
	return 0; /* EOF: the pipe closed on exec */
}

static void reap(struct gp_run_child *c)
{
	pid_t r;
	int st;

	do
		r = waitpid(c->pid, &st, 0);
	while (r < 0 && errno == EINTR);
	if (r == c->pid) {
		c->status = st;
		c->reaped = true;
	}
}

void gp_run_child_abort(struct gp_run_child *c)
{
	if (c->go_fd >= 0) {
		close(c->go_fd);
		c->go_fd = -1;
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	if (c->pid > 0 && !c->reaped)
		reap(c);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void gp_run_subreaper(void)
{
	/* without it (not Linux >= 3.4) orphans go to init and are not waited for */
	prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}

void gp_run_child_release_lists(struct gp_run_child *c)
{
	free(c->procs);
	free(c->left);
	c->procs = NULL;
	c->left = NULL;
	c->nprocs = c->procs_cap = c->nleft = 0;
}

/* Reads /proc/PID/FILE (at most @p n - 1 bytes, NUL-ended). @return the bytes read, -1. */
static ssize_t read_proc(pid_t pid, const char *file, char *buf, size_t n)
{
	char path[64];
	ssize_t got = 0, k;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < n - 1 && (k = read(fd, buf + got, n - 1 - (size_t)got)) > 0)
		got += k;
	close(fd);
	buf[got] = 0;
	return got;
}

/* The parent of @p pid from /proc/PID/stat (after the last ')': comm may hold any byte), -1. */
static pid_t parent_of(pid_t pid)
{
	char buf[512], *p;
	long pp;

	if (read_proc(pid, "stat", buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return -1;
	if (sscanf(p + 1, " %*c %ld", &pp) != 1)
		return -1;
	return (pid_t)pp;
}

/* Whether @p pid has the tracer mapped (the basename of @p inj in /proc/PID/maps). */
static bool has_tracer(pid_t pid, const char *inj)
{
	char path[64], line[1024];
	const char *base = inj ? strrchr(inj, '/') : NULL;
	bool found = false;
	FILE *f;

	base = base ? base + 1 : inj;
	if (!base || !*base)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, base) != NULL;
	fclose(f);
	return found;
}

/*
 * gpuprof's children now (the processes of CMD it is subreaper of): pids into
 * @p out (at most @p max). @return how many there are (may exceed @p max).
 */
static size_t children(pid_t *out, size_t max)
{
	pid_t self = getpid();
	struct dirent *e;
	size_t n = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || parent_of((pid_t)pid) != self)
			continue;
		if (n < max)
			out[n] = (pid_t)pid;
		n++;
	}
	closedir(d);
	return n;
}

/* "pid 123 (./prog arg...)" of a process, its command line cut at @p n bytes */
static void describe(pid_t pid, char *buf, size_t n)
{
	char cmd[256];
	ssize_t got = read_proc(pid, "cmdline", cmd, sizeof(cmd));

	for (ssize_t i = 0; i < got - 1; i++)
		if (cmd[i] == 0 || (unsigned char)cmd[i] < 0x20)
			cmd[i] = ' ';
	if (got <= 0)
		snprintf(cmd, sizeof(cmd), "?");
	if (n) {
		size_t k = strnlen(cmd, n - 1);

		memcpy(buf, cmd, k); /* cut; the note's reader needs the start */
		buf[k] = 0;
	}
}

#define MAX_LISTED 8 /* processes named in a note; more are counted */

/* One note on standard error: CMD ended, the processes still running that gpuprof waits for. */
static void note_waiting(const struct gp_run_child *c)
{
	pid_t pids[MAX_LISTED];
	size_t n = children(pids, MAX_LISTED), i;
	char st[64], cmd[128];

	if (c->quiet || !n)
		return;
	if (WIFEXITED(c->status))
		snprintf(st, sizeof(st), "exited with status %d", WEXITSTATUS(c->status));
	else
		snprintf(st, sizeof(st), "was killed by signal %d", WTERMSIG(c->status));
	fprintf(stderr,
	        "gpuprof run: CMD %s; waiting for %zu process%s it started, still running:", st, n,
	        n == 1 ? "" : "es");
	for (i = 0; i < n && i < MAX_LISTED; i++) {
		describe(pids[i], cmd, sizeof(cmd));
		fprintf(stderr, "%s pid %d (%s)", i ? "," : "", (int)pids[i], cmd);
	}
	fprintf(stderr, "%s ('--wait primary' does not wait for them)\n",
	        n > MAX_LISTED ? ", ..." : "");
}

/* --wait primary: the processes of CMD still running, into c->left */
static void list_left(struct gp_run_child *c)
{
	pid_t pids[256];
	size_t n = children(pids, 256);

	if (n > 256)
		n = 256;
	if (!n)
		return;
	c->left = xcalloc(n, sizeof(*c->left));
	for (size_t i = 0; i < n; i++) {
		c->left[i].pid = pids[i];
		describe(pids[i], c->left[i].cmd, sizeof(c->left[i].cmd));
		c->left[i].tracer = has_tracer(pids[i], c->inj_path);
	}
	c->nleft = n;
}

static void reaped_other(struct gp_run_child *c, pid_t pid, int st)
{
	if (c->nprocs >= GP_RUN_MAX_PROCS) {
		c->procs_more++; /* a fork bomb's orphans: counted, not listed */
		return;
	}
	if (c->nprocs == c->procs_cap) {
		size_t cap = c->procs_cap ? 2 * c->procs_cap : 16;
		struct gp_run_proc *p = realloc(c->procs, cap * sizeof(*p));

		if (!p)
			die("out of memory");
		c->procs = p;
		c->procs_cap = cap;
	}
	c->procs[c->nprocs].pid = pid;
	c->procs[c->nprocs].status = st;
	c->procs[c->nprocs].end_mono_ns = mono_ns();
	c->nprocs++;
}

/*
 * CMD has ended and gpuprof waits for the processes it left: SIGINT (Ctrl-C),
 * ignored while CMD ran (the terminal sends it to CMD), now reaches gpuprof
 * through the signalfd, so that a user can stop waiting for them (the
 * processes a shell starts with '&' ignore it, and may run for ever).
 */
static void take_interrupt(struct gp_run_child *c)
{
	struct sigaction dfl;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, NULL); /* blocked: it stays pending for the signalfd */
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	signalfd(c->sig_fd, &set, 0);
}

/*
 * Reaps every child that has ended. @return 1 when none is left (ECHILD),
 * 0 when some still run, -1 on an error.
 */
static int reap_ended(struct gp_run_child *c)
{
	for (;;) {
		int st;
		pid_t r = waitpid(-1, &st, WNOHANG);

		if (r == 0)
			return 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				return 1;
			return error("waitpid: %s", strerror(errno));
		}
		if (r == c->pid) {
			c->status = st;
			c->reaped = true;
			c->end_mono_ns = mono_ns();
		} else {
			reaped_other(c, r, st);
		}
	}
}

/* A signal for CMD: to CMD while it runs, then to the other processes still waited for. */
static void forward(struct gp_run_child *c, int sig)
{
	pid_t pids[1024];
	size_t n;

	if (!c->reaped) {
		kill(c->pid, sig);
		return;
	}
	n = children(pids, 1024);
	for (size_t i = 0; i < n && i < 1024; i++)
		kill(pids[i], sig);
}

int gp_run_child_wait(struct gp_run_child *c, void (*tick)(void *arg), void *arg, int tick_ms)
{
	int64_t next = tick_ms > 0 ? mono_ns() / 1000000 + tick_ms : 0;
	bool noted = false;

	for (;;) {
		struct signalfd_siginfo si;
		struct pollfd pfd;
		int timeout = -1, pr, none = reap_ended(c);

		if (none < 0)
			return -1;
		if (c->reaped && (none || !c->wait_all)) {
			if (!c->wait_all)
				list_left(c);
			return 0;
		}
		if (c->reaped && !noted) {
			note_waiting(c);
			take_interrupt(c);
			noted = true;
		}
		if (tick_ms > 0) {
			int64_t now = mono_ns() / 1000000;

			if (now >= next) {
				tick(arg);
				next = now + tick_ms;
			}
			timeout = (int)(next - now > tick_ms ? tick_ms : next - now);
		}
		pfd.fd = c->sig_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		pr = poll(&pfd, 1, timeout);
		if (pr < 0 && errno != EINTR)
			return error("poll: %s", strerror(errno));
		if (pr <= 0)
			continue;
		while (read(c->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			/* SIGCHLD only wakes us: reap_ended above says who ended */
			if (si.ssi_signo == SIGINT && c->reaped) {
				/* Ctrl-C while waiting for CMD's leftovers: stop waiting for them
				 */
				list_left(c);
				c->interrupted = true;
				return 0;
			}
			if (si.ssi_signo != SIGCHLD)
				forward(c, (int)si.ssi_signo);
		}
	}
}
