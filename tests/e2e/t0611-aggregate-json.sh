#!/bin/bash
# SPDX-License-Identifier: MIT
# t0611-aggregate-json.sh - a saved aggregate drawn again: --json gives the same document
# byte for byte (and again from its own output), -o writes it atomically (gzip for .gz,
# read back as it is), the text of a re-read document is the same, and a failed run leaves
# the output file as it was.
. "$(dirname "$0")/lib.sh"
need python3
GEN="$GP_SRC_DIR/tests/e2e/aggdoc.py"

python3 "$GEN" "$TMP/a.json" --desync --unknown
expect_rc 0 aggregate --json "$TMP/a.json"
json_ok "$OUT"
cp "$OUT" "$TMP/once.json"
# the same document: what the hand-written one says, numbers as gpuprof writes every
# document's (six decimals: a p-value of 1.2e-9 is written 0)
python3 - "$TMP/a.json" "$TMP/once.json" <<'PY' || fail "--json changed the document"
import json, sys
def norm(v):
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v
a, b = (norm(json.load(open(p))) for p in sys.argv[1:])
sys.exit(0 if a == b else 1)
PY
# the document's warnings go to standard error with --json
err_has "gpuprof: warning: rank 8 of world size 9 missing: no report of it"
expect_rc 0 aggregate --json -q "$TMP/a.json"
[ ! -s "$ERR" ] || fail "-q: no warning"
# again from its own output: identical bytes
expect_rc 0 aggregate --json "$TMP/once.json"
cmp -s "$OUT" "$TMP/once.json" || fail "a re-rendered --json differs from the one it was read from"

# -o: the file, complete; the text of the copy equals the text of the original
expect_rc 0 aggregate --json -o "$TMP/saved.json" "$TMP/a.json"
out_empty
cmp -s "$TMP/saved.json" "$TMP/once.json" || fail "-o wrote another document"
expect_rc 0 aggregate "$TMP/once.json"
cp "$OUT" "$TMP/text1"
expect_rc 0 aggregate "$TMP/saved.json"
cmp -s "$OUT" "$TMP/text1" || fail "the text of a re-read document differs"
expect_rc 0 aggregate -o "$TMP/text.txt" "$TMP/saved.json"
cmp -s "$TMP/text.txt" "$TMP/text1" || fail "-o wrote another text"
ls -A "$TMP" | grep -q '\.tmp\.' && fail "a temporary file is left"

# .gz: written compressed, read back as it is
if ! "$GPUPROF" version --build-options 2>/dev/null | grep -Eq 'gzip: +none'; then
	expect_rc 0 aggregate --json -o "$TMP/saved.json.gz" "$TMP/a.json"
	gzip -dc "$TMP/saved.json.gz" | cmp -s - "$TMP/once.json" || fail ".gz holds another document"
	expect_rc 0 aggregate --top 0 "$TMP/saved.json.gz"
	out_has "!! DESYNC: rank 1's allreduce #57"
fi

# a failed run leaves the output file as it was
echo keep >"$TMP/keep.json"
python3 "$GEN" "$TMP/v2.json" --schema gpuprof.aggregate/2
expect_rc 1 aggregate --json -o "$TMP/keep.json" "$TMP/v2.json"
[ "$(cat "$TMP/keep.json")" = keep ] || fail "a failed run changed the output file"
# an output that cannot be written: exit 1, the file named
mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
if [ ! -w "$TMP/ro" ]; then
	expect_rc 1 aggregate --json -o "$TMP/ro/x.json" "$TMP/a.json"
	err_has "$TMP/ro/x.json"
	[ -z "$(ls -A "$TMP/ro")" ] || fail "a file is left in a read-only directory"
fi
chmod 755 "$TMP/ro"
done_ok
