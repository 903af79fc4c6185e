/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pickle.c - libFuzzer target for the pickle subset reader
 * (src/lib/source/pickle.c) and the memory snapshot analysis over it
 * (src/lib/analyze/memsnap.c).
 *
 * The input is the bytes of a .pickle. A failed parse must leave no graph and
 * an error naming a byte; a parsed graph is checked to hold at most one node
 * per input byte (plus None, False, True), every child to name a node, every
 * string to lie inside the input; the snapshot analysis then runs over it and
 * its document is written as JSON.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/memsnap.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "source/pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct gp__pk *pk, size_t size)
{
	uint32_t id;
	size_t i, len;

	if (pk->nnode > size + 3 || pk->root >= pk->nnode)
		abort();
	for (id = 0; id < pk->nnode; id++) {
		switch (gp__pk_type(pk, id)) {
		case GP_PK_STR:
			if (!gp__pk_str(pk, id, &len) ||
			    (const uint8_t *)gp__pk_str(pk, id, &len) + len > pk->base + size)
				abort();
			break;
		case GP_PK_LIST:
		case GP_PK_TUPLE:
			for (i = 0; i < gp__pk_len(pk, id); i++)
				if (gp__pk_item(pk, id, i) >= pk->nnode)
					abort();
			break;
		case GP_PK_DICT:
			for (i = 0; i < gp__pk_len(pk, id); i++)
				if (gp__pk_key_at(pk, id, i) >= pk->nnode ||
				    gp__pk_val_at(pk, id, i) >= pk->nnode)
					abort();
			break;
		default:
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp__pk *pk = NULL;

	if (gp__pk_parse(data, size, NULL, &pk) != 0) {
		if (pk || strncmp(gp_last_error(), "byte ", 5) != 0)
			abort();
		gp_clear_error();
		return 0;
	}
	check(pk, size);
	/* the analysis over it: a document, or one error naming a byte */
	{
		struct gp_value *doc = NULL, *back = NULL;
		char *text = NULL;
		size_t len = 0;

		if (gp__memsnap_doc(pk, "fuzz.pickle", 20, &doc) == 0) {
			if (gp_value_to_json(doc, 0, &text, &len) != 0 ||
			    gp_value_parse(text, len, &back, NULL) != 0)
				abort();
			gp_free(text);
			text = NULL;
			if (gp__memsnap_format(doc, 20, 100, &text, NULL) != 0)
				abort();
			gp_free(text);
			gp_value_free(back);
			gp_value_free(doc);
		} else if (doc || (strncmp(gp_last_error(), "byte ", 5) != 0 &&
		                   !strstr(gp_last_error(), "memory"))) {
			abort();
		}
	}
	gp__pk_free(pk);
	gp_clear_error();
	return 0;
}
