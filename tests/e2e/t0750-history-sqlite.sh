#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0750-history-sqlite.sh - `gpuprof history` on SQLite (history-suite.sh: add, list,
# export, import --csv, the noise guard, bad input, a newer schema), then what only a file
# has: the default path, $GPUPROF_HISTORY, a read-only database, a locked one.
. "$(dirname "$0")/lib.sh"
need python3
need sqlite3
need_gen_trace
"$GPUPROF" version --build-options 2>/dev/null | grep -Eq 'history sqlite: +yes' ||
	{ echo "skip: built without libsqlite3-dev"; exit 77; }

DB="$TMP/h.sqlite"
db_sql() { sqlite3 "$DB" "$1" || fail "sqlite3 $1"; }
. "$(dirname "$0")/history-suite.sh"

# the default: .gpuprof/history.sqlite in the current directory, else $GPUPROF_HISTORY
(cd "$TMP" && "$GPUPROF" history add "$TMP/b.json" 2>/dev/null) || fail "add to the default"
[ -s "$TMP/.gpuprof/history.sqlite" ] || fail "no .gpuprof/history.sqlite"
GPUPROF_HISTORY="$TMP/env.sqlite" run history add "$TMP/b.json"
[ -s "$TMP/env.sqlite" ] || fail "GPUPROF_HISTORY not used"

# a read-only database and a locked one: one clear error naming it
cp "$DB" "$TMP/ro.sqlite"
chmod 0444 "$TMP/ro.sqlite"
if [ "$(id -u)" != 0 ]; then
	expect_rc 1 history add --db "$TMP/ro.sqlite" "$TMP/b.json"
	err_has "ro.sqlite"
	err_has "read-only"
fi
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
