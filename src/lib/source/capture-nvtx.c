/* SPDX-License-Identifier: MIT */
/*
 * capture-nvtx.c - the NVTX records of a capture (docs/capture-format.md):
 * push/pop ranges matched per thread and domain, start/end ranges by id,
 * marks, the annotation API's sites and counters, and PyTorch's own ranges
 * (the startup hook's nn.Module calls and emit_nvtx's operators with their
 * sizes) turned into the model's events; a capture window's end cuts the
 * ranges still open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-int.h"
#include "torch-nvtx.h"
#include "util/error.h"
#include "util/json-scan.h"

/* ---- NVTX ---- */

/* The push/pop stack of (tid, domain), made on first use; a hash lookup (there may be millions). */
static struct tstack *stack_of(struct rd *r, uint32_t tid, uint32_t domain)
{
	uint64_t key = (uint64_t)tid << 32 | domain, i;

	if (gp__u64map_get(&r->stack_ix, key, &i) == 1 && i < r->nstacks)
		return &r->stacks[i];
	if (gp__grow((void **)&r->stacks, &r->stacks_cap, r->nstacks + 1, sizeof(*r->stacks)) < 0 ||
	    gp__u64map_put(&r->stack_ix, key, r->nstacks) < 0)
		return NULL;
	memset(&r->stacks[r->nstacks], 0, sizeof(r->stacks[0]));
	r->stacks[r->nstacks].tid = tid;
	r->stacks[r->nstacks].domain = domain;
	return &r->stacks[r->nstacks++];
}

#define ORDER_SLACK_NS 100 /* the TSC-to-ns conversion of two passes may differ by this */
#define ORDER_WARN_MAX 8   /* threads named in a warning; the others are counted */

/*
 * The tracer writes each thread's records in the order the thread made them
 * (capture-format.md), and ranges are paired in file order: a record older
 * than its thread's previous one means they cannot be paired reliably.
 * Counted, and said in a warning naming the thread and the byte offset.
 */
static int check_order(struct rd *r, uint32_t tid, int64_t ts)
{
	uint64_t prev;
	char text[256];
	int k, rc;

	/* prev - ts in unsigned arithmetic: exact when prev > ts, whatever the file's times */
	if (gp__u64map_get(&r->last_ts, tid, &prev) == 1 && ts < (int64_t)prev &&
	    prev - (uint64_t)ts > ORDER_SLACK_NS) {
		r->out_of_order++;
		if (r->order_warned.n < ORDER_WARN_MAX &&
		    gp__u64map_get(&r->order_warned, tid, NULL) == 0) {
			if ((rc = gp__u64map_put(&r->order_warned, tid, 1)))
				return rc;
			k = snprintf(
			    text, sizeof(text),
			    "thread %u's records are out of order at byte %zu (a record at "
			    "%lld ns after one at %lld ns): its ranges cannot be paired "
			    "reliably; the capture was written by a faulty tracer or altered",
			    tid, r->off, (long long)ts, (long long)prev);
			if ((rc = gp__cap_warn(r, 0, text,
			                       (size_t)k < sizeof(text) ? (size_t)k
			                                                : sizeof(text) - 1)))
				return rc;
		}
		return 0; /* the later time stays the thread's last */
	}
	return gp__u64map_put(&r->last_ts, tid, (uint64_t)ts);
}

/* "message" in the default domain, "domain:message" in others; a registered string by id */
static int range_name(struct rd *r, const struct gp_cap_nvtx *n, const char *msg, size_t len,
                      uint32_t *out)
{
	uint64_t dom = 0;
	char buf[4200];
	const char *dn;
	uint32_t mid;
	int k, rc;

	if (n->name) {
		uint64_t v;

		if (gp__u64map_get(&r->strs, n->name, &v) == 1) {
			msg = gp__strtab_get(&r->t->strs, (uint32_t)v);
			len = strlen(msg);
		}
	}
	if (!n->domain || gp__u64map_get(&r->domains, n->domain, &dom) != 1)
		return gp__cap_intern(r, msg, len, out);
	dn = gp__strtab_get(&r->t->strs, (uint32_t)dom);
	if (len > 4096)
		len = 4096;
	k = snprintf(buf, sizeof(buf), "%s:%.*s", dn, (int)len, msg);
	if (k < 0)
		return gp__cap_intern(r, msg, len, out);
	if ((rc = gp__cap_intern(r, buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1,
	                         out)) ||
	    (rc = gp__cap_intern(r, msg, len, &mid)))
		return rc;
	/* the analyses name a range by its message and its domain apart */
	return gp__u64map_put(&r->t->nvtx_names, *out, dom << 32 | mid);
}

