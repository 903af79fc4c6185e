/* SPDX-License-Identifier: MIT */
/*
 * test_findings.c - each findings rule on small synthetic traces: one that
 * triggers it (with hand-computed evidence) and one that must not; the
 * evidence equals the numbers of the sections it is read from, and a rule
 * whose section is absent does not fire.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "gpuprof/analyze.h"

#define US 1000

static const struct gp_value *finding(const struct gp_value *r, const char *id)
{
	const struct gp_value *f = gp_obj_get(r, "findings");
	size_t i;

	assert_int_equal(gp_value_type(f), GP_VALUE_ARRAY);
	for (i = 0; i < gp_value_len(f); i++) {
		const struct gp_value *x = gp_arr_get(f, i);

		if (strcmp(gp_value_get_str(gp_obj_get(x, "id")), id) == 0) {
			/* every finding has all its fields */
			assert_non_null(gp_value_get_str(gp_obj_get(x, "severity")));
			assert_non_null(gp_value_get_str(gp_obj_get(x, "title")));
			assert_non_null(gp_value_get_str(gp_obj_get(x, "suggestion")));
			assert_int_equal(gp_value_type(gp_obj_get(x, "evidence")), GP_VALUE_OBJECT);
			assert_non_null(gp_obj_get(x, "impact_pct"));
			return x;
		}
	}
	return NULL;
}

static int64_t ev_int(const struct gp_value *f, const char *key)
{
	int64_t v = -12345;

	assert_true(gp_value_get_int(gp_obj_get(gp_obj_get(f, "evidence"), key), &v));
	return v;
}

static double ev_dbl(const struct gp_value *f, const char *key)
{
	double v = -1;

	assert_true(gp_value_get_double(gp_obj_get(gp_obj_get(f, "evidence"), key), &v));
	return v;
}

static const char *sev(const struct gp_value *f)
{
	return gp_value_get_str(gp_obj_get(f, "severity"));
}

/* a kernel with its launch call on thread (1, 1) */
static size_t launched(struct gp_trace *t, const char *name, int64_t stream, int64_t launch_ts,
                       int64_t launch_dur, int64_t ts, int64_t dur, int64_t corr)
{
	tu_runtime(t, "cudaLaunchKernel", 1, 1, launch_ts, launch_dur, corr);
	return tu_kernel(t, name, 0, stream, ts, dur, corr);
}

