/* SPDX-License-Identifier: MIT */
/*
 * cmd-top.c - `gpuprof top`: the live monitor over the library's sampler.
 * Modes: the full-screen monitor (top-ui.c), JSON lines on stdout (--json),
 * a metrics timeline file (--record, top-record.c), and Prometheus exposition
 * over HTTP (--listen) or into a node_exporter textfile (--textfile), prom.c.
 * The entry point only: the stop conditions and the sample loop the modes
 * share are in top-loop.c, which calls nothing back.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"
#include "top.h"

static const char usage_text[] =
    "usage: gpuprof top [options]\n"
    "\n"
    "    --json              JSON lines on standard output (schema gpuprof.sample/1)\n"
    "    --record FILE       write the metrics timeline to FILE (gpuprof.metrics/1)\n"
    "    --listen ADDR:PORT  serve Prometheus metrics on /metrics (e.g. 127.0.0.1:9400)\n"
    "    --listen-timeout S  close a connection that takes over S seconds to send a\n"
    "                        request and take the answer, 1 to 3600 (default: 5)\n"
    "    --listen-per-address N\n"
    "                        connections from one client address, 0 to 64, 0: no limit\n"
    "                        of its own (default: 8; 64 in all)\n"
    "    --textfile DIR      write DIR/gpuprof.prom for node_exporter's textfile collector\n"
    "    --interval MS       sampling interval in ms, 1 to 60000 (default: 1000; 100 with\n"
    "                        --record)\n"
    "    --count N           stop after N samples (default: none)\n"
    "    --duration S        stop after S seconds (default: none)\n"
    "    --pid PID           also follow the CPU and memory of process PID and its children\n"
    "    --no-gpu            do not load NVML\n"
    "    --no-procs          do not list the processes using each GPU\n"
    "    -h, --help          this help; 'gpuprof help top' for the docs\n";

enum {
	OPT_JSON = 256,
	OPT_RECORD,
	OPT_LISTEN,
	OPT_LISTEN_TIMEOUT,
	OPT_LISTEN_PER_ADDRESS,
	OPT_TEXTFILE,
	OPT_INTERVAL,
	OPT_COUNT,
	OPT_DURATION,
	OPT_PID,
	OPT_NO_GPU,
	OPT_NO_PROCS,
};

/* --json: a sample a line, flushed, so that a reader of a pipe sees each as it comes */
static int json_line(void *arg, const struct gp_sample *smp)
{
	char *line = NULL;
	size_t len = 0;
	bool ok;

	(void)arg;
	if (gp_sample_to_json(smp, &line, &len))
		return error("%s", gp_last_error());
	errno = 0;
	ok = fwrite(line, 1, len, stdout) == len && fputc('\n', stdout) != EOF &&
	     fflush(stdout) == 0;
	gp_free(line);
	if (!ok) {
		/* main reports it (quietly for a closed pipe) */
		gp_cli_stdout_errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

static void parse_args(int argc, const char **argv, struct gp_top_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "listen-timeout", required_argument, NULL, OPT_LISTEN_TIMEOUT },
		{ "listen-per-address", required_argument, NULL, OPT_LISTEN_PER_ADDRESS },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "no-gpu", no_argument, NULL, OPT_NO_GPU },
		{ "no-procs", no_argument, NULL, OPT_NO_PROCS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *limit_opt = NULL;
	int c;

	o->listen_timeout_s = GP_LISTEN_TIMEOUT_S;
	o->listen_per_address = GP_LISTEN_PER_ADDRESS;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_LISTEN:
			o->listen = optarg;
			break;
		case OPT_LISTEN_TIMEOUT:
			o->listen_timeout_s = (uint32_t)parse_count("--listen-timeout", optarg,
			                                            GP_LISTEN_TIMEOUT_MAX_S);
			if (!o->listen_timeout_s)
				usage_die("option '--listen-timeout' expects 1 to %d s, not '%s'",
				          GP_LISTEN_TIMEOUT_MAX_S, optarg);
			limit_opt = "--listen-timeout";
			break;
		case OPT_LISTEN_PER_ADDRESS:
			o->listen_per_address = (uint32_t)parse_count(
			    "--listen-per-address", optarg, GP_LISTEN_MAX_CONNECTIONS);
			limit_opt = "--listen-per-address";
			break;
		case OPT_TEXTFILE:
			o->textfile = optarg;
			break;
		case OPT_INTERVAL:
			o->interval_ms =
			    (uint32_t)parse_count("--interval", optarg, GP_INTERVAL_MAX_MS);
			if (o->interval_ms < GP_INTERVAL_MIN_MS)
				usage_die("option '--interval' expects 1 to %d ms, not '%s'",
				          GP_INTERVAL_MAX_MS, optarg);
			break;
		case OPT_COUNT:
			o->count = (uint64_t)parse_count("--count", optarg, INT64_MAX);
			break;
		case OPT_DURATION:
			o->duration_s =
			    (uint64_t)parse_count("--duration", optarg, 100LL * 365 * 86400);
			break;
		case OPT_PID:
			o->pid = (int32_t)parse_count("--pid", optarg, INT32_MAX);
			break;
		case OPT_NO_GPU:
			o->no_gpu = true;
			break;
		case OPT_NO_PROCS:
			o->no_procs = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(GP_EXIT_OK);
		default:
			exit(bad_option("top", c, argv, usage_text));
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuprof top: unexpected argument '%s'\n%s", argv[optind],
		        usage_text);
		exit(GP_EXIT_USAGE);
	}
	if (limit_opt && !o->listen)
		usage_die("option '%s' needs '--listen'", limit_opt);
	if (o->json + (o->record != NULL) > 1)
		usage_die("options '--json' and '--record' cannot be combined");
	if (o->pid && kill(o->pid, 0) != 0 && errno == ESRCH)
		usage_die("option '--pid': no process %d", (int)o->pid);
}

int cmd_top(int argc, const char **argv)
{
	struct gp_top_opts o;
	struct gp_sampler_opts so;
	struct gp_sampler *s = NULL;
	struct gp_prom *prom = NULL;
	const char *why;
	int rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	if (!o.interval_ms)
		o.interval_ms = o.record ? 100 : 1000;

	memset(&so, 0, sizeof(so));
	so.size = sizeof(so);
	so.interval_ms = o.interval_ms;
	so.watch_pid = o.pid;
	so.no_gpu = o.no_gpu;
	so.no_procs = o.no_procs;
	if (gp_sampler_open(&so, &s))
		return error("%s", gp_last_error());
	why = gp_sampler_gpu_status(s);
	if (why && (o.json || o.record || o.listen || o.textfile))
		fprintf(stderr, "gpuprof top: no GPU shown: %s\n", why);
	gp_top_catch_signals();
	if (gp_sampler_start(s)) {
		rc = error("%s", gp_last_error());
		goto out;
	}
	if (o.listen || o.textfile) {
		if ((rc = gp_prom_start(&prom, s, &o)))
			goto out;
	}
	if (o.json)
		rc = gp_top_each_sample(s, &o, json_line, NULL);
	else if (o.record)
		rc = gp_top_record(s, &o);
	else if (prom)
		rc = gp_prom_wait(prom, &o);
	else
		rc = gp_top_ui(s, &o);
out:
	gp_prom_stop(prom);
	gp_sampler_close(s);
	/* SIGINT and SIGTERM are the normal way to stop: exit 0 after cleaning up */
	return rc < 0 ? GP_EXIT_FAILURE : rc;
}
