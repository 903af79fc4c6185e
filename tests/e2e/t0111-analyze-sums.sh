#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0111-analyze-sums.sh - the sums analyze's text prints agree with its
# tables: the "… N more (...)" line of the CPU operators, a table of self
# times, sums the rows' self times (cpu_ops_omitted.self_ns), not their
# totals, which nest (a parent's total holds its children's) and added up
# came out larger than the trace (nccl_parser: "79 more (1.030 s)" under a
# 684 ms span); a table has no column that is "-" on every row (the GPU
# column of GPU annotations, which are GPU time already); --compat tb, like
# --compat hta, has a compat line in the header saying what it changes (the
# Steps table's Comm 0.0 % beside COMMUNICATION 24 % had no reason); copies
# without sizes (ROCm traces) have no Bytes, Avg bytes and GB/s columns of "-",
# nor memory events without "Total Reserved" (2021 schema) a "peak reserv" one.
. "$(dirname "$0")/lib.sh"
need python3

# parent (100 µs, self 10) holds child (90 µs); other (5 µs): sorted by self,
# child, parent, other; --top 1 leaves out parent and other: self 15 µs,
# total 105 µs
cat >"$TMP/nested.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "parent", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "child", "pid": 1, "tid": 1, "ts": 1005, "dur": 90},
 {"ph": "X", "cat": "cpu_op", "name": "other", "pid": 1, "tid": 1, "ts": 1200, "dur": 5}
]}
JSON
expect_rc 0 analyze --top 1 "$TMP/nested.json"
out_has "  … 2 more (self 15.00 µs)"
grep -qF "(105.0 µs)" "$OUT" && fail "the omitted CPU operators summed by their totals"
grep -q "^compat " "$OUT" && fail "a compat line without --compat"
expect_rc 0 analyze --compat tb "$TMP/nested.json"
out_has "compat    the TensorBoard plugin's step breakdown (--compat tb): Comm holds only the"
expect_rc 0 analyze --json --top 1 "$TMP/nested.json"
NCHECK=$((NCHECK + 1))
[ "$(json_get "$OUT" 'd["ranks"][0]["cpu_ops_omitted"]["self_ns"]')" = 15000 ] ||
	fail "cpu_ops_omitted.self_ns is not 15000"

cat >"$TMP/gpu-annotation.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1000,
  "dur": 10, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1020, "dur": 50,
  "args": {"correlation": 1, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": 1020,
  "dur": 50, "args": {"device": 0, "stream": 7}}
]}
JSON
expect_rc 0 analyze "$TMP/gpu-annotation.json"
sed -n '/^GPU annotations/,/^$/p' "$OUT" >"$TMP/ga"
NCHECK=$((NCHECK + 1))
grep -q "^    Time %     Total       Avg     Calls  Name$" "$TMP/ga" ||
	fail "GPU annotations' columns: $(cat "$TMP/ga")"
grep -q " - " "$TMP/ga" && fail "a '-' cell in GPU annotations: $(cat "$TMP/ga")"

cat >"$TMP/memcpy.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 1000,
  "dur": 10, "args": {"correlation": 1}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 2, "tid": 0,
  "ts": 1020, "dur": 50, "args": {"correlation": 1, "device": 0, "stream": 0}}
]}
JSON
expect_rc 0 analyze "$TMP/memcpy.json"
out_has " Time %    Total     Count      Avg  Name"
grep -q "GB/s" "$OUT" && fail "Bytes and GB/s columns of '-' for copies without sizes"
sed -i 's/"stream": 0}}/"stream": 0, "bytes": 1048576}}/' "$TMP/memcpy.json"
expect_rc 0 analyze "$TMP/memcpy.json"
out_has " 100.0% 50.00 µs         1 50.00 µs    1.0 MiB    1.0 MiB       20.97  Memcpy HtoD"

cat >"$TMP/mem.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 1000, "dur": 10},
 {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1001,
  "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1024}},
 {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1005,
  "args": {"Device Type": 1, "Device Id": 0, "Bytes": -1024}}
]}
JSON
expect_rc 0 analyze "$TMP/mem.json"
out_has "  device   peak alloc       at end  peak in"
grep -q "peak reserv" "$OUT" && fail "a 'peak reserv' column of '-' (2021 schema)"
sed -i 's/"Bytes": 1024}/"Bytes": 1024, "Total Allocated": 1024, "Total Reserved": 2097152}/' \
	"$TMP/mem.json"
expect_rc 0 analyze "$TMP/mem.json"
out_has "  device   peak alloc  peak reserv       at end  peak in"
# a finding's unknown evidence is left out, not shown as '-' (the JSON keeps its null)
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
if [ -d "$T/hta" ]; then
	for f in "$T"/hta/*.json.gz "$T"/tracelens/*.json.gz; do
		for c in none hta; do
			expect_rc 0 analyze --compat $c "$f"
			grep -A6 "evidence:" "$OUT" | grep -qE "[a-z_]=-(,|$)" &&
				fail "an unknown evidence value shown as '-' ($f, --compat $c)"
		done
	done
fi
done_ok
