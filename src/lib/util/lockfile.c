/* SPDX-License-Identifier: MIT */
/*
 * lockfile.c - the one atomic file writer (lockfile.h; git's lockfile.c over
 * its tempfile.c): every file gpuprof writes whole goes through here, from
 * the library (export) and from the CLI (analyze, bench, compare, report -o,
 * run.json, top --textfile).
 *
 * The new contents go to a registered temporary file (util/tempfile.c) in the
 * directory of the file being replaced, so that the final rename(2) stays on
 * one file system and is atomic; the contents are synced before the rename,
 * so that a crash leaves the old file or the new one, never an empty one.
 * Symbolic links are resolved here first (as git's resolve_symlink() does):
 * renaming over the link itself would replace the link with a plain file.
 * The target's permission bits are copied onto the temporary file with
 * fchmod(2), and a new file's come from open(2)'s 0666 and the umask, which
 * is never changed (umask(2) is process-wide: other threads create files too).
 * A file whose name ends in ".gz" is written gzip-compressed (util/gzwrite.c):
 * the stream callers write through is then a stdio cookie stream over the
 * compressor, which writes into the temporary file's stream.
 */
#include "lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "gzwrite.h"
#include "tempfile.h"

/* links followed at most (the kernel's own limit, SYMLOOP_MAX on Linux) */
#define MAX_LINKS 40

struct gp__lockfile {
	char *path;               /* as given: what messages name */
	char *target;             /* path, its symbolic links resolved: what is replaced */
	struct gp__tempfile *tmp; /* the new contents; NULL when written in place */
	int fd;             /* written in place: the target's descriptor, owned by fp once set */
	FILE *fp;           /* written in place: a stream on fd */
	int failed;         /* errno value of a failed write, 0 none */
	struct gp__gzw *gz; /* a NAME.gz: the compressor, NULL otherwise */
	FILE *gzfp;         /* with gz: the stream callers write, into gz */
};

static void lockfile_free(struct gp__lockfile *lk)
{
	gp__gzw_free(lk->gz);
	gp__free(lk->path);
	gp__free(lk->target);
	gp__free(lk);
}

/*
 * The file @p path names once its symbolic links are followed, malloc'd in
 * *@p out: a link's relative target is taken from the link's directory. A
 * dangling link gives the file it would create. @return 0, or an errno value
 * (ELOOP: too many links, ENOMEM).
 */
