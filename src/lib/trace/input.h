/* SPDX-License-Identifier: MIT */
/*
 * input.h - a byte stream over a file or a memory buffer, gunzipped on the
 * fly when the content starts with the gzip magic (1f 8b).
 *
 * Reads go in chunks into the caller's buffer; nothing maps or loads the
 * whole file. Multi-member gzip (concatenated .gz files) is one stream.
 * Used by the Kineto reader.
 */
#ifndef GP_TRACE_INPUT_H
#define GP_TRACE_INPUT_H

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

/*
 * Test hook (unit tests and the fuzzer, never the CLI): when non-zero, the
 * Kineto reader starts with a window of this many bytes instead of 8 MiB and
 * streams memory input through it instead of reading it in place, so every
 * refill and growth path runs on small inputs.
 */
extern size_t gp__kineto_test_window;

/*
 * Test hook (unit tests and the fuzzer): when true, the Kineto reader does
 * not use its key-segment memo (kineto-int.h), so a test can check that
 * results and errors are the same with it and without it.
 */
extern bool gp__kineto_no_memo;

/** The rank in a trace file's base name ("rank-3", "rank3", "rank_3", "worker3"); -1 none. */
int64_t gp__rank_from_name(const char *path);

/**
 * The trace files of directory @p dir (*.json, *.json.gz, *.gz, *.gpcap; not hidden files, a
 * run's run.json and report.json, nor exports *.chrome.json), as "dir/name" paths sorted by
 * name. GP_ENOENT when there is none. Free with gp__trace_list_free().
 */
int gp__trace_list(const char *dir, char ***paths, size_t *n);
void gp__trace_list_free(char **paths, size_t n);

#endif
