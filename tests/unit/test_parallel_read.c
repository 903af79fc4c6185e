/* SPDX-License-Identifier: MIT */
/*
 * test_parallel_read.c - the two-thread read of large files, plain and
 * gzip (kineto.c): generated traces of about 17 MiB in /tmp (and their
 * gzip, made with the gzip program, skipped without it) are opened once with
 * the single-thread reader (gp__kineto_no_parallel) and once with two
 * threads, and everything must be the same: every column, string, track,
 * GPU detail, collective arg, op input, cuda_sync wait, nn.Module call, memory
 * event, category count and the metadata, the reports,
 * or the error status and message with its offset. The traces have names
 * that hold "},{" and "}, {" (a wrong split candidate), a bare array,
 * baseTimeNanoseconds after traceEvents, errors in either half, a cut-off
 * file and an event limit. The split hook gp__kineto_split_at puts the
 * candidate inside a string on purpose.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof/trace.h"
#include "source/kineto-int.h"
#include "trace/model.h"
#include "util/error.h"

#define TARGET (17u << 20) /* over the 16 MiB threshold */

enum shape { SH_OBJ, SH_BARE };
enum damage { DM_NONE, DM_FIRST, DM_SECOND, DM_CUT };

struct gen {
	FILE *f;
	enum shape shape;
	enum damage damage;
	long tricky_at;    /* offset of a string holding "}, {" in the second half */
	unsigned long xev; /* X events that are not python_function */
};

