#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0305-run-stdout.sh - `gpuprof run`'s exit status is CMD's whatever happens
# to standard output: closed (`>&-`), a full device (`>/dev/full`), with CMD
# exiting or killed by a signal; gpuprof, which writes nothing there itself,
# says nothing about it. Other commands still fail (exit 1, one message) when
# their output cannot be written, and a closed stdout that a command wrote
# nothing to is no error.
. "$(dirname "$0")/lib.sh"
need python3

export GPUPROF_INJECT_LIBRARY=/nonexistent/libgpuprof-inject.so
export GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
K="$GP_SRC_DIR/tests/data/kineto"
cd "$TMP" || exit 1

# rc_of WANT WHAT CMD...: runs CMD (stdout already redirected by the caller's
# `exec`), stderr in $ERR, and checks its status
rc_of() {
	local want=$1 what=$2
	shift 2
	NCHECK=$((NCHECK + 1))
	"$@" 2>"$ERR"
	RC=$?
	[ "$RC" -eq "$want" ] || fail "$what: exited $RC, expected $want"
}

no_stdout_msg() {
	! grep -q "standard output" "$ERR" || fail "a message about standard output"
}

# --- run: CMD's status with stdout closed or full
n=0
for redir in closed full; do
	for code in 0 7; do
		n=$((n + 1))
		if [ "$redir" = closed ]; then
			rc_of "$code" "run exit $code >&-" "$GPUPROF" run --quiet -o "r$n" -- \
				sh -c "exit $code" >&-
		else
			rc_of "$code" "run exit $code >/dev/full" "$GPUPROF" run --quiet -o "r$n" -- \
				sh -c "exit $code" >/dev/full
		fi
		no_stdout_msg
		[ "$(json_get "r$n/run.json" 'd["exit_code"]')" = "$code" ] ||
			fail "run.json exit_code $code ($redir)"
	done
done
# without --quiet, the notes on stderr do not change it either
rc_of 7 "run exit 7 >&- (not quiet)" "$GPUPROF" run -o loud -- sh -c 'exit 7' >&-
err_has "run.json in '$TMP/loud'"
no_stdout_msg

# CMD's own failed writes are CMD's: its status, as without gpuprof
sh -c 'echo hi' >/dev/full 2>/dev/null
want=$?
[ "$want" -ne 0 ] || fail "sh's echo to /dev/full succeeded: test premise"
rc_of "$want" "run echo >/dev/full" "$GPUPROF" run --quiet -o echo-full -- sh -c 'echo hi' \
	>/dev/full
sh -c 'echo hi' >&- 2>/dev/null
want=$?
rc_of "$want" "run echo >&-" "$GPUPROF" run --quiet -o echo-closed -- sh -c 'echo hi' >&-

# CMD killed by a signal: gpuprof dies of it too (a shell sees 128+N)
rc_of 143 "run killed >/dev/full" "$GPUPROF" run --quiet -o sig-full -- sh -c 'kill -TERM $$' \
	>/dev/full
rc_of 143 "run killed >&-" "$GPUPROF" run --quiet -o sig-closed -- sh -c 'kill -TERM $$' >&-
no_stdout_msg
[ "$(json_get sig-closed/run.json 'd["state"]')" = signaled ] || fail "run.json state"

# --- other commands: their output lost is a failure, said once
rc_of 1 "analyze >/dev/full" "$GPUPROF" analyze "$K/modern.json" >/dev/full
err_has "gpuprof: error: cannot write to standard output: No space left on device"
err_one_line
rc_of 1 "analyze >&-" "$GPUPROF" analyze "$K/modern.json" >&-
err_has "gpuprof: error: cannot write to standard output:"
err_one_line
rc_of 1 "version >&-" "$GPUPROF" version >&-
err_has "cannot write to standard output"
# a closed stdout that nothing was written to: no error
rc_of 0 "export -o >&-" "$GPUPROF" export -q "$K/modern.json" -o e.json >&-
[ ! -s "$ERR" ] || fail "export -o with stdout closed wrote to stderr"
json_ok e.json

done_ok
