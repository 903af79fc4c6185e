/* SPDX-License-Identifier: MIT */
/*
 * cmd-export.c - `gpuprof export [options] PATH...`: converts traces with
 * gp_export_paths_to_file() (or gp_export_paths() for standard output, which
 * is also where a trace read from standard input goes without -o).
 * The output goes to -o FILE, '-' being standard output; without -o, as
 * `nsys export` does, it goes next to the input under the input's name:
 * DIR -> DIR.chrome.json (beside the directory, not in it, so that the
 * directory's traces stay as they were), NAME.json[.gz] / NAME.gpcap ->
 * NAME.chrome.json.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuprof/export.h"
#include "gpuprof/gpuprof.h"

static const char usage_text[] =
    "usage: gpuprof export [options] PATH...\n"
    "\n"
    "PATH: a run directory of 'gpuprof run', a capture file (.gpcap), a PyTorch profiler\n"
    "trace (.json, .json.gz; '-' for standard input), a directory of traces (one per rank)\n"
    "or a metrics timeline (gpuprof top --record, metrics.jsonl)\n"
    "\n"
    "    --format FORMAT   chrome: Chrome trace JSON for ui.perfetto.dev and chrome://tracing\n"
    "                      (the default and, in this version, the only format)\n"
    "    -o, --output FILE write to FILE (atomically; gzip when it ends in .gz); '-' for\n"
    "                      standard output (default: PATH's name with .chrome.json,\n"
    "                      beside PATH)\n"
    "    --metrics FILE    add the metrics timeline FILE (gpuprof.metrics/1) as counters\n"
    "    --no-metrics      leave out the metrics.jsonl of run directories\n"
    "    --salvage         export what precedes the damage of a truncated trace\n"
    "    -q, --quiet       no message saying what was written\n"
    "    -h, --help        this help; 'gpuprof help export' for the docs\n";

enum { OPT_FORMAT = 256, OPT_SALVAGE, OPT_METRICS, OPT_NO_METRICS };

int cmd_export(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "salvage", no_argument, NULL, OPT_SALVAGE },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "no-metrics", no_argument, NULL, OPT_NO_METRICS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_export_opts opts;
	struct gp_export_stats st;
	const char *output = NULL;
	char *derived = NULL;
	bool quiet = false;
	int c, rc;

	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.format = GP_EXPORT_CHROME;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (strcmp(optarg, "perfetto") == 0 || strcmp(optarg, "csv") == 0)
				usage_die("export: format '%s' is not supported yet; use "
				          "'--format chrome' (Perfetto opens it)",
				          optarg);
			if (strcmp(optarg, "chrome") != 0)
				usage_die("export: option '--format' expects 'chrome', not '%s'",
				          optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_SALVAGE:
			opts.salvage = true;
			break;
		case OPT_METRICS:
			opts.metrics = optarg;
			break;
		case OPT_NO_METRICS:
			opts.no_metrics = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return opt_tail("export", c, argv, usage_text);
		}
	}
	if ((rc = need_operand("export", optind, argc, "no trace given", usage_text)))
		return rc;
	output =
	    output_for("export", output, argv[optind], argc - optind, ".chrome.json", &derived);

	if (!quiet)
		library_warnings(true);
	if (strcmp(output, "-") == 0) {
		rc = gp_export_paths(argv + optind, (size_t)(argc - optind), &opts, stdout_sink,
		                     NULL, &st);
		if (!rc && fflush(stdout))
			rc = GP_EIO;
		library_warnings(false);
		if (rc && ferror(stdout)) {
			/* main reports it after the command, quietly for a closed pipe */
			int e = errno;

			gp_cli_stdout_errno = e ? e : EIO;
			return GP_EXIT_FAILURE;
		}
	} else
		rc = gp_export_paths_to_file(argv + optind, (size_t)(argc - optind), &opts, output,
		                             &st);
	library_warnings(false);
	if (rc) {
		const char *msg = gp_last_error();

		free(derived);
		return error("%s", msg && *msg ? msg : gp_strerror(rc));
	}
	if (!quiet && st.metrics_skipped)
		warning("%s", gp_last_error());
	if (!quiet && strcmp(output, "-") != 0)
		fprintf(stderr,
		        "gpuprof: wrote '%s': %llu events, %llu flows, %llu counter values from "
		        "%llu trace%s\n",
		        output, (unsigned long long)st.events, (unsigned long long)st.flows,
		        (unsigned long long)st.counters, (unsigned long long)st.traces,
		        st.traces == 1 ? "" : "s");
	free(derived);
	return GP_EXIT_OK;
}
