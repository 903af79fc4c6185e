#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0313-run-wait.sh - gpuprof run waits for every process CMD started, not only
# CMD: `sh -c "prog & exit 0"` once wrote an empty report at once while prog went
# on recording. With the default --wait all, the background program's ranges are
# in the report, run.json lists it under "processes" with its exit status, and a
# note names it on standard error; the exit status stays CMD's. With --wait
# primary gpuprof does not wait and says exactly which processes it left
# (stderr and run.json "not_waited", with whether each loaded the tracer).
# SIGTERM sent to gpuprof while it waits for them reaches them; SIGINT (Ctrl-C; a
# shell's `&` jobs ignore it) makes it stop waiting, and it says for which.
. "$(dirname "$0")/lib.sh"
need timeout

use_tracer annotate_app

# --- the default: wait for the background program
NCHECK=$((NCHECK + 1))
timeout 120 "$GPUPROF" run --no-cuda --sample-ms 0 -o "$TMP/all" -- \
	sh -c "(sleep 1; exec '$APP' ranges 20) & exit 0" >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" -eq 0 ] || fail "--wait all: exited $RC, expected sh's 0"
err_has "gpuprof run: CMD exited with status 0; waiting for 1 process it started, still running: pid"
python3 - "$TMP/all" <<'PY' || fail "--wait all: run.json or report.json"
import json, sys
run = json.load(open(sys.argv[1] + "/run.json"))
assert run["state"] == "exited" and run["exit_code"] == 0, run["state"]
assert run["options"]["wait"] == "all" and run["not_waited"] == [], run
procs = run["processes"]
assert len(procs) == 1 and procs[0]["state"] == "exited" and procs[0]["exit_code"] == 5, procs
assert procs[0]["end_monotonic_ns"] >= run["end_monotonic_ns"] + 0.9e9, (procs, run)
assert run["report"]["state"] == "written", run["report"]
r = json.load(open(sys.argv[1] + "/report.json"))["ranks"][0]
rg = {x["name"]: x["count"] for x in r["ranges"]}
assert rg.get("step") == 20 and rg.get("worker") == 2, rg
assert r["overview"]["capture"]["pid"] == procs[0]["pid"], r["overview"]["capture"]
PY

# --- --wait primary: not waited for, and said exactly
NCHECK=$((NCHECK + 1))
timeout 120 "$GPUPROF" run --wait primary --no-cuda --sample-ms 0 -o "$TMP/primary" -- \
	sh -c "(sleep 1; exec '$APP' ranges 20) & exit 0" >"$OUT" 2>"$ERR" </dev/null
RC=$?
[ "$RC" -eq 0 ] || fail "--wait primary: exited $RC"
err_has "gpuprof run: --wait primary: not waiting for 1 process CMD started: pid"
pid=$(python3 - "$TMP/primary" <<'PY'
import json, sys
run = json.load(open(sys.argv[1] + "/run.json"))
assert run["options"]["wait"] == "primary" and run["processes"] == [], run
left = run["not_waited"]
assert len(left) == 1 and left[0]["tracer"] is False and left[0]["command"], left
print(left[0]["pid"])
PY
) || fail "--wait primary: run.json"
# the program it left goes on: wait for it here, so that nothing outlives the test
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done

# --- SIGTERM while gpuprof waits for the others: forwarded to them
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/term" -- sh -c "sleep 100 & exit 3" \
	>"$OUT" 2>"$ERR" &
gp=$!
# a watchdog that ends with gpuprof (tail --pid), or kills it after 120 s
(timeout 120 tail --pid="$gp" -f /dev/null || kill -KILL "$gp") >/dev/null 2>&1 &
for _ in $(seq 100); do
	[ -e "$TMP/term/run.json" ] && pgrep -P "$gp" -x sleep >/dev/null && break
	sleep 0.1
done
pgrep -P "$gp" -x sleep >/dev/null || fail "SIGTERM: sleep never became gpuprof's child"
kill -TERM "$gp"
wait "$gp"
RC=$?
[ "$RC" -eq 3 ] || fail "SIGTERM: exited $RC, expected sh's 3"
python3 - "$TMP/term/run.json" <<'PY' || fail "SIGTERM: run.json"
import json, sys
run = json.load(open(sys.argv[1]))
procs = run["processes"]
assert len(procs) == 1 and procs[0]["exit_signal"] == "SIGTERM", procs
PY

# --- Ctrl-C (SIGINT) while gpuprof waits for them: it stops waiting, and says for which
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --sample-ms 0 -o "$TMP/int" -- sh -c "sleep 100 & exit 4" >"$OUT" 2>"$ERR" &
gp=$!
(timeout 120 tail --pid="$gp" -f /dev/null || kill -KILL "$gp") >/dev/null 2>&1 &
for _ in $(seq 100); do
	grep -q "waiting for 1 process" "$ERR" 2>/dev/null && break
	sleep 0.1
done
left=$(pgrep -P "$gp" -x sleep) || fail "SIGINT: sleep never became gpuprof's child"
kill -INT "$gp"
wait "$gp"
RC=$?
kill "$left" 2>/dev/null
[ "$RC" -eq 4 ] || fail "SIGINT: exited $RC, expected sh's 4"
err_has "gpuprof run: interrupted (SIGINT): not waiting for 1 process CMD started: pid $left"
python3 - "$TMP/int/run.json" "$left" <<'PY' || fail "SIGINT: run.json"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["wait_interrupted"] is True, run
assert [p["pid"] for p in run["not_waited"]] == [int(sys.argv[2])], run["not_waited"]
PY

echo "ok: $NCHECK checks"
