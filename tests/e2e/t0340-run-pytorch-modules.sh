#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0340-run-pytorch-modules.sh - `gpuprof run --pytorch modules` on a CPU PyTorch (Debian's
# python3-torch): the startup hook puts a range named "nn.Module: <Class>_<k>" around every
# module forward, with no change to the program (tests/e2e/pytorch/model.py): its output and
# exit status are its own; the capture, read by an independent decoder
# (pytorch/capture_modules.py), holds one range per module call, the instances numbered per
# class in first-call order, nested as the calls are, every push popped. The capture reader
# takes them as module calls, not as ranges. Without CUDA, `ops` says once on standard error
# that there are no op ranges and the modules are still recorded; `ops` alone records no
# module. A forward that raises still pops its range where PyTorch has always_call (2.x).
# Skips (77) without a python3 that imports torch.
. "$(dirname "$0")/lib.sh"
use_tracer
need_python_binding
need_torch
MODEL="$GP_SRC_DIR/tests/e2e/pytorch/model.py"
DECODE="$GP_SRC_DIR/tests/e2e/pytorch/capture_modules.py"
export PYTHONDONTWRITEBYTECODE=1

# without gpuprof: the reference output and status
NCHECK=$((NCHECK + 1))
"$PY" "$MODEL" 3 >"$TMP/plain.out" 2>"$TMP/plain.err"
[ $? -eq 3 ] || fail "model.py alone did not exit 3: $(cat "$TMP/plain.err")"

# run_model NAME LIST ARGS...: gpuprof run --pytorch LIST into $TMP/NAME, exit 3 expected
run_model() {
	local name=$1 list=$2
	shift 2
	NCHECK=$((NCHECK + 1))
	"$GPUPROF" run --quiet --sample-ms 0 --pytorch "$list" -o "$TMP/$name" -- "$PY" "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
}

