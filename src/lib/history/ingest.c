/* SPDX-License-Identifier: MIT */
/*
 * ingest.c - `history add`: what goes in. Each PATH is resolved as every
 * command resolves one (source/source.h) and read by the existing readers: a
 * bench result, an analyze report or an aggregate whole (source/doc.c); a run
 * directory, a trace or a capture analysed first (gp_analyze_paths()); a run
 * directory's metrics timeline (source/metrics.c) for the testbed's facts and
 * the noise guard. Each result becomes one run and its metrics (names in
 * docs/history-schema.md), each with its unit and its better direction.
 *
 * The testbed key is built from stable facts only: GPU model and count,
 * driver, CUDA runtime, host name (never clocks, temperatures or memory
 * in use), so one machine's runs stay one series across days.
 *
 * The noise guard: a timeline showing throttling (NVML clock-event reasons
 * power cap, HW slowdown, SW/HW thermal, power brake), another compute
 * process on a GPU, or (schema.c, at write time) an SM clock more than 5 %
 * below the testbed's usual marks the run noisy with its reason.
 */
#include "history-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/analyze.h"
#include "source/metrics.h"
#include "source/source.h"
#include "util/buf.h"
#include "gpuprof/stats.h"
#include "util/error.h"
#include "util/sort.h"

#define TRY(x)                                                                                     \
	do {                                                                                       \
		int rc_ = (x);                                                                     \
		if (rc_)                                                                           \
			return rc_;                                                                \
	} while (0)

static double num(const struct gp_value *v, const char *path)
{
	double d;

	if (path)
		v = gp_value_path(v, path);
	return v && gp_value_get_double(v, &d) ? d : NAN;
}

static int add(struct gp__hrun *r, const char *prefix, const char *name, const char *unit,
               bool higher, double v)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s%s", prefix, name);
	return gp__hrun_metric(r, buf, unit, higher, v);
}

/* ---- analyze reports ---- */

static int from_rank(struct gp__hrun *r, const struct gp_value *rk, const char *pre)
{
	static const struct {
		const char *key, *name;
	} step[] = {
		{ "mean_ns", "step_time.mean" }, { "median_ns", "step_time.median" },
		{ "p95_ns", "step_time.p95" },   { "min_ns", "step_time.min" },
		{ "max_ns", "step_time.max" },   { "std_ns", "step_time.std" },
	};
	const struct gp_value *ss = gp_obj_get(rk, "step_stats"), *g = gp_obj_get(rk, "gpu");
	const struct gp_value *k = gp_obj_get(rk, "kernels");
	const struct gp_value *devs = gp_value_path(rk, "memory/devices");
	double mean = num(ss, "mean_ns"), comm, overlap, peak = NAN;
	char name[1024];

	for (size_t i = 0; i < GP_ARRAY_SIZE(step); i++)
		TRY(add(r, pre, step[i].name, "ns", false, num(ss, step[i].key)));
	if (mean > 0)
		TRY(add(r, pre, "throughput.steps_per_s", "/s", true, 1e9 / mean));
	if (num(g, "window_ns") > 0)
		TRY(add(r, pre, "gpu.busy_pct", "%", true,
		        100 * num(g, "busy_ns") / num(g, "window_ns")));
	TRY(add(r, pre, "gpu.idle_ns", "ns", false, num(g, "idle_ns")));
	TRY(add(r, pre, "gpu.comm_comp_overlap_pct", "%", true, num(g, "comm_comp_overlap_pct")));
	comm = num(g, "communication_ns");
	overlap = num(g, "comm_comp_overlap_pct");
	/* as the exposed-comm finding and aggregate count it */
	if (comm > 0)
		TRY(add(r, pre, "gpu.exposed_comm_ns", "ns", false,
		        comm - round(comm * (isfinite(overlap) ? overlap : 0) / 100)));
	for (size_t i = 0; i < gp_value_len(devs); i++) {
		double p = num(gp_arr_get(devs, i), "peak_allocated_bytes");

		if (isfinite(p) && !(p <= peak))
			peak = p;
	}
	TRY(add(r, pre, "memory.peak_bytes", "bytes", false, peak));
	TRY(add(r, pre, "mfu_pct", "%", true, num(rk, "roofline/mfu_pct")));
	for (size_t i = 0; i < gp_value_len(k); i++) {
		const struct gp_value *row = gp_arr_get(k, i);
		const char *kn = gp_value_get_str(gp_obj_get(row, "name"));

		if (!kn)
			continue;
		snprintf(name, sizeof(name), "kernel/%s/total_ns", kn);
		TRY(add(r, pre, name, "ns", false, num(row, "total_ns")));
	}
	return 0;
}

