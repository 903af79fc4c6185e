/* SPDX-License-Identifier: MIT */
/*
 * tempfile.c - registered temporary files (git's tempfile.c): the file that
 * util/lockfile.c writes and renames over its target, and the registry that
 * lets a signal handler remove every such file of the process.
 *
 * The registry is a list of blocks of slots: the first is static, the others
 * are allocated when every slot is taken and never freed, so that a handler
 * can walk the list at any moment with atomic loads only: no lock, no
 * allocation. A slot goes FREE -> CLAIMED (owner and path being set) ->
 * PENDING (the file being created) -> LIVE (it exists) -> FREE (renamed or
 * deleted); or from LIVE -> DYING -> DONE -> FREE when a handler removes
 * the file first. Whoever moves a slot out of LIVE owns its path: a handler
 * never reads a path being freed or reused, and its owner never frees a path
 * that a handler is reading.
 *
 * A file is created with every signal blocked on the creating thread, so a
 * handler on that thread never sees it PENDING, and a handler on another
 * thread waits (a bounded time) until it is LIVE or given up: no moment is
 * left when the file exists and no handler would remove it. Each slot keeps
 * the pid that made it, so a forked child, which inherits the registry,
 * leaves its parent's files alone. Names are made here rather than by
 * mkstemp(), to get the mode of any new file (0666 & ~umask, without
 * changing the process-wide umask) and close-on-exec, so that the program
 * of `gpuprof run` inherits no temporary file.
 *
 * Callers: util/lockfile.c only (every file gpuprof replaces goes through
 * it); the CLI's signal handlers call gp_tempfile_cleanup_signal().
 */
#include "tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

#if ATOMIC_INT_LOCK_FREE != 2 || ATOMIC_POINTER_LOCK_FREE != 2
#error "the temporary file registry needs lock-free atomics (it is read by signal handlers)"
#endif

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_PENDING, SLOT_LIVE, SLOT_DYING, SLOT_DONE };

#define SLOTS_PER_BLOCK 16
#define CREATE_TRIES    100
/* how long a handler waits for a file being created on another thread (1 ms steps) */
#define PENDING_WAIT_MS 1000

struct slot {
	atomic_int state;
	atomic_int owner; /* pid; set before PENDING is published */
	const char *path; /* the gp__tempfile's; read by a handler only once it holds DYING */
};

struct block {
	struct slot slot[SLOTS_PER_BLOCK];
	_Atomic(struct block *) next;
};

/* zero is FREE and NULL: a valid state for atomics of static storage (C11 7.17.2) */
static struct block first_block;

struct gp__tempfile {
	struct slot *slot; /* NULL once the file is renamed or removed */
	char *path;        /* the temporary file, .NAME.tmp.XXXXXX */
	int fd;            /* -1 once closed; owned by fp when fp is set */
	FILE *fp;
};

/* Claims a FREE slot (CLAIMED), adding a block when all are taken. */
static int slot_claim(struct slot **out)
{
	struct block *b = &first_block, *next;
	size_t i;

	for (;;) {
		for (i = 0; i < SLOTS_PER_BLOCK; i++) {
			int expected = SLOT_FREE;

			if (atomic_compare_exchange_strong(&b->slot[i].state, &expected,
			                                   SLOT_CLAIMED)) {
				*out = &b->slot[i];
				return 0;
			}
		}
		next = atomic_load(&b->next);
		if (!next) {
			struct block *nb = gp__calloc(1, sizeof(*nb)), *none = NULL;

			if (!nb)
				return gp__error(GP_ENOMEM, "out of memory");
			for (i = 0; i < SLOTS_PER_BLOCK; i++) {
				atomic_init(&nb->slot[i].state, SLOT_FREE);
				atomic_init(&nb->slot[i].owner, 0);
			}
			atomic_init(&nb->next, NULL);
			/* another thread may have added one meanwhile: use that one */
			if (atomic_compare_exchange_strong(&b->next, &none, nb)) {
				next = nb;
			} else {
				gp__free(nb);
				next = none;
			}
		}
		b = next;
	}
}

/* Gives a slot back once its file is renamed or removed. */
static void slot_release(struct slot *s)
{
	int expected = SLOT_LIVE;

	if (atomic_compare_exchange_strong(&s->state, &expected, SLOT_FREE))
		return;
	/* a handler on another thread is removing the file: let it finish with the path */
	while (atomic_load(&s->state) == SLOT_DYING)
		sched_yield();
	atomic_store(&s->state, SLOT_FREE);
}

/* Fills @p x with @p n characters of [A-Za-z0-9], at most 10 */
static void fill_random(char *x, size_t n)
{
	static const char chars[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static atomic_uint_fast64_t counter;
	uint64_t v = 0;
	size_t i;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		v = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)getpid() << 40) ^
		    (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull);
		/* splitmix64's finaliser */
		v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
		v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
		v ^= v >> 31;
	}
	for (i = 0; i < n; i++) {
		x[i] = chars[v % (sizeof(chars) - 1)];
		v /= sizeof(chars) - 1;
	}
}

