/* SPDX-License-Identifier: MIT */
/*
 * critpath-queue.h - the stream queue lengths and event waits of the
 * critical path's per-rank tables (critpath-queue.c), for critpath-prep.c.
 */
#ifndef GP_ANALYZE_CRITPATH_QUEUE_H
#define GP_ANALYZE_CRITPATH_QUEUE_H

#include "critpath-int.h"

/**
 * Fills g->q (queue lengths, Q_UNKNOWN elsewhere) and g->syncsd (event
 * waits) from the links: @p gs[0..ngs) are the linked GPU-side events in
 * event order. Uses g->snode (all 0) as scratch and leaves it all 0.
 * @return 0, GP_ENOMEM.
 */
int gp__cp_streams(struct gp__cp *g, const uint32_t *gs, size_t ngs);

#endif
