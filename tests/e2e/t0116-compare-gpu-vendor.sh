#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0116-compare-gpu-vendor.sh - compare warns that the GPUs differ when one
# side's trace names no GPU (no deviceProperties) but its vendor is known:
# Qwen on an H100 against the same on an MI300 (whose trace has no
# deviceProperties, only HIP calls) said nothing. Two AMD traces, one named
# and one not, are not warned about. Real traces of ../shared/traces;
# skipped without them.
. "$(dirname "$0")/lib.sh"
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
[ -d "$T/tracelens" ] || { echo "skip: no ../shared/traces"; exit 77; }
H100="$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
MI300="$T/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
MI250="$T/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz"

expect_rc 0 compare "$H100" "$MI300"
out_has "the runs are on different GPUs (base NVIDIA H100 80GB HBM3, new an AMD GPU)"
expect_rc 0 compare "$MI300" "$MI250"
grep -q "different GPUs" "$OUT" && fail "two AMD GPUs, one unnamed, said to differ"
done_ok
