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
 * The hot path recognises event keys from their bytes and converts common
 * numbers in one pass; every fast path gives way to the general tokenizer
 * for anything unusual, so results and error offsets are the same either way
 * (docs/internals/kineto-reader.md).
 *
 * Every error names the input and the (uncompressed) byte offset. With
 * opts->salvage, damage after traceEvents has begun keeps what was committed.
 * Called by gp_trace_open()/gp_trace_open_mem(); the fuzzers call the latter.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gpuprof/trace.h"
#include "input.h"
#include "model.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/ts.h"

#define GP_KINETO_WINDOW   (8u << 20)   /* initial window */
#define GP_KINETO_READ     (256u << 10) /* bytes read per refill: stays in L2 */
#define GP_KINETO_MAX_UNIT (256u << 20) /* largest single event or member */
#define GP_KINETO_DEPTH    (GP_JSON_MAX_DEPTH - 4)

enum state {
	ST_START,
	ST_OBJ_FIRST,  /* after '{' of the top-level object */
	ST_OBJ_MEMBER, /* at a member key */
	ST_OBJ_SEP,    /* after a member value */
	ST_EV_FIRST,   /* after '[' of traceEvents */
	ST_EV_ELEM,    /* at an element of traceEvents */
	ST_END,        /* after the document: only whitespace may follow */
	ST_DONE
};

/* Argument keys we keep; everything else is skipped (validated, not built). */
enum arg_key {
	A_NONE = 0,
	A_CORR,
	A_EXT,
	A_STREAM,
	A_DEVICE,
	A_GRID,
	A_BLOCK,
	A_REGS,
	A_SHMEM,
	A_BPSM,
	A_WPSM,
	A_OCC,
	A_BYTES,
	A_BW,
	A_COLL,
	A_NAME,
	A_MBYTES,
	A_TOT_ALLOC,
	A_TOT_RES,
	A_ADDR,
	A_DEV_ID,
	A_DEV_TYPE,
};

/* The enum arg_key of an argument key, A_NONE for the ones we skip. */
static inline unsigned arg_key_id(const char *k, size_t n)
{
#define K(lit, id)                                                                                 \
	if (memcmp(k, lit, sizeof(lit) - 1) == 0)                                                  \
		return id;
	switch (n) {
	case 4:
		K("grid", A_GRID)
		K("name", A_NAME)
		K("Addr", A_ADDR)
		break;
	case 5:
		K("block", A_BLOCK)
		K("bytes", A_BYTES)
		K("Bytes", A_MBYTES)
		break;
	case 6:
		K("stream", A_STREAM)
		K("device", A_DEVICE)
		break;
	case 9:
		K("Device Id", A_DEV_ID)
		break;
	case 11:
		K("correlation", A_CORR)
		K("External id", A_EXT)
		K("external id", A_EXT)
		K("Device Type", A_DEV_TYPE)
		break;
	case 12:
		K("warps per SM", A_WPSM)
		break;
	case 13:
		K("shared memory", A_SHMEM)
		K("blocks per SM", A_BPSM)
		break;
	case 14:
		K("Total Reserved", A_TOT_RES)
		break;
	case 15:
		K("Collective name", A_COLL)
		K("Total Allocated", A_TOT_ALLOC)
		break;
	case 20:
		K("registers per thread", A_REGS)
		break;
	case 23:
		K("memory bandwidth (GB/s)", A_BW)
		break;
	case 25:
		K("est. achieved occupancy %", A_OCC)
		break;
	default:
		break;
	}
#undef K
	return A_NONE;
}

/* A string field: raw slice in the window and whether it holds escapes. */
struct sfield {
	struct gp_str s;
	bool esc, set;
};

/* pid or tid: a number, or a string that is not one. */
struct idfield {
	int64_t num;
	struct sfield str;
	bool set;
};

/* One traceEvents element, parsed but not yet committed. */
struct evrec {
	struct sfield ph, cat, name;
	struct idfield pid, tid;
	int64_t ts, dur;
	bool has_ts, has_dur, ts_float;
	/* args: only those whose bit is set in aset are valid (no per-event memset) */
	uint32_t aset;
	int64_t a[A_DEV_TYPE + 1]; /* integer args by enum arg_key */
	double d[A_DEV_TYPE + 1];  /* double args by enum arg_key */
	int32_t grid[3], block[3];
	struct sfield coll, aname;
};

#define ABIT(id) (1u << (id))

static inline int64_t arg_i64(const struct evrec *e, unsigned id)
{
	return e->aset & ABIT(id) ? e->a[id] : -1;
}

