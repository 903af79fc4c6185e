/* SPDX-License-Identifier: MIT */
/*
 * findings-critpath.c - the finding of the "critical_path" section:
 * critical-path-bound says what sets the steps' length and, from that, what
 * would shorten them and what would not ("the GPU kernels are on the path
 * 4 % of the time: faster kernels will not shorten this step").
 *
 * Read from the section's total over the steps: the host side is cpu_bound
 * plus gpu_kernel_launch_overhead (the time from a launch call to its
 * kernel's start with the stream empty: the GPU waits for the host), the GPU
 * side gpu_compute_bound, gpu_communication_bound and
 * gpu_kernel_kernel_overhead. The side with at least HALF_PCT of the path
 * bounds the step; impact_pct is that side's share of the path (the time the
 * advice is about). docs/analyses/findings.md and critical-path.md.
 */
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "text/text.h"
#include "util/value-int.h"

/* a side with this share of the path bounds the step */
#define HALF_PCT 50.0
/* names in the text are cut to this many bytes: a word a line of 60 columns can hold */
#define NAME_MAX_TEXT 40
/* the GPU side bounds the step: the finding only names what slows it beyond its kernels */
#define GPU_PART_PCT 10.0
/* under this share of the path a side's speed does not matter */
#define NEGLIGIBLE_PCT 5.0
/* over this share of host time on the path the GPU is starved: medium severity */
#define HOST_MEDIUM_PCT 80.0

static double pct_of(const struct gp_value *cp, const char *cat)
{
	char p[96];
	double v = 0;

	snprintf(p, sizeof(p), "total/bound_by_pct/%s", cat);
	if (!gp__fnd_getd(cp, p, &v))
		v = 0;
	return v;
}

/* "A 12.3 ms, B 4.1 ms" from the top list @p key of the step with the longest path */
static void names(const struct gp_value *step, const char *key, char *buf, size_t n)
{
	const struct gp_value *l = gp_obj_get(step, key);
	size_t i, used = 0;

	buf[0] = 0;
	for (i = 0; i < gp_value_len(l) && i < 3; i++) {
		const struct gp_value *it = gp_arr_get(l, i);
		const char *nm = gp_value_get_str(gp_obj_get(it, "name"));
		int64_t ns = 0;
		char d[32], nm_short[72];
		int w;

		if (!nm || !gp_value_get_int(gp_obj_get(it, "path_ns"), &ns))
			continue;
		if (strlen(nm) > NAME_MAX_TEXT)
			snprintf(nm_short, sizeof(nm_short), "%.*s...", NAME_MAX_TEXT - 3, nm);
		else
			snprintf(nm_short, sizeof(nm_short), "%s", nm);
		w = snprintf(buf + used, n - used, "%s%s %s", used ? ", " : "", nm_short,
		             gp__fmt_dur(d, sizeof(d), (double)ns, 0));
		if (w < 0 || (size_t)w >= n - used) {
			buf[used] = 0;
			break;
		}
		used += (size_t)w;
	}
}

static const struct gp_value *longest_step(const struct gp_value *cp)
{
	const struct gp_value *steps = gp_obj_get(cp, "steps"), *best = NULL;
	int64_t bn = -1, v;
	size_t i;

	for (i = 0; i < gp_value_len(steps); i++)
		if (gp_value_get_int(gp_obj_get(gp_arr_get(steps, i), "path_ns"), &v) && v > bn) {
			bn = v;
			best = gp_arr_get(steps, i);
		}
	return best;
}

