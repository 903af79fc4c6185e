/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - the PATHs a user typed -> a typed list of inputs (source.h),
 * the one place that decides what a PATH is for analyze, export, bench,
 * compare and report.
 *
 * A directory is listed once: its trace-named files (*.json, *.json.gz, *.gz,
 * *.gpcap, not hidden, not run.json or report.json, not the *.chrome.json
 * exports) in name order, each of the kind its first bytes say; then, for a
 * `gpuprof run` directory, the run itself (run.json) and its metrics timeline
 * (metrics.jsonl). A typed file is one input whatever its name; content that
 * is no trace (GP_SRC_OTHER) typed by the user goes to the trace reader
 * (as does a FIFO or a device, which cannot be read twice: never sniffed),
 * which says what is wrong with it, while found in a directory it is skipped
 * by gp__srcs_keep() and named in one warning. "-" is standard input, read
 * whole before anything else (a pipe cannot be read twice).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "source.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/pool.h"

static const char *const kind_names[GP_SRC_NKINDS] = {
	[GP_SRC_KINETO] = "a trace",
	[GP_SRC_CAPTURE] = "a capture",
	[GP_SRC_METRICS] = "a metrics timeline",
	[GP_SRC_RUN_DIR] = "a run directory",
	[GP_SRC_ANALYZE] = "an analyze report",
	[GP_SRC_BENCH] = "a bench result",
	[GP_SRC_COMPARE] = "a compare result",
	[GP_SRC_AGGREGATE] = "an aggregate",
	[GP_SRC_DOC] = "a gpuprof document",
	[GP_SRC_OTHER] = "not a trace",
	[GP_SRC_SNAPSHOT] = "a memory snapshot",
};

const char *gp__src_kind_name(enum gp__src_kind k)
{
	return (unsigned)k < GP_SRC_NKINDS ? kind_names[k] : "?";
}

/* "rank-3", "rank3", "rank_3", "worker3" anywhere in the base name; -1 none */
int64_t gp__rank_from_name(const char *path)
{
	static const char *const keys[] = { "rank", "worker" };
	const char *base = strrchr(path, '/');
	size_t k;

	base = base ? base + 1 : path;
	for (k = 0; k < GP_ARRAY_SIZE(keys); k++) {
		const char *p = base;

		while ((p = strstr(p, keys[k]))) {
			const char *q = p + strlen(keys[k]);
			int64_t v = 0;
			int digits = 0;

			if (*q == '-' || *q == '_' || *q == '.')
				q++;
			while (isdigit((unsigned char)*q) && digits < 9) {
				v = v * 10 + (*q++ - '0');
				digits++;
			}
			if (digits && !isdigit((unsigned char)*q))
				return v;
			p++;
		}
	}
	return -1;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* the length of the run of digits ending at @p s + @p n */
static size_t digits_before(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && isdigit((unsigned char)s[n - 1 - k]))
		k++;
	return k;
}

/*
 * torch.profiler.tensorboard_trace_handler names a trace
 * "<worker>.<digits>.pt.trace.json[.gz]", the worker being "<host>_<pid>"
 * unless the user named it: the host is what comes before the "_<pid>".
 */
bool gp__host_from_name(const char *path, char *host, size_t cap)
{
	const char *base = strrchr(path, '/');
	size_t n, k;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (ends_with(base, n, ".pt.trace.json"))
		n -= strlen(".pt.trace.json");
	else if (ends_with(base, n, ".pt.trace.json.gz"))
		n -= strlen(".pt.trace.json.gz");
	else
		return false;
	/*
	 * ".<digits>" (the time: milliseconds, 13 digits, in torch 1.x; time_ns(),
	 * 19, since), then "_<digits>" (the pid). Fewer than 10 digits is no time
	 * of this century: "rank-34.Jul_15_10_52_41.1074.pt.trace.json" is no host.
	 */
	k = digits_before(base, n);
	if (k < 10 || k >= n || base[n - k - 1] != '.')
		return false;
	n -= k + 1;
	k = digits_before(base, n);
	if (!k || k >= n || base[n - k - 1] != '_')
		return false;
	n -= k + 1;
	if (!n || n >= cap)
		return false;
	memcpy(host, base, n);
	host[n] = '\0';
	return true;
}

