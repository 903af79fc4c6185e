#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0762-history-read-faults.sh - faults found in review of the history's reading commands:
#   - changes, check, list and report read while another process holds the write lock of
#     the SQLite file (WAL lets readers go on): none of them waits for it or fails;
#   - metric names, testbeds and commits with control characters (an ESC, an OSC title
#     sequence) never reach the terminal as such in list, changes, show or check, and
#     the lines of check and the series' headings fit a 60-column terminal even with a
#     300-character metric name and a 200-character commit;
#   - list: names that differ past the metric column's width read apart, whole where they fit;
#   - a METRIC-PATTERN that matches no series is an error (exit 1) for changes, check and
#     show, with --json too: a CI gate whose pattern is misspelt does not pass;
#   - a creep over the whole series (its change point at index 0, no run before it) is a
#     regression for check (exit 3) naming the creep's first and newest runs, not an error;
#   - check on a database that does not exist fails and makes none (nor .gpuprof).
. "$(dirname "$0")/lib.sh"
need python3
need_history_sqlite

DB="$TMP/h.sqlite"
python3 - "$TMP/h.csv" <<'PY'
import random, sys
rng = random.Random(5)
name = "x\x1b[31m<b>&" + "M" * 300 + "_ns"
with open(sys.argv[1], "w") as f:
    f.write('time,commit,"%s"\n' % name)
    for i in range(60):
        commit = "\x1b]0;pwn\x07c%04d" % i + "z" * 200
        v = 1e6 * (1.05 if i >= 50 else 1) * (1 + rng.gauss(0, 0.003))
        f.write("%d,%s,%.1f\n" % (1700000000 + i * 86400, commit, v))
PY
expect_rc 0 history import --db "$DB" --csv "$TMP/h.csv" --testbed "$(printf 'tb\033[2J')"

# a writer holds the lock: the readers go on (a wait of 0.2 s would fail them)
python3 - "$DB" "$GPUPROF" "$TMP" <<'PY' || fail "a reader waited for the writer (above)"
import os, sqlite3, subprocess, sys
db, gp, tmp = sys.argv[1:4]
c = sqlite3.connect(db, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE runs SET branch = 'b' WHERE id = 1")
env = dict(os.environ, GP_HISTORY_BUSY_TIMEOUT_MS="200")
for args in (["changes"], ["check"], ["list"], ["report", "-o", tmp + "/p.html"]):
    r = subprocess.run([gp, "history"] + args + ["--db", db], env=env,
                       capture_output=True, text=True)
    assert r.returncode in (0, 3), (args, r.returncode, r.stderr)
c.execute("ROLLBACK")
PY
NCHECK=$((NCHECK + 1))

# no control character reaches the terminal; the lines fit it
for sub in list changes check "show *_ns"; do
	# shellcheck disable=SC2086
	COLUMNS=60 run history $sub --db "$DB"
	[ "$RC" -le 3 ] || fail "history $sub exited $RC"
	python3 - "$OUT" <<'PY' || fail "history $sub: a control character in its text (above)"
import sys
t = open(sys.argv[1], encoding="utf-8").read()
bad = [c for c in t if (ord(c) < 32 and c != "\n") or ord(c) == 127]
assert not bad, repr(bad[:5])
PY
	[ "$sub" != check ] || no_width_over 60 "$OUT"
	# the series' heading lines too (the table of change points is of fixed width)
	[ "$sub" = list ] || { grep -v "^  *[0-9i]" "$OUT" >"$TMP/heads"; no_width_over 60 "$TMP/heads"; }
done

# list: two kernels' series whose names differ past the column's width read apart; a terminal
# wide enough shows them whole
k1="kernel/void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >/total_ns"
k2="kernel/void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >/total_ns"
printf 'time,commit,"%s","%s"\n2026-01-01,a,1,2\n' "$k1" "$k2" >"$TMP/k.csv"
expect_rc 0 history import --db "$TMP/k.sqlite" --csv "$TMP/k.csv" --testbed pool
for cols in 100 200; do
	COLUMNS=$cols expect_rc 0 history list --db "$TMP/k.sqlite"
	no_width_over "$cols" "$OUT"
	python3 - "$OUT" "$cols" "$k1" "$k2" <<'PY' || fail "list at $cols columns (above)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()[1:]
cols, names = int(sys.argv[2]), sys.argv[3:]
cells = [l.split("  ")[0] for l in lines]
assert len(cells) == 2 and cells[0] != cells[1], cells
assert ("Add" in cells[0]) and ("Mul" in cells[1]), cells
if cols == 200:
    assert cells == names, cells
PY
done

# a pattern that matches nothing: an error, never a pass
for sub in changes check show; do
	for json in "" --json; do
		# shellcheck disable=SC2086
		expect_rc 1 history $sub $json --db "$DB" 'step_tme*'
		err_has "no series matches 'step_tme*'"
		out_empty
	done
done
expect_rc 0 history list --db "$DB" 'step_tme*'

# a creep from the first point: 0.02 % a run over 150 runs, 0.4 % noise, no step
python3 - "$TMP/creep.csv" <<'PY'
import random, sys
rng = random.Random(4)
with open(sys.argv[1], "w") as f:
    f.write("time,commit,step_time_ns\n")
    for i in range(150):
        f.write("%d,c%04d,%.1f\n" % (1700000000 + i * 86400, i,
                                     1e6 * (1 + 0.0002 * i) * (1 + rng.gauss(0, 0.004))))
PY
expect_rc 0 history import --db "$TMP/creep.sqlite" --csv "$TMP/creep.csv"
expect_rc 0 history changes --db "$TMP/creep.sqlite" --json
[ "$(json_get "$OUT" '[(c["index"], c["kind"]) for c in d[0]["changes"]]')" = "[(0, 'trend')]" ] ||
	fail "the creep is not found from its first point"
expect_rc 3 history check --db "$TMP/creep.sqlite"
out_has "creep at index 0 (run 1, c0000"
out_has "the creep's first and newest runs: run 1 (c0000)"

# the gate opens no new database: a misspelt --db, or the default in a folder without one
expect_rc 1 history check --db "$TMP/typo.sqlite"
err_has "no history database there"
[ ! -e "$TMP/typo.sqlite" ] || fail "check made '$TMP/typo.sqlite'"
mkdir "$TMP/fresh"
(cd "$TMP/fresh" && GPUPROF_HISTORY= "$GPUPROF" history check >/dev/null 2>&1)
[ $? = 1 ] || fail "check without a database did not fail"
[ ! -e "$TMP/fresh/.gpuprof" ] || fail "check made '.gpuprof'"
NCHECK=$((NCHECK + 1))
done_ok
