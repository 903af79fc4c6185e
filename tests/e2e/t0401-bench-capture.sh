#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0401-bench-capture.sh - `gpuprof bench` on the captures of `gpuprof run`: the
# iterations of a CPU-only program annotated with include/gpuprof/annotate.h
# (tests/inject/annotate_app.c, no CUDA). Frame marks "tick" delimit 8 iterations
# (9 marks), the range "work" inside each is a second series at once (each with
# its rate: FPS and work/s), a mark matches with or without its domain
# ("gpuprof:tick"), the warm-up takes the first iterations out, and the 2 ms
# "timed" ranges of the clock mode measure 2 ms and more (usleep) but not much
# more; the times equal the ranges' own durations in analyze's report.
. "$(dirname "$0")/lib.sh"
need python3
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
APP="$B/tests/inject/annotate_app"
for f in "$APP" "$B/libgpuprof-inject.so"; do
	[ -e "$f" ] || { echo "skip: no $f"; exit 77; }
done
export GPUPROF_INJECT_LIBRARY="$B/libgpuprof-inject.so" GPUPROF_NVML_LIBRARY=/nonexistent/nvml.so
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUPROF_ANNOTATE_LIBRARY

NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --no-report --sample-ms 0 --no-cuda -o "$TMP/marks" -- "$APP" marks 8 \
	>/dev/null 2>"$TMP/run.err"
[ $? -eq 5 ] || fail "gpuprof run: $(cat "$TMP/run.err")"

expect_rc 0 bench --json --frame-mark tick --iter-range work "$TMP/marks"
json_ok "$OUT"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "two series (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"]["kind"] == "trace", d["source"]
s = {x["name"]: x for x in d["series"]}
assert list(s) == ["work", "tick"], list(s)
assert s["tick"]["n"] == 8 and s["work"]["n"] == 8, (s["tick"]["n"], s["work"]["n"])
assert s["tick"]["rate_name"] == "FPS" and s["work"]["rate_name"] == "work/s"
# a frame holds its work range: never shorter
for f, w in zip(s["tick"]["times_ns"], s["work"]["times_ns"]):
    assert f >= w > 0, (f, w)
assert s["tick"]["gpu_ns"] is None, "no GPU in a CPU-only program"
PY

# the domain-qualified name, and the warm-up
expect_rc 0 bench --json --warmup 3 --frame-mark gpuprof:tick "$TMP/marks"
[ "$(json_get "$OUT" 'd["series"][0]["n"], d["series"][0]["warmup"], len(d["series"][0]["warmup_times_ns"])')" = "(5, 3, 3)" ] ||
	fail "warm-up of 3 of 8 frames"
expect_rc 1 bench --frame-mark no-such-mark "$TMP/marks"
err_has "fewer than two marks 'no-such-mark'"
expect_rc 1 bench --warmup 8 --frame-mark tick "$TMP/marks"
err_has "all within the warm-up"
# no ProfilerStep in a capture: say how to name the iterations
expect_rc 1 bench "$TMP/marks"
err_has "--iter-range NAME or --frame-mark NAME"

# ranges of a known length: usleep(2000) inside each
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --no-report --sample-ms 0 --no-cuda -o "$TMP/clock" -- "$APP" clock 12 \
	>/dev/null 2>"$TMP/run.err"
[ $? -eq 5 ] || fail "gpuprof run (clock): $(cat "$TMP/run.err")"
expect_rc 0 bench --json --iter-range timed "$TMP/clock"
cp "$OUT" "$TMP/timed.json"
expect_rc 0 analyze --json "$TMP/clock"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/timed.json" "$OUT" <<'PY' || fail "timed ranges (above)"
import json, sys
s = json.load(open(sys.argv[1]))["series"][0]
r = {x["name"]: x for x in json.load(open(sys.argv[2]))["ranks"][0]["ranges"]}["timed"]
assert s["n"] == 12 == r["count"], (s["n"], r["count"])
assert sum(s["times_ns"]) == r["total_ns"], (sum(s["times_ns"]), r["total_ns"])
assert min(s["times_ns"]) == r["min_ns"] and max(s["times_ns"]) == r["max_ns"]
assert 2e6 <= s["stats"]["median_ns"] < 50e6, s["stats"]["median_ns"]
assert s["rate_name"] == "timed/s", s["rate_name"]
PY
done_ok
