/* SPDX-License-Identifier: MIT */
/*
 * report.c - analyze report against analyze report ("gpuprof.analyze/1",
 * docs/report-schema.md); traces and captures arrive here analysed.
 *
 * Ranks are paired by rank number (only --rank R when given); when each side
 * has exactly one rank they are paired whatever their numbers, with a
 * warning. Per pair:
 *   - step time: the complete steps' dur_ns as samples (metric.c: the rank
 *     test, or Welch's t with few steps; lower is better); the only metric of
 *     a report that can be a regression;
 *   - one value per side, never a regression: GPU busy, GPU idle %, compute,
 *     communication, memcpy time, comm/comp overlap % (higher is better),
 *     kernel time, peak memory (the largest GPU peak_allocated_bytes);
 *   - the kernel and operator diff (table.c) and the explanations (explain.c);
 *   - warnings when the runs are not alike: another GPU model, world size or
 *     precision of the kernels (comparable()).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare-int.h"
#include "text/text.h"
#include "util/buf.h"

/* a summary table: a list of objects, each with a name, a count and a total_ns */
static int check_table(const struct gp_value *r, size_t ri, const char *key, const char *label)
{
	const struct gp_value *t = gp_obj_get(r, key);
	size_t i;

	if (!t || gp_value_type(t) == GP_VALUE_NULL)
		return 0;
	if (gp_value_type(t) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "%s: ranks[%zu].%s is not a list", label, ri, key);
	for (i = 0; i < gp_value_len(t); i++) {
		const struct gp_value *row = gp_arr_get(t, i);
		int64_t count;
		double total;

		if (!gp_value_get_str(gp_obj_get(row, "name")))
			return gp__error(GP_EFORMAT, "%s: ranks[%zu].%s[%zu].name is missing",
			                 label, ri, key, i);
		if (!gp_value_get_int(gp_obj_get(row, "count"), &count) || count < 0)
			return gp__error(GP_EFORMAT, "%s: ranks[%zu].%s[%zu].count is not a count",
			                 label, ri, key, i);
		if (!gp_value_get_double(gp_obj_get(row, "total_ns"), &total) || total < 0)
			return gp__error(
			    GP_EFORMAT,
			    "%s: ranks[%zu].%s[%zu].total_ns is not a number of 0 or more", label,
			    ri, key, i);
	}
	return 0;
}

int gp__cmp_check_report(const struct gp_value *v, const char *label)
{
	const struct gp_value *ranks = gp_obj_get(v, "ranks");
	size_t i, j;
	int rc;

	if (gp_value_type(v) != GP_VALUE_OBJECT)
		return gp__error(GP_EFORMAT, "%s: not a JSON object", label);
	if (gp_value_type(ranks) != GP_VALUE_ARRAY)
		return gp__error(GP_EFORMAT, "%s: \"ranks\" is missing or not a list", label);
	for (i = 0; i < gp_value_len(ranks); i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		const struct gp_value *steps = gp_obj_get(r, "steps");
		int64_t rank;

		if (gp_value_type(r) != GP_VALUE_OBJECT)
			return gp__error(GP_EFORMAT, "%s: ranks[%zu] is not an object", label, i);
		if (!gp_value_get_int(gp_obj_get(r, "rank"), &rank))
			return gp__error(GP_EFORMAT, "%s: ranks[%zu].rank is not an integer", label,
			                 i);
		if ((rc = check_table(r, i, "kernels", label)) ||
		    (rc = check_table(r, i, "cpu_ops", label)))
			return rc;
		if (steps && gp_value_type(steps) != GP_VALUE_NULL &&
		    gp_value_type(steps) != GP_VALUE_ARRAY)
			return gp__error(GP_EFORMAT, "%s: ranks[%zu].steps is not a list", label,
			                 i);
		for (j = 0; j < gp_value_len(steps); j++) {
			const struct gp_value *d = gp_obj_get(gp_arr_get(steps, j), "dur_ns");
			double x;

			if (d && gp_value_type(d) != GP_VALUE_NULL &&
			    !(gp_value_get_double(d, &x) && x >= 0))
				return gp__error(
				    GP_EFORMAT,
				    "%s: ranks[%zu].steps[%zu].dur_ns is not a number of 0 "
				    "or more",
				    label, i, j);
		}
	}
	return 0;
}

