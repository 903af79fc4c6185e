#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0413-compare-untested.sh - `gpuprof compare` prints no number that no test
# computed, and the change of a metric that is a percentage in points (issue 21,
# second review). The two single-step traces of tracelens (an H100 and an MI300
# run of Qwen1.5-0.5B): the step time has one value a side, so no test: its p and
# interval are null in the JSON and "-" in the text, the Markdown and the page;
# GPU idle (a percentage) moves by points ("+0.5 pp"), not by a relative change,
# in the text, the Markdown and the page (headless Chromium, when there).
# Skipped when ../shared/traces is absent.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/tracelens"
B="$T/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
N="$T/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
[ -r "$B" ] && [ -r "$N" ] || { echo "skip: no tracelens traces under $T"; exit 77; }

expect_rc 0 compare --json "$B" "$N"
json_ok "$OUT"
cp "$OUT" "$TMP/c.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/c.json" <<'EOF' || fail "the JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
ms = {m["metric"]: m for m in d["groups"][0]["metrics"]}
s = ms["step_time"]
assert (s["n_base"], s["n_new"]) == (1, 1) and s["test"] is None, s
# not tested: no p, no interval (a p of 1.0 read as "no change at all")
assert s["p"] is None and s["ratio_lo"] is None and s["ratio_hi"] is None, s
assert s["verdict"] == "same" or s["reason"], s
for m in d["groups"][0]["metrics"]:
    if m.get("test") is None:
        assert m["p"] is None and m["ratio_lo"] is None and m["ratio_hi"] is None, m
i = ms["gpu_idle_pct"]
assert i["unit"] == "%" and abs(i["delta"] - (i["new"] - i["base"])) < 1e-9, i
EOF

# the text: "-" for p, the idle change in points
expect_rc 0 compare "$B" "$N"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/c.json" <<'EOF' || fail "the text (above)"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
idle = [m for m in d["groups"][0]["metrics"] if m["metric"] == "gpu_idle_pct"][0]
rows = {l.split("  ")[0].strip(): l for l in text.splitlines() if re.match(r"^(step time|GPU idle) ", l)}
st = rows["step time"].split()
# step time, base, unit, new, unit, delta, %, ratio, p, n, verdict
assert st[-3] == "-" and st[-2] == "1/1", rows["step time"]
assert "[" not in rows["step time"], rows["step time"]
pp = "%+.1f pp" % idle["delta"]
assert pp in rows["GPU idle"] and " %" not in rows["GPU idle"].split("%", 2)[2], (pp, rows["GPU idle"])
EOF

expect_rc 0 compare --markdown "$B" "$N"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/c.json" <<'EOF' || fail "the Markdown (above)"
import json, sys
md = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
idle = [m for m in d["groups"][0]["metrics"] if m["metric"] == "gpu_idle_pct"][0]
rows = {l.split("|")[1].strip(): [c.strip() for c in l.split("|")[1:-1]]
        for l in md.splitlines() if l.startswith("| step time") or l.startswith("| GPU idle")}
assert rows["step time"][5] == "-" and rows["step time"][4] == "0.959", rows["step time"]
assert rows["GPU idle"][3] == "%+.1f pp" % idle["delta"], rows["GPU idle"]
EOF

# the page
expect_rc 0 report -q -o "$TMP/c.html" "$TMP/c.json"
if python3 -c "import sys; sys.path.insert(0, '$E'); import cdp; sys.exit(0 if cdp.find_chromium() else 1)"; then
	NCHECK=$((NCHECK + 1))
	python3 - "$E" "$TMP/c.html" "$TMP/c.json" <<'EOF' || fail "the page (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import cdp
JS = """(function () {
  var o = {};
  document.querySelectorAll('[data-gp-table="compare-metrics"] tbody tr').forEach(function (tr) {
    var r = {};
    tr.querySelectorAll('td[data-col]').forEach(function (td) { r[td.getAttribute('data-col')] = td.textContent; });
    o[tr.getAttribute('data-metric')] = r;
  });
  return o;
})()"""
r = cdp.run(sys.argv[2], timeout=60, eval_expr=JS)
assert r["state"] == "ok" and r["errors"] == [] and r["requests"] == [], r
rows = r["value"]
d = json.load(open(sys.argv[3]))
idle = [m for m in d["groups"][0]["metrics"] if m["metric"] == "gpu_idle_pct"][0]
assert rows["step_time"]["p"] == "-" and rows["step_time"]["ci"] == "-", rows["step_time"]
g = rows["gpu_idle_pct"]
assert "delta_pct" not in g and g["delta_pp"] == "%+.1f pp" % idle["delta"], g
EOF
else
	echo "note: no chromium, the page check is left out"
fi
done_ok
