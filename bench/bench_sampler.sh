#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_sampler.sh - the sampler's cost: time per sample and share of one core
# at 10 Hz and 1 kHz, against the fake NVML of the tests (2 scripted GPUs) and
# the real procfs (10 Hz three times: this is noisy), then with a watched
# process tree (--pid). Each line also gives the floor: what a thread that only
# wakes up at that rate costs in the same process. Budget (DESIGN.md): <= 0.1 %
# of one core at 10 Hz. The host's /proc/stat and meminfo are read at most
# every 250 ms (docs/metrics-format.md): at 10 Hz, one sample in three.
#
# usage: bench/bench_sampler.sh [SECONDS]   (default 20 per rate)
# Environment: GP_BUILD_DIR (default build). A real NVML: GPUPROF_NVML_LIBRARY=libnvidia-ml.so.1
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${GP_BUILD_DIR:-$(dirname "$here")/build}
secs=${1:-20}
lib=${GPUPROF_NVML_LIBRARY:-$build/tests/fake/libfake-nvml.so}
[ -x "$build/bench_sampler" ] || { echo "bench_sampler.sh: build bench_sampler first" >&2; exit 2; }
echo "NVML: $lib; $(nproc) CPUs; $(ls /proc | grep -c '^[0-9]') processes"
"$build/bench_sampler" -l "$lib" -s "$secs" 100 100 100 1
bash -c 'sleep 1000 & sleep 1000 & wait' </dev/null >/dev/null 2>&1 &
tree=$!
sleep 0.2
echo "with --pid (a tree of $(( $(pgrep -P $tree | wc -l) + 1 )) processes):"
"$build/bench_sampler" -l "$lib" -s "$secs" -p "$tree" 100 1
pkill -P $tree 2>/dev/null || true
kill $tree 2>/dev/null || true
