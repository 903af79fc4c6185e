/* SPDX-License-Identifier: MIT */
/*
 * prom.c - `gpuprof top --listen ADDR:PORT` and `--textfile DIR`: the
 * sampler's newest sample, rendered by the library (gp_sample_to_prom(), the
 * Prometheus text exposition format 0.0.4) with the labels read here (the
 * host name, and the rank, local rank and job a launcher set in the
 * environment), served over HTTP or written to a file.
 *
 * HTTP is libmicrohttpd's, on its own internal thread with an event loop.
 * The library is loaded with dlopen when --listen asks for it (its header
 * gives the types), so no other command pays for it and its TLS stack at
 * start-up (about 2.5 ms and 2.7 MB here). The loader is this file's own
 * (mhd_load(): a table of seven symbols): this is its only user, and a
 * general dlopen helper is no part of libgpuprof's public API. A build
 * without the header keeps --listen listed and says why it cannot serve. A scrape copies the newest
 * sample under the sampler's lock and renders it, so a slow or malformed client never touches the
 * sampling thread, and concurrent scrapes each render their own copy. The textfile writer is a
 * thread that rewrites DIR/gpuprof.prom per sample with the library's atomic writer
 * (gp_file_write_atomic()), so node_exporter never reads half a file.
 *
 * Clients are hostile until they have sent a request. libmicrohttpd 0.9.75
 * has a total connection limit, a per-address one, and an idle timeout that
 * restarts on every byte received, but nothing that bounds the time a request
 * takes: 64 connections trickling a byte a second would hold every slot
 * forever. So the guard below tracks each connection through libmicrohttpd's
 * notifications (started, request answered, closed) and gives it
 * --listen-timeout seconds from its accept, or from its previous answer, to
 * get a request answered; a reaper thread shuts down the socket of one that
 * runs over, and libmicrohttpd, reading end-of-file, closes it itself (the
 * socket stays its own: shutdown() only, under a lock the close notification
 * also takes, so the descriptor cannot have been reused). When every slot is
 * taken the oldest connection is shut down, so a scrape always gets in.
 * libmicrohttpd's messages about clients are counted (a metric and one line at
 * exit), never printed one by one, so bad clients cannot flood standard error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof-config.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/sample.h"
#include "top.h"

#if GP_HAVE_MHD
#include <dlfcn.h>
#include <microhttpd.h>
#endif

#if GP_HAVE_MHD
/* One connection libmicrohttpd accepted; a free slot has c == NULL. */
struct conn {
	struct MHD_Connection *c;
	int fd;              /* libmicrohttpd's socket: shut down here, never closed */
	int64_t deadline_ns; /* its current request must be answered by then */
	bool idle;           /* kept alive after an answer, no new request answered yet */
	bool closing;        /* shut down here, not yet closed by libmicrohttpd */
};

/* The connections' bookkeeping, shared by libmicrohttpd's thread and the reaper. */
struct http_guard {
	pthread_mutex_t lock; /* conns, nconns, nclosing, stop, first_error */
	pthread_cond_t wake;  /* on CLOCK_MONOTONIC: a new connection, or stop */
	struct conn conns[GP_LISTEN_MAX_CONNECTIONS];
	unsigned nconns, nclosing;
	int64_t timeout_ns;
	bool stop, lock_ok, wake_ok, reaper;
	pthread_t tid;
	atomic_bool serving; /* started: libmicrohttpd's messages are about clients */
	atomic_uint_least64_t errors, timed_out, evicted, idle;
	char first_error[160]; /* the first message about a client, made printable */
	char start_error[160]; /* the first message while starting */
};
#endif

struct gp_prom {
	struct gp_sampler *s;
	char hostname[256];
	struct gp_prom_opts labels; /* hostname, and the launcher's from the environment */
#if GP_HAVE_MHD
	struct MHD_Daemon *d;
	void *mhd_lib; /* dlopen's handle of libmicrohttpd, NULL when not loaded */
	struct http_guard g;
#endif
	const char *textfile;
	pthread_t tid;
	bool writer;
	atomic_bool stop;
};

/* ---- the textfile writer ---- */

static int write_textfile(struct gp_prom *p, const struct gp_sample *s)
{
	char path[4096];
	size_t len = 0;
	char *text;
	int rc, e;

	if (gp_sample_to_prom(s, &p->labels, &text, &len))
		return -1;
	snprintf(path, sizeof(path), "%s/gpuprof.prom", p->textfile);
	rc = gp_file_write_atomic(path, text, len);
	e = errno;
	gp_free(text);
	errno = e;
	return rc;
}

