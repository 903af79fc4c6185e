/* SPDX-License-Identifier: MIT */
/*
 * test_modules.c - the "modules" section (modules.c), its text
 * (format-modules.c) and its finding (findings-modules.c) on hand-built
 * models with hand-computed answers: nesting, two calls of one class, a
 * kernel launched outside every module, overlapping kernels (union), a call
 * with no kernels, a module call on another thread, steps, module ranges
 * of annotate_modules(), Python-id ties, and the depth and node bounds.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/analyze.h"

static uint32_t track(struct gp_trace *t, int64_t pid, int64_t tid)
{
	uint32_t tr;

	assert_int_equal(gp__trace_track(t, pid, 0, tid, 0, &tr), 0);
	return tr;
}

static void pymod(struct gp_trace *t, const char *name, int64_t tid, int64_t ts, int64_t dur,
                  int64_t id)
{
	struct gp_py_module pm = {
		.ts = ts, .dur = dur, .track = track(t, 1, tid), .id = id, .parent = -1
	};
	char full[128];

	snprintf(full, sizeof(full), "nn.Module: %s", name);
	assert_int_equal(gp__strtab_intern(&t->strs, full, strlen(full), &pm.name), 0);
	assert_int_equal(gp__trace_add_py_module(t, &pm), 0);
}

/* a launch on thread (1, 1) at @p lts and its kernel on stream @p stream */
static void launch(struct gp_trace *t, const char *kname, int64_t lts, int64_t stream, int64_t ks,
                   int64_t kd, int64_t corr)
{
	tu_runtime(t, "cudaLaunchKernel", 1, 1, lts, 10, corr);
	tu_kernel(t, kname, 0, stream, ks, kd, corr);
}

static const struct gp_value *cls(const struct gp_value *r, const char *name)
{
	const struct gp_value *a = gp_value_path(r, "modules/classes");

	for (size_t i = 0; i < gp_value_len(a); i++)
		if (!strcmp(gp_value_get_str(gp_obj_get(gp_arr_get(a, i), "name")), name))
			return gp_arr_get(a, i);
	fail_msg("no class '%s'", name);
	return NULL;
}

/*
 * thread 1: Model_0 [0, 1000) > Block_0 [100, 400) > Linear_0 [150, 300);
 * Block_1 [500, 800); Dropout_0 [850, 900) launches nothing; thread 2:
 * Other_0 [0, 2000). Kernels: gemm [200, 300) launched in Linear_0 under
 * aten::linear, add [250, 400) on another stream launched in Block_0 under
 * aten::add (overlapping gemm), k3 [600, 650) in Block_1, and k4 [1200,
 * 1300) launched at 1100, outside every module.
 */
static struct gp_trace *model_trace(void)
{
	struct gp_trace *t = tu_trace_new();

	pymod(t, "Model_0", 1, 0, 1000, 10);
	pymod(t, "Block_0", 1, 100, 300, 11);
	pymod(t, "Linear_0", 1, 150, 150, 12);
	pymod(t, "Block_1", 1, 500, 300, 13);
	pymod(t, "Dropout_0", 1, 850, 50, 14);
	pymod(t, "Other_0", 2, 0, 2000, 15);
	tu_add(t, GP_K_CPU_OP, "aten::linear", 1, 1, 155, 25);
	launch(t, "gemm", 160, 7, 200, 100, 1);
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 340, 30);
	launch(t, "add", 350, 8, 250, 150, 2);
	launch(t, "k3", 550, 7, 600, 50, 3);
	launch(t, "k4", 1100, 7, 1200, 100, 4);
	return t;
}

