/* SPDX-License-Identifier: MIT */
/*
 * session.c - the capture of one process: its file, the writer thread, fork,
 * signals and exit (see docs/capture-format.md and docs/cli/gpuprof-run.md).
 * The entry points of the process are here (the constructor, fork handlers,
 * InitializeInjection, atexit, signal handlers, the writer thread); the
 * memory they share with the recording threads (the queue, the blocks, the
 * clock, ids) is core.c's, which calls nothing back.
 *
 * The file is $GPUPROF_CAPTURE_DIR/capture-<host>-<pid>.gpcap (the current
 * directory without it), created exclusively. Only the writer thread writes
 * to it, in whole records: small records go through one locked queue
 * (gp__inj_write), NVTX and annotation events through per-thread blocks the
 * writer drains without locking their owners, CUPTI buffers are decoded on
 * the writer thread itself. It makes a pass at its start (the META record
 * is in the file at once), every GPUPROF_FLUSH_MS (default 500 ms), and as
 * soon as KICK_BYTES (core.c) wait or CUPTI hands over a buffer, so a process killed
 * with SIGKILL loses what it made after the last pass, which the pass's
 * FLUSH record dates. A pass notes how far each block is filled, then
 * writes the queue, then the blocks up to that point, oldest block first: a
 * definition queued before an event was made (a string, a domain, a site)
 * is in the file before it, and a thread's records are in the order it
 * made them.
 *
 * The program owns the descriptor table (capture_fd): the writer checks the
 * capture's descriptor before each write and reopens the file when the
 * program closed or replaced it; it is woken by futexes, not a pipe, so
 * there is no other descriptor to lose.
 *
 * The event clock (inject.h, gp__inj_ts): with the TSC, the writer converts
 * each block event's raw TSC into CLOCK_MONOTONIC ns just before writing it,
 * by linear interpolation between the (TSC, CLOCK_MONOTONIC) pair read at
 * the previous pass (the session's start for the first) and the one read at
 * this pass, so the error is that of the pairs (tens of ns), not a drift.
 *
 * Memory is bounded (GPUPROF_INJECT_MAX_MB, default 256, for queued records
 * and NVTX blocks, kept by core.c; CUPTI's buffers have their own bound in
 * cupti.c): what does not fit is dropped and counted in the GP_CAP_DROPPED
 * record.
 *
 * Exit: an atexit handler stops CUPTI with a forced flush, writes the last
 * records (DROPPED, END) and closes the file. SIGTERM, SIGINT, SIGHUP whose
 * disposition is the default when the capture starts get a handler that has
 * the writer thread do the same (at most 2 s), then dies of the signal as it
 * would have. A forked child records nothing: pthread_atfork marks it, and
 * every entry point returns at once there (a child that execs and uses CUDA
 * or NVTX is captured on its own, through the inherited environment).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuprof-config.h"
#include "inject.h"

#define FLUSH_MS_DEFAULT 500
#define MAX_MB_DEFAULT   256
#define SIGNAL_WAIT_MS   2000

/*
 * ThreadSanitizer models descriptors per process: one the writer opens in a
 * table of its own looks to it like a number nobody created, and building a
 * report about it fails a CHECK. Its builds keep the shared table.
 */
#if defined(__SANITIZE_THREAD__)
#define UNSHARE_FDS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNSHARE_FDS 0
#endif
#endif
#ifndef UNSHARE_FDS
#define UNSHARE_FDS 1
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static _Atomic bool g_stopping; /* exit or a fatal signal: the writer makes its last pass */
static pid_t g_pid;
static pthread_t g_writer;
static bool g_writer_started;
static unsigned g_flush_ms = FLUSH_MS_DEFAULT;
static bool g_verbose;

/*
 * The writer thread is starting, or running its own code. session_open and
 * fork_prepare wait from one to the other: a thread's start-up allocates
 * outside our locks (a sanitizer's thread set-up calls pthread_getattr_np,
 * which mallocs), and a fork in that moment would leave a sanitizer's
 * allocator locked in the child for good. g_start_mu guards these three;
 * fork_prepare takes it before core.c's lock, and nobody takes them the
 * other way round.
 */
