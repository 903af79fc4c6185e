/* SPDX-License-Identifier: MIT */
/*
 * warm.c - the decoder's warm-up filter: which CUPTI records a warm-up made
 * (window.c: --schedule's warm-up iterations, CUPTI attached, its records
 * dropped), whatever order CUPTI hands its buffers over in.
 *
 * An API call is judged by its start: the warm-up intervals are known at
 * once (window.c). A GPU op (kernel, copy, memset) and an allocation or a
 * free (MEMORY2) are judged by the call that made them, through its
 * correlation id: a warm-up's last kernels run after it ended. A real CUPTI
 * 13 keeps each thread's API records in a buffer of that thread's
 * (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, on by default) and the
 * GPU records in another, and hands them over in any order; on an H200 the
 * GPU records came first (docs/gpu-validation.md, 2026-11-28), so a GPU op
 * is often decoded before the call that launched it.
 *
 * Segments: the warm-ups cut time into segment 0 (before the first), 1 (the
 * first warm-up), 2 (between the first and the second), ...: 2w+1 is
 * warm-up w, 2k the time between warm-ups k-1 and k. CUPTI hands out
 * correlation ids from one counter at each call's entry, so they grow with
 * time over all threads, and the API records decoded so far give each
 * segment a range [lo, hi] of ids: a GPU op whose id lies in a segment's
 * range was launched in that segment (after call lo began, before call hi
 * did). A GPU op whose id lies in no range yet is held until one does: the
 * record of its own call, when it comes, puts it in one, and usually a
 * later call of its segment on any thread does so before that. Held records
 * are judged again after each drain in which ranges grew
 * (gp__inj_warm_settle).
 *
 * Why here rather than in the capture reader, which sees the whole capture
 * and no order problem: the capture stays as it was (no warm-up record on
 * disk, no format change, old readers right), and what this holds is GPU
 * work whose launching calls are still in CUPTI's per-thread buffers, which
 * a SIGKILL loses all the same: a capture cut there lacks both, where it
 * had kernels without their calls before. Without a warm-up (no --schedule,
 * or before the first warm-up began) nothing is held: an op that started
 * before the first warm-up cannot belong to one.
 *
 * Bounds: at most HOLD_MAX records are held (about 26 MiB); one more is
 * judged without its call, kept (the old behaviour), counted and warned
 * about. At the end (gp__inj_warm_settle(true), after CUPTI's last forced
 * flush) what is left, GPU work whose call CUPTI never reported (a driver
 * call whose records are off), is kept. Segments: 2 * GP_INJ_MAX_WARM + 1
 * ranges of 8 bytes (window.c forgets later warm-ups: their records are
 * kept). Correlation ids are assumed not to start again at a new attach.
 *
 * Writer thread only (the decoder), but for the warm-up intervals that
 * window.c publishes.
 */
#include <string.h>

#include "inject.h"

#define HOLD_MAX (1u << 18)
#define NSEG     (2 * GP_INJ_MAX_WARM + 1)
/* a GPU clock converted to the host's is off by far less; an op this much earlier than the first
 * warm-up was launched before it */
#define SLACK_NS 1000000

enum verdict { V_KEEP, V_DROP, V_UNKNOWN };

struct held {
	uint32_t type, corr, size, pad;
	union {
		struct gp_cap_kernel k;
		struct gp_cap_memcpy c;
		struct gp_cap_memset s;
		struct gp_cap_mem m;
	} u;
};

static uint32_t g_lo[NSEG], g_hi[NSEG]; /* the ids seen in each segment; g_lo 0: none */
static uint16_t g_seen[NSEG];           /* the segments with a range, in increasing order */
static size_t g_nseen;
static bool g_grew;         /* a range grew since the last settle */
static struct held *g_held; /* in the order decoded */
static size_t g_nheld, g_cap;
static uint64_t g_blind, g_blind_warned; /* judged without their call (HOLD_MAX) */

_Static_assert(NSEG <= 65535, "segment numbers fit g_seen");

