/* SPDX-License-Identifier: MIT */
/*
 * prom.c - `gpuprof top --listen ADDR:PORT` and `--textfile DIR`: the
 * sampler's newest sample in the Prometheus text exposition format 0.0.4.
 *
 * Naming follows Prometheus' conventions (base units, _bytes, _celsius,
 * _watts, _hertz, _joules_total, ratios 0..1), labels dcgm-exporter's (gpu,
 * UUID, pci_bus_id, device, modelName, Hostname) plus rank, local_rank and
 * job when a launcher set them. An unknown value is left out, never 0.
 *
 * HTTP is libmicrohttpd's, on its own internal thread with an event loop.
 * The library is loaded with dlopen when --listen asks for it (its header
 * gives the types), so no other command pays for it and its TLS stack at
 * start-up (about 2.5 ms and 2.7 MB here). A scrape copies the newest sample
 * under the sampler's lock and renders it, so a slow or malformed client
 * never touches the sampling thread, and concurrent scrapes each render
 * their own copy. The textfile writer is a thread that rewrites
 * DIR/gpuprof.prom (temp file + rename) per sample.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof-config.h"
#include "top.h"
#include "util/json-scan.h"

#if GP_HAVE_MHD
#include <microhttpd.h>

#include "util/dl.h"
#endif

struct gp_prom {
	struct gp_sampler *s;
	char hostname[256];
#if GP_HAVE_MHD
	struct MHD_Daemon *d;
	struct gp_dl dl;
#endif
	const char *textfile;
	pthread_t tid;
	bool writer;
	atomic_bool stop;
};

/* ---- rendering ---- */

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
		o->buf = malloc(o->cap);
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
			char *nb = realloc(o->buf, ncap);

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

/* ,rank="..",local_rank="..",job=".." from the launcher's environment */
static void launcher_labels(char *dst, size_t n)
{
	static const char *const rank[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
		                            "PMI_RANK", NULL };
	static const char *const local[] = { "LOCAL_RANK", "SLURM_LOCALID",
		                             "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		                             NULL };
	static const char *const job[] = { "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "LSB_JOBID",
		                           "PBS_JOBID", NULL };
	static const struct {
		const char *label;
		const char *const *vars;
	} l[] = { { "rank", rank }, { "local_rank", local }, { "job", job } };
	size_t k = 0;

	dst[0] = 0;
	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		for (size_t j = 0; l[i].vars[j]; j++) {
			const char *v = getenv(l[i].vars[j]);
			char esc[256];

			if (!v || !*v)
				continue;
			label_value(esc, sizeof(esc), v);
			k += (size_t)snprintf(dst + k, k < n ? n - k : 0, ",%s=\"%s\"", l[i].label,
			                      esc);
			break;
		}
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

char *gp_prom_render(const struct gp_sample *s, const char *hostname, size_t *len)
{
	struct out o = { NULL, 0, 0, false };
	/* each label set holds its longest parts (label_value truncates each to its buffer) */
	char host[300], launch[900], (*labels)[2048] = NULL;
	const struct gp_host_sample *h = &s->host;
	unsigned n = s->ngpus < GP_SAMPLE_MAX_GPUS ? s->ngpus : GP_SAMPLE_MAX_GPUS;

	label_value(host, sizeof(host), hostname ? hostname : "");
	launcher_labels(launch, sizeof(launch));
	labels = calloc(n ? n : 1, sizeof(*labels));
	if (!labels)
		return NULL;
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
	}
	free(labels);
	if (o.oom) {
		free(o.buf);
		return NULL;
	}
	if (len)
		*len = o.len;
	return o.buf;
}

/* ---- the textfile writer ---- */

static int write_textfile(struct gp_prom *p, const struct gp_sample *s)
{
	char path[4096], tmp[4200];
	size_t len = 0;
	char *text = gp_prom_render(s, p->hostname, &len);
	int rc;

	if (!text)
		return -1;
	snprintf(path, sizeof(path), "%s/gpuprof.prom", p->textfile);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	{
		FILE *f = fopen(tmp, "we");

		rc = -1;
		if (f) {
			rc = fwrite(text, 1, len, f) == len ? 0 : -1;
			if (fclose(f))
				rc = -1;
			if (!rc && rename(tmp, path))
				rc = -1;
			if (rc)
				unlink(tmp);
		}
	}
	free(text);
	return rc;
}

static void *writer_main(void *arg)
{
	struct gp_prom *p = arg;
	struct gp_sample *s = malloc(sizeof(*s));
	uint64_t seq = 0;
	bool warned = false;

	if (!s)
		return NULL;
	while (!p->stop) {
		if (gp_sampler_wait(p->s, seq, 200, s))
			continue;
		seq = s->seq;
		if (write_textfile(p, s) && !warned) {
			warning("cannot write '%s/gpuprof.prom': %s", p->textfile, strerror(errno));
			warned = true;
		}
	}
	free(s);
	return NULL;
}

/* ---- HTTP ---- */

#if GP_HAVE_MHD
/* libmicrohttpd's functions, typed by its header, resolved by mhd_load() */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

/* Loads libmicrohttpd into @p dl and fills mhd (0, or the dlerror in gp_last_error()). */
static int mhd_load(struct gp_dl *dl)
{
	static const char *const libs[] = { "libmicrohttpd.so.12", "libmicrohttpd.so", NULL };
	const struct gp_dl_sym syms[] = {
		{ { "MHD_start_daemon" }, (void **)&mhd.start_daemon, true },
		{ { "MHD_stop_daemon" }, (void **)&mhd.stop_daemon, true },
		{ { "MHD_create_response_from_buffer" },
		  (void **)&mhd.create_response_from_buffer,
		  true },
		{ { "MHD_add_response_header" }, (void **)&mhd.add_response_header, true },
		{ { "MHD_queue_response" }, (void **)&mhd.queue_response, true },
		{ { "MHD_destroy_response" }, (void **)&mhd.destroy_response, true },
	};

	return gp_dl_load(dl, NULL, libs, syms, sizeof(syms) / sizeof(syms[0]));
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, "Content-Type", type);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req)
{
	static char not_found[] = "not found: try /metrics\n";
	static char not_allowed[] = "method not allowed\n";
	static char index[] = "gpuprof top: metrics at /metrics\n";
	static char unavailable[] = "no sample yet\n";
	struct gp_prom *p = cls;
	struct gp_sample *s;
	char *text;
	size_t len = 0;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		*upload_size = 0; /* a body is ignored */
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
		             sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, "/") == 0)
		return reply(c, MHD_HTTP_OK, "text/plain", index, sizeof(index) - 1,
		             MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, sizeof(not_found) - 1,
		             MHD_RESPMEM_PERSISTENT);
	s = malloc(sizeof(*s));
	if (!s || gp_sampler_latest(p->s, s)) {
		free(s);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", unavailable,
		             sizeof(unavailable) - 1, MHD_RESPMEM_PERSISTENT);
	}
	text = gp_prom_render(s, p->hostname, &len);
	free(s);
	if (!text)
		return MHD_NO;
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text, len,
	             MHD_RESPMEM_MUST_FREE);
}

