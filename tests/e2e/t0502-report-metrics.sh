#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0502-report-metrics.sh - the numbers of the report page's metrics charts, read
# back in headless Chromium, are those of metrics.jsonl: a `gpuprof run` sampled
# with the fake NVML (utilisation a sawtooth up to 1.0) gives pages for the run
# directory without a capture, for its metrics.jsonl alone and, where the CUDA
# toolkit was there at build time, for a run with a capture; on each, every
# ratio series (GPU and memory utilisation, host CPU busy) shows percentages
# (0.9 is "90.0%", not "0.9%") in its min/mean/max line, its y axis and the
# summary cards, and the GPU utilisation agrees with the text summary of
# `gpuprof analyze DIR`; exact ties of one decimal round as printf does on the page and
# in the text, and a mean a hair above a tie reads the same in both. Skips (77) only where
# Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
[ -e "$NVML" ] || { echo "skip: no $NVML"; exit 77; }
need_chromium
cd "$TMP" || exit 1
export GPUPROF_NVML_LIBRARY="$NVML"
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

# a run without a capture (no CUDA): metrics only; 0.7 s for the host CPU's 250 ms reads
"$GPUPROF" run --quiet --no-report -o nocap --sample-ms 10 -- sleep 0.7 >/dev/null 2>&1 ||
	fail "gpuprof run sleep"
[ -s nocap/metrics.jsonl ] || fail "no metrics.jsonl"
expect_rc 0 report -q -o nocap.html nocap
expect_rc 0 report -q -o metrics.html nocap/metrics.jsonl
"$GPUPROF" analyze nocap/metrics.jsonl >nocap.txt 2>/dev/null || fail "analyze metrics.jsonl"
PAGES="nocap:nocap/metrics.jsonl:nocap.txt metrics:nocap/metrics.jsonl:nocap.txt"

# the same samples with the host's CPU busy share at exact ties of one decimal (56.25 %,
# 6.25 %, 81.25 %): the page rounds them as printf does in the text and in Python ("56.2%"),
# not as JavaScript's toFixed ("56.3%")
python3 - nocap/metrics.jsonl ties.jsonl <<'PY' || fail "write ties.jsonl"
import json, sys
ties = [0.5625, 0.0625, 0.8125, 0.3125]
k = 0
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in f:
        d = json.loads(line)
        if d.get("schema") == "gpuprof.sample/1" and isinstance(d.get("host"), dict):
            d["host"]["cpu_busy_ratio"] = ties[k % len(ties)]
            k += 1
        out.write(json.dumps(d) + "\n")
assert k >= len(ties), k
PY
expect_rc 0 report -q -o ties.html ties.jsonl
"$GPUPROF" analyze ties.jsonl >ties.txt 2>/dev/null || fail "analyze ties.jsonl"
PAGES="$PAGES ties:ties.jsonl:ties.txt"

# a mean a hair above a tie: 0.1, 0.05 and 0.0375 (the other samples without the share) sum
# to 0.06250000000000001 in doubles, which the JSON holds as 0.0625; the text and the page
# must both say "6.2%", not the text "6.3%" from the unrounded double
python3 - nocap/metrics.jsonl near.jsonl <<'PY' || fail "write near.jsonl"
import json, sys
near = [0.1, 0.05, 0.0375]
k = 0
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in f:
        d = json.loads(line)
        if d.get("schema") == "gpuprof.sample/1" and isinstance(d.get("host"), dict):
            if k < len(near):
                d["host"]["cpu_busy_ratio"] = near[k]
            else:
                d["host"].pop("cpu_busy_ratio", None)
            k += 1
        out.write(json.dumps(d) + "\n")
assert k >= len(near), k
assert sum(near) / len(near) > 0.0625, "the doubles no longer land above the tie"
PY
expect_rc 0 report -q -o near.html near.jsonl
"$GPUPROF" analyze near.jsonl >near.txt 2>/dev/null || fail "analyze near.jsonl"
grep -q "host CPU busy   mean 6.2%" near.txt || fail "near.txt: $(grep 'host CPU' near.txt)"
PAGES="$PAGES near:near.jsonl:near.txt"

# a run with a capture (the CUDA simulator), where it was built
INJ="$B/libgpuprof-inject.so" FAKE="$B/tests/fake/libfake-cupti.so" SIM="$B/tests/inject/driver_sim"
if [ -e "$INJ" ] && [ -e "$FAKE" ] && [ -e "$SIM" ]; then
	printf '"%s" "%s" "%s" 20 exit 2>/dev/null\nsleep 0.6\n' "$SIM" "$INJ" "$FAKE" >cmd.sh
	GPUPROF_INJECT_LIBRARY="$INJ" "$GPUPROF" run --quiet --no-report -o cap --sample-ms 10 \
		-- sh cmd.sh >/dev/null 2>&1
	expect_rc 0 report -q -o cap.html cap
	"$GPUPROF" analyze cap >cap.txt 2>/dev/null || fail "analyze cap"
	PAGES="$PAGES cap:cap/metrics.jsonl:cap.txt"
