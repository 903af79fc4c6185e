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
 *  - names by value (push_str, frame_str, counter_str): they reach a
 *    recorder that has them, and are no-ops with one that predates them;
 *  - libgpuprof's entry points for bindings (gp_annotate_*): shared sites,
 *    the limit of sites (GPUPROF_ANNOTATE_MAX_SITES) and the names by value
 *    past it;
 *  - the recorder (libgpuprof-inject.so, in a forked child that records into
 *    a temporary directory): a caller's table of the first version (four
 *    entries) is filled without a byte written past it; sites and names by
 *    value come back from the capture with their names, counts, sources and
 *    the one warning;
 *  - the capture reader: SITE records give ranges their source, COUNTER
 *    records become counter samples (named by STRING id or inline), marks
 *    become GP_EVF_MARK events, and the "counters" section summarises them.
 * Each test resets this module's table to its init stubs (the header's
 * internal names) so that the init runs again.
 */
#include "testutil.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GPUPROF_ANNOTATE_BINDINGS
#include "source/capfmt.h"
#include "source/capture.h"
#include "gpuprof/annotate.h"

#ifndef FAKE_ANNOTATE_PATH
#error "FAKE_ANNOTATE_PATH: the path of libfake-annotate.so (tests/CMakeLists.txt)"
#endif

struct fake_annotate_counts {
	long inits, push, pop, frame, counter;
	double counter_sum;
	const struct gpuprof_site *last_site;
	int depth, max_depth;
	long push_str, frame_str, counter_str;
	char last_name[64];
};

/* annotate_disabled.c, compiled with GPUPROF_DISABLE */
int annotate_disabled_calls(void);

static const struct fake_annotate_counts *(*fake_counts)(void);
static void (*fake_reset)(void);

/* Back to the state before any call: the stubs, the init not run. */
static void reset_module(void)
{
	gpuprof_annotate_v2.push = gpuprof__annotate_push_stub_v2;
	gpuprof_annotate_v2.pop = gpuprof__annotate_pop_stub_v2;
	gpuprof_annotate_v2.frame = gpuprof__annotate_frame_stub_v2;
	gpuprof_annotate_v2.counter = gpuprof__annotate_counter_stub_v2;
	gpuprof_annotate_v2.push_str = gpuprof__annotate_push_str_stub_v2;
	gpuprof_annotate_v2.frame_str = gpuprof__annotate_frame_str_stub_v2;
	gpuprof_annotate_v2.counter_str = gpuprof__annotate_counter_str_stub_v2;
	gpuprof__annotate_state_v2 = 0;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("GPUPROF_ANNOTATE_LIBRARY");
	unsetenv("FAKE_ANNOTATE_FAIL");
	unsetenv("FAKE_ANNOTATE_PARTIAL");
	unsetenv("FAKE_ANNOTATE_OLD");
	reset_module();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("GPUPROF_ANNOTATE_LIBRARY");
	unsetenv("FAKE_ANNOTATE_FAIL");
	unsetenv("FAKE_ANNOTATE_PARTIAL");
	unsetenv("FAKE_ANNOTATE_OLD");
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
	assert_int_equal(gpuprof__annotate_state_v2, 1);
	assert_null(gpuprof_annotate_v2.push);
	assert_null(gpuprof_annotate_v2.pop);
	assert_null(gpuprof_annotate_v2.frame);
	assert_null(gpuprof_annotate_v2.counter);
	assert_null(gpuprof_annotate_v2.push_str);
	assert_null(gpuprof_annotate_v2.frame_str);
	assert_null(gpuprof_annotate_v2.counter_str);
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
	gpuprof__annotate_state_v2 = (int)getppid() + 1; /* "another process runs it" */
	GPUPROF_FRAME();
	GPUPROF_RANGE_PUSH("after fork");
	GPUPROF_RANGE_POP();
	assert_empty_table();
}

