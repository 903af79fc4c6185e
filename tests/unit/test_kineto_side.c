/* SPDX-License-Identifier: MIT */
/*
 * test_kineto_side.c - the Kineto reader's side tables (trace/model.h): the
 * raw JSON text of a CPU op's "Input Dims", "Input type" and "Concrete
 * Inputs" (t->opargs), what a cuda_sync event waited on (t->sync) and the
 * nn.Module python_function events (t->pymod), on a small hand-written trace:
 * absent and odd-typed args, escaped text, keys and events out of the usual
 * order, python_function events that are not modules. The same tables must
 * come out in place, through tiny windows, without the key memo, from gzip
 * and from the two-thread read; and on the shared Qwen trace (skipped when
 * absent) the counts must be Python's json module's.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/export.h"
#include "gpuprof/trace.h"
#include "source/kineto-int.h"
#include "source/kineto.h"
#include "trace/model.h"
#include "util/buf.h"
#include "util/error.h"

/* The events; their expected tables are EXPECT below. */
static const char EVENTS[] =
    /* every input kept, with the unkept "Input Strides" between them */
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 100, \"dur\": 10, \"args\": {\"External id\": 1, \"Input Dims\": [[64, 128], "
    "[128, 256]], \"Input type\": [\"float\", \"c10::BFloat16\"], \"Input Strides\": [[128, "
    "1], [256, 1]], \"Concrete Inputs\": [\"\", \"\"]}},\n"
    /* earlier in time, keys reordered, escapes and a ']' inside a string, Dims a string */
    "{\"args\": {\"Concrete Inputs\": [\"\", \"1\", \"a \\\"q\\\" \\u00e9 ]\"], \"Input type\":"
    "  [ \"float\" ,\"Scalar\" ], \"Input Dims\": \"[[1]]\"}, \"dur\": 5, \"ts\": 90, "
    "\"tid\": 2, \"pid\": 1, \"name\": \"aten::add\", \"cat\": \"cpu_op\", \"ph\": \"X\"},\n"
    /* nothing kept: a number, null, an object */
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 80, \"dur\": 1, \"args\": {\"Input Dims\": 5, \"Input type\": null, "
    "\"Concrete Inputs\": {\"a\": [1]}}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::zeros\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 81, \"dur\": 1, \"args\": {\"Input Dims\": []}},\n"
    /* pretty-printed: Kineto's spelling, the strings as they are */
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::view\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 82, \"dur\": 1, \"args\": {\"Input Dims\": [\n  [\n    1,\n\t2\r\n  ],[ ]\n]"
    ", \"Input type\": [\"a,b\" ,  \"c: d\\\\\"]}},\n"
    /* an instant is not stored: no inputs either */
    "{\"ph\": \"i\", \"cat\": \"cpu_op\", \"name\": \"inst\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 5, \"s\": \"t\", \"args\": {\"Input Dims\": [[1]]}},\n"
    /* modules: a null parent; keys reversed and an escaped name on another thread */
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Block_0\", "
    "\"pid\": 1, \"tid\": 2, \"ts\": 50, \"dur\": 100, \"args\": {\"Python parent id\": null, "
    "\"Python id\": 7, \"Input Dims\": [[1]]}},\n"
    "{\"args\": {\"Python id\": 8, \"Python parent id\": 7}, \"dur\": 20, \"ts\": 60, "
    "\"tid\": 3, \"pid\": 1, \"name\": \"nn.Module: Linear_\\u0031\", \"cat\": "
    "\"python_function\", \"ph\": \"X\"},\n"
    /* python_function events that are not modules: counted only */
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(12): forward\", "
    "\"pid\": 1, \"tid\": 2, \"ts\": 55, \"dur\": 3, \"args\": {\"Python id\": 9, "
    "\"Python parent id\": 7}},\n"
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module:Block\", \"pid\": 1, "
    "\"tid\": 2, \"ts\": 56, \"dur\": 3},\n"
    /* odd ids: unknown */
    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Odd\", \"pid\": 1, "
    "\"tid\": 2, \"ts\": 57, \"dur\": 3, \"args\": {\"Python id\": \"x\", \"Python parent "
    "id\": 1.5}},\n"
    /* syncs: everything; the kind only; nothing; odd types; not a cuda_sync */
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, "
    "\"tid\": 7, \"ts\": 200, \"dur\": 1, \"args\": {\"cuda_sync_kind\": \"Stream Wait "
    "Event\", \"stream\": 7, \"wait_on_stream\": 13, \"wait_on_cuda_event_record_corr_id\": "
    "41, \"wait_on_cuda_event_id\": 3, \"correlation\": 44}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, \"tid\": "
    "7, \"ts\": 201, \"dur\": 1, \"args\": {\"cuda_sync_kind\": \"Context Sync\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Event Sync\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 202, \"dur\": 1, \"args\": {\"correlation\": 45}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Odd Sync\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 203, \"dur\": 1, \"args\": {\"cuda_sync_kind\": 5, \"wait_on_stream\": \"13\", "
    "\"wait_on_cuda_event_id\": null}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamWaitEvent\", \"pid\": 1, "
    "\"tid\": 2, \"ts\": 199, \"dur\": 1, \"args\": {\"wait_on_stream\": 13, \"correlation\": "
    "41}}";

