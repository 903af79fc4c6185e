/* SPDX-License-Identifier: MIT */
/*
 * critpath-prep.c - the per-rank tables of the critical-path graph.
 *
 * Built once per rank, before any window: the name flags of the calls the
 * model treats apart (runtime lock, blocking calls, launches, sync kinds),
 * each event's role (a CPU node, a GPU node, a sync), the correlation links
 * between CPU calls and GPU activity (HTA's index_correlation: under
 * --compat hta the last row of a correlation is the one a call joins),
 * and, through critpath-queue.c, the stream queue lengths and the kernels
 * of event waits. Gpuprof's roles and links come from the context's lists
 * of each kind and its launching calls, so only the events with a role are
 * read; --compat hta looks at every row, as HTA does.
 */
#include <stdlib.h>
#include <string.h>

#include "critpath-queue.h"
#include "util/error.h"

_Static_assert((int)NF_LOCK == (int)RO_LOCK && (int)NF_BLOCKING == (int)RO_BLOCK &&
                   (int)NF_FB == (int)RO_FB,
               "name flags give their role bits as they are");

static const char *const cat_names[GP_CP__N] = { "cpu_bound", "gpu_compute_bound",
	                                         "gpu_communication_bound",
	                                         "gpu_kernel_kernel_overhead",
	                                         "gpu_kernel_launch_overhead" };

const char *gp__cp_cat_name(enum gp__cp_cat k)
{
	return k < GP_CP__N ? cat_names[k] : "";
}

/*
 * The names the model treats apart, with their flags: the runtime lock (HTA
 * CUDA_RUNTIME_EVENTS), blocking calls (HTA BLOCKING_SYNC_CALLS, and their HIP
 * twins), launches counted in queue lengths, event records and the sync kinds;
 * the flags of an entry marked gp_only only outside --compat hta.
 */
static const struct {
	const char *s;
	uint16_t f;
	bool gp_only;
} named[] = {
	{ "cudaHostAlloc", NF_LOCK, false },
	{ "cudaLaunchKernel", NF_LOCK | NF_LAUNCH, false },
	{ "cudaMemcpyAsync", NF_LOCK | NF_BLOCK | NF_LAUNCH, false },
	{ "cudaDeviceSynchronize", NF_BLOCK, false },
	{ "cudaStreamSynchronize", NF_BLOCK, false },
	{ "cudaEventQuery", NF_BLOCK, false },
	{ "cudaEventSynchronize", NF_BLOCK, false },
	{ "cudaMemcpy", NF_BLOCK, false },
	{ "hipDeviceSynchronize", NF_BLOCK_HIP, false },
	{ "hipStreamSynchronize", NF_BLOCK_HIP, false },
	{ "hipEventSynchronize", NF_BLOCK_HIP, false },
	{ "hipMemcpy", NF_BLOCK_HIP, false },
	{ "cudaLaunchKernelExC", NF_LAUNCH, false },
	{ "cuLaunchKernel", NF_LAUNCH, false },
	{ "cuLaunchKernelEx", NF_LAUNCH, false },
	{ "cudaMemsetAsync", NF_LAUNCH, false },
	{ "runFunction - job_prep_and_submit_for_execution", NF_LAUNCH, false },
	{ "hipLaunchKernel", NF_LAUNCH, false },
	{ "hipExtModuleLaunchKernel", NF_LAUNCH, false },
	{ "hipMemsetAsync", NF_LAUNCH, false },
	{ "hipMemcpyAsync", NF_LAUNCH, false },
	{ "hipMemcpyWithStream", NF_LAUNCH, false },
	{ "cudaEventRecord", NF_EVREC, false },
	{ "Stream Sync", NF_SYNC_STREAM, false },
	{ "Context Sync", NF_SYNC_CONTEXT, false },
	{ "Event Sync", NF_SYNC_EVENT, false },
	{ "Stream Wait Event", NF_SYNC_WAIT, false },
	{ "hipEventRecord", NF_EVREC, true },
};

