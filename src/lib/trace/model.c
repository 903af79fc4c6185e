/* SPDX-License-Identifier: MIT */
/*
 * model.c - construction and teardown of the trace model (model.h).
 *
 * Columns grow together: an append either extends every column or none, so
 * a failed append leaves the trace consistent. gp__trace_append() merges a
 * trace read from the second half of a file into the first half's. Used by
 * the readers and by tests that build synthetic traces directly.
 */
#include "model.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"

int gp__trace_new(const char *path, struct gp_trace **out)
{
	struct gp_trace *t = gp__calloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if (!t)
		return gp__error(GP_ENOMEM, "out of memory");
	t->rank = -1;
	t->world_size = -1;
	t->path = gp__strdup(path ? path : "<memory>");
	if (!t->path) {
		gp__free(t);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if ((rc = gp__strtab_init(&t->strs))) {
		gp__free(t->path);
		gp__free(t);
		return rc;
	}
	*out = t;
	return 0;
}

GP_API void gp_trace_free(struct gp_trace *t)
{
	if (!t)
		return;
	gp__free(t->ev.ts);
	gp__free(t->ev.dur);
	gp__free(t->ev.corr);
	gp__free(t->ev.ext);
	gp__free(t->ev.stream);
	gp__free(t->ev.name);
	gp__free(t->ev.track);
	gp__free(t->ev.aux);
	gp__free(t->ev.kind);
	gp__free(t->ev.flags);
	gp__free(t->gpu);
	gp__free(t->mem);
	gp__free(t->coll);
	gp__free(t->opargs);
	gp__free(t->sync);
	gp__free(t->pymod);
	gp__free(t->tracks);
	gp__free(t->track_ix);
	gp__free(t->cats);
	gp_value_free(t->meta);
	gp__u64map_release(&t->nvtx_names);
	gp__u64map_release(&t->range_src);
	gp__free(t->ctr);
	gp__strtab_release(&t->strs);
	gp__free(t->path);
	gp__free(t);
}

static int grow_col(void **col, size_t ncap, size_t size)
{
	void *p;

	p = gp__reallocarray(*col, ncap, size);
	if (!p)
		return gp__error(GP_ENOMEM, "out of memory growing the event table to %zu events",
		                 ncap);
	*col = p;
	return 0;
}

static int events_grow(struct gp_events *e, size_t ncap)
{
	int rc = 0;

	/* Each column is grown in turn; a failure leaves n unchanged, so the
	 * columns that did grow are merely larger than needed. */
	if ((rc = grow_col((void **)&e->ts, ncap, sizeof(*e->ts))) ||
	    (rc = grow_col((void **)&e->dur, ncap, sizeof(*e->dur))) ||
	    (rc = grow_col((void **)&e->corr, ncap, sizeof(*e->corr))) ||
	    (rc = grow_col((void **)&e->ext, ncap, sizeof(*e->ext))) ||
	    (rc = grow_col((void **)&e->stream, ncap, sizeof(*e->stream))) ||
	    (rc = grow_col((void **)&e->name, ncap, sizeof(*e->name))) ||
	    (rc = grow_col((void **)&e->track, ncap, sizeof(*e->track))) ||
	    (rc = grow_col((void **)&e->aux, ncap, sizeof(*e->aux))) ||
	    (rc = grow_col((void **)&e->kind, ncap, sizeof(*e->kind))) ||
	    (rc = grow_col((void **)&e->flags, ncap, sizeof(*e->flags))))
		return rc;
	e->cap = ncap;
	return 0;
}

int gp__trace_check_time(int64_t ts, int64_t dur)
{
	if (ts < -GP_TIME_LIMIT || ts > GP_TIME_LIMIT || dur < 0 || dur > GP_TIME_LIMIT ||
	    ts > GP_TIME_LIMIT - dur)
		return gp__error(GP_EFORMAT, "time out of range: ts and ts + dur must lie within "
		                             "+-2^62 ns");
	return 0;
}

/* adds @p v (>= 0) to the running sum *@p sum, keeping it within GP_SUM_LIMIT */
static int add_to_sum(int64_t *sum, int64_t v, const char *what)
{
	if (v > GP_SUM_LIMIT - *sum)
		return gp__error(GP_EFORMAT, "%s add up to more than 2^62", what);
	*sum += v;
	return 0;
}

int gp__trace_add_event(struct gp_trace *t, enum gp_kind kind, uint32_t name, uint32_t track,
                        int64_t ts, int64_t dur, size_t *idx)
{
	struct gp_events *e = &t->ev;
	size_t i;
	int rc;

	if ((rc = gp__trace_check_time(ts, dur)))
		return rc;
	if ((rc = add_to_sum(&t->dur_sum, dur, "event durations")))
		return rc;

	if (e->n >= UINT32_MAX - 1)
		return gp__error(GP_ELIMIT, "more than %u events", UINT32_MAX - 1);
	if (e->n == e->cap && (rc = events_grow(e, e->cap ? e->cap * 2 : 4096)))
		return rc;
	i = e->n++;
	e->ts[i] = ts;
	e->dur[i] = dur;
	e->corr[i] = -1;
	e->ext[i] = -1;
	e->stream[i] = -1;
	e->name[i] = name;
	e->track[i] = track;
	e->aux[i] = UINT32_MAX;
	e->kind[i] = (uint8_t)kind;
	e->flags[i] = 0;
	if (idx)
		*idx = i;
	return 0;
}

int gp__trace_add_gpu_info(struct gp_trace *t, size_t idx, const struct gp_gpu_info *gi)
{
	int rc;

	if (idx >= t->ev.n)
		return gp__error(GP_EINVAL, "no event %zu", idx);
	if (gi->bytes > 0 && (rc = add_to_sum(&t->copy_bytes_sum, gi->bytes, "copy bytes")))
		return rc;
	if ((rc = gp__grow((void **)&t->gpu, &t->gpu_cap, t->ngpu + 1, sizeof(*t->gpu))))
		return rc;
	t->gpu[t->ngpu] = *gi;
	t->ev.aux[idx] = (uint32_t)t->ngpu++;
	return 0;
}

int gp__trace_add_coll(struct gp_trace *t, size_t idx, const struct gp_coll_info *ci)
{
	int rc;

	if (idx >= t->ev.n || (t->ncoll && t->coll[t->ncoll - 1].ev >= idx))
		return gp__error(GP_EINVAL, "collective metadata for event %zu out of order", idx);
	if ((rc = gp__grow((void **)&t->coll, &t->coll_cap, t->ncoll + 1, sizeof(*t->coll))))
		return rc;
	t->coll[t->ncoll] = *ci;
	t->coll[t->ncoll++].ev = (uint32_t)idx;
	return 0;
}

const struct gp_coll_info *gp__trace_coll(const struct gp_trace *t, size_t ev)
{
	size_t lo = 0, hi = t->ncoll;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->coll[mid].ev < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ncoll && t->coll[lo].ev == ev ? &t->coll[lo] : NULL;
}

/* The entry of @p ev in a side table sorted by ev (each entry's first member is uint32_t ev). */
static const void *side_find(const void *base, size_t n, size_t size, size_t ev)
{
	const char *b = base;
	size_t lo = 0, hi = n;
	uint32_t at;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&at, b + mid * size, sizeof(at));
		if (at < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n)
		return NULL;
	memcpy(&at, b + lo * size, sizeof(at));
	return at == ev ? b + lo * size : NULL;
}

