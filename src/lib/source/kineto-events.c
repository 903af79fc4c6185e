/* SPDX-License-Identifier: MIT */
/*
 * kineto-events.c - the elements of a Kineto trace's traceEvents array:
 * each is parsed into a struct evrec without side effects (string fields are
 * slices into the read window) and handed to gp__kineto_commit().
 *
 * Event keys and the argument keys we keep are recognised from their bytes;
 * the common numbers go through the single-pass fast paths of json-scan.h
 * and ts.h, which accept exactly what the general path (gp__json_number
 * plus a conversion) accepts, with the same value, so results and error
 * offsets do not depend on which path ran. The per-event loop lives here
 * with the parser so that the parser compiles inline into it; the window,
 * the rest of the document and the open API are kineto.c.
 */
#include <math.h>
#include <string.h>

#include "kineto-int.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/ts.h"

/* The enum arg_key of an argument key, A_NONE for the ones we skip. */
static inline unsigned arg_key_id(const char *k, size_t n)
{
#define K(lit, id)                                                                                 \
	if (memcmp(k, lit, sizeof(lit) - 1) == 0)                                                  \
		return id;
	switch (n) {
	case 3:
		K("Seq", A_SEQ)
		break;
	case 4:
		K("grid", A_GRID)
		K("name", A_NAME)
		K("Addr", A_ADDR)
		break;
	case 5:
		K("block", A_BLOCK)
		K("bytes", A_BYTES)
		K("Bytes", A_MBYTES)
		K("dtype", A_DTYPE)
		break;
	case 6:
		K("stream", A_STREAM)
		K("device", A_DEVICE)
		break;
	case 8:
		K("Src Rank", A_SRC_RANK)
		K("Dst Rank", A_DST_RANK)
		break;
	case 9:
		K("Device Id", A_DEV_ID)
		K("Python id", A_PY_ID)
		break;
	case 10:
		K("Group size", A_GROUP_SIZE)
		K("Input Dims", A_DIMS)
		K("Input type", A_TYPES)
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
		K("In msg nelems", A_IN_NELEMS)
		K("In split size", A_IN_SPLIT)
		break;
	case 14:
		K("Total Reserved", A_TOT_RES)
		K("Out msg nelems", A_OUT_NELEMS)
		K("Out split size", A_OUT_SPLIT)
		K("cuda_sync_kind", A_SYNC_KIND)
		K("wait_on_stream", A_WAIT_STREAM)
		break;
	case 15:
		K("Collective name", A_COLL)
		K("Total Allocated", A_TOT_ALLOC)
		K("Concrete Inputs", A_CONCRETE)
		break;
	case 16:
		K("Python parent id", A_PY_PARENT)
		break;
	case 18:
		K("Process Group Name", A_PG_NAME)
		break;
	case 19:
		K("Process Group Ranks", A_PG_RANKS)
		break;
	case 20:
		K("registers per thread", A_REGS)
		break;
	case 21:
		K("wait_on_cuda_event_id", A_WAIT_EVID)
		break;
	case 23:
		K("memory bandwidth (GB/s)", A_BW)
		break;
	case 25:
		K("est. achieved occupancy %", A_OCC)
		K("Process Group Description", A_PG_DESC)
		break;
	case 33:
		K("wait_on_cuda_event_record_corr_id", A_WAIT_CORR)
		break;
	default:
		break;
	}
#undef K
	return A_NONE;
}

/* p[0..n) == lit[0..n) for a short constant literal: unrolled byte compares. */
static inline bool lit_eq(const char *p, const char *lit, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != lit[i])
			return false;
	return true;
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

/* ---- key segments (kineto-int.h) ---- */

bool gp__kineto_no_memo;

/*
 * The node among @p cand (a memo's start or a node's next) whose bytes lie at
 * @p p and are followed by a non-space byte before @p end; 0 when none.
 */
