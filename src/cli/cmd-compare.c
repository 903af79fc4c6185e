/* SPDX-License-Identifier: MIT */
/*
 * cmd-compare.c - `gpuprof compare [options] BASE NEW`: gp_compare_paths()
 * loads and compares the two sides, gp_compare_format() draws the result
 * (or it is written as JSON), to stdout or atomically to -o FILE. All the
 * computing is in the library (src/lib/compare/).
 *
 * Exit status: 0, 3 when the result holds a regression (written out first),
 * 1 on an error (one message naming the file), 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuprof/compare.h"
#include "gpuprof/gpuprof.h"

#define MAX_THRESHOLDS 64

static const char usage_text[] =
    "usage: gpuprof compare [options] BASE NEW\n"
    "\n"
    "BASE, NEW: bench results (gpuprof bench --json), analyze reports (analyze --json),\n"
    "PyTorch profiler traces ('-' for standard input), captures, 'gpuprof run' directories,\n"
    "or directories of them; or two aggregates (gpuprof aggregate --json); or two PyTorch\n"
    "memory snapshots (.pickle)\n"
    "\n"
    "    --json              write the result as JSON (schema gpuprof.compare/1)\n"
    "    --markdown          write Markdown for a pull-request comment\n"
    "    -o, --output FILE   write to FILE (atomically) instead of standard output\n"
    "    --alpha A           significance level (default 0.01)\n"
    "    --threshold PCT     smallest change that counts, in % (default 5)\n"
    "    --threshold-for METRIC=PCT\n"
    "                        the threshold of one metric (repeatable): time, throughput,\n"
    "                        gpu_time, peak_memory, memory_at_end, step_time, gpu_busy,\n"
    "                        gpu_idle_pct, compute, communication, memcpy,\n"
    "                        comm_comp_overlap_pct, kernel_time, kernels, operators,\n"
    "                        modules, ops; aggregates: step_mean, step_p50, step_p95,\n"
    "                        wait, exposed_comm, max_step_mean, total_wait,\n"
    "                        straggler_blame, busbw. Bench memory that is the same in\n"
    "                        every iteration is compared exactly: a change past 1 %\n"
    "                        (or its --threshold-for) and 1 MiB counts\n"
    "    --min-samples N     fewer samples per side is inconclusive (default 2; under\n"
    "                        about 6 a side Welch's t-test decides, else Mann-Whitney U)\n"
    "    --top N             rows of the kernel, operator, module and op tables\n"
    "                        (default 20; 0: all)\n"
    "    --rank R            only compare rank R\n"
    "    --seed N            seed of the bootstrap intervals (default: a fixed one)\n"
    "    -h, --help          this help; 'gpuprof help compare' for the docs\n"
    "\n"
    "exit status: 0 no regression, 3 a regression, 1 an error, 2 a usage error\n";

enum {
	OPT_JSON = 256,
	OPT_MARKDOWN,
	OPT_ALPHA,
	OPT_THRESHOLD,
	OPT_THRESHOLD_FOR,
	OPT_MIN_SAMPLES,
	OPT_TOP,
	OPT_RANK,
	OPT_SEED,
};

/* a percentage above 0 and at most 10000 (100x), as a fraction */
static double parse_pct(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%") != 0) || !isfinite(v) || v <= 0 ||
	    v > 10000)
		usage_die("option '%s' expects a percentage above 0 (such as 5 or 2.5), not '%s'",
		          opt, s);
	return v / 100;
}

