/* SPDX-License-Identifier: MIT */
/*
 * test_text.c - the text layer (text/text.h): the number formats at their
 * boundaries (unit changes, rounding, zero, negative, unknown, huge), display
 * width of UTF-8, cutting, wrapping, and the table in text and Markdown.
 */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "gpuprof/analyze.h"
#include "gpuprof/gpuprof.h"
#include "gpuprof/value.h"
#include "text/text.h"

#define DUR(ns, fl)  gp__fmt_dur(buf, sizeof(buf), (ns), (fl))
#define BYTES(b, fl) gp__fmt_bytes(buf, sizeof(buf), (b), (fl))

static void test_dur(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(DUR(0, 0), "0 ns");
	assert_string_equal(DUR(-0.2, 0), "0 ns"); /* no "-0" */
	assert_string_equal(DUR(850, 0), "850 ns");
	assert_string_equal(DUR(999.4, 0), "999 ns");
	assert_string_equal(DUR(999.5, 0), "1.000 µs");
	assert_string_equal(DUR(56700, 0), "56.70 µs");
	assert_string_equal(DUR(999940, 0), "999.9 µs");
	/* 999.95 µs rounds to 1000.0 µs: the next unit instead */
	assert_string_equal(DUR(999950, 0), "1.000 ms");
	assert_string_equal(DUR(1234000, 0), "1.234 ms");
	assert_string_equal(DUR(12345678, 0), "12.35 ms");
	assert_string_equal(DUR(999950000, 0), "1.000 s");
	assert_string_equal(DUR(12.345e9, 0), "12.35 s");
	assert_string_equal(DUR(-1234000, 0), "-1.234 ms");
	assert_string_equal(DUR(-850, 0), "-850 ns");
	assert_string_equal(DUR(1234000, GP__FMT_SIGN), "+1.234 ms");
	assert_string_equal(DUR(3.6e12, 0), "3600.0 s");
	/* a value wider than the buffer is cut, never overrun */
	assert_int_equal(strlen(DUR(1e300, 0)), sizeof(buf) - 1);
	assert_string_equal(DUR(NAN, 0), "-");
	assert_string_equal(DUR(INFINITY, GP__FMT_SIGN), "-");
	assert_string_equal(DUR(-INFINITY, 0), "-");
}

static void test_dur_sign(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(DUR(0, GP__FMT_SIGN), "+0 ns");
	assert_string_equal(DUR(-0.3, GP__FMT_SIGN), "+0 ns");
	assert_string_equal(DUR(999.6, GP__FMT_SIGN), "+1.000 µs");
	assert_string_equal(DUR(-999950, GP__FMT_SIGN), "-1.000 ms");
	assert_string_equal(DUR(59202000, GP__FMT_SIGN), "+59.20 ms");
	assert_string_equal(DUR(-116910000, GP__FMT_SIGN), "-116.9 ms");
	/* huge: seconds keep one decimal, however many */
	assert_string_equal(DUR(1e18, 0), "1000000000.0 s");
	assert_string_equal(DUR(NAN, GP__FMT_SIGN), "-");
}

static void test_bytes(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(BYTES(0, 0), "0 B");
	assert_string_equal(BYTES(1023, 0), "1023 B");
	assert_string_equal(BYTES(1024, 0), "1.0 KiB");
	assert_string_equal(BYTES(1536, 0), "1.5 KiB");
	assert_string_equal(BYTES(-1536, 0), "-1.5 KiB");
	assert_string_equal(BYTES(1536, GP__FMT_SIGN), "+1.5 KiB");
	/* the next unit where rounding would read 1024 */
	assert_string_equal(BYTES(1023.4, 0), "1023 B");
	assert_string_equal(BYTES(1023.5, 0), "1.0 KiB");
	assert_string_equal(BYTES(1023.94 * 1024, 0), "1023.9 KiB");
	assert_string_equal(BYTES(1023.96 * 1024, 0), "1.0 MiB");
	assert_string_equal(BYTES(80.0 * (1ull << 30), 0), "80.0 GiB");
	assert_string_equal(BYTES(2.0 * (1ull << 50), 0), "2.0 PiB");
	assert_string_equal(BYTES(4.0 * (1ull << 60), 0), "4096.0 PiB");
	assert_string_equal(BYTES(NAN, 0), "-");
	assert_string_equal(BYTES(-INFINITY, 0), "-");
}

