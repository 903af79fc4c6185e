/* SPDX-License-Identifier: MIT */
/*
 * nvml.c - the GPU backend: NVML loaded with dlopen (types in nvml-types.h,
 * no header or link needed), newest versioned symbols first, every field
 * with its validity bit.
 *
 * Two paths, so that the sampling thread never blocks on the slow calls:
 * gp__nvml_sample() reads the fast fields (memory, utilisation, clocks,
 * temperature, power, energy, PCIe byte counters, clock-event reasons);
 * gp__nvml_slow() reads the process list (milliseconds on some drivers) and,
 * where the PCIe byte counters are missing, nvmlDeviceGetPcieThroughput,
 * which samples a byte counter over 20 ms inside the call.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml-types.h"
#include "sample-int.h"
#include "util/dl.h"
#include "util/error.h"

#define X_PTR(ret, name, params) ret(*name) params;
struct nvml_fns {
	GP_NVML_FUNCS(X_PTR)
};
#undef X_PTR

#define PROC_CAP_MAX 4096u /* processes asked for per GPU */

struct dev {
	nvmlDevice_t h;
	char name[96], uuid[96], pci[32];
	uint64_t static_valid; /* the maxima and the slowdown temperature */
	double clock_max[3];   /* SM, MEM, GR in Hz */
	double temp_slowdown;
	atomic_bool lost;      /* set by either path */
	bool mem_v1;           /* nvmlDeviceGetMemoryInfo_v2 refused: use v1 */
	bool temp_old;         /* nvmlDeviceGetTemperatureV refused */
	bool fields_off;       /* nvmlDeviceGetFieldValues refused altogether */
	atomic_bool pcie_slow; /* no PCIe byte counters: the slow path measures throughput */
	/* PCIe byte counters at the previous fast sample */
	bool have_prev;
	uint64_t prev_tx, prev_rx;
	int64_t prev_ns;
	/* slow path */
	nvmlProcessInfo_t *procs;
	nvmlProcessInfo_v1_t *procs1;
	unsigned procs_cap;
	nvmlProcessUtilizationSample_t *util;
	unsigned util_cap;
	unsigned long long util_seen_us;
};

struct gp__nvml {
	struct gp_dl dl;
	struct nvml_fns f;
	/* resolved aliases: the newest available version of each call */
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*procs)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
	bool inited;
	unsigned n, n_all;
	char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	struct dev dev[GP_SAMPLE_MAX_GPUS];
};

static const char *nvml_err(const struct gp__nvml *n, nvmlReturn_t r)
{
	const char *s = n->f.nvmlErrorString ? n->f.nvmlErrorString(r) : NULL;

	return s && *s ? s : "NVML error";
}

