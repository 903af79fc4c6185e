/* SPDX-License-Identifier: MIT */
/*
 * collectives.c - the rank object's "host" and "collectives" (the ledger):
 * every collective this rank ran, with its process group, its sequence in
 * that group, its name, message sizes, dtype and times, so that `gpuprof
 * aggregate` can match one collective across ranks from the reports alone.
 *
 * One entry per kept kernel the classifier (gpuprof's rules, whatever
 * --compat says) types COMMUNICATION. Its metadata comes field by field from
 * the kernel's own args (struct gp_coll_info), else from the
 * record_param_comms CPU op linked to it: the one with the kernel's External
 * id, else its launching call's, else the innermost one enclosing the
 * launching call on its thread. The name comes from "Collective name", else
 * the kernel's name, else the nccl:NAME annotation enclosing the launch. A
 * trace without communication kernels whose backend is gloo (or that has no
 * GPU activity) gets CPU-side entries: its record_param_comms ops (but
 * "wait"), else its gloo:NAME annotations. seq: the "Seq" arg when every
 * entry has one; else, when every entry lies in a ProfilerStep#N,
 * N * 1000000 + the entry's ordinal within its (group, step); else its
 * ordinal within its group, ordinals counted in the order of the CPU side
 * (the launches). docs/analyses/collectives.md has the rules.
 * One pass over the kernels and the CPU ops; nothing else when a trace has
 * no collective.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze-int.h"
#include "source/source.h"
#include "util/error.h"
#include "util/sort.h"
#include "util/value-int.h"

#define NONE      UINT32_MAX
#define STEP_MULT INT64_C(1000000)
/* enclosing CPU ops looked at before the launch, on its thread (nesting depth) */
#define ENCLOSE_LOOK 16
/* ranks parsed from a "Process Group Ranks" string at most */
#define MAX_PG_RANKS (1u << 20)

/* one collective of the ledger */
struct entry {
	uint32_t kern; /* the comm kernel, NONE for a CPU-side collective */
	uint32_t rpc;  /* the linked record_param_comms op, NONE none */
	uint32_t ann;  /* the nccl:/gloo: annotation (or the CPU-side op itself), NONE none */
	const struct gp_coll_info *kc, *rc; /* the kernel's and the op's metadata, or NULL */
	int64_t start, end, cpu_start;      /* cpu_start: valid when has_cpu_start */
	bool has_cpu_start;
	int64_t cpu_at; /* the CPU-side time: the op's start, else the launch's, else start */
	int64_t step;   /* ProfilerStep number, -1 none */
	int64_t seq;    /* -1 unknown until chosen */
	uint32_t pg;    /* "Process Group Name" string id, 0 none */
};

/* a CPU op that may enclose a launch: record_param_comms or a nccl:/gloo: annotation */
struct cand {
	uint32_t ev, track;
	int64_t ts, end;
	bool rpc;
};

struct lctx {
	const struct gp__actx *c;
	uint32_t rpc_id; /* string id of "record_param_comms", 0 absent */
	struct cand *cand;
	size_t ncand;
	struct entry *e;
	size_t n, cap;
};

/* a field of the kernel's metadata, else of the op's */
#define CSTR(x, f) ((x)->kc && (x)->kc->f ? (x)->kc->f : (x)->rc ? (x)->rc->f : 0)
#define CNUM(x, f) ((x)->kc && (x)->kc->f >= 0 ? (x)->kc->f : (x)->rc ? (x)->rc->f : -1)

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* ---- host ---- */

/* the capture's host, else the tensorboard_trace_handler file name's, else "hostname" */
static int add_host(const struct gp_trace *t, struct gp_value *r)
{
	const char *h =
	    gp_value_get_str(gp_obj_get(gp_obj_get(t->meta, "gpuprof_capture"), "host"));
	char buf[256];

	if ((!h || !*h) && t->path && gp__host_from_name(t->path, buf, sizeof(buf)))
		h = buf;
	if (!h || !*h)
		h = gp_value_get_str(gp_obj_get(t->meta, "hostname"));
	return gp__obj_set_str_or_null(r, "host", h && *h ? h : NULL);
}

/* ---- names and sizes ---- */

