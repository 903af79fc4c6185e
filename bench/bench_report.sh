#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_report.sh - what `gpuprof report` costs on top of the analysis, and how big the page is,
# side by side in one run.
#
# usage: bench/bench_report.sh [--size-mb N] [--keep] [--runs N] [FILE...]
#
# Without FILE it generates bench/data/synth-<N>mb.json with gen_trace (default 1024 MB) and
# removes it afterwards unless --keep is given (a kept file is reused). Per file, the median of
# --runs runs (default 3) under /usr/bin/time -f '%e %M' of:
#   analyze   `gpuprof analyze --json -o /dev/null FILE`           the analysis alone
#   report    `gpuprof report -q -o OUT.html FILE`                 the analysis and the page
#   page      `gpuprof report -q -o OUT2.html REPORT.json`         the page from analyze's JSON
# and prints the page's size, report − analyze (the page on top of the analysis), and the
# budgets of issue 6: <= 5 MB for a 1 GB trace, <= 2 s on top of the analysis.
# Environment: GP_BUILD_DIR (default build-bench), GPUPROF (the CLI to time).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${GP_BUILD_DIR:-$root/build-bench}
size_mb=1024
keep=0
runs=3
files=()

usage() {
	echo "usage: bench/bench_report.sh [--size-mb N] [--keep] [--runs N] [FILE...]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--size-mb) size_mb=${2:?}; shift 2 ;;
	--runs) runs=${2:?}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help | -*) usage ;;
	*) files+=("$1"); shift ;;
	esac
done

if [ ! -x /usr/bin/time ]; then
	echo "bench_report: /usr/bin/time is missing (Debian: apt-get install -y time)" >&2
	exit 1
fi
gp=${GPUPROF:-$build/gpuprof}
gen=$build/gen_trace
if [ ! -x "$gp" ] || [ ! -x "$gen" ]; then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target gen_trace gpuprof >/dev/null
fi

tmp=$(mktemp -d)
generated=""
cleanup() {
	rm -rf "$tmp"
	if [ -n "$generated" ] && [ "$keep" = 0 ]; then rm -f "$generated"; fi
}
trap cleanup EXIT

if [ ${#files[@]} -eq 0 ]; then
	mkdir -p "$here/data"
	f="$here/data/synth-${size_mb}mb.json"
	if [ ! -f "$f" ]; then
		echo "generating $f ..." >&2
		"$gen" --size-mb "$size_mb" -o "$f"
		generated=$f
	fi
	files=("$f")
fi

# median_of CMD...: runs CMD $runs times, prints "wall_s rss_kb" of the median wall time
median_of() {
	local i out
	: >"$tmp/times"
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; return 1; }
		cat "$tmp/t" >>"$tmp/times"
	done
	sort -n "$tmp/times" | awk -v n="$runs" 'NR == int((n + 1) / 2) { print $1, $2 }'
}

printf '%-34s %10s %10s %10s %9s %10s %10s\n' file analyze_s report_s page_s page_MB extra_s json_MB
for f in "${files[@]}"; do
	mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1e6 }')
	"$gp" analyze --json -o "$tmp/report.json" "$f"
	read -r a_s _ < <(median_of "$gp" analyze --json -o /dev/null "$f")
	read -r r_s _ < <(median_of "$gp" report -q -o "$tmp/page.html" "$f")
	read -r p_s _ < <(median_of "$gp" report -q -o "$tmp/page2.html" "$tmp/report.json")
	size=$(stat -c %s "$tmp/page.html")
	jsize=$(stat -c %s "$tmp/report.json")
	printf '%-34s %10s %10s %10s %9.2f %10.2f %10.2f\n' "$(basename "$f") (${mb} MB)" "$a_s" "$r_s" \
		"$p_s" "$(awk -v b="$size" 'BEGIN { print b / 1e6 }')" \
		"$(awk -v r="$r_s" -v a="$a_s" 'BEGIN { print r - a }')" \
		"$(awk -v b="$jsize" 'BEGIN { print b / 1e6 }')"
	awk -v s="$size" -v r="$r_s" -v a="$a_s" -v mb="$mb" 'BEGIN {
		lim = 5e6 * (mb > 1000 ? mb / 1000 : 1)
		printf "  budget page size <= 5 MB per GB: %.2f MB %s\n", s / 1e6, s <= lim ? "PASS" : "FAIL"
		printf "  budget report - analyze <= 2 s:  %.2f s %s\n", r - a, r - a <= 2 ? "PASS" : "FAIL"
	}'
done