/* Resolves the symbol table: required ones first, then the optional ones. */
static int load(struct gp__nvml *n, const char *library)
{
	static const char *const candidates[] = { "libnvidia-ml.so.1", "libnvidia-ml.so", NULL };
	struct nvml_fns *f = &n->f;
#define S(slot, req, ...)                                                                          \
	{                                                                                          \
		{ __VA_ARGS__ }, (void **)&f->slot, req                                            \
	}
	const struct gp_dl_sym syms[] = {
		S(nvmlInit_v2, false, "nvmlInit_v2"),
		S(nvmlInit, false, "nvmlInit"),
		S(nvmlShutdown, true, "nvmlShutdown"),
		S(nvmlErrorString, false, "nvmlErrorString"),
		S(nvmlSystemGetDriverVersion, false, "nvmlSystemGetDriverVersion"),
		S(nvmlDeviceGetCount_v2, false, "nvmlDeviceGetCount_v2"),
		S(nvmlDeviceGetCount, false, "nvmlDeviceGetCount"),
		S(nvmlDeviceGetHandleByIndex_v2, false, "nvmlDeviceGetHandleByIndex_v2"),
		S(nvmlDeviceGetHandleByIndex, false, "nvmlDeviceGetHandleByIndex"),
		S(nvmlDeviceGetName, false, "nvmlDeviceGetName"),
		S(nvmlDeviceGetUUID, false, "nvmlDeviceGetUUID"),
		S(nvmlDeviceGetPciInfo_v3, false, "nvmlDeviceGetPciInfo_v3"),
		S(nvmlDeviceGetPciInfo_v2, false, "nvmlDeviceGetPciInfo_v2"),
		S(nvmlDeviceGetMemoryInfo_v2, false, "nvmlDeviceGetMemoryInfo_v2"),
		S(nvmlDeviceGetMemoryInfo, false, "nvmlDeviceGetMemoryInfo"),
		S(nvmlDeviceGetUtilizationRates, false, "nvmlDeviceGetUtilizationRates"),
		S(nvmlDeviceGetClockInfo, false, "nvmlDeviceGetClockInfo"),
		S(nvmlDeviceGetMaxClockInfo, false, "nvmlDeviceGetMaxClockInfo"),
		S(nvmlDeviceGetTemperatureV, false, "nvmlDeviceGetTemperatureV"),
		S(nvmlDeviceGetTemperature, false, "nvmlDeviceGetTemperature"),
		S(nvmlDeviceGetTemperatureThreshold, false, "nvmlDeviceGetTemperatureThreshold"),
		S(nvmlDeviceGetPowerUsage, false, "nvmlDeviceGetPowerUsage"),
		S(nvmlDeviceGetEnforcedPowerLimit, false, "nvmlDeviceGetEnforcedPowerLimit"),
		S(nvmlDeviceGetTotalEnergyConsumption, false,
		  "nvmlDeviceGetTotalEnergyConsumption"),
		S(nvmlDeviceGetFieldValues, false, "nvmlDeviceGetFieldValues"),
		S(nvmlDeviceGetPcieThroughput, false, "nvmlDeviceGetPcieThroughput"),
		S(nvmlDeviceGetCurrentClocksEventReasons, false,
		  "nvmlDeviceGetCurrentClocksEventReasons"),
		S(nvmlDeviceGetCurrentClocksThrottleReasons, false,
		  "nvmlDeviceGetCurrentClocksThrottleReasons"),
		S(nvmlDeviceGetComputeRunningProcesses_v3, false,
		  "nvmlDeviceGetComputeRunningProcesses_v3"),
		S(nvmlDeviceGetComputeRunningProcesses_v2, false,
		  "nvmlDeviceGetComputeRunningProcesses_v2"),
		S(nvmlDeviceGetComputeRunningProcesses, false,
		  "nvmlDeviceGetComputeRunningProcesses"),
		S(nvmlDeviceGetProcessUtilization, false, "nvmlDeviceGetProcessUtilization"),
	};
#undef S
	const char *env = library && *library ? library : getenv("GPUPROF_NVML_LIBRARY");

	int rc = gp__dl_load(&n->dl, env, candidates, syms, GP_ARRAY_SIZE(syms));

	if (rc)
		return rc;
	n->init = f->nvmlInit_v2 ? f->nvmlInit_v2 : f->nvmlInit;
	n->count = f->nvmlDeviceGetCount_v2 ? f->nvmlDeviceGetCount_v2 : f->nvmlDeviceGetCount;
	n->handle = f->nvmlDeviceGetHandleByIndex_v2 ? f->nvmlDeviceGetHandleByIndex_v2
	                                             : f->nvmlDeviceGetHandleByIndex;
	n->pci =
	    f->nvmlDeviceGetPciInfo_v3 ? f->nvmlDeviceGetPciInfo_v3 : f->nvmlDeviceGetPciInfo_v2;
	n->reasons = f->nvmlDeviceGetCurrentClocksEventReasons
	                 ? f->nvmlDeviceGetCurrentClocksEventReasons
	                 : f->nvmlDeviceGetCurrentClocksThrottleReasons;
	n->procs = f->nvmlDeviceGetComputeRunningProcesses_v3
	               ? f->nvmlDeviceGetComputeRunningProcesses_v3
	               : f->nvmlDeviceGetComputeRunningProcesses_v2;
	{
		const char *missing = !n->init     ? "nvmlInit_v2 (or nvmlInit)"
		                      : !n->count  ? "nvmlDeviceGetCount_v2 (or nvmlDeviceGetCount)"
		                      : !n->handle ? "nvmlDeviceGetHandleByIndex_v2 (or _ByIndex)"
		                                   : NULL;

		if (missing) {
			rc = gp__error(GP_ENOTSUP, "%s: required symbol %s not found", n->dl.path,
			               missing);
			gp__dl_close(&n->dl);
			return rc;
		}
	}
	return 0;
}

