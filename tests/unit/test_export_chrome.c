/* SPDX-License-Identifier: MIT */
/*
 * test_export_chrome.c - the Chrome trace writer (export/chrome.c): a small
 * trace built with the model's constructors is exported to memory, parsed
 * back with the library's JSON parser and checked: events per phase, the
 * exact µs text of ns times, flow ids pairing an API call with its GPU
 * operations (a CUDA graph's second kernel included), pids of several ranks
 * kept apart, escaping of hostile names, async NVTX start/end ranges, memory
 * counters, and a write error.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-int.h"
#include "gpuprof/export.h"
#include "gpuprof/value.h"
#include "source/metrics.h"

/* a name with a quote, a backslash, control characters, "</script>", U+2028 and invalid UTF-8 */
/* gp_write_fn over a stdio stream, flushed at once so that a full disk shows at the call */
static int file_write(const void *p, size_t n, void *user)
{
	FILE *f = user;

	return fwrite(p, 1, n, f) == n && fflush(f) == 0 ? 0 : -1;
}

static const char hostile[] = "a\"b\\c\n\x01</script>\xe2\x80\xa8z\xff\xc3";
/* what a JSON parser must read back: each invalid byte became U+FFFD */
static const char hostile_back[] = "a\"b\\c\n\x01</script>\xe2\x80\xa8z\xef\xbf\xbd\xef\xbf\xbd";

struct out {
	char *text;
	size_t len;
	struct gp_value *doc;
	const struct gp_value *ev; /* traceEvents */
};

/*
 * pid 100, tid 101 ("main"): a runtime call (corr 5) at 1234567 ns for 2000 ns,
 * a CPU op around it, the hostile annotation, a start/end range, a driver call
 * (corr 9); GPU 0 stream 7: a kernel (corr 5) of 1234567 ns with its launch
 * configuration, a second kernel of corr 5 (a graph), a copy of 4096 bytes
 * (corr 9); an event at -1 ns; a memory counter.
 */
static struct gp_trace *make_trace(void)
{
	struct gp_trace *t = tu_trace_new();
	struct gp_gpu_info *gi;
	struct gp_mem_event m;
	uint32_t nid;
	size_t i;

	tu_add(t, GP_K_CPU_OP, "aten::mm", 100, 101, 1230000, 10000);
	tu_runtime(t, "cudaLaunchKernel", 100, 101, 1234567, 2000, 5);
	i = tu_kernel(t, "gemm_kernel", 0, 7, 1240000, 1234567, 5);
	gi = &t->gpu[t->ev.aux[i]];
	gi->grid[0] = 4, gi->grid[1] = 2, gi->grid[2] = 1;
	gi->block[0] = 256, gi->block[1] = 1, gi->block[2] = 1;
	gi->regs = 32;
	gi->shmem = 1024;
	tu_kernel(t, "graph_kernel_2", 0, 7, 2500000, 1000, 5);
	i = tu_add(t, GP_K_DRIVER, "cuMemcpyHtoDAsync", 100, 101, 2600000, 500);
	t->ev.corr[i] = 9;
	i = tu_kernel(t, "Memcpy HtoD (Pageable -> Device)", 0, 7, 2700000, 100, 9);
	t->ev.kind[i] = GP_K_MEMCPY;
	t->gpu[t->ev.aux[i]].bytes = 4096;
	tu_add(t, GP_K_USER_ANNOTATION, hostile, 100, 101, 1000000, 3000000);
	i = tu_add(t, GP_K_USER_ANNOTATION, "startend", 100, 101, 1100000, 2000000);
	t->ev.flags[i] |= GP_EVF_STARTEND;
	tu_add(t, GP_K_CPU_OP, "early", 100, 101, -1, 1);
	assert_int_equal(gp__strtab_intern(&t->strs, "main", 4, &nid), 0);
	t->tracks[t->ev.track[0]].name = nid;

	memset(&m, 0, sizeof(m));
	m.ts = 1300000;
	m.bytes = 512;
	m.total_allocated = 512;
	m.total_reserved = 2097152;
	m.addr = -1;
	m.device = 0;
	m.device_type = 1;
	m.track = t->ev.track[0];
	assert_int_equal(gp__trace_add_mem(t, &m), 0);
	return t;
}

