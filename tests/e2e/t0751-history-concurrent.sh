#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0751-history-concurrent.sh - three first opens of a new SQLite file at once all land;
# two processes adding 500 results each at once into one SQLite file lose no row: 1,000
# runs, each with all its metrics (WAL, BEGIN IMMEDIATE and the busy timeout).
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace
need_history_sqlite

"$GEN" --steps 4 -o "$TMP/t.json" >/dev/null 2>&1 || fail "gen_trace"
expect_rc 0 bench --json -o "$TMP/b.json" "$TMP/t.json"
# three first opens of a new file at once: one makes it (WAL, the tables), the others wait
for i in 1 2 3 4 5 6 7 8 9 10; do
	for w in 1 2 3; do
		"$GPUPROF" history add --db "$TMP/new$i.sqlite" "$TMP/b.json" 2>>"$TMP/new.err" &
	done
	wait
	[ "$("$GPUPROF" history export --jsonl --db "$TMP/new$i.sqlite" | wc -l)" = 3 ] ||
		fail "first opens at once: $(grep -v added "$TMP/new.err" | head -2)"
done
NCHECK=$((NCHECK + 1))

DB="$TMP/c.sqlite"
printf 'time,commit,m\n' >"$TMP/none.csv"
expect_rc 0 history import --db "$DB" --csv "$TMP/none.csv" # made before the writers start

. "$(dirname "$0")/history-writers.sh"
two_writers "$DB" "$TMP/b.json"
done_ok
