#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The modules section of a capture of `gpuprof run --pytorch modules` on a CPU PyTorch
# (tests/e2e/pytorch/model.py, three forwards): the calls come from the hook's ranges
# (source python_function), one class row per module class with its calls, the tree merged by
# path (Sequential_0 > Block_0 > Linear_0, three calls each), no GPU time without CUDA, and
# the Modules block in the text. Skips (77) without a python3 that imports torch.
. "$(dirname "$0")/lib.sh"
use_tracer
need_python_binding
need_torch
export PYTHONDONTWRITEBYTECODE=1

NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --sample-ms 0 --pytorch modules -o "$TMP/run" -- "$PY" \
	"$GP_SRC_DIR/tests/e2e/pytorch/model.py" 3 >"$TMP/run.out" 2>"$ERR"
[ $? -eq 3 ] || fail "gpuprof run --pytorch modules: model.py did not exit 3"
expect_rc 0 analyze --json "$TMP/run"
json_ok "$OUT"
python3 - "$OUT" <<'PYEOF' || fail "the modules section (above)"
import json, sys
m = json.load(open(sys.argv[1]))["ranks"][0]["modules"]
assert m["source"] == "python_function" and m["steps"] == 0, (m["source"], m["steps"])
cl = {c["name"]: c for c in m["classes"]}
want = {"Sequential": 3, "Block": 6, "Linear": 12, "ReLU": 6, "Attention": 3, "LayerNorm": 3}
assert {k: c["count"] for k, c in cl.items()} == want, {k: c["count"] for k, c in cl.items()}
for c in cl.values():
    assert c["gpu_time_ns"] == 0 and c["host_time_ns"] > 0 and c["step_pct"] is None, c
    assert len(c["slowest"]) == min(5, c["count"]), c
(root,) = m["tree"]
assert (root["name"], root["class"], root["calls"]) == ("Sequential_0", "Sequential", 3), root
kids = [(k["name"], k["calls"]) for k in root["children"]]
assert kids == [("Block_0", 3), ("Block_1", 3), ("Attention_0", 3), ("Linear_3", 3)], kids
assert [k["name"] for k in root["children"][0]["children"]] == ["Linear_0", "ReLU_0"]
# a parent's host time holds its children's
for k in root["children"]:
    assert sum(g["host_time_ns"] for g in k["children"]) <= k["host_time_ns"], k
assert sum(k["host_time_ns"] for k in root["children"]) <= root["host_time_ns"], root
assert cl["Sequential"]["host_time_ns"] == root["host_time_ns"]
PYEOF
expect_rc 0 analyze "$TMP/run"
out_has "Modules (nn.Module calls, whole trace)"
out_has "  Sequential_0"
out_has "    Block ×2"
done_ok
