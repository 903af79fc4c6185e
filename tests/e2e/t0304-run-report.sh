#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0304-run-report.sh - the report step of gpuprof run: DIR/report.json is
# what `gpuprof analyze DIR --json` prints (kernels of the CUDA driver
# simulator, NVTX ranges of nvtx_app, the run's tags, the metrics of the fake
# NVML's GPUs) and the summary on stderr what `gpuprof analyze DIR` prints;
# stdout stays CMD's; --quiet, --no-report; no capture and a capture cut short
# leave CMD's exit status alone; a cut or bad metrics.jsonl. Skipped where the
# CUDA toolkit was absent at build time (no tracer, no simulator).
. "$(dirname "$0")/lib.sh"
need python3

B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
INJ="$B/libgpuprof-inject.so"
FAKE="$B/tests/fake/libfake-cupti.so"
SIM="$B/tests/inject/driver_sim"
APP="$B/tests/inject/nvtx_app"
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
for f in "$INJ" "$FAKE" "$SIM" "$APP" "$NVML"; do
	[ -e "$f" ] || { echo "skip: no $f (built without the CUDA toolkit)"; exit 77; }
done
export GPUPROF_INJECT_LIBRARY="$INJ"
export GPUPROF_NVML_LIBRARY="$NVML"
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH COLUMNS
cd "$TMP" || exit 1

# CMD: the simulator (5 launches of two kernels) then the NVTX program, their stderr kept apart
cat >cmd.sh <<EOF
"$SIM" "$INJ" "$FAKE" 5 exit 2>>cmd.err
"$APP" exit 2>>cmd.err
echo "exit \$?"
sleep 0.5 # the host CPU share needs two reads of /proc/stat, 250 ms apart
exit 5
EOF

# --- the report of a run with kernels, ranges, tags and metrics
expect_rc 5 run -o "$TMP/r1" --sample-ms 10 --tag team=ml --tag model=resnet -- sh cmd.sh
[ "$(cat "$OUT")" = "$(printf 'checks ok\nhello\nexit 3')" ] || fail "stdout is not CMD's alone"
[ -s r1/report.json ] || fail "no report.json"
json_ok r1/report.json
[ "$(tail -n 1 "$ERR")" = "gpuprof run: capture, metrics timeline, report.json and run.json in '$TMP/r1'" ] || fail "last stderr line"
head -n -1 "$ERR" >summary.txt
cp r1/report.json report.json
"$GPUPROF" analyze --json "$TMP/r1" >analyze.json || fail "gpuprof analyze --json DIR"
cmp -s report.json analyze.json || fail "report.json differs from 'gpuprof analyze DIR --json'"
"$GPUPROF" analyze "$TMP/r1" >analyze.txt || fail "gpuprof analyze DIR"
cmp -s summary.txt analyze.txt || fail "the summary differs from 'gpuprof analyze DIR'"
grep -q '^tags      model=resnet team=ml$' summary.txt || fail "no tags line in the summary"
grep -q '^Metrics (' summary.txt || fail "no Metrics section in the summary"
grep -q '^  0 Fake GPU H100 0 ' summary.txt || fail "no GPU 0 line in the Metrics section"
grep -q '^  host CPU busy ' summary.txt || fail "no host CPU line in the Metrics section"
grep -q '^  process tree    RSS peak ' summary.txt || fail "no process tree line"
no_width_over 100 summary.txt
NCHECK=$((NCHECK + 1))
python3 - "$TMP" <<'EOF' || fail "report.json content"
import json, sys
tmp = sys.argv[1]
d = json.load(open("report.json"))
run = json.load(open("r1/run.json"))
assert d["schema"] == "gpuprof.analyze/1"
assert d["tags"] == {"model": "resnet", "team": "ml"}, d["tags"]
assert run["report"] == {"state": "written", "file": "report.json", "error": None,
                         "salvaged": False}, run["report"]
assert run["options"]["no_report"] is False
# two captures: the simulator's kernels, nvtx_app's ranges
assert len(d["ranks"]) == 2, [r["file"] for r in d["ranks"]]
kernels, ranges = {}, {}
for r in d["ranks"]:
    assert r["file"].startswith(tmp + "/r1/capture-") and r["file"].endswith(".gpcap")
    kernels.update({k["name"]: k["count"] for k in r["kernels"]})
    ranges.update({a["name"]: a["count"] for a in r["annotations"]})
assert kernels == {"_Z7kernelAPf": 5, "_Z7kernelBPf": 5}, kernels
assert ranges == {"outer": 3, "inner": 3, "startend": 1, "around": 1, "mydomain:dom range": 1,
                  "bad \ufffd name": 1}, ranges
# the metrics timeline, on the capture's clock (CLOCK_MONOTONIC, as run.json's times)
m = d["metrics"]
assert m["file"] == tmp + "/r1/metrics.jsonl" and m["error"] is None
assert m["interval_ms"] == 10 and m["ended"] is True and m["malformed_lines"] == 0
assert m["samples"] >= 5 and m["truncated"] is False and m["partial_last_line"] is False
assert m["watched_pid"] == run["pid"] and m["driver_version"] == "999.99.fake"
assert [g["name"] for g in m["gpus"]] == ["Fake GPU H100 0", "Fake GPU H100 1"], m["gpus"]
assert m["gpus"][0]["memory_total_bytes"] == 80 << 30
names = [s["name"] for s in m["series"]]
for want in ("host.cpu_busy_ratio", "process_tree.rss_bytes", "process_tree.cpu_cores",
             "gpu0.utilization_gpu_ratio", "gpu0.memory_used_bytes", "gpu0.power_watts",
             "gpu0.temperature_celsius", "gpu0.clock_sm_hertz", "gpu1.utilization_gpu_ratio"):
    assert want in names, (want, names)
