#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0310-inject.sh - the injected tracer (libgpuprof-inject.so) without a GPU:
# driver_sim drives it as the CUDA driver would, with the fake CUPTI behind it
# (normal exit, SIGTERM, SIGKILL, fork); nvtx_app is a real NVTX3 program
# (ranges, domains, a fork, SIGKILL). Each capture is read back by
# `gpuprof analyze`. Skipped where the CUDA toolkit was absent at build time.
. "$(dirname "$0")/lib.sh"
need python3

B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
INJ="$B/libgpuprof-inject.so"
FAKE="$B/tests/fake/libfake-cupti.so"
SIM="$B/tests/inject/driver_sim"
APP="$B/tests/inject/nvtx_app"
for f in "$INJ" "$FAKE" "$SIM" "$APP"; do
	[ -e "$f" ] || { echo "skip: no $f (built without the CUDA toolkit)"; exit 77; }
done

# analyze_dir DIR [--salvage]: gpuprof analyze --json of a capture directory into $OUT
analyze_dir() {
	local d=$1
	shift
	expect_rc 0 analyze --json "$@" "$d"
	json_ok "$OUT"
}

# capture_end FILE: prints the END record's reason, or "none"
capture_end() {
	python3 - "$1" <<'EOF'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"GPCAPT\r\n", b[:8]
o, reason = 16, "none"
while o + 8 <= len(b):
    t, sz = struct.unpack("<II", b[o:o + 8])
    if o + 8 + sz > len(b):
        break
    if t == 2:
        end = json.loads(b[o + 8:o + 8 + sz])
        reason = end["reason"]
        assert end["cupti_version"] == 130001, end  # the fake's CUPTI_API_VERSION
    o += 8 + sz + (8 - sz % 8) % 8
print(reason)
EOF
}

# --- the CUDA path, four ways to end
for mode in exit term kill fork; do
	d="$TMP/cap-$mode"
	mkdir "$d"
	NCHECK=$((NCHECK + 1))
	# CUDA events on request, in one of the four
	ev=0
	[ "$mode" = exit ] && ev=1
	# a run takes a second or two: a hang fails here, naming the mode, instead of at
	# ctest's 600 s limit (one ASan run hung once, in a mode the log did not say)
	GPUPROF_CUDA_EVENTS=$ev GPUPROF_CAPTURE_DIR="$d" timeout 120 "$SIM" "$INJ" "$FAKE" 5 "$mode" \
		>"$TMP/sim.out" 2>"$TMP/sim.err"
	rc=$?
	[ "$rc" -ne 124 ] || fail "driver_sim $mode hung (stopped after 120 s): $(tail -n 20 "$TMP/sim.err")"
	case $mode in
	exit | fork) want=0 ;;
	term) want=143 ;;
	kill) want=137 ;;
	esac
	[ "$rc" -eq "$want" ] || fail "driver_sim $mode exited $rc, expected $want: $(cat "$TMP/sim.err")"
	grep -q "checks ok" "$TMP/sim.out" || fail "driver_sim $mode: $(cat "$TMP/sim.err")"
	set -- "$d"/capture-*.gpcap
	[ $# -eq 1 ] && [ -s "$1" ] || fail "$mode: expected one capture file, got: $*"
	end=$(capture_end "$1")
	case $mode in
	exit | fork) [ "$end" = exit ] || fail "$mode: END reason '$end'" ;;
	term) [ "$end" = "signal 15" ] || fail "term: END reason '$end'" ;;
	kill) [ "$end" = none ] || fail "kill: an END record after SIGKILL?" ;;
	esac
	analyze_dir "$d"
	python3 - "$OUT" "$mode" <<'EOF' || fail "analysis of the $mode capture"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranks"][0]
k = {x["name"]: x for x in r["kernels"]}
assert set(k) == {"_Z7kernelAPf", "_Z7kernelBPf"}, k.keys()  # no child kernel after fork
assert k["_Z7kernelAPf"]["count"] == 5 and k["_Z7kernelBPf"]["count"] == 5
assert k["_Z7kernelAPf"]["total_ns"] == 5 * 20000
api = {x["name"]: x for x in r["api_calls"]}
assert api["cudaLaunchKernel"]["count"] == 10, api
assert api["cuLaunchKernel"]["count"] == 1 and api["cuLaunchKernel"]["api"] == "driver"
m = {x["name"]: x for x in r["memory_ops"]}
assert m["Memcpy HtoD (Pageable -> Device)"]["total_bytes"] == 1 << 20, m
assert m["Memset (Device)"]["total_bytes"] == 4096, m
ov = r["overview"]
assert ov["has_gpu"] and len(ov["streams"]) >= 2, ov["streams"]
assert ov["devices"] and ov["devices"][0]["name"] == "Fake H100", ov["devices"]
cap = ov["capture"]
assert cap["windows"] is None and cap["dropped_records"] == 0, cap
assert cap["cuda_events"] == (1 if sys.argv[2] == "exit" else 0), cap
assert cap["cuda_events_unplaced"] == 0, cap
assert api["cudaEventRecord"]["count"] == 1, api
EOF
done

# --- fork again, ten times: a fork while the tracer's writer thread is starting once left a
# sanitizer's allocator locked in the child, which hung at exit (about one run in 20 under load)
NCHECK=$((NCHECK + 1))
for i in 1 2 3 4 5 6 7 8 9 10; do
	d="$TMP/cap-fork$i"
	mkdir "$d"
	GPUPROF_CAPTURE_DIR="$d" timeout 60 "$SIM" "$INJ" "$FAKE" 1 fork >/dev/null 2>"$TMP/sim.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "driver_sim fork, run $i, exited $rc (124: hung): $(tail -n 20 "$TMP/sim.err")"