/* the first bytes of the names in named, a bit each (gp__cp_new) */
static void named_first(uint64_t first[4])
{
	size_t i;

	memset(first, 0, 4 * sizeof(*first));
	for (i = 0; i < GP_ARRAY_SIZE(named); i++) {
		unsigned char b = (unsigned char)named[i].s[0];

		first[b >> 6] |= UINT64_C(1) << (b & 63);
	}
}

uint16_t gp__cp_name_flags(struct gp__cp *g, uint32_t id)
{
	const char *s;
	uint16_t f = NF_DONE;
	size_t i;

	if (id >= g->nstr)
		return NF_DONE;
	if (g->nf[id] & NF_DONE)
		return g->nf[id];
	s = gp__strtab_get(&g->t->strs, id);
	/* most names are ops ("aten::..."): one look at the first byte passes them */
	if (g->named_first[(unsigned char)s[0] >> 6] >> ((unsigned char)s[0] & 63) & 1) {
		for (i = 0; i < GP_ARRAY_SIZE(named); i++)
			if (!strcmp(s, named[i].s) && !(named[i].gp_only && g->hta))
				f |= named[i].f;
	}
	if (strstr(s, "forward"))
		f |= NF_FWD;
	if (strstr(s, "autograd"))
		f |= NF_AUTOGRAD;
	if ((f & NF_BLOCK) || (!g->hta && (f & NF_BLOCK_HIP)))
		f |= NF_BLOCKING;
	if (f & (NF_FWD | NF_AUTOGRAD))
		f |= NF_FB;
	g->nf[id] = f;
	return f;
}

/* the roles of a kind's events (gpuprof): CPU nodes, GPU activity, syncs */
static uint8_t kind_role(enum gp_kind k)
{
	switch (k) {
	case GP_K_CPU_OP:
	case GP_K_RUNTIME:
	case GP_K_DRIVER:
		return RO_CPU;
	case GP_K_KERNEL:
	case GP_K_MEMCPY:
	case GP_K_MEMSET:
		return RO_KERNEL | RO_GPUROW;
	case GP_K_SYNC:
		return RO_SYNC;
	default:
		return 0;
	}
}

/* the role bits the name of RO_CPU event @p ev adds: RO_LOCK, RO_BLOCK and, of a CPU op, RO_FB */
static inline uint8_t name_roles(struct gp__cp *g, uint32_t ev, bool op)
{
	return (uint8_t)(gp__cp_ev_flags(g, ev) &
	                 (op ? RO_LOCK | RO_BLOCK | RO_FB : RO_LOCK | RO_BLOCK));
}

/* the correlation ids of the rows HTA's GPU side may join: their range and count */
struct corr_range {
	int64_t lo, hi;
	size_t n;
};

/*
 * Roles under --compat hta: HTA takes any row with a stream for GPU
 * activity, so every kept event is looked at. The GPU-side events are
 * marked in @p gside (a bit per event).
 */
static void set_roles_hta(struct gp__cp *g, uint64_t *gside, struct corr_range *cr)
{
	const struct gp_trace *t = g->t;
	size_t i;

	for (i = 0; i < g->n; i++) {
		enum gp_kind k = (enum gp_kind)t->ev.kind[i];
		bool cpuk = k == GP_K_CPU_OP || k == GP_K_RUNTIME || k == GP_K_DRIVER;
		bool row;
		uint16_t f;
		uint8_t r = 0;

		if (!gp__kept(g->c, i) || k == GP_K_TRACE)
			continue;
		if (k == GP_K_SYNC) {
			r |= RO_SYNC;
			g->have_sync = true;
		}
		row = gp__cp_hta_row(t, i);
		f = k == GP_K_SYNC ? gp__cp_ev_flags(g, (uint32_t)i) : 0;
		if (cpuk && !row)
			r |= RO_CPU | name_roles(g, (uint32_t)i, k == GP_K_CPU_OP);
		if ((row && t->ev.stream[i] >= 0 && t->ev.corr[i] >= 0) ||
		    (t->ev.corr[i] >= 0 && (f & (NF_SYNC_EVENT | NF_SYNC_CONTEXT))))
			r |= RO_GSIDE;
		if (row && k != GP_K_SYNC && t->ev.corr[i] >= 0)
			r |= RO_KERNEL;
		if (row)
			r |= RO_GPUROW;
		g->role[i] = r;
		if (r & RO_GSIDE) {
			gside[i >> 6] |= UINT64_C(1) << (i & 63);
		} else if (t->ev.corr[i] >= 0) { /* a row a correlation's GPU side may join */
			cr->lo = t->ev.corr[i] < cr->lo ? t->ev.corr[i] : cr->lo;
			cr->hi = t->ev.corr[i] > cr->hi ? t->ev.corr[i] : cr->hi;
			cr->n++;
		}
	}
}

