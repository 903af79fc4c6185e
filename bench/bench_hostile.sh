#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_hostile.sh - times `gpuprof analyze` on inputs built to stall a reader (issue item 7,
# "Inputs must never stall"): every reader must stay linear in its input.
#
# usage: bench/bench_hostile.sh [--runs N] [--timeout S] [--string-mib N] [--escapes N]
#                               [--threads N] [--domains N] [--no-json] [--no-capture]
#                               [--no-python] [--keep DIR]
#
# bench/gen_hostile.py writes the inputs (defaults: the full sizes of the issue):
#   JSON (Kineto reader)
#     utf8-string.json     one event named by a 128 MiB string of "é" (2 bytes each)
#     utf8-string.json.gz  the same, gzip -6 (~130 KB)
#     u00e9-escapes.json   one event named by 16 Mi "\u00e9" escapes (96 MiB of text)
#   capture (.gpcap reader), NVTX records
#     nvtx-threads.gpcap   200,000 threads, each with one push and its pop
#     nvtx-domains.gpcap   400,000 NVTX domains, each with one push and its pop on one thread
# For each file it runs `gpuprof analyze --json -o REPORT FILE` --runs times (default 3) under
# /usr/bin/time and reports the median wall time and peak RSS, checks the report of the first
# run (the long name whole; the ranges all kept), and, for the JSON files, times Python's
# json.load of the same file as a baseline (in-process, gzip.open for .gz; its process RSS).
# A run longer than --timeout seconds (default 600) is stopped and shown as ">S".
# Exit status: 0 every run finished with a right report, 1 otherwise, 2 usage.
# Environment: GP_BUILD_DIR (default build-bench), GPUPROF (the CLI to time).
# The inputs need ~360 MB in $TMPDIR (default /tmp); --keep DIR writes and reuses them in DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${GP_BUILD_DIR:-$root/build-bench}
gp=${GPUPROF:-$build/gpuprof}
runs=3
limit=600
string_mib=128
escapes=$((16 << 20))
threads=200000
domains=400000
do_json=1
do_capture=1
do_python=1
keep=

usage() {
	echo "usage: bench/bench_hostile.sh [--runs N] [--timeout S] [--string-mib N] [--escapes N] [--threads N] [--domains N] [--no-json] [--no-capture] [--no-python] [--keep DIR]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--timeout) limit=${2:?}; shift 2 ;;
	--string-mib) string_mib=${2:?}; shift 2 ;;
	--escapes) escapes=${2:?}; shift 2 ;;
	--threads) threads=${2:?}; shift 2 ;;
	--domains) domains=${2:?}; shift 2 ;;
	--no-json) do_json=0; shift ;;
	--no-capture) do_capture=0; shift ;;
	--no-python) do_python=0; shift ;;
	--keep) keep=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
for n in "$runs" "$limit" "$string_mib" "$escapes" "$threads" "$domains"; do
	[[ $n =~ ^[0-9]+$ ]] || usage
done
if [ "$runs" -lt 1 ] || [ "$limit" -lt 1 ]; then
	usage
fi
[ $do_json = 1 ] || [ $do_capture = 1 ] || usage

if [ ! -x /usr/bin/time ]; then
	echo "bench_hostile.sh: /usr/bin/time is missing (Debian: apt-get install -y time)" >&2
	exit 2
fi
command -v python3 >/dev/null || { echo "bench_hostile.sh: python3 is missing" >&2; exit 2; }
if [ ! -x "$gp" ]; then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target gpuprof >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gp-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
data=${keep:-$work/data}
mkdir -p "$data"

# generate (or, with --keep, reuse) the inputs; want.txt: name, bytes, what the report must show
only=
[ $do_json = 1 ] || only="--only capture"
[ $do_capture = 1 ] || only="--only json"
sizes="--string-mib $string_mib --escapes $escapes --threads $threads --domains $domains $only"
if [ -n "$keep" ] && [ -s "$data/want.txt" ] && [ "$(cat "$data/args.txt" 2>/dev/null)" = "$sizes" ]; then
	echo "# reusing the inputs in $data"
else
	echo "# writing the inputs ($sizes) to $data"
	# shellcheck disable=SC2086
	python3 "$here/gen_hostile.py" "$data" $sizes >"$data/want.txt"
	echo "$sizes" >"$data/args.txt"
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# check_report REPORT WANT...: the long name is whole ("name N chars") or every range was kept
check_report() {
	python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))["ranks"][0]
what, n = sys.argv[2], int(sys.argv[3])
if what == "name":
    ok = any(len(k["name"]) == n and set(k["name"]) == {"é"} for k in r["kernels"])
else:
    ok = r["overview"]["events_kept"] == n
sys.exit(0 if ok else 1)
PY
}

status=0
rows=()
while read -r name bytes what n _ <&3; do
	f=$data/$name
	walls=()
	rss=()
	note=
	for ((i = 1; i <= runs; i++)); do
		rc=0
		/usr/bin/time -f '%e %M' -o "$work/time" timeout "$limit" \
			"$gp" analyze --json -o "$work/report.json" "$f" </dev/null >/dev/null 2>"$work/err" || rc=$?
		if [ "$rc" = 124 ]; then
			walls+=(">$limit")
			note="timeout"
			status=1
			break
		fi
		if [ "$rc" != 0 ]; then
			echo "bench_hostile.sh: gpuprof failed on $name: $(tail -n 1 "$work/err")" >&2
			note="failed"
			status=1
			break
		fi
		read -r w m <"$work/time"
		walls+=("$w")
		rss+=("$m")
		if [ "$i" = 1 ] && ! check_report "$work/report.json" "$what" "$n"; then
			echo "bench_hostile.sh: the report of $name is wrong (want $what $n)" >&2
			note="wrong"
			status=1
		fi
		echo "# $name run $i: ${w}s, $((m / 1024)) MB"
	done
	if [ ${#rss[@]} -gt 0 ] && [ -z "$note" ]; then
		gw=$(printf '%s\n' "${walls[@]}" | median)
		gm=$(($(printf '%s\n' "${rss[@]}" | median | cut -d. -f1) / 1024))
	else
		gw=${walls[0]:-"-"}
		gm="-"
	fi
	pw="-"
	pm="-"
	ratio="-"
	case $name in
	*.json | *.json.gz)
		if [ $do_python = 1 ]; then
			/usr/bin/time -f '%M' -o "$work/ptime" python3 -c '
import gzip, json, sys, time
f = sys.argv[1]
t = time.perf_counter()
with (gzip.open(f, "rb") if f.endswith(".gz") else open(f, "rb")) as fh:
    json.load(fh)
print("%.2f" % (time.perf_counter() - t))' "$f" >"$work/pout" || true
			pw=$(cat "$work/pout" 2>/dev/null || echo "-")
			pm=$(($(tail -n 1 "$work/ptime") / 1024))
			if [ -z "$note" ] && [ "$gw" != "-" ]; then
				ratio=$(awk -v a="$gw" -v b="$pw" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }')
			fi
		fi
		;;
	esac
	mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	rows+=("$(printf '%-20s %9s %10s %8s %10s %8s %9s %s' "$name" "$mb" "$gw" "$gm" "$pw" "$pm" "$ratio" "$note")")
done 3<"$data/want.txt"

echo
echo "gpuprof analyze --json on hostile inputs ($runs runs, median; $(nproc) CPUs; $(uname -r))"
printf '%-20s %9s %10s %8s %10s %8s %9s\n' "input" "file MiB" "gpuprof s" "RSS MB" "json.load" "RSS MB" "load/gp"
for r in "${rows[@]}"; do
	echo "$r"
done
exit $status
