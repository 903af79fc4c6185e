#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0320-export.sh - `gpuprof export --format chrome`: run directories of
# `gpuprof run` (driver_sim under the fake CUPTI: kernels, copies, API calls;
# nvtx_app: NVTX ranges), Kineto traces and a directory of ranks. Each output
# is loaded with python3's json module and checked: times as µs with three
# decimals (or whole µs as integers, as the Kineto trace wrote them),
# processes "GPU N" with threads "stream S" after the hosts, every
# flow pairing an API call with the GPU operation of the same correlation id,
# process ids apart between ranks, counters; the default output name, stdout,
# determinism, and the errors (exit 1 for bad input, 2 for usage).
. "$(dirname "$0")/lib.sh"
need python3

K="$GP_SRC_DIR/tests/data/kineto"

# check FILE [EXPECT]: the generic checks, then the python EXPECT with d, ev,
# procs (pid -> name), threads ((pid, tid) -> name), xs (X events) and flows
# ([(s, f, api X, gpu X)]) in scope
check() {
	NCHECK=$((NCHECK + 1))
	python3 - "$1" "${2:-}" <<'EOF' || fail "export '$1' (above)"
import collections, json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(text)
assert d["displayTimeUnit"] in ("ns", "ms") and d["otherData"]["exporter"] == "gpuprof", d.keys()
ev = d["traceEvents"]
# every time: digits, a point, three digits (never through a double), or whole µs
times = re.findall(r'"(?:ts|dur)":(-?[0-9.eE+]+)', text)
bad = [t for t in times if not re.fullmatch(r"-?[0-9]+(\.[0-9]{3})?", t)]
assert times and not bad, bad[:5]
procs, threads, sort = {}, {}, {}
for e in ev:
    if e["ph"] != "M":
        continue
    if e["name"] == "process_name":
        assert e["pid"] not in procs, ("two names for pid", e)
        procs[e["pid"]] = e["args"]["name"]
    elif e["name"] == "thread_name":
        threads[(e["pid"], e["tid"])] = e["args"]["name"]
    elif e["name"] == "process_sort_index":
        sort[e["pid"]] = e["args"]["sort_index"]
gpus = {p for p, n in procs.items() if re.search(r"(^|: )GPU [0-9?]+$", n)}
for p in gpus:  # GPUs after every host process
    assert all(sort[p] > sort[q] for q in sort if q not in gpus and not procs.get(q, "").endswith("metrics")), procs
xs = [e for e in ev if e["ph"] == "X"]
gpu_cats = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
for e in xs:
    assert (e["pid"] in gpus) == (e["cat"] in gpu_cats), e
    if e["pid"] in gpus:
        assert threads[(e["pid"], e["tid"])].startswith("stream "), e
# flows: one s and one f per id, at an API call and at a GPU op of the same correlation id
at = collections.defaultdict(list)
for e in xs:
    at[(e["pid"], e["tid"], e["ts"])].append(e)
ends = collections.defaultdict(dict)
for e in ev:
    if e["ph"] in "sf":
        assert e["cat"] == "ac2g" and e["name"] == "ac2g", e
        assert e["ph"] not in ends[e["id"]], ("flow id used twice", e)
        ends[e["id"]][e["ph"]] = e
flows = []
for i, se in ends.items():
    s, f = se["s"], se["f"]
    assert f.get("bp") == "e", f
    api = [x for x in at[(s["pid"], s["tid"], s["ts"])] if x["cat"] in ("cuda_runtime", "cuda_driver")]
    op = [x for x in at[(f["pid"], f["tid"], f["ts"])] if x["cat"] in gpu_cats]
    assert api and op, (s, f)
    assert any(a["args"]["correlation"] == o["args"]["correlation"] for a in api for o in op), (api, op)
    flows.append((s, f, api[0], op[0]))
for e in ev:
    if e["ph"] == "C":
        assert e["pid"] in procs and e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), e
exec(sys.argv[2])
EOF
}

