/* SPDX-License-Identifier: MIT */
/*
 * sampler.c - the schedule and the history behind gpuprof/sample.h.
 *
 * The sampling thread wakes at start + k * interval on CLOCK_MONOTONIC (a
 * late sample never shifts the later ones: periods it overran are counted as
 * missed and skipped), reads the host and the fast GPU fields, merges the
 * slow GPU fields and publishes the sample. A second thread reads the slow
 * fields (process lists, a blocking PCIe throughput) once a second, so that
 * a call taking milliseconds never delays the schedule.
 *
 * The history keeps at most `history` points; when full, its older half is
 * merged pairwise (means weighted by the samples they hold), so old data
 * gets coarser instead of disappearing, and the merges are counted.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sample-int.h"
#include "util/error.h"
#include "util/opts.h"

#define DEFAULT_INTERVAL_MS 100
#define DEFAULT_HISTORY     512
#define MIN_HISTORY         8
#define SLOW_PERIOD_NS      1000000000LL

struct gp_sampler {
	struct gp_sampler_opts o;
	int64_t interval_ns;
	struct gp__host *host;
	struct gp__nvml *nvml;
	char gpu_status[320];

	pthread_mutex_t mu;     /* everything below */
	pthread_cond_t cv;      /* a new sample, or stop: for gp_sampler_wait() */
	pthread_cond_t stop_cv; /* stop: the two threads sleep on it between periods */
	bool stop, started, slow_started;
	pthread_t tid, slow_tid;
	struct gp_sample latest;
	bool have_latest;
	uint64_t seq, missed, downsampled;
	unsigned char *hist; /* hcap records of hstride bytes (struct hist_rec) */
	size_t hn, hcap, hstride;
	unsigned hgpus; /* GPU slots per record: the GPUs NVML reported at open */
	/* the slow fields (process lists, PCIe fallback) as the slow thread last read them */
	struct gp_gpu_sample slow[GP_SAMPLE_MAX_GPUS];

	struct gp_sample work; /* the sampling thread's scratch */
};

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void ns_to_ts(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000LL);
	ts->tv_nsec = (long)(ns % 1000000000LL);
}

/* Copies a sample without the unused GPU slots (a full struct is ~40 KB). */
static void copy_sample(struct gp_sample *dst, const struct gp_sample *src)
{
	size_t n = src->ngpus <= GP_SAMPLE_MAX_GPUS ? src->ngpus : GP_SAMPLE_MAX_GPUS;

	memcpy(dst, src, offsetof(struct gp_sample, gpus) + n * sizeof(src->gpus[0]));
}

/* ---- the history ---- */

double gp_gpu_sample_value(const struct gp_gpu_sample *g, int f)
{
	if (!g || f < 0 || f >= GP_GF_COUNT || g->status == GP_ENODEV || !(g->valid & GP_GF_BIT(f)))
		return NAN;
	switch (f) {
	case GP_GF_MEM_TOTAL:
		return (double)g->mem_total_bytes;
	case GP_GF_MEM_USED:
		return (double)g->mem_used_bytes;
	case GP_GF_MEM_RESERVED:
		return (double)g->mem_reserved_bytes;
	case GP_GF_UTIL_GPU:
		return g->util_gpu;
	case GP_GF_UTIL_MEM:
		return g->util_mem;
	case GP_GF_CLOCK_SM:
		return g->clock_sm_hz;
	case GP_GF_CLOCK_MEM:
		return g->clock_mem_hz;
	case GP_GF_CLOCK_GR:
		return g->clock_graphics_hz;
	case GP_GF_CLOCK_SM_MAX:
		return g->clock_sm_max_hz;
	case GP_GF_CLOCK_MEM_MAX:
		return g->clock_mem_max_hz;
	case GP_GF_CLOCK_GR_MAX:
		return g->clock_graphics_max_hz;
	case GP_GF_TEMP:
		return g->temp_celsius;
	case GP_GF_TEMP_SLOWDOWN:
		return g->temp_slowdown_celsius;
	case GP_GF_POWER:
		return g->power_watts;
	case GP_GF_POWER_LIMIT:
		return g->power_limit_watts;
	case GP_GF_ENERGY:
		return g->energy_joules;
	case GP_GF_PCIE_TX:
		return g->pcie_tx_bytes_per_second;
	case GP_GF_PCIE_RX:
		return g->pcie_rx_bytes_per_second;
	default:
		return NAN;
	}
}

