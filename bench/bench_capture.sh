#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_capture.sh - the capture overhead of `gpuprof run` on a PyTorch inference loop
# (tests/gpu/torch_loop.py), against the same loop uninstrumented and under torch.profiler,
# in one session. Budgets (DESIGN.md): <= 2 % on the launch-bound loop, <= 0.5 % on the
# compute-bound one, and always below torch.profiler.
#
# usage: bench/bench_capture.sh [--runs N] [--mode launch|compute]... [--launch-steps N]
#                               [--compute-steps N] [--no-cuda-loop]
#
# For each mode (default both), --runs times (default 5; at least 5 for a verdict), interleaved
# and in a rotating order, it runs:
#   plain           python3 tests/gpu/torch_loop.py MODE
#   gpuprof         gpuprof run --quiet -o TMP -- python3 tests/gpu/torch_loop.py MODE
#   torch.profiler  python3 tests/gpu/torch_loop.py MODE --torch-profiler
# The loop times itself (torch.cuda.synchronize + perf_counter_ns around the timed steps, after
# its warm-up steps), so process start, CUDA initialisation and the profilers' start-up and
# post-processing are excluded: the number compared is the steady-state time per iteration.
# The script prints each run, then per mode the median, min and max time per iteration, the
# overhead of each configuration vs plain (ratio of medians - 1), the spread of the plain runs
# (the noise floor) and PASS/FAIL per budget; each gpuprof run's capture is checked for
# kernels and dropped records. With nvcc it also times tests/gpu/launch_loop.cu (empty
# kernels, no Python) plain and under gpuprof: the tracer's cost per launch (no budget; info).
# Exit status: 0 all budgets pass, 1 a budget fails or a run fails, 2 usage or not built;
# without a GPU or PyTorch with CUDA it prints "skip: ..." and exits 0.
# Environment: GP_BUILD_DIR (default build), GPUPROF (the CLI; default $GP_BUILD_DIR/gpuprof).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${GP_BUILD_DIR:-$root/build}
gp=${GPUPROF:-$build/gpuprof}
loop=$root/tests/gpu/torch_loop.py
runs=5
modes=()
launch_steps=
compute_steps=
cuda_loop=1

usage() {
	echo "usage: bench/bench_capture.sh [--runs N] [--mode launch|compute]... [--launch-steps N] [--compute-steps N] [--no-cuda-loop]" >&2
	exit 2
}
skip() {
	echo "bench_capture.sh: skip: $*"
	exit 0
}

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--mode) modes+=("${2:?}"); shift 2 ;;
	--launch-steps) launch_steps=${2:?}; shift 2 ;;
	--compute-steps) compute_steps=${2:?}; shift 2 ;;
	--no-cuda-loop) cuda_loop=0; shift ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
[ ${#modes[@]} -gt 0 ] || modes=(launch compute)
for m in "${modes[@]}"; do
	case $m in launch | compute) ;; *) usage ;; esac
done
if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ]; then
	usage
fi
[ "$runs" -ge 5 ] || echo "bench_capture.sh: note: fewer than 5 runs; the verdicts need >= 5"

command -v nvidia-smi >/dev/null 2>&1 || skip "no nvidia-smi"
nvidia-smi -L >/dev/null 2>&1 || skip "nvidia-smi finds no GPU"
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
	skip "no PyTorch with CUDA"
[ -x "$gp" ] || { echo "bench_capture.sh: no gpuprof at $gp: build it first" >&2; exit 2; }
[ -e "$(dirname "$gp")/libgpuprof-inject.so" ] || {
	echo "bench_capture.sh: no $(dirname "$gp")/libgpuprof-inject.so (built without the CUDA toolkit)" >&2
	exit 2
}
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-bench-capture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results.jsonl
: >"$results"

echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader -i 0)"
echo "PyTorch: $(python3 -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)')"
echo "gpuprof: $("$gp" version 2>/dev/null | head -n 1); $(nproc) CPUs; runs: $runs"

# record CONFIG MODE RUN OUTFILE RUNDIR: appends the loop's JSON line, with the config and,
# for gpuprof, its capture's kernel records and drops, to $results; prints one line
record() {
	python3 - "$@" "$results" "$root/tests/gpu" <<'EOF'
import glob, json, os, sys
cfg, mode, run, out, rundir, results, gpudir = sys.argv[1:]
sys.path.insert(0, gpudir)
sys.dont_write_bytecode = True
import gpucheck
r = json.loads(open(out).read().strip().splitlines()[-1])
r.update(config=cfg, mode=mode, run=int(run))
note = ""
if cfg == "gpuprof":
    caps = [gpucheck.read_capture(f) for f in glob.glob(os.path.join(rundir, "capture-*.gpcap"))]
    r["captured_kernels"] = sum(c["kernels"] for c in caps)
    r["dropped"] = sum(c["dropped"]["cupti_records"] + c["dropped"]["cupti_buffers"] +
                       c["dropped"]["nvtx_records"] for c in caps)
    r["capture_bytes"] = sum(os.path.getsize(c["path"]) for c in caps)
    note = (f"  ({r['captured_kernels']} kernels captured, {r['dropped']} dropped, "
            f"{r['capture_bytes'] / 1e6:.1f} MB)")
open(results, "a").write(json.dumps(r, sort_keys=True) + "\n")
print(f"{mode:8} run {run}: {cfg:15} {r['per_iter_ns'] / 1000:10.2f} us/iter{note}", flush=True)
EOF
}

