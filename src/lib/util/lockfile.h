/* SPDX-License-Identifier: MIT */
/*
 * lockfile.h - the one way gpuprof replaces a file (git's lockfile.h): hold
 * the file, write its new contents, then commit them (one rename over the
 * target) or roll back (the target stays as it was). A reader never sees half
 * a file, and no error, and no signal the program catches with
 * gp_tempfile_cleanup_signal(), leaves a temporary file behind.
 *
 * What "the file" is, decided once by gp__lockfile_hold():
 * - a symbolic link is followed: its target is replaced and the link stays;
 * - an existing file keeps its permission bits; a new one gets 0666 less the
 *   umask (which is never changed);
 * - an existing file without write permission (chmod a-w, or not writable by
 *   this user) is refused: "cannot write 'PATH': Permission denied";
 * - a directory is refused; a device, FIFO or socket (`-o /dev/null`,
 *   `-o /dev/stdout`) is written in place, never replaced;
 * - a path ending in ".gz" is written gzip-compressed (util/gzwrite.h): what
 *   gp__lockfile_write() and the stream of gp__lockfile_stream() take is
 *   compressed on its way to the file.
 *
 *     struct gp__lockfile *lk;
 *     if ((rc = gp__lockfile_hold(path, &lk)))
 *             return rc;
 *     if ((rc = gp__lockfile_write(lk, data, len))) {
 *             gp__lockfile_rollback(lk);
 *             return rc;
 *     }
 *     return gp__lockfile_commit(lk);
 *
 * or the public gp_file_write_atomic() (gpuprof/gpuprof.h), defined in
 * lockfile.c, for the three steps at once. Every function
 * here that fails sets gp_last_error() (naming the path as given) and leaves
 * errno at the cause (EACCES, ENOSPC, ...). One struct gp__lockfile is used
 * by one thread at a time; different ones on different threads are fine.
 */
#ifndef GP_UTIL_LOCKFILE_H
#define GP_UTIL_LOCKFILE_H

#include <stddef.h>
#include <stdio.h>

struct gp__lockfile;

/**
 * Holds @p path for replacing: checks it as above and creates the temporary
 * file `.NAME.tmp.XXXXXX` beside the file it resolves to (util/tempfile.h).
 * @param path the file to replace (borrowed; copied)
 * @param out  the held file, owned by the caller until gp__lockfile_commit()
 *             or gp__lockfile_rollback(); NULL on error
 * @return 0; GP_EINVAL (no file name, a directory), GP_EIO (read-only, cannot
 *         create the temporary file), GP_ENOMEM.
 */
int gp__lockfile_hold(const char *path, struct gp__lockfile **out);

/**
 * Appends @p len bytes to the new contents. After a failure the held file is
 * marked failed: gp__lockfile_commit() then rolls back.
 * @return 0 or GP_EIO.
 */
int gp__lockfile_write(struct gp__lockfile *lk, const void *data, size_t len);

/**
 * A stdio stream for the new contents, owned by @p lk (commit and rollback
 * close it), for writers that take a FILE *. Once it is open, write through
 * it only. @return 0 with the stream in *@p out, or GP_EIO, GP_ENOMEM.
 */
int gp__lockfile_stream(struct gp__lockfile *lk, FILE **out);

/**
 * Flushes and syncs the new contents and renames them over the target (a
 * file written in place is only closed). On any failure, an earlier write's
 * included, the temporary file is removed and the target left as it was.
 * Frees @p lk in every case.
 * @return 0 or GP_EIO.
 */
int gp__lockfile_commit(struct gp__lockfile *lk);

/** Removes the temporary file and frees @p lk; NULL is a no-op. errno is kept. */
void gp__lockfile_rollback(struct gp__lockfile *lk);

#endif
