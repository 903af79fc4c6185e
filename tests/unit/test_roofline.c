/* SPDX-License-Identifier: MIT */
/*
 * test_roofline.c - the roofline section over small synthetic traces with
 * hand-computed answers: kernels to the op that launched them (External id,
 * else time), the union of an op's kernels, FLOPs counted once, coverage,
 * MFU, the peaks of the table and of the options, and what is missing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/roofline-int.h"
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

/* what attr_trace() adds around its op calls, to take the other paths to the same answer */
enum {
	A_EXT = 1,    /* External ids on the ops and their calls */
	A_MANY = 2,   /* 300 ops that launch nothing between a call and its op's start */
	A_NEST = 4,   /* a launching call that holds another one of its thread */
	A_TIE = 8,    /* a call of another thread that starts with one of the first */
	A_DRIVER = 16 /* a launching call that is a driver call */
};

/*
 * Thread 1: aten::add [4] (0-100 µs) holds an aten::mul [8] (1-2 µs) that
 * launches K1; the add launches K2 and, after the ops of A_MANY, K3 (and K5
 * from the call of A_NEST around the call of K2). A launch under no op on
 * thread 1 (K4) belongs to none. A_TIE: thread 2's aten::sub [16] launches
 * KT. The add's kernels start before and after the mul's: its GPU work is
 * not in op order.
 */
static struct gp_trace *attr_trace(unsigned f)
{
	struct gp_trace *t = tu_trace_new();
	size_t add, mul, sub = 0, l1, l2, l3, l4, ln = 0, lt = 0, i;

	set_meta(t, H100);
	add = tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 0, 100000);
	op_args(t, add, "[[4], [4], []]", "[\"float\", \"float\", \"Scalar\"]");
	mul = tu_add(t, GP_K_CPU_OP, "aten::mul", 1, 1, 1000, 1000);
	op_args(t, mul, "[[8], [8]]", "[\"float\", \"float\"]");
	if (f & A_TIE) {
		sub = tu_add(t, GP_K_CPU_OP, "aten::sub", 1, 2, 0, 100000);
		op_args(t, sub, "[[16], [16], []]", "[\"float\", \"float\", \"Scalar\"]");
		lt = tu_runtime(t, "cudaLaunchKernel", 1, 2, 1200, 100, 6);
		tu_kernel(t, "sub_kernel", 0, 7, 20000, 1000, 6);
	}
	l1 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 1200, 100, 1);
	if (f & A_DRIVER)
		t->ev.kind[l1] = GP_K_DRIVER;
	if (f & A_NEST)
		ln = tu_runtime(t, "cudaLaunchKernel", 1, 1, 4000, 3000, 5);
	l2 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 5000, 100, 2);
	for (i = 0; (f & A_MANY) && i < 300; i++)
		tu_add(t, GP_K_CPU_OP, "aten::empty", 1, 1, 8000 + 200 * (int64_t)i, 100);
	l3 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 95000, 100, 3);
	l4 = tu_runtime(t, "cudaLaunchKernel", 1, 1, 200000, 100, 4);
	tu_kernel(t, "add_kernel", 0, 7, 10000, 1000, 2);
	tu_kernel(t, "mul_kernel", 0, 7, 12000, 1000, 1);
	tu_kernel(t, "add_kernel", 0, 7, 14000, 1000, 3);
	tu_kernel(t, "other_kernel", 0, 7, 30000, 1000, 4);
	if (f & A_NEST)
		tu_kernel(t, "add_kernel", 0, 8, 14500, 1000, 5);
	if (f & A_EXT) {
		t->ev.ext[add] = 1;
		t->ev.ext[mul] = 2;
		t->ev.ext[l1] = 2;
		t->ev.ext[l2] = t->ev.ext[l3] = 1;
		if (f & A_NEST)
			t->ev.ext[ln] = 1;
		if (f & A_TIE)
			t->ev.ext[sub] = t->ev.ext[lt] = 3;
	}
	(void)l4;
	return t;
}

/* the row of op @p name, asserting there is one */
static const struct gp_value *row_of(const struct gp_value *r, const char *name)
{
	const struct gp_value *ops = gp_value_path(r, "roofline/ops");
	size_t k;

	for (k = 0; k < gp_value_len(ops); k++) {
		const struct gp_value *o = gp_arr_get(ops, k);

		if (strcmp(gp_value_get_str(gp_obj_get(o, "name")), name) == 0)
			return o;
	}
	fail_msg("no row of %s", name);
	return NULL;
}

static int64_t row_int(const struct gp_value *o, const char *key)
{
	int64_t v = -1;

	assert_true(gp_value_get_int(gp_obj_get(o, key), &v));
	return v;
}

/*
 * Every way of finding an op (External id; by time: the look-back, the sweep
 * where the look-back is long or a call holds another, the launching calls
 * sorted where two start at once or one is a driver call) gives each kernel
 * to the same op, and an op's work that is not in op order to one call.
 */
