/* SPDX-License-Identifier: MIT */
/*
 * json-prune.h - JSON text to a gp_value tree that holds only the members a
 * reader asks for: the rest is validated and skipped (json-scan.h), never
 * built. For the readers that need a few keys of a large document (aggregate
 * reads the ledger and a dozen numbers of each rank of an analyze report,
 * not its kernels, timeline or cpu_ops).
 *
 * The promise, which test_json_prune checks against gp_value_parse: every
 * lookup along the keep tree (gp_obj_get of a listed key, gp_arr_get,
 * gp_value_len of an array, gp_value_type, the scalars' values) gives on the
 * pruned tree what it gives on the whole one; the same text is accepted or
 * refused, with the same status, byte offset and message (the same grammar,
 * the same nesting limit, duplicate keys the last one winning, keys compared
 * as C strings). Only an object's member count differs (unlisted members
 * are left out), and a @c text member holds the text a whole parse of
 * which gives the whole tree's value.
 */
#ifndef GP_UTIL_JSON_PRUNE_H
#define GP_UTIL_JSON_PRUNE_H

#include <stdbool.h>
#include <stddef.h>

struct gp_value;

/**
 * One member a pruned parse keeps. A keep list is an array of these ended
 * by { NULL, NULL }; it applies to an object (its members of these keys are
 * kept, the others skipped) and to an array (each element that is an
 * object is pruned by the same list; any other element is kept whole).
 * @c sub NULL keeps the member's value whole; else the value is pruned by
 * @c sub when it is an object or array (a scalar is kept as it is).
 * @c text keeps the value (validated) as its JSON text instead: a string
 * member named GP_JKEEP_TEXT followed by the key, for a reader that walks
 * a large array of numbers itself rather than have a node made for each.
 * (No key of the input can land there: only listed keys are kept.)
 */
struct gp_jkeep {
	const char *key;
	const struct gp_jkeep *sub;
	bool text;
};

/** The first byte of the name a @c text member is kept under. */
#define GP_JKEEP_TEXT "\x01"

/**
 * gp_value_parse() of @p text[0..@p len) pruned by @p keep (NULL: nothing
 * pruned). Same errors: GP_EFORMAT, GP_ETRUNC, GP_ELIMIT or GP_ENOMEM,
 * "byte N: message", *@p err_off the offset (may be NULL).
 */
int gp__json_parse_pruned(const char *text, size_t len, const struct gp_jkeep *keep,
                          struct gp_value **out, size_t *err_off);

#endif
