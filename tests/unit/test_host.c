/* SPDX-License-Identifier: MIT */
/*
 * test_host.c - the sampler's host backend (sample/host.c) on fixture procfs
 * trees built in a temporary directory: CPU busy per core and in total, cores
 * going offline, memory, load, the watched process tree's CPU and RSS, files
 * missing or full of garbage; then a smoke test on the real /proc.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sample/sample-int.h"
#include "util/error.h"

#define SEC 1000000000LL

#define HAS(s, f) (((s)->valid & GP_HF_BIT(f)) != 0)

#define assert_near(a, b, eps)                                                                     \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps)))                                                     \
			fail_msg("%s = %.9g, expected %.9g", #a, a_, b_);                          \
	} while (0)

/* ---- fixture trees ---- */

struct fx {
	char root[64];
	struct gp__host *h;
	struct gp_host_sample s;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/gp-test-host-XXXXXX");
	if (!mkdtemp(f->root)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	gp__host_close(f->h);
	nftw(f->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/** Writes @p len bytes to <root>/<rel>, creating the parent directory (one level). */
static void put_bytes(struct fx *f, const char *rel, const void *data, size_t len)
{
	char path[256], *slash;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir '%s': %s", path, strerror(errno));
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail_msg("open '%s': %s", path, strerror(errno));
	if (write(fd, data, len) != (ssize_t)len)
		fail_msg("write '%s'", path);
	close(fd);
}

static void put(struct fx *f, const char *rel, const char *text)
{
	put_bytes(f, rel, text, strlen(text));
}

static void rm_rel(struct fx *f, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/** A full-length <pid>/stat line (52 fields; the RSS is field 24), no statm: it is not read. */
static void put_proc(struct fx *f, int pid, const char *comm, int ppid, unsigned long long utime,
                     unsigned long long stime, unsigned long long start, unsigned long long rss)
{
	char rel[64], text[1024];

	snprintf(rel, sizeof(rel), "%d/stat", pid);
	snprintf(
	    text, sizeof(text),
	    "%d (%s) S %d %d %d 0 -1 4194304 100 0 0 0 %llu %llu 7 3 20 0 1 0 %llu 123456789 "
	    "%llu 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
	    pid, comm, ppid, pid, pid, utime, stime, start, rss);
	put(f, rel, text);
}

static const char *const meminfo = "MemTotal:       16314756 kB\n"
                                   "MemFree:         1000000 kB\n"
                                   "MemAvailable:    8000000 kB\n"
                                   "Buffers:          123456 kB\n";

/** stat with sample-1 counters (total 1000, idle+iowait 800), meminfo and loadavg. */
static void put_basics(struct fx *f)
{
	put(f, "stat",
	    "cpu  100 0 100 700 100 0 0 0 50 0\n"
	    "cpu0 60 0 40 350 50 0 0 0 50 0\n"
	    "cpu1 40 0 60 350 50 0 0 0 0 0\n"
	    "intr 12345 1 2 3\n"
	    "ctxt 999\n"
	    "btime 1700000000\n");
	put(f, "meminfo", meminfo);
	put(f, "loadavg", "0.52 1.25 12.00 2/345 6789\n");
}

static void open_fx(struct fx *f, int32_t watch)
{
	int rc = gp__host_open(&f->h, f->root, watch);

	if (rc)
		fail_msg("gp__host_open: %d %s", rc, gp_last_error());
}

static void sample(struct fx *f, int64_t now_ns)
{
	assert_int_equal(gp__host_sample(f->h, now_ns, &f->s), 0);
}

/* ---- tests ---- */

static void test_cpu(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;

	put_basics(f);
	open_fx(f, 0);
	sample(f, 1 * SEC);
	assert_false(HAS(s, GP_HF_CPU_BUSY)); /* a rate needs two samples */
	assert_true(HAS(s, GP_HF_MEM));
	assert_true(HAS(s, GP_HF_LOAD));
	assert_false(HAS(s, GP_HF_PROC_CPU));
	assert_false(HAS(s, GP_HF_PROC_RSS));
	assert_int_equal(s->ncpus, 2);
	assert_int_equal(s->ncpus_all, 2);
	assert_true(isnan(s->cpu_core_busy[0]));

	/*
	 * total 1000 -> 1900 and idle+iowait 800 -> 1300: busy 400 / 900. guest
	 * (50 -> 150) and guest_nice are already in user and nice: counting them
	 * again would give 0.5 instead.
	 */
	put(f, "stat",
	    "cpu  300 10 190 1100 200 10 10 80 150 5\n"
	    "cpu0 200 10 90 450 100 10 10 30 150 5\n"
	    "cpu1 100 0 100 650 100 0 0 50 0 0\n"
	    "intr 12399 1 2 3\n");
	sample(f, 2 * SEC);
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 400.0 / 900.0, 1e-12);
	assert_int_equal(s->ncpus, 2);
	assert_int_equal(s->ncpus_all, 2);
	assert_near(s->cpu_core_busy[0], 250.0 / 400.0, 1e-6); /* 500 -> 900, idle 400 -> 550 */
	assert_near(s->cpu_core_busy[1], 150.0 / 500.0, 1e-6); /* 500 -> 1000, idle 400 -> 750 */
	assert_true(isnan(s->cpu_core_busy[2]));
	assert_int_equal(s->proc_pid, 0);
	assert_int_equal(s->proc_count, 0);

	/* nothing moved: Δtotal is 0, no rate */
	sample(f, 3 * SEC);
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	assert_true(isnan(s->cpu_core_busy[0]));

	/* iowait going backwards (tickless kernels) is clamped, not negative */
	put(f, "stat",
	    "cpu  300 10 190 1100 100 10 10 80 150 5\n"
	    "cpu0 300 10 90 450 100 10 10 30 150 5\n"
	    "cpu1 100 0 100 650 0 0 0 50 0 0\n");
	sample(f, 4 * SEC);
	assert_false(HAS(s, GP_HF_CPU_BUSY)); /* total went down: 1900 -> 1800 */
	assert_near(s->cpu_core_busy[0], 1.0, 1e-6);
	assert_true(isnan(s->cpu_core_busy[1])); /* 1000 -> 900 */
}

static void test_cores_offline(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;

	put(f, "meminfo", meminfo);
	put(f, "stat",
	    "cpu  30 0 0 270 0 0 0 0 0 0\n"
	    "cpu0 10 0 0 90 0 0 0 0 0 0\n"
	    "cpu1 10 0 0 90 0 0 0 0 0 0\n"
	    "cpu2 10 0 0 90 0 0 0 0 0 0\n");
	open_fx(f, 0);
	sample(f, 1 * SEC);
	assert_int_equal(s->ncpus, 3);

	/* core 1 goes offline, core 3 comes online (an old four-field line) */
	put(f, "stat",
	    "cpu  95 0 0 315\n"
	    "cpu0 60 0 0 140 0 0 0 0 0 0\n"
	    "cpu2 30 0 0 170 0 0 0 0 0 0\n"
	    "cpu3 5 0 0 5\n");
	sample(f, 2 * SEC);
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 65.0 / 110.0, 1e-12);
	assert_int_equal(s->ncpus, 4);
	assert_int_equal(s->ncpus_all, 4);
	assert_near(s->cpu_core_busy[0], 0.5, 1e-6);
	assert_true(isnan(s->cpu_core_busy[1])); /* not in this sample */
	assert_near(s->cpu_core_busy[2], 0.2, 1e-6);
	assert_true(isnan(s->cpu_core_busy[3])); /* not in the previous one */

	put(f, "stat",
	    "cpu  270 0 0 640\n"
	    "cpu0 60 0 0 240\n"
	    "cpu1 50 0 0 150\n"
	    "cpu2 130 0 0 170\n"
	    "cpu3 30 0 0 80\n");
	sample(f, 3 * SEC);
	assert_near(s->cpu_busy, 175.0 / 500.0, 1e-12);
	assert_near(s->cpu_core_busy[0], 0.0, 1e-6);
	assert_true(isnan(s->cpu_core_busy[1])); /* back, but missing from the previous sample */
	assert_near(s->cpu_core_busy[2], 1.0, 1e-6);
	assert_near(s->cpu_core_busy[3], 0.25, 1e-6);

	/* the highest core is offline: ncpus shrinks */
	put(f, "stat",
	    "cpu  370 0 0 740\n"
	    "cpu0 110 0 0 290\n"
	    "cpu1 100 0 0 200\n");
	sample(f, 4 * SEC);
	assert_int_equal(s->ncpus, 2);
	assert_int_equal(s->ncpus_all, 2);
	assert_near(s->cpu_core_busy[1], 0.5, 1e-6);
}

/* more cores than GP_SAMPLE_MAX_CPUS, a stat file far longer than one read */
static void test_many_cores(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	size_t cap = 1 << 20, len, i;
	char *text = malloc(cap);
	int pass;

	assert_non_null(text);
	put(f, "meminfo", meminfo);
	for (pass = 0; pass < 2; pass++) {
		len = (size_t)snprintf(text, cap, "cpu  %d 0 0 %d 0 0 0 0 0 0\n",
		                       6000 + pass * 6000, 54000 + pass * 24000);
		for (i = 0; i < 600; i++) {
			/* second pass: Δtotal 50, Δbusy 10 * (i % 5) */
			unsigned u = 10 + (pass ? 10 * (unsigned)(i % 5) : 0);
			unsigned idle = 90 + (pass ? 50 - 10 * (unsigned)(i % 5) : 0);

			len += (size_t)snprintf(text + len, cap - len,
			                        "cpu%zu %u 0 0 %u 0 0 0 0 0 0\n", i, u, idle);
		}
		/* a long intr line (thousands of interrupts) after the cpu lines */
		len += (size_t)snprintf(text + len, cap - len, "intr 1");
		for (i = 0; i < 50000; i++)
			text[len++] = i % 2 ? '0' : ' ';
		len += (size_t)snprintf(text + len, cap - len, "\nctxt 1\n");
		put_bytes(f, "stat", text, len);
		if (pass == 0) {
			open_fx(f, 0);
			sample(f, 1 * SEC);
		} else {
			sample(f, 2 * SEC);
		}
	}
	free(text);
	assert_int_equal(s->ncpus, GP_SAMPLE_MAX_CPUS);
	assert_int_equal(s->ncpus_all, 600);
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 6000.0 / 30000.0, 1e-12);
	for (i = 0; i < GP_SAMPLE_MAX_CPUS; i++)
		assert_near(s->cpu_core_busy[i], 0.2 * (double)(i % 5), 1e-6);
}

static void test_mem_load(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;

	put_basics(f);
	open_fx(f, 0);
	sample(f, 1 * SEC);
	assert_true(HAS(s, GP_HF_MEM));
	assert_int_equal(s->mem_total_bytes, 16314756ULL * 1024);
	assert_int_equal(s->mem_available_bytes, 8000000ULL * 1024);
	assert_true(HAS(s, GP_HF_LOAD));
	assert_near(s->load1, 0.52, 1e-12);
	assert_near(s->load5, 1.25, 1e-12);
	assert_near(s->load15, 12.0, 1e-12);

	/* an old kernel without MemAvailable, a loadavg without the rest */
	put(f, "meminfo", "MemTotal:       16314756 kB\nMemFree:         1000000 kB\n");
	put(f, "loadavg", "3 0.125 7.5");
	sample(f, 2 * SEC);
	assert_false(HAS(s, GP_HF_MEM));
	assert_int_equal(s->mem_total_bytes, 0);
	assert_true(HAS(s, GP_HF_LOAD));
	assert_near(s->load1, 3.0, 1e-12);
	assert_near(s->load5, 0.125, 1e-12);
	assert_near(s->load15, 7.5, 1e-12);
}

/* a missing file leaves its fields, and only those, invalid */
static void test_missing_files(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;

	put_basics(f);
	open_fx(f, 0);
	sample(f, 1 * SEC);
	rm_rel(f, "meminfo");
	put(f, "stat", "cpu  200 0 100 700 100 0 0 0 50 0\n");
	sample(f, 2 * SEC);
	assert_false(HAS(s, GP_HF_MEM));
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 1.0, 1e-12);
	assert_int_equal(s->ncpus, 0); /* no per-core lines this time */
	assert_true(HAS(s, GP_HF_LOAD));

