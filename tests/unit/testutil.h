/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers shared by the unit tests: cmocka includes and a
 * builder for small synthetic traces with hand-computable answers.
 */
#ifndef GP_TESTUTIL_H
#define GP_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/analyze-int.h"
#include "trace/model.h"
#include "util/error.h" /* gp__test_fail_alloc_after */

/** The next number of the xorshift64 sequence in *@p state (not 0), for generated inputs. */
uint64_t tu_xorshift(uint64_t *state);

/** A new empty trace (asserts on failure). */
struct gp_trace *tu_trace_new(void);
/**
 * Adds an event: times in ns; @p track_pid/@p track_tid name the track
 * (for GPU events pass device and stream). Returns the event index.
 */
size_t tu_add(struct gp_trace *t, enum gp_kind kind, const char *name, int64_t pid, int64_t tid,
              int64_t ts, int64_t dur);
/** Adds a kernel on (device, stream) with correlation @p corr. */
size_t tu_kernel(struct gp_trace *t, const char *name, int device, int64_t stream, int64_t ts,
                 int64_t dur, int64_t corr);
/** Adds a runtime call on thread (pid, tid) with correlation @p corr. */
size_t tu_runtime(struct gp_trace *t, const char *name, int64_t pid, int64_t tid, int64_t ts,
                  int64_t dur, int64_t corr);

/** Analyses @p t in full (gp_analyze_trace) under @p compat; asserts success. */
struct gp_value *tu_analyze(struct gp_trace *t, enum gp_compat compat);
/** Runs one analysis section @p fn over @p t (hta: --compat hta) into a new rank object. */
struct gp_value *tu_section(struct gp_trace *t, bool hta,
                            int (*fn)(const struct gp__actx *c, struct gp_value *r));
/**
 * Runs @p fn over @p t with the Nth allocation failing, N = 1, 2, ... until
 * a run passes: each failing run must return GP_ENOMEM (ASan: free nothing
 * twice, leak nothing). @return the allocations a passing run makes.
 */
long tu_section_torture(struct gp_trace *t, bool hta,
                        int (*fn)(const struct gp__actx *c, struct gp_value *r));
/** The number or string at @p path of a report tree; assert that it is there. */
int64_t tu_geti(const struct gp_value *r, const char *path);
double tu_getd(const struct gp_value *r, const char *path);
const char *tu_gets(const struct gp_value *r, const char *path);

/** Makes a new directory from @p tmpl ("/tmp/NAME.XXXXXX", filled in). @return 0 or -1. */
int tu_tmpdir_make(char *tmpl);
/** Removes directory @p dir and everything in it. @return 0 or -1. */
int tu_tmpdir_remove(const char *dir);
/** Writes @p text to @p dir/@p name (asserting that it can). */
void tu_write_file(const char *dir, const char *name, const char *text);

#endif