static double num(const struct gp_value *v, const char *path)
{
	double d;

	return gp_value_get_double(gp_value_path(v, path), &d) ? d : NAN;
}

/* the complete steps' durations; *n their number */
static double *step_times(const struct gp_value *r, size_t *n)
{
	const struct gp_value *steps = gp_obj_get(r, "steps");
	size_t i, len = gp_value_len(steps);
	double *x = gp__calloc(len ? len : 1, sizeof(*x));

	*n = 0;
	if (!x)
		return NULL;
	for (i = 0; i < len; i++) {
		const struct gp_value *s = gp_arr_get(steps, i);

		if (gp_value_get_bool(gp_obj_get(s, "incomplete"), false))
			continue;
		if (gp_value_get_double(gp_obj_get(s, "dur_ns"), &x[*n]))
			(*n)++;
	}
	return x;
}

/* sum of memory_ops total_ns of kind memcpy; NaN without the table */
static double memcpy_ns(const struct gp_value *r)
{
	const struct gp_value *t = gp_obj_get(r, "memory_ops");
	double sum = 0, d;
	size_t i;

	if (gp_value_type(t) != GP_VALUE_ARRAY)
		return NAN;
	for (i = 0; i < gp_value_len(t); i++) {
		const struct gp_value *row = gp_arr_get(t, i);
		const char *kind = gp_value_get_str(gp_obj_get(row, "kind"));

		if (kind && strcmp(kind, "memcpy") == 0 &&
		    gp_value_get_double(gp_obj_get(row, "total_ns"), &d))
			sum += d;
	}
	return sum;
}

/* sum of kernels total_ns, with the rows a --top report left out; NaN without the table */
static double kernel_ns(const struct gp_value *r)
{
	const struct gp_value *t = gp_obj_get(r, "kernels");
	double sum = 0, d;
	size_t i;

	if (gp_value_type(t) != GP_VALUE_ARRAY)
		return NAN;
	for (i = 0; i < gp_value_len(t); i++)
		if (gp_value_get_double(gp_obj_get(gp_arr_get(t, i), "total_ns"), &d))
			sum += d;
	if (gp_value_get_double(gp_value_path(r, "kernels_omitted/total_ns"), &d))
		sum += d;
	return sum;
}

/* the largest peak_allocated_bytes of the GPU devices (not "cpu"); NaN without one */
static double peak_memory(const struct gp_value *r)
{
	const struct gp_value *devs = gp_value_path(r, "memory/devices");
	double best = NAN, d;
	size_t i;

	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *x = gp_arr_get(devs, i);

		if (gp_value_type(gp_obj_get(x, "device")) != GP_VALUE_INT)
			continue;
		if (gp_value_get_double(gp_obj_get(x, "peak_allocated_bytes"), &d) &&
		    (isnan(best) || d > best))
			best = d;
	}
	return best;
}

static const struct gp__metric m_step = { "step_time", "step time", "ns", GP__MK_TIME,
	                                  GP_LOWER_IS_BETTER };