static pthread_mutex_t g_start_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_writer_starting, g_writer_running;
static bool g_writer_go; /* session_open has set up the rest: the writer's passes may begin */
static pthread_cond_t g_writer_cv = PTHREAD_COND_INITIALIZER;

static struct sigaction g_old_act[65];

/* (TSC, CLOCK_MONOTONIC) pairs: the previous pass's, and the last ratio that held */
static struct {
	uint64_t tsc;
	int64_t ns;
} g_cal;
static double g_ns_per_tick;

/* ---- the capture's descriptor ---- */

/*
 * The program owns the descriptor table: it may close every descriptor above
 * 2 (closerange, closefrom, daemons, test harnesses), dup2 a file over any
 * number, and then open files that get our old number. So the writer never
 * trusts the number: before each write it checks that the descriptor is
 * still the file it opened (device and inode, fstat), and if it is not, it
 * neither writes to it nor closes it (both would harm the program's file):
 * it opens the capture again by its path, checks that this is the same
 * file, and says so in a WARN record. When that fails (the file or its
 * directory was removed) the capture stops, and what is lost is counted.
 * Only the writer thread, or the exiting thread after it stopped, calls these.
 */
static int g_fd = -1;
static char g_path[PATH_MAX];
static dev_t g_fd_dev;
static ino_t g_fd_ino;
static _Atomic bool g_fd_dead; /* the file could not be found again: nothing more is written */
static int g_fd_lost = -1;     /* the number we lost, for the next WARN record */
static bool g_private_fds;     /* the writer has a descriptor table of its own (unshare) */
static bool g_shared_fds;      /* GPUPROF_INJECT_SHARED_FDS: do without one (tests) */

static bool is_capture(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == g_fd_dev && st.st_ino == g_fd_ino;
}

/* fsync and close of the capture, only while the descriptor is still its own */
static void capture_sync(void)
{
	if (is_capture(g_fd))
		fsync(g_fd);
}

static void capture_close(void)
{
	/* and opened by us (write-only, append): the program may have opened our file too */
	if (is_capture(g_fd) &&
	    (fcntl(g_fd, F_GETFL) & (O_ACCMODE | O_APPEND)) == (O_WRONLY | O_APPEND))
		close(g_fd);
	g_fd = -1;
}

/*
 * Moves a descriptor of ours above the numbers a program uses: open() gives
 * the lowest free one, and a daemon that closed 0-2 expects its next opens
 * to be its standard streams. @return the new descriptor (or @p fd, where
 * the limit leaves no room up there).
 */
static int move_high(int fd)
{
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 100);

	if (hi < 0)
		hi = fd > 2 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* The capture's descriptor, verified now; -1 when the capture has stopped. */
static int capture_fd(void)
{
	int fd;

	/* in the writer's own table only the writer can change it (and at_exit's fallback path
	 * has no such table) */
	if ((g_private_fds && g_fd >= 0) || is_capture(g_fd))
		return g_fd;
	if (atomic_load_explicit(&g_fd_dead, memory_order_relaxed))
		return -1;
	/* not ours any more: never write to it nor close it */
	if (g_fd_lost < 0)
		g_fd_lost = g_fd;
	g_fd = -1;
	fd = open(g_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && is_capture(fd)) {
		g_fd = g_private_fds ? fd : move_high(fd);
		return g_fd;
	}
	if (fd >= 0)
		close(fd); /* a file of that name we did not create: leave it alone */
	atomic_store(&g_fd_dead, true);
	atomic_store(&gp__inj_live, false);
	if (g_verbose)
		fprintf(stderr,
		        "gpuprof-inject[%d]: the capture file %s is gone and its descriptor was "
		        "closed: capture stopped\n",
		        (int)getpid(), g_path);
	return -1;
}

