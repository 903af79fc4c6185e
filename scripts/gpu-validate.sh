#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpu-validate.sh - the GPU checks of docs/gpu-validation.md in as few device
# calls as possible, on a machine with a GPU but perhaps without the Debian
# development packages that the build needs (a CUDA image has nvcc, CMake and
# PyTorch, not cmocka, libyaml or libmicrohttpd).
#
# usage: scripts/gpu-validate.sh fetch            (here, with apt: the packages into .gpudeps/)
#        scripts/gpu-validate.sh STEP...          (there; STEP: build, test, bench, all)
#
#   fetch  downloads the Debian packages of the build (and libmicrohttpd's
#          run-time closure, for `top --listen`) into .gpudeps/ (ignored by
#          git); name it in the device tool's `carry`.
#   build  a Release build with the CUDA toolkit into build-gpu/ (kept between
#          calls while the machine stays warm); where cmocka is missing, the
#          .gpudeps/ packages are unpacked into /tmp/gpdeps and used from there
#          (headers, libraries, pkg-config files), never into /.
#   test   ctest -L gpu -V (t0900 top/NVML, t0910 CUDA program, t0911 PyTorch
#          loop, t0912 annotations, t0913 Python bench, t0342 --pytorch ops and
#          shapes), then the injection
#          tests of the fake CUPTI for comparison.
#   extra  the checks no test makes: --live, a SIGKILL's loss, capture windows on
#          PyTorch, the cost of --pytorch modules,shapes (one run each), and what each
#          CUPTI kind costs a launch (GPUPROF_CUPTI_KINDS_OFF, the CUDA launch loop).
#   cost   build the CLI and the tracer only, then E5 of extra (one short call)
#   bench  bench_capture.sh (30 runs of the PyTorch loop; never timed on a device,
#          so give the call the full 600 s), bench_sampler.sh against the
#          real NVML, bench_annotate.sh.
#   all    build test bench (likely more than one device call's 10 minutes: split it).
#
# Environment: GPV_BUILD (the build directory, default build-gpu), GPV_FORCE_DEPS=1 (build
# with .gpudeps/ even where the system has the packages: to try that path here).
# Every step writes its log to $OUT (or ./gpu-validate-out without it): the
# device tool brings $OUT back. The machine's identity (nvidia-smi, driver,
# PyTorch, nvcc) starts each log. Exit status: that of the last failing step.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=${OUT:-$root/gpu-validate-out}
deps=/tmp/gpdeps
build=${GPV_BUILD:-$root/build-gpu}
mkdir -p "$out"

# the build's packages, and libmicrohttpd's run-time closure as Debian 12 has it; not
# ncurses: the CUDA image has its own run-time libraries, which Debian's libtinfo.so does
# not link with (the full-screen `top` is not a GPU check)
pkgs="libcmocka0 libcmocka-dev zlib1g-dev libisal2 libisal-dev libyaml-0-2 libyaml-dev
libmicrohttpd12 libmicrohttpd-dev
libgnutls30 libnettle8 libhogweed6 libp11-kit0 libidn2-0 libunistring2 libtasn1-6 libgmp10
libffi8 pkgconf pkgconf-bin libpkgconf3"

identity() {
	echo "== $(date -u +%FT%TZ) $(hostname) $(uname -r)"
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | head -3
	nvcc --version 2>/dev/null | tail -1
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1
}

