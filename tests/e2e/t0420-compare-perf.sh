#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0420-compare-perf.sh - `gpuprof compare` of two analyze reports with the sections of
# issue 23 (critical_path, modules, roofline; perfsections.py writes them with known
# values): the JSON's critical_path gives each side's shares and the change per category
# (new - base, in points) and says the bound moved; modules and roofline rows are matched
# by class name and by op name + input_dims, with the GPU time per instance / call, the
# achieved TFLOP/s and the status past the "modules" / "ops" threshold (--threshold-for
# moves it); added and removed rows are counted; the explanations name the bound shift, the
# class and the op that got slower; none of it is a regression (exit 0); the text and the
# Markdown show the three parts; a section on one side only is a warning; a rank without the
# sections compares as before. On the real before/after pair of ../shared/traces/hta
# (trace_diff control and test), once analyze writes the sections: the same invariants.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
need_gen_trace
cd "$TMP" || exit 1

"$GEN" --steps 5 -o gen.json 2>/dev/null || fail "gen_trace"
expect_rc 0 analyze --json -o an.json gen.json
P="python3 $E/perfsections.py"
# the report without the three sections (as analyze wrote it before issue 23)
$P an.json plain.json --strip || fail "plain report"
$P plain.json base.json || fail "perfsections base"
$P plain.json new.json --variant new || fail "perfsections new"

expect_rc 0 compare --json -o cmp.json base.json new.json
expect_rc 0 compare --top 0 base.json new.json
cp "$OUT" cmp.txt
expect_rc 0 compare --markdown --top 0 base.json new.json
cp "$OUT" cmp.md
expect_rc 0 compare --json --threshold-for modules=40 --threshold-for ops=60 -o cmp40.json \
	base.json new.json
expect_rc 0 compare --json -o same.json base.json base.json

NCHECK=$((NCHECK + 1))
python3 - "$E" <<'EOF' || fail "the compare result (above)"
import json, sys
b, n = json.load(open("base.json"))["ranks"][0], json.load(open("new.json"))["ranks"][0]
c = json.load(open("cmp.json"))
assert c["regression"] is False and not c["regressions"], c["regressions"]
g = c["groups"][0]
cats = b["critical_path"]["categories"]

# --- critical path: each side's total shares, their change in points, the bound
cp = g["critical_path"]
for side, r in (("base", b), ("new", n)):
    t = r["critical_path"]["total"]
    steps = r["critical_path"]["steps"]
    s = cp[side]
    assert s["path_ns"] == t["path_ns"] and s["steps"] == len(steps), s
    assert abs(s["mean_path_ns"] - t["path_ns"] / len(steps)) < 1e-3, s
    for k in cats:
        assert abs(s["bound_by_pct"][k] - t["bound_by_pct"][k]) < 1e-5, (k, s)
    assert s["bound"] == max(cats, key=lambda k: t["bound_by_pct"][k]), s["bound"]
assert [x["category"] for x in cp["bounds"]] == cats
for x in cp["bounds"]:
    k = x["category"]
    want = n["critical_path"]["total"]["bound_by_pct"][k] - b["critical_path"]["total"]["bound_by_pct"][k]
    assert abs(x["delta_pp"] - want) < 1e-5, x
assert cp["bound_changed"] is (cp["base"]["bound"] != cp["new"]["bound"]) and cp["bound_changed"], cp
# the steps as samples: medians per step, and a p that only a real shift makes small
import statistics
for x in cp["bounds"]:
    k = x["category"]
    for side, r in (("base", b), ("new", n)):
        med = statistics.median(st["bound_by_pct"][k] for st in r["critical_path"]["steps"])
        assert abs(x[side + "_step_median_pct"] - med) < 1e-5, (side, x)
    moved = abs(x["base_step_median_pct"] - x["new_step_median_pct"]) > 1
    assert (x["p"] < 0.05) if moved else (x["p"] > 0.5), x
for side, r in (("base", b), ("new", n)):
    med = statistics.median(st["path_ns"] for st in r["critical_path"]["steps"])
    assert cp[side + "_step_median_path_ns"] == med, (side, cp)
assert cp["path_p"] > 0.5, cp["path_p"]  # the same steps: no change of the path

# --- modules: matched by class, mean per instance, status at the 5 % default
def rows(tbl, key):
    return {key(r): r for r in tbl}
mb = rows(b["modules"]["classes"], lambda r: r["name"])
mn = rows(n["modules"]["classes"], lambda r: r["name"])
md = g["modules"]
assert md["threshold_pct"] == 5 and md["base_classes"] == len(mb) and md["new_classes"] == len(mn), md
def status(x, y, thr):
    if x is None: return "added"
    if y is None: return "removed"
    d = 100 * (y / x - 1)
    return "slower" if d >= thr else "faster" if d <= -thr else "same"
