/* SPDX-License-Identifier: MIT */
/*
 * test_json_prune.c - the pruned parse (util/json-prune.h) that aggregate
 * reads reports with, proved equivalent to the whole parse it replaced.
 *
 * The proof is differential, on every input: gp_value_parse() (the whole
 * tree, what load.c read before) against gp__json_parse_pruned() with
 * aggregate's keep tree (gp__agg_report_keep):
 *   1. the same status, byte offset and message, accepted or refused;
 *   2. the pruned tree equals the whole tree restricted to the keep tree by
 *      a plain reference walk over the whole tree (same JSON text);
 *   3. every rank object reduces (gp__agg_reduce) to the same record,
 *      field by field, or to the same error.
 * The inputs: a report with every key the reducer reads among big sections
 * it skips; hand-written hostile variants (keys in another order,
 * duplicated keys, unexpected types, escaped and NUL-cut keys, huge and
 * odd numbers, nesting past the limit inside and outside the kept keys,
 * garbage, every truncation); 3,000 seeded random mutants of it; and, when
 * GP_PRUNE_REPORTS names a directory (t0625 does), every report there.
 */
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/aggregate-int.h"
#include "gpuprof/value.h"
#include "util/buf.h"
#include "util/json-prune.h"

/* the whole tree restricted to @p keep: the reference the pruned parse must equal */
static struct gp_value *restrict_to(const struct gp_value *v, const struct gp_jkeep *keep)
{
	struct gp_value *out;
	size_t i, j;

	if (gp_value_type(v) == GP_VALUE_ARRAY) {
		out = gp_value_array();
		for (i = 0; i < gp_value_len(v); i++) {
			const struct gp_value *e = gp_arr_get(v, i);

			assert_int_equal(gp_arr_push(out, gp_value_type(e) == GP_VALUE_OBJECT
			                                      ? restrict_to(e, keep)
			                                      : gp_value_clone(e)),
			                 0);
		}
		return out;
	}
	if (gp_value_type(v) != GP_VALUE_OBJECT)
		return gp_value_clone(v);
	out = gp_value_object();
	for (i = 0; i < gp_value_len(v); i++) {
		const char *k = gp_obj_key_at(v, i);
		const struct gp_value *m = gp_obj_value_at(v, i);

		for (j = 0; keep[j].key; j++)
			if (strcmp(keep[j].key, k) == 0)
				break;
		if (!keep[j].key)
			continue;
		if (keep[j].text) {
			/* compared with a parse of the text (same_tree) */
			char name[64];

			snprintf(name, sizeof(name), GP_JKEEP_TEXT "%s", k);
			assert_int_equal(gp_obj_set(out, name, gp_value_clone(m)), 0);
			continue;
		}
		assert_int_equal(
		    gp_obj_set(out, k,
		               keep[j].sub ? restrict_to(m, keep[j].sub) : gp_value_clone(m)),
		    0);
	}
	return out;
}

