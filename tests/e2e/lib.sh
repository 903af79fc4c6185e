# SPDX-License-Identifier: MIT
# lib.sh - helpers for the end-to-end tests (git t/test-lib.sh, perf tests/shell/lib).
#
# Sourced by tests/e2e/tNNNN-*.sh. CTest sets GPUPROF (the CLI), GP_SRC_DIR and
# GP_SHARED_DIR. Exit codes: 0 pass, 1 fail, 77 skip.

set -u

: "${GP_SRC_DIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GPUPROF:=$GP_SRC_DIR/build/gpuprof}"
DATA="$GP_SRC_DIR/tests/data/e2e"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-e2e.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
OUT="$TMP/out"
ERR="$TMP/err"
RC=0
NCHECK=0

# need CMD...: skip the test (77) when a prerequisite is missing
need() {
	for c in "$@"; do
		if ! command -v "$c" >/dev/null 2>&1; then
			echo "skip: '$c' not found"
			exit 77
		fi
	done
}

# need_python_binding: python3 loads this build's libgpuprof.so and its tracer (not in a
# sanitizer build, whose libraries need the sanitizer's runtime first)
need_python_binding() {
	need python3
	if [ "${GP_SANITIZED:-}" = 1 ]; then
		echo "skip: sanitizer build (python3 cannot load its libraries)"
		exit 77
	fi
}

# need_torch: PY, a python3 that imports torch (the PATH's, else Debian's /usr/bin/python3,
# whose python3-torch a pyenv python3 does not see); skips (77) without one
need_torch() {
	local p
	PY=
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null 2>&1 && "$p" -c "import torch" >/dev/null 2>&1; then
			PY=$(command -v "$p")
			return 0
		fi
	done
	echo "skip: no python3 that imports torch (Debian: python3-torch)"
	exit 77
}

# need_gen_trace: GEN, this build's synthetic-trace generator (bench/gen_trace.c), and B, the
# build directory; skips (77) when it was not built
need_gen_trace() {
	B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
	GEN="$B/gen_trace"
	[ -x "$GEN" ] || { echo "skip: no gen_trace"; exit 77; }
}

# need_history_sqlite: a build with the history's SQLite backend; skips (77) otherwise
need_history_sqlite() {
	"$GPUPROF" version --build-options 2>/dev/null | grep -Eq 'history sqlite: +yes' ||
		{ echo "skip: built without libsqlite3-dev"; exit 77; }
}

