/* SPDX-License-Identifier: MIT */
/*
 * load.c - the ranks of a job read in: analyze reports parsed by a pool of
 * threads, traces analysed first (analyze-srcs.h, one rank object at a
 * time), and every rank object reduced at once to a compact record
 * (aggregate-int.h) and freed. job.c then checks that they are one job.
 *
 * A report is parsed pruned (util/json-prune.h, gp__agg_report_keep): the
 * whole text is validated, but only the members the reducer reads become a
 * tree; a rank's kernels, cpu_ops, timeline... (nine tenths of a report)
 * are skipped, so that reading 1,024 reports costs about a scan of their
 * bytes and memory holds one pruned report per thread at a time.
 *
 * A record's strings are interned in a table of its worker's while it is
 * reduced (no lock on the hot path), then moved into the job's table under
 * the lock.
 */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate-int.h"
#include "load-int.h"
#include "analyze/analyze-srcs.h"
#include "source/source.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/json-prune.h"
#include "util/pool.h"

const char *const gp__agg_metric_keys[GP_AGG_NMETRICS] = {
	[GP_AGG_STEPS] = "steps",
	[GP_AGG_STEP_MEAN] = "step_mean_ns",
	[GP_AGG_STEP_P50] = "step_p50_ns",
	[GP_AGG_STEP_P95] = "step_p95_ns",
	[GP_AGG_GPU_BUSY] = "gpu_busy_ns",
	[GP_AGG_GPU_IDLE] = "gpu_idle_ns",
	[GP_AGG_GPU_IDLE_PCT] = "gpu_idle_pct",
	[GP_AGG_COMPUTE] = "compute_ns",
	[GP_AGG_COMM] = "communication_ns",
	[GP_AGG_EXPOSED_COMM] = "exposed_comm_ns",
	[GP_AGG_WAIT] = "wait_ns",
	[GP_AGG_COLLECTIVES] = "collectives",
	[GP_AGG_PEAK_MEM] = "peak_memory_bytes",
	[GP_AGG_GPU_CLOCK] = "gpu_clock_mhz",
};

static double num(const struct gp_value *v, const char *path)
{
	double d;

	return gp_value_get_double(gp_value_path(v, path), &d) && isfinite(d) ? d : NAN;
}

static int intern(struct gp_strtab *st, const struct gp_value *v, uint32_t *id)
{
	const char *s = gp_value_get_str(v);

	if (!s) {
		*id = GP__AGG_NONE;
		return 0;
	}
	return gp__strtab_intern(st, s, strlen(s), id);
}

static int dup_str(const struct gp_value *v, char **out)
{
	const char *s = gp_value_get_str(v);

	*out = NULL;
	if (s && !(*out = gp__strdup(s)))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

static int64_t int_or(const struct gp_value *v, int64_t dflt)
{
	int64_t x;

	return gp_value_get_int(v, &x) ? x : dflt;
}

/* the process groups of a ledger's rank */
static int reduce_pgs(const struct gp_value *pgs, const char *file, int64_t rank,
                      struct gp_strtab *st, struct gp__agg_rank *out)
{
	size_t i, k, n = gp_value_len(pgs);
	int rc = 0;

	if (gp_value_type(pgs) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT,
		                 "'%s': rank %lld: collectives.process_groups is not a list", file,
		                 (long long)rank);
	if (n && !(out->pg = gp__calloc(n, sizeof(*out->pg))))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct gp_value *g = gp_arr_get(pgs, i), *rk = gp_obj_get(g, "ranks");
		struct gp__agg_pg *p = &out->pg[out->npg++];

		GP_TRY(intern(st, gp_obj_get(g, "name"), &p->name));
		GP_TRY(intern(st, gp_obj_get(g, "desc"), &p->desc));
		p->size = int_or(gp_obj_get(g, "size"), -1);
		if (gp_value_type(rk) != GP_VALUE_ARRAY)
			continue;
		p->nranks = gp_value_len(rk);
		if (p->nranks && !(p->ranks = gp__agg_rlist_new(p->nranks)))
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		for (k = 0; k < p->nranks; k++)
			p->ranks[k] = int_or(gp_arr_get(rk, k), -1);
	}
out:
	return rc;
}