/* the two trees equal exactly: types, members in order, numbers to the bit */
static void same_tree(const struct gp_value *a, const struct gp_value *b)
{
	double x = 0, y = 0;
	int64_t i = 0, j = 0;
	size_t k;

	assert_int_equal(gp_value_type(a), gp_value_type(b));
	assert_int_equal(gp_value_len(a), gp_value_len(b));
	switch (gp_value_type(a)) {
	case GP_VALUE_INT:
		assert_true(gp_value_get_int(a, &i) && gp_value_get_int(b, &j));
		assert_int_equal(i, j);
		break;
	case GP_VALUE_DOUBLE:
		/* a NaN or infinity has no value to get: both have none */
		assert_int_equal(gp_value_get_double(a, &x), gp_value_get_double(b, &y));
		if (gp_value_get_double(a, &x))
			assert_memory_equal(&x, &y, sizeof(x));
		break;
	case GP_VALUE_STRING:
		assert_string_equal(gp_value_get_str(a), gp_value_get_str(b));
		break;
	case GP_VALUE_BOOL:
		assert_int_equal(gp_value_get_bool(a, false), gp_value_get_bool(b, false));
		break;
	case GP_VALUE_ARRAY:
		for (k = 0; k < gp_value_len(a); k++)
			same_tree(gp_arr_get(a, k), gp_arr_get(b, k));
		break;
	case GP_VALUE_OBJECT:
		for (k = 0; k < gp_value_len(a); k++) {
			const char *key = gp_obj_key_at(a, k), *text;
			struct gp_value *v = NULL;

			assert_string_equal(key, gp_obj_key_at(b, k));
			if (key[0] != GP_JKEEP_TEXT[0]) {
				same_tree(gp_obj_value_at(a, k), gp_obj_value_at(b, k));
				continue;
			}
			/* a member kept as its text: the text parses to the whole tree's value */
			assert_non_null(text = gp_value_get_str(gp_obj_value_at(b, k)));
			assert_int_equal(gp_value_parse(text, strlen(text), &v, NULL), 0);
			same_tree(gp_obj_value_at(a, k), v);
			gp_value_free(v);
		}
		break;
	default:
		break;
	}
}

static bool same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void same_id(const struct gp_strtab *ta, uint32_t a, const struct gp_strtab *tb, uint32_t b)
{
	assert_int_equal(a == GP__AGG_NONE, b == GP__AGG_NONE);
	if (a != GP__AGG_NONE) {
		assert_int_equal(gp__strtab_strlen(ta, a), gp__strtab_strlen(tb, b));
		assert_memory_equal(gp__strtab_get(ta, a), gp__strtab_get(tb, b),
		                    gp__strtab_strlen(ta, a));
	}
}

/* the records of the two trees' rank objects, field by field */
static void same_record(const struct gp__agg_rank *a, const struct gp_strtab *ta,
                        const struct gp__agg_rank *b, const struct gp_strtab *tb)
{
	size_t i, k;

	assert_int_equal(a->rank, b->rank);
	same_str(a->file, b->file);
	same_str(a->host, b->host);
	same_str(a->gpu_model, b->gpu_model);
	same_str(a->backend, b->backend);
	assert_int_equal(a->world_size, b->world_size);
	assert_int_equal(a->device, b->device);
	assert_int_equal(a->from_trace, b->from_trace);
	assert_int_equal(a->span_start_ns, b->span_start_ns);
	assert_int_equal(a->span_ns, b->span_ns);
	for (i = 0; i < GP_AGG_NMETRICS; i++)
		if (!same_num(a->m[i], b->m[i]))
			fail_msg("%s: %.17g, pruned %.17g", gp__agg_metric_keys[i], a->m[i],
			         b->m[i]);
	assert_true(same_num(a->dataloader_ns, b->dataloader_ns));
	assert_true(same_num(a->host_wait_ns, b->host_wait_ns));
	assert_int_equal(a->launch_bound, b->launch_bound);
	same_id(ta, a->seq_source, tb, b->seq_source);
	assert_int_equal(a->nent, b->nent);
	for (i = 0; i < a->nent; i++) {
		const struct gp__agg_ent *x = &a->ent[i], *y = &b->ent[i];

		assert_int_equal(x->seq, y->seq);
		assert_int_equal(x->start_ns, y->start_ns);
		assert_int_equal(x->end_ns, y->end_ns);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->group_size, y->group_size);
		assert_int_equal(x->step, y->step);
		assert_int_equal(x->inst, y->inst);
		same_id(ta, x->pg, tb, y->pg);
		same_id(ta, x->name, tb, y->name);
		same_id(ta, x->dtype, tb, y->dtype);
	}
	assert_int_equal(a->npg, b->npg);
	for (i = 0; i < a->npg; i++) {
		const struct gp__agg_pg *x = &a->pg[i], *y = &b->pg[i];

		same_id(ta, x->name, tb, y->name);
		same_id(ta, x->desc, tb, y->desc);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->nranks, y->nranks);
		assert_int_equal(x->ranks == NULL, y->ranks == NULL);
		for (k = 0; k < x->nranks; k++)
			assert_int_equal(x->ranks[k], y->ranks[k]);
	}
}