	rm_rel(f, "loadavg");
	rm_rel(f, "stat"); /* vanished after open: not an error either */
	put(f, "meminfo", meminfo);
	sample(f, 3 * SEC);
	assert_int_equal(s->valid, GP_HF_BIT(GP_HF_MEM));
	assert_int_equal(s->ncpus_all, 0);

	/* and back: the delta needs two readable samples again */
	put_basics(f);
	sample(f, 4 * SEC);
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	assert_true(HAS(s, GP_HF_LOAD));
}

/*
 * Garbage: each bad stat, placed between good ones, leaves CPU invalid (and
 * the next good sample too, having no previous one), and never crashes.
 */
static void test_garbage_stat(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"cpu\n",
		"cpu  abc 1 2 3\n",
		"cpu  1 2\n",
		"cpu  1 2 3\n",
		"cpu  -1 2 3 4\n",
		"cpu  1 2 3 4x\n",
		"cpu 1\t2 3 4\n",
		"cpu  99999999999999999999 1 1 1\n",
		"cpu  281474976710657 1 1 1\n", /* 2^48 + 1 */
		"cpux 1 2 3 4\ncpu0 1 2 3 4\n",
		"intr 1 2 3\ncpu  1 2 3 4\n", /* cpu lines come first */
		"cpu99999999 1 2 3 4\n",
	};
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	int64_t t = 0;
	char big[9000];
	size_t i;

	put_basics(f);
	open_fx(f, 0);
	for (i = 0; i <= GP_ARRAY_SIZE(bad) + 1; i++) {
		put_basics(f);
		sample(f, t += SEC);
		put(f, "stat",
		    "cpu  200 0 100 700 100 0 0 0 50 0\n"
		    "cpu0 160 0 40 350 50 0 0 0 50 0\n");
		sample(f, t += SEC);
		assert_true(HAS(s, GP_HF_CPU_BUSY));
		if (i < GP_ARRAY_SIZE(bad)) {
			put(f, "stat", bad[i]);
		} else if (i == GP_ARRAY_SIZE(bad)) {
			/* an overlong line: 9000 bytes, longer than any real one */
			memset(big, ' ', sizeof(big));
			memcpy(big, "cpu  1 2 3 4", 12);
			big[sizeof(big) - 2] = '5';
			big[sizeof(big) - 1] = '\n';
			put_bytes(f, "stat", big, sizeof(big));
		} else {
			/* NUL bytes */
			put_bytes(f, "stat", "cpu  300\0 0 100 700\n", 20);
		}
		sample(f, t += SEC);
		if (HAS(s, GP_HF_CPU_BUSY))
			fail_msg("bad stat %zu accepted", i);
		assert_true(HAS(s, GP_HF_MEM));
		assert_true(HAS(s, GP_HF_LOAD));
		assert_true(isnan(s->cpu_core_busy[0]));
	}
	/* a garbage core line is skipped, the others count */
	put_basics(f);
	sample(f, t += SEC);
	put(f, "stat",
	    "cpu  200 0 100 700 100 0 0 0 50 0\n"
	    "cpu0 zzz\n"
	    "cpu1 90 0 60 400 50 0 0 0 0 0\n"); /* Δtotal 100, Δidle 50 */
	sample(f, t += SEC);
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_int_equal(s->ncpus, 2);
	assert_true(isnan(s->cpu_core_busy[0]));
	assert_near(s->cpu_core_busy[1], 0.5, 1e-6);
}

