/* SPDX-License-Identifier: MIT */
/*
 * test_annotate.c - the annotation API (include/gpuprof/annotate.h) and its
 * records:
 *  - the header with no tool: the first call runs the init, which leaves
 *    every entry NULL (later calls are one load and one branch; the cost is
 *    measured by bench/bench_annotate.c, not here); a missing library, a
 *    library without the entry point, a recorder that refuses: the same;
 *  - with GPUPROF_ANNOTATE_LIBRARY naming tests/fake/libfake-annotate.so:
 *    the table is filled once (also when threads race for the init), the
 *    calls arrive with their sites (name, file, line, function) and values,
 *    a recorder that fills only part of the table leaves the rest NULL;
 *  - GPUPROF_DISABLE (annotate_disabled.c, compiled with it): the macros
 *    compile and record nothing;
 *  - libgpuprof's entry points for bindings (gp_annotate_*): shared sites;
 *  - the capture reader: SITE records give ranges their source, COUNTER
 *    records become counter samples, marks become GP_EVF_MARK events, and
 *    the "counters" section summarises them.
 * Each test resets this module's table to its init stubs (the header's
 * internal names) so that the init runs again.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUPROF_ANNOTATE_BINDINGS
#include "capture/capfmt.h"
#include "capture/capture.h"
#include "gpuprof/annotate.h"

#ifndef FAKE_ANNOTATE_PATH
#error "FAKE_ANNOTATE_PATH: the path of libfake-annotate.so (tests/CMakeLists.txt)"
#endif

struct fake_annotate_counts {
	long inits, push, pop, frame, counter;
	double counter_sum;
	const struct gpuprof_site *last_site;
	int depth, max_depth;
};

/* annotate_disabled.c, compiled with GPUPROF_DISABLE */
int annotate_disabled_calls(void);

static const struct fake_annotate_counts *(*fake_counts)(void);
static void (*fake_reset)(void);

/* Back to the state before any call: the stubs, the init not run. */
static void reset_module(void)
{
	gpuprof_annotate_v1.push = gpuprof__annotate_push_stub_v1;
	gpuprof_annotate_v1.pop = gpuprof__annotate_pop_stub_v1;
	gpuprof_annotate_v1.frame = gpuprof__annotate_frame_stub_v1;
	gpuprof_annotate_v1.counter = gpuprof__annotate_counter_stub_v1;
	gpuprof__annotate_state_v1 = 0;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("GPUPROF_ANNOTATE_LIBRARY");
	unsetenv("FAKE_ANNOTATE_FAIL");
	unsetenv("FAKE_ANNOTATE_PARTIAL");
	reset_module();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("GPUPROF_ANNOTATE_LIBRARY");
	unsetenv("FAKE_ANNOTATE_FAIL");
	unsetenv("FAKE_ANNOTATE_PARTIAL");
	reset_module();
	if (fake_reset)
		fake_reset();
	return 0;
}

/* The fake's counters (the library is loaded by the first init that names it). */
static const struct fake_annotate_counts *counts(void)
{
	if (!fake_counts) {
		void *h = dlopen(FAKE_ANNOTATE_PATH, RTLD_NOW | RTLD_NOLOAD);

		assert_non_null(h);
		*(void **)&fake_counts = dlsym(h, "fake_annotate_counts");
		*(void **)&fake_reset = dlsym(h, "fake_annotate_reset");
		assert_non_null(fake_counts);
		assert_non_null(fake_reset);
		dlclose(h); /* still loaded: the init's handle stays open */
	}
	return fake_counts();
}

static void all_calls(int n)
{
	for (int i = 0; i < n; i++) {
		GPUPROF_RANGE_PUSH("outer");
		GPUPROF_RANGE_PUSH("inner");
		GPUPROF_RANGE_POP();
		GPUPROF_RANGE_POP();
		GPUPROF_FRAME();
		GPUPROF_COUNTER("queue", i);
	}
}

static void assert_empty_table(void)
{
	assert_int_equal(gpuprof__annotate_state_v1, 1);
	assert_null(gpuprof_annotate_v1.push);
	assert_null(gpuprof_annotate_v1.pop);
	assert_null(gpuprof_annotate_v1.frame);
	assert_null(gpuprof_annotate_v1.counter);
	assert_int_equal(gpuprof_annotate_attached(), 0);
}

