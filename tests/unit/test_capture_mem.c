/* SPDX-License-Identifier: MIT */
/*
 * test_capture_mem.c - CUDA allocations and frees in the capture reader (MEM
 * records, src/lib/source/capture-mem.c), on captures built here record by
 * record: each becomes a memory event with its sign, address, device and
 * device type; it lands on the thread of the API call with its correlation
 * id whether that call comes before or after it in the file, else on the
 * main thread with one warning; pinned host memory goes to the CPU row, the
 * static kinds and records that cannot be right are left out and counted; a
 * record shorter than version 1's is skipped with a warning, a longer one
 * (fields a newer writer appended) is read; a capture without MEM records
 * has no memory events; a time out of the model's range is an error naming
 * the byte offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "source/capfmt.h"
#include "source/capture.h"
#include "util/strtab.h"

#define MIB (1ll << 20)

struct buf {
	unsigned char b[1 << 14];
	size_t n;
};

static void put(struct buf *c, uint32_t type, const void *p, size_t n)
{
	struct gp_cap_rec_header rh = { type, (uint32_t)n };

	assert_true(c->n + sizeof(rh) + n + 8 <= sizeof(c->b));
	memcpy(c->b + c->n, &rh, sizeof(rh));
	memcpy(c->b + c->n + sizeof(rh), p, n);
	c->n += sizeof(rh) + (n + 7) / 8 * 8; /* zeroed: the padding is zeros */
}

/* header, META of pid 77, STRING 1 "cudaMalloc" */
static void start(struct buf *c)
{
	struct gp_cap_file_header h;
	static const char meta[] = "{\"pid\":77}";
	struct {
		struct gp_cap_string s;
		char text[10];
	} str = { { 1, 0 }, { 'c', 'u', 'd', 'a', 'M', 'a', 'l', 'l', 'o', 'c' } };

	memset(c, 0, sizeof(*c));
	memcpy(h.magic, GP_CAP_MAGIC, 8);
	h.version = GP_CAP_VERSION;
	h.header_size = GP_CAP_HEADER_SIZE;
	memcpy(c->b, &h, sizeof(h));
	c->n = sizeof(h);
	put(c, GP_CAP_META, meta, strlen(meta));
	put(c, GP_CAP_STRING, &str, sizeof(str));
}

static void api(struct buf *c, int64_t ts, uint32_t tid, uint32_t corr)
{
	struct gp_cap_api a;

	memset(&a, 0, sizeof(a));
	a.start = ts;
	a.end = ts + 1000;
	a.pid = 77;
	a.tid = tid;
	a.correlation = corr;
	a.name = 1;
	a.domain = GP_CAP_RUNTIME;
	put(c, GP_CAP_API, &a, sizeof(a));
}

static void mem(struct buf *c, int64_t ts, uint8_t op, uint8_t kind, uint32_t dev, uint64_t addr,
                uint64_t bytes, uint32_t corr)
{
	struct gp_cap_mem m;

	memset(&m, 0, sizeof(m));
	m.ts = ts;
	m.op = op;
	m.memory_kind = kind;
	m.device = dev;
	m.addr = addr;
	m.bytes = bytes;
	m.correlation = corr;
	m.pid = 77;
	m.context = 1;
	m.stream = UINT32_MAX;
	put(c, GP_CAP_MEM, &m, sizeof(m));
}

/* the capture ended (an END record: no warning about its end), read */
static struct gp_trace *open_buf(struct buf *c)
{
	static const char end[] = "{\"reason\":\"exit\"}";
	struct gp_trace *t = NULL;

	put(c, GP_CAP_END, end, strlen(end));

	if (gp__capture_open_mem(c->b, c->n, "mem.gpcap", NULL, &t) != 0)
		fail_msg("open: %s", gp_last_error());
	return t;
}

static int64_t read_int(const struct gp_trace *t, const char *key)
{
	int64_t v = -1;

	assert_true(
	    gp_value_get_int(gp_obj_get(gp_obj_get(t->meta, "gpuprof_capture_read"), key), &v));
	return v;
}

static const struct gp_track *track_of(const struct gp_trace *t, size_t i)
{
	assert_true(t->mem[i].track < t->ntracks);
	return &t->tracks[t->mem[i].track];
}

