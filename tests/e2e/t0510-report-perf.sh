#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0510-report-perf.sh - the report page's views of issue 23's sections, drawn in headless
# Chromium from reports with known sections (perfsections.py): the critical path (the total
# and the step's bound shares as bars and legends, the step's segments on its timeline in
# order with their bounds, a step selector that redraws another step, the path's CPU ops and
# kernels), the roofline (the device's card, a roof per dtype of the ops at its peak and the
# memory roof at the device's TB/s, one point per op sized by its GPU time, the ops table in
# the JSON's order; a GPU not in the table: what is missing said, no roofs, the points still
# there), the module classes and the collapsible module tree (a node per module); a compare
# page's bound shift, module and op diffs and their explanations. Each page draws ("ok") with
# no console error and no request; hostile op and module names stay text; a report without
# the sections has none of them, nor one whose path is not available. Skips (77) only
# where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
need_gen_trace
need_chromium
cd "$TMP" || exit 1

"$GEN" --steps 4 -o gen.json 2>/dev/null || fail "gen_trace"
expect_rc 0 analyze --json -o an.json gen.json
P="python3 $E/perfsections.py"
# the report without the three sections (as analyze wrote it before issue 23)
$P an.json plain.json --strip || fail "plain report"
$P plain.json base.json || fail "perfsections"
$P plain.json new.json --variant new || fail "perfsections new"
$P plain.json unk.json --device unknown || fail "perfsections unknown"
python3 - "$E" <<'EOF' || fail "variants"
import json, sys
sys.path.insert(0, sys.argv[1])
import reportpage
H = reportpage.HOSTILE
d = json.load(open("base.json"))
r = d["ranks"][0]
r["roofline"]["ops"][0]["name"] = H["op"]
r["modules"]["classes"][0]["name"] = H["kernel"]
r["modules"]["tree"][0]["name"] = H["annotation"]
r["critical_path"]["steps"][0]["segments"][0]["name"] = H["thread"]
json.dump(d, open("evil.json", "w"))
d = json.load(open("base.json"))
d["ranks"][0]["critical_path"] = {"available": False, "reason": "no GPU activity", "compat": "gpuprof",
                                  "categories": d["ranks"][0]["critical_path"]["categories"], "steps": [],
                                  "whole_trace": False, "total": None}
json.dump(d, open("nocp.json", "w"))
EOF
expect_rc 0 compare --json -o cmp.json base.json new.json
for k in base unk evil nocp plain cmp; do
	expect_rc 0 report -q -o $k.html $k.json
	NCHECK=$((NCHECK + 1))
	python3 "$E/reportpage.py" static $k.html >static.txt || fail "$k.html: $(cat static.txt)"
done

NCHECK=$((NCHECK + 1))
python3 - "$E" "$ART" <<'EOF' || fail "the pages in Chromium (above)"
import json, math, os, sys
E, ART = sys.argv[1], sys.argv[2]
sys.path.insert(0, E)
import cdp, reportpage

