#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0311-inject-windows.sh - capture windows without a GPU: window_sim runs
# under `gpuprof run` with the fake CUPTI and "launches" one kernel k<i> per
# iteration; only the kernels of the windows may be in the capture, CUPTI's
# kinds must be enabled exactly inside them (and during warm-ups), CUPTI must
# be finalised after a window (not with cudaProfilerApi), and the windows
# must be listed in the report. Modes: --capture-range nvtx:NAME, --schedule
# with --iter-range as ranges and as marks, --capture-range cudaProfilerApi,
# --delay/--duration; warm-ups with the fake's per-thread API buffers completed
# after the GPU records' buffer (FAKE_CUPTI_ORDER=device-first), and before.
# Skipped where the CUDA toolkit was absent at build time.
. "$(dirname "$0")/lib.sh"
need python3

B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
INJ="$B/libgpuprof-inject.so"
FAKE="$B/tests/fake/libfake-cupti.so"
SIM="$B/tests/inject/window_sim"
for f in "$INJ" "$FAKE" "$SIM"; do
	[ -e "$f" ] || { echo "skip: no $f (built without the CUDA toolkit)"; exit 77; }
done
export GPUPROF_INJECT_LIBRARY="$INJ"

# check NAME MODE N "KERNELS" "ENABLED" FINALIZE [gpuprof run options...]
#   KERNELS: the k<i> expected in the capture ("" for a timed run, checked apart)
#   ENABLED: the iterations during which CUPTI had the kernel kind enabled
#   FINALIZE: how many times CUPTI was finalised ("any": at least one)
check() {
	local name=$1 mode=$2 n=$3 kernels=$4 enabled=$5 fin=$6
	shift 6
	NCHECK=$((NCHECK + 1))
	rm -rf "$TMP/$name"
	"$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/$name" "$@" -- \
		"$SIM" "$INJ" "$FAKE" "$mode" "$n" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
		fail "$name: run failed: $(cat "$TMP/$name.err")"
	expect_rc 0 analyze --json "$TMP/$name"
	json_ok "$OUT"
	python3 - "$OUT" "$TMP/$name.out" "$kernels" "$enabled" "$fin" "$name" <<'EOF' ||
import json, sys
rep = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().split("\n")
want_k, want_en, want_fin, name = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
caps = [r for r in rep["ranks"] if r["overview"]["capture"] and r["kernels"] is not None]
assert len(caps) == 1, len(caps)
r = caps[0]
got = sorted(int(k["name"][1:]) for k in r["kernels"])
en = [int(l.split()[1]) for l in out if l.startswith("i ") and l.split()[3] == "1"]
fin = next(l for l in out if l.startswith("finalize")).split()
wins = r["overview"]["capture"]["windows"]
assert wins, "no windows listed"
for w in wins:
    assert w["start_ns"] < w["end_ns"], w
if want_k:
    assert got == [int(x) for x in want_k.split()], ("kernels", got, want_k)
    assert en == [int(x) for x in want_en.split()], ("enabled", en, want_en)
else:  # timed: a contiguous run of iterations, inside the one window
    assert got and got == list(range(got[0], got[-1] + 1)), got
    assert 0 < len(got) < 40, got
    assert en == got, ("enabled", en, got)
    assert len(wins) == 1 and wins[0]["reason"] == "start" and wins[0]["end_reason"] == "duration", wins
if want_fin == "any":
    assert int(fin[1]) >= 1, fin
else:
    assert int(fin[1]) == int(want_fin), fin
# the clock: registered once, and again at each attach after a finalize (CUPTI 13.0 stamps
# the records of a new attach with its own clock until then), never more
assert 1 <= int(fin[3]) <= int(fin[1]) + 1, fin
# busy/idle: the GPU time between two windows is neither window nor idle time
g = r["gpu"]
ow = g["outside_windows_ns"]
assert ow is not None and ow >= 0, g
assert g["idle_ns"] == g["window_ns"] - g["busy_ns"] and g["idle_ns"] >= 0, g
# (how much depends on timing: the time between windows, and after the last one up to the end
# of a kernel launched inside it, when the GPU was idle there; test_gpu has exact cases)
print(name, "gpu:", g["window_ns"], g["busy_ns"], g["idle_ns"], ow)
# the kernels' API calls are there, and nothing else of the skipped iterations
assert sum(a["count"] for a in r["api_calls"]) == len(got), r["api_calls"]
print(name, "ok:", got)
EOF
		fail "$name: $(cat "$TMP/$name.err")"
}

# inside the ranges "capture" (iterations 1 and 3), finalised after each
check nvtx nvtx 6 "1 3" "1 3" 2 --capture-range nvtx:capture
python3 - "$OUT" <<'EOF' || fail "nvtx: ranges"
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["ranks"] if r["overview"]["capture"]][0]
rg = {x["name"]: x for x in r["ranges"]}
assert set(rg) == {"capture", "inner"}, rg
assert rg["capture"]["count"] == 2 and rg["inner"]["count"] == 2, rg
assert rg["capture"]["gpu_ops"] == 2, rg
assert len(r["overview"]["capture"]["windows"]) == 2
EOF

# torch.profiler's schedule: wait 1, warm up 1 (enabled, dropped), record 2, twice
check steps steps 10 "2 3 6 7" "1 2 3 5 6 7" 2 --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range step
# the same with marks delimiting the iterations
check marks marks 10 "2 3 6 7" "1 2 3 5 6 7" 2 --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range frame
# warm-up and active alternating: CUPTI stays attached, warm-up records are dropped
check alt steps 8 "1 3 5 7" "0 1 2 3 4 5 6 7" 0 --schedule warmup=1,active=1 --iter-range step
# as CUPTI 13 hands records over (an H200, 2026-11-28): each thread's API records in a buffer of
# its own, completed after the GPU records' one, so a warm-up's kernels are decoded before the
# calls that launched them; they must be dropped all the same. And the other way round.
export FAKE_CUPTI_ORDER=device-first
check steps-devfirst steps 10 "2 3 6 7" "1 2 3 5 6 7" 2 --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range step
check alt-devfirst steps 8 "1 3 5 7" "0 1 2 3 4 5 6 7" 0 --schedule warmup=1,active=1 --iter-range step
# a second thread launching in each iteration: its calls are in other buffers, decoded last
check threads-devfirst threads 8 "1 3 5 7 101 103 105 107" "0 1 2 3 4 5 6 7" 0 --schedule warmup=1,active=1 --iter-range step
export FAKE_CUPTI_ORDER=api-first
check alt-apifirst steps 8 "1 3 5 7" "0 1 2 3 4 5 6 7" 0 --schedule warmup=1,active=1 --iter-range step
unset FAKE_CUPTI_ORDER
# cudaProfilerStart before iteration 2, cudaProfilerStop after 3: never finalised
check profiler profiler 6 "2 3" "2 3" 0 --capture-range cudaProfilerApi
# 40 iterations 25 ms apart, captured from 0.3 s for 0.3 s
check timed timed 40 "" "" 1 --delay 0.3 --duration 0.3

done_ok