/* reduces rank object @p ro of @p doc; @return its status, the error in @p err */
static int reduce(const struct gp_value *ro, const struct gp_value *doc, struct gp_strtab *st,
                  struct gp__agg_rank *r, char *err, size_t n)
{
	int rc;

	memset(r, 0, sizeof(*r));
	assert_int_equal(gp__strtab_init(st), 0);
	gp_clear_error();
	rc = gp__agg_reduce(ro, doc, "r.json", st, r);
	snprintf(err, n, "%s", gp_last_error());
	return rc;
}

static size_t nchecked, nrefused, nranks;

/* the whole differential check of one input */
static void check(const char *text, size_t len)
{
	struct gp_value *whole = NULL, *pruned = NULL, *ref;
	size_t ow = 7, op = 7, i;
	char ew[1024], ep[1024];
	int rw, rp;

	nchecked++;
	gp_clear_error();
	rw = gp_value_parse(text, len, &whole, &ow);
	snprintf(ew, sizeof(ew), "%s", gp_last_error());
	gp_clear_error();
	rp = gp__json_parse_pruned(text, len, gp__agg_report_keep, &pruned, &op);
	snprintf(ep, sizeof(ep), "%s", gp_last_error());
	if (rw != rp || ow != op || (rw && strcmp(ew, ep) != 0))
		fail_msg("whole %d at %zu '%s', pruned %d at %zu '%s' (%zu bytes: %.*s)", rw, ow,
		         ew, rp, op, ep, len, (int)(len < 300 ? len : 300), text);
	if (rw) {
		nrefused++;
		assert_null(whole);
		assert_null(pruned);
		return;
	}
	ref = restrict_to(whole, gp__agg_report_keep);
	same_tree(ref, pruned);
	gp_value_free(ref);
	/* what load.c does with a report: every rank object reduced */
	for (i = 0; i < gp_value_len(gp_obj_get(whole, "ranks")); i++) {
		const struct gp_value *x = gp_arr_get(gp_obj_get(whole, "ranks"), i);
		const struct gp_value *y = gp_arr_get(gp_obj_get(pruned, "ranks"), i);
		struct gp__agg_rank ra, rb;
		struct gp_strtab ta, tb;

		assert_int_equal(gp_value_type(x), gp_value_type(y));
		rw = reduce(x, whole, &ta, &ra, ew, sizeof(ew));
		rp = reduce(y, pruned, &tb, &rb, ep, sizeof(ep));
		assert_int_equal(rw, rp);
		if (rw)
			assert_string_equal(ew, ep);
		else
			same_record(&ra, &ta, &rb, &tb);
		nranks += !rw;
		gp__agg_rank_release(&ra);
		gp__agg_rank_release(&rb);
		gp__strtab_release(&ta);
		gp__strtab_release(&tb);
	}
	gp_value_free(whole);
	gp_value_free(pruned);
}

static void check_str(const char *text)
{
	check(text, strlen(text));
}

