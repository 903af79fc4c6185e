#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0201-top-ui.sh - the full-screen `gpuprof top` under tmux at 80x24: the
# screen, the keys (p pause, s sort, q quit), a resize, SIGINT and SIGTERM,
# and that the terminal is given back (echo and canonical mode restored).
. "$(dirname "$0")/lib.sh"
need tmux python3

FAKE="${GP_BUILD_DIR:-$GP_SRC_DIR/build}/tests/fake/libfake-nvml.so"
[ -f "$FAKE" ] || { echo "skip: no $FAKE"; exit 77; }
"$GPUPROF" version --build-options 2>/dev/null | grep -Eq "top full screen: +no" &&
	{ echo "skip: built without ncursesw"; exit 77; }

# one tmux server per start (a new server on a socket whose server is still
# exiting fails), all killed at the end
NSOCK=0
SOCK="$TMP/tmux.0.sock"
T() { tmux -S "$SOCK" "$@"; }
trap 'for s in "$TMP"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$TMP"' EXIT

# screen: the pane's text; wait_for TEXT: until the pane shows TEXT (10 s)
screen() { T capture-pane -p -t gp; }
wait_for() {
	for _ in $(seq 100); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	echo "--- pane" >&2
	screen >&2
	fail "the screen never showed '$1'"
}

# start CMD in a fresh 80x24 pane, in a shell that reports the exit status
# and the terminal modes after gpuprof returns
start() {
	T kill-server 2>/dev/null
	NSOCK=$((NSOCK + 1))
	SOCK="$TMP/tmux.$NSOCK.sock"
	T -f /dev/null new-session -d -s gp -x 80 -y 24 \
		"env TERM=xterm-256color LANG=C.UTF-8 GPUPROF_NVML_LIBRARY='$GPUPROF_NVML_LIBRARY' \
		 sh -c 'echo \$\$ >$TMP/pid; exec $*'; echo EXIT=\$?; stty -a | tr ' ' '\n' | grep -E '^-?(echo|icanon)$' | sort | tr '\n' ' '; \
		 echo; sleep 30"
}

export GPUPROF_NVML_LIBRARY="$FAKE"
start "$GPUPROF" top --interval 100
wait_for "gpuprof top"
wait_for "GPU 0 Fake GPU H100 0"
wait_for "GPU 1 Fake GPU H100 1"
wait_for " CPU ["
wait_for "throttle:"
wait_for "1000"          # a process row (pid 1000 on GPU 0)
wait_for "sort: memory"
T send-keys -t gp s
wait_for "sort: SM"
T send-keys -t gp p
wait_for "PAUSED"
T send-keys -t gp p
T resize-window -t gp -x 100 -y 30
wait_for "GPU 1 Fake GPU H100 1"
T resize-window -t gp -x 80 -y 24
T send-keys -t gp q
wait_for "EXIT=0"
wait_for "echo icanon"
screen | grep -qF "Fake GPU" && fail "the monitor's screen was not cleared on exit"

# SIGINT (Ctrl-C) and SIGTERM restore the terminal too
start "$GPUPROF" top --interval 100
wait_for "GPU 0"
T send-keys -t gp C-c
wait_for "EXIT=0"
wait_for "echo icanon"

start "$GPUPROF" top --interval 100
wait_for "GPU 0"
kill -TERM "$(cat "$TMP/pid")" || fail "no gpuprof to signal"
wait_for "EXIT=0"
wait_for "echo icanon"

# no GPU: the host, and one line saying why
GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
start "$GPUPROF" top --interval 100
wait_for "No GPU shown: no NVML"
wait_for " CPU ["
T send-keys -t gp q
wait_for "EXIT=0"

# not a terminal: a clear error
"$GPUPROF" top </dev/null >"$OUT" 2>"$ERR"
[ $? -eq 1 ] || fail "top without a terminal should fail"
grep -qF "needs a terminal" "$ERR" || fail "no 'needs a terminal' message"

echo "ok"