/* A decoded API call's correlation id @p corr, made in segment @p s. */
static void note(size_t s, uint32_t corr)
{
	size_t i;

	if (g_lo[s]) {
		if (corr < g_lo[s] || corr > g_hi[s])
			g_grew = true;
		if (corr < g_lo[s])
			g_lo[s] = corr;
		if (corr > g_hi[s])
			g_hi[s] = corr;
		return;
	}
	g_lo[s] = g_hi[s] = corr;
	g_grew = true;
	/* a segment's first call: into g_seen, in order (at most NSEG times in all) */
	for (i = g_nseen; i > 0 && g_seen[i - 1] > s; i--)
		g_seen[i] = g_seen[i - 1];
	g_seen[i] = (uint16_t)s;
	g_nseen++;
}

/*
 * The segment of the call @p corr, from the ranges: the last segment whose
 * range begins at or below it (ranges grow with the segments), if its range
 * reaches it.
 */
static enum verdict judge(uint32_t corr)
{
	size_t a = 0, b = g_nseen, s;

	while (a < b) { /* the first seen segment whose lo is above corr */
		size_t m = a + (b - a) / 2;

		if (g_lo[g_seen[m]] <= corr)
			a = m + 1;
		else
			b = m;
	}
	if (a == 0)
		return V_UNKNOWN;
	s = g_seen[a - 1];
	if (corr > g_hi[s])
		return V_UNKNOWN;
	return s % 2 ? V_DROP : V_KEEP;
}

bool gp__inj_warm_api(int64_t start, uint32_t corr)
{
	long s = gp__inj_win_segment(start);

	if (corr && s >= 0 && s < NSEG)
		note((size_t)s, corr);
	return s % 2 == 0;
}

bool gp__inj_warm_host(int64_t ts)
{
	return gp__inj_win_segment(ts) % 2 == 0;
}

/* Keeps @p h's record for later; false when the bound or memory says no. */
static bool hold(uint32_t type, uint32_t corr, const void *rec, size_t size)
{
	struct held *h;

	if (size > sizeof(h->u))
		return false;
	if (g_nheld == g_cap) {
		size_t cap = g_cap ? 2 * g_cap : 4096;
		struct held *t;

		if (g_cap >= HOLD_MAX)
			return false;
		if (cap > HOLD_MAX)
			cap = HOLD_MAX;
		t = gp__inj_alloc(cap * sizeof(*t), false);
		if (!t)
			return false;
		if (g_nheld)
			memcpy(t, g_held, g_nheld * sizeof(*t));
		gp__inj_free(g_held);
		g_held = t;
		g_cap = cap;
	}
	h = &g_held[g_nheld++];
	h->type = type;
	h->corr = corr;
	h->size = (uint32_t)size;
	h->pad = 0;
	memcpy(&h->u, rec, size);
	return true;
}

void gp__inj_warm_gpu(uint32_t type, int64_t start, uint32_t corr, const void *rec, size_t size)
{
	enum verdict v;

	if (!corr) /* no call to go by: its own time */
		v = gp__inj_warm_host(start) ? V_KEEP : V_DROP;
	else if (gp__inj_win_segment(start > INT64_MAX - SLACK_NS ? start : start + SLACK_NS) == 0)
		v = V_KEEP; /* before the first warm-up */
	else
		v = judge(corr);
	if (v == V_UNKNOWN && !hold(type, corr, rec, size)) {
		g_blind++;
		v = V_KEEP;
	}
	if (v == V_KEEP)
		gp__inj_write(type, rec, size, NULL, 0);
}

void gp__inj_warm_settle(bool last)
{
	size_t j = 0;

	if (g_nheld && (g_grew || last)) {
		g_grew = false;
		for (size_t i = 0; i < g_nheld; i++) {
			struct held *h = &g_held[i];
			enum verdict v = judge(h->corr);

			if (v == V_UNKNOWN && !last) {
				if (j != i)
					g_held[j] = *h;
				j++;
			} else if (v != V_DROP) {
				gp__inj_write(h->type, &h->u, h->size, NULL, 0);
			}
		}
		g_nheld = j;
	}
	if (last && !g_nheld) {
		gp__inj_free(g_held);
		g_held = NULL;
		g_cap = 0;
	}
	if (g_blind > g_blind_warned) {
		gp__inj_warn(0,
		             "%llu GPU records came too long before the CUDA calls that launched "
		             "them and were kept without knowing whether a warm-up launched them",
		             (unsigned long long)(g_blind - g_blind_warned));
		g_blind_warned = g_blind;
	}
}