static int single_metrics(struct gp__cmp *c, const struct gp_value *br, const struct gp_value *nr,
                          struct gp_value *metrics)
{
	static const struct {
		struct gp__metric m;
		const char *path; /* NULL: computed */
	} singles[] = {
		{ { "gpu_busy", "GPU busy", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "gpu/busy_ns" },
		{ { "gpu_idle_pct", "GPU idle", "%", GP__MK_PCT, GP_LOWER_IS_BETTER },
		  "gpu/idle_pct" },
		{ { "compute", "compute", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "gpu/compute_ns" },
		{ { "communication", "communication", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER },
		  "gpu/communication_ns" },
		{ { "memcpy", "memcpy", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER }, NULL },
		{ { "comm_comp_overlap_pct", "comm/comp overlap", "%", GP__MK_PCT,
		    GP_HIGHER_IS_BETTER },
		  "gpu/comm_comp_overlap_pct" },
		{ { "kernel_time", "kernel time", "ns", GP__MK_TIME, GP_LOWER_IS_BETTER }, NULL },
		{ { "peak_memory", "peak memory", "bytes", GP__MK_MEMORY, GP_LOWER_IS_BETTER },
		  NULL },
	};
	size_t i;
	int rc;

	for (i = 0; i < GP_ARRAY_SIZE(singles); i++) {
		const char *name = singles[i].m.name;
		double b, n;

		if (singles[i].path) {
			b = num(br, singles[i].path);
			n = num(nr, singles[i].path);
		} else if (strcmp(name, "memcpy") == 0) {
			b = memcpy_ns(br);
			n = memcpy_ns(nr);
		} else if (strcmp(name, "kernel_time") == 0) {
			b = kernel_ns(br);
			n = kernel_ns(nr);
		} else {
			b = peak_memory(br);
			n = peak_memory(nr);
		}
		if ((rc = gp__cmp_single(c, &singles[i].m, b, n, metrics)))
			return rc;
	}
	return 0;
}

/*
 * What makes two runs not comparable, where the report says it: the GPU
 * model (overview.devices, from deviceProperties or the capture), the world
 * size (overview.distributed, from distributedInfo or the launcher) and the
 * precision the kernels run in (the element type their names show: a
 * template argument such as c10::BFloat16 or float, or cuBLAS's sgemm,
 * hgemm, bf16 tokens). Each is a warning, never a verdict, given once for
 * the first rank pair where it holds (the ranks of a run share them).
 */

/* the names of the active GPUs (all GPUs when none is marked), "; "-joined, sorted */
static int gpu_models(const struct gp_value *r, struct gp_buf *out)
{
	const struct gp_value *devs = gp_value_path(r, "overview/devices");
	const char *names[16];
	size_t i, j, n = 0;
	bool any_active = false;

	for (i = 0; i < gp_value_len(devs); i++)
		any_active |= gp_value_get_bool(gp_obj_get(gp_arr_get(devs, i), "active"), false);
	for (i = 0; i < gp_value_len(devs) && n < GP_ARRAY_SIZE(names); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);
		const char *name = gp_value_get_str(gp_obj_get(d, "name"));

		if (!name || (any_active && !gp_value_get_bool(gp_obj_get(d, "active"), false)))
			continue;
		for (j = 0; j < n && strcmp(names[j], name) != 0; j++)
			;
		if (j == n)
			names[n++] = name;
	}
	return gp__cmp_join_names(names, n, out);
}

/* element types a kernel name can show, by the first token found in it */
static const struct {
	const char *token, *type;
} dtype_tokens[] = {
	{ "BFloat16", "bf16" },    { "bfloat16", "bf16" }, { "bf16", "bf16" },
	{ "__nv_bfloat", "bf16" }, { "Float8", "fp8" },    { "fp8", "fp8" },
	{ "e4m3", "fp8" },         { "e5m2", "fp8" },      { "c10::Half", "fp16" },
	{ "__half", "fp16" },      { "fp16", "fp16" },     { "hgemm", "fp16" },
	{ "h884", "fp16" },        { "h1688", "fp16" },    { "h16816", "fp16" },
	{ "tf32", "tf32" },        { "<float", "fp32" },   { "float,", "fp32" },
	{ "float>", "fp32" },      { "sgemm", "fp32" },    { "scudnn", "fp32" },
	{ "f32f32_f32", "fp32" },  { "double", "fp64" },   { "dgemm", "fp64" },
};
static const char *const dtypes[] = { "fp64", "fp32", "tf32", "fp16", "bf16", "fp8" };
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

static size_t dtype_of(const char *name)
{
	const char *best = NULL, *type = NULL;
	size_t i;

	for (i = 0; i < GP_ARRAY_SIZE(dtype_tokens); i++) {
		const char *at = strstr(name, dtype_tokens[i].token);

		if (at && (!best || at < best)) {
			best = at;
			type = dtype_tokens[i].type;
		}
	}
	for (i = 0; type && i < NDTYPES && strcmp(dtypes[i], type) != 0; i++)
		;
	return type ? i : NDTYPES;
}

/*
 * The precision of a rank: the element type that runs the most kernel time
 * among the kernels whose names show one, and its share ("bf16", 87 %);
 * NDTYPES when no name shows one.
 */
static size_t precision(const struct gp_value *r, double *share)
{
	const struct gp_value *t = gp_obj_get(r, "kernels");
	double ns[NDTYPES] = { 0 }, sum = 0, d;
	size_t i, k, best = NDTYPES;

	for (i = 0; i < gp_value_len(t); i++) {
		const struct gp_value *row = gp_arr_get(t, i);
		const char *name = gp_value_get_str(gp_obj_get(row, "name"));

		if (!name || !gp_value_get_double(gp_obj_get(row, "total_ns"), &d) ||
		    (k = dtype_of(name)) == NDTYPES)
			continue;
		ns[k] += d;
		sum += d;
	}
	for (k = 0; sum > 0 && k < NDTYPES; k++)
		if (ns[k] > 0 && (best == NDTYPES || ns[k] > ns[best]))
			best = k;
	*share = best < NDTYPES ? 100 * ns[best] / sum : NAN;
	return best;
}

/*
 * The vendor of the GPUs that ran (overview.devices[].vendor, of the active
 * ones when any is): "an NVIDIA GPU" or "an AMD GPU", NULL when unknown or
 * mixed. Tells
 * two runs apart where a trace names no GPU (no deviceProperties).
 */
static const char *gpu_vendor(const struct gp_value *r)
{
	const struct gp_value *devs = gp_value_path(r, "overview/devices");
	const char *v = NULL;
	bool any_active = false;
	size_t i;

	for (i = 0; i < gp_value_len(devs); i++)
		any_active |= gp_value_get_bool(gp_obj_get(gp_arr_get(devs, i), "active"), false);
	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);
		const char *dv = gp_value_get_str(gp_obj_get(d, "vendor"));

