#!/bin/bash
# SPDX-License-Identifier: MIT
# t0610-aggregate-text.sh - `gpuprof aggregate` draws a saved gpuprof.aggregate/1 document
# (written by hand by aggdoc.py, as issue 22's schema describes it): every section with its
# values formatted as analyze formats them (durations, bytes, GB/s, p-values), "-" for what
# is unknown, outlier marks, the desync first, and a per-rank table that stays a page at
# 1,024 ranks.
. "$(dirname "$0")/lib.sh"
need python3
GEN="$GP_SRC_DIR/tests/e2e/aggdoc.py"

# a value of the document, formatted as the text must show it
jq_() { json_get "$1" "$2"; }

python3 "$GEN" "$TMP/a.json"
expect_rc 0 aggregate "$TMP/a.json"
out_has "== aggregate: 8 ranks of world size 8, backend nccl =="
out_has "hosts     2: node-0 (ranks 0-3), node-1 (ranks 4-7)"
out_has "GPUs      NVIDIA H100 80GB HBM3 (ranks 0-7)"
out_has "clock     collective-bounds from rank 0's clock over 412 collectives; max uncertainty ±1.200 µs"
out_has "unmatched 3 collectives outside the window"
# stragglers by blame: durations, counts, percentage, p-values, significance, cause and evidence
out_has "Stragglers"
grep -Eq '^ +3 +480\.0 ms +40 +120 +33\.3% +<0\.0001 +yes +compute$' "$OUT" || fail "rank 3's straggler row"
grep -Eq '^ +5 +2\.500 ms +12 +120 +10\.0% +0\.8731 +no +-$' "$OUT" || fail "rank 5's straggler row"
out_has "rank 3 computes 70.00 ms more per window than the median rank"
[ "$(grep -n 'Stragglers' "$OUT" | cut -d: -f1)" -lt "$(grep -n '^Ranks' "$OUT" | cut -d: -f1)" ] ||
	fail "stragglers come before the per-rank table"
# the per-rank table: rank 3's outliers marked, the others not; min/max/mean from the table
grep -Eq '^ +3 node-0 +\*112\.0 ms +112\.0 ms +114\.0 ms +16\.7% +\*470\.0 ms +30\.00 ms +1\.000 ms +42\.0 GiB +1980$' "$OUT" ||
	fail "rank 3's row with its outlier marks"
grep -Eq '^ +0 node-0 +100\.0 ms ' "$OUT" || fail "rank 0's row"
[ "$(grep -o '\*' "$OUT" | wc -l)" -eq 3 ] || fail "two marks and the legend, no more"
out_has "*: a robust outlier"
mean=$(jq_ "$TMP/a.json" '"%.1f ms" % (d["table"]["step_mean_ns"]["mean"] / 1e6)')
grep -Eq "^ +mean +$mean " "$OUT" || fail "the mean row shows $mean"
grep -Eq '^ +max +112\.0 ms ' "$OUT" || fail "the max row"
# the clocks: the reference host 0, the other with its offset and uncertainty (no bound here)
grep -Eq '^  node-0 +0 ns +±0 ns +- +0-3$' "$OUT" || fail "node-0's clock"
grep -Eq '^  node-1 +\+12\.35 ms +±1\.200 µs +- +4-7$' "$OUT" || fail "node-1's clock"
# collectives: bytes, durations, GB/s with four significant digits, busbw = algbw * factor
busbw=$(jq_ "$TMP/a.json" '"%.1f" % d["collectives"][0]["busbw_gbps"]')
grep -Eq "^  0 +allreduce +40 +1012\.8 MiB +9\.500 ms +480\.0 ms +12\.10 ms +111\.8 +$busbw +yes$" "$OUT" ||
	fail "the allreduce row (busbw $busbw)"
out_has "process groups: 0 = default_pg"
grep -Eq '^  1 +allgather +20 +4\.0 KiB +200\.0 µs +1\.500 µs +250 ns +0\.02048 +0\.01792 +no$' "$OUT" ||
	fail "the allgather row"
# findings as analyze prints them
out_has "1. [high] Rank 3 arrives last at 33.3% of the collectives"
out_has "evidence: blame_ns=480.0 ms, last_arrival_pct=33.3%"
out_has "→ Look at rank 3's own report"
grep -q "DESYNC" "$OUT" && fail "no desync in this document"
no_width_over 100 "$OUT"

