/* SPDX-License-Identifier: MIT */
/*
 * findings-device.c - the device the findings' advice is for, and the words
 * of its vendor: what a suggestion may name depends on the hardware (no
 * bf16/TF32 before sm_80, ROCm's terms on AMD, both where the vendor is
 * unknown). findings-rules.c asks; nothing here reads a rule.
 *
 * The device is the active one of highest compute capability in
 * overview.devices (the trace's deviceProperties, by id or by the one model
 * they list); its vendor is the device's, else the trace's runtime keys,
 * else its API calls' names; its memory and the peak seen come from
 * overview and memory.devices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "text/text.h"

/* "7.0" -> 70; -1 when @p s is not MAJOR[.MINOR] */
static int parse_cc(const char *s)
{
	char *end;
	long maj, min = 0;

	if (!s)
		return -1;
	maj = strtol(s, &end, 10);
	if (end == s || maj < 0 || maj > 1000)
		return -1;
	if (*end == '.')
		min = strtol(end + 1, NULL, 10);
	if (min < 0 || min > 9)
		min = 0;
	return (int)(maj * 10 + min);
}

static void dev_set_cc(struct gp__fnd_dev *d, int64_t major, int64_t minor)
{
	if (major < 0 || major > 1000 || minor < 0 || minor > 9)
		return;
	d->cc = (int)(major * 10 + minor);
	snprintf(d->cc_text, sizeof(d->cc_text), "%lld.%lld", (long long)major, (long long)minor);
}

/* the vendor from the API calls' names (cudaLaunchKernel, hipLaunchKernel, cuLaunchKernel) */
static enum gp__vendor api_vendor(const struct gp__actx *c)
{
	static const uint8_t api[] = { GP_K_RUNTIME, GP_K_DRIVER };
	size_t j, k;

	for (j = 0; j < GP_ARRAY_SIZE(api); j++) {
		const struct gp__idx *x = &c->by_kind[api[j]];

		for (k = 0; k < x->n; k++) {
			const char *n = gp__strtab_get(&c->t->strs, c->t->ev.name[x->v[k]]);

			if (strncmp(n, "hip", 3) == 0)
				return GP_VENDOR_AMD;
			if (strncmp(n, "cu", 2) == 0)
				return GP_VENDOR_NVIDIA;
		}
	}
	return GP_VENDOR_UNKNOWN;
}

/*
 * The active device of highest compute capability in overview.devices; when
 * no active device has deviceProperties (a ROCm trace numbers its devices by
 * agent, deviceProperties by index), the device that every deviceProperties
 * entry describes (one model, the usual machine).
 */
void gp__fnd_dev_init(const struct gp__actx *c, const struct gp_value *r, struct gp__fnd_dev *d)
{
	const struct gp_value *devs = gp_value_path(r, "overview/devices"), *best = NULL;
	const struct gp_value *mem = gp_value_path(r, "memory/devices");
	struct gp_device_props p;
	int64_t id, v;
	size_t k;
	bool by_id;
	int cc;

	memset(d, 0, sizeof(*d));
	d->cc = -1;
	d->mem_bytes = d->peak_bytes = -1;
	d->vendor = GP_VENDOR_UNKNOWN;
	for (k = 0; k < gp_value_len(devs); k++) {
		const struct gp_value *x = gp_arr_get(devs, k);

		if (!gp_value_get_bool(gp_obj_get(x, "active"), false))
			continue;
		cc = parse_cc(gp_value_get_str(gp_obj_get(x, "compute_capability")));
		if (cc >= 0 && cc > d->cc) {
			d->cc = cc;
			best = x;
		}
	}
	if (best && gp__fnd_geti(best, "id", &id) && gp__trace_device_model(c->t, id, &p, &by_id)) {
		dev_set_cc(d, p.compute_major, p.compute_minor);
		d->name = p.name;
		d->mem_bytes = p.total_mem;
		d->vendor = gp__device_vendor(&p);
	} else if (!best && gp__trace_device_model(c->t, -1, &p, &by_id)) {
		/* no active device with a compute capability: the one model listed, if one */
		dev_set_cc(d, p.compute_major, p.compute_minor);
		d->name = p.name;
		d->mem_bytes = p.total_mem;
		d->vendor = gp__device_vendor(&p);
	}
	if (d->vendor == GP_VENDOR_UNKNOWN)
		d->vendor = gp__trace_vendor(c->t);
	if (d->vendor == GP_VENDOR_UNKNOWN)
		d->vendor = api_vendor(c);
	for (k = 0; k < gp_value_len(mem); k++) {
		const struct gp_value *x = gp_arr_get(mem, k);

		if ((gp__fnd_geti(x, "peak_reserved_bytes", &v) ||
		     gp__fnd_geti(x, "peak_allocated_bytes", &v)) &&
		    v > d->peak_bytes)
			d->peak_bytes = v;
	}
}

