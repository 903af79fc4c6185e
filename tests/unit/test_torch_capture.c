/* SPDX-License-Identifier: MIT */
/*
 * test_torch_capture.c - `gpuprof run --pytorch` in the capture reader:
 * the parser of PyTorch's emit_nvtx op range messages (the formats of
 * torch/csrc/profiler/util.cpp getNvtxStr, 2.x and 1.x), and a capture made
 * from a table of NVTX records that holds module ranges of the startup hook
 * (domain "gpuprof", "nn.Module: " names, by site and by value), op ranges
 * (default domain) and ranges that only look like them. Module calls must
 * land in t->pymod (not among the events), ops as GP_K_CPU_OP events named
 * by the op with their sizes in t->opargs, the rest as user annotations.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "source/capfmt.h"
#include "source/capture.h"
#include "source/torch-nvtx.h"
#include "util/strtab.h"

/* ---- the parser ---- */

struct want {
	const char *msg;
	bool op;
	const char *name, *sizes; /* sizes NULL: none */
	int64_t seq, op_id;
};

static const struct want cases[] = {
	/* PyTorch 2.x with record_shapes */
	{ "aten::addmm, seq = 3, op_id = 7, sizes = [[512], [64, 1024], [1024, 512], [], []], "
	  "input_op_ids = [(0,-1), (5,0), (6,0), (0,-1), (0,-1)]",
	  true, "aten::addmm", "[[512], [64, 1024], [1024, 512], [], []]", 3, 7 },
	{ "aten::empty, op_id = 2, sizes = [[], [], [], [], [], []], input_op_ids = [(0,-1), "
	  "(0,-1), (0,-1), (0,-1), (0,-1), (0,-1)]",
	  true, "aten::empty", "[[], [], [], [], [], []]", -1, 2 },
	{ "aten::ones, op_id = 1, sizes = [], input_op_ids = []", true, "aten::ones", "[]", -1, 1 },
	/* without shapes */
	{ "aten::linear, seq = 12, op_id = 30", true, "aten::linear", NULL, 12, 30 },
	{ "autograd::engine::evaluate_function: AddmmBackward0, op_id = 40", true,
	  "autograd::engine::evaluate_function: AddmmBackward0", NULL, -1, 40 },
	{ "AddmmBackward0, seq = 3, op_id = 41, sizes = [[8, 4]], input_op_ids = [(40,0)]", true,
	  "AddmmBackward0", "[[8, 4]]", 3, 41 },
	/* PyTorch 1.x: no op id */
	{ "aten::add, seq = 5, sizes = [[2, 3], [2, 3], []]", true, "aten::add",
	  "[[2, 3], [2, 3], []]", 5, 0 },
	{ "aten::relu, seq = 0", true, "aten::relu", NULL, 0, 0 },
	/* a record_function name with ", " in it: the name ends at PyTorch's suffix */
	{ "my, scope, op_id = 9", true, "my, scope", NULL, -1, 9 },
	/* not op ranges: no suffix, a suffix that is not PyTorch's, a broken one */
	{ "aten::empty", false, NULL, NULL, 0, 0 },
	{ "step, 3", false, NULL, NULL, 0, 0 },
	{ "decode, seq = x", false, NULL, NULL, 0, 0 },
	{ "aten::add, seq = 3, extra", false, NULL, NULL, 0, 0 },
	{ "aten::add, sizes = [[2, 3]", false, NULL, NULL, 0, 0 },
	{ "aten::add, sizes = [[2,3]]", false, NULL, NULL, 0, 0 },
	{ "aten::add, op_id = 0", false, NULL, NULL, 0, 0 },
	{ "aten::add, op_id = 99999999999999999999", false, NULL, NULL, 0, 0 },
	{ ", seq = 1", false, NULL, NULL, 0, 0 },
	{ "", false, NULL, NULL, 0, 0 },
};

static void test_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		struct gp__torch_op op;
		bool ok = gp__torch_op_parse(w->msg, strlen(w->msg), false, &op);

		if (ok != w->op)
			fail_msg("'%s': %s an op range", w->msg, ok ? "taken for" : "not");
		if (!ok)
			continue;
		assert_int_equal(op.name_len, strlen(w->name));
		assert_memory_equal(w->msg, w->name, op.name_len);
		assert_int_equal(op.seq, w->seq);
		assert_int_equal(op.op_id, w->op_id);
		if (!w->sizes) {
			assert_int_equal(op.sizes_len, 0);
		} else {
			assert_int_equal(op.sizes_len, strlen(w->sizes));
			assert_memory_equal(w->msg + op.sizes_off, w->sizes, op.sizes_len);
		}
	}
}

