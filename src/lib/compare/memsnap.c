/* SPDX-License-Identifier: MIT */
/*
 * memsnap.c - `gpuprof compare A.pickle B.pickle`: two PyTorch memory
 * snapshots, device by device (analyze/memsnap.h): the peak of allocated
 * bytes and, per top frame, the bytes live at the peak, base against new,
 * largest growth first. A snapshot is one exact replay, not a sample, so the
 * verdict is the threshold's alone: a device whose peak grows by more than the
 * threshold (--threshold, or --threshold-for peak_memory=PCT; 5 % by default)
 * is a regression (exit 3), one that shrinks by more an improvement, else
 * "same". The result is a gpuprof.compare/1 document of kind "memory
 * snapshot" whose "memsnap" list holds the devices; its text is drawn here
 * through the one table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/memsnap.h"
#include "compare-int.h"
#include "gpuprof/compare.h"
#include "source/source.h"
#include "text/text.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/opts.h"

#define KIND "memory snapshot"

static const struct gp_value *get(const struct gp_value *v, const char *k)
{
	return gp_obj_get(v, k);
}

static int64_t ival(const struct gp_value *v, const char *k)
{
	int64_t i = 0;

	gp_value_get_int(gp_obj_get(v, k), &i);
	return i;
}

/*
 * Is @p path a memory snapshot (by name or content)? Only a regular file is asked: a
 * directory is none, and standard input is left unread for the usual loading (which
 * refuses a snapshot there).
 */
static int is_snapshot(const char *path, bool *yes)
{
	struct gp__srcs s;
	struct stat st;
	int rc;

	*yes = false;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	rc = gp__srcs_resolve(&path, 1, 0, &s);
	if (rc == 0)
		*yes = s.n == 1 && s.v[0].kind == GP_SRC_SNAPSHOT;
	gp__srcs_release(&s);
	if (rc)
		gp_clear_error(); /* the usual loading says what is wrong with it */
	return 0;
}

static int read_side(const char *path, struct gp_value **doc)
{
	struct gp__srcs s;
	int rc = gp__srcs_resolve(&path, 1, 0, &s);

	if (rc == 0)
		rc = gp__memsnap_read(&s.v[0], 0, doc);
	gp__srcs_release(&s);
	return rc;
}

struct fdiff {
	const char *frame;
	int64_t base, new_, base_blocks, new_blocks;
};

static int cmp_fdiff(const void *a, const void *b)
{
	const struct fdiff *x = a, *y = b;
	int64_t gx = x->new_ - x->base, gy = y->new_ - y->base;

	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(x->frame, y->frame);
}

static int cmp_name(const void *a, const void *b)
{
	const struct fdiff *x = a, *y = b;

	return strcmp(x->frame, y->frame);
}

/* the rows of @p rows (a document's frames) into @p d, by frame */
static size_t rows_of(const struct gp_value *rows, struct fdiff *d, bool is_new)
{
	size_t i, n = gp_value_len(rows);

	for (i = 0; i < n; i++) {
		const struct gp_value *x = gp_arr_get(rows, i);
		const char *f = gp_value_get_str(get(x, "frame"));

		d[i] = (struct fdiff){ .frame = f ? f : "?" };
		if (is_new) {
			d[i].new_ = ival(x, "bytes");
			d[i].new_blocks = ival(x, "blocks");
		} else {
			d[i].base = ival(x, "bytes");
			d[i].base_blocks = ival(x, "blocks");
		}
	}
	if (n)
		qsort(d, n, sizeof(*d), cmp_name);
	return n;
}

/* the frames of both peaks, matched by their text (a merge of the two sorted lists), largest
 * growth first */
