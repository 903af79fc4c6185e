#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0402-bench-hyperfine.sh - what a hyperfine user types works (issue 21, item 16):
# `bench --shell 'sleep 0.01 && echo hi'`; several commands in one run, compared in one
# table with the fastest named and the ratios with intervals; options after the
# commands; -S SHELL and -N; --parameter-scan (integers, decimals exactly) and
# --parameter-list (every combination, in hyperfine's order) with {NAME} in the commands,
# names, --batch-size, --prepare, --setup and --cleanup; --prepare before every run and
# --cleanup after each command's runs, counted by the files they write; a batch-size
# sweep's latency, throughput and knee; one JSON that compare and report read; hyperfine's
# --export-json and --export-markdown. Nothing here depends on how long a run takes.
. "$(dirname "$0")/lib.sh"
need python3 sleep

# --- hyperfine's own example: one string through the shell
expect_rc 0 bench --shell --runs 2 --json 'sleep 0.01 && echo hi'
json_ok "$OUT"
[ "$(json_get "$OUT" '(d["source"]["kind"], d["series"][0]["name"], d["series"][0]["exit_codes"])')" = \
	"('command', 'sleep 0.01 && echo hi', [0, 0])" ] || fail "--shell 'CMD'"
# without --runs too, and the output of the command does not reach ours
expect_rc 0 bench --shell -m 2 -M 2 'sleep 0.01 && echo hi'
out_has "sleep 0.01 && echo hi  (2 iterations, 1 warm-up)"
grep -qx "hi" "$OUT" && fail "the command's output came through"
# options after the commands, as hyperfine takes them; --shell=SHELL and -S SHELL
expect_rc 0 bench 'test -n "$BASH_VERSION"' --runs 1 -w 0 --shell=bash --json
[ "$(json_get "$OUT" 'd["series"][0]["exit_codes"]')" = "[0]" ] || fail "--shell=bash"
expect_rc 1 bench -S sh --runs 1 -w 0 'test -n "$BASH_VERSION"'
err_has "exited with status 1 on run 1"
# hyperfine's "--shell bash 'CMD'": here --shell takes no word, so say how to name the shell
expect_rc 2 bench --shell bash 'true'
err_has "name the shell with -S bash or --shell=bash"
# -N: no shell, the line split into words (quotes kept together)
expect_rc 0 bench -N --runs 1 -w 0 --json "sh -c 'exit 0' 'a b'"
[ "$(json_get "$OUT" 'd["series"][0]["exit_codes"]')" = "[0]" ] || fail "-N"
expect_rc 2 bench -N --runs 1 "sh -c 'exit 0"
err_has "a quote (') is not closed"

# --- several commands: one table, the fastest named, ratios with intervals
expect_rc 0 bench --runs 5 -w 0 --json 'true' 'sleep 0.01' 'sh -c "exit 0"'
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "several commands (above)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["series"]
assert [x["name"] for x in s] == ["true", "sleep 0.01", 'sh -c "exit 0"'], s
assert d["source"]["args"] == ["true", "sleep 0.01", 'sh -c "exit 0"'], d["source"]
f = d["fastest"]["index"]
assert d["fastest"]["name"] == s[f]["name"]
med = [x["stats"]["median_ns"] for x in s]
assert med[f] == min(med), (f, med)
for i, x in enumerate(s):
    r = x["relative"]
    assert r["fastest"] == (i == f), r
    assert abs(r["ratio"] - med[i] / med[f]) < 1e-9 * r["ratio"] + 1e-6, (r, med)
    if i != f:
        assert r["ratio"] >= 1 and r["ratio_lo"] is not None and r["ratio_hi"] >= r["ratio_lo"], r
        assert r["mean_ratio"] > 0 and r["mean_ratio_std"] is not None, r
EOF
expect_rc 0 bench --runs 5 -w 0 'true' 'sleep 0.01'
out_has "Against the fastest (ratio of the medians, 99% CI: the level of alpha 0.01)"
out_has "× fastest [99% CI]"
out_has "1 (fastest)"
out_has "Summary"
out_has " ran"
out_has " times faster than "
grep -q "(99% CI [0-9.]* \.\. [0-9.]*" "$OUT" || fail "no interval in the summary"
expect_rc 0 bench --runs 5 -w 0 --markdown 'true' 'sleep 0.01'
out_has "| series | n | median | mean ± σ | p95 | p99 | min | rate | × fastest [99% CI] |"
out_has "**Summary:** "
# --name once per command (hyperfine's --command-name too)
expect_rc 0 bench --runs 2 -w 0 --json -n first --command-name second 'true' 'true'
[ "$(json_get "$OUT" '[s["name"] for s in d["series"]]')" = "['first', 'second']" ] || fail "names"
expect_rc 2 bench --runs 2 -n a -n b -n c 'true' 'true'
err_has "3 names for 2 commands"