/* "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (loopback) into @p ss */
static int parse_listen(const char *spec, struct sockaddr_storage *ss)
{
	char host[256] = "127.0.0.1";
	const char *port = spec, *colon;
	char *end;
	long v;

	memset(ss, 0, sizeof(*ss));
	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host))
			return -1;
		memcpy(host, spec + 1, (size_t)(rb - spec - 1));
		host[rb - spec - 1] = 0;
		port = rb + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if ((size_t)(colon - spec) >= sizeof(host))
			return -1;
		if (colon != spec) {
			memcpy(host, spec, (size_t)(colon - spec));
			host[colon - spec] = 0;
		}
		port = colon + 1;
	}
	errno = 0;
	v = strtol(port, &end, 10);
	if (errno || end == port || *end || v < 1 || v > 65535)
		return -1;
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)v);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)v);
		if (strcmp(host, "localhost") == 0)
			snprintf(host, sizeof(host), "127.0.0.1");
		return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
	}
}
#endif

int gp_prom_start(struct gp_prom **out, struct gp_sampler *s, const struct gp_top_opts *o)
{
	struct gp_prom *p = xcalloc(1, sizeof(*p));

	*out = NULL;
	p->s = s;
	gethostname(p->hostname, sizeof(p->hostname) - 1);
	if (o->listen) {
#if GP_HAVE_MHD
		struct sockaddr_storage ss;
		unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;

		if (parse_listen(o->listen, &ss)) {
			free(p);
			usage_die(
			    "option '--listen' expects HOST:PORT (e.g. 127.0.0.1:9400), not '%s'",
			    o->listen);
		}
		if (ss.ss_family == AF_INET6)
			flags |= MHD_USE_IPv6;
		if (mhd_load(&p->dl)) {
			free(p);
			return error(
			    "--listen needs libmicrohttpd at run time (Debian: libmicrohttpd12): "
			    "%s; --textfile works without it",
			    gp_last_error());
		}
		p->d = mhd.start_daemon(flags, 0, NULL, NULL, handle, p, MHD_OPTION_SOCK_ADDR,
		                        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_TIMEOUT,
		                        (unsigned)10, MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
		                        MHD_OPTION_END);
		if (!p->d) {
			int e = errno;

			gp_dl_close(&p->dl);
			free(p);
			errno = e;
			return error("cannot listen on '%s': %s", o->listen,
			             errno ? strerror(errno) : "libmicrohttpd failed to start");
		}
		fprintf(stderr, "gpuprof top: serving Prometheus metrics on http://%s/metrics\n",
		        o->listen);
#else
		free(p);
		return error("--listen is not available: this gpuprof was built without "
		             "libmicrohttpd (install libmicrohttpd-dev and rebuild); "
		             "--textfile works without it");
#endif
	}
	if (o->textfile) {
		p->textfile = o->textfile;
		if (access(o->textfile, W_OK)) {
			int e = errno;

			gp_prom_stop(p);
			return error("cannot write to '%s': %s", o->textfile, strerror(e));
		}
		if (pthread_create(&p->tid, NULL, writer_main, p)) {
			gp_prom_stop(p);
			return error("cannot start the textfile writer");
		}
		p->writer = true;
	}
	*out = p;
	return 0;
}

int gp_prom_wait(struct gp_prom *p, const struct gp_top_opts *o)
{
	struct timespec ts0, ts;
	int64_t start;

	clock_gettime(CLOCK_MONOTONIC, &ts0);
	start = (int64_t)ts0.tv_sec * 1000000000LL + ts0.tv_nsec;
	(void)p;
	while (!gp_top_should_stop(o, 0, start)) {
		ts.tv_sec = 0;
		ts.tv_nsec = 100 * 1000000L;
		nanosleep(&ts, NULL);
	}
	return 0;
}

void gp_prom_stop(struct gp_prom *p)
{
	if (!p)
		return;
	p->stop = true;
	if (p->writer)
		pthread_join(p->tid, NULL);
#if GP_HAVE_MHD
	if (p->d)
		mhd.stop_daemon(p->d);
	gp_dl_close(&p->dl);
#endif
	free(p);
}
