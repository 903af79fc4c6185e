/* SPDX-License-Identifier: MIT */
/*
 * memsnap.c - a PyTorch memory snapshot into a gpuprof.memsnap/1 document
 * (memsnap.h; docs/memsnap-schema.md, docs/analyses/memory-snapshot.md).
 *
 * It walks the snapshot's documented structure (Snapshot, Segment, Block,
 * Frame, TraceEntry: torch/cuda/memory.py) over the pickle graph, which
 * shares nodes: a frame list is summarised once per node (its top frame,
 * cached), and a collection walked as such (a segment, a blocks list, a
 * device's trace) must be reached once, so the work stays linear in the input
 * whatever the memo references say; schema dicts hold at most 64 keys, so a
 * key lookup is constant. The segments give fragmentation and the state at
 * the snapshot; memsnap-trace.c replays each device's trace.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/memsnap-int.h"
#include "analyze/memsnap.h"
#include "source/source.h"
#include "util/buf.h"
#include "util/error.h"

#define MIB (1024 * 1024)

int gp__ms_bad(const struct gp__ms *m, uint32_t id, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gp__error(GP_EFORMAT, "byte %llu: %s", (unsigned long long)gp__pk_off(m->pk, id),
	                 msg);
}

int gp__ms_once(struct gp__ms *m, uint32_t id, const char *what)
{
	if (id >= m->pk->nnode)
		return 0;
	if (m->seen[id])
		return gp__ms_bad(m, id,
		                  "%s reached twice through memo references (a snapshot "
		                  "holds each once)",
		                  what);
	m->seen[id] = 1;
	return 0;
}

int gp__ms_dict(const struct gp__ms *m, uint32_t id, const char *what)
{
	if (gp__pk_type(m->pk, id) != GP_PK_DICT)
		return gp__ms_bad(m, id, "%s is a %s, not a dict", what,
		                  gp__pk_type_name(gp__pk_type(m->pk, id)));
	if (gp__pk_len(m->pk, id) > 64)
		return gp__ms_bad(m, id, "%s has %zu keys (a snapshot's have fewer than 64)", what,
		                  gp__pk_len(m->pk, id));
	return 0;
}

int gp__ms_int(const struct gp__ms *m, uint32_t d, const char *key, bool need, int64_t *v,
               bool *has)
{
	uint32_t x = gp__pk_get(m->pk, d, key);

	*has = false;
	if (x == GP_PK_NIL || gp__pk_type(m->pk, x) == GP_PK_NONE) {
		if (need)
			return gp__ms_bad(m, d, "no '%s' in this dict", key);
		return 0;
	}
	if (!gp__pk_int(m->pk, x, v))
		return gp__ms_bad(m, x, "'%s' is a %s, not an int", key,
		                  gp__pk_type_name(gp__pk_type(m->pk, x)));
	*has = true;
	return 0;
}

int gp__ms_sum(const struct gp__ms *m, uint32_t id, int64_t *acc, int64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		return gp__ms_bad(m, id, "sizes add up beyond 2^63 bytes");
	return 0;
}

/* ---- the top frame of a frame list ---- */

static bool has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; k <= n && i <= n - k; i++)
		if (memcmp(s + i, needle, k) == 0)
			return true;
	return false;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && memcmp(s, prefix, k) == 0;
}

/*
 * torch's own frame: what _memory_viz.py's _frame_filter omits (the
 * unwinder, the interpreter's evaluation loop), and any frame in torch's
 * Python package or its C++ sources (torch/, c10/, aten/), or unnamed ("??").
 */
static bool torch_own(const char *fn, size_t fl, const char *name, size_t nl)
{
	static const char *const omit_names[] = {
		"unwind::unwind",    "CapturedTraceback::gather",
		"gather_with_cpp",   "_start",
		"__libc_start_main", "PyEval_",
		"PyObject_",         "PyFunction_",
	};
	static const char *const omit_files[] = {
		"core/boxing",
		"/Register",
		"/Redispatch",
		"pythonrun.c",
		"Modules/main.c",
		"Objects/call.c",
		"Objects/methodobject.c",
		"pycore_ceval.h",
		"ceval.c",
		"cpython/abstract.h",
		"/torch/",
		"/c10/",
		"/aten/",
	};
	size_t i;

	for (i = 0; i < GP_ARRAY_SIZE(omit_names); i++)
		if (has(name, nl, omit_names[i]))
			return true;
	for (i = 0; i < GP_ARRAY_SIZE(omit_files); i++)
		if (has(fn, fl, omit_files[i]))
			return true;
	return starts(fn, fl, "torch/") || starts(fn, fl, "c10/") || starts(fn, fl, "aten/") ||
	       fl == 0 || (fl == 2 && memcmp(fn, "??", 2) == 0);
}

