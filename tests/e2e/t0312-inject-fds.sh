#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0312-inject-fds.sh - the tracer owns its descriptors robustly: a program that
# closes every descriptor above 2 (a close loop as Python's os.closerange, or
# closefrom) or dup2()s its own file over them, then opens a log and writes 50
# lines while recording ranges, finishes with its exit status, its log holds its
# 50 lines and nothing else, and the capture holds every range. The tracer once
# spun on its closed wake pipe (the program never ended) and wrote 960 KB of
# capture records into the log that got its old descriptor number. Both ways the
# writer can hold its file: in a descriptor table of its own (unshare(2), the
# default: the program cannot reach it) and in the program's (the fallback,
# GPUPROF_INJECT_SHARED_FDS: it finds its descriptor gone, reopens its file and
# says so). A daemon that closes 0-2 too gets them back for its own /dev/null.
# A program that execs leaks no descriptor of the tracer's into the new image,
# and both images are captured. And the closerange program in Python.
. "$(dirname "$0")/lib.sh"
need python3 timeout

use_tracer stress_app
# short flushes: the writer passes many times while the program plays with its descriptors
export GPUPROF_FLUSH_MS=10
# in a ThreadSanitizer build (scripts/test.sh): a report fails the program; tsan.supp has the
# races on the tracer's descriptor that the program makes on purpose
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$GP_SRC_DIR/tests/inject/tsan.supp ${TSAN_OPTIONS:-}"

# run_app NAME WANT CMD...: gpuprof run into $TMP/NAME, at most 120 s (a hang is a failure)
run_app() {
	local name=$1 want=$2
	shift 2
	NCHECK=$((NCHECK + 1))
	timeout 120 "$GPUPROF" run --quiet --no-cuda --sample-ms 0 -o "$TMP/$name" -- "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
	[ "$RC" -ne 124 ] || fail "$name: gpuprof run did not end within 120 s (the tracer hangs)"
	[ "$RC" -eq "$want" ] || fail "$name: exited $RC, expected $want: $(cat "$TMP/$name.err")"
	expect_rc 0 analyze --json "$TMP/$name"
	json_ok "$OUT"
	cp "$OUT" "$TMP/$name.json"
}

# check_log LOG: exactly the 50 lines the program wrote
check_log() {
	python3 - "$1" <<'PY' || fail "$1 holds more than the program's 50 lines"
import sys
b = open(sys.argv[1], "rb").read()
want = "".join("line %d\n" % i for i in range(50)).encode()
assert b == want, (len(b), b[:80])
PY
}

# check_ranges REPORT NAME=COUNT...: the ranges; and, when the writer shared the program's
# descriptor table (META fd_table, GPUPROF_INJECT_SHARED_FDS), the warning that it reopened its
# file; with a table of its own, nothing to reopen and no warning
check_ranges() {
	local report=$1
	shift
	python3 - "$report" "$@" <<'PY' || fail "$report: ranges or warning"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
rg = {x["name"]: x["count"] for x in r["ranges"]}
want = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in sys.argv[2:])
assert rg == want, (rg, want)
cap = r["overview"]["capture"]
assert cap["end"]["reason"] == "exit" and cap["nvtx_unmatched"] == 0, cap
assert cap["dropped_records"] == 0, cap
PY
}

# check_table NAME WANT: the capture of run NAME says which descriptor table the writer used
# (META fd_table); a shared one must have found its descriptor gone and said so, a private one
# had nothing to find. WANT private may meet shared where unshare(2) is refused (seccomp).
check_table() {
	python3 - "$TMP/$1" "$TMP/$1.json" "$2" <<'PY' || fail "$1: descriptor table"
import glob, json, struct, sys
cap = glob.glob(sys.argv[1] + "/capture-*.gpcap")[0]
b = open(cap, "rb").read()
t, sz = struct.unpack("<II", b[16:24])
assert t == 1, t
table = json.loads(b[24:24 + sz])["fd_table"]
want = sys.argv[3]
if want == "shared":
    assert table == "shared", table
elif table != want:
    print("note: the writer shared the descriptor table (unshare(2) refused, or a TSan build)")
r = json.load(open(sys.argv[2]))["ranks"][0]
reopened = any("reopened its file" in w["text"] for w in r["overview"]["capture"]["warning_messages"])
assert reopened == (table == "shared"), (table, r["overview"]["capture"]["warning_messages"])
PY
}

