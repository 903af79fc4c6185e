#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# scripts/test.sh - the project's test command (README, .ci/run).
#
# 1. an ASan+UBSan build (clang) of the library, CLI and tests, and its ctest;
# 2. a ThreadSanitizer build (clang) of the injected tracer, stress_app and gpuprof, and
#    the tracer's stress tests (t0312, t0317) with it;
# 3. a libFuzzer build (clang) and a short run of every fuzz target over its corpus;
# 4. a minimal build (gcc, warnings as errors): no CUDA toolkit, no libmicrohttpd,
#    ncursesw or libyaml (pkg-config hidden), gzip by zlib: every optional part
#    left out still compiles, and the binary runs;
# 5. the release build (gcc, warnings as errors) and its ctest, which also checks
#    formatting (clang-format) — run last so CTest's summary closes the output.
#
# Environment: JOBS (default: nproc), FUZZ_SECONDS per target (default 20: eleven targets keep
# the whole run under CI's 15 minutes on 2 cores),
# SKIP_ASAN=1 / SKIP_TSAN=1 / SKIP_FUZZ=1 / SKIP_MINIMAL=1 to leave a stage out while developing.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-20}

stage() { printf '\n==== %s ====\n' "$*"; }

if [ "${SKIP_ASAN:-0}" != 1 ]; then
	stage "ASan+UBSan build and tests (clang)"
	cmake -S . -B build-asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
		-DGP_WERROR=ON -DGP_SANITIZE=address,undefined -DGP_BUILD_BENCH=OFF >/dev/null
	cmake --build build-asan -j"$jobs"
	(cd build-asan && ctest -j"$jobs" --output-on-failure -LE slow)
fi

if [ "${SKIP_TSAN:-0}" != 1 ]; then
	# the tracer and the program that stresses it, under ThreadSanitizer; gpuprof itself
	# from the ASan build when there is one (the release build's comes last)
	stage "ThreadSanitizer: the tracer under stress (clang)"
	cmake -S . -B build-tsan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
		-DGP_WERROR=ON -DGP_SANITIZE=thread -DGP_BUILD_BENCH=OFF >/dev/null
	cmake --build build-tsan -j"$jobs" --target gpuprof gpuprof_inject stress_app >/dev/null
	for t in t0312-inject-fds t0317-inject-stress; do
		GP_SANITIZED=1 GP_TSAN=1 GP_BUILD_DIR="$top/build-tsan" GPUPROF="$top/build-tsan/gpuprof" \
			bash "tests/e2e/$t.sh" | tail -n 2
	done
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
	stage "libFuzzer build and a ${fuzz_seconds}s run per target"
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DGP_FUZZ=ON -DGP_SANITIZE=address,undefined -DGP_BUILD_BENCH=OFF >/dev/null
	cmake --build build-fuzz -j"$jobs"
	for fz in build-fuzz/tests/fuzz_*; do
		[ -x "$fz" ] || continue
		name=${fz##*/fuzz_}
		corpus=tests/fuzz/corpus/$name
		work=$(mktemp -d)
		# new inputs go to a scratch directory: the committed corpus stays as is
		"$fz" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$work/" "$work" "$corpus" 2>&1 | tail -n 3
		if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* >/dev/null 2>&1; then
			echo "fuzz target $name found a problem:" "$work"/crash-* "$work"/leak-* "$work"/timeout-*
			exit 1
		fi
		rm -rf "$work"
	done
fi

if [ "${SKIP_MINIMAL:-0}" != 1 ]; then
	stage "minimal build (no CUDA, microhttpd, ncursesw, libyaml, isa-l, sqlite, libpq; gcc, -Werror)"
	cmake -S . -B build-minimal -DCMAKE_BUILD_TYPE=Release -DGP_WERROR=ON -DGP_WITH_CUPTI=OFF \
		-DGP_BUILD_TESTS=OFF -DGP_BUILD_BENCH=OFF -DPKG_CONFIG_EXECUTABLE=/nonexistent \
		-DISAL_INCLUDE_DIR=ISAL_INCLUDE_DIR-NOTFOUND -DISAL_LIBRARY=ISAL_LIBRARY-NOTFOUND >/dev/null
	cmake --build build-minimal -j"$jobs" >/dev/null
	build-minimal/gpuprof version --build-options
	# history without libsqlite3-dev: one clear error, no crash
	# (it exits 1, which pipefail would pass on to a pipe: the output is taken first)
	hist_err=$(build-minimal/gpuprof history list --db build-minimal/h.sqlite 2>&1 || true)
	grep -q "built without SQLite" <<<"$hist_err" ||
		{ echo "history: no clear error without SQLite: $hist_err"; exit 1; }
fi

stage "release build (gcc, -Werror) and tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGP_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
cd build
ctest -j"$jobs" --output-on-failure
