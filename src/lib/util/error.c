/* SPDX-License-Identifier: MIT */
/*
 * error.c - status strings, the thread-local last-error string, the log
 * callback and checked allocation with an allocation-torture hook.
 */
#include "error.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof-config.h"

static _Thread_local char last_error[1024];
static gp_log_fn log_fn;
static void *log_user;
static atomic_long fail_countdown;

GP_API const char *gp_strerror(int status)
{
	switch (status) {
	case GP_OK:
		return "success";
	case GP_ENOMEM:
		return "out of memory";
	case GP_EINVAL:
		return "invalid argument";
	case GP_EIO:
		return "input/output error";
	case GP_ENODEV:
		return "no such device";
	case GP_ENOTSUP:
		return "not supported";
	case GP_EFORMAT:
		return "malformed input";
	case GP_ETRUNC:
		return "input truncated";
	case GP_EVERSION:
		return "unsupported version";
	case GP_ELIMIT:
		return "limit exceeded";
	case GP_ENOENT:
		return "not found";
	default:
		return "unknown error";
	}
}

GP_API const char *gp_last_error(void)
{
	return last_error;
}

GP_API void gp_clear_error(void)
{
	last_error[0] = '\0';
}

int gp__error(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

void gp__error_prefix(const char *fmt, ...)
{
	char prefix[512], old[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, last_error, sizeof(old));
	{
		size_t pl = strnlen(prefix, sizeof(prefix) - 1);
		size_t ol = strnlen(old, sizeof(old) - 1);

		if (pl > sizeof(last_error) - 3)
			pl = sizeof(last_error) - 3;
		memcpy(last_error, prefix, pl);
		memcpy(last_error + pl, ": ", 2);
		if (ol > sizeof(last_error) - pl - 3)
			ol = sizeof(last_error) - pl - 3;
		memcpy(last_error + pl + 2, old, ol);
		last_error[pl + 2 + ol] = '\0';
	}
}

GP_API void gp_set_log(gp_log_fn fn, void *user)
{
	log_user = user;
	log_fn = fn;
}

void gp__log(enum gp_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_user);
}

void gp__test_fail_alloc_after(long n)
{
	atomic_store(&fail_countdown, n);
}

static int torture_fail(void)
{
	long v = atomic_load(&fail_countdown);

	if (v <= 0)
		return 0;
	v = atomic_fetch_sub(&fail_countdown, 1);
	return v == 1;
}

void *gp__malloc(size_t size)
{
	if (torture_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *gp__calloc(size_t n, size_t size)
{
	if (torture_fail())
		return NULL;
	if (n == 0 || size == 0)
		return calloc(1, 1);
	return calloc(n, size);
}

void *gp__reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (torture_fail())
		return NULL;
	return realloc(p, (n && size) ? n * size : 1);
}

char *gp__strndup(const char *s, size_t n)
{
	char *d;

	if (n == SIZE_MAX)
		return NULL;
	d = gp__malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *gp__strdup(const char *s)
{
	return gp__strndup(s, strlen(s));
}

void gp__free(void *p)
{
	free(p);
}

GP_API void gp_free(void *p)
{
	free(p);
}

int gp__grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return gp__error(GP_ENOMEM, "array size overflow");
		ncap *= 2;
	}
	np = gp__reallocarray(*p, ncap, size);
	if (!np)
		return gp__error(GP_ENOMEM, "out of memory growing an array to %zu elements", ncap);
	*p = np;
	*cap = ncap;
	return 0;
}

GP_API const char *gp_version(void)
{
	return GP_VERSION_STRING;
}