int gp__trace_add_op_args(struct gp_trace *t, size_t idx, const struct gp_op_args *oa)
{
	int rc;

	if (idx >= t->ev.n || (t->nopargs && t->opargs[t->nopargs - 1].ev >= idx))
		return gp__error(GP_EINVAL, "op inputs for event %zu out of order", idx);
	if ((rc =
	         gp__grow((void **)&t->opargs, &t->opargs_cap, t->nopargs + 1, sizeof(*t->opargs))))
		return rc;
	t->opargs[t->nopargs] = *oa;
	t->opargs[t->nopargs++].ev = (uint32_t)idx;
	return 0;
}

const struct gp_op_args *gp__trace_op_args(const struct gp_trace *t, size_t ev)
{
	return side_find(t->opargs, t->nopargs, sizeof(*t->opargs), ev);
}

int gp__trace_add_sync(struct gp_trace *t, size_t idx, const struct gp_sync_info *si)
{
	int rc;

	if (idx >= t->ev.n || (t->nsync && t->sync[t->nsync - 1].ev >= idx))
		return gp__error(GP_EINVAL, "sync details for event %zu out of order", idx);
	if ((rc = gp__grow((void **)&t->sync, &t->sync_cap, t->nsync + 1, sizeof(*t->sync))))
		return rc;
	t->sync[t->nsync] = *si;
	t->sync[t->nsync++].ev = (uint32_t)idx;
	return 0;
}

