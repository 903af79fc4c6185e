#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0400-bench.sh - `gpuprof bench`: commands (runs, warm-up, JSON, Markdown,
# failures, --shell, usage errors), the steps and ranges of Kineto traces,
# and the issue's acceptance: `bench --runs 20 -- sleep 0.02` against
# `-- sleep 0.03` is a regression (compare exits 3); a command against
# itself is not.
. "$(dirname "$0")/lib.sh"
need python3 sleep

K="$GP_SRC_DIR/tests/data/kineto"

# a command: 5 runs after the default warm-up of one
expect_rc 0 bench --runs 5 --json -- true
json_ok "$OUT"
[ "$(json_get "$OUT" 'd["schema"]')" = gpuprof.bench/1 ] || fail "schema"
[ "$(json_get "$OUT" 'd["source"]["kind"] + " " + repr(d["source"]["args"])')" = "command ['true']" ] ||
	fail "source"
[ "$(json_get "$OUT" 'd["series"][0]["n"], d["series"][0]["warmup"], len(d["series"][0]["warmup_times_ns"])')" = "(5, 1, 1)" ] ||
	fail "runs and warm-up"
# short_runs exactly when the median run is under 5 ms (on a loaded machine even 'true' may
# take longer), whatever outlier warnings a busy machine adds
json_get "$OUT" '("short_runs" in [w["id"] for w in d["series"][0]["warnings"]]) == (d["series"][0]["stats"]["median_ns"] < 5e6)' |
	grep -q True || fail "short_runs warning: $(json_get "$OUT" 'd["series"][0]["warnings"]')"
json_get "$OUT" 'all(c == 0 for c in d["series"][0]["exit_codes"])' | grep -q True || fail "exit codes"

# the statistics agree with Python's on the written samples (R-7 quantiles, n-1 std)
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "statistics differ from Python's (above)"
import json, statistics, sys
s = json.load(open(sys.argv[1]))["series"][0]
x = sorted(s["times_ns"])
st = s["stats"]
def q(p):
    h = (len(x) - 1) * p
    f = int(h)
    return x[f] + (h - f) * (x[min(f + 1, len(x) - 1)] - x[f])
for k, v in (("mean_ns", statistics.mean(x)), ("median_ns", statistics.median(x)),
             ("std_ns", statistics.stdev(x)), ("p90_ns", q(0.9)), ("p99_ns", q(0.99)),
             ("min_ns", x[0]), ("max_ns", x[-1])):
    assert abs(st[k] - v) <= 1e-6 * max(1, abs(v)), (k, st[k], v)
lo, hi = st["median_ci_ns"]
assert lo <= st["median_ns"] <= hi, st
tp = s["throughput"]["iterations_per_s"]
assert abs(tp - len(x) / (sum(x) / 1e9)) < 1e-6 * tp, tp
EOF

# the same seed gives the same intervals from the same samples: checked in the unit tests;
# here the text and Markdown tables
expect_rc 0 bench --runs 3 --warmup 0 --name quick -b 8 --rate-name samples/s -- true
out_has "quick  (3 iterations, 0 warm-up)"
out_has "samples/s  (batch 8"
out_has "warning: "
expect_rc 0 bench --runs 3 --markdown --tag dtype=fp16 -- true
out_has "| series | n | median"
out_has "| true | 3 |"

# -o writes the file, nothing on stdout
expect_rc 0 bench --runs 2 --json -o "$TMP/b.json" -- true
out_empty
json_ok "$TMP/b.json"

# failures: a failing command stops the benchmark unless -i; a missing one says so
expect_rc 1 bench --runs 3 -- false
err_has "exited with status 1 on run 1"
expect_rc 0 bench --runs 3 --warmup 0 -i --json -- false
json_get "$OUT" '[w["id"] for w in d["series"][0]["warnings"]]' | grep -q failed_runs ||
	fail "no failed_runs warning"