static void tempfile_free(struct gp__tempfile *t)
{
	if (t->slot)
		slot_release(t->slot);
	gp__free(t->path);
	gp__free(t);
}

int gp__tempfile_create(const char *beside, struct gp__tempfile **out)
{
	struct gp__tempfile *t;
	const char *slash, *base;
	sigset_t all, old;
	size_t dirlen, n;
	int tries, e = 0, rc;
	char *x;

	*out = NULL;
	slash = strrchr(beside, '/');
	base = slash ? slash + 1 : beside;
	if (!*base) {
		errno = EINVAL;
		return gp__error(GP_EINVAL, "cannot write '%s': not a file name", beside);
	}
	dirlen = slash ? (size_t)(slash - beside) + 1 : 0;

	if (!(t = gp__calloc(1, sizeof(*t)))) {
		errno = ENOMEM;
		return gp__error(GP_ENOMEM, "out of memory");
	}
	t->fd = -1;
	n = dirlen + strlen(base) + sizeof("..tmp.XXXXXX");
	if (!(t->path = gp__malloc(n))) {
		e = ENOMEM;
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out_free;
	}
	memcpy(t->path, beside, dirlen);
	snprintf(t->path + dirlen, n - dirlen, ".%s.tmp.XXXXXX", base);
	x = t->path + strlen(t->path) - 6;
	if ((rc = slot_claim(&t->slot))) {
		e = ENOMEM;
		goto out_free;
	}
	atomic_store_explicit(&t->slot->owner, (int)getpid(), memory_order_relaxed);
	t->slot->path = t->path;

	/* no handler on this thread between the file's creation and LIVE */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_store_explicit(&t->slot->state, SLOT_PENDING, memory_order_release);
	for (tries = 0; tries < CREATE_TRIES; tries++) {
		fill_random(x, 6);
		t->fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (t->fd >= 0 || errno != EEXIST)
			break;
	}
	e = errno;
	atomic_store_explicit(&t->slot->state, t->fd >= 0 ? SLOT_LIVE : SLOT_FREE,
	                      memory_order_release);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (t->fd < 0) {
		t->slot = NULL; /* FREE already */
		rc = gp__error(GP_EIO, "cannot create a temporary file next to '%s': %s", beside,
		               strerror(e));
		goto out_free;
	}
	*out = t;
	return 0;

out_free:
	tempfile_free(t);
	errno = e;
	return rc;
}

int gp__tempfile_fd(const struct gp__tempfile *t)
{
	return t->fd;
}

const char *gp__tempfile_path(const struct gp__tempfile *t)
{
	return t->path;
}

int gp__tempfile_stream(struct gp__tempfile *t, FILE **out)
{
	if (!t->fp && !(t->fp = fdopen(t->fd, "w")))
		return errno ? errno : ENOMEM;
	*out = t->fp;
	return 0;
}

int gp__tempfile_close(struct gp__tempfile *t, bool sync)
{
	int e = 0;

	if (t->fp) {
		errno = 0;
		if (sync && (ferror(t->fp) || fflush(t->fp) || fsync(t->fd)))
			e = errno ? errno : EIO;
		if (fclose(t->fp) && !e)
			e = errno ? errno : EIO;
	} else if (t->fd >= 0) {
		if (sync && fsync(t->fd))
			e = errno;
		if (close(t->fd) && !e)
			e = errno;
	}
	t->fp = NULL;
	t->fd = -1;
	return e;
}

int gp__tempfile_rename(struct gp__tempfile *t, const char *target)
{
	int e = 0;

	if (rename(t->path, target)) {
		e = errno;
		unlink(t->path);
	}
	tempfile_free(t);
	return e;
}

void gp__tempfile_delete(struct gp__tempfile *t)
{
	int saved = errno;

	if (!t)
		return;
	gp__tempfile_close(t, false);
	unlink(t->path);
	tempfile_free(t);
	errno = saved;
}

GP_API void gp_tempfile_cleanup_signal(void)
{
	const struct timespec ms = { 0, 1000000 };
	int saved = errno, me = (int)getpid();
	struct block *b;
	size_t i;

	for (b = &first_block; b; b = atomic_load(&b->next)) {
		for (i = 0; i < SLOTS_PER_BLOCK; i++) {
			struct slot *s = &b->slot[i];
			int st = atomic_load(&s->state), expected = SLOT_LIVE, waited;

			if (st != SLOT_PENDING && st != SLOT_LIVE)
				continue;
			if (atomic_load_explicit(&s->owner, memory_order_relaxed) != me)
				continue;
			/* being created on another thread (signals blocked there): soon LIVE */
			for (waited = 0;
			     atomic_load(&s->state) == SLOT_PENDING && waited < PENDING_WAIT_MS;
			     waited++)
				nanosleep(&ms, NULL);
			if (!atomic_compare_exchange_strong(&s->state, &expected, SLOT_DYING))
				continue;
			unlink(s->path);
			atomic_store(&s->state, SLOT_DONE);
		}
	}
	errno = saved;
}
