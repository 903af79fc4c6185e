/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kineto.c - libFuzzer target for the Kineto reader and the JSON parser.
 *
 * Each input is opened from memory in place, in place with salvage, and
 * through a small streaming window (so refills, window growth and the gzip
 * stream are exercised too), then parsed by gp_value_parse. Silent: the
 * library never prints and no log callback is set.
 */
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/trace.h"
#include "gpuprof/value.h"
#include "trace/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_open_opts o = { .size = sizeof(o), .name = "fuzz" };
	struct gp_trace *t = NULL;
	struct gp_value *v = NULL;
	size_t off;

	if (gp_trace_open_mem(data, size, &o, &t) == 0)
		gp_trace_free(t);
	o.salvage = true;
	if (gp_trace_open_mem(data, size, &o, &t) == 0)
		gp_trace_free(t);
	/* a window size picked by the input, 1..64 bytes */
	gp__kineto_test_window = 1 + (size ? data[size / 2] % 64 : 0);
	if (gp_trace_open_mem(data, size, &o, &t) == 0)
		gp_trace_free(t);
	gp__kineto_test_window = 0;
	if (gp_value_parse((const char *)data, size, &v, &off) == 0)
		gp_value_free(v);
	return 0;
}