/* the clocks read, in the order of dev.clock_max[] */
static const int clk[3] = { NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_CLOCK_GRAPHICS };

static void read_static(struct gp__nvml *n, struct dev *d)
{
	static const int bit[3] = { GP_GF_CLOCK_SM_MAX, GP_GF_CLOCK_MEM_MAX, GP_GF_CLOCK_GR_MAX };
	struct nvml_fns *f = &n->f;
	nvmlPciInfo_t pci;
	unsigned int v;

	if (f->nvmlDeviceGetName && f->nvmlDeviceGetName(d->h, d->name, sizeof(d->name)))
		d->name[0] = 0;
	if (f->nvmlDeviceGetUUID && f->nvmlDeviceGetUUID(d->h, d->uuid, sizeof(d->uuid)))
		d->uuid[0] = 0;
	d->name[sizeof(d->name) - 1] = d->uuid[sizeof(d->uuid) - 1] = 0;
	memset(&pci, 0, sizeof(pci));
	if (n->pci && n->pci(d->h, &pci) == NVML_SUCCESS) {
		pci.busId[sizeof(pci.busId) - 1] = 0;
		snprintf(d->pci, sizeof(d->pci), "%s", pci.busId);
	}
	for (int i = 0; i < 3; i++) {
		if (f->nvmlDeviceGetMaxClockInfo &&
		    f->nvmlDeviceGetMaxClockInfo(d->h, clk[i], &v) == NVML_SUCCESS) {
			d->clock_max[i] = v * 1e6;
			d->static_valid |= GP_GF_BIT(bit[i]);
		}
	}
	if (f->nvmlDeviceGetTemperatureThreshold &&
	    f->nvmlDeviceGetTemperatureThreshold(d->h, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v) ==
	        NVML_SUCCESS) {
		d->temp_slowdown = v;
		d->static_valid |= GP_GF_BIT(GP_GF_TEMP_SLOWDOWN);
	}
}

int gp__nvml_open(struct gp__nvml **out, const char *library)
{
	struct gp__nvml *n;
	nvmlReturn_t r;
	unsigned int count = 0;
	int rc;

	*out = NULL;
	n = gp__calloc(1, sizeof(*n));
	if (!n)
		return gp__error(GP_ENOMEM, "out of memory");
	if ((rc = load(n, library))) {
		gp__free(n);
		return rc;
	}
	r = n->init();
	if (r != NVML_SUCCESS) {
		rc = gp__error(GP_ENODEV, "%s: nvmlInit failed: %s (%d)", n->dl.path,
		               nvml_err(n, r), r);
		goto out;
	}
	n->inited = true;
	r = n->count(&count);
	if (r != NVML_SUCCESS) {
		rc = gp__error(GP_ENODEV, "%s: nvmlDeviceGetCount failed: %s (%d)", n->dl.path,
		               nvml_err(n, r), r);
		goto out;
	}
	if (count == 0) {
		rc = gp__error(GP_ENODEV, "NVML found no GPU");
		goto out;
	}
	if (n->f.nvmlSystemGetDriverVersion &&
	    n->f.nvmlSystemGetDriverVersion(n->driver, sizeof(n->driver)) != NVML_SUCCESS)
		n->driver[0] = 0;
	n->driver[sizeof(n->driver) - 1] = 0;
	n->n_all = count;
	for (unsigned i = 0; i < count && n->n < GP_SAMPLE_MAX_GPUS; i++) {
		struct dev *d = &n->dev[n->n];

		r = n->handle(i, &d->h);
		if (r != NVML_SUCCESS) {
			/* a GPU we may not open (permissions, a lost GPU) is still counted */
			gp__log(GP_LOG_WARN, "NVML GPU %u: %s", i, nvml_err(n, r));
			d->h = NULL;
			d->lost = true;
		} else {
			read_static(n, d);
		}
		n->n++;
	}
	*out = n;
	return 0;
out:
	gp__nvml_close(n);
	return rc;
}