static inline unsigned seg_match(const struct gp_seg_memo *m, const uint8_t *cand, const char *p,
                                 const char *end)
{
#if defined(__SSE2__)
	/* the usual case: three 16-byte compares, the bytes past len masked off */
	if (end - p > GP_SEG_MAX) {
		const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)p),
		              a1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16)),
		              a2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));

		for (unsigned w = 0; w < GP_SEG_WAYS && cand[w]; w++) {
			const struct gp_seg_node *s = &m->node[cand[w] - 1];
			uint64_t eq =
			    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			        a0, _mm_loadu_si128((const __m128i *)(const void *)s->b))) |
			    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			        a1, _mm_loadu_si128((const __m128i *)(const void *)(s->b + 16))))
			        << 16 |
			    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			        a2, _mm_loadu_si128((const __m128i *)(const void *)(s->b + 32))))
			        << 32;
			uint64_t want = (1ULL << s->len) - 1;

			if ((eq & want) == want && (unsigned char)p[s->len] > ' ')
				return cand[w];
		}
		return 0;
	}
#endif
	for (unsigned w = 0; w < GP_SEG_WAYS && cand[w]; w++) {
		const struct gp_seg_node *s = &m->node[cand[w] - 1];

		if (end - p > (ptrdiff_t)s->len && memcmp(p, s->b, s->len) == 0 &&
		    (unsigned char)p[s->len] > ' ')
			return cand[w];
	}
	return 0;
}

/*
 * Remembers the segment [@p from, @p to) with key id @p id as the newest of
 * @p cand. @return its node, or 0 when it is too long or the memo is full.
 */