static void *writer_main(void *arg)
{
	struct gp_prom *p = arg;
	struct gp_sample *s = malloc(sizeof(*s));
	uint64_t seq = 0;
	bool warned = false;

	if (!s)
		return NULL;
	while (!p->stop) {
		if (gp_sampler_wait(p->s, seq, 200, s))
			continue;
		seq = s->seq;
		if (write_textfile(p, s) && !warned) {
			warning("cannot write '%s/gpuprof.prom': %s", p->textfile, strerror(errno));
			warned = true;
		}
	}
	free(s);
	return NULL;
}

/* ---- HTTP ---- */

#if GP_HAVE_MHD
/* libmicrohttpd's functions, typed by its header, resolved by mhd_load() */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_get_connection_info) *get_connection_info;
} mhd;

/*
 * Loads libmicrohttpd (its soname, then the development link) and fills mhd;
 * every symbol is required. @return the handle, or NULL with why in @p why.
 */
static void *mhd_load(char *why, size_t n)
{
	static const char *const libs[] = { "libmicrohttpd.so.12", "libmicrohttpd.so" };
	const struct {
		const char *name;
		void **slot;
	} syms[] = {
		{ "MHD_start_daemon", (void **)&mhd.start_daemon },
		{ "MHD_stop_daemon", (void **)&mhd.stop_daemon },
		{ "MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer },
		{ "MHD_add_response_header", (void **)&mhd.add_response_header },
		{ "MHD_queue_response", (void **)&mhd.queue_response },
		{ "MHD_destroy_response", (void **)&mhd.destroy_response },
		{ "MHD_get_connection_info", (void **)&mhd.get_connection_info },
	};
	const char *lib = libs[0];
	void *h = NULL;

	snprintf(why, n, "cannot load %s", lib);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !h; i++) {
		const char *e;

		lib = libs[i];
		if ((h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)))
			break;
		if (i == 0 && (e = dlerror()))
			snprintf(why, n, "cannot load %s", e);
	}
	for (size_t i = 0; h && i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
			snprintf(why, n, "%s: required symbol %s not found", lib, syms[i].name);
			dlclose(h);
			h = NULL;
		}
	}
	return h;
}

/* -- the connection guard (see the top of the file) -- */

/* Shuts a connection's socket down; libmicrohttpd sees end-of-file and closes it. */
static void conn_shut(struct http_guard *g, struct conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->closing = true;
	g->nclosing++;
}

/* When every slot is taken: shuts down the oldest connection but @p keep. */
static void evict_oldest(struct http_guard *g, const struct conn *keep)
{
	struct conn *old = NULL;

	for (size_t i = 0; i < GP_LISTEN_MAX_CONNECTIONS; i++) {
		struct conn *k = &g->conns[i];

		if (k->c && !k->closing && k != keep && (!old || k->deadline_ns < old->deadline_ns))
			old = k;
	}
	if (old) {
		conn_shut(g, old);
		atomic_fetch_add(&g->evicted, 1);
	}
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection accepted or closed (libmicrohttpd's thread) */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
                          enum MHD_ConnectionNotificationCode toe)
{
	struct http_guard *g = &((struct gp_prom *)cls)->g;
	struct conn *k = *ctx;

	pthread_mutex_lock(&g->lock);
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED && k) {
		/* before libmicrohttpd closes the socket: the reaper cannot touch it after */
		if (k->closing)
			g->nclosing--;
		g->nconns--;
		memset(k, 0, sizeof(*k));
		*ctx = NULL;
	} else if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		for (size_t i = 0; ci && !k && i < GP_LISTEN_MAX_CONNECTIONS; i++)
			if (!g->conns[i].c)
				k = &g->conns[i];
		if (k) {
			k->c = c;
			k->fd = ci->connect_fd;
			k->deadline_ns = gp_top_mono_ns() + g->timeout_ns;
			k->idle = k->closing = false;
			g->nconns++;
			*ctx = k;
			if (g->nconns - g->nclosing >= GP_LISTEN_MAX_CONNECTIONS)
				evict_oldest(g, k);
			pthread_cond_signal(&g->wake);
		} else if (ci) {
			/* cannot happen: there are as many slots as libmicrohttpd's limit */
			shutdown(ci->connect_fd, SHUT_RDWR);
		}
	}
	pthread_mutex_unlock(&g->lock);
}

