/* SPDX-License-Identifier: MIT */
/*
 * test_sampler.c - the real dlopen NVML backend and the sampler, driven by
 * the fake libnvidia-ml of tests/fake (scripted GPUs, versioned and old
 * symbols, a missing required symbol, failures and a GPU lost mid-run), plus
 * the history's downsampling, the thread and the JSON line.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/sample.h"
#include "gpuprof/value.h"

#define GIB (1024ULL * 1024 * 1024)
#define MIB (1024ULL * 1024)

static char lib_full[4096], lib_old[4096], lib_broken[4096];

static int setup(void **state)
{
	const char *dir = getenv("GP_FAKE_NVML_DIR");

	(void)state;
	if (!dir)
		return -1;
	snprintf(lib_full, sizeof(lib_full), "%s/libfake-nvml.so", dir);
	snprintf(lib_old, sizeof(lib_old), "%s/libfake-nvml-old.so", dir);
	snprintf(lib_broken, sizeof(lib_broken), "%s/libfake-nvml-broken.so", dir);
	return 0;
}

static void clear_env(void)
{
	unsetenv("FAKE_NVML_GPUS");
	unsetenv("FAKE_NVML_INIT_FAIL");
	unsetenv("FAKE_NVML_FAIL");
	unsetenv("FAKE_NVML_LOST");
	unsetenv("FAKE_NVML_NOTSUP");
	unsetenv("FAKE_NVML_PROCS");
	unsetenv("FAKE_NVML_CALLS");
}

static struct gp_sampler *open_with(const char *lib, size_t history)
{
	struct gp_sampler_opts o;
	struct gp_sampler *s = NULL;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.nvml_library = lib;
	o.history = history;
	o.interval_ms = 5;
	assert_int_equal(gp_sampler_open(&o, &s), 0);
	assert_non_null(s);
	return s;
}

/* doubles compared within eps (cmocka 1.1's assert_float_equal rounds to float) */
#define assert_near(a, b, eps)                                                                     \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps)))                                                     \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

/* the NVML calls the fake logged to @p fd (FAKE_NVML_CALLS), NUL-terminated */
static void read_calls(int fd, char *buf, size_t cap)
{
	ssize_t n = read(fd, buf, cap - 1);

	assert_true(n > 0);
	buf[n] = 0;
}

#define VALID(g, f) (((g)->valid >> (f)) & 1)

static void test_full(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct gp_sampler *s;

	(void)state;
	clear_env();
	s = open_with(lib_full, 0);
	assert_null(gp_sampler_gpu_status(s));
	assert_string_equal(gp_sampler_driver_version(s), "999.99.fake");
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	assert_int_equal(gp_sampler_sample_now(s, b), 0);
	assert_int_equal(a->ngpus, 2);
	assert_int_equal(b->seq, a->seq + 1);
	for (unsigned g = 0; g < 2; g++) {
		const struct gp_gpu_sample *x = &a->gpus[g], *y = &b->gpus[g];
		char name[64];

		snprintf(name, sizeof(name), "Fake GPU H100 %u", g);
		assert_string_equal(x->name, name);
		assert_int_equal(x->status, 0);
		assert_true(strncmp(x->uuid, "GPU-fake", 8) == 0);
		assert_int_equal(x->mem_total_bytes, g == 0 ? 80 * GIB : 40 * GIB);
		assert_int_equal(x->mem_reserved_bytes, 512 * MIB);
		assert_true(VALID(x, GP_GF_MEM_RESERVED));
		assert_near(x->clock_sm_max_hz, 1980e6, 1);
		assert_near(x->clock_mem_max_hz, 2619e6, 1);
		assert_near(x->temp_slowdown_celsius, 87, 1e-9);
		assert_near(x->power_limit_watts, 700, 1e-9);
		assert_true(VALID(x, GP_GF_ENERGY) && VALID(y, GP_GF_ENERGY));
		/* energy grows by 100 J per fake sample */
		assert_near(y->energy_joules - x->energy_joules, 100, 1e-6);
		/* the first sample has no PCIe rate (needs two counter readings) */
		assert_false(VALID(x, GP_GF_PCIE_TX));
		assert_true(VALID(y, GP_GF_PCIE_TX) && VALID(y, GP_GF_PCIE_RX));
		assert_true(y->pcie_tx_bytes_per_second > 0);
		assert_near(y->pcie_tx_bytes_per_second / y->pcie_rx_bytes_per_second, 2, 1e-9);
		assert_true(VALID(y, GP_GF_UTIL_GPU));
		assert_true(y->util_gpu >= 0 && y->util_gpu <= 1);
		assert_true(VALID(y, GP_GF_CLOCK_REASONS));
		/* processes, from the slow path at open */
		assert_true(VALID(x, GP_GF_PROCS));
		assert_int_equal(x->nprocs, 2);
		assert_int_equal(x->procs_all, 2);
		assert_int_equal(x->procs[0].pid, 1000 + 10 * g);
		assert_int_equal(x->procs[1].mem_bytes, 512 * MIB);
		assert_true(x->procs[0].util_valid);
	}
	/* the utilisation follows the fake's script: (s*10 + g*5) % 101 */
	assert_near(b->gpus[1].util_gpu - b->gpus[0].util_gpu, 0.05, 1e-9);
	gp_sampler_close(s);
	free(a);
	free(b);
}

