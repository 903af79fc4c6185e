#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0600-aggregate-reports.sh - `gpuprof aggregate --json` on analyze reports written from a
# known true timeline (agg_reports.py): it names the straggler first, recovers the hosts' clock
# offsets within 10 µs, reports busbw by nccl-tests' formula and a missing collective as the
# desynchronisation at its seq; and every bad input is an error or warning naming the file.
. "$(dirname "$0")/lib.sh"
need python3
GEN="$GP_SRC_DIR/tests/e2e/agg_reports.py"

expect_agg() {
	run aggregate "$@"
	if grep -q "not available" "$ERR"; then
		echo "skip: this gpuprof has no aggregate command yet"
		exit 77
	fi
}

# 16 ranks on 4 hosts, host 2's clock 2.5 ms ahead, rank 9 late by 3 ms at every collective
python3 "$GEN" "$TMP/job" --ranks 16 --per-host 4 --offset-ns 1=-700000 --offset-ns 2=2500000 \
	--straggler 9 --late-ns 3000000 >"$TMP/truth.json" || fail "agg_reports.py"
expect_agg --json "$TMP/job"
[ "$RC" -eq 0 ] || fail "aggregate exited $RC"
json_ok "$OUT"
cp "$OUT" "$TMP/agg.json"
python3 - "$TMP/agg.json" "$TMP/truth.json" <<'PY' || fail "the aggregate document is not the truth"
import json, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["schema"] == "gpuprof.aggregate/1", d["schema"]
assert [x["rank"] for x in d["ranks"]] == list(range(16))
for x in d["ranks"]:
    want = t["offsets"][str(x["rank"])]
    assert abs(x["clock_offset_ns"] - want) <= 10000, (x["rank"], x["clock_offset_ns"], want)
s = d["stragglers"][0]
assert s["rank"] == 9 and s["significant"] and s["cause"] == "compute", s
assert d["findings"][0]["id"] == "straggler", d["findings"][0]
c = d["collectives"][0]
assert abs(c["busbw_gbps"] - t["busbw_gbps"]) <= 1e-6 * t["busbw_gbps"], (c, t)
assert c["cross_host"] is True and c["factor"] == 2 * 15 / 16
assert d["desync"] is None and d["unmatched"] == 0
assert len(d["heatmap"]["wait_ns"]) == 16
PY

# a missing collective: the desynchronisation at its seq
python3 "$GEN" "$TMP/desync" --ranks 4 --drop 2:17 >/dev/null || fail "agg_reports.py"
expect_agg --json "$TMP/desync"
[ "$RC" -eq 0 ] || fail "aggregate exited $RC"
[ "$(json_get "$OUT" 'd["desync"]["kind"], d["desync"]["seq"], d["desync"]["rank"]')" = \
	"('missing', 17, 2)" ] || fail "desync: $(json_get "$OUT" 'd["desync"]')"

# a missing rank: a warning naming it, the analysis goes on
python3 "$GEN" "$TMP/miss" --ranks 8 --only 7 >/dev/null || fail "agg_reports.py"
expect_agg --json "$TMP/miss"
[ "$RC" -eq 0 ] || fail "aggregate exited $RC"
json_get "$OUT" 'd["warnings"][0]' | grep -qF "world_size is 8 but 1 rank is missing: 7" ||
	fail "no missing-rank warning: $(json_get "$OUT" 'd.get("warnings")')"

# bad inputs: errors naming the file
python3 "$GEN" "$TMP/old" --ranks 4 --no-ledger 3 >/dev/null || fail "agg_reports.py"
expect_agg --json "$TMP/old"
[ "$RC" -ne 0 ] || fail "a report without the ledger was accepted"
err_has "rank3.json"
err_has "collectives ledger"
python3 "$GEN" "$TMP/v2" --ranks 4 --schema 1:gpuprof.analyze/2 >/dev/null || fail "agg_reports.py"
expect_agg --json "$TMP/v2"
[ "$RC" -ne 0 ] || fail "a gpuprof.analyze/2 report was accepted"
err_has "rank1.json"
err_has "gpuprof.analyze/2"
expect_agg --json "$TMP/job" "$TMP/job/rank3.json"
[ "$RC" -ne 0 ] || fail "two inputs of rank 3 were accepted"
err_has "rank 3 is in two inputs"
python3 "$GEN" "$TMP/other" --ranks 17 >/dev/null || fail "agg_reports.py"
expect_agg --json "$TMP/job" "$TMP/other/rank16.json"
[ "$RC" -ne 0 ] || fail "a rank of another job was accepted"
err_has "rank16.json"
err_has "another job"
done_ok
