# SPDX-License-Identifier: MIT
# history-writers.sh - two_writers DB RESULT: two processes at once, each adding RESULT 500
# times (one `history add` each, commits a-1..a-500 and b-1..b-500), then the export must
# hold all 1,000 runs. Sourced by t0751 (SQLite) and t0752 (PostgreSQL) after lib.sh.
two_writers() {
	local db=$1 result=$2 pa pb
	writer() {
		for i in $(seq 1 500); do
			"$GPUPROF" history add --db "$db" --commit "$1-$i" "$result" 2>>"$TMP/$1.err" ||
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
	expect_rc 0 history export --jsonl --db "$db"
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
}
