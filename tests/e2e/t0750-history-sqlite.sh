#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0750-history-sqlite.sh - `gpuprof history` on SQLite (history-suite.sh: add, list,
# export, import --csv, the noise guard, bad input, a newer schema), then what only a file
# has: the default path, $GPUPROF_HISTORY, a read-only database (read, not written), a locked
# one.
. "$(dirname "$0")/lib.sh"
need python3
need sqlite3
need_gen_trace
need_history_sqlite

DB="$TMP/h.sqlite"
db_sql() { sqlite3 "$DB" "$1" || fail "sqlite3 $1"; }
. "$(dirname "$0")/history-suite.sh"

# the default: $GPUPROF_HISTORY, else .gpuprof/history.sqlite in the current directory (a
# GPUPROF_HISTORY of the caller's environment would take the run elsewhere)
unset GPUPROF_HISTORY
(cd "$TMP" && "$GPUPROF" history add "$TMP/b.json" 2>/dev/null) || fail "add to the default"
[ -s "$TMP/.gpuprof/history.sqlite" ] || fail "no .gpuprof/history.sqlite"
GPUPROF_HISTORY="$TMP/env.sqlite" run history add "$TMP/b.json"
[ -s "$TMP/env.sqlite" ] || fail "GPUPROF_HISTORY not used"

# a read-only database (a copy another user owns, when the test runs as root): the commands
# that read work; a write is one clear error naming it, with nothing written
RO="$TMP/ro"
mkdir "$RO" && cp "$DB" "$TMP/b.json" "$TMP/otava.csv" "$RO/" && chmod 0444 "$RO"/* ||
	fail "the read-only copy"
mv "$RO/h.sqlite" "$RO/ro.sqlite"
REAL_GPUPROF=$GPUPROF
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
	chmod 0711 "$TMP" && chmod 1777 "$RO" || fail "chmod"
	printf '#!/bin/sh\nexec runuser -u nobody -- "%s" "$@"\n' "$GPUPROF" >"$TMP/as-nobody"
	chmod 0755 "$TMP/as-nobody"
	GPUPROF="$TMP/as-nobody"
fi
if [ "$(id -u)" != 0 ] || [ "$GPUPROF" != "$REAL_GPUPROF" ]; then
	nro=$(sqlite3 "$RO/ro.sqlite" "SELECT count(*) FROM runs")
	expect_rc 0 history export --jsonl --db "$RO/ro.sqlite"
	[ "$(wc -l <"$OUT")" = "$nro" ] || fail "export of a read-only database"
	expect_rc 0 history list --db "$RO/ro.sqlite" step_time.mean
	expect_rc 0 history changes --db "$RO/ro.sqlite" --json
	expect_rc 1 history add --db "$RO/ro.sqlite" "$RO/b.json"
	err_has "ro.sqlite': the database is read-only"
	err_one_line
	expect_rc 1 history import --db "$RO/ro.sqlite" --csv "$RO/otava.csv"
	err_has "ro.sqlite': the database is read-only"
	[ "$(sqlite3 "$RO/ro.sqlite" "SELECT count(*) FROM runs")" = "$nro" ] ||
		fail "a read-only database was written"
fi
GPUPROF=$REAL_GPUPROF

# a locked database: one clear error naming it
python3 - "$DB" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[1] + ".held", "w").close()
time.sleep(3)
c.execute("ROLLBACK")
PY
holder=$!
while [ ! -e "$DB.held" ]; do sleep 0.05; done
GP_HISTORY_BUSY_TIMEOUT_MS=100 run history add --db "$DB" "$TMP/b.json"
[ "$RC" = 1 ] || fail "a locked database: exit $RC"
grep -q "h.sqlite'.*locked" "$ERR" || fail "a locked database: $(cat "$ERR")"
wait "$holder"
done_ok
