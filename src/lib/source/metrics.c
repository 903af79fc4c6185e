/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - the metrics timeline (`gpuprof.metrics/1`, docs/metrics-format.md):
 * its writer, and its reader into the columns of struct gp_metrics_timeline:
 * one shared time column and one double column per numeric field (NaN: null
 * or absent).
 *
 * The writer builds each line as a gp_value (sorted keys, fixed number
 * format) or takes the sampler's own JSON of a sample (gp_sample_to_json), so
 * `top --record` and `run` write the same bytes for the same samples.
 *
 * The file is read in blocks and cut into lines; each line is parsed with the
 * library's JSON parser (gp_value_parse) and its fields picked by name from a
 * fixed catalogue (host, process tree, per-GPU fields). A column is created the
 * first time its field has a value (earlier samples backfilled with NaN), so a
 * field that is always null makes no series. Nothing read from the file is
 * trusted: a line is capped at GP_METRICS_MAX_LINE bytes, samples at
 * GP_METRICS_MAX_SAMPLES, numbers held at GP_METRICS_MAX_VALUES, GPU indices
 * at GP_METRICS_MAX_GPUS; a line that is not a JSON object, or a sample without
 * an integer time_monotonic_ns, is counted in malformed_lines and skipped.
 * Callers: analyze/metrics.c (the report's "metrics" object), export; the
 * writer's: the CLI's `top --record` (top-record.c) and `run` (run-metrics.c).
 */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/gzwrite.h"
#include "util/value-int.h"
#include "util/opts.h"

#define READ_BLOCK     (1u << 16)
#define INITIAL_CAP    64
#define SCHEMA_HEADER  "gpuprof.metrics/1"
#define SCHEMA_SAMPLE  "gpuprof.sample/1"
#define SERIES_NAME_SZ 48

/* ---- the writer ---- */

struct gp_metrics_writer {
	FILE *f;
	char *path;
	uint64_t n; /* sample lines written */
};

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* GP_EIO naming the file, errno kept at @p e */
static int write_error(const struct gp_metrics_writer *w, int e)
{
	gp__error(GP_EIO, "cannot write '%s': %s", w->path, strerror(e));
	errno = e;
	return GP_EIO;
}

/* @p len bytes of @p text and a newline */
static int put_text(struct gp_metrics_writer *w, const char *text, size_t len)
{
	errno = 0;
	if (fwrite(text, 1, len, w->f) != len || fputc('\n', w->f) == EOF)
		return write_error(w, errno ? errno : EIO);
	return 0;
}

/* A line of object @p v (freed here); NULL: out of memory building it. */
static int put_value(struct gp_metrics_writer *w, struct gp_value *v, bool built)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!built || gp_value_to_json(v, 0, &text, &len)) {
		gp_value_free(v);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	rc = put_text(w, text, len);
	gp_free(text);
	gp_value_free(v);
	return rc;
}

int gp_metrics_writer_open(const char *path, struct gp_sampler *s,
                           const struct gp_metrics_writer_opts *opts,
                           struct gp_metrics_writer **out)
{
	struct gp_metrics_writer *w;
	int32_t watched_pid;
	struct gp_value *h;
	char host[256] = "";
	int rc, e;