/* exports @p n traces (labels "rank 0", "rank 1"... when n > 1) and parses the result */
static void export_traces(struct gp_trace **t, size_t n, struct out *o)
{
	struct gp_chrome_writer *w = NULL;
	size_t off = 0, i;
	FILE *f;

	memset(o, 0, sizeof(*o));
	f = open_memstream(&o->text, &o->len);
	assert_non_null(f);
	assert_int_equal(gp_chrome_writer_new(file_write, f, &w), 0);
	for (i = 0; i < n; i++) {
		char label[32];

		snprintf(label, sizeof(label), "rank %zu", i);
		assert_int_equal(gp_chrome_writer_add_trace(w, t[i], n > 1 ? label : NULL), 0);
	}
	assert_int_equal(gp_chrome_writer_finish(w), 0);
	gp_chrome_writer_free(w);
	assert_int_equal(fclose(f), 0);
	if (gp_value_parse(o->text, o->len, &o->doc, &off))
		fail_msg("the export is not JSON: byte %zu: %s", off, gp_last_error());
	o->ev = gp_obj_get(o->doc, "traceEvents");
	assert_int_equal(gp_value_type(o->ev), GP_VALUE_ARRAY);
}

static void out_release(struct out *o)
{
	gp_value_free(o->doc);
	free(o->text);
}

static const char *sget(const struct gp_value *e, const char *key)
{
	const char *s = gp_value_get_str(gp_obj_get(e, key));

	return s ? s : "";
}

static int64_t iget(const struct gp_value *e, const char *key)
{
	int64_t v = INT64_MIN;

	gp_value_get_int(gp_obj_get(e, key), &v);
	return v;
}

static size_t count_ph(const struct out *o, const char *ph)
{
	size_t i, n = 0;

	for (i = 0; i < gp_value_len(o->ev); i++)
		n += strcmp(sget(gp_arr_get(o->ev, i), "ph"), ph) == 0;
	return n;
}

/* the @p k-th event (from 0) of phase @p ph and name @p name ("" any) */
static const struct gp_value *find(const struct out *o, const char *ph, const char *name, size_t k)
{
	size_t i;

	for (i = 0; i < gp_value_len(o->ev); i++) {
		const struct gp_value *e = gp_arr_get(o->ev, i);

		if (strcmp(sget(e, "ph"), ph) == 0 &&
		    (!*name || strcmp(sget(e, "name"), name) == 0) && k-- == 0)
			return e;
	}
	return NULL;
}

/* the pid of the process named @p name by a process_name event, -1 if none */
static int64_t pid_named(const struct out *o, const char *name)
{
	size_t i;

	for (i = 0; i < gp_value_len(o->ev); i++) {
		const struct gp_value *e = gp_arr_get(o->ev, i);

		if (strcmp(sget(e, "ph"), "M") == 0 &&
		    strcmp(sget(e, "name"), "process_name") == 0 &&
		    strcmp(sget(gp_obj_get(e, "args"), "name"), name) == 0)
			return iget(e, "pid");
	}
	return -1;
}

