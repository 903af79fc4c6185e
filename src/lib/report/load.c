/* SPDX-License-Identifier: MIT */
/*
 * load.c - the page model of `gpuprof report`: any input, read into the
 * document it stands for, plus where it came from.
 *
 * A gpuprof JSON document (analyze, bench, compare, aggregate) is read as it is; traces,
 * captures and `gpuprof run` directories go through gp_analyze_paths(). The
 * page model ("gpuprof.page/1") then holds:
 *   kind      "analyze", "bench", "compare" or "aggregate": which document `doc` is;
 *   doc       the document;
 *   title     --title, else the first input's file name;
 *   inputs    the paths given;
 *   env       {host, gpus[], driver_version, cuda_version, hip_version, command,
 *             date, source_version, tags}: gathered from the document (metrics
 *             header, Kineto's deviceProperties and versions, the capture's
 *             process) and from a run directory's run.json; null when unknown;
 *   perfetto  {files[], command}: what opens in ui.perfetto.dev, null when
 *             nothing does (a bench or compare result, an analysis without a
 *             rank: metrics alone, a run directory without a capture);
 *   names     {mangled: demangled}: every C++ name ("_Z...") of the document's
 *             "name" members as people read it (a capture's kernels), for the
 *             page to show while the document keeps the mangled name.
 *   aggregate, aggregate_note  the job's view of many ranks, or why there is
 *             none (job.c).
 * html.c draws it; nothing here prints.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analyze-srcs.h"
#include "analyze/memsnap.h"
#include "compare/check.h"
#include "gpuprof/analyze.h"
#include "gpuprof/bench.h"
#include "gpuprof/compare.h"
#include "gpuprof/report.h"
#include "source/source.h"
#include "text/text.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/value-int.h"
#include "report-int.h"

enum doc_kind { DOC_ANALYZE, DOC_BENCH, DOC_COMPARE, DOC_AGGREGATE, DOC_MEMSNAP };

static const char *const kind_names[] = { "analyze", "bench", "compare", "aggregate", "memsnap" };

#ifndef GP_AGGREGATE_SCHEMA
#define GP_AGGREGATE_SCHEMA "gpuprof.aggregate/1"
#endif

static const char *get_str(const struct gp_value *v, const char *path)
{
	return gp_value_get_str(gp_value_path(v, path));
}

/* a word as a POSIX shell reads it back: bare when safe, else in single quotes */
static int add_shell_word(struct gp_buf *b, const char *w)
{
	const char *p;
	int rc;

	if (*w &&
	    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") ==
	        strlen(w))
		return gp__buf_addstr(b, w);
	GP_TRY(gp__buf_addch(b, '\''));
	for (p = w; *p; p++)
		GP_TRY(*p == '\'' ? gp__buf_addstr(b, "'\\''") : gp__buf_addch(b, *p));
	rc = gp__buf_addch(b, '\'');
out:
	return rc;
}

/* the strings of array @p words (or a string as it is), joined as a shell command line */
static int command_line(const struct gp_value *words, struct gp_buf *b)
{
	size_t i;
	int rc = 0;

	if (gp_value_get_str(words))
		return gp__buf_addstr(b, gp_value_get_str(words));
	for (i = 0; i < gp_value_len(words); i++) {
		const char *w = gp_value_get_str(gp_arr_get(words, i));

		if (!w)
			continue;
		if (b->len)
			GP_TRY(gp__buf_addch(b, ' '));
		GP_TRY(add_shell_word(b, w));
	}
out:
	return rc;
}

/* sets @p key of @p obj to the buffer's text, or null when empty; releases @p b */
static int set_buf(struct gp_value *obj, const char *key, struct gp_buf *b)
{
	int rc = b->len ? gp_obj_set_str(obj, key, b->buf) : gp_obj_set_null(obj, key);

	gp__buf_release(b);
	return rc;
}

static int set_str_or_null(struct gp_value *obj, const char *key, const char *s)
{
	return s && *s ? gp_obj_set_str(obj, key, s) : gp_obj_set_null(obj, key);
}

