#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0117-analyze-text-layout.sh - numbers and headings of analyze's text that
# read wrong: a 1-byte copy's bandwidth keeps four significant digits (a
# rate above 0 is never "0.00" GB/s); the Metrics section's GPU table has two
# spaces between its columns, each heading right-aligned over its cells
# ("util mean  util max", not "util mean util max"); the real ROCm trace
# with a 1-byte copy (../shared/traces) where it is there.
. "$(dirname "$0")/lib.sh"
need python3
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"

# a 1-byte device-to-device copy of 760 ns: 0.001316 GB/s
cat >"$TMP/one.json" <<'JSON'
{"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 1000,
   "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7,
   "ts": 1010, "dur": 0.76, "args": {"device": 0, "stream": 7, "correlation": 1, "bytes": 1}}
]}
JSON
expect_rc 0 analyze "$TMP/one.json"
out_has "   760 ns        1 B        1 B    0.001316  Memcpy DtoD"
grep -q " 0\.00  Memcpy" "$OUT" && fail "a 1-byte copy at 0.00 GB/s"
# the column holds a rate down to 1 KB/s apart from the bytes before it: 1 byte in 1 ms
sed 's/"dur": 0.76/"dur": 1000/' "$TMP/one.json" >"$TMP/slow.json"
expect_rc 0 analyze "$TMP/slow.json"
out_has "        1 B        1 B 0.000001000  Memcpy DtoD"

QWEN="$GP_SHARED_DIR/traces/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
if [ -e "$QWEN" ]; then
	expect_rc 0 analyze "$QWEN"
	out_has "1 B        1 B    0.001316  Memcpy DtoD"
fi

# the Metrics GPU table of a run sampled with the fake NVML
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
if [ -e "$NVML" ]; then
	GPUPROF_NVML_LIBRARY="$NVML" "$GPUPROF" run --quiet --no-report -o "$TMP/m" \
		--sample-ms 10 -- sleep 0.2 >/dev/null 2>&1 || fail "gpuprof run sleep"
	expect_rc 0 analyze "$TMP/m"
	NCHECK=$((NCHECK + 1))
	python3 - "$OUT" <<'PY' || fail "the Metrics GPU table (above)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = next(i for i, l in enumerate(lines) if l.startswith("Metrics ("))
head, rows = lines[i + 1], [l for l in lines[i + 2:i + 4] if l.startswith("  0 ") or l.startswith("  1 ")]
assert len(rows) == 2, lines[i:i + 4]
heads = ["util mean", "util max", "memory peak", "power mean", "power max", "temp max"]
for h in heads:
    at = head.index(h)
    assert head[at - 2:at] == "  ", ("no two spaces before", h, head)
    end = at + len(h)
    for r in rows:
        # right-aligned: the cell ends where its heading ends, a space before it
        assert len(r) >= end and r[end - 1] != " " and (end == len(r) or r[end] == " "), (h, head, r)
print("ok:", head)
PY
fi
done_ok
