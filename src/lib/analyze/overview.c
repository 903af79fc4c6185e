/* SPDX-License-Identifier: MIT */
/*
 * overview.c - the "overview" section: what the trace holds before any
 * interpretation: span, event counts by category, devices and their
 * properties, GPU streams, host threads, ProfilerStep count, distributed
 * info and the trace's own metadata (versions, profiler options).
 *
 * Reads only the trace model and the context's kept-event lists; every
 * field that the file does not carry is null. docs/analyses/overview-memory.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"
#include "util/error.h"
#include "util/sort.h"

struct catrow {
	const char *name;
	char ph;
	uint64_t count;
};

static int cmp_cat(const void *a, const void *b)
{
	const struct catrow *x = a, *y = b;
	int d;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((d = strcmp(x->name, y->name)))
		return d;
	return (x->ph > y->ph) - (x->ph < y->ph);
}

static int add_categories(const struct gp_trace *t, struct gp_value *o)
{
	struct gp_value *arr = gp_value_array();
	struct catrow *rows = NULL;
	size_t i;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "categories", arr));
	rows = gp__calloc(t->ncats + 1, sizeof(*rows));
	if (!rows)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->ncats; i++) {
		rows[i].name = gp__strtab_get(&t->strs, t->cats[i].cat);
		rows[i].ph = t->cats[i].ph;
		rows[i].count = t->cats[i].count;
	}
	qsort(rows, t->ncats, sizeof(*rows), cmp_cat);
	for (i = 0; i < t->ncats; i++) {
		struct gp_value *r = gp_value_object();
		char ph[2] = { rows[i].ph, 0 };

		if (!r)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, r));
		GP_TRY(gp_obj_set_str(r, "cat", rows[i].name));
		GP_TRY(gp_obj_set_str(r, "ph", ph));
		GP_TRY(gp_obj_set_int(r, "count", (int64_t)rows[i].count));
	}
out:
	gp__free(rows);
	return rc;
}

static int set_int_or_null(struct gp_value *o, const char *key, int64_t v)
{
	return v >= 0 ? gp_obj_set_int(o, key, v) : gp_obj_set_null(o, key);
}

static int add_device(struct gp_value *arr, const struct gp_trace *t, int64_t id, bool active)
{
	struct gp_device_props p;
	struct gp_value *d = gp_value_object();
	enum gp__vendor v = GP_VENDOR_UNKNOWN;
	bool by_id = true, found;
	char cc[48];
	int rc = 0;

	if (!d)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_arr_push(arr, d));
	GP_TRY(gp_obj_set_int(d, "id", id));
	GP_TRY(gp_obj_set_bool(d, "active", active));
	if (!(found = gp__trace_device_model(t, id, &p, &by_id))) {
		p.name = NULL;
		p.total_mem = p.num_sms = p.max_threads_per_sm = -1;
		p.compute_major = p.compute_minor = -1;
		p.warp_size = -1;
	} else {
		v = gp__device_vendor(&p);
	}
	if (v == GP_VENDOR_UNKNOWN)
		v = gp__trace_vendor(t);
	GP_TRY(gp_obj_set_str(d, "name", p.name));
	/* the one model deviceProperties lists, under other ids (HIP's agents) */
	GP_TRY(found ? gp_obj_set_bool(d, "properties_by_id", by_id)
	             : gp_obj_set_null(d, "properties_by_id"));
	GP_TRY(gp_obj_set_str(d, "vendor", gp__vendor_name(v)));
	GP_TRY(set_int_or_null(d, "total_memory_bytes", p.total_mem));
	GP_TRY(set_int_or_null(d, "num_sms", p.num_sms));
	GP_TRY(set_int_or_null(d, "max_threads_per_sm", p.max_threads_per_sm));
	if (p.compute_major >= 0 && p.compute_minor >= 0) {
		snprintf(cc, sizeof(cc), "%lld.%lld", (long long)p.compute_major,
		         (long long)p.compute_minor);
		GP_TRY(gp_obj_set_str(d, "compute_capability", cc));
	} else {
		GP_TRY(gp_obj_set_null(d, "compute_capability"));
	}