# one CONFIG MODE RUN CMD...: runs CMD (stdout to a file), fails the bench if it fails
one() {
	local cfg=$1 mode=$2 run=$3 rc=0
	shift 3
	rm -rf "$tmp/run"
	"$@" >"$tmp/out.json" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "bench_capture.sh: $cfg $mode run $run exited $rc: $*" >&2
		tail -n 20 "$tmp/err" >&2
		exit 1
	fi
	record "$cfg" "$mode" "$run" "$tmp/out.json" "$tmp/run"
}

configs=(plain gpuprof torch.profiler)
for mode in "${modes[@]}"; do
	args=("$mode")
	[ "$mode" = launch ] && [ -n "$launch_steps" ] && args+=(--steps "$launch_steps")
	[ "$mode" = compute ] && [ -n "$compute_steps" ] && args+=(--steps "$compute_steps")
	for ((i = 1; i <= runs; i++)); do
		for ((j = 0; j < 3; j++)); do
			cfg=${configs[$(((i + j) % 3))]}
			case $cfg in
			plain) one "$cfg" "$mode" "$i" python3 "$loop" "${args[@]}" ;;
			gpuprof) one "$cfg" "$mode" "$i" "$gp" run --quiet -o "$tmp/run" -- python3 "$loop" "${args[@]}" ;;
			torch.profiler) one "$cfg" "$mode" "$i" python3 "$loop" "${args[@]}" --torch-profiler ;;
			esac
		done
	done
done

# the CUDA-only row: empty kernels, no Python (information, no budget)
nvcc=$(command -v nvcc || true)
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
	nvcc=/usr/local/cuda/bin/nvcc
fi
if [ "$cuda_loop" = 1 ] && [ -n "$nvcc" ]; then
	if "$nvcc" -O2 -arch=native -o "$tmp/launch_loop" "$root/tests/gpu/launch_loop.cu" >"$tmp/nvcc.log" 2>&1; then
		for ((i = 1; i <= runs; i++)); do
			for ((j = 0; j < 2; j++)); do
				if [ $(((i + j) % 2)) = 0 ]; then
					one plain cuda "$i" "$tmp/launch_loop"
				else
					one gpuprof cuda "$i" "$gp" run --quiet -o "$tmp/run" -- "$tmp/launch_loop"
				fi
			done
		done
	else
		echo "bench_capture.sh: nvcc could not build launch_loop.cu (skipped):" >&2
		cat "$tmp/nvcc.log" >&2
	fi
fi

python3 - "$results" "$runs" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
runs = int(sys.argv[2])
budget = {"launch": 0.02, "compute": 0.005}
fails = 0
print()
print(f"{'mode':8} {'config':15} {'runs':>4} {'median us/iter':>15} {'min':>10} {'max':>10} {'overhead':>9}")
for mode in ("launch", "compute", "cuda"):
    by = {}
    for r in rows:
        if r["mode"] == mode:
            by.setdefault(r["config"], []).append(r["per_iter_ns"])
    if "plain" not in by:
        continue
    med = {c: statistics.median(v) for c, v in by.items()}
    for c in ("plain", "gpuprof", "torch.profiler"):
        if c not in by:
            continue
        ov = med[c] / med["plain"] - 1
        print(f"{mode:8} {c:15} {len(by[c]):4} {med[c] / 1000:15.2f} {min(by[c]) / 1000:10.2f} "
              f"{max(by[c]) / 1000:10.2f} {'' if c == 'plain' else f'{ov:+8.2%}':>9}")
    spread = max(by["plain"]) / min(by["plain"]) - 1
    print(f"{mode:8} plain spread (max/min - 1): {spread:.2%}")
    caps = [r for r in rows if r["mode"] == mode and r["config"] == "gpuprof"]
    if mode == "cuda":
        r0 = caps[0] if caps else None
        if r0 and "gpuprof" in med:
            per = (med["gpuprof"] - med["plain"]) / r0["kernels_per_iter"]
            print(f"cuda     gpuprof cost per launch: {per:.0f} ns (median; info, no budget)")
        if any(r["captured_kernels"] < r["launches"] for r in caps):
            print("cuda     note: a gpuprof run captured fewer kernels than launched")
        continue
    if any(r["captured_kernels"] == 0 for r in caps):
        print(f"{mode:8} FAIL: a gpuprof run captured no kernels (capture not working)")
        fails += 1
    if any(r["dropped"] for r in caps):
        print(f"{mode:8} note: records were dropped in a gpuprof run: overhead understated")
    if "gpuprof" not in med:
        continue
    ov = med["gpuprof"] / med["plain"] - 1
    ok = ov <= budget[mode] and len(by["gpuprof"]) >= 5
    fails += not ok
    print(f"{mode:8} budget gpuprof overhead <= {budget[mode]:.1%}: {ov:+.2%} "
          f"{'PASS' if ok else 'FAIL'}{'' if len(by['gpuprof']) >= 5 else ' (fewer than 5 runs)'}")
    if "torch.profiler" in med:
        tp = med["torch.profiler"] / med["plain"] - 1
        ok = med["gpuprof"] < med["torch.profiler"]
        fails += not ok
        print(f"{mode:8} budget gpuprof below torch.profiler ({tp:+.2%}): {'PASS' if ok else 'FAIL'}")
sys.exit(1 if fails else 0)
EOF
