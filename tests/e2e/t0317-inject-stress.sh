#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0317-inject-stress.sh - the tracer under stress: stress_app's 8 threads record a
# million ranges (with counters and frame marks) while its main thread churns
# descriptors (dup2 over low numbers, closefrom(3)) and forks children, half of
# which exec. The program ends with its status and output; the capture holds
# every range, in pairs, in order, nothing dropped; a forked child records
# nothing. Run by every build's ctest (the ASan+UBSan one included) and, with a
# ThreadSanitizer build of the tracer, stress_app and gpuprof, by scripts/test.sh
# (GP_BUILD_DIR and GPUPROF: that build).
. "$(dirname "$0")/lib.sh"
need python3 timeout

use_tracer stress_app
# a ThreadSanitizer report fails the program (exit 66); tsan.supp: the races on the
# tracer's descriptor that stress_app makes on purpose
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$GP_SRC_DIR/tests/inject/tsan.supp ${TSAN_OPTIONS:-}"
threads=8 ranges=62500

NCHECK=$((NCHECK + 1))
timeout 600 "$GPUPROF" run --quiet --no-cuda --sample-ms 0 -o "$TMP/stress" -- \
	"$APP" stress $threads $ranges >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" -ne 124 ] || fail "stress: did not end within 600 s"
[ "$RC" -eq 0 ] || fail "stress: exited $RC: $(head -c 3000 "$ERR")"
grep -q "^stress $threads $ranges: ok" "$OUT" || fail "stress: printed $(cat "$OUT")"
set -- "$TMP/stress"/capture-*.gpcap
[ $# -eq 1 ] || fail "stress: expected one capture (forked children record nothing), got $*"
expect_rc 0 analyze --json "$TMP/stress"
python3 - "$OUT" $threads $ranges <<'PY' || fail "stress: the capture"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2]) * int(sys.argv[3])
r = d["ranks"][0]
rg = {x["name"]: x["count"] for x in r["ranges"]}
assert rg == {"start": 1, "outer": n, "inner": n}, rg
cap = r["overview"]["capture"]
assert cap["end"]["reason"] == "exit", cap["end"]
for k in ("nvtx_unmatched", "nvtx_out_of_order", "dropped_records", "nvtx_cut_by_window"):
    assert cap[k] == 0, (k, cap)
marks = {m["name"]: m["count"] for m in cap["marks"]}
per = (int(sys.argv[3]) + 63) // 64
assert marks == {"tick": int(sys.argv[2]) * per}, marks
ctr = {c["name"]: c["count"] for c in r["counters"]}
assert ctr == {"depth": int(sys.argv[2]) * ((int(sys.argv[3]) + 15) // 16)}, ctr
texts = [w["text"] for w in cap["warning_messages"]]
assert all("reopened its file" in t for t in texts), texts
print("stress: %d ranges, %d reopens" % (sum(rg.values()), sum(w["count"] for w in cap["warning_messages"])))
PY

echo "ok: $NCHECK checks"
