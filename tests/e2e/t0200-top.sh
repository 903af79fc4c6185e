#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0200-top.sh - gpuprof top: JSON lines, the recorded timeline, why there is
# no GPU, the fake NVML through GPUPROF_NVML_LIBRARY, Prometheus over HTTP
# (validated by promtool, concurrent and slow and malformed clients) and
# into a textfile.
. "$(dirname "$0")/lib.sh"
need python3

FAKE="${GP_BUILD_DIR:-$GP_SRC_DIR/build}/tests/fake/libfake-nvml.so"
[ -f "$FAKE" ] || { echo "skip: no $FAKE"; exit 77; }

# --- no NVML at all: works, and says why
GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
	expect_rc 0 top --json --count 3 --interval 20
err_has "no GPU shown: no NVML"
python3 - "$OUT" <<'EOF' || fail "bad JSON lines without a GPU"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, lines
seqs = []
for l in lines:
    d = json.loads(l)
    assert d["schema"] == "gpuprof.sample/1"
    assert d["gpus"] == []
    h = d["host"]
    assert h["memory_total_bytes"] >= h["memory_available_bytes"] > 0
    assert h["cpu_count"] >= 1
    seqs.append(d["seq"])
assert seqs == sorted(seqs) and len(set(seqs)) == 3
# the CPU share needs two readings: null first, a ratio after
assert json.loads(lines[0])["host"]["cpu_busy_ratio"] is None
b = json.loads(lines[2])["host"]["cpu_busy_ratio"]
assert b is None or 0 <= b <= 1
EOF

expect_rc 0 top --json --count 1 --no-gpu
err_has "GPU sampling disabled"

# --- the fake NVML: two GPUs with scripted values
export GPUPROF_NVML_LIBRARY="$FAKE"
expect_rc 0 top --json --count 4 --interval 10
python3 - "$OUT" <<'EOF' || fail "bad JSON lines with the fake NVML"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 4
g = lines[-1]["gpus"]
assert [x["name"] for x in g] == ["Fake GPU H100 0", "Fake GPU H100 1"]
assert g[0]["memory_total_bytes"] == 80 << 30 and g[1]["memory_total_bytes"] == 40 << 30
assert g[0]["power_limit_watts"] == 700 and g[0]["temperature_slowdown_celsius"] == 87
assert 0 <= g[0]["utilization_gpu_ratio"] <= 1
assert g[0]["pcie_tx_bytes_per_second"] > 0
assert [p["pid"] for p in g[1]["processes"]] == [1010, 1011]
assert g[0]["error"] is None
for k in ("memory_used_bytes", "power_watts", "clock_sm_hertz", "energy_joules"):
    assert isinstance(g[0][k], (int, float)), k
EOF

# a GPU lost mid-run is reported and survived
FAKE_NVML_LOST=1:2 expect_rc 0 top --json --count 4 --interval 10
python3 - "$OUT" <<'EOF' || fail "a lost GPU was not reported"
import json, sys
last = [json.loads(l) for l in open(sys.argv[1])][-1]
assert last["gpus"][0]["error"] is None
assert "lost" in last["gpus"][1]["error"]
assert last["gpus"][1]["memory_used_bytes"] is None
EOF

# --- the recorded timeline
expect_rc 0 top --record "$TMP/metrics.jsonl" --count 5 --interval 10
err_has "5 samples written"
python3 - "$TMP/metrics.jsonl" <<'EOF' || fail "bad --record file"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["schema"] == "gpuprof.metrics/1"
assert lines[0]["interval_ms"] == 10 and lines[0]["gpu_status"] is None
assert lines[0]["driver_version"] == "999.99.fake"
samples = lines[1:-1]
assert len(samples) == 5 and all(s["schema"] == "gpuprof.sample/1" for s in samples)
assert lines[-1]["end"] is True and lines[-1]["samples"] == 5
t = [s["time_monotonic_ns"] for s in samples]
assert t == sorted(t)
EOF

expect_rc 2 top --interval 0
expect_rc 2 top --interval 60001
expect_rc 2 top --json --record "$TMP/x"
expect_rc 2 top --bogus
expect_rc 1 top --record /nonexistent/dir/file --count 1
if [ -w /dev/full ]; then
	expect_rc 1 top --record /dev/full --count 2 --interval 10
	err_has "cannot write '/dev/full'"
	"$GPUPROF" top --json --count 2 --interval 10 >/dev/full 2>"$ERR"
	[ $? -eq 1 ] || fail "top --json to a full disk should fail"
	err_has "cannot write to standard output"
fi

# --- Prometheus over HTTP
need promtool
port=$((20000 + $$ % 20000))
# 16 concurrent scrapes below come from one address: past the default limit of 8
RANK=3 LOCAL_RANK=1 SLURM_JOB_ID=77 "$GPUPROF" top --listen "127.0.0.1:$port" --interval 50 \
	--listen-per-address 32 >"$TMP/listen.out" 2>"$TMP/listen.err" &
