/* SPDX-License-Identifier: MIT */
/*
 * csv.c - `history import --csv FILE`: the layout Apache Otava's CSV source
 * and asv users keep, one run per row:
 *
 *     time,commit,metric1,metric2
 *     2026.01.01 3:00:00 +0100,aaa0,154023,10.43
 *
 * The time column is "time", "timestamp" or "date" (any case); the commit
 * column "commit", "hash", "revision" or "sha" (optional); every other
 * column is a metric. A time is a Unix time in seconds, or a date
 * YYYY-MM-DD (also with "." or "/") with an optional time H:MM[:SS[.frac]]
 * and an optional zone (Z, +HH, +HHMM, +HH:MM), UTC without one. Cells may
 * be quoted with " or ' (a doubled quote inside is one quote). An empty cell
 * is unknown; a row whose metrics are all unknown is no run. Any other bad
 * cell is an error naming the file, line and column, and the whole import is
 * undone; so is a metric named twice in the header, or a value under a column
 * without a name (whose values would otherwise be lost without a word). A
 * UTF-8 byte order mark (spreadsheets write one) is skipped.
 */
#include "history-int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/buf.h"
#include "util/error.h"

#define MAX_COLS 4096
#define MAX_FILE ((size_t)1 << 30)

struct row {
	char *cell[MAX_COLS];
	size_t n;
};

/* splits line [p, end) into cells, unquoted in place (the line is ours) */
static int split(char *p, char *end, struct row *r)
{
	r->n = 0;
	for (;;) {
		char *w = p, *start = p;

		if (r->n == MAX_COLS)
			return GP_ELIMIT;
		if (p < end && (*p == '"' || *p == '\'')) {
			char q = *p++;

			start = w = p;
			for (;;) {
				if (p >= end)
					return GP_EFORMAT; /* an unclosed quote */
				if (*p == q && p + 1 < end && p[1] == q) {
					*w++ = q;
					p += 2;
				} else if (*p == q) {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			if (p < end && *p != ',')
				return GP_EFORMAT;
		} else {
			while (p < end && *p != ',')
				w = ++p;
		}
		r->cell[r->n++] = start;
		if (p >= end) {
			*w = '\0';
			return 0;
		}
		*w = '\0';
		p++; /* the comma */
	}
}

static char *trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static bool parse_num(const char *s, double *out)
{
	char *e;

	errno = 0;
	*out = strtod(s, &e);
	return e != s && !*e && !errno && isfinite(*out);
}

static bool digits(const char **p, int min, int max, int *out)
{
	int n = 0, v = 0;

	while (n < max && isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	*out = v;
	return n >= min;
}

static bool parse_time(const char *s, int64_t *ns)
{
	struct tm tm = { 0 };
	const char *p = s;
	int y, mo, d, hh = 0, mi = 0, ss = 0, zh = 0, zm = 0;
	double frac = 0, secs;
	time_t t;

	if (parse_num(s, &secs)) {
		if (fabs(secs) > 9.2e9)
			return false;
		*ns = (int64_t)llround(secs * 1e9);
		return true;
	}
	if (!digits(&p, 4, 4, &y) || !strchr("-./", *p) || !*p)
		return false;
	p++;
	if (!digits(&p, 1, 2, &mo) || !strchr("-./", *p) || !*p)
		return false;
	p++;
	if (!digits(&p, 1, 2, &d))
		return false;
	if (*p == 'T' || *p == ' ') {
		while (*p == ' ' || *p == 'T')
			p++;
		if (!digits(&p, 1, 2, &hh) || *p++ != ':' || !digits(&p, 2, 2, &mi))
			return false;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, 2, &ss))
				return false;
			if (*p == '.') {
				double scale = 0.1;

				for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
					frac += (*p - '0') * scale;
			}
		}
		while (*p == ' ')
			p++;
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1;

			if (!digits(&p, 2, 2, &zh))
				return false;
			if (*p == ':')
				p++;
			if (isdigit((unsigned char)*p) && !digits(&p, 2, 2, &zm))
				return false;
			zh *= sign;
			zm *= sign;
		}
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mi > 59 || ss > 60)
		return false;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mi;
	tm.tm_sec = ss;
	t = timegm(&tm);
	/* int64 nanoseconds reach from 1677 to 2262: years 1700 to 2200 */
	if (y < 1700 || y > 2200)
		return false;
	*ns = ((int64_t)t - (int64_t)zh * 3600 - (int64_t)zm * 60) * 1000000000 +
	      (int64_t)llround(frac * 1e9);
	return true;
}

static bool is_one_of(const char *s, const char *const *names)
{
	for (; *names; names++)
		if (!strcasecmp(s, *names))
			return true;
	return false;
}