/* bytes per element of a c10 ScalarType name; 0 unknown */
static int64_t dtype_size(const char *d)
{
	static const struct {
		const char *name;
		int64_t size;
	} sizes[] = {
		{ "Float", 4 },          { "Double", 8 },      { "Half", 2 },
		{ "BFloat16", 2 },       { "Int", 4 },         { "Long", 8 },
		{ "Short", 2 },          { "Char", 1 },        { "Byte", 1 },
		{ "Bool", 1 },           { "ComplexHalf", 4 }, { "ComplexFloat", 8 },
		{ "ComplexDouble", 16 }, { "UInt16", 2 },      { "UInt32", 4 },
		{ "UInt64", 8 },         { "QInt8", 1 },       { "QUInt8", 1 },
		{ "QInt32", 4 },         { "QUInt4x2", 1 },    { "QUInt2x4", 1 },
		{ "Bits8", 1 },          { "Bits16", 2 },      { "Bits1x8", 1 },
		{ "Bits2x4", 1 },        { "Bits4x2", 1 },     { "Float4_e2m1fn_x2", 1 },
	};

	if (!d)
		return 0;
	if (has_prefix(d, "Float8_"))
		return 1;
	for (size_t i = 0; i < GP_ARRAY_SIZE(sizes); i++)
		if (strcmp(d, sizes[i].name) == 0)
			return sizes[i].size;
	return 0;
}

/* NCCL's name for a collective (the token after ncclKernel_/ncclDevKernel_) -> PyTorch's */
static const char *nccl_token(const char *p, size_t n)
{
	static const struct {
		const char *tok, *name;
	} map[] = {
		{ "AllReduce", "allreduce" },
		{ "AllGather", "allgather" },
		{ "ReduceScatter", "reduce_scatter" },
		{ "Broadcast", "broadcast" },
		{ "Reduce", "reduce" },
		{ "SendRecv", "sendrecv" },
		{ "AllToAll", "all_to_all" },
		{ "Send", "send" },
		{ "Recv", "recv" },
	};

	for (size_t i = 0; i < GP_ARRAY_SIZE(map); i++)
		if (strlen(map[i].tok) == n && strncasecmp(p, map[i].tok, n) == 0)
			return map[i].name;
	return NULL;
}

/* the collective a kernel's name says, NULL when it does not say */
static const char *name_from_kernel(const char *k)
{
	static const struct {
		const char *sub, *name;
	} subs[] = {
		{ "allreduce", "allreduce" }, { "crossdevicereduce", "allreduce" },
		{ "allgather", "allgather" }, { "reducescatter", "reduce_scatter" },
		{ "alltoall", "all_to_all" }, { "sendrecv", "sendrecv" },
		{ "broadcast", "broadcast" },
	};
	static const char *const pre[] = { "ncclDevKernel_", "ncclKernel_", "rcclDevKernel_",
		                           "rcclKernel_" };
	char low[160];
	size_t i, n = 0;

	for (i = 0; i < GP_ARRAY_SIZE(pre); i++) {
		const char *p = strstr(k, pre[i]), *q;

		if (!p)
			continue;
		p += strlen(pre[i]);
		for (q = p; isalnum((unsigned char)*q); q++)
			;
		if ((q = nccl_token(p, (size_t)(q - p))))
			return q;
	}
	/* multimem_all_reduce, one_shot_all_reduce, cross_device_reduce...: lower case, no '_' */
	for (i = 0; k[i] && k[i] != '(' && n + 1 < sizeof(low); i++)
		if (k[i] != '_')
			low[n++] = (char)tolower((unsigned char)k[i]);
	low[n] = '\0';
	for (i = 0; i < GP_ARRAY_SIZE(subs); i++)
		if (strstr(low, subs[i].sub))
			return subs[i].name;
	return NULL;
}

/* "nccl:all_reduce" -> "allreduce": the annotation's op in PyTorch's collective spelling */
static int name_from_annotation(const char *a, char *out, size_t cap)
{
	static const struct {
		const char *op, *name;
	} map[] = {
		{ "all_reduce", "allreduce" },
		{ "all_gather", "allgather" },
		{ "_all_gather_base", "_allgather_base" },
	};
	const char *op = strchr(a, ':');

	if (!op || !op[1])
		return 0;
	op++;
	for (size_t i = 0; i < GP_ARRAY_SIZE(map); i++)
		if (strcmp(op, map[i].op) == 0)
			op = map[i].name;
	snprintf(out, cap, "%s", op);
	return 1;
}