static void test_old_symbols(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_sampler *s;
	char calls[] = "/tmp/gp-nvml-calls-XXXXXX";
	int fd = mkstemp(calls);
	char buf[65536];

	(void)state;
	assert_true(fd >= 0);
	clear_env();
	setenv("FAKE_NVML_CALLS", calls, 1);
	s = open_with(lib_old, 0);
	assert_null(gp_sampler_gpu_status(s));
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	assert_int_equal(a->ngpus, 2);
	/* v1 memory: no reserved amount; no energy counter, no field values */
	assert_true(VALID(&a->gpus[0], GP_GF_MEM_TOTAL));
	assert_false(VALID(&a->gpus[0], GP_GF_MEM_RESERVED));
	assert_false(VALID(&a->gpus[0], GP_GF_ENERGY));
	assert_true(VALID(&a->gpus[0], GP_GF_POWER));
	assert_true(VALID(&a->gpus[0], GP_GF_TEMP));
	assert_true(VALID(&a->gpus[0], GP_GF_CLOCK_REASONS));
	assert_true(VALID(&a->gpus[0], GP_GF_PROCS));
	assert_int_equal(a->gpus[1].procs[0].pid, 1010);
	assert_false(a->gpus[1].procs[0].util_valid);
	gp_sampler_close(s);
	read_calls(fd, buf, sizeof(buf));
	assert_non_null(strstr(buf, "nvmlInit\n"));
	assert_null(strstr(buf, "nvmlInit_v2"));
	assert_non_null(strstr(buf, "nvmlDeviceGetMemoryInfo\n"));
	assert_non_null(strstr(buf, "nvmlDeviceGetCurrentClocksThrottleReasons\n"));
	close(fd);
	unlink(calls);
	free(a);
}

static void test_newest_symbols_first(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_sampler *s;
	char calls[] = "/tmp/gp-nvml-calls-XXXXXX";
	int fd = mkstemp(calls);
	char buf[65536];

	(void)state;
	assert_true(fd >= 0);
	clear_env();
	setenv("FAKE_NVML_CALLS", calls, 1);
	s = open_with(lib_full, 0);
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	gp_sampler_close(s);
	read_calls(fd, buf, sizeof(buf));
	assert_non_null(strstr(buf, "nvmlInit_v2\n"));
	assert_null(strstr(buf, "nvmlInit\n"));
	assert_non_null(strstr(buf, "nvmlDeviceGetMemoryInfo_v2\n"));
	assert_non_null(strstr(buf, "nvmlDeviceGetComputeRunningProcesses_v3\n"));
	assert_non_null(strstr(buf, "nvmlDeviceGetCurrentClocksEventReasons\n"));
	/* the byte counters are there: the 20 ms call is never made */
	assert_null(strstr(buf, "nvmlDeviceGetPcieThroughput"));
	close(fd);
	unlink(calls);
	free(a);
}

static void test_no_gpu_reasons(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_sampler_opts o;
	struct gp_sampler *s;
	const char *why;

	(void)state;
	clear_env();
	s = open_with(lib_broken, 0);
	why = gp_sampler_gpu_status(s);
	assert_non_null(why);
	assert_non_null(strstr(why, "nvmlDeviceGetCount"));
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	assert_int_equal(a->ngpus, 0);
	gp_sampler_close(s);

	setenv("FAKE_NVML_INIT_FAIL", "9", 1);
	s = open_with(lib_full, 0);
	why = gp_sampler_gpu_status(s);
	assert_non_null(why);
	assert_non_null(strstr(why, "nvmlInit failed"));
	gp_sampler_close(s);
	clear_env();

	setenv("FAKE_NVML_GPUS", "0", 1);
	s = open_with(lib_full, 0);
	assert_string_equal(gp_sampler_gpu_status(s), "NVML found no GPU");
	gp_sampler_close(s);
	clear_env();

	s = open_with("/nonexistent/libnvidia-ml.so.1", 0);
	why = gp_sampler_gpu_status(s);
	assert_non_null(why);
	assert_non_null(strstr(why, "no NVML"));
	gp_sampler_close(s);

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.no_gpu = true;
	assert_int_equal(gp_sampler_open(&o, &s), 0);
	assert_string_equal(gp_sampler_gpu_status(s), "GPU sampling disabled");
	gp_sampler_close(s);
	free(a);
}

