/* SPDX-License-Identifier: MIT */
/*
 * pool.c - gp__pool_run(): threads that take jobs by index from a shared
 * counter under a lock (a job is a file to read and analyse: milliseconds,
 * so the lock costs nothing), joined before it returns.
 */
#include "pool.h"

#include <pthread.h>

#include "error.h"

struct pool {
	size_t n, next;
	void (*fn)(void *arg, size_t i);
	void *arg;
	pthread_mutex_t lock;
};

static void *take(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			break;
		p->fn(p->arg, i);
	}
	return NULL;
}

void gp__pool_run(size_t n, size_t threads, void (*fn)(void *arg, size_t i), void *arg)
{
	struct pool p = { .n = n, .fn = fn, .arg = arg };
	pthread_t *tids = NULL;
	size_t i, started = 0;

	if (threads > n)
		threads = n;
	pthread_mutex_init(&p.lock, NULL);
	if (threads > 1 && (tids = gp__calloc(threads, sizeof(*tids))))
		for (i = 0; i < threads; i++)
			if (pthread_create(&tids[i], NULL, take, &p) == 0)
				started++;
	if (!started)
		take(&p);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	gp__free(tids);
	pthread_mutex_destroy(&p.lock);
}