/* a report: every key the reducer reads, between sections it skips */
static const char *const REPORT =
    "{\"compat\": \"none\", \"gpuprof_version\": \"0.1.0\",\n"
    " \"metrics\": {\"series\": [{\"name\": \"gpu0.clock_sm_hertz\", \"mean\": 1.98e9, "
    "\"points\": [[1, 2], [3, 4]]}, {\"name\": \"gpu1.clock_sm_hertz\", \"mean\": 1410000000}]},\n"
    " \"ranks\": [{\"annotations\": [{\"name\": \"## fwd ##\", \"avg_ns\": 1461176}],\n"
    "  \"kernels\": [{\"name\": \"k\\u00e9\\\"x\", \"count\": 4, \"args\": {\"a\": [1, 2.5, "
    "-3e-7, true, null, {\"deep\": [[[]]]}]}}],\n"
    "  \"collectives\": {\"seq_source\": \"trace\", \"process_groups\": [{\"name\": \"0\", "
    "\"desc\": \"default_pg\", \"ranks\": [0, 1, 2, 3], \"size\": 4}, {\"name\": \"1\", "
    "\"desc\": null, \"ranks\": null, \"size\": null}],\n"
    "   \"ledger\": [{\"bytes\": 16777216, \"cpu_start_ns\": 1764230400377304992, "
    "\"dtype\": \"BFloat16\", \"end_ns\": 1764230400377449659, \"group_size\": 4, "
    "\"kernel\": \"ncclDevKernel_AllGather_RING_LL(x)\", \"name\": \"_allgather_base\", "
    "\"pg\": \"0\", \"seq\": 21, \"start_ns\": 1764230400377326035, \"step\": 10},\n"
    "    {\"bytes\": null, \"dtype\": null, \"end_ns\": 1764230400477449659, \"group_size\": "
    "null, \"name\": \"allreduce\", \"pg\": null, \"seq\": 22, \"start_ns\": "
    "1764230400477326035, \"step\": null}]},\n"
    "  \"file\": \"node-0_1.pt.trace.json\",\n"
    "  \"findings\": [{\"id\": \"launch-bound\", \"evidence\": {\"x\": 1}}, {\"id\": \"other\"}],\n"
    "  \"gpu\": {\"busy_ns\": 1000, \"idle_ns\": 250, \"idle_pct\": 20.0, \"compute_ns\": 700, "
    "\"communication_ns\": 333, \"comm_comp_overlap_pct\": 12.3456789, "
    "\"idle_breakdown_total\": {\"host_wait_ns\": 77, \"other_ns\": 1}},\n"
    "  \"host\": \"node-0\",\n"
    "  \"memory\": {\"devices\": [{\"id\": 0, \"peak_allocated_bytes\": 123456789}, {\"id\": 1, "
    "\"peak_allocated_bytes\": 987654321}]},\n"
    "  \"overview\": {\"devices\": [{\"id\": 0, \"name\": \"H100\", \"active\": false}, {\"id\": "
    "1, \"name\": \"NVIDIA H100 80GB HBM3\", \"active\": true}], \"distributed\": {\"backend\": "
    "\"nccl\", \"world_size\": 4, \"rank\": 1}, \"start_ns\": 1764230400000000000, \"span_ns\": "
    "987654321},\n"
    "  \"rank\": 1,\n"
    "  \"step_stats\": {\"count\": 4, \"mean_ns\": 1500000, \"median_ns\": 1400000.5, \"p95_ns\": "
    "1700000, \"breakdown_pct\": {\"dataloader_pct\": 12.5, \"compute_pct\": 80}},\n"
    "  \"timeline\": {\"bins\": [[0, 1, 2], [3, 4, 5]], \"s\": \"\\ud83d\\ude00 \\\\ \\/\"}}],\n"
    " \"schema\": \"gpuprof.analyze/1\", \"tags\": {}}\n";

static void test_report(void **state)
{
	(void)state;
	check_str(REPORT);
	assert_int_equal(nranks, 1);
}

/* every prefix of the report: truncated files refused at the same byte */
static void test_truncated(void **state)
{
	size_t n = strlen(REPORT), i;

	(void)state;
	for (i = 0; i < n; i++)
		check(REPORT, i);
}

