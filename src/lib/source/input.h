/* SPDX-License-Identifier: MIT */
/*
 * input.h - a byte stream over a file or a memory buffer, gunzipped on the
 * fly when the content starts with the gzip magic (1f 8b).
 *
 * Reads go in chunks into the caller's buffer; nothing maps or loads the
 * whole file. Multi-member gzip (concatenated .gz files) is one stream.
 * Used by the Kineto reader and by the sniffing of inputs (sniff.c).
 */
#ifndef GP_SOURCE_INPUT_H
#define GP_SOURCE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gp_input;

/** Opens @p path for reading. Errors name the path. */
int gp__input_open_file(const char *path, struct gp_input **out);
/** Reads from @p p[0..n), which must outlive the input. */
int gp__input_open_mem(const void *p, size_t n, struct gp_input **out);
void gp__input_close(struct gp_input *in);

/**
 * Reads up to @p n uncompressed bytes into @p buf; *@p got = 0 only at the
 * end of the stream. Errors (GP_EIO, GP_EFORMAT bad gzip, GP_ETRUNC gzip
 * that ends early) set the last-error string without the path.
 */
int gp__input_read(struct gp_input *in, char *buf, size_t n, size_t *got);

/** Keeps gzip inflation on the reading thread (no inflate-ahead thread). */
void gp__input_no_prefetch(struct gp_input *in);

/**
 * Looks at the first bytes (gzip or not) before the first read, so that the
 * caller can choose gp__input_no_prefetch() for gzip. Errors as for
 * gp__input_read(); after one, the input must not be read.
 */
int gp__input_start(struct gp_input *in);

/**
 * For a gzip file: the uncompressed size its trailer records (the last
 * member's, modulo 2^32), as a hint for splitting work; @return false when
 * there is none or it is implausible. Never disturbs the stream.
 */
bool gp__input_gzip_size_hint(const struct gp_input *in, uint64_t *size);

/** @return true if the content is gzip. */
bool gp__input_is_gzip(const struct gp_input *in);

/**
 * For uncompressed content (plain file or memory): the total size when known
 * (@return true). Gzip gives false: its uncompressed size is unknown up front.
 */
bool gp__input_size(const struct gp_input *in, uint64_t *size);

/**
 * Zero-copy access for uncompressed memory input: @return true and the whole
 * buffer when the stream is plain memory not yet read from.
 */
bool gp__input_mem_view(const struct gp_input *in, const char **p, size_t *n);

#endif