static int frame_rows(const struct gp_value *bd, const struct gp_value *nd, struct gp_value *out)
{
	const struct gp_value *bf = gp_value_path(bd, "peak/frames");
	const struct gp_value *nf = gp_value_path(nd, "peak/frames");
	size_t nb = gp_value_len(bf), nn = gp_value_len(nf), n = 0, i = 0, j = 0;
	struct fdiff *b = gp__calloc(nb + 1, sizeof(*b)), *e = gp__calloc(nn + 1, sizeof(*e));
	struct fdiff *d = gp__calloc(nb + nn + 1, sizeof(*d));
	struct gp_value *arr = gp_value_array(), *r = NULL;
	int rc = 0;

	if (!b || !e || !d || !arr)
		GP_TRY(GP_ENOMEM);
	nb = rows_of(bf, b, false);
	nn = rows_of(nf, e, true);
	while (i < nb || j < nn) {
		int c = i == nb ? 1 : j == nn ? -1 : strcmp(b[i].frame, e[j].frame);

		if (c < 0) {
			d[n++] = b[i++];
		} else if (c > 0) {
			d[n++] = e[j++];
		} else {
			d[n] = b[i++];
			d[n].new_ = e[j].new_;
			d[n++].new_blocks = e[j++].new_blocks;
		}
	}
	if (n)
		qsort(d, n, sizeof(*d), cmp_fdiff);
	for (i = 0; i < n; i++) {
		if (!(r = gp_value_object()))
			GP_TRY(GP_ENOMEM);
		GP_TRY(gp_obj_set_str(r, "frame", d[i].frame));
		GP_TRY(gp_obj_set_int(r, "base_bytes", d[i].base));
		GP_TRY(gp_obj_set_int(r, "new_bytes", d[i].new_));
		GP_TRY(gp_obj_set_int(r, "change_bytes", d[i].new_ - d[i].base));
		GP_TRY(gp_obj_set_int(r, "base_blocks", d[i].base_blocks));
		GP_TRY(gp_obj_set_int(r, "new_blocks", d[i].new_blocks));
		rc = gp_arr_push(arr, r);
		r = NULL;
		GP_TRY(rc);
	}
	rc = gp_obj_set(out, "frames", arr);
	arr = NULL;
out:
	gp_value_free(r);
	gp_value_free(arr);
	gp__free(d);
	gp__free(e);
	gp__free(b);
	return rc;
}

static int one_device(int64_t dev, const struct gp_value *bd, const struct gp_value *nd,
                      double threshold, struct gp_value *devs, int *worse, int *better)
{
	struct gp_value *o = gp_value_object();
	int64_t b = ival(get(bd, "peak"), "allocated_bytes");
	int64_t n = ival(get(nd, "peak"), "allocated_bytes");
	double pct = b ? 100.0 * (double)(n - b) / (double)b : (n ? INFINITY : 0);
	const char *v = "same";
	int rc = 0;

	if (!o)
		return GP_ENOMEM;
	if ((double)(n - b) > threshold * (double)b && n > b) {
		v = "regression";
		(*worse)++;
	} else if ((double)(b - n) > threshold * (double)b && n < b) {
		v = "improvement";
		(*better)++;
	}
	GP_TRY(gp_obj_set_int(o, "device", dev));
	GP_TRY(gp_obj_set_int(o, "base_peak_bytes", b));
	GP_TRY(gp_obj_set_int(o, "new_peak_bytes", n));
	GP_TRY(gp_obj_set_int(o, "change_bytes", n - b));
	GP_TRY(gp_obj_set_double(o, "change_pct", isinf(pct) ? NAN : pct));
	GP_TRY(gp_obj_set_str(o, "verdict", v));
	GP_TRY(gp_obj_set_int(o, "base_reserved_bytes", ival(bd, "reserved_bytes")));
	GP_TRY(gp_obj_set_int(o, "new_reserved_bytes", ival(nd, "reserved_bytes")));
	GP_TRY(gp_obj_set_int(o, "base_ooms", (int64_t)gp_value_len(get(bd, "ooms"))));
	GP_TRY(gp_obj_set_int(o, "new_ooms", (int64_t)gp_value_len(get(nd, "ooms"))));
	GP_TRY(frame_rows(bd, nd, o));
	rc = gp_arr_push(devs, o);
	o = NULL;
out:
	gp_value_free(o);
	return rc;
}

static double threshold_of(const struct gp_compare_opts *opts)
{
	size_t i, n = GP__OPTS_GET(opts, n_thresholds, 0);
	double t = GP__OPTS_GET(opts, threshold, 0.0);

	for (i = 0; i < n && opts->threshold_names && opts->threshold_values; i++)
		if (strcmp(opts->threshold_names[i], "peak_memory") == 0)
			return opts->threshold_values[i];
	return t > 0 ? t : 0.05;
}

static int side(struct gp_value *res, const char *key, const char *path)
{
	struct gp_value *s = gp_value_object();
	int rc;

	if (!s)
		return GP_ENOMEM;
	if ((rc = gp_obj_set_str(s, "path", path)) ||
	    (rc = gp_obj_set_str(s, "input", "a " KIND))) {
		gp_value_free(s);
		return rc;
	}
	return gp_obj_set(res, key, s);
}

