#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0604-aggregate-another-job.sh - a rank report of another job among a job's reports, made with
# bench/gen-ranks.py: another world size is named as another job (before it is named as a
# duplicate of the rank it shares); a job of the same shape and size recorded on the same host
# (same clock) at another time is refused naming that rank's file, never reported as a
# desynchronisation; a job's own ranks still aggregate.
. "$(dirname "$0")/lib.sh"
need python3
cd "$TMP" || exit 1
GEN="python3 $GP_SRC_DIR/bench/gen-ranks.py"
$GEN --ranks 4 --hosts 1 --seed 3 --out j1 >/dev/null || fail "gen-ranks j1"
$GEN --ranks 4 --hosts 1 --seed 9 --steps 6 --out j3 >/dev/null || fail "gen-ranks j3"
$GEN --ranks 8 --hosts 2 --seed 4 --out j8 >/dev/null || fail "gen-ranks j8"
for j in j1 j3 j8; do
	mkdir -p r$j
	for f in $j/*; do expect_rc 0 analyze --json -o r$j/${f##*/}.json "$f"; done
done
rank_file() { # DIR RANK: the report of that rank
	python3 - "$@" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    if json.load(open(f))["ranks"][0]["rank"] == int(sys.argv[2]):
        print(f)
PY
}
expect_rc 0 aggregate rj1
# world size 8 among 4: another job, although its rank 0 is also one of j1's
other=$(rank_file rj8 0)
run aggregate rj1/*.json "$other"
[ "$RC" -eq 1 ] || fail "another world size: exit $RC"
err_has "$other' (rank 0): world_size 8, the other ranks' is 4: a rank of another job"
# rank 2 of a job of the same shape, same host, another time
foreign=$(rank_file rj3 2)
set -- $(for r in 0 1 3; do rank_file rj1 $r; done)
run aggregate "$@" "$foreign"
[ "$RC" -eq 1 ] || fail "a rank of another job on the same clock: exit $RC"
err_has "$foreign' (rank 2):"
err_has "a rank of another job"
grep -q "DESYNC" "$OUT" && fail "another job's rank reported as a desync"
done_ok