done

# --- a capture cut inside a record: an error naming the offset, read with --salvage
d="$TMP/cap-cut"
mkdir "$d"
f=$(ls "$TMP"/cap-exit/capture-*.gpcap)
head -c $(($(stat -c %s "$f") - 20)) "$f" >"$d/capture-cut.gpcap"
expect_rc 1 analyze --json "$d"
err_has "the capture ends inside a record"
analyze_dir "$d" --salvage

# --- CUPTI missing: the program runs on, the capture says why
d="$TMP/cap-nocupti"
mkdir "$d"
NCHECK=$((NCHECK + 1))
GPUPROF_CAPTURE_DIR="$d" GPUPROF_INJECT_VERBOSE=1 "$SIM" "$INJ" /nonexistent/libcupti.so 1 exit \
	>/dev/null 2>"$TMP/sim.err"
grep -q "no CUPTI" "$TMP/sim.err" || fail "no warning without CUPTI: $(cat "$TMP/sim.err")"
# and `gpuprof analyze` shows the tracer's warning under the capture line
expect_rc 0 analyze "$d"
grep -q "^warning   no CUPTI (/nonexistent/libcupti.so" "$OUT" ||
	fail "analyze does not show why there is no GPU activity: $(cat "$OUT")"

# --- a CUPTI of another CUDA release (12.9's API version 28): its records would be misread, so
# none is read; the program runs on and the capture says why
d="$TMP/cap-cupti12"
mkdir "$d"
NCHECK=$((NCHECK + 1))
FAKE_CUPTI_VERSION=28 GPUPROF_CAPTURE_DIR="$d" GPUPROF_INJECT_VERBOSE=1 \
	"$SIM" "$INJ" "$FAKE" 1 exit >/dev/null 2>"$TMP/sim.err"
grep -q "CUPTI API version 28 is not from CUDA 13" "$TMP/sim.err" ||
	fail "no warning for CUPTI 12: $(cat "$TMP/sim.err")"
analyze_dir "$d"
python3 - "$OUT" <<'EOF' || fail "the capture with CUPTI 12"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
assert not r["overview"]["has_gpu"], r["overview"]
cap = r["overview"]["capture"]
assert cap["warnings"] == 1 and len(cap["warning_messages"]) == 1, cap
w = cap["warning_messages"][0]
assert w["count"] == 1 and w["text"].startswith("CUPTI API version 28 is not from CUDA 13"), w
EOF

# --- GPUPROF_CUPTI_KINDS_OFF (to measure each kind's cost on a device): the kinds named are not
# enabled, the capture says so, an unknown name is warned about; the program runs as before
d="$TMP/cap-kindsoff"
mkdir "$d"
NCHECK=$((NCHECK + 1))
GPUPROF_CUPTI_KINDS_OFF=overhead,context,bogus GPUPROF_CAPTURE_DIR="$d" \
	"$SIM" "$INJ" "$FAKE" 1 exit >"$TMP/sim.out" 2>"$TMP/sim.err" ||
	fail "driver_sim with kinds off: $(cat "$TMP/sim.err")"
analyze_dir "$d"
python3 - "$OUT" <<'EOF' || fail "the capture with kinds off"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
texts = [w["text"] for w in r["overview"]["capture"]["warning_messages"]]
assert any(t.startswith("GPUPROF_CUPTI_KINDS_OFF: unknown kind 'bogus'") for t in texts), texts
assert any("GPUPROF_CUPTI_KINDS_OFF=overhead,context,bogus: those CUPTI kinds are not recorded"
           in t for t in texts), texts
assert r["overview"]["has_gpu"], "the kernels are still recorded"
EOF

# --- NVTX: a real annotated program; output and exit code pass through; the fork child is not captured
for mode in exit fork kill; do
	d="$TMP/nvtx-$mode"
	mkdir "$d"
	NCHECK=$((NCHECK + 1))
	NVTX_INJECTION64_PATH="$INJ" GPUPROF_CAPTURE_DIR="$d" "$APP" "$mode" >"$TMP/app.out"
	rc=$?
	want=3
	[ "$mode" = kill ] && want=137
	[ "$rc" -eq "$want" ] || fail "nvtx_app $mode exited $rc, expected $want"
	[ "$(cat "$TMP/app.out")" = hello ] || fail "nvtx_app $mode output changed: $(cat "$TMP/app.out")"
	set -- "$d"/capture-*.gpcap
	[ $# -eq 1 ] || fail "nvtx $mode: expected one capture file (the child is not captured), got: $*"
	analyze_dir "$d"
	python3 - "$OUT" "$mode" <<'EOF' || fail "NVTX ranges of the $mode capture"
import json, sys
d = json.load(open(sys.argv[1]))
a = {x["name"]: x["count"] for x in d["ranks"][0]["annotations"]}
want = {"outer": 3, "inner": 3, "startend": 1, "around": 1, "mydomain:dom range": 1,
        "bad \ufffd name": 1}  # its name is not UTF-8: U+FFFD in the JSON
assert a == want, a  # "in the child" must not appear; "never closed" is not a range
EOF
done

# --- the same program without the tracer: identical output and exit code
NCHECK=$((NCHECK + 1))
"$APP" exit >"$TMP/plain.out"
[ $? -eq 3 ] && [ "$(cat "$TMP/plain.out")" = hello ] || fail "nvtx_app without the tracer"

done_ok