const struct gp_sync_info *gp__trace_sync(const struct gp_trace *t, size_t ev)
{
	return side_find(t->sync, t->nsync, sizeof(*t->sync), ev);
}

int gp__trace_add_py_module(struct gp_trace *t, const struct gp_py_module *pm)
{
	int rc;

	if (pm->dur < 0 || gp__trace_check_time(pm->ts, pm->dur))
		return gp__error(GP_EFORMAT, "nn.Module event time out of range");
	if ((rc = gp__grow((void **)&t->pymod, &t->pymod_cap, t->npymod + 1, sizeof(*t->pymod))))
		return rc;
	t->pymod[t->npymod++] = *pm;
	return 0;
}

int gp__trace_add_mem(struct gp_trace *t, const struct gp_mem_event *m)
{
	int rc;

	if ((rc = gp__trace_check_time(m->ts, 0)))
		return rc;
	if (m->bytes == INT64_MIN ||
	    (rc = add_to_sum(&t->mem_bytes_sum, m->bytes < 0 ? -m->bytes : m->bytes,
	                     "memory event bytes")))
		return rc ? rc : gp__error(GP_EFORMAT, "memory event bytes out of range");

	if ((rc = gp__grow((void **)&t->mem, &t->mem_cap, t->nmem + 1, sizeof(*t->mem))))
		return rc;
	t->mem[t->nmem++] = *m;
	return 0;
}

static size_t track_hash(int64_t pid, uint32_t pid_str, int64_t tid, uint32_t tid_str)
{
	return (size_t)gp_hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid ^
	                           ((uint64_t)pid_str << 32 | tid_str));
}

static bool track_is(const struct gp_track *tr, int64_t pid, uint32_t pid_str, int64_t tid,
                     uint32_t tid_str)
{
	return tr->pid == pid && tr->tid == tid && tr->pid_str == pid_str && tr->tid_str == tid_str;
}

/* (Re)builds the index with room for twice the tracks. */
static int track_index(struct gp_trace *t)
{
	size_t n = 64, mask;
	uint32_t *ix;

	while (n < 2 * (t->ntracks + 1))
		n *= 2;
	if (!(ix = gp__calloc(n, sizeof(*ix))))
		return gp__error(GP_ENOMEM, "out of memory");
	mask = n - 1;
	for (size_t i = 0; i < t->ntracks; i++) {
		const struct gp_track *tr = &t->tracks[i];
		size_t j = track_hash(tr->pid, tr->pid_str, tr->tid, tr->tid_str) & mask;

		while (ix[j])
			j = (j + 1) & mask;
		ix[j] = (uint32_t)i + 1;
	}
	gp__free(t->track_ix);
	t->track_ix = ix;
	t->track_ix_slots = n;
	return 0;
}

/*
 * Finds or adds the track (pid, tid) with their string forms. A hash index
 * (a trace may have a million threads; a scan per event would be quadratic),
 * behind a check of the track found last, which most events repeat.
 */
int gp__trace_track(struct gp_trace *t, int64_t pid, uint32_t pid_str, int64_t tid,
                    uint32_t tid_str, uint32_t *out)
{
	struct gp_track *tr;
	size_t j, mask;
	int rc;

	if (t->track_last && t->track_last <= t->ntracks &&
	    track_is(&t->tracks[t->track_last - 1], pid, pid_str, tid, tid_str)) {
		*out = t->track_last - 1;
		return 0;
	}
	if (2 * (t->ntracks + 1) > t->track_ix_slots && (rc = track_index(t)))
		return rc;
	mask = t->track_ix_slots - 1;
	for (j = track_hash(pid, pid_str, tid, tid_str) & mask; t->track_ix[j];
	     j = (j + 1) & mask) {
		if (track_is(&t->tracks[t->track_ix[j] - 1], pid, pid_str, tid, tid_str)) {
			*out = t->track_ix[j] - 1;
			t->track_last = t->track_ix[j];
			return 0;
		}
	}
	if (t->ntracks >= 1u << 20)
		return gp__error(GP_ELIMIT, "more than %u tracks", 1u << 20);
	if ((rc =
	         gp__grow((void **)&t->tracks, &t->tracks_cap, t->ntracks + 1, sizeof(*t->tracks))))
		return rc;
	tr = &t->tracks[t->ntracks];
	memset(tr, 0, sizeof(*tr));
	tr->pid = pid;
	tr->tid = tid;
	tr->pid_str = pid_str;
	tr->tid_str = tid_str;
	tr->device = -1;
	tr->stream = -1;
	t->track_ix[j] = (uint32_t)t->ntracks + 1;
	*out = (uint32_t)t->ntracks++;
	t->track_last = *out + 1;
	return 0;
}

