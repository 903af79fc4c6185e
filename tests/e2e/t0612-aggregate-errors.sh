#!/bin/bash
# SPDX-License-Identifier: MIT
# t0612-aggregate-errors.sh - what `gpuprof aggregate` says to bad usage (exit 2, the usage)
# and to documents it does not read (exit 1, one line naming the file, no output file).
. "$(dirname "$0")/lib.sh"
need python3
GEN="$GP_SRC_DIR/tests/e2e/aggdoc.py"
python3 "$GEN" "$TMP/a.json"

# usage: exit 2, what is wrong, nothing on standard output
expect_rc 2 aggregate
err_has "gpuprof aggregate: no report given"
err_has "usage: gpuprof aggregate"
out_empty
expect_rc 0 aggregate -h
out_has "usage: gpuprof aggregate [options] PATH..."
expect_rc 2 aggregate --no-such-option "$TMP/a.json"
err_has "unknown option '--no-such-option'"
expect_rc 2 aggregate "$TMP/a.json" --top
err_has "option '--top' needs a value"
expect_rc 2 aggregate --top many "$TMP/a.json"
err_has "option '--top' expects a number"
expect_rc 2 aggregate --threads -1 "$TMP/a.json"
expect_rc 2 aggregate --compat pandas "$TMP/a.json"
err_has "option '--compat' expects 'hta', 'tb' or 'none', not 'pandas'"
for bad in 10 10xs -5ms 0ms 2h; do
	expect_rc 2 aggregate --bin "$bad" "$TMP/a.json"
	err_has "option '--bin' expects a duration with its unit"
done
for good in 10ms 500us 250µs 0.5s 20000ns; do
	expect_rc 0 aggregate --bin "$good" "$TMP/a.json"
done

# an aggregate of another version: refused, naming the file and both versions
python3 "$GEN" "$TMP/v2.json" --schema gpuprof.aggregate/2
expect_rc 1 aggregate "$TMP/v2.json"
err_one_line
err_has "gpuprof: error: '$TMP/v2.json': a gpuprof.aggregate/2 document: this version reads gpuprof.aggregate/1"
out_empty
# another gpuprof document: refused, naming the file and what aggregate reads
python3 "$GEN" "$TMP/cmp.json" --schema gpuprof.compare/1
expect_rc 1 aggregate -o "$TMP/out.txt" "$TMP/cmp.json"
err_one_line
err_has "'$TMP/cmp.json': a gpuprof.compare/1 document: aggregate reads analyze reports"
[ ! -e "$TMP/out.txt" ] || fail "an output file was left"
# the same gzip-compressed
gzip -c "$TMP/cmp.json" >"$TMP/cmp.json.gz"
expect_rc 1 aggregate "$TMP/cmp.json.gz"
err_has "'$TMP/cmp.json.gz': a gpuprof.compare/1 document"
# a file that is not there
expect_rc 1 aggregate "$TMP/nothing.json"
err_has "$TMP/nothing.json"
# damaged JSON that says it is an aggregate: the file and where
head -c 2000 "$TMP/a.json" | sed 's/"backend"/"schema": "gpuprof.aggregate\/1", "backend"/' >"$TMP/cut.json"
expect_rc 1 aggregate "$TMP/cut.json"
err_has "$TMP/cut.json"
done_ok