# --- Kineto traces: one file, gzip, stdout
expect_rc 0 export "$K/modern.json" -o "$TMP/modern.json"
err_has "wrote '$TMP/modern.json': 9 events, 1 flows, 2 counter values from 1 trace"
check "$TMP/modern.json" '
assert len(xs) == 9 and len(flows) == 1, (len(xs), flows)
s, f, api, op = flows[0]
assert s["id"] == 77 and api["name"] == "cudaLaunchKernel" and op["name"] == "ampere_sgemm_32x32"
assert op["args"]["grid"] == [2, 3, 1] and op["args"]["block"] == [128, 1, 1], op
assert op["args"]["registers per thread"] == 72 and op["args"]["shared memory"] == 8192
assert op["args"]["stream"] == 7 and op["args"]["device"] == 0
cp = [x for x in xs if x["cat"] == "gpu_memcpy"][0]
assert cp["args"]["bytes"] == 4096, cp
assert procs[op["pid"]] == "GPU 0" and threads[(op["pid"], 7)] == "stream 7", procs
assert api["pid"] == 100 and api["ts"] == 1020.0 and api["dur"] == 10.0
c = [e for e in ev if e["ph"] == "C"]
assert len(c) == 2 and c[0]["pid"] == op["pid"] and c[0]["args"]["reserved_bytes"] == 2097152, c
# the second event has Bytes only: the device adds up Bytes (as analyze does)
assert [x["args"]["allocated_bytes"] for x in c] == [512, 0], c
# whole µs stay integers; the trace'"'"'s metadata is the document'"'"'s
assert api["ts"] == 1020 and isinstance(api["ts"], int), api
assert d["displayTimeUnit"] == "ms" and d["distributedInfo"]["rank"] == 3, d.keys()
assert d["deviceProperties"][0]["name"] == "NVIDIA H100 80GB HBM3" and d["traceName"] == "modern.json"
# memory events as Kineto writes them, every field kept
m = [e for e in ev if e["ph"] == "i"]
assert [x["args"] for x in m] == [{"Addr": 139870000000000, "Bytes": 512, "Device Id": 0, "Device Type": 1,
  "Total Allocated": 512, "Total Reserved": 2097152}, {"Bytes": -512, "Device Id": 0, "Device Type": 1}], m
assert all(x["name"] == "[memory]" and x["cat"] == "cpu_instant_event" and x["pid"] == 100 for x in m), m
'
expect_rc 0 export "$K/modern.json.gz" -o -
out_has '"traceEvents":['
[ ! -s "$ERR" ] || fail "stderr not empty with -o -"
cmp -s "$OUT" "$TMP/modern.json" || fail "the .gz export differs from the plain one"
# a FIFO (as /dev/null) is written as it is, not renamed over
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from-fifo" &
expect_rc 0 export -q "$K/modern.json" -o "$TMP/fifo"
wait
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced by a file"
cmp -s "$TMP/from-fifo" "$TMP/modern.json" || fail "the export through a FIFO differs"
# deterministic
expect_rc 0 export -q "$K/modern.json" -o "$TMP/again.json"
cmp -s "$TMP/again.json" "$TMP/modern.json" || fail "two exports of one trace differ"
# the default output: NAME.chrome.json beside the input
cp "$K/modern.json.gz" "$TMP/m.json.gz"
expect_rc 0 export "$TMP/m.json.gz"
[ -s "$TMP/m.chrome.json" ] || fail "no default output m.chrome.json"
cmp -s "$TMP/m.chrome.json" "$TMP/modern.json" || fail "the default output differs"

# PyTorch 2.x times (baseTimeNanoseconds): relative to an hour before the base, which the
# file keeps; read back by analyze, the times are the same
expect_rc 0 export -q "$K/base_after.json" -o "$TMP/base.json"
check "$TMP/base.json" '
assert d["baseTimeNanoseconds"] == 1751410836000000000 - 3600 * 10**9, d["baseTimeNanoseconds"]
assert all(0 < x["ts"] < 1e13 for x in xs), xs
'
expect_rc 0 analyze --json "$K/base_after.json"
mv "$OUT" "$TMP/a-orig.json"
expect_rc 0 analyze --json "$TMP/base.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/a-orig.json" "$OUT" <<'EOF' || fail "analyze of the export differs from analyze of the trace"
import json, sys
a, b = (json.load(open(f))["ranks"][0] for f in sys.argv[1:])
assert a["kernels"] == b["kernels"], (a["kernels"], b["kernels"])
assert a["overview"]["start_ns"] == b["overview"]["start_ns"], (a["overview"], b["overview"])
EOF

# --- a directory of ranks: process names labelled, pids apart, flow ids apart
mkdir "$TMP/ranks"
cp "$K/modern.json" "$TMP/ranks/a.json"       # distributedInfo rank 3
cp "$K/legacy2021.json" "$TMP/ranks/worker1.json" # rank from the name
expect_rc 0 export "$TMP/ranks" -o "$TMP/ranks.json"
check "$TMP/ranks.json" '
names = sorted(procs.values())
assert "rank 3: GPU 0" in names and "rank 1: GPU 0" in names, names
assert all(n.startswith(("rank 3", "rank 1")) for n in names), names
gp = [p for p, n in procs.items() if n.endswith("GPU 0")]
assert len(set(gp)) == 2, procs
assert len(flows) == 2 and len({s["id"] for s, _, _, _ in flows}) == 2, flows
assert {procs[op["pid"]] for _, _, _, op in flows} == {"rank 3: GPU 0", "rank 1: GPU 0"}
'
# the default output of a directory goes beside it, not into it
expect_rc 0 export -q "$TMP/ranks"
[ -s "$TMP/ranks.chrome.json" ] || fail "no default output ranks.chrome.json"
[ "$(ls "$TMP/ranks" | wc -l)" -eq 2 ] || fail "the export wrote into the directory: $(ls "$TMP/ranks")"
# an export inside a directory of traces is not read back as a rank
expect_rc 0 export -q "$TMP/ranks" -o "$TMP/ranks/all.chrome.json"
expect_rc 0 export -q "$TMP/ranks" -o "$TMP/ranks2.json"
cmp -s "$TMP/ranks2.json" "$TMP/ranks.json" || fail "a *.chrome.json in the directory was read"