/*
 * A WARN record for a descriptor lost and found again (queued: the next pass
 * writes it). The same text each time, so that the reader counts them.
 */
static void note_reopen(void)
{
	if (g_fd_lost < 0 || g_fd < 0)
		return;
	gp__inj_warn(EBADF, "the program closed or replaced the capture's file descriptor "
	                    "(closerange, closefrom, dup2 or close): the tracer reopened its file");
	g_fd_lost = -1;
}

static void write_all(const void *p, size_t n)
{
	const unsigned char *c = p;
	int fd = n ? capture_fd() : -1;
	bool again = true;

	while (n > 0) {
		ssize_t w = fd >= 0 ? write(fd, c, n) : -1;

		if (w < 0 && errno == EINTR && fd >= 0)
			continue;
		if (w < 0 && errno == EBADF && fd >= 0 && again) {
			/* our file, but a descriptor the program opened on it read-only: ours again
			 */
			again = false;
			g_fd_lost = g_fd;
			g_fd = -1;
			fd = capture_fd();
			continue;
		}
		if (w <= 0) {
			gp__inj_write_lost(n);
			return;
		}
		c += w;
		n -= (size_t)w;
	}
}

/* ---- requests to the writer (core.c wakes it) ---- */

static _Atomic bool g_req_stop;  /* at_exit: the writer returns */
static _Atomic int g_req_sig;    /* a fatal signal: the writer finishes the capture */
static _Atomic uint32_t g_acked; /* 1: the writer finished for the signal */

/* ---- the writer ---- */

/*
 * A (TSC, CLOCK_MONOTONIC) pair read together: the TSC between two clock
 * reads, the tightest of a few tries (a preemption between the reads would
 * put the pair off by its length).
 */
static void cal_read(uint64_t *tsc, int64_t *ns)
{
	int64_t best = INT64_MAX;

	for (int k = 0; k < 5; k++) {
		int64_t a = (int64_t)gp__inj_now(), b;
		uint64_t t = gp__inj_rdtsc();

		b = (int64_t)gp__inj_now();
		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*ns = a + (b - a) / 2;
		}
		if (best < 2000)
			break; /* within 2 us: as good as it gets */
	}
}

/* Turns the raw TSC of the block events in [p, end) into ns on the line through g_cal and now. */
static void cal_convert(unsigned char *p, const unsigned char *end, uint64_t tsc1, int64_t ns1)
{
	double k = g_ns_per_tick;

	if (tsc1 > g_cal.tsc && ns1 > g_cal.ns)
		k = (double)(ns1 - g_cal.ns) / (double)(tsc1 - g_cal.tsc);
	g_ns_per_tick = k;
	while ((size_t)(end - p) >= sizeof(struct gp_cap_rec_header)) {
		struct gp_cap_rec_header h;
		size_t len;

		memcpy(&h, p, sizeof(h));
		len = sizeof(h) + (((size_t)h.size + 7) & ~(size_t)7);
		if (len > (size_t)(end - p))
			break; /* cannot be: records are published whole */
		/* every block record begins with its int64 timestamp */
		if ((h.type == GP_CAP_NVTX || h.type == GP_CAP_COUNTER ||
		     h.type == GP_CAP_WINDOW) &&
		    h.size >= sizeof(int64_t)) {
			int64_t raw, ns;

			memcpy(&raw, p + sizeof(h), sizeof(raw));
			/* signed: an event may precede the previous pair by a little */
			ns = g_cal.ns + (int64_t)((double)(int64_t)((uint64_t)raw - g_cal.tsc) * k);
			memcpy(p + sizeof(h), &ns, sizeof(ns));
		}
		p += len;
	}
}

static uint64_t g_passes;

/*
 * Writes what is queued and what the blocks published, then a FLUSH record
 * (what was recorded before the pass began is in the file above it, but
 * for what CUPTI still holds); frees drained sealed blocks.
 */
