/* SPDX-License-Identifier: MIT */
/*
 * scan.c - the parameters of a bench run, as hyperfine has them:
 * `--parameter-scan NAME MIN MAX [--parameter-step-size STEP]` (the values
 * from MIN to MAX), `--parameter-list NAME A,B,C`, and "{NAME}" replaced
 * by a value in a command, a name, a --prepare or --cleanup command.
 *
 * A scan's decimals are counted in fixed point (the values scaled by a
 * power of ten to integers), so 0.3 .. 0.7 by 0.2 is "0.3", "0.5", "0.7"
 * and never "0.7000000000000001" nor one value short; each value is
 * written as hyperfine's decimal arithmetic writes it (MIN as given, then
 * as many decimals as MIN or STEP has: 0 .. 1 by 0.25 is "0", "0.25",
 * "0.50", "0.75", "1.00"). Pure functions of
 * their arguments; used by the CLI (cmd-bench.c) and the unit tests.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpuprof/bench.h"
#include "util/buf.h"
#include "util/error.h"

#define MAX_DECIMALS 9
#define MAX_VALUES   10000
#define MAX_SCALED   INT64_C(1000000000000000000) /* |value| * 10^decimals below this */

/* the decimals of number text @p s ("0.25": 2), or -1 when it is not [+-]D[.D] */
static int decimals_of(const char *s)
{
	const char *p = s;
	int d = 0;

	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p)) {
			p++;
			d++;
		}
	}
	return *p ? -1 : d;
}