	if (out)
		*out = NULL;
	if (!path || !s || !out)
		return gp__error(GP_EINVAL, "gp_metrics_writer_open: NULL argument");
	if ((rc = GP__OPTS_VALID(opts, struct gp_metrics_writer_opts)))
		return rc;
	watched_pid = GP__OPTS_GET(opts, watched_pid, 0);
	/* appended and flushed line by line for live readers: a gzip name would be a lie */
	if (gp__gzw_wanted(path))
		return gp__error(
		    GP_EINVAL,
		    "cannot write '%s': a metrics timeline is plain JSON lines, written "
		    "as it is sampled; name it without '.gz'",
		    path);
	if (!(w = gp__calloc(1, sizeof(*w))) || !(w->path = gp__strdup(path))) {
		gp__free(w);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if (!(w->f = fopen(path, "we"))) {
		rc = write_error(w, errno);
		goto out_free;
	}
	gethostname(host, sizeof(host) - 1);
	h = gp_value_object();
	rc = put_value(
	    w, h,
	    h && !gp_obj_set_str(h, "schema", SCHEMA_HEADER) &&
	        !gp_obj_set_str(h, "hostname", host) &&
	        !gp_obj_set_int(h, "interval_ms", gp_sampler_interval_ms(s)) &&
	        !gp_obj_set_int(h, "start_monotonic_ns", clock_ns(CLOCK_MONOTONIC)) &&
	        !gp_obj_set_int(h, "start_unix_ns", clock_ns(CLOCK_REALTIME)) &&
	        !gp__obj_set_str_or_null(h, "gpu_status", gp_sampler_gpu_status(s)) &&
	        !gp__obj_set_str_or_null(h, "nvml_library", gp_sampler_nvml_library(s)) &&
	        !gp__obj_set_str_or_null(h, "driver_version", gp_sampler_driver_version(s)) &&
	        !(watched_pid ? gp_obj_set_int(h, "watched_pid", watched_pid)
	                      : gp_obj_set_null(h, "watched_pid")));
	if (rc)
		goto out_free;
	*out = w;
	return 0;

out_free:
	e = errno;
	gp_metrics_writer_free(w);
	errno = e;
	return rc;
}

int gp_metrics_writer_add(struct gp_metrics_writer *w, const struct gp_sample *smp)
{
	char *line = NULL;
	size_t len = 0;
	int rc;

	if (!w || !smp)
		return gp__error(GP_EINVAL, "gp_metrics_writer_add: NULL argument");
	if ((rc = gp_sample_to_json(smp, &line, &len)))
		return rc;
	rc = put_text(w, line, len);
	gp_free(line);
	if (!rc)
		w->n++;
	return rc;
}

uint64_t gp_metrics_writer_count(const struct gp_metrics_writer *w)
{
	return w ? w->n : 0;
}

int gp_metrics_writer_close(struct gp_metrics_writer *w, struct gp_sampler *s)
{
	struct gp_value *e;
	int rc, err = 0;

	if (!w || !s) {
		gp_metrics_writer_free(w);
		return gp__error(GP_EINVAL, "gp_metrics_writer_close: NULL argument");
	}
	e = gp_value_object();
	rc = put_value(w, e,
	               e && !gp_obj_set_bool(e, "end", true) &&
	                   !gp_obj_set_int(e, "samples", (int64_t)w->n) &&
	                   !gp_obj_set_int(e, "missed_periods", (int64_t)gp_sampler_missed(s)) &&
	                   !gp_obj_set_int(e, "end_monotonic_ns", clock_ns(CLOCK_MONOTONIC)));
	errno = 0;
	if (!rc && (fflush(w->f) || fsync(fileno(w->f))))
		rc = write_error(w, errno ? errno : EIO);
	if (fclose(w->f) && !rc)
		rc = write_error(w, errno);
	w->f = NULL;
	if (rc)
		err = errno;
	gp_metrics_writer_free(w);
	if (rc)
		errno = err;
	return rc;
}

void gp_metrics_writer_free(struct gp_metrics_writer *w)
{
	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	gp__free(w->path);
	gp__free(w);
}

/* ---- the reader ---- */

/* where a field is read from, relative to the sample object */
enum src { SRC_HOST, SRC_TREE, SRC_GPU };

static const struct field {
	enum src src;
	const char *key; /* member of "host", "host/process_tree" or a "gpus" item */
	const char *unit;
} fields[] = {
	{ SRC_HOST, "cpu_busy_ratio", "ratio" },
	{ SRC_HOST, "memory_available_bytes", "bytes" },
	{ SRC_HOST, "memory_total_bytes", "bytes" },
	{ SRC_HOST, "load1", "load" },
	{ SRC_TREE, "cpu_cores", "cores" },
	{ SRC_TREE, "rss_bytes", "bytes" },
	{ SRC_TREE, "processes", "processes" },
	{ SRC_GPU, "utilization_gpu_ratio", "ratio" },
	{ SRC_GPU, "utilization_memory_ratio", "ratio" },
	{ SRC_GPU, "memory_used_bytes", "bytes" },
	{ SRC_GPU, "memory_total_bytes", "bytes" },
	{ SRC_GPU, "memory_reserved_bytes", "bytes" },
	{ SRC_GPU, "clock_sm_hertz", "hertz" },
	{ SRC_GPU, "clock_memory_hertz", "hertz" },
	{ SRC_GPU, "clock_graphics_hertz", "hertz" },
	{ SRC_GPU, "temperature_celsius", "celsius" },
	{ SRC_GPU, "power_watts", "watts" },
	{ SRC_GPU, "power_limit_watts", "watts" },
	{ SRC_GPU, "energy_joules", "joules" },
	{ SRC_GPU, "pcie_tx_bytes_per_second", "bytes_per_second" },
	{ SRC_GPU, "pcie_rx_bytes_per_second", "bytes_per_second" },
	/* the history's noise guard (history/ingest.c): throttling, other tenants */
	{ SRC_GPU, "clock_event_reasons", "bitmask" },
	{ SRC_GPU, "processes_total", "processes" },
};

enum { NFIELDS = sizeof(fields) / sizeof(fields[0]), FIRST_GPU_FIELD = 7 };
/* column slots: the host and tree fields, then NGPU_FIELDS per GPU */
enum {
	NGPU_FIELDS = NFIELDS - FIRST_GPU_FIELD,
	NSLOTS = FIRST_GPU_FIELD + GP_METRICS_MAX_GPUS * NGPU_FIELDS
};

struct rd {
	struct gp_metrics_timeline *m;
	double *col[NSLOTS]; /* NULL until the field first has a value */
	size_t ncols;        /* columns allocated */
	size_t cap;          /* rows allocated in t_ns and every column */
	double row[NSLOTS];  /* the sample being read */
	bool row_set[NSLOTS];
};

static int slot_of(unsigned gpu, size_t f)
{
	return f < FIRST_GPU_FIELD
	           ? (int)f
	           : (int)(FIRST_GPU_FIELD + gpu * NGPU_FIELDS + (f - FIRST_GPU_FIELD));
}

/* ---- the header and end lines ---- */

static int dup_str(const struct gp_value *v, char **out)
{
	const char *s = gp_value_get_str(v);

	if (!s || *out)
		return 0;
	*out = gp__strdup(s);
	return *out ? 0 : gp__error(GP_ENOMEM, "out of memory");
}

static int64_t get_i64(const struct gp_value *obj, const char *key, int64_t dflt)
{
	int64_t x;

	return gp_value_get_int(gp_obj_get(obj, key), &x) ? x : dflt;
}

static int on_header(struct rd *r, const struct gp_value *v)
{
	struct gp_metrics_timeline *m = r->m;
	int rc = 0;

	m->header_seen = true;
	GP_TRY(dup_str(gp_obj_get(v, "hostname"), &m->hostname));
	GP_TRY(dup_str(gp_obj_get(v, "gpu_status"), &m->gpu_status));
	GP_TRY(dup_str(gp_obj_get(v, "driver_version"), &m->driver_version));
	m->interval_ms = get_i64(v, "interval_ms", -1);
	m->start_monotonic_ns = get_i64(v, "start_monotonic_ns", -1);
	m->start_unix_ns = get_i64(v, "start_unix_ns", -1);
	m->watched_pid = get_i64(v, "watched_pid", -1);
out:
	return rc;
}

static void on_end(struct rd *r, const struct gp_value *v)
{
	struct gp_metrics_timeline *m = r->m;

	m->ended = true;
	m->end_samples = get_i64(v, "samples", -1);
	m->missed_periods = get_i64(v, "missed_periods", -1);
	m->end_monotonic_ns = get_i64(v, "end_monotonic_ns", -1);
}

/* ---- samples ---- */

/* Grows t_ns and every column to hold @p need rows. */
static int grow_rows(struct rd *r, size_t need)
{
	size_t cap = r->cap ? r->cap : INITIAL_CAP, i;
	int64_t *t;

	if (need <= r->cap)
		return 0;
	while (cap < need)
		cap = cap > GP_METRICS_MAX_SAMPLES / 2 ? GP_METRICS_MAX_SAMPLES : cap * 2;
	t = gp__reallocarray(r->m->t_ns, cap, sizeof(*t));
	if (!t)
		return gp__error(GP_ENOMEM, "out of memory");
	r->m->t_ns = t;
	for (i = 0; i < NSLOTS; i++) {
		double *c;

		if (!r->col[i])
			continue;
		c = gp__reallocarray(r->col[i], cap, sizeof(*c));
		if (!c)
			return gp__error(GP_ENOMEM, "out of memory");
		r->col[i] = c;
	}
	r->cap = cap;
	return 0;
}

static int new_column(struct rd *r, size_t slot)
{
	double *c = gp__calloc(r->cap, sizeof(*c));
	size_t i;

	if (!c)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < r->m->nsamples; i++)
		c[i] = NAN;
	r->col[slot] = c;
	r->ncols++;
	return 0;
}

