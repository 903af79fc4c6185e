#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0900-gpu-top.sh (label gpu) - gpuprof top against the real NVML: the memory
# total equals nvidia-smi's, utilisation and power rise under a matrix-multiply
# load this test starts (PyTorch), and /metrics carries the GPU series.
# Skips (77) without nvidia-smi, without a GPU or without PyTorch with CUDA.
. "$(dirname "$0")/lib.sh"
need nvidia-smi python3
unset GPUPROF_NVML_LIBRARY
nvidia-smi -L >/dev/null 2>&1 || { echo "skip: nvidia-smi finds no GPU"; exit 77; }
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
	{ echo "skip: no PyTorch with CUDA"; exit 77; }

# idle
expect_rc 0 top --json --count 5 --interval 200
cp "$OUT" "$TMP/idle.jsonl"
nvidia-smi --query-gpu=index,memory.total --format=csv,noheader,nounits >"$TMP/smi.csv"

# under load: a matrix multiply loop on GPU 0 for 8 s
python3 - <<'EOF' &
import time, torch
a = torch.randn(8192, 8192, device="cuda:0", dtype=torch.float16)
b = torch.randn(8192, 8192, device="cuda:0", dtype=torch.float16)
t = time.time()
while time.time() - t < 8:
    c = a @ b
torch.cuda.synchronize()
EOF
load=$!
sleep 3
expect_rc 0 top --json --count 5 --interval 200
cp "$OUT" "$TMP/busy.jsonl"
port=$((20000 + $$ % 20000))
"$GPUPROF" top --listen "127.0.0.1:$port" --interval 200 --duration 3 >/dev/null 2>&1 &
srv=$!
sleep 1
python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$port/metrics',timeout=5).read().decode())" >"$TMP/metrics.txt" ||
	fail "no /metrics"
wait "$srv"
wait "$load"

python3 - "$TMP" <<'EOF' || fail "real NVML numbers do not hold"
import json, sys
d = sys.argv[1]
idle = [json.loads(l) for l in open(f"{d}/idle.jsonl")]
busy = [json.loads(l) for l in open(f"{d}/busy.jsonl")]
smi = {int(i): int(m) for i, m in (l.split(",") for l in open(f"{d}/smi.csv"))}
for g in idle[-1]["gpus"]:
    mib = g["memory_total_bytes"] / 2**20
    assert abs(mib - smi[g["index"]]) <= 1, (g["index"], mib, smi[g["index"]])
    assert g["name"] and g["uuid"].startswith("GPU-") and g["pci_bus_id"], g
    print(f"GPU {g['index']} {g['name']}: total {mib:.0f} MiB (nvidia-smi {smi[g['index']]})")
def mx(samples, k):
    v = [s["gpus"][0][k] for s in samples if s["gpus"][0][k] is not None]
    return max(v) if v else None
ui, ub = mx(idle, "utilization_gpu_ratio"), mx(busy, "utilization_gpu_ratio")
pi, pb = mx(idle, "power_watts"), mx(busy, "power_watts")
print(f"GPU 0 utilisation idle {ui} busy {ub}; power idle {pi} W busy {pb} W")
assert ub is not None and ub >= 0.5 and (ui is None or ub > ui)
assert pb is not None and pi is not None and pb > pi * 1.2
m = open(f"{d}/metrics.txt").read()
for name in ("gpuprof_gpu_memory_used_bytes", "gpuprof_gpu_utilization_ratio",
             "gpuprof_gpu_power_watts", "gpuprof_gpu_temperature_celsius"):
    assert f'{name}{{gpu="0"' in m, name
EOF
echo "ok"
