#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0330-annotate.sh - the annotation API (include/gpuprof/annotate.h) end to end,
# with no GPU and no CUDA: tests/inject/annotate_app, a CPU-only annotated
# program, runs under `gpuprof run --no-cuda` and plain `gpuprof run`; its
# output and exit code pass through, and `gpuprof analyze --json` shows its
# ranges (names, domain "gpuprof", counts, call sites), the frame marks, the
# counters, the second thread's ranges. Capture windows follow annotation
# ranges and marks: --schedule with --iter-range on a range and on a mark, and
# --capture-range nvtx:NAME on an annotation range, keep exactly the
# iterations they should (the counter samples tell which). Also: the header
# compiles as C++ (GPUPROF_SCOPE), and the program runs unchanged without
# gpuprof.
. "$(dirname "$0")/lib.sh"
need python3

B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
APP="$B/tests/inject/annotate_app"
for f in "$B/libgpuprof-inject.so" "$APP"; do
	[ -e "$f" ] || { echo "skip: no $f"; exit 77; }
done
export GPUPROF_INJECT_LIBRARY="$B/libgpuprof-inject.so" GPUPROF_NVML_LIBRARY=/nonexistent/nvml.so
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUPROF_ANNOTATE_LIBRARY

# without gpuprof: no tool, the same output and exit code
NCHECK=$((NCHECK + 1))
"$APP" ranges 5 >"$TMP/plain.out"
rc=$?
[ "$rc" -eq 5 ] || fail "annotate_app alone exited $rc, expected 5"
[ "$(cat "$TMP/plain.out")" = "annotate_app ranges 5: attached 0" ] ||
	fail "annotate_app alone printed: $(cat "$TMP/plain.out")"