/*
 * A fork while another thread of the parent ran the init: the child sees the
 * parent's "running" state, which no thread of its own will finish. Its calls
 * must not wait for it: they find no recorder (a forked child records nothing).
 */
static void test_fork_during_init(void **state)
{
	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", "/nonexistent/recorder.so", 1);
	gpuprof__annotate_state_v1 = (int)getppid() + 1; /* "another process runs it" */
	GPUPROF_FRAME();
	GPUPROF_RANGE_PUSH("after fork");
	GPUPROF_RANGE_POP();
	assert_empty_table();
}

/* no tool: each entry's first call runs the init, which empties the table */
static void test_no_tool(void **state)
{
	(void)state;
	assert_ptr_equal(gpuprof_annotate_v1.push, gpuprof__annotate_push_stub_v1);
	GPUPROF_COUNTER("first", 1); /* any entry may come first */
	assert_empty_table();
	all_calls(100000);
	assert_empty_table();
	/* an empty variable is no tool either */
	reset_module();
	setenv("GPUPROF_ANNOTATE_LIBRARY", "", 1);
	all_calls(10);
	assert_empty_table();
}

/* a library that cannot be loaded, or without the entry point: no tool, no crash */
static void test_bad_library(void **state)
{
	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", "/nonexistent/libgpuprof-inject.so", 1);
	all_calls(10);
	assert_empty_table();
	reset_module();
	setenv("GPUPROF_ANNOTATE_LIBRARY", "libc.so.6", 1); /* loads, has no init */
	all_calls(10);
	assert_empty_table();
}

/* the fake recorder: the table is filled and every call arrives with its site */
static void test_fake_recorder(void **state)
{
	static struct gpuprof_site mine = GPUPROF_SITE_INIT("mine");
	const struct fake_annotate_counts *c;
	long inits;
	int line;

	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	line = __LINE__ + 1;
	GPUPROF_RANGE_PUSH("first");
	c = counts();
	inits = c->inits;
	assert_true(inits >= 1);
	assert_int_equal(gpuprof_annotate_attached(), 1);
	assert_int_equal(c->push, 1);
	assert_string_equal(c->last_site->name, "first");
	assert_non_null(strstr(c->last_site->file, "test_annotate.c"));
	assert_int_equal(c->last_site->line, line);
	assert_string_equal(c->last_site->func, "test_fake_recorder");
	assert_int_equal(c->last_site->size, sizeof(struct gpuprof_site));
	assert_int_equal(c->last_site->tool, 1); /* written by the recorder */
	GPUPROF_RANGE_POP();
	all_calls(1000);
	assert_int_equal(c->push, 1 + 2000);
	assert_int_equal(c->pop, 1 + 2000);
	assert_int_equal(c->max_depth, 2);
	assert_int_equal(c->frame, 1000);
	assert_int_equal(c->counter, 1000);
	assert_true(c->counter_sum == 999.0 * 1000 / 2);
	assert_string_equal(c->last_site->name, "queue");
	/* one site per call site: its word counts the calls */
	gpuprof_range_push(&mine);
	gpuprof_range_push(&mine);
	gpuprof_range_pop();
	gpuprof_range_pop();
	assert_int_equal(mine.tool, 2);
	{
		GPUPROF_SCOPE("scoped");
		assert_int_equal(c->depth, 1);
	}
	assert_int_equal(c->depth, 0);
	GPUPROF_FRAME_NAMED("render");
	assert_string_equal(c->last_site->name, "render");
	assert_int_equal(c->inits, inits); /* the init ran once */
}

/* a recorder that refuses: the table ends empty even though it wrote into it */
static void test_recorder_refuses(void **state)
{
	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	setenv("FAKE_ANNOTATE_FAIL", "1", 1);
	all_calls(10);
	assert_empty_table();
	assert_int_equal(counts()->push, 0);
}

/* a recorder that fills part of the table: the other entries are NULL, not stubs */
static void test_partial_table(void **state)
{
	const struct fake_annotate_counts *c;

	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	setenv("FAKE_ANNOTATE_PARTIAL", "1", 1);
	GPUPROF_FRAME(); /* the first call is one of the missing entries */
	assert_non_null(gpuprof_annotate_v1.push);
	assert_non_null(gpuprof_annotate_v1.pop);
	assert_null(gpuprof_annotate_v1.frame);
	assert_null(gpuprof_annotate_v1.counter);
	all_calls(10);
	c = counts();
	assert_int_equal(c->push, 20);
	assert_int_equal(c->frame, 0);
	assert_int_equal(c->counter, 0);
}