/* What one copy of EVENTS gives (dump() below). */
static const char EXPECT[] =
    "op aten::mm [[64, 128], [128, 256]] | [\"float\", \"c10::BFloat16\"] | [\"\", \"\"]\n"
    "op aten::add - | [\"float\", \"Scalar\"] | [\"\", \"1\", \"a \\\"q\\\" \\u00e9 ]\"]\n"
    "op aten::zeros [] | - | -\n"
    "op aten::view [[1, 2], []] | [\"a,b\", \"c: d\\\\\"] | -\n"
    "sync Stream Wait Event Stream Wait Event 13 41 3\n"
    "sync Context Sync Context Sync -1 -1 -1\n"
    "mod nn.Module: Block_0 1/2 50000 100000 7 -1\n"
    "mod nn.Module: Linear_1 1/3 60000 20000 8 7\n"
    "mod nn.Module: Odd 1/2 57000 3000 -1 -1\n"
    "npy 5\n";

#define COPIES 3 /* the memo learns the segments from the first copy */

static void doc(struct gp_buf *b, unsigned copies)
{
	gp__buf_reset(b);
	assert_int_equal(gp__buf_addstr(b, "{\"traceEvents\": [\n"), 0);
	for (unsigned i = 0; i < copies; i++) {
		if (i)
			assert_int_equal(gp__buf_addstr(b, ",\n"), 0);
		assert_int_equal(gp__buf_addstr(b, EVENTS), 0);
	}
	assert_int_equal(gp__buf_addstr(b, "\n]}\n"), 0);
}

static const char *str_or_dash(const struct gp_trace *t, uint32_t id)
{
	return id ? gp__strtab_get(&t->strs, id) : "-";
}

/* The three tables as text, in their order (events by name, tracks as pid/tid). */
static void dump(const struct gp_trace *t, struct gp_buf *b)
{
	size_t i;

	gp__buf_reset(b);
	for (i = 0; i < t->nopargs; i++) {
		const struct gp_op_args *o = &t->opargs[i];

		assert_true(i == 0 || o->ev > t->opargs[i - 1].ev);
		assert_ptr_equal(gp__trace_op_args(t, o->ev), o);
		assert_int_equal(gp__buf_addf(b, "op %s %s | %s | %s\n", gp__ev_name(t, o->ev),
		                              str_or_dash(t, o->dims), str_or_dash(t, o->types),
		                              str_or_dash(t, o->concrete)),
		                 0);
	}
	for (i = 0; i < t->nsync; i++) {
		const struct gp_sync_info *s = &t->sync[i];

		assert_true(i == 0 || s->ev > t->sync[i - 1].ev);
		assert_ptr_equal(gp__trace_sync(t, s->ev), s);
		assert_int_equal(t->ev.kind[s->ev], GP_K_SYNC);
		assert_int_equal(
		    gp__buf_addf(b, "sync %s %s %lld %lld %lld\n", gp__ev_name(t, s->ev),
		                 str_or_dash(t, s->kind), (long long)s->wait_stream,
		                 (long long)s->wait_event_corr, (long long)s->wait_event_id),
		    0);
	}
	for (i = 0; i < t->npymod; i++) {
		const struct gp_py_module *m = &t->pymod[i];
		const struct gp_track *tr = &t->tracks[m->track];

		assert_int_equal(gp__buf_addf(b, "mod %s %lld/%lld %lld %lld %lld %lld\n",
		                              str_or_dash(t, m->name), (long long)tr->pid,
		                              (long long)tr->tid, (long long)m->ts,
		                              (long long)m->dur, (long long)m->id,
		                              (long long)m->parent),
		                 0);
	}
	assert_int_equal(gp__buf_addf(b, "npy %llu\n", (unsigned long long)t->npy), 0);
}