static void test_numbers(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), 12.345, 0), "12.3%");
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), 0, 0), "0.0%");
	/* one style in every command: no space before "%" */
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), 19.1, GP__FMT_SIGN), "+19.1%");
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), 43.4, GP__FMT_WHOLE), "43%");
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), 2.5, GP__FMT_GIVEN), "2.5%");
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), 5, GP__FMT_GIVEN), "5%");
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), -5, GP__FMT_SIGN), "-5.0%");
	assert_string_equal(gp__fmt_pct(buf, sizeof(buf), NAN, 0), "-");
	assert_string_equal(gp__fmt_count(buf, sizeof(buf), 1234.6), "1235");
	assert_string_equal(gp__fmt_count(buf, sizeof(buf), -3), "-3");
	assert_string_equal(gp__fmt_count(buf, sizeof(buf), NAN), "-");
	assert_string_equal(gp__fmt_num(buf, sizeof(buf), 123.45, 1, " W"), "123.5 W");
	assert_string_equal(gp__fmt_num(buf, sizeof(buf), INFINITY, 1, " W"), "-");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 1234.56), "1235");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 999.96), "1000");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 133.333), "133.3");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 49.8), "49.80");
	/* four significant digits under 1 too: a rate above 0 never reads "0.000" */
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 0.125), "0.1250");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 1.0 / 760), "0.001316");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 1e-6), "0.000001000");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 0.99996), "1.000");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 0), "0.000");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), 1.6e7), "16000000");
	assert_string_equal(gp__fmt_rate(buf, sizeof(buf), NAN), "-");
	/* a small buffer is cut, never overrun */
	assert_string_equal(gp__fmt_dur(buf, 4, 1234000, 0), "1.2");
}

/* the public formatters: the same policy, flags of their own, compact sizes for top */
static void test_public_format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(gp_format_duration(999950, 0, b, sizeof(b)), "1.000 ms");
	assert_string_equal(gp_format_duration(56700, GP_FORMAT_SIGN, b, sizeof(b)), "+56.70 µs");
	assert_string_equal(gp_format_duration(NAN, 0, b, sizeof(b)), "-");
	assert_string_equal(gp_format_bytes(2147483648.0, 0, b, sizeof(b)), "2.0 GiB");
	assert_string_equal(gp_format_bytes(512, GP_FORMAT_COMPACT, b, sizeof(b)), "512B");
	assert_string_equal(gp_format_bytes(1536, GP_FORMAT_COMPACT, b, sizeof(b)), "1.5K");
	assert_string_equal(gp_format_bytes(512.0 * 1048576, GP_FORMAT_COMPACT, b, sizeof(b)),
	                    "512M");
	assert_string_equal(gp_format_bytes(80.0 * 1073741824, GP_FORMAT_COMPACT, b, sizeof(b)),
	                    "80G");
	/* rounds to 1024 of a unit: the next unit, as the long form does */
	assert_string_equal(gp_format_bytes(1023.7 * 1048576, GP_FORMAT_COMPACT, b, sizeof(b)),
	                    "1.0G");
	assert_string_equal(gp_format_bytes(9.96 * 1048576, GP_FORMAT_COMPACT, b, sizeof(b)),
	                    "10M");
	assert_string_equal(gp_format_bytes(INFINITY, GP_FORMAT_COMPACT, b, sizeof(b)), "-");
	/* a short buffer is cut, never overrun */
	assert_string_equal(gp_format_bytes(1536, 0, b, 4), "1.5");
	assert_null(gp_format_bytes(1, 0, NULL, 0));
}