static void *racer(void *arg)
{
	(void)arg;
	GPUPROF_RANGE_PUSH("race");
	GPUPROF_RANGE_POP();
	return NULL;
}

/* threads racing for the init: it runs once, and every call lands after it */
static void test_init_race(void **state)
{
	pthread_t th[8];
	long inits;

	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	inits = fake_counts ? fake_counts()->inits : 0;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&th[i], NULL, racer, NULL), 0);
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(gpuprof__annotate_state_v1, 1);
	assert_int_equal(counts()->inits, inits + 1);
	assert_int_equal(__atomic_load_n(&counts()->push, __ATOMIC_ACQUIRE) > 0, 1);
}

/* GPUPROF_DISABLE: everything compiles to nothing */
static void test_disabled(void **state)
{
	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	GPUPROF_RANGE_PUSH("attach");
	GPUPROF_RANGE_POP();
	fake_reset();
	assert_int_equal(annotate_disabled_calls(), 0);
	assert_int_equal(counts()->push + counts()->pop + counts()->frame + counts()->counter, 0);
}

/* libgpuprof's entry points for bindings */
static void test_bindings(void **state)
{
	void *a, *b, *c, *d;
	const struct fake_annotate_counts *n;

	(void)state;
	a = gp_annotate_site("decode", "model.py", 12, "forward");
	b = gp_annotate_site("decode", "model.py", 12, "other"); /* (name, file, line) decide */
	c = gp_annotate_site("decode", "model.py", 13, "forward");
	d = gp_annotate_site("decode", NULL, 12, NULL);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_ptr_not_equal(a, d);
	assert_null(gp_annotate_site(NULL, "x", 1, NULL));
	assert_string_equal(((struct gpuprof_site *)c)->file, "model.py");
	/* interned: one file string for both sites */
	assert_ptr_equal(((struct gpuprof_site *)a)->file, ((struct gpuprof_site *)c)->file);
	/* no tool: no-ops, NULL sites too */
	gp_annotate_push(a);
	gp_annotate_pop();
	gp_annotate_push(NULL);
	gp_annotate_frame(NULL);
	gp_annotate_counter("x", 1);
	assert_int_equal(gp_annotate_attached(), 0);
	/* with the fake */
	reset_module();
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	assert_int_equal(gp_annotate_attached(), 1);
	n = counts();
	fake_reset();
	gp_annotate_push(a);
	assert_ptr_equal(n->last_site, a);
	gp_annotate_pop();
	gp_annotate_frame(NULL);
	assert_string_equal(n->last_site->name, "frame");
	gp_annotate_frame_site(c);
	gp_annotate_counter("loss", 0.5);
	gp_annotate_counter("loss", 1.5);
	assert_string_equal(n->last_site->name, "loss");
	/* the named frames and counters reuse their sites */
	assert_ptr_equal(gp_annotate_site("loss", NULL, 0, NULL), n->last_site);
	gp_annotate_counter_site(d, 2);
	assert_int_equal(n->push, 1);
	assert_int_equal(n->pop, 1);
	assert_int_equal(n->frame, 2);
	assert_int_equal(n->counter, 3);
	assert_true(n->counter_sum == 4.0);
}

/* ---- the reader: a capture made by hand ---- */

struct cap {
	unsigned char b[4096];
	size_t n;
};

static void cap_rec(struct cap *c, uint32_t type, const void *p, size_t n, const char *s)
{
	struct gp_cap_rec_header h = { type, (uint32_t)(n + (s ? strlen(s) : 0)) };
	size_t pad = (8 - h.size % 8) % 8;

	assert_true(c->n + sizeof(h) + h.size + pad <= sizeof(c->b));
	memcpy(c->b + c->n, &h, sizeof(h));
	memcpy(c->b + c->n + sizeof(h), p, n);
	if (s)
		memcpy(c->b + c->n + sizeof(h) + n, s, strlen(s));
	memset(c->b + c->n + sizeof(h) + h.size, 0, pad);
	c->n += sizeof(h) + h.size + pad;
}

static void cap_str(struct cap *c, uint32_t id, const char *s)
{
	struct gp_cap_string r = { id, 0 };

	cap_rec(c, GP_CAP_STRING, &r, sizeof(r), s);
}