static void write_pass(void)
{
	unsigned char *q;
	size_t qlen;
	struct gp__inj_block *b, *head, *last;
	struct {
		struct gp_cap_rec_header h;
		struct gp_cap_flush f;
	} fl;
	uint64_t tsc = 0;
	int64_t ns = 0;

	memset(&fl, 0, sizeof(fl));
	fl.f.ts = (int64_t)gp__inj_now();
	gp__inj_kick_reset();
	/* how far each block is filled now: their events were made after what is queued now */
	gp__inj_blocks_span(&head, &last);
	/*
	 * Blocks are only appended (under core.c's lock) while this runs: [head, last] is
	 * walked unlocked, never reading last->next, which an append may write.
	 */
	for (b = last ? head : NULL; b; b = b == last ? NULL : b->next)
		b->snap = atomic_load_explicit(&b->used, memory_order_acquire);
	if (gp__inj_tsc)
		cal_read(&tsc, &ns);

	qlen = gp__inj_queue_take(&q);
	if (qlen)
		write_all(q, qlen);
	gp__inj_free(q); /* the allocator only under core.c's lock (fork) */

	/* oldest first: a thread's sealed blocks before its current one */
	for (b = last ? head : NULL; b; b = b == last ? NULL : b->next) {
		if (b->snap > b->written) {
			if (gp__inj_tsc)
				cal_convert(b->data + b->written, b->data + b->snap, tsc, ns);
			write_all(b->data + b->written, b->snap - b->written);
			b->written = b->snap;
		}
	}
	if (gp__inj_tsc) {
		g_cal.tsc = tsc;
		g_cal.ns = ns;
	}
	fl.h.type = GP_CAP_FLUSH;
	fl.h.size = sizeof(fl.f);
	fl.f.pass = ++g_passes;
	write_all(&fl, sizeof(fl));
	note_reopen();
	/* unlink the sealed, fully written ones */
	gp__inj_blocks_reap();
}

static void json_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The END and DROPPED records: the last of the file. */
static void write_end(const char *reason)
{
	struct gp_cap_dropped d;
	struct gp__inj_lost lost;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	memset(&d, 0, sizeof(d));
	d.ts = (int64_t)gp__inj_now();
	gp__inj_cupti_dropped(&d.cupti_records, &d.cupti_buffers);
	gp__inj_lost_get(&lost);
	d.nvtx_records = lost.nvtx_records;
	d.write_bytes = lost.write_bytes;
	d.cupti_records += lost.queue_records;
	gp__inj_write(GP_CAP_DROPPED, &d, sizeof(d), NULL, 0);
	f = open_memstream(&text, &len);
	if (f) {
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		fprintf(f, "{\"cupti_version\":%u,\"mono_ns\":%llu,\"real_ns\":%llu,\"reason\":",
		        gp__inj_cupti_version(), (unsigned long long)gp__inj_now(),
		        (unsigned long long)rt.tv_sec * 1000000000ull +
		            (unsigned long long)rt.tv_nsec);
		json_str(f, reason, strlen(reason));
		fputc('}', f);
		if (fclose(f) == 0)
			gp__inj_write(GP_CAP_END, text, len, NULL, 0);
		free(text);
	}
}

/* The last pass: the events, the window's end, CUPTI's forced flush, the END record. */
static void finish(const char *reason)
{
	/* the events made so far first: a window still open ends after them */
	write_pass();
	gp__inj_win_event(GP_INJ_WIN_EXIT, 0, NULL);
	gp__inj_cupti_stop();
	gp__inj_cupti_drain();
	write_pass();
	write_end(reason);
	write_pass();
	if (gp__inj_queue_len()) /* a WARN of the last pass (a descriptor found again) */
		write_pass();
	capture_sync();
}

static int open_file(void);

