/* SPDX-License-Identifier: MIT */
/*
 * fuzz_metrics.c - libFuzzer target for the metrics timeline reader
 * (src/lib/source/metrics.c) and the report's "metrics" object built
 * from it (src/lib/analyze/metrics.c).
 *
 * The input is the text of a metrics.jsonl. When it is read, every series is
 * checked to have one value a sample, on the shared time column, each value
 * finite or NaN; the report object is then built, written as JSON and parsed
 * back, and its points are checked to be at most GP_METRICS_MAX_POINTS a
 * series.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/metrics.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "source/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct gp_metrics_timeline *m)
{
	size_t i, j;

	if (m->nsamples > GP_METRICS_MAX_SAMPLES || m->ngpus > GP_METRICS_MAX_GPUS)
		abort();
	for (i = 0; i < m->nsamples; i++)
		if (m->t_ns[i] < 0)
			abort();
	for (i = 0; i < m->nseries; i++) {
		const struct gp_metrics_series *s = &m->series[i];
		bool known = false;

		if (!s->name || !s->unit || s->n != m->nsamples || s->t_ns != m->t_ns)
			abort();
		for (j = 0; j < s->n; j++) {
			if (!isnan(s->v[j]) && !isfinite(s->v[j]))
				abort();
			known |= !isnan(s->v[j]);
		}
		if (!known) /* a series exists only with a value */
			abort();
		if (gp__metrics_timeline_series(m, s->name) != s)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_metrics_timeline *m = NULL;
	struct gp_value *o = NULL, *back = NULL;
	const struct gp_value *series;
	char *json = NULL;
	size_t len = 0, i;

	if (gp__metrics_timeline_parse((const char *)data, size, &m) != 0) {
		if (m)
			abort();
		gp_clear_error();
		return 0;
	}
	check(m);
	if (gp__metrics_object(m, "metrics.jsonl", &o) == 0) {
		series = gp_obj_get(o, "series");
		for (i = 0; i < gp_value_len(series); i++)
			if (gp_value_len(gp_obj_get(gp_arr_get(series, i), "points")) >
			    GP_METRICS_MAX_POINTS)
				abort();
		if (gp_value_to_json(o, 0, &json, &len) != 0)
			abort();
		if (gp_value_parse(json, len, &back, NULL) != 0)
			abort();
		gp_value_free(back);
		gp_free(json);
		gp_value_free(o);
	}
	gp__metrics_timeline_free(m);
	gp_clear_error();
	return 0;
}
