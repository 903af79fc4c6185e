/* SPDX-License-Identifier: MIT */
/*
 * fake-nvml.c - a scripted, deterministic stand-in for libnvidia-ml.so, so
 * that the NVML backend (src/lib/sample/nvml.c) runs its real code paths in
 * every CI job, GPU or not. It defines each function of GP_NVML_FUNCS
 * (sample/nvml-types.h) with NVML's ABI; the tests point the backend's NVML
 * library (its argument or environment override) at one of three builds of
 * this file, found in $GP_FAKE_NVML_DIR under CTest:
 *
 *   libfake-nvml.so         every function
 *   libfake-nvml-old.so     -DFAKE_NVML_OLD: an old driver; no nvmlInit_v2,
 *                           nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
 *                           nvmlDeviceGetPciInfo_v3, nvmlDeviceGetMemoryInfo_v2,
 *                           nvmlDeviceGetTemperatureV,
 *                           nvmlDeviceGetCurrentClocksEventReasons,
 *                           nvmlDeviceGetComputeRunningProcesses_v3 and _v2,
 *                           nvmlDeviceGetFieldValues,
 *                           nvmlDeviceGetTotalEnergyConsumption,
 *                           nvmlDeviceGetProcessUtilization
 *   libfake-nvml-broken.so  -DFAKE_NVML_BROKEN: neither nvmlDeviceGetCount_v2
 *                           nor nvmlDeviceGetCount (a required symbol missing)
 *
 * Configuration: environment variables, read when nvmlInit* takes the library
 * from uninitialised to initialised (so again after the last nvmlShutdown);
 * all call counters restart then. A malformed value makes that nvmlInit*
 * print "fake-nvml: ..." on stderr and return NVML_ERROR_UNKNOWN, so that a
 * typo in a test's script cannot pass unnoticed. Numbers are decimal.
 *
 *   FAKE_NVML_GPUS=N          GPUs, 0..8 (default 2)
 *   FAKE_NVML_PROCS=N         compute processes per GPU, 0..256 (default 2)
 *   FAKE_NVML_INIT_FAIL=CODE  nvmlInit* returns CODE (0: no failure)
 *   FAKE_NVML_FAIL=RULE[,RULE...]   RULE = NAME[:AFTER[:CODE]]
 *                             function NAME (an NVML symbol of GP_NVML_FUNCS
 *                             but nvmlErrorString) returns CODE (default 999,
 *                             NVML_ERROR_UNKNOWN; not 0) once it has been called
 *                             AFTER times (default 0: from the first call).
 *                             Calls are counted per process over all devices;
 *                             nvmlInit* counts too (nvmlInit_v2:0 fails init).
 *   FAKE_NVML_NOTSUP=ITEM[,ITEM...]  ITEM = NAME | field:ID
 *                             NAME returns NVML_ERROR_NOT_SUPPORTED (3);
 *                             field:ID makes that field of
 *                             nvmlDeviceGetFieldValues report it per field
 *                             (e.g. field:197,field:198: no PCIe counters)
 *   FAKE_NVML_LOST=IDX:AFTER[,IDX:AFTER...]
 *                             device IDX (< FAKE_NVML_GPUS) returns
 *                             NVML_ERROR_GPU_IS_LOST (15) from every function
 *                             taking its handle once AFTER samples were taken
 *                             (calls of nvmlDeviceGetUtilizationRates for it);
 *                             nvmlDeviceGetHandleByIndex still succeeds
 *   FAKE_NVML_CALLS=PATH      append "NAME\n" to PATH for every call, made
 *                             or not (O_APPEND, one write() per line)
 *
 * Order of checks in a function: uninitialised (NVML_ERROR_UNINITIALIZED);
 * bad handle, NULL output pointer or bad argument (INVALID_ARGUMENT); then the
 * call is counted: FAKE_NVML_FAIL, FAKE_NVML_NOTSUP, FAKE_NVML_LOST; then
 * struct versions (ARGUMENT_VERSION_MISMATCH) and the value.
 *
 * Values, for GPU g (0-based) at sample s (the number of earlier calls of
 * nvmlDeviceGetUtilizationRates for g; every other function uses the current
 * count of its device):
 *   name "Fake GPU H100 g", UUID "GPU-fake0000-0000-0000-0000-00000000000g",
 *   busId "00000000:XX:00.0" and busIdLegacy "0000:XX:00.0" with XX = 0x10+g
 *   (upper-case hex), domain 0, bus 0x10+g, device 0
 *   memory: total 40 GiB for g = 1, else 80 GiB; reserved 512 MiB;
 *   used (1 + s%4) GiB + g GiB; v2 free = total - reserved - used (checks
 *   version == nvmlMemory_v2); v1 free = total - used
 *   utilisation: gpu (10s + 5g) % 101, memory (5s + g) % 101
 *   clocks MHz: SM and graphics 1410 - 10(s%3), memory 2619; max SM and
 *   graphics 1980, memory 2619; other types NOT_SUPPORTED
 *   temperature 40 + g + s%5 C; thresholds slowdown 87, shutdown 92 (others
 *   NOT_SUPPORTED); nvmlDeviceGetTemperatureV checks version ==
 *   nvmlTemperature_v1 and sensorType 0
 *   power 100000 + 1000s + 5000g mW, enforced limit 700000 mW, energy
 *   1000000(g+1) + 100000s mJ
 *   field values: 186 power (uiVal), 83 energy, 197 PCIe TX bytes
 *   1e9(s+1)(g+1), 198 RX = TX/2 (ullVal); others NOT_SUPPORTED per field;
 *   timestamp CLOCK_REALTIME us
 *   nvmlDeviceGetPcieThroughput sleeps 20 ms, TX 1000(g+1), RX 500(g+1) KB/s
 *   clock-event reasons by s%3: 0x1, 0x4, 0x24
 *   processes k = 0..PROCS-1: pid 1000 + 10g + k (k >= 10 reaches into the
 *   next GPU's pids: one process on two GPUs), used memory (k+1) 256 MiB,
 *   instance ids ~0; utilisation samples smUtil min(10(k+1), 100), memUtil
 *   min(5(k+1), 100), timeStamp CLOCK_REALTIME us, strictly increasing per
 *   device from call to call; only samples newer than last_seen_us are
 *   returned, and none gives NVML_ERROR_NOT_FOUND as NVML does.
 *   Lists follow NVML's count protocol: *count below the number needed (NULL
 *   buffer included) gives NVML_ERROR_INSUFFICIENT_SIZE with *count set to it.
 *   driver version "999.99.fake"; strings too long for the caller's buffer
 *   give INSUFFICIENT_SIZE.
 *
 * nvmlInit* is reference-counted like NVML's. One mutex guards all state, so
 * a sampler may call from several threads; nvmlDeviceGetPcieThroughput sleeps
 * without holding it.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sample/nvml-types.h"

#define FAKE_API __attribute__((visibility("default")))

/* prototypes for every function, defined or not, so -Wmissing-prototypes holds */
#define FAKE_PROTO(ret, name, params) FAKE_API ret name params;
GP_NVML_FUNCS(FAKE_PROTO)
#undef FAKE_PROTO

