/* SPDX-License-Identifier: MIT */
/*
 * cli-util.c - the CLI's shared helpers: messages, dying allocators, number
 * parsing, output files that are never left half-written (gp_file_write_atomic())
 * and the signal handlers that remove them when gpuprof is killed.
 *
 * Only the CLI may exit on an error (STYLE.md §3); the library reports through
 * return codes and gp_last_error().
 */
#include "cli.h"

#include "gpuprof/analyze.h"
#include "gpuprof/gpuprof.h"

#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprof/gpuprof.h"

GP_CLI_PRINTF(2, 0) static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "gpuprof: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(GP_EXIT_FAILURE);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void usage_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(GP_EXIT_USAGE);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

long long parse_count(const char *opt, const char *s, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max || *s == '-' || *s == '+' || *s == ' ')
		usage_die("option '%s' expects a number from 0 to %lld, not '%s'", opt, max, s);
	return v;
}

enum gp_compat parse_compat(const char *s)
{
	if (strcmp(s, "hta") == 0)
		return GP_COMPAT_HTA;
	if (strcmp(s, "tb") == 0)
		return GP_COMPAT_TB;
	if (strcmp(s, "none") != 0)
		usage_die("option '--compat' expects 'hta', 'tb' or 'none', not '%s'", s);
	return GP_COMPAT_NONE;
}

static bool strip_suffix(char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	if (n > k && strcmp(s + n - k, suffix) == 0) {
		s[n - k] = '\0';
		return true;
	}
	return false;
}

int bad_option(const char *cmd, int c, const char *const *argv, const char *usage)
{
	if (c == ':')
		fprintf(stderr, "gpuprof %s: option '%s' needs a value\n%s", cmd, argv[optind - 1],
		        usage);
	else
		fprintf(stderr, "gpuprof %s: unknown option '%s'\n%s", cmd, argv[optind - 1],
		        usage);
	return GP_EXIT_USAGE;
}

int opt_tail(const char *cmd, int c, const char *const *argv, const char *usage)
{
	if (c == 'h') {
		fputs(usage, stdout);
		return GP_EXIT_OK;
	}
	return bad_option(cmd, c, argv, usage);
}

int need_operand(const char *cmd, int optind_, int argc, const char *what, const char *usage)
{
	if (optind_ < argc)
		return 0;
	fprintf(stderr, "gpuprof %s: %s\n%s", cmd, what, usage);
	return GP_EXIT_USAGE;
}

static void log_warning(enum gp_log_level level, const char *msg, void *user)
{
	(void)user;
	if (level <= GP_LOG_WARN)
		warning("%s", msg);
}

void library_warnings(bool on)
{
	if (on)
		gp_set_log(log_warning, NULL);
	else
		gp_set_log(NULL, NULL);
}

int output_width(bool to_stdout)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	int w = 100;

	if (env && atoi(env) > 0)
		w = atoi(env);
	else if (to_stdout && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	         ws.ws_col > 0)
		w = ws.ws_col;
	return w < 60 ? 60 : w > 200 ? 200 : w;
}

int write_output(const char *output, const char *data, size_t len)
{
	if (!output || strcmp(output, "-") == 0)
		return write_stdout(data, len);
	return write_file_atomic(output, data, len);
}

int stdout_sink(const void *p, size_t n, void *user)
{
	(void)user;
	if (!write_stdout(p, n))
		return 0;
	errno = gp_cli_stdout_errno;
	return -1;
}

/* a library write failed: its message said, errno kept for the caller; -1 */
static int lib_write_failed(void)
{
	int e = errno;

	error("%s", gp_last_error());
	errno = e;
	return -1;
}

int write_output_with(const char *output, gp_produce_fn produce, void *user)
{
	int rc;

	if (!output || strcmp(output, "-") == 0) {
		rc = produce(user, stdout_sink, NULL);
		/* a failed write is said once, by finish_stdout() */
		if (rc && !gp_cli_stdout_errno)
			error("%s", gp_last_error());
		return rc ? -1 : 0;
	}
	return gp_file_write_atomic_with(output, produce, user) ? lib_write_failed() : 0;
}

int write_output_json(const char *output, const struct gp_value *v, unsigned flags)
{
	int rc;

	if (!output || strcmp(output, "-") == 0) {
		rc = gp_value_write_json(v, flags, stdout_sink, NULL);
		/* a failed write is said once, by finish_stdout() */
		if (rc && !gp_cli_stdout_errno)
			error("cannot write the report: %s", gp_last_error());
		return rc ? -1 : 0;
	}
	return gp_file_write_atomic_json(output, v, flags) ? lib_write_failed() : 0;
}

const char *output_for(const char *cmd, const char *given, const char *first, int n,
                       const char *suffix, char **derived)
{
	*derived = NULL;
	if (given)
		return given;
	/* standard input in, standard output out */
	if (n == 1 && strcmp(first, "-") == 0)
		return "-";
	if (n > 1)
		usage_die("%s: several inputs: name the output with -o FILE", cmd);
	*derived = derive_output(first, suffix);
	if (!*derived)
		usage_die("%s: cannot derive an output name from '%s': use -o FILE", cmd, first);
	return *derived;
}

char *derive_output(const char *path, const char *suffix)
{
	struct stat st;
	char *base, *out;
	size_t n;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *real = realpath(path, NULL);

		if (!real)
			return NULL;
		n = strlen(real);
		if (n <= 1) {
			/* "/" has no sibling to write */
			free(real);
			return NULL;
		}
		out = xmalloc(n + strlen(suffix) + 1);
		memcpy(out, real, n);
		memcpy(out + n, suffix, strlen(suffix) + 1);
		free(real);
		return out;
	}
	base = xmalloc(strlen(path) + strlen(suffix) + 1);
	strcpy(base, path);
	if (!strip_suffix(base, ".json.gz") && !strip_suffix(base, ".json") &&
	    !strip_suffix(base, ".gpcap"))
		strip_suffix(base, ".gz");
	strcat(base, suffix);
	return base;
}

char *read_file_max(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf;
	size_t n;
	int e;

	if (!f)
		return NULL;
	buf = xmalloc(max + 1);
	n = fread(buf, 1, max + 1, f);
	e = ferror(f) ? (errno ? errno : EIO) : n > max ? EFBIG : 0;
	fclose(f);
	if (e) {
		free(buf);
		errno = e;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	return gp_file_write_atomic(path, data, len) ? lib_write_failed() : 0;
}

/*
 * The signals that end gpuprof by default: a handler removes the temporary
 * files of the outputs being written (gp_tempfile_cleanup_signal()), then
 * dies of the same signal, as git's tempfile.c and sigchain.c do. Signals
 * ignored when gpuprof starts (nohup) stay ignored, also for `run`'s CMD.
 */
static const int cleanup_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
static struct sigaction default_action; /* SIG_DFL, set up before any handler runs */

static void remove_tempfiles_and_die(int sig)
{
	gp_tempfile_cleanup_signal();
	sigaction(sig, &default_action, NULL);
	/* blocked until this handler returns, then delivered with the default action */
	raise(sig);
}

void gp_cli_signals_install(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	sigemptyset(&default_action.sa_mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_tempfiles_and_die;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&sa.sa_mask, cleanup_signals[i]);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			sigaction(cleanup_signals[i], &sa, NULL);
}

int gp_cli_stdout_errno;
bool gp_cli_sigpipe_ignored;

int write_stdout(const char *data, size_t len)
{
	errno = 0;
	if (len && fwrite(data, 1, len, stdout) != len) {
		gp_cli_stdout_errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}