DOM = r"""
(function () {
  function q(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function legend(root) { var o = {}; q('.gp-legend [data-bound]', root).forEach(function (e) { o[e.getAttribute('data-bound')] = e.getAttribute('data-value'); }); return o; }
  function bar(name) { var o = {}; q('svg[data-gp-chart="' + name + '"] rect[data-bound]').forEach(function (e) { o[e.getAttribute('data-bound')] = Number(e.getAttribute('data-value')); }); return o; }
  function segs() { return q('svg[data-gp-chart="critical-path"] rect[data-seg]').map(function (e) { return [Number(e.getAttribute('data-seg')), e.getAttribute('data-bound'), e.getAttribute('data-kind'), Number(e.getAttribute('data-dur')), e.querySelector('title').textContent]; }); }
  function table(name) {
    var t = document.querySelector('table[data-gp-table="' + name + '"]');
    if (!t) return null;
    return q('tbody tr', t).map(function (tr) { var o = {}; q('td[data-col]', tr).forEach(function (td) { o[td.getAttribute('data-col')] = [td.getAttribute('data-value'), td.textContent]; }); return o; });
  }
  var f = { state: document.body.getAttribute('data-gp-state'), sections: {}, cards: {} };
  q('section.gp-sec').forEach(function (s) { f.sections[s.id] = s.getAttribute('data-gp-has'); });
  q('[data-gp-card]').forEach(function (c) { f.cards[c.getAttribute('data-gp-card')] = [c.querySelector('.gp-v').getAttribute('data-value'), c.querySelector('.gp-v').textContent]; });
  var cp = document.getElementById('gp-critpath');
  f.cpNote = cp ? (cp.querySelector('.gp-note') || {}).textContent || null : null;
  f.cpTotal = bar('critical-path-total');
  f.cpStep = bar('critical-path-step');
  f.cpLegend = cp ? legend(cp.querySelector('[data-gp-critpath-step]')) : null;
  var chart = document.querySelector('svg[data-gp-chart="critical-path"]');
  f.cpStepName = chart ? chart.getAttribute('data-step') : null;
  f.segs = segs();
  f.options = q('select[data-gp-critpath-select] option').map(function (o) { return o.textContent; });
  f.cpCpu = table('cp-cpu-ops');
  f.cpKernels = table('cp-kernels');
  var sel = document.querySelector('select[data-gp-critpath-select]');
  if (sel && sel.options.length > 1) {
    sel.value = '1';
    sel.dispatchEvent(new Event('change'));
    chart = document.querySelector('svg[data-gp-chart="critical-path"]');
    f.after = { step: chart.getAttribute('data-step'), segs: segs(), bar: bar('critical-path-step') };
  }
  f.points = q('svg[data-gp-chart="roofline"] circle.gp-op').map(function (c) { return [Number(c.getAttribute('data-op')), Number(c.getAttribute('r')), Number(c.getAttribute('cx')), Number(c.getAttribute('cy')), c.querySelector('title').textContent]; });
  f.roofs = q('svg[data-gp-chart="roofline"] line[data-roof]').map(function (l) { return [l.getAttribute('data-roof'), Number(l.getAttribute('data-value'))]; });
  var miss = document.querySelector('[data-gp-missing]');
  f.missing = miss ? miss.getAttribute('data-gp-missing') : null;
  f.missingText = miss ? miss.textContent : null;
  f.ops = table('roofline-ops');
  f.classes = table('module-classes');
  f.tree = q('[data-gp-module]').map(function (e) { return [e.getAttribute('data-gp-module'), e.tagName.toLowerCase(), e.hasAttribute('open'), e.querySelector('.gp-modname').textContent]; });
  var d = document.querySelector('details[data-gp-module]');
  if (d) {
    var was = d.open;
    d.querySelector('summary').click();
    f.toggled = [was, d.open];
  }
  f.cmpCp = table('cmp-critpath');
  f.cmpModules = table('cmp-modules');
  f.cmpOps = table('cmp-ops');
  f.findings = q('[data-gp-finding]').map(function (e) { return e.getAttribute('data-gp-finding'); });
  f.injected = q('img, iframe, svg[onload]').length + document.scripts.length - 2;
  return f;
})()
"""

def page(name):
    r = cdp.run(name + ".html", width=1280, height=900, timeout=60, eval_expr=DOM,
                screenshot=os.path.join(ART, "t0510-%s.png" % name), full_page=True, max_height=9000)
    f = r["value"]
    assert r["waited_ok"] and r["state"] == "ok" and f["state"] == "ok", (name, r["state"])
    assert r["errors"] == [] and r["requests"] == [] and r["dialogs"] == [], (name, r["errors"], r["requests"])
    return f, json.load(open(name + ".json"))

def close(a, b, tol=1e-6):
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)

def fmt_pct(p):
    return "%.1f%%" % p

# --- the analyze page: the three sections after the GPU timeline, in order
f, d = page("base")
r = d["ranks"][0]
secs = list(f["sections"])
i = secs.index("gp-timeline")
assert secs[i + 1:i + 4] == ["gp-critpath", "gp-roofline", "gp-modules"], secs
assert all(f["sections"][s] == "1" for s in ("gp-critpath", "gp-roofline", "gp-modules")), f["sections"]