/* a message the tracer cut at 4 KiB: the op and its ids stand, its sizes are unknown */
static void test_parse_cut(void **state)
{
	static const char head[] = "aten::cat, seq = 1, op_id = 3, sizes = [";
	char msg[4096];
	struct gp__torch_op op;
	size_t n = strlen(head);

	(void)state;
	memcpy(msg, head, n);
	while (n + 8 <= sizeof(msg)) {
		memcpy(msg + n, "[1, 2], ", 8);
		n += 8;
	}
	memcpy(msg + n, "[1, 2], ", sizeof(msg) - n); /* cut inside an item */
	assert_true(gp__torch_op_parse(msg, sizeof(msg), true, &op));
	assert_int_equal(op.name_len, strlen("aten::cat"));
	assert_int_equal(op.seq, 1);
	assert_int_equal(op.op_id, 3);
	assert_int_equal(op.sizes_len, 0);
	/* the same text not cut is broken: not an op */
	assert_false(gp__torch_op_parse(msg, sizeof(msg), false, &op));
	/* cut inside the ", sizes = " label */
	assert_true(gp__torch_op_parse("aten::mm, op_id = 4, siz", 24, true, &op));
	assert_int_equal(op.op_id, 4);
	assert_int_equal(op.sizes_len, 0);
}

/* ---- the reader ---- */

/* one record of the table: an NVTX record, a STRING or a SITE */
struct rec {
	uint32_t type;
	uint8_t kind;
	int64_t ts;
	uint32_t tid, domain, name;
	uint64_t id;
	const char *text;
};

#define DOM(id, text)                                                                              \
	{                                                                                          \
		GP_CAP_NVTX, GP_NVTX_DOMAIN, 1, 1, 0, 0, id, text                                  \
	}
#define STR(id, text)                                                                              \
	{                                                                                          \
		GP_CAP_STRING, 0, 0, 0, 0, 0, id, text                                             \
	}
#define SITE(id)                                                                                   \
	{                                                                                          \
		GP_CAP_SITE, 0, 0, 0, 0, 0, id, NULL                                               \
	}
#define PUSH(ts, tid, dom, text)                                                                   \
	{                                                                                          \
		GP_CAP_NVTX, GP_NVTX_PUSH, ts, tid, dom, 0, 0, text                                \
	}
#define PUSH_SITE(ts, tid, site)                                                                   \
	{                                                                                          \
		GP_CAP_NVTX, GP_NVTX_PUSH, ts, tid, 1, site, 0, NULL                               \
	}
#define POP(ts, tid, dom)                                                                          \
	{                                                                                          \
		GP_CAP_NVTX, GP_NVTX_POP, ts, tid, dom, 0, 0, NULL                                 \
	}

/* the capture of @p recs: header, META of pid 77, the records (malloc'd, *@p n bytes) */
static unsigned char *make_capture(const struct rec *recs, size_t nrec, size_t *n)
{
	size_t cap = 1 << 16, len = 0;
	unsigned char *b = calloc(1, cap);
	struct gp_cap_file_header h;

	assert_non_null(b);
	memcpy(h.magic, GP_CAP_MAGIC, 8);
	h.version = GP_CAP_VERSION;
	h.header_size = GP_CAP_HEADER_SIZE;
	memcpy(b, &h, sizeof(h));
	len = sizeof(h);
	for (size_t i = 0; i <= nrec; i++) {
		union {
			struct gp_cap_nvtx nv;
			struct gp_cap_string s;
			struct gp_cap_site site;
		} u;
		struct gp_cap_rec_header rh;
		const char *text = i ? recs[i - 1].text : "{\"pid\":77}";
		size_t fixed = 0, tlen = text ? strlen(text) : 0;

		memset(&u, 0, sizeof(u));
		rh.type = i ? recs[i - 1].type : GP_CAP_META;
		if (rh.type == GP_CAP_NVTX) {
			u.nv.ts = recs[i - 1].ts;
			u.nv.tid = recs[i - 1].tid;
			u.nv.kind = recs[i - 1].kind;
			u.nv.domain = recs[i - 1].domain;
			u.nv.name = recs[i - 1].name;
			u.nv.id = recs[i - 1].id;
			fixed = sizeof(u.nv);
		} else if (rh.type == GP_CAP_STRING) {
			u.s.id = (uint32_t)recs[i - 1].id;
			fixed = sizeof(u.s);
		} else if (rh.type == GP_CAP_SITE) {
			u.site.id = (uint32_t)recs[i - 1].id;
			fixed = sizeof(u.site);
		}
		rh.size = (uint32_t)(fixed + tlen);
		assert_true(len + sizeof(rh) + rh.size + 8 <= cap);
		memcpy(b + len, &rh, sizeof(rh));
		memcpy(b + len + sizeof(rh), &u, fixed);
		if (tlen)
			memcpy(b + len + sizeof(rh) + fixed, text, tlen);
		len += sizeof(rh) + (rh.size + 7) / 8 * 8; /* calloc'd: the padding is zeros */
	}
	*n = len;
	return b;
}