# --- errors and usage
expect_rc 1 export "$TMP/nonexistent.json" -o "$TMP/x.json"
err_has "nonexistent.json"
err_one_line
head -c 600 "$K/modern.json" >"$TMP/cut.json"
expect_rc 1 export "$TMP/cut.json" -o "$TMP/cut-out.json"
err_has "cut.json"
[ ! -e "$TMP/cut-out.json" ] || fail "a failed export left its output"
ls -a "$TMP" | grep -q "\.tmp\." && fail "a failed export left a temporary file"
expect_rc 0 export --salvage -q "$TMP/cut.json" -o "$TMP/cut-out.json"
json_ok "$TMP/cut-out.json"
expect_rc 1 export "$K/modern.json" -o "$TMP/ranks"
err_has "it is a directory"
expect_rc 2 export "$K/modern.json" --format perfetto -o "$TMP/x.json"
err_has "format 'perfetto' is not supported yet"
expect_rc 2 export "$K/modern.json" --format csv -o "$TMP/x.json"
err_has "not supported yet"
expect_rc 2 export "$K/modern.json" --format xml -o "$TMP/x.json"
err_has "expects 'chrome'"
expect_rc 2 export
err_has "no trace given"
expect_rc 2 export "$K/modern.json" "$K/legacy2021.json"
err_has "-o FILE"
expect_rc 2 export --bogus "$K/modern.json"
expect_rc 0 export -h
out_has "usage: gpuprof export"
expect_rc 0 help export
out_has "ui.perfetto.dev"
[ ! -e "$TMP/x.json" ] || fail "a usage error wrote output"

# --- run directories of `gpuprof run` (needs the injected tracer and its test programs)
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
INJ="$B/libgpuprof-inject.so"
FAKE="$B/tests/fake/libfake-cupti.so"
SIM="$B/tests/inject/driver_sim"
APP="$B/tests/inject/nvtx_app"
for f in "$INJ" "$FAKE" "$SIM" "$APP"; do
	[ -e "$f" ] || { echo "note: no $f (built without the CUDA toolkit): run directories not tested"; done_ok; }
done
# the fake NVML with two GPUs: GPU metrics in metrics.jsonl
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
[ -e "$NVML" ] || NVML=/nonexistent/libnvidia-ml.so.1
export GPUPROF_NVML_LIBRARY="$NVML" FAKE_NVML_GPUS=2
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --sample-ms 10 -o "$TMP/run-sim" -- "$SIM" "$INJ" "$FAKE" 5 exit \
	>"$TMP/sim.out" 2>&1 || fail "gpuprof run driver_sim: $(cat "$TMP/sim.out")"
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet -o "$TMP/run-nvtx" -- "$APP" exit >"$TMP/app.out" 2>&1
[ $? -eq 3 ] || fail "gpuprof run nvtx_app did not exit 3: $(cat "$TMP/app.out")"
[ -s "$TMP/run-sim/metrics.jsonl" ] || fail "gpuprof run wrote no metrics.jsonl"