/* EXPECT for @p copies copies: each table's rows repeated in turn */
static void expected(unsigned copies, struct gp_buf *b)
{
	static const char *const kinds[] = { "op ", "sync ", "mod " };
	const char *p, *nl;

	gp__buf_reset(b);
	for (size_t k = 0; k < GP_ARRAY_SIZE(kinds); k++)
		for (unsigned i = 0; i < copies; i++)
			for (p = EXPECT; (nl = strchr(p, '\n')); p = nl + 1)
				if (strncmp(p, kinds[k], strlen(kinds[k])) == 0)
					assert_int_equal(gp__buf_add(b, p, (size_t)(nl + 1 - p)),
					                 0);
	assert_int_equal(gp__buf_addf(b, "npy %u\n", 5 * copies), 0);
}

static int cleanup(void **state)
{
	(void)state;
	gp__kineto_test_window = 0;
	gp__kineto_no_memo = false;
	gp__kineto_no_parallel = false;
	return 0;
}

static struct gp_trace *open_mem(const struct gp_buf *d)
{
	struct gp_open_opts o = { .size = sizeof(o), .name = "mem" };
	struct gp_trace *t = NULL;

	if (gp_trace_open_mem(d->buf, d->len, &o, &t))
		fail_msg("%s", gp_last_error());
	return t;
}

static void check_mem(const struct gp_buf *d, const struct gp_buf *want, const char *how)
{
	struct gp_trace *t = open_mem(d);
	struct gp_buf got = GP_BUF_INIT;

	dump(t, &got);
	if (strcmp(got.buf, want->buf) != 0)
		fail_msg("%s:\n%s\nwanted:\n%s", how, got.buf, want->buf);
	gp__buf_release(&got);
	gp_trace_free(t);
}

static void test_tables(void **state)
{
	struct gp_buf d = GP_BUF_INIT, want = GP_BUF_INIT;
	static const size_t wins[] = { 1, 7, 64, 1000 };
	char how[64];

	(void)state;
	doc(&d, 1);
	expected(1, &want);
	check_mem(&d, &want, "one copy");
	doc(&d, COPIES);
	expected(COPIES, &want);
	check_mem(&d, &want, "in place");
	gp__kineto_no_memo = true;
	check_mem(&d, &want, "no memo");
	gp__kineto_no_memo = false;
	for (size_t w = 0; w < GP_ARRAY_SIZE(wins); w++) {
		gp__kineto_test_window = wins[w];
		snprintf(how, sizeof(how), "window %zu", wins[w]);
		check_mem(&d, &want, how);
		gp__kineto_test_window = 0;
	}
	gp__buf_release(&d);
	gp__buf_release(&want);
}

/*
 * Texts that agree in their first 64 bytes and what follows them, or are
 * the start of a longer one, recognised by parse_args from the texts seen
 * before (kineto-int.h): each op still gets its own, with and without the
 * memo, through small windows; and a repeated text followed by a bad byte
 * fails where the scan fails.
 */