#define FAKE_ENUM(ret, name, params) FN_##name,
enum fake_fn { GP_NVML_FUNCS(FAKE_ENUM) FN_COUNT };
#undef FAKE_ENUM

#define FAKE_NAME(ret, name, params) #name,
static const char *const fn_names[FN_COUNT] = { GP_NVML_FUNCS(FAKE_NAME) };
#undef FAKE_NAME

#define FAKE_MAX_GPUS      8
#define FAKE_MAX_PROCS     256
#define FAKE_MAX_FIELDS    16
#define FAKE_DEFAULT_GPUS  2
#define FAKE_DEFAULT_PROCS 2

#define MIB (1024ULL * 1024ULL)
#define GIB (1024ULL * MIB)

/* A handle points at one of these; the address is the whole identity. */
struct nvmlDevice_st {
	unsigned int index;
};

static struct nvmlDevice_st fake_devs[FAKE_MAX_GPUS] = { { 0 }, { 1 }, { 2 }, { 3 },
	                                                 { 4 }, { 5 }, { 6 }, { 7 } };

struct fake_state {
	int refs; /* nvmlInit* calls not yet shut down; 0: uninitialised */
	unsigned int ngpus, nprocs;
	nvmlReturn_t init_fail;
	int calls_fd; /* FAKE_NVML_CALLS, -1: none */
	struct {
		bool on;
		unsigned long long after;
		nvmlReturn_t code;
	} fail[FN_COUNT];
	bool notsup[FN_COUNT];
	unsigned int notsup_fields[FAKE_MAX_FIELDS];
	unsigned int n_notsup_fields;
	struct {
		bool on;
		unsigned long long after;
	} lost[FAKE_MAX_GPUS];
	unsigned long long ncalls[FN_COUNT];
	unsigned long long samples[FAKE_MAX_GPUS];
	unsigned long long putil_ts[FAKE_MAX_GPUS]; /* last process-utilisation stamp, us */
};