/*
 * A history point as stored: struct gp_hist_point with only the GPU slots in
 * use (2 GPUs: 184 bytes instead of 2.3 KB; the history is touched every
 * sample and kept for the whole run).
 */
struct hist_rec {
	int64_t t0_ns, t1_ns;
	uint32_t n;
	float host[GP_HH_COUNT];
	float gpu[][GP_HIST_GPU_FIELDS];
};

static struct hist_rec *rec_at(const struct gp_sampler *s, size_t i)
{
	return (struct hist_rec *)(void *)(s->hist + i * s->hstride);
}

static void point_of(const struct gp_sample *s, unsigned ngpus, struct hist_rec *p)
{
	const struct gp_host_sample *h = &s->host;

	p->t0_ns = p->t1_ns = s->t_mono_ns;
	p->n = 1;
	p->host[GP_HH_CPU_BUSY] = h->valid & GP_HF_BIT(GP_HF_CPU_BUSY) ? (float)h->cpu_busy : NAN;
	p->host[GP_HH_MEM_USED] =
	    h->valid & GP_HF_BIT(GP_HF_MEM)
	        ? (float)(h->mem_total_bytes - (h->mem_available_bytes < h->mem_total_bytes
	                                            ? h->mem_available_bytes
	                                            : h->mem_total_bytes))
	        : NAN;
	p->host[GP_HH_PROC_CPU] = h->valid & GP_HF_BIT(GP_HF_PROC_CPU) ? (float)h->proc_cpu : NAN;
	p->host[GP_HH_PROC_RSS] =
	    h->valid & GP_HF_BIT(GP_HF_PROC_RSS) ? (float)h->proc_rss_bytes : NAN;
	for (unsigned i = 0; i < ngpus; i++)
		for (int f = 0; f < GP_HIST_GPU_FIELDS; f++)
			p->gpu[i][f] =
			    i < s->ngpus ? (float)gp_gpu_sample_value(&s->gpus[i], f) : NAN;
}

/* weighted mean of two values, a NaN side not counting */
static float merge_val(float a, uint32_t na, float b, uint32_t nb)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return (float)(((double)a * na + (double)b * nb) / ((double)na + nb));
}

/* @p dst may be @p a: each value is read before its own slot is written */
static void merge_point(struct hist_rec *dst, const struct hist_rec *a, const struct hist_rec *b,
                        unsigned ngpus)
{
	uint32_t na = a->n, nb = b->n;

	dst->t0_ns = a->t0_ns;
	dst->t1_ns = b->t1_ns;
	dst->n = na + nb;
	for (int k = 0; k < GP_HH_COUNT; k++)
		dst->host[k] = merge_val(a->host[k], na, b->host[k], nb);
	for (unsigned i = 0; i < ngpus; i++)
		for (int f = 0; f < GP_HIST_GPU_FIELDS; f++)
			dst->gpu[i][f] = merge_val(a->gpu[i][f], na, b->gpu[i][f], nb);
}

/* Appends a point; a full history first merges its older half pairwise. */
static void hist_push(struct gp_sampler *s, const struct gp_sample *smp)
{
	if (s->hn == s->hcap) {
		size_t half = s->hcap / 2, m = 0, k;

		for (k = 0; k + 1 < half; k += 2)
			merge_point(rec_at(s, m++), rec_at(s, k), rec_at(s, k + 1), s->hgpus);
		if (k < half) /* an odd point out keeps its span */
			memmove(rec_at(s, m++), rec_at(s, k), s->hstride);
		memmove(rec_at(s, m), rec_at(s, half), (s->hn - half) * s->hstride);
		s->downsampled += half - m;
		s->hn -= half - m;
	}
	point_of(smp, s->hgpus, rec_at(s, s->hn++));
}

/* ---- taking a sample ---- */