static inline int32_t arg_i32(const struct evrec *e, unsigned id)
{
	int64_t v = arg_i64(e, id);

	return v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : -1;
}

static inline double arg_dbl(const struct evrec *e, unsigned id)
{
	return e->aset & ABIT(id) ? e->d[id] : NAN;
}

/* Small cache of category strings -> (string id, kind). */
struct cat_cache {
	char s[40];
	unsigned char len, kind;
	uint32_t id;
};

struct reader {
	struct gp_trace *t;
	const char *name; /* for messages */
	bool salvage;
	uint64_t max_events;

	struct gp_input *in;
	bool gzip;
	char *buf; /* owned window storage; NULL when reading memory in place */
	size_t cap;
	const char *win; /* window start */
	size_t len;      /* valid bytes in the window */
	size_t pos;      /* start of the current unit */
	uint64_t base_off;
	bool eof;

	struct gp_jscan s;
	enum state st;
	bool in_events;        /* inside traceEvents: damage there can be salvaged */
	bool saw_events;       /* traceEvents was found */
	const char *fail_unit; /* start of the unit that failed */

	struct gp_buf scratch;
	struct cat_cache cats[16];
	uint32_t names[256]; /* intern() cache: string ids, 0 empty */
	size_t ncats;
	uint32_t id_python, id_user_ann, id_operator, id_cpu_op, id_instant;
};

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

/* ---- small helpers ---- */

/* p[0..n) == lit[0..n) for a short constant literal: unrolled byte compares. */
static inline bool lit_eq(const char *p, const char *lit, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != lit[i])
			return false;
	return true;
}

/* a[0..n) == b[0..n) for short strings, inline. */
static inline bool short_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; a += 8, b += 8, n -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	while (n--)
		if (*a++ != *b++)
			return false;
	return true;
}

static inline bool key_is(const struct gp_str *k, const char *lit, size_t n)
{
	return k->len == n && memcmp(k->p, lit, n) == 0;
}

#define KEY_IS(k, lit) key_is((k), lit, sizeof(lit) - 1)

/* Decodes a string field into the scratch buffer if it has escapes. */
static int field_text(struct reader *r, const struct sfield *f, const char **p, size_t *n)
{
	*p = "";
	*n = 0;
	if (!f->esc) {
		*p = f->s.p;
		*n = f->s.len;
		return 0;
	}
	gp_buf_reset(&r->scratch);
	if (gp_buf_grow(&r->scratch, f->s.len + 1))
		return gp__error(GP_ENOMEM, "out of memory");
	*n = gp__json_unescape(f->s.p, f->s.len, r->scratch.buf);
	r->scratch.len = *n;
	r->scratch.buf[*n] = '\0';
	*p = r->scratch.buf;
	return 0;
}

/*
 * Interns a string field. A small direct-mapped cache, indexed by the length
 * and the first and last bytes, remembers recent ids: a hit costs one
 * comparison with the stored string instead of hashing the whole text (long
 * kernel names repeat all the time).
 */
static int intern(struct reader *r, const struct sfield *f, uint32_t *id)
{
	const struct gp_strtab *st = &r->t->strs;
	const char *p;
	uint64_t a = 0, b = 0;
	uint32_t c;
	size_t n, slot;
	int rc;

	if (!f->set) {
		*id = 0;
		return 0;
	}
	if ((rc = field_text(r, f, &p, &n)))
		return rc;
	memcpy(&a, p, n < 8 ? n : 8);
	if (n > 8)
		memcpy(&b, p + n - 8, 8);
	slot =
	    (size_t)(((a ^ (b * 31) ^ n) * 0x9e3779b97f4a7c15ULL) >> 56) % GP_ARRAY_SIZE(r->names);
	c = r->names[slot];
	if (c && c < st->n && st->len[c] == n && memcmp(st->str[c], p, n) == 0) {
		*id = c;
		return 0;
	}
	if ((rc = gp_strtab_intern(&r->t->strs, p, n, id)))
		return rc;
	r->names[slot] = *id;
	return 0;
}

