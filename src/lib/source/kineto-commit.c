/* SPDX-License-Identifier: MIT */
/*
 * kineto-commit.c - committing one parsed Kineto event (struct evrec) to the
 * trace model: counting it by (ph, cat), storing complete events with their
 * GPU details, [memory] instants and thread names.
 *
 * Strings are interned through two small caches kept in struct reader: a
 * direct-mapped one of recent names (long kernel names repeat all the time)
 * and a short list of categories with their enum gp_kind. Called by
 * gp__kineto_events() once an element has parsed completely; the slices in
 * the evrec are still valid (the window is not refilled in between).
 */
#include <string.h>

#include "kineto-int.h"
#include "trace/model.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/ts.h"

/* ---- strings and interning ---- */

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
	gp__buf_reset(&r->scratch);
	if (gp__buf_grow(&r->scratch, f->s.len + 1))
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
	if ((rc = gp__strtab_intern(&r->t->strs, p, n, id)))
		return rc;
	r->names[slot] = *id;
	return 0;
}

/*
 * Writes the validated JSON text @p p[0..@p n) into @p out (room for 2 n
 * bytes) in Kineto's spelling, "[[64, 128], [128, 256]]": no whitespace
 * outside strings but one space after each ',' and ':'. Strings are copied
 * as they are, escapes and all. @return the length written.
 */
static size_t json_compact(const char *p, size_t n, char *out)
{
	const char *end = p + n;
	char *o = out;

	while (p < end) {
		char c = *p++;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		*o++ = c;
		if (c == ',' || c == ':') {
			*o++ = ' ';
		} else if (c == '"') {
			while (p < end && *p != '"') {
				if (*p == '\\' && end - p > 1)
					*o++ = *p++;
				*o++ = *p++;
			}
			if (p < end)
				*o++ = *p++;
		}
	}
	return (size_t)(o - out);
}

#define GP_RAWTAB_MAX (1u << 16) /* distinct texts remembered as written */

/*
 * Interns the JSON text @p s of a record_shapes arg in Kineto's spelling
 * (json_compact()), a text parse_args did not find in r->raws: at @p slot
 * (GP_RAW_SLOTS: none), then in the table of every distinct text as
 * written (up to GP_RAWTAB_MAX), so that a text is compacted and interned
 * in t->strs once, whether Kineto wrote it or a re-indented trace. Then
 * r->raws[@p slot] holds it.
 */