static int reduce_ledger(const struct gp_value *led, const char *file, int64_t rank,
                         struct gp_strtab *st, struct gp__agg_rank *out)
{
	size_t i, n = gp_value_len(led);
	int rc = 0;

	if (gp_value_type(led) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "'%s': rank %lld: collectives.ledger is not a list",
		                 file, (long long)rank);
	if (n && !(out->ent = gp__calloc(n, sizeof(*out->ent))))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct gp_value *e = gp_arr_get(led, i);
		struct gp__agg_ent *x = &out->ent[i];

		if (!gp_value_get_int(gp_obj_get(e, "seq"), &x->seq) ||
		    !gp_value_get_int(gp_obj_get(e, "start_ns"), &x->start_ns) ||
		    !gp_value_get_int(gp_obj_get(e, "end_ns"), &x->end_ns))
			return gp__error(GP_EFORMAT,
			                 "'%s': rank %lld: collectives.ledger[%zu] lacks seq, "
			                 "start_ns or end_ns",
			                 file, (long long)rank, i);
		x->bytes = int_or(gp_obj_get(e, "bytes"), -1);
		x->group_size = int_or(gp_obj_get(e, "group_size"), -1);
		x->step = int_or(gp_obj_get(e, "step"), INT64_MIN);
		x->inst = -1;
		GP_TRY(intern(st, gp_obj_get(e, "pg"), &x->pg));
		GP_TRY(intern(st, gp_obj_get(e, "name"), &x->name));
		GP_TRY(intern(st, gp_obj_get(e, "dtype"), &x->dtype));
		out->nent++;
	}
out:
	return rc;
}

/* the active device's id and name (the first device when none says active) */
static const struct gp_value *device(const struct gp_value *ro)
{
	const struct gp_value *devs = gp_value_path(ro, "overview/devices"), *first = NULL;
	size_t i;

	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);

		if (!first)
			first = d;
		if (gp_value_get_bool(gp_obj_get(d, "active"), false))
			return d;
	}
	return first;
}

/*
 * The mean SM clock of the rank's GPU from the report's metrics timeline:
 * series "gpu<id>.clock_sm_hertz" of its device, else the only SM clock
 * series there is; NAN without one.
 */
static double sm_clock_mhz(const struct gp_value *report, int64_t id)
{
	const struct gp_value *series = gp_value_path(report, "metrics/series"), *only = NULL;
	char want[48];
	size_t i, nclock = 0;

	snprintf(want, sizeof(want), "gpu%lld.clock_sm_hertz", (long long)id);
	for (i = 0; i < gp_value_len(series); i++) {
		const struct gp_value *s = gp_arr_get(series, i);
		const char *name = gp_value_get_str(gp_obj_get(s, "name"));
		size_t len = name ? strlen(name) : 0;

		if (!name || len < 15 || strcmp(name + len - 15, ".clock_sm_hertz") != 0)
			continue;
		nclock++;
		only = s;
		if (id >= 0 && strcmp(name, want) == 0)
			return num(s, "mean") / 1e6;
	}
	return nclock == 1 ? num(only, "mean") / 1e6 : NAN;
}

static void reduce_metrics(const struct gp_value *ro, const struct gp_value *report,
                           struct gp__agg_rank *out)
{
	const struct gp_value *mem = gp_value_path(ro, "memory/devices");
	const struct gp_value *fnd = gp_obj_get(ro, "findings");
	double *m = out->m, comm, overlap, dl;
	size_t i;