unsigned gp__nvml_count(const struct gp__nvml *n)
{
	return n ? n->n : 0;
}

unsigned gp__nvml_count_all(const struct gp__nvml *n)
{
	return n ? n->n_all : 0;
}

const char *gp__nvml_library(const struct gp__nvml *n)
{
	return n ? n->dl.path : "";
}

const char *gp__nvml_driver(const struct gp__nvml *n)
{
	return n ? n->driver : "";
}

bool gp__nvml_pcie_slow(const struct gp__nvml *n, unsigned i)
{
	return n && i < n->n && n->dev[i].pcie_slow;
}

/*
 * Bookkeeping of one call's result: success counts, GPU_IS_LOST marks the
 * GPU lost, anything else leaves the field unknown and keeps the last error.
 */
struct calls {
	unsigned ok, failed;
	nvmlReturn_t last;
	const char *what;
};

static bool call_ok(struct dev *d, struct calls *c, nvmlReturn_t r, const char *what)
{
	if (r == NVML_SUCCESS) {
		c->ok++;
		return true;
	}
	if (r == NVML_ERROR_GPU_IS_LOST)
		d->lost = true;
	if (r != NVML_ERROR_NOT_SUPPORTED) {
		c->failed++;
		c->last = r;
		c->what = what;
	}
	return false;
}

/* Memory: v2 (with the reserved amount) unless the driver refuses it. */
static void read_mem(struct gp__nvml *n, struct dev *d, struct calls *c, struct gp_gpu_sample *g)
{
	struct nvml_fns *f = &n->f;
	nvmlReturn_t r;

	if (!d->mem_v1 && f->nvmlDeviceGetMemoryInfo_v2) {
		nvmlMemory_v2_t m;

		memset(&m, 0, sizeof(m));
		m.version = nvmlMemory_v2;
		r = f->nvmlDeviceGetMemoryInfo_v2(d->h, &m);
		if (r == NVML_SUCCESS) {
			c->ok++;
			g->mem_total_bytes = m.total;
			g->mem_used_bytes = m.used;
			g->mem_reserved_bytes = m.reserved;
			g->valid |= GP_GF_BIT(GP_GF_MEM_TOTAL) | GP_GF_BIT(GP_GF_MEM_USED) |
			            GP_GF_BIT(GP_GF_MEM_RESERVED);
			return;
		}
		if (r == NVML_ERROR_GPU_IS_LOST) {
			call_ok(d, c, r, "nvmlDeviceGetMemoryInfo_v2");
			return;
		}
		/* a version mismatch or no support: v1 from now on (nvtop does the same) */
		d->mem_v1 = true;
	}
	if (f->nvmlDeviceGetMemoryInfo) {
		nvmlMemory_t m;

		memset(&m, 0, sizeof(m));
		if (call_ok(d, c, f->nvmlDeviceGetMemoryInfo(d->h, &m),
		            "nvmlDeviceGetMemoryInfo")) {
			g->mem_total_bytes = m.total;
			g->mem_used_bytes = m.used;
			g->valid |= GP_GF_BIT(GP_GF_MEM_TOTAL) | GP_GF_BIT(GP_GF_MEM_USED);
		}
	}
}

