#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0503-report-page-text.sh - what a person reads on the report page of every
# kind of document (a trace, a trace without ProfilerStep, a run without a
# capture, a bench result, a compare result), drawn in headless Chromium: no
# "Open the trace in Perfetto" section where there is no trace; no section,
# card or header row for data that is not there (no "-" in the header, no
# empty table, no step cards without ProfilerStep); no CSS text-transform, so
# "Mean ± σ" keeps its σ and "p95" its p; wide tables scroll in a box whose
# scroll bar is in view, and no cell cuts its text (a long kernel name folds to
# three lines and opens whole on a click), and printed every table fits the
# paper's width; nothing runs past a narrow window; compare's numbers read as
# its text prints them. Skips (77) only where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
need_gen_trace
need_chromium
cd "$TMP" || exit 1

# a trace whose kernel names are long C++ templates, two that differ only at the end
"$GEN" --steps 4 --layers 2 -o gen.json 2>/dev/null || fail "gen_trace"
python3 - <<'EOF' || fail "trace variants"
import json
d = json.load(open("gen.json"))
long = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3>) variant %d")
n = 0
for e in d["traceEvents"]:
    if e.get("cat") == "kernel":
        # 40 and more names: the kernel table is taller than a small window
        e["name"] = long % (n % 2) if n % 3 == 0 else "%s v%d" % (e["name"], n % 5)
        n += 1
json.dump(d, open("long.json", "w"))
# a kernel with a C++ mangled name, as a capture of `gpuprof run` records it
for e in d["traceEvents"]:
    if e.get("cat") == "kernel":
        e["name"] = "_Z7kernelAPf"
        break
json.dump(d, open("mangled.json", "w"))
# the same without ProfilerStep: the whole trace is one step
d["traceEvents"] = [e for e in d["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep")]
json.dump(d, open("nostep.json", "w"))
# a CPU-only trace with one step: no GPU, no step distribution
d = json.load(open("gen.json"))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("cat") in ("cpu_op", "user_annotation")
                    and (not e.get("name", "").startswith("ProfilerStep") or e["name"] == "ProfilerStep#1")]
json.dump(d, open("cpu.json", "w"))
EOF
cp long.json long2.json
"$GPUPROF" bench --json --runs 6 -- sleep 0.001 >bench.json 2>/dev/null || fail "bench"
"$GPUPROF" bench --json --runs 6 -- sleep 0.003 >bench2.json 2>/dev/null || fail "bench 2"
"$GPUPROF" compare --json bench.json bench2.json >cmpb.json
"$GPUPROF" compare bench.json bench2.json >cmpb.txt
"$GPUPROF" bench --json long.json >bt.json 2>/dev/null || fail "bench of a trace's steps"
[ -s cmpb.txt ] || fail "compare of two bench results"
# the same, scaled so the new median needs more digits than the base's (2.814 ms, 10.691 ms):
# the text prints the new value in the base's unit and decimals, and so must the page
python3 - <<'EOF2' || fail "scaled bench results"
import json
def scale(v, f):
    if isinstance(v, dict):
        return {k: (scale(x, f) if not k.endswith("_ns") and k != "times_ns" else
                    [y * f if isinstance(y, (int, float)) else y for y in x] if isinstance(x, list) else
                    x * f if isinstance(x, (int, float)) and not isinstance(x, bool) else scale(x, f))
                for k, x in v.items()}
    if isinstance(v, list):
        return [scale(x, f) for x in v]
    return v
for src, dst, med in (("bench.json", "bs1.json", 2.814e6), ("bench2.json", "bs2.json", 10.691e6)):
    d = json.load(open(src))
    f = med / d["series"][0]["stats"]["median_ns"]
    json.dump(scale(d, f), open(dst, "w"))
EOF2
"$GPUPROF" compare --json bs1.json bs2.json >cmps.json
"$GPUPROF" compare bs1.json bs2.json >cmps.txt
grep -q "2.814 ms *10.691 ms" cmps.txt || fail "the scaled compare's text: $(grep -m1 '^ *time' cmps.txt)"
"$GPUPROF" compare --json gen.json long.json >cmp.json
[ $? -le 3 ] || fail "compare"
for k in long mangled nostep cpu bench bt cmp cmpb cmps; do
	expect_rc 0 report -q -o $k.html $k.json
