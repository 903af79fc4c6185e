#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_history.sh - issue 25's budget end to end: 10,000 series of 500 points analysed in
# seconds, through the database (bench_cpd times the detector alone, in memory).
#
# Writes four CSV files of 500 rows and 2,500 metrics each (a CSV holds at most 4096
# columns): Gaussian noise of 0.5 %, every tenth metric with a 3 % step at row 250. Imports
# them into a fresh SQLite database (4 x 500 runs, 5,000,000 metric rows), then times, RUNS
# times each, `history list` (reading every series), `history changes --json` (reading and
# detecting) and `history check` (the gate), and prints the medians with the change points
# found (1,000 expected: the work was done) and the peak RSS. With --postgresql URL, the same
# on that database too (it must be empty).
#
# usage: bench/bench_history.sh [--runs N] [--series N] [--postgresql URL] [--keep DIR]
# Environment: GP_BUILD_DIR (default build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
G=${GP_BUILD_DIR:-$root/build}/gpuprof
runs=3
series=10000
pg=
keep=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--series) series=${2:?}; shift 2 ;;
	--postgresql) pg=${2:?}; shift 2 ;;
	--keep) keep=${2:?}; shift 2 ;;
	*) echo "usage: bench/bench_history.sh [--runs N] [--series N] [--postgresql URL] [--keep DIR]" >&2; exit 2 ;;
	esac
done
[ -x "$G" ] || { echo "no gpuprof at $G: build first" >&2; exit 2; }
dir=${keep:-$(mktemp -d)}
mkdir -p "$dir"
[ -n "$keep" ] || trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$series" <<'PY'
import os, random, sys
d, series = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
per = 2500
for part in range((series + per - 1) // per):
    cols = range(part * per, min(series, (part + 1) * per))
    with open(os.path.join(d, "h%d.csv" % part), "w") as f:
        f.write("time,commit," + ",".join("m%05d_ns" % j for j in cols) + "\n")
        for i in range(500):
            cells = ["%.1f" % (1e6 * (1.03 if j % 10 == 0 and i >= 250 else 1.0)
                               * (1 + rng.gauss(0, 0.005))) for j in cols]
            f.write("%d,c%05d," % (1790000000 + i * 3600, i) + ",".join(cells) + "\n")
PY

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

bench_db() { # DB LABEL
	local db=$1 label=$2 t0 t1 rss
	t0=$(date +%s.%N)
	for f in "$dir"/h*.csv; do
		"$G" history import --db "$db" --csv "$f" 2>/dev/null
	done
	t1=$(date +%s.%N)
	printf '%-10s import of %d series x 500 points: %.2f s\n' "$label" "$series" \
		"$(echo "$t1 - $t0" | bc)"
	for cmd in list changes check; do
		: >"$dir/times"
		for _ in $(seq "$runs"); do
			case $cmd in
			list) args=(history list --db "$db") ;;
			changes) args=(history changes --json --db "$db") ;;
			check) args=(history check --db "$db") ;;
			esac
			/usr/bin/time -f '%e %M' -o "$dir/t1" "$G" "${args[@]}" >"$dir/out" || true
			cat "$dir/t1" >>"$dir/times"
		done
		rss=$(awk '{print $2}' "$dir/times" | sort -n | tail -1)
		printf '%-10s %-8s median %5.2f s of %d runs, peak RSS %d MB' "$label" "$cmd" \
			"$(awk '{print $1}' "$dir/times" | median)" "$runs" $((rss / 1024))
		case $cmd in
		changes) printf ', %s change points\n' "$(python3 -c 'import json,sys
print(sum(len(s["changes"]) for s in json.load(open(sys.argv[1]))))' "$dir/out")" ;;
		check) printf ', %s\n' "$(awk '/^checked /{p=1} p' "$dir/out" | tr -s ' \n' ' ')" ;;
		*) printf ', %s series\n' "$(($(wc -l <"$dir/out") - 1))" ;;
		esac
	done
}

echo "gpuprof: $("$G" version | head -1); $(nproc) CPUs; $(date -u +%F)"
bench_db "$dir/h.sqlite" sqlite
ls -l "$dir/h.sqlite" | awk '{printf "sqlite     database %.0f MB\n", $5 / 1e6}'
[ -z "$pg" ] || bench_db "$pg" postgresql
