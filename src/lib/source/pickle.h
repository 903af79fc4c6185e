/* SPDX-License-Identifier: MIT */
/*
 * pickle.h - a reader of exactly the pickle subset PyTorch's memory snapshots
 * use (torch.cuda.memory._dump_snapshot: protocols 2 to 5), into a compact
 * read-only graph. Nothing is ever executed: GLOBAL, REDUCE, BUILD and every
 * opcode outside the subset are an error naming the opcode and its byte.
 *
 * The graph is the object graph the pickle describes, not a tree: a memo
 * reference (GET) names the node already built, so a frame list shared by a
 * thousand trace entries is one node referenced a thousand times, and memory
 * stays linear in the input however the references nest (a 100-byte memo bomb
 * gives a few dozen nodes, not 2^40). A cycle is refused once the whole graph
 * is built. Strings and bytes are slices of the input: the graph borrows it.
 *
 * Used by the memory snapshot analysis (analyze/memsnap*.c) and the fuzzer;
 * independent of the trace model.
 */
#ifndef GP_SOURCE_PICKLE_H
#define GP_SOURCE_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The type of a node. */
enum gp__pk_type {
	GP_PK_NONE = 0,
	GP_PK_BOOL,
	GP_PK_INT,    /**< fits int64 */
	GP_PK_BIGINT, /**< a LONG1/LONG4 beyond int64: kept as a double (gp__pk_double) */
	GP_PK_FLOAT,
	GP_PK_STR,   /**< UTF-8 as written (not checked) */
	GP_PK_BYTES, /**< BINBYTES* */
	GP_PK_LIST,
	GP_PK_TUPLE,
	GP_PK_DICT, /**< entries in insertion order; a repeated key's last value wins */
};

/** No node (a missing key, an index out of range). */
#define GP_PK_NIL UINT32_MAX

/** One node (internal; read through the functions below). */
struct gp__pk_node {
	uint8_t type;
	uint8_t pad[3];
	uint32_t len; /**< string bytes; list/tuple items; dict entries */
	uint64_t off; /**< byte offset of the opcode that made it */
	union {
		int64_t i;   /**< INT, BOOL */
		double d;    /**< FLOAT, BIGINT */
		uint64_t at; /**< STR, BYTES: offset of the bytes in the input */
		struct {
			uint32_t first,
			    cap; /**< children in kid[first..first+cap) (dict: 2 per entry) */
		} c;
	} u;
};

/** A parsed pickle. Borrows the input bytes. */
struct gp__pk {
	const uint8_t *base; /**< the input */
	size_t n;
	struct gp__pk_node *node;
	uint32_t nnode;
	uint32_t *kid;
	size_t nkid;
	uint32_t root;
	int proto; /**< the PROTO opcode's protocol (2..5) */
};

/** Limits of gp__pk_parse(); zero fields take the defaults. */
struct gp__pk_limits {
	/** the most bytes the graph and the parse may use (default 64 x input + 1 MiB) */
	size_t max_bytes;
};

/**
 * Parses the pickle @p p[0..n) into *@p out (free with gp__pk_free(); it
 * borrows @p p, which must outlive it). Errors name the byte offset
 * ("byte 1234: opcode GLOBAL (0x63) is not read: a snapshot holds only
 * dicts, lists, tuples, strings and numbers"); the caller prefixes the file.
 * @return 0; GP_EFORMAT (an opcode outside the subset, a malformed stack, a
 * cycle), GP_ETRUNC (the input ends early), GP_EVERSION (not protocol 2-5),
 * GP_ELIMIT (over @p lim), GP_ENOMEM.
 */
int gp__pk_parse(const void *p, size_t n, const struct gp__pk_limits *lim, struct gp__pk **out);

/** Frees @p pk (NULL is a no-op). */
void gp__pk_free(struct gp__pk *pk);

/** @return the type of node @p id (GP_PK_NONE for GP_PK_NIL). */
enum gp__pk_type gp__pk_type(const struct gp__pk *pk, uint32_t id);

/** "dict", "list", ...: a type as errors name it. */
const char *gp__pk_type_name(enum gp__pk_type t);

/** @return the byte offset of the opcode that made @p id (0 for GP_PK_NIL). */
uint64_t gp__pk_off(const struct gp__pk *pk, uint32_t id);

/** @return items of a list or tuple, entries of a dict, bytes of a string; else 0. */
size_t gp__pk_len(const struct gp__pk *pk, uint32_t id);

/** @return item @p i of a list or tuple, or GP_PK_NIL. */
uint32_t gp__pk_item(const struct gp__pk *pk, uint32_t id, size_t i);

/** Key and value of entry @p i of a dict (GP_PK_NIL when out of range). */
uint32_t gp__pk_key_at(const struct gp__pk *pk, uint32_t id, size_t i);
uint32_t gp__pk_val_at(const struct gp__pk *pk, uint32_t id, size_t i);

/** @return the value of string key @p key in dict @p id (the last one set), or GP_PK_NIL. */
uint32_t gp__pk_get(const struct gp__pk *pk, uint32_t id, const char *key);

/** @return true and the number when @p id is an INT or a BOOL. */
bool gp__pk_int(const struct gp__pk *pk, uint32_t id, int64_t *out);

/** @return true and the number when @p id is an INT, BOOL, FLOAT or BIGINT. */
bool gp__pk_double(const struct gp__pk *pk, uint32_t id, double *out);

/** @return the bytes of a STR (not NUL-ended; *@p len set) or NULL. */
const char *gp__pk_str(const struct gp__pk *pk, uint32_t id, size_t *len);

/** @return whether @p id is the string @p s. */
bool gp__pk_str_eq(const struct gp__pk *pk, uint32_t id, const char *s);

#endif