static unsigned seg_learn(struct gp_seg_memo *m, uint8_t *cand, const char *from, const char *to,
                          unsigned id)
{
	size_t len = (size_t)(to - from);
	struct gp_seg_node *s;

	if (len > GP_SEG_MAX || m->n >= GP_SEG_NODES)
		return 0;
	s = &m->node[m->n++];
	s->len = (uint8_t)len;
	s->id = (uint8_t)id;
	memset(s->next, 0, sizeof(s->next));
	memset(s->b, 0, sizeof(s->b));
	memcpy(s->b, from, len);
	memmove(cand + 1, cand, GP_SEG_WAYS - 1);
	cand[0] = m->n;
	return m->n;
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

	if (gp__json_fast_int(pp, r->s.end, &f->num)) {
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

	if (gp__ts_fast(pp, r->s.end, out, is_float))
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

/*
 * After a member's value: ',' moves to the next key (0), '}' closes the
 * object (1, @p pp past it), anything else is an error (negative).
 */
static inline int after_member(struct reader *r, const char **pp, const char *end)
{
	const char *p = gp__json_ws(*pp, end);

	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (*p == ',') {
		*pp = gp__json_ws(p + 1, end);
		return 0;
	}
	if (*p == '}') {
		*pp = p + 1;
		return 1;
	}
	return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ',' or '}' in object");
}

/* after an object key: the ':' and the start of the value (not at the end) */
static inline int expect_colon(struct reader *r, const char **pp, const char *end)
{
	const char *p = *pp;

	if (p < end && *p == ':') {
		p++;
	} else {
		p = gp__json_ws(p, end);
		if (p >= end)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		if (*p != ':')
			return gp__json_fail(&r->s, p, GP_EFORMAT, "expected ':' after object key");
		p++;
	}
	p = gp__json_ws(p, end);
	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	*pp = p;
	return 0;
}

/*
 * The next member of an object, at @p seg (just after the previous value, or
 * after the '{' when @p first): a segment of @p cand matched (*@p node, its
 * key id in *@p id, *@p pp at the value), or else the separator parsed there
 * (*@p node 0, *@p pp at the key's opening quote). @return 0, 1 when the
 * object closed instead (*@p pp past its '}'), or a negative status.
 */
static inline int member_start(struct reader *r, const struct gp_seg_memo *m, const uint8_t *cand,
                               const char *seg, bool first, const char **pp, unsigned *node,
                               unsigned *id)
{
	const char *p = seg, *end = r->s.end;
	int rc;

	*node = cand ? seg_match(m, cand, seg, end) : 0;
	if (*node) {
		*id = m->node[*node - 1].id;
		*pp = seg + m->node[*node - 1].len;
		return 0;
	}
	if (first) {
		p = gp__json_ws(p, end);
		if (p < end && *p == '}') {
			*pp = p + 1;
			return 1;
		}
	} else {
		rc = after_member(r, &p, end);
		if (rc) {
			*pp = p;
			return rc;
		}
	}
	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (*p != '"')
		return gp__json_fail(&r->s, p, GP_EFORMAT, "expected string key in object");
	*pp = p;
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
		if (gp__json_fast_int(&p, end, &x)) {
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

/*
 * Kept out of line on purpose: inlined into the event loop it makes the loop
 * slower (about 3% of the open time of a 100 MB trace with GCC -O3), as it
 * was in the single-file reader where GCC chose not to inline it.
 */
__attribute__((noinline)) static int parse_args(struct reader *r, const char **pp, struct evrec *e)
{
	const char *p = *pp, *end = r->s.end, *seg;
	struct gp_seg_memo *m = &r->args_memo;
	uint8_t *cand = gp__kineto_no_memo ? NULL : m->start;
	struct gp_str key, num;
	bool esc, is_int, first = true;
	int64_t x;
	int rc;

	if (p >= end)
		return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
	if (*p != '{')
		return gp__json_fail(&r->s, p, GP_EFORMAT, "\"args\" is not an object");
	seg = p + 1;
	for (;;) {
		unsigned id = A_NONE, node;

		rc = member_start(r, m, cand, seg, first, &p, &node, &id);
		if (rc < 0)
			return rc;
		if (rc) {
			*pp = p;
			return 0;
		}
		if (!node) {
			/* the key and the ':' */
			if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
				return rc;
			if (!esc)
				id = arg_key_id(key.p, key.len);
			if ((rc = expect_colon(r, &p, end)))
				return rc;
			node = cand ? seg_learn(m, cand, seg, p, id) : 0;
		}
		cand = node ? m->node[node - 1].next : NULL;
		first = false;
		if (id == A_NONE) {
			/* skipped, still validated: strings and plain integers inline */
			if (*p == '"') {
				if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
					return rc;
			} else if (!gp__json_fast_int(&p, end, &x) &&
			           (rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (id == A_GRID || id == A_BLOCK) {
			int32_t *v = id == A_GRID ? e->grid : e->block;

			v[0] = v[1] = v[2] = -1;
			e->aset |= ABIT(id);
			if ((rc = parse_dim3(r, &p, v)))
				return rc;
		} else if (id >= A_DTYPE) {
			/* a string collective arg; another type leaves it unknown */
			if (*p == '"') {
				struct sfield *f = &e->cs[id - A_DTYPE];

				f->set = true;
				if ((rc = gp__json_string_fast(&r->s, &p, &f->s, &f->esc)))
					return rc;
				e->aset |= ABIT(id);
			} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (id >= A_IN_NELEMS) {
			/* a collective count: an integer exactly (never through a double) */
			if (gp__json_fast_int(&p, end, &e->a[id])) {
				e->aset |= ABIT(id);
			} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
				if ((rc = gp__json_number(&r->s, &p, &num, &is_int)))
					return rc;
				if (is_int && gp__int_parse_fast(num.p, num.len, &e->a[id]) == 0)
					e->aset |= ABIT(id);
			} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (id >= A_DIMS && id <= A_CONCRETE) {
			/* record_shapes inputs: the array's raw text, validated; else unknown */
			unsigned k = id - A_DIMS;
			const char *at = p;
			const struct gp_raw_slot *rs;

			e->rawslot[k] = GP_RAW_SLOTS;
			if (*p == '[' && r->raws && !gp__kineto_no_memo && end - p >= GP_RAW_KEY) {
				e->rawslot[k] = gp__raw_slot(p);
				rs = &r->raws[e->rawslot[k]];
				/* a text seen before (kineto-int.h): no scan */
				if (rs->p && (size_t)(end - p) >= rs->len &&
				    gp__raw_eq(rs->p, p, rs->len)) {
					p += rs->len;
					e->rawid[k] = rs->id;
					e->rawhit |= 1u << k;
				}
			}
			if (!(e->rawhit & (1u << k)) &&
			    (rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH)))
				return rc;
			if (*at == '[') {
				e->raw[k].p = at;
				e->raw[k].len = (size_t)(p - at);
				e->aset |= ABIT(id);
			}
		} else if (id == A_SYNC_KIND) {
			if (*p == '"') {
				e->skind.set = true;
				if ((rc = gp__json_string_fast(&r->s, &p, &e->skind.s,
				                               &e->skind.esc)))
					return rc;
				e->aset |= ABIT(id);
			} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (id == A_COLL || id == A_NAME) {
			struct sfield *f = id == A_COLL ? &e->coll : &e->aname;

			if (*p == '"') {
				f->set = true;
				if ((rc = gp__json_string_fast(&r->s, &p, &f->s, &f->esc)))
					return rc;
			} else if ((rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH))) {
				return rc;
			}
		} else if (is_dbl_arg(id) ? gp__json_fast_double(&p, end, &e->d[id])
		                          : gp__json_fast_int(&p, end, &e->a[id])) {
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
		seg = p;
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
	e->rawhit = 0;
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
	const char *p = *pp, *end = r->s.end, *seg;
	struct gp_seg_memo *m = &r->ev_memo;
	uint8_t *cand = gp__kineto_no_memo ? NULL : m->start;
	struct gp_str key;
	bool esc, flt, first = true;
	int rc;

	evrec_init(e);
	if (*p != '{') {
		if (*p == 'N' || *p == 'I')
			return gp__json_fail(&r->s, p, GP_EFORMAT, "NaN and Infinity are not JSON");
		return gp__json_fail(&r->s, p, GP_EFORMAT, "event is not an object");
	}
	seg = p + 1;
	for (;;) {
		unsigned k = EK_OTHER, node;

		rc = member_start(r, m, cand, seg, first, &p, &node, &k);
		if (rc < 0)
			return rc;
		if (rc) {
			*pp = p;
			return 0;
		}
		if (!node) {
			/* the key and the ':' */
			k = ev_key_fast(&p, end);
			if (k == EK_OTHER) {
				if ((rc = gp__json_string_fast(&r->s, &p, &key, &esc)))
					return rc;
				/* escaped keys never name a field we read */
				k = esc ? EK_OTHER : ev_key_of(&key);
			}
			if ((rc = expect_colon(r, &p, end)))
				return rc;
			node = cand ? seg_learn(m, cand, seg, p, k) : 0;
		}
		cand = node ? m->node[node - 1].next : NULL;
		first = false;
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
		default: {
			/* skipped, still validated: strings and plain integers inline */
			int64_t x;

			if (*p == '"')
				rc = gp__json_string_fast(&r->s, &p, &key, &esc);
			else if (!gp__json_fast_int(&p, end, &x))
				rc = gp__json_skip(&r->s, &p, GP_KINETO_DEPTH);
			else
				rc = 0;
			break;
		}
		}
		if (rc)
			return rc;
		seg = p;
	}
}

/* ---- the traceEvents array ---- */

int gp__kineto_events(struct reader *r, const char **pp)
{
	const char *p = *pp, *end = r->s.end, *q;
	struct evrec e;
	char sep;
	int rc;

	for (;;) {
		q = p;
		*pp = p; /* a retry or a salvage starts at the event itself */
		/* the split point of a two-thread read: kineto.c decides there */
		if ((size_t)(p - r->win) >= r->split_rel)
			return 0;
		if ((rc = parse_event(r, &q, &e)))
			return rc;
		q = gp__json_ws(q, end);
		if (q >= end && !r->eof)
			return gp__json_fail(&r->s, end, GP_ETRUNC, "unexpected end of input");
		/* the element is complete: commit it even if the separator is bad */
		if ((rc = gp__kineto_commit(r, &e)))
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
				continue;
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
}