/* stores member @p key of @p obj in r->row[slot] when it is a finite number */
static void pick(struct rd *r, int slot, const struct gp_value *obj, const char *key)
{
	double d;

	if (gp_value_get_double(gp_obj_get(obj, key), &d)) {
		r->row[slot] = d;
		r->row_set[slot] = true;
	}
}

static int gpu_info(struct gp_metrics_gpu *g, const struct gp_value *o)
{
	int rc = 0;

	g->seen = true;
	GP_TRY(dup_str(gp_obj_get(o, "name"), &g->name));
	GP_TRY(dup_str(gp_obj_get(o, "uuid"), &g->uuid));
	GP_TRY(dup_str(gp_obj_get(o, "pci_bus_id"), &g->pci_bus_id));
out:
	return rc;
}

/* @return 1 when the line was a sample, 0 when malformed, or a negative status */
static int on_sample(struct rd *r, const struct gp_value *v)
{
	struct gp_metrics_timeline *m = r->m;
	const struct gp_value *host = gp_obj_get(v, "host"), *tree, *gpus = gp_obj_get(v, "gpus");
	size_t i, f, n = m->nsamples, need_cols;
	int64_t t;
	int rc;

	if (!gp_value_get_int(gp_obj_get(v, "time_monotonic_ns"), &t) || t < 0)
		return 0;
	if (n >= GP_METRICS_MAX_SAMPLES) {
		m->truncated = true;
		return 1;
	}
	memset(r->row_set, 0, sizeof(r->row_set));
	tree = gp_obj_get(host, "process_tree");
	for (f = 0; f < FIRST_GPU_FIELD; f++)
		pick(r, (int)f, fields[f].src == SRC_HOST ? host : tree, fields[f].key);
	for (i = 0; i < gp_value_len(gpus); i++) {
		const struct gp_value *g = gp_arr_get(gpus, i);
		int64_t idx;

		if (gp_value_type(g) != GP_VALUE_OBJECT)
			continue;
		if (!gp_value_get_int(gp_obj_get(g, "index"), &idx))
			idx = (int64_t)i;
		if (idx < 0 || idx >= GP_METRICS_MAX_GPUS)
			continue;
		if ((rc = gpu_info(&m->gpus[idx], g)))
			return rc;
		if ((unsigned)idx + 1 > m->ngpus)
			m->ngpus = (unsigned)idx + 1;
		for (f = FIRST_GPU_FIELD; f < NFIELDS; f++)
			pick(r, slot_of((unsigned)idx, f), g, fields[f].key);
	}

	/* the memory cap: every column, old and new, gets this row */
	need_cols = r->ncols;
	for (i = 0; i < NSLOTS; i++)
		if (r->row_set[i] && !r->col[i])
			need_cols++;
	if ((n + 1) * (need_cols ? need_cols : 1) > GP_METRICS_MAX_VALUES) {
		m->truncated = true;
		return 1;
	}
	if ((rc = grow_rows(r, n + 1)))
		return rc;
	for (i = 0; i < NSLOTS; i++) {
		if (r->row_set[i] && !r->col[i] && (rc = new_column(r, i)))
			return rc;
		if (r->col[i])
			r->col[i][n] = r->row_set[i] ? r->row[i] : NAN;
	}
	m->t_ns[n] = t;
	m->nsamples = n + 1;
	return 1;
}

