#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0300-run-basic.sh - gpuprof run as a process runner: exit codes passed
# through, deaths by signal passed on, SIGTERM forwarded, stdin/stdout/stderr
# untouched (binary too), CMD not found or not executable, the status line
# only on a terminal, usage errors and the output directory rules.
. "$(dirname "$0")/lib.sh"
need python3

# no injector (whatever this build has), no other tool's injection, no GPU
export GPUPROF_INJECT_LIBRARY=/nonexistent/libgpuprof-inject.so
export GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
cd "$TMP" || exit 1

# --- exit codes
for code in 0 3 255; do
	expect_rc "$code" run --quiet -o "exit$code" -- sh -c "exit $code"
	out_empty
	[ ! -s "$ERR" ] || fail "--quiet wrote to stderr"
	[ "$(json_get "exit$code/run.json" 'd["exit_code"]')" = "$code" ] || fail "exit_code $code"
done

# --- death by signal: gpuprof dies of the same signal, after writing run.json
for sig in TERM KILL; do
	python3 - "$GPUPROF" "$sig" <<'EOF' || fail "death by SIG$sig not passed on"
import json, signal, subprocess, sys
gp, name = sys.argv[1], sys.argv[2]
num = getattr(signal, "SIG" + name)
p = subprocess.run([gp, "run", "--quiet", "-o", "sig" + name, "--",
                    "sh", "-c", "kill -%s $$" % name], capture_output=True)
assert p.returncode == -num, (p.returncode, p.stderr)
d = json.load(open("sig%s/run.json" % name))
assert d["state"] == "signaled" and d["exit_signal"] == "SIG" + name, d
assert d["exit_code"] is None and d["wall_ns"] > 0
EOF
done
# and a shell sees 128+N
"$GPUPROF" run --quiet -o sigsh -- sh -c 'kill -TERM $$' 2>"$ERR"
[ $? -eq 143 ] || fail "SIGTERM death is not 143 in a shell"

# --- SIGTERM to gpuprof reaches CMD, which traps it and exits 42
"$GPUPROF" run --quiet -o fwd -- sh -c \
	'trap "exit 42" TERM; touch ready; while :; do sleep 0.05; done' >"$OUT" 2>"$ERR" &
pid=$!
for _ in $(seq 100); do [ -e ready ] && break; sleep 0.05; done
[ -e ready ] || { kill -KILL "$pid"; fail "CMD did not start"; }
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 42 ] || fail "SIGTERM forwarded: gpuprof exited $rc, expected 42"
[ "$(json_get fwd/run.json 'd["exit_code"]')" = 42 ] || fail "run.json exit_code after SIGTERM"
# SIGUSR1 and SIGHUP too
rm -f ready
"$GPUPROF" run --quiet -o fwd2 -- sh -c \
	'trap "exit 11" USR1; trap "exit 12" HUP; touch ready; while :; do sleep 0.05; done' \
	>"$OUT" 2>"$ERR" &
pid=$!
for _ in $(seq 100); do [ -e ready ] && break; sleep 0.05; done
kill -USR1 "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 11 ] || fail "SIGUSR1 forwarded: gpuprof exited $rc, expected 11"

# --- stdin, stdout and stderr are CMD's own, byte for byte
python3 -c 'import os, sys
sys.stdout.buffer.write(bytes(range(256)) * 64 + os.urandom(300000) + b"\0\r\n\x1b[K no newline")' \
	>bin
"$GPUPROF" run --quiet -o cat1 -- cat <bin >"$OUT" 2>"$ERR" || fail "run cat failed"
cmp -s bin "$OUT" || fail "stdout differs from the input"
[ ! -s "$ERR" ] || fail "stderr not empty"
"$GPUPROF" run --quiet -o cat2 -- sh -c 'cat >&2' <bin >"$OUT" 2>"$ERR" || fail "run cat >&2 failed"
cmp -s bin "$ERR" || fail "stderr differs from the input"
out_empty
cat >both.py <<'EOF'
import sys
data = sys.stdin.buffer.read()
for i in range(0, len(data), 4096):
    (sys.stdout if i % 8192 else sys.stderr).buffer.write(data[i:i + 4096])
    (sys.stdout if i % 8192 else sys.stderr).flush()
sys.exit(5)
EOF
python3 both.py <bin >direct.out 2>direct.err
"$GPUPROF" run --quiet -o both -- python3 both.py <bin >via.out 2>via.err
[ $? -eq 5 ] || fail "both.py exit code"
cmp -s direct.out via.out || fail "stdout of a program differs under gpuprof run"
cmp -s direct.err via.err || fail "stderr of a program differs under gpuprof run"
# stdin is a terminal-less pipe here; stdin from a pipe works too
printf 'hello\n' | "$GPUPROF" run --quiet -o pipe -- cat >"$OUT" 2>"$ERR"
[ "$(cat "$OUT")" = hello ] || fail "piped stdin"