static void emit_event(struct gen *g, unsigned long i, bool second)
{
	FILE *f = g->f;
	unsigned long ts = 1000000 + i * 7;
	unsigned k = (unsigned)(i % 12);

	switch (k) {
	case 0:
		fprintf(
		    f,
		    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, "
		    "\"tid\": %lu, \"ts\": %lu, \"dur\": 5, \"args\": {\"External id\": %lu, "
		    "\"Input Dims\": [[1, %lu], [3]], \"Input type\": [\"float\", \"%s\"], "
		    "\"Concrete Inputs\": [\"\", \"a\\\"b %s\"], \"Sequence number\": 1}}",
		    100 + i % 3, ts, i, i % 13, second ? "c10::Half" : "int", second ? "z" : "y");
		g->xev++;
		break;
	case 1:
		fprintf(
		    f,
		    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
		    "\"pid\": 100, \"tid\": 101, \"ts\": %lu, \"dur\": 2, \"args\": "
		    "{\"correlation\": %lu, \"External id\": %lu}}",
		    ts, i, i - 1);
		g->xev++;
		break;
	case 2: {
		/*
		 * stream 7 of pid 1 gets args.device only in the second half,
		 * stream 8 only in the first: the merge must keep the latter's
		 */
		unsigned long s = 7 + (i / 12) % 2;
		bool dev = second ? s == 7 && i % 5 == 0 : s == 8;

		fprintf(
		    f,
		    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm_%lu<float>(int)\", "
		    "\"pid\": %d, \"tid\": \"stream %lu\", \"ts\": %lu, \"dur\": 3, \"args\": {%s"
		    "\"stream\": %lu, \"correlation\": %lu, \"grid\": [%lu, 1, 1], "
		    "\"block\": [128, 1, 1], \"registers per thread\": 32, \"shared memory\": 0, "
		    "\"warps per SM\": 1.5, \"est. achieved occupancy %%\": 12.25}}",
		    i % 7, second && i % 7 == 0 ? 3 : 1, s, ts, dev ? "\"device\": 2, " : "", s,
		    i - 1, i % 100);
		g->xev++;
		break;
	}
	case 3:
		fprintf(f,
		        "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
		        "\"pid\": 100, \"tid\": %lu, \"ts\": %lu, \"s\": \"t\", \"args\": "
		        "{\"Total Reserved\": 4096, \"Total Allocated\": %lu, \"Bytes\": %ld, "
		        "\"Addr\": %lu, \"Device Id\": 0, \"Device Type\": 1}}",
		        second ? 300 + i % 2 : 100, ts, i * 4, i % 2 ? -512L : 512L, 77 + i);
		break;
	case 4:
		/* every other one an nn.Module call, on a thread new in the second half */
		if (i % 24 == 4)
			fprintf(
			    f,
			    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): "
			    "g\", \"pid\": 100, \"tid\": 100, \"ts\": %lu, \"dur\": 1}",
			    ts);
		else
			fprintf(
			    f,
			    "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": "
			    "\"nn.Module: %s_%lu\", \"pid\": 100, \"tid\": %d, \"ts\": %lu, "
			    "\"dur\": 9, \"args\": {\"Python id\": %lu, \"Python parent id\": %s}}",
			    second ? "Late" : "Block", i % 5, second ? 404 : 100, ts, i,
			    i % 3 ? "1" : "null");
		break;
	case 5:
		fprintf(f,
		        "{\"ph\": \"s\", \"id\": %lu, \"pid\": 100, \"tid\": 101, \"ts\": %lu, "
		        "\"cat\": \"ac2g\", \"name\": \"ac2g\"}",
		        i, ts);
		break;
	case 6:
		/* a name that looks like an element boundary */
		if (second && g->tricky_at < 0)
			g->tricky_at = ftell(f); /* its first "}," is in the name */
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"pid\": 100, \"tid\": 100, "
		        "\"name\": \"tricky %lu }, { \\\"x\\\": 1 },{ \\u00e9 \", \"ts\": %lu, "
		        "\"dur\": 4}",
		        i % 9, ts);
		g->xev++;
		break;
	case 7:
		if (i % 60 == 7)
			fprintf(f,
			        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
			        "\"ProfilerStep#%lu\", \"pid\": 100, \"tid\": 100, \"ts\": %lu, "
			        "\"dur\": 50}",
			        i / 60, ts);
		else
			fprintf(f,
			        "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"ann\", \"pid\": 0, "
			        "\"tid\": 7, \"ts\": %lu%s, \"dur\": 1}",
			        second ? "gpu_user_annotation" : "Trace", ts, second ? ".25" : "");
		g->xev++;
		break;
	case 8:
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", "
		        "\"pid\": 1, \"tid\": \"stream 9\", \"ts\": %lu, \"dur\": 2, \"args\": "
		        "{\"bytes\": %lu, \"memory bandwidth (GB/s)\": 3.5, \"correlation\": %lu}}",
		        ts, i, i);
		g->xev++;
		break;
	case 9:
		fprintf(f,
		        "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": %lu, "
		        "\"args\": {\"name\": \"%s\"}}",
		        100 + i % 5,
		        second && i % 5 == 1 ? ""
		        : second && i % 2    ? "thread b"
		                             : "thread a");
		break;
	case 10:
		fprintf(
		    f,
		    "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op\\\"q\\\" %lu\", \"pid\": "
		    "\"Spans\", \"tid\": \"%s\", \"ts\": %lu, \"dur\": 2, \"args\": {\"stream\": "
		    "%lu, \"Collective name\": \"allreduce\", \"Seq\": %lu, \"In msg nelems\": "
		    "%lu, \"dtype\": \"Float\", \"Process Group Name\": \"%s\"}}",
		    second ? "new_cat_b" : "cpu_op", i % 4, second ? "late track" : "Trace 1", ts,
		    i % 3, i, i * 3, second ? "pg b" : "0");
		g->xev++;
		break;
	default:
		if (i % 24 == 11) {
			fprintf(
			    f,
			    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Event Sync\", "
			    "\"pid\": 100, \"tid\": 101, \"ts\": %lu, \"dur\": 1, \"args\": "
			    "{\"cuda_sync_kind\": \"%s\", \"stream\": 7, \"wait_on_stream\": %lu, "
			    "\"wait_on_cuda_event_record_corr_id\": %lu, "
			    "\"wait_on_cuda_event_id\": 3}}",
			    ts, second ? "Stream Wait Event" : "Event Sync", i % 4, i - 10);
			g->xev++;
			break;
		}
		fprintf(f,
		        "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", "
		        "\"pid\": 0, \"tid\": \"stream 7\", \"ts\": %lu, \"dur\": 1, \"args\": "
		        "{\"device\": 0, \"stream\": 7, \"bytes\": 64}}",
		        ts);
		g->xev++;
		break;
	}
}