static void test_shape_cache(void **state)
{
	struct gp_buf d = GP_BUF_INIT, want = GP_BUF_INIT, got = GP_BUF_INIT, head = GP_BUF_INIT;
	static const size_t wins[] = { 0, 5, 70, 300 };
	struct gp_open_opts o = { .size = sizeof(o), .name = "mem" };
	struct gp_trace *t = NULL;
	char err[256];

	(void)state;
	for (int i = 0; i < 40; i++)
		assert_int_equal(gp__buf_addf(&head, "%s%d", i ? ", " : "[[", i), 0);
	assert_int_equal(gp__buf_addstr(&d, "[\n"), 0);
	for (int i = 0; i < 60; i++) {
		int k = (i * 7) % 5;
		char tail[32];

		/* "...], [k]]", "...]]" or "...], [k, k]]": the same first bytes */
		snprintf(tail, sizeof(tail),
		         k == 4   ? "]]"
		         : k == 3 ? "], [%d, %d]]"
		                  : "], [%d]]",
		         k, k);
		assert_int_equal(
		    gp__buf_addf(&d,
		                 "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
		                 "\"op\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1, "
		                 "\"args\": {\"Input Dims\": %s%s, \"Input type\": "
		                 "[\"float\"]}}",
		                 i ? ",\n" : "", i, head.buf, tail),
		    0);
		assert_int_equal(
		    gp__buf_addf(&want, "op op %s%s | [\"float\"] | -\n", head.buf, tail), 0);
	}
	assert_int_equal(gp__buf_addstr(&d, "\n]\n"), 0);
	assert_int_equal(gp__buf_addstr(&want, "npy 0\n"), 0);
	for (size_t w = 0; w < GP_ARRAY_SIZE(wins); w++) {
		for (int memo = 0; memo < 2; memo++) {
			gp__kineto_test_window = wins[w];
			gp__kineto_no_memo = memo;
			if (gp_trace_open_mem(d.buf, d.len, &o, &t))
				fail_msg("window %zu memo %d: %s", wins[w], !memo, gp_last_error());
			dump(t, &got);
			assert_string_equal(got.buf, want.buf);
			gp_trace_free(t);
			t = NULL;
		}
	}
	gp__kineto_test_window = 0;
	gp__kineto_no_memo = false;
	/* a seen text with one more ']' after it: the same error with and without the memo */
	d.len -= 3;
	assert_int_equal(gp__buf_addstr(&d, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
	                                    "\"op\", \"args\": {\"Input Dims\": "),
	                 0);
	assert_int_equal(gp__buf_addf(&d, "%s]]], \"x\": 1}}\n]\n", head.buf), 0);
	assert_int_equal(gp_trace_open_mem(d.buf, d.len, &o, &t), GP_EFORMAT);
	snprintf(err, sizeof(err), "%s", gp_last_error());
	gp__kineto_no_memo = true;
	assert_int_equal(gp_trace_open_mem(d.buf, d.len, &o, &t), GP_EFORMAT);
	gp__kineto_no_memo = false;
	assert_string_equal(err, gp_last_error());
	assert_null(t);
	gp__buf_release(&d);
	gp__buf_release(&want);
	gp__buf_release(&got);
	gp__buf_release(&head);
}

/* the same shapes on many ops are one string each */
static void test_interned_once(void **state)
{
	struct gp_buf d = GP_BUF_INIT;
	struct gp_trace *t;
	uint32_t dims;

	(void)state;
	doc(&d, COPIES);
	t = open_mem(&d);
	dims = gp__strtab_find(&t->strs, "[[64, 128], [128, 256]]", 23);
	assert_int_not_equal(dims, 0);
	assert_int_equal(t->nopargs, 4 * COPIES);
	for (size_t i = 0; i < t->nopargs; i += 4)
		assert_int_equal(t->opargs[i].dims, dims);
	gp_trace_free(t);
	gp__buf_release(&d);
}

/* a module whose time breaks the limits is an error like any event's; the base moves it */
static void test_module_time(void **state)
{
	static const char bad[] =
	    "[{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: M\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 4000000000000000, \"dur\": 1000000000000000}]";
	struct gp_open_opts o = { .size = sizeof(o), .name = "mem" };
	struct gp_trace *t = NULL;

	(void)state;
	assert_int_equal(gp_trace_open_mem(bad, sizeof(bad) - 1, &o, &t), GP_EFORMAT);
	assert_null(t);
	assert_non_null(strstr(gp_last_error(), "nn.Module event time out of range"));
	/* baseTimeNanoseconds (after the events) moves them with the events */
	{
		static const char based[] =
		    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": "
		    "\"nn.Module: M\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 5}, {\"ph\": "
		    "\"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": "
		    "6, "
		    "\"dur\": 1}], \"baseTimeNanoseconds\": %s}";
		char text[512];

		snprintf(text, sizeof(text), based, "1000000");
		assert_int_equal(gp_trace_open_mem(text, strlen(text), &o, &t), 0);
		assert_int_equal(t->npymod, 1);
		assert_int_equal(t->pymod[0].ts, 5000 + 1000000);
		assert_int_equal(t->pymod[0].dur, 5000);
		assert_int_equal(t->ev.ts[0], 6000 + 1000000);
		gp_trace_free(t);
		t = NULL;
		/* within the limits for the op, not for the module (ends later) */
		snprintf(text, sizeof(text), based, "4611686018427380000");
		assert_int_equal(gp_trace_open_mem(text, strlen(text), &o, &t), GP_EFORMAT);
		assert_null(t);
	}
}

