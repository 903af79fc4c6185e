#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The report page's memory view, drawn in headless Chromium: for a generated loop that leaks
# 4 MiB a step, per device the cards, the allocated curve (every point of memory.devices[].curve
# drawn as a step function, the steps' starts marked, the peak as a dot whose tooltip lists what
# was live then), the leak warning naming aten::cat, the per-step table, what was live at the
# peak and what was never freed, as the JSON has them; the real 2021 resnet50 trace (no
# addresses) says that nothing can be paired; a trace without memory events has no memory view:
# none. No console error, no request. Skips (77) only where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
need_gen_trace
need_chromium
cd "$TMP" || exit 1

"$GEN" --steps 6 --layers 2 --leak 4194304 -o leak.json 2>/dev/null || fail "gen_trace"
expect_rc 0 analyze --json -o leak.an.json leak.json
expect_rc 0 report -q -o leak.html leak.an.json
python3 "$E/memtrace.py" gen modern 1 mem.json || fail "memtrace"
expect_rc 0 analyze --json -o mem.an.json mem.json
expect_rc 0 report -q -o mem.html mem.an.json
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5}]}' >nomem.json
expect_rc 0 report -q -o nomem.html nomem.json
R50="$GP_SHARED_DIR/traces/kineto/resnet50_num_workers_0_worker0.pt.trace.json.gz"
pages="leak mem nomem"
if [ -f "$R50" ]; then
	expect_rc 0 analyze --json -o r50.an.json "$R50"
	expect_rc 0 report -q -o r50.html r50.an.json
	pages="$pages r50"
fi
for k in $pages; do
	NCHECK=$((NCHECK + 1))
	python3 "$E/reportpage.py" static $k.html >static.txt || fail "$k.html: $(cat static.txt)"
done

NCHECK=$((NCHECK + 1))
python3 - "$E" "$ART" $pages <<'PYEOF' || fail "the pages in Chromium (above)"
import json, os, sys
E, ART, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, E)
import cdp

DOM = r"""
(function () {
  function q(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function table(name) {
    var t = document.querySelector('table[data-gp-table="' + name + '"]');
    if (!t) return null;
    return q('tbody tr', t).map(function (tr) { var o = {}; q('td[data-col]', tr).forEach(function (td) { o[td.getAttribute('data-col')] = td.getAttribute('data-value'); }); return o; });
  }
  var f = { state: document.body.getAttribute('data-gp-state'), sections: {}, cards: {}, devs: [] };
  q('section.gp-sec').forEach(function (s) { f.sections[s.id] = s.getAttribute('data-gp-has'); });
  var sec = document.getElementById('gp-memory');
  f.note = sec ? q('.gp-note', sec).map(function (e) { return e.textContent; }) : null;
  q('[data-gp-memdev]').forEach(function (box, k) {
    var chart = box.querySelector('svg[data-gp-memcurve]'), dot = chart ? chart.querySelector('circle[data-dot]') : null;
    var path = chart ? chart.querySelector('path.gp-line') : null;
    var cards = {};
    q('[data-gp-card]', box).forEach(function (c) { cards[c.getAttribute('data-gp-card')] = c.querySelector('.gp-v').getAttribute('data-value'); });
    f.devs.push({
      device: box.getAttribute('data-gp-memdev'), cards: cards,
      points: chart ? Number(chart.getAttribute('data-gp-memcurve')) : null,
      segments: path ? (path.getAttribute('d').match(/[ML]/g) || []).length : null,
      marks: chart ? q('line[data-mark]', chart).length : null,
      dot: dot ? [dot.getAttribute('data-dot'), dot.querySelector('title').textContent] : null,
      leak: (box.querySelector('[data-gp-leak]') || {}).textContent || null,
      steps: table('mem' + k + '-steps'), live: table('mem' + k + '-live'),
      unfreed: table('mem' + k + '-unfreed'), before: table('mem' + k + '-before'),
      text: box.textContent
    });
  });
  return f;
})()
"""

def page(name):
    r = cdp.run(name + ".html", width=1280, height=900, timeout=60, eval_expr=DOM,
                screenshot=os.path.join(ART, "t0702-%s.png" % name), full_page=True, max_height=9000)
    f = r["value"]
    assert r["waited_ok"] and r["state"] == "ok" and f["state"] == "ok", (name, r["state"], r["errors"])
    assert r["errors"] == [] and r["requests"] == [] and r["dialogs"] == [], (name, r["errors"], r["requests"])
    return f

def check_dev(f, d):
    assert f["sections"]["gp-memory"] == "1", f["sections"]
    dev = f["devs"][d["_k"]]
    c = d["curve"]
    n = len(c["allocated"])
    assert dev["points"] == n, (dev["points"], n)
    assert dev["segments"] == 2 * n - 1, (dev["segments"], n)  # a step function: two per change
    assert dev["dot"][0] == str(d["peak_allocated_bytes"]), dev["dot"]
    for row in d["peak_live"]["rows"][:3]:
        assert (row["op"] or "(outside any op)") in dev["dot"][1], (row, dev["dot"][1])
    k = "mem%d" % d["_k"]
    assert dev["cards"][k + "_peak"] == str(d["peak_allocated_bytes"]), dev["cards"]
    assert dev["cards"][k + "_end"] == str(d["final_allocated_bytes"]), dev["cards"]
    assert dev["steps"] is not None, (d["_k"], dev["text"][:400])
    assert [s["step"] for s in dev["steps"]] == [s["step"] for s in d["step_growth"]][:len(dev["steps"])]
    assert [s["peak_allocated_bytes"] for s in dev["steps"]] == [str(s["peak_allocated_bytes"]) for s in d["step_growth"]][:len(dev["steps"])]
    want = sorted((r["op"] or "(outside any op)", str(r["bytes"])) for r in d["peak_live"]["rows"])
    live = dev["live"] or []  # no rows: the table says so instead
    assert len(live) == min(len(want), 10) and all(x in want for x in sorted((r["op"], r["bytes"]) for r in live)), (live, want)
    if d["unfreed"] is not None and d["unfreed"]["rows"]:
        got = [(r["op"], r["bytes"], r["first_step"], r["last_step"]) for r in dev["unfreed"]]
        exp = [(r["op"] or "(outside any op)", str(r["bytes"]), r["first_step"], r["last_step"]) for r in d["unfreed"]["rows"]]
        assert got == exp[:len(got)], (got, exp)
    return dev

for name in pages:
    f = page(name)
    if name == "nomem":
        assert "gp-memory" not in f["sections"], f["sections"]
        continue
    d = json.load(open(name + ".an.json"))["ranks"][0]["memory"]
    assert len(f["devs"]) == len(d["devices"]), (len(f["devs"]), len(d["devices"]))
    for k, dv in enumerate(d["devices"]):
        dv["_k"] = k
        dev = check_dev(f, dv)
        if name == "leak" and k == 0:
            assert dev["leak"] and "aten::cat" in dev["leak"] and "4.0 MiB a step" in dev["leak"], dev["leak"]
            assert dev["marks"] == 6, dev["marks"]
            assert dev["unfreed"][0]["op"] == "aten::cat", dev["unfreed"]
        elif name != "leak":
            assert dev["leak"] is None, dev["leak"]
        if name == "r50":
            assert "cannot be paired" in dev["text"], dev["text"][:300]
print("ok")
PYEOF
done_ok
