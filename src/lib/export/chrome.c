/* SPDX-License-Identifier: MIT */
/*
 * chrome.c - the streaming Chrome trace-event JSON writer behind `gpuprof
 * export --format chrome` (the format ui.perfetto.dev and chrome://tracing
 * load; docs/cli/gpuprof-export.md describes the output).
 *
 * Streams: events go out in the model's order through one fixed buffer, so
 * memory holds the per-trace tables (a row per track and per process, a map
 * from correlation id to API call, a byte per string) and never the JSON.
 * Everything is linear in the events written.
 *
 * Invariants of the output, relied on by the tests:
 *  - ts and dur are the model's integer ns printed as µs with exactly three
 *    decimals ("1234.567"), never through a double, or as integer µs when
 *    every time of the trace is one and its file had no fraction (whole_us());
 *  - a single trace's top-level metadata is the document's, several traces'
 *    each a "trace_metadata" event, so that an export analyses as its source
 *    (PyTorch memory events as Kineto's "[memory]" instants, every field);
 *  - every string is valid JSON: control characters, quotes and backslashes
 *    escaped, "</" written "<\/" (safe inside an HTML <script>), U+2028 and
 *    U+2029 escaped, and each byte of invalid UTF-8 replaced by U+FFFD;
 *  - keys are sorted in every object, so the output is deterministic;
 *  - a flow's "s" and "f" share cat and name ("ac2g", as Kineto writes them)
 *    and an id unique in the document: trace k's flow from correlation id C
 *    has id base_k + C, base_0 = 0, so a single trace's ids are its
 *    correlation ids; a second GPU operation of the same correlation id (a
 *    CUDA graph launch) gets base_k + max + 1 + j;
 *  - host pids are kept when no earlier trace of the document used them and
 *    they lie in 1 .. 2^30 - 1; GPU processes, counter processes and any other
 *    host process get pids from 2^30 up (above any Linux pid), so pids never
 *    collide between ranks.
 * Used by export.c (gp_export_paths) and the unit tests.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export-int.h"
#include "gpuprof/export.h"
#include "source/metrics.h"
#include "source/source.h"
#include "trace/model.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/sort.h"
#include "util/strtab.h"

#define OUTBUF_SIZE   (256u * 1024u)
#define SYNTH_BASE    (INT64_C(1) << 30)           /* first synthetic pid or tid */
#define SORT_GPU      (INT64_C(1) << 24)           /* process sort indexes: hosts, then GPUs, */
#define SORT_METRIC   (INT64_C(1) << 28)           /* then metrics */
#define FLOW_CORR_MAX (INT64_C(1) << 40)           /* larger correlation ids get dense flow ids */
#define SMALL_MAX     1024u                        /* bound on the fixed-size part of one event */
#define ORIGIN_MARGIN (INT64_C(3600) * 1000000000) /* the origin's lead on baseTimeNanoseconds */

struct gp_chrome_writer {
	gp_write_fn write;
	void *user;
	char *buf;
	size_t len;
	int err;        /* the first failure, sticky */
	bool any_event; /* the next event needs a comma */
	bool started;   /* the opening of the document is written */
	bool finished;
	int64_t origin;   /* subtracted from every time: the first trace's baseTimeNanoseconds */
	int64_t next_pid; /* synthetic pids */
	struct gp_u64map real_pids; /* host pids kept as they are, by all traces so far */
	int64_t sort_host, sort_gpu, sort_metric;
	uint64_t flow_base; /* the next trace's flow ids start here */
	uint64_t async_id;  /* ids of async slices (NVTX start/end ranges) */
	bool whole_us;      /* the trace being written has whole-µs times: integers */
	bool several;       /* several traces expected: no trace's metadata at the top */
	bool meta_top;      /* the top level holds the first trace's metadata */
	char *tail;         /* top-level members after "traceEvents" (",...}"), NULL none */
	size_t tail_len;
	struct gp_export_stats st;
};

/* ---- output buffer ---- */

static int flush_buf(struct gp_chrome_writer *w)
{
	if (w->err)
		return w->err;
	if (w->len) {
		errno = 0;
		if (w->write(w->buf, w->len, w->user)) {
			w->err = gp__error(GP_EIO, "cannot write the trace: %s",
			                   strerror(errno ? errno : EIO));
			return w->err;
		}
		w->st.bytes += w->len;
		w->len = 0;
	}
	return 0;
}

/* room for @p n (<= OUTBUF_SIZE) bytes at the end of the buffer, or NULL on a write error */
static char *reserve(struct gp_chrome_writer *w, size_t n)
{
	if (w->err)
		return NULL;
	if (OUTBUF_SIZE - w->len < n && flush_buf(w))
		return NULL;
	return w->buf + w->len;
}

static void commit(struct gp_chrome_writer *w, const char *end)
{
	w->len = (size_t)(end - w->buf);
}