# --- parameters: values, order, substitution
expect_rc 0 bench -P t 0.3 0.7 -D 0.2 --runs 1 -w 0 --json 'true {t}'
[ "$(json_get "$OUT" '[s["name"] for s in d["series"]]')" = "['true 0.3', 'true 0.5', 'true 0.7']" ] ||
	fail "decimal scan: $(json_get "$OUT" '[s["name"] for s in d["series"]]')"
[ "$(json_get "$OUT" '(d["parameters"], [s["parameters"] for s in d["series"]], d["series"][0]["template"])')" = \
	"(['t'], [{'t': '0.3'}, {'t': '0.5'}, {'t': '0.7'}], 'true {t}')" ] || fail "parameters in the JSON"
# a scan after the command, with negative values (the operands of -P are not options)
expect_rc 0 bench 'true {n}' -P n -2 2 -D 2 --runs 1 -w 0 --json
[ "$(json_get "$OUT" '[s["name"] for s in d["series"]]')" = "['true -2', 'true 0', 'true 2']" ] ||
	fail "-P after the command"
# two lists: every combination, the commands fastest, then the first list (hyperfine's order)
expect_rc 0 bench -L a x,y -L b 1,2 --runs 1 -w 0 --json 'echo {a}{b}' 'true {b}'
[ "$(json_get "$OUT" '[s["name"] for s in d["series"]]')" = \
	"['echo x1', 'true 1 (a = x)', 'echo y1', 'true 1 (a = y)', 'echo x2', 'true 2 (a = x)', 'echo y2', 'true 2 (a = y)']" ] ||
	fail "product: $(json_get "$OUT" '[s["name"] for s in d["series"]]')"
# after '--': {NAME} in each word, no shell
expect_rc 0 bench -L n 'a b,c' --runs 1 -w 0 --json -- test '{n}' '!=' ''
[ "$(json_get "$OUT" '([s["name"] for s in d["series"]], [s["exit_codes"] for s in d["series"]])')" = \
	"(['test a b != ', 'test c != '], [[0], [0]])" ] || fail "-- with a parameter"
# a name with {NAME}
expect_rc 0 bench -P n 1 2 -n 'n={n}' --runs 1 -w 0 --json 'true'
[ "$(json_get "$OUT" '[s["name"] for s in d["series"]]')" = "['n=1', 'n=2']" ] || fail "--name {n}"
# usage errors: exit 2, said clearly
expect_rc 2 bench -D 1 --runs 1 'true'
err_has "--parameter-step-size needs --parameter-scan"
expect_rc 2 bench -P n 3 1 'true'
err_has "above the maximum"
expect_rc 2 bench -P n 0.1 0.3 'true'
err_has "need a step size"
expect_rc 2 bench -P n 1 'true'
expect_rc 2 bench -L n 1,2 -L n 3 'true'
err_has "parameter 'n' is given twice"
expect_rc 2 bench -L 'a b' 1,2 'true'
expect_rc 2 bench -L bs 1,x -b '{bs}' --runs 1 'true'
err_has "expects a positive number, not 'x' (for 'true (bs = x)')"

# --- --setup once, --prepare before every run (warm-up too), --cleanup after each command
D="$TMP/marks"
mkdir "$D"
expect_rc 0 bench -P n 1 3 --runs 2 -w 1 --setup "touch $D/setup.{n}" \
	--prepare "mktemp $D/prep.{n}.XXXXXX" --cleanup "touch $D/clean.{n}" \
	'test -e '"$D"'/setup.{n}'
[ "$(ls "$D" | grep -c '^prep\.')" = 9 ] || fail "prepare: $(ls "$D")"
for n in 1 2 3; do
	[ "$(ls "$D" | grep -c "^prep\.$n\.")" = 3 ] || fail "prepare for n=$n: $(ls "$D")"
	[ -e "$D/setup.$n" ] && [ -e "$D/clean.$n" ] || fail "setup or cleanup for n=$n: $(ls "$D")"
