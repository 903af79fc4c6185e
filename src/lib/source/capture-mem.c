/* SPDX-License-Identifier: MIT */
/*
 * capture-mem.c - the CUDA allocations and frees of a capture (MEM records,
 * CUPTI's MEMORY2 kind) into the model's memory events (struct
 * gp_mem_event), the same events a Kineto trace's [memory] instants become,
 * so that the memory analyses run on a capture unchanged.
 *
 * Each record is kept as it is read; once every record is read, it is placed
 * on the thread of the runtime or driver call that made it, found by its
 * correlation id (CUPTI hands API and memory records over in buffers of its
 * own order, so the call may come later in the file). One without such a
 * call (its API record dropped, or a call gpuprof does not record) goes on
 * the process's main thread, and a warning says how many did.
 *
 * What becomes which row (docs/capture-format.md): device memory, arrays,
 * managed memory and kinds CUPTI leaves unknown go to the GPU's row
 * (device_type 1, device = CUPTI's device id); pinned and pageable host
 * memory (cudaMallocHost, cudaHostAlloc) to the CPU row (device_type 0,
 * device -1). The static kinds (a module's __device__ and __managed__
 * variables, allocated by the driver when it loads a module) are not the
 * program's allocations: left out, and counted. CUPTI gives no running total:
 * total_allocated and total_reserved are -1, and the curve is the running
 * sum of the bytes.
 */
#include <stdio.h>
#include <string.h>

#include "capture-int.h"
#include "util/error.h"

enum {
	OP_ALLOC = 1, /* CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION */
	OP_FREE = 2,  /* CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE */
	KIND_PAGEABLE = 1,
	KIND_PINNED = 2,
	KIND_DEVICE_STATIC = 6,
	KIND_MANAGED_STATIC = 7,
};

int gp__cap_on_mem(struct rd *r, const struct gp_cap_mem *m)
{
	int rc;

	if ((m->op != OP_ALLOC && m->op != OP_FREE) || m->bytes > (uint64_t)INT64_MAX / 4) {
		r->mem_skipped++;
		return 0;
	}
	if (m->memory_kind == KIND_DEVICE_STATIC || m->memory_kind == KIND_MANAGED_STATIC) {
		r->mem_static++;
		return 0;
	}
	/* a time the model refuses is an error here, where the byte offset is known */
	if ((rc = gp__trace_check_time(m->ts, 0)))
		return rc;
	if (gp__grow((void **)&r->mem, &r->mem_cap, r->nmem + 1, sizeof(*r->mem)) < 0)
		return gp__error(GP_ENOMEM, "out of memory");
	r->mem[r->nmem++] = *m;
	return 0;
}

/* correlation id -> the index of the runtime or driver call that has it */
static int index_calls(const struct gp_trace *t, struct gp_u64map *calls)
{
	int rc;

	if ((rc = gp__u64map_init(calls, 1024)))
		return rc;
	for (size_t i = 0; i < t->ev.n; i++)
		if ((t->ev.kind[i] == GP_K_RUNTIME || t->ev.kind[i] == GP_K_DRIVER) &&
		    t->ev.corr[i] > 0 &&
		    (rc = gp__u64map_put_new(calls, (uint64_t)t->ev.corr[i], i, NULL)))
			return rc;
	return 0;
}

static int warn_unplaced(struct rd *r)
{
	char text[320];
	int k;

	if (!r->mem_unplaced)
		return 0;
	k = snprintf(text, sizeof(text),
	             "%llu CUDA allocations and frees have no runtime or driver call with their "
	             "correlation id in the capture: they are put on the process's main thread",
	             (unsigned long long)r->mem_unplaced);
	return gp__cap_warn(r, 0, text, (size_t)k < sizeof(text) ? (size_t)k : sizeof(text) - 1);
}

int gp__cap_place_mem(struct rd *r)
{
	struct gp_trace *t = r->t;
	struct gp_u64map calls;
	uint32_t main_tr = UINT32_MAX;
	int rc;

	if (!r->nmem)
		return 0;
	memset(&calls, 0, sizeof(calls));
	if ((rc = index_calls(t, &calls)))
		goto out;
	for (size_t i = 0; i < r->nmem; i++) {
		const struct gp_cap_mem *m = &r->mem[i];
		bool host = m->memory_kind == KIND_PAGEABLE || m->memory_kind == KIND_PINNED;
		struct gp_mem_event e;
		uint64_t call;

		if (m->correlation && gp__u64map_get(&calls, m->correlation, &call) == 1) {
			e.track = t->ev.track[call];
		} else {
			if (main_tr == UINT32_MAX) {
				int64_t pid = r->pid > 0 ? r->pid : (int64_t)m->pid;

				/* the main thread: on Linux its thread id is the process id */
				if ((rc = gp__cap_track(r, pid, pid, false, -1, &main_tr)))
					goto out;
			}
			e.track = main_tr;
			r->mem_unplaced++;
		}
		e.ts = m->ts;
		e.bytes = m->op == OP_FREE ? -(int64_t)m->bytes : (int64_t)m->bytes;
		e.total_allocated = e.total_reserved = -1;
		e.addr = m->addr <= (uint64_t)INT64_MAX ? (int64_t)m->addr : -1;
		e.device = host || m->device > INT32_MAX ? -1 : (int32_t)m->device;
		e.device_type = host ? 0 : 1;
		if ((rc = gp__trace_add_mem(t, &e)))
			goto out;
		r->mem_events++;
	}
	rc = warn_unplaced(r);
out:
	gp__u64map_release(&calls);
	return rc;
}