static int intern_raw(struct reader *r, const struct gp_str *s, unsigned slot, uint32_t *id)
{
	size_t n = s->len, m;
	struct gp_raw_slot *rs;
	uint32_t rid;
	int rc;

	if (!r->raws) {
		if (!(r->raws = gp__calloc(GP_RAW_SLOTS, sizeof(*r->raws))) ||
		    gp__strtab_init(&r->rawtab))
			return gp__error(GP_ENOMEM, "out of memory");
	}
	rs = slot < GP_RAW_SLOTS ? &r->raws[slot] : NULL;
	if (rs && rs->p && rs->len == n && gp__raw_eq(rs->p, s->p, n)) {
		*id = rs->id;
		return 0;
	}
	rid = gp__strtab_find(&r->rawtab, s->p, n);
	if (rid != UINT32_MAX && rid < r->rawid_cap) {
		*id = r->rawid[rid];
		goto cache;
	}
	gp__buf_reset(&r->scratch);
	if (n > SIZE_MAX / 2 - 1 || gp__buf_grow(&r->scratch, 2 * n + 1))
		return gp__error(GP_ENOMEM, "out of memory");
	m = json_compact(s->p, n, r->scratch.buf);
	if ((rc = gp__strtab_intern(&r->t->strs, r->scratch.buf, m, id)))
		return rc;
	/* then remembered as written (the text, then its id: never one without the other) */
	if (r->rawtab.n >= GP_RAWTAB_MAX) {
		/* the table is full: the slot keeps the compacted text */
		if (rs) {
			rs->p = gp__strtab_get(&r->t->strs, *id);
			rs->len = gp__strtab_strlen(&r->t->strs, *id);
			rs->id = *id;
		}
		return 0;
	}
	if ((rc =
	         gp__grow((void **)&r->rawid, &r->rawid_cap, r->rawtab.n + 1, sizeof(*r->rawid))) ||
	    (rc = gp__strtab_intern(&r->rawtab, s->p, n, &rid)))
		return rc;
	r->rawid[rid] = *id;
cache:
	/* the slot keeps the text as written (rawtab never moves a string either) */
	if (rs) {
		rs->p = gp__strtab_get(&r->rawtab, rid);
		rs->len = (uint32_t)n;
		rs->id = *id;
	}
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
	if ((rc = gp__strtab_intern(&r->t->strs, p, n, id)))
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

/* a collective count: -1 unknown (absent or negative) */
static int64_t coll_count(const struct evrec *e, unsigned id)
{
	int64_t v = arg_i64(e, id);

	return v >= 0 ? v : -1;
}

/* the collective metadata of the event just stored at @p idx */
static int commit_coll(struct reader *r, const struct evrec *e, size_t idx)
{
	struct gp_coll_info ci;
	uint32_t *const sid[A_CS_N] = {
		[A_DTYPE - A_DTYPE] = &ci.dtype,       [A_PG_NAME - A_DTYPE] = &ci.pg_name,
		[A_PG_DESC - A_DTYPE] = &ci.pg_desc,   [A_PG_RANKS - A_DTYPE] = &ci.pg_ranks,
		[A_IN_SPLIT - A_DTYPE] = &ci.in_split, [A_OUT_SPLIT - A_DTYPE] = &ci.out_split,
	};
	int rc;

	memset(&ci, 0, sizeof(ci));
	if (e->coll.set && (rc = intern(r, &e->coll, &ci.name)))
		return rc;
	for (unsigned k = 0; k < A_CS_N; k++)
		if ((e->aset & ABIT(A_DTYPE + k)) && (rc = intern(r, &e->cs[k], sid[k])))
			return rc;
	ci.in_nelems = coll_count(e, A_IN_NELEMS);
	ci.out_nelems = coll_count(e, A_OUT_NELEMS);
	ci.group_size = coll_count(e, A_GROUP_SIZE);
	ci.src_rank = coll_count(e, A_SRC_RANK);
	ci.dst_rank = coll_count(e, A_DST_RANK);
	ci.seq = coll_count(e, A_SEQ);
	return gp__trace_add_coll(r->t, idx, &ci);
}

/* the record_shapes inputs of the event just stored at @p idx */
static int commit_op_args(struct reader *r, const struct evrec *e, size_t idx)
{
	struct gp_op_args oa;
	uint32_t *const sid[] = { &oa.dims, &oa.types, &oa.concrete };
	int rc;

	memset(&oa, 0, sizeof(oa));
	for (unsigned k = 0; k < GP_ARRAY_SIZE(sid); k++) {
		if (!(e->aset & ABIT(A_DIMS + k)))
			continue;
		if (e->rawhit & (1u << k))
			*sid[k] = e->rawid[k];
		else if ((rc = intern_raw(r, &e->raw[k], e->rawslot[k], sid[k])))
			return rc;
	}
	return gp__trace_add_op_args(r->t, idx, &oa);
}

/* what the cuda_sync event just stored at @p idx waited on */
static int commit_sync(struct reader *r, const struct evrec *e, size_t idx)
{
	struct gp_sync_info si;
	int rc;

	memset(&si, 0, sizeof(si));
	if ((e->aset & ABIT(A_SYNC_KIND)) && (rc = intern(r, &e->skind, &si.kind)))
		return rc;
	si.wait_stream = arg_i64(e, A_WAIT_STREAM);
	si.wait_event_corr = arg_i64(e, A_WAIT_CORR);
	si.wait_event_id = arg_i64(e, A_WAIT_EVID);
	return gp__trace_add_sync(r->t, idx, &si);
}

/* A python_function event: counted; an nn.Module call is also kept. */
static int commit_python(struct reader *r, const struct evrec *e)
{
	static const char pre[] = "nn.Module: ";
	struct gp_py_module pm;
	const char *p;
	size_t n;
	int rc;

	r->t->npy++;
	if (!e->name.set)
		return 0;
	if (!e->name.esc) {
		p = e->name.s.p;
		n = e->name.s.len;
	} else if ((rc = field_text(r, &e->name, &p, &n))) {
		return rc;
	}
	if (n < sizeof(pre) - 1 || memcmp(p, pre, sizeof(pre) - 1) != 0)
		return 0;
	if ((rc = intern(r, &e->name, &pm.name)) || (rc = track_of(r, e, &pm.track)))
		return rc;
	pm.ts = e->ts;
	pm.dur = e->dur;
	pm.id = arg_i64(e, A_PY_ID);
	pm.parent = arg_i64(e, A_PY_PARENT);
	return gp__trace_add_py_module(r->t, &pm);
}

static int commit_complete(struct reader *r, const struct evrec *e, uint32_t cat_id,
                           enum gp_kind kind)
{
	struct gp_trace *t = r->t;
	uint32_t name_id, track;
	size_t idx;
	int rc;

	if (cat_id && cat_id == r->id_python)
		return commit_python(r, e);
	if (r->max_events && t->ev.n >= r->max_events)
		return gp__error(GP_ELIMIT, "more than %llu events",
		                 (unsigned long long)r->max_events);
	if ((rc = intern(r, &e->name, &name_id)))
		return rc;
	if ((rc = track_of(r, e, &track)))
		return rc;
	if ((rc = gp__trace_add_event(t, kind, name_id, track, e->ts, e->dur, &idx)))
		return rc;
	if ((kind == GP_K_USER_ANNOTATION || kind == GP_K_CPU_OP) &&
	    is_step_name(gp__strtab_get(&t->strs, name_id), gp__strtab_strlen(&t->strs, name_id))) {
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
		if (arg_i32(e, A_DEVICE) >= 0) {
			tr->device = arg_i32(e, A_DEVICE);
			tr->set |= GP_TRS_DEVICE;
		} else if (tr->device < 0 && e->pid.num >= 0 && e->pid.num <= INT32_MAX)
			tr->device = (int32_t)e->pid.num;
		tr->stream = e->aset & ABIT(A_STREAM) ? e->a[A_STREAM] : stream_from_tid(e);
	}
	if ((e->aset & ABITS_OPARGS) && (rc = commit_op_args(r, e, idx)))
		return rc;
	if (kind == GP_K_SYNC && (e->aset & ABITS_SYNC) && (rc = commit_sync(r, e, idx)))
		return rc;
	if ((e->aset & ABITS_COLL) || e->coll.set)
		return commit_coll(r, e, idx);
	return 0;
}

int gp__kineto_commit(struct reader *r, const struct evrec *e)
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
			t->tracks[tr].set |= GP_TRS_NAME;
		}
		return 0;
	default:
		return 0;
	}
}
