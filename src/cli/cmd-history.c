/* SPDX-License-Identifier: MIT */
/*
 * cmd-history.c - `gpuprof history add|import|list|export`: the commands
 * that write the performance database and list what it holds. Options ->
 * gp_history_*() (include/gpuprof/history.h) -> terminal.
 *
 * What the library must not do is here: the database named by --db, else
 * $GPUPROF_HISTORY, else .gpuprof/history.sqlite in the current directory
 * (the folder made by add and import); the commit and branch from `git` in the
 * current directory when not given; the time now when not given.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/history.h"
#include "gpuprof/report.h"

static const char usage_text[] =
    "usage: gpuprof history add [options] RESULT...\n"
    "       gpuprof history import --csv FILE [options]\n"
    "       gpuprof history list [--json] [METRIC-PATTERN...]\n"
    "       gpuprof history changes [detection options] [--json] [METRIC-PATTERN...]\n"
    "       gpuprof history check [detection options] [--recent N] [--json] [METRIC-PATTERN...]\n"
    "       gpuprof history show [detection options] [--json] METRIC-PATTERN...\n"
    "       gpuprof history report [detection options] [-o FILE] [METRIC-PATTERN...]\n"
    "       gpuprof history export --jsonl [-o FILE]\n"
    "\n"
    "RESULT: a bench result, an analyze report, an aggregate, a run directory or a trace\n"
    "\n"
    "    --db DB           the database: a SQLite file or a postgresql:// URL (default:\n"
    "                      $GPUPROF_HISTORY, else .gpuprof/history.sqlite); only add and\n"
    "                      import make one\n"
    "    --commit SHA      the commit of the results (default: git rev-parse HEAD)\n"
    "    --branch NAME     their branch (default: the current git branch)\n"
    "    --time TIME       when they ran: Unix seconds or YYYY-MM-DDTHH:MM:SSZ (default: now)\n"
    "    --tag KEY=VALUE   a tag of the runs (repeatable)\n"
    "    --testbed LABEL   the testbed, instead of the key built from the results\n"
    "    --csv FILE        import: the CSV file (time, commit, one metric per column)\n"
    "    --json            list, changes, check, show: JSON\n"
    "    --window N        detection: E-divisive's window (default 30)\n"
    "    --max-pvalue P    detection: the t-test's level (default 0.01)\n"
    "    --min-magnitude F detection: the smallest relative change (default 0.02)\n"
    "    --min-median-change F\n"
    "                      detection: drop a change point whose medians differ by less\n"
    "    --min-steppiness S\n"
    "                      detection: drop a change point less step-like (0 to 1)\n"
    "    --otava           detection: Otava's test alone (no filters, no creep test)\n"
    "    --recent N        check: a change point counts in the last N runs (default: the window)\n"
    "    --jsonl           export: one JSON line per run\n"
    "    -o, --output FILE export, report: write to FILE (atomically; report's default:\n"
    "                      history.html)\n"
    "    -h, --help        this help; 'gpuprof help history' for the docs\n";

enum {
	OPT_DB = 256,
	OPT_COMMIT,
	OPT_BRANCH,
	OPT_TIME,
	OPT_TAG,
	OPT_TESTBED,
	OPT_CSV,
	OPT_JSON,
	OPT_JSONL,
	OPT_WINDOW,
	OPT_MAX_PVALUE,
	OPT_MIN_MAGNITUDE,
	OPT_OTAVA,
	OPT_RECENT,
	OPT_MIN_MEDIAN_CHANGE,
	OPT_MIN_STEPPINESS
};

/* the first line `git CMD` prints in the current directory, or NULL */
static char *git_line(const char *args)
{
	char cmd[128], line[512];
	FILE *p;
	char *r = NULL;

	snprintf(cmd, sizeof(cmd), "git %s 2>/dev/null", args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line && strcmp(line, "HEAD"))
			r = xstrdup(line);
	}
	pclose(p);
	return r;
}

static int64_t parse_time_opt(const char *s)
{
	struct tm tm = { 0 };
	char *end;
	long long secs;

	errno = 0;
	secs = strtoll(s, &end, 10);
	if (!errno && end != s && !*end && secs >= 0 && secs < 9000000000LL)
		return (int64_t)secs * 1000000000;
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end && (!*end || !strcmp(end, "Z")))
		return (int64_t)timegm(&tm) * 1000000000;
	end = strptime(s, "%Y-%m-%d", &(struct tm){ 0 });
	if (end && !*end) {
		memset(&tm, 0, sizeof(tm));
		strptime(s, "%Y-%m-%d", &tm);
		return (int64_t)timegm(&tm) * 1000000000;
	}
	usage_die("option '--time' expects Unix seconds or YYYY-MM-DDTHH:MM:SSZ, not '%s'", s);
}