static void test_attribution_paths(void **state)
{
	static const unsigned flags[] = { 0,
		                          A_EXT,
		                          A_MANY,
		                          A_NEST,
		                          A_TIE,
		                          A_DRIVER,
		                          A_MANY | A_NEST | A_TIE,
		                          A_EXT | A_MANY | A_NEST | A_TIE | A_DRIVER };
	size_t k;

	(void)state;
	for (k = 0; k < GP_ARRAY_SIZE(flags); k++) {
		unsigned f = flags[k];
		struct gp_trace *t = attr_trace(f);
		struct gp_value *r = tu_section(t, false, gp__an_roofline);
		const struct gp_value *add = row_of(r, "aten::add"), *mul = row_of(r, "aten::mul");
		int64_t add_ns = f & A_NEST ? 2500 : 2000, sub_ns = f & A_TIE ? 1000 : 0;

		assert_int_equal(gp_value_len(gp_value_path(r, "roofline/ops")), f & A_TIE ? 3 : 2);
		assert_int_equal(row_int(add, "count"), 1);
		assert_int_equal(row_int(add, "gpu_time_ns"), add_ns);
		assert_int_equal(row_int(mul, "count"), 1);
		assert_int_equal(row_int(mul, "gpu_time_ns"), 1000);
		if (f & A_TIE)
			assert_int_equal(row_int(row_of(r, "aten::sub"), "gpu_time_ns"), 1000);
		/* K4 under no op: GPU time, not modeled */
		assert_int_equal(tu_geti(r, "roofline/gpu_time_ns"), add_ns + 1000 + sub_ns + 1000);
		assert_int_equal(tu_geti(r, "roofline/modeled_gpu_time_ns"),
		                 add_ns + 1000 + sub_ns);
		gp_value_free(r);
		gp_trace_free(t);
	}
}

/*
 * A launching call that outlasts the op around it closes it for the calls
 * after it on its thread (the sweep's stack): a kernel launched inside the
 * op after such a call belongs to the op's parent, as before the look-back.
 */
static void test_call_outlasts_op(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t outer, inner;

	(void)state;
	set_meta(t, H100);
	outer = tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 0, 100000);
	op_args(t, outer, "[[4], [4], []]", "[\"float\", \"float\", \"Scalar\"]");
	inner = tu_add(t, GP_K_CPU_OP, "aten::mul", 1, 1, 1000, 9000);
	op_args(t, inner, "[[8], [8]]", "[\"float\", \"float\"]");
	/* in the mul until 5 µs, then past its end (10 µs) */
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 2000, 9000, 1);
	/* inside the mul, but the call above closed it */
	tu_runtime(t, "cudaLaunchKernel", 1, 1, 3000, 100, 2);
	tu_kernel(t, "k1", 0, 7, 20000, 1000, 1);
	tu_kernel(t, "k2", 0, 7, 22000, 1000, 2);
	r = tu_section(t, false, gp__an_roofline);
	assert_int_equal(gp_value_len(gp_value_path(r, "roofline/ops")), 1);
	assert_int_equal(row_int(row_of(r, "aten::add"), "count"), 1);
	assert_int_equal(row_int(row_of(r, "aten::add"), "gpu_time_ns"), 2000);
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * The groups of one (dims, name) come out by (types, concrete) whatever the
 * order they were made in: here in the reverse of their concrete inputs'
 * string ids (interned first in the other order), which an insertion sort
 * of the run took O(n^2) for. Groups of another dims, made before, stay
 * apart and first by dims' string id.
 */
static void test_group_order(void **state)
{
	enum { K = 300 };
	struct gp_trace *t = tu_trace_new();
	struct gp_analyze_opts o;
	struct gp__actx c;
	struct gp__roof_calls rc;
	uint32_t conc[K], dims4, dims8;
	size_t k;
	char buf[32];

	(void)state;
	dims8 = str(t, "[[8], [8], []]");
	dims4 = str(t, "[[4], [4], []]");
	for (k = 0; k < K; k++) {
		snprintf(buf, sizeof(buf), "[\"\", \"\", \"%zu\"]", k);
		conc[k] = str(t, buf);
	}
	for (k = 0; k < 2 * K; k++) {
		/* first dims8 with concrete 0..K-1, then dims4 with K-1..0 */
		size_t op = tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 100 * (int64_t)k, 50);
		struct gp_op_args oa = { 0 };

		oa.dims = k < K ? dims8 : dims4;
		oa.types = str(t, "[\"float\", \"float\", \"Scalar\"]");
		oa.concrete = conc[k < K ? k : 2 * K - 1 - k];
		assert_int_equal(gp__trace_add_op_args(t, op, &oa), 0);
		tu_runtime(t, "cudaLaunchKernel", 1, 1, 100 * (int64_t)k + 10, 10, (int64_t)k + 1);
		tu_kernel(t, "k", 0, 7, 100 * (int64_t)k + 30, 10, (int64_t)k + 1);
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	assert_int_equal(gp__actx_init(&c, t, &o, 0), 0);
	assert_int_equal(gp__roof_calls(&c, &rc), 0);
	assert_int_equal(rc.ng, 2 * K);
	for (k = 0; k < 2 * K; k++) {
		assert_int_equal(rc.g[k].dims, k < K ? dims8 : dims4);
		assert_int_equal(rc.g[k].conc, conc[k % K]);
		assert_int_equal(rc.g[k].n, 1);
	}
	gp__roof_calls_release(&rc);
	gp__actx_release(&c);
	gp_trace_free(t);
}

/*
 * Every allocation of the section failing in turn, ops found by External id
 * and by time: GP_ENOMEM each time, nothing leaked (the device's objects
 * once leaked when the first of them could not be set).
 */
static void test_alloc_failures(void **state)
{
	struct gp_trace *a = gemm_trace(true), *b = gemm_trace(false);

	(void)state;
	assert_true(tu_section_torture(a, false, gp__an_roofline) > 1);
	assert_true(tu_section_torture(b, false, gp__an_roofline) > 1);
	gp_trace_free(a);
	gp_trace_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_by_ext),       cmocka_unit_test(test_gemm_by_time),
		cmocka_unit_test(test_unknown_gpu),       cmocka_unit_test(test_options),
		cmocka_unit_test(test_missing),           cmocka_unit_test(test_host_copy),
		cmocka_unit_test(test_capture),           cmocka_unit_test(test_no_work),
		cmocka_unit_test(test_attribution_paths), cmocka_unit_test(test_call_outlasts_op),
		cmocka_unit_test(test_group_order),       cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
