/* SPDX-License-Identifier: MIT */
/*
 * export-int.h - library-internal entry points of export/ (chrome.c), for
 * export.c and the unit tests.
 */
#ifndef GP_EXPORT_INT_H
#define GP_EXPORT_INT_H

#include "gpuprof/export.h"

struct gp_metrics_timeline;

/**
 * Adds an already read metrics timeline (source/metrics.h) as counter
 * tracks; gp_chrome_writer_add_metrics() reads the file and calls this.
 * @p m is borrowed.
 */
int gp__chrome_writer_add_timeline(struct gp_chrome_writer *w, const struct gp_metrics_timeline *m);

/**
 * Says how many traces @p w will be given, before the first: with one (the
 * default), the first trace's top-level metadata (deviceProperties,
 * distributedInfo, ...) is the document's; with several, each trace's goes
 * to a "trace_metadata" event of its first process instead, since one top
 * level cannot describe several ranks. No effect once anything is written.
 */
void gp__chrome_writer_expect_traces(struct gp_chrome_writer *w, size_t n);

#endif