static void cap_nvtx(struct cap *c, uint8_t kind, int64_t ts, uint32_t tid, uint32_t domain,
                     uint32_t name, uint64_t id, const char *msg)
{
	struct gp_cap_nvtx r;

	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.tid = tid;
	r.kind = kind;
	r.domain = domain;
	r.name = name;
	r.id = id;
	cap_rec(c, GP_CAP_NVTX, &r, sizeof(r), msg);
}

static void cap_counter(struct cap *c, int64_t ts, uint32_t tid, uint32_t name, double v)
{
	struct gp_cap_counter r;

	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.tid = tid;
	r.name = name;
	r.value = v;
	cap_rec(c, GP_CAP_COUNTER, &r, sizeof(r), NULL);
}

/* a capture in memory: the file header and a META record of pid 77 */
static struct cap *cap_new(void)
{
	struct gp_cap_file_header h;
	struct cap *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	memcpy(h.magic, GP_CAP_MAGIC, 8);
	h.version = GP_CAP_VERSION;
	h.header_size = GP_CAP_HEADER_SIZE;
	memcpy(c->b, &h, sizeof(h));
	c->n = sizeof(h);
	cap_rec(c, GP_CAP_META, "{\"pid\":77}", 10, NULL);
	return c;
}

static void test_reader(void **state)
{
	struct gp_cap_site site = { 2, 42, 3, 4 }, site2 = { 5, 7, 3, 0 };
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	struct gp_value *r, *rk;
	const struct gp_value *rows, *marks;
	struct cap *c = cap_new();
	size_t nmark = 0, i;

	(void)state;
	cap_nvtx(c, GP_NVTX_DOMAIN, 1, 9, 0, 0, 1, "gpuprof");
	cap_str(c, 2, "step");
	cap_str(c, 3, "src/app.c");
	cap_str(c, 4, "main");
	cap_rec(c, GP_CAP_SITE, &site, sizeof(site), NULL);
	cap_str(c, 5, "frame");
	cap_rec(c, GP_CAP_SITE, &site2, sizeof(site2), NULL);
	cap_str(c, 6, "queue");
	for (int k = 0; k < 3; k++) {
		cap_nvtx(c, GP_NVTX_PUSH, 1000 + 100 * k, 9, 1, 2, 0, NULL);
		cap_counter(c, 1010 + 100 * k, 9, 6, 10.0 * (k + 1));
		cap_nvtx(c, GP_NVTX_POP, 1050 + 100 * k, 9, 1, 0, 0, NULL);
		cap_nvtx(c, GP_NVTX_MARK, 1060 + 100 * k, 9, 1, 5, 0, NULL);
	}
	cap_counter(c, 900, 10, 6, 5.0); /* another thread, earlier: not "last" */
	/* a newer writer's record type is skipped */
	cap_rec(c, 99, "abcdefgh", 8, NULL);
	assert_int_equal(gp__capture_open_mem(c->b, c->n, "hand.gpcap", &oo, &t), 0);

	assert_true(t->has_counters);
	assert_int_equal(t->nctr, 4);
	assert_string_equal(gp_strtab_get(&t->strs, t->ctr[0].name), "queue");
	for (i = 0; i < t->ev.n; i++) {
		if (t->ev.flags[i] & GP_EVF_MARK) {
			nmark++;
			assert_int_equal(t->ev.dur[i], 0);
			assert_string_equal(gp__ev_name(t, i), "gpuprof:frame");
		}
	}
	assert_int_equal(nmark, 3);

	r = tu_analyze(t, GP_COMPAT_NONE);
	rk = r;
	rows = gp_obj_get(rk, "ranges");
	assert_int_equal(gp_value_len(rows), 1);
	assert_string_equal(tu_gets(rk, "ranges/0/name"), "step");
	assert_string_equal(tu_gets(rk, "ranges/0/domain"), "gpuprof");
	assert_string_equal(tu_gets(rk, "ranges/0/source"), "src/app.c:42");
	assert_int_equal(tu_geti(rk, "ranges/0/count"), 3);
	rows = gp_obj_get(rk, "counters");
	assert_int_equal(gp_value_len(rows), 1);
	assert_string_equal(tu_gets(rk, "counters/0/name"), "queue");
	assert_int_equal(tu_geti(rk, "counters/0/count"), 4);
	assert_true(tu_getd(rk, "counters/0/min") == 5.0);
	assert_true(tu_getd(rk, "counters/0/max") == 30.0);
	assert_true(tu_getd(rk, "counters/0/mean") == 16.25);
	assert_true(tu_getd(rk, "counters/0/last") == 30.0);
	marks = gp_value_path(rk, "overview/capture/marks");
	assert_int_equal(gp_value_len(marks), 1);
	assert_string_equal(tu_gets(rk, "overview/capture/marks/0/name"), "frame");
	assert_string_equal(tu_gets(rk, "overview/capture/marks/0/domain"), "gpuprof");
	assert_int_equal(tu_geti(rk, "overview/capture/marks/0/count"), 3);
	gp_value_free(r);
	gp_trace_free(t);
	free(c);
}