/* Writes a trace of about TARGET bytes; @return the number of X events kept. */
static unsigned long gen_trace(const char *path, enum shape shape, enum damage dm, long *tricky)
{
	struct gen g = { .shape = shape, .damage = dm, .tricky_at = -1 };
	unsigned long i;
	long pos;
	bool second = false, hurt = false;

	g.f = fopen(path, "w");
	assert_non_null(g.f);
	if (shape == SH_OBJ)
		fputs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
		      "\"GPU }, {\"}],\n  \"distributedInfo\": {\"rank\": 3, \"world_size\": 8},\n"
		      "  \"traceEvents\": [\n",
		      g.f);
	else
		fputs("[\n", g.f);
	for (i = 0;; i++) {
		pos = ftell(g.f);
		if (pos >= (long)TARGET)
			break;
		second = pos > (long)TARGET / 2;
		if (i)
			fputs(",\n", g.f);
		fputs("  ", g.f);
		if (!hurt && ((dm == DM_FIRST && pos > (long)TARGET / 4) ||
		              (dm == DM_SECOND && pos > (long)TARGET * 3 / 4))) {
			/* a missing comma (second half) or a bad literal (first half) */
			fputs(dm == DM_FIRST ? "{\"ph\": \"X\", \"ts\": tru}, "
			                     : "{\"ph\": \"X\"}\n  ",
			      g.f);
			hurt = true;
		}
		emit_event(&g, i, second);
	}
	if (dm != DM_CUT) {
		fputs("\n]", g.f);
		if (shape == SH_OBJ)
			fputs(",\n  \"baseTimeNanoseconds\": 1700000000000000000,\n"
			      "  \"displayTimeUnit\": \"ms\"\n}\n",
			      g.f);
		else
			fputs("\n", g.f);
	}
	assert_int_equal(fclose(g.f), 0);
	if (tricky)
		*tricky = g.tricky_at;
	return g.xev;
}

/* ---- comparing two traces ---- */

static void same_json(const struct gp_value *a, const struct gp_value *b)
{
	char *sa = NULL, *sb = NULL;
	size_t na = 0, nb = 0;

	assert_int_equal(gp_value_to_json(a, 0, &sa, &na), 0);
	assert_int_equal(gp_value_to_json(b, 0, &sb, &nb), 0);
	assert_int_equal(na, nb);
	assert_string_equal(sa, sb);
	gp_free(sa);
	gp_free(sb);
}

#define SAME_COL(col, n) assert_memory_equal(a->ev.col, b->ev.col, (n) * sizeof(*a->ev.col))

