/* SPDX-License-Identifier: MIT */
/*
 * host.c - the sampler's host backend: CPU busy (total and per core), memory
 * and load average from procfs, and the CPU and RSS of a watched process tree.
 *
 * The procfs root is movable (gp__host_open's proc_root) so the unit tests run
 * on fixture trees. Every file is read with open/read into a buffer of the
 * struct or the stack, bounded; nothing in a file is trusted: a missing field,
 * an overlong line or a garbage number leaves the field's validity bit clear
 * and never fails the sample. After gp__host_open, a sample allocates nothing
 * (the process lists grow only when the machine has more processes than ever
 * before), so the sampler stays within its budget; the process directories
 * are listed only when a tree is watched.
 *
 * Definitions (the tree's rates are deltas between two consecutive
 * gp__host_sample calls, CPU busy between two consecutive reads of stat):
 * - CPU busy: from the "cpu" and "cpuN" lines of <root>/stat, read at most
 *   every 250 ms (a sample in between carries the last values), with
 *   total = user + nice + system + idle + iowait + irq + softirq + steal
 *   (guest and guest_nice are already part of user and nice) and
 *   busy = (Δtotal - Δ(idle + iowait)) / Δtotal, clamped to 0..1 (iowait may
 *   go backwards on a tickless kernel). No delta when Δtotal is 0.
 * - Per core: cpu_core_busy[N] is core N; ncpus_all is one more than the
 *   highest core number of this sample and ncpus = min(ncpus_all,
 *   GP_SAMPLE_MAX_CPUS). A core missing from this sample or the previous one
 *   (offline) is NAN.
 * - Memory: MemTotal and MemAvailable of <root>/meminfo in bytes; both are
 *   needed, and MemAvailable > MemTotal is taken as garbage.
 * - Process tree: the watched pid and every process whose parent (field 4 of
 *   <root>/<pid>/stat) is in the tree. proc_cpu is the sum over the processes
 *   of the tree now of the growth of utime + stime (fields 14, 15) since the
 *   previous sample, over the elapsed now_ns time, in cores. A process seen
 *   for the first time (a new child, or a pid reused: its start time, field
 *   22, changed) contributes 0 to that first interval: only its ticks after it
 *   was first seen count. A process that exits between two samples
 *   contributes nothing to that last interval, so the sum never goes negative
 *   and short-lived children are under-counted. At most GP_HOST_MAX_TREE
 *   processes are followed, and a process joining the tree counts from the
 *   next interval. proc_rss_bytes sums the resident pages (field 24 of
 *   <root>/<pid>/stat, the number statm gives second, so one file per
 *   process is read) times the page size; it needs the root's.
 * - Finding the tree costs one listing of <root> per sample, plus a stat read
 *   for each member and each new pid: a pid listed last time outside the tree
 *   keeps the parent it had then (reading every process's stat at 10 Hz would
 *   cost some ms on a busy machine, far over the sampler's budget). Every
 *   GP_HOST_RESCAN_NS all of them are read again, so the rare cases this
 *   misses (a process reparented into the tree by a subreaper in it, a pid
 *   outside the tree reused by a new child between two listings) join it
 *   within that time.
 *
 * One struct gp__host is used by one thread at a time; there are no globals.
 */
#include "sample-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/error.h"

/** Bytes of <root>/stat's cpu section, or of meminfo, looked at in one go. */
#define GP_HOST_BUF 4096
/** Counters above this are garbage (2^48 ticks at 100 Hz is 89,000 years). */
#define GP_HOST_NUM_MAX (1ULL << 48)
/** "cpuN" lines with N at or above this are garbage. */
#define GP_HOST_MAX_CORE 65536
/** Processes of the watched tree followed. */
#define GP_HOST_MAX_TREE 4096
/** Processes of the machine listed when looking for the tree's members. */
#define GP_HOST_MAX_SCAN (1u << 18)
/** Every stat of the machine is read again at least this often (see the top). */
#define GP_HOST_RESCAN_NS (10 * 1000000000LL)

