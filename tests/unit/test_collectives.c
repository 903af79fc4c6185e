/* SPDX-License-Identifier: MIT */
/*
 * test_collectives.c - the collectives ledger (analyze/collectives.c) and
 * what it is read from: the collective args the Kineto reader keeps
 * (struct gp_coll_info), their merge by gp__trace_append, and the host in a
 * tensorboard_trace_handler file name (gp__host_from_name). Traces are small
 * Kineto JSON texts read by the real reader, so each case checks the whole
 * path from the args to the ledger.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/trace.h"
#include "source/source.h"
#include "trace/model.h"
#include "util/error.h"

static struct gp_trace *open_text(const char *text, const char *name)
{
	struct gp_open_opts o = { .size = sizeof(o), .name = name, .threads = 1 };
	struct gp_trace *t = NULL;
	int rc = gp_trace_open_mem(text, strlen(text), &o, &t);

	if (rc)
		fail_msg("rc %d: %s", rc, gp_last_error());
	return t;
}

/* the rank object's "collectives" of @p text (freed with the returned object) */
static struct gp_value *ledger_of(const char *text, struct gp_value **rank)
{
	struct gp_trace *t = open_text(text, "mem");
	struct gp_value *r = tu_section(t, false, gp__an_collectives);

	gp_trace_free(t);
	*rank = r;
	return (struct gp_value *)gp_obj_get(r, "collectives");
}

static bool is_null(const struct gp_value *v, const char *path)
{
	const struct gp_value *x = gp_value_path(v, path);

	return x && gp_value_type(x) == GP_VALUE_NULL;
}

#define ARGS_AR                                                                                    \
	"\"Collective name\": \"allreduce\", \"In msg nelems\": 1000, \"Out msg nelems\": 1000, "  \
	"\"Group size\": 2, \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": " \
	"\"[]\", \"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "   \
	"\"Process Group Ranks\": \"[0, 1]\""

/* a kernel with its own args, its record_param_comms linked by External id */
static void test_kernel_args(void **state)
{
	static const char text[] =
	    "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2, "
	    "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"pg_size\": 2, "
	    "\"ranks\": [0, 1]}]},\n\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, "
	    "\"tid\": 1, \"ts\": 100, \"dur\": 10, \"args\": {\"External id\": 7, \"Seq\": "
	    "41, " ARGS_AR "}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 102, \"dur\": 3, \"args\": {\"correlation\": 9, \"External id\": "
	    "7}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
	    "\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)\", "
	    "\"pid\": 0, "
	    "\"tid\": 7, \"ts\": 120, \"dur\": 30, \"args\": {\"correlation\": 9, \"External id\": "
	    "7, "
	    "\"device\": 0, \"stream\": 7, " ARGS_AR "}}\n]}";
	struct gp_value *r, *c = ledger_of(text, &r);

	(void)state;
	assert_string_equal(tu_gets(c, "seq_source"), "trace");
	assert_int_equal(gp_value_len(gp_obj_get(c, "ledger")), 1);
	assert_string_equal(tu_gets(c, "ledger/0/name"), "allreduce");
	assert_string_equal(tu_gets(c, "ledger/0/pg"), "0");
	assert_int_equal(tu_geti(c, "ledger/0/seq"), 41); /* from the op: the kernel has none */
	assert_int_equal(tu_geti(c, "ledger/0/in_nelems"), 1000);
	assert_int_equal(tu_geti(c, "ledger/0/bytes"), 4000);
	assert_string_equal(tu_gets(c, "ledger/0/dtype"), "Float");
	assert_int_equal(tu_geti(c, "ledger/0/group_size"), 2);
	assert_string_equal(tu_gets(c, "ledger/0/in_split"), "[]");
	assert_true(is_null(c, "ledger/0/src_rank"));
	assert_true(is_null(c, "ledger/0/step"));
	assert_int_equal(tu_geti(c, "ledger/0/cpu_start_ns"), 100000);
	assert_int_equal(tu_geti(c, "ledger/0/start_ns"), 120000);
	assert_int_equal(tu_geti(c, "ledger/0/end_ns"), 150000);
	assert_non_null(strstr(tu_gets(c, "ledger/0/kernel"), "ncclDevKernel_AllReduce"));
	assert_int_equal(gp_value_len(gp_obj_get(c, "process_groups")), 1);
	assert_string_equal(tu_gets(c, "process_groups/0/desc"), "default_pg");
	assert_int_equal(tu_geti(c, "process_groups/0/size"), 2);
	assert_int_equal(tu_geti(c, "process_groups/0/ranks/1"), 1);
	assert_true(is_null(r, "host"));
	gp_value_free(r);
}

