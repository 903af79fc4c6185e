#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The memory section's lifetimes are exact on generated traces of every schema generation
# (Bytes only; Bytes and Addr; Addr with Total Allocated/Reserved): the curve, the steps' peaks
# and ends, the pairing's counts, the unfreed rows by op with their steps (weights apart) and
# what was live at the peak, against tests/e2e/memtrace.py's own computation of the
# definitions; the text report shows them.
. "$(dirname "$0")/lib.sh"
need python3

for gen in modern 2021addr 2021; do
	for seed in 1 2 3 4 5 6; do
		python3 "$GP_SRC_DIR/tests/e2e/memtrace.py" gen $gen $seed "$TMP/m.json" ||
			fail "memtrace.py gen $gen $seed"
		expect_rc 0 analyze --json "$TMP/m.json" -o "$TMP/r.json"
		python3 "$GP_SRC_DIR/tests/e2e/memtrace.py" check $gen $seed "$TMP/r.json" \
			>"$TMP/check" 2>&1 || fail "$(cat "$TMP/check")"
	done
done

# the text: steps, live at the peak, never freed (weights apart)
python3 "$GP_SRC_DIR/tests/e2e/memtrace.py" gen modern 1 "$TMP/m.json"
expect_rc 0 analyze "$TMP/m.json"
out_has "live at the peak"
out_has "never freed:"
out_has "ProfilerStep#4"
no_width_over 100 "$OUT"
done_ok
