/* SPDX-License-Identifier: MIT */
/*
 * cmd-aggregate.c - `gpuprof aggregate [options] PATH...`: the ranks of a
 * distributed job combined with gp_aggregate_paths() (per-rank table,
 * collectives matched across ranks, clock offsets, stragglers, the first
 * desynchronisation), written as text or as the gpuprof.aggregate/1 JSON
 * document, to stdout or atomically to a file (-o, gzip when it ends in .gz).
 * One saved aggregate document as the PATH is drawn again
 * (gp_aggregate_load()), with another --top or width. All computing and the
 * text are the library's (gp_aggregate_format()).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuprof/aggregate.h"
#include "gpuprof/gpuprof.h"

static const char usage_text[] =
    "usage: gpuprof aggregate [options] PATH...\n"
    "\n"
    "PATH: the ranks' analyze reports (gpuprof analyze --json), run directories or their\n"
    "report.json, directories of them, or the ranks' traces (analysed first); or one saved\n"
    "aggregate (gpuprof aggregate --json) to show again\n"
    "\n"
    "    --json            write the document as JSON (schema gpuprof.aggregate/1)\n"
    "    -o, --output FILE write to FILE (atomically; gzip when FILE ends in .gz)\n"
    "    --top N           rows per text table (default 10; 0: all); ranks: see the docs\n"
    "    --bin DURATION    the wait heatmap's bin, such as 10ms (default: about 100 bins)\n"
    "    --threads N       files read and traces analysed in parallel (default: one per CPU)\n"
    "    --compat MODE     traces: definitions 'none' (gpuprof's, default), 'hta' or 'tb'\n"
    "    --salvage         traces: analyse what precedes the damage of a truncated trace\n"
    "    --wide            names whole, never shortened to the width\n"
    "    -q, --quiet       no warnings on standard error\n"
    "    -h, --help        this help; 'gpuprof help aggregate' for the docs\n";

enum { OPT_JSON = 256, OPT_TOP, OPT_BIN, OPT_THREADS, OPT_COMPAT, OPT_SALVAGE, OPT_WIDE };

/* "10ms", "500us", "250µs", "0.5s", "20000ns": a duration above 0 and at most an hour, in ns */
static int64_t parse_bin(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!errno && end != s && isfinite(v) && v > 0 && *s != '-' && *s != '+' && *s != ' ')
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(end, units[i].unit) == 0 && v * units[i].ns >= 1 &&
			    v * units[i].ns <= 3600e9)
				return (int64_t)llround(v * units[i].ns);
	usage_die(
	    "option '--bin' expects a duration with its unit from 1ns to 3600s (such as 10ms, "
	    "500us), not '%s'",
	    s);
}

/* the document's warnings (missing ranks, ...) on standard error */
static void doc_warnings(const struct gp_value *doc)
{
	const struct gp_value *w = gp_obj_get(doc, "warnings");

	for (size_t i = 0; i < gp_value_len(w); i++)
		warning("%s", gp_value_get_str(gp_arr_get(w, i)));
}

/* the document: one saved aggregate drawn again, else the ranks aggregated */
static int load(const char *const *paths, size_t n, const struct gp_aggregate_opts *opts,
                struct gp_value **doc)
{
	int rc = 0;

	*doc = NULL;
	if (n == 1)
		rc = gp_aggregate_load(paths[0], doc);
	if (!rc && !*doc)
		rc = gp_aggregate_paths(paths, n, opts, doc);
	if (rc) {
		const char *msg = gp_last_error();

		return error("%s", msg && *msg ? msg : gp_strerror(rc));
	}
	return 0;
}

int cmd_aggregate(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "bin", required_argument, NULL, OPT_BIN },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "compat", required_argument, NULL, OPT_COMPAT },
		{ "salvage", no_argument, NULL, OPT_SALVAGE },
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_aggregate_opts opts;
	struct gp_aggregate_format_opts fo = { .top = 10 };
	struct gp_value *doc = NULL;
	const char *output = NULL;
	bool json = false, quiet = false;
	char *text = NULL;
	size_t len = 0;
	int c, rc;

	gp_aggregate_opts_init(&opts);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_TOP:
			fo.top = (size_t)parse_count("--top", optarg, UINT32_MAX);
			break;
		case OPT_BIN:
			opts.bin_ns = parse_bin(optarg);
			break;
		case OPT_THREADS:
			opts.threads = (size_t)parse_count("--threads", optarg, 1024);
			opts.analyze.threads = (uint32_t)opts.threads;
			break;
		case OPT_COMPAT:
			opts.analyze.compat = parse_compat(optarg);
			break;
		case OPT_SALVAGE:
			opts.analyze.salvage = true;
			break;
		case OPT_WIDE:
			fo.flags |= GP_AGGREGATE_FORMAT_WIDE;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return opt_tail("aggregate", c, argv, usage_text);
		}
	}
	if ((rc = need_operand("aggregate", optind, argc, "no report given", usage_text)))
		return rc;

	if (load(argv + optind, (size_t)(argc - optind), &opts, &doc))
		return GP_EXIT_FAILURE;
	/* text on standard output shows its warnings in its header already */
	if (!quiet && (json || (output && strcmp(output, "-") != 0)))
		doc_warnings(doc);

	if (json) {
		/* written as it is made: the text is never held beside the document */
		rc = write_output_json(output, doc, GP_JSON_PRETTY);
		gp_value_free(doc);
		return rc ? GP_EXIT_FAILURE : GP_EXIT_OK;
	}
	fo.width = output_width(!output || strcmp(output, "-") == 0);
	rc = gp_aggregate_format(doc, &fo, &text, &len);
	if (rc)
		error("cannot format the document: %s", gp_strerror(rc));
	gp_value_free(doc);
	if (rc)
		return GP_EXIT_FAILURE;
	rc = write_output(output, text, len);
	gp_free(text); /* the library's, from gp_aggregate_format() */
	return rc ? GP_EXIT_FAILURE : GP_EXIT_OK;
}