static void test_garbage_mem_load(void **state)
{
	static const char *const bad_mem[] = {
		"",
		"MemTotal: 12 MB\nMemAvailable: 5 kB\n",
		"MemTotal: abc kB\nMemAvailable: 5 kB\n",
		"MemTotal: 100 kB\nMemAvailable: 200 kB\n", /* more available than there is */
		"MemTotal: 100 kB\nMemAvail",
		"MemTotal: 100 kB\nMemAvailable:",
		"MemTotal: 100 kB\nMemAvailable: 50\n",
		"MemTotal: 100 kB junk\nMemAvailable: 50 kB\n",
		"MemTotal: 99999999999999999999999 kB\nMemAvailable: 5 kB\n",
		"MemTotal 100 kB\nMemAvailable: 50 kB\n",
		"MemTotal: -100 kB\nMemAvailable: 50 kB\n",
	};
	static const char *const bad_load[] = {
		"",      "\n",       "0.5 x 1\n", "1. 2 3\n",  ".5 1 2\n",  "0.5,0.6,0.7\n",
		"1 2\n", "1 2 3x\n", "-1 2 3\n",  "1e3 2 3\n", "nan 1 2\n",
	};
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	char big[400];
	int64_t t = 0;
	size_t i;

	put_basics(f);
	open_fx(f, 0);
	for (i = 0; i < GP_ARRAY_SIZE(bad_mem); i++) {
		put(f, "meminfo", bad_mem[i]);
		sample(f, t += SEC);
		if (HAS(s, GP_HF_MEM))
			fail_msg("bad meminfo %zu accepted", i);
		assert_true(HAS(s, GP_HF_LOAD));
	}
	/* MemTotal: 100 kB, available 100 kB is fine; duplicates keep the first */
	put(f, "meminfo", "MemTotal:  100 kB\nMemAvailable: 100 kB  \nMemTotal: 7 kB\n");
	sample(f, t += SEC);
	assert_true(HAS(s, GP_HF_MEM));
	assert_int_equal(s->mem_total_bytes, 102400);
	assert_int_equal(s->mem_available_bytes, 102400);

	for (i = 0; i < GP_ARRAY_SIZE(bad_load); i++) {
		put(f, "loadavg", bad_load[i]);
		sample(f, t += SEC);
		if (HAS(s, GP_HF_LOAD))
			fail_msg("bad loadavg %zu accepted", i);
		assert_true(HAS(s, GP_HF_MEM));
	}
	/* one overlong line (no newline in the buffer) */
	memset(big, '1', sizeof(big));
	put_bytes(f, "loadavg", big, sizeof(big));
	sample(f, t += SEC);
	assert_false(HAS(s, GP_HF_LOAD));
	/* more than nine fraction digits are read, the excess ignored */
	put(f, "loadavg", "0.1234567891234 2.000000000000000000009 3\n");
	sample(f, t += SEC);
	assert_true(HAS(s, GP_HF_LOAD));
	assert_near(s->load1, 0.123456789, 1e-12);
	assert_near(s->load5, 2.0, 1e-12);
}

