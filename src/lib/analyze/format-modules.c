/* SPDX-License-Identifier: MIT */
/*
 * format-modules.c - the text of the "modules" section (gp_analyze_format()):
 * the per-class table, one line in the words of the scripts that print a
 * model layer by layer for the classes that run more than once ("Qwen2MLP
 * 8.043 ms (24 calls), per call avg 335.1 µs, std 1.505 µs; slowest ..."),
 * and the top of the tree with sibling calls of one class folded into one
 * row ("Qwen2DecoderLayer ×24"). Reads only the section (docs/report-schema.md);
 * prints nothing when it is absent or null. The tree is walked to at most
 * TREE_DEPTH levels and TREE_ROWS rows, so a report of any size prints a
 * bounded block.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format-sections.h"
#include "util/error.h"

#define TREE_DEPTH    6  /* levels of the tree shown */
#define TREE_ROWS     24 /* rows of the tree shown (more with --top 0: TREE_ROWS_ALL) */
#define TREE_ROWS_ALL 400
#define LINES_MAX     3 /* classes described in words */
#define NAME_MIN      16
#define NARROW        80 /* narrower text leaves the mean ± σ column out */

static double numv(const struct gp_value *v, const char *key)
{
	double d;

	return gp_value_get_double(gp_obj_get(v, key), &d) ? d : NAN;
}

/* "1.320 ms ± 0.003 ms": the mean and σ in the mean's unit */
static const char *cell_mean(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	char m[32], s[32];
	double mean = numv(row, "mean_gpu_ns");

	(void)c;
	if (!(numv(row, "count") >= 2)) /* one call: no spread */
		return gp__fmt_dur(buf, n, mean, 0);
	snprintf(buf, n, "%s ± %s", gp__fmt_dur(m, sizeof(m), mean, 0),
	         gp__fmt_dur_like(s, sizeof(s), numv(row, "std_gpu_ns"), mean, 0));
	return buf;
}

static const char *cell_name(char *buf, size_t n, const struct gp__col *c, const void *row)
{
	const char *s = gp_value_get_str(gp_obj_get(row, c->key));

	(void)buf;
	(void)n;
	return s ? s : "-";
}

static size_t name_cut(const struct gp__fmt_sec *fs, int used)
{
	int w = fs->width - used;

	return fs->wide ? 0 : (size_t)(w < NAME_MIN ? NAME_MIN : w);
}

/*
 * @p nogpu: the rank has no GPU activity at all (a CPU-only run, a capture
 * without CUPTI): its GPU times are not measurements, so they print as "-"
 */
static void class_table(struct gp__out *o, const struct gp_value *cls, const struct gp__fmt_sec *fs,
                        bool nogpu)
{
	struct gp__col cols[] = {
		{ .head = "Step %", .width = 7, .cell = gp__cell_pct, .key = "step_pct" },
		{ .head = "GPU time",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_dur,
		  .key = "gpu_time_ns" },
		{ .head = "Calls", .width = 7, .gap = " ", .cell = gp__cell_count, .key = "count" },
		{ .head = "Mean ± σ", .width = 21, .gap = " ", .cell = cell_mean },
		{ .head = "Host time",
		  .width = 10,
		  .gap = " ",
		  .cell = gp__cell_dur,
		  .key = "host_time_ns" },
		{ .head = "Class",
		  .gap = "  ",
		  .flags = GP__COL_LEFT | GP__COL_NAME,
		  .cell = cell_name,
		  .key = "name" },
	};
	struct gp__table t = { cols, GP_ARRAY_SIZE(cols), NULL, false };
	size_t n = gp_value_len(cls), show = fs->top && fs->top < n ? fs->top : n;
	const void **rows = gp__calloc(show ? show : 1, sizeof(*rows));

	if (nogpu) {
		cols[0].key = cols[1].key = "-"; /* no such member: the cells say "-" */
	}
	if ((fs->width < NARROW && !fs->wide) || nogpu) {
		/* under 80 columns: no mean ± σ (the lines below give it for the repeated classes)
		 */
		cols[3] = cols[4];
		cols[4] = cols[5];
		t.n--;
		cols[4].cut = name_cut(fs, 7 + 11 + 8 + 11 + 2);
	} else {
		cols[5].cut = name_cut(fs, 7 + 11 + 8 + 22 + 11 + 2);
	}
	if (!rows) {
		gp__out_keep(o, GP_ENOMEM);
		return;
	}
	for (size_t i = 0; i < show; i++)
		rows[i] = gp_arr_get(cls, i);
	gp__out_keep(o, gp__table_head(&o->b, &t));
	gp__out_keep(o, gp__table_rows(&o->b, &t, rows, show));
	gp__free(rows);
	if (show < n)
		gp__out_addf(o, "  … %zu more classes\n", n - show);
}