names = set(mb) | set(mn)
assert sorted(r["name"] for r in md["rows"]) == sorted(names)
for r in md["rows"]:
    x, y = mb.get(r["name"]), mn.get(r["name"])
    px = x["gpu_time_ns"] / x["count"] if x else None
    py = y["gpu_time_ns"] / y["count"] if y else None
    assert r["status"] == status(px, py, 5), r
    assert r["base_mean_gpu_ns"] == px and r["new_mean_gpu_ns"] == py, r
    assert r["delta_gpu_time_ns"] == (y["gpu_time_ns"] if y else 0) - (x["gpu_time_ns"] if x else 0), r
d = [abs(r["delta_gpu_time_ns"]) for r in md["rows"]]
assert d == sorted(d, reverse=True), d
assert md["added"]["classes"] == len(set(mn) - set(mb)) and md["removed"]["classes"] == len(set(mb) - set(mn)), md
assert md["slower"] == sum(r["status"] == "slower" for r in md["rows"]) >= 1, md

# --- ops: matched by name and input_dims; per call time and TFLOP/s
ob = rows(b["roofline"]["ops"], lambda r: (r["name"], r["input_dims"]))
on = rows(n["roofline"]["ops"], lambda r: (r["name"], r["input_dims"]))
od = g["roofline"]
assert od["base_device"] == b["roofline"]["device"]["matched"], od
assert sorted((r["name"], r["input_dims"]) for r in od["rows"]) == sorted(set(ob) | set(on))
for r in od["rows"]:
    x, y = ob.get((r["name"], r["input_dims"])), on.get((r["name"], r["input_dims"]))
    px = x["gpu_time_ns"] / x["count"] if x else None
    py = y["gpu_time_ns"] / y["count"] if y else None
    assert r["status"] == status(px, py, 5), r
    for side, o in (("base", x), ("new", y)):
        v = r[side + "_achieved_tflops"]
        assert (v is None) if o is None else abs(v - o["achieved_tflops"]) < 1e-5, (side, r)
        v = r[side + "_roofline_pct"]
        assert (v is None) if o is None else abs(v - o["roofline_pct"]) < 1e-5, (side, r)
    if x and y:
        assert abs(r["delta_tflops_pct"] - 100 * (y["achieved_tflops"] / x["achieved_tflops"] - 1)) < 1e-3, r

# --- why: the bound shift, the class and the op that got slower most
ex = {e["id"]: e for e in g["explanations"]}
assert {"critical_path_bound", "module_time", "op_time"} <= set(ex), list(ex)
slow_mod = [r for r in md["rows"] if r["status"] in ("slower", "faster")][0]
assert ex["module_time"]["evidence"]["name"] == slow_mod["name"] and slow_mod["name"] in ex["module_time"]["text"], ex["module_time"]
slow_op = [r for r in od["rows"] if r["status"] in ("slower", "faster")][0]
assert ex["op_time"]["evidence"]["name"] == slow_op["name"] and slow_op["input_dims"] in ex["op_time"]["text"], ex["op_time"]
assert ex["critical_path_bound"]["evidence"]["new_bound"] == cp["new"]["bound"], ex["critical_path_bound"]

# --- thresholds move the statuses; no explanation without a change past them
c40 = json.load(open("cmp40.json"))["groups"][0]
assert all(r["status"] != "slower" for r in c40["modules"]["rows"]), c40["modules"]["rows"]
assert c40["modules"]["threshold_pct"] == 40 and c40["roofline"]["threshold_pct"] == 60
assert not {"module_time", "op_time"} & {e["id"] for e in c40["explanations"]}, c40["explanations"]
s = json.load(open("same.json"))["groups"][0]
assert all(r["status"] == "same" for r in s["modules"]["rows"] + s["roofline"]["rows"])
assert all(x["delta_pp"] == 0 for x in s["critical_path"]["bounds"]) and not s["critical_path"]["bound_changed"]
assert not {"critical_path_bound", "module_time", "op_time"} & {e["id"] for e in s["explanations"]}
EOF

# --- text and Markdown: the three parts, their numbers as the JSON has them
for f in cmp.txt cmp.md; do
	tr '\n' ' ' <$f | grep -q "critical path: .* steps; p .* over the steps); *bound by gpu_compute_bound -> *cpu_bound" ||
		fail "$f: no critical path line"
	grep -q "cpu_bound .* 12.5% .* 50.0% .* +37.5 pp .* 0.0" $f || fail "$f: no bound row"
	grep -q "modules: 4 classes in base, 4 in new; 1 added" $f || fail "$f: no modules line"
	grep -q "slower .*4 -> 4 .*1.500 ms .*1.950 ms .*+30.0% .*Block" $f || fail "$f: no Block row"
	grep -q "ops (roofline): 5 ops in base, 5 in new" $f || fail "$f: no ops line"
	grep -q "13.42 -> 8.948 .*aten::mm \[\[64, 1024\], \[1024, 4096\]\]" $f || fail "$f: no mm row"