static int put(struct gp_chrome_writer *w, const char *p, size_t n)
{
	if (w->err)
		return w->err;
	if (OUTBUF_SIZE - w->len < n) {
		if (flush_buf(w))
			return w->err;
		if (n >= OUTBUF_SIZE) {
			/* a huge string: straight through */
			errno = 0;
			if (w->write(p, n, w->user))
				return w->err = gp__error(GP_EIO, "cannot write the trace: %s",
				                          strerror(errno ? errno : EIO));
			w->st.bytes += n;
			return 0;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

static int puts_(struct gp_chrome_writer *w, const char *s)
{
	return put(w, s, strlen(s));
}

/* ---- numbers ---- */

static char *fmt_u64(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return fmt_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return fmt_u64(p, (uint64_t)v);
}

/* integer ns as µs with three decimals: 1234567 -> "1234.567", -1 -> "-0.001" */
static char *fmt_us(char *p, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned r = (unsigned)(a % 1000);

	if (ns < 0)
		*p++ = '-';
	p = fmt_u64(p, a / 1000);
	*p++ = '.';
	*p++ = (char)('0' + r / 100);
	*p++ = (char)('0' + r / 10 % 10);
	*p++ = (char)('0' + r % 10);
	return p;
}

/* a time of the document: whole µs as an integer when the trace's times all are */
static char *fmt_t(const struct gp_chrome_writer *w, char *p, int64_t ns)
{
	return w->whole_us ? fmt_i64(p, ns / 1000) : fmt_us(p, ns);
}

/* a finite double: at most 6 decimals, trailing zeros dropped (as value.c writes them) */
static char *fmt_dbl(char *p, double d)
{
	char tmp[64];
	int n;

	if (d == 0)
		d = 0; /* no "-0" */
	n = snprintf(tmp, sizeof(tmp), "%.6f", d);
	if (n <= 0 || (size_t)n >= sizeof(tmp)) {
		n = snprintf(tmp, sizeof(tmp), "%.17g", d);
		if (n <= 0 || (size_t)n >= sizeof(tmp))
			n = snprintf(tmp, sizeof(tmp), "0");
	} else {
		while (n > 1 && tmp[n - 1] == '0')
			n--;
		if (tmp[n - 1] == '.')
			n--;
		if (n == 2 && tmp[0] == '-' && tmp[1] == '0')
			n = snprintf(tmp, sizeof(tmp), "0");
	}
	memcpy(p, tmp, (size_t)n);
	return p + n;
}

static char *fmt_lit(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* ---- strings ---- */

/* how many bytes of s[i0..n) need no escaping (i0 > 0 looks back for "</") */
static size_t plain_run(const unsigned char *s, size_t i0, size_t n)
{
	size_t i = i0, k;

	while (i < n) {
		unsigned char c = s[i];

		if (c < 0x80) {
			if (c < 0x20 || c == '"' || c == '\\' || (c == '/' && i && s[i - 1] == '<'))
				break;
			i++;
			continue;
		}
		k = gp__utf8_len(s + i, n - i);
		/* U+2028 and U+2029 end a line in JavaScript */
		if (!k || (k == 3 && c == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] & 0xFE) == 0xA8))
			break;
		i += k;
	}
	return i - i0;
}

static bool plain_str(const char *s, size_t n)
{
	return plain_run((const unsigned char *)s, 0, n) == n;
}

/* the escaped body of a JSON string (no quotes) */
static int put_escaped(struct gp_chrome_writer *w, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < n) {
		size_t k = plain_run(s, i, n);
		unsigned char c;
		char esc[8];
		size_t elen = 2;

		if (k && put(w, str + i, k))
			return w->err;
		i += k;
		if (i >= n)
			break;
		c = s[i];
		esc[0] = '\\';
		if (c < 0x80) {
			switch (c) {
			case '"':
			case '\\':
			case '/':
				esc[1] = (char)c;
				break;
			case '\b':
				esc[1] = 'b';
				break;
			case '\f':
				esc[1] = 'f';
				break;
			case '\n':
				esc[1] = 'n';
				break;
			case '\r':
				esc[1] = 'r';
				break;
			case '\t':
				esc[1] = 't';
				break;
			default:
				memcpy(esc + 1, "u00", 3);
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				elen = 6;
			}
			i++;
		} else if (gp__utf8_len(s + i, n - i) == 3) {
			/* U+2028 / U+2029 */
			memcpy(esc + 1, c == 0xE2 && s[i + 2] == 0xA8 ? "u2028" : "u2029", 5);
			elen = 6;
			i += 3;
		} else {
			/* invalid UTF-8: U+FFFD for this byte */
			memcpy(esc, "\xEF\xBF\xBD", 3);
			elen = 3;
			i++;
		}
		if (put(w, esc, elen))
			return w->err;
	}
	return 0;
}

static int put_jstr(struct gp_chrome_writer *w, const char *s, size_t n)
{
	if (put(w, "\"", 1) || put_escaped(w, s, n))
		return w->err;
	return put(w, "\"", 1);
}

/*
 * A JSON text of gp_value_to_json() as it is, except "</" as "<\/" and
 * U+2028/U+2029 as escapes, as put_escaped() writes strings: outside its
 * strings JSON text has neither, so the text stays the same JSON.
 */
static int put_json_text(struct gp_chrome_writer *w, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		if (u[i] == '<' && i + 1 < n && u[i + 1] == '/') {
			if (put(w, s + run, i + 1 - run) || put(w, "\\", 1))
				return w->err;
			run = ++i;
		} else if (u[i] == 0xE2 && i + 2 < n && u[i + 1] == 0x80 &&
		           (u[i + 2] & 0xFE) == 0xA8) {
			if (put(w, s + run, i - run) ||
			    put(w, u[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6))
				return w->err;
			run = i += 3;
		} else {
			i++;
		}
	}
	return put(w, s + run, n - run);
}

/* @p v as JSON (keys sorted) through put_json_text(); @p inner: without its outer brackets */
static int put_value(struct gp_chrome_writer *w, const struct gp_value *v, bool inner)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = gp_value_to_json(v, 0, &text, &len))) {
		gp__error_prefix("trace metadata");
		return w->err = rc;
	}
	if (inner && len >= 2)
		rc = put_json_text(w, text + 1, len - 2);
	else
		rc = put_json_text(w, text, len);
	gp_free(text);
	return rc;
}

/* sets @p key of @p obj to a copy of @p v */
static int set_clone(struct gp_value *obj, const char *key, const struct gp_value *v)
{
	struct gp_value *cl = gp_value_clone(v);

	if (!cl)
		return gp__error(GP_ENOMEM, "out of memory");
	return gp_obj_set(obj, key, cl);
}

/*
 * The top-level metadata of @p t (deviceProperties, distributedInfo,
 * schemaVersion, versions, profiler options; a capture's gpuprof_capture,
 * deviceProperties and what its reader counted) into @p head, or, for keys
 * that sort after "traceEvents", into @p tail when it is not NULL. With
 * @p top, the members the document sets itself (baseTimeNanoseconds,
 * otherData) are left to the caller. A rank known from elsewhere (a
 * capture's launcher) becomes distributedInfo, where Kineto keeps it, and a
 * host known from the file name alone becomes "hostname".
 */
static int trace_meta(const struct gp_trace *t, bool top, struct gp_value *head,
                      struct gp_value *tail)
{
	size_t i, n = gp_value_type(t->meta) == GP_VALUE_OBJECT ? gp_value_len(t->meta) : 0;
	char host[256];
	int rc = 0;

	for (i = 0; i < n; i++) {
		const char *k = gp_obj_key_at(t->meta, i);

		if (!k || strcmp(k, "traceEvents") == 0 ||
		    (top && (strcmp(k, "baseTimeNanoseconds") == 0 || strcmp(k, "otherData") == 0)))
			continue;
		GP_TRY(set_clone(tail && strcmp(k, "traceEvents") > 0 ? tail : head, k,
		                 gp_obj_value_at(t->meta, i)));
	}
	/* a host only the file name knows (tensorboard_trace_handler's) stays the rank's */
	if (!gp_obj_get(t->meta, "hostname") && t->path &&
	    gp__host_from_name(t->path, host, sizeof(host)))
		GP_TRY(gp_obj_set_str(head, "hostname", host));
	if (t->rank >= 0 && !gp_obj_get(t->meta, "distributedInfo")) {
		struct gp_value *di = gp_value_object();

		if (!di)
			return gp__error(GP_ENOMEM, "out of memory");
		GP_TRY(gp_obj_set(head, "distributedInfo", di));
		GP_TRY(gp_obj_set_int(di, "rank", t->rank));
		if (t->world_size >= 0)
			GP_TRY(gp_obj_set_int(di, "world_size", t->world_size));
	}
out:
	return rc;
}

/*
 * The opening of the document, written with the first trace (or timeline, or
 * the end). Viewers read times as doubles, which hold epoch nanoseconds only
 * to a quarter of a µs: when the first trace has a baseTimeNanoseconds
 * (Kineto), times are written relative to an origin an hour before it, kept
 * as the document's own baseTimeNanoseconds, as Kineto does. The hour keeps
 * the times of ranks that started a little earlier positive (Perfetto drops
 * negative times); viewers show times from the first event anyway.
 *
 * Unless several traces are expected, the first trace's top-level metadata
 * is the document's, so that a reader of Kineto traces (gpuprof analyze, HTA)
 * finds its deviceProperties and distributedInfo there; members that sort
 * after "traceEvents" are kept for the end of the document (w->tail).
 */
static int start(struct gp_chrome_writer *w, const struct gp_trace *t)
{
	struct gp_value *head = NULL, *tail = NULL, *od;
	const struct gp_value *tod;
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	if (w->started)
		return w->err;
	w->started = true;
	if (t && t->has_base && t->base_ns >= ORIGIN_MARGIN && t->base_ns <= GP_TIME_LIMIT)
		w->origin = t->base_ns - ORIGIN_MARGIN;
	if (!(head = gp_value_object()) || !(tail = gp_value_object()))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (t && !w->several) {
		GP_TRY(trace_meta(t, true, head, tail));
		w->meta_top = true;
	}
	/* the trace's own otherData, if any, with the exporter's keys */
	tod = w->meta_top ? gp_obj_get(t->meta, "otherData") : NULL;
	od = gp_value_type(tod) == GP_VALUE_OBJECT ? gp_value_clone(tod) : gp_value_object();
	if (!od)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set(head, "otherData", od));
	GP_TRY(gp_obj_set_str(od, "exporter", "gpuprof"));
	GP_TRY(gp_obj_set_str(od, "gpuprof_version", gp_version()));
	GP_TRY(gp_obj_set_str(od, "schema", "gpuprof.chrome/1"));
	if (!gp_obj_get(head, "displayTimeUnit"))
		GP_TRY(gp_obj_set_str(head, "displayTimeUnit", "ns"));
	if (w->origin)
		GP_TRY(gp_obj_set_int(head, "baseTimeNanoseconds", w->origin));
	if (gp_value_len(tail)) {
		/* ",MEMBERS}" */
		GP_TRY(gp_value_to_json(tail, 0, &text, &len));
		text[0] = ',';
		w->tail = text;
		w->tail_len = len;
		text = NULL;
	}
	if (put(w, "{", 1) || put_value(w, head, true) || puts_(w, ",\"traceEvents\":[\n"))
		rc = w->err;
