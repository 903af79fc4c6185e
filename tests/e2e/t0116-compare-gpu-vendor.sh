#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0116-compare-gpu-vendor.sh - compare warns that the GPUs differ when the
# two sides ran on different GPUs, also when one side's trace names no GPU
# (no deviceProperties) but its vendor is known from its HIP calls: Qwen on
# an H100 against the same on an MI300 said nothing. The MI300 trace numbers
# its kernels' device by agent (2) and deviceProperties by index (0): its one
# model names it. Two AMD traces, one unnamed, are not said to differ. Real
# traces of ../shared/traces; skipped without them.
. "$(dirname "$0")/lib.sh"
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
[ -d "$T/tracelens" ] || { echo "skip: no ../shared/traces"; exit 77; }
H100="$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
MI300="$T/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
MI250="$T/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz"

expect_rc 0 compare "$H100" "$MI300"
out_has "the runs are on different GPUs (base NVIDIA H100 80GB HBM3, new AMD Instinct MI300X VF)"
# the same trace without its deviceProperties: only its HIP calls say AMD
need python3
python3 - "$MI300" "$TMP/mi300-unnamed.json" <<'EOF2' || fail "an MI300 trace without deviceProperties"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
del d["deviceProperties"]
json.dump(d, open(sys.argv[2], "w"))
EOF2
expect_rc 0 compare "$H100" "$TMP/mi300-unnamed.json"
out_has "the runs are on different GPUs (base NVIDIA H100 80GB HBM3, new an AMD GPU)"
expect_rc 0 compare "$TMP/mi300-unnamed.json" "$MI250"
grep -q "different GPUs" "$OUT" && fail "two AMD GPUs, one unnamed, said to differ"
expect_rc 0 compare "$MI300" "$MI250"
out_has "the runs are on different GPUs (base AMD Instinct MI300X VF, new AMD Radeon Graphics)"
done_ok