static void test_tree_and_classes(void **state)
{
	struct gp_trace *t = model_trace();
	struct gp_value *r = tu_section(t, false, gp__an_modules);
	const struct gp_value *b, *m;

	(void)state;
	assert_string_equal(tu_gets(r, "modules/source"), "python_function");
	assert_int_equal(tu_geti(r, "modules/steps"), 0);
	assert_int_equal(gp_value_type(gp_value_path(r, "modules/truncated")), GP_VALUE_NULL);
	/* sorted by GPU time, then name: Block and Model tie at 250 */
	assert_int_equal(gp_value_len(gp_value_path(r, "modules/classes")), 5);
	assert_string_equal(tu_gets(r, "modules/classes/0/name"), "Block");
	assert_string_equal(tu_gets(r, "modules/classes/1/name"), "Model");
	assert_string_equal(tu_gets(r, "modules/classes/2/name"), "Linear");

	/* the model: the union of gemm, add (overlapping) and k3; k4 is outside */
	m = cls(r, "Model");
	assert_int_equal(tu_geti(m, "count"), 1);
	assert_int_equal(tu_geti(m, "gpu_time_ns"), 200 + 50);
	assert_int_equal(tu_geti(m, "host_time_ns"), 1000);
	assert_int_equal(gp_value_type(gp_obj_get(m, "step_pct")), GP_VALUE_NULL);

	/* two blocks: [200, 400) = 200 and 50; mean 125, sample σ √(2 × 75²) = 106.07 */
	b = cls(r, "Block");
	assert_int_equal(tu_geti(b, "count"), 2);
	assert_int_equal(tu_geti(b, "gpu_time_ns"), 250);
	assert_int_equal(tu_geti(b, "host_time_ns"), 600);
	assert_int_equal(tu_geti(b, "mean_gpu_ns"), 125);
	assert_int_equal(tu_geti(b, "std_gpu_ns"), 106);
	assert_string_equal(tu_gets(b, "slowest/0/instance"), "Block_0");
	assert_int_equal(tu_geti(b, "slowest/0/gpu_time_ns"), 200);
	assert_int_equal(tu_geti(b, "slowest/0/start_ns"), 100);
	assert_string_equal(tu_gets(b, "slowest/1/instance"), "Block_1");
	/* kernels and operators of the class, by GPU time */
	assert_string_equal(tu_gets(b, "top_kernels/0/name"), "add");
	assert_int_equal(tu_geti(b, "top_kernels/0/gpu_time_ns"), 150);
	assert_string_equal(tu_gets(b, "top_kernels/1/name"), "gemm");
	assert_int_equal(tu_geti(b, "top_kernels/2/gpu_time_ns"), 50);
	assert_string_equal(tu_gets(b, "top_ops/0/name"), "aten::add");
	assert_int_equal(tu_geti(b, "top_ops/0/gpu_time_ns"), 150);
	assert_string_equal(tu_gets(b, "top_ops/1/name"), "aten::linear");
	assert_int_equal(gp_value_len(gp_obj_get(b, "top_ops")), 2); /* k3 had no operator */

	assert_int_equal(tu_geti(cls(r, "Linear"), "gpu_time_ns"), 100);
	/* a call with no kernels, a call on another thread: counted, no GPU time */
	assert_int_equal(tu_geti(cls(r, "Dropout"), "count"), 1);
	assert_int_equal(tu_geti(cls(r, "Dropout"), "gpu_time_ns"), 0);
	assert_int_equal(tu_geti(cls(r, "Other"), "gpu_time_ns"), 0);

	/* the tree: two roots at 0 by name, children in call order */
	assert_int_equal(gp_value_len(gp_value_path(r, "modules/tree")), 2);
	assert_string_equal(tu_gets(r, "modules/tree/0/name"), "Model_0");
	assert_string_equal(tu_gets(r, "modules/tree/0/class"), "Model");
	assert_string_equal(tu_gets(r, "modules/tree/1/name"), "Other_0");
	assert_string_equal(tu_gets(r, "modules/tree/0/children/0/name"), "Block_0");
	assert_string_equal(tu_gets(r, "modules/tree/0/children/0/children/0/name"), "Linear_0");
	assert_int_equal(tu_geti(r, "modules/tree/0/children/0/children/0/gpu_time_ns"), 100);
	assert_string_equal(tu_gets(r, "modules/tree/0/children/1/name"), "Block_1");
	assert_string_equal(tu_gets(r, "modules/tree/0/children/2/name"), "Dropout_0");
	assert_int_equal(tu_geti(r, "modules/tree/0/children/1/calls"), 1);
	gp_value_free(r);
	gp_trace_free(t);
}

