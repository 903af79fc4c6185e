#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0912-gpu-python-annotate.sh (label gpu) - the Python module with real PyTorch
# on a GPU: a small nn.Sequential (Linear, ReLU, Linear, ReLU, Linear) on CUDA,
# gpuprof.annotate_modules(model) and a gpuprof.range("step") per iteration,
# run under `gpuprof run` (CUDA injection on). Checks: the exit code passes
# through; one range per module call ("<root> (Sequential)", "0 (Linear)", "1 (ReLU)",
# ...) counted once per step, in the "gpuprof" domain, at the line of the
# module class's forward; each Linear and ReLU range projects at least one GPU
# op per call (its kernels were launched inside it) and a non-zero GPU time;
# the whole model's range projects at least the sum of its layers' ops; a
# counter and the frame marks are there. Skips (77) without nvidia-smi or a
# GPU, or without PyTorch with CUDA.
. "$(dirname "$0")/lib.sh"
need python3 nvidia-smi
nvidia-smi -L >/dev/null 2>&1 || { echo "skip: nvidia-smi finds no GPU"; exit 77; }
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
	{ echo "skip: no PyTorch with CUDA"; exit 77; }
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
LIB="${GP_LIBGPUPROF:-$B/libgpuprof.so}"
[ -e "$B/libgpuprof-inject.so" ] && [ -e "$LIB" ] || { echo "skip: no $LIB or injector"; exit 77; }
case "${GP_SANITIZED:-}" in 1) echo "skip: sanitizer build (python3 cannot load it)"; exit 77 ;; esac
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUPROF_ANNOTATE_LIBRARY
export GPUPROF_LIBRARY="$LIB"

cat >"$TMP/layers.py" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import gpuprof
import torch

steps = int(sys.argv[2])
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 10)).cuda().eval()
x = torch.randn(64, 256, device="cuda")
with torch.no_grad():
    model(x)  # warm-up, before the hooks
    torch.cuda.synchronize()
    hooks = gpuprof.annotate_modules(model)
    for i in range(steps):
        with gpuprof.range("step"):
            y = model(x)
        gpuprof.counter("step_index", i)
        gpuprof.frame()
    torch.cuda.synchronize()
    nhooks = len(hooks)
    hooks.remove()
    model(x)  # after remove(): no range
    torch.cuda.synchronize()
print(json.dumps({"steps": steps, "recording": gpuprof.recording(), "hooks": nhooks,
                  "torch": torch.__version__}))
sys.exit(4)
EOF

STEPS=20
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet -o "$TMP/run" -- python3 "$TMP/layers.py" "$GP_SRC_DIR/python" "$STEPS" \
	>"$TMP/layers.out" 2>"$ERR"
rc=$?
[ "$rc" -eq 4 ] || fail "gpuprof run -- python3 layers.py exited $rc, expected 4: $(cat "$ERR")"
grep -q '"recording": true' "$TMP/layers.out" || fail "not recording: $(cat "$TMP/layers.out")"

expect_rc 0 analyze --json "$TMP/run"
json_ok "$OUT"
python3 - "$OUT" "$STEPS" "$TMP/layers.py" <<'EOF' || fail "per-layer ranges (above)"
import json, sys
d = json.load(open(sys.argv[1]))
steps = int(sys.argv[2])
ranks = [r for r in d["ranks"] if r.get("ranges")]
assert len(ranks) == 1, [r["file"] for r in d["ranks"]]
r = ranks[0]
rg = {x["name"]: x for x in r["ranges"] if x["domain"] == "gpuprof"}
print("ranges:", {k: (v["count"], v["gpu_ops"], v["gpu_projected_ns"], v["source"])
                  for k, v in sorted(rg.items())})
layers = ["0 (Linear)", "1 (ReLU)", "2 (Linear)", "3 (ReLU)", "4 (Linear)"]
want = set(layers) | {"<root> (Sequential)", "step"}
assert set(rg) == want, (sorted(rg), sorted(want))
for n in want:
    assert rg[n]["count"] == steps, (n, rg[n]["count"], steps)
for n in layers:
    assert rg[n]["gpu_ops"] >= steps, (n, rg[n])
    assert rg[n]["gpu_projected_ns"] > 0, (n, rg[n])
    assert "torch/nn/modules/" in rg[n]["source"], (n, rg[n]["source"])
total = sum(rg[n]["gpu_ops"] for n in layers)
assert rg["<root> (Sequential)"]["gpu_ops"] >= total, (rg["<root> (Sequential)"], total)
assert rg["step"]["gpu_ops"] >= rg["<root> (Sequential)"]["gpu_ops"], rg["step"]
assert rg["step"]["source"].startswith(sys.argv[3] + ":"), rg["step"]["source"]
assert r["overview"]["has_gpu"], "no GPU activity captured"
c = {x["name"]: x for x in r["counters"]}["step_index"]
assert (c["count"], c["min"], c["max"]) == (steps, 0, steps - 1), c
marks = {(m["domain"], m["name"]): m["count"] for m in r["overview"]["capture"]["marks"]}
assert marks[("gpuprof", "frame")] == steps, marks
# the module ranges make the modules section: per class the calls and the layers' GPU time
m = r["modules"]
cl = {x["name"]: x for x in m["classes"]}
assert m["source"] == "annotations", m["source"]
assert set(cl) == {"Sequential", "Linear", "ReLU"}, sorted(cl)
assert (cl["Sequential"]["count"], cl["Linear"]["count"], cl["ReLU"]["count"]) == \
    (steps, 3 * steps, 2 * steps), m["classes"]
assert cl["Linear"]["gpu_time_ns"] > 0 and cl["Sequential"]["gpu_time_ns"] > 0, m["classes"]
assert m["tree"][0]["name"] == "<root>" and m["tree"][0]["calls"] == steps, m["tree"][0]
EOF
expect_rc 0 analyze "$TMP/run"
done_ok