#define GP_HOST_CORE_WORDS (GP_SAMPLE_MAX_CPUS / 64)

/*
 * How often the machine-wide files are read (see struct gp__host): CPU and
 * memory at most every GP_HOST_CPU_NS, the load averages every
 * GP_HOST_LOAD_NS. A sample taken up to GP_HOST_SLACK_NS early (the sampler's
 * wake-up jitter on its grid) counts as on time.
 */
#define GP_HOST_CPU_NS   250000000LL
#define GP_HOST_MEM_NS   250000000LL
#define GP_HOST_LOAD_NS  1000000000LL
#define GP_HOST_SLACK_NS 5000000LL

/** A process of the machine, as listed (sorted by pid). */
struct gp__host_proc {
	int32_t pid, ppid;
	uint64_t ticks, start; /* utime + stime; the start time, to notice a reused pid */
	uint64_t rss_pages;    /* resident pages (stat field 24), when rss_ok */
	bool rss_ok;
	bool member; /* in the watched tree */
	bool fresh;  /* read this sample (else carried over from the previous one) */
};

struct gp__host {
	int root_fd;
	/*
	 * On a real procfs, stat, meminfo and loadavg stay open and are read
	 * again from offset 0 (procfs regenerates them then): an open and a
	 * close per file per sample are a third of the sampler's cost. Other
	 * roots (test fixtures, rewritten between samples) are reopened.
	 */
	bool keep_open;
	int fd_stat, fd_meminfo, fd_loadavg;

	/*
	 * stat (CPU) and meminfo are read at most every 250 ms, loadavg every
	 * second (the kernel updates it every 5 s): in between, a sample
	 * carries the last values read. Each is a procfs file the kernel
	 * generates in full per read, 15-35 us cold on a VM, a third of the
	 * sampler's cost at 10 Hz when read every sample. The CPU shares lose
	 * nothing by it: stat counts in ticks of 1/USER_HZ (10 ms), so a core's
	 * share over 100 ms moves in steps of 10 % and over 10 ms is 0 or 1;
	 * over 250 ms or more, steps of 4 % or less.
	 */
	int64_t cpu_ns, mem_ns, load_ns;
	struct gp_host_sample last; /* its CPU, mem and load fields, with their bits */
	DIR *dir;                   /* the root, listed when a tree is watched */
	int32_t watch_pid;
	double ticks_per_s;
	uint64_t page_bytes;

	/* CPU counters of the previous sample */
	bool cpu_prev;
	uint64_t cpu_total, cpu_idle;
	uint64_t core_prev[GP_HOST_CORE_WORDS]; /* bit N: core N was in the previous sample */
	uint64_t core_total[GP_SAMPLE_MAX_CPUS], core_idle[GP_SAMPLE_MAX_CPUS];

	char buf[GP_HOST_BUF];

	/* the watched tree: the processes listed by this sample and the previous one */
	struct gp__host_proc *procs[2];
	size_t nprocs[2], procs_cap[2];
	int lp;         /* procs[lp] is the previous sample's list */
	bool proc_prev; /* the previous sample had the root: procs[lp] and root_* hold it */
	int64_t proc_prev_ns, full_ns;
	uint64_t root_ticks, root_start;
};

/* ---- parsing helpers: a cursor against an end pointer, never past it ---- */

/** Decimal digits (at least one) up to GP_HOST_NUM_MAX; the cursor stops after them. */
static bool num_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > GP_HOST_NUM_MAX)
			return false;
	}
	*pp = p;
	*out = v;
	return true;
}

