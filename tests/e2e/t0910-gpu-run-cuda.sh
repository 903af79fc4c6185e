#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0910-gpu-run-cuda.sh (label gpu) - `gpuprof run` on a real CUDA program,
# tests/gpu/cuda_app.cu (built here with nvcc): 5 extern "C" kernels on the
# default stream and two created streams, H2D/D2H/D2D copies and memsets, NVTX
# ranges phase_a > inner and phase_b, a fork whose child annotates and exits,
# a range after the fork, exit code 5. The program prints what it launched as
# JSON; tests/gpu/check_cuda_run.py compares that with the capture:
#   - exit code 5 passes through (and is in run.json); the program's launches
#     and output are the same with and without gpuprof;
#   - one capture file for the parent, complete (END "exit", CUPTI loaded, no
#     dropped records); none from the fork child; only the parent's has kernels;
#   - kernel names (unmangled: extern "C") and counts equal the launches, per
#     name and per stream; copy and memset bytes per direction equal;
#   - kernel durations against cudaEvent pairs around each of 12 gp_spin
#     kernels (1 to 2.5 ms of spinning on %globaltimer, so event jitter of a
#     few µs is far below 2 %): within 2 % for the avg, median, min and max of
#     the report's kernel table (the report has no per-instance durations), and
#     per instance, in launch order, from `gpuprof export --format chrome` when
#     this gpuprof has it (X events named gp_spin; otherwise a note says so);
#   - NVTX: each range's count and gpu_ops (the GPU ops whose launching call lies
#     inside the range on the same thread, counted for every enclosing range:
#     nsys's rule) equal what was launched inside it; read from the report's
#     `ranges` table, or from `annotations` while a gpuprof has no `ranges`;
#     the fork child's range is absent.
# Skips (77) without nvidia-smi or a GPU, without nvcc, or when the build has no
# injector (libgpuprof-inject.so: built without the CUDA toolkit).
# The CUPTI library: libcupti.so.13 from the loader's path; when the loader
# does not know it, the toolkit's copy next to nvcc (GPUPROF_CUPTI_LIBRARY).
. "$(dirname "$0")/lib.sh"
need_cuda_gpu

APP="$TMP/cuda_app"
NCHECK=$((NCHECK + 1))
"$NVCC" -O2 -arch=native -o "$APP" "$GP_SRC_DIR/tests/gpu/cuda_app.cu" >"$TMP/nvcc.log" 2>&1 ||
	{ cat "$TMP/nvcc.log"; fail "nvcc could not build tests/gpu/cuda_app.cu"; }

# without gpuprof: the reference output and exit code
NCHECK=$((NCHECK + 1))
"$APP" >"$TMP/plain.json" 2>"$ERR"
rc=$?
[ "$rc" -eq 5 ] || fail "cuda_app alone exited $rc, expected 5"
json_ok "$TMP/plain.json"

# under gpuprof run: the exit code passes through
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet -o "$TMP/run" -- "$APP" >"$TMP/app.json" 2>"$ERR"
rc=$?
[ "$rc" -eq 5 ] || fail "gpuprof run -- cuda_app exited $rc, expected 5 (cuda_app's)"
[ ! -s "$ERR" ] || { echo "--- stderr of gpuprof run --quiet:"; cat "$ERR"; }
json_ok "$TMP/app.json"

NCHECK=$((NCHECK + 1))
python3 "$GP_SRC_DIR/tests/gpu/check_cuda_run.py" "$GPUPROF" "$TMP/run" "$TMP/app.json" \
	"$TMP/plain.json" || fail "the capture does not match what cuda_app launched (above)"

# the whole run directory reads too (what a user runs), with the same kernels
expect_rc 0 analyze --json "$TMP/run"
json_ok "$OUT"
python3 - "$OUT" "$TMP/app.json" <<'EOF' || fail "analyze of the run directory"
import json, sys
d, app = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
k = {}
for r in d["ranks"]:
    for x in r["kernels"]:
        k[x["name"]] = k.get(x["name"], 0) + x["count"]
assert k == app["kernels"], (k, app["kernels"])
EOF
expect_rc 0 analyze "$TMP/run"
out_has "gp_spin"
done_ok