/*
 * Appends a version as Kineto writes it (CUDA's 1000 major + 10 minor, or a
 * string) as "12.4", or with @p hip as HIP_VERSION writes it (10000000 major
 * + 100000 minor + patch) as "6.4.43483"; nothing for an unknown one.
 * @return 0 or a negative status.
 */
static int add_version(struct gp_buf *b, const char *prefix, const struct gp_value *v, bool hip)
{
	int64_t x;

	if (gp_value_get_str(v) && *gp_value_get_str(v))
		return gp__buf_addf(b, "%s%s", prefix, gp_value_get_str(v));
	if (!gp_value_get_int(v, &x) || x <= 0 || x >= INT32_MAX)
		return 0;
	if (hip)
		return gp__buf_addf(b, "%s%lld.%lld.%lld", prefix, (long long)(x / 10000000),
		                    (long long)(x / 100000 % 100), (long long)(x % 100000));
	if (x >= 1000)
		return gp__buf_addf(b, "%s%lld.%lld", prefix, (long long)(x / 1000),
		                    (long long)(x % 1000 / 10));
	return gp__buf_addf(b, "%s%lld", prefix, (long long)x);
}

/* a ROCm trace: Kineto wrote HIP's versions */
static bool hip_trace(const struct gp_value *trace)
{
	return gp_value_type(gp_obj_get(trace, "hip_runtime_version")) != GP_VALUE_NULL ||
	       gp_value_type(gp_obj_get(trace, "hip_driver_version")) != GP_VALUE_NULL;
}

/*
 * env.cuda_version: the runtime's version, then the driver API's (what
 * cudaDriverGetVersion says, not the NVIDIA driver's own number): "12.4
 * (driver API 12.9)". A ROCm trace's HIP versions go to env.hip_version
 * ("6.4.43483"), in HIP's encoding: they are no CUDA versions.
 */
static int cuda_version(const struct gp_value *trace, struct gp_value *env)
{
	const struct gp_value *rt = gp_obj_get(trace, "cuda_runtime_version");
	const struct gp_value *drv = gp_obj_get(trace, "cuda_driver_version");
	bool hip = false;
	const char *key = "cuda_version", *other = "hip_version";
	int64_t vrt = 0, vdrv = 0;
	struct gp_buf b;
	size_t before;
	int rc = 0;

	gp__buf_init(&b, 0);
	if (gp_value_type(rt) == GP_VALUE_NULL && gp_value_type(drv) == GP_VALUE_NULL &&
	    hip_trace(trace)) {
		rt = gp_obj_get(trace, "hip_runtime_version");
		drv = gp_obj_get(trace, "hip_driver_version");
		hip = true;
		key = "hip_version";
		other = "cuda_version";
	}
	GP_TRY(add_version(&b, "", rt, hip));
	before = b.len;
	/* the same number twice (HIP's runtime and driver) is said once */
	if (!(hip && gp_value_get_int(rt, &vrt) && gp_value_get_int(drv, &vdrv) && vrt == vdrv)) {
		GP_TRY(add_version(&b, b.len ? " (driver API " : "driver API ", drv, hip));
		if (before && b.len > before)
			GP_TRY(gp__buf_addch(&b, ')'));
	}
	GP_TRY(gp_obj_set_null(env, other));
	rc = set_buf(env, key, &b);
out:
	gp__buf_release(&b);
	return rc;
}

/* appends @p s to array @p arr unless it is there already */
static int push_unique(struct gp_value *arr, const char *s)
{
	size_t i;

	for (i = 0; i < gp_value_len(arr); i++)
		if (strcmp(gp_value_get_str(gp_arr_get(arr, i)), s) == 0)
			return 0;
	return gp_arr_push(arr, gp_value_str(s));
}

/*
 * "0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)": the one device
 * label (text/device.c, analyze's too); every device of a ROCm trace
 * (@p rocm) in AMD's terms ("gfx9.4, 304 CUs").
 */
static int device_label(const struct gp_value *d, bool rocm, struct gp_buf *b)
{
	int64_t id = -1;
	int rc = 0;

	gp_value_get_int(gp_obj_get(d, "id"), &id);
	if (id >= 0)
		GP_TRY(gp__buf_addf(b, "%lld: ", (long long)id));
	rc = gp__text_device(b, d, rocm);
	if (rc == GP_ENOENT)
		rc = gp__buf_addstr(b, "unnamed GPU");
out:
	return rc;
}