static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_state st = { .calls_fd = -1 };

/* what a function needs to compute its values once the checks passed */
struct fake_ctx {
	unsigned int g, ngpus, nprocs;
	unsigned long long s;
};

/* ---- configuration ---- */

/* A decimal number in [p, end), at most max; false when empty or malformed. */
static bool parse_num(const char *p, const char *end, unsigned long long max,
                      unsigned long long *out)
{
	unsigned long long v = 0;

	if (p >= end)
		return false;
	for (; p < end; p++) {
		unsigned d;

		if (*p < '0' || *p > '9')
			return false;
		d = (unsigned)(*p - '0');
		if (d > max || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static int fn_lookup(const char *p, size_t len)
{
	int i;

	for (i = 0; i < FN_COUNT; i++)
		if (strlen(fn_names[i]) == len && memcmp(fn_names[i], p, len) == 0)
			return i;
	return -1;
}

static bool env_num(const char *var, unsigned long long max, unsigned long long def,
                    unsigned long long *out, char *err, size_t errsz)
{
	const char *v = getenv(var);

	*out = def;
	if (!v || !*v)
		return true;
	if (parse_num(v, v + strlen(v), max, out))
		return true;
	snprintf(err, errsz, "%s=\"%s\": not a number in 0..%llu", var, v, max);
	return false;
}

/*
 * Calls fn(item, item_end, cfg, err, errsz) for each comma-separated item of
 * $var; an empty item is an error.
 */
typedef bool (*item_fn)(const char *p, const char *end, struct fake_state *cfg, char *err,
                        size_t errsz);

static bool env_list(const char *var, item_fn fn, struct fake_state *cfg, char *err, size_t errsz)
{
	const char *v = getenv(var), *p, *end;

	if (!v || !*v)
		return true;
	for (p = v;; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (p == end || !fn(p, end, cfg, err, errsz)) {
			if (p == end)
				snprintf(err, errsz, "%s=\"%s\": empty item", var, v);
			return false;
		}
		if (!*end)
			return true;
	}
}

/* NAME[:AFTER[:CODE]] */
static bool fail_item(const char *p, const char *end, struct fake_state *cfg, char *err,
                      size_t errsz)
{
	const char *c1 = memchr(p, ':', (size_t)(end - p)), *c2 = NULL;
	unsigned long long after = 0, code = NVML_ERROR_UNKNOWN;
	int fn;

	if (c1)
		c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	fn = fn_lookup(p, (size_t)((c1 ? c1 : end) - p));
	if (fn < 0 || fn == FN_nvmlErrorString)
		goto bad;
	if (c1 && !parse_num(c1 + 1, c2 ? c2 : end, ULLONG_MAX, &after))
		goto bad;
	if (c2 && (!parse_num(c2 + 1, end, INT_MAX, &code) || code == 0))
		goto bad;
	cfg->fail[fn].on = true;
	cfg->fail[fn].after = after;
	cfg->fail[fn].code = (nvmlReturn_t)code;
	return true;
bad:
	snprintf(err, errsz, "FAKE_NVML_FAIL: bad rule \"%.*s\" (NAME[:AFTER[:CODE]], CODE != 0)",
	         (int)(end - p), p);
	return false;
}

/* NAME | field:ID */
static bool notsup_item(const char *p, const char *end, struct fake_state *cfg, char *err,
                        size_t errsz)
{
	unsigned long long id;
	int fn;

	if (end - p > 6 && memcmp(p, "field:", 6) == 0) {
		if (cfg->n_notsup_fields == FAKE_MAX_FIELDS ||
		    !parse_num(p + 6, end, UINT_MAX, &id))
			goto bad;
		cfg->notsup_fields[cfg->n_notsup_fields++] = (unsigned int)id;
		return true;
	}
	fn = fn_lookup(p, (size_t)(end - p));
	if (fn < 0 || fn == FN_nvmlErrorString)
		goto bad;
	cfg->notsup[fn] = true;
	return true;
bad:
	snprintf(err, errsz,
	         "FAKE_NVML_NOTSUP: bad item \"%.*s\" (NAME or field:ID, %d ids at most)",
	         (int)(end - p), p, FAKE_MAX_FIELDS);
	return false;
}

/* IDX:AFTER */
static bool lost_item(const char *p, const char *end, struct fake_state *cfg, char *err,
                      size_t errsz)
{
	const char *c = memchr(p, ':', (size_t)(end - p));
	unsigned long long idx, after;

	if (!c || !parse_num(p, c, UINT_MAX, &idx) || idx >= cfg->ngpus ||
	    !parse_num(c + 1, end, ULLONG_MAX, &after)) {
		snprintf(err, errsz, "FAKE_NVML_LOST: bad item \"%.*s\" (IDX:AFTER, IDX < %u)",
		         (int)(end - p), p, cfg->ngpus);
		return false;
	}
	cfg->lost[idx].on = true;
	cfg->lost[idx].after = after;
	return true;
}

/* Reads the environment into a fresh *cfg (counters zero, log open). */
static bool config_read(struct fake_state *cfg, char *err, size_t errsz)
{
	unsigned long long v;
	const char *path;

	memset(cfg, 0, sizeof(*cfg));
	cfg->calls_fd = -1;
	if (!env_num("FAKE_NVML_GPUS", FAKE_MAX_GPUS, FAKE_DEFAULT_GPUS, &v, err, errsz))
		return false;
	cfg->ngpus = (unsigned int)v;
	if (!env_num("FAKE_NVML_PROCS", FAKE_MAX_PROCS, FAKE_DEFAULT_PROCS, &v, err, errsz))
		return false;
	cfg->nprocs = (unsigned int)v;
	if (!env_num("FAKE_NVML_INIT_FAIL", INT_MAX, 0, &v, err, errsz))
		return false;
	cfg->init_fail = (nvmlReturn_t)v;
	if (!env_list("FAKE_NVML_FAIL", fail_item, cfg, err, errsz) ||
	    !env_list("FAKE_NVML_NOTSUP", notsup_item, cfg, err, errsz) ||
	    !env_list("FAKE_NVML_LOST", lost_item, cfg, err, errsz))
		return false;
	path = getenv("FAKE_NVML_CALLS");
	if (path && *path) {
		cfg->calls_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (cfg->calls_fd < 0) {
			snprintf(err, errsz, "FAKE_NVML_CALLS: cannot open '%s': %s", path,
			         strerror(errno));
			return false;
		}
	}
	return true;
}

/* ---- shared checks ---- */

static void write_line(int fd, enum fake_fn fn)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s\n", fn_names[fn]);
	ssize_t w;

	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	do
		w = write(fd, line, (size_t)n);
	while (w < 0 && errno == EINTR);
}

/* Logs a call; uninitialised, the log named by the environment now is used. */
static void log_call_locked(enum fake_fn fn)
{
	const char *path;
	int fd;

	if (st.calls_fd >= 0) {
		write_line(st.calls_fd, fn);
		return;
	}
	if (st.refs > 0)
		return;
	path = getenv("FAKE_NVML_CALLS");
	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	write_line(fd, fn);
	close(fd);
}

/* Counts the call, then applies FAKE_NVML_FAIL and FAKE_NVML_NOTSUP. */
static nvmlReturn_t inject_locked(enum fake_fn fn)
{
	st.ncalls[fn]++;
	if (st.fail[fn].on && st.ncalls[fn] > st.fail[fn].after)
		return st.fail[fn].code;
	if (st.notsup[fn])
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

/* Entry of a function without a device handle. */
static nvmlReturn_t sys_enter(enum fake_fn fn, bool args_ok, struct fake_ctx *c)
{
	nvmlReturn_t r;

	pthread_mutex_lock(&st_lock);
	log_call_locked(fn);
	if (st.refs == 0)
		r = NVML_ERROR_UNINITIALIZED;
	else if (!args_ok)
		r = NVML_ERROR_INVALID_ARGUMENT;
	else
		r = inject_locked(fn);
	c->g = 0;
	c->s = 0;
	c->ngpus = st.ngpus;
	c->nprocs = st.nprocs;
	pthread_mutex_unlock(&st_lock);
	return r;
}

/* Entry of a function taking a device handle: the checks, in the documented order. */
static nvmlReturn_t dev_enter(enum fake_fn fn, nvmlDevice_t dev, bool args_ok, struct fake_ctx *c)
{
	nvmlReturn_t r;
	unsigned int i;

	pthread_mutex_lock(&st_lock);
	log_call_locked(fn);
	if (st.refs == 0) {
		r = NVML_ERROR_UNINITIALIZED;
		goto out;
	}
	for (i = 0; i < st.ngpus; i++)
		if (dev == &fake_devs[i])
			break;
	if (i == st.ngpus || !args_ok) {
		r = NVML_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	c->g = i;
	c->s = st.samples[i];
	c->ngpus = st.ngpus;
	c->nprocs = st.nprocs;
	if (fn == FN_nvmlDeviceGetUtilizationRates)
		st.samples[i]++;
	r = inject_locked(fn);
	if (r == NVML_SUCCESS && st.lost[i].on && c->s >= st.lost[i].after)
		r = NVML_ERROR_GPU_IS_LOST;
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

static nvmlReturn_t put_str(char *buf, unsigned int len, const char *s)
{
	size_t n = strlen(s);

	if (n >= len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, n + 1);
	return NVML_SUCCESS;
}

static unsigned int clamp_uint(unsigned long long v)
{
	return v > UINT_MAX ? UINT_MAX : (unsigned int)v;
}

#ifndef FAKE_NVML_OLD
static unsigned long long realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}
#endif

/* ---- values, as functions of (g, s) ---- */

static unsigned long long mem_total(unsigned int g)
{
	return (g == 1 ? 40 : 80) * GIB;
}

static unsigned long long mem_used(const struct fake_ctx *c)
{
	unsigned long long used = (1 + c->s % 4) * GIB + c->g * GIB;
	unsigned long long cap = mem_total(c->g) - 512 * MIB;

	return used < cap ? used : cap;
}

static unsigned int clock_sm(const struct fake_ctx *c)
{
	return 1410 - 10 * (unsigned int)(c->s % 3);
}

static unsigned int power_mw(const struct fake_ctx *c)
{
	return clamp_uint(100000ULL + 1000ULL * c->s + 5000ULL * c->g);
}

static unsigned long long clock_reasons(const struct fake_ctx *c)
{
	static const unsigned long long by_s[3] = {
		GP_NVML_CLOCKS_EVENT_GPU_IDLE,
		GP_NVML_CLOCKS_EVENT_SW_POWER_CAP,
		GP_NVML_CLOCKS_EVENT_SW_THERMAL | GP_NVML_CLOCKS_EVENT_SW_POWER_CAP,
	};

	return by_s[c->s % 3];
}

/* ---- init, shutdown, system ---- */

static nvmlReturn_t init_common(enum fake_fn fn)
{
	struct fake_state cfg;
	char err[256];
	nvmlReturn_t r;

	pthread_mutex_lock(&st_lock);
	if (st.refs > 0) {
		log_call_locked(fn);
		r = inject_locked(fn);
		if (r == NVML_SUCCESS)
			st.refs++;
		goto out;
	}
	if (!config_read(&cfg, err, sizeof(err))) {
		log_call_locked(fn);
		fprintf(stderr, "fake-nvml: %s\n", err);
		r = NVML_ERROR_UNKNOWN;
		goto out;
	}
	st = cfg;
	log_call_locked(fn);
	r = st.init_fail ? st.init_fail : inject_locked(fn);
	if (r == NVML_SUCCESS) {
		st.refs = 1;
	} else if (st.calls_fd >= 0) {
		close(st.calls_fd);
		st.calls_fd = -1;
	}
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlInit_v2(void)
{
	return init_common(FN_nvmlInit_v2);
}
#endif

nvmlReturn_t nvmlInit(void)
{
	return init_common(FN_nvmlInit);
}

nvmlReturn_t nvmlShutdown(void)
{
	nvmlReturn_t r;

	pthread_mutex_lock(&st_lock);
	log_call_locked(FN_nvmlShutdown);
	if (st.refs == 0) {
		r = NVML_ERROR_UNINITIALIZED;
		goto out;
	}
	r = inject_locked(FN_nvmlShutdown);
	if (r != NVML_SUCCESS)
		goto out;
	if (--st.refs == 0 && st.calls_fd >= 0) {
		close(st.calls_fd);
		st.calls_fd = -1;
	}
out:
	pthread_mutex_unlock(&st_lock);
	return r;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
	pthread_mutex_lock(&st_lock);
	log_call_locked(FN_nvmlErrorString);
	pthread_mutex_unlock(&st_lock);
	switch (r) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT:
		return "Timeout";
	case NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case NVML_ERROR_NO_DATA:
		return "No data";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
		return "Argument version mismatch";
	case NVML_ERROR_GPU_NOT_FOUND:
		return "GPU not found";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	struct fake_ctx c;
	nvmlReturn_t r = sys_enter(FN_nvmlSystemGetDriverVersion, version != NULL, &c);

	return r ? r : put_str(version, length, "999.99.fake");
}

/* ---- enumeration ---- */

#ifndef FAKE_NVML_BROKEN
static nvmlReturn_t get_count(enum fake_fn fn, unsigned int *count)
{
	struct fake_ctx c;
	nvmlReturn_t r = sys_enter(fn, count != NULL, &c);

	if (r)
		return r;
	*count = c.ngpus;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	return get_count(FN_nvmlDeviceGetCount_v2, count);
}
#endif

nvmlReturn_t nvmlDeviceGetCount(unsigned int *count)
{
	return get_count(FN_nvmlDeviceGetCount, count);
}
#endif /* FAKE_NVML_BROKEN */

static nvmlReturn_t get_handle(enum fake_fn fn, unsigned int i, nvmlDevice_t *dev)
{
	struct fake_ctx c;
	nvmlReturn_t r = sys_enter(fn, dev != NULL, &c);

	if (r)
		return r;
	if (i >= c.ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*dev = &fake_devs[i];
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *dev)
{
	return get_handle(FN_nvmlDeviceGetHandleByIndex_v2, i, dev);
}
#endif

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *dev)
{
	return get_handle(FN_nvmlDeviceGetHandleByIndex, i, dev);
}

/* ---- static data ---- */

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned int length)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetName, dev, name != NULL, &c);
	char s[32];

	if (r)
		return r;
	snprintf(s, sizeof(s), "Fake GPU H100 %u", c.g % FAKE_MAX_GPUS);
	return put_str(name, length, s);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned int length)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetUUID, dev, uuid != NULL, &c);
	char s[64];

	if (r)
		return r;
	snprintf(s, sizeof(s), "GPU-fake0000-0000-0000-0000-%012u", c.g % FAKE_MAX_GPUS);
	return put_str(uuid, length, s);
}

