/* SPDX-License-Identifier: MIT */
/*
 * sample-json.c - a sample as one JSON object ("gpuprof.sample/1"): the line
 * format of `gpuprof top --json` and of the metrics timeline that
 * `gpuprof top --record` writes. Base units in unit-suffixed keys, ratios
 * 0..1, null for every unknown value (never 0). docs/metrics-schema.md
 * documents the fields.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/value.h"
#include "sample-int.h"
#include "util/error.h"

static const struct {
	uint64_t bit;
	const char *name;
} reasons[] = {
	/* dcgm-exporter's clock_event names */
	{ 0x1, "gpu_idle" },    { 0x2, "clocks_setting" },  { 0x4, "power_cap" },
	{ 0x8, "hw_slowdown" }, { 0x10, "sync_boost" },     { 0x20, "sw_thermal" },
	{ 0x40, "hw_thermal" }, { 0x80, "hw_power_brake" }, { 0x100, "display_clocks" },
};

const char *gp_clock_reasons_str(uint64_t bits, const char *sep, char *buf, size_t n)
{
	size_t len = 0;
	uint64_t rest = bits;

	if (!buf || !n)
		return buf;
	buf[0] = 0;
	if (!sep)
		sep = ",";
	for (size_t i = 0; i < GP_ARRAY_SIZE(reasons); i++) {
		if (!(bits & reasons[i].bit))
			continue;
		rest &= ~reasons[i].bit;
		len += (size_t)snprintf(buf + (len < n ? len : n - 1), len < n ? n - len : 1,
		                        "%s%s", len ? sep : "", reasons[i].name);
	}
	if (rest)
		snprintf(buf + (len < n ? len : n - 1), len < n ? n - len : 1, "%s0x%" PRIx64,
		         len ? sep : "", rest);
	return buf;
}

/* sets key to v when the bit is set, else null */
static int set_num(struct gp_value *o, const char *key, bool valid, double v)
{
	return valid && isfinite(v) ? gp_obj_set_double(o, key, v) : gp_obj_set_null(o, key);
}

static int set_u64(struct gp_value *o, const char *key, bool valid, uint64_t v)
{
	if (!valid)
		return gp_obj_set_null(o, key);
	if (v > (uint64_t)INT64_MAX)
		return gp_obj_set_double(o, key, (double)v);
	return gp_obj_set_int(o, key, (int64_t)v);
}

