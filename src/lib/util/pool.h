/* SPDX-License-Identifier: MIT */
/*
 * pool.h - n independent jobs run by a few threads, each thread taking the
 * next job not yet taken until none is left: the one pool of the commands
 * that read many files at once (analyze's traces, aggregate's reports).
 */
#ifndef GP_UTIL_POOL_H
#define GP_UTIL_POOL_H

#include <stddef.h>

/**
 * Runs @p fn(@p arg, i) once for every i in [0, @p n) on min(@p threads, n)
 * threads, and returns when all have returned. One thread (or none that
 * could be started) runs them all in the caller's, in order. @p fn must be
 * thread-safe; it reports failures through what @p arg points to.
 */
void gp__pool_run(size_t n, size_t threads, void (*fn)(void *arg, size_t i), void *arg);

#endif