/* Category id through a small cache: traces have a handful of categories. */
static int intern_cat(struct reader *r, const struct sfield *f, uint32_t *id, enum gp_kind *kind)
{
	const char *p;
	size_t i, n;
	int rc;

	*id = 0;
	*kind = GP_K_OTHER;
	if (!f->set)
		return 0;
	if (!f->esc && f->s.len < sizeof(r->cats[0].s)) {
		for (i = 0; i < r->ncats; i++) {
			if (r->cats[i].len == f->s.len &&
			    short_eq(r->cats[i].s, f->s.p, f->s.len)) {
				*id = r->cats[i].id;
				*kind = (enum gp_kind)r->cats[i].kind;
				return 0;
			}
		}
	}
	if ((rc = field_text(r, f, &p, &n)))
		return rc;
	*kind = gp__kind_from_cat(p, n);
	if ((rc = gp_strtab_intern(&r->t->strs, p, n, id)))
		return rc;
	if (!f->esc && f->s.len < sizeof(r->cats[0].s) && r->ncats < GP_ARRAY_SIZE(r->cats)) {
		memcpy(r->cats[r->ncats].s, f->s.p, f->s.len);
		r->cats[r->ncats].len = (unsigned char)f->s.len;
		r->cats[r->ncats].id = *id;
		r->cats[r->ncats].kind = (unsigned char)*kind;
		r->ncats++;
	}
	return 0;
}

/* A number as int64: integers exactly; integral doubles in range too. */
static bool num_i64(const struct gp_str *num, bool is_int, int64_t *out)
{
	double d;

	if (is_int)
		return gp__int_parse_fast(num->p, num->len, out) == 0;
	d = gp__json_double(num->p, num->len);
	if (!isfinite(d) || d != floor(d) || d < -9.2e18 || d > 9.2e18)
		return false;
	*out = (int64_t)d;
	return true;
}

/*
 * Fast paths for the numbers of a typical trace. Each one validates and
 * converts in a single pass, and accepts only what the general path
 * (gp__json_number and a conversion) would accept with the same value:
 * a number that is followed in the window by a separator or whitespace.
 * Anything else (a sign, an exponent, too many digits, the window's end,
 * a grammar error) returns false with nothing consumed, and the caller
 * takes the general path, which also gives the exact error.
 */