static int frame_parts(const struct gp__ms *m, uint32_t f, const char **fn, size_t *fl,
                       const char **name, size_t *nl, int64_t *line)
{
	bool hl;
	int rc;

	if ((rc = gp__ms_dict(m, f, "a frame")) < 0)
		return rc;
	*fn = gp__pk_str(m->pk, gp__pk_get(m->pk, f, "filename"), fl);
	*name = gp__pk_str(m->pk, gp__pk_get(m->pk, f, "name"), nl);
	if (!*fn || !*name)
		return gp__ms_bad(m, f, "a frame without a 'filename' and a 'name' string");
	if ((rc = gp__ms_int(m, f, "line", false, line, &hl)) < 0)
		return rc;
	if (!hl)
		*line = 0;
	return 0;
}

static int grow_groups(struct gp__ms *m, size_t need)
{
	size_t cap = m->gcap, c1 = cap, c2 = cap;

	if (need <= cap)
		return 0;
	if (gp__grow((void **)&m->gbytes, &cap, need, sizeof(int64_t)) < 0 ||
	    gp__grow((void **)&m->gcount, &c1, need, sizeof(uint32_t)) < 0 ||
	    gp__grow((void **)&m->gframe, &c2, need, sizeof(uint32_t)) < 0)
		return GP_ENOMEM;
	memset(m->gbytes + m->gcap, 0, (cap - m->gcap) * sizeof(int64_t));
	memset(m->gcount + m->gcap, 0, (cap - m->gcap) * sizeof(uint32_t));
	m->gcap = cap;
	return 0;
}

/* the group of frame list @p frames: its top frame's "filename:line:name" */
static int group_of(struct gp__ms *m, uint32_t frames, uint32_t *gid)
{
	struct gp_buf key = GP_BUF_INIT;
	const char *fn = NULL, *name = NULL;
	size_t n, i, fl = 0, nl = 0;
	uint32_t pick = GP_PK_NIL;
	int64_t line = 0;
	int rc = 0;

	if (frames < m->pk->nnode && m->topframe[frames]) {
		*gid = m->topframe[frames] - 1;
		return 0;
	}
	if (frames != GP_PK_NIL && gp__pk_type(m->pk, frames) != GP_PK_LIST &&
	    gp__pk_type(m->pk, frames) != GP_PK_NONE)
		return gp__ms_bad(m, frames, "'frames' is a %s, not a list",
		                  gp__pk_type_name(gp__pk_type(m->pk, frames)));
	n = gp__pk_len(m->pk, frames);
	for (i = 0; i < n; i++) {
		uint32_t f = gp__pk_item(m->pk, frames, i);

		GP_TRY(frame_parts(m, f, &fn, &fl, &name, &nl, &line));
		if (!torch_own(fn, fl, name, nl)) {
			pick = f;
			break;
		}
	}
	if (pick == GP_PK_NIL && n) {
		pick = gp__pk_item(m->pk, frames, 0); /* all torch's own: the innermost */
		GP_TRY(frame_parts(m, pick, &fn, &fl, &name, &nl, &line));
	}
	if (pick == GP_PK_NIL)
		GP_TRY(gp__buf_addstr(&key, "<no frames>"));
	else if ((rc = gp__buf_add(&key, fn, fl)) < 0 ||
	         (rc = gp__buf_addf(&key, ":%lld:", (long long)line)) < 0 ||
	         (rc = gp__buf_add(&key, name, nl)) < 0)
		goto out;
	GP_TRY(gp__strtab_intern(&m->keys, key.buf, key.len, gid));
	GP_TRY(grow_groups(m, (size_t)*gid + 1));
	m->gframe[*gid] = pick;
	if (frames < m->pk->nnode)
		m->topframe[frames] = *gid + 1;
out:
	gp__buf_release(&key);
	return rc;
}

