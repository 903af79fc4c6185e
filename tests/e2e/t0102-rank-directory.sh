#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A directory of per-rank traces: every file analysed (in parallel), ranks from
# distributedInfo, sorted; --rank picks one; the same report whatever the thread count.
# --json (and the text report) writes each rank's text into a temporary file without a
# name as soon as it is made and copies the ranks out in order: the same bytes on
# stdout and in a file, and where no temporary file can be made; nothing is left in
# $TMPDIR; a damaged rank writes no report (and, salvaged, is still said on stderr).
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
mkdir "$tmp/spool"
TMPDIR="$tmp/spool" "$GPUPROF" analyze --json "$tmp/run" >"$tmp/stdout.json"
cmp "$tmp/r1.json" "$tmp/stdout.json" || { echo "FAIL: stdout and -o differ"; exit 1; }
[ -z "$(ls -A "$tmp/spool")" ] || { echo "FAIL: left in TMPDIR: $(ls -A "$tmp/spool")"; exit 1; }
TMPDIR=/nonexistent/gpuprof-spool "$GPUPROF" analyze --json -o "$tmp/nospool.json" "$tmp/run"
cmp "$tmp/r1.json" "$tmp/nospool.json" || { echo "FAIL: without a temporary file"; exit 1; }
# the text report the same way: one text whether spooled or not, on stdout or in a file
"$GPUPROF" analyze "$tmp/run" >"$tmp/text.txt"
TMPDIR=/nonexistent/gpuprof-spool "$GPUPROF" analyze -o "$tmp/text2.txt" "$tmp/run"
cmp "$tmp/text.txt" "$tmp/text2.txt" || { echo "FAIL: the text depends on the spool"; exit 1; }
[ "$(grep -c '^== rank ' "$tmp/text.txt")" = 2 ] || { echo "FAIL: not two ranks in the text"; exit 1; }
grep -q '^== rank 0: .*b.json.gz ==$' "$tmp/text.txt" || { echo "FAIL: rank 0 first"; exit 1; }
# a third rank, damaged: no report at all, the old file kept, nothing on stdout
cp "$tmp/r1.json" "$tmp/keep.json"
python3 - "$src/trace_filter_sampled_rank-0.json.gz" "$tmp/run/c.json" <<'PY'
import gzip, sys
data = gzip.open(sys.argv[1]).read()
open(sys.argv[2], "wb").write(data[: len(data) * 2 // 3])
PY
if "$GPUPROF" analyze --json -o "$tmp/keep.json" "$tmp/run" 2>"$tmp/err"; then
	echo "FAIL: a damaged rank accepted"; exit 1
fi
grep -q "c.json" "$tmp/err" || { echo "FAIL: the damaged file not named"; cat "$tmp/err"; exit 1; }
cmp "$tmp/r1.json" "$tmp/keep.json" || { echo "FAIL: the old report changed"; exit 1; }
if "$GPUPROF" analyze --json "$tmp/run" >"$tmp/out" 2>/dev/null || [ -s "$tmp/out" ]; then
	echo "FAIL: a damaged rank wrote to stdout"; exit 1
fi
if "$GPUPROF" analyze "$tmp/run" >"$tmp/out" 2>/dev/null || [ -s "$tmp/out" ]; then
	echo "FAIL: a damaged rank wrote text to stdout"; exit 1
fi
"$GPUPROF" analyze --json --salvage -o "$tmp/salv.json" "$tmp/run" 2>"$tmp/err"
grep -q "c.json.*damaged at byte" "$tmp/err" || { echo "FAIL: no salvage warning"; cat "$tmp/err"; exit 1; }
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [r for r in d['ranks'] if r['file'].endswith('/c.json')]
assert len(d['ranks']) == 3 and len(c) == 1 and c[0]['salvage']['lost_bytes'] > 0, d['ranks']
" "$tmp/salv.json"
rm "$tmp/run/c.json"
"$GPUPROF" analyze --json --rank 1 -o "$tmp/one.json" "$tmp/run"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [r['rank'] for r in d['ranks']] == [1]" "$tmp/one.json"
if "$GPUPROF" analyze --rank 7 "$tmp/run" 2>"$tmp/err"; then echo "FAIL: --rank 7 accepted"; exit 1; fi
grep -q "rank 7" "$tmp/err" || { echo "FAIL: no message for a missing rank"; cat "$tmp/err"; exit 1; }
echo ok