/** "12", "0.52": digits, then optionally '.' and digits (locale-independent, unlike strtod). */
static bool num_dec(const char **pp, const char *end, double *out)
{
	const char *p = *pp;
	uint64_t ip, frac = 0, scale = 1;

	if (!num_u64(&p, end, &ip))
		return false;
	if (p < end && *p == '.') {
		p++;
		if (p >= end || *p < '0' || *p > '9')
			return false;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (scale < 1000000000ULL) { /* digits past the ninth do not matter */
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	*pp = p;
	*out = (double)ip + (double)frac / (double)scale;
	return true;
}

static const char *skip_spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

static bool starts_with(const char *p, const char *end, const char *prefix, size_t n)
{
	return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

/** The end of the line starting at @p p: its '\n', or @p end. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/**
 * Reads the file @p rel under @p dirfd into @p buf (at most @p cap bytes).
 * When the file fills the buffer, the incomplete last line is dropped so that
 * a cut line is never parsed as a whole one. @return the bytes kept, or -1.
 */
static ssize_t read_file(int dirfd, const char *rel, char *buf, size_t cap);

/* The open fd of @p rel on a kept-open procfs (opened on first use), or -1. */
static int kept_fd(struct gp__host *h, int *slot, const char *rel)
{
	if (*slot < 0)
		*slot = openat(h->root_fd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return *slot;
}

/* pread from offset 0 of a kept fd, as read_file() reads; a failure closes it */
static ssize_t read_kept(int *slot, char *buf, size_t cap)
{
	size_t len = 0;

	while (len < cap) {
		ssize_t n = pread(*slot, buf + len, cap - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(*slot);
			*slot = -1;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == cap && buf[len - 1] != '\n') {
		while (len > 0 && buf[len - 1] != '\n')
			len--;
	}
	return (ssize_t)len;
}

/* read_file() of a top-level file, through its kept fd on a real procfs */
static ssize_t read_top(struct gp__host *h, int *slot, const char *rel, char *buf, size_t cap)
{
	if (!h->keep_open)
		return read_file(h->root_fd, rel, buf, cap);
	if (kept_fd(h, slot, rel) < 0)
		return -1;
	return read_kept(slot, buf, cap);
}

static ssize_t read_file(int dirfd, const char *rel, char *buf, size_t cap)
{
	size_t len = 0;
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == cap && buf[len - 1] != '\n') {
		while (len > 0 && buf[len - 1] != '\n')
			len--;
	}
	return (ssize_t)len;
}

/** Writes "<pid>/<name>" into @p out (at least 32 bytes). */
static void pid_path(char *out, int32_t pid, const char *name)
{
	char digits[12];
	size_t n = 0, i = 0;
	uint32_t v = (uint32_t)pid;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(digits));
	while (n)
		out[i++] = digits[--n];
	out[i++] = '/';
	while (*name && i < 31)
		out[i++] = *name++;
	out[i] = '\0';
}

/** A directory name that is a pid: 1..INT32_MAX, no leading zero. */
static bool pid_name(const char *s, int32_t *pid)
{
	uint64_t v = 0;
	size_t n;

	if (s[0] < '1' || s[0] > '9')
		return false;
	for (n = 0; s[n]; n++) {
		if (s[n] < '0' || s[n] > '9' || n >= 10)
			return false;
		v = v * 10 + (uint64_t)(s[n] - '0');
	}
	if (v > INT32_MAX)
		return false;
	*pid = (int32_t)v;
	return true;
}

/* ---- CPU: <root>/stat ---- */

/** What one read of <root>/stat found. */
struct cpu_scan {
	bool total_ok;
	uint64_t total, idle;
	uint32_t ncores_all;
	uint64_t seen[GP_HOST_CORE_WORDS]; /* bit N: core N is in this sample */
};

/** busy = (Δtotal - Δidle) / Δtotal; false when Δtotal is not positive. */
static bool busy_ratio(uint64_t t0, uint64_t i0, uint64_t t1, uint64_t i1, double *out)
{
	double dt, di, r;

	if (t1 <= t0)
		return false;
	dt = (double)(t1 - t0);
	di = (double)(int64_t)(i1 - i0); /* counters are below 2^51: no overflow */
	r = (dt - di) / dt;
	*out = r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
	return true;
}

/**
 * Parses one line of <root>/stat, [p, end) without its newline.
 * @return false at the first line that is not a cpu line (the end of the cpu
 * section); a malformed cpu line is skipped.
 */
static bool cpu_line(struct gp__host *h, struct gp_host_sample *s, struct cpu_scan *st,
                     const char *p, const char *end)
{
	uint64_t f[8] = { 0 }, v, core = UINT64_MAX, total, idle;
	unsigned i, nf = 0;
	double r;

	if (!starts_with(p, end, "cpu", 3))
		return false;
	p += 3;
	if (p < end && *p >= '0' && *p <= '9') {
		if (!num_u64(&p, end, &core) || core >= GP_HOST_MAX_CORE)
			return true;
	}
	while (p < end) {
		if (*p != ' ')
			return true;
		p = skip_spaces(p, end);
		if (p == end)
			break;
		if (!num_u64(&p, end, &v))
			return true;
		if (nf < GP_ARRAY_SIZE(f))
			f[nf] = v;
		nf++;
	}
	if (nf < 4) /* user nice system idle; iowait and later came with newer kernels */
		return true;
	/* f[8], f[9] (guest, guest_nice) are already counted in user and nice */
	idle = f[3] + f[4];
	for (total = 0, i = 0; i < GP_ARRAY_SIZE(f); i++)
		total += f[i];

	if (core == UINT64_MAX) {
		if (!st->total_ok) {
			st->total_ok = true;
			st->total = total;
			st->idle = idle;
		}
		return true;
	}
	if (core + 1 > st->ncores_all)
		st->ncores_all = (uint32_t)core + 1;
	if (core >= GP_SAMPLE_MAX_CPUS || (st->seen[core / 64] >> (core % 64) & 1))
		return true;
	st->seen[core / 64] |= 1ULL << (core % 64);
	if ((h->core_prev[core / 64] >> (core % 64) & 1) &&
	    busy_ratio(h->core_total[core], h->core_idle[core], total, idle, &r))
		s->cpu_core_busy[core] = (float)r;
	h->core_total[core] = total;
	h->core_idle[core] = idle;
	return true;
}

/*
 * <root>/stat can be long (an "intr" line with thousands of counters), but the
 * cpu lines come first: read it in chunks and stop at the first other line.
 */
static void read_cpu_lines(struct gp__host *h, struct gp_host_sample *s, struct cpu_scan *st)
{
	char *b = h->buf;
	size_t len = 0;
	bool eof = false, stop = false;
	off_t off = 0;
	int fd = h->keep_open ? kept_fd(h, &h->fd_stat, "stat")
	                      : openat(h->root_fd, "stat", O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return;
	while (!stop && !eof) {
		ssize_t n = pread(fd, b + len, sizeof(h->buf) - len, off);
		const char *p = b, *end, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (h->keep_open) {
				close(fd);
				h->fd_stat = fd = -1;
			}
			break;
		}
		eof = n == 0;
		off += n;
		len += (size_t)n;
		end = b + len;
		while (!stop && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			stop = !cpu_line(h, s, st, p, nl);
			p = nl + 1;
		}
		if (!stop && eof && p < end) { /* a last line without a newline */
			cpu_line(h, s, st, p, end);
			p = end;
		}
		len = (size_t)(end - p);
		if (len == sizeof(h->buf)) /* no real line is this long: garbage */
			break;
		memmove(b, p, len);
	}
	if (!h->keep_open && fd >= 0)
		close(fd);
}

static void sample_cpu(struct gp__host *h, struct gp_host_sample *s)
{
	struct cpu_scan st;
	double r;
	size_t i;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < GP_SAMPLE_MAX_CPUS; i++)
		s->cpu_core_busy[i] = NAN;
	read_cpu_lines(h, s, &st);

	s->ncpus_all = st.ncores_all;
	s->ncpus = st.ncores_all < GP_SAMPLE_MAX_CPUS ? st.ncores_all : GP_SAMPLE_MAX_CPUS;
	if (st.total_ok && h->cpu_prev &&
	    busy_ratio(h->cpu_total, h->cpu_idle, st.total, st.idle, &r)) {
		s->cpu_busy = r;
		s->valid |= GP_HF_BIT(GP_HF_CPU_BUSY);
	}
	h->cpu_prev = st.total_ok;
	h->cpu_total = st.total;
	h->cpu_idle = st.idle;
	memcpy(h->core_prev, st.seen, sizeof(h->core_prev));
}

/* ---- memory and load ---- */

/** "   16314756 kB" up to @p end, in bytes. */
static bool kb_value(const char *p, const char *end, uint64_t *bytes)
{
	uint64_t v;

	p = skip_spaces(p, end);
	if (!num_u64(&p, end, &v))
		return false;
	p = skip_spaces(p, end);
	if (!starts_with(p, end, "kB", 2))
		return false;
	if (skip_spaces(p + 2, end) != end)
		return false;
	*bytes = v * 1024; /* v <= 2^48 */
	return true;
}

static void sample_mem(struct gp__host *h, struct gp_host_sample *s)
{
	ssize_t n = read_top(h, &h->fd_meminfo, "meminfo", h->buf, sizeof(h->buf));
	const char *p = h->buf, *end, *eol;
	uint64_t total = 0, avail = 0;
	bool has_total = false, has_avail = false;

	if (n <= 0)
		return;
	end = h->buf + n;
	for (; p < end && !(has_total && has_avail); p = eol < end ? eol + 1 : end) {
		eol = line_end(p, end);
		if (!has_total && starts_with(p, eol, "MemTotal:", 9))
			has_total = kb_value(p + 9, eol, &total);
		else if (!has_avail && starts_with(p, eol, "MemAvailable:", 13))
			has_avail = kb_value(p + 13, eol, &avail);
	}
	if (has_total && has_avail && avail <= total) {
		s->mem_total_bytes = total;
		s->mem_available_bytes = avail;
		s->valid |= GP_HF_BIT(GP_HF_MEM);
	}
}

/** <root>/loadavg: "0.52 0.58 0.59 1/467 12345". */
static void sample_load(struct gp__host *h, struct gp_host_sample *s)
{
	char b[256];
	ssize_t n = read_top(h, &h->fd_loadavg, "loadavg", b, sizeof(b));
	const char *p = b, *end;
	double v[3];
	int i;

	if (n <= 0)
		return;
	end = b + n;
	for (i = 0; i < 3; i++) {
		if (i > 0) {
			if (p >= end || *p != ' ')
				return;
			p = skip_spaces(p, end);
		}
		if (!num_dec(&p, end, &v[i]))
			return;
	}
	if (p < end && *p != ' ' && *p != '\n')
		return;
	s->load1 = v[0];
	s->load5 = v[1];
	s->load15 = v[2];
	s->valid |= GP_HF_BIT(GP_HF_LOAD);
}

/* ---- the watched process tree ---- */

struct pid_stat {
	int32_t ppid;
	uint64_t ticks, start;
	uint64_t rss_pages; /* field 24, the resident set as statm's second field */
	bool rss_ok;
};

/**
 * Parses <root>/<pid>/stat. The comm (field 2) is in parentheses and may hold
 * spaces and ')' itself, so the fields resume after the LAST ')'. Fields 3-22
 * must be there; a line that ends before field 24 leaves the RSS unknown.
 */
static bool read_pid_stat(const struct gp__host *h, int32_t pid, struct pid_stat *ps)
{
	char b[2048], rel[32];
	const char *p, *end, *tok_end;
	ssize_t n;
	uint64_t v, utime = 0;
	int field;

	pid_path(rel, pid, "stat");
	n = read_file(h->root_fd, rel, b, sizeof(b));
	if (n <= 0)
		return false;
	end = b + n;
	for (p = end; p > b && p[-1] != ')'; p--)
		;
	if (p == b)
		return false;
	/* p is just past the comm's ')' ending field 2 */
	ps->rss_ok = false;
	for (field = 3; field <= 24; field++) {
		if (field > 22 && (p >= end || *p == '\n'))
			return true; /* an old or cut line: no RSS */
		if (p >= end || *p != ' ')
			return false;
		p++;
		for (tok_end = p; tok_end < end && *tok_end != ' ' && *tok_end != '\n'; tok_end++)
			;
		if (field == 24) {
			ps->rss_ok = num_u64(&p, tok_end, &v) && p == tok_end &&
			             v <= UINT64_MAX / h->page_bytes;
			ps->rss_pages = v;
		} else if (field == 4 || field == 14 || field == 15 || field == 22) {
			if (!num_u64(&p, tok_end, &v) || p != tok_end)
				return false;
			if (field == 4) {
				if (v > INT32_MAX)
					return false;
				ps->ppid = (int32_t)v;
			} else if (field == 14) {
				utime = v;
			} else if (field == 15) {
				ps->ticks = utime + v;
			} else {
				ps->start = v;
			}
		}
		p = tok_end;
	}
	return true;
}

static struct gp__host_proc *proc_find(struct gp__host_proc *v, size_t n, int32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid == pid)
			return &v[mid];
		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int proc_cmp(const void *a, const void *b)
{
	int32_t x = ((const struct gp__host_proc *)a)->pid,
	        y = ((const struct gp__host_proc *)b)->pid;

	return x < y ? -1 : x > y;
}

/**
 * Lists every process but the root into the list the previous sample did not
 * use, sorted by pid (procfs lists in pid order already). A process listed
 * outside the tree last time keeps the parent it had then, without reading
 * its stat again, except at a full rescan. @return the count, or -1 (ENOMEM).
 */
static ssize_t list_procs(struct gp__host *h, int64_t now_ns)
{
	struct gp__host_proc *prev = h->procs[h->lp], *cur = h->procs[!h->lp], *old;
	size_t nprev = h->proc_prev ? h->nprocs[h->lp] : 0, n = 0;
	struct dirent *d;
	struct pid_stat ps;
	bool sorted = true;
	int32_t pid;

	if (!h->proc_prev || now_ns < h->full_ns ||
	    (uint64_t)now_ns - (uint64_t)h->full_ns >= (uint64_t)GP_HOST_RESCAN_NS) {
		nprev = 0;
		h->full_ns = now_ns;
	}
	rewinddir(h->dir);
	while ((d = readdir(h->dir))) {
		if (!pid_name(d->d_name, &pid) || pid == h->watch_pid)
			continue;
		if (n == h->procs_cap[!h->lp]) {
			if (n >= GP_HOST_MAX_SCAN)
				break;
			if (gp__grow((void **)&h->procs[!h->lp], &h->procs_cap[!h->lp], n + 1,
			             sizeof(*cur)) < 0)
				return -1;
			cur = h->procs[!h->lp];
		}
		old = proc_find(prev, nprev, pid);
		if (old && !old->member) {
			cur[n] = *old;
			cur[n].fresh = false;
		} else if (read_pid_stat(h, pid, &ps)) {
			cur[n].pid = pid;
			cur[n].ppid = ps.ppid;
			cur[n].ticks = ps.ticks;
			cur[n].start = ps.start;
			cur[n].rss_pages = ps.rss_pages;
			cur[n].rss_ok = ps.rss_ok;
			cur[n].fresh = true;
		} else {
			continue; /* exited since the listing, or garbage */
		}
		cur[n].member = false;
		if (n > 0 && cur[n - 1].pid > pid)
			sorted = false;
		n++;
	}
	if (!sorted)
		qsort(cur, n, sizeof(*cur), proc_cmp);
	h->nprocs[!h->lp] = n;
	return (ssize_t)n;
}

/** Marks the tree's processes in the new list. @return how many there are, the root included. */
static uint32_t mark_tree(struct gp__host *h, struct gp__host_proc *v, size_t n)
{
	struct gp__host_proc *parent;
	struct pid_stat ps;
	uint32_t members = 1;
	bool changed;
	size_t i;

	do {
		changed = false;
		for (i = 0; i < n && members < GP_HOST_MAX_TREE; i++) {
			struct gp__host_proc *e = &v[i];

			if (e->member)
				continue;
			parent = e->ppid == h->watch_pid ? NULL : proc_find(v, n, e->ppid);
			if (e->ppid != h->watch_pid && (!parent || !parent->member))
				continue;
			if (!e->fresh) { /* its parent joined the tree: read it again */
				e->fresh = true;
				if (!read_pid_stat(h, e->pid, &ps)) {
					e->ppid = 0;
					continue;
				}
				e->ppid = ps.ppid;
				e->ticks = ps.ticks;
				e->start = ps.start;
				e->rss_pages = ps.rss_pages;
				e->rss_ok = ps.rss_ok;
				changed = true; /* look at it again, with its parent of now */
				continue;
			}
			e->member = true;
			members++;
			changed = true;
		}
	} while (changed);
	return members;
}

static void sample_tree(struct gp__host *h, int64_t now_ns, struct gp_host_sample *s)
{
	struct gp__host_proc *cur, *prev = h->procs[h->lp], *old;
	size_t nprev = h->proc_prev ? h->nprocs[h->lp] : 0;
	struct pid_stat root;
	uint64_t dticks = 0, rss = 0, bytes;
	ssize_t n, i;

	if (!read_pid_stat(h, h->watch_pid, &root)) {
		h->proc_prev = false; /* gone: not an error, the bits stay clear */
		return;
	}
	n = list_procs(h, now_ns);
	if (n < 0) {
		h->proc_prev = false;
		return;
	}
	cur = h->procs[!h->lp];
	s->proc_count = mark_tree(h, cur, (size_t)n);

	/* deltas of the processes in both samples (see the top) */
	if (root.rss_ok)
		rss = root.rss_pages * h->page_bytes;
	if (h->proc_prev && h->root_start == root.start && root.ticks >= h->root_ticks)
		dticks = root.ticks - h->root_ticks;
	for (i = 0; i < n; i++) {
		if (!cur[i].member)
			continue;
		old = proc_find(prev, nprev, cur[i].pid);
		if (old && old->member && old->start == cur[i].start && cur[i].ticks >= old->ticks)
			dticks += cur[i].ticks - old->ticks;
		if (cur[i].rss_ok) { /* read this sample: members are never carried over */
			bytes = cur[i].rss_pages * h->page_bytes;
			rss = bytes > UINT64_MAX - rss ? UINT64_MAX : rss + bytes;
		}
	}

	if (root.rss_ok) {
		s->proc_rss_bytes = rss;
		s->valid |= GP_HF_BIT(GP_HF_PROC_RSS);
	}
	if (h->proc_prev && h->root_start == root.start && now_ns > h->proc_prev_ns) {
		s->proc_cpu = (double)dticks / h->ticks_per_s /
		              ((double)((uint64_t)now_ns - (uint64_t)h->proc_prev_ns) / 1e9);
		s->valid |= GP_HF_BIT(GP_HF_PROC_CPU);
	}

	h->lp = !h->lp;
	h->root_ticks = root.ticks;
	h->root_start = root.start;
	h->proc_prev = true;
	h->proc_prev_ns = now_ns;
}

/* ---- the backend ---- */

int gp__host_open(struct gp__host **out, const char *proc_root, int32_t watch_pid)
{
	struct gp__host *h;
	long v;
	int fd, e, rc = 0;

	*out = NULL;
	if (!proc_root)
		proc_root = "/proc";
	if (watch_pid < 0)
		return gp__error(GP_EINVAL, "bad pid to watch: %d", (int)watch_pid);
	h = gp__calloc(1, sizeof(*h));
	if (!h)
		return gp__error(GP_ENOMEM, "out of memory");
	h->root_fd = h->fd_stat = h->fd_meminfo = h->fd_loadavg = -1;
	h->watch_pid = watch_pid;
	h->root_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = h->root_fd < 0 ? -1 : openat(h->root_fd, "stat", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		GP_TRY(gp__error(e == ENOENT || e == ENOTDIR ? GP_ENOENT : GP_EIO,
		                 "cannot open '%s/stat': %s", proc_root, strerror(e)));
	}
	close(fd);
	{
		struct statfs sf;

		h->keep_open = fstatfs(h->root_fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
	}

	v = sysconf(_SC_CLK_TCK);
	h->ticks_per_s = v > 0 ? (double)v : 100.0;
	v = sysconf(_SC_PAGESIZE);
	h->page_bytes = v > 0 ? (uint64_t)v : 4096;

	if (watch_pid > 0) {
		h->dir = opendir(proc_root);
		if (!h->dir) {
			e = errno;
			GP_TRY(gp__error(e == ENOMEM ? GP_ENOMEM : GP_EIO, "cannot list '%s': %s",
			                 proc_root, strerror(e)));
		}
	}
	*out = h;
	return 0;
out:
	gp__host_close(h);
	return rc;
}

/*
 * A file read every @p period is due: nothing read yet (@p have false: the
 * last read failed or there was none), the period gone, or the clock back.
 */
static bool due(bool have, int64_t last_ns, int64_t now_ns, int64_t period)
{
	return !have || now_ns < last_ns || now_ns - last_ns >= period - GP_HOST_SLACK_NS;
}

/* Copies the fields of one part (@p bit: CPU, memory or load) and its validity bit. */
static void copy_part(struct gp_host_sample *to, const struct gp_host_sample *from, uint64_t bit)
{
	to->valid = (to->valid & ~bit) | (from->valid & bit);
	if (bit == GP_HF_BIT(GP_HF_CPU_BUSY)) {
		to->cpu_busy = from->cpu_busy;
		to->ncpus = from->ncpus;
		to->ncpus_all = from->ncpus_all;
		memcpy(to->cpu_core_busy, from->cpu_core_busy, sizeof(to->cpu_core_busy));
	} else if (bit == GP_HF_BIT(GP_HF_MEM)) {
		to->mem_total_bytes = from->mem_total_bytes;
		to->mem_available_bytes = from->mem_available_bytes;
	} else {
		to->load1 = from->load1;
		to->load5 = from->load5;
		to->load15 = from->load15;
	}
}

int gp__host_sample(struct gp__host *h, int64_t now_ns, struct gp_host_sample *s)
{
	const uint64_t cpu_bit = GP_HF_BIT(GP_HF_CPU_BUSY), mem_bit = GP_HF_BIT(GP_HF_MEM);
	const uint64_t load_bit = GP_HF_BIT(GP_HF_LOAD);
	struct gp_host_sample *l = &h->last;

	memset(s, 0, sizeof(*s));
	s->proc_pid = h->watch_pid;
	/* CPU: the period runs from the first read (a baseline, no share yet) too */
	if (due(h->cpu_prev, h->cpu_ns, now_ns, GP_HOST_CPU_NS)) {
		sample_cpu(h, s);
		h->cpu_ns = now_ns;
		copy_part(l, s, cpu_bit);
	} else {
		copy_part(s, l, cpu_bit);
	}
	if (due(l->valid & mem_bit, h->mem_ns, now_ns, GP_HOST_MEM_NS)) {
		sample_mem(h, s);
		h->mem_ns = now_ns;
		copy_part(l, s, mem_bit);
	} else {
		copy_part(s, l, mem_bit);
	}
	if (due(l->valid & load_bit, h->load_ns, now_ns, GP_HOST_LOAD_NS)) {
		sample_load(h, s);
		h->load_ns = now_ns;
		copy_part(l, s, load_bit);
	} else {
		copy_part(s, l, load_bit);
	}
	if (h->watch_pid > 0)
		sample_tree(h, now_ns, s);
	return 0;
}

void gp__host_close(struct gp__host *h)
{
	if (!h)
		return;
	if (h->dir)
		closedir(h->dir);
	if (h->root_fd >= 0)
		close(h->root_fd);
	if (h->fd_stat >= 0)
		close(h->fd_stat);
	if (h->fd_meminfo >= 0)
		close(h->fd_meminfo);
	if (h->fd_loadavg >= 0)
		close(h->fd_loadavg);
	gp__free(h->procs[0]);
	gp__free(h->procs[1]);
	gp__free(h);
}
