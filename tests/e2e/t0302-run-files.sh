#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0302-run-files.sh - what gpuprof run leaves in DIR: run.json (written
# before CMD starts and completed after), metrics.jsonl in the format of
# `gpuprof top --record` with the fake NVML (no GPU, two GPUs), the CPU of
# CMD's whole process tree, and no metrics with --sample-ms 0.
. "$(dirname "$0")/lib.sh"
need python3

FAKE="${GP_FAKE_NVML_DIR:-${GP_BUILD_DIR:-$GP_SRC_DIR/build}/tests/fake}/libfake-nvml.so"
[ -f "$FAKE" ] || { echo "skip: no $FAKE"; exit 77; }
export GPUPROF_INJECT_LIBRARY=/nonexistent/libgpuprof-inject.so
export GPUPROF_NVML_LIBRARY="$FAKE"
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
cd "$TMP" || exit 1

cat >burn.py <<'EOF'
import sys, time
t = time.time()
while time.time() - t < float(sys.argv[1]):
    pass
EOF
# CMD checks the run.json of a run in progress, then burns CPU for a while
cat >during.py <<'EOF'
import json, os, sys
d = json.load(open(os.path.join(os.environ["GPUPROF_CAPTURE_DIR"], "run.json")))
assert d["state"] == "running", d["state"]
assert d["pid"] == os.getpid(), (d["pid"], os.getpid())
assert d["end_unix_ns"] is None and d["exit_code"] is None and d["wall_ns"] is None
exec(open("burn.py").read().replace("sys.argv[1]", "0.6"))
print("during-ok")
sys.exit(7)
EOF

# --- no GPU (the fake NVML with none), a single process
FAKE_NVML_GPUS=0 expect_rc 7 run -o nogpu --sample-ms 20 -- python3 during.py --flag
out_has "during-ok"
python3 - "$TMP" "$("$GPUPROF" version | head -1)" <<'EOF' || fail "run.json or metrics.jsonl"
import datetime, json, os, socket, sys
tmp, version = sys.argv[1], sys.argv[2].split()[1]

def sorted_keys(pairs):
    keys = [k for k, _ in pairs]
    assert keys == sorted(keys), keys
    return dict(pairs)

text = open("nogpu/run.json").read()
assert text.endswith("}\n")
d = json.loads(text, object_pairs_hook=sorted_keys)
assert sorted(d) == sorted([
    "schema", "gpuprof_version", "command", "executable", "cwd", "hostname", "tags", "options",
    "injector", "environment", "start_unix_ns", "start_time", "start_monotonic_ns",
    "end_unix_ns", "end_time", "end_monotonic_ns", "wall_ns", "pid", "state", "exit_code",
    "exit_signal", "core_dumped", "exec_error", "state_reason", "processes", "not_waited",
    "wait_interrupted", "processes_more",
    "sampler", "report"]), sorted(d)
assert d["state_reason"] is None and d["processes"] == [] and d["not_waited"] == []
assert d["wait_interrupted"] is False and d["processes_more"] == 0
assert d["schema"] == "gpuprof.run/1" and d["gpuprof_version"] == version
assert d["command"] == ["python3", "during.py", "--flag"]
assert os.path.basename(d["executable"]).startswith("python3")
assert d["cwd"] == tmp and d["hostname"] == socket.gethostname()
assert d["tags"] == {} and d["state"] == "exited" and d["exit_code"] == 7
assert d["exit_signal"] is None and d["core_dumped"] is False and d["exec_error"] is None
assert d["pid"] > 0
assert d["end_unix_ns"] >= d["start_unix_ns"] and d["end_monotonic_ns"] > d["start_monotonic_ns"]
assert d["wall_ns"] == d["end_monotonic_ns"] - d["start_monotonic_ns"]
assert 0.5e9 < d["wall_ns"] < 60e9, d["wall_ns"]
for k in ("start", "end"):
    t = datetime.datetime.strptime(d[k + "_time"][:19], "%Y-%m-%dT%H:%M:%S")
    t = t.replace(tzinfo=datetime.timezone.utc)
    assert d[k + "_time"].endswith("Z") and len(d[k + "_time"]) == 30, d[k + "_time"]
    assert int(t.timestamp()) == d[k + "_unix_ns"] // 10**9