out:
	return rc;
}

/*
 * Devices seen in GPU events; when the trace has none, every device of
 * deviceProperties (marked active: false), so a CPU-only trace from a GPU
 * machine still says what hardware was there.
 */
static int add_devices(const struct gp__actx *c, struct gp_value *o)
{
	const struct gp_trace *t = c->t;
	struct gp_value *arr = gp_value_array();
	int64_t *ids = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "devices", arr));
	ids = gp__calloc(c->gpu.n + 1, sizeof(*ids));
	if (!ids)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < c->gpu.n; i++) {
		uint32_t e = c->gpu.v[i], a = t->ev.aux[e];
		int64_t dev = a < t->ngpu ? t->gpu[a].device : -1;

		if (dev < 0 && t->ev.track[e] < t->ntracks && t->tracks[t->ev.track[e]].gpu)
			dev = t->tracks[t->ev.track[e]].device;
		if (dev >= 0)
			ids[n++] = dev;
	}
	GP_TRY(gp__sort_i64(ids, n));
	for (i = 0; i < n; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			GP_TRY(add_device(arr, t, ids[i], true));
	if (n == 0) {
		const struct gp_value *props = gp_obj_get(t->meta, "deviceProperties");

		for (i = 0; i < gp_value_len(props); i++) {
			int64_t id;

			if (gp_value_get_int(gp_obj_get(gp_arr_get(props, i), "id"), &id))
				GP_TRY(add_device(arr, t, id, false));
		}
	}
out:
	gp__free(ids);
	return rc;
}

struct srow {
	int64_t device, stream;
	int64_t n[3];
};

static int cmp_srow(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* GPU streams (device, stream) with their kernel, memcpy and memset counts */
static int add_streams(const struct gp__actx *c, struct gp_value *o)
{
	static const uint8_t kinds[3] = { GP_K_KERNEL, GP_K_MEMCPY, GP_K_MEMSET };
	static const char *const keys[3] = { "kernels", "memcpys", "memsets" };
	const struct gp_trace *t = c->t;
	struct gp_value *arr = gp_value_array();
	struct srow *rows = NULL;
	int64_t *slot = NULL;
	size_t n = 0, i, k;
	int rc = 0;

	if (!arr)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "streams", arr));
	rows = gp__calloc(t->ntracks + 1, sizeof(*rows));
	slot = gp__calloc(t->ntracks + 1, sizeof(*slot));
	if (!rows || !slot)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	for (i = 0; i < t->ntracks; i++)
		slot[i] = -1;
	for (k = 0; k < 3; k++) {
		const struct gp__idx *ix = &c->by_kind[kinds[k]];

		for (i = 0; i < ix->n; i++) {
			uint32_t e = ix->v[i], tr = t->ev.track[e], a = t->ev.aux[e];

			if (tr >= t->ntracks)
				continue;
			if (slot[tr] < 0) {
				slot[tr] = (int64_t)n;
				rows[n].device = a < t->ngpu && t->gpu[a].device >= 0
				                     ? t->gpu[a].device
				                     : t->tracks[tr].device;
				rows[n].stream =
				    t->ev.stream[e] >= 0 ? t->ev.stream[e] : t->tracks[tr].stream;
				n++;
			}
			rows[slot[tr]].n[k]++;
		}
	}
	qsort(rows, n, sizeof(*rows), cmp_srow);
	for (i = 0; i < n; i++) {
		struct gp_value *r = gp_value_object();

		if (!r)
			GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
		GP_TRY(gp_arr_push(arr, r));
		GP_TRY(gp_obj_set_int(r, "device", rows[i].device));
		GP_TRY(gp_obj_set_int(r, "stream", rows[i].stream));
		for (k = 0; k < 3; k++)
			GP_TRY(gp_obj_set_int(r, keys[k], rows[i].n[k]));
	}