/* the same path merges: Net_0 > Block_0 called in two forwards is one node of 2 calls */
static void test_tree_merges_paths(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	pymod(t, "Net_0", 1, 0, 100, -1);
	pymod(t, "Block_0", 1, 10, 50, -1);
	pymod(t, "Net_0", 1, 200, 100, -1);
	pymod(t, "Block_0", 1, 210, 50, -1);
	launch(t, "k", 20, 7, 30, 20, 1);
	launch(t, "k", 220, 7, 230, 30, 2);
	r = tu_section(t, false, gp__an_modules);
	assert_int_equal(gp_value_len(gp_value_path(r, "modules/tree")), 1);
	assert_int_equal(tu_geti(r, "modules/tree/0/calls"), 2);
	assert_int_equal(tu_geti(r, "modules/tree/0/host_time_ns"), 200);
	assert_int_equal(tu_geti(r, "modules/tree/0/children/0/calls"), 2);
	assert_int_equal(tu_geti(r, "modules/tree/0/children/0/gpu_time_ns"), 50);
	assert_int_equal(tu_geti(cls(r, "Block"), "count"), 2);
	gp_value_free(r);
	gp_trace_free(t);
}

/* only the calls inside ProfilerSteps count; step_pct over the steps' time */
static void test_steps(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000);
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#2", 1, 1, 1000, 1000);
	pymod(t, "Block_0", 1, 100, 500, -1);
	pymod(t, "Block_0", 1, 1100, 500, -1);
	pymod(t, "Block_0", 1, 3000, 500, -1); /* after the steps */
	launch(t, "k", 200, 7, 300, 100, 1);
	launch(t, "k", 1200, 7, 1300, 100, 2);
	launch(t, "k", 3100, 7, 3200, 100, 3);
	r = tu_section(t, false, gp__an_modules);
	assert_int_equal(tu_geti(r, "modules/steps"), 2);
	assert_int_equal(tu_geti(cls(r, "Block"), "count"), 2);
	assert_int_equal(tu_geti(cls(r, "Block"), "gpu_time_ns"), 200);
	assert_float_equal(tu_getd(cls(r, "Block"), "step_pct"), 10.0, 1e-9);
	gp_value_free(r);
	gp_trace_free(t);
}

/* the ranges of annotate_modules(): "PATH (Class)", the root "<root> (Class)" */
static void test_annotations(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "<root> (Net)", 1, 1, 0, 1000);
	tu_add(t, GP_K_USER_ANNOTATION, "step", 1, 1, 0, 1000);
	tu_add(t, GP_K_USER_ANNOTATION, "layers.0 (Linear)", 1, 1, 100, 200);
	tu_add(t, GP_K_USER_ANNOTATION, "net/layers.1 (Linear)", 1, 1, 400, 200);
	tu_add(t, GP_K_USER_ANNOTATION, "not a (module)", 1, 1, 400, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "x (two words)", 1, 1, 400, 100);
	tu_add(t, GP_K_USER_ANNOTATION, "y (9lives)", 1, 1, 400, 100);
	launch(t, "k", 150, 7, 200, 100, 1);
	r = tu_section(t, false, gp__an_modules);
	assert_string_equal(tu_gets(r, "modules/source"), "annotations");
	assert_int_equal(gp_value_len(gp_value_path(r, "modules/classes")), 2);
	assert_int_equal(tu_geti(cls(r, "Linear"), "count"), 2);
	assert_int_equal(tu_geti(cls(r, "Linear"), "gpu_time_ns"), 100);
	assert_int_equal(tu_geti(cls(r, "Net"), "gpu_time_ns"), 100);
	assert_string_equal(tu_gets(r, "modules/tree/0/name"), "<root>");
	assert_string_equal(tu_gets(r, "modules/tree/0/children/0/name"), "layers.0");
	assert_string_equal(tu_gets(r, "modules/tree/0/children/1/name"), "net/layers.1");
	gp_value_free(r);
	gp_trace_free(t);
}

