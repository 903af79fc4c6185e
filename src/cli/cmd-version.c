/* SPDX-License-Identifier: MIT */
/*
 * cmd-version.c - `gpuprof version [--build-options]`: the version, and with
 * --build-options what this build and this machine support (perf's
 * builtin-version.c). Build-time facts come from gpuprof-config.h, run-time
 * ones are probed here.
 */
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof-config.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/history.h"
#include "gpuprof/sample.h"

static const char usage_text[] =
    "usage: gpuprof version [--build-options]\n"
    "\n"
    "    --build-options   list build-time and run-time features\n"
    "    -h, --help        this help; 'gpuprof help version' for the docs\n";

static void feature(const char *name, const char *state)
{
	printf("  %-22s %s\n", name, state);
}

/* NVML is loaded at run time: say whether it loads here, and why not */
static void nvml_probe(void)
{
	struct gp_sampler_opts o;
	struct gp_sampler *s = NULL;
	char buf[512];

	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.no_procs = true;
	if (gp_sampler_open(&o, &s)) {
		feature("nvml:", "error");
		return;
	}
	if (gp_sampler_gpu_status(s)) {
		snprintf(buf, sizeof(buf), "not available: %s", gp_sampler_gpu_status(s));
	} else {
		const char *drv = gp_sampler_driver_version(s);

		snprintf(buf, sizeof(buf), "dlopen ok (%s)%s%s", gp_sampler_nvml_library(s),
		         drv ? ", driver " : "", drv ? drv : "");
	}
	feature("nvml:", buf);
	gp_sampler_close(s);
}

static void build_options(void)
{
	char buf[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

#if GP_HAVE_ISAL
	feature("gzip:", "isa-l");
#elif GP_HAVE_ZLIB
	feature("gzip:", "zlib");
#else
	feature("gzip:", "none");
#endif
	feature("json parser:", "built-in (streaming)");
	feature("injected tracer:",
	        GP_HAVE_CUPTI ? "libgpuprof-inject.so: CUPTI (dlopen), NVTX, annotations"
	                      : "libgpuprof-inject.so: annotations only (built without the CUDA "
	                        "toolkit: no CUPTI, no NVTX)");
	feature("cuda toolkit headers:", GP_HAVE_CUPTI ? "found" : "not found");
	nvml_probe();
	feature("top full screen:",
	        GP_HAVE_CURSES ? "yes (ncursesw)" : "no (built without ncursesw)");
	feature("top --listen:", GP_HAVE_MHD ? "yes (libmicrohttpd, loaded when used)"
	                                     : "no (built without libmicrohttpd)");
	feature("run --config:", GP_HAVE_YAML ? "yes (libyaml)" : "no (built without libyaml)");
	feature("history sqlite:", gp_history_built_with("sqlite")
	                               ? "yes (libsqlite3, loaded when used)"
	                               : "no (built without libsqlite3-dev)");
	feature("history postgresql:", gp_history_built_with("postgresql")
	                                   ? "yes (libpq, loaded when used)"
	                                   : "no (built without libpq-dev)");
	feature("sanitizers:", GP_SANITIZE_OPTS[0] ? GP_SANITIZE_OPTS : "none");
	feature("build type:", GP_BUILD_TYPE[0] ? GP_BUILD_TYPE : "none");
#if defined(__clang__)
	snprintf(buf, sizeof(buf), "clang %s", __clang_version__);
#elif defined(__GNUC__)
	snprintf(buf, sizeof(buf), "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
	snprintf(buf, sizeof(buf), "unknown");
#endif
	feature("compiler:", buf);
	feature("library:", strcmp(gp_version(), GP_VERSION_STRING) == 0
	                        ? "libgpuprof " GP_VERSION_STRING
	                        : "libgpuprof version differs from the CLI");
	if (ncpu > 0) {
		snprintf(buf, sizeof(buf), "%ld online CPUs", ncpu);
		feature("analyze threads:", buf);
	}
}

int cmd_version(int argc, const char **argv)
{
	static const struct option longopts[] = {
		/* no short form: `-b` was never documented */
		{ "build-options", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool build = false;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, (char *const *)argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			build = true;
			break;
		default:
			return opt_tail("version", c, argv, usage_text);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuprof version: unexpected argument '%s'\n%s", argv[optind],
		        usage_text);
		return GP_EXIT_USAGE;
	}
	printf("gpuprof %s\n", GP_VERSION_STRING);
	if (build)
		build_options();
	return GP_EXIT_OK;
}