int gp__ms_add(struct gp__ms *m, uint32_t frames, int64_t size)
{
	uint32_t g;
	int rc = group_of(m, frames, &g);

	if (rc < 0)
		return rc;
	if (!m->gcount[g]) {
		rc = gp__grow((void **)&m->touched, &m->touched_cap, m->ntouched + 1,
		              sizeof(uint32_t));
		if (rc < 0)
			return rc;
		m->touched[m->ntouched++] = g;
	}
	m->gcount[g]++;
	return gp__ms_sum(m, frames, &m->gbytes[g], size);
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct gp__ms *m = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (m->gbytes[x] != m->gbytes[y])
		return m->gbytes[x] > m->gbytes[y] ? -1 : 1;
	return strcmp(gp__strtab_get(&m->keys, x), gp__strtab_get(&m->keys, y));
}

static int group_row(const struct gp__ms *m, uint32_t g, struct gp_value **out)
{
	struct gp_value *r = gp_value_object();
	const char *fn = NULL, *name = NULL;
	size_t fl = 0, nl = 0;
	int64_t line = 0;
	int rc = 0;

	*out = NULL;
	if (!r)
		return GP_ENOMEM;
	GP_TRY(gp_obj_set_str(r, "frame", gp__strtab_get(&m->keys, g)));
	if (m->gframe[g] != GP_PK_NIL) {
		GP_TRY(frame_parts(m, m->gframe[g], &fn, &fl, &name, &nl, &line));
		GP_TRY(gp_obj_set(r, "filename", gp_value_strn(fn, fl)));
		GP_TRY(gp_obj_set(r, "name", gp_value_strn(name, nl)));
		GP_TRY(gp_obj_set_int(r, "line", line));
	} else {
		GP_TRY(gp_obj_set_null(r, "filename"));
		GP_TRY(gp_obj_set_null(r, "name"));
		GP_TRY(gp_obj_set_null(r, "line"));
	}
	GP_TRY(gp_obj_set_int(r, "bytes", m->gbytes[g]));
	GP_TRY(gp_obj_set_int(r, "blocks", m->gcount[g]));
	*out = r;
	r = NULL;
out:
	gp_value_free(r);
	return rc;
}

int gp__ms_groups(struct gp__ms *m, struct gp_value **rows, size_t *ngroups)
{
	struct gp_value *arr = gp_value_array(), *r;
	size_t i, shown;
	int rc = 0;

	*rows = NULL;
	if (!arr)
		return GP_ENOMEM;
	if (m->ntouched)
		qsort_r(m->touched, m->ntouched, sizeof(uint32_t), cmp_group, m);
	shown = m->top && m->top < m->ntouched ? m->top : m->ntouched;
	for (i = 0; i < shown; i++) {
		GP_TRY(group_row(m, m->touched[i], &r));
		GP_TRY(gp_arr_push(arr, r));
	}
	if (ngroups)
		*ngroups = m->ntouched;
	*rows = arr;
	arr = NULL;
out:
	for (i = 0; i < m->ntouched; i++) {
		m->gbytes[m->touched[i]] = 0;
		m->gcount[m->touched[i]] = 0;
	}
	m->ntouched = 0;
	gp_value_free(arr);
	return rc;
}

/* ---- segments and blocks ---- */

struct segref {
	int64_t device;
	uint32_t seg;
};

static int cmp_segref(const void *a, const void *b)
{
	const struct segref *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->seg < y->seg ? -1 : x->seg > y->seg;
}

enum { CLS_SMALL, CLS_LARGE, CLS_EXPANDABLE, NCLS };
static const char *const cls_names[NCLS] = { "small", "large", "expandable" };

struct devsum {
	int64_t seg[NCLS], reserved[NCLS], allocated[NCLS], requested[NCLS];
	int64_t blocks;
};