static void test_hostile(void **state)
{
	static const char *const cases[] = {
		/* keys in another order, rank objects in another order */
		"{\"schema\": \"gpuprof.analyze/1\", \"ranks\": [{\"rank\": 3, \"collectives\": "
		"{\"ledger\": [{\"start_ns\": 5, \"seq\": 1, \"end_ns\": 9}], \"process_groups\": "
		"[]}}, {\"collectives\": {\"process_groups\": [], \"ledger\": []}, \"rank\": 2}]}",
		/* duplicated keys: the last one wins, in kept, skipped and nested members */
		"{\"ranks\": [{\"rank\": 1, \"rank\": 2, \"collectives\": {\"ledger\": 5}, "
		"\"collectives\": {\"process_groups\": [], \"ledger\": [{\"seq\": 1, \"seq\": "
		"\"x\", "
		"\"start_ns\": 1, \"end_ns\": 2}, {\"seq\": \"x\", \"seq\": 4, \"start_ns\": 1, "
		"\"end_ns\": 2, \"bytes\": 1, \"bytes\": null}]}}], \"ranks\": [{\"rank\": 7, "
		"\"collectives\": {\"process_groups\": [], \"ledger\": []}, \"gpu\": {\"busy_ns\": "
		"1}, "
		"\"gpu\": {\"idle_ns\": 2}}], \"schema\": 1, \"schema\": \"gpuprof.analyze/1\"}",
		/* unexpected types everywhere */
		"{\"ranks\": [{\"rank\": \"1\"}, {\"rank\": 1.5}, {\"rank\": 2, \"collectives\": "
		"[]}, "
		"{\"rank\": 3, \"collectives\": {\"ledger\": {}, \"process_groups\": []}}, "
		"{\"rank\": 4, "
		"\"collectives\": {\"ledger\": [], \"process_groups\": {\"name\": 1}}}, {\"rank\": "
		"5, "
		"\"collectives\": {\"ledger\": [1, [2], {\"seq\": 1.0, \"start_ns\": 2e3, "
		"\"end_ns\": "
		"3000.0}], \"process_groups\": [1, null, {\"ranks\": {\"a\": 1}}, {\"ranks\": "
		"[\"a\", "
		"1.5, null, 2]}]}}, {\"rank\": 6, \"collectives\": {\"seq_source\": 4, \"ledger\": "
		"[], "
		"\"process_groups\": []}, \"overview\": [], \"step_stats\": \"x\", \"gpu\": [1], "
		"\"memory\": {\"devices\": {\"peak_allocated_bytes\": 1}}, \"findings\": {\"id\": "
		"\"launch-bound\"}, \"host\": 5}, [], 7, null], \"metrics\": [], \"schema\": "
		"\"gpuprof.analyze/1\"}",
		"{\"ranks\": [{\"rank\": 1, \"collectives\": {\"ledger\": [], \"process_groups\": "
		"[]}, "
		"\"overview\": {\"devices\": [[{\"active\": true, \"name\": \"x\"}], {\"name\": 3, "
		"\"id\": \"1\"}], \"distributed\": [1]}, \"memory\": [{\"devices\": []}]}], "
		"\"metrics\": {\"series\": {\"name\": \"gpu0.clock_sm_hertz\"}}}",
		/* huge and odd numbers */
		"{\"ranks\": [{\"rank\": 9223372036854775807, \"collectives\": {\"ledger\": "
		"[{\"seq\": "
		"-0, \"start_ns\": 9223372036854775808, \"end_ns\": 1e400, \"bytes\": "
		"123456789012345678901234567890, \"group_size\": -9223372036854775808, \"step\": "
		"9.2e18}, {\"seq\": 1E2, \"start_ns\": -1.5e-300, \"end_ns\": 0.0}, {\"seq\": "
		"4e18, "
		"\"start_ns\": 1, \"end_ns\": 2}], \"process_groups\": [{\"ranks\": [1e19, -1, "
		"9007199254740993], \"size\": 1e300}]}, \"gpu\": {\"busy_ns\": 1e308, "
		"\"idle_pct\": "
		"-0.0, \"communication_ns\": 1e308, \"comm_comp_overlap_pct\": 1e-320}, "
		"\"step_stats\": {\"count\": 18446744073709551616, \"mean_ns\": 1e-5, "
		"\"breakdown_pct\": {\"dataloader_pct\": 1e308}}}]}",
		/* escaped keys and strings, a key cut at \u0000, keys that only begin alike */
		"{\"r\\u0061nks\": [{\"\\u0072ank\": 4, \"rank\\u0000x\": 5, \"ranks\": 1, "
		"\"ran\": 2, "
		"\"collectives\": {\"ledger\": [{\"s\\u0065q\": 1, \"start_ns\": 2, \"end_ns\": 3, "
		"\"pg\": \"a\\u0000b\", \"name\": \"\\u00e9\\ud83d\\ude00\", \"dtype\": "
		"\"\\\"\"}], "
		"\"process_groups\": [{\"name\": \"\\n\", \"desc\": \"x\\u0000\"}]}, \"host\": "
		"\"h\\u0000ost\"}], \"schema\\u0000\": \"gpuprof.analyze/1\"}",
		/* nesting past the limit where it is skipped, kept whole and pruned */
		NULL,
		NULL,
		NULL,
		NULL,
		/* garbage */
		"",
		" ",
		"{",
		"[",
		"nul",
		"{\"ranks\": [}",
		"{\"ranks\": NaN}",
		"{\"a\": Infinity}",
		"{\"ranks\": [{\"rank\": 01}]}",
		"{\"ranks\": [{\"x\": \"\\x\"}]}",
		"{\"ranks\": [{\"rank\": 1,}]}",
		"{\"ranks\": [1,]}",
		"{\"ranks\" 1}",
		"{\"ranks\": [] } x",
		"{\"ranks\": [\"\xff\"]}",
		"{\"kernels\": [\"\xc3\"]}",
		"{\"a\": \"\x01\"}",
		"{1: 2}",
		"{\"ranks\": [{\"rank\": -}]}",
		"{\"k\": tru}",
		"{\"ranks\": [{\"rank\": 1e}]}",
		"{\"ranks\": [{\"rank\": \"\\ud800\"}]}",
		"\xef\xbb\xbf{}",
		"[1, {\"ranks\": 2}]",
		"\"ranks\"",
		"42",
		"null",
	};
	size_t i, d;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_buf b;

		gp__buf_init(&b, 0);

		if (cases[i]) {
			check_str(cases[i]);
			continue;
		}
		/* the four nesting cases: 511, 512 and 513 levels at three places */
		for (d = 510; d <= 514; d++) {
			size_t k, at = i % 4;

			gp__buf_reset(&b);
			assert_int_equal(
			    gp__buf_addstr(&b, at == 0   ? "{\"kernels\": "
			                       : at == 1 ? "{\"ranks\": [{\"rank\": 1, "
			                                   "\"collectives\": {\"process_"
			                                   "groups\": "
			                       : at == 2 ? "{\"ranks\": [{\"rank\": 1, "
			                                   "\"collectives\": {\"ledger\": "
			                                 : "{\"ranks\": "),
			    0);
			for (k = 0; k < d; k++)
				assert_int_equal(gp__buf_addstr(&b, at == 2 ? "[{\"seq\": " : "["),
				                 0);
			assert_int_equal(gp__buf_addstr(&b, "1"), 0);
			for (k = 0; k < d; k++)
				assert_int_equal(gp__buf_addstr(&b, at == 2 ? "}]" : "]"), 0);
			assert_int_equal(gp__buf_addstr(&b, at == 0   ? "}"
			                                    : at == 3 ? "}"
			                                              : "}}]}"),
			                 0);
			check(b.buf, b.len);
		}
		gp__buf_release(&b);
	}
}