# the program closes or replaces the tracer's descriptors: with the writer's own descriptor
# table (the default where unshare(2) is allowed), and sharing the program's (the fallback)
for table in private shared; do
	if [ "$table" = shared ]; then
		export GPUPROF_INJECT_SHARED_FDS=1
		modes="closerange closefrom"
	else
		unset GPUPROF_INJECT_SHARED_FDS
		modes="closerange closefrom dup2"
		# a ThreadSanitizer build keeps the shared table (session.c: TSan's descriptor
		# model); there a dup2 over the descriptor between its check and the write is
		# the race that only the private table rules out (docs/capture-format.md)
		[ "${GP_TSAN:-}" = 1 ] && modes="closerange closefrom"
	fi
	for how in $modes; do
		run_app "$how-$table" 3 "$APP" fds "$how" "$TMP/$how-$table.log"
		grep -q "^fds $how: .* has 390 bytes" "$TMP/$how-$table.out" ||
			fail "$how-$table: $(cat "$TMP/$how-$table.out")"
		check_log "$TMP/$how-$table.log"
		if [ "$how" = dup2 ]; then
			check_ranges "$TMP/$how-$table.json" before=1 line=50 dup2ed=1
		else
			check_ranges "$TMP/$how-$table.json" before=1 line=50
		fi
		check_table "$how-$table" "$table"
	done
done
unset GPUPROF_INJECT_SHARED_FDS

# a daemon: closes 0 to 2 too, then its first open and dups must be its standard streams,
# not numbers the tracer took when it reopened its file (shared table: the fallback's case)
GPUPROF_INJECT_SHARED_FDS=1 run_app daemon 3 "$APP" daemon "$TMP/daemon.log"
[ "$(cat "$TMP/daemon.log")" = "daemon: 0 1 2" ] || fail "daemon: $(cat "$TMP/daemon.log")"
check_ranges "$TMP/daemon.json" before=1 after=1
check_table daemon shared

# exec: no descriptor of the tracer's in the new image; each image has its capture, and
# the first one, cut by the exec, says that it has no END record
run_app exec 4 "$APP" exec "$TMP/exec.log"
grep -qx "execd: leaked 0" "$TMP/exec.out" || fail "exec: $(cat "$TMP/exec.out")"
set -- "$TMP/exec"/capture-*.gpcap
[ $# -eq 2 ] || fail "exec: expected two captures, got: $*"
python3 - "$TMP/exec.json" <<'PY' || fail "exec: the two captures"
import json, sys
ranks = json.load(open(sys.argv[1]))["ranks"]
by = {}
for r in ranks:
    for x in r["ranges"]:
        by[x["name"]] = (x["count"], r["overview"]["capture"])
assert by["before-exec"][0] == 1 and by["after-exec"][0] == 10, by.keys()
first, second = by["before-exec"][1], by["after-exec"][1]
assert first["pid"] == second["pid"], (first["pid"], second["pid"])
assert first["end"] is None and first["last_flush_ns"] is not None, first
assert any("no END record" in w["text"] and "exec" in w["text"]
           for w in first["warning_messages"]), first
assert second["end"]["reason"] == "exit", second
PY

# the same in Python: one range, os.closerange(3, 1024), a log of 50 lines in ranges
if [ "${GP_SANITIZED:-}" = 1 ]; then
	echo "ok: $NCHECK checks (sanitizer build: the Python program skipped)"
	exit 0
fi
export GPUPROF_LIBRARY="$B/libgpuprof.so" PYTHONPATH="$GP_SRC_DIR/python"
cat >"$TMP/closer.py" <<'PY'
import os, sys, gpuprof
assert gpuprof.recording()
with gpuprof.range("before"):
    pass
os.closerange(3, 1024)
with open(sys.argv[1], "w") as log:
    for i in range(50):
        with gpuprof.range("line"):
            log.write("line %d\n" % i)
            log.flush()
sys.exit(3)
PY
run_app python 3 python3 "$TMP/closer.py" "$TMP/python.log"
check_log "$TMP/python.log"
check_ranges "$TMP/python.json" before=1 line=50

echo "ok: $NCHECK checks"
