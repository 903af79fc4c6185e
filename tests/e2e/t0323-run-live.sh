#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0323-run-live.sh - `gpuprof run --live [SECONDS]`: a line of GPU and host
# metrics on standard error every SECONDS while CMD runs, with the fake
# NVML's values (two GPUs: 80 and 40 GiB, 1 to 5 GiB used,
# 40-46 °C, 100-130 W); CMD's standard output is byte for byte the same with
# and without --live (and --quiet keeps the lines, which were asked for);
# --live=S and --live S; bad values and --sample-ms 0 are usage errors.
. "$(dirname "$0")/lib.sh"
need python3

B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
NVML="${GP_FAKE_NVML_DIR:-$B/tests/fake}/libfake-nvml.so"
[ -e "$NVML" ] || { echo "skip: no $NVML"; exit 77; }
export GPUPROF_NVML_LIBRARY="$NVML" FAKE_NVML_GPUS=2
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
cd "$TMP" || exit 1

# CMD writes text and binary bytes to stdout over about a second
printf 'printf "first line\\n"; sleep 0.6; printf "\\000\\001\\377 bytes"; sleep 0.6; printf "last\\n"\n' >cmd.sh

expect_rc 0 run --quiet --no-report -o plain -- sh cmd.sh
cp "$OUT" plain.out
[ ! -s "$ERR" ] || fail "--quiet without --live wrote to stderr"
expect_rc 0 run --no-report --live 0.2 -o live -- sh cmd.sh
NCHECK=$((NCHECK + 1))
cmp -s "$OUT" plain.out || fail "CMD's stdout differs with --live"
cp "$ERR" live.err

check_lines() {
	NCHECK=$((NCHECK + 1))
	python3 - "$1" "$2" <<'EOF' || fail "the --live lines of '$1' (above)"
import re, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.startswith("gpuprof live ")]
want = int(sys.argv[2])
assert len(lines) >= want, ("too few lines", lines)
gpu = re.compile(r"GPU(\d) mem ([0-9.]+) GiB/([0-9.]+) GiB \((\d+)%\) util (\d+)% (\d+)°C (\d+) W")
n = 0
for l in lines:
    assert re.match(r"gpuprof live \d+:\d\d \| ", l), l
    if "waiting for the first sample" in l:
        continue
    g = gpu.findall(l)
    assert [x[0] for x in g] == ["0", "1"], l
    for idx, used, total, pct, util, temp, watts in g:
        assert float(total) == (80.0 if idx == "0" else 40.0), l
        assert 1 <= float(used) <= 5 and int(pct) == round(float(used) / float(total) * 100), l
        assert 0 <= int(util) <= 100 and 40 <= int(temp) <= 46 and 100 <= int(watts) <= 130, l
    assert re.search(r"\| CPU (\d+%|-) mem [0-9.]+ [KMGT]?i?B/[0-9.]+ [KMGT]?i?B \(\d+%\) \| tree CPU ", l), l
    assert re.search(r"RSS ([0-9.]+ [KMGT]?i?B|-)$", l), l
    n += 1
assert n >= 1, lines
EOF
}
check_lines live.err 3

# --quiet: the lines stay, the notes go; --live=S; stdout the same again
expect_rc 0 run --quiet --no-report --live=0.3 -o quiet -- sh cmd.sh
NCHECK=$((NCHECK + 1))
cmp -s "$OUT" plain.out || fail "CMD's stdout differs with --live --quiet"
check_lines "$ERR" 2
NCHECK=$((NCHECK + 1))
grep -v "^gpuprof live " "$ERR" && fail "--quiet --live printed more than the lines"
# the default interval: one second; the exit status is CMD's
expect_rc 3 run --quiet --no-report --live -o def -- sh -c 'sleep 1.3; exit 3'
check_lines "$ERR" 1

# usage errors
expect_rc 2 run --live 0 -- true
err_has "option '--live' expects 0.1 to 3600 seconds, not '0'"
expect_rc 2 run --live=abc -- true
err_has "not 'abc'"
expect_rc 2 run --live --sample-ms 0 -- true
err_has "needs sampling"
expect_rc 0 run -h
out_has "--live [SECONDS]"
done_ok
