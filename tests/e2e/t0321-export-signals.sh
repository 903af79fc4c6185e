#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0321-export-signals.sh - an interrupted `gpuprof export -o FILE` leaves no
# temporary file behind. The export is held mid-write, deterministically:
# its first input, a generated trace of several MB, is already written to
# the temporary file `.FILE.tmp.XXXXXX` when it reads its second input from a
# FIFO that stays open and empty. SIGINT, SIGTERM and SIGHUP in turn then
# remove the temporary file, leave FILE as it was (absent or old) and kill
# gpuprof with the same signal (a shell sees 128+N). A signal that was
# ignored when gpuprof started stays ignored: the export goes on and
# completes once the FIFO delivers a trace. An export that fails on bad input
# leaves no temporary file either.
. "$(dirname "$0")/lib.sh"
need mkfifo python3
need_gen_trace
# a background job of a script ignores SIGINT: env gives gpuprof the default back
env --default-signal=INT true 2>/dev/null || { echo "skip: env has no --default-signal"; exit 77; }

K="$GP_SRC_DIR/tests/data/kineto"
cd "$TMP" || exit 1
"$GEN" --size-mb 8 -o big.json 2>/dev/null || fail "gen_trace"
mkfifo fifo || fail "mkfifo"

# no_temps: nothing named .*.tmp.* in $TMP
no_temps() {
	NCHECK=$((NCHECK + 1))
	local left
	left=$(find . -maxdepth 1 -name '.*.tmp.*')
	[ -z "$left" ] || fail "temporary files left: $left"
}

# start_export [SIGNAL TO IGNORE]: `gpuprof export big.json fifo -o out.json`
# in the background (pid in $pid), the FIFO open read-write on fd 3 (not
# gpuprof's) so that it never blocks and ends only when fd 3 is closed; returns
# once gpuprof has written big.json to its temporary file (not empty) and
# opened the FIFO. A watchdog kills gpuprof after 120 s, so nothing hangs.
start_export() {
	exec 3<>fifo
	if [ $# -gt 0 ]; then
		(trap '' "$1" && exec "$GPUPROF" export big.json fifo -o out.json \
			>"$OUT" 2>"$ERR" 3<&-) &
	else
		env --default-signal=INT "$GPUPROF" export big.json fifo -o out.json \
			>"$OUT" 2>"$ERR" 3<&- &
	fi
	pid=$!
	(
		i=0
		while kill -0 "$pid" 2>/dev/null; do
			i=$((i + 1))
			[ "$i" -lt 1200 ] || { kill -KILL "$pid"; break; }
			sleep 0.1
		done
	) >/dev/null 2>&1 3<&- &
	dog=$!
	local i fd
	for i in $(seq 1200); do
		tmp=$(find . -maxdepth 1 -name '.out.json.tmp.*' -size +0)
		if [ -n "$tmp" ]; then
			for fd in /proc/"$pid"/fd/*; do
				[ "$(readlink "$fd" 2>/dev/null)" = "$TMP/fifo" ] && return 0
			done
		fi
		kill -0 "$pid" 2>/dev/null || fail "export ended early"
		sleep 0.05
	done
	kill -KILL "$pid"
	fail "export did not reach the FIFO in 60 s"
}

# end_export: waits for gpuprof (status in $rc), stops the watchdog, closes fd 3
end_export() {
	wait "$pid"
	rc=$?
	wait "$dog"
	exec 3<&-
}

# --- each signal: no temporary file, the target untouched, death by that signal
for sig in INT TERM HUP; do
	case $sig in
	INT) num=2; rm -f out.json ;;               # no target: none created
	TERM) num=15; echo old >out.json ;;          # a target: not replaced
	HUP) num=1; echo old >out.json ;;
	esac
	start_export
	NCHECK=$((NCHECK + 1))
	kill -"$sig" "$pid"
	end_export
	[ "$rc" -eq $((128 + num)) ] || fail "SIG$sig: exited $rc, expected $((128 + num))"
	no_temps
	if [ "$sig" = INT ]; then
		[ ! -e out.json ] || fail "SIG$sig: out.json was created"
	else
		[ "$(cat out.json)" = old ] || fail "SIG$sig: out.json was replaced"
	fi
done

# --- an ignored SIGHUP stays ignored: the export completes once the FIFO has a trace
echo old >out.json
start_export HUP
NCHECK=$((NCHECK + 1))
kill -HUP "$pid"
sleep 0.2
kill -0 "$pid" 2>/dev/null || fail "an ignored SIGHUP killed gpuprof"
cat "$K/modern.json" >&3
exec 3<&-
end_export
[ "$rc" -eq 0 ] || fail "export after an ignored SIGHUP exited $rc"
err_has "wrote 'out.json'"
json_ok out.json
no_temps

# --- a failed export (bad second input) leaves no temporary file and no target
printf '{"traceEvents": [' >bad.json
expect_rc 1 export big.json bad.json -o out2.json
err_has "bad.json"
[ ! -e out2.json ] || fail "a failed export created out2.json"
no_temps

done_ok