static int from_analyze(struct gp__hrun *r, const struct gp_value *doc)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	size_t n = gp_value_len(ranks);

	for (size_t i = 0; i < n; i++) {
		const struct gp_value *rk = gp_arr_get(ranks, i);
		char pre[48] = "";
		int64_t rank = (int64_t)i;

		if (n > 1) {
			gp_value_get_int(gp_obj_get(rk, "rank"), &rank);
			snprintf(pre, sizeof(pre), "rank%" PRId64 "/", rank);
		}
		TRY(from_rank(r, rk, pre));
	}
	return 0;
}

/* ---- bench results ---- */

static int from_bench(struct gp__hrun *r, const struct gp_value *doc)
{
	static const struct {
		const char *path, *name, *unit;
		bool higher;
	} m[] = {
		{ "stats/mean_ns", "time.mean", "ns", false },
		{ "stats/median_ns", "time.median", "ns", false },
		{ "stats/p95_ns", "time.p95", "ns", false },
		{ "stats/p99_ns", "time.p99", "ns", false },
		{ "stats/min_ns", "time.min", "ns", false },
		{ "stats/std_ns", "time.std", "ns", false },
		{ "throughput/items_per_s", "throughput.items_per_s", "/s", true },
		{ "throughput/iterations_per_s", "throughput.iterations_per_s", "/s", true },
		{ "gpu_stats/median_ns", "gpu_time.median", "ns", false },
		{ "gpu_share", "gpu_share", "ratio", true },
		{ "memory_stats/max_bytes", "memory.peak.max", "bytes", false },
		{ "memory_stats/mean_bytes", "memory.peak.mean", "bytes", false },
		{ "memory_at_end_stats/max_bytes", "memory.at_end.max", "bytes", false },
	};
	const struct gp_value *series = gp_obj_get(doc, "series");

	for (size_t i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i);
		const char *sn = gp_value_get_str(gp_obj_get(s, "name"));
		char pre[600];

		snprintf(pre, sizeof(pre), "bench/%s/", sn ? sn : "?");
		for (size_t k = 0; k < GP_ARRAY_SIZE(m); k++)
			TRY(add(r, pre, m[k].name, m[k].unit, m[k].higher, num(s, m[k].path)));
	}
	return 0;
}

/* ---- aggregates ---- */

static int from_aggregate(struct gp__hrun *r, const struct gp_value *doc)
{
	const struct gp_value *t = gp_obj_get(doc, "table");

	for (size_t i = 0; i < gp_value_len(t); i++) {
		const char *key = gp_obj_key_at(t, i);
		const struct gp_value *v = gp_obj_value_at(t, i);
		size_t kl = key ? strlen(key) : 0;
		const char *unit = "count";
		bool higher = false;
		char name[256];

		if (!key || !strcmp(key, "steps") || !strcmp(key, "collectives"))
			continue;
		if (kl > 3 && !strcmp(key + kl - 3, "_ns"))
			unit = "ns";
		else if (kl > 6 && !strcmp(key + kl - 6, "_bytes"))
			unit = "bytes";
		else if (kl > 4 && !strcmp(key + kl - 4, "_pct"))
			unit = "%";
		else if (kl > 4 && !strcmp(key + kl - 4, "_mhz"))
			unit = "MHz";
		higher = !strcmp(key, "gpu_busy_ns") || !strcmp(key, "gpu_clock_mhz");
		snprintf(name, sizeof(name), "job/%s.median", key);
		TRY(gp__hrun_metric(r, name, unit, higher, num(v, "median")));
		snprintf(name, sizeof(name), "job/%s.max", key);
		TRY(gp__hrun_metric(r, name, unit, higher, num(v, "max")));
	}
	return 0;
}

/* ---- the testbed and the noise guard ---- */

struct facts {
	const char *host, *gpu, *driver, *cuda;
	size_t ngpus;
	char cuda_buf[32];
	char hosts[256]; /* a report's or an aggregate's hosts, "a,b" (when host is NULL) */
};

