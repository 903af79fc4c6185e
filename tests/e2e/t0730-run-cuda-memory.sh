#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0730-run-cuda-memory.sh - CUDA allocations and frees under `gpuprof run`, without a GPU:
# tests/inject/mem_sim emits runtime API records and CUPTI MEMORY2 records (cudaMalloc,
# cudaMallocAsync from a pool, cudaMallocManaged, cudaMallocHost, frees, two never freed, two
# whose API call is not in the capture, a module's static variable) through the fake CUPTI.
#   - the capture's MEM records (type 21) hold what CUPTI gave: operation, kind, address,
#     bytes, device, stream, async flag, pool, correlation id of the call;
#   - `analyze --json` memory section: per device the events, allocations and frees, the
#     peak and the bytes at the end (device 0: 7 MiB peak, 4 MiB left; device 1: 4 MiB, 3 MiB;
#     the pinned host allocation on the CPU row); the static variable left out and counted;
#     the allocations paired with their frees by address, and the never-freed ones listed per
#     device with their sizes (B 4 MiB, D 3 MiB, H 64 KiB);
#   - each allocation is on the thread of its call (the export's [memory] events), the two
#     without a call on the main thread, with a warning;
#   - CUPTI refusing MEMORY2 (FAKE_CUPTI_NO_KINDS=49): a warning, everything else recorded;
#     GPUPROF_CUDA_MEMORY=0: MEMORY2 not enabled, no warning, no memory section.
# Skipped where the CUDA toolkit was absent at build time.
. "$(dirname "$0")/lib.sh"
need python3
use_tracer mem_sim
FAKE="$B/tests/fake/libfake-cupti.so"
[ -e "$FAKE" ] || { echo "skip: no $FAKE"; exit 77; }

# --- gpuprof run, end to end
NCHECK=$((NCHECK + 1))
APP_INJ="$B/libgpuprof-inject.so"
"$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/run" -- "$APP" "$APP_INJ" "$FAKE" \
	>"$TMP/app.out" 2>"$TMP/app.err" || fail "gpuprof run -- mem_sim: $(cat "$TMP/app.err")"
grep -q "^memory2 1$" "$TMP/app.out" || fail "MEMORY2 not enabled: $(cat "$TMP/app.out")"
grep -q "checks ok" "$TMP/app.out" || fail "mem_sim: $(cat "$TMP/app.err")"
set -- "$TMP/run"/capture-*.gpcap
[ $# -eq 1 ] && [ -s "$1" ] || fail "expected one capture file, got: $*"
CAP=$1

# the records as written: type 21, struct gp_cap_mem (src/lib/source/capfmt.h)
NCHECK=$((NCHECK + 1))
python3 - "$CAP" <<'EOF' || fail "the capture's MEM records"
import sys
sys.path.insert(0, __import__("os").environ["GP_SRC_DIR"] + "/tests/e2e")
sys.dont_write_bytecode = True
from capmem import mem_records
mem, api = mem_records(sys.argv[1])
MIB = 1 << 20
assert len(mem) == 12, len(mem)  # the static variable is in the capture, left out by the reader
by = {(m["addr"], m["op"]): m for m in mem}
a = by[(0x7f0000000000, 1)]
assert a["bytes"] == MIB and a["kind"] == 3 and a["device"] == 0 and a["flags"] == 0, a
assert a["stream"] == 0xffffffff and a["pool_type"] == 0, a
assert api[a["corr"]]["name"] == "cudaMalloc", api[a["corr"]]
c = by[(0x7f1000000000, 1)]
assert c["flags"] == 1 and c["stream"] == 7 and c["pool_type"] == 1, c
assert c["pool_addr"] == 0x7f1000000000 and c["pool_size"] == 32 * MIB, c
assert c["pool_used"] == 2 * MIB, c
f = by[(0x7f1000000000, 2)]
assert f["op"] == 2 and f["bytes"] == 2 * MIB and f["flags"] == 1, f
assert api[c["corr"]]["name"] == "cudaMallocAsync" and api[f["corr"]]["name"] == "cudaFreeAsync"
assert by[(0x7f2000000000, 1)]["kind"] == 5  # managed
h = by[(0x7f4000000000, 1)]
assert h["kind"] == 2 and h["bytes"] == 64 << 10 and h["context"] == 0xffffffff, h
assert by[(0x7f5000000000, 1)]["kind"] == 6  # device static
b_ = by[(0x7f0000200000, 1)]
assert api[b_["corr"]]["tid"] == b_["pid"] + 1, "B's call is on the other thread"
assert by[(0x7f3000400000, 1)]["corr"] == 777777 and 777777 not in api
EOF

# the analysis
expect_rc 0 analyze --json "$TMP/run"
json_ok "$OUT"
cp "$OUT" "$TMP/run.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/run.json" <<'EOF' || fail "the memory section of the capture"
import json, sys
d = json.load(open(sys.argv[1]))
caps = [r for r in d["ranks"] if r["overview"]["capture"]]
assert len(caps) == 1, len(caps)
r = caps[0]
MIB = 1 << 20
mem = r["memory"]
assert mem["events"] == 11, mem["events"]
dev = {x["device"]: x for x in mem["devices"]}
assert set(dev) == {0, 1, "cpu"}, dev.keys()
want = {0: (4, 3, 7 * MIB, 4 * MIB), 1: (2, 1, 4 * MIB, 3 * MIB), "cpu": (1, 0, 64 << 10, 64 << 10)}
for k, (na, nf, peak, end) in want.items():
    x = dev[k]
    got = (x["alloc_count"], x["free_count"], x["peak_allocated_bytes"], x["final_allocated_bytes"])
    assert got == (na, nf, peak, end), (k, got, (na, nf, peak, end))
    assert x["allocated_source"] == "bytes_sum" and x["peak_reserved_bytes"] is None, x
# never freed: B on device 0, D on device 1, the pinned H; the rest paired by address
p = mem["pairing"]
assert (p["paired"], p["frees_unmatched"], p["frees_lost"], p["without_address"]) == (4, 0, 0, 0), p
never = {0: 4 * MIB, 1: 3 * MIB, "cpu": 64 << 10}
for k, b in never.items():
    u = dev[k]["unfreed"]
    assert (u["bytes"], u["allocations"]) == (b, 1), (k, u)
    assert [(r["bytes"], r["allocations"]) for r in u["rows"]] == [(b, 1)], (k, u)
cap = r["overview"]["capture"]
assert cap["cuda_memory_events"] == 11 and cap["cuda_memory_unplaced"] == 2, cap
assert cap["cuda_memory_static"] == 1 and cap["cuda_memory_skipped"] == 0, cap
texts = [w["text"] for w in cap["warning_messages"]]
assert any(t.startswith("2 CUDA allocations and frees have no runtime or driver call") for t in texts), texts
assert not any("MEMORY2" in t for t in texts), texts
# everything else is there too
assert [k["name"] for k in r["kernels"]] == ["_Z6touchPf"], r["kernels"]
api = {x["name"]: x["count"] for x in r["api_calls"]}
assert api.get("cudaMalloc") == 3 and api.get("cudaFreeAsync") == 1, api
assert api.get("cudaMallocHost") == 1 and api.get("cudaMallocAsync") == 1, api
EOF

# each allocation on its call's thread: the export's [memory] events
NCHECK=$((NCHECK + 1))
"$GPUPROF" export --format chrome -o "$TMP/chrome.json" "$CAP" >/dev/null 2>"$ERR" ||
	fail "export of the capture"
python3 - "$TMP/chrome.json" <<'EOF' || fail "the threads of the allocations"
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if e.get("name") == "[memory]"]
assert len(ev) == 11, len(ev)
pid = ev[0]["pid"]
on = {}
for e in ev:
    a = e["args"]
    on.setdefault(e["tid"], []).append((a["Addr"], a["Bytes"], a.get("Device Id", -1), a["Device Type"]))