static int resolve_links(const char *path, char **out)
{
	char *cur = gp__strdup(path), link[PATH_MAX];
	int depth;

	*out = NULL;
	if (!cur)
		return ENOMEM;
	for (depth = 0;; depth++) {
		ssize_t n = readlink(cur, link, sizeof(link));
		const char *slash;
		size_t dirlen;
		char *next;

		if (n < 0)
			break; /* not a link (EINVAL), or nothing there yet: cur is the file */
		if ((size_t)n >= sizeof(link) || depth == MAX_LINKS) {
			gp__free(cur);
			return (size_t)n >= sizeof(link) ? ENAMETOOLONG : ELOOP;
		}
		slash = strrchr(cur, '/');
		dirlen = link[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
		if (!(next = gp__malloc(dirlen + (size_t)n + 1))) {
			gp__free(cur);
			return ENOMEM;
		}
		memcpy(next, cur, dirlen);
		memcpy(next + dirlen, link, (size_t)n);
		next[dirlen + (size_t)n] = 0;
		gp__free(cur);
		cur = next;
	}
	*out = cur;
	return 0;
}

/* Sets errno to @p e and returns gp__error(@p status, "cannot write 'PATH': WHY"). */
static int fail(int status, int e, const char *path, const char *why)
{
	gp__error(status, "cannot write '%s': %s", path, why ? why : strerror(e));
	errno = e;
	return status;
}

/* A device, a FIFO or a socket: opened for writing as it is. */
static int hold_in_place(struct gp__lockfile *lk)
{
	lk->fd = open(lk->target, O_WRONLY | O_CLOEXEC);
	if (lk->fd < 0)
		return fail(GP_EIO, errno, lk->path, NULL);
	return 0;
}

static int hold_file(const char *path, struct gp__lockfile **out)
{
	struct gp__lockfile *lk;
	const char *slash;
	struct stat st;
	bool exists;
	int rc, e;

	if (!out)
		return fail(GP_EINVAL, EINVAL, "", "gp__lockfile_hold: NULL argument");
	*out = NULL;
	if (!path || !*path)
		return gp__error(GP_EINVAL, "no output file name");
	slash = strrchr(path, '/');
	if (!*(slash ? slash + 1 : path))
		return fail(GP_EINVAL, EINVAL, path, "not a file name");
	if (!(lk = gp__calloc(1, sizeof(*lk))))
		return fail(GP_ENOMEM, ENOMEM, path, "out of memory");
	lk->fd = -1;
	if (!(lk->path = gp__strdup(path))) {
		rc = fail(GP_ENOMEM, ENOMEM, path, "out of memory");
		goto out_free;
	}
	if ((e = resolve_links(path, &lk->target))) {
		rc = fail(e == ENOMEM ? GP_ENOMEM : GP_EIO, e, path, NULL);
		goto out_free;
	}

	/* what is there now; a failed stat (ENOENT, ENOTDIR) leaves it to the create below */
	exists = stat(lk->target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		rc = fail(GP_EINVAL, EISDIR, path, "it is a directory");
		goto out_free;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		if ((rc = hold_in_place(lk)))
			goto out_free;
		*out = lk;
		return 0;
	}
	/*
	 * rename(2) needs only the directory to be writable: it would replace a
	 * file its owner made read-only. access() says no for another user's
	 * file too; root is told yes for any file, hence the mode bits as well.
	 */
	e = !exists                                         ? 0
	    : !(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) ? EACCES
	    : access(lk->target, W_OK)                      ? errno
	                                                    : 0;
	if (e) {
		rc = fail(GP_EIO, e, path,
		          e == EACCES ? "Permission denied (the file is read-only)" : NULL);
		goto out_free;
	}
	if ((rc = gp__tempfile_create(lk->target, &lk->tmp))) {
		e = errno;
		if (rc == GP_EIO && strcmp(path, lk->target))
			gp__error_prefix("cannot write '%s'", path);
		errno = e;
		goto out_free;
	}
	if (exists && fchmod(gp__tempfile_fd(lk->tmp), st.st_mode & 07777)) {
		e = errno;
		gp__tempfile_delete(lk->tmp);
		rc = fail(GP_EIO, e, path, NULL);
		goto out_free;
	}
	*out = lk;
	return 0;

out_free:
	e = errno;
	if (lk->fd >= 0)
		close(lk->fd);
	lockfile_free(lk);
	errno = e;
	return rc;
}

/* The stream of the file itself, opened on first use. @return 0 or an errno value. */
static int raw_stream(struct gp__lockfile *lk, FILE **out)
{
	if (lk->tmp)
		return gp__tempfile_stream(lk->tmp, out);
	if (!lk->fp && !(lk->fp = fdopen(lk->fd, "w")))
		return errno ? errno : ENOMEM;
	*out = lk->fp;
	return 0;
}

/* the compressor's output: the file's stream */
static int gz_out(const void *p, size_t n, void *user)
{
	struct gp__lockfile *lk = user;
	FILE *f;
	int e;

	if ((e = raw_stream(lk, &f))) {
		errno = e;
		return -1;
	}
	errno = 0;
	if (fwrite(p, 1, n, f) != n) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* the cookie stream's write: into the compressor (0 is stdio's "error") */
static ssize_t gz_cookie_write(void *cookie, const char *p, size_t n)
{
	struct gp__lockfile *lk = cookie;
	int e = lk->failed ? lk->failed : gp__gzw_write(lk->gz, p, n);

	if (e) {
		lk->failed = e;
		errno = e;
		return 0;
	}
	return (ssize_t)n;
}

/* The stream callers write, opened on first use. @return 0 or an errno value. */
static int open_stream(struct gp__lockfile *lk, FILE **out)
{
	if (!lk->gz)
		return raw_stream(lk, out);
	if (!lk->gzfp) {
		cookie_io_functions_t io = { .write = gz_cookie_write };

		if (!(lk->gzfp = fopencookie(lk, "w", io)))
			return errno ? errno : ENOMEM;
	}
	*out = lk->gzfp;
	return 0;
}

/* Ends the compressed stream of a NAME.gz. @return 0 or the errno value of the first failure. */
static int finish_gz(struct gp__lockfile *lk)
{
	int e = 0;

	if (!lk->gz)
		return 0;
	if (lk->gzfp) {
		errno = 0;
		if (fclose(lk->gzfp))
			e = errno ? errno : EIO;
		lk->gzfp = NULL;
	}
	if (!e && !lk->failed)
		e = gp__gzw_finish(lk->gz);
	return lk->failed ? lk->failed : e;
}

int gp__lockfile_hold(const char *path, struct gp__lockfile **out)
{
	int rc, e;

	if ((rc = hold_file(path, out)) || !gp__gzw_wanted(path))
		return rc;
	if ((e = gp__gzw_new(gz_out, *out, &(*out)->gz))) {
		gp__lockfile_rollback(*out);
		*out = NULL;
		return fail(e == ENOMEM ? GP_ENOMEM : GP_ENOTSUP, e, path,
		            e == ENOTSUP ? "this build has no gzip library" : NULL);
	}
	return 0;
}

int gp__lockfile_stream(struct gp__lockfile *lk, FILE **out)
{
	int e = open_stream(lk, out);

	if (e) {
		*out = NULL;
		return fail(e == ENOMEM ? GP_ENOMEM : GP_EIO, e, lk->path, NULL);
	}
	return 0;
}

int gp__lockfile_write(struct gp__lockfile *lk, const void *data, size_t len)
{
	FILE *f;
	int e;

	if (lk->failed)
		return fail(GP_EIO, lk->failed, lk->path, NULL);
	/* through the stream, so that writes mix with a caller's stdio ones in order */
	if ((e = open_stream(lk, &f))) {
		lk->failed = e;
		return fail(GP_EIO, e, lk->path, NULL);
	}
	errno = 0;
	if (len && fwrite(data, 1, len, f) != len) {
		lk->failed = errno ? errno : EIO;
		return fail(GP_EIO, lk->failed, lk->path, NULL);
	}
	return 0;
}

/* Closes a file written in place. @return 0 or the errno value of the first failure. */
static int close_in_place(struct gp__lockfile *lk)
{
	int e = 0;

	if (lk->fp) {
		errno = 0;
		if (ferror(lk->fp) || fflush(lk->fp))
			e = errno ? errno : EIO;
		if (fclose(lk->fp) && !e)
			e = errno ? errno : EIO;
	} else if (lk->fd >= 0 && close(lk->fd)) {
		e = errno;
	}
	lk->fp = NULL;
	lk->fd = -1;
	return e;
}

int gp__lockfile_commit(struct gp__lockfile *lk)
{
	int e, rc = 0;

	if (!lk)
		return fail(GP_EINVAL, EINVAL, "", "gp__lockfile_commit: NULL argument");
	if ((e = finish_gz(lk)))
		lk->failed = e;
	if (lk->tmp) {
		e = lk->failed ? lk->failed : gp__tempfile_close(lk->tmp, true);
		if (e)
			gp__tempfile_delete(lk->tmp);
		else
			e = gp__tempfile_rename(lk->tmp, lk->target);
		lk->tmp = NULL;
	} else {
		e = close_in_place(lk);
		if (lk->failed)
			e = lk->failed;
	}
	if (e)
		rc = fail(GP_EIO, e, lk->path, NULL);
	lockfile_free(lk);
	if (e)
		errno = e;
	return rc;
}

void gp__lockfile_rollback(struct gp__lockfile *lk)
{
	int saved = errno;

	if (!lk)
		return;
	if (lk->gzfp) {
		lk->failed = ECANCELED; /* what is buffered goes nowhere */
		fclose(lk->gzfp);
	}
	if (lk->tmp)
		gp__tempfile_delete(lk->tmp);
	else
		close_in_place(lk);
	lockfile_free(lk);
	errno = saved;
}

int gp_file_write_atomic(const char *path, const void *data, size_t len)
{
	struct gp__lockfile *lk;
	int rc;

	if ((rc = gp__lockfile_hold(path, &lk)))
		return rc;
	if ((rc = gp__lockfile_write(lk, data, len))) {
		gp__lockfile_rollback(lk);
		return rc;
	}
	return gp__lockfile_commit(lk);
}

/* gp_file_write_atomic_with()'s sink: the lockfile's own message kept for the caller */
struct json_sink {
	struct gp__lockfile *lk;
	int rc;
	char err[512];
};

static int write_piece(const void *p, size_t n, void *user)
{
	struct json_sink *s = user;

	if (!(s->rc = gp__lockfile_write(s->lk, p, n)))
		return 0;
	snprintf(s->err, sizeof(s->err), "%s", gp_last_error());
	return -1;
}

int gp_file_write_atomic_with(const char *path, gp_produce_fn produce, void *user)
{
	struct json_sink s = { .rc = 0 };
	int rc, e;

	if (!produce)
		return gp__error(GP_EINVAL, "nothing to write to %s", path ? path : "(null)");
	if ((rc = gp__lockfile_hold(path, &s.lk)))
		return rc;
	if ((rc = produce(user, write_piece, &s))) {
		e = errno;
		if (s.rc)
			rc = gp__error(s.rc, "%s", s.err);
		gp__lockfile_rollback(s.lk);
		errno = e;
		return rc;
	}
	return gp__lockfile_commit(s.lk);
}

/* gp_file_write_atomic_json()'s document */
struct json_doc {
	const struct gp_value *v;
	unsigned flags;
};

static int produce_json(void *user, gp_write_fn write, void *wuser)
{
	const struct json_doc *d = user;

	return gp_value_write_json(d->v, d->flags, write, wuser);
}

int gp_file_write_atomic_json(const char *path, const struct gp_value *v, unsigned flags)
{
	struct json_doc d = { v, flags };

	if (!v)
		return gp__error(GP_EINVAL, "no value to write to %s", path ? path : "(null)");
	return gp_file_write_atomic_with(path, produce_json, &d);
}