/* ---- lines ---- */

/* @p last: the file's unterminated last line */
static int on_line(struct rd *r, const char *p, size_t len, bool last)
{
	struct gp_metrics_timeline *m = r->m;
	struct gp_value *v = NULL;
	const char *schema;
	size_t i;
	int rc = 0;

	for (i = 0; i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'); i++)
		;
	if (i == len)
		return 0;
	if (m->truncated)
		return 0;
	rc = gp_value_parse(p, len, &v, NULL);
	if (rc == GP_ENOMEM)
		return gp__error(GP_ENOMEM, "out of memory");
	gp_clear_error();
	if (rc || gp_value_type(v) != GP_VALUE_OBJECT) {
		if (last)
			m->partial_last_line = true;
		else
			m->malformed_lines++;
		gp_value_free(v);
		return 0;
	}
	schema = gp_value_get_str(gp_obj_get(v, "schema"));
	if (schema && strcmp(schema, SCHEMA_HEADER) == 0) {
		/* a header only counts as line 1; later ones are noise */
		if (m->nsamples == 0 && !m->header_seen && !m->ended)
			rc = on_header(r, v);
		else
			m->malformed_lines++;
	} else if (gp_value_get_bool(gp_obj_get(v, "end"), false)) {
		on_end(r, v);
	} else if (!schema || strcmp(schema, SCHEMA_SAMPLE) == 0) {
		rc = on_sample(r, v);
		if (rc == 0)
			m->malformed_lines++;
		rc = rc < 0 ? rc : 0;
	} else {
		m->malformed_lines++;
	}
	gp_value_free(v);
	return rc;
}

/* Cuts [p, p + len) into lines; a line started in an earlier block waits in @p carry. */
struct splitter {
	struct gp_buf carry;
	bool skipping; /* the current line went past GP_METRICS_MAX_LINE: drop up to '\n' */
};

static int feed(struct rd *r, struct splitter *s, const char *p, size_t len)
{
	const char *end = p + len;
	int rc;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (s->skipping) {
			if (nl) {
				s->skipping = false;
				r->m->malformed_lines++;
			}
		} else if (s->carry.len + n > GP_METRICS_MAX_LINE) {
			gp__buf_reset(&s->carry);
			s->skipping = true;
			if (nl) {
				s->skipping = false;
				r->m->malformed_lines++;
			}
		} else if (nl && s->carry.len == 0) {
			if ((rc = on_line(r, p, n, false)))
				return rc;
		} else {
			if ((rc = gp__buf_add(&s->carry, p, n)))
				return rc;
			if (nl) {
				rc = on_line(r, s->carry.buf, s->carry.len, false);
				gp__buf_reset(&s->carry);
				if (rc)
					return rc;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static int finish(struct rd *r, struct splitter *s)
{
	int rc = 0;

	if (s->skipping) {
		r->m->partial_last_line = true;
	} else if (s->carry.len) {
		rc = on_line(r, s->carry.buf, s->carry.len, true);
	}
	gp__buf_release(&s->carry);
	return rc;
}

/* ---- the timeline ---- */

static int build_series(struct rd *r)
{
	struct gp_metrics_timeline *m = r->m;
	size_t i, k = 0;

	if (!r->ncols)
		return 0;
	m->series = gp__calloc(r->ncols, sizeof(*m->series));
	if (!m->series)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < NSLOTS; i++) {
		struct gp_metrics_series *s;
		size_t f;
		unsigned gpu = 0;
		char name[SERIES_NAME_SZ];

		if (!r->col[i])
			continue;
		if (i < FIRST_GPU_FIELD) {
			f = i;
			snprintf(name, sizeof(name), "%s.%s",
			         fields[f].src == SRC_HOST ? "host" : "process_tree",
			         fields[f].key);
		} else {
			gpu = (unsigned)((i - FIRST_GPU_FIELD) / NGPU_FIELDS);
			f = FIRST_GPU_FIELD + (i - FIRST_GPU_FIELD) % NGPU_FIELDS;
			snprintf(name, sizeof(name), "gpu%u.%s", gpu, fields[f].key);
		}
		s = &m->series[k];
		s->name = gp__strdup(name);
		if (!s->name)
			return gp__error(GP_ENOMEM, "out of memory");
		s->unit = fields[f].unit;
		s->n = m->nsamples;
		s->t_ns = m->t_ns;
		s->v = r->col[i];
		r->col[i] = NULL;
		m->nseries = ++k;
	}
	return 0;
}

static void rd_release(struct rd *r)
{
	size_t i;

	for (i = 0; i < NSLOTS; i++)
		gp__free(r->col[i]);
}

static int rd_init(struct rd *r)
{
	struct gp_metrics_timeline *m;

	memset(r, 0, sizeof(*r));
	m = gp__calloc(1, sizeof(*m));
	if (!m)
		return gp__error(GP_ENOMEM, "out of memory");
	m->interval_ms = m->start_monotonic_ns = m->start_unix_ns = m->watched_pid = -1;
	m->end_samples = m->missed_periods = m->end_monotonic_ns = -1;
	r->m = m;
	return 0;
}

/* the common end of both entry points; frees everything on failure */
static int rd_done(struct rd *r, int rc, const char *what, struct gp_metrics_timeline **out)
{
	if (!rc && !r->m->header_seen && !r->m->nsamples)
		rc = gp__error(GP_EFORMAT, "%s: not a metrics timeline (no header, no sample)",
		               what);
	if (!rc)
		rc = build_series(r);
	rd_release(r);
	if (rc) {
		gp__metrics_timeline_free(r->m);
		return rc;
	}
	*out = r->m;
	return 0;
}

int gp__metrics_timeline_parse(const char *data, size_t len, struct gp_metrics_timeline **out)
{
	struct splitter s = { GP_BUF_INIT, false };
	struct rd *r;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp__metrics_timeline_parse: NULL argument");
	*out = NULL;
	if (!data && len)
		return gp__error(GP_EINVAL, "gp__metrics_timeline_parse: NULL data");
	/* struct rd holds a row of every slot: too big for the stack */
	r = gp__calloc(1, sizeof(*r));
	if (!r)
		return gp__error(GP_ENOMEM, "out of memory");
	rc = rd_init(r);
	if (!rc)
		rc = feed(r, &s, data, len);
	if (!rc)
		rc = finish(r, &s);
	gp__buf_release(&s.carry);
	if (r->m)
		rc = rd_done(r, rc, "metrics", out);
	gp__free(r);
	return rc;
}

int gp__metrics_timeline_read(const char *path, struct gp_metrics_timeline **out)
{
	struct splitter s = { GP_BUF_INIT, false };
	struct rd *r = NULL;
	char *block = NULL;
	int fd = -1, rc = 0;

	if (!path || !out)
		return gp__error(GP_EINVAL, "gp__metrics_timeline_read: NULL argument");
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gp__error(GP_EIO, "cannot open '%s': %s", path, strerror(errno));
	block = gp__malloc(READ_BLOCK);
	r = gp__calloc(1, sizeof(*r));
	if (!block || !r) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	GP_TRY(rd_init(r));
	for (;;) {
		ssize_t got = read(fd, block, READ_BLOCK);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			GP_TRY(gp__error(GP_EIO, "cannot read '%s': %s", path, strerror(errno)));
		if (got == 0)
			break;
		GP_TRY(feed(r, &s, block, (size_t)got));
		if (r->m->truncated)
			break;
	}
	GP_TRY(finish(r, &s));
out:
	gp__buf_release(&s.carry);
	if (r && r->m)
		rc = rd_done(r, rc, path, out);
	else if (r)
		rd_release(r);
	gp__free(r);
	gp__free(block);
	close(fd);
	return rc;
}

const struct gp_metrics_series *gp__metrics_timeline_series(const struct gp_metrics_timeline *m,
                                                            const char *name)
{
	size_t i;

	if (!m || !name)
		return NULL;
	for (i = 0; i < m->nseries; i++)
		if (strcmp(m->series[i].name, name) == 0)
			return &m->series[i];
	return NULL;
}

void gp__metrics_timeline_free(struct gp_metrics_timeline *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nseries; i++) {
		gp__free((void *)m->series[i].name);
		gp__free(m->series[i].v);
	}
	for (i = 0; i < GP_METRICS_MAX_GPUS; i++) {
		gp__free(m->gpus[i].name);
		gp__free(m->gpus[i].uuid);
		gp__free(m->gpus[i].pci_bus_id);
	}
	gp__free(m->series);
	gp__free(m->t_ns);
	gp__free(m->hostname);
	gp__free(m->gpu_status);
	gp__free(m->driver_version);
	gp__free(m);
}