static nvmlReturn_t pci_info(enum fake_fn fn, nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(fn, dev, pci != NULL, &c);
	unsigned int bus;

	if (r)
		return r;
	bus = (0x10 + c.g) & 0xff;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02X:00.0", bus);
	snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:00.0", bus);
	pci->domain = 0;
	pci->bus = bus;
	pci->device = 0;
	pci->pciDeviceId = 0x233010deU; /* H100 SXM5, NVIDIA's vendor id in the low half */
	pci->pciSubSystemId = 0x16c110deU;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
	return pci_info(FN_nvmlDeviceGetPciInfo_v3, dev, pci);
}
#endif

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
	return pci_info(FN_nvmlDeviceGetPciInfo_v2, dev, pci);
}

/* ---- memory, utilisation, clocks ---- */

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *mem)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetMemoryInfo_v2, dev, mem != NULL, &c);

	if (r)
		return r;
	if (mem->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	mem->total = mem_total(c.g);
	mem->reserved = 512 * MIB;
	mem->used = mem_used(&c);
	mem->free = mem->total - mem->reserved - mem->used;
	return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *mem)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetMemoryInfo, dev, mem != NULL, &c);

	if (r)
		return r;
	mem->total = mem_total(c.g);
	mem->used = mem_used(&c);
	mem->free = mem->total - mem->used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetUtilizationRates, dev, u != NULL, &c);

	if (r)
		return r;
	u->gpu = (unsigned int)((c.s * 10 + c.g * 5) % 101);
	u->memory = (unsigned int)((c.s * 5 + c.g) % 101);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetClockInfo, dev, mhz != NULL, &c);

	if (r)
		return r;
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
	case NVML_CLOCK_SM:
		*mhz = clock_sm(&c);
		return NVML_SUCCESS;
	case NVML_CLOCK_MEM:
		*mhz = 2619;
		return NVML_SUCCESS;
	default:
		return NVML_ERROR_NOT_SUPPORTED;
	}
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetMaxClockInfo, dev, mhz != NULL, &c);

	if (r)
		return r;
	switch (type) {
	case NVML_CLOCK_GRAPHICS:
	case NVML_CLOCK_SM:
		*mhz = 1980;
		return NVML_SUCCESS;
	case NVML_CLOCK_MEM:
		*mhz = 2619;
		return NVML_SUCCESS;
	default:
		return NVML_ERROR_NOT_SUPPORTED;
	}
}