out:
	gp_value_free(head);
	gp_value_free(tail);
	if (rc && !w->err)
		w->err = rc;
	return rc;
}

/* ---- one trace ---- */

struct proc {
	int64_t cpid;  /* pid in the output */
	int64_t key;   /* host: pid (or pid_str id with str); GPU: device, -1 unknown */
	bool gpu, str; /* str: a host process named by a pid string */
};

struct tctx {
	struct gp_chrome_writer *w;
	const struct gp_trace *t;
	const char *label; /* NULL: none */
	struct proc *procs;
	size_t nprocs, procs_cap;
	uint32_t *tproc; /* per track: its process */
	int64_t *ttid;   /* per track: tid in the output */
	uint8_t *sclean; /* per string: 0 not looked at, 1 plain, 2 needs escaping */
	struct gp_u64map host_num, host_str, gpu_dev, named;
	int64_t next_tid; /* synthetic tids */
	const char *exe;  /* a capture's executable (base name), NULL if none */
	int64_t exe_pid;
	uint32_t *gpu_order; /* the GPU processes by device */
	size_t ngpus;
};

static int put_sid(struct tctx *c, uint32_t id)
{
	const char *s;
	size_t n;

	if (id >= c->t->strs.n)
		return put(c->w, "\"\"", 2);
	s = gp__strtab_get(&c->t->strs, id);
	n = gp__strtab_strlen(&c->t->strs, id);
	if (!c->sclean[id])
		c->sclean[id] = plain_str(s, n) ? 1 : 2;
	if (c->sclean[id] == 1) {
		/* the common case: copied as it is */
		char *p = n + 2 <= OUTBUF_SIZE ? reserve(c->w, n + 2) : NULL;

		if (p) {
			*p++ = '"';
			memcpy(p, s, n);
			p[n] = '"';
			commit(c->w, p + n + 1);
			return 0;
		}
		if (c->w->err)
			return c->w->err;
	}
	return put_jstr(c->w, s, n);
}

/* starts an event: the separator and "{" */
static int ev_begin(struct gp_chrome_writer *w)
{
	if (w->any_event)
		return put(w, ",\n{", 3);
	w->any_event = true;
	return put(w, "{", 1);
}

static int add_proc(struct tctx *c, struct gp_u64map *m, uint64_t mkey, const struct proc *p,
                    uint32_t *out)
{
	uint64_t v;
	int rc;

	if (gp__u64map_get(m, mkey, &v) == 1) {
		*out = (uint32_t)v;
		return 0;
	}
	if ((rc = gp__grow((void **)&c->procs, &c->procs_cap, c->nprocs + 1, sizeof(*c->procs))))
		return rc;
	c->procs[c->nprocs] = *p;
	if ((rc = gp__u64map_put(m, mkey, c->nprocs)))
		return rc;
	*out = (uint32_t)c->nprocs++;
	return 0;
}

static int gpu_proc(struct tctx *c, int64_t device, uint32_t *out)
{
	struct proc p = { .key = device < 0 ? -1 : device, .gpu = true };

	return add_proc(c, &c->gpu_dev, (uint64_t)p.key, &p, out);
}

static int host_proc(struct tctx *c, const struct gp_track *tr, uint32_t *out)
{
	struct proc p = { .gpu = false };

	if (tr->pid_str) {
		p.str = true;
		p.key = tr->pid_str;
		return add_proc(c, &c->host_str, tr->pid_str, &p, out);
	}
	p.key = tr->pid;
	return add_proc(c, &c->host_num, (uint64_t)tr->pid, &p, out);
}

/* the capture's executable, for the name of its process */
static void capture_exe(struct tctx *c)
{
	const struct gp_value *cap = gp_obj_get(c->t->meta, "gpuprof_capture");
	const char *exe = gp_value_get_str(gp_obj_get(cap, "exe"));
	const char *slash;

	c->exe = NULL;
	if (!exe || !gp_value_get_int(gp_obj_get(cap, "pid"), &c->exe_pid))
		return;
	slash = strrchr(exe, '/');
	c->exe = slash && slash[1] ? slash + 1 : exe;
}

/* every track and memory event gets its process; then pids and tids */
static int map_tracks(struct tctx *c)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	size_t i;
	int rc = 0;

	if (t->ntracks) {
		c->tproc = gp__calloc(t->ntracks, sizeof(*c->tproc));
		c->ttid = gp__calloc(t->ntracks, sizeof(*c->ttid));
		if (!c->tproc || !c->ttid)
			return gp__error(GP_ENOMEM, "out of memory");
	}
	for (i = 0; i < t->ntracks; i++) {
		const struct gp_track *tr = &t->tracks[i];

		if (tr->gpu)
			GP_TRY(gpu_proc(c, tr->device, &c->tproc[i]));
		else
			GP_TRY(host_proc(c, tr, &c->tproc[i]));
	}
	for (i = 0; i < t->nmem; i++) {
		uint32_t pi;

		if (t->mem[i].device_type == 1 && t->mem[i].device >= 0)
			GP_TRY(gpu_proc(c, t->mem[i].device, &pi));
	}

	/* host pids: kept unless taken or out of range; GPUs: synthetic, by device */
	if (c->nprocs && !(c->gpu_order = gp__calloc(c->nprocs, sizeof(*c->gpu_order))))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < c->nprocs; i++) {
		struct proc *p = &c->procs[i];
		uint64_t dummy;

		if (p->gpu) {
			c->gpu_order[c->ngpus++] = (uint32_t)i;
			continue;
		}
		if (!p->str && p->key > 0 && p->key < SYNTH_BASE &&
		    gp__u64map_get(&w->real_pids, (uint64_t)p->key, &dummy) != 1) {
			p->cpid = p->key;
			GP_TRY(gp__u64map_put(&w->real_pids, (uint64_t)p->key, 1));
		} else {
			p->cpid = w->next_pid++;
		}
	}
	if (c->ngpus) {
		/* by device, unknown last */
		struct gp_kv *kv = gp__calloc(c->ngpus, sizeof(*kv));

		if (!kv)
			return gp__error(GP_ENOMEM, "out of memory");
		for (i = 0; i < c->ngpus; i++) {
			int64_t d = c->procs[c->gpu_order[i]].key;

			kv[i].key = d < 0 ? INT64_MAX : d;
			kv[i].val = c->gpu_order[i];
		}
		rc = gp__sort_kv(kv, c->ngpus);
		for (i = 0; !rc && i < c->ngpus; i++) {
			c->gpu_order[i] = (uint32_t)kv[i].val;
			c->procs[kv[i].val].cpid = w->next_pid++;
		}
		gp__free(kv);
		if (rc)
			return rc;
	}

	/* tids: stream numbers on GPUs, thread ids on hosts, else synthetic */
	c->next_tid = SYNTH_BASE;
	for (i = 0; i < t->ntracks; i++) {
		const struct gp_track *tr = &t->tracks[i];

		if (tr->gpu && tr->stream >= 0 && tr->stream < SYNTH_BASE)
			c->ttid[i] = tr->stream;
		else if (!tr->gpu && !tr->tid_str && tr->tid >= 0 && tr->tid < SYNTH_BASE)
			c->ttid[i] = tr->tid;
		else
			c->ttid[i] = c->next_tid++;
	}
