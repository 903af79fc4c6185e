/* SPDX-License-Identifier: MIT */
/*
 * testutil.c - see testutil.h.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t tu_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

struct gp_trace *tu_trace_new(void)
{
	struct gp_trace *t = NULL;

	assert_int_equal(gp__trace_new("synthetic", &t), 0);
	return t;
}

size_t tu_add(struct gp_trace *t, enum gp_kind kind, const char *name, int64_t pid, int64_t tid,
              int64_t ts, int64_t dur)
{
	uint32_t nid, track;
	size_t idx;

	assert_int_equal(gp__strtab_intern(&t->strs, name, strlen(name), &nid), 0);
	assert_int_equal(gp__trace_track(t, pid, 0, tid, 0, &track), 0);
	assert_int_equal(gp__trace_add_event(t, kind, nid, track, ts, dur, &idx), 0);
	if (kind == GP_K_USER_ANNOTATION && strncmp(name, "ProfilerStep#", 13) == 0)
		t->ev.flags[idx] |= GP_EVF_STEP;
	return idx;
}

static size_t gpu_event(struct gp_trace *t, enum gp_kind kind, const char *name, int device,
                        int64_t stream, int64_t ts, int64_t dur, int64_t corr)
{
	struct gp_gpu_info gi;
	size_t idx = tu_add(t, kind, name, device, stream, ts, dur);
	struct gp_track *tr = &t->tracks[t->ev.track[idx]];

	memset(&gi, 0, sizeof(gi));
	gi.device = device;
	gi.grid[0] = gi.grid[1] = gi.grid[2] = -1;
	gi.block[0] = gi.block[1] = gi.block[2] = -1;
	gi.regs = -1;
	gi.shmem = -1;
	gi.bytes = -1;
	gi.blocks_per_sm = NAN;
	gi.warps_per_sm = NAN;
	gi.occupancy_pct = NAN;
	gi.bw_gbps = NAN;
	assert_int_equal(gp__trace_add_gpu_info(t, idx, &gi), 0);
	t->ev.corr[idx] = corr;
	t->ev.stream[idx] = stream;
	t->ev.flags[idx] |= GP_EVF_HAS_STREAM;
	tr->gpu = true;
	tr->device = device;
	tr->stream = stream;
	return idx;
}

size_t tu_kernel(struct gp_trace *t, const char *name, int device, int64_t stream, int64_t ts,
                 int64_t dur, int64_t corr)
{
	return gpu_event(t, GP_K_KERNEL, name, device, stream, ts, dur, corr);
}

size_t tu_runtime(struct gp_trace *t, const char *name, int64_t pid, int64_t tid, int64_t ts,
                  int64_t dur, int64_t corr)
{
	size_t idx = tu_add(t, GP_K_RUNTIME, name, pid, tid, ts, dur);

	t->ev.corr[idx] = corr;
	return idx;
}

struct gp_value *tu_analyze(struct gp_trace *t, enum gp_compat compat)
{
	struct gp_analyze_opts o;
	struct gp_value *r = NULL;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.only_rank = -1;
	o.compat = compat;
	assert_int_equal(gp_analyze_trace(t, &o, 0, &r), 0);
	assert_non_null(r);
	return r;
}

struct gp_value *tu_section(struct gp_trace *t, bool hta,
                            int (*fn)(const struct gp__actx *c, struct gp_value *r))
{
	struct gp_analyze_opts o;
	struct gp__actx c;
	struct gp_value *r = gp_value_object();

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.compat = hta ? GP_COMPAT_HTA : GP_COMPAT_NONE;
	assert_non_null(r);
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	assert_int_equal(fn(&c, r), 0);
	gp__actx_release(&c);
	return r;
}

long tu_section_torture(struct gp_trace *t, bool hta,
                        int (*fn)(const struct gp__actx *c, struct gp_value *r))
{
	struct gp_analyze_opts o;
	struct gp__actx c;
	long k;

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.compat = hta ? GP_COMPAT_HTA : GP_COMPAT_NONE;
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	for (k = 1;; k++) {
		struct gp_value *r = gp_value_object();
		int rc;

		assert_non_null(r);
		gp__test_fail_alloc_after(k);
		rc = fn(&c, r);
		gp__test_fail_alloc_after(0);
		gp_value_free(r);
		if (!rc)
			break;
		if (rc != GP_ENOMEM)
			fail_msg("allocation %ld failing: %d, want GP_ENOMEM", k, rc);
	}
	gp__actx_release(&c);
	return k;
}

int64_t tu_geti(const struct gp_value *r, const char *path)
{
	int64_t v = -12345;

	if (!gp_value_get_int(gp_value_path(r, path), &v))
		fail_msg("no integer at '%s'", path);
	return v;
}

double tu_getd(const struct gp_value *r, const char *path)
{
	double v = NAN;

	if (!gp_value_get_double(gp_value_path(r, path), &v))
		fail_msg("no number at '%s'", path);
	return v;
}

const char *tu_gets(const struct gp_value *r, const char *path)
{
	const char *s = gp_value_get_str(gp_value_path(r, path));

	if (!s)
		fail_msg("no string at '%s'", path);
	return s;
}

int tu_tmpdir_make(char *tmpl)
{
	return mkdtemp(tmpl) ? 0 : -1;
}

int tu_tmpdir_remove(const char *dir)
{
	char cmd[4200];

	if (strchr(dir, '\'') || snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= (int)sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

void tu_write_file(const char *dir, const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	assert_true(snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}