/* ---- temperature, power, energy ---- */

static int temperature(const struct fake_ctx *c)
{
	return 40 + (int)c->g + (int)(c->s % 5);
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t dev, nvmlTemperature_v1_t *t)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetTemperatureV, dev, t != NULL, &c);

	if (r)
		return r;
	if (t->version != nvmlTemperature_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (t->sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	t->temperature = temperature(&c);
	return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned int *celsius)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetTemperature, dev,
	                           celsius != NULL && sensor == NVML_TEMPERATURE_GPU, &c);

	if (r)
		return r;
	*celsius = (unsigned int)temperature(&c);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t dev, int type, unsigned int *celsius)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetTemperatureThreshold, dev, celsius != NULL, &c);

	if (r)
		return r;
	switch (type) {
	case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
		*celsius = 92;
		return NVML_SUCCESS;
	case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
		*celsius = 87;
		return NVML_SUCCESS;
	default:
		return NVML_ERROR_NOT_SUPPORTED;
	}
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *mw)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetPowerUsage, dev, mw != NULL, &c);

	if (r)
		return r;
	*mw = power_mw(&c);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t dev, unsigned int *mw)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetEnforcedPowerLimit, dev, mw != NULL, &c);

	if (r)
		return r;
	*mw = 700000;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
static unsigned long long energy_mj(const struct fake_ctx *c)
{
	return 1000000ULL * (c->g + 1) + 100000ULL * c->s;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t dev, unsigned long long *mj)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetTotalEnergyConsumption, dev, mj != NULL, &c);

	if (r)
		return r;
	*mj = energy_mj(&c);
	return NVML_SUCCESS;
}

