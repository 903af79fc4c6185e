/* SPDX-License-Identifier: MIT */
/*
 * analyze_trace.c - the smallest client of libgpuprof: open a Kineto trace,
 * analyse it, and print three numbers from the report tree.
 *
 *   cc analyze_trace.c -lgpuprof -o analyze_trace && ./analyze_trace trace.json.gz
 */
#include <inttypes.h>
#include <stdio.h>

#include <gpuprof/analyze.h>

int main(int argc, char **argv)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_analyze_opts ao = { .size = sizeof(ao), .only_rank = -1 };
	struct gp_trace *t = NULL;
	struct gp_value *r = NULL;
	int64_t window = 0, idle = 0;
	double mean_step = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE\n", argv[0]);
		return 2;
	}
	rc = gp_trace_open(argv[1], &oo, &t);
	if (!rc)
		rc = gp_analyze_trace(t, &ao, 0, &r);
	if (rc) {
		fprintf(stderr, "error: %s (%s)\n", gp_last_error(), gp_strerror(rc));
		gp_trace_free(t);
		return 1;
	}
	if (gp_value_get_int(gp_value_path(r, "gpu/window_ns"), &window) &&
	    gp_value_get_int(gp_value_path(r, "gpu/idle_ns"), &idle))
		printf("GPU window %" PRId64 " ns, idle %" PRId64 " ns\n", window, idle);
	else
		printf("no GPU activity\n");
	if (gp_value_get_double(gp_value_path(r, "step_stats/mean_ns"), &mean_step))
		printf("mean step %.0f ns over %" PRIu64 " events\n", mean_step,
		       gp_trace_event_count(t));
	gp_value_free(r);
	gp_trace_free(t);
	return 0;
}
