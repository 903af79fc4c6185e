#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0511-report-perf-real.sh - the report page's critical path, roofline and module views on
# the analyses of real traces (../shared/traces: a TraceLens H100 trace recorded with shapes
# and modules, HTA's AlexNet trace without ProfilerStep or shapes): the page draws ("ok")
# with no console error and no request; every segment of the first step's path is drawn;
# every op with FLOPs is a point and the roofs are the device's peaks; the module tree has a
# node per module (up to the 2,000 drawn); what the roofline misses is said; a step whose
# path has more segments than the report keeps (HTA's trace_diff) says the drawing is a part. Skips (77) where
# Chromium cannot start, the traces are absent, or analyze writes none of the sections.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
T="$GP_SRC_DIR/../shared/traces"
Q="$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
A="$T/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"
C="$T/hta/trace_diff_control_control.json.gz"
[ -e "$Q" ] && [ -e "$A" ] && [ -e "$C" ] || { echo "skip: no shared traces"; exit 77; }
need_chromium
cd "$TMP" || exit 1
expect_rc 0 analyze --json -o q.json "$Q"
expect_rc 0 analyze --json -o a.json "$A"
[ "$(json_get q.json 'sum(isinstance(d["ranks"][0].get(k), dict) for k in ("critical_path", "roofline", "modules"))')" = 3 ] ||
	{ echo "skip: analyze writes none of the sections yet"; exit 77; }
expect_rc 0 report -q -o q.html q.json
expect_rc 0 report -q -o a.html a.json
expect_rc 0 analyze --json -o c.json "$C"
expect_rc 0 report -q -o c.html c.json

NCHECK=$((NCHECK + 1))
python3 - "$E" <<'EOF' || fail "the pages in Chromium (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import cdp
DOM = r"""(function () {
  function q(s) { return Array.prototype.slice.call(document.querySelectorAll(s)); }
  return { state: document.body.getAttribute('data-gp-state'),
    segs: q('svg[data-gp-chart="critical-path"] rect[data-seg]').length,
    step: (document.querySelector('svg[data-gp-chart="critical-path"]') || { getAttribute: function () { return null; } }).getAttribute('data-step'),
    points: q('circle.gp-op').map(function (c) { return Number(c.getAttribute('data-op')); }),
    roofs: q('line[data-roof]').map(function (l) { return [l.getAttribute('data-roof'), Number(l.getAttribute('data-value'))]; }),
    modules: q('[data-gp-module]').length,
    missing: (document.querySelector('[data-gp-missing]') || { getAttribute: function () { return null; } }).getAttribute('data-gp-missing'),
    partial: !!document.querySelector('[data-gp-segments-partial]') };
})()"""
def page(n):
    r = cdp.run(n + ".html", timeout=90, eval_expr=DOM)
    assert r["state"] == "ok" and r["errors"] == [] and r["requests"] == [], (n, r["state"], r["errors"])
    return r["value"], json.load(open(n + ".json"))["ranks"][0]

f, r = page("q")
st = r["critical_path"]["steps"][0]
assert f["step"] == st["step"] and f["segs"] == len([s for s in st["segments"] if s["kind"] in ("cpu", "gpu", "edge")]), (f["segs"], len(st["segments"]))
ops = r["roofline"]["ops"]
want = [i for i, o in enumerate(ops) if (o["achieved_tflops"] or 0) > 0 and (o["arithmetic_intensity"] or 0) > 0]
assert sorted(f["points"]) == want, (f["points"], want)
peaks = r["roofline"]["device"]["peak_tflops"]
for k, v in f["roofs"]:
    if k == "memory":
        assert v == r["roofline"]["device"]["peak_tbps"], (k, v)
    else:
        assert all(peaks[x] == v for x in k.split("/")), (k, v)
def count(t):
    return sum(1 + count(x["children"]) for x in t)
assert f["modules"] == min(2000, count(r["modules"]["tree"])), (f["modules"], count(r["modules"]["tree"]))

f, r = page("a")
assert r["critical_path"]["whole_trace"] and f["step"] == "the whole trace", f["step"]
assert f["segs"] == len(r["critical_path"]["steps"][0]["segments"]), f["segs"]
assert f["missing"] == ", ".join(r["roofline"]["missing"]) and f["points"] == [], f

# a step of more than 4096 segments: the page says the drawing is part of the path
for n in ("q", "a", "c"):
    f, r = page(n)
    st = r["critical_path"]["steps"][0]
    cover = sum(x["end_ns"] - x["start_ns"] for x in st["segments"])
    assert f["partial"] == (st["segments_omitted"] > 0), (n, f["partial"], len(st["segments"]), cover)
print("real pages ok")
EOF
done_ok
