/* SPDX-License-Identifier: MIT */
/*
 * capture.c - a capture file (docs/capture-format.md) into the trace model,
 * so that every analysis of a Kineto trace runs on it unchanged.
 *
 * Mapping: kernels, copies and memsets go on GPU tracks (pid = device, tid =
 * stream) as kernel / gpu_memcpy / gpu_memset events with their correlation
 * ids; runtime and driver calls on thread tracks (pid, tid) as cuda_runtime
 * / cuda_driver; synchronisations as cuda_sync on the stream's track; NVTX
 * push/pop ranges (matched per thread) and start/end ranges (by id) as
 * user_annotation events named "message" in the default domain and
 * "domain:message" in others (nsys's naming); marks as zero-length events
 * flagged GP_EVF_MARK, named the same way. Annotation API records: a SITE
 * gives the ranges pushed with its id their source ("file:line", the first
 * site of a name wins, t->range_src); COUNTER samples go to t->ctr. META becomes the metadata key
 * "gpuprof_capture" (rank, world size from there), DEVICE records a Kineto
 * style "deviceProperties" array; MEM records (CUDA allocations and frees)
 * memory events (capture-mem.c). Names follow Kineto's: "Memcpy HtoD
 * (Pageable -> Device)", "Memset (Device)".
 *
 * Truncation is expected (a process killed with SIGKILL): a record cut short
 * ends the read; it is an error unless opts->salvage, and
 * gp_trace_salvage() tells how many bytes were lost either way. A record
 * whose size is impossible is damage, reported with its byte offset. An
 * unknown record type is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capfmt.h"
#include "capture-int.h"
#include "capture.h"
#include "trace/model.h"
#include "util/error.h"
#include "util/json-scan.h"
#include "util/opts.h"
#include "util/strtab.h"

/* ---- GPU activity ---- */

static const char *mem_kind(unsigned k)
{
	static const char *const n[] = { "Unknown", "Pageable", "Pinned",        "Device",
		                         "Array",   "Managed",  "Device Static", "Managed Static" };

	return k < sizeof(n) / sizeof(n[0]) ? n[k] : "Unknown";
}

static const char *copy_kind(unsigned k)
{
	static const char *const n[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
		                         "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP" };

	return k < sizeof(n) / sizeof(n[0]) ? n[k] : "Unknown";
}

static int on_kernel(struct rd *r, const struct gp_cap_kernel *k)
{
	struct gp_gpu_info gi;
	uint32_t name, tr;
	size_t idx;
	int rc;

	gp__cap_str_of(r, k->name, &name);
	if ((rc = gp__cap_track(r, k->device, k->stream, true, (int32_t)k->device, &tr)) ||
	    (rc = gp__cap_add(r, GP_K_KERNEL, name, tr, k->start, k->end, k->correlation, k->stream,
	                      &idx)))
		return rc;
	memset(&gi, 0, sizeof(gi));
	gi.device = (int32_t)k->device;
	for (int i = 0; i < 3; i++) {
		gi.grid[i] = k->grid[i];
		gi.block[i] = k->block[i];
	}
	gi.regs = k->regs;
	gi.shmem = (int64_t)k->static_smem + k->dynamic_smem;
	gi.bytes = -1;
	gi.blocks_per_sm = gi.warps_per_sm = gi.occupancy_pct = gi.bw_gbps = __builtin_nan("");
	return gp__trace_add_gpu_info(r->t, idx, &gi);
}

