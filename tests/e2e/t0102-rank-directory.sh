#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A directory of per-rank traces: every file analysed (in parallel), ranks from
# distributedInfo, sorted; --rank picks one; the same report whatever the thread count.
set -eu
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
src="$GP_SHARED_DIR/traces/hta"
[ -f "$src/trace_filter_sampled_rank-1.json.gz" ] || { echo "skip: no ../shared/traces"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run"
# copied in reverse name order, with names that do not say the rank
cp "$src/trace_filter_sampled_rank-1.json.gz" "$tmp/run/a.json.gz"
cp "$src/trace_filter_sampled_rank-0.json.gz" "$tmp/run/b.json.gz"
"$GPUPROF" analyze --json --threads 2 -o "$tmp/r2.json" "$tmp/run"
"$GPUPROF" analyze --json --threads 1 -o "$tmp/r1.json" "$tmp/run"
cmp "$tmp/r1.json" "$tmp/r2.json" || { echo "FAIL: output depends on the thread count"; exit 1; }
python3 - "$tmp/r2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ranks = [(r["rank"], r["file"].rsplit("/", 1)[1]) for r in d["ranks"]]
assert ranks == [(0, "b.json.gz"), (1, "a.json.gz")], ranks
assert all(r["overview"]["distributed"]["world_size"] == 128 for r in d["ranks"])
print("ranks", ranks)
PY
"$GPUPROF" analyze --json --rank 1 -o "$tmp/one.json" "$tmp/run"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [r['rank'] for r in d['ranks']] == [1]" "$tmp/one.json"
if "$GPUPROF" analyze --rank 7 "$tmp/run" 2>"$tmp/err"; then echo "FAIL: --rank 7 accepted"; exit 1; fi
grep -q "rank 7" "$tmp/err" || { echo "FAIL: no message for a missing rank"; cat "$tmp/err"; exit 1; }
echo ok