static void test_no_gpu(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 0, 100 * US);
	tu_add(t, GP_K_CPU_OP, "aten::mul", 1, 1, 200 * US, 100 * US);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "no-gpu");
	assert_non_null(f);
	assert_string_equal(sev(f), "info");
	assert_int_equal(ev_int(f, "cpu_ops"), 2);
	assert_int_equal(ev_int(f, "span_ns"), 300 * US);
	assert_int_equal(gp_value_len(gp_obj_get(r, "findings")), 1);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_gpu_idle_host_bound(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	int k;

	(void)state;
	/* 5 kernels of 10 µs every 100 µs, each launched 5 µs before it starts */
	for (k = 0; k < 5; k++)
		launched(t, "k", 7, k * 100 * US + 5 * US, 2 * US, k * 100 * US + 10 * US, 10 * US,
		         k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "no-gpu"));
	f = finding(r, "gpu-idle");
	assert_non_null(f);
	/* window [10, 420) µs = 410, busy 50, idle 360 */
	assert_int_equal(ev_int(f, "window_ns"), 410 * US);
	assert_int_equal(ev_int(f, "busy_ns"), 50 * US);
	assert_int_equal(ev_int(f, "idle_ns"), 360 * US);
	assert_int_equal(ev_int(f, "stream_sum_host_wait_ns"), 360 * US);
	assert_int_equal(ev_int(f, "stream_sum_kernel_wait_ns"), 0);
	assert_int_equal(ev_int(f, "stream_sum_host_wait_ns"),
	                 tu_geti(r, "gpu/idle_breakdown_total/host_wait_ns"));
	assert_int_equal(ev_int(f, "streams"), 1);
	assert_string_equal(sev(f), "high");
	assert_non_null(strstr(gp_value_get_str(gp_obj_get(f, "title")), "host"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* bursts queued ahead of the GPU, idle between them: host wait, not launch overhead */
static void test_gpu_idle_backlog(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	const char *title;
	int b, i;

	(void)state;
	/* 3 bursts 1 ms apart: 10 launches of 1 µs, their kernels 200 µs later */
	for (b = 0; b < 3; b++)
		for (i = 0; i < 10; i++)
			launched(t, "k", 7, b * 1000 * US + i * US, US,
			         b * 1000 * US + 200 * US + i * 10 * US, 10 * US, b * 10 + i + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "gpu-idle");
	assert_non_null(f);
	assert_true(ev_int(f, "launch_delay_p50_ns") >= 100 * US);
	title = gp_value_get_str(gp_obj_get(f, "title"));
	assert_non_null(strstr(title, "between bursts"));
	assert_null(strstr(title, "host-bound"));
	assert_null(strstr(gp_value_get_str(gp_obj_get(f, "suggestion")), "graph"));
	assert_null(finding(r, "launch-bound"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_gpu_busy_no_idle(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	/* back to back: 4 kernels of 50 µs with 1 µs gaps: idle 3/203 < 20 % */
	for (k = 0; k < 4; k++)
		launched(t, "k", 7, k * US, US, k * 51 * US + 10 * US, 50 * US, k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "gpu-idle"));
	assert_null(finding(r, "launch-bound"));
	assert_int_equal(gp_value_len(gp_obj_get(r, "findings")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_launch_bound(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	int k;

	(void)state;
	/* 60 kernels of 3 µs, each launched by a 5 µs call, one every 6 µs */
	for (k = 0; k < 60; k++)
		launched(t, "small", 7, k * 6 * US, 5 * US, k * 6 * US + 5 * US, 3 * US, k + 1);
	/* a 1 µs memcpy launched by a 2 µs call: a short launch too (launches section) */
	tu_runtime(t, "cudaMemcpyAsync", 1, 1, 400 * US, 2 * US, 100);
	t->ev.kind[tu_kernel(t, "Memcpy DtoD (Device -> Device)", 0, 7, 403 * US, US, 100)] =
	    GP_K_MEMCPY;
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "launch-bound");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "kernels"), 61);
	assert_int_equal(ev_int(f, "kernel_med_ns"), 3 * US);
	assert_int_equal(ev_int(f, "kernels_shorter_than_launch"), 61);
	assert_true(ev_dbl(f, "kernels_shorter_than_launch_pct") ==
	            tu_getd(r, "launches/short_kernels/pct"));
	assert_int_equal(ev_int(f, "launch_calls_ns"), 60 * 5 * US + 2 * US);
	assert_int_equal(ev_int(f, "gpu_busy_ns"), 60 * 3 * US + US);
	/* a share of the kernels, not of a kernel's duration ("100% shorter") */
	assert_string_equal(
	    tu_gets(f, "title"),
	    "Launch-bound: 61 launches, median kernel 3.000 µs, 100% of the kernels "
	    "shorter than their launch call");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_not_launch_bound(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	/* 60 kernels of 20 µs, launched well ahead by 5 µs calls */
	for (k = 0; k < 60; k++)
		launched(t, "big", 7, k * 6 * US, 5 * US, 400 * US + k * 20 * US, 20 * US, k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "launch-bound"));
	assert_null(finding(r, "gpu-idle"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_dataloader(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	tu_add(t, GP_K_USER_ANNOTATION,
	       "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 0, 100 * US);
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 200 * US, 100 * US);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "dataloader");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "dataloader_ns"), 100 * US);
	assert_int_equal(ev_int(f, "step_total_ns"), 1000 * US);
	assert_true(ev_dbl(f, "dataloader_pct") > 9.99 && ev_dbl(f, "dataloader_pct") < 10.01);
	assert_string_equal(sev(f), "medium");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_dataloader_small(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	tu_add(t, GP_K_USER_ANNOTATION,
	       "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 0, 20 * US);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "dataloader"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_sync_in_step(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	tu_runtime(t, "cudaStreamSynchronize", 1, 1, 500 * US, 100 * US, -1);
	tu_add(t, GP_K_CPU_OP, "aten::item", 1, 1, 700 * US, 50 * US);
	tu_add(t, GP_K_CPU_OP, "aten::_local_scalar_dense", 1, 1, 710 * US, 40 * US);
	/* outside the step: not counted */
	tu_runtime(t, "cudaDeviceSynchronize", 1, 1, 2000 * US, 100 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "sync-in-step");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "sync_calls"), 1);
	assert_int_equal(ev_int(f, "sync_ns"), 100 * US);
	assert_int_equal(ev_int(f, "item_calls"), 1);
	assert_int_equal(ev_int(f, "item_ns"), 50 * US);
	assert_int_equal(ev_int(f, "host_blocked_ns"), 150 * US);
	assert_string_equal(sev(f), "medium"); /* 15 % of the step */
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_sync_outside_step(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 400 * US);
	tu_runtime(t, "cudaDeviceSynchronize", 1, 1, 500 * US, 100 * US, -1);
	tu_add(t, GP_K_CPU_OP, "aten::add", 1, 1, 100 * US, 10 * US);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "sync-in-step"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* without ProfilerStep the one step is the traced window, and the title says so */
static void test_sync_no_steps(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	const char *title;

	(void)state;
	launched(t, "k", 7, 0, US, 10 * US, 500 * US, 1);
	tu_runtime(t, "cudaStreamSynchronize", 1, 1, 20 * US, 490 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "sync-in-step");
	assert_non_null(f);
	title = tu_gets(f, "title");
	assert_null(strstr(title, "inside the step"));
	assert_non_null(strstr(title, "in the traced window (no ProfilerStep)"));
	assert_int_equal(ev_int(f, "profiler_steps"), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

/* a blocking DtoH copy: its launch call is listed, and the parts add up to host_blocked_ns */
static void test_sync_parts_add_up(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	size_t i;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	tu_add(t, GP_K_CPU_OP, "aten::item", 1, 1, 100 * US, 4 * US);
	/* a cudaMemcpy of 400 µs (host), its copy 5 µs on the GPU */
	tu_runtime(t, "cudaMemcpy", 1, 1, 200 * US, 400 * US, 9);
	i = tu_kernel(t, "Memcpy DtoH (Device -> Pageable)", 0, 7, 595 * US, 5 * US, 9);
	t->ev.kind[i] = GP_K_MEMCPY;
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "sync-in-step");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "item_ns"), 4 * US);
	assert_int_equal(ev_int(f, "dtoh_copy_call_ns"), 400 * US);
	assert_int_equal(ev_int(f, "dtoh_copy_gpu_ns"), 5 * US);
	assert_int_equal(ev_int(f, "host_blocked_ns"), 404 * US);
	assert_int_equal(ev_int(f, "sync_ns") + ev_int(f, "item_ns") +
	                     ev_int(f, "dtoh_copy_call_ns") - ev_int(f, "parts_overlap_ns"),
	                 ev_int(f, "host_blocked_ns"));
	assert_non_null(
	    strstr(tu_gets(f, "title"), "most in the device-to-host copy's launch call"));
	assert_non_null(strstr(tu_gets(f, "suggestion"), "blocking device-to-host cop"));
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * 60 kernels of 20 µs, launched by 5 µs calls, and one first launch call of
 * 50 ms (module loading): the launch calls cover the busy time only through
 * the outlier, so not launch-bound; gpu-idle names the outlier instead
 */
static void test_launch_outlier(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	int k;

	(void)state;
	launched(t, "first", 7, 0, 50000 * US, 50000 * US + 5 * US, 20 * US, 1);
	for (k = 1; k < 60; k++)
		launched(t, "k", 7, 50000 * US + k * 100 * US, 5 * US,
		         50000 * US + k * 100 * US + 10 * US, 20 * US, k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "launch-bound"));
	f = finding(r, "gpu-idle");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "slowest_launch_call_ns"), 50000 * US);
	assert_int_equal(ev_int(f, "launch_call_med_ns"), 5 * US);
	assert_int_equal(ev_int(f, "typical_launch_calls_ns"), 59 * 5 * US);
	assert_int_equal(ev_int(f, "outlier_launch_calls"), 1);
	assert_string_equal(tu_gets(gp_obj_get(f, "evidence"), "slowest_launch_call_first_of"),
	                    "first");
	assert_non_null(strstr(tu_gets(f, "suggestion"), "CUDA_MODULE_LOADING"));
	assert_non_null(strstr(tu_gets(f, "suggestion"), "not launch-bound"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* launch-bound and gpu-idle on the same idle time say how they relate */
static void test_launch_bound_relates(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	int k;

	(void)state;
	/* 60 kernels of 3 µs, each launched by a 20 µs call, one every 25 µs */
	for (k = 0; k < 60; k++)
		launched(t, "small", 7, k * 25 * US, 20 * US, k * 25 * US + 21 * US, 3 * US, k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "launch-bound");
	assert_non_null(f);
	assert_non_null(strstr(tu_gets(f, "suggestion"), "gpu-idle"));
	f = finding(r, "gpu-idle");
	assert_non_null(f);
	assert_non_null(strstr(tu_gets(f, "suggestion"), "launch-bound"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* a sync call during the GPU's idle time: gpu-idle and sync-in-step name each other */
static void test_sync_idle_related(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	launched(t, "k", 7, 5 * US, 2 * US, 10 * US, 10 * US, 1);
	tu_runtime(t, "cudaStreamSynchronize", 1, 1, 25 * US, 875 * US, -1);
	launched(t, "k", 7, 905 * US, 2 * US, 910 * US, 10 * US, 2);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "gpu-idle");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "sync_blocked_while_idle_ns"), 875 * US);
	assert_non_null(strstr(tu_gets(f, "suggestion"), "sync-in-step"));
	f = finding(r, "sync-in-step");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "blocked_while_gpu_idle_ns"), 875 * US);
	assert_non_null(strstr(tu_gets(f, "suggestion"), "gpu-idle"));
	gp_value_free(r);
	gp_trace_free(t);
}

static size_t memcpy_ev(struct gp_trace *t, const char *name, int64_t ts, int64_t dur,
                        int64_t bytes)
{
	size_t i = tu_kernel(t, name, 0, 7, ts, dur, -1);

	t->ev.kind[i] = GP_K_MEMCPY;
	t->gpu[t->ev.aux[i]].bytes = bytes;
	return i;
}

static void test_pageable(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	memcpy_ev(t, "Memcpy HtoD (Pageable -> Device)", 0, 10 * US, 4096);
	memcpy_ev(t, "Memcpy HtoD (Pinned -> Device)", 10 * US, 10 * US, 1000);
	memcpy_ev(t, "Memcpy DtoH (Device -> Pageable)", 20 * US, 30 * US, 2048);
	tu_kernel(t, "k", 0, 7, 50 * US, 50 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "pageable-copies");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "copies"), 2);
	assert_int_equal(ev_int(f, "bytes"), 6144);
	assert_int_equal(ev_int(f, "copy_ns"), 40 * US);
	assert_string_equal(sev(f), "medium"); /* 40 % of the window */
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_pinned_only(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	memcpy_ev(t, "Memcpy HtoD (Pinned -> Device)", 0, 10 * US, 1000);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "pageable-copies"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void set_cc(struct gp_trace *t, int major)
{
	char json[200];
	struct gp_value *m = NULL;

	snprintf(json, sizeof(json),
	         "{\"deviceProperties\":[{\"id\":0,\"name\":\"X\",\"computeMajor\":%d,"
	         "\"computeMinor\":0,\"numSms\":80}]}",
	         major);
	assert_int_equal(gp_value_parse(json, strlen(json), &m, NULL), 0);
	gp_value_free(t->meta);
	t->meta = m;
}

static void test_fp32_gemm(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	set_cc(t, 8);
	tu_kernel(t, "ampere_sgemm_128x64_nn", 0, 7, 0, 80 * US, -1);
	tu_kernel(t, "ampere_s16816gemm_fp16_128x128", 0, 7, 80 * US, 10 * US, -1);
	tu_kernel(t, "elementwise_kernel", 0, 7, 90 * US, 10 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "fp32-gemm-no-tc");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "kernel_ns"), 100 * US);
	assert_int_equal(ev_int(f, "gemm_conv_ns"), 90 * US);
	assert_int_equal(ev_int(f, "gemm_conv_no_tc_ns"), 80 * US);
	assert_int_equal(ev_int(f, "gemm_conv_no_tc_kernels"), 1);
	assert_string_equal(sev(f), "high");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_fp32_gemm_old_gpu(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	set_cc(t, 6);
	tu_kernel(t, "maxwell_sgemm_128x64_nn", 0, 7, 0, 80 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "fp32-gemm-no-tc"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_fp32_gemm_unknown_cc(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_kernel(t, "ampere_sgemm_128x64_nn", 0, 7, 0, 80 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "fp32-gemm-no-tc"));
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * Two streams idle at the same time: HTA's per-stream breakdown counts that
 * time once per stream, so the evidence says which numbers are sums over
 * streams and keeps the union (idle_ns) beside the window.
 */
static void test_gpu_idle_streams_summed(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f, *ev;
	int k;

	(void)state;
	for (k = 0; k < 5; k++) {
		launched(t, "a", 7, k * 100 * US + 5 * US, 2 * US, k * 100 * US + 10 * US, 10 * US,
		         2 * k + 1);
		launched(t, "b", 8, k * 100 * US + 5 * US, 2 * US, k * 100 * US + 10 * US, 10 * US,
		         2 * k + 2);
	}
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "gpu-idle");
	assert_non_null(f);
	ev = gp_obj_get(f, "evidence");
	assert_int_equal(ev_int(f, "window_ns"), 410 * US);
	assert_int_equal(ev_int(f, "idle_ns"), 360 * US);
	assert_int_equal(ev_int(f, "streams"), 2);
	/* 360 µs of idle on each stream: 720 µs, more than the window, and named as a sum */
	assert_int_equal(ev_int(f, "stream_sum_host_wait_ns"), 720 * US);
	assert_null(gp_obj_get(ev, "host_wait_ns"));
	assert_true(ev_dbl(f, "host_wait_share_pct") > 99.9);
	/* every other *_ns of the evidence fits in the window */
	for (size_t i = 0; i < gp_value_len(ev); i++) {
		const char *k2 = gp_obj_key_at(ev, i);
		int64_t v;

		if (strncmp(k2, "stream_sum_", 11) != 0 && strstr(k2, "_ns") &&
		    gp_value_get_int(gp_obj_value_at(ev, i), &v))
			assert_true(v <= 410 * US);
	}
	gp_value_free(r);
	gp_trace_free(t);
}

/* findings with no measurable impact (16 bytes, 0.0 % of the window) are not listed */
static void test_no_impact_not_listed(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 100000 * US);
	/* a busy GPU: 100 ms of back-to-back kernels */
	for (k = 0; k < 100; k++)
		launched(t, "k", 7, k * US, US, 100 * US + k * 1000 * US, 1000 * US, k + 1);
	/* one 16-byte pageable copy of 2 µs and a 5 µs sync: 0.0 % */
	memcpy_ev(t, "Memcpy HtoD (Pageable -> Device)", 50000 * US, 2 * US, 16);
	tu_runtime(t, "cudaStreamSynchronize", 1, 1, 60000 * US, 5 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "pageable-copies"));
	assert_null(finding(r, "sync-in-step"));
	assert_int_equal(gp_value_len(gp_obj_get(r, "findings")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

/* "1 copy", "1 sync call": one of each reads in the singular */
static void test_plurals(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	const char *title;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	launched(t, "k", 7, 0, US, 10 * US, 500 * US, 1);
	memcpy_ev(t, "Memcpy HtoD (Pageable -> Device)", 600 * US, 100 * US, 100);
	tu_runtime(t, "cudaStreamSynchronize", 1, 1, 700 * US, 100 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "pageable-copies");
	assert_non_null(f);
	title = gp_value_get_str(gp_obj_get(f, "title"));
	assert_non_null(strstr(title, "1 copy from"));
	f = finding(r, "sync-in-step");
	assert_non_null(f);
	title = gp_value_get_str(gp_obj_get(f, "title"));
	assert_non_null(strstr(title, "1 sync call"));
	assert_null(strstr(title, "1 sync calls"));
	/* kinds with no instance are not listed */
	assert_null(strstr(title, ": 0 "));
	assert_null(strstr(title, ", 0 "));
	gp_value_free(r);
	gp_trace_free(t);
}

static void set_props(struct gp_trace *t, const char *name, int major, int minor, int warp)
{
	char json[300];
	struct gp_value *m = NULL;

	snprintf(json, sizeof(json),
	         "{\"deviceProperties\":[{\"id\":0,\"name\":\"%s\",\"computeMajor\":%d,"
	         "\"computeMinor\":%d,\"warpSize\":%d,\"totalGlobalMem\":17179869184}]}",
	         name, major, minor, warp);
	assert_int_equal(gp_value_parse(json, strlen(json), &m, NULL), 0);
	gp_value_free(t->meta);
	t->meta = m;
}

static const struct gp_value *fp32_on(struct gp_value **r, struct gp_trace *t, const char *gemm)
{
	tu_kernel(t, gemm, 0, 7, 0, 80 * US, -1);
	tu_kernel(t, "elementwise_kernel", 0, 7, 80 * US, 20 * US, -1);
	*r = tu_analyze(t, GP_COMPAT_NONE);
	return finding(*r, "fp32-gemm-no-tc");
}

/* Volta has float16 Tensor Cores only: no bfloat16 autocast, no TF32 */
static void test_fp32_gemm_volta(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r = NULL;
	const struct gp_value *f;
	const char *sg;

	(void)state;
	set_props(t, "Tesla V100-SXM2-16GB", 7, 0, 32);
	f = fp32_on(&r, t, "volta_sgemm_128x64_nn");
	assert_non_null(f);
	sg = gp_value_get_str(gp_obj_get(f, "suggestion"));
	assert_non_null(strstr(sg, "torch.float16"));
	assert_non_null(strstr(sg, "GradScaler"));
	assert_null(strstr(sg, "torch.bfloat16"));
	assert_null(strstr(sg, "allow_tf32"));
	assert_null(strstr(sg, "set_float32_matmul_precision"));
	assert_non_null(strstr(gp_value_get_str(gp_obj_get(f, "title")), "sm_70"));
	assert_string_equal(gp_value_get_str(gp_obj_get(gp_obj_get(f, "evidence"), "vendor")),
	                    "nvidia");
	assert_string_equal(
	    gp_value_get_str(gp_obj_get(gp_obj_get(f, "evidence"), "compute_capability")), "7.0");
	gp_value_free(r);
	gp_trace_free(t);
}

/* Ampere on: bfloat16 and TF32 */
static void test_fp32_gemm_ampere(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r = NULL;
	const struct gp_value *f;
	const char *sg;

	(void)state;
	set_props(t, "NVIDIA A100-SXM4-40GB", 8, 0, 32);
	f = fp32_on(&r, t, "ampere_sgemm_128x64_nn");
	assert_non_null(f);
	sg = gp_value_get_str(gp_obj_get(f, "suggestion"));
	assert_non_null(strstr(sg, "torch.bfloat16"));
	assert_non_null(strstr(sg, "allow_tf32"));
	assert_null(strstr(sg, "FP8"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* AMD (HIP reports 9.4 for an MI300X): ROCm's words, not NVIDIA's */
static void test_fp32_gemm_amd(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r = NULL;
	const struct gp_value *f;
	const char *sg, *title;

	(void)state;
	set_props(t, "AMD Instinct MI300X", 9, 4, 64);
	/* a Tensile GEMM without an MI (MFMA) tile, and one with: only the first is off them */
	tu_kernel(t, "Cijk_Alik_Bljk_SB_MT64x64x8_MI16x16x1_SN", 0, 7, 100 * US, 10 * US, -1);
	f = fp32_on(&r, t, "Cijk_Alik_Bljk_SB_MT64x64x8_SN");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "gemm_conv_ns"), 90 * US);
	assert_int_equal(ev_int(f, "gemm_conv_no_tc_ns"), 80 * US);
	sg = gp_value_get_str(gp_obj_get(f, "suggestion"));
	title = gp_value_get_str(gp_obj_get(f, "title"));
	assert_non_null(strstr(title, "Matrix Cores"));
	assert_null(strstr(title, "Tensor Core"));
	assert_null(strstr(title, "sm_"));
	assert_non_null(strstr(sg, "torch.bfloat16"));
	assert_non_null(strstr(sg, "hipBLASLt"));
	assert_null(strstr(sg, "Tensor Core"));
	assert_null(strstr(sg, "TF32"));
	assert_string_equal(gp_value_get_str(gp_obj_get(gp_obj_get(f, "evidence"), "vendor")),
	                    "amd");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_exposed_comm(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;

	(void)state;
	tu_kernel(t, "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 20, 0, 50 * US, -1);
	tu_kernel(t, "gemm_kernel", 0, 7, 40 * US, 60 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "exposed-comm");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "comm_ns"), 50 * US);
	assert_int_equal(ev_int(f, "exposed_comm_ns"), 40 * US);
	assert_int_equal(ev_int(f, "window_ns"), 100 * US);
	assert_true(ev_dbl(f, "comm_comp_overlap_pct") == tu_getd(r, "gpu/comm_comp_overlap_pct"));
	assert_string_equal(sev(f), "high");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_comm_overlapped(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_kernel(t, "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 20, 10 * US, 50 * US, -1);
	tu_kernel(t, "gemm_kernel", 0, 7, 0, 100 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "exposed-comm"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void occ_kernels(struct gp_trace *t, double occ)
{
	size_t a = tu_kernel(t, "k1", 0, 7, 0, 30 * US, -1);
	size_t b = tu_kernel(t, "k2", 0, 7, 30 * US, 10 * US, -1);
	size_t z = tu_kernel(t, "k3", 0, 7, 40 * US, 10 * US, -1);

	t->gpu[t->ev.aux[a]].occupancy_pct = occ;
	t->gpu[t->ev.aux[b]].occupancy_pct = occ + 40.0;
	t->gpu[t->ev.aux[z]].occupancy_pct = 0.0; /* counted, as in tb_plugin */
}

static void test_low_occupancy(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	double occ;

	(void)state;
	occ_kernels(t, 10.0); /* gpu_utilization: (10·30 + 50·10 + 0·10) / 50 = 16 */
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "low-occupancy");
	assert_non_null(f);
	occ = ev_dbl(f, "est_achieved_occupancy_pct");
	assert_true(occ > 15.99 && occ < 16.01);
	assert_true(occ == tu_getd(r, "gpu_utilization/0/achieved_occupancy_pct"));
	assert_int_equal(ev_int(f, "device"), 0);
	assert_true(ev_dbl(f, "gpu_utilization_pct") > 99.99); /* back to back */
	assert_string_equal(sev(f), "low");
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_good_occupancy(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	occ_kernels(t, 50.0); /* (50·30 + 90·10 + 0) / 50 = 48 */
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "low-occupancy"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* every kernel reporting 0 (an sm90 artefact): occupancy unknown, no finding */
static void test_zero_occupancy(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	size_t a;

	(void)state;
	a = tu_kernel(t, "k1", 0, 7, 0, 30 * US, -1);
	t->gpu[t->ev.aux[a]].occupancy_pct = 0.0;
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_true(tu_getd(r, "gpu_utilization/0/achieved_occupancy_pct") == 0.0);
	assert_null(finding(r, "low-occupancy"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_queue_saturated(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	int k;

	(void)state;
	/* 1100 launches 1 ns apart, kernels of 10 ns from 10 µs on, in order */
	for (k = 0; k < 1100; k++)
		launched(t, "q", 7, k, 1, 10000 + 10 * k, 10, k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "queue-saturated");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "max_queue_depth"), 1100);
	/* depth 1024 at the 1024th launch (ts 1023) until the 77th start (ts 10760) */
	assert_int_equal(ev_int(f, "time_at_limit_ns"), 10760 - 1023);
	assert_int_equal(ev_int(f, "time_at_limit_ns"),
	                 tu_geti(r, "launches/queue/0/time_at_limit_ns"));
	assert_true(ev_dbl(f, "time_at_limit_pct") ==
	            tu_getd(r, "launches/queue/0/time_at_limit_pct"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* two streams at the limit at once: their times are a sum, and the title says so */
static void test_queue_saturated_streams(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	int k;

	(void)state;
	for (k = 0; k < 1100; k++) {
		launched(t, "q", 7, 2 * k, 1, 10000 + 10 * k, 10, 2 * k + 1);
		launched(t, "q", 8, 2 * k + 1, 1, 10000 + 10 * k, 10, 2 * k + 2);
	}
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = finding(r, "queue-saturated");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "streams_at_limit"), 2);
	assert_int_equal(ev_int(f, "time_at_limit_ns"),
	                 tu_geti(r, "launches/queue/0/time_at_limit_ns") +
	                     tu_geti(r, "launches/queue/1/time_at_limit_ns"));
	assert_non_null(strstr(tu_gets(f, "title"), "summed over the streams"));
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_queue_short(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	for (k = 0; k < 100; k++)
		launched(t, "q", 7, k, 1, 10000 + 10 * k, 10, k + 1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_null(finding(r, "queue-saturated"));
	gp_value_free(r);
	gp_trace_free(t);
}

/* --top cuts the tables after findings: the median kernel is still exact */
static void test_launch_bound_top(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_analyze_opts o;
	struct gp_value *r = NULL;
	const struct gp_value *f;
	int k;

	(void)state;
	for (k = 0; k < 60; k++)
		launched(t, k % 2 ? "small_a" : "small_b", 7, k * 6 * US, 5 * US,
		         k * 6 * US + 5 * US, 3 * US, k + 1);
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.only_rank = -1;
	o.top = 1;
	assert_int_equal(gp_analyze_trace(t, &o, 0, &r), 0);
	f = finding(r, "launch-bound");
	assert_non_null(f);
	assert_int_equal(ev_int(f, "kernel_med_ns"), 3 * US);
	assert_int_equal(tu_geti(r, "kernels_omitted/rows"), 1);
	assert_int_equal(ev_int(f, "kernels_shorter_than_launch"), 60);
	gp_value_free(r);
	gp_trace_free(t);
}

/* findings alone, without the sections it reads: no rule fires */
static void test_no_sections(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	int k;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 1000 * US);
	for (k = 0; k < 60; k++)
		launched(t, "small", 7, k * 6 * US, 5 * US, k * 6 * US + 5 * US, 3 * US, k + 1);
	tu_runtime(t, "cudaStreamSynchronize", 1, 1, 500 * US, 100 * US, -1);
	r = tu_section(t, false, gp__an_findings);
	assert_int_equal(gp_value_type(gp_obj_get(r, "findings")), GP_VALUE_ARRAY);
	assert_int_equal(gp_value_len(gp_obj_get(r, "findings")), 0);
	gp_value_free(r);
	gp_trace_free(t);
}

static void test_ranking(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;
	const struct gp_value *f;
	size_t i;
	int last = -1;

	(void)state;
	/* idle (high), pageable copy (low or medium), sync (low) */
	tu_add(t, GP_K_USER_ANNOTATION, "ProfilerStep#1", 1, 1, 0, 10000 * US);
	launched(t, "k", 7, 0, US, 10 * US, 10 * US, 1);
	launched(t, "k", 7, 5000 * US, US, 5000 * US + 10 * US, 10 * US, 2);
	memcpy_ev(t, "Memcpy HtoD (Pageable -> Device)", 100 * US, 500 * US, 100);
	tu_runtime(t, "cudaDeviceSynchronize", 1, 1, 6000 * US, 300 * US, -1);
	r = tu_analyze(t, GP_COMPAT_NONE);
	f = gp_obj_get(r, "findings");
	assert_true(gp_value_len(f) >= 3);
	assert_string_equal(gp_value_get_str(gp_obj_get(gp_arr_get(f, 0), "id")), "gpu-idle");
	for (i = 0; i < gp_value_len(f); i++) {
		static const char *const order[] = { "high", "medium", "low", "info" };
		const char *s = sev(gp_arr_get(f, i));
		int k;

		for (k = 0; k < 4 && strcmp(s, order[k]); k++)
			;
		assert_true(k < 4);
		assert_true(k >= last);
		last = k;
	}
	gp_value_free(r);
	gp_trace_free(t);
}

/*
 * The whole analysis of a trace with a gpu-idle finding, each allocation
 * failing in turn: GP_ENOMEM each time (a finding whose evidence could not
 * be set once freed it twice).
 */
static void test_alloc_failures(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_analyze_opts o;
	long n;
	int k;

	(void)state;
	for (k = 0; k < 5; k++)
		launched(t, "k", 7, k * 100 * US + 5 * US, 2 * US, k * 100 * US + 10 * US, 10 * US,
		         k + 1);
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.only_rank = -1;
	o.threads = 1;
	for (n = 1;; n++) {
		struct gp_value *r = NULL;
		int rc;

		gp__test_fail_alloc_after(n);
		rc = gp_analyze_trace(t, &o, 0, &r);
		gp__test_fail_alloc_after(0);
		gp_value_free(r);
		if (!rc)
			break;
		assert_int_equal(rc, GP_ENOMEM);
	}
	assert_true(n > 1);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_gpu),
		cmocka_unit_test(test_gpu_idle_host_bound),
		cmocka_unit_test(test_gpu_idle_backlog),
		cmocka_unit_test(test_gpu_busy_no_idle),
		cmocka_unit_test(test_launch_bound),
		cmocka_unit_test(test_not_launch_bound),
		cmocka_unit_test(test_dataloader),
		cmocka_unit_test(test_dataloader_small),
		cmocka_unit_test(test_sync_in_step),
		cmocka_unit_test(test_sync_outside_step),
		cmocka_unit_test(test_sync_no_steps),
		cmocka_unit_test(test_sync_parts_add_up),
		cmocka_unit_test(test_sync_idle_related),
		cmocka_unit_test(test_launch_outlier),
		cmocka_unit_test(test_launch_bound_relates),
		cmocka_unit_test(test_pageable),
		cmocka_unit_test(test_pinned_only),
		cmocka_unit_test(test_fp32_gemm),
		cmocka_unit_test(test_fp32_gemm_old_gpu),
		cmocka_unit_test(test_fp32_gemm_unknown_cc),
		cmocka_unit_test(test_fp32_gemm_volta),
		cmocka_unit_test(test_fp32_gemm_ampere),
		cmocka_unit_test(test_fp32_gemm_amd),
		cmocka_unit_test(test_gpu_idle_streams_summed),
		cmocka_unit_test(test_no_impact_not_listed),
		cmocka_unit_test(test_plurals),
		cmocka_unit_test(test_exposed_comm),
		cmocka_unit_test(test_comm_overlapped),
		cmocka_unit_test(test_low_occupancy),
		cmocka_unit_test(test_good_occupancy),
		cmocka_unit_test(test_zero_occupancy),
		cmocka_unit_test(test_queue_saturated),
		cmocka_unit_test(test_queue_saturated_streams),
		cmocka_unit_test(test_queue_short),
		cmocka_unit_test(test_launch_bound_top),
		cmocka_unit_test(test_no_sections),
		cmocka_unit_test(test_ranking),
		cmocka_unit_test(test_alloc_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
