/* SPDX-License-Identifier: MIT */
/*
 * test_roofline.c - the roofline section over small synthetic traces with
 * hand-computed answers: kernels to the op that launched them (External id,
 * else time), the union of an op's kernels, FLOPs counted once, coverage,
 * MFU, the peaks of the table and of the options, and what is missing.
 */
#include <math.h>
#include <string.h>

#include "testutil.h"

#define H100                                                                                       \
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"numSms\": "    \
	"132, \"totalGlobalMem\": 85018279936}]}"

/* unknown: null, or a NaN double (written as null) */
static bool unknown(const struct gp_value *r, const char *path)
{
	double d;

	return gp_value_type(gp_value_path(r, path)) == GP_VALUE_NULL ||
	       !gp_value_get_double(gp_value_path(r, path), &d);
}

static void set_meta(struct gp_trace *t, const char *json)
{
	struct gp_value *m = NULL;

	assert_int_equal(gp_value_parse(json, strlen(json), &m, NULL), 0);
	gp_value_free(t->meta);
	t->meta = m;
}

static uint32_t str(struct gp_trace *t, const char *s)
{
	uint32_t id;

	assert_int_equal(gp__strtab_intern(&t->strs, s, strlen(s), &id), 0);
	return id;
}

static void op_args(struct gp_trace *t, size_t ev, const char *dims, const char *types)
{
	struct gp_op_args oa = { 0 };

	oa.dims = str(t, dims);
	oa.types = types ? str(t, types) : 0;
	assert_int_equal(gp__trace_add_op_args(t, ev, &oa), 0);
}

/*
 * A bf16 mm [1024, 2048] @ [2048, 4096] on an H100 SXM under an aten::matmul
 * that has shapes too; two kernels that overlap (union 60 µs); an op without
 * a model with a 10 µs kernel; window 100 µs.
 */
static struct gp_trace *gemm_trace(bool ext)
{
	struct gp_trace *t = tu_trace_new();
	size_t mm, matmul, foo, l1, l2, l3;

	set_meta(t, H100);
	matmul = tu_add(t, GP_K_CPU_OP, "aten::matmul", 1, 1, 0, 100000);
	op_args(t, matmul, "[[1024, 2048], [2048, 4096]]",
	        "[\"c10::BFloat16\", \"c10::BFloat16\"]");
	mm = tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 500, 90000);
	op_args(t, mm, "[[1024, 2048], [2048, 4096]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]");
	l1 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 1000, 5000, 1);
	l2 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 7000, 5000, 2);
	foo = tu_add(t, GP_K_CPU_OP, "aten::foo", 1, 1, 95000, 4000);
	op_args(t, foo, "[[8]]", "[\"float\"]");
	l3 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 96000, 1000, 3);
	tu_kernel(t, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 7, 10000, 50000, 1);
	tu_kernel(t, "sm90_xmma_gemm_bf16bf16_bf16f32", 0, 8, 40000, 30000, 2);
	tu_kernel(t, "foo_kernel", 0, 7, 100000, 10000, 3);
	if (ext) {
		t->ev.ext[matmul] = 9;
		t->ev.ext[mm] = 10;
		t->ev.ext[foo] = 11;
		t->ev.ext[l1] = t->ev.ext[l2] = 10;
		t->ev.ext[l3] = 11;
	}
	return t;
}

static void check_gemm(const struct gp_value *r)
{
	const double flops = 2.0 * 1024 * 4096 * 2048;
	const double bytes = (1024.0 * 2048 + 2048.0 * 4096 + 1024.0 * 4096) * 2;
	const double roof = flops / (989.5 * 1e3); /* compute-bound: ns at the bf16 peak */

	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/ops")), 1);
	assert_string_equal(tu_gets(r, "roofline/ops/0/name"), "aten::mm");
	assert_string_equal(tu_gets(r, "roofline/ops/0/dtype"), "bf16");
	assert_string_equal(tu_gets(r, "roofline/ops/0/model"), "gemm");
	assert_int_equal(tu_geti(r, "roofline/ops/0/count"), 1);
	assert_true(tu_getd(r, "roofline/ops/0/flops") == flops);
	assert_true(tu_getd(r, "roofline/ops/0/bytes") == bytes);
	assert_int_equal(tu_geti(r, "roofline/ops/0/gpu_time_ns"), 60000);
	assert_true(fabs(tu_getd(r, "roofline/ops/0/achieved_tflops") - flops / 60000 / 1e3) <
	            1e-9);
	assert_true(fabs(tu_getd(r, "roofline/ops/0/achieved_tbps") - bytes / 60000 / 1e3) < 1e-9);
	assert_true(fabs(tu_getd(r, "roofline/ops/0/arithmetic_intensity") - flops / bytes) < 1e-9);
	assert_string_equal(tu_gets(r, "roofline/ops/0/bound"), "compute");
	assert_true(tu_getd(r, "roofline/ops/0/peak_tflops") == 989.5);
	assert_true(fabs(tu_getd(r, "roofline/ops/0/roofline_pct") - 100 * roof / 60000) < 1e-9);
	assert_int_equal(tu_geti(r, "roofline/ops/0/headroom_ns"), llround(60000 - roof));
	assert_int_equal(tu_geti(r, "roofline/gpu_time_ns"), 70000);
	assert_int_equal(tu_geti(r, "roofline/modeled_gpu_time_ns"), 60000);
	assert_true(fabs(tu_getd(r, "roofline/coverage_pct") - 100.0 * 6 / 7) < 1e-9);
	/* the matmul around the mm launched nothing: its FLOPs are not counted again */
	assert_true(tu_getd(r, "roofline/model_flops") == flops);
	assert_int_equal(tu_geti(r, "roofline/mfu_window_ns"), 100000);
	assert_true(fabs(tu_getd(r, "roofline/mfu_pct") - 100 * roof / 100000) < 1e-9);
	assert_string_equal(tu_gets(r, "roofline/device/matched"), "H100 SXM");
	assert_string_equal(tu_gets(r, "roofline/device/source"), "table");
	assert_true(tu_getd(r, "roofline/device/peak_tbps") == 3.35);
	assert_true(fabs(tu_getd(r, "roofline/device/ridge_flops_per_byte/bf16") - 989.5 / 3.35) <
	            1e-6);
	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/missing")), 0);
}

