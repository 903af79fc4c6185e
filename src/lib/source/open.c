/* SPDX-License-Identifier: MIT */
/*
 * open.c - gp_trace_open() and gp_trace_open_mem(): a trace of either kind
 * the model is read from, a Kineto JSON trace (kineto.c) or a capture
 * (capture.c, on the file mapped), told apart by the capture magic of the
 * first 8 bytes; and
 * gp__src_open_trace(), which opens a resolved input (source.h), standard
 * input included. The readers never look at each other's kind.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "gpuprof/trace.h"
#include "kineto.h"
#include "source.h"
#include "util/error.h"
#include "util/opts.h"

/* true when file @p path starts with the capture magic; false when not or unreadable */
static bool file_is_capture(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false; /* the Kineto reader reports it */
	yes = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	      gp__capture_sniff(magic, sizeof(magic));
	close(fd);
	return yes;
}

/* a capture file, mapped and read by capture.c */
static int capture_open_file(const char *path, const struct gp_open_opts *opts,
                             struct gp_trace **out)
{
	struct stat st;
	void *map;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		return gp__error(e == ENOENT ? GP_ENOENT : GP_EIO, "'%s': %s", path, strerror(e));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return gp__error(GP_EIO, "'%s': not a regular file", path);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return gp__error(GP_EIO, "%s: cannot map: %s", path, strerror(errno));
	rc = gp__capture_open_mem(map, (size_t)st.st_size, path, opts, out);
	munmap(map, (size_t)st.st_size);
	return rc;
}

GP_API int gp_trace_open(const char *path, const struct gp_open_opts *opts, struct gp_trace **out)
{
	if (!out)
		return gp__error(GP_EINVAL, "gp_trace_open: NULL argument");
	*out = NULL;
	if (!path)
		return gp__error(GP_EINVAL, "gp_trace_open: NULL path");
	if (file_is_capture(path))
		return capture_open_file(path, opts, out);
	return gp__kineto_open_file(path, opts, out);
}

GP_API int gp_trace_open_mem(const void *p, size_t n, const struct gp_open_opts *opts,
                             struct gp_trace **out)
{
	const char *name = NULL;

	if (!out)
		return gp__error(GP_EINVAL, "gp_trace_open_mem: NULL argument");
	*out = NULL;
	if (!p && n)
		return gp__error(GP_EINVAL, "gp_trace_open_mem: NULL buffer");
	if (gp__capture_sniff(p, n)) {
		if (opts && opts->size >= offsetof(struct gp_open_opts, name) + sizeof(opts->name))
			name = opts->name;
		return gp__capture_open_mem(p, n, name ? name : "<memory>", opts, out);
	}
	return gp__kineto_open_mem(p, n, opts, out);
}

int gp__src_open_trace(const struct gp__src *s, const struct gp_open_opts *opts,
                       struct gp_trace **out)
{
	struct gp_open_opts o = { .size = sizeof(o) };

	*out = NULL;
	if (!s->is_stdin) {
		if (s->kind == GP_SRC_CAPTURE)
			return capture_open_file(s->path, opts, out);
		return gp__kineto_open_file(s->path, opts, out);
	}
	GP__OPTS_COPY(&o, opts);
	o.name = "<stdin>";
	if (s->kind == GP_SRC_CAPTURE)
		return gp__capture_open_mem(s->mem, s->len, o.name, &o, out);
	return gp__kineto_open_mem(s->mem, s->len, &o, out);
}
