/* SPDX-License-Identifier: MIT */
/*
 * test_memsnap.c - the memory snapshot analysis (src/lib/analyze/memsnap*.c).
 *
 * tests/memsnap_gen.py writes snapshots with the documented structure at
 * every pickle protocol and, beside them, the answers of its own Python
 * reading (the definitions of docs/analyses/memory-snapshot.md): per device
 * the peak of allocated bytes replaying the trace (with what was allocated
 * before the trace began), the live bytes by top frame at the peak, the
 * fragmentation per segment class and the OOM entries. The document must
 * agree with them exactly; hand-made snapshots check the schema errors and
 * that memo-shared collections are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/memsnap.h"
#include "gpuprof/value.h"
#include "source/pickle.h"
#include "memsnap-gen.h"
#include "testutil.h"

static struct gp_value *load_json(const char *path)
{
	struct gp_value *v = NULL;
	size_t n;
	char *text = slurp(path, &n);

	assert_int_equal(gp_value_parse(text, n, &v, NULL), 0);
	free(text);
	return v;
}

/* the rows [frame, bytes, blocks] of the reference against the document's */
static void same_groups(const struct gp_value *want, const struct gp_value *got)
{
	size_t i;

	assert_int_equal(gp_value_len(want), gp_value_len(got));
	for (i = 0; i < gp_value_len(want); i++) {
		const struct gp_value *w = gp_arr_get(want, i), *g = gp_arr_get(got, i);

		assert_string_equal(gp_value_get_str(gp_arr_get(w, 0)), tu_gets(g, "frame"));
		assert_int_equal(tu_geti(w, "1"), tu_geti(g, "bytes"));
		assert_int_equal(tu_geti(w, "2"), tu_geti(g, "blocks"));
	}
}

static void check_variant(const char *variant, int proto)
{
	char pk_path[128], ex_path[128];
	struct gp_value *want, *doc = NULL;
	struct gp__pk *pk = NULL;
	const struct gp_value *devs;
	char *bytes;
	size_t n, d;

	snprintf(pk_path, sizeof(pk_path), "%s/%s%d.pickle", tmpdir, variant, proto);
	snprintf(ex_path, sizeof(ex_path), "%s/%s%d.json", tmpdir, variant, proto);
	if (!gen(pk_path, proto, variant, "--expect", ex_path))
		skip();
	want = load_json(ex_path);
	bytes = slurp(pk_path, &n);
	assert_int_equal(gp__pk_parse(bytes, n, NULL, &pk), 0);
	assert_int_equal(gp__memsnap_doc(pk, "x.pickle", 0, &doc), 0);
	assert_true(gp__memsnap_is(doc));
	assert_int_equal(tu_geti(doc, "pickle_protocol"), proto);
	devs = gp_obj_get(doc, "devices");
	assert_int_equal(gp_value_len(devs), gp_value_len(want));
	for (d = 0; d < gp_value_len(devs); d++) {
		const struct gp_value *dev = gp_arr_get(devs, d), *w, *frag, *oo, *wo;
		char key[16];
		size_t i;

		snprintf(key, sizeof(key), "%lld", (long long)tu_geti(dev, "device"));
		w = gp_obj_get(want, key);
		assert_non_null(w);
		assert_string_equal(tu_gets(dev, "peak/source"), tu_gets(w, "peak/source"));
		assert_int_equal(tu_geti(dev, "peak/allocated_bytes"),
		                 tu_geti(w, "peak/allocated_bytes"));
		if (strcmp(tu_gets(w, "peak/source"), "trace") == 0) {
			assert_int_equal(tu_geti(dev, "peak/entry"), tu_geti(w, "peak/entry"));
			assert_int_equal(tu_geti(dev, "peak/time_us"), tu_geti(w, "peak/time_us"));
			oo = gp_obj_get(dev, "ooms");
			wo = gp_obj_get(w, "ooms");
			assert_int_equal(gp_value_len(oo), gp_value_len(wo));
			for (i = 0; i < gp_value_len(oo); i++) {
				const struct gp_value *a = gp_arr_get(oo, i),
				                      *b = gp_arr_get(wo, i);

				assert_int_equal(tu_geti(a, "entry"), tu_geti(b, "entry"));
				assert_int_equal(tu_geti(a, "requested_bytes"),
				                 tu_geti(b, "requested"));
				assert_int_equal(tu_geti(a, "device_free_bytes"),
				                 tu_geti(b, "device_free"));
				assert_int_equal(tu_geti(a, "allocated_bytes"),
				                 tu_geti(b, "allocated"));
				same_groups(gp_obj_get(b, "top"), gp_obj_get(a, "frames"));
			}
			assert_true(gp_value_len(gp_value_path(dev, "curve/points")) <=
			            GP_MEMSNAP_MAX_POINTS);
		}
		same_groups(gp_obj_get(w, "top"), gp_value_path(dev, "peak/frames"));
		frag = gp_obj_get(dev, "fragmentation");
		assert_int_equal(gp_value_len(frag), gp_value_len(gp_obj_get(w, "fragmentation")));
		for (i = 0; i < gp_value_len(frag); i++) {
			const struct gp_value *f = gp_arr_get(frag, i);
			const struct gp_value *wf =
			    gp_obj_get(gp_obj_get(w, "fragmentation"), tu_gets(f, "class"));

			assert_non_null(wf);
			assert_int_equal(tu_geti(f, "segments"), tu_geti(wf, "0"));
			assert_int_equal(tu_geti(f, "reserved_bytes"), tu_geti(wf, "1"));
			assert_int_equal(tu_geti(f, "allocated_bytes"), tu_geti(wf, "2"));
			assert_int_equal(tu_geti(f, "free_bytes"),
			                 tu_geti(wf, "1") - tu_geti(wf, "2"));
		}
	}
	assert_true(
	    gp_value_get_bool(gp_value_path(doc, "allocator_settings/expandable_segments"), false));
	gp_value_free(doc);
	gp_value_free(want);
	gp__pk_free(pk);
	free(bytes);
}

