/* SPDX-License-Identifier: MIT */
/*
 * top-record.c - `gpuprof top --record FILE`: the metrics timeline as JSON
 * lines (docs/metrics-format.md, "gpuprof.metrics/1"): a header line, one
 * "gpuprof.sample/1" line per sample, and an end line with the counts. The
 * file is written as it goes (a crash keeps what was sampled) and synced at
 * the end; `run`, `analyze` and `report` read it. `gpuprof run` writes the
 * same format with gp_metrics_header() and gp_metrics_trailer().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/value.h"
#include "top.h"

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int put_line(FILE *f, const struct gp_value *v)
{
	char *text = NULL;
	size_t len = 0;
	int rc = gp_value_to_json(v, 0, &text, &len);

	if (rc)
		return rc;
	if (fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF)
		rc = -1;
	gp_free(text);
	return rc;
}

int gp_metrics_header(FILE *f, struct gp_sampler *s, int32_t watched_pid)
{
	struct gp_value *h = gp_value_object();
	char host[256] = "";
	const char *why = gp_sampler_gpu_status(s), *lib = gp_sampler_nvml_library(s);
	const char *drv = gp_sampler_driver_version(s);
	int rc = -1;

	if (!h)
		return -1;
	gethostname(host, sizeof(host) - 1);
	if (gp_obj_set_str(h, "schema", "gpuprof.metrics/1") ||
	    gp_obj_set_str(h, "hostname", host) ||
	    gp_obj_set_int(h, "interval_ms", gp_sampler_interval_ms(s)) ||
	    gp_obj_set_int(h, "start_monotonic_ns", clock_ns(CLOCK_MONOTONIC)) ||
	    gp_obj_set_int(h, "start_unix_ns", clock_ns(CLOCK_REALTIME)) ||
	    (why ? gp_obj_set_str(h, "gpu_status", why) : gp_obj_set_null(h, "gpu_status")) ||
	    (lib ? gp_obj_set_str(h, "nvml_library", lib) : gp_obj_set_null(h, "nvml_library")) ||
	    (drv ? gp_obj_set_str(h, "driver_version", drv)
	         : gp_obj_set_null(h, "driver_version")) ||
	    (watched_pid ? gp_obj_set_int(h, "watched_pid", watched_pid)
	                 : gp_obj_set_null(h, "watched_pid")))
		goto out;
	rc = put_line(f, h);
out:
	gp_value_free(h);
	return rc;
}

int gp_metrics_trailer(FILE *f, struct gp_sampler *s, uint64_t n)
{
	struct gp_value *e = gp_value_object();
	int rc = -1;

	if (!e)
		return -1;
	if (gp_obj_set_bool(e, "end", true) || gp_obj_set_int(e, "samples", (int64_t)n) ||
	    gp_obj_set_int(e, "missed_periods", (int64_t)gp_sampler_missed(s)) ||
	    gp_obj_set_int(e, "end_monotonic_ns", clock_ns(CLOCK_MONOTONIC)))
		goto out;
	rc = put_line(f, e);
out:
	gp_value_free(e);
	return rc;
}

int gp_top_record(struct gp_sampler *s, const struct gp_top_opts *o)
{
	uint64_t n = 0;
	FILE *f;
	int rc = 0;

	f = fopen(o->record, "we");
	if (!f)
		return error("cannot write '%s': %s", o->record, strerror(errno));
	if (gp_metrics_header(f, s, o->pid))
		rc = GP_TOP_EWRITE;
	if (!rc)
		rc = gp_top_write_samples(s, o, f, &n);
	if (!rc && gp_metrics_trailer(f, s, n))
		rc = GP_TOP_EWRITE;
	if (!rc && (fflush(f) || fsync(fileno(f))))
		rc = GP_TOP_EWRITE;
	if (rc == GP_TOP_EWRITE)
		rc = error("cannot write '%s': %s", o->record, strerror(errno ? errno : EIO));
	if (fclose(f) && !rc)
		rc = error("cannot write '%s': %s", o->record, strerror(errno));
	if (!rc)
		fprintf(stderr, "gpuprof top: %llu samples written to '%s'\n",
		        (unsigned long long)n, o->record);
	return rc;
}