int gp__trace_count_cat(struct gp_trace *t, char ph, uint32_t cat)
{
	size_t i;
	int rc;

	for (i = 0; i < t->ncats; i++) {
		if (t->cats[i].cat == cat && t->cats[i].ph == ph) {
			t->cats[i].count++;
			return 0;
		}
	}
	if (t->ncats >= GP_TRACE_MAX_CATS) {
		/* a pathological file with endless categories: stop counting new ones */
		t->cats_full = true;
		return 0;
	}
	if ((rc = gp__grow((void **)&t->cats, &t->cats_cap, t->ncats + 1, sizeof(*t->cats))))
		return rc;
	t->cats[t->ncats].cat = cat;
	t->cats[t->ncats].ph = ph;
	t->cats[t->ncats].count = 1;
	t->ncats++;
	return 0;
}

/* Capacity the event columns reach by doubling from 4096, as appends grow them. */
static size_t doubled_cap(size_t cap, size_t need)
{
	while (cap < need)
		cap = cap ? cap * 2 : 4096;
	return cap;
}

static int append_cats(struct gp_trace *dst, const struct gp_trace *src, const uint32_t *smap)
{
	size_t i, j;
	int rc;

	for (i = 0; i < src->ncats; i++) {
		const struct gp_cat_count *c = &src->cats[i];
		uint32_t cat = smap[c->cat];

		for (j = 0; j < dst->ncats; j++)
			if (dst->cats[j].cat == cat && dst->cats[j].ph == c->ph)
				break;
		if (j < dst->ncats) {
			dst->cats[j].count += c->count;
			continue;
		}
		if (dst->ncats >= GP_TRACE_MAX_CATS) {
			dst->cats_full = true;
			continue;
		}
		if ((rc = gp__grow((void **)&dst->cats, &dst->cats_cap, dst->ncats + 1,
		                   sizeof(*dst->cats))))
			return rc;
		dst->cats[dst->ncats].cat = cat;
		dst->cats[dst->ncats].ph = c->ph;
		dst->cats[dst->ncats].count = c->count;
		dst->ncats++;
	}
	dst->cats_full |= src->cats_full;
	return 0;
}

/* Finds or adds src's tracks in dst; merges what src's events set on them. */
static int append_tracks(struct gp_trace *dst, const struct gp_trace *src, const uint32_t *smap,
                         uint32_t *tmap)
{
	size_t i;
	int rc;

	for (i = 0; i < src->ntracks; i++) {
		const struct gp_track *s = &src->tracks[i];
		struct gp_track *d;

		if ((rc = gp__trace_track(dst, s->pid, smap[s->pid_str], s->tid, smap[s->tid_str],
		                          &tmap[i])))
			return rc;
		d = &dst->tracks[tmap[i]];
		if (s->set & GP_TRS_NAME)
			d->name = smap[s->name]; /* the last thread_name wins */
		if (s->gpu) {
			/*
			 * Each GPU event sets the stream; the device comes from
			 * args.device, else from the pid when still unknown. So
			 * src's device stands unless it was only a pid fallback
			 * and dst already knew one.
			 */
			if ((s->set & GP_TRS_DEVICE) || d->device < 0)
				d->device = s->device;
			d->stream = s->stream;
			d->gpu = true;
		}
		d->set |= s->set;
	}
	return 0;
}