static void test_placed(void **state)
{
	struct buf c;
	struct gp_trace *t;

	(void)state;
	start(&c);
	api(&c, 1000, 77, 10);
	mem(&c, 1500, 1, 3, 0, 0x1000, 1 * MIB, 10);
	/* its call comes after it (CUPTI's buffers), on another thread */
	mem(&c, 2500, 1, 3, 0, 0x200000, 4 * MIB, 11);
	api(&c, 2000, 78, 11);
	mem(&c, 3500, 2, 3, 0, 0x1000, 1 * MIB, 12);
	api(&c, 3000, 77, 12);
	/* managed memory: the GPU's row; pinned: the CPU's */
	api(&c, 4000, 77, 13);
	mem(&c, 4500, 1, 5, 1, 0x300000, 2 * MIB, 13);
	api(&c, 5000, 78, 14);
	mem(&c, 5500, 1, 2, 0, 0x400000, 65536, 14);
	t = open_buf(&c);
	assert_int_equal(t->nmem, 5);
	assert_int_equal(t->mem[0].bytes, MIB);
	assert_int_equal(t->mem[0].addr, 0x1000);
	assert_int_equal(t->mem[0].ts, 1500);
	assert_int_equal(t->mem[0].device, 0);
	assert_int_equal(t->mem[0].device_type, 1);
	assert_int_equal(t->mem[0].total_allocated, -1);
	assert_int_equal(t->mem[0].total_reserved, -1);
	assert_int_equal(track_of(t, 0)->pid, 77);
	assert_int_equal(track_of(t, 0)->tid, 77);
	assert_int_equal(track_of(t, 1)->tid, 78);
	assert_int_equal(t->mem[2].bytes, -MIB);
	assert_int_equal(track_of(t, 2)->tid, 77);
	assert_int_equal(t->mem[3].device, 1);
	assert_int_equal(t->mem[3].device_type, 1);
	assert_int_equal(t->mem[4].device, -1);
	assert_int_equal(t->mem[4].device_type, 0);
	assert_int_equal(track_of(t, 4)->tid, 78);
	assert_false(track_of(t, 4)->gpu);
	assert_int_equal(read_int(t, "cuda_memory_events"), 5);
	assert_int_equal(read_int(t, "cuda_memory_unplaced"), 0);
	assert_int_equal(read_int(t, "warnings"), 0);
	gp_trace_free(t);
}

static void test_unplaced_and_left_out(void **state)
{
	struct buf c;
	struct gp_trace *t;
	const struct gp_value *w;

	(void)state;
	start(&c);
	api(&c, 1000, 78, 10);
	mem(&c, 1500, 1, 3, 0, 0x1000, MIB, 99); /* no call 99 */
	mem(&c, 1600, 2, 3, 0, 0x1000, MIB, 0);  /* no correlation at all */
	mem(&c, 1700, 1, 6, 0, 0x9000, 512, 0);  /* device static */
	mem(&c, 1800, 1, 7, 0, 0xa000, 512, 0);  /* managed static */
	mem(&c, 1900, 0, 3, 0, 0xb000, 512, 10); /* no operation */
	mem(&c, 2000, 3, 3, 0, 0xc000, 512, 10); /* an operation CUPTI does not have */
	mem(&c, 2100, 1, 3, 0, 0xd000, UINT64_MAX, 10);
	t = open_buf(&c);
	assert_int_equal(t->nmem, 2);
	assert_int_equal(track_of(t, 0)->pid, 77);
	assert_int_equal(track_of(t, 0)->tid, 77); /* the main thread */
	assert_int_equal(t->mem[0].track, t->mem[1].track);
	assert_int_equal(read_int(t, "cuda_memory_unplaced"), 2);
	assert_int_equal(read_int(t, "cuda_memory_static"), 2);
	assert_int_equal(read_int(t, "cuda_memory_skipped"), 3);
	assert_int_equal(read_int(t, "warnings"), 1);
	w = gp_arr_get(gp_obj_get(gp_obj_get(t->meta, "gpuprof_capture_read"), "warning_messages"),
	               0);
	assert_non_null(strstr(gp_value_get_str(gp_obj_get(w, "text")),
	                       "2 CUDA allocations and frees have no runtime or driver call"));
	gp_trace_free(t);
}

static void test_sizes(void **state)
{
	struct buf c;
	struct gp_trace *t;
	struct gp_cap_mem m;
	unsigned char longer[sizeof(m) + 16];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.ts = 1000;
	m.op = 1;
	m.memory_kind = 3;
	m.bytes = 4096;
	m.addr = 0x5000;
	start(&c);
	put(&c, GP_CAP_MEM, &m, sizeof(m) - 8); /* shorter than version 1's: skipped */
	memset(longer, 0xee, sizeof(longer));
	memcpy(longer, &m, sizeof(m)); /* a newer writer's fields after: ignored */
	put(&c, GP_CAP_MEM, longer, sizeof(longer));
	t = open_buf(&c);
	assert_int_equal(t->nmem, 1);
	assert_int_equal(t->mem[0].bytes, 4096);
	assert_int_equal(t->mem[0].addr, 0x5000);
	assert_int_equal(read_int(t, "warnings"), 2); /* the short record, the unplaced one */
	gp_trace_free(t);

	/* an old capture: no MEM records, no memory events */
	start(&c);
	api(&c, 1000, 77, 10);
	t = open_buf(&c);
	assert_int_equal(t->nmem, 0);
	assert_int_equal(read_int(t, "cuda_memory_events"), 0);
	gp_trace_free(t);
}

static void test_bad_time(void **state)
{
	struct buf c;
	struct gp_trace *t = NULL;
	size_t off;

	(void)state;
	start(&c);
	off = c.n;
	mem(&c, INT64_MAX, 1, 3, 0, 0x1000, MIB, 0);
	assert_int_equal(gp__capture_open_mem(c.b, c.n, "mem.gpcap", NULL, &t), GP_EFORMAT);
	assert_null(t);
	{
		char want[64];

		snprintf(want, sizeof(want), "at byte %zu", off);
		assert_non_null(strstr(gp_last_error(), want));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placed),
		cmocka_unit_test(test_unplaced_and_left_out),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bad_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
