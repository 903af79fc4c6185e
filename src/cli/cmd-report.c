/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.c - `gpuprof report [options] PATH... [-o FILE]`: gp_report_load()
 * reads the input into a page model, gp_report_html() draws it, and the page
 * is written atomically to FILE (default: beside PATH, PATH's name with
 * .report.html; `-` for standard output). All the work is in the library
 * (src/lib/report/).
 *
 * Exit status: 0, 1 on an error (one message naming the file), 2 on a usage error.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/report.h"

static const char usage_text[] =
    "usage: gpuprof report [options] PATH... [-o FILE]\n"
    "\n"
    "PATH: a 'gpuprof run' directory, PyTorch profiler traces (.json, .json.gz; '-' for\n"
    "standard input), a capture (.gpcap), a directory of per-rank traces, a metrics timeline\n"
    "(gpuprof top --record, metrics.jsonl), or the JSON of analyze, bench, compare or\n"
    "aggregate, or a PyTorch memory snapshot (.pickle). The page of a job's ranks also draws\n"
    "the job, as 'gpuprof aggregate' sees it\n"
    "\n"
    "    -o, --output FILE   the HTML file (default: PATH's name with .report.html, beside\n"
    "                        PATH); '-' writes to standard output\n"
    "    --title TEXT        the page's title (default: PATH's file name)\n"
    "    --rank R            only rank R of traces and reports\n"
    "    --top N             rows of each table of a trace (default: all)\n"
    "    --salvage           report what precedes the damage of a truncated trace\n"
    "    -q, --quiet         no message saying what was written\n"
    "    -h, --help          this help; 'gpuprof help report' for the docs\n";

enum { OPT_TITLE = 256, OPT_RANK, OPT_TOP, OPT_SALVAGE };

int cmd_report(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "salvage", no_argument, NULL, OPT_SALVAGE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_report_opts opts;
	struct gp_value *page = NULL;
	const char *output = NULL;
	char *derived = NULL, *html = NULL;
	bool quiet = false;
	size_t len = 0;
	int c, rc;

	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.rank = -1;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_TITLE:
			opts.title = optarg;
			break;
		case OPT_RANK:
			opts.rank = parse_count("--rank", optarg, INT32_MAX);
			break;
		case OPT_TOP:
			opts.top = (uint32_t)parse_count("--top", optarg, UINT32_MAX);
			break;
		case OPT_SALVAGE:
			opts.salvage = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return opt_tail("report", c, argv, usage_text);
		}
	}
	if ((rc = need_operand("report", optind, argc, "no input given", usage_text)))
		return rc;
	output =
	    output_for("report", output, argv[optind], argc - optind, ".report.html", &derived);

	rc = gp_report_load(argv + optind, (size_t)(argc - optind), &opts, &page);
	if (!rc)
		rc = gp_report_html(page, &html, &len);
	/* what the inputs' reading left out or found doubtful (files skipped, ranks claimed twice)
	 */
	for (size_t i = 0; !rc && !quiet && i < gp_value_len(gp_value_path(page, "doc/warnings"));
	     i++)
		warning("%s", gp_value_get_str(gp_arr_get(gp_value_path(page, "doc/warnings"), i)));
	gp_value_free(page);
	if (rc) {
		const char *msg = gp_last_error();

		gp_free(html);
		free(derived);
		return error("%s", msg && *msg ? msg : gp_strerror(rc));
	}
	rc = write_output(output, html, len);
	gp_free(html);
	if (rc) {
		free(derived);
		return GP_EXIT_FAILURE;
	}
	if (!quiet && strcmp(output, "-") != 0) {
		char size[32];

		fprintf(stderr, "gpuprof: wrote '%s' (%s): open it in a browser\n", output,
		        gp_format_bytes((double)len, 0, size, sizeof(size)));
	}
	free(derived);
	return GP_EXIT_OK;
}
