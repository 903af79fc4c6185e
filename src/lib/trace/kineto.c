/* SPDX-License-Identifier: MIT */
/*
 * kineto.c - the streaming reader of PyTorch profiler (Kineto) Chrome-trace
 * JSON, plain or gzip, into the trace model (model.h).
 *
 * The input is read in chunks into one contiguous window. The document is
 * walked by a small state machine whose unit of work is one top-level member
 * or one element of traceEvents: a unit is parsed without side effects into
 * a struct evrec (string slices point into the window) and committed to the
 * trace only when complete. A unit that runs into the window's end (GP_ETRUNC
 * before the end of the input) is retried after the window is refilled: its
 * bytes move to the front and more are read behind them; the window doubles
 * only for a single unit larger than itself, up to GP_KINETO_MAX_UNIT.
 * Memory therefore grows with the events kept, not with the file.
 *
 * This file owns the window and its refill, the document state machine and
 * the top-level members, the salvage and the open API. The elements of
 * traceEvents are parsed by kineto-events.c and committed by
 * kineto-commit.c; kineto-int.h holds the shared struct reader
 * (docs/internals/kineto-reader.md).
 *
 * Every error names the input and the (uncompressed) byte offset. With
 * opts->salvage, damage after traceEvents has begun keeps what was committed.
 * Called by gp_trace_open()/gp_trace_open_mem(); the fuzzers call the latter.
 */
#include <string.h>

#include "gpuprof/trace.h"
#include "input.h"
#include "kineto-int.h"
#include "model.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json-scan.h"

size_t gp__kineto_test_window;

/* ---- window ---- */

static uint64_t off_of(const struct reader *r, const char *at)
{
	return r->base_off + (uint64_t)(at - r->win);
}

/* Moves the current unit to the front, grows if it fills the window, reads more. */
static int refill(struct reader *r)
{
	size_t keep = r->len - r->pos, got = 0, want;
	int rc;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, keep);
		r->base_off += r->pos;
		r->pos = 0;
		r->len = keep;
	}
	if (r->len == r->cap) {
		size_t ncap = r->cap * 2;
		char *nb;

		if (r->cap >= GP_KINETO_MAX_UNIT)
			return gp__error(
			    GP_ELIMIT,
			    "%s: byte %llu%s: a single event or value is larger than %u MiB",
			    r->name, (unsigned long long)r->base_off,
			    r->gzip ? " (uncompressed)" : "", GP_KINETO_MAX_UNIT >> 20);
		if (ncap > GP_KINETO_MAX_UNIT)
			ncap = GP_KINETO_MAX_UNIT;
		nb = gp__reallocarray(r->buf, ncap, 1);
		if (!nb)
			return gp__error(GP_ENOMEM,
			                 "%s: out of memory growing the read window to %zu bytes",
			                 r->name, ncap);
		r->buf = nb;
		r->cap = ncap;
	}
	r->win = r->buf;
	/*
	 * Read a little at a time: the parser then finds the bytes still in
	 * cache, and the unit moved to the front is short.
	 */
	want = r->cap - r->len;
	if (want > GP_KINETO_READ)
		want = GP_KINETO_READ;
	if ((rc = gp__input_read(r->in, r->buf + r->len, want, &got))) {
		gp__error_prefix("%s: byte %llu%s", r->name,
		                 (unsigned long long)(r->base_off + r->len),
		                 r->gzip ? " (uncompressed)" : "");
		return rc;
	}
	r->gzip = gp__input_is_gzip(r->in);
	if (got == 0)
		r->eof = true;
	r->len += got;
	r->t->bytes_read = r->base_off + r->len;
	return 0;
}

/* ---- the document ---- */

static int salvageable(int rc)
{
	return rc == GP_EFORMAT || rc == GP_ETRUNC || rc == GP_ELIMIT;
}