out:
	return rc;
}

/* {"args":{"name":NAME},"name":WHAT,"ph":"M","pid":P[,"tid":T]}, NAME = "LABEL: A" */
static int meta_name(struct gp_chrome_writer *w, const char *label, const char *what, int64_t pid,
                     int64_t tid, const char *a, size_t alen)
{
	char *p;

	if (ev_begin(w) || puts_(w, "\"args\":{\"name\":\""))
		return w->err;
	if (label && (put_escaped(w, label, strlen(label)) || (a && puts_(w, ": "))))
		return w->err;
	if (a && put_escaped(w, a, alen))
		return w->err;
	if (!(p = reserve(w, SMALL_MAX)))
		return w->err;
	p = fmt_lit(p, "\"},\"name\":\"");
	p = fmt_lit(p, what);
	p = fmt_lit(p, "\",\"ph\":\"M\",\"pid\":");
	p = fmt_i64(p, pid);
	if (tid != INT64_MIN) {
		p = fmt_lit(p, ",\"tid\":");
		p = fmt_i64(p, tid);
	}
	*p++ = '}';
	commit(w, p);
	return 0;
}

/* {"args":{"sort_index":N},"name":WHAT,"ph":"M","pid":P[,"tid":T]} */
static int meta_sort(struct gp_chrome_writer *w, const char *what, int64_t pid, int64_t tid,
                     int64_t idx)
{
	char *p;

	if (ev_begin(w) || !(p = reserve(w, SMALL_MAX)))
		return w->err;
	p = fmt_lit(p, "\"args\":{\"sort_index\":");
	p = fmt_i64(p, idx);
	p = fmt_lit(p, "},\"name\":\"");
	p = fmt_lit(p, what);
	p = fmt_lit(p, "\",\"ph\":\"M\",\"pid\":");
	p = fmt_i64(p, pid);
	if (tid != INT64_MIN) {
		p = fmt_lit(p, ",\"tid\":");
		p = fmt_i64(p, tid);
	}
	*p++ = '}';
	commit(w, p);
	return 0;
}

static int write_proc_meta(struct tctx *c, struct proc *p)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	char num[64];
	int rc;

	if (p->gpu) {
		struct gp_device_props dp;

		if (p->key >= 0)
			snprintf(num, sizeof(num), "GPU %lld", (long long)p->key);
		else
			snprintf(num, sizeof(num), "GPU ?");
		if ((rc = meta_name(w, c->label, "process_name", p->cpid, INT64_MIN, num,
		                    strlen(num))))
			return rc;
		if (p->key >= 0 && gp__trace_device_props(t, p->key, &dp) && dp.name && *dp.name) {
			/* chrome://tracing shows labels beside the name */
			char *q;

			if (ev_begin(w) || puts_(w, "\"args\":{\"labels\":") ||
			    put_jstr(w, dp.name, strlen(dp.name)) || !(q = reserve(w, SMALL_MAX)))
				return w->err;
			q = fmt_lit(q, "},\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":");
			q = fmt_i64(q, p->cpid);
			*q++ = '}';
			commit(w, q);
		}
		return meta_sort(w, "process_sort_index", p->cpid, INT64_MIN, w->sort_gpu++);
	}
	if (p->str) {
		uint32_t id = (uint32_t)p->key;

		rc = meta_name(w, c->label, "process_name", p->cpid, INT64_MIN,
		               gp__strtab_get(&t->strs, id), gp__strtab_strlen(&t->strs, id));
	} else if (c->exe && p->key == c->exe_pid) {
		rc = meta_name(w, c->label, "process_name", p->cpid, INT64_MIN, c->exe,
		               strlen(c->exe));
	} else if (p->cpid != p->key) {
		/* the pid had to change: the name keeps the original */
		snprintf(num, sizeof(num), "pid %lld", (long long)p->key);
		rc = meta_name(w, c->label, "process_name", p->cpid, INT64_MIN, num, strlen(num));
	} else if (c->label) {
		rc = meta_name(w, c->label, "process_name", p->cpid, INT64_MIN, NULL, 0);
	} else {
		rc = 0; /* viewers show "Process PID" */
	}
	if (rc)
		return rc;
	return meta_sort(w, "process_sort_index", p->cpid, INT64_MIN, w->sort_host++);
}

static int write_thread_meta(struct tctx *c, uint32_t i)
{
	const struct gp_trace *t = c->t;
	const struct gp_track *tr = &t->tracks[i];
	struct gp_chrome_writer *w = c->w;
	int64_t pid = c->procs[c->tproc[i]].cpid, tid = c->ttid[i];
	uint64_t key = (uint64_t)c->tproc[i] << 32 | (uint64_t)tid, v;
	uint32_t sid = 0;
	char num[64];
	int rc;

	/* tracks of one stream (a numeric and a "stream N" tid) share a thread */
	if (gp__u64map_get(&c->named, key, &v) == 1)
		return 0;
	if ((rc = gp__u64map_put(&c->named, key, 1)))
		return rc;
	if (tr->gpu) {
		if (tr->stream >= 0)
			snprintf(num, sizeof(num), "stream %lld", (long long)tr->stream);
		else
			snprintf(num, sizeof(num), "stream ?");
		if ((rc = meta_name(w, NULL, "thread_name", pid, tid, num, strlen(num))))
			return rc;
		return meta_sort(w, "thread_sort_index", pid, tid,
		                 tr->stream >= 0 && tr->stream < SYNTH_BASE ? tr->stream
		                                                            : SYNTH_BASE);
	}
	/* host threads: their name, else the tid of the file when the tid had to change */
	if (tr->name)
		sid = tr->name;
	else if (tr->tid_str)
		sid = tr->tid_str;
	if (sid)
		return meta_name(w, NULL, "thread_name", pid, tid, gp__strtab_get(&t->strs, sid),
		                 gp__strtab_strlen(&t->strs, sid));
	if (tid != tr->tid) {
		snprintf(num, sizeof(num), "thread %lld", (long long)tr->tid);
		return meta_name(w, NULL, "thread_name", pid, tid, num, strlen(num));
	}
	return 0;
}

/* the category of a kind as modern Kineto writes it, so that tools that read Kineto read it */
static const char *cat_name(uint8_t kind)
{
	return kind == GP_K_TRACE ? "Trace" : gp__kind_name((enum gp_kind)kind);
}

static bool is_gpu_op(uint8_t kind)
{
	return kind == GP_K_KERNEL || kind == GP_K_MEMCPY || kind == GP_K_MEMSET;
}

static char *arg_key(char *p, bool *first, const char *key)
{
	if (!*first)
		*p++ = ',';
	*first = false;
	*p++ = '"';
	p = fmt_lit(p, key);
	*p++ = '"';
	*p++ = ':';
	return p;
}

static char *arg_dim3(char *p, bool *first, const char *key, const int32_t v[3])
{
	int k;

	if (v[0] < 0 && v[1] < 0 && v[2] < 0)
		return p;
	p = arg_key(p, first, key);
	*p++ = '[';
	for (k = 0; k < 3; k++) {
		if (k)
			*p++ = ',';
		p = v[k] >= 0 ? fmt_i64(p, v[k]) : fmt_lit(p, "null");
	}
	*p++ = ']';
	return p;
}

static char *arg_dbl(char *p, bool *first, const char *key, double d)
{
	if (!isfinite(d))
		return p;
	return fmt_dbl(arg_key(p, first, key), d);
}

static char *arg_int(char *p, bool *first, const char *key, int64_t v)
{
	if (v < 0)
		return p;
	return fmt_i64(arg_key(p, first, key), v);
}