/* The capture's header, the first bytes of the file (the file is new: nothing else is in it). */
static void write_header(void)
{
	struct gp_cap_file_header h;

	memcpy(h.magic, GP_CAP_MAGIC, 8);
	h.version = GP_CAP_VERSION;
	h.header_size = GP_CAP_HEADER_SIZE;
	write_all(&h, sizeof(h));
}

static void *writer_main(void *arg)
{
	sigset_t all;
	int fd;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the program's threads */
	/*
	 * A descriptor table of this thread's own (unshare(2) CLONE_FILES): the
	 * capture file is opened there, where the program's close, closefrom and
	 * dup2 cannot reach it, and it takes none of the program's numbers. Where
	 * unshare is refused (a seccomp profile), the file is in the shared table
	 * and capture_fd() checks it before each write.
	 */
	g_private_fds = UNSHARE_FDS && !g_shared_fds && unshare(CLONE_FILES) == 0;
	g_fd = fd = open_file();
	if (fd >= 0)
		write_header();
	pthread_mutex_lock(&g_start_mu);
	g_writer_running = true;
	pthread_cond_broadcast(&g_writer_cv);
	while (fd >= 0 && !g_writer_go)
		pthread_cond_wait(&g_writer_cv, &g_start_mu);
	pthread_mutex_unlock(&g_start_mu);
	if (fd < 0)
		return NULL; /* session_open joins us and records nothing */
	/* the process's META at once: a capture killed before the first tick still says whose */
	write_pass();
	gp__inj_spare_fill();
	for (;;) {
		uint32_t seq = gp__inj_wake_seq();
		/* ns to the time gate's next edge */
		int64_t edge = gp__inj_win_next_edge((int64_t)gp__inj_now());
		int ms = (int)g_flush_ms, sig;

		if (edge >= 0 && edge / 1000000 < ms)
			ms = (int)((edge + 999999) / 1000000);
		if (!atomic_load(&g_req_stop) && !atomic_load(&g_req_sig))
			gp__inj_wait(seq, ms);
		if (atomic_load(&g_req_stop)) {
			/* exit: the last pass here, where the descriptor is */
			finish("exit");
			capture_close();
			return NULL;
		}
		if ((sig = atomic_load(&g_req_sig)) !=
		    0) { /* a fatal signal: finish, answer, stop */
			char text[32];

			snprintf(text, sizeof(text), "signal %d", sig);
			finish(text);
			atomic_store(&g_acked, 1);
			gp__inj_futex(&g_acked, FUTEX_WAKE, INT_MAX, NULL);
			return NULL;
		}
		gp__inj_win_event(GP_INJ_WIN_TICK, 0, NULL);
		gp__inj_cupti_flush(false);
		gp__inj_cupti_drain();
		write_pass();
		gp__inj_spare_fill();
	}
	return NULL;
}

/* ---- exit, signals, fork ---- */

static void at_exit(void)
{
	if (!gp__inj_core_is_open() || gp__inj_forked() || getpid() != g_pid ||
	    atomic_exchange(&g_stopping, true))
		return;
	atomic_store(&gp__inj_live, false);
	if (g_writer_started) {
		/* the writer makes the last pass and closes the file (its descriptor table) */
		atomic_store(&g_req_stop, true);
		gp__inj_wake();
		pthread_join(g_writer, NULL);
	} else {
		finish("exit");
		capture_close();
	}
	gp__inj_core_close();
}

/* The handler waits for the writer's answer, at most SIGNAL_WAIT_MS (async-signal-safe). */
static void wait_acked(void)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += SIGNAL_WAIT_MS / 1000;
	end.tv_nsec += (long)(SIGNAL_WAIT_MS % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (!atomic_load(&g_acked)) {
		struct timespec rel;

		clock_gettime(CLOCK_MONOTONIC, &now);
		rel.tv_sec = end.tv_sec - now.tv_sec;
		rel.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (rel.tv_nsec < 0) {
			rel.tv_sec--;
			rel.tv_nsec += 1000000000L;
		}
		if (rel.tv_sec < 0)
			return;
		gp__inj_futex(&g_acked, FUTEX_WAIT, 0, &rel);
	}
}