static const char *ev_dims(const struct gp_trace *t, size_t ev)
{
	const struct gp_op_args *oa = gp__trace_op_args(t, ev);

	if (!oa)
		return NULL;
	assert_int_equal(oa->types, 0); /* emit_nvtx gives no types: bytes stay unknown */
	assert_int_equal(oa->concrete, 0);
	return oa->dims ? gp__strtab_get(&t->strs, oa->dims) : NULL;
}

static void test_reader(void **state)
{
	static const struct rec recs[] = {
		DOM(1, "gpuprof"),
		DOM(2, "lib"),
		STR(5, "nn.Module: Sequential_0"),
		SITE(5),
		STR(6, "nn.Module: Linear_0"),
		SITE(6),
		/* thread 9: Sequential_0 [100, 900) holds Linear_0 [150, 500), which holds
		 * the op aten::linear [160, 480) and its aten::addmm [200, 450) */
		PUSH_SITE(100, 9, 5),
		PUSH_SITE(150, 9, 6),
		PUSH(160, 9, 0,
		     "aten::linear, seq = 2, op_id = 7, sizes = [[8, 16], [4, 16], [4]]"),
		PUSH(200, 9, 0,
		     "aten::addmm, seq = 3, op_id = 8, sizes = [[4], [8, 16], [16, 4], [], []], "
		     "input_op_ids = [(0,-1), (1,0), (6,0), (0,-1), (0,-1)]"),
		POP(450, 9, 0),
		POP(480, 9, 0),
		POP(500, 9, 1),
		/* a module by value (past the limit of sites), a plain op without sizes */
		PUSH(550, 9, 1, "nn.Module: ReLU_0"),
		PUSH(560, 9, 0, "aten::relu, op_id = 9"),
		POP(600, 9, 0),
		POP(650, 9, 1),
		POP(900, 9, 1),
		/* look-alikes stay ranges: the prefix in the default domain and in another
		 * domain, an annotation range of the gpuprof domain, a plain NVTX range */
		PUSH(1000, 9, 0, "nn.Module: Fake_0"),
		POP(1010, 9, 0),
		PUSH(1020, 9, 2, "nn.Module: Lib_0"),
		POP(1030, 9, 2),
		PUSH(1040, 9, 1, "decode"),
		POP(1050, 9, 1),
		PUSH(1060, 9, 0, "step, 3"),
		POP(1070, 9, 0),
		/* an op range in another domain is not PyTorch's */
		PUSH(1080, 9, 2, "aten::mm, op_id = 4"),
		POP(1090, 9, 2),
		/* thread 10 (the autograd engine's): a backward op */
		PUSH(1100, 10, 0, "AddmmBackward0, seq = 3, op_id = 41, sizes = [[8, 4]]"),
		POP(1200, 10, 0),
	};
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	size_t n, i, nops = 0, nranges = 0;
	unsigned char *b = make_capture(recs, sizeof(recs) / sizeof(recs[0]), &n);

	(void)state;
	assert_int_equal(gp__capture_open_mem(b, n, "torch.gpcap", &oo, &t), 0);

	/* module calls: in start order (outer first), on their thread, no Python ids */
	assert_int_equal(t->npymod, 3);
	assert_string_equal(gp__strtab_get(&t->strs, t->pymod[0].name), "nn.Module: Sequential_0");
	assert_int_equal(t->pymod[0].ts, 100);
	assert_int_equal(t->pymod[0].dur, 800);
	assert_string_equal(gp__strtab_get(&t->strs, t->pymod[1].name), "nn.Module: Linear_0");
	assert_int_equal(t->pymod[1].ts, 150);
	assert_int_equal(t->pymod[1].dur, 350);
	assert_string_equal(gp__strtab_get(&t->strs, t->pymod[2].name), "nn.Module: ReLU_0");
	assert_int_equal(t->pymod[2].ts, 550);
	assert_int_equal(t->pymod[2].dur, 100);
	for (i = 0; i < t->npymod; i++) {
		assert_int_equal(t->pymod[i].id, -1);
		assert_int_equal(t->pymod[i].parent, -1);
		assert_int_equal(t->tracks[t->pymod[i].track].tid, 9);
		assert_int_equal(t->tracks[t->pymod[i].track].pid, 77);
	}

	for (i = 0; i < t->ev.n; i++) {
		const char *name = gp__ev_name(t, i);
		int64_t ts = t->ev.ts[i], dur = t->ev.dur[i];

		assert_null(strstr(name, "Sequential") ? name : NULL); /* never an event */
		if (t->ev.kind[i] == GP_K_CPU_OP) {
			nops++;
			if (strcmp(name, "aten::linear") == 0) {
				assert_true(ts == 160 && dur == 320);
				assert_string_equal(ev_dims(t, i), "[[8, 16], [4, 16], [4]]");
			} else if (strcmp(name, "aten::addmm") == 0) {
				assert_true(ts == 200 && dur == 250);
				assert_string_equal(ev_dims(t, i),
				                    "[[4], [8, 16], [16, 4], [], []]");
			} else if (strcmp(name, "aten::relu") == 0) {
				assert_true(ts == 560 && dur == 40);
				assert_null(gp__trace_op_args(t, i));
			} else if (strcmp(name, "AddmmBackward0") == 0) {
				assert_true(ts == 1100 && dur == 100);
				assert_int_equal(t->tracks[t->ev.track[i]].tid, 10);
				assert_string_equal(ev_dims(t, i), "[[8, 4]]");
			} else {
				fail_msg("unexpected op '%s'", name);
			}
		} else {
			assert_int_equal(t->ev.kind[i], GP_K_USER_ANNOTATION);
			nranges++;
			assert_true(strcmp(name, "nn.Module: Fake_0") == 0 ||
			            strcmp(name, "lib:nn.Module: Lib_0") == 0 ||
			            strcmp(name, "gpuprof:decode") == 0 ||
			            strcmp(name, "step, 3") == 0 ||
			            strcmp(name, "lib:aten::mm, op_id = 4") == 0);
		}
	}
	assert_int_equal(nops, 4);
	assert_int_equal(nranges, 5);
	assert_int_equal(t->nopargs, 3);
	gp_trace_free(t);
	free(b);
}

