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

# the build's packages, and libmicrohttpd's run-time closure as Debian 12 has it
pkgs="libcmocka0 libcmocka-dev zlib1g-dev libisal2 libisal-dev libyaml-0-2 libyaml-dev
libncursesw6 libtinfo6 libncurses6 libncurses-dev libmicrohttpd12 libmicrohttpd-dev
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
	fi
	export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export PKG_CONFIG_PATH=$lib/pkgconfig:$deps/usr/share/pkgconfig
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
	cmake --build "$build" -j"$(nproc)" 2>&1 | grep -E 'error|warning|Built target gpuprof$'
	[ -x "$build/gpuprof" ] && [ -e "$build/libgpuprof-inject.so" ] || return 1
	"$build/gpuprof" version --build-options
}

step_test() {
	identity
	[ -d "$deps/usr" ] && use_deps
	ctest --test-dir "$build" -L gpu -V --timeout 500
	local rc=$?
	ctest --test-dir "$build" -R 't031|t032|t030' --output-on-failure
	return $rc
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
[ "$1" = all ] && set -- build test bench
status=0
for s in "$@"; do
	case $s in
	fetch) step_fetch || status=1 ;;
	build | test | bench)
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
