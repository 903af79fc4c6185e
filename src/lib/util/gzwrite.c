/* SPDX-License-Identifier: MIT */
/*
 * gzwrite.c - a streaming gzip compressor (gzwrite.h), under the atomic
 * file writer (lockfile.c): a file whose name ends in ".gz" is written
 * compressed, whichever command writes it, as its name promises.
 *
 * Built on the gzip library the readers use (source/input.c inflates with
 * ISA-L when CMake finds it, else zlib): ISA-L's isal_deflate at level 1,
 * else zlib's deflate at level 1 (gzip -1: fast; traces compress about ten
 * to one even so). Either writes one gzip member with a fixed header (no
 * name, mtime 0), so the same input gives the same bytes from one build.
 * Memory: the compressor's state and one output buffer, whatever the input.
 */
#include "gzwrite.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "gpuprof-config.h"

#if GP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#elif GP_HAVE_ZLIB
#include <zlib.h>
#endif

#define OUT_SIZE (128u * 1024u)
#define IN_MAX   (1u << 30) /* the most one compressor call takes (avail_in is 32-bit) */

struct gp__gzw {
	gp__gzw_out_fn out;
	void *user;
	int failed; /* errno value of the first failure, 0 none */
#if GP_HAVE_ISAL
	struct isal_zstream zs;
	uint8_t *level_buf;
#elif GP_HAVE_ZLIB
	z_stream zs;
	bool zs_init;
#endif
	unsigned char buf[OUT_SIZE];
};

#if GP_HAVE_ISAL || GP_HAVE_ZLIB
/* hands the compressed bytes in buf to the output; @return 0 or an errno value */
static int emit(struct gp__gzw *z, size_t n)
{
	if (n && z->out(z->buf, n, z->user))
		return z->failed = errno ? errno : EIO;
	return 0;
}
#endif

int gp__gzw_new(gp__gzw_out_fn out, void *user, struct gp__gzw **zp)
{
	struct gp__gzw *z;

	*zp = NULL;
	if (!(z = gp__calloc(1, sizeof(*z))))
		return ENOMEM;
	z->out = out;
	z->user = user;
#if GP_HAVE_ISAL
	if (!(z->level_buf = gp__malloc(ISAL_DEF_LVL1_DEFAULT))) {
		gp__free(z);
		return ENOMEM;
	}
	isal_deflate_init(&z->zs);
	z->zs.gzip_flag = IGZIP_GZIP;
	z->zs.level = 1;
	z->zs.level_buf = z->level_buf;
	z->zs.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
	z->zs.flush = NO_FLUSH;
#elif GP_HAVE_ZLIB
	/* windowBits 16 + 15: a gzip wrapper with a header of zeros (no name, mtime 0) */
	if (deflateInit2(&z->zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		gp__free(z);
		return ENOMEM;
	}
	z->zs_init = true;
#else
	gp__free(z);
	return ENOTSUP;
#endif
	*zp = z;
	return 0;
}

/* one compressor pass over @p n bytes (@p end: the last input); @return 0 or an errno value */
static int deflate_some(struct gp__gzw *z, const void *p, size_t n, bool end)
{
#if GP_HAVE_ISAL
	z->zs.next_in = (uint8_t *)(uintptr_t)p;
	z->zs.avail_in = (uint32_t)n;
	z->zs.end_of_stream = end;
	for (;;) {
		z->zs.next_out = z->buf;
		z->zs.avail_out = OUT_SIZE;
		if (isal_deflate(&z->zs) != COMP_OK)
			return z->failed = EIO;
		if (emit(z, OUT_SIZE - z->zs.avail_out))
			return z->failed;
		if (end ? z->zs.internal_state.state == ZSTATE_END
		        : !z->zs.avail_in && z->zs.avail_out)
			return 0;
	}
#elif GP_HAVE_ZLIB
	z->zs.next_in = (Bytef *)(uintptr_t)p;
	z->zs.avail_in = (uInt)n;
	for (;;) {
		int r;

		z->zs.next_out = z->buf;
		z->zs.avail_out = OUT_SIZE;
		r = deflate(&z->zs, end ? Z_FINISH : Z_NO_FLUSH);
		if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
			return z->failed = EIO;
		if (emit(z, OUT_SIZE - z->zs.avail_out))
			return z->failed;
		if (end ? r == Z_STREAM_END : !z->zs.avail_in && z->zs.avail_out)
			return 0;
	}
#else
	(void)p;
	(void)n;
	(void)end;
	return z->failed = ENOTSUP;
#endif
}

int gp__gzw_write(struct gp__gzw *z, const void *p, size_t n)
{
	const char *c = p;

	if (z->failed)
		return z->failed;
	while (n) {
		size_t k = n < IN_MAX ? n : IN_MAX;

		if (deflate_some(z, c, k, false))
			return z->failed;
		c += k;
		n -= k;
	}
	return 0;
}

int gp__gzw_finish(struct gp__gzw *z)
{
	if (z->failed)
		return z->failed;
	return deflate_some(z, NULL, 0, true);
}

void gp__gzw_free(struct gp__gzw *z)
{
	if (!z)
		return;
#if GP_HAVE_ISAL
	gp__free(z->level_buf);
#elif GP_HAVE_ZLIB
	if (z->zs_init)
		deflateEnd(&z->zs);
#endif
	gp__free(z);
}

bool gp__gzw_wanted(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}