# critical path: the total's and the first step's shares
cp = r["critical_path"]
for k, v in cp["total"]["bound_by_pct"].items():
    assert (v == 0 and k not in f["cpTotal"]) or close(f["cpTotal"][k], v), (k, f["cpTotal"])
    assert fmt_pct(v) in f["cpNote"], (k, f["cpNote"])
st = cp["steps"][0]
for k, v in st["bound_by_pct"].items():
    assert close(f["cpLegend"][k], v), (k, f["cpLegend"])
    assert (v == 0 and k not in f["cpStep"]) or close(f["cpStep"][k], v), (k, f["cpStep"])
assert f["cpStepName"] == st["step"], f["cpStepName"]
assert [s[0] for s in f["segs"]] == list(range(len(st["segments"]))), f["segs"]
for s, want in zip(f["segs"], st["segments"]):
    # epoch nanoseconds are past 2^53: JavaScript's doubles hold them to 256 ns
    assert s[1] == want["bound"] and s[2] == want["kind"] and abs(s[3] - (want["end_ns"] - want["start_ns"])) <= 512, (s, want)
    assert want["name"] is None or s[4].startswith(want["name"]), (s, want)
assert len(f["options"]) == len(cp["steps"]) and all(o.startswith(x["step"]) for o, x in zip(f["options"], cp["steps"])), f["options"]
assert [x["name"][0] for x in f["cpCpu"]] == [x["name"] for x in st["top_cpu_ops"]], f["cpCpu"]
assert [int(x["path_ns"][0]) for x in f["cpKernels"]] == [x["path_ns"] for x in st["top_kernels"]], f["cpKernels"]
st1 = cp["steps"][1]
assert f["after"]["step"] == st1["step"] and len(f["after"]["segs"]) == len(st1["segments"]), f["after"]
assert [s[1] for s in f["after"]["segs"]] == [x["bound"] for x in st1["segments"]]

# roofline: the device, a roof per dtype of the ops and the memory roof, a point per op
rf = r["roofline"]
dev = rf["device"]
assert f["cards"]["device"][1] == dev["matched"], f["cards"]["device"]
assert close(f["cards"]["coverage"][0], rf["coverage_pct"]), f["cards"]["coverage"]
dtypes = sorted({o["dtype"] for o in rf["ops"]})
compute = sorted((k, v) for x, v in f["roofs"] if x != "memory" for k in x.split("/"))
assert compute == sorted((k, dev["peak_tflops"][k]) for k in dtypes), (compute, dtypes)
assert len({v for k, v in f["roofs"] if k != "memory"}) == len([k for k in f["roofs"] if k[0] != "memory"]), f["roofs"]
mem = [v for k, v in f["roofs"] if k == "memory"]
assert mem and all(close(v, dev["peak_tbps"]) for v in mem), f["roofs"]
assert sorted(p[0] for p in f["points"]) == list(range(len(rf["ops"]))), f["points"]
by = {p[0]: p for p in f["points"]}
order = sorted(range(len(rf["ops"])), key=lambda k: rf["ops"][k]["gpu_time_ns"])
radii = [by[k][1] for k in order]
assert radii == sorted(radii) and radii[0] < radii[-1], radii  # sized by GPU time
# log-log: a higher intensity lies further right, more TFLOP/s higher up
ai = sorted(range(len(rf["ops"])), key=lambda k: rf["ops"][k]["arithmetic_intensity"])
assert [by[k][2] for k in ai] == sorted(by[k][2] for k in ai), "x is not the intensity"
tf = sorted(range(len(rf["ops"])), key=lambda k: rf["ops"][k]["achieved_tflops"])
assert [by[k][3] for k in tf] == sorted((by[k][3] for k in tf), reverse=True), "y is not TFLOP/s"
for k, o in enumerate(rf["ops"]):
    assert by[k][4].startswith(o["name"] + " " + o["input_dims"]), by[k][4]