static void merge_slow(struct gp_sampler *s, struct gp_sample *out)
{
	for (unsigned i = 0; i < out->ngpus; i++) {
		struct gp_gpu_sample *g = &out->gpus[i];
		const struct gp_gpu_sample *w = &s->slow[i];

		if (g->status == GP_ENODEV)
			continue;
		g->valid |= w->valid & (GP_GF_BIT(GP_GF_PROCS) | GP_GF_BIT(GP_GF_POWER_LIMIT));
		g->power_limit_watts = w->power_limit_watts;
		g->nprocs = w->nprocs;
		g->procs_all = w->procs_all;
		memcpy(g->procs, w->procs, sizeof(g->procs[0]) * w->nprocs);
		if (gp__nvml_pcie_slow(s->nvml, i) && (w->valid & GP_GF_BIT(GP_GF_PCIE_TX))) {
			g->pcie_tx_bytes_per_second = w->pcie_tx_bytes_per_second;
			g->pcie_rx_bytes_per_second = w->pcie_rx_bytes_per_second;
			g->valid |= GP_GF_BIT(GP_GF_PCIE_TX) | GP_GF_BIT(GP_GF_PCIE_RX);
		}
	}
}

static void read_slow(struct gp_sampler *s, unsigned i, struct gp_gpu_sample *tmp)
{
	memset(tmp, 0, sizeof(*tmp));
	gp__nvml_slow(s->nvml, i, !s->o.no_procs, tmp);
	pthread_mutex_lock(&s->mu);
	s->slow[i] = *tmp;
	pthread_mutex_unlock(&s->mu);
}

/* Reads everything into @p out (not published). */
static void take(struct gp_sampler *s, struct gp_sample *out)
{
	int64_t t0 = now_ns(CLOCK_MONOTONIC);
	unsigned n = gp__nvml_count(s->nvml);

	out->t_mono_ns = t0;
	out->t_real_ns = now_ns(CLOCK_REALTIME);
	if (s->host)
		gp__host_sample(s->host, t0, &out->host);
	else
		out->host.valid = 0;
	out->ngpus = n;
	for (unsigned i = 0; i < n; i++)
		gp__nvml_sample(s->nvml, i, t0, &out->gpus[i]);
	pthread_mutex_lock(&s->mu);
	merge_slow(s, out);
	pthread_mutex_unlock(&s->mu);
	out->cost_ns = now_ns(CLOCK_MONOTONIC) - t0;
}

