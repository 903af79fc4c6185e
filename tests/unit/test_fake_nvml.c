/* SPDX-License-Identifier: MIT */
/*
 * test_fake_nvml.c - smoke test of the fake NVML (tests/fake/fake-nvml.c)
 * that the sampler's tests rely on: dlopens $GP_FAKE_NVML_DIR/libfake-nvml.so
 * (skips with 77 when the variable is unset) and checks its symbol sets, a few
 * scripted values, the struct-version checks, the count protocol, and the
 * FAKE_NVML_* knobs. Each test starts from a clean environment and leaves NVML
 * shut down.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sample/nvml-types.h"
#include "util/error.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)
#define MIB (1024ULL * 1024ULL)

struct nvml {
#define FN_PTR(ret, name, params) ret(*name) params;
	GP_NVML_FUNCS(FN_PTR)
#undef FN_PTR
};

static const char *const all_names[] = {
#define FN_NAME(ret, name, params) #name,
	GP_NVML_FUNCS(FN_NAME)
#undef FN_NAME
};

static const char *fake_dir;
static void *lib;
static struct nvml F;

static const char *const env_vars[] = {
	"FAKE_NVML_GPUS",   "FAKE_NVML_PROCS", "FAKE_NVML_INIT_FAIL", "FAKE_NVML_FAIL",
	"FAKE_NVML_NOTSUP", "FAKE_NVML_LOST",  "FAKE_NVML_CALLS",
};

static void *open_variant(const char *suffix)
{
	char path[PATH_MAX];
	void *h;

	snprintf(path, sizeof(path), "%s/libfake-nvml%s.so", fake_dir, suffix);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());
	return h;
}

static int group_setup(void **state)
{
	(void)state;
	lib = open_variant("");
#define FN_LOAD(ret, name, params) F.name = (ret(*) params)dlsym(lib, #name);
	GP_NVML_FUNCS(FN_LOAD)
#undef FN_LOAD
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	dlclose(lib);
	return 0;
}

static int setup(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(env_vars); i++)
		unsetenv(env_vars[i]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	while (F.nvmlShutdown() == NVML_SUCCESS)
		;
	return 0;
}

static void init(void)
{
	assert_int_equal(F.nvmlInit_v2(), NVML_SUCCESS);
}

static nvmlDevice_t dev(unsigned i)
{
	nvmlDevice_t d = NULL;

	assert_int_equal(F.nvmlDeviceGetHandleByIndex_v2(i, &d), NVML_SUCCESS);
	assert_non_null(d);
	return d;
}

static unsigned power(nvmlDevice_t d)
{
	unsigned mw = 0;

	assert_int_equal(F.nvmlDeviceGetPowerUsage(d, &mw), NVML_SUCCESS);
	return mw;
}

static void sample(nvmlDevice_t d, unsigned gpu, unsigned mem)
{
	nvmlUtilization_t u;

	assert_int_equal(F.nvmlDeviceGetUtilizationRates(d, &u), NVML_SUCCESS);
	assert_int_equal(u.gpu, gpu);
	assert_int_equal(u.memory, mem);
}

static void test_symbols(void **state)
{
	static const char *const old_lacks[] = {
		"nvmlInit_v2",
		"nvmlDeviceGetCount_v2",
		"nvmlDeviceGetHandleByIndex_v2",
		"nvmlDeviceGetPciInfo_v3",
		"nvmlDeviceGetMemoryInfo_v2",
		"nvmlDeviceGetTemperatureV",
		"nvmlDeviceGetCurrentClocksEventReasons",
		"nvmlDeviceGetComputeRunningProcesses_v3",
		"nvmlDeviceGetComputeRunningProcesses_v2",
		"nvmlDeviceGetFieldValues",
		"nvmlDeviceGetTotalEnergyConsumption",
		"nvmlDeviceGetProcessUtilization",
	};
	void *old, *broken;
	size_t i, j;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(all_names); i++)
		if (!dlsym(lib, all_names[i]))
			fail_msg("libfake-nvml.so lacks %s", all_names[i]);

	old = open_variant("-old");
	for (i = 0; i < GP_ARRAY_SIZE(all_names); i++) {
		bool lacks = false;

		for (j = 0; j < GP_ARRAY_SIZE(old_lacks); j++)
			lacks |= strcmp(all_names[i], old_lacks[j]) == 0;
		if (lacks != (dlsym(old, all_names[i]) == NULL))
			fail_msg("libfake-nvml-old.so: %s %s", all_names[i],
			         lacks ? "present" : "missing");
	}
	dlclose(old);

	broken = open_variant("-broken");
	for (i = 0; i < GP_ARRAY_SIZE(all_names); i++) {
		bool lacks = strcmp(all_names[i], "nvmlDeviceGetCount_v2") == 0 ||
		             strcmp(all_names[i], "nvmlDeviceGetCount") == 0;

		if (lacks != (dlsym(broken, all_names[i]) == NULL))
			fail_msg("libfake-nvml-broken.so: %s %s", all_names[i],
			         lacks ? "present" : "missing");
	}
	dlclose(broken);
}

static void test_lifecycle(void **state)
{
	nvmlDevice_t d;
	unsigned n = 0, mw;

	(void)state;
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
	assert_int_equal(F.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_ERROR_UNINITIALIZED);
	assert_int_equal(F.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
	assert_string_equal(F.nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
	assert_string_equal(F.nvmlErrorString(NVML_ERROR_INSUFFICIENT_SIZE), "Insufficient Size");
	assert_string_equal(F.nvmlErrorString(12345), "Unknown Error");

	/* reference-counted, as NVML */
	init();
	assert_int_equal(F.nvmlInit(), NVML_SUCCESS);
	d = dev(0);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
	assert_int_equal(n, 2);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	assert_int_equal(F.nvmlDeviceGetPowerUsage(d, &mw), NVML_ERROR_UNINITIALIZED);

	/* the environment is read again at the next first init */
	setenv("FAKE_NVML_GPUS", "3", 1);
	init();
	assert_int_equal(F.nvmlDeviceGetCount(&n), NVML_SUCCESS);
	assert_int_equal(n, 3);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	setenv("FAKE_NVML_GPUS", "0", 1);
	init();
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(F.nvmlDeviceGetHandleByIndex_v2(0, &d), NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	setenv("FAKE_NVML_GPUS", "8", 1);
	init();
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
	assert_int_equal(n, 8);
	assert_int_equal(power(dev(7)), 100000 + 5000 * 7);
}

