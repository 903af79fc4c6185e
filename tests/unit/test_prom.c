/* SPDX-License-Identifier: MIT */
/*
 * test_prom.c - the Prometheus exposition renderer (gp_sample_to_prom(),
 * export/prom.c): the labels are the caller's (escaped; absent ones left out)
 * and never the environment's, unknown values are left out, the HTTP counters
 * appear only when given, and the options struct is size-versioned.
 */
#include "testutil.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"

static char *render(const struct gp_sample *s, const struct gp_prom_opts *l,
                    const struct gp_prom_http_stats *hc)
{
	struct gp_prom_opts o = { .size = sizeof(o) };
	char *text = NULL;
	size_t len = 0;

	if (l)
		o = *l;
	o.http = hc;
	assert_int_equal(gp_sample_to_prom(s, &o, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static void test_labels(void **state)
{
	struct gp_sample *s = calloc(1, sizeof(*s));
	struct gp_prom_opts l = {
		.size = sizeof(l), .hostname = "h\"1", .rank = "3", .job = "j\n9"
	};
	struct gp_prom_http_stats hc = { 1, 2, 3, 4 };
	char *text;

	(void)state;
	assert_non_null(s);
	s->host.valid = 1ULL << GP_HF_CPU_BUSY;
	s->host.cpu_busy = 0.5;
	s->ngpus = 1;
	s->gpus[0].index = 0;
	snprintf(s->gpus[0].name, sizeof(s->gpus[0].name), "G");
	/* the environment is not read: only the labels passed in */
	setenv("RANK", "7", 1);
	setenv("LOCAL_RANK", "5", 1);
	text = render(s, &l, NULL);
	assert_non_null(strstr(text, "gpuprof_host_cpu_busy_ratio{Hostname=\"h\\\"1\",rank=\"3\","
	                             "job=\"j\\n9\"} 0.5\n"));
	assert_non_null(strstr(text, "gpuprof_gpu_up{gpu=\"0\",UUID=\"\",pci_bus_id=\"\","
	                             "device=\"nvidia0\",modelName=\"G\",Hostname=\"h\\\"1\","
	                             "rank=\"3\",job=\"j\\n9\"} 1\n"));
	assert_null(strstr(text, "local_rank"));
	assert_null(strstr(text, "\"7\""));
	/* an unknown value is left out, never 0 */
	assert_null(strstr(text, "gpuprof_host_load1"));
	assert_null(strstr(text, "gpuprof_gpu_power_watts"));
	assert_null(strstr(text, "gpuprof_http_"));
	gp_free(text);

	/* no labels but the host; the endpoint's counters when given */
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	text = render(s, &l, &hc);
	assert_non_null(strstr(text, "gpuprof_host_cpu_busy_ratio{Hostname=\"\"} 0.5\n"));
	assert_non_null(strstr(text, "gpuprof_http_client_errors_total{Hostname=\"\"} 1\n"));
	assert_non_null(strstr(
	    text, "gpuprof_http_connections_closed_total{Hostname=\"\",reason=\"idle\"} 4\n"));
	gp_free(text);
	unsetenv("RANK");
	unsetenv("LOCAL_RANK");
	free(s);
}

/* NULL options, options from older and newer headers, bad arguments */
static void test_opts(void **state)
{
	struct gp_sample *s = calloc(1, sizeof(*s));
	struct gp_prom_opts big[2];
	char *text = (char *)1;
	size_t len = 0;

	(void)state;
	assert_non_null(s);
	s->host.valid = 1ULL << GP_HF_CPU_BUSY;
	s->host.cpu_busy = 0.25;
	/* NULL opts: no labels but Hostname="", no HTTP counters; len may be NULL */
	assert_int_equal(gp_sample_to_prom(s, NULL, &text, NULL), 0);
	assert_non_null(strstr(text, "gpuprof_host_cpu_busy_ratio{Hostname=\"\"} 0.25\n"));
	assert_null(strstr(text, "gpuprof_http_"));
	gp_free(text);
	/* older headers: a struct that ends before rank, the rest read as defaults */
	memset(big, 0, sizeof(big));
	big[0].hostname = "h";
	big[0].rank = "9";
	big[0].size = (uint32_t)(offsetof(struct gp_prom_opts, hostname) + sizeof(const char *));
	assert_int_equal(gp_sample_to_prom(s, &big[0], &text, &len), 0);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "gpuprof_host_cpu_busy_ratio{Hostname=\"h\"} 0.25\n"));
	assert_null(strstr(text, "rank="));
	gp_free(text);
	/* newer headers asking for more than this library knows: refused */
	big[0].size = sizeof(big);
	((unsigned char *)big)[sizeof(big) - 1] = 1;
	text = (char *)1;
	assert_int_equal(gp_sample_to_prom(s, &big[0], &text, &len), GP_EINVAL);
	assert_null(text);
	/* newer headers with the new fields left zero: accepted */
	((unsigned char *)big)[sizeof(big) - 1] = 0;
	assert_int_equal(gp_sample_to_prom(s, &big[0], &text, &len), 0);
	assert_non_null(strstr(text, "rank=\"9\""));
	gp_free(text);
	/* NULL arguments */
	assert_int_equal(gp_sample_to_prom(NULL, NULL, &text, &len), GP_EINVAL);
	assert_null(text);
	assert_int_equal(gp_sample_to_prom(s, NULL, NULL, &len), GP_EINVAL);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
