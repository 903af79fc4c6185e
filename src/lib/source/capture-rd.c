/* SPDX-License-Identifier: MIT */
/*
 * capture-rd.c - the capture reader's primitives (capture-int.h): capture
 * strings to model strings (UTF-8 repaired), warnings counted and listed
 * once, tracks, and events within the model's limits.
 */
#include <string.h>

#include "capture-int.h"
#include "util/error.h"
#include "util/json-scan.h"

int gp__cap_str_of(struct rd *r, uint32_t cap_id, uint32_t *out)
{
	uint64_t v;

	*out = 0;
	if (cap_id && gp__u64map_get(&r->strs, cap_id, &v) == 1)
		*out = (uint32_t)v;
	return 0;
}

/*
 * A string of the capture into the model. NVTX takes any bytes, so a name
 * that is not UTF-8 is interned with U+FFFD for each bad byte: every output
 * (text, JSON, HTML, Chrome) then shows and groups it the same way.
 */
int gp__cap_intern(struct rd *r, const char *s, size_t n, uint32_t *out)
{
	char stack[512], *fixed;
	size_t m;
	int rc;

	if (gp__utf8_valid(s, n))
		return gp__strtab_intern(&r->t->strs, s, n, out);
	if (n > SIZE_MAX / 3)
		return gp__error(GP_ELIMIT, "a string of %zu bytes", n);
	fixed = 3 * n <= sizeof(stack) ? stack : gp__malloc(3 * n);
	if (!fixed)
		return gp__error(GP_ENOMEM, "out of memory");
	m = gp__utf8_repair(s, n, fixed);
	rc = gp__strtab_intern(&r->t->strs, fixed, m, out);
	if (fixed != stack)
		gp__free(fixed);
	return rc;
}

#define MAX_WARN_TEXTS 32

/*
 * A warning: counted, and its text listed once with how often it came (the
 * tracer's WARN records: a CUPTI call that failed, a kind refused, no CUPTI;
 * the reader's own: a record it had to skip).
 */
int gp__cap_warn(struct rd *r, uint32_t code, const char *text, size_t n)
{
	struct gp_value *o;
	char fixed[3 * 1024];
	int64_t count;
	size_t i, m;
	int rc;

	r->warnings++;
	while (n && text[n - 1] == '\0') /* the tracer pads its text */
		n--;
	if (n > sizeof(fixed) / 3)
		n = sizeof(fixed) / 3; /* the first KiB says what it is */
	m = gp__utf8_repair(text, n, fixed);
	if (!r->wmsgs && !(r->wmsgs = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	for (i = 0; i < gp_value_len(r->wmsgs); i++) {
		const struct gp_value *w = gp_arr_get(r->wmsgs, i);
		const char *t = gp_value_get_str(gp_obj_get(w, "text"));

		if (t && strlen(t) == m && memcmp(t, fixed, m) == 0 &&
		    gp_value_get_int(gp_obj_get(w, "count"), &count))
			return gp_obj_set_int((struct gp_value *)w, "count", count + 1);
	}
	if (i >= MAX_WARN_TEXTS)
		return 0;
	o = gp_value_object();
	if ((rc = gp_arr_push(r->wmsgs, o)))
		return rc;
	if (gp_obj_set_int(o, "code", code) || gp_obj_set(o, "text", gp_value_strn(fixed, m)) ||
	    gp_obj_set_int(o, "count", 1))
		return gp__error(GP_ENOMEM, "out of memory");
	return 0;
}

int gp__cap_track(struct rd *r, int64_t pid, int64_t tid, bool gpu, int32_t device, uint32_t *out)
{
	int rc = gp__trace_track(r->t, pid, 0, tid, 0, out);

	if (rc == 0 && gpu) {
		struct gp_track *tr = &r->t->tracks[*out];

		tr->gpu = true;
		tr->device = device;
		tr->stream = tid;
	}
	return rc;
}

int gp__cap_add(struct rd *r, enum gp_kind kind, uint32_t name, uint32_t tr, int64_t start,
                int64_t end, int64_t corr, int64_t stream, size_t *idx)
{
	uint64_t d;
	int rc;

	if (end < start)
		end = start; /* a record CUPTI could not finish: zero length */
	/* the true difference, in unsigned arithmetic; past the model's limit it is refused */
	d = (uint64_t)end - (uint64_t)start;
	if ((rc = gp__trace_add_event(r->t, kind, name, tr, start,
	                              d > (uint64_t)GP_TIME_LIMIT ? GP_TIME_LIMIT + 1 : (int64_t)d,
	                              idx)))
		return rc;
	r->t->ev.corr[*idx] = corr;
	if (stream >= 0) {
		r->t->ev.stream[*idx] = stream;
		r->t->ev.flags[*idx] |= GP_EVF_HAS_STREAM;
	}
	return 0;
}
