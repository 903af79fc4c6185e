/* SPDX-License-Identifier: MIT */
/*
 * sniff.c - an input's kind from its first bytes (source.h).
 *
 * Only the start of a file is read (SNIFF_BYTES, gunzipped when gzip). The
 * capture magic makes a capture. A JSON object is walked key by key:
 * "traceEvents" makes a Kineto trace; a "schema" of "gpuprof.metrics/1" a
 * metrics timeline, of another "gpuprof.*" that document (analyze, bench,
 * compare), of anything else a trace, whose reader then says what is wrong;
 * "gpuprof_version", "series" or "ranks" (keys gpuprof's documents have:
 * they are written sorted, so these come before the large arrays) a gpuprof
 * document. An object that ends without any of them, or content that is not
 * JSON, is no trace (GP_SRC_OTHER); a top-level array is a trace (Chrome's
 * array form); what the prefix cannot decide is a trace.
 */
#include <string.h>

#include "input.h"
#include "source.h"
#include "source/capture.h"
#include "util/error.h"
#include "util/json-scan.h"

#define SNIFF_BYTES (256u << 10)
#define SNIFF_FIRST (4u << 10)
#define READ_CHUNK  (256u << 10)

int gp__read_prefix(const char *path, size_t max, char **text, size_t *got)
{
	struct gp_input *in = NULL;
	size_t cap = 0, len = 0;
	char *buf = NULL;
	int rc;

	*text = NULL;
	*got = 0;
	if ((rc = gp__input_open_file(path, &in)))
		return rc;
	gp__input_no_prefetch(in);
	if ((rc = gp__input_start(in))) {
		gp__error_prefix("'%s'", path);
		goto out;
	}
	for (;;) {
		size_t want, n = 0;

		if (len == max)
			break;
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : READ_CHUNK;
			uint64_t size;
			char *nb;

			/* a small plain file in a buffer of its size (and no mapping) */
			if (!cap && gp__input_size(in, &size) && size < READ_CHUNK)
				ncap = (size_t)size + 1;

			if (ncap > max)
				ncap = max;
			if (!(nb = gp__reallocarray(buf, ncap + 1, 1))) {
				rc = gp__error(GP_ENOMEM, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		want = cap - len;
		if ((rc = gp__input_read(in, buf + len, want, &n))) {
			gp__error_prefix("'%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (!buf && !(buf = gp__malloc(1))) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	buf[len] = '\0';
	*text = buf;
	*got = len;
	buf = NULL;
out:
	gp__free(buf);
	gp__input_close(in);
	return rc;
}

static bool str_is(struct gp_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && memcmp(s.p, lit, n) == 0;
}

/* the kind a "schema" value gives */
static enum gp__src_kind schema_kind(struct gp_str v)
{
	if (str_is(v, "gpuprof.metrics/1"))
		return GP_SRC_METRICS;
	if (str_is(v, "gpuprof.analyze/1"))
		return GP_SRC_ANALYZE;
	if (str_is(v, "gpuprof.bench/1"))
		return GP_SRC_BENCH;
	if (str_is(v, "gpuprof.compare/1"))
		return GP_SRC_COMPARE;
	if (str_is(v, "gpuprof.aggregate/1"))
		return GP_SRC_AGGREGATE;
	if (v.len >= 8 && memcmp(v.p, "gpuprof.", 8) == 0)
		return GP_SRC_DOC;
	return GP_SRC_KINETO;
}

/* where the prefix ran out before its kind was known: a guess, sure only at the end of the file */
static enum gp__src_kind unsure(bool *sure, bool eof, bool doc)
{
	*sure = eof;
	return doc ? GP_SRC_DOC : GP_SRC_KINETO;
}

/*
 * The kind of @p n bytes of a file's start; *@p sure when the bytes decide it,
 * false when more of the file could change the answer (a prefix cut inside
 * the object's first keys).
 */
static enum gp__src_kind sniff(const void *data, size_t n, bool eof, bool *sure)
{
	const char *p = data;
	struct gp_jscan s = { .end = p + n, .eof = eof };
	const char *q;
	bool doc = false;

	*sure = true;
	if (gp__capture_sniff(p, n))
		return GP_SRC_CAPTURE;
	/* a pickle's PROTO opcode: a PyTorch memory snapshot (no JSON starts with 0x80) */
	if (n >= 2 && (unsigned char)p[0] == 0x80 && p[1] >= 2 && p[1] <= 5)
		return GP_SRC_SNAPSHOT;
	q = gp__json_ws(p, s.end);
	if (q >= s.end) {
		*sure = eof;
		return eof ? GP_SRC_OTHER : GP_SRC_KINETO;
	}
	if (*q == '[')
		return GP_SRC_KINETO;
	if (*q != '{')
		return GP_SRC_OTHER;
	q = gp__json_ws(q + 1, s.end);
	while (q < s.end && *q == '"') {
		struct gp_str key, val;
		bool esc;

		if (gp__json_string(&s, &q, &key, &esc))
			return unsure(sure, eof, doc);
		q = gp__json_ws(q, s.end);
		if (q >= s.end || *q != ':')
			return unsure(sure, eof, doc);
		q = gp__json_ws(q + 1, s.end);
		if (str_is(key, "traceEvents"))
			return GP_SRC_KINETO;
		if (str_is(key, "gpuprof_version") || str_is(key, "series") || str_is(key, "ranks"))
			doc = true;
		if (str_is(key, "schema")) {
			if (q < s.end && *q == '"' && !gp__json_string(&s, &q, &val, &esc))
				return schema_kind(val);
			return unsure(sure, eof, doc);
		}
		if (gp__json_skip(&s, &q, 0))
			return unsure(sure, eof, doc);
		q = gp__json_ws(q, s.end);
		if (q < s.end && *q == ',')
			q = gp__json_ws(q + 1, s.end);
	}
	if (doc)
		return GP_SRC_DOC;
	/* the whole object read, no traceEvents in it: JSON, but no trace */
	if (q < s.end && *q == '}')
		return GP_SRC_OTHER;
	*sure = eof;
	return GP_SRC_KINETO;
}

enum gp__src_kind gp__sniff_mem(const void *data, size_t n, bool eof)
{
	bool sure;

	return sniff(data, n, eof, &sure);
}

int gp__sniff_file(const char *path, enum gp__src_kind *kind)
{
	return gp__sniff_file_ex(path, false, kind);
}

int gp__sniff_file_ex(const char *path, bool doc_prefix, enum gp__src_kind *kind)
{
	struct gp_input *in = NULL;
	size_t cap = 0, len = 0;
	char *buf = NULL;
	bool eof = false, sure = false;
	int rc;

	*kind = GP_SRC_KINETO;
	if ((rc = gp__input_open_file(path, &in)))
		goto out;
	gp__input_no_prefetch(in);
	/*
	 * The first 4 KiB decide almost every file ("traceEvents", a "schema", the
	 * capture magic); more is read, up to SNIFF_BYTES, only while the object's
	 * first keys run past the prefix, so a small trace is not gunzipped twice.
	 */
	while (!sure && !eof && len < SNIFF_BYTES && !(doc_prefix && *kind == GP_SRC_DOC)) {
		size_t ncap = cap ? cap * 4 : SNIFF_FIRST, n = 0;
		uint64_t size;
		char *nb;

		/* the rest of a plain file at once, rather than its start sniffed again and again
		 */
		if (cap && gp__input_size(in, &size) && size < SNIFF_BYTES && size + 1 > cap)
			ncap = (size_t)size + 1;

		if (ncap > SNIFF_BYTES)
			ncap = SNIFF_BYTES;
		if (!(nb = gp__reallocarray(buf, ncap + 1, 1))) {
			rc = gp__error(GP_ENOMEM, "out of memory");
			goto out;
		}
		buf = nb;
		cap = ncap;
		while (len < cap) {
			if ((rc = gp__input_read(in, buf + len, cap - len, &n))) {
				gp__error_prefix("'%s'", path);
				goto out;
			}
			if (n == 0) {
				eof = true;
				break;
			}
			len += n;
		}
		buf[len] = '\0';
		*kind = sniff(buf, len, eof, &sure);
	}
out:
	gp__free(buf);
	gp__input_close(in);
	if (rc == GP_ENOMEM || rc == GP_ENOENT || rc == GP_EIO)
		return rc;
	/* a damaged gzip stream and the like: the trace reader says what is wrong */
	gp_clear_error();
	return 0;
}
