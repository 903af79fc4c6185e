/* SPDX-License-Identifier: MIT */
/*
 * memsnap.h - the analysis of a PyTorch memory snapshot (the .pickle of
 * torch.cuda.memory._dump_snapshot) into a gpuprof.memsnap/1 document
 * (docs/memsnap-schema.md, definitions in docs/analyses/memory-snapshot.md):
 * per device the peak of allocated bytes and the live blocks then grouped by
 * their top frame, fragmentation per segment class, out-of-memory events, the
 * allocated curve, and the allocator settings. A snapshot is not a trace: this
 * reads the pickle graph (source/pickle.h), never the trace model.
 *
 * Called by gp_analyze_paths() (analyze.c), gp_analyze_format() (format.c),
 * compare (compare/memsnap.c), the report page and the fuzzer.
 */
#ifndef GP_ANALYZE_MEMSNAP_H
#define GP_ANALYZE_MEMSNAP_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuprof/value.h"

#define GP_MEMSNAP_SCHEMA "gpuprof.memsnap/1"
/** The most points of a device's allocated curve. */
#define GP_MEMSNAP_MAX_POINTS 1000
/** The OOM events whose live blocks are grouped (all are listed). */
#define GP_MEMSNAP_OOM_DETAIL 10

struct gp__pk;
struct gp__src;

/**
 * The document of snapshot @p pk (read from file @p name: it goes in the
 * document and in errors) into *@p out (the caller's). @p top: frames per
 * table (0: all). Errors name the byte of the value at fault.
 * @return 0, GP_EFORMAT (not a snapshot's structure), GP_ENOMEM.
 */
int gp__memsnap_doc(const struct gp__pk *pk, const char *name, uint32_t top, struct gp_value **out);

/**
 * Reads input @p s (a file, gunzipped, or standard input's bytes), parses
 * its pickle and makes its document. Errors start with the file's name
 * ("'snap.pickle': byte 1234: ...").
 */
int gp__memsnap_read(const struct gp__src *s, uint32_t top, struct gp_value **out);

/** @return whether @p doc is a gpuprof.memsnap/1 document. */
bool gp__memsnap_is(const struct gp_value *doc);

/**
 * The text of document @p doc: per device the peak, the top frames, the
 * fragmentation table and the OOM events, @p top rows a table (0: all), for
 * a terminal of @p width columns. @return 0 or GP_ENOMEM.
 */
int gp__memsnap_format(const struct gp_value *doc, size_t top, int width, char **text, size_t *len);

#endif
