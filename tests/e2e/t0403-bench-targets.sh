#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0403-bench-targets.sh - `gpuprof bench --target` (issue 21, item 17): each target met
# or missed in every output (✓/✗ in text and Markdown, a field in JSON, a column and a
# table on the page, read back in headless Chromium when it is installed), exit 3 when
# one is missed and 0 when all are met, on commands and on a trace's steps; a target that
# does not parse is a usage error saying what is wrong; and one unit per line in bench's
# text (item 14). Targets are ones no run can miss or meet (p50 >= 0 ns, p50 < 0 ns),
# so nothing depends on how long a run takes.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
K="$GP_SRC_DIR/tests/data/kineto"

# all met: exit 0, ✓ per target
expect_rc 0 bench --runs 3 -w 0 --target 'p50>=0ns' --target 'fps > 0' -- true
out_has "  targets"
out_has "✓ met"
grep -q "✗" "$OUT" && fail "a target missed"
# one missed: exit 3, the output written all the same
expect_rc 3 bench --runs 3 -w 0 --target 'p50>=0ns' --target 'p99 < 0 ms' --target 'fps>=0' -- true
out_has "✗ missed"
out_has "✓ met"
grep -qE "^    p99 +[0-9.]+ (ns|µs|ms|s) +< 0" "$OUT" || fail "the p99 row: metric, value, target, status"
expect_rc 3 bench --runs 3 -w 0 --target 'p99<0ms' --json -o "$TMP/t.json" -- true
out_empty
NCHECK=$((NCHECK + 1))
python3 - "$TMP/t.json" <<'EOF' || fail "the JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["targets"] == ["p99<0ms"] and d["targets_met"] is False, d.get("targets")
t = d["series"][0]["targets"][0]
assert t["metric"] == "p99" and t["op"] == "<" and t["threshold"] == 0 and t["unit"] == "ns", t
assert t["status"] == "missed" and t["met"] is False and t["value"] == d["series"][0]["stats"]["p99_ns"], t
EOF
expect_rc 3 bench --runs 3 -w 0 --markdown --target 'p50>=0ns' --target 'p99<0ms' -- true
out_has "| series | metric | value | target | status |"
out_has "| true | p50 |"
out_has "✓ met |"
out_has "**✗ missed** |"
out_has "✗ 1/2 met"
# a number the series lacks (no GPU time for a command) cannot be checked: unknown, missed
expect_rc 3 bench --runs 2 -w 0 --target 'gpu_p50<1s' -- true
out_has "? unknown"
# several commands: every series gets every target
expect_rc 3 bench --runs 2 -w 0 --json --target 'p50>=0ns' --target 'max<0ns' 'true' 'true'
[ "$(json_get "$OUT" '[[t["status"] for t in s["targets"]] for s in d["series"]]')" = \
	"[['met', 'missed'], ['met', 'missed']]" ] || fail "targets of two series"
# a trace's steps
expect_rc 0 bench --target 'p50>=0ns' --target 'rate>0' "$K/modern.json"
out_has "✓ met"
expect_rc 3 bench --target 'median<0ns' --json "$K/modern.json"
[ "$(json_get "$OUT" 'd["targets_met"]')" = False ] || fail "trace target"

# parse errors: exit 2, one clear line, nothing run
for spec in 'p50<16.67' 'p42<1ms' 'p50 16ms' 'p50<abc' 'fps>=60ms' '' 'p50<1ms p99<2ms'; do
	expect_rc 2 bench --runs 1 --target "$spec" -- true
	err_one_line
	err_has "target '$spec': "
done
expect_rc 2 bench --runs 1 --target 'p50<16.67' -- true
err_has "a time needs a unit: ns, us, ms or s"
expect_rc 2 bench --runs 1 --target 'p42<1ms' -- true
err_has "unknown metric 'p42'"
expect_rc 2 bench --runs 1 --target 'fps>=60ms' -- true
err_has "a rate is per second"

