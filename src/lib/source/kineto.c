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
 * A large file is read by two threads, the second starting at a guessed
 * element boundary in the middle of traceEvents; the guess is verified and
 * the halves merged so that every result and error is the single-thread
 * reader's (see "the two-thread read" below).
 *
 * Every error names the input and the (uncompressed) byte offset. With
 * opts->salvage, damage after traceEvents has begun keeps what was committed.
 * It reads JSON only: gp_trace_open()/gp_trace_open_mem() (open.c) decide the
 * kind of the input and call it for Kineto traces; the fuzzers call the latter.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprof/trace.h"
#include "input.h"
#include "kineto-int.h"
#include "kineto.h"
#include "trace/model.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/json-scan.h"
#include "util/spin.h"

size_t gp__kineto_test_window;
bool gp__kineto_no_parallel;
uint64_t gp__kineto_split_at;
bool gp__kineto_par_sync;
uint64_t gp__kineto_par_min = GP_KINETO_PAR_MIN;
atomic_uint gp__kineto_par_merged, gp__kineto_par_dropped;

/*
 * The second half of a two-thread read: a reader of its own (window, trace,
 * caches) that starts at a candidate element of traceEvents in the middle of
 * the file and stops after the array's closing ']' (see split_check()).
 */
struct kpar {
	pthread_t tid;
	struct reader r;
	/* offset of its first element, the candidate split; UINT64_MAX until known */
	_Atomic uint64_t at;
	struct gp_input *in;    /* gzip: its own stream of the file; NULL for a plain file */
	uint64_t size;          /* gzip: the uncompressed size, from the trailer */
	uint64_t skip;          /* gzip: the bytes inflated and dropped before looking */
	_Atomic uint64_t a_pos; /* gzip: the bytes the first half has read so far */
	int rc;                 /* its read_doc() result, valid once joined */
	bool joined, merged;
	atomic_bool cancel; /* set by the first half: stop at the next read */
	atomic_bool failed; /* set by the second half: it stopped on an error */
	atomic_bool done;   /* set by the second half as its last step */
};

/* ---- window ---- */

static uint64_t off_of(const struct reader *r, const char *at)
{
	return r->base_off + (uint64_t)(at - r->win);
}

/* Reads the plain file at r->fpos (the two-thread read). */
static int file_read(struct reader *r, char *buf, size_t n, size_t *got)
{
	ssize_t k;

	*got = 0;
	if (r->cancel && atomic_load_explicit(r->cancel, memory_order_relaxed))
		return gp__error(GP_EIO, "read cancelled");
	do
		k = pread(r->fd, buf, n, (off_t)r->fpos);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return gp__error(GP_EIO, "read failed: %s", strerror(errno));
	*got = (size_t)k;
	r->fpos += (uint64_t)k;
	return 0;
}