static int testbed_key(const struct facts *f, char **out)
{
	struct gp_buf b = GP_BUF_INIT;
	int rc = 0;

	if (f->host || f->hosts[0])
		rc = gp__buf_addf(&b, "host=%s", f->host ? f->host : f->hosts);
	if (!rc && f->gpu)
		rc = gp__buf_addf(&b, "%sgpu=%s x%zu", b.len ? ";" : "", f->gpu, f->ngpus);
	if (!rc && f->driver)
		rc = gp__buf_addf(&b, "%sdriver=%s", b.len ? ";" : "", f->driver);
	if (!rc && f->cuda)
		rc = gp__buf_addf(&b, "%scuda=%s", b.len ? ";" : "", f->cuda);
	if (!rc && !b.len)
		rc = gp__buf_addstr(&b, "unknown");
	if (rc) {
		gp__buf_release(&b);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	*out = gp__buf_detach(&b, NULL);
	return *out ? 0 : gp__error(GP_ENOMEM, "out of memory");
}

/* @p h among the hosts (each once, in the order met; as many as fit) */
static void add_host(struct facts *f, const char *h)
{
	size_t n = strlen(f->hosts), hl = h ? strlen(h) : 0;

	if (!hl || f->host)
		return;
	for (const char *p = f->hosts; *p;) {
		size_t l = strcspn(p, ",");

		if (l == hl && !memcmp(p, h, hl))
			return;
		p += l + (p[l] == ',');
	}
	if (n + hl + 2 > sizeof(f->hosts))
		return;
	snprintf(f->hosts + n, sizeof(f->hosts) - n, "%s%s", n ? "," : "", h);
}

/* the facts of an analyze report: every rank's host and active GPUs */
static void report_facts(const struct gp_value *doc, struct facts *f)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	const struct gp_value *c =
	    gp_value_path(gp_arr_get(ranks, 0), "overview/trace/cuda_runtime_version");
	bool count = !f->gpu;
	int64_t v;

	if (!f->cuda) {
		f->cuda = gp_value_get_str(c);
		/* Kineto writes 12040 for CUDA 12.4 */
		if (!f->cuda && gp_value_get_int(c, &v) && v > 0) {
			snprintf(f->cuda_buf, sizeof(f->cuda_buf), "%" PRId64 ".%" PRId64, v / 1000,
			         v % 1000 / 10);
			f->cuda = f->cuda_buf;
		}
	}
	for (size_t r = 0; r < gp_value_len(ranks); r++) {
		const struct gp_value *rk = gp_arr_get(ranks, r);
		const struct gp_value *devs = gp_value_path(rk, "overview/devices");

		add_host(f, gp_value_get_str(gp_obj_get(rk, "host")));
		for (size_t i = 0; count && i < gp_value_len(devs); i++) {
			const struct gp_value *d = gp_arr_get(devs, i);
			const char *name = gp_value_get_str(gp_obj_get(d, "name"));

			if (!gp_value_get_bool(gp_obj_get(d, "active"), true) || !name)
				continue;
			if (!f->gpu)
				f->gpu = name;
			f->ngpus++;
		}
	}
}

static void metrics_facts(const struct gp_metrics_timeline *m, struct facts *f)
{
	f->host = m->hostname;
	f->driver = m->driver_version;
	for (unsigned i = 0; i < m->ngpus; i++) {
		if (!m->gpus[i].seen)
			continue;
		if (!f->gpu)
			f->gpu = m->gpus[i].name;
		f->ngpus++;
	}
}

static const struct {
	unsigned bit;
	const char *name;
} throttles[] = {
	{ 0x4, "power_cap" },   { 0x8, "hw_slowdown" },     { 0x20, "sw_thermal" },
	{ 0x40, "hw_thermal" }, { 0x80, "hw_power_brake" },
};

/* the median SM clock of GPU @p g over the samples where it was busy (>= 50 %) */
static int busy_clock(const struct gp_metrics_timeline *m, unsigned g, double *out)
{
	char name[64];
	const struct gp_metrics_series *clk, *util;
	double *v;
	size_t n = 0;

	*out = NAN;
	snprintf(name, sizeof(name), "gpu%u.clock_sm_hertz", g);
	clk = gp__metrics_timeline_series(m, name);
	snprintf(name, sizeof(name), "gpu%u.utilization_gpu_ratio", g);
	util = gp__metrics_timeline_series(m, name);
	if (!clk || !util)
		return 0;
	v = gp__calloc(clk->n ? clk->n : 1, sizeof(*v));
	if (!v)
		return gp__error(GP_ENOMEM, "out of memory");
	for (size_t i = 0; i < clk->n && i < util->n; i++)
		if (isfinite(clk->v[i]) && util->v[i] >= 0.5)
			v[n++] = clk->v[i];
	if (n) {
		qsort(v, n, sizeof(*v), gp__cmp_double);
		*out = gp_quantile_sorted(v, n, 0.5);
	}
	gp__free(v);
	return 0;
}