/* a trace in a directory: not hidden, not a `gpuprof run` output or an export */
static bool is_trace_name(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.' || strcmp(name, "run.json") == 0 || strcmp(name, "report.json") == 0 ||
	    ends_with(name, n, ".chrome.json"))
		return false;
	return ends_with(name, n, ".json") || ends_with(name, n, ".gz") ||
	       ends_with(name, n, ".gpcap");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gp__free(names[i]);
	gp__free(names);
}

static char *join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *full = gp__malloc(len);

	if (full)
		snprintf(full, len, "%s/%s", dir, name);
	return full;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* the trace-named regular files of @p dir as "dir/name", sorted; none is not an error */
static int list_dir(const char *dir, char ***out, size_t *nout)
{
	char **names = NULL;
	size_t nn = 0, ncap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (!d)
		return gp__error(GP_ENOENT, "cannot open directory '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char *full;

		if (!is_trace_name(de->d_name))
			continue;
		if (!(full = join(dir, de->d_name)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		if (!is_file(full)) {
			gp__free(full);
			continue;
		}
		if ((rc = gp__grow((void **)&names, &ncap, nn + 1, sizeof(*names)))) {
			gp__free(full);
			goto out;
		}
		names[nn++] = full;
	}
	if (nn) /* qsort(NULL, 0) is undefined */
		qsort(names, nn, sizeof(*names), cmp_str);
	*out = names;
	*nout = nn;
	names = NULL;
	nn = 0;
out:
	free_names(names, nn);
	closedir(d);
	return rc;
}

void gp__srcs_release(struct gp__srcs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		gp__free(s->v[i].path);
		gp__free(s->v[i].host);
		gp__free(s->v[i].mem);
	}
	gp__free(s->v);
	gp__free(s->skipped);
	memset(s, 0, sizeof(*s));
}

/* appends an input; takes @p path (freed on failure) */
static int push(struct gp__srcs *s, enum gp__src_kind kind, char *path, size_t arg, bool from_dir)
{
	struct gp__src *x;

	if (!path)
		return gp__error(GP_ENOMEM, "out of memory");
	if (gp__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v))) {
		gp__free(path);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	x = &s->v[s->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->path = path;
	x->arg = arg;
	x->from_dir = from_dir;
	x->rank = gp__rank_from_name(path);
	x->pid = -1;
	return 0;
}

/* rank, pid and host of @p x from the object @p v (a capture's META, run.json) */
static int who(struct gp__src *x, const struct gp_value *v, const char *host_key)
{
	const char *host = gp_value_get_str(gp_obj_get(v, host_key));
	int64_t k;

	if (gp_value_get_int(gp_obj_get(v, "rank"), &k) && k >= 0)
		x->rank = k;
	if (gp_value_get_int(gp_obj_get(v, "pid"), &k) && k > 0)
		x->pid = k;
	if (host && !(x->host = gp__strdup(host)))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

/* a capture file's process, from its META record (the first bytes of the file) */
static int capture_who(struct gp__src *x)
{
	struct gp_value *meta = NULL;
	char *text = NULL;
	size_t got = 0;
	int rc;

	rc = gp__read_prefix(x->path, 64u << 10, &text, &got);
	if (rc == GP_ENOMEM)
		return rc;
	gp_clear_error(); /* unreadable: its reader says why */
	if (rc == 0 && (rc = gp__capture_meta_peek(text, got, &meta)) == 0 && meta)
		rc = who(x, meta, "host");
	gp_value_free(meta);
	gp__free(text);
	return rc;
}

/* a typed file: its kind by content; what is no trace still goes to the trace reader */
static int add_file(struct gp__srcs *s, const char *path, bool regular, size_t arg, unsigned flags)
{
	enum gp__src_kind k = GP_SRC_KINETO;
	size_t n = strlen(path);
	int rc = 0;

	/* a FIFO or a device cannot be read twice: its name alone says, else it is a trace */
	if (regular && (rc = gp__sniff_file_ex(path, flags & GP_SRC_DOCS_UNSNIFFED, &k)))
		return rc;
	if (!regular && ends_with(path, n, ".gpcap"))
		k = GP_SRC_CAPTURE;
	if (ends_with(path, n, ".jsonl") && (k == GP_SRC_KINETO || k == GP_SRC_OTHER))
		k = GP_SRC_METRICS; /* the name says it: the timeline reader says what is wrong */
	if ((ends_with(path, n, ".pickle") || ends_with(path, n, ".pkl")) &&
	    (k == GP_SRC_KINETO || k == GP_SRC_OTHER))
		k = GP_SRC_SNAPSHOT; /* the name says it: the pickle reader says what is wrong */
	if (k == GP_SRC_OTHER)
		k = GP_SRC_KINETO;
	GP_TRY(push(s, k, gp__strdup(path), arg, false));
	if (k == GP_SRC_CAPTURE && regular)
		GP_TRY(capture_who(&s->v[s->n - 1]));
out:
	return rc;
}

/* the files of a directory sniffed on every CPU: a job's thousand rank reports are read whole */
struct sniffs {
	bool doc_prefix;
	char *const *names;
	enum gp__src_kind *kinds;
	int *rc;
	char **err; /* the message of a failure */
};

static void sniff_one(void *arg, size_t i)
{
	struct sniffs *x = arg;

	if ((x->rc[i] = gp__sniff_file_ex(x->names[i], x->doc_prefix, &x->kinds[i])))
		x->err[i] = gp__strdup(gp_last_error());
}

/* the kind of each of @p names; the first failure in name order is the error, as one by one */
static int sniff_all(char *const *names, size_t n, bool doc_prefix, enum gp__src_kind *kinds)
{
	struct sniffs x = { .doc_prefix = doc_prefix, .names = names, .kinds = kinds };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i;
	int rc = 0;

	if (!n)
		return 0;
	x.rc = gp__calloc(n, sizeof(*x.rc));
	x.err = gp__calloc(n, sizeof(*x.err));
	if (!x.rc || !x.err)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	gp__pool_run(n, ncpu > 1 ? (size_t)ncpu : 1, sniff_one, &x);
	for (i = 0; i < n && !rc; i++)
		if (x.rc[i])
			rc = gp__error(x.rc[i], "%s", x.err[i] ? x.err[i] : gp_strerror(x.rc[i]));
out:
	for (i = 0; x.err && i < n; i++)
		gp__free(x.err[i]);
	gp__free(x.err);
	gp__free(x.rc);
	return rc;
}

static int add_dir(struct gp__srcs *s, const char *dir, size_t arg, unsigned flags)
{
	enum gp__src_kind *kinds = NULL;
	char **names = NULL, *extra;
	size_t nn = 0, i, first = s->n;
	bool run = false, any = false;
	struct gp_value *rj = NULL;
	int rc = 0;

	GP_TRY(list_dir(dir, &names, &nn));
	if (!(extra = join(dir, "run.json")))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	run = is_file(extra);
	gp__free(extra);
	if (run) {
		/* run.json of gpuprof run: of another schema, the directory is a plain one */
		GP_TRY(gp__run_json_read(dir, &rj));
		run = rj != NULL;
	}
	if (run) {
		GP_TRY(push(s, GP_SRC_RUN_DIR, gp__strdup(dir), arg, false));
		GP_TRY(who(&s->v[s->n - 1], rj, "hostname"));
		s->v[s->n - 1].rank = -1; /* a run is every rank it launched */
	}
	if (nn && !(kinds = gp__calloc(nn, sizeof(*kinds))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(sniff_all(names, nn, flags & GP_SRC_DOCS_UNSNIFFED, kinds));
	for (i = 0; i < nn; i++) {
		char *name = names[i];
		enum gp__src_kind k = kinds[i];

		names[i] = NULL;
		GP_TRY(push(s, k, name, arg, true));
		if (k == GP_SRC_CAPTURE)
			GP_TRY(capture_who(&s->v[s->n - 1]));
		any = true;
	}
	if (!(extra = join(dir, "metrics.jsonl")))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (is_file(extra)) {
		GP_TRY(push(s, GP_SRC_METRICS, extra, arg, true));
		any = true;
	} else {
		gp__free(extra);
	}
	if (!any && !run)
		GP_TRY(gp__error(
		    GP_ENOENT,
		    "'%s': no trace files (*.json, *.json.gz, *.gpcap) in this directory", dir));
	/* the directory's path, shared by its inputs: the run directory's own, or the typed one */
	for (i = first; i < s->n; i++)
		s->v[i].dir = dir;
out:
	gp__free(kinds);
	gp_value_free(rj);
	free_names(names, nn);
	return rc;
}

/* standard input, read whole */
static int add_stdin(struct gp__srcs *s, size_t arg)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	struct gp__src *x;
	int rc = 0;

	for (;;) {
		ssize_t k;

		if (len == cap && (rc = gp__grow((void **)&buf, &cap, len + (1u << 20), 1)))
			goto out;
		k = read(STDIN_FILENO, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			GP_TRY(
			    gp__error(GP_EIO, "cannot read standard input: %s", strerror(errno)));
		if (k == 0)
			break;
		len += (size_t)k;
	}
	GP_TRY(push(s, GP_SRC_KINETO, gp__strdup("-"), arg, false));
	x = &s->v[s->n - 1];
	x->kind = gp__sniff_mem(buf, len, true);
	if (x->kind == GP_SRC_OTHER)
		x->kind = GP_SRC_KINETO;
	x->is_stdin = true;
	x->mem = buf;
	x->len = len;
	x->rank = -1;
	buf = NULL;
	if (x->kind == GP_SRC_CAPTURE) {
		struct gp_value *meta = NULL;

		if ((rc = gp__capture_meta_peek(x->mem, x->len, &meta)) == 0 && meta)
			rc = who(x, meta, "host");
		gp_value_free(meta);
	}
out:
	gp__free(buf);
	return rc;
}

int gp__srcs_resolve(const char *const *paths, size_t n, unsigned flags, struct gp__srcs *out)
{
	bool stdin_used = false;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!paths || !n)
		return gp__error(GP_EINVAL, "no input files");
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!paths[i])
			GP_TRY(gp__error(GP_EINVAL, "NULL path"));
		if ((flags & GP_SRC_ALLOW_STDIN) && strcmp(paths[i], "-") == 0) {
			if (stdin_used)
				GP_TRY(gp__error(GP_EINVAL, "'-' (standard input) is given twice"));
			stdin_used = true;
			GP_TRY(add_stdin(out, i));
			continue;
		}
		if (stat(paths[i], &st))
			GP_TRY(gp__error(errno == ENOENT ? GP_ENOENT : GP_EIO,
			                 "cannot read '%s': %s", paths[i], strerror(errno)));
		if (S_ISDIR(st.st_mode))
			GP_TRY(add_dir(out, paths[i], i, flags));
		else
			GP_TRY(add_file(out, paths[i], S_ISREG(st.st_mode), i, flags));
	}
out:
	return rc;
}

size_t gp__srcs_count(const struct gp__srcs *s, unsigned kinds)
{
	size_t i, c = 0;

	for (i = 0; i < s->n; i++)
		c += (kinds & (1u << s->v[i].kind)) != 0;
	return c;
}

int gp__srcs_keep(struct gp__srcs *s, unsigned kinds, const char *cmd)
{
	struct gp_buf b;
	size_t i, j = 0, skipped = 0;
	const char *dir = NULL;
	int rc = 0;

	gp__buf_init(&b, 0);
	for (i = 0; i < s->n; i++) {
		struct gp__src *x = &s->v[i];
		const char *base;

		if (kinds & (1u << x->kind)) {
			s->v[j++] = *x;
			continue;
		}
		if (!x->from_dir)
			GP_TRY(gp__error(GP_EINVAL, "'%s' is %s: %s does not read it", x->path,
			                 gp__src_kind_name(x->kind), cmd));
		base = strrchr(x->path, '/');
		base = base ? base + 1 : x->path;
		if (!dir || strcmp(dir, x->dir) != 0) {
			GP_TRY(gp__buf_addf(&b, "%s'%s': ", b.len ? "; " : "", x->dir));
			dir = x->dir;
		} else {
			GP_TRY(gp__buf_addstr(&b, ", "));
		}
		GP_TRY(gp__buf_addf(&b, "%s (%s)", base, gp__src_kind_name(x->kind)));
		skipped++;
		gp__free(x->path);
		gp__free(x->host);
		gp__free(x->mem);
	}
	if (skipped) {
		struct gp_buf w;

		gp__buf_init(&w, 0);
		if (gp__buf_addf(&w, "skipped %zu file%s that %s does not read: %s", skipped,
		                 skipped == 1 ? "" : "s", cmd, b.buf)) {
			gp__buf_release(&w);
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		}
		gp__free(s->skipped);
		s->skipped = gp__buf_detach(&w, NULL);
	}
out:
	/* on failure the inputs not yet looked at stay, after the kept ones, for release */
	memmove(s->v + j, s->v + i, (s->n - i) * sizeof(*s->v));
	s->n = j + (s->n - i);
	gp__buf_release(&b);
	if (rc == GP_ENOMEM && !*gp_last_error())
		gp__error(GP_ENOMEM, "out of memory");
	return rc;
}
