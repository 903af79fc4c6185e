#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0768-history-no-database.sh - only add and import make a history database:
#   - list, changes, show, check, report and export on a database that does not exist fail
#     (exit 1, "no history database there") and make nothing: no file, no -wal or -shm, no
#     .gpuprof folder for the default path, no page; an empty file is no history either;
#   - an add whose result cannot be read or parsed (alone, or after a good one) and an
#     import whose CSV has a bad row leave no file when there was none; on an existing
#     database they write nothing and keep it;
#   - add and import still make a new database, and the reading commands then read it.
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace
need_history_sqlite

"$GEN" --steps 4 -o "$TMP/t.json" >/dev/null 2>&1 || fail "gen_trace"
expect_rc 0 bench --json -o "$TMP/b.json" "$TMP/t.json"
printf '{"schema": "gpuprof-bench/1", "results": [' >"$TMP/cut.json"
printf 'time,commit,m_ns\n2026-01-01,a,1\n2026-01-02,b,2\n' >"$TMP/ok.csv"
printf 'time,commit,m_ns\n2026-01-01,a,1\n2026-01-02,b,2\n2026-01-03,c,x\n' >"$TMP/bad.csv"
mkdir "$TMP/d"
DB="$TMP/d/h.sqlite"

# nothing there (the folder stays empty)
no_files() {
	[ -z "$(ls -A "$TMP/d")" ] || fail "$1 left: $(ls -A "$TMP/d" | tr '\n' ' ')"
}
for sub in list changes "show m_ns" check "export --jsonl" "report -o $TMP/d/p.html"; do
	# shellcheck disable=SC2086
	expect_rc 1 history $sub --db "$DB"
	err_has "h.sqlite': no history database there (history add or import makes one)"
	err_one_line
	out_empty
	no_files "history $sub"
done
# the default path, in a folder without one: nor the .gpuprof folder
for sub in list changes "export --jsonl"; do
	# shellcheck disable=SC2086
	(cd "$TMP/d" && GPUPROF_HISTORY= "$GPUPROF" history $sub >"$OUT" 2>"$ERR")
	[ $? = 1 ] || fail "history $sub without a database did not fail"
	err_has "'.gpuprof/history.sqlite': no history database there"
	no_files "history $sub (the default path)"
done
# an empty file is no history; it is left as it is
: >"$TMP/empty.sqlite"
expect_rc 1 history list --db "$TMP/empty.sqlite"
err_has "empty.sqlite': no history database there"
[ -f "$TMP/empty.sqlite" ] && [ ! -s "$TMP/empty.sqlite" ] || fail "the empty file was changed"

# a failed add or import makes no database
expect_rc 1 history add --db "$DB" "$TMP/nonexistent.json"
no_files "an add of a missing result"
expect_rc 1 history add --db "$DB" "$TMP/cut.json"
no_files "an add of a cut result"
expect_rc 1 history add --db "$DB" "$TMP/b.json" "$TMP/cut.json"
no_files "an add of a good and a cut result"
expect_rc 1 history import --db "$DB" --csv "$TMP/bad.csv"
err_has "line 4"
no_files "an import with a bad row"
(cd "$TMP/d" && GPUPROF_HISTORY= "$GPUPROF" history import --csv "$TMP/bad.csv" >/dev/null 2>&1)
[ ! -e "$TMP/d/.gpuprof/history.sqlite" ] || fail "an import with a bad row made the default"
rm -rf "$TMP/d/.gpuprof"

# add and import make it; a failed one then keeps it, unchanged
expect_rc 0 history add --db "$DB" "$TMP/b.json"
[ -s "$DB" ] || fail "add made no database"
expect_rc 0 history import --db "$TMP/d/i.sqlite" --csv "$TMP/ok.csv"
expect_rc 0 history list --db "$TMP/d/i.sqlite"
out_has "m_ns"
expect_rc 1 history add --db "$DB" "$TMP/b.json" "$TMP/cut.json"
expect_rc 1 history import --db "$DB" --csv "$TMP/bad.csv"
expect_rc 0 history export --jsonl --db "$DB"
[ "$(wc -l <"$OUT")" = 1 ] || fail "a failed add or import changed the database"
done_ok
