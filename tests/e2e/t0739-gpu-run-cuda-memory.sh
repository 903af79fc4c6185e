#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0739-gpu-run-cuda-memory.sh (label gpu) - `gpuprof run` records the allocations and frees
# of a real CUDA program through CUPTI's MEMORY2 records: tests/gpu/cuda_mem.cu (built here with
# nvcc) does cudaMalloc, cudaMallocAsync/cudaFreeAsync from the default pool, cudaMallocHost,
# a cudaMalloc on a second thread, and leaks one 3 MiB block; it prints what it did as JSON,
# which the capture must match:
#   - every allocation of the program is in the capture once, with its address and size, the
#     memory kind (device, pinned host), the async flag of cudaMallocAsync/cudaFreeAsync, and
#     the correlation id of the call that made it (an API record of that name); each free
#     likewise, with the same address; the leak has no free before the program's end;
#   - `analyze --json`: device 0's allocations and frees, peak (13 MiB from the program's own
#     allocations) and bytes at the end (3 MiB: the leak) when the program's are the device's
#     only ones (at least that otherwise); the pinned block on the CPU row; no allocation left
#     on the main thread for want of its call (cuda_memory_unplaced 0);
#   - each allocation is on the thread that made it (the export's [memory] events): the
#     worker's 4 MiB on the worker's thread;
#   - the never-freed allocations of device 0 (`unfreed`) are the leak, 3 MiB in one
#     allocation, when the program's are the device's only ones (at least that otherwise);
#     the pinned block, freed, is not among the CPU row's.
# Skips (77) without nvidia-smi or a GPU, without nvcc, or when the build has no injector.
# The CUPTI library: as need_cuda_gpu (lib.sh) finds it.
. "$(dirname "$0")/lib.sh"
need_cuda_gpu
unset GPUPROF_CUDA_MEMORY

APP="$TMP/cuda_mem"
NCHECK=$((NCHECK + 1))
"$NVCC" -O2 -arch=native -Xcompiler -pthread -o "$APP" "$GP_SRC_DIR/tests/gpu/cuda_mem.cu" \
	>"$TMP/nvcc.log" 2>&1 || { cat "$TMP/nvcc.log"; fail "nvcc could not build tests/gpu/cuda_mem.cu"; }

NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet -o "$TMP/run" -- "$APP" >"$TMP/app.json" 2>"$ERR" ||
	fail "gpuprof run -- cuda_mem failed"