# not --quiet, stderr not a terminal: notes but no status line
expect_rc 0 run -o notes -- sh -c 'sleep 1.2'
err_has "CUDA and NVTX capture are not available in this build"
# the last line says what DIR holds: no capture without CUDA, the metrics and run.json
err_has "gpuprof run: metrics timeline and run.json in '$TMP/notes'"
grep -q "capture in" "$ERR" && fail "a run without CUDA said 'capture in DIR'"
grep -q $'\r' "$ERR" && fail "a status line was drawn on a file"
[ "$(wc -l <"$ERR")" -eq 2 ] || fail "expected 2 lines on stderr"

# on a terminal: a status line, redrawn and erased
if command -v script >/dev/null 2>&1; then
	script -qec "'$GPUPROF' run -o tty -- sleep 2.3" /dev/null >tty.out 2>&1
	grep -q $'\rgpuprof run 0:0[12] | no GPU: no NVML | host CPU' tty.out ||
		fail "no status line on a terminal: $(cat -A tty.out | head -5)"
	grep -q $'\r\033\\[Kgpuprof run: metrics timeline and run.json in' tty.out || fail "the status line was not erased"
fi

# --- CMD that cannot be run
expect_rc 127 run -o nf -- no-such-command-gpuprof
err_has "cannot run 'no-such-command-gpuprof': command not found"
[ -e nf ] && fail "a directory was created for a command not found"
expect_rc 127 run -o nf -- ./no/such/file
err_has "No such file or directory"
printf '#!/bin/sh\necho hi\n' >noexec.sh
chmod 644 noexec.sh
expect_rc 126 run -o nx -- ./noexec.sh
err_has "Permission denied"
mkdir adir
expect_rc 126 run -o nx -- ./adir
err_has "Is a directory"
# a script without #! runs through /bin/sh, as with execvp
printf 'echo from-sh; exit 4\n' >nobang.sh
chmod 755 nobang.sh
expect_rc 4 run --quiet -o nobang -- ./nobang.sh
out_has "from-sh"
# PATH lookup
mkdir bin-dir
printf '#!/bin/sh\necho "path-ok $1"\n' >bin-dir/gp-test-cmd
chmod 755 bin-dir/gp-test-cmd
PATH="$TMP/bin-dir:$PATH" expect_rc 0 run --quiet -o pathrun -- gp-test-cmd x
out_has "path-ok x"
[ "$(json_get pathrun/run.json 'd["executable"]')" = "$TMP/bin-dir/gp-test-cmd" ] ||
	fail "executable not resolved on PATH"

# --- usage errors: exit 2, one line, nothing run or created
for args in "--bogus -- true" "--sample-ms 60001 -- true" "--sample-ms x -- true" \
	"--sample-ms -1 -- true" "--delay -1 -- true" "--delay 1.0000000001 -- true" \
	"--duration 0 -- true" "--duration abc -- true" "--capture-range foo -- true" \
	"--capture-range nvtx: -- true" "--schedule wait=1,active=0 --iter-range s -- true" \
	"--schedule wait=1 --iter-range s -- true" "--schedule wait=x,active=1 --iter-range s -- true" \
	"--schedule active=1,bogus=2 --iter-range s -- true" "--schedule active=1 -- true" \
	"--iter-range s -- true" "--tag novalue -- true" "--tag =v -- true" "--tag a/b=c -- true" \
	"--no-cuda --capture-range cudaProfilerApi -- true" "--" "" "-o" "--tag"; do
	# shellcheck disable=SC2086
	expect_rc 2 run $args
	err_one_line
	out_empty
done
ls | grep -q '^gpuprof-run-' && fail "a usage error created a directory"
expect_rc 0 run -h
out_has "usage: gpuprof run"
out_has "--capture-range"

# --- the output directory
expect_rc 0 run --quiet -- true
[ -f gpuprof-run-1/run.json ] || fail "no ./gpuprof-run-1"
expect_rc 0 run --quiet -- true
[ -f gpuprof-run-2/run.json ] || fail "no ./gpuprof-run-2"
mkdir gpuprof-run-3
touch gpuprof-run-4
expect_rc 0 run --quiet -- true
[ -f gpuprof-run-5/run.json ] || fail "the first free N is 5"
mkdir full && touch full/x
expect_rc 2 run --quiet -o full -- true
err_has "'full' is not empty"
err_has "--force"
[ -e full/run.json ] && fail "wrote into a non-empty directory"
expect_rc 0 run --quiet --force -o full -- true
[ -f full/run.json ] && [ -f full/x ] || fail "--force"
mkdir empty
expect_rc 0 run --quiet -o empty -- true
expect_rc 0 run --quiet -o deep/er/dir -- true
[ -f deep/er/dir/run.json ] || fail "-o with missing parents"
expect_rc 2 run --quiet -o noexec.sh -- true
err_has "not a directory"
ls full | grep -q tmp && fail "temporary files left behind"

echo "ok: $NCHECK gpuprof runs"