/* at equal times the caller (smaller Python id) holds the callee, whatever the file order */
static void test_python_id_ties(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	pymod(t, "Inner_0", 1, 0, 100, 6);
	pymod(t, "Outer_0", 1, 0, 100, 5);
	r = tu_section(t, false, gp__an_modules);
	assert_int_equal(gp_value_len(gp_value_path(r, "modules/tree")), 1);
	assert_string_equal(tu_gets(r, "modules/tree/0/name"), "Outer_0");
	assert_string_equal(tu_gets(r, "modules/tree/0/children/0/name"), "Inner_0");
	gp_value_free(r);
	gp_trace_free(t);
}

/* hostile nesting and fan-out: bounded, and said so */
static void test_bounds(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *n;
	char name[32];
	int depth = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "Deep_%d", i);
		pymod(t, name, 1, i, 1000 - 2 * i, -1);
	}
	for (int i = 0; i < 10001; i++) {
		snprintf(name, sizeof(name), "Wide_%d", i);
		pymod(t, name, 1, 2000 + i, 1, -1);
	}
	r = tu_section(t, false, gp__an_modules);
	assert_int_equal(tu_geti(r, "modules/truncated/calls_dropped"), 100 - 64);
	assert_int_equal(tu_geti(r, "modules/truncated/nodes_dropped"), 64 + 10001 - 10000);
	assert_int_equal(tu_geti(cls(r, "Deep"), "count"), 64);
	assert_int_equal(tu_geti(cls(r, "Wide"), "count"), 10001);
	for (n = gp_value_path(r, "modules/tree/0"); n; depth++)
		n = gp_arr_get(gp_obj_get(n, "children"), 0);
	assert_int_equal(depth, 64);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_no_modules(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "forward", 1, 1, 0, 100);
	launch(t, "k", 10, 7, 20, 10, 1);
	r = tu_section(t, false, gp__an_modules);
	assert_non_null(gp_obj_get(r, "modules"));
	assert_int_equal(gp_value_type(gp_obj_get(r, "modules")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

static const struct gp_value *finding(const struct gp_value *doc, const char *id)
{
	const struct gp_value *f = gp_obj_get(doc, "findings");

	for (size_t i = 0; i < gp_value_len(f); i++)
		if (!strcmp(gp_value_get_str(gp_obj_get(gp_arr_get(f, i), "id")), id))
			return gp_arr_get(f, i);
	return NULL;
}

/* the text of rank object @p rank, as a report of one rank */
static char *format(const struct gp_value *rank)
{
	struct gp_analyze_format_opts o = { .size = sizeof(o), .width = 100 };
	struct gp_value *doc = gp_value_object(), *ranks = gp_value_array();
	char *text = NULL;

	assert_non_null(doc);
	assert_int_equal(gp_obj_set(doc, "ranks", ranks), 0);
	assert_int_equal(gp_arr_push(ranks, gp_value_clone(rank)), 0);
	assert_int_equal(gp_analyze_format(doc, &o, &text, NULL), 0);
	gp_value_free(doc);
	return text;
}

/* one Block call of four takes 4× the others: a finding, and the text says it all */
static void test_hotspot_and_text(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *doc;
	const struct gp_value *f;
	char *text;

	(void)state;
	pymod(t, "Net_0", 1, 0, 10000, -1);
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "Block_%d", i);
		pymod(t, name, 1, 1000 * (i + 1), 500, -1);
		launch(t, "k", 1000 * (i + 1) + 10, 7, 1000 * (i + 1) + 100, i == 2 ? 400 : 100,
		       i + 1);
	}
	doc = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(doc, "module-hotspot");
	assert_non_null(f);
	assert_string_equal(gp_value_get_str(gp_value_path(f, "evidence/slowest")), "Block_2");
	/* mean (100 × 3 + 400) / 4 = 175, the excess 225 of 700 ns busy */
	assert_int_equal(tu_geti(f, "evidence/mean_gpu_ns"), 175);
	assert_int_equal(tu_geti(f, "evidence/excess_gpu_ns"), 225);
	assert_string_equal(gp_value_get_str(gp_obj_get(f, "severity")), "medium");
	text = format(doc);
	assert_non_null(strstr(text, "\nModules (nn.Module calls, whole trace)\n"));
	assert_non_null(strstr(text, "Block 700 ns (4 calls), per call avg 175 ns"));
	assert_non_null(strstr(text, "slowest Block_2 400 ns"));
	assert_non_null(strstr(text, "  Block ×4"));
	gp_free(text);
	gp_value_free(doc);
	gp_trace_free(t);

	/* equal calls: no finding; no modules: no Modules block */
	t = tu_trace_new();
	for (int i = 0; i < 4; i++) {
		pymod(t, "Block_0", 1, 1000 * i, 500, -1);
		launch(t, "k", 1000 * i + 10, 7, 1000 * i + 100, 100, i + 1);
	}
	doc = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(doc, "module-hotspot"));
	gp_value_free(doc);
	gp_trace_free(t);
	t = tu_trace_new();
	launch(t, "k", 10, 7, 100, 100, 1);
	doc = tu_analyze(t, GP_COMPAT_NONE);
	text = format(doc);
	assert_null(strstr(text, "Modules"));
	gp_free(text);
	gp_value_free(doc);
	gp_trace_free(t);
}