done
# a trace far down a directory tree: a long Perfetto command
D=traces-of-a-training-run-with-a-long-name/node-17-of-the-job/rank-3-of-8/profiler-output
mkdir -p "$D" && cp long.json "$D/worker-3.pt.trace.json" || fail "deep trace"
expect_rc 0 report -q -o deep.html "$D/worker-3.pt.trace.json"
HAVE_RUN=0
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
if [ -e "$NVML" ]; then
	GPUPROF_NVML_LIBRARY="$NVML" "$GPUPROF" run --quiet --no-report -o nocap --sample-ms 20 \
		-- sleep 0.3 >/dev/null 2>&1 || fail "gpuprof run sleep"
	expect_rc 0 report -q -o nocap.html nocap
	"$GPUPROF" run --quiet --no-report -o empty --sample-ms 0 -- true >/dev/null 2>&1 ||
		fail "gpuprof run true"
	expect_rc 0 report -q -o empty.html empty
	HAVE_RUN=1
fi

NCHECK=$((NCHECK + 1))
python3 - "$E" "$HAVE_RUN" <<'EOF' || fail "the pages in Chromium (above)"
import json, os, re, sys
E, HAVE_RUN = sys.argv[1], sys.argv[2] == "1"
sys.path.insert(0, E)
import cdp, reportpage
DOM = open(os.path.join(E, "report-dom.js")).read()

def page(name, width=1280, height=900, media=None):
    r = cdp.run(name + ".html", width=width, height=height, timeout=60, eval_expr=DOM + "({})",
                media=media)
    f = r["value"]
    assert r["state"] == "ok" and r["errors"] == [], (name, r["state"], r["errors"])
    common(name, f)
    return f, reportpage.page_data(open(name + ".html", encoding="utf-8").read())

def common(name, f):
    lay = f["layout"]
    # CSS changes no text: capitals would make sigma a Sigma, p95 P95, runs/s RUNS/S
    assert lay["transformed"] == [], (name, lay["transformed"][:5])
    # nothing unknown in the header
    assert all(v.strip() not in ("-", "") for v in f["env"].values()), (name, f["env"])
    # no empty table: a line says there is nothing
    assert lay["emptyTables"] == [], (name, lay["emptyTables"])
    # a table wider than its box scrolls in it, and the box fits the window (its scroll bar
    # is in view); no cell cuts its text
    for t in lay["tableBoxes"]:
        if t["tableWidth"] > t["boxWidth"]:
            assert t["overflowX"] in ("auto", "scroll"), (name, t)
            assert t["boxHeight"] <= lay["viewportHeight"], (name, t, lay["viewportHeight"])
    assert lay["cutCells"] == [], (name, lay["cutCells"][:3])
    # a name folded to three lines opens whole on a click
    assert all(x["opens"] and x["folds"] for x in lay["folded"]), (name, [x for x in lay["folded"] if not (x["opens"] and x["folds"])][:3])
    # one unit per value: an evidence key's unit suffix is not read before its formatted value
    # ("copy ns 11.49 ms"), byte counts read in bytes; a chart's zero has no unit ("0 ns" beside ms)
    for e in f["evidence"]:
        assert not re.search(r"\b(ns|pct|gbps)\s*$", e["label"]), (name, e)
        if re.search(r"(^|_)bytes$", e["key"]):
            assert re.search(r"\d (B|KiB|MiB|GiB|TiB)$", e["value"]), (name, e)
    assert "0 ns" not in f["axisTexts"], (name, [t for t in f["axisTexts"] if t.endswith(" ns")])
    # the navigation's links show each section's heading, not hide it under the navigation
    if not lay["print"]:
        assert lay["headingsUnderNav"] == [], (name, lay["headingsUnderNav"])
    # no section for data that is not there ("Nothing to flag" is a finding's answer)
    assert all(v == "1" or s == "gp-findings" for s, v in f["sections"].items()), (name, f["sections"])

