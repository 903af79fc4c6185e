#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0501-report-browser.sh - report pages opened in headless Chromium (Debian
# `chromium`, through cdp.py and the DevTools protocol): each page draws
# ("ok"), prints no console error, makes no request and opens no dialog; every
# section is there; the cards, tables, charts and legends carry the numbers of
# the JSON the page was made from; a person can sort, filter and show all rows
# of a table and switch ranks; hostile names stay text. Pages: a synthetic
# trace (with > 50 kernels), two ranks, a bench result, a compare result, a
# `gpuprof run` directory with metrics (the CUDA simulator and the fake NVML;
# left out where the CUDA toolkit was absent) and a trace with hostile names.
# Screenshots (and a PDF print) are kept in $GP_BUILD_DIR/test-artifacts.
# Skips (77) only where Chromium cannot start; .ci/run installs it.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
need_gen_trace
need_chromium
cd "$TMP" || exit 1

# --- inputs: a trace with many kernel names, two ranks, bench, compare
"$GEN" --steps 6 -o gen.json 2>/dev/null || fail "gen_trace"
python3 - <<'EOF' || fail "trace variants"
import json
d = json.load(open("gen.json"))
n = 0
for e in d["traceEvents"]:
    if e.get("cat") == "kernel":
        e["name"] = "%s v%d" % (e["name"], n % 7)  # 15 kernels x 7: over 50 rows
        n += 1
json.dump(d, open("ex.json", "w"))
import os
os.makedirs("ranks", exist_ok=True)
json.dump(d, open("ranks/rank-0.json", "w"))
d["distributedInfo"]["rank"] = 1
for e in d["traceEvents"]:
    if e.get("cat") == "kernel" and e.get("dur"):
        e["dur"] = e["dur"] * 2  # rank 1: slower kernels
json.dump(d, open("ranks/rank-1.json", "w"))
EOF
"$GPUPROF" analyze --json ex.json >ex.analyze.json || fail "analyze ex"
"$GPUPROF" analyze --json ranks >ranks.analyze.json || fail "analyze ranks"
"$GPUPROF" bench --json --runs 12 -- sleep 0.002 >bench.json 2>/dev/null || fail "bench"
"$GPUPROF" compare --json ranks/rank-0.json ranks/rank-1.json >cmp.json
[ $? -le 3 ] || fail "compare"
for k in ex ranks bench cmp; do
	in=$k.json
	[ $k = ranks ] && in=ranks
	expect_rc 0 report -q -o $k.html "$in"
done

# --- a gpuprof run directory with metrics (kernels of the simulator, fake NVML GPUs)
INJ="$B/libgpuprof-inject.so" FAKE="$B/tests/fake/libfake-cupti.so" SIM="$B/tests/inject/driver_sim"
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
HAVE_RUN=0
if [ -e "$INJ" ] && [ -e "$FAKE" ] && [ -e "$SIM" ] && [ -e "$NVML" ]; then
	cat >cmd.sh <<EOF
"$SIM" "$INJ" "$FAKE" 40 exit 2>/dev/null
sleep 0.5 # the host CPU share needs two reads of /proc/stat, 250 ms apart
EOF
	GPUPROF_INJECT_LIBRARY="$INJ" GPUPROF_NVML_LIBRARY="$NVML" \
		"$GPUPROF" run --quiet --no-report -o run1 --sample-ms 10 -- sh cmd.sh >/dev/null 2>&1
	"$GPUPROF" analyze --json run1 >run.analyze.json || fail "analyze run1"
	expect_rc 0 report -q -o run.html run1
	# a run whose tracer found no CUPTI: the page says so, first
	GPUPROF_INJECT_LIBRARY="$INJ" GPUPROF_NVML_LIBRARY="$NVML" "$GPUPROF" run --quiet \
		--no-report -o run2 --sample-ms 0 -- "$SIM" "$INJ" /nonexistent/libcupti.so 1 exit \
		>/dev/null 2>&1
	expect_rc 0 report -q -o nocupti.html run2
	HAVE_RUN=1
