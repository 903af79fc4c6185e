/* SPDX-License-Identifier: MIT */
/*
 * input.c - file and memory byte streams with on-the-fly gunzip (input.h).
 *
 * The gzip path uses ISA-L's isal_inflate (GP_HAVE_ISAL), else zlib
 * (GP_HAVE_ZLIB). Compressed bytes are read in fixed chunks; at the end of a
 * gzip member the next bytes must be another member's magic (gzip's own
 * rule for concatenated files) or the end of the input. A stream that ends
 * inside a member is GP_ETRUNC; corrupt data or a bad checksum GP_EFORMAT.
 *
 * A large gzip file on a machine with a spare CPU is inflated ahead on a
 * second thread into a small ring of slots (prefetch), so decompression and
 * parsing overlap; the bytes and errors the reader sees are those of the
 * same stream, in the same order.
 */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprof-config.h"
#include "util/error.h"

#if GP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#elif GP_HAVE_ZLIB
#include <zlib.h>
#endif

#define GP_IN_CHUNK (256u << 10) /* compressed bytes per read */

#define GP_PF_SLOTS    8
#define GP_PF_SLOT     (256u << 10) /* uncompressed bytes per slot */
#define GP_PF_MIN_FILE (1u << 20)   /* smaller gzip files are inflated inline */

/* the inflate-ahead thread and its ring of slots */
struct prefetch {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *slot[GP_PF_SLOTS];
	size_t len[GP_PF_SLOTS];
	uint64_t head, tail; /* slots filled / emptied, ever */
	size_t pos;          /* bytes already taken from the slot at tail */
	bool done;           /* the producer stopped: at the end (rc 0) or on rc */
	bool stop;           /* the consumer is closing */
	int rc;
	char err[512];
};

struct gp_input {
	int fd; /* -1 for memory */
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	uint64_t file_size;
	bool size_known;

	/* raw (compressed) bytes not yet consumed */
	unsigned char *raw;
	size_t raw_cap; /* GP_IN_CHUNK, or less for a smaller regular file */
	size_t raw_len, raw_pos;
	bool raw_eof;
	bool started; /* the first bytes were inspected */

	bool gzip;
	bool in_member; /* inside a gzip member */
	bool gz_done;   /* the gzip stream ended cleanly */
	uint64_t members;
	struct prefetch *pf; /* NULL: inflate inline */
	bool no_prefetch;
	bool pf_checked; /* prefetch_start() ran */
#if GP_HAVE_ISAL
	struct inflate_state *st;
#elif GP_HAVE_ZLIB
	z_stream zs;
	bool zs_init;
#endif
};

int gp__input_open_file(const char *path, struct gp_input **out)
{
	struct gp_input *in;
	struct stat sb;

	*out = NULL;
	in = gp__calloc(1, sizeof(*in));
	if (!in)
		return gp__error(GP_ENOMEM, "out of memory");
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		int e = errno;

		gp__free(in);
		return gp__error(e == ENOENT ? GP_ENOENT : GP_EIO, "'%s': %s", path, strerror(e));
	}
	if (fstat(in->fd, &sb) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			close(in->fd);
			gp__free(in);
			return gp__error(GP_EINVAL, "'%s': is a directory", path);
		}
		if (S_ISREG(sb.st_mode)) {
			in->file_size = (uint64_t)sb.st_size;
			in->size_known = true;
		}
	}
	/*
	 * A small file's buffer no larger than the file (plus the byte that
	 * sees its end): below the mmap threshold, so that reading many small
	 * reports costs no mapping, unmapping and page faults each.
	 */
	in->raw_cap = GP_IN_CHUNK;
	if (in->size_known && in->file_size + 2 < GP_IN_CHUNK)
		in->raw_cap = (size_t)in->file_size + 2;
	in->raw = gp__malloc(in->raw_cap);
	if (!in->raw) {
		close(in->fd);
		gp__free(in);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	*out = in;
	return 0;
}

int gp__input_open_mem(const void *p, size_t n, struct gp_input **out)
{
	struct gp_input *in;

	*out = NULL;
	in = gp__calloc(1, sizeof(*in));
	if (!in)
		return gp__error(GP_ENOMEM, "out of memory");
	in->fd = -1;
	in->mem = p;
	in->mem_len = p ? n : 0;
	in->file_size = in->mem_len;
	in->size_known = true;
	*out = in;
	return 0;
}

static void prefetch_stop(struct gp_input *in);