static int close_range(struct rd *r, uint32_t tid, int64_t start, int64_t end, uint32_t name,
                       uint8_t flags)
{
	uint32_t tr;
	size_t idx = SIZE_MAX;
	int rc;

	if ((rc = gp__cap_track(r, r->pid, tid, false, -1, &tr)) ||
	    (rc = gp__cap_add(r, GP_K_USER_ANNOTATION, name, tr, start, end, -1, -1, &idx)))
		return rc;
	if (idx < r->t->ev.n)
		r->t->ev.flags[idx] |= flags;
	return 0;
}

/*
 * A pushed range's open entry. In the annotation API's domain, a name that
 * starts with "nn.Module: " is a module call of `gpuprof run --pytorch
 * modules`; in the default domain, a message in the form of PyTorch's
 * emit_nvtx is a CPU op (named by the op, with its sizes); everything else
 * is a range named by range_name().
 */
static int push_entry(struct rd *r, const struct gp_cap_nvtx *n, const char *msg, size_t len,
                      struct open_range *o)
{
	struct gp__torch_op op;
	uint64_t v;
	int rc;

	o->ts = n->ts;
	o->dims = 0;
	o->as = AS_RANGE;
	if (n->name && gp__u64map_get(&r->strs, n->name, &v) == 1) {
		msg = gp__strtab_get(&r->t->strs, (uint32_t)v);
		len = gp__strtab_strlen(&r->t->strs, (uint32_t)v);
	}
	if (n->domain && n->domain == r->gp_domain && len > strlen(GP__TORCH_MODULE_PREFIX) &&
	    memcmp(msg, GP__TORCH_MODULE_PREFIX, strlen(GP__TORCH_MODULE_PREFIX)) == 0) {
		o->as = AS_MODULE;
		return gp__cap_intern(r, msg, len, &o->name);
	}
	if (!n->domain && gp__torch_op_parse(msg, len, len >= 4096, &op)) {
		o->as = AS_OP;
		if (op.sizes_len &&
		    (rc = gp__cap_intern(r, msg + op.sizes_off, op.sizes_len, &o->dims)))
			return rc;
		return gp__cap_intern(r, msg, op.name_len, &o->name);
	}
	return 0;
}

/* A closed module call or op range (push_entry) into the model */
static int close_torch(struct rd *r, uint32_t tid, const struct open_range *o, int64_t end)
{
	struct gp_py_module pm;
	struct gp_op_args oa;
	uint32_t tr;
	size_t idx = SIZE_MAX;
	int rc;

	if ((rc = gp__cap_track(r, r->pid, tid, false, -1, &tr)))
		return rc;
	if (o->as == AS_MODULE) {
		/*
		 * as gp__cap_add() does for every other range: a pop stamped before its push
		 * (records out of order) is a call of no length, not a capture that
		 * fails to open; the difference in unsigned arithmetic, past the
		 * model's limit it is refused
		 */
		uint64_t d = end < o->ts ? 0 : (uint64_t)end - (uint64_t)o->ts;

		pm.ts = o->ts;
		pm.dur = d > (uint64_t)GP_TIME_LIMIT ? GP_TIME_LIMIT + 1 : (int64_t)d;
		pm.name = o->name;
		pm.track = tr;
		pm.id = pm.parent = -1;
		return gp__trace_add_py_module(r->t, &pm);
	}
	if ((rc = gp__cap_add(r, GP_K_CPU_OP, o->name, tr, o->ts, end, -1, -1, &idx)))
		return rc;
	if (!o->dims || idx >= r->t->ev.n)
		return 0;
	memset(&oa, 0, sizeof(oa));
	oa.dims = o->dims; /* emit_nvtx gives no types nor concrete inputs */
	return gp__trace_add_op_args(r->t, idx, &oa);
}