static int append_events(struct gp_trace *dst, const struct gp_trace *src, const uint32_t *smap,
                         const uint32_t *tmap, size_t g0)
{
	struct gp_events *d = &dst->ev;
	const struct gp_events *s = &src->ev;
	size_t n0 = d->n, i, ncap;
	int rc;

	if (s->n > UINT32_MAX - 1 - n0)
		return gp__error(GP_ELIMIT, "more than %u events", UINT32_MAX - 1);
	ncap = doubled_cap(d->cap, n0 + s->n);
	if (ncap != d->cap && (rc = events_grow(d, ncap)))
		return rc;
	if (!s->n)
		return 0;
	memcpy(d->ts + n0, s->ts, s->n * sizeof(*s->ts));
	memcpy(d->dur + n0, s->dur, s->n * sizeof(*s->dur));
	memcpy(d->corr + n0, s->corr, s->n * sizeof(*s->corr));
	memcpy(d->ext + n0, s->ext, s->n * sizeof(*s->ext));
	memcpy(d->stream + n0, s->stream, s->n * sizeof(*s->stream));
	memcpy(d->kind + n0, s->kind, s->n * sizeof(*s->kind));
	memcpy(d->flags + n0, s->flags, s->n * sizeof(*s->flags));
	for (i = 0; i < s->n; i++) {
		d->name[n0 + i] = smap[s->name[i]];
		d->track[n0 + i] = tmap[s->track[i]];
		d->aux[n0 + i] = s->aux[i] == UINT32_MAX ? UINT32_MAX : (uint32_t)(s->aux[i] + g0);
	}
	d->n = n0 + s->n;
	return 0;
}

/* src's collective metadata after dst's, its events' indices shifted by @p n0 */
static int append_coll(struct gp_trace *dst, const struct gp_trace *src, const uint32_t *smap,
                       size_t n0)
{
	size_t c0 = dst->ncoll, i;
	int rc;

	if (!src->ncoll)
		return 0;
	if (src->ev.n > UINT32_MAX - 1 - n0)
		return gp__error(GP_ELIMIT, "more than %u events", UINT32_MAX - 1);
	if ((rc = gp__grow((void **)&dst->coll, &dst->coll_cap, c0 + src->ncoll,
	                   sizeof(*dst->coll))))
		return rc;
	for (i = 0; i < src->ncoll; i++) {
		struct gp_coll_info *d = &dst->coll[c0 + i];

		*d = src->coll[i];
		d->ev = (uint32_t)(src->coll[i].ev + n0);
		d->name = smap[d->name];
		d->dtype = smap[d->dtype];
		d->pg_name = smap[d->pg_name];
		d->pg_desc = smap[d->pg_desc];
		d->pg_ranks = smap[d->pg_ranks];
		d->in_split = smap[d->in_split];
		d->out_split = smap[d->out_split];
	}
	dst->ncoll = c0 + src->ncoll;
	return 0;
}

/* src's op inputs and sync details after dst's, events shifted by @p n0; its nn.Module calls */
static int append_side(struct gp_trace *dst, const struct gp_trace *src, const uint32_t *smap,
                       const uint32_t *tmap, size_t n0)
{
	size_t o0 = dst->nopargs, s0 = dst->nsync, p0 = dst->npymod, i;
	int rc;

	if ((src->nopargs || src->nsync) && src->ev.n > UINT32_MAX - 1 - n0)
		return gp__error(GP_ELIMIT, "more than %u events", UINT32_MAX - 1);
	if ((rc = gp__grow((void **)&dst->opargs, &dst->opargs_cap, o0 + src->nopargs,
	                   sizeof(*dst->opargs))) ||
	    (rc = gp__grow((void **)&dst->sync, &dst->sync_cap, s0 + src->nsync,
	                   sizeof(*dst->sync))) ||
	    (rc = gp__grow((void **)&dst->pymod, &dst->pymod_cap, p0 + src->npymod,
	                   sizeof(*dst->pymod))))
		return rc;
	for (i = 0; i < src->nopargs; i++) {
		struct gp_op_args *d = &dst->opargs[o0 + i];

		*d = src->opargs[i];
		d->ev = (uint32_t)(d->ev + n0);
		d->dims = smap[d->dims];
		d->types = smap[d->types];
		d->concrete = smap[d->concrete];
	}
	dst->nopargs = o0 + src->nopargs;
	for (i = 0; i < src->nsync; i++) {
		struct gp_sync_info *d = &dst->sync[s0 + i];

		*d = src->sync[i];
		d->ev = (uint32_t)(d->ev + n0);
		d->kind = smap[d->kind];
	}
	dst->nsync = s0 + src->nsync;
	for (i = 0; i < src->npymod; i++) {
		struct gp_py_module *d = &dst->pymod[p0 + i];

		*d = src->pymod[i];
		d->name = smap[d->name];
		d->track = tmap[d->track];
	}
	dst->npymod = p0 + src->npymod;
	return 0;
}