static int noise(const struct gp_metrics_timeline *m, struct gp__hrun *r)
{
	struct gp_buf b = GP_BUF_INIT;
	int rc = 0;

	for (unsigned g = 0; g < m->ngpus && !rc; g++) {
		const struct gp_metrics_series *s;
		char name[64];
		unsigned seen = 0;
		size_t nthr = 0, nproc = 0;
		double maxproc = 0, clock;

		snprintf(name, sizeof(name), "gpu%u.clock_event_reasons", g);
		if ((s = gp__metrics_timeline_series(m, name))) {
			for (size_t i = 0; i < s->n; i++) {
				unsigned bits;

				if (!isfinite(s->v[i]) || s->v[i] < 0 || s->v[i] > 4294967295.0)
					continue;
				bits = (unsigned)s->v[i];
				for (size_t k = 0; k < GP_ARRAY_SIZE(throttles); k++)
					seen |= bits & throttles[k].bit;
				nthr += (bits & 0xecu) != 0;
			}
			if (nthr) {
				rc = gp__buf_addf(&b, "%sGPU %u throttled (", b.len ? "; " : "", g);
				for (size_t k = 0, first = 1; k < GP_ARRAY_SIZE(throttles) && !rc;
				     k++)
					if (seen & throttles[k].bit) {
						rc = gp__buf_addf(&b, "%s%s", first ? "" : ", ",
						                  throttles[k].name);
						first = 0;
					}
				if (!rc)
					rc =
					    gp__buf_addf(&b, ") in %zu of %zu samples", nthr, s->n);
			}
		}
		snprintf(name, sizeof(name), "gpu%u.processes_total", g);
		if (!rc && (s = gp__metrics_timeline_series(m, name))) {
			for (size_t i = 0; i < s->n; i++)
				if (s->v[i] >= 2) {
					nproc++;
					maxproc = s->v[i] > maxproc ? s->v[i] : maxproc;
				}
			if (nproc)
				rc = gp__buf_addf(
				    &b,
				    "%sanother process on GPU %u (%.0f compute processes "
				    "in %zu of %zu samples)",
				    b.len ? "; " : "", g, maxproc, nproc, s->n);
		}
		if (!rc)
			rc = busy_clock(m, g, &clock);
		/* the slowest busy GPU's clock is the run's */
		if (!rc && isfinite(clock) && !(r->sm_clock_hz <= clock))
			r->sm_clock_hz = clock;
	}
	if (!rc && b.len && !(r->noise = gp__buf_detach(&b, NULL)))
		rc = GP_ENOMEM;
	gp__buf_release(&b);
	return rc == GP_ENOMEM ? gp__error(GP_ENOMEM, "out of memory") : rc;
}

/* ---- one result ---- */

static bool is_doc(enum gp__src_kind k)
{
	return k == GP_SRC_ANALYZE || k == GP_SRC_BENCH || k == GP_SRC_AGGREGATE ||
	       k == GP_SRC_COMPARE || k == GP_SRC_DOC;
}