/* the words of the device's vendor: NVIDIA's, ROCm's, or both when unknown */
const char *gp__fnd_w_graphs(const struct gp__fnd_dev *d)
{
	switch (d->vendor) {
	case GP_VENDOR_NVIDIA:
		return "CUDA graphs (torch.cuda.CUDAGraph)";
	case GP_VENDOR_AMD:
		return "HIP graphs (torch.cuda.CUDAGraph, which ROCm builds of PyTorch run as HIP "
		       "graphs)";
	default:
		return "GPU graphs (torch.cuda.CUDAGraph: CUDA graphs on NVIDIA, HIP graphs on "
		       "ROCm)";
	}
}

const char *gp__fnd_w_units(const struct gp__fnd_dev *d)
{
	return d->vendor == GP_VENDOR_NVIDIA ? "SMs"
	       : d->vendor == GP_VENDOR_AMD  ? "compute units"
	                                     : "multiprocessors (SMs or compute units)";
}

const char *gp__fnd_w_smem(const struct gp__fnd_dev *d)
{
	return d->vendor == GP_VENDOR_NVIDIA ? "shared-memory"
	       : d->vendor == GP_VENDOR_AMD  ? "LDS"
	                                     : "shared-memory (LDS)";
}

const char *gp__fnd_w_profiler(const struct gp__fnd_dev *d)
{
	return d->vendor == GP_VENDOR_NVIDIA ? "Nsight Compute (ncu)"
	       : d->vendor == GP_VENDOR_AMD  ? "the ROCm Compute Profiler (rocprof-compute)"
	                                     : "the vendor's kernel profiler (Nsight Compute on "
	                                       "NVIDIA, the ROCm Compute Profiler on AMD)";
}

/* "a larger batch", as far as the device's memory and the peak seen allow */
const char *gp__fnd_w_batch(const struct gp__fnd_dev *d, char *buf, size_t n)
{
	char a[32], m[32];

	if (d->peak_bytes > 0 && d->mem_bytes > 0) {
		gp__fmt_bytes(a, sizeof(a), (double)d->peak_bytes, 0);
		gp__fmt_bytes(m, sizeof(m), (double)d->mem_bytes, 0);
		if (d->peak_bytes / 5 * 4 >= d->mem_bytes / 5 * 3) /* 75 % of the memory */
			snprintf(buf, n,
			         "a larger batch only with less memory per sample (peak %s of %s: "
			         "activation checkpointing, lower precision)",
			         a, m);
		else
			snprintf(buf, n, "a larger batch (peak memory %s of %s)", a, m);
	} else if (d->mem_bytes > 0) {
		snprintf(buf, n, "a larger batch (the GPU has %s; the trace has no memory profile)",
		         gp__fmt_bytes(m, sizeof(m), (double)d->mem_bytes, 0));
	} else {
		snprintf(buf, n, "a larger batch (if the GPU's memory allows)");
	}
	return buf;
}

/* the device in the evidence: vendor, name, compute capability (null when unknown) */
int gp__fnd_ev_device(struct gp_value *ev, const struct gp__fnd_dev *d)
{
	int rc;

	if ((rc = gp_obj_set_str(ev, "vendor", gp__vendor_name(d->vendor))) ||
	    (rc = gp_obj_set_str(ev, "device_name", d->name)))
		return rc;
	return d->cc_text[0] ? gp_obj_set_str(ev, "compute_capability", d->cc_text)
	                     : gp_obj_set_null(ev, "compute_capability");
}