static void test_width_fit(void **state)
{
	struct gp_buf b = GP_BUF_INIT;

	(void)state;
	assert_int_equal(gp__text_width(""), 0);
	assert_int_equal(gp__text_width("abc"), 3);
	assert_int_equal(gp__text_width("56.70 µs"), 8);
	assert_int_equal(gp__text_width("…"), 1);
	/* wide characters take two columns, combining marks none */
	assert_int_equal(gp__text_width("日本語"), 6);
	assert_int_equal(gp__text_width("ｱﾞ全角"), 6);
	assert_int_equal(gp__text_width("e\xcc\x81"), 1);
	assert_int_equal(gp__text_width("\xf0\x9f\x94\xa5"), 2);
	/* a broken sequence: the lead byte one column, a stray continuation byte none */
	assert_int_equal(gp__text_width("a\xe6\x97"
	                                "b"),
	                 3);
	assert_int_equal(gp__text_width("\x80\x80"), 0);

	assert_int_equal(gp__text_fit(&b, "abcdef", 6, 0), 0);
	assert_string_equal(b.buf, "abcdef");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_fit(&b, "abcdefg", 6, 0), 0);
	assert_string_equal(b.buf, "abcde…");
	gp__buf_reset(&b);
	/* a cut right after an "…" of the text adds no second one (a name's "(…)") */
	assert_int_equal(gp__buf_addstr(&b, "x…"), 0);
	assert_int_equal(gp__text_fit(&b, "ab(…)cd", 5, 0), 0);
	assert_string_equal(b.buf, "x…ab(…");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_fit(&b, "…", 0, 0), 0);
	assert_int_equal(gp__text_fit(&b, "abc", 2, 0), 0);
	assert_string_equal(b.buf, "…a…");
	gp__buf_reset(&b);
	/* a cut never splits a multibyte character */
	assert_int_equal(gp__text_fit(&b, "µµµµµµµ", 4, 0), 0);
	assert_string_equal(b.buf, "µµµ…");
	assert_int_equal(gp__text_width(b.buf), 4);
	gp__buf_reset(&b);
	/* a wide character that would straddle the cut is left out */
	assert_int_equal(gp__text_fit(&b, "日本語", 4, 0), 0);
	assert_string_equal(b.buf, "日…");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_fit(&b, "日本語", 6, 0), 0);
	assert_string_equal(b.buf, "日本語");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_fit(&b, "a\tb\x7f", 0, 0), 0);
	assert_string_equal(b.buf, "a?b?");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_fit(&b, "a\nb", 0, GP__TEXT_CTRL_SPACE), 0);
	assert_string_equal(b.buf, "a b");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_pad(&b, "µs", 4, true), 0);
	assert_string_equal(b.buf, "  µs");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_pad(&b, "日本", 6, false), 0);
	assert_string_equal(b.buf, "日本  ");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_md_cell(&b, "a|b`c\n", false), 0);
	assert_string_equal(b.buf, "a\\|b`c ");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_md_cell(&b, "a|b`c", true), 0);
	assert_string_equal(b.buf, "`a\\|b'c`");
	gp__buf_release(&b);
}

static void test_wrap(void **state)
{
	struct gp_buf b = GP_BUF_INIT;

	(void)state;
	assert_int_equal(gp__text_wrap(&b, "- ", "aaa bbb ccc ddd", 10, 2, 0), 0);
	assert_string_equal(b.buf, "- aaa bbb\n  ccc ddd\n");
	gp__buf_reset(&b);
	/* GLUE: "12.5 ms" does not break between number and unit */
	assert_int_equal(gp__text_wrap(&b, "", "took 12.5 ms", 10, 0, GP__WRAP_GLUE), 0);
	assert_string_equal(b.buf, "took\n12.5 ms\n");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_wrap(&b, "", "added (308.2 ms), 66", 16, 0, GP__WRAP_GLUE), 0);
	assert_string_equal(b.buf, "added\n(308.2 ms), 66\n");
	gp__buf_reset(&b);
	/* a word longer than the line stands alone */
	assert_int_equal(gp__text_wrap(&b, "", "x abcdefghijkl y", 6, 1, 0), 0);
	assert_string_equal(b.buf, "x\n abcdefghijkl\n y\n");
	gp__buf_reset(&b);
	/* RAW: control characters as '?', \x1f a space that does not break */
	assert_int_equal(gp__text_wrap(&b, "> ",
	                               "a\tb c\x1f"
	                               "d",
	                               6, 2, GP__WRAP_RAW),
	                 0);
	assert_string_equal(b.buf, "> a?b\n  c d\n");
	gp__buf_reset(&b);
	assert_int_equal(gp__text_wrap(&b, "x ", "", 10, 0, 0), 0);
	assert_string_equal(b.buf, "x \n");
	gp__buf_release(&b);
}

static const struct gp__col cols[] = {
	{ .head = "name", .width = 6, .cut = 6, .flags = GP__COL_LEFT },
	{ .head = "time", .md_head = "Δ time", .width = 9, .gap = " " },
	{ .head = "what", .gap = "  ", .flags = GP__COL_LEFT | GP__COL_CODE },
};