static void test_failures_mid_run(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_sampler *s;

	(void)state;
	clear_env();
	/*
	 * utilisation fails from its 5th call on (2 GPUs: the 3rd sample); GPU 1
	 * is lost from its 3rd utilisation call on, i.e. within the 3rd sample
	 */
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetUtilizationRates:4", 1);
	setenv("FAKE_NVML_LOST", "1:3", 1);
	s = open_with(lib_full, 0);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(gp_sampler_sample_now(s, a), 0);
		assert_int_equal(a->ngpus, 2);
		/* GPU 0 stays readable */
		assert_int_equal(a->gpus[0].status, 0);
		assert_true(VALID(&a->gpus[0], GP_GF_MEM_USED));
		assert_int_equal(VALID(&a->gpus[0], GP_GF_UTIL_GPU), k < 2);
		if (k < 2) {
			assert_int_equal(a->gpus[1].status, 0);
		} else {
			/* lost: reported, its dynamic fields unknown, the rest goes on */
			assert_int_equal(a->gpus[1].status, GP_ENODEV);
			assert_non_null(strstr(a->gpus[1].error, "lost"));
			assert_false(VALID(&a->gpus[1], GP_GF_MEM_USED));
			assert_false(VALID(&a->gpus[1], GP_GF_PROCS));
		}
	}
	gp_sampler_close(s);
	clear_env();
	free(a);
}

static void test_history_downsampling(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_hist_point *h = malloc(64 * sizeof(*h));
	struct gp_sampler_opts o;
	struct gp_sampler *s;
	uint64_t total = 0;
	size_t n;

	(void)state;
	clear_env();
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.history = 8;
	o.no_gpu = true;
	assert_int_equal(gp_sampler_open(&o, &s), 0);
	for (int k = 0; k < 20; k++)
		assert_int_equal(gp_sampler_sample_now(s, a), 0);
	n = gp_sampler_history(s, h, 64);
	assert_true(n <= 8 && n >= 4);
	for (size_t i = 0; i < n; i++) {
		total += h[i].n;
		assert_true(h[i].t0_ns <= h[i].t1_ns);
		if (i)
			assert_true(h[i].t0_ns > h[i - 1].t1_ns);
	}
	/* nothing dropped: every sample is in exactly one point */
	assert_int_equal(total, 20);
	assert_int_equal(gp_sampler_downsampled(s), 20 - n);
	/* the oldest points are the coarsest */
	assert_true(h[0].n >= h[n - 1].n);
	assert_int_equal(h[n - 1].n, 1);
	/* no GPU: unknown, never 0 */
	assert_true(isnan(h[n - 1].gpu[0][GP_GF_MEM_USED]));
	/* asking for fewer gives the newest */
	assert_int_equal(gp_sampler_history(s, h, 2), 2);
	assert_int_equal(h[1].n, 1);
	gp_sampler_close(s);
	free(h);
	free(a);
}

/*
 * With GPUs: each point holds the GPUs the sampler found (the rest NaN), and
 * merged points are the sample-weighted means (fake GPU 0's utilisation is
 * 10k % 101 % at its k-th sample; memory totals are constant).
 */
static void test_history_gpus(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_hist_point *h = malloc(16 * sizeof(*h));
	struct gp_sampler *s;
	double want = 0, got = 0;
	uint64_t total = 0;
	size_t n;

	(void)state;
	clear_env();
	setenv("FAKE_NVML_GPUS", "2", 1);
	s = open_with(lib_full, 8);
	for (int k = 0; k < 16; k++) {
		assert_int_equal(gp_sampler_sample_now(s, a), 0);
		want += (10 * k % 101) / 100.0;
	}
	n = gp_sampler_history(s, h, 16);
	assert_true(n <= 8 && n >= 4);
	for (size_t i = 0; i < n; i++) {
		total += h[i].n;
		got += h[i].n * (double)h[i].gpu[0][GP_GF_UTIL_GPU];
		assert_near(h[i].gpu[0][GP_GF_MEM_TOTAL], 80.0 * 1073741824.0, 0);
		assert_near(h[i].gpu[1][GP_GF_MEM_TOTAL], 40.0 * 1073741824.0, 0);
		assert_true(isnan(h[i].gpu[2][GP_GF_MEM_TOTAL]));
		assert_true(isnan(h[i].gpu[GP_SAMPLE_MAX_GPUS - 1][GP_GF_UTIL_GPU]));
	}
	assert_int_equal(total, 16);
	assert_true(h[0].n > 1);
	assert_near(got, want, 1e-4);
	gp_sampler_close(s);
	clear_env();
	free(h);
	free(a);
}

