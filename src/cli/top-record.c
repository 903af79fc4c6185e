/* SPDX-License-Identifier: MIT */
/*
 * top-record.c - `gpuprof top --record FILE`: the metrics timeline as JSON
 * lines (docs/metrics-format.md, "gpuprof.metrics/1"): a header line, one
 * "gpuprof.sample/1" line per sample, and an end line with the counts. The
 * file is written as it goes (a crash keeps what was sampled) and synced at
 * the end; `run`, `analyze` and `report` read it. The format's writer is
 * the library's (struct gp_metrics_writer), which `gpuprof run` uses too.
 */
#include <stdio.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"
#include "top.h"

/* a sample into the timeline; a failure is printed here, while gp_last_error() is its own */
static int record_line(void *arg, const struct gp_sample *smp)
{
	if (gp_metrics_writer_add(arg, smp))
		return error("%s", gp_last_error());
	return 0;
}

int gp_top_record(struct gp_sampler *s, const struct gp_top_opts *o)
{
	struct gp_metrics_writer_opts wo = { .size = sizeof(wo), .watched_pid = o->pid };
	struct gp_metrics_writer *w;
	uint64_t n;

	if (gp_metrics_writer_open(o->record, s, &wo, &w))
		return error("%s", gp_last_error());
	if (gp_top_each_sample(s, o, record_line, w)) {
		/* what was written stays: the reader takes a timeline without its end line */
		gp_metrics_writer_free(w);
		return -1;
	}
	n = gp_metrics_writer_count(w);
	if (gp_metrics_writer_close(w, s))
		return error("%s", gp_last_error());
	fprintf(stderr, "gpuprof top: %llu samples written to '%s'\n", (unsigned long long)n,
	        o->record);
	return 0;
}