static void test_reference(void **state)
{
	int proto;

	(void)state;
	for (proto = 2; proto <= 5; proto++)
		check_variant("base", proto);
	check_variant("grown", 4);
	check_variant("notrace", 4);
	check_variant("tiny", 2);
}

static int doc_of(const char *p, size_t n, struct gp_value **doc)
{
	struct gp__pk *pk = NULL;
	int rc = gp__pk_parse(p, n, NULL, &pk);

	assert_int_equal(rc, 0);
	*doc = NULL;
	rc = gp__memsnap_doc(pk, "x.pickle", 0, doc);
	gp__pk_free(pk);
	return rc;
}

#define DOC_FAILS(lit, msg)                                                                        \
	do {                                                                                       \
		struct gp_value *d_;                                                               \
		assert_int_equal(doc_of(lit, sizeof(lit) - 1, &d_), GP_EFORMAT);                   \
		assert_null(d_);                                                                   \
		assert_non_null(strstr(gp_last_error(), msg));                                     \
	} while (0)

static void test_schema_errors(void **state)
{
	(void)state;
	DOC_FAILS("\x80\x02]q\x00.", "byte 2: not a memory snapshot");
	/* {"segments": [S, S]} with one segment dict S shared through the memo */
	DOC_FAILS("\x80\x02}(\x8c\x08segments](}q\x01(\x8c\ntotal_sizeK\x01\x8c\x06"
	          "blocks]uh\x01"
	          "eu.",
	          "a segment reached twice");
	/* a segment without blocks; a block without a size */
	DOC_FAILS("\x80\x02}(\x8c\x08segments](}(\x8c\ntotal_sizeK\x01ueu.",
	          "a segment without a 'blocks' list");
	DOC_FAILS("\x80\x02}(\x8c\x08segments](}(\x8c\ntotal_sizeK\x01\x8c\x06"
	          "blocks](}eueu.",
	          "no 'size' in this dict");
	/* a trace entry's size of the wrong type */
	DOC_FAILS("\x80\x02}(\x8c\x08segments]\x8c\rdevice_traces](](}(\x8c\x06"
	          "action\x8c\x05"
	          "alloc"
	          "\x8c\x04size\x8c\x01xueeu.",
	          "'size' is a str, not an int");
}

/* an empty snapshot: no devices, no settings */
static void test_empty(void **state)
{
	static const char p[] = "\x80\x04}(\x8c\x08segments]\x8c\rdevice_traces]u.";
	struct gp_value *doc = NULL;
	char *text = NULL;

	(void)state;
	assert_int_equal(doc_of(p, sizeof(p) - 1, &doc), 0);
	assert_int_equal(gp_value_len(gp_obj_get(doc, "devices")), 0);
	assert_int_equal(gp_value_type(gp_obj_get(doc, "allocator_settings")), GP_VALUE_NULL);
	assert_int_equal(gp__memsnap_format(doc, 10, 100, &text, NULL), 0);
	assert_non_null(strstr(text, "no device"));
	gp_free(text);
	gp_value_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_schema_errors),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
