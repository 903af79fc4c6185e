/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kineto.c - libFuzzer target for the Kineto reader and the JSON parser.
 *
 * Each input is opened from memory in place, in place with salvage, and
 * through a small streaming window (so refills, window growth and the gzip
 * stream are exercised too), then parsed by gp_value_parse. The in-place
 * read is done again without the reader's key-segment memo: status, error
 * message and events must be the same (abort otherwise). The source layer's
 * sniffer (what kind of input the bytes are) runs on the whole input and on
 * a prefix of it. Silent: the library never prints and no log callback is set.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof/trace.h"
#include "gpuprof/value.h"
#include "source/kineto.h"
#include "source/source.h"
#include "trace/model.h"

/* a digest of what the reader kept: counts and every event's columns */
static uint64_t digest(const struct gp_trace *t)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ULL)
	MIX(t->ev.n);
	MIX(t->events_read);
	MIX(t->ngpu);
	MIX(t->nmem);
	MIX(t->ntracks);
	MIX(t->npy);
	MIX(t->strs.n);
	for (i = 0; i < t->ev.n; i++) {
		MIX(t->ev.ts[i]);
		MIX(t->ev.dur[i]);
		MIX(t->ev.corr[i]);
		MIX(t->ev.ext[i]);
		MIX(t->ev.stream[i]);
		MIX(t->ev.name[i]);
		MIX(t->ev.track[i]);
		MIX(t->ev.aux[i]);
		MIX(t->ev.kind[i]);
		MIX(t->ev.flags[i]);
	}
	/* the side tables: op inputs, cuda_sync waits, nn.Module calls */
	for (i = 0; i < t->nopargs; i++) {
		MIX(t->opargs[i].ev);
		MIX(t->opargs[i].dims);
		MIX(t->opargs[i].types);
		MIX(t->opargs[i].concrete);
	}
	for (i = 0; i < t->nsync; i++) {
		MIX(t->sync[i].ev);
		MIX(t->sync[i].kind);
		MIX(t->sync[i].wait_stream);
		MIX(t->sync[i].wait_event_corr);
		MIX(t->sync[i].wait_event_id);
	}
	for (i = 0; i < t->npymod; i++) {
		MIX(t->pymod[i].ts);
		MIX(t->pymod[i].dur);
		MIX(t->pymod[i].name);
		MIX(t->pymod[i].track);
		MIX(t->pymod[i].id);
		MIX(t->pymod[i].parent);
	}
#undef MIX
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_open_opts o = { .size = sizeof(o), .name = "fuzz" };
	struct gp_trace *t = NULL;
	struct gp_value *v = NULL;
	size_t off;

	if ((unsigned)gp__sniff_mem(data, size, true) >= GP_SRC_NKINDS ||
	    (unsigned)gp__sniff_mem(data, size / 2, false) >= GP_SRC_NKINDS)
		abort();
	{
		char err[512];
		uint64_t h = 0;
		int rc = gp_trace_open_mem(data, size, &o, &t), rc2;

		if (rc == 0) {
			h = digest(t);
			gp_trace_free(t);
		}
		snprintf(err, sizeof(err), "%s", rc ? gp_last_error() : "");
		gp__kineto_no_memo = true;
		rc2 = gp_trace_open_mem(data, size, &o, &t);
		gp__kineto_no_memo = false;
		if (rc2 != rc || (rc && strcmp(err, gp_last_error()) != 0) ||
		    (!rc && digest(t) != h))
			abort(); /* the memo changed what was read */
		if (rc2 == 0)
			gp_trace_free(t);
	}
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