		if (any_active && !gp_value_get_bool(gp_obj_get(d, "active"), false))
			continue;
		if (!dv || (v && strcmp(v, dv) != 0))
			return NULL;
		v = dv;
	}
	return !v                         ? NULL
	       : strcmp(v, "nvidia") == 0 ? "an NVIDIA GPU"
	       : strcmp(v, "amd") == 0    ? "an AMD GPU"
	                                  : NULL;
}

/* true the first time @p bit is asked for: each warning once per comparison */
static bool once(struct gp__cmp *c, unsigned bit)
{
	bool first = !(c->unlike_warned & bit);

	c->unlike_warned |= bit;
	return first;
}

static int comparable(struct gp__cmp *c, const char *name, const struct gp_value *br,
                      const struct gp_value *nr)
{
	struct gp_buf gb = GP_BUF_INIT, gn = GP_BUF_INIT;
	double sb, sn;
	char pb[16], pn[16];
	size_t kb, kn;
	const char *vb = gpu_vendor(br), *vn = gpu_vendor(nr);
	int64_t wb, wn;
	int rc = 0;

	GP_TRY(gpu_models(br, &gb));
	GP_TRY(gpu_models(nr, &gn));
	if (gb.len && gn.len && strcmp(gb.buf, gn.buf) != 0 && once(c, 1u))
		GP_TRY(gp__cmp_warn(c, "gpu_differs",
		                    "%s: the runs are on different GPUs (base %s, new %s): times "
		                    "differ for that reason too, not only for the change",
		                    name, gb.buf, gn.buf));
	else if ((!gb.len || !gn.len) && vb && vn && strcmp(vb, vn) != 0 && once(c, 1u))
		GP_TRY(gp__cmp_warn(c, "gpu_differs",
		                    "%s: the runs are on different GPUs (base %s, new %s): times "
		                    "differ for that reason too, not only for the change",
		                    name, gb.len ? gb.buf : vb, gn.len ? gn.buf : vn));
	if (gp_value_get_int(gp_value_path(br, "overview/distributed/world_size"), &wb) &&
	    gp_value_get_int(gp_value_path(nr, "overview/distributed/world_size"), &wn) &&
	    wb != wn && once(c, 2u))
		GP_TRY(gp__cmp_warn(c, "world_size_differs",
		                    "%s: the world size differs (base %lld ranks, new %lld): "
		                    "communication and the work per rank differ for that reason "
		                    "too",
		                    name, (long long)wb, (long long)wn));
	kb = precision(br, &sb);
	kn = precision(nr, &sn);
	if (kb < NDTYPES && kn < NDTYPES && kb != kn && once(c, 4u))
		GP_TRY(gp__cmp_warn(c, "precision_differs",
		                    "%s: the kernels run in another precision: mostly %s in base "
		                    "(%s of the kernel time whose element type the names "
		                    "show), mostly %s in new (%s); a precision change alone "
		                    "changes the times",
		                    name, dtypes[kb],
		                    gp__fmt_pct(pb, sizeof(pb), sb, GP__FMT_WHOLE), dtypes[kn],
		                    gp__fmt_pct(pn, sizeof(pn), sn, GP__FMT_WHOLE)));
out:
	gp__buf_release(&gb);
	gp__buf_release(&gn);
	return rc;
}