out:
	gp__free(rows);
	gp__free(slot);
	return rc;
}

/* host threads: CPU-side tracks holding at least one kept event */
static int64_t count_threads(const struct gp__actx *c)
{
	const struct gp_trace *t = c->t;
	uint8_t *seen = gp__calloc(t->ntracks + 1, 1);
	int64_t n = 0;
	size_t i;

	if (!seen)
		return -1;
	for (i = 0; i < t->ev.n; i++) {
		uint32_t tr = t->ev.track[i];

		if (!gp__kept(c, i) || tr >= t->ntracks || t->tracks[tr].gpu || seen[tr])
			continue;
		switch (t->ev.kind[i]) {
		case GP_K_TRACE:
		case GP_K_GPU_ANNOTATION:
		case GP_K_KERNEL:
		case GP_K_MEMCPY:
		case GP_K_MEMSET:
			continue;
		default:
			break;
		}
		seen[tr] = 1;
		n++;
	}
	gp__free(seen);
	return n;
}

static int copy_meta(struct gp_value *dst, const char *key, const struct gp_value *src,
                     const char *skey)
{
	const struct gp_value *v = gp_obj_get(src, skey);
	struct gp_value *cl;

	if (!v)
		return gp_obj_set_null(dst, key);
	cl = gp_value_clone(v);
	if (!cl)
		return gp__error(GP_ENOMEM, "out of memory");
	return gp_obj_set(dst, key, cl);
}

static int add_distributed(const struct gp_trace *t, struct gp_value *o)
{
	const struct gp_value *di = gp_obj_get(t->meta, "distributedInfo");
	const struct gp_value *pgc;
	struct gp_value *d;
	int64_t n;
	int rc = 0;

	if (gp_value_type(di) != GP_VALUE_OBJECT)
		return gp_obj_set_null(o, "distributed");
	d = gp_value_object();
	if (!d)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "distributed", d));
	GP_TRY(copy_meta(d, "rank", di, "rank"));
	GP_TRY(copy_meta(d, "world_size", di, "world_size"));
	GP_TRY(copy_meta(d, "backend", di, "backend"));
	GP_TRY(copy_meta(d, "nccl_version", di, "nccl_version"));
	pgc = gp_obj_get(di, "pg_config");
	if (gp_value_type(pgc) == GP_VALUE_ARRAY)
		GP_TRY(gp_obj_set_int(d, "process_groups", (int64_t)gp_value_len(pgc)));
	else if (gp_value_get_int(gp_obj_get(di, "pg_count"), &n))
		GP_TRY(gp_obj_set_int(d, "process_groups", n));
	else
		GP_TRY(gp_obj_set_null(d, "process_groups"));
out:
	return rc;
}

static int add_trace_info(const struct gp_trace *t, struct gp_value *o)
{
	static const struct {
		const char *key, *src;
	} keys[] = {
		{ "schema_version", "schemaVersion" },
		{ "cuda_runtime_version", "cuda_runtime_version" },
		{ "cuda_driver_version", "cuda_driver_version" },
		{ "cupti_version", "cupti_version" },
		{ "hip_runtime_version", "hip_runtime_version" },
		{ "hip_driver_version", "hip_driver_version" },
		{ "roctracer_version", "roctracer_version" },
		{ "record_shapes", "record_shapes" },
		{ "with_stack", "with_stack" },
		{ "profile_memory", "profile_memory" },
		{ "with_flops", "with_flops" },
		{ "with_modules", "with_modules" },
		{ "display_time_unit", "displayTimeUnit" },
		{ "trace_id", "trace_id" },
	};
	struct gp_value *d = gp_value_object();
	size_t i;
	int rc = 0;

	if (!d)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "trace", d));
	for (i = 0; i < GP_ARRAY_SIZE(keys); i++)
		GP_TRY(copy_meta(d, keys[i].key, t->meta, keys[i].src));
	if (t->has_base)
		GP_TRY(gp_obj_set_int(d, "base_time_ns", t->base_ns));
	else
		GP_TRY(gp_obj_set_null(d, "base_time_ns"));
	GP_TRY(gp_obj_set_str(d, "ts_format", t->ts_float ? "float_us" : "integer_us"));
	GP_TRY(gp_obj_set_bool(d, "bare_array", t->bare_array));
	GP_TRY(gp_obj_set_int(d, "bytes_read", (int64_t)t->bytes_read));
