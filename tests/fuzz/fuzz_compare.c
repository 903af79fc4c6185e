/* SPDX-License-Identifier: MIT */
/*
 * fuzz_compare.c - libFuzzer target for what `gpuprof compare` reads: a
 * bench result ("gpuprof.bench/1") or an analyze report ("gpuprof.analyze/1")
 * given as a file, checked and compared (src/lib/compare/), and the bench
 * tables (src/lib/bench/bench-format.c).
 *
 * The input is the text of one side. When it parses as JSON, it is compared
 * with itself (which must never be a regression: every metric is equal), the
 * result is formatted as text and Markdown, and the tree is also formatted
 * as a bench table. Errors are fine; crashes, leaks, sanitizer reports and a
 * self-comparison that reports a regression are findings.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpuprof/bench.h"
#include "gpuprof/compare.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_compare_opts o = { .size = sizeof(o), .rank = -1 };
	struct gp_value *v = NULL, *r = NULL;
	char *text = NULL;
	size_t len, off;

	if (size > (1u << 20))
		return 0;
	if (gp_value_parse((const char *)data, size, &v, &off))
		return 0;
	o.resamples = 50; /* the intervals are not what is fuzzed */
	if (gp_compare_values(v, v, &o, &r) == 0) {
		if (gp_compare_regression(r))
			abort();
		if (gp_compare_format(r, GP_COMPARE_TEXT, 20, &text, &len) == 0)
			gp_free(text);
		if (gp_compare_format(r, GP_COMPARE_MARKDOWN, 0, &text, &len) == 0)
			gp_free(text);
		gp_value_free(r);
	}
	if (gp_bench_format(v, GP_BENCH_TEXT, &text, &len) == 0)
		gp_free(text);
	if (gp_bench_format(v, GP_BENCH_MARKDOWN, &text, &len) == 0)
		gp_free(text);
	gp_value_free(v);
	return 0;
}