	m[GP_AGG_STEPS] = num(ro, "step_stats/count");
	m[GP_AGG_STEP_MEAN] = num(ro, "step_stats/mean_ns");
	m[GP_AGG_STEP_P50] = num(ro, "step_stats/median_ns");
	m[GP_AGG_STEP_P95] = num(ro, "step_stats/p95_ns");
	m[GP_AGG_GPU_BUSY] = num(ro, "gpu/busy_ns");
	m[GP_AGG_GPU_IDLE] = num(ro, "gpu/idle_ns");
	m[GP_AGG_GPU_IDLE_PCT] = num(ro, "gpu/idle_pct");
	m[GP_AGG_COMPUTE] = num(ro, "gpu/compute_ns");
	m[GP_AGG_COMM] = comm = num(ro, "gpu/communication_ns");
	/*
	 * To the 6 decimals a report is written with, so that a rank gives the
	 * same number whether its trace or its report is read.
	 */
	overlap = round(num(ro, "gpu/comm_comp_overlap_pct") * 1e6) / 1e6;
	/* as the exposed-comm finding counts it (findings-rules.c) */
	m[GP_AGG_EXPOSED_COMM] =
	    isnan(comm) || isnan(overlap) ? comm : comm - (double)llround(comm * overlap / 100.0);
	m[GP_AGG_WAIT] = 0;
	m[GP_AGG_COLLECTIVES] = (double)out->nent;
	/* the GPUs' highest peak; the host's only for a rank with no GPU memory events */
	m[GP_AGG_PEAK_MEM] = NAN;
	for (int gpu = 1; gpu >= 0 && isnan(m[GP_AGG_PEAK_MEM]); gpu--)
		for (i = 0; i < gp_value_len(mem); i++) {
			const struct gp_value *d = gp_arr_get(mem, i);
			double p = num(d, "peak_allocated_bytes");

			if ((gp_value_type(gp_obj_get(d, "device")) == GP_VALUE_INT) != gpu)
				continue;
			if (!isnan(p) && (isnan(m[GP_AGG_PEAK_MEM]) || p > m[GP_AGG_PEAK_MEM]))
				m[GP_AGG_PEAK_MEM] = p;
		}
	m[GP_AGG_GPU_CLOCK] = sm_clock_mhz(report, out->device);
	dl = num(ro, "step_stats/breakdown_pct/dataloader_pct");
	out->dataloader_ns = dl * m[GP_AGG_STEP_MEAN] / 100.0;
	out->host_wait_ns = num(ro, "gpu/idle_breakdown_total/host_wait_ns");
	for (i = 0; i < gp_value_len(fnd); i++) {
		const char *id = gp_value_get_str(gp_obj_get(gp_arr_get(fnd, i), "id"));

		if (id && strcmp(id, "launch-bound") == 0)
			out->launch_bound = true;
	}
}

int gp__agg_reduce(const struct gp_value *ro, const struct gp_value *report, const char *file,
                   struct gp_strtab *st, struct gp__agg_rank *out)
{
	const struct gp_value *coll = gp_obj_get(ro, "collectives");
	const struct gp_value *dist = gp_value_path(ro, "overview/distributed");
	const char *text;
	int rc = 0;

	out->unc_ns = NAN;
	out->span_start_ns = INT64_MIN;
	if (!gp_value_get_int(gp_obj_get(ro, "rank"), &out->rank))
		return gp__error(GP_EFORMAT, "'%s': a rank object without \"rank\"", file);
	if (gp_value_type(coll) != GP_VALUE_OBJECT && !report)
		return gp__error(GP_EFORMAT,
		                 "'%s': rank %lld: its analysis has no collectives ledger", file,
		                 (long long)out->rank);
	if (gp_value_type(coll) != GP_VALUE_OBJECT)
		return gp__error(GP_EFORMAT,
		                 "'%s': rank %lld was written without the collectives ledger: run "
		                 "`gpuprof analyze --json` again with this version",
		                 file, (long long)out->rank);
	if (!(out->file = gp__strdup(file)))
		return gp__error(GP_ENOMEM, "out of memory");
	out->from_trace = !report;
	GP_TRY(dup_str(gp_obj_get(ro, "host"), &out->host));
	GP_TRY(dup_str(gp_obj_get(device(ro), "name"), &out->gpu_model));
	out->device = int_or(gp_obj_get(device(ro), "id"), -1);
	GP_TRY(dup_str(gp_obj_get(dist, "backend"), &out->backend));
	out->world_size = int_or(gp_obj_get(dist, "world_size"), -1);
	out->span_start_ns = int_or(gp_value_path(ro, "overview/start_ns"), INT64_MIN);
	out->span_ns = int_or(gp_value_path(ro, "overview/span_ns"), -1);
	GP_TRY(intern(st, gp_obj_get(coll, "seq_source"), &out->seq_source));
	text = gp_value_get_str(gp_obj_get(coll, GP_JKEEP_TEXT "process_groups"));
	if (text)
		GP_TRY(gp__agg_reduce_pgs_text(text, file, out->rank, st, out));
	else
		GP_TRY(reduce_pgs(gp_obj_get(coll, "process_groups"), file, out->rank, st, out));
	GP_TRY(reduce_ledger(gp_obj_get(coll, "ledger"), file, out->rank, st, out));
	reduce_metrics(ro, report, out);
out:
	return rc;
}