/*
 * Metadata only on record_param_comms, which encloses the launch on its thread
 * (no External id link); two groups, no Seq and no steps: ordinals per group.
 */
static void test_op_only_order(void **state)
{
	static const char text[] =
	    "{\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, "
	    "\"tid\": 1, \"ts\": 100, \"dur\": 10, \"args\": {\"Collective name\": \"broadcast\", "
	    "\"In msg nelems\": 8, \"Out msg nelems\": 8, \"dtype\": \"Half\", "
	    "\"Process Group Name\": \"1\", \"Group size\": 4, \"Process Group Ranks\": "
	    "\"[0, 2, 4, 6]\"}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 104, \"dur\": 3, \"args\": {\"correlation\": 1}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, "
	    "\"tid\": 1, \"ts\": 200, \"dur\": 10, \"args\": {\"Collective name\": \"allgather\", "
	    "\"In msg nelems\": 8, \"Out msg nelems\": 32, \"dtype\": \"Mystery\", "
	    "\"Process Group Name\": \"0\"}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 204, \"dur\": 3, \"args\": {\"correlation\": 2}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, "
	    "\"tid\": 1, \"ts\": 300, \"dur\": 10, \"args\": {\"Collective name\": \"broadcast\", "
	    "\"In msg nelems\": 2, \"Out msg nelems\": 2, \"dtype\": \"BFloat16\", "
	    "\"Process Group Name\": \"1\"}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 304, \"dur\": 3, \"args\": {\"correlation\": 3}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
	    "\"ncclKernel_Broadcast_RING_LL_Sum_int8_t\", "
	    "\"pid\": 0, \"tid\": 7, \"ts\": 150, \"dur\": 5, \"args\": {\"correlation\": 1, "
	    "\"stream\": 7}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
	    "\"ncclKernel_AllGather_RING_LL_Sum_int8_t\", "
	    "\"pid\": 0, \"tid\": 7, \"ts\": 250, \"dur\": 5, \"args\": {\"correlation\": 2, "
	    "\"stream\": 7}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
	    "\"ncclKernel_Broadcast_RING_LL_Sum_int8_t\", "
	    "\"pid\": 0, \"tid\": 7, \"ts\": 350, \"dur\": 5, \"args\": {\"correlation\": 3, "
	    "\"stream\": 7}}\n]}";
	struct gp_value *r, *c = ledger_of(text, &r);

	(void)state;
	assert_string_equal(tu_gets(c, "seq_source"), "order");
	assert_int_equal(gp_value_len(gp_obj_get(c, "ledger")), 3);
	assert_string_equal(tu_gets(c, "ledger/0/name"), "broadcast");
	assert_string_equal(tu_gets(c, "ledger/0/pg"), "1");
	assert_int_equal(tu_geti(c, "ledger/0/seq"), 0);
	assert_int_equal(tu_geti(c, "ledger/0/bytes"), 16);
	assert_int_equal(tu_geti(c, "ledger/0/cpu_start_ns"), 100000);
	assert_string_equal(tu_gets(c, "ledger/1/pg"), "0");
	assert_int_equal(tu_geti(c, "ledger/1/seq"), 0);
	assert_int_equal(tu_geti(c, "ledger/1/out_nelems"), 32);
	assert_true(is_null(c, "ledger/1/bytes")); /* unknown dtype */
	assert_int_equal(tu_geti(c, "ledger/2/seq"), 1);
	assert_int_equal(tu_geti(c, "ledger/2/bytes"), 4);
	/* groups from the args, sorted by name */
	assert_int_equal(gp_value_len(gp_obj_get(c, "process_groups")), 2);
	assert_string_equal(tu_gets(c, "process_groups/0/name"), "0");
	assert_true(is_null(c, "process_groups/0/ranks"));
	assert_true(is_null(c, "process_groups/0/size"));
	assert_string_equal(tu_gets(c, "process_groups/1/name"), "1");
	assert_int_equal(tu_geti(c, "process_groups/1/size"), 4);
	assert_int_equal(tu_geti(c, "process_groups/1/ranks/3"), 6);
	gp_value_free(r);
}

/*
 * Old traces: no args anywhere, names from the kernels (else the nccl:
 * annotation), no Seq but ProfilerSteps: seq = step * 10^6 + ordinal.
 */
