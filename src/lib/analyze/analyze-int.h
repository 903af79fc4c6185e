/* SPDX-License-Identifier: MIT */
/*
 * analyze-int.h - the analyses of one rank. Each adds its section(s) to the
 * rank object @p r of the report; they run in the order listed, and
 * findings runs last because it reads the sections the others wrote.
 * Every section is documented in docs/report-schema.md.
 */
#ifndef GP_ANALYZE_INT_H
#define GP_ANALYZE_INT_H

#include "ctx.h"
#include "gpuprof/value.h"

/* overview.c: "overview" (span, devices, streams, event counts, steps, trace info) */
int gp__an_overview(const struct gp__actx *c, struct gp_value *r);
/* gpu.c: "gpu" (temporal, kernel types, overlap, idle breakdown per stream) */
int gp__an_gpu(const struct gp__actx *c, struct gp_value *r);
/* timeline.c: "timeline" (GPU busy time per device and stream in 200 bins over the span,
 * null without GPU activity) */
int gp__an_timeline(const struct gp__actx *c, struct gp_value *r);
/* launches.c: "launches" (launch delay, queue depth, short kernels) */
int gp__an_launches(const struct gp__actx *c, struct gp_value *r);
/* steps.c: "steps", "step_stats", "gpu_utilization" (utilisation, SM efficiency, occupancy
 * over the steps window, TensorBoard-plugin definitions) */
int gp__an_steps(const struct gp__actx *c, struct gp_value *r);
/* summaries.c: "kernels", "api_calls", "memory_ops", "annotations", "cpu_ops" */
int gp__an_summaries(const struct gp__actx *c, struct gp_value *r);
/* summaries.c: applies --top (opts.top rows per table, the rest summed in
 * "<table>_omitted") after findings has read the full tables */
int gp__summaries_trim(struct gp_value *r, uint32_t top);
/* counters.c: "counters" (the counter samples of a capture, per name) */
int gp__an_counters(const struct gp__actx *c, struct gp_value *r);
/* memory.c: "memory" (reads the incomplete flags of r["steps"], so runs after steps.c) */
int gp__an_memory(const struct gp__actx *c, struct gp_value *r);
/* collectives.c: "host" and "collectives" (the ledger of collectives, for aggregate) */
int gp__an_collectives(const struct gp__actx *c, struct gp_value *r);
/* critpath.c: "critical_path" (HTA's critical path per step: the longest chain of CPU ops,
 * launches, kernels and waits, broken down by what bounds it) */
int gp__an_critpath(const struct gp__actx *c, struct gp_value *r);
/* modules.c: "modules" (the nn.Module tree and per-class table, host and GPU time) */
int gp__an_modules(const struct gp__actx *c, struct gp_value *r);
/* roofline.c: "roofline" (per-op FLOPs and bytes from the recorded shapes against the
 * device's peaks: achieved TFLOP/s and TB/s, roofline %, headroom, MFU) */
int gp__an_roofline(const struct gp__actx *c, struct gp_value *r);
/* findings-run.c: "findings" (reads the sections above) */
int gp__an_findings(const struct gp__actx *c, struct gp_value *r);

#endif