# --- a trace: Perfetto opens it; long names whole; the wide tables scroll
for width, height in ((1280, 900), (700, 400), (420, 800)):
    f, p = page("long", width, height)
    assert f["layout"]["pastRight"] == [], (width, f["layout"]["pastRight"][:5])
    assert "gp-perfetto" in f["sections"] and f["perfetto"]["files"] == "long.json", (width, f["perfetto"])
    assert "gp-metrics" not in f["sections"], ("no metrics in a trace", f["sections"])
    names = f["tables"]["kernels"]["names"]
    assert any(n.endswith("variant 0") for n in names) and any(n.endswith("variant 1") for n in names), names
    if width == 700:
        wide = [t for t in f["layout"]["tableBoxes"] if t["tableWidth"] > t["boxWidth"]]
        assert any(t["name"] == "kernels" and t["boxScrollsX"] for t in wide), f["layout"]["tableBoxes"]
        # the long names are folded to three lines there, and open on a click (checked above)
        assert any(x["table"] == "kernels" for x in f["layout"]["folded"]), f["layout"]["folded"]
        # the kernel table is taller than the window: its box, not the page, holds it
        assert f["tables"]["kernels"]["rows"] * 20 > height, f["tables"]["kernels"]["rows"]
    assert any(re.search(r"_(ns|pct)$", e["key"]) for e in f["evidence"]), f["evidence"]
    r = p["doc"]["ranks"][0]
    assert f["cards"]["step_p50"]["sub"].startswith("%d complete steps" % r["step_stats"]["count"]), f["cards"]["step_p50"]

# --- a mangled C++ name reads demangled, as nsys shows it; the document keeps it mangled
f, p = page("mangled")
names = f["tables"]["kernels"]["names"]
assert "kernelA(float*)" in names and "_Z7kernelAPf" not in names, names
assert p["names"] == {"_Z7kernelAPf": "kernelA(float*)"}, p["names"]
assert any(k["name"] == "_Z7kernelAPf" for k in p["doc"]["ranks"][0]["kernels"])

# --- a trace without ProfilerStep: no step cards, no step histogram
f, p = page("nostep")
r = p["doc"]["ranks"][0]
assert r["overview"]["steps"] == 0, r["overview"]["steps"]
c = f["cards"]
assert "step_p50" not in c and "step_p95" not in c and "throughput" not in c, list(c)
assert abs(float(c["trace_time"]["value"]) - r["steps"][0]["dur_ns"]) < 1e-6, c["trace_time"]
assert "gp-histogram" not in f["sections"] and "steps" not in f["tables"], (f["sections"], list(f["tables"]))

# --- a CPU-only trace: nothing of a GPU, no distribution of one step
f, p = page("cpu")
r = p["doc"]["ranks"][0]
assert not r["overview"]["has_gpu"] and len(r["steps"]) == 1, (r["overview"]["has_gpu"], r["steps"])
assert "gp-timeline" not in f["sections"] and "gp-histogram" not in f["sections"], f["sections"]
assert "gpu_busy" not in f["cards"] and f["cards"]["step_p50"]["sub"].startswith("1 complete step,"), f["cards"]

# --- a bench result: no trace, no Perfetto; sigma stays lowercase; no cards for what was not measured
f, p = page("bench")
assert "gp-perfetto" not in f["sections"] and "#gp-perfetto" not in f["nav"], (f["sections"], f["nav"])
lab = f["layout"]["labels"]
assert lab["mean"] == "Mean \u00b1 \u03c3" and lab["p95"] == "p95", lab
s = p["doc"]["series"][0]
assert ("gpu_share" in f["cards"]) == (s.get("gpu_share") is not None), f["cards"]
assert ("peak_memory" in f["cards"]) == ((s.get("memory_stats") or {}).get("max_bytes") is not None), f["cards"]
assert "host" in f["env"] and "gpus" not in f["env"] and "cuda_version" not in f["env"], f["env"]
# the date as a person reads it, not RFC 3339 with nanoseconds (which wrapped in the header)
assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", f["env"]["date"]), f["env"]["date"]