static int move_id(uint32_t *id, const struct gp_strtab *from, struct gp_strtab *to)
{
	const char *s;

	if (*id == GP__AGG_NONE)
		return 0;
	s = gp__strtab_get(from, *id);
	return gp__strtab_intern(to, s, gp__strtab_strlen(from, *id), id);
}

int gp__agg_reintern(struct gp__agg_rank *r, const struct gp_strtab *from, struct gp_strtab *to)
{
	size_t i, n = gp__strtab_count(from);
	uint32_t *map = gp__calloc(n ? n : 1, sizeof(*map));
	int rc = 0;

	if (!map)
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		map[i] = (uint32_t)i;
		GP_TRY(move_id(&map[i], from, to));
	}
#define MAP(x) ((x) = (x) == GP__AGG_NONE ? GP__AGG_NONE : map[(x)])
	for (i = 0; i < r->nent; i++) {
		MAP(r->ent[i].pg);
		MAP(r->ent[i].name);
		MAP(r->ent[i].dtype);
	}
	for (i = 0; i < r->npg; i++) {
		MAP(r->pg[i].name);
		MAP(r->pg[i].desc);
	}
	MAP(r->seq_source);
#undef MAP
out:
	gp__free(map);
	return rc;
}

void gp__agg_rank_release(struct gp__agg_rank *r)
{
	size_t i;

	gp__free(r->file);
	gp__free(r->host);
	gp__free(r->gpu_model);
	gp__free(r->backend);
	gp__free(r->ent);
	for (i = 0; i < r->npg; i++)
		gp__agg_rlist_unref(r->pg[i].ranks);
	gp__free(r->pg);
	memset(r, 0, sizeof(*r));
}