static void test_gemm_by_ext(void **state)
{
	struct gp_trace *t = gemm_trace(true);
	struct gp_value *r = tu_section(t, false, gp__an_roofline);

	(void)state;
	check_gemm(r);
	gp_value_free(r);
	gp_trace_free(t);
}

/* no External ids (captures): the innermost op around the launch on its thread */
static void test_gemm_by_time(void **state)
{
	struct gp_trace *t = gemm_trace(false);
	struct gp_value *r = tu_section(t, false, gp__an_roofline);

	(void)state;
	check_gemm(r);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a capture: no External ids, sizes without types: FLOPs, no bytes nor roofline */
static void test_capture(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t op;

	(void)state;
	set_meta(t, H100);
	op = tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 0, 10000);
	op_args(t, op, "[[64, 128], [128, 256]]", NULL);
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 100, 100, 1);
	tu_kernel(t, "gemm", 0, 7, 1000, 2000, 1);
	r = tu_section(t, false, gp__an_roofline);
	assert_string_equal(tu_gets(r, "roofline/missing/0"), "dtypes");
	assert_true(tu_getd(r, "roofline/ops/0/flops") == 2.0 * 64 * 128 * 256);
	assert_int_equal(tu_geti(r, "roofline/ops/0/gpu_time_ns"), 2000);
	assert_true(unknown(r, "roofline/ops/0/bytes"));
	assert_true(unknown(r, "roofline/ops/0/roofline_pct"));
	assert_true(unknown(r, "roofline/mfu_pct"));
	assert_true(fabs(tu_getd(r, "roofline/ops/0/achieved_tflops") -
	                 2.0 * 64 * 128 * 256 / 2000 / 1e3) < 1e-9);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a GPU the table does not know: the op's numbers, no peak-dependent ones */
static void test_unknown_gpu(void **state)
{
	struct gp_trace *t = gemm_trace(true);
	struct gp_value *r;

	(void)state;
	set_meta(t, "{\"deviceProperties\": [{\"id\": 0, \"name\": \"AMD Radeon Graphics\", "
	            "\"numSms\": 104}]}");
	r = tu_section(t, false, gp__an_roofline);
	assert_string_equal(tu_gets(r, "roofline/missing/0"), "gpu not in table");
	assert_true(tu_getd(r, "roofline/ops/0/flops") == 2.0 * 1024 * 4096 * 2048);
	assert_int_equal(tu_geti(r, "roofline/ops/0/gpu_time_ns"), 60000);
	assert_true(unknown(r, "roofline/ops/0/roofline_pct"));
	assert_true(unknown(r, "roofline/ops/0/headroom_ns"));
	assert_int_equal(gp_value_type(gp_value_path(r, "roofline/ops/0/bound")), GP_VALUE_NULL);
	assert_true(unknown(r, "roofline/mfu_pct"));
	assert_int_equal(gp_value_type(gp_value_path(r, "roofline/device/matched")), GP_VALUE_NULL);
	assert_string_equal(tu_gets(r, "roofline/device/name"), "AMD Radeon Graphics");
	gp_value_free(r);
	/* no deviceProperties at all */
	set_meta(t, "{}");
	r = tu_section(t, false, gp__an_roofline);
	assert_string_equal(tu_gets(r, "roofline/missing/0"), "deviceProperties");
	gp_value_free(r);
	gp_trace_free(t);
}

