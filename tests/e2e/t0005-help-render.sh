#!/bin/bash
# SPDX-License-Identifier: MIT
# t0005-help-render.sh - the renderer of the command pages (src/cli/help-render.c) on a page
# with every construct the pages use, against golden files: tests/data/help/sample.md as text
# (what `gpuprof help` prints, at 72 columns) and as a man page, which groff renders without a
# warning. After a deliberate change of the output, regenerate the golden files with
#   build/gpuprof-mkman --text 72 sample.md sample.txt; build/gpuprof-mkman "gpuprof test" sample.md sample.1
. "$(dirname "$0")/lib.sh"
need python3

mkman="${GP_BUILD_DIR:-$GP_SRC_DIR/build}/gpuprof-mkman"
[ -x "$mkman" ] || { echo "skip: no $mkman"; exit 77; }
H="$GP_SRC_DIR/tests/data/help"

NCHECK=$((NCHECK + 1))
"$mkman" --text 72 "$H/sample.md" "$TMP/sample.txt" || fail "gpuprof-mkman --text failed"
NCHECK=$((NCHECK + 1))
diff -u "$H/sample.txt" "$TMP/sample.txt" || fail "the text of sample.md differs from sample.txt"
NCHECK=$((NCHECK + 1))
"$mkman" "gpuprof test" "$H/sample.md" "$TMP/sample.1" || fail "gpuprof-mkman failed"
NCHECK=$((NCHECK + 1))
diff -u "$H/sample.1" "$TMP/sample.1" || fail "the man page of sample.md differs from sample.1"
if command -v groff >/dev/null; then
	groff -man -t -ww -Tutf8 "$TMP/sample.1" >"$TMP/sample.man" 2>"$TMP/groff.err"
	NCHECK=$((NCHECK + 1))
	[ ! -s "$TMP/groff.err" ] || fail "groff warns: $(cat "$TMP/groff.err")"
	NCHECK=$((NCHECK + 1))
	grep -q "gpuprof-sample - what the renderer" "$TMP/sample.man" || fail "no NAME line"
fi

# what the text must not show: Markdown markers and relative links
for bad in '](' '**' '../report-schema.md' '`'; do
	NCHECK=$((NCHECK + 1))
	! grep -qF -- "$bad" "$TMP/sample.txt" || fail "the text shows '$bad'"
done
NCHECK=$((NCHECK + 1))
grep -qF 'absolute link <https://example.com/docs>' "$TMP/sample.txt" || fail "absolute URL lost"
NCHECK=$((NCHECK + 1))
grep -qF 'gpuprof-help(1)' "$TMP/sample.txt" || fail "a page's link is not NAME(1)"
# filled to 72 columns, code and tables aside
NCHECK=$((NCHECK + 1))
python3 -c 'import sys
for l in open(sys.argv[1], encoding="utf-8"):
    if len(l.rstrip("\n")) > 72: sys.exit("line over 72 columns: " + l)' "$TMP/sample.txt" ||
	fail "the text is wider than 72 columns"
done_ok
