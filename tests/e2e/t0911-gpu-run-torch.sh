#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0911-gpu-run-torch.sh (label gpu) - `gpuprof run` on a PyTorch inference loop,
# tests/gpu/torch_loop.py (launch-bound MLP, 35 steps with torch.cuda.nvtx
# ranges "step" > "forward", a synchronize every 4 steps, exit code 7).
# tests/gpu/check_torch_run.py checks: the exit code passes through (and is in
# run.json); the python process has one complete capture (END "exit", CUPTI
# loaded, nothing dropped) and it is the only one with kernels; at least
# steps x (2 x layers + 1) kernels; "step" and "forward" ranges counted once per
# step; "forward" projects >= steps x 2 x layers GPU ops and "step" at least one
# more per step (the sum outside "forward"); cudaDeviceSynchronize calls >= the
# loop's syncs. The loop's output and exit code are the same without gpuprof.
# Skips (77) without nvidia-smi or a GPU, without PyTorch with CUDA, or when the
# build has no injector (libgpuprof-inject.so: built without the CUDA toolkit).
. "$(dirname "$0")/lib.sh"
need python3 nvidia-smi
nvidia-smi -L >/dev/null 2>&1 || { echo "skip: nvidia-smi finds no GPU"; exit 77; }
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
	{ echo "skip: no PyTorch with CUDA"; exit 77; }
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
[ -e "$B/libgpuprof-inject.so" ] ||
	{ echo "skip: no $B/libgpuprof-inject.so (built without the CUDA toolkit)"; exit 77; }
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

LOOP="$GP_SRC_DIR/tests/gpu/torch_loop.py"
ARGS=(launch --steps 30 --warmup 5 --sync-every 4 --exit-code 7)

# without gpuprof
NCHECK=$((NCHECK + 1))
python3 "$LOOP" "${ARGS[@]}" >"$TMP/plain.json" 2>"$ERR"
rc=$?
[ "$rc" -eq 7 ] || fail "torch_loop.py alone exited $rc, expected 7"

# under gpuprof run: the exit code passes through
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet -o "$TMP/run" -- python3 "$LOOP" "${ARGS[@]}" >"$TMP/loop.json" 2>"$ERR"
rc=$?
[ "$rc" -eq 7 ] || fail "gpuprof run -- python3 torch_loop.py exited $rc, expected 7"
[ ! -s "$ERR" ] || { echo "--- stderr of gpuprof run --quiet:"; cat "$ERR"; }
json_ok "$TMP/loop.json"

NCHECK=$((NCHECK + 1))
python3 - "$TMP/plain.json" "$TMP/loop.json" <<'EOF' || fail "the loop's output differs under gpuprof"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("measured_ns", "per_iter_ns"):
    a.pop(k), b.pop(k)
assert a == b, (a, b)
EOF

NCHECK=$((NCHECK + 1))
python3 "$GP_SRC_DIR/tests/gpu/check_torch_run.py" "$GPUPROF" "$TMP/run" "$TMP/loop.json" ||
	fail "the capture does not match what torch_loop.py did (above)"
expect_rc 0 analyze "$TMP/run"
out_has "forward"
done_ok
