/* SPDX-License-Identifier: MIT */
/*
 * fuzz_analyze.c - libFuzzer target for the analyses: any input the reader
 * accepts (with salvage) is analysed under both definitions and the report is
 * serialised and must parse back, so hostile-but-valid traces (huge or
 * negative times, missing launches, odd nesting, NaN-free but absurd args,
 * names that are not UTF-8) exercise every section.
 * The trace is also exported as Chrome JSON, which must parse back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuprof/analyze.h"
#include "gpuprof/export.h"
#include "gpuprof/trace.h"
#include "gpuprof/value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* gp_write_fn over a stdio stream */
static int file_write(const void *p, size_t n, void *user)
{
	return fwrite(p, 1, n, user) == n ? 0 : -1;
}

/* the Chrome export of any trace the reader accepts is valid JSON */
static void export_chrome(const struct gp_trace *t)
{
	struct gp_chrome_writer *w = NULL;
	struct gp_value *doc = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	if (gp_chrome_writer_new(file_write, f, &w) == 0 &&
	    gp_chrome_writer_add_trace(w, t, "r\"0") == 0 && gp_chrome_writer_finish(w) == 0 &&
	    fflush(f) == 0 && gp_value_parse(text, len, &doc, NULL) != 0)
		__builtin_trap();
	gp_value_free(doc);
	gp_chrome_writer_free(w);
	fclose(f);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_open_opts o = { .size = sizeof(o), .name = "fuzz", .salvage = true };
	struct gp_analyze_opts ao = { .size = sizeof(ao), .only_rank = -1, .threads = 1 };
	struct gp_trace *t = NULL;
	int compat;

	if (gp_trace_open_mem(data, size, &o, &t))
		return 0;
	for (compat = 0; compat < 2; compat++) {
		struct gp_value *r = NULL, *back = NULL;
		char *json = NULL;
		size_t len = 0;

		ao.compat = compat ? GP_COMPAT_HTA : GP_COMPAT_NONE;
		ao.top = compat ? 2 : 0;
		/* the report's JSON parses back (strict UTF-8), whatever the names were */
		if (gp_analyze_trace(t, &ao, 0, &r) == 0 &&
		    gp_value_to_json(r, GP_JSON_PRETTY, &json, &len) == 0) {
			if (gp_value_parse(json, len, &back, NULL) != 0)
				__builtin_trap();
			gp_value_free(back);
			gp_free(json);
		}
		gp_value_free(r);
	}
	export_chrome(t);
	gp_trace_free(t);
	return 0;
}