# need_cuda_gpu: a GPU (nvidia-smi finds one), NVCC (nvcc from PATH, $CUDA_HOME or
# /usr/local/cuda), B (the build directory) with the injector, no CUDA or NVTX injection of the
# caller's, and the CUPTI: libcupti.so.13 from the loader's path, or when the loader does not
# know it, the toolkit's copy next to nvcc (GPUPROF_CUPTI_LIBRARY); skips (77) otherwise
need_cuda_gpu() {
	need python3 nvidia-smi
	nvidia-smi -L >/dev/null 2>&1 || { echo "skip: nvidia-smi finds no GPU"; exit 77; }
	NVCC=$(command -v nvcc || true)
	local c f top
	for c in "${CUDA_HOME:-}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
		[ -n "$NVCC" ] || { [ -x "$c" ] && NVCC=$c; }
	done
	[ -n "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
	B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
	[ -e "$B/libgpuprof-inject.so" ] ||
		{ echo "skip: no $B/libgpuprof-inject.so (built without the CUDA toolkit)"; exit 77; }
	unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
	if [ -z "${GPUPROF_CUPTI_LIBRARY:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcupti\.so\.13 '; then
		top=$(cd "$(dirname "$NVCC")/.." && pwd)
		for f in "$top"/extras/CUPTI/lib64/libcupti.so.13 "$top"/lib64/libcupti.so.13 \
			"$top"/lib/libcupti.so.13 "$top"/targets/*/lib/libcupti.so.13; do
			[ -e "$f" ] && { export GPUPROF_CUPTI_LIBRARY=$f; break; }
		done
		echo "CUPTI: ${GPUPROF_CUPTI_LIBRARY:-not found next to nvcc, left to the tracer}"
	fi
}

# need_chromium: the page checks' headless Chromium starts (tests/e2e/reportpage.py), and ART,
# the build's folder for their screenshots, exists; skips (77) only where Chromium cannot start
need_chromium() {
	need python3
	B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
	python3 "$GP_SRC_DIR/tests/e2e/reportpage.py" chromium "$TMP" ||
		{ echo "skip: chromium does not start"; exit 77; }
	ART="$B/test-artifacts"
	mkdir -p "$ART" || fail "mkdir $ART"
}

# use_tracer [PROG...]: gpuprof run's tracer of this build, with no GPU: sets B (the build
# directory), APP (the first PROG, under $B/tests/inject), exports the tracer's path and no NVML,
# and clears any CUDA or NVTX injection of the caller's; skips (77) when a file is missing
use_tracer() {
	B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
	APP="${1:+$B/tests/inject/$1}"
	for f in "$B/libgpuprof-inject.so" "${@/#/$B/tests/inject/}"; do
		[ -e "$f" ] || { echo "skip: no $f"; exit 77; }
	done
	export GPUPROF_INJECT_LIBRARY="$B/libgpuprof-inject.so" GPUPROF_NVML_LIBRARY=/nonexistent/nvml.so
	unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUPROF_ANNOTATE_LIBRARY
}

fail() {
	echo "FAIL: $*" >&2
	if [ -s "$OUT" ]; then
		echo "--- stdout (first 40 lines)" >&2
		head -n 40 "$OUT" >&2
	fi
	if [ -s "$ERR" ]; then
		echo "--- stderr" >&2
		head -n 20 "$ERR" >&2
	fi
	exit 1
}

# run ARGS...: runs $GPUPROF, stdout in $OUT, stderr in $ERR, status in $RC
run() {
	NCHECK=$((NCHECK + 1))
	"$GPUPROF" "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# expect_rc N ARGS...: runs gpuprof and checks its exit status
expect_rc() {
	local want=$1
	shift
	run "$@"
	[ "$RC" -eq "$want" ] || fail "'gpuprof $*' exited $RC, expected $want"
}

# out_has TEXT / err_has TEXT: fixed-string search in the last run's output
out_has() {
	grep -qF -- "$1" "$OUT" || fail "stdout lacks '$1'"
}
err_has() {
	grep -qF -- "$1" "$ERR" || fail "stderr lacks '$1'"
}
out_empty() {
	[ ! -s "$OUT" ] || fail "stdout is not empty"
}
# err_one_line: stderr holds exactly one line
err_one_line() {
	[ "$(wc -l <"$ERR")" -eq 1 ] || fail "stderr has $(wc -l <"$ERR") lines, expected 1"
}

# json_ok FILE: FILE parses as JSON
json_ok() {
	python3 -m json.tool "$1" >/dev/null 2>"$TMP/json-err" ||
		fail "'$1' is not valid JSON: $(cat "$TMP/json-err")"
}

# json_get FILE EXPR: prints a value of the parsed JSON document d (a Python expression)
json_get() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# no_width_over N FILE: no line of FILE is wider than N characters (UTF-8)
no_width_over() {
	python3 -c 'import sys
w = int(sys.argv[1])
for i, l in enumerate(open(sys.argv[2], encoding="utf-8").read().splitlines()):
    if len(l) > w and not l.startswith("== rank"):
        print("line %d is %d wide: %s" % (i + 1, len(l), l)); sys.exit(1)' "$1" "$2" ||
		fail "output wider than $1 columns"
}

done_ok() {
	echo "ok: $NCHECK checks"
	exit 0
}

[ -x "$GPUPROF" ] || { echo "skip: no gpuprof binary at '$GPUPROF'"; exit 77; }