/* the frames of block @p b: "frames", or the first "history" entry's (older snapshots) */
static uint32_t block_frames(const struct gp__ms *m, uint32_t b)
{
	uint32_t f = gp__pk_get(m->pk, b, "frames"), h;

	if (f != GP_PK_NIL)
		return f;
	h = gp__pk_item(m->pk, gp__pk_get(m->pk, b, "history"), 0);
	return gp__pk_get(m->pk, h, "frames");
}

static int segment(struct gp__ms *m, uint32_t s, struct devsum *sum, struct gp__ms_blk **live,
                   size_t *nlive, size_t *live_cap)
{
	int64_t total, v;
	uint32_t blocks, t, e;
	size_t i;
	int cls, rc = 0;
	bool h;

	GP_TRY(gp__ms_int(m, s, "total_size", true, &total, &h));
	if (total < 0)
		return gp__ms_bad(m, s, "a segment of %lld bytes", (long long)total);
	e = gp__pk_get(m->pk, s, "is_expandable");
	t = gp__pk_get(m->pk, s, "segment_type");
	if (gp__pk_int(m->pk, e, &v) && v)
		cls = CLS_EXPANDABLE;
	else if (gp__pk_str_eq(m->pk, t, "small"))
		cls = CLS_SMALL;
	else if (gp__pk_str_eq(m->pk, t, "large"))
		cls = CLS_LARGE;
	else
		cls = total <= 2 * MIB ? CLS_SMALL : CLS_LARGE;
	sum->seg[cls]++;
	GP_TRY(gp__ms_sum(m, s, &sum->reserved[cls], total));
	blocks = gp__pk_get(m->pk, s, "blocks");
	if (gp__pk_type(m->pk, blocks) != GP_PK_LIST)
		return gp__ms_bad(m, s, "a segment without a 'blocks' list");
	GP_TRY(gp__ms_once(m, blocks, "a blocks list"));
	for (i = 0; i < gp__pk_len(m->pk, blocks); i++) {
		uint32_t b = gp__pk_item(m->pk, blocks, i);
		int64_t size, req, addr;
		bool hr, ha;

		GP_TRY(gp__ms_dict(m, b, "a block"));
		GP_TRY(gp__ms_int(m, b, "size", true, &size, &h));
		if (size < 0)
			return gp__ms_bad(m, b, "a block of %lld bytes", (long long)size);
		sum->blocks++;
		if (!gp__pk_str_eq(m->pk, gp__pk_get(m->pk, b, "state"), "active_allocated"))
			continue;
		GP_TRY(gp__ms_int(m, b, "requested_size", false, &req, &hr));
		GP_TRY(gp__ms_int(m, b, "address", false, &addr, &ha));
		GP_TRY(gp__ms_sum(m, b, &sum->allocated[cls], size));
		GP_TRY(gp__ms_sum(m, b, &sum->requested[cls], hr && req >= 0 ? req : size));
		GP_TRY(gp__grow((void **)live, live_cap, *nlive + 1, sizeof(**live)));
		(*live)[(*nlive)++] = (struct gp__ms_blk){ .addr = ha ? (uint64_t)addr : UINT64_MAX,
			                                   .size = size,
			                                   .requested = hr && req >= 0 ? req : size,
			                                   .frames = block_frames(m, b) };
	}
out:
	return rc;
}

