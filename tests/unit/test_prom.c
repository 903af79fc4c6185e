/* SPDX-License-Identifier: MIT */
/*
 * test_prom.c - the Prometheus exposition renderer (export/prom.c): the
 * labels are the caller's (escaped; absent ones left out) and never the
 * environment's, unknown values are left out, and the HTTP counters appear
 * only when given.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/prom.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"

static char *render(const struct gp_sample *s, const struct gp__prom_labels *l,
                    const struct gp__prom_http *hc)
{
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(gp__prom_render(s, l, hc, &text, &len), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static void test_labels(void **state)
{
	struct gp_sample *s = calloc(1, sizeof(*s));
	struct gp__prom_labels l = { .hostname = "h\"1", .rank = "3", .job = "j\n9" };
	struct gp__prom_http hc = { 1, 2, 3, 4 };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