/*
 * Roles (gpuprof): from the context's lists of kept events of each kind
 * that has a role, so other events are not read; the CPU events' names add
 * theirs. GPU activity and syncs with a correlation are the GPU side,
 * marked in @p gside.
 */
static void set_roles(struct gp__cp *g, uint64_t *gside)
{
	static const enum gp_kind kinds[] = { GP_K_CPU_OP, GP_K_RUNTIME, GP_K_DRIVER, GP_K_KERNEL,
		                              GP_K_MEMCPY, GP_K_MEMSET,  GP_K_SYNC };
	const struct gp__actx *c = g->c;
	const int64_t *corr = g->t->ev.corr;
	uint8_t *role = g->role;
	size_t k, i;

	g->have_sync = c->by_kind[GP_K_SYNC].n > 0;
	for (k = 0; k < GP_ARRAY_SIZE(kinds); k++) {
		const uint32_t *v = c->by_kind[kinds[k]].v;
		size_t n = c->by_kind[kinds[k]].n;
		uint8_t r = kind_role(kinds[k]);

		if (r == RO_CPU) { /* the name flags through locals: byte stores make g reload */
			const uint32_t *name = g->t->ev.name;
			const uint16_t *nf = g->nf;
			size_t nstr = g->nstr;
			uint16_t mask = kinds[k] == GP_K_CPU_OP ? RO_LOCK | RO_BLOCK | RO_FB
			                                        : RO_LOCK | RO_BLOCK;

			for (i = 0; i < n; i++) {
				uint32_t id = name[v[i]];
				uint16_t f = id < nstr && (nf[id] & NF_DONE)
				                 ? nf[id]
				                 : gp__cp_name_flags(g, id);

				role[v[i]] = (uint8_t)(RO_CPU | (f & mask));
			}
			continue;
		}
		for (i = 0; i < n; i++) {
			uint32_t ev = v[i];

			if (corr[ev] < 0) {
				role[ev] = r;
			} else {
				role[ev] = r | RO_GSIDE;
				gside[ev >> 6] |= UINT64_C(1) << (ev & 63);
			}
		}
	}
}