/* a string arg from the string table, when set (0: none) */
static int arg_sid(struct tctx *c, bool *first, const char *key, uint32_t sid)
{
	char *p;

	if (!sid || sid >= c->t->strs.n)
		return 0;
	if (!(p = reserve(c->w, SMALL_MAX)))
		return c->w->err;
	commit(c->w, arg_key(p, first, key));
	return put_sid(c, sid) ? c->w->err : 0;
}

/* an integer arg when known (>= 0) */
static int arg_num(struct tctx *c, bool *first, const char *key, int64_t v)
{
	char *p;

	if (v < 0)
		return 0;
	if (!(p = reserve(c->w, SMALL_MAX)))
		return c->w->err;
	commit(c->w, arg_int(p, first, key, v));
	return 0;
}

/* @p s[0..@p n) is one JSON value and nothing else */
static bool json_text_ok(const char *s, size_t n)
{
	struct gp_jscan js = { .end = s + n, .eof = true };
	const char *p = s;

	return n && gp__json_skip(&js, &p, 0) == 0 && gp__json_ws(p, s + n) == s + n;
}

/*
 * A JSON text arg from the string table (the record_shapes inputs of struct
 * gp_op_args), written as the JSON it is, when set and valid JSON.
 */
static int arg_text(struct tctx *c, bool *first, const char *key, uint32_t sid)
{
	const char *s;
	size_t n;
	char *p;

	if (!sid || sid >= c->t->strs.n)
		return 0;
	s = gp__strtab_get(&c->t->strs, sid);
	n = gp__strtab_strlen(&c->t->strs, sid);
	if (!json_text_ok(s, n))
		return 0;
	if (!(p = reserve(c->w, SMALL_MAX)))
		return c->w->err;
	commit(c->w, arg_key(p, first, key));
	return put_json_text(c->w, s, n) ? c->w->err : 0;
}

/*
 * The collective args (struct gp_coll_info) that sort before "External id"
 * (@p part 0), then those up to "Input Dims" (1), then the others up to
 * "block" (2): as PyTorch wrote them, so that the export's collectives
 * ledger is the trace's.
 */
static int write_coll_args(struct tctx *c, const struct gp_coll_info *ci, int part, bool *first)
{
	if (!ci)
		return 0;
	if (part == 0)
		return arg_num(c, first, "Dst Rank", ci->dst_rank);
	if (part == 1) {
		if (arg_num(c, first, "Group size", ci->group_size) ||
		    arg_num(c, first, "In msg nelems", ci->in_nelems) ||
		    arg_sid(c, first, "In split size", ci->in_split))
			return c->w->err;
		return 0;
	}
	if (arg_num(c, first, "Out msg nelems", ci->out_nelems) ||
	    arg_sid(c, first, "Out split size", ci->out_split) ||
	    arg_sid(c, first, "Process Group Description", ci->pg_desc) ||
	    arg_sid(c, first, "Process Group Name", ci->pg_name) ||
	    arg_sid(c, first, "Process Group Ranks", ci->pg_ranks) ||
	    arg_num(c, first, "Seq", ci->seq) || arg_num(c, first, "Src Rank", ci->src_rank))
		return c->w->err;
	return 0;
}

