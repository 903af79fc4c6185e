#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0115-analyze-run-one-sample.sh - a run short enough for one metrics sample
# (`gpuprof run -- true`): the process tree's CPU, a rate between two
# samples, is left out of the Metrics section rather than printed as
# "CPU mean -  max - cores"; its RSS peak stays.
. "$(dirname "$0")/lib.sh"
export GPUPROF_NVML_LIBRARY=/nonexistent/nvml.so
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

expect_rc 0 run --quiet --no-report -o "$TMP/one" -- true
expect_rc 0 analyze "$TMP/one"
out_has "  process tree    RSS peak "
grep -q "mean -" "$OUT" && fail "'mean -  max -' for a series with no value"
# a slow machine may take a second sample: then the tree's CPU is known
if grep -qF "Metrics (1 sample," "$OUT"; then
	grep -q "cores" "$OUT" && fail "a process tree CPU of no value"
else
	echo "note: more than one sample; the one-sample check is skipped"
fi
done_ok