/* the end of the JSON value at @p p (valid text): past its closing bracket or last byte */
static size_t value_end(const char *t, size_t p, size_t n)
{
	size_t depth = 0;
	bool str = false;

	for (; p < n; p++) {
		char c = t[p];

		if (str) {
			if (c == '\\')
				p++;
			else if (c == '"')
				str = false;
			if (!str && !depth)
				return p + 1;
			continue;
		}
		if (c == '"')
			str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (!depth)
				return p;
			if (!--depth)
				return p + 1;
		} else if (!depth && (c == ',' || c == ' ' || c == '\n'))
			return p;
	}
	return n;
}

/*
 * A member's value at or after @p at replaced by another of any type: the
 * mutant stays JSON, so that the records of odd values are compared.
 */
static size_t replace_value(char *buf, size_t len, size_t cap, size_t at, uint64_t x)
{
	static const char *const vals[] = {
		"-0",   "1e400",       "\"x\"",     "null",
		"true", "[]",          "{}",        "9223372036854775808",
		"1.5",  "\"\\u0000\"", "[1, 2]",    "{\"rank\": 3}",
		"-7",   "4e18",        "\"trace\"", "0.0"
	};
	const char *v = vals[x % (sizeof(vals) / sizeof(vals[0]))], *q;
	size_t b, e, k = strlen(v);

	q = len > at ? memmem(buf + at, len - at, "\": ", 3) : NULL;
	if (!q)
		return len;
	b = (size_t)(q - buf) + 3;
	e = value_end(buf, b, len);
	if (e < b || len - (e - b) + k > cap)
		return len;
	memmove(buf + b + k, buf + e, len - e);
	memcpy(buf + b, v, k);
	return len - (e - b) + k;
}