static inline bool is_dig(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* A byte that may follow a number in the documents we read quickly. */
static inline bool num_term(char c)
{
	return c == ',' || c == '}' || c == ']' || gp__json_is_ws(c);
}

/* Scans digits from q; @return the end. The value wraps past 19 digits (callers check). */
static inline const char *dig_run(const char *q, const char *end, uint64_t *v)
{
	uint64_t x = *v;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * Eight bytes at a time (SWAR): find the leading digits, move them to
	 * the top of the word (the bytes shifted in are leading zeros), then
	 * combine pairs, quads and octets.
	 */
	static const uint64_t p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };

	while (end - q >= 8) {
		uint64_t w, t;
		unsigned k;

		memcpy(&w, q, 8);
		/* zero bytes where w has a digit; carries only run past a non-digit */
		t = ((w & 0xf0f0f0f0f0f0f0f0ULL) |
		     ((w + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4) ^
		    0x3333333333333333ULL;
		k = t ? (unsigned)__builtin_ctzll(t) / 8 : 8;
		if (k == 0)
			break;
		w -= 0x3030303030303030ULL;
		if (k < 8)
			w <<= 8 * (8 - k);
		w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffULL;
		w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffULL;
		w = (w * 10000 + (w >> 32)) & 0xffffffffULL;
		if (k < 8) {
			*v = x * p10[k] + w;
			return q + k;
		}
		x = x * 100000000 + w;
		q += 8;
	}
#endif
	while (q < end && is_dig(*q))
		x = x * 10 + (uint64_t)(*q++ - '0');
	*v = x;
	return q;
}

/* A non-negative integer of at most 18 digits. */
static inline bool fast_int(const char **pp, const char *end, int64_t *out)
{
	const char *p = *pp, *q = p;
	uint64_t v;

	if (q >= end || !is_dig(*q))
		return false;
	v = (uint64_t)(*q++ - '0');
	if (v)
		q = dig_run(q, end, &v);
	if (q >= end || q - p > 18 || !num_term(*q))
		return false;
	*out = (int64_t)v;
	*pp = q;
	return true;
}

/*
 * A non-negative timestamp in µs, integer or with a fraction, at most 16
 * integer digits, to ns: the first three fraction digits are the ns and the
 * fourth rounds half away from zero, exactly as gp__ts_parse().
 */
static inline bool fast_ts(const char **pp, const char *end, int64_t *ns, bool *flt)
{
	const char *p = *pp, *q = p;
	uint64_t v, f = 0;

	if (q >= end || !is_dig(*q))
		return false;
	v = (uint64_t)(*q++ - '0');
	if (v)
		q = dig_run(q, end, &v);
	if (q >= end || q - p > 16)
		return false;
	*flt = false;
	if (*q == '.') {
		const char *fp = ++q;
		size_t k;

		while (q < end && is_dig(*q))
			q++;
		k = (size_t)(q - fp);
		if (k == 0 || q >= end)
			return false;
		f = (uint64_t)(fp[0] - '0') * 100;
		if (k > 1)
			f += (uint64_t)(fp[1] - '0') * 10;
		if (k > 2)
			f += (uint64_t)(fp[2] - '0');
		if (k > 3 && fp[3] >= '5')
			f++;
		*flt = true;
	}
	if (!num_term(*q) || v >= (uint64_t)(INT64_MAX / 1000) - 1)
		return false;
	*ns = (int64_t)(v * 1000 + f);
	*pp = q;
	return true;
}

/*
 * A non-negative decimal without exponent whose digits fit 2^53 and with at
 * most 22 fraction digits: m / 10^k is then one correctly rounded IEEE
 * division of two exact doubles, the same value strtod gives.
 */
static inline bool fast_dbl(const char **pp, const char *end, double *out)
{
#if FLT_EVAL_METHOD == 0
	static const double p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
		                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
		                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *p = *pp, *q = p, *fp;
	uint64_t v;
	size_t k = 0;

	if (q >= end || !is_dig(*q))
		return false;
	v = (uint64_t)(*q++ - '0');
	if (v)
		q = dig_run(q, end, &v);
	if (q >= end || q - p > 15)
		return false;
	if (*q == '.') {
		fp = ++q;
		q = dig_run(q, end, &v);
		k = (size_t)(q - fp);
		if (k == 0 || q >= end || q - p > 17)
			return false;
	}
	if (!num_term(*q) || v > (1ULL << 53) || k >= GP_ARRAY_SIZE(p10))
		return false;
	*out = (double)v / p10[k];
	*pp = q;
	return true;
#else
	(void)pp;
	(void)end;
	(void)out;
	return false;
#endif
}

/* ---- parsing one event ---- */

static int parse_sfield(struct reader *r, const char **pp, struct sfield *f, const char *what)
{
	if (*pp >= r->s.end)
		return gp__json_fail(&r->s, r->s.end, GP_ETRUNC, "unexpected end of input");
	if (**pp != '"')
		return gp__json_fail(&r->s, *pp, GP_EFORMAT, what);
	f->set = true;
	return gp__json_string_fast(&r->s, pp, &f->s, &f->esc);
}

static int parse_id(struct reader *r, const char **pp, struct idfield *f, const char *what)
{
	struct gp_str num;
	bool is_int;
	int rc;

	if (fast_int(pp, r->s.end, &f->num)) {
		f->set = true;
		return 0;
	}
	if (*pp >= r->s.end)
		return gp__json_fail(&r->s, r->s.end, GP_ETRUNC, "unexpected end of input");
	if (**pp == '"') {
		if ((rc = gp__json_string_fast(&r->s, pp, &f->str.s, &f->str.esc)))
			return rc;
		f->set = true;
		/* numeric strings ("25738") are numbers */
		if (!f->str.esc && gp__int_parse_fast(f->str.s.p, f->str.s.len, &f->num) == 0)
			return 0;
		f->str.set = true;
		f->num = -1;
		return 0;
	}
	if (**pp == '-' || (**pp >= '0' && **pp <= '9')) {
		const char *at = *pp;

		if ((rc = gp__json_number(&r->s, pp, &num, &is_int)))
			return rc;
		if (!num_i64(&num, is_int, &f->num))
			return gp__json_fail(&r->s, at, GP_EFORMAT, what);
		f->set = true;
		return 0;
	}
	return gp__json_fail(&r->s, *pp, GP_EFORMAT, what);
}

static int parse_time(struct reader *r, const char **pp, int64_t *out, bool *is_float,
                      const char *what)
{
	const char *at = *pp;
	struct gp_str num;
	bool is_int;
	int rc;

	if (fast_ts(pp, r->s.end, out, is_float))
		return 0;
	*is_float = false;
	if (at >= r->s.end)
		return gp__json_fail(&r->s, r->s.end, GP_ETRUNC, "unexpected end of input");
	if (*at == 'N' || *at == 'I')
		return gp__json_fail(&r->s, at, GP_EFORMAT, "NaN and Infinity are not JSON");
	if (*at != '-' && !(*at >= '0' && *at <= '9'))
		return gp__json_fail(&r->s, at, GP_EFORMAT, what);
	if ((rc = gp__json_number(&r->s, pp, &num, &is_int)))
		return rc;
	rc = gp__ts_parse(num.p, num.len, out, is_float);
	if (rc == GP_ELIMIT)
		return gp__json_fail(&r->s, at, GP_EFORMAT, "timestamp out of range");
	if (rc)
		return gp__json_fail(&r->s, at, GP_EFORMAT, "invalid timestamp");
	return 0;
}

/* grid/block: [x, y, z] of integers; anything else leaves them unknown. */
static int parse_dim3(struct reader *r, const char **pp, int32_t *v)
{
	const char *p = *pp, *end = r->s.end;
	struct gp_str num;
	bool is_int;
	int64_t x;
	int i = 0, rc;

	if (*p != '[')
		return gp__json_skip(&r->s, pp, GP_KINETO_DEPTH);
	p = gp__json_ws(p + 1, end);
	if (p < end && *p == ']') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (fast_int(&p, end, &x)) {
			if (i < 3 && x <= INT32_MAX)
				v[i] = (int32_t)x;
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			if ((rc = gp__json_number(&r->s, &p, &num, &is_int)))
				return rc;
			if (i < 3 && num_i64(&num, is_int, &x) && x >= INT32_MIN && x <= INT32_MAX)
				v[i] = (int32_t)x;
		} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
			return rc;
		}
		i++;
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (*p == ']') {
			*pp = p + 1;
			return 0;
		}
		if (*p != ',')
			return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ',' or ']' in array");
		p++;
	}
}

