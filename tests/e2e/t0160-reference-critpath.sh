#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpuprof analyze --compat hta reproduces HTA's critical-path summary on the real traces in
# ../shared/traces (the step HTA analysed, every bound_by share within 0.01 point).
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ -d "$GP_SHARED_DIR/traces/reference" ] || { echo "skip: no ../shared/traces"; exit 77; }
python3 "$GP_SRC_DIR/tests/e2e/reference-critpath.py" "$GPUPROF" "$GP_SHARED_DIR/traces"