static void on_signal(int sig)
{
	int saved = errno;

	if (!gp__inj_forked() && g_writer_started && !atomic_exchange(&g_stopping, true)) {
		atomic_store(&gp__inj_live, false);
		atomic_store(&g_req_sig, sig);
		gp__inj_wake();
		wait_acked();
	}
	/* die of it as the program would have (the signal is blocked until we return) */
	sigaction(sig, &g_old_act[sig], NULL);
	raise(sig);
	errno = saved;
}

static void install_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;

		if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue; /* the program handles it (Python's SIGINT): exit runs at_exit */
		g_old_act[sigs[i]] = old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* no fork while the writer starts, nor while it is inside the allocator (core.c) */
static void fork_prepare(void)
{
	pthread_mutex_lock(&g_start_mu);
	while (g_writer_starting && !g_writer_running)
		pthread_cond_wait(&g_writer_cv, &g_start_mu);
	gp__inj_core_lock();
}

static void fork_parent(void)
{
	gp__inj_core_unlock();
	pthread_mutex_unlock(&g_start_mu);
}

static void fork_child(void);

/*
 * From the moment the library is loaded, not only once the capture is open:
 * a child forked while another thread opens the capture, or before it does,
 * is a forked child all the same, and records nothing (docs/cli/gpuprof-run.md).
 */
__attribute__((constructor)) static void on_load(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void fork_child(void)
{
	gp__inj_core_forked(); /* and its lock released */
	pthread_mutex_unlock(&g_start_mu);
}

/* ---- the process record ---- */

static void env_num(FILE *f, const char *key, const char *const *vars, const char **launcher,
                    const char *const *launchers)
{
	for (size_t i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long long n;

		if (!v || !*v)
			continue;
		errno = 0;
		n = strtoll(v, &end, 10);
		if (errno || *end || n < 0)
			continue;
		fprintf(f, ",\"%s\":%lld", key, n);
		if (launcher && !*launcher)
			*launcher = launchers[i];
		return;
	}
	fprintf(f, ",\"%s\":null", key);
}

static void write_meta(struct timespec mono, struct timespec real)
{
	static const char *const rank_vars[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
		                                 "PMI_RANK", NULL };
	static const char *const local_vars[] = { "LOCAL_RANK", "SLURM_LOCALID",
		                                  "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		                                  NULL };
	static const char *const size_vars[] = { "WORLD_SIZE", "SLURM_NTASKS",
		                                 "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL };
	static const char *const launchers[] = { "torchrun", "slurm", "openmpi", "mpich" };
	const char *launcher = "", *tags = getenv("GPUPROF_TAGS"),
	           *start = getenv("GPUPROF_RUN_START_NS");
	char host[256] = "", exe[PATH_MAX], buf[4096], *text = NULL;
	size_t len = 0;
	ssize_t n;
	FILE *f = open_memstream(&text, &len);
	int fd;

	if (!f)
		return;
	gethostname(host, sizeof(host) - 1);
	fprintf(
	    f,
	    "{\"schema\":\"gpuprof.capture/1\",\"gpuprof_version\":\"%s\",\"pid\":%d,\"ppid\":%d",
	    GP_VERSION_STRING, (int)getpid(), (int)getppid());
	fputs(",\"host\":", f);
	json_str(f, host, strlen(host));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	fputs(",\"exe\":", f);
	json_str(f, exe, n > 0 ? (size_t)n : 0);
	fputs(",\"cmdline\":[", f);
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		size_t got = 0;
		bool first = true;

		while (got < sizeof(buf) && (n = read(fd, buf + got, sizeof(buf) - got)) > 0)
			got += (size_t)n;
		close(fd);
		for (size_t i = 0; i < got;) {
			size_t l = strnlen(buf + i, got - i);

			if (!first)
				fputc(',', f);
			first = false;
			json_str(f, buf + i, l);
			i += l + 1;
		}
	}
	fputc(']', f);
	env_num(f, "rank", rank_vars, &launcher, launchers);
	env_num(f, "local_rank", local_vars, NULL, NULL);
	env_num(f, "world_size", size_vars, NULL, NULL);
	fputs(",\"launcher\":", f);
	if (*launcher)
		json_str(f, launcher, strlen(launcher));
	else
		fputs("null", f);
	fputs(",\"tags\":{", f);
	for (const char *p = tags; p && *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));

		if (eq && eq > p) {
			if (p != tags)
				fputc(',', f);
			json_str(f, p, (size_t)(eq - p));
			fputc(':', f);
			json_str(f, eq + 1, (size_t)(end - eq - 1));
		}
		p = nl ? nl + 1 : end;
	}
	fprintf(f, "},\"clock\":{\"mono_ns\":%llu,\"real_ns\":%llu}",
	        (unsigned long long)mono.tv_sec * 1000000000ull + (unsigned long long)mono.tv_nsec,
	        (unsigned long long)real.tv_sec * 1000000000ull + (unsigned long long)real.tv_nsec);
	fprintf(f, ",\"run_start_mono_ns\":%s",
	        start && *start && strspn(start, "0123456789") == strlen(start) ? start : "null");
	/* whether the writer holds the file in a descriptor table of its own (see writer_main) */
	fprintf(f, ",\"fd_table\":\"%s\"", g_private_fds ? "private" : "shared");
	fputc('}', f);
	if (fclose(f) == 0)
		gp__inj_write(GP_CAP_META, text, len, NULL, 0);
	free(text);
}