void gp__input_close(struct gp_input *in)
{
	if (!in)
		return;
	prefetch_stop(in);
	if (in->fd >= 0)
		close(in->fd);
#if GP_HAVE_ISAL
	gp__free(in->st);
#elif GP_HAVE_ZLIB
	if (in->zs_init)
		inflateEnd(&in->zs);
#endif
	gp__free(in->raw);
	gp__free(in);
}

/* Reads raw bytes straight from the source (file or memory). */
static int source_read(struct gp_input *in, unsigned char *buf, size_t n, size_t *got)
{
	*got = 0;
	if (in->fd < 0) {
		size_t left = in->mem_len - in->mem_pos;

		if (n > left)
			n = left;
		if (n)
			memcpy(buf, in->mem + in->mem_pos, n);
		in->mem_pos += n;
		*got = n;
		return 0;
	}
	for (;;) {
		ssize_t r = read(in->fd, buf, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return gp__error(GP_EIO, "read failed: %s", strerror(errno));
		}
		*got = (size_t)r;
		return 0;
	}
}

/* Makes sure some raw bytes are buffered (for the file source). */
static int raw_fill(struct gp_input *in)
{
	size_t got;
	int rc;

	if (in->raw_pos < in->raw_len || in->raw_eof)
		return 0;
	if (in->fd < 0) {
		/* memory: point straight at the caller's bytes */
		in->raw_eof = true;
		return 0;
	}
	in->raw_pos = in->raw_len = 0;
	if ((rc = source_read(in, in->raw, in->raw_cap, &got)))
		return rc;
	in->raw_len = got;
	if (!got)
		in->raw_eof = true;
	return 0;
}

/* The unread raw bytes: memory input exposes the caller's buffer directly. */
static void raw_view(struct gp_input *in, const unsigned char **p, size_t *n)
{
	if (in->fd < 0) {
		*p = in->mem + in->mem_pos;
		*n = in->mem_len - in->mem_pos;
	} else {
		*p = in->raw + in->raw_pos;
		*n = in->raw_len - in->raw_pos;
	}
}

static void raw_consume(struct gp_input *in, size_t n)
{
	if (in->fd < 0)
		in->mem_pos += n;
	else
		in->raw_pos += n;
}

static int start(struct gp_input *in)
{
	const unsigned char *p;
	size_t n;
	int rc;

	in->started = true;
	if (in->fd >= 0) {
		/* fill until at least 2 bytes or EOF, to see the magic */
		if ((rc = raw_fill(in)))
			return rc;
		if (in->raw_len == 1 && !in->raw_eof) {
			size_t got;

			if ((rc = source_read(in, in->raw + 1, in->raw_cap - 1, &got)))
				return rc;
			in->raw_len += got;
		}
	}
	raw_view(in, &p, &n);
	in->gzip = n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
	if (!in->gzip)
		return 0;
#if GP_HAVE_ISAL
	in->st = gp__malloc(sizeof(*in->st));
	if (!in->st)
		return gp__error(GP_ENOMEM, "out of memory");
	isal_inflate_init(in->st);
	in->st->crc_flag = ISAL_GZIP;
#elif GP_HAVE_ZLIB
	memset(&in->zs, 0, sizeof(in->zs));
	if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK)
		return gp__error(GP_ENOMEM, "cannot initialise zlib");
	in->zs_init = true;
#else
	return gp__error(GP_ENOTSUP, "gzip input but this build has no gzip library");
#endif
	in->in_member = true;
	in->members = 1;
	return 0;
}

static int plain_read(struct gp_input *in, char *buf, size_t n, size_t *got)
{
	size_t k = 0;
	int rc;

	/* bytes already buffered while looking for the magic come first */
	if (in->fd >= 0 && in->raw_pos < in->raw_len) {
		k = in->raw_len - in->raw_pos;
		if (k > n)
			k = n;
		memcpy(buf, in->raw + in->raw_pos, k);
		in->raw_pos += k;
		*got = k;
		return 0;
	}
	if ((rc = source_read(in, (unsigned char *)buf, n, &k)))
		return rc;
	*got = k;
	return 0;
}

/* After a member ends: another member, the end, or garbage. */
static int next_member(struct gp_input *in)
{
	const unsigned char *p;
	size_t n;
	int rc;

	if ((rc = raw_fill(in)))
		return rc;
	raw_view(in, &p, &n);
	if (n == 0) {
		in->gz_done = true;
		return 0;
	}
	if (p[0] != 0x1f || (n >= 2 && p[1] != 0x8b))
		return gp__error(GP_EFORMAT, "garbage after gzip member %llu",
		                 (unsigned long long)in->members);
	in->members++;
	in->in_member = true;
#if GP_HAVE_ISAL
	isal_inflate_reset(in->st);
	in->st->crc_flag = ISAL_GZIP;
#elif GP_HAVE_ZLIB
	if (inflateReset(&in->zs) != Z_OK)
		return gp__error(GP_EFORMAT, "cannot reset zlib");
#endif
	return 0;
}

