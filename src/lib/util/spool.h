/* SPDX-License-Identifier: MIT */
/*
 * spool.h - texts written in any order, by any thread, and read back in the
 * order a caller chooses, kept in an unnamed temporary file rather than in
 * memory (util/spool.c): what `analyze --json` on a directory of ranks holds
 * until every rank is known and their order with it.
 */
#ifndef GP_UTIL_SPOOL_H
#define GP_UTIL_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprof/gpuprof.h"

struct gp__spool;

/** Where one text lies in a spool. */
struct gp__spool_span {
	uint64_t off, len;
};

/**
 * An empty spool: a file in $TMPDIR (else /tmp) that has no name, so that
 * nothing is left behind whatever ends the process.
 * @return 0, GP_EIO (errno and gp_last_error() say why), GP_ENOMEM.
 */
int gp__spool_open(struct gp__spool **out);

/**
 * Appends the @p n bytes at @p p; *@p span receives where they went.
 * Thread-safe: texts put at once by several threads do not mix.
 * @return 0, GP_EIO (a full disk: errno ENOSPC), GP_ELIMIT.
 */
int gp__spool_put(struct gp__spool *s, const void *p, size_t n, struct gp__spool_span *span);

/**
 * Hands the text of @p span to @p write, in pieces of up to 64 KiB.
 * @return 0, GP_EIO (a failed read, or @p write failed: errno as it left it).
 */
int gp__spool_copy(struct gp__spool *s, const struct gp__spool_span *span, gp_write_fn write,
                   void *user);

/** Closes @p s: its file goes with it. NULL is a no-op; errno is kept. */
void gp__spool_close(struct gp__spool *s);

#endif