/* the events of bitmap @p bits (@p n events), in index order, into a new *@p out */
static int bits_list(const uint64_t *bits, size_t n, uint32_t **out, size_t *nout)
{
	size_t w, m = 0;

	for (w = 0; w < (n + 63) / 64; w++)
		m += (size_t)__builtin_popcountll(bits[w]);
	*nout = m;
	*out = gp__malloc((m + 1) * sizeof(**out));
	if (!*out)
		return gp__error(GP_ENOMEM, "out of memory for the critical path");
	m = 0;

	for (w = 0; w < (n + 63) / 64; w++) {
		uint64_t b = bits[w];

		while (b) {
			(*out)[m++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
			b &= b - 1;
		}
	}
	return 0;
}

/*
 * Not inlined, so that the compiler cannot see a constant @p x and turn the
 * loop into memset: glibc's memset of a large block is a rep stosb, which
 * valgrind (the instruction counts issue 23 budgets by) counts a byte at a
 * time, where this loop's vector stores take an instruction per 16 bytes.
 */
__attribute__((noinline)) void gp__cp_fill_u32(uint32_t *p, size_t n, uint32_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = x;
}

/*
 * kv[0..n) by key, stable. The launching calls of GPU events in event order
 * are in order but for a few: insertion sort, unless it moves more than a
 * few elements per element (then the library's sort finishes it: the order
 * of equal keys is kept either way).
 */
static int sort_almost_sorted(struct gp_kv *kv, size_t n)
{
	size_t i, j, moves = 0;

	for (i = 1; i < n; i++) {
		struct gp_kv x = kv[i];

		if (x.key >= kv[i - 1].key)
			continue;
		for (j = i; j > 0 && kv[j - 1].key > x.key && moves <= 4 * n; j--, moves++)
			kv[j] = kv[j - 1];
		kv[j] = x;
		if (moves > 4 * n)
			return gp__sort_kv_with(kv, n, kv + n);
	}
	return 0;
}

/*
 * Links: the CPU side of each GPU-side event @p gs[0..ngs) (index order),
 * and per CPU event the GPU events it launched (loff, lgpu, in index order).
 * gpuprof takes the context's launching calls (the first runtime or driver
 * call of a correlation); HTA's index_correlation joins the last other row
 * of the correlation (an array over the ids when they are dense, as the
 * context's maps). The linked events are left in gs[0..*nlinked).
 */
static int build_links(struct gp__cp *g, uint32_t *gs, size_t ngs, const struct corr_range *cr,
                       size_t *nlinked)
{
	const struct gp__actx *c = g->c;
	const struct gp_trace *t = g->t;
	struct gp_u64map m;
	struct gp_kv *kv = NULL;
	uint32_t *dense = NULL; /* [id - cr->lo]: the last row of each id, NONE */
	size_t i, j, nl = 0;
	uint64_t v;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	gp__cp_fill_u32(g->link, g->n, NONE);
	if (g->hta && cr->n && (uint64_t)(cr->hi - cr->lo) < 8 * (uint64_t)cr->n + 4096) {
		dense = gp__malloc(((size_t)(cr->hi - cr->lo) + 1) * sizeof(*dense));
		if (!dense)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory for the critical path"));
		gp__cp_fill_u32(dense, (size_t)(cr->hi - cr->lo) + 1, NONE);
	} else if (g->hta) {
		GP_TRY(gp__u64map_init(&m, cr->n + 16));
	}
	if (g->hta) {
		for (i = 0; i < g->n; i++) {
			/* HTA: every other row with a correlation, the last one wins */
			if (t->ev.corr[i] < 0 || !gp__kept(c, i) || t->ev.kind[i] == GP_K_TRACE ||
			    (g->role[i] & RO_GSIDE))
				continue;
			if (dense)
				dense[t->ev.corr[i] - cr->lo] = (uint32_t)i;
			else
				GP_TRY(gp__u64map_put(&m, (uint64_t)t->ev.corr[i], i));
		}
	}
	kv = gp__malloc((2 * ngs + 1) * sizeof(*kv));
	if (!kv)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for the critical path"));
	for (i = 0; i < ngs; i++) {
		uint32_t ev = gs[i], l;

		if (g->hta && dense) {
			int64_t id = t->ev.corr[ev];

			if (id < cr->lo || id > cr->hi || (l = dense[id - cr->lo]) == NONE)
				continue;
		} else if (g->hta) {
			if (!gp__u64map_get(&m, (uint64_t)t->ev.corr[ev], &v))
				continue;
			l = (uint32_t)v;
		} else if (g->role[ev] & RO_KERNEL) {
			/* the context's launching call of its GPU activity */
			if ((l = c->launch[ev]) == NONE)
				continue;
		} else if (!gp__idmap_get(&c->corr_launch, t->ev.corr[ev], &l)) {
			continue;
		}
		g->link[ev] = l;
		kv[nl].key = l;
		kv[nl++].val = ev;
		gs[nl - 1] = ev;
	}
	/* by launching call, each one's in event order (stable; the calls come almost in
	 * order: a pass or two) */
	GP_TRY(sort_almost_sorted(kv, nl));
	g->lgpu = gp__arena_alloc(&g->scratch, (nl + 1) * sizeof(*g->lgpu));
	if (!g->lgpu)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for the critical path"));
	for (i = 0, j = 0; j < nl; j++) {
		size_t l = (size_t)kv[j].key;

		g->lgpu[j] = (uint32_t)kv[j].val;
		if (i <= l) {
			gp__cp_fill_u32(g->loff + i, l + 1 - i, (uint32_t)j);
			i = l + 1;
		}
	}
	gp__cp_fill_u32(g->loff + i, g->n + 1 - i, (uint32_t)nl);
	*nlinked = nl;
out:
	gp__free(dense);
	gp__free(kv);
	gp__u64map_release(&m);
	return rc;
}

int gp__cp_new(const struct gp__actx *c, struct gp__cp **out)
{
	struct gp__cp *g;
	uint64_t *gside = NULL;
	uint32_t *gs = NULL;
	struct corr_range cr = { INT64_MAX, INT64_MIN, 0 };
	size_t ngs = 0, nlinked = 0, n = c->t->ev.n;
	int rc = 0;

	*out = NULL;
	if (n > GP_CP_MAX_EVENTS)
		return gp__error(GP_ELIMIT, "too many events for the critical path");
	g = gp__calloc(1, sizeof(*g));
	if (!g)
		return gp__error(GP_ENOMEM, "out of memory");
	g->c = c;
	g->t = c->t;
	g->hta = c->hta;
	g->n = n;
	/*
	 * The per-event tables (21 bytes an event) and the window buffers (~30-45
	 * bytes per event of the largest step) live in the arena, on huge pages
	 */
	gp__arena_init(&g->scratch, (n < ((size_t)1 << 22) ? n : ((size_t)1 << 22)) * 56);
	g->nstr = gp__strtab_count(&c->t->strs);
	named_first(g->named_first);
	/* filled below: only role and the name flags start at 0 */
	g->nf = gp__calloc(g->nstr + 1, sizeof(*g->nf));
	g->role = gp__arena_alloc(&g->scratch, n + 1);
	g->link = gp__arena_alloc(&g->scratch, (n + 1) * sizeof(uint32_t));
	g->loff = gp__arena_alloc(&g->scratch, (n + 1) * sizeof(uint32_t));
	g->q = gp__arena_alloc(&g->scratch, (n + 1) * sizeof(int32_t));
	g->snode = gp__arena_alloc(&g->scratch, (n + 1) * sizeof(uint32_t));
	g->enode = gp__arena_alloc(&g->scratch, (n + 1) * sizeof(uint32_t));
	g->tskip = gp__calloc(c->t->ntracks + 1, 1);
	gside = gp__calloc(n / 64 + 1, sizeof(*gside));
	if (!g->nf || !g->role || !g->link || !g->loff || !g->q || !g->snode || !g->enode ||
	    !g->tskip || !gside)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory for the critical path"));
	memset(g->role, 0, n + 1);
	gp__cp_fill_u32(g->snode, n + 1, 0);
	gp__cp_fill_u32(g->enode, n + 1, 0);
	/* the entries past the events are 0, as ever */
	g->link[n] = 0;
	g->q[n] = 0;
	if (g->hta)
		set_roles_hta(g, gside, &cr);
	else
		set_roles(g, gside);
	GP_TRY(bits_list(gside, n, &gs, &ngs));
	GP_TRY(build_links(g, gs, ngs, &cr, &nlinked));
	GP_TRY(gp__cp_streams(g, gs, nlinked));
	*out = g;
	g = NULL;
out:
	gp__free(gs);
	gp__free(gside);
	gp__cp_free(g);
	return rc;
}

void gp__cp_free(struct gp__cp *g)
{
	if (!g)
		return;
	gp__u64map_release(&g->syncsd);
	gp__u64map_release(&g->slmap);
	gp__free(g->nf);
	gp__free(g->tskip);
	gp__arena_release(&g->scratch);
	gp__free(g);
}

bool gp__cp_is_gpu(const struct gp__cp *g, uint32_t ev)
{
	return ev < g->n && (g->role[ev] & RO_GPUROW);
}