static struct gp_value *gpu_json(const struct gp_gpu_sample *g)
{
	struct gp_value *o = gp_value_object(), *procs = NULL, *rs = NULL;
	uint64_t v = g->valid;
	int rc = 0;

#define B(f) ((v & GP_GF_BIT(f)) != 0)
	if (!o)
		return NULL;
	GP_TRY(gp_obj_set_int(o, "index", g->index));
	GP_TRY(g->name[0] ? gp_obj_set_str(o, "name", g->name) : gp_obj_set_null(o, "name"));
	GP_TRY(g->uuid[0] ? gp_obj_set_str(o, "uuid", g->uuid) : gp_obj_set_null(o, "uuid"));
	GP_TRY(g->pci_bus_id[0] ? gp_obj_set_str(o, "pci_bus_id", g->pci_bus_id)
	                        : gp_obj_set_null(o, "pci_bus_id"));
	GP_TRY(set_u64(o, "memory_total_bytes", B(GP_GF_MEM_TOTAL), g->mem_total_bytes));
	GP_TRY(set_u64(o, "memory_used_bytes", B(GP_GF_MEM_USED), g->mem_used_bytes));
	GP_TRY(set_u64(o, "memory_reserved_bytes", B(GP_GF_MEM_RESERVED), g->mem_reserved_bytes));
	GP_TRY(set_num(o, "utilization_gpu_ratio", B(GP_GF_UTIL_GPU), g->util_gpu));
	GP_TRY(set_num(o, "utilization_memory_ratio", B(GP_GF_UTIL_MEM), g->util_mem));
	GP_TRY(set_num(o, "clock_sm_hertz", B(GP_GF_CLOCK_SM), g->clock_sm_hz));
	GP_TRY(set_num(o, "clock_memory_hertz", B(GP_GF_CLOCK_MEM), g->clock_mem_hz));
	GP_TRY(set_num(o, "clock_graphics_hertz", B(GP_GF_CLOCK_GR), g->clock_graphics_hz));
	GP_TRY(set_num(o, "clock_sm_max_hertz", B(GP_GF_CLOCK_SM_MAX), g->clock_sm_max_hz));
	GP_TRY(set_num(o, "clock_memory_max_hertz", B(GP_GF_CLOCK_MEM_MAX), g->clock_mem_max_hz));
	GP_TRY(set_num(o, "clock_graphics_max_hertz", B(GP_GF_CLOCK_GR_MAX),
	               g->clock_graphics_max_hz));
	GP_TRY(set_num(o, "temperature_celsius", B(GP_GF_TEMP), g->temp_celsius));
	GP_TRY(set_num(o, "temperature_slowdown_celsius", B(GP_GF_TEMP_SLOWDOWN),
	               g->temp_slowdown_celsius));
	GP_TRY(set_num(o, "power_watts", B(GP_GF_POWER), g->power_watts));
	GP_TRY(set_num(o, "power_limit_watts", B(GP_GF_POWER_LIMIT), g->power_limit_watts));
	GP_TRY(set_num(o, "energy_joules", B(GP_GF_ENERGY), g->energy_joules));
	GP_TRY(
	    set_num(o, "pcie_tx_bytes_per_second", B(GP_GF_PCIE_TX), g->pcie_tx_bytes_per_second));
	GP_TRY(
	    set_num(o, "pcie_rx_bytes_per_second", B(GP_GF_PCIE_RX), g->pcie_rx_bytes_per_second));
	if (B(GP_GF_CLOCK_REASONS)) {
		GP_TRY(set_u64(o, "clock_event_reasons", true, g->clock_event_reasons));
		rs = gp_value_array();
		if (!rs) {
			rc = GP_ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < GP_ARRAY_SIZE(reasons); i++)
			if (g->clock_event_reasons & reasons[i].bit)
				GP_TRY(gp_arr_push(rs, gp_value_str(reasons[i].name)));
		rc = gp_obj_set(o, "clock_event_reason_names", rs);
		rs = NULL;
		GP_TRY(rc);
	} else {
		GP_TRY(gp_obj_set_null(o, "clock_event_reasons"));
		GP_TRY(gp_obj_set_null(o, "clock_event_reason_names"));
	}
	if (B(GP_GF_PROCS)) {
		procs = gp_value_array();
		if (!procs) {
			rc = GP_ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < g->nprocs && i < GP_SAMPLE_MAX_PROCS; i++) {
			const struct gp_gpu_proc *p = &g->procs[i];
			struct gp_value *po = gp_value_object();

			if (!po) {
				rc = GP_ENOMEM;
				goto out;
			}
			if ((rc = gp_obj_set_int(po, "pid", p->pid)) ||
			    (rc = set_u64(po, "memory_used_bytes", p->mem_valid, p->mem_bytes)) ||
			    (rc = set_num(po, "utilization_sm_ratio", p->util_valid, p->util_sm))) {
				gp_value_free(po);
				goto out;
			}
			GP_TRY(gp_arr_push(procs, po));
		}
		rc = gp_obj_set(o, "processes", procs);
		procs = NULL;
		GP_TRY(rc);
		GP_TRY(gp_obj_set_int(o, "processes_total", g->procs_all));
	} else {
		GP_TRY(gp_obj_set_null(o, "processes"));
		GP_TRY(gp_obj_set_null(o, "processes_total"));
	}
	GP_TRY(g->status ? gp_obj_set_str(o, "error", g->error) : gp_obj_set_null(o, "error"));
#undef B
out:
	gp_value_free(procs);
	gp_value_free(rs);
	if (rc) {
		gp_value_free(o);
		return NULL;
	}
	return o;
}