/* a number in [0, 1] for option @p opt (a p-value, a relative change); a usage error otherwise */
static double parse_fraction(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1)
		usage_die("option '%s' expects a number from 0 to 1 (0.05 is 5%%), not '%s'", opt,
		          s);
	return v;
}

/* the database to open; the default's folder is made when @p make */
static const char *db_target(const char *given, bool make)
{
	const char *env = getenv("GPUPROF_HISTORY");

	if (given && *given)
		return given;
	if (env && *env)
		return env;
	if (make && mkdir(".gpuprof", 0777) && errno != EEXIST)
		warning("cannot make '.gpuprof': %s", strerror(errno));
	return ".gpuprof/history.sqlite";
}

static int lib_error(int rc)
{
	const char *msg = gp_last_error();

	return error("%s", msg && *msg ? msg : gp_strerror(rc));
}

/* @p v as JSON (--json) or as text of format @p fmt, on standard output */
static int print_tree(const struct gp_value *v, bool json, enum gp_history_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = json ? gp_value_to_json(v, GP_JSON_PRETTY, &text, &len)
	          : gp_history_format(v, fmt, output_width(true), &text, &len);
	if (rc)
		return lib_error(rc);
	fwrite(text, 1, len, stdout);
	if (json)
		fputc('\n', stdout);
	gp_free(text);
	return 0;
}

/*
 * The METRIC-PATTERNs @p ops[0..n) as the library takes them (one string,
 * newline-separated; NULL when none) into *@p pattern, and as people read
 * them (one as it is, several quoted: "'a' 'b'") into *@p shown; free() both.
 */
static void join_patterns(const char *const *ops, size_t n, char **pattern, char **shown)
{
	size_t len = 1;

	*pattern = *shown = NULL;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += strlen(ops[i]) + 3;
	*pattern = xcalloc(1, len);
	*shown = xcalloc(1, len);
	for (size_t i = 0; i < n; i++) {
		if (i) {
			strcat(*pattern, "\n");
			strcat(*shown, " ");
		}
		strcat(*pattern, ops[i]);
		strcat(*shown, n > 1 ? "'" : "");
		strcat(*shown, ops[i]);
		strcat(*shown, n > 1 ? "'" : "");
	}
}

/*
 * The first of the METRIC-PATTERNs @p ops[0..n) that no series of @p series
 * matches, else NULL: a gate with a misspelt pattern among right ones must
 * not pass on the others.
 */
static const char *unmatched(const char *const *ops, size_t n, const struct gp_value *series)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < gp_value_len(series)) {
			const char *m =
			    gp_value_get_str(gp_obj_get(gp_arr_get(series, k), "metric"));

			if (m && !fnmatch(ops[i], m, 0))
				break;
			k++;
		}
		if (k == gp_value_len(series))
			return ops[i];
	}
	return NULL;
}

static int add_to_page(void *user, const struct gp_value *series)
{
	return gp_report_history_page_add(user, series);
}

/*
 * `history report`: the page of the series matching @p pattern, written to @p output, made
 * series by series: its memory is the page's text and one series, not the whole history's
 */
static int write_report(struct gp_history *h, const char *db, const char *pattern,
                        const char *shown, struct gp_history_cpd_opts *co, const char *output)
{
	struct gp_report_history_page *page = NULL;
	char *html = NULL, title[512];
	size_t len = 0;
	int rc;

	co->points = true;
	snprintf(title, sizeof(title), "history of %s%s%s", db, shown ? ": " : "",
	         shown ? shown : "");
	rc = gp_report_history_page_new(title, &page);
	if (!rc)
		rc = gp_history_changes_each(h, pattern, co, add_to_page, page);
	if (rc) {
		gp_report_history_page_free(page);
		return lib_error(rc);
	}
	rc = gp_report_history_page_finish(page, &html, &len);
	if (rc)
		return lib_error(rc);
	rc = write_output(output, html, len);
	gp_free(html);
	if (!rc && strcmp(output, "-"))
		fprintf(stderr, "gpuprof history: wrote '%s'\n", output);
	return rc;
}

