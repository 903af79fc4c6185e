/* SPDX-License-Identifier: MIT */
/*
 * run-metrics.c - the metrics of `gpuprof run`: the library's sampler on the
 * process tree of CMD, recorded by a thread of its own into DIR/metrics.jsonl
 * in the format of `gpuprof top --record` (gpuprof.metrics/1, written by the
 * library's gp_metrics_writer), the one-line status shown on a terminal, and
 * the lines of --live (every GPU, the host and the process tree; numbers
 * through the library's one byte formatter, gp_format_bytes()).
 *
 * Threads: the recorder thread alone writes the file; the main thread only
 * reads the newest sample (gp_sampler_latest, which locks) for the status
 * line and asks the recorder to stop through an atomic flag, which it sees
 * within STOP_POLL_MS.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof/sample.h"
#include "run.h"

#define STOP_POLL_MS    50
#define FIRST_SAMPLE_MS 2000

struct gp_run_metrics {
	struct gp_sampler *s;
	char *path;
	struct gp_metrics_writer *w;
	pthread_t thread;
	bool started, stopped;
	atomic_bool stop;
	atomic_uint_least64_t n;
	struct gp_sample *rec; /* the recorder thread's */
	struct gp_sample *st;  /* the status line's (main thread) */
	int werrno;            /* the recorder's write error, 0 none */
	char err[256];         /* the recorder's sampler error, "" none */
};

static void *recorder(void *arg)
{
	struct gp_run_metrics *m = arg;
	uint64_t seq = 0;

	while (!atomic_load(&m->stop)) {
		int rc = gp_sampler_wait(m->s, seq, STOP_POLL_MS, m->rec);

		if (rc == GP_ETRUNC)
			continue;
		if (rc) {
			snprintf(m->err, sizeof(m->err), "%s", gp_last_error());
			break;
		}
		seq = m->rec->seq;
		errno = 0;
		rc = gp_metrics_writer_add(m->w, m->rec);
		if (rc == GP_EIO) {
			m->werrno = errno ? errno : EIO;
			break;
		}
		if (rc) {
			snprintf(m->err, sizeof(m->err), "%s", gp_last_error());
			break;
		}
		atomic_fetch_add(&m->n, 1);
	}
	/* a sample taken before the stop but not yet recorded still counts */
	if (!m->werrno && !m->err[0] && gp_sampler_wait(m->s, seq, 0, m->rec) == 0) {
		int rc;

		errno = 0;
		rc = gp_metrics_writer_add(m->w, m->rec);
		if (rc == 0)
			atomic_fetch_add(&m->n, 1);
		else if (rc == GP_EIO)
			m->werrno = errno ? errno : EIO;
		else
			snprintf(m->err, sizeof(m->err), "%s", gp_last_error());
	}
	return NULL;
}

int gp_run_metrics_start(struct gp_run_metrics **out, uint32_t interval_ms, pid_t pid,
                         const char *path)
{
	struct gp_run_metrics *m = xcalloc(1, sizeof(*m));
	struct gp_metrics_writer_opts wo = { .size = sizeof(wo), .watched_pid = (int32_t)pid };
	struct gp_sampler_opts so;
	int e;

	*out = NULL;
	atomic_init(&m->stop, false);
	atomic_init(&m->n, 0);
	m->path = xstrdup(path);
	m->rec = xmalloc(sizeof(*m->rec));
	m->st = xmalloc(sizeof(*m->st));
	memset(&so, 0, sizeof(so));
	so.size = sizeof(so);
	so.interval_ms = interval_ms;
	so.watch_pid = (int32_t)pid;
	if (gp_sampler_open(&so, &m->s)) {
		error("sampler: %s", gp_last_error());
		goto out_free;
	}
	if (gp_metrics_writer_open(path, m->s, &wo, &m->w)) {
		error("%s", gp_last_error());
		goto out_free;
	}
	if (gp_sampler_start(m->s)) {
		error("sampler: %s", gp_last_error());
		goto out_free;
	}
	e = pthread_create(&m->thread, NULL, recorder, m);
	if (e) {
		error("cannot start the recorder thread: %s", strerror(e));
		goto out_free;
	}
	m->started = true;
	/*
	 * The sampling thread takes its first sample at once; wait for it (CMD
	 * is not running yet) so that a command shorter than the thread's start
	 * still has the tree it started as, not "0 samples".
	 */
	(void)gp_sampler_wait(m->s, 0, FIRST_SAMPLE_MS, m->st);
	*out = m;
	return 0;
out_free:
	gp_run_metrics_free(m);
	return -1;
}