static void read_temp(struct gp__nvml *n, struct dev *d, struct calls *c, struct gp_gpu_sample *g)
{
	struct nvml_fns *f = &n->f;
	unsigned int v;

	if (!d->temp_old && f->nvmlDeviceGetTemperatureV) {
		nvmlTemperature_v1_t t;
		nvmlReturn_t r;

		memset(&t, 0, sizeof(t));
		t.version = nvmlTemperature_v1;
		t.sensorType = NVML_TEMPERATURE_GPU;
		r = f->nvmlDeviceGetTemperatureV(d->h, &t);
		if (r == NVML_SUCCESS) {
			c->ok++;
			g->temp_celsius = t.temperature;
			g->valid |= GP_GF_BIT(GP_GF_TEMP);
			return;
		}
		if (r == NVML_ERROR_GPU_IS_LOST) {
			call_ok(d, c, r, "nvmlDeviceGetTemperatureV");
			return;
		}
		d->temp_old = true;
	}
	if (f->nvmlDeviceGetTemperature &&
	    call_ok(d, c, f->nvmlDeviceGetTemperature(d->h, NVML_TEMPERATURE_GPU, &v),
	            "nvmlDeviceGetTemperature")) {
		g->temp_celsius = v;
		g->valid |= GP_GF_BIT(GP_GF_TEMP);
	}
}

/* value of a field as an unsigned 64-bit number, false if unusable */
static bool field_u64(const nvmlFieldValue_t *v, uint64_t *out)
{
	if (v->nvmlReturn != NVML_SUCCESS)
		return false;
	switch (v->valueType) {
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		*out = v->value.uiVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		*out = v->value.ulVal;
		return true;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		*out = v->value.ullVal;
		return true;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		if (v->value.sllVal < 0)
			return false;
		*out = (uint64_t)v->value.sllVal;
		return true;
	case NVML_VALUE_TYPE_SIGNED_INT:
		if (v->value.siVal < 0)
			return false;
		*out = (uint64_t)v->value.siVal;
		return true;
	case NVML_VALUE_TYPE_DOUBLE:
		if (!(v->value.dVal >= 0) || v->value.dVal > 1.8e19)
			return false;
		*out = (uint64_t)v->value.dVal;
		return true;
	default:
		return false;
	}
}

/*
 * Power (instant), energy and the PCIe byte counters in one batch call;
 * what the batch does not give comes from the single calls.
 */
static void read_power(struct gp__nvml *n, struct dev *d, struct calls *c, int64_t now_ns,
                       struct gp_gpu_sample *g)
{
	struct nvml_fns *f = &n->f;
	bool power = false, energy = false, pcie = false;
	uint64_t v, tx = 0, rx = 0;
	unsigned int mw;

	if (!d->fields_off && f->nvmlDeviceGetFieldValues) {
		nvmlFieldValue_t fv[4];
		nvmlReturn_t r;

		memset(fv, 0, sizeof(fv));
		fv[0].fieldId = NVML_FI_DEV_POWER_INSTANT;
		fv[1].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
		fv[2].fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
		fv[3].fieldId = NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
		r = f->nvmlDeviceGetFieldValues(d->h, 4, fv);
		if (r == NVML_SUCCESS) {
			c->ok++;
			if (field_u64(&fv[0], &v)) {
				g->power_watts = v / 1e3;
				power = true;
			}
			if (field_u64(&fv[1], &v)) {
				g->energy_joules = v / 1e3;
				energy = true;
			}
			pcie = field_u64(&fv[2], &tx) && field_u64(&fv[3], &rx);
		} else if (r == NVML_ERROR_GPU_IS_LOST) {
			call_ok(d, c, r, "nvmlDeviceGetFieldValues");
			return;
		} else {
			d->fields_off = true;
		}
	}
	if (!power && f->nvmlDeviceGetPowerUsage &&
	    call_ok(d, c, f->nvmlDeviceGetPowerUsage(d->h, &mw), "nvmlDeviceGetPowerUsage")) {
		g->power_watts = mw / 1e3;
		power = true;
	}
	if (!energy && f->nvmlDeviceGetTotalEnergyConsumption) {
		unsigned long long mj;

		if (call_ok(d, c, f->nvmlDeviceGetTotalEnergyConsumption(d->h, &mj),
		            "nvmlDeviceGetTotalEnergyConsumption")) {
			g->energy_joules = mj / 1e3;
			energy = true;
		}
	}
	if (power)
		g->valid |= GP_GF_BIT(GP_GF_POWER);
	if (energy)
		g->valid |= GP_GF_BIT(GP_GF_ENERGY);
	if (!pcie) {
		/* no counters: the slow path measures throughput (it blocks 20 ms) */
		d->pcie_slow = f->nvmlDeviceGetPcieThroughput != NULL;
		d->have_prev = false;
		return;
	}
	d->pcie_slow = false;
	if (d->have_prev && now_ns > d->prev_ns && tx >= d->prev_tx && rx >= d->prev_rx) {
		double dt = (now_ns - d->prev_ns) / 1e9;

		g->pcie_tx_bytes_per_second = (tx - d->prev_tx) / dt;
		g->pcie_rx_bytes_per_second = (rx - d->prev_rx) / dt;
		g->valid |= GP_GF_BIT(GP_GF_PCIE_TX) | GP_GF_BIT(GP_GF_PCIE_RX);
	}
	/* a counter that went backwards (wrapped, reset) just restarts the delta */
	d->have_prev = true;
	d->prev_tx = tx;
	d->prev_rx = rx;
	d->prev_ns = now_ns;
}