expect_rc 1 bench --runs 2 -- /nonexistent/gpuprof-no-such-command
err_has "could not be run"
expect_rc 0 bench --runs 2 --shell --json -- 'exit 0'
[ "$(json_get "$OUT" 'd["series"][0]["name"]')" = "exit 0" ] || fail "--shell name"

# usage errors (exit 2)
expect_rc 2 bench
expect_rc 2 bench --runs 0 -- true
expect_rc 2 bench --iter-range x -- true
# --runs makes the operands commands (hyperfine's way): a trace is no executable
expect_rc 1 bench --runs 3 "$K/modern.json"
err_has "could not be executed (exit status 126)"
expect_rc 2 bench --json --markdown -- true
expect_rc 2 bench --tag novalue -- true

# traces: the steps of a Kineto trace, and a range's instances
expect_rc 0 bench --json "$K/modern.json"
json_ok "$OUT"
[ "$(json_get "$OUT" '" ".join((d["source"]["kind"], d["series"][0]["name"], d["series"][0]["rate_name"]))')" = "trace ProfilerStep steps/s" ] ||
	fail "steps series: $(head -c 300 "$OUT")"
expect_rc 1 bench --iter-range no-such-range "$K/modern.json"
err_has "no range 'no-such-range'"
expect_rc 1 bench "$GP_SRC_DIR/tests/data/e2e/does-not-exist.json"

# a real trace: its 6 steps and the per-step GPU time, against the analysis's steps
if [ -d "${GP_SHARED_DIR:-}/traces/hta" ]; then
	T="$GP_SHARED_DIR/traces/hta/trace_diff_control_control.json.gz"
	expect_rc 0 bench --json "$T"
	cp "$OUT" "$TMP/steps.json"
	expect_rc 0 analyze --json "$T"
	NCHECK=$((NCHECK + 1))
	python3 - "$TMP/steps.json" "$OUT" <<'EOF' || fail "steps differ from analyze's (above)"
import json, sys
b = json.load(open(sys.argv[1]))["series"][0]
steps = [s for s in json.load(open(sys.argv[2]))["ranks"][0]["steps"]
         if not s["incomplete"] and s["number"] is not None]
assert b["times_ns"] == [s["dur_ns"] for s in steps], (b["times_ns"], steps)
assert b["gpu_ns"] == [s["gpu_busy_ns"] for s in steps]
assert b["n"] == len(steps) == 6, b["n"]
EOF
	expect_rc 0 bench --iter-range "## forward ##" --json "$T"
	[ "$(json_get "$OUT" 'd["series"][0]["n"]')" = 6 ] || fail "forward ranges"
fi

# the acceptance pair: 20 ms against 30 ms is a regression, a command against itself is not
expect_rc 0 bench --runs 20 --json -o "$TMP/s20.json" -- sleep 0.02
expect_rc 0 bench --runs 20 --json -o "$TMP/s30.json" -- sleep 0.03
expect_rc 0 bench --runs 20 --json -o "$TMP/s20b.json" -- sleep 0.02
expect_rc 3 compare "$TMP/s20.json" "$TMP/s30.json"
expect_rc 0 compare "$TMP/s20.json" "$TMP/s20b.json"
expect_rc 0 compare "$TMP/s20.json" "$TMP/s20.json"

# one iteration: singular, no spread shown as "± 0", and the few-samples warning tells the truth
expect_rc 0 bench --runs 1 --warmup 0 true
out_has "true  (1 iteration, 0 warm-up)"
out_has "  time    "
grep -q "± 0" "$OUT" && fail "a spread of one iteration"
grep -q "1 measured iterations" "$OUT" "$ERR" && fail "'1 measured iterations'"
expect_rc 0 bench --runs 1 --warmup 0 --markdown true
grep -q "± 0" "$OUT" && fail "a σ of one iteration in Markdown"
expect_rc 0 bench --runs 3 --warmup 0 true
grep -q "compare needs at least 5" "$OUT" "$ERR" && fail "a warning compare no longer holds to"
out_has "3 measured iterations: compare can confirm only large changes"

done_ok
