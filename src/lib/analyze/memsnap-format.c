/* SPDX-License-Identifier: MIT */
/*
 * memsnap-format.c - the text of a gpuprof.memsnap/1 document (memsnap.h):
 * per device the peak, the live bytes at the peak by top frame, the
 * fragmentation per segment class and the OOM events, then the allocator
 * settings; every table through the one table (src/lib/text), every number
 * through its formatters. Computes nothing: it reads the document.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/memsnap.h"
#include "text/text.h"
#include "util/error.h"

static const struct gp_value *get(const struct gp_value *v, const char *k)
{
	return gp_obj_get(v, k);
}

static double num(const struct gp_value *v)
{
	double d;

	return gp_value_get_double(v, &d) ? d : NAN;
}

static void frames_table(struct gp__out *o, const struct gp_value *owner, size_t top, int width)
{
	static const struct gp__col cols[] = {
		{ .head = "bytes", .width = 10, .cell = gp__cell_bytes, .key = "bytes" },
		{ .head = "blocks",
		  .width = 7,
		  .gap = " ",
		  .cell = gp__cell_count,
		  .key = "blocks" },
		{ .head = "top frame (file:line:function)",
		  .gap = "  ",
		  .flags = GP__COL_LEFT | GP__COL_CTRL | GP__COL_NAME,
		  .cell = gp__cell_str,
		  .key = "frame" },
	};
	struct gp__col c[3];
	const struct gp__table t = { c, 3, "    ", false };
	const struct gp_value *rows = get(owner, "frames");
	size_t n = gp_value_len(rows), shown = top && top < n ? top : n, i;
	double all = num(get(owner, "frame_groups"));
	const void **rs = gp__calloc(shown ? shown : 1, sizeof(*rs));

	if (!rs) {
		gp__out_keep(o, GP_ENOMEM);
		return;
	}
	memcpy(c, cols, sizeof(c));
	c[2].cut = width > 30 ? (size_t)width - 30 : 40;
	for (i = 0; i < shown; i++)
		rs[i] = gp_arr_get(rows, i);
	gp__out_keep(o, gp__table_head(&o->b, &t));
	gp__out_keep(o, gp__table_rows(&o->b, &t, rs, shown));
	if (!isnan(all) && all > (double)shown)
		gp__out_addf(o, "    ... %.0f more frames (--top)\n", all - (double)shown);
	gp__free(rs);
}

static void frag_table(struct gp__out *o, const struct gp_value *rows)
{
	static const struct gp__col cols[] = {
		{ .head = "class",
		  .width = 10,
		  .flags = GP__COL_LEFT,
		  .cell = gp__cell_str,
		  .key = "class" },
		{ .head = "segments",
		  .width = 8,
		  .gap = " ",
		  .cell = gp__cell_count,
		  .key = "segments" },
		{ .head = "reserved",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_bytes,
		  .key = "reserved_bytes" },
		{ .head = "allocated",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_bytes,
		  .key = "allocated_bytes" },
		{ .head = "free",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_bytes,
		  .key = "free_bytes" },
		{ .head = "free %",
		  .width = 7,
		  .gap = " ",
		  .cell = gp__cell_pct,
		  .key = "free_pct" },
	};
	const struct gp__table t = { cols, 6, "    ", false };
	size_t i;

	gp__out_keep(o, gp__table_head(&o->b, &t));
	for (i = 0; i < gp_value_len(rows); i++)
		gp__out_keep(o, gp__table_row(&o->b, &t, gp_arr_get(rows, i)));
}

static void when(char *buf, size_t n, const struct gp_value *x)
{
	double e = num(get(x, "entry")), t = num(get(x, "time_us"));

	if (isnan(e))
		snprintf(buf, n, "before the trace's first entry");
	else if (isnan(t))
		snprintf(buf, n, "at trace entry %.0f", e);
	else
		snprintf(buf, n, "at trace entry %.0f, time %.0f us", e, t);
}

static void device(struct gp__out *o, const struct gp_value *d, size_t top, int width)
{
	const struct gp_value *peak = get(d, "peak"), *ooms = get(d, "ooms");
	char b1[32], b2[32], b3[32], w[96];
	size_t i;

	gp__out_addf(o, "\nGPU %.0f: %s reserved in %.0f segments, %s allocated at the snapshot\n",
	             num(get(d, "device")),
	             gp__fmt_bytes(b1, sizeof(b1), num(get(d, "reserved_bytes")), 0),
	             num(get(d, "segments")),
	             gp__fmt_bytes(b2, sizeof(b2), num(get(d, "allocated_bytes")), 0));
	if (gp_value_get_str(get(peak, "source")) &&
	    strcmp(gp_value_get_str(get(peak, "source")), "trace") == 0) {
		when(w, sizeof(w), peak);
		gp__out_addf(
		    o, "  Peak: %s allocated %s (replaying %.0f trace entries; %s before them)\n",
		    gp__fmt_bytes(b1, sizeof(b1), num(get(peak, "allocated_bytes")), 0), w,
		    num(get(d, "trace_entries")),
		    gp__fmt_bytes(b3, sizeof(b3), num(get(d, "initial_bytes")), 0));
	} else {
		gp__out_addf(o, "  Peak: no trace; the state at the snapshot: %s allocated\n",
		             gp__fmt_bytes(b1, sizeof(b1), num(get(peak, "allocated_bytes")), 0));
	}
	gp__out_addf(o, "  Live at the peak by top frame (%.0f blocks, %.0f frames):\n",
	             num(get(peak, "live_blocks")), num(get(peak, "frame_groups")));
	frames_table(o, peak, top, width);
	gp__out_addf(o, "  Fragmentation at the snapshot (free = reserved - allocated):\n");
	frag_table(o, get(d, "fragmentation"));
	if (!gp_value_len(ooms))
		return;
	gp__out_addf(o, "  Out of memory: %zu event%s\n", gp_value_len(ooms),
	             gp_value_len(ooms) == 1 ? "" : "s");
	for (i = 0; i < gp_value_len(ooms); i++) {
		const struct gp_value *x = gp_arr_get(ooms, i);

		when(w, sizeof(w), x);
		gp__out_addf(o, "  - %s: %s requested, %s free on the device, %s allocated\n", w,
		             gp__fmt_bytes(b1, sizeof(b1), num(get(x, "requested_bytes")), 0),
		             gp__fmt_bytes(b2, sizeof(b2), num(get(x, "device_free_bytes")), 0),
		             gp__fmt_bytes(b3, sizeof(b3), num(get(x, "allocated_bytes")), 0));
		if (get(x, "frames"))
			frames_table(o, x, top, width);
	}
}

static void settings(struct gp__out *o, const struct gp_value *s)
{
	size_t i;

	if (gp_value_type(s) != GP_VALUE_OBJECT)
		return;
	gp__out_addf(o, "\nAllocator settings:\n");
	for (i = 0; i < gp_value_len(s); i++) {
		const struct gp_value *v = gp_obj_value_at(s, i);
		char *json = NULL;

		if (gp_value_to_json(v, 0, &json, NULL)) {
			gp__out_keep(o, GP_ENOMEM);
			return;
		}
		gp__out_addf(o, "  %s: %s\n", gp_obj_key_at(s, i), json);
		gp_free(json);
	}
}

int gp__memsnap_format(const struct gp_value *doc, size_t top, int width, char **text, size_t *len)
{
	struct gp__out o = { GP_BUF_INIT, 0 };
	const struct gp_value *devs = get(doc, "devices");
	size_t i;

	gp__out_addf(&o, "Memory snapshot '%s' (pickle protocol %.0f)\n",
	             gp_value_get_str(get(doc, "file")) ? gp_value_get_str(get(doc, "file")) : "?",
	             num(get(doc, "pickle_protocol")));
	if (!gp_value_len(devs))
		gp__out_addf(&o, "\nno device has a segment or a trace in this snapshot\n");
	for (i = 0; i < gp_value_len(devs); i++)
		device(&o, gp_arr_get(devs, i), top, width);
	settings(&o, get(doc, "allocator_settings"));
	return gp__out_detach(&o, text, len);
}