static void test_events(void **state)
{
	struct gp_trace *t = make_trace();
	const struct gp_value *e, *args;
	struct out o;
	int64_t gpu;

	(void)state;
	export_traces(&t, 1, &o);
	assert_string_equal(sget(o.doc, "displayTimeUnit"), "ns");
	/* 9 slices, the start/end range being a b/e pair */
	assert_int_equal(count_ph(&o, "X"), 8);
	assert_int_equal(count_ph(&o, "b"), 1);
	assert_int_equal(count_ph(&o, "e"), 1);
	assert_int_equal(count_ph(&o, "s"), 3);
	assert_int_equal(count_ph(&o, "f"), 3);
	assert_int_equal(count_ph(&o, "C"), 1);

	/* the kernel: on "GPU 0", thread 7 named "stream 7", with its launch configuration */
	gpu = pid_named(&o, "GPU 0");
	assert_true(gpu >= (INT64_C(1) << 30));
	e = find(&o, "X", "gemm_kernel", 0);
	assert_non_null(e);
	assert_int_equal(iget(e, "pid"), gpu);
	assert_int_equal(iget(e, "tid"), 7);
	assert_string_equal(sget(e, "cat"), "kernel");
	args = gp_obj_get(e, "args");
	assert_int_equal(iget(args, "correlation"), 5);
	assert_int_equal(iget(args, "registers per thread"), 32);
	assert_int_equal(iget(args, "shared memory"), 1024);
	assert_int_equal(iget(args, "device"), 0);
	assert_int_equal(iget(args, "stream"), 7);
	assert_int_equal(gp_value_len(gp_obj_get(args, "grid")), 3);
	assert_true(gp_value_get_int(gp_arr_get(gp_obj_get(args, "grid"), 1), &gpu) && gpu == 2);
	assert_true(gp_value_get_int(gp_arr_get(gp_obj_get(args, "block"), 0), &gpu) && gpu == 256);
	assert_null(gp_obj_get(args, "bytes"));
	e = find(&o, "X", "Memcpy HtoD (Pageable -> Device)", 0);
	assert_string_equal(sget(e, "cat"), "gpu_memcpy");
	assert_int_equal(iget(gp_obj_get(e, "args"), "bytes"), 4096);

	/* the host: pid 100 kept, thread 101 named, the API call there */
	e = find(&o, "X", "cudaLaunchKernel", 0);
	assert_int_equal(iget(e, "pid"), 100);
	assert_int_equal(iget(e, "tid"), 101);
	assert_string_equal(sget(e, "cat"), "cuda_runtime");
	e = find(&o, "M", "thread_name", 0);
	assert_int_equal(iget(e, "pid"), 100);
	assert_int_equal(iget(e, "tid"), 101);
	assert_string_equal(sget(gp_obj_get(e, "args"), "name"), "main");
	/* GPUs sort after the host */
	e = find(&o, "M", "process_sort_index", 0);
	assert_int_equal(iget(e, "pid"), 100);
	e = find(&o, "M", "process_sort_index", 1);
	assert_true(iget(gp_obj_get(e, "args"), "sort_index") > 0);

	/* exact times, µs with three decimals, from the integer ns */
	assert_non_null(strstr(o.text, "\"ts\":1234.567}"));
	assert_non_null(strstr(o.text, "\"dur\":1234.567,"));
	assert_non_null(strstr(o.text, "\"dur\":2.000,"));
	assert_non_null(strstr(o.text, "\"ts\":-0.001}"));
	assert_non_null(strstr(o.text, "\"dur\":0.001,"));

	/* the memory counter on the GPU's process */
	e = find(&o, "C", "memory", 0);
	assert_int_equal(iget(e, "pid"), pid_named(&o, "GPU 0"));
	assert_int_equal(iget(gp_obj_get(e, "args"), "reserved_bytes"), 2097152);
	assert_non_null(strstr(o.text, "\"ts\":1300.000}"));

	/* the start/end range: b and e with one id, at its start and end */
	e = find(&o, "b", "startend", 0);
	assert_non_null(e);
	assert_int_equal(iget(e, "id"), iget(find(&o, "e", "startend", 0), "id"));
	assert_non_null(strstr(o.text, "\"name\":\"startend\",\"ph\":\"e\",\"pid\":100,"
	                               "\"tid\":101,\"ts\":3100.000}"));
	out_release(&o);
	gp_trace_free(t);
}

/* every "ts" and "dur" is digits, a point and exactly three digits */
static void test_time_text(void **state)
{
	struct gp_trace *t = make_trace();
	const char *keys[] = { "\"ts\":", "\"dur\":" };
	struct out o;
	size_t k, n = 0;

	(void)state;
	export_traces(&t, 1, &o);
	for (k = 0; k < 2; k++) {
		const char *p = o.text;

		while ((p = strstr(p, keys[k]))) {
			const char *q = p + strlen(keys[k]);
			size_t digits = 0;

			if (*q == '-')
				q++;
			while (*q >= '0' && *q <= '9')
				q++, digits++;
			assert_true(digits >= 1);
			assert_int_equal(*q, '.');
			assert_true(q[1] >= '0' && q[1] <= '9' && q[2] >= '0' && q[2] <= '9' &&
			            q[3] >= '0' && q[3] <= '9');
			assert_true(q[4] == ',' || q[4] == '}');
			p = q;
			n++;
		}
	}
	assert_true(n >= 20);
	out_release(&o);
	gp_trace_free(t);
}

