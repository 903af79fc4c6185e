#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_aggregate.sh - what `gpuprof aggregate` costs on many ranks (issue 22 item 8: "one machine
# aggregates 1,024 ranks' reports in seconds and in memory that grows with the ranks, not the
# events"), against a pure-Python aggregation of the same reports, in one run.
#
# usage: bench/bench_aggregate.sh [--ranks N] [--scaling "N1 N2 ..."] [--steps S]
#                                 [--events-per-step K] [--runs N] [--no-python] [--keep DIR]
#
# For each rank count (--scaling, default "64 256", then --ranks, default 1024):
#   1. bench/gen-ranks.py writes N ranks of a job (8 GPUs per host, a straggler at rank N/2+3 that
#      is 5 ms late per step, random host clock offsets within +-2 ms, --steps steps, default 4);
#   2. `gpuprof analyze --json -o reports/rank-R.json TRACE`, one process per rank as each node
#      would run it for its own ranks: the wall time of all of them one after the other, per rank;
#      the traces are deleted afterwards (unless --keep), only the reports stay;
#   3. `gpuprof aggregate --json reports/` --runs times (default 3) under /usr/bin/time: median wall
#      time, user CPU and peak RSS, time per rank; the first run's answer is checked against the
#      generator's ground truth (the straggler named first, every clock offset within 10 us);
#   4. the baseline, HTA-style pure Python (a python3 snippet below; not HTA itself, which reads raw
#      traces and has no cross-host clock alignment): json.load of the same N reports, the
#      collectives ledger of each rank (ranks[].collectives.ledger), matching by (pg, seq), one
#      clock offset per host (the median over shared collectives of the end on the lowest rank's
#      host minus the end on this host), and per collective on the aligned clock: latest and
#      earliest start, each rank's wait (latest start - its start), skew, transfer (shortest
#      duration), the rank that arrived last with its blame (last - second-last start); totals per
#      (pg, collective name) and per rank, stragglers by blame. CONTRACT-22 C's definitions without
#      the clock bounds and uncertainty, statistics, heatmap, per-rank table or findings: the least
#      an aggregation must do. Timed the same way (whole process, median of --runs); its answer is
#      checked like aggregate's.
# Prints a table (one line per rank count: the scaling) and the ratios baseline / gpuprof.
# Exit status: 0 every run finished and the answers check, 1 otherwise (also when this gpuprof has
# no aggregate command yet), 2 usage. Environment: GP_BUILD_DIR (default build-bench), GPUPROF (the
# CLI to time). Disk: ~0.9 MB of trace per rank and step count 4 while a size is analysed (~1 GB at
# 1,024 ranks, in $TMPDIR or --keep DIR), then ~0.1 MB of report per rank.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${GP_BUILD_DIR:-$root/build-bench}
ranks=1024
scaling="64 256"
steps=4
eps=
runs=3
do_python=1
keep=

usage() {
	echo "usage: bench/bench_aggregate.sh [--ranks N] [--scaling \"N1 N2 ...\"] [--steps S] [--events-per-step K] [--runs N] [--no-python] [--keep DIR]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--ranks) ranks=${2:?}; shift 2 ;;
	--scaling) scaling=${2?}; shift 2 ;;
	--steps) steps=${2:?}; shift 2 ;;
	--events-per-step) eps=${2:?}; shift 2 ;;
	--runs) runs=${2:?}; shift 2 ;;
	--no-python) do_python=0; shift ;;
	--keep) keep=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done
case "$ranks $runs $steps" in *[!0-9\ ]*) usage ;; esac

if [ ! -x /usr/bin/time ]; then
	echo "bench_aggregate: /usr/bin/time is missing (Debian: apt-get install -y time)" >&2
	exit 1
fi
gp=${GPUPROF:-$build/gpuprof}
if [ ! -x "$gp" ]; then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$build" -j2 --target gpuprof >/dev/null
fi
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
else
	tmp=$(mktemp -d)
	work=$tmp
	trap 'rm -rf "$tmp"' EXIT
fi

# fail at once, clearly, with a gpuprof whose aggregate command has not landed
msg=$("$gp" aggregate --json "$tmp/no-such-dir" 2>&1 || true)
case $msg in
*"not available"*)
	echo "bench_aggregate: $gp cannot aggregate: $msg" >&2
	exit 1
	;;
