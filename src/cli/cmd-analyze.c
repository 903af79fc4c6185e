/* SPDX-License-Identifier: MIT */
/*
 * cmd-analyze.c - `gpuprof analyze [options] PATH...`: reads traces with
 * gp_analyze_paths() and writes the report as human tables or JSON, to
 * stdout or atomically to a file (-o). All computing is in the library; the
 * human tables are drawn by the library (gp_analyze_format()).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/analyze.h"
#include "gpuprof/gpuprof.h"

static const char usage_text[] =
    "usage: gpuprof analyze [options] PATH...\n"
    "\n"
    "PATH: a PyTorch profiler trace (.json, .json.gz; '-' for standard input), a directory of\n"
    "them (one per rank), a capture (.gpcap), a metrics timeline (gpuprof top --record,\n"
    "metrics.jsonl), a run directory of 'gpuprof run', or a PyTorch memory snapshot\n"
    "(.pickle of torch.cuda.memory._dump_snapshot; schema gpuprof.memsnap/1)\n"
    "\n"
    "    --json            write the report as JSON (schema gpuprof.analyze/1)\n"
    "    -o, --output FILE write to FILE (atomically) instead of standard output\n"
    "    --top N           rows per table (default: 10 for tables, all for --json; 0: all)\n"
    "    --rank R          only analyse rank R\n"
    "    --compat MODE     definitions: 'none' (gpuprof's, default), 'hta' or 'tb'\n"
    "    --salvage         analyse what precedes the damage of a truncated trace\n"
    "    --threads N       files read in parallel (default: one per CPU)\n"
    "    --wide            names whole, never shortened to the width\n"
    "    --peak-tflops X   roofline: the GPU's peak TFLOP/s (every data type), not the table's\n"
    "    --peak-tbps Y     roofline: the GPU's memory bandwidth in TB/s, not the table's\n"
    "    -q, --quiet       no warnings\n"
    "    -h, --help        this help; 'gpuprof help analyze' for the docs\n";

enum {
	OPT_JSON = 256,
	OPT_TOP,
	OPT_RANK,
	OPT_COMPAT,
	OPT_SALVAGE,
	OPT_THREADS,
	OPT_WIDE,
	OPT_PEAK_TFLOPS,
	OPT_PEAK_TBPS
};

/* a peak figure: a number above 0, at most 10^6 (TFLOP/s, TB/s) */
static double parse_peak(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e6)
		usage_die("option '%s' expects a number above 0 (such as 989.5), not '%s'", opt, s);
	return v;
}

static void salvage_warnings(const struct gp_value *report)
{
	const struct gp_value *ranks = gp_obj_get(report, "ranks");
	size_t i;

	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		const struct gp_value *s = gp_obj_get(r, "salvage");
		const char *file = gp_value_get_str(gp_obj_get(r, "file"));
		int64_t off = 0, lost = 0, kept = 0;

		if (gp_value_type(s) != GP_VALUE_OBJECT)
			continue;
		gp_value_get_int(gp_obj_get(s, "damage_offset"), &off);
		gp_value_get_int(gp_obj_get(s, "lost_bytes"), &lost);
		gp_value_get_int(gp_obj_get(s, "events_kept"), &kept);
		warning("'%s': damaged at byte %lld: %lld bytes after it were not analysed "
		        "(%lld events kept)",
		        file ? file : "?", (long long)off, (long long)lost, (long long)kept);
	}
}

/* what the library left out or found doubtful (files skipped, ranks claimed twice) */
static void report_warnings(const struct gp_value *report)
{
	const struct gp_value *w = gp_obj_get(report, "warnings");
	size_t i;

	for (i = 0; i < gp_value_len(w); i++)
		warning("%s", gp_value_get_str(gp_arr_get(w, i)));
}

/* the report of the paths, analysed as it is written (gp_analyze_paths_json(), _text()) */
struct report_job {
	const char *const *paths;
	size_t n;
	const struct gp_analyze_opts *opts;
	const struct gp_analyze_format_opts *fo; /* NULL: JSON */
	struct gp_value *summary; /* the report, each rank reduced to what is said of it */
};

static int produce_report(void *user, gp_write_fn write, void *wuser)
{
	struct report_job *j = user;

	if (!j->fo)
		return gp_analyze_paths_json(j->paths, j->n, j->opts, GP_JSON_PRETTY, write, wuser,
		                             &j->summary);
	return gp_analyze_paths_text(j->paths, j->n, j->opts, j->fo, write, wuser, &j->summary);
}

int cmd_analyze(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "compat", required_argument, NULL, OPT_COMPAT },
		{ "salvage", no_argument, NULL, OPT_SALVAGE },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ "peak-tflops", required_argument, NULL, OPT_PEAK_TFLOPS },
		{ "peak-tbps", required_argument, NULL, OPT_PEAK_TBPS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_analyze_opts opts;
	struct gp_analyze_format_opts fo = { .size = sizeof(fo) };
	struct report_job job = { 0 };
	const char *output = NULL;
	bool json = false, quiet = false, top_given = false, wide = false;
	long long top = 0;
	int c, rc;

	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.only_rank = -1;
	opts.compat = GP_COMPAT_NONE;

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
			top = parse_count("--top", optarg, UINT32_MAX);
			top_given = true;
			break;
		case OPT_RANK:
			opts.only_rank = parse_count("--rank", optarg, INT32_MAX);
			break;
		case OPT_COMPAT:
			opts.compat = parse_compat(optarg);
			break;
		case OPT_SALVAGE:
			opts.salvage = true;
			break;
		case OPT_THREADS:
			opts.threads = (uint32_t)parse_count("--threads", optarg, 1024);
			break;
		case OPT_WIDE:
			wide = true;
			break;
		case OPT_PEAK_TFLOPS:
			opts.peak_tflops = parse_peak("--peak-tflops", optarg);
			break;
		case OPT_PEAK_TBPS:
			opts.peak_tbps = parse_peak("--peak-tbps", optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return opt_tail("analyze", c, argv, usage_text);
		}
	}
	if ((rc = need_operand("analyze", optind, argc, "no trace given", usage_text)))
		return rc;
	if (!top_given)
		top = json ? 0 : 10;
	opts.top = (uint32_t)top;

	/*
	 * written as it is made, the ranks of a directory from a temporary file in rank
	 * order: neither the text nor every rank's tree is held at once
	 */
	fo.top = (uint32_t)top;
	fo.width = (uint32_t)output_width(!output);
	fo.flags = wide ? GP_ANALYZE_FORMAT_WIDE : 0;
	job.paths = (const char *const *)(argv + optind);
	job.n = (size_t)(argc - optind);
	job.opts = &opts;
	job.fo = json ? NULL : &fo;
	rc = write_output_with(output, produce_report, &job);
	if (!quiet && job.summary) {
		salvage_warnings(job.summary);
		report_warnings(job.summary);
	}
	gp_value_free(job.summary);
	return rc ? GP_EXIT_FAILURE : GP_EXIT_OK;
}