/* under --compat hta the calls take HTA's µs rounding, as the events do */
static void test_hta_rounding(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	t->ts_float = true;
	pymod(t, "Block_0", 1, 1500, 3000, -1); /* [1.5, 4.5) µs -> [2, 4) */
	launch(t, "k", 2000, 7, 2000, 1000, 1); /* the call [2, 2.01) µs -> dur < 0, kept as HTA */
	r = tu_section(t, true, gp__an_modules);
	assert_int_equal(tu_geti(cls(r, "Block"), "host_time_ns"), 2000);
	assert_int_equal(tu_geti(cls(r, "Block"), "gpu_time_ns"), 1000);
	gp_value_free(r);
	gp_trace_free(t);
}

/* every allocation failing in turn: GP_ENOMEM, nothing leaked, until the whole section is made */
static void test_alloc_failures(void **state)
{
	struct gp_trace *t = model_trace();
	struct gp_analyze_opts o = { .size = sizeof(o) };
	struct gp__actx c;
	int rc = -1;

	(void)state;
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	for (long n = 1; rc != 0 && n < 100000; n++) {
		struct gp_value *r = gp_value_object();

		assert_non_null(r);
		gp__test_fail_alloc_after(n);
		rc = gp__an_modules(&c, r);
		gp__test_fail_alloc_after(0);
		assert_true(rc == 0 || rc == GP_ENOMEM);
		if (!rc)
			assert_int_equal(tu_geti(r, "modules/classes/0/gpu_time_ns"), 250);
		gp_value_free(r);
	}
	assert_int_equal(rc, 0);
	gp__actx_release(&c);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_and_classes),
		cmocka_unit_test(test_tree_merges_paths),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_python_id_ties),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_no_modules),
		cmocka_unit_test(test_hotspot_and_text),
		cmocka_unit_test(test_hta_rounding),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