static bool field_notsup(unsigned int id)
{
	bool found = false;
	unsigned int i;

	pthread_mutex_lock(&st_lock);
	for (i = 0; i < st.n_notsup_fields; i++)
		if (st.notsup_fields[i] == id)
			found = true;
	pthread_mutex_unlock(&st_lock);
	return found;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t dev, int n, nvmlFieldValue_t *values)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetFieldValues, dev, values != NULL && n >= 0, &c);
	unsigned long long now, tx;
	int i;

	if (r)
		return r;
	now = realtime_us();
	tx = 1000000000ULL * (c.s + 1) * (c.g + 1);
	for (i = 0; i < n; i++) {
		nvmlFieldValue_t *v = &values[i];

		v->timestamp = (long long)now;
		v->latencyUsec = 0;
		v->nvmlReturn = NVML_SUCCESS;
		memset(&v->value, 0, sizeof(v->value));
		if (field_notsup(v->fieldId)) {
			v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
			continue;
		}
		switch (v->fieldId) {
		case NVML_FI_DEV_POWER_INSTANT:
			v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
			v->value.uiVal = power_mw(&c);
			break;
		case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
			v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
			v->value.ullVal = energy_mj(&c);
			break;
		case NVML_FI_DEV_PCIE_COUNT_TX_BYTES:
			v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
			v->value.ullVal = tx;
			break;
		case NVML_FI_DEV_PCIE_COUNT_RX_BYTES:
			v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
			v->value.ullVal = tx / 2;
			break;
		default:
			v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
			break;
		}
	}
	return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t dev, int counter, unsigned int *kbps)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetPcieThroughput, dev,
	                           kbps != NULL && (counter == NVML_PCIE_UTIL_TX_BYTES ||
	                                            counter == NVML_PCIE_UTIL_RX_BYTES),
	                           &c);
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	if (r)
		return r;
	/* NVML measures over 20 ms; so does the fake, off the lock */
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	*kbps = (counter == NVML_PCIE_UTIL_TX_BYTES ? 1000 : 500) * (c.g + 1);
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *reasons)
{
	struct fake_ctx c;
	nvmlReturn_t r =
	    dev_enter(FN_nvmlDeviceGetCurrentClocksEventReasons, dev, reasons != NULL, &c);

	if (r)
		return r;
	*reasons = clock_reasons(&c);
	return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev,
                                                       unsigned long long *reasons)
{
	struct fake_ctx c;
	nvmlReturn_t r =
	    dev_enter(FN_nvmlDeviceGetCurrentClocksThrottleReasons, dev, reasons != NULL, &c);

	if (r)
		return r;
	*reasons = clock_reasons(&c);
	return NVML_SUCCESS;
}