o = d["options"]
assert o == {"output": os.path.join(tmp, "nogpu"), "sample_ms": 20, "no_cuda": False,
             "cuda_events": False, "capture_range": None, "delay_ns": None, "duration_ns": None, "schedule": None,
             "iter_range": None, "quiet": False, "force": False, "no_report": False,
             "config": None, "from_config": [], "wait": "all",
             "pytorch": None}, o
# no tracer in this test: no capture, so no report (and no note: the tracer's absence was said)
assert d["report"] == {"state": "failed", "file": None, "salvaged": False,
                       "error": "no capture file: CUDA and NVTX capture are not available"}, \
    d["report"]
s = d["sampler"]
assert s["interval_ms"] == 20 and s["file"] == "metrics.jsonl"
assert s["gpu_status"] == "NVML found no GPU", s

lines = [json.loads(l) for l in open("nogpu/metrics.jsonl")]
h, samples, end = lines[0], lines[1:-1], lines[-1]
assert h["schema"] == "gpuprof.metrics/1" and h["interval_ms"] == 20
assert h["watched_pid"] == d["pid"] and h["gpu_status"] == "NVML found no GPU"
assert end["end"] is True and end["samples"] == len(samples) == s["samples"]
assert len(samples) >= 10, len(samples)
for x in samples:
    assert x["schema"] == "gpuprof.sample/1" and x["gpus"] == []
    assert x["host"]["memory_total_bytes"] > 0 and x["host"]["cpu_count"] >= 1
    assert x["host"]["process_tree"]["pid"] == d["pid"]
cores = [x["host"]["process_tree"]["cpu_cores"] for x in samples]
assert max(c for c in cores if c is not None) > 0.3, cores
t = [x["time_monotonic_ns"] for x in samples]
assert t == sorted(t) and t[0] >= d["start_monotonic_ns"]
assert not [f for f in os.listdir("nogpu") if f not in ("run.json", "metrics.jsonl")]
EOF

# --- two fake GPUs
expect_rc 0 run --quiet -o gpus --sample-ms 20 -- python3 burn.py 0.3
python3 - <<'EOF' || fail "metrics with the fake GPUs"
import json
d = json.load(open("gpus/run.json"))
assert d["sampler"]["gpu_status"] is None
lines = [json.loads(l) for l in open("gpus/metrics.jsonl")]
assert lines[0]["driver_version"] == "999.99.fake" and lines[0]["gpu_status"] is None
for x in lines[1:-1]:
    assert [g["name"] for g in x["gpus"]] == ["Fake GPU H100 0", "Fake GPU H100 1"]
    assert x["gpus"][0]["memory_total_bytes"] == 80 << 30
EOF

# --- the process tree: sh starting two CPU burners is followed through its children
expect_rc 0 run --quiet -o tree --sample-ms 50 -- \
	sh -c 'python3 burn.py 1.2 & python3 burn.py 1.2 & wait'
python3 - <<'EOF' || fail "the process tree's CPU"
import json
lines = [json.loads(l) for l in open("tree/metrics.jsonl")]
pt = [x["host"]["process_tree"] for x in lines[1:-1]]
assert max(p["processes"] for p in pt) >= 3, pt
cores = [p["cpu_cores"] for p in pt if p["cpu_cores"] is not None]
# sh itself sleeps in wait: the CPU is its children's
assert max(cores) > 0.5, cores
EOF

# --- --sample-ms 0: no sampler, no metrics.jsonl
expect_rc 0 run --quiet -o nosample --sample-ms 0 -- true
[ -e nosample/metrics.jsonl ] && fail "metrics.jsonl with --sample-ms 0"
[ "$(json_get nosample/run.json 'd["sampler"]')" = \
	"{'file': None, 'gpu_status': None, 'interval_ms': None, 'samples': 0}" ] ||
	fail "run.json sampler with --sample-ms 0: $(json_get nosample/run.json 'd["sampler"]')"

# --- exec failure after the PATH lookup: a #! interpreter that does not exist
printf '#!/nonexistent/interpreter\n' >badexec.sh
chmod 755 badexec.sh
expect_rc 127 run --quiet -o badexec -- ./badexec.sh
err_has "cannot run './badexec.sh': No such file or directory"
[ "$(json_get badexec/run.json 'd["state"]')" = exec_failed ] || fail "state exec_failed"
[ "$(json_get badexec/run.json 'd["exec_error"]')" = "No such file or directory" ] ||
	fail "exec_error"

echo "ok: $NCHECK gpuprof runs"