/* units and direction from a column's name: *_ns, *_bytes, rates higher */
static void guess(const char *name, const char **unit, bool *higher)
{
	size_t n = strlen(name);
	static const char *const up[] = { "throughput", "per_s", "/s",        "fps", "qps",
		                          "ops",        "rate",  "bandwidth", NULL };

	*unit = "";
	*higher = false;
	for (const char *const *u = up; *u; u++)
		if (strcasestr(name, *u))
			*higher = true;
	if (n > 3 && !strcmp(name + n - 3, "_ns"))
		*unit = "ns";
	else if (n > 3 && !strcmp(name + n - 3, "_ms"))
		*unit = "ms";
	else if (n > 6 && !strcmp(name + n - 6, "_bytes"))
		*unit = "bytes";
	else if (*higher)
		*unit = "/s";
}

static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct gp_buf b = GP_BUF_INIT;
	char chunk[65536];
	size_t got;

	if (!f)
		return gp__error(errno == ENOENT ? GP_ENOENT : GP_EIO, "'%s': %s", path,
		                 strerror(errno));
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + got > MAX_FILE || gp__buf_add(&b, chunk, got)) {
			fclose(f);
			gp__buf_release(&b);
			return gp__error(GP_ELIMIT, "'%s': larger than 1 GiB, or out of memory",
			                 path);
		}
	}
	if (ferror(f)) {
		fclose(f);
		gp__buf_release(&b);
		return gp__error(GP_EIO, "'%s': cannot read", path);
	}
	fclose(f);
	*len = b.len;
	*text = gp__buf_detach(&b, NULL);
	return *text ? 0 : gp__error(GP_ENOMEM, "out of memory");
}

struct hdr {
	struct row r;
	size_t tcol, ccol; /* SIZE_MAX: none */
	const char *unit[MAX_COLS];
	bool higher[MAX_COLS];
	struct named {
		const char *name;
		size_t col;
	} order[MAX_COLS]; /* the metric columns, by name */
};

static int names_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->col > y->col) - (x->col < y->col);
}

/* a metric named twice: the second's values would be lost; columns counted from 1 */
static int check_names(const char *path, struct hdr *hd)
{
	size_t n = 0;

	for (size_t c = 0; c < hd->r.n; c++)
		if (c != hd->tcol && c != hd->ccol && *hd->r.cell[c])
			hd->order[n++] = (struct named){ hd->r.cell[c], c };
	qsort(hd->order, n, sizeof(hd->order[0]), names_cmp);
	for (size_t k = 1; k < n; k++)
		if (!strcmp(hd->order[k - 1].name, hd->order[k].name))
			return gp__error(GP_EFORMAT,
			                 "'%s': line 1: columns %zu and %zu are both named '%s'",
			                 path, hd->order[k - 1].col + 1, hd->order[k].col + 1,
			                 hd->order[k].name);
	return 0;
}

