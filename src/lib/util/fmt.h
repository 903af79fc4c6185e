/* SPDX-License-Identifier: MIT */
/*
 * fmt.h - numbers for people, shared by the tables of bench and compare.
 */
#ifndef GP_UTIL_FMT_H
#define GP_UTIL_FMT_H

#include <stdbool.h>
#include <stddef.h>

/** A duration in ns as "1.234 ms" (s, ms, µs, ns); "+" before a positive one when @p sign;
 * "-" for NaN or infinity. @return @p buf. */
const char *gp__fmt_ns(char *buf, size_t n, double ns, bool sign);
/** Bytes as "1.50 MiB" (B, KiB ... TiB); "-" for NaN or infinity. @return @p buf. */
const char *gp__fmt_bytes(char *buf, size_t n, double b);
/** qsort comparison of doubles, ascending. */
int gp__cmp_double(const void *a, const void *b);

#endif