static void test_table_text(void **state)
{
	const struct gp__table t = { cols, 3, "  ", false };
	const char *r1[] = { "µµµ", "1.234 ms", "a|b" };
	const char *r2[] = { "kernel_long_name", NULL, "c" };
	const char *r3[] = { "日本語ab", "1 ns", "d" };
	struct gp_buf b = GP_BUF_INIT;

	(void)state;
	assert_int_equal(gp__table_head(&b, &t), 0);
	assert_int_equal(gp__table_cells(&b, &t, r1), 0);
	assert_int_equal(gp__table_cells(&b, &t, r2), 0);
	assert_int_equal(gp__table_cells(&b, &t, r3), 0);
	/* widths count columns, not bytes; the last left column is not padded */
	assert_string_equal(b.buf, "  name        time  what\n"
	                           "  µµµ     1.234 ms  a|b\n"
	                           "  kerne…         -  c\n"
	                           "  日本…       1 ns  d\n");
	gp__buf_release(&b);
}

static void test_table_md(void **state)
{
	const struct gp__table t = { cols, 3, "  ", true };
	const char *r1[] = { "a|b", "1.234 ms", "x|`y`" };
	struct gp_buf b = GP_BUF_INIT;

	(void)state;
	assert_int_equal(gp__table_head(&b, &t), 0);
	assert_int_equal(gp__table_cells(&b, &t, r1), 0);
	assert_string_equal(b.buf, "| name | Δ time | what |\n"
	                           "|---|---:|---|\n"
	                           "| a\\|b | 1.234 ms | `x\\|'y'` |\n");
	gp__buf_release(&b);
}

static void test_table_rows(void **state)
{
	static const struct gp__col vcols[] = {
		{ .head = "Total", .width = 9, .cell = gp__cell_dur, .key = "total_ns" },
		{ .head = "Bytes", .width = 9, .cell = gp__cell_bytes, .key = "bytes" },
		{ .head = "Time %", .width = 7, .cell = gp__cell_pct, .key = "pct" },
		{ .head = "Count", .width = 6, .cell = gp__cell_count, .key = "count" },
		{ .head = "Name",
		  .gap = "  ",
		  .flags = GP__COL_LEFT,
		  .cell = gp__cell_str,
		  .key = "name" },
	};
	const struct gp__table t = { vcols, 5, NULL, false };
	struct gp_value *row = gp_value_object();
	struct gp_buf b = GP_BUF_INIT;

	(void)state;
	assert_non_null(row);
	assert_int_equal(gp_obj_set_int(row, "total_ns", 56700), 0);
	assert_int_equal(gp_obj_set_double(row, "pct", 12.34), 0);
	assert_int_equal(gp_obj_set_null(row, "bytes"), 0);
	assert_int_equal(gp_obj_set_int(row, "count", 7), 0);
	assert_int_equal(gp_obj_set_str(row, "name", "gemm"), 0);
	assert_int_equal(gp__table_row(&b, &t, row), 0);
	/* unknown is "-", never 0 */
	assert_string_equal(b.buf, " 56.70 µs        -  12.3%     7  gemm\n");
	gp__buf_release(&b);
	gp_value_free(row);
}

