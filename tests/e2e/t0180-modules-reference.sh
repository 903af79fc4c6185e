#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The modules section's per-class count, GPU and host time agree with an independent
# computation from the trace (tests/e2e/modules_ref.py) on the shared traces recorded with
# modules; a trace without nn.Module calls gets "modules": null and no Modules block.
. "$(dirname "$0")/lib.sh"
need python3
TR="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/tracelens"
[ -d "$TR" ] || { echo "skip: no ../shared/traces"; exit 77; }

# a reader that keeps no nn.Module calls (before issue 23's reader) cannot be checked
cat >"$TMP/one.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "nn.Module: Block_0", "pid": 1, "tid": 1,
  "ts": 100, "dur": 50, "args": {"Python id": 2, "Python parent id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
  "ts": 110, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 120, "dur": 30,
  "args": {"correlation": 7, "stream": 7, "device": 0}}]}
JSON
expect_rc 0 analyze --json "$TMP/one.json"
python3 - "$OUT" <<'PY' || { echo "skip: this build keeps no nn.Module calls"; exit 77; }
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["ranks"][0].get("modules") else 1)
PY

for f in h100_Qwen_Qwen1.5-0.5B-Chat__1016005 h100_gaunernst_bert-small-uncased__1016001 \
	mi300_Qwen_Qwen1.5-0.5B-Chat__1016005 inference_sglang_decode_sglang_Qwen3-8B_decode \
	torch_compile_triton_trace; do
	[ -f "$TR/$f.json.gz" ] || continue
	expect_rc 0 analyze --json "$TR/$f.json.gz"
	cp "$OUT" "$TMP/report.json"
	echo "== $f"
	python3 "$GP_SRC_DIR/tests/e2e/modules_ref.py" "$TR/$f.json.gz" "$TMP/report.json" ||
		fail "$f: modules differ from the reference (above)"
done

# no module information: null, and the text says nothing about modules
expect_rc 0 analyze --json "$TR/torch_compile_triton_trace.json.gz"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["ranks"][0]["modules"] is None' \
	"$OUT" || fail "modules is not null without nn.Module calls"
expect_rc 0 analyze "$TR/torch_compile_triton_trace.json.gz"
grep -q "^Modules" "$OUT" && fail "a Modules block without module information"
done_ok