/* total_ns of the range row named @p name in domain @p domain ("" the default one) */
static int64_t range_total(const struct gp_value *r, const char *name, const char *domain)
{
	const struct gp_value *rows = gp_obj_get(r, "ranges");

	for (size_t i = 0; i < gp_value_len(rows); i++) {
		const struct gp_value *row = gp_arr_get(rows, i);
		const char *d = gp_value_get_str(gp_obj_get(row, "domain"));
		int64_t v = -1;

		if (strcmp(gp_value_get_str(gp_obj_get(row, "name")), name) == 0 &&
		    strcmp(d ? d : "", domain) == 0) {
			assert_true(gp_value_get_int(gp_obj_get(row, "total_ns"), &v));
			return v;
		}
	}
	fail_msg("no range %s in domain '%s'", name, domain);
	return -1;
}

/*
 * NVTX keeps a push/pop stack per thread per domain: on one thread, A
 * (default domain) [100, 300), B (domain "lib") [200, 400) and C (the
 * annotation API's domain "gpuprof") [250, 350) interleave; each pop closes
 * its own domain's range. One stack per thread gave B 100, C 150 and A 300.
 */
static void test_reader_domains(void **state)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	struct gp_value *r;
	struct cap *c = cap_new();

	(void)state;
	cap_nvtx(c, GP_NVTX_DOMAIN, 1, 9, 0, 0, 1, "lib");
	cap_nvtx(c, GP_NVTX_DOMAIN, 2, 9, 0, 0, 2, "gpuprof");
	cap_nvtx(c, GP_NVTX_PUSH, 100, 9, 0, 0, 0, "A");
	cap_nvtx(c, GP_NVTX_PUSH, 200, 9, 1, 0, 0, "B");
	cap_nvtx(c, GP_NVTX_PUSH, 250, 9, 2, 0, 0, "C");
	cap_nvtx(c, GP_NVTX_POP, 300, 9, 0, 0, 0, NULL);
	cap_nvtx(c, GP_NVTX_POP, 350, 9, 2, 0, 0, NULL);
	cap_nvtx(c, GP_NVTX_POP, 400, 9, 1, 0, 0, NULL);
	/* another thread's pop in domain "lib" closes nothing of thread 9 */
	cap_nvtx(c, GP_NVTX_PUSH, 500, 9, 1, 0, 0, "D");
	cap_nvtx(c, GP_NVTX_POP, 510, 10, 1, 0, 0, NULL);
	cap_nvtx(c, GP_NVTX_POP, 600, 9, 1, 0, 0, NULL);
	assert_int_equal(gp__capture_open_mem(c->b, c->n, "domains.gpcap", &oo, &t), 0);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(gp_value_len(gp_obj_get(r, "ranges")), 4);
	assert_int_equal(range_total(r, "A", ""), 200);
	assert_int_equal(range_total(r, "B", "lib"), 200);
	assert_int_equal(range_total(r, "C", "gpuprof"), 100);
	assert_int_equal(range_total(r, "D", "lib"), 100);
	assert_int_equal(tu_geti(r, "overview/capture/nvtx_unmatched"), 1);
	gp_value_free(r);
	gp_trace_free(t);
	free(c);
}

/* a Kineto trace cannot hold counters: null, and no source on its ranges */
static void test_counters_kineto(void **state)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_value *r;

	(void)state;
	tu_add(t, GP_K_USER_ANNOTATION, "a", 1, 1, 0, 10);
	r = tu_analyze(t, GP_COMPAT_NONE);
	assert_int_equal(gp_value_type(gp_obj_get(r, "counters")), GP_VALUE_NULL);
	assert_int_equal(gp_value_type(gp_value_path(r, "ranges/0/source")), GP_VALUE_NULL);
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_tool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_recorder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recorder_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bindings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_during_init, setup, teardown),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_domains),
		cmocka_unit_test(test_counters_kineto),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
