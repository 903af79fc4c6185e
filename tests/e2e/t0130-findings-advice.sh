#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every finding's advice fits the device it ran on (NVIDIA by compute capability, AMD in
# ROCm's terms, unknown in both or neither), over built-in devices and the deviceProperties
# of every trace in ../shared/traces; suggestions name only available commands and their
# options (read from `gpuprof help` and `gpuprof CMD -h`); no finding has under 1 % at
# stake; "1 copy", not "1 copies".
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
exec python3 "$GP_SRC_DIR/tests/e2e/findings_advice.py" "$GPUPROF" "$GP_SHARED_DIR/traces" \
	"$GP_SRC_DIR/docs/analyses/findings.md"