json_ok "$TMP/app.json"
set -- "$TMP/run"/capture-*.gpcap
[ $# -eq 1 ] && [ -s "$1" ] || fail "expected one capture file, got: $*"
CAP=$1

# the records as the tracer wrote them
NCHECK=$((NCHECK + 1))
python3 - "$CAP" "$TMP/app.json" <<'EOF' || fail "the capture's MEM records against cuda_mem's"
import json, os, sys
sys.path.insert(0, os.environ["GP_SRC_DIR"] + "/tests/e2e")
sys.dont_write_bytecode = True
from capmem import mem_records
mem, api = mem_records(sys.argv[1])
app = json.load(open(sys.argv[2]))
print("%d MEM records, %d API records; cuda_mem on %s" % (len(mem), len(api), app["device"]))
for x in app["allocs"]:
    al = [m for m in mem if m["addr"] == x["addr"] and m["op"] == 1 and m["bytes"] == x["bytes"]]
    assert len(al) == 1, (x, al)
    a = al[0]
    assert a["kind"] == (2 if x["host"] else 3), (x, a)
    assert bool(a["flags"] & 1) == x["async"], (x, a)
    assert api.get(a["corr"], {}).get("name") == x["call"], (x, a, api.get(a["corr"]))
    assert api[a["corr"]]["tid"] == x["tid"], (x, api[a["corr"]])
    fr = [m for m in mem if m["addr"] == x["addr"] and m["op"] == 2 and m["ts"] >= a["ts"]]
    if x["free_call"] is None:  # the leak: no free while the program ran
        assert not [m for m in fr if m["ts"] <= app["end_ns"]], (x, fr)
        continue
    assert fr, ("no free of", x)
    f = min(fr, key=lambda m: m["ts"])
    assert f["ts"] <= app["end_ns"], (x, f)
    assert f["bytes"] == x["bytes"] and bool(f["flags"] & 1) == x["async"], (x, f)
    assert api.get(f["corr"], {}).get("name") == x["free_call"], (x, f, api.get(f["corr"]))
EOF

# the analysis
expect_rc 0 analyze --json "$TMP/run"
json_ok "$OUT"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/app.json" "$CAP" <<'EOF' || fail "the memory section against cuda_mem's"
import json, os, sys
sys.path.insert(0, os.environ["GP_SRC_DIR"] + "/tests/e2e")
sys.dont_write_bytecode = True
from capmem import mem_records
d, app = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
mem, _ = mem_records(sys.argv[3])
MIB = 1 << 20
r = [r for r in d["ranks"] if r["overview"]["capture"]][0]
cap = r["overview"]["capture"]
assert cap["cuda_memory_unplaced"] == 0, cap
dev = {x["device"]: x for x in r["memory"]["devices"]}
d0 = dev[0]
ours = {x["addr"] for x in app["allocs"] if not x["host"]}
others = [m for m in mem if m["device"] == 0 and m["kind"] in (3, 4, 5) and m["addr"] not in ours]
n_al = sum(1 for x in app["allocs"] if not x["host"])
n_fr = sum(1 for x in app["allocs"] if not x["host"] and x["free_call"])
print("device 0: peak %d, end %d, %d allocations, %d frees; %d records not the program's" %
      (d0["peak_allocated_bytes"], d0["final_allocated_bytes"], d0["alloc_count"],
       d0["free_count"], len(others)))
if not others:
    assert (d0["alloc_count"], d0["free_count"]) == (n_al, n_fr), d0
    assert d0["peak_allocated_bytes"] == 13 * MIB, d0
    assert d0["final_allocated_bytes"] == 3 * MIB, d0
else:
    assert d0["alloc_count"] >= n_al and d0["free_count"] >= n_fr, d0
    assert d0["peak_allocated_bytes"] >= 13 * MIB, d0
assert dev["cpu"]["alloc_count"] >= 1 and dev["cpu"]["peak_allocated_bytes"] >= 64 << 10, dev
u = d0["unfreed"]  # the leak, never freed
print("device 0 unfreed: %d bytes in %d allocations" % (u["bytes"], u["allocations"]))
if not others:
    assert (u["bytes"], u["allocations"]) == (3 * MIB, 1), u
    assert [(r["bytes"], r["allocations"]) for r in u["rows"]] == [(3 * MIB, 1)], u
    assert d["ranks"] and r["memory"]["pairing"]["frees_unmatched"] == 0, r["memory"]["pairing"]
else:
    assert u["bytes"] >= 3 * MIB, u
hosts = {x["addr"] for x in app["allocs"] if x["host"]}
if not [m for m in mem if m["kind"] in (1, 2) and m["addr"] not in hosts]:
    assert dev["cpu"]["unfreed"]["bytes"] == 0, dev["cpu"]  # the pinned block was freed
EOF

# each allocation on the thread that made it
NCHECK=$((NCHECK + 1))
"$GPUPROF" export --format chrome -o "$TMP/chrome.json" "$CAP" >/dev/null 2>"$ERR" ||
	fail "export of the capture"
python3 - "$TMP/chrome.json" "$TMP/app.json" <<'EOF' || fail "the threads of the allocations"
import json, sys
d, app = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ev = [e for e in d["traceEvents"] if e.get("name") == "[memory]"]
for x in app["allocs"]:
    hit = [e for e in ev if e["args"].get("Addr") == x["addr"] and e["args"]["Bytes"] == x["bytes"]]
    assert len(hit) == 1, (x, hit)
    assert hit[0]["tid"] == x["tid"], (x, hit[0])
    assert hit[0]["args"]["Device Type"] == (0 if x["host"] else 1), (x, hit[0])
assert any(x["tid"] == app["worker_tid"] != app["main_tid"] for x in app["allocs"])
EOF
done_ok