esac

# the baseline: pure-Python aggregation of analyze reports (see the header)
cat >"$tmp/baseline.py" <<'PY'
import json, os, statistics, sys
from collections import defaultdict

d = sys.argv[1]
coll = defaultdict(dict)          # (pg, seq) -> rank -> (start, end, name)
host = {}
for f in sorted(os.listdir(d)):
    with open(os.path.join(d, f)) as fh:
        doc = json.load(fh)
    for r in doc["ranks"]:
        c = r.get("collectives")
        if c is None:
            sys.exit("baseline: %s has no collectives ledger" % f)
        host[r["rank"]] = r.get("host") or "rank-%d" % r["rank"]
        for e in c["ledger"]:
            coll[(e["pg"], e["seq"])][r["rank"]] = (e["start_ns"], e["end_ns"], e["name"])
# clocks: one offset per host, the median over shared collectives of the reference host's end
# minus the host's (collectives end together); reference: the host of the lowest rank
ref = host[min(host)]
diff = defaultdict(list)
for by in coll.values():
    at_ref = [v[1] for r, v in by.items() if host[r] == ref]
    if at_ref:
        for r, v in by.items():
            diff[host[r]].append(at_ref[0] - v[1])
off = {h: statistics.median(v) for h, v in diff.items()}
wait = defaultdict(int)
per = defaultdict(lambda: {"count": 0, "wait_ns": 0, "transfer_ns": 0, "skew_ns": []})
blame, last = defaultdict(int), defaultdict(int)
for key, by in coll.items():
    starts = sorted((v[0] + off.get(host[r], 0), r) for r, v in by.items())
    hi = starts[-1][0]
    p = per[(key[0], next(iter(by.values()))[2])]
    p["count"] += 1
    p["transfer_ns"] += min(v[1] - v[0] for v in by.values())
    p["skew_ns"].append(hi - starts[0][0])
    for s, r in starts:
        wait[r] += hi - s
        p["wait_ns"] += hi - s
    if len(starts) > 1 and hi > starts[-2][0]:
        last[starts[-1][1]] += 1
        blame[starts[-1][1]] += hi - starts[-2][0]
top = sorted(blame, key=lambda r: (-blame[r], r))
print(json.dumps({"ranks": [{"rank": r, "clock_offset_ns": off.get(host[r], 0), "wait_ns": wait[r]} for r in sorted(host)],
                  "collectives": len(coll),
                  "stragglers": [{"rank": r, "blame_ns": blame[r], "last_count": last[r]} for r in top],
                  "per": {"%s/%s" % k: {"count": v["count"], "wait_ns": v["wait_ns"], "transfer_ns": v["transfer_ns"],
                                        "skew_max_ns": max(v["skew_ns"])} for k, v in per.items()}}))
PY

# the check of aggregate's answer against the ground truth
cat >"$tmp/check.py" <<'PY'
import json, sys
agg, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
if len(agg.get("ranks", [])) != truth["ranks"]:
    bad.append("%d ranks, not %d" % (len(agg.get("ranks", [])), truth["ranks"]))
st = agg.get("stragglers") or [{}]
if st[0].get("rank") != truth["straggler"]["rank"]:
    bad.append("first straggler %s, not %d" % (st[0].get("rank"), truth["straggler"]["rank"]))