# run_app NAME [gpuprof run options...] -- APP ARGS: a run into $TMP/NAME, its report in $OUT
run_app() {
	local name=$1
	shift
	NCHECK=$((NCHECK + 1))
	"$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/$name" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
	[ "$RC" -eq 5 ] || fail "$name: gpuprof run exited $RC, expected 5: $(cat "$TMP/$name.err")"
	grep -q "attached 1" "$TMP/$name.out" || fail "$name: no recorder: $(cat "$TMP/$name.out")"
	set -- "$TMP/$name"/capture-*.gpcap
	[ $# -eq 1 ] && [ -s "$1" ] || fail "$name: expected one capture file, got: $*"
	expect_rc 0 analyze --json "$TMP/$name"
	json_ok "$OUT"
}

# --- every kind of annotation, with and without the CUDA injection
for how in no-cuda cuda; do
	opt=--no-cuda
	[ "$how" = cuda ] && opt=
	run_app "basic-$how" $opt -- "$APP" ranges 5
	python3 - "$OUT" "$GP_SRC_DIR" <<'EOF' || fail "basic-$how: the report"
import json, re, sys
d = json.load(open(sys.argv[1]))
src = open(sys.argv[2] + "/tests/inject/annotate_app.c").read().split("\n")
line = lambda pat: next(i + 1 for i, l in enumerate(src) if pat in l)
r = d["ranks"][0]
rg = {x["name"]: x for x in r["ranges"]}
assert set(rg) == {"step", "decode", "worker"}, rg.keys()
for n, c in (("step", 5), ("decode", 5), ("worker", 2)):
    assert rg[n]["count"] == c, (n, rg[n])
    assert rg[n]["domain"] == "gpuprof", rg[n]
    assert rg[n]["total_ns"] > 0, rg[n]
# the call sites: the file as the compiler named it, and the macro's line
assert rg["step"]["source"].endswith("annotate_app.c:%d" % line('GPUPROF_RANGE_PUSH("step")')), rg["step"]
assert rg["decode"]["source"].endswith("annotate_app.c:%d" % line('GPUPROF_RANGE_PUSH("decode")'))
assert rg["worker"]["source"].endswith("annotate_app.c:%d" % line('GPUPROF_SCOPE("worker")'))
# nesting: decode lies inside step
assert rg["decode"]["total_ns"] <= rg["step"]["total_ns"], rg
ann = {x["name"]: x["count"] for x in r["annotations"]}
assert ann == {"gpuprof:step": 5, "gpuprof:decode": 5, "gpuprof:worker": 2}, ann
# two threads
assert r["overview"]["threads"] >= 2, r["overview"]["threads"]
cap = r["overview"]["capture"]
assert cap["marks"] == [{"count": 5, "domain": "gpuprof", "name": "frame"}], cap["marks"]
assert cap["nvtx_marks"] == 5 and cap["nvtx_unmatched"] == 0, cap
assert cap["windows"] is None and cap["dropped_records"] == 0, cap
assert r["counters"] == [{"count": 5, "last": 4, "max": 4, "mean": 2, "min": 0, "name": "queue"}], r["counters"]
EOF
done
# the program's output and exit code are its own
[ "$(cat "$TMP/basic-cuda.out")" = "annotate_app ranges 5: attached 1" ] ||
	fail "output under gpuprof run: $(cat "$TMP/basic-cuda.out")"
# run.json lists the recorder's variable
[ "$(json_get "$TMP/basic-no-cuda/run.json" 'd["environment"]["GPUPROF_ANNOTATE_LIBRARY"]')" = \
	"$(cd "$B" && pwd -P)/libgpuprof-inject.so" ] || fail "GPUPROF_ANNOTATE_LIBRARY in run.json"

# --- the capture's times are CLOCK_MONOTONIC's, with the TSC as the event clock or without
for clk in auto mono; do
	if [ "$clk" = mono ]; then
		run_app "clock-$clk" --no-cuda -- env GPUPROF_INJECT_CLOCK=mono "$APP" clock 20
	else
		run_app "clock-$clk" --no-cuda -- "$APP" clock 20
	fi
	python3 - "$OUT" "$TMP/clock-$clk.out" <<'EOF' || fail "clock-$clk: range times off CLOCK_MONOTONIC"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
t = [tuple(map(int, l.split()[1:])) for l in open(sys.argv[2]) if l.startswith("clock ")]
assert len(t) == 20, t
rg = {x["name"]: x for x in r["ranges"]}["timed"]
assert rg["count"] == 20, rg
# each range lies between its two clock reads (1 us of slack for the conversion)
assert rg["min_ns"] >= 2000000 - 1000, rg
assert rg["max_ns"] <= max(b - a for a, b in t) + 1000, (rg, max(b - a for a, b in t))
ov = r["overview"]
assert t[0][0] - 1000 <= ov["start_ns"] <= t[0][1], (ov["start_ns"], t[0])
assert t[-1][0] <= ov["start_ns"] + ov["span_ns"] <= t[-1][1] + 1000, (ov, t[-1])
EOF
done

# check_window NAME "COUNTER VALUES" RANGE=COUNT... : the counter samples kept, the ranges counted
check_window() {
	python3 - "$OUT" "$@" <<'EOF' || fail "$1: windows do not follow the annotations"
import json, sys
d = json.load(open(sys.argv[1]))
name, want = sys.argv[2], [int(x) for x in sys.argv[3].split()]
r = d["ranks"][0]
cap = r["overview"]["capture"]
wins = cap["windows"]
assert wins, (name, "no windows listed")
for w in wins:
    assert w["start_ns"] < w["end_ns"], w
n = len(want)
c = r["counters"]
assert len(c) == 1 and c[0]["name"] == "queue" and c[0]["count"] == n, (name, c)
assert (c[0]["min"], c[0]["max"]) == (min(want), max(want)), (name, c)
assert abs(c[0]["mean"] - sum(want) / n) < 1e-9, (name, c)
rg = {x["name"]: x["count"] for x in r["ranges"]}
for kv in sys.argv[4:]:
    k, v = kv.split("=")
    assert rg.get(k, 0) == int(v), (name, k, rg)
print(name, "ok:", rg, [(w["reason"], w["end_reason"]) for w in wins])
EOF
}

# --- --schedule with --iter-range on an annotation range: wait 1, warm up 1, record 2, twice
run_app steps --no-cuda --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range step -- \
	"$APP" ranges 10
check_window steps "2 3 6 7" step=4 decode=4
[ "$(json_get "$OUT" 'len(d["ranks"][0]["overview"]["capture"]["windows"])')" = 2 ] ||
	fail "steps: expected 2 windows"
# the same delimited by frame marks ("tick"): the iteration after the i-th mark
run_app marks --no-cuda --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range tick -- \
	"$APP" marks 10
check_window marks "2 3 6 7" work=4
# --capture-range nvtx:NAME follows an annotation range too (with CUDA injection on)
run_app range --capture-range nvtx:decode -- "$APP" ranges 3
python3 - "$OUT" <<'EOF' || fail "range: --capture-range nvtx:decode"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
rg = {x["name"]: x["count"] for x in r["ranges"]}
# inside each decode only: decode kept, step (around it) not, nor the counter (after it); the
# other thread's "worker" may fall inside a window or not
assert rg.get("decode") == 3 and "step" not in rg, rg
wins = r["overview"]["capture"]["windows"]
assert len(wins) == 3 and all(w["reason"] == "nvtx" for w in wins), wins
assert r["counters"] == [], r["counters"]
EOF

# --- C++: the header compiles and GPUPROF_SCOPE records (when a C++ compiler is here)
if command -v c++ >/dev/null 2>&1; then
	NCHECK=$((NCHECK + 1))
	cat >"$TMP/scope.cc" <<'EOF'
#include <gpuprof/annotate.h>
#include <cstdio>
static int work(int i)
{
	GPUPROF_SCOPE("cxx scope");
	GPUPROF_COUNTER("cxx counter", i);
	return i * 2;
}
int main()
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += work(i);
	GPUPROF_FRAME();
	std::printf("%d %d\n", s, gpuprof_annotate_attached());
	return 0;
}
EOF
	c++ -std=c++11 -Wall -Wextra -Werror -I"$GP_SRC_DIR/include" -o "$TMP/scope" "$TMP/scope.cc" \
		-lpthread -ldl 2>"$TMP/cxx.err" || fail "the header does not compile as C++: $(cat "$TMP/cxx.err")"
	# an instrumented recorder cannot be loaded into this uninstrumented program
	if "$GPUPROF" version --build-options | grep -q 'sanitizers: *none'; then
		"$GPUPROF" run --quiet --sample-ms 0 --no-cuda -o "$TMP/cxx" -- "$TMP/scope" >"$TMP/cxx.out" ||
			fail "cxx: gpuprof run failed"
		[ "$(cat "$TMP/cxx.out")" = "12 1" ] || fail "cxx output: $(cat "$TMP/cxx.out")"
		expect_rc 0 analyze --json "$TMP/cxx"
		python3 - "$OUT" <<'EOF' || fail "cxx: the report"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
rg = {x["name"]: x["count"] for x in r["ranges"]}
assert rg == {"cxx scope": 4}, rg
assert r["counters"][0]["name"] == "cxx counter" and r["counters"][0]["count"] == 4
EOF
	fi
fi

done_ok