static int compare_pair(struct gp__cmp *c, const struct gp_value *br, const struct gp_value *nr)
{
	struct gp_value *g, *metrics = gp_value_array(), *expl, *t;
	int64_t rb = 0, rn = 0;
	double *sb = NULL, *sn = NULL;
	size_t nb = 0, nn = 0;
	char name[48];
	int rc = 0;

	gp_value_get_int(gp_obj_get(br, "rank"), &rb);
	gp_value_get_int(gp_obj_get(nr, "rank"), &rn);
	snprintf(name, sizeof(name), "rank %lld", (long long)rb);
	if (!metrics || !(g = gp__cmp_push_obj(c->groups))) {
		gp_value_free(metrics);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	if (gp_obj_set(g, "metrics", metrics) || gp_obj_set_str(g, "name", name) ||
	    gp_obj_set_int(g, "base_rank", rb) || gp_obj_set_int(g, "new_rank", rn) ||
	    !(expl = gp_value_array()) || gp_obj_set(g, "explanations", expl))
		return gp__error(GP_ENOMEM, "out of memory");

	if (!(sb = step_times(br, &nb)) || !(sn = step_times(nr, &nn)))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__cmp_sampled(c, name, &m_step, sb, nb, sn, nn, metrics, NULL));
	if (nb != nn && nb && nn)
		GP_TRY(
		    gp__cmp_warn(c, "steps_differ",
		                 "%s: base has %zu complete steps and new %zu: totals (GPU busy, "
		                 "compute, kernel time, the tables' total time) cover different "
		                 "amounts of work; compare step time and per-call time",
		                 name, nb, nn));
	GP_TRY(comparable(c, name, br, nr));
	GP_TRY(single_metrics(c, br, nr, metrics));

	GP_TRY(gp__cmp_table(c, name, br, nr, "kernels", &t));
	if (t && gp_obj_set(g, "kernels", t))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__cmp_table(c, name, br, nr, "cpu_ops", &t));
	if (t && gp_obj_set(g, "operators", t))
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	GP_TRY(gp__cmp_explain_rank(c, br, nr, g));
	GP_TRY(gp__cmp_perf(c, name, br, nr, g));
