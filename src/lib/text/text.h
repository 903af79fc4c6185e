/* SPDX-License-Identifier: MIT */
/*
 * text.h - the one text layer: what every command's text and Markdown
 * output is drawn with.
 *
 * - out.c: text being built, the first error kept for the end.
 * - num.c: the number formats. One duration formatter, one byte formatter,
 *   and the counts, percentages, rates and plain numbers beside them. Each
 *   writes into the caller's buffer and returns it; an unknown value (NaN,
 *   infinity) prints as "-", never as 0.
 * - width.c: display width (UTF-8: most characters one column, East Asian
 *   wide ones two, combining marks none), cutting a string to a width with
 *   "…", padding, Markdown escaping, word wrapping.
 * - names.c: names of kernels, calls and operators fitted to a column so
 *   that names that differ stay apart (the rule is below).
 * - device.c: a GPU's label, "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs,
 *   79.2 GiB)", for analyze's header and the report page alike.
 * - findings.c: the Findings section (a numbered list of findings with
 *   their evidence and suggestion), analyze's and aggregate's alike.
 * - table.c: the one table (Linux perf's struct perf_hpp_fmt under
 *   ui/stdio/hist.c): a table is a list of column descriptions (heading,
 *   alignment, width, cut, a cell formatter), drawn as aligned text or as a
 *   Markdown table from the same description.
 *
 * Precision policy, one for every command and for Markdown: durations
 * keep four significant digits and move to the next unit where rounding
 * would reach 1000 of the unit ("999.9 µs", then "1.000 ms"); nanoseconds
 * are integers. Bytes take one decimal in binary units up to PiB and move
 * on where rounding would reach 1024 ("1023.9 KiB", then "1.0 MiB").
 * Rates keep four significant digits too ("0.001250", "49.80", "133.3",
 * "1235"); percentages take one decimal. The HTML page formats in JavaScript
 * (assets/report.js fmtNs, fmtBytes) and is to follow the same policy.
 *
 * Users: analyze/format.c, bench/bench-format.c, compare/format.c,
 * compare/explain.c, aggregate/format.c. Everything here is internal (gp__); nothing prints.
 */
#ifndef GP_TEXT_TEXT_H
#define GP_TEXT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprof/gpuprof.h"
#include "util/buf.h"
#include "util/error.h"

struct gp_value;

/* ---- out.c: text being built ---- */

/** Text being built: the first error sticks in @p rc and later writes do nothing. */
struct gp__out {
	struct gp_buf b;
	int rc;
};

/** gp__buf_addf() unless an error came before. */
void gp__out_addf(struct gp__out *o, const char *fmt, ...) GP_PRINTF(2, 3);

/** Keeps @p rc (a status of a write into o->b) when no error came before. */
void gp__out_keep(struct gp__out *o, int rc);

/**
 * Hands the text over (*@p text, gp_free() it; *@p len, may be NULL), or
 * releases it and @return the first error (GP_ENOMEM, GP_ELIMIT).
 */
int gp__out_detach(struct gp__out *o, char **text, size_t *len);

/* ---- num.c: numbers for people ---- */

/** Flags of the formatters. */
/* GP__FMT_SIGN and GP__FMT_COMPACT are the public flags (gpuprof.h), passed through as they are */
#define GP__FMT_SIGN    GP_FORMAT_SIGN /* "+" before a positive value (and zero) */
#define GP__FMT_WHOLE   0x2u           /* percentages: no decimals, "43%" (prose that rounds) */
#define GP__FMT_GIVEN   0x8u           /* percentages: as given ("%g"): a threshold "5%", "2.5%" */
#define GP__FMT_COMPACT GP_FORMAT_COMPACT /* bytes: "1.5G", three significant digits */

/**
 * A duration in ns: "850 ns", "56.70 µs", "1.234 ms", "12.35 s", "3600.0 s"
 * (four significant digits, see above); "+1.234 ms" with GP__FMT_SIGN.
 * "-" when @p ns is NaN or infinite. @return @p buf.
 */
const char *gp__fmt_dur(char *buf, size_t n, double ns, unsigned flags);

/**
 * A duration in the unit and with the decimals gp__fmt_dur() gives
 * @p ref_ns, so that values printed together share one unit: "11.88 ms ±
 * 0.55 ms", not "11.88 ms ± 552.0 µs". Durations of one line or one
 * statistics block take the unit of their headline value (the median).
 * @p ref_ns unknown: gp__fmt_dur(). @return @p buf.
 */
const char *gp__fmt_dur_like(char *buf, size_t n, double ns, double ref_ns, unsigned flags);

/**
 * Bytes in binary units: "512 B", "1.5 KiB", "12.3 MiB" (one decimal, up to
 * PiB); "+" before a positive value with GP__FMT_SIGN. "-" when unknown.
 * @return @p buf.
 */