int gp__hcsv_parse(const char *path, char *text, size_t len, const struct gp_history_meta *meta,
                   const char *tags, gp__hcsv_run_fn fn, void *user, size_t *nrows)
{
	static const char *const tnames[] = { "time", "timestamp", "date", NULL };
	static const char *const cnames[] = { "commit", "hash", "revision", "sha", NULL };
	struct hdr *hd = gp__calloc(1, sizeof(*hd));
	struct row *r = gp__calloc(1, sizeof(*r));
	char *p = text, *end = text + len;
	size_t line = 0, rows = 0;
	int rc = 0;

	if (!hd || !r) {
		rc = gp__error(GP_ENOMEM, "out of memory");
		goto out;
	}
	hd->tcol = hd->ccol = SIZE_MAX;
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3; /* a byte order mark */
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		struct gp__hrun run = { .sm_clock_hz = NAN, .kind = "csv" };
		char src[64];

		line++;
		if (le > p && le[-1] == '\r')
			le--;
		if (le == p) { /* a blank line */
			p = nl ? nl + 1 : end;
			continue;
		}
		if (memchr(p, '\0', (size_t)(le - p))) {
			rc = gp__error(GP_EFORMAT, "'%s': line %zu: a NUL byte (not a text file)",
			               path, line);
			goto out;
		}
		*le = '\0';
		rc = split(p, le, hd->r.n ? r : &hd->r);
		if (rc) {
			rc = gp__error(GP_EFORMAT, "'%s': line %zu: %s", path, line,
			               rc == GP_ELIMIT
			                   ? "more than 4096 columns"
			                   : "a quote is not closed where the cell ends");
			goto out;
		}
		p = nl ? nl + 1 : end;
		if (rows == 0 && hd->tcol == SIZE_MAX && r->n == 0) {
			/* the header */
			for (size_t c = 0; c < hd->r.n; c++) {
				hd->r.cell[c] = trim(hd->r.cell[c]);
				if (hd->tcol == SIZE_MAX && is_one_of(hd->r.cell[c], tnames))
					hd->tcol = c;
				else if (hd->ccol == SIZE_MAX && is_one_of(hd->r.cell[c], cnames))
					hd->ccol = c;
				else
					guess(hd->r.cell[c], &hd->unit[c], &hd->higher[c]);
			}
			if (hd->tcol == SIZE_MAX) {
				rc = gp__error(
				    GP_EFORMAT,
				    "'%s': line 1: no time column (named time, timestamp or "
				    "date) among the %zu columns",
				    path, hd->r.n);
				goto out;
			}
			if (hd->r.n < 2 + (hd->ccol != SIZE_MAX)) {
				rc = gp__error(GP_EFORMAT, "'%s': line 1: no metric column", path);
				goto out;
			}
			rc = check_names(path, hd);
			if (rc)
				goto out;
			continue;
		}
		if (r->n != hd->r.n) {
			rc = gp__error(GP_EFORMAT, "'%s': line %zu: %zu cells, the header has %zu",
			               path, line, r->n, hd->r.n);
			goto out;
		}
		snprintf(src, sizeof(src), ":%zu", line);
		run.time_ns = meta->time_ns;
		if (!parse_time(trim(r->cell[hd->tcol]), &run.time_ns)) {
			rc =
			    gp__error(GP_EFORMAT, "'%s': line %zu, column '%s': '%s' is not a time",
			              path, line, hd->r.cell[hd->tcol], r->cell[hd->tcol]);
			goto out;
		}
		for (size_t c = 0; c < r->n && !rc; c++) {
			char *cell = trim(r->cell[c]);
			double v;

			if (c == hd->tcol || c == hd->ccol || !*cell)
				continue;
			if (!*hd->r.cell[c]) {
				rc = gp__error(
				    GP_EFORMAT,
				    "'%s': line %zu, column %zu: '%s' under a column without "
				    "a name",
				    path, line, c + 1, cell);
				break;
			}
			if (!parse_num(cell, &v)) {
				rc = gp__error(GP_EFORMAT,
				               "'%s': line %zu, column '%s': '%s' is not a number",
				               path, line, hd->r.cell[c], cell);
				break;
			}
			rc = gp__hrun_metric(&run, hd->r.cell[c], hd->unit[c], hd->higher[c], v);
		}
		if (!rc && !run.nm) { /* every metric unknown: no run */
			gp__hrun_release(&run);
			continue;
		}
		if (!rc) {
			const char *commit = hd->ccol != SIZE_MAX ? trim(r->cell[hd->ccol]) : NULL;
			struct gp_buf sb = GP_BUF_INIT;

			if ((commit && *commit && !(run.commit = gp__strdup(commit))) ||
			    (!commit && meta->commit && !(run.commit = gp__strdup(meta->commit))) ||
			    (meta->branch && !(run.branch = gp__strdup(meta->branch))) ||
			    !(run.testbed = gp__strdup(meta->testbed ? meta->testbed : "csv")) ||
			    !(run.tags_json = gp__strdup(tags)) ||
			    gp__buf_addf(&sb, "%s%s", path, src) ||
			    !(run.source = gp__buf_detach(&sb, NULL)))
				rc = gp__error(GP_ENOMEM, "out of memory");
			gp__buf_release(&sb);
		}
		if (!rc)
			rc = fn(user, &run);
		gp__hrun_release(&run);
		if (rc)
			goto out;
		rows++;
	}
	if (hd->tcol == SIZE_MAX)
		rc = gp__error(GP_EFORMAT, "'%s': empty: no header row", path);
	*nrows = rows;
out:
	gp__free(hd);
	gp__free(r);
	return rc;
}

static int write_run(void *user, struct gp__hrun *r)
{
	return gp__hrun_write(user, r, NULL);
}

static int check_run(void *user, struct gp__hrun *r)
{
	(void)user, (void)r;
	return 0;
}

int gp_history_import_csv(struct gp_history *h, const char *path,
                          const struct gp_history_meta *meta, size_t *nrows)
{
	char *text = NULL, *tags = NULL, *copy = NULL;
	size_t len = 0, n = 0;
	int rc;

	if (!h || !path || !meta || meta->size < sizeof(*meta))
		return gp__error(GP_EINVAL, "gp_history_import_csv: bad arguments");
	rc = read_file(path, &text, &len);
	if (!rc)
		rc = gp__hist_tags_json(meta, &tags);
	/*
	 * The whole file is checked before the database is touched (the parse
	 * writes into its text: a copy): a bad row writes nothing, nor makes a
	 * new file, and the write lock is not held while the file is read.
	 */
	if (!rc && !(copy = gp__malloc(len + 1)))
		rc = gp__error(GP_ENOMEM, "out of memory");
	if (!rc) {
		memcpy(copy, text, len);
		copy[len] = '\0';
		rc = gp__hcsv_parse(path, copy, len, meta, tags, check_run, NULL, &n);
		gp__free(copy);
	}
	if (!rc)
		rc = gp__hist_begin(h);
	if (rc)
		goto out;
	rc = gp__hcsv_parse(path, text, len, meta, tags, write_run, h, &n);
	if (!rc)
		rc = gp__hist_commit(h);
	if (rc)
		gp__hist_rollback(h);
	else if (nrows)
		*nrows = n;
out:
	gp__free(text);
	gp__free(tags);
	return rc;
}