done
# one per command
rm -f "$D"/*
expect_rc 0 bench --runs 1 -w 0 -p "touch $D/p1" -p "touch $D/p2" -c "touch $D/c1" -c "touch $D/c2" \
	'true' 'true'
[ "$(ls "$D" | tr '\n' ' ')" = "c1 c2 p1 p2 " ] || fail "per command: $(ls "$D")"
expect_rc 2 bench --runs 1 -p a -p b -p c 'true' 'true'
err_has "3 --prepare commands for 2 commands"
# a failing --prepare stops the benchmark; --cleanup still runs
rm -f "$D"/*
expect_rc 1 bench --runs 2 --prepare 'exit 4' --cleanup "touch $D/cleaned" 'true'
err_has "the --prepare command 'exit 4' exited with status 4"
[ -e "$D/cleaned" ] || fail "no cleanup after a failed prepare"
# after '--', --prepare still runs through a shell
expect_rc 0 bench --runs 1 -w 0 --prepare "touch $D/a && touch $D/b" -- true
[ -e "$D/b" ] || fail "prepare after --"

# --- a batch-size sweep: latency and throughput per value, the knee, one JSON
expect_rc 0 bench -L bs 1,2,4,8 --runs 3 -w 0 --json -o "$TMP/sweep.json" 'true {bs}'
NCHECK=$((NCHECK + 1))
python3 - "$TMP/sweep.json" <<'EOF' || fail "sweep (above)"
import json, sys
d = json.load(open(sys.argv[1]))
sw = d["sweeps"]
assert len(sw) == 1 and sw[0]["parameter"] == "bs" and sw[0]["template"] == "true {bs}", sw
sw = sw[0]
assert sw["batch_sweep"] and sw["numeric"], sw
pts = sw["points"]
assert [p["value"] for p in pts] == ["1", "2", "4", "8"] and [p["batch_size"] for p in pts] == [1, 2, 4, 8]
for p in pts:
    s = d["series"][p["series"]]
    assert s["batch_size"] == p["batch_size"] and s["rate_name"] == "items/s", s["rate_name"]
    assert p["median_ns"] == s["stats"]["median_ns"] and p["p99_ns"] == s["stats"]["p99_ns"]
    assert p["items_per_s"] == s["throughput"]["items_per_s"]
# the knee: the smallest value reaching 90 % of the best throughput, none when that is the last
best = max(p["items_per_s"] for p in pts)
k = next(p for p in pts if p["items_per_s"] >= 0.9 * best)
if k is pts[-1]:
    assert sw["knee"] is None and "still rising" in sw["knee_note"], sw
else:
    assert sw["knee"]["value"] == k["value"] and sw["knee"]["best_items_per_s"] == best, sw["knee"]
EOF
expect_rc 0 bench --runs 2 -w 0 -L bs 1,2,4 'true {bs}'
out_has "Sweep over bs (true {bs})"
out_has "knee: "
# with a batch size the rate counts items, not runs (it said "runs/s" before)
expect_rc 0 bench --runs 1 -w 0 -b 8 --json -- true
[ "$(json_get "$OUT" 'd["series"][0]["rate_name"]')" = "items/s" ] || fail "rate of a batch"
# -b {NAME} names the batch; without it a parameter called bs, batch or batch_size is one
expect_rc 0 bench --runs 1 -w 0 -L n 2,3 -b '{n}' --json 'true'
[ "$(json_get "$OUT" '[s["batch_size"] for s in d["series"]]')" = "[2, 3]" ] || fail "-b {n}"
# compare and report read the one JSON of a scan
cp "$TMP/sweep.json" "$TMP/sweep2.json"
expect_rc 0 compare "$TMP/sweep.json" "$TMP/sweep2.json"
out_has "== series 'true 8'"
expect_rc 0 report -q -o "$TMP/sweep.html" "$TMP/sweep.json"
NCHECK=$((NCHECK + 1))
python3 - "$GP_SRC_DIR/tests/e2e" "$TMP/sweep.html" <<'EOF' || fail "the page's data (above)"
import sys
sys.path.insert(0, sys.argv[1])
import reportpage
p = reportpage.page_data(open(sys.argv[2], encoding="utf-8").read())
assert p["kind"] == "bench" and len(p["doc"]["sweeps"][0]["points"]) == 4, p["kind"]
EOF

# --- hyperfine's exports, beside the output
expect_rc 0 bench --runs 2 -w 0 --export-json "$TMP/e.json" --export-markdown "$TMP/e.md" 'true'
out_has "true  (2 iterations, 0 warm-up)"
json_ok "$TMP/e.json"
grep -qF "| true | 2 |" "$TMP/e.md" || fail "--export-markdown"

# a command typed as a path is said to be one
expect_rc 1 bench 'sleep 0.01'
err_has "to time a command, give it after '--', or as a string with --shell"
done_ok