/* @p s (checked by decimals_of) times 10^@p d into *@p out; -1 when too large */
static int scaled(const char *s, int d, int64_t *out)
{
	const char *p = s;
	bool neg = false;
	int64_t v = 0;
	int frac = -1;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; *p; p++) {
		if (*p == '.') {
			frac = 0;
			continue;
		}
		if (v > (MAX_SCALED - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
		if (frac >= 0)
			frac++;
	}
	for (frac = frac < 0 ? 0 : frac; frac < d; frac++) {
		if (v > MAX_SCALED / 10)
			return -1;
		v *= 10;
	}
	*out = neg ? -v : v;
	return 0;
}

/* fixed point @p v with @p d decimals as text */
static void fixed_text(char *buf, size_t n, int64_t v, int d)
{
	int64_t p10 = 1;
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	d = d < 0 ? 0 : d > MAX_DECIMALS ? MAX_DECIMALS : d;
	for (int i = 0; i < d; i++)
		p10 *= 10;
	if (!d)
		snprintf(buf, n, "%s%llu", v < 0 ? "-" : "", (unsigned long long)a);
	else
		snprintf(buf, n, "%s%llu.%0*llu", v < 0 ? "-" : "",
		         (unsigned long long)(a / (uint64_t)p10), d,
		         (unsigned long long)(a % (uint64_t)p10));
}

GP_API int gp_bench_scan_values(const char *min, const char *max, const char *step,
                                struct gp_value **out)
{
	int dmin, dmax, dstep = 0, d;
	int64_t lo, hi, st, v;
	struct gp_value *arr;
	uint64_t count;
	char buf[64];

	if (!out)
		return gp__error(GP_EINVAL, "no output");
	*out = NULL;
	if (!min || !max)
		return gp__error(GP_EINVAL, "a parameter scan needs a minimum and a maximum");
	if ((dmin = decimals_of(min)) < 0)
		return gp__error(GP_EINVAL, "parameter scan: minimum '%s' is not a number", min);
	if ((dmax = decimals_of(max)) < 0)
		return gp__error(GP_EINVAL, "parameter scan: maximum '%s' is not a number", max);
	if (step && (dstep = decimals_of(step)) < 0)
		return gp__error(GP_EINVAL, "parameter scan: step size '%s' is not a number", step);
	if (!step && (dmin || dmax))
		return gp__error(GP_EINVAL,
		                 "parameter scan %s .. %s: decimal bounds need a step size "
		                 "(--parameter-step-size)",
		                 min, max);
	d = dmin > dmax ? dmin : dmax;
	d = d > dstep ? d : dstep;
	if (d > MAX_DECIMALS)
		return gp__error(GP_EINVAL, "parameter scan: at most %d decimals", MAX_DECIMALS);
	if (scaled(min, d, &lo) || scaled(max, d, &hi) || scaled(step ? step : "1", d, &st))
		return gp__error(GP_EINVAL, "parameter scan %s .. %s: a number is too large", min,
		                 max);
	if (st <= 0)
		return gp__error(GP_EINVAL, "parameter scan: step size '%s' is not above 0",
		                 step ? step : "1");
	if (lo > hi)
		return gp__error(
		    GP_EINVAL, "parameter scan: the minimum %s is above the maximum %s", min, max);
	count = (uint64_t)(hi - lo) / (uint64_t)st + 1;
	if (count > MAX_VALUES)
		return gp__error(GP_ELIMIT, "parameter scan %s .. %s: %llu values, at most %d", min,
		                 max, (unsigned long long)count, MAX_VALUES);
	if (!(arr = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	for (v = lo; v <= hi; v += st) {
		/* hyperfine's decimals: MIN as written, then those of MIN + k STEP */
		int dp = v == lo ? dmin : dmin > dstep ? dmin : dstep;
		int64_t p10 = 1;

		for (int i = dp; i < d; i++)
			p10 *= 10;
		fixed_text(buf, sizeof(buf), v / p10, dp);
		if (gp_arr_push(arr, gp_value_str(buf))) {
			gp_value_free(arr);
			return gp__error(GP_ENOMEM, "out of memory");
		}
		if (hi - v < st)
			break;
	}
	*out = arr;
	return 0;
}

GP_API int gp_bench_list_values(const char *list, struct gp_value **out)
{
	struct gp_value *arr;
	struct gp_buf b;
	const char *p;
	int rc = 0;

	if (!out)
		return gp__error(GP_EINVAL, "no output");
	*out = NULL;
	if (!list)
		return gp__error(GP_EINVAL, "no parameter list");
	if (!(arr = gp_value_array()))
		return gp__error(GP_ENOMEM, "out of memory");
	gp__buf_init(&b, 0);
	for (p = list;; p++) {
		if (*p == '\\' && (p[1] == ',' || p[1] == '\\')) {
			GP_TRY(gp__buf_addch(&b, *++p));
			continue;
		}
		if (*p && *p != ',') {
			GP_TRY(gp__buf_addch(&b, *p));
			continue;
		}
		GP_TRY(gp_arr_push(arr, gp_value_str(b.buf)));
		gp__buf_reset(&b);
		if (!*p)
			break;
		if (gp_value_len(arr) >= MAX_VALUES)
			GP_TRY(gp__error(GP_ELIMIT, "parameter list: more than %d values",
			                 MAX_VALUES));
	}
	*out = arr;
	arr = NULL;
out:
	gp__buf_release(&b);
	gp_value_free(arr);
	return rc;
}

GP_API int gp_bench_subst(const char *tmpl, const struct gp_value *params, char **out)
{
	struct gp_buf b;
	const char *p;
	int rc = 0;

	if (!out)
		return gp__error(GP_EINVAL, "no output");
	*out = NULL;
	if (!tmpl)
		return gp__error(GP_EINVAL, "no template");
	gp__buf_init(&b, 0);
	for (p = tmpl; *p;) {
		size_t i, n = gp_value_len(params);

		if (*p == '{') {
			for (i = 0; i < n; i++) {
				const char *k = gp_obj_key_at(params, i);
				size_t kl = strlen(k);

				if (strncmp(p + 1, k, kl) == 0 && p[1 + kl] == '}' &&
				    gp_value_get_str(gp_obj_value_at(params, i)))
					break;
			}
			if (i < n) {
				GP_TRY(gp__buf_addstr(
				    &b, gp_value_get_str(gp_obj_value_at(params, i))));
				p += strlen(gp_obj_key_at(params, i)) + 2;
				continue;
			}
		}
		GP_TRY(gp__buf_addch(&b, *p++));
	}
	if (!(*out = gp__buf_detach(&b, NULL)))
		rc = gp__error(GP_ENOMEM, "out of memory");
out:
	gp__buf_release(&b);
	return rc;
}
