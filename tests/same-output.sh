#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# same-output.sh BEFORE AFTER [TRACES]: run two gpuprof binaries over the same inputs and
# show every output that differs. The inputs: each trace of TRACES (default ../shared/traces)
# and of tests/data, analyzed (text, --json, --top 0), exported, reported, benchmarked from
# its steps, and compared with another; a directory of ranks; analyze/bench JSON documents
# fed back to compare and report. Exit 0 when all are byte-identical, 1 when any differ.
# A redesign must leave every number alone: issue 20's acceptance runs this before and after.
set -u
before=${1:?usage: same-output.sh BEFORE AFTER [TRACES]}
after=${2:?usage: same-output.sh BEFORE AFTER [TRACES]}
here=$(cd "$(dirname "$0")" && pwd)
traces=${3:-$here/../../shared/traces}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
before=$(realpath "$before")
after=$(realpath "$after")

inputs=()
for f in "$traces"/*/*.json.gz "$here"/data/kineto/*.json* "$here"/data/e2e/*.json; do
	[ -f "$f" ] && inputs+=("$f")
done
mkdir -p "$work/ranks"
for f in "$traces"/hta/trace_filter_sampled_rank-*.json.gz; do
	[ -f "$f" ] && ln -s "$f" "$work/ranks/"
done

cases=()
add() { cases+=("$*"); }
i=0
for f in "${inputs[@]}"; do
	add "analyze $f"
	add "analyze --json $f"
	add "analyze --top 0 --compat hta $f"
	add "analyze --json --salvage $f"
	add "bench --json --seed 7 $f"
	add "bench --markdown --seed 7 $f"
	add "bench --seed 7 $f"
	add "export -q -o - $f"
	add "report -q --title t -o - $f"
	i=$((i + 1))
done
add "analyze $work/ranks"
add "analyze --json $work/ranks"
add "analyze --rank 1 $work/ranks"
add "report -q --title t -o - $work/ranks"
add "export -q -o - $work/ranks"
if [ -f "$traces/hta/trace_diff_control_control.json.gz" ]; then
	a=$traces/hta/trace_diff_control_control.json.gz
	b=$traces/hta/trace_diff_test_test.json.gz
	add "compare $a $b"
	add "compare --json $a $b"
	add "compare --markdown $a $b"
	add "compare --top 0 --json $b $a"
fi
n1=$traces/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
n2=$traces/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
[ -f "$n1" ] && add "compare $n1 $n2" && add "compare --markdown $n1 $n2"

# documents made by BEFORE, fed to both: the readers and formatters of analyze/bench JSON
docs=()
for f in "${inputs[@]}"; do
	k=$(basename "$f")
	"$before" analyze --json -q "$f" >"$work/$k.analyze.json" 2>/dev/null && docs+=("$work/$k.analyze.json")
	"$before" bench --json --seed 7 "$f" >"$work/$k.bench.json" 2>/dev/null &&
		[ -s "$work/$k.bench.json" ] && docs+=("$work/$k.bench.json")
done
for d in "${docs[@]}"; do
	add "report -q --title t -o - $d"
	add "compare $d $d"
	add "compare --json $d $d"
done
if [ ${#docs[@]} -ge 2 ]; then
	add "compare --markdown ${docs[0]} ${docs[1]}"
fi

fail=0
n=0
strings=0
declare -A per
for c in "${cases[@]}"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	(cd "$work" && "$before" $c >"$work/b.out" 2>"$work/b.err"; echo $? >"$work/b.rc")
	# shellcheck disable=SC2086
	(cd "$work" && "$after" $c >"$work/a.out" 2>"$work/a.err"; echo $? >"$work/a.rc")
	if ! cmp -s "$work/b.out" "$work/a.out" || ! cmp -s "$work/b.rc" "$work/a.rc" ||
		! cmp -s "$work/b.err" "$work/a.err"; then
		fail=$((fail + 1))
		per[${c%% *}]=$((${per[${c%% *}]:-0} + 1))
		# JSON documents: are the numbers and the keys the same, only sentences changed?
		what=""
		if cmp -s "$work/b.rc" "$work/a.rc" && python3 - "$work/b.out" "$work/a.out" 2>/dev/null <<'PY'; then
import json, sys
def walk(v, p, out):
    if isinstance(v, dict):
        for k in sorted(v): walk(v[k], p + "/" + k, out)
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(x, p + "/%d" % i, out)
    elif isinstance(v, str):
        out.append((p, "str"))
    else:
        out.append((p, v))
a, b = [], []
walk(json.load(open(sys.argv[1])), "", a)
walk(json.load(open(sys.argv[2])), "", b)
sys.exit(0 if a == b else 1)
PY
			what=" (JSON: every key and number the same; strings differ)"
			strings=$((strings + 1))
		fi
		echo "DIFF: gpuprof ${c//$work/WORK}$what"
		diff <(cat "$work/b.rc" "$work/b.err" "$work/b.out") \
			<(cat "$work/a.rc" "$work/a.err" "$work/a.out") | head -${SAME_OUTPUT_LINES:-20}
	fi
done
echo "same-output: $n cases, $((n - fail)) identical, $fail differ ($strings of them JSON whose keys and numbers are all the same)"
for k in "${!per[@]}"; do echo "  $k: ${per[$k]} differ"; done | sort
[ $fail -eq 0 ]