# one unit per line (item 14): "mean 11.88 ms ± 0.55 ms", not "11.88 ms ± 552.0 µs"
expect_rc 0 bench --runs 12 -w 0 -- sleep 0.001
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "one unit per line (above)"
import re, sys
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    units = set(re.findall(r"[0-9] (ns|µs|ms|s)\b", line))
    assert len(units) <= 1, "two units on one line: %r" % line
EOF
grep -qE "mean [0-9.]+ (ns|µs|ms|s) ± [0-9.]+ (ns|µs|ms|s)$" "$OUT" || fail "the mean line"
# compare of two bench results: base and new of a row in one unit (994.5 µs against 1.205 ms)
for x in 0.99 1.2; do
	python3 - "$TMP/u$x.json" "$x" <<'EOF' || fail "writing u$x.json"
import json, sys
t = [float(sys.argv[2]) * 1e6 * (1 + 0.001 * i) for i in range(10)]
json.dump({"schema": "gpuprof.bench/1", "series": [{"name": "s", "batch_size": 1, "warmup": 0,
           "n": 10, "times_ns": t, "gpu_ns": None, "peak_memory_bytes": None}]},
          open(sys.argv[1], "w"))
EOF
done
expect_rc 3 compare "$TMP/u0.99.json" "$TMP/u1.2.json"
grep -E "^time " "$OUT" | grep -q "ms" && fail "base and new of one row in two units: $(grep -E '^time ' "$OUT")"
grep -qE "^time +[0-9.]+ µs +[0-9.]+ µs" "$OUT" || fail "the time row: $(grep -E '^time ' "$OUT")"

# the page: a Targets column and a targets table, read back in headless Chromium
expect_rc 3 bench --runs 3 -w 0 --json -o "$TMP/page.json" --target 'p50>=0ns' --target 'p99<0ms' \
	'true' 'true'
expect_rc 0 report -q -o "$TMP/page.html" "$TMP/page.json"
if python3 -c "import sys; sys.path.insert(0, '$E'); import cdp; sys.exit(0 if cdp.find_chromium() else 1)"; then
	NCHECK=$((NCHECK + 1))
	python3 - "$E" "$TMP/page.html" "$TMP/page.json" <<'EOF' || fail "the page in Chromium (above)"
import json, sys
E, page, doc = sys.argv[1:4]
sys.path.insert(0, E)
import cdp
JS = r"""(function () {
  function tbl(name) {
    var t = document.querySelector('[data-gp-table="' + name + '"]');
    if (!t) return null;
    return {
      head: Array.prototype.map.call(t.querySelectorAll('thead th'), function (th) { return th.textContent; }),
      rows: Array.prototype.map.call(t.querySelectorAll('tbody tr'), function (tr) {
        return Array.prototype.map.call(tr.querySelectorAll('td'), function (td) { return td.textContent; });
      })
    };
  }
  return { state: document.body.dataset.gpState, series: tbl('series'), targets: tbl('targets') };
})()"""
r = cdp.run(page, eval_expr=JS, timeout=60)
assert not r["errors"] and not r["requests"], (r["errors"], r["requests"])
v = r["value"]
assert v["state"] == "ok", v
d = json.load(open(doc))
s = v["series"]
assert "Targets" in s["head"] and "\u00d7 fastest" in s["head"], s["head"]
col = s["head"].index("Targets")
assert [row[col] for row in s["rows"]] == ["\u2717 1/2 met"] * 2, s["rows"]
t = v["targets"]
assert t["head"] == ["Series", "Metric", "Value", "Target", "Status"], t["head"]
assert [row[4] for row in t["rows"]] == ["\u2713 met", "\u2717 missed"] * 2, t["rows"]
assert [row[1] for row in t["rows"]] == ["p50", "p99"] * 2, t["rows"]
EOF
else
	echo "note: no chromium, the page's check left out"
fi
done_ok