int cmd_compare(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "markdown", no_argument, NULL, OPT_MARKDOWN },
		{ "output", required_argument, NULL, 'o' },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "threshold-for", required_argument, NULL, OPT_THRESHOLD_FOR },
		{ "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *names[MAX_THRESHOLDS];
	char *name_buf[MAX_THRESHOLDS];
	double values[MAX_THRESHOLDS];
	struct gp_compare_opts opts;
	struct gp_value *result = NULL;
	const char *output = NULL;
	bool json = false, markdown = false, regression;
	long long top = 20;
	size_t nthr = 0, i, len = 0;
	char *text = NULL, *out, *end;
	int c, rc;

	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.rank = -1;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_MARKDOWN:
			markdown = true;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_ALPHA:
			errno = 0;
			opts.alpha = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(opts.alpha > 0 && opts.alpha < 1))
				usage_die("option '--alpha' expects a number between 0 and 1 (such "
				          "as 0.05), not '%s'",
				          optarg);
			break;
		case OPT_THRESHOLD:
			opts.threshold = parse_pct("--threshold", optarg);
			break;
		case OPT_THRESHOLD_FOR: {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg)
				usage_die("option '--threshold-for' expects METRIC=PCT, not '%s'",
				          optarg);
			if (nthr == MAX_THRESHOLDS)
				usage_die("option '--threshold-for' given more than %d times",
				          MAX_THRESHOLDS);
			values[nthr] = parse_pct("--threshold-for", eq + 1);
			name_buf[nthr] = xmalloc((size_t)(eq - optarg) + 1);
			memcpy(name_buf[nthr], optarg, (size_t)(eq - optarg));
			name_buf[nthr][eq - optarg] = '\0';
			names[nthr] = name_buf[nthr];
			nthr++;
			break;
		}
		case OPT_MIN_SAMPLES:
			opts.min_samples = (uint32_t)parse_count("--min-samples", optarg, 1000000);
			if (opts.min_samples < 2)
				usage_die("option '--min-samples' expects 2 or more, not '%s'",
				          optarg);
			break;
		case OPT_TOP:
			top = parse_count("--top", optarg, UINT32_MAX);
			break;
		case OPT_RANK:
			opts.rank = parse_count("--rank", optarg, INT32_MAX);
			break;
		case OPT_SEED:
			opts.seed = (uint64_t)parse_count("--seed", optarg, INT64_MAX);
			break;
		default:
			return opt_tail("compare", c, argv, usage_text);
		}
	}
	if (json && markdown)
		usage_die("compare: --json and --markdown do not go together");
	if (argc - optind != 2) {
		fprintf(stderr, "gpuprof compare: %s\n%s",
		        argc - optind < 2 ? "give two inputs, BASE and NEW"
		                          : "more than two inputs: give BASE and NEW",
		        usage_text);
		return GP_EXIT_USAGE;
	}
	opts.threshold_names = names;
	opts.threshold_values = values;
	opts.n_thresholds = nthr;
	if (gp_compare_check_opts(&opts)) /* a metric name unknown: a usage error, before reading */
		usage_die("compare: %s", gp_last_error());

	rc = gp_compare_paths(argv[optind], argv[optind + 1], &opts, &result);
	for (i = 0; i < nthr; i++)
		free(name_buf[i]);
	if (rc) {
		const char *msg = gp_last_error();

		return error("%s", msg && *msg ? msg : gp_strerror(rc));
	}
	regression = gp_compare_regression(result);
	if (json) {
		rc = gp_value_to_json(result, GP_JSON_PRETTY, &text, &len);
	} else {
		rc = gp_compare_format(result, markdown ? GP_COMPARE_MARKDOWN : GP_COMPARE_TEXT,
		                       (uint32_t)top, &text, &len);
	}
	gp_value_free(result);
	if (rc) {
		gp_free(text);
		return error("cannot write the result: %s", gp_strerror(rc));
	}
	/* the output ends with one newline; copied to memory of the CLI's own allocator */
	out = xmalloc(len + 1);
	memcpy(out, text, len);
	gp_free(text);
	if (!len || out[len - 1] != '\n')
		out[len++] = '\n';
	rc = write_output(output, out, len);
	free(out);
	if (rc)
		return GP_EXIT_FAILURE;
	return regression ? GP_EXIT_REGRESSION : GP_EXIT_OK;
}