int gp__trace_append(struct gp_trace *dst, const struct gp_trace *src)
{
	uint32_t *smap = NULL, *tmap = NULL;
	size_t i, g0 = dst->ngpu, m0 = dst->nmem, n0 = dst->ev.n;
	int rc = 0;

	if (src->ngpu > UINT32_MAX - 1 - g0) {
		rc = gp__error(GP_ELIMIT, "more than %u GPU events", UINT32_MAX - 1);
		goto out;
	}
	smap = gp__calloc(src->strs.n ? src->strs.n : 1, sizeof(*smap));
	tmap = gp__calloc(src->ntracks ? src->ntracks : 1, sizeof(*tmap));
	if (!smap || !tmap) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	/* in src's id order, which is the order of first use in src's part */
	for (i = 1; i < src->strs.n; i++)
		GP_TRY(gp__strtab_intern(&dst->strs, src->strs.str[i], src->strs.len[i], &smap[i]));
	GP_TRY(append_tracks(dst, src, smap, tmap));
	GP_TRY(gp__grow((void **)&dst->gpu, &dst->gpu_cap, g0 + src->ngpu, sizeof(*dst->gpu)));
	for (i = 0; i < src->ngpu; i++) {
		dst->gpu[g0 + i] = src->gpu[i];
		dst->gpu[g0 + i].collective = smap[src->gpu[i].collective];
	}
	dst->ngpu = g0 + src->ngpu;
	GP_TRY(gp__grow((void **)&dst->mem, &dst->mem_cap, m0 + src->nmem, sizeof(*dst->mem)));
	for (i = 0; i < src->nmem; i++) {
		dst->mem[m0 + i] = src->mem[i];
		dst->mem[m0 + i].track = tmap[src->mem[i].track];
	}
	dst->nmem = m0 + src->nmem;
	GP_TRY(append_coll(dst, src, smap, n0));
	GP_TRY(append_side(dst, src, smap, tmap, n0));
	GP_TRY(append_events(dst, src, smap, tmap, g0));
	GP_TRY(append_cats(dst, src, smap));
	for (i = 0; i < src->nvtx_names.nslot; i++) {
		uint64_t k = src->nvtx_names.keys[i], v = src->nvtx_names.vals[i];

		if (!src->nvtx_names.used[i] || k >= src->strs.n || (v >> 32) >= src->strs.n ||
		    (v & UINT32_MAX) >= src->strs.n)
			continue;
		GP_TRY(gp__u64map_put(&dst->nvtx_names, smap[k],
		                      (uint64_t)smap[v >> 32] << 32 | smap[v & UINT32_MAX]));
	}
	for (i = 0; i < src->range_src.nslot; i++) {
		uint64_t k = src->range_src.keys[i], v = src->range_src.vals[i];

		if (src->range_src.used[i] && k < src->strs.n && v < src->strs.n)
			GP_TRY(gp__u64map_put_new(&dst->range_src, smap[k], smap[v], NULL));
	}
	GP_TRY(
	    gp__grow((void **)&dst->ctr, &dst->ctr_cap, dst->nctr + src->nctr, sizeof(*dst->ctr)));
	for (i = 0; i < src->nctr; i++) {
		dst->ctr[dst->nctr] = src->ctr[i];
		dst->ctr[dst->nctr].name = smap[src->ctr[i].name];
		dst->ctr[dst->nctr++].track = tmap[src->ctr[i].track];
	}
	dst->has_counters |= src->has_counters;
	dst->npy += src->npy;
	dst->events_read += src->events_read;
	/* within GP_SUM_LIMIT: the caller checked before merging */
	dst->dur_sum += src->dur_sum;
	dst->mem_bytes_sum += src->mem_bytes_sum;
	dst->copy_bytes_sum += src->copy_bytes_sum;
	dst->ts_float |= src->ts_float;
out:
	gp__free(smap);
	gp__free(tmap);
	return rc;
}

