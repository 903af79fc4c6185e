/* SPDX-License-Identifier: MIT */
/*
 * kineto.h - the Kineto (PyTorch profiler Chrome-trace JSON) reader's entry
 * points, for open.c, which decides an input's kind and calls the reader of
 * that kind; the reader itself never looks at other kinds.
 */
#ifndef GP_SOURCE_KINETO_H
#define GP_SOURCE_KINETO_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprof/trace.h"

/** Reads the Kineto trace file @p path (plain or gzip). Errors name the path and the offset. */
int gp__kineto_open_file(const char *path, const struct gp_open_opts *opts, struct gp_trace **out);

/** Reads a Kineto trace from @p p[0..n) (plain or gzip), named opts->name or "<memory>". */
int gp__kineto_open_mem(const void *p, size_t n, const struct gp_open_opts *opts,
                        struct gp_trace **out);

/*
 * Test hook (unit tests and the fuzzer, never the CLI): when non-zero, the
 * Kineto reader starts with a window of this many bytes instead of 8 MiB and
 * streams memory input through it instead of reading it in place, so every
 * refill and growth path runs on small inputs.
 */
extern size_t gp__kineto_test_window;

/*
 * Test hook (unit tests and the fuzzer): when true, the Kineto reader does
 * not use its key-segment memo (kineto-int.h), so a test can check that
 * results and errors are the same with it and without it.
 */
extern bool gp__kineto_no_memo;

#endif