int gp__fnd_critpath(const struct gp__actx *c, const struct gp_value *r,
                     const struct gp__fnd_base *b, struct gp__fnd_list *fl)
{
	const struct gp_value *cp = gp_obj_get(r, "critical_path"), *worst;
	struct gp_value *ev = NULL;
	double cpu, launch, comp, comm, kk, host, gpu, impact;
	char title[512], sugg[1536], top_ops[256], top_k[256], wd[32], what[160];
	const char *steps_w;
	int64_t path = 0, wpath = 0;
	enum gp__fnd_sev sev;
	size_t nsteps;
	int rc = 0;

	(void)c;
	if (gp_value_type(cp) != GP_VALUE_OBJECT ||
	    !gp_value_get_bool(gp_obj_get(cp, "available"), false) ||
	    !gp__fnd_geti(cp, "total/path_ns", &path) || path <= 0)
		return 0;
	cpu = pct_of(cp, "cpu_bound");
	launch = pct_of(cp, "gpu_kernel_launch_overhead");
	comp = pct_of(cp, "gpu_compute_bound");
	comm = pct_of(cp, "gpu_communication_bound");
	kk = pct_of(cp, "gpu_kernel_kernel_overhead");
	host = cpu + launch;
	gpu = comp + comm + kk;
	nsteps = gp_value_len(gp_obj_get(cp, "steps"));
	worst = longest_step(cp);
	gp_value_get_int(gp_obj_get(worst, "path_ns"), &wpath);
	names(worst, "top_cpu_ops", top_ops, sizeof(top_ops));
	names(worst, "top_kernels", top_k, sizeof(top_k));
	gp__fmt_dur(wd, sizeof(wd), (double)wpath, 0);
	steps_w = nsteps > 1 ? "these steps" : "this step";

	if (host >= HALF_PCT) {
		impact = host;
		sev = host >= HOST_MEDIUM_PCT ? GP_FND_MEDIUM : GP_FND_LOW;
		snprintf(title, sizeof(title),
		         "The host sets the step's length: the GPU kernels are not on the critical "
		         "path %.0f %% of the time",
		         100.0 - gpu);
		if (gpu < NEGLIGIBLE_PCT)
			snprintf(what, sizeof(what), "faster kernels will not shorten %s", steps_w);
		else
			snprintf(
			    what, sizeof(what),
			    "faster kernels can shorten %s by %.0f %% at most (the GPU's share "
			    "of the path)",
			    steps_w, gpu);
		snprintf(sugg, sizeof(sugg),
		         "%s; less host work on the path will (longest path %s%s%s): fewer, fused "
		         "ops (torch.compile), %s for launch-heavy stretches, data loading and "
		         "preparation off the main thread%s",
		         what, wd, top_ops[0] ? "; its top ops: " : "", top_ops,
		         gp__fnd_w_graphs(&b->dev),
		         launch >= 5.0 ? "; launch latency is a visible part: batch small kernels"
		                       : "");
	} else if (gpu >= HALF_PCT) {
		/* kernels bound the step as they should: nothing stands out unless the GPU's
		 * own overheads (communication, gaps between kernels) are a large part */
		if (comm < GPU_PART_PCT && kk < GPU_PART_PCT)
			return 0;
		impact = gpu;
		sev = GP_FND_INFO;
		snprintf(
		    title, sizeof(title),
		    "The GPU sets the step's length: kernels are on the critical path %.0f %% of "
		    "the time",
		    gpu);
		if (host < NEGLIGIBLE_PCT)
			snprintf(what, sizeof(what), "host-side work will not");
		else
			snprintf(what, sizeof(what),
			         "host-side work by %.0f %% at most (its share)", host);
		snprintf(sugg, sizeof(sugg),
		         "faster kernels shorten %s, %s (longest path %s%s%s)%s%s", steps_w, what,
		         wd, top_k[0] ? "; its top kernels: " : "", top_k,
		         comm >= 10.0 ? "; communication is a large part: overlap it with compute "
		                        "(bucketed all-reduce, prefetching)"
		                      : "",
		         kk >= 10.0 ? "; gaps between queued kernels are a large part: fuse small "
		                      "kernels"
		                    : "");
	} else {
		impact = host;
		sev = GP_FND_LOW;
		snprintf(
		    title, sizeof(title),
		    "Neither side alone sets the step's length: the CPU and launches are on the "
		    "critical path %.0f %% of the time, the GPU %.0f %%",
		    host, gpu);
		snprintf(sugg, sizeof(sugg),
		         "both shorten %s: the host work on the path (%s) and its kernels (%s)",
		         steps_w, top_ops[0] ? top_ops : "none", top_k[0] ? top_k : "none");
	}
	ev = gp_value_object();
	if (!ev)
		return gp__error(GP_ENOMEM, "out of memory");
	GP_TRY(gp_obj_set_int(ev, "path_ns", path));
	GP_TRY(gp_obj_set_int(ev, "steps", (int64_t)nsteps));
	GP_TRY(gp_obj_set_double(ev, "host_pct", host));
	GP_TRY(gp_obj_set_double(ev, "gpu_pct", gpu));
	GP_TRY(gp_obj_set_double(ev, "cpu_bound_pct", cpu));
	GP_TRY(gp_obj_set_double(ev, "gpu_compute_bound_pct", comp));
	GP_TRY(gp_obj_set_double(ev, "gpu_communication_bound_pct", comm));
	GP_TRY(gp_obj_set_double(ev, "gpu_kernel_kernel_overhead_pct", kk));
	GP_TRY(gp_obj_set_double(ev, "gpu_kernel_launch_overhead_pct", launch));
	GP_TRY(gp__obj_set_str_or_null(ev, "longest_step",
	                               gp_value_get_str(gp_obj_get(worst, "step"))));
	GP_TRY(gp_obj_set_int(ev, "longest_step_path_ns", wpath));
	rc = gp__fnd_add(fl, "critical-path-bound", sev, impact, title, ev, sugg);
	ev = NULL; /* gp__fnd_add took it */
out:
	gp_value_free(ev);
	return rc;
}