static void test_flows(void **state)
{
	struct gp_trace *t = make_trace();
	const struct gp_value *s, *f, *api, *k;
	struct out o;
	size_t i;

	(void)state;
	export_traces(&t, 1, &o);
	api = find(&o, "X", "cudaLaunchKernel", 0);
	k = find(&o, "X", "gemm_kernel", 0);
	/* a single trace: the flow's id is the correlation id */
	for (i = 0; (s = find(&o, "s", "", i)); i++)
		if (iget(s, "id") == 5)
			break;
	assert_non_null(s);
	for (i = 0; (f = find(&o, "f", "", i)); i++)
		if (iget(f, "id") == 5)
			break;
	assert_non_null(f);
	assert_string_equal(sget(s, "cat"), "ac2g");
	assert_string_equal(sget(f, "cat"), "ac2g");
	assert_string_equal(sget(s, "name"), sget(f, "name"));
	assert_string_equal(sget(f, "bp"), "e");
	assert_int_equal(iget(s, "pid"), iget(api, "pid"));
	assert_int_equal(iget(s, "tid"), iget(api, "tid"));
	assert_int_equal(iget(f, "pid"), iget(k, "pid"));
	assert_int_equal(iget(f, "tid"), iget(k, "tid"));
	assert_non_null(strstr(o.text, "\"id\":5,\"name\":\"ac2g\",\"ph\":\"s\",\"pid\":100,"
	                               "\"tid\":101,\"ts\":1234.567}"));
	assert_non_null(strstr(o.text, "\"id\":5,\"name\":\"ac2g\",\"ph\":\"f\","));
	/* the copy's flow from the driver call: id 9 */
	assert_non_null(strstr(o.text, "\"id\":9,\"name\":\"ac2g\",\"ph\":\"s\",\"pid\":100,"
	                               "\"tid\":101,\"ts\":2600.000}"));
	/* the graph's second kernel: its own id past the largest correlation id (9) */
	assert_non_null(strstr(o.text, "\"id\":10,\"name\":\"ac2g\",\"ph\":\"s\",\"pid\":100,"
	                               "\"tid\":101,\"ts\":1234.567}"));
	assert_non_null(strstr(o.text, "\"bp\":\"e\",\"cat\":\"ac2g\",\"id\":10,\"name\":\"ac2g\","
	                               "\"ph\":\"f\""));
	assert_non_null(strstr(o.text, "\"ts\":2500.000}"));
	out_release(&o);
	gp_trace_free(t);
}

static void test_ranks(void **state)
{
	struct gp_trace *t[2] = { make_trace(), make_trace() };
	struct out o;
	int64_t g0, g1, h1, ids[6];
	size_t i;

	(void)state;
	export_traces(t, 2, &o);
	assert_int_equal(count_ph(&o, "X"), 16);
	assert_int_equal(count_ph(&o, "s"), 6);
	g0 = pid_named(&o, "rank 0: GPU 0");
	g1 = pid_named(&o, "rank 1: GPU 0");
	h1 = pid_named(&o, "rank 1: pid 100");
	assert_true(g0 > 0 && g1 > 0 && h1 > 0);
	assert_true(g0 != g1 && h1 != 100 && h1 != g0 && h1 != g1);
	assert_int_equal(pid_named(&o, "rank 0"), 100);
	/* rank 1's API call is in its own process, its flows have ids of their own */
	assert_int_equal(iget(find(&o, "X", "cudaLaunchKernel", 1), "pid"), h1);
	for (i = 0; i < 6; i++) {
		size_t j;

		ids[i] = iget(find(&o, "s", "", i), "id");
		for (j = 0; j < i; j++)
			assert_true(ids[i] != ids[j]);
	}
	/* rank 1's base: rank 0's largest correlation id + 1 + its one graph duplicate */
	assert_non_null(strstr(o.text, "\"id\":16,\"name\":\"ac2g\",\"ph\":\"s\""));
	assert_int_equal(iget(find(&o, "b", "", 1), "id") != iget(find(&o, "b", "", 0), "id"), 1);
	out_release(&o);
	gp_trace_free(t[0]);
	gp_trace_free(t[1]);
}

static void test_escaping(void **state)
{
	struct gp_trace *t = make_trace();
	const struct gp_value *e;
	struct out o;
	uint32_t sid;

	(void)state;
	/* a hostile thread name and label too */
	assert_int_equal(gp__strtab_intern(&t->strs, hostile, sizeof(hostile) - 1, &sid), 0);
	t->tracks[t->ev.track[0]].name = sid;
	export_traces(&t, 1, &o);
	e = find(&o, "X", hostile_back, 0);
	assert_non_null(e);
	assert_string_equal(sget(e, "cat"), "user_annotation");
	assert_string_equal(sget(gp_obj_get(find(&o, "M", "thread_name", 0), "args"), "name"),
	                    hostile_back);
	/* safe inside an HTML <script> and a JavaScript string */
	assert_null(strstr(o.text, "</script>"));
	assert_non_null(strstr(o.text, "<\\/script>"));
	assert_non_null(strstr(o.text, "\\u2028"));
	assert_non_null(strstr(o.text, "\"a\\\"b\\\\c\\n\\u0001<"));
	assert_null(memchr(o.text, '\x01', o.len));
	out_release(&o);
	gp_trace_free(t);
}