/* A top-level member other than traceEvents: parsed into t->meta. */
static int parse_member(struct reader *r, const char **pp)
{
	const char *p = *pp, *end = r->s.end;
	struct gp_value *v = NULL;
	struct gp_str key;
	bool esc;
	int rc;

	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (*p != '"')
		return gp__json_fail(&r->s, p, GP_EFORMAT, "expected string key in object");
	if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
		return rc;
	p = gp__json_ws(p, end);
	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (*p != ':')
		return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ':' after object key");
	p = gp__json_ws(p + 1, end);
	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (!esc && KEY_IS(&key, "traceEvents")) {
		if (*p != '[')
			return gp__json_fail(&r->s, p, GP_EFORMAT,
			                     "\"traceEvents\" is not an array");
		if (r->saw_events)
			return gp__json_fail(&r->s, p, GP_EFORMAT, "second \"traceEvents\" array");
		r->saw_events = true;
		r->in_events = true;
		r->st = ST_EV_FIRST;
		*pp = p + 1;
		return 0;
	}
	if ((rc = gp__json_parse_value(&r->s, &p, GP_KINETO_DEPTH, &v)))
		return rc;
	/* committed: the key is NUL-terminated in the scratch buffer */
	gp_buf_reset(&r->scratch);
	if (gp_buf_grow(&r->scratch, key.len + 1)) {
		gp_value_free(v);
		return gp__json_fail(&r->s, *pp, GP_ENOMEM, "out of memory");
	}
	r->scratch.len = esc ? gp__json_unescape(key.p, key.len, r->scratch.buf) : key.len;
	if (!esc)
		memcpy(r->scratch.buf, key.p, key.len);
	r->scratch.buf[r->scratch.len] = '\0';
	if (gp_obj_set(r->t->meta, r->scratch.buf, v))
		return gp__json_fail(&r->s, *pp, GP_ENOMEM, "out of memory");
	r->st = ST_OBJ_SEP;
	*pp = p;
	return 0;
}

/* One unit of work from *pp; GP_ETRUNC when the window ends inside it. */
static int step(struct reader *r, const char **pp)
{
	const char *p = gp__json_ws(*pp, r->s.end), *end = r->s.end;

	if (p >= end) {
		if (r->st == ST_END && r->eof) {
			r->st = ST_DONE;
			*pp = p;
			return 0;
		}
		if (r->st == ST_START && r->eof && r->base_off + (uint64_t)(end - r->win) == 0)
			return gp__json_fail(&r->s, p, GP_EFORMAT, "empty input");
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	}
	switch (r->st) {
	case ST_START:
		if (*p == '{') {
			r->st = ST_OBJ_FIRST;
		} else if (*p == '[') {
			r->t->bare_array = true;
			r->saw_events = true;
			r->in_events = true;
			r->st = ST_EV_FIRST;
		} else {
			return gp__json_fail(&r->s, p, GP_EFORMAT,
			                     "not a trace: expected '{' or '[' at the start");
		}
		*pp = p + 1;
		return 0;
	case ST_OBJ_FIRST:
		if (*p == '}') {
			r->st = ST_END;
			*pp = p + 1;
			return 0;
		}
		r->st = ST_OBJ_MEMBER;
		*pp = p;
		return 0;
	case ST_OBJ_MEMBER:
		*pp = p;
		return parse_member(r, pp);
	case ST_OBJ_SEP:
		if (*p == ',') {
			r->st = ST_OBJ_MEMBER;
		} else if (*p == '}') {
			r->st = ST_END;
		} else {
			return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ',' or '}' in object");
		}
		*pp = p + 1;
		return 0;
	case ST_EV_FIRST:
		if (*p == ']') {
			r->in_events = false;
			r->st = r->t->bare_array ? ST_END : ST_OBJ_SEP;
			*pp = p + 1;
			return 0;
		}
		r->st = ST_EV_ELEM;
		*pp = p;
		return 0;
	case ST_EV_ELEM:
		*pp = p;
		return gp__kineto_events(r, pp);
	case ST_END:
		return gp__json_fail(&r->s, p, GP_EFORMAT,
		                     "trailing characters after the JSON document");
	case ST_DONE:
		return 0;
	}
	return 0;
}

static int finish(struct reader *r)
{
	struct gp_trace *t = r->t;
	const struct gp_value *v;
	int64_t x;
	size_t i;

	v = gp_obj_get(t->meta, "distributedInfo");
	if (gp_value_get_int(gp_obj_get(v, "rank"), &x))
		t->rank = x;
	if (gp_value_get_int(gp_obj_get(v, "world_size"), &x))
		t->world_size = x;
	v = gp_obj_get(t->meta, "baseTimeNanoseconds");
	if (!v)
		return 0;
	if (!gp_value_get_int(v, &x))
		return gp__error(GP_EFORMAT, "%s: \"baseTimeNanoseconds\" is not an integer",
		                 r->name);
	t->has_base = true;
	t->base_ns = x;
	for (i = 0; i < t->ev.n; i++)
		if (__builtin_add_overflow(t->ev.ts[i], x, &t->ev.ts[i]))
			goto range;
	for (i = 0; i < t->nmem; i++)
		if (__builtin_add_overflow(t->mem[i].ts, x, &t->mem[i].ts))
			goto range;
	return 0;
range:
	return gp__error(GP_EFORMAT, "%s: timestamps plus \"baseTimeNanoseconds\" out of range",
	                 r->name);
}