static void test_static(void **state)
{
	char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	nvmlDevice_t d0, d1, bad;
	nvmlPciInfo_t pci;
	unsigned mw;
	int not_a_device;

	(void)state;
	init();
	d0 = dev(0);
	d1 = dev(1);
	assert_ptr_not_equal(d0, d1);
	assert_int_equal(F.nvmlDeviceGetHandleByIndex_v2(2, &bad), NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(F.nvmlDeviceGetHandleByIndex_v2(0, NULL), NVML_ERROR_INVALID_ARGUMENT);

	assert_int_equal(F.nvmlDeviceGetName(d1, buf, sizeof(buf)), NVML_SUCCESS);
	assert_string_equal(buf, "Fake GPU H100 1");
	assert_int_equal(F.nvmlDeviceGetName(d1, buf, 15), NVML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(F.nvmlDeviceGetUUID(d1, buf, sizeof(buf)), NVML_SUCCESS);
	assert_string_equal(buf, "GPU-fake0000-0000-0000-0000-000000000001");
	assert_int_equal(F.nvmlSystemGetDriverVersion(buf, sizeof(buf)), NVML_SUCCESS);
	assert_string_equal(buf, "999.99.fake");

	assert_int_equal(F.nvmlDeviceGetPciInfo_v3(d0, &pci), NVML_SUCCESS);
	assert_string_equal(pci.busId, "00000000:10:00.0");
	assert_string_equal(pci.busIdLegacy, "0000:10:00.0");
	assert_int_equal(pci.bus, 0x10);
	assert_int_equal(F.nvmlDeviceGetPciInfo_v2(d1, &pci), NVML_SUCCESS);
	assert_string_equal(pci.busId, "00000000:11:00.0");
	assert_int_equal(pci.domain, 0);
	assert_int_equal(pci.device, 0);

	/* handles and output pointers are checked */
	bad = (nvmlDevice_t)(void *)&not_a_device;
	assert_int_equal(F.nvmlDeviceGetPowerUsage(bad, &mw), NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(F.nvmlDeviceGetPowerUsage(NULL, &mw), NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(F.nvmlDeviceGetPowerUsage(d0, NULL), NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(F.nvmlDeviceGetPciInfo_v3(d0, NULL), NVML_ERROR_INVALID_ARGUMENT);
}

static void test_samples(void **state)
{
	nvmlMemory_v2_t m2 = { 0 };
	nvmlMemory_t m1;
	nvmlTemperature_v1_t t = { 0 };
	nvmlFieldValue_t fv[5];
	nvmlDevice_t d0, d1;
	unsigned v;
	unsigned long long ull;

	(void)state;
	init();
	d0 = dev(0);
	d1 = dev(1);

	/* s = 0 on GPU 1 */
	assert_int_equal(F.nvmlDeviceGetMemoryInfo_v2(d1, &m2),
	                 NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	m2.version = nvmlMemory_v2;
	assert_int_equal(F.nvmlDeviceGetMemoryInfo_v2(d1, &m2), NVML_SUCCESS);
	assert_int_equal(m2.total, 40 * GIB);
	assert_int_equal(m2.reserved, 512 * MIB);
	assert_int_equal(m2.used, 2 * GIB);
	assert_int_equal(m2.free, 40 * GIB - 512 * MIB - 2 * GIB);
	assert_int_equal(F.nvmlDeviceGetMemoryInfo(d0, &m1), NVML_SUCCESS);
	assert_int_equal(m1.total, 85899345920ULL);
	assert_int_equal(m1.used, 1 * GIB);
	assert_int_equal(m1.free, 79 * GIB);
	assert_int_equal(F.nvmlDeviceGetCurrentClocksEventReasons(d1, &ull), NVML_SUCCESS);
	assert_int_equal(ull, GP_NVML_CLOCKS_EVENT_GPU_IDLE);
	sample(d1, 5, 1);

	/* s = 1 */
	assert_int_equal(power(d1), 106000);
	assert_int_equal(power(d0), 100000); /* GPU 0 has its own count */
	assert_int_equal(F.nvmlDeviceGetEnforcedPowerLimit(d1, &v), NVML_SUCCESS);
	assert_int_equal(v, 700000);
	assert_int_equal(F.nvmlDeviceGetTotalEnergyConsumption(d1, &ull), NVML_SUCCESS);
	assert_int_equal(ull, 2100000);
	assert_int_equal(F.nvmlDeviceGetTemperatureV(d1, &t), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	t.version = nvmlTemperature_v1;
	t.sensorType = 1;
	assert_int_equal(F.nvmlDeviceGetTemperatureV(d1, &t), NVML_ERROR_INVALID_ARGUMENT);
	t.sensorType = NVML_TEMPERATURE_GPU;
	assert_int_equal(F.nvmlDeviceGetTemperatureV(d1, &t), NVML_SUCCESS);
	assert_int_equal(t.temperature, 42);
	assert_int_equal(F.nvmlDeviceGetTemperature(d1, NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
	assert_int_equal(v, 42);
	assert_int_equal(
	    F.nvmlDeviceGetTemperatureThreshold(d1, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v),
	    NVML_SUCCESS);
	assert_int_equal(v, 87);
	assert_int_equal(
	    F.nvmlDeviceGetTemperatureThreshold(d1, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v),
	    NVML_SUCCESS);
	assert_int_equal(v, 92);
	assert_int_equal(F.nvmlDeviceGetClockInfo(d1, NVML_CLOCK_SM, &v), NVML_SUCCESS);
	assert_int_equal(v, 1400);
	assert_int_equal(F.nvmlDeviceGetClockInfo(d1, NVML_CLOCK_MEM, &v), NVML_SUCCESS);
	assert_int_equal(v, 2619);
	assert_int_equal(F.nvmlDeviceGetClockInfo(d1, 3, &v), NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(F.nvmlDeviceGetMaxClockInfo(d1, NVML_CLOCK_GRAPHICS, &v), NVML_SUCCESS);
	assert_int_equal(v, 1980);
	assert_int_equal(F.nvmlDeviceGetCurrentClocksThrottleReasons(d1, &ull), NVML_SUCCESS);
	assert_int_equal(ull, GP_NVML_CLOCKS_EVENT_SW_POWER_CAP);
	sample(d1, 15, 6);

	/* s = 2 */
	assert_int_equal(F.nvmlDeviceGetCurrentClocksEventReasons(d1, &ull), NVML_SUCCESS);
	assert_int_equal(ull, 0x24);
	memset(fv, 0, sizeof(fv));
	fv[0].fieldId = NVML_FI_DEV_POWER_INSTANT;
	fv[1].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
	fv[2].fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
	fv[3].fieldId = NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
	fv[4].fieldId = 4242;
	assert_int_equal(F.nvmlDeviceGetFieldValues(d1, 5, fv), NVML_SUCCESS);
	assert_int_equal(fv[0].nvmlReturn, NVML_SUCCESS);
	assert_int_equal(fv[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
	assert_int_equal(fv[0].value.uiVal, 107000);
	assert_true(fv[0].timestamp > 0);
	assert_int_equal(fv[1].value.ullVal, 2200000);
	assert_int_equal(fv[2].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
	assert_int_equal(fv[2].value.ullVal, 6000000000ULL);
	assert_int_equal(fv[3].value.ullVal, 3000000000ULL);
	assert_int_equal(fv[4].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(F.nvmlDeviceGetPcieThroughput(d1, NVML_PCIE_UTIL_TX_BYTES, &v),
	                 NVML_SUCCESS);
	assert_int_equal(v, 2000);
	assert_int_equal(F.nvmlDeviceGetPcieThroughput(d1, NVML_PCIE_UTIL_RX_BYTES, &v),
	                 NVML_SUCCESS);
	assert_int_equal(v, 1000);
}

static void test_procs(void **state)
{
	nvmlProcessInfo_t p[4];
	nvmlProcessInfo_v1_t p1[4];
	nvmlProcessUtilizationSample_t u[4];
	unsigned n;
	nvmlDevice_t d1;
	unsigned long long ts;

	(void)state;
	init();
	d1 = dev(1);

	n = 0;
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses_v3(d1, &n, NULL),
	                 NVML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(n, 2);
	n = 1;
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses_v3(d1, &n, p),
	                 NVML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(n, 2);
	n = 4;
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses_v3(d1, &n, p), NVML_SUCCESS);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].pid, 1010);
	assert_int_equal(p[1].pid, 1011);
	assert_int_equal(p[1].usedGpuMemory, 512 * MIB);
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses_v3(d1, NULL, p),
	                 NVML_ERROR_INVALID_ARGUMENT);
	n = 4;
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses(d1, &n, p1), NVML_SUCCESS);
	assert_int_equal(n, 2);
	assert_int_equal(p1[0].pid, 1010);
	assert_int_equal(p1[0].usedGpuMemory, 256 * MIB);

	n = 0;
	assert_int_equal(F.nvmlDeviceGetProcessUtilization(d1, NULL, &n, 0),
	                 NVML_ERROR_INSUFFICIENT_SIZE);
	assert_int_equal(n, 2);
	n = 4;
	assert_int_equal(F.nvmlDeviceGetProcessUtilization(d1, u, &n, 0), NVML_SUCCESS);
	assert_int_equal(n, 2);
	assert_int_equal(u[0].pid, 1010);
	assert_int_equal(u[0].smUtil, 10);
	assert_int_equal(u[1].smUtil, 20);
	ts = u[0].timeStamp;
	assert_true(ts > 0);
	n = 4;
	assert_int_equal(F.nvmlDeviceGetProcessUtilization(d1, u, &n, ts), NVML_SUCCESS);
	assert_true(u[0].timeStamp > ts);
	n = 4;
	assert_int_equal(F.nvmlDeviceGetProcessUtilization(d1, u, &n, ~0ULL), NVML_ERROR_NOT_FOUND);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);

	setenv("FAKE_NVML_PROCS", "0", 1);
	init();
	n = 0;
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses_v2(dev(0), &n, NULL), NVML_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(F.nvmlDeviceGetProcessUtilization(dev(0), NULL, &n, 0),
	                 NVML_ERROR_NOT_FOUND);
}

static void test_fail(void **state)
{
	nvmlMemory_v2_t m2 = { .version = nvmlMemory_v2 };
	nvmlDevice_t d0, d1;
	unsigned mw, n;

	(void)state;
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetPowerUsage:2:4,nvmlDeviceGetMemoryInfo_v2", 1);
	init();
	d0 = dev(0);
	d1 = dev(1);
	/* counted over all devices */
	assert_int_equal(power(d0), 100000);
	assert_int_equal(power(d1), 105000);
	assert_int_equal(F.nvmlDeviceGetPowerUsage(d0, &mw), 4);
	assert_int_equal(F.nvmlDeviceGetPowerUsage(d1, &mw), 4);
	assert_int_equal(F.nvmlDeviceGetMemoryInfo_v2(d0, &m2), NVML_ERROR_UNKNOWN);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);

	/* counters restart with the next first init */
	init();
	assert_int_equal(power(dev(0)), 100000);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	unsetenv("FAKE_NVML_FAIL");

	setenv("FAKE_NVML_INIT_FAIL", "9", 1);
	assert_int_equal(F.nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
	unsetenv("FAKE_NVML_INIT_FAIL");

	setenv("FAKE_NVML_FAIL", "nvmlInit_v2", 1);
	assert_int_equal(F.nvmlInit_v2(), NVML_ERROR_UNKNOWN);
	assert_int_equal(F.nvmlInit(), NVML_SUCCESS); /* another symbol */
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	setenv("FAKE_NVML_FAIL", "nvmlInit_v2:1:2", 1);
	init();
	assert_int_equal(F.nvmlInit_v2(), NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	assert_int_equal(F.nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
}

static void test_bad_config(void **state)
{
	static const char *const bad[][2] = {
		{ "FAKE_NVML_FAIL", "nvmlDeviceGetPowerUsag" },
		{ "FAKE_NVML_FAIL", "nvmlDeviceGetPowerUsage:x" },
		{ "FAKE_NVML_FAIL", "nvmlDeviceGetPowerUsage:1:0" },
		{ "FAKE_NVML_FAIL", "nvmlDeviceGetPowerUsage,,nvmlInit" },
		{ "FAKE_NVML_FAIL", "nvmlErrorString" },
		{ "FAKE_NVML_NOTSUP", "field:" },
		{ "FAKE_NVML_LOST", "2:0" },
		{ "FAKE_NVML_LOST", "1" },
		{ "FAKE_NVML_GPUS", "9" },
		{ "FAKE_NVML_FAIL", "nvmlInit:18446744073709551616" },
		{ "FAKE_NVML_PROCS", "-1" },
		{ "FAKE_NVML_INIT_FAIL", "x" },
	};
	unsigned n;
	size_t i;

	(void)state;
	for (i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		setenv(bad[i][0], bad[i][1], 1);
		if (F.nvmlInit_v2() != NVML_ERROR_UNKNOWN)
			fail_msg("%s=%s accepted", bad[i][0], bad[i][1]);
		assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
		unsetenv(bad[i][0]);
	}
}

static void test_notsup(void **state)
{
	nvmlFieldValue_t fv[3];
	nvmlDevice_t d0;
	unsigned mw;

	(void)state;
	setenv("FAKE_NVML_NOTSUP", "nvmlDeviceGetPowerUsage,field:197", 1);
	init();
	d0 = dev(0);
	assert_int_equal(F.nvmlDeviceGetPowerUsage(d0, &mw), NVML_ERROR_NOT_SUPPORTED);
	memset(fv, 0, sizeof(fv));
	fv[0].fieldId = NVML_FI_DEV_POWER_INSTANT;
	fv[1].fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
	fv[2].fieldId = NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
	assert_int_equal(F.nvmlDeviceGetFieldValues(d0, 3, fv), NVML_SUCCESS);
	assert_int_equal(fv[0].nvmlReturn, NVML_SUCCESS);
	assert_int_equal(fv[0].value.uiVal, 100000);
	assert_int_equal(fv[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
	assert_int_equal(fv[2].nvmlReturn, NVML_SUCCESS);
	assert_int_equal(fv[2].value.ullVal, 500000000ULL);
}

static void test_lost(void **state)
{
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	nvmlUtilization_t u;
	nvmlDevice_t d0, d1;
	unsigned n = 0;

	(void)state;
	setenv("FAKE_NVML_LOST", "1:2", 1);
	init();
	d0 = dev(0);
	d1 = dev(1);
	sample(d1, 5, 1);
	assert_int_equal(F.nvmlDeviceGetName(d1, name, sizeof(name)), NVML_SUCCESS);
	sample(d1, 15, 6);
	assert_int_equal(F.nvmlDeviceGetUtilizationRates(d1, &u), NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(F.nvmlDeviceGetName(d1, name, sizeof(name)), NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(F.nvmlDeviceGetComputeRunningProcesses_v3(d1, &n, NULL),
	                 NVML_ERROR_GPU_IS_LOST);
	assert_ptr_equal(dev(1), d1); /* enumeration still works */
	sample(d0, 0, 0);
	assert_int_equal(power(d0), 101000);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);

	setenv("FAKE_NVML_LOST", "0:0", 1);
	init();
	assert_int_equal(F.nvmlDeviceGetName(dev(0), name, sizeof(name)), NVML_ERROR_GPU_IS_LOST);
	assert_int_equal(F.nvmlDeviceGetName(dev(1), name, sizeof(name)), NVML_SUCCESS);
}

static void test_calls_log(void **state)
{
	char path[] = "/tmp/fake-nvml-calls-XXXXXX";
	char buf[512];
	int fd = mkstemp(path);
	ssize_t len;
	unsigned n;
	nvmlUtilization_t u;

	(void)state;
	assert_true(fd >= 0);
	setenv("FAKE_NVML_CALLS", path, 1);
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
	init();
	assert_int_equal(F.nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
	assert_int_equal(F.nvmlDeviceGetUtilizationRates(dev(0), &u), NVML_SUCCESS);
	assert_int_equal(F.nvmlShutdown(), NVML_SUCCESS);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	assert_true(len > 0);
	buf[len] = '\0';
	assert_string_equal(buf, "nvmlDeviceGetCount_v2\n"
	                         "nvmlInit_v2\n"
	                         "nvmlDeviceGetCount_v2\n"
	                         "nvmlDeviceGetHandleByIndex_v2\n"
	                         "nvmlDeviceGetUtilizationRates\n"
	                         "nvmlShutdown\n");
}

#define THREAD_SAMPLES 2000

static void *sampler_thread(void *arg)
{
	nvmlDevice_t d = arg;
	nvmlUtilization_t u;
	nvmlProcessInfo_t p[4];
	unsigned i, n;

	for (i = 0; i < THREAD_SAMPLES; i++) {
		n = 4;
		if (F.nvmlDeviceGetUtilizationRates(d, &u) != NVML_SUCCESS ||
		    F.nvmlDeviceGetComputeRunningProcesses_v3(d, &n, p) != NVML_SUCCESS)
			return arg;
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t t[2];
	void *ret;
	nvmlDevice_t d0;
	int i;

	(void)state;
	init();
	d0 = dev(0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, sampler_thread, d0), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(power(d0), 100000 + 1000 * 2 * THREAD_SAMPLES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_symbols, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lifecycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_static, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notsup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calls_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
	};

	fake_dir = getenv("GP_FAKE_NVML_DIR");
	if (!fake_dir || !*fake_dir) {
		printf("skip: GP_FAKE_NVML_DIR is not set\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
