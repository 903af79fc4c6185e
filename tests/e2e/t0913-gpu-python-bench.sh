#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0913-gpu-python-bench.sh (label gpu) - gpuprof.bench() with real PyTorch on a GPU:
# a matmul loop is timed with CUDA events (tag clock=cuda_event), warm-up excluded,
# peak memory per iteration recorded (torch.cuda.max_memory_allocated after a
# reset: at least the three 2048x2048 fp32 tensors, 48 MiB) and at its end (the two
# inputs, 32 MiB, the same every time: the product is freed); the event times agree
# with a synchronised perf_counter loop over the same work within 15 % (medians);
# a 4x larger matmul is a regression for `gpuprof compare` (exit 3), the same
# function against itself is not. Skips (77) without a GPU or PyTorch with CUDA.
. "$(dirname "$0")/lib.sh"
need python3 nvidia-smi
nvidia-smi -L >/dev/null 2>&1 || { echo "skip: nvidia-smi finds no GPU"; exit 77; }
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
	{ echo "skip: no PyTorch with CUDA"; exit 77; }
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
LIB="${GP_LIBGPUPROF:-$B/libgpuprof.so}"
[ -e "$LIB" ] || { echo "skip: no $LIB"; exit 77; }
case "${GP_SANITIZED:-}" in 1) echo "skip: sanitizer build (python3 cannot load it)"; exit 77 ;; esac
export GPUPROF_LIBRARY="$LIB"

NCHECK=$((NCHECK + 1))
python3 - "$GP_SRC_DIR/python" "$TMP" <<'EOF2' || fail "gpuprof.bench on the GPU (above)"
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import gpuprof
import torch

tmp = sys.argv[2]
n = 2048
a = torch.randn(n, n, device="cuda")
b = torch.randn(n, n, device="cuda")

def mm():
    return a @ b

doc = gpuprof.bench(mm, warmup=5, iters=40, batch_size=1, rate_name="matmuls/s",
                    json_path=tmp + "/base.json", show=False)
s = doc["series"][0]
assert doc["tags"]["clock"] == "cuda_event", doc["tags"]
assert s["n"] == 40 and s["warmup"] == 5, s
assert s["peak_memory_bytes"] and min(s["peak_memory_bytes"]) >= 3 * n * n * 4, s["peak_memory_bytes"][:3]
# at each iteration's end the product is freed: a and b stay (32 MiB), the same every time
end = s["memory_at_end_bytes"]
assert end and min(end) >= 2 * n * n * 4 and len(set(end)) == 1, end[:3]
assert all(e < p for e, p in zip(end, s["peak_memory_bytes"])), (end[:3], s["peak_memory_bytes"][:3])
med = s["stats"]["median_ns"]
ref = []
for _ in range(40):
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    mm()
    torch.cuda.synchronize()
    ref.append(time.perf_counter_ns() - t0)
rmed = statistics.median(ref)
assert abs(med - rmed) <= 0.15 * rmed, (med, rmed)
gpuprof.bench(mm, warmup=5, iters=40, json_path=tmp + "/base2.json", show=False)
a4 = torch.randn(2 * n, 2 * n, device="cuda")
b4 = torch.randn(2 * n, 2 * n, device="cuda")
gpuprof.bench(lambda: a4 @ b4, warmup=5, iters=40, name="mm", json_path=tmp + "/new.json",
              show=False)
print("median %.1f us (events) vs %.1f us (synchronised perf_counter)" % (med / 1e3, rmed / 1e3))
EOF2
expect_rc 3 compare "$TMP/base.json" "$TMP/new.json"
expect_rc 0 compare --json "$TMP/base.json" "$TMP/base2.json"
[ "$(json_get "$OUT" '[(m["test"], m["verdict"]) for m in d["groups"][0]["metrics"] if m["metric"] == "memory_at_end"]')" = \
	"[('exact', 'same')]" ] || fail "memory at end: compared exactly"
done_ok
