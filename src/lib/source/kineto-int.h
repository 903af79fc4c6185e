/* SPDX-License-Identifier: MIT */
/*
 * kineto-int.h - the state shared by the two halves of the Kineto reader:
 * kineto.c (the read window, the document state machine, the open API),
 * kineto-events.c (parsing the elements of traceEvents into a struct evrec)
 * and kineto-commit.c (committing a struct evrec to the trace model).
 * Private to the Kineto reader (src/lib/source).
 *
 * A unit of work (a top-level member or a run of events) is parsed from
 * r->win + r->pos up to r->s.end; GP_ETRUNC means it ran into the window's
 * end and is retried from its start after kineto.c refills the window.
 */
#ifndef GP_TRACE_KINETO_INT_H
#define GP_TRACE_KINETO_INT_H

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "input.h"
#include "kineto.h"
#include "trace/model.h"
#include "util/buf.h"
#include "util/json-scan.h"
#include "util/strtab.h"

#define GP_KINETO_WINDOW   (8u << 20)   /* initial window */
#define GP_KINETO_READ     (256u << 10) /* bytes read per refill: stays in L2 */
#define GP_KINETO_MAX_UNIT (256u << 20) /* largest single event or member */
#define GP_KINETO_DEPTH    (GP_JSON_MAX_DEPTH - 4)
#define GP_KINETO_PAR_MIN  (16u << 20) /* smallest (uncompressed) file read by two threads */
#define GP_KINETO_PAR_SCAN (1u << 20)  /* bytes searched for the second half's first element */

enum state {
	ST_START,
	ST_OBJ_FIRST,  /* after '{' of the top-level object */
	ST_OBJ_MEMBER, /* at a member key */
	ST_OBJ_SEP,    /* after a member value */
	ST_EV_FIRST,   /* after '[' of traceEvents */
	ST_EV_ELEM,    /* at an element of traceEvents */
	ST_END,        /* after the document: only whitespace may follow */
	ST_DONE
};

/* Small cache of category strings -> (string id, kind). */
struct cat_cache {
	char s[40];
	unsigned char len, kind;
	uint32_t id;
};

/*
 * Key segments already seen (kineto-events.c): the bytes from the end of an
 * object member's value (or the object's opening brace) to the start of the
 * next member's value, that is whitespace, the comma, the key string and the
 * colon, with the key's id. Kineto writes every event of a kind with the same
 * keys in the same layout, so a segment seen once is met again: it is then
 * recognised by one memcmp instead of being scanned and dispatched. A match
 * is only taken where the generic parser would read the same bytes the same
 * way (after a value, or after the brace, inside the same kind of object),
 * and followed by a non-space byte, so results and errors do not depend on
 * the memo. Nodes are numbered from 1 (0: none) and chained: each knows the
 * segments that followed it, newest first. All-zero is empty.
 */
#define GP_SEG_MAX   48  /* longest segment remembered */
#define GP_SEG_NODES 255 /* segments remembered per memo; then no more are learnt */
#define GP_SEG_WAYS  3   /* followers remembered per segment */

struct gp_seg_node {
	uint8_t len, id;
	uint8_t next[GP_SEG_WAYS];
	char b[GP_SEG_MAX];
};

struct gp_seg_memo {
	uint8_t n;
	uint8_t start[GP_SEG_WAYS]; /* the first segments of an object */
	struct gp_seg_node node[GP_SEG_NODES];
};

/*
 * The record_shapes inputs already interned (kineto-commit.c): a text as
 * written, validated when it was first read, and the id of its compacted
 * text. Found by the GP_RAW_KEY bytes of the window from the text's '['
 * (the text and what follows it: Kineto writes the same args in the same
 * order, so they repeat together), so that parse_args can recognise a text
 * seen before by one comparison instead of scanning it: the same bytes
 * skip the same way, with the same result, so results and errors do not
 * depend on it (like the key-segment memo, and off with it).
 */
#define GP_RAW_SLOTS 2048
#define GP_RAW_KEY   64 /* window bytes hashed into a slot (re-indented texts need many) */

struct gp_raw_slot {
	const char *p; /* in r->rawtab or t->strs, which never move a string */
	uint32_t len, id;
};