/* ---- opening ---- */

static unsigned env_uint(const char *name, unsigned def, unsigned lo, unsigned hi)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return def;
	return (unsigned)n;
}

static int open_file(void)
{
	const char *dir = getenv("GPUPROF_CAPTURE_DIR");
	char host[128] = "host", path[PATH_MAX], abs[PATH_MAX];

	if (!dir || !*dir)
		dir = ".";
	/* absolute: the file is opened again by its path when the program took its
	 * descriptor, maybe after a chdir */
	if (realpath(dir, abs))
		dir = abs;
	gethostname(host, sizeof(host) - 1);
	for (char *c = host; *c; c++)
		if (*c == '/')
			*c = '_';
	for (int k = 0; k < 100; k++) {
		int fd, n;

		n = k ? snprintf(path, sizeof(path), "%s/capture-%s-%d-%d%s", dir, host,
		                 (int)getpid(), k, GP_CAP_SUFFIX)
		      : snprintf(path, sizeof(path), "%s/capture-%s-%d%s", dir, host, (int)getpid(),
		                 GP_CAP_SUFFIX);
		if (n < 0 || (size_t)n >= sizeof(path))
			return -1;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			struct stat st;

			/* its identity, checked before every write (capture_fd) */
			if (fstat(fd, &st) != 0) {
				close(fd);
				return -1;
			}
			g_fd_dev = st.st_dev;
			g_fd_ino = st.st_ino;
			memcpy(g_path, path, (size_t)n + 1);
			return g_private_fds ? fd : move_high(fd);
		}
		if (errno != EEXIST) {
			if (g_verbose)
				fprintf(stderr, "gpuprof-inject[%d]: cannot create %s: %s\n",
				        (int)getpid(), path, strerror(errno));
			return -1;
		}
	}
	return -1;
}

/*
 * The TSC as the event clock: x86-64, and the kernel keeps CLOCK_MONOTONIC on
 * it (clocksource "tsc": invariant and synchronised across CPUs, which the
 * kernel checked), unless GPUPROF_INJECT_CLOCK=mono.
 */