const char *gp__fmt_bytes(char *buf, size_t n, double b, unsigned flags);

/** Bytes in the unit gp__fmt_bytes() gives @p ref (one unit per line, as gp__fmt_dur_like()). */
const char *gp__fmt_bytes_like(char *buf, size_t n, double b, double ref, unsigned flags);

/**
 * A percentage with one decimal: "12.3%"; "+12.3%" with GP__FMT_SIGN,
 * "12%" with GP__FMT_WHOLE, a value as the user gave it ("2.5%", "5%")
 * with GP__FMT_GIVEN. No space before "%": the one style of every
 * command's text and Markdown, and of the HTML page ("60.6%"). Every
 * percentage gpuprof prints goes through here. "-" when unknown.
 * @return @p buf.
 */
const char *gp__fmt_pct(char *buf, size_t n, double pct, unsigned flags);

/** A count: "1234" (rounded); "-" when unknown. @return @p buf. */
const char *gp__fmt_count(char *buf, size_t n, double v);

/**
 * A plain number with @p decimals decimals and @p suffix after it
 * ("123.4 W", "2.50"); "-" when unknown. @return @p buf.
 */
const char *gp__fmt_num(char *buf, size_t n, double v, int decimals, const char *suffix);

/**
 * A rate (items/s, GB/s) with four significant digits: "0.1250", "0.0003125",
 * "49.80", "133.3", "16000000" (never "0.000" for a rate above 0); "-" when
 * unknown. @return @p buf.
 */
const char *gp__fmt_rate(char *buf, size_t n, double r);

/**
 * A p-value: "0.0340" (four decimals), "<0.0001" below that, "-" when
 * unknown: what compare's and aggregate's tables show. @return @p buf.
 */
const char *gp__fmt_pvalue(char *buf, size_t n, double p);

/* ---- width.c: widths, cutting, wrapping, escaping ---- */

/** Display columns of UTF-8 @p s: 1 a character, 2 a wide one, 0 a combining mark. */
size_t gp__text_width(const char *s);

/** What gp__text_fit() does with control characters (and 0x7f). */
#define GP__TEXT_CTRL_SPACE 0x1u /* they become ' ' (default: '?') */

/**
 * Appends @p s cut to @p w columns: a longer string keeps w - 1 columns
 * and ends in "…". Control characters become '?' (' ' with
 * GP__TEXT_CTRL_SPACE); a cut never splits a UTF-8 sequence nor a wide
 * character (the result may then be a column short). @p w 0: no cut.
 * @return 0 or GP_ENOMEM/GP_ELIMIT from the buffer.
 */
int gp__text_fit(struct gp_buf *b, const char *s, size_t w, unsigned flags);

/** Appends @p s padded with spaces to @p w columns: on the left when @p right. */
int gp__text_pad(struct gp_buf *b, const char *s, size_t w, bool right);

/**
 * Appends @p s as one cell of a Markdown table: '|' as "\|", control
 * characters as ' '; inside a code span (@p code) '`' becomes '\''.
 */
int gp__text_md_cell(struct gp_buf *b, const char *s, bool code);

/** How gp__text_wrap() splits words. */
#define GP__WRAP_GLUE 0x1u /* a word of 3 columns or less, or a unit, stays with the one before */
/*
 * The text is a program's or a trace's: control characters become '?',
 * and '\x1f' stands for a space that does not break (printed as ' ').
 * Words split at every single space, so runs of spaces are kept.
 */
#define GP__WRAP_RAW 0x2u

/**
 * Appends @p first, then the words of @p text filled to @p width columns
 * (a word longer than a line stands alone), every further line indented by
 * @p indent spaces; then a newline. Without GP__WRAP_RAW runs of spaces
 * between words count as one.
 */
int gp__text_wrap(struct gp_buf *b, const char *first, const char *text, size_t width,
                  size_t indent, unsigned flags);

/* ---- names.c: names in tables ---- */

/*
 * Names in tables. A name wider than its column becomes, in this order,
 * until it fits (names.c shows examples):
 *   0. its display form: demangled when mangled ("_Z...", util/demangle.h),
 *      without the "void " every kernel returns (always, even when it fits);
 *   1. its short form: namespace qualifiers dropped, the function's own
 *      parameter list dropped, inner parameter lists shown as "(…)";
 *   2. template arguments nested two deep or more shown as "<…>";
 *   3. cut at the end with "…".
 * Rows of one column whose cut names are equal while their names differ
 * then show the name's start, "…", and the name from where it differs,
 * cut. Steps 1-2 apply only to C++ names (with "::" or "<", brackets
 * balanced). Width 0 keeps names whole (step 0 only). Control characters
 * become '?'.
 */

/**
 * Fits the @p n names @p names (NULL: "-") to @p w columns by the rule
 * above: out[i] for names[i], each freed by gp__names_free().
 * @return 0 or GP_ENOMEM (then every out[i] is NULL).
 */