/* "args":{...}, (with its comma) when the event has any; keys in bytewise order */
static int write_args(struct tctx *c, size_t i)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	const struct gp_gpu_info *gi = t->ev.aux[i] < t->ngpu ? &t->gpu[t->ev.aux[i]] : NULL;
	const struct gp_coll_info *ci = t->ncoll ? gp__trace_coll(t, i) : NULL;
	const struct gp_op_args *oa = t->nopargs ? gp__trace_op_args(t, i) : NULL;
	const struct gp_sync_info *si = t->nsync ? gp__trace_sync(t, i) : NULL;
	uint32_t coll = gi && gi->collective ? gi->collective : ci ? ci->name : 0;
	int64_t stream = -1;
	bool first = true;
	char *p;

	/* only where the trace had it: analyses tell "no args.stream" apart (HTA's rows) */
	if (t->ev.flags[i] & GP_EVF_HAS_STREAM)
		stream = t->ev.stream[i];
	if (!gi && !ci && !oa && !si && t->ev.corr[i] < 0 && t->ev.ext[i] < 0 && stream < 0)
		return 0;
	if (put(w, "\"args\":{", 8))
		return w->err;
	if (coll && coll < t->strs.n) {
		if (puts_(w, "\"Collective name\":") || put_sid(c, coll))
			return w->err;
		first = false;
	}
	if ((oa && arg_text(c, &first, "Concrete Inputs", oa->concrete)) ||
	    write_coll_args(c, ci, 0, &first))
		return w->err;
	if (!(p = reserve(w, SMALL_MAX)))
		return w->err;
	p = arg_int(p, &first, "External id", t->ev.ext[i]);
	commit(w, p);
	if (write_coll_args(c, ci, 1, &first) ||
	    (oa && (arg_text(c, &first, "Input Dims", oa->dims) ||
	            arg_text(c, &first, "Input type", oa->types))) ||
	    write_coll_args(c, ci, 2, &first) || !(p = reserve(w, SMALL_MAX)))
		return w->err;
	if (gi) {
		p = arg_dim3(p, &first, "block", gi->block);
		p = arg_dbl(p, &first, "blocks per SM", gi->blocks_per_sm);
		p = arg_int(p, &first, "bytes", gi->bytes);
	}
	p = arg_int(p, &first, "correlation", t->ev.corr[i]);
	if (si && si->kind) {
		commit(w, p);
		if (arg_sid(c, &first, "cuda_sync_kind", si->kind) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
	}
	if (gi)
		p = arg_int(p, &first, "device", gp__ev_device(t, i));
	if (ci && ci->dtype) {
		commit(w, p);
		if (arg_sid(c, &first, "dtype", ci->dtype) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
	}
	if (gi) {
		p = arg_dbl(p, &first, "est. achieved occupancy %", gi->occupancy_pct);
		p = arg_dim3(p, &first, "grid", gi->grid);
		p = arg_dbl(p, &first, "memory bandwidth (GB/s)", gi->bw_gbps);
		p = arg_int(p, &first, "registers per thread", gi->regs);
		p = arg_int(p, &first, "shared memory", gi->shmem);
	}
	p = arg_int(p, &first, "stream", stream);
	if (si) {
		p = arg_int(p, &first, "wait_on_cuda_event_id", si->wait_event_id);
		p = arg_int(p, &first, "wait_on_cuda_event_record_corr_id", si->wait_event_corr);
		p = arg_int(p, &first, "wait_on_stream", si->wait_stream);
	}
	if (gi)
		p = arg_dbl(p, &first, "warps per SM", gi->warps_per_sm);
	*p++ = '}';
	*p++ = ',';
	commit(w, p);
	return 0;
}

/* "cat":KIND,"dur":D,"name":NAME,"ph":"X" ... or the "b"/"e" of an async slice */
static int write_event(struct tctx *c, size_t i)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	uint32_t tr = t->ev.track[i];
	const struct proc *pr;
	int64_t ts = t->ev.ts[i];
	bool async;
	int half;
	char *p;

	if (tr >= t->ntracks)
		return 0; /* not in a valid model */
	pr = &c->procs[c->tproc[tr]];
	/* NVTX start/end ranges need not nest: async slices, on a track of their name */
	async = (t->ev.flags[i] & GP_EVF_STARTEND) && !pr->gpu;
	for (half = 0; half < (async ? 2 : 1); half++) {
		if (ev_begin(w) || (half == 0 && write_args(c, i)) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		p = fmt_lit(p, "\"cat\":\"");
		p = fmt_lit(p, cat_name(t->ev.kind[i]));
		if (!async) {
			p = fmt_lit(p, "\",\"dur\":");
			p = fmt_t(w, p, t->ev.dur[i]);
			p = fmt_lit(p, ",");
		} else {
			p = fmt_lit(p, "\",\"id\":");
			p = fmt_u64(p, w->async_id);
			p = fmt_lit(p, ",");
		}
		p = fmt_lit(p, "\"name\":");
		commit(w, p);
		if (put_sid(c, t->ev.name[i]) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		p = fmt_lit(p, !async ? ",\"ph\":\"X\",\"pid\":"
		               : half ? ",\"ph\":\"e\",\"pid\":"
		                      : ",\"ph\":\"b\",\"pid\":");
		p = fmt_i64(p, pr->cpid);
		p = fmt_lit(p, ",\"tid\":");
		p = fmt_i64(p, c->ttid[tr]);
		p = fmt_lit(p, ",\"ts\":");
		p = fmt_t(w, p, (half ? ts + t->ev.dur[i] : ts) - w->origin);
		*p++ = '}';
		commit(w, p);
	}
	if (async)
		w->async_id++;
	w->st.events++;
	return 0;
}

/*
 * The nn.Module calls (t->pymod) as the python_function events Kineto
 * writes for them, so that a reader of Kineto traces finds them again:
 * {"args":{"Python id":I,"Python parent id":P|null},"cat":"python_function",
 * "dur":D,"name":NAME,"ph":"X","pid":P,"tid":T,"ts":TS}.
 */
static int write_modules(struct tctx *c)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	size_t i;
	char *p;

	for (i = 0; i < t->npymod; i++) {
		const struct gp_py_module *m = &t->pymod[i];
		bool first = true;

		if (m->track >= t->ntracks)
			continue;
		if (ev_begin(w) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		p = fmt_lit(p, "\"args\":{");
		p = arg_int(p, &first, "Python id", m->id);
		p = arg_key(p, &first, "Python parent id");
		p = m->parent >= 0 ? fmt_i64(p, m->parent) : fmt_lit(p, "null");
		p = fmt_lit(p, "},\"cat\":\"python_function\",\"dur\":");
		p = fmt_t(w, p, m->dur);
		p = fmt_lit(p, ",\"name\":");
		commit(w, p);
		if (put_sid(c, m->name) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		p = fmt_lit(p, ",\"ph\":\"X\",\"pid\":");
		p = fmt_i64(p, c->procs[c->tproc[m->track]].cpid);
		p = fmt_lit(p, ",\"tid\":");
		p = fmt_i64(p, c->ttid[m->track]);
		p = fmt_lit(p, ",\"ts\":");
		p = fmt_t(w, p, m->ts - w->origin);
		*p++ = '}';
		commit(w, p);
		w->st.events++;
	}
	return 0;
}

/* one end of a flow: "s" at the API call, "f" (bound to the enclosing slice) at the GPU op */
static int write_flow_end(struct tctx *c, size_t i, bool finish, uint64_t id)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	uint32_t tr = t->ev.track[i];
	char *p;

	if (ev_begin(w) || !(p = reserve(w, SMALL_MAX)))
		return w->err;
	p = fmt_lit(p,
	            finish ? "\"bp\":\"e\",\"cat\":\"ac2g\",\"id\":" : "\"cat\":\"ac2g\",\"id\":");
	p = fmt_u64(p, id);
	p = fmt_lit(p, finish ? ",\"name\":\"ac2g\",\"ph\":\"f\",\"pid\":"
	                      : ",\"name\":\"ac2g\",\"ph\":\"s\",\"pid\":");
	p = fmt_i64(p, c->procs[c->tproc[tr]].cpid);
	p = fmt_lit(p, ",\"tid\":");
	p = fmt_i64(p, c->ttid[tr]);
	p = fmt_lit(p, ",\"ts\":");
	p = fmt_t(w, p, t->ev.ts[i] - w->origin);
	*p++ = '}';
	commit(w, p);
	return 0;
}

#define FLOW_USED (UINT64_C(1) << 63)

/* flows from each API call to the GPU operations with its correlation id */
static int write_flows(struct tctx *c)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	struct gp_u64map api;
	int64_t maxcorr = -1;
	uint64_t ndup = 0, nflows = 0, v;
	size_t i, napi = 0;
	bool dense;
	int pass, rc = 0;

	memset(&api, 0, sizeof(api));
	for (i = 0; i < t->ev.n; i++) {
		uint8_t k = t->ev.kind[i];

		if (t->ev.corr[i] < 0)
			continue;
		if (k == GP_K_RUNTIME || k == GP_K_DRIVER)
			napi++;
		if ((k == GP_K_RUNTIME || k == GP_K_DRIVER || is_gpu_op(k)) &&
		    t->ev.corr[i] > maxcorr)
			maxcorr = t->ev.corr[i];
	}
	if (!napi)
		return 0;
	GP_TRY(gp__u64map_init(&api, napi));
	/* the runtime call when both a runtime and a driver call carry the id */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < t->ev.n; i++)
			if (t->ev.corr[i] >= 0 &&
			    t->ev.kind[i] == (pass ? GP_K_DRIVER : GP_K_RUNTIME) &&
			    t->ev.track[i] < t->ntracks)
				GP_TRY(gp__u64map_put_new(&api, (uint64_t)t->ev.corr[i], i, NULL));

	dense = maxcorr >= FLOW_CORR_MAX;
	for (i = 0; i < t->ev.n; i++) {
		uint64_t id;
		size_t a;

		if (!is_gpu_op(t->ev.kind[i]) || t->ev.corr[i] < 0 ||
		    t->ev.track[i] >= t->ntracks ||
		    gp__u64map_get(&api, (uint64_t)t->ev.corr[i], &v) != 1)
			continue;
		a = (size_t)(v & ~FLOW_USED);
		if (dense)
			id = w->flow_base + nflows;
		else if (v & FLOW_USED)
			id = w->flow_base + (uint64_t)maxcorr + 1 + ndup++;
		else
			id = w->flow_base + (uint64_t)t->ev.corr[i];
		if (!(v & FLOW_USED))
			GP_TRY(gp__u64map_put(&api, (uint64_t)t->ev.corr[i], v | FLOW_USED));
		GP_TRY(write_flow_end(c, a, false, id));
		GP_TRY(write_flow_end(c, i, true, id));
		nflows++;
	}
	w->flow_base += dense ? nflows : (uint64_t)maxcorr + 1 + ndup;
	w->st.flows += nflows;
out:
	gp__u64map_release(&api);
	return rc;
}

/* the end of a counter event at @p p (room reserved): ,"ph":"C","pid":P,"tid":P,"ts":T} */
static void counter_end(struct gp_chrome_writer *w, char *p, int64_t pid, int64_t ts_ns)
{
	p = fmt_lit(p, ",\"ph\":\"C\",\"pid\":");
	p = fmt_i64(p, pid);
	p = fmt_lit(p, ",\"tid\":");
	p = fmt_i64(p, pid);
	p = fmt_lit(p, ",\"ts\":");
	p = fmt_t(w, p, ts_ns - w->origin);
	*p++ = '}';
	commit(w, p);
	w->st.counters++;
}

/* the process of a memory event's counter: its GPU's, else its thread's; -1 none */
static int64_t mem_pid(const struct tctx *c, const struct gp_mem_event *m)
{
	uint64_t v;

	if (m->device_type == 1 && m->device >= 0 &&
	    gp__u64map_get(&c->gpu_dev, (uint64_t)(int64_t)m->device, &v) == 1)
		return c->procs[v].cpid;
	if (m->track < c->t->ntracks)
		return c->procs[c->tproc[m->track]].cpid;
	return -1;
}

/* the device whose allocations add up, as analyze's memory section keys them */
static uint64_t mem_dev(const struct gp_mem_event *m)
{
	if (m->device_type == 0 || (m->device_type < 0 && m->device < 0))
		return UINT64_MAX;
	return (uint64_t)(uint32_t)m->device;
}

/*
 * One PyTorch memory event, as Kineto writes it (an instant "[memory]" on its
 * thread, its known fields in args), so that a reader of Kineto traces finds
 * it again: {"args":{...},"cat":"cpu_instant_event","name":"[memory]",
 * "ph":"i","pid":P,"s":"t","tid":T,"ts":TS}.
 */