static void same_trace(const struct gp_trace *a, const struct gp_trace *b)
{
	size_t i, n = a->ev.n;

	assert_int_equal(a->ev.n, b->ev.n);
	if (n) {
		SAME_COL(ts, n);
		SAME_COL(dur, n);
		SAME_COL(corr, n);
		SAME_COL(ext, n);
		SAME_COL(stream, n);
		SAME_COL(name, n);
		SAME_COL(track, n);
		SAME_COL(aux, n);
		SAME_COL(kind, n);
		SAME_COL(flags, n);
	}
	/* the same strings under the same ids */
	assert_int_equal(a->strs.n, b->strs.n);
	for (i = 0; i < a->strs.n; i++) {
		assert_int_equal(a->strs.len[i], b->strs.len[i]);
		assert_memory_equal(a->strs.str[i], b->strs.str[i], a->strs.len[i]);
	}
	assert_int_equal(a->ntracks, b->ntracks);
	for (i = 0; i < a->ntracks; i++) {
		const struct gp_track *x = &a->tracks[i], *y = &b->tracks[i];

		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->pid_str, y->pid_str);
		assert_int_equal(x->tid_str, y->tid_str);
		assert_int_equal(x->name, y->name);
		assert_int_equal(x->gpu, y->gpu);
		assert_int_equal(x->set, y->set);
		assert_int_equal(x->device, y->device);
		assert_int_equal(x->stream, y->stream);
	}
	assert_int_equal(a->ngpu, b->ngpu);
	if (a->ngpu)
		assert_memory_equal(a->gpu, b->gpu, a->ngpu * sizeof(*a->gpu));
	assert_int_equal(a->ncoll, b->ncoll);
	if (a->ncoll)
		assert_memory_equal(a->coll, b->coll, a->ncoll * sizeof(*a->coll));
	/* the side tables: string ids and tracks are the same, so their bytes are */
	assert_int_equal(a->nopargs, b->nopargs);
	if (a->nopargs)
		assert_memory_equal(a->opargs, b->opargs, a->nopargs * sizeof(*a->opargs));
	assert_int_equal(a->nsync, b->nsync);
	if (a->nsync)
		assert_memory_equal(a->sync, b->sync, a->nsync * sizeof(*a->sync));
	assert_int_equal(a->npymod, b->npymod);
	if (a->npymod)
		assert_memory_equal(a->pymod, b->pymod, a->npymod * sizeof(*a->pymod));
	assert_int_equal(a->nmem, b->nmem);
	for (i = 0; i < a->nmem; i++) {
		const struct gp_mem_event *x = &a->mem[i], *y = &b->mem[i];

		assert_int_equal(x->ts, y->ts);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->total_allocated, y->total_allocated);
		assert_int_equal(x->total_reserved, y->total_reserved);
		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->device, y->device);
		assert_int_equal(x->device_type, y->device_type);
		assert_int_equal(x->track, y->track);
	}
	assert_int_equal(a->ncats, b->ncats);
	for (i = 0; i < a->ncats; i++) {
		assert_int_equal(a->cats[i].cat, b->cats[i].cat);
		assert_int_equal(a->cats[i].ph, b->cats[i].ph);
		assert_int_equal(a->cats[i].count, b->cats[i].count);
	}
	assert_int_equal(a->cats_full, b->cats_full);
	assert_int_equal(a->npy, b->npy);
	same_json(a->meta, b->meta);
	assert_string_equal(a->path, b->path);
	assert_int_equal(a->rank, b->rank);
	assert_int_equal(a->world_size, b->world_size);
	assert_int_equal(a->base_ns, b->base_ns);
	assert_int_equal(a->has_base, b->has_base);
	assert_int_equal(a->ts_float, b->ts_float);
	assert_int_equal(a->bare_array, b->bare_array);
	assert_int_equal(a->events_read, b->events_read);
	assert_int_equal(a->bytes_read, b->bytes_read);
	assert_int_equal(a->salvaged, b->salvaged);
}

static void same_report(struct gp_trace *a, struct gp_trace *b, enum gp_compat compat)
{
	struct gp_value *ra = tu_analyze(a, compat), *rb = tu_analyze(b, compat);

	same_json(ra, rb);
	gp_value_free(ra);
	gp_value_free(rb);
}

enum expect { EX_ANY, EX_MERGED, EX_DROPPED };

static bool with_reports; /* also compare the reports (slow under sanitizers) */

/*
 * Opens @p path sequentially and with two threads; both must give the same
 * trace (and reports) or the same error. @return the status.
 */
