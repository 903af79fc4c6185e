/* SPDX-License-Identifier: MIT */
/*
 * arena.h - the scratch memory of one analysis: pieces carved from a few
 * large blocks one after the other, all released at once.
 *
 * A block of GP_ARENA_HUGE bytes or more is a mapping of its own, aligned to
 * 2 MiB and advised for transparent huge pages (MADV_HUGEPAGE): a 4 KiB
 * page costs 1.2-3 us to fault in in the VMs measured (the trap and the
 * zeroing), a 2 MiB one ~80 us, so a pass that fills megabytes of fresh
 * buffers pays several times less for its memory (the critical path's
 * window buffers: ~700 page faults per rank before). Where the kernel has
 * no THP the advice fails and the block is an ordinary mapping. Smaller
 * blocks come from malloc: a huge page pays only when most of it is used,
 * and on a 1.8 MB trace the mapping's system calls and first touches cost
 * ~0.5 ms more wall time than they saved. Built with AddressSanitizer,
 * every piece is a malloc of its own, so that its bounds stay checked.
 *
 * Not thread-safe: one arena per analysis and thread.
 */
#ifndef GP_UTIL_ARENA_H
#define GP_UTIL_ARENA_H

#include <stddef.h>

/* 1 under AddressSanitizer: every piece is a malloc of its own */
#if defined(__SANITIZE_ADDRESS__)
#define GP_ARENA_EACH_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GP_ARENA_EACH_MALLOC 1
#endif
#endif
#ifndef GP_ARENA_EACH_MALLOC
#define GP_ARENA_EACH_MALLOC 0
#endif

/* blocks from this size on are huge-page mappings (below: malloc) */
#define GP_ARENA_HUGE ((size_t)4 << 20)

struct gp__arena_blk;

struct gp__arena {
	struct gp__arena_blk *blk; /* the newest block (pieces come from it), NULL: none yet */
	size_t hint;               /* the first block's size at least */
};

/** An empty arena whose first block will hold @p hint bytes at least (0: 64 KiB). */
void gp__arena_init(struct gp__arena *a, size_t hint);

/**
 * @p n bytes (64-byte aligned, not cleared) that live until the arena is
 * released; NULL with the last error set when out of memory.
 */
void *gp__arena_alloc(struct gp__arena *a, size_t n);

/**
 * gp__grow() in the arena: makes room for @p need elements of @p size bytes
 * in *@p p (capacity *@p cap, doubled until it holds them), keeping the
 * first *@p cap elements. The old piece is not reused (unless it was the
 * block's last one, which then grows where it is). 0, or GP_ENOMEM with
 * *@p p and *@p cap unchanged.
 */
int gp__arena_grow(struct gp__arena *a, void **p, size_t *cap, size_t need, size_t size);

/** Frees every block (and so every piece); the arena is empty again, its hint kept. */
void gp__arena_release(struct gp__arena *a);

#endif