/* a duration in the unit of @p ref (NaN: its own) whose number stays with its unit when wrapped */
static const char *dur_nb(char *buf, size_t n, double ns, double ref)
{
	gp__fmt_dur_like(buf, n, ns, ref, 0);
	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '\x1f'; /* text.h: a space that does not break */
	return buf;
}

/* "Qwen2MLP 8.043 ms (24 calls), per call avg 335.1 µs, std 1.505 µs; slowest ..." */
static void class_lines(struct gp__out *o, const struct gp_value *cls, const struct gp__fmt_sec *fs)
{
	size_t shown = 0;

	for (size_t i = 0; i < gp_value_len(cls) && shown < LINES_MAX; i++) {
		const struct gp_value *c = gp_arr_get(cls, i), *sl = gp_obj_get(c, "slowest");
		double mean = numv(c, "mean_gpu_ns"), count = numv(c, "count");
		/* the slowest calls in the unit of the slowest */
		double top = numv(gp_arr_get(sl, 0), "gpu_time_ns");
		char a[32], b[32], s[32], line[1024];
		struct gp_buf w = GP_BUF_INIT;
		int k;

		if (!(count >= 2) || !(numv(c, "gpu_time_ns") > 0))
			continue;
		shown++;
		k = snprintf(line, sizeof(line),
		             "%s %s (%.0f\x1f"
		             "calls), per call avg\x1f%s, std\x1f%s",
		             gp_value_get_str(gp_obj_get(c, "name")) ?: "-",
		             dur_nb(a, sizeof(a), numv(c, "gpu_time_ns"), NAN), count,
		             dur_nb(b, sizeof(b), mean, NAN),
		             dur_nb(s, sizeof(s), numv(c, "std_gpu_ns"), mean));
		for (size_t j = 0; j < gp_value_len(sl) && k > 0 && (size_t)k < sizeof(line); j++) {
			const struct gp_value *x = gp_arr_get(sl, j);

			k += snprintf(line + k, sizeof(line) - (size_t)k, "%s%s\x1f%s",
			              j ? ", " : "; slowest ",
			              gp_value_get_str(gp_obj_get(x, "instance")) ?: "-",
			              dur_nb(a, sizeof(a), numv(x, "gpu_time_ns"), top));
		}
		gp__out_keep(o, gp__text_wrap(&w, "  ", line, (size_t)fs->width, 4, GP__WRAP_RAW));
		gp__out_addf(o, "%s", w.buf);
		gp__buf_release(&w);
	}
}

/* ---- the tree, sibling calls of one class folded ---- */

struct tctx {
	struct gp__out *o;
	const struct gp__table *t;
	size_t rows, max_rows, left;
	int width;
	bool nogpu; /* no GPU activity in the rank: GPU times print as "-" */
};

/* whether node @p b folds into the row of @p a: the same class */
static bool same_class(const struct gp_value *a, const struct gp_value *b)
{
	const char *x = gp_value_get_str(gp_obj_get(a, "class"));
	const char *y = gp_value_get_str(gp_obj_get(b, "class"));

	return a == b || (x && y && !strcmp(x, y));
}

/*
 * One level: the nodes @p v[0..n) (children of the rows above), grouped by
 * class in call order; each group a row, then its members' children one
 * level deeper. Depth is bounded by TREE_DEPTH, so the recursion is.
 */