int gp__agg_init(struct gp__agg *a)
{
	memset(a, 0, sizeof(*a));
	if (gp__strtab_init(&a->str) || !(a->warnings = gp_value_array())) {
		gp__agg_release(a);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return 0;
}

void gp__agg_release(struct gp__agg *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		gp__agg_rank_release(&a->r[i]);
	gp__free(a->r);
	gp__free(a->inst);
	gp__free(a->mem);
	gp_value_free(a->warnings);
	gp_value_free(a->desync);
	gp__strtab_release(&a->str);
	memset(a, 0, sizeof(*a));
}

/* ---- reading the inputs ---- */

/*
 * What gp__agg_reduce() and check_schema() read of a report, and nothing
 * else: the kernels, cpu_ops, timeline... of each rank are validated and
 * skipped, never built (util/json-prune.h). A key read above and missing
 * here would read as absent: test_json_prune compares the records of the
 * pruned and the whole tree.
 */
/* clang-format off */
#define K(k, sub) { k, sub, false }
#define KT(k)     { k, NULL, true } /* kept as its JSON text */
/* clang-format on */
static const struct gp_jkeep keep_entry[] = { K("seq", NULL),        K("start_ns", NULL),
	                                      K("end_ns", NULL),     K("bytes", NULL),
	                                      K("group_size", NULL), K("step", NULL),
	                                      K("pg", NULL),         K("name", NULL),
	                                      K("dtype", NULL),      K(NULL, NULL) };
static const struct gp_jkeep keep_coll[] = { K("seq_source", NULL), KT("process_groups"),
	                                     K("ledger", keep_entry), K(NULL, NULL) };
static const struct gp_jkeep keep_device[] = { K("active", NULL), K("name", NULL), K("id", NULL),
	                                       K(NULL, NULL) };
static const struct gp_jkeep keep_dist[] = { K("backend", NULL), K("world_size", NULL),
	                                     K(NULL, NULL) };
static const struct gp_jkeep keep_overview[] = { K("devices", keep_device),
	                                         K("distributed", keep_dist), K("start_ns", NULL),
	                                         K("span_ns", NULL), K(NULL, NULL) };
static const struct gp_jkeep keep_breakdown[] = { K("dataloader_pct", NULL), K(NULL, NULL) };
static const struct gp_jkeep keep_steps[] = { K("count", NULL),
	                                      K("mean_ns", NULL),
	                                      K("median_ns", NULL),
	                                      K("p95_ns", NULL),
	                                      K("breakdown_pct", keep_breakdown),
	                                      K(NULL, NULL) };
static const struct gp_jkeep keep_idle[] = { K("host_wait_ns", NULL), K(NULL, NULL) };
static const struct gp_jkeep keep_gpu[] = { K("busy_ns", NULL),
	                                    K("idle_ns", NULL),
	                                    K("idle_pct", NULL),
	                                    K("compute_ns", NULL),
	                                    K("communication_ns", NULL),
	                                    K("comm_comp_overlap_pct", NULL),
	                                    K("idle_breakdown_total", keep_idle),
	                                    K(NULL, NULL) };
static const struct gp_jkeep keep_peak[] = { K("device", NULL), K("peak_allocated_bytes", NULL),
	                                     K(NULL, NULL) };
static const struct gp_jkeep keep_memory[] = { K("devices", keep_peak), K(NULL, NULL) };
static const struct gp_jkeep keep_finding[] = { K("id", NULL), K(NULL, NULL) };
static const struct gp_jkeep keep_rank[] = { K("rank", NULL),
	                                     K("host", NULL),
	                                     K("collectives", keep_coll),
	                                     K("overview", keep_overview),
	                                     K("step_stats", keep_steps),
	                                     K("gpu", keep_gpu),
	                                     K("memory", keep_memory),
	                                     K("findings", keep_finding),
	                                     K(NULL, NULL) };
static const struct gp_jkeep keep_series[] = { K("name", NULL), K("mean", NULL), K(NULL, NULL) };
static const struct gp_jkeep keep_metrics[] = { K("series", keep_series), K(NULL, NULL) };
static const struct gp_jkeep keep_report[] = { K("schema", NULL), K("ranks", keep_rank),
	                                       K("metrics", keep_metrics), K(NULL, NULL) };
#undef K
#undef KT
const struct gp_jkeep *const gp__agg_report_keep = keep_report;

/* where the workers put the records: the job, under its lock */
struct sink {
	struct gp__agg *a;
	pthread_mutex_t lock;
	struct gp_u64map lists; /* a rank list's hash -> the first list (int64_t *) with it */
	/*
	 * String tables the workers reduce into without the lock, one taken
	 * per reduction and given back: as many as ran at once, each holding
	 * the few names of a job's collectives (a table per rank cost a
	 * 256 KiB block, i.e. a mapping, each).
	 */
	struct gp_strtab **tabs;
	size_t ntabs, ctabs;
};

/* the rank lists of record @p r replaced by equal ones of earlier records (under the lock) */
static void share_lists(struct sink *s, struct gp__agg_rank *r)
{
	size_t i;

	/* sharing saves memory: without the memory for the map, none is shared */
	if (!s->lists.nslot && gp__u64map_init(&s->lists, 64)) {
		gp_clear_error();
		return;
	}
	for (i = 0; i < r->npg; i++) {
		struct gp__agg_pg *p = &r->pg[i];
		uint64_t h, got;

		if (!p->ranks)
			continue;
		h = gp__hash_bytes(p->ranks, p->nranks * sizeof(*p->ranks)) ^
		    gp_hash_u64(p->nranks);
		if (!gp__u64map_get(&s->lists, h, &got)) {
			if (gp__u64map_put(&s->lists, h, (uint64_t)(uintptr_t)p->ranks))
				gp_clear_error();
			continue;
		}
		gp__agg_rlist_share(&p->ranks, (int64_t *)(uintptr_t)got);
	}
}

/* a string table of the sink's spare ones, or a new one; NULL without memory */
static struct gp_strtab *tab_take(struct sink *s)
{
	struct gp_strtab *t = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->ntabs)
		t = s->tabs[--s->ntabs];
	pthread_mutex_unlock(&s->lock);
	if (t)
		return t;
	if (!(t = gp__calloc(1, sizeof(*t))) || gp__strtab_init(t)) {
		gp__free(t);
		return NULL;
	}
	return t;
}

