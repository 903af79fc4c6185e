#!/bin/bash
# SPDX-License-Identifier: MIT
# t0004-help-pages.sh - every command page agrees with the program: the options of each
# getopt table, of `gpuprof CMD -h` and of docs/cli/gpuprof-CMD.md are the same; help
# shows rendered text (no Markdown, no relative links) for `help CMD` and `CMD --help`;
# the man pages are written and groff renders them without a warning (help_pages.py).
. "$(dirname "$0")/lib.sh"
need python3

man_dir="$(dirname "$GPUPROF")/man"
[ -d "$man_dir" ] || man_dir=
python3 "$GP_SRC_DIR/tests/e2e/help_pages.py" "$GPUPROF" "$GP_SRC_DIR" $man_dir ||
	fail "the help pages disagree with the program (above)"

# the text is filled to 80 columns when not a terminal; code and tables may be wider
expect_rc 0 help analyze
out_has "SYNOPSIS"
out_has "gpuprof-help(1)"
expect_rc 0 analyze --help
out_has "OPTIONS"
expect_rc 0 analyze -h
out_has "usage: gpuprof analyze"
expect_rc 0 help help
out_has "man gpuprof-analyze"
done_ok