static const struct {
	const char *cat;
	enum gp_kind kind;
} cat_kinds[] = {
	{ "cpu_op", GP_K_CPU_OP },
	{ "Operator", GP_K_CPU_OP },
	{ "user_annotation", GP_K_USER_ANNOTATION },
	{ "gpu_user_annotation", GP_K_GPU_ANNOTATION },
	{ "cuda_runtime", GP_K_RUNTIME },
	{ "Runtime", GP_K_RUNTIME },
	{ "cuda_driver", GP_K_DRIVER },
	{ "Driver", GP_K_DRIVER },
	{ "kernel", GP_K_KERNEL },
	{ "Kernel", GP_K_KERNEL },
	{ "gpu_memcpy", GP_K_MEMCPY },
	{ "Memcpy", GP_K_MEMCPY },
	{ "gpu_memset", GP_K_MEMSET },
	{ "Memset", GP_K_MEMSET },
	{ "cuda_sync", GP_K_SYNC },
	{ "Trace", GP_K_TRACE },
	{ "overhead", GP_K_OVERHEAD },
};

enum gp_kind gp__kind_from_cat(const char *cat, size_t len)
{
	size_t i;

	if (!cat)
		return GP_K_OTHER;
	for (i = 0; i < GP_ARRAY_SIZE(cat_kinds); i++) {
		if (strlen(cat_kinds[i].cat) == len && memcmp(cat_kinds[i].cat, cat, len) == 0)
			return cat_kinds[i].kind;
	}
	return GP_K_OTHER;
}

const char *gp__kind_name(enum gp_kind k)
{
	static const char *const names[GP_K__COUNT] = {
		[GP_K_OTHER] = "other",
		[GP_K_CPU_OP] = "cpu_op",
		[GP_K_USER_ANNOTATION] = "user_annotation",
		[GP_K_GPU_ANNOTATION] = "gpu_user_annotation",
		[GP_K_RUNTIME] = "cuda_runtime",
		[GP_K_DRIVER] = "cuda_driver",
		[GP_K_KERNEL] = "kernel",
		[GP_K_MEMCPY] = "gpu_memcpy",
		[GP_K_MEMSET] = "gpu_memset",
		[GP_K_SYNC] = "cuda_sync",
		[GP_K_TRACE] = "trace",
		[GP_K_OVERHEAD] = "overhead",
	};
	return (unsigned)k < GP_K__COUNT ? names[k] : "other";
}

static void device_props_fill(const struct gp_value *d, int64_t id, struct gp_device_props *out)
{
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->name = gp_value_get_str(gp_obj_get(d, "name"));
	if (!gp_value_get_int(gp_obj_get(d, "totalGlobalMem"), &out->total_mem))
		out->total_mem = -1;
	if (!gp_value_get_int(gp_obj_get(d, "numSms"), &out->num_sms))
		out->num_sms = -1;
	if (!gp_value_get_int(gp_obj_get(d, "maxThreadsPerMultiprocessor"),
	                      &out->max_threads_per_sm))
		out->max_threads_per_sm = -1;
	if (!gp_value_get_int(gp_obj_get(d, "computeMajor"), &out->compute_major))
		out->compute_major = -1;
	if (!gp_value_get_int(gp_obj_get(d, "computeMinor"), &out->compute_minor))
		out->compute_minor = -1;
	if (!gp_value_get_int(gp_obj_get(d, "warpSize"), &out->warp_size))
		out->warp_size = -1;
}

bool gp__trace_device_props(const struct gp_trace *t, int64_t device, struct gp_device_props *out)
{
	const struct gp_value *props = gp_obj_get(t->meta, "deviceProperties");
	size_t i, n = gp_value_len(props);

	for (i = 0; i < n; i++) {
		const struct gp_value *d = gp_arr_get(props, i);
		int64_t id;

		if (!gp_value_get_int(gp_obj_get(d, "id"), &id) || id != device)
			continue;
		device_props_fill(d, id, out);
		return true;
	}
	return false;
}

bool gp__trace_device_props_at(const struct gp_trace *t, size_t k, struct gp_device_props *out)
{
	const struct gp_value *d = gp_arr_get(gp_obj_get(t->meta, "deviceProperties"), k);
	int64_t id;

	if (gp_value_type(d) != GP_VALUE_OBJECT)
		return false;
	if (!gp_value_get_int(gp_obj_get(d, "id"), &id))
		id = -1;
	device_props_fill(d, id, out);
	return true;
}