assert set(on) == {pid, pid + 1}, on.keys()
assert on[pid + 1] == [(0x7f0000200000, 4 << 20, 0, 1)], on[pid + 1]
assert (0x7f3000400000, 1 << 20, 1, 1) in on[pid] and (0x7f3000400000, -(1 << 20), 1, 1) in on[pid]
assert (0x7f4000000000, 64 << 10, -1, 0) in on[pid], on[pid]  # pinned host: the CPU row
EOF

# no_memory NAME WARNED VAR=VALUE: mem_sim under gpuprof run with VAR set: MEMORY2 is not
# enabled, the capture has no memory section, and a warning about MEMORY2 iff WARNED is 1;
# everything else is recorded
no_memory() {
	local name=$1 warned=$2
	NCHECK=$((NCHECK + 1))
	env "$3" "$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/$name" -- "$APP" "$APP_INJ" "$FAKE" \
		>"$TMP/app.out" 2>"$TMP/app.err" || fail "gpuprof run with $3: $(cat "$TMP/app.err")"
	grep -q "^memory2 0$" "$TMP/app.out" || fail "MEMORY2 enabled with $3"
	expect_rc 0 analyze --json "$TMP/$name"
	python3 - "$OUT" "$warned" <<'EOF' || fail "the capture with $3"
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["ranks"] if r["overview"]["capture"]][0]
assert r["memory"] is None, r["memory"]
texts = [w["text"] for w in r["overview"]["capture"]["warning_messages"]]
warned = [t for t in texts if t.startswith("cuptiActivityEnable(MEMORY2) failed") and
          "allocations and frees are not recorded" in t]
assert len(warned) == int(sys.argv[2]), texts
assert not any("MEMORY2" in t for t in texts if t not in warned), texts
assert [k["name"] for k in r["kernels"]] == ["_Z6touchPf"], r["kernels"]
EOF
}

# CUPTI refuses MEMORY2: the capture says so (analyze shows it), the rest is recorded
no_memory nomem 1 FAKE_CUPTI_NO_KINDS=49
expect_rc 0 analyze "$TMP/nomem"
out_has "cuptiActivityEnable(MEMORY2) failed"
# GPUPROF_CUDA_MEMORY=0: not recorded, and no warning about it
no_memory off 0 GPUPROF_CUDA_MEMORY=0
done_ok