static bool is_comm_annotation(const char *n)
{
	return has_prefix(n, "nccl:") || has_prefix(n, "gloo:");
}

/* ---- linking a kernel to its CPU side ---- */

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* record_param_comms ops and nccl:/gloo: annotations, by (thread, start) */
static int collect_cands(struct lctx *l)
{
	static const enum gp_kind kinds[] = { GP_K_CPU_OP, GP_K_USER_ANNOTATION };
	const struct gp__actx *c = l->c;
	const struct gp_trace *t = c->t;
	size_t k, i, n = 0;

	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++)
		n += c->by_kind[kinds[k]].n;
	l->cand = gp__calloc(n ? n : 1, sizeof(*l->cand));
	if (!l->cand)
		return gp__error(GP_ENOMEM, "out of memory");
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const struct gp__idx *x = &c->by_kind[kinds[k]];

		for (i = 0; i < x->n; i++) {
			uint32_t ev = x->v[i];
			bool rpc = l->rpc_id && t->ev.name[ev] == l->rpc_id;

			if (!rpc && !is_comm_annotation(gp__ev_name(t, ev)))
				continue;
			l->cand[l->ncand++] = (struct cand){ .ev = ev,
				                             .track = t->ev.track[ev],
				                             .ts = c->ts[ev],
				                             .end = gp__end(c, ev),
				                             .rpc = rpc };
		}
	}
	qsort(l->cand, l->ncand, sizeof(*l->cand), cmp_cand);
	return 0;
}

/* the innermost candidate (rpc or not, by @p want_rpc) on @p track enclosing [s, e] */
static uint32_t enclosing(const struct lctx *l, uint32_t track, int64_t s, int64_t e, bool want_rpc)
{
	size_t lo = 0, hi = l->ncand, k;

	/* the first candidate after (track, s) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cand *m = &l->cand[mid];

		if (m->track < track || (m->track == track && m->ts <= s))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < ENCLOSE_LOOK && lo > k; k++) {
		const struct cand *m = &l->cand[lo - 1 - k];

		if (m->track != track)
			break;
		if (m->rpc == want_rpc && m->end >= e)
			return m->ev;
	}
	return NONE;
}

/* the record_param_comms op with External id @p ext, NONE none */
static uint32_t rpc_by_ext(const struct lctx *l, int64_t ext)
{
	uint32_t v;

	if (ext < 0 || !l->rpc_id || !gp__idmap_get(&l->c->ext_op, ext, &v) || v >= l->c->t->ev.n ||
	    l->c->t->ev.name[v] != l->rpc_id)
		return NONE;
	return v;
}

static int push_entry(struct lctx *l, const struct entry *x)
{
	int rc;

	if ((rc = gp__grow((void **)&l->e, &l->cap, l->n + 1, sizeof(*l->e))))
		return rc;
	l->e[l->n++] = *x;
	return 0;
}

/* the GPU side: one entry per communication kernel (gpuprof's rules) */
static int collect_kernels(struct lctx *l)
{
	const struct gp__actx *c = l->c;
	const struct gp_trace *t = c->t;
	const struct gp__idx *ks = &c->by_kind[GP_K_KERNEL];
	size_t i;
	int rc;

	for (i = 0; i < ks->n; i++) {
		uint32_t k = ks->v[i];
		struct entry x = { .kern = k, .rpc = NONE, .ann = NONE, .step = -1, .seq = -1 };
		uint8_t rule;
		int64_t ln;

		if ((c->hta ? gp__classify(t, k, false, &rule) : c->ktype[k]) != GP_KT_COMM)
			continue;
		if (!l->cand && (rc = collect_cands(l)))
			return rc;
		x.kc = gp__trace_coll(t, k);
		x.start = t->ev.ts[k];
		x.end = t->ev.ts[k] + t->ev.dur[k];
		ln = gp__launcher(c, k);
		x.rpc = rpc_by_ext(l, t->ev.ext[k]);
		if (x.rpc == NONE && ln >= 0)
			x.rpc = rpc_by_ext(l, t->ev.ext[ln]);
		if (ln >= 0) {
			if (x.rpc == NONE)
				x.rpc =
				    enclosing(l, t->ev.track[ln], c->ts[ln], gp__end(c, ln), true);
			x.ann = enclosing(l, t->ev.track[ln], c->ts[ln], gp__end(c, ln), false);
		}
		if (x.rpc != NONE) {
			x.rc = gp__trace_coll(t, x.rpc);
			x.cpu_start = t->ev.ts[x.rpc];
			x.has_cpu_start = true;
		}
		if ((rc = push_entry(l, &x)))
			return rc;
	}
	return 0;
}

/* the CPU side of a gloo (or GPU-less) trace: its record_param_comms ops, else gloo: annotations */
static int collect_cpu_side(struct lctx *l)
{
	const struct gp__actx *c = l->c;
	const struct gp_trace *t = c->t;
	const char *backend =
	    gp_value_get_str(gp_obj_get(gp_obj_get(t->meta, "distributedInfo"), "backend"));
	bool any_rpc = false;
	size_t i;
	int rc;

	if (!(backend && strcmp(backend, "gloo") == 0) && c->gpu.n)
		return 0;
	if ((rc = collect_cands(l)))
		return rc;
	for (i = 0; i < l->ncand; i++)
		any_rpc |= l->cand[i].rpc;
	for (i = 0; i < l->ncand; i++) {
		const struct cand *m = &l->cand[i];
		struct entry x = { .kern = NONE, .rpc = NONE, .ann = NONE, .step = -1, .seq = -1 };
		uint32_t nm;

		if (m->rpc != any_rpc || (!m->rpc && !has_prefix(gp__ev_name(t, m->ev), "gloo:")))
			continue;
		if (m->rpc) {
			x.rpc = m->ev;
			x.rc = gp__trace_coll(t, m->ev);
			nm = x.rc ? x.rc->name : 0;
			if (nm && strcmp(gp__strtab_get(&t->strs, nm), "wait") == 0)
				continue;
		} else {
			x.ann = m->ev;
		}
		x.start = x.cpu_start = t->ev.ts[m->ev];
		x.end = t->ev.ts[m->ev] + t->ev.dur[m->ev];
		x.has_cpu_start = true;
		if ((rc = push_entry(l, &x)))
			return rc;
	}
	return 0;
}

/* ---- steps and seq ---- */

/* the number of the ProfilerStep#N enclosing @p at, -1 none */
static int64_t step_at(const struct gp__actx *c, int64_t at)
{
	size_t lo = gp__steps_started(c, at);

	/* steps do not nest: the last that started is the one, if it still runs (or one before) */
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct gp__step *s = &c->steps[lo - 1 - k];

		if (at <= s->end)
			return s->number;
	}
	return -1;
}