/*
 * A run directory without a capture (the report's "run" and
 * "no_gpu_timeline"): env.run_end, how the run ended ("exit status 0 after
 * 0.345 s"), and env.no_gpu_timeline, why there is no GPU timeline. Nothing
 * for any other report.
 */
static int run_end(const struct gp_value *doc, struct gp_value *env)
{
	const struct gp_value *run = gp_obj_get(doc, "run");
	const char *sig = get_str(run, "exit_signal");
	int64_t code, wall;
	char dbuf[32];
	struct gp_buf b;
	int rc = 0;

	if (gp_value_type(run) != GP_VALUE_OBJECT)
		return 0;
	gp__buf_init(&b, 0);
	if (sig)
		GP_TRY(gp__buf_addf(&b, "killed by %s", sig));
	else if (gp_value_get_int(gp_obj_get(run, "exit_code"), &code))
		GP_TRY(gp__buf_addf(&b, "exit status %lld", (long long)code));
	else
		GP_TRY(gp__buf_addf(&b, "%s",
		                    get_str(run, "state") ? get_str(run, "state") : "ended"));
	if (gp_value_get_int(gp_obj_get(run, "wall_ns"), &wall))
		GP_TRY(gp__buf_addf(&b, " after %s",
		                    gp__fmt_dur(dbuf, sizeof(dbuf), (double)wall, 0)));
	GP_TRY(set_buf(env, "run_end", &b));
	GP_TRY(set_str_or_null(env, "no_gpu_timeline", get_str(doc, "no_gpu_timeline")));
	if (!get_str(env, "command"))
		GP_TRY(command_line(gp_obj_get(run, "command"), &b));
	if (b.len)
		GP_TRY(set_buf(env, "command", &b));
out:
	gp__buf_release(&b);
	return rc;
}

/* env of an analyze report; @p run is a run directory's run.json or NULL */
static int env_analyze(const struct gp_value *doc, const struct gp_value *run, struct gp_value *env,
                       struct gp_value *gpus)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks"),
	                      *metrics = gp_obj_get(doc, "metrics");
	const struct gp_value *trace = NULL, *capture = NULL;
	struct gp_buf b;
	const char *host;
	size_t i, j;
	int rc = 0;

	gp__buf_init(&b, 0);
	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *ov = gp_obj_get(gp_arr_get(ranks, i), "overview");
		const struct gp_value *devs = gp_obj_get(ov, "devices");

		if (!trace && gp_value_type(gp_obj_get(ov, "trace")) == GP_VALUE_OBJECT)
			trace = gp_obj_get(ov, "trace");
		if (!capture && gp_value_type(gp_obj_get(ov, "capture")) == GP_VALUE_OBJECT)
			capture = gp_obj_get(ov, "capture");
		for (j = 0; j < gp_value_len(devs) && gp_value_len(gpus) < 64; j++) {
			gp__buf_reset(&b);
			GP_TRY(device_label(gp_arr_get(devs, j), hip_trace(gp_obj_get(ov, "trace")),
			                    &b));
			GP_TRY(push_unique(gpus, b.buf));
		}
	}
	/* the sampled GPUs of a run: every GPU of the machine, by NVML */
	if (gp_value_len(gpus) == 0)
		for (j = 0; j < gp_value_len(gp_obj_get(metrics, "gpus")) && j < 64; j++) {
			const struct gp_value *g = gp_arr_get(gp_obj_get(metrics, "gpus"), j);
			int64_t idx = -1;

			gp_value_get_int(gp_obj_get(g, "index"), &idx);
			gp__buf_reset(&b);
			if (idx >= 0)
				GP_TRY(gp__buf_addf(&b, "%lld: ", (long long)idx));
			GP_TRY(gp__buf_addstr(&b, get_str(g, "name") ? get_str(g, "name") : "GPU"));
			GP_TRY(push_unique(gpus, b.buf));
		}
	gp__buf_reset(&b);

	host = get_str(metrics, "hostname");
	if (!host)
		host = get_str(capture, "host");
	if (!host)
		host = get_str(run, "hostname");
	GP_TRY(set_str_or_null(env, "host", host));
	/* the NVIDIA driver, as NVML says (a trace holds only the CUDA driver API's version) */
	GP_TRY(set_str_or_null(env, "driver_version", get_str(metrics, "driver_version")));
	GP_TRY(cuda_version(trace, env));
	GP_TRY(command_line(run ? gp_obj_get(run, "command") : gp_obj_get(capture, "cmdline"), &b));
	GP_TRY(set_buf(env, "command", &b));
	GP_TRY(set_str_or_null(env, "date", get_str(run, "start_time")));
	GP_TRY(run_end(doc, env));
