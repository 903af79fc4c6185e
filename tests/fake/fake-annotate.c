/* SPDX-License-Identifier: MIT */
/*
 * fake-annotate.c - libfake-annotate.so, a recorder for the annotation API
 * (include/gpuprof/annotate.h) that only counts: tests/unit/test_annotate.c
 * points GPUPROF_ANNOTATE_LIBRARY at it and checks that the table is filled
 * and the calls arrive, with their sites and values.
 *
 * FAKE_ANNOTATE_FAIL=1 makes the init refuse (the caller's table must end up
 * empty); FAKE_ANNOTATE_PARTIAL=1 fills push and pop only (frame and counter
 * must become no-ops, not stay init stubs).
 */
#include <stdlib.h>
#include <string.h>

#define GPUPROF_DISABLE /* the types only */
#include "gpuprof/annotate.h"

#define EXPORT __attribute__((visibility("default")))

struct fake_annotate_counts {
	long inits, push, pop, frame, counter;
	double counter_sum;
	const struct gpuprof_site *last_site;
	int depth, max_depth;
};

static struct fake_annotate_counts g_c;

EXPORT const struct fake_annotate_counts *fake_annotate_counts(void);
EXPORT void fake_annotate_reset(void);
EXPORT int gpuprof_annotate_init_v1(struct gpuprof_annotate_table_v1 *t, unsigned long size);

const struct fake_annotate_counts *fake_annotate_counts(void)
{
	return &g_c;
}

void fake_annotate_reset(void)
{
	long inits = g_c.inits;

	memset(&g_c, 0, sizeof(g_c));
	g_c.inits = inits;
}

static void f_push(struct gpuprof_site *s)
{
	g_c.push++;
	g_c.last_site = s;
	s->tool++; /* the recorder's word: the tests see it written */
	if (++g_c.depth > g_c.max_depth)
		g_c.max_depth = g_c.depth;
}

static void f_pop(void)
{
	g_c.pop++;
	g_c.depth--;
}

static void f_frame(struct gpuprof_site *s)
{
	g_c.frame++;
	g_c.last_site = s;
}

static void f_counter(struct gpuprof_site *s, double v)
{
	g_c.counter++;
	g_c.counter_sum += v;
	g_c.last_site = s;
}

int gpuprof_annotate_init_v1(struct gpuprof_annotate_table_v1 *t, unsigned long size)
{
	const char *fail = getenv("FAKE_ANNOTATE_FAIL");
	const char *partial = getenv("FAKE_ANNOTATE_PARTIAL");

	g_c.inits++;
	if (!t || size < sizeof(*t))
		return -1;
	/* a refusing recorder may have scribbled on the table: the caller must clear it */
	t->push = f_push;
	if (fail && !strcmp(fail, "1"))
		return -1;
	t->pop = f_pop;
	if (partial && !strcmp(partial, "1"))
		return 0;
	t->frame = f_frame;
	t->counter = f_counter;
	return 0;
}