assert "gpu0.memory_total_bytes" not in names
# the sampler's last sample is taken as it stops, just after CMD's end was recorded
lo, hi = run["start_monotonic_ns"], run["end_monotonic_ns"] + 5 * 10**9
for s in m["series"]:
    pts = s["points"]
    assert 0 < len(pts) <= m["max_points"] == 500 and len(pts) == m["samples"], s["name"]
    t = [p[0] for p in pts]
    assert t == sorted(t) and lo <= t[0] and t[-1] <= hi, (s["name"], lo, t[0], t[-1], hi)
    vals = [p[1] for p in pts if p[1] is not None]
    assert s["count"] == len(vals) > 0, s
    assert s["min"] == min(vals) and s["max"] == max(vals), s
    assert s["min"] <= s["mean"] <= s["max"] and s["min"] <= s["p95"] <= s["max"], s
    assert s["last"] == vals[-1], s
u = {s["name"]: s for s in m["series"]}["gpu0.utilization_gpu_ratio"]
assert u["unit"] == "ratio" and 0 <= u["min"] <= u["max"] <= 1, u
EOF

# --- --quiet: the report, no summary; --no-report: neither
expect_rc 5 run --quiet -o q --sample-ms 10 -- sh cmd.sh
[ ! -s "$ERR" ] || fail "--quiet printed on stderr"
json_ok q/report.json
expect_rc 5 run --no-report -o nr --sample-ms 10 -- sh cmd.sh
[ ! -e nr/report.json ] || fail "--no-report wrote report.json"
grep -q '^Metrics' "$ERR" && fail "--no-report printed a summary"
[ "$(json_get nr/run.json 'd["report"]["state"], d["report"]["file"], d["options"]["no_report"]')" = \
	"('disabled', None, True)" ] || fail "run.json of --no-report"

# --- no capture (CMD used neither CUDA nor NVTX): a note, CMD's exit status, run.json says why
expect_rc 3 run -o none -- sh -c 'exit 3'
err_has "gpuprof run: no report: no capture file: CMD used neither CUDA nor NVTX"
[ ! -e none/report.json ] || fail "a report.json without captures"
[ "$(json_get none/run.json 'd["report"]["state"]')" = failed ] || fail "run.json report.state"
json_get none/run.json 'd["report"]["error"]' | grep -q "no capture file" ||
	fail "run.json report.error"
expect_rc 3 run --quiet -o none-q -- sh -c 'exit 3'
[ ! -s "$ERR" ] || fail "--quiet printed the note"

# --- a capture cut inside a record (a process killed mid-write): analysed with salvage
mkdir cut
f=$(ls r1/capture-*.gpcap | head -n 1)
head -c $(($(stat -c %s "$f") - 20)) "$f" >cut/capture-cut-1.gpcap
expect_rc 0 run --force -o cut --sample-ms 10 -- true
err_has "a capture was cut short"
json_ok cut/report.json
[ "$(json_get cut/report.json 'd["ranks"][0]["salvage"] is not None')" = True ] ||
	fail "the cut capture was not salvaged"
[ "$(json_get cut/run.json 'd["report"]["salvaged"], d["report"]["state"]')" = "(True, 'written')" ] ||
	fail "run.json of the salvaged report"

# --- metrics.jsonl cut mid-line, then garbage: analyze says so, the ranks stay
mkdir m1 m2
cp r1/capture-*.gpcap r1/run.json m1/
cp r1/capture-*.gpcap m2/
head -c $(($(stat -c %s r1/metrics.jsonl) - 100)) r1/metrics.jsonl >m1/metrics.jsonl
printf 'garbage\n' >m2/metrics.jsonl
expect_rc 0 analyze --json m1
python3 - "$OUT" <<'EOF' || fail "a cut metrics.jsonl"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
assert m["ended"] is False and m["partial_last_line"] is True and m["error"] is None, m
assert d["tags"] == {"model": "resnet", "team": "ml"}, d["tags"]
EOF
expect_rc 0 analyze m1
out_has "Metrics ("
out_has "; cut short)"
expect_rc 0 analyze --json m2
python3 - "$OUT" <<'EOF' || fail "a bad metrics.jsonl"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d["metrics"]) == {"file", "error"} and "not a metrics timeline" in d["metrics"]["error"]
assert len(d["ranks"]) == 2
# the tags of a run directory without run.json come from the captures
assert d["tags"] == {"model": "resnet", "team": "ml"}, d["tags"]
EOF
# a Kineto trace: no metrics, empty tags
expect_rc 0 analyze --json "$DATA/tiny.json"
[ "$(json_get "$OUT" '"metrics" in d, d["tags"]')" = "(False, {})" ] || fail "tags of a Kineto trace"

done_ok