/* the slot of the text at @p p, with GP_RAW_KEY bytes from there in the window */
static inline uint16_t gp__raw_slot(const char *p)
{
	uint64_t w[GP_RAW_KEY / 8], h = 0;

	memcpy(w, p, sizeof(w));
	for (unsigned i = 0; i < GP_RAW_KEY / 8; i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
	return (uint16_t)((h >> 53) % GP_RAW_SLOTS);
}

/* a[0..n) == b[0..n): 8-byte words, the last one overlapping; bytes below 8 */
static inline bool gp__raw_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i;

	if (n < 8) {
		for (i = 0; i < n; i++)
			if (a[i] != b[i])
				return false;
		return true;
	}
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

struct reader {
	struct gp_trace *t;
	const char *name; /* for messages */
	bool salvage;
	bool one_thread; /* gp_open_opts.threads == 1 */
	uint64_t max_events;

	struct gp_input *in;
	struct gp_input *own_in; /* first half of a gzip read: the second's stream, adopted */
	bool gzip;
	char *buf; /* owned window storage; NULL when reading memory in place */
	size_t cap;
	const char *win; /* window start */
	size_t len;      /* valid bytes in the window */
	size_t pos;      /* start of the current unit */
	uint64_t base_off;
	bool eof;

	struct gp_jscan s;
	enum state st;
	bool in_events;        /* inside traceEvents: damage there can be salvaged */
	bool saw_events;       /* traceEvents was found */
	const char *fail_unit; /* start of the unit that failed */

	/*
	 * The two-thread read of a large plain file (kineto.c): both halves
	 * read the file with pread() at fpos instead of through in. (A gzip
	 * file's halves each read a stream of their own through in.)
	 */
	bool use_fd;
	int fd;
	uint64_t fpos;
	/*
	 * The first half stops its events loop at win + split_rel (SIZE_MAX:
	 * never) so kineto.c can check the split there.
	 */
	size_t split_rel;
	struct kpar *par;          /* first half: the second half's reader, NULL none */
	bool tail;                 /* second half: stop after traceEvents' closing ']' */
	uint64_t tail_end;         /* second half: the offset just after that ']' */
	const atomic_bool *cancel; /* second half: set when the first half drops it */

	struct gp_buf scratch;
	struct gp_seg_memo args_memo; /* the members of "args" objects */
	struct gp_seg_memo ev_memo;   /* the members of events */
	struct cat_cache cats[16];
	uint32_t names[256]; /* intern() cache: string ids, 0 empty */
	/*
	 * intern_raw()'s caches of the record_shapes inputs (kineto-commit.c),
	 * made on first use: each distinct text as written (rawtab, up to a
	 * limit) with the id of its compacted text in t->strs (rawid), and
	 * GP_RAW_SLOTS recent texts (strings of rawtab, or of t->strs once
	 * rawtab is full; neither moves a string) with those ids, direct-mapped.
	 */
	struct gp_raw_slot *raws;
	struct gp_strtab rawtab;
	uint32_t *rawid;
	size_t rawid_cap;
	size_t ncats;
	uint32_t id_python, id_user_ann, id_operator, id_cpu_op, id_instant;
};

static inline bool key_is(const struct gp_str *k, const char *lit, size_t n)
{
	return k->len == n && memcmp(k->p, lit, n) == 0;
}

/*
 * Test hooks (unit tests only, never the CLI): gp__kineto_no_parallel forces the
 * single-thread read; gp__kineto_split_at, when non-zero, is the offset at
 * which the second half looks for its first element (default: the middle of
 * a plain file; for gzip, halfway between the first half and the end).
 */
extern bool gp__kineto_no_parallel;
extern uint64_t gp__kineto_split_at;
/*
 * gzip: the first half waits until the second has found its candidate, so
 * that a starved second thread cannot make a test's merge a drop.
 */
extern bool gp__kineto_par_sync;
/* smallest file read by two threads: GP_KINETO_PAR_MIN, lowered by tests */
extern uint64_t gp__kineto_par_min;
/* Two-thread reads whose halves were merged, and those dropped (tests). */
extern atomic_uint gp__kineto_par_merged, gp__kineto_par_dropped;

#define KEY_IS(k, lit) key_is((k), lit, sizeof(lit) - 1)

/* Argument keys we keep; everything else is skipped (validated, not built). */
enum arg_key {
	A_NONE = 0,
	A_CORR,
	A_EXT,
	A_STREAM,
	A_DEVICE,
	A_GRID,
	A_BLOCK,
	A_REGS,
	A_SHMEM,
	A_BPSM,
	A_WPSM,
	A_OCC,
	A_BYTES,
	A_BW,
	A_COLL,
	A_NAME,
	A_MBYTES,
	A_TOT_ALLOC,
	A_TOT_RES,
	A_ADDR,
	A_DEV_ID,
	A_DEV_TYPE,
	/* record_shapes inputs (struct gp_op_args): raw JSON text of an array, */
	A_DIMS,
	A_TYPES,
	A_CONCRETE,
	/* cuda_sync waits (struct gp_sync_info): a string, then integers, */
	A_SYNC_KIND,
	A_WAIT_STREAM,
	A_WAIT_CORR,
	A_WAIT_EVID,
	/* python_function ids (struct gp_py_module): integers, */
	A_PY_ID,
	A_PY_PARENT,
	/* collective metadata (struct gp_coll_info): integers, */
	A_IN_NELEMS,
	A_OUT_NELEMS,
	A_GROUP_SIZE,
	A_SRC_RANK,
	A_DST_RANK,
	A_SEQ,
	/* then strings, kept in evrec.cs[id - A_DTYPE] */
	A_DTYPE,
	A_PG_NAME,
	A_PG_DESC,
	A_PG_RANKS,
	A_IN_SPLIT,
	A_OUT_SPLIT,
	A__COUNT
};

#define A_CS_N (A__COUNT - A_DTYPE)
_Static_assert(A__COUNT <= 64, "struct evrec.aset holds one bit per arg key");

/* A string field: raw slice in the window and whether it holds escapes. */
struct sfield {
	struct gp_str s;
	bool esc, set;
};

/* pid or tid: a number, or a string that is not one. */
struct idfield {
	int64_t num;
	struct sfield str;
	bool set;
};

/* One traceEvents element, parsed but not yet committed. */
struct evrec {
	struct sfield ph, cat, name;
	struct idfield pid, tid;
	int64_t ts, dur;
	bool has_ts, has_dur, ts_float;
	/* args: only those whose bit is set in aset are valid (no per-event memset) */
	uint64_t aset;
	int64_t a[A__COUNT]; /* integer args by enum arg_key */
	double d[A__COUNT];  /* double args by enum arg_key */
	int32_t grid[3], block[3];
	struct sfield coll, aname;
	struct sfield cs[A_CS_N]; /* string collective args, valid when their aset bit is */
	struct sfield skind;      /* "cuda_sync_kind", valid when its aset bit is */
	/* the raw text of "Input Dims", "Input type", "Concrete Inputs" ('[' to ']'), */
	struct gp_str raw[A_CONCRETE - A_DIMS + 1];
	uint16_t rawslot[A_CONCRETE - A_DIMS + 1]; /* its gp__raw_slot(), GP_RAW_SLOTS none */
	uint32_t rawid[A_CONCRETE - A_DIMS + 1];   /* its string id, when its rawhit bit is set */
	unsigned rawhit;                           /* found in r->raws by parse_args */
};

#define ABIT(id) (UINT64_C(1) << (id))
/* the collective args other than "Collective name" */
#define ABITS_COLL (((UINT64_C(1) << A__COUNT) - 1) & ~((UINT64_C(1) << A_IN_NELEMS) - 1))
/* the record_shapes inputs and the cuda_sync waits */
#define ABITS_OPARGS (ABIT(A_DIMS) | ABIT(A_TYPES) | ABIT(A_CONCRETE))
#define ABITS_SYNC   (ABIT(A_SYNC_KIND) | ABIT(A_WAIT_STREAM) | ABIT(A_WAIT_CORR) | ABIT(A_WAIT_EVID))

static inline int64_t arg_i64(const struct evrec *e, unsigned id)
{
	return e->aset & ABIT(id) ? e->a[id] : -1;
}

static inline int32_t arg_i32(const struct evrec *e, unsigned id)
{
	int64_t v = arg_i64(e, id);

	return v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : -1;
}

static inline double arg_dbl(const struct evrec *e, unsigned id)
{
	return e->aset & ABIT(id) ? e->d[id] : NAN;
}

/**
 * Commits the parsed event @p e to r->t (kineto-commit.c). @return 0 or an
 * error, described with gp__error() when it comes from the model.
 */
int gp__kineto_commit(struct reader *r, const struct evrec *e);

/**
 * Parses and commits the elements of traceEvents from *@p pp (the first
 * byte of an element, inside the window) for as long as they lie in the
 * window; *@p pp then points where the next unit starts (a retry or a
 * salvage starts at the failed element itself). After the closing ']' it
 * sets r->st to what follows the array. @return 0, GP_ETRUNC when the
 * window ends inside an element, else an error with r->s.err_at/err_msg
 * set (err_msg NULL for an error from the model, already described).
 */
int gp__kineto_events(struct reader *r, const char **pp);

#endif
