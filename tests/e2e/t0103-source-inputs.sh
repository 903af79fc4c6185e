#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0103-source-inputs.sh - what a PATH is, decided once (src/lib/source/resolve.c), as users see
# it: a run directory without a capture is analysed and reported; a metrics timeline is read by
# analyze and report whatever its name; files beside rank traces that are no traces are skipped
# with one warning; inputs claiming the same rank are warned about and --rank R never matches two;
# '-' reads standard input; an error about a missing rank or range lists the ones there are.
. "$(dirname "$0")/lib.sh"
need python3 gzip

# -- a run directory without a capture: a program that used no CUDA (--no-cuda: nothing to inject)
export GPUPROF_NVML_LIBRARY=/nonexistent/nvml.so
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
"$GPUPROF" run --quiet --no-cuda -o "$TMP/run" -- sh -c 'sleep 0.3; exit 3' >/dev/null 2>&1
[ -f "$TMP/run/run.json" ] && [ -f "$TMP/run/metrics.jsonl" ] || fail "gpuprof run left no run.json or metrics.jsonl"
ls "$TMP/run"/*.gpcap >/dev/null 2>&1 && fail "a capture without CUDA or NVTX"
expect_rc 0 analyze "$TMP/run"
out_has "sh -c"
out_has "exit status 3"
out_has "duration"
out_has "no GPU timeline: "
out_has "Metrics ("
expect_rc 0 analyze --json -o "$TMP/run.json" "$TMP/run"
json_ok "$TMP/run.json"
[ "$(json_get "$TMP/run.json" 'd["run"]["exit_code"]')" = 3 ] || fail "run.exit_code"
[ "$(json_get "$TMP/run.json" 'len(d["ranks"])')" = 0 ] || fail "ranks of a run without capture"
[ "$(json_get "$TMP/run.json" 'd["run"]["wall_ns"] > 0 and d["metrics"]["samples"] >= 1')" = True ] ||
	fail "run.wall_ns or metrics"
[ "$(json_get "$TMP/run.json" 'len(d["no_gpu_timeline"]) > 0')" = True ] || fail "no_gpu_timeline"
expect_rc 0 report -q -o "$TMP/run.html" "$TMP/run"
grep -q 'data-env="run_end">exit status 3 after' "$TMP/run.html" || fail "report: how the run ended"
grep -q 'data-env="no_gpu_timeline"' "$TMP/run.html" || fail "report: why no GPU timeline"

# -- a metrics timeline, as a run writes it and as `top --record FILE` may name it
expect_rc 0 analyze "$TMP/run/metrics.jsonl"
out_has "Metrics ("
cp "$TMP/run/metrics.jsonl" "$TMP/recorded.json"
expect_rc 0 analyze --json "$TMP/recorded.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["metrics"]["samples"] >= 1' "$OUT" ||
	fail "metrics of a recorded timeline"
expect_rc 0 report -q -o "$TMP/rec.html" "$TMP/recorded.json"
expect_rc 0 export -q -o "$TMP/rec.chrome.json" "$TMP/recorded.json"
json_ok "$TMP/rec.chrome.json"

# -- rank traces with other JSON files beside them: the traces analysed, the rest named once
mkdir "$TMP/ranks"
cp "$DATA/cpu-only.json" "$TMP/ranks/trace_rank-0.json"
cp "$DATA/cpu-only.json" "$TMP/ranks/trace_rank-1.json"
echo '{"lr": 0.001, "batch_size": 32}' >"$TMP/ranks/config.json"
echo '{"schema": "gpuprof.bench/1", "series": []}' >"$TMP/ranks/bench.json"
expect_rc 0 analyze --json -o "$TMP/ranks.json" "$TMP/ranks"
[ "$(grep -c 'warning: skipped 2 files' "$ERR")" = 1 ] || fail "one warning naming the skipped files"
err_has "config.json (not a trace)"
err_has "bench.json (a bench result)"
[ "$(json_get "$TMP/ranks.json" '[r["rank"] for r in d["ranks"]]')" = "[0, 1]" ] || fail "ranks of the directory"
expect_rc 0 analyze -q "$TMP/ranks"
[ -s "$ERR" ] && fail "-q printed a warning"
expect_rc 0 export -o "$TMP/ranks.chrome.json" "$TMP/ranks"
err_has "warning: skipped 2 files that export does not read"
expect_rc 0 report -q -o "$TMP/ranks.html" "$TMP/ranks"
# typed, a file that is no trace is an error that says what it is
expect_rc 1 analyze "$TMP/ranks/bench.json"
err_has "is a bench result: analyze does not read it"

# -- inputs that claim the same rank: warned about; --rank R never matches two
mkdir "$TMP/same"
cp "$DATA/tiny.json" "$TMP/same/a.json"
cp "$DATA/tiny.json" "$TMP/same/b.json"
expect_rc 0 analyze --json "$TMP/same"
err_has "2 inputs claim rank 0"
expect_rc 1 analyze --rank 0 "$TMP/same"
err_has "--rank 0 matches more than one input"
err_one_line
"$GPUPROF" analyze --json -q "$TMP/same" >"$TMP/same.analyze.json"
expect_rc 1 report -q --rank 0 -o "$TMP/same.html" "$TMP/same.analyze.json"
err_has "--rank 0 matches 2 ranks of the report"

# -- the processes of a run without a launcher are processes (by pid), not ranks
mkdir "$TMP/procs"
python3 - "$TMP/procs" <<'PY'
import struct, sys
def rec(t, payload):
    return struct.pack("<II", t, len(payload)) + payload + b"\0" * ((8 - len(payload) % 8) % 8)
def nvtx(ts, tid, kind, msg=b""):
    return rec(13, struct.pack("<qIB3xIIQII", ts, tid, kind, 0, 0, 0, 0, 0) + msg)
end = rec(2, b'{"reason":"exit","mono_ns":0,"real_ns":0,"cupti_version":0}')
for pid in (4242, 4343):
    meta = b'{"schema":"gpuprof.capture/1","pid":%d}' % pid
    body = b"GPCAPT\r\n" + struct.pack("<II", 1, 16) + rec(1, meta)
    body += nvtx(1000, 1, 1, b"step") + nvtx(2000, 1, 2) + end
    open("%s/capture-%d.gpcap" % (sys.argv[1], pid), "wb").write(body)
PY
expect_rc 0 analyze --json -o "$TMP/procs.json" "$TMP/procs"
[ "$(json_get "$TMP/procs.json" '[r.get("label") for r in d["ranks"]]')" = "['process 4242', 'process 4343']" ] ||
	fail "processes labelled by pid"
[ -s "$ERR" ] && fail "processes numbered by order were taken for the same rank"
expect_rc 0 analyze "$TMP/procs"
out_has "== process 4242: "
out_has "== process 4343: "
grep -q "== rank" "$OUT" && fail "the text calls processes ranks"
expect_rc 0 report -q -o "$TMP/procs.html" "$TMP/procs"

# -- errors that say what does not exist list what does
expect_rc 1 analyze --rank 7 "$TMP/ranks"
err_has "no trace of rank 7 among the inputs (ranks: 0, 1)"
expect_rc 1 bench --iter-range nope "$GP_SRC_DIR/tests/data/kineto/modern.json"
err_has "no range 'nope' (ranges: 'ProfilerStep#7')"
"$GPUPROF" analyze --json -q "$DATA/tiny.json" >"$TMP/tiny.analyze.json"
expect_rc 1 report -q --rank 5 -o "$TMP/x.html" "$TMP/tiny.analyze.json"
err_has "no rank 5 (ranks: 0)"

# -- '-' reads a trace from standard input, plain or gzip
"$GPUPROF" analyze --json "$DATA/tiny.json" >"$TMP/file.json" || fail "analyze tiny.json"
NCHECK=$((NCHECK + 1))
"$GPUPROF" analyze --json - <"$DATA/tiny.json" >"$TMP/stdin.json" 2>"$ERR" || fail "analyze - failed"
python3 - "$TMP/file.json" "$TMP/stdin.json" <<'PY' || fail "standard input read differently"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert b["ranks"][0]["file"] == "<stdin>", b["ranks"][0]["file"]
for r in a["ranks"] + b["ranks"]:
    del r["file"]
assert a == b
PY
NCHECK=$((NCHECK + 1))
gzip -c "$DATA/tiny.json" | "$GPUPROF" analyze --json - >"$TMP/stdin-gz.json" 2>"$ERR" || fail "analyze - (gzip) failed"
cmp -s "$TMP/stdin.json" "$TMP/stdin-gz.json" || fail "gzip on standard input read differently"
NCHECK=$((NCHECK + 1))
"$GPUPROF" export -q -o "$TMP/stdin.chrome.json" - <"$DATA/tiny.json" 2>"$ERR" || fail "export - failed"
json_ok "$TMP/stdin.chrome.json"
# a gpuprof document on standard input: the resolver read it whole, the loaders use those bytes
"$GPUPROF" report -q -o "$TMP/stdin-doc.html" - <"$TMP/file.json" 2>"$ERR" || fail "report - (a report) failed"
grep -q "<html" "$TMP/stdin-doc.html" || fail "report - (a report): no page"
"$GPUPROF" compare - "$TMP/file.json" <"$TMP/file.json" >"$OUT" 2>"$ERR" || fail "compare - (a report) failed"
out_has "base '-' (report)"
# what a command does not read is named as that command's
expect_rc 1 report -q -o "$TMP/mixed.html" "$DATA/tiny.json" "$TMP/file.json"
err_has "report does not read it"

done_ok