int gp_run_metrics_stop(struct gp_run_metrics *m)
{
	int rc = 0, e;

	if (!m || m->stopped)
		return 0;
	m->stopped = true;
	if (m->started) {
		atomic_store(&m->stop, true);
		pthread_join(m->thread, NULL);
		m->started = false;
	}
	if (m->err[0])
		rc = error("sampler: %s", m->err);
	e = m->werrno;
	if (e) {
		rc = error("cannot write '%s': %s", m->path, strerror(e));
		gp_metrics_writer_free(m->w);
	} else if (gp_metrics_writer_close(m->w, m->s)) {
		rc = error("%s", gp_last_error());
	}
	m->w = NULL;
	return rc;
}

void gp_run_metrics_free(struct gp_run_metrics *m)
{
	if (!m)
		return;
	if (m->started) {
		atomic_store(&m->stop, true);
		pthread_join(m->thread, NULL);
	}
	gp_metrics_writer_free(m->w);
	gp_sampler_close(m->s);
	free(m->rec);
	free(m->st);
	free(m->path);
	free(m);
}

const char *gp_run_metrics_gpu_status(struct gp_run_metrics *m)
{
	return m ? gp_sampler_gpu_status(m->s) : NULL;
}

uint64_t gp_run_metrics_count(struct gp_run_metrics *m)
{
	return m ? atomic_load(&m->n) : 0;
}