static void test_steps_names(void **state)
{
	static const char text[] =
	    "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 8},\n"
	    "\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 50, \"dur\": 500},\n"
	    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#8\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 600, \"dur\": 500},\n"
	    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"nccl:all_reduce\", \"pid\": "
	    "1, "
	    "\"tid\": 2, \"ts\": 100, \"dur\": 10},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 2, \"ts\": 104, \"dur\": 3, \"args\": {\"correlation\": 1}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 2, \"ts\": 204, \"dur\": 3, \"args\": {\"correlation\": 2}},\n"
	    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"nccl:_all_gather_base\", "
	    "\"pid\": 1, \"tid\": 2, \"ts\": 700, \"dur\": 10},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
	    "1, "
	    "\"tid\": 2, \"ts\": 704, \"dur\": 3, \"args\": {\"correlation\": 3}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_Generic_1(x)\", "
	    "\"pid\": 0, "
	    "\"tid\": 7, \"ts\": 150, \"dur\": 5, \"args\": {\"correlation\": 1, \"stream\": 7}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
	    "\"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(x)\", \"pid\": 0, \"tid\": 7, \"ts\": "
	    "250, "
	    "\"dur\": 5, \"args\": {\"correlation\": 2, \"stream\": 7}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_Generic_1(x)\", "
	    "\"pid\": 0, "
	    "\"tid\": 7, \"ts\": 750, \"dur\": 5, \"args\": {\"correlation\": 3, \"stream\": "
	    "7}}\n]}";
	struct gp_value *r, *c = ledger_of(text, &r);

	(void)state;
	assert_string_equal(tu_gets(c, "seq_source"), "step");
	assert_int_equal(gp_value_len(gp_obj_get(c, "ledger")), 3);
	assert_string_equal(tu_gets(c, "ledger/0/name"), "allreduce");
	assert_int_equal(tu_geti(c, "ledger/0/step"), 7);
	assert_int_equal(tu_geti(c, "ledger/0/seq"), 7000000);
	assert_true(is_null(c, "ledger/0/cpu_start_ns"));
	assert_true(is_null(c, "ledger/0/pg"));
	assert_string_equal(tu_gets(c, "ledger/1/name"), "reduce_scatter");
	assert_int_equal(tu_geti(c, "ledger/1/seq"), 7000001);
	assert_string_equal(tu_gets(c, "ledger/2/name"), "_allgather_base");
	assert_int_equal(tu_geti(c, "ledger/2/step"), 8);
	assert_int_equal(tu_geti(c, "ledger/2/seq"), 8000000);
	/* no group info: one unnamed group of the world */
	assert_int_equal(gp_value_len(gp_obj_get(c, "process_groups")), 1);
	assert_true(is_null(c, "process_groups/0/name"));
	assert_int_equal(tu_geti(c, "process_groups/0/size"), 8);
	gp_value_free(r);
}

/* hostile values: wrong types, negative, beyond int64, a byte count that overflows */
static void test_hostile(void **state)
{
	static const char text[] =
	    "{\"distributedInfo\": {\"pg_config\": [7, {\"pg_name\": 3}, {\"pg_name\": \"x\", "
	    "\"ranks\": [1, \"a\"], \"pg_size\": -4}]},\n\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_x\", \"pid\": "
	    "0, "
	    "\"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"Collective name\": 5, "
	    "\"In msg nelems\": -5, \"Out msg nelems\": 123456789012345678901234567890, "
	    "\"Group size\": \"two\", \"Seq\": 1.5, \"dtype\": [\"Float\"], "
	    "\"Process Group Ranks\": [0, 1], \"Src Rank\": {\"a\": 1}, \"Dst Rank\": 1e3, "
	    "\"Process Group Name\": \"x\"}},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_x\", \"pid\": "
	    "0, "
	    "\"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"In msg nelems\": "
	    "4611686018427387904, \"dtype\": \"Double\", \"Seq\": 9223372036854775807, "
	    "\"Process Group Ranks\": \"[0, 1\", \"Process Group Name\": \"x\"}}\n]}";
	struct gp_value *r, *c = ledger_of(text, &r);

	(void)state;
	assert_int_equal(gp_value_len(gp_obj_get(c, "ledger")), 2);
	assert_string_equal(tu_gets(c, "ledger/0/name"), "allreduce"); /* from the kernel name */
	assert_true(is_null(c, "ledger/0/in_nelems"));
	assert_true(is_null(c, "ledger/0/out_nelems"));
	assert_true(is_null(c, "ledger/0/group_size"));
	assert_true(is_null(c, "ledger/0/dtype"));
	assert_true(is_null(c, "ledger/0/src_rank"));
	assert_true(is_null(c, "ledger/0/dst_rank"));
	assert_true(is_null(c, "ledger/0/bytes"));
	assert_int_equal(tu_geti(c, "ledger/1/in_nelems"), INT64_C(4611686018427387904));
	assert_true(is_null(c, "ledger/1/bytes")); /* 2^62 * 8 overflows */
	/* one has no Seq: ordinals */
	assert_string_equal(tu_gets(c, "seq_source"), "order");
	assert_int_equal(tu_geti(c, "ledger/1/seq"), 1);
	assert_int_equal(gp_value_len(gp_obj_get(c, "process_groups")), 1);
	assert_string_equal(tu_gets(c, "process_groups/0/name"), "x");
	assert_true(is_null(c, "process_groups/0/ranks"));
	assert_true(is_null(c, "process_groups/0/size"));
	gp_value_free(r);
}

