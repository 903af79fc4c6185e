/* SPDX-License-Identifier: MIT */
/*
 * arena.c - scratch memory carved from a few blocks (arena.h): huge-page
 * mappings from GP_ARENA_HUGE bytes on, malloc below, a malloc per piece
 * under AddressSanitizer.
 */
#include "arena.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "error.h"

#define ALIGN      ((size_t)64)
#define HUGE_PAGE  ((size_t)2 << 20)
#define FIRST_SIZE ((size_t)64 << 10)

struct gp__arena_blk {
	struct gp__arena_blk *next; /* the block made before it */
	char *base;                 /* ALIGN-aligned */
	size_t used, cap;
	void *mem;     /* what to free: the malloc, or the mapping */
	size_t maplen; /* the mapping's length; 0: mem is a malloc */
	char *last;    /* the piece carved last, NULL: none */
};

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) & ~(to - 1);
}

/* a mapping of @p size bytes (a multiple of HUGE_PAGE) on a HUGE_PAGE boundary, advised for THP */
static void *map_huge(size_t size)
{
	char *m, *p;
	size_t head;

	m = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	         0);
	if (m == MAP_FAILED)
		return NULL;
	p = (char *)round_up((uintptr_t)m, HUGE_PAGE);
	head = (size_t)(p - m);
	if (head)
		munmap(m, head);
	munmap(p + size, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, size, MADV_HUGEPAGE); /* EINVAL without THP: 4 KiB pages then */
#endif
	return p;
}

/* a new block with room for @p n bytes at least, made the newest */
static int new_block(struct gp__arena *a, size_t n)
{
	struct gp__arena_blk *b;
	size_t size = a->blk ? a->blk->cap : 0;

	size = size > SIZE_MAX / 4 ? SIZE_MAX / 2 : 2 * size;
	if (size < a->hint)
		size = a->hint;
	if (size < n)
		size = n;
	if (GP_ARENA_EACH_MALLOC)
		size = n;
	if (size > SIZE_MAX - 2 * HUGE_PAGE)
		return gp__error(GP_ENOMEM, "out of memory for scratch space");
	b = gp__malloc(sizeof(*b));
	if (!b)
		return gp__error(GP_ENOMEM, "out of memory for scratch space");
	memset(b, 0, sizeof(*b));
	if (!GP_ARENA_EACH_MALLOC && size >= GP_ARENA_HUGE) {
		size = round_up(size, HUGE_PAGE);
		b->mem = map_huge(size);
		b->maplen = size;
		b->base = b->mem;
	} else {
		b->mem = gp__malloc(size + ALIGN);
		b->base = (char *)round_up((uintptr_t)b->mem, ALIGN);
	}
	if (!b->mem) {
		gp__free(b);
		return gp__error(GP_ENOMEM, "out of memory for scratch space (%zu bytes)", size);
	}
	b->cap = size;
	b->next = a->blk;
	a->blk = b;
	return 0;
}

void gp__arena_init(struct gp__arena *a, size_t hint)
{
	a->blk = NULL;
	a->hint = hint ? hint : FIRST_SIZE;
}

void *gp__arena_alloc(struct gp__arena *a, size_t n)
{
	struct gp__arena_blk *b = a->blk;
	char *p;

	if (n > SIZE_MAX - ALIGN) {
		gp__error(GP_ENOMEM, "out of memory for scratch space");
		return NULL;
	}
	n = round_up(n ? n : 1, ALIGN);
	if (!b || b->cap - b->used < n) {
		if (new_block(a, n))
			return NULL;
		b = a->blk;
	}
	p = b->base + b->used;
	b->used += n;
	b->last = p;
	return p;
}

int gp__arena_grow(struct gp__arena *a, void **p, size_t *cap, size_t need, size_t size)
{
	struct gp__arena_blk *b = a->blk;
	size_t ncap = *cap ? *cap : 16, bytes, at;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return gp__error(GP_ENOMEM, "array size overflow");
		ncap *= 2;
	}
	if (size && ncap > (SIZE_MAX - ALIGN) / size)
		return gp__error(GP_ENOMEM, "array size overflow");
	bytes = round_up(ncap * size, ALIGN);
	/* the block's last piece grows where it is while the block has room */
	if (!GP_ARENA_EACH_MALLOC && b && *p && (char *)*p == b->last) {
		at = (size_t)(b->last - b->base);
		if (b->cap - at >= bytes) {
			b->used = at + bytes;
			*cap = ncap;
			return 0;
		}
	}
	np = gp__arena_alloc(a, bytes);
	if (!np)
		return GP_ENOMEM;
	if (*p && *cap)
		memcpy(np, *p, *cap * size);
	*p = np;
	*cap = ncap;
	return 0;
}

void gp__arena_release(struct gp__arena *a)
{
	struct gp__arena_blk *b = a->blk, *next;

	for (; b; b = next) {
		next = b->next;
		if (b->maplen)
			munmap(b->mem, b->maplen);
		else
			gp__free(b->mem);
		gp__free(b);
	}
	a->blk = NULL;
}