static void test_thread(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_sampler *s;
	uint64_t seq = 0;

	(void)state;
	clear_env();
	s = open_with(lib_full, 0);
	assert_int_equal(gp_sampler_start(s), 0);
	for (int k = 0; k < 10; k++) {
		assert_int_equal(gp_sampler_wait(s, seq, 10000, a), 0);
		assert_true(a->seq > seq);
		seq = a->seq;
		assert_int_equal(a->ngpus, 2);
	}
	/* sampling on another thread is refused while it runs */
	assert_int_equal(gp_sampler_sample_now(s, a), GP_EINVAL);
	assert_int_equal(gp_sampler_latest(s, a), 0);
	assert_true(a->seq >= seq);
	gp_sampler_close(s);
	free(a);
}

static void test_interval_bounds(void **state)
{
	struct gp_sampler_opts o;
	struct gp_sampler *s = NULL;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.no_gpu = true;
	o.interval_ms = GP_INTERVAL_MAX_MS + 1;
	assert_int_equal(gp_sampler_open(&o, &s), GP_EINVAL);
	assert_null(s);
	o.interval_ms = 0;
	assert_int_equal(gp_sampler_open(&o, &s), 0);
	assert_int_equal(gp_sampler_interval_ms(s), 100);
	gp_sampler_close(s);
}

static void test_no_procs(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_sampler_opts o;
	struct gp_sampler *s = NULL;

	(void)state;
	clear_env();
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.nvml_library = lib_full;
	o.no_procs = true;
	assert_int_equal(gp_sampler_open(&o, &s), 0);
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	assert_int_equal(a->ngpus, 2);
	assert_false(VALID(&a->gpus[0], GP_GF_PROCS));
	assert_int_equal(a->gpus[0].nprocs, 0);
	assert_true(VALID(&a->gpus[0], GP_GF_MEM_USED));
	gp_sampler_close(s);
	free(a);
}

static void test_reasons_str(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(gp_clock_reasons_str(0, ",", buf, sizeof(buf)), "");
	assert_string_equal(gp_clock_reasons_str(0x24, ",", buf, sizeof(buf)),
	                    "power_cap,sw_thermal");
	assert_string_equal(gp_clock_reasons_str(0x1 | 0x1000, " ", buf, sizeof(buf)),
	                    "gpu_idle 0x1000");
	/* truncation stays NUL-terminated */
	assert_int_equal(strlen(gp_clock_reasons_str(0x1ff, ",", buf, 10)), 9);
}

static void test_json(void **state)
{
	struct gp_sample *a = malloc(sizeof(*a));
	struct gp_value *v = NULL;
	struct gp_sampler *s;
	char *text = NULL;
	size_t len = 0;
	double d;

	(void)state;
	clear_env();
	s = open_with(lib_old, 0);
	assert_int_equal(gp_sampler_sample_now(s, a), 0);
	assert_int_equal(gp_sample_to_json(a, &text, &len), 0);
	assert_int_equal(gp_value_parse(text, len, &v, NULL), 0);
	assert_string_equal(gp_value_get_str(gp_obj_get(v, "schema")), "gpuprof.sample/1");
	assert_true(gp_value_get_double(gp_value_path(v, "gpus/0/memory_total_bytes"), &d));
	assert_near(d, 80.0 * GIB, 1);
	/* unknown is null, never 0 */
	assert_int_equal(gp_value_type(gp_value_path(v, "gpus/0/energy_joules")), GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(v, "gpus/0/memory_reserved_bytes")),
	                 GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(v, "host/cpu_busy_ratio")), GP_VALUE_NULL);
	assert_true(
	    gp_value_get_double(gp_value_path(v, "gpus/1/processes/0/memory_used_bytes"), &d));
	assert_near(d, 256.0 * MIB, 1);
	gp_value_free(v);
	gp_free(text);
	gp_sampler_close(s);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_old_symbols),
		cmocka_unit_test(test_newest_symbols_first),
		cmocka_unit_test(test_no_gpu_reasons),
		cmocka_unit_test(test_failures_mid_run),
		cmocka_unit_test(test_history_downsampling),
		cmocka_unit_test(test_history_gpus),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_interval_bounds),
		cmocka_unit_test(test_no_procs),
		cmocka_unit_test(test_reasons_str),
		cmocka_unit_test(test_json),
	};

	if (!getenv("GP_FAKE_NVML_DIR")) {
		fprintf(stderr, "GP_FAKE_NVML_DIR is not set: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, NULL);
}