/*
 * MHD_OPTION_NOTIFY_COMPLETED: a request answered; a kept-alive connection
 * starts anew. (libmicrohttpd 0.9.75 closes every connection after its answer,
 * as handle() queues it on its first call; later versions may keep it alive.)
 */
static void on_completed(void *cls, struct MHD_Connection *c, void **req,
                         enum MHD_RequestTerminationCode toe)
{
	struct http_guard *g = &((struct gp_prom *)cls)->g;
	const union MHD_ConnectionInfo *ci =
	    mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ci ? ci->socket_context : NULL;

	(void)req;
	(void)toe;
	if (!k)
		return;
	pthread_mutex_lock(&g->lock);
	if (k->c == c && !k->closing) {
		k->deadline_ns = gp_top_mono_ns() + g->timeout_ns;
		k->idle = true;
	}
	pthread_mutex_unlock(&g->lock);
}

/*
 * Shuts down the connections past their deadline, sleeping until the next one.
 * A kept-alive connection counts as idle (the normal end of one that a scraper
 * keeps between scrapes), although it may be trickling its next request: no
 * notification tells the two apart, and either way it is closed in time.
 */
static void *reaper_main(void *arg)
{
	struct http_guard *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		int64_t now = gp_top_mono_ns(), next = INT64_MAX;

		for (size_t i = 0; i < GP_LISTEN_MAX_CONNECTIONS; i++) {
			struct conn *k = &g->conns[i];

			if (!k->c || k->closing)
				continue;
			if (k->deadline_ns <= now) {
				conn_shut(g, k);
				atomic_fetch_add(k->idle ? &g->idle : &g->timed_out, 1);
			} else if (k->deadline_ns < next) {
				next = k->deadline_ns;
			}
		}
		if (next == INT64_MAX) {
			pthread_cond_wait(&g->wake, &g->lock);
		} else {
			struct timespec ts = { (time_t)(next / 1000000000LL),
				               (long)(next % 1000000000LL) };

			pthread_cond_timedwait(&g->wake, &g->lock, &ts);
		}
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/*
 * MHD_OPTION_EXTERNAL_LOGGER. While starting, the first message is kept for
 * the error; once serving, every message is about a client: counted, and the
 * first kept (made printable: it may quote the client's URL) for the summary.
 */
static void on_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct http_guard *g = &((struct gp_prom *)cls)->g;
	bool serving = atomic_load(&g->serving);
	char *dst = serving ? g->first_error : g->start_error;
	size_t n = sizeof(g->first_error);

	if (serving && atomic_fetch_add(&g->errors, 1) != 0)
		return;
	pthread_mutex_lock(&g->lock);
	if (!dst[0]) {
		size_t len;

		vsnprintf(dst, n, fmt, ap);
		len = strlen(dst);
		while (len && (dst[len - 1] == '\n' || dst[len - 1] == ' '))
			dst[--len] = 0;
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] >= 0x7f)
				dst[i] = '?';
	}
	pthread_mutex_unlock(&g->lock);
}

/* @return 0, or the pthread error number */
static int guard_init(struct http_guard *g, uint32_t timeout_s)
{
	pthread_condattr_t ca;
	int rc;

	memset(g, 0, sizeof(*g));
	g->timeout_ns = (int64_t)timeout_s * 1000000000LL;
	if ((rc = pthread_mutex_init(&g->lock, NULL)))
		return rc;
	g->lock_ok = true;
	if ((rc = pthread_condattr_init(&ca)))
		return rc;
	if (!(rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)))
		rc = pthread_cond_init(&g->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		return rc;
	g->wake_ok = true;
	return 0;
}

/* Stops the reaper; the lock stays for libmicrohttpd's close notifications. */
static void guard_stop(struct http_guard *g)
{
	if (!g->reaper)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->tid, NULL);
	g->reaper = false;
}

