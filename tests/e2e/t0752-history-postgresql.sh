#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0752-history-postgresql.sh - `gpuprof history` on a real PostgreSQL server started here
# from Debian's packages (initdb + pg_ctl in a temporary directory, a unix socket only, no
# TCP port), running as nobody when the test runs as root: the same suite as SQLite
# (history-suite.sh), then two processes adding 500 results each at once: 1,000 runs.
# Skips (77) where the server cannot start or gpuprof was built without libpq.
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] || { echo "skip: no PostgreSQL server"; exit 77; }
"$GPUPROF" history list --db "postgresql:///x?host=/nonexistent" 2>"$TMP/e" >/dev/null
grep -q "built without PostgreSQL" "$TMP/e" && { echo "skip: built without libpq"; exit 77; }

PGD=$(mktemp -d /tmp/gpuprof-pg.XXXXXX) || exit 1
as_pg() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	command -v runuser >/dev/null || { echo "skip: root without runuser"; exit 77; }
	chown nobody "$PGD"
	as_pg() { runuser -u nobody -- "$@"; }
fi
cleanup() {
	as_pg "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$PGD" "$TMP"
}
trap cleanup EXIT
as_pg "$PGBIN/initdb" -D "$PGD/data" -U gp --auth=trust >"$PGD/initdb.log" 2>&1 ||
	{ echo "skip: initdb failed: $(tail -2 "$PGD/initdb.log")"; exit 77; }
as_pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 60 \
	-o "-k $PGD -c listen_addresses='' -c fsync=off" start >/dev/null 2>&1 ||
	{ echo "skip: the server did not start: $(tail -2 "$PGD/log")"; exit 77; }
chmod 0755 "$PGD" 2>/dev/null

DB="postgresql://gp@/postgres?host=$PGD"
db_sql() { as_pg "$PGBIN/psql" -q -h "$PGD" -U gp -d postgres -c "$1" >/dev/null ||
	fail "psql $1"; }

# a database without the history's tables: the reading commands refuse it, and neither they
# nor an add that fails make the tables
expect_rc 1 history list --db "$DB"
err_has "no history database there (history add or import makes one)"
expect_rc 1 history add --db "$DB" "$TMP/nonexistent.json"
[ -z "$(as_pg "$PGBIN/psql" -tAq -h "$PGD" -U gp -d postgres \
	-c "SELECT to_regclass('schema_version')")" ] || fail "the tables were made"
. "$(dirname "$0")/history-suite.sh"

# an unreachable server: one error naming it, the password left out
expect_rc 1 history list --db "postgresql://gp:secret@/postgres?host=$PGD/none"
err_has "cannot connect"
err_one_line # libpq's hint on a line of its own is joined to it
grep -q secret "$ERR" && fail "the password in the error"

# two writers at once into a fresh database: 1,000 runs
db_sql "CREATE DATABASE conc"
DB2="postgresql://gp@/conc?host=$PGD"
. "$(dirname "$0")/history-writers.sh"
two_writers "$DB2" "$TMP/b.json"
done_ok
