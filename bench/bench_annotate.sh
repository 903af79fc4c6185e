#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_annotate.sh - the cost of the annotation API (include/gpuprof/annotate.h)
# on the calling thread, against the budgets of DESIGN.md: push+pop <= 2 ns with
# no tool attached, <= 50 ns while capturing. Also per frame mark and per
# counter sample (no budget: reported). Each figure is the median of RUNS runs
# (min, p10, p90, max give the spread):
#
#   no tool:    bench_annotate alone, RUNS runs of PAIRS calls;
#   recording:  bench_annotate under `gpuprof run --no-cuda`, RUNS runs of
#               REC_PAIRS calls with PAUSE_MS between runs for the writer
#               thread to drain (see bench/bench_annotate.c; the program spins
#               meanwhile, --sleep makes it sleep), event clock TSC where the
#               tracer can use it; the capture must have dropped nothing, or
#               the figure is not valid;
#   recording, clock_gettime: the same with GPUPROF_INJECT_CLOCK=mono (for
#               comparison; --no-mono skips it).
#
# usage: bench/bench_annotate.sh [--runs N] [--pairs N] [--rec-pairs N] [--pause-ms M] [--sleep]
#                                [--no-mono]
# Environment: GP_BUILD_DIR (default build). Needs python3. Exit 0 when every
# budget holds, 1 otherwise, 2 on a usage or setup error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${GP_BUILD_DIR:-$(dirname "$here")/build}
runs=31 pairs=10000000 rec_pairs=200000 pause=100 mono=1 sleep=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--rec-pairs) rec_pairs=$2; shift 2 ;;
	--pause-ms) pause=$2; shift 2 ;;
	--no-mono) mono=0; shift ;;
	--sleep) sleep=-s; shift ;;
	*) echo "usage: $0 [--runs N] [--pairs N] [--rec-pairs N] [--pause-ms M] [--sleep] [--no-mono]" >&2; exit 2 ;;
	esac
done
bin=$build/bench_annotate
gpuprof=$build/gpuprof
for f in "$bin" "$gpuprof" "$build/libgpuprof-inject.so"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "bench_annotate.sh: no $f (build the bench_annotate target)" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-bench-annotate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset GPUPROF_ANNOTATE_LIBRARY CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "no tool: $runs runs of $pairs calls; recording: $runs runs of $rec_pairs calls, ${pause} ms apart ($([ -n "$sleep" ] && echo sleeping || echo spinning) in between)"

"$bin" -r "$runs" -n "$pairs" >"$tmp/none.out"

# rec NAME [ENV=VALUE...]: the recording measurement into $tmp/NAME.out, its capture in $tmp/NAME
rec() {
	local name=$1
	shift
	env "$@" GPUPROF_FLUSH_MS=20 GPUPROF_INJECT_LIBRARY="$build/libgpuprof-inject.so" \
		"$gpuprof" run --quiet --no-cuda --no-report --sample-ms 0 -o "$tmp/$name" -- \
		"$bin" -r "$runs" -n "$rec_pairs" -p "$pause" $sleep >"$tmp/$name.out"
}
rec tsc
[ "$mono" = 1 ] && rec mono GPUPROF_INJECT_CLOCK=mono

python3 - "$tmp" "$mono" <<'EOF'
import glob, json, os, struct, sys

tmp, mono = sys.argv[1], sys.argv[2] == "1"


def results(name):
    lines = open(os.path.join(tmp, name + ".out")).read().split("\n")
    att = [l for l in lines if l.startswith("attached")]
    return {d["what"]: d for d in map(json.loads, (l for l in lines if l.startswith("{")))}, \
        att[0].split()[1] if att else "?"


def dropped(name):
    """(records lost, END seen) from the capture's DROPPED and END records."""
    lost, end = None, False
    for path in glob.glob(os.path.join(tmp, name, "capture-*.gpcap")):
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(16)
            off = 16
            while off + 8 <= size:
                t, sz = struct.unpack("<II", f.read(8))
                pad = (sz + 7) & ~7
                if t == 14:  # DROPPED: ts, cupti records, cupti buffers, nvtx records, bytes
                    v = struct.unpack("<qQQQQ", f.read(40))
                    lost = (lost or 0) + v[1] + v[3] + (1 if v[4] else 0)
                    f.seek(pad - 40, 1)
                elif t == 2:
                    end = True
                    f.seek(pad, 1)
                else:
                    f.seek(pad, 1)
                off += 8 + pad
    return lost, end


rows = [("no tool", "none")] + [("recording (TSC clock)", "tsc")] + \
    ([("recording (clock_gettime)", "mono")] if mono else [])
fmt = "%-28s %-9s %9s %9s %9s %9s %9s"
print()
print(fmt % ("", "call", "median", "min", "p10", "p90", "max"))
ok = True
res = {}
for label, name in rows:
    r, att = results(name)
    res[name] = r
    note = ""
    if name != "none":
        lost, end = dropped(name)
        note = "attached %s, %s, %s" % (
            att, "nothing dropped" if lost == 0 else "DROPPED %s records: not valid" % lost,
            "END written" if end else "no END record")
        if lost != 0 or att != "1":
            ok = False
    for what in ("push_pop", "frame", "counter"):
        d = r.get(what)
        if d:
            print(fmt % (label, what, *("%.2f ns" % d[k] for k in
                                        ("median_ns", "min_ns", "p10_ns", "p90_ns", "max_ns"))))
        label = ""
    if note:
        print("%-28s %s" % ("", note))
print()
budgets = [("push+pop, no tool", res["none"]["push_pop"]["median_ns"], 2.0),
           ("push+pop, recording", res["tsc"]["push_pop"]["median_ns"], 50.0)]
for what, got, lim in budgets:
    good = got <= lim
    ok = ok and good
    print("budget %-22s <= %5.1f ns: %7.2f ns  %s" % (what, lim, got, "PASS" if good else "FAIL"))
sys.exit(0 if ok else 1)
EOF