static int build(const char *bp, const char *np, const struct gp_value *bdoc,
                 const struct gp_value *ndoc, double threshold, struct gp_value *res)
{
	const struct gp_value *bdevs = get(bdoc, "devices"), *ndevs = get(ndoc, "devices");
	struct gp_value *devs = gp_value_array(), *opt = gp_value_object(), *empty;
	struct gp_buf sum = GP_BUF_INIT;
	int worse = 0, better = 0, rc = 0;
	const struct gp_value *first = NULL;
	size_t i, j;
	char th[32], b1[32], b2[32], p[32];

	if (!devs || !opt)
		GP_TRY(GP_ENOMEM);
	/* both lists are in device order (memsnap.c): merged */
	for (i = 0, j = 0; i < gp_value_len(bdevs) || j < gp_value_len(ndevs);) {
		const struct gp_value *x = gp_arr_get(bdevs, i), *y = gp_arr_get(ndevs, j);
		int64_t dx = x ? ival(x, "device") : INT64_MAX,
		        dy = y ? ival(y, "device") : INT64_MAX;
		int64_t d = dx < dy ? dx : dy;

		GP_TRY(one_device(d, dx == d ? x : NULL, dy == d ? y : NULL, threshold, devs,
		                  &worse, &better));
		i += dx == d;
		j += dy == d;
	}
	for (i = 0; i < gp_value_len(devs) && !first; i++) {
		const char *v = gp_value_get_str(get(gp_arr_get(devs, i), "verdict"));

		if (strcmp(v, worse ? "regression" : better ? "improvement" : "same") == 0)
			first = gp_arr_get(devs, i);
	}
	GP_TRY(gp_obj_set_str(res, "schema", GP_COMPARE_SCHEMA));
	GP_TRY(gp_obj_set_str(res, "gpuprof_version", gp_version()));
	GP_TRY(gp_obj_set_str(res, "kind", KIND));
	GP_TRY(gp_obj_set_str(res, "verdict",
	                      worse    ? "regression"
	                      : better ? "improvement"
	                               : "same"));
	GP_TRY(gp_obj_set_bool(res, "regression", worse > 0));
	gp__fmt_pct(th, sizeof(th), 100 * threshold, GP__FMT_GIVEN);
	if (first) {
		const struct gp_value *top = gp_arr_get(get(first, "frames"), 0);
		double cp = NAN;

		gp_value_get_double(get(first, "change_pct"), &cp);
		GP_TRY(gp__buf_addf(
		    &sum, "%s: peak allocated memory %s on GPU %lld (%s -> %s)",
		    worse    ? "regression"
		    : better ? "improvement"
		             : "same",
		    gp__fmt_pct(p, sizeof(p), cp, GP__FMT_SIGN), (long long)ival(first, "device"),
		    gp__fmt_bytes(b1, sizeof(b1), (double)ival(first, "base_peak_bytes"), 0),
		    gp__fmt_bytes(b2, sizeof(b2), (double)ival(first, "new_peak_bytes"), 0)));
		if (top && ival(top, "change_bytes") > 0)
			GP_TRY(gp__buf_addf(
			    &sum, "; most growth: %s %s", gp_value_get_str(get(top, "frame")),
			    gp__fmt_bytes(b1, sizeof(b1), (double)ival(top, "change_bytes"),
			                  GP__FMT_SIGN)));
	} else {
		GP_TRY(gp__buf_addstr(&sum, "same: no device in either snapshot"));
	}
	GP_TRY(gp_obj_set_str(res, "summary", sum.buf));
	GP_TRY(side(res, "base", bp));
	GP_TRY(side(res, "new", np));
	GP_TRY(gp_obj_set_double(opt, "threshold_pct", 100 * threshold));
	GP_TRY(gp_obj_set_null(opt, "alpha"));
	rc = gp_obj_set(res, "options", opt);
	opt = NULL;
	GP_TRY(rc);
	if (!(empty = gp_value_array()))
		GP_TRY(GP_ENOMEM);
	GP_TRY(gp_obj_set(res, "groups", empty));
	rc = gp_obj_set(res, "memsnap", devs);
	devs = NULL;
out:
	gp__buf_release(&sum);
	gp_value_free(opt);
	gp_value_free(devs);
	return rc;
}