static int cmp_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	uint32_t ex = x->kern != NONE ? x->kern : x->rpc != NONE ? x->rpc : x->ann;
	uint32_t ey = y->kern != NONE ? y->kern : y->rpc != NONE ? y->rpc : y->ann;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return ex < ey ? -1 : ex > ey;
}

/* seq for every entry (entries sorted by time); *@p source: how */
static int assign_seq(struct lctx *l, const char **source)
{
	/* a step's ordinals stay below STEP_MULT when the whole ledger does */
	bool all_seq = true, all_step = l->c->nsteps > 0 && l->n < (size_t)STEP_MULT;
	struct gp_kv *kv;
	size_t i, j;
	int rc = 0;

	for (i = 0; i < l->n; i++) {
		const struct entry *x = &l->e[i];

		all_seq &= CNUM(x, seq) >= 0;
		all_step &= x->step >= 0 && x->step < INT64_MAX / STEP_MULT;
	}
	if (all_seq) {
		for (i = 0; i < l->n; i++)
			l->e[i].seq = CNUM(&l->e[i], seq);
		*source = "trace";
		return 0;
	}
	/*
	 * Ordinals in the order of the CPU side within (pg, step), or within pg:
	 * stable sorts by that time, the step, the group. Launches follow the
	 * program, the same on every rank, where kernels of several streams may
	 * start in another order.
	 */
	kv = gp__calloc(l->n ? l->n : 1, sizeof(*kv));
	if (!kv)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++)
		kv[i] = (struct gp_kv){ .key = l->e[i].cpu_at, .val = i };
	GP_TRY(gp__sort_kv(kv, l->n));
	for (i = 0; i < l->n; i++)
		kv[i].key = all_step ? l->e[kv[i].val].step : 0;
	GP_TRY(gp__sort_kv(kv, l->n));
	for (i = 0; i < l->n; i++)
		kv[i].key = l->e[kv[i].val].pg;
	GP_TRY(gp__sort_kv(kv, l->n));
	for (i = 0; i < l->n; i = j) {
		const struct entry *g = &l->e[kv[i].val];
		int64_t ord = 0;

		for (j = i; j < l->n; j++) {
			struct entry *x = &l->e[kv[j].val];

			if (x->pg != g->pg || (all_step && x->step != g->step))
				break;
			x->seq = all_step ? g->step * STEP_MULT + ord : ord;
			ord++;
		}
	}
	*source = all_step ? "step" : "order";