static struct gp_value *host_json(const struct gp_host_sample *h)
{
	struct gp_value *o = gp_value_object(), *cores = NULL;
	bool busy = h->valid & GP_HF_BIT(GP_HF_CPU_BUSY);
	bool mem = h->valid & GP_HF_BIT(GP_HF_MEM);
	bool load = h->valid & GP_HF_BIT(GP_HF_LOAD);
	int rc = 0;

	if (!o)
		return NULL;
	GP_TRY(set_num(o, "cpu_busy_ratio", busy, h->cpu_busy));
	if (busy) {
		cores = gp_value_array();
		if (!cores) {
			rc = GP_ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < h->ncpus && i < GP_SAMPLE_MAX_CPUS; i++)
			GP_TRY(gp_arr_push(cores, gp_value_double(h->cpu_core_busy[i])));
		rc = gp_obj_set(o, "cpu_core_busy_ratio", cores);
		cores = NULL;
		GP_TRY(rc);
	} else {
		GP_TRY(gp_obj_set_null(o, "cpu_core_busy_ratio"));
	}
	GP_TRY(gp_obj_set_int(o, "cpu_count", h->ncpus_all));
	GP_TRY(set_u64(o, "memory_total_bytes", mem, h->mem_total_bytes));
	GP_TRY(set_u64(o, "memory_available_bytes", mem, h->mem_available_bytes));
	GP_TRY(set_num(o, "load1", load, h->load1));
	GP_TRY(set_num(o, "load5", load, h->load5));
	GP_TRY(set_num(o, "load15", load, h->load15));
	if (h->proc_pid > 0) {
		struct gp_value *p = gp_value_object();

		if (!p) {
			rc = GP_ENOMEM;
			goto out;
		}
		if ((rc = gp_obj_set_int(p, "pid", h->proc_pid)) ||
		    (rc = gp_obj_set_int(p, "processes", h->proc_count)) ||
		    (rc = set_num(p, "cpu_cores", h->valid & GP_HF_BIT(GP_HF_PROC_CPU),
		                  h->proc_cpu)) ||
		    (rc = set_u64(p, "rss_bytes", h->valid & GP_HF_BIT(GP_HF_PROC_RSS),
		                  h->proc_rss_bytes))) {
			gp_value_free(p);
			goto out;
		}
		GP_TRY(gp_obj_set(o, "process_tree", p));
	}
out:
	gp_value_free(cores);
	if (rc) {
		gp_value_free(o);
		return NULL;
	}
	return o;
}

int gp_sample_to_json(const struct gp_sample *s, char **json, size_t *len)
{
	struct gp_value *root = NULL, *gpus = NULL, *v;
	int rc = 0;

	if (!s || !json)
		return gp__error(GP_EINVAL, "gp_sample_to_json: NULL argument");
	*json = NULL;
	root = gp_value_object();
	gpus = gp_value_array();
	if (!root || !gpus) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	GP_TRY(gp_obj_set_str(root, "schema", "gpuprof.sample/1"));
	GP_TRY(gp_obj_set_int(root, "seq", (int64_t)s->seq));
	GP_TRY(gp_obj_set_int(root, "time_monotonic_ns", s->t_mono_ns));
	GP_TRY(gp_obj_set_int(root, "time_unix_ns", s->t_real_ns));
	GP_TRY(gp_obj_set_int(root, "sample_cost_ns", s->cost_ns));
	v = host_json(&s->host);
	if (!v) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	GP_TRY(gp_obj_set(root, "host", v));
	for (uint32_t i = 0; i < s->ngpus && i < GP_SAMPLE_MAX_GPUS; i++) {
		v = gpu_json(&s->gpus[i]);
		if (!v) {
			rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
		GP_TRY(gp_arr_push(gpus, v));
	}
	rc = gp_obj_set(root, "gpus", gpus);
	gpus = NULL;
	GP_TRY(rc);
	rc = gp_value_to_json(root, 0, json, len);
out:
	gp_value_free(gpus);
	gp_value_free(root);
	return rc;
}