# unknown values print "-": world size, host, memory, clock, bytes, bandwidths, cross-host
python3 "$GEN" "$TMP/u.json" --unknown --desync
expect_rc 0 aggregate "$TMP/u.json"
out_has "== aggregate: 8 ranks, world size unknown, backend nccl =="
out_has "hosts     2: node-0 (ranks 0, 2-3), unknown (rank 1), node-1 (ranks 4-7)"
out_has "warning   rank 8 of world size 9 missing: no report of it"
grep -Eq '^ +1 - +100\.0 ms .* 45\.00 ms +- +-$' "$OUT" || fail "rank 1: unknown host, memory and clock"
grep -Eq '^  1 +allgather +20 +- +200\.0 µs +1\.500 µs +250 ns +- +- +-$' "$OUT" || fail "unknown bytes and bandwidths"
# the desync comes first, prominent, with what was expected and what was found
[ "$(grep -n '!! DESYNC' "$OUT" | cut -d: -f1)" -lt "$(grep -n '^Stragglers' "$OUT" | cut -d: -f1)" ] ||
	fail "the desync comes before the stragglers"
out_has "!! DESYNC: rank 1's allreduce #57 of process group 0 differs from the other ranks'"
out_has "expected: bytes=25.3 MiB, dtype=Float, group_size=8, name=allreduce"
out_has "found:    bytes=12.7 MiB, dtype=Half, group_size=8, name=allreduce"
out_has "the collectives that match on every rank are still analysed"

# nothing to say: no stragglers, no collectives, no findings
python3 "$GEN" "$TMP/n.json" --no-stragglers --no-collectives
expect_rc 0 aggregate "$TMP/n.json"
out_has "none: no rank arrived last at a matched collective"
out_has "none matched across the ranks"
out_has "nothing stands out"

# 1,024 ranks: the 10 slowest and 10 fastest and the outlier, said so; all with --top 0
python3 "$GEN" "$TMP/big.json" --ranks 1024 --hosts 128
expect_rc 0 aggregate "$TMP/big.json"
rows=$(grep -Ec '^ +[0-9]+ node-' "$OUT")
[ "$rows" -le 21 ] && [ "$rows" -ge 20 ] || fail "1,024 ranks show $rows rows, expected 20 or 21"
out_has "1004 of 1024 ranks not shown: these are the 10 slowest and the 10 fastest"
grep -Eq '^ +3 node-0 +\*112\.0 ms' "$OUT" || fail "the outlier rank is shown"
out_has ", … 118 more"
out_has "… 118 more hosts"
expect_rc 0 aggregate --top 0 "$TMP/big.json"
[ "$(grep -Ec '^ +[0-9]+ node-' "$OUT")" -eq 1024 ] || fail "--top 0 shows every rank"
expect_rc 0 aggregate --top 3 "$TMP/big.json"
out_has "1018 of 1024 ranks not shown: these are the 3 slowest and the 3 fastest"

# the width: COLUMNS, and --wide keeps names whole
COLUMNS=60 expect_rc 0 aggregate "$TMP/a.json"
out_has "Stragglers"
python3 - "$TMP/a.json" "$TMP/long.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["collectives"][0]["pg_desc"] = "a_very_long_process_group_description"
d["collectives"][0]["name"] = "a_collective_name_far_too_long_for_any_table_column_xyz"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 aggregate "$TMP/long.json"
grep -q 'a_collective_name_far_too_long_for_any_table_column_xyz' "$OUT" && fail "a long name is cut by default"
# the process groups' descriptions go whole in the legend under the table
out_has "0 = a_very_long_process_group_description"
no_width_over 100 "$OUT"
expect_rc 0 aggregate --wide "$TMP/long.json"
out_has "  0  a_collective_name_far_too_long_for_any_table_column_xyz "

# a hostile document's control characters never reach the terminal, cut or whole
python3 - "$TMP/a.json" "$TMP/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["ranks"][0]["host"] = "evil\x1b[31mred\x07"
d["collectives"][0]["pg_desc"] = "pg\x1b]0;title\x07"
d["stragglers"][0]["cause"] = "c\x1b[2J"
d["desync"] = {"pg": "0\x1b[1m", "seq": 1, "rank": 1, "kind": "missing", "collective": "x\x1b",
               "expected": {"name": "\x1b[0m"}, "found": None, "detail": "\x1b[H"}
json.dump(d, open(sys.argv[2], "w"))
PY
for wide in "" --wide; do
	expect_rc 0 aggregate $wide "$TMP/evil.json"
	! grep -q $'\x1b' "$OUT" || fail "an escape sequence reached the output ($wide)"
	out_has "evil?"
done
done_ok
