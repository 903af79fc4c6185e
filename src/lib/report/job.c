/* SPDX-License-Identifier: MIT */
/*
 * job.c - the job's view on the page of many ranks: `gpuprof report` of the
 * traces or reports of a distributed job draws each rank's analysis, and with
 * it the aggregate of its ranks (what `gpuprof aggregate --json` writes of the
 * same inputs: stragglers, the wait heatmap, the collectives, the per-rank
 * table), which the page shows as the view "all ranks".
 *
 * The aggregate is made by gp_aggregate_paths() of the same paths: reports are
 * read again (small), traces analysed again, in parallel. An input it cannot
 * aggregate (ranks of other jobs, reports without the collectives ledger)
 * leaves the page as it was, with the reason in the model's "aggregate_note":
 * the page of the ranks never fails for the job's view.
 */
#include <string.h>

#include "gpuprof/aggregate.h"
#include "gpuprof/report.h"
#include "util/error.h"
#include "report-int.h"

/* the number of rank objects of the analyze document of @p page */
static size_t ranks_of(const struct gp_value *page)
{
	return gp_value_len(gp_obj_get(gp_obj_get(page, "doc"), "ranks"));
}

int gp__report_job(struct gp_value *page, const char *const *paths, size_t n,
                   const struct gp_report_opts *o)
{
	const char *kind = gp_value_get_str(gp_obj_get(page, "kind"));
	struct gp_aggregate_opts ao;
	struct gp_value *agg = NULL;
	size_t i;
	int rc;

	/* one rank, --rank, or another document: nothing to aggregate */
	if (!kind || strcmp(kind, "analyze") != 0 || o->rank >= 0 || ranks_of(page) < 2)
		return 0;
	/* standard input cannot be read twice */
	for (i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0)
			return gp_obj_set_str(
			    page, "aggregate_note",
			    "the ranks came on standard input, which is read once: "
			    "run `gpuprof aggregate` on them for the job's view");
	gp_aggregate_opts_init(&ao);
	ao.threads = o->threads;
	ao.analyze.threads = o->threads;
	ao.analyze.salvage = o->salvage;
	rc = gp_aggregate_paths(paths, n, &ao, &agg);
	if (rc == GP_ENOMEM)
		return rc;
	if (rc)
		return gp_obj_set_str(page, "aggregate_note", gp_last_error());
	/* gp_obj_set takes agg over, also when it fails */
	return gp_obj_set(page, "aggregate", agg);
}