/* no tool: each entry's first call runs the init, which empties the table */
static void test_no_tool(void **state)
{
	(void)state;
	assert_ptr_equal(gpuprof_annotate_v2.push, gpuprof__annotate_push_stub_v2);
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
	assert_non_null(gpuprof_annotate_v2.push);
	assert_non_null(gpuprof_annotate_v2.pop);
	assert_null(gpuprof_annotate_v2.frame);
	assert_null(gpuprof_annotate_v2.counter);
	all_calls(10);
	c = counts();
	assert_int_equal(c->push, 20);
	assert_int_equal(c->frame, 0);
	assert_int_equal(c->counter, 0);
}

/* names by value reach the recorder: copied during the call, any bytes, not NUL-ended */
static void test_by_value(void **state)
{
	const struct fake_annotate_counts *c;
	char name[16] = "step 12345";

	(void)state;
	assert_int_equal(gp_annotate_attached(), 0); /* libgpuprof's table: the same module */
	reset_module();
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	gpuprof_range_push_str(name, 6); /* the first call of all: the stub runs the init */
	c = counts();
	assert_non_null(gpuprof_annotate_v2.push_str);
	assert_int_equal(c->push_str, 1);
	assert_string_equal(c->last_name, "step 1");
	memcpy(name, "XXXX", 4); /* the caller's buffer is its own again */
	gpuprof_range_pop();
	assert_int_equal(c->depth, 0);
	gpuprof_frame_str("tick tock", 4);
	assert_string_equal(c->last_name, "tick");
	gpuprof_counter_str("queue", 5, 2.5);
	gpuprof_counter_str("", 0, 1.5);
	assert_int_equal(c->frame_str, 1);
	assert_int_equal(c->counter_str, 2);
	assert_true(c->counter_sum == 4.0);
	/* the bindings' entry points: NULL is a no-op */
	gp_annotate_push_name("by name", 7);
	gp_annotate_pop();
	gp_annotate_push_name(NULL, 3);
	gp_annotate_frame_name("f", 1);
	gp_annotate_frame_name(NULL, 0);
	gp_annotate_counter_name("k", 1, 1.0);
	gp_annotate_counter_name(NULL, 1, 1.0);
	assert_int_equal(c->push_str, 2);
	assert_int_equal(c->frame_str, 2);
	assert_int_equal(c->counter_str, 3);
	assert_int_equal(c->pop, 2);
	assert_int_equal(c->push + c->frame + c->counter, 0); /* no site was made or used */
}

