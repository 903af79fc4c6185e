#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0751-history-concurrent.sh - two processes adding 500 results each at once into one
# SQLite file lose no row: 1,000 runs, each with all its metrics (WAL, BEGIN IMMEDIATE and
# the busy timeout).
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace
"$GPUPROF" version --build-options 2>/dev/null | grep -Eq 'history sqlite: +yes' ||
	{ echo "skip: built without libsqlite3-dev"; exit 77; }

"$GEN" --steps 4 -o "$TMP/t.json" >/dev/null 2>&1 || fail "gen_trace"
expect_rc 0 bench --json -o "$TMP/b.json" "$TMP/t.json"
DB="$TMP/c.sqlite"
expect_rc 0 history list --db "$DB" # created before the writers start

writer() {
	for i in $(seq 1 500); do
		"$GPUPROF" history add --db "$DB" --commit "$1-$i" "$TMP/b.json" 2>>"$TMP/$1.err" ||
			echo "$1-$i" >>"$TMP/$1.failed"
	done
}
writer a &
pa=$!
writer b &
pb=$!
wait "$pa" "$pb"
[ ! -e "$TMP/a.failed" ] && [ ! -e "$TMP/b.failed" ] ||
	fail "adds failed: $(cat "$TMP"/*.err | head -3)"
expect_rc 0 history export --jsonl --db "$DB"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "1,000 runs (above)"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
assert len(runs) == 1000, len(runs)
assert sorted(r["commit"] for r in runs) == sorted("%s-%d" % (w, i) for w in "ab"
                                                   for i in range(1, 501))
n = {len(r["metrics"]) for r in runs}
assert len(n) == 1 and n.pop() > 5, n
PY
done_ok