static int check(const char *path, uint64_t max_events, enum expect ex)
{
	struct gp_open_opts o = { .size = sizeof(o), .max_events = max_events };
	struct gp_trace *a = NULL, *b = NULL;
	unsigned m0, d0;
	char err[1024];
	int ra, rb;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		ex = EX_ANY; /* the read stays single-threaded */
	gp__kineto_no_parallel = true;
	ra = gp_trace_open(path, &o, &a);
	snprintf(err, sizeof(err), "%s", gp_last_error());
	gp__kineto_no_parallel = false;
	m0 = atomic_load(&gp__kineto_par_merged);
	d0 = atomic_load(&gp__kineto_par_dropped);
	rb = gp_trace_open(path, &o, &b);
	if (ex == EX_MERGED) {
		assert_int_equal(atomic_load(&gp__kineto_par_merged), m0 + 1);
		assert_int_equal(atomic_load(&gp__kineto_par_dropped), d0);
	} else if (ex == EX_DROPPED) {
		assert_int_equal(atomic_load(&gp__kineto_par_merged), m0);
		assert_int_equal(atomic_load(&gp__kineto_par_dropped), d0 + 1);
	}
	assert_int_equal(ra, rb);
	if (ra) {
		assert_string_equal(err, gp_last_error());
		assert_null(a);
		assert_null(b);
		return ra;
	}
	assert_non_null(a);
	assert_non_null(b);
	same_trace(a, b);
	if (with_reports) {
		same_report(a, b, GP_COMPAT_NONE);
		same_report(a, b, GP_COMPAT_HTA);
	}
	gp_trace_free(a);
	gp_trace_free(b);
	return 0;
}

static void tmp_path(char *buf, size_t n, const char *what)
{
	snprintf(buf, n, "/tmp/gp_par_%ld_%s.json", (long)getpid(), what);
}

/* Writes @p path + ".gz" (into @p gz) with the gzip program; false without one. */
static bool gzip_file(const char *path, char *gz, size_t n)
{
	char cmd[1024];

	snprintf(gz, n, "%s.gz", path);
	snprintf(cmd, sizeof(cmd), "gzip -1 -c '%s' > '%s' 2>/dev/null", path, gz);
	if (system(cmd) != 0) {
		unlink(gz);
		return false;
	}
	return true;
}

/* the trace has op inputs, syncs and nn.Module calls in both halves */
static void has_side_tables(const char *path)
{
	struct gp_open_opts o = { .size = sizeof(o) };
	struct gp_trace *t = NULL;
	size_t last;

	gp__kineto_no_parallel = true;
	assert_int_equal(gp_trace_open(path, &o, &t), 0);
	gp__kineto_no_parallel = false;
	assert_true(t->nopargs > 1000);
	assert_true(t->nsync > 100);
	assert_true(t->npymod > 100);
	last = t->npymod - 1;
	assert_int_equal(t->tracks[t->pymod[0].track].tid, 100);
	assert_int_equal(t->tracks[t->pymod[last].track].tid, 404);
	assert_int_equal(t->pymod[last].parent, t->pymod[last].id % 3 ? 1 : -1);
	gp_trace_free(t);
}

static void test_object(void **state)
{
	char path[256];
	unsigned long xev;
	long tricky;

	(void)state;
	tmp_path(path, sizeof(path), "obj");
	xev = gen_trace(path, SH_OBJ, DM_NONE, &tricky);
	assert_true(tricky > (long)TARGET / 2);
	has_side_tables(path);
	with_reports = true;
	assert_int_equal(check(path, 0, EX_MERGED), 0);
	with_reports = false;
	/* a limit reached only by both halves together, and one in the first half */
	assert_int_equal(check(path, xev - xev / 4, EX_DROPPED), GP_ELIMIT);
	assert_int_equal(check(path, xev / 4, EX_DROPPED), GP_ELIMIT);
	assert_int_equal(check(path, xev, EX_MERGED), 0);
	/* the candidate inside a name: the first half never stops there */
	gp__kineto_split_at = (uint64_t)tricky;
	assert_int_equal(check(path, 0, EX_DROPPED), 0);
	/* candidates right at the start of the events and near the end */
	gp__kineto_split_at = 300;
	assert_int_equal(check(path, 0, EX_ANY), 0);
	gp__kineto_split_at = TARGET - 600;
	assert_int_equal(check(path, 0, EX_ANY), 0);
	gp__kineto_split_at = 0;
	unlink(path);
}

