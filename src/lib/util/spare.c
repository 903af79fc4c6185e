/* SPDX-License-Identifier: MIT */
/*
 * spare.c - the spare thread; see spare.h.
 */
#include "spare.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "error.h"
#include "spin.h"

struct gp_spare {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* wake or idle changed */
	void (*fn)(void *);
	void *arg;
	bool quit;
	atomic_bool wake; /* a job (or quit) was handed */
	atomic_bool idle; /* the last job returned */
};

static void *spare_main(void *p)
{
	struct gp_spare *s = p;

	for (;;) {
		void (*fn)(void *);
		void *arg;
		bool quit;

		gp__spin_until(&s->wake, GP_SPIN_NS);
		pthread_mutex_lock(&s->mu);
		while (!atomic_load(&s->wake))
			pthread_cond_wait(&s->cv, &s->mu);
		atomic_store(&s->wake, false);
		fn = s->fn;
		arg = s->arg;
		quit = s->quit;
		pthread_mutex_unlock(&s->mu);
		if (quit)
			return NULL;
		fn(arg);
		pthread_mutex_lock(&s->mu);
		atomic_store_explicit(&s->idle, true, memory_order_release);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

struct gp_spare *gp__spare_start(void)
{
	struct gp_spare *s = gp__calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	atomic_init(&s->wake, false);
	atomic_init(&s->idle, true);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->tid, NULL, spare_main, s) == 0)
		return s;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	gp__free(s);
	return NULL;
}

void gp__spare_run(struct gp_spare *s, void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&s->mu);
	s->fn = fn;
	s->arg = arg;
	atomic_store(&s->idle, false);
	atomic_store(&s->wake, true);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void gp__spare_wait(struct gp_spare *s)
{
	gp__spin_until(&s->idle, GP_SPIN_NS);
	pthread_mutex_lock(&s->mu);
	while (!atomic_load(&s->idle))
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

void gp__spare_stop(struct gp_spare *s)
{
	if (!s)
		return;
	gp__spare_wait(s);
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	atomic_store(&s->wake, true);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->tid, NULL);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	gp__free(s);
}
