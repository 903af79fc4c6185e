/* SPDX-License-Identifier: MIT */
/*
 * gzwrite.h - a streaming gzip compressor (util/gzwrite.c) for the atomic
 * file writer (util/lockfile.c), which compresses every file whose name ends
 * in ".gz". Bytes go in through gp__gzw_write(); compressed bytes come out,
 * in order, through the output function given to gp__gzw_new(). One
 * struct gp__gzw is used by one thread at a time.
 *
 *     struct gp__gzw *z;
 *     if ((e = gp__gzw_new(out, user, &z)))
 *             return e;
 *     e = gp__gzw_write(z, data, len);
 *     if (!e)
 *             e = gp__gzw_finish(z);
 *     gp__gzw_free(z);
 */
#ifndef GP_UTIL_GZWRITE_H
#define GP_UTIL_GZWRITE_H

#include <stdbool.h>
#include <stddef.h>

struct gp__gzw;

/** Receives compressed bytes; @return 0, or -1 with errno set. */
typedef int (*gp__gzw_out_fn)(const void *p, size_t n, void *user);

/**
 * Starts a gzip stream written through @p out (with @p user, which must
 * outlive the compressor).
 * @return 0 with the compressor in *@p z (the caller's, freed by
 *         gp__gzw_free()), or an errno value: ENOMEM, ENOTSUP (a build
 *         without a gzip library).
 */
int gp__gzw_new(gp__gzw_out_fn out, void *user, struct gp__gzw **z);

/**
 * Compresses @p n bytes of @p p (borrowed). After a failure every call
 * fails the same way. @return 0 or an errno value (the output's, EIO).
 */
int gp__gzw_write(struct gp__gzw *z, const void *p, size_t n);

/** Ends the stream: the rest of the compressed bytes and the trailer. @return 0 or an errno value.
 */
int gp__gzw_finish(struct gp__gzw *z);

/** Frees @p z; NULL is a no-op. */
void gp__gzw_free(struct gp__gzw *z);

/** Whether a file named @p path is written compressed: its name ends in ".gz". */
bool gp__gzw_wanted(const char *path);

#endif