static int frag_rows(const struct devsum *sum, struct gp_value *dev)
{
	struct gp_value *arr = gp_value_array(), *r = NULL;
	int64_t seg = 0, res = 0, alloc = 0, req = 0;
	int c, rc = 0;

	if (!arr)
		return GP_ENOMEM;
	for (c = 0; c < NCLS; c++) {
		seg += sum->seg[c];
		res += sum->reserved[c];
		alloc += sum->allocated[c];
		req += sum->requested[c];
		if (!sum->seg[c])
			continue;
		if (!(r = gp_value_object()))
			GP_TRY(GP_ENOMEM);
		GP_TRY(gp_obj_set_str(r, "class", cls_names[c]));
		GP_TRY(gp_obj_set_int(r, "segments", sum->seg[c]));
		GP_TRY(gp_obj_set_int(r, "reserved_bytes", sum->reserved[c]));
		GP_TRY(gp_obj_set_int(r, "allocated_bytes", sum->allocated[c]));
		GP_TRY(gp_obj_set_int(r, "requested_bytes", sum->requested[c]));
		GP_TRY(gp_obj_set_int(r, "free_bytes", sum->reserved[c] - sum->allocated[c]));
		GP_TRY(gp_obj_set_double(
		    r, "free_pct",
		    sum->reserved[c] ? 100.0 * (double)(sum->reserved[c] - sum->allocated[c]) /
		                           (double)sum->reserved[c]
		                     : 0.0));
		rc = gp_arr_push(arr, r);
		r = NULL;
		GP_TRY(rc);
	}
	GP_TRY(gp_obj_set_int(dev, "segments", seg));
	GP_TRY(gp_obj_set_int(dev, "blocks", sum->blocks));
	GP_TRY(gp_obj_set_int(dev, "reserved_bytes", res));
	GP_TRY(gp_obj_set_int(dev, "allocated_bytes", alloc));
	GP_TRY(gp_obj_set_int(dev, "requested_bytes", req));
	rc = gp_obj_set(dev, "fragmentation", arr);
	arr = NULL;
out:
	gp_value_free(r);
	gp_value_free(arr);
	return rc;
}

/* the state at the snapshot, for a device without a trace */
static int no_trace(struct gp__ms *m, const struct gp__ms_blk *live, size_t nlive,
                    struct gp_value *dev)
{
	struct gp_value *peak = gp_value_object(), *rows = NULL;
	int64_t total = 0;
	size_t i, ng = 0;
	int rc = 0;

	if (!peak)
		return GP_ENOMEM;
	for (i = 0; i < nlive; i++) {
		GP_TRY(gp__ms_add(m, live[i].frames, live[i].size));
		GP_TRY(gp__ms_sum(m, live[i].frames, &total, live[i].size));
	}
	GP_TRY(gp_obj_set_str(peak, "source", "snapshot"));
	GP_TRY(gp_obj_set_int(peak, "allocated_bytes", total));
	GP_TRY(gp_obj_set_null(peak, "entry"));
	GP_TRY(gp_obj_set_null(peak, "time_us"));
	GP_TRY(gp_obj_set_int(peak, "live_blocks", (int64_t)nlive));
	GP_TRY(gp__ms_groups(m, &rows, &ng));
	GP_TRY(gp_obj_set_int(peak, "frame_groups", (int64_t)ng));
	rc = gp_obj_set(peak, "frames", rows);
	rows = NULL;
	GP_TRY(rc);
	GP_TRY(gp_obj_set_int(dev, "trace_entries", 0));
	GP_TRY(gp_obj_set(dev, "ooms", gp_value_array()));
	GP_TRY(gp_obj_set_null(dev, "curve"));
	rc = gp_obj_set(dev, "peak", peak);
	peak = NULL;
out:
	gp_value_free(rows);
	gp_value_free(peak);
	return rc;
}

static int one_device(struct gp__ms *m, int64_t device, const struct segref *segs, size_t nseg,
                      uint32_t tr, struct gp_value *devs)
{
	struct gp_value *dev = gp_value_object();
	struct gp__ms_blk *live = NULL;
	size_t nlive = 0, live_cap = 0, i;
	struct devsum sum;
	int rc = 0;

	memset(&sum, 0, sizeof(sum));
	if (!dev)
		return GP_ENOMEM;
	GP_TRY(gp_obj_set_int(dev, "device", device));
	for (i = 0; i < nseg; i++)
		GP_TRY(segment(m, segs[i].seg, &sum, &live, &nlive, &live_cap));
	GP_TRY(frag_rows(&sum, dev));
	if (gp__pk_len(m->pk, tr))
		GP_TRY(gp__ms_trace(m, tr, live, nlive, dev));
	else
		GP_TRY(no_trace(m, live, nlive, dev));
	rc = gp_arr_push(devs, dev);
	dev = NULL;
out:
	gp__free(live);
	gp_value_free(dev);
	return rc;
}

/* ---- allocator settings: a small tree, converted at bounded depth and size ---- */

static struct gp_value *setting(const struct gp__pk *pk, uint32_t id, int depth, int *budget)
{
	struct gp_value *v = NULL;
	const char *s;
	size_t i, len;
	int64_t n;
	double d;

