/* SPDX-License-Identifier: MIT */
/*
 * fuzz_history_csv.c - libFuzzer target for the CSV reader of `history
 * import` (src/lib/history/csv.c: cells, quotes, times, numbers), without a
 * database: each run it hands over is checked to have finite metrics with
 * names and a unit, and the row count to match the runs seen.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/gpuprof.h"
#include "history/history-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int seen(void *user, struct gp__hrun *r)
{
	size_t *n = user;

	if (!r->source || !r->testbed || !r->tags_json || !r->nm)
		abort();
	for (size_t i = 0; i < r->nm; i++)
		if (!r->m[i].name || !r->m[i].unit || !isfinite(r->m[i].value))
			abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_history_meta meta = { .size = sizeof(meta) };
	char *text = malloc(size + 1);
	size_t runs = 0, rows = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (gp__hcsv_parse("fuzz.csv", text, size, &meta, "{}", seen, &runs, &rows) == 0 &&
	    rows != runs)
		abort();
	free(text);
	gp_clear_error();
	return 0;
}