out:
	return rc;
}

/* A capture of `gpuprof run`: the process, and what the reader counted (windows, losses). */
static int add_capture(const struct gp_trace *t, struct gp_value *o)
{
	static const char *const proc[] = { "pid", "ppid", "host", "exe", "cmdline", "launcher" };
	const struct gp_value *rd = gp_obj_get(t->meta, "gpuprof_capture_read");
	const struct gp_value *m = gp_obj_get(t->meta, "gpuprof_capture");
	struct gp_value *d;
	int rc = 0;

	if (!rd)
		return gp_obj_set_null(o, "capture");
	if (!(d = gp_value_clone(rd)))
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "capture", d));
	for (size_t i = 0; i < GP_ARRAY_SIZE(proc); i++) {
		const struct gp_value *v = gp_obj_get(m, proc[i]);

		GP_TRY(gp_obj_set(d, proc[i], v ? gp_value_clone(v) : gp_value_null()));
	}
out:
	return rc;
}

/* {dropped_step, rounded_to_us}: the step HTA's filter left out, whether times were rounded */
static int add_compat(const struct gp__actx *c, struct gp_value *o)
{
	struct gp_value *h = gp_value_object();
	int rc = 0;

	if (!h)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(o, "compat_hta", h));
	GP_TRY(gp_obj_set(h, "dropped_step",
	                  c->hta_dropped >= 0
	                      ? gp_value_str(gp__ev_name(c->t, (size_t)c->hta_dropped))
	                      : gp_value_null()));
	GP_TRY(gp_obj_set_bool(h, "rounded_to_us", c->ts_own != NULL));
out:
	return rc;
}

int gp__an_overview(const struct gp__actx *c, struct gp_value *r)
{
	const struct gp_trace *t = c->t;
	struct gp_value *o = gp_value_object();
	int64_t threads;
	int rc = 0;

	if (!o)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(r, "overview", o));
	GP_TRY(gp_obj_set_int(o, "start_ns", c->span_start));
	GP_TRY(gp_obj_set_int(o, "span_ns", c->span_end - c->span_start));
	GP_TRY(gp_obj_set_int(o, "events_read", (int64_t)t->events_read));
	GP_TRY(gp_obj_set_int(o, "events_kept", (int64_t)t->ev.n));
	GP_TRY(gp_obj_set_int(o, "python_events", (int64_t)t->npy));
	GP_TRY(gp_obj_set_int(o, "memory_events", (int64_t)t->nmem));
	GP_TRY(gp_obj_set_int(o, "steps", (int64_t)c->nsteps));
	GP_TRY(gp_obj_set_bool(o, "has_gpu", c->gpu.n > 0));
	threads = count_threads(c);
	if (threads < 0)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp_obj_set_int(o, "threads", threads));
	GP_TRY(add_categories(t, o));
	GP_TRY(add_devices(c, o));
	GP_TRY(add_streams(c, o));
	GP_TRY(add_distributed(t, o));
	GP_TRY(add_trace_info(t, o));
	GP_TRY(add_capture(t, o));
	if (c->hta) /* what --compat hta changed, for the header */
		GP_TRY(add_compat(c, o));
out:
	return rc;
}
