/* SPDX-License-Identifier: MIT */
/*
 * fuzz_aggregate.c - libFuzzer target for what `gpuprof aggregate` reads: a
 * rank's gpuprof.analyze/1 report with its collectives ledger
 * (src/lib/aggregate/), and a saved gpuprof.aggregate/1 document it draws.
 *
 * The input is written to a file and aggregated through the public entry
 * (gp_aggregate_paths(), as the CLI calls it) twice: alone, as the one rank
 * of a job, and beside a fixed valid report of rank 1 (two ranks, so the
 * matching, the clocks, the stragglers and the findings run on what the
 * bytes hold). Each document is drawn as text, narrow and wide; the input,
 * when it parses, is drawn as an aggregate document too. Errors are fine;
 * crashes, leaks, sanitizer reports, a document of another schema and an
 * error without a message naming the file are findings.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/aggregate.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* rank 1 of 2: three all-reduces on one host, a sendrecv */
static const char fixed[] =
    "{\"schema\": \"gpuprof.analyze/1\", \"ranks\": [{\"rank\": 1, \"host\": \"node-1\", "
    "\"overview\": {\"start_ns\": 1700000000000000000, \"span_ns\": 40000000, "
    "\"distributed\": {\"rank\": 1, \"world_size\": 2, \"backend\": \"nccl\"}}, "
    "\"gpu\": {\"busy_ns\": 30000000, \"idle_ns\": 10000000, \"idle_pct\": 25, "
    "\"compute_ns\": 20000000, \"communication_ns\": 4000000, \"comm_comp_overlap_pct\": 50}, "
    "\"step_stats\": {\"count\": 2, \"mean_ns\": 20000000, \"median_ns\": 20000000, "
    "\"p95_ns\": 21000000}, \"findings\": [], "
    "\"collectives\": {\"seq_source\": \"trace\", \"process_groups\": [{\"name\": \"0\", "
    "\"desc\": \"default_pg\", \"ranks\": [0, 1], \"size\": 2}], \"ledger\": ["
    "{\"pg\": \"0\", \"seq\": 0, \"name\": \"allreduce\", \"dtype\": \"Float\", \"bytes\": 4096, "
    "\"group_size\": 2, \"step\": 1, \"start_ns\": 1700000000001000000, "
    "\"end_ns\": 1700000000001500000}, "
    "{\"pg\": \"0\", \"seq\": 1, \"name\": \"allreduce\", \"dtype\": \"Float\", \"bytes\": 4096, "
    "\"group_size\": 2, \"step\": 1, \"start_ns\": 1700000000011000000, "
    "\"end_ns\": 1700000000011500000}, "
    "{\"pg\": \"0\", \"seq\": 2, \"name\": \"sendrecv\", \"dtype\": \"Float\", \"bytes\": 1024, "
    "\"group_size\": 2, \"step\": 2, \"start_ns\": 1700000000021000000, "
    "\"end_ns\": 1700000000021100000}, "
    "{\"pg\": \"0\", \"seq\": 3, \"name\": \"allreduce\", \"dtype\": \"Float\", \"bytes\": 4096, "
    "\"group_size\": 2, \"step\": 2, \"start_ns\": 1700000000031000000, "
    "\"end_ns\": 1700000000031500000}]}}]}";

static char dir[64], in_path[96], fixed_path[96];

static void cleanup(void)
{
	unlink(in_path);
	unlink(fixed_path);
	rmdir(dir);
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f))
		abort();
}

static void draw(const struct gp_value *doc)
{
	struct gp_aggregate_format_opts fo = { .top = 3, .width = 60, .flags = 0 };
	char *text = NULL;
	size_t len = 0;

	if (gp_aggregate_format(doc, &fo, &text, &len) == 0)
		gp_free(text);
	fo.top = 0;
	fo.width = 200;
	fo.flags = GP_AGGREGATE_FORMAT_WIDE;
	if (gp_aggregate_format(doc, &fo, &text, &len) == 0)
		gp_free(text);
}

static void aggregate(const char *const *paths, size_t n)
{
	struct gp_aggregate_opts o;
	struct gp_value *doc = NULL;
	const char *schema;

	gp_aggregate_opts_init(&o);
	o.threads = 1;
	if (gp_aggregate_paths(paths, n, &o, &doc) != 0) {
		/* a bad input is refused with a message (the CLI prints it) */
		if (!gp_last_error() || !*gp_last_error())
			abort();
		return;
	}
	schema = gp_value_get_str(gp_obj_get(doc, "schema"));
	if (!schema || strcmp(schema, GP_AGGREGATE_SCHEMA) != 0)
		abort();
	draw(doc);
	gp_value_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[2];
	struct gp_value *v = NULL;

	if (size > (1u << 20))
		return 0;
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/gp-fuzz-agg.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (strlen(dir) >= sizeof(dir) - 1 || !mkdtemp(dir))
			abort();
		snprintf(in_path, sizeof(in_path), "%s/in.json", dir);
		snprintf(fixed_path, sizeof(fixed_path), "%s/fixed.json", dir);
		write_file(fixed_path, fixed, sizeof(fixed) - 1);
		atexit(cleanup);
	}
	write_file(in_path, data, size);
	paths[0] = in_path;
	paths[1] = fixed_path;
	aggregate(paths, 1);
	aggregate(paths, 2);
	/* the bytes as a saved aggregate document */
	if (gp_value_parse((const char *)data, size, &v, NULL) == 0) {
		draw(v);
		gp_value_free(v);
	}
	return 0;
}