	if (--*budget < 0 || depth > 4)
		return gp_value_null();
	switch (gp__pk_type(pk, id)) {
	case GP_PK_BOOL:
		gp__pk_int(pk, id, &n);
		return gp_value_bool(n != 0);
	case GP_PK_INT:
		gp__pk_int(pk, id, &n);
		return gp_value_int(n);
	case GP_PK_FLOAT:
	case GP_PK_BIGINT:
		gp__pk_double(pk, id, &d);
		return gp_value_double(d);
	case GP_PK_STR:
		s = gp__pk_str(pk, id, &len);
		return gp_value_strn(s, len);
	case GP_PK_LIST:
	case GP_PK_TUPLE:
		if (!(v = gp_value_array()))
			return NULL;
		for (i = 0; i < gp__pk_len(pk, id) && *budget > 0; i++)
			if (gp_arr_push(v, setting(pk, gp__pk_item(pk, id, i), depth + 1, budget)))
				return gp_value_free(v), NULL;
		return v;
	case GP_PK_DICT:
		if (!(v = gp_value_object()))
			return NULL;
		for (i = 0; i < gp__pk_len(pk, id) && *budget > 0; i++) {
			uint32_t k = gp__pk_key_at(pk, id, i);
			char key[128];

			if ((s = gp__pk_str(pk, k, &len)))
				snprintf(key, sizeof(key), "%.*s", (int)(len < 127 ? len : 127), s);
			else if (gp__pk_int(pk, k, &n))
				snprintf(key, sizeof(key), "%lld", (long long)n);
			else
				continue;
			if (gp_obj_set(v, key,
			               setting(pk, gp__pk_val_at(pk, id, i), depth + 1, budget)))
				return gp_value_free(v), NULL;
		}
		return v;
	default:
		return gp_value_null();
	}
}

/* ---- the document ---- */

static int devices(struct gp__ms *m, uint32_t segs, uint32_t traces, struct gp_value *devs)
{
	struct segref *refs = NULL;
	size_t n = gp__pk_len(m->pk, segs), ntr = gp__pk_len(m->pk, traces), i, j, t = 0;
	int rc = 0;

	if (n && !(refs = gp__calloc(n, sizeof(*refs))))
		return GP_ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t s = gp__pk_item(m->pk, segs, i);
		bool h;

		GP_TRY(gp__ms_dict(m, s, "a segment"));
		GP_TRY(gp__ms_once(m, s, "a segment"));
		refs[i].seg = s;
		GP_TRY(gp__ms_int(m, s, "device", false, &refs[i].device, &h));
		if (!h)
			refs[i].device = 0;
		if (refs[i].device < 0 || refs[i].device > 1 << 20)
			GP_TRY(gp__ms_bad(m, s, "a segment of device %lld",
			                  (long long)refs[i].device));
	}
	if (n)
		qsort(refs, n, sizeof(*refs), cmp_segref);
	for (i = 0; i < ntr; i++) {
		uint32_t x = gp__pk_item(m->pk, traces, i);

		if (gp__pk_type(m->pk, x) != GP_PK_LIST)
			GP_TRY(gp__ms_bad(m, x, "a device's trace is a %s, not a list",
			                  gp__pk_type_name(gp__pk_type(m->pk, x))));
		GP_TRY(gp__ms_once(m, x, "a device's trace"));
	}
	i = 0;
	/* devices in order: those with segments, and those with a trace (its index) */
	for (;;) {
		int64_t ds, dt, dev;
		uint32_t tr;

		while (t < ntr && !gp__pk_len(m->pk, gp__pk_item(m->pk, traces, t)))
			t++;
		ds = i < n ? refs[i].device : INT64_MAX;
		dt = t < ntr ? (int64_t)t : INT64_MAX;
		dev = ds < dt ? ds : dt;
		if (dev == INT64_MAX)
			break;
		for (j = i; j < n && refs[j].device == dev; j++)
			;
		tr = dev >= 0 && dev < (int64_t)ntr ? gp__pk_item(m->pk, traces, (size_t)dev)
		                                    : GP_PK_NIL;
		GP_TRY(one_device(m, dev, refs ? refs + i : NULL, j - i, tr, devs));
		i = j;
		if (dt == dev)
			t++;
	}