ls -a "$TMP/run-sim" >"$TMP/before"
expect_rc 0 export "$TMP/run-sim"
err_has "$TMP/run-sim.chrome.json"
check "$TMP/run-sim.chrome.json" '
k = [x for x in xs if x["cat"] == "kernel"]
names = collections.Counter(x["name"] for x in k)
assert names == {"_Z7kernelAPf": 5, "_Z7kernelBPf": 5}, names
assert {threads[(x["pid"], x["tid"])] for x in k} == {"stream 7", "stream 13"}
assert all(procs[x["pid"]] == "GPU 0" for x in k), procs
assert all(x["args"]["grid"] and x["args"]["block"] and "registers per thread" in x["args"] for x in k)
api = collections.Counter(x["name"] for x in xs if x["cat"] in ("cuda_runtime", "cuda_driver"))
assert api["cudaLaunchKernel"] == 10 and api["cuLaunchKernel"] == 1, api
host = {x["pid"] for x in xs if x["cat"] == "cuda_runtime"}
assert len(host) == 1 and procs[host.pop()] == "driver_sim", procs
cp = [x for x in xs if x["cat"] == "gpu_memcpy"]
assert len(cp) == 1 and cp[0]["args"]["bytes"] == 1 << 20, cp
assert sum(1 for x in xs if x["cat"] == "gpu_memset") == 1
fk = [op for _, _, _, op in flows if op["cat"] == "kernel"]
assert len(fk) >= 10, flows
assert all(s["id"] == api_x["args"]["correlation"] for s, _, api_x, _ in flows)
# metrics.jsonl: counters on processes of their own, on the capture clock
c = [e for e in ev if e["ph"] == "C"]
mp = {e["pid"]: procs[e["pid"]] for e in c}
host = [p for p, n in mp.items() if n.endswith("host metrics")]
assert len(host) == 1 and any(e["name"] == "memory_total_bytes" for e in c if e["pid"] == host[0]), mp
if "'"$NVML"'".endswith("libfake-nvml.so"):
    g = sorted(n.split(": ")[-1] for n in mp.values() if "GPU" in n)
    assert g == ["GPU 0 metrics", "GPU 1 metrics"], mp
    assert any(e["name"] == "power_watts" for e in c), c[:3]
line = [json.loads(l) for l in open("'"$TMP/run-sim/metrics.jsonl"'")][1]
t0 = line["time_monotonic_ns"]
assert any(e["ts"] == t0 / 1000 for e in c if e["pid"] == host[0]), (t0, c[:3])
'
expect_rc 0 export -q --no-metrics "$TMP/run-sim" -o "$TMP/nometrics.json"
check "$TMP/nometrics.json" 'assert not [e for e in ev if e["ph"] == "C"]'
# a metrics timeline given by hand; one that cannot be read is an error
expect_rc 0 export -q "$K/modern.json" --metrics "$TMP/run-sim/metrics.jsonl" -o "$TMP/km.json"
check "$TMP/km.json" 'assert sum(1 for e in ev if e["ph"] == "C") > 1'
expect_rc 1 export -q "$K/modern.json" --metrics "$TMP/none.jsonl" -o "$TMP/km2.json"
err_has "none.jsonl"
# a run directory's unreadable metrics.jsonl: left out with a warning
mkdir "$TMP/run-bad"
cp "$TMP"/run-sim/capture-*.gpcap "$TMP/run-bad/"
printf 'not json\n' >"$TMP/run-bad/metrics.jsonl"
expect_rc 0 export "$TMP/run-bad" -o "$TMP/bad.json"
err_has "warning:"
err_has "metrics left out: $TMP/run-bad/metrics.jsonl"
check "$TMP/bad.json" 'assert not [e for e in ev if e["ph"] == "C"] and xs'
# exporting did not change the run directory: analyze reads it as before
ls -a "$TMP/run-sim" | cmp -s - "$TMP/before" || fail "the export wrote into the run directory"
expect_rc 0 analyze --json "$TMP/run-sim"

expect_rc 0 export -q "$TMP/run-nvtx" -o "$TMP/nvtx.json"
check "$TMP/nvtx.json" '
a = collections.Counter(x["name"] for x in xs if x["cat"] == "user_annotation")
assert a == {"outer": 3, "inner": 3, "around": 1, "mydomain:dom range": 1, "bad \ufffd name": 1}, a
# "around" (default domain) and "dom range" interleave: a push/pop stack per domain pairs each
# pop with its own push ("around" ends first; one stack would end "dom range" first)
ar = next(x for x in xs if x["name"] == "around")
dr = next(x for x in xs if x["name"] == "mydomain:dom range")
end = lambda x: float(x["ts"]) + float(x["dur"])
assert float(ar["ts"]) <= float(dr["ts"]) and end(ar) <= end(dr), (ar, dr)
b = [e for e in ev if e["ph"] == "b"]
e_ = [e for e in ev if e["ph"] == "e"]
assert [x["name"] for x in b] == ["startend"] and [x["name"] for x in e_] == ["startend"], (b, e_)
assert b[0]["id"] == e_[0]["id"] and float(e_[0]["ts"]) >= float(b[0]["ts"])
assert procs[b[0]["pid"]] == "nvtx_app"
outer = [x for x in xs if x["name"] == "outer"]
assert all(x["pid"] == b[0]["pid"] for x in outer)
'

# both run directories in one file: each process labelled, pids apart
expect_rc 0 export -q "$TMP/run-sim" "$TMP/run-nvtx" -o "$TMP/both.json"
check "$TMP/both.json" '
assert len(procs) == len(set(procs)), procs
names = set(procs.values())
assert any(n.endswith(": driver_sim") for n in names) and any(n.endswith(": nvtx_app") for n in names), names
assert any(n.endswith(": GPU 0") for n in names), names
'
done_ok