/* gives table @p t back to the sink (under its lock) */
static void tab_give(struct sink *s, struct gp_strtab *t)
{
	if (gp__grow((void **)&s->tabs, &s->ctabs, s->ntabs + 1, sizeof(*s->tabs))) {
		gp_clear_error(); /* without room to keep it: freed */
		gp__strtab_release(t);
		gp__free(t);
		return;
	}
	s->tabs[s->ntabs++] = t;
}

/*
 * Reduces rank object @p ro into a table of its worker's, without the
 * lock, and adds the record to the job under the lock, its strings moved
 * into the job's table.
 */
static int sink_add(struct sink *s, const struct gp_value *ro, const struct gp_value *report,
                    const char *file)
{
	struct gp_strtab *t = tab_take(s);
	struct gp__agg_rank r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (!t)
		return gp__error(GP_ENOMEM, "out of memory");
	rc = gp__agg_reduce(ro, report, file, t, &r);
	pthread_mutex_lock(&s->lock);
	if (!rc)
		rc = gp__agg_reintern(&r, t, &s->a->str);
	if (!rc)
		rc = gp__grow((void **)&s->a->r, &s->a->cap, s->a->n + 1, sizeof(r));
	if (!rc) {
		s->a->r[s->a->n++] = r;
		memset(&r, 0, sizeof(r));
		share_lists(s, &s->a->r[s->a->n - 1]);
	}
	tab_give(s, t);
	pthread_mutex_unlock(&s->lock);
	gp__agg_rank_release(&r);
	return rc;
}

static int each_rank(void *arg, const struct gp_value *ro, const char *path)
{
	return sink_add(arg, ro, NULL, path);
}

/* one report file of the pool */
struct rjob {
	struct gp__src *src;
	size_t added; /* its ranks in the job */
	int rc;
	char err[1024];
};

struct rpool {
	struct rjob *jobs;
	struct sink *sink;
};

/* the schema a report must have, and the words for what it has instead */
static int check_schema(const struct gp_value *doc, const char *path)
{
	const char *schema = gp_value_get_str(gp_obj_get(doc, "schema"));

	if (!schema)
		return gp__error(GP_EFORMAT, "'%s': no \"schema\": not an analyze report (%s)",
		                 path, GP_ANALYZE_SCHEMA);
	if (strcmp(schema, GP_ANALYZE_SCHEMA) != 0)
		return gp__error(
		    GP_EVERSION,
		    "'%s': schema '%s' is not %s: aggregate reads analyze reports (run "
		    "`gpuprof analyze --json` with this version)",
		    path, schema, GP_ANALYZE_SCHEMA);
	if (gp_value_type(gp_obj_get(doc, "ranks")) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "'%s': an analyze report without \"ranks\"", path);
	return 0;
}