# the packages of .gpudeps/ into $deps, and the variables that make the build use them
use_deps() {
	local lib=$deps/usr/lib/x86_64-linux-gnu
	if [ ! -d "$deps/usr" ]; then
		ls .gpudeps/*.deb >/dev/null 2>&1 || { echo "no .gpudeps/*.deb: run 'fetch' here and carry .gpudeps" >&2; return 1; }
		mkdir -p "$deps"
		for f in .gpudeps/*.deb; do dpkg-deb -x "$f" "$deps" || return 1; done
		# the packages' symlinks to the .so are absolute: make them point into $deps
		find "$deps" -type l | while read -r l; do
			t=$(readlink "$l")
			case $t in /*) [ -e "$deps$t" ] && ln -sfn "$deps$t" "$l" ;; esac
		done
		# pkg-config must find libmicrohttpd without gnutls' .pc (a static link's need)
		sed -i '/^Requires.private:/d' "$lib"/pkgconfig/*.pc
	fi
	export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	# LIBDIR, not PATH: only these packages, never a system .pc whose paths the sysroot would break
	export PKG_CONFIG_LIBDIR=$lib/pkgconfig:$deps/usr/share/pkgconfig
	export PKG_CONFIG_SYSROOT_DIR=$deps
	export CMAKE_PREFIX_PATH=$deps/usr
	export PATH=$deps/usr/bin:$PATH
	echo "using the packages unpacked in $deps"
}

step_fetch() {
	mkdir -p .gpudeps && cd .gpudeps || return 1
	rm -f ./*.deb
	# shellcheck disable=SC2086
	apt-get download $pkgs 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
	cd "$root" || return 1
	ls .gpudeps/*.deb | wc -l | xargs echo "packages:"
	du -sh .gpudeps
}

step_build() {
	identity
	if [ -n "${GPV_FORCE_DEPS:-}" ] || ! ls /usr/include/cmocka.h /usr/local/include/cmocka.h >/dev/null 2>&1; then
		use_deps || return 1
	fi
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGP_WITH_CUPTI=ON \
		${PKG_CONFIG_SYSROOT_DIR:+-DPKG_CONFIG_EXECUTABLE=$deps/usr/bin/pkgconf} || return 1
	# GPV_TARGETS: only these (the CLI and the tracer: a short device call), else everything
	# shellcheck disable=SC2086
	cmake --build "$build" -j"$(nproc)" ${GPV_TARGETS:+--target $GPV_TARGETS} 2>&1 |
		grep -E 'error|warning|Built target gpuprof$'
	[ -x "$build/gpuprof" ] && [ -e "$build/libgpuprof-inject.so" ] || return 1
	"$build/gpuprof" version --build-options
}

step_test() {
	identity
	[ -d "$deps/usr" ] && use_deps
	ctest --test-dir "$build" -L gpu -V --timeout 150
	local rc=$?
	ctest --test-dir "$build" -R 't031|t032|t030' --output-on-failure
	return $rc
}

# a short summary of a capture directory's report: kernels, ranges, windows, capture state
summary() {
	"$build/gpuprof" analyze --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d.get("ranks", []):
    ks = r.get("kernels") or []
    print("  kernels", sum(k.get("count", 0) for k in ks), "in", len(ks), "names; top:",
          "; ".join(k["name"][:50] for k in ks[:2]))
    for t in ("ranges", "annotations"):
        rows = r.get(t) or []
        if rows:
            print("  " + t + ":", ", ".join("%s %s/%s" % (x.get("name"), x.get("count"),
                  x.get("gpu_ops")) for x in rows[:6]))
' 2>&1
}

step_extra() {
	identity
	[ -d "$deps/usr" ] && use_deps
	local w=/tmp/gpv-extra g=$build/gpuprof loop=tests/gpu/torch_loop.py
	rm -rf "$w" && mkdir -p "$w"
	echo "== E1 --live 1: lines on stderr, stdout as without gpuprof; demangled names"
	timeout 90 "$g" run --live 1 -o "$w/live" -- python3 $loop launch --steps 400 >"$w/live.out" 2>"$w/live.err"
	echo "exit $?"; grep -v '^ ' "$w/live.err" | head -8
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("stdout keys", sorted(d)[:8])' "$w/live.out"
	"$g" analyze "$w/live" 2>&1 | head -45
	echo "== E2 SIGKILL of a PyTorch loop 6 s in (default flush 500 ms)"
	"$g" run --quiet -o "$w/kill" -- python3 $loop launch --steps 1000000 >/dev/null 2>&1 &
	local gp=$!
	sleep 8
	pkill -9 -f "^python3 $loop launch --steps 1000000"
	wait $gp; echo "gpuprof run exit $?"
	"$g" analyze "$w/kill" 2>&1 | grep -iE 'capture|warning|salvage|flush|lost|kernels' | head -12
	"$g" analyze --json "$w/kill" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
def walk(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if any(s in k for s in ("flush", "lost", "dropped", "fd_table", "end")) and not isinstance(v, list):
                print("  ", p + k, json.dumps(v)[:120])
            walk(v, p + k + ".")
    elif isinstance(o, list):
        for v in o[:3]: walk(v, p)
walk(d)' 2>&1 | head -20
	echo "== E3 windows: --capture-range nvtx:forward; --schedule wait=5,warmup=2,active=3,repeat=2 --iter-range step"
	timeout 90 "$g" run --quiet --capture-range nvtx:forward -o "$w/win1" -- python3 $loop launch --steps 20 --warmup 0 >/dev/null 2>&1
	echo "nvtx:forward exit $?"; summary "$w/win1"
	timeout 90 "$g" run --quiet --schedule wait=5,warmup=2,active=3,repeat=2 --iter-range step -o "$w/win2" -- python3 $loop launch --steps 30 --warmup 0 >/dev/null 2>&1
	echo "schedule exit $?"; summary "$w/win2"
	# the warm-ups' kernels are dropped (docs/gpu-validation.md): 6 active steps x 17
	"$g" analyze --json "$w/win2" 2>/dev/null | python3 -c 'import json, sys
r = [r for r in json.load(sys.stdin)["ranks"] if r.get("kernels")][0]
n = sum(k.get("count", 0) for k in r["kernels"])
print("warm-up kernels dropped:", "PASS" if n == 102 else "FAIL", n, "kernels (102 wanted)")' 2>&1
	"$g" analyze "$w/win2" 2>&1 | grep -iE 'window|capture|warning' | head -8
	echo "== E4 cost: launch loop plain / gpuprof run / --pytorch modules,shapes (one run each, us per step)"
	for mode in plain run pyt; do
		case $mode in
		plain) python3 $loop launch >"$w/c.json" 2>/dev/null ;;
		run) "$g" run --quiet -o "$w/c-run" -- python3 $loop launch >"$w/c.json" 2>/dev/null ;;
		pyt) "$g" run --quiet --pytorch modules,shapes -o "$w/c-pyt" -- python3 $loop launch >"$w/c.json" 2>/dev/null ;;
		esac
		python3 -c 'import json,sys; d=json.loads(open(sys.argv[2]).read().splitlines()[-1]); print(sys.argv[1], "per_iter_us %.2f" % (d["per_iter_ns"] / 1e3), "steps", d["steps"], d["torch"], d["device"])' $mode "$w/c.json" 2>&1 | tail -1
	done
	summary "$w/c-pyt"
	step_cost_e5
}

# E5 alone (and what step extra runs last)
step_cost_e5() {
	local w=/tmp/gpv-extra g=$build/gpuprof
	[ -d "$deps/usr" ] && use_deps >/dev/null
	mkdir -p "$w"
	echo "== E5 where a launch's cost goes: tests/gpu/launch_loop.cu (20 empty kernels an iteration),"
	echo "   3 runs each, median ns a launch: plain, gpuprof run, and gpuprof run with one CUPTI kind"
	echo "   off at a time (GPUPROF_CUPTI_KINDS_OFF; memory: GPUPROF_CUDA_MEMORY=0)"
	if nvcc -O2 -arch=native -o "$w/launch_loop" tests/gpu/launch_loop.cu >"$w/nvcc.log" 2>&1; then
		for cfg in plain all runtime kernel sync overhead memory; do
			for i in 1 2 3; do
				case $cfg in
				plain) "$w/launch_loop" ;;
				all) "$g" run --quiet -o "$w/ll" -- "$w/launch_loop" ;;
				memory) GPUPROF_CUDA_MEMORY=0 "$g" run --quiet -o "$w/ll" -- "$w/launch_loop" ;;
				*) GPUPROF_CUPTI_KINDS_OFF=$cfg "$g" run --quiet -o "$w/ll" -- "$w/launch_loop" ;;
				esac 2>/dev/null | tail -1
				rm -rf "$w/ll"
			done >"$w/ll.json"
			python3 -c 'import json,sys,statistics as st
v=[json.loads(l).get("per_launch_ns") for l in open(sys.argv[2]) if l.strip()]
v=[x for x in v if x is not None]
print("  %-9s %s" % (sys.argv[1], ("%.0f ns a launch (%s)" % (st.median(v), ", ".join("%.0f" % x for x in v))) if v else "no result"))' "$cfg" "$w/ll.json"
		done
	else
		echo "  nvcc could not build launch_loop.cu: $(tail -3 "$w/nvcc.log")"
	fi
}

step_bench() {
	identity
	[ -d "$deps/usr" ] && use_deps
	local rc=0
	GP_BUILD_DIR=$build bench/bench_capture.sh || rc=$?
	GP_BUILD_DIR=$build GPUPROF_NVML_LIBRARY=libnvidia-ml.so.1 bench/bench_sampler.sh 10 || rc=$?
	GP_BUILD_DIR=$build bench/bench_annotate.sh --runs 11 || rc=$?
	return $rc
}

[ $# -gt 0 ] || { sed -n '5,12p' "$0" >&2; exit 2; }
[ "$1" = all ] && set -- build test extra bench
# cost: the launch loop's cost per CUPTI kind (E5) on a build of the CLI and the tracer alone
[ "$1" = cost ] && { export GPV_TARGETS="gpuprof gpuprof_inject"; set -- build cost_e5; }
status=0
for s in "$@"; do
	case $s in
	fetch) step_fetch || status=1 ;;
	build | test | extra | bench | cost_e5)
		set -o pipefail
		"step_$s" 2>&1 | tee "$out/$s.log"
		r=${PIPESTATUS[0]}
		[ "$r" -eq 0 ] || status=$r
		echo "== step $s: exit $r" | tee -a "$out/$s.log"
		;;
	*) echo "gpu-validate.sh: unknown step '$s'" >&2; exit 2 ;;
	esac
done
exit $status
