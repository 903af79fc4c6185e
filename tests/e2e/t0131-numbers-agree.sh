#!/bin/bash
# SPDX-License-Identifier: MIT
# t0131-numbers-agree.sh - two tables never disagree about one quantity, and
# CUDA-only limits stay off other runtimes (issue 21, items 2, 5, 9 and 15):
# the Steps table's Communication counts the kernels the kernel types call
# communication (--compat tb keeps the TensorBoard plugin's rule); an empty
# trace is an error; CUDA's launch-queue limit is not applied to HIP; launch-bound
# needs a GPU that waits for launches.
. "$(dirname "$0")/lib.sh"
need python3

# a step whose all-reduce kernel is launched under record_param_comms, as
# PyTorch 2 does (no nccl:* op): the plugin's rule never sees it
cat >"$TMP/comm.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 2000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1010, "dur": 50, "args": {"External id": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1020, "dur": 10, "args": {"External id": 2, "correlation": 10}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_32x32", "pid": 0, "tid": 7, "ts": 1100, "dur": 300, "args": {"External id": 2, "device": 0, "stream": 7, "correlation": 10}},
 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 1100, "dur": 50, "args": {"External id": 3}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1110, "dur": 10, "args": {"External id": 3, "correlation": 11}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 20, "ts": 1500, "dur": 1000, "args": {"External id": 3, "device": 0, "stream": 20, "correlation": 11}}
]}
JSON

expect_rc 0 analyze --json "$TMP/comm.json"
cp "$OUT" "$TMP/comm-none.json"
comm=$(json_get "$TMP/comm-none.json" 'd["ranks"][0]["steps"][0]["breakdown"]["communication_ns"]')
[ "$comm" = 1000000 ] || fail "the step's Communication is $comm ns, expected the all-reduce's 1000000"
kt=$(json_get "$TMP/comm-none.json" '[k["ns"] for k in d["ranks"][0]["gpu"]["kernel_types"] if k["type"] == "COMMUNICATION"]')
[ "$kt" = "[1000000]" ] || fail "kernel types: COMMUNICATION $kt"
expect_rc 0 analyze "$TMP/comm.json"
grep -E '^  ProfilerStep#1 .* 15\.0% +0\.0% +0\.0% +50\.0%' "$OUT" >/dev/null ||
	fail "the Steps table does not show Comm 50.0 %"

# --compat tb: the plugin's rule (kernels of nccl:/gloo: ops only)
expect_rc 0 analyze --json --compat tb "$TMP/comm.json"
[ "$(json_get "$OUT" 'd["compat"]')" = tb ] || fail "compat is not 'tb'"
comm=$(json_get "$OUT" 'd["ranks"][0]["steps"][0]["breakdown"]["communication_ns"]')
[ "$comm" = 0 ] || fail "--compat tb: Communication $comm ns, expected 0 as in tb_plugin"
expect_rc 2 analyze --compat tensorboard "$TMP/comm.json"

# item 5: 1100 launches pending on a HIP stream: CUDA's limit of 1024 is not HIP's,
# so no limit, no time at it and no "queue full" finding; the same on CUDA fires
gen_queue() { # RUNTIME_CALL FILE
	python3 - "$1" "$2" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
       "ts": 0, "dur": 20000}]
for k in range(1100):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": sys.argv[1], "pid": 1, "tid": 1,
               "ts": 1 + k * 0.001, "dur": 0.001, "args": {"correlation": k + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 0, "ts": 100 + k * 10,
               "dur": 10, "args": {"device": 0, "stream": 0, "correlation": k + 1}})
json.dump({"traceEvents": ev}, open(sys.argv[2], "w"))
PY
}
gen_queue hipLaunchKernel "$TMP/hip.json"
expect_rc 0 analyze --json "$TMP/hip.json"
[ "$(json_get "$OUT" 'd["ranks"][0]["launches"]["runtime"]')" = hip ] || fail "runtime is not hip"
[ "$(json_get "$OUT" 'd["ranks"][0]["launches"]["queue_limit"]')" = None ] ||
	fail "a queue limit is applied to HIP"
[ "$(json_get "$OUT" 'd["ranks"][0]["launches"]["queue"][0]["max"]')" = 1100 ] || fail "queue max"
[ "$(json_get "$OUT" '[f["id"] for f in d["ranks"][0]["findings"] if f["id"] == "queue-saturated"]')" = "[]" ] ||
	fail "HIP gets a queue-saturated finding"
gen_queue cudaLaunchKernel "$TMP/cuda.json"
expect_rc 0 analyze "$TMP/cuda.json"
out_has "CUDA launch queue full (1024 pending launches)"

# item 9: launch-bound means the GPU waits for launches. 100 kernels of 2 µs, each
# shorter than its 5 µs launch call: started 1 µs after their call, launch-bound;
# started from a backlog (kernels queued up, delay p50 ~1.8 ms), not launch-bound
gen_launches() { # GPU_START_OF_FIRST GPU_GAP FILE
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
first, gap = float(sys.argv[1]), float(sys.argv[2])
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
       "ts": 0, "dur": 3000}]
for k in range(100):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": k * 6, "dur": 5, "args": {"correlation": k + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
               "ts": first + k * gap, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": k + 1}})
json.dump({"traceEvents": ev}, open(sys.argv[3], "w"))
PY
}
lb='[f["id"] for f in d["ranks"][0]["findings"] if f["id"] == "launch-bound"]'
gen_launches 6 6 "$TMP/waits.json"
expect_rc 0 analyze --json "$TMP/waits.json"
[ "$(json_get "$OUT" "$lb")" = "['launch-bound']" ] || fail "a GPU waiting for launches is not launch-bound"
[ "$(json_get "$OUT" '[f for f in d["ranks"][0]["findings"] if f["id"] == "launch-bound"][0]["evidence"]["launch_delay_p50_ns"]')" = 1000 ] ||
	fail "launch-bound evidence lacks the launch delay"
gen_launches 2000 3 "$TMP/backlog.json"
expect_rc 0 analyze --json "$TMP/backlog.json"
[ "$(json_get "$OUT" "$lb")" = "[]" ] || fail "a GPU with a backlog is called launch-bound"

# item 15: an empty trace is an error naming the file, for every command that reads traces
printf '{"traceEvents": []}' >"$TMP/empty.json"
printf '{"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "x"}}]}' \
	>"$TMP/meta-only.json"
for f in "$TMP/empty.json" "$TMP/meta-only.json"; do
	for cmd in "analyze" "analyze --json" "report -o $TMP/r.html" "export --format chrome -o $TMP/x.json"; do
		# shellcheck disable=SC2086
		expect_rc 1 $cmd "$f"
		err_has "$f: no events to analyse"
		err_one_line
	done
	expect_rc 1 compare "$f" "$TMP/comm.json"
	err_has "$f: no events to analyse"
done
[ ! -e "$TMP/r.html" ] && [ ! -e "$TMP/x.json" ] || fail "an output was written for an empty trace"

done_ok