/* nn.Module calls alone are something to analyse (an export of a CPU capture of --pytorch) */
static void test_modules_only(void **state)
{
	static const char text[] =
	    "[{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: M_0\", "
	    "\"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 5}]";
	static const char none[] = "[{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": "
	                           "\"f\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 5}]";
	struct gp_open_opts o = { .size = sizeof(o), .name = "mem" };
	struct gp_trace *t = NULL;

	(void)state;
	assert_int_equal(gp_trace_open_mem(text, sizeof(text) - 1, &o, &t), 0);
	assert_int_equal(t->npymod, 1);
	assert_int_equal(t->ev.n, 0);
	gp_trace_free(t);
	t = NULL;
	/* other python_function events alone are still nothing */
	assert_int_equal(gp_trace_open_mem(none, sizeof(none) - 1, &o, &t), GP_EFORMAT);
	assert_null(t);
}

/* The two-thread read of a file made of many copies gives the same tables. */
static void test_threads(void **state)
{
	char path[128];
	struct gp_buf d = GP_BUF_INIT, a = GP_BUF_INIT, b = GP_BUF_INIT;
	struct gp_open_opts o = { .size = sizeof(o) };
	struct gp_trace *ta = NULL, *tb = NULL;
	unsigned m0 = atomic_load(&gp__kineto_par_merged);
	uint64_t min0 = gp__kineto_par_min;
	FILE *f;

	(void)state;
	doc(&d, 400);
	snprintf(path, sizeof(path), "/tmp/gp_side_%ld.json", (long)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(d.buf, 1, d.len, f), d.len);
	assert_int_equal(fclose(f), 0);
	gp__kineto_no_parallel = true;
	assert_int_equal(gp_trace_open(path, &o, &ta), 0);
	gp__kineto_no_parallel = false;
	gp__kineto_par_min = 4096;
	assert_int_equal(gp_trace_open(path, &o, &tb), 0);
	gp__kineto_par_min = min0;
	unlink(path);
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		assert_int_equal(atomic_load(&gp__kineto_par_merged), m0 + 1);
	dump(ta, &a);
	dump(tb, &b);
	assert_string_equal(a.buf, b.buf);
	expected(400, &d);
	assert_string_equal(a.buf, d.buf);
	/* the same string ids too */
	assert_int_equal(ta->nopargs, tb->nopargs);
	assert_memory_equal(ta->opargs, tb->opargs, ta->nopargs * sizeof(*ta->opargs));
	assert_int_equal(ta->nsync, tb->nsync);
	assert_memory_equal(ta->sync, tb->sync, ta->nsync * sizeof(*ta->sync));
	assert_int_equal(ta->npymod, tb->npymod);
	assert_memory_equal(ta->pymod, tb->pymod, ta->npymod * sizeof(*ta->pymod));
	gp_trace_free(ta);
	gp_trace_free(tb);
	gp__buf_release(&d);
	gp__buf_release(&a);
	gp__buf_release(&b);
}

static int to_buf(const void *p, size_t n, void *user)
{
	return gp__buf_add(user, p, n) ? GP_ENOMEM : 0;
}

/*
 * gpuprof export writes the tables back as Kineto has them (op inputs and
 * sync waits in args, nn.Module calls as python_function events), so that
 * the export reads back with the same tables (the other python_function
 * events are gone: npy counts the modules only).
 */
static void test_export_roundtrip(void **state)
{
	struct gp_buf d = GP_BUF_INIT, out = GP_BUF_INIT, a = GP_BUF_INIT, b = GP_BUF_INIT;
	struct gp_chrome_writer *w = NULL;
	struct gp_trace *t, *u = NULL;
	struct gp_open_opts o = { .size = sizeof(o), .name = "export" };
	struct gp_export_stats st;
	char *npy;

	(void)state;
	doc(&d, COPIES);
	t = open_mem(&d);
	assert_int_equal(gp_chrome_writer_new(to_buf, &out, &w), 0);
	assert_int_equal(gp_chrome_writer_add_trace(w, t, NULL), 0);
	assert_int_equal(gp_chrome_writer_finish(w), 0);
	gp_chrome_writer_stats(w, &st);
	gp_chrome_writer_free(w);
	assert_int_equal(st.events, t->ev.n + t->npymod);
	if (gp_trace_open_mem(out.buf, out.len, &o, &u))
		fail_msg("%s", gp_last_error());
	dump(t, &a);
	dump(u, &b);
	assert_int_equal(u->npy, u->npymod);
	npy = strstr(a.buf, "npy ");
	assert_non_null(npy);
	*npy = '\0';
	npy = strstr(b.buf, "npy ");
	assert_non_null(npy);
	*npy = '\0';
	assert_string_equal(a.buf, b.buf);
	gp_trace_free(t);
	gp_trace_free(u);
	gp__buf_release(&d);
	gp__buf_release(&out);
	gp__buf_release(&a);
	gp__buf_release(&b);
}