/* --peak-tflops / --peak-tbps: every dtype at the option's peak */
static void test_options(void **state)
{
	struct gp_trace *t = gemm_trace(true);
	struct gp_analyze_opts o;
	struct gp__actx c;
	struct gp_value *r = gp_value_object();
	const double flops = 2.0 * 1024 * 4096 * 2048;
	const double bytes = (1024.0 * 2048 + 2048.0 * 4096 + 1024.0 * 4096) * 2;
	const double roof = fmax(flops / (1000 * 1e3), bytes / (0.5 * 1e3)); /* memory-bound */

	(void)state;
	set_meta(t, "{}");
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.peak_tflops = 1000;
	o.peak_tbps = 0.5;
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	assert_int_equal(gp__an_roofline(&c, r), 0);
	gp__actx_release(&c);
	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/missing")), 0);
	assert_string_equal(tu_gets(r, "roofline/device/source"), "option");
	assert_true(tu_getd(r, "roofline/device/peak_tflops/fp64") == 1000);
	assert_true(tu_getd(r, "roofline/ops/0/peak_tflops") == 1000);
	assert_string_equal(tu_gets(r, "roofline/ops/0/bound"), "memory");
	assert_true(fabs(tu_getd(r, "roofline/ops/0/roofline_pct") - 100 * roof / 60000) < 1e-9);
	/* faster than the roofline (a peak set too low): capped at 100 */
	gp_value_free(r);
	r = gp_value_object();
	o.peak_tflops = 100;
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	assert_int_equal(gp__an_roofline(&c, r), 0);
	gp__actx_release(&c);
	assert_true(tu_getd(r, "roofline/ops/0/roofline_pct") == 100);
	assert_int_equal(tu_geti(r, "roofline/ops/0/headroom_ns"), 0);
	/* the FLOPs would take 172 µs at that peak, in a window of 100 µs: MFU capped too */
	assert_true(tu_getd(r, "roofline/mfu_pct") == 100);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a GEMM of empty matrices does no work: bound by neither roof, all its time headroom */
static void test_no_work(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t mm, l;

	(void)state;
	set_meta(t, H100);
	mm = tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 0, 1000);
	op_args(t, mm, "[[0, 3], [3, 0]]", "[\"float\", \"float\"]");
	l = tu_runtime(t, "cudaLaunchKernel", 1, 1, 100, 50, 1);
	tu_kernel(t, "gemm", 0, 7, 200, 400, 1);
	t->ev.ext[mm] = t->ev.ext[l] = 5;
	r = tu_section(t, false, gp__an_roofline);
	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/ops")), 1);
	assert_true(tu_getd(r, "roofline/ops/0/flops") == 0);
	assert_true(unknown(r, "roofline/ops/0/bound"));
	assert_true(unknown(r, "roofline/ops/0/roofline_pct"));
	assert_int_equal(tu_geti(r, "roofline/ops/0/headroom_ns"), 400);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a trace without shapes says so; a rank without GPU work has no section */
static void test_missing(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t op, l;

	(void)state;
	set_meta(t, H100);
	r = tu_section(t, false, gp__an_roofline);
	assert_int_equal(gp_value_type(gp_value_path(r, "roofline")), GP_VALUE_NULL);
	gp_value_free(r);
	op = tu_add(t, GP_K_CPU_OP, "aten::mm", 1, 1, 0, 10000);
	l = tu_runtime(t, "cudaLaunchKernel", 1, 1, 100, 100, 1);
	tu_kernel(t, "gemm", 0, 7, 1000, 2000, 1);
	t->ev.ext[op] = t->ev.ext[l] = 5;
	r = tu_section(t, false, gp__an_roofline);
	assert_string_equal(tu_gets(r, "roofline/missing/0"), "shapes");
	assert_int_equal(tu_geti(r, "roofline/gpu_time_ns"), 2000);
	assert_true(tu_getd(r, "roofline/coverage_pct") == 0);
	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/ops")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a copy from the host is bound by the link: no model, counted against coverage */
static void test_host_copy(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t op, l, k;

	(void)state;
	set_meta(t, H100);
	op = tu_add(t, GP_K_CPU_OP, "aten::copy_", 1, 1, 0, 10000);
	op_args(t, op, "[[1024], [1024], []]", "[\"float\", \"float\", \"Scalar\"]");
	l = tu_runtime(t, "cudaMemcpyAsync", 1, 1, 100, 100, 1);
	k = tu_kernel(t, "Memcpy HtoD (Pinned -> Device)", 0, 7, 1000, 2000, 1);
	t->ev.kind[k] = GP_K_MEMCPY;
	t->ev.ext[op] = t->ev.ext[l] = 5;
	r = tu_section(t, false, gp__an_roofline);
	assert_int_equal(tu_geti(r, "roofline/gpu_time_ns"), 2000);
	assert_int_equal(tu_geti(r, "roofline/modeled_gpu_time_ns"), 0);
	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/ops")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_by_ext), cmocka_unit_test(test_gemm_by_time),
		cmocka_unit_test(test_unknown_gpu), cmocka_unit_test(test_options),
		cmocka_unit_test(test_missing),     cmocka_unit_test(test_host_copy),
		cmocka_unit_test(test_capture),     cmocka_unit_test(test_no_work),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