out:
	gp__buf_release(&b);
	return rc;
}

static int env_bench(const struct gp_value *doc, struct gp_value *env)
{
	const struct gp_value *src = gp_obj_get(doc, "source");
	struct gp_buf b;
	int rc = 0;

	gp__buf_init(&b, 0);
	GP_TRY(set_str_or_null(env, "host", get_str(doc, "host/hostname")));
	GP_TRY(gp_obj_set_null(env, "driver_version"));
	GP_TRY(gp_obj_set_null(env, "cuda_version"));
	GP_TRY(gp_obj_set_null(env, "hip_version"));
	if (get_str(src, "kind") && strcmp(get_str(src, "kind"), "command") == 0)
		GP_TRY(command_line(gp_obj_get(src, "args"), &b));
	GP_TRY(set_buf(env, "command", &b));
	GP_TRY(set_str_or_null(env, "date", get_str(doc, "date")));
out:
	gp__buf_release(&b);
	return rc;
}

static int env_compare(const struct gp_value *doc, struct gp_value *env)
{
	struct gp_buf b;
	int rc = 0;

	gp__buf_init(&b, 0);
	GP_TRY(gp_obj_set_null(env, "host"));
	GP_TRY(gp_obj_set_null(env, "driver_version"));
	GP_TRY(gp_obj_set_null(env, "cuda_version"));
	GP_TRY(gp_obj_set_null(env, "hip_version"));
	if (get_str(doc, "base/path") && get_str(doc, "new/path")) {
		GP_TRY(gp__buf_addstr(&b, "gpuprof compare "));
		GP_TRY(add_shell_word(&b, get_str(doc, "base/path")));
		GP_TRY(gp__buf_addch(&b, ' '));
		GP_TRY(add_shell_word(&b, get_str(doc, "new/path")));
	}
	GP_TRY(set_buf(env, "command", &b));
	GP_TRY(gp_obj_set_null(env, "date"));
out:
	gp__buf_release(&b);
	return rc;
}

/*
 * env of an aggregate: its hosts ("node-0, node-1", or "16 hosts: node-0 ...
 * node-15") and GPU models with their counts ("8 x NVIDIA H100 80GB HBM3")
 */
static int env_aggregate(const struct gp_value *doc, struct gp_value *env, struct gp_value *gpus)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	const char *models[16], *first = NULL, *last = NULL;
	size_t counts[16], i, j, nm = 0, nhosts = 0;
	struct gp_value *seen = gp_value_object();
	struct gp_buf b;
	int rc = 0;

	gp__buf_init(&b, 0);
	if (!seen)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		const char *h = get_str(r, "host"), *m = get_str(r, "gpu_model");

		if (h && !gp_obj_get(seen, h)) {
			GP_TRY(gp_obj_set_null(seen, h));
			first = first ? first : h;
			last = h;
			nhosts++;
		}
		for (j = 0; m && j < nm && strcmp(models[j], m) != 0; j++)
			;
		if (m && j < nm)
			counts[j]++;
		else if (m && nm < GP_ARRAY_SIZE(models)) {
			models[nm] = m;
			counts[nm++] = 1;
		}
	}
	for (j = 0; j < nm; j++) {
		gp__buf_reset(&b);
		GP_TRY(gp__buf_addf(&b, "%zu \xc3\x97 %s", counts[j], models[j]));
		GP_TRY(gp_arr_push(gpus, gp_value_str(b.buf)));
	}
	gp__buf_reset(&b);
	if (nhosts > 4)
		GP_TRY(gp__buf_addf(&b, "%zu hosts: %s \xe2\x80\xa6 %s", nhosts, first, last));
	else
		for (i = 0; i < gp_value_len(seen); i++)
			GP_TRY(gp__buf_addf(&b, "%s%s", i ? ", " : "", gp_obj_key_at(seen, i)));
	GP_TRY(set_buf(env, "host", &b));
	GP_TRY(gp_obj_set_null(env, "driver_version"));
	GP_TRY(gp_obj_set_null(env, "cuda_version"));
	GP_TRY(gp_obj_set_null(env, "hip_version"));
	GP_TRY(gp_obj_set_null(env, "command"));
	GP_TRY(gp_obj_set_null(env, "date"));