static int read_report(struct rjob *job, struct sink *sink)
{
	const struct gp__src *src = job->src;
	const char *path = src->is_stdin ? "<stdin>" : src->path;
	struct gp_value *doc = NULL;
	const struct gp_value *ranks;
	size_t i;
	int rc = 0;

	GP_TRY(gp__doc_read_pruned(src, gp__agg_report_keep, &doc));
	GP_TRY(check_schema(doc, path));
	ranks = gp_obj_get(doc, "ranks");
	if (!gp_value_len(ranks))
		GP_TRY(gp__error(GP_EFORMAT, "'%s': an analyze report without any rank", path));
	for (i = 0; i < gp_value_len(ranks); i++, job->added++)
		GP_TRY(sink_add(sink, gp_arr_get(ranks, i), doc, path));
out:
	gp_value_free(doc);
	return rc;
}

static void rworker(void *arg, size_t i)
{
	struct rpool *p = arg;

	if ((p->jobs[i].rc = read_report(&p->jobs[i], p->sink)))
		snprintf(p->jobs[i].err, sizeof(p->jobs[i].err), "%s", gp_last_error());
}

static size_t nthreads(const struct gp_aggregate_opts *o, size_t jobs)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t t = o->threads ? o->threads : (size_t)(ncpu > 0 ? ncpu : 1);

	return t > jobs ? (jobs ? jobs : 1) : t;
}

static int read_reports(struct rjob *jobs, size_t n, struct sink *sink,
                        const struct gp_aggregate_opts *o)
{
	struct rpool p = { .jobs = jobs, .sink = sink };
	size_t i;

	gp__pool_run(n, nthreads(o, n), rworker, &p);
	for (i = 0; i < n; i++) {
		struct gp__src *s = jobs[i].src;
		enum gp__src_kind k;

		if (!jobs[i].rc)
			continue;
		/*
		 * A document sniffed no further than its first keys
		 * (GP_SRC_DOCS_UNSNIFFED) that is no report: the whole sniff
		 * says what it is; a trace (whose first keys looked like
		 * gpuprof's) is analysed with the others, anything else is
		 * this error.
		 */
		if (s->kind == GP_SRC_DOC && !s->is_stdin && !jobs[i].added &&
		    gp__sniff_file(s->path, &k) == 0 && (GP__ANALYZE_KINDS & 1u << k)) {
			s->kind = k;
			continue;
		}
		return gp__error(jobs[i].rc, "%s", jobs[i].err);
	}
	return 0;
}

/* what a typed or found input that is no analyze report nor trace is */
static int refuse(const struct gp__src *s)
{
	struct gp_value *doc = NULL;
	int rc;

	if (s->kind == GP_SRC_AGGREGATE || s->kind == GP_SRC_BENCH || s->kind == GP_SRC_COMPARE) {
		if ((rc = gp__doc_read(s, &doc)))
			return rc;
		rc = check_schema(doc, s->is_stdin ? "<stdin>" : s->path);
		gp_value_free(doc);
		if (rc)
			return rc;
	}
	return gp__error(GP_EINVAL, "'%s': %s: aggregate does not read it", s->path,
	                 gp__src_kind_name(s->kind));
}

/* the traces among @p srcs, analysed with their rank objects going to @p sink */
static int analyze_traces(struct gp__srcs *srcs, struct sink *sink,
                          const struct gp_aggregate_opts *o)
{
	struct gp__srcs sub = { 0 };
	struct gp_analyze_opts ao = o->analyze;
	struct gp_value *rep = NULL;
	const struct gp_value *w;
	size_t i;
	int rc = 0;

	for (i = 0; i < srcs->n; i++) {
		if (!(GP__ANALYZE_KINDS & 1u << srcs->v[i].kind))
			continue;
		GP_TRY(gp__grow((void **)&sub.v, &sub.cap, sub.n + 1, sizeof(*sub.v)));
		sub.v[sub.n++] = srcs->v[i]; /* borrowed: only sub.v is freed */
	}
	if (!sub.n)
		goto out;
	ao.size = sizeof(ao);
	ao.only_rank = -1;
	if (!ao.threads)
		ao.threads = (uint32_t)nthreads(o, SIZE_MAX);
	GP_TRY(gp__analyze_srcs_each(&sub, &ao, each_rank, sink, &rep));
	/*
	 * The metrics timeline is the report's, built after its ranks: the SM
	 * clock of the ranks of traces, when one timeline (one host's) was given.
	 */
	if (gp__srcs_count(&sub, 1u << GP_SRC_METRICS) == 1)
		for (i = 0; i < sink->a->n; i++)
			if (sink->a->r[i].from_trace)
				sink->a->r[i].m[GP_AGG_GPU_CLOCK] =
				    sm_clock_mhz(rep, sink->a->r[i].device);
	w = gp_obj_get(rep, "warnings");
	for (i = 0; i < gp_value_len(w); i++)
		GP_TRY(gp_arr_push(sink->a->warnings, gp_value_clone(gp_arr_get(w, i))));
out:
	gp_value_free(rep);
	gp__free(sub.v);
	return rc;
}