static int add_copy(struct rd *r, enum gp_kind kind, const char *label, uint32_t device,
                    uint32_t stream, int64_t start, int64_t end, uint32_t corr, uint64_t bytes)
{
	struct gp_gpu_info gi;
	uint32_t name, tr;
	size_t idx;
	int rc;

	if ((rc = gp__cap_intern(r, label, strlen(label), &name)) ||
	    (rc = gp__cap_track(r, device, stream, true, (int32_t)device, &tr)) ||
	    (rc = gp__cap_add(r, kind, name, tr, start, end, corr, stream, &idx)))
		return rc;
	memset(&gi, 0, sizeof(gi));
	gi.device = (int32_t)device;
	for (int i = 0; i < 3; i++)
		gi.grid[i] = gi.block[i] = -1;
	gi.regs = -1;
	gi.shmem = -1;
	gi.bytes = bytes > (uint64_t)INT64_MAX / 4 ? -1 : (int64_t)bytes;
	gi.blocks_per_sm = gi.warps_per_sm = gi.occupancy_pct = __builtin_nan("");
	/* the event's duration, as gp__cap_add() stored it (within the model's limits) */
	gi.bw_gbps = r->t->ev.dur[idx] > 0 && gi.bytes >= 0
	                 ? (double)gi.bytes / (double)r->t->ev.dur[idx]
	                 : __builtin_nan("");
	return gp__trace_add_gpu_info(r->t, idx, &gi);
}

static int on_memcpy(struct rd *r, const struct gp_cap_memcpy *m)
{
	char label[96];

	snprintf(label, sizeof(label), "Memcpy %s (%s -> %s)", copy_kind(m->copy_kind),
	         mem_kind(m->src_kind), mem_kind(m->dst_kind));
	/* CUPTI: correlationId is the driver call's; the runtime call's, when there was one, is
	 * runtimeCorrelationId (the API records kept are the runtime's) */
	return add_copy(r, GP_K_MEMCPY, label, m->device, m->stream, m->start, m->end,
	                m->runtime_correlation ? m->runtime_correlation : m->correlation, m->bytes);
}

static int on_memset(struct rd *r, const struct gp_cap_memset *m)
{
	char label[64];

	snprintf(label, sizeof(label), "Memset (%s)", mem_kind(m->memory_kind));
	return add_copy(r, GP_K_MEMSET, label, m->device, m->stream, m->start, m->end,
	                m->correlation, m->bytes);
}

static int on_api(struct rd *r, const struct gp_cap_api *a)
{
	uint32_t name, tr;
	size_t idx;
	int rc;

	gp__cap_str_of(r, a->name, &name);
	if ((rc = gp__cap_track(r, a->pid, a->tid, false, -1, &tr)))
		return rc;
	return gp__cap_add(r, a->domain == GP_CAP_RUNTIME ? GP_K_RUNTIME : GP_K_DRIVER, name, tr,
	                   a->start, a->end, a->correlation, -1, &idx);
}

static int on_sync(struct rd *r, const struct gp_cap_sync *s)
{
	static const char *const names[] = { "Unknown Sync", "Event Sync", "Stream Wait Event",
		                             "Stream Sync", "Context Sync" };
	const char *label = s->type < 5 ? names[s->type] : names[0];
	uint32_t name, tr;
	size_t idx;
	int rc;

	if ((rc = gp__cap_intern(r, label, strlen(label), &name)) ||
	    (rc = gp__cap_track(r, r->pid, 0, false, -1, &tr)))
		return rc;
	return gp__cap_add(r, GP_K_SYNC, name, tr, s->start, s->end, s->correlation, s->stream,
	                   &idx);
}