/* random bytes everywhere: nothing may crash (run it under ASan) */
static void test_random_bytes(void **state)
{
	static const char *const files[] = { "stat", "meminfo", "loadavg", "100/stat", "101/stat" };
	struct fx *f = *state;
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	static char data[20000];
	size_t i, j, n;
	int round;

	put_basics(f);
	put_proc(f, 100, "root", 1, 10, 10, 5, 100);
	open_fx(f, 100);
	for (round = 0; round < 60; round++) {
		for (i = 0; i < GP_ARRAY_SIZE(files); i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			n = rng % sizeof(data);
			for (j = 0; j < n; j++) {
				rng ^= rng << 13;
				rng ^= rng >> 7;
				rng ^= rng << 17;
				/* mostly digits, spaces, parentheses and newlines */
				data[j] = (rng >> 8) % 4 ? "0123456789  ()\ncpu)"[(rng >> 16) % 19]
				                         : (char)(rng >> 24);
			}
			put_bytes(f, files[i], data, n);
		}
		sample(f, (round + 1) * SEC);
		if (HAS(&f->s, GP_HF_CPU_BUSY))
			assert_true(f->s.cpu_busy >= 0.0 && f->s.cpu_busy <= 1.0);
	}
}

/*
 * The tree: 100 (root) -> 101 -> 102, and 200 -> 300 outside it, 1 the
 * parent of 100 and 200. 101's comm "k) R 200 (z" would make 200 its parent
 * to a parser that stopped at the first ')'.
 */
