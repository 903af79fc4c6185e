#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The example client links against the shared library (exported API only) and works.
set -eu
ex="$GP_BUILD_DIR/analyze_trace"
[ -x "$ex" ] || { echo "skip: example not built"; exit 77; }
out=$("$ex" "$GP_SRC_DIR/tests/data/e2e/tiny.json")
echo "$out"
echo "$out" | grep -q "GPU window" || { echo "FAIL: no GPU window line"; exit 1; }
if "$ex" /nonexistent.json 2>/dev/null; then echo "FAIL: missing file accepted"; exit 1; fi
