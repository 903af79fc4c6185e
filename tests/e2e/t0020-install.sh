#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0020-install.sh - gpuprof installs as a library people link against, as a user would
# use it: `cmake --install` of this build into a temporary prefix; a C program built with
# `pkg-config --cflags --libs gpuprof` and another with CMake's find_package(gpuprof) run
# against the installed libgpuprof.so.0; the Python package installed with pip into a
# virtual environment (no network: --no-build-isolation, the system's setuptools); a script
# using gpuprof.range() under the installed `gpuprof run` records its ranges, with nothing
# set by hand (the installed gpuprof finds its tracer, and the package its library).
. "$(dirname "$0")/lib.sh"
need cmake cc pkg-config python3
if [ "${GP_SANITIZED:-}" = 1 ]; then
	# programs and python3 linked against a sanitized libgpuprof need the sanitizer first
	echo "skip: sanitizer build (its library needs the sanitizer runtime loaded first)"
	exit 77
fi
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
[ -e "$B/cmake_install.cmake" ] || { echo "skip: no build directory at $B"; exit 77; }
P="$TMP/prefix"
unset GPUPROF_LIBRARY GPUPROF_RUN_LIBRARY GPUPROF_INJECT_LIBRARY GPUPROF_ANNOTATE_LIBRARY \
	GPUPROF_CAPTURE_DIR CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LD_LIBRARY_PATH \
	PYTHONPATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH
export GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 PYTHONDONTWRITEBYTECODE=1
cd "$TMP" || exit 1

