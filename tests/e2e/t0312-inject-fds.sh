#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0312-inject-fds.sh - the tracer owns its descriptors robustly: a program that
# closes every descriptor above 2 (a close loop as Python's os.closerange, or
# closefrom) or dup2()s its own file over them, then opens a log and writes 50
# lines while recording ranges, finishes with its exit status, its log holds its
# 50 lines and nothing else, and the capture holds every range and says that the
# tracer reopened its file. The tracer once spun on its closed wake pipe (the
# program never ended) and wrote 960 KB of capture records into the log that got
# its old descriptor number. Also: a program that execs leaks no descriptor of
# the tracer's into the new image, and both images are captured; and the same
# closerange program in Python.
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

# check_ranges REPORT NAME=COUNT...: the ranges, and the reopen warning
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
assert any("reopened its file" in w["text"] for w in cap["warning_messages"]), cap
PY
}

for how in closerange closefrom dup2; do
	run_app "$how" 3 "$APP" fds "$how" "$TMP/$how.log"
	grep -q "^fds $how: .* has 390 bytes" "$TMP/$how.out" || fail "$how: $(cat "$TMP/$how.out")"
	check_log "$TMP/$how.log"
	if [ "$how" = dup2 ]; then
		check_ranges "$TMP/$how.json" before=1 line=50 dup2ed=1
	else
		check_ranges "$TMP/$how.json" before=1 line=50
	fi
done

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
