/* SPDX-License-Identifier: MIT */
/*
 * strtab.h - string interning: each distinct string is stored once and named
 * by a dense uint32_t id. Id 0 is always the empty string.
 *
 * Strings live in large arena blocks that never move, so a returned pointer
 * stays valid until gp__strtab_release(). Lookups hash with a 64-bit FNV-1a
 * variant over 8-byte words; the table is open-addressed and kept under 50 % load.
 */
#ifndef GP_UTIL_STRTAB_H
#define GP_UTIL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct gp_strtab {
	/* id -> string */
	const char **str;
	uint32_t *len;
	size_t n, cap;
	/* hash slots: id+1, 0 = empty */
	uint32_t *slot;
	uint32_t *slot_hash;
	size_t nslot;
	/* arena */
	char **blocks;
	size_t nblocks, blocks_cap;
	char *cur;
	size_t cur_left;
	size_t bytes; /* total string bytes stored */
};

/** Initialises an empty table holding "" as id 0. */
int gp__strtab_init(struct gp_strtab *t);
void gp__strtab_release(struct gp_strtab *t);
/** Interns @p len bytes at @p s (need not be NUL-terminated); stores the id. */
int gp__strtab_intern(struct gp_strtab *t, const char *s, size_t len, uint32_t *id);
/** @return the id of @p s if present, UINT32_MAX otherwise. */
uint32_t gp__strtab_find(const struct gp_strtab *t, const char *s, size_t len);
/** @return the NUL-terminated string of @p id ("" if out of range). */
const char *gp__strtab_get(const struct gp_strtab *t, uint32_t id);
uint32_t gp__strtab_strlen(const struct gp_strtab *t, uint32_t id);
static inline size_t gp__strtab_count(const struct gp_strtab *t)
{
	return t->n;
}

/* A map from uint64 keys to uint64 values (open addressing, no deletion). */
struct gp_u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t n, nslot;
};

int gp__u64map_init(struct gp_u64map *m, size_t expect);
void gp__u64map_release(struct gp_u64map *m);
/** Inserts or replaces. */
int gp__u64map_put(struct gp_u64map *m, uint64_t key, uint64_t val);
/** Inserts only if absent; *existing (may be NULL) receives the value kept. */
int gp__u64map_put_new(struct gp_u64map *m, uint64_t key, uint64_t val, uint64_t *existing);
/** @return 1 and the value if present, 0 otherwise. */
int gp__u64map_get(const struct gp_u64map *m, uint64_t key, uint64_t *val);

static inline uint64_t gp_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t gp__hash_bytes(const void *p, size_t n);

#endif