out:
	gp__free(kv);
	return rc;
}

/* ---- process groups ---- */

struct pg {
	const char *name, *desc; /* borrowed (strtab, meta); NULL unknown */
	struct gp_value *ranks;  /* owned array, NULL unknown */
	uint32_t ranks_tried;    /* the Process Group Ranks string parsed last (it failed) */
	int64_t size;            /* -1 unknown */
	size_t order;            /* pg_config first, then the ledger's groups as met */
};

/* "[0, 1]" -> [0, 1]; NULL for anything else (or an empty list) */
static struct gp_value *parse_ranks(const char *s)
{
	struct gp_value *a;
	size_t n = 0;

	while (*s == ' ')
		s++;
	if (*s++ != '[')
		return NULL;
	if (!(a = gp_value_array()))
		return NULL;
	for (;;) {
		int64_t v = 0;
		int digits = 0;

		while (*s == ' ')
			s++;
		if (*s == ']' && n == 0)
			break;
		while (isdigit((unsigned char)*s) && digits < 18) {
			v = v * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits || isdigit((unsigned char)*s) || n >= MAX_PG_RANKS ||
		    gp_arr_push(a, gp_value_int(v)))
			goto bad;
		n++;
		while (*s == ' ')
			s++;
		if (*s == ']')
			break;
		if (*s++ != ',')
			goto bad;
	}
	s++;
	while (*s == ' ')
		s++;
	if (*s || !n)
		goto bad;
	return a;
bad:
	gp_value_free(a);
	return NULL;
}

/* a copy of @p v when it is an array of integers >= 0, else NULL */
static struct gp_value *int_array(const struct gp_value *v)
{
	size_t i, n = gp_value_len(v);
	int64_t x;

	if (gp_value_type(v) != GP_VALUE_ARRAY || !n)
		return NULL;
	for (i = 0; i < n; i++)
		if (!gp_value_get_int(gp_arr_get(v, i), &x) || x < 0)
			return NULL;
	return gp_value_clone(v);
}