static inline bool is_dbl_arg(unsigned id)
{
	return id == A_BPSM || id == A_WPSM || id == A_OCC || id == A_BW;
}

static int parse_args(struct reader *r, const char **pp, struct evrec *e)
{
	const char *p = *pp, *end = r->s.end;
	struct gp_str key, num;
	bool esc, is_int;
	int64_t x;
	int rc;

	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (*p != '{')
		return gp__json_fail(&r->s, p, GP_EFORMAT, "\"args\" is not an object");
	p = gp__json_ws(p + 1, end);
	if (p < end && *p == '}') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		unsigned id = A_NONE;

		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (*p != '"')
			return gp__json_fail(&r->s, p, GP_EFORMAT, "expected string key in object");
		if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
			return rc;
		if (!esc)
			id = arg_key_id(key.p, key.len);
		if (p < end && *p == ':') {
			p++;
		} else {
			p = gp__json_ws(p, end);
			if (p >= end)
				return gp__json_fail(&r->s, end, GP_ETRUNC,
				                     "unexpected end of input");
			if (*p != ':')
				return gp__json_fail(&r->s, p, GP_EFORMAT,
				                     "expected ':' after object key");
			p++;
		}
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (id == A_NONE) {
			/* skipped, still validated: strings and plain integers inline */
			if (*p == '"') {
				if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
					return rc;
			} else if (!fast_int(&p, end, &x) &&
			           (rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (id == A_GRID || id == A_BLOCK) {
			int32_t *v = id == A_GRID ? e->grid : e->block;

			v[0] = v[1] = v[2] = -1;
			e->aset |= ABIT(id);
			if ((rc = parse_dim3(r, &p, v)))
				return rc;
		} else if (id == A_COLL || id == A_NAME) {
			struct sfield *f = id == A_COLL ? &e->coll : &e->aname;

			if (*p == '"') {
				f->set = true;
				if ((rc = gp__json_string_fast(&r->s, &p, &f->s, &f->esc)))
					return rc;
			} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (is_dbl_arg(id) ? fast_dbl(&p, end, &e->d[id])
		                          : fast_int(&p, end, &e->a[id])) {
			e->aset |= ABIT(id);
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			if ((rc = gp__json_number(&r->s, &p, &num, &is_int)))
				return rc;
			if (is_dbl_arg(id)) {
				e->d[id] = gp__json_double(num.p, num.len);
				e->aset |= ABIT(id);
			} else if (num_i64(&num, is_int, &e->a[id])) {
				e->aset |= ABIT(id);
			}
		} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
			return rc;
		}
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (*p == ',') {
			p = gp__json_ws(p + 1, end);
			continue;
		}
		if (*p == '}') {
			*pp = p + 1;
			return 0;
		}
		return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ',' or '}' in object");
	}
}

static void evrec_init(struct evrec *e)
{
	/* only the flags: this runs for every event */
	e->ph.set = e->cat.set = e->name.set = e->coll.set = e->aname.set = false;
	e->pid.set = e->tid.set = e->pid.str.set = e->tid.str.set = false;
	e->pid.num = e->tid.num = -1;
	e->ts = e->dur = 0;
	e->has_ts = e->has_dur = e->ts_float = false;
	e->aset = 0;
}

/* The event keys we read. */
enum ev_key { EK_OTHER, EK_PH, EK_TS, EK_CAT, EK_PID, EK_TID, EK_DUR, EK_NAME, EK_ARGS };

/*
 * Recognizes one of our keys at *pp (its opening quote) straight from the
 * bytes, with the closing quote: no string scan. @return EK_OTHER, with
 * nothing consumed, for any other key (or too few bytes left).
 */
static inline unsigned ev_key_fast(const char **pp, const char *end)
{
	const char *p = *pp;

#define EK(lit, id)                                                                                \
	if (lit_eq(p + 1, lit "\"", sizeof(lit))) {                                                \
		*pp = p + sizeof(lit) + 1;                                                         \
		return id;                                                                         \
	}
	if (end - p < 6)
		return EK_OTHER;
	switch (p[1]) {
	case 'p':
		EK("ph", EK_PH)
		EK("pid", EK_PID)
		break;
	case 't':
		EK("ts", EK_TS)
		EK("tid", EK_TID)
		break;
	case 'c':
		EK("cat", EK_CAT)
		break;
	case 'd':
		EK("dur", EK_DUR)
		break;
	case 'n':
		EK("name", EK_NAME)
		break;
	case 'a':
		EK("args", EK_ARGS)
		break;
	default:
		break;
	}
#undef EK
	return EK_OTHER;
}

/* The key of a scanned (unescaped) key string. */
static unsigned ev_key_of(const struct gp_str *key)
{
	switch (key->len) {
	case 2:
		if (KEY_IS(key, "ph"))
			return EK_PH;
		if (KEY_IS(key, "ts"))
			return EK_TS;
		break;
	case 3:
		if (KEY_IS(key, "cat"))
			return EK_CAT;
		if (KEY_IS(key, "pid"))
			return EK_PID;
		if (KEY_IS(key, "tid"))
			return EK_TID;
		if (KEY_IS(key, "dur"))
			return EK_DUR;
		break;
	case 4:
		if (KEY_IS(key, "name"))
			return EK_NAME;
		if (KEY_IS(key, "args"))
			return EK_ARGS;
		break;
	default:
		break;
	}
	return EK_OTHER;
}

/* Parses the event object at *pp into @p e (no side effects on the trace). */
static int parse_event(struct reader *r, const char **pp, struct evrec *e)
{
	const char *p = *pp, *end = r->s.end;
	struct gp_str key;
	bool esc, flt;
	int rc;

	evrec_init(e);
	if (*p != '{') {
		if (*p == 'N' || *p == 'I')
			return gp__json_fail(&r->s, p, GP_EFORMAT, "NaN and Infinity are not JSON");
		return gp__json_fail(&r->s, p, GP_EFORMAT, "event is not an object");
	}
	p = gp__json_ws(p + 1, end);
	if (p < end && *p == '}') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		unsigned k;

		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (*p != '"')
			return gp__json_fail(&r->s, p, GP_EFORMAT, "expected string key in object");
		k = ev_key_fast(&p, end);
		if (k == EK_OTHER) {
			if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
				return rc;
			/* escaped keys never name a field we read */
			k = esc ? EK_OTHER : ev_key_of(&key);
		}
		if (p < end && *p == ':') {
			p++;
		} else {
			p = gp__json_ws(p, end);
			if (p >= end)
				return gp__json_fail(&r->s, end, GP_ETRUNC,
				                     "unexpected end of input");
			if (*p != ':')
				return gp__json_fail(&r->s, p, GP_EFORMAT,
				                     "expected ':' after object key");
			p++;
		}
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		switch (k) {
		case EK_PH:
			/* almost always one plain character */
			if (end - p >= 3 && p[0] == '"' && p[2] == '"' &&
			    (unsigned char)p[1] >= 0x20 && (unsigned char)p[1] < 0x80 &&
			    p[1] != '"' && p[1] != '\\') {
				e->ph.s.p = p + 1;
				e->ph.s.len = 1;
				e->ph.esc = false;
				e->ph.set = true;
				p += 3;
				rc = 0;
			} else {
				rc = parse_sfield(r, &p, &e->ph, "\"ph\" is not a string");
			}
			break;
		case EK_TS:
			rc = parse_time(r, &p, &e->ts, &flt, "\"ts\" is not a number");
			e->has_ts = true;
			e->ts_float |= flt;
			break;
		case EK_CAT:
			rc = parse_sfield(r, &p, &e->cat, "\"cat\" is not a string");
			break;
		case EK_PID:
			rc = parse_id(r, &p, &e->pid, "\"pid\" is not an integer or a string");
			break;
		case EK_TID:
			rc = parse_id(r, &p, &e->tid, "\"tid\" is not an integer or a string");
			break;
		case EK_DUR: {
			const char *at = p;

			rc = parse_time(r, &p, &e->dur, &flt, "\"dur\" is not a number");
			if (!rc && e->dur < 0)
				rc = gp__json_fail(&r->s, at, GP_EFORMAT, "negative \"dur\"");
			e->has_dur = true;
			e->ts_float |= flt;
			break;
		}
		case EK_NAME:
			rc = parse_sfield(r, &p, &e->name, "\"name\" is not a string");
			break;
		case EK_ARGS:
			rc = parse_args(r, &p, e);
			break;
		default:
			rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH);
			break;
		}
		if (rc)
			return rc;
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (*p == ',') {
			p = gp__json_ws(p + 1, end);
			continue;
		}
		if (*p == '}') {
			*pp = p + 1;
			return 0;
		}
		return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ',' or '}' in object");
	}
}

