#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0342-gpu-run-pytorch.sh (label gpu) - `gpuprof run --pytorch modules,shapes` on a CUDA
# PyTorch: a Sequential of Linear(1024, 512) + GELU + Linear(512, 256), 6 forwards of a
# [64, 1024] batch on the GPU. PyTorch's emit_nvtx op ranges reach the tracer through the
# NVTX injection and the reader makes them CPU ops: `cpu_ops` of `gpuprof analyze --json`
# lists aten::addmm (2 per forward), and no range row is an op range (they are not ranges);
# the raw capture (an independent decode of its NVTX records) holds the addmm ranges with
# PyTorch's sizes, "[[512], [64, 1024], [1024, 512], [], []]"; the module ranges are
# "nn.Module: Linear_0" ... as on the CPU (t0340); the kernels run inside the forwards; when
# the roofline analysis is there, it has an aten::addmm row with those input_dims.
# Skips (77) without nvidia-smi or a GPU, without PyTorch with CUDA, or when the build's
# tracer records no NVTX (built without the CUDA toolkit).
. "$(dirname "$0")/lib.sh"
need python3 nvidia-smi
nvidia-smi -L >/dev/null 2>&1 || { echo "skip: nvidia-smi finds no GPU"; exit 77; }
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
	{ echo "skip: no PyTorch with CUDA"; exit 77; }
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
[ -e "$B/libgpuprof-inject.so" ] || { echo "skip: no $B/libgpuprof-inject.so"; exit 77; }
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
export PYTHONDONTWRITEBYTECODE=1

cat >"$TMP/mlp.py" <<'PYEOF'
import torch
from torch import nn
m = nn.Sequential(nn.Linear(1024, 512), nn.GELU(), nn.Linear(512, 256)).cuda()
x = torch.randn(64, 1024, device="cuda")
with torch.no_grad():
    for _ in range(6):
        y = m(x)
torch.cuda.synchronize()
print("mlp ok", tuple(y.shape))
PYEOF
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --sample-ms 0 --pytorch modules,shapes -o "$TMP/run" -- \
	python3 "$TMP/mlp.py" >"$TMP/mlp.out" 2>"$ERR"
rc=$?
[ "$rc" -eq 0 ] || fail "gpuprof run exited $rc"
[ "$(cat "$TMP/mlp.out")" = "mlp ok (64, 256)" ] || fail "output: $(cat "$TMP/mlp.out")"
[ "$(json_get "$TMP/run/run.json" 'd["injector"]["nvtx"]')" = True ] ||
	{ echo "skip: this build's tracer records no NVTX"; exit 77; }
[ ! -s "$ERR" ] || { echo "--- stderr of gpuprof run --quiet:"; cat "$ERR"; }
set -- "$TMP/run"/capture-*.gpcap
[ $# -eq 1 ] || fail "expected one capture, got: $*"

# the raw capture: PyTorch's op ranges with sizes, in the default domain
python3 - "$1" <<'PYEOF' || fail "the capture's op ranges"
import struct, sys
b = open(sys.argv[1], "rb").read()
off, msgs = struct.unpack_from("<I", b, 12)[0], []
while off + 8 <= len(b):
    typ, size = struct.unpack_from("<II", b, off)
    p = b[off + 8:off + 8 + size]
    off += 8 + (size + 7) // 8 * 8
    if typ == 13 and p[12] == 1 and struct.unpack_from("<I", p, 16)[0] == 0:
        msgs.append(p[40:].decode("utf-8", "replace"))
addmm = [m for m in msgs if m.startswith("aten::addmm, ")]
assert len(addmm) == 12, (len(addmm), msgs[:20])
assert sum("sizes = [[512], [64, 1024], [1024, 512], [], []]" in m for m in addmm) == 6, addmm
print("op ranges:", len(msgs), "first:", msgs[:3])
PYEOF

expect_rc 0 analyze --json "$TMP/run"
json_ok "$OUT"
python3 - "$OUT" <<'PYEOF' || fail "analyze"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
ops = {o["name"]: o for o in r["cpu_ops"]}
assert "aten::addmm" in ops, sorted(ops)
print("cpu_ops:", {k: v.get("count") for k, v in list(ops.items())[:8]})
rows = [x["name"] for x in r.get("ranges") or []]
assert not [n for n in rows if n.startswith("aten::") or "nn.Module" in n], rows
rf = r.get("roofline")
if rf and rf.get("ops"):
    dims = {(o["name"], o["input_dims"]) for o in rf["ops"]}
    assert ("aten::addmm", "[[512], [64, 1024], [1024, 512], [], []]") in dims, dims
    print("roofline:", rf["ops"][:2])
m = r.get("modules")
if m is not None:
    cls = {c["name"]: c for c in m["classes"]}
    assert cls["Linear"]["gpu_time_ns"] > 0, cls
    print("modules:", m["classes"])
PYEOF
done_ok