static int write_mem_instant(struct tctx *c, const struct gp_mem_event *m)
{
	struct gp_chrome_writer *w = c->w;
	bool first = true;
	char *p;

	if (m->track >= c->t->ntracks)
		return 0;
	if (ev_begin(w) || !(p = reserve(w, SMALL_MAX)))
		return w->err;
	p = fmt_lit(p, "\"args\":{");
	p = arg_int(p, &first, "Addr", m->addr);
	p = fmt_i64(arg_key(p, &first, "Bytes"), m->bytes);
	p = arg_int(p, &first, "Device Id", m->device);
	p = arg_int(p, &first, "Device Type", m->device_type);
	p = arg_int(p, &first, "Total Allocated", m->total_allocated);
	p = arg_int(p, &first, "Total Reserved", m->total_reserved);
	p = fmt_lit(p,
	            "},\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"ph\":\"i\",\"pid\":");
	p = fmt_i64(p, c->procs[c->tproc[m->track]].cpid);
	p = fmt_lit(p, ",\"s\":\"t\",\"tid\":");
	p = fmt_i64(p, c->ttid[m->track]);
	p = fmt_lit(p, ",\"ts\":");
	p = fmt_t(w, p, m->ts - w->origin);
	*p++ = '}';
	commit(w, p);
	return 0;
}

/*
 * PyTorch memory events (profile_memory=True), in time order: each as
 * Kineto's instant event, and a counter "memory" of the allocated and
 * reserved bytes for viewers. The allocated bytes are the events' "Total
 * Allocated" when every event of the device has it, else the running sum of
 * their "Bytes" (2021 traces have only those), as analyze's memory section
 * computes them.
 */
static int write_mem(struct tctx *c)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	struct gp_u64map partial, sums;
	struct gp_kv *ord = NULL;
	size_t i;
	uint64_t v;
	int rc = 0;

	if (!t->nmem)
		return 0;
	memset(&partial, 0, sizeof(partial));
	memset(&sums, 0, sizeof(sums));
	if (!(ord = gp__calloc(t->nmem, sizeof(*ord))))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->nmem; i++) {
		ord[i].key = t->mem[i].ts;
		ord[i].val = i;
		if (t->mem[i].total_allocated < 0)
			GP_TRY(gp__u64map_put(&partial, mem_dev(&t->mem[i]), 1));
	}
	GP_TRY(gp__sort_kv(ord, t->nmem));
	for (i = 0; i < t->nmem; i++) {
		const struct gp_mem_event *m = &t->mem[ord[i].val];
		int64_t pid = mem_pid(c, m), sum = 0, alloc;
		uint64_t dev = mem_dev(m);
		bool first = true;
		char *p;

		GP_TRY(write_mem_instant(c, m));
		if (gp__u64map_get(&sums, dev, &v) == 1)
			sum = (int64_t)v;
		sum += m->bytes; /* the sum of |Bytes| fits (model.h) */
		GP_TRY(gp__u64map_put(&sums, dev, (uint64_t)sum));
		alloc = gp__u64map_get(&partial, dev, &v) == 1 ? sum : m->total_allocated;
		if (pid < 0)
			continue;
		if (ev_begin(w) || !(p = reserve(w, SMALL_MAX))) {
			rc = w->err;
			goto out;
		}
		p = fmt_lit(p, "\"args\":{\"allocated_bytes\":");
		p = fmt_i64(p, alloc);
		first = false;
		p = arg_int(p, &first, "reserved_bytes", m->total_reserved);
		p = fmt_lit(p, "},\"name\":\"memory\"");
		counter_end(w, p, pid, m->ts);
	}
out:
	gp__free(ord);
	gp__u64map_release(&partial);
	gp__u64map_release(&sums);
	return rc;
}

/*
 * The counters of a capture (GPUPROF_COUNTER of the annotation API): one
 * counter event per sample on its thread's process,
 * {"args":{"value":V},"name":NAME,"ph":"C","pid":P,"tid":P,"ts":T}.
 */