/* a recorder that predates the names by value: those entries stay NULL, the calls do nothing */
static void test_by_value_old_recorder(void **state)
{
	const struct fake_annotate_counts *c;

	(void)state;
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	setenv("FAKE_ANNOTATE_OLD", "1", 1);
	gpuprof_frame_str("first", 5); /* the first call is a missing entry */
	assert_non_null(gpuprof_annotate_v2.push);
	assert_non_null(gpuprof_annotate_v2.counter);
	assert_null(gpuprof_annotate_v2.push_str);
	assert_null(gpuprof_annotate_v2.frame_str);
	assert_null(gpuprof_annotate_v2.counter_str);
	gpuprof_range_push_str("x", 1);
	gpuprof_counter_str("x", 1, 1);
	all_calls(3);
	c = counts();
	assert_int_equal(c->push_str + c->frame_str + c->counter_str, 0);
	assert_int_equal(c->push, 6);
	assert_int_equal(c->counter, 3);
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
	assert_int_equal(gpuprof__annotate_state_v2, 1);
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

/*
 * The limit of sites (GPUPROF_ANNOTATE_MAX_SITES, default 65,536: this process
 * does not set it): gp_annotate_site() makes no more past it, known sites are
 * still found, and the named frames and counters go by value. Runs after
 * every other test that makes sites (the registry lives as long as the process).
 */
static void test_site_limit(void **state)
{
	const struct fake_annotate_counts *c;
	uint64_t limit = 0, n0, i;
	void *known;
	char name[32];

	(void)state;
	known = gp_annotate_site("known", "limit.py", 1, NULL);
	assert_non_null(known);
	n0 = gp_annotate_site_count(&limit);
	assert_int_equal(limit, 65536);
	assert_true(n0 >= 1 && n0 < limit);
	assert_int_equal(gp_annotate_site_count(NULL), n0);
	for (i = n0; i < limit; i++) {
		snprintf(name, sizeof(name), "limit %llu", (unsigned long long)i);
		assert_non_null(gp_annotate_site(name, "limit.py", 2, "f"));
	}
	assert_int_equal(gp_annotate_site_count(NULL), limit);
	assert_null(gp_annotate_site("one too many", "limit.py", 2, "f"));
	assert_int_equal(gp_annotate_site_count(NULL), limit);
	assert_ptr_equal(gp_annotate_site("known", "limit.py", 1, NULL), known);
	assert_ptr_equal(gp_annotate_site("limit 65535", "limit.py", 2, NULL),
	                 gp_annotate_site("limit 65535", "limit.py", 2, "g"));
	/* with a recorder: new named frames and counters by value, known ones at their site */
	setenv("GPUPROF_ANNOTATE_LIBRARY", FAKE_ANNOTATE_PATH, 1);
	assert_int_equal(gp_annotate_attached(), 1);
	c = counts();
	fake_reset();
	gp_annotate_counter("a new counter", 3);
	assert_int_equal(c->counter_str, 1);
	assert_string_equal(c->last_name, "a new counter");
	gp_annotate_frame("a new frame");
	assert_int_equal(c->frame_str, 1);
	assert_string_equal(c->last_name, "a new frame");
	gp_annotate_frame("loss"); /* made by test_bindings: still a site */
	assert_int_equal(c->frame, 1);
	assert_int_equal(gp_annotate_site_count(NULL), limit);
}

/* ---- the recorder, libgpuprof-inject.so, in a child process ---- */

#define CANARY ((void *)(uintptr_t)0x5a5a5a5a5a5a5a5aull)

/* The child: exit status 0 when the table checks pass (the capture is written at exit). */
static int recorder_child(const char *lib)
{
	static struct gpuprof_site site = GPUPROF_SITE_INIT("sited");
	union {
		struct gpuprof_annotate_table_v1 t;
		void *slot[16];
	} u;
	const size_t v1 = offsetof(struct gpuprof_annotate_table_v1, counter) + sizeof(u.t.counter);
	gpuprof_annotate_init_fn init;
	char big[5000];
	void *h;

	if (!(h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)))
		return 10;
	*(void **)&init = dlsym(h, GPUPROF_ANNOTATE_INIT_SYMBOL);
	if (!init)
		return 11;
	/* a caller built with the first header: four entries, nothing written past them */
	for (int i = 0; i < 16; i++)
		u.slot[i] = CANARY;
	if (init(&u.t, 3) != -1 || u.slot[0] != CANARY) /* too small for one entry: refused */
		return 12;
	if (init(&u.t, (unsigned long)v1) != 0)
		return 13;
	for (int i = 0; i < 4; i++)
		if (!u.slot[i] || u.slot[i] == CANARY)
			return 14;
	for (int i = 4; i < 16; i++)
		if (u.slot[i] != CANARY)
			return 15;
	/* this header's table: seven entries, and still nothing past them */
	if (init(&u.t, sizeof(u.t)) != 0)
		return 16;
	if (!u.t.push_str || !u.t.frame_str || !u.t.counter_str)
		return 17;
	for (size_t i = sizeof(u.t) / sizeof(void *); i < 16; i++)
		if (u.slot[i] != CANARY)
			return 18;
	/* the calls: a site, names by value (cut, not NUL-ended, too long) */
	u.t.push(&site);
	u.t.push_str("by value", 8);
	u.t.pop();
	u.t.pop();
	u.t.push_str("abcdef", 3);
	u.t.pop();
	memset(big, 'x', sizeof(big));
	u.t.push_str(big, sizeof(big));
	u.t.pop();
	u.t.frame_str("tick", 4);
	u.t.frame_str("tick", 4);
	u.t.counter_str("depth", 5, 1.5);
	u.t.counter_str("depth", 5, 2.5);
	u.t.counter(&site, 7);
	return 0;
}

