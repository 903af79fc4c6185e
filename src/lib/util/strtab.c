/* SPDX-License-Identifier: MIT */
/*
 * strtab.c - string interning and a uint64 hash map; see strtab.h.
 */
#include "strtab.h"

#include <string.h>

#include "error.h"

#define BLOCK_SIZE (256u * 1024u)

uint64_t gp__hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ (n * 0x9e3779b97f4a7c15ULL);
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x100000001b3ULL;
	return gp_hash_u64(h);
}

static int rehash(struct gp_strtab *t, size_t nslot)
{
	uint32_t *slot = gp__calloc(nslot, sizeof(*slot));
	uint32_t *hs = gp__calloc(nslot, sizeof(*hs));
	size_t i, mask = nslot - 1;

	if (!slot || !hs) {
		gp__free(slot);
		gp__free(hs);
		return gp__error(GP_ENOMEM, "out of memory growing the string table");
	}
	for (i = 0; i < t->nslot; i++) {
		size_t j;

		if (!t->slot[i])
			continue;
		j = t->slot_hash[i] & mask;
		while (slot[j])
			j = (j + 1) & mask;
		slot[j] = t->slot[i];
		hs[j] = t->slot_hash[i];
	}
	gp__free(t->slot);
	gp__free(t->slot_hash);
	t->slot = slot;
	t->slot_hash = hs;
	t->nslot = nslot;
	return 0;
}

static char *arena_alloc(struct gp_strtab *t, size_t n)
{
	char *p;

	if (n > t->cur_left) {
		size_t sz = n > BLOCK_SIZE ? n : BLOCK_SIZE;

		if (gp__grow((void **)&t->blocks, &t->blocks_cap, t->nblocks + 1,
		             sizeof(*t->blocks)))
			return NULL;
		p = gp__malloc(sz);
		if (!p)
			return NULL;
		t->blocks[t->nblocks++] = p;
		t->cur = p;
		t->cur_left = sz;
	}
	p = t->cur;
	t->cur += n;
	t->cur_left -= n;
	return p;
}

int gp__strtab_init(struct gp_strtab *t)
{
	uint32_t id;
	int rc;

	memset(t, 0, sizeof(*t));
	if (rehash(t, 1024))
		return GP_ENOMEM;
	if ((rc = gp__strtab_intern(t, "", 0, &id)))
		gp__strtab_release(t);
	return rc;
}

void gp__strtab_release(struct gp_strtab *t)
{
	size_t i;

	for (i = 0; i < t->nblocks; i++)
		gp__free(t->blocks[i]);
	gp__free(t->blocks);
	gp__free(t->str);
	gp__free(t->len);
	gp__free(t->slot);
	gp__free(t->slot_hash);
	memset(t, 0, sizeof(*t));
}

static size_t lookup(const struct gp_strtab *t, const char *s, size_t len, uint32_t h)
{
	size_t mask = t->nslot - 1, j = h & mask;

	while (t->slot[j]) {
		uint32_t id = t->slot[j] - 1;

		if (t->slot_hash[j] == h && t->len[id] == len && memcmp(t->str[id], s, len) == 0)
			return j;
		j = (j + 1) & mask;
	}
	return j;
}

uint32_t gp__strtab_find(const struct gp_strtab *t, const char *s, size_t len)
{
	uint32_t h = (uint32_t)gp__hash_bytes(s, len);
	size_t j;

	if (!t->nslot)
		return UINT32_MAX;
	j = lookup(t, s, len, h);
	return t->slot[j] ? t->slot[j] - 1 : UINT32_MAX;
}