static void guard_release(struct http_guard *g)
{
	guard_stop(g);
	if (g->wake_ok)
		pthread_cond_destroy(&g->wake);
	if (g->lock_ok)
		pthread_mutex_destroy(&g->lock);
	g->wake_ok = g->lock_ok = false;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, "Content-Type", type);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req)
{
	static char not_found[] = "not found: try /metrics\n";
	static char not_allowed[] = "method not allowed\n";
	static char index[] = "gpuprof top: metrics at /metrics\n";
	static char unavailable[] = "no sample yet\n";
	struct gp_prom *p = cls;
	struct gp_prom_http_stats hc;
	struct gp_prom_opts po;
	enum MHD_Result ret;
	struct gp_sample *s;
	char *text;
	size_t len = 0;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		*upload_size = 0; /* a body is ignored */
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
		             sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, "/") == 0)
		return reply(c, MHD_HTTP_OK, "text/plain", index, sizeof(index) - 1,
		             MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, sizeof(not_found) - 1,
		             MHD_RESPMEM_PERSISTENT);
	s = malloc(sizeof(*s));
	if (!s || gp_sampler_latest(p->s, s)) {
		free(s);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", unavailable,
		             sizeof(unavailable) - 1, MHD_RESPMEM_PERSISTENT);
	}
	hc.client_errors = atomic_load(&p->g.errors);
	hc.timed_out = atomic_load(&p->g.timed_out);
	hc.evicted = atomic_load(&p->g.evicted);
	hc.idle = atomic_load(&p->g.idle);
	po = p->labels;
	po.http = &hc;
	if (gp_sample_to_prom(s, &po, &text, &len)) {
		free(s);
		return MHD_NO;
	}
	free(s);
	/* copied: the text is the library's, freed by gp_free(), not by libmicrohttpd */
	ret = reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text, len,
	            MHD_RESPMEM_MUST_COPY);
	gp_free(text);
	return ret;
}

/* "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (loopback) into @p ss */
static int parse_listen(const char *spec, struct sockaddr_storage *ss)
{
	char host[256] = "127.0.0.1";
	const char *port = spec, *colon;
	char *end;
	long v;

	memset(ss, 0, sizeof(*ss));
	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host))
			return -1;
		memcpy(host, spec + 1, (size_t)(rb - spec - 1));
		host[rb - spec - 1] = 0;
		port = rb + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if ((size_t)(colon - spec) >= sizeof(host))
			return -1;
		if (colon != spec) {
			memcpy(host, spec, (size_t)(colon - spec));
			host[colon - spec] = 0;
		}
		port = colon + 1;
	}
	errno = 0;
	v = strtol(port, &end, 10);
	if (errno || end == port || *end || v < 1 || v > 65535)
		return -1;
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)v);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)v);
		if (strcmp(host, "localhost") == 0)
			snprintf(host, sizeof(host), "127.0.0.1");
		return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
	}
}

/* "127.0.0.1:9400" or "[::1]:9400" from a parsed address */
static void format_addr(const struct sockaddr_storage *ss, char *dst, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(dst, n, "[%s]:%u", host, (unsigned)ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(dst, n, "%s:%u", host, (unsigned)ntohs(a->sin_port));
	}
}

/*
 * Loads libmicrohttpd and starts the daemon on @p ss (parse_listen()) and the
 * reaper. @return 0 or error(); gp_prom_stop() undoes what was done.
 */
static int listen_start(struct gp_prom *p, const struct gp_top_opts *o,
                        const struct sockaddr_storage *ss)
{
	struct http_guard *g = &p->g;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	char addr[INET6_ADDRSTRLEN + 8], why[512];
	int e;

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (!(p->mhd_lib = mhd_load(why, sizeof(why))))
		return error("--listen needs libmicrohttpd at run time (Debian: libmicrohttpd12): "
		             "%s; --textfile works without it",
		             why);
	if ((e = guard_init(g, o->listen_timeout_s)))
		return error("cannot start the HTTP endpoint: %s", strerror(e));
	/*
	 * The logger first, so that nothing goes to libmicrohttpd's own (stderr).
	 * Its idle timeout is a backstop a second after the reaper's deadline.
	 */
	errno = 0;
	p->d = mhd.start_daemon(
	    flags, 0, NULL, NULL, handle, p, MHD_OPTION_EXTERNAL_LOGGER, (MHD_LogCallback)on_log, p,
	    MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned)o->listen_timeout_s + 1, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)GP_LISTEN_MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned)o->listen_per_address, MHD_OPTION_NOTIFY_CONNECTION,
	    (MHD_NotifyConnectionCallback)on_connection, p, MHD_OPTION_NOTIFY_COMPLETED,
	    (MHD_RequestCompletedCallback)on_completed, p, MHD_OPTION_END);
	if (!p->d) {
		e = errno;
		return error("cannot listen on '%s': %s", o->listen,
		             e                   ? strerror(e)
		             : g->start_error[0] ? g->start_error
		                                 : "libmicrohttpd failed to start");
	}
	atomic_store(&g->serving, true);
	if (g->start_error[0])
		warning("libmicrohttpd: %s", g->start_error);
	if ((e = pthread_create(&g->tid, NULL, reaper_main, g)))
		return error("cannot start the HTTP endpoint: %s", strerror(e));
	g->reaper = true;
	format_addr(ss, addr, sizeof(addr));
	fprintf(stderr, "gpuprof top: serving Prometheus metrics on http://%s/metrics\n", addr);
	return 0;
}