static int gz_read(struct gp_input *in, char *buf, size_t n, size_t *got)
{
	size_t produced = 0;
	unsigned stalls = 0;
	int rc;

	(void)stalls;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	while (produced == 0 && !in->gz_done) {
		const unsigned char *p;
		size_t avail;

		if (!in->in_member) {
			if ((rc = next_member(in)))
				return rc;
			continue;
		}
		if ((rc = raw_fill(in)))
			return rc;
		raw_view(in, &p, &avail);
		if (avail > UINT32_MAX)
			avail = UINT32_MAX;
#if GP_HAVE_ISAL
		{
			struct inflate_state *st = in->st;
			int r;

			st->next_in = (uint8_t *)(uintptr_t)p;
			st->avail_in = (uint32_t)avail;
			st->next_out = (uint8_t *)buf;
			st->avail_out = (uint32_t)n;
			r = isal_inflate(st);
			raw_consume(in, avail - st->avail_in);
			produced = n - st->avail_out;
			/* a decoder that neither reads nor writes would loop forever */
			if (!produced && st->avail_in == avail && avail &&
			    st->block_state != ISAL_BLOCK_FINISH && ++stalls > 8)
				return gp__error(GP_EFORMAT, "corrupt gzip data (no progress)");
			if (r < 0) {
				if (r == ISAL_INCORRECT_CHECKSUM)
					return gp__error(GP_EFORMAT, "gzip checksum mismatch");
				return gp__error(GP_EFORMAT, "corrupt gzip data (isa-l error %d)",
				                 r);
			}
			if (st->block_state == ISAL_BLOCK_FINISH) {
				in->in_member = false;
			} else if (produced == 0 && avail == 0 && in->raw_eof) {
				return gp__error(GP_ETRUNC, "gzip stream ends early");
			} else if (produced == 0 && st->avail_in == 0 && avail == 0) {
				return gp__error(GP_ETRUNC, "gzip stream ends early");
			}
		}
#elif GP_HAVE_ZLIB
		{
			z_stream *zs = &in->zs;
			int r;

			zs->next_in = (Bytef *)(uintptr_t)p;
			zs->avail_in = (uInt)avail;
			zs->next_out = (Bytef *)buf;
			zs->avail_out = (uInt)n;
			r = inflate(zs, Z_NO_FLUSH);
			raw_consume(in, avail - zs->avail_in);
			produced = n - zs->avail_out;
			if (r == Z_STREAM_END) {
				in->in_member = false;
			} else if (r == Z_DATA_ERROR || r == Z_NEED_DICT) {
				return gp__error(GP_EFORMAT, "corrupt gzip data (%s)",
				                 zs->msg ? zs->msg : "zlib error");
			} else if (r == Z_MEM_ERROR) {
				return gp__error(GP_ENOMEM, "out of memory in zlib");
			} else if (r == Z_BUF_ERROR || (produced == 0 && avail == 0)) {
				if (avail == 0 && in->raw_eof)
					return gp__error(GP_ETRUNC, "gzip stream ends early");
			}
		}
#endif
	}
	*got = produced;
	return 0;
}

/* ---- inflate ahead ---- */

static void *prefetch_main(void *arg)
{
	struct gp_input *in = arg;
	struct prefetch *pf = in->pf;

	for (;;) {
		size_t got = 0, k;
		int rc;

		pthread_mutex_lock(&pf->mu);
		while (pf->head - pf->tail == GP_PF_SLOTS && !pf->stop)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->stop) {
			pthread_mutex_unlock(&pf->mu);
			return NULL;
		}
		k = pf->head % GP_PF_SLOTS;
		pthread_mutex_unlock(&pf->mu);

		/* the slot at head is the producer's alone until head moves */
		rc = gz_read(in, pf->slot[k], GP_PF_SLOT, &got);

		pthread_mutex_lock(&pf->mu);
		if (rc) {
			pf->rc = rc;
			snprintf(pf->err, sizeof(pf->err), "%s", gp_last_error());
		}
		if (rc || !got) {
			pf->done = true;
		} else {
			pf->len[k] = got;
			pf->head++;
		}
		pthread_cond_broadcast(&pf->cv);
		pthread_mutex_unlock(&pf->mu);
		if (rc || !got)
			return NULL;
	}
}