/* ---- processes ---- */

static unsigned int proc_pid(unsigned int g, unsigned int k)
{
	return 1000 + 10 * g + k;
}

/*
 * The count protocol of the process lists: *count below the number of
 * processes (or no buffer) asks for the size. @p infos holds
 * nvmlProcessInfo_v1_t when @p v1, else nvmlProcessInfo_t (_v2 and _v3).
 */
static nvmlReturn_t procs_list(enum fake_fn fn, nvmlDevice_t dev, unsigned int *count, void *infos,
                               bool v1)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(fn, dev, count != NULL, &c);
	unsigned int k;

	if (r)
		return r;
	if (*count < c.nprocs || (!infos && c.nprocs > 0)) {
		*count = c.nprocs;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (k = 0; k < c.nprocs; k++) {
		unsigned int pid = proc_pid(c.g, k);
		unsigned long long used = (k + 1ULL) * 256 * MIB;

		if (v1) {
			nvmlProcessInfo_v1_t *p = (nvmlProcessInfo_v1_t *)infos + k;

			memset(p, 0, sizeof(*p));
			p->pid = pid;
			p->usedGpuMemory = used;
		} else {
			nvmlProcessInfo_t *p = (nvmlProcessInfo_t *)infos + k;

			memset(p, 0, sizeof(*p));
			p->pid = pid;
			p->usedGpuMemory = used;
			p->gpuInstanceId = ~0U; /* not a MIG instance */
			p->computeInstanceId = ~0U;
		}
	}
	*count = c.nprocs;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
                                                     nvmlProcessInfo_t *infos)
{
	return procs_list(FN_nvmlDeviceGetComputeRunningProcesses_v3, dev, count, infos, false);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t dev, unsigned int *count,
                                                     nvmlProcessInfo_t *infos)
{
	return procs_list(FN_nvmlDeviceGetComputeRunningProcesses_v2, dev, count, infos, false);
}
#endif

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t dev, unsigned int *count,
                                                  nvmlProcessInfo_v1_t *infos)
{
	return procs_list(FN_nvmlDeviceGetComputeRunningProcesses, dev, count, infos, true);
}