static void test_proc_tree(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	double tck = (double)sysconf(_SC_CLK_TCK);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	put_basics(f);
	put_proc(f, 1, "init", 0, 900, 100, 1, 500);
	put_proc(f, 100, "my prog) (x", 1, 100, 50, 1000, 1200);
	put_proc(f, 101, "k) R 200 (z", 100, 200, 100, 1001, 800);
	put_proc(f, 102, "worker", 101, 30, 10, 1002, 100);
	put_proc(f, 200, "other", 1, 5000, 1000, 900, 9999);
	put_proc(f, 300, "other kid", 200, 10, 0, 950, 7777);
	put(f, "self", "not a pid directory\n");
	put(f, "0123/stat", "123 (x) S 100 1 1 0 -1 0 0 0 0 0 99999 0\n"); /* not a pid name */
	open_fx(f, 100);
	sample(f, 1 * SEC);
	assert_int_equal(s->proc_pid, 100);
	assert_int_equal(s->proc_count, 3);
	assert_true(HAS(s, GP_HF_PROC_RSS));
	assert_int_equal(s->proc_rss_bytes, (1200 + 800 + 100) * page);
	assert_false(HAS(s, GP_HF_PROC_CPU)); /* a rate needs two samples */

	/*
	 * 2 s later: 100 used 50 ticks, 101 60; 102 exited (its last ticks are
	 * lost); 103 is new (its 77 ticks do not count yet), with a child 104;
	 * 200 and 300 burned 10000 ticks outside the tree.
	 */
	put_proc(f, 100, "my prog) (x", 1, 130, 70, 1000, 1300);
	put_proc(f, 101, "k) R 200 (z", 100, 250, 110, 1001, 900);
	rm_rel(f, "102");
	put_proc(f, 103, "new kid", 100, 70, 7, 1100, 50);
	put_proc(f, 104, "grandkid", 103, 9, 0, 1101, 25);
	put_proc(f, 200, "other", 1, 14000, 2000, 900, 9999);
	put_proc(f, 300, "other kid", 200, 10, 1000, 950, 7777);
	sample(f, 3 * SEC);
	assert_int_equal(s->proc_count, 4);
	assert_true(HAS(s, GP_HF_PROC_CPU));
	assert_near(s->proc_cpu, 110.0 / tck / 2.0, 1e-9);
	assert_true(HAS(s, GP_HF_PROC_RSS));
	assert_int_equal(s->proc_rss_bytes, (1300 + 900 + 50 + 25) * page);

	/*
	 * 0.5 s later: 103 counts now (+20), 100 +5; pid 104 was reused by a new
	 * process (another start time): its 50 ticks are not a delta.
	 */
	put_proc(f, 100, "my prog) (x", 1, 135, 70, 1000, 1300);
	put_proc(f, 103, "new kid", 100, 80, 17, 1100, 50);
	put_proc(f, 104, "reused", 103, 40, 10, 1200, 25);
	sample(f, 3 * SEC + SEC / 2);
	assert_int_equal(s->proc_count, 4);
	assert_near(s->proc_cpu, 25.0 / tck / 0.5, 1e-9);

	/* now_ns not advancing: no rate */
	sample(f, 3 * SEC + SEC / 2);
	assert_false(HAS(s, GP_HF_PROC_CPU));
	assert_true(HAS(s, GP_HF_PROC_RSS));

	/* a child with a garbage stat is left out, with its subtree */
	put(f, "103/stat", "103 (new kid S 100 1 1\n");
	sample(f, 4 * SEC);
	assert_int_equal(s->proc_count, 2);
	assert_int_equal(s->proc_rss_bytes, (1300 + 900) * page);
	assert_true(HAS(s, GP_HF_PROC_CPU));
	assert_near(s->proc_cpu, 0.0, 1e-12);

	/* the root's stat cut after field 22 (the start time): RSS unknown, CPU still known */
	put(f, "100/stat",
	    "100 (my prog) (x) S 1 100 100 0 -1 4194304 100 0 0 0 135 70 7 3 20 0 1 0 1000\n");
	sample(f, 5 * SEC);
	assert_false(HAS(s, GP_HF_PROC_RSS));
	assert_true(HAS(s, GP_HF_PROC_CPU));
}

/*
 * A process listed outside the tree keeps its parent until the next full
 * rescan (GP_HOST_RESCAN_NS, 10 s): one reparented into the tree joins then,
 * while a new child joins at once. Parents listed after their children (a
 * chain of falling pids) take more than one pass.
 */
