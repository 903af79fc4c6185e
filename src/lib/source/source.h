/* SPDX-License-Identifier: MIT */
/*
 * source.h - what a PATH is: the one function that turns the PATHs a user
 * typed into a typed list of inputs, for every command (analyze, export,
 * bench, compare, report), and the sniffing that decides an input's kind.
 *
 * A kind is decided once, here: by the name where it says (a directory
 * holding run.json is a run directory, *.jsonl a metrics timeline), else by
 * the content (resolve.c, sniff.c). The commands then take the kinds they
 * read and say why they refuse the others; the readers of each kind (Kineto
 * JSON, captures, metrics timelines, gpuprof's documents, run.json) sit
 * beside this file and never look at another kind.
 */
#ifndef GP_SOURCE_SOURCE_H
#define GP_SOURCE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof/trace.h"
#include "gpuprof/value.h"

/** The kinds of input. */
enum gp__src_kind {
	GP_SRC_KINETO = 0, /**< a Kineto/Chrome trace (.json, .json.gz), or what no other kind is */
	GP_SRC_CAPTURE,    /**< a capture of `gpuprof run` (.gpcap, capfmt.h) */
	GP_SRC_METRICS,    /**< a metrics timeline (gpuprof.metrics/1 JSON lines) */
	GP_SRC_RUN_DIR,    /**< a `gpuprof run` directory (it holds run.json) */
	GP_SRC_ANALYZE,    /**< a gpuprof.analyze/1 document */
	GP_SRC_BENCH,      /**< a gpuprof.bench/1 document */
	GP_SRC_COMPARE,    /**< a gpuprof.compare/1 document */
	GP_SRC_AGGREGATE,  /**< a gpuprof.aggregate/1 document */
	GP_SRC_DOC,        /**< a gpuprof document whose schema the first bytes did not show */
	GP_SRC_OTHER, /**< JSON or text that is no trace (config.json...): skipped in directories */
	GP_SRC_SNAPSHOT, /**< a PyTorch memory snapshot (.pickle, .pkl; a pickle of protocol 2-5) */
	GP_SRC_NKINDS
};

/** One input. Strings belong to the list. */
struct gp__src {
	enum gp__src_kind kind;
	char *path;    /**< the file or directory ("-" for standard input) */
	size_t arg;    /**< index of the PATH it came from */
	bool from_dir; /**< found in a directory rather than typed */
	bool is_stdin; /**< read from standard input: the bytes are mem[0..len) */
	/**
	 * The rank: a capture's (its META record), else what its name says
	 * ("rank-3", "worker3"); -1 none. A Kineto trace's distributedInfo is only
	 * known once it is read.
	 */
	int64_t rank;
	int64_t pid;     /**< the process: a capture's or a run's (run.json); -1 unknown */
	char *host;      /**< the host: a capture's or a run's (run.json); NULL unknown */
	const char *dir; /**< the directory it was found in (the PATH, the caller's), or NULL */
	void *mem;       /**< standard input's bytes */
	size_t len;
};

/** Kinds as masks for gp__srcs_keep() and gp__srcs_count(): the traces the model is read from, */
#define GP_SRC_TRACES (1u << GP_SRC_KINETO | 1u << GP_SRC_CAPTURE)
/** and everything a run gives: its traces, its run.json, its metrics timeline. */
#define GP_SRC_RUN_INPUTS (GP_SRC_TRACES | 1u << GP_SRC_METRICS | 1u << GP_SRC_RUN_DIR)
/** gpuprof's own documents. */
#define GP_SRC_DOCS                                                                                \
	(1u << GP_SRC_ANALYZE | 1u << GP_SRC_BENCH | 1u << GP_SRC_COMPARE | 1u << GP_SRC_DOC |     \
	 1u << GP_SRC_AGGREGATE)

/** The inputs of a command, in the order typed, each directory's files by name. */
struct gp__srcs {
	struct gp__src *v;
	size_t n, cap;
	/**
	 * The files of directories that gp__srcs_keep() left out, as one line
	 * ("skipped 2 files that analyze does not read: 'dir': config.json (not a
	 * trace), b.json (a bench result)"), or NULL.
	 */
	char *skipped;
};

/** Flags of gp__srcs_resolve(). */
enum {
	GP_SRC_ALLOW_STDIN = 1 << 0, /**< "-" reads standard input (else it is a file named "-") */
	/**
	 * A file whose first keys make it a gpuprof document is GP_SRC_DOC
	 * unless its "schema" is among them: not read on to its "schema" (an
	 * analyze report's comes after its "ranks"), for a caller that reads
	 * every document whole anyway and checks its schema (aggregate).
	 */
	GP_SRC_DOCS_UNSNIFFED = 1 << 1,
};