/* gloo: CPU-side collectives from record_param_comms ("wait" is none); no GPU at all */
static void test_gloo(void **state)
{
	static const char text[] =
	    "{\"distributedInfo\": {\"backend\": \"gloo\", \"rank\": 3, \"world_size\": 4},\n"
	    "\"hostname\": \"box-1\",\n\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, "
	    "\"tid\": 1, \"ts\": 100, \"dur\": 10, \"args\": {\"Collective name\": \"allreduce\", "
	    "\"In msg nelems\": 3, \"Out msg nelems\": 3, \"dtype\": \"Long\", \"Seq\": 5, "
	    "\"Process Group Name\": \"0\"}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, "
	    "\"tid\": 1, \"ts\": 120, \"dur\": 2, \"args\": {\"Collective name\": \"wait\"}},\n"
	    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"gloo:all_reduce\", \"pid\": "
	    "1, "
	    "\"tid\": 1, \"ts\": 101, \"dur\": 8}\n]}";
	struct gp_value *r, *c = ledger_of(text, &r);

	(void)state;
	assert_string_equal(tu_gets(r, "host"), "box-1");
	assert_int_equal(gp_value_len(gp_obj_get(c, "ledger")), 1);
	assert_true(is_null(c, "ledger/0/kernel"));
	assert_int_equal(tu_geti(c, "ledger/0/seq"), 5);
	assert_int_equal(tu_geti(c, "ledger/0/bytes"), 24);
	assert_int_equal(tu_geti(c, "ledger/0/start_ns"), 100000);
	assert_int_equal(tu_geti(c, "ledger/0/cpu_start_ns"), 100000);
	assert_int_equal(tu_geti(c, "ledger/0/end_ns"), 110000);
	gp_value_free(r);
}

/* no collectives: the empty ledger */
static void test_none(void **state)
{
	static const char text[] =
	    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": "
	    "0, "
	    "\"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7}}]}";
	struct gp_value *r, *c = ledger_of(text, &r);

	(void)state;
	assert_true(is_null(c, "seq_source"));
	assert_int_equal(gp_value_len(gp_obj_get(c, "ledger")), 0);
	assert_int_equal(gp_value_len(gp_obj_get(c, "process_groups")), 0);
	gp_value_free(r);
}

/*
 * gp__trace_append: two halves read apart and appended give the table (and
 * the ledger) of one reader, string ids and event indices shifted.
 */
