/* SPDX-License-Identifier: MIT */
/*
 * peaks.c - the table of GPU peaks and its matching rules.
 *
 * Figures are the datasheets' dense ones: where a datasheet gives Tensor
 * Core figures "with sparsity" only, the dense figure is half of it (2:4
 * structured sparsity doubles the rate). An AMD MI250/MI250X is two GCDs,
 * each its own device to ROCm and to the trace: its row is half the OAM
 * module's datasheet figures. The rules match on the name first, then use
 * the SM/CU count and memory only to split variants whose names may not
 * say (H100 SXM/PCIe, MI250/MI250X); anything else is unknown.
 */
#include "peaks.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "util/error.h"

#define NA NAN

#define URL_V100                                                                                   \
	"https://images.nvidia.com/content/technologies/volta/pdf/"                                \
	"volta-v100-datasheet-update-us-1165301-r5.pdf"
#define URL_A100                                                                                   \
	"https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"                 \
	"nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
#define URL_H100   "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
#define URL_H200   "https://www.nvidia.com/en-us/data-center/h200/"
#define URL_B200   "https://www.nvidia.com/en-us/data-center/hgx/"
#define URL_L4     "https://www.nvidia.com/en-us/data-center/l4/"
#define URL_L40S   "https://www.nvidia.com/en-us/data-center/l40s/"
#define URL_MI250  "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html"
#define URL_MI250X "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"
#define URL_MI300X "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"

enum {
	V100_SXM2,
	V100_PCIE,
	A100_40GB,
	A100_80GB_PCIE,
	A100_80GB_SXM,
	H100_SXM,
	H100_PCIE,
	H100_NVL,
	H200_SXM,
	B200,
	L4,
	L40S,
	MI250_GCD,
	MI250X_GCD,
	MI300X,
};

static const struct gp__peaks table[] = {
	/*              fp64  fp64_mx fp32  fp32_mx tf32    fp16    bf16    fp8     int8    TB/s */
	[V100_SXM2] = { "V100 SXM2", 7.8, NA, 15.7, NA, NA, 125, NA, NA, NA, 0.9, URL_V100 },
	[V100_PCIE] = { "V100 PCIe", 7, NA, 14, NA, NA, 112, NA, NA, NA, 0.9, URL_V100 },
	[A100_40GB] = { "A100 40GB", 9.7, 19.5, 19.5, NA, 156, 312, 312, NA, 624, 1.555, URL_A100 },
	[A100_80GB_PCIE] = { "A100 80GB PCIe", 9.7, 19.5, 19.5, NA, 156, 312, 312, NA, 624, 1.935,
	                     URL_A100 },
	[A100_80GB_SXM] = { "A100 80GB SXM", 9.7, 19.5, 19.5, NA, 156, 312, 312, NA, 624, 2.039,
	                    URL_A100 },
	[H100_SXM] = { "H100 SXM", 34, 67, 67, NA, 494.5, 989.5, 989.5, 1979, 1979, 3.35,
	               URL_H100 },
	[H100_PCIE] = { "H100 PCIe", 26, 51, 51, NA, 378, 756.5, 756.5, 1513, 1513, 2.0, URL_H100 },
	[H100_NVL] = { "H100 NVL", 30, 60, 60, NA, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3.9,
	               URL_H100 },
	[H200_SXM] = { "H200 SXM", 34, 67, 67, NA, 494.5, 989.5, 989.5, 1979, 1979, 4.8, URL_H200 },
	[B200] = { "B200", 37, 37, 75, NA, 1125, 2250, 2250, 4500, 4500, 8.0, URL_B200 },
	[L4] = { "L4", NA, NA, 30.3, NA, 60, 121, 121, 242.5, 242.5, 0.3, URL_L4 },
	[L40S] = { "L40S", NA, NA, 91.6, NA, 183, 362.05, 362.05, 733, 733, 0.864, URL_L40S },
	[MI250_GCD] = { "MI250 (one GCD)", 22.65, 45.25, 22.65, 45.25, NA, 181.05, 181.05, NA,
	                181.05, 1.6384, URL_MI250 },
	[MI250X_GCD] = { "MI250X (one GCD)", 23.95, 47.85, 23.95, 47.85, NA, 191.5, 191.5, NA,
	                 191.5, 1.6384, URL_MI250X },
	[MI300X] = { "MI300X", 81.7, 163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9,
	             5.3, URL_MI300X },
};

const struct gp__peaks *gp__peaks_table(size_t *n)
{
	*n = GP_ARRAY_SIZE(table);
	return table;
}

/* case-insensitive substring */
static bool has(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (; *s; s++) {
		size_t i = 0;

		while (i < n && s[i] &&
		       tolower((unsigned char)s[i]) == tolower((unsigned char)w[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* @p w as a word of its own ("L4" in "NVIDIA L4", not in "L40S") */
static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = s; (p = strstr(p, w)) != NULL; p++) {
		bool before = p == s || !isalnum((unsigned char)p[-1]);
		bool after = !isalnum((unsigned char)p[n]);

		if (before && after)
			return true;
	}
	return false;
}

const struct gp__peaks *gp__peaks_match(const struct gp_device_props *p)
{
	const char *nm = p ? p->name : NULL;
	double gb = p && p->total_mem > 0 ? (double)p->total_mem / 1e9 : -1;
	int64_t sms = p ? p->num_sms : -1;

	if (!nm || !*nm)
		return NULL;
	if (has(nm, "V100")) {
		if (has(nm, "V100S"))
			return NULL; /* its own datasheet figures, not in the table */
		if (has(nm, "PCIE"))
			return &table[V100_PCIE];
		/* DGXS: the DGX Station's V100s are SXM2 modules (500 TFLOPS for 4) */
		if (has(nm, "SXM2") || has(nm, "DGXS"))
			return &table[V100_SXM2];
		return NULL;
	}
	if (has(nm, "A100")) {
		/* every A100 variant has the same compute peaks; bandwidth sets the row */
		if (gb > 0 && gb < 60)
			return &table[A100_40GB];
		if (gb >= 60 && has(nm, "PCIE"))
			return &table[A100_80GB_PCIE];
		if (gb >= 60 && has(nm, "SXM"))
			return &table[A100_80GB_SXM];
		return NULL;
	}
	if (has(nm, "H100")) {
		if (has(nm, "PCIE") || sms == 114)
			return &table[H100_PCIE];
		if (has(nm, "NVL"))
			return &table[H100_NVL];
		if (has(nm, "SXM") || (has(nm, "HBM3") && (sms == 132 || sms < 0)) || sms == 132)
			return &table[H100_SXM];
		return NULL;
	}
	if (has(nm, "H200"))
		return has(nm, "NVL") ? NULL : &table[H200_SXM];
	if (has(nm, "B200"))
		return &table[B200];
	if (has(nm, "L40S"))
		return &table[L40S];
	if (has_word(nm, "L4"))
		return &table[L4];
	if (has(nm, "MI300X"))
		return &table[MI300X]; /* "AMD Instinct MI300X VF" (a virtual function) too */
	if (has(nm, "MI250")) {
		/* ROCm may name both "MI250X/MI250": a GCD has 110 CUs on an MI250X, 104 on an
		 * MI250 */
		if (sms == 110)
			return &table[MI250X_GCD];
		if (sms == 104)
			return &table[MI250_GCD];
		return NULL;
	}
	return NULL;
}