static void test_tree_listing(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	double tck = (double)sysconf(_SC_CLK_TCK);
	int pid;

	put_basics(f);
	put_proc(f, 100, "root", 1, 100, 0, 1000, 10);
	/* 100 -> 90 -> 80 -> ... -> 10 */
	for (pid = 90; pid >= 10; pid -= 10)
		put_proc(f, pid, "chain", pid + 10, 1, 0, 1000, 1);
	put_proc(f, 300, "outsider", 1, 500, 0, 900, 1000);
	open_fx(f, 100);
	sample(f, 1 * SEC);
	assert_int_equal(s->proc_count, 10);

	/* 300 reparented to 90 (a subreaper): not seen yet; 400 new: seen */
	put_proc(f, 300, "outsider", 90, 600, 0, 900, 1000);
	put_proc(f, 400, "new", 10, 50, 0, 1100, 100);
	sample(f, 2 * SEC);
	assert_int_equal(s->proc_count, 11);
	assert_int_equal(s->proc_rss_bytes, (10 + 9 + 100) * (uint64_t)sysconf(_SC_PAGESIZE));
	assert_near(s->proc_cpu, 0.0, 1e-12);

	put_proc(f, 300, "outsider", 90, 700, 0, 900, 1000);
	put_proc(f, 400, "new", 10, 60, 0, 1100, 100);
	sample(f, 5 * SEC);
	assert_int_equal(s->proc_count, 11);
	assert_near(s->proc_cpu, 10.0 / tck / 3.0, 1e-9);

	/* 10 s after the last full listing: 300 joins, counting from the next interval */
	put_proc(f, 300, "outsider", 90, 800, 0, 900, 1000);
	sample(f, 11 * SEC);
	assert_int_equal(s->proc_count, 12);
	assert_near(s->proc_cpu, 0.0, 1e-12);
	put_proc(f, 300, "outsider", 90, 860, 0, 900, 1000);
	sample(f, 12 * SEC);
	assert_int_equal(s->proc_count, 12);
	assert_near(s->proc_cpu, 60.0 / tck, 1e-9);

	/*
	 * 600's stat is garbage, so its child 601 is listed outside the tree;
	 * once 600 reads well it joins, and 601, listed before, is read again
	 * and joins with it, without waiting for a full rescan
	 */
	put(f, "600/stat", "600 (broken\n");
	put_proc(f, 601, "kid of broken", 600, 5, 0, 960, 1);
	sample(f, 13 * SEC);
	assert_int_equal(s->proc_count, 12);
	put_proc(f, 600, "fixed", 100, 5, 0, 955, 1);
	put_proc(f, 601, "kid of broken", 600, 25, 0, 960, 1);
	sample(f, 14 * SEC);
	assert_int_equal(s->proc_count, 14);
	assert_near(s->proc_cpu, 0.0, 1e-12);
	put_proc(f, 601, "kid of broken", 600, 45, 0, 960, 1);
	sample(f, 15 * SEC);
	assert_near(s->proc_cpu, 20.0 / tck, 1e-9);
}

/* at most 4096 processes are followed */
static void test_tree_cap(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	int pid;

	put_basics(f);
	put_proc(f, 100, "root", 1, 100, 0, 1000, 10);
	for (pid = 1000; pid < 1000 + 4200; pid++)
		put_proc(f, pid, "kid", 100, 1, 0, 1000, 1);
	open_fx(f, 100);
	sample(f, 1 * SEC);
	assert_int_equal(s->proc_count, 4096);
	assert_int_equal(s->proc_rss_bytes, (10 + 4095) * (uint64_t)sysconf(_SC_PAGESIZE));
	sample(f, 2 * SEC);
	assert_int_equal(s->proc_count, 4096);
	assert_true(HAS(s, GP_HF_PROC_CPU));
}

static void test_root_vanishes(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	put_basics(f);
	put_proc(f, 100, "root", 1, 100, 50, 1000, 1200);
	put_proc(f, 101, "kid", 100, 200, 100, 1001, 800);
	open_fx(f, 100);
	sample(f, 1 * SEC);
	sample(f, 2 * SEC);
	assert_true(HAS(s, GP_HF_PROC_CPU));
	assert_true(HAS(s, GP_HF_PROC_RSS));
	assert_near(s->proc_cpu, 0.0, 1e-12);

	rm_rel(f, "100");
	sample(f, 3 * SEC);
	assert_false(HAS(s, GP_HF_PROC_CPU));
	assert_false(HAS(s, GP_HF_PROC_RSS));
	assert_int_equal(s->proc_pid, 100);
	assert_int_equal(s->proc_count, 0);
	assert_int_equal(s->proc_rss_bytes, 0);
	assert_true(HAS(s, GP_HF_MEM)); /* the rest goes on */
	assert_true(HAS(s, GP_HF_LOAD));

	/* the pid comes back (another process): RSS at once, CPU from the next sample */
	put_proc(f, 100, "again", 1, 7, 3, 5000, 10);
	sample(f, 4 * SEC);
	assert_true(HAS(s, GP_HF_PROC_RSS));
	assert_false(HAS(s, GP_HF_PROC_CPU));
	assert_int_equal(s->proc_count, 2);
	assert_int_equal(s->proc_rss_bytes, (10 + 800) * page);
	put_proc(f, 100, "again", 1, 17, 3, 5000, 10);
	sample(f, 5 * SEC);
	assert_true(HAS(s, GP_HF_PROC_CPU));
	assert_near(s->proc_cpu, 10.0 / (double)sysconf(_SC_CLK_TCK), 1e-9);

	/* a root whose stat has no ')' is as good as gone */
	put(f, "100/stat", "100 (again S 1 1 1 0 -1 0 0 0 0 0 17 3 0 0 20 0 1 0 5000\n");
	sample(f, 6 * SEC);
	assert_false(HAS(s, GP_HF_PROC_CPU));
	assert_false(HAS(s, GP_HF_PROC_RSS));
}