assert [x["name"][0] for x in f["ops"]] == [o["name"] for o in rf["ops"]], f["ops"]
assert [close(x["headroom_ns"][0], o["headroom_ns"]) for x, o in zip(f["ops"], rf["ops"])] == [True] * len(rf["ops"])

# modules: a class row each, a tree node per module, the top level open and collapsible
m = r["modules"]
assert sorted(x["name"][0] for x in f["classes"]) == sorted(c["name"] for c in m["classes"]), f["classes"]
assert [x["name"][0] for x in f["classes"]] == [c["name"] for c in m["classes"]]  # by GPU time, as the JSON
for x, c in zip(f["classes"], m["classes"]):
    assert int(x["count"][0]) == c["count"] and close(x["mean_gpu_ns"][0], c["mean_gpu_ns"]), (x, c)
nodes = []
def walk(t, depth):
    for n in t:
        nodes.append((n["name"], "details" if n["children"] else "div", bool(n["children"]) and depth == 0, n["name"]))
        walk(n["children"], depth + 1)
walk(m["tree"], 0)
assert [tuple(x) for x in f["tree"]] == nodes, (f["tree"], nodes)
assert f["toggled"] == [True, False], f["toggled"]

# --- a GPU not in the table: said, no roofs, the points still drawn
f, d = page("unk")
rf = d["ranks"][0]["roofline"]
assert f["missing"] == "gpu not in table" and "nothing is guessed" in f["missingText"], f["missingText"]
assert f["roofs"] == [] and len(f["points"]) == len(rf["ops"]), (f["roofs"], f["points"])
assert f["cards"]["device"][1] == rf["device"]["name"], f["cards"]
assert all(x["roofline_pct"][1] == "-" and x["headroom_ns"][1] == "-" for x in f["ops"]), f["ops"]

# --- hostile names stay text
f, d = page("evil")
H = reportpage.HOSTILE
assert f["injected"] == 0, f["injected"]
assert f["ops"][0]["name"][0] == H["op"] and f["ops"][0]["name"][1] == H["op"], f["ops"][0]
assert H["kernel"] in [x["name"][1] for x in f["classes"]], f["classes"]
assert f["tree"][0][3] == H["annotation"], f["tree"][0]
assert f["segs"][0][4].startswith(H["thread"]), f["segs"][0]

# --- a path that is not available says why; a report without the sections has none
f, d = page("nocp")
assert "gp-critpath" not in f["sections"] and f["segs"] == [], f["sections"]
f, d = page("plain")
assert not {"gp-critpath", "gp-roofline", "gp-modules"} & set(f["sections"]), f["sections"]

# --- compare: the bound shift, the module and op diffs, the explanations
f, c = page("cmp")
g = c["groups"][0]
assert [x["category"][0] for x in f["cmpCp"]] == [x["category"] for x in g["critical_path"]["bounds"]], f["cmpCp"]
for x, want in zip(f["cmpCp"], g["critical_path"]["bounds"]):
    assert close(x["delta_pp"][0], want["delta_pp"]) and close(x["new_pct"][0], want["new_pct"]), (x, want)
    assert close(x["p"][0], want["p"]) and close(x["new_step_median_pct"][0], want["new_step_median_pct"]), (x, want)
assert [x["name"][0] for x in f["cmpModules"]] == [x["name"] for x in g["modules"]["rows"]], f["cmpModules"]
assert [x["status"][0] for x in f["cmpModules"]] == [x["status"] for x in g["modules"]["rows"]]
assert [(x["name"][0], x["input_dims"][0]) for x in f["cmpOps"]] == [(x["name"], x["input_dims"]) for x in g["roofline"]["rows"]], f["cmpOps"]
for x, want in zip(f["cmpOps"], g["roofline"]["rows"]):
    assert (want["new_achieved_tflops"] is None and x["new_achieved_tflops"][0] == "null") or close(x["new_achieved_tflops"][0], want["new_achieved_tflops"]), (x, want)
assert {"critical_path_bound", "module_time", "op_time"} <= set(f["findings"]), f["findings"]
print("perf pages ok")
EOF
done_ok
