#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0505-report-aggregate-real.sh - `gpuprof report` of aggregates that `gpuprof aggregate`
# made of the ranks bench/gen-ranks.py wrote (not hand-written documents): 8 ranks on 2 hosts
# with rank 5 5 ms slower a step and node-1's clock 1234.5 µs off; the same job with rank 3
# missing a collective (a desynchronisation); rank 5 late for data loading in Kineto's older
# format without Seq; 1,024 ranks on 128 hosts. The documents
# themselves: a heatmap row per rank that sums to the rank's wait_ns. Each page passes the
# static checks and draws in headless Chromium with every section, the cards, a row per rank,
# the heatmap a row per rank with each rank's largest bin painted and its empty bins blank,
# the stragglers and collectives in the document's order, the straggler's p-value shown from
# p_value_log10 ("< 1e-13", never 0), the outlier finding's evidence by rank, and the
# desynchronisation first (aggpage_check.py). A document with per-rank clock_bound_ns shows
# the bounds. The page of 1,024 ranks stays under 4 MB. Skips (77) where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
cd "$TMP" || exit 1

GEN="python3 $GP_SRC_DIR/bench/gen-ranks.py --jobs 2"
$GEN --ranks 8 --hosts 2 --straggler 5 --straggler-ms 5 --host-offset-us node-1=1234.5 --out job >truth.json ||
	fail "gen-ranks job"
$GEN --ranks 8 --hosts 2 --straggler 5 --desync 3:45 --out desync >/dev/null || fail "gen-ranks desync"
$GEN --ranks 8 --hosts 2 --straggler 5 --straggler-cause data_loading --old-format --no-seq --out var \
	>/dev/null || fail "gen-ranks var"
$GEN --ranks 1024 --hosts 128 --straggler 700 --steps 2 --events-per-step 100 --out big >/dev/null ||
	fail "gen-ranks 1024"
for j in job desync var big; do
	expect_rc 0 aggregate -q --json -o $j.json $j
	expect_rc 0 report -q -o $j.html $j.json
	NCHECK=$((NCHECK + 1))
	probs=$(python3 "$E/reportpage.py" static $j.html) || fail "static checks of $j.html"
	[ -z "$probs" ] || fail "$j.html: $probs"
done
NCHECK=$((NCHECK + 1))
[ "$(stat -c %s big.html)" -lt 4000000 ] || fail "the page of 1,024 ranks is $(stat -c %s big.html) bytes"
# the newer per-rank offset bounds
python3 - <<'PY' || fail "bound.json"
import json
d = json.load(open("job.json"))
for r in d["ranks"]:
    r["clock_bound_ns"] = [r["clock_offset_ns"] - 1500, r["clock_offset_ns"] + 2500]
json.dump(d, open("bound.json", "w"))
PY
expect_rc 0 report -q -o bound.html bound.json

NCHECK=$((NCHECK + 1))
python3 - "$E" <<'PY' || fail "the documents (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import aggpage_check as ac
for j in ("job", "desync", "var", "big"):
    d = json.load(open(j + ".json"))
    ac.check_doc(d)
    assert d["stragglers"][0]["rank"] == (700 if j == "big" else 5), (j, d["stragglers"][0])
assert json.load(open("desync.json"))["desync"]["rank"] == 3
PY

need_chromium
NCHECK=$((NCHECK + 1))
python3 - "$E" "$ART" <<'PY' || fail "the pages in Chromium (above)"
import json, os, sys
sys.path.insert(0, sys.argv[1])
import aggpage_check as ac
ART = sys.argv[2]
for j in ("job", "desync", "var", "big"):
    d = json.load(open(j + ".json"))
    f = ac.page(j + ".html", os.path.join(ART, "t0505-%s.png" % j) if j != "big" else None, ac.heatmap_args(d))
    ac.check_page(d, f)
    if j == "job":
        # the straggler's p is below what six decimals hold: shown from its exponent
        st = d["stragglers"][0]
        assert st["p_value"] == 0 and st["p_value_log10"] < -6, st
        assert f["stragglers"][0][2].startswith("< 1e-") and f["stragglers"][0][2] != "< 1e-6", f["stragglers"][0]
        assert "p value 0" not in f["text"] and "log10" not in f["text"], "a p-value shown as 0"
        # the hard bounds of the offsets, [0, 0] for the reference host
        assert f["bounds"] == [ac.fmt_ns(r["clock_bound_ns"][0]) + " \u2026 " + ac.fmt_ns(r["clock_bound_ns"][1]) for r in d["ranks"]], f["bounds"]
    if j == "var":
        assert d["stragglers"][0]["cause"] == "data_loading", d["stragglers"][0]
        assert f["cards"]["straggler"]["sub"].endswith("; data loading"), f["cards"]["straggler"]
    if j == "desync":
        assert "rank 3 lacks allreduce seq 45 of process group 0" in f["desync"]["text"], f["desync"]
        # both hosts' clocks aligned, with the collectives used
        assert "Clocks: aligned on rank 0" in f["clock"] and "over 16 collectives" in f["clock"], f["clock"]
d = json.load(open("bound.json"))
nd = json.load(open("bound.json"))
nd["clock"] = {"method": "none", "reference_rank": 0, "collectives_used": 0, "p2p_excluded": 10, "max_uncertainty_ns": None}
for r in nd["ranks"]:
    r["clock_offset_ns"] = r["clock_uncertainty_ns"] = r["clock_bound_ns"] = None
json.dump(nd, open("noclock.json", "w"))
import subprocess
subprocess.run([os.environ["GPUPROF"], "report", "-q", "-o", "noclock.html", "noclock.json"], check=True)
f = ac.page("noclock.html", None, ac.heatmap_args(nd))
assert f["clock"].startswith("Clocks: not aligned") and "10 point-to-point operations left out" in f["clock"], f["clock"]
assert " by none" not in f["clock"], f["clock"]
f = ac.page("bound.html", None, ac.heatmap_args(d))
ac.check_page(d, f)
assert f["bounds"] == [ac.fmt_ns(r["clock_bound_ns"][0]) + " \u2026 " + ac.fmt_ns(r["clock_bound_ns"][1]) for r in d["ranks"]], f["bounds"]
print("real aggregate pages ok")
PY
done_ok