static int read_doc(struct reader *r)
{
	int rc;

	for (;;) {
		const char *p = r->win + r->pos;

		r->s.end = r->win + r->len;
		r->s.eof = r->eof;
		r->s.err_at = NULL;
		r->s.err_msg = NULL;
		rc = step(r, &p);
		if (rc == 0) {
			r->pos = (size_t)(p - r->win);
			if (r->st == ST_DONE)
				break;
			continue;
		}
		r->pos = (size_t)(p - r->win); /* a committed element before a bad separator */
		r->fail_unit = r->win + r->pos;
		if (rc == GP_ETRUNC && !r->eof) {
			if ((rc = refill(r)) == 0)
				continue;
			r->fail_unit = r->win + r->pos;
			return rc;
		}
		if (rc == GP_ENOMEM)
			return gp__error(GP_ENOMEM, "%s: out of memory", r->name);
		if (!r->s.err_msg) /* an error from the model, already described */
			return rc;
		return gp__error(rc, "%s: byte %llu%s: %s", r->name,
		                 (unsigned long long)off_of(r, r->s.err_at ? r->s.err_at : p),
		                 r->gzip ? " (uncompressed)" : "", r->s.err_msg);
	}
	if (!r->saw_events)
		return gp__error(GP_EFORMAT,
		                 "%s: byte %llu%s: no \"traceEvents\" array in the trace", r->name,
		                 (unsigned long long)off_of(r, r->win + r->len),
		                 r->gzip ? " (uncompressed)" : "");
	return 0;
}

static void opts_get(const struct gp_open_opts *in, struct gp_open_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (!in)
		return;
	memcpy(o, in, in->size && in->size < sizeof(*o) ? in->size : sizeof(*o));
}

static int open_input(struct gp_input *in, const char *name, const struct gp_open_opts *uopts,
                      struct gp_trace **out)
{
	struct gp_open_opts opts;
	struct reader r;
	const char *mp;
	size_t mn;
	int rc;

	opts_get(uopts, &opts);
	memset(&r, 0, sizeof(r));
	gp_buf_init(&r.scratch, 0);
	r.name = name;
	r.salvage = opts.salvage;
	r.max_events = opts.max_events;
	r.in = in;
	r.st = ST_START;
	if ((rc = gp__trace_new(name, &r.t)))
		goto out;
	r.t->meta = gp_value_object();
	if (!r.t->meta) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = gp_strtab_intern(&r.t->strs, "python_function", 15, &r.id_python)) ||
	    (rc = gp_strtab_intern(&r.t->strs, "cpu_instant_event", 17, &r.id_instant)))
		goto out;
	if (!gp__kineto_test_window && gp__input_mem_view(in, &mp, &mn)) {
		r.win = mp;
		r.len = mn;
		r.eof = true;
		r.t->bytes_read = mn;
	} else {
		r.cap = gp__kineto_test_window ? gp__kineto_test_window : GP_KINETO_WINDOW;
		r.buf = gp__malloc(r.cap);
		if (!r.buf) {
			rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
		r.win = r.buf;
		if ((rc = refill(&r)))
			goto out;
	}
	rc = read_doc(&r);
	if (rc && r.salvage && r.in_events && salvageable(rc)) {
		uint64_t total, dmg = off_of(&r, r.fail_unit ? r.fail_unit : r.win + r.pos);

		if (!gp__input_size(in, &total))
			total = r.base_off + r.len;
		gp__log(GP_LOG_WARN, "%s (salvaged what precedes it)", gp_last_error());
		r.t->salvaged = true;
		r.t->damage_offset = dmg;
		r.t->lost_bytes = total > dmg ? total - dmg : 0;
		rc = 0;
	}
	if (rc)
		goto out;
	rc = finish(&r);
out:
	gp__free(r.buf);
	gp_buf_release(&r.scratch);
	if (rc) {
		gp_trace_free(r.t);
		r.t = NULL;
	}
	*out = r.t;
	return rc;
}

GP_API int gp_trace_open(const char *path, const struct gp_open_opts *opts, struct gp_trace **out)
{
	struct gp_input *in;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_trace_open: NULL argument");
	*out = NULL;
	if (!path)
		return gp__error(GP_EINVAL, "gp_trace_open: NULL path");
	if ((rc = gp__input_open_file(path, &in)))
		return rc;
	rc = open_input(in, path, opts, out);
	gp__input_close(in);
	return rc;
}

GP_API int gp_trace_open_mem(const void *p, size_t n, const struct gp_open_opts *opts,
                             struct gp_trace **out)
{
	struct gp_open_opts o;
	struct gp_input *in;
	int rc;

	if (!out)
		return gp__error(GP_EINVAL, "gp_trace_open_mem: NULL argument");
	*out = NULL;
	if (!p && n)
		return gp__error(GP_EINVAL, "gp_trace_open_mem: NULL buffer");
	opts_get(opts, &o);
	if ((rc = gp__input_open_mem(p, n, &in)))
		return rc;
	rc = open_input(in, o.name ? o.name : "<memory>", opts, out);
	gp__input_close(in);
	return rc;
}