/* Moves the current unit to the front, grows if it fills the window, reads more. */
static int refill(struct reader *r)
{
	size_t keep = r->len - r->pos, got = 0, want;
	bool big;
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
	 * cache, and the unit moved to the front is short. But the unit is
	 * parsed again from its start after every refill, so a unit already
	 * larger than one read (a 100 MB string) gets at least as many bytes
	 * again as it holds, read until they are there: the bytes parsed over
	 * all its retries then stay below twice its size, where fixed reads
	 * made them grow with its square (size^2 / 512 KiB).
	 */
	big = r->len > GP_KINETO_READ;
	want = big ? r->len : GP_KINETO_READ;
	if (want > r->cap - r->len)
		want = r->cap - r->len;
	do {
		if (r->cancel && atomic_load_explicit(r->cancel, memory_order_relaxed))
			return gp__error(GP_EIO, "read cancelled");
		rc = r->use_fd ? file_read(r, r->buf + r->len, want, &got)
		               : gp__input_read(r->in, r->buf + r->len, want, &got);
		if (rc) {
			gp__error_prefix("%s: byte %llu%s", r->name,
			                 (unsigned long long)(r->base_off + r->len),
			                 r->gzip ? " (uncompressed)" : "");
			return rc;
		}
		if (!r->use_fd)
			r->gzip = gp__input_is_gzip(r->in);
		if (got == 0)
			r->eof = true;
		r->len += got;
		want -= got;
	} while (big && want && got);
	r->t->bytes_read = r->base_off + r->len;
	if (r->par)
		atomic_store_explicit(&r->par->a_pos, r->t->bytes_read, memory_order_relaxed);
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
	gp__buf_reset(&r->scratch);
	if (gp__buf_grow(&r->scratch, key.len + 1)) {
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
	if (v && !gp_value_get_int(v, &x))
		return gp__error(GP_EFORMAT, "%s: \"baseTimeNanoseconds\" is not an integer",
		                 r->name);
	/* a report of zeros would read as a measurement: say there is nothing */
	if (t->ev.n == 0 && t->nmem == 0 && t->nctr == 0 && t->npymod == 0)
		return gp__error(GP_EFORMAT, "%s: no events to analyse (%s)", r->name,
		                 t->salvaged ? "none before the damage"
		                             : "\"traceEvents\" is empty or only metadata");
	if (!v)
		return 0;
	t->has_base = true;
	t->base_ns = x;
	for (i = 0; i < t->ev.n; i++)
		if (__builtin_add_overflow(t->ev.ts[i], x, &t->ev.ts[i]) ||
		    gp__trace_check_time(t->ev.ts[i], t->ev.dur[i]))
			goto range;
	for (i = 0; i < t->nmem; i++)
		if (__builtin_add_overflow(t->mem[i].ts, x, &t->mem[i].ts) ||
		    gp__trace_check_time(t->mem[i].ts, 0))
			goto range;
	for (i = 0; i < t->npymod; i++)
		if (__builtin_add_overflow(t->pymod[i].ts, x, &t->pymod[i].ts) ||
		    gp__trace_check_time(t->pymod[i].ts, t->pymod[i].dur))
			goto range;
	return 0;
range:
	return gp__error(GP_EFORMAT, "%s: timestamps plus \"baseTimeNanoseconds\" out of range",
	                 r->name);
}

static int split_check(struct reader *r);

static int read_doc(struct reader *r)
{
	int rc;

	for (;;) {
		const char *p;

		if (r->par && (rc = split_check(r)))
			return rc;
		p = r->win + r->pos;
		r->s.end = r->win + r->len;
		r->s.eof = r->eof;
		r->s.err_at = NULL;
		r->s.err_msg = NULL;
		rc = step(r, &p);
		if (rc == 0) {
			r->pos = (size_t)(p - r->win);
			if (r->st == ST_DONE)
				break;
			if (r->tail && !r->in_events) {
				r->tail_end = off_of(r, p);
				return 0;
			}
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
		if (!r->s.err_msg) { /* an error from the model: say where */
			if (r->s.err_at)
				gp__error_prefix("%s: byte %llu%s", r->name,
				                 (unsigned long long)off_of(r, r->s.err_at),
				                 r->gzip ? " (uncompressed)" : "");
			return rc;
		}
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

/* ---- the two-thread read ---- */

/*
 * A large plain file is read by two threads: the second (struct kpar) starts
 * at a candidate element start S in the middle of traceEvents, found by a
 * guess (the first '{' after "}," and whitespace), and parses from there into
 * a trace of its own up to the array's closing ']'. The first thread reads
 * from the start as usual and stops its events loop when it reaches S
 * (r->split_rel). The guess is right only if the first thread is then at an
 * element start of traceEvents; it then appends the second trace to its own
 * (gp__trace_append(), which gives the same ids a single reader would) and
 * goes on after the ']'. Whenever anything differs from what the single
 * reader would do (the guess was inside a string, the second half failed or
 * hit a limit), the second half is dropped and the first reads on alone
 * from where it is, so results and errors are always the single reader's.
 *
 * A gzip file cannot be entered in the middle: the second half opens a
 * stream of its own, inflates and drops bytes, then looks for its candidate.
 * Inflating is faster than parsing, so it drops bytes while the first half
 * parses, until it is halfway between the first half and the end (the size
 * the gzip trailer records): from there both have as much left to parse and
 * end together, whatever the two speeds. After the merge the first half goes on with the
 * second's stream and window, whose checksum covers the whole file. Both
 * inflate on their own thread: no inflate-ahead thread then.
 */

static void reader_release(struct reader *r)
{
	gp__free(r->buf);
	r->buf = NULL;
	gp__buf_release(&r->scratch);
	gp__strtab_release(&r->rawtab);
	gp__free(r->rawid);
	gp__free(r->raws);
	gp_trace_free(r->t);
	r->t = NULL;
}

static ptrdiff_t find_candidate(const char *p, size_t n);

/*
 * gzip: inflates and drops bytes until halfway between the first half and
 * the end (or gp__kineto_split_at), then finds the candidate (0, or an error).
 */
static int par_gz_begin(struct kpar *b)
{
	struct reader *q = &b->r;
	uint64_t done = 0;
	ptrdiff_t c;
	size_t got;
	int rc;

	for (;;) {
		size_t want = GP_KINETO_READ;

		if (gp__kineto_split_at) {
			if (done >= gp__kineto_split_at)
				break;
			if (want > gp__kineto_split_at - done)
				want = (size_t)(gp__kineto_split_at - done);
		} else if (done >= b->size / 2 +
		                       atomic_load_explicit(&b->a_pos, memory_order_relaxed) / 2) {
			break;
		}
		if (atomic_load_explicit(&b->cancel, memory_order_relaxed))
			return gp__error(GP_EIO, "read cancelled");
		if ((rc = gp__input_read(b->in, q->buf, want, &got)))
			return rc;
		if (!got)
			return gp__error(GP_ETRUNC, "the stream ends before the split");
		done += got;
	}
	b->skip = done;
	q->len = 0;
	while (q->len < GP_KINETO_PAR_SCAN) {
		if ((rc =
		         gp__input_read(b->in, q->buf + q->len, GP_KINETO_PAR_SCAN - q->len, &got)))
			return rc;
		if (!got) {
			q->eof = true;
			break;
		}
		q->len += got;
	}
	c = find_candidate(q->buf, q->len);
	if (c < 0)
		return gp__error(GP_EFORMAT, "no element start after the split");
	q->pos = (size_t)c;
	q->base_off = b->skip;
	atomic_store_explicit(&b->at, b->skip + (uint64_t)c, memory_order_release);
	return 0;
}

static void *par_main(void *arg)
{
	struct kpar *b = arg;

	b->rc = b->in ? par_gz_begin(b) : 0;
	if (!b->rc)
		b->rc = read_doc(&b->r);
	if (b->rc)
		atomic_store(&b->failed, true);
	atomic_store_explicit(&b->done, true, memory_order_release);
	return NULL;
}

/* Stops and frees the second half; the first reads on alone. */
static void par_drop(struct reader *r)
{
	struct kpar *b = r->par;

	if (!b)
		return;
	if (!b->merged)
		atomic_fetch_add_explicit(&gp__kineto_par_dropped, 1, memory_order_relaxed);
	atomic_store(&b->cancel, true);
	if (!b->joined)
		pthread_join(b->tid, NULL);
	reader_release(&b->r);
	gp__input_close(b->in);
	gp__free(b);
	r->par = NULL;
	r->split_rel = SIZE_MAX;
}

/*
 * Called by the first half before each unit while the second runs: drops it
 * once past the candidate (or when it failed), merges it at the candidate.
 */
static int split_check(struct reader *r)
{
	struct kpar *b = r->par;
	struct gp_trace *t = r->t, *bt = b->r.t;
	uint64_t at = off_of(r, r->win + r->pos);
	uint64_t bat = atomic_load_explicit(&b->at, memory_order_acquire);
	int rc;

	while (gp__kineto_par_sync && bat == UINT64_MAX &&
	       !atomic_load_explicit(&b->failed, memory_order_relaxed)) {
		sched_yield();
		bat = atomic_load_explicit(&b->at, memory_order_acquire);
	}

	if (atomic_load_explicit(&b->failed, memory_order_relaxed) || at > bat) {
		par_drop(r);
		return 0;
	}
	if (at < bat || r->st != ST_EV_ELEM) {
		/* not there yet, or (gzip) the candidate not yet found: look again later */
		r->split_rel = bat == UINT64_MAX ? SIZE_MAX : (size_t)(bat - r->base_off);
		return 0;
	}
	/*
	 * An element of traceEvents starts at the candidate: the guess was
	 * right. The second half ends within milliseconds either way: spin
	 * rather than sleep (util/spin.h).
	 */
	gp__spin_until(&b->done, GP_SPIN_NS);
	pthread_join(b->tid, NULL);
	b->joined = true;
	/*
	 * Anything the single reader would see differently (an error, a limit
	 * reached only by the two parts together, uncounted categories): read
	 * on alone from here and let it happen as it would.
	 */
	if (b->rc || bt->cats_full || (r->max_events && t->ev.n + bt->ev.n > r->max_events) ||
	    t->ntracks + bt->ntracks > (1u << 20) || t->ev.n + bt->ev.n >= UINT32_MAX - 1 ||
	    t->ngpu + bt->ngpu >= UINT32_MAX - 1 || bt->dur_sum > GP_SUM_LIMIT - t->dur_sum ||
	    bt->mem_bytes_sum > GP_SUM_LIMIT - t->mem_bytes_sum ||
	    bt->copy_bytes_sum > GP_SUM_LIMIT - t->copy_bytes_sum) {
		par_drop(r);
		return 0;
	}
	if ((rc = gp__trace_append(t, bt))) {
		gp__error_prefix("%s", r->name);
		return rc;
	}
	atomic_fetch_add_explicit(&gp__kineto_par_merged, 1, memory_order_relaxed);
	b->merged = true;
	r->in_events = false;
	r->st = t->bare_array ? ST_END : ST_OBJ_SEP;
	if (b->in) {
		/* gzip: go on with the second half's stream and window, at its ']' */
		char *buf = r->buf;
		size_t cap = r->cap;

		r->buf = b->r.buf;
		r->cap = b->r.cap;
		b->r.buf = buf;
		b->r.cap = cap;
		r->win = r->buf;
		r->len = b->r.len;
		r->pos = b->r.pos;
		r->base_off = b->r.base_off;
		r->eof = b->r.eof;
		r->in = r->own_in = b->in;
		b->in = NULL;
		t->bytes_read = r->base_off + r->len;
		par_drop(r);
		return 0;
	}
	/* go on after the ']' that closed traceEvents */
	r->base_off = b->r.tail_end;
	r->fpos = b->r.tail_end;
	r->pos = r->len = 0;
	r->eof = false;
	par_drop(r);
	return refill(r);
}

/* The first '{' after "}," (whitespace allowed around the ','), or -1. */
static ptrdiff_t find_candidate(const char *p, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (p[i] != '}')
			continue;
		j = (size_t)(gp__json_ws(p + i + 1, p + n) - p);
		if (j >= n || p[j] != ',')
			continue;
		j = (size_t)(gp__json_ws(p + j + 1, p + n) - p);
		if (j < n && p[j] == '{')
			return (ptrdiff_t)j;
	}
	return -1;
}

/* whether a second thread may read: a file, a spare CPU, no salvage or test setting */
static bool par_possible(const struct reader *r, const char *path)
{
	return !gp__kineto_no_parallel && !gp__kineto_test_window && !r->salvage &&
	       !r->one_thread && path && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* the (uncompressed) size when large enough for two threads, else 0 */
static uint64_t par_size(const struct reader *r)
{
	uint64_t size;

	if (r->gzip ? !gp__input_gzip_size_hint(r->in, &size) : !gp__input_size(r->in, &size))
		return 0;
	return size >= gp__kineto_par_min ? size : 0;
}

/*
 * Starts the second half when the input is a large file and a second CPU
 * exists; otherwise (or on any failure) the read stays single-threaded.
 */
static void par_start(struct reader *r, const char *path)
{
	struct kpar *b = NULL;
	struct reader *q;
	struct stat sb;
	uint64_t size, s;
	ptrdiff_t c;
	size_t got;
	int fd = -1;

	if (!par_possible(r, path) || !(size = par_size(r)))
		return;
	s = gp__kineto_split_at ? gp__kineto_split_at : size / 2;
	if (s >= size)
		return;
	b = gp__calloc(1, sizeof(*b));
	if (!b)
		return;
	q = &b->r;
	gp__buf_init(&q->scratch, 0);
	q->cap = GP_KINETO_WINDOW;
	q->buf = gp__malloc(q->cap);
	if (!q->buf)
		goto fail;
	if (r->gzip) {
		/* the second half finds its candidate on its own thread */
		if (gp__input_open_file(path, &b->in))
			goto fail;
		gp__input_no_prefetch(b->in);
		q->in = b->in;
		b->size = size;
		atomic_init(&b->a_pos, r->base_off + r->len);
		atomic_init(&b->at, UINT64_MAX);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size != size)
			goto fail;
		q->use_fd = true;
		q->fd = fd;
		q->fpos = s;
		if (file_read(q, q->buf, GP_KINETO_PAR_SCAN, &got) || !got)
			goto fail;
		c = find_candidate(q->buf, got);
		if (c < 0)
			goto fail;
		q->len = got;
		q->pos = (size_t)c;
		q->base_off = s;
		atomic_init(&b->at, s + (uint64_t)c);
	}
	if (gp__trace_new(r->name, &q->t) ||
	    gp__strtab_intern(&q->t->strs, "python_function", 15, &q->id_python) ||
	    gp__strtab_intern(&q->t->strs, "cpu_instant_event", 17, &q->id_instant))
		goto fail;
	q->name = r->name;
	q->max_events = r->max_events;
	q->win = q->buf;
	q->st = ST_EV_ELEM;
	q->in_events = true;
	q->saw_events = true;
	q->tail = true;
	q->split_rel = SIZE_MAX;
	q->cancel = &b->cancel;
	atomic_init(&b->cancel, false);
	atomic_init(&b->failed, false);
	atomic_init(&b->done, false);
	if (pthread_create(&b->tid, NULL, par_main, b))
		goto fail;
	r->par = b;
	if (!r->gzip) {
		r->use_fd = true;
		r->fd = fd;
		r->fpos = r->base_off + r->len;
	}
	return;
fail:
	reader_release(&b->r);
	gp__input_close(b->in);
	gp__free(b);
	if (fd >= 0)
		close(fd);
}

static void opts_get(const struct gp_open_opts *in, struct gp_open_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (!in)
		return;
	memcpy(o, in, in->size && in->size < sizeof(*o) ? in->size : sizeof(*o));
}

/* @p path: the file behind @p in, NULL for memory input. */
static int open_input(struct gp_input *in, const char *path, const char *name,
                      const struct gp_open_opts *uopts, struct gp_trace **out)
{
	struct gp_open_opts opts;
	struct reader r;
	const char *mp;
	size_t mn;
	int rc;

	opts_get(uopts, &opts);
	memset(&r, 0, sizeof(r));
	gp__buf_init(&r.scratch, 0);
	r.name = name;
	r.salvage = opts.salvage;
	r.one_thread = opts.threads == 1;
	r.max_events = opts.max_events;
	r.in = in;
	r.st = ST_START;
	r.fd = -1;
	r.split_rel = SIZE_MAX;
	if ((rc = gp__trace_new(name, &r.t)))
		goto out;
	r.t->meta = gp_value_object();
	if (!r.t->meta) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = gp__strtab_intern(&r.t->strs, "python_function", 15, &r.id_python)) ||
	    (rc = gp__strtab_intern(&r.t->strs, "cpu_instant_event", 17, &r.id_instant)))
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
		/*
		 * A gzip file that two threads will read is inflated by each on
		 * its own thread: decide before the first read.
		 */
		if (par_possible(&r, path)) {
			if ((rc = gp__input_start(in))) {
				gp__error_prefix("%s: byte 0", name);
				goto out;
			}
			r.gzip = gp__input_is_gzip(in);
			if (r.gzip && par_size(&r))
				gp__input_no_prefetch(in);
		}
		if ((rc = refill(&r)))
			goto out;
		par_start(&r, path);
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
	par_drop(&r);
	gp__input_close(r.own_in);
	if (r.use_fd)
		close(r.fd);
	gp__free(r.buf);
	gp__buf_release(&r.scratch);
	gp__strtab_release(&r.rawtab);
	gp__free(r.rawid);
	gp__free(r.raws);
	if (rc) {
		gp_trace_free(r.t);
		r.t = NULL;
	}
	*out = r.t;
	return rc;
}

int gp__kineto_open_file(const char *path, const struct gp_open_opts *opts, struct gp_trace **out)
{
	struct gp_input *in;
	int rc;

	*out = NULL;
	if ((rc = gp__input_open_file(path, &in)))
		return rc;
	if (GP__OPTS_GET(opts, threads, 0) == 1)
		gp__input_no_prefetch(in);
	rc = open_input(in, path, path, opts, out);
	gp__input_close(in);
	return rc;
}

int gp__kineto_open_mem(const void *p, size_t n, const struct gp_open_opts *opts,
                        struct gp_trace **out)
{
	struct gp_open_opts o;
	struct gp_input *in;
	int rc;

	*out = NULL;
	opts_get(opts, &o);
	if ((rc = gp__input_open_mem(p, n, &in)))
		return rc;
	rc = open_input(in, NULL, o.name ? o.name : "<memory>", opts, out);
	gp__input_close(in);
	return rc;
}
