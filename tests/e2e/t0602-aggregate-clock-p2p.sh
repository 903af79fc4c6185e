#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0602-aggregate-clock-p2p.sh - what `gpuprof aggregate` says of the clocks and of point-to-point
# operations. On generated ranks (a straggler on the host whose offset is known): the offset's
# uncertainty is the estimate's (µs at most), not the half-width of the causal bound (ms), and
# the bound is reported apart and holds the truth. On HTA's real trace_filter pair (only
# sendrecv, hosts unknown): no collective links the clocks, so the offsets are unknown (method
# "none", a warning says why), and the p2p row has no wait. The text: the collectives' names
# whole at width 100, the findings' evidence never cut mid-number nor a list shown as "-".
. "$(dirname "$0")/lib.sh"
need python3
gen="$GP_SRC_DIR/bench/gen-ranks.py"

python3 "$gen" --ranks 8 --hosts 2 --straggler 5 --straggler-ms 5 --host-offset-us node-1=1234.5 \
	--out "$TMP/traces" >"$TMP/truth.json" || fail "gen-ranks.py failed"
expect_rc 0 aggregate --json -o "$TMP/agg.json" "$TMP/traces"
python3 - "$TMP/agg.json" "$TMP/truth.json" <<'PY' || fail "the clock of the generated ranks"
import json, sys
d, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
per = truth["gpus_per_host"]
for r in d["ranks"]:
    want = truth["clock_offset_ns"]["node-%d" % (r["rank"] // per)]
    lo, hi = r["clock_bound_ns"]
    assert abs(r["clock_offset_ns"] - want) <= 10000, r
    assert lo <= want <= hi and lo <= r["clock_offset_ns"] <= hi, r
    u = r["clock_uncertainty_ns"]
    assert u <= max(1, (hi - lo) / 2), r          # clamped to the bound
    assert u <= 10000, ("the estimate's own uncertainty, not the bound's", r)
    if r["rank"] >= per:
        assert hi - lo > 100000, ("the causal bound is loose here", r)
c = d["clock"]
assert c["method"] == "collective-bounds" and c["p2p_excluded"] == 0, c
assert c["max_uncertainty_ns"] == max(r["clock_uncertainty_ns"] for r in d["ranks"]), c
PY
expect_rc 0 aggregate "$TMP/traces"
cp "$OUT" "$TMP/gen.txt"
no_width_over 100 "$OUT"
out_has "_reduce_scatter_base"
out_has "_allgather_base"
grep -q '…' "$OUT" && fail "nothing is cut at width 100"
grep -Eq '^  node-1 +-1\.234 ms +±[0-9.]+ [nµ]s +-[0-9.]+ ms\.\.-[0-9.]+ [mµ]s +4-7$' "$OUT" ||
	fail "node-1's clock row: offset, ± uncertainty, bound"
out_has "it computes 5."
out_has "longer per step than the median rank"
grep -q "ranks=-" "$OUT" && fail "an evidence list printed as '-'"
out_has "rank_5.compute_ns="
out_has "median.compute_ns="
# every evidence value is whole: a number is followed by its unit or a separator, never cut
python3 - "$OUT" <<'PY' || fail "an evidence value is cut"
import re, sys
text = open(sys.argv[1]).read()
ev = re.findall(r"evidence: (.*?)\n     →", text, re.S)
assert ev, text
for e in ev:
    for kv in re.split(r",\s+", " ".join(e.split())):
        k, _, v = kv.partition("=")
        assert v, kv
        if k.endswith("_ns"):
            assert re.fullmatch(r"-?[0-9.]+ (ns|µs|ms|s)", v), kv
PY

src="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/hta"
[ -f "$src/trace_filter_sampled_rank-1.json.gz" ] || { echo "skip: no ../shared/traces"; done_ok; exit 0; }
expect_rc 0 aggregate --json -o "$TMP/real.json" "$src/trace_filter_sampled_rank-0.json.gz" \
	"$src/trace_filter_sampled_rank-1.json.gz"
python3 - "$TMP/real.json" <<'PY' || fail "the real sendrecv pair"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["clock"]
assert c["method"] == "none" and c["collectives_used"] == 0 and c["p2p_excluded"] > 0, c
assert c["max_uncertainty_ns"] is None, c
r1 = [r for r in d["ranks"] if r["rank"] == 1][0]
assert r1["clock_offset_ns"] is None and r1["clock_uncertainty_ns"] is None, r1
assert r1["clock_bound_ns"] is None and r1["wait_ns"] is None, r1
assert any("point-to-point" in w and "offset is unknown" in w for w in d["warnings"]), d["warnings"]
assert d["stragglers"] == [], d["stragglers"]
p2p = [x for x in d["collectives"] if x["p2p"]]
assert p2p and all(x["name"] == "sendrecv" and x["wait_ns"] is None for x in p2p), d["collectives"]
assert not [f for f in d["findings"] if f["id"] == "clock-skew"], d["findings"]
PY
expect_rc 0 aggregate "$src/trace_filter_sampled_rank-0.json.gz" "$src/trace_filter_sampled_rank-1.json.gz"
out_has "clock     not aligned: no collective links the ranks' clocks"
out_has "point-to-point operations (send, recv, sendrecv) join two ranks"
done_ok