out:
	gp_value_free(seen);
	gp__buf_release(&b);
	return rc;
}

/* the "env" object of the page */
static int add_env(struct gp_value *page, enum doc_kind kind, const struct gp_value *doc,
                   const struct gp_value *run)
{
	struct gp_value *env = gp_value_object(), *gpus = NULL;
	const struct gp_value *tags = gp_obj_get(doc, "tags");
	int rc;

	if ((rc = gp_obj_set(page, "env", env)))
		return rc;
	if ((rc = gp_obj_set(env, "gpus", gpus = gp_value_array())))
		return rc;
	if (kind == DOC_ANALYZE)
		GP_TRY(env_analyze(doc, run, env, gpus));
	else if (kind == DOC_BENCH)
		GP_TRY(env_bench(doc, env));
	else if (kind == DOC_AGGREGATE)
		GP_TRY(env_aggregate(doc, env, gpus));
	else /* a compare result, a memory snapshot: no machine known */
		GP_TRY(env_compare(doc, env));
	GP_TRY(set_str_or_null(env, "source_version", get_str(doc, "gpuprof_version")));
	GP_TRY(gp_obj_set(env, "tags",
	                  gp_value_type(tags) == GP_VALUE_OBJECT ? gp_value_clone(tags)
	                                                         : gp_value_object()));
out:
	return rc;
}

/* deeper than any document gpuprof writes: a hostile one stops here */
#define NAMES_DEPTH 32

/* adds @p v's "name" members that demangle to @p names, once each */
static int add_names_in(struct gp_value *names, const struct gp_value *v, struct gp_buf *b,
                        int depth)
{
	size_t i, n = gp_value_len(v);
	int rc;

	if (depth > NAMES_DEPTH)
		return 0;
	if (gp_value_type(v) == GP_VALUE_ARRAY) {
		for (i = 0; i < n; i++)
			if ((rc = add_names_in(names, gp_arr_get(v, i), b, depth + 1)))
				return rc;
		return 0;
	}
	if (gp_value_type(v) != GP_VALUE_OBJECT)
		return 0;
	for (i = 0; i < n; i++) {
		const struct gp_value *x = gp_obj_value_at(v, i);
		const char *s = gp_value_get_str(x);

		if (!s) {
			if ((rc = add_names_in(names, x, b, depth + 1)))
				return rc;
			continue;
		}
		if (strcmp(gp_obj_key_at(v, i), "name") || strncmp(s, "_Z", 2) ||
		    gp_obj_get(names, s))
			continue;
		gp__buf_reset(b);
		rc = gp__demangle(b, s);
		if (rc < 0)
			return rc;
		if (rc == 1 && (rc = gp_obj_set(names, s, gp_value_strn(b->buf, b->len))))
			return rc;
	}
	return 0;
}

/* page.names: the demangled form of the document's C++ names */
static int add_names(struct gp_value *page, const struct gp_value *doc)
{
	struct gp_value *names = gp_value_object();
	struct gp_buf b = GP_BUF_INIT;
	int rc;

	if (!names)
		return gp__error(GP_ENOMEM, "out of memory");
	rc = add_names_in(names, doc, &b, 0);
	gp__buf_release(&b);
	if (rc) {
		gp_value_free(names);
		return rc;
	}
	return gp_obj_set(page, "names", names);
}

