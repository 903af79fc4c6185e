/* SPDX-License-Identifier: MIT */
/*
 * fake-annotate.c - libfake-annotate.so, a recorder for the annotation API
 * (include/gpuprof/annotate.h) that only counts: tests/unit/test_annotate.c
 * points GPUPROF_ANNOTATE_LIBRARY at it and checks that the table is filled
 * and the calls arrive, with their sites and values.
 *
 * FAKE_ANNOTATE_FAIL=1 makes the init refuse (the caller's table must end up
 * empty); FAKE_ANNOTATE_PARTIAL=1 fills push and pop only (frame and counter
 * must become no-ops, not stay init stubs); FAKE_ANNOTATE_OLD=1 acts as a
 * recorder built before the names by value: it fills the first four entries
 * only (the by-value calls must become no-ops).
 */
#include <stddef.h>
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
	/* the names by value (appended: the tests' mirrors of the fields above stay right) */
	long push_str, frame_str, counter_str;
	char last_name[64]; /* the last name by value, NUL-ended (cut) */
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

static void last_name(const char *name, unsigned long len)
{
	size_t n = len < sizeof(g_c.last_name) - 1 ? (size_t)len : sizeof(g_c.last_name) - 1;

	memcpy(g_c.last_name, name, n);
	g_c.last_name[n] = '\0';
}

static void f_push_str(const char *name, unsigned long len)
{
	g_c.push_str++;
	last_name(name, len);
	if (++g_c.depth > g_c.max_depth)
		g_c.max_depth = g_c.depth;
}

static void f_frame_str(const char *name, unsigned long len)
{
	g_c.frame_str++;
	last_name(name, len);
}

static void f_counter_str(const char *name, unsigned long len, double v)
{
	g_c.counter_str++;
	g_c.counter_sum += v;
	last_name(name, len);
}

int gpuprof_annotate_init_v1(struct gpuprof_annotate_table_v1 *t, unsigned long size)
{
	const char *fail = getenv("FAKE_ANNOTATE_FAIL");
	const char *partial = getenv("FAKE_ANNOTATE_PARTIAL");
	const char *old = getenv("FAKE_ANNOTATE_OLD");

	g_c.inits++;
	/* the four entries of the first version at least */
	if (!t || size < offsetof(struct gpuprof_annotate_table_v1, counter) + sizeof(t->counter))
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
	if ((old && !strcmp(old, "1")) || size < sizeof(*t))
		return 0;
	t->push_str = f_push_str;
	t->frame_str = f_frame_str;
	t->counter_str = f_counter_str;
	return 0;
}