GP_CLI_PRINTF(3, 4) static void add(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

/* the GPU with the highest utilisation (or the first one read) */
static const struct gp_gpu_sample *busiest(const struct gp_sample *s)
{
	const struct gp_gpu_sample *best = NULL;
	uint32_t i;

	for (i = 0; i < s->ngpus && i < GP_SAMPLE_MAX_GPUS; i++) {
		const struct gp_gpu_sample *g = &s->gpus[i];
		double u = gp_gpu_sample_value(g, GP_GF_UTIL_GPU);

		if (g->status)
			continue;
		if (!best || (u == u && !(gp_gpu_sample_value(best, GP_GF_UTIL_GPU) >= u)))
			best = g;
	}
	return best;
}

/* " | no GPU: " and the reason's first part ("no NVML"): the details are in run.json */
static void add_no_gpu(char *buf, size_t n, const char *why)
{
	const char *colon = strstr(why, ": ");

	add(buf, n, " | no GPU: %.*s", colon ? (int)(colon - why) : (int)strlen(why), why);
}

static void add_gpu(char *buf, size_t n, const struct gp_sample *s, const char *why)
{
	const struct gp_gpu_sample *g = busiest(s);
	double used, total, util;

	if (why) {
		add_no_gpu(buf, n, why);
		return;
	}
	if (!g) {
		add(buf, n, " | GPU: not readable");
		return;
	}
	used = gp_gpu_sample_value(g, GP_GF_MEM_USED);
	total = gp_gpu_sample_value(g, GP_GF_MEM_TOTAL);
	util = gp_gpu_sample_value(g, GP_GF_UTIL_GPU);
	add(buf, n, " | GPU%u", g->index);
	if (used == used && total == total) {
		char u[32], t[32];

		add(buf, n, " %s/%s", gp_format_bytes(used, 0, u, sizeof(u)),
		    gp_format_bytes(total, 0, t, sizeof(t)));
	} else
		add(buf, n, " mem -");
	if (util == util)
		add(buf, n, " %.0f%%", util * 100);
	else
		add(buf, n, " -%%");
}

/* "WHAT M:SS" (or H:MM:SS) of @p elapsed_ns */
static void add_elapsed(char *buf, size_t n, const char *what, int64_t elapsed_ns)
{
	int64_t sec = elapsed_ns / 1000000000LL;

	if (sec >= 3600)
		add(buf, n, "%s %lld:%02lld:%02lld", what, (long long)(sec / 3600),
		    (long long)(sec / 60 % 60), (long long)(sec % 60));
	else
		add(buf, n, "%s %lld:%02lld", what, (long long)(sec / 60), (long long)(sec % 60));
}

/* " USED/TOTAL (P%)", "-" for what is unknown */
static void add_used(char *buf, size_t n, double used, double total)
{
	char u[32], t[32];

	add(buf, n, " %s/%s", gp_format_bytes(used, 0, u, sizeof(u)),
	    gp_format_bytes(total, 0, t, sizeof(t)));
	if (used == used && total > 0)
		add(buf, n, " (%.0f%%)", used / total * 100);
}

/* " VALUEUNIT" with no decimals, or " -" when unknown (NaN) */
static void add_val(char *buf, size_t n, double v, const char *unit)
{
	if (v == v)
		add(buf, n, " %.0f%s", v, unit);
	else
		add(buf, n, " -");
}

/*
 * The start of a line, "WHAT M:SS", and the newest sample into m->st.
 * @return whether there is one ("no sampling" or "waiting ..." said otherwise)
 */
static bool line_head(struct gp_run_metrics *m, const char *what, int64_t elapsed_ns, char *buf,
                      size_t n)
{
	buf[0] = 0;
	add_elapsed(buf, n, what, elapsed_ns);
	if (!m) {
		add(buf, n, " | no sampling");
		return false;
	}
	if (gp_sampler_latest(m->s, m->st)) {
		add(buf, n, " | waiting for the first sample");
		return false;
	}
	return true;
}

void gp_run_live_format(struct gp_run_metrics *m, int64_t elapsed_ns, char *buf, size_t n)
{
	const struct gp_host_sample *h;
	const char *why;
	uint32_t i;

	if (!n || !line_head(m, "gpuprof live", elapsed_ns, buf, n))
		return;
	if ((why = gp_sampler_gpu_status(m->s)))
		add_no_gpu(buf, n, why);
	for (i = 0; !why && i < m->st->ngpus && i < GP_SAMPLE_MAX_GPUS; i++) {
		const struct gp_gpu_sample *g = &m->st->gpus[i];

		add(buf, n, " | GPU%u", g->index);
		if (g->status) {
			add(buf, n, " not readable");
			continue;
		}
		add(buf, n, " mem");
		add_used(buf, n, gp_gpu_sample_value(g, GP_GF_MEM_USED),
		         gp_gpu_sample_value(g, GP_GF_MEM_TOTAL));
		add(buf, n, " util");
		add_val(buf, n, gp_gpu_sample_value(g, GP_GF_UTIL_GPU) * 100, "%");
		add_val(buf, n, gp_gpu_sample_value(g, GP_GF_TEMP), "°C");
		add_val(buf, n, gp_gpu_sample_value(g, GP_GF_POWER), " W");
	}
	h = &m->st->host;
	add(buf, n, " | CPU");
	add_val(buf, n, h->valid & (1ULL << GP_HF_CPU_BUSY) ? h->cpu_busy * 100 : NAN, "%");
	add(buf, n, " mem");
	if (h->valid & (1ULL << GP_HF_MEM) && h->mem_available_bytes <= h->mem_total_bytes)
		add_used(buf, n, (double)(h->mem_total_bytes - h->mem_available_bytes),
		         (double)h->mem_total_bytes);
	else
		add(buf, n, " -");
	add(buf, n, " | tree CPU");
	if (h->valid & (1ULL << GP_HF_PROC_CPU))
		add(buf, n, " %.0f%% (%u proc%s)", h->proc_cpu * 100, (unsigned)h->proc_count,
		    h->proc_count == 1 ? "" : "s");
	else
		add(buf, n, " -");
	add(buf, n, " RSS");
	if (h->valid & (1ULL << GP_HF_PROC_RSS)) {
		char r[32];

		add(buf, n, " %s", gp_format_bytes((double)h->proc_rss_bytes, 0, r, sizeof(r)));
	} else
		add(buf, n, " -");
}

void gp_run_status_format(struct gp_run_metrics *m, int64_t elapsed_ns, char *buf, size_t n,
                          int width)
{
	const struct gp_host_sample *h;
	size_t len;

	if (!n)
		return;
	if (line_head(m, "gpuprof run", elapsed_ns, buf, n)) {
		add_gpu(buf, n, m->st, gp_sampler_gpu_status(m->s));
		h = &m->st->host;
		if (h->valid & (1ULL << GP_HF_CPU_BUSY))
			add(buf, n, " | host CPU %.0f%%", h->cpu_busy * 100);
		else
			add(buf, n, " | host CPU -");
		if (h->valid & (1ULL << GP_HF_PROC_CPU))
			add(buf, n, " | tree CPU %.0f%% (%u proc%s)", h->proc_cpu * 100,
			    (unsigned)h->proc_count, h->proc_count == 1 ? "" : "s");
		else
			add(buf, n, " | tree CPU -");
	}
	/* one terminal line: a wrapped line could not be redrawn with \r */
	len = strlen(buf);
	if (width > 0 && len > (size_t)width) {
		len = (size_t)width;
		while (len && ((unsigned char)buf[len] & 0xC0) == 0x80)
			len--;
		buf[len] = 0;
	}
}