worst = 0
for r in agg.get("ranks", []):
    want = truth["clock_offset_ns"]["node-%d" % (r["rank"] // truth["gpus_per_host"])]
    worst = max(worst, abs((r.get("clock_offset_ns") or 0) - want))
if worst > 10000:
    bad.append("a clock offset is off by %.1f us" % (worst / 1000))
print("ok (offsets within %.3f us)" % (worst / 1000) if not bad else "DIFF: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY

# median_of OUT CMD...: runs CMD $runs times (stdout to OUT, the first run's kept), prints
# "wall_s user_s rss_kb" of the median wall time
median_of() {
	local out=$1 i
	shift
	: >"$tmp/times"
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %U %M' -o "$tmp/t" "$@" >"$tmp/run.out" 2>"$tmp/err" ||
			{ echo "bench_aggregate: '$*' failed:" >&2; cat "$tmp/err" >&2; return 1; }
		[ "$i" -gt 0 ] || cp "$tmp/run.out" "$out"
		cat "$tmp/t" >>"$tmp/times"
	done
	sort -n "$tmp/times" | sed -n "$(((runs + 1) / 2))p"
}

now_ns() { date +%s%N; }
ms() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (b - a) / 1e6 / n }'; }

sizes=()
for n in $scaling; do [ "$n" -lt "$ranks" ] && sizes+=("$n"); done
sizes+=("$ranks")

status=0
rows=()
echo "gpuprof: $("$gp" --version 2>/dev/null | head -n 1); $(nproc) CPUs; $(uname -m); runs $runs; steps $steps" >&2
for n in "${sizes[@]}"; do
	dir=$work/ranks-$n
	rm -rf "$dir"
	mkdir -p "$dir/reports"
	strag=$((n / 2 + 3 < n ? n / 2 + 3 : n - 1))
	echo "== $n ranks: generating ..." >&2
	t0=$(now_ns)
	python3 "$here/gen-ranks.py" --ranks "$n" --steps "$steps" ${eps:+--events-per-step "$eps"} \
		--straggler "$strag" --straggler-ms 5 --seed 1 --out "$dir/traces" >"$dir/truth.json"
	t1=$(now_ns)
	trace_mb=$(du -sm "$dir/traces" | cut -f1)
	echo "   analysing $n traces ($trace_mb MB), one process per rank ..." >&2
	python3 -c 'import json,sys; [print(f["rank"], f["file"]) for f in json.load(open(sys.argv[1]))["files"]]' \
		"$dir/truth.json" >"$tmp/files"
	t2=$(now_ns)
	while read -r rank file; do
		"$gp" analyze --json -o "$dir/reports/rank-$rank.json" "$dir/traces/$file" ||
			{ echo "bench_aggregate: analyze of rank $rank failed" >&2; exit 1; }
	done <"$tmp/files"
	t3=$(now_ns)
	[ -n "$keep" ] || rm -rf "$dir/traces"
	rep_mb=$(du -sm "$dir/reports" | cut -f1)
	echo "   aggregating ..." >&2
	read -r a_wall a_user a_rss < <(median_of "$dir/aggregate.json" "$gp" aggregate --json "$dir/reports/") ||
		{ status=1; continue; }
	check=$(python3 "$tmp/check.py" "$dir/aggregate.json" "$dir/truth.json") || status=1
	pcheck=-
	p_wall=- p_rss=- ratio=- rratio=-
	if [ "$do_python" = 1 ]; then
		if read -r p_wall _ p_rss < <(median_of "$dir/baseline.json" python3 "$tmp/baseline.py" "$dir/reports"); then
			pcheck=$(python3 "$tmp/check.py" "$dir/baseline.json" "$dir/truth.json") || true
			ratio=$(awk -v p="$p_wall" -v g="$a_wall" 'BEGIN { if (g > 0) printf "%.1fx", p / g; else printf "-" }')
			rratio=$(awk -v p="$p_rss" -v g="$a_rss" 'BEGIN { if (g > 0) printf "%.1fx", p / g; else printf "-" }')
			p_rss=$((p_rss / 1024))
		else
			status=1
		fi
	fi
	rows+=("$(printf '%6d %7s %9s %8s %7s %9s %9s %7s %9s %7s %7s %7s' "$n" "$trace_mb" \
		"$(ms "$t0" "$t1" 1000)" "$(ms "$t2" "$t3" "$n")" "$rep_mb" "$a_wall" \
		"$(awk -v w="$a_wall" -v n="$n" 'BEGIN { printf "%.3f", w * 1000 / n }')" "$((a_rss / 1024))" \
		"$p_wall" "$p_rss" "$ratio" "$rratio")")
	rows+=("       aggregate user CPU ${a_user} s; check: $check; baseline's answer: $pcheck")
done

echo
printf '%6s %7s %9s %8s %7s %9s %9s %7s %9s %7s %7s %7s\n' ranks "trace" "gen" "analyze" "reports" \
	"aggr" "aggr" "aggr" "python" "python" "py/gp" "py/gp"
printf '%6s %7s %9s %8s %7s %9s %9s %7s %9s %7s %7s %7s\n' "" "MB" "s" "ms/rank" "MB" "wall s" \
	"ms/rank" "RSS MB" "wall s" "RSS MB" "time" "RSS"
for row in "${rows[@]}"; do echo "$row"; done
exit $status