/**
 * Turns @p paths[0..n) into @p out (released by the caller even on failure):
 * a file is one input of its kind; a directory gives its trace files (*.json,
 * *.json.gz, *.gz, *.gpcap; not hidden files, run.json, report.json nor
 * exports *.chrome.json) in name order, then a run directory input when it
 * holds run.json and a metrics input when it holds metrics.jsonl; "-" reads
 * standard input whole (with GP_SRC_ALLOW_STDIN). A directory with nothing
 * to read is an error (GP_ENOENT) unless it is a run directory. A FIFO or a
 * device is never sniffed (it cannot be read twice): its name says, else it
 * is a Kineto trace.
 * @return 0, GP_ENOENT or GP_EIO naming the path, GP_ENOMEM.
 */
int gp__srcs_resolve(const char *const *paths, size_t n, unsigned flags, struct gp__srcs *out);

/** Frees what @p s holds and empties it. */
void gp__srcs_release(struct gp__srcs *s);

/**
 * Keeps the inputs whose kind is in @p kinds (a mask of 1u << kind). Found in
 * a directory, one of another kind is dropped and named in s->skipped;
 * typed, it is an error saying what it is and that @p cmd does not read it.
 * @return 0, GP_EINVAL, GP_ENOMEM.
 */
int gp__srcs_keep(struct gp__srcs *s, unsigned kinds, const char *cmd);

/** @return how many inputs are of a kind in @p kinds (a mask of 1u << kind). */
size_t gp__srcs_count(const struct gp__srcs *s, unsigned kinds);

/** "a trace", "a metrics timeline", ...: a kind as errors and warnings name it. */
const char *gp__src_kind_name(enum gp__src_kind k);

/** Opens input @p s (a Kineto trace or a capture, from a file or standard input). */
int gp__src_open_trace(const struct gp__src *s, const struct gp_open_opts *opts,
                       struct gp_trace **out);

/** The rank in a file's base name ("rank-3", "rank3", "rank_3", "worker3"); -1 none. */
int64_t gp__rank_from_name(const char *path);

/**
 * The host in a trace's file name as torch.profiler.tensorboard_trace_handler
 * writes it, "<host>_<pid>.<digits>.pt.trace.json[.gz]": everything before
 * the last "_<digits>." part, into @p host (NUL-ended, at most @p cap bytes
 * with the NUL). @return false when the name has no such form (or the host
 * does not fit).
 */
bool gp__host_from_name(const char *path, char *host, size_t cap);

/* ---- sniff.c ---- */

/** The kind of content @p p[0..n) (@p eof: that is all of it) by its first bytes. */
enum gp__src_kind gp__sniff_mem(const void *p, size_t n, bool eof);

/**
 * The kind of file @p path by its first bytes (gunzipped). A file that cannot
 * be sniffed (a damaged gzip stream) is GP_SRC_KINETO: its reader says why.
 * @return 0, or GP_ENOENT, GP_EIO, GP_ENOMEM naming the file.
 */
int gp__sniff_file(const char *path, enum gp__src_kind *kind);
/**
 * gp__sniff_file(); with @p doc_prefix a gpuprof document whose first
 * bytes do not say its schema is GP_SRC_DOC (GP_SRC_DOCS_UNSNIFFED).
 */
int gp__sniff_file_ex(const char *path, bool doc_prefix, enum gp__src_kind *kind);

/**
 * Reads up to @p max uncompressed bytes of @p path into a NUL-ended buffer
 * (free with gp__free()); *@p got < max means the whole file.
 */
int gp__read_prefix(const char *path, size_t max, char **text, size_t *got);

/* ---- doc.c: gpuprof's own JSON documents ---- */

/** The kind of a parsed gpuprof document by its "schema"; GP_SRC_DOC when it is none of them. */
enum gp__src_kind gp__doc_kind(const struct gp_value *v);

/**
 * Reads and parses the gpuprof JSON document of input @p s whole (at most 1 GiB):
 * its file, or the bytes standard input gave (@p s->mem); errors name it.
 */
int gp__doc_read(const struct gp__src *s, struct gp_value **out);

struct gp_jkeep;

/**
 * gp__doc_read() of only the members @p keep names (util/json-prune.h; NULL:
 * all): the document is validated whole, the rest never built.
 */
int gp__doc_read_pruned(const struct gp__src *s, const struct gp_jkeep *keep,
                        struct gp_value **out);

struct gp_buf;

/**
 * Appends the ranks of analyze report @p doc to @p b as "0, 1, 3" ("none"
 * when it has none), for errors that say which ranks there are.
 * @return 0 or GP_ENOMEM.
 */
int gp__doc_ranks_list(const struct gp_value *doc, struct gp_buf *b);

/* ---- run.c: run.json of a `gpuprof run` directory ---- */

/**
 * DIR/run.json (schema gpuprof.run/1) parsed, into *@p out; NULL when it is
 * missing, too large, unreadable or of another schema (it is an extra: the
 * analysis goes on without it). @return 0 or GP_ENOMEM.
 */
int gp__run_json_read(const char *dir, struct gp_value **out);

#endif
