/* SPDX-License-Identifier: MIT */
/*
 * prom.c - a sample in the Prometheus text exposition format 0.0.4, the one
 * renderer of that format; the CLI's `gpuprof top --listen` serves it and
 * `--textfile` writes it (src/cli/prom.c).
 *
 * Naming follows Prometheus' conventions (base units, _bytes, _celsius,
 * _watts, _hertz, _joules_total, ratios 0..1), labels dcgm-exporter's (gpu,
 * UUID, pci_bus_id, device, modelName, Hostname) plus rank, local_rank and
 * job when the caller passes them (the renderer reads no environment). An
 * unknown value is left out, never 0. The HTTP endpoint adds its own
 * counters (struct gp_prom_http_stats). Public API: gp_sample_to_prom() in
 * gpuprof/sample.h.
 */

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/opts.h"

struct out {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void outf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void outf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->oom)
		return;
	if (!o->buf) {
		o->cap = 16384;
		o->buf = gp__malloc(o->cap);
		if (!o->buf) {
			o->oom = true;
			return;
		}
	}
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->oom = true;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		{
			size_t ncap = (o->cap + (size_t)n + 1) * 2;
			char *nb = gp__reallocarray(o->buf, ncap, 1);

			if (!nb) {
				o->oom = true;
				return;
			}
			o->buf = nb;
			o->cap = ncap;
		}
	}
}

/*
 * A label value with \, " and newline escaped, in valid UTF-8 (the format's
 * encoding: U+FFFD for a byte that is not), cut at a character's end.
 */
static void label_value(char *dst, size_t n, const char *s)
{
	size_t k = 0, i = 0, len = strlen(s);

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		const char *add = s + i;
		size_t m = 1, step = 1;

		if (c == '\\' || c == '"') {
			add = c == '"' ? "\\\"" : "\\\\";
			m = 2;
		} else if (c == '\n') {
			add = "\\n";
			m = 2;
		} else if (c >= 0x80) {
			m = step = gp__utf8_len((const unsigned char *)s + i, len - i);
			if (!m) {
				add = "\xEF\xBF\xBD";
				m = 3;
				step = 1;
			}
		}
		if (k + m >= n)
			break;
		memcpy(dst + k, add, m);
		k += m;
		i += step;
	}
	dst[k] = 0;
}

/* ,rank="..",local_rank="..",job=".." for those of @p l (may be NULL) that are set */
static void launcher_labels(char *dst, size_t n, const struct gp_prom_opts *l)
{
	const struct {
		const char *label, *value;
	} v[] = { { "rank", GP__OPTS_GET(l, rank, NULL) },
		  { "local_rank", GP__OPTS_GET(l, local_rank, NULL) },
		  { "job", GP__OPTS_GET(l, job, NULL) } };
	size_t k = 0;

	dst[0] = 0;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char esc[256];

		if (!v[i].value || !*v[i].value)
			continue;
		label_value(esc, sizeof(esc), v[i].value);
		k += (size_t)snprintf(dst + k, k < n ? n - k : 0, ",%s=\"%s\"", v[i].label, esc);
		if (k >= n) {
			dst[0] = 0;
			return;
		}
	}
}

struct metric {
	const char *name, *type, *help;
	int field; /* enum gp_gpu_field */
};

static const struct metric gpu_metrics[] = {
	{ "gpuprof_gpu_memory_total_bytes", "gauge", "GPU memory in total.", GP_GF_MEM_TOTAL },
	{ "gpuprof_gpu_memory_used_bytes", "gauge", "GPU memory in use.", GP_GF_MEM_USED },
	{ "gpuprof_gpu_memory_reserved_bytes", "gauge", "GPU memory reserved by the driver.",
	  GP_GF_MEM_RESERVED },
	{ "gpuprof_gpu_utilization_ratio", "gauge",
	  "Share of the driver's last sample period (1/6 s to 1 s) with a kernel running.",
	  GP_GF_UTIL_GPU },
	{ "gpuprof_gpu_memory_utilization_ratio", "gauge",
	  "Share of the driver's last sample period with device memory being read or written.",
	  GP_GF_UTIL_MEM },
	{ "gpuprof_gpu_sm_clock_hertz", "gauge", "SM clock.", GP_GF_CLOCK_SM },
	{ "gpuprof_gpu_memory_clock_hertz", "gauge", "Memory clock.", GP_GF_CLOCK_MEM },
	{ "gpuprof_gpu_graphics_clock_hertz", "gauge", "Graphics clock.", GP_GF_CLOCK_GR },
	{ "gpuprof_gpu_sm_clock_max_hertz", "gauge", "Maximum SM clock.", GP_GF_CLOCK_SM_MAX },
	{ "gpuprof_gpu_memory_clock_max_hertz", "gauge", "Maximum memory clock.",
	  GP_GF_CLOCK_MEM_MAX },
	{ "gpuprof_gpu_graphics_clock_max_hertz", "gauge", "Maximum graphics clock.",
	  GP_GF_CLOCK_GR_MAX },
	{ "gpuprof_gpu_temperature_celsius", "gauge", "GPU temperature.", GP_GF_TEMP },
	{ "gpuprof_gpu_slowdown_temperature_celsius", "gauge",
	  "Temperature at which the GPU starts to slow down.", GP_GF_TEMP_SLOWDOWN },
	{ "gpuprof_gpu_power_watts", "gauge", "Power draw.", GP_GF_POWER },
	{ "gpuprof_gpu_power_limit_watts", "gauge", "Enforced power limit.", GP_GF_POWER_LIMIT },
	{ "gpuprof_gpu_energy_joules_total", "counter",
	  "Energy consumed since the driver was loaded.", GP_GF_ENERGY },
	{ "gpuprof_gpu_pcie_transmit_bytes_per_second", "gauge", "PCIe transmit throughput.",
	  GP_GF_PCIE_TX },
	{ "gpuprof_gpu_pcie_receive_bytes_per_second", "gauge", "PCIe receive throughput.",
	  GP_GF_PCIE_RX },
};

