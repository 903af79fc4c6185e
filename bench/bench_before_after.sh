#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_before_after.sh [--runs N] [--tile-mb N] BEFORE AFTER: times `analyze --json` of two
# gpuprof builds side by side, alternating runs (before, after, before, ...) so that a noisy
# machine penalises both alike, on every trace of ../shared/traces and on two real traces
# tiled to --tile-mb MB (default 1000; bench/tile_trace.py; 0 skips). Prints the median wall,
# user CPU and peak RSS of each and the ratio after/before (< 1: after is faster).
# --only REGEX keeps the traces whose path matches (grep -E). A redesign (issue 20) must not
# make analyze slower; issue 23's two analyses may cost at most 10 %.
set -euo pipefail
runs=5
tile_mb=1000
only=
while [ $# -gt 2 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--tile-mb) tile_mb=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: bench/bench_before_after.sh [--runs N] [--tile-mb N] [--only REGEX] BEFORE AFTER" >&2; exit 2; }
before=$(realpath "$1")
after=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
traces=${GP_SHARED_DIR:-$here/../../shared}/traces
[ -x /usr/bin/time ] || { echo "bench_before_after.sh: /usr/bin/time is missing (Debian: time)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gp-ba.XXXXXX")
trap 'rm -rf "$work"' EXIT

files=("$traces"/*/*.json.gz)
if [ "$tile_mb" != 0 ]; then
	for t in hta/trace_diff_control_control tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005; do
		[ -f "$traces/$t.json.gz" ] || continue
		out="$work/$(basename "$t")-x${tile_mb}mb.json"
		python3 "$here/tile_trace.py" "$traces/$t.json.gz" "$out" "$tile_mb" >&2
		files+=("$out")
	done
fi

# one timed sample: REP runs in a row (small traces finish within the clock's 10 ms
# resolution, so they run until about 200 MB of JSON were read); prints "wall user maxrss_kb"
# per run
one() {
	local t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -f "%e %U %M" -o "$work/t" sh -c \
		'i=0; while [ $i -lt "$3" ]; do "$1" analyze --json -q -o /dev/null "$2" || exit 1; i=$((i + 1)); done' \
		sh "$1" "$2" "$rep" || { echo "bench_before_after.sh: $1 failed on $2" >&2; exit 1; }
	t1=$(date +%s%N)
	# the wall from the nanosecond clock: time's %e has 10 ms steps, 5 % of a 200 ms sample
	awk -v r="$rep" -v ns=$((t1 - t0)) '{ printf "%.5f %.4f %d\n", ns / 1e9 / r, $2 / r, $3 }' "$work/t"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf '%-58s %9s %9s %7s %9s %9s %7s %9s\n' trace "wall-b" "wall-a" "a/b" "user-b" "user-a" "a/b" "rss-a/b"
for f in "${files[@]}"; do
	[ -z "$only" ] || printf '%s\n' "$f" | grep -Eq -- "$only" || continue
	: >"$work/b"
	: >"$work/a"
	case $f in
	*.gz) bytes=$(gzip -dc "$f" | wc -c) ;;
	*) bytes=$(stat -c %s "$f") ;;
	esac
	rep=$(((200000000 + bytes - 1) / bytes))
	for ((i = 0; i < runs; i++)); do
		one "$before" "$f" >>"$work/b"
		one "$after" "$f" >>"$work/a"
	done
	wb=$(cut -d' ' -f1 "$work/b" | median); wa=$(cut -d' ' -f1 "$work/a" | median)
	ub=$(cut -d' ' -f2 "$work/b" | median); ua=$(cut -d' ' -f2 "$work/a" | median)
	rb=$(cut -d' ' -f3 "$work/b" | median); ra=$(cut -d' ' -f3 "$work/a" | median)
	awk -v n="$(basename "$f")" -v wb="$wb" -v wa="$wa" -v ub="$ub" -v ua="$ua" -v rb="$rb" -v ra="$ra" \
		'BEGIN { printf "%-58s %9.4f %9.4f %7.3f %9.3f %9.3f %7.3f %9.3f\n", n, wb, wa, (wb > 0 ? wa / wb : 1),
			ub, ua, (ub > 0 ? ua / ub : 1), (rb > 0 ? ra / rb : 1) }'
done