/* start order, an outer call before the calls inside it: (ts, longer first, track, name) */
static int cmp_pymod(const void *x, const void *y)
{
	const struct gp_py_module *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* A push of an annotation site: the range's name gets the site's "file:line" (the first wins) */
static int site_of(struct rd *r, const struct gp_cap_nvtx *n, uint32_t name)
{
	uint64_t src;

	if (!n->name || !r->sites.n || gp__u64map_get(&r->sites, n->name, &src) != 1)
		return 0;
	return gp__u64map_put_new(&r->t->range_src, name, src, NULL);
}

/* A mark: a zero-length event flagged GP_EVF_MARK on its thread, named as a range; counted */
static int on_mark(struct rd *r, const struct gp_cap_nvtx *n, const char *msg, size_t len)
{
	uint32_t name, tr;
	size_t idx = SIZE_MAX;
	uint64_t k = 0;
	int rc;

	if ((rc = range_name(r, n, msg, len, &name)) ||
	    (rc = gp__cap_track(r, r->pid, n->tid, false, -1, &tr)) ||
	    (rc = gp__cap_add(r, GP_K_OTHER, name, tr, n->ts, n->ts, -1, -1, &idx)))
		return rc;
	if (idx < r->t->ev.n)
		r->t->ev.flags[idx] |= GP_EVF_MARK;
	gp__u64map_get(&r->mark_counts, name, &k);
	return gp__u64map_put(&r->mark_counts, name, k + 1);
}

/* A call site of the annotation API: "file:line" when its file is known */
int gp__cap_on_site(struct rd *r, const struct gp_cap_site *s)
{
	char buf[4200];
	uint64_t f;
	uint32_t id;
	int k, rc;

	if (!s->id || !s->file || gp__u64map_get(&r->strs, s->file, &f) != 1)
		return 0;
	k = snprintf(buf, sizeof(buf), "%.4096s:%u", gp__strtab_get(&r->t->strs, (uint32_t)f),
	             s->line);
	if (k < 0)
		return 0;
	if ((rc = gp__cap_intern(r, buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1,
	                         &id)))
		return rc;
	return gp__u64map_put(&r->sites, s->id, id);
}

/*
 * A counter sample of the annotation API, on its thread's track. Its name is
 * a STRING id, or (name 0) the @p len bytes at @p msg after the record: a
 * name by value, which the tracer registers nowhere (docs/capture-format.md).
 */
int gp__cap_on_counter(struct rd *r, const struct gp_cap_counter *c, const char *msg, size_t len)
{
	struct gp_counter_sample *x;
	uint32_t name, tr;
	int rc;

	if ((rc = gp__trace_check_time(c->ts, 0)) || (rc = check_order(r, c->tid, c->ts)))
		return rc;
	if (!c->name && len) {
		if ((rc = gp__cap_intern(r, msg, len > 4096 ? 4096 : len, &name)))
			return rc;
	} else {
		gp__cap_str_of(r, c->name, &name);
	}
	if ((rc = gp__cap_track(r, r->pid, c->tid, false, -1, &tr)))
		return rc;
	if (gp__grow((void **)&r->t->ctr, &r->t->ctr_cap, r->t->nctr + 1, sizeof(*r->t->ctr)) < 0)
		return gp__error(GP_ENOMEM, "out of memory");
	x = &r->t->ctr[r->t->nctr++];
	x->ts = c->ts;
	x->value = c->value;
	x->name = name;
	x->track = tr;
	return 0;
}

int gp__cap_on_nvtx(struct rd *r, const struct gp_cap_nvtx *n, const char *msg, size_t len)
{
	struct tstack *st;
	uint64_t v;
	uint32_t name;
	int rc;

	/* a domain is defined through the tracer's shared queue, not the thread's blocks */
	if (n->kind != GP_NVTX_DOMAIN && (rc = check_order(r, n->tid, n->ts)))
		return rc;
	switch (n->kind) {
	case GP_NVTX_DOMAIN:
		if ((rc = gp__cap_intern(r, msg, len, &name)))
			return rc;
		if (!r->gp_domain && n->id <= UINT32_MAX && len == 7 &&
		    memcmp(msg, "gpuprof", 7) == 0)
			r->gp_domain = (uint32_t)n->id;
		return gp__u64map_put(&r->domains, n->id, name);
	case GP_NVTX_PUSH:
		if (!(st = stack_of(r, n->tid, n->domain)))
			return gp__error(GP_ENOMEM, "out of memory");
		if (st->n >= MAX_OPEN_RANGES) {
			r->unmatched++;
			return 0;
		}
		if (gp__grow((void **)&st->v, &st->cap, st->n + 1, sizeof(*st->v)) < 0)
			return gp__error(GP_ENOMEM, "out of memory");
		if ((rc = push_entry(r, n, msg, len, &st->v[st->n])))
			return rc;
		if (st->v[st->n].as == AS_RANGE &&
		    ((rc = range_name(r, n, msg, len, &st->v[st->n].name)) ||
		     (rc = site_of(r, n, st->v[st->n].name))))
			return rc;
		if (!st->listed) {
			if (gp__grow((void **)&r->busy, &r->busy_cap, r->nbusy + 1,
			             sizeof(*r->busy)) < 0)
				return gp__error(GP_ENOMEM, "out of memory");
			r->busy[r->nbusy++] = (uint32_t)(st - r->stacks);
			st->listed = true;
		}
		st->n++;
		return 0;
	case GP_NVTX_POP:
		if (!(st = stack_of(r, n->tid, n->domain)))
			return gp__error(GP_ENOMEM, "out of memory");
		if (st->n == 0) {
			if (r->win_seen)
				r->cut++; /* pushed before the window opened */
			else
				r->unmatched++;
			return 0;
		}
		st->n--;
		if (n->ts < st->v[st->n].ts) {
			r->unmatched++; /* a pop before its push: records out of order */
			return 0;
		}
		if (st->v[st->n].as != AS_RANGE)
			return close_torch(r, n->tid, &st->v[st->n], n->ts);
		return close_range(r, n->tid, st->v[st->n].ts, n->ts, st->v[st->n].name, 0);
	case GP_NVTX_START:
		if ((rc = range_name(r, n, msg, len, &name)))
			return rc;
		if (r->nsv >= UINT32_MAX)
			return gp__error(GP_ELIMIT, "more than 2^32 start/end ranges");
		if (gp__grow((void **)&r->sv, &r->sv_cap, r->nsv + 1, sizeof(*r->sv)) < 0 ||
		    gp__grow((void **)&r->sv_tid, &r->sv_tid_cap, r->nsv + 1, sizeof(*r->sv_tid)) <
		        0)
			return gp__error(GP_ENOMEM, "out of memory");
		r->sv[r->nsv].ts = n->ts;
		r->sv[r->nsv].name = name;
		r->sv_tid[r->nsv] = n->tid;
		if ((rc = gp__u64map_put(&r->starts, n->id, (uint64_t)r->sv_gen << 32 | r->nsv)))
			return rc;
		r->nsv++;
		r->sv_open++;
		return 0;
	case GP_NVTX_END:
		if (gp__u64map_get(&r->starts, n->id, &v) != 1 || v >> 32 != r->sv_gen ||
		    (v &= UINT32_MAX) >= r->nsv || r->sv[v].name == UINT32_MAX) {
			if (r->win_seen)
				r->cut++;
			else
				r->unmatched++;
			return 0;
		}
		/* a start/end range belongs to the thread that started it */
		rc = close_range(r, r->sv_tid[v], r->sv[v].ts, n->ts, r->sv[v].name,
		                 GP_EVF_STARTEND | (r->sv_tid[v] != n->tid ? GP_EVF_XTHREAD : 0));
		r->sv[v].name = UINT32_MAX;
		r->sv_open--;
		return rc;
	case GP_NVTX_MARK:
		r->marks++;
		return on_mark(r, n, msg, len);
	default:
		return 0;
	}
}

void gp__cap_cut_ranges(struct rd *r)
{
	/* only the stacks pushed to since the last close: linear in the records */
	for (size_t i = 0; i < r->nbusy; i++) {
		struct tstack *st = &r->stacks[r->busy[i]];

		r->cut += st->n;
		st->n = 0;
		st->listed = false;
	}
	r->nbusy = 0;
	r->cut += r->sv_open;
	r->sv_open = 0;
	r->nsv = 0;
	r->sv_gen++;
}

void gp__cap_sort_modules(struct rd *r)
{
	/* the module calls close inner first: in start order, as a Kineto trace lists them */
	if (r->t->npymod > 1)
		qsort(r->t->pymod, r->t->npymod, sizeof(*r->t->pymod), cmp_pymod);
}