static int tree_level(struct tctx *x, const struct gp_value *const *v, size_t n, int depth)
{
	bool *done = n ? gp__calloc(n, sizeof(*done)) : NULL;
	int rc = 0;

	if (n && !done)
		return GP_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		double calls = 0, gpu = 0, host = 0;
		size_t members = 0, nkids = 0, kk = 0;
		const struct gp_value **kids = NULL;
		char name[512], c1[32], c2[32], c3[32];
		const char *cells[4];

		if (done[i])
			continue;
		for (size_t j = i; j < n; j++) {
			if (done[j] || !same_class(v[i], v[j]))
				continue;
			members++;
			calls += numv(v[j], "calls");
			gpu += numv(v[j], "gpu_time_ns");
			host += numv(v[j], "host_time_ns");
			nkids += gp_value_len(gp_obj_get(v[j], "children"));
		}
		if (x->rows >= x->max_rows) {
			x->left += members;
			for (size_t j = i; j < n; j++)
				done[j] = done[j] || same_class(v[i], v[j]);
			continue;
		}
		if (members == 1)
			snprintf(name, sizeof(name), "%*s%s", 2 * depth, "",
			         gp_value_get_str(gp_obj_get(v[i], "name")) ?: "-");
		else
			snprintf(name, sizeof(name), "%*s%s ×%zu", 2 * depth, "",
			         gp_value_get_str(gp_obj_get(v[i], "class")), members);
		cells[0] = x->nogpu ? "-" : gp__fmt_dur(c1, sizeof(c1), gpu, 0);
		cells[1] = gp__fmt_count(c2, sizeof(c2), calls);
		cells[2] = gp__fmt_dur(c3, sizeof(c3), host, 0);
		cells[3] = name;
		if ((rc = gp__table_cells(&x->o->b, x->t, cells)))
			break;
		x->rows++;
		if (nkids && depth + 1 < TREE_DEPTH && !(kids = gp__calloc(nkids, sizeof(*kids))))
			rc = GP_ENOMEM;
		for (size_t j = i; j < n; j++) {
			const struct gp_value *ch = gp_obj_get(v[j], "children");

			if (done[j] || !same_class(v[i], v[j]))
				continue;
			done[j] = true;
			for (size_t q = 0; kids && q < gp_value_len(ch) && kk < nkids; q++)
				kids[kk++] = gp_arr_get(ch, q);
		}
		if (kids && !rc)
			rc = tree_level(x, kids, kk, depth + 1);
		gp__free(kids);
	}
	gp__free(done);
	return rc;
}

static void tree(struct gp__out *o, const struct gp_value *tr, const struct gp__fmt_sec *fs,
                 bool nogpu)
{
	struct gp__col cols[] = {
		{ .head = "GPU time", .width = 10 },
		{ .head = "Calls", .width = 7, .gap = " " },
		{ .head = "Host time", .width = 10, .gap = " " },
		{ .head = "Module", .gap = "  ", .flags = GP__COL_LEFT },
	};
	const struct gp__table t = { cols, GP_ARRAY_SIZE(cols), NULL, false };
	struct tctx x = { o, &t, 0, fs->top ? TREE_ROWS : TREE_ROWS_ALL, 0, fs->width, nogpu };
	size_t n = gp_value_len(tr);
	const struct gp_value **v = gp__calloc(n ? n : 1, sizeof(*v));

	cols[3].cut = name_cut(fs, 10 + 8 + 11 + 2);
	if (!v) {
		gp__out_keep(o, GP_ENOMEM);
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = gp_arr_get(tr, i);
	gp__out_addf(o, "\n");
	gp__out_keep(o, gp__table_head(&o->b, &t));
	gp__out_keep(o, tree_level(&x, v, n, 0));
	if (x.left)
		gp__out_addf(o, "  … %zu more rows (--top 0 or --json for the whole tree)\n",
		             x.left);
	gp__free(v);
}

void gp__format_modules(struct gp__out *o, const struct gp_value *r, const struct gp__fmt_sec *fs)
{
	const struct gp_value *m = gp_obj_get(r, "modules"), *cls, *tr;
	const char *src;
	double steps = 0;
	const struct gp_value *hg = gp_value_path(r, "gpu/has_gpu");
	bool nogpu = gp_value_type(hg) == GP_VALUE_BOOL && !gp_value_get_bool(hg, true);

	if (!m || gp_value_type(m) != GP_VALUE_OBJECT)
		return;
	cls = gp_obj_get(m, "classes");
	tr = gp_obj_get(m, "tree");
	src = gp_value_get_str(gp_obj_get(m, "source"));
	gp_value_get_double(gp_obj_get(m, "steps"), &steps);
	if (steps >= 1)
		gp__out_addf(o, "\nModules (%s, %.0f step%s)\n",
		             src && !strcmp(src, "annotations") ? "module ranges"
		                                                : "nn.Module calls",
		             steps, steps == 1 ? "" : "s");
	else
		gp__out_addf(o, "\nModules (%s, whole trace)\n",
		             src && !strcmp(src, "annotations") ? "module ranges"
		                                                : "nn.Module calls");
	if (nogpu)
		gp__out_addf(o, "  no GPU activity in this trace: host times only\n");
	class_table(o, cls, fs, nogpu);
	class_lines(o, cls, fs);
	tree(o, tr, fs, nogpu);
	if (gp_value_type(gp_obj_get(m, "truncated")) == GP_VALUE_OBJECT)
		gp__out_addf(
		    o,
		    "  (truncated: calls nested over %.0f levels or past %.0f tree nodes left "
		    "out, see --json)\n",
		    numv(gp_obj_get(m, "truncated"), "max_depth"),
		    numv(gp_obj_get(m, "truncated"), "max_nodes"));
}