out:
	gp__free(refs);
	return rc;
}

int gp__memsnap_doc(const struct gp__pk *pk, const char *name, uint32_t top, struct gp_value **out)
{
	struct gp__ms m = { .pk = pk, .top = top };
	struct gp_value *doc = NULL, *devs = NULL, *set = NULL;
	uint32_t root = pk->root, segs, traces, st;
	int budget = 4096, rc = 0;

	*out = NULL;
	if (gp__pk_type(pk, root) != GP_PK_DICT ||
	    gp__pk_type(pk, (segs = gp__pk_get(pk, root, "segments"))) != GP_PK_LIST)
		return gp__error(GP_EFORMAT, "byte %llu: not a memory snapshot: no 'segments' list",
		                 (unsigned long long)gp__pk_off(pk, root));
	traces = gp__pk_get(pk, root, "device_traces");
	if (traces != GP_PK_NIL && gp__pk_type(pk, traces) != GP_PK_LIST)
		return gp__error(GP_EFORMAT, "byte %llu: 'device_traces' is not a list",
		                 (unsigned long long)gp__pk_off(pk, traces));
	m.seen = gp__calloc(pk->nnode, 1);
	m.topframe = gp__calloc(pk->nnode, sizeof(uint32_t));
	doc = gp_value_object();
	devs = gp_value_array();
	if (!m.seen || !m.topframe || !doc || !devs || gp__strtab_init(&m.keys) < 0) {
		rc = gp__error(GP_ENOMEM, "out of memory analysing a memory snapshot");
		goto out;
	}
	GP_TRY(gp_obj_set_str(doc, "schema", GP_MEMSNAP_SCHEMA));
	GP_TRY(gp_obj_set_str(doc, "gpuprof_version", gp_version()));
	GP_TRY(gp_obj_set_str(doc, "file", name));
	GP_TRY(gp_obj_set_int(doc, "pickle_protocol", pk->proto));
	GP_TRY(devices(&m, segs, traces, devs));
	rc = gp_obj_set(doc, "devices", devs);
	devs = NULL;
	GP_TRY(rc);
	st = gp__pk_get(pk, root, "allocator_settings");
	if (gp__pk_type(pk, st) == GP_PK_DICT) {
		if (!(set = setting(pk, st, 0, &budget)))
			GP_TRY(GP_ENOMEM);
		rc = gp_obj_set(doc, "allocator_settings", set);
		GP_TRY(rc);
	} else {
		GP_TRY(gp_obj_set_null(doc, "allocator_settings"));
	}
	*out = doc;
	doc = NULL;
out:
	gp__free(m.seen);
	gp__free(m.topframe);
	gp__free(m.gbytes);
	gp__free(m.gcount);
	gp__free(m.gframe);
	gp__free(m.touched);
	gp__strtab_release(&m.keys);
	gp_value_free(devs);
	gp_value_free(doc);
	if (rc == GP_ENOMEM && !strstr(gp_last_error(), "memory"))
		gp__error(GP_ENOMEM, "out of memory analysing a memory snapshot");
	return rc;
}

bool gp__memsnap_is(const struct gp_value *doc)
{
	const char *s = gp_value_get_str(gp_obj_get(doc, "schema"));

	return s && strcmp(s, GP_MEMSNAP_SCHEMA) == 0;
}

int gp__memsnap_read(const struct gp__src *s, uint32_t top, struct gp_value **out)
{
	const char *name = s->is_stdin ? "<stdin>" : s->path;
	struct gp__pk *pk = NULL;
	char *bytes = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (s->is_stdin) {
		rc = gp__pk_parse(s->mem, s->len, NULL, &pk);
	} else {
		/* the whole file (gunzipped when it is a .gz); the graph points into it */
		if ((rc = gp__read_prefix(s->path, SIZE_MAX - 1, &bytes, &n)) < 0)
			return rc;
		rc = gp__pk_parse(bytes, n, NULL, &pk);
	}
	if (rc == 0)
		rc = gp__memsnap_doc(pk, name, top, out);
	if (rc < 0)
		gp__error_prefix("'%s'", name);
	gp__pk_free(pk);
	gp__free(bytes);
	return rc;
}