# --- modules: the ranges, independently decoded
run_model mod modules "$MODEL" 3
[ "$RC" -eq 3 ] || fail "mod: exited $RC, expected 3: $(cat "$TMP/mod.err")"
cmp -s "$TMP/plain.out" "$TMP/mod.out" || fail "mod: the output differs: $(cat "$TMP/mod.out")"
[ ! -s "$TMP/mod.err" ] || fail "mod: stderr: $(cat "$TMP/mod.err")"
set -- "$TMP/mod"/capture-*.gpcap
[ $# -eq 1 ] && [ -s "$1" ] || fail "mod: expected one capture, got: $*"
python3 "$DECODE" "$1" >"$TMP/mod.json" || fail "mod: the capture cannot be decoded"
python3 - "$TMP/mod.json" <<'PYEOF' || fail "mod: the module ranges"
import collections, json, sys
d = json.load(open(sys.argv[1]))
assert d["unpaired"] == 0, d["unpaired"]
assert len(d["threads"]) == 1, d["threads"].keys()
rows = next(iter(d["threads"].values()))
count = collections.Counter(r[0] for r in rows)
want = {"Sequential_0": 3, "Block_0": 3, "Block_1": 3, "Linear_0": 3, "Linear_1": 3,
        "Linear_2": 3, "Linear_3": 3, "ReLU_0": 3, "ReLU_1": 3, "Attention_0": 3,
        "LayerNorm_0": 3}
assert count == {"nn.Module: " + k: v for k, v in want.items()}, count
# first-call order within an iteration: the numbering follows it
first = [r[0][len("nn.Module: "):] for r in rows[:11]]
assert first == ["Sequential_0", "Block_0", "Linear_0", "ReLU_0", "Block_1", "Linear_1",
                 "ReLU_1", "Attention_0", "Linear_2", "LayerNorm_0", "Linear_3"], first
# nesting: each call lies inside the Sequential call of its iteration, fc inside its Block
seq = [r for r in rows if r[0].endswith("Sequential_0")]
for r in rows:
    assert r[1] <= r[2], r
    assert any(s[1] <= r[1] and r[2] <= s[2] for s in seq), r
for blk, fc in (("Block_0", "Linear_0"), ("Block_1", "Linear_1"), ("Attention_0", "LayerNorm_0")):
    outer = [r for r in rows if r[0].endswith(blk)]
    for r in (r for r in rows if r[0].endswith(fc)):
        assert any(o[1] <= r[1] and r[2] <= o[2] for o in outer), (fc, r)
PYEOF
# the reader takes them as module calls: no range row named nn.Module
expect_rc 0 analyze --json "$TMP/mod"
json_ok "$OUT"
python3 - "$OUT" <<'PYEOF' || fail "mod: analyze"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
names = [x["name"] for x in r.get("ranges") or []]
assert not [n for n in names if "nn.Module" in n], names
m = r.get("modules")
if m is not None:  # the modules analysis (issue 23): every class of the model
    got = {c["name"] for c in m["classes"]}
    assert {"Sequential", "Block", "Linear", "ReLU", "Attention", "LayerNorm"} <= got, got
PYEOF
[ "$(json_get "$TMP/mod/run.json" 'd["options"]["pytorch"]')" = modules ] ||
	fail "mod: run.json options.pytorch"

# --- modules,ops without CUDA: said once, the modules still recorded
cuda=$("$PY" -c "import torch; print(torch.version.cuda or '')")
run_model ops modules,ops "$MODEL" 2
[ "$RC" -eq 3 ] || fail "ops: exited $RC, expected 3: $(cat "$TMP/ops.err")"
if [ -z "$cuda" ]; then
	[ "$(wc -l <"$TMP/ops.err")" -eq 1 ] &&
		grep -q "^gpuprof: --pytorch: PyTorch .* built without CUDA: no op ranges$" \
			"$TMP/ops.err" || fail "ops: stderr: $(cat "$TMP/ops.err")"
fi
python3 "$DECODE" "$TMP/ops"/capture-*.gpcap >"$TMP/ops.json" || fail "ops: decode"
[ "$(json_get "$TMP/ops.json" 'sum(len(v) for v in d["threads"].values())')" = 22 ] ||
	fail "ops: expected 22 module ranges: $(cat "$TMP/ops.json")"
[ "$(json_get "$TMP/ops/run.json" 'd["options"]["pytorch"]')" = modules,ops ] ||
	fail "ops: run.json options.pytorch"

# --- ops alone: no module range (and no annotation library loaded for them)
run_model opsonly shapes "$MODEL" 1
[ "$RC" -eq 3 ] || fail "opsonly: exited $RC: $(cat "$TMP/opsonly.err")"
for f in "$TMP/opsonly"/capture-*.gpcap; do
	[ -e "$f" ] || continue
	python3 "$DECODE" "$f" | grep -q "nn.Module" && fail "opsonly: module ranges recorded"
done
[ "$(json_get "$TMP/opsonly/run.json" 'd["options"]["pytorch"]')" = ops,shapes ] ||
	fail "opsonly: run.json options.pytorch"

# --- a forward that raises (caught by the program): its range is popped with always_call
cat >"$TMP/raise.py" <<'PYEOF'
import torch
from torch import nn
class Bad(nn.Module):
    def forward(self, x):
        raise ValueError("bad input")
m = nn.Sequential(nn.Linear(4, 4), Bad())
for _ in range(2):
    try:
        m(torch.zeros(1, 4))
    except ValueError:
        print("caught")
nn.Linear(4, 4)(torch.zeros(1, 4))
PYEOF
run_model raise modules "$TMP/raise.py"
[ "$RC" -eq 0 ] || fail "raise: exited $RC: $(cat "$TMP/raise.err")"
[ "$(grep -c caught "$TMP/raise.out")" -eq 2 ] || fail "raise: output: $(cat "$TMP/raise.out")"
if "$PY" -c "import torch, sys; sys.exit(int(torch.__version__.split('.')[0]) < 2)"; then
	python3 "$DECODE" "$TMP/raise"/capture-*.gpcap >"$TMP/raise.json"
	[ "$(json_get "$TMP/raise.json" 'd["unpaired"]')" = 0 ] ||
		fail "raise: ranges left open: $(cat "$TMP/raise.json")"
fi

done_ok