static void copy_static(const struct dev *d, unsigned i, struct gp_gpu_sample *g)
{
	g->index = i;
	memcpy(g->name, d->name, sizeof(g->name));
	memcpy(g->uuid, d->uuid, sizeof(g->uuid));
	memcpy(g->pci_bus_id, d->pci, sizeof(g->pci_bus_id));
	g->valid |= d->static_valid;
	g->clock_sm_max_hz = d->clock_max[0];
	g->clock_mem_max_hz = d->clock_max[1];
	g->clock_graphics_max_hz = d->clock_max[2];
	g->temp_slowdown_celsius = d->temp_slowdown;
}

void gp__nvml_sample(struct gp__nvml *n, unsigned i, int64_t now_ns, struct gp_gpu_sample *g)
{
	static const int bit[3] = { GP_GF_CLOCK_SM, GP_GF_CLOCK_MEM, GP_GF_CLOCK_GR };
	struct nvml_fns *f;
	struct calls c = { 0, 0, NVML_SUCCESS, NULL };
	struct dev *d;
	unsigned int v;
	nvmlUtilization_t u;
	unsigned long long reasons;

	if (!n || i >= n->n)
		return;
	f = &n->f;
	d = &n->dev[i];
	/* the process list and a slow PCIe throughput are the caller's to merge */
	g->valid = 0;
	g->status = 0;
	g->error[0] = 0;
	copy_static(d, i, g);
	if (d->lost || !d->h)
		goto lost;
	read_mem(n, d, &c, g);
	if (f->nvmlDeviceGetUtilizationRates &&
	    call_ok(d, &c, f->nvmlDeviceGetUtilizationRates(d->h, &u),
	            "nvmlDeviceGetUtilizationRates")) {
		g->util_gpu = u.gpu > 100 ? 1.0 : u.gpu / 100.0;
		g->util_mem = u.memory > 100 ? 1.0 : u.memory / 100.0;
		g->valid |= GP_GF_BIT(GP_GF_UTIL_GPU) | GP_GF_BIT(GP_GF_UTIL_MEM);
	}
	for (int k = 0; k < 3 && f->nvmlDeviceGetClockInfo; k++) {
		if (call_ok(d, &c, f->nvmlDeviceGetClockInfo(d->h, clk[k], &v),
		            "nvmlDeviceGetClockInfo")) {
			double hz = v * 1e6;

			if (k == 0)
				g->clock_sm_hz = hz;
			else if (k == 1)
				g->clock_mem_hz = hz;
			else
				g->clock_graphics_hz = hz;
			g->valid |= GP_GF_BIT(bit[k]);
		}
	}
	read_temp(n, d, &c, g);
	read_power(n, d, &c, now_ns, g);
	if (n->reasons &&
	    call_ok(d, &c, n->reasons(d->h, &reasons), "nvmlDeviceGetCurrentClocksEventReasons")) {
		g->clock_event_reasons = reasons;
		g->valid |= GP_GF_BIT(GP_GF_CLOCK_REASONS);
	}
	if (d->lost)
		goto lost;
	if (c.failed && !c.ok) {
		g->status = GP_EIO;
		snprintf(g->error, sizeof(g->error), "NVML calls failing: %s: %s (%d)", c.what,
		         nvml_err(n, c.last), c.last);
	}
	return;
lost:
	g->valid &= d->static_valid;
	g->status = GP_ENODEV;
	snprintf(g->error, sizeof(g->error), "GPU lost: %s", nvml_err(n, NVML_ERROR_GPU_IS_LOST));
}