bool gp__trace_device_model(const struct gp_trace *t, int64_t device, struct gp_device_props *out,
                            bool *by_id)
{
	struct gp_device_props q;
	size_t k;

	*by_id = true;
	if (gp__trace_device_props(t, device, out))
		return true;
	*by_id = false;
	if (!gp__trace_device_props_at(t, 0, out) || !out->name)
		return false;
	for (k = 1; gp__trace_device_props_at(t, k, &q); k++)
		if (!q.name || strcmp(q.name, out->name) || q.compute_major != out->compute_major ||
		    q.compute_minor != out->compute_minor)
			return false;
	out->id = device;
	return true;
}

/* is @p word in @p s as a word of its own (case-insensitive)? */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = s; *p; p++) {
		if (p != s && isalnum((unsigned char)p[-1]))
			continue;
		if (strncasecmp(p, word, n) == 0 && !isalnum((unsigned char)p[n]))
			return true;
	}
	return false;
}

const char *gp__vendor_name(enum gp__vendor v)
{
	return v == GP_VENDOR_NVIDIA ? "nvidia" : v == GP_VENDOR_AMD ? "amd" : NULL;
}

enum gp__vendor gp__device_vendor(const struct gp_device_props *p)
{
	static const char *const nvidia[] = { "NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN" };
	static const char *const amd[] = { "AMD", "Radeon", "Instinct" };
	size_t k;

	for (k = 0; p->name && k < GP_ARRAY_SIZE(nvidia); k++)
		if (has_word(p->name, nvidia[k]))
			return GP_VENDOR_NVIDIA;
	for (k = 0; p->name && k < GP_ARRAY_SIZE(amd); k++)
		if (has_word(p->name, amd[k]))
			return GP_VENDOR_AMD;
	/* only AMD's wavefronts are 64 wide; RDNA runs 32, like NVIDIA: no answer there */
	return p->warp_size == 64 ? GP_VENDOR_AMD : GP_VENDOR_UNKNOWN;
}

enum gp__vendor gp__trace_vendor(const struct gp_trace *t)
{
	static const char *const amd_keys[] = { "hip_runtime_version", "hip_driver_version",
		                                "roctracer_version" };
	static const char *const nv_keys[] = { "cuda_runtime_version", "cuda_driver_version",
		                               "cupti_version" };
	enum gp__vendor v = GP_VENDOR_UNKNOWN;
	struct gp_device_props p;
	size_t k;

	for (k = 0; gp__trace_device_props_at(t, k, &p); k++) {
		enum gp__vendor d = gp__device_vendor(&p);

		if (d == GP_VENDOR_UNKNOWN)
			continue;
		if (v != GP_VENDOR_UNKNOWN && d != v)
			return GP_VENDOR_UNKNOWN; /* a mixed machine: no one answer */
		v = d;
	}
	if (v != GP_VENDOR_UNKNOWN)
		return v;
	for (k = 0; k < GP_ARRAY_SIZE(amd_keys); k++)
		if (gp_obj_get(t->meta, amd_keys[k]))
			return GP_VENDOR_AMD;
	for (k = 0; k < GP_ARRAY_SIZE(nv_keys); k++)
		if (gp_obj_get(t->meta, nv_keys[k]))
			return GP_VENDOR_NVIDIA;
	return GP_VENDOR_UNKNOWN;
}

GP_API const char *gp_trace_name(const struct gp_trace *t)
{
	return t ? t->path : "";
}

GP_API int64_t gp_trace_rank(const struct gp_trace *t)
{
	return t ? t->rank : -1;
}

GP_API uint64_t gp_trace_event_count(const struct gp_trace *t)
{
	return t ? t->ev.n : 0;
}

GP_API uint64_t gp_trace_events_read(const struct gp_trace *t)
{
	return t ? t->events_read : 0;
}

GP_API bool gp_trace_salvage(const struct gp_trace *t, uint64_t *offset, uint64_t *lost_bytes)
{
	if (!t || !t->salvaged)
		return false;
	if (offset)
		*offset = t->damage_offset;
	if (lost_bytes)
		*lost_bytes = t->lost_bytes;
	return true;
}

GP_API const struct gp_value *gp_trace_metadata(const struct gp_trace *t)
{
	return t ? t->meta : NULL;
}