static bool tsc_usable(void)
{
#if defined(__x86_64__)
	const char *env = getenv("GPUPROF_INJECT_CLOCK");
	char cs[32] = "";
	ssize_t n;
	int fd;

	if (env && !strcmp(env, "mono"))
		return false;
	fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
	          O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, cs, sizeof(cs) - 1);
	close(fd);
	if (n <= 0)
		return false;
	cs[n] = 0;
	return !strcmp(cs, "tsc\n") || !strcmp(cs, "tsc");
#else
	return false;
#endif
}

static void session_open(void)
{
	struct timespec mono, real;
	sigset_t all, old;
	size_t max_bytes;
	bool created;

	g_verbose = getenv("GPUPROF_INJECT_VERBOSE") != NULL;
	g_shared_fds = getenv("GPUPROF_INJECT_SHARED_FDS") != NULL;
	g_flush_ms = env_uint("GPUPROF_FLUSH_MS", FLUSH_MS_DEFAULT, 10, 60000);
	max_bytes = (size_t)env_uint("GPUPROF_INJECT_MAX_MB", MAX_MB_DEFAULT, 1, 65536) << 20;
	g_pid = getpid();
	/* no event exists yet: the clock is chosen before the writer or any event runs */
	gp__inj_tsc = tsc_usable();
	if (gp__inj_tsc)
		cal_read(&g_cal.tsc, &g_cal.ns);
	pthread_mutex_lock(&g_start_mu);
	g_writer_starting = true;
	pthread_mutex_unlock(&g_start_mu);
	/* the writer starts with every signal blocked: one delivered to it before it blocks
	 * them itself would run on_signal there, which waits for the writer */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	created = pthread_create(&g_writer, NULL, writer_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (created) {
		/* it opens the file, in its own descriptor table */
		pthread_mutex_lock(&g_start_mu);
		while (!g_writer_running)
			pthread_cond_wait(&g_writer_cv, &g_start_mu);
		pthread_mutex_unlock(&g_start_mu);
		if (g_fd < 0) {
			pthread_join(g_writer, NULL);
			return;
		}
		g_writer_started = true;
	} else {
		pthread_mutex_lock(&g_start_mu);
		g_writer_starting = false;
		pthread_cond_broadcast(&g_writer_cv);
		pthread_mutex_unlock(&g_start_mu);
		gp__inj_tsc = false; /* nobody would convert during the run */
		if ((g_fd = open_file()) < 0)
			return;
		write_header();
	}
	gp__inj_core_open(max_bytes, g_verbose);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	write_meta(mono, real);
	gp__inj_win_event(GP_INJ_WIN_INIT, 0, NULL);
	atexit(at_exit);
	install_signals();
	if (created) {
		pthread_mutex_lock(&g_start_mu);
		g_writer_go = true;
		pthread_cond_broadcast(&g_writer_cv);
		pthread_mutex_unlock(&g_start_mu);
	} else {
		gp__inj_warn(0, "no writer thread: records are written at exit only");
	}
	/* unless the writer's first pass already found the file gone */
	if (!atomic_load(&g_fd_dead))
		atomic_store(&gp__inj_live, true);
}

bool gp__inj_session(void)
{
	if (gp__inj_forked())
		return false;
	pthread_once(&g_once, session_open);
	return gp__inj_core_is_open() && !gp__inj_forked() && !atomic_load(&g_stopping) &&
	       !atomic_load(&g_fd_dead);
}

/* ---- the CUDA entry point ---- */

GP_INJ_EXPORT int InitializeInjection(void);

/*
 * Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names
 * this library. @return 1 (success) even when CUPTI cannot be used: the
 * program must run on, and the capture says why it holds no GPU activity.
 */
int InitializeInjection(void)
{
	static pthread_mutex_t once_mu = PTHREAD_MUTEX_INITIALIZER;
	static bool done;

	pthread_mutex_lock(&once_mu);
	if (!done && gp__inj_session()) {
		done = true;
		if (gp__inj_cupti_load() == 0)
			gp__inj_win_event(GP_INJ_WIN_CUDA_READY, 0, NULL);
	}
	pthread_mutex_unlock(&once_mu);
	return 1;
}
