#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0741-compare-bench-memory.sh - memory verdicts of `gpuprof compare` on bench
# results: memory that is the same in every iteration is compared exactly
# (test "exact"): +2 % of 2 GiB is a regression (exit 3, named in the summary
# and in the text), +0.5 % is the same, so is +5 % under the 1 MiB floor, +20 %
# of 10 MiB is worse, -2 % is better (exit 0), --threshold-for peak_memory=5
# lets +2 % pass; the at-end bytes get their own verdict; memory that varies
# is tested (Mann-Whitney) as the times are; a side without memory has no
# memory metric.
. "$(dirname "$0")/lib.sh"
need python3

# bench FILE PEAK END [SPREAD]: 20 iterations of 29 ms, memory PEAK and END bytes (with
# SPREAD, iteration i has memory * (1 + SPREAD * (i % 5))); "-" for null
bench() {
	python3 - "$@" <<'PY' || fail "writing '$1'"
import json, sys
path, peak, end = sys.argv[1], sys.argv[2], sys.argv[3]
spread = float(sys.argv[4]) if len(sys.argv) > 4 else 0
n = 20
def arr(v):
    return None if v == "-" else [float(v) * (1 + spread * (i % 5)) for i in range(n)]
doc = {"schema": "gpuprof.bench/1", "gpuprof_version": "0.1.0", "tags": {},
       "source": {"kind": "python", "args": ["fwd"]}, "seed": 1,
       "series": [{"name": "fwd", "rate_name": "iterations/s", "batch_size": 1,
                   "warmup": 3, "n": n, "times_ns": [29e6 * (1 + 0.002 * (i % 5)) for i in range(n)],
                   "gpu_ns": None, "peak_memory_bytes": arr(peak),
                   "memory_at_end_bytes": arr(end), "warnings": []}]}
json.dump(doc, open(path, "w"), indent=1)
PY
}

GI=2147483648
MI=1048576
bench "$TMP/base.json" $GI $((GI / 2))
bench "$TMP/base2.json" $GI $((GI / 2))
bench "$TMP/up2.json" $((GI + GI / 50)) $((GI / 2))
bench "$TMP/up05.json" $((GI + GI / 200)) $((GI / 2))
bench "$TMP/down2.json" $((GI - GI / 50)) $((GI / 2))
bench "$TMP/end.json" $GI $((GI / 2 + 64 * MI))
bench "$TMP/small.json" $((10 * MI)) $MI
bench "$TMP/small5.json" $((10 * MI + MI / 2)) $MI
bench "$TMP/small20.json" $((12 * MI)) $MI
bench "$TMP/vary.json" $GI $((GI / 2)) 0.01
bench "$TMP/vary20.json" $((GI + GI / 5)) $((GI / 2)) 0.01
bench "$TMP/none.json" - -

# metric FILE NAME EXPR: the Python expression EXPR of metric NAME (m) of the one group
metric() {
	json_get "$1" "[m for m in d['groups'][0]['metrics'] if m['metric'] == '$2'][0]$3"
}

# alike: the same, exactly
expect_rc 0 compare --json "$TMP/base.json" "$TMP/base2.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = same ] || fail "alike: peak verdict"
[ "$(metric "$OUT" peak_memory '["test"]')" = exact ] || fail "alike: test"
[ "$(metric "$OUT" memory_at_end '["verdict"]')" = same ] || fail "alike: at-end verdict"

# +2 % of 2 GiB, every iteration alike: past 1 % and 1 MiB, a regression
expect_rc 3 compare --json "$TMP/base.json" "$TMP/up2.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = worse ] || fail "+2 %: verdict"
[ "$(metric "$OUT" peak_memory '["regression"]')" = True ] || fail "+2 %: regression"
[ "$(metric "$OUT" peak_memory '["threshold_pct"] == 1')" = True ] || fail "+2 %: threshold"
[ "$(metric "$OUT" peak_memory "['threshold_bytes'] == $GI * 0.01")" = True ] ||
	fail "+2 %: threshold_bytes"
[ "$(json_get "$OUT" '[r["metric"] for r in d["regressions"]]')" = "['peak_memory']" ] ||
	fail "+2 %: the regressions"
[ "$(metric "$OUT" time '["verdict"]')" = same ] || fail "+2 %: the time"
expect_rc 3 compare "$TMP/base.json" "$TMP/up2.json"
[ "$(head -n 1 "$OUT")" = "regression: peak memory +2.0% (exact) for 'fwd'" ] ||
	fail "+2 %: the first line: $(head -n 1 "$OUT")"
out_has "worse (REGRESSION)"
out_has "memory at end"
out_has "peak memory: the same in every iteration on each side: compared exactly"

# +0.5 %: under 1 %, the same
expect_rc 0 compare --json "$TMP/base.json" "$TMP/up05.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = same ] || fail "+0.5 %"
# --threshold-for peak_memory=5: +2 % is the same
expect_rc 0 compare --json --threshold-for peak_memory=5 "$TMP/base.json" "$TMP/up2.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = same ] || fail "+2 % under 5 %"
# -2 %: better, no regression
expect_rc 0 compare --json "$TMP/base.json" "$TMP/down2.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = better ] || fail "-2 %"
[ "$(json_get "$OUT" 'd["verdict"]')" = improvement ] || fail "-2 %: improvement"
# the at-end bytes: +64 MiB of 1 GiB (6.25 %) a regression of their own
expect_rc 3 compare --json "$TMP/base.json" "$TMP/end.json"
[ "$(json_get "$OUT" '[r["metric"] for r in d["regressions"]]')" = "['memory_at_end']" ] ||
	fail "at end: the regressions"

# 10 MiB: +5 % (0.5 MiB) is under the 1 MiB floor; +20 % (2 MiB) is worse
expect_rc 0 compare --json "$TMP/small.json" "$TMP/small5.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = same ] || fail "under the floor"
expect_rc 3 compare --json "$TMP/small.json" "$TMP/small20.json"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = worse ] || fail "past the floor"

# memory that varies: tested as the times are
expect_rc 0 compare --json "$TMP/vary.json" "$TMP/vary.json"
[ "$(metric "$OUT" peak_memory '["test"]')" = mann_whitney ] || fail "varying: the test"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = same ] || fail "varying: same"
expect_rc 3 compare --json "$TMP/vary.json" "$TMP/vary20.json"
[ "$(metric "$OUT" peak_memory '["test"]')" = mann_whitney ] || fail "varying +20 %: the test"
[ "$(metric "$OUT" peak_memory '["verdict"]')" = worse ] || fail "varying +20 %"

# one side without memory: no memory metric
expect_rc 0 compare --json "$TMP/base.json" "$TMP/none.json"
[ "$(json_get "$OUT" '[m["metric"] for m in d["groups"][0]["metrics"]]')" = "['time', 'throughput']" ] ||
	fail "no memory metric"

done_ok