# --- a bench of a trace's steps: a card's value and its unit stay in the card ("steps/s");
# no warm-up, none said
for width in (1280, 1000):
    f, p = page("bt", width)
    assert f["cards"]["throughput"]["text"].endswith(" steps/s"), f["cards"]["throughput"]
    assert f["cards"]["median"]["sub"] == "%d iterations" % p["doc"]["series"][0]["n"], f["cards"]["median"]
    # a profile_memory trace: the peak card, with the mean of the memory at the end
    st = p["doc"]["series"][0]["memory_stats"]
    assert float(f["cards"]["peak_memory"]["value"]) == st["max_bytes"], f["cards"]["peak_memory"]
    assert f["cards"]["peak_memory"]["sub"].startswith("largest per-iteration peak; ") and \
        f["cards"]["peak_memory"]["sub"].endswith(" at the end (mean)"), f["cards"]["peak_memory"]

# --- a compare result: no Perfetto; the kernel diff scrolls with whole names
f, p = page("cmp")
assert "gp-perfetto" not in f["sections"], f["sections"]
assert any(n.endswith("variant 1") for n in f["tables"]["diff-kernels"]["names"]), f["tables"]["diff-kernels"]

# --- two bench results compared: the page's numbers read as compare's text prints them
# (a rate with four significant digits, the ratio and its interval with three decimals)
for name in ("cmpb", "cmps"):
  f, p = page(name)
  text = open(name + ".txt", encoding="utf-8").read()
  rows = f["compareRows"]
  assert rows and {r["metric"] for r in rows} >= {"time", "throughput"}, rows
  for r in rows:
      line = [l for l in text.splitlines() if l.strip().startswith(r["title"] + " ")]
      assert line, (r["title"], text)
      for col in ("base", "new"):
          assert r[col] in line[0], (col, r, line[0])
      # the ratio and its interval with three decimals, as the text (the JSON holds them to six
      # significant digits, so the last digit may round the other way)
      m = re.search(r"%\s+(\d+\.\d{3})(?: \[(\d+\.\d{3}), (\d+\.\d{3})\])?", line[0])
      assert m, line[0]
      shown = [r["ratio"]] + ([] if r["ci"] == "-" else r["ci"].strip("[]").split(", "))
      want = [x for x in m.groups() if x]
      assert len(shown) == len(want) and all(re.fullmatch(r"\d+\.\d{3}", x) for x in shown), (r, want)
      assert all(abs(float(a) - float(b)) <= 0.0011 for a, b in zip(shown, want)), (r, want)

# --- a run without a capture: its metrics, nothing of a trace
if HAVE_RUN:
    f, p = page("nocap", 420)
    # a narrow window (a phone): the metric charts fit it
    assert f["layout"]["pastRight"] == [], f["layout"]["pastRight"][:5]
    f, p = page("nocap")
    assert p["perfetto"] is None, p["perfetto"]
    assert list(f["sections"]) == ["gp-summary", "gp-metrics"], f["sections"]
    assert f["env"]["no_gpu_timeline"], f["env"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", f["env"]["date"]), f["env"]["date"]
    assert "gpu_util" in f["cards"] and "step_p50" not in f["cards"], f["cards"]
    # a run with neither a capture nor metrics: the summary says so, and nothing else is drawn
    f, p = page("empty")
    assert list(f["sections"]) == ["gp-summary"] and not f["cards"], (f["sections"], f["cards"])
    assert f["notes"] == ["Nothing was captured or sampled: no trace, no capture, no metrics (gpuprof run samples them unless --sample-ms 0)."], f["notes"]
# --- printed (about the width of A4 or Letter): paper does not scroll, every table fits
for name in ("long", "deep", "cmp", "bench"):
    f, p = page(name, 740, 900, "print")
    lay = f["layout"]
    assert lay["print"], name
    for t in lay["tableBoxes"]:
        assert t["right"] <= lay["pageWidth"], (name, "cut in print", t, lay["pageWidth"])
    # nothing else wider than its box either (the Perfetto command wraps)
    assert lay["overflowing"] == [] and lay["pastRight"] == [], (name, lay["overflowing"], lay["pastRight"])
print("pages ok")
EOF
done_ok