/* ---- committing one event ---- */

static bool is_step_name(const char *p, size_t n)
{
	static const char pre[] = "ProfilerStep#";
	size_t k = sizeof(pre) - 1, i;

	if (n <= k || memcmp(p, pre, k) != 0)
		return false;
	for (i = k; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

static int track_of(struct reader *r, const struct evrec *e, uint32_t *tr)
{
	uint32_t ps = 0, ts = 0;
	int rc;

	if (e->pid.str.set && (rc = intern(r, &e->pid.str, &ps)))
		return rc;
	if (e->tid.str.set && (rc = intern(r, &e->tid.str, &ts)))
		return rc;
	return gp__trace_track(r->t, e->pid.num, ps, e->tid.num, ts, tr);
}

/* The number at the end of a tid such as "stream 7", or -1. */
static int64_t stream_from_tid(const struct evrec *e)
{
	const char *p, *q;
	int64_t v;

	if (!e->tid.str.set)
		return e->tid.num;
	p = e->tid.str.s.p;
	q = p + e->tid.str.s.len;
	while (q > p && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == p + e->tid.str.s.len ||
	    gp__int_parse_fast(q, (size_t)(p + e->tid.str.s.len - q), &v))
		return -1;
	return v;
}

static int commit_complete(struct reader *r, const struct evrec *e, uint32_t cat_id,
                           enum gp_kind kind)
{
	struct gp_trace *t = r->t;
	uint32_t name_id, track;
	size_t idx;
	int rc;

	if (cat_id && cat_id == r->id_python) {
		t->npy++;
		return 0;
	}
	if (r->max_events && t->ev.n >= r->max_events)
		return gp__error(GP_ELIMIT, "%s: more than %llu events", r->name,
		                 (unsigned long long)r->max_events);
	if ((rc = intern(r, &e->name, &name_id)))
		return rc;
	if ((rc = track_of(r, e, &track)))
		return rc;
	if ((rc = gp__trace_add_event(t, kind, name_id, track, e->ts, e->dur, &idx)))
		return rc;
	if ((kind == GP_K_USER_ANNOTATION || kind == GP_K_CPU_OP) &&
	    is_step_name(gp_strtab_get(&t->strs, name_id), gp_strtab_strlen(&t->strs, name_id))) {
		t->ev.kind[idx] = GP_K_USER_ANNOTATION;
		t->ev.flags[idx] |= GP_EVF_STEP;
	}
	t->ev.corr[idx] = arg_i64(e, A_CORR);
	t->ev.ext[idx] = arg_i64(e, A_EXT);
	if (e->aset & ABIT(A_STREAM)) {
		t->ev.stream[idx] = e->a[A_STREAM];
		t->ev.flags[idx] |= GP_EVF_HAS_STREAM;
	}
	if (kind == GP_K_KERNEL || kind == GP_K_MEMCPY || kind == GP_K_MEMSET) {
		struct gp_gpu_info gi;
		struct gp_track *tr;

		memset(&gi, 0, sizeof(gi));
		gi.device = arg_i32(e, A_DEVICE);
		for (int k = 0; k < 3; k++) {
			gi.grid[k] = e->aset & ABIT(A_GRID) ? e->grid[k] : -1;
			gi.block[k] = e->aset & ABIT(A_BLOCK) ? e->block[k] : -1;
		}
		gi.regs = arg_i32(e, A_REGS);
		gi.shmem = arg_i64(e, A_SHMEM);
		gi.bytes = arg_i64(e, A_BYTES);
		gi.blocks_per_sm = arg_dbl(e, A_BPSM);
		gi.warps_per_sm = arg_dbl(e, A_WPSM);
		gi.occupancy_pct = arg_dbl(e, A_OCC);
		gi.bw_gbps = arg_dbl(e, A_BW);
		gi.collective = 0;
		if (e->coll.set && (rc = intern(r, &e->coll, &gi.collective)))
			return rc;
		if ((rc = gp__trace_add_gpu_info(t, idx, &gi)))
			return rc;
		tr = &t->tracks[track];
		tr->gpu = true;
		if (arg_i32(e, A_DEVICE) >= 0)
			tr->device = arg_i32(e, A_DEVICE);
		else if (tr->device < 0 && e->pid.num >= 0 && e->pid.num <= INT32_MAX)
			tr->device = (int32_t)e->pid.num;
		tr->stream = e->aset & ABIT(A_STREAM) ? e->a[A_STREAM] : stream_from_tid(e);
	}
	return 0;
}

static int commit_event(struct reader *r, const struct evrec *e)
{
	struct gp_trace *t = r->t;
	enum gp_kind kind;
	uint32_t cat_id;
	char ph = 0;
	int rc;

	t->events_read++;
	if (e->ph.set) {
		const char *p;
		size_t n;

		if ((rc = field_text(r, &e->ph, &p, &n)))
			return rc;
		if (n == 1)
			ph = p[0];
		else if (n > 1)
			ph = '?';
	}
	if ((rc = intern_cat(r, &e->cat, &cat_id, &kind)))
		return rc;
	if ((rc = gp__trace_count_cat(t, ph, cat_id)))
		return rc;
	if (e->ts_float)
		t->ts_float = true;
	switch (ph) {
	case 'X':
		return commit_complete(r, e, cat_id, kind);
	case 'i':
	case 'I':
		if (e->has_ts && (e->aset & ABIT(A_MBYTES)) &&
		    (!cat_id || cat_id == r->id_instant) && e->name.set && !e->name.esc &&
		    KEY_IS(&e->name.s, "[memory]")) {
			struct gp_mem_event m;

			if ((rc = track_of(r, e, &m.track)))
				return rc;
			m.ts = e->ts;
			m.bytes = e->a[A_MBYTES];
			m.total_allocated = arg_i64(e, A_TOT_ALLOC);
			m.total_reserved = arg_i64(e, A_TOT_RES);
			m.addr = arg_i64(e, A_ADDR);
			m.device = arg_i32(e, A_DEV_ID);
			m.device_type = arg_i32(e, A_DEV_TYPE);
			return gp__trace_add_mem(t, &m);
		}
		return 0;
	case 'M':
		if (e->aname.set && e->name.set && !e->name.esc &&
		    KEY_IS(&e->name.s, "thread_name")) {
			uint32_t tr, nid;

			if ((rc = track_of(r, e, &tr)) || (rc = intern(r, &e->aname, &nid)))
				return rc;
			t->tracks[tr].name = nid;
		}
		return 0;
	default:
		return 0;
	}
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
	struct evrec e;
	int rc;

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
	case ST_EV_ELEM: {
		const char *q;
		char sep;

	next_event:
		q = p;
		*pp = p; /* a retry or a salvage starts at the event itself */
		if ((rc = parse_event(r, &q, &e)))
			return rc;
		q = gp__json_ws(q, end);
		if (q >= end && !r->eof)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		/* the element is complete: commit it even if the separator is bad */
		if ((rc = commit_event(r, &e)))
			return gp__json_fail(&r->s, p, rc, NULL);
		*pp = p = q;
		if (q >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		sep = *q;
		if (sep == ',') {
			*pp = q + 1;
			/* go straight on to the next event while it is in the window */
			p = gp__json_ws(q + 1, end);
			if (p < end && *p == '{')
				goto next_event;
			return 0;
		}
		if (sep == ']') {
			r->in_events = false;
			r->st = r->t->bare_array ? ST_END : ST_OBJ_SEP;
			*pp = q + 1;
			return 0;
		}
		return gp__json_fail(&r->s, q, GP_EFORMAT, "expected ',' or ']' after an event");
	}
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
