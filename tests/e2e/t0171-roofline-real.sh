#!/bin/bash
# SPDX-License-Identifier: MIT
# t0171-roofline-real.sh - on the shared traces that carry shapes, every roofline row's count
# and GPU time, and the FLOPs of its GEMM and attention rows, agree with opflops.py, an
# independent computation from the trace (the kernels under each op's External id, else
# under the innermost op holding their launch); skips when the traces are absent.
. "$(dirname "$0")/lib.sh"
need python3

T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
python3 "$GP_SRC_DIR/tests/e2e/opflops.py" "$GPUPROF" \
	"$T/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz" \
	"$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
	"$T/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
	"$T/tracelens/torch_compile_triton_trace.json.gz" \
	"$T/hta/trace_diff_control_control.json.gz" >"$OUT" 2>"$ERR"
rc=$?
cat "$OUT"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "gpuprof's roofline rows disagree with opflops.py (above)"
done_ok