static int write_counters(struct tctx *c)
{
	const struct gp_trace *t = c->t;
	struct gp_chrome_writer *w = c->w;
	size_t i;

	for (i = 0; i < t->nctr; i++) {
		const struct gp_counter_sample *s = &t->ctr[i];
		int64_t pid;
		char *p;

		if (s->track >= t->ntracks || !isfinite(s->value))
			continue;
		pid = c->procs[c->tproc[s->track]].cpid;
		if (ev_begin(w) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		p = fmt_lit(p, "\"args\":{\"value\":");
		p = fmt_dbl(p, s->value);
		p = fmt_lit(p, "},\"name\":");
		commit(w, p);
		if (put_sid(c, s->name) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		counter_end(w, p, pid, s->ts);
	}
	return 0;
}

/*
 * The metadata of a trace that is not the document's own (several traces):
 * {"args":{...},"name":"trace_metadata","ph":"M","pid":P} on its first
 * process, so that each rank's deviceProperties and distributedInfo stay.
 */
static int write_trace_meta(struct tctx *c)
{
	struct gp_chrome_writer *w = c->w;
	struct gp_value *m;
	size_t k = 0;
	char *p;
	int rc = 0;

	if (!c->nprocs)
		return 0;
	while (k + 1 < c->nprocs && c->procs[k].gpu)
		k++; /* a host process, where there is one */
	if (!(m = gp_value_object()))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(trace_meta(c->t, false, m, NULL));
	if (!gp_value_len(m))
		goto out;
	if (ev_begin(w) || puts_(w, "\"args\":") || put_value(w, m, false) ||
	    !(p = reserve(w, SMALL_MAX))) {
		rc = w->err;
		goto out;
	}
	p = fmt_lit(p, ",\"name\":\"trace_metadata\",\"ph\":\"M\",\"pid\":");
	p = fmt_i64(p, c->procs[k].cpid);
	*p++ = '}';
	commit(w, p);
out:
	gp_value_free(m);
	return rc;
}

/* whether every time of @p t is a whole µs, as the Kineto trace it was read from wrote it */
static bool whole_us(const struct gp_trace *t, int64_t origin)
{
	size_t i;

	if (t->ts_float)
		return false;
	for (i = 0; i < t->ev.n; i++)
		if ((t->ev.ts[i] - origin) % 1000 || t->ev.dur[i] % 1000)
			return false;
	for (i = 0; i < t->nmem; i++)
		if ((t->mem[i].ts - origin) % 1000)
			return false;
	for (i = 0; i < t->nctr; i++)
		if ((t->ctr[i].ts - origin) % 1000)
			return false;
	for (i = 0; i < t->npymod; i++)
		if ((t->pymod[i].ts - origin) % 1000 || t->pymod[i].dur % 1000)
			return false;
	return true;
}

static void tctx_release(struct tctx *c)
{
	gp__free(c->procs);
	gp__free(c->tproc);
	gp__free(c->ttid);
	gp__free(c->sclean);
	gp__free(c->gpu_order);
	gp__u64map_release(&c->host_num);
	gp__u64map_release(&c->host_str);
	gp__u64map_release(&c->gpu_dev);
	gp__u64map_release(&c->named);
}

GP_API int gp_chrome_writer_add_trace(struct gp_chrome_writer *w, const struct gp_trace *t,
                                      const char *label)
{
	struct tctx c;
	size_t i;
	int rc = 0;

	if (!w || !t)
		return gp__error(GP_EINVAL, "no writer or no trace");
	if (w->err)
		return w->err;
	if (w->finished)
		return gp__error(GP_EINVAL, "the trace document is already finished");
	if (start(w, t))
		return w->err;
	memset(&c, 0, sizeof(c));
	c.w = w;
	c.t = t;
	c.label = label && *label ? label : NULL;
	c.sclean = gp__calloc(t->strs.n ? t->strs.n : 1, 1);
	if (!c.sclean)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	capture_exe(&c);
	GP_TRY(map_tracks(&c));
	for (i = 0; i < c.nprocs; i++)
		if (!c.procs[i].gpu)
			GP_TRY(write_proc_meta(&c, &c.procs[i]));
	for (i = 0; i < c.ngpus; i++)
		GP_TRY(write_proc_meta(&c, &c.procs[c.gpu_order[i]]));
	for (i = 0; i < t->ntracks; i++)
		GP_TRY(write_thread_meta(&c, (uint32_t)i));
	/* the first trace's metadata may be the document's own (start()) */
	if (!(w->meta_top && w->st.traces == 0))
		GP_TRY(write_trace_meta(&c));
	w->whole_us = whole_us(t, w->origin);
	for (i = 0; i < t->ev.n; i++)
		GP_TRY(write_event(&c, i));
	GP_TRY(write_modules(&c));
	GP_TRY(write_flows(&c));
	GP_TRY(write_mem(&c));
	GP_TRY(write_counters(&c));
	w->st.traces++;
out:
	w->whole_us = false;
	tctx_release(&c);
	if (rc && !w->err)
		w->err = rc;
	if (rc)
		gp__error_prefix("%s", t->path ? t->path : "<trace>");
	return rc;
}

/* ---- metrics timelines ---- */

/* the process of a metrics series: "gpuN." -> GPU N, everything else the host */
static int series_gpu(const char *name, const char **rest)
{
	int g = 0;

	*rest = name;
	if (strncmp(name, "gpu", 3) != 0 || name[3] < '0' || name[3] > '9')
		goto host;
	for (name += 3; *name >= '0' && *name <= '9' && g < GP_METRICS_MAX_GPUS; name++)
		g = g * 10 + (*name - '0');
	if (*name != '.' || g >= GP_METRICS_MAX_GPUS)
		goto host;
	*rest = name + 1;
	return g;
host:
	if (strncmp(*rest, "host.", 5) == 0)
		*rest += 5;
	return -1;
}

static int metrics_proc(struct gp_chrome_writer *w, const struct gp_metrics_timeline *m, int gpu,
                        int64_t *pid)
{
	char name[64];
	int rc;

	*pid = w->next_pid++;
	if (gpu >= 0)
		snprintf(name, sizeof(name), "GPU %d metrics", gpu);
	else
		snprintf(name, sizeof(name), "host metrics");
	if ((rc = meta_name(w, m->hostname, "process_name", *pid, INT64_MIN, name, strlen(name))))
		return rc;
	if (gpu >= 0 && (unsigned)gpu < m->ngpus && m->gpus[gpu].name && *m->gpus[gpu].name) {
		char *q;

		if (ev_begin(w) || puts_(w, "\"args\":{\"labels\":") ||
		    put_jstr(w, m->gpus[gpu].name, strlen(m->gpus[gpu].name)) ||
		    !(q = reserve(w, SMALL_MAX)))
			return w->err;
		q = fmt_lit(q, "},\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":");
		q = fmt_i64(q, *pid);
		*q++ = '}';
		commit(w, q);
	}
	return meta_sort(w, "process_sort_index", *pid, INT64_MIN, w->sort_metric++);
}

/* {"args":{"value":V},"name":NAME,"ph":"C","pid":P,"tid":P,"ts":T} for each known value */
static int write_series(struct gp_chrome_writer *w, const struct gp_metrics_series *s,
                        const char *name, int64_t pid)
{
	size_t i, nlen = strlen(name);

	for (i = 0; i < s->n; i++) {
		char *p;

		if (!isfinite(s->v[i]))
			continue; /* unknown: no point */
		if (s->t_ns[i] < -GP_TIME_LIMIT || s->t_ns[i] > GP_TIME_LIMIT)
			continue; /* not a time */
		if (ev_begin(w) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		p = fmt_lit(p, "\"args\":{\"value\":");
		p = fmt_dbl(p, s->v[i]);
		p = fmt_lit(p, "},\"name\":");
		commit(w, p);
		if (put_jstr(w, name, nlen) || !(p = reserve(w, SMALL_MAX)))
			return w->err;
		counter_end(w, p, pid, s->t_ns[i]);
	}
	return 0;
}

int gp__chrome_writer_add_timeline(struct gp_chrome_writer *w, const struct gp_metrics_timeline *m)
{
	int64_t pids[GP_METRICS_MAX_GPUS + 1];
	size_t i;
	int rc;

	if (!w || !m)
		return gp__error(GP_EINVAL, "no writer or no timeline");
	if (w->err)
		return w->err;
	if (w->finished)
		return gp__error(GP_EINVAL, "the trace document is already finished");
	if (start(w, NULL))
		return w->err;
	/* pids[0]: the host, pids[1 + g]: GPU g; made when a series needs them */
	for (i = 0; i < GP_ARRAY_SIZE(pids); i++)
		pids[i] = -1;
	for (i = 0; i < m->nseries; i++) {
		const struct gp_metrics_series *s = &m->series[i];
		const char *rest;
		int g;

		if (!s->name || !s->v || !s->t_ns)
			continue;
		g = series_gpu(s->name, &rest);
		if (pids[g + 1] < 0 && (rc = metrics_proc(w, m, g, &pids[g + 1])))
			return rc;
		if ((rc = write_series(w, s, rest, pids[g + 1])))
			return rc;
	}
	w->st.timelines++;
	return 0;
}

GP_API int gp_chrome_writer_add_metrics(struct gp_chrome_writer *w, const char *path)
{
	struct gp_metrics_timeline *m = NULL;
	int rc;

	if (!w || !path)
		return gp__error(GP_EINVAL, "no writer or no metrics file");
	if (w->err)
		return w->err;
	/* nothing written yet on a read error: the writer stays usable */
	if ((rc = gp__metrics_timeline_read(path, &m)))
		return rc;
	rc = gp__chrome_writer_add_timeline(w, m);
	gp__metrics_timeline_free(m);
	return rc;
}

/* ---- the document ---- */

GP_API int gp_chrome_writer_new(gp_write_fn write, void *user, struct gp_chrome_writer **out)
{
	struct gp_chrome_writer *w;

	*out = NULL;
	if (!write)
		return gp__error(GP_EINVAL, "no write function");
	w = gp__calloc(1, sizeof(*w));
	if (!w || !(w->buf = gp__malloc(OUTBUF_SIZE))) {
		gp__free(w);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	w->write = write;
	w->user = user;
	w->next_pid = SYNTH_BASE;
	w->async_id = 1;
	w->sort_gpu = SORT_GPU;
	w->sort_metric = SORT_METRIC;
	*out = w;
	return 0;
}

void gp__chrome_writer_expect_traces(struct gp_chrome_writer *w, size_t n)
{
	if (w && !w->started)
		w->several = n > 1;
}

GP_API int gp_chrome_writer_finish(struct gp_chrome_writer *w)
{
	if (!w)
		return gp__error(GP_EINVAL, "no writer");
	if (w->err || start(w, NULL))
		return w->err;
	if (!w->finished) {
		if (puts_(w, "\n]") || (w->tail && put_json_text(w, w->tail, w->tail_len)) ||
		    puts_(w, w->tail ? "\n" : "}\n"))
			return w->err;
		w->finished = true;
	}
	return flush_buf(w);
}

GP_API void gp_chrome_writer_stats(const struct gp_chrome_writer *w, struct gp_export_stats *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	*out = w->st;
	out->bytes += w->len;
}

GP_API void gp_chrome_writer_free(struct gp_chrome_writer *w)
{
	if (!w)
		return;
	gp__u64map_release(&w->real_pids);
	gp_free(w->tail);
	gp__free(w->buf);
	gp__free(w);
}