#ifndef FAKE_NVML_OLD
static unsigned int pct(unsigned long long v)
{
	return v > 100 ? 100 : (unsigned int)v;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t dev,
                                             nvmlProcessUtilizationSample_t *samples,
                                             unsigned int *count, unsigned long long last_seen_us)
{
	struct fake_ctx c;
	nvmlReturn_t r = dev_enter(FN_nvmlDeviceGetProcessUtilization, dev, count != NULL, &c);
	unsigned long long ts, now;
	unsigned int k, needed;

	if (r)
		return r;
	now = realtime_us();
	pthread_mutex_lock(&st_lock);
	ts = now > st.putil_ts[c.g] ? now : st.putil_ts[c.g] + 1;
	needed = ts > last_seen_us ? c.nprocs : 0;
	if (needed == 0) {
		*count = 0;
		r = NVML_ERROR_NOT_FOUND;
	} else if (!samples || *count < needed) {
		*count = needed;
		r = NVML_ERROR_INSUFFICIENT_SIZE;
	} else {
		st.putil_ts[c.g] = ts;
	}
	pthread_mutex_unlock(&st_lock);
	if (r)
		return r;
	for (k = 0; k < needed; k++) {
		nvmlProcessUtilizationSample_t *p = &samples[k];

		memset(p, 0, sizeof(*p));
		p->pid = proc_pid(c.g, k);
		p->timeStamp = ts;
		p->smUtil = pct(10ULL * (k + 1));
		p->memUtil = pct(5ULL * (k + 1));
	}
	*count = needed;
	return NVML_SUCCESS;
}
#endif