/* by name (the unnamed group last), then pg_config before the ledger */
static int cmp_pg(const void *a, const void *b)
{
	const struct pg *x = a, *y = b;
	int d;

	if (!x->name || !y->name)
		d = !x->name - !y->name;
	else
		d = strcmp(x->name, y->name);
	if (d)
		return d;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int push_pg(struct pg **v, size_t *n, size_t *cap, const char *name)
{
	int rc;

	if ((rc = gp__grow((void **)v, cap, *n + 1, sizeof(**v))))
		return rc;
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].name = name;
	(*v)[*n].size = -1;
	(*v)[*n].order = *n;
	(*n)++;
	return 0;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* fills what @p g lacks from @p o (a later record of the same group) */
static void merge_pg(struct pg *g, struct pg *o)
{
	if (!g->desc)
		g->desc = o->desc;
	if (!g->ranks) {
		g->ranks = o->ranks;
		o->ranks = NULL;
	}
	if (g->size < 0)
		g->size = o->size;
}

/* the groups: distributedInfo.pg_config's, then the ledger's (one record per name id) */
static int collect_groups(const struct lctx *l, struct pg **pv, size_t *pn, size_t *pcap)
{
	const struct gp_trace *t = l->c->t;
	const struct gp_value *cfg =
	    gp_obj_get(gp_obj_get(t->meta, "distributedInfo"), "pg_config");
	size_t ncfg = gp_value_type(cfg) == GP_VALUE_ARRAY ? gp_value_len(cfg) : 0, i;
	struct gp_u64map ids;
	uint64_t at;
	int rc = 0;

	memset(&ids, 0, sizeof(ids));
	for (i = 0; i < ncfg; i++) {
		const struct gp_value *p = gp_arr_get(cfg, i);
		const char *name = gp_value_get_str(gp_obj_get(p, "pg_name"));
		struct pg *g;
		int64_t x;

		if (gp_value_type(p) != GP_VALUE_OBJECT || !name)
			continue;
		GP_TRY(push_pg(pv, pn, pcap, name));
		g = &(*pv)[*pn - 1];
		g->desc = gp_value_get_str(gp_obj_get(p, "pg_desc"));
		g->ranks = int_array(gp_obj_get(p, "ranks"));
		if (gp_value_get_int(gp_obj_get(p, "pg_size"), &x) && x > 0)
			g->size = x;
	}
	GP_TRY(gp__u64map_init(&ids, 16));
	for (i = 0; i < l->n; i++) {
		const struct entry *x = &l->e[i];
		uint32_t d = CSTR(x, pg_desc), rk = CSTR(x, pg_ranks);
		int64_t gs = CNUM(x, group_size);
		struct pg *g;

		if (!gp__u64map_get(&ids, x->pg, &at)) {
			GP_TRY(
			    push_pg(pv, pn, pcap, x->pg ? gp__strtab_get(&t->strs, x->pg) : NULL));
			at = *pn - 1;
			GP_TRY(gp__u64map_put(&ids, x->pg, at));
			if (!x->pg && t->world_size > 0)
				(*pv)[at].size = t->world_size;
		}
		g = &(*pv)[at];
		if (!x->pg)
			continue;
		if (!g->desc && d)
			g->desc = gp__strtab_get(&t->strs, d);
		if (!g->ranks && rk && rk != g->ranks_tried) {
			g->ranks = parse_ranks(gp__strtab_get(&t->strs, rk));
			g->ranks_tried = rk;
		}
		if (g->size < 0 && gs > 0)
			g->size = gs;
	}
out:
	gp__u64map_release(&ids);
	return rc;
}

/* "process_groups": the groups sorted by name, a name's records merged */
static int add_groups(const struct lctx *l, struct gp_value *out)
{
	struct gp_value *arr = gp_value_array(), *o;
	struct pg *v = NULL, *g;
	size_t n = 0, cap = 0, i, j;
	int rc = 0;

	if (!arr || gp_obj_set(out, "process_groups", arr))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(collect_groups(l, &v, &n, &cap));
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_pg);
	for (i = 0; i < n; i = j) {
		g = &v[i];
		for (j = i + 1; j < n && same_name(g->name, v[j].name); j++)
			merge_pg(g, &v[j]);
		if (g->size < 0 && g->ranks)
			g->size = (int64_t)gp_value_len(g->ranks);
		if (!(o = gp_value_object()) || gp_arr_push(arr, o))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp__obj_set_str_or_null(o, "name", g->name));
		GP_TRY(gp__obj_set_str_or_null(o, "desc", g->desc));
		GP_TRY(gp_obj_set(o, "ranks", g->ranks ? g->ranks : gp_value_null()));
		g->ranks = NULL;
		if (g->size >= 0)
			GP_TRY(gp_obj_set_int(o, "size", g->size));
		else
			GP_TRY(gp_obj_set_null(o, "size"));
	}
out:
	for (i = 0; i < n; i++)
		gp_value_free(v[i].ranks);
	gp__free(v);
	return rc;
}

/* ---- the ledger ---- */

static int set_num(struct gp_value *o, const char *key, int64_t v)
{
	return v >= 0 ? gp_obj_set_int(o, key, v) : gp_obj_set_null(o, key);
}

static int set_sid(const struct gp_trace *t, struct gp_value *o, const char *key, uint32_t id)
{
	return gp__obj_set_str_or_null(o, key, id ? gp__strtab_get(&t->strs, id) : NULL);
}

/* the name: "Collective name", else the kernel's name, else the annotation's */
static int set_name(const struct gp_trace *t, const struct entry *x, struct gp_value *o)
{
	uint32_t id = CSTR(x, name);
	const char *nm = NULL;
	char buf[128];

	if (id)
		return set_sid(t, o, "name", id);
	if (x->kern != NONE)
		nm = name_from_kernel(gp__ev_name(t, x->kern));
	if (!nm && x->ann != NONE && name_from_annotation(gp__ev_name(t, x->ann), buf, sizeof(buf)))
		nm = buf;
	return gp__obj_set_str_or_null(o, "name", nm);
}