pid=$!
python3 - "$port" "$TMP" <<'EOF' || { kill "$pid"; fail "the /metrics endpoint misbehaved"; }
import socket, subprocess, sys, threading, time, urllib.request
port, tmp = int(sys.argv[1]), sys.argv[2]
url = f"http://127.0.0.1:{port}"

def get(path):
    with urllib.request.urlopen(url + path, timeout=5) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()

# up, and until the host CPU share is there (two reads of /proc/stat, 250 ms apart)
for _ in range(100):
    try:
        st, ctype, body = get("/metrics")
        if "gpuprof_host_cpu_busy_ratio" in body:
            break
    except OSError:
        pass
    time.sleep(0.05)
else:
    sys.exit("server did not come up, or no host CPU share within 5 s")
assert st == 200 and ctype.startswith("text/plain; version=0.0.4"), ctype
for name in ("gpuprof_gpu_memory_used_bytes", "gpuprof_gpu_utilization_ratio",
             "gpuprof_gpu_power_watts", "gpuprof_gpu_energy_joules_total",
             "gpuprof_gpu_temperature_celsius", "gpuprof_gpu_sm_clock_hertz",
             "gpuprof_host_cpu_busy_ratio", "gpuprof_gpu_clock_event_active"):
    assert name in body, name
assert 'modelName="Fake GPU H100 0"' in body and 'UUID="GPU-fake' in body
assert 'rank="3"' in body and 'local_rank="1"' in body and 'job="77"' in body
assert "# TYPE gpuprof_gpu_energy_joules_total counter" in body
# promtool: the format must parse; its only lint may be the camelCase of the
# dcgm-exporter labels (UUID, modelName, Hostname) that the issue asks for
p = subprocess.run(["promtool", "check", "metrics"], input=body, text=True,
                   capture_output=True)
bad = [l for l in (p.stdout + p.stderr).splitlines()
       if l and "label names should be written in 'snake_case' not 'camelCase'" not in l]
assert p.returncode in (0, 3) and not bad, (p.returncode, bad)

# a slow client (half a request, then nothing) and a malformed one
slow = socket.create_connection(("127.0.0.1", port))
slow.sendall(b"GET /metr")
bad = socket.create_connection(("127.0.0.1", port))
bad.sendall(b"\x00\x01garbage\r\n\r\n")
bad.settimeout(5)
try:
    bad.recv(100)
except OSError:
    pass
# concurrent scrapes, while those two hang around
res = []
def scrape():
    try:
        res.append(get("/metrics")[0])
    except Exception as e:
        res.append(repr(e))
ts = [threading.Thread(target=scrape) for _ in range(16)]
[t.start() for t in ts]
[t.join() for t in ts]
assert res == [200] * 16, res
# the sampler went on meanwhile: the sample counter of two scrapes differs
a = get("/metrics")[2]
time.sleep(0.3)
b = get("/metrics")[2]
assert a != b
try:
    urllib.request.urlopen(url + "/nope", timeout=5)
    sys.exit("404 expected")
except urllib.error.HTTPError as e:
    assert e.code == 404
slow.close()
EOF
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "top --listen exited $rc on SIGTERM"
grep -qF "serving Prometheus metrics on http://127.0.0.1:$port/metrics" "$TMP/listen.err" ||
	fail "no serving message"

"$GPUPROF" top --listen 127.0.0.1:notaport >"$OUT" 2>"$ERR"
[ $? -eq 2 ] || fail "a bad --listen is a usage error"

# --- the textfile collector
mkdir "$TMP/tf"
"$GPUPROF" top --textfile "$TMP/tf" --interval 20 --duration 1 >"$OUT" 2>"$ERR" ||
	fail "top --textfile failed"
[ -s "$TMP/tf/gpuprof.prom" ] || fail "no gpuprof.prom written"
ls "$TMP/tf" | grep -v '^gpuprof.prom$' && fail "temporary files left behind"
promtool check metrics <"$TMP/tf/gpuprof.prom" 2>&1 |
	grep -v "label names should be written in 'snake_case' not 'camelCase'" | grep . &&
	fail "promtool rejects the textfile"

# a label value that is not UTF-8 and is cut at its buffer's end inside a 2-byte character:
# the exposition stays UTF-8 (U+FFFD for the bad bytes, the cut at a character's end)
mkdir "$TMP/tf8"
job="x$(printf '\377\303')y$(printf 'é%.0s' $(seq 300))"
SLURM_JOB_ID="$job" "$GPUPROF" top --textfile "$TMP/tf8" --interval 20 --duration 1 \
	>"$OUT" 2>"$ERR" || fail "top --textfile with a job label failed"
python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")  # strict
assert "job=\"x\ufffd\ufffdyé" in t, t[:300]
' "$TMP/tf8/gpuprof.prom" || fail "the textfile with a bad job label is not UTF-8"
promtool check metrics <"$TMP/tf8/gpuprof.prom" 2>&1 |
	grep -v "label names should be written in 'snake_case' not 'camelCase'" | grep . &&
	fail "promtool rejects the textfile with the job label"

echo "ok: $NCHECK gpuprof runs"