/* analyze's tables through the public entry: arguments, and one summary table */
static void test_analyze_format(void **state)
{
	static const char json[] =
	    "{\"schema\":\"gpuprof.analyze/1\",\"ranks\":[{\"rank\":0,\"file\":\"t.json\","
	    "\"kernels\":[{\"name\":\"void 日本語_kernel_with_a_rather_long_name_that_is_cut\","
	    "\"pct\":75.0,\"total_ns\":999950,\"count\":3,\"avg_ns\":333317,\"med_ns\":850,"
	    "\"min_ns\":null,\"max_ns\":12345678,\"std_ns\":0}]}]}";
	struct gp_analyze_format_opts o = { .size = sizeof(o), .top = 0, .width = 60 };
	struct gp_value *r = NULL, *empty = gp_value_object();
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(gp_value_parse(json, sizeof(json) - 1, &r, NULL), 0);
	assert_int_equal(gp_analyze_format(r, &o, NULL, NULL), GP_EINVAL);
	/* an older caller's smaller struct: the fields it lacks read as their defaults */
	o.size = 4;
	assert_int_equal(gp_analyze_format(r, &o, &text, &len), 0);
	{
		char *dflt = NULL;

		assert_int_equal(gp_analyze_format(r, NULL, &dflt, NULL), 0);
		assert_string_equal(text, dflt);
		gp_free(dflt);
	}
	gp_free(text);
	text = NULL;
	/* a newer caller's larger struct asking for what this library does not know */
	{
		struct {
			struct gp_analyze_format_opts o;
			uint32_t newer;
		} big = { .o = { .size = sizeof(big) }, .newer = 1 };

		assert_int_equal(gp_analyze_format(r, &big.o, &text, &len), GP_EINVAL);
		assert_null(text);
	}
	assert_int_equal(gp_analyze_format(NULL, NULL, &text, &len), GP_EINVAL);

	assert_int_equal(gp_analyze_format(empty, NULL, &text, &len), 0);
	assert_string_equal(text, "no ranks in this report\n");
	assert_int_equal(len, strlen(text));
	gp_free(text);

	o.size = sizeof(o);
	assert_int_equal(gp_analyze_format(r, &o, &text, &len), 0);
	/*
	 * width 60: under 100 columns Med, Min and Max go; the name gets 16
	 * columns (the least), "void " dropped, cut with "…"
	 */
	assert_string_equal(text,
	                    "== rank 0: t.json ==\n"
	                    "\n"
	                    "Top GPU kernels\n"
	                    " Time %    Total Instances      Avg   StdDev  Name\n"
	                    "  75.0% 1.000 ms         3 333.3 µs     0 ns  日本語_kernel_w…\n");
	gp_free(text);
	/* width 100: every column */
	o.width = 100;
	assert_int_equal(gp_analyze_format(r, &o, &text, &len), 0);
	assert_non_null(strstr(text,
	                       "  75.0% 1.000 ms         3 333.3 µs   850 ns        - 12.35 ms"
	                       "     0 ns  日本語_kernel_with_a_rathe…\n"));
	gp_free(text);
	gp_value_free(r);
	gp_value_free(empty);
}

/* one label of a GPU for analyze and the report page: "sm_90" (nvcc's words), AMD in its own */
static void test_device_label(void **state)
{
	static const struct {
		const char *json;
		bool amd;
		const char *want;
	} cases[] = {
		{ "{\"name\": \"NVIDIA H100 80GB HBM3\", \"compute_capability\": \"9.0\", "
		  "\"num_sms\": 132, \"total_memory_bytes\": 85045870592}",
		  false, "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)" },
		{ "{\"name\": \"AMD Instinct MI300X\", \"compute_capability\": \"9.4\", "
		  "\"num_sms\": 304}",
		  false, "AMD Instinct MI300X (gfx9.4, 304 CUs)" },
		{ "{\"compute_capability\": \"9.4\", \"vendor\": \"amd\"}", false,
		  "unnamed GPU (gfx9.4)" },
		{ "{\"name\": \"GPU\", \"num_sms\": 104}", true, "GPU (104 CUs)" },
		{ "{\"compute_capability\": \"12.1\"}", false, "unnamed GPU (sm_121)" },
		{ "{\"name\": \"a\\u0007b\"}", false, "a?b" },
	};
	struct gp_buf b = GP_BUF_INIT;
	struct gp_value *d = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(gp_value_parse(cases[i].json, strlen(cases[i].json), &d, NULL), 0);
		gp__buf_reset(&b);
		assert_int_equal(gp__text_device(&b, d, cases[i].amd), 0);
		assert_string_equal(b.buf, cases[i].want);
		gp_value_free(d);
	}
	/* nothing to say: nothing written */
	assert_int_equal(gp_value_parse("{\"id\": 0}", 9, &d, NULL), 0);
	gp__buf_reset(&b);
	assert_int_equal(gp__text_device(&b, d, false), GP_ENOENT);
	assert_int_equal(b.len, 0);
	gp_value_free(d);
	gp__buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dur),           cmocka_unit_test(test_dur_sign),
		cmocka_unit_test(test_bytes),         cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_width_fit),     cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_table_text),    cmocka_unit_test(test_table_md),
		cmocka_unit_test(test_table_rows),    cmocka_unit_test(test_analyze_format),
		cmocka_unit_test(test_public_format), cmocka_unit_test(test_device_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
