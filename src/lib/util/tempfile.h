/* SPDX-License-Identifier: MIT */
/*
 * tempfile.h - the internal side of struct gp_tempfile (gpuprof.h): a stdio
 * stream on the temporary file, for writers that take a FILE *.
 */
#ifndef GP_UTIL_TEMPFILE_H
#define GP_UTIL_TEMPFILE_H

#include <stdio.h>

#include "gpuprof/gpuprof.h"

/**
 * Opens a stream on the temporary file @p t, owned by @p t: gp_tempfile_commit()
 * flushes and closes it, gp_tempfile_discard() closes it. Write through the
 * stream only, not through gp_tempfile_fd(), once it is open.
 * @return 0 with the stream in *@p out, or GP_EIO, GP_ENOMEM.
 */
int gp__tempfile_stream(struct gp_tempfile *t, FILE **out);

#endif