/* Grows *p to hold @p need elements of @p size, at most PROC_CAP_MAX. */
static bool reserve(void **p, unsigned *cap, unsigned need, size_t size)
{
	void *q;

	if (need <= *cap)
		return true;
	if (need > PROC_CAP_MAX)
		need = PROC_CAP_MAX;
	if (need <= *cap)
		return true;
	q = gp__reallocarray(*p, need, size);
	if (!q)
		return false;
	*p = q;
	*cap = need;
	return true;
}

/* The compute processes: the count protocol, newest struct version first. */
static bool read_procs(struct gp__nvml *n, struct dev *d, struct gp_gpu_sample *g)
{
	struct nvml_fns *f = &n->f;
	unsigned int cnt = 0, want;
	nvmlReturn_t r;

	for (int tries = 0; tries < 3; tries++) {
		cnt = d->procs_cap;
		if (n->procs)
			r = n->procs(d->h, &cnt, d->procs);
		else if (f->nvmlDeviceGetComputeRunningProcesses)
			r = f->nvmlDeviceGetComputeRunningProcesses(d->h, &cnt, d->procs1);
		else
			return false;
		if (r == NVML_SUCCESS)
			break;
		if (r == NVML_ERROR_GPU_IS_LOST)
			d->lost = true;
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			return false;
		want = cnt + 8; /* processes may start between the calls */
		if (n->procs
		        ? !reserve((void **)&d->procs, &d->procs_cap, want, sizeof(*d->procs))
		        : !reserve((void **)&d->procs1, &d->procs_cap, want, sizeof(*d->procs1)))
			return false;
		if (d->procs_cap >= PROC_CAP_MAX && cnt > d->procs_cap) {
			/* more than we ask for: list none rather than a wrong subset */
			g->procs_all = cnt;
			g->nprocs = 0;
			return true;
		}
	}
	if (r != NVML_SUCCESS)
		return false;
	if (cnt > d->procs_cap)
		cnt = d->procs_cap;
	g->procs_all = cnt;
	g->nprocs = cnt < GP_SAMPLE_MAX_PROCS ? cnt : GP_SAMPLE_MAX_PROCS;
	for (unsigned k = 0; k < g->nprocs; k++) {
		struct gp_gpu_proc *p = &g->procs[k];
		unsigned long long mem =
		    n->procs ? d->procs[k].usedGpuMemory : d->procs1[k].usedGpuMemory;

		memset(p, 0, sizeof(*p));
		p->pid = n->procs ? d->procs[k].pid : d->procs1[k].pid;
		p->mem_valid = mem != NVML_VALUE_NOT_AVAILABLE;
		p->mem_bytes = p->mem_valid ? mem : 0;
	}
	return true;
}

/*
 * Per-process SM utilisation since the last sample seen (passing it is what
 * keeps the values from lagging, nvtop #91); samples over 100 % or not newer
 * than the last seen are dropped, as nvtop does.
 */
