/* SPDX-License-Identifier: MIT */
/*
 * fuzz_procfs.c - libFuzzer target for the host backend's procfs parsers
 * (src/lib/sample/host.c): /proc/stat, meminfo, loadavg and the stat of each
 * process of a watched tree.
 *
 * The input is split at NUL bytes (procfs text has none) into up to six
 * files of a procfs root in a scratch directory: stat (first sample), stat
 * (second sample), meminfo, loadavg, 1/stat, 2/stat. A
 * missing part leaves its file absent. The backend then takes two samples of
 * the tree rooted at pid 1, eleven seconds apart (so that memory, load and the
 * process listing are all read again), and every field it marks valid is
 * checked to be finite and in range.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprof/sample.h"
#include "sample/sample-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { P_STAT0, P_STAT1, P_MEMINFO, P_LOADAVG, P_1STAT, P_2STAT, P_COUNT };

static const char *const part_path[P_COUNT] = {
	"stat", "stat", "meminfo", "loadavg", "1/stat", "2/stat",
};

static char root[256];

static void cleanup(void)
{
	char p[320];

	for (int i = 0; i < P_COUNT; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, part_path[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/1", root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/2", root);
	rmdir(p);
	rmdir(root);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char p[320];

	snprintf(root, sizeof(root), "%s/gp-fuzz-procfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("fuzz_procfs: mkdtemp");
		abort();
	}
	snprintf(p, sizeof(p), "%s/1", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/2", root);
	mkdir(p, 0700);
	atexit(cleanup);
}

/* Writes (or, with @p data NULL, removes) one file of the scratch procfs. */
static void put(const char *rel, const uint8_t *data, size_t len)
{
	char p[320];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (!data) {
		unlink(p);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror("fuzz_procfs: open");
		abort();
	}
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror("fuzz_procfs: write");
			abort();
		}
		data += n;
		len -= (size_t)n;
	}
	close(fd);
}

static void check_ratio(double v)
{
	if (!(v >= 0 && v <= 1))
		abort();
}

static void check(const struct gp_host_sample *s)
{
	if (s->ncpus > GP_SAMPLE_MAX_CPUS || s->ncpus > s->ncpus_all)
		abort();
	if (s->valid & GP_HF_BIT(GP_HF_CPU_BUSY))
		check_ratio(s->cpu_busy);
	for (uint32_t i = 0; i < s->ncpus; i++)
		if (!isnan(s->cpu_core_busy[i]))
			check_ratio(s->cpu_core_busy[i]);
	if ((s->valid & GP_HF_BIT(GP_HF_LOAD)) &&
	    !(isfinite(s->load1) && isfinite(s->load5) && isfinite(s->load15) && s->load1 >= 0 &&
	      s->load5 >= 0 && s->load15 >= 0))
		abort();
	if ((s->valid & GP_HF_BIT(GP_HF_PROC_CPU)) && !(isfinite(s->proc_cpu) && s->proc_cpu >= 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[P_COUNT] = { 0 };
	size_t len[P_COUNT] = { 0 };
	const uint8_t *p = data, *end = data + size;
	struct gp__host *h = NULL;
	struct gp_host_sample *s;

	if (!root[0])
		setup();
	for (int i = 0; i < P_COUNT && p <= end; i++) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));

		part[i] = p;
		len[i] = (size_t)((z ? z : end) - p);
		if (!z)
			break;
		p = z + 1;
	}
	for (int i = P_STAT1; i < P_COUNT; i++)
		if (i != P_STAT1)
			put(part_path[i], part[i], len[i]);
	put("stat", part[P_STAT0], len[P_STAT0]);

	s = malloc(sizeof(*s));
	if (!s)
		return 0;
	if (gp__host_open(&h, root, 1) == 0) {
		gp__host_sample(h, 1000000000LL, s);
		check(s);
		if (part[P_STAT1])
			put("stat", part[P_STAT1], len[P_STAT1]);
		gp__host_sample(h, 12000000000LL, s);
		check(s);
		gp__host_close(h);
	}
	gp_clear_error();
	free(s);
	return 0;
}