static int on_device(struct rd *r, const struct gp_cap_device *d)
{
	struct gp_value *o;
	uint64_t v;
	const char *name = "";

	if (!r->devices && !(r->devices = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	if (d->name && gp__u64map_get(&r->strs, d->name, &v) == 1)
		name = gp__strtab_get(&r->t->strs, (uint32_t)v);
	if (!(o = gp_value_object()) || gp_obj_set_int(o, "id", d->id) ||
	    gp_obj_set_str(o, "name", name) ||
	    gp_obj_set_int(o, "totalGlobalMem",
	                   d->global_memory_bytes > INT64_MAX ? -1
	                                                      : (int64_t)d->global_memory_bytes) ||
	    gp_obj_set_int(o, "computeMajor", d->cc_major) ||
	    gp_obj_set_int(o, "computeMinor", d->cc_minor) ||
	    gp_obj_set_int(o, "numSms", d->sm_count) ||
	    gp_obj_set_int(o, "maxThreadsPerMultiprocessor", d->max_threads_per_sm) ||
	    gp_obj_set_int(o, "regsPerMultiprocessor", d->max_regs_per_sm) ||
	    gp_obj_set_int(o, "sharedMemPerMultiprocessor", d->max_smem_per_sm) ||
	    gp_arr_push(r->devices, o)) {
		gp_value_free(o);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	return 0;
}

/* ---- capture windows, CUDA events ---- */

static const char *window_reason(uint32_t reason)
{
	static const char *const n[] = { "unknown",         "start",    "duration", "nvtx",
		                         "cudaProfilerApi", "schedule", "exit" };

	return reason < sizeof(n) / sizeof(n[0]) ? n[reason] : "unknown";
}

/* A window closes: the NVTX ranges still open lose their end, and are counted as cut. */
static int on_window(struct rd *r, const struct gp_cap_window *w)
{
	int rc = 0;

	r->win_seen = true;
	if (!r->windows && !(r->windows = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	if (w->on && !r->win_open) {
		struct gp_value *o = gp_value_object();

		if ((rc = gp_arr_push(r->windows, o)))
			return rc;
		r->win_last = o;
		if ((rc = gp_obj_set_int(o, "start_ns", w->ts)) ||
		    (rc = gp_obj_set(o, "end_ns", gp_value_null())) ||
		    (rc = gp_obj_set_str(o, "reason", window_reason(w->reason))))
			return rc;
		r->win_open = true;
	} else if (!w->on && r->win_open) {
		if ((rc = gp_obj_set_int(r->win_last, "end_ns", w->ts)) ||
		    (rc = gp_obj_set_str(r->win_last, "end_reason", window_reason(w->reason))))
			return rc;
		r->win_open = false;
		gp__cap_cut_ranges(r);
	}
	return 0;
}

static int on_cuda_event(struct rd *r, const struct gp_cap_cuda_event *e)
{
	if (gp__grow((void **)&r->cev, &r->cev_cap, r->ncev + 1, sizeof(*r->cev)) < 0)
		return gp__error(GP_ENOMEM, "out of memory");
	r->cev[r->ncev++] = *e;
	return 0;
}

/* Each CUDA event as an instant on its stream, at the end of the cudaEventRecord that made it. */
static int place_cuda_events(struct rd *r)
{
	struct gp_u64map api;
	uint32_t name;
	int rc = 0;

	if (!r->ncev)
		return 0;
	memset(&api, 0, sizeof(api));
	for (size_t i = 0; i < r->t->ev.n; i++)
		if (r->t->ev.kind[i] == GP_K_RUNTIME && r->t->ev.corr[i] >= 0 &&
		    (rc = gp__u64map_put(&api, (uint64_t)r->t->ev.corr[i], i)))
			goto out;
	if ((rc = gp__cap_intern(r, "CUDA event", 10, &name)))
		goto out;
	for (size_t i = 0; i < r->ncev; i++) {
		const struct gp_cap_cuda_event *e = &r->cev[i];
		uint64_t a;
		uint32_t tr;
		size_t idx;
		int64_t ts;

		if (gp__u64map_get(&api, e->correlation, &a) != 1 || a >= r->t->ev.n) {
			r->cev_unplaced++;
			continue;
		}
		ts = r->t->ev.ts[a] + r->t->ev.dur[a];
		if ((rc = gp__cap_track(r, e->device, e->stream, true, (int32_t)e->device, &tr)) ||
		    (rc = gp__cap_add(r, GP_K_OTHER, name, tr, ts, ts, e->correlation, -1, &idx)))
			goto out;
	}
out:
	gp__u64map_release(&api);
	return rc;
}

/* ---- records ---- */

/* Copies a payload of @p size into @p dst of @p want bytes: longer is cut, shorter zero-extended.
 */
static bool fixed(void *dst, size_t want, size_t min, const unsigned char *p, size_t size)
{
	if (size < min)
		return false;
	memset(dst, 0, want);
	memcpy(dst, p, size < want ? size : want);
	return true;
}

static int on_meta(struct rd *r, const unsigned char *p, size_t size)
{
	struct gp_value *v = NULL;
	int64_t x;
	int rc;

	if (gp_value_parse((const char *)p, size, &v, NULL) != 0 ||
	    gp_value_type(v) != GP_VALUE_OBJECT) {
		gp_value_free(v);
		gp_clear_error();
		return gp__cap_warn(
		    r, 0, "the META record is not a JSON object: the process is unknown", 60);
	}
	if (gp_value_get_int(gp_obj_get(v, "rank"), &x) && x >= 0)
		r->t->rank = x;
	if (gp_value_get_int(gp_obj_get(v, "world_size"), &x) && x > 0)
		r->t->world_size = x;
	if (gp_value_get_int(gp_obj_get(v, "pid"), &x) && x > 0 && x <= INT32_MAX)
		r->pid = (int32_t)x;
	if (gp_value_get_int(gp_obj_get(gp_obj_get(v, "clock"), "mono_ns"), &x) && x > 0)
		r->start_ns = x;
	if ((rc = gp_obj_set(r->t->meta, "gpuprof_capture", v)))
		gp_value_free(v);
	return rc;
}

/* END: the capture is whole; its reason ("exit", "signal N") and time */
static int on_end(struct rd *r, const unsigned char *p, size_t size)
{
	struct gp_value *v = NULL;
	const char *reason;
	int64_t x;

	r->ended = true;
	snprintf(r->end_reason, sizeof(r->end_reason), "unknown");
	if (gp_value_parse((const char *)p, size, &v, NULL) != 0) {
		gp_clear_error();
		return gp__cap_warn(r, 0, "the END record is not a JSON object", 35);
	}
	reason = gp_value_get_str(gp_obj_get(v, "reason"));
	if (reason && *reason && gp__utf8_valid(reason, strlen(reason)))
		snprintf(r->end_reason, sizeof(r->end_reason), "%s", reason);
	if (gp_value_get_int(gp_obj_get(v, "mono_ns"), &x) && x >= 0)
		r->end_ns = x;
	gp_value_free(v);
	return 0;
}

static int record(struct rd *r, uint32_t type, const unsigned char *p, size_t size)
{
	union {
		struct gp_cap_kernel k;
		struct gp_cap_memcpy mc;
		struct gp_cap_memset ms;
		struct gp_cap_api a;
		struct gp_cap_sync s;
		struct gp_cap_device d;
		struct gp_cap_nvtx n;
		struct gp_cap_dropped dr;
		struct gp_cap_string str;
		struct gp_cap_window w;
		struct gp_cap_cuda_event ce;
		struct gp_cap_site site;
		struct gp_cap_counter ctr;
		struct gp_cap_warn wr;
		struct gp_cap_flush fl;
		struct gp_cap_mem mem;
	} u;

	switch (type) {
	case GP_CAP_META:
		return on_meta(r, p, size);
	case GP_CAP_END:
		return on_end(r, p, size);
	case GP_CAP_FLUSH:
		if (fixed(&u.fl, sizeof(u.fl), GP_CAP_MIN_FLUSH, p, size)) {
			r->flushes++;
			if (u.fl.ts > r->last_flush_ns)
				r->last_flush_ns = u.fl.ts;
			return 0;
		}
		break;
	case GP_CAP_STRING: {
		uint32_t id;
		int rc;

		if (size < sizeof(u.str))
			break;
		memcpy(&u.str, p, sizeof(u.str));
		if ((rc = gp__cap_intern(r, (const char *)p + sizeof(u.str), size - sizeof(u.str),
		                         &id)))
			return rc;
		return gp__u64map_put(&r->strs, u.str.id, id);
	}
	case GP_CAP_KERNEL:
		if (fixed(&u.k, sizeof(u.k), GP_CAP_MIN_KERNEL, p, size))
			return on_kernel(r, &u.k);
		break;
	case GP_CAP_MEMCPY:
		if (fixed(&u.mc, sizeof(u.mc), GP_CAP_MIN_MEMCPY, p, size))
			return on_memcpy(r, &u.mc);
		break;
	case GP_CAP_MEMSET:
		if (fixed(&u.ms, sizeof(u.ms), GP_CAP_MIN_MEMSET, p, size))
			return on_memset(r, &u.ms);
		break;
	case GP_CAP_API:
		if (fixed(&u.a, sizeof(u.a), GP_CAP_MIN_API, p, size))
			return on_api(r, &u.a);
		break;
	case GP_CAP_SYNC:
		if (fixed(&u.s, sizeof(u.s), GP_CAP_MIN_SYNC, p, size))
			return on_sync(r, &u.s);
		break;
	case GP_CAP_DEVICE:
		if (fixed(&u.d, sizeof(u.d), GP_CAP_MIN_DEVICE, p, size))
			return on_device(r, &u.d);
		break;
	case GP_CAP_NVTX:
		if (size >= sizeof(u.n)) {
			memcpy(&u.n, p, sizeof(u.n));
			return gp__cap_on_nvtx(r, &u.n, (const char *)p + sizeof(u.n),
			                       size - sizeof(u.n));
		}
		break;
	case GP_CAP_DROPPED:
		if (fixed(&u.dr, sizeof(u.dr), GP_CAP_MIN_DROPPED, p, size))
			r->dropped_records += u.dr.cupti_records + u.dr.nvtx_records;
		return 0;
	case GP_CAP_WARN:
		if (size < sizeof(struct gp_cap_warn))
			break;
		memcpy(&u.wr, p, sizeof(u.wr));
		return gp__cap_warn(r, u.wr.code, (const char *)p + sizeof(u.wr),
		                    size - sizeof(u.wr));
	case GP_CAP_WINDOW:
		if (fixed(&u.w, sizeof(u.w), GP_CAP_MIN_WINDOW, p, size))
			return on_window(r, &u.w);
		break;
	case GP_CAP_CUDA_EVENT:
		if (fixed(&u.ce, sizeof(u.ce), GP_CAP_MIN_CUDA_EVENT, p, size))
			return on_cuda_event(r, &u.ce);
		break;
	case GP_CAP_SITE:
		if (fixed(&u.site, sizeof(u.site), GP_CAP_MIN_SITE, p, size))
			return gp__cap_on_site(r, &u.site);
		break;
	case GP_CAP_COUNTER:
		if (fixed(&u.ctr, sizeof(u.ctr), GP_CAP_MIN_COUNTER, p, size))
			return gp__cap_on_counter(r, &u.ctr, (const char *)p + sizeof(u.ctr),
			                          size > sizeof(u.ctr) ? size - sizeof(u.ctr) : 0);
		break;
	case GP_CAP_MEM:
		if (fixed(&u.mem, sizeof(u.mem), GP_CAP_MIN_MEM, p, size))
			return gp__cap_on_mem(r, &u.mem);
		break;
	default:
		return 0; /* a newer writer's record: skipped */
	}
	{
		char t[96];
		int k = snprintf(t, sizeof(t),
		                 "a record of type %u too short for its type: skipped", type);

		return gp__cap_warn(r, 0, t, (size_t)k < sizeof(t) ? (size_t)k : sizeof(t) - 1);
	}
}

/* Counts (ph 'X', category) like the Kineto reader, so the overview lists them. */
static int count_cats(struct rd *r)
{
	for (size_t i = 0; i < r->t->ev.n; i++) {
		const char *c = gp__kind_name((enum gp_kind)r->t->ev.kind[i]);
		uint32_t id;
		int rc;

		if ((rc = gp__cap_intern(r, c, strlen(c), &id)) ||
		    (rc = gp__trace_count_cat(r->t, 'X', id)))
			return rc;
	}
	return 0;
}

struct mark_row {
	const char *domain, *name;
	uint64_t count;
};

static int cmp_mark(const void *x, const void *y)
{
	const struct mark_row *a = x, *b = y;
	int c = strcmp(a->domain, b->domain);

	return c ? c : strcmp(a->name, b->name);
}

/* [{domain, name, count}] of the marks, sorted by (domain, name) */
static int marks_list(struct rd *r, struct gp_value **out)
{
	struct gp_u64map *m = &r->mark_counts;
	struct gp_value *a = gp_value_array();
	struct mark_row *rows = gp__calloc(m->n ? m->n : 1, sizeof(*rows));
	size_t n = 0, i;
	int rc = 0;

	*out = NULL;
	if (!a || !rows) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < m->nslot; i++) {
		uint32_t id = (uint32_t)m->keys[i];
		uint64_t v;

		if (!m->used[i])
			continue;
		rows[n].domain = "";
		rows[n].name = gp__strtab_get(&r->t->strs, id);
		rows[n].count = m->vals[i];
		if (gp__u64map_get(&r->t->nvtx_names, id, &v) == 1) {
			rows[n].domain = gp__strtab_get(&r->t->strs, (uint32_t)(v >> 32));
			rows[n].name = gp__strtab_get(&r->t->strs, (uint32_t)v);
		}
		n++;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_mark);
	for (i = 0; i < n; i++) {
		struct gp_value *o = gp_value_object();

		if (!o || gp_arr_push(a, o) || gp_obj_set_str(o, "domain", rows[i].domain) ||
		    gp_obj_set_str(o, "name", rows[i].name) ||
		    gp_obj_set_int(o, "count", (int64_t)rows[i].count)) {
			rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
	}
	*out = a;
	a = NULL;
out:
	gp__free(rows);
	gp_value_free(a);
	return rc;
}

/*
 * A capture without END: the process did not get to finish it (SIGKILL, a
 * crash, an exec, or the tracer stopped). Said as a warning, with when the
 * tracer last wrote (its last FLUSH record): what came after is lost.
 */
static int warn_unended(struct rd *r)
{
	char text[512], when[96];
	int k;

	if (r->ended)
		return 0;
	if (r->flushes && r->start_ns && r->last_flush_ns >= r->start_ns)
		snprintf(when, sizeof(when), ", %.3f s after the capture began,",
		         (double)(r->last_flush_ns - r->start_ns) / 1e9);
	else
		when[0] = 0;
	if (r->flushes)
		k = snprintf(
		    text, sizeof(text),
		    "the capture has no END record: the process was killed (SIGKILL), "
		    "crashed or exec'd before the tracer finished it; what it recorded after "
		    "the tracer's last write%s is lost, with the GPU activity CUPTI had not "
		    "handed over yet",
		    when);
	else
		k = snprintf(
		    text, sizeof(text),
		    "the capture has no END record and no FLUSH record: the process was "
		    "killed, crashed or exec'd before the tracer finished it (or an older "
		    "tracer wrote it); what came after the last record in the file is lost");
	return gp__cap_warn(r, 0, text, (size_t)k < sizeof(text) ? (size_t)k : sizeof(text) - 1);
}

static int summary(struct rd *r)
{
	struct gp_value *s, *marks = NULL, *w, *end;
	int rc;

	if ((rc = warn_unended(r)))
		return rc;
	s = gp_value_object();
	w = r->windows;
	r->windows = NULL; /* s owns it from here (gp_obj_set takes it even on failure) */
	if (!s || gp_obj_set(s, "windows", w ? w : gp_value_null())) {
		gp_value_free(s);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	w = r->wmsgs;
	r->wmsgs = NULL; /* likewise */
	if (gp_obj_set(s, "warning_messages", w ? w : gp_value_array())) {
		gp_value_free(s);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if ((rc = marks_list(r, &marks))) {
		gp_value_free(s);
		return rc;
	}
	end = r->ended ? gp_value_object() : gp_value_null();
	if (end && r->ended &&
	    (gp_obj_set_str(end, "reason", r->end_reason) ||
	     (r->end_ns ? gp_obj_set_int(end, "mono_ns", r->end_ns)
	                : gp_obj_set_null(end, "mono_ns")))) {
		gp_value_free(end);
		end = NULL;
	}
	if (gp_obj_set(s, "marks", marks) || !end || gp_obj_set(s, "end", end) ||
	    (r->flushes ? gp_obj_set_int(s, "last_flush_ns", r->last_flush_ns)
	                : gp_obj_set_null(s, "last_flush_ns")) ||
	    gp_obj_set_int(s, "nvtx_out_of_order", (int64_t)r->out_of_order) ||
	    gp_obj_set_int(s, "nvtx_unmatched", (int64_t)r->unmatched) ||
	    gp_obj_set_int(s, "nvtx_marks", (int64_t)r->marks) ||
	    gp_obj_set_int(s, "warnings", (int64_t)r->warnings) ||
	    gp_obj_set_int(s, "dropped_records", (int64_t)r->dropped_records) ||
	    gp_obj_set_int(s, "nvtx_cut_by_window", (int64_t)r->cut) ||
	    gp_obj_set_int(s, "cuda_events", (int64_t)r->ncev) ||
	    gp_obj_set_int(s, "cuda_events_unplaced", (int64_t)r->cev_unplaced) ||
	    gp_obj_set_int(s, "cuda_memory_events", (int64_t)r->mem_events) ||
	    gp_obj_set_int(s, "cuda_memory_unplaced", (int64_t)r->mem_unplaced) ||
	    gp_obj_set_int(s, "cuda_memory_static", (int64_t)r->mem_static) ||
	    gp_obj_set_int(s, "cuda_memory_skipped", (int64_t)r->mem_skipped)) {
		gp_value_free(s);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if (gp_obj_set(r->t->meta, "gpuprof_capture_read", s))
		return gp__error(GP_ENOMEM, "out of memory");
	if (r->devices) {
		struct gp_value *d = r->devices;

		r->devices = NULL; /* the metadata owns it, even on failure */
		if (gp_obj_set(r->t->meta, "deviceProperties", d))
			return gp__error(GP_ENOMEM, "out of memory");
	}
	return 0;
}

bool gp__capture_sniff(const void *p, size_t n)
{
	return n >= 8 && memcmp(p, GP_CAP_MAGIC, 8) == 0;
}

int gp__capture_meta_peek(const void *data, size_t n, struct gp_value **out)
{
	const unsigned char *p = data;
	struct gp_cap_file_header h;
	struct gp_cap_rec_header rh;
	struct gp_value *v = NULL;

	*out = NULL;
	if (!gp__capture_sniff(p, n) || n < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	if (h.header_size < sizeof(h) || h.header_size > n || n - h.header_size < sizeof(rh))
		return 0;
	memcpy(&rh, p + h.header_size, sizeof(rh));
	if (rh.type != GP_CAP_META || rh.size > n - h.header_size - sizeof(rh))
		return 0;
	if (gp_value_parse((const char *)p + h.header_size + sizeof(rh), rh.size, &v, NULL)) {
		gp_clear_error();
		return 0;
	}
	if (gp_value_type(v) != GP_VALUE_OBJECT) {
		gp_value_free(v);
		return 0;
	}
	*out = v;
	return 0;
}

int gp__capture_open_mem(const void *data, size_t n, const char *name,
                         const struct gp_open_opts *opts, struct gp_trace **out)
{
	const unsigned char *p = data;
	struct gp_cap_file_header h;
	struct rd r;
	size_t off;
	bool salvage = GP__OPTS_GET(opts, salvage, false);
	int rc;

	*out = NULL;
	memset(&r, 0, sizeof(r));
	r.name = name;
	if (n < sizeof(h) || !gp__capture_sniff(p, n))
		return gp__error(GP_EFORMAT, "%s: at byte 0: not a gpuprof capture (%s)", name,
		                 n < sizeof(h) ? "shorter than its 16-byte header" : "no magic");
	memcpy(&h, p, sizeof(h));
	if (h.version != GP_CAP_VERSION)
		return gp__error(GP_EFORMAT,
		                 "%s: at byte 8: capture format version %u, this gpuprof reads %u",
		                 name, h.version, GP_CAP_VERSION);
	if (h.header_size < sizeof(h) || h.header_size > n || h.header_size % 8)
		return gp__error(GP_EFORMAT, "%s: at byte 8: bad header size %u", name,
		                 h.header_size);
	if ((rc = gp__trace_new(name, &r.t)))
		return rc;
	r.t->meta = gp_value_object();
	r.t->has_counters = true;
	if (!r.t->meta || gp__u64map_init(&r.strs, 1024) || gp__u64map_init(&r.domains, 16) ||
	    gp__u64map_init(&r.starts, 64)) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	for (off = h.header_size; off < n;) {
		struct gp_cap_rec_header rh;
		size_t padded;

		if (n - off < sizeof(rh))
			break; /* cut in a record header */
		memcpy(&rh, p + off, sizeof(rh));
		if (rh.size > GP_CAP_MAX_PAYLOAD || rh.type == 0) {
			rc = gp__error(GP_EFORMAT,
			               "%s: at byte %zu: damaged record (type %u, size %u)", name,
			               off, rh.type, rh.size);
			if (!salvage)
				goto out;
			gp_clear_error();
			rc = 0;
			break;
		}
		padded = ((size_t)rh.size + 7) & ~(size_t)7;
		if (n - off - sizeof(rh) < padded)
			break; /* cut in a payload */
		r.off = off;
		if ((rc = record(&r, rh.type, p + off + sizeof(rh), rh.size))) {
			gp__error_prefix("%s: at byte %zu (a record of type %u)", name, off,
			                 rh.type);
			goto out;
		}
		r.t->events_read++;
		off += sizeof(rh) + padded;
	}
	if (off < n) {
		r.t->salvaged = true;
		r.t->damage_offset = off;
		r.t->lost_bytes = n - off;
		if (!salvage) {
			rc = gp__error(
			    GP_ETRUNC,
			    "%s: at byte %zu: the capture ends inside a record (%zu bytes "
			    "lost; --salvage reads what precedes)",
			    name, off, n - off);
			goto out;
		}
	}
	r.t->bytes_read = n;
	r.off = off;
	gp__cap_sort_modules(&r);
	if ((rc = place_cuda_events(&r)) || (rc = gp__cap_place_mem(&r)) || (rc = count_cats(&r)) ||
	    (rc = summary(&r))) {
		gp__error_prefix("%s", name);
		goto out;
	}
	*out = r.t;
	r.t = NULL;
out:
	for (size_t i = 0; i < r.nstacks; i++)
		gp__free(r.stacks[i].v);
	gp__free(r.stacks);
	gp__free(r.busy);
	gp__u64map_release(&r.stack_ix);
	gp__u64map_release(&r.last_ts);
	gp__u64map_release(&r.order_warned);
	gp__free(r.sv);
	gp__free(r.sv_tid);
	gp__u64map_release(&r.strs);
	gp__u64map_release(&r.domains);
	gp__u64map_release(&r.starts);
	gp__u64map_release(&r.sites);
	gp__u64map_release(&r.mark_counts);
	gp_value_free(r.devices);
	gp_value_free(r.windows);
	gp_value_free(r.wmsgs);
	gp__free(r.cev);
	gp__free(r.mem);
	gp_trace_free(r.t);
	return rc;
}