/* seeded random mutants of the report: values replaced; bytes changed, cut, repeated */
static void test_mutants(void **state)
{
	static const char alphabet[] = "{}[]\",:0123456789-+.eE \\ntfu\x01\xff";
	size_t n = strlen(REPORT), i;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char *buf = malloc(3 * n + 1);

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < 5000; i++) {
		size_t len = n, k, m = 1 + i % 4;

		memcpy(buf, REPORT, n);
		for (k = 0; k < m; k++) {
			size_t at, w;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			at = (size_t)(x % (len ? len : 1));
			w = (size_t)(x >> 40) % 24 + 1;
			if ((x >> 60) < 10) {
				len = replace_value(buf, len, 3 * n, at, x >> 8);
				continue;
			}
			switch ((x >> 32) % 4) {
			case 0: /* a byte changed */
				if (len)
					buf[at] = alphabet[(x >> 20) % (sizeof(alphabet) - 1)];
				break;
			case 1: /* a range cut out */
				if (at + w > len)
					w = len - at;
				memmove(buf + at, buf + at + w, len - at - w);
				len -= w;
				break;
			case 2: /* a range repeated */
				if (at + w > len)
					w = len - at;
				if (len + w <= 3 * n) {
					memmove(buf + at + w, buf + at, len - at);
					len += w;
				}
				break;
			default: /* the end cut off */
				len = at;
				break;
			}
		}
		check(buf, len);
	}
	free(buf);
	print_message("%zu inputs, %zu refused, %zu rank records compared\n", nchecked, nrefused,
	              nranks);
	/* enough mutants are accepted to compare many records */
	assert_true(nranks > 1000);
}

/* the reports of GP_PRUNE_REPORTS (a directory), when set: real jobs (t0625) */
static void test_reports_dir(void **state)
{
	const char *dir = getenv("GP_PRUNE_REPORTS");
	struct dirent *de;
	size_t nfiles = 0;
	DIR *d;

	(void)state;
	if (!dir || !*dir)
		skip();
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d))) {
		char path[4096], *text;
		size_t len;
		long sz;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_non_null(f = fopen(path, "rb"));
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		sz = ftell(f);
		rewind(f);
		assert_true(sz >= 0);
		assert_non_null(text = malloc((size_t)sz + 1));
		len = fread(text, 1, (size_t)sz, f);
		fclose(f);
		nranks = 0;
		check(text, len);
		assert_true(nranks > 0);
		free(text);
		nfiles++;
	}
	closedir(d);
	assert_true(nfiles > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),      cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_hostile),     cmocka_unit_test(test_mutants),
		cmocka_unit_test(test_reports_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