/* times relative to the first trace's baseTimeNanoseconds; the export reads back as a trace */
static void test_base_round_trip(void **state)
{
	const int64_t base = INT64_C(1751410836000000000);
	struct gp_open_opts oo = { .size = sizeof(oo), .name = "export" };
	struct gp_trace *t = make_trace(), *back = NULL;
	struct out o;
	size_t i, j;

	(void)state;
	t->has_base = true;
	t->base_ns = base;
	for (i = 0; i < t->ev.n; i++)
		t->ev.ts[i] += base;
	for (i = 0; i < t->nmem; i++)
		t->mem[i].ts += base;
	export_traces(&t, 1, &o);
	/* the origin: an hour before the trace's base, so that earlier ranks stay positive */
	assert_int_equal(iget(o.doc, "baseTimeNanoseconds"), base - INT64_C(3600000000000));
	assert_non_null(strstr(o.text, "\"ts\":3600001234.567}"));
	assert_non_null(strstr(o.text, "\"ts\":3599999999.999}"));

	/* the Kineto reader takes it back: the same slices, times, kinds and ids */
	assert_int_equal(gp_trace_open_mem(o.text, o.len, &oo, &back), 0);
	assert_int_equal(back->ev.n, t->ev.n - 1); /* the start/end range is b/e, not X */
	for (i = j = 0; i < t->ev.n; i++) {
		if (t->ev.flags[i] & GP_EVF_STARTEND)
			continue;
		assert_int_equal(back->ev.ts[j], t->ev.ts[i]);
		assert_int_equal(back->ev.dur[j], t->ev.dur[i]);
		assert_int_equal(back->ev.kind[j], t->ev.kind[i]);
		assert_int_equal(back->ev.corr[j], t->ev.corr[i]);
		assert_string_equal(gp__ev_name(back, j), strcmp(gp__ev_name(t, i), hostile) == 0
		                                              ? hostile_back
		                                              : gp__ev_name(t, i));
		if (t->ev.kind[i] == GP_K_KERNEL) {
			assert_true(back->ev.aux[j] < back->ngpu);
			assert_int_equal(back->gpu[back->ev.aux[j]].regs,
			                 t->gpu[t->ev.aux[i]].regs);
			assert_int_equal(back->gpu[back->ev.aux[j]].grid[0],
			                 t->gpu[t->ev.aux[i]].grid[0]);
			assert_int_equal(gp__ev_device(back, j), 0);
		}
		j++;
	}
	gp_trace_free(back);
	out_release(&o);
	gp_trace_free(t);
}