done
grep -q "<details><summary>modules:" cmp.md || fail "markdown: modules not folded"
grep -q "| \`Block\` |" cmp.md || fail "markdown: class name not a code span"

# --- a section on one side only: a warning; no section: compare as before
expect_rc 0 compare --json base.json plain.json
cp "$OUT" one.json
NCHECK=$((NCHECK + 1))
python3 - <<'EOF' || fail "one side"
import json
c = json.load(open("one.json"))
w = [x for x in c["warnings"] if x["id"] == "section_missing"]
assert len(w) == 3 and all("only the base report" in x["text"] for x in w), c["warnings"]
g = c["groups"][0]
assert "critical_path" not in g and "modules" not in g and "roofline" not in g, list(g)
EOF
expect_rc 0 compare --json plain.json plain.json
cp "$OUT" none.json
[ "$(json_get none.json '[k for k in ("critical_path", "modules", "roofline") if k in d["groups"][0]] + [w for w in d["warnings"] if w["id"] == "section_missing"]')" = "[]" ] ||
	fail "sections out of nothing"

# --- the real before/after pair, once analyze writes the sections
T="$GP_SRC_DIR/../shared/traces/hta"
if [ -e "$T/trace_diff_control_control.json.gz" ] && [ -e "$T/trace_diff_test_test.json.gz" ]; then
	run compare --json "$T/trace_diff_control_control.json.gz" "$T/trace_diff_test_test.json.gz"
	[ "$RC" -le 3 ] || fail "compare of trace_diff"
	cp "$OUT" real.json
	"$GPUPROF" analyze --json -o rb.json "$T/trace_diff_control_control.json.gz" || fail "analyze control"
	"$GPUPROF" analyze --json -o rn.json "$T/trace_diff_test_test.json.gz" || fail "analyze test"
	NCHECK=$((NCHECK + 1))
	python3 - <<'EOF' || fail "the real pair (above)"
import json
c = json.load(open("real.json"))
b, n = json.load(open("rb.json"))["ranks"][0], json.load(open("rn.json"))["ranks"][0]
g = c["groups"][0]
cb, cn = b.get("critical_path"), n.get("critical_path")
if cb and cn and cb.get("available") and cn.get("available"):
    for x in g["critical_path"]["bounds"]:
        k = x["category"]
        want = cn["total"]["bound_by_pct"][k] - cb["total"]["bound_by_pct"][k]
        assert abs(x["delta_pp"] - want) < 1e-5, x
    print("real pair: critical path", g["critical_path"]["base"]["bound"], "->", g["critical_path"]["new"]["bound"])
for key, sec, tbl in (("modules", "modules", "classes"), ("roofline", "roofline", "ops")):
    if isinstance(b.get(sec), dict) and isinstance(n.get(sec), dict):
        rows = g[key]["rows"]
        kb = {(r["name"], r.get("input_dims")) for r in b[sec][tbl]}
        kn = {(r["name"], r.get("input_dims")) for r in n[sec][tbl]}
        assert {(r["name"], r.get("input_dims")) for r in rows} == kb | kn, key
        print("real pair:", key, len(rows), "rows")
EOF
fi
# --- a real pair with modules: one model on an H100 and an MI300X (TraceLens)
Q="$GP_SRC_DIR/../shared/traces/tracelens"
if [ -e "$Q/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" ] && [ -e "$Q/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" ]; then
	"$GPUPROF" analyze --json -o qb.json "$Q/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" || fail "analyze h100"
	"$GPUPROF" analyze --json -o qn.json "$Q/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" || fail "analyze mi300"
	run compare --json qb.json qn.json
	[ "$RC" -le 3 ] || fail "compare of the Qwen pair"
	cp "$OUT" q.json
	NCHECK=$((NCHECK + 1))
	python3 - <<'EOF2' || fail "the Qwen pair (above)"
import json
c = json.load(open("q.json"))
b, n = json.load(open("qb.json"))["ranks"][0], json.load(open("qn.json"))["ranks"][0]
g = c["groups"][0]
if isinstance(b.get("modules"), dict) and isinstance(n.get("modules"), dict):
    mb = {x["name"]: x for x in b["modules"]["classes"]}
    mn = {x["name"]: x for x in n["modules"]["classes"]}
    rows = g["modules"]["rows"]
    assert sorted(r["name"] for r in rows) == sorted(set(mb) | set(mn)), rows
    for r in rows:
        if r["name"] in mb and r["name"] in mn:
            x, y = mb[r["name"]], mn[r["name"]]
            d = 100 * ((y["gpu_time_ns"] / y["count"]) / (x["gpu_time_ns"] / x["count"]) - 1)
            assert abs(r["delta_mean_pct"] - d) < 1e-3, (r, d)
            assert r["status"] == ("slower" if d >= 5 else "faster" if d <= -5 else "same"), r
    print("Qwen pair:", len(rows), "module classes,", sum(r["status"] != "same" for r in rows), "changed")
EOF2
fi
done_ok