int gp__names_fit(char **out, const char *const *names, size_t n, size_t w);

/**
 * gp__names_fit() over member @p key of the first @p n rows of report array
 * @p rows (a row without it: "-"); @p flags GP__TEXT_CTRL_SPACE: control
 * characters as spaces (default '?').
 */
int gp__names_fit_rows(char **out, const struct gp_value *rows, size_t n, const char *key, size_t w,
                       unsigned flags);

/** Frees the @p n strings of @p names (each set to NULL). */
void gp__names_free(char **names, size_t n);

/* ---- device.c: a GPU's label ---- */

/**
 * Appends the label of device @p d (an element of overview.devices):
 * "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)", "AMD Instinct MI300X
 * (gfx9.4, 304 CUs, 192.0 GiB)" when @p amd or the device is AMD's (vendor
 * "amd", a name starting "AMD "), "unnamed GPU (sm_80)"; what @p d does not
 * say is left out; control characters become '?'.
 * @return 0; GP_ENOENT when @p d says nothing of the device (nothing
 * appended); GP_ENOMEM or GP_ELIMIT from the buffer.
 */
int gp__text_device(struct gp_buf *b, const struct gp_value *d, bool amd);

/* ---- findings.c: the Findings section ---- */

/**
 * Appends "\nFindings\n" and the numbered findings of array @p fs (the
 * shape of analyze's findings: severity, title, evidence, suggestion)
 * wrapped to @p width columns; "nothing stands out" when it is empty;
 * nothing when @p fs is NULL (no findings in the document).
 */
void gp__text_findings(struct gp__out *o, const struct gp_value *fs, int width);

/**
 * Appends the members of object @p ev as one wrapped line "key=value, ..."
 * after @p indent spaces and @p first: a value by its key's unit suffix
 * (_ns a duration, _pct a percentage, ...bytes bytes), null ones left out;
 * nothing when none is left. A finding's evidence, aggregate's desync.
 */
void gp__text_evidence(struct gp__out *o, const struct gp_value *ev, int width, int indent,
                       const char *first);

/* ---- table.c: the one table ---- */

struct gp__col;

/**
 * A cell formatter: the text of column @p c for row @p row (the caller's:
 * a report row, a struct), written into @p buf or returned as a string that
 * outlives the call.
 */
typedef const char *gp__cell_fn(char *buf, size_t n, const struct gp__col *c, const void *row);

/** Column flags. */
#define GP__COL_LEFT 0x1u /* left-aligned (default: right) */
#define GP__COL_CODE 0x2u /* Markdown: the cell is a code span */
#define GP__COL_CTRL 0x4u /* cut cells: control characters become ' ' (default '?') */
/* a name column: cells fitted to `cut` columns by the names rule (0: whole); see gp__table_rows */
#define GP__COL_NAME 0x8u

/** One column: how its heading and its cells are drawn. */
struct gp__col {
	const char *head;    /* text heading */
	const char *md_head; /* Markdown heading; NULL: head */
	size_t width;        /* text: cells are padded to this many columns */
	size_t cut;          /* cells are cut to this many columns ("…"); 0: never */
	const char *gap;     /* text: printed before the cell; NULL: nothing */
	unsigned flags;      /* GP__COL_* */
	gp__cell_fn *cell;   /* NULL: rows are given as strings (gp__table_cells) */
	const char *key;     /* for the formatter: the member of the row it shows */
};

/** A table: columns drawn as aligned text or, when @p md, Markdown. */
struct gp__table {
	const struct gp__col *cols;
	size_t n;
	const char *indent; /* text: before each line; NULL: nothing */
	bool md;
};

/**
 * The heading (Markdown: and the alignment row). In text, a left-aligned
 * last column is not padded, so no line ends in spaces.
 */
int gp__table_head(struct gp_buf *b, const struct gp__table *t);

/** One row of @p t, each cell from its column's formatter over @p row (none: empty). */
int gp__table_row(struct gp_buf *b, const struct gp__table *t, const void *row);

/**
 * Rows @p rows[0..n) of @p t, as gp__table_row() each; a name column
 * (GP__COL_NAME, with a cell formatter) is fitted over all the rows at once,
 * so that names that differ stay apart.
 */
int gp__table_rows(struct gp_buf *b, const struct gp__table *t, const void *const *rows, size_t n);

/** One row of @p t from ready cells: @p cells[i] for column i (NULL: "-"). */
int gp__table_cells(struct gp_buf *b, const struct gp__table *t, const char *const *cells);

/*
 * Cell formatters over a report row (a struct gp_value object), reading
 * member c->key: a duration, bytes, a percentage, a count, a string.
 */
gp__cell_fn gp__cell_dur, gp__cell_bytes, gp__cell_pct, gp__cell_count, gp__cell_str;

#endif