/*
 * What opens in Perfetto: a Kineto trace as it is, anything else through
 * `gpuprof export`. @p traces are the files the document was made from.
 */
static int add_perfetto(struct gp_value *page, enum doc_kind kind, const struct gp_value *doc,
                        const char *const *paths, size_t n, bool analysed)
{
	struct gp_value *p, *files;
	struct gp_buf b;
	size_t i, nfiles = 0;
	int rc = 0;

	/* a bench or compare result, metrics alone, a run without a capture: no trace */
	if (kind != DOC_ANALYZE || gp_value_len(gp_obj_get(doc, "ranks")) == 0)
		return gp_obj_set_null(page, "perfetto");
	p = gp_value_object();
	if ((rc = gp_obj_set(page, "perfetto", p)))
		return rc;
	if ((rc = gp_obj_set(p, "files", files = gp_value_array())))
		return rc;
	gp__buf_init(&b, 0);
	GP_TRY(gp__buf_addstr(&b, "gpuprof export"));
	if (analysed) {
		for (i = 0; i < n; i++) {
			GP_TRY(gp__buf_addch(&b, ' '));
			GP_TRY(add_shell_word(&b, paths[i]));
		}
		nfiles = n;
	} else {
		const struct gp_value *ranks = gp_obj_get(doc, "ranks");

		for (i = 0; i < gp_value_len(ranks); i++) {
			const char *f = get_str(gp_arr_get(ranks, i), "file");

			if (!f)
				continue;
			GP_TRY(gp__buf_addch(&b, ' '));
			GP_TRY(add_shell_word(&b, f));
			nfiles++;
		}
	}
	for (i = 0; i < gp_value_len(gp_obj_get(doc, "ranks")); i++) {
		const char *f = get_str(gp_arr_get(gp_obj_get(doc, "ranks"), i), "file");

		if (f)
			GP_TRY(gp_arr_push(files, gp_value_str(f)));
	}
	GP_TRY(gp__buf_addstr(&b, " -o trace.chrome.json"));
	if (nfiles)
		GP_TRY(gp_obj_set_str(p, "command", b.buf));
	else
		GP_TRY(gp_obj_set_null(p, "command"));
out:
	gp__buf_release(&b);
	return rc;
}

/* keeps only rank @p rank of a loaded report */
static int keep_rank(struct gp_value *doc, int64_t rank, const char *path)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	struct gp_value *kept = gp_value_array();
	size_t i;
	int rc = 0;

	if (!kept)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		int64_t x = -1;

		if (gp_value_get_int(gp_obj_get(r, "rank"), &x) && x == rank)
			GP_TRY(gp_arr_push(kept, gp_value_clone(r)));
	}
	if (gp_value_len(kept) == 0) {
		struct gp_buf b;

		gp__buf_init(&b, 0);
		rc = gp__doc_ranks_list(doc, &b);
		if (!rc)
			rc = gp__error(GP_EINVAL, "'%s': no rank %lld (ranks: %s)", path,
			               (long long)rank, b.buf);
		gp__buf_release(&b);
		goto out;
	}
	/* --rank never silently matches two */
	if (gp_value_len(kept) > 1)
		GP_TRY(gp__error(GP_EINVAL, "'%s': --rank %lld matches %zu ranks of the report",
		                 path, (long long)rank, gp_value_len(kept)));
	rc = gp_obj_set(doc, "ranks", kept);
	kept = NULL;
out:
	gp_value_free(kept);
	return rc;
}