static void test_open_errors(void **state)
{
	struct fx *f = *state;
	struct gp__host *h = (struct gp__host *)1;
	char path[128];
	long k;
	int rc;

	assert_int_equal(gp__host_open(&h, "/nonexistent-gpuprof-proc", 0), GP_ENOENT);
	assert_null(h);
	assert_non_null(strstr(gp_last_error(), "'/nonexistent-gpuprof-proc/stat'"));

	/* a directory without stat */
	assert_int_equal(gp__host_open(&h, f->root, 0), GP_ENOENT);
	snprintf(path, sizeof(path), "'%s/stat'", f->root);
	assert_non_null(strstr(gp_last_error(), path));

	assert_int_equal(gp__host_open(&h, f->root, -5), GP_EINVAL);

	/* every allocation failing in turn: GP_ENOMEM and no leak (ASan) */
	put_basics(f);
	for (k = 1; k < 100; k++) {
		gp__test_fail_alloc_after(k);
		rc = gp__host_open(&h, f->root, 100);
		gp__test_fail_alloc_after(0);
		if (rc == 0)
			break;
		assert_int_equal(rc, GP_ENOMEM);
		assert_null(h);
	}
	assert_int_equal(rc, 0);

	/* the process list failing to grow in a sample: the tree is unknown, not wrong */
	put_proc(f, 100, "root", 1, 100, 0, 1000, 10);
	put_proc(f, 101, "kid", 100, 100, 0, 1000, 10);
	gp__test_fail_alloc_after(1);
	assert_int_equal(gp__host_sample(h, SEC, &f->s), 0);
	gp__test_fail_alloc_after(0);
	assert_false(HAS(&f->s, GP_HF_PROC_RSS));
	assert_false(HAS(&f->s, GP_HF_PROC_CPU));
	assert_true(HAS(&f->s, GP_HF_MEM));
	assert_int_equal(gp__host_sample(h, 2 * SEC, &f->s), 0);
	assert_true(HAS(&f->s, GP_HF_PROC_RSS));
	assert_int_equal(f->s.proc_count, 2);
	assert_false(HAS(&f->s, GP_HF_PROC_CPU));
	assert_int_equal(gp__host_sample(h, 3 * SEC, &f->s), 0);
	assert_true(HAS(&f->s, GP_HF_PROC_CPU));
	gp__host_close(h);
	gp__host_close(NULL);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void test_real_proc(void **state)
{
	struct gp__host *h;
	struct gp_host_sample *s = malloc(sizeof(*s));
	volatile uint64_t x = 0;
	int64_t t0;
	uint32_t i;

	(void)state;
	assert_non_null(s);
	if (access("/proc/stat", R_OK) != 0 || access("/proc/self/stat", R_OK) != 0) {
		free(s);
		skip();
	}
	assert_int_equal(gp__host_open(&h, NULL, (int32_t)getpid()), 0);
	assert_int_equal(gp__host_sample(h, mono_ns(), s), 0);
	assert_true(HAS(s, GP_HF_PROC_RSS));
	assert_false(HAS(s, GP_HF_PROC_CPU));
	/* burn 250 ms of CPU, so the counters move (stat is read at most every 250 ms) */
	for (t0 = mono_ns(); mono_ns() - t0 < SEC / 4;)
		x += 1;
	assert_true(x > 0);
	assert_int_equal(gp__host_sample(h, mono_ns(), s), 0);
	gp__host_close(h);

	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_true(s->cpu_busy >= 0.0 && s->cpu_busy <= 1.0);
	assert_true(s->ncpus >= 1 && s->ncpus <= s->ncpus_all);
	for (i = 0; i < s->ncpus; i++)
		assert_true(isnan(s->cpu_core_busy[i]) ||
		            (s->cpu_core_busy[i] >= 0.0f && s->cpu_core_busy[i] <= 1.0f));
	assert_true(HAS(s, GP_HF_MEM));
	assert_true(s->mem_total_bytes > 0);
	assert_true(s->mem_available_bytes <= s->mem_total_bytes);
	assert_true(HAS(s, GP_HF_LOAD));
	assert_true(s->load1 >= 0.0);
	assert_int_equal(s->proc_pid, getpid());
	assert_true(s->proc_count >= 1);
	assert_true(HAS(s, GP_HF_PROC_RSS));
	assert_true(s->proc_rss_bytes > 0);
	assert_true(HAS(s, GP_HF_PROC_CPU));
	assert_true(s->proc_cpu >= 0.0 && s->proc_cpu < 4096.0);
	free(s);
}

/* memory is read at most every 250 ms, the load averages every second: carried in between */
static void test_refresh_periods(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	const int64_t ms = 1000000;

	put_basics(f);
	open_fx(f, 0);
	put(f, "meminfo", "MemTotal: 100 kB\nMemAvailable: 40 kB\n");
	put(f, "loadavg", "1.00 2.00 3.00 1/100 5\n");
	sample(f, 1000 * ms);
	assert_int_equal(s->mem_available_bytes, 40 * 1024);
	assert_near(s->load1, 1.0, 1e-9);
	put(f, "meminfo", "MemTotal: 100 kB\nMemAvailable: 30 kB\n");
	put(f, "loadavg", "4.00 5.00 6.00 1/100 5\n");
	sample(f, 1100 * ms); /* too soon for both: the last values, still valid */
	assert_true(HAS(s, GP_HF_MEM) && HAS(s, GP_HF_LOAD));
	assert_int_equal(s->mem_available_bytes, 40 * 1024);
	assert_near(s->load1, 1.0, 1e-9);
	sample(f, 1250 * ms); /* memory again, not the load */
	assert_int_equal(s->mem_available_bytes, 30 * 1024);
	assert_near(s->load1, 1.0, 1e-9);
	sample(f, 2000 * ms);
	assert_near(s->load15, 6.0, 1e-9);
	/* an unreadable file is read again at once next time, not carried */
	put(f, "meminfo", "garbage\n");
	sample(f, 2300 * ms);
	assert_false(HAS(s, GP_HF_MEM));
	put(f, "meminfo", "MemTotal: 100 kB\nMemAvailable: 20 kB\n");
	sample(f, 2301 * ms);
	assert_int_equal(s->mem_available_bytes, 20 * 1024);
}

/* stat with the user and idle ticks of all cores, of cpu0 and of cpu1 */
static void put_cpu(struct fx *f, int user, int idle, int user0, int idle0, int user1, int idle1)
{
	char b[256];

	snprintf(b, sizeof(b),
	         "cpu  %d 0 100 %d 100 0 0 0 0 0\ncpu0 %d 0 40 %d 50 0 0 0 0 0\n"
	         "cpu1 %d 0 60 %d 50 0 0 0 0 0\n",
	         user, idle, user0, idle0, user1, idle1);
	put(f, "stat", b);
}

/*
 * stat is read at most every 250 ms (5 ms early counts): a sample in between
 * carries the last shares, per core too; a failed read is tried again at once.
 */
static void test_cpu_period(void **state)
{
	struct fx *f = *state;
	struct gp_host_sample *s = &f->s;
	const int64_t ms = 1000000;

	put_basics(f); /* cpu: total 1000, idle 800; cpu0 and cpu1: total 500, idle 400 */
	open_fx(f, 0);
	sample(f, 1000 * ms);
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	put_cpu(f, 200, 800, 160, 350, 40, 450);
	sample(f, 1100 * ms); /* too soon: not read, still no share */
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	assert_int_equal(s->ncpus, 2);
	assert_true(isnan(s->cpu_core_busy[0]) && isnan(s->cpu_core_busy[1]));
	sample(f, 1246 * ms); /* 246 ms: on time within the slack */
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 0.5, 1e-9);
	assert_near(s->cpu_core_busy[0], 1.0, 1e-6);
	assert_near(s->cpu_core_busy[1], 0.0, 1e-6);
	put_cpu(f, 200, 1000, 160, 450, 40, 550);
	sample(f, 1400 * ms); /* carried: the window 1000-1246 ms */
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 0.5, 1e-9);
	assert_int_equal(s->ncpus, 2);
	assert_int_equal(s->ncpus_all, 2);
	assert_near(s->cpu_core_busy[0], 1.0, 1e-6);
	assert_near(s->cpu_core_busy[1], 0.0, 1e-6);
	assert_true(isnan(s->cpu_core_busy[2]));
	sample(f, 1500 * ms); /* read: all idle since 1246 ms */
	assert_near(s->cpu_busy, 0.0, 1e-9);
	assert_near(s->cpu_core_busy[0], 0.0, 1e-6);
	/* a garbage stat: no share, and stat is read again at the next sample */
	put(f, "stat", "garbage\n");
	sample(f, 1800 * ms);
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	assert_int_equal(s->ncpus, 0);
	put_cpu(f, 300, 1100, 260, 450, 40, 650);
	sample(f, 1801 * ms); /* read again, a new start: no share yet */
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	assert_int_equal(s->ncpus, 2);
	put_cpu(f, 350, 1250, 310, 450, 40, 800);
	sample(f, 1900 * ms);
	assert_false(HAS(s, GP_HF_CPU_BUSY));
	sample(f, 2100 * ms);
	assert_true(HAS(s, GP_HF_CPU_BUSY));
	assert_near(s->cpu_busy, 0.25, 1e-9);
	assert_near(s->cpu_core_busy[0], 1.0, 1e-6);
	assert_near(s->cpu_core_busy[1], 0.0, 1e-6);
	/* the clock going back reads at once */
	put_cpu(f, 450, 1250, 410, 450, 40, 800);
	sample(f, 2000 * ms);
	assert_near(s->cpu_busy, 1.0, 1e-9);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_cpu),
		T(test_cores_offline),
		T(test_many_cores),
		T(test_mem_load),
		T(test_missing_files),
		T(test_garbage_stat),
		T(test_garbage_mem_load),
		T(test_refresh_periods),
		T(test_cpu_period),
		T(test_random_bytes),
		T(test_proc_tree),
		T(test_tree_listing),
		T(test_tree_cap),
		T(test_root_vanishes),
		T(test_open_errors),
		cmocka_unit_test(test_real_proc),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