fi

NCHECK=$((NCHECK + 1))
python3 - "$E" $PAGES <<'EOF' || fail "the metrics on the page (above)"
import json, os, re, sys
E = sys.argv[1]
sys.path.insert(0, E)
import cdp, reportpage
DOM = open(os.path.join(E, "report-dom.js")).read()

def pct(r):
    # a ratio as the page and the terminal print it: one decimal, "%"
    return "%.1f%%" % (100 * r)

def values(samples, name):
    """The values of series NAME (gpuN.KEY, host.KEY, process_tree.KEY) in metrics.jsonl."""
    out = []
    head, key = name.split(".", 1)
    for s in samples:
        if head.startswith("gpu"):
            g = [x for x in s.get("gpus") or [] if x.get("index") == int(head[3:])]
            v = g[0].get(key) if g else None
        elif head == "host":
            v = (s.get("host") or {}).get(key)
        else:
            v = ((s.get("host") or {}).get("process_tree") or {}).get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(v)
    return out

def stats(text):
    m = re.fullmatch(r"min (.+) \u00b7 mean (.+) \u00b7 p95 (.+) \u00b7 max (.+)", text)
    assert m, text
    return dict(zip(("min", "mean", "p95", "max"), m.groups()))

def number(s):
    return float(re.match(r"-?[\d.]+", s).group(0))

for arg in sys.argv[2:]:
    name, jsonl, txt = arg.split(":")
    lines = [json.loads(l) for l in open(jsonl, encoding="utf-8") if l.strip()]
    samples = [l for l in lines if l.get("schema") == "gpuprof.sample/1"]
    assert samples, (name, "no samples")
    r = cdp.run(name + ".html", width=1280, height=900, timeout=60, eval_expr=DOM + "({})")
    f = r["value"]
    assert r["state"] == "ok" and r["errors"] == [], (name, r["state"], r["errors"])
    data = reportpage.page_data(open(name + ".html", encoding="utf-8").read())
    units = {s["name"]: s["unit"] for s in data["doc"]["metrics"]["series"]}
    shown = {m["series"]: m for m in f["metricStats"]}
    ratios = [n for n in shown if units.get(n) == "ratio"]
    for want in ("gpu0.utilization_gpu_ratio", "gpu1.utilization_gpu_ratio",
                 "gpu0.utilization_memory_ratio", "host.cpu_busy_ratio"):
        assert want in ratios, (name, want, sorted(shown))
    for n in ratios:
        v = values(samples, n)
        assert v and all(0 <= x <= 1 for x in v), (name, n, v[:5])
        st = stats(shown[n]["stats"])
        # min and max exactly as metrics.jsonl holds them, as percentages
        assert st["min"] == pct(min(v)) and st["max"] == pct(max(v)), (name, n, st, min(v), max(v))
        mean = 100 * sum(v) / len(v)
        assert abs(number(st["mean"]) - mean) <= 0.051 and st["mean"].endswith("%"), (name, n, st, mean)
        assert number(st["p95"]) <= number(st["max"]) + 1e-9, (name, n, st)
        # the y axis: the largest value at the top, 0 at the bottom
        if max(v) > min(v):
            assert shown[n]["axis"] == [pct(max(v)), pct(min(0, min(v)))], (name, n, shown[n]["axis"])
    # the fake NVML's utilisation reaches 90 % and more: a share of 1 shows as such
    assert number(stats(shown["gpu0.utilization_gpu_ratio"]["stats"])["max"]) >= 90, shown["gpu0.utilization_gpu_ratio"]
    # the text summary says the same (its GPU rows: "  0 NAME   util mean  util max ...")
    text = open(txt, encoding="utf-8").read()
    for gi in (0, 1):
        row = re.search(r"^  %d .*?(\d+\.\d%%)\s+(\d+\.\d%%)" % gi, text, re.M)
        assert row, (name, text)
        st = stats(shown["gpu%d.utilization_gpu_ratio" % gi]["stats"])
        assert (st["mean"], st["max"]) == row.groups(), (name, gi, st, row.groups())
    cpu = re.search(r"^  host CPU busy\s+mean (\S+)\s+max (\S+)", text, re.M)
    if cpu:
        st = stats(shown["host.cpu_busy_ratio"]["stats"])
        assert (st["mean"], st["max"]) == cpu.groups(), (name, st, cpu.groups())
    # the cards of a page without a rank: GPU utilisation and host CPU as percentages
    c = f["cards"]
    if not data["doc"]["ranks"]:
        u = float(c["gpu_util"]["value"])
        assert 0 <= u <= 1 and c["gpu_util"]["text"] == pct(u), c["gpu_util"]
        if "host_cpu" in c:
            h = float(c["host_cpu"]["value"])
            assert 0 <= h <= 1 and c["host_cpu"]["text"] == pct(h), c["host_cpu"]
    print(name, "ok:", len(ratios), "ratio series")
EOF
done_ok
