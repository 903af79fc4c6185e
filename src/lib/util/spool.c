/* SPDX-License-Identifier: MIT */
/*
 * spool.c - texts kept in an unnamed temporary file (spool.h).
 *
 * The file is made with O_TMPFILE where the file system has it, else by
 * mkostemp() and removed at once: either way it has no name, and the kernel
 * frees it when the descriptor closes, however the process ends. A put
 * reserves its bytes with one atomic add and writes them with pwrite(), so
 * that threads need no lock and no text is cut by another.
 */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

#define COPY_PIECE (64 * 1024)

struct gp__spool {
	int fd;
	_Atomic uint64_t end; /* the bytes reserved so far */
};

/* the directory temporary files go in: $TMPDIR when it is an absolute path, else /tmp */
static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && d[0] == '/' && strlen(d) < PATH_MAX - 32 ? d : "/tmp";
}

static int open_unnamed(const char *dir)
{
	char path[PATH_MAX];
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
#endif
	snprintf(path, sizeof(path), "%s/.gpuprof-spool.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0 && unlink(path) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int gp__spool_open(struct gp__spool **out)
{
	struct gp__spool *s;
	const char *dir = tmp_dir();
	int e;

	*out = NULL;
	s = gp__calloc(1, sizeof(*s));
	if (!s)
		return gp__error(GP_ENOMEM, "out of memory");
	s->fd = open_unnamed(dir);
	if (s->fd < 0) {
		e = errno;
		gp__free(s);
		errno = e;
		return gp__error(GP_EIO, "cannot make a temporary file in %s: %s", dir,
		                 strerror(e));
	}
	atomic_init(&s->end, 0);
	*out = s;
	return 0;
}

int gp__spool_put(struct gp__spool *s, const void *p, size_t n, struct gp__spool_span *span)
{
	const char *c = p;
	uint64_t off;
	size_t done = 0;

	if ((uint64_t)n > (uint64_t)INT64_MAX / 4)
		return gp__error(GP_ELIMIT, "a text of %zu bytes is too long to spool", n);
	off = atomic_fetch_add(&s->end, (uint64_t)n);
	if (off > (uint64_t)INT64_MAX / 2)
		return gp__error(GP_ELIMIT, "the temporary file is too long");
	while (done < n) {
		ssize_t w = pwrite(s->fd, c + done, n - done, (off_t)(off + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;

			errno = e;
			return gp__error(GP_EIO, "cannot write the temporary file: %s",
			                 strerror(e));
		}
		done += (size_t)w;
	}
	span->off = off;
	span->len = (uint64_t)n;
	return 0;
}

int gp__spool_copy(struct gp__spool *s, const struct gp__spool_span *span, gp_write_fn write,
                   void *user)
{
	char *buf;
	uint64_t done = 0;
	int rc = 0, e;

	if (!span->len)
		return 0;
	buf = gp__malloc(COPY_PIECE);
	if (!buf)
		return gp__error(GP_ENOMEM, "out of memory");
	while (done < span->len) {
		size_t want =
		    span->len - done < COPY_PIECE ? (size_t)(span->len - done) : COPY_PIECE;
		ssize_t r = pread(s->fd, buf, want, (off_t)(span->off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;
			rc = gp__error(GP_EIO, "cannot read the temporary file back: %s",
			               r < 0 ? strerror(e) : "it is shorter than written");
			errno = e;
			break;
		}
		if (write(buf, (size_t)r, user)) {
			e = errno ? errno : EIO;
			rc = gp__error(GP_EIO, "cannot write the text: %s", strerror(e));
			errno = e;
			break;
		}
		done += (uint64_t)r;
	}
	e = errno;
	gp__free(buf);
	errno = e;
	return rc;
}

void gp__spool_close(struct gp__spool *s)
{
	int e = errno;

	if (!s)
		return;
	close(s->fd);
	gp__free(s);
	errno = e;
}
