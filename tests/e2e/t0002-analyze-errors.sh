#!/bin/bash
# SPDX-License-Identifier: MIT
# t0002-analyze-errors.sh - each class of bad input gives exit 1 and one line
# naming the file (and the byte offset where there is one), and never leaves
# an output file behind; --salvage analyses a truncated trace and warns.
. "$(dirname "$0")/lib.sh"
need python3 gzip head

B="$TMP/bad"
mkdir "$B" "$B/empty-dir"
: >"$B/empty.json"
printf 'this is not json\n' >"$B/not-json.json"
head -c 700 "$DATA/tiny.json" >"$B/truncated.json"
printf '\037\213\010\000\000\000\000\000\000\003garbage-garbage-garbage' >"$B/garbage.json.gz"
gzip -c "$DATA/tiny.json" | head -c 120 >"$B/short.json.gz"
printf '{"traceEvents": [{"ph": "X", "ts": 1, "dur": -5, "name": "k", "pid": 1, "tid": 1}]}' \
	>"$B/negative.json"

# bad FILE [WORD...]: exit 1, one stderr line naming FILE and each WORD, no output file
bad() {
	local f=$1
	shift
	rm -f "$TMP/report.json"
	expect_rc 1 analyze --json -o "$TMP/report.json" "$f"
	err_one_line
	err_has "gpuprof: error: "
	err_has "$f"
	for w in "$@"; do
		err_has "$w"
	done
	[ ! -e "$TMP/report.json" ] || fail "an output file was left for '$f'"
	[ -z "$(ls -A "$TMP" | grep -F 'report.json.')" ] || fail "a temp file was left for '$f'"
	expect_rc 1 analyze "$f"
	out_empty
	err_one_line
}

bad "$B/empty.json"
bad "$B/not-json.json" byte
bad "$B/truncated.json" byte
bad "$B/garbage.json.gz"
bad "$B/short.json.gz"
bad "$B/negative.json"
bad "$B/empty-dir"
bad "$B/no-such-file.json"

# --salvage keeps what precedes the damage and says how much was lost
expect_rc 0 analyze --salvage --json "$B/truncated.json"
json_ok "$OUT"
err_has "warning"
err_has "byte"
err_has "truncated.json"
[ "$(json_get "$OUT" 'd["ranks"][0]["salvage"]["lost_bytes"] >= 0')" = True ] ||
	fail "no salvage object"
expect_rc 0 analyze --salvage -q "$B/truncated.json"
[ ! -s "$ERR" ] || fail "-q printed a warning"

# -o naming a FIFO (or a device such as /dev/null) is written in place, never replaced
NCHECK=$((NCHECK + 1))
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
if ! "$GPUPROF" analyze --json -o "$TMP/fifo" "$GP_SRC_DIR/tests/data/e2e/tiny.json" 2>"$ERR"; then
	: >"$TMP/fifo" # let the reader go
	fail "analyze -o FIFO: $(cat "$ERR")"
fi
wait "$reader"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced by a file"
json_ok "$TMP/fifo.out"

done_ok
