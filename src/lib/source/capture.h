/* SPDX-License-Identifier: MIT */
/*
 * capture.h - reading capture files (capfmt.h) into the trace model; called
 * by gp_trace_open() and gp_trace_open_mem() (open.c) when the content starts
 * with the capture magic.
 */
#ifndef GP_SOURCE_CAPTURE_H
#define GP_SOURCE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprof/trace.h"

/** true when @p p starts with the capture magic. */
bool gp__capture_sniff(const void *p, size_t n);

/**
 * Reads a whole capture in memory. Errors name @p name and the byte offset;
 * a capture cut inside a record is GP_ETRUNC unless opts->salvage.
 */
int gp__capture_open_mem(const void *p, size_t n, const char *name, const struct gp_open_opts *opts,
                         struct gp_trace **out);

/**
 * The META record (the process: pid, host, rank...) of the capture starting
 * at @p p[0..n) when its first record is one and lies whole in it, parsed
 * into *@p out; NULL otherwise (the reader says what is wrong). @return 0.
 */
int gp__capture_meta_peek(const void *p, size_t n, struct gp_value **out);

#endif
