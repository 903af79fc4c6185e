/* SPDX-License-Identifier: MIT */
/*
 * device.c - a GPU as people read it (text.h): "NVIDIA H100 80GB HBM3
 * (sm_90, 132 SMs, 79.2 GiB)", the one label of analyze's header and the
 * report page's.
 *
 * The compute capability is written as NVIDIA's architecture names it
 * (nvcc -arch): major and minor run together after "sm_" ("9.0" is
 * "sm_90", "12.1" "sm_121"). An AMD GPU is said in ROCm's words: HIP
 * reports the gfx family as a compute capability ("gfx9.4") and compute
 * units as SMs ("304 CUs"); "sm_94, 304 SMs" would read as an NVIDIA GPU.
 * What the trace does not say is left out, never shown as "-".
 */
#include <stdbool.h>
#include <string.h>

#include "gpuprof/value.h"
#include "text/text.h"
#include "util/error.h"

int gp__text_device(struct gp_buf *b, const struct gp_value *d, bool amd)
{
	const char *name = gp_value_get_str(gp_obj_get(d, "name"));
	const char *cc = gp_value_get_str(gp_obj_get(d, "compute_capability"));
	const char *vendor = gp_value_get_str(gp_obj_get(d, "vendor"));
	struct gp_buf p = GP_BUF_INIT;
	double sms = 0, mem = 0;
	char num[32];
	int rc = 0;

	if (name && !*name)
		name = NULL;
	if (cc && !*cc)
		cc = NULL;
	amd = amd || (vendor && strcmp(vendor, "amd") == 0) ||
	      (name && strncmp(name, "AMD ", 4) == 0);
	if (!gp_value_get_double(gp_obj_get(d, "num_sms"), &sms) || !(sms > 0))
		sms = 0;
	if (!gp_value_get_double(gp_obj_get(d, "total_memory_bytes"), &mem) || !(mem > 0))
		mem = 0;
	if (!name && !cc && !sms && !mem)
		return GP_ENOENT;
	if (cc && amd) {
		GP_TRY(gp__buf_addf(&p, "gfx%s", cc));
	} else if (cc) {
		GP_TRY(gp__buf_addstr(&p, "sm_"));
		for (; *cc; cc++)
			if (*cc != '.')
				GP_TRY(gp__buf_addch(&p, *cc));
	}
	if (sms)
		GP_TRY(gp__buf_addf(&p, "%s%s %s", p.len ? ", " : "",
		                    gp__fmt_count(num, sizeof(num), sms), amd ? "CUs" : "SMs"));
	if (mem)
		GP_TRY(gp__buf_addf(&p, "%s%s", p.len ? ", " : "",
		                    gp__fmt_bytes(num, sizeof(num), mem, 0)));
	/* the trace's strings: control characters never reach the terminal */
	GP_TRY(gp__text_fit(b, name ? name : "unnamed GPU", 0, 0));
	if (p.len) {
		GP_TRY(gp__buf_addstr(b, " ("));
		GP_TRY(gp__text_fit(b, p.buf, 0, 0));
		GP_TRY(gp__buf_addch(b, ')'));
	}
out:
	gp__buf_release(&p);
	return rc;
}
