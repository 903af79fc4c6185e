/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - the report parts that come from a `gpuprof run` directory rather
 * than from one trace: the top-level "metrics" object (the metrics timeline,
 * summarised and downsampled) and the top-level "tags" object. Called by
 * gp_analyze_paths() once the ranks are built; documented in
 * docs/report-schema.md.
 */
#ifndef GP_ANALYZE_METRICS_H
#define GP_ANALYZE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprof/value.h"
#include "source/metrics.h"
#include "source/source.h"

/** Points per series in the report's "metrics" at most. */
#define GP_METRICS_MAX_POINTS 500

/**
 * Appends to array @p points at most @p max_points (at least 2) points
 * [t_ns, value] of the series (@p t, @p v, @p n): every sample when n <=
 * max_points; else max_points / 2 bins of consecutive samples, each giving
 * its lowest and its highest known value at their own times (in time order;
 * one point when they are the same sample), or [t, null] for a bin with no
 * known value. @return 0, GP_ENOMEM or GP_EINVAL.
 */
int gp__metrics_points(const int64_t *t, const double *v, size_t n, size_t max_points,
                       struct gp_value *points);

/**
 * The report's "metrics" object for timeline @p m read from @p file (the
 * path as given), into *@p out. @return 0 or GP_ENOMEM.
 */
int gp__metrics_object(const struct gp_metrics_timeline *m, const char *file,
                       struct gp_value **out);

/**
 * Sets the report's "tags" (always, an object: the tags of the run.json of
 * every run directory among @p srcs, first one first) and "metrics" (only
 * when @p srcs holds a metrics timeline, a run directory's metrics.jsonl or
 * one typed: the first; a timeline that cannot be read gives {file, error}).
 * @return 0 or GP_ENOMEM.
 */
int gp__an_run_dirs(struct gp_value *report, const struct gp__srcs *srcs);

/**
 * Adds to the report's "tags" object the string members of @p tags (a
 * capture's META tags) whose keys it lacks. NULL or a non-object @p tags is
 * a no-op. @return 0 or GP_ENOMEM.
 */
int gp__tags_merge(struct gp_value *report, const struct gp_value *tags);

#endif