int gp__agg_load(struct gp__agg *a, const char *const *paths, size_t n,
                 const struct gp_aggregate_opts *o)
{
	struct gp__srcs srcs;
	struct sink sink = { .a = a };
	struct rjob *jobs = NULL;
	size_t i, nj = 0, cap = 0;
	int rc = 0;

	memset(&srcs, 0, sizeof(srcs));
	pthread_mutex_init(&sink.lock, NULL);
	/* a report is read whole below: not sniffed on to its "schema" first */
	GP_TRY(gp__srcs_resolve(paths, n, GP_SRC_ALLOW_STDIN | GP_SRC_DOCS_UNSNIFFED, &srcs));
	GP_TRY(gp__srcs_keep(&srcs, GP__ANALYZE_KINDS | GP_SRC_DOCS, "aggregate"));
	for (i = 0; i < srcs.n; i++) {
		struct gp__src *s = &srcs.v[i];

		/*
		 * A gpuprof document whose "schema" was not sniffed (its keys
		 * are sorted, "ranks" first) is GP_SRC_DOC: read as a report,
		 * its schema checked.
		 */
		if (s->kind == GP_SRC_ANALYZE || s->kind == GP_SRC_DOC) {
			GP_TRY(gp__grow((void **)&jobs, &cap, nj + 1, sizeof(*jobs)));
			memset(&jobs[nj], 0, sizeof(*jobs));
			jobs[nj++].src = s;
		} else if (!(GP__ANALYZE_KINDS & 1u << s->kind)) {
			GP_TRY(refuse(s));
		}
	}
	if (srcs.skipped)
		GP_TRY(gp_arr_push(a->warnings, gp_value_str(srcs.skipped)));
	if (nj)
		GP_TRY(read_reports(jobs, nj, &sink, o));
	GP_TRY(analyze_traces(&srcs, &sink, o));
	if (!a->n)
		GP_TRY(gp__error(GP_ENOENT, "no rank among the inputs"));
out:
	gp__free(jobs);
	gp__srcs_release(&srcs);
	gp__u64map_release(&sink.lists);
	for (i = 0; i < sink.ntabs; i++) {
		gp__strtab_release(sink.tabs[i]);
		gp__free(sink.tabs[i]);
	}
	gp__free(sink.tabs);
	pthread_mutex_destroy(&sink.lock);
	return rc;
}

int gp__agg_load_doc(struct gp__agg *a, const struct gp_value *doc)
{
	const struct gp_value *ranks = gp_obj_get(doc, "ranks");
	size_t i, n = gp_value_len(ranks);
	int rc = 0;

	GP_TRY(check_schema(doc, "the analysis"));
	for (i = 0; i < n; i++) {
		const struct gp_value *ro = gp_arr_get(ranks, i);
		const char *file = gp_value_get_str(gp_obj_get(ro, "file"));
		struct gp__agg_rank r;

		memset(&r, 0, sizeof(r));
		rc = gp__agg_reduce(ro, doc, file ? file : "the analysis", &a->str, &r);
		if (!rc)
			rc = gp__grow((void **)&a->r, &a->cap, a->n + 1, sizeof(r));
		if (rc) {
			gp__agg_rank_release(&r);
			goto out;
		}
		a->r[a->n++] = r;
	}
	if (!a->n)
		GP_TRY(gp__error(GP_ENOENT, "no rank in the analysis"));
out:
	return rc;
}