/* which gpuprof document @p v (read from @p path) is, checked as compare checks it */
static int doc_kind(const struct gp_value *v, const char *path, enum doc_kind *kind)
{
	const char *schema = gp_value_get_str(gp_obj_get(v, "schema"));
	char label[4096];

	snprintf(label, sizeof(label), "'%s'", path);
	if (schema && strcmp(schema, GP_ANALYZE_SCHEMA) == 0) {
		*kind = DOC_ANALYZE;
		return gp__cmp_check_report(v, label);
	}
	if (schema && strcmp(schema, GP_BENCH_SCHEMA) == 0) {
		*kind = DOC_BENCH;
		return gp__cmp_check_bench(v, label);
	}
	if (schema && strcmp(schema, GP_COMPARE_SCHEMA) == 0) {
		*kind = DOC_COMPARE;
		if (gp_value_type(gp_obj_get(v, "groups")) != GP_VALUE_ARRAY)
			return gp__error(GP_EFORMAT, "'%s': a compare result without \"groups\"",
			                 path);
		return 0;
	}
	if (schema && strcmp(schema, GP_AGGREGATE_SCHEMA) == 0) {
		*kind = DOC_AGGREGATE;
		return gp__cmp_check_aggregate(v, label);
	}
	if (gp__memsnap_is(v)) {
		*kind = DOC_MEMSNAP;
		if (gp_value_type(gp_obj_get(v, "devices")) != GP_VALUE_ARRAY)
			return gp__error(GP_EFORMAT,
			                 "'%s': a memory snapshot document without "
			                 "\"devices\"",
			                 path);
		return 0;
	}
	if (schema)
		return gp__error(
		    GP_EVERSION,
		    "'%s': schema '%s' is not one that report reads (%s, %s, %s, %s, %s)", path,
		    schema, GP_ANALYZE_SCHEMA, GP_BENCH_SCHEMA, GP_COMPARE_SCHEMA,
		    GP_AGGREGATE_SCHEMA, GP_MEMSNAP_SCHEMA);
	return gp__error(GP_EFORMAT, "'%s': no \"schema\": not a gpuprof document", path);
}

static bool is_doc(enum gp__src_kind k)
{
	return (GP_SRC_DOCS & 1u << k) != 0;
}

static int analyze_srcs(struct gp__srcs *srcs, const struct gp_report_opts *o,
                        struct gp_value **out)
{
	struct gp_analyze_opts ao;
	int rc;

	memset(&ao, 0, sizeof(ao));
	ao.size = sizeof(ao);
	ao.top = o->top;
	ao.salvage = o->salvage;
	ao.threads = o->threads;
	ao.only_rank = o->rank;
	/* what report does not read is named as report's, before analyze's own check */
	if ((rc = gp__srcs_keep(srcs, GP__ANALYZE_KINDS, "report")))
		return rc;
	return gp__analyze_srcs(srcs, &ao, out);
}

/* the document of the inputs @p srcs and its kind; *@p analysed: made from traces here */
static int load_doc(const char *const *paths, size_t n, struct gp__srcs *srcs,
                    const struct gp_report_opts *o, struct gp_value **doc, enum doc_kind *kind,
                    bool *analysed, struct gp_value **run)
{
	size_t i, ndoc = 0;
	bool dir;
	int rc;

	*analysed = true;
	*kind = DOC_ANALYZE;
	/* a memory snapshot: its own document (analyze/memsnap.h), drawn alone */
	if (gp__srcs_count(srcs, 1u << GP_SRC_SNAPSHOT)) {
		if (srcs->n != 1)
			return gp__error(GP_EINVAL, "a memory snapshot is drawn alone, not with "
			                            "other inputs");
		*kind = DOC_MEMSNAP;
		return gp__memsnap_read(&srcs->v[0], o->top, doc);
	}
	if (n != 1)
		return analyze_srcs(srcs, o, doc);
	for (i = 0; i < srcs->n; i++)
		ndoc += is_doc(srcs->v[i].kind);
	dir = srcs->n && (srcs->v[0].from_dir || srcs->v[0].kind == GP_SRC_RUN_DIR);
	if (dir) {
		struct gp_compare_opts co;
		enum gp_compare_input k;

		/* traces beside documents are what the page shows; the documents are skipped */
		if (!ndoc || gp__srcs_count(srcs, GP_SRC_TRACES)) {
			if (gp__srcs_count(srcs, 1u << GP_SRC_RUN_DIR) &&
			    (rc = gp__run_json_read(paths[0], run)))
				return rc;
			return analyze_srcs(srcs, o, doc);
		}
		memset(&co, 0, sizeof(co));
		co.size = sizeof(co);
		co.rank = o->rank;
		co.threads = o->threads;
		if ((rc = gp__cmp_load_srcs(paths[0], srcs, &co, &k, doc)))
			return rc;
		*analysed = false;
		*kind = k == GP_COMPARE_BENCH       ? DOC_BENCH
		        : k == GP_COMPARE_AGGREGATE ? DOC_AGGREGATE
		                                    : DOC_ANALYZE;
		return 0;
	}
	if (!ndoc)
		return analyze_srcs(srcs, o, doc);
	*analysed = false;
	if ((rc = gp__doc_read(&srcs->v[0], doc)))
		return rc;
	return doc_kind(*doc, paths[0], kind);
}