static const char *const reason_names[] = { "gpu_idle",    "clocks_setting", "power_cap",
	                                    "hw_slowdown", "sync_boost",     "sw_thermal",
	                                    "hw_thermal",  "hw_power_brake", "display_clocks" };

int gp_sample_to_prom(const struct gp_sample *s, const struct gp_prom_opts *opts, char **out,
                      size_t *len)
{
	struct out o = { NULL, 0, 0, false };
	/* each label set holds its longest parts (label_value truncates each to its buffer) */
	char host[300], launch[900], (*labels)[2048] = NULL;
	const struct gp_prom_http_stats *hc;
	const struct gp_host_sample *h;
	const char *hostname;
	unsigned n;
	int rc;

	if (out)
		*out = NULL;
	if (!s || !out)
		return gp__error(GP_EINVAL, "gp_sample_to_prom: NULL argument");
	if ((rc = GP__OPTS_VALID(opts, struct gp_prom_opts)))
		return rc;
	hostname = GP__OPTS_GET(opts, hostname, NULL);
	hc = GP__OPTS_GET(opts, http, NULL);
	h = &s->host;
	n = s->ngpus < GP_SAMPLE_MAX_GPUS ? s->ngpus : GP_SAMPLE_MAX_GPUS;
	label_value(host, sizeof(host), hostname ? hostname : "");
	launcher_labels(launch, sizeof(launch), opts);
	labels = gp__calloc(n ? n : 1, sizeof(*labels));
	if (!labels)
		return gp__error(GP_ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		const struct gp_gpu_sample *g = &s->gpus[i];
		char uuid[200], pci[80], model[200];

		label_value(uuid, sizeof(uuid), g->uuid);
		label_value(pci, sizeof(pci), g->pci_bus_id);
		label_value(model, sizeof(model), g->name);
		snprintf(labels[i], sizeof(labels[i]),
		         "gpu=\"%u\",UUID=\"%s\",pci_bus_id=\"%s\",device=\"nvidia%u\","
		         "modelName=\"%s\",Hostname=\"%s\"%s",
		         g->index, uuid, pci, g->index, model, host, launch);
	}
	if (n) {
		outf(&o, "# HELP gpuprof_gpu_up 1 when the GPU could be read in the last sample.\n"
		         "# TYPE gpuprof_gpu_up gauge\n");
		for (unsigned i = 0; i < n; i++)
			outf(&o, "gpuprof_gpu_up{%s} %d\n", labels[i], s->gpus[i].status == 0);
	}
	for (size_t m = 0; n && m < sizeof(gpu_metrics) / sizeof(gpu_metrics[0]); m++) {
		const struct metric *mt = &gpu_metrics[m];
		bool head = false;

		for (unsigned i = 0; i < n; i++) {
			const struct gp_gpu_sample *g = &s->gpus[i];

			double v = gp_gpu_sample_value(g, mt->field);

			if (isnan(v))
				continue;
			if (!head)
				outf(&o, "# HELP %s %s\n# TYPE %s %s\n", mt->name, mt->help,
				     mt->name, mt->type);
			head = true;
			outf(&o, "%s{%s} %.17g\n", mt->name, labels[i], v);
		}
	}
	{
		bool head = false;

		for (unsigned i = 0; i < n; i++) {
			const struct gp_gpu_sample *g = &s->gpus[i];

			if (!(g->valid & (1ULL << GP_GF_CLOCK_REASONS)))
				continue;
			if (!head)
				outf(
				    &o,
				    "# HELP gpuprof_gpu_clock_event_active 1 while the clock-event "
				    "(throttle) reason holds the clocks down.\n"
				    "# TYPE gpuprof_gpu_clock_event_active gauge\n");
			head = true;
			for (unsigned b = 0; b < sizeof(reason_names) / sizeof(reason_names[0]);
			     b++)
				outf(&o,
				     "gpuprof_gpu_clock_event_active{%s,clock_event=\"%s\"} %d\n",
				     labels[i], reason_names[b],
				     (g->clock_event_reasons >> b) & 1 ? 1 : 0);
		}
	}
	{
		char hl[1280];

		snprintf(hl, sizeof(hl), "Hostname=\"%s\"%s", host, launch);
		if (h->valid & (1ULL << GP_HF_CPU_BUSY))
			outf(&o,
			     "# HELP gpuprof_host_cpu_busy_ratio Share of CPU time not idle, all "
			     "cores.\n"
			     "# TYPE gpuprof_host_cpu_busy_ratio gauge\n"
			     "gpuprof_host_cpu_busy_ratio{%s} %.17g\n",
			     hl, h->cpu_busy);
		if (h->valid & (1ULL << GP_HF_MEM))
			outf(&o,
			     "# HELP gpuprof_host_memory_total_bytes Host memory in total.\n"
			     "# TYPE gpuprof_host_memory_total_bytes gauge\n"
			     "gpuprof_host_memory_total_bytes{%s} %llu\n"
			     "# HELP gpuprof_host_memory_available_bytes Host memory available.\n"
			     "# TYPE gpuprof_host_memory_available_bytes gauge\n"
			     "gpuprof_host_memory_available_bytes{%s} %llu\n",
			     hl, (unsigned long long)h->mem_total_bytes, hl,
			     (unsigned long long)h->mem_available_bytes);
		if (h->valid & (1ULL << GP_HF_LOAD))
			outf(&o,
			     "# HELP gpuprof_host_load1 Load average over 1 minute.\n"
			     "# TYPE gpuprof_host_load1 gauge\ngpuprof_host_load1{%s} %.17g\n"
			     "# HELP gpuprof_host_load5 Load average over 5 minutes.\n"
			     "# TYPE gpuprof_host_load5 gauge\ngpuprof_host_load5{%s} %.17g\n"
			     "# HELP gpuprof_host_load15 Load average over 15 minutes.\n"
			     "# TYPE gpuprof_host_load15 gauge\ngpuprof_host_load15{%s} %.17g\n",
			     hl, h->load1, hl, h->load5, hl, h->load15);
		if (h->proc_pid > 0 && (h->valid & (1ULL << GP_HF_PROC_CPU)))
			outf(
			    &o,
			    "# HELP gpuprof_process_tree_cpu_ratio CPU used by the watched process "
			    "tree, in cores (1 = one full core).\n"
			    "# TYPE gpuprof_process_tree_cpu_ratio gauge\n"
			    "gpuprof_process_tree_cpu_ratio{%s,pid=\"%d\"} %.17g\n",
			    hl, (int)h->proc_pid, h->proc_cpu);
		if (h->proc_pid > 0 && (h->valid & (1ULL << GP_HF_PROC_RSS)))
			outf(&o,
			     "# HELP gpuprof_process_tree_resident_memory_bytes Resident memory of "
			     "the "
			     "watched process tree.\n"
			     "# TYPE gpuprof_process_tree_resident_memory_bytes gauge\n"
			     "gpuprof_process_tree_resident_memory_bytes{%s,pid=\"%d\"} %llu\n",
			     hl, (int)h->proc_pid, (unsigned long long)h->proc_rss_bytes);
		outf(&o,
		     "# HELP gpuprof_sample_duration_seconds Time taken by the last sample.\n"
		     "# TYPE gpuprof_sample_duration_seconds gauge\n"
		     "gpuprof_sample_duration_seconds{%s} %.9f\n"
		     "# HELP gpuprof_info Build information.\n"
		     "# TYPE gpuprof_info gauge\n"
		     "gpuprof_info{%s,version=\"%s\"} 1\n",
		     hl, s->cost_ns / 1e9, hl, gp_version());
		if (hc)
			outf(&o,
			     "# HELP gpuprof_http_client_errors_total Errors met on HTTP client "
			     "connections (malformed, abandoned or refused).\n"
			     "# TYPE gpuprof_http_client_errors_total counter\n"
			     "gpuprof_http_client_errors_total{%s} %llu\n"
			     "# HELP gpuprof_http_connections_closed_total HTTP connections closed "
			     "by gpuprof: timeout, no request answered in time; evicted, the "
			     "oldest when all were taken; idle, kept alive with no new request in "
			     "time.\n"
			     "# TYPE gpuprof_http_connections_closed_total counter\n"
			     "gpuprof_http_connections_closed_total{%s,reason=\"timeout\"} %llu\n"
			     "gpuprof_http_connections_closed_total{%s,reason=\"evicted\"} %llu\n"
			     "gpuprof_http_connections_closed_total{%s,reason=\"idle\"} %llu\n",
			     hl, (unsigned long long)hc->client_errors, hl,
			     (unsigned long long)hc->timed_out, hl, (unsigned long long)hc->evicted,
			     hl, (unsigned long long)hc->idle);
	}
	gp__free(labels);
	if (o.oom) {
		gp__free(o.buf);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	*out = o.buf;
	if (len)
		*len = o.len;
	return 0;
}