static void test_bare(void **state)
{
	char path[256];

	(void)state;
	tmp_path(path, sizeof(path), "bare");
	gen_trace(path, SH_BARE, DM_NONE, NULL);
	with_reports = true;
	assert_int_equal(check(path, 0, EX_MERGED), 0);
	with_reports = false;
	unlink(path);
}

static void test_errors(void **state)
{
	char path[256];

	(void)state;
	tmp_path(path, sizeof(path), "err2");
	gen_trace(path, SH_OBJ, DM_SECOND, NULL);
	assert_int_equal(check(path, 0, EX_DROPPED), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), "expected ',' or ']' after an event"));
	unlink(path);

	tmp_path(path, sizeof(path), "err1");
	gen_trace(path, SH_OBJ, DM_FIRST, NULL);
	assert_int_equal(check(path, 0, EX_DROPPED), GP_EFORMAT);
	unlink(path);

	tmp_path(path, sizeof(path), "cut");
	gen_trace(path, SH_BARE, DM_CUT, NULL);
	assert_int_equal(check(path, 0, EX_DROPPED), GP_ETRUNC);
	assert_non_null(strstr(gp_last_error(), "unexpected end of input"));
	unlink(path);
}

/*
 * gzip: the second half inflates its own stream up to the split; after the
 * merge the first goes on with that stream (the checksum, the members after
 * traceEvents). Everything must still be the single reader's.
 */
static void test_gzip(void **state)
{
	char path[256], gz[300];
	long tricky;

	(void)state;
	tmp_path(path, sizeof(path), "gzobj");
	gen_trace(path, SH_OBJ, DM_NONE, &tricky);
	if (!gzip_file(path, gz, sizeof(gz))) {
		unlink(path);
		skip();
	}
	unlink(path);
	gp__kineto_par_sync = true;
	with_reports = true;
	assert_int_equal(check(gz, 0, EX_MERGED), 0);
	with_reports = false;
	/* the candidate inside a name; right at the start; near the end */
	gp__kineto_split_at = (uint64_t)tricky;
	assert_int_equal(check(gz, 0, EX_DROPPED), 0);
	gp__kineto_split_at = 300;
	assert_int_equal(check(gz, 0, EX_ANY), 0);
	gp__kineto_split_at = TARGET - 600;
	assert_int_equal(check(gz, 0, EX_ANY), 0);
	gp__kineto_split_at = 0;
	unlink(gz);

	tmp_path(path, sizeof(path), "gzbare");
	gen_trace(path, SH_BARE, DM_NONE, NULL);
	assert_true(gzip_file(path, gz, sizeof(gz)));
	unlink(path);
	assert_int_equal(check(gz, 0, EX_MERGED), 0);
	/* cut inside the compressed data: a truncated stream in either half */
	assert_int_equal(truncate(gz, 300000), 0);
	assert_int_equal(check(gz, 0, EX_ANY), GP_ETRUNC);
	unlink(gz);

	tmp_path(path, sizeof(path), "gzerr");
	gen_trace(path, SH_OBJ, DM_SECOND, NULL);
	assert_true(gzip_file(path, gz, sizeof(gz)));
	unlink(path);
	assert_int_equal(check(gz, 0, EX_DROPPED), GP_EFORMAT);
	assert_non_null(strstr(gp_last_error(), "(uncompressed)"));
	unlink(gz);
}

/* Removes the files of a failed test too (an assertion leaves the test early). */
static int remove_files(void **state)
{
	static const char *const what[] = { "obj", "bare",  "err1",   "err2",
		                            "cut", "gzobj", "gzbare", "gzerr" };
	char path[256], gz[300];
	size_t i;

	(void)state;
	gp__kineto_split_at = 0;
	gp__kineto_par_sync = false;
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		tmp_path(path, sizeof(path), what[i]);
		unlink(path);
		snprintf(gz, sizeof(gz), "%s.gz", path);
		unlink(gz);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_object, remove_files),
		cmocka_unit_test_teardown(test_bare, remove_files),
		cmocka_unit_test_teardown(test_errors, remove_files),
		cmocka_unit_test_teardown(test_gzip, remove_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