/*
 * The shared Qwen trace (record_shapes, with_modules, re-indented): the
 * "Input Dims" of every event that has them and the nn.Module python_function
 * events, listed by Python's json module at test time (json.dumps writes
 * integer arrays in Kineto's spelling), are the reader's, in file order.
 */
static void test_real_trace(void **state)
{
	static const char py[] =
	    "import gzip, json, sys\n"
	    "from decimal import Decimal\n"
	    "d = json.load(gzip.open(sys.argv[1]), parse_float=Decimal)\n"
	    "base = d.get('baseTimeNanoseconds', 0) if isinstance(d, dict) else 0\n"
	    "ev = d['traceEvents'] if isinstance(d, dict) else d\n"
	    "dims = [e['args']['Input Dims'] for e in ev if e.get('ph') == 'X'\n"
	    "        and e.get('cat') != 'python_function'\n"
	    "        and isinstance(e.get('args', {}).get('Input Dims'), list)]\n"
	    "mods = ['%s %d %d' % (e['name'], int(e['ts'] * 1000) + base, int(e['dur'] * 1000))\n"
	    "        for e in ev if e.get('ph') == 'X'\n"
	    "        and e.get('cat') == 'python_function'\n"
	    "        and e.get('name', '').startswith('nn.Module: ')]\n"
	    "print(len(dims), len(mods))\n"
	    "for x in dims: print(json.dumps(x))\n"
	    "for x in mods: print(x)\n";
	const char *dir = getenv("GP_SHARED_DIR");
	char path[1024], cmd[2048], script[128], *line = NULL;
	struct gp_open_opts o = { .size = sizeof(o) };
	struct gp_trace *t = NULL;
	unsigned long ndims = 0, nmods = 0, got = 0;
	size_t cap = 0, i, k;
	ssize_t len;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path),
	         "%s/traces/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	         dir ? dir : "../shared");
	if (access(path, R_OK) != 0)
		skip();
	snprintf(script, sizeof(script), "/tmp/gp_side_%ld.py", (long)getpid());
	f = fopen(script, "w");
	assert_non_null(f);
	fputs(py, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' 2>/dev/null", script, path);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (fscanf(f, "%lu %lu\n", &ndims, &nmods) != 2) {
		pclose(f);
		unlink(script);
		skip(); /* no python3 */
	}
	assert_int_equal(gp_trace_open(path, &o, &t), 0);
	for (i = 0; i < t->nopargs; i++)
		got += t->opargs[i].dims != 0;
	assert_int_equal(got, ndims);
	assert_int_equal(t->npymod, nmods);
	/* the texts and names, in order */
	for (i = k = 0; (len = getline(&line, &cap, f)) > 0; k++) {
		line[len - 1] = '\0';
		if (k < ndims) {
			while (!t->opargs[i].dims)
				i++;
			assert_string_equal(gp__strtab_get(&t->strs, t->opargs[i++].dims), line);
		} else {
			assert_true(k - ndims < t->npymod);
			const struct gp_py_module *m = &t->pymod[k - ndims];
			char want[1024];

			snprintf(want, sizeof(want), "%s %lld %lld",
			         gp__strtab_get(&t->strs, m->name), (long long)m->ts,
			         (long long)m->dur);
			assert_string_equal(want, line);
		}
	}
	assert_int_equal(k, ndims + nmods);
	free(line);
	assert_int_equal(pclose(f), 0);
	unlink(script);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_tables, cleanup),
		cmocka_unit_test(test_interned_once),
		cmocka_unit_test_teardown(test_shape_cache, cleanup),
		cmocka_unit_test(test_module_time),
		cmocka_unit_test(test_modules_only),
		cmocka_unit_test_teardown(test_threads, cleanup),
		cmocka_unit_test(test_export_roundtrip),
		cmocka_unit_test(test_real_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
