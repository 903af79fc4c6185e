/* SPDX-License-Identifier: MIT */
/*
 * tempfile.h - registered temporary files (util/tempfile.c), the layer under
 * util/lockfile.h: a file `.NAME.tmp.XXXXXX` beside a path, listed in a
 * process-wide registry for as long as it exists, so that
 * gp_tempfile_cleanup_signal() (gpuprof.h) can remove it from a signal
 * handler. Write files through util/lockfile.h; only it uses this header.
 *
 * One struct gp__tempfile is used by one thread at a time; the registry is
 * thread-safe. Every function here keeps errno meaningful on failure.
 */
#ifndef GP_UTIL_TEMPFILE_H
#define GP_UTIL_TEMPFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuprof/gpuprof.h"

struct gp__tempfile;

/**
 * Creates an empty file `.BASE.tmp.XXXXXX` in the directory of @p beside
 * (whose last component is BASE), with the mode of a new file (0666 less the
 * umask, which is never changed) and close-on-exec, and registers it.
 * @param beside the path the file is made beside (borrowed)
 * @param out    the temporary file (owned by the caller until
 *               gp__tempfile_rename() or gp__tempfile_delete())
 * @return 0; GP_EINVAL when @p beside names no file ("dir/"), GP_EIO when the
 *         file cannot be created, GP_ENOMEM; errno and gp_last_error() say why.
 */
int gp__tempfile_create(const char *beside, struct gp__tempfile **out);

/** @return the descriptor of @p t (-1 once closed); it belongs to @p t. */
int gp__tempfile_fd(const struct gp__tempfile *t);

/** @return the path of @p t; it belongs to @p t. */
const char *gp__tempfile_path(const struct gp__tempfile *t);

/**
 * A stdio stream on @p t, owned by @p t (gp__tempfile_close() closes it).
 * Write through the stream only, not through the descriptor, once it is open.
 * @return 0 with the stream in *@p out, or an errno value.
 */
int gp__tempfile_stream(struct gp__tempfile *t, FILE **out);

/**
 * Closes the stream or the descriptor of @p t, first flushing and syncing
 * it to the disk when @p sync. The file stays, registered.
 * @return 0, or the errno value of the first failure.
 */
int gp__tempfile_close(struct gp__tempfile *t, bool sync);

/**
 * Renames the (closed) file of @p t over @p target and frees @p t; when the
 * rename fails the file is removed instead. @return 0 or rename's errno value.
 */
int gp__tempfile_rename(struct gp__tempfile *t, const char *target);

/** Closes and removes the file of @p t and frees @p t; NULL is a no-op. errno is kept. */
void gp__tempfile_delete(struct gp__tempfile *t);

#endif