/* the one capture file in @p dir (a path to free), or NULL */
static char *find_capture(const char *dir)
{
	struct dirent *e;
	char *path = NULL;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 6 && !strcmp(e->d_name + n - 6, ".gpcap")) {
			assert_null(path);
			path = malloc(strlen(dir) + n + 2);
			assert_non_null(path);
			sprintf(path, "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	return path;
}

static const struct gp_value *row_named(const struct gp_value *rows, const char *name)
{
	for (size_t i = 0; i < gp_value_len(rows); i++) {
		const struct gp_value *row = gp_arr_get(rows, i);

		if (!strcmp(gp_value_get_str(gp_obj_get(row, "name")), name))
			return row;
	}
	fail_msg("no row named %.40s", name);
	return NULL;
}

static void test_recorder_table(void **state)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	const struct gp_value *rows, *row;
	const char *bd = getenv("GP_BUILD_DIR");
	char lib[4096], dir[] = "/tmp/gpuprof-annot-XXXXXX", *cap, big[4097];
	struct gp_trace *t = NULL;
	struct gp_value *r;
	int64_t v;
	int st;
	pid_t pid;

	(void)state;
	if (!bd || snprintf(lib, sizeof(lib), "%s/libgpuprof-inject.so", bd) >= (int)sizeof(lib) ||
	    access(lib, R_OK) != 0)
		skip(); /* no recorder built here */
	assert_non_null(mkdtemp(dir));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("GPUPROF_CAPTURE_DIR", dir, 1);
		unsetenv("GPUPROF_CAPTURE_RANGE");
		unsetenv("GPUPROF_CAPTURE_SCHEDULE");
		exit(recorder_child(lib)); /* exit: the recorder writes the capture at exit */
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	cap = find_capture(dir);
	assert_non_null(cap);
	assert_int_equal(gp_trace_open(cap, &oo, &t), 0);
	unlink(cap);
	free(cap);
	rmdir(dir);
	r = tu_analyze(t, GP_COMPAT_NONE);
	rows = gp_obj_get(r, "ranges");
	assert_int_equal(gp_value_len(rows), 4);
	row = row_named(rows, "sited");
	assert_true(gp_value_get_int(gp_obj_get(row, "count"), &v) && v == 1);
	assert_non_null(strstr(gp_value_get_str(gp_obj_get(row, "source")), "test_annotate.c:"));
	row = row_named(rows, "by value");
	assert_true(gp_value_get_int(gp_obj_get(row, "count"), &v) && v == 1);
	assert_string_equal(gp_value_get_str(gp_obj_get(row, "domain")), "gpuprof");
	assert_int_equal(gp_value_type(gp_obj_get(row, "source")), GP_VALUE_NULL);
	row = row_named(rows, "abc");
	assert_true(gp_value_get_int(gp_obj_get(row, "count"), &v) && v == 1);
	memset(big, 'x', 4096); /* cut at 4 KiB */
	big[4096] = '\0';
	row_named(rows, big);
	assert_int_equal(tu_geti(r, "overview/capture/nvtx_unmatched"), 0);
	assert_string_equal(tu_gets(r, "overview/capture/marks/0/name"), "tick");
	assert_int_equal(tu_geti(r, "overview/capture/marks/0/count"), 2);
	rows = gp_obj_get(r, "counters");
	assert_int_equal(gp_value_len(rows), 2);
	row = row_named(rows, "depth");
	assert_true(gp_value_get_int(gp_obj_get(row, "count"), &v) && v == 2);
	row = row_named(rows, "sited");
	assert_true(gp_value_get_int(gp_obj_get(row, "count"), &v) && v == 1);
	/* said once */
	assert_int_equal(tu_geti(r, "overview/capture/warning_messages/0/count"), 1);
	assert_non_null(strstr(tu_gets(r, "overview/capture/warning_messages/0/text"), "by value"));
	gp_value_free(r);
	gp_trace_free(t);
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

static void cap_counter_str(struct cap *c, int64_t ts, uint32_t tid, uint32_t name, double v,
                            const char *inline_name)
{
	struct gp_cap_counter r;

	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.tid = tid;
	r.name = name;
	r.value = v;
	cap_rec(c, GP_CAP_COUNTER, &r, sizeof(r), inline_name);
}

static void cap_counter(struct cap *c, int64_t ts, uint32_t tid, uint32_t name, double v)
{
	cap_counter_str(c, ts, tid, name, v, NULL);
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
	assert_string_equal(gp__strtab_get(&t->strs, t->ctr[0].name), "queue");
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

/*
 * Names by value: a COUNTER record with name 0 carries its name after the
 * struct, and samples of one name (by value or by STRING id) are one counter;
 * an NVTX push of the annotation domain with its message inline is a range
 * without a source. A COUNTER with name 0 and nothing after it is unnamed.
 */
static void test_reader_by_value(void **state)
{
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	struct gp_value *r;
	const struct gp_value *rows;
	struct cap *c = cap_new();

	(void)state;
	cap_nvtx(c, GP_NVTX_DOMAIN, 1, 9, 0, 0, 1, "gpuprof");
	cap_str(c, 6, "queue");
	cap_counter(c, 100, 9, 6, 1.0);
	cap_counter_str(c, 110, 9, 0, 3.0, "queue"); /* the same counter, by value */
	cap_counter_str(c, 120, 9, 0, 5.0, "step 123456");
	cap_counter_str(c, 130, 10, 0, 7.0, "step 123456");
	cap_counter_str(c, 140, 9, 0, 8.0, NULL);
	cap_nvtx(c, GP_NVTX_PUSH, 200, 9, 1, 0, 0, "step 7");
	cap_nvtx(c, GP_NVTX_POP, 250, 9, 1, 0, 0, NULL);
	cap_nvtx(c, GP_NVTX_MARK, 260, 9, 1, 0, 0, "tick 7");
	assert_int_equal(gp__capture_open_mem(c->b, c->n, "byvalue.gpcap", &oo, &t), 0);
	assert_int_equal(t->nctr, 5);
	assert_string_equal(gp__strtab_get(&t->strs, t->ctr[1].name), "queue");
	assert_int_equal(t->ctr[0].name, t->ctr[1].name);
	assert_string_equal(gp__strtab_get(&t->strs, t->ctr[2].name), "step 123456");
	assert_int_equal(t->ctr[2].name, t->ctr[3].name);
	assert_string_equal(gp__strtab_get(&t->strs, t->ctr[4].name), "");
	r = tu_analyze(t, GP_COMPAT_NONE);
	rows = gp_obj_get(r, "counters");
	assert_int_equal(gp_value_len(rows), 3);
	assert_string_equal(tu_gets(r, "counters/1/name"), "queue");
	assert_int_equal(tu_geti(r, "counters/1/count"), 2);
	assert_true(tu_getd(r, "counters/1/mean") == 2.0);
	assert_string_equal(tu_gets(r, "counters/2/name"), "step 123456");
	assert_int_equal(tu_geti(r, "counters/2/count"), 2);
	assert_true(tu_getd(r, "counters/2/last") == 7.0);
	assert_string_equal(tu_gets(r, "ranges/0/name"), "step 7");
	assert_string_equal(tu_gets(r, "ranges/0/domain"), "gpuprof");
	assert_int_equal(tu_geti(r, "ranges/0/total_ns"), 50);
	assert_int_equal(gp_value_type(gp_value_path(r, "ranges/0/source")), GP_VALUE_NULL);
	assert_string_equal(tu_gets(r, "overview/capture/marks/0/name"), "tick 7");
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
		cmocka_unit_test_setup_teardown(test_by_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_value_old_recorder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bindings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_during_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_site_limit, setup, teardown),
		cmocka_unit_test(test_recorder_table),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_domains),
		cmocka_unit_test(test_reader_by_value),
		cmocka_unit_test(test_counters_kineto),
	};

	unsetenv("GPUPROF_ANNOTATE_MAX_SITES"); /* test_site_limit: the default limit */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