static void publish(struct gp_sampler *s, struct gp_sample *smp)
{
	pthread_mutex_lock(&s->mu);
	smp->seq = ++s->seq;
	copy_sample(&s->latest, smp);
	s->have_latest = true;
	hist_push(s, smp);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/*
 * Waits until @p deadline (monotonic ns) or stop; @return true on stop. Called
 * locked. On stop_cv, not cv: a published sample must not wake the other thread.
 */
static bool wait_until(struct gp_sampler *s, int64_t deadline)
{
	struct timespec ts;

	ns_to_ts(deadline, &ts);
	while (!s->stop) {
		int rc = pthread_cond_timedwait(&s->stop_cv, &s->mu, &ts);

		if (rc == ETIMEDOUT)
			break;
	}
	return s->stop;
}

static void *sample_main(void *arg)
{
	struct gp_sampler *s = arg;
	int64_t start = now_ns(CLOCK_MONOTONIC), k = 0;

	for (;;) {
		int64_t now, next;

		take(s, &s->work);
		publish(s, &s->work);
		now = now_ns(CLOCK_MONOTONIC);
		k++;
		next = start + k * s->interval_ns;
		if (next <= now) {
			/* overran: skip the periods already gone, keep the grid */
			int64_t skip = (now - next) / s->interval_ns + 1;

			pthread_mutex_lock(&s->mu);
			s->missed += (uint64_t)skip;
			pthread_mutex_unlock(&s->mu);
			k += skip;
			next = start + k * s->interval_ns;
		}
		pthread_mutex_lock(&s->mu);
		if (wait_until(s, next)) {
			pthread_mutex_unlock(&s->mu);
			break;
		}
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

static void *slow_main(void *arg)
{
	struct gp_sampler *s = arg;
	struct gp_gpu_sample *tmp = gp__malloc(sizeof(*tmp));
	int64_t period = s->interval_ns > SLOW_PERIOD_NS ? s->interval_ns : SLOW_PERIOD_NS;
	int64_t next = now_ns(CLOCK_MONOTONIC);

	if (!tmp)
		return NULL;
	for (;;) {
		unsigned n = gp__nvml_count(s->nvml);
		bool stop;

		for (unsigned i = 0; i < n; i++)
			read_slow(s, i, tmp);
		next += period;
		if (next < now_ns(CLOCK_MONOTONIC))
			next = now_ns(CLOCK_MONOTONIC) + period;
		pthread_mutex_lock(&s->mu);
		stop = wait_until(s, next);
		pthread_mutex_unlock(&s->mu);
		if (stop)
			break;
	}
	gp__free(tmp);
	return NULL;
}

/* ---- the API ---- */

int gp_sampler_open(const struct gp_sampler_opts *opts, struct gp_sampler **out)
{
	struct gp_sampler *s;
	pthread_condattr_t ca;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_sampler_open: no output pointer");
	*out = NULL;
	if ((rc = GP__OPTS_VALID(opts, struct gp_sampler_opts)))
		return rc;
	s = gp__calloc(1, sizeof(*s));
	if (!s)
		return gp__error(GP_ENOMEM, "out of memory");
	GP__OPTS_COPY(&s->o, opts);
	if (!s->o.interval_ms)
		s->o.interval_ms = DEFAULT_INTERVAL_MS;
	if (s->o.interval_ms < GP_INTERVAL_MIN_MS || s->o.interval_ms > GP_INTERVAL_MAX_MS) {
		uint32_t bad = s->o.interval_ms;

		gp__free(s);
		return gp__error(GP_EINVAL, "interval %u ms is outside %d ms .. %d ms", bad,
		                 GP_INTERVAL_MIN_MS, GP_INTERVAL_MAX_MS);
	}
	s->interval_ns = (int64_t)s->o.interval_ms * 1000000LL;
	s->hcap = s->o.history ? s->o.history : DEFAULT_HISTORY;
	if (s->hcap < MIN_HISTORY)
		s->hcap = MIN_HISTORY;
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_cond_init(&s->stop_cv, &ca);
	pthread_condattr_destroy(&ca);

	if ((rc = gp__host_open(&s->host, s->o.proc_root, s->o.watch_pid))) {
		/* no procfs: GPUs only; the host fields stay unknown */
		gp__log(GP_LOG_WARN, "host metrics unavailable: %s", gp_last_error());
		s->host = NULL;
	}
	if (s->o.no_gpu) {
		snprintf(s->gpu_status, sizeof(s->gpu_status), "GPU sampling disabled");
	} else if ((rc = gp__nvml_open(&s->nvml, s->o.nvml_library))) {
		const char *e = gp_last_error();

		snprintf(s->gpu_status, sizeof(s->gpu_status), "%s%s",
		         rc == GP_ENOTSUP ? "no NVML: " : "", e && *e ? e : gp_strerror(rc));
		s->nvml = NULL;
	}
	gp_clear_error();
	s->hgpus = s->nvml ? gp__nvml_count(s->nvml) : 0;
	if (s->hgpus > GP_SAMPLE_MAX_GPUS)
		s->hgpus = GP_SAMPLE_MAX_GPUS;
	s->hstride =
	    offsetof(struct hist_rec, gpu) + s->hgpus * sizeof(((struct hist_rec *)0)->gpu[0]);
	s->hstride = (s->hstride + 7) & ~(size_t)7; /* int64_t t0_ns of the next record */
	s->hist = gp__reallocarray(NULL, s->hcap, s->hstride);
	if (!s->hist) {
		size_t cap = s->hcap;

		gp_sampler_close(s);
		return gp__error(GP_ENOMEM, "out of memory for a history of %zu points", cap);
	}
	if (s->nvml) {
		struct gp_gpu_sample *tmp = gp__malloc(sizeof(*tmp));

		/* the slow fields once, so that the first sample has the process list */
		for (unsigned i = 0; tmp && i < gp__nvml_count(s->nvml); i++)
			read_slow(s, i, tmp);
		gp__free(tmp);
	}
	*out = s;
	return 0;
}

int gp_sampler_start(struct gp_sampler *s)
{
	int rc;

	if (!s)
		return gp__error(GP_EINVAL, "no sampler");
	if (s->started)
		return 0;
	rc = pthread_create(&s->tid, NULL, sample_main, s);
	if (rc)
		return gp__error(GP_ENOMEM, "cannot start the sampling thread: %s", strerror(rc));
	s->started = true;
	if (s->nvml) {
		rc = pthread_create(&s->slow_tid, NULL, slow_main, s);
		if (rc)
			gp__log(GP_LOG_WARN, "no slow-field thread: %s", strerror(rc));
		else
			s->slow_started = true;
	}
	return 0;
}

void gp_sampler_close(struct gp_sampler *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_cond_broadcast(&s->stop_cv);
	pthread_mutex_unlock(&s->mu);
	if (s->started)
		pthread_join(s->tid, NULL);
	if (s->slow_started)
		pthread_join(s->slow_tid, NULL);
	gp__host_close(s->host);
	gp__nvml_close(s->nvml);
	pthread_cond_destroy(&s->cv);
	pthread_cond_destroy(&s->stop_cv);
	pthread_mutex_destroy(&s->mu);
	gp__free(s->hist);
	gp__free(s);
}

int gp_sampler_sample_now(struct gp_sampler *s, struct gp_sample *out)
{
	if (!s || !out)
		return gp__error(GP_EINVAL, "gp_sampler_sample_now: NULL argument");
	if (s->started)
		return gp__error(GP_EINVAL, "the sampling thread is running: use gp_sampler_wait");
	memset(out, 0, sizeof(*out));
	take(s, out);
	publish(s, out);
	return 0;
}

int gp_sampler_wait(struct gp_sampler *s, uint64_t after_seq, int timeout_ms, struct gp_sample *out)
{
	struct timespec ts;
	int rc = 0;

	if (!s || !out)
		return gp__error(GP_EINVAL, "gp_sampler_wait: NULL argument");
	if (timeout_ms >= 0)
		ns_to_ts(now_ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000LL, &ts);
	pthread_mutex_lock(&s->mu);
	while (!(s->have_latest && s->seq > after_seq) && !s->stop && rc != ETIMEDOUT) {
		if (timeout_ms >= 0)
			rc = pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		else
			pthread_cond_wait(&s->cv, &s->mu);
	}
	if (s->have_latest && s->seq > after_seq) {
		copy_sample(out, &s->latest);
		rc = 0;
	} else {
		rc = s->stop ? gp__error(GP_EIO, "the sampler stopped")
		             : gp__error(GP_ETRUNC, "no new sample within %d ms", timeout_ms);
	}
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int gp_sampler_latest(struct gp_sampler *s, struct gp_sample *out)
{
	int rc = 0;

	if (!s || !out)
		return gp__error(GP_EINVAL, "gp_sampler_latest: NULL argument");
	pthread_mutex_lock(&s->mu);
	if (s->have_latest)
		copy_sample(out, &s->latest);
	else
		rc = gp__error(GP_ENOENT, "no sample yet");
	pthread_mutex_unlock(&s->mu);
	return rc;
}

size_t gp_sampler_history(struct gp_sampler *s, struct gp_hist_point *out, size_t max)
{
	size_t n;

	if (!s || !out)
		return 0;
	pthread_mutex_lock(&s->mu);
	n = s->hn < max ? s->hn : max;
	/* the newest n points when asked for fewer than kept */
	for (size_t i = 0; i < n; i++) {
		const struct hist_rec *r = rec_at(s, s->hn - n + i);
		struct gp_hist_point *p = &out[i];

		p->t0_ns = r->t0_ns;
		p->t1_ns = r->t1_ns;
		p->n = r->n;
		memcpy(p->host, r->host, sizeof(p->host));
		for (unsigned g = 0; g < GP_SAMPLE_MAX_GPUS; g++)
			for (int f = 0; f < GP_HIST_GPU_FIELDS; f++)
				p->gpu[g][f] = g < s->hgpus ? r->gpu[g][f] : NAN;
	}
	pthread_mutex_unlock(&s->mu);
	return n;
}

uint64_t gp_sampler_downsampled(struct gp_sampler *s)
{
	uint64_t v;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->mu);
	v = s->downsampled;
	pthread_mutex_unlock(&s->mu);
	return v;
}

uint64_t gp_sampler_missed(struct gp_sampler *s)
{
	uint64_t v;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->mu);
	v = s->missed;
	pthread_mutex_unlock(&s->mu);
	return v;
}

const char *gp_sampler_gpu_status(struct gp_sampler *s)
{
	if (!s)
		return "no sampler";
	return s->nvml ? NULL : s->gpu_status;
}

const char *gp_sampler_nvml_library(struct gp_sampler *s)
{
	return s && s->nvml ? gp__nvml_library(s->nvml) : NULL;
}

const char *gp_sampler_driver_version(struct gp_sampler *s)
{
	const char *d = s && s->nvml ? gp__nvml_driver(s->nvml) : NULL;

	return d && *d ? d : NULL;
}

uint32_t gp_sampler_interval_ms(struct gp_sampler *s)
{
	return s ? s->o.interval_ms : 0;
}
