/* SPDX-License-Identifier: MIT */
/*
 * ingest.c - in-process timing of gpuprof's two phases, for bench_analyze.sh:
 * reading a trace (gp_trace_open: decompression, JSON scan, the model) and
 * the whole analysis (gp_analyze_paths plus the JSON report), each the median
 * of N runs, as wall time and CPU time of the whole process (every thread).
 * User time is gpuprof's own work; system time (the read(2) copies, page
 * faults) is printed apart, as it depends on the machine's I/O path.
 *
 *   bench_ingest [-n RUNS] FILE   prints one line:
 *   <json bytes> <read wall s> <read user s> <read sys s> <analyze wall s> <analyze user s>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gpuprof/analyze.h"

static double wall(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* user CPU time of the whole process (every thread); sys time apart in sys_cpu() */
static double cpu(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6;
}

static double sys_cpu(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_analyze_opts ao = { .size = sizeof(ao), .only_rank = -1 };
	double rw[64], rc[64], rs[64], aw[64], ac[64];
	unsigned long long bytes = 0;
	const char *path;
	int runs = 5, i;

	if (argc == 4 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		path = argv[3];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: bench_ingest [-n RUNS] FILE\n");
		return 2;
	}
	if (runs < 1 || runs > 64)
		runs = 5;
	for (i = 0; i < runs; i++) {
		struct gp_trace *t = NULL;
		struct gp_value *r = NULL;
		char *json = NULL;
		double w0 = wall(), c0 = cpu(), s0 = sys_cpu();

		if (gp_trace_open(path, &oo, &t)) {
			fprintf(stderr, "bench_ingest: %s\n", gp_last_error());
			return 1;
		}
		rw[i] = wall() - w0;
		rc[i] = cpu() - c0;
		rs[i] = sys_cpu() - s0;
		bytes = 0;
		gp_trace_free(t);

		w0 = wall();
		c0 = cpu();
		if (gp_analyze_paths(&path, 1, &ao, &r) ||
		    gp_value_to_json(r, GP_JSON_PRETTY, &json, NULL)) {
			fprintf(stderr, "bench_ingest: %s\n", gp_last_error());
			return 1;
		}
		aw[i] = wall() - w0;
		ac[i] = cpu() - c0;
		{
			int64_t v = 0;

			if (gp_value_get_int(gp_value_path(r, "ranks/0/overview/trace/bytes_read"),
			                     &v))
				bytes = (unsigned long long)v;
		}
		gp_free(json);
		gp_value_free(r);
	}
	printf("%llu %.6f %.6f %.6f %.6f %.6f\n", bytes, median(rw, runs), median(rc, runs),
	       median(rs, runs), median(aw, runs), median(ac, runs));
	return 0;
}
