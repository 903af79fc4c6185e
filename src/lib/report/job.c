/* SPDX-License-Identifier: MIT */
/*
 * job.c - the job's view on the page of many ranks: `gpuprof report` of the
 * traces or reports of a distributed job draws each rank's analysis, and with
 * it the aggregate of its ranks (what `gpuprof aggregate --json` writes of the
 * same inputs: stragglers, the wait heatmap, the collectives, the per-rank
 * table), which the page shows as the view "all ranks".
 *
 * The aggregate is made from the analysis the page already holds (the rank
 * objects with their collectives ledgers): nothing is read or analysed
 * again. An input it cannot
 * aggregate (ranks of other jobs, reports without the collectives ledger)
 * leaves the page as it was, with the reason in the model's "aggregate_note":
 * the page of the ranks never fails for the job's view.
 */
#include <string.h>

#include "aggregate/aggregate-doc.h"
#include "gpuprof/aggregate.h"
#include "gpuprof/report.h"
#include "util/error.h"
#include "report-int.h"

/* the number of rank objects of the analyze document of @p page */
static size_t ranks_of(const struct gp_value *page)
{
	return gp_value_len(gp_obj_get(gp_obj_get(page, "doc"), "ranks"));
}

int gp__report_job(struct gp_value *page, const struct gp_report_opts *o)
{
	const char *kind = gp_value_get_str(gp_obj_get(page, "kind"));
	struct gp_aggregate_opts ao;
	struct gp_value *agg = NULL;
	int rc;

	/* one rank, --rank, or another document: nothing to aggregate */
	if (!kind || strcmp(kind, "analyze") != 0 || o->rank >= 0 || ranks_of(page) < 2)
		return 0;
	gp_aggregate_opts_init(&ao);
	ao.threads = o->threads;
	rc = gp__aggregate_doc(gp_obj_get(page, "doc"), &ao, &agg);
	if (rc == GP_ENOMEM)
		return rc;
	if (rc)
		return gp_obj_set_str(page, "aggregate_note", gp_last_error());
	/* gp_obj_set takes agg over, also when it fails */
	return gp_obj_set(page, "aggregate", agg);
}
