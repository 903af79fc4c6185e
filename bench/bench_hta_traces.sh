#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_hta_traces.sh - gpuprof against the recorded HTA runs, trace by trace.
#
# usage: bench/bench_hta_traces.sh [--runs N] [TRACES_DIR]
#
# For every trace of TRACES_DIR (default ../shared/traces) with a recorded HTA process wall time
# (TRACES_DIR/reference/<name>.json, read by bench/hta_reference.py), times
# `gpuprof analyze --json -o /dev/null TRACE` as a whole
# process (the trace as stored, .json.gz; the median of --runs runs, default 11) and prints the
# ratio to HTA's recorded process time. HTA cannot run here (no PyPI), so its side is the
# recorded wall time of its process: Python start-up, imports, load and analyses, on a 2-vCPU
# Xeon (../shared/reference/measurements.md). Also prints the rate the issue's yardstick implies
# (9 s for a 53.7 MB trace) for the trace's uncompressed size.
# Environment: GP_BUILD_DIR (default build), GPUPROF (the CLI to time).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${GP_BUILD_DIR:-$root/build}
gpuprof=${GPUPROF:-$build/gpuprof}
runs=11
dir=$root/../shared/traces

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	-h | --help) sed -n '4,16p' "$0"; exit 0 ;;
	-*) echo "bench_hta_traces.sh: unknown option '$1'" >&2; exit 2 ;;
	*) dir=$1; shift ;;
	esac
done
[ -x "$gpuprof" ] || { echo "bench_hta_traces.sh: no gpuprof at $gpuprof (set GP_BUILD_DIR)" >&2; exit 2; }
[ -d "$dir/reference" ] || { echo "bench_hta_traces.sh: no $dir/reference" >&2; exit 77; }

GP_BENCH_DIR=$here python3 - "$gpuprof" "$dir" "$runs" <<'EOF'
import statistics, subprocess, sys, time, gzip, os

sys.path.insert(0, os.environ["GP_BENCH_DIR"])
import hta_reference

gp, root, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [(rel, os.path.join(root, rel), wall) for rel, wall in hta_reference.all_recorded(root)]

def size(p):
    if p.endswith(".gz"):
        with gzip.open(p, "rb") as f:
            return sum(len(b) for b in iter(lambda: f.read(1 << 20), b""))
    return os.path.getsize(p)

print(f"{'trace':60s} {'MB':>6s} {'gpuprof ms':>10s} {'HTA s':>6s} {'HTA/gp':>7s} {'yardstick/gp':>12s}")
worst = None
for name, path, hta in rows:
    t = []
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run([gp, "analyze", "--json", "-o", "/dev/null", path], check=True)
        t.append(time.monotonic() - t0)
    med = statistics.median(t)
    mb = size(path) / 1e6
    yard = 9.0 * mb / 53.7
    print(f"{name:60s} {mb:6.1f} {med * 1000:10.1f} {hta:6.2f} {hta / med:6.0f}x {yard / med:11.0f}x")
    if worst is None or hta / med < worst[1]:
        worst = (name, hta / med)
if worst:
    print(f"lowest HTA/gpuprof ratio: {worst[1]:.0f}x ({worst[0]})")
EOF