static void test_append(void **state)
{
	static const char head[] = "{\"traceEvents\": [\n";
	static const char ev1[] =
	    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
	    "\"ts\": 1, \"dur\": 1},\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_a\", \"pid\": "
	    "0, "
	    "\"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7, \"Seq\": 0, "
	    "\"Collective name\": \"allreduce\", \"In msg nelems\": 4, \"dtype\": \"Float\", "
	    "\"Process Group Name\": \"0\"}}";
	static const char ev2[] =
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_Broadcast_b\", \"pid\": "
	    "0, "
	    "\"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"stream\": 7, \"Seq\": 1, "
	    "\"Collective name\": \"broadcast\", \"In msg nelems\": 2, \"dtype\": \"Half\", "
	    "\"Process Group Name\": \"pg-b\", \"Process Group Description\": \"second\", "
	    "\"Src Rank\": 1, \"Out split size\": \"[1, 1]\"}}";
	char whole[4096], a[2048], b[2048];
	struct gp_trace *tw, *ta, *tb;
	struct gp_value *rw, *ra;
	char *jw, *ja;
	size_t i, lw, la;

	(void)state;
	snprintf(whole, sizeof(whole), "%s%s,\n%s\n]}", head, ev1, ev2);
	snprintf(a, sizeof(a), "%s%s\n]}", head, ev1);
	snprintf(b, sizeof(b), "%s%s\n]}", head, ev2);
	tw = open_text(whole, "mem");
	ta = open_text(a, "mem");
	tb = open_text(b, "mem");
	assert_int_equal(gp__trace_append(ta, tb), 0);
	assert_int_equal(ta->ncoll, 2);
	assert_int_equal(tw->ncoll, ta->ncoll);
	for (i = 0; i < tw->ncoll; i++) {
		const struct gp_coll_info *x = &tw->coll[i], *y = &ta->coll[i];

		assert_int_equal(x->ev, y->ev);
		assert_ptr_equal(gp__trace_coll(ta, y->ev), y);
		assert_string_equal(gp__strtab_get(&tw->strs, x->name),
		                    gp__strtab_get(&ta->strs, y->name));
		assert_string_equal(gp__strtab_get(&tw->strs, x->pg_name),
		                    gp__strtab_get(&ta->strs, y->pg_name));
		assert_string_equal(gp__strtab_get(&tw->strs, x->pg_desc),
		                    gp__strtab_get(&ta->strs, y->pg_desc));
		assert_string_equal(gp__strtab_get(&tw->strs, x->out_split),
		                    gp__strtab_get(&ta->strs, y->out_split));
		assert_string_equal(gp__strtab_get(&tw->strs, x->dtype),
		                    gp__strtab_get(&ta->strs, y->dtype));
		assert_int_equal(x->in_nelems, y->in_nelems);
		assert_int_equal(x->src_rank, y->src_rank);
		assert_int_equal(x->seq, y->seq);
	}
	assert_null(gp__trace_coll(ta, 0));
	rw = tu_section(tw, false, gp__an_collectives);
	ra = tu_section(ta, false, gp__an_collectives);
	assert_int_equal(gp_value_to_json(gp_obj_get(rw, "collectives"), 0, &jw, &lw), 0);
	assert_int_equal(gp_value_to_json(gp_obj_get(ra, "collectives"), 0, &ja, &la), 0);
	assert_string_equal(jw, ja);
	assert_string_equal(tu_gets(rw, "collectives/ledger/1/pg"), "pg-b");
	assert_int_equal(tu_geti(rw, "collectives/ledger/1/src_rank"), 1);
	gp_free(jw);
	gp_free(ja);
	gp_value_free(rw);
	gp_value_free(ra);
	gp_trace_free(tw);
	gp_trace_free(ta);
	gp_trace_free(tb);
}

/* the host of a tensorboard_trace_handler file name */
static void test_host_from_name(void **state)
{
	char h[64];

	(void)state;
	assert_true(
	    gp__host_from_name("/d/node-a_1234.1700000000000.pt.trace.json.gz", h, sizeof(h)));
	assert_string_equal(h, "node-a");
	assert_true(gp__host_from_name("gpu_box_7_99.1623143089861.pt.trace.json", h, sizeof(h)));
	assert_string_equal(h, "gpu_box_7");
	assert_false(gp__host_from_name("node-a_1234.pt.trace.json", h, sizeof(h)));
	/* HTA's test file: a date and a 4-digit number, no tensorboard_trace_handler name */
	assert_false(gp__host_from_name("cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", h,
	                                sizeof(h)));
	assert_false(gp__host_from_name("_1234.5.pt.trace.json", h, sizeof(h)));
	assert_false(gp__host_from_name("node-a_x.5.pt.trace.json", h, sizeof(h)));
	assert_false(gp__host_from_name("trace.json", h, sizeof(h)));
	assert_false(
	    gp__host_from_name("a_1.1700000000000.pt.trace.json", h, 1)); /* does not fit */
}

/* the host from the file name reaches the rank object */
static void test_host_in_rank(void **state)
{
	static const char text[] =
	    "{\"hostname\": \"other\", \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", "
	    "\"name\": \"f\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}";
	struct gp_trace *t = open_text(text, "/x/node-b_42.1700000000000.pt.trace.json");
	struct gp_value *r = tu_section(t, false, gp__an_collectives);

	(void)state;
	assert_string_equal(tu_gets(r, "host"), "node-b");
	gp_value_free(r);
	gp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_args),  cmocka_unit_test(test_op_only_order),
		cmocka_unit_test(test_steps_names),  cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_gloo),         cmocka_unit_test(test_none),
		cmocka_unit_test(test_append),       cmocka_unit_test(test_host_from_name),
		cmocka_unit_test(test_host_in_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