int gp__cmp_memsnap_paths(const char *base, const char *new_, const struct gp_compare_opts *opts,
                          bool *handled, struct gp_value **out)
{
	struct gp_value *bdoc = NULL, *ndoc = NULL, *res = NULL;
	bool bs, ns;
	int rc;

	*handled = false;
	is_snapshot(base, &bs);
	is_snapshot(new_, &ns);
	if (!bs && !ns)
		return 0;
	*handled = true;
	if (bs != ns)
		return gp__error(
		    GP_EINVAL,
		    "cannot compare a memory snapshot ('%s') with another input ('%s'): "
		    "give two snapshots",
		    bs ? base : new_, bs ? new_ : base);
	if ((rc = read_side(base, &bdoc)) == 0 && (rc = read_side(new_, &ndoc)) == 0) {
		if (!(res = gp_value_object()))
			rc = gp__error(GP_ENOMEM, "out of memory");
		else
			rc = build(base, new_, bdoc, ndoc, threshold_of(opts), res);
	}
	if (rc == 0) {
		*out = res;
		res = NULL;
	} else if (rc == GP_ENOMEM) {
		gp__error(GP_ENOMEM, "out of memory comparing memory snapshots");
	}
	gp_value_free(res);
	gp_value_free(bdoc);
	gp_value_free(ndoc);
	return rc;
}

static const char *cell_change(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	return gp__fmt_bytes(buf, n, (double)ival(row, c->key), GP__FMT_SIGN);
}

static const char *cell_blocks(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	(void)c;
	snprintf(buf, n, "%lld -> %lld", (long long)ival(row, "base_blocks"),
	         (long long)ival(row, "new_blocks"));
	return buf;
}

void gp__cmp_format_memsnap(struct gp__out *o, const struct gp_value *result, bool md, uint32_t top)
{
	static const struct gp__col cols[] = {
		{ .head = "base", .width = 10, .cell = gp__cell_bytes, .key = "base_bytes" },
		{ .head = "new",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_bytes,
		  .key = "new_bytes" },
		{ .head = "change",
		  .width = 11,
		  .gap = " ",
		  .cell = cell_change,
		  .key = "change_bytes" },
		{ .head = "blocks", .width = 13, .gap = " ", .cell = cell_blocks },
		{ .head = "top frame at the peak",
		  .gap = "  ",
		  .flags = GP__COL_LEFT | GP__COL_CTRL | GP__COL_CODE,
		  .cell = gp__cell_str,
		  .key = "frame" },
	};
	const struct gp__table t = { cols, 5, md ? NULL : "  ", md };
	const struct gp_value *devs = get(result, "memsnap");
	char b1[32], b2[32], b3[32], p[32], th[32];
	size_t i, j;
	double pct;

	gp__out_addf(o,
	             md ? "base `%s` -> new `%s` (memory snapshots); threshold %s\n\n"
	                : "base '%s' -> new '%s' (memory snapshots); threshold %s\n\n",
	             gp_value_get_str(gp_value_path(result, "base/path")),
	             gp_value_get_str(gp_value_path(result, "new/path")),
	             gp__fmt_pct(th, sizeof(th),
	                         gp__cmp_num(get(result, "options"), "threshold_pct"),
	                         GP__FMT_GIVEN));
	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i), *fr = get(d, "frames");
		size_t n = gp_value_len(fr), shown = top && top < n ? top : n;

		pct = NAN;
		gp_value_get_double(get(d, "change_pct"), &pct);
		gp__out_addf(
		    o,
		    md ? "#### GPU %lld: peak %s -> %s (%s, %s): %s\n\n"
		       : "== GPU %lld: peak %s -> %s (%s, %s): %s\n",
		    (long long)ival(d, "device"),
		    gp__fmt_bytes(b1, sizeof(b1), (double)ival(d, "base_peak_bytes"), 0),
		    gp__fmt_bytes(b2, sizeof(b2), (double)ival(d, "new_peak_bytes"), 0),
		    gp__fmt_bytes(b3, sizeof(b3), (double)ival(d, "change_bytes"), GP__FMT_SIGN),
		    gp__fmt_pct(p, sizeof(p), pct, GP__FMT_SIGN),
		    gp_value_get_str(get(d, "verdict")));
		if (ival(d, "base_ooms") || ival(d, "new_ooms"))
			gp__out_addf(o, "%sout-of-memory events: %lld -> %lld\n%s", md ? "" : "  ",
			             (long long)ival(d, "base_ooms"),
			             (long long)ival(d, "new_ooms"), md ? "\n" : "");
		gp__out_keep(o, gp__table_head(&o->b, &t));
		for (j = 0; j < shown; j++)
			gp__out_keep(o, gp__table_row(&o->b, &t, gp_arr_get(fr, j)));
		if (shown < n)
			gp__out_addf(o, "%s... %zu more frames (--top)\n", md ? "\n" : "  ",
			             n - shown);
		gp__out_addf(o, "\n");
	}
}