static int load(const char *path, struct gp__hrun *r)
{
	struct gp__srcs s = { 0 };
	struct gp_value *doc = NULL;
	struct gp_metrics_timeline *m = NULL;
	struct facts f = { 0 };
	const char *schema;
	enum { K_REPORT, K_BENCH, K_AGGREGATE } k = K_REPORT;
	bool run_dir = false;
	int rc;

	rc = gp__srcs_resolve(&path, 1, 0, &s);
	if (rc)
		goto out_srcs;
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].kind == GP_SRC_RUN_DIR)
			run_dir = true;
		if (s.v[i].kind == GP_SRC_METRICS && !m &&
		    (rc = gp__metrics_timeline_read(s.v[i].path, &m)))
			goto out_srcs;
	}
	if (s.n == 1 && is_doc(s.v[0].kind)) {
		rc = gp__doc_read(&s.v[0], &doc);
		if (rc)
			goto out_srcs;
		switch (gp__doc_kind(doc)) {
		case GP_SRC_ANALYZE:
			r->kind = "analyze";
			break;
		case GP_SRC_BENCH:
			r->kind = "bench";
			k = K_BENCH;
			break;
		case GP_SRC_AGGREGATE:
			r->kind = "aggregate";
			k = K_AGGREGATE;
			break;
		default:
			schema = gp_value_get_str(gp_obj_get(doc, "schema"));
			rc = gp__error(GP_EVERSION,
			               "'%s': a document of schema '%s', which history does not "
			               "store (it takes gpuprof.bench/1, gpuprof.analyze/1, "
			               "gpuprof.aggregate/1, run directories and traces)",
			               path, schema ? schema : "none");
			goto out_doc;
		}
	} else if (s.n == 1 && s.v[0].kind != GP_SRC_KINETO && s.v[0].kind != GP_SRC_CAPTURE &&
	           s.v[0].kind != GP_SRC_RUN_DIR) {
		rc = gp__error(GP_EFORMAT, "'%s': %s, not a result history stores", path,
		               gp__src_kind_name(s.v[0].kind));
		goto out_srcs;
	} else {
		struct gp_analyze_opts o = { .size = sizeof(o), .only_rank = -1 };

		rc = gp_analyze_paths(&path, 1, &o, &doc);
		if (rc)
			goto out_srcs;
		r->kind = run_dir ? "run" : "trace";
	}
	if (k == K_BENCH)
		rc = from_bench(r, doc);
	else if (k == K_AGGREGATE)
		rc = from_aggregate(r, doc);
	else
		rc = from_analyze(r, doc);
	if (rc)
		goto out_doc;
	if (!r->nm) {
		rc = gp__error(GP_EFORMAT, "'%s': no metrics in this %s", path, r->kind);
		goto out_doc;
	}
	if (m) {
		metrics_facts(m, &f);
		if ((rc = noise(m, r)))
			goto out_doc;
	}
	if (k == K_BENCH) {
		if (!f.host)
			f.host = gp_value_get_str(gp_value_path(doc, "host/hostname"));
	} else if (k == K_AGGREGATE) {
		const struct gp_value *rk = gp_obj_get(doc, "ranks");

		if (!f.gpu && gp_value_len(rk)) {
			f.gpu = gp_value_get_str(gp_obj_get(gp_arr_get(rk, 0), "gpu_model"));
			f.ngpus = gp_value_len(rk);
		}
		for (size_t i = 0; i < gp_value_len(rk); i++)
			add_host(&f, gp_value_get_str(gp_obj_get(gp_arr_get(rk, i), "host")));
	} else {
		report_facts(doc, &f);
	}
	if (!r->testbed)
		rc = testbed_key(&f, &r->testbed);
out_doc:
	gp_value_free(doc);
out_srcs:
	gp__metrics_timeline_free(m);
	gp__srcs_release(&s);
	return rc;
}

static int dup_opt(const char *s, char **out)
{
	*out = NULL;
	if (s && !(*out = gp__strdup(s)))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

int gp_history_add(struct gp_history *h, const char *const *paths, size_t n,
                   const struct gp_history_meta *meta, int64_t *run_ids)
{
	struct gp__hrun *runs = NULL;
	char *tags = NULL;
	size_t i;
	int rc;

	if (!h || (n && !paths) || !meta || meta->size < sizeof(*meta))
		return gp__error(GP_EINVAL, "gp_history_add: bad arguments");
	rc = gp__hist_tags_json(meta, &tags);
	if (rc)
		return rc;
	/*
	 * Every result is read before the database is touched: one that cannot be
	 * read writes nothing (nor makes a new file), and the write lock is held
	 * for the writes alone, not while traces are analysed.
	 */
	runs = gp__calloc(n ? n : 1, sizeof(*runs));
	if (!runs) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_tags;
	}
	for (i = 0; i < n && !rc; i++) {
		struct gp__hrun *r = &runs[i];
		/* absolute, so that check can compare the runs from another directory */
		char *abs = paths[i] ? realpath(paths[i], NULL) : NULL;

		r->sm_clock_hz = NAN;
		r->time_ns = meta->time_ns;
		rc = dup_opt(abs ? abs : paths[i], &r->source);
		free(abs);
		if (!rc)
			rc = dup_opt(meta->commit, &r->commit);
		if (!rc)
			rc = dup_opt(meta->branch, &r->branch);
		if (!rc)
			rc = dup_opt(meta->testbed, &r->testbed);
		if (!rc)
			rc = dup_opt(tags, &r->tags_json);
		if (!rc)
			rc = load(paths[i], r);
	}
	if (rc)
		goto out_runs;
	rc = gp__hist_begin(h);
	if (rc)
		goto out_runs;
	for (i = 0; i < n && !rc; i++)
		rc = gp__hrun_write(h, &runs[i], run_ids ? &run_ids[i] : NULL);
	if (!rc)
		rc = gp__hist_commit(h);
	if (rc)
		gp__hist_rollback(h);
out_runs:
	for (i = 0; i < n; i++)
		gp__hrun_release(&runs[i]);
	gp__free(runs);
out_tags:
	gp__free(tags);
	return rc;
}