/* a metrics timeline: counters on processes of their own, unknown values left out */
static void test_metrics(void **state)
{
	static const char timeline[] =
	    "{\"schema\":\"gpuprof.metrics/1\",\"hostname\":\"node\\\"7\",\"interval_ms\":100}\n"
	    "{\"schema\":\"gpuprof.sample/1\",\"seq\":1,\"time_monotonic_ns\":5000001234,"
	    "\"host\":{\"cpu_busy_ratio\":0.25,\"load1\":1.5},"
	    "\"gpus\":[{\"index\":0,\"name\":\"Fake H100\",\"power_watts\":300.5}]}\n"
	    "{\"schema\":\"gpuprof.sample/1\",\"seq\":2,\"time_monotonic_ns\":5100001234,"
	    "\"host\":{\"cpu_busy_ratio\":null,\"load1\":2},"
	    "\"gpus\":[{\"index\":0,\"power_watts\":null}]}\n";
	struct gp_metrics_timeline *m = NULL;
	struct gp_chrome_writer *w = NULL;
	struct gp_export_stats st;
	const struct gp_value *e;
	size_t off = 0;
	struct out o;
	int64_t host, gpu;
	FILE *f;

	(void)state;
	assert_int_equal(gp__metrics_timeline_parse(timeline, sizeof(timeline) - 1, &m), 0);
	memset(&o, 0, sizeof(o));
	f = open_memstream(&o.text, &o.len);
	assert_non_null(f);
	assert_int_equal(gp_chrome_writer_new(file_write, f, &w), 0);
	assert_int_equal(gp__chrome_writer_add_timeline(w, m), 0);
	assert_int_equal(gp_chrome_writer_finish(w), 0);
	gp_chrome_writer_stats(w, &st);
	gp_chrome_writer_free(w);
	gp__metrics_timeline_free(m);
	assert_int_equal(fclose(f), 0);
	if (gp_value_parse(o.text, o.len, &o.doc, &off))
		fail_msg("not JSON at byte %zu: %s", off, gp_last_error());
	o.ev = gp_obj_get(o.doc, "traceEvents");

	/* 0.25 and 300.5 once, load1 twice; the nulls are not there */
	assert_int_equal(st.counters, 4);
	assert_int_equal(st.timelines, 1);
	assert_int_equal(count_ph(&o, "C"), 4);
	host = pid_named(&o, "node\"7: host metrics");
	gpu = pid_named(&o, "node\"7: GPU 0 metrics");
	assert_true(host >= (INT64_C(1) << 30) && gpu >= (INT64_C(1) << 30) && host != gpu);
	e = find(&o, "C", "cpu_busy_ratio", 0);
	assert_int_equal(iget(e, "pid"), host);
	assert_non_null(find(&o, "C", "load1", 1));
	assert_null(find(&o, "C", "cpu_busy_ratio", 1));
	e = find(&o, "C", "power_watts", 0);
	assert_int_equal(iget(e, "pid"), gpu);
	assert_null(find(&o, "C", "power_watts", 1));
	assert_non_null(strstr(o.text,
	                       "{\"args\":{\"value\":300.5},\"name\":\"power_watts\",\"ph\":"
	                       "\"C\""));
	assert_non_null(strstr(o.text, "\"ts\":5000001.234}"));
	assert_non_null(strstr(o.text, "\"ts\":5100001.234}"));
	assert_string_equal(sget(gp_obj_get(find(&o, "M", "process_labels", 0), "args"), "labels"),
	                    "Fake H100");
	out_release(&o);
}

static void test_empty_and_errors(void **state)
{
	struct gp_chrome_writer *w = NULL;
	struct gp_trace *t = tu_trace_new();
	struct gp_export_stats st;
	struct out o;
	FILE *f;

	(void)state;
	export_traces(&t, 1, &o);
	assert_int_equal(gp_value_len(o.ev), 0);
	assert_string_equal(sget(gp_obj_get(o.doc, "otherData"), "exporter"), "gpuprof");
	out_release(&o);
	gp_trace_free(t);

	/* a full disk: GP_EIO, said once, and sticky */
	f = fopen("/dev/full", "w");
	if (!f)
		skip();
	t = make_trace();
	assert_int_equal(gp_chrome_writer_new(file_write, f, &w), 0);
	assert_int_equal(gp_chrome_writer_add_trace(w, t, NULL), 0);
	assert_int_equal(gp_chrome_writer_finish(w), GP_EIO);
	assert_non_null(strstr(gp_last_error(), "cannot write"));
	assert_int_equal(gp_chrome_writer_add_trace(w, t, NULL), GP_EIO);
	gp_chrome_writer_stats(w, &st);
	assert_int_equal(st.traces, 1);
	assert_int_equal(st.events, 9);
	assert_int_equal(st.flows, 3);
	gp_chrome_writer_free(w);
	fclose(f);
	gp_trace_free(t);
}

/* every allocation failing in turn: a status, never a crash or a leak */
static void test_alloc_failures(void **state)
{
	struct gp_trace *t = make_trace();
	long n;

	(void)state;
	for (n = 1; n < 200; n++) {
		struct gp_chrome_writer *w = NULL;
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int rc;

		assert_non_null(f);
		gp__test_fail_alloc_after(n);
		rc = gp_chrome_writer_new(file_write, f, &w);
		if (!rc)
			rc = gp_chrome_writer_add_trace(w, t, "rank 0");
		if (!rc)
			rc = gp_chrome_writer_finish(w);
		gp__test_fail_alloc_after(0);
		assert_true(rc == 0 || rc == GP_ENOMEM);
		gp_chrome_writer_free(w);
		fclose(f);
		free(text);
		if (rc == 0)
			break;
	}
	/* several allocations failed before all went through */
	assert_true(n > 5 && n < 200);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),         cmocka_unit_test(test_time_text),
		cmocka_unit_test(test_flows),          cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_escaping),       cmocka_unit_test(test_empty_and_errors),
		cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_base_round_trip),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
