#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0315-inject-killed.sh - a capture cut short says so, and run.json never stays
# "running". A program SIGKILLed under gpuprof run: its capture has no END record,
# analyze says so with the time of the tracer's last write, and (from run.json)
# how long after it the process was killed; the "no GPU" finding speaks of the
# cut, not of torch.profiler. With a 5 s flush and a kill after 1 s the capture
# still holds its META (the writer's first pass). gpuprof itself SIGKILLed:
# run.json turns "unknown", with why. A full disk at the end: run.json's last
# state goes into the room its first version kept (tmpfs; skipped without mount).
. "$(dirname "$0")/lib.sh"
need python3 timeout

use_tracer stress_app

# wait_for FILE: until FILE exists (at most 30 s)
wait_for() {
	for _ in $(seq 300); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "no $1 after 30 s"
}

# killed NAME FLUSH_MS: a long stress_app under gpuprof run, SIGKILLed once its capture
# has grown (or after 1 s with a long flush)
killed() {
	local name=$1 flush=$2 d="$TMP/$1" app
	NCHECK=$((NCHECK + 1))
	GPUPROF_FLUSH_MS=$flush "$GPUPROF" run --sample-ms 0 --no-cuda -o "$d" -- \
		"$APP" stress 2 10000000 >"$TMP/$name.out" 2>"$TMP/$name.err" &
	local gp=$!
	wait_for "$d/run.json"
	for _ in $(seq 300); do
		set -- "$d"/capture-*.gpcap
		[ -s "$1" ] && break
		sleep 0.1
	done
	sleep 1
	app=$(pgrep -o -P "$gp" -x stress_app) || fail "$name: no stress_app under gpuprof"
	kill -KILL "$app"
	wait "$gp"
	RC=$?
	[ "$RC" -eq 137 ] || fail "$name: gpuprof run exited $RC, expected 128+9 as CMD"
}

killed kill500 500
grep -q "the capture has no END record" "$TMP/kill500.err" ||
	fail "kill500: the summary does not say that the capture was cut: $(head -c 2000 "$TMP/kill500.err")"
grep -q "was killed by SIGKILL [0-9.]* [nµm]*s after the tracer's last write" "$TMP/kill500.err" ||
	fail "kill500: the summary does not say how long after the last write"
python3 - "$TMP/kill500" <<'PY' || fail "kill500: report.json"
import json, sys
run = json.load(open(sys.argv[1] + "/run.json"))
assert run["state"] == "signaled" and run["exit_signal"] == "SIGKILL", run["state"]
r = json.load(open(sys.argv[1] + "/report.json"))["ranks"][0]
cap = r["overview"]["capture"]
assert cap["end"] is None and cap["last_flush_ns"] > 0, cap
assert cap["process_end"]["exit_signal"] == "SIGKILL", cap
assert cap["process_end"]["end_monotonic_ns"] == run["end_monotonic_ns"], (cap, run)
assert 0 <= cap["lost_after_flush_ns"] < 60e9, cap["lost_after_flush_ns"]
texts = [w["text"] for w in cap["warning_messages"]]
assert any("no END record" in t for t in texts), texts
assert any("was killed by SIGKILL" in t for t in texts), texts
rg = {x["name"]: x["count"] for x in r["ranges"]}
assert rg.get("outer", 0) > 0, rg
PY
expect_rc 0 analyze "$TMP/kill500"
out_has "the capture has no END record"
out_has "after the tracer's last write"

# a long flush: the first pass has written META, the rest is lost, and it is said
killed kill5s 5000
python3 - "$TMP/kill5s" <<'PY' || fail "kill5s: report.json"
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))["ranks"][0]
cap = r["overview"]["capture"]
assert cap["pid"] is not None and cap["cmdline"], cap
assert cap["end"] is None, cap
f = [x for x in r["findings"] if x["id"] == "no-gpu"]
assert f and "no END record" in f[0]["suggestion"], f
assert "ProfilerActivity" not in f[0]["suggestion"], f
PY

# gpuprof itself SIGKILLed while CMD runs: run.json says "unknown", with why
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/gpkill" -- sleep 3 >/dev/null 2>&1 &
gp=$!
wait_for "$TMP/gpkill/run.json"
kill -KILL "$gp"
wait "$gp" 2>/dev/null
for _ in $(seq 100); do
	grep -q '"state": "unknown"' "$TMP/gpkill/run.json" && break
	sleep 0.1
done
python3 - "$TMP/gpkill/run.json" "$gp" <<'PY' || fail "gpuprof killed: run.json"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["state"] == "unknown", run["state"]
assert "gpuprof (pid %s) ended before it completed this file" % sys.argv[2] in run["state_reason"], run
PY

# a full disk at the end (a 1 MiB tmpfs, filled by CMD): run.json's last state in place
mkdir -p "$TMP/mnt"
if mount -t tmpfs -o size=1m tmpfs "$TMP/mnt" 2>/dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
	NCHECK=$((NCHECK + 1))
	"$GPUPROF" run --sample-ms 0 -o "$TMP/mnt/run" -- \
		sh -c "dd if=/dev/zero of='$TMP/mnt/fill' bs=4k 2>/dev/null; exit 6" >"$OUT" 2>"$ERR"
	RC=$?
	[ "$RC" -eq 6 ] || fail "full disk: exited $RC, expected CMD's 6"
	err_has "run.json written in place instead"
	python3 - "$TMP/mnt/run/run.json" <<'PY' || fail "full disk: run.json"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["state"] == "exited" and run["exit_code"] == 6, run["state"]
PY
	umount "$TMP/mnt"
else
	echo "note: cannot mount a tmpfs here: the full-disk case is not checked"
fi

echo "ok: $NCHECK checks"