static int export_jsonl(const struct gp_value *runs, const char *output)
{
	size_t cap = 0, len = 0;
	char *all = NULL;
	int rc = 0;

	for (size_t i = 0; i < gp_value_len(runs) && !rc; i++) {
		char *line = NULL;
		size_t n = 0;

		rc = gp_value_to_json(gp_arr_get(runs, i), 0, &line, &n);
		if (rc)
			break;
		if (len + n + 2 > cap) {
			char *grown;

			cap = 2 * (len + n + 2);
			grown = realloc(all, cap);
			if (!grown) {
				gp_free(line);
				free(all);
				return error("out of memory");
			}
			all = grown;
		}
		memcpy(all + len, line, n);
		len += n;
		all[len++] = '\n';
		gp_free(line);
	}
	if (rc) {
		free(all);
		return error("cannot write JSON: %s", gp_strerror(rc));
	}
	rc = write_output(output, all ? all : "", len);
	free(all);
	return rc;
}

int cmd_history(int argc, const char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "branch", required_argument, NULL, OPT_BRANCH },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "testbed", required_argument, NULL, OPT_TESTBED },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "jsonl", no_argument, NULL, OPT_JSONL },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "max-pvalue", required_argument, NULL, OPT_MAX_PVALUE },
		{ "min-magnitude", required_argument, NULL, OPT_MIN_MAGNITUDE },
		{ "otava", no_argument, NULL, OPT_OTAVA },
		{ "recent", required_argument, NULL, OPT_RECENT },
		{ "min-median-change", required_argument, NULL, OPT_MIN_MEDIAN_CHANGE },
		{ "min-steppiness", required_argument, NULL, OPT_MIN_STEPPINESS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gp_history_meta meta = { .size = sizeof(meta) };
	struct gp_history_cpd_opts co;
	bool have_mag = false;
	const char *db = NULL, *csv = NULL, *output = NULL, *sub;
	const char **tags = NULL, *miss;
	const char *const *ops;
	char *commit = NULL, *branch = NULL, *pattern = NULL, *shown = NULL;
	bool json = false, jsonl = false, have_time = false, writes, regression = false;
	struct gp_history *h = NULL;
	struct gp_value *v = NULL;
	int c, rc = GP_EXIT_FAILURE;
	size_t nops;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return GP_EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr,
		        "gpuprof history: no subcommand given (add, import, list, export)\n%s",
		        usage_text);
		return GP_EXIT_USAGE;
	}
	sub = argv[1];
	if (strcmp(sub, "add") && strcmp(sub, "import") && strcmp(sub, "list") &&
	    strcmp(sub, "export") && strcmp(sub, "changes") && strcmp(sub, "check") &&
	    strcmp(sub, "show") && strcmp(sub, "report")) {
		fprintf(stderr, "gpuprof history: unknown subcommand '%s'\n%s", sub, usage_text);
		return GP_EXIT_USAGE;
	}
	writes = !strcmp(sub, "add") || !strcmp(sub, "import");
	gp_history_cpd_opts_init(&co);
	tags = xcalloc((size_t)argc, sizeof(*tags));
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DB:
			db = optarg;
			break;
		case OPT_COMMIT:
			meta.commit = optarg;
			break;
		case OPT_BRANCH:
			meta.branch = optarg;
			break;
		case OPT_TIME:
			meta.time_ns = parse_time_opt(optarg);
			have_time = true;
			break;
		case OPT_TAG:
			if (!strchr(optarg, '=') || optarg[0] == '=')
				usage_die("option '--tag' expects KEY=VALUE, not '%s'", optarg);
			tags[meta.ntags++] = optarg;
			break;
		case OPT_TESTBED:
			meta.testbed = optarg;
			break;
		case OPT_CSV:
			csv = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_JSONL:
			jsonl = true;
			break;
		case OPT_WINDOW:
			co.window = (size_t)parse_count("--window", optarg, 4096);
			if (co.window < 2)
				usage_die("option '--window' expects 2 to 4096 points, not '%s'",
				          optarg);
			break;
		case OPT_MAX_PVALUE:
			co.max_pvalue = parse_fraction("--max-pvalue", optarg);
			break;
		case OPT_MIN_MAGNITUDE:
			co.min_magnitude = parse_fraction("--min-magnitude", optarg);
			have_mag = true;
			break;
		case OPT_MIN_MEDIAN_CHANGE:
			co.min_median_change = parse_fraction("--min-median-change", optarg);
			break;
		case OPT_MIN_STEPPINESS:
			co.min_steppiness = parse_fraction("--min-steppiness", optarg);
			break;
		case OPT_OTAVA:
			co.otava = true;
			break;
		case OPT_RECENT:
			co.recent = (size_t)parse_count("--recent", optarg, 1000000000);
			if (!co.recent)
				usage_die("option '--recent' expects 1 run or more, not '%s'",
				          optarg);
			break;
		case 'o':
			output = optarg;
			break;
		default:
			free(tags);
			return opt_tail("history", c, argv, usage_text);
		}
	}
	meta.tags = tags;
	nops = (size_t)(argc - optind);
	if (!strcmp(sub, "add") && !nops) {
		free(tags);
		return need_operand("history add", optind, argc, "no result given", usage_text);
	}
	if (!strcmp(sub, "import") && (!csv || nops)) {
		free(tags);
		usage_die("history import takes one --csv FILE and no operand");
	}
	if (!strcmp(sub, "export") && (!jsonl || nops)) {
		free(tags);
		usage_die("history export takes --jsonl and no operand");
	}
	if (!strcmp(sub, "show") && !nops) {
		free(tags);
		usage_die("history show takes a METRIC-PATTERN");
	}
	ops = argv + optind;
	if (strcmp(sub, "add"))
		join_patterns(ops, nops, &pattern, &shown);
	/* Otava's own test: its default magnitude unless one is given */
	if (co.otava && !have_mag)
		co.min_magnitude = 0.05;
	if (co.otava && (co.min_median_change > 0 || co.min_steppiness > 0)) {
		free(tags);
		usage_die("--otava runs Otava's test alone: no --min-median-change or "
		          "--min-steppiness");
	}
	if (!have_time) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		meta.time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	if (!strcmp(sub, "add") || !strcmp(sub, "import")) {
		if (!meta.commit && !strcmp(sub, "add"))
			meta.commit = commit = git_line("rev-parse HEAD");
		if (!meta.branch)
			meta.branch = branch = git_line("rev-parse --abbrev-ref HEAD");
	}
	/*
	 * Only add and import make a database: a misspelt --db (or a job run in
	 * the wrong folder) must not read, or gate on, an empty history.
	 */
	rc = writes ? gp_history_open(db_target(db, true), &h)
	            : gp_history_open_existing(db_target(db, false), &h);
	if (rc) {
		rc = lib_error(rc);
		goto out;
	}
	if (!strcmp(sub, "add")) {
		rc = gp_history_add(h, argv + optind, nops, &meta, NULL);
		if (rc)
			rc = lib_error(rc);
		else
			fprintf(stderr, "gpuprof history: added %zu run%s to '%s'\n", nops,
			        nops == 1 ? "" : "s", db_target(db, writes));
	} else if (!strcmp(sub, "import")) {
		size_t n = 0;

		rc = gp_history_import_csv(h, csv, &meta, &n);
		if (rc)
			rc = lib_error(rc);
		else
			fprintf(stderr, "gpuprof history: imported %zu run%s from '%s'\n", n,
			        n == 1 ? "" : "s", csv);
	} else if (!strcmp(sub, "list")) {
		rc = gp_history_list(h, pattern, &v);
		rc = rc ? lib_error(rc) : print_tree(v, json, GP_HISTORY_LIST);
	} else if (!strcmp(sub, "changes") || !strcmp(sub, "show")) {
		co.points = !strcmp(sub, "show");
		rc = gp_history_changes(h, pattern, &co, &v);
		if (rc)
			rc = lib_error(rc);
		else if ((miss = unmatched(ops, nops, v))) /* JSON too: a misspelt pattern */
			rc = error("no series matches '%s'", miss);
		else
			rc = print_tree(v, json, co.points ? GP_HISTORY_SHOW : GP_HISTORY_CHANGES);
	} else if (!strcmp(sub, "report")) {
		rc = write_report(h, db_target(db, writes), pattern, shown, &co,
		                  output ? output : "history.html");
	} else if (!strcmp(sub, "check")) {
		int64_t nreg = 0;

		rc = gp_history_check(h, pattern, &co, &v);
		if (rc)
			rc = lib_error(rc);
		else if ((miss = unmatched(ops, nops, gp_obj_get(v, "series"))))
			/* a gate whose pattern is misspelt must not pass */
			rc = error("no series matches '%s'", miss);
		else
			rc = print_tree(v, json, GP_HISTORY_CHECK);
		gp_value_get_int(gp_obj_get(v, "regressions"), &nreg);
		regression = !rc && nreg > 0;
	} else {
		rc = gp_history_export(h, &v);
		rc = rc ? lib_error(rc) : export_jsonl(v, output);
	}
out:
	gp_value_free(v);
	gp_history_close(h);
	free(commit);
	free(branch);
	free(pattern);
	free(shown);
	free(tags);
	return rc ? GP_EXIT_FAILURE : regression ? GP_EXIT_REGRESSION : GP_EXIT_OK;
}
