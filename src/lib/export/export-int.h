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

#endif