# --- cmake --install: the layout
NCHECK=$((NCHECK + 1))
cmake --install "$B" --prefix "$P" >install.log 2>&1 || { cat install.log >&2; fail "cmake --install"; }
PC=$(find "$P" -name gpuprof.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$PC" ] || fail "no gpuprof.pc installed"
LIBDIR=$(dirname "$(dirname "$PC")")
for f in bin/gpuprof include/gpuprof/gpuprof.h include/gpuprof/annotate.h \
	include/gpuprof/version.h; do
	[ -f "$P/$f" ] || fail "$f not installed"
done
[ -x "$P/bin/gpuprof" ] || fail "bin/gpuprof is not executable"
[ "$(readlink "$LIBDIR/libgpuprof.so.0")" = libgpuprof.so.0.1.0 ] ||
	fail "libgpuprof.so.0 -> $(readlink "$LIBDIR/libgpuprof.so.0")"
[ -f "$LIBDIR/libgpuprof.so.0.1.0" ] && [ -L "$LIBDIR/libgpuprof.so" ] || fail "shared library"
[ -f "$LIBDIR/gpuprof/libgpuprof-inject.so" ] || fail "libgpuprof-inject.so not installed"
for f in gpuprofConfig.cmake gpuprofConfigVersion.cmake gpuprofTargets.cmake; do
	[ -f "$LIBDIR/cmake/gpuprof/$f" ] || fail "cmake package: $f not installed"
done
# nothing of the tests or the build tree leaks into the installed files
if grep -rl -- "$B" "$PC" "$LIBDIR/cmake/gpuprof" >/dev/null 2>&1; then
	fail "an installed file names the build directory"
fi

# --- a C program: every public header, the version macros, an options struct
cat >consumer.c <<'EOF'
#define GPUPROF_ANNOTATE_BINDINGS
#include <stdio.h>
#include <string.h>

#include <gpuprof/analyze.h>
#include <gpuprof/annotate.h>
#include <gpuprof/bench.h>
#include <gpuprof/compare.h>
#include <gpuprof/export.h>
#include <gpuprof/gpuprof.h>
#include <gpuprof/report.h>
#include <gpuprof/sample.h>
#include <gpuprof/stats.h>
#include <gpuprof/trace.h>
#include <gpuprof/value.h>
#include <gpuprof/version.h>

#if !GP_VERSION_CHECK(0, 1, 0) || GP_VERSION_CHECK(99, 0, 0)
#error "GP_VERSION_CHECK"
#endif

int main(void)
{
	const double x[] = { 1, 2, 3, 4, 5 };
	struct gp_stats_opts o = { .size = sizeof(o), .resamples = 200 };
	struct gp_stats s;
	struct gp_value *v = gp_value_object();
	char *json = NULL;

	if (!v || gp_obj_set_int(v, "n", 3) || gp_value_to_json(v, 0, &json, NULL))
		return 1;
	if (gp_stats_compute(x, 5, &o, &s))
		return 2;
	printf("%s %s %s median=%g\n", GP_VERSION, gp_version(), json, s.median);
	gp_free(json);
	gp_value_free(v);
	GPUPROF_RANGE_PUSH("outside gpuprof run: a no-op");
	GPUPROF_RANGE_POP();
	return strcmp(gp_version(), GP_VERSION) != 0;
}
EOF
VERSION=$(sed -n 's/^#define GP_VERSION "\(.*\)"$/\1/p' "$P/include/gpuprof/version.h")
[ -n "$VERSION" ] || fail "no GP_VERSION in version.h"
WANT="$VERSION $VERSION {\"n\":3} median=3"

NCHECK=$((NCHECK + 1))
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
[ "$(pkg-config --modversion gpuprof)" = "$VERSION" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o consumer-pc consumer.c $(pkg-config --cflags --libs gpuprof) \
	2>cc.err || { cat cc.err >&2; fail "cc with pkg-config --cflags --libs gpuprof"; }
out=$(LD_LIBRARY_PATH="$LIBDIR" ./consumer-pc) || fail "consumer-pc failed: $out"
[ "$out" = "$WANT" ] || fail "consumer-pc printed '$out', expected '$WANT'"
LD_LIBRARY_PATH="$LIBDIR" ldd ./consumer-pc | grep -qF "libgpuprof.so.0 => $LIBDIR/libgpuprof.so.0" ||
	fail "consumer-pc does not load the installed libgpuprof.so.0"
unset PKG_CONFIG_PATH

NCHECK=$((NCHECK + 1))
mkdir cm
cp consumer.c cm/
cat >cm/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(gpuprof 0.1 REQUIRED)
add_executable(consumer-cmake consumer.c)
target_link_libraries(consumer-cmake PRIVATE gpuprof::gpuprof)
add_executable(consumer-static consumer.c)
target_link_libraries(consumer-static PRIVATE gpuprof::gpuprof_static)
EOF
cmake -S cm -B cm/build -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >cm.log 2>&1 &&
	cmake --build cm/build >>cm.log 2>&1 || { cat cm.log >&2; fail "find_package(gpuprof) build"; }
out=$(cm/build/consumer-cmake) || fail "consumer-cmake failed: $out"
[ "$out" = "$WANT" ] || fail "consumer-cmake printed '$out', expected '$WANT'"
out=$(cm/build/consumer-static) || fail "consumer-static failed: $out"
[ "$out" = "$WANT" ] || fail "consumer-static printed '$out', expected '$WANT'"
LD_LIBRARY_PATH="$LIBDIR" ldd cm/build/consumer-static | grep -q libgpuprof &&
	fail "gpuprof::gpuprof_static linked the shared library"

# --- pip install into a virtual environment: an interpreter with venv, pip, setuptools, wheel
PY=
for py in python3 /usr/bin/python3; do
	if command -v "$py" >/dev/null 2>&1 &&
		"$py" -c 'import ensurepip, setuptools, venv, wheel' >/dev/null 2>&1; then
		PY=$py
		break
	fi
done
if [ -z "$PY" ]; then
	echo "skip: no python3 with venv, pip, setuptools and wheel (Debian python3-venv python3-setuptools python3-wheel)"
	exit 77
fi
NCHECK=$((NCHECK + 1))
# from a copy: pip builds in place and leaves build/ and *.egg-info beside the sources
cp -r "$GP_SRC_DIR/python" pysrc
rm -rf pysrc/build pysrc/*.egg-info
"$PY" -m venv --system-site-packages venv >venv.log 2>&1 || { cat venv.log >&2; fail "venv"; }
venv/bin/python -m pip install --no-build-isolation --no-index --no-cache-dir \
	--disable-pip-version-check ./pysrc >pip.log 2>&1 || { cat pip.log >&2; fail "pip install"; }
venv/bin/python -c 'import gpuprof, sys; sys.exit(0 if gpuprof.__file__.startswith(sys.prefix) else 1)' ||
	fail "gpuprof is not imported from the virtual environment"
[ "$(venv/bin/python -c 'import gpuprof; print(gpuprof.__version__)')" = "$VERSION" ] ||
	fail "gpuprof.__version__ is not $VERSION"

# outside gpuprof run: the installed library through pkg-config's libdir
NCHECK=$((NCHECK + 1))
got=$(PKG_CONFIG_PATH="$LIBDIR/pkgconfig" venv/bin/python -c 'import gpuprof
a = gpuprof.available()
print(a.path if a else a.reason)')
case "$got" in
"$LIBDIR/libgpuprof.so.0") ;;
*) fail "the package did not find the installed library: $got" ;;
esac

# --- a script with ranges under the installed gpuprof run: recorded, nothing set by hand
NCHECK=$((NCHECK + 1))
cat >train.py <<'EOF'
import gpuprof

@gpuprof.range("train_step")
def step(i):
    with gpuprof.range("forward"):
        sum(range(1000))
    gpuprof.counter("loss", 1.0 / (i + 1))

for i in range(5):
    step(i)
    gpuprof.frame()
print("recording", gpuprof.recording(), gpuprof.available().path)
EOF
"$P/bin/gpuprof" run --quiet --no-cuda --sample-ms 0 -o run -- venv/bin/python train.py \
	>"$OUT" 2>"$ERR" || fail "installed gpuprof run failed"
[ "$(cat "$OUT")" = "recording True $LIBDIR/libgpuprof.so.0" ] ||
	fail "the script did not record through the installed library: $(cat "$OUT")"
grep -qF "not recorded" "$ERR" && fail "the package says it records nothing"
python3 - "$LIBDIR" <<'EOF' || fail "the installed gpuprof run did not use the installed tracer"
import json, os, sys
run = json.load(open("run/run.json"))
want = os.path.join(sys.argv[1], "gpuprof", "libgpuprof-inject.so")
assert run["injector"]["path"] == want, run["injector"]
EOF
"$P/bin/gpuprof" analyze --json run >"$OUT" 2>"$ERR" || fail "analyze --json of the run"
python3 - "$OUT" <<'EOF' || fail "the ranges of the script are not in the capture"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
rg = {x["name"]: x["count"] for x in r["ranges"]}
assert rg == {"train_step": 5, "forward": 5}, rg
(c,) = r["counters"]
assert (c["name"], c["count"]) == ("loss", 5), c
EOF

done_ok