/* Stops serving; one line on standard error sums up what clients did wrong. */
static void listen_stop(struct gp_prom *p)
{
	struct http_guard *g = &p->g;
	unsigned long long errors, closed;

	guard_stop(g);
	if (p->d)
		mhd.stop_daemon(p->d);
	p->d = NULL;
	errors = atomic_load(&g->errors);
	closed = atomic_load(&g->timed_out) + atomic_load(&g->evicted);
	if (errors || closed)
		fprintf(
		    stderr,
		    "gpuprof top: HTTP: %llu client error%s, %llu slow connection%s closed%s%s%s\n",
		    errors, errors == 1 ? "" : "s", closed, closed == 1 ? "" : "s",
		    g->first_error[0] ? " (the first error: " : "", g->first_error,
		    g->first_error[0] ? ")" : "");
	guard_release(g);
	if (p->mhd_lib)
		dlclose(p->mhd_lib);
	p->mhd_lib = NULL;
}
#endif

/* The first of @p vars set (and not empty) in the environment, NULL if none. */
static const char *first_env(const char *const *vars)
{
	for (size_t i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return v;
	}
	return NULL;
}

/* Hostname, and rank, local_rank and job from the launcher's environment. */
static void labels_init(struct gp_prom *p)
{
	static const char *const rank[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
		                            "PMI_RANK", NULL };
	static const char *const local[] = { "LOCAL_RANK", "SLURM_LOCALID",
		                             "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		                             NULL };
	static const char *const job[] = { "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID", "LSB_JOBID",
		                           "PBS_JOBID", NULL };

	gethostname(p->hostname, sizeof(p->hostname) - 1);
	p->labels.size = sizeof(p->labels);
	p->labels.hostname = p->hostname;
	p->labels.rank = first_env(rank);
	p->labels.local_rank = first_env(local);
	p->labels.job = first_env(job);
}

int gp_prom_start(struct gp_prom **out, struct gp_sampler *s, const struct gp_top_opts *o)
{
	struct gp_prom *p;
#if GP_HAVE_MHD
	struct sockaddr_storage ss;

	if (o->listen && parse_listen(o->listen, &ss))
		usage_die("option '--listen' expects HOST:PORT (e.g. 127.0.0.1:9400), not '%s'",
		          o->listen);
#endif
	p = xcalloc(1, sizeof(*p));
	*out = NULL;
	p->s = s;
	labels_init(p);
	if (o->listen) {
#if GP_HAVE_MHD
		if (listen_start(p, o, &ss)) {
			gp_prom_stop(p);
			return -1;
		}
#else
		free(p);
		return error("--listen is not available: this gpuprof was built without "
		             "libmicrohttpd (install libmicrohttpd-dev and rebuild); "
		             "--textfile works without it");
#endif
	}
	if (o->textfile) {
		p->textfile = o->textfile;
		if (access(o->textfile, W_OK)) {
			int e = errno;

			gp_prom_stop(p);
			return error("cannot write to '%s': %s", o->textfile, strerror(e));
		}
		if (pthread_create(&p->tid, NULL, writer_main, p)) {
			gp_prom_stop(p);
			return error("cannot start the textfile writer");
		}
		p->writer = true;
	}
	*out = p;
	return 0;
}

int gp_prom_wait(struct gp_prom *p, const struct gp_top_opts *o)
{
	int64_t start = gp_top_mono_ns();
	struct timespec ts;

	(void)p;
	while (!gp_top_should_stop(o, 0, start)) {
		ts.tv_sec = 0;
		ts.tv_nsec = 100 * 1000000L;
		nanosleep(&ts, NULL);
	}
	return 0;
}

void gp_prom_stop(struct gp_prom *p)
{
	if (!p)
		return;
	p->stop = true;
	if (p->writer)
		pthread_join(p->tid, NULL);
#if GP_HAVE_MHD
	listen_stop(p);
#endif
	free(p);
}
