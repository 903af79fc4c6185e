#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0113-analyze-device-words.sh - the header names a GPU's properties in its
# vendor's words: an AMD GPU's HIP major.minor is its gfx family and its
# multiprocessors are compute units ("gfx9.4, 304 CUs"; "sm_94, 304 SMs"
# read as an NVIDIA GPU), an NVIDIA GPU reads "sm_90, 132 SMs" (as nvcc
# names the architecture, and as the report page's label says it); the JSON
# says the vendor (overview.devices[].vendor: "amd", "nvidia" or null); the
# API calls of a ROCm trace are "Top HIP API calls", not CUDA's, and its
# launch queues have no "at limit" column (HIP has no queue limit: "-"); the
# Utilisation table has SM efficiency and occupancy columns only where the
# kernels carry the estimates (not in ROCm traces nor captures).
. "$(dirname "$0")/lib.sh"
need python3

cat >"$TMP/amd.json" <<'JSON'
{"deviceProperties": [
  {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9,
   "computeMinor": 4, "warpSize": 64, "numSms": 304, "maxThreadsPerMultiprocessor": 2048},
  {"id": 1, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045870592, "computeMajor": 9,
   "computeMinor": 0, "warpSize": 32, "numSms": 132, "maxThreadsPerMultiprocessor": 2048},
  {"id": 2, "computeMajor": 8, "computeMinor": 0}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000, "dur": 100}
]}
JSON
expect_rc 0 analyze "$TMP/amd.json"
out_has "0: AMD Instinct MI300X (gfx9.4, 304 CUs, 192.0 GiB)"
out_has "1: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)"
out_has "2: unnamed GPU (sm_80)"
expect_rc 0 analyze --json "$TMP/amd.json"
NCHECK=$((NCHECK + 1))
[ "$(json_get "$OUT" '[d["vendor"] for d in d["ranks"][0]["overview"]["devices"]]')" = \
	"['amd', 'nvidia', None]" ] || fail "overview.devices[].vendor"

cat >"$TMP/hip.json" <<'JSON'
{"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 1000,
   "dur": 10, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 2, "tid": 0, "ts": 1020, "dur": 50,
   "args": {"correlation": 1, "device": 0, "stream": 0}}
]}
JSON
expect_rc 0 analyze "$TMP/hip.json"
out_has "Top HIP API calls"
grep -q "CUDA API" "$OUT" && fail "a ROCm trace's calls called CUDA's"
out_has "  queue  device  stream      max     mean"
grep -q "at limit" "$OUT" && fail "an 'at limit' column of '-' on ROCm"
out_has "  device      window  utilization"
grep -q "SM efficiency" "$OUT" && fail "an SM efficiency column of '-'"
sed -i 's/hipLaunchKernel/cudaLaunchKernel/' "$TMP/hip.json"
expect_rc 0 analyze "$TMP/hip.json"
out_has "Top CUDA API calls"
out_has "  queue  device  stream      max     mean        at limit"
sed -i 's/"stream": 0}}/"stream": 0, "blocks per SM": 2.0, "est. achieved occupancy %": 50}}/' \
	"$TMP/hip.json"
expect_rc 0 analyze "$TMP/hip.json"
out_has "  device      window  utilization  SM efficiency      occupancy"
out_has "       0    70.00 µs        71.4%          71.4%          50.0%"
done_ok