out:
	gp__free(sb);
	gp__free(sn);
	return rc;
}

/* the rank objects of @p report selected by --rank */
static size_t select_ranks(const struct gp__cmp *c, const struct gp_value *report,
                           const struct gp_value **out, size_t cap)
{
	const struct gp_value *ranks = gp_obj_get(report, "ranks");
	size_t i, n = 0;

	for (i = 0; i < gp_value_len(ranks) && n < cap; i++) {
		const struct gp_value *r = gp_arr_get(ranks, i);
		int64_t k = -1;

		gp_value_get_int(gp_obj_get(r, "rank"), &k);
		if (c->rank < 0 || k == c->rank)
			out[n++] = r;
	}
	return n;
}

int gp__cmp_reports(struct gp__cmp *c, const struct gp_value *base, const struct gp_value *new_)
{
	size_t cb = gp_value_len(gp_obj_get(base, "ranks")),
	       cn = gp_value_len(gp_obj_get(new_, "ranks"));
	const struct gp_value **bl = gp__calloc(cb + 1, sizeof(*bl));
	const struct gp_value **nl = gp__calloc(cn + 1, sizeof(*nl));
	const char *cpb = gp_value_get_str(gp_obj_get(base, "compat"));
	const char *cpn = gp_value_get_str(gp_obj_get(new_, "compat"));
	size_t nb, nn, i, j, pairs = 0;
	int rc = 0;

	if (!bl || !nl)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	nb = select_ranks(c, base, bl, cb);
	nn = select_ranks(c, new_, nl, cn);
	if (c->rank >= 0 && (!nb || !nn)) {
		struct gp_buf b;

		gp__buf_init(&b, 0);
		rc = gp__doc_ranks_list(!nb ? base : new_, &b);
		if (!rc)
			rc = gp__error(GP_EINVAL, "%s has no rank %lld (ranks: %s)",
			               !nb ? c->base_label : c->new_label, (long long)c->rank,
			               b.buf);
		gp__buf_release(&b);
		goto out;
	}
	if (cpb && cpn && strcmp(cpb, cpn) != 0)
		GP_TRY(gp__cmp_warn(c, "compat_differs",
		                    "the reports use different definitions (base --compat %s, new "
		                    "--compat %s): their numbers differ for that reason too",
		                    cpb, cpn));
	if (nb == 1 && nn == 1) {
		if (gp__cmp_rank_of(bl[0]) != gp__cmp_rank_of(nl[0]))
			GP_TRY(gp__cmp_warn(
			    c, "ranks_paired",
			    "each side has one rank: rank %lld (base) is compared with "
			    "rank %lld (new)",
			    (long long)gp__cmp_rank_of(bl[0]), (long long)gp__cmp_rank_of(nl[0])));
		GP_TRY(compare_pair(c, bl[0], nl[0]));
		goto out;
	}
	for (i = 0; i < nb; i++) {
		for (j = 0; j < nn && gp__cmp_rank_of(nl[j]) != gp__cmp_rank_of(bl[i]); j++)
			;
		if (j == nn) {
			GP_TRY(gp__cmp_unmatched_rank(c, "base", gp__cmp_rank_of(bl[i])));
			continue;
		}
		GP_TRY(compare_pair(c, bl[i], nl[j]));
		pairs++;
	}
	for (j = 0; j < nn; j++) {
		for (i = 0; i < nb && gp__cmp_rank_of(nl[j]) != gp__cmp_rank_of(bl[i]); i++)
			;
		if (i == nb)
			GP_TRY(gp__cmp_unmatched_rank(c, "new", gp__cmp_rank_of(nl[j])));
	}
	if (!pairs)
		GP_TRY(gp__error(GP_EINVAL, "%s and %s have no rank in common", c->base_label,
		                 c->new_label));
out:
	gp__free(bl);
	gp__free(nl);
	return rc;
}