static void read_proc_util(struct gp__nvml *n, struct dev *d, struct gp_gpu_sample *g)
{
	struct nvml_fns *f = &n->f;
	unsigned int cnt = 0;
	unsigned long long seen = d->util_seen_us;
	nvmlReturn_t r;

	if (!f->nvmlDeviceGetProcessUtilization || !g->nprocs)
		return;
	r = f->nvmlDeviceGetProcessUtilization(d->h, NULL, &cnt, seen);
	if (r != NVML_ERROR_INSUFFICIENT_SIZE && r != NVML_SUCCESS)
		return;
	if (!cnt || !reserve((void **)&d->util, &d->util_cap, cnt + 8, sizeof(*d->util)))
		return;
	cnt = d->util_cap;
	if (f->nvmlDeviceGetProcessUtilization(d->h, d->util, &cnt, seen) != NVML_SUCCESS)
		return;
	if (cnt > d->util_cap)
		cnt = d->util_cap;
	for (unsigned k = 0; k < cnt; k++) {
		const nvmlProcessUtilizationSample_t *s = &d->util[k];

		if (s->timeStamp <= seen || s->smUtil > 100)
			continue;
		if (s->timeStamp > d->util_seen_us)
			d->util_seen_us = s->timeStamp;
		for (unsigned j = 0; j < g->nprocs; j++) {
			if (g->procs[j].pid == s->pid) {
				g->procs[j].util_sm = s->smUtil / 100.0;
				g->procs[j].util_valid = true;
			}
		}
	}
}

void gp__nvml_slow(struct gp__nvml *n, unsigned i, bool procs, struct gp_gpu_sample *g)
{
	struct dev *d;
	unsigned int tx, rx;

	if (!n || i >= n->n)
		return;
	d = &n->dev[i];
	g->valid &= ~(GP_GF_BIT(GP_GF_PROCS) | GP_GF_BIT(GP_GF_PCIE_TX) | GP_GF_BIT(GP_GF_PCIE_RX) |
	              GP_GF_BIT(GP_GF_POWER_LIMIT));
	g->nprocs = g->procs_all = 0;
	if (d->lost || !d->h)
		return;
	/* changed only by an administrator: once a second is enough (one NVML call fewer per
	 * sample) */
	if (n->f.nvmlDeviceGetEnforcedPowerLimit &&
	    n->f.nvmlDeviceGetEnforcedPowerLimit(d->h, &tx) == NVML_SUCCESS) {
		g->power_limit_watts = tx / 1e3;
		g->valid |= GP_GF_BIT(GP_GF_POWER_LIMIT);
	}
	if (procs && read_procs(n, d, g)) {
		g->valid |= GP_GF_BIT(GP_GF_PROCS);
		read_proc_util(n, d, g);
	}
	if (d->pcie_slow && n->f.nvmlDeviceGetPcieThroughput &&
	    n->f.nvmlDeviceGetPcieThroughput(d->h, NVML_PCIE_UTIL_TX_BYTES, &tx) == NVML_SUCCESS &&
	    n->f.nvmlDeviceGetPcieThroughput(d->h, NVML_PCIE_UTIL_RX_BYTES, &rx) == NVML_SUCCESS) {
		/* NVML reports KB/s; taken as KiB/s, as nvidia-smi and nvtop do */
		g->pcie_tx_bytes_per_second = tx * 1024.0;
		g->pcie_rx_bytes_per_second = rx * 1024.0;
		g->valid |= GP_GF_BIT(GP_GF_PCIE_TX) | GP_GF_BIT(GP_GF_PCIE_RX);
	}
}

void gp__nvml_close(struct gp__nvml *n)
{
	if (!n)
		return;
	if (n->inited && n->f.nvmlShutdown)
		n->f.nvmlShutdown();
	for (unsigned i = 0; i < GP_SAMPLE_MAX_GPUS; i++) {
		gp__free(n->dev[i].procs);
		gp__free(n->dev[i].procs1);
		gp__free(n->dev[i].util);
	}
	gp__dl_close(&n->dl);
	gp__free(n);
}