int gp__strtab_intern(struct gp_strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint32_t h = (uint32_t)gp__hash_bytes(s, len);
	size_t j = lookup(t, s, len, h);
	char *p;
	int rc;

	if (t->slot[j]) {
		*id = t->slot[j] - 1;
		return 0;
	}
	if (len >= UINT32_MAX || t->n >= UINT32_MAX - 1)
		return gp__error(GP_ELIMIT, "string table full");
	if ((t->n + 1) * 2 > t->nslot) {
		if ((rc = rehash(t, t->nslot * 2)))
			return rc;
		j = lookup(t, s, len, h);
	}
	if (t->n + 1 > t->cap) {
		size_t cap = t->cap;

		if ((rc = gp__grow((void **)&t->str, &cap, t->n + 1, sizeof(*t->str))))
			return rc;
		cap = t->cap;
		if ((rc = gp__grow((void **)&t->len, &cap, t->n + 1, sizeof(*t->len))))
			return rc;
		t->cap = cap;
	}
	p = arena_alloc(t, len + 1);
	if (!p)
		return gp__error(GP_ENOMEM, "out of memory interning a string");
	memcpy(p, s, len);
	p[len] = '\0';
	t->str[t->n] = p;
	t->len[t->n] = (uint32_t)len;
	t->slot[j] = (uint32_t)t->n + 1;
	t->slot_hash[j] = h;
	t->bytes += len;
	*id = (uint32_t)t->n++;
	return 0;
}

const char *gp__strtab_get(const struct gp_strtab *t, uint32_t id)
{
	return id < t->n ? t->str[id] : "";
}

uint32_t gp__strtab_strlen(const struct gp_strtab *t, uint32_t id)
{
	return id < t->n ? t->len[id] : 0;
}

int gp__u64map_init(struct gp_u64map *m, size_t expect)
{
	size_t nslot = 64;

	memset(m, 0, sizeof(*m));
	while (nslot < expect * 2)
		nslot *= 2;
	m->keys = gp__calloc(nslot, sizeof(*m->keys));
	m->vals = gp__calloc(nslot, sizeof(*m->vals));
	m->used = gp__calloc(nslot, 1);
	if (!m->keys || !m->vals || !m->used) {
		gp__u64map_release(m);
		return gp__error(GP_ENOMEM, "out of memory for a hash map");
	}
	m->nslot = nslot;
	return 0;
}

void gp__u64map_release(struct gp_u64map *m)
{
	gp__free(m->keys);
	gp__free(m->vals);
	gp__free(m->used);
	memset(m, 0, sizeof(*m));
}

static size_t map_slot(const struct gp_u64map *m, uint64_t key)
{
	size_t mask = m->nslot - 1, j = gp_hash_u64(key) & mask;

	while (m->used[j] && m->keys[j] != key)
		j = (j + 1) & mask;
	return j;
}

static int map_grow(struct gp_u64map *m)
{
	struct gp_u64map nm;
	size_t i;
	int rc;

	if ((rc = gp__u64map_init(&nm, m->nslot)))
		return rc;
	for (i = 0; i < m->nslot; i++) {
		if (m->used[i]) {
			size_t j = map_slot(&nm, m->keys[i]);

			nm.used[j] = 1;
			nm.keys[j] = m->keys[i];
			nm.vals[j] = m->vals[i];
			nm.n++;
		}
	}
	gp__u64map_release(m);
	*m = nm;
	return 0;
}

int gp__u64map_put_new(struct gp_u64map *m, uint64_t key, uint64_t val, uint64_t *existing)
{
	size_t j;
	int rc;

	if (!m->nslot && (rc = gp__u64map_init(m, 16)))
		return rc;
	if ((m->n + 1) * 2 > m->nslot && (rc = map_grow(m)))
		return rc;
	j = map_slot(m, key);
	if (m->used[j]) {
		if (existing)
			*existing = m->vals[j];
		return 0;
	}
	m->used[j] = 1;
	m->keys[j] = key;
	m->vals[j] = val;
	m->n++;
	if (existing)
		*existing = val;
	return 0;
}

int gp__u64map_put(struct gp_u64map *m, uint64_t key, uint64_t val)
{
	size_t j;
	int rc;

	if ((rc = gp__u64map_put_new(m, key, val, NULL)))
		return rc;
	j = map_slot(m, key);
	m->vals[j] = val;
	return 0;
}

int gp__u64map_get(const struct gp_u64map *m, uint64_t key, uint64_t *val)
{
	size_t j;

	if (!m->nslot)
		return 0;
	j = map_slot(m, key);
	if (!m->used[j])
		return 0;
	if (val)
		*val = m->vals[j];
	return 1;
}
