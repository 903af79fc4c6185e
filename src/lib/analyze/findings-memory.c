/* SPDX-License-Identifier: MIT */
/*
 * findings-memory.c - the finding of the "memory" section: memory-leak,
 * when a device's leak test (memleak.c) says its memory grows step after
 * step and names the op whose allocations stay alive.
 *
 * One finding for the device that grows fastest. High when, at that rate,
 * the device's memory (overview.devices) runs out within EXHAUST_STEPS
 * more steps after the peak seen; medium otherwise. Its impact is not a
 * share of time: null. docs/analyses/findings.md and overview-memory.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "text/text.h"
#include "util/value-int.h"

/* a leak that fills the device within this many more steps is high severity */
#define EXHAUST_STEPS 10000

int gp__fnd_memory(const struct gp__actx *c, const struct gp_value *r, const struct gp__fnd_base *b,
                   struct gp__fnd_list *fl)
{
	const struct gp_value *devs = gp_value_path(r, "memory/devices"), *worst = NULL, *lk, *hold;
	int64_t growth = 0, g, total = 0, tested = 0, held = 0, held_steps = 0, peak = 0, left = -1;
	char title[512], sugg[1024], gb[32], dev[32];
	const char *op, *src;
	struct gp_value *ev = NULL;
	enum gp__fnd_sev sev = GP_FND_MEDIUM;
	bool gpu;
	size_t i;
	int rc = 0;

	(void)c;
	for (i = 0; i < gp_value_len(devs); i++) {
		const struct gp_value *d = gp_arr_get(devs, i);

		lk = gp_obj_get(d, "leak");
		if (!gp_value_get_bool(gp_obj_get(lk, "suspect"), false) ||
		    !gp_value_get_int(gp_obj_get(lk, "growth_per_step_bytes"), &g))
			continue;
		if (!worst || g > growth) {
			worst = d;
			growth = g;
		}
	}
	if (!worst)
		return 0;
	lk = gp_obj_get(worst, "leak");
	hold = gp_obj_get(lk, "holder");
	op = gp_value_get_str(gp_obj_get(hold, "op"));
	gp_value_get_int(gp_obj_get(lk, "total_growth_bytes"), &total);
	gp_value_get_int(gp_obj_get(lk, "steps_tested"), &tested);
	gp_value_get_int(gp_obj_get(hold, "retained_bytes"), &held);
	gp_value_get_int(gp_obj_get(hold, "steps"), &held_steps);
	gp_value_get_int(gp_obj_get(worst, "peak_allocated_bytes"), &peak);
	gpu = gp_value_get_int(gp_obj_get(worst, "device"), &g); /* the host's is "cpu" */
	if (gpu)
		snprintf(dev, sizeof(dev), "GPU %lld memory", (long long)g);
	else
		snprintf(dev, sizeof(dev), "Host memory");
	/* a Bytes running sum is relative to the start: the room left is unknown */
	src = gp_value_get_str(gp_obj_get(worst, "allocated_source"));
	if (gpu && b->dev.mem_bytes > 0 && growth > 0 && src && !strcmp(src, "total_allocated")) {
		left = (b->dev.mem_bytes - peak) / growth;
		if (left < 0)
			left = 0;
		if (left < EXHAUST_STEPS)
			sev = GP_FND_HIGH;
	}
	gp__fmt_bytes(gb, sizeof(gb), (double)growth, 0);
	if (op)
		snprintf(title, sizeof(title),
		         "%s grows by %s a step: allocations made by %s in each step are never "
		         "freed",
		         dev, gb, op);
	else
		snprintf(title, sizeof(title), "%s grows by %s a step over %lld steps%s", dev, gb,
		         (long long)tested,
		         gp_value_get_bool(gp_obj_get(lk, "addresses"), true)
		             ? ""
		             : " (the trace has no addresses: which op keeps them is unknown)");
	snprintf(sugg, sizeof(sugg),
	         "something keeps a tensor of every step alive%s%s%s: a list that grows (losses "
	         "appended without .item() or .detach(), which keeps their autograd graph too), "
	         "a cache keyed by step or input, state kept on the module; "
	         "torch.cuda.memory._record_memory_history() and a snapshot (gpuprof analyze "
	         "snapshot.pickle) show the Python line that allocates them",
	         op ? " (" : "", op ? op : "", op ? "'s output)" : "");
	if (left >= 0) {
		size_t used = strlen(sugg);

		snprintf(sugg + used, sizeof(sugg) - used,
		         "; at this rate the device's memory runs out in about %lld more steps",
		         (long long)left);
	}
	ev = gp_value_object();
	if (!ev)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set(ev, "device", gp_value_clone(gp_obj_get(worst, "device"))));
	GP_TRY(gp_obj_set_int(ev, "growth_per_step_bytes", growth));
	GP_TRY(gp_obj_set_int(ev, "total_growth_bytes", total));
	GP_TRY(gp_obj_set_int(ev, "steps_tested", tested));
	GP_TRY(gp__obj_set_str_or_null(ev, "op", op));
	if (op) {
		GP_TRY(gp_obj_set_int(ev, "retained_bytes", held));
		GP_TRY(gp_obj_set_int(ev, "retained_steps", held_steps));
	}
	if (left >= 0)
		GP_TRY(gp_obj_set_int(ev, "steps_to_exhaust", left));
	else
		GP_TRY(gp_obj_set_null(ev, "steps_to_exhaust"));
	rc = gp__fnd_add(fl, "memory-leak", sev, NAN, title, ev, sugg);
	ev = NULL; /* gp__fnd_add took it */
out:
	gp_value_free(ev);
	return rc;
}