static int add_entry(const struct gp_trace *t, const struct entry *x, struct gp_value *arr)
{
	struct gp_value *o = gp_value_object();
	int64_t in = CNUM(x, in_nelems), outn = CNUM(x, out_nelems), big = in > outn ? in : outn;
	int64_t sz = dtype_size(CSTR(x, dtype) ? gp__strtab_get(&t->strs, CSTR(x, dtype)) : NULL);
	int64_t bytes = -1;
	int rc = 0;

	if (!o || gp_arr_push(arr, o))
		return gp__error(GP_ENOMEM, "out of memory");
	if (big >= 0 && sz > 0 && __builtin_mul_overflow(big, sz, &bytes))
		bytes = -1;
	GP_TRY(set_sid(t, o, "pg", x->pg));
	GP_TRY(gp_obj_set_int(o, "seq", x->seq));
	GP_TRY(set_name(t, x, o));
	GP_TRY(
	    gp__obj_set_str_or_null(o, "kernel", x->kern != NONE ? gp__ev_name(t, x->kern) : NULL));
	GP_TRY(set_num(o, "in_nelems", in));
	GP_TRY(set_num(o, "out_nelems", outn));
	GP_TRY(set_sid(t, o, "dtype", CSTR(x, dtype)));
	GP_TRY(set_num(o, "bytes", bytes));
	GP_TRY(set_num(o, "group_size", CNUM(x, group_size)));
	GP_TRY(set_sid(t, o, "in_split", CSTR(x, in_split)));
	GP_TRY(set_sid(t, o, "out_split", CSTR(x, out_split)));
	GP_TRY(set_num(o, "src_rank", CNUM(x, src_rank)));
	GP_TRY(set_num(o, "dst_rank", CNUM(x, dst_rank)));
	GP_TRY(set_num(o, "step", x->step));
	if (x->has_cpu_start)
		GP_TRY(gp_obj_set_int(o, "cpu_start_ns", x->cpu_start));
	else
		GP_TRY(gp_obj_set_null(o, "cpu_start_ns"));
	GP_TRY(gp_obj_set_int(o, "start_ns", x->start));
	GP_TRY(gp_obj_set_int(o, "end_ns", x->end));
out:
	return rc;
}

int gp__an_collectives(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct lctx l = { .c = c };
	struct gp_value *col = NULL, *ledger;
	const char *source = NULL;
	size_t i;
	int rc = 0;

	GP_TRY(add_host(t, r));
	if (!(col = gp_value_object()) || gp_obj_set(r, "collectives", col))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	l.rpc_id = gp__strtab_find(&t->strs, "record_param_comms", strlen("record_param_comms"));
	if (l.rpc_id == UINT32_MAX)
		l.rpc_id = 0;
	GP_TRY(collect_kernels(&l));
	if (!l.n)
		GP_TRY(collect_cpu_side(&l));
	for (i = 0; i < l.n; i++) {
		struct entry *x = &l.e[i];
		int64_t at = x->has_cpu_start ? x->cpu_start : x->start;

		if (!x->has_cpu_start && x->kern != NONE && gp__launcher(c, x->kern) >= 0)
			at = c->ts[gp__launcher(c, x->kern)];
		x->cpu_at = at;
		x->step = step_at(c, at);
		x->pg = CSTR(x, pg_name);
	}
	if (l.n)
		qsort(l.e, l.n, sizeof(*l.e), cmp_time);
	GP_TRY(assign_seq(&l, &source));
	/* seq only breaks ties of the time order */
	if (l.n)
		qsort(l.e, l.n, sizeof(*l.e), cmp_time);
	GP_TRY(gp__obj_set_str_or_null(col, "seq_source", l.n ? source : NULL));
	GP_TRY(add_groups(&l, col));
	if (!(ledger = gp_value_array()) || gp_obj_set(col, "ledger", ledger))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < l.n; i++)
		GP_TRY(add_entry(t, &l.e[i], ledger));
out:
	gp__free(l.cand);
	gp__free(l.e);
	return rc;
}