fi
python3 "$E/reportpage.py" hostile-trace evil.json || fail "hostile trace"
expect_rc 0 report -q -o evil.html evil.json
# sparse and odd documents (the fuzz corpus; what report refuses is left out): the page
# still draws, without an error
nsparse=0
for f in "$GP_SRC_DIR"/tests/fuzz/corpus/report/*.json; do
	n=$(basename "$f" .json)
	"$GPUPROF" report -q -o "sparse-$n.html" "$f" 2>/dev/null && nsparse=$((nsparse + 1))
done
[ "$nsparse" -ge 8 ] || fail "only $nsparse documents of the fuzz corpus make a page"

NCHECK=$((NCHECK + 1))
python3 - "$E" "$ART" "$HAVE_RUN" <<'EOF' || fail "the pages in Chromium (above)"
import json, math, os, sys
E, ART, HAVE_RUN = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
sys.path.insert(0, E)
import cdp, reportpage
DOM = open(os.path.join(E, "report-dom.js")).read()

def fmt_ns(ns):
    # the one duration policy of the terminal (src/lib/text/num.c): four significant
    # digits, the unit chosen after rounding
    v = float(round(ns))
    a = abs(v)
    if a < 1e3: return "%.0f ns" % v
    units = [(1e3, "\u00b5s"), (1e6, "ms"), (1e9, "s")]
    i = 0
    while i < 2 and a >= units[i + 1][0]: i += 1
    x = v / units[i][0]
    a = abs(x)
    if a < 9.9995: return "%.3f %s" % (x, units[i][1])
    if a < 99.995: return "%.2f %s" % (x, units[i][1])
    if a < 999.95 or i == 2: return "%.1f %s" % (x, units[i][1])
    return "%.3f %s" % (x / 1e3, units[i + 1][1])

def close(a, b):
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)

def page(name, args=None, pdf=False):
    r = cdp.run(name + ".html", width=1280, height=900, timeout=60,
                eval_expr=DOM + "(" + json.dumps(args or {}) + ")",
                screenshot=os.path.join(ART, "t0501-%s.png" % name), full_page=True,
                max_height=9000, pdf=os.path.join(ART, "t0501-%s.pdf" % name) if pdf else None)
    f = r["value"]
    assert r["waited_ok"] and r["state"] == "ok", (name, r["state"], f and f["error"])
    assert r["errors"] == [], (name, r["errors"])
    assert r["requests"] == [], (name, "requests", r["requests"])
    assert r["dialogs"] == [], (name, "dialogs", r["dialogs"])
    assert f["scripts"] == 2 and f["imgs"] == 0 and f["iframes"] == 0 and f["svgsOnload"] == 0, f
    if pdf:
        assert r["pdf_bytes"] and r["pdf_bytes"] > 10000, r["pdf_bytes"]
    return f, reportpage.page_data(open(name + ".html", encoding="utf-8").read())

ANALYZE = ["gp-summary", "gp-findings", "gp-steps", "gp-timeline", "gp-critpath", "gp-roofline",
           "gp-modules", "gp-memory", "gp-metrics", "gp-tables", "gp-histogram", "gp-perfetto"]

def check_rank_page(f, r, metrics_has):
    # sections for absent data are left out: metrics (a trace), the step histogram (no
    # ProfilerStep)
    whole = r["overview"]["steps"] == 0
    steps = r["steps"]
    complete = [s for s in steps if not s["incomplete"]]
    shown = {"gp-metrics": metrics_has, "gp-steps": bool(steps), "gp-timeline": r["timeline"] is not None,
             "gp-histogram": not whole and len(complete) >= 2}
    # issue 23's sections and the memory view where the report has them (t0510, t0702 check them)
    for sec, key in (("gp-critpath", "critical_path"), ("gp-roofline", "roofline"), ("gp-modules", "modules"),
                     ("gp-memory", "memory")):
        shown[sec] = isinstance(r.get(key), dict)
    cp = r.get("critical_path")
    shown["gp-critpath"] = isinstance(cp, dict) and cp.get("available") is True and bool(cp.get("steps"))
    want = [s for s in ANALYZE if shown.get(s, True)]
    assert list(f["sections"]) == want, list(f["sections"])
    for s in want:
        empty = s == "gp-findings" and not f["findings"]
        assert f["sections"][s] == ("0" if empty else "1"), (s, f["sections"])
    assert f["nav"][:len(want)] == ["#" + s for s in want], f["nav"]
    st, c = r["step_stats"], f["cards"]
    if whole:
        # no ProfilerStep: the time the trace covers, no step time or steps per second
        assert "step_p50" not in c and "throughput" not in c, c
        assert close(c["trace_time"]["value"], steps[0]["dur_ns"]), c["trace_time"]
    elif not complete:
        assert c["step_p50"]["value"] == "null" and c["step_p50"]["text"] == "-", c["step_p50"]
        assert c["throughput"]["value"] == "null", c["throughput"]
    else:
        check_step_cards(c, st)
    check_rest(f, r)

def check_step_cards(c, st):
    assert close(c["step_p50"]["value"], st["median_ns"]) and c["step_p50"]["text"] == fmt_ns(st["median_ns"]), c["step_p50"]
    assert close(c["step_p95"]["value"], st["p95_ns"]) and c["step_p95"]["text"] == fmt_ns(st["p95_ns"]), c["step_p95"]
    assert close(c["throughput"]["value"], 1e9 / st["mean_ns"]), c["throughput"]

def check_rest(f, r):
    c = f["cards"]
    steps = r["steps"]
    complete = [s for s in steps if not s["incomplete"]]
    st = r["step_stats"]
    g = r["gpu"]
    assert close(c["gpu_busy"]["value"], 100 * g["busy_ns"] / g["window_ns"]), c["gpu_busy"]
    assert c["gpu_busy"]["text"] == "%.1f%%" % (100 * g["busy_ns"] / g["window_ns"]), c["gpu_busy"]
    peaks = [d["peak_allocated_bytes"] for d in (r["memory"] or {}).get("devices", []) if d["peak_allocated_bytes"] is not None]
    if peaks:
        assert close(c["peak_memory"]["value"], max(peaks)), c["peak_memory"]
    assert c["findings"]["value"] == str(len(r["findings"]))
    # the capture's warnings first (why data is missing), then the findings
    capw = ((r["overview"].get("capture") or {}).get("warning_messages")) or []
    assert [x["id"] for x in f["findings"]] == ["capture-warning"] * len(capw) + [x["id"] for x in r["findings"]], f["findings"]
    # tables: every row is in the page, the top 50 drawn, sorted as the JSON
    for t in ("kernels", "cpu_ops", "api_calls", "memory_ops"):
        rows = r[t]
        if not rows:
            # no empty table: a line says there is none
            assert t not in f["tables"], (t, f["tables"][t])
            continue
        ft = f["tables"][t]
        assert ft["rows"] == min(50, len(rows)), (t, ft["rows"], len(rows))
        assert ft["count"] == "%d of %d" % (min(50, len(rows)), len(rows)), (t, ft["count"])
        if rows:
            key = "self_ns" if t == "cpu_ops" else "total_ns"
            assert ft["first"]["name"]["value"] == rows[0]["name"], (t, ft["first"]["name"])
            assert close(ft["first"][key]["value"], rows[0][key]), (t, ft["first"][key])
            assert ft["first"][key]["text"] == fmt_ns(rows[0][key]), (t, ft["first"][key])
    # the step chart: a bar per step, its parts summing to the step's time
    assert [b["step"] for b in f["stepBars"]] == [s["name"] if s["number"] is None else str(s["number"]) for s in steps], f["stepBars"]
    for b, s in zip(f["stepBars"], steps):
        assert math.isclose(b["sum"], s["dur_ns"], rel_tol=1e-9), (b, s["dur_ns"])
    # the histogram counts every complete step
    if len(complete) >= 2:
        assert f["histCounts"] == [len(complete)], f["histCounts"]
        assert f["histQuantiles"] == ["p50", "p95"], f["histQuantiles"]
        for k, v in st["breakdown_pct"].items():
            assert close(f["legend"][k[:-4]], v), (k, f["legend"])
    # the timeline: a row per device and stream, their totals
    tl = r["timeline"]
    want = []
    for d in tl["devices"]:
        want.append(("gpu%d" % d["device"], d["total_busy_ns"]))
        want += [("%d:%d" % (s["device"], s["stream"]), s["total_busy_ns"]) for s in tl["streams"] if s["device"] == d["device"]]
    assert [(x["key"], x["total"]) for x in f["timelineRows"]] == want, f["timelineRows"]
    assert f["timelineMarks"] == len([s for s in steps if tl["start_ns"] <= s["start_ns"] <= tl["end_ns"]])

# --- a trace
f, p = page("ex", {"table": "kernels", "col": "count", "filter": "GEMM"}, pdf=True)
a = json.load(open("ex.analyze.json"))
assert p["doc"] == a
r = a["ranks"][0]
check_rank_page(f, r, False)
assert f["title"] == "ex.json" and f["doctitle"] == "gpuprof report: ex.json"
assert f["env"]["gpus"].startswith("0: " + r["overview"]["devices"][0]["name"]), f["env"]["gpus"]
assert f["perfetto"]["command"] == p["perfetto"]["command"] and f["perfetto"]["files"] == "ex.json", f["perfetto"]
it = f["interaction"]
counts = [k["count"] for k in r["kernels"]]
assert it["firstSort"] == "descending" and it["first"] == sorted(counts, reverse=True)[:50], it
assert it["secondSort"] == "ascending" and it["second"] == sorted(counts)[:50], it
names = [k["name"] for k in r["kernels"] if "gemm" in k["name"].lower()]
assert names and sorted(it["filtered"]) == sorted(names)[:50], it["filtered"]
assert it["filteredCount"].startswith("%d of %d" % (min(50, len(names)), len(names))), it["filteredCount"]
assert len(r["kernels"]) > 50 and not it["moreHidden"] and it["before"] == 50, it
assert it["after"] == len(r["kernels"]) and it["afterCount"] == "%d of %d" % ((len(r["kernels"]),) * 2), it

# --- two ranks: the rank table and the selector
f, p = page("ranks", {"rank": 1})
a = json.load(open("ranks.analyze.json"))
assert p["doc"] == a and len(a["ranks"]) == 2
check_rank_page(f, a["ranks"][0], False)
assert f["tables"]["ranks"]["rows"] == 2, f["tables"]["ranks"]
assert f["rankOptions"] == (["all ranks: the job"] if p.get("aggregate") else []) + ["rank 0", "rank 1"], f["rankOptions"]
assert f["navSelectAfterLinks"] is True, "the rank selector is not at the end of the navigation"
assert f["afterRank"]["state"] == "ok" and close(f["afterRank"]["p50"], a["ranks"][1]["step_stats"]["median_ns"]), f["afterRank"]

# --- a bench result
f, p = page("bench")
b = json.load(open("bench.json"))
s = b["series"][0]
# no trace: no Perfetto section
assert list(f["sections"]) == ["gp-summary", "gp-findings", "gp-histogram"], f["sections"]
assert f["sections"]["gp-histogram"] == "1"
assert close(f["cards"]["median"]["value"], s["stats"]["median_ns"]) and f["cards"]["median"]["text"] == fmt_ns(s["stats"]["median_ns"])
assert close(f["cards"]["p95"]["value"], s["stats"]["p95_ns"])
assert close(f["cards"]["throughput"]["value"], s["throughput"]["items_per_s"])
assert f["histCounts"] == [s["n"]] and f["charts"].get("sequence") == 1, (f["histCounts"], f["charts"])
assert f["tables"]["series"]["rows"] == 1 and f["tables"]["series"]["first"]["name"]["value"] == s["name"]
assert [x["id"] for x in f["findings"]] == [w["id"] for w in s["warnings"]], f["findings"]
assert f["env"]["command"] == "sleep 0.002", f["env"]

# --- a compare result
f, p = page("cmp")
c = json.load(open("cmp.json"))
assert list(f["sections"]) == ["gp-summary", "gp-findings", "gp-compare"], f["sections"]
assert f["cards"]["verdict"]["value"] == c["verdict"] and f["cards"]["regressions"]["value"] == str(len(c["regressions"]))
g = c["groups"][0]
mt = f["tables"]["compare-metrics"]
assert mt["metrics"] == [m["metric"] for m in g["metrics"]], mt["metrics"]
kd = f["tables"]["diff-kernels"]
assert kd["rows"] == min(50, len(g["kernels"]["rows"])) and kd["first"]["name"]["value"] == g["kernels"]["rows"][0]["name"], kd
assert close(kd["first"]["delta_total_ns"]["value"], g["kernels"]["rows"][0]["delta_total_ns"])
assert f["charts"].get("ci", 0) == len([m for m in g["metrics"] if m["ratio"] is not None])

# --- a run directory: the metrics timeline
if HAVE_RUN:
    f, p = page("nocupti")
    w = f["findings"][0]
    assert w["id"] == "capture-warning" and w["severity"] == "warning", f["findings"]
    assert w["title"].startswith("Capture: no CUPTI (/nonexistent/libcupti.so"), w
    f, p = page("run")
    a = json.load(open("run.analyze.json"))
    assert p["doc"] == a and a["metrics"]["series"], "no metrics in the run"
    check_rank_page(f, a["ranks"][0], True)
    shown = {"utilization_gpu_ratio", "memory_used_bytes", "power_watts", "temperature_celsius",
             "clock_sm_hertz", "clock_memory_hertz", "utilization_memory_ratio"}
    host = {"host.cpu_busy_ratio", "process_tree.cpu_cores", "process_tree.rss_bytes", "host.memory_available_bytes"}
    want = {x["name"] for x in a["metrics"]["series"] if (x["name"].split(".", 1)[-1] in shown and x["name"].startswith("gpu")) or x["name"] in host}
    assert "gpu0.power_watts" in want and set(f["metricSeries"]) == want, (f["metricSeries"], want)
    assert f["env"]["host"] == a["metrics"]["hostname"], f["env"]
    assert f["env"]["command"] == "sh cmd.sh" and f["env"]["date"] != "-", f["env"]
    # the step starts marked on every metric chart (the capture's clock is the sampler's)
    ts = [pt[0] for x in a["metrics"]["series"] for pt in x["points"] if isinstance(pt[0], int)]
    inside = [st for st in a["ranks"][0]["steps"] if min(ts) <= st["start_ns"] <= max(ts)]
    assert inside, "the run's step starts outside the metrics timeline"
    assert f["metricMarks"] == len(f["metricSeries"]) * len(inside), (f["metricMarks"], len(inside))

# --- hostile names render as text
f, p = page("evil")
H = reportpage.HOSTILE
assert f["title"] == "evil.json"
assert f["tables"]["kernels"]["names"] == [H["kernel"]], f["tables"]["kernels"]["names"]
assert H["op"] in f["tables"]["cpu_ops"]["names"], f["tables"]["cpu_ops"]["names"]
assert H["annotation"] in f["tables"]["annotations"]["names"], f["tables"]["annotations"]
assert f["env"]["gpus"] == "0: <b>GPU</b>", f["env"]["gpus"]
# --- sparse documents
import glob
for hp in sorted(glob.glob("sparse-*.html")):
    r = cdp.run(hp, timeout=60)
    assert r["state"] == "ok" and r["errors"] == [] and r["requests"] == [], (hp, r["state"], r["errors"])
print("pages ok; screenshots in", ART)
EOF
done_ok
