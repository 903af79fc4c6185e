#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0767-history-readonly-folder.sh - a SQLite history in a folder gpuprof cannot write (SQLite
# cannot make its -shm or journal file beside it): list, changes, show, check, report and
# export read it (opened immutable) and say what the writable original says; add and import
# refuse with one line naming it, and nothing is written beside it or into it; a copy whose
# write-ahead log holds changes not yet in the file is refused, not read without them.
# Run as nobody when the test runs as root (root writes any folder); skips (77) where the
# permissions cannot bind.
. "$(dirname "$0")/lib.sh"
need python3
need_history_sqlite

DB="$TMP/h.sqlite"
python3 - "$TMP/h.csv" <<'PY'
import random, sys
rng = random.Random(7)
with open(sys.argv[1], "w") as f:
    f.write("time,commit,step_time_ns,tokens_per_s\n")
    for i in range(80):
        step = 1.04 if i >= 60 else 1.0
        f.write("%d,c%03d,%.1f,%.1f\n" % (1700000000 + i * 3600, i,
                1e6 * step * (1 + rng.gauss(0, 0.002)), 5e4 * (1 + rng.gauss(0, 0.002))))
PY
expect_rc 0 history import --db "$DB" --csv "$TMP/h.csv" --testbed pool

# the read-only copies: RO/ro.sqlite (a read-only file), RO/rw.sqlite (a writable file: the
# folder alone binds), WAL/h.sqlite with a log of changes not yet in it
RO="$TMP/ro"
WAL="$TMP/wal"
W="$TMP/w"
mkdir "$RO" "$WAL" "$W" && cp "$DB" "$RO/ro.sqlite" && cp "$DB" "$RO/rw.sqlite" &&
	chmod 0444 "$RO/ro.sqlite" && chmod 0666 "$RO/rw.sqlite" && chmod 1777 "$W" ||
	fail "the copies"
cp "$DB" "$TMP/late.sqlite" || fail "cp"
python3 - "$TMP/late.sqlite" "$WAL" <<'PY' || fail "the copy with a write-ahead log"
import shutil, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("UPDATE runs SET branch = 'late'")
for s in ("", "-wal"):
    shutil.copy(sys.argv[1] + s, sys.argv[2] + "/late.sqlite" + s)
c.close()
PY
chmod 0444 "$WAL"/* && chmod 0555 "$RO" "$WAL" || fail "chmod"

REAL_GPUPROF=$GPUPROF
if [ "$(id -u)" = 0 ]; then
	chmod 0711 "$TMP" || fail "chmod $TMP"
	if command -v runuser >/dev/null; then
		printf '#!/bin/sh\nexec runuser -u nobody -- "%s" "$@"\n' "$GPUPROF" >"$TMP/as-nobody"
	elif command -v setpriv >/dev/null; then
		printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups -- "%s" "$@"\n' \
			"$GPUPROF" >"$TMP/as-nobody"
	else
		echo "skip: root without runuser or setpriv"
		exit 77
	fi
	chmod 0755 "$TMP/as-nobody"
	GPUPROF="$TMP/as-nobody"
fi
# the permissions must bind the user the commands run as
if [ "$(id -u)" != 0 ] && touch "$RO/probe" 2>/dev/null; then
	echo "skip: the folder's permissions do not bind this user"
	exit 77
fi

# what the writable original says (read as the same user, from a writable folder)
cp "$DB" "$W/orig.sqlite" && chmod 0666 "$W/orig.sqlite" || fail "the original's copy"
for name in ro rw; do
	for sub in list changes "show step_time_ns" check "export --jsonl"; do
		# shellcheck disable=SC2086
		run history $sub --db "$W/orig.sqlite"
		cp "$OUT" "$TMP/want"
		want_rc=$RC
		# shellcheck disable=SC2086
		run history $sub --db "$RO/$name.sqlite"
		[ "$RC" = "$want_rc" ] && [ "$RC" -le 3 ] ||
			fail "history $sub of $name.sqlite in a read-only folder exited $RC ($want_rc wanted)"
		cmp -s "$OUT" "$TMP/want" || fail "history $sub of $name.sqlite differs from the original"
	done
	expect_rc 0 history report --db "$RO/$name.sqlite" -o "$W/$name.html"
	[ -s "$W/$name.html" ] || fail "no page of $name.sqlite"
	grep -q step_time_ns "$W/$name.html" || fail "the page of $name.sqlite lacks its series"
	expect_rc 3 history check --db "$RO/$name.sqlite" step_time_ns
	out_has "regression"

	# writes: one line naming the database, nothing written
	expect_rc 1 history import --db "$RO/$name.sqlite" --csv "$TMP/h.csv"
	err_has "$name.sqlite': the database is read-only"
	err_one_line
	cmp -s "$RO/$name.sqlite" "$DB" || fail "$name.sqlite was written"
done
[ "$(ls -A "$RO")" = "$(printf 'ro.sqlite\nrw.sqlite')" ] ||
	fail "files made beside the database: $(ls -A "$RO" | tr '\n' ' ')"

# a log with changes not yet in the file: refused (reading without it would drop them)
expect_rc 1 history list --db "$WAL/late.sqlite"
err_has "late.sqlite-wal' holds changes not yet in it"
err_one_line
GPUPROF=$REAL_GPUPROF
done_ok