int gp__report_page(struct gp_value *doc, const struct gp_value *run, const char *const *paths,
                    size_t n, bool analysed, const char *title, struct gp_value **out)
{
	struct gp_value *page = NULL, *inputs;
	enum doc_kind kind = DOC_ANALYZE;
	size_t i, len;
	int rc;

	*out = NULL;
	if ((rc = doc_kind(doc, n ? paths[0] : "", &kind)))
		goto out;
	if (!(page = gp_value_object()))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_str(page, "schema", GP_PAGE_SCHEMA));
	GP_TRY(gp_obj_set_str(page, "kind", kind_names[kind]));
	GP_TRY(gp_obj_set_str(page, "gpuprof_version", gp_version()));
	if (title) {
		GP_TRY(gp_obj_set_str(page, "title", title));
	} else {
		const char *base = "";

		len = 0;
		if (n)
			gp__base_name(paths[0], &base, &len);
		GP_TRY(gp_obj_set(page, "title", gp_value_strn(base, len)));
	}
	GP_TRY(gp_obj_set(page, "inputs", inputs = gp_value_array()));
	for (i = 0; i < n; i++)
		GP_TRY(gp_arr_push(inputs, gp_value_str(paths[i])));
	GP_TRY(add_env(page, kind, doc, run));
	GP_TRY(add_perfetto(page, kind, doc, paths, n, analysed));
	GP_TRY(add_names(page, doc));
	rc = gp_obj_set(page, "doc", doc);
	doc = NULL;
	if (rc)
		goto out;
	*out = page;
	page = NULL;
out:
	gp_value_free(doc);
	gp_value_free(page);
	return rc;
}

GP_API int gp_report_load(const char *const *paths, size_t n, const struct gp_report_opts *opts,
                          struct gp_value **out)
{
	struct gp_report_opts o = { .size = sizeof(o), .rank = -1 };
	struct gp_value *doc = NULL, *run = NULL;
	enum doc_kind kind = DOC_ANALYZE;
	struct gp__srcs srcs;
	bool analysed = false;
	size_t i;
	int rc;

	memset(&srcs, 0, sizeof(srcs));
	if (!out || !paths || n == 0)
		return gp__error(GP_EINVAL, "gp_report_load: no input");
	*out = NULL;
	if ((rc = GP__OPTS_VALID(opts, struct gp_report_opts)))
		return rc;
	GP__OPTS_COPY(&o, opts);
	for (i = 0; i < n; i++)
		if (!paths[i])
			return gp__error(GP_EINVAL, "gp_report_load: NULL path");
	GP_TRY(gp__srcs_resolve(paths, n, GP_SRC_ALLOW_STDIN, &srcs));
	if ((rc = load_doc(paths, n, &srcs, &o, &doc, &kind, &analysed, &run)))
		goto out;
	if (kind == DOC_ANALYZE && !analysed) {
		if (o.top)
			GP_TRY(gp_analyze_trim(doc, o.top));
		if (o.rank >= 0)
			GP_TRY(keep_rank(doc, o.rank, paths[0]));
	}
	rc = gp__report_page(doc, run, paths, n, analysed, o.title, out);
	doc = NULL;
	if (!rc && (rc = gp__report_job(*out, &o))) {
		gp_value_free(*out);
		*out = NULL;
	}
out:
	if (rc == GP_ENOMEM && !*gp_last_error())
		gp__error(GP_ENOMEM, "out of memory");
	gp_value_free(doc);
	gp_value_free(run);
	gp__srcs_release(&srcs);
	return rc;
}