/* starts the thread for a large gzip file when a second CPU exists; else inline */
static void prefetch_start(struct gp_input *in)
{
	struct prefetch *pf;
	size_t i;

	if (in->no_prefetch || in->fd < 0 || !in->size_known || in->file_size < GP_PF_MIN_FILE ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	pf = gp__calloc(1, sizeof(*pf));
	if (!pf)
		return;
	for (i = 0; i < GP_PF_SLOTS; i++) {
		pf->slot[i] = gp__malloc(GP_PF_SLOT);
		if (!pf->slot[i])
			goto fail;
	}
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	in->pf = pf;
	if (pthread_create(&pf->tid, NULL, prefetch_main, in) == 0)
		return;
	in->pf = NULL;
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
fail:
	for (i = 0; i < GP_PF_SLOTS; i++)
		gp__free(pf->slot[i]);
	gp__free(pf);
}

static void prefetch_stop(struct gp_input *in)
{
	struct prefetch *pf = in->pf;
	size_t i;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->tid, NULL);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	for (i = 0; i < GP_PF_SLOTS; i++)
		gp__free(pf->slot[i]);
	gp__free(pf);
	in->pf = NULL;
}

static int prefetch_read(struct gp_input *in, char *buf, size_t n, size_t *got)
{
	struct prefetch *pf = in->pf;
	size_t k, take;

	pthread_mutex_lock(&pf->mu);
	while (pf->head == pf->tail && !pf->done)
		pthread_cond_wait(&pf->cv, &pf->mu);
	if (pf->head == pf->tail) {
		int rc = pf->rc;

		pthread_mutex_unlock(&pf->mu);
		if (rc)
			return gp__error(rc, "%s", pf->err);
		return 0; /* the end */
	}
	k = pf->tail % GP_PF_SLOTS;
	pthread_mutex_unlock(&pf->mu);

	/* the slot at tail is the consumer's alone until tail moves */
	take = pf->len[k] - pf->pos;
	if (take > n)
		take = n;
	memcpy(buf, pf->slot[k] + pf->pos, take);
	pf->pos += take;
	*got = take;
	if (pf->pos == pf->len[k]) {
		pthread_mutex_lock(&pf->mu);
		pf->pos = 0;
		pf->tail++;
		pthread_cond_broadcast(&pf->cv);
		pthread_mutex_unlock(&pf->mu);
	}
	return 0;
}

int gp__input_read(struct gp_input *in, char *buf, size_t n, size_t *got)
{
	int rc;

	*got = 0;
	if (n == 0)
		return 0;
	if (!in->started && (rc = start(in)))
		return rc;
	if (in->gzip && !in->pf_checked) {
		in->pf_checked = true;
		prefetch_start(in);
	}
	if (in->pf)
		return prefetch_read(in, buf, n, got);
	if (in->gzip)
		return gz_read(in, buf, n, got);
	return plain_read(in, buf, n, got);
}

void gp__input_no_prefetch(struct gp_input *in)
{
	in->no_prefetch = true;
}

int gp__input_start(struct gp_input *in)
{
	return in->started ? 0 : start(in);
}

bool gp__input_gzip_size_hint(const struct gp_input *in, uint64_t *size)
{
	unsigned char b[4];
	uint64_t isize;
	ssize_t k;

	/* a gzip member is at least 18 bytes; its last 4 are ISIZE, little-endian */
	if (!in->started || !in->gzip || in->fd < 0 || !in->size_known || in->file_size < 18)
		return false;
	do
		k = pread(in->fd, b, sizeof(b), (off_t)(in->file_size - 4));
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)sizeof(b))
		return false;
	isize = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
	/* JSON compresses well: a size below the compressed one is a wrapped or a foreign value */
	if (isize < in->file_size)
		return false;
	*size = isize;
	return true;
}

bool gp__input_is_gzip(const struct gp_input *in)
{
	if (!in->started) {
		/* peek without consuming: only memory input can be asked before reading */
		if (in->fd < 0)
			return in->mem_len >= 2 && in->mem[0] == 0x1f && in->mem[1] == 0x8b;
		return false;
	}
	return in->gzip;
}

bool gp__input_size(const struct gp_input *in, uint64_t *size)
{
	if (gp__input_is_gzip(in) || !in->size_known)
		return false;
	*size = in->file_size;
	return true;
}

bool gp__input_mem_view(const struct gp_input *in, const char **p, size_t *n)
{
	if (in->fd >= 0 || in->mem_pos != 0 || gp__input_is_gzip(in))
		return false;
	*p = (const char *)in->mem;
	*n = in->mem_len;
	return true;
}