/* a window that closes cuts open module and op ranges as it cuts the others */
static void test_reader_unended(void **state)
{
	static const struct rec recs[] = {
		DOM(1, "gpuprof"),
		PUSH(100, 9, 1, "nn.Module: Block_0"),
		PUSH(110, 9, 0, "aten::mm, op_id = 3, sizes = [[2, 2], [2, 2]]"),
		POP(120, 9, 0),
		/* the pops of these two never come */
		PUSH(130, 9, 0, "aten::mm, op_id = 4, sizes = [[2, 2], [2, 2]]"),
	};
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	size_t n;
	unsigned char *b = make_capture(recs, sizeof(recs) / sizeof(recs[0]), &n);

	(void)state;
	assert_int_equal(gp__capture_open_mem(b, n, "unended.gpcap", &oo, &t), 0);
	assert_int_equal(t->npymod, 0);
	assert_int_equal(t->ev.n, 1);
	assert_int_equal(t->ev.kind[0], GP_K_CPU_OP);
	assert_string_equal(ev_dims(t, 0), "[[2, 2], [2, 2]]");
	gp_trace_free(t);
	free(b);
}

/*
 * A module call's length is the difference of two stamps of the file: a pop
 * stamped before its push is unmatched (no call), and stamps 2^63 apart are
 * refused as a plain range's are, without a signed overflow on the way
 */
static void test_reader_backwards(void **state)
{
	static const struct rec recs[] = {
		DOM(1, "gpuprof"), PUSH(100, 9, 1, "nn.Module: Block_0"),
		POP(90, 9, 1),     PUSH(200, 9, 1, "nn.Module: Block_1"),
		POP(300, 9, 1),
	};
	static const struct rec far[] = {
		DOM(1, "gpuprof"),
		PUSH(-(INT64_C(1) << 62), 9, 1, "nn.Module: Block_0"),
		POP(INT64_C(1) << 62, 9, 1),
	};
	struct gp_open_opts oo = { .size = sizeof(oo) };
	struct gp_trace *t = NULL;
	size_t n;
	unsigned char *b = make_capture(recs, sizeof(recs) / sizeof(recs[0]), &n);

	(void)state;
	assert_int_equal(gp__capture_open_mem(b, n, "backwards.gpcap", &oo, &t), 0);
	assert_int_equal(t->npymod, 1);
	assert_int_equal(t->pymod[0].ts, 200);
	assert_int_equal(t->pymod[0].dur, 100);
	gp_trace_free(t);
	free(b);

	t = NULL;
	b = make_capture(far, sizeof(far) / sizeof(far[0]), &n);
	assert_true(gp__capture_open_mem(b, n, "far.gpcap", &oo, &t) < 0);
	assert_null(t);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_cut),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_unended),
		cmocka_unit_test(test_reader_backwards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
